"""Verifier training data from the simulator, labelled by the task oracles.

Three sources (after V-Droid sections 4-5, with the oracle as the human annotator):

- ``oracle``: states on the oracle's own path.
- ``policy``: states a behaviour policy visits (a noisy oracle that takes a wrong action now and
  then, or any droidverify agent such as the current verifier), each labelled by the oracle,
  which names the correct next action from any state (every visited state, on the policy's own
  uncorrected path). V-Droid's human-agent joint annotation, where the annotator corrects only the
  agent's uncertain steps and the episode goes on from the correction, is ``annotate_above``.
- ``self_correction``: right after a wrong action that changed the screen, the reverse action is
  the positive (click/long_press -> back, open_app -> home, scroll -> the opposite scroll,
  input_text -> clear_text on the same field).

Any of them can start away from the launcher (``collect(start=...)``): a hidden, unrecorded prefix
(the oracle's first steps, or a few of them and a harmless detour) leaves the episode mid-task,
where recording begins with an empty working memory, as for an agent a user starts in an app.

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
from typing import Any

from droidverify.actions.model import Action
from droidverify.agents.base import Agent, AgentOutput
from droidverify.agents.screen import needs_completion
from droidverify.agents.verifier.agent import VerifierAgent, completion_question
from droidverify.agents.verifier.record import VerifierStepInfo
from droidverify.core.items import ItemBackend, run_inline
from droidverify.env.records import (
    Observation,
    Step,
    Trajectory,
    episode_end,
    episode_success,
    is_success,
    oracle_after_answer,
)
from droidverify.episode.loop import EndEpisode, play
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
    # Episodes started after a hidden prefix (``collect(start=...)``): episodes by start mode, the
    # unrecorded prefix steps executed, and prefixes cut short ("mode:reason"; the episode is then
    # recorded from where its prefix stopped, the launcher at worst).
    starts: Counter = field(default_factory=Counter)
    prefix_steps: int = 0
    start_fallbacks: Counter = field(default_factory=Counter)

    def to_dict(self) -> dict[str, Any]:
        out = {"episodes": self.episodes, "steps": self.steps, "records": dict(self.records),
               "unmatched_total": sum(self.unmatched.values()), "unmatched": dict(self.unmatched),
               "unmatched_examples": self.unmatched_examples[:20],
               "oracle_errors": dict(self.oracle_errors), "episode_success": self.episode_success}
        if self.starts:  # (launcher starts only: the same statistics as before start modes existed)
            out.update({"starts": dict(self.starts), "prefix_steps": self.prefix_steps,
                        "start_fallbacks": dict(self.start_fallbacks)})
        return out


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


def _uncertainty(info: dict[str, Any]) -> float:
    """The policy step's normalised entropy; a step that records none counts as fully uncertain."""
    ent = VerifierStepInfo.from_info(info).entropy_normalized
    return 1.0 if ent is None else ent


def _policy_choice(info: dict[str, Any], candidates: Sequence[Action], elements: Sequence[Any]) -> int | None:
    """The record candidate the policy ranked first. A verifier that expands placeholders into
    values (``content="select"``) ranks more candidates than the record holds: its argmax is mapped
    back by what it does (its value aside)."""
    best = VerifierStepInfo.from_info(info)
    top = best.candidate(best.argmax)
    if top is None:
        return None
    try:
        action = Action.model_validate_json(top.action)
    except ValueError:
        return None
    return match_candidate(action, candidates, elements)


# Candidate kinds that can be executed as they are (no placeholder content) and change the screen.
_EXECUTABLE = ("click", "long_press", "scroll", "clear_text", "navigate_back", "navigate_home",
               "keyboard_enter", "double_tap")


