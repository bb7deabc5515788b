"""The compact policy's SFT and ASL trainers: ASL's loss against a hand computation, gradients,
rewards from the recorded semantics or a semantic table, resume, export as a runnable verifier."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))
from compact_doubles import compact_records, hash_encoder, small_config

from droidverify.agents.verifier.compact.scorer import CompactScorer
from droidverify.errors import TrainingError
from droidverify.training.policy import PolicyConfig, PolicyTrainer, asl_loss, exact_rewards


@pytest.fixture(scope="module")
def records():
    return compact_records()


def _config(tmp_path: Path, records, **kw) -> PolicyConfig:
    return small_config(PolicyConfig, tmp_path, records, **{"epochs": 2, **kw})


def test_asl_loss_matches_a_hand_computation_and_its_gradient_flows():
    import torch

    s = torch.tensor([[2.0, 0.0, 1.0, float("-inf")], [0.5, 1.5, float("-inf"), float("-inf")]], requires_grad=True)
    ref = [0, 1]
    sampled = torch.tensor([[2], [0]])
    r = torch.tensor([[0.8], [0.0]])
    loss = asl_loss(s, ref, sampled, r)

    def row(scores: list[float], ref_i: int, a: int, reward: float) -> float:
        z = math.log(sum(math.exp(x) for x in scores))
        sft = z - scores[ref_i]
        alpha = math.exp(-sft)
        lam = 1 - (1 - alpha) * reward
        return -reward * (scores[a] - z) + lam * sft

    want = (row([2.0, 0.0, 1.0], 0, 2, 0.8) + row([0.5, 1.5], 1, 0, 0.0)) / 2
    assert float(loss.detach()) == pytest.approx(want, abs=1e-6)
    loss.backward()
    assert s.grad is not None and torch.isfinite(s.grad[:, :2]).all() and float(s.grad.abs().sum()) > 0
    # r = 0 leaves plain SFT (lambda = 1); r = 1 on the reference leaves SFT weighted by alpha plus -log p
    only_sft = asl_loss(s.detach(), [1], torch.tensor([[0]]), torch.tensor([[0.0]]))
    assert float(only_sft) == pytest.approx(math.log(math.exp(2) + 1 + math.exp(1)) - 0.0, abs=1e-6)


def test_exact_rewards_are_one_on_the_reference_and_its_equivalents(tmp_path, records):
    trainer = PolicyTrainer(_config(tmp_path, records, objective="asl"), encoder=hash_encoder())
    trainer.load_data()
    with_equivalents = [ex for ex in trainer.train_examples if len(ex.correct) > 1]
    assert with_equivalents, "opening an app by its icon and by open_app are equivalent"
    for ex in trainer.train_examples:
        assert ex.meta["reward"] == exact_rewards(ex)
        assert {j for j, x in enumerate(ex.meta["reward"]) if x == 1.0} == ex.correct


def test_asl_with_a_semantic_table_caches_rows_and_keeps_the_exact_ones(tmp_path, records):
    calls: list[int] = []

    def table(xml, actions, reference):
        calls.append(len(actions))
        return [0.3] * len(actions)

    cfg = _config(tmp_path, records, objective="asl", reward="table", reward_name="fake")
    trainer = PolicyTrainer(cfg, table=table, encoder=hash_encoder())
    trainer.load_data()
    n = len(calls)
    assert n == len(trainer.train_examples)
    for ex in trainer.train_examples:
        assert all(x == (1.0 if j in ex.correct else 0.3) for j, x in enumerate(ex.meta["reward"]))
    assert (tmp_path / "out" / "rewards-fake.json").is_file()
    again = PolicyTrainer(_config(tmp_path, records, objective="asl", reward="table", reward_name="fake"),
                          table=table, encoder=hash_encoder())
    again.load_data()
    assert len(calls) == n, "a rerun reads the cached table"


def test_a_table_returning_the_wrong_length_is_refused(tmp_path, records):
    cfg = _config(tmp_path, records[:3], objective="asl", reward="table", reward_name="bad")
    with pytest.raises(TrainingError, match="returned 1 values"):
        PolicyTrainer(cfg, table=lambda xml, a, r: [0.0], encoder=hash_encoder()).load_data()


@pytest.mark.parametrize("objective", ["sft", "asl"])
def test_training_drives_the_loss_down_and_exports_a_runnable_verifier(tmp_path, records, objective):
    trainer = PolicyTrainer(_config(tmp_path, records, objective=objective, epochs=30), encoder=hash_encoder())
    result = trainer.train()
    log = [json.loads(x) for x in (tmp_path / "out" / "log.jsonl").read_text().splitlines()]
    assert log[-1]["loss"] < 0.5 * log[0]["loss"]
    assert result["train_fit"]["top1"] >= 0.9 and result["objective"] == objective
    path = trainer.export(tmp_path / "v", provenance={"command": "t"})
    assert json.loads((path / "provenance.json").read_text())["objective"] == objective
    scorer = CompactScorer.load(path, encoder=hash_encoder())
    rec = records[0]
    assert scorer.score_views([trainer.examples([rec])[0].view])[0] == pytest.approx(trainer.score_record(rec), abs=1e-5)


def test_resume_gives_the_same_next_step_as_an_uninterrupted_run(tmp_path, records):
    import torch

    straight = PolicyTrainer(_config(tmp_path / "a", records, objective="asl", epochs=2), encoder=hash_encoder())
    straight.train()
    # interrupted after its first epoch (a time budget of ~0 stops at the first checkpoint)
    first = PolicyTrainer(_config(tmp_path / "b", records, objective="asl", epochs=2, max_minutes=1e-9),
                          encoder=hash_encoder())
    assert first.train()["stopped_by"] == "time budget" and first.epoch == 1
    resumed = PolicyTrainer(_config(tmp_path / "b", records, objective="asl", epochs=2), encoder=hash_encoder())
    resumed.train()
    for (k, a), b in zip(straight.net.state_dict().items(), resumed.net.state_dict().values(), strict=True):
        assert torch.allclose(a, b, atol=1e-6), k


def test_bad_settings_are_refused(tmp_path, records):
    with pytest.raises(TrainingError, match="objective"):
        PolicyTrainer(_config(tmp_path, records, objective="ppo"), encoder=hash_encoder())
    with pytest.raises(TrainingError, match="needs a semantic table"):
        PolicyTrainer(_config(tmp_path, records, objective="asl", reward="table"), encoder=hash_encoder())
    with pytest.raises(TrainingError, match="tau"):
        PolicyTrainer(_config(tmp_path, records, objective="asl", tau=2.0), encoder=hash_encoder())
