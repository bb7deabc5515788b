"""Real-device dump hardening (issue 10, items 10-14): overlays, focusable controls, one escaping
rule, linear compressed output, bounded input."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from droidverify.cli import app
from droidverify.errors import UIParseError
from droidverify.ui import describe, parse_xml, select_elements
from droidverify.ui.describe import EMPTY_SCREEN, MAX_TEXT, escape_text, unescape_text
from droidverify.ui.element import Bounds, UIElement
from droidverify.ui.tree import MAX_XML_BYTES


def _node(cls: str, bounds: str, *, text: str = "", rid: str = "", desc: str = "", clickable: bool = False,
          focusable: bool = False, extra: str = "", children: str = "") -> str:
    head = (f'<node index="0" text="{text}" resource-id="{rid}" class="{cls}" package="com.x" '
            f'content-desc="{desc}" checkable="false" checked="false" clickable="{str(clickable).lower()}" '
            f'enabled="true" focusable="{str(focusable).lower()}" focused="false" scrollable="false" '
            f'long-clickable="false" password="false" selected="false" bounds="{bounds}" {extra}')
    return head + (f">{children}</node>" if children else " />")


def _dump(*windows: str) -> str:
    return f"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">{''.join(windows)}</hierarchy>"


FULL = "[0,0][1080,2400]"
HOME = _node("android.widget.LinearLayout", FULL, children=(
    _node("android.widget.TextView", "[0,100][540,300]", text="Photos", clickable=True)
    + _node("android.widget.TextView", "[540,100][1080,300]", text="Maps", clickable=True)))
OVERLAY = _node("android.widget.FrameLayout", FULL, clickable=True, children=(
    _node("android.widget.EditText", "[0,0][1080,150]", text="Search", clickable=True)
    + _node("android.widget.TextView", "[0,400][1080,500]", text="Result one", clickable=True)))


def _texts(xml: str) -> list[str]:
    return [e.text or "" for e in select_elements(parse_xml(xml))]


# ------------------------------------------------------------------ 10: covered elements
def test_overlay_drawn_later_in_document_order_covers_earlier_siblings() -> None:
    xml = _dump(_node("android.widget.FrameLayout", FULL, children=HOME + OVERLAY))
    texts = _texts(xml)
    assert "Photos" not in texts and "Maps" not in texts
    assert "Search" in texts and "Result one" in texts


def test_drawing_order_decides_which_sibling_is_on_top() -> None:
    detail = _node("android.widget.FrameLayout", FULL, clickable=True, extra='drawing-order="2"',
                   children=_node("android.widget.TextView", "[0,200][1080,300]", text="Detail", clickable=True))
    feed = _node("android.widget.FrameLayout", FULL, extra='drawing-order="1"', children=(
        _node("android.widget.TextView", "[0,200][1080,300]", text="Feed row", clickable=True)))
    texts = _texts(_dump(_node("android.widget.FrameLayout", FULL, children=detail + feed)))
    assert "Detail" in texts and "Feed row" not in texts


def test_when_the_dump_cannot_tell_elements_are_kept() -> None:
    not_clickable = OVERLAY.replace('clickable="true" enabled="true" focusable="false" focused="false" '
                                    'scrollable="false" long-clickable="false" password="false" '
                                    f'selected="false" bounds="{FULL}"',
                                    'clickable="false" enabled="true" focusable="false" focused="false" '
                                    'scrollable="false" long-clickable="false" password="false" '
                                    f'selected="false" bounds="{FULL}"', 1)
    assert not_clickable != OVERLAY
    texts = _texts(_dump(_node("android.widget.FrameLayout", FULL, children=HOME + not_clickable)))
    assert {"Photos", "Maps", "Search"} <= set(texts)
    partial = _node("android.widget.FrameLayout", "[0,0][1080,1200]", clickable=True,
                    children=_node("android.widget.TextView", "[0,0][1080,100]", text="Half", clickable=True))
    low = _node("android.widget.TextView", "[0,1100][1080,1300]", text="Straddles", clickable=True)
    texts = _texts(_dump(_node("android.widget.FrameLayout", FULL, children=low + partial)))
    assert "Straddles" in texts  # the overlay is not full-bounds: nothing is known to be covered
    hidden = _node("android.widget.TextView", "[0,100][540,300]", text="Gone", clickable=True,
                   extra='visible-to-user="false"')
    assert "Gone" not in _texts(_dump(_node("android.widget.FrameLayout", FULL, children=hidden)))


def test_real_dumps_lose_no_visible_element(dumps: dict[str, bytes]) -> None:
    import droidverify.ui.select as sel

    for name, data in dumps.items():
        root = parse_xml(data)
        now = select_elements(root)
        orig = sel._child_covers
        sel._child_covers = lambda *a: None  # the selection without the overlay rule
        try:
            before = select_elements(root)
        finally:
            sel._child_covers = orig
        assert [e.node_id for e in now] == [e.node_id for e in before], name


# ------------------------------------------------------------------ 11: focusable controls
def test_focusable_textless_leaf_controls_are_kept() -> None:
    login = _node("android.view.View", "[100,1000][980,1150]", focusable=True, rid="com.x:id/login")
    eye = _node("android.widget.ImageView", "[900,800][1000,900]", focusable=True)
    field = _node("android.widget.EditText", "[0,800][900,900]", text="", clickable=True)
    xml = _dump(_node("android.widget.FrameLayout", FULL, children=field + eye + login))
    els = select_elements(parse_xml(xml))
    assert [e.class_name for e in els] == ["android.widget.EditText", "android.widget.ImageView",
                                           "android.view.View"]
    lst = describe(els, "list").text
    assert "ImageView" in lst and "res=login" in lst
    assert 'res="login"' in describe(els, "html").text


def test_a_screen_with_nothing_prints_a_placeholder() -> None:
    xml = _dump(_node("android.widget.FrameLayout", FULL))
    root = parse_xml(xml)
    els = select_elements(root)
    assert els == []
    for fmt in ("list", "html", "compressed"):
        assert describe(els, fmt, root=root).text == EMPTY_SCREEN


def test_only_a_focusable_surface_is_described() -> None:
    xml = _dump(_node("android.widget.FrameLayout", FULL, children=_node(
        "android.view.View", "[0,0][1080,2400]", focusable=True, rid="io.flutter:id/surface")))
    for fmt in ("list", "html", "compressed"):
        text = describe(select_elements(parse_xml(xml)), fmt, root=parse_xml(xml)).text
        assert "surface" in text and text != EMPTY_SCREEN


# ------------------------------------------------------------------ 12: one escaping rule
_TEXT = st.text(alphabet=st.sampled_from(list('ab\\n"<>&\' \n') + ["\u00e9", "\u4e2d"]), max_size=MAX_TEXT)


@settings(max_examples=300, deadline=None)
@given(_TEXT)
def test_escaping_round_trips_in_every_format(s: str) -> None:
    for markup in (False, True):
        esc = escape_text(s, markup=markup)
        assert "\n" not in esc
        assert unescape_text(esc, markup=markup) == s


@pytest.mark.parametrize("fmt", ["list", "html", "compressed"])
def test_backslash_n_and_newline_differ_in_every_format(fmt: str) -> None:
    def text_of(s: str) -> str:
        el = UIElement(text=s, class_name="android.widget.TextView", bbox_pixels=Bounds(0, 0, 10, 10))
        root = UIElement(class_name="hierarchy", children=[el])
        el.parent, el.node_id = root, 1
        return describe([el], fmt, root=root).text

    assert text_of("a\\nb") != text_of("a\nb")


# ------------------------------------------------------------------ 13: linear compressed output
def test_compressed_output_is_linear_in_depth() -> None:
    n = 3000
    xml = ("<hierarchy>" + "".join(
        f'<node class="android.widget.FrameLayout" clickable="true" text="t{i}" bounds="[0,0][1080,2400]">'
        for i in range(n)) + "</node>" * n + "</hierarchy>")
    root = parse_xml(xml)
    els = select_elements(root)
    assert len(els) == n
    t0 = time.perf_counter()
    text = describe(els, "compressed", root=root).text
    assert time.perf_counter() - t0 < 5
    assert len(text) < 200 * n  # was ~n*n/2 bytes of indentation (4.5 MB here)


# ------------------------------------------------------------------ 14: bounded input
def test_huge_input_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UIParseError, match="more than"):
        parse_xml(b" " * (MAX_XML_BYTES + 1))
    r = CliRunner().invoke(app, ["ui", "/dev/zero"])
    assert r.exit_code == 2 and "larger than" in r.output and "Traceback" not in r.output
