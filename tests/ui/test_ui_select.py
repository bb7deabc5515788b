"""select_elements: which elements an agent sees, their order, clipping and borrowed labels."""

from __future__ import annotations

import pytest
from ui_helpers import hierarchy, node

from droidverify.errors import UIParseError
from droidverify.ui import Bounds, parse_xml, screen_size_of, select_elements

SCREEN = "[0,0][1080,2400]"


def frame(*children: str, bounds: str = SCREEN) -> str:
    return node("android.widget.FrameLayout", bounds, "".join(children))


def labels(xml: str, **kw: object) -> list[str]:
    return [e.label for e in select_elements(parse_xml(xml), **kw)]  # type: ignore[arg-type]


def test_gmail_selection(gmail: bytes) -> None:
    els = select_elements(parse_xml(gmail))
    assert [e.label for e in els] == [
        "New in Gmail", "All the features you love with a fresh new look", "GOT IT"]
    got_it = els[2]
    assert got_it.is_interactive and got_it.bbox_pixels == Bounds(0, 1647, 1080, 1794)
    assert [e.is_interactive for e in els] == [False, False, True]


def test_launcher_selection(launcher: bytes) -> None:
    els = select_elements(parse_xml(launcher))
    assert [e.label for e in els] == [
        "workspace", "Home screen 3", "Analog clock", "11:33", "Search",
        "Phone", "People", "Apps", "Messaging", "Browser"]
    assert els[0].is_scrollable and els[0].resource_name == "workspace"
    hotseat = {e.label: e.bbox_pixels.to_uiautomator() for e in els[5:]}
    assert hotseat == {"Phone": "[0,706][96,800]", "People": "[96,706][192,800]",
                       "Apps": "[192,706][288,800]", "Messaging": "[288,706][384,800]",
                       "Browser": "[384,706][480,800]"}
    assert all(e.is_clickable for e in els[5:])


def test_indices_are_stable_across_parses(launcher: bytes) -> None:
    a = [(e.node_id, e.label) for e in select_elements(parse_xml(launcher))]
    b = [(e.node_id, e.label) for e in select_elements(parse_xml(launcher.decode()))]
    assert a == b
    assert [nid for nid, _ in a] == sorted(nid for nid, _ in a)  # pre-order


def test_invisible_zero_area_offscreen_and_boundless_are_dropped() -> None:
    xml = hierarchy(frame(
        node("android.widget.Button", "[0,0][100,100]", text="shown", clickable="true"),
        node("android.widget.Button", "[0,0][100,100]", text="hidden", clickable="true",
             visible_to_user="false"),
        node("android.widget.Button", "[50,50][50,100]", text="zero width", clickable="true"),
        node("android.widget.Button", "[0,2500][100,2600]", text="below screen", clickable="true"),
        node("android.widget.Button", "[-300,0][-100,100]", text="left of screen", clickable="true"),
        "<node class='android.widget.Button' text='no bounds' clickable='true'/>",
        node("android.widget.Button", "[0,0][100,100]", text="disabled", clickable="true", enabled="false"),
        node("android.widget.ImageView", "[0,0][100,100]"),  # nothing to say, nothing to do
    ))
    els = select_elements(parse_xml(xml))
    assert [e.label for e in els] == ["shown", "disabled"]
    assert els[1].is_interactive is False  # disabled: listed to be read, not as a control


def test_clipping_to_screen_returns_a_copy_with_visible_bounds() -> None:
    xml = hierarchy(frame(node("android.widget.Button", "[1000,2300][1200,2500]", text="edge",
                               clickable="true")))
    root = parse_xml(xml)
    (el,) = select_elements(root)
    assert el.bbox_pixels == Bounds(1000, 2300, 1080, 2400)
    assert el.extra["bounds_full"] == "[1000,2300][1200,2500]"
    original = root.children[0].children[0]
    assert original.bbox_pixels == Bounds(1000, 2300, 1200, 2500) and "bounds_full" not in original.extra
    assert el.node_id == original.node_id and el is not original


def test_clipping_inside_scrollable() -> None:
    rows = "".join(
        node("android.widget.TextView", f"[0,{top}][1080,{top + 200}]", text=f"row {top}", clickable="true")
        for top in (400, 900, 1100, 1300)
    )
    xml = hierarchy(frame(
        node("androidx.recyclerview.widget.RecyclerView", "[0,500][1080,1200]", rows, scrollable="true"),
        node("android.widget.TextView", "[0,1300][1080,1500]", text="footer"),
    ))
    els = select_elements(parse_xml(xml))
    # row 400 is partly above the list (clipped to 500..600); row 1300 is entirely below the list's
    # viewport (though on screen) and so hidden; the footer outside the list is unaffected.
    assert [(e.label, e.bbox_pixels.to_uiautomator()) for e in els] == [
        ("", "[0,500][1080,1200]"),
        ("row 400", "[0,500][1080,600]"),
        ("row 900", "[0,900][1080,1100]"),
        ("row 1100", "[0,1100][1080,1200]"),
        ("footer", "[0,1300][1080,1500]"),
    ]
    assert els[0].is_scrollable


