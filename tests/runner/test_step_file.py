"""steps.jsonl stores each distinct screen's XML once (issue 23 item 6): a later step or final line
showing the same screen names it by hash, every reader gets the full observation back, a resumed or
crash-cut file never names XML it does not hold, and run directories written before load as always.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from render_agents import MissFirstOracle

from droidverify.cli.run import EnvSpec
from droidverify.runner.report import build_report
from droidverify.runner.run import run_many
from droidverify.runner.store import (
    XML_SHA,
    StepsWriter,
    load_trajectories,
    read_jsonl,
    read_steps,
)
from droidverify.tasks import registry

PAIRS = [("contacts_add_contact", 0), ("contacts_add_contact", 1), ("clock_start_stopwatch", 0)]


def _step(attempt: str, index: int, xml: str | None) -> dict[str, Any]:
    obs = {"xml": xml, "package": "p", "activity": "a", "screen_size": [1080, 2400], "timestamp": 1.0, "info": {}}
    return {"kind": "step", "episode_id": "t:0", "attempt_id": attempt, "task_id": "t", "seed": 0, "index": index,
            "step": {"index": index, "observation": obs, "action": None}}


def _final(attempt: str, xml: str) -> dict[str, Any]:
    return {"kind": "final", "episode_id": "t:0", "attempt_id": attempt, "task_id": "t", "seed": 0,
            "observation": {"xml": xml, "package": "p", "screen_size": [1080, 2400]}}


def _raw_observations(path: Path) -> list[dict[str, Any]]:
    out = []
    for rec in read_jsonl(path).records:
        if rec["kind"] == "step":
            out.append(rec["step"]["observation"])
        elif rec["kind"] == "final":
            out.append(rec["observation"])
    return out


def test_each_distinct_screen_is_stored_once_and_read_back_whole(tmp_path: Path) -> None:
    path = tmp_path / "steps.jsonl"
    recs = [_step("a", 0, "<A/>"), _step("a", 1, "<B/>"), _step("a", 2, "<A/>"), _final("a", "<B/>"),
            {"kind": "phone", "attempt_id": "a", "state": "s"}, _step("b", 0, "<A/>"), _final("b", "<C\udcff/>")]
    given = copy.deepcopy(recs)
    with StepsWriter(path) as w:
        w.write(recs[0])
        w.write_many(recs[1:])
    assert recs == given  # the caller's lines are not changed
    raw = _raw_observations(path)
    assert [o.get("xml") for o in raw] == ["<A/>", "<B/>", None, None, None, "<C\udcff/>"]
    assert raw[2][XML_SHA] == raw[0][XML_SHA] != raw[1][XML_SHA] == raw[3][XML_SHA]
    assert list(raw[2]) == [XML_SHA, "package", "activity", "screen_size", "timestamp", "info"]
    assert read_steps(path).records == given  # the lines as the runner built them, hash keys gone


def test_a_resumed_writer_names_what_the_file_holds_and_redefines_a_cut_line(tmp_path: Path) -> None:
    path = tmp_path / "steps.jsonl"
    with StepsWriter(path) as w:
        w.write_many([_step("a", 0, "<A/>"), _step("a", 1, "<B/>")])
    with StepsWriter(path) as w:  # a resumed run: <A/> is in the file, written again only by hash
        w.write(_step("b", 0, "<A/>"))
    assert [o.get("xml") for o in _raw_observations(path)] == ["<A/>", "<B/>", None]
    # a crash cut the line holding <B/> short: the next writer cuts it off and stores <B/> again
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:1] + lines[2:]) + lines[1][:40])
    with StepsWriter(path) as w:
        w.write(_step("c", 0, "<B/>"))
    assert [o.get("xml") for o in _raw_observations(path)] == ["<A/>", None, "<B/>"]
    assert [r["step"]["observation"]["xml"] for r in read_steps(path).records] == ["<A/>", "<A/>", "<B/>"]


def test_a_line_naming_a_lost_screen_is_reported_not_guessed(tmp_path: Path) -> None:
    path = tmp_path / "steps.jsonl"
    with StepsWriter(path) as w:
        w.write_many([_step("a", 0, "<A/>"), _step("a", 1, "<A/>")])
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text(lines[1], encoding="utf-8")  # the line holding the XML is gone
    with pytest.warns(UserWarning, match=f"1 step/final line.*{XML_SHA}.*missing or damaged"):
        (rec,) = read_steps(path).records
    assert "xml" not in rec["step"]["observation"]


def test_old_files_read_as_they_are(tmp_path: Path) -> None:
    path = tmp_path / "steps.jsonl"
    recs = [_step("a", 0, "<A/>"), _step("a", 1, "<A/>"), _final("a", "<A/>")]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    assert read_steps(path).records == recs
    with StepsWriter(path) as w:  # resuming an old directory: its full-XML lines define nothing
        w.write(_step("b", 0, "<A/>"))
    assert _raw_observations(path)[-1]["xml"] == "<A/>"


def _html(out: Path) -> str:
    return re.sub(r"\d+\.\d+ s\b", "T s", (out / "report.html").read_text(encoding="utf-8").replace(str(out), "OUT"))


def test_a_run_stores_repeats_once_and_loads_like_a_run_written_before(tmp_path: Path) -> None:
    new = tmp_path / "new"
    pairs = [(registry.get_template(t), s) for t, s in PAIRS]
    run_many(MissFirstOracle, pairs, new, env_factory=EnvSpec("sim"), progress=False)
    raw = _raw_observations(new / "steps.jsonl")
    full = [o for o in raw if "xml" in o]
    assert len({o[XML_SHA] for o in raw}) == len(full) < len(raw)  # a missed click shows its screen again
    # the same run as the runner wrote it before: full XML on every line
    old = tmp_path / "old"
    shutil.copytree(new, old)
    (old / "steps.jsonl").write_text("".join(json.dumps(r) + "\n" for r in read_steps(new / "steps.jsonl").records),
                                     encoding="utf-8")
    assert not any(XML_SHA in o for o in _raw_observations(old / "steps.jsonl"))
    assert (old / "steps.jsonl").stat().st_size > (new / "steps.jsonl").stat().st_size
    assert [t.to_dict() for t in load_trajectories(new)] == [t.to_dict() for t in load_trajectories(old)]
    for d in (new, old):
        shutil.rmtree(d / "screens")
        build_report(d)
    assert _html(new) == _html(old)
    # a rerun resumes: nothing is played again and the file is unchanged
    size = (new / "steps.jsonl").stat().st_size
    assert run_many(MissFirstOracle, pairs, new, env_factory=EnvSpec("sim"), progress=False).skipped == len(PAIRS)
    assert (new / "steps.jsonl").stat().st_size == size
