"""Calendar app and tasks: oracle solves, do-nothing fails, checker success + near misses, screens."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from simhelpers import act, fresh, oracle_trace, run_oracle

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


# ---- round 3 templates -------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 3, 1001])
def test_query_next_occurrence_answers(seed: int) -> None:
    task, env = _fresh("calendar_query_next_occurrence", seed)
    p = task.params
    today = env.phone.now.date()
    nxt, later = today + timedelta(days=p["next"]), today + timedelta(days=p["later"])
    sooner = today + timedelta(days=p["next"] - 1)  # the cancelled look-alike
    assert task.is_successful(env.phone, f"{nxt:%B} {nxt.day}") == 1.0
    assert task.is_successful(env.phone, f"It's on {nxt.isoformat()}.") == 1.0
    for bad in (f"{later:%B} {later.day}", f"{sooner:%B} {sooner.day}",
                f"{nxt:%B} {nxt.day} or {later:%B} {later.day}", None):
        assert task.is_successful(env.phone, bad) == 0.0, bad


@pytest.mark.parametrize("seed", [0, 3, 1001])
def test_query_booked_minutes_answers(seed: int) -> None:
    task, env = _fresh("calendar_query_booked_minutes", seed)
    total = sum(p for p in task.params["durations"])
    timed = [e for e in events_on(env.phone, date.fromisoformat(task.params["date"])) if not e["allDay"]]
    assert total == sum((e["dtend"] - e["dtstart"]) // 60000 for e in timed)
    assert task.is_successful(env.phone, f"{total} minutes") == 1.0
    for bad in (f"{total + 15} minutes", f"{total + 1440} minutes", f"{total} or {total + 30}", None):
        assert task.is_successful(env.phone, bad) == 0.0, bad


def test_query_slot_free_answers() -> None:
    seen = set()
    for seed in range(8):
        task, env = _fresh("calendar_query_slot_free", seed)
        p = task.params
        good, bad = ("No", "Yes") if p["busy"] else ("Yes", "No")
        seen.add(p["busy"])
        d = date.fromisoformat(p["date"])
        lo = to_ms(datetime.combine(d, datetime.min.time()).replace(hour=p["hour"]))
        hi = lo + p["duration"] * 60000
        clash = [e for e in events_on(env.phone, d) if e["dtstart"] < hi and e["dtend"] > lo]
        assert bool(clash) == p["busy"]
        assert task.is_successful(env.phone, good) == 1.0
        assert task.is_successful(env.phone, f"{good}, it is.") == 1.0
        assert task.is_successful(env.phone, bad) == 0.0
        assert task.is_successful(env.phone, "yes or no") == 0.0
        assert task.is_successful(env.phone, None) == 0.0
    assert seen == {True, False}


@pytest.mark.parametrize("seed", [0, 3, 1001])
def test_query_birthdays_in_month_answers(seed: int) -> None:
    task, env = _fresh("calendar_query_birthdays_in_month", seed)
    p = task.params
    n = sum(1 for r in env.phone.query("SELECT dtstart FROM events WHERE title LIKE '%''s birthday'")
            if (from_ms(r["dtstart"]).year, from_ms(r["dtstart"]).month) == (p["year"], p["month"]))
    assert n == p["count"]
    assert task.is_successful(env.phone, str(n)) == 1.0
    assert task.is_successful(env.phone, f"You have {n} birthdays.") == 1.0
    for bad in (str(n + 1), str(n + 2), f"{n} or {n + 1}", None):  # + the neighbours / the presents event
        assert task.is_successful(env.phone, bad) == 0.0, bad


def test_create_weekly_all_day_near_misses() -> None:
    task, env = _solved("calendar_create_weekly_all_day")
    p = task.params
    rows = event_by_title(env.phone, p["title"])
    assert len(rows) == p["count"] + 1 and all(r["allDay"] for r in rows)
    assert task.is_successful(env.phone) == 1.0
    snap = env.phone.snapshot()
    env.phone.execute("DELETE FROM events WHERE _id=?", (rows[-1]["_id"],))
    assert task.is_successful(env.phone) == 0.0  # one week missing
    env.phone.restore(snap)
    last = rows[-1]
    env.phone.execute("UPDATE events SET dtstart=dtstart+?, dtend=dtend+? WHERE _id=?",
                      (86_400_000, 86_400_000, last["_id"]))
    assert task.is_successful(env.phone) == 0.0  # on the wrong weekday
    env.phone.restore(snap)
    add_event(env.phone, p["title"], from_ms(last["dtstart"]), from_ms(last["dtstart"]), all_day=True)
    assert task.is_successful(env.phone) == 0.0  # a duplicate
    env.phone.restore(snap)
    env.phone.execute("UPDATE events SET allDay=0, dtend=dtstart+3600000 WHERE _id=?", (last["_id"],))
    assert task.is_successful(env.phone) == 0.0  # timed, not all-day
    env.phone.restore(snap)
    env.phone.execute("DELETE FROM events WHERE _id=?", (rows[0]["_id"],))  # the earlier one, outside the range
    assert task.is_successful(env.phone) == 0.0


def test_merge_events_near_misses() -> None:
    task, env = _solved("calendar_merge_events")
    p = task.params
    assert task.is_successful(env.phone) == 1.0
    assert not event_by_title(env.phone, p["second"])
    snap = env.phone.snapshot()
    _move(env.phone, p["first"], timedelta(minutes=15))
    assert task.is_successful(env.phone) == 0.0  # start moved too
    env.phone.restore(snap)
    env.phone.execute("UPDATE events SET dtend=dtend-900000 WHERE title=?", (p["first"],))
    assert task.is_successful(env.phone) == 0.0  # ends too early
    env.phone.restore(snap)
    first = _only_row(env.phone, p["first"])
    add_event(env.phone, p["second"], from_ms(first["dtend"]) - timedelta(minutes=30), from_ms(first["dtend"]))
    assert task.is_successful(env.phone) == 0.0  # the second event is still there
    fresh_task, fresh_env = _fresh("calendar_merge_events", 1)
    fresh_env.phone.execute("DELETE FROM events WHERE title=?", (fresh_task.params["second"],))
    assert fresh_task.is_successful(fresh_env.phone) == 0.0  # deleted, but not extended


def test_delete_events_at_venue_near_misses() -> None:
    task, env = _fresh("calendar_delete_events_at_venue")
    p = task.params
    v = p["venue"]
    snap = env.phone.snapshot()
    env.phone.execute("DELETE FROM events WHERE eventLocation=?", (v,))
    assert task.is_successful(env.phone) == 1.0
    env.phone.execute("DELETE FROM events WHERE description LIKE ?", (f"%{v}%",))
    assert task.is_successful(env.phone) == 0.0  # the moved event (it only mentions the venue) went too
    env.phone.restore(snap)
    first = env.phone.query("SELECT _id FROM events WHERE eventLocation=? ORDER BY _id", (v,))[0]
    env.phone.execute("DELETE FROM events WHERE _id=?", (first["_id"],))
    assert task.is_successful(env.phone) == 0.0  # one left
    env.phone.restore(snap)
    env.phone.execute("UPDATE events SET eventLocation='' WHERE eventLocation=?", (v,))
    assert task.is_successful(env.phone) == 0.0  # emptied the place instead of deleting


def test_move_to_free_day_near_misses() -> None:
    task, env = _solved("calendar_move_to_free_day")
    p = task.params
    days = task.template.days(p)
    free = days[p["free"]]
    ev = _only_row(env.phone, p["title"])
    assert from_ms(ev["dtstart"]).date() == free
    assert task.is_successful(env.phone) == 1.0
    snap = env.phone.snapshot()
    other = days[(p["free"] + 1) % 5]
    _move(env.phone, p["title"], timedelta(days=(other - free).days))
    assert task.is_successful(env.phone) == 0.0  # a busy day
    env.phone.restore(snap)
    _move(env.phone, p["title"], timedelta(minutes=30))
    assert task.is_successful(env.phone) == 0.0  # time changed
    env.phone.restore(snap)
    add_event(env.phone, p["title"], from_ms(ev["dtstart"]) - timedelta(days=(free - date.fromisoformat(p["date"])).days),
              from_ms(ev["dtend"]) - timedelta(days=(free - date.fromisoformat(p["date"])).days))
    assert task.is_successful(env.phone) == 0.0  # copied instead of moved


def test_remove_duplicate_events_near_misses() -> None:
    task, env = _fresh("calendar_remove_duplicate_events")
    p = task.params
    d = date.fromisoformat(p["date"])
    dups = [p["titles"][i] for i in p["dups"]]
    single = p["titles"][min(set(range(4)) - set(p["dups"]))]
    snap = env.phone.snapshot()

    def drop_one(title: str, last: bool = True) -> None:
        rows = event_by_title(env.phone, title)
        env.phone.execute("DELETE FROM events WHERE _id=?", (rows[-1 if last else 0]["_id"],))

    for t in dups:
        drop_one(t, last=False)  # either copy may go
    assert task.is_successful(env.phone) == 1.0
    env.phone.restore(snap)
    drop_one(dups[0])
    assert task.is_successful(env.phone) == 0.0  # one pair still doubled
    drop_one(dups[1])
    drop_one(single)
    assert task.is_successful(env.phone) == 0.0  # the same title at another time is not a copy
    env.phone.restore(snap)
    for t in dups:
        env.phone.execute("DELETE FROM events WHERE title=?", (t,))
    assert task.is_successful(env.phone) == 0.0  # both copies deleted
    assert len(events_on(env.phone, d)) == 3


def test_split_event_near_misses() -> None:
    task, env = _solved("calendar_split_event")
    p = task.params
    assert task.is_successful(env.phone) == 1.0
    orig, part2 = _only_row(env.phone, p["title"]), _only_row(env.phone, p["new_title"])
    mid = to_ms(datetime.fromisoformat(p["mid"]))
    assert orig["dtend"] == mid == part2["dtstart"]
    assert part2["dtend"] == orig["dtstart"] + p["duration"] * 60000
    snap = env.phone.snapshot()
    env.phone.execute("UPDATE events SET dtend=dtend+1800000 WHERE _id=?", (part2["_id"],))
    assert task.is_successful(env.phone) == 0.0  # the second part runs too long
    env.phone.restore(snap)
    env.phone.execute("UPDATE events SET dtend=? WHERE _id=?", (part2["dtend"], orig["_id"]))
    assert task.is_successful(env.phone) == 0.0  # the original was not shortened
    env.phone.restore(snap)
    env.phone.execute("UPDATE events SET title=? WHERE _id=?", (p["title"], part2["_id"]))
    assert task.is_successful(env.phone) == 0.0  # the new part has the old title
    env.phone.restore(snap)
    add_event(env.phone, p["new_title"], from_ms(part2["dtstart"]), from_ms(part2["dtend"]))
    assert task.is_successful(env.phone) == 0.0  # two second parts


def test_use_location_of_event_near_misses() -> None:
    task, env = _fresh("calendar_use_location_of_event")
    p = task.params
    snap = env.phone.snapshot()
    env.phone.execute("UPDATE events SET eventLocation=? WHERE title=?", (p["place"], p["title"]))
    assert task.is_successful(env.phone) == 1.0
    env.phone.restore(snap)
    env.phone.execute("UPDATE events SET eventLocation=? WHERE title=?", (p["decoy_place"], p["title"]))
    assert task.is_successful(env.phone) == 0.0  # the rehearsal's place
    env.phone.restore(snap)
    env.phone.execute("UPDATE events SET eventLocation=? WHERE title=?", (p["place"], p["title"]))
    env.phone.execute("UPDATE events SET eventLocation='' WHERE title=?", (p["other"],))
    assert task.is_successful(env.phone) == 0.0  # moved the place instead of copying it


def test_add_after_event_near_misses() -> None:
    task, env = _solved("calendar_add_after_event")
    p = task.params
    assert task.is_successful(env.phone) == 1.0
    new = _only_row(env.phone, p["title"])
    anchor = next(r for r in event_by_title(env.phone, p["anchor"])
                  if from_ms(r["dtstart"]).date() == date.fromisoformat(p["date"]))
    assert new["dtstart"] == anchor["dtend"] and new["dtend"] - new["dtstart"] == p["minutes"] * 60000
    snap = env.phone.snapshot()
    _move(env.phone, p["title"], timedelta(minutes=15))
    assert task.is_successful(env.phone) == 0.0  # not right at the end
    env.phone.restore(snap)
    env.phone.execute("UPDATE events SET dtend=dtend+900000 WHERE _id=?", (new["_id"],))
    assert task.is_successful(env.phone) == 0.0  # too long
    env.phone.restore(snap)
    env.phone.execute("UPDATE events SET dtend=dtend+900000 WHERE _id=?", (anchor["_id"],))
    assert task.is_successful(env.phone) == 0.0  # the anchor was changed to fit
    env.phone.restore(snap)
    env.phone.execute("UPDATE events SET eventLocation='Room 301' WHERE _id=?", (new["_id"],))
    assert task.is_successful(env.phone) == 1.0  # a place on the new event is fine


def _open_row_steps(env: SimEnv, ev) -> int:
    """Drive ``open_event_row`` to ``ev``'s form; never lets it open another event."""
    from droidverify.tasks.calendar import open_event_row

    obs = env.observe()
    for n in range(60):
        a = open_event_row(env.phone, obs, ev)
        if a is None:
            return n
        obs = env.step(a)
        scr = env.phone.screen
        assert not (scr.name == "edit" and scr.args.get("event_id") not in (None, ev["_id"])), "opened a twin"
    raise AssertionError("open_event_row did not reach the event")


