"""Compact, deterministic text descriptions of a screen for prompts.

Three formats, all numbering elements by their position in the selected-element list (the index
actions refer to):

``list`` (T3A style), one line per element::

    3: TextView "GOT IT" res=welcome_tour_got_it (clickable) center=(540,1720)

  class short name, the label in quotes (text, else content description), ``desc=`` when both
  exist and differ, ``hint=``, ``res=`` (resource name, always when present), states in parentheses
  (clickable, long-clickable, checked/unchecked for checkable, selected, focused, editable,
  scrollable, password, disabled) and the centre of the visible rectangle.

``html`` (V-Droid/AutoDroid style), one tag per element::

    <button id=3 onclick>GOT IT</button>  <input id=5 hint="Name">Bob</input>
    <checkbox id=7 checked=true>Wi-Fi</checkbox>  <scroller id=2 scrollable res=workspace></scroller>

  tag by capability first (editable -> input, switch/toggle class -> switch, radio class -> radio,
  checkable -> checkbox, clickable -> button, scrollable -> scroller), else by class (ImageView ->
  img), else ``p``. The resource name is only given when there is no text, description or hint.

``compressed`` (AndroidLab style): the hierarchy of selected elements, where a non-selected node is
kept only as a grouping wrapper when two or more of its children contain selected elements::

    <FrameLayout res="hotseat">
     <TextView id=4 text="Phone" clickable long-clickable bounds=[0,706][96,800]/>
     ...
    </FrameLayout>

Strings are truncated to :data:`MAX_TEXT` characters (ending in ``...``), then escaped by one rule
(:func:`escape_text`) so on-screen text cannot break the structure and every format reads back the
same way (:func:`unescape_text`): in all formats a backslash becomes ``\\\\`` and a line break a
literal ``\\n`` (so ``\\n`` on screen and a newline stay distinct), tabs and other whitespace a
space, and other control/format characters are removed; then ``"`` becomes ``\\"`` in ``list``,
while in ``html``/``compressed`` ``& < > "`` become entities.

A screen with no element prints :data:`EMPTY_SCREEN` instead of nothing. ``compressed`` indents by
depth up to :data:`MAX_INDENT` levels (deeper levels keep that indentation), so its size stays
linear in the number of elements however deep the tree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from droidverify.errors import UIParseError
from droidverify.ui.element import UIElement

__all__ = [
    "EMPTY_SCREEN",
    "MAX_INDENT",
    "MAX_TEXT",
    "DescribeFormat",
    "Description",
    "count_tokens",
    "describe",
    "describe_compressed",
    "describe_html",
    "describe_list",
    "escape_text",
    "simple_token_count",
    "unescape_text",
]

DescribeFormat = Literal["list", "html", "compressed"]
MAX_TEXT = 120
MAX_INDENT = 16
EMPTY_SCREEN = "(this screen has no element to read or act on)"

_TOKEN_RE = None  # compiled lazily by simple_token_count


def simple_token_count(text: str) -> int:
    """Rough model-free token count: runs of word characters and single other non-space characters.

    Typically within ~30% of a BPE tokenizer's count on UI descriptions; use a real tokenizer for
    budgets that matter.
    """
    global _TOKEN_RE
    if _TOKEN_RE is None:
        import re

        _TOKEN_RE = re.compile(r"\w+|[^\w\s]")
    return len(_TOKEN_RE.findall(text))


def count_tokens(text: str, tokenizer: Any) -> int:
    """Token count of ``text`` with ``tokenizer``: an object with ``encode(str)`` (e.g. a Hugging
    Face tokenizer; special tokens are not added when it supports ``add_special_tokens``), an object
    with ``count_tokens(str) -> int`` (an :class:`~droidverify.llm.base.LLM`), or a callable
    returning an int or a sequence of tokens."""
    encode = getattr(tokenizer, "encode", None)
    if callable(encode):
        try:
            return len(encode(text, add_special_tokens=False))
        except TypeError:
            return len(encode(text))
    counter = getattr(tokenizer, "count_tokens", None)
    if callable(counter):
        return int(counter(text))
    if callable(tokenizer):
        result = tokenizer(text)
        if isinstance(result, int):
            return result
        if hasattr(result, "__len__"):
            return len(result)
        raise TypeError(f"tokenizer callable returned {type(result).__name__}, expected int or a sequence")
    raise TypeError(f"cannot count tokens with {type(tokenizer).__name__}: need encode(), "
                    "count_tokens() or a callable")


@dataclass(frozen=True, slots=True)
class Description:
    """A rendered screen description: ``text`` plus what produced it."""

    text: str
    format: str
    num_elements: int

    def count_tokens(self, tokenizer: Any) -> int:
        """Tokens in :attr:`text` (see :func:`count_tokens` for what ``tokenizer`` may be)."""
        return count_tokens(self.text, tokenizer)

    def __str__(self) -> str:
        return self.text


# ---------------------------------------------------------------------------------------- escaping
def _truncate(s: str) -> str:
    return s if len(s) <= MAX_TEXT else s[: MAX_TEXT - 3] + "..."


_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


def _controls(s: str) -> str:
    """Line breaks -> literal \\n, other whitespace -> space, other non-printables removed."""
    out = []
    for ch in s.replace("\r\n", "\n"):
        if ch.isprintable():
            out.append(ch)
        elif ch in _BREAKS:
            out.append("\\n")
        elif ch.isspace():
            out.append(" ")
    return "".join(out)


def escape_text(s: str, *, markup: bool) -> str:
    """The one escaping rule of every format (module doc): truncate, ``\\`` -> ``\\\\``, line breaks
    -> ``\\n``, then ``"`` -> ``\\"`` (``markup=False``, the list format) or ``& < > "`` -> entities
    (``markup=True``, html and compressed)."""
    return _q_xml(s) if markup else _q_list(s)


def unescape_text(s: str, *, markup: bool) -> str:
    """Invert :func:`escape_text` (for strings it did not truncate or strip)."""
    if markup:
        import html

        s = html.unescape(s)
    out, i, n = [], 0, len(s)
    while i < n:
        ch = s[i]
        if ch == "\\" and i + 1 < n:
            nxt = s[i + 1]
            out.append("\n" if nxt == "n" else nxt)
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


@lru_cache(maxsize=8192)
def _q_list(s: str) -> str:
    s = _truncate(s)
    if "\\" in s or '"' in s:
        s = s.replace("\\", "\\\\").replace('"', '\\"')
    if not s.isprintable():
        s = _controls(s)
    return s


@lru_cache(maxsize=8192)
def _q_xml(s: str) -> str:
    s = _truncate(s)
    if "\\" in s:
        s = s.replace("\\", "\\\\")
    if "&" in s or "<" in s or ">" in s or '"' in s:
        s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    if not s.isprintable():
        s = _controls(s)
    return s


_SHORT: dict[str, str] = {}


def _short(cls: str | None) -> str:
    if not cls:
        return "View"
    s = _SHORT.get(cls)
    if s is None:
        s = cls.rsplit(".", 1)[-1].rsplit("$", 1)[-1] or "View"
        if len(_SHORT) < 4096:
            _SHORT[cls] = s
    return s


def _res(el: UIElement) -> str | None:
    rid = el.resource_id
    return rid.rsplit("/", 1)[-1] if rid else None


def _center(el: UIElement) -> str:
    b = el.bbox_pixels
    if b is None:
        return ""
    return f" center=({(b.left + b.right) // 2},{(b.top + b.bottom) // 2})"


# -------------------------------------------------------------------------------------------- list

def _state_words(el: UIElement, check: str | None) -> list[str]:
    """State flags in the one order both the list and compressed formats use; ``check`` is the
    format's own rendering of the checkable/checked state (None: omit)."""
    words = [w for w, on in (("clickable", el.is_clickable),
                             ("long-clickable", el.is_long_clickable)) if on]
    if check:
        words.append(check)
    words.extend(w for w, on in (("selected", el.is_selected), ("focused", el.is_focused),
                                 ("editable", el.is_editable), ("scrollable", el.is_scrollable),
                                 ("password", el.is_password), ("disabled", not el.is_enabled))
                 if on)
    return words

