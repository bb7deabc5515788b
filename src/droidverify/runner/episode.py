"""One episode: reset the environment, let the agent act until it stops or runs out of steps, score.

The stepping is :func:`droidverify.episode.loop.play` (the one episode loop, which data collection,
the labelled sets and ProRe's probes use too); this module starts the episode, scores it and writes
the runner's metadata.

Rules (see docs/runner.md):

- ``status`` (complete or infeasible) and ``submit`` end the episode. ``answer`` records the answer
  and the episode continues (AndroidWorld style: query tasks end with ``answer`` then
  ``status complete``) unless ``answer_ends_episode`` is set.
- An :class:`~droidverify.errors.ActionValidationError` or :class:`~droidverify.errors.EnvError`
  raised by ``env.step`` is recorded on the step and the episode continues from the same screen.
  A lost device (:class:`~droidverify.errors.DeviceLostError`) and non-droidverify exceptions from
  the environment propagate: they are infrastructure failures or bugs, not agent mistakes.
- An exception raised by the agent is recorded on a final step and ends the episode as failed,
  except an :class:`~droidverify.errors.InfrastructureError` (LLM server unreachable or timing out
  after retries, a model that cannot load): that propagates, so the run stops and the episode
  stays unfinished for a rerun to retry; it says nothing about the agent.
- Success = the task's checker passes AND the agent declared done (``status complete`` or
  ``submit``): :func:`~droidverify.env.records.episode_success`, the one rule (the gym adapter
  uses it too). On an environment without phone state (adb) success is ``None`` unless the task
  template provides ``is_successful_on_device(env, params, answer)``.
"""

from __future__ import annotations

import time
from typing import Any

from droidverify.agents.base import Agent
from droidverify.env.interface import Environment
from droidverify.env.records import Step, TokenUsage, Trajectory, episode_success
from droidverify.episode.loop import TERMINATIONS, OnStep, play
from droidverify.errors import RunError
from droidverify.tasks.base import Task

__all__ = ["TERMINATIONS", "OnStep", "agent_name", "run_episode"]


def agent_name(agent: Any) -> str:
    return str(getattr(agent, "name", None) or type(agent).__name__)


def _score(env: Environment, task: Task, answer: str | None) -> tuple[float | None, str | None]:
    """Run the task's checker on whatever state the environment exposes; (score, error)."""
    try:
        phone = getattr(env, "phone", None)
        if phone is not None:
            return float(task.is_successful(phone, answer)), None
        device_checker = getattr(task.template, "is_successful_on_device", None)
        if device_checker is not None:
            return float(device_checker(env, task.params, answer)), None
        return None, None
    except Exception as exc:  # noqa: BLE001 -- a checker bug must not lose the episode; reported as unscored
        return None, f"checker raised {type(exc).__name__}: {exc}"


def run_episode(
    agent: Agent,
    env: Environment,
    task: Task,
    *,
    max_steps: int | None = None,
    on_step: OnStep | None = None,
    answer_ends_episode: bool = False,
) -> Trajectory:
    """Drive ``agent`` on ``task`` in ``env`` (already created for this task) and return the episode.

    If the agent has a ``bind(env, task)`` method (privileged agents such as the oracle), it is
    called before ``agent.reset(goal)``. ``on_step(step, trajectory)`` is called after every step
    is recorded (the runner uses it to write ``steps.jsonl``).
    """
    if not isinstance(task, Task):
        raise RunError(f"run_episode: task must be a Task, got {type(task).__name__}")
    if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int)):
        raise RunError(f"run_episode: max_steps must be an int or None, got {type(max_steps).__name__} "
                       f"{max_steps!r}")
    limit = task.max_steps if max_steps is None else max_steps
    if limit < 1:
        raise RunError(f"run_episode: max_steps must be >= 1, got {limit} (task {task.id!r})")
    traj = Trajectory(task_id=task.id, goal=task.goal, seed=task.seed, agent=agent_name(agent))
    started = time.time()
    obs = env.reset()
    if hasattr(agent, "bind"):
        agent.bind(env, task)
    agent.reset(task.goal)

    def notify(step: Step, t: Trajectory) -> bool:
        on_step(step, t)  # type: ignore[misc] -- only passed when given
        return False  # the runner's callback never ends an episode

    played = play(agent, env, traj, obs, limit=limit, on_step=notify if on_step is not None else None,
                  answer_ends_episode=answer_ends_episode)
    termination, agent_error = played.termination, played.agent_error
    score, checker_error = _score(env, task, traj.answer)
    traj.success = episode_success(score, traj.declared_done)
    traj.termination, traj.checker_score = termination, score
    traj.checker_error, traj.agent_error = checker_error, agent_error
    usage = sum((s.usage for s in traj.steps), TokenUsage())
    traj.metadata.update({
        "termination": termination,
        "checker_score": score,
        "checker_error": checker_error,
        "agent_error": agent_error,
        "max_steps": limit,
        "params": task.params,
        "apps": list(getattr(task.template, "apps", ())),
        "complexity": getattr(task.template, "complexity", None),
        "task_kind": getattr(task.template, "kind", None),
        "usage": usage.to_dict(),
        "time_agent": sum(s.timings.get("agent", 0.0) for s in traj.steps),
        "time_env": sum(s.timings.get("env", 0.0) for s in traj.steps),
        "started_at": started,
        "finished_at": time.time(),
    })
    return traj
