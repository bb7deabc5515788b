"""The records an environment exchanges (re-exported from :mod:`droidverify.core.records`, where
they are defined) and the one success rule: when an episode ends and whether it succeeded."""

from __future__ import annotations

from droidverify.actions.model import Action
from droidverify.core.records import Observation, Step, TokenUsage, Trajectory
from droidverify.errors import DroidVerifyError

__all__ = ["SUCCESS_SCORE", "Observation", "Step", "TokenUsage", "Trajectory", "episode_end", "episode_success",
           "is_success", "oracle_after_answer"]


# ---- the one success rule ------------------------------------------------------------------------
# Every consumer (runner, summaries and reports, gym adapter, rule judge, labelled sets, data
# collection, GRPO) decides success here; tests/test_architecture.py fails on a threshold elsewhere.
SUCCESS_SCORE = 1.0  # the score an episode (or a checker) must reach to count as solved; below is partial


def episode_end(action: Action, *, answer_ends_episode: bool = False) -> tuple[bool, bool]:
    """``(ends the episode, declares the task done)`` for one action: ``status`` ends it (done when
    ``complete``), ``submit`` ends it done, ``answer`` ends it done only with ``answer_ends_episode``
    (AndroidWorld: query tasks answer, then say ``status complete``)."""
    t = action.action_type
    if t == "status":
        return True, action.goal_status == "complete"
    if t == "submit":
        return True, True
    if t == "answer" and answer_ends_episode:
        return True, True
    return False, False


def episode_success(checker_score: float | None, declared_done: bool) -> float | None:
    """Success of an episode: the checker's score if the agent declared done, else 0.0; None when
    nothing could be checked. Every consumer scores an episode with this rule."""
    if checker_score is None:
        return None
    return float(checker_score) if declared_done else 0.0


def is_success(score: float | None) -> bool:
    """Whether a score counts as solved: an episode's :func:`episode_success` or a checker's raw score
    (whether the checker passes) reaches :data:`SUCCESS_SCORE`. None (unscored) is not a success;
    partial credit is not either."""
    if score is None:
        return False
    try:
        value = float(score)  # checkers may return a bool or a numpy number: both count as numbers
    except (TypeError, ValueError):
        # a score that is no number is a bug upstream, never an episode to count as failed
        raise DroidVerifyError(f"a success score must be a number or None, got {type(score).__name__} "
                               f"{score!r}") from None
    return value >= SUCCESS_SCORE


def oracle_after_answer(action: Action, answered: bool) -> Action:
    """The oracle's next action once the episode has answered: a task oracle keeps naming its answer
    on a query task, so after an answer it finishes with ``status complete`` (AndroidWorld's query
    tasks: answer, then declare done). Other actions, and any action before an answer, pass through."""
    if answered and action.action_type == "answer":
        return Action(action_type="status", goal_status="complete")
    return action
