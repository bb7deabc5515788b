"""The run directory: append-only JSONL files that survive a crash at any point.

Layout of ``out_dir`` (schema in docs/runner.md)::

    run.json        run configuration (agent, env, pairs, max_steps, ...)
    .lock           held (flock) by the process using the directory
    steps.jsonl     one line per step, a ``final`` line per finished attempt, ``abandoned``
                    markers for attempts a crash cut short; each distinct screen's XML is written
                    once, later lines showing it name it by hash (:class:`StepsWriter`; read
                    with :func:`read_steps`)
    episodes.jsonl  one line per finished episode (summary, no XML); with judged retries
                    (``run_many(attempts=K)``) one line per finished attempt, ``attempt`` 0..K-1
    screens/        per-step PNGs when the environment supplies screenshots
    summary.json    success rates overall / by app / by complexity
    report.html     human-readable report

Every line is flushed and fsync'd when written, so a crash loses at most the line being written;
a truncated last line is cut off before the next append and skipped by readers. Episode lines are
validated against :class:`EpisodeRecord` on load; a line that does not fit is skipped and reported.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import math
import os
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Literal, Self

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from droidverify.env.records import Observation, Step, Trajectory
from droidverify.errors import DroidVerifyError, RunError, RunLockedError

STEPS_FILE = "steps.jsonl"
EPISODES_FILE = "episodes.jsonl"
RUN_FILE = "run.json"
SUMMARY_FILE = "summary.json"
REPORT_FILE = "report.html"
SCREENS_DIR = "screens"
LOCK_FILE = ".lock"
RUN_FILES = (STEPS_FILE, EPISODES_FILE, RUN_FILE, SUMMARY_FILE, REPORT_FILE)
# Names the runner and the report write under screens/: <attempt_id>/<index>.png and rendered/.
_SCREEN_ENTRY = re.compile(r"[0-9a-f]{12}|rendered")
_SCREEN_FILE = re.compile(r"(\d{3,}|final)\.png(\.tmp)?")


class RunDirLock:
    """An exclusive, non-blocking lock on a run directory (``flock`` on ``DIR/.lock``).

    Held for as long as a process writes the directory; the kernel drops it when the process dies,
    so a crash never leaves a stale lock. A second process gets :class:`RunLockedError`::

        with RunDirLock(out_dir):
            ...  # write the run files
    """

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.path = self.directory / LOCK_FILE
        self._fh: BinaryIO | None = None

    def acquire(self) -> None:
        fh = self.path.open("a+b")
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            fh.seek(0)
            holder = fh.read(64).decode("ascii", "replace").strip()
            fh.close()
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                who = f"process {holder}" if holder.isdigit() else "another process"
                raise RunLockedError(f"{self.directory} is in use by {who}; wait for it to finish or "
                                     "use another --out", path=str(self.path)) from None
            raise
        fh.truncate(0)
        fh.write(f"{os.getpid()}\n".encode())
        fh.flush()
        self._fh = fh

    def release(self) -> None:
        if self._fh is not None and not self._fh.closed:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            self._fh.close()
        self._fh = None

    @property
    def held(self) -> bool:
        return self._fh is not None

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _readable_run_json(out_dir: Path) -> bool:
    try:
        data = json.loads((out_dir / RUN_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and isinstance(data.get("config"), dict) and "pairs" in data


def check_run_dir(out_dir: Path) -> bool:
    """Whether ``out_dir`` may be used as a run directory; True if it already is one.

    Usable: missing, empty, or holding a ``run.json`` the runner wrote. Anything else (a file, a
    directory of other files, run files without a readable ``run.json``) raises :class:`RunError`,
    so the runner never writes into, or deletes from, a directory it does not own.
    """
    if not out_dir.exists():
        return False
    if not out_dir.is_dir():
        raise RunError(f"{out_dir} exists and is not a directory")
    names = {p.name for p in out_dir.iterdir()}
    if not names - {LOCK_FILE}:
        return False
    if _readable_run_json(out_dir):
        return True
    if names & {STEPS_FILE, EPISODES_FILE}:
        raise RunError(f"{out_dir} holds run files but its {RUN_FILE} is missing or unreadable, so "
                       "the configuration that wrote them cannot be checked; use another --out")
    raise RunError(f"{out_dir} is not empty and is not a droidverify run directory (no {RUN_FILE}); "
                   "use a new or empty --out")


def clear_run_dir(out_dir: Path) -> None:
    """Delete what the runner and the report wrote in run directory ``out_dir``, nothing else."""
    for name in RUN_FILES:
        (out_dir / name).unlink(missing_ok=True)
    (out_dir / (RUN_FILE + ".tmp")).unlink(missing_ok=True)
    screens = out_dir / SCREENS_DIR
    if not screens.is_dir():
        return
    for sub in screens.iterdir():
        if not (sub.is_dir() and _SCREEN_ENTRY.fullmatch(sub.name)):
            continue
        dirs = [sub] + ([d for d in sub.iterdir() if d.is_dir() and _SCREEN_ENTRY.fullmatch(d.name)]
                        if sub.name == "rendered" else [])
        for d in reversed(dirs):
            for f in d.iterdir():
                if f.is_file() and _SCREEN_FILE.fullmatch(f.name):
                    f.unlink()
            _rmdir_if_empty(d)
    _rmdir_if_empty(screens)


def _rmdir_if_empty(d: Path) -> None:
    try:
        d.rmdir()
    except OSError:  # not empty: something the runner did not write stays
        pass


def episode_id(task_id: str, seed: int) -> str:
    """The key resume uses: one finished episode per (task, seed) in a run directory."""
    return f"{task_id}:{seed}"


def attempt_of(record: dict[str, Any]) -> int:
    """The attempt index of a run-file line (judged retries); lines written without one are 0."""
    n = record.get("attempt")
    return n if isinstance(n, int) and not isinstance(n, bool) and n >= 0 else 0


def attempt_key(episode_key: str, attempt: int) -> str:
    """The id a judgement of one attempt is stored under: the episode id for the first attempt (so
    a run without retries keys its judgements as it always did), ``<episode id>:a<n>`` for the
    attempt of index n >= 1."""
    return episode_key if attempt == 0 else f"{episode_key}:a{attempt}"


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


def encode_line(record: dict[str, Any]) -> bytes:
    """One JSON line as UTF-8. Text that is not valid Unicode (a lone surrogate from model output)
    is written as a JSON ``\\uXXXX`` escape, so encoding can never fail and the line reads back
    as the same string."""
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False,
                      default=str) + "\n"
    return line.encode("utf-8", errors="backslashreplace")


class JsonlWriter:
    """Append JSON lines durably (one write, flush + fsync per line)."""

    # Subclasses change what a line holds just before it is encoded (StepsWriter).
    def _prepare(self, record: dict[str, Any]) -> dict[str, Any]:
        return record

    def __init__(self, path: Path) -> None:
        self.path = path
        self.cut_bytes = _cut_partial_tail(path)
        self._fh: BinaryIO = path.open("ab")

    def write(self, record: dict[str, Any]) -> None:
        record = self._prepare(record)
        try:
            data = encode_line(record)
        except ValueError:  # NaN/inf somewhere (a model score): keep the record, as null
            data = encode_line(_finite(record))
        self._fh.write(data)
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def write_many(self, records: list[dict[str, Any]]) -> None:
        """Append several lines with one write and one fsync (a finished attempt's lines from a
        worker: a crash part-way leaves an attempt without its episode line, which is stale anyway,
        and at most one cut line, which the next writer cuts off)."""
        if not records:
            return
        parts = []
        for record in map(self._prepare, records):
            try:
                parts.append(encode_line(record))
            except ValueError:
                parts.append(encode_line(_finite(record)))
        self._fh.write(b"".join(parts))
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _finite(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


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


XML_SHA = "xml_sha256"  # an observation's key: the SHA-256 (hex) of its XML, written on an earlier line


def _xml_sha(xml: str) -> str:
    return hashlib.sha256(xml.encode("utf-8", "surrogatepass")).hexdigest()


def _observation_dict(record: dict[str, Any]) -> Any:
    """The observation dict of a ``step`` or ``final`` line (None for other lines)."""
    if record.get("kind") == "step":
        step = record.get("step")
        return step.get("observation") if isinstance(step, dict) else None
    return record.get("observation") if record.get("kind") == "final" else None


def _with_observation(record: dict[str, Any], obs: dict[str, Any]) -> dict[str, Any]:
    """A copy of a ``step`` / ``final`` line holding ``obs`` (the caller's dicts are not changed)."""
    if record.get("kind") == "step":
        return {**record, "step": {**record["step"], "observation": obs}}
    return {**record, "observation": obs}


class StepsWriter(JsonlWriter):
    """The writer of ``steps.jsonl``: the XML of each distinct screen is written once, on the first
    ``step`` or ``final`` line that shows it, with its hash (``xml_sha256``); a later line showing
    the same screen carries the hash in place of the XML. Oracle runs see the same screens again and
    again (launcher, app start screens across seeds): about 40% of the steps' XML repeats.

    Crash-safe as the file itself: the line holding a screen's XML is always written (and fsync'd)
    before any line naming it, in the same append-only file, and a resumed run learns which screens
    the file already holds (after its cut-off last line is removed). :func:`read_steps` puts the XML
    back; files written before this (full XML on every line) read as they are."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self._known: set[str] = set()
        for rec in read_jsonl(path).records:
            obs = _observation_dict(rec)
            # only a line holding the XML defines its hash (a reference defines nothing)
            if not isinstance(obs, dict) or not isinstance(obs.get("xml"), str):
                continue
            if isinstance(obs.get(XML_SHA), str):
                self._known.add(obs[XML_SHA])

    def _prepare(self, record: dict[str, Any]) -> dict[str, Any]:
        obs = _observation_dict(record)
        if not isinstance(obs, dict) or not isinstance(obs.get("xml"), str):
            return record
        sha = _xml_sha(obs["xml"])
        if sha not in self._known:
            self._known.add(sha)
            return _with_observation(record, {**obs, XML_SHA: sha})
        # the hash where the XML stood: the line keeps the observation's other keys in their order
        return _with_observation(record, {(XML_SHA if k == "xml" else k): (sha if k == "xml" else v)
                                          for k, v in obs.items()})


def read_steps(path: Path) -> JsonlRead:
    """``steps.jsonl`` as :func:`read_jsonl` reads it, with every ``step`` and ``final`` line's
    observation as the runner built it: the XML a :class:`StepsWriter` stored once put back where
    a line names it by hash (and the hash key dropped). Lines of older files are returned as they
    are. A line naming a screen whose XML line is missing or damaged keeps no ``xml`` (readers
    report that screen as unavailable) and is warned about."""
    read = read_jsonl(path)
    xml_of: dict[str, str] = {}
    unresolved = 0
    for i, rec in enumerate(read.records):
        obs = _observation_dict(rec)
        if not isinstance(obs, dict) or not isinstance(obs.get(XML_SHA), str):
            continue
        sha = obs[XML_SHA]
        if isinstance(obs.get("xml"), str):
            xml_of.setdefault(sha, obs["xml"])
            restored = {k: v for k, v in obs.items() if k != XML_SHA}
        elif sha in xml_of:
            restored = {("xml" if k == XML_SHA else k): (xml_of[sha] if k == XML_SHA else v)
                        for k, v in obs.items()}
        else:
            unresolved += 1
            continue
        read.records[i] = _with_observation(rec, restored)
    if unresolved:
        warnings.warn(f"{path}: {unresolved} step/final line(s) name a screen ({XML_SHA}) whose XML line is "
                      "missing or damaged; those screens are unavailable", stacklevel=2)
    return read


class EpisodeRecord(BaseModel):
    """An ``episodes.jsonl`` line: what the runner writes (:meth:`of`, :meth:`to_line`) and what
    readers validate each line against (:func:`read_episodes`).

    Strict (``"success": "yes"`` or ``true`` is not a score), finite numbers only; keys not listed
    are kept as they are (newer writers may add some). ``attempt_seed`` and ``attempt`` are written
    only by runs with judged retries (lines of other runs have neither).
    """

    model_config = ConfigDict(extra="allow", strict=True, allow_inf_nan=False)

    kind: Literal["episode"]
    episode_id: str
    attempt_id: str
    task_id: str
    seed: int | None = None
    agent: str | None = None
    goal: str
    params: dict[str, Any] | None = None
    apps: list[str] | None = None
    complexity: int | float | str | None = None
    task_kind: str | None = None
    n_steps: int = 0
    actions: list[str | None] = []
    errors: list[str | None] = []
    answer: str | None = None
    declared_done: bool = False
    success: float | None = None
    checker_score: float | None = None
    checker_error: str | None = None
    agent_error: str | None = None
    termination: str | None = None
    max_steps: int | None = None
    usage: dict[str, int] | None = None
    time_agent: float | None = None
    time_env: float | None = None
    started_at: float | None = None
    finished_at: float | None = None
    attempt_seed: int | None = None  # a retry of an agent that draws: the seed it drew with
    attempt: int = 0  # judged retries: 0-based attempt index (absent on lines of runs without them)

    @classmethod
    def of(cls, traj: Trajectory, attempt_id: str, attempt: int | None = None,
           attempt_seed: int | None = None) -> EpisodeRecord:
        """The line of a finished attempt (not validated here: a value a reader would reject
        skips the line on load, it never loses the episode at write time)."""
        m = traj.metadata
        values: dict[str, Any] = {
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
        if attempt_seed is not None:
            values["attempt_seed"] = attempt_seed
        if attempt is not None:
            values["attempt"] = attempt
        return cls.model_construct(**values)

    def to_line(self) -> dict[str, Any]:
        """The JSON object of the line: the fields that were set, in field order, then any extra keys."""
        line = {name: getattr(self, name) for name in type(self).model_fields if name in self.model_fields_set}
        return {**line, **(self.model_extra or {})}

    @field_validator("n_steps", "attempt")
    @classmethod
    def _non_negative(cls, v: int) -> int:
        if v < 0:
            raise ValueError("must be >= 0")
        return v

    @field_validator("success", "checker_score")
    @classmethod
    def _unit(cls, v: float | None) -> float | None:
        if v is not None and not 0.0 <= v <= 1.0:
            raise ValueError("must be between 0 and 1")
        return v


@dataclass
class EpisodesRead:
    """Finished episodes by id, and the lines skipped: (1-based line number, why).

    ``episodes`` holds each episode's latest recorded attempt (its only one without judged
    retries); ``attempts`` every recorded attempt of each episode, by attempt index."""

    episodes: dict[str, dict[str, Any]]
    skipped: list[tuple[int, str]] = field(default_factory=list)
    attempts: dict[str, dict[int, dict[str, Any]]] = field(default_factory=dict)


def read_episodes(out_dir: Path) -> EpisodesRead:
    """Validated finished episodes of a run directory (the first line wins if an (id, attempt)
    appears twice; an episode is its highest attempt).

    A line that is not JSON or does not fit :class:`EpisodeRecord` is skipped and listed in
    ``skipped`` (and warned about), never raised: one damaged line must not hide the others.
    """
    out = EpisodesRead(episodes={})
    path = Path(out_dir) / EPISODES_FILE
    if not path.exists():
        return out
    last = 0
    with path.open("r", encoding="utf-8", errors="replace") as fh:
        for i, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            last = i
            try:
                raw = json.loads(line)
            except ValueError:
                out.skipped.append((i, "not JSON"))
                continue
            if not isinstance(raw, dict):
                out.skipped.append((i, "not a JSON object"))
                continue
            try:
                rec = EpisodeRecord.model_validate(raw)
            except ValidationError as e:
                err = e.errors()[0]
                where = ".".join(str(p) for p in err.get("loc", ())) or "record"
                out.skipped.append((i, f"{where}: {err.get('msg')}"))
                continue
            out.attempts.setdefault(rec.episode_id, {}).setdefault(
                rec.attempt, {**raw, **rec.model_dump(exclude_unset=True)})
    out.episodes = {eid: tries[max(tries)] for eid, tries in out.attempts.items()}
    if out.skipped and out.skipped[-1] == (last, "not JSON"):
        out.skipped.pop()  # a last line cut short by a crash: expected, cut before the next append
    if out.skipped:
        detail = "; ".join(f"line {n}: {why}" for n, why in out.skipped[:5])
        more = f" (and {len(out.skipped) - 5} more)" if len(out.skipped) > 5 else ""
        warnings.warn(f"{path}: skipped {len(out.skipped)} damaged line(s): {detail}{more}", stacklevel=2)
    return out


def finished_episodes(out_dir: Path) -> dict[str, dict[str, Any]]:
    """Finished, valid episodes by episode id, each its latest attempt (see :func:`read_episodes`)."""
    return read_episodes(out_dir).episodes


def load_final_phone_states(out_dir: str | Path) -> dict[str, str]:
    """Encoded final phone states (``env.sim.state``) of a simulator run, by attempt id.

    ``run_many`` writes a ``phone`` line per simulator episode; decode one with
    ``droidverify.env.sim.state.decode_phone``. Attempts without one (adb, older runs) are absent.
    """
    out: dict[str, str] = {}
    for rec in read_jsonl(Path(out_dir) / STEPS_FILE).records:
        if rec.get("kind") == "phone" and isinstance(rec.get("state"), str) and rec.get("attempt_id"):
            out[str(rec["attempt_id"])] = rec["state"]
    return out


def load_trajectories(out_dir: str | Path) -> list[Trajectory]:
    """Rebuild the finished episodes of a run directory, each with its steps (stale attempts dropped).

    With judged retries each episode is its latest attempt; ``metadata["attempt"]`` is its index and
    ``metadata["episode_id"]`` the id its judgements are stored under (:func:`attempt_key`)."""
    return trajectories_of(out_dir, list(finished_episodes(Path(out_dir)).values()))


def trajectories_of(out_dir: str | Path, records: list[dict[str, Any]]) -> list[Trajectory]:
    """The trajectories of the given ``episodes.jsonl`` lines (any attempts), with their steps, in
    order."""
    out_dir = Path(out_dir)
    wanted = {rec["attempt_id"]: rec for rec in records}
    steps: dict[str, list[Step]] = {a: [] for a in wanted}
    finals: dict[str, Observation] = {}
    for rec in read_steps(out_dir / STEPS_FILE).records:
        aid = rec.get("attempt_id")
        if aid not in wanted:
            continue
        try:
            if rec.get("kind") == "step":
                steps[aid].append(Step.from_dict(rec["step"]))
            elif rec.get("kind") == "final" and rec.get("observation"):
                finals[aid] = Observation.from_dict(rec["observation"])
        except (KeyError, TypeError, ValueError, AttributeError, DroidVerifyError) as e:
            warnings.warn(f"{out_dir / STEPS_FILE}: skipped a damaged {rec.get('kind')} line of attempt "
                          f"{aid}: {type(e).__name__}: {e}", stacklevel=2)
    out = []
    for aid, ep in wanted.items():
        meta = {k: ep.get(k) for k in (
            "episode_id", "attempt_id", "termination", "checker_score", "checker_error", "agent_error",
            "max_steps", "params", "apps", "complexity", "task_kind", "usage", "time_agent", "time_env",
            "started_at", "finished_at")}
        if attempt_of(ep):  # a retry: judged under its own id, beside the earlier attempts' judgements
            meta["episode_id"] = attempt_key(ep["episode_id"], attempt_of(ep))
            meta["attempt"] = attempt_of(ep)
        out.append(Trajectory(
            task_id=ep["task_id"], goal=ep["goal"], seed=ep.get("seed"), agent=ep.get("agent"),
            steps=sorted(steps[aid], key=lambda s: s.index), final_observation=finals.get(aid),
            answer=ep.get("answer"), declared_done=bool(ep.get("declared_done")),
            success=ep.get("success"), termination=ep.get("termination"),
            checker_score=ep.get("checker_score"), checker_error=ep.get("checker_error"),
            agent_error=ep.get("agent_error"), metadata=meta))
    return out
