"""The view DSL: declarative nodes, a small box-layout engine and uiautomator-format emission.

Apps build a fresh ``View`` tree on every render (cheap: plain slotted objects). The layout engine
assigns pixel bounds on the 1080x2400 screen (vertical/horizontal stacking, fixed sizes, ``grow``
weights, padding); ``emit`` walks the laid-out tree once and produces both the device-style XML dump
and the matching ``UIElement`` tree, so observations never need to re-parse their own XML.

Handlers (``on_click``, ``on_long_click``, ``on_text``, ``on_enter``, ``on_scroll``) are closures
created at render time; they are never stored in phone state, which therefore stays plain data
(snapshot/clone copy it safely).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from droidverify.ui.element import Bounds, UIElement

SCREEN_W, SCREEN_H = 1080, 2400
STATUS_BAR_H = 110
NAV_BAR_H = 126
APP_TOP, APP_BOTTOM = STATUS_BAR_H, SCREEN_H - NAV_BAR_H

# Short class aliases -> Android class names (anything containing a dot is used as given).
CLASSES: dict[str, str] = {
    "frame": "android.widget.FrameLayout",
    "linear": "android.widget.LinearLayout",
    "relative": "android.widget.RelativeLayout",
    "view": "android.view.View",
    "viewgroup": "android.view.ViewGroup",
    "text": "android.widget.TextView",
    "button": "android.widget.Button",
    "imagebutton": "android.widget.ImageButton",
    "image": "android.widget.ImageView",
    "edit": "android.widget.EditText",
    "checkbox": "android.widget.CheckBox",
    "switch": "android.widget.Switch",
    "radio": "android.widget.RadioButton",
    "seekbar": "android.widget.SeekBar",
    "recycler": "androidx.recyclerview.widget.RecyclerView",
    "scroll": "android.widget.ScrollView",
    "toolbar": "android.widget.Toolbar",
    "cardview": "androidx.cardview.widget.CardView",
    "fab": "com.google.android.material.floatingactionbutton.FloatingActionButton",
    "tabs": "com.google.android.material.tabs.TabLayout",
    "numberpicker": "android.widget.NumberPicker",
}

Handler = Callable[[], None]


@dataclass(eq=False, slots=True)
class View:
    """One node. ``rid`` is the short resource name (emitted as ``<package>:id/<rid>``)."""

    cls: str = "android.widget.FrameLayout"
    text: str = ""
    desc: str = ""
    hint: str = ""
    rid: str = ""
    children: list[View] = field(default_factory=list)
    # flags
    clickable: bool = False
    long_clickable: bool = False
    checkable: bool = False
    checked: bool = False
    enabled: bool = True
    focusable: bool = False
    focused: bool = False
    scrollable: bool = False
    password: bool = False
    selected: bool = False
    # Skins (``env.sim.skin``) relabel and restyle app chrome only. None: decided from the node's
    # class and window (buttons, icon buttons, FABs, menu items, dialog titles); True/False: a
    # widget helper says so (e.g. a clickable TextView that is a button, or a Button showing data).
    chrome: bool | None = None
    # layout
    horizontal: bool = False
    w: int | None = None  # fixed width (px); None = fill (vertical parent) / share (horizontal parent)
    h: int | None = None  # fixed height (px); None = measured from content
    grow: float = 0.0  # share of the parent's leftover space along its axis
    pad: tuple[int, int, int, int] = (0, 0, 0, 0)  # left, top, right, bottom
    gap: int = 0  # space between children
    at: tuple[int, int, int, int] | None = None  # absolute bounds (overlays such as FABs)
    # behaviour
    on_click: Handler | None = None
    on_long_click: Handler | None = None
    on_text: Callable[[str], None] | None = None
    on_enter: Handler | None = None
    on_scroll: Callable[[str], bool] | None = None  # direction -> moved?
    # appearance (renderer only; never in the XML)
    style: dict[str, Any] = field(default_factory=dict)
    package: str | None = None  # overrides the window package (rare)
    # lazy list (see ``scroll_list``): all rows, first visible row, offset setter
    rows: list[View] | None = None
    offset: int = 0
    on_offset: Callable[[int], None] | None = None
    list_scroll: bool = False  # layout made this list scrollable (so a second layout starts afresh)
    # filled by layout
    bounds: tuple[int, int, int, int] = (0, 0, 0, 0)

    @property
    def editable(self) -> bool:
        return self.cls == "android.widget.EditText"


def V(cls: str = "frame", *children: View | None, **kw: Any) -> View:
    """Build a node: ``V("text", text="Wi-Fi")``, ``V("linear", child1, child2, horizontal=True)``."""
    full = cls if "." in cls else CLASSES[cls]
    kids = [c for c in children if c is not None]
    if "pad" in kw and isinstance(kw["pad"], int):
        p = kw["pad"]
        kw["pad"] = (p, p, p, p)
    return View(cls=full, children=kids, **kw)


# --- measuring -------------------------------------------------------------------------------
_CHAR_W = 0.52  # average glyph width as a fraction of font size


def text_lines(text: str, size: int, width: int) -> int:
    if not text:
        return 1
    per_line = max(1, int(width / (size * _CHAR_W)))
    return sum(max(1, math.ceil(len(part) / per_line)) for part in text.split("\n"))


_LEAF_H = {
    "android.widget.Button": 126,
    "android.widget.EditText": 150,
    "android.widget.ImageButton": 126,
    "android.widget.ImageView": 96,
    "android.widget.Switch": 96,
    "android.widget.CheckBox": 96,
    "android.widget.RadioButton": 110,
    "android.widget.SeekBar": 96,
}


def measure_h(v: View, width: int) -> int:
    if v.h is not None:
        return v.h
    pl, pt, pr, pb = v.pad
    inner = max(1, width - pl - pr)
    if v.rows is not None:
        return pt + pb + sum(measure_h(r, inner) for r in v.rows)
    if not v.children:
        if v.cls == "android.widget.TextView" or (v.text and v.cls not in _LEAF_H):
            size = v.style.get("size", 42)
            return pt + pb + int(text_lines(v.text, size, inner) * size * 1.35) + 8
        return _LEAF_H.get(v.cls, 96) + pt + pb
    flow = [c for c in v.children if c.at is None]
    if v.horizontal:
        widths = _split(flow, inner, v.gap, horizontal=True)
        return pt + pb + max((measure_h(c, cw) for c, cw in zip(flow, widths)), default=0)
    return pt + pb + sum(measure_h(c, inner) for c in flow) + v.gap * max(0, len(flow) - 1)


def _split(kids: list[View], total: int, gap: int, *, horizontal: bool) -> list[int]:
    """Widths of a horizontal row's children: fixed ``w`` first, the rest shared by weight."""
    free = total - gap * max(0, len(kids) - 1)
    fixed = sum(c.w for c in kids if c.w is not None)
    flex = [c for c in kids if c.w is None]
    weight = sum(c.grow or 1.0 for c in flex)
    left = max(0, free - fixed)
    out = []
    for c in kids:
        out.append(c.w if c.w is not None else int(left * (c.grow or 1.0) / weight) if weight else 0)
    return out


