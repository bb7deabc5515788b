"""Verdicts by scoring, their calibrated threshold, and the judge file that stores it.

A judge in ``verdict="score"`` mode writes nothing. Its prompt ends with one fixed question whose
answer is a single token ("... Answer Yes or No."), laid out by the model's chat template with the
assistant turn opened, and ``llm.score`` reads log P("Yes") and log P("No") for the *first token of
the judge's own reply* -- the position right after that question, which no screen text or agent
message can move (the data sits in earlier turns, quoted by ``prompts.common``). As V-Droid's
verifier does, the verdict is a probability, not parsed text:

    p_yes = P(Yes) / (P(Yes) + P(No));   success  iff  p_yes >= threshold

so a small model that would ramble instead of writing answer tags still decides, and ``undecided``
means only that the scoring call failed. The threshold compensates a model's bias towards one word;
it is chosen on *train-template* labels (:func:`best_threshold`, ``droidverify judge calibrate``)
and stored in a judge file (:class:`JudgeFile`), never tuned on validation or test data.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from droidverify.env.records import Trajectory
from droidverify.errors import JudgeInputError
from droidverify.llm.base import LLM, Messages
from droidverify.rewards.base import Judgement, Tally
from droidverify.rewards.llmcall import INFRASTRUCTURE_ERRORS
from droidverify.rewards.registry import SCORE_PROMPTS

VERDICT_MODES: tuple[str, ...] = ("text", "score")
TARGETS: tuple[str, str] = ("Yes", "No")
# The uncalibrated threshold: P(Yes) >= P(No). Used only where no judge file gives one.
DEFAULT_THRESHOLD = 0.5
# Methods whose verdict can be scored (rule has no model; SEE's reward is a similarity).
SCORED_METHODS: tuple[str, ...] = tuple(SCORE_PROMPTS)  # the registry's one list
JUDGE_FILE_KIND = "droidverify-judge"
JUDGE_FILE_FORMAT = 1


def check_verdict_mode(verdict: object) -> str:
    """``"text"`` or ``"score"``, else :class:`JudgeInputError`."""
    if not isinstance(verdict, str) or verdict not in VERDICT_MODES:
        raise JudgeInputError(f"verdict must be one of {', '.join(VERDICT_MODES)}, got {verdict!r}")
    return verdict


def check_threshold(threshold: object) -> float:
    """A finite number in [0, 1], else :class:`JudgeInputError`."""
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) \
            or not math.isfinite(threshold) or not 0.0 <= threshold <= 1.0:
        raise JudgeInputError(f"threshold must be a number in [0, 1], got {threshold!r}")
    return float(threshold)


def scored_version(prompt_version: str, threshold: float) -> str:
    """A scored judge's version: its prompt version and its threshold. Judgements are keyed by
    version, so outcomes decided under another threshold are never mistaken for these on resume."""
    return f"{prompt_version}@t={threshold:.6g}"


# --------------------------------------------------------------------------- one scored question


@dataclass
class Scored:
    """One question's reading: ``p_yes`` normalised over the two targets (None: the call failed)."""

    p_yes: float | None
    logprob_yes: float | None = None
    logprob_no: float | None = None
    error: str | None = None
    score: float | None = None  # a learned head's score (then ``p_yes`` is its sigmoid)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def p_yes_normalised(logprob_yes: float, logprob_no: float) -> float:
    """P(Yes) / (P(Yes) + P(No)) from two log-probabilities, without overflow."""
    d = logprob_no - logprob_yes
    if d > 700:  # exp would overflow; the ratio is 0 to double precision
        return 0.0
    return 1.0 / (1.0 + math.exp(d))


def decide(p_yes: float, threshold: float) -> bool:
    """The scored verdict: success iff ``p_yes >= threshold``."""
    return p_yes >= threshold


