"""Episodes that start away from the launcher (``collect(start="mid" | "detour")``): a hidden oracle
prefix (and a harmless detour) before recording, so the first recorded step has an empty memory on
a screen inside the task, as for an agent a user starts inside an app."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import droidverify.training.collection as col
from droidverify.cli import app
from droidverify.env.sim.system import LAUNCHER_PKG
from droidverify.errors import TrainingError
from droidverify.runner.backends import LocalBackend
from droidverify.tasks import registry
from droidverify.training.collection import CollectStats, collect
from droidverify.training.loop import DataSpec, build_dataset, sim_apps

TEMPLATES = ("clock_create_alarm", "contacts_add_contact", "settings_wifi_toggle", "notes_create_note",
             "expenses_add_expense", "calendar_delete_event")


def _tasks(seed: int = 400, templates: tuple[str, ...] = TEMPLATES) -> list:
    return [registry.get_template(t).instantiate(seed) for t in templates]


def _collect(tasks: list, backend=None, **kw) -> tuple[list, CollectStats]:
    stats = CollectStats()
    recs = list(collect(tasks, split_of=registry.split_of, apps=sim_apps(), stats=stats, backend=backend, **kw))
    return recs, stats


def _package(xml: str) -> str:
    return xml.split('package="', 2)[1].split('"', 1)[0]  # the first node below the hierarchy root


def _episodes(recs: list) -> dict[str, list]:
    out: dict[str, list] = {}
    for r in recs:
        out.setdefault(r.task_id, []).append(r)
    return out


@pytest.mark.parametrize("mode", ["mid", "detour"])
def test_a_start_episode_begins_inside_the_task_with_an_empty_memory(mode: str) -> None:
    tasks = _tasks()
    launcher, _ = _collect(tasks)
    recs, stats = _collect(tasks, start=mode)
    empty = launcher[0].memory  # what an agent's first step shows: nothing yet
    assert stats.episodes == stats.episode_success == stats.starts[mode] == len(tasks)
    assert stats.prefix_steps >= len(tasks) and not stats.start_fallbacks and not stats.oracle_errors
    assert len({r.record_id for r in recs}) == len(recs)
    episodes = _episodes(recs)
    assert set(episodes) == {t.id for t in tasks}
    for task_id, eps in episodes.items():
        first = eps[0]
        assert first.step == 0 and first.memory == empty, task_id
        assert _package(first.xml) != LAUNCHER_PKG, task_id
        assert first.record_id == f"oracle:r0:{task_id}:400:{mode}:0"
        assert [r.step for r in eps] == list(range(len(eps)))
        assert eps[1].memory != empty if len(eps) > 1 else True  # the memory fills from there on
        assert eps[-1].positive_action.action_type == "status" and all(r.source == "oracle" for r in eps)
    # Mid-task starts resume the oracle's own path: the remaining steps of the launcher episode.
    full = _episodes(launcher)
    if mode == "mid":
        for task_id, eps in episodes.items():
            assert len(eps) < len(full[task_id])
            assert [r.xml for r in eps] == [r.xml for r in full[task_id][-len(eps):]]
            assert [r.oracle_action for r in eps] == [r.oracle_action for r in full[task_id][-len(eps):]]
    else:  # a detour leaves the oracle's path: some start screen is one the oracle never shows
        on_path = {r.xml for r in launcher}
        assert any(eps[0].xml not in on_path for eps in episodes.values())
    # Fewer empty-memory "open an app" labels than launcher starts give (all of them there).
    opens = sum(eps[0].positive_action.action_type == "open_app" or
                json.loads(eps[0].oracle_action)["action_type"] == "open_app" for eps in episodes.values())
    assert opens <= len(tasks) // 2


def test_start_records_are_the_same_with_two_workers_and_deterministic() -> None:
    tasks = _tasks(401)[:4]
    for mode in ("mid", "detour"):
        serial, s_stats = _collect(tasks, start=mode, seed=2)
        again, _ = _collect(tasks, start=mode, seed=2)
        parallel, p_stats = _collect(tasks, LocalBackend(2), start=mode, seed=2)
        dump = [r.model_dump(mode="json") for r in serial]
        assert dump == [r.model_dump(mode="json") for r in again]
        assert dump == [r.model_dump(mode="json") for r in parallel]
        assert s_stats.to_dict() == p_stats.to_dict()
        # an episode's prefix does not depend on the episodes before it
        alone, _ = _collect(tasks[-1:], start=mode, seed=2)
        assert [r.model_dump(mode="json") for r in alone] == dump[-len(alone):]


def test_launcher_start_is_the_default_and_unchanged() -> None:
    tasks = _tasks(0)[:2]
    default, stats = _collect(tasks)
    explicit, _ = _collect(tasks, start="launcher")
    assert [r.model_dump(mode="json") for r in default] == [r.model_dump(mode="json") for r in explicit]
    assert [r.record_id for r in default if r.task_id == tasks[0].id] == \
        [f"oracle:r0:{tasks[0].id}:0:{i}" for i in range(sum(r.task_id == tasks[0].id for r in default))]
    assert _package(default[0].xml) == LAUNCHER_PKG
    assert set(stats.to_dict()) == {"episodes", "steps", "records", "unmatched_total", "unmatched",
                                    "unmatched_examples", "oracle_errors", "episode_success"}
    with pytest.raises(TrainingError, match="unknown start"):
        _collect(tasks, start="middle")


def test_a_prefix_that_reaches_the_end_of_the_task_is_recorded_from_there(monkeypatch: pytest.MonkeyPatch) -> None:
    """A prefix drawn past the oracle's last step stops before its status/answer: the episode is
    recorded from the finished state (the status step), counted, never lost."""
    monkeypatch.setattr(col, "_oracle_path_length", lambda phone, task, limit: (1000, None))
    task = registry.get_template("clock_create_alarm").instantiate(3)
    recs, stats = _collect([task], start="mid")
    assert stats.start_fallbacks == {"mid:task_done": 1} and stats.episodes == stats.episode_success == 1
    assert [r.positive_action.action_type for r in recs] == ["status"]
    assert recs[0].memory == _collect([task])[0][0].memory


def test_an_oracle_that_raises_in_the_prefix_does_not_lose_the_episode(monkeypatch: pytest.MonkeyPatch) -> None:
    task = registry.get_template("clock_create_alarm").instantiate(3)
    real = task.template.oracle_action
    calls = {"n": 0}

    def flaky(phone, params, obs):
        calls["n"] += 1
        if calls["n"] > 1:
            raise RuntimeError("oracle broke")
        return real(phone, params, obs)

    monkeypatch.setattr(task.template, "oracle_action", flaky)
    for mode in ("mid", "detour"):
        calls["n"] = 0
        recs, stats = _collect([task], start=mode)
        assert recs == [] and stats.episodes == 1 and stats.starts == {mode: 1}
        assert stats.start_fallbacks  # counted: why the prefix stopped short
        assert stats.oracle_errors[task.id] == 1  # the recording then met the broken oracle too
        assert sum(stats.start_fallbacks.values()) >= 1 and stats.to_dict()["start_fallbacks"]


def test_build_dataset_adds_start_episodes_and_reports_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = DataSpec()
    assert spec.start_seeds and set(spec.start_modes) == {"mid", "detour"}  # in the default data
    real = registry.tasks_for
    monkeypatch.setattr(registry, "tasks_for", lambda split, seeds, **kw: [
        t for t in real(split, seeds, **kw) if t.id in TEMPLATES[:2]])
    small = DataSpec(oracle_seeds=(0,), noisy_seeds=(), start_seeds=(400, 401, 402), start_modes=("mid", "detour"))
    stats = build_dataset(tmp_path / "d.jsonl", small)
    by = stats["records_by_collection"]
    assert set(by) == {"oracle", "start_mid", "start_detour"} and sum(by.values()) == stats["records"]
    assert stats["start_mid"]["episodes"] == 4 and stats["start_detour"]["episodes"] == 2  # 400, 402 | 401
    assert stats["start_mid"]["starts"] == {"mid": 4}
    lines = (tmp_path / "d.jsonl").read_text().splitlines()
    ids = [json.loads(line)["record_id"] for line in lines]
    assert len(ids) == len(set(ids)) == stats["records"]
    assert sum(":detour:" in i for i in ids) == by["start_detour"]
    # Off: exactly the launcher-start collections
    off = build_dataset(tmp_path / "off.jsonl", DataSpec(oracle_seeds=(0,), noisy_seeds=(), start_seeds=()))
    assert off["records_by_collection"] == {"oracle": by["oracle"]} and "start_mid" not in off
    with pytest.raises(TrainingError, match="start_modes"):
        build_dataset(tmp_path / "x.jsonl", DataSpec(start_modes=("sideways",)))


def test_train_data_start_seeds_option(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from droidverify.training import loop

    seen: list = []

    def fake_build_dataset(out, spec, *, progress=None, backend=None):
        seen.append(spec)
        return {"records": 0, "self_correction_share": 0.0, "records_by_collection": {}}

    monkeypatch.setattr(loop, "build_dataset", fake_build_dataset)
    base = ["train", "data", "--out", str(tmp_path / "d.jsonl")]
    assert CliRunner().invoke(app, base).exit_code == 0
    assert list(seen[-1].start_seeds) == list(DataSpec().start_seeds)
    res = CliRunner().invoke(app, [*base, "--start-seeds", "7-9", "--start-modes", "detour"])
    assert res.exit_code == 0, res.output
    assert list(seen[-1].start_seeds) == [7, 8, 9] and list(seen[-1].start_modes) == ["detour"]
    assert CliRunner().invoke(app, [*base, "--start-seeds", ""]).exit_code == 0
    assert list(seen[-1].start_seeds) == []