def test_open_event_row_same_title_same_day() -> None:
    # Regression: rows were matched by title and day only, so the first twin opened again and again.
    env = _env()
    add_event(env.phone, "Twin talk", datetime(2024, 10, 22, 9), datetime(2024, 10, 22, 10))
    add_event(env.phone, "Twin talk", datetime(2024, 10, 22, 15), datetime(2024, 10, 22, 16))
    snap = env.phone.snapshot()
    for ev in event_by_title(env.phone, "Twin talk"):
        env.phone.restore(snap)
        assert _open_row_steps(env, ev) <= 5


def test_open_event_row_identical_twins_and_scrolling() -> None:
    # Rows identical on screen (title, day, time) and a long result list: the intended one still opens.
    env = _env()
    for d in range(1, 13):
        add_event(env.phone, "Twin talk", datetime(2024, 11, d, 9), datetime(2024, 11, d, 10))
    for k in range(3):
        add_event(env.phone, "Twin talk", datetime(2024, 11, 30, 9), datetime(2024, 11, 30, 10),
                  description=f"copy {k}")
    snap = env.phone.snapshot()
    rows = event_by_title(env.phone, "Twin talk")
    for ev in [r for r in rows if r["description"]] + [rows[0]]:
        env.phone.restore(snap)
        _open_row_steps(env, ev)