def describe_list(elements: Sequence[UIElement]) -> Description:
    """T3A-style numbered list, one line per element (see the module doc for the format)."""
    lines = []
    for i, el in enumerate(elements):
        text, desc, hint = el.text, el.content_description, el.hint_text
        parts = [f"{i}: {_short(el.class_name)}"]
        primary = text or desc
        if primary:
            parts.append(f'"{_q_list(primary)}"')
        if text and desc and desc != text:
            parts.append(f'desc="{_q_list(desc)}"')
        if hint and hint != primary:
            parts.append(f'hint="{_q_list(hint)}"')
        res = _res(el)
        if res:
            parts.append(f"res={_q_list(res)}")
        if el.is_checkable:
            check = "checked" if el.is_checked else "unchecked"
        else:
            check = "checked" if el.is_checked else None
        states = _state_words(el, check)
        if states:
            parts.append(f"({', '.join(states)})")
        lines.append(" ".join(parts) + _center(el))
    return Description("\n".join(lines) or EMPTY_SCREEN, "list", len(elements))


# -------------------------------------------------------------------------------------------- html
_SWITCH_WORDS = ("Switch", "Toggle")


def _tag(el: UIElement) -> str:
    if el.is_editable:
        return "input"
    short = _short(el.class_name)
    if short.endswith(_SWITCH_WORDS) or "Switch" in short:
        return "switch"
    if "Radio" in short:
        return "radio"
    if el.is_checkable or short.endswith("CheckBox"):
        return "checkbox"
    if el.is_clickable or el.is_long_clickable:
        return "button"
    if el.is_scrollable:
        return "scroller"
    if "Image" in short:
        return "img"
    return "p"


