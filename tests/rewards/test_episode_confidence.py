"""benchmarks/episode_confidence.py: the agent's own per-step probabilities, read from the candidate
scores a verifier agent records, and the logistic fit that asks whether a judge adds anything."""

from __future__ import annotations

import math

import numpy as np
import pytest
from rewards_doubles import load_benchmark

from droidverify.actions.model import Action
from droidverify.env.records import Observation, Step, Trajectory

XML = '<hierarchy rotation="0"><node class="android.widget.FrameLayout" bounds="[0,0][100,100]"/></hierarchy>'


def step(i: int, scores: list[float] | None, chosen: int | None) -> Step:
    info = None if scores is None else {
        "candidates": [{"action": "{}", "description": f"c{k}", "score": s} for k, s in enumerate(scores)],
        "chosen": chosen}
    return Step(index=i, observation=Observation(xml=XML), action=Action(action_type="wait"), agent_info=info)


def test_signals_read_the_probability_of_the_action_played() -> None:
    bench = load_benchmark("episode_confidence")
    # log-probability scores: softmax gives them back; the second step played its less likely action
    traj = Trajectory(task_id="t", goal="g", steps=[step(0, [math.log(0.8), math.log(0.2)], 0),
                                                    step(1, [math.log(0.5), math.log(0.25), math.log(0.25)], 2)])
    per_step = bench.played_probabilities(traj)
    assert [p for p, _ in per_step] == pytest.approx([0.8, 0.25])
    h = -(0.5 * math.log(0.5) + 2 * 0.25 * math.log(0.25)) / math.log(3)
    assert per_step[1][1] == pytest.approx(h)
    sig = bench.signals(traj)
    assert sig["log P(episode)"] == pytest.approx(math.log(0.8) + math.log(0.25))
    assert sig["min P(played)"] == pytest.approx(0.25) and sig["P(final action)"] == pytest.approx(0.25)
    assert set(sig) == set(bench.SIGNALS)
    # not a verifier agent's episode (no scores), or a chosen index out of range: left out, never guessed
    assert bench.signals(Trajectory(task_id="t", goal="g", steps=[step(0, None, None)])) is None
    assert bench.signals(Trajectory(task_id="t", goal="g", steps=[step(0, [0.0, 1.0], 5)])) is None


def test_the_logistic_fit_separates_what_it_can() -> None:
    bench = load_benchmark("episode_confidence")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 3))
    y = (x[:, 0] - 0.5 * x[:, 2] > 0).astype(np.float64)
    scorer = bench.fit_logistic(x, y)
    assert np.mean((scorer(x) > 0) == (y > 0)) > 0.95