def test_open_event_row_gone_raises() -> None:
    from droidverify.errors import TaskError
    from droidverify.tasks.calendar import open_event_row

    env = _env()
    add_event(env.phone, "Twin talk", datetime(2024, 10, 22, 9), datetime(2024, 10, 22, 10))
    ev = event_by_title(env.phone, "Twin talk")[0]
    env.phone.execute("DELETE FROM events WHERE _id=?", (ev["_id"],))
    with pytest.raises(TaskError):
        open_event_row(env.phone, env.observe(), ev)


def test_copy_event_oracle_with_same_day_extras() -> None:
    # Two stray copies on the same day (other times) used to send the oracle round in circles to the step limit.
    task = registry.get_template("calendar_copy_event_to_date").instantiate(1)
    env = SimEnv(task, 1)
    env.reset()
    p, nd = task.params, date.fromisoformat(task.params["new_date"])
    for h in (6, 21):
        add_event(env.phone, p["title"], datetime.combine(nd, datetime.min.time()).replace(hour=h),
                  datetime.combine(nd, datetime.min.time()).replace(hour=h, minute=30), location=p["location"])
    obs = env.observe()
    for _ in range(task.max_steps):
        a = task.oracle_action(env.phone, obs)
        if a.action_type == "status":
            break
        obs = env.step(a)
    assert env.is_successful() == 1.0


# ---- oracles read a value on screen before they type it ----------------------------------------------
def _oracle_path(name: str, seed: int) -> list[tuple[str, object, SimEnv]]:
    """(the goal and every text on screen, the oracle's action, the screen) per step of its solving path."""
    return [(s.shown, s.action, s.screen) for s in oracle_trace(name, seed, step_answer=False)]


def _unread(name: str, seed: int) -> list[str]:
    """Texts the oracle types or answers that no earlier screen (nor the goal) showed."""
    seen: list[str] = []
    out = []
    for shown, a, _ in _oracle_path(name, seed):
        seen.append(shown.lower())
        if a.action_type in ("input_text", "answer") and a.text and not any(a.text.lower() in s for s in seen):
            out.append(a.text)
    return out


@pytest.mark.parametrize("name", ["calendar_delete_events_at_venue", "calendar_remove_duplicate_events",
                                  "calendar_swap_event_slots", "calendar_use_location_of_event",
                                  "calendar_copy_event_to_date", "calendar_move_day_events"])
def test_oracle_types_only_what_it_was_shown(name: str) -> None:
    # Regression: these typed titles, places or times straight from the parameters.
    for seed in (0, 1, 2, 1000):
        assert _unread(name, seed) == [], (name, seed)


def test_add_after_event_oracle_reads_the_anchor_end_first() -> None:
    from droidverify.tasks.calendar import day_row

    for seed in (0, 1, 2):
        task = registry.get_template("calendar_add_after_event").instantiate(seed)
        env = fresh(task, seed)
        d = date.fromisoformat(task.params["date"])
        anchor = next(r for r in events_on(env.phone, d) if r["title"] == task.params["anchor"])
        row = day_row(env.phone, anchor)
        path = _oracle_path("calendar_add_after_event", seed)
        first = next(k for k, (_, a, _) in enumerate(path) if a.action_type == "input_text")
        assert any(row in shown for shown, _, _ in path[:first]), seed  # its row shows when it ends


def test_event_on_birthday_oracle_opens_the_birthday_first() -> None:
    # Regression: it typed the day into the date picker having seen only "Isla's b…" in the month grid.
    for seed in (0, 1, 2):
        task = registry.get_template("calendar_event_on_birthday").instantiate(seed)
        env = fresh(task, seed)
        (bday,) = event_by_title(env.phone, f"{task.params['who']}'s birthday")
        path = _oracle_path("calendar_event_on_birthday", seed)
        opened = next(k for k, (_, _, scr) in enumerate(path)
                      if scr is not None and scr.name == "edit" and scr.args.get("event_id") == bday["_id"])
        new_form = next(k for k, (_, _, scr) in enumerate(path)
                        if scr is not None and scr.name == "edit" and scr.args.get("event_id") is None)
        assert opened < new_form, seed


# ---- round 4: running late, the odd one out, partly done series, if-then, by property, derived dates and lengths;
# questions that rank, order, count days and check a series ---------------------------------------------------
ROUND4 = ["calendar_push_back_later_events", "calendar_fix_odd_series_time", "calendar_complete_daily_series",
          "calendar_move_if_clash", "calendar_delete_longest_on_day", "calendar_reschedule_days_after",
          "calendar_delete_by_booking_code", "calendar_match_duration_of_event", "calendar_query_longest_session",
          "calendar_query_days_between_events", "calendar_query_series_complete", "calendar_query_events_in_order"]


def _shift_id(p: Phone, ev_id: int, delta: timedelta) -> None:
    ms = int(delta.total_seconds() * 1000)
    p.execute("UPDATE events SET dtstart=dtstart+?, dtend=dtend+? WHERE _id=?", (ms, ms, ev_id))


def _detour_new_form(env: SimEnv) -> None:
    env.phone.open_app("calendar")
    act(env, "click", index=find(env.observe(), desc="New event"))
    act(env, "input_text", index=find(env.observe(), resource_id="event_title"), text="Scratch")


