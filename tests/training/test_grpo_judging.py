"""GRPO as SmartSnap runs it (issue 22 item 5): groups of 8, sample-std advantages (as TRL), a
judge that is not the policy by default (the compact evidence judge in SmartSnap's composite), and
members whose judge failed left out of their group. Scripted LLMs and judges; the one real model
is the shipped compact judge (a small network over MiniLM embeddings)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from grpo_doubles import HomeJudge, SeededLLM
from typer.testing import CliRunner

from droidverify.actions.model import Action
from droidverify.cli import app
from droidverify.env.records import Observation, Step, TokenUsage, Trajectory
from droidverify.errors import JudgeInputError, RunError, TrainingDataError, TrainingError
from droidverify.llm.base import Generation
from droidverify.rewards.base import Judgement, trajectory_id
from droidverify.rewards.compact_judge import CompactJudge
from droidverify.rewards.smartsnap import EvidenceJudge
from droidverify.runner.grpo import POLICY_JUDGE, CompactEvidenceReward, GRPOPlayer
from droidverify.training.grpo import (
    GRPOConfig,
    GRPOMember,
    RolloutGroup,
    group_advantages,
    group_stats,
    judge_failure,
    read_groups,
    rollout_groups,
    write_groups,
)

TASK = "settings_wifi_toggle"


def _cfg(**kw) -> GRPOConfig:
    base = {"group_size": 3, "temperature": 1.0, "max_steps": 3, "tasks": [TASK], "seeds": [0]}
    return GRPOConfig(**{**base, **kw})


class CrashOnMember1:
    """HomeJudge's reward, except that judging member 1 of a group raises (a judge bug)."""

    name = "crash-on-1"
    version = "test-1"

    def judge(self, trajectory: Trajectory) -> Judgement:
        if trajectory_id(trajectory).endswith(":g1"):
            raise RuntimeError("judge bug")
        return HomeJudge().judge(trajectory)


class DownLLM:
    """A judge model whose every call fails (a server that answers 500)."""

    name = "down"

    def generate(self, messages, **kw) -> Generation:
        raise RuntimeError("HTTP 500")


class TextLLM:
    """A judge model that answers each call with the next scripted text (an Exception: it fails)."""

    name = "text"

    def __init__(self, replies: list[str | Exception]) -> None:
        self.replies = list(replies)

    def generate(self, messages, **kw) -> Generation:
        r = self.replies.pop(0)
        if isinstance(r, Exception):
            raise r
        return Generation(text=r, usage=TokenUsage(prompt_tokens=1, completion_tokens=1), finish_reason="stop")


def _submitted(evidences: tuple[int, ...] = (0,), goal: str = "Turn Wi-Fi off") -> Trajectory:
    """A well-formed SmartSnap episode: some clicks, then one submit citing ``evidences``."""
    obs = Observation(xml="<hierarchy/>")
    n = max(evidences, default=0) + 1
    t = Trajectory(task_id="t", goal=goal, seed=0)
    t.steps = [Step(index=i, observation=obs, action=Action(action_type="click", index=0)) for i in range(n)]
    t.steps.append(Step(index=n, observation=obs, action=Action(action_type="submit", text="done",
                                                                  evidences=evidences)))
    t.final_observation = obs
    t.metadata["episode_id"] = "t:0:g0"
    return t


class StubCompact:
    """Stands in for CompactJudge(setting="evidence"): a fixed verdict, and records its calls."""

    setting = "evidence"
    version = "compact-stub"

    def __init__(self, outcome: str, p: float = 0.9) -> None:
        self.outcome, self.p, self.calls = outcome, p, 0

    def judge(self, trajectory: Trajectory) -> Judgement:
        self.calls += 1
        comps = {"setting": "evidence", "threshold": 0.5}
        if self.outcome != "undecided":
            comps["p_success"] = self.p
        return Judgement(episode_id=trajectory_id(trajectory), judge="compact", version=self.version,
                         outcome=self.outcome, reward=1.0 if self.outcome == "success" else 0.0,  # type: ignore[arg-type]
                         components=comps, error="a dump that does not parse" if self.outcome == "undecided" else None)


# --- defaults ------------------------------------------------------------------------------------------


def test_default_group_size_is_eight_as_in_smartsnap() -> None:
    assert GRPOConfig().group_size == 8
    assert GRPOConfig().sampling()["group_size"] == 8


