"""Pick the elements an agent can act on or should read, in a stable order.

Rules (pre-order walk of the parsed tree, so an element's index is stable for a given screen):

* **Visible rectangle.** Each node's bounds are clipped to the screen and to the bounds of every
  scrollable ancestor (content scrolled out of a list is not on screen even though the list's
  children still report it). Nodes without bounds, with ``visible-to-user=false``, or whose
  clipped rectangle has zero area are dropped (their children are still considered).
* **Covered elements.** Among siblings, a later-drawn one (higher ``drawing-order`` when the dump
  has it, else later in document order) that is a clickable container (it has children) spanning
  its parent's whole bounds is an overlay (a search page over a home screen, a detail fragment
  over a feed): every node of an earlier-drawn sibling whose visible rectangle lies inside it is
  dropped. A node only partly under it is kept: the dump cannot tell what shows.
* **Interactive elements**: enabled and clickable, long-clickable, checkable, scrollable or
  editable, or a focusable leaf without text (Flutter/Compose buttons and toggles are often
  focusable but not clickable) (:attr:`UIElement.is_interactive`). Without text they are kept
  all the same: the descriptions name them by class and resource id.
* **Informative elements**: any other node with its own text or content description (usually a
  leaf TextView/ImageView), unless every one of those strings is already carried by an
  interactive ancestor - its own text/description or the label it borrowed (below). Disabled
  buttons with text land here, so the agent can still read them.
* **Borrowed labels** (AndroidWorld/T3A style): a clickable, long-clickable or checkable node with
  neither text nor content description takes the text (else description) of up to three visible, non-interactive
  descendants, in pre-order, joined with `` | ``; the descendants with that text are then not
  listed again. The borrowed label goes into ``text`` of the returned copy and
  ``extra["label_from"]`` lists the source node ids (comma separated).
* **Sibling labels** (``sibling_labels=True``, the default): a clickable, long-clickable or
  checkable node that is not editable and still has no text, content description or hint after
  the above (an icon button whose caption is a sibling text node) takes the label of its nearest
  labelling sibling: the closest in its parent's child order, the following one on a tie. A
  labelling sibling is visible, not clickable, long-clickable, checkable, editable or scrollable
  (enabled or not: the text of a button names that button's action, never its neighbour's), and
  has its own text (else description), or else has up to three such texts among its
  non-interactive descendants (joined with `` | ``); a sibling whose text an interactive
  ancestor already carries is not a label (it names that ancestor: a checkbox inside a file row
  that is labelled by the row's title stays as it is). The label goes into ``text`` of the returned
  copy, ``extra["label_from"]`` lists its source node ids and ``extra["label_source"]`` is
  ``"sibling"``. Unlike a descendant's text, the sibling stays listed: it is not inside the
  control.

Returned elements are the tree's own nodes, except that a node whose visible rectangle differs
from its bounds, or that borrowed a label, is returned as a shallow copy (same ``node_id``,
``parent`` and ``children``) with ``bbox_pixels`` set to the visible rectangle (the original goes to
``extra["bounds_full"]``) so that an action's tap point is on screen. The parsed tree itself is
never modified.
"""

from __future__ import annotations

import bisect
import dataclasses

from droidverify.errors import UIParseError
from droidverify.ui.element import Bounds, UIElement

__all__ = ["MAX_BORROWED_TEXTS", "screen_size_of", "select_elements"]

MAX_BORROWED_TEXTS = 3


def _top(node: UIElement) -> UIElement:
    while node.parent is not None:
        node = node.parent
    return node


def screen_size_of(root: UIElement) -> tuple[int, int]:
    """Screen ``(width, height)``: the extent of the top-level windows' bounds.

    Raises :class:`UIParseError` when no window has bounds with a positive width and height.
    """
    top = _top(root)
    right = bottom = 0
    boxes = [top.bbox_pixels] if top.bbox_pixels is not None else []
    boxes += [w.bbox_pixels for w in top.children if w.bbox_pixels is not None]
    for b in boxes:
        right, bottom = max(right, b.right), max(bottom, b.bottom)
    if right <= 0 or bottom <= 0:
        raise UIParseError("cannot tell the screen size: no window has positive bounds", where="hierarchy")
    return right, bottom


Rect = tuple[int, int, int, int]


def _drawing_order(node: UIElement, position: int) -> tuple[int, int]:
    raw = node.extra.get("drawing-order") if node.extra else None
    try:
        return (int(raw), position) if raw is not None else (position, position)
    except (TypeError, ValueError):
        return (position, position)


