from __future__ import annotations

import pytest
from fakes import FakeEnv, TapTemplate, pairs

from droidverify.agents.random import NoopAgent, RandomAgent
from droidverify.errors import DroidVerifyError, RunError
from droidverify.runner.episode import run_episode
from droidverify.runner.run import run_many


def _actions(agent, seed: int = 0) -> list[str]:
    task = TapTemplate().instantiate(seed)
    traj = run_episode(agent, FakeEnv(task, seed), task, max_steps=30)
    return [s.action.to_json() for s in traj.steps]


def test_random_agent_is_deterministic_per_seed_and_goal() -> None:
    a = _actions(RandomAgent(1, apps=["Counter"], p_complete=0.0))
    assert a == _actions(RandomAgent(1, apps=["Counter"], p_complete=0.0))
    assert a != _actions(RandomAgent(2, apps=["Counter"], p_complete=0.0))
    # the same agent object replays an episode identically after reset
    agent = RandomAgent(1, apps=["Counter"], p_complete=0.0)
    assert _actions(agent) == _actions(agent) == a


def test_random_agent_uses_every_kind_of_simple_action() -> None:
    acts = "".join(_actions(RandomAgent(3, apps=["Counter"], p_complete=0.0)) * 1)
    acts += "".join(_actions(RandomAgent(4, apps=["Counter"], p_complete=0.0)))
    for kind in ("click", "input_text", "navigate_back", "navigate_home", "open_app"):
        assert f'"action_type":"{kind}"' in acts
    # never a non-clickable element: the counter label is element 3
    assert '"index":3' not in acts


def test_random_agent_candidates_follow_the_screen() -> None:
    obs = FakeEnv(TapTemplate().instantiate(0)).reset()
    cands = RandomAgent(0, apps=["A", "B"]).candidates(obs)
    kinds = sorted(c.action_type for c in cands)
    assert kinds == ["click", "click", "input_text", "navigate_back", "navigate_home", "open_app", "open_app"]


def test_random_agent_completes_with_given_probability() -> None:
    assert _actions(RandomAgent(0, p_complete=1.0)) == ['{"action_type":"status","goal_status":"complete"}']
    with pytest.raises(DroidVerifyError, match="p_complete"):
        RandomAgent(0, p_complete=1.5)


def test_noop_agent_scores_zero(tmp_path) -> None:
    s = run_many(NoopAgent, pairs(range(3)), tmp_path, env_factory=FakeEnv, progress=False)
    assert s.overall.episodes == 6 and s.success_rate == 0.0
    assert s.overall.mean_steps == 1.0


def test_bad_max_steps_is_a_typed_error() -> None:
    task = TapTemplate().instantiate(0)
    with pytest.raises(RunError, match="max_steps"):
        run_episode(NoopAgent(), FakeEnv(task), task, max_steps=0)
