"""Clock tasks added beside the ones in test_tasks.py CASES: checker success + near misses, oracle detours."""

from __future__ import annotations

from datetime import timedelta

import pytest
from simhelpers import fresh, run_oracle

from droidverify.env.sim import SimEnv
from droidverify.env.sim.apps.clock import HOME_OFFSET
from droidverify.tasks import registry
from droidverify.tasks.clock import CITY_INFO, read_time

CLOCK = sorted(t.name for t in registry.all_templates() if t.name.startswith("clock_"))


def test_enough_templates() -> None:
    assert len(CLOCK) >= 20


def _fresh(name: str, seed: int = 0):
    task = registry.get_template(name).instantiate(seed)
    return task, fresh(task, seed)


def _solved(name: str, seed: int = 1):
    task = registry.get_template(name).instantiate(seed)
    env, _ = run_oracle(task, seed)
    assert task.is_successful(env.phone) == 1.0
    return task, env


def _set(env: SimEnv, sql: str, *args) -> None:
    env.phone.execute(sql, args)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_label_alarm_near_misses(seed: int) -> None:
    task, env = _fresh("clock_label_alarm", seed)
    p = task.params
    snap = env.phone.snapshot()
    _set(env, "UPDATE alarm_templates SET label=? WHERE hour=? AND minutes=?", p["label"], p["decoy_hour"],
         p["decoy_minute"])
    assert task.is_successful(env.phone) == 0.0  # same digits, other half of the day
    _set(env, "UPDATE alarm_templates SET label=? WHERE hour=? AND minutes=?", p["label"], p["hour"], p["minute"])
    assert task.is_successful(env.phone) == 0.0  # both labelled
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET label=? WHERE hour=? AND minutes=?", p["label"] + "s", p["hour"], p["minute"])
    assert task.is_successful(env.phone) == 0.0  # a typo in the label
    _set(env, "UPDATE alarm_templates SET label=? WHERE hour=? AND minutes=?", p["label"], p["hour"], p["minute"])
    assert task.is_successful(env.phone) == 1.0


def test_vibration_near_misses() -> None:
    task, env = _fresh("clock_turn_off_alarm_vibration")
    p = task.params
    snap = env.phone.snapshot()
    _set(env, "UPDATE alarm_templates SET vibrate=0 WHERE label=?", p["decoy_label"])
    assert task.is_successful(env.phone) == 0.0  # the other alarm silenced
    _set(env, "UPDATE alarm_templates SET vibrate=0 WHERE label=?", p["label"])
    assert task.is_successful(env.phone) == 0.0  # both silenced
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET vibrate=0, enabled=0 WHERE label=?", p["label"])
    assert task.is_successful(env.phone) == 0.0  # switched off altogether
    _set(env, "UPDATE alarm_templates SET enabled=1 WHERE label=?", p["label"])
    assert task.is_successful(env.phone) == 1.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_delete_disabled_near_misses(seed: int) -> None:
    task, env = _fresh("clock_delete_disabled_alarms", seed)
    off = env.phone.query("SELECT _id FROM alarm_templates WHERE enabled=0 ORDER BY _id")
    assert 2 <= len(off) <= 4
    snap = env.phone.snapshot()
    _set(env, "UPDATE alarm_templates SET enabled=1 WHERE enabled=0")
    assert task.is_successful(env.phone) == 0.0  # switched on instead of deleted
    env.phone.restore(snap)
    _set(env, "DELETE FROM alarm_templates WHERE _id=?", off[0]["_id"])
    assert task.is_successful(env.phone) == 0.0  # only some deleted
    _set(env, "DELETE FROM alarm_templates WHERE enabled=0")
    assert task.is_successful(env.phone) == 1.0
    _set(env, "DELETE FROM alarm_templates WHERE _id=(SELECT MIN(_id) FROM alarm_templates)")
    assert task.is_successful(env.phone) == 0.0  # an active alarm went too


def test_detailed_alarm_near_misses() -> None:
    task, env = _solved("clock_create_detailed_alarm")
    p = task.params
    snap = env.phone.snapshot()
    _set(env, "UPDATE alarm_templates SET vibrate=1 WHERE label=?", p["label"])
    assert task.is_successful(env.phone) == 0.0  # still vibrates
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET days_of_week=? WHERE label=?", p["days"] ^ 0b1000000, p["label"])
    assert task.is_successful(env.phone) == 0.0  # wrong days
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET hour=? WHERE label=?", (p["hour"] + 12) % 24, p["label"])
    assert task.is_successful(env.phone) == 0.0  # AM/PM mixed up


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_enabled_count_query(seed: int) -> None:
    task, env = _fresh("clock_query_enabled_alarm_count", seed)
    on = len(env.phone.query("SELECT 1 FROM alarm_templates WHERE enabled=1"))
    total = len(env.phone.query("SELECT 1 FROM alarm_templates"))
    assert 0 < on < total
    assert task.is_successful(env.phone, str(on)) == 1.0
    assert task.is_successful(env.phone, f"You have {on} alarms on.") == 1.0
    assert task.is_successful(env.phone, str(total)) == 0.0  # counted every alarm
    assert task.is_successful(env.phone, f"{on} of {total}") == 0.0  # two numbers: no guessing
    assert task.is_successful(env.phone, None) == 0.0


