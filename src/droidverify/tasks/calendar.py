"""Calendar tasks: create/reschedule/edit/delete events and questions about the schedule.

Set-ups insert the events a goal names (titles chosen so no seeded event shares them) and remove
anything that would already satisfy the goal. Checkers read the ``events`` table.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta
from typing import Any, ClassVar

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim.apps.calendar import KEY, add_event, event_by_title, events_on, fmt_day
from droidverify.env.sim.phone import DEFAULT_NOW, Phone
from droidverify.env.sim.timeutil import MONTHS, WEEKDAYS, to_ms
from droidverify.tasks.base import TaskTemplate
from droidverify.tasks.helpers import (
    BACK,
    COMPLETE,
    answer,
    answer_matches,
    click,
    click_or_scroll,
    navigate,
    type_into,
)
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


@register_task
class CreateEventWithLocation(CreateTemplate):
    name = "calendar_create_event_with_location"
    complexity = 2
    optimal_steps = 17
    with_location = True
    goal_template = ("Add a calendar event \"{title}\" at {location} on {date_text}, "
                     "{start_text} to {end_text}.")


@register_task
class CreateEventFull(CreateTemplate):
    name = "calendar_create_event_full"
    complexity = 3
    optimal_steps = 17
    with_location = with_description = True
    goal_template = ("Create a calendar event \"{title}\" on {date_text} from {start_text} to {end_text}, "
                     "location \"{location}\", description \"{description}\".")


@register_task
class CreateAllDayEvent(TaskTemplate):
    name = "calendar_create_all_day_event"
    apps = ("Calendar",)
    complexity = 2
    optimal_steps = 9
    goal_template = "In Simple Calendar Pro, add an all-day event \"{title}\" on {date_text}."

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

    def expected(self, phone: Phone, params: dict[str, Any]) -> list[str]:
        return [params["location"]]


@register_task
class QueryEventDate(QueryTemplate):
    name = "calendar_query_event_date"
    optimal_steps = 5
    goal_template = "On what date is my {kind} appointment? Answer with the month and day."

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
