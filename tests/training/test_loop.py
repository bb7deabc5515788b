"""The annotation loop on a tiny random Llama: round 0, a verifier rollout labelled by the oracle,
entropy triage vs labelling everything on the same rollouts, replay, resuming, and V-Droid's joint
annotation (corrections at uncertain steps, the episode going on from them)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from droidverify.errors import TrainingError
from droidverify.tasks import registry
from droidverify.training.collection import collect
from droidverify.training.loop import LoopConfig, run_loop, sim_apps
from droidverify.training.p3 import P3Config
from droidverify.training.records import read_records, write_records


def _cfg(tiny_model_dir: Path, train: Path, out: Path, triage: str) -> LoopConfig:
    tc = P3Config(output_dir=str(out / "round-0" / "trainer"), train_file=str(train), model=str(tiny_model_dir),
                  dtype="float32", lora_r=4, lora_alpha=8, max_steps=2, warmup_steps=1, max_negatives=3,
                  sft_weight=0.0, save_every=1, log_every=1, eval_every=100, max_batch=4)
    return LoopConfig(output_dir=str(out), train_config=tc, rounds=1, rollout_seeds=(0,), steps_per_round=2,
                      triage=triage, triage_quantile=0.5, max_episode_steps=3, rollout_tasks=2, replay=1.0)


def test_loop_labels_triaged_steps_replays_and_resumes(tiny_model_dir: Path, oracle_records,
                                                       tmp_path: Path) -> None:
    train = tmp_path / "round0.jsonl"
    write_records(train, oracle_records)
    tri = run_loop(_cfg(tiny_model_dir, train, tmp_path / "entropy", "entropy"))
    r1 = tri["rounds"][1]["rollout"]
    assert r1["episodes"] == 2 and r1["steps"] == 6  # 2 templates x 3 capped steps, every step labelled
    visited = read_records(tmp_path / "entropy" / "round-1" / "visited.jsonl")
    kept = read_records(tmp_path / "entropy" / "round-1" / "annotated.jsonl")
    assert len(visited) == 6 and 0 < len(kept) < len(visited) == r1["steps"]
    assert all(r.source == "policy" and r.round == 1 and r.entropy is not None for r in visited)
    threshold = r1["threshold"]
    assert all(r.entropy / math.log(len(r.candidates)) >= threshold - 1e-12 for r in kept)
    # Round 1 trains on the new labels plus as many replayed round-0 records.
    merged = read_records(tmp_path / "entropy" / "round-1" / "train.jsonl")
    assert len(merged) == 2 * len(kept)
    assert {r.record_id for r in kept} <= {r.record_id for r in merged}
    assert (tmp_path / "entropy" / "round-1" / "verifier" / "verifier.json").exists()
    # A round fine-tunes at a fraction of round 0's learning rates (LoopConfig.round_lr_scale).
    r1cfg = json.loads((tmp_path / "entropy" / "round-1" / "trainer" / "config.json").read_text())
    r0 = P3Config(output_dir="x", train_file="y")
    assert math.isclose(r1cfg["learning_rate"], 0.25 * r0.learning_rate)
    assert math.isclose(r1cfg["head_learning_rate"], 0.25 * r0.head_learning_rate)
    assert tri["rounds"][1]["labels_total"] == len(oracle_records) + len(kept)

    # A second arm labels every step of the same rollouts (round 0 and visited steps reused).
    arm = tmp_path / "all"
    shutil.copytree(tmp_path / "entropy" / "round-0", arm / "round-0")
    (arm / "round-1").mkdir(parents=True)
    for f in ("visited.jsonl", "visited.stats.json"):
        shutil.copy(tmp_path / "entropy" / "round-1" / f, arm / "round-1" / f)
    everything = run_loop(_cfg(tiny_model_dir, train, arm, "all"))
    assert everything["rounds"][1]["rollout"]["labels_used"] == 6
    assert len(read_records(arm / "round-1" / "annotated.jsonl")) == 6

    # Resuming a finished loop trains nothing again.
    mtime = (arm / "round-1" / "verifier" / "verifier.json").stat().st_mtime
    again = run_loop(_cfg(tiny_model_dir, train, arm, "all"))
    assert (arm / "round-1" / "verifier" / "verifier.json").stat().st_mtime == mtime
    assert json.loads((arm / "loop.json").read_text()) == again


def test_joint_annotation_corrects_uncertain_steps_and_goes_on_from_the_correction(
        tiny_model_dir: Path, oracle_records, tmp_path: Path) -> None:
    """V-Droid's loop on the LLM backbone: at threshold 0 the oracle corrects every step, so the
    rollout walks the oracle's own path; at threshold 1 the verifier's confident choices are executed
    and become labels, and only the corrections count as labels used."""
    train = tmp_path / "round0.jsonl"
    write_records(train, oracle_records)
    every = tmp_path / "every"
    cfg = _cfg(tiny_model_dir, train, every, "joint")
    assert cfg.annotate_above == 0.0 and LoopConfig(output_dir="x", train_config=cfg.train_config).triage == "joint"
    out = run_loop(cfg)
    r1 = out["rounds"][1]["rollout"]
    recs = read_records(every / "round-1" / "annotated.jsonl")
    assert r1["triage"] == "joint" and r1["steps"] == len(recs) == 6
    assert {r.source for r in recs} == {"annotated"} and r1["labels_used"] == 6 and r1["self_labels"] == 0
    oracle_path = list(collect(registry.tasks_for("train", [1000])[:2], split_of=registry.split_of,
                               apps=sim_apps(), max_steps=3))
    assert [r.xml for r in recs] == [r.xml for r in oracle_path]  # corrected at every step: the oracle's path
    assert out["rounds"][1]["labels_total"] == len(oracle_records) + 6

    # Threshold 1: the tiny verifier is never that unsure, so its own choices are executed and labelled.
    confident = tmp_path / "confident"
    shutil.copytree(every / "round-0", confident / "round-0")
    cfg = _cfg(tiny_model_dir, train, confident, "joint")
    cfg.annotate_above = 1.0
    r1 = run_loop(cfg)["rounds"][1]["rollout"]
    recs = read_records(confident / "round-1" / "annotated.jsonl")
    assert r1["self_labels"] == sum(r.source == "self_label" for r in recs) > 0
    assert r1["labels_used"] == sum(r.source == "annotated" for r in recs) == r1["steps"] - r1["self_labels"]
    assert all(r.positive == r.policy_choice for r in recs if r.source == "self_label")
    merged = {r.record_id for r in read_records(confident / "round-1" / "train.jsonl")}
    assert {r.record_id for r in recs} <= merged

    # Jointly annotated rollouts are not the uncorrected path another arm would label.
    arm = tmp_path / "entropy"
    shutil.copytree(every / "round-0", arm / "round-0")
    (arm / "round-1").mkdir(parents=True)
    for f in ("visited.jsonl", "visited.stats.json"):
        shutil.copy(every / "round-1" / f, arm / "round-1" / f)
    with pytest.raises(TrainingError, match="not the same rollouts"):
        run_loop(_cfg(tiny_model_dir, train, arm, "entropy"))
    with pytest.raises(TrainingError, match="unknown triage"):
        _cfg(tiny_model_dir, train, arm, "median")