# --- advantages: sample std ------------------------------------------------------------------------------


def test_advantages_use_the_sample_std_and_have_zero_mean() -> None:
    # [1, -1]: mean 0, squared deviations 2, sample std sqrt(2 / 1); population std would be 1
    assert group_advantages([1.0, -1.0], eps=1e-12) == pytest.approx([1 / math.sqrt(2), -1 / math.sqrt(2)])
    # [1, 0, -1, -1]: mean -0.25, squared deviations 1.5625 + 0.0625 + 0.5625 + 0.5625 = 2.75, std sqrt(2.75 / 3)
    adv = group_advantages([1.0, 0.0, -1.0, -1.0], eps=1e-4)
    std = math.sqrt(2.75 / 3)
    assert adv == pytest.approx([1.25 / (std + 1e-4), 0.25 / (std + 1e-4), -0.75 / (std + 1e-4), -0.75 / (std + 1e-4)])
    assert sum(adv) == pytest.approx(0.0)
    assert group_advantages([1.0, 0.0, -1.0, -1.0], scale=False) == [1.25, 0.25, -0.75, -0.75]  # r - mean
    assert group_advantages([0.7]) == [0.0]  # a group of one: no preference (torch.std would give nan)


def test_group_reward_std_is_the_sample_std() -> None:
    g = _group([1.0, -1.0, None])
    assert g.reward_mean == 0.0 and g.reward_std == pytest.approx(math.sqrt(2))


# --- excluded members -----------------------------------------------------------------------------------


def _member(k: int, reward: float | None) -> GRPOMember:
    t = Trajectory(task_id=TASK, goal="g", seed=0)
    return GRPOMember(member=k, sample_seed=k, trajectory=t, reward=reward,
                      outcome="undecided" if reward is None else "failure",
                      advantage=None if reward is None else 0.0,
                      judge_failed="judge raised RuntimeError: boom" if reward is None else None)


def _group(rewards: list[float | None]) -> RolloutGroup:
    g = RolloutGroup(task_id=TASK, task_seed=0, goal="g", members=[_member(k, r) for k, r in enumerate(rewards)])
    g.compute_advantages()
    return g


def test_excluded_members_get_no_advantage_and_do_not_move_the_others() -> None:
    with_excluded = group_advantages([1.0, None, 0.0, None, -1.0])
    alone = group_advantages([1.0, 0.0, -1.0])
    assert with_excluded == [alone[0], None, alone[1], None, alone[2]]
    g = _group([1.0, None, 0.0, -1.0])
    assert g.advantages[1] is None and g.excluded == 1 and g.valid_rewards == [1.0, 0.0, -1.0]
    assert g.reward_mean == 0.0 and g.reward_std == pytest.approx(1.0)
    # fewer than 2 judged members: no preference
    assert group_advantages([None, 1.0, None]) == [None, 0.0, None]
    assert group_advantages([None, None]) == [None, None]
    assert _group([None, 1.0, None]).zero_std
    with pytest.raises(TrainingError, match="finite"):
        group_advantages([1.0, None, float("nan")])


def test_an_excluded_member_has_neither_reward_nor_advantage() -> None:
    t = Trajectory(task_id=TASK, goal="g", seed=0)
    with pytest.raises(TrainingError, match="reward is None exactly when the judge failed"):
        GRPOMember(member=0, sample_seed=0, trajectory=t, reward=0.0, outcome="undecided", judge_failed="x")
    with pytest.raises(TrainingError, match="has no advantage"):
        GRPOMember(member=0, sample_seed=0, trajectory=t, reward=None, outcome="undecided", judge_failed="x",
                   advantage=0.0)


