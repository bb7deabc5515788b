"""Parse ``uiautomator dump`` XML into a tree of :class:`UIElement`.

The parser drives expat directly (one Python callback per element, no intermediate ElementTree),
keeps a bounded cache of parsed ``bounds`` strings (screens repeat the same rectangles a lot), and
validates on a fast path: a bad value only costs time when it is actually there, at which point a
slow pass finds the exact attribute to name in the :class:`UIParseError`.

Tree shape: the returned root is a synthetic node for ``<hierarchy>`` (``class_name="hierarchy"``,
``node_id=0``, ``depth=0``, its attributes such as ``rotation`` in ``extra``); its children are the
top-level nodes, one per window (``window`` = position under ``<hierarchy>``, inherited by every
descendant). Real nodes are numbered ``node_id = 1, 2, ...`` in pre-order (document order).

Elements named something other than ``node`` (Appium-style dumps use the class as the tag) are read
as nodes too; their tag stands in for a missing ``class`` attribute.
"""

from __future__ import annotations

import dataclasses
import operator
import re
from pathlib import Path
from xml.parsers import expat

from droidverify.errors import UIParseError
from droidverify.ui.element import Bounds, UIElement

__all__ = ["MAX_XML_BYTES", "is_edit_class", "parse_bounds", "parse_xml", "read_dump"]

# Real dumps are tens to hundreds of kB; a huge input is a mistake (or /dev/zero), not a screen.
MAX_XML_BYTES = 32 * 2**20

_BOOL = {"true": True, "false": False, "True": True, "False": False, "TRUE": True, "FALSE": False}

# Attribute names read into UIElement fields; everything else is kept in ``extra``.
_KNOWN = frozenset({
    "index", "text", "resource-id", "class", "package", "content-desc", "checkable", "checked",
    "clickable", "enabled", "focusable", "focused", "scrollable", "long-clickable", "password",
    "selected", "bounds", "hint", "visible-to-user", "visible", "editable", "tooltip-text",
})
_BOOL_ATTRS = (
    ("checkable", "false"), ("checked", "false"), ("clickable", "false"), ("enabled", "true"),
    ("focusable", "false"), ("focused", "false"), ("scrollable", "false"),
    ("long-clickable", "false"), ("password", "false"), ("selected", "false"),
    ("visible-to-user", "true"), ("visible", "true"), ("editable", "false"),
)

# The 17 attributes every uiautomator node carries, flags last in UIElement's positional order.
_STD_DEFAULTS = (
    ("index", None), ("text", ""), ("resource-id", ""), ("class", ""), ("package", ""),
    ("content-desc", ""), ("bounds", None), ("checked", "false"), ("checkable", "false"),
    ("clickable", "false"), ("enabled", "true"), ("focused", "false"), ("focusable", "false"),
    ("long-clickable", "false"), ("scrollable", "false"), ("selected", "false"), ("password", "false"),
)
_get_std = operator.itemgetter(*(k for k, _ in _STD_DEFAULTS))
_FLAGS_CACHE: dict[tuple[str, ...], tuple[bool, ...]] = {}

_BOUNDS_RE = re.compile(r"\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]")
_BOUNDS_CACHE: dict[str, Bounds] = {}
_BOUNDS_CACHE_MAX = 8192
_EDIT_CACHE: dict[str, bool] = {}
_FIELDS = (
    "text", "content_description", "class_name", "bbox_pixels", "hint_text", "is_checked",
    "is_checkable", "is_clickable", "is_editable", "is_enabled", "is_focused", "is_focusable",
    "is_long_clickable", "is_scrollable", "is_selected", "is_visible", "is_password", "package_name",
    "resource_id", "tooltip", "index_in_parent", "window", "depth", "node_id", "parent",
)
if tuple(f.name for f in dataclasses.fields(UIElement))[: len(_FIELDS)] != _FIELDS:  # pragma: no cover
    raise ImportError("droidverify.ui.tree: UIElement's field order changed; update _FIELDS and parse_xml")
_TRAILER = "UI hierchary dumped to"  # sic: what `uiautomator dump /dev/tty` appends after the XML