def equivalent_candidates(phone: Any, task: Task, label: Action, candidates: Sequence[Action],
                          positive: int) -> list[int]:
    """Candidates other than ``positive`` that do what ``label`` does: executed on copies of the
    phone they reach the same screen and app data (``outcome``), and that state differs
    from now.

    A launcher icon and ``open_app``, the navigation bar's Back button and ``navigate_back``, a
    row and its checkbox: teaching the verifier that one of them is wrong would contradict the
    other. Terminal actions (status, answer) and ``wait`` have no outcome to compare.
    """
    from droidverify.env.sim.env import outcome

    if label.action_type in ("status", "answer", "wait"):
        return []
    target = outcome(phone, label)
    if target == outcome(phone, None):
        return []  # the label changes nothing (or was rejected): no outcome to match
    return [j for j, c in enumerate(candidates)
            if j != positive and c.action_type in _EXECUTABLE and outcome(phone, c) == target]


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

# Where an episode's recording starts: the launcher (the task's reset state), or after a hidden prefix.
START_MODES = ("launcher", "mid", "detour")
SKIN_MODES = ("none", "seeded")


def skin_index(mode: str, seed: int, task: Task, start: str = "launcher") -> int:
    """The simulator skin an episode is collected in: 0 (today's look) for ``"none"``; for
    ``"seeded"`` one of 0..N drawn per episode from ``(seed, task, start)`` (any backend: the same)."""
    if mode == "none":
        return 0
    if mode != "seeded":
        raise TrainingError(f"unknown skin mode {mode!r}: use one of {SKIN_MODES}")
    from droidverify.env.sim.skin import SKIN_COUNT

    return random.Random(f"skin:{seed}:{task.id}:{task.seed}:{start}").randrange(SKIN_COUNT + 1)
_TERMINAL = ("status", "answer")
_OTHER_APP_SHARE = 0.2  # detours that open another app (else a click or scroll in the app; another
# app only where no click or scroll qualifies)
_DETOUR_PROBES = 4  # candidates tried per kind before the next kind


def start_rng(seed: int, task: Task) -> random.Random:
    """The generator that draws an episode's hidden prefix (its length, its detour): one per
    episode from ``(seed, task.id, task.seed)``, a stream distinct from :func:`self_correction_rng`
    and the :class:`NoisyOracle`'s, so records do not depend on the worker or the episodes before."""
    return random.Random(f"start:{seed}:{task.id}:{task.seed}")


def _oracle_path_length(phone: Any, task: Task, limit: int) -> tuple[int, str | None]:
    """How many non-terminal actions the oracle takes from ``phone``'s state (on a clone) before
    its first status/answer, and why it stopped otherwise (None: it reached one)."""
    from droidverify.env.sim import SimEnv

    probe = SimEnv.attach(phone.clone(), task)
    try:
        obs = probe.observe()
        for n in range(limit):
            try:
                action = task.oracle_action(probe.phone, obs)
            except Exception:  # noqa: BLE001 -- a broken oracle shortens the prefix, never the collection
                return n, "oracle_error"
            if action.action_type in _TERMINAL:
                return n, None
            try:
                obs = probe.step(action)
            except (ActionValidationError, EnvError):
                return n, "step_error"
        return limit, "no_end"
    finally:
        probe.close()


def _follow_oracle(env: Any, obs: Any, task: Task, k: int) -> tuple[Any, int, str | None]:
    """Execute up to ``k`` oracle actions on ``env`` (unrecorded). Stops before a status/answer
    (the task is done: it is recorded) or where the oracle raises or its action is rejected.
    Returns (observation, steps executed, why it stopped early or None)."""
    for n in range(k):
        try:
            action = task.oracle_action(env.phone, obs)
        except Exception:  # noqa: BLE001 -- counted by the caller
            return obs, n, "oracle_error"
        if action.action_type in _TERMINAL:
            return obs, n, "task_done"
        try:
            obs = env.step(action)
        except (ActionValidationError, EnvError):
            return env.observe(), n, "step_error"
    return obs, k, None


