"""Fuzz: mutated real dumps either parse, select and describe, or raise UIParseError - nothing else."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ui_helpers import dump_dir

from droidverify.errors import UIParseError
from droidverify.ui import describe_compressed, describe_html, describe_list, parse_xml, select_elements

DUMPS = [p.read_bytes() for p in sorted(dump_dir().glob("*.xml"))]

BAD_BOUNDS = [b"", b"[", b"[0,0]", b"[0,0][", b"[1,2][3]", b"[a,b][c,d]", b"[10,10][0,0]",
              b"[0,0][1e3,5]", b"[-,-][-,-]", b"[0,0][99999999999999999999,1]", b"0,0,10,10"]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(DUMPS)))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["truncate", "flip", "attr", "bounds", "quote", "insert"]))
        n = len(data)
        if n == 0:
            break
        if kind == "truncate":
            del data[draw(st.integers(0, n - 1)):]
        elif kind == "flip":
            i = draw(st.integers(0, n - 1))
            data[i] ^= draw(st.integers(1, 255))
        elif kind == "attr":
            # Replace the value of the k-th attribute with arbitrary (escaped) text.
            quotes = [i for i, c in enumerate(data) if c == ord('"')]
            if len(quotes) >= 2:
                k = draw(st.integers(0, len(quotes) // 2 - 1))
                a, b = quotes[2 * k], quotes[2 * k + 1]
                value = draw(st.sampled_from([b"", b"true", b"TRUE", b"yes", b"-1", b"1.5", b"&amp;",
                                              b"\xc3\xa9", b"[0,0][1,1]"])
                             | st.text(max_size=12).map(lambda s: s.replace("&", "").replace("<", "")
                                                        .replace('"', "").encode()))
                data[a + 1:b] = value
        elif kind == "bounds":
            starts = [i for i in range(n) if data.startswith(b'bounds="', i)]
            if starts:
                a = draw(st.sampled_from(starts)) + len(b'bounds="')
                b = data.find(b'"', a)
                if b > 0:
                    data[a:b] = draw(st.sampled_from(BAD_BOUNDS))
        elif kind == "quote":
            quotes = [i for i, c in enumerate(data) if c in b"\"'"]
            if quotes:
                del data[draw(st.sampled_from(quotes))]
        else:
            i = draw(st.integers(0, n))
            data[i:i] = draw(st.sampled_from([b"<", b">", b"/>", b"<node>", b"</node>", b"&", b"\x00",
                                              b"<hierarchy>", b'"', b" NAF=\"true\""])
                             | st.binary(min_size=1, max_size=8))
    return bytes(data)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_dumps_parse_or_raise_uiparseerror(data: bytes) -> None:
    try:
        root = parse_xml(data)
        elements = select_elements(root)
    except UIParseError as e:
        assert str(e)
        return
    for text in (describe_list(elements).text, describe_html(elements).text,
                 describe_compressed(root, elements).text):
        assert isinstance(text, str)
    assert [e.node_id for e in elements] == sorted(e.node_id for e in elements)
    for e in elements:
        assert e.bbox_pixels is not None and e.bbox_pixels.area > 0


def test_unmutated_dumps_parse() -> None:
    assert all(select_elements(parse_xml(d)) for d in DUMPS)
