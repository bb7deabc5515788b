from __future__ import annotations

import pytest
from fakes import CountQueryTemplate, FakeEnv, TapTemplate
from scripted import ScriptedAgent

from droidverify.actions.model import Action
from droidverify.agents.oracle import OracleAgent
from droidverify.agents.random import NoopAgent
from droidverify.errors import DeviceLostError, TaskError
from droidverify.runner.episode import run_episode

INC = Action(action_type="click", index=0)
DONE = Action(action_type="status", goal_status="complete")


def _tap(seed: int = 0):
    task = TapTemplate().instantiate(seed)
    return task, FakeEnv(task, seed)


def test_checker_pass_and_declared_done_is_success() -> None:
    task, env = _tap()
    n = task.params["target"]
    traj = run_episode(ScriptedAgent([INC] * n + [DONE]), env, task)
    assert traj.success == 1.0 and traj.declared_done
    assert traj.metadata["termination"] == "complete"
    assert len(traj.steps) == n + 1
    assert [s.index for s in traj.steps] == list(range(n + 1))
    # each step records the screen the agent saw, before its action
    assert "Count: 0" in traj.steps[0].observation.xml
    assert f"Count: {n}" in traj.final_observation.xml
    assert all(set(s.timings) == {"agent", "env"} for s in traj.steps)


def test_checker_passes_but_not_declared_done_fails() -> None:
    task, env = _tap()
    n = task.params["target"]
    traj = run_episode(ScriptedAgent([INC] * n), env, task, max_steps=n)
    assert traj.metadata["checker_score"] == 1.0
    assert traj.success == 0.0 and not traj.declared_done
    assert traj.metadata["termination"] == "step_limit"


def test_declared_done_but_checker_fails_is_failure() -> None:
    task, env = _tap()
    traj = run_episode(NoopAgent(), env, task)
    assert traj.declared_done and traj.success == 0.0
    assert len(traj.steps) == 1


def test_infeasible_is_not_done() -> None:
    task, env = _tap()
    n = task.params["target"]
    traj = run_episode(ScriptedAgent([INC] * n + [Action(action_type="status", goal_status="infeasible")]),
                       env, task)
    assert traj.metadata["termination"] == "infeasible" and traj.success == 0.0


def test_submit_ends_episode_and_counts_as_done() -> None:
    task, env = _tap()
    n = task.params["target"]
    sub = Action(action_type="submit", text="done", evidences=(n - 1,))
    traj = run_episode(ScriptedAgent([INC] * n + [sub, INC]), env, task)
    assert traj.metadata["termination"] == "submit" and traj.success == 1.0
    assert env.steps_taken == n  # terminal actions are not sent to the device


def test_step_limit_defaults_to_task_max_steps() -> None:
    task, env = _tap()
    agent = ScriptedAgent([Action(action_type="navigate_back")] * 100)
    traj = run_episode(agent, env, task)
    assert len(traj.steps) == task.max_steps
    assert traj.metadata["termination"] == "step_limit" and traj.metadata["max_steps"] == task.max_steps
    assert agent.seen_history_lengths == list(range(task.max_steps))


def test_env_errors_are_recorded_and_episode_continues() -> None:
    task, env = _tap()
    n = task.params["target"]
    bad_index = Action(action_type="click", index=17)
    not_editable = Action(action_type="input_text", index=0, text="hi")
    wait = Action(action_type="wait")  # the fake env raises EnvError on wait
    traj = run_episode(ScriptedAgent([bad_index, not_editable, wait, None] + [INC] * n + [DONE]), env, task)
    errs = [s.error for s in traj.steps]
    assert "ActionValidationError" in errs[0] and "out of range" in errs[0]
    assert "not editable" in errs[1]
    assert "EnvError" in errs[2] and "did not settle" in errs[2]
    assert errs[3] == "could not parse action" and traj.steps[3].raw_output == "garbage {"
    assert all(e is None for e in errs[4:])
    # the failed steps left the screen unchanged: the next step saw the same screen
    assert traj.steps[1].observation is traj.steps[0].observation
    assert traj.success == 1.0


