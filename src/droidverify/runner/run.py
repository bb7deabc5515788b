"""Run an agent over many (task, seed) pairs into a resumable run directory (see docs/runner.md)."""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

import droidverify
from droidverify.agents.base import Agent
from droidverify.env.interface import Environment
from droidverify.env.records import Step, Trajectory
from droidverify.errors import DroidVerifyError, RunError
from droidverify.runner.episode import agent_name, run_episode
from droidverify.runner.store import (
    EPISODES_FILE,
    REPORT_FILE,
    RUN_FILE,
    SCREENS_DIR,
    STEPS_FILE,
    SUMMARY_FILE,
    JsonlWriter,
    episode_id,
    finished_episodes,
    read_jsonl,
)
from droidverify.runner.summary import RunSummary
from droidverify.tasks.base import Task, TaskTemplate

AgentFactory = Callable[[], Agent]
EnvFactory = Callable[[Task, int], Environment]
PairLike = Task | tuple[Task | TaskTemplate, int]


def normalize_pairs(pairs: Sequence[PairLike]) -> list[Task]:
    """Accept Tasks, (Task, seed) or (TaskTemplate, seed); return unique Tasks in order."""
    out: list[Task] = []
    seen: set[str] = set()
    for item in pairs:
        if isinstance(item, Task):
            task = item
        else:
            try:
                what, seed = item
            except (TypeError, ValueError):
                raise RunError(f"pair {item!r} is neither a Task nor a (task, seed) pair") from None
            if isinstance(what, TaskTemplate):
                task = what.instantiate(int(seed))
            elif isinstance(what, Task):
                if what.seed != seed:
                    raise RunError(f"pair ({what.id}, {seed}): the Task was instantiated with seed "
                                   f"{what.seed}")
                task = what
            else:
                raise RunError(f"pair {item!r}: expected a Task or TaskTemplate, got {type(what).__name__}")
        key = episode_id(task.id, task.seed)
        if key not in seen:
            seen.add(key)
            out.append(task)
    return out


def _step_record(step: Step, traj: Trajectory, attempt_id: str, out_dir: Path) -> dict[str, Any]:
    screenshot = None
    png = step.observation.screenshot_png
    if png is not None:
        rel = Path(SCREENS_DIR) / attempt_id / f"{step.index:03d}.png"
        (out_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        (out_dir / rel).write_bytes(png)
        screenshot = rel.as_posix()
    try:
        n_elements: int | None = len(step.observation.elements)
    except DroidVerifyError:  # an unparseable dump still gets its step recorded
        n_elements = None
    return {
        "kind": "step", "episode_id": episode_id(traj.task_id, traj.seed or 0), "attempt_id": attempt_id,
        "task_id": traj.task_id, "seed": traj.seed, "index": step.index, "n_elements": n_elements,
        "screenshot": screenshot, "written_at": time.time(), "step": step.to_dict(),
    }


def _episode_record(traj: Trajectory, attempt_id: str) -> dict[str, Any]:
    m = traj.metadata
    return {
        "kind": "episode", "episode_id": episode_id(traj.task_id, traj.seed or 0),
        "attempt_id": attempt_id, "task_id": traj.task_id, "seed": traj.seed, "agent": traj.agent,
        "goal": traj.goal, "params": m.get("params"), "apps": m.get("apps"),
        "complexity": m.get("complexity"), "task_kind": m.get("task_kind"),
        "n_steps": len(traj.steps),
        "actions": [s.action.to_json() if s.action else None for s in traj.steps],
        "errors": [s.error for s in traj.steps],
        "answer": traj.answer, "declared_done": traj.declared_done, "success": traj.success,
        "checker_score": m.get("checker_score"), "checker_error": m.get("checker_error"),
        "agent_error": m.get("agent_error"), "termination": m.get("termination"),
        "max_steps": m.get("max_steps"), "usage": m.get("usage"), "time_agent": m.get("time_agent"),
        "time_env": m.get("time_env"), "started_at": m.get("started_at"),
        "finished_at": m.get("finished_at"),
    }


def _clear_run_dir(out_dir: Path) -> None:
    for name in (STEPS_FILE, EPISODES_FILE, RUN_FILE, SUMMARY_FILE, REPORT_FILE):
        (out_dir / name).unlink(missing_ok=True)
    shutil.rmtree(out_dir / SCREENS_DIR, ignore_errors=True)


def _mark_abandoned(steps: JsonlWriter, out_dir: Path, finished_attempts: set[str]) -> int:
    """Append an ``abandoned`` marker for every attempt that has steps but never finished."""
    started: dict[str, dict[str, Any]] = {}
    marked: set[str] = set()
    for rec in read_jsonl(out_dir / STEPS_FILE).records:
        a = rec.get("attempt_id")
        if rec.get("kind") == "abandoned":
            marked.add(a)  # type: ignore[arg-type]
        elif a is not None and a not in started:
            started[a] = rec
    n = 0
    for a, rec in started.items():
        if a in finished_attempts or a in marked:
            continue
        steps.write({"kind": "abandoned", "attempt_id": a, "episode_id": rec.get("episode_id"),
                     "task_id": rec.get("task_id"), "seed": rec.get("seed"), "written_at": time.time()})
        n += 1
    return n


# Config keys that may change between invocations of one run (adding seeds or tasks is fine).
_GROWABLE_KEYS = frozenset({"seeds", "tasks"})


def _read_run_json(out_dir: Path) -> dict[str, Any]:
    path = out_dir / RUN_FILE
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, OSError):
        return {}  # rewritten on start; the JSONL files are the source of truth
    return data if isinstance(data, dict) else {}