def describe_html(elements: Sequence[UIElement]) -> Description:
    """V-Droid/AutoDroid-style HTML-like tags, one per line (see the module doc for the format)."""
    lines = []
    for i, el in enumerate(elements):
        tag = _tag(el)
        text, desc, hint = el.text, el.content_description, el.hint_text
        attrs = [f"<{tag} id={i}"]
        if el.is_clickable and tag != "input":
            attrs.append(" onclick")
        if el.is_long_clickable:
            attrs.append(" onlongclick")
        if el.is_scrollable:
            attrs.append(" scrollable")
        if el.is_checkable or tag in ("checkbox", "switch", "radio"):
            attrs.append(" checked=true" if el.is_checked else " checked=false")
        if el.is_selected:
            attrs.append(" selected")
        if el.is_focused:
            attrs.append(" focused")
        if el.is_password:
            attrs.append(" password")
        if not el.is_enabled:
            attrs.append(" disabled")
        if hint and hint != text:
            attrs.append(f' hint="{_q_xml(hint)}"')
        if text and desc and desc != text:
            attrs.append(f' desc="{_q_xml(desc)}"')
        content = text or desc
        if not content and not hint:
            res = _res(el)
            if res:
                attrs.append(f' res="{_q_xml(res)}"')
        attrs.append(f">{_q_xml(content) if content else ''}</{tag}>")
        lines.append("".join(attrs))
    return Description("\n".join(lines) or EMPTY_SCREEN, "html", len(elements))


# -------------------------------------------------------------------------------------- compressed
def _compressed_attrs(el: UIElement) -> str:
    parts = []
    if el.text:
        parts.append(f' text="{_q_xml(el.text)}"')
    if el.content_description and el.content_description != el.text:
        parts.append(f' desc="{_q_xml(el.content_description)}"')
    if el.hint_text and el.hint_text != el.text:
        parts.append(f' hint="{_q_xml(el.hint_text)}"')
    res = _res(el)
    if res:
        parts.append(f' res="{_q_xml(res)}"')
    check = (f"checkable checked={'true' if el.is_checked else 'false'}"
             if el.is_checkable else None)
    parts.extend(" " + w for w in _state_words(el, check))
    b = el.bbox_pixels
    if b is not None:
        parts.append(f" bounds=[{b.left},{b.top}][{b.right},{b.bottom}]")
    return "".join(parts)