def is_edit_class(class_name: str | None) -> bool:
    """True for text-entry widgets: ``EditText`` and subclasses named ``...EditText`` or
    ``...AutoCompleteTextView`` (which covers ``MultiAutoCompleteTextView``)."""
    if not class_name:
        return False
    hit = _EDIT_CACHE.get(class_name)
    if hit is None:
        hit = class_name.endswith(("EditText", "AutoCompleteTextView"))
        if len(_EDIT_CACHE) < 4096:
            _EDIT_CACHE[class_name] = hit
    return hit


def parse_bounds(value: str) -> Bounds:
    """Parse ``[left,top][right,bottom]``; raise ``ValueError`` saying why it is unusable."""
    hit = _BOUNDS_CACHE.get(value)
    if hit is not None:
        return hit
    m = _BOUNDS_RE.fullmatch(value)
    if m is None:
        raise ValueError(f"bounds {value!r} is not of the form [left,top][right,bottom]")
    left, top, right, bottom = int(m[1]), int(m[2]), int(m[3]), int(m[4])
    if right < left or bottom < top:
        raise ValueError(f"bounds {value!r} has right<left or bottom<top")
    b = Bounds(left, top, right, bottom)
    if len(_BOUNDS_CACHE) >= _BOUNDS_CACHE_MAX:
        _BOUNDS_CACHE.clear()
    _BOUNDS_CACHE[value] = b
    return b


def _strip_trailer(data: str | bytes) -> str | bytes:
    if isinstance(data, bytes):
        end = data.rfind(b"</hierarchy>")
        if end >= 0 and data[end + 12:].strip().startswith(_TRAILER.encode()):
            return data[: end + 12]
        return data
    end = data.rfind("</hierarchy>")
    if end >= 0 and data[end + 12:].strip().startswith(_TRAILER):
        return data[: end + 12]
    return data


def _diagnose(attrs: dict[str, str], where: str) -> UIParseError:
    """Slow path after the fast path failed: find the offending attribute and describe it."""
    for name, _default in _BOOL_ATTRS:
        v = attrs.get(name)
        if v is not None and v not in _BOOL:
            return UIParseError(f"attribute {name}={v!r} is not true/false", where=f"{where} {name}")
    idx = attrs.get("index")
    if idx is not None:
        try:
            int(idx)
        except ValueError:
            return UIParseError(f"attribute index={idx!r} is not an integer", where=f"{where} index")
    b = attrs.get("bounds")
    if b is not None:
        try:
            parse_bounds(b)
        except ValueError as e:
            return UIParseError(str(e), where=f"{where} bounds")
    return UIParseError("invalid node attributes", where=where)


def read_dump(path: str | Path) -> bytes:
    """A dump file's bytes, reading at most :data:`MAX_XML_BYTES` (+1 to tell it is too large):
    ``/dev/zero`` or a multi-GB file gives :class:`UIParseError`, not a MemoryError. OSError passes."""
    with open(path, "rb") as fh:
        data = fh.read(MAX_XML_BYTES + 1)
    if len(data) > MAX_XML_BYTES:
        raise UIParseError(f"{path} is larger than {MAX_XML_BYTES} bytes; not a uiautomator dump",
                           where="input")
    return data


