"""Verifier and generator agents driven by a deterministic LLM double through ``run_many``, on the
simulator and on the adb backend (a recording shell replaying a real uiautomator dump).

Checks what a user of a run directory relies on: every step recorded with what the agent saw and
why it chose (candidates + scores + entropy / raw output + attempts), the episode line, the
summary, trajectories that reload, and - on adb - the exact commands the chosen actions sent.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from e2e_helpers import PlannedLLM, RuleLLM, action_commands

from droidverify.actions.model import Action
from droidverify.agents.generator import GeneratorAgent
from droidverify.agents.verifier import VerifierAgent
from droidverify.cli.run import installed_app_names
from droidverify.env.sim import SimEnv
from droidverify.runner.run import run_many
from droidverify.runner.store import load_trajectories
from droidverify.tasks import registry

TASK = "clock_turn_off_alarm"  # starts on the launcher; the alarm is on


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _sim(task, seed):
    return SimEnv(task=task, seed=seed)


def _run(factory, out: Path, env_factory, max_steps: int):
    return run_many(factory, [(registry.get_template(TASK), 0)], out, env_factory=env_factory,
                    progress=False, max_steps=max_steps, report=False)


def _check_run_files(out: Path, n_steps: int) -> tuple[list[dict], dict]:
    steps = [r for r in _lines(out / "steps.jsonl") if r["kind"] == "step"]
    assert [r["index"] for r in steps] == list(range(n_steps))
    (episode,) = _lines(out / "episodes.jsonl")
    assert episode["n_steps"] == n_steps and episode["task_id"] == TASK
    summary = json.loads((out / "summary.json").read_text())
    assert summary["overall"]["episodes"] == 1
    (traj,) = load_trajectories(out)
    assert len(traj.steps) == n_steps
    assert [s.action for s in traj.steps] == [Action.model_validate(r["step"]["action"]) for r in steps]
    return steps, episode


# ------------------------------------------------------------------------------- simulator


def test_verifier_on_simulator_through_runner(tmp_path: Path) -> None:
    apps = installed_app_names("sim")
    llm = PlannedLLM([{"open an app": 0.95}, {"go back to the previous screen": 0.9},
                      {"declare the task complete": 0.9}], replies=["Clock"])
    _run(lambda: VerifierAgent(llm, apps=apps), tmp_path, _sim, max_steps=5)
    steps, episode = _check_run_files(tmp_path, 3)
    assert [json.dumps(r["step"]["action"], sort_keys=True) for r in steps] == [
        json.dumps(a.model_dump(exclude_none=True), sort_keys=True) for a in (
            Action(action_type="open_app", app_name="Clock"), Action(action_type="navigate_back"),
            Action(action_type="status", goal_status="complete"))]
    # The simulator executed the completed open_app: the next screen is the Clock app.
    assert steps[1]["step"]["observation"]["package"] == "com.google.android.deskclock"
    for r in steps:
        info = r["step"]["agent_info"]
        assert info["n_candidates"] == len(info["candidates"]) > 5
        assert all(0.0 <= c["score"] <= 1.0 and "logprob_yes" in c for c in info["candidates"])
        scores = [c["score"] for c in info["candidates"]]
        assert info["candidates"][info["chosen"]]["score"] == max(scores)
        assert 0.0 < info["entropy"] <= math.log(len(scores)) + 1e-9
    # open_app was completed from the environment's installed apps, not the task's app only.
    assert steps[0]["step"]["agent_info"]["completion"]["value"] == "Clock"
    assert steps[0]["step"]["raw_output"] == "Clock"
    question = llm.generate_calls[0][-1]["content"]
    assert "Known apps: " + ", ".join(apps) + "." in question and len(apps) == 9
    # Declared done, but the alarm is still on: the checker says no, so not solved.
    assert episode["termination"] == "complete" and episode["declared_done"] is True
    assert episode["success"] == 0.0 and episode["checker_score"] == 0.0


def test_generator_on_simulator_through_runner(tmp_path: Path) -> None:
    home = SimEnv(task=registry.get_template(TASK).instantiate(0), seed=0).reset()
    clock = next(i for i, e in enumerate(home.elements) if e.text == "Clock" and e.is_clickable)
    replies = ["I am not sure.",  # untrusted output: no action at all -> fed back once
               f'The Clock app has the alarm.\nAction: {{"action_type": "click", "index": {clock}}}',
               'Action: {"action_type": "status", "goal_status": "infeasible"}']
    llm = RuleLLM(replies=replies)
    _run(lambda: GeneratorAgent(llm), tmp_path, _sim, max_steps=5)
    steps, episode = _check_run_files(tmp_path, 2)
    first = steps[0]["step"]
    assert first["action"] == {"action_type": "click", "index": clock}
    assert [a["raw"] for a in first["agent_info"]["attempts"]] == replies[:2]
    assert first["agent_info"]["attempts"][0]["error"] and first["agent_info"]["attempts"][1]["error"] is None
    assert first["raw_output"] == replies[1]
    assert steps[1]["step"]["observation"]["package"] == "com.google.android.deskclock"
    assert steps[1]["step"]["raw_output"] == replies[2]
    assert episode["termination"] == "infeasible" and episode["declared_done"] is False
    assert episode["success"] == 0.0


# ------------------------------------------------------------------------------- adb (recorded)


def test_verifier_on_adb_sends_the_chosen_actions(tmp_path: Path, adb_factory) -> None:
    factory, shells = adb_factory
    apps = installed_app_names("adb")
    llm = PlannedLLM([{">Browser<": 0.95}, {"open an app": 0.95}, {"go to the home screen": 0.9},
                      {"declare the task complete": 0.9}], replies=["clock"])
    _run(lambda: VerifierAgent(llm, apps=apps), tmp_path, factory, max_steps=6)
    steps, episode = _check_run_files(tmp_path, 4)
    assert [r["step"]["action"]["action_type"] for r in steps] == ["click", "open_app", "navigate_home",
                                                                  "status"]
    browser = steps[0]["step"]["action"]["index"]
    assert "Browser" in steps[0]["step"]["agent_info"]["candidates"][steps[0]["step"]["agent_info"]["chosen"]][
        "description"]
    assert steps[1]["step"]["action"]["app_name"] == "Clock"  # "clock" matched to the adb app table
    (shell,) = shells
    assert action_commands(shell) == [
        "input keyevent KEYCODE_HOME",  # reset
        "input tap 432 753",  # Browser: bounds [384,706][480,800] -> centre
        "am start -n com.google.android.deskclock/com.android.deskclock.DeskClock",
        "input keyevent KEYCODE_HOME",
    ]  # status complete sends nothing
    assert browser == 9
    # A device has no simulator state: the episode cannot be scored.
    assert episode["declared_done"] is True and episode["success"] is None


def test_generator_on_adb_sends_the_chosen_actions(tmp_path: Path, adb_factory) -> None:
    factory, shells = adb_factory
    replies = ['Open People.\nAction: {"action_type": "click", "index": 6}',
               'Action: {"action_type": "click", "index": 99}',  # out of range -> fed back once
               'Hold Phone.\nAction: {"action_type": "long_press", "index": 5}',
               'Action: {"action_type": "scroll", "direction": "down"}',
               'Action: {"action_type": "status", "goal_status": "complete"}']
    llm = RuleLLM(replies=list(replies))
    _run(lambda: GeneratorAgent(llm), tmp_path, factory, max_steps=6)
    steps, episode = _check_run_files(tmp_path, 4)
    attempts = steps[1]["step"]["agent_info"]["attempts"]
    assert [a["raw"] for a in attempts] == replies[1:3] and "99" in attempts[0]["error"]
    assert [r["step"]["raw_output"] for r in steps] == [replies[0], replies[2], replies[3], replies[4]]
    (shell,) = shells
    assert action_commands(shell) == [
        "input keyevent KEYCODE_HOME",  # reset
        "input tap 144 753",  # People: [96,706][192,800]
        "input swipe 48 753 48 753 1000",  # long press on Phone: [0,706][96,800]
        "input swipe 240 640 240 160 500",  # scroll down: finger moves up 60% of the screen height
    ]
    assert episode["termination"] == "complete" and episode["success"] is None
