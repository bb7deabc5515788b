from __future__ import annotations

import pytest
from rewards_doubles import ScriptedLLM, reply

from droidverify.actions.model import Action
from droidverify.env.records import Observation, Step, Trajectory
from droidverify.errors import JudgeInputError, LLMServerError
from droidverify.rewards.smartsnap import EvidenceJudge, Vote, check_submit, combine_votes

OBS = Observation(xml="<hierarchy/>")


def traj(actions: list[Action | None]) -> Trajectory:
    t = Trajectory(task_id="t", goal="Add Ann Lee", seed=0)
    t.steps = [Step(index=i, observation=OBS, action=a) for i, a in enumerate(actions)]
    t.final_observation = OBS
    t.metadata["episode_id"] = "t:0"
    return t


CLICK = Action(action_type="click", index=0)


def submit(*ev: int, text: str = "done") -> Action:
    return Action(action_type="submit", text=text, evidences=tuple(ev))


@pytest.mark.parametrize("actions, reason", [
    ([CLICK, CLICK], "submit called 0 times"),
    ([CLICK, submit(0), submit(0)], "submit called 2 times"),
    ([CLICK, submit(0), CLICK], "the last action is not submit"),
    ([CLICK, None], "submit called 0 times"),
    ([CLICK, CLICK, submit(5)], "out of range"),
    ([CLICK, CLICK, submit(-1)], "out of range"),
    ([CLICK, CLICK, submit(0, 2)], "points at the submit round"),
    ([submit()], None),  # no evidence at all is well formed (the judge decides)
])
def test_format_rules(actions, reason) -> None:
    llm = ScriptedLLM([reply("SUCCESS", True)])
    j = EvidenceJudge(llm, votes=1).judge(traj(actions))
    if reason is None:
        assert j.components["format_ok"] is True
        return
    assert (j.outcome, j.reward, j.components["format_ok"]) == ("failure", -1.0, False)
    assert reason in j.components["format_error"]
    assert llm.calls == []  # format failures return before the judge is called


def test_submit_check_reads_message_and_evidences() -> None:
    c = check_submit(traj([CLICK, CLICK, submit(1, 0, text="saved")]))
    assert c.ok and c.evidences == [1, 0] and c.message == "saved" and c.submit_round == 2


@pytest.mark.parametrize("votes, base, outcome", [
    (["S", "S", "F"], 1.0, "success"),
    (["S", "F", "F"], -1.0, "failure"),            # validity below comes from the replies
    (["S", "S", "S"], 1.0, "success"),
    (["S", "F"], -1.0, "undecided"),                # a tie is no majority
    (["S", "E", "E"], -1.0, "undecided"),           # errored votes count for nothing
    (["S", "S", "E"], 1.0, "success"),
    (["E", "E", "E"], -1.0, "undecided"),
])
def test_majority_votes(votes, base, outcome) -> None:
    vs = [Vote("success", False, "strict") if v == "S" else Vote("failure", False, "strict") if v == "F"
          else Vote(None, None, "error", "boom") for v in votes]
    c = combine_votes(vs, 1)
    assert (c["base"], c["outcome"], c["reward"]) == (base, outcome, base)


def test_evidence_valid_majority_gives_zero() -> None:
    vs = [Vote("failure", True, "strict"), Vote("failure", True, "strict"), Vote("success", False, "strict")]
    assert combine_votes(vs, 2)["reward"] == 0.0
    vs = [Vote("failure", True, "strict"), Vote("failure", False, "strict")]  # tie on validity
    assert combine_votes(vs, 2)["reward"] == -1.0


def test_extra_evidence_penalty() -> None:
    vs = [Vote("success", True, "strict")]
    assert combine_votes(vs, 3)["reward"] == 1.0
    assert combine_votes(vs, 5)["reward"] == pytest.approx(0.8)
    assert combine_votes(vs, 5)["penalty"] == pytest.approx(-0.2)


def test_votes_call_the_judge_n_times_with_temperature_and_seeds() -> None:
    llm = ScriptedLLM([reply("SUCCESS", True), reply("FAILURE", True), "garbage"])
    j = EvidenceJudge(llm, votes=3).judge(traj([CLICK, CLICK, submit(1)]))
    assert len(llm.calls) == 3
    assert all(c["temperature"] > 0 for c in llm.calls) and len({c["seed"] for c in llm.calls}) == 3
    assert j.components["success_votes"] == 1 and j.components["unreadable_votes"] == 1
    assert j.reward == 0.0  # no SUCCESS majority; 2 of 3 say evidence valid
    assert j.outcome == "undecided" and j.parse_status == "failed"
    assert len(j.raw_outputs) == 3 and j.tokens_in > 0


def test_errored_judge_calls_are_undecided_never_success() -> None:
    llm = ScriptedLLM([LLMServerError("500", status=500)])
    j = EvidenceJudge(llm, votes=1).judge(traj([CLICK, submit(0)]))
    assert j.outcome == "undecided" and j.parse_status == "error" and "500" in (j.error or "")


def test_bad_configuration_is_a_typed_error() -> None:
    with pytest.raises(JudgeInputError):
        EvidenceJudge(ScriptedLLM(["x"]), votes=0)
    with pytest.raises(JudgeInputError):
        EvidenceJudge(ScriptedLLM(["x"]), votes=3, temperature=0.0)


def test_judge_sees_only_goal_message_and_exhibits() -> None:
    llm = ScriptedLLM([reply("SUCCESS", True)])
    t = traj([CLICK, Action(action_type="input_text", index=0, text="SECRET-TYPED"), CLICK, submit(2, text="all set")])
    EvidenceJudge(llm, votes=1).judge(t)
    user = llm.calls[0]["messages"][-1]["content"]
    assert "all set" in user and "Exhibit 1 (round 2)" in user
    assert "SECRET-TYPED" not in user  # round 1 was not chosen as evidence
