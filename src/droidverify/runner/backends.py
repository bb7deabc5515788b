"""Rollout backends: run many items on workers that each hold state built once (docs/parallel.md).

The seam is one call::

    for index, result in backend.imap_unordered(setup, fn, items):
        ...

Every worker calls ``setup()`` once (build an environment factory and an agent, load a model) and then
``fn(state, item)`` for each item it is given; results come back to the caller, in completion order,
so the caller stays the only writer of its files. A worker that dies while holding an item (``kill
-9``, out of memory, a lost Ray actor) costs that item's attempt only: the item is given to a fresh
worker, up to ``max_attempts`` times, then :class:`~droidverify.errors.WorkerLostError`. An exception
raised by ``setup`` or ``fn`` stops the iteration and is re-raised in the caller with its type (the
worker's traceback is attached as a note), exactly as if it had happened in the caller.

Before ``setup``, every worker loads the user tasks modules the caller has loaded
(``tasks.registry.user_task_modules``: ``--tasks-module``, entry points), so a task name the caller
resolves resolves in the worker too (a spawned process or a Ray actor inherits no imports).

Backends:

- :class:`InlineBackend` — this process, one worker (what ``run_many`` does without a backend).
- :class:`LocalBackend` — N worker processes on this machine (default: one per core). ``setup`` and
  ``fn`` must be picklable: module-level functions or classes, or ``functools.partial`` of them.
- :class:`RayBackend` — N Ray actors; ``ray.init()`` starts a local Ray instance unless ``address``
  (or the ``RAY_ADDRESS`` environment variable) names a cluster. Ray is the optional ``[ray]`` extra
  and is imported only when a RayBackend runs.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import re
import signal
import socket
import threading
import time
import traceback
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.connection import wait as mp_wait
from multiprocessing.process import BaseProcess
from typing import Any, Self, TypeVar

from droidverify.core.items import Setup, WorkFn, run_inline
from droidverify.errors import BackendError, RunError, WorkerLostError

T = TypeVar("T")
R = TypeVar("R")

MAX_WORKERS = 1024  # a typo guard for --workers: more processes than this is never what was meant


def default_workers() -> int:
    """One worker per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def parse_workers(text: str | int | None) -> int | None:
    """``--workers``: a positive int, or ``auto`` (``None``: one per core / per cluster CPU)."""
    if text is None:
        return None
    if isinstance(text, str):
        t = text.strip().lower()
        if t == "auto":
            return None
        if not (t.isascii() and t.isdigit()):
            raise BackendError(f"--workers must be a positive whole number or 'auto', got {text!r}")
        text = int(t)
    if isinstance(text, bool) or not isinstance(text, int) or not 1 <= text <= MAX_WORKERS:
        raise BackendError(f"--workers must be between 1 and {MAX_WORKERS} (or 'auto'), got {text!r}")
    return text


def _portable(exc: BaseException) -> BaseException:
    """``exc`` with the worker's traceback as a note, made safe to send back to the caller.

    An exception that does not survive pickling is replaced by a RunError naming its type, so the
    caller always gets an exception and never a pickling error instead.
    """
    tb = "".join(traceback.format_exception(exc))
    try:
        exc.add_note(f"raised in rollout worker process {os.getpid()}:\n{tb}")
        return pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 -- any pickling failure: fall back to a plain, typed error
        return RunError(f"rollout worker raised {type(exc).__name__}: {exc}\n{tb}")


