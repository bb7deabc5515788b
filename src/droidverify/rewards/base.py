"""The judging contract: a ``Judge`` turns a trajectory into one ``Judgement`` record.

Every judging method (rule checker, passive LLM judge, SmartSnap evidence judge, ProRe, SEE) returns
the same record, so they can be stored side by side in ``judgements.jsonl`` and compared against the
checker. Model output is untrusted: anything that cannot be parsed, and any judge that errors, is
``undecided`` -- never ``success``.
"""

from __future__ import annotations

import time
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from droidverify.env.records import TokenUsage, Trajectory

Outcome = Literal["success", "failure", "undecided"]
OUTCOMES: tuple[str, ...] = ("success", "failure", "undecided")
# How a judge's model output was read: strict grammar, tolerant fallback, not at all, or no model.
ParseStatus = Literal["strict", "tolerant", "failed", "error", "not_applicable"]


class Judgement(BaseModel):
    """One judge's verdict on one episode (the single record every method returns).

    ``reward`` is the method's scalar (SmartSnap: -1/0/+1 minus penalties; passive: 1 success, 0
    otherwise; ProRe: 1 success, 0 failure, -1 undecided, the authors' mapping; rule: the checker
    score); ``components`` names every part it was built from. ``raw_outputs``
    holds every model reply verbatim (bounded), ``parse_status`` the worst parse among them.
    """

    model_config = ConfigDict(extra="forbid")

    episode_id: str
    judge: str
    version: str
    outcome: Outcome
    reward: float
    components: dict[str, Any] = Field(default_factory=dict)
    rationale: str = ""
    raw_outputs: list[str] = Field(default_factory=list)
    parse_status: ParseStatus = "not_applicable"
    tokens_in: int = 0
    tokens_out: int = 0
    latency_s: float = 0.0
    error: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)  # method extras: exhibits, probe trace...
    created_at: float = Field(default_factory=time.time)

    @property
    def key(self) -> str:
        """Resume key in ``judgements.jsonl``: one judgement per (episode, judge, version)."""
        return judgement_key(self.episode_id, self.judge, self.version)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Judgement:
        return cls.model_validate(data)


def judgement_key(episode_id: str, judge: str, version: str) -> str:
    return f"{episode_id}|{judge}|{version}"


def trajectory_id(traj: Trajectory) -> str:
    """The episode id a judgement is keyed by (the runner's ``task_id:seed`` unless metadata names one)."""
    eid = traj.metadata.get("episode_id") if isinstance(traj.metadata, dict) else None
    return str(eid) if eid else f"{traj.task_id}:{traj.seed if traj.seed is not None else 0}"


@runtime_checkable
class Judge(Protocol):
    """Anything that judges a finished episode. ``name``/``version`` identify its prompts and rules."""

    name: str
    version: str

    def judge(self, trajectory: Trajectory) -> Judgement:
        """Judge one episode. Must not raise on bad *model output* (that is ``undecided``)."""


MAX_RAW_CHARS = 20_000  # one stored model reply; a runaway generation must not bloat the store


def clip_raw(text: str | None) -> str:
    text = text or ""
    return text if len(text) <= MAX_RAW_CHARS else text[:MAX_RAW_CHARS] + f"... [{len(text)} chars]"


class Tally:
    """Accumulates tokens, raw outputs and wall time while a judge works."""

    def __init__(self) -> None:
        self.usage = TokenUsage()
        self.raw: list[str] = []
        self.t0 = time.perf_counter()

    def add(self, usage: TokenUsage, raw: str | None = None) -> None:
        self.usage = self.usage + usage
        if raw is not None:
            self.raw.append(clip_raw(raw))

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.t0

    def judgement(self, *, episode_id: str, judge: str, version: str, outcome: Outcome, reward: float,
                  **kw: Any) -> Judgement:
        return Judgement(episode_id=episode_id, judge=judge, version=version, outcome=outcome,
                         reward=reward, raw_outputs=self.raw, tokens_in=self.usage.prompt_tokens,
                         tokens_out=self.usage.completion_tokens, latency_s=self.seconds, **kw)


WORST_PARSE: tuple[str, ...] = ("error", "failed", "tolerant", "strict", "not_applicable")


def worst_parse(statuses: list[str]) -> ParseStatus:
    """The least trustworthy status among several model replies (for the record's ``parse_status``)."""
    for s in WORST_PARSE:
        if s in statuses:
            return s  # type: ignore[return-value]
    return "not_applicable"
