"""Speed of turning a uiautomator dump into prompt text: parse + select + describe.

Builds a realistic ~200-node dump (an inbox-style screen: status bar, toolbar with search, a
RecyclerView of message rows - avatar, sender, subject, time, star checkbox - a floating action
button and a bottom navigation bar; attribute set exactly as `uiautomator dump` writes it), then
reports the median time per dump of each stage and of the whole pipeline, beside plain
``xml.etree.ElementTree.fromstring`` of the same bytes measured in the same run.

Goal: parse + select + describe <= 2 ms per ~200-node dump.

Run: python benchmarks/ui_parse.py [--reps N] [--rows N]
"""

from __future__ import annotations

import argparse
import statistics
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from xml.sax.saxutils import quoteattr

from droidverify.ui import describe_compressed, describe_html, describe_list, parse_xml, select_elements

PKG = "com.example.mail"
_FLAGS = ("checkable", "checked", "clickable", "enabled", "focusable", "focused", "scrollable",
          "long-clickable", "password", "selected")


def _node(index: int, cls: str, bounds: tuple[int, int, int, int], *, text: str = "", rid: str = "",
          desc: str = "", children: list[str] | None = None, **flags: bool) -> str:
    flags.setdefault("enabled", True)
    fl = " ".join(f'{k}="{str(flags.get(k.replace("-", "_"), False)).lower()}"' for k in _FLAGS)
    rid_full = f"{PKG}:id/{rid}" if rid else ""
    l, t, r, b = bounds
    head = (f"<node index=\"{index}\" text={quoteattr(text)} resource-id=\"{rid_full}\" class=\"{cls}\" "
            f"package=\"{PKG}\" content-desc={quoteattr(desc)} {fl} bounds=\"[{l},{t}][{r},{b}]\"")
    if not children:
        return head + " />"
    return head + ">" + "".join(children) + "</node>"


def build_dump(rows: int = 20) -> str:
    """An inbox screen with ``rows`` message rows (8 nodes each) plus ~40 nodes of chrome."""
    W, H = 1080, 2400
    row_h = 180
    row_nodes = []
    for i in range(rows):
        top = 300 + i * row_h
        row_nodes.append(_node(i, "android.widget.LinearLayout", (0, top, W, top + row_h),
                               rid="conversation_row", clickable=True, long_clickable=True, focusable=True,
                               children=[
            _node(0, "android.widget.ImageView", (30, top + 30, 150, top + 150), rid="avatar",
                  desc=f"Sender {i}"),
            _node(1, "android.widget.LinearLayout", (180, top + 20, 900, top + 160), children=[
                _node(0, "android.widget.TextView", (180, top + 20, 700, top + 70), rid="sender",
                      text=f"Sender number {i}"),
                _node(1, "android.widget.TextView", (180, top + 70, 900, top + 115), rid="subject",
                      text=f"Meeting notes for week {i} & follow-ups \"draft\""),
                _node(2, "android.widget.TextView", (180, top + 115, 900, top + 160), rid="snippet",
                      text="Hi team, attached are the notes from today's meeting. Please review before"),
            ]),
            _node(2, "android.widget.TextView", (920, top + 20, 1050, top + 70), rid="date",
                  text=f"{10 + i % 12}:{i % 60:02d}"),
            _node(3, "android.widget.CheckBox", (940, top + 90, 1040, top + 160), rid="star",
                  desc="Star", checkable=True, checked=(i % 3 == 0), clickable=True, focusable=True),
        ]))
    recycler = _node(0, "androidx.recyclerview.widget.RecyclerView", (0, 300, W, 2150),
                     rid="conversation_list", scrollable=True, focusable=True, children=row_nodes)
    toolbar = _node(0, "android.widget.LinearLayout", (0, 90, W, 290), rid="toolbar", children=[
        _node(0, "android.widget.ImageButton", (20, 130, 140, 250), desc="Open navigation drawer",
              clickable=True, focusable=True),
        _node(1, "android.widget.FrameLayout", (160, 120, 900, 260), rid="search_container", children=[
            _node(0, "android.widget.EditText", (160, 120, 900, 260), rid="search_box",
                  clickable=True, focusable=True, long_clickable=True),
        ]),
        _node(2, "android.widget.ImageView", (920, 130, 1040, 250), rid="account", desc="Account",
              clickable=True, focusable=True),
    ])
    tabs = []
    for j, name in enumerate(("Mail", "Chat", "Spaces", "Meet")):
        left = j * 270
        tabs.append(_node(j, "android.widget.FrameLayout", (left, 2250, left + 270, 2400), rid="nav_item",
                          clickable=True, focusable=True, selected=(j == 0), children=[
            _node(0, "android.widget.ImageView", (left + 100, 2260, left + 170, 2330), rid="icon"),
            _node(1, "android.widget.TextView", (left + 60, 2335, left + 210, 2390), rid="label",
                  text=name),
        ]))
    content = _node(0, "android.widget.FrameLayout", (0, 90, W, 2400), rid="content", children=[
        toolbar,
        _node(1, "android.widget.TextView", (30, 290, 400, 300), rid="folder", text="Primary"),
        recycler,
        _node(3, "android.widget.Button", (700, 2000, 1050, 2150), rid="compose", text="Compose",
              clickable=True, focusable=True),
        _node(4, "android.widget.LinearLayout", (0, 2250, W, 2400), rid="bottom_nav", children=tabs),
    ])
    wrappers = content
    for k in range(6):  # the usual stack of decor/content wrappers
        wrappers = _node(0, "android.widget.FrameLayout" if k % 2 else "android.widget.LinearLayout",
                         (0, 0, W, H), children=[wrappers])
    status = _node(1, "android.view.View", (0, 0, W, 90), rid="statusBarBackground")
    root = _node(0, "android.widget.FrameLayout", (0, 0, W, H), children=[wrappers, status])
    return ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
            f'<hierarchy rotation="0">{root}</hierarchy>')


