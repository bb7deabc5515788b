"""Public factories for agents and environments: what ``droidverify run`` builds, for Python callers.

The agent catalogue (``AgentSpec``, ``make_agent``, the agent and memory names) lives in
:mod:`droidverify.agents.registry` and is re-exported here; the environments are this module's.

``make_agent("oracle")`` / ``make_env("sim", task=task, seed=0)`` build one object now;
``AgentSpec`` / ``EnvSpec`` are the same choices as picklable factories for ``run_many`` (worker
processes and Ray actors receive the spec, not a model; see docs/parallel.md)::

    from droidverify.runner import AgentSpec, EnvSpec, run_many
    run_many(AgentSpec("oracle"), pairs, "runs/o", env_factory=EnvSpec("sim"))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from droidverify.agents.registry import (
    ADB_DEFAULT_BACKBONE,
    AGENTS,
    CONTENT_MODES,
    DTYPES,
    ENVS,
    LLM_AGENTS,
    MEMORIES,
    AgentSpec,
    check_choice,
    check_sampling,
    installed_app_names,
    make_agent,
    resolve_verifier,
)
from droidverify.errors import RunError

if TYPE_CHECKING:
    from droidverify.env.interface import Environment
    from droidverify.tasks.base import Task

__all__ = ["ADB_DEFAULT_BACKBONE", "AGENTS", "CONTENT_MODES", "DTYPES", "ENVS", "LLM_AGENTS", "MEMORIES",
           "AgentSpec", "EnvSpec", "check_sampling", "installed_app_names", "make_agent", "make_env",
           "resolve_verifier"]


@dataclass(frozen=True)
class EnvSpec:
    """A picklable environment factory: ``spec(task, seed)`` opens the environment for an episode."""

    env: str = "sim"
    serial: str | None = None
    screenshots: bool = False

    def __call__(self, task: Any, seed: int) -> Any:
        if self.env == "sim":
            from droidverify.env.sim import SimEnv

            return SimEnv(task=task, seed=seed, screenshot=self.screenshots)
        if self.env != "adb":
            raise RunError(f"unknown environment {self.env!r}; use one of {', '.join(ENVS)}")
        from droidverify.env.adb import AdbEnv

        # The device cannot be put into a task's initial state; episodes start from what is on screen.
        return AdbEnv(serial=self.serial, screenshot=self.screenshots)


def make_env(env: str = "sim", *, task: Task | None = None, seed: int = 0, serial: str | None = None,
             screenshots: bool = False) -> Environment:
    """One environment as ``droidverify run --env ENV`` opens it for ``task`` (reset it to start).

    ``sim``: a simulated phone of ``seed`` that ``reset()`` puts in the task's initial state;
    ``adb``: the device ``serial`` (None: the only one attached) as it is.
    """
    check_choice("environment", env, ENVS)
    return EnvSpec(env, serial, screenshots)(task, seed)  # type: ignore[no-any-return]
