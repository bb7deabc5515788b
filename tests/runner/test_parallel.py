"""Parallel rollouts (issue 9): worker processes and Ray actors behind run_many, one writer, the same
outcomes in any worker count, and a worker killed mid-episode costing that attempt only."""

from __future__ import annotations

import base64
import functools
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path
from typing import Any

import pytest
from parallel_agents import KillerOracle, ServerDownAgent, SlowOracle
from typer.testing import CliRunner

from droidverify.agents.oracle import OracleAgent
from droidverify.cli import app
from droidverify.cli.run import AgentSpec, EnvSpec, bare_ray_flag, installed_app_names
from droidverify.errors import BackendError, LLMUnavailableError, RunLockedError, WorkerLostError
from droidverify.runner import backends
from droidverify.runner.backends import LocalBackend, RayBackend, make_backend, parse_workers
from droidverify.runner.run import run_many
from droidverify.runner.store import RunDirLock, read_jsonl
from droidverify.tasks import registry

HERE = Path(__file__).resolve().parent
TASKS = ("clock_create_alarm", "contacts_add_contact", "settings_wifi_toggle", "notes_create_note")
# What an episode's outcome is made of; attempt ids and timings legitimately differ between runs.
OUTCOME = ("task_id", "seed", "agent", "goal", "n_steps", "actions", "errors", "answer", "declared_done",
           "success", "checker_score", "checker_error", "agent_error", "termination", "max_steps")


def _pairs(seeds: range = range(2)) -> list[tuple[Any, int]]:
    return [(registry.get_template(t), s) for t in TASKS for s in seeds]


def _episodes(out: Path) -> list[dict[str, Any]]:
    return [r for r in read_jsonl(out / "episodes.jsonl").records if r.get("kind") == "episode"]


def _outcomes(out: Path) -> dict[str, tuple[Any, ...]]:
    eps = _episodes(out)
    ids = [e["episode_id"] for e in eps]
    assert len(ids) == len(set(ids)), f"duplicated episodes: {sorted(ids)}"
    return {e["episode_id"]: tuple(e.get(k) for k in OUTCOME) for e in eps}


def _steps_by_attempt(out: Path) -> dict[str, list[dict[str, Any]]]:
    got: dict[str, list[dict[str, Any]]] = {}
    for r in read_jsonl(out / "steps.jsonl").records:
        got.setdefault(r["attempt_id"], []).append(r)
    return got


def _check_files(out: Path) -> None:
    """Every finished attempt has exactly its steps (0..n-1), one phone, one final line, in file order."""
    by_attempt = _steps_by_attempt(out)
    for e in _episodes(out):
        lines = by_attempt[e["attempt_id"]]
        assert [r["kind"] for r in lines] == ["step"] * e["n_steps"] + ["phone", "final"]
        assert [r["index"] for r in lines[:-2]] == list(range(e["n_steps"]))
    finished = {e["attempt_id"] for e in _episodes(out)}
    assert set(by_attempt) == finished  # worker results arrive whole: no stale attempt lines


def _phone_content(encoded: str) -> dict[str, Any]:
    """A phone state line's content. The embedded SQLite image is compared by its SQL dump: its
    header carries a change counter that depends on what the process did before, not on the phone."""
    state = json.loads(zlib.decompress(base64.b64decode(encoded)))
    if isinstance(state.get("db"), str):
        con = sqlite3.connect(":memory:")
        con.deserialize(base64.b64decode(state["db"]))
        state["db"] = list(con.iterdump())
        con.close()
    return state


def _sim_env(task: Any, seed: int) -> Any:
    return EnvSpec("sim")(task, seed)


@pytest.fixture(scope="module")
def serial_oracle(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Any, ...]]:
    out = tmp_path_factory.mktemp("serial_oracle")
    run_many(OracleAgent, _pairs(), out, env_factory=_sim_env, progress=False, report=False)
    return _outcomes(out)


def test_identical_outcomes_for_1_and_2_workers(tmp_path: Path, serial_oracle: dict) -> None:
    random_spec = AgentSpec("random", seed=3, apps=installed_app_names("sim"))
    runs = {}
    for agent, n in (("oracle", 2), ("random", 1), ("random", 2)):
        out = tmp_path / f"{agent}-{n}"
        factory = OracleAgent if agent == "oracle" else random_spec
        summary = run_many(factory, _pairs(), out, env_factory=EnvSpec("sim"), progress=False,
                           report=False, max_steps=8 if agent == "random" else None,
                           backend=LocalBackend(n) if n > 1 else None)
        assert summary.ran == len(_pairs()) and summary.skipped == 0
        _check_files(out)
        runs[agent, n] = _outcomes(out)
    assert runs["oracle", 2] == serial_oracle
    assert all(v[OUTCOME.index("success")] == 1.0 for v in serial_oracle.values())
    assert runs["random", 2] == runs["random", 1]
    assert len({json.dumps(v[OUTCOME.index("actions")]) for v in runs["random", 1].values()}) > 1  # not trivial
    # final phone states (what ProRe probes later) hold the same content too
    states = {}
    for n in (1, 2):
        recs = read_jsonl(tmp_path / f"random-{n}" / "steps.jsonl").records
        states[n] = {r["episode_id"]: _phone_content(r["state"]) for r in recs if r["kind"] == "phone"}
    assert states[1] == states[2] and len(states[1]) == len(_pairs())


