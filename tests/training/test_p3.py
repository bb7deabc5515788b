"""P^3 trainer on a tiny random Llama: learning, what trains, resume, and train/inference agreement."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from droidverify.errors import CheckpointError, TrainingError
from droidverify.training.p3 import P3Config, P3Trainer


def _llm(tiny_model_dir: Path):
    from droidverify.llm.local import LocalLLM

    return LocalLLM(tiny_model_dir, dtype="float32", max_batch=4)


def _trainer(tiny_model_dir: Path, records, out: Path, **kw) -> P3Trainer:
    values = {"max_negatives": 5, "max_steps": 50, "warmup_steps": 1, "save_every": 2, "log_every": 1,
              "eval_every": 100, "sft_weight": 0.0, "learning_rate": 5e-3, "max_batch": 4, **kw}
    cfg = P3Config(output_dir=str(out), train_file="", dtype="float32", lora_r=4, lora_alpha=8, **values)
    return P3Trainer(cfg, llm=_llm(tiny_model_dir), train_records=records)


def test_loss_decreases_on_a_fixed_batch(tiny_model_dir: Path, oracle_records, tmp_path: Path) -> None:
    tr = _trainer(tiny_model_dir, oracle_records[:1], tmp_path / "t", lora_dropout=0.0,
                  head_learning_rate=2e-2)
    losses = [tr.train_step().loss for _ in range(15)]
    assert losses[-1] < losses[0] * 0.5, losses


def test_listwise_loss_is_the_softmax_cross_entropy_and_trains_top1(tiny_model_dir: Path, oracle_records,
                                                                     tmp_path: Path) -> None:
    rec = oracle_records[0]
    tr = _trainer(tiny_model_dir, [rec], tmp_path / "t", lora_dropout=0.0, head_learning_rate=0.05,
                  learning_rate=2e-3, loss="listwise", max_negatives=None, sft_weight=0.0)
    fulls, k = tr._prompt_ids(rec)
    chosen = tr._sample(rec, 0)
    assert chosen[0] == rec.positive and sorted(chosen[1:]) == rec.negatives()  # every negative, no equivalent
    with torch.no_grad():
        s = tr._scores([fulls[i] for i in chosen], k).float()
    expected = float(torch.logsumexp(s, 0) - s[0])
    loss, _ = tr._record_loss(rec, 0)
    assert float(loss.detach()) == pytest.approx(expected, rel=1e-4, abs=1e-4)
    metrics = [tr.train_step() for _ in range(15)]
    assert metrics[-1].loss < metrics[0].loss * 0.5, [m.loss for m in metrics]
    assert metrics[-1].top1 == 1.0


def test_gradients_reach_only_the_adapter_and_the_head(tiny_model_dir: Path, oracle_records, tmp_path: Path) -> None:
    tr = _trainer(tiny_model_dir, oracle_records[:2], tmp_path / "t", lora_layers=1, sft_weight=0.5)
    before = {n: p.detach().clone() for n, p in tr.model.named_parameters()}
    head_before = tr.head.linear.weight.detach().clone()
    tr.train_step()
    trainable = {n for n, p in tr.model.named_parameters() if p.requires_grad}
    assert trainable and all("lora_" in n for n in trainable)
    # LoRA only on the last layer: other layers' adapters do not exist, base weights do not move.
    assert all(".layers.2." in n for n in trainable)
    changed = {n for n, p in tr.model.named_parameters() if not torch.equal(p, before[n])}
    assert changed and changed <= trainable
    assert not torch.equal(tr.head.linear.weight, head_before)


def test_resumed_run_matches_an_uninterrupted_one(tiny_model_dir: Path, oracle_records, tmp_path: Path) -> None:
    recs = oracle_records[:6]
    full = _trainer(tiny_model_dir, recs, tmp_path / "full", max_steps=4, lora_dropout=0.1)
    full.train(progress=False)
    a = full.score_record(recs[0])

    # An interrupted run: two steps, a checkpoint, then the process dies.
    part = _trainer(tiny_model_dir, recs, tmp_path / "part", max_steps=4, lora_dropout=0.1)
    part.train_step()
    part.train_step()
    part.save_checkpoint()
    del part
    # Lines a crashed process logged after its last checkpoint must not survive the resume.
    (tmp_path / "part" / "log.jsonl").write_text('{"type": "train", "step": 3, "loss": 99.0}\n{"step": 3, "tor')
    torch.manual_seed(123)  # resuming must restore RNG state, whatever the process did before
    resumed = _trainer(tiny_model_dir, recs, tmp_path / "part", max_steps=4, lora_dropout=0.1)
    resumed.train(progress=False)
    assert resumed.state.step == 4 and resumed.state.seen == full.state.seen
    assert resumed.score_record(recs[0]) == pytest.approx(a, abs=1e-6)
    full_log = [json.loads(x) for x in (tmp_path / "full" / "log.jsonl").read_text().splitlines()]
    part_log = [json.loads(x) for x in (tmp_path / "part" / "log.jsonl").read_text().splitlines()]
    assert [x["loss"] for x in full_log[2:]] == pytest.approx([x["loss"] for x in part_log], abs=1e-6)
    assert (tmp_path / "full" / "curves.png").stat().st_size > 1000


def test_trainer_scores_equal_agent_scores(tiny_model_dir: Path, tmp_path: Path) -> None:
    """Export, load as the agent does, act on the same screen: identical candidate scores."""
    from droidverify.agents.verifier.trained import load_verifier
    from droidverify.env.sim import SimEnv
    from droidverify.tasks import registry
    from droidverify.training.collection import collect
    from droidverify.training.loop import sim_apps

    task = registry.get_template("clock_create_alarm").instantiate(0)
    recs = list(collect([task], split_of=registry.split_of, apps=sim_apps()))
    tr = _trainer(tiny_model_dir, recs, tmp_path / "t", max_steps=2)
    tr.train(progress=False)
    vdir = tr.export(tmp_path / "verifier")
    trained_scores = tr.score_record(recs[0])

    agent = load_verifier(vdir, model=str(tiny_model_dir), dtype="float32", apps=sim_apps())
    env = SimEnv(task=task, seed=0)
    agent.reset(task.goal)
    out = agent.act(env.reset(), [])
    agent_scores = [c["score"] for c in out.info["candidates"]]
    assert out.info["score_kind"] == "head"
    assert [c["action"] for c in out.info["candidates"]] == recs[0].candidates
    assert agent_scores == pytest.approx(trained_scores, abs=1e-4)


def test_bad_config_and_broken_checkpoints_raise_typed_errors(tiny_model_dir: Path, oracle_records,
                                                             tmp_path: Path) -> None:
    with pytest.raises(TrainingError, match="head"):
        P3Config(output_dir="x", train_file="", head="mlp").validate()
    with pytest.raises(TrainingError, match="max_negatives"):
        P3Config(output_dir="x", train_file="", max_negatives=0).validate()
    with pytest.raises(TrainingError, match="loss"):
        P3Config(output_dir="x", train_file="", loss="hinge").validate()
    tr = _trainer(tiny_model_dir, oracle_records[:2], tmp_path / "t")
    (tmp_path / "bad").mkdir()
    with pytest.raises(CheckpointError):
        tr.load_checkpoint(tmp_path / "bad")
    from droidverify.agents.verifier.trained import read_verifier_meta

    with pytest.raises(CheckpointError, match="not a trained verifier"):
        read_verifier_meta(tmp_path / "bad")
    (tmp_path / "bad" / "verifier.json").write_text('{"format": "other"}')
    with pytest.raises(CheckpointError, match="unknown verifier format"):
        read_verifier_meta(tmp_path / "bad")


def test_naive_trainer_gives_the_same_scores(tiny_model_dir: Path, oracle_records, tmp_path: Path) -> None:
    """The benchmark's baseline (every full prompt on its own) computes the same function."""
    tr = _trainer(tiny_model_dir, oracle_records[:1], tmp_path / "t")
    rec = oracle_records[0]
    shared = tr.score_record(rec)
    tr.config.naive_forward = True
    assert tr.score_record(rec) == pytest.approx(shared, abs=1e-4)