def _detour_search(env: SimEnv) -> None:
    env.phone.open_app("calendar")
    act(env, "click", index=find(env.observe(), desc="Search"))
    act(env, "input_text", index=find(env.observe(), resource_id="search_src_text"), text="a")


def _detour_other_form_picker(env: SimEnv) -> None:
    env.phone.open_app("calendar")
    act(env, "click", index=find(env.observe(), desc="Search"))
    act(env, "input_text", index=find(env.observe(), resource_id="search_src_text"), text="Team standup")
    act(env, "click", index=find(env.observe(), resource_id="search_result"))
    act(env, "click", index=find(env.observe(), resource_id="event_start_time"))


def _detour_next_month(env: SimEnv) -> None:
    env.phone.open_app("calendar")
    act(env, "click", index=find(env.observe(), desc="Next month"))
    act(env, "click", index=find(env.observe(), desc="Next month"))


ROUND4_DETOURS = [_detour_new_form, _detour_search, _detour_other_form_picker, _detour_next_month]


@pytest.mark.parametrize("name", ROUND4)
def test_round4_oracle_finishes_from_mid_task_screens(name: str) -> None:
    tmpl = registry.get_template(name)
    for k, detour in enumerate(ROUND4_DETOURS):
        for seed in (10 + k, 1010 + k):
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
            assert env.is_successful() == 1.0, (name, detour.__name__, seed)


def test_push_back_later_events_near_misses() -> None:
    task, env = _solved("calendar_push_back_later_events")
    p = task.params
    d = date.fromisoformat(p["date"])
    assert task.is_successful(env.phone) == 1.0
    timed = [r for r in events_on(env.phone, d) if not r["allDay"]]
    k = p["titles"].index(p["title"])
    assert [r["title"] for r in timed] == p["titles"]
    assert from_ms(timed[k]["dtstart"]) == datetime.combine(d, datetime.min.time()).replace(
        hour=p["hours"][k], minute=p["minute_marks"][k]) + timedelta(minutes=p["minutes"])
    snap = env.phone.snapshot()
    _shift_id(env.phone, timed[k]["_id"], -timedelta(minutes=p["minutes"]))
    assert task.is_successful(env.phone) == 0.0  # only the later ones moved
    env.phone.restore(snap)
    _shift_id(env.phone, timed[-1]["_id"], -timedelta(minutes=p["minutes"]))
    assert task.is_successful(env.phone) == 0.0  # the last one not moved
    env.phone.restore(snap)
    _shift_id(env.phone, timed[0]["_id"], timedelta(minutes=p["minutes"]))
    assert task.is_successful(env.phone) == 0.0  # an earlier one moved too
    env.phone.restore(snap)
    env.phone.execute("UPDATE events SET dtend=dtend+900000 WHERE _id=?", (timed[-1]["_id"],))
    assert task.is_successful(env.phone) == 0.0  # a length changed
    env.phone.restore(snap)
    _shift_id(env.phone, event_by_title(env.phone, p["all_day"])[0]["_id"], timedelta(days=1))
    assert task.is_successful(env.phone) == 0.0  # the all-day event moved


def test_fix_odd_series_time_near_misses() -> None:
    task, env = _fresh("calendar_fix_odd_series_time")
    p = task.params
    rows = event_by_title(env.phone, p["title"])
    odd = [r for r in rows if from_ms(r["dtstart"]).hour != p["hour"] or from_ms(r["dtstart"]).minute]
    assert len(rows) == p["sessions"] and len(odd) == 1
    odd = odd[0]
    right = from_ms(odd["dtstart"]).replace(hour=p["hour"], minute=0)
    snap = env.phone.snapshot()

    def put(ev_id: int, start: datetime, minutes: int) -> None:
        env.phone.execute("UPDATE events SET dtstart=?, dtend=? WHERE _id=?",
                          (to_ms(start), to_ms(start + timedelta(minutes=minutes)), ev_id))

    put(odd["_id"], right, p["duration"])
    assert task.is_successful(env.phone) == 1.0
    env.phone.restore(snap)
    put(odd["_id"], right, p["duration"] + 30)
    assert task.is_successful(env.phone) == 0.0  # right start, wrong end
    env.phone.restore(snap)
    put(odd["_id"], right + timedelta(days=1), p["duration"])
    assert task.is_successful(env.phone) == 0.0  # right time, another day
    env.phone.restore(snap)
    put(odd["_id"], right, p["duration"])
    social = event_by_title(env.phone, f"{p['title']} social")[0]
    put(social["_id"], from_ms(social["dtstart"]).replace(hour=p["hour"]), p["duration"])
    assert task.is_successful(env.phone) == 0.0  # the look-alike was "fixed" too
    env.phone.restore(snap)
    env.phone.execute("DELETE FROM events WHERE _id=?", (odd["_id"],))
    assert task.is_successful(env.phone) == 0.0  # deleted instead of fixed


def test_complete_daily_series_near_misses() -> None:
    task, env = _solved("calendar_complete_daily_series")
    p = task.params
    tmpl = task.template
    assert task.is_successful(env.phone) == 1.0
    rows = event_by_title(env.phone, p["title"])
    days = tmpl.days(p)
    in_range = [r for r in rows if from_ms(r["dtstart"]).date() in days]
    assert sorted(from_ms(r["dtstart"]).date() for r in in_range) == days
    snap = env.phone.snapshot()
    new = max(rows, key=lambda r: r["_id"])
    env.phone.execute("DELETE FROM events WHERE _id=?", (new["_id"],))
    assert task.is_successful(env.phone) == 0.0  # a day still missing
    env.phone.restore(snap)
    present = days[p["present"][0]]
    add_event(env.phone, p["title"], *tmpl.slot(p, present))
    assert task.is_successful(env.phone) == 0.0  # a day that had it now has two
    env.phone.restore(snap)
    env.phone.execute("UPDATE events SET dtend=dtend+900000 WHERE _id=?", (new["_id"],))
    assert task.is_successful(env.phone) == 0.0  # the new one ends late
    env.phone.restore(snap)
    old = min(rows, key=lambda r: r["_id"])
    env.phone.execute("DELETE FROM events WHERE _id=?", (old["_id"],))
    assert task.is_successful(env.phone) == 0.0  # an existing one removed
    fresh_task, fresh_env = _fresh("calendar_complete_daily_series", 3)
    fp = fresh_task.params
    for d in fresh_task.template.days(fp):  # every day gets one, including those that had it
        add_event(fresh_env.phone, fp["title"], *fresh_task.template.slot(fp, d))
    assert fresh_task.is_successful(fresh_env.phone) == 0.0


def _clash_edit(env: SimEnv, p: dict, ev_id: int, move: bool) -> None:
    if move:
        _shift_id(env.phone, ev_id, date.fromisoformat(p["new_date"]) - date.fromisoformat(p["date"]))
    else:
        env.phone.execute("UPDATE events SET eventLocation=? WHERE _id=?", (p["location"], ev_id))


