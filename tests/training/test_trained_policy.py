"""Playing a trained LLM policy (``train llm-policy``'s export) as an agent: ``run --policy``,
``make_agent(policy=)``, ``AgentSpec(policy=)``; the policy is merged into the base it was trained
on, and a policy of another agent, memory, model or format is refused before anything runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch

from droidverify.errors import CheckpointError, RunConfigError, RunError, TrainingError
from droidverify.training.llm_policy import LLMPolicyConfig, LLMPolicyTrainer
from tests.training.conftest import build_tiny_model


def _llm(model_dir: Path):
    from droidverify.llm.local import LocalLLM

    return LocalLLM(model_dir, dtype="float32")


@pytest.fixture(scope="module")
def short_records(oracle_records) -> list:
    return sorted(oracle_records, key=lambda r: len(r.xml or "") + len(r.memory))[:3]


def _train(model_dir: Path, records, out: Path, agent: str = "generator") -> LLMPolicyTrainer:
    cfg = LLMPolicyConfig(output_dir=str(out), dtype="float32", agent=agent, lora_r=4, lora_alpha=8,
                          learning_rate=2e-2, warmup_steps=1, max_steps=3, max_seq_tokens=8192)
    tr = LLMPolicyTrainer(cfg, llm=_llm(model_dir), records=records)
    tr.train()
    return tr


@pytest.fixture(scope="module")
def trained(tiny_model_dir: Path, short_records, tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("policy")
    tr = _train(tiny_model_dir, short_records, root / "run")
    return tr, tr.export(root / "policy")


def _logits(llm, ids: list[int]) -> torch.Tensor:
    with torch.no_grad():
        return llm.model(input_ids=torch.tensor([ids])).logits[0]


def test_an_agent_plays_the_trained_policy_not_the_base(tiny_model_dir: Path, trained, short_records) -> None:
    from droidverify.agents.generator import GeneratorAgent
    from droidverify.agents.registry import AgentSpec

    tr, policy = trained
    seq = tr.sft_example(short_records[0])
    tr.model.eval()
    with torch.no_grad():
        want = tr.model(input_ids=torch.tensor([seq.prompt + seq.reply])).logits[0]
    spec = AgentSpec("generator", model=str(tiny_model_dir), dtype="float32", policy=policy)
    agent = spec()
    assert isinstance(agent, GeneratorAgent) and agent.description == "list"
    got = _logits(agent.llm, seq.prompt + seq.reply)
    assert torch.allclose(got, want, atol=1e-4)
    assert not torch.allclose(got, _logits(_llm(tiny_model_dir), seq.prompt + seq.reply), atol=1e-4)
    assert spec().llm is agent.llm  # later agents of the spec share the merged model: merged once
    assert agent.llm.name.endswith("+policy")


def test_a_policy_is_refused_for_another_agent_memory_model_or_format(tiny_model_dir: Path, trained,
                                                                      tmp_path: Path) -> None:
    from droidverify.agents.registry import AgentSpec, make_agent

    _, policy = trained
    with pytest.raises(CheckpointError, match="generator agent's prompt"):
        AgentSpec("smartsnap", model=str(tiny_model_dir), dtype="float32", policy=policy)()
    with pytest.raises(CheckpointError, match="'diff' memory"):
        AgentSpec("generator", model=str(tiny_model_dir), dtype="float32", memory="notes", policy=policy)()
    with pytest.raises(RunError, match="policy= applies only"):
        make_agent("verifier", model=str(tiny_model_dir), policy=policy)
    other = build_tiny_model(tmp_path / "deeper", seed=1)
    cfg = json.loads((other / "config.json").read_text())
    cfg["num_hidden_layers"] = 4
    (other / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(CheckpointError, match="layers"):
        AgentSpec("generator", model=str(other), dtype="float32", policy=policy)()
    with pytest.raises(RunError, match="cannot share"):
        AgentSpec("generator", policy=policy).with_llm(object())
    bad = tmp_path / "bad"
    shutil.copytree(policy, bad)
    meta = json.loads((bad / "policy.json").read_text())
    (bad / "policy.json").write_text(json.dumps({**meta, "version": 99}))
    with pytest.raises(CheckpointError, match="unknown policy format"):
        AgentSpec("generator", model=str(tiny_model_dir), policy=bad)()
    (bad / "policy.json").write_text(json.dumps({**meta, "ui_style": "pixels"}))
    with pytest.raises(CheckpointError, match="ui_style 'pixels'"):
        AgentSpec("generator", model=str(tiny_model_dir), policy=bad)()
    (bad / "policy.json").write_text("{not json")
    with pytest.raises(CheckpointError, match="cannot read"):
        AgentSpec("generator", model=str(tiny_model_dir), policy=bad)()
    with pytest.raises(CheckpointError, match="no policy.json"):
        AgentSpec("generator", model=str(tiny_model_dir), policy=tmp_path)()


def test_a_smartsnap_policy_builds_the_self_verifying_agent(tiny_model_dir: Path, short_records,
                                                             tmp_path: Path) -> None:
    from droidverify.agents.registry import AgentSpec
    from droidverify.agents.selfverify import SelfVerifyingAgent

    tr = _train(tiny_model_dir, short_records[:2], tmp_path / "run", agent="smartsnap")
    policy = tr.export(tmp_path / "policy")
    agent = AgentSpec("smartsnap", model=str(tiny_model_dir), dtype="float32", policy=policy)()
    assert isinstance(agent, SelfVerifyingAgent)


def test_run_policy_records_the_policy_and_refuses_bad_options(tiny_model_dir: Path, trained,
                                                               tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from droidverify.cli import app
    from droidverify.cli._run_config import RunConfig

    _, policy = trained
    out = tmp_path / "run"
    args = ["run", "--agent", "generator", "--model", str(tiny_model_dir), "--dtype", "float32", "--policy",
            str(policy), "--tasks", "clock_alarm_in_minutes", "--max-steps", "2", "--no-progress", "--out", str(out)]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    config = json.loads((out / "run.json").read_text())["config"]
    assert config["policy"] == str(policy.resolve()) and len(config["policy_digest"]) == 64
    assert config["memory"] == "diff"
    ep = json.loads((out / "episodes.jsonl").read_text().splitlines()[0])
    assert ep["agent"] == "generator" and ep["n_steps"] == 2 and ep["agent_error"] is None
    with pytest.raises(RunConfigError, match="applies only to --agent generator"):
        RunConfig.of(agent="verifier", policy=str(policy))
    with pytest.raises(RunConfigError, match="openai:URL"):
        RunConfig.of(agent="generator", model="openai:http://127.0.0.1:9/v1", policy=str(policy))
    with pytest.raises(RunConfigError, match="--policy: .*smartsnap|--policy: .*generator agent's prompt"):
        RunConfig.of(agent="smartsnap", model=str(tiny_model_dir), policy=str(policy), tasks="clock_alarm_in_minutes").resolve()
    with pytest.raises(RunConfigError, match="--policy: .*no policy.json"):
        RunConfig.of(agent="generator", policy=str(tmp_path), tasks="clock_alarm_in_minutes").resolve()
    bad = CliRunner().invoke(app, [*args[:-2], "--out", str(tmp_path / "r2"), "--policy", str(tmp_path)])
    assert bad.exit_code == 2 and "no policy.json" in bad.output


# ---------------------------------------------------------------------------------------------------
# a policy trained from another (--init): GRPO from the SFT start
# ---------------------------------------------------------------------------------------------------
def test_a_policy_trained_from_another_carries_it_and_plays_both(tiny_model_dir: Path, trained, short_records,
                                                                 tmp_path: Path) -> None:
    from droidverify.agents.registry import AgentSpec
    from droidverify.agents.trained_policy import policy_digest

    _, first = trained
    cfg = LLMPolicyConfig(output_dir=str(tmp_path / "run"), dtype="float32", lora_r=4, lora_alpha=8,
                          learning_rate=2e-2, warmup_steps=1, max_steps=2, max_seq_tokens=8192,
                          init_policy=str(first))
    tr = LLMPolicyTrainer(cfg, llm=_llm(tiny_model_dir), records=short_records)
    seq = tr.sft_example(short_records[0])
    # before its first step the run is the first policy (what GRPO's pi_old and KL reference are)
    first_logits = _logits(AgentSpec("generator", model=str(tiny_model_dir), dtype="float32", policy=first)().llm,
                           seq.prompt + seq.reply)
    tr.model.eval()
    with torch.no_grad():
        assert torch.allclose(tr.model(input_ids=torch.tensor([seq.prompt + seq.reply])).logits[0], first_logits,
                              atol=1e-4)
    tr.train()
    second = tr.export(tmp_path / "second")
    meta = json.loads((second / "policy.json").read_text())
    assert meta["init"]["digest"] == policy_digest(first) and (second / "init" / "policy.json").is_file()
    assert meta["train_config"]["init_policy"].endswith("policy")  # relative to the run directory
    tr.model.eval()
    with torch.no_grad():
        want = tr.model(input_ids=torch.tensor([seq.prompt + seq.reply])).logits[0]
    got = _logits(AgentSpec("generator", model=str(tiny_model_dir), dtype="float32", policy=second)().llm,
                  seq.prompt + seq.reply)
    assert torch.allclose(got, want, atol=1e-4) and not torch.allclose(got, first_logits, atol=1e-4)
    # the carried init is checked by digest: a swapped one is refused
    swapped = tmp_path / "swapped"
    shutil.copytree(second, swapped)
    (swapped / "init" / "provenance.json").write_text("{}")  # provenance is not part of the digest
    AgentSpec("generator", model=str(tiny_model_dir), dtype="float32", policy=swapped)()
    shutil.rmtree(swapped / "init")
    shutil.copytree(second, swapped / "init")  # another policy in its place
    with pytest.raises(CheckpointError, match="is not the policy"):
        AgentSpec("generator", model=str(tiny_model_dir), dtype="float32", policy=swapped)()
    with pytest.raises(TrainingError, match="smartsnap agent's prompt|generator agent's prompt"):
        LLMPolicyTrainer(LLMPolicyConfig(output_dir=str(tmp_path / "r2"), dtype="float32", agent="smartsnap",
                                         init_policy=str(first)), llm=_llm(tiny_model_dir), records=short_records)


def test_grpo_trains_from_the_policy_that_played_the_groups(tiny_model_dir: Path, trained, short_records,
                                                            tmp_path: Path) -> None:
    from droidverify.agents.trained_policy import policy_digest
    from droidverify.runner.grpo import GRPOPlayer
    from droidverify.training.grpo import GRPOConfig
    from tests.training.test_llm_policy import _groups

    _, first = trained
    digest = policy_digest(first)
    groups = _groups(short_records)
    for g in groups:
        g.config = {"policy": digest}

    def grpo(out: str, init: str | None) -> LLMPolicyTrainer:
        cfg = LLMPolicyConfig(output_dir=str(tmp_path / out), objective="grpo", dtype="float32", lora_r=4,
                              lora_alpha=8, max_seq_tokens=8192, batch_size=3, init_policy=init)
        return LLMPolicyTrainer(cfg, llm=_llm(tiny_model_dir), groups=groups)

    with pytest.raises(TrainingError, match="played by policy .* starts from the untrained model"):
        grpo("a", None)
    assert grpo("b", str(first)).train()["step"] >= 1
    for g in groups:
        g.config = {}
    with pytest.raises(TrainingError, match="played by the untrained model"):
        grpo("c", str(first))
    # the player merges the policy and says so in the groups' config
    cfg = GRPOConfig(group_size=2, max_steps=1, max_tokens=8, tasks=["clock_alarm_in_minutes"], policy=digest)
    player = GRPOPlayer("generator", model=str(tiny_model_dir), dtype="float32", policy=str(first))
    worker = player(cfg)
    assert worker.llm.name.endswith("+policy") and worker.make_agent(0).description == "list"
    with pytest.raises(RunError, match="not the digest"):
        player(GRPOConfig(group_size=2, max_steps=1, tasks=["clock_alarm_in_minutes"], policy="0" * 64))
    with pytest.raises(RunError, match="plays none"):
        GRPOPlayer("generator", model=str(tiny_model_dir), dtype="float32")(cfg)
    with pytest.raises(CheckpointError, match="generator agent's prompt"):
        GRPOPlayer("smartsnap", model=str(tiny_model_dir), policy=str(first))


def test_a_policy_given_to_an_agent_without_a_policy_model_is_refused(trained) -> None:
    from droidverify.agents.registry import AgentSpec

    _, policy = trained
    for agent in ("verifier", "oracle", "random"):
        with pytest.raises(RunError, match="trained LLM policy plays"):
            AgentSpec(agent, policy=policy)()


def test_a_run_adopts_the_memory_the_policy_was_trained_with(tiny_model_dir: Path, short_records,
                                                             tmp_path: Path) -> None:
    from droidverify.cli._run_config import RunConfig

    cfg = LLMPolicyConfig(output_dir=str(tmp_path / "run"), dtype="float32", memory="notes", lora_r=4,
                          lora_alpha=8, max_steps=1, max_seq_tokens=8192)
    policy = LLMPolicyTrainer(cfg, llm=_llm(tiny_model_dir), records=short_records[:1]).export(tmp_path / "p")
    assert json.loads((policy / "policy.json").read_text())["memory"] == "notes"
    run = RunConfig.of(agent="generator", model=str(tiny_model_dir), policy=str(policy), tasks="clock_alarm_in_minutes")
    resolved = run.resolve()
    assert resolved.agent.memory == "notes" and resolved.run_json["memory"] == "notes"
    with pytest.raises(RunConfigError, match="'notes' memory"):
        RunConfig.of(agent="generator", model=str(tiny_model_dir), policy=str(policy), memory="diff",
                     tasks="clock_alarm_in_minutes").resolve()
    with pytest.raises(TrainingError, match="memory must be one of"):
        LLMPolicyConfig(output_dir=str(tmp_path / "x"), memory="photographic").validate()
