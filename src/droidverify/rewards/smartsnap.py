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


@dataclass
class Vote:
    verdict: str | None  # success | failure | None (unreadable / errored)
    evidence_valid: bool | None
    status: str  # strict | tolerant | failed | error
    error: str | None = None
    reasoning: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "evidence_valid": self.evidence_valid, "status": self.status,
                "error": self.error}


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
                 max_tokens: int = 256, seed: int = 0, max_screen_chars: int = 1500) -> None:
        if not isinstance(votes, int) or votes < 1:
            raise JudgeInputError(f"votes must be a positive int, got {votes!r}")
        temperature = (0.7 if votes > 1 else 0.0) if temperature is None else temperature
        if votes > 1 and temperature <= 0:
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
            return tally.judgement(
                episode_id=eid, judge=self.name, version=self.version, outcome="failure", reward=-1.0,
                components={"format_ok": False, "format_error": check.reason, "reward": -1.0},
                rationale=f"format failure: {check.reason}")
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
        combo = combine_votes(votes, len(check.evidences))
        outcome = combo.pop("outcome")
        exhibits = [{"round": r, "step": r} for r in check.evidences]
        rationale = next((v.reasoning for v in votes if v.verdict == outcome), "") or combo["rule"]
        return tally.judgement(
            episode_id=eid, judge=self.name, version=self.version, outcome=outcome, reward=combo["reward"],
            components={"format_ok": True, **combo}, rationale=rationale,
            parse_status=worst_parse([v.status for v in votes]),
            error=next((v.error for v in votes if v.status == "error"), None),
            details={"votes": [v.to_dict() for v in votes], "exhibits": exhibits,
                     "message": check.message[:2000], "submit_round": check.submit_round})
