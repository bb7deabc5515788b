"""One episode: reset the environment, let the agent act until it stops or runs out of steps, score.

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
import traceback
from collections.abc import Callable
from typing import Any

from droidverify.actions.model import Action
from droidverify.agents.base import Agent, AgentOutput
from droidverify.env.interface import Environment
from droidverify.env.records import Step, TokenUsage, Trajectory, episode_end, episode_success
from droidverify.errors import (
    ActionValidationError,
    DeviceLostError,
    EnvError,
    InfrastructureError,
    RunError,
)
from droidverify.tasks.base import Task

# Why an episode ended; stored in ``Trajectory.metadata["termination"]``.
TERMINATIONS = ("complete", "infeasible", "submit", "answer", "step_limit", "agent_error")

OnStep = Callable[[Step, Trajectory], None]


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

    termination = "step_limit"
    agent_error: str | None = None
    for index in range(limit):
        t0 = time.perf_counter()
        try:
            out = agent.act(obs, list(traj.steps))
            if not isinstance(out, AgentOutput):
                raise TypeError(f"act() returned {type(out).__name__}, expected AgentOutput")
            if out.action is not None and not isinstance(out.action, Action):
                raise TypeError(f"AgentOutput.action is {type(out.action).__name__}, expected Action")
        except InfrastructureError:
            raise
        except Exception as exc:  # noqa: BLE001 -- an agent crash ends the episode, recorded, not lost
            agent_time = time.perf_counter() - t0
            agent_error = f"agent crashed: {type(exc).__name__}: {exc}"
            step = Step(index=index, observation=obs, action=None, error=agent_error,
                        agent_info={"traceback": traceback.format_exc(limit=20)},
                        timings={"agent": agent_time, "env": 0.0})
            traj.steps.append(step)
            if on_step is not None:
                on_step(step, traj)
            termination = "agent_error"
            break
        agent_time = time.perf_counter() - t0

        action = out.action
        error = out.error
        env_time = 0.0
        next_obs = obs
        if action is not None and action.action_type in ("status", "submit"):
            pass  # terminal actions change nothing on screen; no need to touch the device
        elif action is not None:
            t1 = time.perf_counter()
            try:
                next_obs = env.step(action)
            except DeviceLostError:
                raise
            except (ActionValidationError, EnvError) as exc:
                msg = f"env rejected {action.describe()}: {type(exc).__name__}: {exc}"
                error = f"{error}; {msg}" if error else msg
                next_obs = obs  # the episode continues from the same screen
            env_time = time.perf_counter() - t1
        elif error is None:
            error = "agent produced no action"

        step = Step(index=index, observation=obs, action=action, raw_output=out.raw_output,
                    error=error, agent_info=dict(out.info), usage=out.usage or TokenUsage(),
                    timings={"agent": agent_time, "env": env_time})
        traj.steps.append(step)
        if on_step is not None:
            on_step(step, traj)
        obs = next_obs

        if action is None:
            continue
        if action.action_type == "answer":
            if step.error is not None:
                continue  # a rejected answer records nothing and ends nothing
            traj.answer = action.text
        ends, done = episode_end(action, answer_ends_episode=answer_ends_episode)
        if ends:
            traj.declared_done = done
            termination = (action.action_type if action.action_type != "status"
                           else "complete" if done else "infeasible")
            break

    traj.final_observation = obs
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
