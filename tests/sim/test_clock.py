"""Clock tasks added beside the ones in test_tasks.py CASES: checker success + near misses, oracle detours."""

from __future__ import annotations

from datetime import timedelta

import pytest
from simhelpers import act, fresh, run_oracle

from droidverify.env.sim import SimEnv
from droidverify.env.sim.apps.clock import HOME_OFFSET
from droidverify.tasks import registry
from droidverify.tasks.clock import CITY_INFO, read_time
from droidverify.tasks.helpers.clock import say_time

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


# ---- templates added 2026-11-28 --------------------------------------------------------------------
def _timer_ids(env: SimEnv) -> dict[int, int]:
    return {r["length_s"]: r["_id"] for r in env.phone.query("SELECT _id, length_s FROM timers")}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_extend_timer_near_misses(seed: int) -> None:
    task, env = _fresh("clock_extend_running_timer", seed)
    p = task.params
    ids = _timer_ids(env)
    tid, oid, extra = ids[p["seconds"]], ids[p["other_seconds"]], 60 * p["extra"]
    snap = env.phone.snapshot()
    _set(env, "UPDATE timers SET length_s=length_s+? WHERE _id=?", extra, oid)
    assert task.is_successful(env.phone) == 0.0  # the other timer extended
    env.phone.restore(snap)
    _set(env, "UPDATE timers SET length_s=length_s+? WHERE _id=?", extra - 60, tid)
    assert task.is_successful(env.phone) == 0.0  # one minute short
    _set(env, "UPDATE timers SET length_s=length_s+120 WHERE _id=?", tid)
    assert task.is_successful(env.phone) == 0.0  # one minute too many
    env.phone.restore(snap)
    _set(env, "UPDATE timers SET length_s=length_s+?, state='paused' WHERE _id=?", extra, tid)
    assert task.is_successful(env.phone) == 0.0  # extended but left paused
    _set(env, "UPDATE timers SET state='running' WHERE _id=?", tid)
    assert task.is_successful(env.phone) == 1.0
    _set(env, "INSERT INTO timers(length_s, remaining_s, state, end_time, label) VALUES(?, ?, 'running', NULL, '')",
         extra, extra)
    assert task.is_successful(env.phone) == 0.0  # a new timer started instead of / besides extending


def test_extend_timer_oracle_restarts_a_paused_timer() -> None:
    task, env = _fresh("clock_extend_running_timer", 4)
    _set(env, "UPDATE timers SET state='paused', end_time=NULL WHERE length_s=?", task.params["other_seconds"])
    obs = env.observe()
    for _ in range(task.max_steps):
        action = task.oracle_action(env.phone, obs)
        if action.action_type == "status":
            break
        obs = env.step(action)
    assert task.is_successful(env.phone) == 1.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_delete_finished_timer_near_misses(seed: int) -> None:
    task, env = _fresh("clock_delete_finished_timer", seed)
    p = task.params
    assert env.phone.query_one("SELECT state FROM timers WHERE length_s=?", (p["expired"],))[0] == "expired"
    snap = env.phone.snapshot()
    _set(env, "DELETE FROM timers WHERE length_s=?", p["paused"])
    assert task.is_successful(env.phone) == 0.0  # the paused timer deleted
    env.phone.restore(snap)
    _set(env, "DELETE FROM timers")
    assert task.is_successful(env.phone) == 0.0  # every timer deleted
    env.phone.restore(snap)
    _set(env, "DELETE FROM timers WHERE length_s=?", p["expired"])
    _set(env, "UPDATE timers SET state='paused' WHERE length_s=?", p["running"])
    assert task.is_successful(env.phone) == 0.0  # the running one paused on the way
    _set(env, "UPDATE timers SET state='running' WHERE length_s=?", p["running"])
    assert task.is_successful(env.phone) == 1.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_paused_timer_left_query(seed: int) -> None:
    task, env = _fresh("clock_query_paused_timer_left", seed)
    p = task.params
    m, s = divmod(p["left"], 60)
    assert task.is_successful(env.phone, f"{m}:{s:02d}") == 1.0
    assert task.is_successful(env.phone, f"About {m} minutes and {s} seconds left.") == 1.0
    assert task.is_successful(env.phone, f"{m}:{(s + 1) % 60:02d}") == 0.0  # off by a second
    om, osec = divmod(p["other_left"], 60)
    assert task.is_successful(env.phone, f"{om}:{osec:02d}") == 0.0  # the other timer's time
    assert task.is_successful(env.phone, f"{p['seconds'] // 60}:00") == 0.0  # its full length
    assert task.is_successful(env.phone, None) == 0.0


