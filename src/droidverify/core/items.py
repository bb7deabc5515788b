"""What every caller of a rollout backend needs of it, and the in-process way to run the same items.

A rollout backend (``runner.backends``: ``LocalBackend``, ``RayBackend``, ``InlineBackend``) runs
``fn(state, item)`` for each item on workers that each built ``state = setup()`` once. Judges,
trainers and data collection take any object with that one method (:class:`ItemBackend`); they sit
below the runner, so they never import it. Without a backend they run the items here, in this process
(:func:`run_inline`, which ``InlineBackend`` is too).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

Setup = Callable[[], Any]
WorkFn = Callable[[Any, Any], Any]

__all__ = ["ItemBackend", "Setup", "WorkFn", "run_inline"]


class ItemBackend(Protocol):
    """What judging, data collection and GRPO need of a rollout backend."""

    def imap_unordered(self, setup: Setup, fn: WorkFn, items: Sequence[Any]) -> Iterator[tuple[int, Any]]: ...


def run_inline(setup: Setup, fn: WorkFn, items: Sequence[Any]) -> Iterator[tuple[int, Any]]:
    """``(index, fn(state, item))`` for each item in order, in this process; ``setup()`` is called
    once, and not at all when there are no items."""
    if not items:
        return
    state = setup()
    for i, item in enumerate(items):
        yield i, fn(state, item)
