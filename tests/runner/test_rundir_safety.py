"""Run-directory safety (issue 10, items 1-7): ownership, infrastructure failures, locking,
configuration checks, damaged records, filesystem errors and text that is not valid Unicode."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from fakes import FakeEnv, TapTemplate, pairs
from scripted import ScriptedAgent
from typer.testing import CliRunner

from droidverify.actions.model import Action
from droidverify.actions.parse import parse_action
from droidverify.agents.oracle import OracleAgent
from droidverify.agents.random import NoopAgent
from droidverify.cli import app
from droidverify.errors import (
    InfrastructureError,
    LLMTimeoutError,
    LLMUnavailableError,
    ModelLoadError,
    RunError,
    RunLockedError,
)
from droidverify.runner.run import run_many
from droidverify.runner.store import (
    JsonlWriter,
    RunDirLock,
    load_trajectories,
    read_episodes,
    read_jsonl,
)

HERE = Path(__file__).resolve().parent


def _lines(path: Path) -> list[dict]:
    return [json.loads(ln) for ln in path.read_text().splitlines() if ln.strip()]


# ------------------------------------------------------------------ 1: only our own directory
def test_no_resume_refuses_a_directory_that_is_not_a_run_directory(tmp_path: Path) -> None:
    (tmp_path / "screens").mkdir()
    (tmp_path / "screens" / "holiday.png").write_bytes(b"mine")
    (tmp_path / "report.html").write_text("my report")
    with pytest.raises(RunError, match="not a droidverify run directory"):
        run_many(OracleAgent, pairs(range(1)), tmp_path, env_factory=FakeEnv, progress=False,
                 resume=False)
    assert (tmp_path / "screens" / "holiday.png").read_bytes() == b"mine"
    assert (tmp_path / "report.html").read_text() == "my report"
    with pytest.raises(RunError, match="empty path"):
        run_many(OracleAgent, pairs(range(1)), "", env_factory=FakeEnv, progress=False)
    with pytest.raises(RunError, match="not a directory"):
        run_many(OracleAgent, pairs(range(1)), tmp_path / "report.html", env_factory=FakeEnv,
                 progress=False)


def test_no_resume_deletes_only_what_the_runner_wrote(tmp_path: Path) -> None:
    run_many(OracleAgent, pairs(range(1)), tmp_path, env_factory=lambda t, s: FakeEnv(t, s, screenshot=True),
             progress=False)
    shots = list((tmp_path / "screens").rglob("*.png"))
    assert shots and (tmp_path / "screens" / "rendered").is_dir()
    (tmp_path / "notes.txt").write_text("keep")
    (tmp_path / "screens" / "mine.png").write_bytes(b"keep")
    run_many(OracleAgent, pairs(range(1)), tmp_path, env_factory=FakeEnv, progress=False, resume=False)
    assert (tmp_path / "notes.txt").read_text() == "keep"
    assert (tmp_path / "screens" / "mine.png").read_bytes() == b"keep"
    assert not any(p.exists() for p in shots)  # the old attempts' screenshots are gone


def test_cli_out_defaults_to_a_fresh_directory_and_refuses_empty(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    base = ["run", "--agent", "noop", "--tasks", "settings_wifi_toggle", "--max-steps", "1", "--no-progress"]
    r = CliRunner().invoke(app, [*base, "--out", ""])
    assert r.exit_code == 2 and "--out is empty" in r.output
    assert list(tmp_path.iterdir()) == []
    r = CliRunner().invoke(app, base)
    assert r.exit_code == 0, r.output
    (made,) = (tmp_path / "runs").iterdir()
    assert made.name.startswith("noop-") and (made / "episodes.jsonl").is_file()


# ------------------------------------------------------------------ 2: infrastructure failures
class _ServerDownAfter:
    """Acts like the oracle, but its model server goes away on the given episode."""

    episodes = 0

    def __init__(self, error: Exception, fail_on: int) -> None:
        self.error, self.fail_on = error, fail_on
        self.inner = OracleAgent()
        self.name = self.inner.name

    def bind(self, env, task) -> None:
        self.inner.bind(env, task)

    def reset(self, goal: str) -> None:
        type(self).episodes += 1
        self.inner.reset(goal)

    def act(self, obs, history):
        if type(self).episodes == self.fail_on and history:
            raise self.error
        return self.inner.act(obs, history)


@pytest.mark.parametrize("error", [LLMUnavailableError("could not connect to http://127.0.0.1:9"),
                                   LLMTimeoutError("did not answer within 60s"),
                                   ModelLoadError("weights vanished")])
def test_infrastructure_failure_stops_the_run_and_rerun_retries_it(tmp_path: Path, error: Exception) -> None:
    _ServerDownAfter.episodes = 0
    tasks = pairs(range(2))
    with pytest.raises(InfrastructureError):
        run_many(lambda: _ServerDownAfter(error, fail_on=2), tasks, tmp_path, env_factory=FakeEnv,
                 progress=False)
    eps = _lines(tmp_path / "episodes.jsonl")
    assert len(eps) == 1 and all(e["termination"] != "agent_error" for e in eps)
    s = run_many(OracleAgent, tasks, tmp_path, env_factory=FakeEnv, progress=False)
    assert s.ran == 3 and s.skipped == 1 and s.success_rate == 1.0 and s.agent_errors == 0


def test_cli_exits_nonzero_when_the_llm_server_is_unreachable(tmp_path: Path) -> None:
    out = tmp_path / "run"
    r = CliRunner().invoke(app, ["run", "--agent", "verifier", "--model", "openai:http://127.0.0.1:9/v1",
                                 "--tasks", "settings_wifi_toggle", "--out", str(out), "--no-progress"])
    assert r.exit_code == 1
    assert "LLMUnavailableError" in r.output and "Traceback" not in r.output
    assert not (out / "episodes.jsonl").exists() or _lines(out / "episodes.jsonl") == []


# ------------------------------------------------------------------ 3: one process per directory
def test_lock_refuses_a_second_holder_and_frees_on_release(tmp_path: Path) -> None:
    with RunDirLock(tmp_path) as lock:
        assert lock.held
        with pytest.raises(RunLockedError, match=f"process {os.getpid()}"):
            RunDirLock(tmp_path).acquire()
        with pytest.raises(RunLockedError):
            run_many(OracleAgent, pairs(range(1)), tmp_path, env_factory=FakeEnv, progress=False)
    with RunDirLock(tmp_path):
        pass


_SLOW_CHILD = textwrap.dedent("""
    import sys
    sys.path.insert(0, {here!r})
    from fakes import FakeEnv, pairs
    from droidverify.agents.oracle import OracleAgent
    from droidverify.runner.run import run_many

    run_many(OracleAgent, pairs(range(2)), {out!r}, env_factory=lambda t, s: FakeEnv(t, s, delay=0.2),
             progress=False)
