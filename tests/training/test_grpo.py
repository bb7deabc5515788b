"""GRPO rollout groups (issue 9): config checks, advantages, sampling seeds, the backend seam (same
groups in the same order on 1 or 2 workers), JSONL round trip and resume, the CLI. A seeded scripted
LLM plays; no model is loaded."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from grpo_doubles import HomeJudge, SeededLLM
from typer.testing import CliRunner

from droidverify.cli import app
from droidverify.errors import TrainingDataError, TrainingError
from droidverify.runner.backends import InlineBackend, LocalBackend
from droidverify.runner.grpo import GRPOPlayer
from droidverify.tasks import registry
from droidverify.training.grpo import (
    GRPOConfig,
    RolloutGroup,
    group_advantages,
    grpo_tasks,
    member_seed,
    read_groups,
    rollout_groups,
    write_groups,
)

TEMPLATES = ["settings_wifi_toggle", "clock_create_alarm"]


def _cfg(**kw) -> GRPOConfig:
    base = {"group_size": 3, "temperature": 1.0, "max_steps": 3, "tasks": TEMPLATES, "seeds": [0, 1]}
    return GRPOConfig(**{**base, **kw})


def _view(groups: list[RolloutGroup]) -> list:
    """What must not depend on the backend (timestamps and timings may)."""
    def actions(m):
        return [s.action.to_json() if s.action else None for s in m.trajectory.steps]

    return [(g.key, g.judge, g.config, [(m.member, m.sample_seed, m.reward, m.outcome, m.advantage,
                                         actions(m), [c["text"] for c in m.generations()])
                                        for m in g.members])
            for g in groups]


# --- configuration --------------------------------------------------------------------------------


def test_temperature_must_be_positive_for_a_group() -> None:
    with pytest.raises(TrainingError, match="temperature must be > 0 when group_size > 1"):
        GRPOConfig(group_size=4, temperature=0.0)
    with pytest.raises(TrainingError, match="temperature"):
        GRPOConfig(temperature=-0.5)
    with pytest.raises(TrainingError, match="temperature"):
        GRPOConfig(temperature=float("nan"))
    with pytest.raises(TrainingError, match="group_size"):
        GRPOConfig(group_size=0)
    with pytest.raises(TrainingError, match="seeds"):
        GRPOConfig(seeds=[])
    assert GRPOConfig(group_size=1, temperature=0.0).temperature == 0.0  # one greedy member is fine
    cfg = GRPOConfig()  # SmartSnap trains with groups of 8 (issue 22)
    assert (cfg.group_size, cfg.temperature, cfg.reward) == (8, 1.0, "rule")


def test_tasks_of_a_config() -> None:
    assert [(t.id, t.seed) for t in grpo_tasks(_cfg())] == [
        ("settings_wifi_toggle", 0), ("settings_wifi_toggle", 1),
        ("clock_create_alarm", 0), ("clock_create_alarm", 1)]
    validation = registry.templates_for_split("validation")
    assert len(grpo_tasks(GRPOConfig(split="validation", seeds=[0]))) == len(validation)
    with pytest.raises(TrainingError, match="unknown split"):
        grpo_tasks(GRPOConfig(split="dev"))
    with pytest.raises(TrainingError):
        grpo_tasks(GRPOConfig(tasks=["no_such_task"]))


def test_member_seeds_are_fixed_and_distinct() -> None:
    cfg = _cfg()
    task = registry.get_template("clock_create_alarm").instantiate(0)
    seeds = [member_seed(cfg, task, k) for k in range(8)]
    assert len(set(seeds)) == 8 and seeds == [member_seed(_cfg(), task, k) for k in range(8)]
    assert member_seed(_cfg(seed=1), task, 0) != seeds[0]


# --- advantages -------------------------------------------------------------------------------------


def test_group_advantages_are_standardised_rewards() -> None:
    # The std is the sample std (N - 1), as TRL's GRPOTrainer computes it with torch.std (issue 22);
    # these numbers were +-1 and 1/sqrt(2/3) with the population std this module used before.
    # [1, 0, 0, 1]: mean 0.5, squared deviations sum to 1, std = sqrt(1/3), advantage 0.5/sqrt(1/3)
    adv = group_advantages([1.0, 0.0, 0.0, 1.0], eps=0.0 + 1e-12)
    assert adv == pytest.approx([math.sqrt(3) / 2, -math.sqrt(3) / 2, -math.sqrt(3) / 2, math.sqrt(3) / 2])
    # [2, 1, 0]: mean 1, squared deviations sum to 2, std = sqrt(2/2) = 1
    adv = group_advantages([2.0, 1.0, 0.0], eps=1e-4)
    assert adv == pytest.approx([1 / (1 + 1e-4), 0.0, -1 / (1 + 1e-4)])
    assert sum(adv) == pytest.approx(0.0)
    assert group_advantages([2.0, 1.0, 0.0], scale=False) == [1.0, 0.0, -1.0]  # Dr. GRPO


def test_equal_rewards_give_zero_advantages() -> None:
    assert group_advantages([0.0, 0.0, 0.0, 0.0]) == [0.0] * 4
    assert group_advantages([-1.0, -1.0]) == [0.0, 0.0]
    assert group_advantages([0.7]) == [0.0]
    assert group_advantages([]) == []
    with pytest.raises(TrainingError):
        group_advantages([1.0, float("inf")])


# --- rollouts -----------------------------------------------------------------------------------------


def test_groups_sample_members_and_score_them() -> None:
    cfg = _cfg()
    groups = rollout_groups(None, cfg, player=GRPOPlayer(llm=SeededLLM, judge=HomeJudge()))
    assert [g.key for g in groups] == [f"{t.id}:{t.seed}" for t in grpo_tasks(cfg)]
    for g in groups:
        assert [m.member for m in g.members] == [0, 1, 2]
        assert g.judge == "home-count" and g.agent == "generator"
        assert g.advantages == pytest.approx(group_advantages(g.rewards))
        for m in g.members:
            t = m.trajectory
            assert (t.task_id, t.seed) == (g.task_id, g.task_seed)  # every member plays the task's own seed
            assert m.reward == m.judgement["reward"] == sum(
                s.action is not None and s.action.action_type == "navigate_home" for s in t.steps)
            assert m.components == {"homes": int(m.reward)}
            gens = m.generations()
            assert gens and all(c["messages"][0]["role"] == "system" and c["text"] and c["temperature"] == 1.0
                                for c in gens)
            assert [c["step"] for c in gens] == [s.index for s in t.steps]  # one call per step (no retries)
            assert t.metadata["grpo"] == {"member": m.member, "sample_seed": m.sample_seed}
    # the seeds make members differ: some group has unequal rewards
    assert any(not g.zero_std for g in groups)
    # and the same seeds repeat the same group
    again = rollout_groups(None, cfg, player=GRPOPlayer(llm=SeededLLM, judge=HomeJudge()))
    assert _view(again) == _view(groups)


def test_rule_reward_by_default_and_equal_groups_have_zero_advantage() -> None:
    groups = rollout_groups(None, _cfg(seeds=[0]), player=GRPOPlayer(llm=SeededLLM))
    assert {g.judge for g in groups} == {"rule"}
    for g in groups:  # random actions never solve these tasks: every reward 0, every advantage 0
        assert g.rewards == [0.0, 0.0, 0.0] and g.advantages == [0.0, 0.0, 0.0] and g.zero_std
        assert all("checker_score" in m.components for m in g.members)


def test_smartsnap_agent_gets_the_composite_reward() -> None:
    cfg = _cfg(seeds=[0], tasks=TEMPLATES[:1], reward="smartsnap", group_size=2)
    (g,) = rollout_groups(None, cfg, player=GRPOPlayer("smartsnap", llm=SeededLLM))
    # the default judge is the compact evidence judge in SmartSnap's composite, not the policy (issue 22)
    assert g.agent == "smartsnap" and g.judge == "smartsnap-compact"
    for m in g.members:  # the scripted policy never submits: format failure, reward -1
        assert m.reward == -1.0 and m.components["format_ok"] is False
    assert g.advantages == [0.0, 0.0]


def test_inline_and_two_local_workers_give_the_same_groups_in_the_same_order() -> None:
    cfg = _cfg()
    player = GRPOPlayer(llm=SeededLLM, judge=HomeJudge())
    serial = rollout_groups(None, cfg, player=player)
    inline = rollout_groups(None, cfg, player=player, backend=InlineBackend())
    with LocalBackend(2) as backend:
        parallel = rollout_groups(None, cfg, player=player, backend=backend)
    assert _view(inline) == _view(serial)
    assert _view(parallel) == _view(serial)


def test_a_player_must_sample() -> None:
    from droidverify.errors import RunError

    with pytest.raises(RunError, match="sampling agent"):
        GRPOPlayer("verifier")
    with pytest.raises(RunError, match="unknown GRPO reward"):
        rollout_groups(None, _cfg(reward="passive", seeds=[0]), player=GRPOPlayer(llm=SeededLLM))


# --- JSONL ----------------------------------------------------------------------------------------------


def test_jsonl_round_trip(tmp_path: Path) -> None:
    groups = rollout_groups(None, _cfg(seeds=[0]), player=GRPOPlayer(llm=SeededLLM, judge=HomeJudge()))
    path = tmp_path / "g.jsonl"
    assert write_groups(path, groups) == 2
    back = read_groups(path)
    assert _view(back) == _view(groups)
    assert [g.to_dict() for g in back] == [g.to_dict() for g in groups]
    line = json.loads(path.read_text().splitlines()[0])
    assert line["kind"] == "grpo_group" and line["schema_version"] == 2
    assert line["reward_mean"] == pytest.approx(groups[0].reward_mean)
    line["schema_version"] = 99
    path.write_text(json.dumps(line) + "\n")
    with pytest.raises(TrainingDataError, match="g.jsonl:1: .*schema version 99"):
        read_groups(path)
    path.write_text("{not json\n")
    with pytest.raises(TrainingDataError, match="g.jsonl:1"):
        read_groups(path)


def test_out_file_resumes_and_refuses_another_config(tmp_path: Path) -> None:
    out = tmp_path / "g.jsonl"
    player = GRPOPlayer(llm=SeededLLM, judge=HomeJudge())
    first = rollout_groups(None, _cfg(seeds=[0]), player=player, out=out)
    # a run killed while writing its next line: the cut line is dropped, that group runs again
    with open(out, "a", encoding="utf-8") as f:
        f.write('{"kind": "grpo_group", "sche')
    said: list[str] = []
    both = rollout_groups(None, _cfg(), player=player, out=out, progress=said.append)
    assert "resuming: 2 of 4 groups" in said[0] and len(said) == 3
    assert _view(both[0::2]) == _view(first)  # seed-0 groups read back, not re-run
    assert [g.key for g in read_groups(out)] == [g.key for g in first] + [g.key for g in both[1::2]]
    assert _view(read_groups(out)[2:]) == _view(both[1::2])
    again: list[str] = []
    assert _view(rollout_groups(None, _cfg(), player=player, out=out, progress=again.append)) == _view(both)
    assert again == ["resuming: 4 of 4 groups already in " + str(out)]
    with pytest.raises(TrainingError, match="collected with"):
        rollout_groups(None, _cfg(temperature=0.7), player=player, out=out)


# --- CLI -----------------------------------------------------------------------------------------------


def test_cli_collects_groups(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import droidverify.llm.registry as llm_registry

    monkeypatch.setattr(llm_registry, "load_llm", lambda spec=None, **kw: SeededLLM())  # in this process
    out = tmp_path / "g.jsonl"
    runner = CliRunner()
    res = runner.invoke(app, ["train", "grpo-rollouts", "--agent", "generator",
                              "--tasks", "settings_wifi_toggle", "--seeds", "0-1", "--group-size", "2",
                              "--max-steps", "2", "--out", str(out)])
    assert res.exit_code == 0, res.output
    stats = json.loads(res.stdout[res.stdout.index("{"):])
    assert stats["groups"] == 2 and stats["episodes"] == 4 and stats["frac_reward_zero_std"] == 1.0
    groups = read_groups(out)
    assert [g.key for g in groups] == ["settings_wifi_toggle:0", "settings_wifi_toggle:1"]
    assert groups[0].judge == "rule" and groups[0].config["group_size"] == 2
    x = str(tmp_path / "x.jsonl")
    bad = runner.invoke(app, ["train", "grpo-rollouts", "--temperature", "0", "--out", x])
    assert bad.exit_code == 2 and "temperature must be > 0" in bad.output
    bad = runner.invoke(app, ["train", "grpo-rollouts", "--agent", "oracle", "--out", x])
    assert bad.exit_code == 2 and "sampling agent" in bad.output
    helped = runner.invoke(app, ["train", "--help"])
    assert "grpo-rollouts" in helped.output
