"""Judged retries (``run_many(attempts=K)``, ``droidverify run --judge METHOD --attempts K``): an episode
the judge does not call a success is reset and played again, up to K attempts; the last attempt's
checker result is the outcome; every attempt and its judgement are recorded, resumable, reported.

Scripted agents and judges only (no model). The doubles live here, at module level, so worker
processes can import them by name (tests/runner is on their sys.path: conftest)."""

from __future__ import annotations

import functools
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from fakes import TEMPLATES, FakeEnv
from typer.testing import CliRunner

from droidverify.actions.model import Action
from droidverify.agents.base import AgentOutput
from droidverify.agents.oracle import OracleAgent
from droidverify.agents.random import RandomAgent
from droidverify.errors import DeviceLostError, DroidVerifyError, LLMUnavailableError, RunError
from droidverify.rewards.base import Judgement, trajectory_id
from droidverify.rewards.rule import RuleJudge
from droidverify.rewards.store import JUDGEMENTS_FILE, read_judgements
from droidverify.runner.backends import LocalBackend
from droidverify.runner.factories import AgentSpec, EnvSpec
from droidverify.runner.report import build_report
from droidverify.runner.run import attempt_seed, check_attempts, run_many, seed_attempt
from droidverify.runner.store import attempt_key, load_trajectories, read_episodes
from droidverify.tasks import registry

HERE = Path(__file__).resolve().parent
KEYS = ["tap_counter:0", "query_count:0"]


# --------------------------------------------------------------------------------------- doubles


class ScriptedJudge:
    """Says ``outcomes[n]`` on attempt n (the last one again after the list ends)."""

    name = "scripted-judge"
    version = "sj-v1"

    def __init__(self, *outcomes: str) -> None:
        self.outcomes = outcomes or ("failure",)

    def judge(self, trajectory: Any) -> Judgement:
        n = trajectory.metadata.get("attempt", 0)
        outcome = self.outcomes[min(n, len(self.outcomes) - 1)]
        return Judgement(episode_id=trajectory_id(trajectory), judge=self.name, version=self.version,
                         outcome=outcome, reward=1.0 if outcome == "success" else 0.0)


class SeedGatedOracle(OracleAgent):
    """The oracle while its draw seed is the one it was built with (the first attempt); on a retry,
    which gets a derived seed, it declares done at once (a failure). Exposes ``seed`` as
    RandomAgent does."""

    name = "seed-gated"

    def __init__(self, seed: int = 0) -> None:
        super().__init__()
        self.built_with = self.seed = seed

    def act(self, observation: Any, history: list[Any]) -> AgentOutput:
        if self.seed != self.built_with:
            return AgentOutput(action=Action(action_type="status", goal_status="complete"))
        return super().act(observation, history)


class Quitter:
    """Declares done at once: every episode fails."""

    name = "quitter"

    def reset(self, goal: str) -> None:
        pass

    def act(self, observation: Any, history: list[Any]) -> AgentOutput:
        return AgentOutput(action=Action(action_type="status", goal_status="complete"))


class ServerDownOnRetry(Quitter):
    """A quitter whose LLM server goes down in the middle of a retry (``crash``), after one step."""

    name = "quitter"

    def __init__(self, crash: bool = True, seed: int = 0) -> None:
        self.crash, self.seed, self.built_with = crash, seed, seed

    def act(self, observation: Any, history: list[Any]) -> AgentOutput:
        if self.crash and self.seed != self.built_with and history:
            raise LLMUnavailableError("connection refused (test)", status=None)
        if not history:
            return AgentOutput(action=Action(action_type="click", index=0))
        return super().act(observation, history)


def fake_env(task: Any, seed: int) -> FakeEnv:
    return FakeEnv(task, seed)


def pairs() -> list[tuple[Any, int]]:
    return [(t, 0) for t in TEMPLATES]


def run(out: Path, agent: Any = Quitter, **kw: Any) -> Any:
    kw.setdefault("env_factory", fake_env)
    kw.setdefault("progress", False)
    kw.setdefault("report", False)
    return run_many(agent, pairs(), out, **kw)


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def attempts_by_episode(out: Path) -> dict[str, list[int]]:
    got: dict[str, list[int]] = {}
    for ep in lines(out / "episodes.jsonl"):
        got.setdefault(ep["episode_id"], []).append(ep.get("attempt", 0))
    return got


def judgement_ids(out: Path) -> list[str]:
    return sorted(j.episode_id for j in read_judgements(out / JUDGEMENTS_FILE))


