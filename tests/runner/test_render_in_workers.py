"""The report's screens are rendered by the workers that played the episodes (issue 23 item 6): the
report of a parallel run is the same as an in-process run's (same PNG bytes, same HTML), the report
itself renders only what the workers left to it, and a resumed run still shows every screen.

Runs are real: the oracle (after one click on a missing element, so a screen carries a note) on the
simulator through ``run_many`` with :class:`LocalBackend` worker processes.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from render_agents import MissFirstOracle

from droidverify.cli.run import EnvSpec
from droidverify.runner import report as report_mod
from droidverify.runner.backends import LocalBackend
from droidverify.runner.run import EpisodeWorker, Pair, Work, run_many
from droidverify.runner.store import read_episodes
from droidverify.tasks import registry

TASKS = ("contacts_add_contact", "clock_start_stopwatch")
NOTE = re.compile(r"index 999 is out of range \(0\.\.\d+\): nothing outlined")


def _pairs(seeds: tuple[int, ...] = (0, 1)) -> list[tuple[Any, int]]:
    return [(registry.get_template(t), s) for t in TASKS for s in seeds]


def _attempt_names(out: Path) -> dict[str, str]:
    return {ep["attempt_id"]: ep["episode_id"] for ep in read_episodes(out).episodes.values()}


def _pngs(out: Path) -> dict[tuple[str, str], str]:
    """Rendered screens by (episode id, file name): their bytes' hash (attempt ids differ per run)."""
    names = _attempt_names(out)
    return {(names[p.parent.name], p.name): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in (out / "screens" / "rendered").rglob("*.png")}


def _html(out: Path) -> str:
    """report.html with what differs between two runs of the same episodes masked: attempt ids,
    the directory, measured times."""
    text = (out / "report.html").read_text(encoding="utf-8").replace(str(out), "OUT")
    for attempt, episode in _attempt_names(out).items():
        text = text.replace(attempt, f"attempt-of-{episode}")
    return re.sub(r"\d+\.\d+ s\b", "T s", text)


def _img_srcs(out: Path) -> list[str]:
    return re.findall(r'<img src="([^"]+)"', (out / "report.html").read_text(encoding="utf-8"))


@pytest.fixture
def report_calls(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Per report written in this process: the ``where`` of each screen it had to render itself."""
    calls: list[list[str]] = []
    real = report_mod.render_all

    def spy(jobs: list[report_mod.RenderJob], **kw: Any) -> None:
        calls.append([job.where for job in jobs if not job.path.exists()])
        real(jobs, **kw)

    monkeypatch.setattr(report_mod, "render_all", spy)
    return calls


def test_workers_render_the_screens_and_the_report_is_the_same_as_in_process(tmp_path: Path,
                                                                             report_calls: list) -> None:
    inproc, parallel = tmp_path / "inproc", tmp_path / "parallel"
    run_many(MissFirstOracle, _pairs(), inproc, env_factory=EnvSpec("sim"), progress=False)
    run_many(MissFirstOracle, _pairs(), parallel, env_factory=EnvSpec("sim"), progress=False,
             backend=LocalBackend(2))
    n_screens = sum(ep["n_steps"] + 1 for ep in read_episodes(inproc).episodes.values())  # steps + final
    left_inproc, left_parallel = report_calls
    assert len(left_inproc) == n_screens  # in process: the report renders every screen, as before
    # with workers: only the screens carrying a note (the missed click, one per episode) were left
    assert sorted(left_parallel) == sorted(f"step 0 of attempt {a}" for a in _attempt_names(parallel))
    assert _pngs(parallel) == _pngs(inproc) and len(_pngs(inproc)) == n_screens
    assert _html(parallel) == _html(inproc)
    assert len(NOTE.findall(_html(parallel))) == len(_pairs())


def test_a_resumed_run_has_every_screen_of_the_episodes_recorded_before(tmp_path: Path,
                                                                         report_calls: list) -> None:
    out = tmp_path / "run"
    run_many(MissFirstOracle, _pairs((0,)), out, env_factory=EnvSpec("sim"), progress=False, report=False,
             backend=LocalBackend(2))
    assert not (out / "screens").exists()  # no report wanted: the workers rendered nothing
    run_many(MissFirstOracle, _pairs((0, 1)), out, env_factory=EnvSpec("sim"), progress=False,
             backend=LocalBackend(2))
    eps = list(read_episodes(out).episodes.values())
    assert len(eps) == 4
    before = {e["attempt_id"]: e["n_steps"] for e in eps if e["seed"] == 0}
    (left,) = report_calls
    of = {attempt: [w for w in left if w.endswith(f" of attempt {attempt}")] for attempt in _attempt_names(out)}
    for attempt, where in of.items():
        if attempt in before:  # recorded before: the report rendered all its screens (steps + final)
            assert len(where) == before[attempt] + 1 and f"final screen of attempt {attempt}" in where
        else:  # played now: only the noted screen was left to the report
            assert where == [f"step 0 of attempt {attempt}"]
    srcs = _img_srcs(out)
    assert len(srcs) == sum(e["n_steps"] + 1 for e in eps)
    assert all((out / src).is_file() for src in srcs)


def test_a_worker_renders_the_screens_of_what_it_played_only_when_asked(tmp_path: Path) -> None:
    pair = Work(Pair(registry.get_template("contacts_add_contact"), 0))
    plain = EpisodeWorker(MissFirstOracle, EnvSpec("sim"), None, False).play(pair)
    assert not [rec for rec, _ in plain if rec["kind"] == report_mod.RENDERED_KIND]
    lines = EpisodeWorker(MissFirstOracle, EnvSpec("sim"), None, False, render_scale=0.3).play(pair)
    kinds = [rec["kind"] for rec, _ in lines]
    n = kinds.count("step")
    # every screen but the noted one (step 0), after the attempt's own lines
    assert kinds == [*[k for k, _ in ((r["kind"], p) for r, p in plain)], *[report_mod.RENDERED_KIND] * n]
    (attempt,) = {rec["attempt_id"] for rec, _ in lines if rec["kind"] == "step"}
    rendered = {rec["path"]: png for rec, png in lines if rec["kind"] == report_mod.RENDERED_KIND}
    assert sorted(rendered) == sorted([f"screens/rendered/{attempt}/{i:03d}.png" for i in range(1, n)]
                                      + [f"screens/rendered/{attempt}/final.png"])
    # the bytes are what the report renders from the written line
    step1 = next(rec for rec, _ in lines if rec["kind"] == "step" and rec["index"] == 1)
    spec = report_mod.step_screen(json.loads(json.dumps(step1)))
    target = tmp_path / "s.png"
    report_mod.render_screen(spec.obs_dict, target, rel="s.png", highlight=spec.highlight, scale=0.3,
                             where=spec.where)
    assert rendered[spec.rel] == target.read_bytes()
