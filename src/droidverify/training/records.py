"""The verifier training record: one labelled step, versioned JSONL, loadable with HF ``datasets``.

A record holds what the agent's prompt is built from (goal, working-memory text, screen text,
candidate descriptions), never the rendered prompt: the trainer renders it with the agent's own
``build_verification_prompt``, so training and inference see identical tokens for any tokenizer.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from droidverify.actions.model import Action
from droidverify.errors import TrainingDataError

T = TypeVar("T")

SCHEMA_VERSION = 3  # 2 added ``equivalent``, 3 the screen's ``xml``; older files still load
# "annotated": a policy step the annotator corrected (V-Droid's loop: high entropy); "self_label": a
# policy step it accepted, labelled with the policy's own choice (low entropy).
Source = Literal["oracle", "policy", "self_correction", "annotated", "self_label"]


class CompletionLabel(BaseModel):
    """The content a placeholder positive needs (app name, text to type, answer)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["open_app", "input_text", "answer"]
    question: str
    target: str = Field(min_length=1)


class VerifierStepRecord(BaseModel):
    """One step: every candidate, which one is correct, and where the label came from."""

    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1, 2, 3] = SCHEMA_VERSION
    record_id: str
    goal: str
    memory: str
    ui: str
    candidates: list[str] = Field(min_length=2)  # canonical action JSON, placeholders included
    descriptions: list[str]
    positive: int = Field(ge=0)
    # Other candidates that lead to the same phone state as the positive (a launcher icon and
    # open_app, the on-screen Back button and navigate_back): correct too, so never negatives.
    equivalent: list[int] = Field(default_factory=list)
    completion: CompletionLabel | None = None
    source: Source
    task_id: str
    seed: int
    step: int = Field(ge=0)
    split: str
    policy: str  # the agent whose actions led to this state
    round: int = Field(default=0, ge=0)
    oracle_action: str  # canonical JSON of what the annotator said
    entropy: float | None = None  # of the policy's softmax over candidate scores, when it scored
    policy_choice: int | None = None  # the policy's argmax, when it scored
    # The uiautomator dump the step was taken on (what a real device shows): the compact verifier
    # reads elements from it. Absent in files written before schema 3.
    xml: str | None = None
    # How the episode looked and was worded: the simulator skin (0 = its own look) and the goal's
    # phrasing (0 = the template's canonical sentence). Diversity, recorded so results can be split by it.
    skin: int = Field(default=0, ge=0)
    phrasing: int = Field(default=0, ge=0)

    @model_validator(mode="after")
    def _check(self) -> VerifierStepRecord:
        if len(self.descriptions) != len(self.candidates):
            raise ValueError(f"{len(self.candidates)} candidates but {len(self.descriptions)} descriptions")
        if self.positive >= len(self.candidates):
            raise ValueError(f"positive {self.positive} is out of range for {len(self.candidates)} candidates")
        bad = [i for i in self.equivalent if not 0 <= i < len(self.candidates) or i == self.positive]
        if bad or len(set(self.equivalent)) != len(self.equivalent):
            raise ValueError(f"equivalent {self.equivalent} must be distinct candidate indices other than "
                             f"the positive {self.positive}")
        if self.policy_choice is not None and not 0 <= self.policy_choice < len(self.candidates):
            raise ValueError(f"policy_choice {self.policy_choice} is out of range")
        for i, c in enumerate(self.candidates):
            try:
                Action.model_validate_json(c)
            except ValidationError as exc:
                raise ValueError(f"candidate {i} is not a valid action: {c!r}") from exc
        return self

    @property
    def positive_action(self) -> Action:
        return Action.model_validate_json(self.candidates[self.positive])

    @property
    def correct(self) -> set[int]:
        """Every candidate index that is a right answer: the positive and its equivalents."""
        return {self.positive, *self.equivalent}

    def negatives(self) -> list[int]:
        return [i for i in range(len(self.candidates)) if i not in self.correct]

    def ranking(self, scores: Sequence[float]) -> tuple[int, int, bool]:
        """How ``scores`` (one per candidate) rank this step: (negatives the positive outscores,
        negatives, whether a correct candidate, equivalents included, outscores every negative)."""
        others = [scores[i] for i in self.negatives()]
        won = sum(scores[self.positive] > x for x in others)
        top = max(scores[i] for i in self.correct) > max(others, default=float("-inf"))
        return won, len(others), top


def write_records(path: str | Path, records: Iterable[VerifierStepRecord], *, append: bool = False) -> int:
    """Write records as JSONL (one per line, flushed and fsynced at the end); returns the count."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with open(path, "a" if append else "w", encoding="utf-8") as f:
        for r in records:
            f.write(r.model_dump_json() + "\n")
            n += 1
        f.flush()
        os.fsync(f.fileno())
    return n


def iter_jsonl(path: str | Path, what: str, parse: Callable[[Any], T]) -> Iterator[T]:
    """``parse`` of each non-blank line of a JSONL file; an unreadable file or a bad line raises
    :class:`TrainingDataError` naming the file (and line) and ``what`` it should hold."""
    path = Path(path)
    try:
        f = open(path, encoding="utf-8")  # noqa: SIM115 -- closed by the `with f:` below
    except OSError as exc:
        raise TrainingDataError(f"cannot read {what} {path}: {exc}") from exc
    with f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield parse(json.loads(line))
            except TrainingDataError as exc:
                raise TrainingDataError(f"{path}:{lineno}: {exc}") from exc
            except (ValueError, KeyError, TypeError, ValidationError) as exc:
                raise TrainingDataError(f"{path}:{lineno}: not a valid {what}: {exc}") from exc


def iter_records(path: str | Path) -> Iterator[VerifierStepRecord]:
    """Validated records of a JSONL file; a bad line raises :class:`TrainingDataError` naming it."""
    return iter_jsonl(path, "verifier step record", VerifierStepRecord.model_validate)


def read_records(path: str | Path) -> list[VerifierStepRecord]:
    return list(iter_records(path))


def load_hf_dataset(path: str | Path):  # -> datasets.Dataset
    """The records as a Hugging Face ``datasets.Dataset`` (validated first)."""
    try:
        import datasets
    except ImportError as exc:  # optional: the trainer does not need it
        raise TrainingDataError("loading as a datasets.Dataset needs `pip install datasets`") from exc
    rows = [r.model_dump(mode="json") for r in iter_records(path)]
    for r in rows:  # a nested optional struct is stored as JSON text so every row has one schema
        r["completion"] = json.dumps(r["completion"]) if r["completion"] is not None else ""
    return datasets.Dataset.from_list(rows)
