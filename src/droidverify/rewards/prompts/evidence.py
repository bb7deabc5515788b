"""SmartSnap's evidence judge: only the goal, the agent's message and the exhibits it chose."""

from __future__ import annotations

from collections.abc import Sequence

from droidverify.env.records import Trajectory
from droidverify.llm.base import Messages
from droidverify.rewards.prompts.common import (
    PREAMBLE,
    SCORE_FORMAT,
    YES_NO,
    action_text,
    quote,
    screen_after,
    screen_text,
)

VERSION = "evidence-v1"  # free-text votes (SYSTEM + the exhibits)
SCORE_VERSION = "evidence-score-v1"  # scored votes (SCORE_SYSTEM + the exhibits + VOTE_QUESTIONS)

_TASK = (
    "\nThe agent finished by submitting a short message and a few exhibits it chose as proof. An "
    "exhibit is one round of its episode: the action it took and the screen that action produced. "
    "You see nothing else. Decide whether the exhibits are valid evidence (they show the state the "
    "goal asks for, not merely an editor or a claim) and whether they prove the goal was achieved. "
    "The agent's message is a claim, not evidence.\n\n"
)
SYSTEM = (
    PREAMBLE + _TASK
    + "Reply in exactly this format and nothing else:\n"
    "<reasoning>two to four sentences tied to what the exhibits show</reasoning>\n"
    "<evidence_valid>True or False</evidence_valid>\n"
    "<verdict>SUCCESS or FAILURE</verdict>"
)
SCORE_SYSTEM = PREAMBLE + _TASK + SCORE_FORMAT

# One (verdict question, evidence-valid question) pair per scored vote. Scoring is deterministic, so
# the votes differ by wording instead of by sampling: a small ensemble of fixed questions.
VOTE_QUESTIONS: tuple[tuple[str, str], ...] = (
    (f"Do the exhibits prove that the user's goal was achieved? {YES_NO}",
     f"Are the exhibits valid evidence, showing the state the goal asks for? {YES_NO}"),
    (f"Is the result the goal asks for visible in the exhibits, so the task is certainly done? {YES_NO}",
     f"Do the exhibits show the relevant screen rather than an editor or a mere claim? {YES_NO}"),
    (f"From these exhibits alone, would you confirm to the user that the task succeeded? {YES_NO}",
     f"Is at least one exhibit a screen that shows the outcome the goal asks for? {YES_NO}"),
)


def _exhibits_text(traj: Trajectory, message: str, evidences: Sequence[int], max_screen_chars: int) -> str:
    parts = [f"User goal: {quote(traj.goal, max_len=500)}",
             f"Agent's message: \"{quote(message, max_len=500)}\"", ""]
    if not evidences:
        parts.append("The agent chose no exhibits.")
    for k, rid in enumerate(evidences, start=1):
        step = traj.steps[rid]
        after = screen_after(traj.steps, rid, traj.final_observation)
        parts.append(f"Exhibit {k} (round {rid})\nAction: {action_text(step)}\n"
                     f"Screen after the action:\n{screen_text(after, max_chars=max_screen_chars)}")
    return "\n".join(parts)


def build_messages(traj: Trajectory, message: str, evidences: Sequence[int], *,
                   max_screen_chars: int = 1500) -> Messages:
    """``evidences`` must already be checked (valid round ids before the submit round)."""
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": _exhibits_text(traj, message, evidences, max_screen_chars)}]


def build_score_messages(traj: Trajectory, message: str, evidences: Sequence[int], question: str, *,
                         max_screen_chars: int = 1500) -> Messages:
    """The scored form: SCORE_SYSTEM, the exhibits, then ``question`` (one of VOTE_QUESTIONS) as the
    last turn, so the scored token always follows the fixed question."""
    return [{"role": "system", "content": SCORE_SYSTEM},
            {"role": "user", "content": _exhibits_text(traj, message, evidences, max_screen_chars)},
            {"role": "user", "content": question}]