class RolloutBackend(ABC):
    """Where items run. Subclasses implement :meth:`imap_unordered`; see the module docstring."""

    #: how many workers run at once (for the progress line and the benchmark)
    workers: int = 1
    #: attempts per item before a dying worker stops the run with WorkerLostError
    max_attempts: int = 3

    @property
    @abstractmethod
    def label(self) -> str:
        """Where the items run, for a progress line: ``"2 local worker processes"``."""

    @abstractmethod
    def imap_unordered(self, setup: Setup, fn: WorkFn, items: Sequence[Any]) -> Iterator[tuple[int, Any]]:
        """Yield ``(index into items, fn(state, item))`` as items finish, each item exactly once."""

    def close(self) -> None:
        """Release what the backend holds beyond one ``imap_unordered`` (a Ray instance it started)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class InlineBackend(RolloutBackend):
    """In this process, one item after another (no pickling; for callers that take any backend)."""

    workers = 1

    @property
    def label(self) -> str:
        return "in this process"

    def imap_unordered(self, setup: Setup, fn: WorkFn, items: Sequence[Any]) -> Iterator[tuple[int, Any]]:
        return run_inline(setup, fn, items)


def _caller_task_modules() -> tuple[str, ...]:
    """The user tasks modules this process has loaded (none when the registry was never used)."""
    from droidverify.tasks import registry

    return registry.user_task_modules()


# --- local worker processes ---------------------------------------------------------------------------


PARENT_POLL_SECONDS = 0.5


def _exit_with_parent(parent: int) -> None:
    """Daemon thread of a worker: exit as soon as the parent process is gone. A parent killed
    outright (SIGKILL, SIGTERM) never tells its workers to stop, and a worker only reads its pipe
    between items, so it would otherwise finish its episode (minutes of model time) first. Nothing
    recorded is lost: an item's result reaches the caller only when the item finishes, and a
    resumed run reruns the unfinished one."""
    while True:
        time.sleep(PARENT_POLL_SECONDS)
        if os.getppid() != parent:  # re-parented: the parent died
            os._exit(3)


def _load_task_modules(specs: Sequence[str]) -> None:
    """In a worker, before anything resolves a task name: load the caller's user tasks modules."""
    if specs:
        from droidverify.tasks import registry

        registry.load_tasks_modules(specs)


def _local_worker_main(conn: Connection, setup: Setup, fn: WorkFn, threads: int | None = None,
                       task_modules: Sequence[str] = ()) -> None:
    """A worker process: load the caller's tasks modules, build the state once, then run items until
    told to stop (``None``)."""
    # Ctrl-C reaches the whole process group; the parent decides what stops, and stops us.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True,
                     name="droidverify-parent-watch").start()
    if threads is not None and not os.environ.get("OMP_NUM_THREADS"):
        # N workers each running a model with every core's worth of threads oversubscribe the CPU
        # (measured: 2 verifier workers on 2 cores ran at 0.1 of linear); share the cores out.
        # LocalLLM reads this when it loads.
        os.environ["OMP_NUM_THREADS"] = str(threads)
    try:
        _load_task_modules(task_modules)
        state = setup()
    except Exception as e:  # noqa: BLE001 -- sent to the caller, who re-raises it with its type
        conn.send(("error", None, _portable(e)))
        return
    conn.send(("ready", None, os.getpid()))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):  # the parent is gone
            return
        if msg is None:
            return
        index, item = msg
        try:
            result = fn(state, item)
        except Exception as e:  # noqa: BLE001
            conn.send(("error", index, _portable(e)))
            continue
        conn.send(("done", index, result))


@dataclass
class _Worker:
    proc: BaseProcess
    conn: Connection
    ready: bool = False
    pid: int | None = None
    current: int | None = None  # index of the item it holds


class _Attempts:
    """Counts attempts per item and worker deaths that made no progress; raises when over budget."""

    def __init__(self, n_items: int, max_attempts: int, n_workers: int) -> None:
        self.per_item = [0] * n_items
        self.max_attempts = max_attempts
        self.deaths_since_progress = 0
        self.death_budget = max_attempts * max(1, n_workers)

    def progress(self) -> None:
        self.deaths_since_progress = 0

    def lost(self, index: int | None, what: str) -> None:
        """A worker died (holding item ``index`` or none); raise if the run should stop."""
        self.deaths_since_progress += 1
        if index is not None and self.per_item[index] >= self.max_attempts:
            raise WorkerLostError(f"{what} died on item {index} in each of its {self.per_item[index]} "
                                  "attempts; the run stops (rerun to resume)", attempts=self.per_item[index])
        if self.deaths_since_progress > self.death_budget:
            raise WorkerLostError(f"{self.deaths_since_progress} {what} deaths without an item finished; "
                                  "the run stops (rerun to resume)", attempts=self.deaths_since_progress)