def _check_compatible(out_dir: Path, previous: dict[str, Any], config: dict[str, Any]) -> None:
    """Refuse to resume a directory whose earlier invocation used a different configuration."""
    old = previous.get("config") or {}
    diff = sorted(k for k in set(old) & set(config) - _GROWABLE_KEYS if old[k] != config[k])
    if diff:
        detail = ", ".join(f"{k}: {old[k]!r} -> {config[k]!r}" for k in diff)
        raise RunError(f"{out_dir} holds a run with a different configuration ({detail}); "
                       "use another --out or --no-resume")


def _write_run_json(out_dir: Path, previous: dict[str, Any], tasks: list[Task], config: dict[str, Any],
                    max_steps: int | None, answer_ends_episode: bool) -> None:
    path = out_dir / RUN_FILE
    now = time.time()
    data = {
        "droidverify_version": droidverify.__version__ if hasattr(droidverify, "__version__") else None,
        "created_at": previous.get("created_at", now), "updated_at": now,
        "invocations": int(previous.get("invocations", 0)) + 1,
        "config": config, "max_steps": max_steps, "answer_ends_episode": answer_ends_episode,
        "pairs": [[t.id, t.seed] for t in tasks],
    }
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str), encoding="utf-8")
    os.replace(tmp, path)  # atomic: a crash never leaves a half-written run.json


def run_many(
    agent_factory: AgentFactory,
    pairs: Sequence[PairLike],
    out_dir: str | Path,
    *,
    env_factory: EnvFactory,
    resume: bool = True,
    progress: bool = True,
    max_steps: int | None = None,
    answer_ends_episode: bool = False,
    config: dict[str, Any] | None = None,
    report: bool = True,
    console: Console | None = None,
) -> RunSummary:
    """Run one fresh agent (``agent_factory()``) per episode in a fresh env (``env_factory(task, seed)``).

    With ``resume`` (default), episodes already in ``episodes.jsonl`` are skipped and attempts a
    crash cut short are marked abandoned and re-run from scratch; without it the run files in
    ``out_dir`` are deleted first. Writes ``run.json``, ``steps.jsonl``, ``episodes.jsonl``,
    ``summary.json`` and (``report``) ``report.html``. Environment infrastructure failures
    (reset errors, a lost device) stop the run; rerun to resume.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tasks = normalize_pairs(pairs)
    if not resume:
        _clear_run_dir(out)
    config = dict(config or {})
    previous = _read_run_json(out)
    _check_compatible(out, previous, config)

    done = finished_episodes(out)
    todo = [t for t in tasks if episode_id(t.id, t.seed) not in done]
    skipped = len(tasks) - len(todo)
    ran = 0
    console = console or Console(stderr=True)
    prev_agents = {ep.get("agent") for ep in done.values()}
    first_agent = agent_factory() if todo else None  # checked before anything is written
    if first_agent is not None and prev_agents and agent_name(first_agent) not in prev_agents:
        raise RunError(f"{out} holds results of agent(s) {sorted(map(str, prev_agents))}, "
                       f"not {agent_name(first_agent)!r}; use another --out or --no-resume")
    _write_run_json(out, previous, tasks, config, max_steps, answer_ends_episode)

    steps_w = JsonlWriter(out / STEPS_FILE)
    eps_w = JsonlWriter(out / EPISODES_FILE)
    prog = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TimeRemainingColumn(), console=console, disable=not progress,
                    transient=False)
    try:
        _mark_abandoned(steps_w, out, {ep["attempt_id"] for ep in done.values()})
        with prog:
            bar = prog.add_task("episodes", total=len(tasks), completed=skipped)
            for i, task in enumerate(todo):
                agent = first_agent if i == 0 else agent_factory()
                prog.update(bar, description=f"{task.id}:{task.seed}")
                attempt_id = uuid.uuid4().hex[:12]
                env = env_factory(task, task.seed)
                try:
                    traj = run_episode(
                        agent, env, task, max_steps=max_steps, answer_ends_episode=answer_ends_episode,
                        on_step=lambda s, tr, a=attempt_id: steps_w.write(_step_record(s, tr, a, out)))
                finally:
                    env.close()
                fo = traj.final_observation
                steps_w.write({"kind": "final", "episode_id": episode_id(task.id, task.seed),
                               "attempt_id": attempt_id, "task_id": task.id, "seed": task.seed,
                               "observation": fo.to_dict() if fo else None, "written_at": time.time()})
                eps_w.write(_episode_record(traj, attempt_id))
                ran += 1
                prog.advance(bar)
    finally:
        steps_w.close()
        eps_w.close()

    done = finished_episodes(out)
    wanted = [done[episode_id(t.id, t.seed)] for t in tasks if episode_id(t.id, t.seed) in done]
    summary = RunSummary.from_episodes(wanted, out_dir=str(out), ran=ran, skipped=skipped)
    (out / SUMMARY_FILE).write_text(json.dumps(summary.to_dict(), indent=2), encoding="utf-8")
    if report:
        from droidverify.runner.report import write_report

        write_report(out, episodes=wanted, summary=summary)
    return summary