# --- layout ----------------------------------------------------------------------------------
def layout(v: View, left: int, top: int, right: int, bottom: int) -> None:
    """Assign ``bounds`` to ``v`` and its subtree inside the given box."""
    v.bounds = (left, top, right, bottom)
    if v.rows is not None:
        _layout_list(v, left, top, right, bottom)
        return
    if not v.children:
        return
    pl, pt, pr, pb = v.pad
    x0, y0, x1, y1 = left + pl, top + pt, right - pr, bottom - pb
    flow = []
    for c in v.children:
        if c.at is not None:
            layout(c, *c.at)
        else:
            flow.append(c)
    if not flow:
        return
    if v.horizontal:
        widths = _split(flow, x1 - x0, v.gap, horizontal=True)
        x = x0
        for c, cw in zip(flow, widths):
            if c.h is not None and c.h < y1 - y0:  # centre fixed-height children vertically
                cy = y0 + (y1 - y0 - c.h) // 2
                layout(c, x, cy, x + cw, cy + c.h)
            else:
                layout(c, x, y0, x + cw, y1)
            x += cw + v.gap
        return
    width = x1 - x0
    heights = [0 if c.grow else measure_h(c, width) for c in flow]
    growers = [c for c in flow if c.grow]
    if growers:
        left_h = max(0, (y1 - y0) - sum(heights) - v.gap * (len(flow) - 1))
        weight = sum(c.grow for c in growers)
        for i, c in enumerate(flow):
            if c.grow:
                heights[i] = int(left_h * c.grow / weight)
    y = y0
    for c, ch in zip(flow, heights):
        cx0, cx1 = x0, x1
        if c.w is not None and c.w < width:  # centre fixed-width children horizontally
            cx0 = x0 + (width - c.w) // 2
            cx1 = cx0 + c.w
        layout(c, cx0, y, cx1, y + ch)
        y += ch + v.gap


