"""Judging on rollout workers (issue 9): one trajectory per unit of work, the same judgements as serial
judging, cached judgements never redone."""

from __future__ import annotations

import json
from typing import Any

from parallel_judges import ScriptedPassive
from typer.testing import CliRunner

from droidverify.cli import app
from droidverify.rewards.labelled import write_set
from droidverify.rewards.rule import RuleJudge
from droidverify.rewards.store import JudgementStore, judge_all, read_judgements
from droidverify.runner.backends import LocalBackend

VARYING = ("created_at", "latency_s")  # wall-clock facts, not the judgement


def _same(judgements: list[Any]) -> list[dict[str, Any]]:
    return [{k: v for k, v in j.to_dict().items() if k not in VARYING} for j in judgements]


def test_rule_judge_on_two_workers_gives_the_serial_judgements(tmp_path, labelled_items) -> None:
    trajs = [it.trajectory for it in labelled_items[:10]]
    serial = judge_all(RuleJudge(), trajs, JudgementStore(tmp_path / "a.jsonl"))
    parallel = judge_all(RuleJudge(), trajs, JudgementStore(tmp_path / "b.jsonl"), backend=LocalBackend(2))
    assert _same(parallel) == _same(serial)  # and in trajectory order
    assert {j.outcome for j in serial} == {"success", "failure"}
    on_disk = [sorted(map(json.dumps, _same(read_judgements(tmp_path / f)))) for f in ("a.jsonl", "b.jsonl")]
    assert on_disk[0] == on_disk[1] and len(on_disk[0]) == 10


def test_a_judge_factory_runs_in_the_workers_and_cached_judgements_are_kept(tmp_path, labelled_items) -> None:
    trajs = [it.trajectory for it in labelled_items[:8]]
    serial = judge_all(ScriptedPassive()(), trajs)
    store = JudgementStore(tmp_path / "j.jsonl")
    judge_all(ScriptedPassive()(), trajs[:3], store)  # a run cut short
    done: list[tuple[str, bool]] = []
    ScriptedPassive.built = 0
    parallel = judge_all(ScriptedPassive(), [*trajs, trajs[5]], store, backend=LocalBackend(2),
                         on_done=lambda j, cached: done.append((j.episode_id, cached)))
    assert ScriptedPassive.built == 0  # built in the workers, not here
    assert _same(parallel) == _same([*serial, serial[5]])
    assert {j.outcome for j in serial} == {"success", "failure"}
    assert sum(c for _, c in done) == 4 and len(done) == 9  # 3 from the store, the repeat once
    assert len(read_judgements(store.path)) == 8  # nothing judged twice
    # everything cached: no worker is started, nothing is built
    again = judge_all(ScriptedPassive(), trajs, JudgementStore(store.path), backend=LocalBackend(2))
    assert [j.to_dict() for j in again] == [j.to_dict() for j in parallel[:8]]


def test_judge_command_with_workers(tmp_path, labelled_items) -> None:
    path = write_set(list(labelled_items[:6]), tmp_path / "set.jsonl.gz", split="train")
    one = CliRunner().invoke(app, ["judge", "--method", "rule", str(path), "--out", str(tmp_path / "one.jsonl")])
    assert one.exit_code == 0, one.output
    two = CliRunner().invoke(app, ["judge", "--method", "rule", str(path), "--out", str(tmp_path / "two.jsonl"),
                                   "--workers", "2"])
    assert two.exit_code == 0, two.output
    assert "judging on 2 local worker processes" in two.output and "6 episodes judged" in two.output
    got = [{json.dumps(d, sort_keys=True) for d in _same(read_judgements(tmp_path / f))}
           for f in ("one.jsonl", "two.jsonl")]
    assert got[0] == got[1] and len(got[0]) == 6
    bad = CliRunner().invoke(app, ["judge", "--method", "rule", str(path), "--workers", "0"])
    assert bad.exit_code == 2 and "--workers" in bad.output