# ----------------------------------------------------------------------------------------- tests


@pytest.mark.parametrize("k", [1, 2, 3])
def test_a_judge_that_always_says_failure_gives_exactly_k_attempts_each_recorded(tmp_path: Path, k: int) -> None:
    out = tmp_path / "r"
    summary = run(out, judge=ScriptedJudge("failure"), attempts=k)
    assert attempts_by_episode(out) == {key: list(range(k)) for key in KEYS}
    assert judgement_ids(out) == sorted(attempt_key(key, n) for key in KEYS for n in range(k))
    if k == 1:
        assert summary.retries is None
        return
    for rec in lines(out / "steps.jsonl"):  # every step and final line names its attempt
        assert rec["attempt"] in range(k)
    finals = [r for r in lines(out / "steps.jsonl") if r["kind"] == "final"]
    assert sorted((r["episode_id"], r["attempt"]) for r in finals) == sorted((key, n) for key in KEYS for n in range(k))
    for j in read_judgements(out / JUDGEMENTS_FILE):
        n = j.details["attempt"]
        assert j.episode_id == attempt_key(j.episode_id.split(":a")[0], n)
    r = summary.retries
    assert (r.max_attempts, r.episodes, r.attempts_used, r.retried) == (k, 2, 2 * k, 2)
    assert r.judge == "scripted-judge (sj-v1)"


@pytest.mark.parametrize("verdict", ["failure", "undecided"])
def test_retries_never_exceed_k(tmp_path: Path, verdict: str) -> None:
    """An undecided verdict counts as not a success: retried, as a failure is, and never past K."""
    out = tmp_path / "r"
    run(out, judge=ScriptedJudge(verdict), attempts=4)
    assert all(len(a) == 4 for a in attempts_by_episode(out).values())
    run(out, judge=ScriptedJudge(verdict), attempts=4)  # resuming a finished run plays nothing more
    assert all(len(a) == 4 for a in attempts_by_episode(out).values())
    assert len(lines(out / "episodes.jsonl")) == 8


def test_a_judge_that_says_success_stops_at_the_first_attempt(tmp_path: Path) -> None:
    out = tmp_path / "r"
    summary = run(out, judge=ScriptedJudge("success"), attempts=3)
    assert attempts_by_episode(out) == {key: [0] for key in KEYS}
    assert judgement_ids(out) == sorted(KEYS)
    r = summary.retries
    assert r.attempts_used == 2 and r.retried == 0 and r.mean_attempts == 1.0
    # the quitter failed every episode the judge passed: each last attempt is a false success
    assert (r.false_successes, r.judged_final, r.false_success_rate) == (2, 2, 1.0)


def test_the_retry_stops_at_the_first_attempt_the_judge_passes(tmp_path: Path) -> None:
    out = tmp_path / "r"
    run(out, judge=ScriptedJudge("failure", "undecided", "success"), attempts=5)
    assert attempts_by_episode(out) == {key: [0, 1, 2] for key in KEYS}


def test_the_outcome_is_the_last_attempts_checker_result(tmp_path: Path) -> None:
    """The seed-gated oracle solves its first attempt and fails its retries: a judge that (wrongly)
    calls everything a failure makes the episode fail, as its last attempt did."""
    out = tmp_path / "r"
    summary = run(out, SeedGatedOracle, judge=ScriptedJudge("failure"), attempts=3)
    read = read_episodes(out)
    for key in KEYS:
        tries = read.attempts[key]
        assert [tries[n]["success"] for n in range(3)] == [1.0, 0.0, 0.0]
        assert read.episodes[key] is tries[2]
    assert summary.success_rate == 0.0 and summary.overall.episodes == 2
    r = summary.retries
    assert (r.success_at_1, r.success_final, r.solved_by_retry) == (1.0, 0.0, 0)
    trajs = load_trajectories(out)  # the last attempts, judged under their own ids
    assert sorted(t.metadata["episode_id"] for t in trajs) == sorted(attempt_key(k, 2) for k in KEYS)
    assert all(t.metadata["attempt"] == 2 and t.success == 0.0 for t in trajs)
    sj = json.loads((out / "summary.json").read_text())
    assert sj["retries"]["success_at_1"] == 1.0 and sj["retries"]["success_final"] == 0.0
    assert sj["success_rate"] == 0.0


