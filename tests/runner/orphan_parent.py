"""Run as a script by test_parallel: a parent whose LocalBackend worker holds a long item; it prints
the worker's pid and waits to be killed."""

from __future__ import annotations

import sys
import threading
import time

from droidverify.runner.backends import LocalBackend


def setup() -> None:
    return None


def long_item(state: None, item: int) -> int:
    time.sleep(item)
    return item


if __name__ == "__main__":
    backend = LocalBackend(1)
    results = backend.imap_unordered(setup, long_item, [120])
    started = time.monotonic()

    def report() -> None:
        while not backend.worker_pids() and time.monotonic() - started < 60:
            time.sleep(0.05)
        print(backend.worker_pids()[0], flush=True)

    threading.Thread(target=report, daemon=True).start()
    for _ in results:
        pass
    sys.exit(0)
