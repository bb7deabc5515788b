"""SmartSnap's evidence judge and composite reward.

The reward follows the authors' code as summarised in the papers digest:

1. Format failures return -1 at once: ``submit`` not called exactly once, the last action not
   ``submit``, or an evidence id outside the episode or pointing at the submit round itself.
2. Otherwise the judge sees only the goal, the message and the chosen exhibits, ``votes`` times
   (temperature > 0 when votes > 1). A strict majority of SUCCESS votes -> +1; else a strict majority
   of "evidence valid" votes -> 0; else -1. Unreadable or errored votes count for neither.
3. Minus 0.1 for every evidence beyond 3 (conciseness).

The outcome is ``success``/``failure`` when a strict majority of votes says so (a format failure is
a ``failure``), else ``undecided`` -- ties and mostly unreadable votes decide nothing.

``verdict="score"``: each vote (1 or 3 of them) is read by scoring instead of generation
(``rewards.scoring``). Vote i asks the i-th fixed question pair of ``prompts.evidence.VOTE_QUESTIONS`` -- "do the exhibits
prove the goal?" and "are they valid evidence?" -- and P(Yes) >= ``threshold`` gives its verdict
and its evidence_valid (one calibrated threshold for both: it corrects the model's leaning towards
one word, whatever the question). All questions share one prefix and go to ``llm.score`` at once.
The composition above is unchanged; a failed scoring call makes every vote errored (``undecided``,
reward -1 as for unreadable text votes). ``components["p_yes"]`` is the vote probability that
decides the majority (the ``votes // 2 + 1``-th largest): success iff it is >= the threshold, which
is what ``droidverify judge calibrate`` calibrates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from droidverify.env.records import Trajectory
from droidverify.errors import JudgeInputError
from droidverify.llm.base import LLM
from droidverify.rewards.base import Judgement, Tally, trajectory_id, worst_parse
from droidverify.rewards.llmcall import call
from droidverify.rewards.parsing import parse_verdict
from droidverify.rewards.prompts import evidence as prompt
from droidverify.rewards.scoring import (
    DEFAULT_THRESHOLD,
    check_threshold,
    check_verdict_mode,
    decide,
    score_chats,
    scored_version,
)

MAX_FREE_EVIDENCES = 3
EXTRA_EVIDENCE_PENALTY = 0.1


@dataclass
class SubmitCheck:
    """Outcome of the format rules. ``ok`` False means reward -1 without calling the judge."""

    ok: bool
    reason: str | None = None
    submit_round: int | None = None
    message: str = ""
    evidences: list[int] = field(default_factory=list)


def check_submit(traj: Trajectory) -> SubmitCheck:
    """Apply SmartSnap's format rules to an episode."""
    submits = [i for i, s in enumerate(traj.steps)
               if s.action is not None and s.action.action_type == "submit"]
    if len(submits) != 1:
        return SubmitCheck(False, f"submit called {len(submits)} times (must be exactly once)")
    last = traj.steps[-1]
    if last.action is None or last.action.action_type != "submit":
        return SubmitCheck(False, "the last action is not submit")
    submit_round = len(traj.steps) - 1
    action = last.action
    raw = list(action.evidences or ())
    for ev in raw:
        if isinstance(ev, bool) or not isinstance(ev, int):
            return SubmitCheck(False, f"evidence {ev!r} is not a round id", submit_round)
        if ev == submit_round:
            return SubmitCheck(False, f"evidence {ev} points at the submit round itself", submit_round)
        if not 0 <= ev < submit_round:
            return SubmitCheck(False, f"evidence {ev} is out of range (rounds 0-{submit_round - 1})",
                               submit_round)
    return SubmitCheck(True, None, submit_round, action.text or "", raw)


def format_failure(tally: Tally, episode_id: str, judge: str, version: str, check: SubmitCheck) -> Judgement:
    """SmartSnap's -1 for an episode whose submit breaks the format rules, without judging it."""
    return tally.judgement(
        episode_id=episode_id, judge=judge, version=version, outcome="failure", reward=-1.0,
        components={"format_ok": False, "format_error": check.reason, "reward": -1.0},
        rationale=f"format failure: {check.reason}")


@dataclass
class Vote:
    verdict: str | None  # success | failure | None (unreadable / errored)
    evidence_valid: bool | None
    status: str  # strict | tolerant | failed | error
    error: str | None = None
    reasoning: str = ""
    p_yes: float | None = None  # scored votes: normalised P(Yes) of the verdict question
    p_valid: float | None = None  # scored votes: normalised P(Yes) of the evidence-valid question

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"verdict": self.verdict, "evidence_valid": self.evidence_valid,
                               "status": self.status, "error": self.error}
        if self.p_yes is not None or self.p_valid is not None:
            out.update(p_yes=self.p_yes, p_valid=self.p_valid)
        return out


def deciding_p_yes(votes: list[Vote]) -> float | None:
    """The scored votes' P(Yes) that decides the strict majority: the ``n // 2 + 1``-th largest
    (unread votes lowest). ``2 * successes > n`` iff it is >= the threshold; None if too few read."""
    need = len(votes) // 2 + 1
    read = sorted((v.p_yes for v in votes if v.p_yes is not None), reverse=True)
    return read[need - 1] if len(read) >= need else None


