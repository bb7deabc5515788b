"""The verifier agent's own confidence as a judge (``--judge confidence``): a retry gate, not a reward.

The verifier agent records, at every step, its score of every candidate and the one it played
(``Step.agent_info``: ``candidates``, ``chosen``). How sure it was of its own path separates its
successes from its failures better than a judge that reads the final screen: on the shipped
verifier's validation episodes log P(episode) scored ROC AUC 0.784 against the trained compact
judge's 0.689 (docs/rewards.md). :class:`ConfidenceJudge` turns one such signal into a verdict --
success iff the agent declared the task done and the signal is at or above a threshold -- so that
``droidverify run --attempts K --judge confidence`` retries the episodes the agent itself doubts.

The threshold is fitted on the agent's episodes of **train** templates (``droidverify judge
calibrate-confidence``: :func:`fit_calibration`), never on validation or test ones, and stored with
the digest of the verifier it was fitted on (a calibration file, :class:`ConfidenceCalibration`): the
scores of another checkpoint mean something else, so a run with another verifier is refused.

It reads the agent's own scores, so it must never be a training reward: a policy rewarded for being
sure of itself learns to be sure, not to succeed. GRPO refuses it (:data:`NOT_A_REWARD`).
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from droidverify.agents.base import CandidateRecord
from droidverify.env.records import Trajectory
from droidverify.errors import CheckpointError, JudgeInputError
from droidverify.rewards.base import Judgement, Tally, trajectory_id

__all__ = ["CALIBRATION_FILE", "NOT_A_REWARD", "SIGNALS", "ConfidenceCalibration", "ConfidenceJudge",
           "episode_signals", "fit_calibration", "fit_threshold", "load_calibration", "shipped_calibration_path",
           "step_confidence"]

VERSION = "confidence-v1"
FORMAT = "droidverify-confidence-judge"
CALIBRATION_FILE = "confidence.json"
# Signals of an episode, from the softmax of each step's recorded candidate scores (higher: surer).
SIGNALS = ("log_p_episode", "mean_log_p", "mean_p_played", "min_p_played", "certainty")
DEFAULT_SIGNAL = "log_p_episode"
# Judging methods that read the acting agent's own scores: a policy trained on them games them.
NOT_A_REWARD = ("confidence",)
_FLOOR = 1e-12  # P(played) below this counts as this (log 0 would be -inf)


def step_confidence(traj: Trajectory) -> list[tuple[float, float]] | None:
    """(P(the action played), normalised entropy) per step, from the recorded candidate scores;
    None when a step has none or they are malformed (not a verifier agent's episode)."""
    out: list[tuple[float, float]] = []
    for step in traj.steps:
        cands = CandidateRecord.list_from(step.agent_info)  # untrusted: a bad score reads as None
        chosen = step.agent_info.get("chosen") if isinstance(step.agent_info, dict) else None
        scores = [c.score for c in cands if c.score is not None]
        if not cands or len(scores) != len(cands) or isinstance(chosen, bool) or not isinstance(chosen, int) \
                or not 0 <= chosen < len(cands):
            return None
        top = max(scores)
        weights = [math.exp(s - top) for s in scores]
        total = sum(weights)
        probs = [w / total for w in weights]
        entropy = -sum(p * math.log(p) for p in probs if p > 0) / math.log(max(len(probs), 2))
        out.append((probs[chosen], entropy))
    return out or None


def episode_signals(traj: Trajectory) -> dict[str, float] | None:
    """Every signal of :data:`SIGNALS` for one episode (None: no recorded candidate scores)."""
    steps = step_confidence(traj)
    if steps is None:
        return None
    logs = [math.log(max(p, _FLOOR)) for p, _ in steps]
    return {"log_p_episode": sum(logs), "mean_log_p": sum(logs) / len(logs),
            "mean_p_played": sum(p for p, _ in steps) / len(steps), "min_p_played": min(p for p, _ in steps),
            "certainty": 1.0 - sum(e for _, e in steps) / len(steps)}


class ConfidenceCalibration(BaseModel):
    """A fitted confidence judge: which signal, its threshold, the verifier it was fitted on (its
    ``verifier_digest``) and what it was fitted on (train-template episodes only)."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["droidverify-confidence-judge"] = FORMAT
    signal: str
    threshold: float
    rule: str  # "f1" (F1-best) or "false_success<=R" (the lowest threshold accepting at most R of the failures)
    verifier_digest: str | None
    fitted_on: dict[str, Any] = Field(default_factory=dict)

    @field_validator("signal")
    @classmethod
    def _known_signal(cls, v: str) -> str:
        if v not in SIGNALS:
            raise ValueError(f"unknown signal {v!r}; use one of {', '.join(SIGNALS)}")
        return v

    @field_validator("threshold")
    @classmethod
    def _finite(cls, v: float) -> float:
        if not math.isfinite(v):
            raise ValueError(f"threshold must be finite, got {v!r}")
        return v

    @property
    def version(self) -> str:
        """Judgements are keyed by this: another signal, threshold or verifier is another judge."""
        digest = (self.verifier_digest or "any")[:12]
        return f"{VERSION}:{self.signal}@{self.threshold:.6g}:{digest}"

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        if path.is_dir():
            path = path / CALIBRATION_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.model_dump(mode="json"), indent=1) + "\n")
        return path


def shipped_calibration_path() -> Path:
    """The calibration fitted on the shipped compact verifier's train-template episodes."""
    return Path(__file__).resolve().parent / "shipped_confidence" / CALIBRATION_FILE


def load_calibration(path: str | Path | None = None) -> ConfidenceCalibration:
    """A calibration file (or a directory holding ``confidence.json``); None: the shipped one.
    :class:`CheckpointError` names what is missing or malformed."""
    p = Path(path) if path is not None else shipped_calibration_path()
    if p.is_dir():
        p = p / CALIBRATION_FILE
    if not p.is_file():
        raise CheckpointError(f"{p}: no confidence calibration there (fit one with "
                              "`droidverify judge calibrate-confidence`)")
    try:
        data = json.loads(p.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CheckpointError(f"{p}: unreadable confidence calibration: {e}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{p}: not a confidence calibration (format {FORMAT!r} expected)")
    try:
        return ConfidenceCalibration.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(x) for x in err.get("loc", ())) or "file"
        raise CheckpointError(f"{p}: bad confidence calibration ({where}: {err.get('msg')})") from None


def fit_threshold(values: Sequence[float], labels: Sequence[bool],
                  max_false_success: float | None = None, rejected_failures: int = 0) -> dict[str, float]:
    """The threshold on ``values`` (success iff value >= threshold) and its figures on them.

    ``max_false_success`` None: the F1-best threshold (ties: the lowest). Else the lowest threshold
    that accepts at most that share of the failures (a retry gate that rarely lets a failure
    through). ``rejected_failures``: failures rejected whatever the threshold (the judge's other
    rule: not declared done), counted in the false-success rate's denominator. Thresholds sit
    halfway between adjacent distinct values, so each value falls on the same side as at the edges
    of its interval."""
    if len(values) != len(labels):
        raise JudgeInputError(f"{len(values)} values but {len(labels)} labels")
    ys = [bool(y) for y in labels]
    if not any(ys) or all(ys):
        raise JudgeInputError("fitting a threshold needs both successes and failures")
    cap = max_false_success  # a share of the failures, not a success score
    if cap is not None and not 0.0 <= cap <= 1.0:
        raise JudgeInputError(f"max_false_success must be in [0, 1], got {cap!r}")
    distinct = sorted({float(v) for v in values})
    if not all(math.isfinite(v) for v in distinct):
        raise JudgeInputError("confidence values must be finite")
    # candidate thresholds: below every value, between neighbours, above every value
    cands = [distinct[0] - 1.0, *((a + b) / 2 for a, b in itertools.pairwise(distinct)), distinct[-1] + 1.0]
    n_fail = sum(not y for y in ys) + max(int(rejected_failures), 0)
    best: tuple[float, dict[str, float]] | None = None
    for t in cands:
        tp = sum(v >= t and y for v, y in zip(values, ys))
        fp = sum(v >= t and not y for v, y in zip(values, ys))
        fn = sum(v < t and y for v, y in zip(values, ys))
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        row = {"threshold": t, "f1": f1, "precision": precision, "recall": recall,
               "false_success_rate": fp / n_fail}
        if max_false_success is not None:
            if row["false_success_rate"] <= max_false_success:
                return row  # the lowest such threshold: every later one accepts fewer successes
            continue
        if best is None or f1 > best[0]:
            best = (f1, row)
    assert best is not None  # the F1 rule always has a candidate
    return best[1]


def fit_calibration(trajectories: Sequence[Trajectory], *, signal: str = DEFAULT_SIGNAL,
                    max_false_success: float | None = None, verifier_digest: str | None,
                    source: dict[str, Any] | None = None) -> ConfidenceCalibration:
    """Fit the threshold of ``signal`` on checker-labelled verifier episodes (train templates: the
    caller checks the split). An episode without scores or a checker result is left out and counted;
    one the agent did not declare done is a failure whatever its scores, as the judge rules."""
    if signal not in SIGNALS:
        raise JudgeInputError(f"unknown signal {signal!r}; use one of {', '.join(SIGNALS)}")
    from droidverify.env.records import is_success
    from droidverify.rewards.metrics import roc_auc

    values, labels, skipped, undeclared = [], [], 0, 0
    for t in trajectories:
        if t.success is None:
            continue
        sig = episode_signals(t)
        if sig is None:
            skipped += 1
        elif not t.declared_done:
            undeclared += 1
        else:
            values.append(sig[signal])
            labels.append(is_success(t.success))
    if not values:
        raise JudgeInputError("no episode with recorded candidate scores and a checker result: nothing to fit "
                              "(were these verifier-agent runs?)")
    # the rates are over every scored episode: those not declared done are failures the judge rejects
    row = fit_threshold(values, labels, max_false_success, rejected_failures=undeclared)
    fitted = {**(source or {}), "episodes": len(values) + undeclared, "declared_done": len(values),
              "successes": sum(labels), "left_out_unscored": skipped,
              "roc_auc_declared_done": roc_auc(values, labels),
              **{k: round(v, 6) for k, v in row.items() if k != "threshold"}}
    rule = "f1" if max_false_success is None else f"false_success<={max_false_success:g}"
    return ConfidenceCalibration(signal=signal, threshold=row["threshold"], rule=rule,
                                 verifier_digest=verifier_digest, fitted_on=fitted)


class ConfidenceJudge:
    """Success iff the agent declared the task done and its confidence signal reaches the
    calibration's threshold. ``undecided`` (with the reason in ``error``) for an episode without
    recorded candidate scores: another agent's, or a labelled set's."""

    name = "confidence"

    def __init__(self, calibration: ConfidenceCalibration) -> None:
        self.calibration = calibration
        self.version = calibration.version

    @classmethod
    def load(cls, path: str | Path | None = None) -> ConfidenceJudge:
        return cls(load_calibration(path))

    def check_verifier(self, digest: str | None) -> None:
        """:class:`JudgeInputError` unless episodes of the verifier with this digest can be judged."""
        want = self.calibration.verifier_digest
        if want is not None and digest != want:
            raise JudgeInputError(
                f"the confidence judge was fitted on the verifier with digest {want[:12]}..., but these "
                f"episodes are played by {('verifier ' + digest[:12] + '...') if digest else 'no trained verifier'}; "
                "its scores mean something else: fit a calibration on that verifier's train-template runs "
                "with `droidverify judge calibrate-confidence`")

    def judge(self, trajectory: Trajectory) -> Judgement:
        tally = Tally()
        cal = self.calibration
        sig = episode_signals(trajectory)
        if sig is None:
            return tally.judgement(episode_id=trajectory_id(trajectory), judge=self.name, version=self.version,
                                   outcome="undecided", reward=0.0,
                                   error="no recorded candidate scores (not a verifier agent's episode)")
        value = sig[cal.signal]
        done = bool(trajectory.declared_done)
        ok = done and value >= cal.threshold
        why = (f"{cal.signal} {value:.4g} {'>=' if value >= cal.threshold else '<'} threshold {cal.threshold:.4g}"
               + ("" if done else "; the agent did not declare the task done"))
        return tally.judgement(episode_id=trajectory_id(trajectory), judge=self.name, version=self.version,
                               outcome="success" if ok else "failure", reward=1.0 if ok else 0.0,
                               components={"signal": cal.signal, "value": value, "threshold": cal.threshold,
                                           "declared_done": done, "steps": len(trajectory.steps), **sig},
                               rationale=why)