def describe_compressed(root: UIElement, elements: Sequence[UIElement]) -> Description:
    """AndroidLab-style compressed XML of ``elements`` inside ``root``'s hierarchy.

    ``elements`` must come from :func:`~droidverify.ui.select.select_elements` on this tree (they
    are matched to tree nodes by ``node_id``); raises :class:`UIParseError` if one is not found.
    """
    by_id: dict[int, int] = {}
    for i, el in enumerate(elements):
        by_id[el.node_id] = i
    # Post-order pass (iterative: real trees can be deep) computing, per node, the kept items of its
    # subtree: (element-or-wrapper, index or None, child items).
    Item = tuple[UIElement, "int | None", list]
    pending: dict[int, list[Item]] = {}
    stack: list[tuple[UIElement, bool]] = [(root, False)]
    placed = 0
    while stack:
        node, done = stack.pop()
        if not done:
            stack.append((node, True))
            stack.extend((c, False) for c in node.children)
            continue
        kids: list[Item] = []
        branches = 0
        for c in node.children:
            sub = pending.pop(id(c), None)
            if sub:
                kids.extend(sub)
                branches += 1
        i = by_id.get(node.node_id) if node is not root else None
        if i is not None:
            placed += 1
            pending[id(node)] = [(elements[i], i, kids)]
        elif branches >= 2 and node is not root:
            pending[id(node)] = [(node, None, kids)]
        else:
            pending[id(node)] = kids
    if placed != len(by_id) or len(by_id) != len(elements):
        raise UIParseError("elements do not belong to this UI tree (node ids not found or repeated)",
                           where="describe_compressed")
    lines: list[str] = []
    # Render: entries are (item, depth) to open, or a closing string.
    render: list[Any] = [(it, 0) for it in reversed(pending.get(id(root), []))]
    while render:
        entry = render.pop()
        if isinstance(entry, str):
            lines.append(entry)
            continue
        (el, i, kids), depth = entry
        pad = " " * min(depth, MAX_INDENT)
        name = _short(el.class_name)
        if i is not None:
            head = f"{pad}<{name} id={i}{_compressed_attrs(el)}"
        else:
            res = _res(el)
            head = f'{pad}<{name} res="{_q_xml(res)}"' if res else f"{pad}<{name}"
        if kids:
            lines.append(head + ">")
            render.append(f"{pad}</{name}>")
            render.extend((k, depth + 1) for k in reversed(kids))
        else:
            lines.append(head + "/>")
    return Description("\n".join(lines) or EMPTY_SCREEN, "compressed", len(elements))


# ----------------------------------------------------------------------------------------- dispatch
_RENDERERS: dict[str, Callable[[Sequence[UIElement]], Description]] = {
    "list": describe_list, "html": describe_html,
}


def _tree_root(elements: Sequence[UIElement]) -> UIElement:
    node = elements[0]
    while node.parent is not None:
        node = node.parent
    return node


def describe(source: Any, fmt: DescribeFormat = "list", *, root: UIElement | None = None) -> Description:
    """Describe an observation (anything with ``.elements`` and ``.root``, e.g.
    :class:`~droidverify.env.records.Observation`) or a sequence of selected elements in ``fmt``.

    For ``compressed`` with a plain element list, the tree is ``root`` or the one the elements'
    ``parent`` links lead to.
    """
    if hasattr(source, "elements") and hasattr(source, "root"):
        elements = source.elements
        if root is None:
            root = source.root
    else:
        elements = list(source)
    if fmt == "compressed":
        if root is None:
            if not elements:
                return Description(EMPTY_SCREEN, "compressed", 0)
            root = _tree_root(elements)
        return describe_compressed(root, elements)
    renderer = _RENDERERS.get(fmt)
    if renderer is None:
        raise ValueError(f"unknown description format {fmt!r}; use 'list', 'html' or 'compressed'")
    return renderer(elements)
