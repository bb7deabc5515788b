"""The environment contract the simulator and the adb device both implement."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from droidverify.actions.model import Action
from droidverify.env.records import Observation


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
