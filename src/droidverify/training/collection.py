"""Verifier training data from the simulator, labelled by the task oracles.

Three sources (V-Droid section 4, with the oracle as the human annotator):

- ``oracle``: states on the oracle's own path.
- ``policy``: states a behaviour policy visits (a noisy oracle that takes a wrong action now and
  then, or any droidverify agent such as the current verifier), each labelled by the oracle,
  which names the correct next action from any state. That is V-Droid's joint annotation loop.
- ``self_correction``: right after a wrong action that changed the screen, the reverse action is
  the positive (click/long_press -> back, open_app -> home, scroll -> the opposite scroll,
  input_text -> clear_text on the same field).

Every record's prompt inputs come from :meth:`VerifierAgent.prepare`, the code the agent runs at
inference. Steps whose oracle action is not among the candidates are counted per template in
:class:`CollectStats` (and listed), never dropped silently.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from droidverify.actions.model import Action
from droidverify.agents.base import Agent
from droidverify.agents.screen import needs_completion
from droidverify.agents.verifier.agent import VerifierAgent, completion_question
from droidverify.env.records import Step
from droidverify.errors import ActionValidationError, EnvError, TrainingError
from droidverify.tasks.base import Task
from droidverify.training.records import CompletionLabel, VerifierStepRecord

_OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}
_INDEXED = ("click", "long_press", "input_text", "clear_text", "double_tap")
_ANY_CONTENT = ("open_app", "answer", "wait", "navigate_home", "navigate_back", "keyboard_enter")


@dataclass
class CollectStats:
    """What a collection produced and what it could not label."""

    episodes: int = 0
    steps: int = 0
    records: Counter = field(default_factory=Counter)  # by source
    unmatched: Counter = field(default_factory=Counter)  # by template: oracle action not a candidate
    unmatched_examples: list[dict[str, Any]] = field(default_factory=list)
    oracle_errors: Counter = field(default_factory=Counter)  # by template: the oracle raised
    episode_success: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"episodes": self.episodes, "steps": self.steps, "records": dict(self.records),
                "unmatched_total": sum(self.unmatched.values()), "unmatched": dict(self.unmatched),
                "unmatched_examples": self.unmatched_examples[:20],
                "oracle_errors": dict(self.oracle_errors), "episode_success": self.episode_success}


def _center(el: Any) -> tuple[float, float] | None:
    b = getattr(el, "bbox_pixels", None)
    return None if b is None else (float(b.center[0]), float(b.center[1]))


def _contains(el: Any, pt: tuple[float, float]) -> bool:
    b = getattr(el, "bbox_pixels", None)
    return b is not None and b.left <= pt[0] <= b.right and b.top <= pt[1] <= b.bottom


def match_candidate(action: Action, candidates: Sequence[Action], elements: Sequence[Any]) -> int | None:
    """The candidate that does what ``action`` does, or None.

    Content (typed text, app name, answer) is ignored: candidates carry placeholders there. A tap on
    an element that is not itself a candidate (a row's label) matches the smallest candidate of the
    same kind whose bounds contain the tap point, since the screen routes the tap there.
    """
    t = action.action_type
    for i, c in enumerate(candidates):
        if c.action_type != t:
            continue
        if t in _INDEXED:
            if action.index is not None and c.index == action.index:
                return i
        elif t == "scroll":
            if c.direction == action.direction and (action.index is None or c.index == action.index):
                return i
        elif t == "status":
            if c.goal_status == action.goal_status:
                return i
        elif t in _ANY_CONTENT:
            return i
    if t in ("click", "long_press"):
        if action.index is not None and 0 <= action.index < len(elements):
            pt = _center(elements[action.index])
        elif action.x is not None and action.y is not None:
            pt = (float(action.x), float(action.y))
        else:
            pt = None
        if pt is not None:
            hits = [(elements[c.index].bbox_pixels.area, i) for i, c in enumerate(candidates)
                    if c.action_type == t and c.index is not None and c.index < len(elements)
                    and _contains(elements[c.index], pt)]
            if hits:
                return min(hits)[1]
    return None


# Candidate kinds that can be executed as they are (no placeholder content) and change the screen.
_EXECUTABLE = ("click", "long_press", "scroll", "clear_text", "navigate_back", "navigate_home",
               "keyboard_enter", "double_tap")


def equivalent_candidates(phone: Any, task: Task, label: Action, candidates: Sequence[Action],
                          positive: int) -> list[int]:
    """Candidates other than ``positive`` that do what ``label`` does: executed on copies of the
    phone they reach the same screen and app data (``action_outcome``), and that state differs
    from now.

    A launcher icon and ``open_app``, the navigation bar's Back button and ``navigate_back``, a
    row and its checkbox: teaching the verifier that one of them is wrong would contradict the
    other. Terminal actions (status, answer) and ``wait`` have no outcome to compare.
    """
    from droidverify.env.sim.env import action_outcome

    if label.action_type in ("status", "answer", "wait"):
        return []
    target = action_outcome(phone, label)
    if target == action_outcome(phone, None):
        return []  # the label changes nothing (or was rejected): no outcome to match
    return [j for j, c in enumerate(candidates)
            if j != positive and c.action_type in _EXECUTABLE and action_outcome(phone, c) == target]


def reverse_action(action: Action) -> Action | None:
    """V-Droid's self-correction map: the action that undoes ``action`` (None if none is defined)."""
    t = action.action_type
    if t in ("click", "long_press"):
        return Action(action_type="navigate_back")
    if t == "open_app":
        return Action(action_type="navigate_home")
    if t == "scroll" and action.direction is not None:
        return Action(action_type="scroll", index=action.index, direction=_OPPOSITE[action.direction])
    if t == "input_text" and action.index is not None:
        return Action(action_type="clear_text", index=action.index)
    return None


class NoisyOracle:
    """Behaviour policy: the oracle's action, or with probability ``epsilon`` a wrong one.

    Wrong actions are what a weak verifier does: tap another element, open another app, scroll the
    wrong way, type a wrong value. Terminal actions are never taken by mistake here (the negatives of
    every step already teach against premature ``status complete``).
    """

    name = "noisy-oracle"

    def __init__(self, epsilon: float, rng: random.Random, apps: Sequence[str]) -> None:
        if not 0.0 <= epsilon <= 1.0:
            raise TrainingError(f"epsilon must be in [0, 1], got {epsilon}")
        self.epsilon = epsilon
        self.rng = rng
        self.apps = list(apps)

    def choose(self, oracle: Action, candidates: Sequence[Action], positive: int | None) -> tuple[Action, bool]:
        """(action to execute, whether it is a deliberate mistake)."""
        if self.rng.random() >= self.epsilon:
            return oracle, False
        wrong = [c for i, c in enumerate(candidates) if i != positive
                 and c.action_type in ("click", "long_press", "scroll", "open_app", "input_text")]
        if not wrong:
            return oracle, False
        c = self.rng.choice(wrong)
        if c.action_type == "open_app":
            others = [a for a in self.apps if a != oracle.app_name] or self.apps
            return Action(action_type="open_app", app_name=self.rng.choice(others)), True
        if c.action_type == "input_text":
            word = self.rng.choice(["hello", "test", "12", "Anna", "note", "x"])
            return Action(action_type="input_text", index=c.index, text=word), True
        return c, True


PolicyFactory = Callable[[Task], Agent]


def _episode_records(
    task: Task,
    *,
    split: str,
    preparer: VerifierAgent,
    policy: Agent | NoisyOracle | None,
    rng: random.Random,
    stats: CollectStats,
    self_correction_rate: float,
    round_index: int,
    keep: Callable[[VerifierStepRecord], bool] | None,
    max_steps: int | None,
) -> Iterator[VerifierStepRecord]:
    from droidverify.env.sim import SimEnv

    env = SimEnv(task=task, seed=task.seed)
    obs = env.reset()
    preparer.reset(task.goal)
    agent = policy if isinstance(policy, Agent) else None
    if agent is not None:
        if hasattr(agent, "bind"):
            agent.bind(env, task)
        agent.reset(task.goal)
    policy_name = ("oracle" if policy is None else getattr(policy, "name", type(policy).__name__))
    history: list[Step] = []
    answered = False
    last_mistake: tuple[Action, str] | None = None  # (wrong action, screen xml before it)
    declared_done = False
    limit = max_steps or task.max_steps
    stats.episodes += 1
    for index in range(limit):
        prepared = preparer.prepare(obs, history)
        cands = prepared.candidates
        try:
            oracle = task.oracle_action(env.phone, obs)
        except Exception as exc:  # noqa: BLE001 -- a broken oracle is counted, the episode ends
            stats.oracle_errors[task.id] += 1
            stats.unmatched_examples.append({"task": task.id, "seed": task.seed, "step": index,
                                             "oracle_error": f"{type(exc).__name__}: {exc}"})
            break
        if answered and oracle.action_type == "answer":
            oracle = Action(action_type="status", goal_status="complete")
        pos = match_candidate(oracle, cands, obs.elements)
        stats.steps += 1

        # The label of this step: the reverse of a screen-changing mistake, or the oracle's action.
        source, label_idx, label_action = "policy" if policy is not None else "oracle", pos, oracle
        if last_mistake is not None and obs.xml != last_mistake[1] and rng.random() < self_correction_rate:
            rev = reverse_action(last_mistake[0])
            ridx = match_candidate(rev, cands, obs.elements) if rev is not None else None
            if ridx is not None:
                source, label_idx, label_action = "self_correction", ridx, rev
        policy_info: dict[str, Any] = {}
        out_action: Action | None = None
        if agent is not None:
            out = agent.act(obs, list(history))
            out_action = out.action
            policy_info = out.info or {}
        if label_idx is None:
            stats.unmatched[task.id] += 1
            if len(stats.unmatched_examples) < 200:
                stats.unmatched_examples.append({"task": task.id, "seed": task.seed, "step": index,
                                                 "oracle": oracle.to_json()})
        else:
            equiv = equivalent_candidates(env.phone, task, label_action, cands, label_idx)
            if equiv and needs_completion(cands[label_idx]):
                # Prefer the equivalent that needs no generated content (tap the icon rather
                # than generate the app's name): fewer ways for a small model to fail.
                label_idx, equiv = equiv[0], sorted([*equiv[1:], label_idx])
            completion = None
            pa = cands[label_idx]
            if pa.action_type in ("open_app", "input_text", "answer") and source != "self_correction":
                target = label_action.app_name if pa.action_type == "open_app" else label_action.text
                if target:
                    completion = CompletionLabel(kind=pa.action_type,
                                                 question=completion_question(pa, obs, preparer.apps),
                                                 target=target)
            entropy = policy_info.get("entropy")
            choice = policy_info.get("argmax")
            rec = VerifierStepRecord(
                record_id=f"{policy_name}:r{round_index}:{task.id}:{task.seed}:{index}",
                goal=task.goal, memory=prepared.memory_text, ui=prepared.ui,
                candidates=[c.to_json() for c in cands], descriptions=prepared.descriptions,
                positive=label_idx, equivalent=equiv, completion=completion, source=source, task_id=task.id,
                seed=task.seed, step=index, split=split, policy=policy_name, round=round_index,
                oracle_action=label_action.to_json(),
                entropy=float(entropy) if entropy is not None else None,
                policy_choice=int(choice) if isinstance(choice, int) and choice < len(cands) else None)
            if keep is None or keep(rec):
                stats.records[source] += 1
                yield rec

        # What is executed: the policy's action.
        mistake = False
        if agent is not None:
            action = out_action
        elif isinstance(policy, NoisyOracle):
            action, mistake = policy.choose(oracle, cands, pos)
        else:
            action = oracle
        step = Step(index=index, observation=obs, action=action)
        history.append(step)
        if action is None:
            continue
        if action.action_type == "status":
            declared_done = action.goal_status == "complete"
            break
        if action.action_type == "answer":
            answered = True
        before = obs.xml
        try:
            obs = env.step(action)
        except (ActionValidationError, EnvError) as exc:
            step.error = str(exc)
        last_mistake = (action, before) if mistake else None
    answer = next((s.action.text for s in reversed(history) if s.action is not None
                   and s.action.action_type == "answer"), None)
    if declared_done and task.is_successful(env.phone, answer) >= 1.0:
        stats.episode_success += 1
    env.close()


class ItemBackend(Protocol):
    """What :func:`collect` needs of a rollout backend (``runner.backends``: ``LocalBackend``,
    ``RayBackend``, ``InlineBackend``; not imported here, the runner sits above training)."""

    def imap_unordered(self, setup: Callable[[], Any], fn: Callable[[Any, Any], Any],
                       items: Sequence[Any]) -> Iterator[tuple[int, Any]]: ...


def self_correction_rng(seed: int, task: Task) -> random.Random:
    """The generator that decides which of an episode's mistakes get a self-correction label.

    One per episode, derived from ``(seed, task.id, task.seed)``, so an episode's records do not
    depend on which episodes ran before it (or on which worker): parallel collection gives the same
    records as serial. (Before parallel collection one generator was shared by the whole
    collection.) Its stream is distinct from the :class:`NoisyOracle`'s, which is seeded
    ``f"{seed}:{task.id}:{task.seed}"``.
    """
    return random.Random(f"self-correction:{seed}:{task.id}:{task.seed}")


class _Collector:
    """A worker's state, built once: the prompt preparer, and what every episode is collected with."""

    def __init__(self, apps: Sequence[str], policy: str | PolicyFactory, epsilon: float,
                 self_correction_rate: float, seed: int, round_index: int, max_steps: int | None) -> None:
        self.apps = list(apps)
        self.policy = policy
        self.epsilon = epsilon
        self.self_correction_rate = self_correction_rate
        self.seed = seed
        self.round_index = round_index
        self.max_steps = max_steps
        self.preparer = VerifierAgent(None, memory="diff", apps=self.apps)  # type: ignore[arg-type] -- prepare() needs no LLM

    def episode(self, task: Task, split: str) -> tuple[list[VerifierStepRecord], CollectStats]:
        """Every record of one episode (unfiltered) and the episode's own statistics."""
        policy = self.policy
        if policy == "oracle":
            pol: Any = None
        elif policy == "noisy":
            pol = NoisyOracle(self.epsilon, random.Random(f"{self.seed}:{task.id}:{task.seed}"), self.apps)
        else:
            pol = policy(task)  # type: ignore[operator] -- a factory (checked by collect)
        stats = CollectStats()
        recs = list(_episode_records(task, split=split, preparer=self.preparer, policy=pol,
                                     rng=self_correction_rng(self.seed, task), stats=stats,
                                     self_correction_rate=self.self_correction_rate,
                                     round_index=self.round_index, keep=None, max_steps=self.max_steps))
        return recs, stats


def _collect_episode(state: _Collector, item: tuple[Task, str]) -> tuple[list[VerifierStepRecord], CollectStats]:
    """One unit of work of a parallel collection: one episode (module-level: sent to workers)."""
    task, split = item
    return state.episode(task, split)


def _merge(total: CollectStats, episode: CollectStats, kept: Sequence[VerifierStepRecord]) -> None:
    """Add one episode's statistics to ``total`` as if it had been collected into ``total``."""
    total.episodes += episode.episodes
    total.steps += episode.steps
    total.records.update(r.source for r in kept)
    total.unmatched.update(episode.unmatched)
    total.oracle_errors.update(episode.oracle_errors)
    total.episode_success += episode.episode_success
    for ex in episode.unmatched_examples:  # oracle errors always; unmatched steps up to 200 in all
        if "oracle_error" in ex or len(total.unmatched_examples) < 200:
            total.unmatched_examples.append(ex)


def collect(
    tasks: Iterable[Task],
    *,
    split_of: Callable[[str], str],
    apps: Sequence[str],
    policy: str | PolicyFactory = "oracle",
    epsilon: float = 0.3,
    self_correction_rate: float = 0.5,
    seed: int = 0,
    round_index: int = 0,
    keep: Callable[[VerifierStepRecord], bool] | None = None,
    max_steps: int | None = None,
    stats: CollectStats | None = None,
    on_episode: Callable[[Task, CollectStats], None] | None = None,
    backend: ItemBackend | None = None,
) -> Iterator[VerifierStepRecord]:
    """Labelled steps from episodes of ``tasks``.

    ``policy``: ``"oracle"`` (the oracle's path), ``"noisy"`` (:class:`NoisyOracle` with
    ``epsilon``; self-correction records follow its mistakes with probability
    ``self_correction_rate``, drawn by :func:`self_correction_rng`), or a factory ``task -> Agent``
    whose agent acts while the oracle labels every state it visits. ``keep(record)`` filters records
    (entropy triage). Statistics (unmatched oracle actions per template included) accumulate in
    ``stats``, one episode at a time; ``on_episode(task, stats)`` follows each episode.

    ``backend`` (``runner.backends.LocalBackend`` / ``RayBackend``): collect the episodes on its
    workers, one episode per unit of work, each worker building its prompt preparer once. Records,
    statistics and ``on_episode`` calls come in the order of ``tasks`` whatever the backend, and are
    the same as without one (an episode depends only on its task, its seed and ``seed``). A policy
    factory is then called in the workers and must be picklable (a module-level function or class,
    ``functools.partial``); ``keep``, ``split_of`` and ``on_episode`` run in this process.
    """
    stats = stats if stats is not None else CollectStats()
    if not (policy in ("oracle", "noisy") or (callable(policy) and not isinstance(policy, str))):
        raise TrainingError(f"unknown policy {policy!r}: use 'oracle', 'noisy' or an agent factory")
    task_list = list(tasks)
    if not task_list:
        return
    items = [(task, split_of(task.id)) for task in task_list]
    setup = functools.partial(_Collector, list(apps), policy, epsilon, self_correction_rate, seed, round_index,
                              max_steps)
    if backend is None:
        results: Iterator[tuple[int, Any]] = _inline(setup, _collect_episode, items)
    else:
        results = backend.imap_unordered(setup, _collect_episode, items)
    waiting: dict[int, tuple[list[VerifierStepRecord], CollectStats]] = {}
    nxt = 0
    try:
        for index, result in results:
            waiting[index] = result
            while nxt in waiting:  # in task order, whatever order the workers finish in
                recs, ep_stats = waiting.pop(nxt)
                kept = recs if keep is None else [r for r in recs if keep(r)]
                _merge(stats, ep_stats, kept)
                yield from kept
                if on_episode is not None:
                    on_episode(task_list[nxt], stats)
                nxt += 1
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()  # a caller that stops early stops the workers now, not when collected


def _inline(setup: Callable[[], Any], fn: Callable[[Any, Any], Any],
            items: Sequence[Any]) -> Iterator[tuple[int, Any]]:
    """In this process, one item after another (what ``InlineBackend`` does)."""
    state = setup()
    for i, item in enumerate(items):
        yield i, fn(state, item)