def _read(row: Any) -> Scored:
    """One row of ``ScoreResult.logprobs``; anything unusable is an error, never a verdict."""
    try:
        ly, ln = float(row[TARGETS[0]]), float(row[TARGETS[1]])
    except (KeyError, TypeError, ValueError) as exc:
        return Scored(None, error=f"unusable log-probabilities {row!r}: {type(exc).__name__}: {exc}")
    if math.isnan(ly) or math.isnan(ln) or ly > 1e-6 or ln > 1e-6 or (ly == -math.inf and ln == -math.inf):
        return Scored(None, ly, ln, error=f"unusable log-probabilities Yes={ly} No={ln}")
    return Scored(p_yes_normalised(ly, ln), ly, ln)


def _with_head(reading: Scored, score: float) -> Scored:
    """A reading decided by a head score: P = sigmoid(score); a non-finite score is an error."""
    if reading.p_yes is None:
        return reading
    if not math.isfinite(score):
        return Scored(None, reading.logprob_yes, reading.logprob_no, error=f"non-finite head score {score}")
    p = 1.0 / (1.0 + math.exp(-score)) if score >= -700 else 0.0
    return Scored(p, reading.logprob_yes, reading.logprob_no, score=score)


def score_chats(llm: LLM, chats: Sequence[Messages], tally: Tally, *, head: Any = None) -> list[Scored]:
    """Read P(Yes)/P(No) after each chat's last turn (the fixed question), in one ``score`` call.

    ``head``: a trained score head (``agents.verifier.head``, as the LLM verifier's) over the
    next-token logits at that position; ``p_yes`` is then sigmoid(head score), the trained judge's
    P(success), and the Yes/No log-probabilities are recorded beside it.

    Each chat is rendered with the assistant turn opened; the text all renders share is passed as
    the prefix (computed once: the system prompt and the episode) and each remainder as a
    continuation, so ``prefix + continuation`` is exactly the rendered chat and the scored position
    is its end. A failing call (bad request, a prompt too long, unusable log-probabilities) comes back
    as errored readings -- the caller's ``undecided`` -- while infrastructure errors propagate.
    """
    if not chats:
        raise JudgeInputError("score_chats needs at least one chat")
    try:
        fulls = [llm.render_chat(list(c), add_generation_prompt=True) for c in chats]
        prefix = os.path.commonprefix(fulls)
        result = llm.score(prefix, [f[len(prefix):] for f in fulls], targets=TARGETS)
        rows = list(result.logprobs)
        if len(rows) != len(chats):
            raise ValueError(f"{len(rows)} results for {len(chats)} questions")
        head_scores: list[float] | None = None
        if head is not None:
            if result.logits is None:
                raise ValueError(f"{llm.name}: a score head needs next-token logits, which this backend "
                                 "does not return (use a local model)")
            import torch

            with torch.inference_mode():
                head_scores = [float(x) for x in head(result.logits).reshape(-1).tolist()]
            if len(head_scores) != len(chats):
                raise ValueError(f"{len(head_scores)} head scores for {len(chats)} questions")
    except INFRASTRUCTURE_ERRORS:
        raise
    except Exception as exc:  # noqa: BLE001 -- a failed scoring call is an undecided verdict, recorded
        msg = f"{type(exc).__name__}: {exc}"
        tally.raw.append(f"[error] {msg}"[:2000])
        return [Scored(None, error=msg) for _ in chats]
    readings = [_read(r) for r in rows]
    if head_scores is not None:
        readings = [_with_head(r, x) for r, x in zip(readings, head_scores, strict=True)]
    for chat, s in zip(chats, readings):
        question = chat[-1]["content"][:200]
        text = (f"[score] {question} -> P(Yes)={s.p_yes:.4f} (log P Yes {s.logprob_yes:.4f}, "
                f"No {s.logprob_no:.4f})" if s.p_yes is not None else f"[score] {question} -> {s.error}")
        tally.raw.append(text)
    tally.add(result.usage)
    return readings


# --------------------------------------------------------------------------- calibration


@dataclass
class Calibration:
    """The F1-best threshold on a labelled set. ``interval`` (lo, hi]: every threshold in it gives
    the same (best) predictions; ``threshold`` is its middle."""

    threshold: float
    f1: float
    precision: float
    recall: float
    accuracy: float
    interval: tuple[float, float]
    n: int
    positives: int
    unscored: int  # items with no score (a failed call, SmartSnap's format failures): never success

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["interval"] = list(self.interval)
        return d


