"""End-to-end: baseline agents on the real simulator and task registry, through the runner and CLI."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from droidverify.agents.oracle import OracleAgent
from droidverify.agents.random import NoopAgent, RandomAgent
from droidverify.cli import app
from droidverify.env.sim import SimEnv
from droidverify.runner.run import run_many
from droidverify.runner.store import load_trajectories
from droidverify.tasks import registry


def sim(task, seed):
    return SimEnv(task=task, seed=seed)


def test_oracle_solves_every_template_on_five_seeds(tmp_path: Path) -> None:
    templates = registry.all_templates()
    assert templates, "the task registry is empty"
    pairs = [(t, s) for t in templates for s in range(5)]
    summary = run_many(OracleAgent, pairs, tmp_path, env_factory=sim, progress=False,
                       report=False)  # the report is tested in test_report.py
    failed = sorted(tid for tid, g in summary.by_task.items() if g.solved != g.episodes)
    assert failed == [], f"oracle failed on {failed}"
    assert summary.overall.episodes == len(pairs) and summary.success_rate == 1.0
    assert summary.agent_errors == 0 and summary.checker_errors == 0
    # steps.jsonl holds every step of every episode
    trajs = load_trajectories(tmp_path)
    eps = [json.loads(ln) for ln in (tmp_path / "episodes.jsonl").read_text().splitlines()]
    assert sum(len(t.steps) for t in trajs) == sum(e["n_steps"] for e in eps)
    assert all(len(t.steps) <= t.metadata["max_steps"] for t in trajs)


def test_random_agent_rarely_succeeds(tmp_path: Path) -> None:
    templates = registry.all_templates()
    apps = sorted({a for t in templates for a in t.apps})
    pairs = [(t, s) for t in templates for s in range(2)]
    summary = run_many(lambda: RandomAgent(0, apps=apps), pairs, tmp_path, env_factory=sim,
                       progress=False, report=False)
    assert summary.overall.episodes == len(pairs)
    assert summary.success_rate < 0.05, summary.by_task


def test_noop_agent_never_succeeds(tmp_path: Path) -> None:
    pairs = [(t, s) for t in registry.all_templates() for s in range(2)]
    summary = run_many(NoopAgent, pairs, tmp_path, env_factory=sim, progress=False, report=False)
    assert summary.success_rate == 0.0
    started_solved = sorted(tid for tid, g in summary.by_task.items() if g.score_sum > 0)
    assert started_solved == []


def test_cli_run_oracle_writes_run_dir_and_prints_summary(tmp_path: Path) -> None:
    name = registry.all_templates()[0].name
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["run", "--agent", "oracle", "--tasks", name, "--seeds", "0-1",
                                   "--out", str(out), "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "success by app" in res.output and "100.0%" in res.output
    for f in ("run.json", "steps.jsonl", "episodes.jsonl", "summary.json", "report.html"):
        assert (out / f).exists(), f
    eps = [json.loads(ln) for ln in (out / "episodes.jsonl").read_text().splitlines()]
    assert sorted((e["task_id"], e["seed"]) for e in eps) == [(name, 0), (name, 1)]
    assert json.loads((out / "run.json").read_text())["config"]["agent"] == "oracle"
    # same command again: everything is resumed, nothing re-run
    res = CliRunner().invoke(app, ["run", "--agent", "oracle", "--tasks", name, "--seeds", "0-1",
                                   "--out", str(out), "--no-progress"])
    assert res.exit_code == 0 and "ran 0, skipped 2" in res.output
    assert len((out / "episodes.jsonl").read_text().splitlines()) == 2


def test_cli_run_bad_input_exits_2(tmp_path: Path) -> None:
    runner = CliRunner()
    name = registry.all_templates()[0].name
    for args, needle in (
        (["--tasks", "no_such_task"], "no_such_task"),
        (["--tasks", name, "--seeds", "3-1"], "seeds"),
        (["--tasks", name, "--seeds", "x"], "seeds"),
        (["--split", "nonsense"], "split"),
        (["--tasks", name, "--split", "train"], "not both"),
    ):
        res = runner.invoke(app, ["run", "--agent", "noop", "--out", str(tmp_path / "x"), *args])
        assert res.exit_code == 2, (args, res.output)
        assert needle in res.output, (args, res.output)
    res = runner.invoke(app, ["run", "--agent", "wizard", "--out", str(tmp_path / "x")])
    assert res.exit_code == 2 and "wizard" in res.output


def test_cli_tasks_list_and_show() -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["tasks", "list", "--json"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(ln) for ln in res.output.splitlines()]
    assert {r["name"] for r in rows} == {t.name for t in registry.all_templates()}
    assert all(r["split"] in ("train", "validation", "test") for r in rows)
    train = runner.invoke(app, ["tasks", "list", "--split", "train", "--json"])
    assert {json.loads(ln)["name"] for ln in train.output.splitlines()} == {
        t.name for t in registry.templates_for_split("train")}
    tmpl = registry.all_templates()[0]
    res = runner.invoke(app, ["tasks", "show", tmpl.name, "--seed", "3"])
    assert res.exit_code == 0, res.output
    assert tmpl.instantiate(3).goal.split()[0] in res.output and "Initial screen" in res.output
    assert runner.invoke(app, ["tasks", "show", "no_such_task"]).exit_code == 2
    assert runner.invoke(app, ["tasks", "list", "--split", "bogus"]).exit_code == 2
