"""What the compact verifier sees of a step: strings to embed and a few numbers per candidate.

Only what a real device shows goes in: the uiautomator elements, the goal, the agent's own working
memory and the candidate actions. No simulator internals, so a checkpoint trained in the simulator
runs unchanged over adb. The numbers are language-light comparisons (goal words and numbers against
element labels and proposed values, element state, what the memory says was done).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from droidverify.actions.model import Action
from droidverify.agents.screen import is_launcher_package, needs_completion, sanitize_screen_text
from droidverify.agents.verifier.derived import derivations
from droidverify.agents.verifier.proposals import answer_fit
from droidverify.ui.element import UIElement

# 2: the value is embedded on its own; 3: how much of the goal the screen shows; 4: where a value sits
# (an answer's row on screen, the goal words before a typed value against the field, its proposal
# rank), whether the goal asks a question, which fields already hold goal values; 5: how an answer's
# value fits the question (its shape, the label it was read after, an option the question names).
# Version 5 is opt-in: on the same records and seed, it doubled answer-step top-1 (5 -> 9 of 60
# validation steps) but solved 60 against 70 of 696 validation episodes (docs/training.md, session 25).
# 6 (the default since 2026-11-28, session 27): 4 (not 5) plus values computed from the ones read
# (agents/verifier/derived.py) among the candidates, each with its account as context and three numbers
# (derived, operands the goal names, rank); docs/training.md, "Session 27".
# 7 (opt-in): 6's numbers, plus the goal's clauses as tokens of their own ("Delete every screenshot ...",
# "then turn on dark theme"), so that a candidate is matched to the part of the goal it serves rather
# than to one vector of the whole goal (docs/training.md, "Session 31").
FEATURE_VERSION = 6
SUPPORTED_FEATURE_VERSIONS = (3, 4, 5, 6, 7)  # older checkpoints keep running on the features they learned

# The action kinds the scorer tells apart; anything else maps to "other".
KINDS = ("click", "long_press", "input_text", "clear_text", "scroll_up", "scroll_down", "scroll_left",
         "scroll_right", "open_app", "wait", "navigate_home", "navigate_back", "status", "answer", "other")
MAX_MEMORY = 12  # most recent memory entries the scorer reads
_TOKEN_RE = re.compile(r"\w+", re.UNICODE)
_NUM_RE = re.compile(r"\d+(?:[.,:]\d+)?")
_STEP_RE = re.compile(r"^Step \d+:\s*")
_STEP_NUM_RE = re.compile(r"^Step (\d+):\s*")

NUMERIC_NAMES_V3: tuple[str, ...] = (
    *(f"kind_{k}" for k in KINDS),
    "placeholder", "checkable", "checked", "selected", "editable", "focused", "scrollable", "clickable",
    "has_label", "field_filled", "password",
    "y_center", "x_center", "area",
    "label_in_goal_frac", "goal_in_label_frac", "label_substring_of_goal", "label_numbers_in_goal",
    "value_substring_of_goal", "value_token_overlap", "value_is_number", "value_equals_field",
    "value_on_screen", "value_in_memory", "field_matches_goal",
    "goal_wants_on_checked", "goal_wants_off_checked",
    "taken_before", "same_as_last", "steps_so_far", "memory_empty", "last_no_change",
    "on_launcher", "app_in_goal",
    # the step as a whole (the same for every candidate): how much of the goal is already visible or
    # typed, so "is it done?" can be read off the screen and the memory
    "goal_numbers_on_screen", "goal_quoted_on_screen", "goal_words_on_screen", "goal_quoted_in_memory",
    "value_is_goal_quoted", "label_has_goal_quoted",
)
NUMERIC_NAMES_V4: tuple[str, ...] = (
    *NUMERIC_NAMES_V3,
    "context_in_goal_frac", "goal_in_context_frac", "value_rank", "value_cue_field_overlap",
    "value_shape_fits_field", "label_in_memory", "goal_is_question",
    "fields_holding_goal_values", "fields_filled_frac", "goal_quoted_in_static", "goal_numbers_in_static",
)
NUMERIC_NAMES_V5: tuple[str, ...] = (
    *NUMERIC_NAMES_V4,
    "answer_kind_fit", "answer_after_label", "answer_is_option", "answer_only_in_goal", "answer_only_in_memory",
    "answer_only_low",
)
NUMERIC_NAMES_V6: tuple[str, ...] = (  # 4's, not 5's: 5's answer-fit numbers cost success (session 25)
    *NUMERIC_NAMES_V4,
    "value_derived", "derived_named", "derived_rank",
)
NUMERIC_NAMES_V7 = NUMERIC_NAMES_V6  # 7 adds clause tokens, not numbers
NUMERIC_NAMES = NUMERIC_NAMES_V6  # the default version's
DERIVED_FROM_VERSION = 6  # checkpoints of this version and later also choose among derived values
CLAUSES_FROM_VERSION = 7  # checkpoints of this version and later read the goal's clauses
MAX_CLAUSES = 6
_LEADING_THEN_RE = re.compile(r"^(?:and\s+)?then\s+", re.IGNORECASE)  # "... Smith. Then mark it"
_ABBREV_END_RE = re.compile(r"(?:^|\s)(?:Dr|Mr|Mrs|Ms|St|Prof|Jr|Sr|vs|etc|e\.g|i\.e|[A-Z])\.$")
# clause ends: a sentence or a colon / semicolon before a space, or "then" joining two steps
_CLAUSE_SPLIT_RE = re.compile(r"(?<=[.!?;:])\s+|,?\s+(?:and\s+)?then\s+|\s+-\s+", re.IGNORECASE)


def uses_derived(version: int) -> bool:
    """Whether a checkpoint of feature ``version`` was trained with derived values among its
    candidates (``expand_candidates(derived=True)``): training and inference must expand alike."""
    return int(version) >= DERIVED_FROM_VERSION


def uses_clauses(version: int) -> bool:
    """Whether a checkpoint of feature ``version`` reads the goal's clauses as tokens of their own."""
    return int(version) >= CLAUSES_FROM_VERSION


