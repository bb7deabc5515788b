"""A fake judge factory for the parallel-judging tests. A module of its own so worker processes can
import it by name (tests/rewards is on their sys.path: conftest)."""

from __future__ import annotations

from rewards_doubles import ScriptedLLM, reply

from droidverify.rewards.passive import PassiveJudge


def verdict_from_prompt(messages: list[dict[str, str]], call_index: int) -> str:
    """A deterministic verdict that depends on the episode (not on the call order)."""
    return reply("SUCCESS" if sum(map(ord, messages[-1]["content"])) % 3 else "FAILURE")


class ScriptedPassive:
    """Builds a passive judge over a scripted LLM, once per worker; name and version without building."""

    name = PassiveJudge.name
    version = PassiveJudge.version
    built = 0

    def __call__(self) -> PassiveJudge:
        type(self).built += 1
        return PassiveJudge(ScriptedLLM(reply_fn=verdict_from_prompt))
