"""Run an agent over many (task, seed) pairs into a resumable run directory (see docs/runner.md)."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
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
from droidverify.errors import DroidVerifyError, InfrastructureError, RunError
from droidverify.rewards.base import Judgement, judgement_key
from droidverify.rewards.store import JUDGEMENTS_FILE, JudgementStore, judge_all
from droidverify.runner.backends import RolloutBackend, _portable
from droidverify.runner.episode import agent_name, run_episode
from droidverify.runner.judging import (
    JUDGEMENT_KIND,
    STOP_KIND,
    GuardedFactory,
    GuardedJudge,
    JudgeLike,
    judge_identity,
    judgement_line,
    prepare,
    unjudged,
)
from droidverify.runner.store import (
    EPISODES_FILE,
    RUN_FILE,
    SCREENS_DIR,
    STEPS_FILE,
    SUMMARY_FILE,
    EpisodeRecord,
    JsonlWriter,
    RunDirLock,
    StepsWriter,
    attempt_key,
    attempt_of,
    check_run_dir,
    clear_run_dir,
    episode_id,
    read_episodes,
    read_jsonl,
)
from droidverify.runner.summary import RetryStats, RunSummary
from droidverify.tasks.base import Task, TaskTemplate

AgentFactory = Callable[[], Agent]
EnvFactory = Callable[[Task, int], Environment]
PairLike = Task | tuple[Task | TaskTemplate, int]


@dataclass
class Pair:
    """One (task, seed) to run. The Task is built on first use, so a run over 100k seeds does not
    build every task before its first episode."""

    template: TaskTemplate
    seed: int
    _task: Task | None = None

    @property
    def id(self) -> str:
        return self.template.name

    @property
    def key(self) -> str:
        return episode_id(self.id, self.seed)

    @property
    def task(self) -> Task:
        if self._task is None:
            self._task = self.template.instantiate(self.seed)
        return self._task


def _seed(value: Any, item: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RunError(f"pair {item!r}: the seed must be an int, got {type(value).__name__}")
    return value


def normalize_pairs(pairs: Sequence[PairLike]) -> list[Task]:
    """Accept Tasks, (Task, seed) or (TaskTemplate, seed); return unique Tasks in order."""
    return [p.task for p in _pairs(pairs)]


def _pairs(pairs: Iterable[PairLike]) -> list[Pair]:
    out: list[Pair] = []
    seen: set[str] = set()
    for item in pairs:
        if isinstance(item, Task):
            pair = Pair(item.template, item.seed, item)
        else:
            try:
                what, seed = item
            except (TypeError, ValueError):
                raise RunError(f"pair {item!r} is neither a Task nor a (task, seed) pair") from None
            seed = _seed(seed, item)
            if isinstance(what, TaskTemplate):
                pair = Pair(what, seed)
            elif isinstance(what, Task):
                if what.seed != seed:
                    raise RunError(f"pair ({what.id}, {seed}): the Task was instantiated with seed "
                                   f"{what.seed}")
                pair = Pair(what.template, seed, what)
            else:
                raise RunError(f"pair {item!r}: expected a Task or TaskTemplate, got {type(what).__name__}")
        if pair.key not in seen:
            seen.add(pair.key)
            out.append(pair)
    return out


def _with_attempt(rec: dict[str, Any], attempt: int | None) -> dict[str, Any]:
    """``rec`` with the attempt index of a judged-retries run (``None``: a run without retries,
    whose lines stay as they always were)."""
    if attempt is not None:
        rec["attempt"] = attempt
    return rec


def _step_record(step: Step, traj: Trajectory, attempt_id: str,
                 attempt: int | None = None) -> tuple[dict[str, Any], bytes | None]:
    """A ``step`` line and its screenshot (written by the run's writer to the line's ``screenshot``)."""
    screenshot = None
    png = step.observation.screenshot_png
    if png is not None:
        screenshot = (Path(SCREENS_DIR) / attempt_id / f"{step.index:03d}.png").as_posix()
    try:
        n_elements: int | None = len(step.observation.elements)
    except DroidVerifyError:  # an unparseable dump still gets its step recorded
        n_elements = None
    return _with_attempt({
        "kind": "step", "episode_id": episode_id(traj.task_id, traj.seed or 0), "attempt_id": attempt_id,
        "task_id": traj.task_id, "seed": traj.seed, "index": step.index, "n_elements": n_elements,
        "screenshot": screenshot, "written_at": time.time(), "step": step.to_dict(),
    }, attempt), png


def _episode_record(traj: Trajectory, attempt_id: str, attempt: int | None = None,
                    attempt_seed: int | None = None) -> dict[str, Any]:
    return EpisodeRecord.of(traj, attempt_id, attempt, attempt_seed).to_line()


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
        marker = {"kind": "abandoned", "attempt_id": a, "episode_id": rec.get("episode_id"),
                  "task_id": rec.get("task_id"), "seed": rec.get("seed"), "written_at": time.time()}
        steps.write(_with_attempt(marker, rec["attempt"]) if "attempt" in rec else marker)
        n += 1
    return n


# Config keys that may change between invocations of one run (adding seeds or tasks is fine; so is
# judging with another judge: judgements are keyed by judge name and version; so is another
# --attempts: it only moves the point where an episode counts as finished).
_GROWABLE_KEYS = frozenset({"seeds", "tasks", "judge", "attempts"})


def _read_run_json(out_dir: Path) -> dict[str, Any]:
    """run.json of a directory :func:`check_run_dir` accepted ({} for a new directory)."""
    path = out_dir / RUN_FILE
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def _check_compatible(out_dir: Path, previous: dict[str, Any], config: dict[str, Any]) -> None:
    """Refuse to resume a directory whose earlier invocation used a different configuration."""
    old = previous.get("config") or {}
    diff = sorted(k for k in set(old) & set(config) - _GROWABLE_KEYS if old[k] != config[k])
    if diff:
        detail = ", ".join(f"{k}: {old[k]!r} -> {config[k]!r}" for k in diff)
        raise RunError(f"{out_dir} holds a run with a different configuration ({detail}); "
                       "use another --out or --no-resume")


def _write_run_json(out_dir: Path, previous: dict[str, Any], tasks: list[Pair], config: dict[str, Any],
                    max_steps: int | None, answer_ends_episode: bool,
                    retry: tuple[int, str, str] | None = None) -> None:
    path = out_dir / RUN_FILE
    now = time.time()
    data: dict[str, Any] = {
        "droidverify_version": droidverify.__version__ if hasattr(droidverify, "__version__") else None,
        "created_at": previous.get("created_at", now), "updated_at": now,
        "invocations": int(previous.get("invocations", 0)) + 1,
        "config": config, "max_steps": max_steps, "answer_ends_episode": answer_ends_episode,
        "pairs": [[t.id, t.seed] for t in tasks],
    }
    if retry is not None:  # judged retries: K and the judge whose verdicts decide (read by the report)
        data["attempts"], data["retry_judge"] = retry[0], {"name": retry[1], "version": retry[2]}
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str), encoding="utf-8")
    os.replace(tmp, path)  # atomic: a crash never leaves a half-written run.json


def _phone_state_record(env: Environment, task: Task, attempt_id: str,
                        attempt: int | None = None) -> dict[str, Any] | None:
    """The simulator's final phone state as a ``phone`` line (ProRe probes it after the fact).

    ``None`` for environments without a simulated phone (adb). A state that cannot be encoded is
    recorded with its error rather than stopping the run.
    """
    from droidverify.env.sim.phone import Phone
    from droidverify.errors import PhoneStateError

    phone = getattr(env, "phone", None)
    if not isinstance(phone, Phone):
        return None
    from droidverify.env.sim.state import encode_phone

    rec: dict[str, Any] = _with_attempt({"kind": "phone", "episode_id": episode_id(task.id, task.seed),
                                         "attempt_id": attempt_id, "task_id": task.id, "seed": task.seed,
                                         "state": None, "error": None, "written_at": time.time()}, attempt)
    try:
        rec["state"] = encode_phone(phone)
    except PhoneStateError as exc:
        rec["error"] = str(exc)
    return rec


Emit = Callable[[dict[str, Any], bytes | None], None]
Verdicts = dict[str, str]  # attempt key -> outcome of the judgements stored before this invocation

# Attributes holding the seed of an agent's draws (VerifierAgent with a temperature: sample_seed;
# RandomAgent: seed); both re-seed their generator from it (and the goal) at reset().
SEED_ATTRS = ("sample_seed", "seed")


def check_attempts(attempts: object) -> int:
    """``attempts`` (``--attempts``) as an int >= 1, else :class:`RunError` naming the option."""
    if isinstance(attempts, bool) or not isinstance(attempts, int):
        raise RunError(f"--attempts (attempts=) must be a whole number >= 1, got {type(attempts).__name__} "
                       f"{attempts!r}")
    if attempts < 1:
        raise RunError(f"--attempts (attempts=) must be >= 1, got {attempts} (1: no retries)")
    return attempts


def attempt_seed(seed: int, attempt: int) -> int:
    """The draw seed of attempt ``attempt`` of an agent seeded ``seed``: the seed itself for the
    first attempt (a run with retries starts exactly as one without), a 32-bit value derived from
    (seed, attempt) after, so a retry is a new draw rather than a replay."""
    if attempt == 0:
        return seed
    digest = hashlib.blake2b(f"{seed}:attempt:{attempt}".encode(), digest_size=4).digest()
    return int.from_bytes(digest, "big")


def seed_attempt(agent: Agent, attempt: int) -> int | None:
    """Give a freshly built agent the draw seed of ``attempt`` (:func:`attempt_seed` of its own) if it
    exposes one (:data:`SEED_ATTRS`), before ``reset``; returns it, or None for agents without a
    seed (an argmax or LLM agent replays its first attempt unless the model itself samples). An
    agent with a ``temperature`` of 0 takes the argmax: its seed draws nothing and is left alone,
    unless it has a ``retry_temperature`` (``--retry-temperature``): a retry then draws at that."""
    retry_t = getattr(agent, "retry_temperature", None)  # validated when the agent was built
    if attempt > 0 and retry_t is not None:
        agent.temperature = retry_t  # type: ignore[attr-defined]
    temperature = getattr(agent, "temperature", None)
    if attempt == 0 or (isinstance(temperature, int | float) and temperature <= 0):
        return None
    for attr in SEED_ATTRS:
        seed = getattr(agent, attr, None)
        if isinstance(seed, int) and not isinstance(seed, bool):
            new = attempt_seed(seed, attempt)
            setattr(agent, attr, new)
            return new
    return None


def play_episode(agent: Agent, env_factory: EnvFactory, pair: Pair, attempt_id: str, *,
                 max_steps: int | None, answer_ends_episode: bool, emit: Emit,
                 judge: GuardedJudge | None = None, attempt: int | None = None,
                 attempt_seed: int | None = None) -> tuple[Trajectory, Judgement | None]:
    """Run one attempt and hand every line it produces to ``emit(record, png)`` in file order:
    its ``step`` lines (``png``: the screenshot to store at the line's ``screenshot`` path), the
    ``phone`` line, the ``final`` line, the ``episode`` line, then (``judge``) a ``judgement``
    line. In-process runs write each line as it comes; worker processes collect them and send them
    to the run's one writer. Returns the trajectory and the judgement (None without ``judge``).

    ``judge`` judges the episode after its lines are out and before the environment is closed: a
    judge taking ``env`` (ProRe) probes the live environment. An InfrastructureError from the judge
    propagates after the episode's lines (the episode is kept; no judgement is stored).

    ``attempt`` (judged retries only; None otherwise): the attempt's index, written on each of its
    lines and its judgement; ``attempt_seed``: the draw seed the agent was given for it."""
    task = pair.task
    env = env_factory(task, task.seed)
    judgement = None
    try:
        traj = run_episode(agent, env, task, max_steps=max_steps, answer_ends_episode=answer_ends_episode,
                           on_step=lambda s, tr: emit(*_step_record(s, tr, attempt_id, attempt)))
        phone_rec = _phone_state_record(env, task, attempt_id, attempt)
        if phone_rec is not None:
            emit(phone_rec, None)
        fo = traj.final_observation
        emit(_with_attempt({"kind": "final", "episode_id": pair.key, "attempt_id": attempt_id, "task_id": task.id,
                            "seed": task.seed, "observation": fo.to_dict() if fo else None,
                            "written_at": time.time()}, attempt), None)
        emit(_episode_record(traj, attempt_id, attempt, attempt_seed), None)
        if judge is not None:  # the env is still open: on a device, before the next episode resets it
            prepare(traj, pair.key, attempt_id, phone_rec.get("state") if phone_rec else None, attempt)
            judgement = judge.judge(traj, env=env)
            emit(judgement_line(judgement), None)
    finally:
        env.close()
    return traj, judgement


def play_attempts(new_agent: Callable[[], Agent], env_factory: EnvFactory, work: Work, *, attempts: int,
                  max_steps: int | None, answer_ends_episode: bool, emit: Emit,
                  judge: Callable[[], GuardedJudge] | None, verdicts: Verdicts) -> int:
    """Play attempts ``work.start``, ``work.start + 1``, ... of ``work.pair``, each a fresh agent
    (``new_agent()``, given its attempt's draw seed) in a fresh environment, until the judge calls
    one a success or ``attempts`` are used up; returns how many were played. Without retries
    (``attempts == 1``) this is one :func:`play_episode`, exactly as before.

    ``judge()`` gives the judge (built on first need); an attempt whose judgement is already stored
    (``verdicts``, by :func:`~droidverify.runner.store.attempt_key`) is not judged again, its stored
    verdict decides. A verdict other than ``success`` (``failure``, ``undecided``) means retry."""
    retries = attempts > 1
    played = 0
    for attempt in range(work.start, attempts):
        agent = new_agent()
        seed = seed_attempt(agent, attempt) if retries else None
        key = attempt_key(work.pair.key, attempt)
        stored = verdicts.get(key)
        _, j = play_episode(agent, env_factory, work.pair, uuid.uuid4().hex[:12], max_steps=max_steps,
                            answer_ends_episode=answer_ends_episode, emit=emit,
                            judge=judge() if judge is not None and stored is None else None,
                            attempt=attempt if retries else None, attempt_seed=seed)
        played += 1
        outcome = j.outcome if j is not None else stored
        if outcome == "success":
            break
    return played


@dataclass(frozen=True)
class Work:
    """One unit of a run: ``pair``'s attempts from ``start`` on (0 for a pair not yet begun)."""

    pair: Pair
    start: int = 0


class EpisodeWorker:
    """What one rollout worker holds: the env factory and the agent factory, with the first agent
    built at start-up (a local model loads here, once per worker, not once per episode), and the
    judge (``judge``: a :class:`GuardedFactory`, built here once) with the verdicts already stored
    (``verdicts``, by attempt key: those attempts are not judged again). ``render_scale`` (a run
    with a report): the worker also renders the report's screens of the attempts it played, at
    that scale, so the report's rendering runs on the workers rather than after the run."""

    def __init__(self, agent_factory: AgentFactory, env_factory: EnvFactory, max_steps: int | None,
                 answer_ends_episode: bool, judge: GuardedFactory | None = None,
                 verdicts: Verdicts | None = None, attempts: int = 1,
                 render_scale: float | None = None) -> None:
        self.agent_factory = agent_factory
        self.env_factory = env_factory
        self.max_steps = max_steps
        self.answer_ends_episode = answer_ends_episode
        self._first: Agent | None = agent_factory()
        self.judge = judge() if judge is not None else None
        self.verdicts = dict(verdicts or {})
        self.attempts = attempts
        self.render_scale = render_scale

    def _agent(self) -> Agent:
        agent, self._first = (self._first or self.agent_factory()), None
        return agent

    def play(self, work: Work) -> list[tuple[dict[str, Any], bytes | None]]:
        """Run ``work``'s attempts; their lines, in file order, for the writer, then (with
        ``render_scale``) a ``rendered`` line per report screen of theirs, with its PNG. A judge's
        InfrastructureError after an attempt's lines comes back as a last ``stop`` line carrying
        the error (the writer records the attempts, then stops the run)."""
        lines: list[tuple[dict[str, Any], bytes | None]] = []
        judge = self.judge
        try:
            play_attempts(self._agent, self.env_factory, work, attempts=self.attempts, max_steps=self.max_steps,
                          answer_ends_episode=self.answer_ends_episode,
                          emit=lambda rec, png: lines.append((rec, png)),
                          judge=(lambda: judge) if judge is not None else None, verdicts=self.verdicts)
        except InfrastructureError as exc:
            # the attempt in progress is lost, as without a judge; finished ones are kept
            if not any(rec.get("kind") == "episode" for rec, _ in lines):
                raise
            lines = _finished_attempts(lines)
            lines.append(({"kind": STOP_KIND, "error": _portable(exc)}, None))
        if self.render_scale is not None:
            from droidverify.runner.report import render_lines

            # before the stop line, which the writer acts on after everything else
            cut = len(lines) - (lines[-1][0].get("kind") == STOP_KIND)
            lines[cut:cut] = render_lines([rec for rec, _ in lines[:cut]], scale=self.render_scale)
        return lines


def _finished_attempts(lines: list[tuple[dict[str, Any], bytes | None]]) -> list[tuple[dict[str, Any], bytes | None]]:
    """The lines up to the last attempt's episode line and its judgement: the lines of an attempt the
    agent or the environment cut short stay out (they would be stale)."""
    last = max(i for i, (rec, _) in enumerate(lines) if rec.get("kind") == "episode")
    if last + 1 < len(lines) and lines[last + 1][0].get("kind") == JUDGEMENT_KIND:
        last += 1
    return lines[: last + 1]


def _play(worker: EpisodeWorker, work: Work) -> list[tuple[dict[str, Any], bytes | None]]:
    return worker.play(work)  # module-level: worker processes receive it by reference


def factory_agent_name(agent_factory: AgentFactory) -> str:
    """The name of the agents a factory builds, without building one when it says (an
    ``agent_name`` attribute, or an agent class with a ``name``): a parallel run checks it in this
    process, where loading a model only for its name would be waste."""
    named = getattr(agent_factory, "agent_name", None)
    if isinstance(named, str) and named:
        return named
    if isinstance(agent_factory, type):
        cls_name = getattr(agent_factory, "name", None)
        return cls_name if isinstance(cls_name, str) and cls_name else agent_factory.__name__
    return agent_name(agent_factory())


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
    backend: RolloutBackend | None = None,
    judge: JudgeLike | None = None,
    attempts: int = 1,
) -> RunSummary:
    """Run one fresh agent (``agent_factory()``) per episode in a fresh env (``env_factory(task, seed)``).

    With ``resume`` (default), episodes already in ``episodes.jsonl`` are skipped and attempts a
    crash cut short are marked abandoned and re-run from scratch; without it the files the runner
    wrote in ``out_dir`` are deleted first. Writes ``run.json``, ``steps.jsonl``, ``episodes.jsonl``,
    ``summary.json`` and (``report``) ``report.html``.

    ``out_dir`` must be new, empty or a run directory (else :class:`RunError`: nothing of another
    kind is ever written or deleted) and is locked while the run lasts (a second process gets
    :class:`RunLockedError`). Infrastructure failures (:class:`InfrastructureError`: server down,
    model not loadable, device lost; also env reset errors) stop the run with the episode left
    unfinished; rerun to resume.

    ``backend`` (``runner.backends``: :class:`LocalBackend` worker processes, :class:`RayBackend`
    actors) runs the episodes on workers; this process stays the only writer of the directory, so
    everything above holds unchanged. The factories must then be picklable (module-level callables,
    classes, ``functools.partial``, or the CLI's ``AgentSpec`` / ``EnvSpec``); each worker builds its
    first agent at start (a local model loads once per worker). A worker that dies mid-episode
    costs that attempt only: the episode is re-run on a fresh worker. Lines of an episode run on a
    worker are written when it finishes (in-process, each step is written as it happens). With
    ``report``, each worker also renders the report's screens of the episodes it played (sent back
    with their lines), so the report itself only renders what is missing; in-process runs render
    them when the report is written (in worker processes when there are many).

    ``steps.jsonl`` holds each distinct screen's XML once (``runner.store.StepsWriter``); read it
    with ``runner.store.read_steps`` or :func:`~droidverify.runner.store.load_trajectories`.

    ``judge`` (a ``rewards`` Judge, or a factory carrying ``name`` and ``version`` such as
    ``cli.judge.JudgeSpec``; built once per worker) judges every episode right after it ends, in
    the process that ran it, with the live environment for judges that take one (ProRe), and
    appends to ``out_dir/judgements.jsonl`` (``runner.judging``): a judge that raises gives an
    ``undecided`` judgement, an episode already judged by this judge and version is not judged
    again, and finished episodes left unjudged (a crash, an earlier run without the judge, the
    judge's server down) are judged after the fact, from the saved states, before the summary.
    ``resume=False`` deletes ``judgements.jsonl`` with the runner's files (it judged the episodes
    being deleted).

    ``attempts`` (K, default 1: no retries; needs ``judge`` when > 1) retries an episode the judge
    does not call a success (``failure`` or ``undecided``): a fresh agent in a fresh environment
    on the same task and seed, up to K attempts; the episode's outcome is its last attempt's. Every
    attempt is recorded (an ``attempt`` index on its lines, its judgement stored under
    ``runner.store.attempt_key``); an agent exposing a draw seed gets one derived from (its seed,
    attempt) (:func:`seed_attempt`). Resume continues at the attempt after the last recorded one
    (judging it first, from its saved state, if a crash came before its judgement). Refused for an
    ``EnvSpec("adb")``: a device cannot be reset to the task's initial state. See docs/runner.md.
    """
    attempts = check_attempts(attempts)
    if attempts > 1 and judge is None:
        raise RunError(f"--attempts {attempts} (attempts=) retries the episodes a judge calls failed: give a "
                       "judge (--judge METHOD)")
    if attempts > 1 and getattr(env_factory, "env", None) == "adb":
        raise RunError("--attempts > 1 cannot run with --env adb: a device has no reset to the task's initial "
                       "state, so a retry would start from wherever the failed attempt left the phone")
    if isinstance(out_dir, str) and not out_dir.strip():
        raise RunError("the run directory must be named (got an empty path)")
    out = Path(out_dir)
    tasks = _pairs(pairs)
    console = console or Console(stderr=True)
    owned = check_run_dir(out)
    out.mkdir(parents=True, exist_ok=True)
    with RunDirLock(out):
        if owned:
            owned = check_run_dir(out)  # another process may have changed it before we locked
        if owned and not resume:
            clear_run_dir(out)
            (out / JUDGEMENTS_FILE).unlink(missing_ok=True)  # judgements of the episodes just deleted
        return _run_locked(agent_factory, tasks, out, env_factory=env_factory, progress=progress,
                           max_steps=max_steps, answer_ends_episode=answer_ends_episode,
                           config=dict(config or {}), report=report, console=console, backend=backend,
                           judge=judge, attempts=attempts)


def _plan(tasks: list[Pair], recorded: dict[str, dict[int, dict[str, Any]]], attempts: int,
          verdict: Callable[[str], str | None]) -> list[Work]:
    """What is left to play: a pair with no recorded attempt starts at 0; one whose last recorded
    attempt is the K-th (or later), or that the judge called a success, is finished; any other
    continues at the attempt after its last recorded one."""
    todo = []
    for t in tasks:
        tries = recorded.get(t.key)
        if not tries:
            todo.append(Work(t))
            continue
        last = max(tries)
        if last + 1 < attempts and verdict(attempt_key(t.key, last)) != "success":
            todo.append(Work(t, last + 1))
    return todo


def _run_locked(agent_factory: AgentFactory, tasks: list[Pair], out: Path, *, env_factory: EnvFactory,
                progress: bool, max_steps: int | None, answer_ends_episode: bool,
                config: dict[str, Any], report: bool, console: Console,
                backend: RolloutBackend | None, judge: JudgeLike | None = None,
                attempts: int = 1) -> RunSummary:
    previous = _read_run_json(out)
    store = None
    judge_name = judge_version = ""
    if judge is not None:
        judge_name, judge_version = judge_identity(judge)
        guarded = GuardedFactory(judge)
        store = JudgementStore(out / JUDGEMENTS_FILE)
    live_judge: GuardedJudge | None = None  # in-process: built on first need
    _check_compatible(out, previous, config)
    retries = attempts > 1

    def verdict(key: str) -> str | None:
        j = store.by_key.get(judgement_key(key, judge_name, judge_version)) if store is not None else None
        return j.outcome if j is not None else None

    def in_process_judge() -> GuardedJudge:
        nonlocal live_judge
        if live_judge is None:
            live_judge = guarded()
        return live_judge

    read = read_episodes(out)
    if read.skipped:
        console.print(f"[yellow]warning:[/] {out / EPISODES_FILE}: skipped {len(read.skipped)} damaged "
                      f"line(s) (first: line {read.skipped[0][0]}, {read.skipped[0][1]}); those "
                      "episodes run again")
    prev_agents = {ep.get("agent") for tries in read.attempts.values() for ep in tries.values()}
    todo = _plan(tasks, read.attempts, attempts, verdict)
    # Checked whether or not episodes are left, before anything is written. With workers the
    # agents are built there; here only the name is needed.
    parallel = backend is not None and bool(todo)
    first_agent = agent_factory() if (todo or prev_agents) and not parallel else None
    name = factory_agent_name(agent_factory) if parallel and prev_agents else (
        agent_name(first_agent) if first_agent is not None else None)
    if name is not None and prev_agents and name not in prev_agents:
        raise RunError(f"{out} holds results of agent(s) {sorted(map(str, prev_agents))}, "
                       f"not {name!r}; use another --out or --no-resume")
    _write_run_json(out, previous, tasks, config, max_steps, answer_ends_episode,
                    (attempts, judge_name, judge_version) if retries else None)
    if retries and store is not None and todo:
        # A retry is decided by the verdict on the last recorded attempt: one a crash (or the judge's
        # server) left unjudged is judged now, from its saved state, before anything is played.
        late = unjudged(out, [w.pair.key for w in todo if w.start > 0], judge_name, judge_version, store,
                        retries=True, last_only=True)
        if late:
            console.print(f"judging the last attempt of {len(late)} episode(s) after the fact with {judge_name} "
                          f"({judge_version}) to decide their retries: no live environment, the saved final "
                          "states are used")
            judge_all(guarded if backend is not None else in_process_judge(), late, store, backend=backend)
            todo = _plan(tasks, read.attempts, attempts, verdict)
            parallel = backend is not None and bool(todo)
    skipped = len(tasks) - len(todo)
    ran = 0
    # Verdicts already stored for the attempts about to be played (a judgement can outlive a lost
    # episode line): those attempts are not judged again, their stored verdict decides.
    stored: Verdicts = {}
    for w in todo if store is not None else []:
        for n in range(w.start, attempts):
            v = verdict(attempt_key(w.pair.key, n))
            if v is not None:
                stored[attempt_key(w.pair.key, n)] = v

    def record_judgement(rec: dict[str, Any]) -> None:
        assert store is not None
        j = Judgement.from_dict(rec["judgement"])
        if not store.has(j.episode_id, j.judge, j.version):  # first judgement of a key wins
            store.append(j)

    steps_w = StepsWriter(out / STEPS_FILE)
    eps_w = JsonlWriter(out / EPISODES_FILE)
    prog = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TimeRemainingColumn(), console=console, disable=not progress,
                    transient=False)
    try:
        _mark_abandoned(steps_w, out, {ep["attempt_id"] for tries in read.attempts.values()
                                       for ep in tries.values()})
        def emit(rec: dict[str, Any], png: bytes | None) -> None:
            # The one writer: screenshot file first, then its line (an episode line comes last).
            if png is not None and rec.get("screenshot"):
                path = out / rec["screenshot"]
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(png)
            if rec.get("kind") == JUDGEMENT_KIND:
                record_judgement(rec)
                return
            (eps_w if rec.get("kind") == "episode" else steps_w).write(rec)

        with prog:
            bar = prog.add_task("episodes", total=len(tasks), completed=skipped)
            if parallel:
                assert backend is not None
                prog.update(bar, description=f"episodes ({backend.label})")
                from droidverify.runner.report import DEFAULT_SCALE, RENDERED_KIND, write_screen_file

                setup = functools.partial(EpisodeWorker, agent_factory, env_factory, max_steps,
                                          answer_ends_episode, guarded if store is not None else None, stored,
                                          attempts, DEFAULT_SCALE if report else None)
                for _, lines in backend.imap_unordered(setup, _play, todo):
                    # A whole unit arrives at once: screenshots, then its steps/phone/final lines
                    # in one durable write, then its episode lines (one fsync each, not one per step),
                    # then its judgements, then the report screens the worker rendered (derived
                    # from the lines: a crash before they are written only leaves them to the report).
                    for rec, png in lines:
                        if png is not None and rec.get("screenshot"):
                            path = out / rec["screenshot"]
                            path.parent.mkdir(parents=True, exist_ok=True)
                            path.write_bytes(png)
                    kinds = ("episode", JUDGEMENT_KIND, STOP_KIND, RENDERED_KIND)
                    steps_w.write_many([rec for rec, _ in lines if rec.get("kind") not in kinds])
                    eps_w.write_many([rec for rec, _ in lines if rec.get("kind") == "episode"])
                    for rec, png in lines:
                        if rec.get("kind") == JUDGEMENT_KIND:
                            record_judgement(rec)
                        elif rec.get("kind") == RENDERED_KIND and png is not None:
                            write_screen_file(out / rec["path"], png)
                    ran += 1
                    prog.advance(bar)
                    for rec, _ in lines:
                        if rec.get("kind") == STOP_KIND:
                            raise rec["error"]  # the judge's server is down: the episode is kept
            spare = [first_agent] if first_agent is not None else []  # built above for the name check

            def new_agent() -> Agent:
                return spare.pop() if spare else agent_factory()

            for work in todo if not parallel else []:
                prog.update(bar, description=work.pair.key)
                play_attempts(new_agent, env_factory, work,
                              attempts=attempts, max_steps=max_steps, answer_ends_episode=answer_ends_episode,
                              emit=emit, judge=in_process_judge if store is not None else None, verdicts=stored)
                ran += 1
                prog.advance(bar)
    finally:
        steps_w.close()
        eps_w.close()

    if store is not None:  # finished episodes nobody judged yet: after the fact, from the saved states
        late = unjudged(out, [t.key for t in tasks], judge_name, judge_version, store, retries=retries)
        if late:
            what = "attempt(s) of finished episodes" if retries else "finished episode(s)"
            console.print(f"judging {len(late)} {what} after the fact with {judge_name} "
                          f"({judge_version}): no live environment, the saved final states are used")
            judge_all(live_judge or (guarded if backend is not None else guarded()), late, store,
                      backend=backend)

    read = read_episodes(out)
    wanted = [read.episodes[t.key] for t in tasks if t.key in read.episodes]
    summary = RunSummary.from_episodes(wanted, out_dir=str(out), ran=ran, skipped=skipped)
    tries = [read.attempts[t.key] for t in tasks if t.key in read.attempts]
    if retries or any(len(x) > 1 or 0 not in x for x in tries):
        summary.retries = RetryStats.from_attempts(
            tries, max_attempts=max(attempts, *(max(x) + 1 for x in tries)) if tries else attempts,
            outcome=(lambda ep: verdict(attempt_key(ep["episode_id"], attempt_of(ep)))),
            judge=f"{judge_name} ({judge_version})" if store is not None else None)
    (out / SUMMARY_FILE).write_text(json.dumps(summary.to_dict(), indent=2), encoding="utf-8")
    if report:
        from droidverify.runner.report import write_report

        write_report(out, episodes=wanted, summary=summary)
    return summary
