"""V-Droid's action space: candidates read off the screen plus default actions not on it."""

from __future__ import annotations

from collections.abc import Sequence

from droidverify.actions.model import DIRECTIONS, Action
from droidverify.agents.screen import (
    ANSWER_PLACEHOLDER,
    APP_PLACEHOLDER,
    TEXT_PLACEHOLDER,
)
from droidverify.env.records import Observation


def _element_candidates(i: int, el) -> list[Action]:
    out: list[Action] = []
    if not el.is_enabled or el.bbox_pixels is None or el.bbox_pixels.area == 0:
        return out  # disabled or off-screen elements cannot be acted on
    if el.is_clickable or el.is_checkable:
        out.append(Action(action_type="click", index=i))
    if el.is_long_clickable:
        out.append(Action(action_type="long_press", index=i))
    if el.is_editable:
        out.append(Action(action_type="input_text", index=i, text=TEXT_PLACEHOLDER))
        # Only real content is worth clearing; a hint shown as text is not.
        if el.text and el.text != el.hint_text:
            out.append(Action(action_type="clear_text", index=i))
    if el.is_scrollable:
        out.extend(Action(action_type="scroll", index=i, direction=d) for d in DIRECTIONS)
    return out


def extract_candidates(
    observation: Observation,
    *,
    apps: Sequence[str] | None = None,
    defaults: bool = True,
) -> list[Action]:
    """All candidate actions for this screen, in a deterministic order, without duplicates.

    Per indexed element (in index order): ``click`` (clickable or checkable), ``long_press``
    (long-clickable), ``input_text`` (editable; text is :data:`TEXT_PLACEHOLDER`), ``clear_text``
    (editable and holding text other than its hint), ``scroll`` up/down/left/right (scrollable).
    Disabled elements and elements without on-screen bounds yield nothing.

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
