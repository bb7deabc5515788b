"""SmartSnap's evidence judge: only the goal, the agent's message and the exhibits it chose."""

from __future__ import annotations

from collections.abc import Sequence

from droidverify.env.records import Trajectory
from droidverify.llm.base import Messages
from droidverify.rewards.prompts.common import PREAMBLE, action_text, quote, screen_after, screen_text

VERSION = "evidence-v1"

SYSTEM = (
    PREAMBLE
    + "\nThe agent finished by submitting a short message and a few exhibits it chose as proof. An "
    "exhibit is one round of its episode: the action it took and the screen that action produced. "
    "You see nothing else. Decide whether the exhibits are valid evidence (they show the state the "
    "goal asks for, not merely an editor or a claim) and whether they prove the goal was achieved. "
    "The agent's message is a claim, not evidence.\n\n"
    "Reply in exactly this format and nothing else:\n"
    "<reasoning>two to four sentences tied to what the exhibits show</reasoning>\n"
    "<evidence_valid>True or False</evidence_valid>\n"
    "<verdict>SUCCESS or FAILURE</verdict>"
)


def build_messages(traj: Trajectory, message: str, evidences: Sequence[int], *,
                   max_screen_chars: int = 1500) -> Messages:
    """``evidences`` must already be checked (valid round ids before the submit round)."""
    parts = [f"User goal: {quote(traj.goal, max_len=500)}",
             f"Agent's message: \"{quote(message, max_len=500)}\"", ""]
    if not evidences:
        parts.append("The agent chose no exhibits.")
    for k, rid in enumerate(evidences, start=1):
        step = traj.steps[rid]
        after = screen_after(traj.steps, rid, traj.final_observation)
        parts.append(f"Exhibit {k} (round {rid})\nAction: {action_text(step)}\n"
                     f"Screen after the action:\n{screen_text(after, max_chars=max_screen_chars)}")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n".join(parts)}]