def _detour_action(env: Any, obs: Any, task: Task, rng: random.Random, apps: Sequence[str],
                   kinds: Sequence[str]) -> Action | None:
    """A wrong but harmless action on ``obs``: a click or scroll that changes the screen within the
    app, or another app's launch, that leaves every app's data as it is, does not do what the
    oracle's action does, and leaves a state the oracle can still label. ``kinds`` are tried in
    order (click and scroll in a random order). None if no candidate tried qualifies."""
    from droidverify.agents.verifier.candidates import extract_candidates
    from droidverify.env.sim import SimEnv
    from droidverify.env.sim.env import Outcome, outcome

    try:
        right: Action | None = task.oracle_action(env.phone, obs)
    except Exception:  # noqa: BLE001 -- no right action known: any harmless one will do
        right = None
    idle = outcome(env.phone, Action(action_type="wait"))  # time passes, nothing else
    right_out = (outcome(env.phone, right) if right is not None and right.action_type not in _TERMINAL
                 else None)
    cands = extract_candidates(obs, apps=apps)
    pools = {"click": [c for c in cands if c.action_type == "click"],
             "scroll": [c for c in cands if c.action_type == "scroll"],
             "open_app": [Action(action_type="open_app", app_name=a) for a in apps
                          if right is None or a != right.app_name]}
    order = [k for k in kinds if k != "scroll"]
    if "scroll" in kinds:
        order.insert(rng.randrange(len(order) + 1) if "click" in kinds else 0, "scroll")
    for kind in [k for k in order if pools[k]]:
        pool = list(pools[kind])
        rng.shuffle(pool)
        for action in pool[:_DETOUR_PROBES]:
            probe = SimEnv.attach(env.phone.clone(), task)
            try:
                probe.observe()
                try:
                    after = probe.step(action)
                except (ActionValidationError, EnvError):
                    continue
                probe.phone.conn.commit()
                out = Outcome(after.xml, probe.phone.conn.serialize())
                if out.xml == idle.xml or not out.same_data(idle) or out == right_out:
                    continue  # changes no screen, changes data, or is the right action after all
                if kind != "open_app" and after.package != obs.package:
                    continue  # a click that leaves the app (the navigation bar's Home, an icon)
                try:
                    task.oracle_action(probe.phone, after)
                except Exception:  # noqa: BLE001, S112 -- a state the oracle cannot label is no start
                    continue
                return action
            finally:
                probe.close()
    return None


