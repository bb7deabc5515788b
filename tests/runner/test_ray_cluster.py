"""``droidverify run --ray ADDRESS`` against a real Ray head (issue 23 item 7).

Each cluster test starts its own head on loopback (``ray start --head --block``, one CPU, no
dashboard, its own HOME, temp dir and ports) and stops it, with every process it spawned, in a
finally. Ray 2.60 turns token authentication on for a head that finds a token, so both modes the
docs describe are run: token on (the client given the token runs; a client without it, or with a
token Ray does not send, gets a clear error at once instead of a 20 s hang), and
``RAY_AUTH_MODE=disabled`` (runs with no token).

The head is never stopped with ``ray stop``: that kills every Ray process of the user on the
machine, other runs' heads included; this test stops only the processes its own head started.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")  # the [ray] extra; scripts/install.sh installs it, so CI runs these
psutil = pytest.importorskip("psutil")  # a dependency of ray

from droidverify.errors import BackendError
from droidverify.runner.backends import RayBackend

BIN = Path(sys.executable).parent
TASK = "settings_wifi_toggle"  # a short oracle episode
HEAD_START_SECONDS = 90
# Ray alone retries a refused token for ~20 s; the CLI (interpreter, imports, probe) answers well within this.
REFUSAL_SECONDS = 12
RAY_ENV = ("RAY_ADDRESS", "RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")


def _free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _clean_env(home: Path, **extra: str) -> dict[str, str]:
    """This process's environment without any Ray address or token, HOME somewhere empty (so
    neither side finds a ~/.ray/auth_token of the user's), plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in RAY_ENV}
    env.update(HOME=str(home), RAY_USAGE_STATS_ENABLED="0", **extra)
    return env