def _child_covers(node: UIElement, children: list[UIElement],
                  covers: tuple[Rect, ...]) -> list[tuple[Rect, ...]] | None:
    """Per child, the overlay rectangles drawn above it (see the module doc); None if no overlay."""
    pb = node.bbox_pixels
    if pb is None or pb.right <= pb.left or pb.bottom <= pb.top:
        return None
    pl, pt, pr, pbot = pb.left, pb.top, pb.right, pb.bottom
    overlays = []
    for i, c in enumerate(children):  # hot loop: the cheap bounds test first
        cb = c.bbox_pixels
        if (cb is not None and cb.left <= pl and cb.top <= pt and cb.right >= pr and cb.bottom >= pbot
                and c.is_clickable and c.children and c.is_visible):
            overlays.append(i)
    if not overlays:
        return None
    order = [_drawing_order(c, i) for i, c in enumerate(children)]
    rect = (pb.left, pb.top, pb.right, pb.bottom)
    out = []
    for i in range(len(children)):
        above = any(order[j] > order[i] for j in overlays if j != i)
        out.append(covers + (rect,) if above else covers)
    return out


def _covered(rect: Rect, covers: tuple[Rect, ...]) -> bool:
    left, top, right, bottom = rect
    return any(cl <= left and ct <= top and cr >= right and cb >= bottom for cl, ct, cr, cb in covers)


def _borrow_label(node: UIElement) -> tuple[list[str], list[int]]:
    """Texts of visible, non-interactive descendants (pre-order, not crossing interactive nodes)."""
    texts: list[str] = []
    ids: list[int] = []
    stack = list(reversed(node.children))
    while stack and len(texts) < MAX_BORROWED_TEXTS:
        d = stack.pop()
        if d.is_enabled and (d.is_clickable or d.is_long_clickable or d.is_checkable
                             or d.is_scrollable or d.is_editable):
            continue  # has its own identity; its text belongs to it
        if d.is_visible:
            t = d.text or d.content_description
            if t and t.strip() and t not in texts:
                texts.append(t)
                ids.append(d.node_id)
        stack.extend(reversed(d.children))
    return texts, ids


def _acts(n: UIElement) -> bool:
    """Whether a node has its own action (enabled or not): its text names that action."""
    return n.is_clickable or n.is_long_clickable or n.is_checkable or n.is_editable or n.is_scrollable


class _SiblingLabels:
    """Per parent, once: its children's positions and the labels of its labelling children
    (module doc, "Sibling labels"), so a row of many label-less icons stays linear."""

    __slots__ = ("labels", "pos", "where")

    def __init__(self, parent: UIElement, clip: Rect, carried: tuple[str, ...]) -> None:
        self.pos = {id(c): i for i, c in enumerate(parent.children)}
        self.where: list[int] = []  # child positions of the labelling children, ascending
        self.labels: list[tuple[Rect, list[str], list[int]]] = []
        cl, ct, cr, cb = clip
        for i, s in enumerate(parent.children):
            b = s.bbox_pixels
            if not s.is_visible or b is None or _acts(s):
                continue
            rect = (max(cl, b.left), max(ct, b.top), min(cr, b.right), min(cb, b.bottom))
            if rect[2] <= rect[0] or rect[3] <= rect[1]:
                continue
            own = s.text or s.content_description
            if own and own.strip():
                if own not in carried:
                    self.where.append(i)
                    self.labels.append((rect, [own], [s.node_id]))
                continue
            found = [(t, n) for t, n in zip(*_borrow_label(s), strict=True) if t not in carried]
            if found:
                self.where.append(i)
                self.labels.append((rect, [t for t, _ in found], [n for _, n in found]))

    def nearest(self, node: UIElement, covers: tuple[Rect, ...]) -> tuple[list[str], list[int]]:
        """The nearest labelling sibling of ``node`` not covered by ``covers``; the following one
        on a tie (a caption usually follows its icon)."""
        pos = self.pos.get(id(node))
        if pos is None or not self.where:
            return [], []
        after = bisect.bisect_right(self.where, pos)
        before = after - 1
        while before >= 0 or after < len(self.where):
            take_after = after < len(self.where) and (
                before < 0 or self.where[after] - pos <= pos - self.where[before])
            k = after if take_after else before
            rect, texts, ids = self.labels[k]
            if not (covers and _covered(rect, covers)):
                return texts, ids
            if take_after:
                after += 1
            else:
                before -= 1
        return [], []