def parse_xml(xml: str | bytes) -> UIElement:
    """Parse a uiautomator dump into a tree; return the synthetic ``<hierarchy>`` root.

    Raises :class:`UIParseError` (with ``where`` naming line/column, node number, class and
    attribute) for malformed XML, a root element other than ``<hierarchy>``, a hierarchy without
    nodes, unparsable or inverted bounds, non-boolean flags and non-integer indices.
    """
    if not isinstance(xml, (str, bytes, bytearray)):
        raise UIParseError(f"expected XML as str or bytes, got {type(xml).__name__}")
    if len(xml) > MAX_XML_BYTES:
        raise UIParseError(f"the dump is {len(xml)} {'bytes' if not isinstance(xml, str) else 'characters'}"
                           f", more than the {MAX_XML_BYTES} a screen can plausibly need", where="input")
    data = _strip_trailer(bytes(xml) if isinstance(xml, bytearray) else xml)

    parser = expat.ParserCreate()
    stack: list[UIElement] = []
    roots: list[UIElement] = []
    count = 0
    B = _BOOL
    cache = _BOUNDS_CACHE
    known = _KNOWN
    edit_cache = _EDIT_CACHE
    fcache = _FLAGS_CACHE
    get_std = _get_std
    std_defaults = _STD_DEFAULTS

    def start(tag: str, attrs: dict[str, str]) -> None:
        nonlocal count
        if not stack:
            if tag != "hierarchy":
                raise UIParseError(
                    f"root element is <{tag}>, expected <hierarchy>",
                    where=f"line {parser.CurrentLineNumber}, column {parser.CurrentColumnNumber + 1}",
                )
            root = UIElement(class_name="hierarchy", extra=dict(attrs))
            roots.append(root)
            stack.append(root)
            return
        count += 1
        parent = stack[-1]
        siblings = parent.children
        g = attrs.get
        cls = None
        try:
            # Fast path: a standard dump node has exactly the 17 standard attributes; one C-level
            # itemgetter call fetches them all and the 10 flag strings map to bools via a cache.
            v = None
            std = False
            if len(attrs) == 17:
                try:
                    v = get_std(attrs)
                    std = True
                except KeyError:
                    v = None
            if v is None:
                v = tuple([g(k, d) for k, d in std_defaults])
            cls = v[3] or (None if tag == "node" else tag)
            fkey = v[7:]
            fl = fcache.get(fkey)
            if fl is None:
                fl = tuple([B[x] for x in fkey])
                if len(fcache) < 4096:
                    fcache[fkey] = fl
            bb = v[6]
            if bb is None:
                bounds = None
            else:
                bounds = cache.get(bb)
                if bounds is None:
                    bounds = parse_bounds(bb)
            if std:
                hint = tooltip = None
                vis = True
                ed = None
            else:
                hint = g("hint") or None
                tooltip = g("tooltip-text") or None
                vs = g("visible-to-user")
                vis = B[g("visible", "true") if vs is None else vs]
                ed = g("editable")
            if ed is not None:
                editable = B[ed]
            elif cls is None:
                editable = False
            else:
                editable = edit_cache.get(cls)
                if editable is None:
                    editable = is_edit_class(cls)
            idx = v[0]
            # Positional construction is ~3x faster than keywords; _FIELDS (checked at import) pins the order.
            node = UIElement(
                v[1] or None, v[5] or None, cls, bounds, hint,
                fl[0], fl[1], fl[2], editable, fl[3], fl[4], fl[5], fl[6], fl[7], fl[8], vis, fl[9],
                v[4] or None, v[2] or None, tooltip,
                len(siblings) if idx is None else int(idx),
                len(siblings) if parent.node_id == 0 else parent.window,
                parent.depth + 1, count, parent,
            )
        except (KeyError, ValueError):
            where = (f"node #{count} (class={cls}), line {parser.CurrentLineNumber}, "
                     f"column {parser.CurrentColumnNumber + 1}")
            raise _diagnose(attrs, where) from None
        if not std and not attrs.keys() <= known:  # unknown attributes (e.g. NAF): keep them, in document order
            node.extra = {k: v for k, v in attrs.items() if k not in known}
        siblings.append(node)
        stack.append(node)

    def end(tag: str) -> None:
        stack.pop()

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(data, True)
    except expat.ExpatError as e:
        raise UIParseError(
            f"malformed XML: {expat.ErrorString(e.code)}",
            where=f"line {e.lineno}, column {e.offset + 1}",
        ) from None
    except (LookupError, UnicodeError) as e:  # e.g. encoding='TTF-8' in the XML declaration
        raise UIParseError(f"unusable character encoding: {e}", where="XML declaration") from None
    except RecursionError:
        raise UIParseError("UI tree nested too deeply") from None
    if not roots:
        raise UIParseError("no <hierarchy> element found")
    root = roots[0]
    if not root.children:
        raise UIParseError("<hierarchy> contains no nodes", where="hierarchy")
    # The root spans every window, so screen_size_of() and clipping have a rectangle to use.
    right = bottom = 0
    for win in root.children:
        if win.bbox_pixels is not None:
            right = max(right, win.bbox_pixels.right)
            bottom = max(bottom, win.bbox_pixels.bottom)
    if right > 0 and bottom > 0:
        root.bbox_pixels = Bounds(0, 0, right, bottom)
    return root