def _counts(predicted: Sequence[bool], labels: Sequence[bool]) -> tuple[float, float, float, float]:
    tp = sum(p and y for p, y in zip(predicted, labels))
    fp = sum(p and not y for p, y in zip(predicted, labels))
    fn = sum(not p and y for p, y in zip(predicted, labels))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    accuracy = sum(p == y for p, y in zip(predicted, labels)) / len(labels)
    return f1, precision, recall, accuracy


def best_threshold(scores: Sequence[float | None], labels: Sequence[bool]) -> Calibration:
    """The threshold on ``p_yes`` that maximises F1 against ``labels`` (None scores: never success).

    F1 only changes where the threshold passes a score, so the candidates are the intervals
    (s_(j-1), s_(j)] between consecutive distinct scores (the first one [0, s_(1)]). Adjacent
    intervals with the best F1 are merged; among separate best intervals the widest wins (the
    largest margin to the scores on either side), then the lowest. The threshold is the middle of
    that interval, so every calibration score falls on the same side of it as at its edges.
    """
    if len(scores) != len(labels):
        raise JudgeInputError(f"{len(scores)} scores but {len(labels)} labels")
    labels = [bool(y) for y in labels]
    if not any(labels) or all(labels):
        raise JudgeInputError("calibration needs both successes and failures among the labels")
    vals: list[float] = []
    for s in scores:
        if s is not None:
            vals.append(check_threshold(s))  # a probability in [0, 1]
    distinct = sorted(set(vals))
    if not distinct:
        raise JudgeInputError("no item was scored: nothing to calibrate (every call failed?)")
    # Candidate j: thresholds in (lo_j, hi_j] predict success for every score >= hi_j.
    bounds = [(0.0 if j == 0 else distinct[j - 1], distinct[j]) for j in range(len(distinct))]
    rows = []
    for lo, hi in bounds:
        predicted = [s is not None and s >= hi for s in scores]
        rows.append(((lo, hi), *_counts(predicted, labels)))
    best = max(r[1] for r in rows)
    runs: list[list[float]] = []  # [lo, hi, index of the last candidate] of adjacent best candidates
    for k, row in enumerate(rows):
        if row[1] == best:
            if runs and runs[-1][2] == k - 1:
                runs[-1][1], runs[-1][2] = row[0][1], k
            else:
                runs.append([row[0][0], row[0][1], k])
    lo, hi, _ = max(runs, key=lambda r: (r[1] - r[0], -r[0]))
    threshold = (lo + hi) / 2  # inside a best candidate, so its predictions are best-F1 ones
    predicted = [s is not None and s >= threshold for s in scores]
    f1, precision, recall, accuracy = _counts(predicted, labels)
    return Calibration(threshold=threshold, f1=f1, precision=precision, recall=recall, accuracy=accuracy,
                       interval=(lo, hi), n=len(labels), positives=sum(labels),
                       unscored=sum(s is None for s in scores))


def require_train_split(header: dict[str, Any], source: str | Path) -> None:
    """A threshold is calibrated on train-template labels only: anything else is refused."""
    split = header.get("split") if isinstance(header, dict) else None
    if split != "train":
        raise JudgeInputError(f"{source} is a {split!r} labelled set; a judge is calibrated on a 'train' "
                              "set only (validation and test sets are for measuring it)")


# --------------------------------------------------------------------------- the judge file


