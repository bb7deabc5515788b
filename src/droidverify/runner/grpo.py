"""The player behind GRPO rollout groups (``training.grpo.rollout_groups``): one sampled episode on
the simulator, run by :func:`~droidverify.runner.episode.run_episode` and scored by a judge.

It lives here, at the edge, because it joins what the training layer may not import: the episode
runner and the ``rewards`` judges (tests/test_architecture.py). ``training.grpo`` holds the
configuration, the records, the advantages and the backend loop::

    from droidverify.runner.backends import LocalBackend
    from droidverify.runner.grpo import GRPOPlayer
    from droidverify.training.grpo import GRPOConfig, rollout_groups

    cfg = GRPOConfig(group_size=8, temperature=1.0, split="train", seeds=[0])
    with LocalBackend(2) as backend:
        groups = rollout_groups(None, cfg, player=GRPOPlayer("generator"), backend=backend, out="g.jsonl")

The judge is never the policy's own model unless asked for (``judge_model=POLICY_JUDGE``): a judge
that trains along with the policy lets the reward drift. SmartSnap's reward is therefore judged by
default by the shipped compact evidence judge (:class:`CompactEvidenceReward`), a separate trained
network that stays fixed while the policy learns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from droidverify.agents.registry import DTYPES, MEMORIES, SAMPLING_AGENTS
from droidverify.env.records import Trajectory
from droidverify.errors import JudgeInputError, RunError
from droidverify.llm.registry import is_remote, load_model
from droidverify.rewards.base import Judgement, Tally, trajectory_id
from droidverify.rewards.confidence import NOT_A_REWARD
from droidverify.tasks.base import Task
from droidverify.training.grpo import REWARDS, GRPOConfig, GRPOMember

GRPO_AGENTS = SAMPLING_AGENTS  # the agents that sample their actions (the verifier ranks)
# ``judge_model`` value naming the policy's own LLM as the judge: allowed, but only when asked for.
POLICY_JUDGE = "policy"


class CompactEvidenceReward:
    """SmartSnap's composite (3C) reward with the trained compact judge (``rewards.compact_judge``,
    setting ``evidence``) in place of the LLM judge's votes.

    The composition is ``rewards.smartsnap``'s: format failures (``check_submit``) are -1 without
    judging; otherwise the votes go through ``combine_votes`` (majority success +1, else majority
    evidence-valid 0, else -1; -0.1 per evidence beyond 3). The compact judge gives one verdict, so
    it is **one vote**, and it reads no separate "is the evidence valid" answer, so that vote's
    ``evidence_valid`` is None: a verdict of failure is -1, and the 0 tier (valid evidence of an
    unfinished task) is never reached. A compact judgement that is ``undecided`` (the episode could
    not be read) is an errored vote: outcome ``undecided`` with ``parse_status`` ``error``, which GRPO
    treats as a failed judge (``training.grpo.judge_failure``), not as a proven failure.
    """

    name = "smartsnap-compact"

    def __init__(self, compact: Any) -> None:
        if getattr(compact, "setting", None) != "evidence" or not isinstance(getattr(compact, "version", None), str):
            raise JudgeInputError(f"the SmartSnap compact reward needs a compact judge of setting 'evidence', "
                                  f"got {compact!r} (setting {getattr(compact, 'setting', None)!r})")
        self.compact = compact
        self.version = f"3c-1+{compact.version}"

    def judge(self, trajectory: Trajectory) -> Judgement:
        from droidverify.rewards.smartsnap import Vote, check_submit, combine_votes, format_failure

        tally = Tally()
        eid = trajectory_id(trajectory)
        check = check_submit(trajectory)
        if not check.ok:
            return format_failure(tally, eid, self.name, self.version, check)
        inner = self.compact.judge(trajectory)
        p = inner.components.get("p_success")
        if inner.outcome == "undecided":
            vote = Vote(None, None, "error", f"the compact judge could not read the episode: {inner.error}")
        else:
            vote = Vote(inner.outcome, None, "strict", reasoning=inner.rationale, p_yes=p)
        combo = combine_votes([vote], len(check.evidences))
        outcome = combo.pop("outcome")
        judgement = tally.judgement(
            episode_id=eid, judge=self.name, version=self.version, outcome=outcome, reward=combo["reward"],
            components={"format_ok": True, **combo, "p_success": p,
                        "threshold": inner.components.get("threshold")},
            rationale=inner.rationale or combo["rule"], parse_status=vote.status, error=vote.error,  # type: ignore[arg-type]
            details={"votes": [vote.to_dict()], "exhibits": [{"round": r, "step": r} for r in check.evidences],
                     "message": check.message[:2000], "submit_round": check.submit_round,
                     "compact": inner.to_dict()})
        judgement.tokens_in = inner.tokens_in
        return judgement


@dataclass(frozen=True)
class GRPOPlayer:
    """A picklable player factory: ``player(cfg)`` builds a worker's state once (loads the policy
    LLM and the judge), which then plays and judges one group member per call.

    ``agent``: ``generator`` or ``smartsnap`` (SmartSnap's self-verifying agent, ending with
    ``submit``). ``model``: the policy LLM spec (``load_llm``: None for the bundled model, a path,
    ``openai:URL[#model]`` -- a server that honours the request ``seed`` makes groups repeatable);
    ``llm``: a picklable LLM factory to use instead (tests, custom backends). ``judge``: a ``Judge``
    or a picklable judge factory carrying ``name`` and ``version`` (``rewards.registry.JudgeSpec``); None:
    the judge ``cfg.reward`` names -- ``rule`` (the task checker) or ``smartsnap`` (SmartSnap's
    composite reward). The smartsnap judge is never the policy by default: with ``judge_model``
    None it is the trained compact evidence judge (:class:`CompactEvidenceReward`; ``compact_judge``:
    its directory, None: the shipped one); ``judge_model`` an LLM spec: SmartSnap's LLM evidence
    judge with ``votes`` votes on that model (loaded once per worker; the policy's already loaded
    model when it is the same spec); :data:`POLICY_JUDGE` (``"policy"``): on the policy's own LLM,
    said explicitly. A judge that crashes, or whose model call fails, gives a member marked
    ``judge_failed`` and left out of its group's statistics (``training.grpo.judge_failure``).
    """

    agent: str = "generator"
    model: str | None = None
    llm: Callable[[], Any] | None = None
    memory: str = "diff"
    judge: Any = None
    judge_model: str | None = None
    compact_judge: str | None = None
    votes: int = 3
    dtype: str = "auto"
    device: str = "cpu"
    policy: str | None = None  # a trained LLM policy (``train llm-policy`` export) merged into the model

    def __post_init__(self) -> None:
        if self.policy is not None:
            from droidverify.agents.trained_policy import check_policy

            check_policy(self.policy, agent=self.agent, memory=self.memory)  # CheckpointError, before any work
            if self.llm is None and is_remote(self.model):
                raise RunError("a trained policy is merged into local weights: it cannot play on an "
                               f"OpenAI-compatible server ({self.model})")
        if self.agent not in GRPO_AGENTS:
            raise RunError(f"GRPO rollouts need a sampling agent: {', '.join(GRPO_AGENTS)} "
                           f"(got {self.agent!r})")
        if self.memory not in MEMORIES:
            raise RunError(f"unknown memory {self.memory!r}; use one of {', '.join(MEMORIES)}")
        if self.dtype not in DTYPES:
            raise RunError(f"unknown dtype {self.dtype!r}; use one of {', '.join(DTYPES)}")
        if isinstance(self.votes, bool) or not isinstance(self.votes, int) or self.votes < 1:
            raise RunError(f"votes must be an int >= 1, got {self.votes!r}")
        if self.judge_model is not None and (not isinstance(self.judge_model, str) or not self.judge_model.strip()):
            raise RunError(f"judge_model must be an LLM spec or {POLICY_JUDGE!r}, got {self.judge_model!r}")
        if self.judge_model is not None and self.compact_judge is not None:
            raise RunError(f"give the SmartSnap judge as an LLM (judge_model={self.judge_model!r}) or as a "
                           f"compact judge (compact_judge={self.compact_judge!r}), not both")
        if self.judge is not None:
            from droidverify.runner.judging import judge_identity

            if getattr(self.judge, "method", getattr(self.judge, "name", None)) in NOT_A_REWARD:
                raise RunError("the confidence judge reads the policy's own scores: a policy rewarded for its "
                               "confidence learns to be confident, not to succeed; judge GRPO rollouts by the "
                               "episode (rule, smartsnap, ...)")
            judge_identity(self.judge)  # a judge without name/version fails here, not in a worker

    @property
    def agent_name(self) -> str:
        return self.agent

    @property
    def loads_local_model(self) -> bool:
        return self.llm is None and not is_remote(self.model)

    def __call__(self, cfg: GRPOConfig) -> GRPOWorker:
        return GRPOWorker(self, cfg)


class GRPOWorker:
    """A worker's state: the policy LLM and the judge, built once; :meth:`play` per member."""

    def __init__(self, spec: GRPOPlayer, cfg: GRPOConfig) -> None:
        from droidverify.runner.judging import GuardedJudge

        self.spec = spec
        self.cfg = cfg
        self.llm = spec.llm() if spec.llm is not None else _load(spec.model, spec)
        self.description: str | None = None
        if spec.policy is not None:
            from droidverify.agents.trained_policy import apply_policy, policy_digest

            if cfg.policy != policy_digest(spec.policy):  # the groups must say which policy played them
                raise RunError(f"GRPOConfig.policy ({cfg.policy}) is not the digest of the policy played "
                               f"({spec.policy}); set it to agents.trained_policy.policy_digest(policy)")
            self.description = apply_policy(self.llm, spec.policy)["ui_style"]
        elif cfg.policy is not None:
            raise RunError("GRPOConfig.policy names a trained policy, but the player plays none (policy=)")
        if spec.judge is not None:
            j = spec.judge
            inner = j if hasattr(j, "judge") else j()
        elif cfg.reward == "rule":
            from droidverify.rewards.rule import RuleJudge

            inner = RuleJudge()
        elif cfg.reward == "smartsnap":
            inner = self._smartsnap_judge()
        else:
            raise RunError(f"unknown GRPO reward {cfg.reward!r}: use one of {', '.join(REWARDS)}, or give "
                           "the player a judge (judge=rewards.registry.JudgeSpec(METHOD, ...))")
        self.judge = GuardedJudge(inner)

    def _smartsnap_judge(self) -> Any:
        """SmartSnap's composite reward on a judge that is not the policy unless the spec says so."""
        spec = self.spec
        if spec.judge_model is None:
            from droidverify.rewards.compact_judge import CompactJudge

            return CompactEvidenceReward(CompactJudge.load(spec.compact_judge, "evidence"))
        from droidverify.rewards.smartsnap import EvidenceJudge

        named_policy = spec.judge_model == POLICY_JUDGE or (spec.llm is None and spec.judge_model == spec.model)
        return EvidenceJudge(self.llm if named_policy else _load(spec.judge_model, spec), votes=spec.votes)

    def make_agent(self, sample_seed: int) -> Any:
        """A fresh agent for one episode: sampling at the group's temperature with its own seed,
        recording each model call's prompt and reply for the trainer."""
        kw: dict[str, Any] = {"memory": self.spec.memory, "temperature": self.cfg.temperature,
                              "seed": sample_seed, "max_tokens": self.cfg.max_tokens,
                              "record_generations": True}
        if self.description is not None:  # a trained policy reads the screen as it was trained to
            kw["description"] = self.description
        if self.spec.agent == "smartsnap":
            from droidverify.agents.selfverify import SelfVerifyingAgent

            return SelfVerifyingAgent(self.llm, **kw)
        from droidverify.agents.generator import GeneratorAgent

        return GeneratorAgent(self.llm, **kw)

    def play(self, task: Task, member: int, sample_seed: int) -> GRPOMember:
        return play_member(self.make_agent(sample_seed), self.judge, task, member, sample_seed, self.cfg.max_steps)


def play_member(agent: Any, judge: Any, task: Task, member: int, sample_seed: int,
                max_steps: int | None) -> GRPOMember:
    """One group member: an episode of ``agent`` in a fresh simulator of the task's seed (every member
    starts from the same phone), judged where it ran."""
    from droidverify.env.sim import SimEnv
    from droidverify.runner.episode import run_episode

    env = SimEnv(task=task, seed=task.seed)
    try:
        traj = run_episode(agent, env, task, max_steps=max_steps)
        traj.metadata["episode_id"] = f"{task.id}:{task.seed}:g{member}"
        traj.metadata["grpo"] = {"member": member, "sample_seed": sample_seed}
        j = judge.judge(traj, env=env)
    finally:
        env.close()
    return GRPOMember.judged(member, sample_seed, traj, j.to_dict())


def _load(model: str | None, spec: GRPOPlayer) -> Any:
    return load_model(model, dtype=spec.dtype, device=spec.device)


@dataclass(frozen=True)
class CompactPolicyPlayer:
    """A picklable player factory for the compact policy (``training.policy_grpo``): each member is an
    episode of ``VerifierAgent`` scoring with the compact verifier in ``policy`` (a directory) and
    drawing its action from softmax(scores / temperature) with the member's own seed, judged by the
    judge ``cfg.reward`` names: ``smartsnap`` (the default for a policy that ends with ``submit``:
    SmartSnap's composite on the compact evidence judge, ``compact_judge`` or the shipped one; an LLM
    evidence judge with ``judge_model``) or ``rule`` (the checker: the oracle upper bound)."""

    policy: str
    compact_judge: str | None = None
    judge_model: str | None = None
    votes: int = 3

    def __call__(self, cfg: GRPOConfig) -> CompactPolicyWorker:
        return CompactPolicyWorker(self, cfg)


class CompactPolicyWorker:
    def __init__(self, spec: CompactPolicyPlayer, cfg: GRPOConfig) -> None:
        from droidverify.agents.verifier.compact.scorer import CompactScorer
        from droidverify.runner.factories import installed_app_names
        from droidverify.runner.judging import GuardedJudge

        self.cfg = cfg
        self.scorer = CompactScorer.load(spec.policy)
        self.apps = installed_app_names("sim")
        if cfg.reward == "rule":
            from droidverify.rewards.rule import RuleJudge

            inner: Any = RuleJudge()
        elif cfg.reward == "smartsnap":
            if spec.judge_model is not None:
                from droidverify.rewards.smartsnap import EvidenceJudge

                inner = EvidenceJudge(_load(spec.judge_model, GRPOPlayer()), votes=spec.votes)
            else:
                from droidverify.rewards.compact_judge import CompactJudge

                inner = CompactEvidenceReward(CompactJudge.load(spec.compact_judge, "evidence"))
        else:
            raise RunError(f"unknown GRPO reward {cfg.reward!r}: use one of {', '.join(REWARDS)}")
        self.judge = GuardedJudge(inner)

    def play(self, task: Task, member: int, sample_seed: int) -> GRPOMember:
        from droidverify.agents.verifier import VerifierAgent

        agent = VerifierAgent(None, scorer=self.scorer, apps=self.apps, temperature=self.cfg.temperature,
                              sample_seed=sample_seed, memory=self.scorer.memory)
        return play_member(agent, self.judge, task, member, sample_seed, self.cfg.max_steps)
