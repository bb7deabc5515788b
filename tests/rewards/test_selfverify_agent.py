from __future__ import annotations

from rewards_doubles import ScriptedLLM

from droidverify.actions.model import Action
from droidverify.agents.selfverify import SelfVerifyingAgent
from droidverify.env.sim import SimEnv
from droidverify.rewards.smartsnap import check_submit
from droidverify.runner.episode import run_episode
from droidverify.tasks import registry


def test_runs_to_a_submit_with_numbered_rounds_and_valid_evidence() -> None:
    task = registry.get_template("clock_create_alarm").instantiate(0)
    llm = ScriptedLLM([
        'Open the clock. Action: {"action_type": "open_app", "app_name": "Clock"}',
        'Done, I think. Action: {"action_type": "status", "goal_status": "complete"}',  # refused
        'Prove it. Action: {"action_type": "submit", "text": "alarm set", "evidences": [7]}',  # bad id
        'Prove it. Action: {"action_type": "submit", "text": "alarm set", "evidences": [0]}',
    ])
    agent = SelfVerifyingAgent(llm, memory="history")
    traj = run_episode(agent, SimEnv(task=task, seed=0), task)
    assert traj.metadata["termination"] == "submit" and traj.declared_done
    last = traj.steps[-1]
    assert last.action == Action(action_type="submit", text="alarm set", evidences=(0,))
    assert check_submit(traj).ok
    # status complete and an out-of-range evidence id were both fed back as errors
    errors = [s.agent_info["attempts"] for s in traj.steps]
    assert "submit" in errors[1][0]["error"] and "evidence id 7" in errors[1][1]["error"]
    assert traj.steps[1].action == Action(action_type="wait")  # both attempts unusable: waited
    prompts = [c["messages"][-1]["content"] for c in llm.calls]
    assert "This is round 0." in prompts[0] and "Round 0:" in prompts[-1] and "This is round 2." in prompts[-1]
    system = llm.calls[0]["messages"][0]["content"]
    assert "Conciseness" in system and '"action_type": "submit"' in system
    assert '"goal_status": "complete"' not in system
