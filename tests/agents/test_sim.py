"""The agents drive the simulator through Observations only (no backend-specific access)."""

from __future__ import annotations

from agent_doubles import RuleLLM

from droidverify.actions.model import Action
from droidverify.actions.validate import validate_action
from droidverify.agents import GeneratorAgent, VerifierAgent, extract_candidates
from droidverify.agents.screen import needs_completion
from droidverify.env.records import Step
from droidverify.env.sim.env import SimEnv


def _run(agent, env, steps):
    obs = env.reset()
    history: list[Step] = []
    for i in range(steps):
        out = agent.act(obs, history)
        assert out.action is not None
        validate_action(out.action, obs.elements, screen_size=obs.screen_size)
        history.append(Step(index=i, observation=obs, action=out.action, agent_info=out.info))
        obs = env.step(out.action)
    return history, obs


def test_sim_home_screen_candidates_are_valid():
    obs = SimEnv(seed=0).reset()
    cands = extract_candidates(obs)
    apps_list = next(i for i, e in enumerate(obs.elements) if e.label == "Apps list")
    assert Action(action_type="click", index=apps_list) in cands
    for c in cands:
        if not needs_completion(c):
            validate_action(c, obs.elements, screen_size=obs.screen_size)


def test_verifier_two_steps_on_sim_with_memory_and_completion():
    llm = RuleLLM(rules={"Apps list": 0.95, "type text into": 0.9}, replies=["Clock"])
    agent = VerifierAgent(llm, memory="diff")
    agent.reset("Open the Clock app")
    history, obs = _run(agent, SimEnv(seed=0), 2)
    assert history[0].action.action_type == "click"
    second = history[1]
    assert second.action.action_type == "input_text" and second.action.text == "Clock"
    assert second.agent_info["memory"].startswith("Step 1: click <button id=1 onclick>Apps list</button>")
    assert "disappeared" in second.agent_info["memory"]
    field = obs.elements[second.action.index]
    assert field.text == "Clock"  # the simulator executed the completed action


def test_generator_step_on_sim():
    llm = RuleLLM(replies=['Open the app drawer.\nAction: {"action_type": "click", "index": 1}'])
    agent = GeneratorAgent(llm)
    agent.reset("Open the Clock app")
    history, _ = _run(agent, SimEnv(seed=0), 1)
    assert history[0].action == Action(action_type="click", index=1)