def test_nested_scrollables_clip_to_both() -> None:
    inner = node("android.widget.HorizontalScrollView", "[0,0][2000,800]",
                 node("android.widget.Button", "[900,700][1300,1000]", text="chip", clickable="true"),
                 scrollable="true")
    xml = hierarchy(frame(node("android.widget.ScrollView", "[0,100][1080,900]", inner, scrollable="true")))
    chip = next(e for e in select_elements(parse_xml(xml)) if e.label == "chip")
    assert chip.bbox_pixels == Bounds(900, 700, 1080, 800)


def test_clickable_container_borrows_child_text() -> None:
    row = node("android.widget.LinearLayout", "[0,0][1080,200]",
               node("android.widget.ImageView", "[0,0][100,100]")
               + node("android.widget.TextView", "[100,0][800,100]", text="Wi-Fi")
               + node("android.widget.TextView", "[100,100][800,200]", text="Connected to Home"),
               clickable="true")
    root = parse_xml(hierarchy(frame(row)))
    els = select_elements(root)
    assert len(els) == 1  # the children's text now lives on the row
    (r,) = els
    assert r.text == "Wi-Fi | Connected to Home" and r.is_clickable
    assert r.extra["label_from"] == "4,5"
    assert root.children[0].children[0].text is None  # the tree is not modified


def test_borrowing_stops_at_interactive_children_and_at_three_texts() -> None:
    kids = "".join(node("android.widget.TextView", f"[0,{i * 10}][100,{i * 10 + 10}]", text=f"t{i}")
                   for i in range(4))
    switch = node("android.widget.Switch", "[900,0][1000,100]", text="toggle", checkable="true",
                  clickable="true")
    row = node("android.widget.LinearLayout", "[0,0][1080,200]", switch + kids, clickable="true")
    els = select_elements(parse_xml(hierarchy(frame(row))))
    assert [e.label for e in els] == ["t0 | t1 | t2", "toggle", "t3"]


def test_scrollable_container_does_not_swallow_its_rows() -> None:
    rows = "".join(node(bounds=f"[0,{i * 100}][1080,{i * 100 + 100}]", text=f"line {i}") for i in range(4))
    xml = hierarchy(frame(node("android.widget.ScrollView", "[0,0][1080,1000]", rows, scrollable="true")))
    els = select_elements(parse_xml(xml))
    assert [e.label for e in els] == ["", "line 0", "line 1", "line 2", "line 3"]
    assert els[0].text is None


def test_text_repeated_by_interactive_ancestor_is_not_listed_twice() -> None:
    button = node("android.widget.Button", "[0,0][300,100]",
                  node("android.widget.TextView", "[0,0][300,100]", text="Save")
                  + node("android.widget.TextView", "[0,0][300,100]", text="Ctrl+S"),
                  text="Save", clickable="true")
    assert labels(hierarchy(frame(button))) == ["Save", "Ctrl+S"]


def test_interactive_only() -> None:
    xml = hierarchy(frame(node(text="Title"), node("android.widget.Button", text="Go", clickable="true")))
    assert labels(xml) == ["Title", "Go"]
    assert labels(xml, interactive_only=True) == ["Go"]


def test_several_windows_selected_in_order() -> None:
    xml = hierarchy(
        frame(node("android.widget.Button", "[0,100][200,200]", text="Behind", clickable="true")),
        frame(node("android.widget.Button", "[120,1200][500,1300]", text="OK", clickable="true"),
              bounds="[100,800][980,1400]"),
    )
    els = select_elements(parse_xml(xml))
    assert [(e.label, e.window) for e in els] == [("Behind", 0), ("OK", 1)]


def test_explicit_screen_size_clips() -> None:
    xml = hierarchy(frame(node("android.widget.Button", "[0,1500][100,1600]", text="low", clickable="true")))
    assert labels(xml) == ["low"]
    assert labels(xml, screen_size=(1080, 1400)) == []


@pytest.mark.parametrize("size", [(0, 100), (100, -1), ("a", "b"), (1,)])
def test_bad_screen_size_is_a_typed_error(size: object) -> None:
    with pytest.raises(UIParseError, match="screen_size"):
        select_elements(parse_xml(hierarchy(frame())), screen_size=size)  # type: ignore[arg-type]


def test_screen_size_of_without_bounds_is_a_typed_error() -> None:
    with pytest.raises(UIParseError, match="screen size"):
        screen_size_of(parse_xml("<hierarchy><node class='x'/></hierarchy>"))