def test_move_if_clash_both_branches() -> None:
    seen = set()
    for seed in range(12):
        task, env = _fresh("calendar_move_if_clash", seed)
        p = task.params
        seen.add(p["clash"])
        (ev,) = event_by_title(env.phone, p["title"])
        right = bool(p["clash"])  # move when something overlaps, else set the place
        snap = env.phone.snapshot()
        _clash_edit(env, p, ev["_id"], right)
        assert task.is_successful(env.phone) == 1.0, seed
        env.phone.restore(snap)
        _clash_edit(env, p, ev["_id"], not right)
        assert task.is_successful(env.phone) == 0.0, seed  # the other branch
        env.phone.restore(snap)
        _clash_edit(env, p, ev["_id"], right)
        _clash_edit(env, p, ev["_id"], not right)
        assert task.is_successful(env.phone) == 0.0, seed  # both
        env.phone.restore(snap)
        _clash_edit(env, p, ev["_id"], right)
        _shift_id(env.phone, ev["_id"], timedelta(hours=1))
        assert task.is_successful(env.phone) == 0.0, seed  # the time changed too
    assert seen == {True, False}


def test_delete_longest_on_day_near_misses() -> None:
    task, env = _fresh("calendar_delete_longest_on_day")
    p = task.params
    d = date.fromisoformat(p["date"])
    timed = [r for r in events_on(env.phone, d) if not r["allDay"]]
    longest = max(timed, key=lambda r: r["dtend"] - r["dtstart"])
    second = sorted(timed, key=lambda r: r["dtend"] - r["dtstart"])[-2]
    snap = env.phone.snapshot()
    env.phone.execute("DELETE FROM events WHERE _id=?", (longest["_id"],))
    assert task.is_successful(env.phone) == 1.0
    env.phone.restore(snap)
    env.phone.execute("DELETE FROM events WHERE _id=?", (second["_id"],))
    assert task.is_successful(env.phone) == 0.0  # the second longest
    env.phone.restore(snap)
    env.phone.execute("DELETE FROM events WHERE title=?", (longest["title"],))
    assert task.is_successful(env.phone) == 0.0  # its namesake on another week went too
    env.phone.restore(snap)
    env.phone.execute("DELETE FROM events WHERE title=?", (p["all_day"],))
    assert task.is_successful(env.phone) == 0.0  # the all-day event (24 hours) is not it


def test_reschedule_days_after_near_misses() -> None:
    task, env = _fresh("calendar_reschedule_days_after")
    p = task.params
    (ev,) = event_by_title(env.phone, p["title"])
    want = date.fromisoformat(p["anchor_date"]) + timedelta(days=p["days"])
    shift = want - from_ms(ev["dtstart"]).date()
    snap = env.phone.snapshot()
    _shift_id(env.phone, ev["_id"], shift)
    assert task.is_successful(env.phone) == 1.0
    env.phone.restore(snap)
    _shift_id(env.phone, ev["_id"], shift + timedelta(days=p["prep"]))
    assert task.is_successful(env.phone) == 0.0  # counted from the prep call
    env.phone.restore(snap)
    _shift_id(env.phone, ev["_id"], shift + timedelta(hours=1))
    assert task.is_successful(env.phone) == 0.0  # the time changed
    env.phone.restore(snap)
    _shift_id(env.phone, ev["_id"], shift)
    (anchor,) = event_by_title(env.phone, p["anchor"])
    _shift_id(env.phone, anchor["_id"], timedelta(days=1))
    assert task.is_successful(env.phone) == 0.0  # the anchor moved too
    env.phone.restore(snap)
    add_event(env.phone, p["title"], from_ms(ev["dtstart"]) + shift, from_ms(ev["dtend"]) + shift)
    assert task.is_successful(env.phone) == 0.0  # copied, not moved


def test_delete_by_booking_code_near_misses() -> None:
    task, env = _fresh("calendar_delete_by_booking_code")
    p = task.params
    snap = env.phone.snapshot()

    def drop(code: str) -> None:
        env.phone.execute("DELETE FROM events WHERE description=?", (f"Booking reference {code}.",))

    drop(p["code"])
    assert task.is_successful(env.phone) == 1.0
    env.phone.restore(snap)
    drop(p["decoy_code"])
    assert task.is_successful(env.phone) == 0.0  # the twin with the look-alike reference
    env.phone.restore(snap)
    env.phone.execute("DELETE FROM events WHERE title=?", (p["title"],))
    assert task.is_successful(env.phone) == 0.0  # both events of that title
    env.phone.restore(snap)
    env.phone.execute("UPDATE events SET description='' WHERE description=?", (f"Booking reference {p['code']}.",))
    assert task.is_successful(env.phone) == 0.0  # the reference removed, the event kept


def test_match_duration_of_event_near_misses() -> None:
    task, env = _fresh("calendar_match_duration_of_event")
    p = task.params
    (ev,) = event_by_title(env.phone, p["title"])
    mine, theirs, rehearsal = p["durations"]
    snap = env.phone.snapshot()

    def end_after(minutes: int) -> None:
        env.phone.execute("UPDATE events SET dtend=dtstart+? WHERE _id=?", (minutes * 60000, ev["_id"]))

    end_after(theirs)
    assert task.is_successful(env.phone) == 1.0
    env.phone.restore(snap)
    end_after(rehearsal)
    assert task.is_successful(env.phone) == 0.0  # the rehearsal's length
    env.phone.restore(snap)
    end_after(theirs)
    _shift_id(env.phone, ev["_id"], timedelta(minutes=30))
    assert task.is_successful(env.phone) == 0.0  # right length, start moved
    env.phone.restore(snap)
    (other,) = event_by_title(env.phone, p["other"])
    env.phone.execute("UPDATE events SET dtend=dtstart+? WHERE _id=?", (mine * 60000, other["_id"]))
    assert task.is_successful(env.phone) == 0.0  # the other one changed to match instead


@pytest.mark.parametrize("seed", [0, 3, 1001])
def test_query_longest_session_answers(seed: int) -> None:
    task, env = _fresh("calendar_query_longest_session", seed)
    p = task.params
    rows = event_by_title(env.phone, p["title"])
    best = max(rows, key=lambda r: r["dtend"] - r["dtstart"])
    d = from_ms(best["dtstart"]).date()
    assert task.is_successful(env.phone, d.strftime("%B %-d")) == 1.0
    assert task.is_successful(env.phone, f"The longest one is on {d.strftime('%A, %B %-d')}.") == 1.0
    social = from_ms(event_by_title(env.phone, f"{p['title']} social")[0]["dtstart"]).date()
    other = next(from_ms(r["dtstart"]).date() for r in rows if r["_id"] != best["_id"])
    for bad in (social.strftime("%B %-d"), other.strftime("%B %-d"),
                f"{d.strftime('%B %-d')} or {other.strftime('%B %-d')}", None):
        assert task.is_successful(env.phone, bad) == 0.0, bad


