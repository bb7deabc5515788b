"""Training data drawn with varied goal wordings and simulator skins (``DataSpec.phrasing`` /
``DataSpec.skin``): the labels stay the oracle's, only how the task reads and the screen looks vary."""

from __future__ import annotations

import json

import pytest

from droidverify.env.sim.skin import SKIN_COUNT
from droidverify.errors import TrainingError
from droidverify.tasks import registry
from droidverify.training import loop
from droidverify.training.collection import CollectStats, collect, skin_index
from droidverify.training.loop import DataSpec, build_dataset, sim_apps
from droidverify.training.records import read_records

TEMPLATES = ("clock_create_alarm", "contacts_add_contact", "notes_create_note", "expenses_add_expense")


def _kind(action_json: str) -> tuple:
    a = json.loads(action_json)
    return a["action_type"], a.get("text"), a.get("app_name"), a.get("goal_status"), a.get("direction")


def _collect(tasks: list, **kw) -> tuple[list, CollectStats]:
    stats = CollectStats()
    recs = list(collect(tasks, split_of=registry.split_of, apps=sim_apps(), stats=stats, **kw))
    return recs, stats


def test_skinned_episodes_keep_the_oracle_labels_and_change_the_screens() -> None:
    tasks = [registry.get_template(t).instantiate(3) for t in TEMPLATES]
    plain, _ = _collect(tasks)
    skinned, stats = _collect(tasks, skin="seeded")
    assert stats.episode_success == len(tasks) and not stats.oracle_errors
    skins = {r.task_id: r.skin for r in skinned}
    assert all(r.skin == 0 for r in plain)
    assert set(skins.values()) != {0}, skins  # at least one of the episodes got a skin
    for task in tasks:
        a = [r for r in plain if r.task_id == task.id]
        b = [r for r in skinned if r.task_id == task.id]
        # the same path: the oracle's steps do not depend on the look (element indices may, since
        # a skin reorders toolbars)
        assert [_kind(r.oracle_action) for r in a] == [_kind(r.oracle_action) for r in b]
        if skins[task.id]:
            assert any(x.xml != y.xml for x, y in zip(a, b, strict=True)), task.id


def test_skin_draw_is_per_episode_and_reproducible() -> None:
    task = registry.get_template("notes_create_note").instantiate(5)
    assert skin_index("none", 0, task) == 0
    drawn = {skin_index("seeded", s, task) for s in range(60)}
    assert drawn <= set(range(SKIN_COUNT + 1)) and len(drawn) > SKIN_COUNT // 2
    assert skin_index("seeded", 7, task, "mid") == skin_index("seeded", 7, task, "mid")
    with pytest.raises(TrainingError, match="skin"):
        skin_index("random", 0, task)
    with pytest.raises(TrainingError, match="skin"):
        _collect([task], skin="sometimes")


def test_dataset_goals_use_the_templates_phrasings(tmp_path) -> None:
    spec = DataSpec(split="train", oracle_seeds=range(6), noisy_seeds=(), start_seeds=(), phrasing="seeded",
                    skin="none")
    # one template keeps the test short: filter the split to it
    name = "notes_create_note"
    tmpl = registry.get_template(name)
    orig = registry.tasks_for
    try:
        registry.tasks_for = lambda split, seeds, **kw: [t for t in orig(split, seeds, **kw) if t.id == name]
        build_dataset(tmp_path / "d.jsonl", spec)
    finally:
        registry.tasks_for = orig
    recs = read_records(tmp_path / "d.jsonl")
    by_seed = {r.seed: r for r in recs}
    assert {r.phrasing for r in by_seed.values()} != {0}
    for seed, r in by_seed.items():
        assert r.goal == tmpl.instantiate(seed, phrasing=r.phrasing).goal
    with pytest.raises(TrainingError, match="phrasing"):
        build_dataset(tmp_path / "e.jsonl", DataSpec(phrasing="shuffled"))
    assert loop.DataSpec().phrasing == "seeded" and loop.DataSpec().skin == "seeded"
