"""The world-model trainer (training/world_model.py) on a tiny model over a hash embedder double."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))
from compact_doubles import hash_encoder

from droidverify.errors import CheckpointError, TrainingDataError, TrainingError
from droidverify.rewards.see import LearnedWorldModel, WorldNetConfig, collect_transitions
from droidverify.training.world_model import WorldModelConfig, WorldModelTrainer


@pytest.fixture(scope="module")
def transitions():
    return collect_transitions(templates=["contacts_add_to_favorites"], max_states=2)


def model(seed: int = 0) -> LearnedWorldModel:
    return LearnedWorldModel.create(WorldNetConfig(d_model=16, layers=1, heads=2, ff=32, dropout=0.0),
                                    encoder=hash_encoder(32), seed=seed)


def test_training_on_a_fixed_small_batch_drives_the_loss_down(transitions, tmp_path: Path) -> None:
    m = model()
    batch = m.examples(transitions)[:32]
    trainer = WorldModelTrainer(m, WorldModelConfig(output_dir=str(tmp_path), epochs=40, batch_size=32,
                                                    learning_rate=1e-2, warmup_ratio=0.0), batch, batch[:8])
    before = trainer.evaluate(batch)["mean_cosine"]
    result = trainer.train()
    losses = [h["loss"] for h in trainer.history]
    assert len(losses) == 40 and losses[-1] < 0.5 * losses[0]
    assert result["train_fit"]["mean_cosine"] > before + 0.2
    log = [json.loads(x) for x in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert [r["epoch"] for r in log] == list(range(1, 41)) and "eval_mean_cosine" in log[-1]
    assert (tmp_path / "result.json").is_file() and list(tmp_path.glob("embeddings-*.npz"))


def test_a_run_resumes_where_it_stopped_and_refuses_other_settings(transitions, tmp_path: Path) -> None:
    data = model().examples(transitions)[:40]
    metrics_seen = []

    def metrics(m):
        metrics_seen.append(m)
        return {"fake_auc": 0.5}

    first = WorldModelTrainer(model(), WorldModelConfig(output_dir=str(tmp_path), epochs=2, batch_size=16), data,
                              compute_metrics=metrics)
    first.train()
    second = WorldModelTrainer(model(), WorldModelConfig(output_dir=str(tmp_path), epochs=3, batch_size=16), data)
    result = second.train()
    assert result["epochs"] == 3 and second.step == 3 * 3  # 40 examples in batches of 16
    assert len((tmp_path / "log.jsonl").read_text().splitlines()) == 3
    assert len(metrics_seen) == 3 and json.loads((tmp_path / "log.jsonl").read_text().splitlines()[0])["fake_auc"] == 0.5
    with pytest.raises(CheckpointError, match="learning_rate"):
        WorldModelTrainer(model(), WorldModelConfig(output_dir=str(tmp_path), epochs=4, batch_size=16,
                                                    learning_rate=1e-4), data).train()
    with pytest.raises(CheckpointError, match="training data"):
        WorldModelTrainer(model(), WorldModelConfig(output_dir=str(tmp_path), epochs=4, batch_size=16),
                          data[:30]).train()


def test_export_is_the_trained_model(transitions, tmp_path: Path) -> None:
    m = model(seed=1)
    data = m.examples(transitions)[:24]
    trainer = WorldModelTrainer(m, WorldModelConfig(output_dir=str(tmp_path / "run"), epochs=1, batch_size=8), data)
    trainer.train()
    where = trainer.export(tmp_path / "wm", provenance={"command": "droidverify train world-model --out run"})
    again = LearnedWorldModel.load(where, encoder=hash_encoder(32))
    inputs = [ex.input for ex in data]
    m.clear_cache()
    assert np.array_equal(again.predict_inputs(inputs), m.predict_inputs(inputs))
    meta = json.loads((where / "world_model.json").read_text())
    assert meta["train_config"]["epochs"] == 1 and not Path(meta["train_config"]["output_dir"]).is_absolute()


def test_bad_settings_and_data_are_typed_errors(tmp_path: Path) -> None:
    for bad in ({"epochs": 0}, {"batch_size": 0}, {"learning_rate": 0.0}, {"warmup_ratio": 1.0},
                {"max_minutes": -1.0}, {"eval_examples": 0}, {"output_dir": ""}):
        with pytest.raises(TrainingError):
            WorldModelConfig(**{"output_dir": str(tmp_path), **bad}).validate()
    with pytest.raises(TrainingDataError):
        WorldModelTrainer(model(), WorldModelConfig(output_dir=str(tmp_path)), [])
    with pytest.raises(TrainingError):
        WorldNetConfig(d_model=10, heads=4).validate()
    with pytest.raises(TrainingError):
        WorldNetConfig(dropout=1.0).validate()


def test_the_command_is_registered_and_checks_its_shape_before_collecting(tmp_path: Path) -> None:
    from droidverify.cli import app

    runner = CliRunner()
    shown = runner.invoke(app, ["train", "world-model", "--help"])
    assert shown.exit_code == 0 and "--eval-pairs" in shown.output
    bad = runner.invoke(app, ["train", "world-model", "--out", str(tmp_path / "run"), "--d-model", "10"])
    assert bad.exit_code == 2 and not list((tmp_path).glob("run/transitions-*"))
