"""The agent contract the runner drives."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from droidverify.actions.model import Action
from droidverify.env.records import Observation, Step, TokenUsage


@dataclass
class AgentOutput:
    """An agent's decision for one step. ``action`` None means nothing usable was produced."""

    action: Action | None
    raw_output: str | None = None
    error: str | None = None
    info: dict[str, Any] = field(default_factory=dict)
    usage: TokenUsage = field(default_factory=TokenUsage)


@runtime_checkable
class Agent(Protocol):
    name: str

    def reset(self, goal: str) -> None:
        """Start a new episode with this goal (clears memory)."""

    def act(self, observation: Observation, history: list[Step]) -> AgentOutput:
        """Choose the next action; ``history`` holds the episode's earlier steps."""