@pytest.mark.parametrize("seed", [0, 3, 1001])
def test_query_days_between_events_answers(seed: int) -> None:
    task, env = _fresh("calendar_query_days_between_events", seed)
    p = task.params
    (a,) = event_by_title(env.phone, p["first"])
    (b,) = event_by_title(env.phone, p["second"])
    n = (from_ms(b["dtstart"]).date() - from_ms(a["dtstart"]).date()).days
    assert n == p["apart"]
    assert task.is_successful(env.phone, str(n)) == 1.0
    assert task.is_successful(env.phone, f"{n} days") == 1.0
    for bad in (str(n - 1), str(n + 1), f"{n} or {n + 1} days", None):  # off by one (counting both ends)
        assert task.is_successful(env.phone, bad) == 0.0, bad


def test_query_series_complete_answers() -> None:
    seen = set()
    for seed in range(10):
        task, env = _fresh("calendar_query_series_complete", seed)
        p = task.params
        first = date.fromisoformat(p["first"])
        want_days = {first + timedelta(days=7 * w) for w in range(p["weeks"])}
        have = {from_ms(r["dtstart"]).date() for r in event_by_title(env.phone, p["title"])}
        complete = want_days <= have
        assert complete == p["complete"], seed
        seen.add(complete)
        good, bad = ("yes", "no") if complete else ("no", "yes")
        assert task.is_successful(env.phone, good) == 1.0
        assert task.is_successful(env.phone, f"{good.capitalize()}.") == 1.0
        assert task.is_successful(env.phone, bad) == 0.0
        assert task.is_successful(env.phone, "yes or no") == 0.0
        assert task.is_successful(env.phone, None) == 0.0
    assert seen == {True, False}


@pytest.mark.parametrize("seed", [0, 3, 1001])
def test_query_events_in_order_answers(seed: int) -> None:
    task, env = _fresh("calendar_query_events_in_order", seed)
    p = task.params
    rows = [event_by_title(env.phone, p[k])[0] for k in "abc"]
    order = [r["title"] for r in sorted(rows, key=lambda r: r["dtstart"])]
    assert task.is_successful(env.phone, ", ".join(order)) == 1.0
    assert task.is_successful(env.phone, f"First {order[0]}, then {order[1]}, and last {order[2]}.") == 1.0
    for bad in (", ".join(reversed(order)), ", ".join([order[1], order[0], order[2]]),
                ", ".join([order[0], order[2], order[1]]), ", ".join(order[:2]),
                ", ".join(order + [order[0]]), None):
        assert task.is_successful(env.phone, bad) == 0.0, bad


# ---- round 5: previous/next-day arrows, "Go to today", a packed day list that scrolls, the date picker's previous
# month, multi-day end dates, today's date and the time now, partly done moves, a date read in a description --------
ROUND5 = ["calendar_move_event_days_earlier", "calendar_lengthen_multi_day_event",
          "calendar_start_multi_day_later_keep_end", "calendar_finish_moving_series", "calendar_delete_past_sessions",
          "calendar_clear_rest_of_today", "calendar_move_back_to_noted_date", "calendar_query_first_event_day_after",
          "calendar_query_days_since_last", "calendar_query_multi_day_length", "calendar_query_yesterday_at_time",
          "calendar_query_day_over_at"]
TODAY = date(2024, 10, 15)


def _detour_previous_months(env: SimEnv) -> None:
    env.phone.open_app("calendar")
    act(env, "click", index=find(env.observe(), desc="Previous month"))
    act(env, "click", index=find(env.observe(), desc="Previous month"))


def _detour_other_day_list(env: SimEnv) -> None:
    env.phone.open_app("calendar")
    obs = env.observe()
    cell = next(i for i, el in enumerate(obs.elements)
                if (el.content_description or "") == "October 3" or (el.content_description or "").startswith("October 3,"))
    act(env, "click", index=cell)
    act(env, "click", index=find(env.observe(), desc="Next day"))


ROUND5_DETOURS = [*ROUND4_DETOURS, _detour_previous_months, _detour_other_day_list]


@pytest.mark.parametrize("name", ROUND5)
def test_round5_solved_on_unseen_params(name: str) -> None:
    for seed in range(1000, 1005):
        task = registry.get_template(name).instantiate(seed)
        env, steps = run_oracle(task, seed)
        assert env.is_successful() == 1.0, (name, seed)
        assert steps <= task.max_steps


@pytest.mark.parametrize("name", ROUND5)
def test_round5_oracle_finishes_from_mid_task_screens(name: str) -> None:
    tmpl = registry.get_template(name)
    for k, detour in enumerate(ROUND5_DETOURS):
        for seed in (20 + k, 1020 + k):
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
            assert env.is_successful() == 1.0, (name, detour.__name__, seed)


@pytest.mark.parametrize("name", ["calendar_move_back_to_noted_date", "calendar_start_multi_day_later_keep_end",
                                  "calendar_query_first_event_day_after", "calendar_query_yesterday_at_time",
                                  "calendar_query_day_over_at"])
def test_round5_oracle_types_only_what_it_was_shown(name: str) -> None:
    # ``_unread`` for operations and queries alike: the answer is stepped too before the check
    for seed in (0, 1, 2, 1000):
        task = registry.get_template(name).instantiate(seed)
        env = SimEnv(task, seed)
        obs = env.reset()
        seen = [task.goal.lower()]
        unread = []
        for _ in range(task.max_steps):
            a = task.oracle_action(env.phone, obs)
            seen.append(" | ".join(f"{e.text or ''} {e.content_description or ''}" for e in obs.elements).lower())
            if a.action_type in ("input_text", "answer") and a.text and not any(a.text.lower() in x for x in seen):
                unread.append(a.text)
            if a.action_type == "status":
                break
            obs = env.step(a)
            if a.action_type == "answer":
                break
        assert env.is_successful() == 1.0, (name, seed)
        assert unread == [], (name, seed)


