"""Agreement of a judge with the checker labels, and ROC AUC."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from droidverify.rewards.base import Judgement


@dataclass
class Agreement:
    """``undecided`` counts as a wrong answer in accuracy and as "not success" in precision/recall;
    its rate is reported separately so a judge cannot look good by abstaining."""

    judge: str
    n: int
    accuracy: float
    precision: float
    recall: float
    f1: float
    undecided_rate: float
    tokens_in: float  # mean judge input tokens per trajectory
    tokens_out: float
    latency_s: float  # mean seconds per trajectory

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def agreement(judgements: Sequence[Judgement], labels: Mapping[str, bool], *, judge: str | None = None) -> Agreement:
    """Compare judgements with labels (episode id -> checker success); unlabelled ones are ignored."""
    rows = [j for j in judgements if j.episode_id in labels]
    n = len(rows)
    tp = sum(j.outcome == "success" and labels[j.episode_id] for j in rows)
    fp = sum(j.outcome == "success" and not labels[j.episode_id] for j in rows)
    fn = sum(j.outcome != "success" and labels[j.episode_id] for j in rows)
    correct = sum((j.outcome == "success") == labels[j.episode_id] and j.outcome != "undecided" for j in rows)
    und = sum(j.outcome == "undecided" for j in rows)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0

    def mean(xs: list[float]) -> float:
        return sum(xs) / len(xs) if xs else 0.0

    return Agreement(
        judge=judge or (rows[0].judge if rows else ""), n=n, accuracy=correct / n if n else 0.0,
        precision=precision, recall=recall, f1=f1, undecided_rate=und / n if n else 0.0,
        tokens_in=mean([j.tokens_in for j in rows]), tokens_out=mean([j.tokens_out for j in rows]),
        latency_s=mean([j.latency_s for j in rows]))


def roc_auc(scores: Sequence[float], labels: Sequence[bool]) -> float | None:
    """Probability a random positive scores above a random negative (ties count half); None when
    one class is absent."""
    if len(scores) != len(labels):
        raise ValueError(f"{len(scores)} scores but {len(labels)} labels")
    pos = [s for s, y in zip(scores, labels) if y]
    neg = [s for s, y in zip(scores, labels) if not y]
    if not pos or not neg:
        return None
    # rank-sum (Mann-Whitney U) with average ranks for ties: O(n log n)
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    ranks = [0.0] * len(scores)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    rank_pos = sum(r for r, y in zip(ranks, labels) if y)
    u = rank_pos - len(pos) * (len(pos) + 1) / 2
    return u / (len(pos) * len(neg))