class LocalBackend(RolloutBackend):
    """``workers`` processes on this machine (default: one per core), each built once by ``setup``.

    Processes are started with ``spawn`` by default (a fresh interpreter: safe with torch's threads);
    a local model is therefore loaded once per worker.
    """

    def __init__(self, workers: int | None = None, *, start_method: str = "spawn", max_attempts: int = 3,
                 stop_timeout: float = 10.0) -> None:
        self.workers = parse_workers(workers) or default_workers()
        if start_method not in mp.get_all_start_methods():
            raise BackendError(f"unknown start method {start_method!r}; use one of "
                               f"{', '.join(mp.get_all_start_methods())}")
        if max_attempts < 1:
            raise BackendError(f"max_attempts must be >= 1, got {max_attempts}")
        self.start_method = start_method
        self.max_attempts = max_attempts
        self.stop_timeout = stop_timeout
        self._live: list[_Worker] = []
        self._task_modules: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.workers} local worker process{'es' if self.workers != 1 else ''}"

    def worker_pids(self) -> list[int]:
        """Pids of the workers of the iteration under way (for monitoring, and the failure tests)."""
        return [w.pid for w in self._live if w.pid is not None and w.proc.is_alive()]

    def imap_unordered(self, setup: Setup, fn: WorkFn, items: Sequence[Any]) -> Iterator[tuple[int, Any]]:
        if not items:
            return
        try:
            pickle.dumps((setup, fn))
        except Exception as e:  # noqa: BLE001 -- lambdas, closures, open handles...
            raise BackendError(f"the work cannot be sent to worker processes ({type(e).__name__}: {e}); use "
                               "module-level functions or classes, or functools.partial of them, not "
                               "lambdas or closures") from None
        ctx = mp.get_context(self.start_method)
        n = min(self.workers, len(items))
        pending = deque(range(len(items)))
        attempts = _Attempts(len(items), self.max_attempts, n)
        left = len(items)
        self._task_modules = _caller_task_modules()
        self._live = [self._start(ctx, setup, fn) for _ in range(n)]

        def dispatch(w: _Worker) -> None:
            if w.ready and w.current is None and pending:
                w.current = pending.popleft()
                attempts.per_item[w.current] += 1
                try:
                    w.conn.send((w.current, items[w.current]))
                except OSError:  # it just died: its sentinel will say so
                    pass

        try:
            while left:
                for w in self._live:
                    dispatch(w)
                by_handle: dict[Any, _Worker] = {}
                for w in self._live:
                    by_handle[w.conn] = w
                    by_handle[w.proc.sentinel] = w
                touched = {id(by_handle[h]): by_handle[h] for h in mp_wait(list(by_handle))}
                for w in touched.values():
                    dead = False
                    while not dead and w.conn.poll():
                        try:
                            kind, index, payload = w.conn.recv()
                        except (EOFError, OSError, pickle.UnpicklingError):
                            dead = True
                            break
                        if kind == "ready":
                            w.ready, w.pid = True, payload
                        elif kind == "done":
                            w.current = None
                            left -= 1
                            attempts.progress()
                            dispatch(w)  # before the caller spends time on the result: no idle worker
                            yield index, payload
                        else:  # "error": the work itself failed; it is the caller's to handle
                            raise payload
                    if dead or not w.proc.is_alive():
                        self._replace(w, ctx, setup, fn, pending, attempts)
        finally:
            self._stop_all()

    def _start(self, ctx: Any, setup: Setup, fn: WorkFn) -> _Worker:
        parent, child = ctx.Pipe(duplex=True)
        threads = max(1, default_workers() // self.workers)
        proc = ctx.Process(target=_local_worker_main, args=(child, setup, fn, threads, self._task_modules),
                           daemon=True, name="droidverify-rollout")
        proc.start()
        child.close()  # the parent keeps its end only: EOF then means the worker is gone
        return _Worker(proc=proc, conn=parent)

    def _replace(self, w: _Worker, ctx: Any, setup: Setup, fn: WorkFn, pending: deque[int],
                 attempts: _Attempts) -> None:
        """A worker died: its item (if any) goes back to the front of the queue; a fresh worker
        takes its place."""
        w.proc.join(timeout=1.0)
        w.conn.close()
        index = w.current
        attempts.lost(index, "worker process")
        if index is not None:
            pending.appendleft(index)
        self._live[self._live.index(w)] = self._start(ctx, setup, fn)

    def _stop_all(self) -> None:
        for w in self._live:
            try:
                w.conn.send(None)
            except OSError:
                pass
        for w in self._live:
            w.proc.join(timeout=self.stop_timeout if w.current is None else 0.1)
            if w.proc.is_alive():  # busy with an item nobody will read (the caller stopped early)
                w.proc.kill()
                w.proc.join(timeout=5.0)
            w.conn.close()
        self._live = []


# --- Ray --------------------------------------------------------------------------------------------


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise BackendError("the Ray backend needs the ray package: pip install 'droidverify[ray]'") from None
    return ray


# Ray 2.60 clients present a token only with RAY_AUTH_MODE=token; the token itself comes from one of these.
RAY_TOKEN_SOURCES = ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")
RAY_AUTH_PROBE_SECONDS = 3.0  # a head answers a refused token in milliseconds; this bounds a silent one
_AUTH_MARKERS = ("InvalidAuthToken", "AuthenticationError", "Unauthenticated")
_RPC_REFUSAL = re.compile(r"(?:RPC error: )?InvalidAuthToken:[^.\n]*")


def _cluster_hostport(target: str | None) -> tuple[str, int] | None:
    """``(host, port)`` of a cluster address written ``HOST:PORT``; None for anything Ray resolves
    itself (no address: a new local instance; ``auto``/``local``; ``ray://`` client addresses)."""
    if not target or "://" in target:
        return None
    host, sep, port = target.strip().rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not (port.isascii() and port.isdigit()):
        return None
    return host, int(port)


def _ray_token_note(explicit: bool) -> str:
    """What this client presented, for the error. The usual mistake is a token without
    RAY_AUTH_MODE=token: Ray then sends nothing to a cluster named by its address (``explicit``);
    only for ``auto`` / no address does an unset mode turn token mode on when a token is found."""
    mode = os.environ.get("RAY_AUTH_MODE")
    given = [v for v in RAY_TOKEN_SOURCES if os.environ.get(v)]
    default_file = os.path.join(os.path.expanduser("~"), ".ray", "auth_token")
    have = given[0] if given else default_file if os.path.isfile(default_file) else None
    sending = (mode or "").strip().lower() == "token" or (mode is None and not explicit)
    if not sending:
        shown = f"RAY_AUTH_MODE={mode}" if mode else "RAY_AUTH_MODE is not set"
        if have:
            return f"a token is given here ({', '.join(given) or have}) but {shown}, so Ray does not send it"
        return f"this client sent no token ({shown})"
    if have:
        return f"the token this client sent (from {have}) is not the cluster's"
    if mode is None:
        return "this client sent no token (none was found, and RAY_AUTH_MODE is not set)"
    return "RAY_AUTH_MODE=token is set but no token was found"


def _ray_auth_error(where: str, detail: str) -> BackendError:
    explicit = _cluster_hostport(where) is not None
    return BackendError(
        f"the Ray cluster at {where} requires token authentication and refused this client: "
        f"{_ray_token_note(explicit)} ({detail.strip()}). Give the client the cluster's token: set "
        "RAY_AUTH_MODE=token and RAY_AUTH_TOKEN=<token>, or RAY_AUTH_TOKEN_PATH=<file holding it> "
        "(with neither, Ray reads ~/.ray/auth_token); `ray get-auth-token` on the head node prints it. "
        "On a trusted network the cluster can run without tokens instead: start its nodes with "
        "RAY_AUTH_MODE=disabled (docs/parallel.md)")


def _auth_failure_text(exc: BaseException) -> str | None:
    """Ray's words when its failure to connect was the cluster refusing our token, else None. Ray
    wraps that in a ConnectionError whose cause's text holds the GCS client's traceback."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if type(e).__name__ == "AuthenticationError":
            return str(getattr(e, "message", e))  # its str() appends Ray's own page of advice
        text = str(e)
        said = _RPC_REFUSAL.search(text)  # Ray's one-line reason, without the advice appended to it
        if said:
            return said.group(0).strip()
        lines = [ln.strip() for ln in text.splitlines() if any(m in ln for m in _AUTH_MARKERS)]
        if lines:
            return lines[-1][:300]
        e = e.__cause__ or e.__context__
    return None


def _probe_ray_auth(target: str | None, timeout: float = RAY_AUTH_PROBE_SECONDS) -> str | None:
    """Why the cluster at ``target`` refuses this client's token, or None (accepted, not a
    ``HOST:PORT`` address, nothing listening, or no answer in ``timeout``: ``ray.init`` decides).

    Without this, ``ray.init`` retries a refused token for ~20 s and then reports only that it
    could not connect. It asks the head's GCS for its cluster id once, as ``ray.init`` does first.
    Uses Ray internals (the [ray] extra pins the version); missing ones just skip the check.
    """
    hostport = _cluster_hostport(target)
    if hostport is None:
        return None
    try:
        from ray._private.authentication.authentication_token_setup import ensure_token_if_auth_enabled
        from ray._raylet import InnerGcsClient
    except ImportError:
        return None
    try:
        # token mode with no token anywhere: Ray's own check raises; a GCS client would abort the process
        ensure_token_if_auth_enabled(None, create_token_if_missing=False)
    except Exception as e:  # noqa: BLE001 -- only its AuthenticationError is ours to explain
        if type(e).__name__ != "AuthenticationError":
            return None  # ray.init meets it again and reports it
        return _auth_failure_text(e)
    try:  # something must listen there, or the probe would only wait out Ray's own connect timeouts
        with socket.create_connection(hostport, timeout=min(timeout, 2.0)) as sock:
            ip = sock.getpeername()[0]
    except OSError:
        return None
    gcs = f"[{ip}]:{hostport[1]}" if ":" in ip else f"{ip}:{hostport[1]}"
    outcome: list[BaseException | None] = []

    def ask() -> None:
        try:
            InnerGcsClient.standalone(gcs, None, int(timeout * 1000))
            outcome.append(None)
        except BaseException as e:  # noqa: BLE001 -- handed to the caller's thread
            outcome.append(e)

    # a thread: a listener that is not a Ray head can keep the client waiting past timeout_ms
    probe = threading.Thread(target=ask, daemon=True, name="droidverify-ray-auth-probe")
    probe.start()
    probe.join(timeout)
    err = outcome[0] if outcome else None
    # only a refusal counts: any other answer (a timeout, a non-Ray listener) is ray.init's to report
    if err is not None and type(err).__name__ == "AuthenticationError":
        return _auth_failure_text(err)
    return None


class _RayWorker:
    """The body of a Ray actor: holds the state ``setup()`` built (env factory, agent, model)."""

    def __init__(self, setup: Setup, task_modules: Sequence[str] = ()) -> None:
        self._setup: Setup | None = setup
        self._state: Any = None
        self._error: BaseException | None = None
        # here, before any item arrives: an item holding a user template unpickles only once its
        # module is loaded; a failure is kept for the first item (a failed constructor would look
        # like a lost actor and be retried, hiding the reason)
        try:
            _load_task_modules(task_modules)
        except Exception as e:  # noqa: BLE001 -- re-raised in the caller with its own type
            self._error = _portable(e)

    def pid(self) -> int:
        return os.getpid()

    def run(self, fn: WorkFn, item: Any) -> tuple[str, Any]:
        if self._error is not None:
            return "error", self._error
        try:
            if self._setup is not None:
                self._state, self._setup = self._setup(), None
            return "done", fn(self._state, item)
        except Exception as e:  # noqa: BLE001 -- re-raised in the caller with its own type
            return "error", _portable(e)


class RayBackend(RolloutBackend):
    """``workers`` Ray actors (default: one per CPU of the cluster), each holding ``setup()``'s state.

    Connects with ``ray.init(address)`` unless Ray is already initialised in this process; without
    an address Ray uses ``RAY_ADDRESS`` if set, else starts a local instance (stopped again by
    :meth:`close`). Every node of a cluster needs droidverify installed (the same version).

    A cluster with token authentication that refuses this client's token (none sent, or the wrong
    one) fails :meth:`connect` within seconds with a :class:`BackendError` saying which variables
    give Ray the token (``RAY_AUTH_MODE=token`` and ``RAY_AUTH_TOKEN`` / ``RAY_AUTH_TOKEN_PATH``).
    """

    def __init__(self, workers: int | None = None, *, address: str | None = None, num_cpus: float = 1.0,
                 max_attempts: int = 3, init_kwargs: dict[str, Any] | None = None) -> None:
        self._requested = parse_workers(workers)
        self.workers = self._requested or 0  # known once connected (cluster CPUs)
        self.address = address or None
        if num_cpus < 0:
            raise BackendError(f"num_cpus must be >= 0, got {num_cpus}")
        if max_attempts < 1:
            raise BackendError(f"max_attempts must be >= 1, got {max_attempts}")
        self.num_cpus = num_cpus
        self.max_attempts = max_attempts
        self.init_kwargs = dict(init_kwargs or {})
        self._ray: Any = None
        self._started_ray = False
        self._actors: list[Any] = []

    @property
    def label(self) -> str:
        where = self.address or os.environ.get("RAY_ADDRESS") or "a local Ray instance"
        n = self.workers or "?"
        return f"{n} Ray actor{'s' if n != 1 else ''} on {where}"

    def connect(self) -> Any:
        """Import Ray and connect (or start it); returns the ``ray`` module."""
        if self._ray is not None:
            return self._ray
        ray = _import_ray()
        if not ray.is_initialized():
            where = self.address or os.environ.get("RAY_ADDRESS") or "a new local instance"
            # a cluster that refuses our token: say so now, not after ray.init's ~20 s of retries
            refused = _probe_ray_auth(self.address or os.environ.get("RAY_ADDRESS"))
            if refused is not None:
                raise _ray_auth_error(where, refused)
            kwargs = {"include_dashboard": False, "log_to_driver": False, **self.init_kwargs}
            try:
                ray.init(address=self.address, **kwargs)
            except Exception as e:  # noqa: BLE001 -- ConnectionError, RuntimeError, ValueError from ray
                refused = _auth_failure_text(e)  # an address the probe could not check (auto, ray://)
                if refused is not None:
                    raise _ray_auth_error(where, refused) from None
                raise BackendError(f"cannot start or reach Ray at {where}: {type(e).__name__}: {e}") from None
            self._started_ray = True
        self._ray = ray
        if not self._requested:
            cpus = float(ray.cluster_resources().get("CPU", 1))
            self.workers = max(1, int(cpus // self.num_cpus) if self.num_cpus else int(cpus))
        return ray

    def actor_pids(self) -> list[int]:
        """Process ids of the live actors (the failure tests kill one)."""
        ray = self._ray
        return [ray.get(a.pid.remote()) for a in list(self._actors)] if ray else []

    def imap_unordered(self, setup: Setup, fn: WorkFn, items: Sequence[Any]) -> Iterator[tuple[int, Any]]:
        if not items:
            return
        ray = self.connect()
        from ray.exceptions import RayActorError, WorkerCrashedError

        actor_cls = ray.remote(num_cpus=self.num_cpus, max_restarts=0, max_task_retries=0)(_RayWorker)
        n = min(self.workers, len(items))
        setup_ref = ray.put(setup)  # shipped once, not once per actor
        fn_ref = ray.put(fn)
        task_modules = _caller_task_modules()
        pending = deque(range(len(items)))
        attempts = _Attempts(len(items), self.max_attempts, n)
        left = len(items)
        self._actors = [actor_cls.remote(setup_ref, task_modules) for _ in range(n)]
        inflight: dict[Any, tuple[int, int]] = {}  # object ref -> (actor slot, item index)
        busy: set[int] = set()

        def submit(slot: int) -> None:
            if slot not in busy and pending:
                index = pending.popleft()
                attempts.per_item[index] += 1
                inflight[self._actors[slot].run.remote(fn_ref, items[index])] = (slot, index)
                busy.add(slot)
        try:
            while left:
                for slot in range(n):
                    submit(slot)
                ready, _ = ray.wait(list(inflight), num_returns=1)
                for ref in ready:
                    slot, index = inflight.pop(ref)
                    busy.discard(slot)
                    try:
                        kind, payload = ray.get(ref)
                    except (RayActorError, WorkerCrashedError):
                        ray.kill(self._actors[slot], no_restart=True)
                        attempts.lost(index, "Ray actor")
                        pending.appendleft(index)
                        self._actors[slot] = actor_cls.remote(setup_ref, task_modules)
                        continue
                    if kind == "error":
                        raise payload
                    left -= 1
                    attempts.progress()
                    submit(slot)  # before the caller spends time on the result: no idle actor
                    yield index, payload
        finally:
            for a in self._actors:
                ray.kill(a, no_restart=True)
            self._actors = []

    def close(self) -> None:
        if self._started_ray and self._ray is not None:
            self._ray.shutdown()
        self._ray, self._started_ray = None, False


def make_backend(workers: int | str | None = 1, ray: str | bool | None = None) -> RolloutBackend | None:
    """The backend the CLI options ask for: ``None`` (run in this process, as always) for one local
    worker; :class:`LocalBackend` for more; :class:`RayBackend` when ``ray`` is given (``True`` or
    ``"default"``: ``RAY_ADDRESS`` or a local instance; another string: that cluster address)."""
    n = parse_workers(workers)
    if ray is not None and ray is not False:
        # "default" is what a bare --ray passes: RAY_ADDRESS, else a new local instance
        address = ray.strip() if isinstance(ray, str) and ray.strip() not in ("", "default") else None
        return RayBackend(n, address=address)
    if n == 1:
        return None
    return LocalBackend(n)


def run_items(backend: RolloutBackend | None, setup: Setup, fn: WorkFn,
              items: Iterable[Any]) -> Iterator[tuple[int, Any]]:
    """``imap_unordered`` on ``backend``, or in this process when it is ``None``."""
    return (backend or InlineBackend()).imap_unordered(setup, fn, list(items))