def test_round5_oracles_use_the_new_controls() -> None:
    def clicked(name: str, seed: int) -> set[str]:
        out = set()
        task = registry.get_template(name).instantiate(seed)
        env = SimEnv(task, seed)
        obs = env.reset()
        for _ in range(task.max_steps):
            a = task.oracle_action(env.phone, obs)
            if a.action_type == "click":
                out.add(obs.elements[a.index].content_description or obs.elements[a.index].resource_id or "")
            out.add(a.action_type)
            if a.action_type in ("status", "answer"):
                break
            obs = env.step(a)
        return out

    assert "Next day" in clicked("calendar_query_first_event_day_after", 0)
    assert "Previous day" in clicked("calendar_query_yesterday_at_time", 0)
    assert "Previous month" in clicked("calendar_move_event_days_earlier", 0)  # in the date picker
    assert "scroll" in clicked("calendar_query_day_over_at", 0)
    task = registry.get_template("calendar_clear_rest_of_today").instantiate(3)
    env = SimEnv(task, 3)
    env.reset()
    _detour_previous_months(env)
    a = task.oracle_action(env.phone, env.observe())
    assert env.observe().elements[a.index].content_description == "Go to today"


def _row(p: Phone, title: str):
    (r,) = event_by_title(p, title)
    return r


def test_move_event_days_earlier_near_misses() -> None:
    task, env = _solved("calendar_move_event_days_earlier")
    p = task.params
    ev = _row(env.phone, p["title"])
    assert from_ms(ev["dtstart"]).date() == date.fromisoformat(p["date"]) - timedelta(days=p["days"])
    snap = env.phone.snapshot()
    _shift_id(env.phone, ev["_id"], timedelta(days=1))  # one day off
    assert task.is_successful(env.phone) == 0.0
    env.phone.restore(snap)
    _shift_id(env.phone, ev["_id"], timedelta(minutes=30))  # the time changed too
    assert task.is_successful(env.phone) == 0.0
    env.phone.restore(snap)
    _shift_id(env.phone, _row(env.phone, f"{p['title']} follow-up")["_id"], -timedelta(days=p["days"]))
    assert task.is_successful(env.phone) == 0.0  # the look-alike moved as well
    env.phone.restore(snap)
    add_event(env.phone, p["title"], from_ms(ev["dtstart"]), from_ms(ev["dtend"]))
    assert task.is_successful(env.phone) == 0.0  # a copy


def test_lengthen_multi_day_event_near_misses() -> None:
    task, env = _solved("calendar_lengthen_multi_day_event")
    p = task.params
    ev = _row(env.phone, p["title"])
    s = TODAY + timedelta(days=p["start"])
    assert (from_ms(ev["dtend"]).date() - s).days == p["length"] + p["days"] and from_ms(ev["dtstart"]).date() == s
    snap = env.phone.snapshot()
    env.phone.execute("UPDATE events SET dtend=dtend-86400000 WHERE _id=?", (ev["_id"],))
    assert task.is_successful(env.phone) == 0.0  # a day short
    env.phone.restore(snap)
    _shift_id(env.phone, ev["_id"], timedelta(days=p["days"]))  # moved whole, not lengthened
    assert task.is_successful(env.phone) == 0.0
    env.phone.restore(snap)
    env.phone.execute("UPDATE events SET dtend=dtend+86400000 WHERE title=?", (p["other"],))
    assert task.is_successful(env.phone) == 0.0  # the other trip changed


def test_start_multi_day_later_keep_end_near_misses() -> None:
    task, env = _solved("calendar_start_multi_day_later_keep_end")
    p = task.params
    ev = _row(env.phone, p["title"])
    assert from_ms(ev["dtstart"]).date() == date.fromisoformat(p["new_start"])
    assert from_ms(ev["dtend"]).date() == TODAY + timedelta(days=p["start"] + p["length"])
    late = date.fromisoformat(p["new_start"]) - (TODAY + timedelta(days=p["start"]))
    snap = env.phone.snapshot()
    env.phone.execute("UPDATE events SET dtend=dtend+? WHERE _id=?", (late.days * 86_400_000, ev["_id"]))
    assert task.is_successful(env.phone) == 0.0  # the end dragged along by the start picker
    env.phone.restore(snap)
    env.phone.execute("UPDATE events SET dtstart=dtstart-86400000 WHERE _id=?", (ev["_id"],))
    assert task.is_successful(env.phone) == 0.0  # starts a day early
    env.phone.restore(snap)
    env.phone.execute("UPDATE events SET allDay=0 WHERE _id=?", (ev["_id"],))
    assert task.is_successful(env.phone) == 0.0


def test_finish_moving_series_near_misses() -> None:
    task, env = _solved("calendar_finish_moving_series")
    p = task.params
    first = date.fromisoformat(p["first"])
    rows = event_by_title(env.phone, p["title"])
    days = sorted(from_ms(r["dtstart"]).date() for r in rows)
    assert days == [first - timedelta(days=7)] + [first + timedelta(days=7 * w + p["shift"]) for w in range(p["weeks"])]
    snap = env.phone.snapshot()
    unmoved = next(w for w in range(p["weeks"]) if w not in p["moved"])
    r = next(r for r in rows if from_ms(r["dtstart"]).date() == first + timedelta(days=7 * unmoved + p["shift"]))
    _shift_id(env.phone, r["_id"], -timedelta(days=p["shift"]))
    assert task.is_successful(env.phone) == 0.0  # one left on the old day
    env.phone.restore(snap)
    _shift_id(env.phone, rows[0]["_id"], timedelta(days=p["shift"]))
    assert task.is_successful(env.phone) == 0.0  # the session before the change moved too
    env.phone.restore(snap)
    r = next(r for r in rows if from_ms(r["dtstart"]).date() == first + timedelta(days=7 * p["moved"][0] + p["shift"]))
    _shift_id(env.phone, r["_id"], timedelta(days=p["shift"]))
    assert task.is_successful(env.phone) == 0.0  # an already moved one moved again
    env.phone.restore(snap)
    _shift_id(env.phone, rows[-1]["_id"], timedelta(hours=1))
    assert task.is_successful(env.phone) == 0.0  # the time changed


def test_delete_past_sessions_near_misses() -> None:
    task, env = _fresh("calendar_delete_past_sessions")
    p = task.params
    rows = event_by_title(env.phone, p["title"])
    past = [r for r in rows if from_ms(r["dtstart"]).date() < TODAY]
    future = [r for r in rows if from_ms(r["dtstart"]).date() > TODAY]
    assert past and future and len(past) + len(future) == len(rows)
    snap = env.phone.snapshot()
    for r in past:
        env.phone.execute("DELETE FROM events WHERE _id=?", (r["_id"],))
    assert task.is_successful(env.phone) == 1.0
    env.phone.execute("DELETE FROM events WHERE _id=?", (future[0]["_id"],))
    assert task.is_successful(env.phone) == 0.0  # an upcoming one deleted
    env.phone.restore(snap)
    for r in past[1:]:
        env.phone.execute("DELETE FROM events WHERE _id=?", (r["_id"],))
    assert task.is_successful(env.phone) == 0.0  # one past session left
    env.phone.restore(snap)
    for r in past:
        env.phone.execute("DELETE FROM events WHERE _id=?", (r["_id"],))
    env.phone.execute("DELETE FROM events WHERE title=?", (f"{p['title']} social",))
    assert task.is_successful(env.phone) == 0.0  # the look-alike deleted too