# --- scrolling lists -------------------------------------------------------------------------
def scroll_list(rows: Iterable[View], offset: int, set_offset: Callable[[int], None], *,
                rid: str = "recycler_view", cls: str = "recycler", grow: float = 1.0, **kw: Any) -> View:
    """A scrollable list showing rows from ``offset`` on; rows that do not fit are ABSENT.

    The visible window is decided at layout time from the height the list actually gets.
    ``set_offset`` stores a new first-visible-row index (in the screen's state). Scrolling moves
    by a page (fully visible rows minus one) and clamps so the last row stays reachable.
    """
    node = V(cls, rid=rid, grow=grow, **kw)
    node.rows = list(rows)
    node.offset = offset
    node.on_offset = set_offset
    return node


def _layout_list(v: View, left: int, top: int, right: int, bottom: int) -> None:
    if v.list_scroll:  # laid out before (a skin re-lays a window out): forget the old page
        v.scrollable, v.on_scroll, v.list_scroll = False, None, False
    rows = v.rows or []
    pl, pt, pr, pb = v.pad
    width, height = right - left - pl - pr, bottom - top - pt - pb
    n = len(rows)
    hs = [measure_h(r, width) for r in rows]
    acc, max_off = 0, 0
    for i in range(n - 1, -1, -1):
        acc += hs[i]
        if acc > height:
            break
        max_off = i
    offset = max(0, min(v.offset, max_off))
    visible, used, full = [], 0, 0
    for i in range(offset, n):
        if used >= height:
            break
        r = rows[i]
        layout(r, left + pl, top + pt + used, right - pr, top + pt + used + hs[i])
        visible.append(r)
        used += hs[i]
        if used <= height:
            full += 1
    v.children = visible
    if max_off > 0:
        v.scrollable = True
        v.list_scroll = True
        setter = v.on_offset

        def on_scroll(direction: str) -> bool:
            if direction not in ("down", "up") or setter is None:
                return False
            step = max(1, full - 1)
            new = offset + step if direction == "down" else offset - step
            new = max(0, min(new, max_off))
            if new == offset:
                return False
            setter(new)
            return True

        v.on_scroll = on_scroll


# --- emission --------------------------------------------------------------------------------
_ESC = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;",
                      "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})
_NEEDS_ESC = frozenset("&<>\"'\n\r\t")


def esc(s: str) -> str:
    if not s:
        return ""
    for ch in s:
        if ch in _NEEDS_ESC:
            return s.translate(_ESC)
    return s


_HIERARCHY = View(cls="hierarchy")


@dataclass
class Emitted:
    """Result of emitting a set of windows: the XML dump, the UIElement root and node lookup."""

    xml: str
    root: UIElement
    nodes: list[View]  # nodes[node_id] is the View behind UIElement.node_id
    elements: list[UIElement]  # every UIElement by node_id


