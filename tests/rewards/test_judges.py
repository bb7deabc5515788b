from __future__ import annotations

import json

import pytest
from rewards_doubles import ScriptedLLM, reply

from droidverify.errors import LLMServerError, LLMTimeoutError
from droidverify.rewards.base import Judgement
from droidverify.rewards.metrics import agreement, roc_auc
from droidverify.rewards.passive import PassiveJudge
from droidverify.rewards.prompts import evidence, passive, prore, see
from droidverify.rewards.prompts.common import PREAMBLE
from droidverify.rewards.rule import RuleJudge
from droidverify.rewards.store import JudgementStore, judge_all, read_judgements


def test_rule_judge_agrees_with_every_label(labelled_items) -> None:
    judge = RuleJudge()
    for it in labelled_items:
        j = judge.judge(it.trajectory)
        assert j.components["source"] == "final_phone_state"
        assert (j.outcome == "success") == it.label, it.id


def test_rule_judge_without_any_checker_result_is_undecided() -> None:
    from droidverify.env.records import Trajectory

    bare = Trajectory(task_id="contacts_add_contact", goal="x", seed=0)
    assert RuleJudge().judge(bare).outcome == "undecided"
    damaged = Trajectory(task_id="contacts_add_contact", goal="x", seed=0,
                         metadata={"final_phone_state": "not base64 !!"})
    j = RuleJudge().judge(damaged)
    assert j.outcome == "undecided" and "PhoneStateError" in (j.error or "")


def test_passive_judge_readings(labelled_items) -> None:
    traj = labelled_items[0].trajectory
    for text, outcome, status in [
        (reply("SUCCESS"), "success", "strict"),
        ("Verdict: failure", "failure", "tolerant"),
        ("The agent did everything right!", "undecided", "failed"),
        ("<verdict>SUCCESS</verdict> no wait <verdict>FAILURE</verdict>", "undecided", "failed"),
        ("x" * 200_000, "undecided", "failed"),
    ]:
        j = PassiveJudge(ScriptedLLM([text])).judge(traj)
        assert (j.outcome, j.parse_status) == (outcome, status), text[:60]
        assert j.reward == (1.0 if outcome == "success" else 0.0)
        assert len(j.raw_outputs[0]) <= 20_100  # huge replies are stored clipped


@pytest.mark.parametrize("exc", [LLMServerError("bad request", status=400), ValueError("backend bug")])
def test_errored_passive_judge_is_undecided(labelled_items, exc) -> None:
    j = PassiveJudge(ScriptedLLM([exc])).judge(labelled_items[0].trajectory)
    assert j.outcome == "undecided" and j.parse_status == "error" and j.error


def test_infrastructure_failures_propagate(labelled_items) -> None:
    # a server that is down is not a verdict: the judging run stops, a rerun retries
    with pytest.raises(LLMTimeoutError):
        PassiveJudge(ScriptedLLM([LLMTimeoutError("slow")])).judge(labelled_items[0].trajectory)


def test_passive_prompt_holds_the_whole_episode_within_budget(labelled_items) -> None:
    traj = max(labelled_items, key=lambda it: len(it.trajectory.steps)).trajectory
    msgs = passive.build_messages(traj, max_chars=4000)
    user = msgs[-1]["content"]
    assert len(user) <= 4000 or "Round 0 -- screen" not in user
    for i in range(len(traj.steps)):
        assert f"Round {i} -- action:" in user  # actions are never dropped
    assert "Final screen:" in user


def test_judge_prompts_share_a_byte_identical_prefix(labelled_items) -> None:
    a, b = labelled_items[0].trajectory, labelled_items[-1].trajectory
    llm = ScriptedLLM(["x"])
    ra = llm.render_chat(passive.build_messages(a))
    rb = llm.render_chat(passive.build_messages(b))
    system = llm.render_chat(passive.build_messages(a)[:1], add_generation_prompt=False)
    assert ra.startswith(system) and rb.startswith(system)
    for system_text in (passive.SYSTEM, evidence.SYSTEM, prore.REASONER_SYSTEM, prore.CLAIMS_SYSTEM,
                        prore.JUDGE_SYSTEM):
        assert system_text.startswith(PREAMBLE)
    assert {passive.VERSION, evidence.VERSION, prore.VERSION, see.VERSION} == {
        "passive-v1", "evidence-v1", "prore-v1", "see-v1"}


def test_store_resumes_and_survives_a_torn_line(tmp_path, labelled_items) -> None:
    trajs = [it.trajectory for it in labelled_items[:4]]
    path = tmp_path / "judgements.jsonl"
    llm = ScriptedLLM([reply("SUCCESS")])
    first = judge_all(PassiveJudge(llm), trajs, JudgementStore(path))
    assert len(llm.calls) == 4
    with path.open("a") as fh:
        fh.write('{"episode_id": "torn", "judge"')  # a crash mid-write
    store = JudgementStore(path)
    again = judge_all(PassiveJudge(llm), trajs, store)
    assert len(llm.calls) == 4  # nothing judged twice
    assert [j.key for j in again] == [j.key for j in first]
    assert path.read_text().endswith("\n") and len(read_judgements(path)) == 4
    # a damaged line in the middle is skipped with a warning, the rest is kept
    lines = path.read_text().splitlines()
    path.write_text(lines[0] + "\n{not json\n" + "\n".join(lines[1:]) + "\n")
    with pytest.warns(UserWarning):
        assert len(read_judgements(path)) == 4


def test_judgement_roundtrip_and_validation() -> None:
    j = Judgement(episode_id="a:0", judge="passive", version="v", outcome="undecided", reward=0.0)
    assert Judgement.from_dict(json.loads(json.dumps(j.to_dict()))) == j
    with pytest.raises(ValueError):
        Judgement(episode_id="a", judge="x", version="v", outcome="maybe", reward=0.0)  # type: ignore[arg-type]


def test_agreement_counts_undecided_as_wrong() -> None:
    def j(eid, outcome):
        return Judgement(episode_id=eid, judge="x", version="v", outcome=outcome, reward=0.0)
    labels = {"a": True, "b": False, "c": True, "d": False}
    a = agreement([j("a", "success"), j("b", "undecided"), j("c", "failure"), j("d", "success")], labels)
    assert (a.n, a.accuracy, a.precision, a.recall, a.undecided_rate) == (4, 0.25, 0.5, 0.5, 0.25)


def test_roc_auc() -> None:
    assert roc_auc([0.9, 0.8, 0.1, 0.2], [True, True, False, False]) == 1.0
    assert roc_auc([0.1, 0.2, 0.9, 0.8], [True, True, False, False]) == 0.0
    assert roc_auc([0.5, 0.5], [True, False]) == 0.5
    assert roc_auc([0.3], [True]) is None
