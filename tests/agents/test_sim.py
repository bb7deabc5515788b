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
    first = history[0]
    apps_list = next(i for i, e in enumerate(first.observation.elements) if e.label == "Apps list")
    assert first.action == Action(action_type="click", index=apps_list)
    second = history[1]
    assert second.action.action_type == "input_text" and second.action.text == "Clock"
    memory = second.agent_info["memory"]
    assert memory.startswith(f"Step 1: click <button id={apps_list} onclick>Apps list</button> -> ")
    assert "'Apps list'" in memory.split(" -> ")[1]  # the diff saw the home screen go away
    field = obs.elements[second.action.index]
    assert field.text == "Clock"  # the simulator executed the completed action


def test_generator_step_on_sim():
    env = SimEnv(seed=0)
    home = env.reset()
    idx = next(i for i, e in enumerate(home.elements) if e.label == "Apps list")
    llm = RuleLLM(replies=[f'Open the app drawer.\nAction: {{"action_type": "click", "index": {idx}}}'])
    agent = GeneratorAgent(llm)
    agent.reset("Open the Clock app")
    history, after = _run(agent, env, 1)
    assert history[0].action == Action(action_type="click", index=idx)
    assert not any(e.label == "Apps list" for e in after.elements)