def select_elements(
    root: UIElement,
    screen_size: tuple[int, int] | None = None,
    *,
    interactive_only: bool = False,
    sibling_labels: bool = True,
) -> list[UIElement]:
    """Interactive and informative elements of ``root``'s screen in pre-order (see module doc).

    ``screen_size`` defaults to :func:`screen_size_of` ``(root)``. ``interactive_only`` drops the
    informative (non-interactive) elements. ``sibling_labels=False`` leaves label-less controls
    without a sibling's label.
    """
    if screen_size is None:
        screen_size = screen_size_of(root)
    try:
        sw, sh = (int(v) for v in screen_size)
    except (TypeError, ValueError):
        raise UIParseError(f"screen_size must be (width, height), got {screen_size!r}",
                           where="screen_size") from None
    if sw <= 0 or sh <= 0:
        raise UIParseError(f"screen_size must be positive, got {screen_size!r}", where="screen_size")

    out: list[UIElement] = []
    # Stack entries: node, clip rectangle (l, t, r, b), strings carried by interactive ancestors,
    # overlay rectangles drawn above the node.
    clip0 = (0, 0, sw, sh)
    empty: tuple[str, ...] = ()
    no_covers: tuple[Rect, ...] = ()
    start = root.children if root.parent is None and root.class_name == "hierarchy" else [root]
    stack: list[tuple[UIElement, Rect, tuple[str, ...], tuple[Rect, ...]]] = [
        (c, clip0, empty, no_covers) for c in reversed(start)
    ]
    pop, push = stack.pop, stack.append
    sibling_finders: dict[int, _SiblingLabels] = {}  # by id(parent), built on first need
    while stack:
        node, clip, carried, covers = pop()
        b = node.bbox_pixels
        child_clip = clip
        child_carried = carried
        keep = None
        if b is not None:
            cl, ct, cr, cb = clip
            left = max(cl, b.left)
            top = max(ct, b.top)
            right = min(cr, b.right)
            bottom = min(cb, b.bottom)
            visible = node.is_visible and right > left and bottom > top
            if visible and covers and _covered((left, top, right, bottom), covers):
                visible = False
            if node.is_scrollable:
                child_clip = (left, top, max(left, right), max(top, bottom))
            if visible:
                text, desc = node.text, node.content_description
                if node.is_enabled and (node.is_clickable or node.is_long_clickable or node.is_checkable
                                        or node.is_scrollable or node.is_editable
                                        or (node.is_focusable and not node.children
                                            and not text and not desc)):
                    keep = node
                    if text or desc:
                        child_carried = carried + tuple(s for s in (text, desc) if s)
                    elif node.is_clickable or node.is_long_clickable or node.is_checkable:
                        # Only tappable containers borrow: a scroller's rows are its content, not its name.
                        borrowed, ids = _borrow_label(node)
                        if borrowed:
                            keep = dataclasses.replace(
                                node, text=" | ".join(borrowed),
                                extra={**node.extra, "label_from": ",".join(map(str, ids))},
                            )
                            child_carried = carried + tuple(borrowed)
                        elif (sibling_labels and not node.is_editable and not node.hint_text
                              and node.parent is not None and len(node.parent.children) > 1):
                            finder = sibling_finders.get(id(node.parent))
                            if finder is None:
                                finder = sibling_finders[id(node.parent)] = _SiblingLabels(
                                    node.parent, clip, carried)
                            borrowed, ids = finder.nearest(node, covers)
                            if borrowed:
                                keep = dataclasses.replace(
                                    node, text=" | ".join(borrowed),
                                    extra={**node.extra, "label_from": ",".join(map(str, ids)),
                                           "label_source": "sibling"},
                                )
                elif not interactive_only and (text or desc):
                    if (not text or text in carried) and (not desc or desc in carried):
                        keep = None  # an interactive ancestor already says this
                    else:
                        keep = node
                if keep is not None:
                    if (left, top, right, bottom) != (b.left, b.top, b.right, b.bottom):
                        if keep is node:
                            keep = dataclasses.replace(node, extra=dict(node.extra))
                        keep.extra["bounds_full"] = b.to_uiautomator()
                        keep.bbox_pixels = Bounds(left, top, right, bottom)
                    out.append(keep)
        children = node.children
        if children:
            per_child = _child_covers(node, children, covers) if len(children) > 1 else None
            if per_child is None:
                for c in reversed(children):
                    push((c, child_clip, child_carried, covers))
            else:
                for c, cv in zip(reversed(children), reversed(per_child), strict=True):
                    push((c, child_clip, child_carried, cv))
    return out