def goal_clauses(goal: str, limit: int = MAX_CLAUSES) -> list[str]:
    """The goal cut into its sentences and "then" steps, in order; beyond ``limit`` the rest stays in
    the last one. A goal of one clause gives itself."""
    parts: list[str] = []
    for p in _CLAUSE_SPLIT_RE.split(goal or ""):
        if parts and _ABBREV_END_RE.search(parts[-1]):  # "Dr. Smith" is one clause
            parts[-1] = f"{parts[-1]} {p.strip(' ,')}"
        else:
            parts.append(p.strip(" ,"))
    parts = [_LEADING_THEN_RE.sub("", p) for p in parts if _TOKEN_RE.search(p)]
    if len(parts) > limit:
        parts = [*parts[:limit - 1], " ".join(parts[limit - 1:])]
    return parts


_NUMERIC_BY_VERSION = {3: NUMERIC_NAMES_V3, 4: NUMERIC_NAMES_V4, 5: NUMERIC_NAMES_V5, 6: NUMERIC_NAMES_V6,
                       7: NUMERIC_NAMES_V7}
_QUESTION_WORDS = frozenset({"what", "which", "who", "whom", "whose", "when", "where", "how", "is", "are", "does",
                             "do", "did", "was", "were"})
# field words -> the value shapes they take (language-light: a digit pattern, an @, a time)
_SHAPES = (
    (re.compile(r"^\+?[\d\s().-]{7,}$"), {"phone", "number", "mobile", "tel", "telephone"}),
    (re.compile(r"^[^@\s]+@[^@\s]+$"), {"email", "mail"}),
    (re.compile(r"^\d{1,2}:\d{2}(?:\s?[ap]\.?m\.?)?$", re.IGNORECASE), {"time", "hour", "start", "end", "alarm"}),
    (re.compile(r"^[$€£¥₹]?\s?\d+(?:[.,]\d{1,2})?$"), {"amount", "price", "cost", "total", "sum", "value"}),
)


def type_kinds(version: int = FEATURE_VERSION) -> int:
    """How many leading numbers of a candidate are its kind, one-hot (what a type head reads)."""
    names = numeric_names(version)
    n = len(KINDS)
    if names[:n] != tuple(f"kind_{k}" for k in KINDS):
        raise ValueError(f"feature version {version} does not start with the kind one-hot")
    return n


