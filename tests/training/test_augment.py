"""Name swaps (training.augment): a swapped record is the same step in a world whose names are exchanged."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))
from compact_doubles import compact_records, hash_encoder, small_config

from droidverify.env.records import Observation
from droidverify.errors import TrainingError
from droidverify.training.augment import swap_record, swap_text, swappable_pairs, with_name_swaps
from droidverify.training.compact import CompactConfig, expand_record
from droidverify.training.loop import sim_apps


@pytest.fixture(scope="module")
def records():
    return compact_records()


def test_swap_text_exchanges_whole_words_both_ways_as_written_and_in_lower_case():
    text = "Move Pictures to Documents; documents/pictures stay. MyDocuments and Picturesque do not change."
    assert swap_text(text, "Pictures", "Documents") == (
        "Move Documents to Pictures; pictures/documents stay. MyDocuments and Picturesque do not change.")


def test_only_list_names_written_in_the_goal_are_swapped_not_state_words(records):
    alarm = next(r for r in records if r.task_id == "clock_create_alarm" and swappable_pairs(r))
    pairs = swappable_pairs(alarm)
    assert pairs and all(x == "Vitamins" for x, _ in pairs)  # the label the goal quotes, with other alarms'
    wifi = [r for r in records if r.task_id == "settings_wifi_toggle"]
    # "Turn off Wi-Fi" and a summary reading "Off": a state word, not a name
    assert wifi and not any(swappable_pairs(r) for r in wifi)


def test_a_swapped_record_keeps_its_label_on_the_same_element_which_now_carries_the_other_name(records):
    alarm = next(r for r in records if r.task_id == "clock_create_alarm" and swappable_pairs(r))
    x, y = swappable_pairs(alarm)[0]
    swapped = swap_record(alarm, x, y)
    assert f'"{y}"' in swapped.goal and f'"{x}"' not in swapped.goal
    assert swapped.record_id != alarm.record_id and swapped.task_id == alarm.task_id
    before = [e.text for e in Observation(xml=alarm.xml).elements]
    after = [e.text for e in Observation(xml=swapped.xml).elements]
    assert before.index(x) == after.index(y) and before.index(y) == after.index(x)
    _, cands, correct, positive = expand_record(alarm, sim_apps())
    _, cands2, correct2, positive2 = expand_record(swapped, sim_apps())
    assert positive2 == positive and correct2 == correct
    assert [c.action_type for c in cands2] == [c.action_type for c in cands]


def test_with_name_swaps_appends_distinct_copies_and_zero_copies_changes_nothing(records):
    same, added = with_name_swaps(records, 0)
    assert same == list(records) and added == 0
    out, added = with_name_swaps(records, 2, seed=1)
    assert out[:len(records)] == list(records) and len(out) == len(records) + added
    eligible = sum(min(2, len(swappable_pairs(r))) for r in records)
    assert added == eligible > 0
    assert len({r.record_id for r in out}) == len(out)
    with pytest.raises(ValueError, match="copies"):
        with_name_swaps(records, -1)


def test_a_negative_number_of_swaps_is_refused_by_the_trainer_config(tmp_path):
    cfg = CompactConfig(output_dir=str(tmp_path), train_file=str(tmp_path / "t.jsonl"), name_swaps=-1)
    with pytest.raises(TrainingError, match="name_swaps"):
        cfg.validate()


def test_distractor_apps_are_drawn_per_record_and_never_repeat_a_listed_app():
    from droidverify.env.apps import APPS
    from droidverify.training.augment import DISTRACTOR_APPS, apps_with_distractors

    apps = sim_apps()
    assert not set(DISTRACTOR_APPS) & set(apps)  # no simulator app can be offered as a wrong one
    assert not set(DISTRACTOR_APPS) & {a.name for a in APPS}  # nor an app a real phone offers
    assert apps_with_distractors(apps, "r1", 0) == apps
    lists = [apps_with_distractors(apps, f"r{i}", 12) for i in range(40)]
    assert all(set(apps) <= set(x) and len(x) == len(set(x)) and len(x) <= len(apps) + 12 for x in lists)
    assert len({len(x) for x in lists}) > 3  # how many varies between records
    assert apps_with_distractors(apps, "r7", 12) == lists[7]  # the same record, the same phone


def test_extra_apps_add_only_wrong_open_app_candidates_to_train_records(tmp_path, records):
    from droidverify.training.compact import CompactTrainer, record_example

    for rec in records[:20]:
        plain, more = record_example(rec, sim_apps()), record_example(rec, sim_apps(), extra_apps=12)
        right = {plain.candidate_json[i] for i in plain.correct}
        assert right == {more.candidate_json[i] for i in more.correct}
        added = set(more.candidate_json) - set(plain.candidate_json)
        assert all('"open_app"' in c for c in added) and not added & right
    # the trainer lists them on train records only: held-out ones keep the phone's own apps
    trainer = CompactTrainer(small_config(CompactConfig, tmp_path, records[:20], extra_apps=12, workers=1),
                             encoder=hash_encoder())
    trainer.load_data()

    def n_apps(ex):
        return sum('"open_app"' in c for c in ex.candidate_json)

    assert sum(map(n_apps, trainer.train_examples)) > sum(map(n_apps, trainer.eval_examples))
    assert max(map(n_apps, trainer.eval_examples)) <= len(sim_apps())
    with pytest.raises(TrainingError, match="extra_apps"):
        CompactConfig(output_dir="x", train_file="y", extra_apps=-1).validate()
