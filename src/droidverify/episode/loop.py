"""The one episode loop: an agent acts on an environment's screen until it ends the episode or runs out
of steps; every caller that plays an episode step by step plays it here.

Callers: the runner (``runner.episode.run_episode``, whose docstring states the rules), data
collection (``training.collection``: a scripted labeller acting for the oracle or a policy), the
labelled trajectory set (``rewards.labelled``: scripted replays, the oracle's trace) and ProRe's probes
(``rewards.prore.probe``). Each starts the environment itself (reset, a hidden prefix, or the screen
as it is), scores the episode itself and writes its own metadata; the stepping, what ends an
episode and how a step is recorded are decided here, once.

Hooks:

* a **scripted agent** is any object with ``act(observation, history) -> AgentOutput``
  (:class:`Scripted` wraps a list of actions or callables); raising :class:`EndEpisode` from ``act``
  ends the episode before a step is recorded (the oracle has nothing more to do);
* ``on_step(step, trajectory)`` is called after every recorded step (the answer and declared-done
  state already updated); a true return value ends the episode after that step.

Termination (``Played.termination``): one of :data:`TERMINATIONS`, or :data:`ENDED` when a hook
ended it.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from droidverify.actions.model import Action
from droidverify.agents.base import Agent, AgentOutput
from droidverify.env.interface import Environment
from droidverify.env.records import Observation, Step, TokenUsage, Trajectory, episode_end
from droidverify.errors import ActionValidationError, DeviceLostError, EnvError, InfrastructureError

# Why an episode ended; the runner stores it in ``Trajectory.termination`` (and ``metadata``).
TERMINATIONS = ("complete", "infeasible", "submit", "answer", "step_limit", "agent_error")
ENDED = "ended"  # a hook ended the episode (EndEpisode from a scripted agent, or on_step returned true)

OnStep = Callable[[Step, Trajectory], Any]
# (the agent's own error or None, the action, the environment's exception) -> the step's error
Rejection = Callable[[str | None, Action, Exception], str]
NO_ACTION = "agent produced no action"


class EndEpisode(Exception):
    """Raised by a scripted agent's ``act``: the episode ends here, no step is recorded."""


def env_rejected(error: str | None, action: Action, exc: Exception) -> str:
    """The runner's record of an action the environment rejected, after the agent's own error."""
    msg = f"env rejected {action.describe()}: {type(exc).__name__}: {exc}"
    return f"{error}; {msg}" if error else msg


@dataclass
class Played:
    """How :func:`play` ended: why, and the agent's crash (``termination == "agent_error"``)."""

    termination: str
    agent_error: str | None = None


class Scripted:
    """A scripted agent: plays ``actions`` in order, each an :class:`Action` or a callable
    ``(observation, history) -> Action``; raw output is the action's JSON. Runs out: the episode ends
    at the step limit, which a caller sets to ``len(actions)``."""

    name = "scripted"

    def __init__(self, actions: Sequence[Action | Callable[[Any, list[Step]], Action]]) -> None:
        self.actions = list(actions)

    def reset(self, goal: str) -> None:
        pass

    def act(self, observation: Observation, history: list[Step]) -> AgentOutput:
        item = self.actions[len(history)]
        action = item if isinstance(item, Action) else item(observation, history)
        return AgentOutput(action=action, raw_output=action.to_json())


def play(agent: Agent | Any, env: Environment | Any, traj: Trajectory, obs: Observation, *, limit: int,
         on_step: OnStep | None = None, answer_ends_episode: bool = False, stop_at_answer: bool = False,
         timed: bool = True, catch_agent_errors: bool = True, rejection: Rejection = env_rejected,
         no_action_error: str | None = NO_ACTION) -> Played:
    """Let ``agent`` act from ``obs`` (the environment already started) for at most ``limit`` steps,
    appending each :class:`Step` to ``traj.steps``; sets ``traj.answer``, ``traj.declared_done`` and
    ``traj.final_observation`` (scoring and metadata are the caller's).

    Rules: ``status`` and ``submit`` end the episode without touching the environment; ``answer``
    records the answer (unless the environment rejected it) and ends the episode only with
    ``answer_ends_episode`` (executed first) or ``stop_at_answer`` (not executed: ProRe's probes). An
    :class:`ActionValidationError` / :class:`EnvError` from ``env.step`` becomes the step's error
    (``rejection`` words it) and the episode goes on from the same screen; a lost device propagates.
    A step without an action gets ``no_action_error`` unless the agent gave an error.
    ``catch_agent_errors``: an exception from the agent (an :class:`InfrastructureError` aside, which
    always propagates) is recorded on a final step and ends the episode (``agent_error``); without
    it the exception propagates. ``timed``: record seconds spent by agent and environment per step.
    """
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
        except EndEpisode:
            termination = ENDED
            break
        except Exception as exc:
            if not catch_agent_errors:
                raise
            agent_time = time.perf_counter() - t0
            agent_error = f"agent crashed: {type(exc).__name__}: {exc}"
            step = Step(index=index, observation=obs, action=None, error=agent_error,
                        agent_info={"traceback": traceback.format_exc(limit=20)},
                        timings={"agent": agent_time, "env": 0.0} if timed else {})
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
        if action is not None and (action.action_type in ("status", "submit")
                                   or (stop_at_answer and action.action_type == "answer")):
            pass  # terminal actions change nothing on screen; no need to touch the device
        elif action is not None:
            t1 = time.perf_counter()
            try:
                next_obs = env.step(action)
            except DeviceLostError:
                raise
            except (ActionValidationError, EnvError) as exc:
                error = rejection(error, action, exc)
                next_obs = obs  # the episode continues from the same screen
            env_time = time.perf_counter() - t1
        elif error is None:
            error = no_action_error

        step = Step(index=index, observation=obs, action=action, raw_output=out.raw_output,
                    error=error, agent_info=dict(out.info), usage=out.usage or TokenUsage(),
                    timings={"agent": agent_time, "env": env_time} if timed else {})
        traj.steps.append(step)
        obs = next_obs
        ends = False
        # a rejected answer (or one the agent reported an error with) records nothing and ends nothing,
        # unless answers stop the episode unexecuted
        if action is not None and not (action.action_type == "answer" and step.error is not None
                                       and not stop_at_answer):
            if action.action_type == "answer":
                traj.answer = action.text
            ends, done = episode_end(action, answer_ends_episode=answer_ends_episode or stop_at_answer)
            if ends:
                traj.declared_done = done
                termination = (action.action_type if action.action_type != "status"
                               else "complete" if done else "infeasible")
        if on_step is not None and on_step(step, traj) and not ends:
            termination = ENDED
            break
        if ends:
            break
    traj.final_observation = obs
    return Played(termination, agent_error)
