"""Doubles for the GRPO rollout tests: a seeded scripted LLM and a judge that rewards what the
policy did. A module of its own so worker processes can import them by name."""

from __future__ import annotations

import random

from droidverify.env.records import TokenUsage, Trajectory
from droidverify.llm.base import Generation
from droidverify.rewards.base import Judgement, trajectory_id

REPLIES = (
    'Go home first.\nAction: {"action_type": "navigate_home"}',
    'Nothing to do yet.\nAction: {"action_type": "wait"}',
    'Look further down.\nAction: {"action_type": "scroll", "direction": "down"}',
    'Done.\nAction: {"action_type": "status", "goal_status": "complete"}',
)


class SeededLLM:
    """Picks a reply with the request's seed (greedy, temperature 0: always the first reply): a sampled
    group differs member to member, and repeats exactly for the same seeds, like the local model."""

    name = "seeded-llm"

    def __init__(self) -> None:
        self.calls: list[dict] = []

    def render_chat(self, messages, *, add_generation_prompt: bool = True) -> str:
        return "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def score(self, prefix, continuations, targets=("Yes", "No")):
        raise AssertionError("the generator agents never score")

    def generate(self, messages, *, max_tokens: int = 256, temperature: float = 0.0, stop=None,
                 seed=None) -> Generation:
        self.calls.append({"temperature": temperature, "seed": seed})
        text = REPLIES[0] if temperature == 0 or seed is None else random.Random(seed).choice(REPLIES)
        return Generation(text=text, usage=TokenUsage(prompt_tokens=10, completion_tokens=5),
                          finish_reason="stop")


class HomeJudge:
    """Reward = how many times the agent went home (0, 1, 2...): rewards that vary within a group."""

    name = "home-count"
    version = "test-1"

    def judge(self, trajectory: Trajectory) -> Judgement:
        n = sum(1 for s in trajectory.steps
                if s.action is not None and s.action.action_type == "navigate_home")
        return Judgement(episode_id=trajectory_id(trajectory), judge=self.name, version=self.version,
                         outcome="success" if n else "failure", reward=float(n), components={"homes": n})