def test_a_rule_judged_retry_keeps_a_solved_first_attempt(tmp_path: Path) -> None:
    """The rule judge (the checker: the upper bound) never stops on a false success."""
    out = tmp_path / "r"
    summary = run(out, SeedGatedOracle, judge=RuleJudge(), attempts=3)
    assert attempts_by_episode(out) == {key: [0] for key in KEYS}
    r = summary.retries
    assert (r.success_at_1, r.success_final, r.false_successes, r.judged_final) == (1.0, 1.0, 0, 2)


def test_each_retry_draws_with_a_seed_derived_from_the_agent_seed_and_the_attempt(tmp_path: Path) -> None:
    out = tmp_path / "r"
    run(out, functools.partial(RandomAgent, 7), judge=ScriptedJudge("failure"), attempts=3, max_steps=4)
    read = read_episodes(out)
    for key in KEYS:
        tries = read.attempts[key]
        assert "attempt_seed" not in tries[0]  # the first attempt is the run without retries
        assert [tries[n]["attempt_seed"] for n in (1, 2)] == [attempt_seed(7, 1), attempt_seed(7, 2)]
    assert attempt_seed(7, 0) == 7 and len({attempt_seed(7, n) for n in range(1, 6)}) == 5
    assert attempt_seed(7, 1) == attempt_seed(7, 1) != attempt_seed(8, 1)  # reproducible, per agent seed
    # the random agent draws other actions on a retry of the same task and seed
    first = [read.attempts[k][0]["actions"] for k in KEYS]
    assert first != [read.attempts[k][1]["actions"] for k in KEYS]
    agent = RandomAgent(3)
    assert seed_attempt(agent, 0) is None and agent.seed == 3
    assert seed_attempt(agent, 2) == attempt_seed(3, 2) == agent.seed
    assert seed_attempt(Quitter(), 1) is None  # no seed to derive: a deterministic agent replays itself
    from droidverify.agents.verifier import VerifierAgent

    drawing, argmax = VerifierAgent(None, temperature=2.0, sample_seed=5), VerifierAgent(None, sample_seed=5)
    assert seed_attempt(drawing, 1) == attempt_seed(5, 1) == drawing.sample_seed
    assert seed_attempt(argmax, 1) is None and argmax.sample_seed == 5  # the argmax draws nothing
    # --retry-temperature: the first attempt takes the argmax, each retry draws at that temperature
    first, retry = (VerifierAgent(None, sample_seed=5, retry_temperature=1.5) for _ in range(2))
    assert seed_attempt(first, 0) is None and first.temperature == 0.0 and first.sample_seed == 5
    assert seed_attempt(retry, 2) == attempt_seed(5, 2) == retry.sample_seed and retry.temperature == 1.5
    for bad in (0, -1.0, float("nan"), True, "1"):
        with pytest.raises(DroidVerifyError, match="retry_temperature"):
            VerifierAgent(None, retry_temperature=bad)


def test_resume_after_a_crash_between_attempts_continues_at_the_next_attempt(tmp_path: Path) -> None:
    """The device is lost when the second attempt starts: the first is recorded and judged; the
    rerun continues at attempt 1 and keeps attempt 0 as it was."""
    out = tmp_path / "r"
    built = {"n": 0}

    def flaky(task: Any, seed: int) -> FakeEnv:
        built["n"] += 1
        if built["n"] == 2:
            raise DeviceLostError("unplugged between attempts (test)")
        return FakeEnv(task, seed)

    with pytest.raises(DeviceLostError):
        run(out, judge=ScriptedJudge("failure"), attempts=3, env_factory=flaky)
    first = lines(out / "episodes.jsonl")
    assert [(e["episode_id"], e["attempt"]) for e in first] == [(KEYS[0], 0)]
    summary = run(out, judge=ScriptedJudge("failure"), attempts=3)
    assert attempts_by_episode(out) == {key: [0, 1, 2] for key in KEYS}
    assert lines(out / "episodes.jsonl")[0] == first[0]  # kept as it was, not played again
    assert judgement_ids(out) == sorted(attempt_key(k, n) for k in KEYS for n in range(3))
    assert summary.ran == 2 and summary.retries.attempts_used == 6


