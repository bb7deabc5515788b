"""One bundled SmolLM2 model per test session, converted into a session-private cache directory.

The first load (GGUF dequantisation + save) is timed so the cache round-trip test can compare it
with a second load that must reuse the converted weights.
"""

from __future__ import annotations

import http.server
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest


@pytest.fixture(scope="session")
def model_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("dv-cache")


@pytest.fixture(scope="session")
def llm_fp32(model_cache_dir: Path) -> Iterator[object]:
    from droidverify.llm.local import LocalLLM

    old = os.environ.get("DROIDVERIFY_CACHE")
    os.environ["DROIDVERIFY_CACHE"] = str(model_cache_dir)
    try:
        t = time.perf_counter()
        llm = LocalLLM(dtype="float32", max_batch=8)
        llm.first_load_seconds = time.perf_counter() - t  # type: ignore[attr-defined]
        yield llm
    finally:
        if old is None:
            os.environ.pop("DROIDVERIFY_CACHE", None)
        else:
            os.environ["DROIDVERIFY_CACHE"] = old


# --------------------------------------------------------------------------- loopback servers


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_llama_server(tmp: Path) -> tuple[subprocess.Popen, str]:
    """Start llama-cpp-python's OpenAI-compatible server on the bundled GGUF; wait until it answers."""
    try:
        import llama_cpp.server  # noqa: F401
    except ImportError as e:
        pytest.fail("the server tests need llama-cpp-python with its server extra: "
                    f"pip install 'llama-cpp-python[server]==0.3.36' ({e})")
    from droidverify.llm.modelcache import bundled_gguf_path

    port = free_port()
    log = open(tmp / f"llama-server-{port}.log", "w")  # noqa: SIM115 - lives as long as the server
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(bundled_gguf_path()),
         "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--n_threads", "2",
         "--verbose", "False"], stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"llama_cpp.server exited with {proc.returncode}; see {log.name}")
        try:
            if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    proc.kill()
    pytest.fail(f"llama_cpp.server did not become ready in 90 s; see {log.name}")


def stop_process(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    proc, url = start_llama_server(tmp_path_factory.mktemp("llama-server"))
    try:
        yield url
    finally:
        stop_process(proc)


class FaultProxy:
    """A loopback HTTP proxy in front of a real server that can misbehave on purpose.

    ``fail_with``: statuses answered (in order) to the first requests before forwarding resumes;
    ``delay``: seconds to sleep before handling each request (a slow server).
    """

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.fail_with: list[int] = []
        self.delay = 0.0
        self.seen = 0
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _handle(self) -> None:
                proxy.seen += 1
                if proxy.delay:
                    time.sleep(proxy.delay)
                if proxy.fail_with:
                    status = proxy.fail_with.pop(0)
                    body = b'{"error": {"message": "injected failure"}}'
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                n = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(n) if n else None
                path = self.path.removeprefix("/v1")
                r = httpx.request(self.command, proxy.upstream + path, content=data, timeout=60,
                                  headers={"Content-Type": self.headers.get("Content-Type", "application/json")})
                self.send_response(r.status_code)
                self.send_header("Content-Type", r.headers.get("content-type", "application/json"))
                self.send_header("Content-Length", str(len(r.content)))
                self.end_headers()
                self.wfile.write(r.content)

            do_GET = do_POST = _handle

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def fault_proxy(llama_server: str) -> Iterator[FaultProxy]:
    proxy = FaultProxy(llama_server)
    try:
        yield proxy
    finally:
        proxy.close()


@pytest.fixture()
def spawn_llama_server(tmp_path: Path) -> Iterator[object]:
    """A factory: start a private llama server (the test may kill it); always stopped afterwards."""
    procs: list[subprocess.Popen] = []

    def spawn() -> tuple[subprocess.Popen, str]:
        proc, url = start_llama_server(tmp_path)
        procs.append(proc)
        return proc, url

    try:
        yield spawn
    finally:
        for p in procs:
            stop_process(p)


@pytest.fixture()
def unused_url() -> str:
    """An OpenAI-style URL on loopback where nothing listens."""
    return f"http://127.0.0.1:{free_port()}/v1"
