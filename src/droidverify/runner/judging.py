"""Judging episodes as they finish: ``run_many(judge=...)``, ``droidverify run --judge METHOD``.

Each episode is judged right after it ends, in the process that ran it (in this process, a worker
process or a Ray actor), while its environment is still open: a judge whose ``judge()`` takes an
``env`` argument (ProRe) gets the live environment -- on a device the phone is probed before the
next episode resets it. The judgement travels to the run's one writer as a ``judgement`` line and
is appended to ``judgements.jsonl`` (``rewards.store.JudgementStore``) after the episode's own
lines, so a judge can never cost an episode.

- A judge that raises (a bug, an unexpected reply) gives an ``undecided`` judgement carrying the
  error: the episode and its judgement are both recorded, and the episode is not judged again.
- An :class:`~droidverify.errors.InfrastructureError` (judge server down, model not loadable) is
  not a verdict: nothing is stored for the episode, the run stops as it does for the agent's, and
  a rerun judges the finished-but-unjudged episodes after the fact (:func:`unjudged`).
"""

from __future__ import annotations

import inspect
import time
import traceback
from collections.abc import Callable
from typing import Any

from droidverify.env.records import Trajectory
from droidverify.errors import InfrastructureError
from droidverify.rewards.base import Judge, Judgement, trajectory_id
from droidverify.rewards.rule import PHONE_STATE_KEY

JudgeLike = Judge | Callable[[], Judge]

JUDGEMENT_KIND = "judgement"  # a line for judgements.jsonl, not steps.jsonl
STOP_KIND = "stop"  # a worker's judge hit an InfrastructureError after the episode was recorded


def judge_identity(judge: Any) -> tuple[str, str]:
    """(name, version) of a judge or a judge factory (which must carry them as attributes)."""
    name, version = getattr(judge, "name", None), getattr(judge, "version", None)
    if not isinstance(name, str) or not isinstance(version, str) or not name or not version:
        from droidverify.errors import RunError

        raise RunError(f"judge {judge!r} has no name and version (a Judge, or a factory carrying the "
                       "name and version of the judges it builds, such as cli.judge.JudgeSpec)")
    return name, version


def takes_env(judge: Any) -> bool:
    """Whether ``judge.judge`` accepts the live environment (``env=``)."""
    try:
        params = inspect.signature(judge.judge).parameters
    except (TypeError, ValueError):
        return False
    return "env" in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def failed_judgement(trajectory: Trajectory, name: str, version: str, exc: BaseException,
                     seconds: float = 0.0) -> Judgement:
    """The ``undecided`` record of a judge that raised (never success; the episode stays)."""
    return Judgement(episode_id=trajectory_id(trajectory), judge=name, version=version, outcome="undecided",
                     reward=0.0, components={"judge_error": 1}, parse_status="error", latency_s=seconds,
                     error=f"judge raised {type(exc).__name__}: {exc}"[:2000],
                     details={"traceback": "".join(traceback.format_exception(exc, limit=8))[-4000:]})


class GuardedJudge:
    """A judge that gives the live ``env`` to judges taking it and turns a crash into ``undecided``
    (:func:`failed_judgement`); an :class:`InfrastructureError` propagates."""

    def __init__(self, judge: Judge) -> None:
        self.inner = judge
        self.name, self.version = judge_identity(judge)
        self._takes_env = takes_env(judge)

    def judge(self, trajectory: Trajectory, *, env: Any = None) -> Judgement:
        t0 = time.perf_counter()
        try:
            if env is not None and self._takes_env:
                j = self.inner.judge(trajectory, env=env)  # type: ignore[call-arg]
            else:
                j = self.inner.judge(trajectory)
            if not isinstance(j, Judgement):
                raise TypeError(f"judge() returned {type(j).__name__}, expected Judgement")
            return j
        except InfrastructureError:
            raise
        except Exception as exc:  # noqa: BLE001 -- a judge bug is an undecided judgement, recorded
            return failed_judgement(trajectory, self.name, self.version, exc, time.perf_counter() - t0)


class GuardedFactory:
    """A picklable judge factory whose judges are :class:`GuardedJudge` (sent to workers)."""

    def __init__(self, judge: JudgeLike) -> None:
        self.judge_or_factory = judge
        self.name, self.version = judge_identity(judge)

    def __call__(self) -> GuardedJudge:
        j = self.judge_or_factory
        return GuardedJudge(j if hasattr(j, "judge") else j())  # type: ignore[operator,arg-type]


def prepare(trajectory: Trajectory, episode_key: str, attempt_id: str, phone_state: str | None) -> Trajectory:
    """Give a just-finished trajectory what a judge reads from a run directory: its ids and (on the
    simulator) its encoded final phone state."""
    trajectory.metadata["episode_id"] = episode_key
    trajectory.metadata["attempt_id"] = attempt_id
    if phone_state:
        trajectory.metadata[PHONE_STATE_KEY] = phone_state
    return trajectory


def judgement_line(judgement: Judgement) -> dict[str, Any]:
    return {"kind": JUDGEMENT_KIND, "episode_id": judgement.episode_id, "judgement": judgement.to_dict()}


def unjudged(out_dir: Any, keys: list[str], name: str, version: str, store: Any) -> list[Trajectory]:
    """Finished episodes of ``out_dir`` among ``keys`` that ``store`` holds no judgement of
    (name, version) for, rebuilt with their saved final phone states, in ``keys`` order."""
    from droidverify.runner.store import load_final_phone_states, load_trajectories

    wanted = [k for k in keys if not store.has(k, name, version)]
    if not wanted:
        return []
    trajs = {str(t.metadata.get("episode_id")): t for t in load_trajectories(out_dir)}
    wanted = [k for k in wanted if k in trajs]
    if not wanted:
        return []
    phones = load_final_phone_states(out_dir)
    out = []
    for k in wanted:
        t = trajs[k]
        state = phones.get(str(t.metadata.get("attempt_id")))
        if state:
            t.metadata[PHONE_STATE_KEY] = state
        out.append(t)
    return out