def test_resume_after_a_crash_mid_retry_replays_only_that_attempt(tmp_path: Path) -> None:
    """The agent's server goes down in attempt 1: its partial steps are abandoned, attempt 0 stays."""
    out = tmp_path / "r"
    with pytest.raises(LLMUnavailableError):
        run(out, functools.partial(ServerDownOnRetry, True), judge=ScriptedJudge("failure"), attempts=3)
    assert attempts_by_episode(out) == {KEYS[0]: [0]}
    stale = {r["attempt_id"] for r in lines(out / "steps.jsonl") if r["kind"] == "step" and r["attempt"] == 1}
    assert len(stale) == 1
    run(out, functools.partial(ServerDownOnRetry, False), judge=ScriptedJudge("failure"), attempts=3)
    assert attempts_by_episode(out) == {key: [0, 1, 2] for key in KEYS}
    abandoned = [r for r in lines(out / "steps.jsonl") if r["kind"] == "abandoned"]
    assert [(r["attempt_id"], r["attempt"]) for r in abandoned] == [(stale.pop(), 1)]


def test_a_judge_down_after_an_attempt_is_judged_from_the_saved_state_before_the_retry(tmp_path: Path) -> None:
    """The judge's server is down after attempt 0 was recorded: the rerun first judges that attempt
    after the fact (its verdict decides the retry), then plays the next one."""

    class DownJudge(ScriptedJudge):
        def judge(self, trajectory: Any) -> Judgement:
            raise LLMUnavailableError("judge server down (test)", status=None)

    out = tmp_path / "r"
    with pytest.raises(LLMUnavailableError):
        run(out, judge=DownJudge(), attempts=2)
    assert attempts_by_episode(out) == {KEYS[0]: [0]} and judgement_ids(out) == []
    run(out, judge=ScriptedJudge("failure"), attempts=2)
    assert attempts_by_episode(out) == {key: [0, 1] for key in KEYS}
    assert judgement_ids(out) == sorted(attempt_key(k, n) for k in KEYS for n in range(2))
    run(out, judge=ScriptedJudge("failure"), attempts=2)  # finished: nothing more to play
    assert len(lines(out / "episodes.jsonl")) == 4


def test_a_killed_run_resumes_at_the_next_attempt_and_keeps_the_recorded_ones(tmp_path: Path) -> None:
    out = tmp_path / "r"
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(HERE)!r})
        import functools
        from test_retries import ScriptedJudge, ServerDownOnRetry, pairs
        from fakes import FakeEnv
        from droidverify.runner.run import run_many
        run_many(functools.partial(ServerDownOnRetry, False), pairs(), {str(out)!r},
                 env_factory=lambda t, s: FakeEnv(t, s, delay=0.5),
                 progress=False, report=False, judge=ScriptedJudge("failure"), attempts=3, max_steps=6)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    try:
        deadline = time.time() + 60
        while time.time() < deadline:  # attempt 0 of the first episode recorded and judged
            if (out / JUDGEMENTS_FILE).exists() and (out / JUDGEMENTS_FILE).read_text().strip():
                break
            time.sleep(0.05)
        else:
            pytest.fail("the child never judged an attempt")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    before = {(e["episode_id"], e["attempt"]): e["attempt_id"] for e in lines(out / "episodes.jsonl")}
    assert 0 < len(before) < 6  # killed part-way
    run(out, judge=ScriptedJudge("failure"), attempts=3, env_factory=fake_env)
    after = {(e["episode_id"], e["attempt"]): e["attempt_id"] for e in lines(out / "episodes.jsonl")}
    assert sorted(after) == sorted((k, n) for k in KEYS for n in range(3))  # none lost, none twice
    assert all(after[k] == a for k, a in before.items())
    assert len(lines(out / "episodes.jsonl")) == 6


def test_more_attempts_on_a_later_run_retry_what_the_judge_failed(tmp_path: Path) -> None:
    out = tmp_path / "r"
    run(out, SeedGatedOracle, judge=ScriptedJudge("failure"))
    assert attempts_by_episode(out) == {key: [0] for key in KEYS}
    run(out, SeedGatedOracle, judge=ScriptedJudge("failure"), attempts=2)
    assert attempts_by_episode(out) == {key: [0, 1] for key in KEYS}


# Keys of each line as the runner wrote them before judged retries existed (pinned).
OLD_STEP = ["attempt_id", "episode_id", "index", "kind", "n_elements", "screenshot", "seed", "step", "task_id",
            "written_at"]
OLD_FINAL = ["attempt_id", "episode_id", "kind", "observation", "seed", "task_id", "written_at"]
OLD_EPISODE = ["actions", "agent", "agent_error", "answer", "apps", "attempt_id", "checker_error", "checker_score",
               "complexity", "declared_done", "episode_id", "errors", "finished_at", "goal", "kind", "max_steps",
               "n_steps", "params", "seed", "started_at", "success", "task_id", "task_kind", "termination",
               "time_agent", "time_env", "usage"]