def test_clear_rest_of_today_near_misses() -> None:
    task, env = _fresh("calendar_clear_rest_of_today")
    p = task.params
    _early, ongoing, *later = p["titles"]
    snap = env.phone.snapshot()

    def delete_today(*titles: str) -> None:
        for t in titles:
            env.phone.execute("DELETE FROM events WHERE title=? AND dtstart<?",
                              (t, to_ms(datetime(2024, 10, 16))))

    delete_today(*later)
    assert task.is_successful(env.phone) == 1.0
    delete_today(ongoing)
    assert task.is_successful(env.phone) == 0.0  # it had started already
    env.phone.restore(snap)
    delete_today(*later[1:])
    assert task.is_successful(env.phone) == 0.0  # one later event left
    env.phone.restore(snap)
    env.phone.execute("DELETE FROM events WHERE title=?", (later[0],))  # tomorrow's copy too
    delete_today(*later[1:])
    assert task.is_successful(env.phone) == 0.0
    env.phone.restore(snap)
    delete_today(*later, p["all_day"])
    assert task.is_successful(env.phone) == 0.0  # the all-day event deleted


def test_move_back_to_noted_date_near_misses() -> None:
    task, env = _solved("calendar_move_back_to_noted_date")
    p = task.params
    ev = _row(env.phone, p["title"])
    assert from_ms(ev["dtstart"]).date() == TODAY + timedelta(days=p["orig_day"])
    assert from_ms(ev["dtstart"]).date().strftime("%b %-d") in ev["description"]
    snap = env.phone.snapshot()
    _shift_id(env.phone, ev["_id"], timedelta(days=p["other_orig_day"] - p["orig_day"]))
    assert task.is_successful(env.phone) == 0.0  # the look-alike's noted date
    env.phone.restore(snap)
    _shift_id(env.phone, ev["_id"], timedelta(minutes=30))
    assert task.is_successful(env.phone) == 0.0  # the time changed
    env.phone.restore(snap)
    env.phone.execute("UPDATE events SET description='' WHERE _id=?", (ev["_id"],))
    assert task.is_successful(env.phone) == 0.0  # the note removed


@pytest.mark.parametrize("seed", [0, 3, 1001])
def test_query_first_event_day_after_answers(seed: int) -> None:
    task, env = _fresh("calendar_query_first_event_day_after", seed)
    p = task.params
    d = from_ms(_row(env.phone, p["title"])["dtstart"]).date()
    nxt = [r["title"] for r in events_on(env.phone, d + timedelta(days=1))]
    assert nxt[0] == p["others"][0]
    assert task.is_successful(env.phone, nxt[0]) == 1.0
    assert task.is_successful(env.phone, f"It's {nxt[0]}.") == 1.0
    same_day = events_on(env.phone, d)[0]["title"]
    before = events_on(env.phone, d - timedelta(days=1))[0]["title"]
    for bad in (nxt[1], same_day, before, p["title"], f"{nxt[0]} or {nxt[1]}", None):
        assert task.is_successful(env.phone, bad) == 0.0, bad


@pytest.mark.parametrize("seed", [0, 3, 1001])
def test_query_days_since_last_answers(seed: int) -> None:
    task, env = _fresh("calendar_query_days_since_last", seed)
    p = task.params
    past = [from_ms(r["dtstart"]).date() for r in event_by_title(env.phone, p["title"])
            if from_ms(r["dtstart"]).date() < TODAY]
    n = (TODAY - max(past)).days
    assert n == p["ago"]
    assert task.is_successful(env.phone, str(n)) == 1.0
    assert task.is_successful(env.phone, f"{n} days ago") == 1.0
    for bad in (str(n - 1), str(n + 1), str((TODAY - min(past)).days), str(p["ahead"]) if p["ahead"] != n else "x",
                f"{n} or {n + 1}", None):
        assert task.is_successful(env.phone, bad) == 0.0, bad


@pytest.mark.parametrize("seed", [0, 3, 1001])
def test_query_multi_day_length_answers(seed: int) -> None:
    task, env = _fresh("calendar_query_multi_day_length", seed)
    p = task.params
    ev = _row(env.phone, p["title"])
    n = (from_ms(ev["dtend"]) - from_ms(ev["dtstart"])).days  # all-day ends are exclusive
    assert n == p["length"]
    assert task.is_successful(env.phone, str(n)) == 1.0
    assert task.is_successful(env.phone, f"{n} days") == 1.0
    for bad in (str(n - 1), str(n + 1), str(p["other_length"]), None):  # nights, one too many, the other trip
        assert task.is_successful(env.phone, bad) == 0.0, bad


@pytest.mark.parametrize("seed", [0, 3, 1001])
def test_query_yesterday_at_time_answers(seed: int) -> None:
    task, env = _fresh("calendar_query_yesterday_at_time", seed)
    p = task.params
    at_time = datetime(2024, 10, 14, p["hour"], p["minute"])
    hits = [r["title"] for r in events_on(env.phone, date(2024, 10, 14))
            if from_ms(r["dtstart"]) <= at_time < from_ms(r["dtend"])]
    assert hits == [p["titles"][p["target"]]]
    assert task.is_successful(env.phone, hits[0]) == 1.0
    today = [r["title"] for r in events_on(env.phone, TODAY) if r["title"] in p["titles"]]
    neighbour = p["titles"][(p["target"] + 1) % 4]
    for bad in (*today, p["titles"][5], p["titles"][4], neighbour, f"{hits[0]} and {neighbour}", None):
        assert task.is_successful(env.phone, bad) == 0.0, bad


@pytest.mark.parametrize("seed", [0, 3, 1001])
def test_query_day_over_at_answers(seed: int) -> None:
    task, env = _fresh("calendar_query_day_over_at", seed)
    p = task.params
    rows = events_on(env.phone, date.fromisoformat(p["date"]))
    assert len(rows) == 13
    last = max(from_ms(r["dtend"]) for r in rows)
    assert rows[-1]["dtend"] < to_ms(last)  # the event that starts last is not the one that ends last
    h12 = f"{last.hour % 12 or 12}:{last.minute:02d} PM"
    assert task.is_successful(env.phone, h12) == 1.0
    assert task.is_successful(env.phone, f"{last.hour}:{last.minute:02d}") == 1.0
    e = from_ms(rows[-1]["dtend"])
    s = from_ms(rows[-1]["dtstart"])
    for bad in (f"{e.hour % 12 or 12}:{e.minute:02d} PM", f"{s.hour % 12 or 12}:{s.minute:02d} PM",
                h12.replace("PM", "AM"), None):
        assert task.is_successful(env.phone, bad) == 0.0, bad
