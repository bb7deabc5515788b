"""The oracle baseline: asks the task for the correct next action given privileged phone state.

Privileged agents get the environment and task through an optional ``bind(env, task)`` hook that
the runner calls before ``reset(goal)`` (not part of the ``Agent`` protocol; the runner checks
``hasattr(agent, "bind")``). The oracle needs the simulator's ``phone``; it cannot run on adb.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from droidverify.actions.model import Action
from droidverify.agents.base import AgentOutput
from droidverify.env.records import Observation, Step
from droidverify.errors import TaskError
from droidverify.tasks.base import Task


class OracleAgent:
    """Follows ``task.oracle_action(phone, obs)`` each step.

    Give the task and a phone (or ``env_getter`` returning an env with ``.phone``) directly, or let
    the runner supply both via :meth:`bind`. Query tasks: after an ``answer`` the oracle issues
    ``status complete`` (the runner keeps going after ``answer``, AndroidWorld style), so a task
    oracle that keeps returning the answer still ends the episode.
    """

    name = "oracle"

    def __init__(self, task: Task | None = None, *, phone: Any = None,
                 env_getter: Callable[[], Any] | None = None) -> None:
        self._task = task
        self._phone = phone
        self._env_getter = env_getter

    def bind(self, env: Any, task: Task) -> None:
        self._task = task
        self._phone = None
        self._env_getter = lambda: env

    def reset(self, goal: str) -> None:
        if self._task is None:
            raise TaskError("OracleAgent has no task: pass one or let the runner call bind(env, task)")
        if goal != self._task.goal:
            raise TaskError(f"OracleAgent is bound to task {self._task.id!r} (goal {self._task.goal!r}), "
                            f"not to goal {goal!r}")

    def _current_phone(self) -> Any:
        phone = self._phone
        if phone is None and self._env_getter is not None:
            phone = getattr(self._env_getter(), "phone", None)
        if phone is None:
            raise TaskError("OracleAgent needs privileged phone state (the simulator); this environment "
                            "has no .phone (adb devices are not supported)")
        return phone

    def act(self, observation: Observation, history: list[Step]) -> AgentOutput:
        if self._task is None:
            raise TaskError("OracleAgent has no task: pass one or let the runner call bind(env, task)")
        last = history[-1].action if history else None
        if last is not None and last.action_type == "answer" and history[-1].error is None:
            action = self._task.oracle_action(self._current_phone(), observation)
            if action.action_type == "answer":  # already answered: finish, as AndroidWorld expects
                action = Action(action_type="status", goal_status="complete")
        else:
            action = self._task.oracle_action(self._current_phone(), observation)
        if not isinstance(action, Action):
            raise TaskError(f"task {self._task.id!r} oracle returned {type(action).__name__}, not Action")
        return AgentOutput(action=action, raw_output=action.to_json(), info={"oracle": True})
