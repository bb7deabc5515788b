"""Calendar (Simple Calendar Pro-like, com.simplemobiletools.calendar.pro).

Screens: ``main`` (month grid with event titles in the day cells, previous/next month, go to
today, search), ``day`` (the events of one day, previous/next day, FAB to add), ``edit`` (the
event form: title, location, description, all-day switch, start/end date and time rows that open
the date and time pickers, Save and Delete icons; opening an event shows this form, as in the real
app) and ``search`` (events whose title, location or description contain the query).

State is shaped like ``CalendarContract``: ``calendars(_id, name, account_name, color)`` and
``events(_id, calendar_id, title, description, eventLocation, dtstart, dtend, allDay,
eventTimezone)`` with ``dtstart``/``dtend`` in epoch milliseconds of the phone's (naive) clock read
as UTC; all-day events run from 00:00 to 00:00 of the next day.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta

from droidverify.env.sim.app import (
    App,
    app_bar,
    edit_field,
    fab,
    icon_button,
    list_row,
    list_view,
    register_app,
    screen_frame,
    switch_row,
    text_view,
)
from droidverify.env.sim.phone import Phone, Screen
from droidverify.env.sim.timeutil import MONTHS, WEEKDAYS, day_label, from_ms, to_ms
from droidverify.env.sim.view import V, View

KEY = "calendar"

# (title, location, description, duration minutes, hour range) — ordinary seeded events
MEETINGS = (
    ("Team standup", "Zoom", "Daily sync: blockers and plans.", 15, (9, 10)),
    ("Sprint planning", "Conference Room B", "Plan the next two-week sprint.", 90, (10, 14)),
    ("Design review", "Conference Room A", "Review the new onboarding screens.", 60, (11, 16)),
    ("Budget meeting", "Finance office, 3rd floor", "Q4 budget allocation.", 60, (13, 16)),
    ("Quarterly business review", "Main auditorium", "Results and goals with leadership.", 120, (9, 14)),
    ("Client call with Acme Corp", "Google Meet", "Discuss the renewal contract.", 45, (10, 17)),
    ("Marketing sync", "Room 4.12", "Campaign launch checklist.", 30, (14, 17)),
    ("Interview: backend engineer", "Conference Room C", "Second round, system design.", 60, (10, 16)),
    ("Product demo", "Town hall", "Demo of the release candidate.", 60, (15, 17)),
    ("Code review session", "Zoom", "Walk through the payment refactor.", 45, (14, 17)),
)
PERSONAL = (
    ("Yoga class", "Sunrise Yoga Studio", "Bring the mat.", 60, (7, 8)),
    ("Gym", "FitLife Gym", "Leg day.", 60, (18, 20)),
    ("Grocery shopping", "Whole Foods Market", "Milk, eggs, bread, coffee.", 45, (17, 19)),
    ("Book club", "City Library, Room 2", "Discuss 'The Midnight Library'.", 90, (19, 20)),
    ("Piano lesson", "Harmony Music School", "Practice the Chopin nocturne.", 45, (16, 18)),
    ("Soccer practice", "Riverside Park field 3", "Bring cleats and water.", 90, (17, 19)),
    ("Car service", "QuickFix Auto, 88 Elm Street", "Oil change and tire rotation.", 60, (8, 11)),
    ("Haircut", "Style Studio", "Ask for the usual.", 30, (10, 18)),
    ("Movie night", "Regal Cinema", "Tickets are in the email.", 150, (19, 20)),
    ("Volunteer shift", "Community Food Bank", "Sorting donations.", 180, (9, 13)),
)
APPOINTMENTS = (
    ("Dentist appointment", "Bright Smile Dental, 210 Oak Street", "Cleaning and check-up.", 45),
    ("Doctor appointment", "Greenwood Medical Center", "Annual physical.", 30),
    ("Eye exam", "Vision Care Clinic", "Bring current glasses.", 30),
    ("Physiotherapy", "MoveWell Physio", "Knee exercises follow-up.", 45),
    ("Vet appointment", "Happy Paws Veterinary", "Vaccinations for Luna.", 30),
    ("Bank appointment", "First National Bank, Main St", "Mortgage paperwork.", 60),
)
BIRTHDAYS = ("Emma", "Liam", "Olivia", "Noah", "Ava", "Mia", "Lucas", "Sofia", "Ethan", "Grace")
LUNCH_WITH = ("Marco", "Priya", "Jonas", "Aisha", "Daniel", "Chloe", "Mateo", "Hannah")
RESTAURANTS = ("Luigi's Trattoria", "Green Bowl Cafe", "Sakura Sushi", "The Corner Bistro", "Taco Loco")


def add_event(phone: Phone, title: str, start: datetime, end: datetime, *, location: str = "",
              description: str = "", all_day: bool = False, calendar_id: int = 1) -> int:
    """Insert an event; all-day events are stored from midnight to the next midnight."""
    if all_day:
        start = datetime.combine(start.date(), datetime.min.time())
        end = datetime.combine(end.date(), datetime.min.time())
        if end <= start:
            end = start + timedelta(days=1)
    return phone.execute(
        "INSERT INTO events(calendar_id, title, description, eventLocation, dtstart, dtend, allDay, eventTimezone) "
        "VALUES(?,?,?,?,?,?,?, 'UTC')",
        (calendar_id, title, description, location, to_ms(start), to_ms(end), int(all_day)))


def events_on(phone: Phone, day: date) -> list:
    """Events overlapping ``day`` ordered as the app lists them (all-day first, then by start)."""
    lo = to_ms(datetime.combine(day, datetime.min.time()))
    hi = lo + 86_400_000
    return phone.query("SELECT * FROM events WHERE dtstart < ? AND dtend > ? OR (dtstart = ? AND dtend = ?) "
                       "ORDER BY allDay DESC, dtstart, title", (hi, lo, lo, lo))


def event_by_title(phone: Phone, title: str) -> list:
    return phone.query("SELECT * FROM events WHERE title=? ORDER BY dtstart", (title,))


def fmt_day(d: date) -> str:
    """``"Friday, October 18"``."""
    return f"{WEEKDAYS[d.weekday()]}, {MONTHS[d.month - 1]} {d.day}"


def time_range(phone: Phone, ev) -> str:  # ev: sqlite3.Row
    if ev["allDay"]:
        return "All day"
    s, e = from_ms(ev["dtstart"]), from_ms(ev["dtend"])
    return f"{phone.format_time(s.hour, s.minute)} – {phone.format_time(e.hour, e.minute)}"


@register_app
class CalendarApp(App):
    key = KEY
    name = "Calendar"
    package = "com.simplemobiletools.calendar.pro"
    aliases = ("simple calendar pro", "simple calendar", "calendar pro")
    icon_color = "#e65100"
    activity = ".activities.MainActivity"

    # ---- state ----------------------------------------------------------------------------
    def create_schema(self, phone: Phone) -> None:
        phone.execute("CREATE TABLE calendars (_id INTEGER PRIMARY KEY, name TEXT, account_name TEXT, color TEXT)")
        phone.execute(
            "CREATE TABLE events (_id INTEGER PRIMARY KEY, calendar_id INTEGER NOT NULL DEFAULT 1, title TEXT, "
            "description TEXT DEFAULT '', eventLocation TEXT DEFAULT '', dtstart INTEGER NOT NULL, "
            "dtend INTEGER NOT NULL, allDay INTEGER NOT NULL DEFAULT 0, eventTimezone TEXT DEFAULT 'UTC')")
        phone.execute("INSERT INTO calendars(_id, name, account_name, color) VALUES(1, 'Regular event', "
                      "'Local', '#e65100')")

    def seed_data(self, phone: Phone, rng: random.Random) -> None:
        today = phone.now.date()
        first = today - timedelta(days=21)

        def at(day: date, hour: int, minute: int) -> datetime:
            return datetime.combine(day, datetime.min.time()).replace(hour=hour, minute=minute)

        for offset in range(63):
            day = first + timedelta(days=offset)
            weekend = day.weekday() >= 5
            if not weekend and rng.random() < 0.7:
                title, loc, desc, dur, (h0, h1) = rng.choice(MEETINGS)
                start = at(day, rng.randint(h0, h1), rng.choice((0, 15, 30, 45)))
                add_event(phone, title, start, start + timedelta(minutes=dur), location=loc, description=desc)
            if rng.random() < 0.35:
                title, loc, desc, dur, (h0, h1) = rng.choice(PERSONAL)
                start = at(day, rng.randint(h0, h1), rng.choice((0, 30)))
                add_event(phone, title, start, start + timedelta(minutes=dur), location=loc, description=desc)
            if not weekend and rng.random() < 0.12:
                who, where = rng.choice(LUNCH_WITH), rng.choice(RESTAURANTS)
                start = at(day, 12, rng.choice((0, 30)))
                add_event(phone, f"Lunch with {who}", start, start + timedelta(hours=1), location=where,
                          description="")
        for title, loc, desc, dur in rng.sample(APPOINTMENTS, 4):
            day = first + timedelta(days=rng.randint(0, 62))
            start = at(day, rng.randint(8, 16), rng.choice((0, 15, 30, 45)))
            add_event(phone, title, start, start + timedelta(minutes=dur), location=loc, description=desc)
        for who in rng.sample(BIRTHDAYS, 4):
            day = first + timedelta(days=rng.randint(0, 62))
            add_event(phone, f"{who}'s birthday", at(day, 0, 0), at(day, 0, 0), all_day=True,
                      description="Don't forget a card!")

    # ---- main: month grid -----------------------------------------------------------------
    def _month(self, phone: Phone, scr: Screen) -> tuple[int, int]:
        y, m = scr.state.get("month", (phone.now.year, phone.now.month))
        return int(y), int(m)

    def screen_main(self, phone: Phone, scr: Screen) -> View:
        y, m = self._month(phone, scr)

        def shift(delta: int) -> None:
            idx = y * 12 + m - 1 + delta
            scr.state["month"] = (idx // 12, idx % 12 + 1)

        def today() -> None:
            scr.state["month"] = (phone.now.year, phone.now.month)

        first = date(y, m, 1)
        grid_start = first - timedelta(days=first.weekday())  # weeks start on Monday
        lo = to_ms(datetime.combine(grid_start, datetime.min.time()))
        hi = lo + 42 * 86_400_000
        by_day: dict[date, list[str]] = {}
        for ev in phone.query("SELECT title, dtstart, dtend, allDay FROM events WHERE dtstart < ? AND dtend >= ? "
                              "ORDER BY allDay DESC, dtstart, title", (hi, lo)):
            d, end = from_ms(ev["dtstart"]).date(), from_ms(ev["dtend"])
            last = (end - timedelta(microseconds=1)).date() if end > from_ms(ev["dtstart"]) else d
            while d <= last:
                by_day.setdefault(d, []).append(ev["title"])
                d += timedelta(days=1)
        weeks = []
        for w in range(6):
            cells = []
            for i in range(7):
                d = grid_start + timedelta(days=7 * w + i)
                titles = by_day.get(d, [])
                kids = [text_view(str(d.day), rid="day_number", size=34,
                                  style={"fg": "#e65100" if d == phone.now.date() else
                                         ("#202124" if d.month == m else "#9aa0a6"), "bold": d == phone.now.date()})]
                for t in titles[:2]:
                    kids.append(text_view(t if len(t) <= 9 else t[:8] + "…", rid="day_event", size=24, h=36,
                                          style={"bg": "#fbe9e7", "fg": "#bf360c"}))
                if len(titles) > 2:
                    kids.append(text_view(f"+{len(titles) - 2}", rid="day_more", size=24, h=36))
                n = len(titles)
                desc = f"{MONTHS[d.month - 1]} {d.day}" + (f", {n} event{'s' if n != 1 else ''}" if n else "")
                cells.append(V("linear", *kids, rid="month_day", desc=desc, clickable=True, focusable=True,
                               on_click=lambda d=d: phone.push("day", day=d.isoformat()), pad=(4, 6, 4, 0),
                               style={"border": True}))
            weeks.append(V("linear", *cells, rid="month_week", horizontal=True, grow=1))
        header = V("linear", icon_button("Previous month", lambda: shift(-1), rid="top_left_arrow", icon="back"),
                   text_view(f"{MONTHS[m - 1]} {y}", rid="top_value", size=50, grow=1,
                             style={"align": "center", "valign": "center"}),
                   icon_button("Next month", lambda: shift(1), rid="top_right_arrow", icon="forward"),
                   rid="month_header", horizontal=True, h=140)
        letters = V("linear", *[text_view(wd[:3], rid="week_day_label", size=30, style={"align": "center"})
                                for wd in WEEKDAYS], horizontal=True, h=70)
        body = V("linear", header, letters, V("linear", *weeks, rid="month_calendar_holder", grow=1), grow=1)
        bar = app_bar("Simple Calendar", actions=[("Search", "search", lambda: phone.push("search")),
                                                  ("Go to today", "today", today)])
        add = fab("New event", lambda: phone.push("edit", event_id=None, day=phone.now.date().isoformat()),
                  rid="calendar_fab")
        return screen_frame(bar, body, fab=add)

    # ---- day ------------------------------------------------------------------------------
    def screen_day(self, phone: Phone, scr: Screen) -> View:
        day = date.fromisoformat(scr.args["day"])

        def go(delta: int) -> None:
            scr.args["day"] = (day + timedelta(days=delta)).isoformat()
            scr.scroll.clear()

        rows = []
        for ev in events_on(phone, day):
            summary = time_range(phone, ev) + (f" · {ev['eventLocation']}" if ev["eventLocation"] else "")
            rows.append(list_row(ev["title"], summary, rid="event_item",
                                 on_click=lambda i=ev["_id"]: phone.push("edit", event_id=i)))
        header = V("linear", icon_button("Previous day", lambda: go(-1), rid="top_left_arrow", icon="back"),
                   text_view(fmt_day(day), rid="top_value", size=46, grow=1, style={"align": "center",
                                                                                     "valign": "center"}),
                   icon_button("Next day", lambda: go(1), rid="top_right_arrow", icon="forward"),
                   horizontal=True, h=140)
        body = V("linear", header, list_view(phone, scr, rows, key="events", empty="No events on this day"),
                 grow=1)
        add = fab("New event", lambda: phone.push("edit", event_id=None, day=day.isoformat()), rid="calendar_fab")
        return screen_frame(app_bar(f"{MONTHS[day.month - 1]} {day.year}", back=phone.back), body, fab=add)

    # ---- search ---------------------------------------------------------------------------
    def screen_search(self, phone: Phone, scr: Screen) -> View:
        q = scr.fields.get("query", "").strip().lower()
        rows = []
        if q:
            like = f"%{q}%"
            for ev in phone.query("SELECT * FROM events WHERE lower(title) LIKE ? OR lower(eventLocation) LIKE ? "
                                  "OR lower(description) LIKE ? ORDER BY dtstart", (like, like, like)):
                d = from_ms(ev["dtstart"]).date()
                summary = f"{day_label(d)} · {time_range(phone, ev)}" + \
                    (f" · {ev['eventLocation']}" if ev["eventLocation"] else "")
                rows.append(list_row(ev["title"], summary, rid="search_result",
                                     on_click=lambda i=ev["_id"]: phone.push("edit", event_id=i)))
        field = edit_field(phone, scr.fields, "query", hint="Search events", rid="search_src_text")
        field.grow = 1
        bar = V("linear", icon_button("Navigate up", phone.back, icon="back", w=147, h=147), field,
                horizontal=True, h=168, pad=(12, 10, 30, 10))
        empty = "No events found" if q else "Type to search events"
        return screen_frame(bar, list_view(phone, scr, rows, key="results", empty=empty))

    # ---- edit / create --------------------------------------------------------------------
    def _draft(self, phone: Phone, scr: Screen) -> dict:
        """The form's state (start/end ISO datetimes, all_day) initialised from the event or the day."""
        st = scr.state
        if "start" not in st:
            ev_id = scr.args.get("event_id")
            ev = phone.query_one("SELECT * FROM events WHERE _id=?", (ev_id,)) if ev_id is not None else None
            if ev is not None:
                scr.fields.update(title=ev["title"] or "", location=ev["eventLocation"] or "",
                                  description=ev["description"] or "")
                start, end = from_ms(ev["dtstart"]), from_ms(ev["dtend"])
                if ev["allDay"]:
                    end = end - timedelta(days=1)  # the form shows the last day, not the exclusive end
                st.update(start=start.isoformat(), end=end.isoformat(), all_day=bool(ev["allDay"]))
            else:
                day = date.fromisoformat(scr.args.get("day") or phone.now.date().isoformat())
                hour = min(phone.now.hour + 1, 23)
                start = datetime.combine(day, datetime.min.time()).replace(hour=hour)
                st.update(start=start.isoformat(), end=(start + timedelta(hours=1)).isoformat(), all_day=False)
        return st

    def screen_edit(self, phone: Phone, scr: Screen) -> View:
        st = self._draft(phone, scr)
        start, end = datetime.fromisoformat(st["start"]), datetime.fromisoformat(st["end"])
        existing = scr.args.get("event_id") is not None

        def pick_date(which: str) -> None:
            d = start if which == "start" else end
            phone.show_dialog(self.key, "date_picker", year=d.year, month=d.month, day=d.day, on_ok="set_date",
                              args={"which": which})

        def pick_time(which: str) -> None:
            d = start if which == "start" else end
            phone.show_dialog(self.key, "time_picker", hour=d.hour, minute=d.minute, on_ok="set_time",
                              args={"which": which})

        def toggle_all_day(v: bool) -> None:
            st["all_day"] = v

        def row(label: str, value: str, rid: str, fn) -> View:
            return V("linear", text_view(label, size=36, w=260, style={"fg": "#5f6368", "valign": "center"}),
                     text_view(value, rid=rid, size=44, grow=1, clickable=True, focusable=True, on_click=fn,
                               style={"valign": "center"}),
                     horizontal=True, h=130, pad=(48, 0, 40, 0))

        kids: list[View | None] = [
            V("linear", edit_field(phone, scr.fields, "title", hint="Title", rid="event_title"), pad=(40, 20, 40, 0)),
            V("linear", edit_field(phone, scr.fields, "location", hint="Location", rid="event_location"),
              pad=(40, 0, 40, 0)),
            V("linear", edit_field(phone, scr.fields, "description", hint="Description", rid="event_description"),
              pad=(40, 0, 40, 10)),
            switch_row("All-day", bool(st["all_day"]), toggle_all_day, rid="event_all_day_holder",
                       switch_rid="event_all_day"),
            row("Starts", day_label(start.date()), "event_start_date", lambda: pick_date("start")),
            None if st["all_day"] else row("Start time", phone.format_time(start.hour, start.minute),
                                           "event_start_time", lambda: pick_time("start")),
            row("Ends", day_label(end.date()), "event_end_date", lambda: pick_date("end")),
            None if st["all_day"] else row("End time", phone.format_time(end.hour, end.minute),
                                           "event_end_time", lambda: pick_time("end")),
        ]
        actions = [("Save", "save", lambda: self.save(phone))]
        if existing:
            actions.insert(0, ("Delete", "delete", lambda: phone.show_dialog(
                self.key, "confirm", title="Delete event?", message="Are you sure you want to delete this event?",
                ok="Delete", on_ok="delete_event", args={"event_id": scr.args["event_id"]})))
        bar = app_bar("Edit event" if existing else "New event", back=phone.back, actions=actions)
        return screen_frame(bar, V("scroll", V("linear", *kids, rid="event_holder"), rid="event_scrollview"))

    def set_date(self, phone: Phone, year: int, month: int, day: int, which: str) -> None:
        scr = phone.screen
        if scr is None or scr.name != "edit":
            return
        st = scr.state
        start, end = datetime.fromisoformat(st["start"]), datetime.fromisoformat(st["end"])
        if which == "start":
            new = start.replace(year=year, month=month, day=day)
            st["start"], st["end"] = new.isoformat(), (end + (new - start)).isoformat()  # keep the duration
        else:
            st["end"] = end.replace(year=year, month=month, day=day).isoformat()

    def set_time(self, phone: Phone, hour: int, minute: int, which: str) -> None:
        scr = phone.screen
        if scr is None or scr.name != "edit":
            return
        st = scr.state
        start, end = datetime.fromisoformat(st["start"]), datetime.fromisoformat(st["end"])
        if which == "start":
            new = start.replace(hour=hour, minute=minute)
            st["start"], st["end"] = new.isoformat(), (end + (new - start)).isoformat()
        else:
            st["end"] = end.replace(hour=hour, minute=minute).isoformat()

    def save(self, phone: Phone) -> None:
        scr = phone.screen
        assert scr is not None
        st = self._draft(phone, scr)
        title = scr.fields.get("title", "").strip()
        if not title:
            phone.show_toast("Title cannot be empty")
            return
        start, end = datetime.fromisoformat(st["start"]), datetime.fromisoformat(st["end"])
        all_day = bool(st["all_day"])
        if all_day:
            start = datetime.combine(start.date(), datetime.min.time())
            end = datetime.combine(end.date(), datetime.min.time()) + timedelta(days=1)
        if end < start:
            phone.show_toast("The end of the event cannot be before its start")
            return
        values = (title, scr.fields.get("location", "").strip(), scr.fields.get("description", "").strip(),
                  to_ms(start), to_ms(end), int(all_day))
        ev_id = scr.args.get("event_id")
        if ev_id is not None and phone.query_one("SELECT _id FROM events WHERE _id=?", (ev_id,)):
            phone.execute("UPDATE events SET title=?, eventLocation=?, description=?, dtstart=?, dtend=?, allDay=? "
                          "WHERE _id=?", (*values, ev_id))
            phone.show_toast("Event updated")
        else:
            phone.execute("INSERT INTO events(calendar_id, title, eventLocation, description, dtstart, dtend, allDay, "
                          "eventTimezone) VALUES(1,?,?,?,?,?,?, 'UTC')", values)
            phone.show_toast("Event added")
        phone.pop()

    def delete_event(self, phone: Phone, event_id: int) -> None:
        phone.execute("DELETE FROM events WHERE _id=?", (event_id,))
        phone.show_toast("Event deleted")
        if phone.screen is not None and phone.screen.name == "edit":
            phone.pop()
