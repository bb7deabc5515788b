"""The passive judge: an LLM reads the whole trajectory and gives a verdict (the papers' baseline)."""

from __future__ import annotations

from droidverify.env.records import Trajectory
from droidverify.llm.base import LLM
from droidverify.rewards.base import Judgement, Tally, trajectory_id
from droidverify.rewards.llmcall import call
from droidverify.rewards.parsing import parse_verdict
from droidverify.rewards.prompts import passive as prompt


class PassiveJudge:
    name = "passive"
    version = prompt.VERSION

    def __init__(self, llm: LLM, *, max_tokens: int = 256, max_chars: int = 12_000,
                 max_screen_chars: int = 1200) -> None:
        self.llm = llm
        self.max_tokens = max_tokens
        self.max_chars = max_chars
        self.max_screen_chars = max_screen_chars

    def judge(self, trajectory: Trajectory) -> Judgement:
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
