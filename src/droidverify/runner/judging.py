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

With judged retries (``run_many(attempts=K)``) every attempt is judged on its own: its judgement is
stored under :func:`~droidverify.runner.store.attempt_key` (the episode id for the first attempt,
``<episode id>:a<n>`` after) with ``details["attempt"] = n``, and the verdict decides whether the
runner plays another attempt.
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
from droidverify.runner.store import attempt_key

ATTEMPT_META = "attempt"  # Trajectory.metadata key: the attempt of a retried episode being judged

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
        except InfrastructureError:
            raise
        except Exception as exc:  # noqa: BLE001 -- a judge bug is an undecided judgement, recorded
            j = failed_judgement(trajectory, self.name, self.version, exc, time.perf_counter() - t0)
        attempt = trajectory.metadata.get(ATTEMPT_META)
        if isinstance(attempt, int) and not isinstance(attempt, bool):
            j = for_attempt(j, trajectory_id(trajectory), attempt)
        return j


def for_attempt(judgement: Judgement, key: str, attempt: int) -> Judgement:
    """A judgement of one attempt of a retried episode: stored under the attempt's id (whatever id
    the judge wrote: the store and the retry decision look it up there) with the index in
    ``details["attempt"]``."""
    return judgement.model_copy(update={"episode_id": key, "details": {**judgement.details, "attempt": attempt}})


class GuardedFactory:
    """A picklable judge factory whose judges are :class:`GuardedJudge` (sent to workers)."""

    def __init__(self, judge: JudgeLike) -> None:
        self.judge_or_factory = judge
        self.name, self.version = judge_identity(judge)

    def __call__(self) -> GuardedJudge:
        j = self.judge_or_factory
        return GuardedJudge(j if hasattr(j, "judge") else j())  # type: ignore[operator,arg-type]


def prepare(trajectory: Trajectory, episode_key: str, attempt_id: str, phone_state: str | None,
            attempt: int | None = None) -> Trajectory:
    """Give a just-finished trajectory what a judge reads from a run directory: its ids and (on the
    simulator) its encoded final phone state. ``attempt`` (judged retries only): its index, which
    the judgement is stored under (:func:`for_attempt`)."""
    trajectory.metadata["episode_id"] = attempt_key(episode_key, attempt or 0)
    trajectory.metadata["attempt_id"] = attempt_id
    if attempt is not None:
        trajectory.metadata[ATTEMPT_META] = attempt
    if phone_state:
        trajectory.metadata[PHONE_STATE_KEY] = phone_state
    return trajectory


def judgement_line(judgement: Judgement) -> dict[str, Any]:
    return {"kind": JUDGEMENT_KIND, "episode_id": judgement.episode_id, "judgement": judgement.to_dict()}


def unjudged(out_dir: Any, keys: list[str], name: str, version: str, store: Any, *,
             retries: bool = False, last_only: bool = False) -> list[Trajectory]:
    """Recorded attempts of the episodes ``keys`` of ``out_dir`` that ``store`` holds no judgement
    of (name, version) for, rebuilt with their saved final phone states, in ``keys`` order (an
    episode's attempts in order; without retries each episode has one). ``last_only``: only each
    episode's latest attempt (what decides a retry). ``retries``: the run retries, so each judgement
    is stored under its attempt (:func:`for_attempt`), the first attempt's included."""
    from droidverify.runner.store import attempt_of, load_final_phone_states, read_episodes, trajectories_of

    recorded = read_episodes(out_dir).attempts
    records = []
    for k in keys:
        tries = recorded.get(k) or {}
        for n in ([max(tries)] if last_only and tries else sorted(tries)):
            if not store.has(attempt_key(k, n), name, version):
                records.append(tries[n])
    if not records:
        return []
    out = trajectories_of(out_dir, records)
    phones = load_final_phone_states(out_dir)
    index = {str(rec["attempt_id"]): attempt_of(rec) for rec in records}
    for t in out:
        state = phones.get(str(t.metadata.get("attempt_id")))
        if state:
            t.metadata[PHONE_STATE_KEY] = state
        if retries:
            t.metadata[ATTEMPT_META] = index[str(t.metadata.get("attempt_id"))]
    return out
