"""Calendar tasks: create (timed, all-day, multi-day, copies)/reschedule/edit/delete events and questions
about the schedule (times, places, durations, counts).

Set-ups insert the events a goal names (titles chosen so no seeded event shares them) and remove
anything that would already satisfy the goal. Checkers read the ``events`` table.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import date, datetime, timedelta
from typing import Any, ClassVar

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim.apps.calendar import KEY, add_event, event_by_title, events_on, fmt_day, time_range
from droidverify.env.sim.phone import DEFAULT_NOW, Phone
from droidverify.env.sim.timeutil import MONTHS, WEEKDAYS, day_label, from_ms, to_ms
from droidverify.errors import TaskError
from droidverify.tasks.base import TaskTemplate
from droidverify.tasks.helpers import (
    BACK,
    COMPLETE,
    NUMBER,
    answer,
    answer_matches,
    baseline_rows,
    click,
    click_or_scroll,
    dismiss_popups,
    find,
    navigate,
    normalize_answer,
    scroll_toward,
    type_into,
)
from droidverify.tasks.helpers.oracle import look_first as oracle_look_first
from droidverify.tasks.registry import register_task

TODAY = DEFAULT_NOW.date()
TITLES = ("Dinner with Sarah", "Parent-teacher meeting", "Team offsite planning", "Guitar lesson",
          "Call with the landlord", "Tax consultation", "Wedding cake tasting", "Museum visit",
          "Running club", "Photography workshop", "Farmers market trip", "Hackathon kickoff")
LOCATIONS = ("Blue Door Cafe", "Room 301", "Central Park Boathouse", "City Hall", "Oak Street Library",
             "Harbor View Restaurant", "Studio 5", "Community Center")
DESCRIPTIONS = ("Bring the printed agenda.", "Remember to confirm the booking.", "Wear comfortable shoes.",
                "Pick up flowers on the way.")
PEOPLE = ("Dr. Patel", "Dr. Nguyen", "Dr. Alvarez", "Ms. Kim", "Mr. Okafor", "Dr. Schmidt")
KINDS = ("dentist", "eye doctor", "dermatologist", "physiotherapist", "lawyer", "accountant")


def at(d: date, hour: int, minute: int = 0) -> datetime:
    return datetime.combine(d, datetime.min.time()).replace(hour=hour, minute=minute)


def time_text(hour: int, minute: int) -> str:
    return f"{hour % 12 or 12}:{minute:02d} {'AM' if hour < 12 else 'PM'}"


def date_text(d: date) -> str:
    return f"{WEEKDAYS[d.weekday()]}, {MONTHS[d.month - 1]} {d.day}, {d.year}"


def future_day(rng: random.Random, lo: int = 1, hi: int = 30) -> date:
    return TODAY + timedelta(days=rng.randint(lo, hi))


def time_answers(dt: datetime) -> list[str]:
    return [time_text(dt.hour, dt.minute), f"{dt.hour:02d}:{dt.minute:02d}"]


def date_answers(d: date) -> list[str]:
    return [f"{MONTHS[d.month - 1]} {d.day}", f"{MONTHS[d.month - 1][:3]} {d.day}", d.isoformat(),
            f"{d.day} {MONTHS[d.month - 1]}", f"{d.month}/{d.day}"]


def matches_any(got: str | None, options: list[str]) -> bool:
    return any(answer_matches(got, o) for o in options)


# ---- oracle helpers ---------------------------------------------------------------------------
TO_SEARCH = [("main", {"desc": "Search"}), ("search", None)]


def on_form_of(phone: Phone, title: str | None) -> bool:
    """On the edit form of the event titled ``title`` (``None``: the new-event form)."""
    scr = phone.screen
    if phone.foreground != KEY or scr is None or scr.name != "edit":
        return False
    ev_id = scr.args.get("event_id")
    if title is None:
        return ev_id is None
    row = phone.query_one("SELECT title FROM events WHERE _id=?", (ev_id,)) if ev_id is not None else None
    return row is not None and row["title"] == title


def to_search_result(phone: Phone, obs: Observation, query: str) -> Action | None:
    """Next step toward the search screen showing results for ``query``; None once they show."""
    step = navigate(phone, obs, KEY, TO_SEARCH)
    if step is not None:
        return step
    if phone.dialog is not None or phone.menu_open:
        return BACK
    scr = phone.screen
    assert scr is not None
    if scr.fields.get("query", "") != query:
        return type_into(obs, query, resource_id="search_src_text")
    return None


def open_event(phone: Phone, obs: Observation, title: str) -> Action | None:
    """Next step toward the form of the event titled ``title``; None once it is open."""
    if on_form_of(phone, title):
        return None
    return to_search_result(phone, obs, title) or click_or_scroll(phone, obs, text=title, resource_id="search_result")


def open_new_form(phone: Phone, obs: Observation) -> Action | None:
    if on_form_of(phone, None):
        return None
    return navigate(phone, obs, KEY, [("main", {"desc": "New event"}), ("edit", None)]) or BACK


def to_day(phone: Phone, obs: Observation, d: date) -> Action | None:
    """Next step toward the day screen of ``d``; None once there."""
    scr = phone.screen
    if phone.foreground == KEY and scr is not None and scr.name == "day" and phone.dialog is None \
            and not phone.menu_open:
        return None if scr.args.get("day") == d.isoformat() else BACK
    step = navigate(phone, obs, KEY, [("main", None)])
    if step is not None:
        return step
    if phone.dialog is not None or phone.menu_open:
        return BACK
    scr = phone.screen
    assert scr is not None
    y, m = scr.state.get("month", (phone.now.year, phone.now.month))
    label = f"{MONTHS[d.month - 1]} {d.day}"
    for i, el in enumerate(obs.elements):
        cd = el.content_description or ""
        if (cd == label or cd.startswith(label + ",")) and (int(y), int(m)) == (d.year, d.month):
            return Action(action_type="click", index=i)
    delta = (d.year * 12 + d.month) - (int(y) * 12 + int(m))
    return click(obs, desc="Next month" if delta > 0 else "Previous month")


def fill_form(phone: Phone, obs: Observation, want: dict[str, Any]) -> Action:
    """Next step filling the open event form with ``want`` (title, location, description, all_day,
    start, end as datetimes); clicks Save once everything matches."""
    scr = phone.screen
    assert scr is not None
    dlg = phone.dialog
    state = scr.state
    if dlg is not None and dlg.name in ("date_picker", "time_picker") and dlg.app == KEY:
        which = dlg.data.get("args", {}).get("which", "start")
        if which not in want:
            return click(obs, text="Cancel") or BACK  # a picker this task has no value for (a detour)
        target: datetime = want[which]
        d = dlg.data
        if dlg.name == "date_picker":
            y, m, dd = int(d["year"]), int(d["month"]), int(d["day"])
            delta = (target.year * 12 + target.month) - (y * 12 + m)
            if delta:
                return click(obs, desc="Next month" if delta > 0 else "Previous month") or BACK
            if dd != target.day:
                return type_into(obs, str(target.day), resource_id="day") or BACK
            return click(obs, text="OK") or BACK
        f = d.get("fields", {})
        h24 = phone.uses_24h
        shown = target.hour if h24 else (target.hour % 12 or 12)
        if str(f.get("hour", "")).strip() != str(shown):
            return type_into(obs, str(shown), resource_id="hour") or BACK
        if not str(f.get("minute", "")).strip().isdigit() or int(f["minute"]) != target.minute:
            return type_into(obs, f"{target.minute:02d}", resource_id="minute") or BACK
        if not h24 and (int(d["hour"]) >= 12) != (target.hour >= 12):
            return click(obs, text="PM" if target.hour >= 12 else "AM") or BACK
        return click(obs, text="OK") or BACK
    if dlg is not None or phone.menu_open:
        return BACK
    for key, rid in (("title", "event_title"), ("location", "event_location"), ("description", "event_description")):
        if key in want and scr.fields.get(key, "") != want[key]:
            return type_into(obs, want[key], resource_id=rid) or BACK
    all_day = bool(want.get("all_day", False))
    if bool(state.get("all_day")) != all_day:
        return click(obs, resource_id="event_all_day_holder") or BACK
    start, end = datetime.fromisoformat(state["start"]), datetime.fromisoformat(state["end"])
    if "start" in want:
        if start.date() != want["start"].date():
            return click(obs, resource_id="event_start_date") or BACK
        if not all_day and (start.hour, start.minute) != (want["start"].hour, want["start"].minute):
            return click(obs, resource_id="event_start_time") or BACK
    if "end" in want:
        if end.date() != want["end"].date():
            return click(obs, resource_id="event_end_date") or BACK
        if not all_day and (end.hour, end.minute) != (want["end"].hour, want["end"].minute):
            return click(obs, resource_id="event_end_time") or BACK
    return click(obs, desc="Save") or BACK


def _row_summary(phone: Phone, ev: Any) -> str:
    """The start of ``ev``'s search-result summary: its day and its time range (as the phone shows times)."""
    return f"{day_label(from_ms(ev['dtstart']).date())} · {time_range(phone, ev)}"


def _row_matches(el: Any, title: str, summary: str) -> bool:
    parts = (el.text or "").split(" | ", 1)
    return (el.resource_id or "").endswith("search_result") and parts[0] == title and len(parts) == 2 \
        and (parts[1] == summary or parts[1].startswith(summary + " · "))


def _opens(phone: Phone, index: int, ev_id: int) -> bool:
    """Whether clicking element ``index`` opens the form of event ``ev_id`` (tried on a clone of the phone)."""
    from droidverify.env.sim.env import probe_action

    def opened(p: Phone) -> bool:
        scr = p.screen
        return scr is not None and scr.name == "edit" and scr.args.get("event_id") == ev_id

    return probe_action(phone, Action(action_type="click", index=index), opened)


def _row_of(phone: Phone, obs: Observation, ev: Any) -> int | None:
    """Index of the on-screen search row that opens ``ev``. Rows are told apart by day and time; rows
    identical on screen (same title, day, time and place) by which one opens ``ev``."""
    summary = _row_summary(phone, ev)
    hits = [i for i, el in enumerate(obs.elements) if _row_matches(el, ev["title"], summary)]
    if len(hits) <= 1:
        return hits[0] if hits else None
    return next((i for i in hits if _opens(phone, i, ev["_id"])), None)


def open_event_row(phone: Phone, obs: Observation, ev: Any) -> Action | None:
    """Next step toward the form of the event row ``ev`` when others share its title (found in the search
    results by its day and time); None once its form is open.

    Raises :class:`TaskError` when ``ev`` is gone or no search row opens it (else it would loop)."""
    scr = phone.screen
    if phone.foreground == KEY and scr is not None and scr.name == "edit" and scr.args.get("event_id") == ev["_id"]:
        return None
    ev = phone.query_one("SELECT * FROM events WHERE _id=?", (ev["_id"],))  # the row as it is now
    if ev is None:
        raise TaskError("oracle: the event to open no longer exists")
    step = to_search_result(phone, obs, ev["title"])
    if step is not None:
        return step
    i = _row_of(phone, obs, ev)
    if i is not None:
        return Action(action_type="click", index=i)
    direction = _scroll_to_row(phone, ev)
    if direction is None:
        raise TaskError(f"oracle: no search result opens event {ev['_id']} ({ev['title']!r})")
    return Action(action_type="scroll", direction=direction)


def _scroll_to_row(phone: Phone, ev: Any) -> str | None:
    """The scroll direction that brings a row opening ``ev`` on screen (a look-alike twin on
    screen does not count as found)."""
    from droidverify.env.sim.env import probe_scroll_on

    return probe_scroll_on(phone, lambda probe, obs: _row_of(probe, obs, ev) is not None)


def delete_event_row(phone: Phone, obs: Observation, ev: Any) -> Action:
    """Next step deleting the event row ``ev`` (an extra copy left by a detour)."""
    step = open_event_row(phone, obs, ev)
    if step is not None:
        return step
    dlg = phone.dialog
    if dlg is not None and dlg.name == "confirm":
        return click(obs, text="Delete") or BACK
    return BACK if dlg is not None else (click(obs, desc="Delete") or BACK)


def only_event(phone: Phone, title: str):  # -> sqlite3.Row | None
    rows = event_by_title(phone, title)
    return rows[0] if len(rows) == 1 else None


# ---- create -----------------------------------------------------------------------------------
class CreateTemplate(TaskTemplate):
    apps = ("Calendar",)
    with_location: ClassVar[bool] = False
    with_description: ClassVar[bool] = False

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = future_day(rng, 1, 40)
        hour = rng.randint(8, 19)
        minute = rng.choice((0, 15, 30, 45))
        dur = rng.choice((30, 60, 90, 120))
        start = at(d, hour, minute)
        end = start + timedelta(minutes=dur)
        p = {"title": rng.choice(TITLES), "date": d.isoformat(), "date_text": date_text(d),
             "start": start.isoformat(), "end": end.isoformat(), "start_text": time_text(hour, minute),
             "end_text": time_text(end.hour, end.minute)}
        if self.with_location:
            p["location"] = rng.choice(LOCATIONS)
        if self.with_description:
            p["description"] = rng.choice(DESCRIPTIONS)
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM events WHERE title=?", (params["title"],))

    def want(self, params: dict[str, Any]) -> dict[str, Any]:
        w = {"title": params["title"], "start": datetime.fromisoformat(params["start"]),
             "end": datetime.fromisoformat(params["end"])}
        for k in ("location", "description"):
            if k in params:
                w[k] = params[k]
        return w

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ev = only_event(phone, params["title"])
        if ev is None or ev["allDay"]:
            return 0.0
        ok = ev["dtstart"] == to_ms(datetime.fromisoformat(params["start"])) and \
            ev["dtend"] == to_ms(datetime.fromisoformat(params["end"]))
        for k, col in (("location", "eventLocation"), ("description", "description")):
            if k in params and (ev[col] or "").strip() != params[k]:
                ok = False
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return open_new_form(phone, obs) or fill_form(phone, obs, self.want(params))


@register_task
class CreateEvent(CreateTemplate):
    name = "calendar_create_event"
    complexity = 2
    optimal_steps = 16
    goal_template = ("In Simple Calendar Pro, create an event titled \"{title}\" on {date_text} "
                     "from {start_text} to {end_text}.")
    goal_phrasings = (
        "Could you put \"{title}\" in my calendar for {date_text}, {start_text} to {end_text}?",
        "Schedule \"{title}\" from {start_text} to {end_text} on {date_text} in Simple Calendar Pro.",
        "New calendar event \"{title}\": {date_text}, {start_text} to {end_text}.",
    )


@register_task
class CreateEventWithLocation(CreateTemplate):
    name = "calendar_create_event_with_location"
    complexity = 2
    optimal_steps = 17
    with_location = True
    goal_template = ("Add a calendar event \"{title}\" at {location} on {date_text}, "
                     "{start_text} to {end_text}.")
    goal_phrasings = (
        "Please schedule \"{title}\" on {date_text} from {start_text} until {end_text}; it's at {location}.",
        "Could you add \"{title}\" at {location} ({date_text}, {start_text} to {end_text}) to my calendar?",
        "Calendar: \"{title}\", {date_text}, {start_text}-{end_text}, at {location}.",
    )


@register_task
class CreateEventFull(CreateTemplate):
    name = "calendar_create_event_full"
    complexity = 3
    optimal_steps = 17
    with_location = with_description = True
    goal_template = ("Create a calendar event \"{title}\" on {date_text} from {start_text} to {end_text}, "
                     "location \"{location}\", description \"{description}\".")
    goal_phrasings = (
        "Please add \"{title}\" to my calendar on {date_text}, {start_text} to {end_text}, at \"{location}\", with the description \"{description}\".",
        "Could you schedule \"{title}\" at \"{location}\" for {date_text} from {start_text} to {end_text} and put \"{description}\" in its description?",
        "New event \"{title}\": {date_text}, {start_text} to {end_text}; location \"{location}\"; description \"{description}\".",
    )


