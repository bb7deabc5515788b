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
