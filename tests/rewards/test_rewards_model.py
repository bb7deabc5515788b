"""Each LLM judge once with the bundled SmolLM2-135M (tiny outputs: this checks the plumbing with a
real model -- prompts fit, replies are parsed or marked undecided -- not the model's judgement)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def llm():
    from droidverify.llm.registry import load_llm

    return load_llm(None)


def test_every_llm_judge_runs_once_with_the_bundled_model(llm, labelled_items) -> None:
    from droidverify.rewards.passive import PassiveJudge
    from droidverify.rewards.prore import ProReJudge
    from droidverify.rewards.see import SemanticEstimator
    from droidverify.rewards.smartsnap import EvidenceJudge

    sv = next(it for it in labelled_items if it.variant == "sv_correct").trajectory
    for j in [PassiveJudge(llm, max_tokens=8, max_chars=3000).judge(sv),
              EvidenceJudge(llm, votes=1, max_tokens=8).judge(sv),
              ProReJudge(llm, k=1, max_probe_steps=1, max_tokens=8).judge(sv)]:
        assert j.outcome in ("success", "failure", "undecided")
        assert j.tokens_in > 0 and j.raw_outputs
        if j.outcome != "undecided":
            assert j.parse_status in ("strict", "tolerant")
    est = SemanticEstimator(llm, max_tokens=8)
    step = sv.steps[0]
    from droidverify.actions.model import Action

    r = est.similarity(step.observation, step.action, Action(action_type="navigate_home"))
    assert -1.0 <= r <= 1.0