def numeric_names(version: int = FEATURE_VERSION) -> tuple[str, ...]:
    """The per-candidate numbers of a feature version (each extends the one before, except 6, which
    extends 4)."""
    try:
        return _NUMERIC_BY_VERSION[version]
    except KeyError:
        raise ValueError(f"unknown compact feature version {version!r}; this droidverify computes "
                         f"{sorted(_NUMERIC_BY_VERSION)}") from None
# "x", “x” or 'x' (a single quote only after a space, so that "don't ... it's" is no quote)
_QUOTED_RE = re.compile(r"\"([^\"]{1,80})\"|“([^”]{1,80})”|(?:^|\s)'([^']{1,80})'")


# Scripts written without spaces between words (Han, kana) or with particles glued to them (Hangul):
# \w+ reads a whole run as one word, so "蓝牙" never matched inside "打开蓝牙". Such runs become
# overlapping character pairs, which match across phrasings without a word list.
_UNSPACED_RE = re.compile("([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+)")


def tokens(text: str | None) -> list[str]:
    """Lower-cased words; runs of Han, kana or Hangul as overlapping character pairs (one character
    alone stays one token)."""
    out: list[str] = []
    for word in _TOKEN_RE.findall(text or ""):
        word = word.lower()
        if not _UNSPACED_RE.search(word):
            out.append(word)
            continue
        for k, part in enumerate(_UNSPACED_RE.split(word)):
            if not part:
                continue
            if k % 2 == 0 or len(part) == 1:  # the Latin or digit part around a run, or one character
                out.append(part)
            else:
                out.extend(part[i:i + 2] for i in range(len(part) - 1))
    return out


def is_content_token(token: str) -> bool:
    """A token that says what the text is about: a word longer than 2 letters, or a character pair
    of an unspaced script (two Han characters are a word more often than not)."""
    return len(token) > 2 or (len(token) == 2 and _UNSPACED_RE.fullmatch(token) is not None)


def _frac_in(a: Sequence[str], b: set[str]) -> float:
    return sum(t in b for t in a) / len(a) if a else 0.0


def memory_by_round(memory_text: str) -> dict[int, str]:
    """Memory entries by round id (``Step n:`` is round n - 1, the id ``submit`` cites)."""
    out: dict[int, str] = {}
    for ln in (memory_text or "").splitlines():
        m = _STEP_NUM_RE.match(ln.strip())
        if m:
            out[int(m.group(1)) - 1] = ln.strip()[m.end():]
    return out


def memory_entries(memory_text: str) -> list[str]:
    """The working memory's entries (one per line, without the ``Step n:`` prefix)."""
    lines = [ln.strip() for ln in (memory_text or "").splitlines() if ln.strip()]
    return [_STEP_RE.sub("", ln) for ln in lines]


def _short_class(el: UIElement) -> str:
    return (el.class_name or "").rsplit(".", 1)[-1]


def _row_context(el: UIElement, memo: dict[int, list[tuple[UIElement, str]]], limit: int = 4) -> str:
    """Texts of the nearest ancestor that holds other labels (the row or card the element is in).
    ``memo`` keeps each ancestor's labelled nodes for the step (many candidates share a row)."""
    node = el.parent
    for _ in range(3):
        if node is None:
            break
        labelled = memo.get(id(node))
        if labelled is None:
            labelled = [(x, sanitize_screen_text(x.label, max_len=40)) for x in node.iter() if x.label]
            memo[id(node)] = labelled
        texts = [t for t in dict.fromkeys(t for x, t in labelled if x is not el) if t]
        if texts:
            return " | ".join(texts[:limit])
        node = node.parent
    return ""


def _kind(action: Action) -> str:
    t = action.action_type
    if t == "scroll":
        return f"scroll_{action.direction}" if f"scroll_{action.direction}" in KINDS else "other"
    return t if t in KINDS else "other"


def _value(action: Action) -> str | None:
    if needs_completion(action):
        return None
    if action.action_type == "open_app":
        return action.app_name
    if action.action_type in ("input_text", "answer", "submit"):
        return action.text
    return None


@dataclass
class CandidateView:
    """One candidate as the scorer reads it."""

    text: str  # what it does to which element (embedded)
    context: str  # the row or card around the element (embedded)
    value: str  # typed text, answer or app name it carries ("" for none; embedded)
    numeric: Sequence[float]  # a float32 row when packed for training


