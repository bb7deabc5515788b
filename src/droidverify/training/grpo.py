"""GRPO rollout groups: G sampled episodes per task, each rewarded, with group-relative advantages.

This module produces the groups a GRPO trainer consumes; it does not train (no policy-gradient
update lives here). For every task, ``group_size`` (G, 8 by default as in SmartSnap's training)
episodes run on the simulator, each in a fresh environment of the task's own seed, the policy
sampling at ``temperature`` with a sampling seed of its own per member (:func:`member_seed`). Each
episode is scored by a judge (the rule checker by default, SmartSnap's composite reward for the
self-verifying agent, from a judge that is not the policy's own model unless a caller says so) and
the group's advantages are computed as in GRPO (DeepSeekMath; TRL's ``GRPOTrainer``)::

    A_i = (r_i - mean(r)) / (std(r) + eps)        (``scale_rewards=False``: r_i - mean(r))

``std`` is the *sample* standard deviation (divided by N - 1), which is what TRL's ``GRPOTrainer``
computes (``torch.std`` of each group, unbiased by default); the population std (divided by N)
would give advantages larger by sqrt(N / (N - 1)). A group whose rewards are all equal carries no
preference: every advantage is exactly 0, so a trainer gets no gradient from it (TRL logs such
groups as ``frac_reward_zero_std``); so does a group of one (where the sample std is undefined).

A member whose *judge failed* -- it raised (``runner.judging.GuardedJudge`` records it as an
``undecided`` judgement with ``components["judge_error"]``), its model call failed (``undecided``
with ``parse_status == "error"``), or every one of its votes errored -- has no reward: it is
marked (:attr:`GRPOMember.judge_failed`, the reason), its ``reward`` and ``advantage`` are None,
and it is left out of its group's mean, std and advantages (:func:`judge_failure`). Scoring it
instead would be wrong either way: a crashed judge's 0 beats every real SmartSnap failure's -1,
and a -1 would punish the policy for the judge's error. A group with fewer than 2 judged members
has no preference (advantage 0 for the one left). :func:`group_stats` counts the excluded members.

Episodes run through the rollout-backend seam (``runner.backends``: one episode per unit of work on
``InlineBackend`` / ``LocalBackend`` / ``RayBackend``), and come back in task order, members in
member order, whatever the worker count. What plays an episode is a *player factory* handed in by
the caller: ``runner.grpo.GRPOPlayer`` (the runner's ``run_episode`` plus a ``rewards`` judge;
training imports neither, see tests/test_architecture.py).

Groups are written as versioned JSONL (:func:`write_groups` / :func:`read_groups`), one group per
line; :func:`rollout_groups` with ``out=`` appends each group as it completes and, rerun with the
same configuration, skips the groups already in the file (resume). Schema version 2 added the
excluded members (``judge_failed``; ``reward`` / ``advantage`` null) and the sample std. Version 1
lines (population std, a crashed judge's reward counted) are still read, brought to version 2: a
member whose judgement shows a failed judge is excluded and the advantages are recomputed from
the stored rewards with the group's own ``scale_rewards`` / ``advantage_eps``. A file holding
version 1 groups is not resumed (its groups were rewarded under the old rules). A member keeps the
whole trajectory (``env.records.Trajectory``); with the generator agents each step's
``agent_info["generations"]`` holds every model call's prompt messages and reply text
(:meth:`GRPOMember.generations`), which is what a trainer needs for token log-probs.
"""

from __future__ import annotations

import functools
import json
import math
import os
import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from droidverify.core.items import ItemBackend, run_inline
from droidverify.env.records import Trajectory, is_success
from droidverify.errors import TrainingDataError, TrainingError
from droidverify.tasks.base import Task
from droidverify.training.records import iter_jsonl

SCHEMA_VERSION = 2  # 2: excluded members (a failed judge), sample std; version 1 is still read
READ_VERSIONS = (1, 2)
RECORD_KIND = "grpo_group"
# The reward methods a player knows by name; a caller may hand a player any judge instead.
REWARDS = ("rule", "smartsnap")
# The configuration fields a group depends on: a resumed file must have been written with the same.
_SAMPLING_FIELDS = ("group_size", "temperature", "max_steps", "max_tokens", "seed", "reward",
                    "scale_rewards", "advantage_eps")


