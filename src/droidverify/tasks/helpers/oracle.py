"""Oracle helpers: pick the next action from the CURRENT screen.

Oracles never replay a fixed script: they look at ``obs`` (the elements an agent sees) and at the
phone's navigation state, and return the one action that makes progress from here. That keeps
them correct from any starting screen, e.g. after an agent wandered off and the oracle takes over.

Typical oracle::

    def oracle_action(self, phone, params, obs):
        if not done(phone):
            step = navigate(phone, obs, "settings", [("main", {"text": "Display"}), ("display", None)])
            if step is not None:
                return step
            return click(obs, text="Dark theme") or scroll_toward(phone, obs, text="Dark theme")
        return COMPLETE
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim.phone import Phone
from droidverify.env.sim.skin import canonical_label
from droidverify.errors import TaskError
from droidverify.ui.element import UIElement

COMPLETE = Action(action_type="status", goal_status="complete")
BACK = Action(action_type="navigate_back")
HOME = Action(action_type="navigate_home")


def _parts(text: str | None) -> list[str]:
    # select_elements gives label-less rows the texts of their children joined with " | "
    return [p.strip() for p in text.split(" | ")] if text else []


def _canonical(text: str | None) -> str:
    """``text`` as the simulator's own look shows it: each ``" | "`` part through ``canonical_label``
    (a skin's relabelled chrome goes back; anything else, user content included, is unchanged)."""
    if not text:
        return ""
    if " | " not in text:
        return canonical_label(text)
    return " | ".join(canonical_label(p) for p in _parts(text))


def matches(el: UIElement, *, text: str | None = None, text_contains: str | None = None,
            desc: str | None = None, desc_contains: str | None = None, resource_id: str | None = None,
            class_contains: str | None = None, clickable: bool | None = None, editable: bool | None = None,
            checked: bool | None = None) -> bool:
    """Whether ``el`` satisfies every given criterion (all comparisons case-sensitive, exact unless
    ``*_contains``; ``text`` also matches one ``" | "``-separated part of a borrowed label).

    Text and content-desc are compared skin-independently: criteria name the canonical labels
    (the simulator's own look), and a skin's variant of a label (``env.sim.skin``) matches them.
    """
    if text is not None and el.text != text and text not in _parts(el.text):
        canon = _canonical(el.text)
        if canon != text and text not in _parts(canon):
            return False
    if text_contains is not None and text_contains not in (el.text or "") \
            and text_contains not in _canonical(el.text):
        return False
    if desc is not None and el.content_description != desc and _canonical(el.content_description) != desc:
        return False
    if desc_contains is not None and desc_contains not in (el.content_description or "") \
            and desc_contains not in _canonical(el.content_description):
        return False
    if resource_id is not None:
        rid = el.resource_id or ""
        if rid != resource_id and rid.rsplit("/", 1)[-1] != resource_id:
            return False
    if class_contains is not None and class_contains not in (el.class_name or ""):
        return False
    if clickable is not None and el.is_clickable != clickable:
        return False
    if editable is not None and el.is_editable != editable:
        return False
    return not (checked is not None and el.is_checked != checked)


def find_all(obs: Observation, **criteria: Any) -> list[int]:
    """Indices (into ``obs.elements``) of every element matching ``criteria`` (see ``matches``)."""
    return [i for i, el in enumerate(obs.elements) if matches(el, **criteria)]


def find(obs: Observation, **criteria: Any) -> int | None:
    """Index of the first element matching ``criteria``, else None."""
    for i, el in enumerate(obs.elements):
        if matches(el, **criteria):
            return i
    return None


def click(obs: Observation, **criteria: Any) -> Action | None:
    """``click`` on the first matching element, or None when it is not on screen."""
    i = find(obs, **criteria)
    return None if i is None else Action(action_type="click", index=i)


def type_into(obs: Observation, text: str, *, press_enter: bool = False, **criteria: Any) -> Action | None:
    """``input_text`` into the first matching text field (``clear_text`` when ``text`` is empty: a field
    that must end blank, which ``input_text`` cannot write), or None."""
    i = find(obs, editable=True, **criteria)
    if i is None:
        return None
    if not text:
        return Action(action_type="clear_text", index=i)
    return Action(action_type="input_text", index=i, text=text, press_enter=press_enter or None)


def open_app(phone: Phone, app_key: str) -> Action:
    return Action(action_type="open_app", app_name=phone.app(app_key).name)


def answer(text: str) -> Action:
    return Action(action_type="answer", text=text)


def scroll_toward(phone: Phone, obs: Observation, *, max_scrolls: int = 30, **criteria: Any) -> Action | None:
    """The whole-screen scroll that brings a matching element on screen, or None if none does.

    Tries "down" then "up" on a CLONE of the phone (the real phone is untouched), scrolling until
    the element appears or the list stops moving.
    """
    from droidverify.env.sim.env import probe_scroll

    direction = probe_scroll(phone, lambda o: find(o, **criteria) is not None, max_scrolls=max_scrolls)
    return Action(action_type="scroll", direction=direction) if direction else None


def click_or_scroll(phone: Phone, obs: Observation, **criteria: Any) -> Action:
    """Click a matching element, scrolling toward it first when it is off screen.

    Raises :class:`TaskError` when it exists nowhere in the scrollable content (an oracle bug or
    a task whose set-up did not create what the goal names).
    """
    act = click(obs, **criteria) or scroll_toward(phone, obs, **criteria)
    if act is None:
        raise TaskError(f"oracle: no element matching {criteria} on {phone.location}, even after scrolling")
    return act


NavPath = Sequence[tuple[str, dict[str, Any] | None]]


def navigate(phone: Phone, obs: Observation, app_key: str, path: NavPath) -> Action | None:
    """Next action toward the last screen of ``path`` in app ``app_key``; None once there.

    ``path`` is ``[(screen_name, criteria_of_element_to_click_there), ..., (target_screen, None)]``.
    From anywhere else: popups and keyboard are dismissed, another app is left via ``open_app``,
    screens not on the path are left with back. Dialogs are closed first unless the target
    screen is reached (then the oracle handles the dialog itself).
    """
    names = [name for name, _ in path]
    target = names[-1]
    if phone.foreground != app_key:
        return open_app(phone, app_key)
    scr = phone.screen
    assert scr is not None
    if scr.name == target and scr.name not in names[:-1]:
        return None
    if phone.dialog is not None or phone.menu_open:
        return BACK
    if scr.name in names[:-1]:
        spec = path[names.index(scr.name)][1]
        if spec is None:
            raise TaskError(f"navigate: path step {scr.name!r} needs criteria for what to click")
        return click_or_scroll(phone, obs, **spec)
    if scr.name == target:
        return None
    return BACK


def dismiss_popups(phone: Phone) -> Action | None:
    """BACK while a dialog or menu is open (oracles call it before acting on a screen)."""
    if phone.dialog is not None or phone.menu_open:
        return BACK
    return None


# ---- windows (a dialog or menu over a screen) ------------------------------------------------
def window_of(obs: Observation, kind: str) -> int | None:
    """Index of the top window of ``kind`` ("dialog", "menu", "app"...) on screen, else None."""
    kinds = obs.info.get("windows") or []
    return kinds.index(kind) if kind in kinds else None


def click_in(obs: Observation, kind: str, **criteria: Any) -> Action | None:
    """Click the first element matching ``criteria`` inside the top window of ``kind`` (e.g. "dialog")."""
    w = window_of(obs, kind)
    if w is None:
        return None
    for i, el in enumerate(obs.elements):
        if el.window == w and matches(el, **criteria):
            return Action(action_type="click", index=i)
    return None


def type_in(obs: Observation, text: str, **criteria: Any) -> Action | None:
    """``input_text`` into the first matching text field (no Enter), or None."""
    i = find(obs, editable=True, **criteria)
    return None if i is None else Action(action_type="input_text", index=i, text=text)


def look_first(phone: Phone, key: str, step: Callable[[], Action | None]) -> Action | None:
    """Read a value where it is shown before using it: ``step`` until it says the value is on screen
    (None), then note ``key`` on the phone's event log. An oracle is called afresh at every step and
    reading changes no app data, so the log is how later calls know to go on to the next part."""
    if ("oracle_seen", key) in phone.events:
        return None
    act = step()
    if act is not None:
        return act
    phone.events.append(("oracle_seen", key))
    return None
