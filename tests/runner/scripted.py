"""An agent that replays a fixed list of actions (or raises), for runner tests."""

from __future__ import annotations

from droidverify.actions.model import Action
from droidverify.agents.base import AgentOutput
from droidverify.env.records import Observation, Step


class ScriptedAgent:
    name = "scripted"

    def __init__(self, script: list[Action | None | Exception]) -> None:
        self.script = script
        self.goals: list[str] = []
        self.seen_history_lengths: list[int] = []

    def reset(self, goal: str) -> None:
        self.goals.append(goal)
        self._i = 0

    def act(self, observation: Observation, history: list[Step]) -> AgentOutput:
        self.seen_history_lengths.append(len(history))
        item = self.script[self._i] if self._i < len(self.script) else Action(action_type="wait")
        self._i += 1
        if isinstance(item, Exception):
            raise item
        if item is None:
            return AgentOutput(action=None, raw_output="garbage {", error="could not parse action")
        return AgentOutput(action=item, raw_output=item.to_json(), info={"i": self._i})