def test_sampled_negatives_skip_equivalents_and_keep_hard_ones(tiny_model_dir: Path, oracle_records,
                                                               tmp_path: Path) -> None:
    rec = next(r for r in oracle_records if len(r.candidates) > 12 and r.positive_action.action_type != "status")
    status = next(i for i, c in enumerate(rec.candidates) if json.loads(c)["action_type"] == "status")
    back = next(i for i, c in enumerate(rec.candidates) if json.loads(c)["action_type"] == "navigate_back")
    others = [i for i in range(len(rec.candidates)) if i not in (rec.positive, status, back)]
    rec = rec.model_copy(update={"equivalent": others[:3]})
    tr = _trainer(tiny_model_dir, [rec], tmp_path / "t", max_negatives=4)
    for index in range(20):
        chosen = tr._sample(rec, index)
        assert chosen[0] == rec.positive and len(chosen) == 5 and len(set(chosen)) == 5
        assert status in chosen and back in chosen  # the over-picked actions are always negatives
        assert not set(chosen[1:]) & rec.correct
    # Held-out top-1 counts an equivalent's win as right, and only then.
    scores = tr.score_record(rec)
    best = max(range(len(scores)), key=scores.__getitem__)
    pos = next(i for i in range(len(scores)) if i != best)
    plain = rec.model_copy(update={"positive": pos, "equivalent": []})
    assert tr.evaluate([plain])["top1"] == 0.0
    assert tr.evaluate([plain.model_copy(update={"equivalent": [best]})])["top1"] == 1.0