def test_agent_crash_is_recorded_and_ends_episode_failed() -> None:
    task, env = _tap()
    n = task.params["target"]
    traj = run_episode(ScriptedAgent([INC] * n + [RuntimeError("model exploded")]), env, task)
    assert traj.metadata["termination"] == "agent_error"
    assert traj.success == 0.0 and traj.metadata["checker_score"] == 1.0
    last = traj.steps[-1]
    assert last.action is None and "RuntimeError: model exploded" in last.error
    assert "Traceback" in last.agent_info["traceback"]


def test_agent_returning_wrong_type_is_an_agent_error() -> None:
    class Bad(ScriptedAgent):
        def act(self, observation, history):  # type: ignore[override]
            return {"action_type": "click"}

    task, env = _tap()
    traj = run_episode(Bad([]), env, task)
    assert traj.metadata["termination"] == "agent_error"
    assert "expected AgentOutput" in traj.steps[0].error


def test_lost_device_propagates() -> None:
    task = TapTemplate().instantiate(0)
    env = FakeEnv(task, 0, fail_after=1)
    with pytest.raises(DeviceLostError):
        run_episode(ScriptedAgent([INC, INC, INC]), env, task)


def test_answer_continues_until_status_by_default() -> None:
    task = CountQueryTemplate().instantiate(3)
    env = FakeEnv(task, 3)
    right = str(task.params["start"])
    traj = run_episode(ScriptedAgent([Action(action_type="answer", text="nope"),
                                      Action(action_type="answer", text=right), DONE]), env, task)
    assert traj.answer == right and env.last_answer == right
    assert traj.success == 1.0 and len(traj.steps) == 3
    # answer without declaring done: fails
    env2 = FakeEnv(task, 3)
    traj2 = run_episode(ScriptedAgent([Action(action_type="answer", text=right)]), env2, task, max_steps=3)
    assert traj2.answer == right and traj2.success == 0.0 and traj2.metadata["checker_score"] == 1.0


def test_answer_ends_episode_option() -> None:
    task = CountQueryTemplate().instantiate(3)
    traj = run_episode(ScriptedAgent([Action(action_type="answer", text=str(task.params["start"])), INC]),
                       FakeEnv(task, 3), task, answer_ends_episode=True)
    assert len(traj.steps) == 1 and traj.metadata["termination"] == "answer" and traj.success == 1.0


def test_without_phone_state_success_is_none() -> None:
    class DeviceEnv:  # an adb-like env: same screens, no phone state exposed
        def __init__(self, task):
            self._inner = FakeEnv(task, 0)
            self.last_answer = None

        def reset(self, *, go_home=True):
            return self._inner.reset()

        def observe(self):
            return self._inner.observe()

        def step(self, action):
            return self._inner.step(action)

        def close(self):
            pass

    task = TapTemplate().instantiate(0)
    env = DeviceEnv(task)
    traj = run_episode(NoopAgent(), env, task)
    assert traj.declared_done and traj.success is None and traj.metadata["checker_score"] is None


def test_checker_bug_is_reported_not_lost() -> None:
    class Broken(TapTemplate):
        name = "broken"

        def is_successful(self, phone, params, answer):  # type: ignore[override]
            raise KeyError("no such table")

    task = Broken().instantiate(0)
    traj = run_episode(NoopAgent(), FakeEnv(task, 0), task)
    assert traj.success is None and "KeyError" in traj.metadata["checker_error"]


def test_oracle_is_bound_by_runner_and_finishes_query_tasks() -> None:
    for tmpl in (TapTemplate(), CountQueryTemplate()):
        for seed in range(5):
            task = tmpl.instantiate(seed)
            traj = run_episode(OracleAgent(), FakeEnv(task, seed), task)
            assert traj.success == 1.0, (tmpl.name, seed, [s.action for s in traj.steps])
    q = CountQueryTemplate().instantiate(0)
    traj = run_episode(OracleAgent(), FakeEnv(q, 0), q)
    assert [s.action.action_type for s in traj.steps] == ["answer", "status"]


def test_oracle_without_phone_or_with_wrong_goal_raises() -> None:
    task = TapTemplate().instantiate(0)
    agent = OracleAgent(task, env_getter=lambda: object())
    agent.reset(task.goal)
    with pytest.raises(TaskError, match="phone"):
        agent.act(FakeEnv(task).reset(), [])
    with pytest.raises(TaskError, match="bound to task"):
        agent.reset("another goal")