def _start_prefix(env: Any, obs: Any, task: Task, mode: str, rng: random.Random, apps: Sequence[str],
                  limit: int, stats: CollectStats) -> Any:
    """Run an episode's hidden prefix on ``env`` (nothing recorded, nothing in the history) and
    return the observation recording starts on.

    ``mid``: the oracle's first k actions, k uniform in 1..n, n the oracle's actions before its
    first status/answer (the states it can label), so the start lies inside the task, at worst on
    the state where it is done. ``detour``: j oracle actions (j uniform in 1..n-1, 0 where n < 2:
    the detour leaves from inside the task, not the launcher), then 1 or 2 wrong but harmless
    actions (:func:`_detour_action`: one in five opens another app, the others click or scroll
    inside the app), from which the agent must recover.
    Anything that cuts a prefix short (a path too short, an oracle error, no harmless detour) is
    counted in ``stats.start_fallbacks`` and recording starts where the prefix stopped.
    """
    stats.starts[mode] += 1
    n, why = _oracle_path_length(env.phone, task, limit)
    if why is not None:
        n -= 1  # the last state's oracle action raised or was rejected: no start there
        stats.start_fallbacks[f"{mode}:path_{why}"] += 1
    if mode == "mid":
        if n < 1:
            stats.start_fallbacks[f"{mode}:short_path"] += 1
            return obs
        obs, done, stop = _follow_oracle(env, obs, task, rng.randint(1, n))
        stats.prefix_steps += done
    else:
        j = rng.randint(1, n - 1) if n >= 2 else 0
        wrong = rng.randint(1, 2)
        # Mostly in-app detours: leaving the app makes "open the app" the recovery, the habit of
        # launcher starts these episodes are meant to balance.
        leave = rng.random() < _OTHER_APP_SHARE
        obs, done, stop = _follow_oracle(env, obs, task, j)
        stats.prefix_steps += done
        if stop is None:
            for w in range(wrong):
                kinds = ("open_app",) if leave and w == 0 else ("click", "scroll", "open_app") if w == 0 \
                    else ("click", "scroll")
                action = _detour_action(env, obs, task, rng, apps, kinds)
                if action is None:
                    if w == 0:
                        stop = "no_detour"
                    break
                try:
                    obs = env.step(action)
                except (ActionValidationError, EnvError):  # (the probe accepted it: not expected)
                    obs, stop = env.observe(), "step_error"
                    break
                stats.prefix_steps += 1
    if stop is not None:
        stats.start_fallbacks[f"{mode}:{stop}"] += 1
    return obs


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
    annotate_above: float | None = None,
    start: str = "launcher",
    prefix_rng: random.Random | None = None,
    skin: int = 0,
) -> Iterator[VerifierStepRecord]:
    from droidverify.env.sim import SimEnv

    env = SimEnv(task=task, seed=task.seed, skin=skin)
    obs = env.reset()
    limit = max_steps or task.max_steps
    if start != "launcher":  # a hidden prefix: executed, never recorded nor remembered
        obs = _start_prefix(env, obs, task, start, prefix_rng or start_rng(0, task), preparer.apps or [],
                            limit, stats)
    preparer.reset(task.goal)
    agent = policy if isinstance(policy, Agent) else None
    if agent is not None:
        if hasattr(agent, "bind"):
            agent.bind(env, task)
        agent.reset(task.goal)
    policy_name = ("oracle" if policy is None else getattr(policy, "name", type(policy).__name__))
    stats.episodes += 1
    tag = "" if start == "launcher" else f"{start}:"  # keeps record ids unique across start modes
    labeller = _Labeller(task, env, split=split, preparer=preparer, policy=policy, agent=agent, rng=rng,
                         stats=stats, self_correction_rate=self_correction_rate, round_index=round_index,
                         keep=keep, annotate_above=annotate_above, skin=skin, tag=tag, policy_name=policy_name)
    # the executed actions' steps, as the labeller and the policy see them (no timings, no raw output)
    traj = Trajectory(task_id=task.id, goal=task.goal, seed=task.seed, agent=policy_name)
    play(labeller, env, traj, obs, limit=limit, timed=False, catch_agent_errors=False,
         rejection=_rejection, no_action_error=None)
    history = traj.steps
    declared_done = traj.declared_done
    answer = next((s.action.text for s in reversed(history) if s.action is not None
                   and s.action.action_type == "answer"), None)
    # an undeclared episode fails whatever its checker says, so the checker runs only on a declared one
    score = float(task.is_successful(env.phone, answer)) if declared_done else None
    stats.episode_success += int(is_success(episode_success(score, declared_done)))
    env.close()
    yield from labeller.records


def _rejection(_error: str | None, _action: Action, exc: Exception) -> str:
    return str(exc)


