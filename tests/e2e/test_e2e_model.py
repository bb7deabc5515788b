"""One recorded run of each LLM agent with the real bundled SmolLM2-135M through ``run_many`` on
the simulator (1 task x 1 seed, 3 steps at most). The untrained model's choices are not asserted;
that every step is recorded with its evidence, and that the run directory reloads, is."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from droidverify.actions.validate import validate_action
from droidverify.agents.generator import GeneratorAgent
from droidverify.agents.verifier import VerifierAgent
from droidverify.cli.run import installed_app_names
from droidverify.env.records import Observation
from droidverify.env.sim import SimEnv
from droidverify.runner.run import run_many
from droidverify.runner.store import load_trajectories
from droidverify.tasks import registry

TASK = "clock_turn_off_alarm"
MAX_STEPS = 3


@pytest.fixture(scope="module")
def llm():
    from droidverify.llm.local import LocalLLM

    return LocalLLM(dtype="auto")


def _run(factory, out: Path) -> tuple[list[dict], dict]:
    summary = run_many(factory, [(registry.get_template(TASK), 0)], out,
                       env_factory=lambda task, seed: SimEnv(task=task, seed=seed),
                       progress=False, max_steps=MAX_STEPS)
    assert summary.ran == 1 and (out / "summary.json").is_file() and (out / "report.html").is_file()
    assert json.loads((out / "summary.json").read_text())["overall"]["episodes"] == 1
    records = [json.loads(x) for x in (out / "steps.jsonl").read_text().splitlines()]
    steps = [r["step"] for r in records if r["kind"] == "step"]
    (episode,) = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]
    # Every agent call is a step; the episode ends at the limit unless the agent declared an end.
    assert len(steps) == episode["n_steps"] and 1 <= len(steps) <= MAX_STEPS
    assert [s["index"] for s in steps] == list(range(len(steps)))
    if len(steps) < MAX_STEPS:
        assert episode["termination"] in ("complete", "infeasible")
    (traj,) = load_trajectories(out)
    assert len(traj.steps) == len(steps) and traj.task_id == TASK
    for s, rec in zip(traj.steps, steps, strict=True):
        assert s.action is not None and s.action.model_dump(exclude_none=True) == rec["action"]
        if s.action.action_type not in ("status", "answer"):
            validate_action(s.action, s.observation.elements, screen_size=s.observation.screen_size)
    assert isinstance(traj.final_observation, Observation)
    return steps, episode


@pytest.mark.model
def test_verifier_recorded_run_real_model(llm, tmp_path: Path) -> None:
    apps = installed_app_names("sim")
    steps, episode = _run(lambda: VerifierAgent(llm, apps=apps), tmp_path)
    for s in steps:
        info = s["agent_info"]
        cands = info["candidates"]
        assert info["n_candidates"] == len(cands) > 5 and info["prefix_tokens"] > 100
        assert all(0.0 <= c["score"] <= 1.0 and math.isfinite(c["logprob_yes"])
                   and math.isfinite(c["logprob_no"]) and c["description"] for c in cands)
        assert cands[info["argmax"]]["score"] == max(c["score"] for c in cands)
        assert 0.0 < info["entropy"] <= math.log(len(cands)) + 1e-9
        assert s["usage"]["prompt_tokens"] > s["usage"]["cached_tokens"] > 0
        if s["action"]["action_type"] == "open_app":
            assert s["action"]["app_name"] in apps
    assert episode["usage"]["prompt_tokens"] == sum(s["usage"]["prompt_tokens"] for s in steps)


@pytest.mark.model
def test_generator_recorded_run_real_model(llm, tmp_path: Path) -> None:
    steps, _ = _run(lambda: GeneratorAgent(llm, max_tokens=48), tmp_path)
    for s in steps:
        attempts = s["agent_info"]["attempts"]
        assert 1 <= len(attempts) <= 2 and s["raw_output"] == attempts[-1]["raw"]
        assert s["usage"]["completion_tokens"] > 0
        if s["agent_info"]["fallback_wait"]:  # the model's output was unusable twice
            assert s["action"] == {"action_type": "wait"} and s["error"]
            assert all(a["error"] for a in attempts)
        else:
            assert attempts[-1]["error"] is None