def test_worker_killed_mid_episode_costs_that_attempt_only(tmp_path: Path, serial_oracle: dict) -> None:
    marker = tmp_path / "killed"
    factory = functools.partial(KillerOracle, "contacts_add_contact", 1, str(marker))
    out = tmp_path / "run"
    summary = run_many(factory, _pairs(), out, env_factory=_sim_env, progress=False, report=False,
                       backend=LocalBackend(2))
    assert marker.exists()  # the worker really died (kill -9 of itself, two steps in)
    assert int(marker.read_text()) != os.getpid()
    assert summary.ran == len(_pairs()) and summary.success_rate == 1.0
    assert _outcomes(out) == serial_oracle
    _check_files(out)


def test_a_worker_that_always_dies_stops_the_run_then_resume_finishes(tmp_path: Path,
                                                                      serial_oracle: dict) -> None:
    out = tmp_path / "run"
    always = functools.partial(KillerOracle, "clock_create_alarm", 0, None)
    with pytest.raises(WorkerLostError, match="each of its 2 attempts") as info:
        run_many(always, _pairs(), out, env_factory=_sim_env, progress=False, report=False,
                 backend=LocalBackend(2, max_attempts=2))
    assert info.value.attempts == 2
    assert "clock_create_alarm:0" not in _outcomes(out)
    summary = run_many(OracleAgent, _pairs(), out, env_factory=_sim_env, progress=False, report=False,
                       backend=LocalBackend(2))
    assert summary.ran + summary.skipped == len(_pairs()) and summary.ran >= 1
    assert _outcomes(out) == serial_oracle
    _check_files(out)


def test_external_kill_9_while_running_and_the_lock_holds(tmp_path: Path, serial_oracle: dict) -> None:
    out = tmp_path / "run"
    backend = LocalBackend(2)
    result: dict[str, Any] = {}

    def go() -> None:
        try:
            result["summary"] = run_many(functools.partial(SlowOracle, 0.03), _pairs(), out,
                                         env_factory=_sim_env, progress=False, report=False, backend=backend)
        except BaseException as e:  # noqa: BLE001 -- reported by the assertion below
            result["error"] = e

    t = threading.Thread(target=go)
    t.start()
    deadline = time.monotonic() + 60
    while len(backend.worker_pids()) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # both are inside episodes now (each takes ~0.3 s and more)
    victim = backend.worker_pids()[0]
    with pytest.raises(RunLockedError):  # the parent holds the directory for the whole run
        RunDirLock(out).acquire()
    os.kill(victim, signal.SIGKILL)
    t.join(timeout=120)
    assert not t.is_alive() and "error" not in result, result.get("error")
    assert victim not in backend.worker_pids()
    assert result["summary"].ran == len(_pairs())
    assert _outcomes(out) == serial_oracle
    _check_files(out)


def test_a_worker_error_reaches_the_caller_with_its_type(tmp_path: Path) -> None:
    with pytest.raises(LLMUnavailableError, match="connection refused") as info:
        run_many(ServerDownAgent, _pairs(range(1)), tmp_path, env_factory=_sim_env, progress=False,
                 report=False, backend=LocalBackend(2))
    assert any("rollout worker process" in n for n in getattr(info.value, "__notes__", []))
    assert _episodes(tmp_path) == []  # no episode recorded for a stopped run; a rerun retries


def test_unpicklable_factories_are_refused_clearly(tmp_path: Path) -> None:
    with pytest.raises(BackendError, match="lambdas"):
        run_many(OracleAgent, _pairs(range(1)), tmp_path, env_factory=lambda t, s: _sim_env(t, s),
                 progress=False, report=False, backend=LocalBackend(2))


def test_agent_spec_pickles_without_its_model_and_names_itself() -> None:
    import pickle

    spec = AgentSpec("verifier", model="openai:http://127.0.0.1:9/v1")
    spec._loaded = (object(), None)  # as if loaded in this process
    clone = pickle.loads(pickle.dumps(spec))
    assert clone._loaded is None and clone.agent_name == "verifier" and not clone.loads_local_model
    assert AgentSpec("generator").loads_local_model and not AgentSpec("oracle").loads_local_model