class _Labeller:
    """The scripted agent of a collected episode: per step it prepares the verifier's prompt, asks the
    oracle (which ends the episode when it fails), labels the step (oracle, policy, self-correction or
    annotation), records it, and returns the action to execute -- the oracle's, the noisy oracle's or
    the policy's (or the annotator's correction of it)."""

    def __init__(self, task: Task, env: Any, *, split: str, preparer: VerifierAgent,
                 policy: Agent | NoisyOracle | None, agent: Agent | None, rng: random.Random, stats: CollectStats,
                 self_correction_rate: float, round_index: int, keep: Callable[[VerifierStepRecord], bool] | None,
                 annotate_above: float | None, skin: int, tag: str, policy_name: str) -> None:
        self.task, self.env, self.split, self.preparer, self.policy, self.agent = task, env, split, preparer, policy, agent
        self.rng, self.stats, self.self_correction_rate, self.round_index = rng, stats, self_correction_rate, round_index
        self.keep, self.annotate_above, self.skin, self.tag = keep, annotate_above, skin, tag
        self.policy_name = policy_name
        self.records: list[VerifierStepRecord] = []
        self.answered = False
        self.last_mistake: tuple[Action, str] | None = None  # (wrong action, screen xml before it)

    def reset(self, goal: str) -> None:
        pass

    def act(self, obs: Observation, history: list[Step]) -> AgentOutput:
        task, env, split, preparer, policy, agent = self.task, self.env, self.split, self.preparer, self.policy, self.agent
        rng, stats, self_correction_rate, round_index = self.rng, self.stats, self.self_correction_rate, self.round_index
        keep, annotate_above, skin, tag, policy_name = self.keep, self.annotate_above, self.skin, self.tag, self.policy_name
        answered, last_mistake = self.answered, self.last_mistake
        index = len(history)
        prepared = preparer.prepare(obs, history)
        cands = prepared.candidates
        try:
            oracle = task.oracle_action(env.phone, obs)
        except Exception as exc:  # noqa: BLE001 -- a broken oracle is counted, the episode ends
            stats.oracle_errors[task.id] += 1
            stats.unmatched_examples.append({"task": task.id, "seed": task.seed, "step": index,
                                             "oracle_error": f"{type(exc).__name__}: {exc}"})
            raise EndEpisode from None
        oracle = oracle_after_answer(oracle, answered)
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
        corrected = False
        if agent is not None:
            out = agent.act(obs, list(history))
            out_action = out.action
            policy_info = out.info or {}
            if annotate_above is not None and source == "policy":
                # V-Droid's joint annotation: the annotator (the oracle) corrects an uncertain step and
                # the episode goes on from the correction; a confident step keeps the policy's choice,
                # which becomes its label.
                if _uncertainty(policy_info) >= annotate_above or out_action is None:
                    corrected, source = True, "annotated"
                else:
                    own = match_candidate(out_action, cands, obs.elements)
                    if own is not None:
                        source, label_idx, label_action = "self_label", own, out_action
                    else:  # the policy's action is not a candidate: the annotator steps in
                        corrected, source = True, "annotated"
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
            choice = _policy_choice(policy_info, cands, obs.elements)
            rec = VerifierStepRecord(
                record_id=f"{policy_name}:r{round_index}:{task.id}:{task.seed}:{tag}{index}",
                goal=task.goal, memory=prepared.memory_text, ui=prepared.ui,
                candidates=[c.to_json() for c in cands], descriptions=prepared.descriptions,
                positive=label_idx, equivalent=equiv, completion=completion, source=source, task_id=task.id,
                seed=task.seed, step=index, split=split, policy=policy_name, round=round_index,
                oracle_action=label_action.to_json(),
                entropy=float(entropy) if entropy is not None else None,
                policy_choice=int(choice) if isinstance(choice, int) and choice < len(cands) else None,
                xml=obs.xml, skin=skin, phrasing=task.phrasing)
            if keep is None or keep(rec):
                stats.records[source] += 1
                self.records.append(rec)

        # What is executed: the policy's action (or the annotator's correction of it).
        mistake = False
        if agent is not None:
            action = oracle if corrected else out_action
        elif isinstance(policy, NoisyOracle):
            action, mistake = policy.choose(oracle, cands, pos)
        else:
            action = oracle
        if action is not None and not episode_end(action)[0]:  # executed: what the next step sees
            self.answered = answered or action.action_type == "answer"
            self.last_mistake = (action, obs.xml) if mistake else None
        return AgentOutput(action=action)


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
                 self_correction_rate: float, seed: int, round_index: int, max_steps: int | None,
                 annotate_above: float | None = None, start: str = "launcher", skin: str = "none",
                 memory: str = "diff") -> None:
        self.apps = list(apps)
        self.skin = skin
        self.policy = policy
        self.epsilon = epsilon
        self.self_correction_rate = self_correction_rate
        self.seed = seed
        self.round_index = round_index
        self.max_steps = max_steps
        self.annotate_above = annotate_above
        self.start = start
        self.preparer = VerifierAgent(None, memory=memory, apps=self.apps)  # type: ignore[arg-type] -- prepare() needs no LLM

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
                                     round_index=self.round_index, keep=None, max_steps=self.max_steps,
                                     annotate_above=self.annotate_above, start=self.start,
                                     prefix_rng=start_rng(self.seed, task),
                                     skin=skin_index(self.skin, self.seed, task, self.start)))
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
    total.starts.update(episode.starts)
    total.prefix_steps += episode.prefix_steps
    total.start_fallbacks.update(episode.start_fallbacks)
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
    self_correction_rate: float = 0.12,
    seed: int = 0,
    round_index: int = 0,
    keep: Callable[[VerifierStepRecord], bool] | None = None,
    max_steps: int | None = None,
    stats: CollectStats | None = None,
    on_episode: Callable[[Task, CollectStats], None] | None = None,
    backend: ItemBackend | None = None,
    annotate_above: float | None = None,
    start: str = "launcher",
    skin: str = "none",
    memory: str = "diff",
) -> Iterator[VerifierStepRecord]:
    """Labelled steps from episodes of ``tasks``.

    ``policy``: ``"oracle"`` (the oracle's path), ``"noisy"`` (:class:`NoisyOracle` with
    ``epsilon``; self-correction records follow its mistakes with probability
    ``self_correction_rate``, drawn by :func:`self_correction_rng`; 0.12 as in ``loop.DataSpec`` and
    ``train data``: 1.2% of the records of the default data set, docs/training.md), or a factory
    ``task -> Agent`` whose agent acts while the oracle labels every state it visits.
    ``keep(record)`` filters records (entropy triage). Statistics (unmatched oracle actions per
    template included) accumulate in ``stats``, one episode at a time; ``on_episode(task, stats)``
    follows each episode.

    ``annotate_above`` (an agent factory's policy only): V-Droid's joint annotation. At every step
    the agent proposes; where its normalised entropy is at or above this, the oracle (the annotator)
    corrects it (record source ``annotated``) and the episode continues from the correction; below
    it the agent's own action is executed and becomes the label (``self_label``). Every step joins
    the data. None: the oracle labels every state the uncorrected agent visits (source ``policy``).

    ``start``: where recording begins. ``"launcher"`` (the default): the task's reset state, as
    always. ``"mid"``: after the oracle's first k actions (k uniform in 1..n, n the actions before
    its first status/answer), i.e. inside the app, mid-task. ``"detour"``: after a few oracle actions
    then 1-2 wrong but harmless ones (a click or scroll that changes the screen but no app data,
    another app's launch), from which the episode must recover. The prefix is executed but neither
    recorded nor put in the history, so the first recorded step has an empty working memory, as a
    freshly started agent has. It is drawn by :func:`start_rng` (per episode: the same records with
    any backend). Records of such episodes count steps from the start (``step`` 0 = first recorded)
    and carry the mode in their ``record_id`` (``oracle:r0:TASK:SEED:mid:STEP``). A prefix cut short
    (the oracle raises, no harmless detour exists) is counted in ``stats.start_fallbacks`` and the
    episode is recorded from where it stopped.

    ``skin``: ``"none"`` collects in the simulator's own look; ``"seeded"`` draws a skin per episode
    (:func:`skin_index`: relabelled chrome, reordered toolbars, other sizes; ``env.sim.skin``), so a
    verifier does not learn one app's pixels and labels. The record's ``skin`` field names it.

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
    if annotate_above is not None and policy in ("oracle", "noisy"):
        raise TrainingError("annotate_above= needs an agent policy (the oracle annotates the agent's steps)")
    if start not in START_MODES:
        raise TrainingError(f"unknown start {start!r}: use one of {START_MODES}")
    if skin not in SKIN_MODES:
        raise TrainingError(f"unknown skin mode {skin!r}: use one of {SKIN_MODES}")
    if memory not in ("history", "diff", "notes"):  # "llm" would need a model in every worker
        raise TrainingError(f"unknown working memory {memory!r} for collection: use history, diff or notes")
    setup = functools.partial(_Collector, list(apps), policy, epsilon, self_correction_rate, seed, round_index,
                              max_steps, annotate_above, start, skin, memory)
    if backend is None:
        results: Iterator[tuple[int, Any]] = run_inline(setup, _collect_episode, items)
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
