from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from fakes import TEMPLATES, CountQueryTemplate, FakeEnv, TapTemplate, pairs
from scripted import ScriptedAgent

from droidverify.actions.model import Action
from droidverify.agents.oracle import OracleAgent
from droidverify.agents.random import NoopAgent
from droidverify.errors import DeviceLostError, RunError
from droidverify.runner.run import normalize_pairs, run_many
from droidverify.runner.store import load_trajectories, read_jsonl

HERE = Path(__file__).resolve().parent


def _lines(path: Path) -> list[dict]:
    return [json.loads(ln) for ln in path.read_text().splitlines() if ln.strip()]


def test_steps_and_episodes_jsonl_content(tmp_path: Path) -> None:
    tasks = pairs(range(2))
    summary = run_many(OracleAgent, tasks, tmp_path, env_factory=lambda t, s: FakeEnv(t, s, screenshot=True),
                       progress=False, config={"agent": "oracle"})
    assert summary.ran == 4 and summary.skipped == 0 and summary.success_rate == 1.0
    eps = _lines(tmp_path / "episodes.jsonl")
    steps = [r for r in _lines(tmp_path / "steps.jsonl") if r["kind"] == "step"]
    finals = [r for r in _lines(tmp_path / "steps.jsonl") if r["kind"] == "final"]
    assert sorted((e["task_id"], e["seed"]) for e in eps) == sorted((t.id, t.seed) for t in tasks)
    assert len(finals) == 4
    assert sum(e["n_steps"] for e in eps) == len(steps)
    for e in eps:
        assert "xml" not in json.dumps(e)  # episode lines stay small
        mine = [s for s in steps if s["attempt_id"] == e["attempt_id"]]
        assert [s["index"] for s in mine] == list(range(e["n_steps"]))
        assert e["actions"][-1] == '{"action_type":"status","goal_status":"complete"}'
        assert e["success"] == 1.0 and e["declared_done"] and e["termination"] == "complete"
        assert e["episode_id"] == f"{e['task_id']}:{e['seed']}"
    s0 = steps[0]
    assert s0["task_id"] == tasks[0].id and s0["seed"] == 0 and s0["n_elements"] == 4
    assert s0["step"]["observation"]["xml"].startswith("<?xml")
    assert set(s0["step"]) >= {"action", "raw_output", "error", "agent_info", "usage", "timings"}
    assert set(s0["step"]["timings"]) == {"agent", "env"}
    assert (tmp_path / s0["screenshot"]).read_bytes() == b"PNG0"
    # run.json, summary.json, report.html
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["config"] == {"agent": "oracle"} and len(run["pairs"]) == 4
    sj = json.loads((tmp_path / "summary.json").read_text())
    assert sj["overall"]["episodes"] == 4 and sj["by_app"]["Notes"]["episodes"] == 2
    assert sj["by_app"]["Counter"]["episodes"] == 4 and set(sj["by_complexity"]) == {"1", "2"}
    html = (tmp_path / "report.html").read_text()
    assert "tap_counter" in html and s0["screenshot"] in html
    # trajectories can be rebuilt from the files
    trajs = load_trajectories(tmp_path)
    assert len(trajs) == 4 and all(t.success == 1.0 for t in trajs)
    by_attempt = {e["attempt_id"]: e["n_steps"] for e in eps}
    assert all(len(t.steps) == by_attempt[t.metadata["attempt_id"]] for t in trajs)
    assert all(t.final_observation is not None for t in trajs)


def test_summary_counts_failures_by_group(tmp_path: Path) -> None:
    tap = TapTemplate().instantiate(0)
    q = CountQueryTemplate().instantiate(0)
    # scripted: solves the query task (answer, complete) but only taps once on the tap task
    def agent_factory():
        return ScriptedAgent([Action(action_type="answer", text=str(q.params["start"])),
                              Action(action_type="status", goal_status="complete")])
    summary = run_many(agent_factory, [tap, q], tmp_path, env_factory=FakeEnv, progress=False)
    assert summary.overall.solved == 1 and summary.success_rate == 0.5
    assert summary.by_complexity["1"].solved == 0 and summary.by_complexity["2"].solved == 1
    assert summary.by_app["Notes"].success_rate == 1.0 and summary.by_app["Counter"].success_rate == 0.5
    assert len(summary.tables()) == 3


