"""Passive LLM-as-judge: the whole trajectory (goal, every action, every screen) in one prompt."""

from __future__ import annotations

from droidverify.env.records import Trajectory
from droidverify.llm.base import Messages
from droidverify.rewards.prompts.common import (
    PREAMBLE,
    SCORE_FORMAT,
    VERDICT_FORMAT,
    YES_NO,
    action_text,
    quote,
    screen_text,
)

VERSION = "passive-v1"  # free-text verdicts (SYSTEM + the episode)
SCORE_VERSION = "passive-score-v1"  # scored verdicts (SCORE_SYSTEM + the episode + QUESTION)

_TASK = (
    "\nYou see the user's goal and the agent's whole episode: for every round the screen the agent "
    "saw and the action it took, then the final screen. Check that the final state of the phone "
    "satisfies every part of the goal (right item, right values, saved rather than left in an "
    "editor) and, for a question, that the agent's answer is correct.\n\n"
)
SYSTEM = PREAMBLE + _TASK + VERDICT_FORMAT
SCORE_SYSTEM = PREAMBLE + _TASK + SCORE_FORMAT
# The fixed last user turn of a scored judgement; its answer is the token scored.
QUESTION = f"Was the user's goal achieved? {YES_NO}"


def build_messages(traj: Trajectory, *, max_screen_chars: int = 1200, max_chars: int = 12_000) -> Messages:
    """System (shared prefix) + one user message holding the episode. Screens of middle rounds are
    dropped first when the episode does not fit in ``max_chars`` (actions are always kept)."""
    steps = traj.steps
    screens = {i: screen_text(s.observation, max_chars=max_screen_chars) for i, s in enumerate(steps)}
    final = screen_text(traj.final_observation, max_chars=max_screen_chars)
    actions = [action_text(s) for s in steps]
    keep = set(screens)

    def render() -> str:
        parts = [f"User goal: {quote(traj.goal, max_len=500)}", ""]
        for i in range(len(steps)):
            if i in keep:
                parts.append(f"Round {i} -- screen:\n{screens[i]}")
            parts.append(f"Round {i} -- action: {actions[i]}")
        parts.append(f"Final screen:\n{final}")
        ending = ("declared the task complete" if traj.declared_done else "did not declare the task complete")
        parts.append(f"The agent {ending}.")
        if traj.answer is not None:
            parts.append(f"The agent's answer to the user: \"{quote(traj.answer, max_len=300)}\"")
        return "\n".join(parts)

    text = render()
    middle = list(range(1, len(steps)))  # round 0's screen (the start) is kept longest
    while len(text) > max_chars and middle:
        keep.discard(middle.pop(0))
        text = render()
    if len(text) > max_chars and 0 in keep:
        keep.discard(0)
        text = render()
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}]


def build_score_messages(traj: Trajectory, *, max_screen_chars: int = 1200,
                         max_chars: int = 12_000) -> Messages:
    """The scored form: the same episode message between SCORE_SYSTEM and the fixed QUESTION, which
    is the last turn, so the scored token always follows it (never any episode data)."""
    episode = build_messages(traj, max_screen_chars=max_screen_chars, max_chars=max_chars)[-1]
    return [{"role": "system", "content": SCORE_SYSTEM}, episode, {"role": "user", "content": QUESTION}]