@dataclass
class Head:
    address: str
    token: str | None


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop ``ray start --block`` and every process it spawned, by pid: its descendants, then any
    straggler of its session (it was started in a session of its own)."""
    try:
        family = psutil.Process(proc.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        family = []
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    _, alive = psutil.wait_procs(family, timeout=10)
    for p in alive:
        p.terminate()
    _, alive = psutil.wait_procs(alive, timeout=5)
    for p in alive:
        p.kill()
    stragglers = []
    for p in psutil.process_iter():
        try:
            if p.pid != proc.pid and os.getsid(p.pid) == proc.pid:
                stragglers.append(p)
        except (OSError, psutil.Error):
            continue
    for p in stragglers:
        p.kill()
    psutil.wait_procs(stragglers, timeout=5)


@contextmanager
def ray_head(tmp_path: Path, auth: str) -> Iterator[Head]:
    """A one-CPU Ray head on 127.0.0.1 with ``RAY_AUTH_MODE=auth`` (``token``: a fresh token,
    given to the head by RAY_AUTH_TOKEN), stopped on exit."""
    token = secrets.token_hex(32) if auth == "token" else None
    home = tmp_path / "head-home"
    home.mkdir()
    # Ray's unix sockets live under the temp dir: keep its path short (pytest's tmp_path can be long)
    temp_dir = Path(tempfile.mkdtemp(prefix="dvray-", dir="/tmp"))
    env = _clean_env(home, RAY_AUTH_MODE=auth, **({"RAY_AUTH_TOKEN": token} if token else {}))
    port, node_manager, object_manager, dash, agent_http, agent_grpc, runtime_env, metrics = _free_ports(8)
    log = tmp_path / f"head-{auth}.log"
    # explicit ports: a head on this machine (another test run's) must not collide on Ray's defaults
    # (no Ray Client server: it needs ray[client], which the [ray] extra does not install)
    cmd = [str(BIN / "ray"), "start", "--head", "--block", "--port", str(port),
           "--node-ip-address", "127.0.0.1", "--num-cpus", "1", "--num-gpus", "0",
           "--include-dashboard=false", "--include-log-monitor=false", "--disable-usage-stats",
           "--object-store-memory", str(80 * 1024 * 1024), "--temp-dir", str(temp_dir),
           "--node-manager-port", str(node_manager), "--object-manager-port", str(object_manager),
           "--dashboard-port", str(dash), "--dashboard-agent-listen-port", str(agent_http),
           "--dashboard-agent-grpc-port", str(agent_grpc), "--runtime-env-agent-port", str(runtime_env),
           "--metrics-export-port", str(metrics)]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, env=env, cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        deadline = time.monotonic() + HEAD_START_SECONDS
        while "Ray runtime started" not in log.read_text(errors="replace"):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the Ray head did not start (exit {proc.poll()}):\n{log.read_text()[-4000:]}")
            time.sleep(0.3)
        yield Head(f"127.0.0.1:{port}", token)
    finally:
        _stop(proc)
        shutil.rmtree(temp_dir, ignore_errors=True)


def _run(head: Head, out: Path, home: Path, **env: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """``droidverify run --agent oracle ... --ray ADDRESS`` as a user types it; (result, seconds)."""
    home.mkdir(exist_ok=True)
    script = BIN / "droidverify"
    cli = [str(script)] if script.exists() else [sys.executable, "-c", "from droidverify.cli import main; main()"]
    start = time.monotonic()
    done = subprocess.run([*cli, "run", "--agent", "oracle", "--tasks", TASK, "--seeds", "0",
                           "--ray", head.address, "--out", str(out)],
                          env=_clean_env(home, **env), capture_output=True, text=True, timeout=240, check=False)
    return done, time.monotonic() - start


def _assert_ran_on_the_cluster(done: subprocess.CompletedProcess[str], out: Path, head: Head) -> None:
    assert done.returncode == 0, done.stderr[-4000:]
    # one actor: the head's one CPU (a local instance Ray started instead would have this machine's)
    assert f"running on 1 Ray actor on {head.address}" in done.stderr
    assert "ran 1, skipped 0" in done.stdout
    episodes = [json.loads(ln) for ln in (out / "episodes.jsonl").read_text().splitlines() if ln.strip()]
    assert [(e["task_id"], e["seed"], e["success"]) for e in episodes] == [(TASK, 0, True)]


@pytest.mark.slow
def test_run_on_a_cluster_with_auth_disabled(tmp_path: Path) -> None:
    # first in the file: its head is gone before the token head (module-wide) starts
    with ray_head(tmp_path, "disabled") as head:
        done, _ = _run(head, tmp_path / "run", tmp_path / "home")
        _assert_ran_on_the_cluster(done, tmp_path / "run", head)


@pytest.fixture(scope="module")
def token_head(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Head]:
    with ray_head(tmp_path_factory.mktemp("token-head"), "token") as head:
        yield head


@pytest.mark.slow
@pytest.mark.parametrize("given_by", ["RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"])
def test_run_on_a_token_cluster_with_the_token(token_head: Head, tmp_path: Path, given_by: str) -> None:
    assert token_head.token is not None
    if given_by == "RAY_AUTH_TOKEN":
        env = {"RAY_AUTH_TOKEN": token_head.token}
    else:
        token_file = tmp_path / "cluster.token"
        token_file.write_text(token_head.token)
        env = {"RAY_AUTH_TOKEN_PATH": str(token_file)}
    done, _ = _run(token_head, tmp_path / "run", tmp_path / "home", RAY_AUTH_MODE="token", **env)
    _assert_ran_on_the_cluster(done, tmp_path / "run", token_head)


@pytest.mark.slow
@pytest.mark.parametrize(("client_env", "why"), [
    ({}, "this client sent no token (RAY_AUTH_MODE is not set)"),
    # the trap: Ray sends no token to an explicit address unless RAY_AUTH_MODE=token
    ({"RAY_AUTH_TOKEN": "TOKEN"}, ("a token is given here (RAY_AUTH_TOKEN) but RAY_AUTH_MODE is not set, "
                                   "so Ray does not send it")),
    ({"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "0" * 64},
     "the token this client sent (from RAY_AUTH_TOKEN) is not the cluster's"),
    ({"RAY_AUTH_MODE": "token"}, "RAY_AUTH_MODE=token is set but no token was found"),
], ids=["no-token", "token-without-mode", "wrong-token", "mode-without-token"])
def test_a_token_cluster_refuses_a_client_without_its_token_at_once(
        token_head: Head, tmp_path: Path, client_env: dict[str, str], why: str) -> None:
    assert token_head.token is not None
    env = {k: token_head.token if v == "TOKEN" else v for k, v in client_env.items()}
    done, seconds = _run(token_head, tmp_path / "run", tmp_path / "home", **env)
    assert done.returncode == 1, done.stderr[-4000:]
    err = done.stderr
    assert f"error: BackendError: the Ray cluster at {token_head.address} requires token authentication" in err
    assert why in err
    # how to fix it, named: the variables Ray reads, where to get the token, the alternative
    for needed in ("RAY_AUTH_MODE=token", "RAY_AUTH_TOKEN=<token>", "RAY_AUTH_TOKEN_PATH=", "~/.ray/auth_token",
                   "ray get-auth-token", "RAY_AUTH_MODE=disabled"):
        assert needed in err
    assert "Traceback" not in err
    assert seconds < REFUSAL_SECONDS, f"took {seconds:.1f} s"
    assert not (tmp_path / "run" / "episodes.jsonl").exists()


def test_an_auth_failure_ray_init_reports_late_is_explained(monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: Path) -> None:
    """Addresses the early check cannot probe (``auto``, ``ray://``) fail inside ray.init; its
    ConnectionError is still turned into the token error, not 'cannot reach'."""

    def refused(**_: object) -> None:
        try:
            raise RuntimeError("Failed to connect to GCS. Last connection error: Traceback ...\n"
                               "ray.exceptions.AuthenticationError: RPC error: InvalidAuthToken: "
                               "Authentication token is missing or incorrect\n")
        except RuntimeError as e:
            raise ConnectionError("Failed to connect to Ray cluster at 10.0.0.5:6379") from e

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", refused)
    for var in RAY_ENV:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.ray/auth_token
    with pytest.raises(BackendError) as info:
        RayBackend(address="auto").connect()
    msg = str(info.value)
    assert "the Ray cluster at auto requires token authentication and refused this client: this client " \
           "sent no token (none was found, and RAY_AUTH_MODE is not set)" in msg
    assert "InvalidAuthToken: Authentication token is missing or incorrect" in msg
    assert "RAY_AUTH_MODE=token" in msg and "RAY_AUTH_TOKEN" in msg