@dataclass
class StepView:
    """One step as the scorer reads it: goal, memory entries, candidates."""

    goal: str
    memory: list[str]
    candidates: list[CandidateView] = field(default_factory=list)
    clauses: list[str] = field(default_factory=list)  # feature version 7 and later (goal_clauses)

    def strings(self) -> list[str]:
        return [self.goal, *self.memory, *(c.text for c in self.candidates),
                *(c.context for c in self.candidates), *(c.value for c in self.candidates), *self.clauses]


def candidate_text(action: Action, elements: Sequence[UIElement]) -> str:
    """A short, model-agnostic description: verb, element class, label, id, hint. The value is
    embedded on its own (a field's text repeats across the values proposed for it)."""
    verb = action.action_type.replace("_", " ")
    if action.action_type == "scroll":
        verb = f"scroll {action.direction}"
    if action.action_type == "status":
        verb = f"declare the task {action.goal_status}"
    if action.action_type == "submit":  # SmartSnap's curation: which rounds prove it (context: those rounds)
        ev = list(action.evidences or ())
        verb = f"submit proof citing {len(ev)} round{'s' if len(ev) != 1 else ''}"
    parts = [verb]
    if action.index is not None and 0 <= action.index < len(elements):
        el = elements[action.index]
        parts.append(_short_class(el))
        if el.text:
            parts.append(f"'{sanitize_screen_text(el.text, max_len=60)}'")
        if el.content_description:
            parts.append(f"desc '{sanitize_screen_text(el.content_description, max_len=60)}'")
        if el.resource_name:
            parts.append(f"id {el.resource_name.replace('_', ' ')}")
        if el.hint_text and el.hint_text != el.text:
            parts.append(f"hint '{sanitize_screen_text(el.hint_text, max_len=40)}'")
        if el.is_checkable:
            parts.append("checked" if el.is_checked else "unchecked")
    if needs_completion(action):
        parts.append("value to be generated")
    return " ".join(parts)


def _screen_texts(elements: Sequence[UIElement]) -> set[str]:
    return {(e.text or "").strip().lower() for e in elements if e.text} | \
        {(e.content_description or "").strip().lower() for e in elements if e.content_description}


def _field_words(el: UIElement, context: str) -> set[str]:
    """What names a field: its hint, id and description; the labels around it only when it has none
    (a row's labels may name its neighbours too)."""
    def words(texts: Sequence[str | None]) -> set[str]:
        return {t for x in texts if x for t in tokens(re.sub(r"([a-z])([A-Z])", r"\1 \2", x)) if is_content_token(t)}

    return words([el.hint_text, el.resource_name, el.content_description]) or words([context])


def _cue_words(goal_low: str, value_low: str) -> set[str]:
    """The goal's words just before the value ("phone 555..." -> {phone}); empty if it is not in the goal."""
    at = goal_low.find(value_low) if value_low else -1
    if at < 0:
        return set()
    return {t for t in tokens(goal_low[max(0, at - 40):at])[-4:] if is_content_token(t)}


def _shape_fit(value: str, field_words: set[str]) -> float:
    """1 if the value's shape (phone, e-mail, time, amount) is what the field is named for, -1 if the
    field is named for another shape, 0 if neither says."""
    fits = [words for rx, words in _SHAPES if rx.match(value.strip())]
    if not fits or not field_words:
        return 0.0
    if any(field_words & w for w in fits):
        return 1.0
    return -1.0 if any(field_words & w for _, w in _SHAPES) else 0.0


def _value_source(value_low: str, elements: Sequence[UIElement]) -> UIElement | None:
    """The element an answer was read from: the one showing exactly the value, else the first containing it."""
    if not value_low:
        return None
    part = None
    for el in elements:
        for t in (el.text, el.content_description):
            low = (t or "").strip().lower()
            if low == value_low:
                return el
            if part is None and value_low in low:
                part = el
    return part


