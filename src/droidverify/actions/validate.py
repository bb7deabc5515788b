"""Does a well-formed :class:`Action` fit the current screen and episode?

``Action`` construction already enforces the structural rules (which fields each type takes);
this module checks the action against context that only the caller has: the indexed elements of
the latest observation, the screen size and how many rounds came before (for SmartSnap evidences).

Policy on typing into a non-editable element: **allowed**. AndroidWorld types into whatever has
focus after tapping the target, and many apps expose a clickable container (a search bar, a
``TextInputLayout``) whose editable child only appears or gains focus after the tap; rejecting
those would reject correct actions. :func:`action_warnings` reports such soft problems for
agents or logs that want them.
"""

from __future__ import annotations

from collections.abc import Sequence

from droidverify.actions.model import Action
from droidverify.errors import ActionValidationError
from droidverify.ui.element import UIElement

_XY_TYPES = frozenset({"click", "long_press", "double_tap", "swipe", "input_text", "clear_text"})


def _range_text(n: int) -> str:
    return "the screen has no indexed elements" if n == 0 else f"valid indices are 0-{n - 1}"


def validate_action(
    action: Action,
    elements: Sequence[UIElement] | None = None,
    *,
    screen_size: tuple[int, int] | None = None,
    n_steps: int | None = None,
) -> None:
    """Raise :class:`ActionValidationError` (``field`` names the culprit) if ``action`` does not fit.

    - ``elements``: the indexed elements of the current observation; an ``index`` must be in range,
      the element must have bounds, and a ``scroll`` with an index must target a scrollable
      element. ``None`` skips element checks.
    - ``screen_size``: ``(width, height)``; ``x``/``y`` must lie on the screen. ``None`` skips.
    - ``n_steps``: number of earlier rounds; ``submit`` evidences must be in ``[0, n_steps)``.
      Duplicate or negative evidence ids are rejected even without ``n_steps``.
    """
    t = action.action_type
    if action.index is not None and elements is not None:
        n = len(elements)
        if not 0 <= action.index < n:
            raise ActionValidationError(
                f"{t}: index {action.index} is out of range; {_range_text(n)}", field="index")
        el = elements[action.index]
        if el.bbox_pixels is None or el.bbox_pixels.area == 0:
            raise ActionValidationError(
                f"{t}: element {action.index} ({el.label or el.class_name or 'unnamed'}) has no "
                "on-screen bounds", field="index")
        if t == "scroll" and not el.is_scrollable:
            raise ActionValidationError(
                f"scroll: element {action.index} ({el.label or el.class_name or 'unnamed'}) is not "
                "scrollable; scroll a scrollable element or omit index to scroll the screen",
                field="index")
    if action.x is not None and action.y is not None and screen_size is not None and t in _XY_TYPES:
        w, h = screen_size
        if not action.x < w:
            raise ActionValidationError(
                f"{t}: x={action.x} is outside the screen (width {w}, valid 0-{w - 1})", field="x")
        if not action.y < h:
            raise ActionValidationError(
                f"{t}: y={action.y} is outside the screen (height {h}, valid 0-{h - 1})", field="y")
    if t == "submit" and action.evidences is not None:
        seen: set[int] = set()
        for ev in action.evidences:
            if ev < 0:
                raise ActionValidationError(f"submit: evidence id {ev} is negative", field="evidences")
            if ev in seen:
                raise ActionValidationError(f"submit: evidence id {ev} is listed twice", field="evidences")
            seen.add(ev)
            if n_steps is not None and ev >= n_steps:
                rng = "there are no earlier steps" if n_steps == 0 else f"valid ids are 0-{n_steps - 1}"
                raise ActionValidationError(
                    f"submit: evidence id {ev} does not refer to an earlier step; {rng}",
                    field="evidences")


def action_warnings(action: Action, elements: Sequence[UIElement] | None = None) -> list[str]:
    """Soft problems that :func:`validate_action` deliberately allows (see the module docstring).

    Assumes the action already passed :func:`validate_action` with the same elements.
    """
    out: list[str] = []
    if action.index is None or elements is None or not 0 <= action.index < len(elements):
        return out
    el = elements[action.index]
    t = action.action_type
    if t in ("input_text", "clear_text") and not el.is_editable:
        out.append(f"{t}: element {action.index} is not editable; text goes to whatever gains focus")
    if not el.is_enabled:
        out.append(f"{t}: element {action.index} is disabled")
    if t in ("click", "double_tap") and not (el.is_clickable or el.is_checkable):
        out.append(f"{t}: element {action.index} is not marked clickable")
    if t == "long_press" and not el.is_long_clickable:
        out.append(f"long_press: element {action.index} is not marked long-clickable")
    return out
