"""Judging each episode right after it ends (``run_many(judge=...)``, ``droidverify run --judge``):
ProRe probes the live environment, a failing judge never costs an episode, resume never judges twice."""

from __future__ import annotations

import functools
import json
import os

import pytest
from live_judges import (
    TASK,
    BuggyJudge,
    CountingRule,
    DeviceLike,
    ScriptedProRe,
    ServerDownProRe,
    VariantAgent,
    prore_reply,
)
from rewards_doubles import ScriptedLLM
from typer.testing import CliRunner

from droidverify.errors import LLMUnavailableError
from droidverify.rewards.store import JUDGEMENTS_FILE, read_judgements
from droidverify.runner.backends import LocalBackend
from droidverify.runner.factories import EnvSpec
from droidverify.runner.run import run_many
from droidverify.runner.store import read_episodes
from droidverify.tasks import registry


def pairs(*seeds: int) -> list:
    return [(registry.get_template(TASK), s) for s in seeds]


def run(out, kind: str = "not_saved", seeds=(0,), **kw):
    kw.setdefault("env_factory", EnvSpec("sim"))
    return run_many(functools.partial(VariantAgent, kind), pairs(*seeds), out, progress=False, report=False, **kw)


def judgements(out) -> list:
    return read_judgements(out / JUDGEMENTS_FILE)


@pytest.mark.parametrize("kind, outcome, label", [("not_saved", "failure", "contradicted"),
                                                  ("oracle", "success", "confirmed")])
def test_prore_probes_the_live_simulator_right_after_the_episode(tmp_path, kind, outcome, label) -> None:
    run(tmp_path / "r", kind, judge=ScriptedProRe())
    [ep] = read_episodes(tmp_path / "r").episodes.values()
    assert ep["declared_done"] is True  # the policy claims success either way
    [j] = judgements(tmp_path / "r")
    assert j.episode_id == f"{TASK}:0" and j.judge == "prore" and j.outcome == outcome
    assert j.details["labels"] == {"1": label}
    assert j.details["probe_target"] == "live_clone"  # a clone of the live phone, not the saved state
    assert j.details["pid"] == os.getpid()  # in-process run: judged in this process


@pytest.mark.parametrize("kind, outcome", [("not_saved", "failure"), ("oracle", "success")])
def test_prore_probes_a_live_device_before_it_is_closed(tmp_path, kind, outcome) -> None:
    """A device keeps no saved state: only the live probe can see that the contact was never saved."""
    envs: list[DeviceLike] = []

    def device(task, seed):
        envs.append(DeviceLike(task, seed))
        return envs[-1]

    run(tmp_path / "r", kind, env_factory=device, judge=ScriptedProRe())
    [j] = judgements(tmp_path / "r")
    assert j.details["probe_target"] == "live_env" and j.outcome == outcome
    probe = j.details["probes"][0]
    assert probe["error"] is None and "com.google.android.contacts" in probe["final_xml"]
    log = envs[0].log
    # the probe drove the device (observe, open Contacts) after the episode and before close
    assert log[-1] == "close" and log.count("close") == 1
    assert log[-3:-1] == ["observe", "step:open_app"]
    steps = [json.loads(x) for x in (tmp_path / "r" / "steps.jsonl").read_text().splitlines()]
    assert not any(s["kind"] == "phone" for s in steps)  # nothing saved: the verdict came from the probe


def test_a_judge_that_raises_is_undecided_and_the_episode_is_kept(tmp_path) -> None:
    summary = run(tmp_path / "r", "oracle", judge=BuggyJudge())
    assert summary.ran == 1 and summary.success_rate == 1.0
    [ep] = read_episodes(tmp_path / "r").episodes.values()
    assert ep["success"] == 1.0 and ep["n_steps"] > 0
    [j] = judgements(tmp_path / "r")
    assert j.outcome == "undecided" and j.judge == "buggy" and j.episode_id == f"{TASK}:0"
    assert "RuntimeError: judge bug (test)" in j.error and j.components == {"judge_error": 1}
    # recorded: a rerun judges nothing again
    run(tmp_path / "r", "oracle", judge=BuggyJudge())
    assert len(judgements(tmp_path / "r")) == 1


