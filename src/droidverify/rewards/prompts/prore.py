"""ProRe's prompts: the reasoner (probing goals), claim extraction (per trace) and the judge."""

from __future__ import annotations

from droidverify.env.records import Observation, Step
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

VERSION = "prore-v1"  # reasoner, claims and a free-text final judge call
# The same reasoner and claims prompts, with the final judge call scored (JUDGE_SCORE_SYSTEM + QUESTION).
SCORE_VERSION = "prore-score-v1"
LABELS = ("confirmed", "contradicted", "complementary", "unsupported")

REASONER_SYSTEM = (
    PREAMBLE
    + "\nYour part now: plan checks. Another agent will be handed the phone exactly as the first agent "
    "left it. Write 1 to {k} short probing goals for it: each tells it which screen to open to SEE "
    "whether the user's goal was achieved, without changing anything. One goal per tag:\n"
    "<probe>Open ... and show ...</probe>"
)

CLAIMS_SYSTEM = (
    PREAMBLE
    + "\nYour part now: read one agent's trace and write 1 to 4 claims about the state of the phone "
    "that the trace supports. Each claim cites the rounds that support it:\n"
    "<claim><steps>round ids, comma separated</steps><reasoning>why these rounds support it</reasoning>"
    "<statement>one sentence about the phone's state</statement></claim>"
)

_JUDGE_TASK = (
    "\nYou see claims from the working agent's trace and from an evaluator that later inspected the "
    "phone. First ignore evaluator claims that only describe the evaluator's own actions. Then label "
    "every working-agent claim by what the evaluator saw: confirmed, contradicted, complementary (adds "
    "to it without deciding it) or unsupported. Then decide.\n"
)
JUDGE_SCORE_SYSTEM = PREAMBLE + _JUDGE_TASK + SCORE_FORMAT
# The fixed last user turn of the scored final call; its answer is the token scored.
JUDGE_QUESTION = f"Given what the evaluator saw, was the user's goal achieved? {YES_NO}"
JUDGE_SYSTEM = (
    PREAMBLE + _JUDGE_TASK
    + "Reply in exactly this format and nothing else:\n"
    '<label claim="1">confirmed or contradicted or complementary or unsupported</label> (one per claim)\n'
    "<reasoning>two to four sentences</reasoning>\n"
    "<verdict>SUCCESS or FAILURE</verdict>"
)


def trace_text(steps: list[Step], final: Observation | None, *, max_screen_chars: int = 800,
               max_rounds: int = 12) -> str:
    """Rounds as (action, screen after), the latest ``max_rounds`` of them."""
    start = max(0, len(steps) - max_rounds)
    parts = [f"({start} earlier rounds omitted)"] if start else []
    for i in range(start, len(steps)):
        after = screen_after(steps, i, final)
        parts.append(f"Round {i} -- action: {action_text(steps[i])}\n"
                     f"Screen after round {i}:\n{screen_text(after, max_chars=max_screen_chars)}")
    if not steps:
        parts.append(f"No actions. Screen:\n{screen_text(final, max_chars=max_screen_chars)}")
    return "\n".join(parts)


def reasoner_messages(goal: str, steps: list[Step], final: Observation | None, *, k: int) -> Messages:
    actions = "\n".join(f"Round {i}: {action_text(s)}" for i, s in enumerate(steps)) or "(none)"
    user = (f"User goal: {quote(goal, max_len=500)}\nThe working agent's actions:\n{actions}\n"
            f"Screen it ended on:\n{screen_text(final, max_chars=1200)}")
    return [{"role": "system", "content": REASONER_SYSTEM.replace("{k}", str(k))},
            {"role": "user", "content": user}]


def claims_messages(goal: str, who: str, steps: list[Step], final: Observation | None) -> Messages:
    user = f"User goal: {quote(goal, max_len=500)}\nTrace of the {who}:\n{trace_text(steps, final)}"
    return [{"role": "system", "content": CLAIMS_SYSTEM}, {"role": "user", "content": user}]


def _claims_text(goal: str, policy_claims: list[str], evaluator_claims: list[str], probes: list[str]) -> str:
    pc = "\n".join(f"Claim {i}: {c}" for i, c in enumerate(policy_claims, start=1)) or "(none)"
    ec = "\n".join(f"- {c}" for c in evaluator_claims) or "(none)"
    pr = "\n".join(f"- {quote(p, max_len=300)}" for p in probes) or "(none)"
    return (f"User goal: {quote(goal, max_len=500)}\nWorking agent's claims:\n{pc}\n"
            f"The evaluator was asked to:\n{pr}\nEvaluator's claims:\n{ec}")


def judge_messages(goal: str, policy_claims: list[str], evaluator_claims: list[str],
                   probes: list[str]) -> Messages:
    return [{"role": "system", "content": JUDGE_SYSTEM},
            {"role": "user", "content": _claims_text(goal, policy_claims, evaluator_claims, probes)}]


def judge_score_messages(goal: str, policy_claims: list[str], evaluator_claims: list[str],
                         probes: list[str]) -> Messages:
    """The scored final call: the same claims, then the fixed JUDGE_QUESTION as the last turn."""
    return [{"role": "system", "content": JUDGE_SCORE_SYSTEM},
            {"role": "user", "content": _claims_text(goal, policy_claims, evaluator_claims, probes)},
            {"role": "user", "content": JUDGE_QUESTION}]