OLD_RUN = ["answer_ends_episode", "config", "created_at", "droidverify_version", "invocations", "max_steps", "pairs",
           "updated_at"]
OLD_SUMMARY = ["agent", "agent_errors", "by_app", "by_complexity", "by_task", "checker_errors", "out_dir", "overall",
               "ran", "skipped", "success_rate", "time_agent", "time_env", "usage"]
_VOLATILE = {"written_at", "attempt_id", "started_at", "finished_at", "time_agent", "time_env", "timings",
             "created_at", "updated_at", "latency_s", "screenshot", "timestamp", "out_dir"}


def _normalised(out: Path) -> dict[str, Any]:
    def norm(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: "*" if k in _VOLATILE else norm(v) for k, v in x.items()}
        return [norm(v) for v in x] if isinstance(x, list) else x

    files = {name: [norm(r) for r in lines(out / name)] for name in ("steps.jsonl", "episodes.jsonl", JUDGEMENTS_FILE)}
    files.update({name: norm(json.loads((out / name).read_text())) for name in ("run.json", "summary.json")})
    html = (out / "report.html").read_text().replace(str(out), "OUT")
    files["report.html"] = re.sub(r"\d+\.\d+ s", "T s", re.sub(r"[0-9a-f]{12}", "ID", html))
    return files


def test_attempts_1_writes_the_same_files_as_before(tmp_path: Path) -> None:
    runs = {}
    for name, kw in (("default", {}), ("one", {"attempts": 1})):
        out = tmp_path / name
        run_many(SeedGatedOracle, pairs(), out, env_factory=lambda t, s: FakeEnv(t, s, screenshot=True),
                 progress=False, judge=ScriptedJudge("failure"), **kw)
        runs[name] = _normalised(out)
    assert runs["default"] == runs["one"]
    files = runs["one"]
    steps = files["steps.jsonl"]
    assert {tuple(sorted(r)) for r in steps if r["kind"] == "step"} == {tuple(OLD_STEP)}
    assert {tuple(sorted(r)) for r in steps if r["kind"] == "final"} == {tuple(OLD_FINAL)}
    assert {tuple(sorted(r)) for r in files["episodes.jsonl"]} == {tuple(OLD_EPISODE)}
    assert all(j["details"] == {} and ":a" not in j["episode_id"] for j in files[JUDGEMENTS_FILE])
    assert sorted(files["run.json"]) == OLD_RUN and sorted(files["summary.json"]) == OLD_SUMMARY
    assert "attemptlist" not in files["report.html"] and "success at attempt 1" not in files["report.html"]


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True, None])
def test_a_bad_attempts_value_is_a_typed_error_naming_the_option(tmp_path: Path, bad: Any) -> None:
    with pytest.raises(RunError, match="--attempts"):
        run(tmp_path / "r", judge=ScriptedJudge(), attempts=bad)
    assert not (tmp_path / "r").exists()  # refused before anything is written
    with pytest.raises(RunError, match="--attempts"):
        check_attempts(bad)


def test_retries_need_a_judge_and_a_resettable_environment(tmp_path: Path) -> None:
    with pytest.raises(RunError, match="--judge"):
        run(tmp_path / "r", attempts=2)
    with pytest.raises(RunError, match="--env adb"):
        run(tmp_path / "r", judge=ScriptedJudge(), attempts=2, env_factory=EnvSpec("adb"))
    assert not (tmp_path / "r").exists()


def test_cli_attempts(tmp_path: Path) -> None:
    from droidverify.cli import app

    runner = CliRunner()
    base = ["run", "--agent", "noop", "--tasks", "contacts_add_contact", "--no-progress"]
    for argv, needle in ((["--attempts", "0", "--judge", "rule"], "--attempts"),
                         (["--attempts", "x", "--judge", "rule"], "--attempts"),
                         (["--attempts", "2", "--judge", "rule", "--env", "adb"], "--env adb")):
        res = runner.invoke(app, [*base, *argv, "--out", str(tmp_path / "bad")])
        assert res.exit_code == 2, res.output
        assert needle in res.output
    assert not (tmp_path / "bad").exists()
    out = tmp_path / "r"
    res = runner.invoke(app, [*base, "--seeds", "0-1", "--judge", "rule", "--attempts", "3", "--out", str(out)])
    assert res.exit_code == 0, res.output
    said = " ".join(res.output.split())  # rich wraps long lines
    assert "judged retries (up to 3 attempts): success at attempt 1 0.0%, after all attempts 0.0%" in said
    assert "6 attempts for 2 episodes" in said and "(on their last attempts)" in said
    assert json.loads((out / "run.json").read_text())["config"]["attempts"] == 3
    assert attempts_by_episode(out) == {"contacts_add_contact:0": [0, 1, 2], "contacts_add_contact:1": [0, 1, 2]}
    # without --judge, retries are judged by the shipped trained judge (rewards.registry.DEFAULT_JUDGE)
    res = runner.invoke(app, [*base, "--attempts", "2", "--out", str(tmp_path / "d")])
    assert res.exit_code == 0, res.output
    judged = [json.loads(x) for x in (tmp_path / "d" / "judgements.jsonl").read_text().splitlines()]
    assert {j["judge"] for j in judged} == {"compact"} and len(judged) >= 1
    assert [j["outcome"] for j in judged] == ["failure", "failure"]  # a no-op never adds the contact