def test_judge_server_down_keeps_the_episode_and_a_rerun_judges_it_after_the_fact(tmp_path) -> None:
    with pytest.raises(LLMUnavailableError):
        run(tmp_path / "r", judge=ServerDownProRe())
    assert list(read_episodes(tmp_path / "r").episodes) == [f"{TASK}:0"]  # the episode is on disk
    assert judgements(tmp_path / "r") == []  # no fake verdict stored
    summary = run(tmp_path / "r", judge=ScriptedProRe())
    assert summary.ran == 0 and summary.skipped == 1  # not re-run: judged from the saved state
    [j] = judgements(tmp_path / "r")
    assert j.outcome == "failure" and j.details["probe_target"] == "saved_state"


def test_resume_never_judges_an_episode_twice(tmp_path) -> None:
    CountingRule.calls = 0
    out = tmp_path / "r"
    run(out, "oracle", judge=CountingRule())
    assert CountingRule.calls == 1 and len(judgements(out)) == 1
    run(out, "oracle", judge=CountingRule())  # nothing new
    assert CountingRule.calls == 1 and len(judgements(out)) == 1
    run(out, "oracle", seeds=(0, 1), judge=CountingRule())  # one new episode: judged once
    assert CountingRule.calls == 2
    assert sorted(j.episode_id for j in judgements(out)) == [f"{TASK}:0", f"{TASK}:1"]
    assert all(j.outcome == "success" for j in judgements(out))


def test_episodes_run_without_a_judge_are_judged_on_a_later_run(tmp_path) -> None:
    out = tmp_path / "r"
    run(out, "not_saved")
    assert not (out / JUDGEMENTS_FILE).exists()
    summary = run(out, "not_saved", judge=ScriptedProRe())  # judge added on resume: config still fits
    assert summary.ran == 0
    [j] = judgements(out)
    assert j.outcome == "failure" and j.details["probe_target"] == "saved_state"


def test_no_resume_drops_the_judgements_of_the_deleted_episodes(tmp_path) -> None:
    out = tmp_path / "r"
    run(out, "oracle", judge=CountingRule())
    run(out, "oracle", judge=BuggyJudge(), resume=False)
    assert [j.judge for j in judgements(out)] == ["buggy"]


def test_judging_happens_in_the_worker_that_ran_the_episode(tmp_path) -> None:
    out = tmp_path / "r"
    with LocalBackend(2) as backend:
        summary = run(out, "not_saved", seeds=(0, 1), judge=ScriptedProRe(), backend=backend)
    assert summary.ran == 2
    js = {j.episode_id: j for j in judgements(out)}
    assert set(js) == {f"{TASK}:0", f"{TASK}:1"}
    for j in js.values():
        assert j.outcome == "failure" and j.details["probe_target"] == "live_clone"
        assert j.details["pid"] != os.getpid()  # judged in a worker process, where the env was live
    # resumed on workers: nothing is run or judged again
    with LocalBackend(2) as backend:
        assert run(out, "not_saved", seeds=(0, 1), judge=ScriptedProRe(), backend=backend).ran == 0
    assert len(judgements(out)) == 2


def test_run_command_judge_options(tmp_path, monkeypatch) -> None:
    from droidverify.cli import app

    monkeypatch.setattr("droidverify.llm.registry.load_llm", lambda spec=None, **kw: ScriptedLLM(reply_fn=prore_reply))
    out = tmp_path / "r"
    r = CliRunner().invoke(app, ["run", "--agent", "oracle", "--tasks", TASK, "--seeds", "0", "--out", str(out),
                                 "--no-progress", "--judge", "prore", "--probes", "1", "--probe-steps", "2"])
    assert r.exit_code == 0, r.output
    assert "judged by prore (prore-v1): success 1, failure 0, undecided 0 of 1 episodes" in \
        " ".join(r.output.split())
    [j] = judgements(out)
    assert j.details["probe_target"] == "live_clone" and len(j.details["probes"]) == 1
    assert json.loads((out / "run.json").read_text())["config"]["judge"]["method"] == "prore"
    bad = CliRunner().invoke(app, ["run", "--agent", "oracle", "--tasks", TASK, "--out", str(tmp_path / "b"),
                                   "--judge", "vibes"])
    assert bad.exit_code == 2 and "unknown --judge" in bad.output
    bad = CliRunner().invoke(app, ["run", "--agent", "oracle", "--tasks", TASK, "--out", str(tmp_path / "b"),
                                   "--probes", "2"])
    assert bad.exit_code == 2 and "give --judge" in bad.output
    bad = CliRunner().invoke(app, ["run", "--agent", "oracle", "--tasks", TASK, "--out", str(tmp_path / "b"),
                                   "--judge", "rule", "--probes", "2"])
    assert bad.exit_code == 2 and "only to --judge prore" in bad.output
