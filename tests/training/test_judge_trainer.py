"""The compact judge's trainer (``training/judge.py``) and ``droidverify train judge``: on a small
labelled set of a few templates, with a hash embedder in place of MiniLM."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from droidverify.errors import CheckpointError, TrainingDataError, TrainingError
from droidverify.rewards.compact_judge import CompactJudge, CompactJudgeModel
from droidverify.rewards.labelled import build_training_items, write_set
from droidverify.training.judge import JudgeTrainConfig, JudgeTrainer, dev_templates, prepare, template_folds

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))
from compact_doubles import hash_encoder

TRAIN = ("clock_create_alarm", "clock_turn_on_alarm", "calendar_query_event_count", "settings_bluetooth_toggle",
         "expenses_edit_amount", "contacts_add_contact")


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    d = tmp_path_factory.mktemp("judge-sets")
    train = write_set(build_training_items("train", seeds=[0], templates=TRAIN), d / "train.jsonl.gz", split="train")
    val = build_training_items("validation", seeds=[0])
    picked = []
    for it in val:  # the first few validation templates are enough to measure on
        if len({x.template for x in picked} | {it.template}) > 3:
            break
        picked.append(it)
    ev = write_set(picked, d / "val.jsonl.gz", split="validation")
    return train, ev


def config(tmp_path: Path, sets, **kw) -> JudgeTrainConfig:
    train, ev = sets
    base = {"output_dir": str(tmp_path / "run"), "train_file": str(train), "eval_file": str(ev), "epochs": 2,
            "d_model": 16, "heads": 2, "ff": 32, "dev_fraction": 0.2, "threshold_folds": 0, "hostile_items": 4}
    return JudgeTrainConfig(**{**base, **kw})


def test_training_on_a_fixed_small_batch_drives_the_loss_down(tmp_path, sets) -> None:
    trainer = JudgeTrainer(config(tmp_path, sets, dropout=0.0), encoder=hash_encoder())
    trainer.load_data()
    batch = trainer.train_examples[:24]
    assert {e.label for e in batch} == {True, False}
    trainer._weights = {True: 1.0, False: 1.0}
    trainer.net.train()
    first = float(trainer._loss(batch).detach())
    for _ in range(60):
        loss = trainer._loss(batch)
        trainer.opt.zero_grad()
        loss.backward()
        trainer.opt.step()
    assert float(trainer._loss(batch).detach()) < 0.3 * first


def test_train_export_and_resume(tmp_path, sets) -> None:
    cfg = config(tmp_path, sets, setting="both")
    trainer = JudgeTrainer(cfg, encoder=hash_encoder())
    result = trainer.train()
    out = tmp_path / "run"
    for name in ("checkpoint.pt", "log.jsonl", "curves.png", "result.json"):
        assert (out / name).is_file(), name
    assert list(out.glob("embeddings-*.npz"))  # the embedding cache, kept for a rerun
    assert [json.loads(x)["epoch"] for x in (out / "log.jsonl").read_text().splitlines()] == [1, 2]
    # the threshold is chosen on held-out TRAIN templates, never on the held-out validation set
    for setting in ("passive", "evidence"):
        assert result["calibration"][setting]["on"] == "dev templates"
        assert 0.0 <= result["thresholds"][setting] <= 1.0
        ev = result["eval"][setting]
        assert ev["n"] > 0 and {"accuracy", "precision", "recall", "f1", "roc_auc", "by_variant"} <= set(ev)
        assert result["hostile"][setting]["pairs"] > 0 and result["input_size"][setting]["strings"] > 0
    assert "vs_checker" in result["eval"]["evidence"]  # the evidence setting: also against the checker
    assert set(result["dev_templates"]) <= set(TRAIN) and result["dev_templates"]
    trainer.export(out / "judge", provenance={"command": "droidverify train judge"})
    meta = json.loads((out / "judge" / "judge.json").read_text())
    assert meta["thresholds"] == result["thresholds"]
    assert meta["train_config"]["train_file"].startswith("..") and "/" not in meta["train_config"]["output_dir"]
    # the exported judge scores as the trainer does
    loaded = CompactJudgeModel.load(out / "judge", hash_encoder())
    views = [e.view for e in trainer.train_examples[:10]]
    assert loaded.p_success(views) == pytest.approx(trainer.scores(trainer.train_examples[:10]), abs=1e-6)
    judge = CompactJudge.load(out / "judge", encoder=hash_encoder())
    assert set(judge.models) == {"passive", "evidence"}
    # a rerun resumes where it stopped; more epochs continue from there
    again = JudgeTrainer(config(tmp_path, sets, setting="both", epochs=3), encoder=hash_encoder())
    logs: list[str] = []
    again.say = logs.append
    again.train()
    assert any("resumed at epoch 2" in m for m in logs) and again.epoch == 3
    # a rerun with other settings is refused
    with pytest.raises(TrainingError, match="other settings"):
        JudgeTrainer(config(tmp_path, sets, setting="both", d_model=32, heads=2), encoder=hash_encoder()).train()
    # a checkpoint of another feature version (here: written before version 3 said which) is refused
    import torch

    state = torch.load(out / "checkpoint.pt", weights_only=False)
    del state["feature_version"]
    torch.save(state, out / "checkpoint.pt")
    with pytest.raises(TrainingError, match="feature version 2"):
        JudgeTrainer(config(tmp_path, sets, setting="both", epochs=4), encoder=hash_encoder()).train()
    (out / "checkpoint.pt").write_bytes(b"junk")
    with pytest.raises(CheckpointError):
        JudgeTrainer(config(tmp_path, sets, setting="both"), encoder=hash_encoder()).train()


def test_threshold_folds_score_every_train_template_out_of_fold(tmp_path, sets) -> None:
    """With threshold folds the judge trains on every train template, and its threshold comes from
    scores of networks that never saw the template they score; each fold resumes on a rerun."""
    cfg = config(tmp_path, sets, threshold_folds=3, epochs=1, hostile_items=0)
    trainer = JudgeTrainer(cfg, encoder=hash_encoder())
    seen: list[list[str]] = []
    real = JudgeTrainer.fit

    def spy(self, *, resume=True):
        if self is not trainer:
            seen.append(sorted({e.template for e in self.train_examples}))
        return real(self, resume=resume)

    JudgeTrainer.fit = spy
    try:
        result = trainer.train()
    finally:
        JudgeTrainer.fit = real
    assert result["dev_templates"] == [] and {e.template for e in trainer.train_examples} == set(TRAIN)
    assert result["calibration"]["passive"]["on"] == "out-of-fold scores, 3 template folds"
    folds = template_folds(TRAIN, 3, cfg.seed)
    assert sorted(t for f in folds for t in f) == sorted(TRAIN)
    assert seen == [sorted(set(TRAIN) - set(f)) for f in folds]  # each fold's network never saw the fold
    for i in range(3):
        assert (tmp_path / "run" / f"fold-{i}" / "checkpoint.pt").is_file()
    logs: list[str] = []
    again = JudgeTrainer(cfg, encoder=hash_encoder(), log=logs.append)
    assert again.train()["thresholds"] == result["thresholds"]
    assert sum("resumed at epoch 1" in m for m in logs) == 4  # the judge and its three folds
    with pytest.raises(TrainingError, match="threshold_folds"):
        config(tmp_path, sets, threshold_folds=1).validate()
    with pytest.raises(TrainingDataError, match="7 threshold folds"):
        template_folds(TRAIN, 7, 0)


def test_an_ensemble_judges_by_its_members_mean_probability_and_each_fold_trains_one(tmp_path, sets) -> None:
    import torch

    from droidverify.rewards.compact_judge import batch_tensors

    cfg = config(tmp_path, sets, threshold_folds=2, epochs=1, hostile_items=0, members=3)
    trainer = JudgeTrainer(cfg, encoder=hash_encoder())
    result = trainer.train()
    assert len(trainer.ensemble.members) == 3
    for k in (1, 2):  # the judge's own members, and each fold's (its threshold is the ensemble's)
        assert (tmp_path / "run" / f"member-{k}" / "checkpoint.pt").is_file()
        for i in range(2):
            assert (tmp_path / "run" / f"fold-{i}" / f"member-{k}" / "checkpoint.pt").is_file()
    views = [e.view for e in trainer.train_examples[:5]]
    trainer.ensemble.eval()
    with torch.inference_mode():
        t = batch_tensors(views, trainer.encoder)
        mean = torch.stack([torch.sigmoid(m(**t)) for m in trainer.ensemble.members]).mean(0)
    assert trainer.scores(trainer.train_examples[:5]) == pytest.approx(mean.tolist(), abs=1e-5)
    path = trainer.export(tmp_path / "judge")
    assert json.loads((path / "judge.json").read_text())["members"] == 3
    again = CompactJudgeModel.load(path, hash_encoder())
    assert again.p_success(views) == pytest.approx(mean.tolist(), abs=1e-5)
    assert result["thresholds"] == again.thresholds
    with pytest.raises(TrainingError, match="members must be"):
        config(tmp_path, sets, members=0).validate()
    meta = json.loads((path / "judge.json").read_text())
    (path / "judge.json").write_text(json.dumps({**meta, "members": "3"}))
    with pytest.raises(CheckpointError, match="members must be"):
        CompactJudgeModel.load(path, hash_encoder())


def test_the_evidence_setting_reads_submit_episodes_only(sets) -> None:
    train, _ = sets
    prepared = prepare(train, ["evidence"])
    assert prepared.examples and all(e.variant.startswith("sv_") for e in prepared.examples)
    by_variant = {e.variant: e.label for e in prepared.examples}
    assert by_variant["sv_correct"] is True and by_variant["sv_irrelevant"] is False
    assert by_variant["sv_no_evidence"] is False
    assert any(e.checker and not e.label for e in prepared.examples)  # checker success, evidence not shown


def test_a_trajectory_judge_trains_on_checker_labels_and_judges_whole_episodes(tmp_path, sets) -> None:
    """``--setting trajectory`` learns the checker's label of every episode (submits included) from
    the whole episode, and the exported judge answers ``auto`` in that setting."""
    train, _ = sets
    prepared = prepare(train, ["trajectory"])
    passive = prepare(train, ["passive"])
    assert [(e.item_id, e.label) for e in prepared.examples] == [(e.item_id, e.label) for e in passive.examples]
    assert all(e.label == e.checker for e in prepared.examples)
    assert sum(len(e.view.tokens) for e in prepared.examples) > sum(len(e.view.tokens) for e in passive.examples)
    trainer = JudgeTrainer(config(tmp_path, sets, setting="trajectory"), encoder=hash_encoder())
    result = trainer.train()
    assert set(result["thresholds"]) == {"trajectory"} and result["eval"]["trajectory"]["n"] > 0
    assert result["hostile"]["trajectory"]["pairs"] > 0
    trainer.export(tmp_path / "judge")
    judge = CompactJudge.load(tmp_path / "judge", encoder=hash_encoder())
    episode = passive.examples[0]
    from droidverify.rewards.labelled import iter_set

    traj = next(it.trajectory for it in iter_set(train) if it.id == episode.item_id)
    assert judge.judge(traj).components["setting"] == "trajectory"


def test_bad_data_and_settings_are_typed_errors(tmp_path, sets) -> None:
    train, ev = sets
    with pytest.raises(TrainingDataError, match="'validation' labelled set"):
        JudgeTrainer(config(tmp_path, sets, train_file=str(ev), eval_file=None), encoder=hash_encoder()).train()
    with pytest.raises(TrainingDataError, match="shares templates"):
        JudgeTrainer(config(tmp_path, sets, eval_file=str(train)), encoder=hash_encoder()).train()
    with pytest.raises(TrainingDataError, match="no labelled set"):
        JudgeTrainer(config(tmp_path, sets, train_file=str(tmp_path / "nope.jsonl")), encoder=hash_encoder()).train()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    with pytest.raises(TrainingDataError):
        JudgeTrainer(config(tmp_path, sets, train_file=str(bad)), encoder=hash_encoder()).train()
    test_set = write_set([], tmp_path / "test.jsonl", split="test")
    with pytest.raises(TrainingDataError, match="test set"):
        JudgeTrainer(config(tmp_path, sets, eval_file=str(test_set), output_dir=str(tmp_path / "r2")),
                     encoder=hash_encoder()).train()
    for bad_cfg in ({"setting": "vibes"}, {"d_model": 10, "heads": 4}, {"dev_fraction": 1.0}, {"epochs": 0}):
        with pytest.raises(TrainingError):
            config(tmp_path, sets, **bad_cfg).validate()
    assert dev_templates(["a", "b", "c", "d", "e"], 0.2, 0) == dev_templates(["e", "d", "c", "b", "a"], 0.2, 0)
    assert dev_templates(["a", "b"], 0.0, 0) == set()


def test_train_judge_command(tmp_path, sets, monkeypatch) -> None:
    from droidverify.cli import app
    from droidverify.llm import embeddings

    monkeypatch.setattr(embeddings, "TextEncoder", lambda *a, **k: hash_encoder())
    train, ev = sets
    out = tmp_path / "cli"
    r = CliRunner().invoke(app, ["train", "judge", "--setting", "passive", "--train", str(train), "--eval", str(ev),
                                 "--out", str(out), "--epochs", "1", "--d-model", "16", "--hostile-items", "2"])
    assert r.exit_code == 0, r.output
    summary = json.loads(r.output.strip().splitlines()[-1])
    assert summary["judge"] == str(out / "judge") and "passive" in summary and "hostile_flips" in summary["passive"]
    prov = json.loads((out / "judge" / "provenance.json").read_text())
    assert prov["command"].startswith("droidverify train judge --setting passive --train")
    assert prov["data"]["train"] == {**prov["data"]["train"], "file": "train.jsonl.gz", "split": "train"}
    assert str(tmp_path) not in json.dumps(prov["data"]) and prov["metrics"]["eval"]["passive"]["n"] > 0
    # by default the threshold comes from out-of-fold scores and the judge learns every train template
    assert prov["result"]["calibration"]["passive"]["on"] == "out-of-fold scores, 4 template folds"
    assert prov["result"]["dev_templates"] == []
    r = CliRunner().invoke(app, ["train", "judge", "--setting", "vibes", "--train", str(train), "--out", str(out)])
    assert r.exit_code == 2 and "unknown --setting" in r.output
    r = CliRunner().invoke(app, ["train", "judge", "--train", str(ev), "--out", str(tmp_path / "x")])
    assert r.exit_code == 2 and "TrainingDataError" in r.output
    data = tmp_path / "d.jsonl"
    r = CliRunner().invoke(app, ["train", "judge-data", "--out", str(data), "--split", "test", "--seeds", "0"])
    assert r.exit_code == 2 and "never used" in r.output
    r = CliRunner().invoke(app, ["train", "judge-data", "--out", str(data), "--seeds", "0", "--basic",
                                 "--other-answers"])
    assert r.exit_code == 2 and "--other-answers needs --extended" in r.output


def test_the_commands_sit_in_the_train_group() -> None:
    from droidverify.cli.train import train_app
    from droidverify.cli.train_judge import judge_data_command, train_judge_command

    commands = {c.name: c.callback for c in train_app.registered_commands}
    assert commands["judge"] is train_judge_command and commands["judge-data"] is judge_data_command


def test_judge_data_from_a_run_holds_the_agents_episodes_with_checker_labels(tmp_path) -> None:
    """`train judge-data --from-run`: every episode of a run, labelled as the run scored it;
    --also appends another set of the same split; a set of another split is refused."""
    from typer.testing import CliRunner

    from droidverify.agents.oracle import OracleAgent
    from droidverify.agents.random import RandomAgent
    from droidverify.cli import app
    from droidverify.rewards.labelled import build_training_items, iter_set, read_header, write_set
    from droidverify.runner.factories import EnvSpec
    from droidverify.runner.run import run_many
    from droidverify.runner.store import finished_episodes
    from droidverify.tasks import registry

    names = ["clock_create_alarm", "calendar_query_event_count"]
    pairs = [(registry.get_template(n), 0) for n in names]
    good, bad = tmp_path / "oracle", tmp_path / "random"
    run_many(OracleAgent, pairs, good, env_factory=EnvSpec("sim"), progress=False, report=False)
    run_many(lambda: RandomAgent(3, p_complete=0.5), pairs, bad, env_factory=EnvSpec("sim"), progress=False,
             report=False, max_steps=4)
    oracle_set = write_set(build_training_items("train", seeds=[0], templates=names[:1]), tmp_path / "o.jsonl",
                           split="train")
    out = tmp_path / "p.jsonl.gz"
    r = CliRunner().invoke(app, ["train", "judge-data", "--split", "train", "--out", str(out), "--from-run", str(good),
                                 "--from-run", str(bad), "--also", str(oracle_set)])
    assert r.exit_code == 0, r.output
    items = list(iter_set(out))
    policy = [it for it in items if it.variant == "policy"]
    recorded = {**{(e["task_id"], "o"): e["success"] for e in finished_episodes(good).values()},
                **{(e["task_id"], "r"): e["success"] for e in finished_episodes(bad).values()}}
    assert len(policy) == 4
    assert sorted(it.label for it in policy) == sorted(bool(v) for v in recorded.values())
    assert sum(it.label for it in policy) >= 2  # the oracle solves both
    assert len(items) - len(policy) == read_header(oracle_set)["n"]
    header = read_header(out)
    assert header["builder"] == "policy_items" and header["runs"] == ["oracle", "random"]
    assert "--from-run" in header["command"] and str(tmp_path) not in str(header["also"])
    r = CliRunner().invoke(app, ["train", "judge-data", "--split", "validation", "--out", str(tmp_path / "v.jsonl"),
                                 "--from-run", str(good)])
    assert r.exit_code == 2 and "not validation" in r.output
    r = CliRunner().invoke(app, ["train", "judge-data", "--split", "train", "--out", str(tmp_path / "w.jsonl"),
                                 "--from-run", str(tmp_path)])
    assert r.exit_code == 2 and "not a run directory" in r.output
