"""The environment contract the simulator and the adb device both implement."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.errors import DroidVerifyError, EnvError

MAX_SEED = 2**32 - 1  # seeds are non-negative and fit 32 bits: one rule for tasks, envs and the CLI


def check_seed(seed: object, *, what: str = "seed",
               error: type[DroidVerifyError] = EnvError) -> int:
    """``seed`` if it is an int in 0..MAX_SEED (not a bool), else ``error`` naming what was wrong."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise error(f"{what} must be an int, got {type(seed).__name__} {seed!r}")
    if not 0 <= seed <= MAX_SEED:
        raise error(f"{what} must be between 0 and {MAX_SEED}, got {seed}")
    return seed


@runtime_checkable
class Environment(Protocol):
    """A phone an agent can look at and act on.

    ``step`` resolves an action's element ``index`` against the elements of the latest observation
    it returned, executes it, waits for the screen to settle and returns the new observation.
    Terminal actions (answer, status, submit) change nothing on screen; the environment records
    the last ``answer`` text in ``last_answer`` for query tasks.
    """

    last_answer: str | None

    def reset(self, *, go_home: bool = True) -> Observation: ...

    def observe(self) -> Observation: ...

    def step(self, action: Action) -> Observation: ...

    def close(self) -> None: ...
