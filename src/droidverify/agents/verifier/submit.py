"""SmartSnap's curation as a choice: ``submit(message, evidences)`` candidates for a ranking agent.

A self-verifying verifier (``VerifierAgent(finish="submit")``) does not declare ``status complete``;
it ends by submitting proof (paper 000/001). A ranking agent cannot write the evidence list, so the
list is one of a few candidates built from the rounds taken so far, without looking at what
happened in them (the scorer decides which round shows the outcome): each of the last
:data:`MAX_SINGLE` rounds alone (newest first) and the last two together. Rounds are the history's
``Step.index`` values, the ids ``submit`` cites. The message is fixed, except that after an
``answer`` it carries that answer (a judge that sees only the message and the exhibits needs it).
"""

from __future__ import annotations

from collections.abc import Sequence

from droidverify.actions.model import Action
from droidverify.env.records import Step

MAX_SINGLE = 4  # single-round exhibits offered: SmartSnap asks for 1-3 exhibits, most tasks need one
DONE_MESSAGE = "The task is done; the cited screens show it."


def last_answer(history: Sequence[Step]) -> str | None:
    """The text of the episode's latest ``answer`` action, if any."""
    for step in reversed(history):
        if step.action is not None and step.action.action_type == "answer" and step.action.text:
            return step.action.text
    return None


def submit_message(answer: str | None) -> str:
    return f"The answer is {answer}. The cited screens show it." if answer else DONE_MESSAGE


def submit_candidates(rounds: Sequence[int], answer: str | None = None) -> list[Action]:
    """The submit candidates after ``rounds`` (the round ids taken so far, in order): each of the
    last :data:`MAX_SINGLE` alone, newest first, then the last two together; with no round yet, one
    submit citing nothing (a judge will reject it: it is there so that giving up early is a choice)."""
    message = submit_message(answer)
    ids = list(dict.fromkeys(int(r) for r in rounds))
    if not ids:
        return [Action(action_type="submit", text=message, evidences=())]
    out = [Action(action_type="submit", text=message, evidences=(r,)) for r in reversed(ids[-MAX_SINGLE:])]
    if len(ids) >= 2:
        out.append(Action(action_type="submit", text=message, evidences=(ids[-2], ids[-1])))
    return out


def with_submit(candidates: Sequence[Action], history: Sequence[Step]) -> list[Action]:
    """``candidates`` with ``status complete`` replaced by the submit candidates of ``history``
    (where it stood; appended when there was none). ``status infeasible`` stays a way out."""
    subs = submit_candidates([s.index for s in history], last_answer(history))
    out: list[Action] = []
    placed = False
    for c in candidates:
        if c.action_type == "status" and c.goal_status == "complete":
            out.extend(subs)
            placed = True
        else:
            out.append(c)
    return out if placed else [*out, *subs]