def combine_votes(votes: list[Vote], n_evidences: int) -> dict[str, Any]:
    """The composite reward from the votes (format already passed); every component named."""
    n = len(votes)
    if n == 0:
        raise JudgeInputError("combine_votes needs at least one vote")
    n_success = sum(v.verdict == "success" for v in votes)
    n_failure = sum(v.verdict == "failure" for v in votes)
    n_valid = sum(v.evidence_valid is True for v in votes)
    if 2 * n_success > n:
        base, rule = 1.0, "majority SUCCESS"
    elif 2 * n_valid > n:
        base, rule = 0.0, "no SUCCESS majority, majority evidence valid"
    else:
        base, rule = -1.0, "neither a SUCCESS nor an evidence-valid majority"
    extra = max(0, n_evidences - MAX_FREE_EVIDENCES)
    penalty = round(EXTRA_EVIDENCE_PENALTY * extra, 10)
    outcome = "success" if 2 * n_success > n else "failure" if 2 * n_failure > n else "undecided"
    return {"votes": n, "success_votes": n_success, "failure_votes": n_failure, "valid_votes": n_valid,
            "unreadable_votes": n - n_success - n_failure, "base": base, "rule": rule,
            "extra_evidences": extra, "penalty": -penalty, "reward": base - penalty, "outcome": outcome}


class EvidenceJudge:
    """SmartSnap's judge + composite reward as one ``Judge`` (reward in ``Judgement.reward``)."""

    name = "smartsnap"
    version = prompt.VERSION

    def __init__(self, llm: LLM, *, votes: int = 3, temperature: float | None = None,
                 max_tokens: int = 256, seed: int = 0, max_screen_chars: int = 1500,
                 verdict: str = "text", threshold: float = DEFAULT_THRESHOLD) -> None:
        if not isinstance(votes, int) or isinstance(votes, bool) or votes < 1:
            raise JudgeInputError(f"votes must be a positive int, got {votes!r}")
        self.verdict = check_verdict_mode(verdict)
        self.threshold = check_threshold(threshold)
        if self.verdict == "score":
            # Scored votes differ by their fixed questions, not by sampling: one pair per vote. An odd
            # count so that read votes always have a majority (undecided = only a failed call).
            allowed = [n for n in range(1, len(prompt.VOTE_QUESTIONS) + 1, 2)]
            if votes not in allowed:
                raise JudgeInputError(f"scored SmartSnap votes must be one of {allowed} (odd, one fixed "
                                      f"question pair each), got {votes}")
            self.version = scored_version(prompt.SCORE_VERSION, self.threshold)
        temperature = (0.7 if votes > 1 else 0.0) if temperature is None else temperature
        if votes > 1 and temperature <= 0 and self.verdict == "text":
            raise JudgeInputError("with several votes the temperature must be > 0 (identical votes "
                                  "otherwise)")
        self.llm = llm
        self.votes = votes
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.seed = seed
        self.max_screen_chars = max_screen_chars

    def judge(self, trajectory: Trajectory) -> Judgement:
        tally = Tally()
        eid = trajectory_id(trajectory)
        check = check_submit(trajectory)
        if not check.ok:
            return format_failure(tally, eid, self.name, self.version, check)
        votes = (self._scored_votes(trajectory, check, tally) if self.verdict == "score"
                 else self._text_votes(trajectory, check, tally))
        combo = combine_votes(votes, len(check.evidences))
        outcome = combo.pop("outcome")
        exhibits = [{"round": r, "step": r} for r in check.evidences]
        rationale = next((v.reasoning for v in votes if v.verdict == outcome), "") or combo["rule"]
        if self.verdict == "score":
            combo.update(threshold=self.threshold)
            p_deciding = deciding_p_yes(votes)
            if p_deciding is not None:
                combo.update(p_yes=p_deciding)
        return tally.judgement(
            episode_id=eid, judge=self.name, version=self.version, outcome=outcome, reward=combo["reward"],
            components={"format_ok": True, **combo}, rationale=rationale,
            parse_status=worst_parse([v.status for v in votes]),
            error=next((v.error for v in votes if v.status == "error"), None),
            details={"votes": [v.to_dict() for v in votes], "exhibits": exhibits,
                     "message": check.message[:2000], "submit_round": check.submit_round})

    def _text_votes(self, trajectory: Trajectory, check: SubmitCheck, tally: Tally) -> list[Vote]:
        messages = prompt.build_messages(trajectory, check.message, check.evidences,
                                         max_screen_chars=self.max_screen_chars)
        votes: list[Vote] = []
        for i in range(self.votes):
            reply = call(self.llm, messages, tally, max_tokens=self.max_tokens,
                         temperature=self.temperature, seed=self.seed + i)
            if reply.text is None:
                votes.append(Vote(None, None, "error", reply.error))
                continue
            p = parse_verdict(reply.text, want_evidence=True)
            votes.append(Vote(p.verdict, p.evidence_valid, p.status, p.error, p.reasoning))
        return votes

    def _scored_votes(self, trajectory: Trajectory, check: SubmitCheck, tally: Tally) -> list[Vote]:
        chats = [prompt.build_score_messages(trajectory, check.message, check.evidences, q,
                                             max_screen_chars=self.max_screen_chars)
                 for pair in prompt.VOTE_QUESTIONS[: self.votes] for q in pair]
        readings = score_chats(self.llm, chats, tally)
        votes: list[Vote] = []
        for i in range(self.votes):
            verdict, valid = readings[2 * i], readings[2 * i + 1]
            if verdict.p_yes is None or valid.p_yes is None:
                votes.append(Vote(None, None, "error", verdict.error or valid.error))
                continue
            ok = decide(verdict.p_yes, self.threshold)
            votes.append(Vote("success" if ok else "failure", decide(valid.p_yes, self.threshold), "strict",
                              reasoning=f"P(Yes) = {verdict.p_yes:.4f} {'>=' if ok else '<'} threshold "
                                        f"{self.threshold:.4f}",
                              p_yes=verdict.p_yes, p_valid=valid.p_yes))
        return votes
