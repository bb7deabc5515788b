"""V-Droid's action space: candidates read off the screen plus default actions not on it."""

from __future__ import annotations

from collections.abc import Sequence

from droidverify.actions.model import DIRECTIONS, Action
from droidverify.agents.screen import (
    ANSWER_PLACEHOLDER,
    APP_PLACEHOLDER,
    TEXT_PLACEHOLDER,
    is_launcher_package,
)
from droidverify.env.records import Observation
from droidverify.ui.element import UIElement

# Container classes whose scroll axis is known; any other scrollable keeps all four directions.
_HORIZONTAL = ("HorizontalScrollView", "ViewPager", "TabLayout", "HorizontalPager", "Carousel")
_VERTICAL = ("ListView", "ScrollView", "RecyclerView", "GridView", "ExpandableListView", "LazyColumn")


def _shows_hint_only(el: UIElement) -> bool:
    """A field whose text is only its hint: dumps without a ``hint`` attribute put the hint in
    ``text``, and a field may show the hint of a child label."""
    if not el.text:
        return True
    hints = {el.hint_text, *(c.hint_text for c in el.children)} - {None, ""}
    return el.text in hints


def _is_launcher_icon(el: UIElement) -> bool:
    # A long press on a home-screen icon only opens its shortcut menu: never a step of a task.
    return is_launcher_package(el.package_name)


def _element_candidates(i: int, el: UIElement) -> list[Action]:
    """What this element can plausibly do (issue: keep candidate sets small and meaningful)."""
    out: list[Action] = []
    if not el.is_enabled or el.bbox_pixels is None or el.bbox_pixels.area == 0:
        return out  # disabled or off-screen elements cannot be acted on
    if el.is_clickable or el.is_checkable:
        out.append(Action(action_type="click", index=i))
    if el.is_long_clickable and not _is_launcher_icon(el):
        out.append(Action(action_type="long_press", index=i))
    # A read-only EditText used as a display (not focusable) cannot take input.
    if el.is_editable and (el.is_focusable or el.is_focused):
        out.append(Action(action_type="input_text", index=i, text=TEXT_PLACEHOLDER))
        if not _shows_hint_only(el):  # only real content is worth clearing
            out.append(Action(action_type="clear_text", index=i))
    if el.is_scrollable:
        cls = (el.class_name or "").rsplit(".", 1)[-1]
        if any(h in cls for h in _HORIZONTAL):
            dirs: tuple[str, ...] = ("left", "right")
        elif any(cls.endswith(v) for v in _VERTICAL):
            dirs = ("up", "down")
        else:
            dirs = DIRECTIONS
        out.extend(Action(action_type="scroll", index=i, direction=d) for d in dirs)
    return out


def extract_candidates(
    observation: Observation,
    *,
    apps: Sequence[str] | None = None,
    defaults: bool = True,
) -> list[Action]:
    """All candidate actions for this screen, in a deterministic order, without duplicates.

    Per indexed element (in index order): ``click`` (clickable or checkable), ``long_press``
    (long-clickable, except home-screen icons, where it only opens a shortcut menu),
    ``input_text`` (editable and focusable; a non-focusable EditText is a read-only display; text
    is :data:`TEXT_PLACEHOLDER`), ``clear_text`` (such a field holding text other than its own or
    a child's hint), ``scroll`` along the element's axis where its class tells it (up/down for
    lists and scroll views, left/right for pagers and horizontal scroll views, all four otherwise). Disabled elements and elements without on-screen bounds yield
    nothing.

    Then, when ``defaults``: ``open_app`` (app is :data:`APP_PLACEHOLDER`; omitted when ``apps``
    is given and empty, since nothing could be opened), ``wait``, ``navigate_home``,
    ``navigate_back``, ``status`` complete and ``answer`` (:data:`ANSWER_PLACEHOLDER`).
    Placeholders are filled by the agent's completion step (see ``needs_completion``).
    """
    out: list[Action] = []
    seen: set[str] = set()

    def add(action: Action) -> None:
        key = action.to_json()
        if key not in seen:
            seen.add(key)
            out.append(action)

    for i, el in enumerate(observation.elements):
        for action in _element_candidates(i, el):
            add(action)
    if defaults:
        if apps is None or len(apps) > 0:
            add(Action(action_type="open_app", app_name=APP_PLACEHOLDER))
        add(Action(action_type="wait"))
        add(Action(action_type="navigate_home"))
        add(Action(action_type="navigate_back"))
        add(Action(action_type="status", goal_status="complete"))
        add(Action(action_type="answer", text=ANSWER_PLACEHOLDER))
    return out