def test_remove_city_near_misses() -> None:
    task, env = _fresh("clock_remove_world_city")
    p = task.params
    snap = env.phone.snapshot()
    _set(env, "DELETE FROM world_cities WHERE city=?", p["decoy_city"])
    assert task.is_successful(env.phone) == 0.0  # the other city of that country removed
    _set(env, "DELETE FROM world_cities WHERE city=?", p["city"])
    assert task.is_successful(env.phone) == 0.0  # both removed
    env.phone.restore(snap)
    _set(env, "DELETE FROM world_cities WHERE city=?", p["city"])
    assert task.is_successful(env.phone) == 1.0


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_city_time_query(seed: int) -> None:
    task, env = _fresh("clock_query_city_time", seed)
    now = env.phone.now
    t = now + timedelta(hours=CITY_INFO[task.params["city"]][0] - HOME_OFFSET)
    h12 = f"{t.hour % 12 or 12}:{t.minute:02d}"
    assert task.is_successful(env.phone, f"It's {h12} {'PM' if t.hour >= 12 else 'AM'} there.") == 1.0
    assert task.is_successful(env.phone, f"{t.hour:02d}:{t.minute:02d}") == 1.0
    wrong_half = f"{h12} {'AM' if t.hour >= 12 else 'PM'}"
    assert task.is_successful(env.phone, wrong_half) == 0.0
    home = f"{now.hour % 12 or 12}:{now.minute:02d} {'PM' if now.hour >= 12 else 'AM'}"
    assert task.is_successful(env.phone, home) == 0.0  # the phone's own time
    assert task.is_successful(env.phone, None) == 0.0


def test_read_time_rules() -> None:
    assert read_time("7:05 pm", 19) == (19, 5)
    assert read_time("19:05", 19) == (19, 5)
    assert read_time("7:05", 19) is None  # ambiguous for an evening time
    assert read_time("12:30 AM", 0) == (0, 30)
    assert read_time("no time here", 9) is None


def test_pause_timer_near_misses() -> None:
    task, env = _fresh("clock_pause_timer")
    p = task.params
    snap = env.phone.snapshot()
    _set(env, "UPDATE timers SET state='paused' WHERE length_s=?", p["other_seconds"])
    assert task.is_successful(env.phone) == 0.0  # the other timer paused
    _set(env, "UPDATE timers SET state='paused' WHERE length_s=?", p["seconds"])
    assert task.is_successful(env.phone) == 0.0  # both paused
    env.phone.restore(snap)
    _set(env, "DELETE FROM timers WHERE length_s=?", p["seconds"])
    assert task.is_successful(env.phone) == 0.0  # deleted rather than paused
    env.phone.restore(snap)
    _set(env, "UPDATE timers SET state='paused' WHERE length_s=?", p["seconds"])
    assert task.is_successful(env.phone) == 1.0


def test_pause_timer_oracle_resumes_a_wrongly_paused_timer() -> None:
    task, env = _fresh("clock_pause_timer", 3)
    _set(env, "UPDATE timers SET state='paused', end_time=NULL WHERE length_s=?", task.params["other_seconds"])
    obs = env.observe()
    for _ in range(task.max_steps):
        action = task.oracle_action(env.phone, obs)
        if action.action_type == "status":
            break
        obs = env.step(action)
    assert task.is_successful(env.phone) == 1.0


def test_stopwatch_laps_near_misses() -> None:
    task, env = _solved("clock_record_stopwatch_laps")
    snap = env.phone.snapshot()
    _set(env, "UPDATE stopwatch SET state='paused', started_at=NULL")
    assert task.is_successful(env.phone) == 0.0  # stopped after the laps
    env.phone.restore(snap)
    _set(env, "INSERT INTO laps(lap_s, total_s) VALUES(1, 1)")
    assert task.is_successful(env.phone) == 0.0  # one lap too many


def test_laps_oracle_recovers_from_too_many_laps() -> None:
    task, env = _fresh("clock_record_stopwatch_laps", 2)
    _set(env, "UPDATE stopwatch SET state='running', started_at=?", env.phone.now.isoformat())
    for _ in range(task.params["laps"] + 2):
        _set(env, "INSERT INTO laps(lap_s, total_s) VALUES(0, 0)")
    obs = env.observe()
    for _ in range(task.max_steps):
        action = task.oracle_action(env.phone, obs)
        if action.action_type == "status":
            break
        obs = env.step(action)
    assert task.is_successful(env.phone) == 1.0
