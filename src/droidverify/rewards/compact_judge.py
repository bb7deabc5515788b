"""The trained compact judge: P(success) of an episode from a small network over frozen sentence
embeddings -- the compact verifier's encoder (the bundled MiniLM through ``llm.embeddings.TextEncoder``,
frozen, each distinct string embedded once) -- plus numbers that do not depend on English.

Two settings, each with what its paper lets a judge see:

* ``passive``: the goal, the final screen's elements, the agent's answer (or its submit message)
  and how the episode ended, and its last few actions;
* ``evidence`` (SmartSnap): the goal, the agent's submit message and the exhibits it cites (each
  exhibit's action and the screen that action produced) -- nothing else. SmartSnap's format rules
  come first: a malformed submission is a failure without scoring, as in ``rewards.smartsnap``.

``auto`` picks ``evidence`` for an episode that ends in ``submit`` and ``passive`` otherwise.

What goes in (:func:`passive_view`, :func:`evidence_view`) is what a device shows: uiautomator
elements, the goal, the agent's own actions and messages -- never simulator state, so a judge
trained on the simulator runs unchanged on episodes from a phone. Each element is one string
(class, text, content description, resource id, hint, state) and a few numbers (state flags,
position, which goal slot values it shows, whether its row shows them). Goal slot values -- quoted
strings, times, numbers, file names, capitalised names -- are found by pattern, not by English
words, and compared with the screen, the answer and the text the agent typed.

The network (:class:`JudgeNet`): one token for the goal, one for the answer / message, one per
action and one per element, a transformer across them with no positions (the verdict does not
depend on the order elements are listed in), then the goal token and mean- and max-pooled tokens
with the episode's numbers -> one logit. Success iff P(success) >= the threshold stored with the
judge (chosen on train-template data when it was trained, never on validation or test).

A judge directory::

    judge.json          format, settings and the threshold of each, feature version, encoder, network
    model.safetensors   the network's weights
    provenance.json     command, commit, data and metrics (the training command writes it)
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from droidverify.actions.model import Action
from droidverify.agents.screen import sanitize_screen_text
from droidverify.agents.verifier.proposals import propose_values
from droidverify.env.records import Observation, Trajectory
from droidverify.errors import CheckpointError, DroidVerifyError, JudgeInputError
from droidverify.llm.embeddings import EMBEDDER_NAME, TextEncoder
from droidverify.rewards.base import Judgement, Tally, trajectory_id
from droidverify.ui.element import UIElement

FORMAT = "droidverify-compact-judge"
FORMAT_VERSION = 1
# 2: typed values against the values the goal gives (exact / one edit off); 3: values one digit off
# the goal's or the answer's (near_slot, claim_near, claim_near_screen, slot_near_in_row). A version
# only adds names: a checkpoint reads the columns it was trained on by name, so older judges still load.
FEATURE_VERSION = 3
OLDEST_FEATURE_VERSION = 2  # the oldest whose numbers this code still computes as they were (checked)
SETTINGS = ("passive", "evidence")  # the papers' settings (an LLM judge has these two)
CHOICES = (*SETTINGS, "auto")  # what a caller may ask for; auto: evidence iff the episode submits
# The compact judge's own third setting: the whole episode (every action, every screen), read
# where the final screen cannot show the outcome (a count, a value saved and scrolled away).
TRAJECTORY = "trajectory"
COMPACT_SETTINGS = (*SETTINGS, TRAJECTORY)
COMPACT_CHOICES = (*COMPACT_SETTINGS, "auto")
JUDGE_FILE = "judge.json"
WEIGHTS_FILE = "model.safetensors"
MAX_ACTIONS = 6  # the passive setting's "last few actions"
MAX_ELEMENTS = 80  # a final screen (the simulator's screens hold 20-60)
MAX_EXHIBITS = 6  # screens read from one submission (SmartSnap asks for 1-3; more are penalised there)
MAX_EVIDENCE_ELEMENTS = 160  # elements over all exhibits, shared ones counted once
MAX_TRAJECTORY_ACTIONS = 30  # the trajectory setting: actions from the last
MAX_EARLIER_ELEMENTS = 120  # the trajectory setting: elements of earlier screens not on the final one
MAX_ROW_LABELS = 8  # labels in a row or card; an ancestor with more is a whole screen
GOAL, CLAIM, ACTION, ELEMENT = 0, 1, 2, 3  # token types

ACTION_KINDS = ("click", "long_press", "input_text", "clear_text", "scroll", "open_app", "navigate_back",
                "navigate_home", "answer", "wait", "other")
TERMINATIONS = ("complete", "infeasible", "submit", "step_limit", "other")
ELEMENT_NUMERIC: tuple[str, ...] = (
    "checkable", "checked", "selected", "editable", "field_filled", "clickable", "scrollable", "focused",
    "password", "y_center", "x_center", "area",
    "slot_frac", "slot_any", "quoted_hit", "time_hit", "number_hit", "name_hit", "equals_slot",
    # exhibit_share: evidence, the share of exhibits showing it; trajectory, minus the share of
    # screens showing it for an element that is not on the final screen (0 on the final screen)
    "row_slot_frac", "in_claim", "claim_number_hit", "exhibit_share",
)
ACTION_NUMERIC: tuple[str, ...] = (
    *(f"act_{k}" for k in ACTION_KINDS), "recency", "act_error", "typed_slot_frac", "typed_equals_slot",
    "typed_from_goal", "typed_near_goal",
)
# version 3, elements: shows a goal number or time one digit off and not the goal's own; shows a
# number one digit off the answer's (a wrong value saved, an answer misread)
ELEMENT_NUMERIC_3: tuple[str, ...] = ("near_slot", "claim_near")
TOKEN_NUMERIC: tuple[str, ...] = (*ELEMENT_NUMERIC, *ACTION_NUMERIC, *ELEMENT_NUMERIC_3)
# what tells an element's relation to this goal and answer (a distractor from another task has none)
GOAL_RELATIVE: tuple[str, ...] = (*ELEMENT_NUMERIC[ELEMENT_NUMERIC.index("slot_frac"):
                                                  ELEMENT_NUMERIC.index("claim_number_hit") + 1],
                                  *ELEMENT_NUMERIC_3)
GLOBAL_NUMERIC: tuple[str, ...] = (
    "setting_evidence", "declared_done", *(f"end_{t}" for t in TERMINATIONS),
    "answer_given", "answer_numeric", "claim_given", "steps", "errors",
    "has_slots", "slots", "has_quoted", "slots_on_screen", "quoted_on_screen", "numbers_on_screen",
    "best_row_slots", "slots_static", "slots_only_in_fields", "slots_near_only", "slots_in_claim",
    "claim_on_screen", "claim_numbers_on_screen",
    "slots_typed", "typed_equals_slot", "typed_from_goal", "typed_near_goal", "filled_fields", "on_launcher", "elements",
    "exhibits", "no_exhibits", "many_exhibits",
    # version 3: the answer's number is not shown but one a digit off it is; a goal number or time
    # shown only one digit off, in a row that shows another of the goal's values (the edited item)
    "claim_near_screen", "slot_near_in_row",
)

# ---------------------------------------------------------------------------------- goal slots

_QUOTED_RE = re.compile(r"\"([^\"]{1,80})\"|“([^”]{1,80})”|(?:^|\s)'([^']{1,80})'")
_TIME_RE = re.compile(r"\b\d{1,2}:\d{2}(?:\s?[AaPp]\.?[Mm]\b\.?)?")
_NUMBER_RE = re.compile(r"\d+(?:[.,:]\d+)*")
_FILE_RE = re.compile(r"\b[\w-]+\.[A-Za-z][A-Za-z0-9]{1,4}\b")
_NAME_RE = re.compile(r"\b[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*")
_SENTENCE_START_RE = re.compile(r"(?:^|[.!?:;]\s+|\n)$")
_WS_RE = re.compile(r"\s+")


@dataclass(frozen=True)
class Slot:
    """A value the goal names: ``kind`` is quoted | time | number | file | name; ``text`` lowercased."""

    kind: str
    text: str


def _norm(text: str | None) -> str:
    return _WS_RE.sub(" ", (text or "").lower()).strip()


def numbers_in(text: str | None) -> set[str]:
    """The digit groups of a string (``7:05``, ``57.25``, ``0324``): numbers compared as written."""
    return set(_NUMBER_RE.findall(text or ""))


def goal_slots(goal: str) -> list[Slot]:
    """The values a goal names, found by pattern: quoted strings, times, numbers, file names and
    capitalised names that do not start a sentence (a name inside quotes counts once, as quoted)."""
    slots: list[Slot] = []
    taken: list[tuple[int, int]] = []

    def add(kind: str, text: str, span: tuple[int, int]) -> None:
        text = _norm(text)
        if text and Slot(kind, text) not in slots:
            slots.append(Slot(kind, text))
        taken.append(span)

    def free(span: tuple[int, int]) -> bool:
        return not any(a < span[1] and span[0] < b for a, b in taken)

    for m in _QUOTED_RE.finditer(goal):
        q = next((g for g in m.groups() if g), "")
        add("quoted", q, m.span())
    for m in _TIME_RE.finditer(goal):
        if free(m.span()):
            add("time", m.group(), m.span())
    for m in _FILE_RE.finditer(goal):
        if free(m.span()) and not _NUMBER_RE.fullmatch(m.group()):
            add("file", m.group(), m.span())
    for m in _NUMBER_RE.finditer(goal):
        if free(m.span()):
            add("number", m.group(), m.span())
    for m in _NAME_RE.finditer(goal):
        if free(m.span()) and len(m.group()) > 1 and not _SENTENCE_START_RE.search(goal[:m.start()]):
            add("name", m.group(), m.span())
    return slots


def near_hit(slot: Slot, text: str, numbers: set[str]) -> bool:
    """A value written almost as the goal names it: a number (or a time's digits) of the same length
    that differs in one digit, or a string whose first or last 70% (at least 3 characters) appears. A screen that
    shows only such near values shows a wrong value (a typo, another item), not the goal's."""
    if slot.kind in ("number", "time"):
        want = _slot_digits(slot) or slot.text
        return any(_one_char_apart(n, want) for n in numbers)
    k = max(3, math.ceil(0.7 * len(slot.text)))
    return len(slot.text) > 3 and (slot.text[:k] in text or slot.text[-k:] in text)


def _one_char_apart(a: str, b: str) -> bool:
    return len(a) == len(b) and sum(x != y for x, y in zip(a, b, strict=True)) == 1


def digit_off(a: str, b: str) -> bool:
    """Two numbers as written (``11:55``, ``70.9``) of the same length, at least two characters,
    that differ in exactly one character: a minute, a cent or a year off. Single digits are left out:
    any two of them would count."""
    return len(a) >= 2 and _one_char_apart(a, b)


def _slot_digits(slot: Slot) -> str | None:
    """The digits a number or time slot is compared by (``11:55 am`` -> ``11:55``), None for other kinds."""
    if slot.kind not in ("number", "time"):
        return None
    m = _NUMBER_RE.search(slot.text)
    return m.group() if m else None


def near_only(slots: Sequence[Slot], numbers: set[str], hits: Sequence[bool]) -> list[bool]:
    """Which number or time slots a string shows one digit off and not as the goal writes them."""
    out = []
    for slot, hit in zip(slots, hits, strict=True):
        want = _slot_digits(slot)
        out.append(bool(want) and not hit and want not in numbers and any(digit_off(n, want) for n in numbers))
    return out


def claim_off(claim_numbers: set[str], numbers: set[str]) -> bool:
    """``numbers`` hold one a digit off a number of the answer that they do not hold themselves."""
    return any(c not in numbers and any(digit_off(n, c) for n in numbers) for c in claim_numbers)


@functools.lru_cache(maxsize=256)
def goal_values(goal: str) -> frozenset[str]:
    """What a form may be given from the goal, lowercased: its slots and the verifier's proposals for
    a text field (quoted strings, names, e-mails, and the pieces of times and dates: "9:00 AM" also
    gives "9", "09", "00")."""
    values = {_norm(v) for v in propose_values("input_text", goal, [], "", limit=64)}
    return frozenset(v for v in values | {s.text for s in goal_slots(goal)} if v)


def _one_edit(a: str, b: str) -> bool:
    """``a`` and ``b`` differ by exactly one character changed, added or dropped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = next((k for k, (x, y) in enumerate(zip(short, long_)) if x != y), len(short))
    return short[i:] == long_[i + 1:]


def typed_vs_goal(typed: str, values: frozenset[str]) -> tuple[bool, bool]:
    """(the typed value is one the goal gives, it is one edit off such a value and equals none):
    a value one character off (a typo, a minute off, a truncated name) is the commonest wrong value
    a form is saved with, and a final screen need not show it."""
    t = _norm(typed)
    if not t:
        return False, False
    if t in values:
        return True, False
    return False, any(_one_edit(t, v) for v in values)


def slot_hits(slots: Sequence[Slot], text: str, numbers: set[str]) -> list[bool]:
    """Which slots a string shows: numbers as whole digit groups, everything else as a substring."""
    return [(s.text in numbers) if s.kind == "number" else (s.text in text) for s in slots]


# ---------------------------------------------------------------------------------- views


@dataclass
class Token:
    text: str  # embedded
    kind: int  # ACTION | ELEMENT
    numeric: list[float]


@dataclass
class JudgeView:
    """One episode as a compact judge reads it (one setting)."""

    setting: str
    goal: str
    claim: str  # the answer (or submit message) in the passive setting; the message in the evidence one
    tokens: list[Token] = field(default_factory=list)
    numeric: list[float] = field(default_factory=list)  # GLOBAL_NUMERIC

    def strings(self) -> list[str]:
        return [self.goal, self.claim, *(t.text for t in self.tokens)]


def _short_class(el: UIElement) -> str:
    return (el.class_name or "").rsplit(".", 1)[-1]


def element_text(el: UIElement) -> str:
    """One element as a string: class, text, description, id name, hint, state (no screen ids, so
    the same element on another screen or episode is the same string and embedded once)."""
    parts = [_short_class(el) or "node"]
    if el.text:
        parts.append(f"'{sanitize_screen_text(el.text, max_len=80)}'")
    if el.content_description and el.content_description != el.text:
        parts.append(f"desc '{sanitize_screen_text(el.content_description, max_len=80)}'")
    if el.resource_name:
        parts.append(f"id {el.resource_name.replace('_', ' ')}")
    if el.hint_text and el.hint_text != el.text:
        parts.append(f"hint '{sanitize_screen_text(el.hint_text, max_len=40)}'")
    if el.is_checkable:
        parts.append("checked" if el.is_checked else "unchecked")
    if el.is_selected:
        parts.append("selected")
    if el.is_editable:
        parts.append("editable")
    return " ".join(parts)


def action_text(action: Action, elements: Sequence[UIElement]) -> str:
    """An action as a string: its kind, the element it acts on (as :func:`element_text`) and the
    value it carries."""
    t = action.action_type
    parts = [f"scroll {action.direction}" if t == "scroll" else t.replace("_", " ")]
    if action.index is not None and 0 <= action.index < len(elements):
        parts.append(element_text(elements[action.index]))
    value = action.app_name if t == "open_app" else action.text if t in ("input_text", "answer") else None
    if value:
        parts.append(f"value '{sanitize_screen_text(value, max_len=120)}'")
    return " ".join(parts)


def _row_text(el: UIElement, memo: dict[int, str]) -> str:
    """Lowercased labels of the row or card around an element (its nearest ancestor that holds
    other labels), so that a value and its neighbours (an alarm's time and its switch) are read
    together. An ancestor with more than :data:`MAX_ROW_LABELS` labels is a screen, not a row: none."""
    node = el.parent
    for _ in range(3):
        if node is None:
            return ""
        text = memo.get(id(node))
        if text is None:
            labels = [_norm(x.text) + " " + _norm(x.content_description) for x in node.iter()
                      if x.text or x.content_description]
            text = " | ".join(labels) if 1 < len(labels) <= MAX_ROW_LABELS else ("-" if labels else "")
            memo[id(node)] = text
        if text == "-":
            return ""
        if text:
            return text
        node = node.parent
    return ""


@dataclass
class _Seen:
    """An element with what the features compare: its lowercased text and digit groups."""

    el: UIElement
    string: str
    low: str
    numbers: set[str]
    row: str
    screen_size: tuple[int, int]


def _screen(obs: Observation | None) -> list[_Seen]:
    if obs is None:
        return []
    memo: dict[int, str] = {}
    out = []
    for el in obs.elements:
        low = _norm(f"{el.text or ''} {el.content_description or ''}")
        out.append(_Seen(el, element_text(el), low, numbers_in(low), _row_text(el, memo), obs.screen_size))
    return out


def _element_numeric(seen: _Seen, slots: Sequence[Slot], claim_low: str, claim_numbers: set[str],
                     share: float) -> list[float]:
    el = seen.el
    hits = slot_hits(slots, seen.low, seen.numbers)
    row_hits = slot_hits(slots, seen.row, numbers_in(seen.row)) if seen.row else [False] * len(slots)
    kinds = {s.kind for s, h in zip(slots, hits, strict=True) if h}
    w, h = max(seen.screen_size[0], 1), max(seen.screen_size[1], 1)
    box = el.bbox_pixels
    filled = bool(el.is_editable and el.text and el.text != el.hint_text)
    label = _norm(el.text or el.content_description)
    nums = [
        float(el.is_checkable), float(el.is_checked), float(el.is_selected), float(el.is_editable), float(filled),
        float(el.is_clickable), float(el.is_scrollable), float(el.is_focused), float(el.is_password),
        box.center[1] / h if box is not None else -1.0, box.center[0] / w if box is not None else -1.0,
        min(box.area / (w * h), 1.0) if box is not None else 0.0,
        sum(hits) / len(slots) if slots else 0.0, float(any(hits)), float("quoted" in kinds),
        float("time" in kinds), float("number" in kinds), float("name" in kinds or "file" in kinds),
        float(any(s.text == label for s in slots)),
        (sum(a or b for a, b in zip(hits, row_hits, strict=True)) / len(slots)) if slots else 0.0,
        float(len(label) > 1 and label in claim_low), float(bool(claim_numbers & seen.numbers)), share,
    ]
    extra = [float(any(near_only(slots, seen.numbers, hits))), float(claim_off(claim_numbers, seen.numbers))]
    return nums + [0.0] * len(ACTION_NUMERIC) + extra


def _action_kind(action: Action) -> str:
    return action.action_type if action.action_type in ACTION_KINDS else "other"


def _action_numeric(action: Action, recency: float, error: bool, slots: Sequence[Slot],
                    values: frozenset[str]) -> list[float]:
    typed = _norm(action.text) if action.action_type == "input_text" else ""
    hits = slot_hits(slots, typed, numbers_in(typed)) if typed else [False] * len(slots)
    kind = _action_kind(action)
    exact, near = typed_vs_goal(typed, values)
    tail = [*(float(kind == k) for k in ACTION_KINDS), recency, float(error),
            sum(hits) / len(slots) if slots and typed else 0.0, float(bool(typed) and any(s.text == typed for s in slots)),
            float(exact), float(near)]
    return [0.0] * len(ELEMENT_NUMERIC) + tail + [0.0] * len(ELEMENT_NUMERIC_3)


def _priority(token: Token) -> tuple[float, str, tuple[float, ...]]:
    # Elements that show goal values first, then a fixed order: capping keeps the relevant ones and
    # the kept set does not depend on the order the dump lists elements in.
    return (-token.numeric[TOKEN_NUMERIC.index("slot_frac")] - token.numeric[TOKEN_NUMERIC.index("row_slot_frac")],
            token.text, tuple(token.numeric))


def _screen_numbers(screen: Sequence[_Seen], slots: Sequence[Slot], claim: str) -> dict[str, float]:
    """How much of the goal (and of the claim's numbers) a set of elements shows."""
    n = len(slots)
    shown = [False] * n
    static = [False] * n
    fields = [False] * n
    near = [False] * n
    near_in_row = [False] * n  # one digit off, in a row showing another slot
    best_row = 0.0
    claim_low = _norm(claim)
    claim_shown = False
    for s in screen:
        hits = slot_hits(slots, s.low, s.numbers)
        near = [a or near_hit(sl, s.low, s.numbers) for a, sl in zip(near, slots, strict=True)]
        claim_shown |= bool(claim_low) and claim_low in s.low
        row_hits = slot_hits(slots, s.row, numbers_in(s.row)) if s.row else [False] * n
        off = near_only(slots, s.numbers, hits)
        for i, o in enumerate(off):
            if o and any(h for j, h in enumerate(row_hits) if j != i):
                near_in_row[i] = True
        for i, hit in enumerate(hits):
            shown[i] |= hit
            if s.el.is_editable:
                fields[i] |= hit
            else:
                static[i] |= hit
        if n:
            best_row = max(best_row, sum(a or b for a, b in zip(hits, row_hits, strict=True)) / n)
    quoted = [i for i, sl in enumerate(slots) if sl.kind == "quoted"]
    numeric = [i for i, sl in enumerate(slots) if sl.kind in ("number", "time")]
    all_numbers: set[str] = set()
    for s in screen:
        all_numbers |= s.numbers
    claim_numbers = numbers_in(claim)
    numeric_slots = [i for i, sl in enumerate(slots) if _slot_digits(sl)]
    long_claim = {c for c in claim_numbers if len(c) >= 2}
    return {
        "slots_on_screen": sum(shown) / n if n else -1.0,
        "quoted_on_screen": sum(shown[i] for i in quoted) / len(quoted) if quoted else -1.0,
        "numbers_on_screen": sum(shown[i] for i in numeric) / len(numeric) if numeric else -1.0,
        "best_row_slots": best_row if n else -1.0,
        "slots_static": sum(static) / n if n else -1.0,
        "slots_only_in_fields": sum(f and not st for f, st in zip(fields, static, strict=True)) / n if n else -1.0,
        "slots_near_only": sum(a and not b for a, b in zip(near, shown, strict=True)) / n if n else -1.0,
        "claim_on_screen": float(claim_shown) if claim_low else -1.0,
        "claim_numbers_on_screen": (len(claim_numbers & all_numbers) / len(claim_numbers)) if claim_numbers else -1.0,
        "filled_fields": min(sum(bool(s.el.is_editable and s.el.text and s.el.text != s.el.hint_text)
                                 for s in screen), 5) / 5.0,
        "on_launcher": float(any("launcher" in (s.el.package_name or "").lower() for s in screen[:3])),
        "elements": min(len(screen), 200) / 100.0,
        "claim_near_screen": float(claim_off(long_claim, all_numbers)) if long_claim else -1.0,
        "slot_near_in_row": float(any(near_in_row[i] and not shown[i] for i in numeric_slots)) if numeric_slots else -1.0,
    }


def _globals(values: dict[str, float]) -> list[float]:
    return [float(values.get(name, 0.0)) for name in GLOBAL_NUMERIC]


def _termination(traj: Trajectory) -> str:
    end = traj.termination or (traj.metadata.get("termination") if isinstance(traj.metadata, dict) else None)
    if end is None and traj.steps and traj.steps[-1].action is not None:
        last = traj.steps[-1].action
        end = "submit" if last.action_type == "submit" else last.goal_status if last.action_type == "status" else None
    return end if end in TERMINATIONS else "other"


def _claim_numbers(slots: Sequence[Slot], claim: str) -> dict[str, float]:
    low = _norm(claim)
    hits = slot_hits(slots, low, numbers_in(low)) if low else []
    return {"claim_given": float(bool(low)), "slots_in_claim": (sum(hits) / len(slots)) if slots and low else -1.0,
            "has_slots": float(bool(slots)), "slots": min(len(slots), 8) / 8.0,
            "has_quoted": float(any(s.kind == "quoted" for s in slots))}


def _typed_numbers(typed: Sequence[str], values: frozenset[str]) -> dict[str, float]:
    pairs = [typed_vs_goal(t, values) for t in typed]
    return {"typed_from_goal": sum(e for e, _ in pairs) / len(pairs) if pairs else -1.0,
            "typed_near_goal": float(any(n for _, n in pairs))}


def _last_screen(traj: Trajectory) -> Observation | None:
    if traj.final_observation is not None:
        return traj.final_observation
    return traj.steps[-1].observation if traj.steps else None


def passive_view(traj: Trajectory) -> JudgeView:
    """The passive setting: goal, final screen, answer and ending, last few actions."""
    return _passive(traj, MAX_ACTIONS)[0]


def _passive(traj: Trajectory, max_actions: int) -> tuple[JudgeView, list[Slot], list[_Seen]]:
    """The passive view with the last ``max_actions`` actions, and what it computed on the way (the
    goal's slots, the final screen) for a view that reads more."""
    goal = sanitize_screen_text(traj.goal, max_len=400)
    slots = goal_slots(goal)
    given = goal_values(goal)
    last = traj.steps[-1].action if traj.steps else None
    message = last.text if last is not None and last.action_type == "submit" else None
    claim = sanitize_screen_text(traj.answer or message or "", max_len=200)
    claim_low = _norm(claim)
    screen = _screen(_last_screen(traj))
    view = JudgeView("passive", goal, claim)
    claim_numbers = numbers_in(claim_low)
    elements = [Token(s.string, ELEMENT, _element_numeric(s, slots, claim_low, claim_numbers, 0.0)) for s in screen]
    view.tokens += sorted(elements, key=_priority)[:MAX_ELEMENTS]
    acted = [s for s in traj.steps if s.action is not None and not s.action.is_terminal]
    recent = acted[-max_actions:]
    typed_hits = [False] * len(slots)
    typed_exact = False
    typed_all: list[str] = []
    for k, step in enumerate(reversed(recent)):
        assert step.action is not None
        view.tokens.append(Token(action_text(step.action, step.observation.elements), ACTION,
                                 _action_numeric(step.action, k / max_actions, step.error is not None, slots,
                                                 given)))
    for step in acted:  # text typed anywhere in the episode: the values the agent entered
        assert step.action is not None
        if step.action.action_type == "input_text" and step.action.text:
            typed = _norm(step.action.text)
            typed_all.append(typed)
            typed_hits = [a or b for a, b in zip(typed_hits, slot_hits(slots, typed, numbers_in(typed)),
                                                 strict=True)]
            typed_exact |= any(s.text == typed for s in slots)
    end = _termination(traj)
    values: dict[str, float] = {
        "declared_done": float(traj.declared_done), **{f"end_{t}": float(end == t) for t in TERMINATIONS},
        "answer_given": float(bool(traj.answer)),
        "answer_numeric": float(bool(traj.answer) and bool(numbers_in(traj.answer))),
        "steps": min(len(traj.steps), 40) / 20.0,
        "errors": min(sum(s.error is not None for s in traj.steps), 5) / 5.0,
        "slots_typed": sum(typed_hits) / len(slots) if slots else -1.0, "typed_equals_slot": float(typed_exact),
        **_typed_numbers(typed_all, given),
        **_claim_numbers(slots, claim), **_screen_numbers(screen, slots, claim),
    }
    view.numeric = _globals(values)
    return view, slots, screen


def evidence_view(traj: Trajectory, evidences: Sequence[int], message: str) -> JudgeView:
    """The evidence setting: goal, the submit message and the cited exhibits (each its action and
    the screen it produced). ``evidences`` must already be valid round ids (``check_submit``)."""
    from droidverify.rewards.prompts.common import screen_after

    goal = sanitize_screen_text(traj.goal, max_len=400)
    slots = goal_slots(goal)
    values = goal_values(goal)
    claim = sanitize_screen_text(message, max_len=200)
    claim_low = _norm(claim)
    claim_numbers = numbers_in(claim_low)
    view = JudgeView("evidence", goal, claim)
    cited = list(dict.fromkeys(evidences))[:MAX_EXHIBITS]
    screens: list[list[_Seen]] = []
    for rid in cited:
        step = traj.steps[rid]
        if step.action is not None:
            view.tokens.append(Token(action_text(step.action, step.observation.elements), ACTION,
                                     _action_numeric(step.action, 0.0, step.error is not None, slots, values)))
        screens.append(_screen(screen_after(traj.steps, rid, traj.final_observation)))
    # One token per distinct element over the exhibits, with the share of exhibits that show it.
    merged: dict[str, tuple[_Seen, int]] = {}
    for screen in screens:
        for s in {x.string + "\0" + x.row: x for x in screen}.values():
            key = s.string + "\0" + s.row
            merged[key] = (merged[key][0], merged[key][1] + 1) if key in merged else (s, 1)
    elements = [Token(s.string, ELEMENT, _element_numeric(s, slots, claim_low, claim_numbers, k / max(len(screens), 1)))
                for s, k in merged.values()]
    view.tokens += sorted(elements, key=_priority)[:MAX_EVIDENCE_ELEMENTS]
    everything = [s for screen in screens for s in screen]
    cited_actions = [a for a in (traj.steps[r].action for r in cited) if a is not None]
    typed = [_norm(a.text) for a in cited_actions if a.action_type == "input_text" and a.text]
    typed_hits = [any(h) for h in zip(*(slot_hits(slots, t, numbers_in(t)) for t in typed), strict=True)] \
        if typed and slots else []
    values: dict[str, float] = {
        "setting_evidence": 1.0, "declared_done": 1.0, "end_submit": 1.0,
        "slots_typed": (sum(typed_hits) / len(slots)) if slots else -1.0,
        "typed_equals_slot": float(any(s.text == t for s in slots for t in typed)),
        **_typed_numbers(typed, values),
        "exhibits": min(len(evidences), 8) / 4.0, "no_exhibits": float(not evidences),
        "many_exhibits": float(len(evidences) > 3),
        **_claim_numbers(slots, claim), **_screen_numbers(everything, slots, claim),
    }
    values["elements"] = min(len(merged), 200) / 100.0
    view.numeric = _globals(values)
    return view


def trajectory_view(traj: Trajectory) -> JudgeView:
    """The trajectory setting: the passive view with every action (up to
    :data:`MAX_TRAJECTORY_ACTIONS`) and the elements of earlier screens that the final screen no
    longer shows (each with minus the share of screens showing it), so that what was counted, read
    or saved before the last screen can be judged."""
    view, slots, final_screen = _passive(traj, MAX_TRAJECTORY_ACTIONS)
    view.setting = TRAJECTORY
    claim_low = _norm(view.claim)
    claim_numbers = numbers_in(claim_low)
    final = {x.string + "\0" + x.row for x in final_screen}
    earlier: dict[str, tuple[_Seen, int]] = {}
    for step in traj.steps:
        for key, seen in {x.string + "\0" + x.row: x for x in _screen(step.observation)}.items():
            if key not in final:
                earlier[key] = (earlier[key][0], earlier[key][1] + 1) if key in earlier else (seen, 1)
    n = max(len(traj.steps), 1)
    elements = [Token(s.string, ELEMENT, _element_numeric(s, slots, claim_low, claim_numbers, -k / n))
                for s, k in earlier.values()]
    view.tokens += sorted(elements, key=_priority)[:MAX_EARLIER_ELEMENTS]
    return view


def view_of(traj: Trajectory, setting: str) -> JudgeView | None:
    """The view of ``traj`` in ``setting`` (``passive``, ``evidence`` or ``trajectory``); None for an
    evidence-setting episode whose submission breaks SmartSnap's format rules (judged a failure
    without scoring)."""
    if setting == "passive":
        return passive_view(traj)
    if setting == TRAJECTORY:
        return trajectory_view(traj)
    if setting == "evidence":
        from droidverify.rewards.smartsnap import check_submit

        check = check_submit(traj)
        return evidence_view(traj, check.evidences, check.message) if check.ok else None
    raise JudgeInputError(f"unknown judge setting {setting!r}; use one of {', '.join(COMPACT_SETTINGS)}")


def setting_for(traj: Trajectory, setting: str) -> str:
    """``setting``, with ``auto`` resolved: evidence for an episode that ends in submit."""
    if setting not in COMPACT_CHOICES:
        raise JudgeInputError(f"unknown judge setting {setting!r}; use one of {', '.join(COMPACT_CHOICES)}")
    if setting != "auto":
        return setting
    last = traj.steps[-1].action if traj.steps else None
    return "evidence" if last is not None and last.action_type == "submit" else "passive"


# ---------------------------------------------------------------------------------- network


@dataclass
class JudgeNetConfig:
    emb_dim: int = 384
    n_token_numeric: int = len(TOKEN_NUMERIC)
    n_global: int = len(GLOBAL_NUMERIC)
    d_model: int = 64
    layers: int = 1
    heads: int = 4
    ff: int = 128
    dropout: float = 0.1

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def build_net(cfg: JudgeNetConfig) -> Any:
    """A :class:`JudgeNet` (torch imports here, so the judge module loads without it)."""
    import torch
    from torch import nn

    class JudgeNet(nn.Module):
        """[goal, claim, actions..., elements...] -> transformer (no positions) -> pooled -> logit."""

        def __init__(self, cfg: JudgeNetConfig) -> None:
            super().__init__()
            self.cfg = cfg
            d, e = cfg.d_model, cfg.emb_dim
            self.goal_proj = nn.Linear(e, d)
            self.claim_proj = nn.Linear(2 * e + 1, d)
            # a token: its embedding, its product with the goal's (what matches the goal), the
            # cosine with the goal, and its numbers
            self.tok_proj = nn.Sequential(nn.Linear(2 * e + 1 + cfg.n_token_numeric, d), nn.GELU(), nn.Linear(d, d))
            self.kind = nn.Embedding(4, d)
            if cfg.layers > 0:
                layer = nn.TransformerEncoderLayer(d, cfg.heads, cfg.ff, cfg.dropout, batch_first=True,
                                                   norm_first=True)
                self.encoder: nn.Module | None = nn.TransformerEncoder(layer, cfg.layers, enable_nested_tensor=False)
            else:
                self.encoder = None
            self.glob = nn.Sequential(nn.Linear(cfg.n_global, d), nn.GELU())
            self.head = nn.Sequential(nn.LayerNorm(4 * d), nn.Linear(4 * d, d), nn.GELU(), nn.Dropout(cfg.dropout),
                                      nn.Linear(d, 1))

        def forward(self, goal: torch.Tensor, claim: torch.Tensor, tok: torch.Tensor, tok_kind: torch.Tensor,
                    tok_num: torch.Tensor, tok_mask: torch.Tensor, glob: torch.Tensor) -> torch.Tensor:
            """goal/claim [B,E]; tok [B,T,E], tok_kind [B,T] (long), tok_num [B,T,F], tok_mask [B,T]
            (True = present); glob [B,G]. Returns [B] logits."""
            s = self.cfg.emb_dim ** 0.5  # unit-norm embeddings have entries ~1/sqrt(E): scale to ~1
            g = goal.unsqueeze(1)
            cos_tok = (tok * g).sum(-1, keepdim=True)
            cos_claim = (claim * goal).sum(-1, keepdim=True)
            goal_s, claim_s, tok_s = goal * s, claim * s, tok * s
            x_goal = self.goal_proj(goal_s) + self.kind.weight[GOAL]
            x_claim = self.claim_proj(torch.cat([claim_s, claim_s * goal_s, cos_claim], -1)) + self.kind.weight[CLAIM]
            x_tok = self.tok_proj(torch.cat([tok_s, tok_s * goal_s.unsqueeze(1), cos_tok, tok_num], -1)) \
                + self.kind(tok_kind)
            x = torch.cat([x_goal.unsqueeze(1), x_claim.unsqueeze(1), x_tok], 1)
            b = goal.shape[0]
            present = torch.cat([torch.ones(b, 2, dtype=torch.bool, device=goal.device), tok_mask], 1)
            if self.encoder is not None:
                x = self.encoder(x, src_key_padding_mask=~present)
            m = tok_mask.unsqueeze(-1).to(x.dtype)
            toks = x[:, 2:]
            mean = (toks * m).sum(1) / m.sum(1).clamp(min=1.0)
            mx = toks.masked_fill(~tok_mask.unsqueeze(-1), -1e4).max(1).values if toks.shape[1] else torch.zeros_like(mean)
            mx = torch.where(tok_mask.any(1, keepdim=True), mx, torch.zeros_like(mx))
            return self.head(torch.cat([x[:, 0], mean, mx, self.glob(glob)], -1)).squeeze(-1)

    return JudgeNet(cfg)


def build_ensemble(nets: Sequence[Any]) -> Any:
    """Judge networks of one shape trained from different seeds, judging as one: the logit of their
    mean P(success) (a deep ensemble: steadier on templates none of them saw)."""
    import torch
    from torch import nn

    if len(nets) < 2:
        raise ValueError(f"an ensemble needs at least 2 networks, got {len(nets)}")
    if len({tuple(sorted(n.cfg.to_dict().items())) for n in nets}) != 1:
        raise ValueError("the networks of an ensemble must share one JudgeNetConfig")

    class JudgeEnsemble(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.members = nn.ModuleList(nets)
            self.cfg = nets[0].cfg

        def forward(self, **inputs: torch.Tensor) -> torch.Tensor:
            logits = torch.stack([m(**inputs) for m in self.members])  # [K, B]
            k = math.log(len(self.members))
            log_p = torch.nn.functional.logsigmoid(logits).logsumexp(0) - k
            log_q = torch.nn.functional.logsigmoid(-logits).logsumexp(0) - k
            return log_p - log_q

    return JudgeEnsemble()


def feature_columns(token_names: Sequence[str], global_names: Sequence[str]) -> tuple[list[int], list[int]]:
    """Where a checkpoint's feature names sit in what this code computes (``CheckpointError`` for a
    name it does not compute)."""
    missing = [n for n in token_names if n not in TOKEN_NUMERIC] + [n for n in global_names if n not in GLOBAL_NUMERIC]
    if missing:
        raise CheckpointError(f"the judge reads features this droidverify does not compute: {missing[:5]}; "
                              f"retrain it (feature version {FEATURE_VERSION})")
    return [TOKEN_NUMERIC.index(n) for n in token_names], [GLOBAL_NUMERIC.index(n) for n in global_names]


def batch_tensors(views: Sequence[JudgeView], encoder: TextEncoder,
                  columns: tuple[Sequence[int], Sequence[int]] | None = None) -> dict[str, Any]:
    """Pad views into the network's inputs, embedding every string through ``encoder``; ``columns``
    (token, global) keeps the numbers a checkpoint of an older feature version reads (all: None)."""
    import numpy as np
    import torch

    strings = [s for v in views for s in v.strings()]
    emb = encoder.encode(strings)
    e = emb.shape[1] if emb.ndim == 2 and emb.shape[0] else encoder.dimension()
    b = len(views)
    t = max((len(v.tokens) for v in views), default=0)
    f = len(TOKEN_NUMERIC)
    goal = np.zeros((b, e), np.float32)
    claim = np.zeros((b, e), np.float32)
    tok = np.zeros((b, t, e), np.float32)
    kind = np.full((b, t), ELEMENT, np.int64)
    num = np.zeros((b, t, f), np.float32)
    mask = np.zeros((b, t), bool)
    glob = np.zeros((b, len(GLOBAL_NUMERIC)), np.float32)
    pos = 0
    for i, v in enumerate(views):
        k = len(v.tokens)
        goal[i], claim[i] = emb[pos], emb[pos + 1]
        pos += 2
        if k:
            tok[i, :k] = emb[pos:pos + k]
            kind[i, :k] = [x.kind for x in v.tokens]
            num[i, :k] = np.asarray([x.numeric for x in v.tokens], np.float32)
            mask[i, :k] = True
        pos += k
        glob[i] = v.numeric
    if columns is not None:
        num, glob = num[:, :, list(columns[0])], glob[:, list(columns[1])]
    n = torch.from_numpy
    return {"goal": n(goal), "claim": n(claim), "tok": n(tok), "tok_kind": n(kind),
            "tok_num": n(np.ascontiguousarray(num)), "tok_mask": n(mask), "glob": n(np.ascontiguousarray(glob))}


# ---------------------------------------------------------------------------------- on disk


def shipped_judge_path() -> Path:
    """The trained compact judges shipped in the package: ``passive/`` and ``evidence/``."""
    return Path(__file__).resolve().parent / "shipped_judge"


class CompactJudgeModel:
    """One trained network and, per setting it judges, its threshold (a judge directory)."""

    def __init__(self, net: Any, encoder: TextEncoder | None = None, *, thresholds: dict[str, float],
                 meta: dict[str, Any] | None = None, path: Path | None = None) -> None:
        from droidverify.rewards.scoring import check_threshold

        bad = [s for s in thresholds if s not in COMPACT_SETTINGS]
        if bad or not thresholds:
            raise JudgeInputError(f"judge settings must be among {', '.join(COMPACT_SETTINGS)}, "
                                  f"got {list(thresholds)}")
        self.thresholds = {s: check_threshold(t) for s, t in thresholds.items()}
        self.net = net.eval()
        self.encoder = encoder or TextEncoder()
        self.meta = meta or {}
        self.path = path
        # the numbers the network was trained on, by name (a new network: all this code computes)
        self.feature_version = int(self.meta.get("feature_version", FEATURE_VERSION))
        self.token_names = tuple(self.meta.get("token_numeric", TOKEN_NUMERIC))
        self.global_names = tuple(self.meta.get("global_numeric", GLOBAL_NUMERIC))
        cols = feature_columns(self.token_names, self.global_names)
        everything = self.token_names == TOKEN_NUMERIC and self.global_names == GLOBAL_NUMERIC
        self.columns = None if everything else cols
        width = (getattr(self.net.cfg, "n_token_numeric", len(self.token_names)),
                 getattr(self.net.cfg, "n_global", len(self.global_names)))
        if width != (len(self.token_names), len(self.global_names)):
            raise CheckpointError(f"the judge network reads {width[0]} token and {width[1]} episode numbers, "
                                  f"its file names {len(self.token_names)} and {len(self.global_names)}")

    @property
    def settings(self) -> tuple[str, ...]:
        return tuple(self.thresholds)

    def p_success(self, views: Sequence[JudgeView], batch: int = 32) -> list[float]:
        """P(success) of each view."""
        import torch

        self.net.eval()
        out: list[float] = []
        with torch.inference_mode():
            for start in range(0, len(views), batch):
                logits = self.net(**batch_tensors(views[start:start + batch], self.encoder, self.columns))
                out.extend(torch.sigmoid(logits).tolist())
        return out

    def digest(self) -> str:
        """A short digest of the weights and thresholds (part of the judge's version)."""
        h = hashlib.sha256()
        for k, v in sorted(self.net.state_dict().items()):
            h.update(k.encode() + b"\0" + v.detach().cpu().contiguous().numpy().tobytes())
        h.update(json.dumps(self.thresholds, sort_keys=True).encode())
        return h.hexdigest()[:10]

    def save(self, directory: str | Path, *, train_config: dict[str, Any] | None = None,
             provenance: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> Path:
        """Write the judge directory atomically (a crash never leaves half a directory)."""
        from safetensors.torch import save_file

        directory = Path(directory)
        tmp = directory.with_name(directory.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        save_file({k: v.detach().contiguous() for k, v in self.net.state_dict().items()}, str(tmp / WEIGHTS_FILE))
        meta = {"format": FORMAT, "version": FORMAT_VERSION, "settings": list(self.settings),
                "thresholds": self.thresholds, "feature_version": self.feature_version,
                "token_numeric": list(self.token_names), "global_numeric": list(self.global_names),
                "encoder": EMBEDDER_NAME, "encoder_dtype": getattr(self.encoder, "dtype", "float32"),
                "net": self.net.cfg.to_dict(), "train_config": train_config or {}, **(extra or {})}
        members = len(getattr(self.net, "members", ()))
        if members:
            meta["members"] = members
        (tmp / JUDGE_FILE).write_text(json.dumps(meta, indent=1))
        if provenance is not None:
            (tmp / "provenance.json").write_text(json.dumps(provenance, indent=1))
        if directory.exists():
            shutil.rmtree(directory)
        tmp.rename(directory)
        return directory

    @classmethod
    def load(cls, directory: str | Path, encoder: TextEncoder | None = None) -> CompactJudgeModel:
        from safetensors import SafetensorError
        from safetensors.torch import load_file

        directory = Path(directory)
        meta = read_judge_meta(directory)
        try:
            cfg = JudgeNetConfig(**meta["net"])
            members = meta.get("members", 1)
            net = build_ensemble([build_net(cfg) for _ in range(members)]) if members > 1 else build_net(cfg)
            net.load_state_dict(load_file(str(directory / WEIGHTS_FILE)))
        except (OSError, TypeError, KeyError, RuntimeError, ValueError, SafetensorError) as exc:
            raise CheckpointError(f"cannot load the compact judge in {directory}: {exc}") from exc
        # the faster dtype on this CPU, whatever it was trained with (docs/benchmarks.md)
        encoder = encoder or TextEncoder()
        return cls(net, encoder, thresholds=meta["thresholds"], meta=meta, path=directory)


def read_judge_meta(directory: str | Path) -> dict[str, Any]:
    """``judge.json`` of a compact judge directory, checked against what this code computes."""
    directory = Path(directory)
    path = directory / JUDGE_FILE
    if not directory.is_dir():
        raise CheckpointError(f"no compact judge at {directory} (not a directory)")
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CheckpointError(f"{directory} is not a compact judge: no {JUDGE_FILE}") from None
    except (OSError, ValueError) as exc:
        raise CheckpointError(f"cannot read {path}: {exc}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("version") != FORMAT_VERSION:
        raise CheckpointError(f"{path}: not a compact judge file (format {FORMAT} version {FORMAT_VERSION})")
    version, tokens, globals_ = meta.get("feature_version"), meta.get("token_numeric"), meta.get("global_numeric")
    if isinstance(version, bool) or not isinstance(version, int) or not OLDEST_FEATURE_VERSION <= version <= FEATURE_VERSION \
            or not isinstance(tokens, list) or not isinstance(globals_, list):
        raise CheckpointError(f"{directory} was trained on feature version {version!r}; "
                              f"this droidverify computes versions {OLDEST_FEATURE_VERSION} to {FEATURE_VERSION}: "
                              "retrain it")
    feature_columns(tokens, globals_)  # every name one this code computes
    if meta.get("encoder") != EMBEDDER_NAME:
        raise CheckpointError(f"{directory} was trained on the {meta.get('encoder')!r} encoder, not {EMBEDDER_NAME!r}")
    members = meta.get("members", 1)
    if isinstance(members, bool) or not isinstance(members, int) or members < 1:
        raise CheckpointError(f"{path}: members must be a whole number >= 1, got {members!r}")
    thresholds = meta.get("thresholds")
    if not isinstance(meta.get("net"), dict) or not isinstance(thresholds, dict) or not thresholds:
        raise CheckpointError(f"{path}: no network shape or thresholds")
    for setting, t in thresholds.items():
        if setting not in COMPACT_SETTINGS:
            raise CheckpointError(f"{path}: unknown setting {setting!r}; "
                                  f"this droidverify knows {COMPACT_SETTINGS}")
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or not 0 <= t <= 1:
            raise CheckpointError(f"{path}: the {setting} threshold must be a number in [0, 1], got {t!r}")
    return meta


def load_judge_models(path: str | Path | None = None, *, encoder: TextEncoder | None = None
                      ) -> dict[str, CompactJudgeModel]:
    """The judge models at ``path`` by setting: a judge directory (``judge.json``: the settings it
    was trained for) or a directory of them (``passive/``, ``evidence/``, as shipped). None: the
    shipped judges. One encoder is shared, so a string is embedded once for both settings."""
    root = Path(path) if path is not None else shipped_judge_path()
    if not root.exists():
        raise CheckpointError(f"no compact judge at {root} (a directory `droidverify train judge` wrote; "
                              "none: the shipped judge. `droidverify run` takes the agent's --model as "
                              "the judge's unless --judge-model is given)")
    if (root / JUDGE_FILE).exists():
        model = CompactJudgeModel.load(root, encoder)
        return {s: model for s in model.settings}
    out: dict[str, CompactJudgeModel] = {}
    for setting in COMPACT_SETTINGS:
        sub = root / setting
        if (sub / JUDGE_FILE).exists():
            model = CompactJudgeModel.load(sub, encoder)
            encoder = encoder or model.encoder
            if setting not in model.settings:
                raise CheckpointError(f"{sub} judges {model.settings}, not {setting!r}")
            out[setting] = model
    if not out:
        raise CheckpointError(f"{root} holds no compact judge ({JUDGE_FILE}, or passive/ and evidence/ with one)")
    return out


# ---------------------------------------------------------------------------------- the judge


class CompactJudge:
    """The trained compact judge as a ``Judge``: ``success`` iff P(success) >= the stored threshold.

    ``setting``: ``passive``, ``evidence``, ``trajectory`` or ``auto`` (evidence for an episode ending
    in submit, passive otherwise; trajectory for every episode when that is all the judge was trained for).
    ``undecided`` only when the episode cannot be read (no screen, a dump that does not parse);
    an evidence-setting episode that breaks SmartSnap's format rules is a ``failure`` with reward -1,
    as in ``rewards.smartsnap``. Reward: 1 success, 0 failure.
    """

    name = "compact"

    def __init__(self, models: dict[str, CompactJudgeModel], setting: str = "auto") -> None:
        if setting not in COMPACT_CHOICES:
            raise JudgeInputError(f"unknown judge setting {setting!r}; use one of {', '.join(COMPACT_CHOICES)}")
        need = SETTINGS if setting == "auto" else (setting,)
        # auto on a judge trained only for whole trajectories: that setting for every episode
        self.auto_trajectory = setting == "auto" and TRAJECTORY in models and not any(s in models for s in SETTINGS)
        if self.auto_trajectory:
            need = (TRAJECTORY,)
        missing = [s for s in need if s not in models]
        if missing:
            where = ", ".join(sorted({str(m.path) for m in models.values()}))
            raise JudgeInputError(f"the compact judge at {where or '(memory)'} has no {' or '.join(missing)} "
                                  f"setting; it judges {', '.join(models)}")
        self.models = {s: models[s] for s in need}
        self.setting = setting
        parts = [f"{s}:{m.digest()}" for s, m in self.models.items()]
        versions = sorted({m.feature_version for m in self.models.values()})
        self.version = f"compact-f{'+'.join(map(str, versions))}-{setting}@" + ",".join(parts)

    @classmethod
    def load(cls, path: str | Path | None = None, setting: str = "auto", *,
             encoder: TextEncoder | None = None) -> CompactJudge:
        """The judge at ``path`` (None: the shipped ones) for ``setting``."""
        if setting not in COMPACT_CHOICES:
            raise JudgeInputError(f"unknown judge setting {setting!r}; use one of {', '.join(COMPACT_CHOICES)}")
        return cls(load_judge_models(path, encoder=encoder), setting)

    def count_tokens(self, strings: Sequence[str], model: CompactJudgeModel) -> int:
        """Word-piece tokens the encoder reads (as it clips them), or words without a tokenizer."""
        enc = model.encoder
        clipped = [s[: enc.max_chars] for s in strings if s]
        loaded = getattr(enc, "_model", None)  # never load the model just to count
        tokenizer = getattr(loaded, "tokenizer", None)
        if tokenizer is None:
            return sum(len(s.split()) for s in clipped)
        return sum(len(ids) for ids in tokenizer(clipped, add_special_tokens=True)["input_ids"]) if clipped else 0

    def judge(self, trajectory: Trajectory) -> Judgement:
        tally = Tally()
        eid = trajectory_id(trajectory)
        setting = TRAJECTORY if self.auto_trajectory else setting_for(trajectory, self.setting)
        model = self.models[setting]
        threshold = model.thresholds[setting]
        base = {"setting": setting, "threshold": threshold}
        if not (trajectory.goal or "").strip():
            return tally.judgement(episode_id=eid, judge=self.name, version=self.version, outcome="undecided",
                                   reward=0.0, components=base, error="the episode has no goal")
        if setting in ("passive", TRAJECTORY) and _last_screen(trajectory) is None:
            return tally.judgement(episode_id=eid, judge=self.name, version=self.version, outcome="undecided",
                                   reward=0.0, components=base, error="the episode has no screen to judge")
        try:
            view = view_of(trajectory, setting)
        except DroidVerifyError as exc:  # a dump that does not parse: nothing to read
            return tally.judgement(episode_id=eid, judge=self.name, version=self.version, outcome="undecided",
                                   reward=0.0, components=base, error=f"{type(exc).__name__}: {exc}")
        if view is None:
            from droidverify.rewards.smartsnap import check_submit

            reason = check_submit(trajectory).reason
            return tally.judgement(episode_id=eid, judge=self.name, version=self.version, outcome="failure",
                                   reward=-1.0, components={**base, "format_ok": False, "format_error": reason},
                                   rationale=f"format failure: {reason}")
        [p] = model.p_success([view])
        ok = p >= threshold
        strings = view.strings()
        extra = {"format_ok": True} if setting == "evidence" else {}
        judgement = tally.judgement(
            episode_id=eid, judge=self.name, version=self.version, outcome="success" if ok else "failure",
            reward=1.0 if ok else 0.0, components={**base, **extra, "p_success": p},
            rationale=f"P(success) = {p:.4f} {'>=' if ok else '<'} threshold {threshold:.4f}",
            details={"input_strings": sum(bool(s) for s in strings),
                     "elements": sum(t.kind == ELEMENT for t in view.tokens),
                     "actions": sum(t.kind == ACTION for t in view.tokens)})
        judgement.tokens_in = self.count_tokens(strings, model)
        return judgement