def test_resume_skips_finished_and_no_resume_starts_over(tmp_path: Path) -> None:
    calls: list[str] = []

    def env_factory(task, seed):
        calls.append(f"{task.id}:{seed}")
        return FakeEnv(task, seed)

    run_many(OracleAgent, pairs(range(2)), tmp_path, env_factory=env_factory, progress=False)
    assert len(calls) == 4
    s = run_many(OracleAgent, pairs(range(3)), tmp_path, env_factory=env_factory, progress=False)
    assert len(calls) == 6 and s.ran == 2 and s.skipped == 4 and s.overall.episodes == 6
    assert json.loads((tmp_path / "run.json").read_text())["invocations"] == 2
    s = run_many(OracleAgent, pairs(range(1)), tmp_path, env_factory=env_factory, progress=False,
                 resume=False)
    assert s.ran == 2 and len(_lines(tmp_path / "episodes.jsonl")) == 2


def test_resume_refuses_another_agents_directory(tmp_path: Path) -> None:
    run_many(OracleAgent, pairs(range(1)), tmp_path, env_factory=FakeEnv, progress=False,
             config={"agent": "oracle", "seeds": [0]})
    before = (tmp_path / "run.json").read_text()
    with pytest.raises(RunError, match="oracle"):
        run_many(NoopAgent, pairs(range(2)), tmp_path, env_factory=FakeEnv, progress=False)
    with pytest.raises(RunError, match="agent: 'oracle' -> 'noop'"):
        run_many(OracleAgent, pairs(range(2)), tmp_path, env_factory=FakeEnv, progress=False,
                 config={"agent": "noop", "seeds": [0, 1]})
    assert (tmp_path / "run.json").read_text() == before  # a refused resume changes nothing
    assert len(_lines(tmp_path / "episodes.jsonl")) == 2
    # more seeds with the same config is a normal resume
    s = run_many(OracleAgent, pairs(range(2)), tmp_path, env_factory=FakeEnv, progress=False,
                 config={"agent": "oracle", "seeds": [0, 1]})
    assert s.ran == 2 and s.skipped == 2


def test_lost_device_stops_run_and_resume_reruns_partial_episode(tmp_path: Path) -> None:
    tasks = pairs(range(2))
    n = {"made": 0}

    def flaky(task, seed):
        n["made"] += 1
        return FakeEnv(task, seed, fail_after=1 if n["made"] == 2 else None)

    with pytest.raises(DeviceLostError):
        run_many(OracleAgent, tasks, tmp_path, env_factory=flaky, progress=False)
    assert len(_lines(tmp_path / "episodes.jsonl")) == 1
    s = run_many(OracleAgent, tasks, tmp_path, env_factory=FakeEnv, progress=False)
    assert s.ran == 3 and s.skipped == 1 and s.success_rate == 1.0
    recs = _lines(tmp_path / "steps.jsonl")
    abandoned = [r for r in recs if r["kind"] == "abandoned"]
    assert len(abandoned) == 1 and abandoned[0]["episode_id"] == f"{tasks[1].id}:{tasks[1].seed}"