def test_reset_stopwatch_near_misses() -> None:
    task, env = _fresh("clock_reset_stopwatch", 1)
    snap = env.phone.snapshot()
    _set(env, "UPDATE stopwatch SET state='paused', accumulated_s=42, started_at=NULL")
    assert task.is_successful(env.phone) == 0.0  # stopped, not reset
    env.phone.restore(snap)
    _set(env, "DELETE FROM laps")
    assert task.is_successful(env.phone) == 0.0  # laps cleared but still running
    _set(env, "UPDATE stopwatch SET state='reset', accumulated_s=0, started_at=NULL")
    assert task.is_successful(env.phone) == 1.0
    _set(env, "INSERT INTO laps(lap_s, total_s) VALUES(1, 1)")
    assert task.is_successful(env.phone) == 0.0  # a lap left behind


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_fastest_lap_query(seed: int) -> None:
    task, env = _fresh("clock_query_fastest_lap", seed)
    p = task.params
    n = p["fastest"]
    laps = env.phone.query("SELECT lap_s FROM laps ORDER BY _id")
    assert len(laps) == p["laps"] and min(range(len(laps)), key=lambda i: laps[i][0]) == n - 1
    assert task.is_successful(env.phone, str(n)) == 1.0
    assert task.is_successful(env.phone, f"Lap {n} was the fastest.") == 1.0
    slowest = max(range(len(laps)), key=lambda i: laps[i][0]) + 1
    assert task.is_successful(env.phone, f"Lap {slowest}") == 0.0
    assert task.is_successful(env.phone, f"{laps[n - 1][0]:.2f}") == 0.0  # the time, not the lap number
    if 2 * n != p["laps"] + 1:  # counted from the top of the list (newest first)
        assert task.is_successful(env.phone, f"Lap {p['laps'] + 1 - n}") == 0.0
    assert task.is_successful(env.phone, None) == 0.0


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_next_alarm_query(seed: int) -> None:
    task, env = _fresh("clock_query_next_alarm", seed)
    p = task.params
    target = env.phone.query_one("SELECT hour, minutes FROM alarm_templates WHERE label=?", (p["labels"][0],))
    off = env.phone.query_one("SELECT hour, minutes, enabled FROM alarm_templates WHERE label=?", (p["labels"][1],))
    assert off["enabled"] == 0
    h, m = target
    assert task.is_successful(env.phone, f"{h % 12 or 12}:{m:02d} {'PM' if h >= 12 else 'AM'}") == 1.0
    assert task.is_successful(env.phone, f"{h:02d}:{m:02d}") == 1.0
    oh, om = off["hour"], off["minutes"]
    assert task.is_successful(env.phone, f"{oh % 12 or 12}:{om:02d} {'PM' if oh >= 12 else 'AM'}") == 0.0  # off
    other = env.phone.query_one("SELECT hour, minutes FROM alarm_templates WHERE label=?", (p["labels"][2],))
    assert task.is_successful(env.phone, f"{other[0]:02d}:{other[1]:02d}") == 0.0  # repeats on other days
    assert task.is_successful(env.phone, None) == 0.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_weekday_alarms_off_near_misses(seed: int) -> None:
    task, env = _fresh("clock_switch_off_weekday_alarms", seed)
    p = task.params
    snap = env.phone.snapshot()
    _set(env, "UPDATE alarm_templates SET enabled=0 WHERE days_of_week=31")
    assert task.is_successful(env.phone) == 1.0
    _set(env, "UPDATE alarm_templates SET enabled=0 WHERE label=?", p["labels"][3])
    assert task.is_successful(env.phone) == 0.0  # a Mon/Wed/Fri-like alarm switched off too
    env.phone.restore(snap)
    _set(env, "DELETE FROM alarm_templates WHERE days_of_week=31")
    assert task.is_successful(env.phone) == 0.0  # deleted instead of switched off
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET enabled=0 WHERE label=?", p["labels"][0])
    assert task.is_successful(env.phone) == 0.0  # only one of them
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET enabled=0")
    assert task.is_successful(env.phone) == 0.0  # every alarm off


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_copy_alarm_near_misses(seed: int) -> None:
    task, env = _fresh("clock_copy_alarm_settings", seed)
    p = task.params
    snap = env.phone.snapshot()

    def add(h: int, m: int, days: int, label: str) -> None:
        _set(env, "INSERT INTO alarm_templates(hour, minutes, days_of_week, enabled, vibrate, label, ringtone) "
                  "VALUES(?,?,?,1,1,?,'Bright Morning')", h, m, days, label)

    add(p["new_hour"], p["new_minute"], p["days"], p["label"])
    assert task.is_successful(env.phone) == 1.0
    env.phone.restore(snap)
    add(p["new_hour"], p["new_minute"], p["decoy_days"], p["decoy_label"])
    assert task.is_successful(env.phone) == 0.0  # copied the other half of the day's alarm
    env.phone.restore(snap)
    add(p["new_hour"], p["new_minute"], p["days"], "")
    assert task.is_successful(env.phone) == 0.0  # label missing
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET hour=?, minutes=? WHERE label=?", p["new_hour"], p["new_minute"], p["label"])
    assert task.is_successful(env.phone) == 0.0  # moved the original instead of copying it
    env.phone.restore(snap)
    add(p["new_hour"], p["new_minute"], p["days"], p["label"])
    add(p["new_hour"], p["new_minute"], p["days"], p["label"])
    assert task.is_successful(env.phone) == 0.0  # two copies


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_alarm_without_vibration_query(seed: int) -> None:
    task, env = _fresh("clock_query_alarm_without_vibration", seed)
    p = task.params
    quiet = env.phone.query("SELECT label FROM alarm_templates WHERE vibrate=0")
    assert [r[0] for r in quiet] == [p["labels"][0]]
    assert task.is_successful(env.phone, p["labels"][0]) == 1.0
    assert task.is_successful(env.phone, f"The \"{p['labels'][0].lower()}\" alarm.") == 1.0
    assert task.is_successful(env.phone, p["labels"][1]) == 0.0
    assert task.is_successful(env.phone, f"{p['labels'][0]} or {p['labels'][2]}") == 0.0  # hedging
    assert task.is_successful(env.phone, None) == 0.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_alarm_for_city_time_near_misses(seed: int) -> None:
    task, env = _solved("clock_alarm_for_city_time", seed)
    p = task.params
    assert env.phone.query("SELECT 1 FROM world_cities WHERE city=?", (p["city"],))
    snap = env.phone.snapshot()
    _set(env, "UPDATE alarm_templates SET hour=(hour + 1) % 24 WHERE label=?", p["label"])
    assert task.is_successful(env.phone) == 0.0  # the city in the nearest other zone (daylight saving slip)
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET label='' WHERE label=?", p["label"])
    assert task.is_successful(env.phone) == 0.0  # no label
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET enabled=1-enabled WHERE _id=(SELECT MIN(_id) FROM alarm_templates)")
    assert task.is_successful(env.phone) == 0.0  # another alarm touched
    env.phone.restore(snap)
    ch = read_time(p["city_time"], 0 if p["city_time"].endswith("AM") else 12)
    _set(env, "UPDATE alarm_templates SET hour=?, minutes=? WHERE label=?", *ch, p["label"])
    assert (ch[0], ch[1]) == (p["hour"], p["minute"]) or task.is_successful(env.phone) == 0.0  # city's own time


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_replace_city_near_misses(seed: int) -> None:
    task, env = _fresh("clock_replace_world_city", seed)
    p = task.params
    snap = env.phone.snapshot()

    def add(city: str) -> None:
        off, country = CITY_INFO[city]
        _set(env, "INSERT INTO world_cities(city, utc_offset, country) VALUES(?,?,?)", city, off, country)

    add(p["new_city"])
    assert task.is_successful(env.phone) == 0.0  # added but the old one kept
    _set(env, "DELETE FROM world_cities WHERE city=?", p["old_city"])
    assert task.is_successful(env.phone) == 1.0
    kept = env.phone.query("SELECT city FROM world_cities WHERE city<>?", (p["new_city"],))
    if kept:
        _set(env, "DELETE FROM world_cities WHERE city=?", kept[0][0])
        assert task.is_successful(env.phone) == 0.0  # another city removed too
    env.phone.restore(snap)
    _set(env, "DELETE FROM world_cities WHERE city=?", p["old_city"])
    assert task.is_successful(env.phone) == 0.0  # removed without adding


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_farthest_city_query(seed: int) -> None:
    task, env = _fresh("clock_query_farthest_city", seed)
    p = task.params
    assert sorted(r[0] for r in env.phone.query("SELECT city FROM world_cities")) == p["cities"]
    far = p["farthest"]
    gap = abs(CITY_INFO[far][0] - HOME_OFFSET)
    assert all(abs(CITY_INFO[c][0] - HOME_OFFSET) < gap for c in p["cities"] if c != far)
    assert task.is_successful(env.phone, far) == 1.0
    assert task.is_successful(env.phone, f"{far.lower()}, {gap:g} hours away") == 1.0
    others = [c for c in p["cities"] if c != far]
    assert task.is_successful(env.phone, others[0]) == 0.0
    assert task.is_successful(env.phone, ", ".join(p["cities"])) == 0.0  # listing every city
    assert task.is_successful(env.phone, None) == 0.0


# ---- round 2: twelve more kinds of Clock task ---------------------------------------------------------
def _add_city_row(env: SimEnv, city: str) -> None:
    off, country = CITY_INFO[city]
    _set(env, "INSERT OR IGNORE INTO world_cities(city, utc_offset, country) VALUES(?,?,?)", city, off, country)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_add_country_cities_near_misses(seed: int) -> None:
    task, env = _fresh("clock_add_country_cities", seed)
    p = task.params
    snap = env.phone.snapshot()
    missing = [c for c in p["cities"] if c != p["present"]]
    for c in missing[:-1]:
        _add_city_row(env, c)
    assert task.is_successful(env.phone) == 0.0  # one city missing
    _add_city_row(env, missing[-1])
    assert task.is_successful(env.phone) == 1.0
    have = {r[0] for r in env.phone.query("SELECT city FROM world_cities")}
    _add_city_row(env, next(c for c in sorted(CITY_INFO) if c not in have))
    assert task.is_successful(env.phone) == 0.0  # a city of another country added too
    env.phone.restore(snap)
    for c in p["cities"]:
        _add_city_row(env, c)
    others = [r[0] for r in env.phone.query("SELECT city FROM world_cities") if r[0] not in p["cities"]]
    if others:
        _set(env, "DELETE FROM world_cities WHERE city=?", others[0])
        assert task.is_successful(env.phone) == 0.0  # an existing city removed


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_hours_between_cities_query(seed: int) -> None:
    task, env = _fresh("clock_query_hours_between_cities", seed)
    p = task.params
    n = p["hours"]
    assert CITY_INFO[p["ahead"]][0] - CITY_INFO[p["behind"]][0] == n > 0
    assert task.is_successful(env.phone, str(n)) == 1.0
    assert task.is_successful(env.phone, f"{p['ahead']} is {n} hours ahead") == 1.0
    assert task.is_successful(env.phone, f"{n + 1} hours") == 0.0
    own = abs(CITY_INFO[p["ahead"]][0] - HOME_OFFSET)
    assert own == n or task.is_successful(env.phone, f"{own:g}") == 0.0  # its gap from my own time
    assert task.is_successful(env.phone, f"{n} or {n + 1}") == 0.0  # hedging
    assert task.is_successful(env.phone, None) == 0.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_remove_duplicate_alarm_near_misses(seed: int) -> None:
    task, env = _fresh("clock_remove_duplicate_alarm", seed)
    p = task.params
    ids = [r[0] for r in env.phone.query("SELECT _id FROM alarm_templates WHERE label=? ORDER BY _id",
                                         (p["label"],))]
    assert len(ids) == 2
    snap = env.phone.snapshot()
    for aid in ids:  # either copy may go
        _set(env, "DELETE FROM alarm_templates WHERE _id=?", aid)
        assert task.is_successful(env.phone) == 1.0
        env.phone.restore(snap)
    _set(env, "DELETE FROM alarm_templates WHERE label=?", p["label"])
    assert task.is_successful(env.phone) == 0.0  # both copies gone
    env.phone.restore(snap)
    _set(env, "DELETE FROM alarm_templates WHERE label=?", p["decoy_label"])
    assert task.is_successful(env.phone) == 0.0  # the other alarm deleted
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET enabled=0 WHERE _id=?", ids[1])
    assert task.is_successful(env.phone) == 0.0  # switched off instead of deleted


