"""Gymnasium adapter: passes the env checker, parses JSON actions, rewards only declared success."""

from __future__ import annotations

import json
import warnings

from gymnasium.utils.env_checker import check_env

from droidverify.runner.gym import DroidSimGymEnv
from droidverify.tasks import registry


def test_passes_gymnasium_env_checker() -> None:
    env = DroidSimGymEnv(tasks=["settings_wifi_toggle", "clock_start_stopwatch"], seeds=range(5))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any checker warning fails the test
        check_env(env, skip_render_check=True)


def test_oracle_actions_as_json_earn_reward_and_garbage_does_not_crash() -> None:
    env = DroidSimGymEnv(tasks=["settings_dark_theme_toggle"], seeds=[3])
    text, info = env.reset(seed=0)
    assert text.startswith("Goal: Turn ") and info["task"] == "settings_dark_theme_toggle"
    _, reward, term, trunc, info = env.step("please tap the thing")
    assert reward == 0.0 and not term and "error" in info
    _, _, _, _, info = env.step(json.dumps({"action_type": "click", "index": 999}))
    assert "out of range" in info["error"]
    task = registry.get_template("settings_dark_theme_toggle").instantiate(3)
    for _ in range(20):
        act = task.oracle_action(env.sim.phone, env.sim.last_observation)
        text, reward, term, trunc, info = env.step(act.to_json())
        if term:
            break
    assert term and reward == 1.0 and not trunc


def test_truncates_at_max_steps_with_zero_reward() -> None:
    env = DroidSimGymEnv(tasks=["clock_start_stopwatch"], seeds=[0], max_steps=3)
    env.reset(seed=1)
    results = [env.step('{"action_type": "wait"}') for _ in range(3)]
    assert [r[3] for r in results] == [False, False, True] and all(r[1] == 0.0 for r in results)
    frame = DroidSimGymEnv(tasks=["clock_start_stopwatch"], seeds=[0], render_mode="rgb_array")
    frame.reset(seed=0)
    assert frame.render().shape == (600, 270, 3)
