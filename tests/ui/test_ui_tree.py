"""parse_xml: real dumps, attribute mapping, windows, defaults, and typed errors for bad input."""

from __future__ import annotations

import pytest
from ui_helpers import hierarchy, node

from droidverify.errors import UIParseError
from droidverify.ui import Bounds, UIElement, parse_xml, screen_size_of


def by_rid(root: UIElement, suffix: str) -> UIElement:
    hits = [n for n in root.iter() if n.resource_id and n.resource_id.endswith(suffix)]
    assert len(hits) == 1, suffix
    return hits[0]


def test_gmail_dump_parses_with_exact_attributes(gmail: bytes) -> None:
    root = parse_xml(gmail)
    assert root.class_name == "hierarchy" and root.node_id == 0 and root.extra == {"rotation": "0"}
    nodes = list(root.iter())[1:]
    assert len(nodes) == 20
    assert [n.node_id for n in nodes] == list(range(1, 21))  # pre-order numbering
    got_it = by_rid(root, "welcome_tour_got_it")
    assert got_it.text == "GOT IT"
    assert got_it.class_name == "android.widget.TextView"
    assert got_it.package_name == "com.google.android.gm"
    assert got_it.bbox_pixels == Bounds(0, 1647, 1080, 1794)
    assert got_it.is_clickable and got_it.is_focusable and got_it.is_enabled
    assert not (got_it.is_long_clickable or got_it.is_checkable or got_it.is_scrollable or got_it.is_editable)
    assert got_it.resource_name == "welcome_tour_got_it"
    assert got_it.parent is not None and got_it.parent.class_name == "android.widget.FrameLayout"
    assert got_it.depth == got_it.parent.depth + 1
    assert got_it.content_description is None  # empty attribute -> None
    pager = by_rid(root, "welcome_tour_pager")
    assert pager.class_name == "androidx.viewpager.widget.ViewPager" and pager.is_focusable
    assert by_rid(root, "navigationBarBackground").bbox_pixels == Bounds(0, 0, 0, 0)
    assert all(n.window == 0 for n in nodes)
    assert screen_size_of(root) == (1080, 1794)


def test_launcher_dump_hotseat_and_workspace(launcher: bytes) -> None:
    root = parse_xml(launcher)
    workspace = by_rid(root, "id/workspace")
    assert workspace.is_scrollable and workspace.bbox_pixels == Bounds(0, 38, 480, 800)
    hotseat = by_rid(root, "id/hotseat")
    labels = [(c.label, c.bbox_pixels.to_uiautomator()) for c in hotseat.children]
    assert labels == [
        ("Phone", "[0,706][96,800]"), ("People", "[96,706][192,800]"), ("Apps", "[192,706][288,800]"),
        ("Messaging", "[288,706][384,800]"), ("Browser", "[384,706][480,800]"),
    ]
    apps = hotseat.children[2]
    assert apps.text is None and apps.content_description == "Apps" and not apps.is_long_clickable
    assert [c.index_in_parent for c in root.children[0].children] == [0, 3, 4]
    assert screen_size_of(root) == (480, 800)


def test_str_and_bytes_inputs_agree(gmail: bytes) -> None:
    a, b = parse_xml(gmail), parse_xml(gmail.decode("utf-8"))
    assert [(n.node_id, n.text, n.bbox_pixels) for n in a.iter()] == \
        [(n.node_id, n.text, n.bbox_pixels) for n in b.iter()]


def test_dump_to_tty_trailer_is_ignored(launcher: bytes) -> None:
    root = parse_xml(launcher + b"UI hierchary dumped to: /dev/tty\n")
    assert len(list(root.iter())) == 13


def test_several_windows() -> None:
    xml = hierarchy(
        node("android.widget.FrameLayout", "[0,0][1080,2400]",
             node("android.widget.Button", "[0,100][200,200]", text="Behind", clickable="true")),
        node("android.widget.FrameLayout", "[100,800][980,1400]",
             node("android.widget.Button", "[120,1200][500,1300]", text="OK", clickable="true")),
        node("android.widget.FrameLayout", "[0,2300][1080,2520]"),
    )
    root = parse_xml(xml)
    assert [w.window for w in root.children] == [0, 1, 2]
    ok = root.children[1].children[0]
    assert ok.text == "OK" and ok.window == 1 and ok.node_id == 4 and ok.depth == 2
    assert root.children[0].children[0].window == 0
    assert screen_size_of(root) == (1080, 2520)  # extent of all windows


def test_unknown_attributes_kept_in_extra_in_document_order() -> None:
    xml = hierarchy(node("android.view.View", NAF="true", drawing_order="3", text="x"))
    n = parse_xml(xml).children[0]
    assert n.extra == {"NAF": "true", "drawing-order": "3"}
    assert list(n.extra) == ["NAF", "drawing-order"]
    assert n.text == "x"


def test_missing_attributes_take_defaults() -> None:
    root = parse_xml("<hierarchy><node class='a.B'/><node/></hierarchy>")
    first, second = root.children
    assert first.class_name == "a.B" and first.bbox_pixels is None and first.text is None
    assert first.is_enabled and first.is_visible and not first.is_clickable and not first.is_checked
    assert first.index_in_parent == 0 and second.index_in_parent == 1  # position when no index
    assert second.class_name is None and second.extra == {}


