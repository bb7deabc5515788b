"""Trivial baselines: a seeded random agent and a do-nothing agent.

They bound what "better than chance" means: a random agent should solve almost nothing, and an
agent that immediately declares the task complete must solve nothing (no task starts solved).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from droidverify.actions.model import DIRECTIONS, Action
from droidverify.agents.base import AgentOutput
from droidverify.env.records import Observation, Step
from droidverify.errors import DroidVerifyError

_WORDS = ("hello", "test", "42", "alice", "meeting", "2024", "note", "x", "buy milk", "0")


class RandomAgent:
    """Picks uniformly among simple actions available on the current screen.

    Candidates: click every clickable/checkable element, type a random word into every editable
    one, scroll the screen in each direction when something scrolls, back, home, open each of
    ``apps``; with probability ``p_complete`` it declares ``status complete`` instead. The stream
    of choices depends only on ``seed`` and the goal, so re-running an episode repeats it.
    """

    name = "random"

    def __init__(self, seed: int = 0, *, apps: Sequence[str] = (), p_complete: float = 0.02) -> None:
        if not 0.0 <= p_complete <= 1.0:
            raise DroidVerifyError(f"RandomAgent: p_complete must be in [0, 1], got {p_complete}")
        self.seed = seed
        self.apps = tuple(apps)
        self.p_complete = p_complete
        self._rng = random.Random(seed)

    def reset(self, goal: str) -> None:
        self._rng = random.Random(f"{self.seed}:{goal}")

    def candidates(self, observation: Observation) -> list[Action]:
        out: list[Action] = []
        scrollable = False
        for i, el in enumerate(observation.elements):
            if not el.is_enabled:
                continue
            if el.is_editable:
                out.append(Action(action_type="input_text", index=i, text=self._rng.choice(_WORDS)))
            elif el.is_clickable or el.is_checkable:
                out.append(Action(action_type="click", index=i))
            scrollable = scrollable or el.is_scrollable
        if scrollable:
            out.extend(Action(action_type="scroll", direction=d) for d in DIRECTIONS)
        out.append(Action(action_type="navigate_back"))
        out.append(Action(action_type="navigate_home"))
        out.extend(Action(action_type="open_app", app_name=a) for a in self.apps)
        return out

    def act(self, observation: Observation, history: list[Step]) -> AgentOutput:
        if self._rng.random() < self.p_complete:
            action = Action(action_type="status", goal_status="complete")
            n = 0
        else:
            cands = self.candidates(observation)
            action = self._rng.choice(cands)
            n = len(cands)
        return AgentOutput(action=action, raw_output=action.to_json(), info={"n_candidates": n})


class NoopAgent:
    """Declares the goal complete at once; solves nothing unless a task starts solved (none may)."""

    name = "noop"

    def reset(self, goal: str) -> None:
        pass

    def act(self, observation: Observation, history: list[Step]) -> AgentOutput:
        action = Action(action_type="status", goal_status="complete")
        return AgentOutput(action=action, raw_output=action.to_json())
