"""The passive judge: an LLM reads the whole trajectory and gives a verdict (the papers' baseline).

``verdict="text"`` (default): the model writes ``<reasoning>``/``<verdict>`` tags, parsed by
``parsing.parse_verdict``. ``verdict="score"``: the model is asked one fixed Yes/No question after
the episode and P(Yes) vs P(No) decides against ``threshold`` (``rewards.scoring``).
"""

from __future__ import annotations

from droidverify.env.records import Trajectory
from droidverify.llm.base import LLM
from droidverify.rewards.base import Judgement, Tally, trajectory_id
from droidverify.rewards.llmcall import call
from droidverify.rewards.parsing import parse_verdict
from droidverify.rewards.prompts import passive as prompt
from droidverify.rewards.scoring import (
    DEFAULT_THRESHOLD,
    check_threshold,
    check_verdict_mode,
    decide,
    score_chats,
    scored_version,
)


class PassiveJudge:
    name = "passive"
    version = prompt.VERSION  # text mode; a scored judge's instance version names prompt and threshold

    def __init__(self, llm: LLM, *, max_tokens: int = 256, max_chars: int = 12_000,
                 max_screen_chars: int = 1200, verdict: str = "text",
                 threshold: float = DEFAULT_THRESHOLD) -> None:
        self.llm = llm
        self.max_tokens = max_tokens
        self.max_chars = max_chars
        self.max_screen_chars = max_screen_chars
        self.verdict = check_verdict_mode(verdict)
        self.threshold = check_threshold(threshold)
        if self.verdict == "score":
            self.version = scored_version(prompt.SCORE_VERSION, self.threshold)

    def judge(self, trajectory: Trajectory) -> Judgement:
        if self.verdict == "score":
            return self._judge_scored(trajectory)
        tally = Tally()
        eid = trajectory_id(trajectory)
        messages = prompt.build_messages(trajectory, max_screen_chars=self.max_screen_chars,
                                         max_chars=self.max_chars)
        reply = call(self.llm, messages, tally, max_tokens=self.max_tokens)
        if reply.text is None:
            return tally.judgement(episode_id=eid, judge=self.name, version=self.version, outcome="undecided",
                                   reward=0.0, parse_status="error", error=reply.error)
        parsed = parse_verdict(reply.text)
        if parsed.verdict is None:
            return tally.judgement(episode_id=eid, judge=self.name, version=self.version, outcome="undecided",
                                   reward=0.0, parse_status="failed", error=parsed.error)
        ok = parsed.verdict == "success"
        return tally.judgement(episode_id=eid, judge=self.name, version=self.version,
                               outcome="success" if ok else "failure", reward=1.0 if ok else 0.0,
                               parse_status=parsed.status,  # type: ignore[arg-type]
                               components={"verdict": parsed.verdict}, rationale=parsed.reasoning)

    def _judge_scored(self, trajectory: Trajectory) -> Judgement:
        tally = Tally()
        eid = trajectory_id(trajectory)
        chat = prompt.build_score_messages(trajectory, max_screen_chars=self.max_screen_chars,
                                           max_chars=self.max_chars)
        [s] = score_chats(self.llm, [chat], tally)
        if s.p_yes is None:  # only a failed call is undecided: any reading decides
            return tally.judgement(episode_id=eid, judge=self.name, version=self.version, outcome="undecided",
                                   reward=0.0, parse_status="error", error=s.error,
                                   components={"threshold": self.threshold})
        ok = decide(s.p_yes, self.threshold)
        return tally.judgement(
            episode_id=eid, judge=self.name, version=self.version, outcome="success" if ok else "failure",
            reward=1.0 if ok else 0.0, parse_status="strict",
            components={"verdict": "success" if ok else "failure", "p_yes": s.p_yes,
                        "threshold": self.threshold, "logprob_yes": s.logprob_yes, "logprob_no": s.logprob_no},
            rationale=f"P(Yes) = {s.p_yes:.4f} {'>=' if ok else '<'} threshold {self.threshold:.4f}")
