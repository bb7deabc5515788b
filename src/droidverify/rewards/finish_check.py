"""A judge as the verifier agent's finish check (``VerifierAgent(finish_check=...)``).

Before the agent declares ``status complete``, the episode so far -- with that action as its last
step and the current screen as its final one, exactly what the judge would read had the agent
stopped -- is judged; a ``failure`` verdict makes the agent go on with its next candidate. The
trained compact judge's passive setting is the default: it reads only what a device shows, needs no
language model, and its threshold was chosen on train templates when it was trained.

:class:`JudgeFinishCheck` is picklable (a ``JudgeSpec``): ``--workers`` processes build the judge
once each, on first use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from droidverify.actions.model import Action
from droidverify.env.records import Observation, Step, Trajectory
from droidverify.errors import JudgeInputError
from droidverify.rewards.registry import JudgeSpec

# Judges that read the episode as recorded. The rule judge re-runs the checker on the phone's saved
# final state, which a running episode has not saved yet; ProRe probes a clone of the live phone.
CHECK_METHODS = ("compact", "lora", "passive")


def episode_so_far(goal: str, history: list[Step], observation: Observation, action: Action) -> Trajectory:
    """The trajectory the runner would record if the agent took ``action`` (a terminal ``status``)
    on ``observation`` now: the answer given earlier, declared done, ended by ``complete``."""
    steps = [*history, Step(index=len(history), observation=observation, action=action)]
    answer = next((s.action.text for s in reversed(history)
                   if s.action is not None and s.action.action_type == "answer" and s.error is None), None)
    done = action.action_type == "status" and action.goal_status == "complete"
    return Trajectory(task_id="finish-check", goal=goal, steps=steps, final_observation=observation, answer=answer,
                      declared_done=done, termination=action.goal_status if action.action_type == "status" else None)


@dataclass
class JudgeFinishCheck:
    """``(goal, history, observation, action) -> (accept, detail)`` by a judge of :data:`CHECK_METHODS`."""

    spec: JudgeSpec = field(default_factory=lambda: JudgeSpec("compact", setting="passive"))
    _judge: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.spec.method not in CHECK_METHODS:
            raise JudgeInputError(f"a finish check judges a running episode: use one of {', '.join(CHECK_METHODS)}, "
                                  f"not {self.spec.method!r}")

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_judge": None}  # each worker builds its own judge

    @property
    def version(self) -> str:
        return f"{self.spec.method}:{self.spec.version}"

    def __call__(self, goal: str, history: list[Step], observation: Observation,
                 action: Action) -> tuple[bool, dict[str, Any]]:
        if self._judge is None:
            self._judge = self.spec()
        j = self._judge.judge(episode_so_far(goal, history, observation, action))
        detail: dict[str, Any] = {"judge": j.judge, "outcome": j.outcome}
        p = j.components.get("p_success", j.components.get("p_yes"))
        if isinstance(p, (int, float)):
            detail["p_success"] = round(float(p), 6)
        if j.outcome == "undecided":  # the check could not read the episode: recorded, not a veto
            detail["error"] = j.error or "undecided"
        return j.outcome != "failure", detail