def test_no_indistinguishable_alarm_targets() -> None:
    # Alarms alike on screen (time and label) would leave a goal naming one of them unanswerable; only the
    # duplicate-removal task starts with such twins, and its checker accepts deleting either (above).
    names = sorted(t.name for t in registry.all_templates() if "Clock" in t.apps)
    for name in names:
        for seed in range(51):
            task, env = _fresh(name, seed)
            rows = env.phone.query("SELECT hour, minutes, lower(trim(label)) FROM alarm_templates")
            keys = [tuple(r) for r in rows]
            twins = {k for k in keys if keys.count(k) > 1}
            if name == "clock_remove_duplicate_alarm":
                assert twins == {(task.params["hour"], task.params["minute"], task.params["label"].lower())}
            else:
                assert not twins, (name, seed, twins)
            env.close()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_add_second_timer_near_misses(seed: int) -> None:
    task, env = _solved("clock_add_second_timer", seed)
    p = task.params
    snap = env.phone.snapshot()
    _set(env, "UPDATE timers SET state='paused', end_time=NULL WHERE length_s=?", p["seconds"])
    assert task.is_successful(env.phone) == 0.0  # the first timer paused
    env.phone.restore(snap)
    _set(env, "UPDATE timers SET length_s=length_s+60 WHERE length_s=?", p["new_seconds"])
    assert task.is_successful(env.phone) == 0.0  # wrong length
    env.phone.restore(snap)
    _set(env, "UPDATE timers SET state='paused' WHERE length_s=?", p["new_seconds"])
    assert task.is_successful(env.phone) == 0.0  # not started
    env.phone.restore(snap)
    _set(env, "DELETE FROM timers WHERE length_s=?", p["seconds"])
    assert task.is_successful(env.phone) == 0.0  # replaced the first timer


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_finish_stopwatch_run_near_misses(seed: int) -> None:
    task, env = _solved("clock_finish_stopwatch_run", seed)
    p = task.params
    assert env.phone.query_one("SELECT COUNT(*) FROM laps")[0] == p["laps"] + 1
    snap = env.phone.snapshot()
    _set(env, "UPDATE stopwatch SET state='running', started_at=? WHERE _id=1", env.phone.now.isoformat())
    assert task.is_successful(env.phone) == 0.0  # still running
    env.phone.restore(snap)
    _set(env, "DELETE FROM laps WHERE _id=(SELECT MAX(_id) FROM laps)")
    assert task.is_successful(env.phone) == 0.0  # stopped without the last lap
    env.phone.restore(snap)
    _set(env, "INSERT INTO laps(lap_s, total_s) VALUES(1, 1)")
    assert task.is_successful(env.phone) == 0.0  # two laps added
    env.phone.restore(snap)
    _set(env, "UPDATE stopwatch SET state='reset', accumulated_s=0 WHERE _id=1")
    _set(env, "DELETE FROM laps")
    assert task.is_successful(env.phone) == 0.0  # reset


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_alarm_on_weekday_query(seed: int) -> None:
    task, env = _fresh("clock_query_alarm_on_weekday", seed)
    p = task.params
    bit = 1 << p["bit"]
    ringing = env.phone.query("SELECT label FROM alarm_templates WHERE enabled=1 AND days_of_week & ?", (bit,))
    assert [r[0] for r in ringing] == [p["labels"][0]]
    assert env.phone.now.weekday() not in (p["bit"], (p["bit"] - 1) % 7)  # one-shot alarms ring today/tomorrow
    assert task.is_successful(env.phone, p["labels"][0]) == 1.0
    assert task.is_successful(env.phone, f"the {p['labels'][0].lower()} alarm") == 1.0
    assert task.is_successful(env.phone, p["labels"][1]) == 0.0  # repeats that day but is off
    assert task.is_successful(env.phone, p["labels"][2]) == 0.0  # on, but other days
    assert task.is_successful(env.phone, f"{p['labels'][0]} or {p['labels'][1]}") == 0.0
    assert task.is_successful(env.phone, None) == 0.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_shift_alarm_near_misses(seed: int) -> None:
    task, env = _fresh("clock_shift_alarm_by_minutes", seed)
    p = task.params
    snap = env.phone.snapshot()
    _set(env, "UPDATE alarm_templates SET hour=?, minutes=? WHERE label=?", p["new_hour"], p["new_minute"], p["label"])
    assert task.is_successful(env.phone) == 1.0
    _set(env, "UPDATE alarm_templates SET days_of_week=? WHERE label=?", p["days"] ^ 1, p["label"])
    assert task.is_successful(env.phone) == 0.0  # repeat days changed too
    env.phone.restore(snap)
    sign = 1 if p["direction"] == "earlier" else -1  # the wrong direction
    h, m = divmod((p["hour"] * 60 + p["minute"] + sign * p["delta"]) % 1440, 60)
    _set(env, "UPDATE alarm_templates SET hour=?, minutes=? WHERE label=?", h, m, p["label"])
    assert task.is_successful(env.phone) == 0.0
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET hour=?, minutes=? WHERE label=?", p["new_hour"], p["new_minute"],
         p["decoy_label"])
    assert task.is_successful(env.phone) == 0.0  # the other alarm moved


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_swap_alarm_labels_near_misses(seed: int) -> None:
    task, env = _fresh("clock_swap_alarm_labels", seed)
    p = task.params
    snap = env.phone.snapshot()

    def label(h: int, m: int, text: str) -> None:
        _set(env, "UPDATE alarm_templates SET label=? WHERE hour=? AND minutes=?", text, h, m)

    label(p["hour"], p["minute"], p["other_label"])
    assert task.is_successful(env.phone) == 0.0  # only one side: two alarms with the same label
    label(p["other_hour"], p["other_minute"], p["label"])
    assert task.is_successful(env.phone) == 1.0
    _set(env, "UPDATE alarm_templates SET days_of_week=0 WHERE hour=? AND minutes=?", p["other_hour"],
         p["other_minute"])
    assert task.is_successful(env.phone) == 0.0  # repeat days lost
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET hour=?, minutes=? WHERE label=?", 3, 3, p["label"])
    _set(env, "UPDATE alarm_templates SET hour=?, minutes=? WHERE label=?", p["hour"], p["minute"], p["other_label"])
    _set(env, "UPDATE alarm_templates SET hour=?, minutes=? WHERE hour=3 AND minutes=3", p["other_hour"],
         p["other_minute"])
    assert task.is_successful(env.phone) == 0.0  # times swapped instead of labels


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_keep_only_city_near_misses(seed: int) -> None:
    task, env = _fresh("clock_keep_only_world_city", seed)
    p = task.params
    snap = env.phone.snapshot()
    _set(env, "DELETE FROM world_cities WHERE city<>?", p["city"])
    assert task.is_successful(env.phone) == 1.0
    env.phone.restore(snap)
    _set(env, "DELETE FROM world_cities WHERE city=?", p["others"][0])
    assert task.is_successful(env.phone) == 0.0  # one left over
    env.phone.restore(snap)
    _set(env, "DELETE FROM world_cities")
    assert task.is_successful(env.phone) == 0.0  # everything removed
    env.phone.restore(snap)
    _set(env, "DELETE FROM world_cities WHERE city<>?", p["others"][0])
    assert task.is_successful(env.phone) == 0.0  # kept the wrong city


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_first_timer_query(seed: int) -> None:
    task, env = _fresh("clock_query_first_timer_to_ring", seed)
    p = task.params
    rows = env.phone.query("SELECT length_s, remaining_s, state FROM timers")
    running = [r for r in rows if r["state"] == "running"]
    paused = [r for r in rows if r["state"] == "paused"]
    assert min(running, key=lambda r: r["remaining_s"])["length_s"] == p["target"]
    assert paused[0]["remaining_s"] < min(r["remaining_s"] for r in running)
    mins = p["target"] // 60
    assert task.is_successful(env.phone, f"The {mins}-minute timer") == 1.0
    assert task.is_successful(env.phone, f"{mins}:00") == 1.0
    assert task.is_successful(env.phone, f"{mins} minutes") == 1.0
    assert task.is_successful(env.phone, f"{paused[0]['length_s'] // 60}-minute timer") == 0.0  # paused one
    other = next(r for r in running if r["length_s"] != p["target"])
    assert task.is_successful(env.phone, f"{other['length_s'] // 60} minutes") == 0.0
    assert task.is_successful(env.phone, f"{mins} or {other['length_s'] // 60} minutes") == 0.0
    assert task.is_successful(env.phone, None) == 0.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_alarm_in_minutes_near_misses(seed: int) -> None:
    task, env = _fresh("clock_alarm_in_minutes", seed)
    p = task.params
    when = env.phone.now.replace(second=0) + timedelta(minutes=p["minutes"])
    snap = env.phone.snapshot()

    def add(h: int, m: int, days: int = 0) -> None:
        _set(env, "INSERT INTO alarm_templates(hour, minutes, days_of_week, enabled, vibrate, label, ringtone) "
                  "VALUES(?,?,?,1,1,'','Bright Morning')", h, m, days)

    add(when.hour, when.minute)
    assert task.is_successful(env.phone) == 1.0
    env.phone.restore(snap)
    add((when - timedelta(minutes=10)).hour, (when - timedelta(minutes=10)).minute)
    assert task.is_successful(env.phone) == 0.0  # ten minutes off
    env.phone.restore(snap)
    add(p["minutes"] // 60, p["minutes"] % 60)
    assert task.is_successful(env.phone) == 0.0  # "00:30" instead of now + 30 minutes
    env.phone.restore(snap)
    add(when.hour, when.minute)
    add(when.hour, when.minute)
    assert task.is_successful(env.phone) == 0.0  # two alarms
    env.phone.restore(snap)
    env.phone.advance(600)  # ten minutes later the same alarm is still fine only when set then
    add(when.hour, when.minute)
    assert task.is_successful(env.phone) == 1.0


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_time_until_alarm_query(seed: int) -> None:
    task, env = _fresh("clock_query_time_until_alarm", seed)
    p = task.params
    now = env.phone.now
    fire = now.replace(hour=p["hour"], minute=p["minute"], second=0)
    if fire <= now:
        fire += timedelta(days=1)
    mins = int((fire - now).total_seconds() // 60)
    h, m = divmod(mins, 60)
    assert task.is_successful(env.phone, f"{h} hours and {m} minutes") == 1.0
    assert task.is_successful(env.phone, f"about {h} h {m + 1} min") == 1.0  # the toast's rounding
    assert task.is_successful(env.phone, f"{h + 1} hours and {m} minutes") == 0.0
    assert task.is_successful(env.phone, say_time(p["hour"], p["minute"])) == 0.0  # the alarm's time, not the wait
    dh, dm = p["decoy_hour"], p["decoy_minute"]
    dfire = now.replace(hour=dh, minute=dm, second=0)
    if dfire <= now:
        dfire += timedelta(days=1)
    dmins = int((dfire - now).total_seconds() // 60)
    if abs(dmins - mins) > 2:
        assert task.is_successful(env.phone, f"{dmins // 60} hours {dmins % 60} minutes") == 0.0  # other alarm
    assert task.is_successful(env.phone, None) == 0.0


@pytest.mark.parametrize("name", ["clock_copy_alarm_settings", "clock_swap_alarm_labels"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_oracle_types_only_labels_it_was_shown(name: str, seed: int) -> None:
    # the label copied from another alarm is on an earlier screen (its row), not only in params
    task = registry.get_template(name).instantiate(seed)
    env = SimEnv(task, seed)
    obs = env.reset()
    shown: set[str] = set()
    for _ in range(task.max_steps):
        action = task.oracle_action(env.phone, obs)
        shown |= {e.text for e in obs.elements if e.text}
        if action.action_type == "input_text" and (obs.elements[action.index].resource_id or "").endswith("label"):
            assert action.text in shown
        if action.action_type == "status":
            break
        obs = env.step(action)
    assert task.is_successful(env.phone) == 1.0


# ---- 2026-11-28 (round 3) ----------------------------------------------------------------------------
ROUND3 = ["clock_add_city_by_hour_difference", "clock_repeat_or_delete_alarm_by_state",
          "clock_add_alarm_before_earliest", "clock_fix_odd_repeat_days", "clock_ensure_timers_running",
          "clock_timer_until_alarm", "clock_label_latest_alarm", "clock_remove_same_time_cities",
          "clock_query_alarm_rings_on_day", "clock_query_lap_spread", "clock_query_alarm_days_per_week",
          "clock_query_cities_ahead_order"]


def test_round3_registered() -> None:
    assert set(ROUND3) <= set(CLOCK)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_add_city_by_hour_difference_near_misses(seed: int) -> None:
    task, env = _fresh("clock_add_city_by_hour_difference", seed)
    p = task.params
    off = CITY_INFO[p["city"]][0] - HOME_OFFSET
    assert f"{abs(int(off))} hour" in task.goal and ("ahead" in task.goal) == (off > 0)
    snap = env.phone.snapshot()
    _add_city_row(env, p["city"])
    assert task.is_successful(env.phone) == 1.0
    near = min((c for c in CITY_INFO if c != p["city"]
                and not env.phone.query("SELECT 1 FROM world_cities WHERE city=?", (c,))),
               key=lambda c: (abs(CITY_INFO[c][0] - CITY_INFO[p["city"]][0]), c))  # the nearest other zone
    _add_city_row(env, near)
    assert task.is_successful(env.phone) == 0.0  # an extra city too
    env.phone.restore(snap)
    _add_city_row(env, near)
    assert task.is_successful(env.phone) == 0.0  # the city in the nearest other zone
    env.phone.restore(snap)
    _add_city_row(env, p["city"])
    _set(env, "DELETE FROM world_cities WHERE city=(SELECT MIN(city) FROM world_cities WHERE city<>?)", p["city"])
    assert task.is_successful(env.phone) == 0.0  # another city removed


@pytest.mark.parametrize("seed", range(8))
def test_repeat_or_delete_alarm_near_misses(seed: int) -> None:
    task, env = _fresh("clock_repeat_or_delete_alarm_by_state", seed)
    p = task.params
    row = env.phone.query_one("SELECT enabled FROM alarm_templates WHERE label=?", (p["label"],))
    other = env.phone.query_one("SELECT enabled FROM alarm_templates WHERE label=?", (p["other_label"],))
    assert row["enabled"] == int(p["on"]) and other["enabled"] != row["enabled"]
    snap = env.phone.snapshot()
    _set(env, "UPDATE alarm_templates SET days_of_week=? WHERE label=?", p["days"], p["label"])
    assert task.is_successful(env.phone) == float(p["on"])  # the "on" branch
    env.phone.restore(snap)
    _set(env, "DELETE FROM alarm_templates WHERE label=?", p["label"])
    assert task.is_successful(env.phone) == float(not p["on"])  # the "off" branch
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET days_of_week=?, enabled=1 WHERE label=?", p["days"], p["label"])
    assert task.is_successful(env.phone) == 0.0 or p["on"]  # switched on and repeated: neither branch
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET days_of_week=? WHERE label=?", p["days"] ^ 1, p["label"])
    assert task.is_successful(env.phone) == 0.0  # wrong days
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET days_of_week=? WHERE label=?", p["days"], p["other_label"])
    _set(env, "DELETE FROM alarm_templates WHERE label=?", p["other_label"])
    assert task.is_successful(env.phone) == 0.0  # the other alarm acted on


def test_repeat_or_delete_covers_both_branches() -> None:
    tmpl = registry.get_template("clock_repeat_or_delete_alarm_by_state")
    assert {tmpl.instantiate(s).params["on"] for s in range(10)} == {True, False}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_alarm_before_earliest_near_misses(seed: int) -> None:
    task, env = _fresh("clock_add_alarm_before_earliest", seed)
    p = task.params
    on = env.phone.query("SELECT hour, minutes FROM alarm_templates WHERE enabled=1 ORDER BY hour, minutes")
    assert tuple(on[0]) == (p["hour"], p["minute"])
    first = env.phone.query_one("SELECT hour, minutes, enabled FROM alarm_templates ORDER BY hour, minutes")
    assert first["enabled"] == 0  # the earliest of all is off
    snap = env.phone.snapshot()

    def add(h: int, m: int, label: str, days: int = 0) -> None:
        _set(env, "INSERT INTO alarm_templates(hour, minutes, days_of_week, enabled, vibrate, label, ringtone) "
                  "VALUES(?,?,?,1,1,?,'Bright Morning')", h, m, days, label)

    add(p["new_hour"], p["new_minute"], p["label"])
    assert task.is_successful(env.phone) == 1.0
    env.phone.restore(snap)
    h, m = divmod(first["hour"] * 60 + first["minutes"] - p["delta"], 60)
    add(h, m, p["label"])
    assert task.is_successful(env.phone) == 0.0  # before the switched-off alarm
    env.phone.restore(snap)
    add(p["new_hour"], p["new_minute"], p["label"], days=0b0011111)
    assert task.is_successful(env.phone) == 0.0  # repeat days copied
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET hour=?, minutes=?, label=? WHERE hour=? AND minutes=?", p["new_hour"],
         p["new_minute"], p["label"], p["hour"], p["minute"])
    assert task.is_successful(env.phone) == 0.0  # moved the alarm instead of adding one


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fix_odd_repeat_days_near_misses(seed: int) -> None:
    task, env = _fresh("clock_fix_odd_repeat_days", seed)
    p = task.params
    rows = env.phone.query("SELECT _id, days_of_week FROM alarm_templates WHERE label=? ORDER BY hour, minutes",
                           (p["label"],))
    assert [r[1] == 0b1111111 for r in rows].count(False) == 1
    odd = next(r[0] for r in rows if r[1] != 0b1111111)
    snap = env.phone.snapshot()
    _set(env, "UPDATE alarm_templates SET days_of_week=127 WHERE _id=?", odd)
    assert task.is_successful(env.phone) == 1.0
    _set(env, "UPDATE alarm_templates SET days_of_week=127 WHERE label=?", p["other_label"])
    assert task.is_successful(env.phone) == 0.0  # the other label's alarm made daily too
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET days_of_week=? WHERE _id=?", 0b0011111, odd)
    assert task.is_successful(env.phone) == 0.0  # weekdays, not every day
    env.phone.restore(snap)
    _set(env, "DELETE FROM alarm_templates WHERE _id=?", odd)
    assert task.is_successful(env.phone) == 0.0  # deleted instead of fixed


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ensure_timers_running_near_misses(seed: int) -> None:
    task, env = _solved("clock_ensure_timers_running", seed)
    p = task.params
    lengths = {int(k) * 60: r for k, r in p["roles"].items()}
    rows = env.phone.query("SELECT length_s, state FROM timers ORDER BY _id")
    assert sorted((r[0], r[1]) for r in rows) == sorted([(L, "running") for L in lengths] +
                                                        [(p["done"] * 60, "expired")])
    snap = env.phone.snapshot()
    paused = next(L for L, r in lengths.items() if r == "paused")
    _set(env, "INSERT INTO timers(length_s, remaining_s, state, end_time, label) VALUES(?,?,'running','2030-01-01',"
              "'')", paused, paused)
    _set(env, "DELETE FROM timers WHERE _id=(SELECT MIN(_id) FROM timers WHERE length_s=?)", paused)
    assert task.is_successful(env.phone) == 0.0  # a new copy instead of resuming the paused one
    env.phone.restore(snap)
    _set(env, "UPDATE timers SET state='paused', end_time=NULL WHERE length_s=?", paused)
    assert task.is_successful(env.phone) == 0.0  # left paused
    env.phone.restore(snap)
    _set(env, "DELETE FROM timers WHERE state='expired'")
    assert task.is_successful(env.phone) == 0.0  # the finished timer deleted
    env.phone.restore(snap)
    missing = next(L for L, r in lengths.items() if r == "missing")
    _set(env, "INSERT INTO timers(length_s, remaining_s, state, end_time, label) VALUES(?,?,'running','2030-01-01',"
              "'')", missing, missing)
    assert task.is_successful(env.phone) == 0.0  # a duplicate


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_timer_until_alarm_near_misses(seed: int) -> None:
    task, env = _fresh("clock_timer_until_alarm", seed)
    p = task.params
    now = env.phone.now
    snap = env.phone.snapshot()

    def start(seconds: int) -> None:
        _set(env, "INSERT INTO timers(length_s, remaining_s, state, end_time, label) VALUES(?,?,'running',?,'')",
             seconds, seconds, (now + timedelta(seconds=seconds)).isoformat())

    start(p["minutes"] * 60)
    assert task.is_successful(env.phone) == 1.0
    env.phone.restore(snap)
    start(p["other_minutes"] * 60)
    assert task.is_successful(env.phone) == 0.0  # until the other alarm
    env.phone.restore(snap)
    start(p["minutes"] * 60 + 300)
    assert task.is_successful(env.phone) == 0.0  # five minutes late
    env.phone.restore(snap)
    start(p["minutes"] * 60)
    start(p["minutes"] * 60)
    assert task.is_successful(env.phone) == 0.0  # two timers
    env.phone.restore(snap)
    _set(env, "INSERT INTO timers(length_s, remaining_s, state, end_time, label) VALUES(?,?,'paused',NULL,'')",
         p["minutes"] * 60, p["minutes"] * 60)
    assert task.is_successful(env.phone) == 0.0  # set but not started


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_label_latest_alarm_near_misses(seed: int) -> None:
    task, env = _fresh("clock_label_latest_alarm", seed)
    p = task.params
    last = env.phone.query_one("SELECT hour, minutes FROM alarm_templates ORDER BY hour DESC, minutes DESC")
    assert tuple(last) == (p["hour"], p["minute"])
    snap = env.phone.snapshot()
    _set(env, "UPDATE alarm_templates SET label=? WHERE hour=? AND minutes=?", p["label"], p["hour"], p["minute"])
    assert task.is_successful(env.phone) == 1.0
    _set(env, "UPDATE alarm_templates SET vibrate=0 WHERE hour=? AND minutes=?", p["hour"], p["minute"])
    assert task.is_successful(env.phone) == 0.0  # something else changed too
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET label=? WHERE hour=? AND minutes=?", p["label"], p["hour"] - 12,
         p["minute"])
    assert task.is_successful(env.phone) == 0.0  # the same digits in the morning
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET label=? WHERE hour=? AND minutes=?", p["label"] + " 2", p["hour"],
         p["minute"])
    assert task.is_successful(env.phone) == 0.0  # a wrong label


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_remove_same_time_cities_near_misses(seed: int) -> None:
    task, env = _fresh("clock_remove_same_time_cities", seed)
    p = task.params
    assert all(CITY_INFO[c][0] == CITY_INFO[p["city"]][0] for c in p["twins"])
    assert all(CITY_INFO[c][0] != CITY_INFO[p["city"]][0] for c in p["others"])
    snap = env.phone.snapshot()
    for c in p["twins"]:
        _set(env, "DELETE FROM world_cities WHERE city=?", c)
    assert task.is_successful(env.phone) == 1.0
    _set(env, "DELETE FROM world_cities WHERE city=?", p["city"])
    assert task.is_successful(env.phone) == 0.0  # the city itself removed too
    env.phone.restore(snap)
    _set(env, "DELETE FROM world_cities WHERE city=?", p["twins"][0])
    if len(p["twins"]) > 1:
        assert task.is_successful(env.phone) == 0.0  # one twin left
    _set(env, "DELETE FROM world_cities WHERE city=?", p["others"][0])
    assert task.is_successful(env.phone) == 0.0  # a city an hour or two away removed


@pytest.mark.parametrize("seed", range(8))
def test_alarm_rings_on_day_query(seed: int) -> None:
    task, env = _fresh("clock_query_alarm_rings_on_day", seed)
    p = task.params
    yes = bool(p["on"]) and bool(p["days"] >> p["bit"] & 1)
    right, wrong = ("Yes", "No") if yes else ("No", "Yes")
    assert task.is_successful(env.phone, right) == 1.0
    assert task.is_successful(env.phone, f"{right}, it {'will' if yes else 'will not'} ring.") == 1.0
    assert task.is_successful(env.phone, wrong) == 0.0
    other_yes = bool(p["other_on"]) and bool(p["other_days"] >> p["bit"] & 1)
    assert other_yes != yes  # the other alarm's answer is the near miss
    assert task.is_successful(env.phone, "yes or no") == 0.0
    assert task.is_successful(env.phone, None) == 0.0


def test_alarm_rings_on_day_has_every_case() -> None:
    tmpl = registry.get_template("clock_query_alarm_rings_on_day")
    cases = set()
    for s in range(30):
        p = tmpl.instantiate(s).params
        cases.add((p["on"], bool(p["days"] >> p["bit"] & 1)))
    assert cases == {(1, True), (0, True), (1, False)}


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_lap_spread_query(seed: int) -> None:
    task, env = _fresh("clock_query_lap_spread", seed)
    p = task.params
    laps = [r[0] for r in env.phone.query("SELECT lap_s FROM laps ORDER BY _id")]
    spread = round(max(laps) - min(laps), 2)
    assert task.is_successful(env.phone, f"{spread:.2f}") == 1.0
    assert task.is_successful(env.phone, f"{spread:.2f} seconds") == 1.0
    assert task.is_successful(env.phone, f"{max(laps):.2f}") == 0.0  # the slowest lap itself
    assert task.is_successful(env.phone, f"{min(laps):.2f}") == 0.0  # the fastest lap itself
    second = sorted(laps)[1]
    assert task.is_successful(env.phone, f"{max(laps) - second:.2f}") == 0.0  # against the second fastest
    assert task.is_successful(env.phone, f"{min(laps):.2f} and {spread:.2f}") == 0.0  # two numbers
    assert task.is_successful(env.phone, None) == 0.0
    assert p["laps"] == len(laps)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_alarm_days_per_week_query(seed: int) -> None:
    task, env = _fresh("clock_query_alarm_days_per_week", seed)
    p = task.params
    n = p["days"].bit_count()
    other = p["other_days"].bit_count()
    assert n != other
    assert task.is_successful(env.phone, str(n)) == 1.0
    assert task.is_successful(env.phone, f"{n} days a week") == 1.0
    words = ("zero", "one", "two", "three", "four", "five", "six", "seven")
    assert task.is_successful(env.phone, words[n]) == 1.0
    assert task.is_successful(env.phone, str(other)) == 0.0  # the other alarm's count
    assert task.is_successful(env.phone, f"{n} or {other}") == 0.0
    assert task.is_successful(env.phone, None) == 0.0


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_cities_ahead_order_query(seed: int) -> None:
    task, env = _fresh("clock_query_cities_ahead_order", seed)
    p = task.params
    shown = sorted(r[0] for r in env.phone.query("SELECT city FROM world_cities"))
    assert shown == p["cities"]
    order = sorted(shown, key=lambda c: -CITY_INFO[c][0])
    assert task.is_successful(env.phone, ", ".join(order)) == 1.0
    assert task.is_successful(env.phone, "1. " + "\n2. ".join(order)) == 1.0
    assert task.is_successful(env.phone, ", ".join(order[::-1])) == 0.0  # least ahead first
    swapped = [order[1], order[0], *order[2:]]
    assert task.is_successful(env.phone, ", ".join(swapped)) == 0.0
    assert task.is_successful(env.phone, ", ".join(order[:-1])) == 0.0  # one left out
    assert task.is_successful(env.phone, ", ".join(sorted(order))) == (1.0 if sorted(order) == order else 0.0)
    assert task.is_successful(env.phone, None) == 0.0


# oracles from mid-task screens: harmless detours that change no app data
def _detour_alarm_editor(env: SimEnv) -> None:
    env.phone.open_app("clock")
    env.phone.replace("alarms")
    a = env.phone.query_one("SELECT _id FROM alarm_templates ORDER BY hour DESC, minutes DESC")
    env.phone.push("edit_alarm", alarm_id=a[0])
    obs = env.observe()
    act(env, "click", index=next(i for i, e in enumerate(obs.elements) if (e.resource_id or "").endswith("edit_time")))


def _detour_new_alarm(env: SimEnv) -> None:
    env.phone.open_app("clock")
    env.phone.replace("alarms")
    env.phone.push("edit_alarm", alarm_id=None)
    env.observe()


def _detour_keypad(env: SimEnv) -> None:
    env.phone.open_app("clock")
    env.phone.replace("timer")
    env.phone.screen.state["setup"] = True
    env.phone.screen.state["digits"] = "7"
    env.observe()


def _detour_city_search(env: SimEnv) -> None:
    env.phone.open_app("clock")
    env.phone.replace("clock")
    env.phone.push("city_search")
    obs = env.observe()
    act(env, "input_text", index=next(i for i, e in enumerate(obs.elements)
                                      if (e.resource_id or "").endswith("search_src_text")), text="an")


def _detour_menu(env: SimEnv) -> None:
    env.phone.open_app("clock")
    env.phone.replace("stopwatch")
    obs = env.observe()
    act(env, "click", index=next(i for i, e in enumerate(obs.elements) if e.content_description == "More options"))


def _detour_other_app(env: SimEnv) -> None:
    env.phone.open_app("settings")
    env.observe()


DETOURS = [_detour_alarm_editor, _detour_new_alarm, _detour_keypad, _detour_city_search, _detour_menu,
           _detour_other_app]


@pytest.mark.parametrize("name", ROUND3)
def test_round3_oracle_finishes_from_mid_task_screens(name: str) -> None:
    tmpl = registry.get_template(name)
    for k, detour in enumerate(DETOURS):
        seed = 10 + k
        task = tmpl.instantiate(seed)
        env = SimEnv(task, seed)
        env.reset()
        detour(env)
        obs = env.observe()
        for _ in range(tmpl.max_steps):
            action = task.oracle_action(env.phone, obs)
            if action.action_type == "status":
                break
            obs = env.step(action)
            if action.action_type == "answer":
                break
        else:
            raise AssertionError(f"{name} after {detour.__name__}: no finish (at {env.phone.location})")
        assert env.is_successful() == 1.0, (name, detour.__name__)
        env.close()


# ---- round 4: screens no earlier oracle used (city search as a source, lap totals, the stopwatch display, the
# one-time alarms' "Today" line, times in labels, a timer's time left, the vibrate box alarm by alarm) ----------
ROUND4 = ["clock_query_city_time_in_search", "clock_query_lap_total_passed_mark", "clock_stopwatch_reset_or_resume",
          "clock_query_one_time_alarm_today", "clock_fix_alarm_time_from_label", "clock_replace_paused_timer",
          "clock_pause_all_running_timers", "clock_query_minutes_between_alarms", "clock_vibrate_all_alarms",
          "clock_alarm_when_timer_ends", "clock_query_cities_already_tomorrow", "clock_world_clock_exact_set"]


def test_round4_registered() -> None:
    assert set(ROUND4) <= set(CLOCK)


def _city_clock(env: SimEnv, city: str) -> tuple[int, int]:
    t = env.phone.now + timedelta(hours=CITY_INFO[city][0] - HOME_OFFSET)
    return t.hour, t.minute


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_city_time_in_search_query(seed: int) -> None:
    task, env = _fresh("clock_query_city_time_in_search", seed)
    p = task.params
    assert not env.phone.query("SELECT 1 FROM world_cities WHERE city=?", (p["city"],))
    h, m = _city_clock(env, p["city"])
    assert task.is_successful(env.phone, say_time(h, m)) == 1.0
    assert task.is_successful(env.phone, f"It's {h:02d}:{m:02d} there") == 1.0
    oh, om = _city_clock(env, p["other_city"])
    assert task.is_successful(env.phone, say_time(oh, om)) == 0.0  # the other city's time
    assert task.is_successful(env.phone, say_time(*_city_clock(env, "Los Angeles"))) == 0.0  # my own time
    if h >= 12:
        assert task.is_successful(env.phone, f"{h - 12 or 12}:{m:02d}") == 0.0  # no AM/PM for an afternoon
    _add_city_row(env, p["city"])
    assert task.is_successful(env.phone, say_time(h, m)) == 0.0  # added to the world clock after all
    assert task.is_successful(env.phone, None) == 0.0


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_lap_total_passed_mark_query(seed: int) -> None:
    task, env = _fresh("clock_query_lap_total_passed_mark", seed)
    p = task.params
    totals = [r[0] for r in env.phone.query("SELECT total_s FROM laps ORDER BY _id")]
    k = p["lap"]
    assert len(totals) == p["laps"] and totals[k - 2] < p["minutes"] * 60 <= totals[k - 1]
    for good in (f"Lap {k}", str(k), f"lap #{k}"):
        assert task.is_successful(env.phone, good) == 1.0
    assert task.is_successful(env.phone, f"Lap {k - 1}") == 0.0  # the last lap under the mark
    assert task.is_successful(env.phone, f"Lap {k + 1}") == 0.0
    assert task.is_successful(env.phone, f"Lap {k} or {k + 1}") == 0.0
    assert task.is_successful(env.phone, None) == 0.0


@pytest.mark.parametrize("seed", range(6))
def test_stopwatch_reset_or_resume_near_misses(seed: int) -> None:
    task, env = _fresh("clock_stopwatch_reset_or_resume", seed)
    p = task.params
    acc = env.phone.query_one("SELECT accumulated_s FROM stopwatch")[0]
    assert (acc > p["limit"] * 60) == p["over"]
    snap = env.phone.snapshot()
    _set(env, "UPDATE stopwatch SET state='reset', accumulated_s=0, started_at=NULL")
    _set(env, "DELETE FROM laps")
    assert task.is_successful(env.phone) == float(p["over"])  # the reset branch
    _set(env, "UPDATE stopwatch SET state='running', started_at=?", env.phone.now.isoformat())
    assert task.is_successful(env.phone) == 0.0  # reset, then started from zero
    env.phone.restore(snap)
    _set(env, "UPDATE stopwatch SET state='running', started_at=?", env.phone.now.isoformat())
    assert task.is_successful(env.phone) == float(not p["over"])  # the resume branch
    if p["lap_times"]:
        env.phone.restore(snap)
        _set(env, "UPDATE stopwatch SET state='reset', accumulated_s=0, started_at=NULL")
        assert task.is_successful(env.phone) == 0.0  # laps left behind
        env.phone.restore(snap)
        _set(env, "UPDATE stopwatch SET state='running', started_at=?", env.phone.now.isoformat())
        _set(env, "DELETE FROM laps")
        assert task.is_successful(env.phone) == 0.0  # resumed, but the laps were cleared


def test_stopwatch_reset_or_resume_covers_both_branches() -> None:
    tmpl = registry.get_template("clock_stopwatch_reset_or_resume")
    assert {tmpl.instantiate(s).params["over"] for s in range(10)} == {True, False}


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_one_time_alarm_today_query(seed: int) -> None:
    task, env = _fresh("clock_query_one_time_alarm_today", seed)
    p = task.params
    once = env.phone.query("SELECT label, enabled, hour, minutes FROM alarm_templates WHERE days_of_week=0")
    assert sorted(r[0] for r in once) == sorted([p["label"], p["early_label"], p["off_label"]])
    now = env.phone.now
    today = [r[0] for r in once if r[1] and (r[2], r[3]) > (now.hour, now.minute)]
    assert today == [p["label"]]
    assert task.is_successful(env.phone, p["label"]) == 1.0
    assert task.is_successful(env.phone, f"The \"{p['label']}\" alarm") == 1.0
    for other in (p["early_label"], p["off_label"], p["repeat_label"]):
        assert task.is_successful(env.phone, other) == 0.0
        assert task.is_successful(env.phone, f"{p['label']} and {other}") == 0.0
    assert task.is_successful(env.phone, None) == 0.0


def _alarm_rows(env: SimEnv) -> dict:
    return {r["label"]: r for r in env.phone.query("SELECT * FROM alarm_templates")}


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_fix_alarm_time_from_label_near_misses(seed: int) -> None:
    task, env = _fresh("clock_fix_alarm_time_from_label", seed)
    p = task.params
    rows = _alarm_rows(env)
    odd = p["labels"][p["odd"]]
    for label, (h, m) in zip(p["labels"], p["times"]):
        assert (label == odd) != ((rows[label]["hour"], rows[label]["minutes"]) == (h, m))
        assert label.endswith(say_time(h, m))
    h, m = p["times"][p["odd"]]
    snap = env.phone.snapshot()
    _set(env, "UPDATE alarm_templates SET hour=?, minutes=? WHERE label=?", h, m, odd)
    assert task.is_successful(env.phone) == 1.0
    _set(env, "UPDATE alarm_templates SET vibrate=0 WHERE label=?", odd)
    assert task.is_successful(env.phone) == 0.0  # something else changed too
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET hour=?, minutes=? WHERE label=?", (h + 12) % 24, m, odd)
    assert task.is_successful(env.phone) == 0.0  # the other half of the day
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET label=? WHERE label=?", f"{odd.split()[0]} {say_time(*p['wrong'])}", odd)
    assert task.is_successful(env.phone) == 0.0  # the label fitted to the time instead
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET hour=?, minutes=? WHERE label=?", h, m, odd)
    _set(env, "UPDATE alarm_templates SET enabled=0 WHERE label=?", p["example"])
    assert task.is_successful(env.phone) == 0.0  # a correct alarm switched off


def _timers(env: SimEnv) -> list[tuple]:
    return [tuple(r) for r in env.phone.query("SELECT _id, length_s, state FROM timers ORDER BY _id")]


def _add_timer(env: SimEnv, length: int, state: str = "running") -> None:
    end = (env.phone.now + timedelta(seconds=length)).isoformat() if state == "running" else None
    _set(env, "INSERT INTO timers(length_s, remaining_s, state, end_time, label) VALUES(?,?,?,?,'')", length, length,
         state, end)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_replace_paused_timer_near_misses(seed: int) -> None:
    task, env = _fresh("clock_replace_paused_timer", seed)
    p = task.params
    paused = env.phone.query_one("SELECT _id, remaining_s FROM timers WHERE state='paused'")
    assert paused["remaining_s"] == p["left"]
    snap = env.phone.snapshot()
    _add_timer(env, p["left"])
    assert task.is_successful(env.phone) == 0.0  # the paused one not deleted yet
    _set(env, "DELETE FROM timers WHERE _id=?", paused["_id"])
    assert task.is_successful(env.phone) == 1.0
    _set(env, "UPDATE timers SET state='paused' WHERE length_s=?", p["other_seconds"])
    assert task.is_successful(env.phone) == 0.0  # the other timer paused
    env.phone.restore(snap)
    _add_timer(env, p["seconds"])
    _set(env, "DELETE FROM timers WHERE _id=?", paused["_id"])
    assert task.is_successful(env.phone) == 0.0  # the full length, not the time left
    env.phone.restore(snap)
    _add_timer(env, p["left"], "paused")
    _set(env, "DELETE FROM timers WHERE _id=?", paused["_id"])
    assert task.is_successful(env.phone) == 0.0  # the new timer not started
    env.phone.restore(snap)
    _add_timer(env, p["left"])
    _add_timer(env, p["left"])
    _set(env, "DELETE FROM timers WHERE _id=?", paused["_id"])
    assert task.is_successful(env.phone) == 0.0  # two new timers


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_pause_all_running_timers_near_misses(seed: int) -> None:
    task, env = _fresh("clock_pause_all_running_timers", seed)
    start = _timers(env)
    running = [r for r in start if r[2] == "running"]
    assert len(start) == 5 and len(running) >= 2 and {r[2] for r in start} == {"running", "paused", "expired"}
    snap = env.phone.snapshot()
    _set(env, "UPDATE timers SET state='paused' WHERE _id=?", running[0][0])
    assert task.is_successful(env.phone) == 0.0  # only some paused
    _set(env, "UPDATE timers SET state='paused' WHERE state='running'")
    assert task.is_successful(env.phone) == 1.0
    _set(env, "DELETE FROM timers WHERE state='expired'")
    assert task.is_successful(env.phone) == 0.0  # the finished one deleted
    env.phone.restore(snap)
    _set(env, "UPDATE timers SET state=CASE state WHEN 'running' THEN 'paused' WHEN 'paused' THEN 'running' "
              "ELSE state END")
    assert task.is_successful(env.phone) == 0.0  # the paused one started


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_minutes_between_alarms_query(seed: int) -> None:
    task, env = _fresh("clock_query_minutes_between_alarms", seed)
    p = task.params
    rows = _alarm_rows(env)
    a, b, c = (rows[p[k]] for k in ("first", "second", "other_label"))
    gap = (b["hour"] - a["hour"]) * 60 + b["minutes"] - a["minutes"]
    assert gap == p["gap"] > 0
    assert task.is_successful(env.phone, str(gap)) == 1.0
    assert task.is_successful(env.phone, f"{gap} minutes") == 1.0
    assert task.is_successful(env.phone, f"{gap // 60} hours and {gap % 60} minutes") == float(gap >= 60) or gap < 60
    other = (c["hour"] - b["hour"]) * 60 + c["minutes"] - b["minutes"]
    assert task.is_successful(env.phone, f"{other} minutes") == 0.0  # to the next alarm instead
    assert task.is_successful(env.phone, f"{gap + 60} minutes") == 0.0
    assert task.is_successful(env.phone, f"{gap} or {gap + 5} minutes") == 0.0
    assert task.is_successful(env.phone, None) == 0.0


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_vibrate_all_alarms_near_misses(seed: int) -> None:
    task, env = _fresh("clock_vibrate_all_alarms", seed)
    silent = env.phone.query("SELECT _id FROM alarm_templates WHERE vibrate=0 ORDER BY _id")
    assert 1 <= len(silent) <= 2 and len(env.phone.query("SELECT 1 FROM alarm_templates")) > len(silent)
    snap = env.phone.snapshot()
    _set(env, "UPDATE alarm_templates SET vibrate=1")
    assert task.is_successful(env.phone) == 1.0
    off = env.phone.query_one("SELECT _id FROM alarm_templates WHERE enabled=0")
    if off is not None:
        _set(env, "UPDATE alarm_templates SET enabled=1 WHERE _id=?", off[0])
        assert task.is_successful(env.phone) == 0.0  # a switched-off alarm saved on by the way
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET vibrate=1 WHERE _id=?", silent[0][0])
    assert task.is_successful(env.phone) == float(len(silent) == 1)  # with two, one is still silent
    env.phone.restore(snap)
    _set(env, "UPDATE alarm_templates SET vibrate=1, label='' WHERE _id=?", silent[-1][0])
    _set(env, "UPDATE alarm_templates SET vibrate=1")
    assert task.is_successful(env.phone) == 0.0  # its label cleared


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_alarm_when_timer_ends_near_misses(seed: int) -> None:
    task, env = _fresh("clock_alarm_when_timer_ends", seed)
    p = task.params
    now = env.phone.now
    t = env.phone.query_one("SELECT end_time FROM timers WHERE length_s=?", (p["seconds"],))
    o = env.phone.query_one("SELECT end_time FROM timers WHERE length_s=?", (p["other_seconds"],))
    from datetime import datetime

    end, other_end = datetime.fromisoformat(t[0]), datetime.fromisoformat(o[0])
    assert (end - now).total_seconds() == p["left"] * 60 and end.second == 0

    def add(when, label=p["label"], days=0) -> None:
        _set(env, "INSERT INTO alarm_templates(hour, minutes, days_of_week, enabled, vibrate, label, ringtone) "
                  "VALUES(?,?,?,1,1,?,'Bright Morning')", when.hour, when.minute, days, label)

    snap = env.phone.snapshot()
    add(end)
    assert task.is_successful(env.phone) == 1.0
    env.phone.restore(snap)
    add(other_end)
    assert task.is_successful(env.phone) == 0.0  # when the other timer ends
    env.phone.restore(snap)
    add(now + timedelta(seconds=p["seconds"]))
    assert task.is_successful(env.phone) == 0.0  # the timer's full length from now
    env.phone.restore(snap)
    add(end, days=0b0011111)
    assert task.is_successful(env.phone) == 0.0  # repeating
    env.phone.restore(snap)
    add(end, label="")
    assert task.is_successful(env.phone) == 0.0  # no label


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_cities_already_tomorrow_query(seed: int) -> None:
    task, env = _fresh("clock_query_cities_already_tomorrow", seed)
    p = task.params
    shown = sorted(r[0] for r in env.phone.query("SELECT city FROM world_cities"))
    assert shown == p["cities"]
    now = env.phone.now
    ahead = [c for c in shown if (now + timedelta(hours=CITY_INFO[c][0] - HOME_OFFSET)).date() > now.date()]
    rest = [c for c in shown if c not in ahead]
    assert ahead and rest
    assert task.is_successful(env.phone, ", ".join(ahead)) == 1.0
    assert task.is_successful(env.phone, " and ".join(ahead[::-1])) == 1.0
    assert task.is_successful(env.phone, ", ".join(ahead + rest[:1])) == 0.0  # one still on today's date
    if len(ahead) > 1:
        assert task.is_successful(env.phone, ", ".join(ahead[1:])) == 0.0  # one left out
    latest = max(rest, key=lambda c: CITY_INFO[c][0])
    assert task.is_successful(env.phone, latest) == 0.0  # the latest city that is still on today
    assert task.is_successful(env.phone, None) == 0.0


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_world_clock_exact_set_near_misses(seed: int) -> None:
    task, env = _fresh("clock_world_clock_exact_set", seed)
    p = task.params
    want = sorted([p["first"], p["second"], p["third"]])
    have = sorted(r[0] for r in env.phone.query("SELECT city FROM world_cities"))
    assert have == sorted(p["have"] + p["extra"]) and set(p["have"]) < set(want)
    snap = env.phone.snapshot()
    for c in want:
        if c not in have:
            _add_city_row(env, c)
    assert task.is_successful(env.phone) == 0.0  # the other cities still there
    _set(env, f"DELETE FROM world_cities WHERE city NOT IN ({','.join('?' * len(want))})", *want)
    assert task.is_successful(env.phone) == 1.0
    _set(env, "DELETE FROM world_cities WHERE city=?", want[0])
    assert task.is_successful(env.phone) == 0.0  # one missing
    env.phone.restore(snap)
    _set(env, "DELETE FROM world_cities")
    for c in want[:2]:
        _add_city_row(env, c)
    assert task.is_successful(env.phone) == 0.0


def _shown_path(name: str, seed: int) -> list[str]:
    """Texts the oracle types or answers that no earlier screen (nor the goal) showed (as test_calendar's)."""
    task = registry.get_template(name).instantiate(seed)
    env = SimEnv(task, seed)
    obs = env.reset()
    seen = [task.goal.lower()]
    out = []
    for _ in range(task.max_steps):
        action = task.oracle_action(env.phone, obs)
        seen.append(" ".join(f"{e.text or ''} {e.content_description or ''}" for e in obs.elements).lower())
        parts = action.text.split(", ") if action.action_type == "answer" and action.text else [action.text]
        for part in parts if action.action_type in ("input_text", "answer") and action.text else []:
            if not any(part.lower() in s for s in seen):  # a list answer: each item was shown
                out.append(part)
        if action.action_type == "status":
            break
        obs = env.step(action)
        if action.action_type == "answer":
            break
    assert env.is_successful() == 1.0
    return out


@pytest.mark.parametrize("name", ["clock_query_city_time_in_search", "clock_query_lap_total_passed_mark",
                                  "clock_query_one_time_alarm_today", "clock_query_cities_already_tomorrow",
                                  "clock_fix_alarm_time_from_label", "clock_world_clock_exact_set"])
def test_round4_oracle_types_only_what_it_was_shown(name: str) -> None:
    for seed in (0, 1, 2, 1000):
        assert _shown_path(name, seed) == [], (name, seed)


@pytest.mark.parametrize("name", ROUND4)
def test_round4_oracle_finishes_from_mid_task_screens(name: str) -> None:
    test_round3_oracle_finishes_from_mid_task_screens(name)  # the same six detours, seeds 10-15
