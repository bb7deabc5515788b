"""``judgements.jsonl``: judgements of a run directory (or beside a labelled set), durable and resumable.

One JSON line per judgement, appended with one ``write``, flushed and fsync'd (a crash loses at most
the line being written; a truncated last line is cut off before the next append). The resume key is
(episode id, judge name, judge version): judging the same directory again skips what is done, and a
new prompt version is judged afresh beside the old one.
"""

from __future__ import annotations

import functools
import json
import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from droidverify.core.items import ItemBackend, run_inline
from droidverify.env.records import Trajectory
from droidverify.rewards.base import Judge, Judgement, judgement_key, trajectory_id

JUDGEMENTS_FILE = "judgements.jsonl"


def _cut_partial_tail(path: Path) -> None:
    """Drop a last line without its newline (a write a crash cut short)."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        keep = data.rfind(b"\n") + 1
        with path.open("rb+") as fh:
            fh.truncate(keep)
            fh.flush()
            os.fsync(fh.fileno())


def read_judgements(path: str | Path) -> list[Judgement]:
    """Every valid judgement in a file, in order (damaged lines skipped, with a warning)."""
    path = Path(path)
    out: list[Judgement] = []
    bad: list[int] = []
    if not path.exists():
        return out
    with path.open("r", encoding="utf-8", errors="replace") as fh:
        for i, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                out.append(Judgement.from_dict(json.loads(line)))
            except (json.JSONDecodeError, ValidationError, TypeError):
                bad.append(i)
    if bad:
        warnings.warn(f"{path}: skipped damaged judgement lines {bad[:20]}", stacklevel=2)
    return out


class JudgementStore:
    """Append-only store of judgements; the first judgement for a key wins."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        _cut_partial_tail(self.path)
        self.by_key: dict[str, Judgement] = {}
        for j in read_judgements(self.path):
            self.by_key.setdefault(j.key, j)

    def has(self, episode_id: str, judge: str, version: str) -> bool:
        return judgement_key(episode_id, judge, version) in self.by_key

    def append(self, judgement: Judgement) -> None:
        line = json.dumps(judgement.to_dict(), ensure_ascii=False, separators=(",", ":"))
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        self.by_key.setdefault(judgement.key, judgement)

    def for_judge(self, judge: str, version: str | None = None) -> list[Judgement]:
        return [j for j in self.by_key.values() if j.judge == judge and (version is None or j.version == version)]


def _given(judge: Judge) -> Judge:
    """A worker's setup when the judge itself is sent (module-level: picklable)."""
    return judge


def _judge_one(judge: Judge, trajectory: Trajectory) -> Judgement:
    """One unit of work of parallel judging: one trajectory (module-level: sent to workers)."""
    return judge.judge(trajectory)


def judge_all(judge: Judge | Callable[[], Judge], trajectories: Iterable[Trajectory],
              store: JudgementStore | None = None, *, on_done: Callable[[Judgement, bool], Any] | None = None,
              backend: ItemBackend | None = None) -> list[Judgement]:
    """Judge every trajectory, skipping those ``store`` already holds for this judge and version.

    ``on_done(judgement, was_cached)`` is called per trajectory (progress bars). Returns the
    judgements in trajectory order, cached ones included.

    ``judge``: a :class:`Judge`, or a judge factory: a callable without arguments that builds one and
    has the judge's ``name`` and ``version`` as attributes (cached judgements are found without
    building it; it is built only if something is left to judge, once per worker).

    ``backend`` (``runner.backends.LocalBackend`` / ``RayBackend``): judge on its workers, one
    trajectory per unit of work. Each worker builds the judge once: it calls the factory, or is sent
    ``judge`` itself (which must then be picklable; a judge holding a local model is better given as
    a factory). Judgements are appended to ``store`` as they arrive (completion order; a crash loses
    none that arrived) and ``on_done`` follows that order; the returned list is in trajectory order
    and holds the same judgements as without a backend (timings and ``created_at`` aside).
    """
    if backend is None and hasattr(judge, "judge"):
        return _judge_serially(judge, trajectories, store, on_done)  # type: ignore[arg-type]
    trajs = list(trajectories)
    name, version = judge.name, judge.version  # type: ignore[union-attr]
    out: list[Judgement | None] = [None] * len(trajs)
    todo: list[int] = []
    first: dict[str, int] = {}  # key -> the trajectory judged for it (a key appearing twice is judged once)
    repeats: list[tuple[int, int]] = []
    for i, traj in enumerate(trajs):
        key = judgement_key(trajectory_id(traj), name, version)
        cached = store.by_key.get(key) if store is not None else None
        if cached is not None:
            out[i] = cached
            if on_done is not None:
                on_done(cached, True)
        elif store is not None and key in first:
            repeats.append((i, first[key]))
        else:
            first[key] = i
            todo.append(i)
    setup: Callable[[], Judge] = judge if not hasattr(judge, "judge") else functools.partial(_given, judge)  # type: ignore[assignment]
    items = [trajs[i] for i in todo]
    if not items:
        results: Iterator[tuple[int, Judgement]] = iter(())
    elif backend is None:
        results = run_inline(setup, _judge_one, items)
    else:
        results = backend.imap_unordered(setup, _judge_one, items)
    for k, j in results:
        if store is not None:
            store.append(j)
        out[todo[k]] = j
        if on_done is not None:
            on_done(j, False)
    for i, src in repeats:
        out[i] = out[src]
        if on_done is not None:
            on_done(out[i], True)  # type: ignore[arg-type]
    return out  # type: ignore[return-value] -- every slot is filled


def _judge_serially(judge: Judge, trajectories: Iterable[Trajectory], store: JudgementStore | None,
                    on_done: Callable[[Judgement, bool], Any] | None) -> list[Judgement]:
    out: list[Judgement] = []
    for traj in trajectories:
        key = judgement_key(trajectory_id(traj), judge.name, judge.version)
        cached = store.by_key.get(key) if store is not None else None
        if cached is not None:
            out.append(cached)
        else:
            cached = None
            j = judge.judge(traj)
            if store is not None:
                store.append(j)
            out.append(j)
        if on_done is not None:
            on_done(out[-1], cached is not None)
    return out
