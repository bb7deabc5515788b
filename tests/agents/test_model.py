"""One step of each agent with the real bundled SmolLM2-135M on a real dump."""

from __future__ import annotations

import math

import pytest
from agent_doubles import dump_observation

from droidverify.actions.validate import validate_action
from droidverify.agents import GeneratorAgent, VerifierAgent, extract_candidates


@pytest.fixture(scope="module")
def real_llm():
    from droidverify.llm.local import LocalLLM

    return LocalLLM()


@pytest.mark.model
def test_verifier_step_real_model(real_llm):
    obs = dump_observation("xiaocong_uiautomator__launcher_deskclock_widget.xml")
    agent = VerifierAgent(real_llm, memory="diff", apps=["Phone", "People", "Messaging", "Browser"])
    agent.reset("Open the Phone app")
    out = agent.act(obs, [])
    assert out.action is not None
    validate_action(out.action, obs.elements, screen_size=obs.screen_size)
    info = out.info
    assert info["n_candidates"] == len(extract_candidates(obs, apps=agent.apps)) == len(info["candidates"])
    for c in info["candidates"]:
        assert 0.0 <= c["score"] <= 1.0 and math.isfinite(c["logprob_yes"])
    assert len({round(c["score"], 6) for c in info["candidates"]}) > 1  # the model discriminates
    assert 0 < info["entropy"] <= math.log(info["n_candidates"]) + 1e-9
    assert info["prefix_tokens"] > 100 and out.usage.prompt_tokens > 0
    if out.action.action_type == "open_app":
        assert out.action.app_name in agent.apps


@pytest.mark.model
def test_prefix_split_with_real_chat_template(real_llm):
    from droidverify.agents.screen import describe_ui
    from droidverify.agents.verifier.prompt import (
        build_messages,
        build_verification_prompt,
        candidate_question,
    )

    obs = dump_observation("mobile-env__gmail_welcome.xml")
    descs = ["click <button id=2 onclick>GOT IT</button>", "go back to the previous screen"]
    vp = build_verification_prompt(real_llm, goal="g", memory="m", ui=describe_ui(obs), descriptions=descs)
    for d, cont in zip(descs, vp.continuations, strict=True):
        full = real_llm.render_chat(build_messages("g", "m", describe_ui(obs), candidate_question(d)))
        assert vp.prefix + cont == full


@pytest.mark.model
def test_generator_step_real_model(real_llm):
    obs = dump_observation("mobile-env__gmail_welcome.xml")
    agent = GeneratorAgent(real_llm, max_tokens=64)
    agent.reset("Dismiss the welcome screen")
    out = agent.act(obs, [])
    assert out.action is not None
    validate_action(out.action, obs.elements, screen_size=obs.screen_size)
    assert 1 <= len(out.info["attempts"]) <= 2 and out.usage.completion_tokens > 0
    if out.info["fallback_wait"]:
        assert out.action.action_type == "wait" and out.error