@dataclass
class GRPOConfig:
    """What a GRPO rollout collects (names follow TRL's ``GRPOConfig`` where there is one).

    ``group_size``: episodes per task (TRL ``num_generations``; 8, SmartSnap's group). ``temperature``: the policy's
    sampling temperature; it must be > 0 when ``group_size > 1`` (greedy decoding would give G
    identical episodes, hence zero advantages). ``max_steps``: per episode (None: the task's own
    limit). ``max_tokens``: per model reply (TRL ``max_completion_length``). ``split`` / ``seeds`` /
    ``tasks``: the task instances (templates of ``split``, or the named templates, for every seed).
    ``seed``: the base of every member's sampling seed. ``reward``: the reward method by name (a
    player may be given a judge instead). ``scale_rewards`` / ``advantage_eps``: divide by the group's
    sample std + eps (TRL's default; ``False`` is Dr. GRPO's unscaled advantage, ``r - mean``).
    """

    group_size: int = 8
    temperature: float = 1.0
    max_steps: int | None = None
    max_tokens: int = 256
    split: str = "train"
    seeds: list[int] = field(default_factory=lambda: [0])
    tasks: list[str] | None = None
    seed: int = 0
    reward: str = "rule"
    scale_rewards: bool = True
    advantage_eps: float = 1e-4
    policy: str | None = None  # the digest of the trained LLM policy that plays (None: the model as it is)

    def __post_init__(self) -> None:
        def whole(name: str, value: Any, low: int) -> None:
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise TrainingError(f"GRPOConfig.{name} must be an int >= {low}, got {value!r}")

        whole("group_size", self.group_size, 1)
        whole("max_tokens", self.max_tokens, 1)
        whole("seed", self.seed, 0)
        if self.max_steps is not None:
            whole("max_steps", self.max_steps, 1)
        t = self.temperature
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or t < 0:
            raise TrainingError(f"GRPOConfig.temperature must be a finite number >= 0, got {t!r}")
        if self.group_size > 1 and t == 0:
            raise TrainingError(f"GRPOConfig.temperature must be > 0 when group_size > 1 (got 0 with "
                                f"group_size {self.group_size}): greedy decoding gives every member of a "
                                "group the same episode, so every advantage would be 0")
        self.temperature = float(t)
        if not self.seeds:
            raise TrainingError("GRPOConfig.seeds is empty")
        for s in self.seeds:
            whole("seeds[...]", s, 0)
        if self.tasks is not None and not self.tasks:
            raise TrainingError("GRPOConfig.tasks is empty (None: every template of the split)")
        if self.policy is not None and (not isinstance(self.policy, str) or not self.policy):
            raise TrainingError(f"GRPOConfig.policy must be a policy digest or None, got {self.policy!r}")
        if not isinstance(self.reward, str) or not self.reward:
            raise TrainingError(f"GRPOConfig.reward must be a method name, got {self.reward!r}")
        e = self.advantage_eps
        if isinstance(e, bool) or not isinstance(e, (int, float)) or not math.isfinite(e) or e <= 0:
            raise TrainingError(f"GRPOConfig.advantage_eps must be > 0, got {e!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def sampling(self) -> dict[str, Any]:
        """The fields the groups depend on (checked when a file is resumed); ``policy`` only when one
        plays, so files of the untrained model read as they always did."""
        out = {k: getattr(self, k) for k in _SAMPLING_FIELDS}
        if self.policy is not None:
            out["policy"] = self.policy
        return out


def grpo_tasks(cfg: GRPOConfig) -> list[Task]:
    """The task instances of ``cfg``: every template of ``cfg.split`` (or those named in
    ``cfg.tasks``) for every seed, template-major."""
    from droidverify.errors import TaskError
    from droidverify.tasks import registry

    if cfg.tasks is None:
        if cfg.split not in registry.SPLITS:
            raise TrainingError(f"unknown split {cfg.split!r}; use one of {registry.SPLITS}")
        return registry.tasks_for(cfg.split, cfg.seeds)
    try:
        templates = [registry.get_template(name) for name in cfg.tasks]
    except TaskError as exc:
        raise TrainingError(str(exc)) from exc
    return [t.instantiate(s) for t in templates for s in cfg.seeds]


def member_seed(cfg: GRPOConfig, task: Task, member: int) -> int:
    """The sampling seed of member ``member`` of ``task``'s group: fixed by ``(cfg.seed, task id,
    task seed, member)``, so a group repeats exactly on any worker, and its members differ."""
    return random.Random(f"grpo:{cfg.seed}:{task.id}:{task.seed}:{member}").getrandbits(31)


def _sample_std(rs: Sequence[float], mean: float) -> float:
    """Standard deviation with N - 1 in the denominator (``torch.std``'s default, as TRL uses it)."""
    return math.sqrt(sum((r - mean) ** 2 for r in rs) / (len(rs) - 1)) if len(rs) > 1 else 0.0


def group_advantages(rewards: Sequence[float | None], *, eps: float = 1e-4,
                     scale: bool = True) -> list[float | None]:
    """GRPO's group-relative advantages: ``(r - mean) / (std + eps)`` with the sample std (N - 1,
    as TRL's ``GRPOTrainer``), or ``r - mean`` without ``scale``.

    A None reward is an excluded member (its judge failed): its advantage is None and it takes no
    part in the mean or the std. Equal rewards, or fewer than 2 rewards, give 0.0 for every member
    that has one (no preference within the group)."""
    valid = [float(r) for r in rewards if r is not None]
    if any(not math.isfinite(r) for r in valid):
        raise TrainingError(f"rewards must be finite numbers (or None for an excluded member), got {list(rewards)}")
    if len(valid) < 2 or max(valid) == min(valid):
        # no preference within the group (and no 0/eps rounding noise)
        return [None if r is None else 0.0 for r in rewards]
    mean = sum(valid) / len(valid)
    std = _sample_std(valid, mean)
    if not scale:
        return [None if r is None else float(r) - mean for r in rewards]
    return [None if r is None else (float(r) - mean) / (std + eps) for r in rewards]


def judge_failure(judgement: Mapping[str, Any]) -> str | None:
    """Why a judgement is not a reward (its judge failed), or None when it is one.

    Read from the ``rewards.base.Judgement`` record as JSON (this layer does not import the judges):
    a judge that raised (``components["judge_error"]``, as ``runner.judging.failed_judgement``
    writes it); an ``undecided`` verdict whose model call failed (``parse_status == "error"``: a
    passive judge's call, a failed scoring call, or SmartSnap votes of which errored ones left no
    majority); or votes that all errored. A verdict the judge *read* and found unclear (unparseable
    text, a tie among read votes) is a reward under its method's own rules, not a failure. An empty
    record (a player that rewards without a judge) is no failure."""
    components = judgement.get("components") or {}
    error = judgement.get("error") or "no error message"
    if components.get("judge_error"):
        return str(judgement.get("error") or "judge raised")  # failed_judgement's "judge raised X: ..."
    votes = (judgement.get("details") or {}).get("votes")
    if isinstance(votes, list) and votes and all(isinstance(v, Mapping) and v.get("status") == "error"
                                                 for v in votes):
        return f"every judge vote errored ({len(votes)}): {error}"
    if judgement.get("outcome") == "undecided" and judgement.get("parse_status") == "error":
        return f"judge call failed: {error}"
    return None


@dataclass
class GRPOMember:
    """One episode of a group: the trajectory, its judgement and its advantage.

    ``judgement`` is the judge's ``rewards.base.Judgement`` record as JSON (its ``components`` name
    what the reward was built from); ``reward`` and ``outcome`` repeat its two main fields.
    ``judge_failed``: why the judge gave no reward (:func:`judge_failure`); such a member is
    *excluded*: ``reward`` and ``advantage`` are None and a trainer skips it. ``advantage`` is filled
    in when the whole group is in (:func:`group_advantages`). :meth:`judged` builds a member from a
    judgement, deciding both.
    """

    member: int
    sample_seed: int
    trajectory: Trajectory
    reward: float | None
    outcome: str
    judgement: dict[str, Any] = field(default_factory=dict)
    advantage: float | None = 0.0
    judge_failed: str | None = None

    def __post_init__(self) -> None:
        if (self.reward is None) != (self.judge_failed is not None):
            raise TrainingError(f"member {self.member}: reward is None exactly when the judge failed "
                                f"(reward {self.reward!r}, judge_failed {self.judge_failed!r})")
        if self.judge_failed is not None and self.advantage is not None:
            raise TrainingError(f"member {self.member}: an excluded member (judge failed: {self.judge_failed}) "
                                f"has no advantage, got {self.advantage!r}")

    @classmethod
    def judged(cls, member: int, sample_seed: int, trajectory: Trajectory,
               judgement: Mapping[str, Any]) -> GRPOMember:
        """A member from its judge's record: excluded when :func:`judge_failure` finds a failed judge."""
        reason = judge_failure(judgement)
        return cls(member=member, sample_seed=sample_seed, trajectory=trajectory,
                   reward=None if reason is not None else float(judgement["reward"]),
                   outcome=str(judgement.get("outcome", "undecided")), judgement=dict(judgement),
                   advantage=None if reason is not None else 0.0, judge_failed=reason)

    @property
    def excluded(self) -> bool:
        """Left out of the group's statistics and of training: its judge failed."""
        return self.judge_failed is not None

    @property
    def components(self) -> dict[str, Any]:
        return dict(self.judgement.get("components") or {})

    def generations(self) -> list[dict[str, Any]]:
        """Every model call of the episode, in order: ``{"step", "messages", "text", "seed", ...}``
        (from the steps' ``agent_info["generations"]``; empty for agents that do not record them)."""
        out = []
        for step in self.trajectory.steps:
            for g in step.agent_info.get("generations") or []:
                out.append({"step": step.index, **g})
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"member": self.member, "sample_seed": self.sample_seed, "reward": self.reward,
                "outcome": self.outcome, "advantage": self.advantage, "judge_failed": self.judge_failed,
                "judgement": self.judgement, "trajectory": self.trajectory.to_dict()}

    @classmethod
    def from_dict(cls, d: dict[str, Any], version: int = SCHEMA_VERSION) -> GRPOMember:
        """A member of a version-2 line, or of a version-1 line (which has no ``judge_failed``: it is
        decided from the judgement record here, and the caller recomputes the advantages)."""
        judgement = dict(d.get("judgement") or {})
        if version == 1:
            failed = judge_failure(judgement)
            reward = None if failed is not None else d["reward"]
            advantage = None if failed is not None else 0.0
        else:
            failed, reward, advantage = d["judge_failed"], d["reward"], d["advantage"]
            if failed is not None and not isinstance(failed, str):
                raise TrainingDataError(f"member {d.get('member')}: judge_failed must be a reason or null, "
                                        f"got {failed!r}")
        try:
            return cls(member=int(d["member"]), sample_seed=int(d["sample_seed"]),
                       trajectory=Trajectory.from_dict(d["trajectory"]),
                       reward=None if reward is None else float(reward), outcome=str(d["outcome"]),
                       judgement=judgement, advantage=None if advantage is None else float(advantage),
                       judge_failed=failed)
        except TrainingDataError:
            raise
        except TrainingError as exc:  # an inconsistent line (a reward with a failed judge...)
            raise TrainingDataError(str(exc)) from exc