@register_task
class CreateAllDayEvent(TaskTemplate):
    name = "calendar_create_all_day_event"
    apps = ("Calendar",)
    complexity = 2
    optimal_steps = 9
    goal_template = "In Simple Calendar Pro, add an all-day event \"{title}\" on {date_text}."
    goal_phrasings = (
        "Put \"{title}\" on my calendar as an all-day event on {date_text}.",
        "Could you mark {date_text} with an all-day event called \"{title}\"?",
        "All-day event \"{title}\" on {date_text}, in Simple Calendar Pro.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = future_day(rng, 1, 40)
        who = rng.choice(("Grandma", "Uncle Ben", "Aunt Rosa", "Coach Miller", "Jamie"))
        title = rng.choice((f"{who}'s anniversary", f"Visit {who}", "Company holiday", "Moving day"))
        return {"title": title, "date": d.isoformat(), "date_text": date_text(d)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM events WHERE title=?", (params["title"],))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ev = only_event(phone, params["title"])
        d = date.fromisoformat(params["date"])
        ok = ev is not None and ev["allDay"] == 1 and ev["dtstart"] == to_ms(at(d, 0)) and \
            ev["dtend"] == to_ms(at(d + timedelta(days=1), 0))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        d = at(date.fromisoformat(params["date"]), 0)
        return open_new_form(phone, obs) or fill_form(phone, obs, {"title": params["title"], "all_day": True,
                                                                    "start": d, "end": d})


# ---- edit existing ------------------------------------------------------------------------------
class ExistingTemplate(TaskTemplate):
    """Tasks about one event the set-up inserts (``title`` on ``date`` at ``hour:minute``)."""

    apps = ("Calendar",)

    def base_params(self, rng: random.Random) -> dict[str, Any]:
        d = future_day(rng, 1, 20)
        hour, minute = rng.randint(9, 17), rng.choice((0, 30))
        dur = rng.choice((30, 60, 90))
        return {"title": rng.choice(TITLES), "date": d.isoformat(), "date_text": date_text(d), "hour": hour,
                "minute": minute, "duration": dur, "location": rng.choice(LOCATIONS),
                "time_text": time_text(hour, minute)}

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return self.base_params(rng)

    def start(self, params: dict[str, Any]) -> datetime:
        return at(date.fromisoformat(params["date"]), params["hour"], params["minute"])

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM events WHERE title=?", (params["title"],))
        s = self.start(params)
        add_event(phone, params["title"], s, s + timedelta(minutes=params["duration"]),
                  location=params["location"], description="Added by you.")

    def current(self, phone: Phone, params: dict[str, Any]):  # -> Row | None
        return only_event(phone, params["title"])


@register_task
class RescheduleEvent(ExistingTemplate):
    name = "calendar_reschedule_event"
    complexity = 2
    optimal_steps = 9
    goal_template = "Move my \"{title}\" event to {new_date_text}, keeping the same time."
    goal_phrasings = (
        "Could you reschedule \"{title}\" to {new_date_text}? Same time as now.",
        "Push \"{title}\" in my calendar to {new_date_text}; don't change the time.",
        "\"{title}\" is now on {new_date_text} at the same time - please update the calendar.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base_params(rng)
        old = date.fromisoformat(p["date"])
        new = old + timedelta(days=rng.choice((-3, -2, -1, 1, 2, 3, 5, 7)))
        p.update(new_date=new.isoformat(), new_date_text=date_text(new))
        return p

    def target(self, params: dict[str, Any]) -> datetime:
        return at(date.fromisoformat(params["new_date"]), params["hour"], params["minute"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ev = self.current(phone, params)
        s = self.target(params)
        ok = ev is not None and ev["dtstart"] == to_ms(s) and ev["dtend"] == to_ms(s + timedelta(minutes=params["duration"]))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        s = self.target(params)
        return open_event(phone, obs, params["title"]) or fill_form(
            phone, obs, {"start": s, "end": s + timedelta(minutes=params["duration"])})


@register_task
class ChangeEventTime(ExistingTemplate):
    name = "calendar_change_event_time"
    complexity = 2
    optimal_steps = 10
    goal_template = ("Change the start time of \"{title}\" on {date_text} to {new_time_text}; "
                     "keep its length the same.")
    goal_phrasings = (
        "Could you make \"{title}\" on {date_text} start at {new_time_text} instead? It should last just as long.",
        "Start \"{title}\" ({date_text}) at {new_time_text}, same duration.",
        "In my calendar on {date_text}, move the start of \"{title}\" to {new_time_text} without changing its length.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base_params(rng)
        h = rng.choice([x for x in range(8, 20) if x != p["hour"]])
        m = rng.choice((0, 15, 30, 45))
        p.update(new_hour=h, new_minute=m, new_time_text=time_text(h, m))
        return p

    def target(self, params: dict[str, Any]) -> datetime:
        return at(date.fromisoformat(params["date"]), params["new_hour"], params["new_minute"])

    is_successful = RescheduleEvent.is_successful
    oracle_action = RescheduleEvent.oracle_action


@register_task
class RenameEvent(ExistingTemplate):
    name = "calendar_rename_event"
    complexity = 1
    optimal_steps = 7
    goal_template = "Rename the calendar event \"{title}\" on {date_text} to \"{new_title}\"."
    goal_phrasings = (
        "Could you change the title of \"{title}\" on {date_text} to \"{new_title}\"?",
        "Calendar, {date_text}: \"{title}\" should be called \"{new_title}\" now.",
        "Retitle my {date_text} event \"{title}\" as \"{new_title}\".",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base_params(rng)
        p["new_title"] = rng.choice([t for t in TITLES if t != p["title"]]) + " (moved online)"
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        super().setup(phone, params)
        phone.execute("DELETE FROM events WHERE title=?", (params["new_title"],))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ev = only_event(phone, params["new_title"])
        ok = ev is not None and not event_by_title(phone, params["title"]) and ev["dtstart"] == to_ms(self.start(params))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        scr = phone.screen
        if phone.foreground == KEY and scr is not None and scr.name == "edit" and scr.args.get("event_id") and \
                scr.fields.get("title") == params["new_title"]:
            return fill_form(phone, obs, {"title": params["new_title"]})
        return open_event(phone, obs, params["title"]) or fill_form(phone, obs, {"title": params["new_title"]})


@register_task
class SetEventLocation(ExistingTemplate):
    name = "calendar_set_event_location"
    complexity = 1
    optimal_steps = 7
    goal_template = "Set the location of my \"{title}\" event to \"{new_location}\"."
    goal_phrasings = (
        "Could you change where \"{title}\" happens to \"{new_location}\" in my calendar?",
        "\"{title}\" is moving to \"{new_location}\" - update the event's location.",
        "Location for my \"{title}\" event: \"{new_location}\".",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base_params(rng)
        p["new_location"] = rng.choice([x for x in LOCATIONS if x != p["location"]])
        return p

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ev = self.current(phone, params)
        ok = ev is not None and ev["eventLocation"] == params["new_location"] and ev["dtstart"] == to_ms(self.start(params))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return open_event(phone, obs, params["title"]) or fill_form(phone, obs, {"location": params["new_location"]})


@register_task
class DeleteEvent(ExistingTemplate):
    name = "calendar_delete_event"
    complexity = 1
    optimal_steps = 7
    goal_template = "Delete the \"{title}\" event from my calendar."
    goal_phrasings = (
        "Please remove \"{title}\" from the calendar.",
        "Could you cancel my \"{title}\" event? Just delete it.",
        "Calendar: get rid of the \"{title}\" event.",
    )

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        super().setup(phone, params)
        decoy = self.start(params) + timedelta(days=7)  # same kind of event a week later stays
        phone.execute("DELETE FROM events WHERE title=?", (params["title"] + " follow-up",))
        add_event(phone, params["title"] + " follow-up", decoy, decoy + timedelta(hours=1))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        gone = not event_by_title(phone, params["title"])
        decoy_kept = len(event_by_title(phone, params["title"] + " follow-up")) == 1
        return 1.0 if gone and decoy_kept else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        dlg = phone.dialog
        if dlg is not None and dlg.name == "confirm" and on_form_of(phone, params["title"]):
            return click(obs, text="Delete") or BACK
        return open_event(phone, obs, params["title"]) or click(obs, desc="Delete") or BACK


@register_task
class DeleteEventsOnDate(TaskTemplate):
    name = "calendar_delete_events_on_date"
    apps = ("Calendar",)
    complexity = 3
    optimal_steps = 11
    goal_template = "Delete all events on {date_text} from my calendar; leave other days alone."
    goal_phrasings = (
        "Clear my calendar for {date_text}: remove every event that day and nothing else.",
        "Could you delete everything scheduled on {date_text}? Other days stay as they are.",
        "Wipe all of the events on {date_text} from the calendar, but only that day.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = future_day(rng, 2, 20)
        return {"date": d.isoformat(), "date_text": date_text(d), "titles": rng.sample(TITLES, 2)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        d = date.fromisoformat(params["date"])
        for i, t in enumerate(params["titles"]):
            phone.execute("DELETE FROM events WHERE title=?", (t,))
            add_event(phone, t, at(d, 10 + 3 * i), at(d, 11 + 3 * i))
        for off in (-1, 1):  # neighbours that must survive
            add_event(phone, f"Keep me {off:+d}", at(d + timedelta(days=off), 9), at(d + timedelta(days=off), 10))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        d = date.fromisoformat(params["date"])
        kept = all(len(event_by_title(phone, f"Keep me {off:+d}")) == 1 for off in (-1, 1))
        return 1.0 if not events_on(phone, d) and kept else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        d = date.fromisoformat(params["date"])
        left = events_on(phone, d)
        if not left:
            return COMPLETE
        dlg = phone.dialog
        scr = phone.screen
        if phone.foreground == KEY and scr is not None and scr.name == "edit":
            if scr.args.get("event_id") in {e["_id"] for e in left}:
                if dlg is not None and dlg.name == "confirm":
                    return click(obs, text="Delete") or BACK
                return BACK if dlg is not None else (click(obs, desc="Delete") or BACK)
            return BACK
        return to_day(phone, obs, d) or click_or_scroll(phone, obs, text=left[0]["title"])


# ---- queries ------------------------------------------------------------------------------------
class QueryTemplate(ExistingTemplate):
    kind = "query"
    complexity = 1

    def expected(self, phone: Phone, params: dict[str, Any]) -> list[str]:
        raise NotImplementedError

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if matches_any(answer, self.expected(phone, params)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_search_result(phone, obs, params["title"])
        if step is not None:
            return step
        if click(obs, text=params["title"], resource_id="search_result") is None:
            return click_or_scroll(phone, obs, text=params["title"], resource_id="search_result")
        return answer(self.expected(phone, params)[0])


@register_task
class QueryAppointmentTime(QueryTemplate):
    name = "calendar_query_appointment_time"
    optimal_steps = 5
    goal_template = "What time is my appointment with {person} on {date_text}?"
    goal_phrasings = (
        "When on {date_text} am I seeing {person}? Give me the time.",
        "Check my calendar: what time is the appointment with {person} on {date_text}?",
        "Appointment with {person}, {date_text} - what time does it start?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base_params(rng)
        p["person"] = rng.choice(PEOPLE)
        p["title"] = f"Appointment with {p['person']}"
        return p

    def expected(self, phone: Phone, params: dict[str, Any]) -> list[str]:
        return time_answers(self.start(params))


@register_task
class QueryEventLocation(QueryTemplate):
    name = "calendar_query_event_location"
    optimal_steps = 5
    goal_template = "Where is the \"{title}\" event taking place?"
    goal_phrasings = (
        "What's the location of \"{title}\" in my calendar?",
        "Could you look up where \"{title}\" is being held?",
        "\"{title}\" - where is it?",
    )

    def expected(self, phone: Phone, params: dict[str, Any]) -> list[str]:
        return [params["location"]]


@register_task
class QueryEventDate(QueryTemplate):
    name = "calendar_query_event_date"
    optimal_steps = 5
    goal_template = "On what date is my {kind} appointment? Answer with the month and day."
    goal_phrasings = (
        "When is my {kind} appointment? Just tell me the month and day.",
        "Could you check the calendar for the date of my {kind} appointment (month and day)?",
        "Date of my {kind} appointment? Month and day, please.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base_params(rng)
        p["kind"] = rng.choice(KINDS)
        p["title"] = f"{p['kind'].capitalize()} appointment"
        return p

    def expected(self, phone: Phone, params: dict[str, Any]) -> list[str]:
        return date_answers(date.fromisoformat(params["date"]))


@register_task
class QueryCountOnDay(TaskTemplate):
    name = "calendar_query_count_on_day"
    apps = ("Calendar",)
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "How many events do I have on {date_text}? Answer with a number."
    goal_phrasings = (
        "Count my calendar events on {date_text} and reply with just the number.",
        "Could you tell me how many things are scheduled for {date_text}? A number is enough.",
        "Number of events on {date_text}?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = future_day(rng, 1, 12)
        return {"date": d.isoformat(), "date_text": date_text(d), "extra": rng.randint(1, 3),
                "titles": rng.sample(TITLES, 3)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        d = date.fromisoformat(params["date"])
        for i in range(params["extra"]):
            add_event(phone, params["titles"][i], at(d, 8 + 4 * i), at(d, 9 + 4 * i))

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        return str(len(events_on(phone, date.fromisoformat(params["date"]))))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        exp = self.expected(phone, params)
        words = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
        opts = [exp] + ([words[int(exp)]] if int(exp) < len(words) else [])
        return 1.0 if matches_any(answer, opts) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return to_day(phone, obs, date.fromisoformat(params["date"])) or answer(self.expected(phone, params))


@register_task
class QueryFirstEventOfDay(TaskTemplate):
    name = "calendar_query_first_event_of_day"
    apps = ("Calendar",)
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "What is my earliest event (not counting all-day events) on {date_text}? Answer with its title."
    goal_phrasings = (
        "Which timed event comes first on {date_text}? Give me its title; ignore all-day ones.",
        "Could you check what my first event on {date_text} is called, skipping all-day events?",
        "First event of {date_text} (all-day ones don't count) - what's its title?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = future_day(rng, 1, 12)
        return {"date": d.isoformat(), "date_text": date_text(d), "title": rng.choice(TITLES),
                "hour": rng.choice((6, 7)), "minute": rng.choice((0, 15, 30))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        d = date.fromisoformat(params["date"])
        phone.execute("DELETE FROM events WHERE title=?", (params["title"],))
        s = at(d, params["hour"], params["minute"])
        add_event(phone, params["title"], s, s + timedelta(hours=1))
        add_event(phone, "Late check-in", at(d, 20), at(d, 21))

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        timed = [e for e in events_on(phone, date.fromisoformat(params["date"])) if not e["allDay"]]
        return timed[0]["title"] if timed else ""

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        exp = self.expected(phone, params)
        return 1.0 if exp and answer_matches(answer, exp) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return to_day(phone, obs, date.fromisoformat(params["date"])) or answer(self.expected(phone, params))


# ---- more edits on one existing event -------------------------------------------------------------
@register_task
class SetEventDescription(ExistingTemplate):
    name = "calendar_set_event_description"
    complexity = 1
    optimal_steps = 7
    goal_template = "Change the description of my \"{title}\" event to \"{description}\"."
    goal_phrasings = (
        "Could you replace the notes on \"{title}\" in my calendar with \"{description}\"?",
        "\"{title}\" event description: \"{description}\".",
        "In the calendar, set the description of \"{title}\" to \"{description}\" (replace what's there).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base_params(rng)
        p["description"] = rng.choice(DESCRIPTIONS)
        return p

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ev = self.current(phone, params)
        ok = ev is not None and (ev["description"] or "").strip() == params["description"] and \
            ev["dtstart"] == to_ms(self.start(params)) and ev["eventLocation"] == params["location"]
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        s = self.start(params)  # also undoes a detour's change to the time or place
        want = {"description": params["description"], "location": params["location"], "start": s,
                "end": s + timedelta(minutes=params["duration"])}
        return open_event(phone, obs, params["title"]) or fill_form(phone, obs, want)


@register_task
class ExtendEvent(ExistingTemplate):
    name = "calendar_extend_event"
    complexity = 2
    optimal_steps = 10
    goal_template = "Make \"{title}\" on {date_text} end at {new_end_text} instead; the start time stays the same."
    goal_phrasings = (
        "Could you extend my \"{title}\" event on {date_text} so it finishes at {new_end_text}?",
        "\"{title}\", {date_text}: new end time {new_end_text}, same start.",
        "In my calendar, let \"{title}\" on {date_text} run until {new_end_text} without moving its start.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base_params(rng)
        end = self.start(p) + timedelta(minutes=p["duration"] + rng.choice((15, 30, 45, 60, 90)))
        p.update(new_end_hour=end.hour, new_end_minute=end.minute, new_end_text=time_text(end.hour, end.minute))
        return p

    def new_end(self, params: dict[str, Any]) -> datetime:
        return at(date.fromisoformat(params["date"]), params["new_end_hour"], params["new_end_minute"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ev = self.current(phone, params)
        ok = ev is not None and not ev["allDay"] and ev["dtstart"] == to_ms(self.start(params)) and \
            ev["dtend"] == to_ms(self.new_end(params))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return open_event(phone, obs, params["title"]) or fill_form(
            phone, obs, {"start": self.start(params), "end": self.new_end(params)})


@register_task
class MakeEventAllDay(ExistingTemplate):
    name = "calendar_make_event_all_day"
    complexity = 1
    optimal_steps = 7
    goal_template = "Turn \"{title}\" on {date_text} into an all-day event."
    goal_phrasings = (
        "Could you make my \"{title}\" event on {date_text} all-day instead of timed?",
        "\"{title}\" ({date_text}) should take the whole day - switch it to all-day.",
        "In Simple Calendar Pro, mark the \"{title}\" event on {date_text} as all-day.",
    )

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ev = self.current(phone, params)
        d = date.fromisoformat(params["date"])
        ok = ev is not None and ev["allDay"] == 1 and ev["dtstart"] == to_ms(at(d, 0)) and \
            ev["dtend"] == to_ms(at(d + timedelta(days=1), 0))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        d = at(date.fromisoformat(params["date"]), 0)
        return open_event(phone, obs, params["title"]) or fill_form(phone, obs, {"all_day": True, "start": d, "end": d})


# ---- multi-day, copies and one of several look-alikes -------------------------------------------------
TRIPS = ("Vacation in Lisbon", "Conference trip", "Family reunion", "Ski trip", "Sales kickoff offsite",
         "Camping at Lake Tahoe")


@register_task
class CreateMultiDayEvent(TaskTemplate):
    name = "calendar_create_multi_day_event"
    apps = ("Calendar",)
    complexity = 3
    optimal_steps = 13
    goal_template = "Block out {start_date_text} through {end_date_text} as one all-day event called \"{title}\"."
    goal_phrasings = (
        ("Could you add \"{title}\" to my calendar as a single all-day event from {start_date_text} to "
         "{end_date_text}?"),
        "All-day event \"{title}\": {start_date_text} - {end_date_text} (one event spanning the days).",
        ("I'm away for \"{title}\" from {start_date_text} until {end_date_text}; put it in the calendar as one "
         "all-day event."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        start = future_day(rng, 3, 35)
        end = start + timedelta(days=rng.randint(1, 5))
        return {"title": rng.choice(TRIPS), "start_date": start.isoformat(), "end_date": end.isoformat(),
                "start_date_text": date_text(start), "end_date_text": date_text(end)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM events WHERE title=?", (params["title"],))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ev = only_event(phone, params["title"])
        s, e = date.fromisoformat(params["start_date"]), date.fromisoformat(params["end_date"])
        ok = ev is not None and ev["allDay"] == 1 and ev["dtstart"] == to_ms(at(s, 0)) and \
            ev["dtend"] == to_ms(at(e + timedelta(days=1), 0))  # all-day ends are exclusive
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        want = {"title": params["title"], "all_day": True, "start": at(date.fromisoformat(params["start_date"]), 0),
                "end": at(date.fromisoformat(params["end_date"]), 0)}
        rows = event_by_title(phone, params["title"])
        if len(rows) > 1:  # a detour saved an extra copy: remove it, then fix the one left
            return delete_event_row(phone, obs, rows[-1])
        if rows:
            return open_event_row(phone, obs, rows[0]) or fill_form(phone, obs, want)
        return open_new_form(phone, obs) or fill_form(phone, obs, want)


@register_task
class CopyEventToDate(ExistingTemplate):
    name = "calendar_copy_event_to_date"
    complexity = 3
    optimal_steps = 15
    goal_template = ("Schedule another \"{title}\" on {new_date_text}, at the same time and place as the one on "
                     "{date_text}.")
    goal_phrasings = (
        "Could you repeat my {date_text} \"{title}\" event on {new_date_text}? Same times, same location.",
        "Copy \"{title}\" from {date_text} to {new_date_text} (keep the time and location; the original stays).",
        ("I need a second \"{title}\" on {new_date_text} - look up the time and place of the {date_text} one and "
         "use those."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base_params(rng)
        new = date.fromisoformat(p["date"]) + timedelta(days=rng.choice((1, 2, 6, 7, 14)))
        p.update(new_date=new.isoformat(), new_date_text=date_text(new))
        return p

    def copy_start(self, params: dict[str, Any]) -> datetime:
        return at(date.fromisoformat(params["new_date"]), params["hour"], params["minute"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        rows = event_by_title(phone, params["title"])
        if len(rows) != 2:
            return 0.0
        dur = timedelta(minutes=params["duration"])
        want = [(to_ms(s), to_ms(s + dur)) for s in (self.start(params), self.copy_start(params))]
        got = [(r["dtstart"], r["dtend"]) for r in rows]  # ordered by start, like ``want``
        places = all((r["eventLocation"] or "").strip() == params["location"] and not r["allDay"] for r in rows)
        return 1.0 if got == want and places else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        dur = timedelta(minutes=params["duration"])
        rows = event_by_title(phone, params["title"])
        if not rows:
            return COMPLETE  # the original is gone: nothing left to copy from
        original, extras = min(rows, key=lambda r: r["_id"]), sorted(rows, key=lambda r: r["_id"])[1:]
        first = {"title": params["title"], "location": params["location"], "start": self.start(params),
                 "end": self.start(params) + dur}
        if (original["dtstart"], original["dtend"], original["eventLocation"], original["allDay"]) != (
                to_ms(first["start"]), to_ms(first["end"]), params["location"], 0):
            return open_event_row(phone, obs, original) or fill_form(phone, obs, first)  # a detour changed it
        want = {**first, "start": self.copy_start(params), "end": self.copy_start(params) + dur}
        good = [e["_id"] for e in extras if (e["dtstart"], e["dtend"], e["eventLocation"], e["allDay"]) == (
            to_ms(want["start"]), to_ms(want["end"]), params["location"], 0)][:1]
        wrong = [e for e in extras if e["_id"] not in good]
        if wrong:  # a wrong copy is deleted and made again from the original's day list
            return delete_event_row(phone, obs, wrong[-1])
        # the original's day list shows its time and place (what the copy takes) and has a New event button
        return new_form_from_day(phone, obs, date.fromisoformat(params["date"]), original) or \
            fill_form(phone, obs, want)


@register_task
class CancelEventOccurrence(ExistingTemplate):
    name = "calendar_cancel_event_occurrence"
    complexity = 2
    optimal_steps = 7
    goal_template = "Delete the \"{title}\" event on {date_text} only; keep the one on {other_date_text}."
    goal_phrasings = (
        "Could you cancel \"{title}\" on {date_text}? The \"{title}\" on {other_date_text} is still on.",
        "Remove {date_text}'s \"{title}\" from my calendar, but leave the {other_date_text} one alone.",
        "\"{title}\" on {date_text} is off - delete just that one (not {other_date_text}).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base_params(rng)
        other = date.fromisoformat(p["date"]) + timedelta(days=rng.choice((-1, 1, 2, 7)))
        p.update(other_date=other.isoformat(), other_date_text=date_text(other))
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        super().setup(phone, params)
        s = at(date.fromisoformat(params["other_date"]), params["hour"], params["minute"])  # the twin to keep
        add_event(phone, params["title"], s, s + timedelta(minutes=params["duration"]), location=params["location"],
                  description="Added by you.")

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        rows = event_by_title(phone, params["title"])
        keep = to_ms(at(date.fromisoformat(params["other_date"]), params["hour"], params["minute"]))
        return 1.0 if len(rows) == 1 and rows[0]["dtstart"] == keep else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        d = date.fromisoformat(params["date"])
        target = [e for e in events_on(phone, d) if e["title"] == params["title"]]
        if not target:
            return COMPLETE  # nothing left to delete on that day (the twin went too: cannot be undone)
        scr = phone.screen
        if phone.foreground == KEY and scr is not None and scr.name == "edit":
            if scr.args.get("event_id") == target[0]["_id"]:
                dlg = phone.dialog
                if dlg is not None and dlg.name == "confirm":
                    return click(obs, text="Delete") or BACK
                return BACK if dlg is not None else (click(obs, desc="Delete") or BACK)
            return BACK
        return to_day(phone, obs, d) or click_or_scroll(phone, obs, text=params["title"], resource_id="event_item")


# ---- more questions ---------------------------------------------------------------------------------
@register_task
class QueryEventDuration(QueryTemplate):
    name = "calendar_query_event_duration"
    complexity = 2
    optimal_steps = 5
    goal_template = "How long is my \"{title}\" event on {date_text}? Answer in minutes."
    goal_phrasings = (
        "How many minutes does \"{title}\" on {date_text} last?",
        "Could you check my calendar and tell me the length of \"{title}\" on {date_text}, in minutes?",
        "\"{title}\", {date_text}: duration in minutes?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base_params(rng)
        p["duration"] = rng.choice((45, 75, 90, 120, 150))
        p["other_duration"] = rng.choice([x for x in (30, 60, 105, 180) if x != p["duration"]])
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        super().setup(phone, params)
        s = self.start(params) + timedelta(days=7)  # the same event a week later runs for another length
        add_event(phone, params["title"], s, s + timedelta(minutes=params["other_duration"]),
                  location=params["location"], description="Added by you.")

    def expected(self, phone: Phone, params: dict[str, Any]) -> list[str]:
        return [str(params["duration"])]


RECURRING = ("Spanish class", "Choir rehearsal", "Swim practice", "Physio session", "Chess club", "Pottery class")


@register_task
class QueryEventCount(TaskTemplate):
    name = "calendar_query_event_count"
    apps = ("Calendar",)
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = "How many events titled exactly \"{title}\" are in my calendar? Answer with a number."
    goal_phrasings = (
        "Count the \"{title}\" events in my calendar (exact title only) and give me the number.",
        "Could you tell me how many times \"{title}\" is scheduled? Only events with exactly that title count.",
        "Number of \"{title}\" events in the calendar (exact title)?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        n = rng.randint(2, 5)
        days = sorted(rng.sample(range(-10, 30), n + 2))
        return {"title": rng.choice(RECURRING), "count": n, "days": days, "hour": rng.choice((7, 17, 18, 19))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        t = params["title"]
        phone.execute("DELETE FROM events WHERE lower(title) LIKE ?", (f"%{t.lower()}%",))
        for i, off in enumerate(params["days"]):
            d = TODAY + timedelta(days=off)
            # the last two days get look-alikes that the search also finds but that do not count
            title = t if i < params["count"] else (f"{t} (cancelled)" if i == params["count"] else f"{t} sign-up")
            add_event(phone, title, at(d, params["hour"]), at(d, params["hour"] + 1), location="")

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        return str(len(event_by_title(phone, params["title"])))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        exp = self.expected(phone, params)
        words = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
        opts = [exp] + ([words[int(exp)]] if int(exp) < len(words) else [])
        return 1.0 if matches_any(answer, opts) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        # the search lists the exact titles and their look-alikes together (all fit on one screen)
        return to_search_result(phone, obs, params["title"]) or answer(self.expected(phone, params))


__all__ = [
    "at",
    "date_text",
    "fill_form",
    "fmt_day",
    "open_event",
    "open_new_form",
    "time_text",
    "to_day",
    "to_search_result",
]


# ---- more kinds of task: read-then-edit, bulk edits with look-alikes, questions that compare events -----
# Checkers of these compare the whole ``events`` table with the starting rows (``baseline_rows``): only
# the changes the goal asks for may happen. Oracles repair from any state: extra events a detour saved
# are deleted, rows that differ from what they should be are reopened and refilled.
EVENT_ROWS = "SELECT _id, title, eventLocation, description, dtstart, dtend, allDay FROM events ORDER BY _id"


def form_values(row: tuple) -> dict[str, Any]:
    """An ``EVENT_ROWS`` row as the ``fill_form`` values that reproduce it (all-day ends are inclusive)."""
    all_day = bool(row[6])
    end = from_ms(row[5]) - (timedelta(days=1) if all_day else timedelta(0))
    return {"title": row[1] or "", "location": row[2] or "", "description": row[3] or "", "all_day": all_day,
            "start": from_ms(row[4]), "end": end}


def start_rows(phone: Phone, tmpl: TaskTemplate, params: dict[str, Any]) -> dict[int, tuple]:
    return {r[0]: r for r in baseline_rows(phone, tmpl, params, EVENT_ROWS)}


def rows_now(phone: Phone) -> dict[int, tuple]:
    return {r[0]: tuple(r) for r in phone.query(EVENT_ROWS)}


def state_is(phone: Phone, base: dict[int, tuple], deleted: set[int], edits: dict[int, dict[str, Any]]) -> bool:
    """Exactly the starting events minus ``deleted``, each as it was except ``edits`` (full form values).

    Compared as a multiset of values: an event deleted and saved again identically is the same event."""
    def key(v: dict[str, Any]) -> tuple:
        return tuple(sorted((k, str(x)) for k, x in v.items()))

    want = sorted(key(edits.get(i, form_values(r))) for i, r in base.items() if i not in deleted)
    return want == sorted(key(form_values(r)) for r in rows_now(phone).values())


def same_event(a: Any, b: Any) -> bool:
    cols = ("title", "eventLocation", "description", "dtstart", "dtend", "allDay")
    return all(a[c] == b[c] for c in cols)


def on_form_of_row(phone: Phone, ev: Any) -> bool:
    """On the edit form of the event row ``ev`` or of an identical twin."""
    scr = phone.screen
    if phone.foreground != KEY or scr is None or scr.name != "edit" or scr.args.get("event_id") is None:
        return False
    cur = event_row(phone, scr.args["event_id"])
    return cur is not None and (cur["_id"] == ev["_id"] or same_event(cur, ev))


def open_row(phone: Phone, obs: Observation, ev: Any, query: str | None = None) -> Action | None:
    """Next step toward the form of the event row ``ev`` (or of an identical twin), picked in the search
    results for ``query`` (default: its title) by its title, date and times; None once it is open."""
    if on_form_of_row(phone, ev):
        return None
    step = to_search_result(phone, obs, query or ev["title"])
    if step is not None:
        return step
    when = f"{day_label(from_ms(ev['dtstart']).date())} · {time_range(phone, ev)}"
    for i, el in enumerate(obs.elements):
        if (el.resource_id or "").endswith("search_result") and (el.text or "").split(" | ")[0] == ev["title"] \
                and when in (el.text or ""):
            return Action(action_type="click", index=i)
    return scroll_toward(phone, obs, text_contains=when, resource_id="search_result") or BACK


Opener = Callable[[Phone, Observation, Any], "Action | None"]  # open_row's signature: how a row's form is reached


def delete_row(phone: Phone, obs: Observation, ev: Any, opener: Opener = open_row) -> Action:
    step = opener(phone, obs, ev)
    if step is not None:
        return step
    dlg = phone.dialog
    if dlg is not None and dlg.name == "confirm":
        return click(obs, text="Delete") or BACK
    return BACK if dlg is not None else (click(obs, desc="Delete") or BACK)


def refill(phone: Phone, obs: Observation, want: dict[str, Any]) -> Action:
    """``fill_form``, first emptying a text field that must end up blank (a detour typed into it)."""
    scr = phone.screen
    if phone.dialog is None and not phone.menu_open and scr is not None:
        for key, rid in (("title", "event_title"), ("location", "event_location"),
                         ("description", "event_description")):
            if want.get(key) == "" and scr.fields.get(key, ""):
                i = find(obs, editable=True, resource_id=rid)
                if i is not None:
                    return Action(action_type="clear_text", index=i)
    return fill_form(phone, obs, want)


def event_row(phone: Phone, ev_id: int):  # -> sqlite3.Row | None
    return phone.query_one("SELECT * FROM events WHERE _id=?", (ev_id,))


def repair_step(phone: Phone, obs: Observation, base: dict[int, tuple], deleted: set[int],
                edits: dict[int, dict[str, Any]], keep_new: int = 0, opener: Opener = open_row) -> Action | None:
    """Next step toward ``state_is(...)``: delete events added by a detour (all but the first ``keep_new``)
    and the ``deleted`` ones, then refill every event that differs from what it should be; None when
    nothing is left to do (an event deleted by mistake cannot come back). ``opener`` reaches a row's form."""
    cur = rows_now(phone)
    alias: dict[int, int] = {}  # a new row identical to a starting row that is gone stands for it
    for j in sorted(i for i in cur if i not in base):
        for i in sorted(i for i in base if i not in cur and i not in alias.values()):
            if cur[j][1:] == base[i][1:]:
                alias[j] = i
                break
    added = sorted(i for i in cur if i not in base and i not in alias)
    if len(added) > keep_new:
        return delete_row(phone, obs, event_row(phone, added[-1]), opener)
    for j in sorted(cur):
        if alias.get(j, j) in deleted:
            return delete_row(phone, obs, event_row(phone, j), opener)
    for j, row in sorted(cur.items()):
        i = alias.get(j, j)
        if i in base:
            want = edits.get(i, form_values(base[i]))
            if form_values(row) != want:
                return opener(phone, obs, event_row(phone, j)) or refill(phone, obs, want)
    return None


# ---- reading before using: the oracle opens where a value it types is shown ------------------------
def look_first(phone: Phone, key: str, step: Callable[[], Action | None]) -> Action | None:
    """:func:`helpers.look_first` with the key in the calendar's own namespace."""
    return oracle_look_first(phone, f"calendar {key}", step)


def via_day(phone: Phone, d: date) -> bool:
    """Whether the screen on top was opened from the day list of ``d`` (it lies above it in the back stack)."""
    return any(s.name == "day" and s.args.get("day") == d.isoformat() for s in (phone.stacks.get(KEY) or [])[:-1])


def day_row(phone: Phone, ev: Any) -> str:
    """The text of ``ev``'s row in a day list: title, times and place."""
    where = f" · {ev['eventLocation']}" if ev["eventLocation"] else ""
    return f"{ev['title']} | {time_range(phone, ev)}{where}"


def open_from_day(phone: Phone, obs: Observation, ev: Any) -> Action | None:
    """Next step toward the form of the event row ``ev`` (or of an identical twin) opened from the list of
    its day, which shows the titles, times and places of that day's events; None once it is open."""
    d = from_ms(ev["dtstart"]).date()
    if on_form_of_row(phone, ev) and via_day(phone, d):
        return None
    return to_day(phone, obs, d) or click_or_scroll(phone, obs, text=day_row(phone, ev), resource_id="event_item")


def new_form_from_day(phone: Phone, obs: Observation, d: date, source: Any) -> Action | None:
    """Next step toward the new-event form opened from the day list of ``d`` once the row of ``source`` (the
    event whose times or place the new one takes) is on screen there; None once that form is open."""
    if on_form_of(phone, None) and via_day(phone, d):
        return None
    step = to_day(phone, obs, d)
    if step is not None:
        return step
    row = {"text": day_row(phone, source), "resource_id": "event_item"}
    if find(obs, **row) is None:
        act = scroll_toward(phone, obs, **row)
        if act is None:
            raise TaskError(f"oracle: no row of event {source['_id']} on the day list of {d}")
        return act
    return click(obs, desc="New event") or BACK


def clear_day(phone: Phone, d: date) -> None:
    for ev in events_on(phone, d):
        phone.execute("DELETE FROM events WHERE _id=?", (ev["_id"],))


def ids_titled(base: dict[int, tuple], title: str) -> list[int]:
    return sorted(i for i, r in base.items() if r[1] == title)


class StateTemplate(TaskTemplate):
    """An action on planted events whose goal state is ``deleted`` + ``edits`` over the starting rows."""

    apps = ("Calendar",)

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        raise NotImplementedError

    def opener(self, params: dict[str, Any]) -> Opener:
        """How the oracle reaches an event's form (where what it types is read first)."""
        return open_row

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        base = start_rows(phone, self, params)
        deleted, edits = self.goal_state(base, params)
        return 1.0 if state_is(phone, base, deleted, edits) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        base = start_rows(phone, self, params)
        deleted, edits = self.goal_state(base, params)
        if state_is(phone, base, deleted, edits):
            return COMPLETE
        return repair_step(phone, obs, base, deleted, edits, opener=self.opener(params)) or COMPLETE


@register_task
class ResolveOverlap(StateTemplate):
    name = "calendar_resolve_overlap"
    complexity = 2
    optimal_steps = 10
    goal_template = ("On {date_text}, \"{second}\" clashes with \"{first}\". Move \"{second}\" so it starts right "
                     "when \"{first}\" ends, keeping its length; don't touch \"{first}\".")
    goal_phrasings = (
        ("\"{first}\" and \"{second}\" overlap on {date_text}. Could you push \"{second}\" back to begin exactly "
         "when \"{first}\" finishes? Same duration, and leave \"{first}\" where it is."),
        ("Fix the double booking on {date_text}: \"{second}\" should start at the end time of \"{first}\" and last "
         "as long as before (\"{first}\" stays unchanged)."),
        ("Calendar, {date_text}: shift \"{second}\" to right after \"{first}\" (start when it ends, same length); "
         "\"{first}\" itself doesn't change."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = future_day(rng, 2, 20)
        first, second = rng.sample(TITLES, 2)
        dur = rng.choice((60, 90, 120))
        return {"date": d.isoformat(), "date_text": date_text(d), "first": first, "second": second,
                "hour": rng.randint(9, 14), "minute": rng.choice((0, 30)), "duration": dur,
                "offset": rng.choice(range(15, dur, 15)), "second_duration": rng.choice((30, 45, 60, 90))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for t in (params["first"], params["second"]):
            phone.execute("DELETE FROM events WHERE title=?", (t,))
        s = at(date.fromisoformat(params["date"]), params["hour"], params["minute"])
        add_event(phone, params["first"], s, s + timedelta(minutes=params["duration"]), location=rng_free_place(s))
        s2 = s + timedelta(minutes=params["offset"])
        add_event(phone, params["second"], s2, s2 + timedelta(minutes=params["second_duration"]),
                  description="Added by you.")

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        (second,) = ids_titled(base, params["second"])
        end = at(date.fromisoformat(params["date"]), params["hour"], params["minute"]) + \
            timedelta(minutes=params["duration"])
        want = {**form_values(base[second]), "start": end, "end": end + timedelta(minutes=params["second_duration"])}
        return set(), {second: want}


def rng_free_place(s: datetime) -> str:
    """A location picked from the start time (no randomness needed for a detail nobody asks about)."""
    return LOCATIONS[(s.day + s.hour) % len(LOCATIONS)]


@register_task
class SwapEventSlots(StateTemplate):
    name = "calendar_swap_event_slots"
    complexity = 3
    optimal_steps = 25
    goal_template = ("Swap the time slots of \"{first}\" and \"{second}\" on {date_text}: each should take the "
                     "other's start and end time.")
    goal_phrasings = (
        ("On {date_text}, could you trade the times of \"{first}\" and \"{second}\"? \"{first}\" gets the slot "
         "\"{second}\" has now, and the other way round."),
        ("Exchange \"{first}\" and \"{second}\" on {date_text} in my calendar - each one moves to the other's "
         "start and end time."),
        ("{date_text}: \"{first}\" and \"{second}\" need to switch places in the schedule (start and end times "
         "swapped, same day)."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = future_day(rng, 2, 20)
        first, second = rng.sample(TITLES, 2)
        h1 = rng.randint(8, 11)
        h2 = rng.randint(h1 + 3, 17)
        return {"date": d.isoformat(), "date_text": date_text(d), "first": first, "second": second,
                "slots": [[h1, rng.choice((0, 30)), rng.choice((30, 60, 90))],
                          [h2, rng.choice((0, 15, 45)), rng.choice((45, 60, 120))]],
                "locations": rng.sample(LOCATIONS, 2)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        d = date.fromisoformat(params["date"])
        for t, (h, m, dur), loc in zip((params["first"], params["second"]), params["slots"], params["locations"],
                                       strict=True):
            phone.execute("DELETE FROM events WHERE title=?", (t,))
            add_event(phone, t, at(d, h, m), at(d, h, m) + timedelta(minutes=dur), location=loc)

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        (a,) = ids_titled(base, params["first"])
        (b,) = ids_titled(base, params["second"])
        fa, fb = form_values(base[a]), form_values(base[b])
        return set(), {a: {**fa, "start": fb["start"], "end": fb["end"]},
                       b: {**fb, "start": fa["start"], "end": fa["end"]}}

    def opener(self, params: dict[str, Any]) -> Opener:
        return open_from_day  # the day list shows both slots before either is changed


@register_task
class DeleteSessionsAfter(StateTemplate):
    name = "calendar_delete_sessions_after"
    complexity = 3
    optimal_steps = 13
    goal_template = ("My last \"{title}\" session is on {date_text}. Delete every \"{title}\" event after that "
                     "day; keep that one and the earlier ones.")
    goal_phrasings = (
        ("I'm quitting \"{title}\" after {date_text}. Could you remove all of its later sessions from my calendar? "
         "The {date_text} one and everything before stay."),
        ("Cancel the \"{title}\" events that come after {date_text} (not the one on {date_text}, not the earlier "
         "ones)."),
        "Calendar clean-up: drop every \"{title}\" scheduled later than {date_text}; earlier sessions remain.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first = TODAY + timedelta(days=rng.randint(-6, 3))
        n_before, n_after = rng.randint(2, 3), rng.randint(2, 3)
        cutoff = first + timedelta(days=7 * (n_before - 1))
        return {"title": rng.choice(RECURRING), "first_date": first.isoformat(), "sessions": n_before + n_after,
                "date": cutoff.isoformat(), "date_text": date_text(cutoff), "hour": rng.choice((7, 17, 18, 19)),
                "social_week": rng.randint(n_before, n_before + n_after - 1)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        t = params["title"]
        phone.execute("DELETE FROM events WHERE lower(title) LIKE ?", (f"%{t.lower()}%",))
        first, h = date.fromisoformat(params["first_date"]), params["hour"]
        for w in range(params["sessions"]):
            d = first + timedelta(days=7 * w)
            add_event(phone, t, at(d, h), at(d, h + 1), location="Community Center")
        d = first + timedelta(days=7 * params["social_week"] + 2)  # a look-alike after the cut-off that stays
        add_event(phone, f"{t} social", at(d, h), at(d, h + 2), location="Harbor View Restaurant")

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        cutoff = to_ms(at(date.fromisoformat(params["date"]) + timedelta(days=1), 0))
        return {i for i in ids_titled(base, params["title"]) if base[i][4] >= cutoff}, {}


ALL_DAY_TITLES = ("Team offsite", "Open house", "Charity fun run", "Garage sale", "Science fair", "Career fair")


@register_task
class AllDayToTimed(StateTemplate):
    name = "calendar_all_day_to_timed"
    complexity = 2
    optimal_steps = 15
    goal_template = ("\"{title}\" on {date_text} isn't an all-day event after all: make it run from {start_text} "
                     "to {end_text} that day.")
    goal_phrasings = (
        "Could you turn the all-day \"{title}\" on {date_text} into a timed event, {start_text} to {end_text}?",
        ("\"{title}\" ({date_text}) only takes {start_text}-{end_text}, not the whole day. Please fix the event."),
        "Change my {date_text} \"{title}\" from all-day to {start_text} until {end_text}.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = future_day(rng, 2, 25)
        h, m = rng.randint(8, 15), rng.choice((0, 15, 30, 45))
        end = at(d, h, m) + timedelta(minutes=rng.choice((90, 120, 180, 240)))
        return {"title": rng.choice(ALL_DAY_TITLES), "date": d.isoformat(), "date_text": date_text(d),
                "start": at(d, h, m).isoformat(), "end": end.isoformat(), "start_text": time_text(h, m),
                "end_text": time_text(end.hour, end.minute)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        t = params["title"]
        phone.execute("DELETE FROM events WHERE title=?", (t,))
        d = date.fromisoformat(params["date"])
        add_event(phone, t, at(d, 0), at(d, 0), all_day=True, location="Oak Street Library")
        other = d + timedelta(days=7)  # the same event a week later stays all-day
        add_event(phone, t, at(other, 0), at(other, 0), all_day=True, location="Oak Street Library")

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        day = to_ms(at(date.fromisoformat(params["date"]), 0))
        (i,) = [i for i in ids_titled(base, params["title"]) if base[i][4] == day]
        want = {**form_values(base[i]), "all_day": False, "start": datetime.fromisoformat(params["start"]),
                "end": datetime.fromisoformat(params["end"])}
        return set(), {i: want}


CLUB_PLACES = ("Riverside Sports Hall", "Oak Street Library", "Community Center", "Studio 5")


@register_task
class FillMissingLocations(StateTemplate):
    name = "calendar_fill_missing_locations"
    complexity = 3
    optimal_steps = 10
    goal_template = ("Some of my \"{title}\" events have no location. Set the location of those to \"{location}\"; "
                     "leave the ones that already have a location as they are.")
    goal_phrasings = (
        ("Every \"{title}\" session without a location should say \"{location}\". Could you fill those in? Don't "
         "change the sessions that already list a place."),
        ("Fill in \"{location}\" as the location of each \"{title}\" event where it's blank; the others keep their "
         "location."),
        ("In my calendar, the \"{title}\" events missing a place are at \"{location}\" - add it to just those."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        n = rng.randint(4, 5)
        blanks = sorted(rng.sample(range(n), rng.randint(2, 3)))
        location, other = rng.sample(CLUB_PLACES, 2)
        return {"title": rng.choice(RECURRING), "location": location, "other_location": other,
                "first_day": rng.randint(-5, 10), "sessions": n, "blank": blanks, "hour": rng.choice((7, 17, 18))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        t = params["title"]
        phone.execute("DELETE FROM events WHERE lower(title) LIKE ?", (f"%{t.lower()}%",))
        h = params["hour"]
        for w in range(params["sessions"]):
            d = TODAY + timedelta(days=params["first_day"] + 7 * w)
            loc = "" if w in params["blank"] else params["other_location"]
            add_event(phone, t, at(d, h), at(d, h + 1), location=loc)
        d = TODAY + timedelta(days=params["first_day"] + 3)  # a look-alike without a place that stays blank
        add_event(phone, f"{t} (cancelled)", at(d, h), at(d, h + 1))

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        return set(), {i: {**form_values(base[i]), "location": params["location"]}
                       for i in ids_titled(base, params["title"]) if not base[i][2]}


BIRTHDAY_PEOPLE = ("Zoe", "Oscar", "Isla", "Felix", "Nora", "Hugo")


@register_task
class EventOnBirthday(TaskTemplate):
    name = "calendar_event_on_birthday"
    apps = ("Calendar",)
    complexity = 3
    optimal_steps = 15
    goal_template = ("Add \"{title}\" from {start_text} to {end_text} on {who}'s birthday (the date is in my "
                     "calendar).")
    goal_phrasings = (
        ("Could you schedule \"{title}\" on the day of {who}'s birthday, {start_text} to {end_text}? Look the "
         "birthday up in my calendar."),
        "{who}'s birthday is in my calendar. Put \"{title}\" on that day, {start_text}-{end_text}.",
        ("New event \"{title}\", {start_text} until {end_text}, on whatever day {who}'s birthday is in the "
         "calendar."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        who, other = rng.sample(BIRTHDAY_PEOPLE, 2)
        d = future_day(rng, 3, 40)
        h = rng.randint(12, 19)
        dur = rng.choice((60, 120, 180))
        return {"who": who, "other": other, "date": d.isoformat(), "other_date": future_day(rng, 3, 40).isoformat(),
                "title": rng.choice((f"Surprise party for {who}", f"Cake and drinks for {who}",
                                     f"Dinner out with {who}")),
                "hour": h, "duration": dur, "start_text": time_text(h, 0),
                "end_text": time_text((h + dur // 60) % 24, 0)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for who in (params["who"], params["other"]):
            phone.execute("DELETE FROM events WHERE title LIKE ?", (f"%{who}%",))
        for who, key in ((params["who"], "date"), (params["other"], "other_date")):
            d = date.fromisoformat(params[key])
            add_event(phone, f"{who}'s birthday", at(d, 0), at(d, 0), all_day=True, description="Don't forget a card!")

    def want(self, params: dict[str, Any]) -> dict[str, Any]:
        s = at(date.fromisoformat(params["date"]), params["hour"])
        return {"title": params["title"], "location": "", "description": "", "all_day": False, "start": s,
                "end": s + timedelta(minutes=params["duration"])}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        base, cur = start_rows(phone, self, params), rows_now(phone)
        new = [r for i, r in cur.items() if i not in base]
        if len(new) != 1 or not set(base) <= set(cur):
            return 0.0
        got = {**form_values(new[0]), "location": "", "description": ""}  # a place or note on it is fine
        same = all(cur[i] == r for i, r in base.items())
        return 1.0 if same and got == self.want(params) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        base = start_rows(phone, self, params)
        want = {k: v for k, v in self.want(params).items() if k not in ("location", "description")}
        step = repair_step(phone, obs, base, set(), {}, keep_new=1)
        if step is not None:
            return step
        bday = only_event(phone, f"{params['who']}'s birthday")
        if bday is None:
            return COMPLETE  # the birthday is gone (cannot come back): no date to read
        # the month grid cuts its title short: the entry itself is opened (its form shows the date)
        step = look_first(phone, f"event {bday['_id']}",
                          lambda: open_event_row(phone, obs, bday) or dismiss_popups(phone))
        if step is not None:
            return step
        new = sorted(i for i in rows_now(phone) if i not in base)
        if new:
            return open_row(phone, obs, event_row(phone, new[0])) or fill_form(phone, obs, want)
        return open_new_form(phone, obs) or fill_form(phone, obs, want)


@register_task
class MoveDayEvents(StateTemplate):
    name = "calendar_move_day_events"
    complexity = 3
    optimal_steps = 15
    goal_template = ("Everything on {date_text} has moved to {new_date_text}. Move each event of {date_text} to "
                     "{new_date_text}, keeping their times.")
    goal_phrasings = (
        ("Could you shift all my events from {date_text} over to {new_date_text}? Same times, just the other "
         "day."),
        "My {date_text} plans are now on {new_date_text}: reschedule every event of that day, same times.",
        ("Calendar: the whole of {date_text} moves to {new_date_text} - each event keeps its start and end "
         "time."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = future_day(rng, 2, 20)
        new = d + timedelta(days=rng.choice((1, 2, 3, 7, 14)))
        titles = rng.sample(TITLES, 2)
        return {"date": d.isoformat(), "date_text": date_text(d), "new_date": new.isoformat(),
                "new_date_text": date_text(new), "titles": titles, "hours": sorted(rng.sample(range(8, 19), 2))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        d = date.fromisoformat(params["date"])
        clear_day(phone, d)
        for t, h in zip(params["titles"], params["hours"], strict=True):
            phone.execute("DELETE FROM events WHERE title=?", (t,))
            add_event(phone, t, at(d, h, 30), at(d, h + 1), location=rng_free_place(at(d, h)))
        nxt = d + timedelta(days=1)  # the next day's first event stays where it is
        add_event(phone, "Breakfast with Sam", at(nxt, 8), at(nxt, 9), location="Blue Door Cafe")

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        shift = date.fromisoformat(params["new_date"]) - date.fromisoformat(params["date"])
        ids = [i for t in params["titles"] for i in ids_titled(base, t)]
        return set(), {i: {**form_values(base[i]), "start": form_values(base[i])["start"] + shift,
                           "end": form_values(base[i])["end"] + shift} for i in ids}

    def opener(self, params: dict[str, Any]) -> Opener:
        return open_from_day  # the goal names the day, not the events: they are picked in its list


RENAMED = {"Spanish class": "Spanish conversation group", "Choir rehearsal": "Choir practice",
           "Swim practice": "Swim training", "Physio session": "Rehab session", "Chess club": "Chess meetup",
           "Pottery class": "Ceramics workshop"}


@register_task
class RenameAllOccurrences(StateTemplate):
    name = "calendar_rename_all_occurrences"
    complexity = 3
    optimal_steps = 13
    goal_template = ("\"{title}\" is now called \"{new_title}\". Rename every \"{title}\" event in my calendar; "
                     "leave other events alone.")
    goal_phrasings = (
        "Could you retitle all my \"{title}\" events as \"{new_title}\"? Nothing else should change.",
        "Every event named \"{title}\" should be named \"{new_title}\" from now on - please update each one.",
        "Calendar: rename each \"{title}\" occurrence to \"{new_title}\" (only events with exactly that title).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        title = rng.choice(sorted(RENAMED))
        return {"title": title, "new_title": RENAMED[title], "days": sorted(rng.sample(range(-8, 25), 4)),
                "sessions": rng.randint(2, 3), "hour": rng.choice((7, 17, 18, 19))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        t, h = params["title"], params["hour"]
        phone.execute("DELETE FROM events WHERE lower(title) LIKE ? OR title=?", (f"%{t.lower()}%", params["new_title"]))
        for i, off in enumerate(params["days"]):
            d = TODAY + timedelta(days=off)
            add_event(phone, t if i < params["sessions"] else f"{t} sign-up", at(d, h), at(d, h + 1))

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        return set(), {i: {**form_values(base[i]), "title": params["new_title"]}
                       for i in ids_titled(base, params["title"])}


# ---- questions that compare events ---------------------------------------------------------------------
def no_other(answer: str | None, others: list[str]) -> bool:
    """The answer names none of the wrong choices (listing every title is not an answer)."""
    return not any(answer_matches(answer, o) for o in others)


@register_task
class QueryOverlappingEvent(TaskTemplate):
    name = "calendar_query_overlapping_event"
    apps = ("Calendar",)
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "Which event on {date_text} overlaps with my \"{title}\"? Answer with its title."
    goal_phrasings = (
        "Something on {date_text} clashes with \"{title}\". What is it called?",
        ("Could you check {date_text} for an event that overlaps \"{title}\" and tell me its title? Events that "
         "just touch it don't count."),
        "\"{title}\" on {date_text} has a conflict - which event?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = future_day(rng, 2, 20)
        title, clash, before, after = rng.sample(TITLES, 4)
        return {"date": d.isoformat(), "date_text": date_text(d), "title": title, "clash": clash, "before": before,
                "after": after, "hour": rng.randint(10, 14), "duration": rng.choice((60, 90, 120)),
                "clash_offset": rng.choice((-45, -30, 15, 30, 45))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        d = date.fromisoformat(params["date"])
        clear_day(phone, d)
        for k in ("title", "clash", "before", "after"):
            phone.execute("DELETE FROM events WHERE title=?", (params[k],))
        s = at(d, params["hour"])
        e = s + timedelta(minutes=params["duration"])
        add_event(phone, params["title"], s, e)
        c = s + timedelta(minutes=params["clash_offset"])
        add_event(phone, params["clash"], c, c + timedelta(minutes=60))
        add_event(phone, params["before"], s - timedelta(minutes=60), s)  # touches it, no overlap
        add_event(phone, params["after"], e, e + timedelta(minutes=45))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = answer_matches(answer, params["clash"]) and no_other(answer, [params["before"], params["after"]])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return to_day(phone, obs, date.fromisoformat(params["date"])) or answer(params["clash"])


@register_task
class QueryGapBetweenEvents(TaskTemplate):
    name = "calendar_query_gap_between_events"
    apps = ("Calendar",)
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = ("How much free time do I have between \"{first}\" and \"{second}\" on {date_text}? Answer in "
                     "minutes.")
    goal_phrasings = (
        "On {date_text}, how many minutes are there from the end of \"{first}\" to the start of \"{second}\"?",
        ("Could you work out the break between \"{first}\" and \"{second}\" on {date_text}? Give it in "
         "minutes."),
        "{date_text}: gap between \"{first}\" ending and \"{second}\" starting, in minutes?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = future_day(rng, 2, 20)
        first, second, early = rng.sample(TITLES, 3)
        return {"date": d.isoformat(), "date_text": date_text(d), "first": first, "second": second, "early": early,
                "hour": rng.randint(9, 12), "minute": rng.choice((0, 15, 30, 45)),
                "duration": rng.choice((30, 45, 60, 90)), "gap": rng.choice(range(15, 181, 15))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        d = date.fromisoformat(params["date"])
        clear_day(phone, d)
        for k in ("first", "second", "early"):
            phone.execute("DELETE FROM events WHERE title=?", (params[k],))
        add_event(phone, params["early"], at(d, 7), at(d, 8))  # a pair to leave out
        s = at(d, params["hour"], params["minute"])
        e = s + timedelta(minutes=params["duration"])
        add_event(phone, params["first"], s, e)
        s2 = e + timedelta(minutes=params["gap"])
        add_event(phone, params["second"], s2, s2 + timedelta(minutes=60))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        nums = {n.replace(",", "") for n in NUMBER.findall(answer or "")}
        return 1.0 if nums == {str(params["gap"])} else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return to_day(phone, obs, date.fromisoformat(params["date"])) or answer(f"{params['gap']} minutes")


@register_task
class QueryFreeDay(TaskTemplate):
    name = "calendar_query_free_day"
    apps = ("Calendar",)
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = ("Which day from {start_text} to {end_text} has nothing at all in my calendar? Answer with the "
                     "date.")
    goal_phrasings = (
        "Between {start_text} and {end_text}, on which day am I completely free? Tell me the date.",
        ("Could you find the one day from {start_text} through {end_text} with no events scheduled and give me "
         "its date?"),
        "Free day between {start_text} and {end_text} (no events at all) - which date is it?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        start = future_day(rng, 2, 30)
        end = start + timedelta(days=4)
        return {"start": start.isoformat(), "start_text": date_text(start), "end_text": date_text(end),
                "free": rng.randint(0, 4)}

    def days(self, params: dict[str, Any]) -> list[date]:
        return [date.fromisoformat(params["start"]) + timedelta(days=i) for i in range(5)]

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, d in enumerate(self.days(params)):
            if i == params["free"]:
                clear_day(phone, d)
            elif not events_on(phone, d):
                add_event(phone, "Errands", at(d, 10), at(d, 11), description="Post office and pharmacy.")

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        days = self.days(params)
        free = days[params["free"]]
        others = [o for d in days if d != free for o in date_answers(d)]
        return 1.0 if matches_any(answer, date_answers(free)) and no_other(answer, others) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        free = self.days(params)[params["free"]]
        step = navigate(phone, obs, KEY, [("main", None)])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        scr = phone.screen
        assert scr is not None
        y, m = scr.state.get("month", (phone.now.year, phone.now.month))
        delta = (free.year * 12 + free.month) - (int(y) * 12 + int(m))
        if delta:
            return click(obs, desc="Next month" if delta > 0 else "Previous month") or BACK
        return answer(f"{MONTHS[free.month - 1]} {free.day}")


VENUES = ("Lakeside Pavilion", "Rooftop Garden Bar", "Maple Street Hall", "Riverside Amphitheater",
          "Old Town Bookshop", "Northgate Climbing Gym")


@register_task
class QueryEventAtLocation(TaskTemplate):
    name = "calendar_query_event_at_location"
    apps = ("Calendar",)
    kind = "query"
    complexity = 1
    optimal_steps = 5
    goal_template = "What do I have scheduled at {venue}? Answer with the event's title."
    goal_phrasings = (
        "Which event in my calendar takes place at {venue}? Just the title, please.",
        "Could you look up the event whose location is {venue} and tell me what it's called?",
        "Event at {venue} - what's its name?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        title, decoy = rng.sample(TITLES, 2)
        return {"venue": rng.choice(VENUES), "title": title, "decoy": decoy, "day": rng.randint(2, 30),
                "decoy_day": rng.randint(2, 30), "hour": rng.randint(9, 18)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        v = params["venue"]
        phone.execute("DELETE FROM events WHERE eventLocation LIKE ? OR description LIKE ? OR title IN (?, ?)",
                      (f"%{v}%", f"%{v}%", params["title"], params["decoy"]))
        d, h = TODAY + timedelta(days=params["day"]), params["hour"]
        add_event(phone, params["title"], at(d, h), at(d, h + 1), location=v)
        d = TODAY + timedelta(days=params["decoy_day"])  # mentions the place but happens elsewhere
        add_event(phone, params["decoy"], at(d, h), at(d, h + 1), location="City Hall",
                  description=f"Last year's was at {v}.")

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = answer_matches(answer, params["title"]) and no_other(answer, [params["decoy"]])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return to_search_result(phone, obs, params["venue"]) or answer(params["title"])


# ---- round 3: next occurrence, totals, free/busy, counts in a month, series, merges, splits, clean-ups -----
WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def count_answers(n: int) -> list[str]:
    return [str(n)] + ([WORDS[n]] if n < len(WORDS) else [])


@register_task
class QueryNextOccurrence(TaskTemplate):
    name = "calendar_query_next_occurrence"
    apps = ("Calendar",)
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = "When is my next \"{title}\" coming up? Answer with the date."
    goal_phrasings = (
        "What's the date of the next \"{title}\" in my calendar (the first one after today)?",
        "Could you check when \"{title}\" happens next and tell me the date?",
        "Next upcoming \"{title}\" - which date?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        nxt = rng.randint(2, 12)
        return {"title": rng.choice(RECURRING), "past": sorted(rng.sample(range(-20, 0), 2)), "next": nxt,
                "later": nxt + rng.choice((7, 14)), "hour": rng.choice((7, 17, 18, 19))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        t, h = params["title"], params["hour"]
        phone.execute("DELETE FROM events WHERE lower(title) LIKE ?", (f"%{t.lower()}%",))
        for off in (*params["past"], params["next"], params["later"]):
            d = TODAY + timedelta(days=off)
            add_event(phone, t, at(d, h), at(d, h + 1), location="Community Center")
        d = TODAY + timedelta(days=params["next"] - 1)  # sooner, but not the same event
        add_event(phone, f"{t} (cancelled)", at(d, h), at(d, h + 1), location="Community Center")

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        days = {k: TODAY + timedelta(days=params[k]) for k in ("next", "later")}
        others = [TODAY + timedelta(days=o) for o in (*params["past"], params["later"], params["next"] - 1)]
        bad = [a for d in others for a in date_answers(d)]
        ok = matches_any(answer, date_answers(days["next"])) and no_other(answer, bad)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        d = TODAY + timedelta(days=params["next"])
        return to_search_result(phone, obs, params["title"]) or answer(f"{MONTHS[d.month - 1]} {d.day}")


@register_task
class QueryBookedMinutes(TaskTemplate):
    name = "calendar_query_booked_minutes"
    apps = ("Calendar",)
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = ("How much time is booked in total on {date_text}, not counting all-day events? Answer in "
                     "minutes.")
    goal_phrasings = (
        "Add up the lengths of my timed events on {date_text} (skip all-day ones). How many minutes is that?",
        "Could you tell me the total number of minutes scheduled on {date_text}? All-day events don't count.",
        "{date_text}: total minutes of events, excluding all-day ones?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = future_day(rng, 2, 25)
        n = rng.randint(2, 3)
        return {"date": d.isoformat(), "date_text": date_text(d), "titles": rng.sample(TITLES, n),
                "hours": sorted(rng.sample(range(8, 19, 2), n)), "minutes": [rng.choice((0, 30)) for _ in range(n)],
                "durations": [rng.choice((15, 30, 45, 60, 75, 90)) for _ in range(n)],
                "all_day": rng.choice(ALL_DAY_TITLES)}

    def total(self, params: dict[str, Any]) -> int:
        return sum(params["durations"])

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        d = date.fromisoformat(params["date"])
        clear_day(phone, d)
        for t, h, m, dur in zip(params["titles"], params["hours"], params["minutes"], params["durations"],
                                strict=True):
            phone.execute("DELETE FROM events WHERE title=?", (t,))
            add_event(phone, t, at(d, h, m), at(d, h, m) + timedelta(minutes=dur))
        add_event(phone, params["all_day"], at(d, 0), at(d, 0), all_day=True)  # 24 hours that do not count

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        nums = {n.replace(",", "") for n in NUMBER.findall(answer or "")}
        return 1.0 if nums == {str(self.total(params))} else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return to_day(phone, obs, date.fromisoformat(params["date"])) or answer(f"{self.total(params)} minutes")


@register_task
class QuerySlotFree(TaskTemplate):
    name = "calendar_query_slot_free"
    apps = ("Calendar",)
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "Am I free on {date_text} from {start_text} to {end_text}? Answer yes or no."
    goal_phrasings = (
        "Is {start_text}-{end_text} on {date_text} open in my calendar? Just yes or no.",
        ("Could you check whether I have anything between {start_text} and {end_text} on {date_text}? Reply yes if "
         "I'm free, no if not."),
        "{date_text}, {start_text} to {end_text}: free? (yes/no)",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = future_day(rng, 2, 25)
        h, dur = rng.randint(10, 15), rng.choice((60, 90, 120))
        end = at(d, h) + timedelta(minutes=dur)
        return {"date": d.isoformat(), "date_text": date_text(d), "hour": h, "duration": dur,
                "start_text": time_text(h, 0), "end_text": time_text(end.hour, end.minute),
                "busy": rng.random() < 0.5, "clash_offset": rng.choice((-30, 15, dur - 15)),
                "titles": rng.sample(TITLES, 3)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        d = date.fromisoformat(params["date"])
        clear_day(phone, d)
        s = at(d, params["hour"])
        e = s + timedelta(minutes=params["duration"])
        before, after, clash = params["titles"]
        for t in params["titles"]:
            phone.execute("DELETE FROM events WHERE title=?", (t,))
        add_event(phone, before, s - timedelta(minutes=60), s)  # touches the slot: no conflict
        add_event(phone, after, e, e + timedelta(minutes=45))
        if params["busy"]:
            c = s + timedelta(minutes=params["clash_offset"])
            add_event(phone, clash, c, c + timedelta(minutes=45))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want, other = ("no", "yes") if params["busy"] else ("yes", "no")
        return 1.0 if answer_matches(answer, want) and not answer_matches(answer, other) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return to_day(phone, obs, date.fromisoformat(params["date"])) or answer("no" if params["busy"] else "yes")


def birthday_months() -> list[tuple[int, int]]:
    return [(2024, 10), (2024, 11), (2024, 12)]


@register_task
class QueryBirthdaysInMonth(TaskTemplate):
    name = "calendar_query_birthdays_in_month"
    apps = ("Calendar",)
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = "How many birthdays are in my calendar in {month_text}? Answer with a number."
    goal_phrasings = (
        "Count the birthdays I have in the calendar for {month_text} and give me the number.",
        "Could you tell me how many birthday events fall in {month_text}?",
        "Number of birthdays in {month_text} (from my calendar)?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        y, m = rng.choice(birthday_months())
        n = rng.randint(1, 4)
        people = rng.sample(BIRTHDAY_PEOPLE + ("Emma", "Liam", "Ava", "Lucas"), n + 2)
        inside = rng.sample(range(1, 29), n)
        return {"year": y, "month": m, "month_text": f"{MONTHS[m - 1]} {y}", "count": n, "people": people,
                "days": inside, "outside": [rng.randint(1, 28), rng.randint(1, 28)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM events WHERE lower(title) LIKE '%birthday%'")
        y, m, n = params["year"], params["month"], params["count"]
        for who, day in zip(params["people"][:n], params["days"], strict=True):
            d = date(y, m, day)
            add_event(phone, f"{who}'s birthday", at(d, 0), at(d, 0), all_day=True, description="Don't forget a card!")
        for who, day, delta in zip(params["people"][n:], params["outside"], (-1, 1), strict=True):
            idx = y * 12 + m - 1 + delta  # the months before and after have one each
            d = date(idx // 12, idx % 12 + 1, day)
            add_event(phone, f"{who}'s birthday", at(d, 0), at(d, 0), all_day=True, description="Don't forget a card!")
        d = date(y, m, 1 + params["outside"][0] % 27)  # mentions birthdays, but is not one
        add_event(phone, "Buy birthday presents", at(d, 17), at(d, 18), location="Mall")

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        n = params["count"]
        bad = [o for k in range(6) if k != n for o in count_answers(k)]
        return 1.0 if matches_any(answer, count_answers(n)) and no_other(answer, bad) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return to_search_result(phone, obs, "birthday") or answer(str(params["count"]))


def only_new_is(phone: Phone, base: dict[int, tuple], want: dict[str, Any],
                edits: dict[int, dict[str, Any]] | None = None) -> bool:
    """Exactly one event was added and it has ``want``'s title and times (its place and notes may be
    anything); the starting events are unchanged except ``edits`` (full form values)."""
    cur = rows_now(phone)
    new = [r for i, r in cur.items() if i not in base]
    if len(new) != 1 or not set(base) <= set(cur):
        return False
    edits = edits or {}
    if any(form_values(cur[i]) != edits.get(i, form_values(r)) for i, r in base.items()):
        return False
    got = {**form_values(new[0]), "location": "", "description": ""}
    return got == {**want, "location": "", "description": ""}


def create_one_step(phone: Phone, obs: Observation, base: dict[int, tuple], want: dict[str, Any],
                    edits: dict[int, dict[str, Any]] | None = None) -> Action:
    """Next step toward ``only_new_is``: repair the starting events, then create (or fix) the one new event."""
    if only_new_is(phone, base, want, edits):
        return COMPLETE
    fill = {k: v for k, v in want.items() if k not in ("location", "description")}
    step = repair_step(phone, obs, base, set(), edits or {}, keep_new=1)
    if step is not None:
        return step
    new = sorted(i for i in rows_now(phone) if i not in base)
    if new:
        return open_row(phone, obs, event_row(phone, new[0])) or fill_form(phone, obs, fill)
    return open_new_form(phone, obs) or fill_form(phone, obs, fill)


SERIES_TITLES = ("On call", "Work from home", "School pickup duty", "Office day", "No meetings day")


@register_task
class CreateWeeklyAllDay(TaskTemplate):
    name = "calendar_create_weekly_all_day"
    apps = ("Calendar",)
    complexity = 3
    optimal_steps = 24
    goal_template = ("Add an all-day event \"{title}\" on every {weekday} from {start_text} through {end_text} "
                     "(one event per {weekday}).")
    goal_phrasings = (
        ("Could you mark each {weekday} between {start_text} and {end_text} with an all-day \"{title}\" event? One "
         "separate event for each of those days."),
        "Every {weekday} from {start_text} to {end_text} is \"{title}\" - put an all-day event on each of them.",
        "All-day \"{title}\" on each {weekday}, {start_text} through {end_text}, please (separate events).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first = future_day(rng, 3, 20)
        n = rng.randint(2, 3)
        lo = max(TODAY + timedelta(days=1), first - timedelta(days=rng.randint(0, 6)))
        hi = first + timedelta(days=7 * (n - 1) + rng.randint(0, 6))
        return {"title": rng.choice(SERIES_TITLES), "weekday": WEEKDAYS[first.weekday()],
                "first": first.isoformat(), "count": n, "start_text": date_text(lo), "end_text": date_text(hi)}

    def days(self, params: dict[str, Any]) -> list[date]:
        first = date.fromisoformat(params["first"])
        return [first + timedelta(days=7 * k) for k in range(params["count"])]

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM events WHERE title=?", (params["title"],))
        last_week = date.fromisoformat(params["first"]) - timedelta(days=14)  # an earlier one, outside the range
        add_event(phone, params["title"], at(last_week, 0), at(last_week, 0), all_day=True)

    def wanted(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"title": params["title"], "location": "", "description": "", "all_day": True, "start": at(d, 0),
                 "end": at(d, 0)} for d in self.days(params)]

    @staticmethod
    def _key(v: dict[str, Any]) -> tuple:
        return (v["title"], v["all_day"], v["start"], v["end"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        base, cur = start_rows(phone, self, params), rows_now(phone)
        if any(cur.get(i) != r for i, r in base.items()):
            return 0.0
        got = sorted(self._key(form_values(r)) for i, r in cur.items() if i not in base)
        return 1.0 if got == sorted(self._key(w) for w in self.wanted(params)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        base = start_rows(phone, self, params)
        step = repair_step(phone, obs, base, set(), {}, keep_new=10**6)
        if step is not None:
            return step
        cur = rows_now(phone)
        todo = self.wanted(params)
        for j in sorted(i for i in cur if i not in base):
            k = self._key(form_values(cur[j]))
            hit = next((w for w in todo if self._key(w) == k), None)
            if hit is None:
                return delete_row(phone, obs, event_row(phone, j))  # wrong day, a copy, or not all-day
            todo.remove(hit)
        if not todo:
            return COMPLETE
        fill = {k: v for k, v in todo[0].items() if k not in ("location", "description")}
        return open_new_form(phone, obs) or fill_form(phone, obs, fill)


@register_task
class MergeEvents(StateTemplate):
    name = "calendar_merge_events"
    complexity = 3
    optimal_steps = 14
    goal_template = ("On {date_text}, fold \"{second}\" into \"{first}\": make \"{first}\" last until \"{second}\" "
                     "ends, then delete \"{second}\".")
    goal_phrasings = (
        ("Could you merge my {date_text} events \"{first}\" and \"{second}\" into one? Keep \"{first}\", stretch it "
         "to the end time of \"{second}\", and remove \"{second}\"."),
        ("\"{second}\" on {date_text} is now part of \"{first}\". Extend \"{first}\" to finish when \"{second}\" "
         "does and delete \"{second}\"."),
        ("Calendar, {date_text}: one combined \"{first}\" running until the end of \"{second}\"; \"{second}\" "
         "itself goes away."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = future_day(rng, 2, 20)
        first, second = rng.sample(TITLES, 2)
        return {"date": d.isoformat(), "date_text": date_text(d), "first": first, "second": second,
                "hour": rng.randint(9, 14), "minute": rng.choice((0, 30)), "duration": rng.choice((30, 60, 90)),
                "gap": rng.choice((0, 0, 15, 30)), "second_duration": rng.choice((30, 45, 60, 90))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for t in (params["first"], params["second"]):
            phone.execute("DELETE FROM events WHERE title=?", (t,))
        s = at(date.fromisoformat(params["date"]), params["hour"], params["minute"])
        e = s + timedelta(minutes=params["duration"])
        add_event(phone, params["first"], s, e, location=rng_free_place(s), description="Added by you.")
        s2 = e + timedelta(minutes=params["gap"])
        add_event(phone, params["second"], s2, s2 + timedelta(minutes=params["second_duration"]),
                  location=rng_free_place(s2))

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        (a,) = ids_titled(base, params["first"])
        (b,) = ids_titled(base, params["second"])
        return {b}, {a: {**form_values(base[a]), "end": form_values(base[b])["end"]}}


CLOSED_VENUES = ("Downtown Rec Center", "Pinewood Community Pool", "Elm Street Studio", "Harborfront Gallery")


@register_task
class DeleteEventsAtVenue(StateTemplate):
    name = "calendar_delete_events_at_venue"
    complexity = 3
    optimal_steps = 15
    goal_template = ("{venue} has closed. Delete every event in my calendar whose location is {venue}; events "
                     "anywhere else stay.")
    goal_phrasings = (
        ("Could you remove all of my events that take place at {venue}? It's shut down. Don't touch events at "
         "other places."),
        "{venue} is closed for good - cancel each calendar event located there, and nothing else.",
        "Calendar clean-up: delete the events held at {venue} (only those with that location).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        n = rng.randint(2, 3)
        return {"venue": rng.choice(CLOSED_VENUES), "count": n, "titles": rng.sample(TITLES, n + 1),
                "days": rng.sample(range(1, 30), n + 1), "hours": [rng.randint(9, 18) for _ in range(n + 1)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        v, n = params["venue"], params["count"]
        phone.execute("DELETE FROM events WHERE eventLocation LIKE ? OR description LIKE ?", (f"%{v}%", f"%{v}%"))
        for i, (t, off, h) in enumerate(zip(params["titles"], params["days"], params["hours"], strict=True)):
            phone.execute("DELETE FROM events WHERE title=?", (t,))
            d = TODAY + timedelta(days=off)
            if i < n:
                add_event(phone, t, at(d, h), at(d, h + 1), location=v)
            else:  # the search finds it too, but it has moved elsewhere
                add_event(phone, t, at(d, h), at(d, h + 1), location="City Hall",
                          description=f"Moved here from {v}.")

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        return {i for i, r in base.items() if r[2] == params["venue"]}, {}

    def opener(self, params: dict[str, Any]) -> Opener:
        venue = params["venue"]

        def by_venue(phone: Phone, obs: Observation, ev: Any) -> Action | None:
            # the goal names the place, not the events: search it (the results show each one's location)
            shown = venue.lower() in " ".join(ev[c] or "" for c in ("title", "eventLocation", "description")).lower()
            return open_row(phone, obs, ev, query=venue if shown else None)

        return by_venue


@register_task
class MoveToFreeDay(StateTemplate):
    name = "calendar_move_to_free_day"
    complexity = 3
    optimal_steps = 9
    goal_template = ("Move \"{title}\" to the one day from {start_text} to {end_text} that has nothing else "
                     "scheduled; keep its time.")
    goal_phrasings = (
        ("Between {start_text} and {end_text} there's exactly one empty day in my calendar. Could you reschedule "
         "\"{title}\" to that day at the same time?"),
        ("Find the free day from {start_text} through {end_text} and move \"{title}\" there (same start and end "
         "time)."),
        "\"{title}\" should go on whichever day between {start_text} and {end_text} is completely free; same hours.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        start = future_day(rng, 7, 25)
        orig = start - timedelta(days=rng.randint(1, 5))
        end = start + timedelta(days=4)
        return {"title": rng.choice(TITLES), "range_start": start.isoformat(), "start_text": date_text(start),
                "end_text": date_text(end), "free": rng.randint(0, 4), "date": orig.isoformat(),
                "hour": rng.randint(9, 17), "minute": rng.choice((0, 30)), "duration": rng.choice((30, 60, 90))}

    def days(self, params: dict[str, Any]) -> list[date]:
        return [date.fromisoformat(params["range_start"]) + timedelta(days=i) for i in range(5)]

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM events WHERE title=?", (params["title"],))
        for i, d in enumerate(self.days(params)):
            if i == params["free"]:
                clear_day(phone, d)
            elif not events_on(phone, d):
                add_event(phone, "Errands", at(d, 10), at(d, 11), description="Post office and pharmacy.")
        s = at(date.fromisoformat(params["date"]), params["hour"], params["minute"])
        add_event(phone, params["title"], s, s + timedelta(minutes=params["duration"]), location=rng_free_place(s))

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        (i,) = ids_titled(base, params["title"])
        shift = self.days(params)[params["free"]] - date.fromisoformat(params["date"])
        v = form_values(base[i])
        return set(), {i: {**v, "start": v["start"] + shift, "end": v["end"] + shift}}


@register_task
class RemoveDuplicateEvents(StateTemplate):
    name = "calendar_remove_duplicate_events"
    complexity = 2
    optimal_steps = 11
    goal_template = ("Some events on {date_text} were entered twice (same title and same time). Delete the extra "
                     "copies so each of them is there only once.")
    goal_phrasings = (
        ("My calendar has duplicate entries on {date_text}: identical events listed two times. Could you remove the "
         "duplicates and keep one of each?"),
        ("On {date_text}, a few events show up twice with the same title and time. Delete one copy of each; leave "
         "everything else."),
        "Clean up {date_text}: exact duplicate events (same name, same time) should appear only once.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = future_day(rng, 2, 25)
        return {"date": d.isoformat(), "date_text": date_text(d), "titles": rng.sample(TITLES, 4),
                "hours": sorted(rng.sample(range(8, 20, 2), 5)), "dups": sorted(rng.sample(range(4), 2))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        d = date.fromisoformat(params["date"])
        clear_day(phone, d)
        hours = params["hours"]
        for t in params["titles"]:
            phone.execute("DELETE FROM events WHERE title=?", (t,))
        for i, t in enumerate(params["titles"]):
            add_event(phone, t, at(d, hours[i]), at(d, hours[i], 45), location=LOCATIONS[i])
        for i in params["dups"]:
            t = params["titles"][i]
            add_event(phone, t, at(d, hours[i]), at(d, hours[i], 45), location=LOCATIONS[i])
        single = min(set(range(4)) - set(params["dups"]))  # same title again, another time: not a copy
        add_event(phone, params["titles"][single], at(d, hours[4]), at(d, hours[4], 45), location=LOCATIONS[single])

    @staticmethod
    def pairs(base: dict[int, tuple]) -> list[list[int]]:
        groups: dict[tuple, list[int]] = {}
        for i, r in sorted(base.items()):
            groups.setdefault(r[1:], []).append(i)
        return [g for g in groups.values() if len(g) > 1]

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        return {i for g in self.pairs(base) for i in g[1:]}, {}

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        base = start_rows(phone, self, params)
        cur = rows_now(phone)
        for g in self.pairs(base):
            left = [i for i in g if i in cur]
            if len(left) > 1:  # picked in the day's list (the goal names no title); its twin may go instead
                return delete_row(phone, obs, event_row(phone, left[-1]), open_from_day)
        return repair_step(phone, obs, base, set(), {}, opener=open_from_day) or COMPLETE


@register_task
class SplitEvent(TaskTemplate):
    name = "calendar_split_event"
    apps = ("Calendar",)
    complexity = 3
    optimal_steps = 21
    goal_template = ("Split \"{title}\" on {date_text} at {mid_text}: it should end at {mid_text}, and a new event "
                     "\"{new_title}\" should run from {mid_text} until the time \"{title}\" ends now.")
    goal_phrasings = (
        ("Could you cut my {date_text} \"{title}\" in two at {mid_text}? \"{title}\" stops at {mid_text} and a new "
         "\"{new_title}\" covers the rest, up to its current end time."),
        ("Break \"{title}\" ({date_text}) into two events: \"{title}\" until {mid_text}, then \"{new_title}\" from "
         "{mid_text} to where \"{title}\" finishes today."),
        ("{date_text}: shorten \"{title}\" to end at {mid_text} and add \"{new_title}\" from {mid_text} to the "
         "original end time of \"{title}\"."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = future_day(rng, 2, 20)
        h, m = rng.randint(9, 14), rng.choice((0, 30))
        dur = rng.choice((120, 150, 180, 240))
        mid = at(d, h, m) + timedelta(minutes=rng.choice(range(60, dur - 29, 30)))
        title = rng.choice(TITLES)
        return {"date": d.isoformat(), "date_text": date_text(d), "title": title, "new_title": f"{title}, part 2",
                "hour": h, "minute": m, "duration": dur, "mid": mid.isoformat(),
                "mid_text": time_text(mid.hour, mid.minute)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for t in (params["title"], params["new_title"]):
            phone.execute("DELETE FROM events WHERE title=?", (t,))
        s = at(date.fromisoformat(params["date"]), params["hour"], params["minute"])
        add_event(phone, params["title"], s, s + timedelta(minutes=params["duration"]), location=rng_free_place(s))

    def plan(self, phone: Phone, params: dict[str, Any]) -> tuple[dict[int, tuple], dict[str, Any], dict[int, dict]]:
        base = start_rows(phone, self, params)
        (i,) = ids_titled(base, params["title"])
        v, mid = form_values(base[i]), datetime.fromisoformat(params["mid"])
        want = {"title": params["new_title"], "location": "", "description": "", "all_day": False, "start": mid,
                "end": v["end"]}
        return base, want, {i: {**v, "end": mid}}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        base, want, edits = self.plan(phone, params)
        return 1.0 if only_new_is(phone, base, want, edits) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        base, want, edits = self.plan(phone, params)
        return create_one_step(phone, obs, base, want, edits)


@register_task
class UseLocationOfEvent(StateTemplate):
    name = "calendar_use_location_of_event"
    complexity = 2
    optimal_steps = 7
    goal_template = ("\"{title}\" takes place where my \"{other}\" event is. Set the location of \"{title}\" to "
                     "that place.")
    goal_phrasings = (
        "Could you give \"{title}\" the same location as \"{other}\"? Look the place up in my calendar.",
        "\"{title}\" is at the same venue as \"{other}\" - copy that event's location onto \"{title}\".",
        "Set where \"{title}\" happens to whatever location \"{other}\" has in the calendar.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        title, other = rng.sample(TITLES, 2)
        place, decoy_place = rng.sample(LOCATIONS, 2)
        return {"title": title, "other": other, "place": place, "decoy_place": decoy_place,
                "days": rng.sample(range(1, 25), 3), "hours": [rng.randint(9, 18) for _ in range(3)],
                "had_place": rng.random() < 0.5}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        t, o = params["title"], params["other"]
        phone.execute("DELETE FROM events WHERE title=? OR title LIKE ?", (t, f"{o}%"))
        (d1, d2, d3) = (TODAY + timedelta(days=k) for k in params["days"])
        h1, h2, h3 = params["hours"]
        add_event(phone, t, at(d1, h1), at(d1, h1, 45), location="To be decided" if params["had_place"] else "")
        add_event(phone, o, at(d2, h2), at(d2, h2 + 1), location=params["place"])
        add_event(phone, f"{o} (rehearsal)", at(d3, h3), at(d3, h3 + 1),  # not the one
                  location=params["decoy_place"])

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        (i,) = ids_titled(base, params["title"])
        return set(), {i: {**form_values(base[i]), "location": params["place"]}}

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        base = start_rows(phone, self, params)
        deleted, edits = self.goal_state(base, params)
        if state_is(phone, base, deleted, edits):
            return COMPLETE
        other = only_event(phone, params["other"])
        if other is None:
            return COMPLETE  # the event to copy the place from is gone: nothing to read it from
        step = look_first(phone, f"event {other['_id']}",  # its form shows the place to copy
                          lambda: open_event_row(phone, obs, other) or dismiss_popups(phone))
        return step or repair_step(phone, obs, base, deleted, edits) or COMPLETE


ANCHORS = ("Board meeting", "Parent coffee morning", "Orientation session", "Team retrospective")
FOLLOW_UPS = ("Write up notes", "Debrief with Alex", "Walk to the station", "Quick call with Mom")


@register_task
class AddAfterEvent(TaskTemplate):
    name = "calendar_add_after_event"
    apps = ("Calendar",)
    complexity = 3
    optimal_steps = 16
    goal_template = ("Add a {minutes}-minute event \"{title}\" on {date_text} that starts right when my "
                     "\"{anchor}\" ends.")
    goal_phrasings = (
        ("Could you schedule \"{title}\" for {minutes} minutes straight after \"{anchor}\" on {date_text}? Check the "
         "calendar for when it finishes."),
        "On {date_text}, as soon as \"{anchor}\" is over, I need \"{title}\" ({minutes} minutes). Please add it.",
        "New event \"{title}\": {date_text}, beginning at the end time of \"{anchor}\", {minutes} minutes long.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = future_day(rng, 2, 20)
        return {"anchor": rng.choice(ANCHORS), "title": rng.choice(FOLLOW_UPS), "date": d.isoformat(),
                "date_text": date_text(d), "hour": rng.randint(9, 16), "minute": rng.choice((0, 15, 30, 45)),
                "duration": rng.choice((45, 60, 75, 90, 120)), "minutes": rng.choice((15, 30, 45, 60)),
                "other_day": rng.choice((-7, 7)), "other_hour": rng.randint(8, 17)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for t in (params["anchor"], params["title"]):
            phone.execute("DELETE FROM events WHERE title=?", (t,))
        s = at(date.fromisoformat(params["date"]), params["hour"], params["minute"])
        add_event(phone, params["anchor"], s, s + timedelta(minutes=params["duration"]), location=rng_free_place(s))
        o = at(date.fromisoformat(params["date"]) + timedelta(days=params["other_day"]), params["other_hour"])
        add_event(phone, params["anchor"], o, o + timedelta(minutes=30), location=rng_free_place(o))  # other day

    def want(self, params: dict[str, Any]) -> dict[str, Any]:
        s = at(date.fromisoformat(params["date"]), params["hour"], params["minute"]) + \
            timedelta(minutes=params["duration"])
        return {"title": params["title"], "location": "", "description": "", "all_day": False, "start": s,
                "end": s + timedelta(minutes=params["minutes"])}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if only_new_is(phone, start_rows(phone, self, params), self.want(params)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        base, want = start_rows(phone, self, params), self.want(params)
        if only_new_is(phone, base, want):
            return COMPLETE
        step = repair_step(phone, obs, base, set(), {}, keep_new=1)
        if step is not None:
            return step
        d = date.fromisoformat(params["date"])
        anchor = next((e for e in events_on(phone, d) if e["title"] == params["anchor"]), None)
        if anchor is None:
            return COMPLETE  # the anchor is gone (cannot come back): no end time to read
        fill = {k: v for k, v in want.items() if k not in ("location", "description")}
        new = sorted(i for i in rows_now(phone) if i not in base)
        if new:  # a wrong one saved: fixed from the day's list, which shows the anchor's end too
            ev = event_row(phone, new[0])
            if from_ms(ev["dtstart"]).date() != d:
                return delete_row(phone, obs, ev)  # on another day: made again from the anchor's day
            return open_from_day(phone, obs, ev) or fill_form(phone, obs, fill)
        # the day's list shows when the anchor ends; its New event button starts the form on that day
        return new_form_from_day(phone, obs, d, anchor) or fill_form(phone, obs, fill)


# ---- round 4: running late, the odd one out, partly done series, if-then edits, by property, derived dates and
# durations; questions that rank, order, count days and check a series -------------------------------------------
class LookThenRepair(StateTemplate):
    """A :class:`StateTemplate` whose oracle first goes where the value it acts on is shown (``looks``)."""

    def looks(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action | None:
        return None

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        base = start_rows(phone, self, params)
        deleted, edits = self.goal_state(base, params)
        if state_is(phone, base, deleted, edits):
            return COMPLETE
        step = self.looks(phone, params, obs)
        return step or repair_step(phone, obs, base, deleted, edits, opener=self.opener(params)) or COMPLETE


def look_at_search(phone: Phone, obs: Observation, query: str) -> Action | None:
    """Look at the search results for ``query`` once (they show each match's day and times)."""
    return look_first(phone, f"search {query}", lambda: to_search_result(phone, obs, query))


def timed_on(base: dict[int, tuple], d: date) -> list[int]:
    """Ids of the timed starting events that start on ``d``, by start time."""
    return sorted((i for i, r in base.items() if not r[6] and from_ms(r[4]).date() == d), key=lambda i: base[i][4])


@register_task
class PushBackLaterEvents(StateTemplate):
    name = "calendar_push_back_later_events"
    complexity = 3
    optimal_steps = 18
    goal_template = ("My \"{title}\" on {date_text} is running {minutes} minutes late, and so is everything after it "
                     "that day. Push \"{title}\" and each later event of {date_text} back by {minutes} minutes; "
                     "earlier events and all-day ones stay as they are.")
    goal_phrasings = (
        ("Everything from \"{title}\" onwards on {date_text} slips by {minutes} minutes. Could you move \"{title}\" "
         "and the events after it {minutes} minutes later? Leave the earlier ones and the all-day event alone."),
        ("{date_text}: \"{title}\" starts {minutes} minutes late, which delays the rest of the day. Shift it and "
         "every event that comes after it by {minutes} minutes (same lengths); nothing before it changes."),
        ("Delay \"{title}\" on {date_text} by {minutes} minutes, and do the same for all the events later that day; "
         "earlier and all-day events keep their times."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = future_day(rng, 2, 25)
        titles = rng.sample(TITLES, 4)
        k = rng.randint(1, 2)
        return {"date": d.isoformat(), "date_text": date_text(d), "titles": titles, "title": titles[k],
                "hours": sorted(rng.sample(range(8, 18), 4)), "minute_marks": [rng.choice((0, 15)) for _ in range(4)],
                "durations": [rng.choice((30, 45)) for _ in range(4)], "minutes": rng.choice((15, 30, 45, 60)),
                "all_day": rng.choice(ALL_DAY_TITLES)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        d = date.fromisoformat(params["date"])
        clear_day(phone, d)
        for t, h, m, dur in zip(params["titles"], params["hours"], params["minute_marks"], params["durations"],
                                strict=True):
            phone.execute("DELETE FROM events WHERE title=?", (t,))
            add_event(phone, t, at(d, h, m), at(d, h, m) + timedelta(minutes=dur), location=rng_free_place(at(d, h)))
        add_event(phone, params["all_day"], at(d, 0), at(d, 0), all_day=True)

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        (i,) = ids_titled(base, params["title"])
        shift = timedelta(minutes=params["minutes"])
        edits = {}
        for j in timed_on(base, date.fromisoformat(params["date"])):
            if base[j][4] >= base[i][4]:
                v = form_values(base[j])
                edits[j] = {**v, "start": v["start"] + shift, "end": v["end"] + shift}
        return set(), edits

    def opener(self, params: dict[str, Any]) -> Opener:
        return open_from_day  # the day list shows which events come after it


@register_task
class FixOddSeriesTime(StateTemplate):
    name = "calendar_fix_odd_series_time"
    complexity = 3
    optimal_steps = 10
    goal_template = ("Every \"{title}\" in my calendar runs from {start_text} to {end_text}, but one of them was entered "
                     "at another time by mistake. Find that one and correct its time; keep its date.")
    goal_phrasings = (
        ("One \"{title}\" event in my calendar has the wrong time - they're always {start_text} to {end_text}. "
         "Could you find it and fix it (same day)?"),
        ("\"{title}\" is always from {start_text} until {end_text}. Correct the one entry that says otherwise, "
         "without moving it to another day."),
        ("Fix the odd \"{title}\" out: every one should be {start_text}-{end_text}, one isn't. Leave its date "
         "and the other ones alone."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        h = rng.choice((7, 17, 18, 19))
        dur = rng.choice((45, 60, 90))
        end = at(TODAY, h) + timedelta(minutes=dur)
        n = rng.randint(4, 5)
        return {"title": rng.choice(RECURRING), "first": rng.randint(-3, 5), "sessions": n, "hour": h,
                "duration": dur, "start_text": time_text(h, 0), "end_text": time_text(end.hour, end.minute),
                "odd": rng.randint(0, n - 1), "shift": rng.choice((-60, -30, 30, 60, 120)),
                "social_week": rng.randint(0, n - 1)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        t, h, dur = params["title"], params["hour"], params["duration"]
        phone.execute("DELETE FROM events WHERE lower(title) LIKE ?", (f"%{t.lower()}%",))
        first = TODAY + timedelta(days=params["first"])
        for w in range(params["sessions"]):
            s = at(first + timedelta(days=7 * w), h)
            if w == params["odd"]:
                s += timedelta(minutes=params["shift"])
            add_event(phone, t, s, s + timedelta(minutes=dur), location="Community Center")
        d = first + timedelta(days=7 * params["social_week"] + 3)  # a look-alike at another time that stays
        add_event(phone, f"{t} social", at(d, 20), at(d, 22), location="Harbor View Restaurant")

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        edits = {}
        for i in ids_titled(base, params["title"]):
            v = form_values(base[i])
            s = at(v["start"].date(), params["hour"])
            if v["start"] != s:
                edits[i] = {**v, "start": s, "end": s + timedelta(minutes=params["duration"])}
        return set(), edits

    def opener(self, params: dict[str, Any]) -> Opener:
        title = params["title"]

        def after_looking(phone: Phone, obs: Observation, ev: Any) -> Action | None:
            # the search lists every session with its times: the odd one is picked there
            return look_at_search(phone, obs, title) or open_row(phone, obs, ev)

        return after_looking


DAILY_TITLES = ("Morning run", "Meditation session", "Language practice", "Stretching routine")


@register_task
class CompleteDailySeries(TaskTemplate):
    name = "calendar_complete_daily_series"
    apps = ("Calendar",)
    complexity = 3
    optimal_steps = 40
    goal_template = ("I want \"{title}\" from {start_text} to {end_text} on every day from {first_text} through "
                     "{last_text}. Some of those days already have it: add it only to the days that don't, so each "
                     "day has exactly one.")
    goal_phrasings = (
        ("Every day from {first_text} to {last_text} should have \"{title}\", {start_text} to {end_text}. A few are "
         "already in my calendar - could you fill in the missing days without doubling any?"),
        ("Finish my \"{title}\" plan: {start_text}-{end_text} each day, {first_text} through {last_text}. Only add it "
         "where it isn't there yet."),
        ("Some days between {first_text} and {last_text} are missing \"{title}\" ({start_text} to {end_text}). Add it "
         "on those days so every day in that range has one, and no day has two."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first = future_day(rng, 2, 25)
        last = first + timedelta(days=3)
        h, m = rng.choice((6, 7, 18, 19)), rng.choice((0, 30))
        end = at(first, h, m) + timedelta(minutes=rng.choice((30, 45, 60)))
        return {"title": rng.choice(DAILY_TITLES), "first": first.isoformat(), "first_text": date_text(first),
                "last_text": date_text(last), "hour": h, "minute": m, "end_hour": end.hour, "end_minute": end.minute,
                "start_text": time_text(h, m), "end_text": time_text(end.hour, end.minute),
                "present": sorted(rng.sample(range(4), rng.randint(1, 2)))}

    def days(self, params: dict[str, Any]) -> list[date]:
        first = date.fromisoformat(params["first"])
        return [first + timedelta(days=k) for k in range(4)]

    def slot(self, params: dict[str, Any], d: date) -> tuple[datetime, datetime]:
        return at(d, params["hour"], params["minute"]), at(d, params["end_hour"], params["end_minute"])

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        t = params["title"]
        phone.execute("DELETE FROM events WHERE title=?", (t,))
        days = self.days(params)
        for k in params["present"]:
            add_event(phone, t, *self.slot(params, days[k]), location="Riverside Park")
        before = days[0] - timedelta(days=2)  # an earlier one, outside the range
        add_event(phone, t, *self.slot(params, before), location="Riverside Park")

    def wanted(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        days = self.days(params)
        out = []
        for k, d in enumerate(days):
            if k not in params["present"]:
                s, e = self.slot(params, d)
                out.append({"title": params["title"], "all_day": False, "start": s, "end": e})
        return out

    @staticmethod
    def _key(v: dict[str, Any]) -> tuple:
        return (v["title"], v["all_day"], v["start"], v["end"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        base, cur = start_rows(phone, self, params), rows_now(phone)
        if any(cur.get(i) != r for i, r in base.items()):
            return 0.0
        got = sorted(self._key(form_values(r)) for i, r in cur.items() if i not in base)
        return 1.0 if got == sorted(self._key(w) for w in self.wanted(params)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        base = start_rows(phone, self, params)
        step = repair_step(phone, obs, base, set(), {}, keep_new=10**6)
        if step is not None:
            return step
        step = look_at_search(phone, obs, params["title"])  # which days have it already
        if step is not None:
            return step
        cur = rows_now(phone)
        todo = self.wanted(params)
        for j in sorted(i for i in cur if i not in base):
            k = self._key(form_values(cur[j]))
            hit = next((w for w in todo if self._key(w) == k), None)
            if hit is None:
                return delete_row(phone, obs, event_row(phone, j))  # a wrong day or time, or a second copy
            todo.remove(hit)
        if not todo:
            return COMPLETE
        return open_new_form(phone, obs) or fill_form(phone, obs, todo[0])


@register_task
class MoveIfClash(LookThenRepair):
    name = "calendar_move_if_clash"
    complexity = 3
    optimal_steps = 10
    goal_template = ("If anything else on {date_text} overlaps my \"{title}\", move \"{title}\" to {new_date_text} "
                     "at the same time; if nothing overlaps it, leave it where it is and set its location to "
                     "\"{location}\".")
    goal_phrasings = (
        ("Check {date_text}: does another event clash with \"{title}\"? If so, reschedule \"{title}\" to "
         "{new_date_text}, same hours. If not, keep it and put \"{location}\" as its location."),
        ("\"{title}\" on {date_text}: when some other event overlaps it, it moves to {new_date_text} (same time); "
         "when nothing does, it stays and gets the location \"{location}\"."),
        ("Please look at {date_text}. Overlap with \"{title}\"? Then move \"{title}\" to {new_date_text} keeping the "
         "time. No overlap? Then just set the location of \"{title}\" to \"{location}\"."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = future_day(rng, 2, 20)
        nd = d + timedelta(days=rng.choice((1, 2, 7)))
        h, dur = rng.randint(10, 15), rng.choice((60, 90, 120))
        titles = rng.sample(TITLES, 4)
        return {"date": d.isoformat(), "date_text": date_text(d), "new_date": nd.isoformat(),
                "new_date_text": date_text(nd), "title": titles[0], "titles": titles, "hour": h, "duration": dur,
                "location": rng.choice(LOCATIONS), "clash": rng.random() < 0.5,
                "clash_offset": rng.choice((-30, 15, dur - 15))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        d = date.fromisoformat(params["date"])
        clear_day(phone, d)
        for t in params["titles"]:
            phone.execute("DELETE FROM events WHERE title=?", (t,))
        title, before, after, clash = params["titles"]
        s = at(d, params["hour"])
        e = s + timedelta(minutes=params["duration"])
        add_event(phone, title, s, e, description="Added by you.")
        add_event(phone, before, s - timedelta(minutes=60), s, location=rng_free_place(s))  # touches it: no clash
        add_event(phone, after, e, e + timedelta(minutes=45), location=rng_free_place(e))
        if params["clash"]:
            c = s + timedelta(minutes=params["clash_offset"])
            add_event(phone, clash, c, c + timedelta(minutes=45))

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        (i,) = ids_titled(base, params["titles"][0])
        v = form_values(base[i])
        if params["clash"]:
            shift = date.fromisoformat(params["new_date"]) - date.fromisoformat(params["date"])
            return set(), {i: {**v, "start": v["start"] + shift, "end": v["end"] + shift}}
        return set(), {i: {**v, "location": params["location"]}}

    def looks(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action | None:
        d = date.fromisoformat(params["date"])
        return look_first(phone, f"day {d}", lambda: to_day(phone, obs, d))


@register_task
class DeleteLongestOnDay(StateTemplate):
    name = "calendar_delete_longest_on_day"
    complexity = 2
    optimal_steps = 6
    goal_template = ("Delete the longest event on {date_text} (all-day events don't count); keep the other events "
                     "of that day.")
    goal_phrasings = (
        ("Which timed event on {date_text} takes the most time? Remove that one from my calendar and leave the rest "
         "(ignore all-day events)."),
        ("I need to free up {date_text}: cancel whichever event that day lasts the longest, not counting all-day "
         "ones. Everything else stays."),
        "Calendar, {date_text}: delete the event with the longest duration (all-day events excluded), nothing else.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = future_day(rng, 2, 25)
        return {"date": d.isoformat(), "date_text": date_text(d), "titles": rng.sample(TITLES, 4),
                "hours": sorted(rng.sample(range(8, 19, 2), 4)), "minute_marks": [rng.choice((0, 30)) for _ in range(4)],
                "durations": rng.sample((30, 45, 60, 75, 90, 105), 4), "all_day": rng.choice(ALL_DAY_TITLES),
                "twin_week": rng.choice((-7, 7))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        d = date.fromisoformat(params["date"])
        clear_day(phone, d)
        for t, h, m, dur in zip(params["titles"], params["hours"], params["minute_marks"], params["durations"],
                                strict=True):
            phone.execute("DELETE FROM events WHERE title=?", (t,))
            add_event(phone, t, at(d, h, m), at(d, h, m) + timedelta(minutes=dur), location=rng_free_place(at(d, h)))
        add_event(phone, params["all_day"], at(d, 0), at(d, 0), all_day=True)
        k = params["durations"].index(max(params["durations"]))
        other = d + timedelta(days=params["twin_week"])  # the same title another week, short: it stays
        add_event(phone, params["titles"][k], at(other, params["hours"][k]), at(other, params["hours"][k], 30))

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        ids = timed_on(base, date.fromisoformat(params["date"]))
        return {max(ids, key=lambda i: base[i][5] - base[i][4])}, {}

    def opener(self, params: dict[str, Any]) -> Opener:
        return open_from_day  # the day list shows every event's times


FOLLOW_UPS_OF = (("Knee surgery", "Post-op check"), ("Root canal", "Dental follow-up"),
                 ("Driving test", "Test results review"), ("Passport interview", "Passport pickup"),
                 ("Blood test", "Results with the doctor"), ("Job interview", "Second interview"))


@register_task
class RescheduleDaysAfter(LookThenRepair):
    name = "calendar_reschedule_days_after"
    complexity = 3
    optimal_steps = 10
    goal_template = ("My \"{title}\" has to be exactly {days} days after my \"{anchor}\". Move \"{title}\" to that "
                     "date and keep its time.")
    goal_phrasings = (
        ("\"{title}\" should fall {days} days after \"{anchor}\" - could you look up when \"{anchor}\" is and "
         "reschedule \"{title}\" to that day, same hours?"),
        ("Count {days} days on from my \"{anchor}\" and move \"{title}\" to that date; its start and end time stay "
         "the same."),
        "Reschedule \"{title}\" to {days} days after the date of \"{anchor}\" (keep the time of day).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        anchor, title = rng.choice(FOLLOW_UPS_OF)
        a = future_day(rng, 1, 25)
        days = rng.choice((3, 5, 7, 10, 14, 21))
        wrong = days + rng.choice((-2, -1, 1, 2, 3))
        return {"anchor": anchor, "title": title, "anchor_date": a.isoformat(), "days": days, "wrong": wrong,
                "anchor_hour": rng.randint(8, 15), "hour": rng.randint(9, 17), "minute": rng.choice((0, 15, 30)),
                "prep": rng.choice((-3, -2, 2, 4))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM events WHERE title LIKE ? OR title=?", (f"{params['anchor']}%", params["title"]))
        a = date.fromisoformat(params["anchor_date"])
        h = params["anchor_hour"]
        add_event(phone, params["anchor"], at(a, h), at(a, h + 2), location="Greenwood Medical Center")
        p = a + timedelta(days=params["prep"])  # a look-alike on another day
        add_event(phone, f"{params['anchor']} prep call", at(p, 18), at(p, 18, 30))
        s = at(a + timedelta(days=params["wrong"]), params["hour"], params["minute"])
        add_event(phone, params["title"], s, s + timedelta(minutes=30), location="Greenwood Medical Center")

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        (i,) = ids_titled(base, params["title"])
        v = form_values(base[i])
        want = date.fromisoformat(params["anchor_date"]) + timedelta(days=params["days"])
        shift = want - v["start"].date()
        return set(), {i: {**v, "start": v["start"] + shift, "end": v["end"] + shift}}

    def looks(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action | None:
        return look_at_search(phone, obs, params["anchor"])  # its row shows its date


@register_task
class DeleteByBookingCode(StateTemplate):
    name = "calendar_delete_by_booking_code"
    complexity = 2
    optimal_steps = 7
    goal_template = ("Cancel my booking with reference {code}: delete the calendar event whose description has that "
                     "reference. My other bookings stay.")
    goal_phrasings = (
        ("The booking {code} is cancelled. Could you find the event that mentions reference {code} in its "
         "description and delete it? Keep the other bookings."),
        "Delete the event for booking reference {code} (the number is in the event's description), nothing else.",
        ("Remove the calendar entry whose notes say booking reference {code}; events with other references "
         "stay."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        digits = rng.sample("123456789", 4)
        code = "".join(digits)
        decoy = "".join(digits[:2] + digits[3:1:-1])  # the last two digits swapped
        title, other = rng.sample(TITLES, 2)
        other_code = code
        while other_code in (code, decoy):
            other_code = "".join(rng.sample("123456789", 4))
        return {"code": code, "decoy_code": decoy, "other_code": other_code,
                "title": title, "other": other, "days": rng.sample(range(2, 30), 3),
                "hours": [rng.randint(9, 18) for _ in range(3)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM events WHERE title IN (?, ?) OR lower(description) LIKE '%booking reference%'",
                      (params["title"], params["other"]))
        titles = (params["title"], params["title"], params["other"])  # a twin of the title with the other code
        codes = (params["code"], params["decoy_code"], params["other_code"])
        for t, code, off, h in zip(titles, codes, params["days"], params["hours"], strict=True):
            d = TODAY + timedelta(days=off)
            add_event(phone, t, at(d, h), at(d, h + 1), location=rng_free_place(at(d, h)),
                      description=f"Booking reference {code}.")

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        return {i for i, r in base.items() if f"reference {params['code']}." in (r[3] or "")}, {}

    def opener(self, params: dict[str, Any]) -> Opener:
        code = params["code"]

        def by_code(phone: Phone, obs: Observation, ev: Any) -> Action | None:
            # the goal names only the reference: search it (only its event mentions it)
            return open_row(phone, obs, ev, query=code if code in (ev["description"] or "") else None)

        return by_code


@register_task
class MatchDurationOfEvent(LookThenRepair):
    name = "calendar_match_duration_of_event"
    complexity = 3
    optimal_steps = 10
    goal_template = ("Make \"{title}\" on {date_text} last exactly as long as my \"{other}\" event does; keep its "
                     "start time.")
    goal_phrasings = (
        ("\"{title}\" ({date_text}) should take the same amount of time as \"{other}\". Could you change its end "
         "time to match? The start stays."),
        ("Give \"{title}\" on {date_text} the same length as \"{other}\" - look up how long \"{other}\" is and "
         "adjust where \"{title}\" ends."),
        "Set the duration of \"{title}\" on {date_text} to that of \"{other}\", leaving its start time unchanged.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = future_day(rng, 2, 20)
        title, other = rng.sample(TITLES, 2)
        durs = rng.sample((30, 45, 60, 75, 90, 105, 120), 3)
        return {"title": title, "other": other, "date": d.isoformat(), "date_text": date_text(d),
                "hour": rng.randint(9, 15), "minute": rng.choice((0, 15, 30, 45)), "durations": durs,
                "other_days": rng.sample((-6, -3, -1, 2, 4, 8, 11), 2), "other_hours": [rng.randint(9, 16) for _ in range(2)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        t, o = params["title"], params["other"]
        phone.execute("DELETE FROM events WHERE title=? OR title LIKE ?", (t, f"{o}%"))
        d = date.fromisoformat(params["date"])
        mine, theirs, rehearsal = params["durations"]
        s = at(d, params["hour"], params["minute"])
        add_event(phone, t, s, s + timedelta(minutes=mine), location=rng_free_place(s))
        for title, off, h, dur in zip((o, f"{o} (rehearsal)"), params["other_days"], params["other_hours"],
                                      (theirs, rehearsal), strict=True):
            s = at(d + timedelta(days=off), h)
            add_event(phone, title, s, s + timedelta(minutes=dur), location=rng_free_place(s))

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        (i,) = ids_titled(base, params["title"])
        v = form_values(base[i])
        return set(), {i: {**v, "end": v["start"] + timedelta(minutes=params["durations"][1])}}

    def looks(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action | None:
        return look_at_search(phone, obs, params["other"])  # its row shows its start and end


@register_task
class QueryLongestSession(TaskTemplate):
    name = "calendar_query_longest_session"
    apps = ("Calendar",)
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = "Which of my \"{title}\" events is the longest? Answer with its date."
    goal_phrasings = (
        "My \"{title}\" events vary in length. On what date is the longest one?",
        "Could you check all my \"{title}\" events and tell me the date of the one that lasts longest?",
        "Longest \"{title}\" in my calendar - which date?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        n = rng.randint(3, 5)
        return {"title": rng.choice(RECURRING), "first": rng.randint(-10, 6), "durations": rng.sample(
            (45, 60, 75, 90, 105, 120), n), "hour": rng.choice((7, 17, 18)), "social_week": rng.randint(0, n - 1)}

    def days(self, params: dict[str, Any]) -> list[date]:
        first = TODAY + timedelta(days=params["first"])
        return [first + timedelta(days=7 * w) for w in range(len(params["durations"]))]

    def longest(self, params: dict[str, Any]) -> date:
        durs = params["durations"]
        return self.days(params)[durs.index(max(durs))]

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        t, h = params["title"], params["hour"]
        phone.execute("DELETE FROM events WHERE lower(title) LIKE ?", (f"%{t.lower()}%",))
        for d, dur in zip(self.days(params), params["durations"], strict=True):
            add_event(phone, t, at(d, h), at(d, h) + timedelta(minutes=dur), location="Community Center")
        d = self.days(params)[params["social_week"]] + timedelta(days=3)  # longer still, but not a session
        add_event(phone, f"{t} social", at(d, 19), at(d, 23), location="Harbor View Restaurant")

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        best = self.longest(params)
        social = self.days(params)[params["social_week"]] + timedelta(days=3)
        bad = [a for d in [*self.days(params), social] if d != best for a in date_answers(d)]
        return 1.0 if matches_any(answer, date_answers(best)) and no_other(answer, bad) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        d = self.longest(params)
        return to_search_result(phone, obs, params["title"]) or answer(f"{MONTHS[d.month - 1]} {d.day}")


PAIRS_APART = (("Flight to Lisbon", "Flight home"), ("Kitchen renovation starts", "Kitchen renovation ends"),
               ("Start of the new job", "First performance review"), ("Cast comes off", "Back to football"),
               ("Move-in day", "Housewarming party"))


@register_task
class QueryDaysBetweenEvents(TaskTemplate):
    name = "calendar_query_days_between_events"
    apps = ("Calendar",)
    kind = "query"
    complexity = 2
    optimal_steps = 6
    goal_template = "How many days after my \"{first}\" is my \"{second}\"? Answer with a number of days."
    goal_phrasings = (
        "Count the days from \"{first}\" to \"{second}\" in my calendar. How many days apart are they?",
        "Could you tell me how many days there are between \"{first}\" and the later \"{second}\"?",
        "\"{first}\" to \"{second}\": how many days in between (date difference)?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first, second = rng.choice(PAIRS_APART)
        return {"first": first, "second": second, "start": rng.randint(1, 25), "apart": rng.randint(3, 40),
                "hours": [rng.randint(8, 18), rng.randint(8, 18)], "note_day": rng.randint(1, 20)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        f, s = params["first"], params["second"]
        phone.execute("DELETE FROM events WHERE title IN (?, ?) OR title LIKE ?", (f, s, f"Book % {s.lower()}"))
        d1 = TODAY + timedelta(days=params["start"])
        d2 = d1 + timedelta(days=params["apart"])
        h1, h2 = params["hours"]
        add_event(phone, f, at(d1, h1), at(d1, h1 + 1))
        add_event(phone, s, at(d2, h2), at(d2, h2 + 1))
        n = TODAY + timedelta(days=params["note_day"])  # mentions the second one on another day
        add_event(phone, f"Book a reminder for {s.lower()}", at(n, 20), at(n, 20, 15),
                  description=f"Before \"{s}\".")

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        nums = {n.replace(",", "") for n in NUMBER.findall(answer or "")}
        return 1.0 if nums == {str(params["apart"])} else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = look_at_search(phone, obs, params["first"]) or look_at_search(phone, obs, params["second"])
        return step or answer(f"{params['apart']} days")


@register_task
class QuerySeriesComplete(TaskTemplate):
    name = "calendar_query_series_complete"
    apps = ("Calendar",)
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = ("Is \"{title}\" in my calendar on every {weekday} from {start_text} through {end_text}? Answer "
                     "yes or no.")
    goal_phrasings = (
        "Do I have \"{title}\" on each {weekday} between {start_text} and {end_text}? Just yes or no.",
        ("Could you check that no {weekday} from {start_text} to {end_text} is missing \"{title}\"? Reply yes if "
         "every one has it, no otherwise."),
        "\"{title}\" on all {weekday}s, {start_text} through {end_text} - yes or no?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first = future_day(rng, 1, 12)
        n = rng.randint(3, 4)
        last = first + timedelta(days=7 * (n - 1))
        return {"title": rng.choice(RECURRING), "first": first.isoformat(), "weeks": n,
                "weekday": WEEKDAYS[first.weekday()], "start_text": date_text(first), "end_text": date_text(last),
                "complete": rng.random() < 0.5, "gap_week": rng.randint(0, n - 1), "moved": rng.random() < 0.5,
                "hour": rng.choice((7, 17, 18, 19))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        t, h = params["title"], params["hour"]
        phone.execute("DELETE FROM events WHERE lower(title) LIKE ?", (f"%{t.lower()}%",))
        first = date.fromisoformat(params["first"])
        for w in range(-1, params["weeks"] + 1):  # one before and one after the range too
            d = first + timedelta(days=7 * w)
            if not params["complete"] and w == params["gap_week"]:
                if not params["moved"]:
                    continue  # that week has none
                d += timedelta(days=1)  # that week's is on the next day
            add_event(phone, t, at(d, h), at(d, h + 1), location="Community Center")
        if not params["complete"] and not params["moved"]:  # a look-alike on the missing day
            d = first + timedelta(days=7 * params["gap_week"])
            add_event(phone, f"{t} (cancelled)", at(d, h), at(d, h + 1), location="Community Center")

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want, other = ("yes", "no") if params["complete"] else ("no", "yes")
        return 1.0 if answer_matches(answer, want) and not answer_matches(answer, other) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return to_search_result(phone, obs, params["title"]) or answer("yes" if params["complete"] else "no")


def titles_in_order(answer: str | None, titles: list[str]) -> bool:
    """The answer names each title exactly once, in the order given."""
    got = normalize_answer(answer or "")
    pos = []
    for t in titles:
        want = normalize_answer(t)
        hits = [i for i in range(len(got) - len(want) + 1) if got[i:i + len(want)] == want]
        if len(hits) != 1:
            return False
        pos.append(hits[0])
    return pos == sorted(pos)


@register_task
class QueryEventsInOrder(TaskTemplate):
    name = "calendar_query_events_in_order"
    apps = ("Calendar",)
    kind = "query"
    complexity = 3
    optimal_steps = 7
    goal_template = ("Put \"{a}\", \"{b}\" and \"{c}\" in the order they happen in my calendar, earliest first. "
                     "Answer with the three titles.")
    goal_phrasings = (
        "In what order do \"{a}\", \"{b}\" and \"{c}\" come in my calendar? List the three titles, earliest first.",
        ("Could you sort \"{a}\", \"{b}\" and \"{c}\" by when they take place (first one first) and give me the "
         "titles in that order?"),
        "\"{a}\", \"{b}\", \"{c}\": which comes first, second and third? Answer with the titles in order.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        a, b, c = rng.sample(TITLES, 3)
        days = rng.sample(range(1, 30), 2)
        offs = [days[0], days[0], days[1]]  # two of them share a day: their times decide
        rng.shuffle(offs)
        hours = rng.sample(range(8, 19), 3)
        return {"a": a, "b": b, "c": c, "days": offs, "hours": hours}

    def order(self, params: dict[str, Any]) -> list[str]:
        keys = {params[k]: (params["days"][i], params["hours"][i]) for i, k in enumerate("abc")}
        return sorted(keys, key=keys.__getitem__)

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, k in enumerate("abc"):
            t = params[k]
            phone.execute("DELETE FROM events WHERE title=?", (t,))
            d, h = TODAY + timedelta(days=params["days"][i]), params["hours"][i]
            add_event(phone, t, at(d, h), at(d, h + 1), location=rng_free_place(at(d, h)))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if titles_in_order(answer, self.order(params)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        for k in "abc":
            step = look_at_search(phone, obs, params[k])
            if step is not None:
                return step
        return answer(", ".join(self.order(params)))


# ---- round 5: the day list's previous/next-day arrows, "Go to today", scrolling a packed day, the date picker's
# previous month, multi-day events' end dates (and the start picker that drags the end along), goals that need
# today's date or the time now, partly done moves, values read in an event's own description ---------------------
def _on_app_screen(phone: Phone, name: str) -> bool:
    scr = phone.screen
    return phone.foreground == KEY and scr is not None and scr.name == name and phone.dialog is None \
        and not phone.menu_open


def to_day_from_today(phone: Phone, obs: Observation, d: date) -> Action | None:
    """:func:`to_day`, but from a month grid showing another month it taps "Go to today" when ``d`` is in
    this month (rather than paging month by month)."""
    if _on_app_screen(phone, "main") and (d.year, d.month) == (phone.now.year, phone.now.month):
        scr = phone.screen
        assert scr is not None
        y, m = scr.state.get("month", (phone.now.year, phone.now.month))
        if (int(y), int(m)) != (d.year, d.month):
            return click(obs, desc="Go to today") or to_day(phone, obs, d)
    return to_day(phone, obs, d)


def to_day_via(phone: Phone, obs: Observation, via: date, target: date) -> Action | None:
    """Next step toward the day list of ``target`` reached from the day list of ``via`` with the day list's
    "Next day" / "Previous day" arrows; None once there."""
    scr = phone.screen
    if _on_app_screen(phone, "day"):
        assert scr is not None
        cur = date.fromisoformat(scr.args["day"])
        if cur == target:
            return None
        between = min(via, target) <= cur <= max(via, target)
        if between:
            return click(obs, desc="Next day" if target > cur else "Previous day") or BACK
    return to_day_from_today(phone, obs, via)


def open_from_today(phone: Phone, obs: Observation, ev: Any) -> Action | None:
    """:func:`open_from_day` for an event of today's list, reached through "Go to today"."""
    d = from_ms(ev["dtstart"]).date()
    if on_form_of_row(phone, ev) and via_day(phone, d):
        return None
    return to_day_from_today(phone, obs, d) or click_or_scroll(phone, obs, text=day_row(phone, ev),
                                                               resource_id="event_item")


@register_task
class MoveEventDaysEarlier(StateTemplate):
    name = "calendar_move_event_days_earlier"
    complexity = 3
    optimal_steps = 10
    goal_template = "Move my \"{title}\" {days} days earlier than it is now; keep its time."
    goal_phrasings = (
        "Could you bring \"{title}\" forward by {days} days? Same time of day, just {days} days sooner.",
        "\"{title}\" needs to happen {days} days earlier than currently planned - move it, keeping the hours.",
        "I need \"{title}\" {days} days before the date it's on now (same start and end time).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = date(2024, 11, rng.randint(1, 4))  # early in a month: the new date is in the month before
        title, other = rng.sample(TITLES, 2)
        return {"title": title, "other": other, "date": d.isoformat(), "days": rng.randint(d.day, 7),
                "hour": rng.randint(9, 17), "minute": rng.choice((0, 15, 30, 45)), "duration": rng.choice((45, 60, 90)),
                "other_day": rng.randint(5, 20)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        t = params["title"]
        phone.execute("DELETE FROM events WHERE title LIKE ? OR title=?", (f"{t}%", params["other"]))
        s = at(date.fromisoformat(params["date"]), params["hour"], params["minute"])
        add_event(phone, t, s, s + timedelta(minutes=params["duration"]), location=rng_free_place(s))
        o = at(date(2024, 11, params["other_day"]), params["hour"])  # a look-alike title that stays put
        add_event(phone, f"{t} follow-up", o, o + timedelta(minutes=30), location=rng_free_place(o))
        add_event(phone, params["other"], s - timedelta(days=params["days"]),
                  s - timedelta(days=params["days"]) + timedelta(minutes=30))  # already on the new date: stays

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        (i,) = ids_titled(base, params["title"])
        v = form_values(base[i])
        shift = timedelta(days=params["days"])
        return set(), {i: {**v, "start": v["start"] - shift, "end": v["end"] - shift}}

    def opener(self, params: dict[str, Any]) -> Opener:
        return open_row  # the form shows the date it is on now


@register_task
class LengthenMultiDayEvent(StateTemplate):
    name = "calendar_lengthen_multi_day_event"
    complexity = 3
    optimal_steps = 9
    goal_template = ("My \"{title}\" has been extended by {days} days: make it end {days} days later than it does now. "
                     "It still starts on the same day.")
    goal_phrasings = (
        "\"{title}\" now runs {days} days longer. Push its last day back by {days} days, keeping the first day.",
        ("Could you stretch my \"{title}\" so it ends {days} days after its current last day? Its start date "
         "doesn't change."),
        "I'm staying {days} more days on \"{title}\": move the end of that event {days} days later (same start).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        title, other = rng.sample(TRIPS, 2)
        return {"title": title, "other": other, "start": rng.randint(3, 30), "length": rng.randint(2, 5),
                "days": rng.randint(1, 4), "other_start": rng.randint(3, 30), "other_length": rng.randint(2, 4)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM events WHERE title IN (?, ?)", (params["title"], params["other"]))
        for t, off, n in ((params["title"], params["start"], params["length"]),
                          (params["other"], params["other_start"], params["other_length"])):
            s = TODAY + timedelta(days=off)
            add_event(phone, t, at(s, 0), at(s + timedelta(days=n), 0), all_day=True)

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        (i,) = ids_titled(base, params["title"])
        v = form_values(base[i])
        return set(), {i: {**v, "end": v["end"] + timedelta(days=params["days"])}}

    def opener(self, params: dict[str, Any]) -> Opener:
        return open_row  # the form shows the last day (the search row shows only the first)


@register_task
class StartMultiDayLaterKeepEnd(StateTemplate):
    name = "calendar_start_multi_day_later_keep_end"
    complexity = 3
    optimal_steps = 12
    goal_template = ("I can only get to \"{title}\" on {new_start_text}. Make it start that day, but it must still end "
                     "on the day it ends now.")
    goal_phrasings = (
        ("Change the start of \"{title}\" to {new_start_text}; its last day stays exactly as it is (I'm just "
         "arriving late)."),
        "I'm joining \"{title}\" late, on {new_start_text}. Move its first day there without moving its last day.",
        ("\"{title}\" should begin on {new_start_text} from now on. Keep the end date it has now - only the start "
         "changes."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        title, other = rng.sample(TRIPS, 2)
        off, n = rng.randint(3, 30), rng.randint(3, 6)
        late = rng.randint(1, n - 1)
        ns = TODAY + timedelta(days=off + late)
        return {"title": title, "other": other, "start": off, "length": n, "new_start": ns.isoformat(),
                "new_start_text": date_text(ns), "other_start": rng.randint(3, 30), "other_length": rng.randint(2, 4)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM events WHERE title IN (?, ?)", (params["title"], params["other"]))
        for t, off, n in ((params["title"], params["start"], params["length"]),
                          (params["other"], params["other_start"], params["other_length"])):
            s = TODAY + timedelta(days=off)
            add_event(phone, t, at(s, 0), at(s + timedelta(days=n), 0), all_day=True)

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        (i,) = ids_titled(base, params["title"])
        v = form_values(base[i])
        return set(), {i: {**v, "start": at(date.fromisoformat(params["new_start"]), 0)}}

    def opener(self, params: dict[str, Any]) -> Opener:
        return open_row  # the form shows the last day, which the start picker drags along


@register_task
class FinishMovingSeries(LookThenRepair):
    name = "calendar_finish_moving_series"
    complexity = 3
    optimal_steps = 19
    goal_template = ("From {first_text} on, my \"{title}\" is on {new_weekday}s instead of {old_weekday}s (same time). "
                     "I've already moved some of those sessions: move each of the rest to the {new_weekday} right "
                     "after its {old_weekday}.")
    goal_phrasings = (
        ("\"{title}\" switched from {old_weekday} to {new_weekday} starting {first_text}, same hours. A few are "
         "already moved - could you move the ones still on {old_weekday} to the {new_weekday} just after?"),
        ("Finish moving \"{title}\": every session from {first_text} onwards should be on the {new_weekday} following "
         "its {old_weekday}. Some are done already; do the others and leave earlier sessions alone."),
        ("I started moving my \"{title}\" sessions ({first_text} and later) from {old_weekday}s to {new_weekday}s "
         "but didn't finish. Move each remaining {old_weekday} one to the {new_weekday} after it, keeping the time."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first = future_day(rng, 1, 10)
        shift = rng.choice((1, 2))
        weeks = 4
        moved = sorted(rng.sample(range(weeks), rng.randint(1, 2)))
        return {"title": rng.choice(RECURRING), "first": first.isoformat(), "first_text": date_text(first),
                "old_weekday": WEEKDAYS[first.weekday()], "new_weekday": WEEKDAYS[(first.weekday() + shift) % 7],
                "shift": shift, "weeks": weeks, "moved": moved, "hour": rng.choice((7, 17, 18, 19))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        t, h = params["title"], params["hour"]
        phone.execute("DELETE FROM events WHERE lower(title) LIKE ?", (f"%{t.lower()}%",))
        first = date.fromisoformat(params["first"])
        for w in range(-1, params["weeks"]):  # the week before stays on the old day
            d = first + timedelta(days=7 * w + (params["shift"] if w in params["moved"] else 0))
            add_event(phone, t, at(d, h), at(d, h + 1), location="Community Center")

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        first = date.fromisoformat(params["first"])
        shift = timedelta(days=params["shift"])
        edits = {}
        for i in ids_titled(base, params["title"]):
            v = form_values(base[i])
            if v["start"].date() >= first and v["start"].weekday() == first.weekday():
                edits[i] = {**v, "start": v["start"] + shift, "end": v["end"] + shift}
        return set(), edits

    def looks(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action | None:
        return look_at_search(phone, obs, params["title"])  # which sessions are still on the old day


@register_task
class DeletePastSessions(StateTemplate):
    name = "calendar_delete_past_sessions"
    complexity = 3
    optimal_steps = 13
    goal_template = ("Clean up my \"{title}\" events: delete the ones that are already over (before today) and keep "
                     "the upcoming ones.")
    goal_phrasings = (
        "Remove every \"{title}\" from my calendar that has already happened; the ones still to come stay.",
        ("My past \"{title}\" sessions are just clutter now. Could you delete all those before today, without "
         "touching the future ones?"),
        "Delete the old \"{title}\" entries (dates before today). Upcoming \"{title}\" events must stay.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first = rng.choice([k for k in range(-20, -7) if k % 7])  # no session falls on today
        return {"title": rng.choice(RECURRING), "first": first, "sessions": rng.randint(4, 5),
                "hour": rng.choice((7, 17, 18, 19)), "social": rng.randint(-12, -2)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        t, h = params["title"], params["hour"]
        phone.execute("DELETE FROM events WHERE lower(title) LIKE ?", (f"%{t.lower()}%",))
        for w in range(params["sessions"]):
            d = TODAY + timedelta(days=params["first"] + 7 * w)
            add_event(phone, t, at(d, h), at(d, h + 1), location="Community Center")
        d = TODAY + timedelta(days=params["social"])  # a past look-alike that is not a session: it stays
        add_event(phone, f"{t} social", at(d, 20), at(d, 22), location="Harbor View Restaurant")

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        return {i for i in ids_titled(base, params["title"]) if from_ms(base[i][4]).date() < TODAY}, {}


@register_task
class ClearRestOfToday(StateTemplate):
    name = "calendar_clear_rest_of_today"
    complexity = 3
    optimal_steps = 12
    goal_template = ("I'm going home sick. Delete every event on my calendar today that hasn't started yet; keep the "
                     "ones that have already started or are over, and the all-day ones.")
    goal_phrasings = (
        ("I need the rest of today cleared: remove today's events that are still to come. Anything that already "
         "began stays, as do all-day events."),
        ("Cancel whatever I have left today - every event that starts later than now. Don't touch the ones that "
         "have started already, or all-day events."),
        ("Since I'm sick, wipe the remainder of today's schedule (events starting after the current time) and leave "
         "the earlier ones and the all-day event."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        titles = rng.sample(TITLES, 5)
        return {"titles": titles, "later_hours": sorted(rng.sample(range(11, 19), 3)),
                "early": rng.choice((7, 8)), "ongoing": rng.choice((0, 15, 30)), "all_day": rng.choice(ALL_DAY_TITLES),
                "tomorrow_hour": rng.randint(10, 16)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        clear_day(phone, TODAY)
        early, ongoing, *later = params["titles"]
        for t in params["titles"]:
            phone.execute("DELETE FROM events WHERE title=?", (t,))
        add_event(phone, early, at(TODAY, params["early"]), at(TODAY, params["early"], 45))
        s = at(TODAY, 9, params["ongoing"])  # started before 9:41, still running: it stays
        add_event(phone, ongoing, s, s + timedelta(minutes=60), location=rng_free_place(s))
        for t, h in zip(later, params["later_hours"], strict=True):
            add_event(phone, t, at(TODAY, h), at(TODAY, h, 45), location=rng_free_place(at(TODAY, h)))
        add_event(phone, params["all_day"], at(TODAY, 0), at(TODAY, 0), all_day=True)
        tm = TODAY + timedelta(days=1)  # tomorrow's copy of a later one stays
        add_event(phone, later[0], at(tm, params["tomorrow_hour"]), at(tm, params["tomorrow_hour"], 45))

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        now = to_ms(DEFAULT_NOW)
        return {i for i in timed_on(base, TODAY) if base[i][4] > now}, {}

    def opener(self, params: dict[str, Any]) -> Opener:
        return open_from_today  # today's list shows which events start after now


@register_task
class MoveBackToNotedDate(StateTemplate):
    name = "calendar_move_back_to_noted_date"
    complexity = 3
    optimal_steps = 9
    goal_template = ("I moved \"{title}\" by mistake. Its description still says which day it was on before: put it "
                     "back on that day, at the same time.")
    goal_phrasings = (
        ("Undo my change to \"{title}\": move it back to the date written in its description, keeping the time."),
        ("\"{title}\" was on another day until I moved it by accident - the old date is noted in the event's "
         "description. Could you move it back there (same hours)?"),
        "Put \"{title}\" back on the day its description says it was rescheduled from. Don't change its time.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        title = rng.choice(TITLES)
        now_off, orig_off, other_orig = rng.sample(range(2, 35), 3)
        return {"title": title, "now_day": now_off, "orig_day": orig_off, "other_orig_day": other_orig,
                "other_day": rng.randint(2, 35), "hour": rng.randint(9, 17), "minute": rng.choice((0, 30))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        t = params["title"]
        phone.execute("DELETE FROM events WHERE title LIKE ?", (f"{t}%",))
        for title, now_off, orig in ((t, params["now_day"], params["orig_day"]),
                                     (f"{t} follow-up", params["other_day"], params["other_orig_day"])):
            s = at(TODAY + timedelta(days=now_off), params["hour"], params["minute"])
            note = f"Rescheduled from {day_label(TODAY + timedelta(days=orig))}."
            add_event(phone, title, s, s + timedelta(minutes=60), location=rng_free_place(s), description=note)

    def goal_state(self, base: dict[int, tuple], params: dict[str, Any]) -> tuple[set[int], dict[int, dict]]:
        (i,) = ids_titled(base, params["title"])
        v = form_values(base[i])
        shift = (TODAY + timedelta(days=params["orig_day"])) - v["start"].date()
        return set(), {i: {**v, "start": v["start"] + shift, "end": v["end"] + shift}}

    def opener(self, params: dict[str, Any]) -> Opener:
        return open_row  # the open form shows the description with the old date


@register_task
class QueryFirstEventDayAfter(TaskTemplate):
    name = "calendar_query_first_event_day_after"
    apps = ("Calendar",)
    kind = "query"
    complexity = 3
    optimal_steps = 10
    goal_template = ("What's the first thing on my calendar the day after my \"{title}\"? Answer with the event's "
                     "title.")
    goal_phrasings = (
        "The day after \"{title}\", what is my earliest event? Tell me its title.",
        "Could you check what I have first thing on the day following \"{title}\"? Just the event title.",
        "After the day of \"{title}\" comes another day - which event starts first on it?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        title, *others = rng.sample(TITLES, 6)
        return {"title": title, "others": others, "day": rng.randint(2, 25), "hour": rng.randint(10, 16),
                "next_hours": sorted(rng.sample(range(8, 19), 3)), "same_day_hour": rng.randint(7, 9)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        d = TODAY + timedelta(days=params["day"])
        nxt = d + timedelta(days=1)
        clear_day(phone, nxt)
        first, second, third, same_day, day_before = params["others"]
        for t in (params["title"], *params["others"]):
            phone.execute("DELETE FROM events WHERE title=?", (t,))
        add_event(phone, params["title"], at(d, params["hour"]), at(d, params["hour"] + 1))
        add_event(phone, same_day, at(d, params["same_day_hour"]), at(d, params["same_day_hour"], 30))
        for t, h in zip((first, second, third), params["next_hours"], strict=True):
            add_event(phone, t, at(nxt, h), at(nxt, h, 45), location=rng_free_place(at(nxt, h)))
        pd = d - timedelta(days=1)  # the day before has an even earlier one
        add_event(phone, day_before, at(pd, 6), at(pd, 6, 30))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        first, *rest = params["others"]
        return 1.0 if answer_matches(answer, first) and no_other(answer, [*rest, params["title"]]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        d = TODAY + timedelta(days=params["day"])
        step = look_at_search(phone, obs, params["title"]) or to_day_via(phone, obs, d, d + timedelta(days=1))
        return step or answer(params["others"][0])


@register_task
class QueryDaysSinceLast(TaskTemplate):
    name = "calendar_query_days_since_last"
    apps = ("Calendar",)
    kind = "query"
    complexity = 3
    optimal_steps = 5
    goal_template = "How many days ago was my last \"{title}\"? Answer with a number of days."
    goal_phrasings = (
        "It's been a while since my last \"{title}\" - how many days exactly, going by my calendar?",
        "Count the days from my most recent past \"{title}\" to today. What's the number?",
        "When did I last have \"{title}\"? Tell me how many days ago that was.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        ago = rng.randint(1, 12)
        return {"title": rng.choice(RECURRING), "ago": ago, "earlier": sorted(rng.sample(range(ago + 3, 30), 2)),
                "ahead": rng.randint(1, 12), "hour": rng.choice((7, 17, 18, 19))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        t, h = params["title"], params["hour"]
        phone.execute("DELETE FROM events WHERE lower(title) LIKE ?", (f"%{t.lower()}%",))
        for off in (-params["ago"], *(-e for e in params["earlier"]), params["ahead"]):
            d = TODAY + timedelta(days=off)
            add_event(phone, t, at(d, h), at(d, h + 1), location="Community Center")
        if params["ago"] > 1:  # a look-alike more recent than the last session
            d = TODAY - timedelta(days=params["ago"] - 1)
            add_event(phone, f"{t} social", at(d, 20), at(d, 22), location="Harbor View Restaurant")

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        nums = {n.replace(",", "") for n in NUMBER.findall(answer or "")}
        return 1.0 if nums == {str(params["ago"])} else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return look_at_search(phone, obs, params["title"]) or answer(f"{params['ago']} days")


@register_task
class QueryMultiDayLength(TaskTemplate):
    name = "calendar_query_multi_day_length"
    apps = ("Calendar",)
    kind = "query"
    complexity = 2
    optimal_steps = 6
    goal_template = "How many days does my \"{title}\" take, counting both its first and its last day? Answer with a number."
    goal_phrasings = (
        "My \"{title}\" spans several days. How many calendar days is that, first and last day included?",
        "Could you tell me the number of days \"{title}\" covers (include the day it starts and the day it ends)?",
        "\"{title}\": from its first day through its last, how many days in total?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        title, other = rng.sample(TRIPS, 2)
        n, m = rng.sample(range(2, 8), 2)
        return {"title": title, "other": other, "start": rng.randint(2, 30), "length": n,
                "other_start": rng.randint(2, 30), "other_length": m}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM events WHERE title IN (?, ?)", (params["title"], params["other"]))
        for t, off, n in ((params["title"], params["start"], params["length"]),
                          (params["other"], params["other_start"], params["other_length"])):
            s = TODAY + timedelta(days=off)
            add_event(phone, t, at(s, 0), at(s + timedelta(days=n), 0), all_day=True)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        nums = {n.replace(",", "") for n in NUMBER.findall(answer or "")}
        return 1.0 if nums == {str(params["length"])} else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = open_event(phone, obs, params["title"])  # the form's Starts and Ends rows
        return step or answer(f"{params['length']} days")


@register_task
class QueryYesterdayAtTime(TaskTemplate):
    name = "calendar_query_yesterday_at_time"
    apps = ("Calendar",)
    kind = "query"
    complexity = 3
    optimal_steps = 5
    goal_template = "What was on my calendar yesterday at {time_text}? Answer with the event's title."
    goal_phrasings = (
        "Yesterday at {time_text} - which event was I in, according to my calendar? Give its title.",
        "I can't remember what I had yesterday around {time_text}. Could you look up which event it was?",
        "Which calendar event was going on at {time_text} yesterday? Just the title.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        titles = rng.sample(TITLES, 6)
        starts = [8, 10, 13, 15]
        k = rng.randint(0, 3)
        into = rng.choice((15, 30, 45))
        h, m = starts[k] + (into // 60), into % 60
        return {"titles": titles, "target": k, "hour": h, "minute": m, "time_text": time_text(h, m),
                "durations": [rng.choice((60, 90)) for _ in range(4)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        y = TODAY - timedelta(days=1)
        clear_day(phone, y)
        for t in params["titles"]:
            phone.execute("DELETE FROM events WHERE title=?", (t,))
        for t, h, dur in zip(params["titles"][:4], (8, 10, 13, 15), params["durations"], strict=True):
            add_event(phone, t, at(y, h), at(y, h) + timedelta(minutes=dur), location=rng_free_place(at(y, h)))
        s = at(y, params["hour"], params["minute"])  # the same time on the day before and today: other events
        for t, d in zip(params["titles"][4:], (y - timedelta(days=1), TODAY), strict=True):
            add_event(phone, t, at(d, params["hour"]), at(d, params["hour"]) + timedelta(minutes=90),
                      location=rng_free_place(s))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        titles = params["titles"]
        want = titles[params["target"]]
        return 1.0 if answer_matches(answer, want) and no_other(answer, [t for t in titles if t != want]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_day_via(phone, obs, TODAY, TODAY - timedelta(days=1))
        return step or answer(params["titles"][params["target"]])


PACKED_DAY_TITLES = (*TITLES, "Conference keynote", "Panel discussion", "Networking coffee", "Poster session")


@register_task
class QueryDayOverAt(TaskTemplate):
    name = "calendar_query_day_over_at"
    apps = ("Calendar",)
    kind = "query"
    complexity = 3
    optimal_steps = 5
    goal_template = ("{date_text} is packed. At what time will all my events that day be over? Answer with the latest "
                     "end time.")
    goal_phrasings = (
        "When am I finally free on {date_text}? Tell me the time the last of that day's events finishes.",
        ("Could you check {date_text} and tell me when my final commitment of the day ends (the latest end time of "
         "any event)?"),
        "On {date_text}, what's the latest time any of my events ends?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = future_day(rng, 2, 25)
        n = 13  # more rows than the day list shows: the long one is among the last, off screen at first
        long_k = rng.choice((n - 3, n - 2))
        return {"date": d.isoformat(), "date_text": date_text(d), "titles": rng.sample(PACKED_DAY_TITLES, n),
                "minute_marks": [rng.choice((0, 15)) for _ in range(n)], "durations": [rng.choice((30, 45))
                                                                                       for _ in range(n)],
                "long": long_k, "long_minutes": rng.choice((210, 240, 270))}  # past the last one's end

    def slots(self, params: dict[str, Any]) -> list[tuple[datetime, datetime]]:
        d = date.fromisoformat(params["date"])
        out = []
        for k, (m, dur) in enumerate(zip(params["minute_marks"], params["durations"], strict=True)):
            s = at(d, 7 + k, m)
            out.append((s, s + timedelta(minutes=params["long_minutes"] if k == params["long"] else dur)))
        return out

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        clear_day(phone, date.fromisoformat(params["date"]))
        for t, (s, e) in zip(params["titles"], self.slots(params), strict=True):
            phone.execute("DELETE FROM events WHERE title=?", (t,))
            add_event(phone, t, s, e)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        slots = self.slots(params)
        last = max(e for _, e in slots)
        # the other events' times, said with AM/PM ("10:15" alone is in "10:15 PM")
        wrong = [time_text(t.hour, t.minute) for s, e in slots for t in (s, e) if t != last]
        return 1.0 if matches_any(answer, time_answers(last)) and no_other(answer, wrong) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        d = date.fromisoformat(params["date"])
        step = to_day(phone, obs, d)
        if step is not None:
            return step
        s, e = self.slots(params)[params["long"]]
        row = {"text": f"{params['titles'][params['long']]} | {phone.format_time(s.hour, s.minute)} – "
                       f"{phone.format_time(e.hour, e.minute)}", "resource_id": "event_item"}
        if find(obs, **row) is None:  # scrolled down to the rows of the day's last events
            return scroll_toward(phone, obs, **row) or BACK
        return answer(phone.format_time(e.hour, e.minute))
