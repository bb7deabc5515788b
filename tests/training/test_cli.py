"""CLI: train data, run --verifier checks, triage on a verifier run directory."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from training_doubles import RecordingLLM
from typer.testing import CliRunner

from droidverify.cli import app

runner = CliRunner()


def _recording_trainer(seen: list) -> type:
    """A trainer double that records its config, makes its output directory and trains nothing."""

    class FakeTrainer:
        def __init__(self, cfg, **kw) -> None:
            seen.append(cfg)
            Path(cfg.output_dir).mkdir(parents=True, exist_ok=True)

        def train(self) -> dict:
            return {}

        def export(self, path, *, provenance=None) -> Path:
            return Path(path)

    return FakeTrainer


@pytest.mark.slow
def test_train_data_writes_records_and_stats(tmp_path: Path) -> None:
    out = tmp_path / "d.jsonl"
    # oracle episodes of the validation split only (53 templates; train has 127): the command, not the data
    res = runner.invoke(app, ["train", "data", "--out", str(out), "--split", "validation", "--oracle-seeds", "0",
                              "--noisy-seeds", "", "--start-seeds", ""])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout.strip().splitlines()[-1])["records"] == len(out.read_text().splitlines()) > 100
    bad = runner.invoke(app, ["train", "data", "--out", str(out), "--split", "dev"])
    assert bad.exit_code == 2 and "unknown split" in bad.output


def test_run_refuses_a_bad_verifier_before_loading_any_model(tmp_path: Path) -> None:
    res = runner.invoke(app, ["run", "--agent", "verifier", "--verifier", str(tmp_path), "--tasks",
                              "clock_create_alarm", "--out", str(tmp_path / "r")])
    assert res.exit_code == 2 and "not a trained verifier" in res.output
    res = runner.invoke(app, ["run", "--agent", "oracle", "--verifier", str(tmp_path), "--tasks",
                              "clock_create_alarm", "--out", str(tmp_path / "r2")])
    assert res.exit_code == 2 and "only to --agent verifier" in res.output
    res = runner.invoke(app, ["run", "--agent", "verifier", "--model", "openai:http://127.0.0.1:9/v1",
                              "--verifier", str(tmp_path), "--tasks", "clock_create_alarm", "--out",
                              str(tmp_path / "r3")])
    assert res.exit_code == 2 and "needs a local model" in res.output


def test_triage_lists_the_most_uncertain_steps(tmp_path: Path) -> None:
    from droidverify.agents.verifier import VerifierAgent
    from droidverify.env.sim import SimEnv
    from droidverify.runner.run import run_many
    from droidverify.tasks import registry
    from droidverify.training.loop import sim_apps

    llm = RecordingLLM()
    pairs = [(registry.get_template("clock_create_alarm"), 0)]
    run_many(lambda: VerifierAgent(llm, apps=sim_apps()), pairs, tmp_path / "run",
             env_factory=lambda task, seed: SimEnv(task=task, seed=seed), progress=False, max_steps=3,
             report=False)
    res = runner.invoke(app, ["triage", str(tmp_path / "run"), "--quantile", "0.0"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "3 of 3 steps" in res.output and "clock_create_alarm" in res.output
    res = runner.invoke(app, ["triage", str(tmp_path)])
    assert res.exit_code == 2 and "not a run directory" in res.output


def test_train_loop_and_default_run_rollouts_on_the_workers_asked_for(tmp_path: Path, monkeypatch) -> None:
    """--workers N gives run_loop (and data collection) a LocalBackend of N processes, closed after."""
    import droidverify.training.loop as loop_mod
    from droidverify.runner.backends import LocalBackend

    seen: list[object] = []
    configs: list[object] = []

    def fake_run_loop(cfg, *, progress=None, provenance=None, backend=None):
        seen.append(backend)
        configs.append(cfg)
        return {"rounds": [{"round": 0, "verifier": str(tmp_path / "v")}]}

    monkeypatch.setattr(loop_mod, "run_loop", fake_run_loop)
    train = tmp_path / "train.jsonl"
    train.write_text("")
    res = runner.invoke(app, ["train", "loop", "--train", str(train), "--out", str(tmp_path / "l"), "--workers", "2"])
    assert res.exit_code == 0, res.output
    assert isinstance(seen[-1], LocalBackend) and seen[-1].workers == 2
    res = runner.invoke(app, ["train", "loop", "--train", str(train), "--out", str(tmp_path / "l")])
    assert res.exit_code == 0, res.output
    assert seen[-1] is None  # one worker: this process, as before
    assert (configs[-1].triage, configs[-1].annotate_above) == ("joint", 0.0)  # V-Droid's loop by default
    res = runner.invoke(app, ["train", "loop", "--train", str(train), "--out", str(tmp_path / "l"),
                              "--triage", "joint", "--annotate-above", "0.6"])
    assert res.exit_code == 0 and configs[-1].annotate_above == 0.6
    res = runner.invoke(app, ["train", "loop", "--train", str(train), "--out", str(tmp_path / "l"),
                              "--triage", "median"])
    assert res.exit_code != 0 and "unknown triage 'median'" in res.output
    data = tmp_path / "d" / "data"
    data.mkdir(parents=True)
    (data / "train.jsonl").write_text("")
    (data / "eval.jsonl").write_text("")
    res = runner.invoke(app, ["train", "default", "--backbone", "llm", "--out", str(tmp_path / "d"),
                              "--workers", "2", "--rounds", "1", "--annotate-above", "0.4"])
    assert res.exit_code == 0, res.output
    assert isinstance(seen[-1], LocalBackend)
    assert (configs[-1].triage, configs[-1].annotate_above, configs[-1].rounds) == ("joint", 0.4, 1)
    bad = runner.invoke(app, ["train", "loop", "--train", str(train), "--out", str(tmp_path / "l"),
                              "--workers", "zero"])
    assert bad.exit_code == 2 and "workers" in bad.output


def test_train_verifier_passes_the_loss_and_refuses_a_bad_one_before_loading(tmp_path: Path, monkeypatch) -> None:
    from droidverify.training import p3

    seen: list[object] = []
    monkeypatch.setattr(p3, "P3Trainer", _recording_trainer(seen))
    train = tmp_path / "train.jsonl"
    train.write_text("")
    res = runner.invoke(app, ["train", "verifier", "--train", str(train), "--out", str(tmp_path / "t"),
                              "--loss", "listwise", "--all-negatives", "--lr", "3e-4", "--head-lr", "2e-5"])
    assert res.exit_code == 0, res.output
    assert seen[0].loss == "listwise" and seen[0].max_negatives is None
    assert (seen[0].learning_rate, seen[0].head_learning_rate) == (3e-4, 2e-5)
    bad = runner.invoke(app, ["train", "verifier", "--train", str(train), "--out", str(tmp_path / "t"),
                              "--loss", "hinge"])
    assert bad.exit_code != 0 and "loss must be one of" in bad.output
    assert len(seen) == 1  # refused before a trainer (and its model) was built


def test_run_records_the_verifier_by_absolute_path_and_digest(tmp_path: Path, monkeypatch) -> None:
    """A resumed run must not silently score with other weights found at the same (relative) path."""
    import droidverify.runner.run as run_mod
    from droidverify.agents.verifier.trained import verifier_digest
    from droidverify.errors import RunError
    from droidverify.runner.run import _check_compatible

    vdir = tmp_path / "v"
    (vdir / "adapter").mkdir(parents=True)
    (vdir / "verifier.json").write_text("{}")
    (vdir / "head.safetensors").write_bytes(b"weights-1")
    (vdir / "adapter" / "adapter_model.safetensors").write_bytes(b"lora-1")
    seen: list[dict] = []
    monkeypatch.setattr(run_mod, "run_many", lambda *a, **kw: seen.append(kw["config"]) or {})
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["run", "--agent", "verifier", "--verifier", "v", "--tasks", "clock_create_alarm",
                              "--out", str(tmp_path / "r"), "--no-progress"])
    assert seen, res.output
    config = seen[0]
    assert config["verifier"] == str(vdir.resolve()) and config["verifier_digest"] == verifier_digest(vdir)

    (vdir / "provenance.json").write_text('{"notes": "edited"}')  # provenance is not weights
    assert verifier_digest(vdir) == config["verifier_digest"]
    (vdir / "head.safetensors").write_bytes(b"weights-2")
    changed = dict(config, verifier_digest=verifier_digest(vdir))
    assert changed["verifier_digest"] != config["verifier_digest"]
    with pytest.raises(RunError, match="verifier_digest"):
        _check_compatible(tmp_path / "r", {"config": config}, changed)


def test_train_default_trains_the_compact_verifier_unless_told_otherwise(tmp_path: Path, monkeypatch) -> None:
    import droidverify.cli.train as train_cli

    seen: list[tuple] = []
    threads: list[int] = []
    monkeypatch.setattr(train_cli, "_train_compact",
                        lambda out, train, ev, export, overrides, prov: seen.append((out, train, ev, export))
                        or threads.append(overrides["threads"]) or {})
    data = tmp_path / "d" / "data"
    data.mkdir(parents=True)
    (data / "train.jsonl").write_text("")
    (data / "eval.jsonl").write_text("")
    res = runner.invoke(app, ["train", "default", "--out", str(tmp_path / "d"), "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert seen == [(tmp_path / "d" / "compact", data / "train.jsonl", data / "eval.jsonl", tmp_path / "d" / "verifier")]
    assert res.output.strip().endswith(str(tmp_path / "d" / "verifier"))
    assert threads == [len(os.sched_getaffinity(0))]  # the network gets every core once data is in
    bad = runner.invoke(app, ["train", "default", "--out", str(tmp_path / "d"), "--backbone", "gpt"])
    assert bad.exit_code == 2 and "unknown --backbone 'gpt'" in bad.output
    stacked: list[dict] = []
    monkeypatch.setattr(train_cli, "_train_compact",
                        lambda out, train, ev, export, overrides, prov: stacked.append(overrides) or {})
    res = runner.invoke(app, ["train", "default", "--out", str(tmp_path / "d"), "--workers", "1", "--stack-folds", "4"])
    assert res.exit_code == 0, res.output
    assert stacked[0]["stack_folds"] == 4
    bad = runner.invoke(app, ["train", "default", "--out", str(tmp_path / "d"), "--backbone", "llm", "--stack-folds", "4"])
    assert bad.exit_code == 2 and "--stack-folds is for the compact backbone" in bad.output
    res = runner.invoke(app, ["train", "default", "--out", str(tmp_path / "d"), "--workers", "1", "--members", "4"])
    assert res.exit_code == 0, res.output
    assert stacked[0]["members"] == 1 and stacked[-1]["members"] == 4
    bad = runner.invoke(app, ["train", "default", "--out", str(tmp_path / "d"), "--backbone", "llm", "--members", "2"])
    assert bad.exit_code == 2 and "--members is for the compact backbone" in bad.output


def test_the_compact_recipe_writes_and_trains_the_memory_asked_for(tmp_path: Path, monkeypatch) -> None:
    """`train default` collects and trains the compact verifier on the memory asked for (diff by default,
    notes by flag); the LLM recipe has diff only; `train compact` adopts the memory its records name, so
    the records and the verifier never disagree."""
    import json

    import droidverify.cli.train as train_cli
    import droidverify.training.loop as loop_mod

    specs: list[object] = []
    monkeypatch.setattr(loop_mod, "build_dataset", lambda path, spec, **kw: specs.append(spec))
    seen: list[dict] = []
    monkeypatch.setattr(train_cli, "_train_compact",
                        lambda out, train, ev, export, overrides, prov: seen.append(overrides) or {})
    res = runner.invoke(app, ["train", "default", "--out", str(tmp_path / "d"), "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert [s.memory for s in specs] == ["diff", "diff"] and seen[-1]["memory"] == "diff"
    res = runner.invoke(app, ["train", "default", "--out", str(tmp_path / "e"), "--workers", "1", "--memory", "notes"])
    assert res.exit_code == 0, res.output
    assert specs[-1].memory == "notes" and seen[-1]["memory"] == "notes"
    bad = runner.invoke(app, ["train", "default", "--out", str(tmp_path / "f"), "--backbone", "llm",
                              "--memory", "notes"])
    assert bad.exit_code == 2 and "--memory notes is for the compact backbone" in bad.output
    bad = runner.invoke(app, ["train", "default", "--out", str(tmp_path / "f"), "--memory", "llm"])
    assert bad.exit_code == 2 and "unknown --memory 'llm'" in bad.output

    records = tmp_path / "r.jsonl"
    records.write_text("")
    for stats, want in ((None, "diff"), ({"spec": {"memory": "notes"}}, "notes"), ({"spec": {}}, "diff")):
        if stats is not None:
            records.with_suffix(".stats.json").write_text(json.dumps(stats))
        res = runner.invoke(app, ["train", "compact", "--train", str(records), "--out", str(tmp_path / "c")])
        assert res.exit_code == 0, res.output
        assert seen[-1]["memory"] == want, stats
    res = runner.invoke(app, ["train", "compact", "--train", str(records), "--out", str(tmp_path / "c"),
                              "--memory", "diff"])  # said outright, it is passed on (the trainer then refuses it)
    assert seen[-1]["memory"] == "diff"


def test_train_default_collects_the_budget_asked_for_and_refuses_data_of_another(tmp_path: Path, monkeypatch) -> None:
    import json
    from dataclasses import asdict

    import droidverify.cli.train as train_cli
    import droidverify.training.loop as loop_mod

    specs: list[object] = []

    def fake_build(path, spec, *, progress=None, backend=None):
        specs.append(spec)
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text("")
        Path(path).with_suffix(".stats.json").write_text(json.dumps({"spec": asdict(spec)}, default=list))
        return {}

    monkeypatch.setattr(loop_mod, "build_dataset", fake_build)
    monkeypatch.setattr(train_cli, "_train_compact", lambda *a: {})
    res = runner.invoke(app, ["train", "default", "--out", str(tmp_path / "q"), "--workers", "1"])
    assert res.exit_code == 0, res.output
    default = specs[0]  # the quarter budget: within 20 minutes on 2 cores (docs/training.md)
    assert (list(default.oracle_seeds), list(default.noisy_seeds), list(default.start_seeds)) == (
        [0, 1], [100, 101], [400, 401, 402, 403])
    assert specs[1].split == "validation"
    res = runner.invoke(app, ["train", "default", "--out", str(tmp_path / "f"), "--workers", "1",
                              "--data-budget", "full"])
    assert res.exit_code == 0, res.output
    assert list(specs[2].oracle_seeds) == list(range(8)) and list(specs[2].noisy_seeds) == list(range(100, 106))
    res = runner.invoke(app, ["train", "default", "--out", str(tmp_path / "k"), "--workers", "1",
                              "--data-budget", "half"])
    assert res.exit_code == 0, res.output
    half = specs[-1] if specs[-1].split == "train" else specs[-2]
    assert (list(half.oracle_seeds), list(half.noisy_seeds), len(half.start_seeds)) == (
        [0, 1, 2, 3], [100, 101, 102], 6)
    # a rerun on data of the other budget is refused instead of silently reused
    res = runner.invoke(app, ["train", "default", "--out", str(tmp_path / "q"), "--workers", "1",
                              "--data-budget", "full"])
    assert res.exit_code == 2 and "another data spec" in res.output and "oracle_seeds" in res.output
    res = runner.invoke(app, ["train", "default", "--out", str(tmp_path / "q"), "--data-budget", "huge"])
    assert res.exit_code == 2 and "unknown data budget 'huge'" in res.output


def test_train_policy_builds_the_type_head_network_unless_told_not_to(tmp_path: Path, monkeypatch) -> None:
    from droidverify.training import policy

    seen: list[object] = []
    monkeypatch.setattr(policy, "PolicyTrainer", _recording_trainer(seen))
    train = tmp_path / "train.jsonl"
    train.write_text("")
    for extra in ([], ["--no-type-head"]):
        res = runner.invoke(app, ["train", "policy", "--train", str(train), "--out", str(tmp_path / "p"), *extra])
        assert res.exit_code == 0, res.output
    assert [cfg.type_head for cfg in seen] == [True, False]


def test_train_ensemble_joins_verifiers_and_measures_each_on_records(tmp_path: Path, monkeypatch) -> None:
    import json
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))
    from compact_doubles import compact_records, hash_encoder, small_config

    from droidverify.agents.verifier.compact.scorer import CompactScorer
    from droidverify.training.compact import CompactConfig, CompactTrainer

    monkeypatch.setattr("droidverify.agents.verifier.compact.scorer.TextEncoder", lambda **kw: hash_encoder())
    records = compact_records()
    dirs = []
    for seed in (0, 1):
        (tmp_path / f"s{seed}").mkdir()
        t = CompactTrainer(small_config(CompactConfig, tmp_path / f"s{seed}", records, epochs=2, seed=seed),
                           encoder=hash_encoder())
        t.train()
        dirs.append(t.export(tmp_path / f"v{seed}"))
    res = runner.invoke(app, ["train", "ensemble", "--member", str(dirs[0]), "--member", str(dirs[1]),
                              "--out", str(tmp_path / "ens"), "--eval", str(tmp_path / "s0" / "train.jsonl")])
    assert res.exit_code == 0, res.output
    metrics = json.loads(res.output.strip().splitlines()[-1])["metrics"]
    assert set(metrics) == {"member-1", "member-2", "ensemble", "eval_file"}
    assert all(metrics[k]["records"] == len(records) for k in ("member-1", "member-2", "ensemble"))
    assert metrics["member-1"]["top1"] != metrics["member-2"]["top1"] or metrics["member-1"] != metrics["ensemble"]
    prov = json.loads((tmp_path / "ens" / "provenance.json").read_text())
    assert prov["members"] == [f"{tmp_path.name}/v0", f"{tmp_path.name}/v1"] and prov["metrics"]["ensemble"] == metrics["ensemble"]
    assert len(CompactScorer.load(tmp_path / "ens", hash_encoder()).net.members) == 2
    bad = runner.invoke(app, ["train", "ensemble", "--member", str(dirs[0]), "--out", str(tmp_path / "e1")])
    assert bad.exit_code != 0 and "at least 2" in bad.output
