"""The agent contract the runner drives."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
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


def _num(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        return None
    return float(x)


@dataclass(frozen=True)
class CandidateRecord:
    """One scored candidate of a step: the element of ``Step.agent_info["candidates"]`` (a list of
    ``CandidateRecord.to_dict()``) that an agent writes and the report reads back.

    ``action`` is the canonical JSON (``Action.to_json()``), ``score`` what the agent ranked by
    (P(Yes) normalised, or a learned head's logit), ``logprob_yes``/``logprob_no`` the raw target
    log-probabilities when the score came from them.
    """

    action: str
    description: str
    score: float | None
    logprob_yes: float | None = None
    logprob_no: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None or k == "score"}

    @classmethod
    def from_dict(cls, d: Any) -> CandidateRecord:
        """Read one back from run files (untrusted): a wrong type becomes empty, never an error."""
        d = d if isinstance(d, dict) else {}
        return cls(action=str(d.get("action") or ""), description=str(d.get("description") or ""),
                   score=_num(d.get("score")), logprob_yes=_num(d.get("logprob_yes")),
                   logprob_no=_num(d.get("logprob_no")))

    @classmethod
    def list_from(cls, info: Any) -> list[CandidateRecord]:
        """The candidate records of a step's ``agent_info`` ([] when it has none)."""
        cands = info.get("candidates") if isinstance(info, dict) else None
        return [cls.from_dict(c) for c in cands] if isinstance(cands, list) else []


@runtime_checkable
class Agent(Protocol):
    name: str

    def reset(self, goal: str) -> None:
        """Start a new episode with this goal (clears memory)."""

    def act(self, observation: Observation, history: list[Step]) -> AgentOutput:
        """Choose the next action; ``history`` holds the episode's earlier steps."""
