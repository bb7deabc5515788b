"""Tasks across Calendar and Markor: read one app, write the other."""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta
from typing import Any

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim import storage as st
from droidverify.env.sim.apps.calendar import KEY as CAL
from droidverify.env.sim.apps.calendar import add_event, event_by_title, events_on
from droidverify.env.sim.apps.notes import note_path
from droidverify.env.sim.phone import Phone
from droidverify.env.sim.timeutil import to_ms
from droidverify.tasks.base import TaskTemplate
from droidverify.tasks.calendar import (
    LOCATIONS,
    TITLES,
    TODAY,
    at,
    date_text,
    fill_form,
    open_new_form,
    time_text,
    to_day,
)
from droidverify.tasks.helpers import COMPLETE
from droidverify.tasks.notes import (
    NOTE_NAMES,
    edit_text,
    new_item,
    notes_named,
    one_note,
    open_note,
    same_text,
    to_folder,
    write_note,
)
from droidverify.tasks.registry import register_task


def _seen(phone: Phone, key: str) -> bool:
    """Whether the oracle already looked at app ``key`` (it records visits on the phone's event log)."""
    return ("oracle_seen", key) in phone.events


def _create_note(phone: Phone, obs: Observation, name: str, text: str) -> Action:
    if notes_named(phone, name):
        return open_note(phone, obs, name) or edit_text(phone, obs, text)
    return to_folder(phone, obs) or new_item(phone, obs, name, folder=False)


@register_task
class NoteFromFirstEventTomorrow(TaskTemplate):
    name = "multi_note_from_first_event_tomorrow"
    apps = ("Calendar", "Markor")
    complexity = 3
    optimal_steps = 9
    goal_template = ("Look up my first event tomorrow in the calendar, then create a Markor note named exactly "
                     "like that event whose text is the event's location.")
    goal_phrasings = (
        ("Could you check tomorrow's first calendar event and make a Markor note with the event's title as its "
         "name and the event's location as its text?"),
        "New Markor note named after my earliest event tomorrow, containing just where that event is.",
        ("Find out what my first event tomorrow is and where it takes place, then save a note titled like the "
         "event with the location inside."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"title": rng.choice(TITLES), "location": rng.choice(LOCATIONS), "hour": 6,
                "minute": rng.choice((0, 15, 30, 45))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        d = TODAY + timedelta(days=1)
        phone.execute("DELETE FROM events WHERE title=?", (params["title"],))
        s = at(d, params["hour"], params["minute"])
        add_event(phone, params["title"], s, s + timedelta(hours=1), location=params["location"])
        add_event(phone, "Coffee with Lena", at(d, 16), at(d, 17), location="Bean There Cafe")
        for e in notes_named(phone, params["title"]):
            st.delete(phone, e.path)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if same_text(one_note(phone, params["title"]), params["location"]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if not _seen(phone, CAL):
            step = to_day(phone, obs, TODAY + timedelta(days=1))
            if step is not None:
                return step
            phone.events.append(("oracle_seen", CAL))  # the day list (title + location) is on screen now
        return _create_note(phone, obs, params["title"], params["location"])


@register_task
class EventFromNote(TaskTemplate):
    name = "multi_event_from_note"
    apps = ("Markor", "Calendar")
    complexity = 3
    optimal_steps = 16
    goal_template = "Add a calendar event using the details written in my Markor note \"{note}\"."
    goal_phrasings = (
        "Could you put the event described in my note \"{note}\" into my calendar?",
        "My Markor note \"{note}\" has an event's title, date, time and place. Create that calendar event.",
        "Calendar event from the note \"{note}\": same title, date, time and location as written there.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = TODAY + timedelta(days=rng.randint(2, 25))
        h = rng.randint(9, 17)
        return {"note": rng.choice(NOTE_NAMES), "title": rng.choice(TITLES), "date": d.isoformat(), "hour": h,
                "minute": rng.choice((0, 30)), "location": rng.choice(LOCATIONS)}

    def _times(self, params: dict[str, Any]) -> tuple[datetime, datetime]:
        s = at(date.fromisoformat(params["date"]), params["hour"], params["minute"])
        return s, s + timedelta(hours=1)

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        s, e = self._times(params)
        body = (f"Event: {params['title']}\nDate: {date_text(s.date())}\n"
                f"Time: {time_text(s.hour, s.minute)} - {time_text(e.hour, e.minute)}\n"
                f"Location: {params['location']}")
        write_note(phone, params["note"] + ".md", body)
        phone.execute("DELETE FROM events WHERE title=?", (params["title"],))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        rows = event_by_title(phone, params["title"])
        s, e = self._times(params)
        ok = len(rows) == 1 and rows[0]["dtstart"] == to_ms(s) and rows[0]["dtend"] == to_ms(e) and \
            rows[0]["eventLocation"] == params["location"] and not rows[0]["allDay"]
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if not _seen(phone, "notes"):
            step = open_note(phone, obs, params["note"])
            if step is not None:
                return step
            phone.events.append(("oracle_seen", "notes"))
        s, e = self._times(params)
        return open_new_form(phone, obs) or fill_form(phone, obs, {"title": params["title"],
                                                                    "location": params["location"],
                                                                    "start": s, "end": e})


@register_task
class CountEventsIntoNote(TaskTemplate):
    name = "multi_count_events_into_note"
    apps = ("Calendar", "Markor")
    complexity = 3
    optimal_steps = 10
    goal_template = ("Count the events in my calendar on {date_text} and save just that number as the text of a "
                     "new Markor note named \"{note}\".")
    goal_phrasings = (
        ("How many events do I have on {date_text}? Write only that number into a new Markor note called "
         "\"{note}\"."),
        "New note \"{note}\" in Markor: the number of calendar events on {date_text}, nothing else.",
        ("Could you count my calendar events for {date_text} and save the count as the text of a note named "
         "\"{note}\"?"),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        d = TODAY + timedelta(days=rng.randint(1, 10))
        return {"date": d.isoformat(), "date_text": date_text(d), "note": f"Events {d:%b} {d.day}",
                "extra": rng.randint(1, 3), "titles": rng.sample(TITLES, 3)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        d = date.fromisoformat(params["date"])
        for i in range(params["extra"]):
            add_event(phone, params["titles"][i], at(d, 8 + 3 * i), at(d, 9 + 3 * i))
        for e in notes_named(phone, params["note"]):
            st.delete(phone, e.path)

    def count(self, phone: Phone, params: dict[str, Any]) -> str:
        return str(len(events_on(phone, date.fromisoformat(params["date"]))))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if same_text(one_note(phone, params["note"]), self.count(phone, params)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if not _seen(phone, CAL):
            step = to_day(phone, obs, date.fromisoformat(params["date"]))
            if step is not None:
                return step
            phone.events.append(("oracle_seen", CAL))
        return _create_note(phone, obs, params["note"], self.count(phone, params))


__all__ = ["CountEventsIntoNote", "EventFromNote", "NoteFromFirstEventTomorrow", "note_path"]
