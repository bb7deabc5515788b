"""The run directory: append-only JSONL files that survive a crash at any point.

Layout of ``out_dir`` (schema in docs/runner.md)::

    run.json        run configuration (agent, env, pairs, max_steps, ...)
    steps.jsonl     one line per step (full XML), a ``final`` line per finished attempt,
                    ``abandoned`` markers for attempts a crash cut short
    episodes.jsonl  one line per finished episode (summary, no XML)
    screens/        per-step PNGs when the environment supplies screenshots
    summary.json    success rates overall / by app / by complexity
    report.html     human-readable report

Every line is flushed and fsync'd when written, so a crash loses at most the line being written;
a truncated last line is cut off before the next append and skipped by readers.
"""

from __future__ import annotations

import json
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self, TextIO

from droidverify.env.records import Observation, Step, Trajectory

STEPS_FILE = "steps.jsonl"
EPISODES_FILE = "episodes.jsonl"
RUN_FILE = "run.json"
SUMMARY_FILE = "summary.json"
REPORT_FILE = "report.html"
SCREENS_DIR = "screens"


def episode_id(task_id: str, seed: int) -> str:
    """The key resume uses: one finished episode per (task, seed) in a run directory."""
    return f"{task_id}:{seed}"


def _cut_partial_tail(path: Path) -> int:
    """Remove a trailing line without newline (a write cut short by a crash); return bytes cut."""
    if not path.exists():
        return 0
    with path.open("rb+") as fh:
        size = fh.seek(0, os.SEEK_END)
        if size == 0:
            return 0
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return 0
        # Walk back to the last newline; the tail after it is garbage from an interrupted write.
        pos, chunk = size, 65536
        keep = 0
        while pos > 0:
            start = max(0, pos - chunk)
            fh.seek(start)
            buf = fh.read(pos - start)
            nl = buf.rfind(b"\n")
            if nl >= 0:
                keep = start + nl + 1
                break
            pos = start
        fh.truncate(keep)
        fh.flush()
        os.fsync(fh.fileno())
        return size - keep


class JsonlWriter:
    """Append JSON lines durably (flush + fsync per line)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.cut_bytes = _cut_partial_tail(path)
        self._fh: TextIO = path.open("a", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        self._fh.write(line + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class JsonlRead:
    records: list[dict[str, Any]]
    bad_lines: list[int] = field(default_factory=list)  # 1-based line numbers that did not parse


def read_jsonl(path: Path) -> JsonlRead:
    """Read JSON lines, skipping lines that do not parse (a crash can truncate the last one)."""
    out = JsonlRead(records=[])
    if not path.exists():
        return out
    last = 0
    with path.open("r", encoding="utf-8", errors="replace") as fh:  # streamed: steps files get large
        for i, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            last = i
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                out.bad_lines.append(i)
                continue
            if isinstance(rec, dict):
                out.records.append(rec)
            else:
                out.bad_lines.append(i)
    # Only the last line can be cut short by a crash; anything else is damage worth a warning.
    if any(n < last for n in out.bad_lines):
        warnings.warn(f"{path}: skipped unparseable lines {out.bad_lines}", stacklevel=2)
    return out


def finished_episodes(out_dir: Path) -> dict[str, dict[str, Any]]:
    """Finished episodes by episode id (the first line wins if an id somehow appears twice)."""
    done: dict[str, dict[str, Any]] = {}
    for rec in read_jsonl(out_dir / EPISODES_FILE).records:
        if rec.get("kind") == "episode" and "episode_id" in rec:
            done.setdefault(rec["episode_id"], rec)
    return done


def load_trajectories(out_dir: str | Path) -> list[Trajectory]:
    """Rebuild the finished episodes of a run directory, each with its steps (stale attempts dropped)."""
    out_dir = Path(out_dir)
    episodes = finished_episodes(out_dir)
    wanted = {rec["attempt_id"]: rec for rec in episodes.values()}
    steps: dict[str, list[Step]] = {a: [] for a in wanted}
    finals: dict[str, Observation] = {}
    for rec in read_jsonl(out_dir / STEPS_FILE).records:
        attempt = rec.get("attempt_id")
        if attempt not in wanted:
            continue
        if rec.get("kind") == "step":
            steps[attempt].append(Step.from_dict(rec["step"]))
        elif rec.get("kind") == "final" and rec.get("observation"):
            finals[attempt] = Observation.from_dict(rec["observation"])
    out = []
    for attempt, ep in wanted.items():
        meta = {k: ep.get(k) for k in (
            "episode_id", "attempt_id", "termination", "checker_score", "checker_error", "agent_error",
            "max_steps", "params", "apps", "complexity", "task_kind", "usage", "time_agent", "time_env",
            "started_at", "finished_at")}
        out.append(Trajectory(
            task_id=ep["task_id"], goal=ep["goal"], seed=ep.get("seed"), agent=ep.get("agent"),
            steps=sorted(steps[attempt], key=lambda s: s.index), final_observation=finals.get(attempt),
            answer=ep.get("answer"), declared_done=bool(ep.get("declared_done")),
            success=ep.get("success"), metadata=meta))
    return out