def _median_ms(fn: Callable[[], object], reps: int) -> float:
    for _ in range(min(50, reps)):
        fn()  # warm caches the way a long-running simulator would
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--rows", type=int, default=21)
    args = ap.parse_args()

    xml = build_dump(args.rows)
    data = xml.encode()
    root = parse_xml(data)
    n_nodes = sum(1 for _ in root.iter()) - 1
    elements = select_elements(root)
    print(f"dump: {n_nodes} nodes, {len(data)} bytes, {len(elements)} selected elements; "
          f"median of {args.reps} repetitions")

    def pipeline_all() -> None:
        r = parse_xml(data)
        els = select_elements(r)
        describe_list(els)
        describe_html(els)
        describe_compressed(r, els)

    def pipeline(fmt: str) -> Callable[[], None]:
        def run() -> None:
            r = parse_xml(data)
            els = select_elements(r)
            if fmt == "list":
                describe_list(els)
            elif fmt == "html":
                describe_html(els)
            else:
                describe_compressed(r, els)
        return run

    rows = [
        ("baseline: ElementTree.fromstring", lambda: ET.fromstring(data)),
        ("parse_xml", lambda: parse_xml(data)),
        ("select_elements", lambda: select_elements(root)),
        ("describe_list", lambda: describe_list(elements)),
        ("describe_html", lambda: describe_html(elements)),
        ("describe_compressed", lambda: describe_compressed(root, elements)),
        ("parse+select+list", pipeline("list")),
        ("parse+select+html", pipeline("html")),
        ("parse+select+compressed", pipeline("compressed")),
        ("parse+select+all three", pipeline_all),
    ]
    results = [(name, _median_ms(fn, args.reps)) for name, fn in rows]
    base = results[0][1]
    print(f"{'stage':<34} {'ms/dump':>9} {'x ET':>7}")
    for name, ms in results:
        print(f"{name:<34} {ms:>9.3f} {ms / base:>7.2f}")
    total = results[-1][1]
    print(f"goal: parse+select+describe <= 2 ms per dump -> all three formats: {total:.3f} ms "
          f"({'met' if total <= 2.0 else 'NOT met'})")


if __name__ == "__main__":
    main()
