"""Verifier data collected on rollout workers (issue 9): one episode per unit of work, the same records,
statistics and order as serial collection."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from droidverify.agents.oracle import OracleAgent
from droidverify.cli import app
from droidverify.errors import BackendError
from droidverify.runner.backends import InlineBackend, LocalBackend
from droidverify.tasks import registry
from droidverify.training.collection import CollectStats, collect
from droidverify.training.loop import sim_apps

TEMPLATES = ("clock_create_alarm", "contacts_add_contact", "settings_wifi_toggle", "notes_create_note")


def _tasks(seed: int = 100) -> list:
    return [registry.get_template(t).instantiate(seed) for t in TEMPLATES]


def _collect(tasks: list, backend=None, **kw) -> tuple[list[dict], dict, list[str]]:
    stats = CollectStats()
    seen: list[str] = []
    recs = list(collect(tasks, split_of=registry.split_of, apps=sim_apps(), stats=stats, backend=backend,
                        on_episode=lambda task, s: seen.append(f"{task.id}:{s.episodes}"), **kw))
    return [r.model_dump(mode="json") for r in recs], stats.to_dict(), seen


def test_two_workers_collect_the_same_records_in_the_same_order_as_serial() -> None:
    tasks = _tasks()
    kw = {"policy": "noisy", "epsilon": 0.5, "self_correction_rate": 1.0, "seed": 3}
    serial = _collect(tasks, **kw)
    parallel = _collect(tasks, LocalBackend(2), **kw)
    recs, _, seen = serial
    assert {r["source"] for r in recs} == {"policy", "self_correction"}  # the rng path is exercised
    assert seen == [f"{t.id}:{i + 1}" for i, t in enumerate(tasks)]  # on_episode in task order
    assert parallel == serial
    # the inline backend is the same code path as no backend
    assert _collect(tasks, InlineBackend(), **kw) == serial


def test_an_episodes_records_do_not_depend_on_the_episodes_before_it() -> None:
    """Per-episode generators: collecting one task alone gives the records it gets in a longer run."""
    tasks = _tasks()
    kw = {"policy": "noisy", "epsilon": 0.5, "self_correction_rate": 1.0, "seed": 3}
    whole, _, _ = _collect(tasks, **kw)
    last, _, _ = _collect(tasks[-1:], **kw)
    assert last and whole[-len(last):] == last


def test_a_policy_factory_runs_in_the_workers_and_keep_in_this_process() -> None:
    tasks = _tasks(0)[:3]
    keep = lambda r: r.step % 2 == 0  # a closure: never sent to a worker
    serial = _collect(tasks, policy=OracleAgent, keep=keep)
    parallel = _collect(tasks, LocalBackend(2), policy=OracleAgent, keep=keep)
    assert parallel == serial
    recs, stats, _ = serial
    assert recs and all(r["source"] == "policy" and r["step"] % 2 == 0 for r in recs)
    assert stats["records"] == {"policy": len(recs)} and stats["episode_success"] == 3


def test_a_policy_factory_that_cannot_reach_workers_is_a_clear_error() -> None:
    agent = OracleAgent()
    with pytest.raises(BackendError, match="lambdas or closures"):
        list(collect(_tasks()[:2], split_of=registry.split_of, apps=sim_apps(), policy=lambda _t: agent,
                     backend=LocalBackend(2)))


def test_train_data_workers_collects_on_local_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The option's wiring (the records' equality is the tests above): --workers N hands build_dataset
    a LocalBackend of N processes, closed afterwards; --workers 1 (the default) none."""
    from droidverify.training import loop

    seen: list = []

    def fake_build_dataset(out, spec, *, progress=None, backend=None):
        seen.append(backend)
        return {"records": 0, "self_correction_share": 0.0}

    monkeypatch.setattr(loop, "build_dataset", fake_build_dataset)
    args = ["train", "data", "--out", str(tmp_path / "d.jsonl"), "--oracle-seeds", "0", "--noisy-seeds", ""]
    assert CliRunner().invoke(app, args).exit_code == 0
    res = CliRunner().invoke(app, [*args, "--workers", "2"])
    assert res.exit_code == 0, res.output
    assert seen[0] is None and isinstance(seen[1], LocalBackend) and seen[1].workers == 2
    assert "collecting on 2 local worker processes" in res.output
    bad = CliRunner().invoke(app, [*args, "--workers", "two"])
    assert bad.exit_code == 2 and "--workers" in bad.output and len(seen) == 2