def test_truncated_last_lines_are_tolerated(tmp_path: Path) -> None:
    tasks = pairs(range(1))
    run_many(OracleAgent, tasks[:1], tmp_path, env_factory=FakeEnv, progress=False)
    ep_line = (tmp_path / "episodes.jsonl").read_text()
    with (tmp_path / "episodes.jsonl").open("a") as fh:
        fh.write(ep_line[: len(ep_line) // 2])  # crash mid-write of a second episode line
    with (tmp_path / "steps.jsonl").open("a") as fh:
        fh.write('{"kind":"step","attempt_id":"dead')
    r = read_jsonl(tmp_path / "episodes.jsonl")
    assert len(r.records) == 1 and r.bad_lines == [2]
    s = run_many(OracleAgent, tasks, tmp_path, env_factory=FakeEnv, progress=False)
    assert s.ran == 1 and s.skipped == 1 and s.overall.episodes == 2
    for name in ("episodes.jsonl", "steps.jsonl"):
        _lines(tmp_path / name)  # every line parses again: the partial tails were cut


def test_normalize_pairs_accepts_templates_and_dedupes() -> None:
    tmpl = TapTemplate()
    tasks = normalize_pairs([(tmpl, 1), tmpl.instantiate(1), (tmpl.instantiate(2), 2)])
    assert [(t.id, t.seed) for t in tasks] == [("tap_counter", 1), ("tap_counter", 2)]
    with pytest.raises(RunError, match="seed"):
        normalize_pairs([(tmpl.instantiate(2), 3)])
    with pytest.raises(RunError):
        normalize_pairs(["tap_counter"])  # type: ignore[list-item]


_CHILD = textwrap.dedent("""
    import sys
    sys.path.insert(0, {here!r})
    from fakes import FakeEnv, pairs
    from droidverify.agents.oracle import OracleAgent
    from droidverify.runner.run import run_many

    made = []
    def env_factory(task, seed):
        made.append(1)
        env = FakeEnv(task, seed)
        if len(made) == 3:  # the third episode (a tap task: >= 2 clicks) hangs on its second click
            env.fail_after = None
            orig = env.step
            def step(action, _orig=orig, _env=env):
                if _env.steps_taken >= 1:
                    import time; time.sleep(600)
                return _orig(action)
            env.step = step
        return env

    run_many(OracleAgent, pairs(range(3)), {out!r}, env_factory=env_factory, progress=False)
""")


def _ctrl_c_as_in_a_terminal() -> None:
    """The child gets SIGINT as a terminal's Ctrl-C delivers it: in the full suite it may inherit
    SIGINT blocked or ignored from the test process (two clean-clone CI runs: alive 60 s after it)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_killed_run_resumes_without_losing_or_duplicating(tmp_path: Path, sig: int) -> None:
    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-c", _CHILD.format(here=str(HERE), out=str(out))],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=_ctrl_c_as_in_a_terminal)  # noqa: PLW1509 -- two signal calls, no locks
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            steps = out / "steps.jsonl"
            if steps.exists():
                recs = read_jsonl(steps).records
                eps = read_jsonl(out / "episodes.jsonl").records
                partial = [r for r in recs if r["kind"] == "step"
                           and r["attempt_id"] not in {e["attempt_id"] for e in eps}]
                if len(eps) == 2 and len(partial) == 1:
                    break
            assert proc.poll() is None, proc.stderr.read().decode()
            time.sleep(0.05)
        else:
            pytest.fail("child never reached the hanging step")
        os.kill(proc.pid, sig)
        if sig == signal.SIGINT:  # Ctrl-C interrupts the sleep; the run stops with KeyboardInterrupt
            # communicate drains the pipes while waiting: a child blocked writing to a full pipe never exits
            _out, err = proc.communicate(timeout=60)
            assert b"KeyboardInterrupt" in err
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)

    stale = {r["attempt_id"] for r in read_jsonl(out / "steps.jsonl").records
             if r["kind"] == "step"} - {e["attempt_id"] for e in read_jsonl(out / "episodes.jsonl").records}
    assert len(stale) == 1
    s = run_many(OracleAgent, pairs(range(3)), out, env_factory=FakeEnv, progress=False)
    assert s.skipped == 2 and s.ran == 4 and s.overall.episodes == 6 and s.success_rate == 1.0
    eps = _lines(out / "episodes.jsonl")
    ids = [e["episode_id"] for e in eps]
    assert sorted(ids) == sorted(f"{t.name}:{k}" for t in TEMPLATES for k in range(3))  # none lost/duplicated
    recs = _lines(out / "steps.jsonl")
    assert [r["attempt_id"] for r in recs if r["kind"] == "abandoned"] == list(stale)
    assert stale.isdisjoint(e["attempt_id"] for e in eps)
    trajs = load_trajectories(out)
    by_id = {e["attempt_id"]: e["n_steps"] for e in eps}
    assert len(trajs) == 6
    for t in trajs:
        assert len(t.steps) == by_id[t.metadata["attempt_id"]]  # stale steps were not mixed in


def test_report_escapes_untrusted_text(tmp_path: Path) -> None:
    task = CountQueryTemplate().instantiate(0)
    evil = "<script>alert(1)</script>"
    run_many(lambda: ScriptedAgent([Action(action_type="answer", text=evil)]), [task], tmp_path,
             env_factory=FakeEnv, progress=False, max_steps=1)
    html = (tmp_path / "report.html").read_text()
    assert evil not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_damaged_middle_line_is_skipped_with_a_warning(tmp_path: Path) -> None:
    p = tmp_path / "x.jsonl"
    p.write_text('{"a":1}\n{"a":\n{"a":3}\n[1]\n')
    with pytest.warns(UserWarning, match="unparseable lines"):
        r = read_jsonl(p)
    assert [x["a"] for x in r.records] == [1, 3] and r.bad_lines == [2, 4]