""")


def test_second_process_on_a_running_directory_gets_a_clear_error(tmp_path: Path) -> None:
    out = tmp_path / "run"
    child = subprocess.Popen([sys.executable, "-c", _SLOW_CHILD.format(here=str(HERE), out=str(out))],
                             stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 60
        while not (out / "steps.jsonl").exists() and time.time() < deadline:
            time.sleep(0.05)
        with pytest.raises(RunLockedError, match="in use by process"):
            run_many(OracleAgent, pairs(range(2)), out, env_factory=FakeEnv, progress=False)
        assert child.wait(timeout=120) == 0, child.stderr.read().decode()  # type: ignore[union-attr]
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    ids = [e["episode_id"] for e in _lines(out / "episodes.jsonl")]
    assert len(ids) == len(set(ids)) == 4


# ------------------------------------------------------------------ 4: configuration check
@pytest.mark.parametrize("damage", ["delete", "corrupt"])
def test_missing_or_corrupt_run_json_does_not_let_another_agent_in(tmp_path: Path, damage: str) -> None:
    run_many(OracleAgent, pairs(range(1)), tmp_path, env_factory=FakeEnv, progress=False,
             config={"agent": "oracle"})
    if damage == "delete":
        (tmp_path / "run.json").unlink()
    else:
        (tmp_path / "run.json").write_text("{not json")
    with pytest.raises(RunError, match="run.json is missing or unreadable"):
        run_many(NoopAgent, pairs(range(1)), tmp_path, env_factory=FakeEnv, progress=False)
    assert len(_lines(tmp_path / "episodes.jsonl")) == 2


def test_agent_check_holds_when_no_episode_is_left_to_do(tmp_path: Path) -> None:
    run_many(OracleAgent, pairs(range(1)), tmp_path, env_factory=FakeEnv, progress=False)
    with pytest.raises(RunError, match="holds results of agent"):
        run_many(NoopAgent, pairs(range(1)), tmp_path, env_factory=FakeEnv, progress=False)


# ------------------------------------------------------------------ 5: damaged records
@pytest.mark.parametrize("bad", [
    '{"kind":"episode"}',
    '{"kind":"episode","episode_id":1,"attempt_id":"a","task_id":"t","goal":"g"}',
    ('{"kind":"episode","episode_id":"tap_counter:9","attempt_id":"a","task_id":"tap_counter",'
    '"goal":"g","success":"yes"}'),
    ('{"kind":"episode","episode_id":"tap_counter:9","attempt_id":"a","task_id":"tap_counter",'
    '"goal":"g","success":1e309}'),
    ('{"kind":"episode","episode_id":"tap_counter:9","attempt_id":"a","task_id":"tap_counter",'
    '"goal":"g","n_steps":"3"}'),
    ('{"kind":"episode","episode_id":"tap_counter:9","attempt_id":"a","task_id":"tap_counter",'
    '"goal":"g","apps":"Counter"}'),
])
def test_wrong_content_in_episodes_is_skipped_not_crashed_on(tmp_path: Path, bad: str) -> None:
    run_many(OracleAgent, pairs(range(1)), tmp_path, env_factory=FakeEnv, progress=False)
    with (tmp_path / "episodes.jsonl").open("a") as fh:
        fh.write(bad + "\n")
    with pytest.warns(UserWarning, match="skipped 1 damaged line"):
        read = read_episodes(tmp_path)
    assert len(read.episodes) == 2 and read.skipped[0][0] == 3
    with pytest.warns(UserWarning):
        s = run_many(OracleAgent, pairs(range(1)), tmp_path, env_factory=FakeEnv, progress=False)
    assert s.overall.episodes == 2 and s.success_rate == 1.0
    summary = (tmp_path / "summary.json").read_text()
    assert "Infinity" not in summary and "NaN" not in summary
    r = CliRunner().invoke(app, ["report", str(tmp_path), "--no-screens"])
    assert r.exit_code == 0 and "Traceback" not in r.output


def test_damaged_step_lines_do_not_break_loading(tmp_path: Path) -> None:
    run_many(OracleAgent, pairs(range(1)), tmp_path, env_factory=FakeEnv, progress=False)
    eps = _lines(tmp_path / "episodes.jsonl")
    with (tmp_path / "steps.jsonl").open("a") as fh:
        fh.write(json.dumps({"kind": "step", "attempt_id": eps[0]["attempt_id"], "step": {"index": "x"}}) + "\n")
    with pytest.warns(UserWarning, match="damaged step line"):
        trajs = load_trajectories(tmp_path)
    assert len(trajs) == 2


# ------------------------------------------------------------------ 6: filesystem errors
@pytest.mark.parametrize("case", ["out_is_file", "parent_is_file", "permission_denied"])
def test_cli_filesystem_errors_give_one_error_line(tmp_path: Path, case: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    if case == "out_is_file":
        out = tmp_path / "f"
        out.write_text("x")
    elif case == "parent_is_file":
        (tmp_path / "f").write_text("x")
        out = tmp_path / "f" / "run"
    else:  # chmod does not stop root (tests may run as root): refuse the mkdir itself
        out = tmp_path / "ro" / "run"

        def denied(path, *a, **k):
            raise PermissionError(13, "Permission denied", str(path))

        monkeypatch.setattr(os, "mkdir", denied)
    r = CliRunner().invoke(app, ["run", "--agent", "noop", "--tasks", "settings_wifi_toggle",
                                 "--max-steps", "1", "--out", str(out), "--no-progress"])
    assert r.exit_code != 0 and "Traceback" not in r.output
    assert [ln for ln in r.output.splitlines() if ln.startswith("error:")], r.output


def test_disk_full_mid_run_keeps_finished_episodes_and_resumes(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    tasks = pairs(range(2))
    real = JsonlWriter.write
    n = {"writes": 0}

    def write(self, record):
        n["writes"] += 1
        if n["writes"] == 12:
            raise OSError(28, "No space left on device")
        return real(self, record)

    monkeypatch.setattr(JsonlWriter, "write", write)
    with pytest.raises(OSError):
        run_many(OracleAgent, tasks, tmp_path, env_factory=FakeEnv, progress=False)
    monkeypatch.setattr(JsonlWriter, "write", real)
    kept = len(_lines(tmp_path / "episodes.jsonl"))
    assert kept >= 1
    s = run_many(OracleAgent, tasks, tmp_path, env_factory=FakeEnv, progress=False)
    assert s.skipped == kept and s.overall.episodes == 4 and s.success_rate == 1.0


# ------------------------------------------------------------------ 7: text that is not Unicode
def test_lone_surrogate_is_replaced_at_the_parser() -> None:
    a = parse_action('{"action_type": "answer", "text": "caf\\ud800"}')
    assert a.text == "caf\ufffd"
    assert Action(action_type="input_text", index=0, text="x\udfff").text == "x\ufffd"


def test_writer_cannot_crash_on_text_and_resume_works(tmp_path: Path) -> None:
    w = JsonlWriter(tmp_path / "x.jsonl")
    w.write({"raw": "caf\ud800", "score": float("nan")})
    w.close()
    (rec,) = read_jsonl(tmp_path / "x.jsonl").records
    assert rec == {"raw": "caf\ud800", "score": None}
    task = TapTemplate().instantiate(0)

    class Surrogate(ScriptedAgent):
        def act(self, observation, history):
            out = super().act(observation, history)
            out.raw_output = "caf\ud800"
            out.info["note"] = "\udc80"
            return out

    run_many(lambda: Surrogate([Action(action_type="wait")]), [task], tmp_path / "run", env_factory=FakeEnv,
             progress=False, max_steps=2)
    s = run_many(lambda: Surrogate([Action(action_type="wait")]), [task], tmp_path / "run",
                 env_factory=FakeEnv, progress=False, max_steps=2)
    assert s.skipped == 1
    (traj,) = load_trajectories(tmp_path / "run")
    assert traj.steps[0].raw_output == "caf\ud800"


# ------------------------------------------------------------------ 17: report leaves no .tmp
def test_report_out_failure_leaves_no_tmp(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run_many(OracleAgent, pairs(range(1)), run, env_factory=FakeEnv, progress=False, report=False)
    target = tmp_path / "somedir"
    target.mkdir()
    (target / "x").write_text("x")
    r = CliRunner().invoke(app, ["report", str(run), "--no-screens", "--out", str(target)])
    assert r.exit_code != 0 and r.output.startswith("error:")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run", "somedir"]