def step_view(goal: str, memory_text: str, elements: Sequence[UIElement], candidates: Sequence[Action],
              descriptions: Sequence[str] | None = None, screen_size: tuple[int, int] | None = None,
              version: int = FEATURE_VERSION) -> StepView:
    """The scorer's view of a step. ``descriptions`` (as the memory phrases actions) tell which
    candidates the memory says were already taken. ``version``: the feature version a checkpoint
    was trained on (each version's numbers extend the previous one's)."""
    n_numeric = len(numeric_names(version))
    goal_s = sanitize_screen_text(goal, max_len=400)
    goal_low = goal_s.lower()
    goal_tok = set(tokens(goal_s))
    goal_nums = set(_NUM_RE.findall(goal_s))
    mem = memory_entries(memory_text)
    mem_low = (memory_text or "").lower()
    last = mem[-1].lower() if mem else ""
    wants_on = any(w in goal_low for w in ("turn on", "enable", "switch on", "activate"))
    wants_off = any(w in goal_low for w in ("turn off", "disable", "switch off", "deactivate"))
    screen = _screen_texts(elements)
    screen_blob = " | ".join(sorted(screen))
    screen_tok = set(tokens(screen_blob))
    quoted = [q.strip().lower() for m in _QUOTED_RE.findall(goal_s) for q in m if q.strip()]
    content = [t for t in goal_tok if is_content_token(t)]
    step_level = [
        _frac_in(sorted(goal_nums), set(_NUM_RE.findall(screen_blob))) if goal_nums else -1.0,
        (sum(q in screen_blob for q in quoted) / len(quoted)) if quoted else -1.0,
        _frac_in(sorted(content), screen_tok),
        (sum(q in mem_low for q in quoted) / len(quoted)) if quoted else -1.0,
    ]
    pkgs = {(e.package_name or "").lower() for e in elements[:3]}
    on_launcher = float(any(is_launcher_package(p) for p in pkgs))
    if screen_size is None:
        right = max((e.bbox_pixels.right for e in elements if e.bbox_pixels is not None), default=1)
        bottom = max((e.bbox_pixels.bottom for e in elements if e.bbox_pixels is not None), default=1)
        screen_size = (max(right, 1), max(bottom, 1))
    w, h = screen_size
    view = StepView(goal=goal_s, memory=mem[-MAX_MEMORY:], clauses=goal_clauses(goal_s) if uses_clauses(version) else [])
    rows: dict[int, list[tuple[UIElement, str]]] = {}
    rounds = memory_by_round(memory_text) if any(c.action_type == "submit" for c in candidates) else {}
    first = tokens(goal_s)[:1]
    is_question = float("?" in goal_s or bool(first and first[0] in _QUESTION_WORDS))
    fields = [e for e in elements if e.is_editable]
    filled = [(e.text or "").strip().lower() for e in fields if e.text and e.text != e.hint_text]
    # goal values shown as content (saved: a list row, a detail line), not only typed into a field
    static = " | ".join(sorted(_screen_texts([e for e in elements if not e.is_editable])))
    form_level = [
        (sum(bool(f) and f in goal_low for f in filled) / len(fields)) if fields else -1.0,
        (len(filled) / len(fields)) if fields else -1.0,
        (sum(q in static for q in quoted) / len(quoted)) if quoted else -1.0,
        _frac_in(sorted(goal_nums), set(_NUM_RE.findall(static))) if goal_nums else -1.0,
    ]
    seen_targets: dict[tuple[str, int | None], int] = {}
    fits: dict[str, tuple[float, ...]] = {}
    if version == 5 and any(c.action_type == "answer" for c in candidates):
        fits = answer_fit(goal, elements, memory_text)  # the proposer's own reading of each value
    derived: dict[str, tuple[int, str, int]] = {}  # value -> (rank, how, operands the goal names)
    if version >= 6 and any(c.action_type in ("answer", "input_text") for c in candidates):
        for rank, d in enumerate(derivations(goal, elements, memory_text)):
            derived.setdefault(d.value, (rank, d.how, d.named))
    for i, action in enumerate(candidates):
        kind = _kind(action)
        el = elements[action.index] if action.index is not None and 0 <= action.index < len(elements) else None
        label = sanitize_screen_text(el.label, max_len=80) if el is not None else ""
        label_tok = tokens(label)
        value = _value(action) or ""
        value_low = value.strip().lower()
        value_tok = tokens(value)
        field_text = (el.text or "") if el is not None and el.is_editable and el.text != el.hint_text else ""
        desc = (descriptions[i] if descriptions is not None and i < len(descriptions) else "").lower()
        bbox = el.bbox_pixels if el is not None else None
        nums = [
            *(1.0 if kind == k else 0.0 for k in KINDS),
            float(needs_completion(action)),
            float(el is not None and el.is_checkable), float(el is not None and el.is_checked),
            float(el is not None and el.is_selected), float(el is not None and el.is_editable),
            float(el is not None and el.is_focused), float(el is not None and el.is_scrollable),
            float(el is not None and el.is_clickable), float(bool(label)), float(bool(field_text)),
            float(el is not None and el.is_password),
            (bbox.center[1] / h) if bbox is not None else -1.0,
            (bbox.center[0] / w) if bbox is not None else -1.0,
            min(bbox.area / (w * h), 1.0) if bbox is not None else 0.0,
            _frac_in(label_tok, goal_tok), _frac_in(sorted(goal_tok), set(label_tok)),
            float(bool(label) and label.lower() in goal_low),
            float(any(n in goal_nums for n in _NUM_RE.findall(label))),
            float(bool(value_low) and value_low in goal_low),
            _frac_in(value_tok, goal_tok),
            float(bool(value) and bool(_NUM_RE.fullmatch(value.strip()))),
            float(bool(value_low) and value_low == field_text.strip().lower()),
            float(bool(value_low) and value_low in screen),
            float(bool(value_low) and value_low in mem_low),
            float(bool(field_text) and field_text.strip().lower() in goal_low),
            float(wants_on and el is not None and el.is_checked),
            float(wants_off and el is not None and el.is_checked),
            float(bool(desc) and desc in mem_low),
            float(bool(desc) and bool(last) and last.startswith(desc)),
            min(len(mem), 30) / 30.0,
            float(not mem),
            float("did not change" in last),
            on_launcher,
            float(kind == "open_app" and bool(value_low) and value_low in goal_low),
            *step_level,
            float(bool(value_low) and value_low in quoted),
            float(bool(label) and any(q in label.lower() for q in quoted)),
        ]
        if action.action_type == "submit":  # what the cited rounds did, as the memory tells it
            context = " | ".join(sanitize_screen_text(rounds.get(r, ""), max_len=160)
                                 for r in (action.evidences or ()))
        else:
            context = _row_context(el, rows) if el is not None else ""
        src: UIElement | None = None
        if version >= 4:
            if action.action_type == "answer" and el is None:  # the row the answer is read from
                src = _value_source(value_low, elements)
                if src is not None:
                    own = sanitize_screen_text(src.label, max_len=60)
                    around = _row_context(src, rows)
                    context = " | ".join(t for t in (own if own.lower() != value_low else "", around) if t)
            ctx_tok = tokens(context)
            rank = 0.0
            if value and action.action_type in ("input_text", "answer"):
                key = (action.action_type, action.index)
                rank = 1.0 / (1 + seen_targets.get(key, 0))
                seen_targets[key] = seen_targets.get(key, 0) + 1
            cue, fwords = set(), set()
            if kind == "input_text" and el is not None:
                fwords = _field_words(el, context)
                cue = _cue_words(goal_low, value_low)
            nums += [
                _frac_in(ctx_tok, goal_tok), _frac_in(sorted(content), set(ctx_tok)),
                rank,
                (float(bool(cue & fwords)) if cue else -1.0) if kind == "input_text" else 0.0,
                _shape_fit(value, fwords) if kind == "input_text" and value else 0.0,
                float(len(label) > 2 and label.lower() in mem_low),
                is_question,
                *form_level,
            ]
            if version == 5:
                fit = fits.get(value.strip()) if action.action_type == "answer" else None
                nums += list(fit) if fit is not None else [0.0] * 6
            if version >= 6:
                # a value computed from others (agents/verifier/derived.py): its account is its context
                # (the operands and the rows they were read in), so the goal can be matched against it
                dv = derived.get(value.strip()) if action.action_type in ("answer", "input_text") else None
                if dv is not None:
                    rank_d, how, named = dv
                    if action.action_type == "answer" and el is None and src is None:  # shown nowhere
                        context = sanitize_screen_text(how, max_len=160)
                    elif action.action_type == "input_text":
                        context = " | ".join(t for t in (context, sanitize_screen_text(how, max_len=120)) if t)
                    nums += [1.0, min(named, 3) / 3.0, 1.0 / (1 + rank_d)]
                else:
                    nums += [0.0, 0.0, 0.0]
        nums = nums[:n_numeric]
        view.candidates.append(CandidateView(text=candidate_text(action, elements), context=context,
                                             value=sanitize_screen_text(value, max_len=120), numeric=nums))
    return view