def test_newer_attributes_hint_visibility_password() -> None:
    xml = hierarchy(
        node("android.widget.EditText", hint="Email", password="true", visible_to_user="false"),
        node("android.view.View", visible="false"),
        node("android.view.View", tooltip_text="Tip"),
    )
    a, b, c = parse_xml(xml).children
    assert a.hint_text == "Email" and a.is_password and not a.is_visible and a.is_editable
    assert not b.is_visible
    assert c.tooltip == "Tip"


@pytest.mark.parametrize(("cls", "extra", "editable"), [
    ("android.widget.EditText", {}, True),
    ("android.widget.AutoCompleteTextView", {}, True),
    ("android.widget.MultiAutoCompleteTextView", {}, True),
    ("com.google.android.material.textfield.TextInputEditText", {}, True),
    ("android.widget.TextView", {}, False),
    ("android.view.View", {"editable": "true"}, True),  # explicit attribute wins
    ("android.widget.EditText", {"editable": "false"}, False),
])
def test_is_editable(cls: str, extra: dict[str, str], editable: bool) -> None:
    assert parse_xml(hierarchy(node(cls, **extra))).children[0].is_editable is editable


def test_non_ascii_text_is_kept() -> None:
    texts = ["Grüße aus Köln", "设置 — 无线网络", "😀 emoji 👍🏽", "עברית", "a&b<c>\"d\""]
    xml = hierarchy(*(node(text=t.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;"))
                      for t in texts))
    for data in (xml, xml.encode("utf-8")):
        assert [n.text for n in parse_xml(data).children] == texts
    utf16 = xml.replace("UTF-8", "UTF-16").encode("utf-16")
    assert [n.text for n in parse_xml(utf16).children] == texts


def test_appium_style_tags_are_nodes() -> None:
    root = parse_xml('<hierarchy><android.widget.Button bounds="[0,0][10,10]" text="Go"/></hierarchy>')
    assert root.children[0].class_name == "android.widget.Button" and root.children[0].text == "Go"


def test_negative_coordinates_are_allowed() -> None:
    n = parse_xml(hierarchy(node(bounds="[-50,-10][100,100]"))).children[0]
    assert n.bbox_pixels == Bounds(-50, -10, 100, 100)


# ------------------------------------------------------------------------------------------ errors
@pytest.mark.parametrize(("xml", "message", "where_parts"), [
    ("<hierarchy><node></hierarchy>", "malformed XML", ["line 1", "column"]),
    ("<hierarchy>\n<node text='a></hierarchy>", "malformed XML", ["line 2"]),
    ("", "malformed XML", ["line 1"]),
    ("<node class='x'/>", "expected <hierarchy>", ["line 1"]),
    ("<hierarchy rotation='0'/>", "no nodes", ["hierarchy"]),
    ("<hierarchy></hierarchy>junk", "malformed XML", ["line 1"]),
])
def test_malformed_documents(xml: str, message: str, where_parts: list[str]) -> None:
    with pytest.raises(UIParseError, match=message) as ei:
        parse_xml(xml)
    assert ei.value.where is not None
    for part in where_parts:
        assert part in ei.value.where


@pytest.mark.parametrize(("attrs", "attribute"), [
    ({"bounds": "[0,0][10]"}, "bounds"),
    ({"bounds": "[a,b][c,d]"}, "bounds"),
    ({"bounds": "[10,0][5,10]"}, "bounds"),  # right < left
    ({"bounds": "[0,10][10,5]"}, "bounds"),  # bottom < top
    ({"bounds": ""}, "bounds"),
    ({"clickable": "yes"}, "clickable"),
    ({"enabled": ""}, "enabled"),
    ({"visible_to_user": "maybe"}, "visible-to-user"),
    ({"editable": "1"}, "editable"),
    ({"index": "two"}, "index"),
])
def test_bad_attribute_values_name_node_and_attribute(attrs: dict[str, str], attribute: str) -> None:
    bounds = attrs.pop("bounds", "[0,0][10,10]")
    xml = hierarchy(node("android.widget.FrameLayout", "[0,0][100,100]",
                         node("android.widget.Button", bounds, **attrs)))
    with pytest.raises(UIParseError) as ei:
        parse_xml(xml)
    where = ei.value.where or ""
    assert "node #2" in where and "class=android.widget.Button" in where
    assert where.endswith(attribute)
    assert "line 1" in where


def test_non_text_input_is_a_typed_error() -> None:
    with pytest.raises(UIParseError, match="str or bytes"):
        parse_xml(None)  # type: ignore[arg-type]


def test_unknown_declared_encoding_is_a_typed_error() -> None:
    data = b"<?xml version='1.0' encoding='TTF-8'?><hierarchy><node/></hierarchy>"
    with pytest.raises(UIParseError, match="encoding") as ei:
        parse_xml(data)
    assert ei.value.where == "XML declaration"
    assert parse_xml(data.decode()).children  # a str is already decoded: the declaration is moot


def test_invalid_utf8_is_a_typed_error(gmail: bytes) -> None:
    with pytest.raises(UIParseError, match="malformed XML"):
        parse_xml(gmail.replace(b"GOT IT", b"GOT \xff\xfe"))