@dataclass
class RolloutGroup:
    """The G members of one task instance, in member order, with the group's reward statistics
    (over the members whose judge gave a reward; the excluded ones take no part)."""

    task_id: str
    task_seed: int
    goal: str
    members: list[GRPOMember]
    config: dict[str, Any] = field(default_factory=dict)  # GRPOConfig.sampling() it was collected with
    agent: str | None = None
    judge: str | None = None
    # the version of the line it was read from (a new group: the current one); always written as current
    schema_version: int = SCHEMA_VERSION

    @property
    def key(self) -> str:
        return f"{self.task_id}:{self.task_seed}"

    @property
    def rewards(self) -> list[float | None]:
        """Per member, in member order (None: excluded)."""
        return [m.reward for m in self.members]

    @property
    def valid_rewards(self) -> list[float]:
        """The rewards of the members that were judged (what the statistics are computed from)."""
        return [m.reward for m in self.members if m.reward is not None]

    @property
    def excluded(self) -> int:
        """How many members' judge failed (left out of the statistics and of training)."""
        return sum(m.excluded for m in self.members)

    @property
    def advantages(self) -> list[float | None]:
        return [m.advantage for m in self.members]

    @property
    def reward_mean(self) -> float:
        rs = self.valid_rewards
        return sum(rs) / len(rs) if rs else 0.0

    @property
    def reward_std(self) -> float:
        """Sample std (N - 1) of the judged members' rewards, as the advantages use it (0 below 2)."""
        return _sample_std(self.valid_rewards, self.reward_mean)

    @property
    def zero_std(self) -> bool:
        """All judged rewards equal (or fewer than 2): every advantage is 0, the group teaches nothing."""
        return len(set(self.valid_rewards)) <= 1

    def compute_advantages(self, *, eps: float = 1e-4, scale: bool = True) -> None:
        for m, a in zip(self.members, group_advantages(self.rewards, eps=eps, scale=scale), strict=True):
            m.advantage = a

    def to_dict(self) -> dict[str, Any]:
        return {"kind": RECORD_KIND, "schema_version": SCHEMA_VERSION, "task_id": self.task_id,
                "task_seed": self.task_seed, "goal": self.goal, "agent": self.agent, "judge": self.judge,
                "config": self.config, "reward_mean": self.reward_mean, "reward_std": self.reward_std,
                "excluded": self.excluded, "members": [m.to_dict() for m in self.members]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RolloutGroup:
        """A group line; a version-1 line is brought to the current version (see the module doc)."""
        if d.get("kind") != RECORD_KIND:
            raise TrainingDataError(f"not a GRPO group record (kind {d.get('kind')!r})")
        version = d.get("schema_version")
        if isinstance(version, bool) or version not in READ_VERSIONS:
            raise TrainingDataError(f"GRPO group schema version {version!r}; this droidverify reads "
                                    f"versions {', '.join(map(str, READ_VERSIONS))} (a newer droidverify "
                                    "wrote it?)")
        members = [GRPOMember.from_dict(m, version) for m in d["members"]]
        if [m.member for m in members] != list(range(len(members))):
            raise TrainingDataError(f"group {d.get('task_id')}:{d.get('task_seed')}: members are not "
                                    f"0..{len(members) - 1} in order")
        config = dict(d.get("config") or {})
        group = cls(task_id=str(d["task_id"]), task_seed=int(d["task_seed"]), goal=str(d["goal"]),
                    members=members, config=config, agent=d.get("agent"), judge=d.get("judge"),
                    schema_version=version)
        if version == 1:
            # population-std advantages, a failed judge's reward counted: recompute under today's rules
            group.compute_advantages(eps=float(config.get("advantage_eps", 1e-4)),
                                     scale=bool(config.get("scale_rewards", True)))
        return group


# --- JSONL -------------------------------------------------------------------------------------------


def _append(path: Path, groups: Iterable[RolloutGroup]) -> int:
    n = 0
    with open(path, "a", encoding="utf-8") as f:
        for g in groups:
            f.write(json.dumps(g.to_dict(), ensure_ascii=False, separators=(",", ":")) + "\n")
            f.flush()
            os.fsync(f.fileno())  # one durable line per group: a killed run loses at most the group under way
            n += 1
    return n


def write_groups(path: str | Path, groups: Iterable[RolloutGroup], *, append: bool = False) -> int:
    """Write groups as JSONL, one per line (each flushed and fsynced); returns the count."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not append:
        path.write_text("", encoding="utf-8")
    return _append(path, groups)


def iter_groups(path: str | Path) -> Iterator[RolloutGroup]:
    """The groups of a JSONL file; a bad line raises :class:`TrainingDataError` naming it."""
    return iter_jsonl(path, "GRPO group", RolloutGroup.from_dict)


def read_groups(path: str | Path) -> list[RolloutGroup]:
    return list(iter_groups(path))


def _resume_file(path: Path, cfg: GRPOConfig) -> dict[str, RolloutGroup]:
    """The groups already in ``path``, by key; drops a last line cut short by a killed run.
    A file written with another sampling configuration is refused (its groups would not match)."""
    if not path.exists():
        return {}
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with open(path, "r+b") as f:  # the line a killed run was writing: its group runs again
            f.truncate(data.rfind(b"\n") + 1)
    done: dict[str, RolloutGroup] = {}
    for g in iter_groups(path):
        if g.schema_version != SCHEMA_VERSION:
            raise TrainingError(f"{path} holds groups of schema version {g.schema_version}, rewarded under older "
                                "rules (population std, a failed judge's reward counted); use another --out "
                                "to collect with this droidverify (read_groups still reads it)")
        if g.config != cfg.sampling():
            raise TrainingError(f"{path} holds groups collected with {g.config}, not {cfg.sampling()}; "
                                "use another --out (or delete it) to collect with this configuration")
        done[g.key] = g
    return done


# --- rollouts ----------------------------------------------------------------------------------------


class MemberPlayer(Protocol):
    """A worker's state (built once per worker by a player factory): plays and judges one member."""

    def play(self, task: Task, member: int, sample_seed: int) -> GRPOMember: ...


PlayerFactory = Callable[[GRPOConfig], MemberPlayer]


def _play(state: MemberPlayer, item: tuple[Task, int, int]) -> GRPOMember:
    """One unit of work: one episode of one group (module-level: sent to workers)."""
    task, member, seed = item
    return state.play(task, member, seed)


def rollout_groups(
    tasks: Sequence[Task] | None,
    cfg: GRPOConfig,
    *,
    player: PlayerFactory,
    backend: ItemBackend | None = None,
    progress: Callable[[str], None] | None = None,
    out: str | Path | None = None,
) -> list[RolloutGroup]:
    """One :class:`RolloutGroup` per task (``None``: :func:`grpo_tasks` of ``cfg``), in task order.

    ``player(cfg)`` is called once per worker (a local model is loaded once per worker) and plays
    members: ``runner.grpo.GRPOPlayer`` for the generator and SmartSnap agents. It must be picklable
    for worker processes and Ray. ``backend``: run the ``len(tasks) * group_size`` episodes on its
    workers (``None``: in this process); groups and members come back in the same order, with the
    same seeds, whatever the backend. ``out``: append each group to this JSONL file as soon as it and
    every group before it are in; groups already there (same configuration) are skipped and returned
    as read, so a rerun resumes. ``progress(message)`` follows each group.
    """
    task_list = list(grpo_tasks(cfg) if tasks is None else tasks)
    keys = [f"{t.id}:{t.seed}" for t in task_list]
    if len(set(keys)) != len(keys):
        raise TrainingError("the same task instance is listed twice")
    path = Path(out) if out is not None else None
    done: dict[str, RolloutGroup] = {}
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        wanted = set(keys)
        done = {k: g for k, g in _resume_file(path, cfg).items() if k in wanted}
    todo = [i for i, k in enumerate(keys) if k not in done]
    g_size = cfg.group_size
    items = [(task_list[i], k, member_seed(cfg, task_list[i], k)) for i in todo for k in range(g_size)]
    if progress is not None and done:
        progress(f"resuming: {len(done)} of {len(task_list)} groups already in {path}")

    results: Iterator[tuple[int, Any]]
    setup = functools.partial(player, cfg)
    if backend is None:
        results = run_inline(setup, _play, items)
    else:
        results = backend.imap_unordered(setup, _play, items)
    members: dict[int, GRPOMember] = {}
    new: dict[str, RolloutGroup] = {}
    nxt = 0  # index into todo of the next group to complete
    try:
        for index, member in results:
            members[index] = member
            while nxt < len(todo) and all(nxt * g_size + k in members for k in range(g_size)):
                task = task_list[todo[nxt]]
                ms = [_exclude_failed(members.pop(nxt * g_size + k)) for k in range(g_size)]
                group = RolloutGroup(task_id=task.id, task_seed=task.seed, goal=task.goal, members=ms,
                                     config=cfg.sampling(), agent=ms[0].trajectory.agent,
                                     judge=str(ms[0].judgement.get("judge")) if ms[0].judgement else None)
                group.compute_advantages(eps=cfg.advantage_eps, scale=cfg.scale_rewards)
                if path is not None:
                    _append(path, [group])
                new[group.key] = group
                nxt += 1
                if progress is not None:
                    rs = ", ".join("judge failed" if r is None else f"{r:g}" for r in group.rewards)
                    note = (f" ({group.excluded} excluded: judge failed)" if group.excluded else "") + \
                        (" (no preference: advantages 0)" if group.zero_std else "")
                    progress(f"group {len(done) + len(new)}/{len(task_list)} {group.key}: rewards [{rs}] "
                             f"mean {group.reward_mean:.3f}" + note)
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()  # a caller that stops early stops the workers now
    return [done[k] if k in done else new[k] for k in keys]


def _exclude_failed(m: GRPOMember) -> GRPOMember:
    """A member a player built from a failed judge's record without marking it, marked (a player
    other than ``runner.grpo.GRPOPlayer`` may build members directly)."""
    if m.excluded:
        return m
    reason = judge_failure(m.judgement)
    if reason is None:
        return m
    return GRPOMember(member=m.member, sample_seed=m.sample_seed, trajectory=m.trajectory, reward=None,
                      outcome=m.outcome, judgement=m.judgement, advantage=None, judge_failed=reason)


def group_stats(groups: Sequence[RolloutGroup]) -> dict[str, Any]:
    """Summary of a collection: groups, episodes, members excluded (their judge failed), the mean
    reward of the judged ones, the share of groups without preference (zero std), checker success."""
    eps = [m for g in groups for m in g.members]
    rewards = [m.reward for m in eps if m.reward is not None]
    return {"groups": len(groups), "episodes": len(eps), "excluded": len(eps) - len(rewards),
            "reward_mean": sum(rewards) / len(rewards) if rewards else 0.0,
            "frac_reward_zero_std": sum(g.zero_std for g in groups) / len(groups) if groups else 0.0,
            "success_rate": sum(is_success(m.trajectory.success) for m in eps) / len(eps) if eps else 0.0}
