"""One success rule (issue 10, design): the runner and the gym adapter share episode_end/episode_success."""

from __future__ import annotations

import pytest

from droidverify.actions.model import Action
from droidverify.env.records import episode_end, episode_success
from droidverify.env.sim import SimEnv
from droidverify.runner.episode import run_episode
from droidverify.runner.gym import DroidSimGymEnv
from droidverify.tasks import registry

ACTIONS = [Action(action_type="status", goal_status="complete"),
           Action(action_type="status", goal_status="infeasible"),
           Action(action_type="submit", text="done", evidences=()),
           Action(action_type="answer", text="x"),
           Action(action_type="wait")]


def test_the_rule() -> None:
    assert [episode_end(a) for a in ACTIONS] == [(True, True), (True, False), (True, True),
                                                 (False, False), (False, False)]
    assert episode_end(ACTIONS[3], answer_ends_episode=True) == (True, True)
    assert episode_success(None, True) is None
    assert episode_success(1.0, False) == 0.0 and episode_success(0.5, True) == 0.5


class _Replay:
    name = "replay"

    def __init__(self, actions: list[Action]) -> None:
        self.actions = actions

    def reset(self, goal: str) -> None:
        self.i = 0

    def act(self, obs, history):
        from droidverify.agents.base import AgentOutput

        a = self.actions[min(self.i, len(self.actions) - 1)]
        self.i += 1
        return AgentOutput(action=a)


@pytest.mark.parametrize("final", [0, 1, 2, 3])
def test_runner_and_gym_agree_on_every_ending(final: int) -> None:
    tmpl = registry.get_template("settings_wifi_toggle")
    task = tmpl.instantiate(0)
    env = SimEnv(task=task, seed=0)
    obs = env.reset()
    path = []
    while True:  # the oracle's path to the goal, then the ending under test
        a = task.oracle_action(env.phone, obs)
        if a.is_terminal or a.action_type == "answer":
            break
        path.append(a)
        obs = env.step(a)
    env.close()
    actions = [*path, ACTIONS[final]]
    traj = run_episode(_Replay(actions), SimEnv(task=task, seed=0), task, answer_ends_episode=True,
                       max_steps=len(actions))
    gym = DroidSimGymEnv(tasks=[tmpl.name], seeds=[0])
    gym.reset(seed=0)
    reward = 0.0
    for a in actions:
        _, reward, _, _, _ = gym.step(a.to_json())
    gym.close()
    assert reward == (traj.success or 0.0)
    assert reward == (1.0 if final in (0, 2, 3) else 0.0)