def test_the_report_shows_every_attempt_with_its_judgement(tmp_path: Path) -> None:
    out = tmp_path / "r"
    run(out, SeedGatedOracle, judge=ScriptedJudge("failure", "undecided", "failure"), attempts=3, report=True)
    html = (out / "report.html").read_text()
    for key in KEYS:
        for n in range(3):
            assert f'id="ep-{key}-a{n}"' in html  # each attempt has its own section (the last: a heading)
    assert html.count('<table class="attemptlist">') == 2
    table = html.split('<table class="attemptlist">')[1].split("</table>")[0]
    assert table.count("<tr>") == 4  # the header and three attempts
    assert re.findall(r'class="(?:ok|warn|err)">(\w+)</b></td><td class="n">', table) == \
        ["failure", "undecided", "failure"]
    assert '<span class="badge ok">solved</span>' in table and table.count("badge fail") == 2
    assert "false successes on last attempts" in html and "success at attempt 1 → after up to 3 attempts" in html
    assert html.count('class="attemptbox"') == 4  # the two earlier attempts of each episode
    rebuilt = build_report(out, out_file=tmp_path / "again.html")
    again = rebuilt.read_text()
    assert again.count('class="attemptbox"') == 4 and again.count('<table class="attemptlist">') == 2
    assert "100.0% → 0.0%" in again  # the rebuilt summary reads the retry figures from the files


def test_retries_on_worker_processes_judge_the_live_simulator(tmp_path: Path) -> None:
    """Worker processes play each episode's attempts, judging each where it ran (the rule judge on
    the live phone state); the directory holds what an in-process run writes."""
    task = registry.get_template("contacts_add_contact")
    pairs_ = [(task, 0), (task, 1)]
    outs = {}
    for name, backend in (("inline", None), ("workers", LocalBackend(2))):
        outs[name] = tmp_path / name
        summary = run_many(AgentSpec("noop"), pairs_, outs[name], env_factory=EnvSpec("sim"), progress=False,
                           report=False, judge=RuleJudge(), attempts=2, backend=backend)
        assert summary.retries.attempts_used == 4 and summary.success_rate == 0.0
    for out in outs.values():
        assert attempts_by_episode(out) == {"contacts_add_contact:0": [0, 1], "contacts_add_contact:1": [0, 1]}
        phones = [r for r in lines(out / "steps.jsonl") if r["kind"] == "phone"]
        assert sorted(r["attempt"] for r in phones) == [0, 0, 1, 1]
        js = read_judgements(out / JUDGEMENTS_FILE)
        assert all(j.outcome == "failure" and j.components["source"] == "final_phone_state" for j in js)
        assert sorted(j.episode_id for j in js) == sorted(attempt_key(f"contacts_add_contact:{s}", n)
                                                           for s in (0, 1) for n in (0, 1))


def test_a_worker_whose_agent_server_fails_mid_retry_keeps_the_finished_attempts(tmp_path: Path) -> None:
    out = tmp_path / "r"
    with pytest.raises(LLMUnavailableError):
        run(out, functools.partial(ServerDownOnRetry, True), judge=ScriptedJudge("failure"), attempts=2,
            backend=LocalBackend(1))
    assert attempts_by_episode(out) == {KEYS[0]: [0]} and judgement_ids(out) == [KEYS[0]]
    assert {r["attempt"] for r in lines(out / "steps.jsonl")} == {0}  # the lost attempt's steps never came
    run(out, functools.partial(ServerDownOnRetry, False), judge=ScriptedJudge("failure"), attempts=2)
    assert attempts_by_episode(out) == {key: [0, 1] for key in KEYS}