def emit(windows: list[tuple[View, str]]) -> Emitted:
    """Serialise windows (top-level views with their package) as one uiautomator hierarchy.

    Bounds are clipped to the parent's bounds (a device reports visible bounds). Numbering matches
    ``droidverify.ui.tree.parse_xml``: the root is a synthetic ``hierarchy`` node (node_id 0,
    depth 0) and real nodes get node_id 1, 2, ... in pre-order; ``nodes[node_id]`` is the View.
    """
    parts: list[str] = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"]
    root = UIElement(class_name="hierarchy", node_id=0, depth=0, extra={"rotation": "0"},
                     bbox_pixels=Bounds(0, 0, SCREEN_W, SCREEN_H))
    nodes: list[View] = [_HIERARCHY]
    elements: list[UIElement] = [root]
    append = parts.append

    tf = ("false", "true")
    edit_cls = "android.widget.EditText"

    def walk(v: View, idx: int, pkg: str, clip: tuple[int, int, int, int], parent: UIElement,
             depth: int, window: int) -> None:
        l, t, r, b = v.bounds
        cl, ct, cr, cb = clip
        # plain ifs beat max()/min() calls here (hot loop: ~40k nodes/s)
        if l < cl:  # noqa: PLR1730
            l = cl
        if t < ct:  # noqa: PLR1730
            t = ct
        if r > cr:  # noqa: PLR1730
            r = cr
        if b > cb:  # noqa: PLR1730
            b = cb
        if r < l:  # noqa: PLR1730
            r = l
        if b < t:  # noqa: PLR1730
            b = t
        p = v.package or pkg
        vr = v.rid
        rid = (f"{p}:id/{vr}" if ":" not in vr else vr) if vr else ""
        editable = v.cls == edit_cls
        # EditText with no text shows its hint as text in uiautomator dumps
        text = v.text if (v.text or not editable) else v.hint
        focusable = v.focusable or editable
        node_id = len(nodes)
        nodes.append(v)
        # positional order of UIElement's fields (ui.tree checks it at import time too)
        el = UIElement(text or None, v.desc or None, v.cls, Bounds(l, t, r, b), v.hint or None, v.checked,
                       v.checkable, v.clickable, editable, v.enabled, v.focused, focusable, v.long_clickable,
                       v.scrollable, v.selected, True, v.password, p, rid or None, None, idx, window, depth,
                       node_id, parent)
        parent.children.append(el)
        elements.append(el)
        hint = f' hint="{esc(v.hint)}"' if v.hint else ""
        append(
            f'<node index="{idx}" text="{esc(text)}" resource-id="{rid}" class="{v.cls}" '
            f'package="{p}" content-desc="{esc(v.desc)}" checkable="{tf[v.checkable]}" '
            f'checked="{tf[v.checked]}" clickable="{tf[v.clickable]}" enabled="{tf[v.enabled]}" '
            f'focusable="{tf[focusable]}" focused="{tf[v.focused]}" '
            f'scrollable="{tf[v.scrollable]}" long-clickable="{tf[v.long_clickable]}" '
            f'password="{tf[v.password]}" selected="{tf[v.selected]}" '
            f'bounds="[{l},{t}][{r},{b}]"{hint}'
        )
        kids = v.children
        if kids:
            append(">")
            sub = (l, t, r, b)
            d1 = depth + 1
            for i, c in enumerate(kids):
                walk(c, i, pkg, sub, el, d1, window)
            append("</node>")
        else:
            append(" />")

    full = (0, 0, SCREEN_W, SCREEN_H)
    for w, (v, pkg) in enumerate(windows):
        walk(v, 0, pkg, full, root, 1, w)
    append("</hierarchy>")
    return Emitted("".join(parts), root, nodes, elements)


def hit_test(emitted: Emitted, x: int, y: int, *, want: str = "click") -> View | None:
    """The deepest node accepting ``want`` (click / long_click / edit / scroll) under (x, y).

    Windows later in the list are on top; within a window a later sibling covers an earlier one,
    so the search walks in reverse paint order and returns the first match.
    """
    def accepts(v: View) -> bool:
        if not v.enabled:
            return False
        if want == "click":
            return v.clickable or v.checkable and v.on_click is not None
        if want == "long_click":
            return v.long_clickable
        if want == "edit":
            return v.editable
        if want == "scroll":
            return v.scrollable
        return False

    def search(v: View, el: UIElement) -> tuple[bool, View | None]:
        b = el.bbox_pixels
        if b is None or not b.contains(x, y):
            return False, None
        for cv, cel in zip(reversed(v.children), reversed(el.children)):
            inside, hit = search(cv, cel)
            if hit is not None:
                return True, hit
            if inside and cv.style.get("opaque"):
                return True, None
        return True, (v if accepts(v) else None)

    for el in reversed(emitted.root.children):
        v = emitted.nodes[el.node_id]
        inside, hit = search(v, el)
        if hit is not None:
            return hit
        if inside and v.style.get("modal"):
            return None  # a modal window swallows touches
    return None
