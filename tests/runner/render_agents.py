"""An agent for the report-rendering tests, in a module of its own so worker processes can import it
by name (tests/runner is on their sys.path, see conftest)."""

from __future__ import annotations

from typing import Any

from droidverify.actions.model import Action
from droidverify.agents.base import AgentOutput
from droidverify.agents.oracle import OracleAgent


class MissFirstOracle(OracleAgent):
    """The oracle after one click on an element index no screen has: the report shows that first
    step's screen with a note ("index 999 is out of range ...: nothing outlined")."""

    def act(self, observation: Any, history: list[Any]) -> AgentOutput:
        if not history:
            action = Action(action_type="click", index=999)
            return AgentOutput(action=action, raw_output=action.to_json())
        return super().act(observation, history)
