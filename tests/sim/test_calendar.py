"""Calendar app and tasks: oracle solves, do-nothing fails, checker success + near misses, screens."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from simhelpers import act, fresh, run_oracle

from droidverify.env.sim import SimEnv
from droidverify.env.sim.apps.calendar import add_event, event_by_title, events_on
from droidverify.env.sim.phone import Phone
from droidverify.env.sim.timeutil import from_ms, to_ms
from droidverify.tasks import registry
from droidverify.tasks.oracle_utils import find

CAL = sorted(t.name for t in registry.all_templates() if t.name.startswith("calendar_"))
MULTI = ["multi_note_from_first_event_tomorrow", "multi_event_from_note", "multi_count_events_into_note"]


def test_enough_templates() -> None:
    assert len(CAL) >= 23


def _solved(name: str, seed: int = 1):
    task = registry.get_template(name).instantiate(seed)
    env, _ = run_oracle(task, seed)
    return task, env


def _move(p: Phone, title: str, delta: timedelta) -> None:
    ev = event_by_title(p, title)[0]
    p.execute("UPDATE events SET dtstart=?, dtend=? WHERE _id=?",
              (to_ms(from_ms(ev["dtstart"]) + delta), to_ms(from_ms(ev["dtend"]) + delta), ev["_id"]))


@pytest.mark.parametrize("name", ["calendar_create_event", "calendar_create_event_with_location",
                                  "calendar_create_event_full", "calendar_reschedule_event",
                                  "calendar_change_event_time"])
def test_right_event_wrong_day_or_time_fails(name: str) -> None:
    task, env = _solved(name)
    title = task.params["title"]
    assert task.is_successful(env.phone) == 1.0
    snap = env.phone.snapshot()
    _move(env.phone, title, timedelta(days=1))
    assert task.is_successful(env.phone) == 0.0
    env.phone.restore(snap)
    _move(env.phone, title, timedelta(minutes=30))
    assert task.is_successful(env.phone) == 0.0
    env.phone.restore(snap)
    ev = event_by_title(env.phone, title)[0]  # a duplicate is not "an event"
    add_event(env.phone, title, from_ms(ev["dtstart"]), from_ms(ev["dtend"]))
    assert task.is_successful(env.phone) == 0.0


def test_create_with_location_wrong_location_fails() -> None:
    task, env = _solved("calendar_create_event_full")
    env.phone.execute("UPDATE events SET eventLocation='Elsewhere' WHERE title=?", (task.params["title"],))
    assert task.is_successful(env.phone) == 0.0


def test_all_day_near_miss_timed_event() -> None:
    task, env = _solved("calendar_create_all_day_event")
    env.phone.execute("UPDATE events SET allDay=0 WHERE title=?", (task.params["title"],))
    assert task.is_successful(env.phone) == 0.0


def test_rename_and_location_near_misses() -> None:
    task, env = _solved("calendar_rename_event")
    add_event(env.phone, task.params["title"], datetime(2024, 10, 30, 9), datetime(2024, 10, 30, 10))
    assert task.is_successful(env.phone) == 0.0  # old title still around
    task, env = _solved("calendar_set_event_location")
    env.phone.execute("UPDATE events SET eventLocation=? WHERE title=?", (task.params["location"], task.params["title"]))
    assert task.is_successful(env.phone) == 0.0


def test_delete_wrong_event_fails() -> None:
    task = registry.get_template("calendar_delete_event").instantiate(2)
    env = fresh(task, 2)
    env.phone.execute("DELETE FROM events WHERE title=?", (task.params["title"] + " follow-up",))
    assert task.is_successful(env.phone) == 0.0
    env.phone.execute("DELETE FROM events WHERE title=?", (task.params["title"],))
    assert task.is_successful(env.phone) == 0.0  # both gone: the follow-up was collateral damage
    task, env = _solved("calendar_delete_event")
    assert task.is_successful(env.phone) == 1.0


def test_delete_day_near_misses() -> None:
    task = registry.get_template("calendar_delete_events_on_date").instantiate(0)
    env = fresh(task, 0)
    d = date.fromisoformat(task.params["date"])
    for ev in events_on(env.phone, d)[1:]:  # all but one deleted
        env.phone.execute("DELETE FROM events WHERE _id=?", (ev["_id"],))
    assert task.is_successful(env.phone) == 0.0
    env.phone.execute("DELETE FROM events WHERE dtstart >= ? AND dtstart < ?",
                      (to_ms(datetime.combine(d - timedelta(days=1), datetime.min.time())),
                       to_ms(datetime.combine(d + timedelta(days=2), datetime.min.time()))))
    assert task.is_successful(env.phone) == 0.0  # neighbours deleted too


@pytest.mark.parametrize("name,good,bad", [
    ("calendar_query_appointment_time", None, "7:15 AM"),
    ("calendar_query_event_location", None, "Somewhere else"),
    ("calendar_query_event_date", None, "February 30"),
    ("calendar_query_count_on_day", None, "99"),
    ("calendar_query_first_event_of_day", None, "Late check-in"),
])
def test_query_answers(name: str, good: str | None, bad: str) -> None:
    task = registry.get_template(name).instantiate(3)
    env = fresh(task, 3)
    tmpl = task.template
    exp = tmpl.expected(env.phone, task.params)
    exp = exp if isinstance(exp, str) else exp[0]
    assert task.is_successful(env.phone, exp) == 1.0
    assert task.is_successful(env.phone, f"It is {exp}.") == 1.0
    assert task.is_successful(env.phone, bad) == 0.0
    assert task.is_successful(env.phone, None) == 0.0


def test_time_query_accepts_24h_answer() -> None:
    task = registry.get_template("calendar_query_appointment_time").instantiate(0)
    env = fresh(task, 0)
    h, m = task.params["hour"], task.params["minute"]
    assert task.is_successful(env.phone, f"{h:02d}:{m:02d}") == 1.0


# ---- templates added with goal phrasings -------------------------------------------------------------
def _only_row(p: Phone, title: str):
    rows = event_by_title(p, title)
    assert len(rows) == 1
    return rows[0]


def test_set_description_near_misses() -> None:
    task, env = _solved("calendar_set_event_description")
    assert task.is_successful(env.phone) == 1.0
    snap = env.phone.snapshot()
    env.phone.execute("UPDATE events SET description=? WHERE title=?",
                      ("Added by you. " + task.params["description"], task.params["title"]))
    assert task.is_successful(env.phone) == 0.0  # appended to the old text, not replaced
    env.phone.restore(snap)
    _move(env.phone, task.params["title"], timedelta(days=1))
    assert task.is_successful(env.phone) == 0.0  # the event moved along the way


def test_extend_event_near_misses() -> None:
    task, env = _solved("calendar_extend_event")
    assert task.is_successful(env.phone) == 1.0
    ev = _only_row(env.phone, task.params["title"])
    snap = env.phone.snapshot()
    env.phone.execute("UPDATE events SET dtend=? WHERE _id=?", (ev["dtend"] - 15 * 60_000, ev["_id"]))
    assert task.is_successful(env.phone) == 0.0  # a quarter short
    env.phone.restore(snap)
    env.phone.execute("UPDATE events SET dtstart=? WHERE _id=?", (ev["dtstart"] + 30 * 60_000, ev["_id"]))
    assert task.is_successful(env.phone) == 0.0  # the start moved too


def test_make_all_day_near_misses() -> None:
    task, env = _solved("calendar_make_event_all_day")
    assert task.is_successful(env.phone) == 1.0
    ev = _only_row(env.phone, task.params["title"])
    snap = env.phone.snapshot()
    env.phone.execute("UPDATE events SET dtend=? WHERE _id=?", (ev["dtend"] + 86_400_000, ev["_id"]))
    assert task.is_successful(env.phone) == 0.0  # spills into the next day
    env.phone.restore(snap)
    env.phone.execute("UPDATE events SET allDay=0 WHERE _id=?", (ev["_id"],))
    assert task.is_successful(env.phone) == 0.0  # a timed midnight-to-midnight event is not all-day


def test_multi_day_event_near_misses() -> None:
    task, env = _solved("calendar_create_multi_day_event")
    assert task.is_successful(env.phone) == 1.0
    ev = _only_row(env.phone, task.params["title"])
    snap = env.phone.snapshot()
    env.phone.execute("UPDATE events SET dtend=? WHERE _id=?", (ev["dtend"] - 86_400_000, ev["_id"]))
    assert task.is_successful(env.phone) == 0.0  # the last day missing
    env.phone.restore(snap)
    add_event(env.phone, task.params["title"], from_ms(ev["dtstart"]), from_ms(ev["dtend"]), all_day=True)
    assert task.is_successful(env.phone) == 0.0  # two copies


def test_copy_event_near_misses() -> None:
    task, env = _solved("calendar_copy_event_to_date")
    assert task.is_successful(env.phone) == 1.0
    copy = event_by_title(env.phone, task.params["title"])[1]
    env.phone.execute("UPDATE events SET eventLocation='Somewhere else' WHERE _id=?", (copy["_id"],))
    assert task.is_successful(env.phone) == 0.0  # same time, other place
    task = registry.get_template("calendar_copy_event_to_date").instantiate(0)
    env = fresh(task, 0)
    new_day = date.fromisoformat(task.params["new_date"]) - date.fromisoformat(task.params["date"])
    _move(env.phone, task.params["title"], new_day)
    assert task.is_successful(env.phone) == 0.0  # moved the original instead of copying it


def test_cancel_occurrence_near_misses() -> None:
    task = registry.get_template("calendar_cancel_event_occurrence").instantiate(0)
    env = fresh(task, 0)
    rows = event_by_title(env.phone, task.params["title"])
    assert len(rows) == 2
    keep = to_ms(datetime.fromisoformat(task.params["other_date"]).replace(hour=task.params["hour"],
                                                                            minute=task.params["minute"]))
    other = next(r for r in rows if r["dtstart"] == keep)
    target = next(r for r in rows if r["dtstart"] != keep)
    snap = env.phone.snapshot()
    env.phone.execute("DELETE FROM events WHERE _id=?", (other["_id"],))
    assert task.is_successful(env.phone) == 0.0  # the twin on the other day deleted
    env.phone.execute("DELETE FROM events WHERE _id=?", (target["_id"],))
    assert task.is_successful(env.phone) == 0.0  # both deleted
    env.phone.restore(snap)
    env.phone.execute("DELETE FROM events WHERE _id=?", (target["_id"],))
    assert task.is_successful(env.phone) == 1.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_duration_and_count_queries(seed: int) -> None:
    task = registry.get_template("calendar_query_event_duration").instantiate(seed)
    env = fresh(task, seed)
    d, other = task.params["duration"], task.params["other_duration"]
    assert task.is_successful(env.phone, f"It lasts {d} minutes.") == 1.0
    assert task.is_successful(env.phone, f"{other} minutes") == 0.0  # the same event on the other day
    assert task.is_successful(env.phone, None) == 0.0
    task = registry.get_template("calendar_query_event_count").instantiate(seed)
    env = fresh(task, seed)
    n = task.params["count"]
    assert len(event_by_title(env.phone, task.params["title"])) == n
    assert task.is_successful(env.phone, str(n)) == 1.0
    assert task.is_successful(env.phone, f"There are {n} of them.") == 1.0
    assert task.is_successful(env.phone, str(n + 2)) == 0.0  # counted the look-alikes the search also shows
    assert task.is_successful(env.phone, str(n + 1)) == 0.0


# ---- screens ------------------------------------------------------------------------------------
def _env() -> SimEnv:
    env = SimEnv(None, 4)
    env.reset()
    env.phone.open_app("calendar")
    return env


def test_month_grid_day_list_and_form() -> None:
    env = _env()
    obs = env.observe()
    assert obs.package == "com.simplemobiletools.calendar.pro"
    assert find(obs, text="October 2024") is not None
    cells = [e for e in obs.elements if (e.resource_id or "").endswith("month_day")]
    assert len(cells) == 42
    obs = env.step(_click(obs, desc="Next month"))
    assert find(obs, text="November 2024") is not None
    add_event(env.phone, "Unique lunch", datetime(2024, 11, 6, 12), datetime(2024, 11, 6, 13), location="Deli")
    obs = env.observe()
    i = next(i for i, e in enumerate(obs.elements) if (e.content_description or "").startswith("November 6,"))
    obs = env.step(_idx(i))
    assert env.phone.location == "calendar/day"
    assert find(obs, text="Unique lunch") is not None
    obs = env.step(_click(obs, text="Unique lunch"))
    assert env.phone.location == "calendar/edit"
    assert obs.elements[find(obs, resource_id="event_location")].text == "Deli"
    obs = env.step(_click(obs, resource_id="event_start_time"))
    assert env.phone.dialog is not None and env.phone.dialog.name == "time_picker"
    obs = env.step(_click(obs, text="Cancel"))
    obs = env.step(_click(obs, desc="Delete"))
    assert env.phone.dialog is not None and env.phone.dialog.name == "confirm"
    env.step(_click(env.observe(), text="Delete"))
    assert not event_by_title(env.phone, "Unique lunch") and env.phone.location == "calendar/day"


def test_new_event_validation_and_search() -> None:
    env = _env()
    obs = env.step(_click(env.observe(), desc="New event"))
    obs = env.step(_click(obs, desc="Save"))
    assert env.phone.toast == "Title cannot be empty" and env.phone.location == "calendar/edit"
    i = find(obs, resource_id="event_title")
    act(env, "input_text", index=i, text="Kite festival")
    env.step(_click(env.observe(), desc="Save"))
    ev = event_by_title(env.phone, "Kite festival")
    assert len(ev) == 1 and from_ms(ev[0]["dtstart"]) == datetime(2024, 10, 15, 10, 0)
    obs = env.step(_click(env.observe(), desc="Search"))
    act(env, "input_text", index=find(obs, resource_id="search_src_text"), text="kite")
    obs = env.observe()
    rows = [e for e in obs.elements if (e.resource_id or "").endswith("search_result")]
    assert len(rows) == 1 and "Kite festival" in (rows[0].text or "")


def test_day_list_scrolls_with_offscreen_rows_absent() -> None:
    env = _env()
    d = date(2024, 10, 22)
    for h in range(6, 22):
        add_event(env.phone, f"Slot {h:02d}", datetime(2024, 10, 22, h), datetime(2024, 10, 22, h, 30))
    env.phone.push("day", day=d.isoformat())
    obs = env.observe()
    assert find(obs, text="Slot 06") is not None and find(obs, text="Slot 21") is None
    obs = env.step(_scroll())
    assert find(obs, text="Slot 21") is not None or find(obs, text="Slot 06") is None


def _click(obs, **criteria):
    from droidverify.tasks.oracle_utils import click

    a = click(obs, **criteria)
    assert a is not None, criteria
    return a


def _idx(i: int):
    from droidverify.actions.model import Action

    return Action(action_type="click", index=i)


def _scroll():
    from droidverify.actions.model import Action

    return Action(action_type="scroll", direction="down")


# ---- read-then-edit, bulk edits with look-alikes, questions comparing events -------------------------
NEW_ACTIONS = ["calendar_resolve_overlap", "calendar_swap_event_slots", "calendar_delete_sessions_after",
               "calendar_all_day_to_timed", "calendar_fill_missing_locations", "calendar_event_on_birthday",
               "calendar_move_day_events", "calendar_rename_all_occurrences"]


@pytest.mark.parametrize("name", NEW_ACTIONS)
def test_new_actions_solved_on_unseen_params(name: str) -> None:
    for seed in (1000, 1003):
        task = registry.get_template(name).instantiate(seed)
        env, _ = run_oracle(task, seed)
        assert env.is_successful() == 1.0, (name, seed)


def _fresh(name: str, seed: int = 2):
    task = registry.get_template(name).instantiate(seed)
    return task, fresh(task, seed)


def test_resolve_overlap_near_misses() -> None:
    task, env = _solved("calendar_resolve_overlap")
    p = task.params
    assert task.is_successful(env.phone) == 1.0
    snap = env.phone.snapshot()
    _move(env.phone, p["second"], timedelta(minutes=15))
    assert task.is_successful(env.phone) == 0.0  # a gap after the first one, not right after it
    env.phone.restore(snap)
    _move(env.phone, p["first"], timedelta(minutes=-30))
    assert task.is_successful(env.phone) == 0.0  # the first event was touched
    env.phone.restore(snap)
    ev = _only_row(env.phone, p["second"])
    env.phone.execute("UPDATE events SET dtend=? WHERE _id=?", (ev["dtend"] + 30 * 60_000, ev["_id"]))
    assert task.is_successful(env.phone) == 0.0  # longer than before


def test_swap_slots_near_misses() -> None:
    task, env = _solved("calendar_swap_event_slots")
    p = task.params
    assert task.is_successful(env.phone) == 1.0
    a, b = _only_row(env.phone, p["first"]), _only_row(env.phone, p["second"])
    snap = env.phone.snapshot()
    env.phone.execute("UPDATE events SET dtend=? WHERE _id=?", (a["dtstart"] + (b["dtend"] - b["dtstart"]), a["_id"]))
    if a["dtend"] - a["dtstart"] != b["dtend"] - b["dtstart"]:
        assert task.is_successful(env.phone) == 0.0  # moved the start only, kept its own length
    env.phone.restore(snap)
    task2, env2 = _fresh("calendar_swap_event_slots", 1)  # swapping the titles instead of the times
    p2 = task2.params
    a2, b2 = _only_row(env2.phone, p2["first"]), _only_row(env2.phone, p2["second"])
    env2.phone.execute("UPDATE events SET title=? WHERE _id=?", (p2["second"], a2["_id"]))
    env2.phone.execute("UPDATE events SET title=? WHERE _id=?", (p2["first"], b2["_id"]))
    assert task2.is_successful(env2.phone) == 0.0
    assert task2.is_successful(fresh(task2, 1).phone) == 0.0


def test_delete_sessions_after_near_misses() -> None:
    task, env = _fresh("calendar_delete_sessions_after")
    p = task.params
    cutoff = to_ms(datetime.combine(date.fromisoformat(p["date"]) + timedelta(days=1), datetime.min.time()))
    snap = env.phone.snapshot()
    env.phone.execute("DELETE FROM events WHERE title=? AND dtstart >= ?", (p["title"], cutoff))
    assert task.is_successful(env.phone) == 1.0
    env.phone.execute("DELETE FROM events WHERE title=?", (p["title"] + " social",))
    assert task.is_successful(env.phone) == 0.0  # the look-alike went too
    env.phone.restore(snap)
    env.phone.execute("DELETE FROM events WHERE title=? AND dtstart >= ?", (p["title"], cutoff - 86_400_000))
    assert task.is_successful(env.phone) == 0.0  # the last session itself was deleted
    env.phone.restore(snap)
    later = [r for r in event_by_title(env.phone, p["title"]) if r["dtstart"] >= cutoff]
    env.phone.execute("DELETE FROM events WHERE _id=?", (later[0]["_id"],))
    assert task.is_successful(env.phone) == 0.0  # one later session left


def test_all_day_to_timed_near_misses() -> None:
    task, env = _solved("calendar_all_day_to_timed")
    p = task.params
    assert task.is_successful(env.phone) == 1.0
    rows = event_by_title(env.phone, p["title"])
    assert [r["allDay"] for r in rows] == [0, 1]  # the one a week later stays all-day
    snap = env.phone.snapshot()
    env.phone.execute("UPDATE events SET dtend=? WHERE _id=?", (rows[0]["dtend"] + 15 * 60_000, rows[0]["_id"]))
    assert task.is_successful(env.phone) == 0.0  # ends a quarter late
    env.phone.restore(snap)
    env.phone.execute("UPDATE events SET allDay=0 WHERE _id=?", (rows[1]["_id"],))
    assert task.is_successful(env.phone) == 0.0  # the other one changed as well


def test_fill_missing_locations_near_misses() -> None:
    task, env = _fresh("calendar_fill_missing_locations")
    p = task.params
    snap = env.phone.snapshot()
    env.phone.execute("UPDATE events SET eventLocation=? WHERE title=? AND eventLocation=''", (p["location"], p["title"]))
    assert task.is_successful(env.phone) == 1.0
    env.phone.execute("UPDATE events SET eventLocation=? WHERE title=?", (p["location"], p["title"] + " (cancelled)"))
    assert task.is_successful(env.phone) == 0.0  # the look-alike got a place too
    env.phone.restore(snap)
    env.phone.execute("UPDATE events SET eventLocation=? WHERE title=?", (p["location"], p["title"]))
    assert task.is_successful(env.phone) == 0.0  # overwrote the sessions that had a place
    env.phone.restore(snap)
    blank = [r for r in event_by_title(env.phone, p["title"]) if not r["eventLocation"]]
    env.phone.execute("UPDATE events SET eventLocation=? WHERE _id=?", (p["location"], blank[0]["_id"]))
    assert task.is_successful(env.phone) == 0.0  # only one filled in


def test_event_on_birthday_near_misses() -> None:
    task, env = _solved("calendar_event_on_birthday")
    p = task.params
    assert task.is_successful(env.phone) == 1.0
    ev = _only_row(env.phone, p["title"])
    snap = env.phone.snapshot()
    shift = to_ms(datetime.fromisoformat(p["other_date"] + "T00:00")) - to_ms(datetime.fromisoformat(p["date"] + "T00:00"))
    if shift:
        env.phone.execute("UPDATE events SET dtstart=dtstart+?, dtend=dtend+? WHERE _id=?", (shift, shift, ev["_id"]))
        assert task.is_successful(env.phone) == 0.0  # on the other person's birthday
        env.phone.restore(snap)
    add_event(env.phone, p["title"], from_ms(ev["dtstart"]), from_ms(ev["dtend"]))
    assert task.is_successful(env.phone) == 0.0  # two copies
    env.phone.restore(snap)
    env.phone.execute("DELETE FROM events WHERE title=?", (f"{p['who']}'s birthday",))
    assert task.is_successful(env.phone) == 0.0  # the birthday itself was removed


def test_move_day_events_near_misses() -> None:
    task, env = _solved("calendar_move_day_events")
    p = task.params
    assert task.is_successful(env.phone) == 1.0
    assert not events_on(env.phone, date.fromisoformat(p["date"]))
    snap = env.phone.snapshot()
    _move(env.phone, p["titles"][1], timedelta(days=-(date.fromisoformat(p["new_date"]) -
                                                       date.fromisoformat(p["date"])).days))
    assert task.is_successful(env.phone) == 0.0  # one left behind
    env.phone.restore(snap)
    _move(env.phone, p["titles"][0], timedelta(hours=1))
    assert task.is_successful(env.phone) == 0.0  # moved, but not at the same time
    env.phone.restore(snap)
    _move(env.phone, "Breakfast with Sam", timedelta(days=1))
    assert task.is_successful(env.phone) == 0.0  # the next day's event was moved too


def test_rename_all_occurrences_near_misses() -> None:
    task, env = _fresh("calendar_rename_all_occurrences")
    p = task.params
    snap = env.phone.snapshot()
    env.phone.execute("UPDATE events SET title=? WHERE title=?", (p["new_title"], p["title"]))
    assert task.is_successful(env.phone) == 1.0
    env.phone.restore(snap)
    env.phone.execute("UPDATE events SET title=? WHERE title LIKE ?", (p["new_title"], p["title"] + "%"))
    assert task.is_successful(env.phone) == 0.0  # the sign-up look-alikes were renamed too
    env.phone.restore(snap)
    first = event_by_title(env.phone, p["title"])[0]
    env.phone.execute("UPDATE events SET title=? WHERE _id=?", (p["new_title"], first["_id"]))
    assert task.is_successful(env.phone) == 0.0  # only the first one


def _gap_answers(p: dict) -> tuple[str, str]:
    return f"{p['gap']} minutes", str(p["gap"] + 15)


@pytest.mark.parametrize("name", ["calendar_query_overlapping_event", "calendar_query_gap_between_events",
                                  "calendar_query_free_day", "calendar_query_event_at_location"])
def test_new_query_answers(name: str) -> None:
    for seed in (0, 3, 1001):
        task, env = _fresh(name, seed)
        p = task.params
        if name == "calendar_query_overlapping_event":
            good, bads = p["clash"], [p["before"], p["after"], f"{p['clash']} and {p['before']}"]
        elif name == "calendar_query_gap_between_events":
            good, bad = _gap_answers(p)
            bads = [bad, f"{p['gap']} or {p['gap'] + 15} minutes", "none"]
        elif name == "calendar_query_free_day":
            days = task.template.days(p)
            free = days[p["free"]]
            other = days[(p["free"] + 1) % 5]
            good = f"{free:%B} {free.day}"
            bads = [f"{other:%B} {other.day}", f"{free:%B} {free.day} or {other:%B} {other.day}"]
            assert not events_on(env.phone, free) and all(events_on(env.phone, d) for d in days if d != free)
        else:
            good, bads = p["title"], [p["decoy"], f"{p['title']} or {p['decoy']}"]
        assert task.is_successful(env.phone, good) == 1.0, (name, seed)
        assert task.is_successful(env.phone, f"It's {good}.") == 1.0, (name, seed)
        for bad in bads:
            assert task.is_successful(env.phone, bad) == 0.0, (name, seed, bad)
        assert task.is_successful(env.phone, None) == 0.0
