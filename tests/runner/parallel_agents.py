"""Agents for the parallel-run tests. A module of its own (not the test file) so worker processes and
Ray actors can import it by name: tests/runner is on their sys.path (conftest, runtime_env)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

from droidverify.agents.base import AgentOutput
from droidverify.agents.oracle import OracleAgent
from droidverify.errors import LLMUnavailableError


class KillerOracle(OracleAgent):
    """The oracle, except that on ``victim`` (a goal substring + seed) at step ``at_step`` it kills its own
    process with SIGKILL, as ``kill -9`` would: once per marker file (``marker`` None: every attempt).
    The marker is created just before the kill, so a test can tell the kill happened."""

    def __init__(self, victim_task: str, victim_seed: int, marker: str | None, at_step: int = 2) -> None:
        super().__init__()
        self.victim = (victim_task, victim_seed)
        self.marker = marker
        self.at_step = at_step
        self._mine = False

    def bind(self, env: Any, task: Any) -> None:
        super().bind(env, task)
        self._mine = (task.id, task.seed) == self.victim

    def act(self, observation: Any, history: list[Any]) -> AgentOutput:
        first = self.marker is None or not Path(self.marker).exists()
        if self._mine and len(history) == self.at_step and first:
            if self.marker is not None:
                Path(self.marker).write_text(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGKILL)
        return super().act(observation, history)


class SlowOracle(OracleAgent):
    """The oracle, ``delay`` seconds per step (keeps workers busy while a test kills one)."""

    def __init__(self, delay: float = 0.05) -> None:
        super().__init__()
        self.delay = delay

    def act(self, observation: Any, history: list[Any]) -> AgentOutput:
        time.sleep(self.delay)
        return super().act(observation, history)


class ServerDownAgent(OracleAgent):
    """An LLM agent whose server is down: the run must stop with the typed error, as in-process."""

    def act(self, observation: Any, history: list[Any]) -> AgentOutput:
        raise LLMUnavailableError("connection refused (test)", status=None)