def test_a_crashed_judge_no_longer_scores_zero() -> None:
    cfg = _cfg(seeds=[0, 1])
    groups = rollout_groups(None, cfg, player=GRPOPlayer(llm=SeededLLM, judge=CrashOnMember1()))
    reference = rollout_groups(None, cfg, player=GRPOPlayer(llm=SeededLLM, judge=HomeJudge()))
    for g, ref in zip(groups, reference, strict=True):
        crashed = g.members[1]
        assert crashed.excluded and crashed.reward is None and crashed.advantage is None
        assert crashed.judge_failed.startswith("judge raised RuntimeError: judge bug")
        assert crashed.judgement["outcome"] == "undecided"  # the judge's record is kept as it was
        # the others' statistics are those of the judged members alone (same episodes, same seeds)
        judged = [ref.members[0].reward, ref.members[2].reward]
        assert g.valid_rewards == judged and g.reward_mean == pytest.approx(sum(judged) / 2)
        want = group_advantages(judged)
        assert [g.members[0].advantage, g.members[2].advantage] == pytest.approx(want)
    stats = group_stats(groups)
    assert stats["episodes"] == 6 and stats["excluded"] == 2
    assert stats["reward_mean"] == pytest.approx(sum(sum(g.valid_rewards) for g in groups) / 4)


def test_errored_votes_are_a_failed_judge_not_a_proven_failure() -> None:
    # every vote's call fails: SmartSnap's composite would say -1, as for a proven failure
    j = EvidenceJudge(DownLLM(), votes=3).judge(_submitted())
    assert j.reward == -1.0 and j.outcome == "undecided"
    assert judge_failure(j.to_dict()) == "every judge vote errored (3): RuntimeError: HTTP 500"
    m = GRPOMember.judged(0, 0, _submitted(), j.to_dict())
    assert m.excluded and m.reward is None and m.advantage is None
    # one errored vote and a split among the read ones: the error left no majority
    split = ("<reasoning>shown</reasoning>\n<evidence_valid>True</evidence_valid>\n<verdict>SUCCESS</verdict>",
             "<reasoning>not shown</reasoning>\n<evidence_valid>False</evidence_valid>\n<verdict>FAILURE</verdict>")
    j = EvidenceJudge(TextLLM([split[0], split[1], RuntimeError("timeout")]), votes=3).judge(_submitted())
    assert j.outcome == "undecided" and judge_failure(j.to_dict()) is not None
    # one errored vote, and the read ones agree: a verdict, a reward
    j = EvidenceJudge(TextLLM([split[1], split[1], RuntimeError("timeout")]), votes=3).judge(_submitted())
    assert j.outcome == "failure" and j.reward == -1.0 and judge_failure(j.to_dict()) is None
    # read but unreadable votes are SmartSnap's own -1, not a failed judge
    j = EvidenceJudge(TextLLM(["no idea"] * 3), votes=3).judge(_submitted())
    assert j.outcome == "undecided" and j.reward == -1.0 and judge_failure(j.to_dict()) is None


def test_a_failed_passive_call_is_a_failed_judge() -> None:
    from droidverify.rewards.passive import PassiveJudge

    j = PassiveJudge(DownLLM()).judge(_submitted())
    assert j.reward == 0.0 and judge_failure(j.to_dict()).startswith("judge call failed")


# --- the judge is not the policy -------------------------------------------------------------------------


def test_the_default_smartsnap_judge_is_the_compact_evidence_judge() -> None:
    worker = GRPOPlayer("smartsnap", llm=SeededLLM)(_cfg(reward="smartsnap"))
    inner = worker.judge.inner
    assert type(inner) is CompactEvidenceReward
    assert type(inner.compact) is CompactJudge and inner.compact.setting == "evidence"
    assert worker.judge.name == "smartsnap-compact" and inner.compact.version in worker.judge.version
    assert not isinstance(inner, EvidenceJudge)


def test_an_llm_judge_is_chosen_by_name_and_the_policy_only_explicitly(monkeypatch: pytest.MonkeyPatch) -> None:
    import droidverify.runner.grpo as runner_grpo

    loaded: list[str | None] = []
    monkeypatch.setattr(runner_grpo, "_load", lambda model, spec: loaded.append(model) or TextLLM([]))
    worker = GRPOPlayer("smartsnap", llm=SeededLLM, judge_model="openai:http://judge:8000/v1",
                        votes=5)(_cfg(reward="smartsnap"))
    inner = worker.judge.inner
    assert type(inner) is EvidenceJudge and inner.votes == 5 and isinstance(inner.llm, TextLLM)
    assert inner.llm is not worker.llm and loaded == ["openai:http://judge:8000/v1"]
    own = GRPOPlayer("smartsnap", llm=SeededLLM, judge_model=POLICY_JUDGE)(_cfg(reward="smartsnap"))
    assert type(own.judge.inner) is EvidenceJudge and own.judge.inner.llm is own.llm
    with pytest.raises(RunError, match="not both"):
        GRPOPlayer("smartsnap", judge_model="openai:x", compact_judge="/some/judge")
    with pytest.raises(RunError, match="judge_model"):
        GRPOPlayer("smartsnap", judge_model=" ")