def test_parse_workers_and_make_backend() -> None:
    assert parse_workers("3") == 3 and parse_workers("auto") is None and parse_workers(None) is None
    for bad in ("0", "-1", "x", "1.5", "", "٣", 0, 5000, True):
        with pytest.raises(BackendError):
            parse_workers(bad)  # type: ignore[arg-type]
    assert make_backend(1) is None
    local = make_backend(2)
    assert isinstance(local, LocalBackend) and local.workers == 2 and "2 local worker" in local.label
    assert LocalBackend().workers == backends.default_workers()
    ray_b = make_backend(None, "default")
    assert isinstance(ray_b, RayBackend) and ray_b.address is None
    assert make_backend(4, "10.0.0.1:6379").address == "10.0.0.1:6379"  # type: ignore[union-attr]
    assert bare_ray_flag(["--ray"]) == ["--ray=default"]
    assert bare_ray_flag(["--ray", "--workers", "2"]) == ["--ray=default", "--workers", "2"]
    assert bare_ray_flag(["--ray", "h:6379"]) == ["--ray", "h:6379"]


def test_ray_missing_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if the [ray] extra were not installed
    with pytest.raises(BackendError, match=r"droidverify\[ray\]"):
        RayBackend(2).connect()


def test_cli_workers(tmp_path: Path) -> None:
    runner = CliRunner()
    base = ["run", "--agent", "random", "--tasks", "clock_create_alarm,notes_create_note", "--seeds", "0-1",
            "--max-steps", "6", "--no-progress"]
    for n in ("1", "2"):
        r = runner.invoke(app, [*base, "--out", str(tmp_path / n), "--workers", n])
        assert r.exit_code == 0, r.output
    assert _outcomes(tmp_path / "1") == _outcomes(tmp_path / "2")
    for bad in (["--workers", "0"], ["--workers", "many"], ["--env", "adb", "--workers", "2"]):
        r = runner.invoke(app, [*base, "--out", str(tmp_path / "bad"), *bad])
        assert r.exit_code == 2 and "error:" in r.output, r.output
    assert not (tmp_path / "bad").exists()


def test_ray_is_not_imported_by_the_package_or_help() -> None:
    code = ("import sys\n"
            "import droidverify, droidverify.runner.run, droidverify.runner.backends\n"
            "from droidverify.cli import app\n"
            "from typer.testing import CliRunner\n"
            "assert CliRunner().invoke(app, ['--help']).exit_code == 0\n"
            "assert CliRunner().invoke(app, ['run', '--help']).exit_code == 0\n"
            "print(sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_ray_actor_killed_mid_episode_on_a_local_ray_instance(tmp_path: Path, serial_oracle: dict) -> None:
    import ray  # the [ray] extra: scripts/install.sh installs it, so CI runs this test

    assert not ray.is_initialized()
    # A real local Ray instance on loopback; tests/runner on the actors' path for parallel_agents.
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1",
             object_store_memory=80 * 1024 * 1024,
             runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join([str(HERE), *sys.path])}})
    try:
        marker = tmp_path / "killed"
        factory = functools.partial(KillerOracle, "settings_wifi_toggle", 0, str(marker))
        backend = RayBackend()  # already initialised: uses it, one actor per CPU
        backend.connect()
        assert backend.workers == 2 and "2 Ray actors" in backend.label
        out = tmp_path / "run"
        summary = run_many(factory, _pairs(), out, env_factory=_sim_env, progress=False, report=False,
                           backend=backend)
        assert marker.exists()  # an actor process died by SIGKILL mid-episode
        assert summary.ran == len(_pairs()) and summary.success_rate == 1.0
        assert _outcomes(out) == serial_oracle
        _check_files(out)
        # the same run directory, resumed on Ray: nothing left to run, nothing duplicated
        again = run_many(OracleAgent, _pairs(), out, env_factory=_sim_env, progress=False, report=False,
                         backend=backend)
        assert again.ran == 0 and again.skipped == len(_pairs())
        assert json.loads((out / "summary.json").read_text())["overall"]["episodes"] == len(_pairs())
    finally:
        ray.shutdown()


def test_a_worker_exits_soon_after_its_parent_is_killed() -> None:
    """A parent killed outright cannot tell its workers to stop; they must not run on for minutes."""
    script = Path(__file__).with_name("orphan_parent.py")
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        line = parent.stdout.readline() if parent.stdout else ""
        worker = int(line.strip())
        os.kill(worker, 0)  # alive, holding its 120-second item
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                os.kill(worker, 0)
            except ProcessLookupError:
                break
            # a zombie is reaped by init; /proc says whether it still runs
            state = Path(f"/proc/{worker}/stat")
            if state.exists() and state.read_text().split(") ")[-1].startswith("Z"):
                break
            time.sleep(0.2)
        else:
            os.kill(worker, signal.SIGKILL)
            pytest.fail("the worker outlived its killed parent by 15 s")
    finally:
        if parent.poll() is None:
            parent.kill()
