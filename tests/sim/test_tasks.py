"""Task templates: oracle solves each, do-nothing fails each, every checker has success + near miss."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from simhelpers import fresh, run_oracle

from droidverify.env.sim.apps.settings import set_brightness_pct
from droidverify.env.sim.phone import Phone
from droidverify.errors import TaskError
from droidverify.tasks import registry
from droidverify.tasks.oracle_utils import answer_matches

TEMPLATES = registry.all_templates()
NAMES = [t.name for t in TEMPLATES]


@pytest.mark.parametrize("name", NAMES)
def test_oracle_solves_template_on_five_seeds(name: str) -> None:
    tmpl = registry.get_template(name)
    for seed in range(5):
        task = tmpl.instantiate(seed)
        env, steps = run_oracle(task, seed)
        assert env.is_successful() == 1.0, (name, seed, env.phone.location)
        assert steps <= tmpl.max_steps


@pytest.mark.parametrize("name", NAMES)
def test_do_nothing_fails(name: str) -> None:
    tmpl = registry.get_template(name)
    for seed in range(3):
        env = fresh(tmpl.instantiate(seed), seed)
        assert env.task is not None
        assert env.task.is_successful(env.phone, None) == 0.0, (name, seed)


def _set(table: str, name: str, value: Any) -> Callable[[Phone, dict], None]:
    return lambda p, _params: p.put_setting(table, name, value)


def _alarm_by_label(p: Phone, label: str) -> int:
    return p.query_one("SELECT _id FROM alarm_templates WHERE label=?", (label,))[0]


def _toggle_cases(setting: tuple[str, str], on: str, off: str, other: tuple[str, str]):
    def good(p: Phone, params: dict) -> None:
        p.put_setting(*setting, on if params["state"] == "on" else off)

    def bad(p: Phone, params: dict) -> None:  # the wrong switch flipped, the right one untouched
        p.put_setting(*other, 1 - int(p.get_setting(*other) or 0))

    return good, bad


def _new_alarm(p: Phone, h: int, m: int, label: str = "", days: int = 0) -> None:
    p.execute("INSERT INTO alarm_templates(hour, minutes, days_of_week, enabled, vibrate, label, ringtone) "
              "VALUES(?,?,?,1,1,?,'x')", (h, m, days, label))


# name -> (make it succeed, make a near miss that must fail, answer for success, near-miss answer)
CASES: dict[str, tuple[Callable, Callable]] = {
    "settings_wifi_toggle": _toggle_cases(("global", "wifi_on"), "1", "0", ("global", "airplane_mode_on")),
    "settings_bluetooth_toggle": _toggle_cases(("global", "bluetooth_on"), "1", "0", ("global", "wifi_on")),
    "settings_airplane_mode_toggle": _toggle_cases(("global", "airplane_mode_on"), "1", "0", ("global", "wifi_on")),
    "settings_dark_theme_toggle": _toggle_cases(("secure", "ui_night_mode"), "2", "1",
                                                ("system", "screen_brightness_mode")),
    "settings_adaptive_brightness_toggle": _toggle_cases(("system", "screen_brightness_mode"), "1", "0",
                                                         ("system", "accelerometer_rotation")),
    "settings_auto_rotate_toggle": _toggle_cases(("system", "accelerometer_rotation"), "1", "0",
                                                 ("system", "screen_brightness_mode")),
    "settings_auto_time_toggle": _toggle_cases(("global", "auto_time"), "1", "0", ("global", "auto_time_zone")),
    "settings_24h_format_toggle": _toggle_cases(("system", "time_12_24"), "24", "12", ("global", "auto_time")),
    "settings_wifi_and_bluetooth_off": (
        lambda p, _: (p.put_setting("global", "wifi_on", 0), p.put_setting("global", "bluetooth_on", 0)),
        lambda p, _: p.put_setting("global", "wifi_on", 0)),
    "settings_brightness_level": (lambda p, pr: set_brightness_pct(p, pr["level"]),
                                  lambda p, pr: set_brightness_pct(p, pr["level"] + (10 if pr["level"] < 100 else -10))),
    "settings_media_volume": (_set("system", "volume_music", None), None),
    "settings_alarm_volume": (_set("system", "volume_alarm", None), None),
    "settings_ring_volume": (_set("system", "volume_ring", None), None),
    "settings_screen_timeout": (lambda p, pr: p.put_setting("system", "screen_off_timeout", pr["ms"]),
                                lambda p, pr: p.put_setting("system", "screen_off_timeout", pr["ms"] + 1000)),
    "settings_device_name": (lambda p, pr: p.put_setting("global", "device_name", pr["new_name"]),
                             lambda p, pr: p.put_setting("global", "device_name", pr["new_name"] + " 2")),
    "clock_create_alarm": (
        lambda p, pr: _new_alarm(p, pr["hour"], pr["minute"], pr["label"]),
        lambda p, pr: _new_alarm(p, (pr["hour"] + 12) % 24, pr["minute"], pr["label"])),  # AM/PM mixed up
    "clock_create_repeating_alarm": (
        lambda p, pr: _new_alarm(p, pr["hour"], pr["minute"], days=pr["days"]),
        lambda p, pr: _new_alarm(p, pr["hour"], pr["minute"], days=pr["days"] ^ 0b1000000)),  # wrong day set
    "clock_delete_alarm": (
        lambda p, pr: p.execute("DELETE FROM alarm_templates WHERE label=?", (pr["label"],)),
        lambda p, pr: p.execute("DELETE FROM alarm_templates WHERE label IN (?, ?)",
                                (pr["label"], pr["decoy_label"]))),  # deleted the other one too
    "clock_turn_off_alarm": (
        lambda p, pr: p.execute("UPDATE alarm_templates SET enabled=0 WHERE label=?", (pr["label"],)),
        lambda p, pr: p.execute("UPDATE alarm_templates SET enabled=0 WHERE label=?", (pr["decoy_label"],))),
    "clock_turn_on_alarm": (
        lambda p, pr: p.execute("UPDATE alarm_templates SET enabled=1 WHERE label=?", (pr["label"],)),
        lambda p, pr: p.execute("UPDATE alarm_templates SET enabled=1 WHERE label IN (?, ?)",
                                (pr["label"], pr["decoy_label"]))),
    "clock_change_alarm_time": (
        lambda p, pr: p.execute("UPDATE alarm_templates SET hour=?, minutes=? WHERE label=?",
                                (pr["new_hour"], pr["new_minute"], pr["label"])),
        lambda p, pr: p.execute("UPDATE alarm_templates SET hour=?, minutes=? WHERE label=?",
                                (pr["new_hour"], (pr["new_minute"] + 1) % 60, pr["label"]))),
    "clock_alarm_repeat_days": (
        lambda p, pr: p.execute("UPDATE alarm_templates SET days_of_week=? WHERE label=?", (pr["days"], pr["label"])),
        lambda p, pr: p.execute("UPDATE alarm_templates SET days_of_week=? WHERE label=?",
                                (pr["days"] ^ 1, pr["label"]))),
    "clock_start_timer": (
        lambda p, pr: p.execute("INSERT INTO timers(length_s, remaining_s, state, end_time, label) "
                                "VALUES(?, ?, 'running', '2030-01-01T00:00:00', '')", (pr["seconds"],) * 2),
        lambda p, pr: p.execute("INSERT INTO timers(length_s, remaining_s, state, end_time, label) "
                                "VALUES(?, ?, 'paused', NULL, '')", (pr["seconds"],) * 2)),  # set, not started
    "clock_start_stopwatch": (
        lambda p, _: p.execute("UPDATE stopwatch SET state='running', started_at='2024-10-15T09:41:00'"),
        lambda p, _: p.execute("UPDATE stopwatch SET state='paused', accumulated_s=3")),
    "clock_add_world_city": (
        lambda p, pr: p.execute("INSERT INTO world_cities(city, utc_offset, country) VALUES(?, 0, 'x')",
                                (pr["city"],)),
        lambda p, pr: p.execute("INSERT INTO world_cities(city, utc_offset, country) VALUES(?, 0, 'x')",
                                (pr["city"] + "shire",))),
}


def _volume_cases(name: str) -> tuple[Callable, Callable]:
    setting = {"settings_media_volume": "volume_music", "settings_alarm_volume": "volume_alarm",
               "settings_ring_volume": "volume_ring"}[name]
    return (lambda p, pr: p.put_setting("system", setting, pr["level"]),
            lambda p, pr: p.put_setting("system", setting, pr["level"] + (1 if pr["level"] < pr["maximum"] else -1)))


QUERY_NEAR_MISS = {
    "settings_query_android_version": lambda exp: str(int(exp) - 1),
    "settings_query_model": lambda exp: exp + "a" if not exp.endswith("a") else exp[:-1],
    "settings_query_build_number": lambda exp: exp[:-1] + ("1" if exp[-1] != "1" else "2"),
    "settings_query_security_patch": lambda exp: exp.replace("5", "6", 1),
    "settings_query_wifi_network": lambda exp: exp + "-2",
}


@pytest.mark.parametrize("name", sorted(set(CASES) | set(QUERY_NEAR_MISS) | {"clock_query_alarm_time"}))
def test_checker_success_and_near_miss(name: str) -> None:
    tmpl = registry.get_template(name)
    for seed in range(3):
        task = tmpl.instantiate(seed)
        if name in QUERY_NEAR_MISS:
            env = fresh(task, seed)
            expected = tmpl.expected(env.phone)  # type: ignore[attr-defined]
            assert task.is_successful(env.phone, expected) == 1.0
            assert task.is_successful(env.phone, f"It is {expected}.") == 1.0
            assert task.is_successful(env.phone, QUERY_NEAR_MISS[name](expected)) == 0.0
            assert task.is_successful(env.phone, None) == 0.0
            continue
        if name == "clock_query_alarm_time":
            env = fresh(task, seed)
            h, m = task.params["hour"], task.params["minute"]
            assert task.is_successful(env.phone, f"{h % 12 or 12}:{m:02d} {'PM' if h >= 12 else 'AM'}") == 1.0
            assert task.is_successful(env.phone, f"It's set for {h:02d}:{m:02d}") == 1.0
            wrong = f"{h % 12 or 12}:{m:02d} {'AM' if h >= 12 else 'PM'}"  # right digits, wrong half of day
            assert task.is_successful(env.phone, wrong) == 0.0
            continue
        good, bad = CASES[name]
        if bad is None:
            good, bad = _volume_cases(name)
        ok_env, miss_env = fresh(task, seed), fresh(task, seed)
        good(ok_env.phone, task.params)
        assert task.is_successful(ok_env.phone, None) == 1.0, (name, seed)
        bad(miss_env.phone, task.params)
        assert task.is_successful(miss_env.phone, None) == 0.0, (name, seed)


def test_create_alarm_duplicate_is_a_failure() -> None:
    task = registry.get_template("clock_create_alarm").instantiate(4)
    env = fresh(task, 4)
    for _ in range(2):
        _new_alarm(env.phone, task.params["hour"], task.params["minute"], task.params["label"])
    assert task.is_successful(env.phone, None) == 0.0


def test_answer_matching_rules() -> None:
    assert answer_matches("Android 14", "14")
    assert not answer_matches("13", "14")
    assert not answer_matches("Pixel 7a", "Pixel 7")
    assert answer_matches("the model is a pixel 7.", "Pixel 7")
    assert not answer_matches("", "Pixel 7")


def test_registry_lookup_and_splits() -> None:
    assert len([n for n in NAMES if n.startswith(("settings_", "clock_"))]) >= 25
    with pytest.raises(TaskError, match="did you mean settings_wifi_toggle"):
        registry.get_template("settings_wifi_togle")
    splits = {s: {t.name for t in registry.templates_for_split(s)} for s in registry.SPLITS}
    assert set().union(*splits.values()) == set(NAMES)
    assert sum(len(v) for v in splits.values()) == len(NAMES)  # disjoint
    assert all(splits.values()), "every split should have templates"
    assert registry.split_of("settings_wifi_toggle") == registry.split_of("settings_wifi_toggle")
    tasks = registry.tasks_for("train", [0, 1], params="seen")
    assert len(tasks) == 2 * len(splits["train"])
    with pytest.raises(TaskError, match="unseen"):
        registry.tasks_for("train", [3], params="unseen")
    with pytest.raises(TaskError, match="unknown split"):
        registry.templates_for_split("dev")


def test_params_are_deterministic_and_seed_dependent() -> None:
    tmpl = registry.get_template("clock_create_alarm")
    assert tmpl.instantiate(7).params == tmpl.instantiate(7).params
    assert len({str(tmpl.instantiate(s).params) for s in range(10)}) > 3
