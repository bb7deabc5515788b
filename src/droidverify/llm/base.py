"""The LLM backend contract: generation, batched P(target) scoring and token counting."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from droidverify.core.records import TokenUsage

Messages = list[dict[str, str]]  # OpenAI-style [{"role": ..., "content": ...}]


@dataclass
class Generation:
    text: str
    usage: TokenUsage = field(default_factory=TokenUsage)
    finish_reason: str | None = None
    seconds: float = 0.0


@dataclass
class ScoreResult:
    """Per continuation: log-probability of each target as the first generated token.

    ``logprobs[i][t]`` is log P(t | prefix + continuations[i]). ``logits`` (local models only) is a
    ``[n_continuations, vocab]`` tensor of the full next-token logits, for a learned scoring head.
    """

    logprobs: list[dict[str, float]]
    usage: TokenUsage = field(default_factory=TokenUsage)
    seconds: float = 0.0
    logits: Any | None = None

    def p(self, target: str = "Yes") -> list[float]:
        import math

        return [math.exp(d[target]) for d in self.logprobs]


@runtime_checkable
class LLM(Protocol):
    """Any model droidverify can drive: a local transformers model or an OpenAI-compatible server.

    ``score`` takes raw text: ``prefix`` is shared by all candidates (and computed once), each
    continuation is appended to it. Use ``render_chat`` to lay a chat out as raw text first.
    """

    name: str

    def generate(self, messages: Messages, *, max_tokens: int = 256, temperature: float = 0.0,
                 stop: list[str] | None = None, seed: int | None = None) -> Generation: ...

    def score(self, prefix: str, continuations: list[str],
              targets: tuple[str, ...] = ("Yes", "No")) -> ScoreResult: ...

    def render_chat(self, messages: Messages, *, add_generation_prompt: bool = True) -> str: ...

    def count_tokens(self, text: str) -> int: ...