def test_the_compact_judge_is_one_vote_of_the_smartsnap_composite() -> None:
    ok = StubCompact("success", p=0.8)
    j = CompactEvidenceReward(ok).judge(_submitted((0, 1)))
    assert (j.outcome, j.reward, j.judge) == ("success", 1.0, "smartsnap-compact")
    assert j.components["votes"] == 1 and j.components["p_success"] == 0.8 and j.components["format_ok"]
    # conciseness: -0.1 for each of the 2 evidences beyond 3
    assert CompactEvidenceReward(ok).judge(_submitted((0, 1, 2, 3, 4))).reward == pytest.approx(0.8)
    # a failure verdict has no evidence-valid reading: -1, never the 0 tier
    j = CompactEvidenceReward(StubCompact("failure", p=0.1)).judge(_submitted())
    assert (j.outcome, j.reward, j.components["valid_votes"]) == ("failure", -1.0, 0)
    # a format failure is -1 without judging
    stub = StubCompact("success")
    bad = _submitted()
    bad.steps.append(Step(index=len(bad.steps), observation=bad.steps[0].observation,
                          action=Action(action_type="click", index=0)))
    j = CompactEvidenceReward(stub).judge(bad)
    assert (j.outcome, j.reward, j.components["format_ok"], stub.calls) == ("failure", -1.0, False, 0)
    # a compact judge that could not read the episode is a failed judge, excluded from the group
    j = CompactEvidenceReward(StubCompact("undecided")).judge(_submitted())
    assert j.outcome == "undecided" and j.parse_status == "error"
    assert judge_failure(j.to_dict()) is not None
    with pytest.raises(JudgeInputError, match="setting 'evidence'"):
        CompactEvidenceReward(CompactJudge.load(None, "passive"))


def test_the_shipped_compact_judge_scores_an_episode_that_did_nothing_as_a_failure() -> None:
    from droidverify.env.sim import SimEnv
    from droidverify.tasks import registry

    task = registry.get_template(TASK).instantiate(0)
    env = SimEnv(task=task, seed=0)
    try:
        first = env.reset()
        home = Action(action_type="navigate_home")
        after = env.step(home)
    finally:
        env.close()
    t = Trajectory(task_id=task.id, goal=task.goal, seed=0)
    t.steps = [Step(index=0, observation=first, action=home),
               Step(index=1, observation=after, action=Action(action_type="submit", text="done", evidences=(0,)))]
    j = CompactEvidenceReward(CompactJudge.load(None, "evidence")).judge(t)
    assert (j.outcome, j.reward) == ("failure", -1.0)
    assert 0.0 <= j.components["p_success"] < j.components["threshold"]


# --- JSONL -------------------------------------------------------------------------------------------------


def test_jsonl_round_trips_excluded_members(tmp_path: Path) -> None:
    groups = rollout_groups(None, _cfg(), player=GRPOPlayer(llm=SeededLLM, judge=CrashOnMember1()))
    path = tmp_path / "g.jsonl"
    write_groups(path, groups)
    back = read_groups(path)
    assert [g.to_dict() for g in back] == [g.to_dict() for g in groups]
    m = back[0].members[1]
    assert m.excluded and m.reward is None and m.advantage is None and m.judge_failed == groups[0].members[1].judge_failed
    line = json.loads(path.read_text().splitlines()[0])
    assert line["schema_version"] == 2 and line["excluded"] == 1
    assert line["members"][1]["reward"] is None and line["members"][1]["advantage"] is None
    assert line["members"][1]["judge_failed"].startswith("judge raised")


