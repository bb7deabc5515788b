"""What the verifier agent records of a step: :class:`VerifierStepInfo`, the one definition of the
verifier keys of ``Step.agent_info``.

The agent builds one per step and stores ``to_dict()`` as the step's ``agent_info`` (the JSON shape
run files have always had); the report, data collection, GRPO and ``droidverify triage`` read it
back with :meth:`VerifierStepInfo.from_info`, which never raises on what a run file holds: a key
that is missing or of the wrong type reads as None (old and damaged lines stay readable).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from droidverify.agents.base import CandidateRecord

PARADIGM = "verifier"  # ``agent_info["paradigm"]`` of a verifier step


def _int(x: Any) -> int | None:
    return x if isinstance(x, int) and not isinstance(x, bool) else None


def _num(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        return None
    return float(x)


def _str(x: Any) -> str | None:
    return x if isinstance(x, str) else None


_INT_KEYS = ("n_candidates", "argmax", "chosen", "prefix_tokens", "top_k", "sampled_rank")
_NUM_KEYS = ("entropy", "entropy_normalized", "seconds_memory", "seconds_scoring", "seconds_completion",
             "temperature")
_STR_KEYS = ("score_kind", "content", "memory_name", "memory", "finish")


@dataclass(frozen=True)
class VerifierStepInfo:
    """One verifier step: its scored candidates, what was chosen, how uncertain the choice was,
    where the time went and how content was completed.

    ``candidates``: one :class:`CandidateRecord` per candidate, in the order they were scored;
    ``argmax`` the index of the best score, ``chosen`` the executed one (they differ after a
    completion failure, a skipped repeat or a draw). ``entropy`` (nats) of softmax(scores) and
    ``entropy_normalized`` (by log n). ``completion``: the record of the executed candidate's
    generated content (``kind``, ``raw``, ``cleaned``, ``value``, ``match``, ``fallback``,
    ``error``, ``candidate``: what :meth:`VerifierAgent.complete` returns), None when it needed
    none; ``completion_failures`` the records of candidates whose content was unusable.

    Optional parts, written only when they apply (so a step without them keeps today's keys):
    ``finish`` (not ``"status"``), ``temperature`` / ``top_k`` / ``sampled_rank`` (a sampling
    agent), ``skipped_repeats`` / ``all_repeats`` (``avoid_repeats``), ``finish_checks`` (a
    ``status complete`` put to the agent's finish check: candidate, accepted, the check's detail).

    Read back from a run file every field may be None (an older or damaged line).
    """

    candidates: list[CandidateRecord] = field(default_factory=list)
    score_kind: str | None = None  # p_yes_normalized | head | compact
    content: str | None = None  # llm | select
    n_candidates: int | None = None
    argmax: int | None = None
    chosen: int | None = None
    entropy: float | None = None
    entropy_normalized: float | None = None
    prefix_tokens: int | None = None
    seconds_memory: float | None = None
    seconds_scoring: float | None = None
    seconds_completion: float | None = None
    memory_name: str | None = None
    memory: str | None = None
    completion: dict[str, Any] | None = None
    completion_failures: list[dict[str, Any]] = field(default_factory=list)
    finish: str | None = None  # None: "status"
    temperature: float | None = None  # None: argmax (no draw)
    top_k: int | None = None
    sampled_rank: int | None = None
    skipped_repeats: list[int] | None = None  # None: avoid_repeats off
    all_repeats: bool | None = None
    finish_checks: list[dict[str, Any]] | None = None  # None: no finish check asked on this step
    paradigm: str = PARADIGM

    def to_dict(self) -> dict[str, Any]:
        """The step's ``agent_info``: the keys and order the verifier has always written."""
        info: dict[str, Any] = {
            "paradigm": self.paradigm,
            "score_kind": self.score_kind,
            "content": self.content,
            "candidates": [c.to_dict() for c in self.candidates],
            "n_candidates": self.n_candidates,
            "argmax": self.argmax,
            "chosen": self.chosen,
            "entropy": self.entropy,
            "entropy_normalized": self.entropy_normalized,
            "prefix_tokens": self.prefix_tokens,
            "seconds_memory": self.seconds_memory,
            "seconds_scoring": self.seconds_scoring,
            "seconds_completion": self.seconds_completion,
            "memory_name": self.memory_name,
            "memory": self.memory,
            "completion": self.completion,
            "completion_failures": self.completion_failures,
        }
        if self.finish is not None and self.finish != "status":
            info["finish"] = self.finish
        if self.temperature is not None:
            info["temperature"] = self.temperature
            info["top_k"] = self.top_k
            info["sampled_rank"] = self.sampled_rank
        if self.skipped_repeats is not None:
            info["skipped_repeats"] = self.skipped_repeats
            info["all_repeats"] = self.all_repeats
        if self.finish_checks is not None:
            info["finish_checks"] = self.finish_checks
        return info

    @classmethod
    def from_info(cls, info: Any) -> VerifierStepInfo:
        """Read a step's ``agent_info`` (untrusted: a run file, any agent's). Never raises; a key
        missing or of the wrong type is None (a list, empty). Whether it was a verifier step at all
        is :attr:`is_verifier`; ``candidates`` are read whatever the paradigm."""
        d = info if isinstance(info, dict) else {}
        # each scalar field is read by the type it holds
        read = {**{k: _int for k in _INT_KEYS}, **{k: _num for k in _NUM_KEYS}, **{k: _str for k in _STR_KEYS}}
        values: dict[str, Any] = {k: parse(d.get(k)) for k, parse in read.items()}
        completion, failures, skipped = d.get("completion"), d.get("completion_failures"), d.get("skipped_repeats")
        all_repeats, checks = d.get("all_repeats"), d.get("finish_checks")
        return cls(
            **values, paradigm=_str(d.get("paradigm")) or "", candidates=CandidateRecord.list_from(d),
            completion=completion if isinstance(completion, dict) else None,
            completion_failures=[f for f in failures if isinstance(f, dict)] if isinstance(failures, list) else [],
            skipped_repeats=[i for i in skipped if _int(i) is not None] if isinstance(skipped, list) else None,
            all_repeats=all_repeats if isinstance(all_repeats, bool) else None,
            finish_checks=[c for c in checks if isinstance(c, dict)] if isinstance(checks, list) else None,
        )

    @property
    def is_verifier(self) -> bool:
        """Written by the verifier agent (``paradigm == "verifier"``)."""
        return self.paradigm == PARADIGM

    def candidate(self, index: int | None) -> CandidateRecord | None:
        """The candidate at ``index`` (``argmax``, ``chosen``), None when out of range or None."""
        return self.candidates[index] if index is not None and 0 <= index < len(self.candidates) else None