@dataclass
class JudgeFile:
    """A calibrated scored judge: which method, on which model, with which prompt and threshold.

    ``model`` is the judge LLM's ``name`` (checked when the file is used); ``model_spec`` the
    ``--model`` it was loaded from (None: the bundled model), the default when the file is used.
    ``settings``: judge options the threshold depends on (SmartSnap's votes). ``calibration``: the
    set it was chosen on (path, split, n, positives) and its F1 there, with the command that made it.
    """

    method: str
    model: str
    version: str  # the method's scored prompt version (prompts.<method>.SCORE_VERSION)
    threshold: float
    verdict: str = "score"
    model_spec: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    calibration: dict[str, Any] = field(default_factory=dict)
    command: str = ""
    created_at: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        if self.method not in SCORED_METHODS:
            raise JudgeInputError(f"judge file method must be one of {', '.join(SCORED_METHODS)}, "
                                  f"got {self.method!r}")
        if self.verdict != "score":
            raise JudgeInputError(f"a judge file holds a scored judge (verdict 'score'), got {self.verdict!r}")
        self.threshold = check_threshold(self.threshold)
        for name in ("model", "version"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name):
                raise JudgeInputError(f"judge file {name} must be a non-empty string")

    def to_dict(self) -> dict[str, Any]:
        return {"kind": JUDGE_FILE_KIND, "format": JUDGE_FILE_FORMAT, **asdict(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JudgeFile:
        if not isinstance(data, dict) or data.get("kind") != JUDGE_FILE_KIND:
            raise JudgeInputError(f"not a droidverify judge file (kind must be {JUDGE_FILE_KIND!r})")
        if data.get("format") != JUDGE_FILE_FORMAT:
            raise JudgeInputError(f"judge file format {data.get('format')!r}; this droidverify reads "
                                  f"{JUDGE_FILE_FORMAT}")
        known = {k: v for k, v in data.items() if k not in ("kind", "format")}
        try:
            return cls(**known)
        except TypeError as exc:  # missing or unknown fields
            raise JudgeInputError(f"judge file has bad fields: {exc}") from None

    def check(self, *, method: str, version: str | None = None, model: str | None = None) -> None:
        """Refuse to use this file for another method, prompt version or model than it was
        calibrated for (the threshold means nothing there). None: not checked (yet)."""
        if method != self.method:
            raise JudgeInputError(f"judge file is for method {self.method!r}, not {method!r}")
        if model is not None and model != self.model:
            raise JudgeInputError(f"judge file was calibrated on model {self.model!r}, not {model!r}; "
                                  "calibrate this model with `droidverify judge calibrate`")
        if version is not None and version != self.version:
            raise JudgeInputError(f"judge file was calibrated with prompt {self.version!r}; this droidverify's "
                                  f"{method} prompt is {version!r}: calibrate again")


def write_judge_file(jf: JudgeFile, path: str | Path) -> Path:
    """Write ``jf`` as indented JSON, atomically (a temporary file renamed into place)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(jf.to_dict(), indent=2, sort_keys=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def read_judge_file(path: str | Path) -> JudgeFile:
    """Read a judge file; :class:`JudgeInputError` when it is missing, damaged or foreign."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise JudgeInputError(f"no judge file at {path}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise JudgeInputError(f"judge file {path} is damaged: {type(exc).__name__}: {exc}") from None
    try:
        return JudgeFile.from_dict(data)
    except JudgeInputError as exc:
        raise JudgeInputError(f"{path}: {exc}") from None


# --------------------------------------------------------------------------- calibrating a judge


def judgement_p_yes(j: Judgement) -> float | None:
    """The probability a scored judgement was decided by (``components["p_yes"]``); None when it was
    not scored (a failed call, a SmartSnap format failure): such an item is never a success."""
    p = j.components.get("p_yes")
    return float(p) if isinstance(p, (int, float)) and not isinstance(p, bool) else None


def calibrate(judge: Any, trajectories: Sequence[Trajectory], labels: Sequence[bool], *,
              backend: Any = None, on_done: Callable[[Judgement, bool], Any] | None = None,
              ) -> tuple[Calibration, list[Judgement]]:
    """Judge every labelled trajectory with a scored judge (or a factory of one, with ``backend``)
    and choose the F1-best threshold on the recorded ``p_yes`` (:func:`best_threshold`). The
    threshold the judge was built with does not matter: only its probabilities are read."""
    from droidverify.rewards.store import judge_all

    if getattr(judge, "verdict", "score") != "score":
        raise JudgeInputError("calibrate needs a judge built with verdict='score'")
    if len(trajectories) != len(labels):
        raise JudgeInputError(f"{len(trajectories)} trajectories but {len(labels)} labels")
    judgements = judge_all(judge, trajectories, None, on_done=on_done, backend=backend)
    return best_threshold([judgement_p_yes(j) for j in judgements], labels), judgements
