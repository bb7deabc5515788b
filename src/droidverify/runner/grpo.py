"""The player behind GRPO rollout groups (``training.grpo.rollout_groups``): one sampled episode on
the simulator, run by :func:`~droidverify.runner.episode.run_episode` and scored by a judge.

It lives here, at the edge, because it joins what the training layer may not import: the episode
runner and the ``rewards`` judges (tests/test_architecture.py). ``training.grpo`` holds the
configuration, the records, the advantages and the backend loop::

    from droidverify.runner.backends import LocalBackend
    from droidverify.runner.grpo import GRPOPlayer
    from droidverify.training.grpo import GRPOConfig, rollout_groups

    cfg = GRPOConfig(group_size=4, temperature=1.0, split="train", seeds=[0])
    with LocalBackend(2) as backend:
        groups = rollout_groups(None, cfg, player=GRPOPlayer("generator"), backend=backend, out="g.jsonl")
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from droidverify.errors import RunError
from droidverify.runner.factories import DTYPES, MEMORIES
from droidverify.tasks.base import Task
from droidverify.training.grpo import REWARDS, GRPOConfig, GRPOMember

GRPO_AGENTS = ("generator", "smartsnap")  # the agents that sample their actions (the verifier ranks)


@dataclass(frozen=True)
class GRPOPlayer:
    """A picklable player factory: ``player(cfg)`` builds a worker's state once (loads the policy
    LLM and the judge), which then plays and judges one group member per call.

    ``agent``: ``generator`` or ``smartsnap`` (SmartSnap's self-verifying agent, ending with
    ``submit``). ``model``: the policy LLM spec (``load_llm``: None for the bundled model, a path,
    ``openai:URL[#model]`` -- a server that honours the request ``seed`` makes groups repeatable);
    ``llm``: a picklable LLM factory to use instead (tests, custom backends). ``judge``: a ``Judge``
    or a picklable judge factory carrying ``name`` and ``version`` (``cli.judge.JudgeSpec``); None:
    the judge ``cfg.reward`` names -- ``rule`` (the task checker) or ``smartsnap`` (the evidence
    judge's composite reward, on ``judge_model``, by default the policy's own LLM, loaded once).
    A judge that crashes gives an ``undecided`` judgement with reward 0 (never a lost episode).
    """

    agent: str = "generator"
    model: str | None = None
    llm: Callable[[], Any] | None = None
    memory: str = "diff"
    judge: Any = None
    judge_model: str | None = None
    votes: int = 3
    dtype: str = "auto"
    device: str = "cpu"

    def __post_init__(self) -> None:
        if self.agent not in GRPO_AGENTS:
            raise RunError(f"GRPO rollouts need a sampling agent: {', '.join(GRPO_AGENTS)} "
                           f"(got {self.agent!r})")
        if self.memory not in MEMORIES:
            raise RunError(f"unknown memory {self.memory!r}; use one of {', '.join(MEMORIES)}")
        if self.dtype not in DTYPES:
            raise RunError(f"unknown dtype {self.dtype!r}; use one of {', '.join(DTYPES)}")
        if self.judge is not None:
            from droidverify.runner.judging import judge_identity

            judge_identity(self.judge)  # a judge without name/version fails here, not in a worker

    @property
    def agent_name(self) -> str:
        return self.agent

    @property
    def loads_local_model(self) -> bool:
        return self.llm is None and not (self.model or "").startswith("openai:")

    def __call__(self, cfg: GRPOConfig) -> GRPOWorker:
        return GRPOWorker(self, cfg)


class GRPOWorker:
    """A worker's state: the policy LLM and the judge, built once; :meth:`play` per member."""

    def __init__(self, spec: GRPOPlayer, cfg: GRPOConfig) -> None:
        from droidverify.runner.judging import GuardedJudge

        self.spec = spec
        self.cfg = cfg
        self.llm = spec.llm() if spec.llm is not None else _load(spec.model, spec)
        if spec.judge is not None:
            j = spec.judge
            inner = j if hasattr(j, "judge") else j()
        elif cfg.reward == "rule":
            from droidverify.rewards.rule import RuleJudge

            inner = RuleJudge()
        elif cfg.reward == "smartsnap":
            from droidverify.rewards.smartsnap import EvidenceJudge

            judge_llm = self.llm if spec.judge_model is None else _load(spec.judge_model, spec)
            inner = EvidenceJudge(judge_llm, votes=spec.votes)
        else:
            raise RunError(f"unknown GRPO reward {cfg.reward!r}: use one of {', '.join(REWARDS)}, or give "
                           "the player a judge (judge=cli.judge.JudgeSpec(METHOD, ...))")
        self.judge = GuardedJudge(inner)

    def make_agent(self, sample_seed: int) -> Any:
        """A fresh agent for one episode: sampling at the group's temperature with its own seed,
        recording each model call's prompt and reply for the trainer."""
        kw: dict[str, Any] = {"memory": self.spec.memory, "temperature": self.cfg.temperature,
                              "seed": sample_seed, "max_tokens": self.cfg.max_tokens,
                              "record_generations": True}
        if self.spec.agent == "smartsnap":
            from droidverify.agents.selfverify import SelfVerifyingAgent

            return SelfVerifyingAgent(self.llm, **kw)
        from droidverify.agents.generator import GeneratorAgent

        return GeneratorAgent(self.llm, **kw)

    def play(self, task: Task, member: int, sample_seed: int) -> GRPOMember:
        from droidverify.env.sim import SimEnv
        from droidverify.runner.episode import run_episode

        env = SimEnv(task=task, seed=task.seed)  # fresh per member: every member starts from the same phone
        try:
            traj = run_episode(self.make_agent(sample_seed), env, task, max_steps=self.cfg.max_steps)
            traj.metadata["episode_id"] = f"{task.id}:{task.seed}:g{member}"
            traj.metadata["grpo"] = {"member": member, "sample_seed": sample_seed}
            j = self.judge.judge(traj, env=env)
        finally:
            env.close()
        return GRPOMember(member=member, sample_seed=sample_seed, trajectory=traj, reward=float(j.reward),
                          outcome=j.outcome, judgement=j.to_dict())


def _load(model: str | None, spec: GRPOPlayer) -> Any:
    from droidverify.llm.registry import load_llm

    if (model or "").startswith("openai:"):
        return load_llm(model)  # a server chooses its own dtype and device
    return load_llm(model, dtype=spec.dtype, device=spec.device)
