"""The annotation loop on a tiny random Llama: round 0, a verifier rollout labelled by the oracle,
entropy triage vs labelling everything on the same rollouts, replay, and resuming."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

from droidverify.training.loop import LoopConfig, run_loop
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