def test_version_1_lines_are_read_under_todays_rules(tmp_path: Path) -> None:
    (g,) = rollout_groups(None, _cfg(), player=GRPOPlayer(llm=SeededLLM, judge=CrashOnMember1()))
    v1 = g.to_dict()
    # what version 1 wrote: no judge_failed, the crashed judge's 0 as a reward, population-std advantages
    v1["schema_version"] = 1
    for m in v1["members"]:
        m.pop("judge_failed")
        m["reward"] = m["judgement"]["reward"]
        m["advantage"] = 0.123
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps(v1) + "\n")
    (old,) = read_groups(path)
    assert old.schema_version == 1 and old.members[1].excluded and old.members[1].reward is None
    assert old.advantages == g.advantages and old.rewards == g.rewards  # recomputed, not the stored 0.123
    assert old.to_dict()["schema_version"] == 2  # written back as the current version
    # a file of version-1 groups is not resumed: its groups were rewarded under other rules
    with pytest.raises(TrainingError, match="schema version 1"):
        rollout_groups(None, _cfg(), player=GRPOPlayer(llm=SeededLLM, judge=HomeJudge()), out=path)
    v1["schema_version"] = 3
    path.write_text(json.dumps(v1) + "\n")
    with pytest.raises(TrainingDataError, match="old.jsonl:1: GRPO group schema version 3; this droidverify reads versions 1, 2"):
        read_groups(path)
    bad = g.to_dict()
    bad["members"][1]["reward"] = 0.0  # a reward beside a failed judge
    path.write_text(json.dumps(bad) + "\n")
    with pytest.raises(TrainingDataError, match="old.jsonl:1: member 1: reward is None exactly when"):
        read_groups(path)


# --- CLI ----------------------------------------------------------------------------------------------------


def _patch_llm(monkeypatch: pytest.MonkeyPatch) -> list:
    import droidverify.llm.registry as llm_registry

    loaded: list = []
    monkeypatch.setattr(llm_registry, "load_llm", lambda spec=None, **kw: loaded.append(spec) or SeededLLM())
    return loaded


def test_cli_groups_of_eight_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _patch_llm(monkeypatch)
    out = tmp_path / "g.jsonl"
    res = CliRunner().invoke(app, ["train", "grpo-rollouts", "--tasks", TASK, "--max-steps", "1", "--out", str(out)])
    assert res.exit_code == 0, res.output
    (g,) = read_groups(out)
    assert len(g.members) == 8 and g.config["group_size"] == 8
    stats = json.loads(res.stdout[res.stdout.index("{"):])
    assert stats["episodes"] == 8 and stats["excluded"] == 0


def test_cli_smartsnap_judges_with_the_compact_judge_unless_a_model_is_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loaded = _patch_llm(monkeypatch)
    out = tmp_path / "s.jsonl"
    base = ["train", "grpo-rollouts", "--agent", "smartsnap", "--tasks", TASK, "--group-size", "2",
            "--max-steps", "1", "--model", "policy-dir"]
    res = CliRunner().invoke(app, [*base, "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "judge: smartsnap composite reward on the compact evidence judge (shipped)" in res.output
    assert read_groups(out)[0].judge == "smartsnap-compact" and loaded == ["policy-dir"]  # the policy only
    loaded.clear()
    res = CliRunner().invoke(app, [*base, "--judge-model", "judge-dir", "--out", str(tmp_path / "l.jsonl")])
    assert res.exit_code == 0, res.output
    assert sorted(loaded) == ["judge-dir", "policy-dir"] and "judge: smartsnap on judge-dir" in res.output
    assert read_groups(tmp_path / "l.jsonl")[0].judge == "smartsnap"
    loaded.clear()
    res = CliRunner().invoke(app, [*base, "--judge-model", "policy", "--out", str(tmp_path / "p.jsonl")])
    assert res.exit_code == 0, res.output
    assert loaded == ["policy-dir"] and "(the policy's own model)" in res.output


def test_cli_refuses_a_judge_it_would_have_taken_from_the_policy(tmp_path: Path) -> None:
    x = str(tmp_path / "x.jsonl")
    runner = CliRunner()
    res = runner.invoke(app, ["train", "grpo-rollouts", "--reward", "passive", "--out", x])
    assert res.exit_code == 2 and "--reward passive needs --judge-model" in res.output
    res = runner.invoke(app, ["train", "grpo-rollouts", "--judge-model", "m", "--out", x])
    assert res.exit_code == 2 and "not --reward rule" in res.output
    res = runner.invoke(app, ["train", "grpo-rollouts", "--agent", "smartsnap", "--votes", "3", "--out", x])
    assert res.exit_code == 2 and "compact evidence judge gives one verdict" in res.output
    assert not Path(x).exists()
