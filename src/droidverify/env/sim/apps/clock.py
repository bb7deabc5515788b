"""Clock (com.google.android.deskclock): alarms, world clock with city search, timer, stopwatch.

Alarms live in ``alarm_templates`` (AOSP DeskClock's table: hour, minutes, days_of_week bitmask
Mon=1 .. Sun=64, enabled, vibrate, label); timers in ``timers``; the stopwatch in ``stopwatch``
and ``laps``; world-clock cities in ``world_cities``.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from droidverify.env.sim.app import (
    ACCENT,
    App,
    app_bar,
    bottom_tabs,
    button,
    edit_field,
    fab,
    icon_button,
    list_row,
    list_view,
    register_app,
    screen_frame,
    text_view,
)
from droidverify.env.sim.phone import Phone, Screen
from droidverify.env.sim.timeutil import WEEKDAYS, WEEKDAYS_SHORT
from droidverify.env.sim.view import V, View

DAY_LETTER = ("M", "T", "W", "T", "F", "S", "S")
WEEKDAYS_MASK, WEEKEND_MASK, EVERY_DAY = 0b0011111, 0b1100000, 0b1111111
LABELS = ("Wake up", "Gym", "Take medicine", "School run", "Meeting prep", "Yoga", "Walk the dog",
          "Pick up kids", "Water plants", "Call mom", "Standup", "Nap", "Bus", "Laundry", "Study")
CITIES = (("London", 1, "United Kingdom"), ("New York", -4, "United States"), ("Tokyo", 9, "Japan"),
          ("Paris", 2, "France"), ("Sydney", 11, "Australia"), ("Berlin", 2, "Germany"),
          ("Mumbai", 5.5, "India"), ("São Paulo", -3, "Brazil"), ("Cairo", 3, "Egypt"),
          ("Dubai", 4, "United Arab Emirates"), ("Singapore", 8, "Singapore"), ("Toronto", -4, "Canada"),
          ("Mexico City", -6, "Mexico"), ("Seoul", 9, "South Korea"), ("Istanbul", 3, "Türkiye"),
          ("Madrid", 2, "Spain"), ("Rome", 2, "Italy"), ("Nairobi", 3, "Kenya"), ("Chicago", -5, "United States"),
          ("Los Angeles", -7, "United States"), ("Honolulu", -10, "United States"), ("Reykjavík", 0, "Iceland"),
          ("Bangkok", 7, "Thailand"), ("Buenos Aires", -3, "Argentina"), ("Lagos", 1, "Nigeria"),
          ("Moscow", 3, "Russia"), ("Hong Kong", 8, "Hong Kong"), ("Auckland", 13, "New Zealand"),
          ("Vancouver", -7, "Canada"), ("Amsterdam", 2, "Netherlands"))
FAB_SPACE = 230  # lists end above the floating button, as in the real app
HOME_OFFSET = -7  # the phone's own zone (Pacific Daylight Time in October)
TABS = (("Alarm", "alarms"), ("Clock", "clock"), ("Timer", "timer"), ("Stopwatch", "stopwatch"))


def days_summary(mask: int) -> str:
    if mask == EVERY_DAY:
        return "Every day"
    if mask == WEEKDAYS_MASK:
        return "Weekdays"
    if mask == WEEKEND_MASK:
        return "Weekends"
    return ", ".join(WEEKDAYS_SHORT[i] for i in range(7) if mask >> i & 1)


def fmt_duration(seconds: int) -> str:
    h, rest = divmod(max(0, seconds), 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def next_fire(now: datetime, hour: int, minute: int, mask: int) -> datetime:
    base = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    for add in range(8):
        cand = base + timedelta(days=add)
        if cand > now and (mask == 0 or mask >> cand.weekday() & 1):
            return cand
    return base + timedelta(days=1)


def until_text(now: datetime, when: datetime) -> str:
    mins = int((when - now).total_seconds() // 60) + 1
    d, rest = divmod(mins, 1440)
    h, m = divmod(rest, 60)
    parts = [f"{d} day{'s' if d != 1 else ''}"] if d else []
    if h:
        parts.append(f"{h} hour{'s' if h != 1 else ''}")
    if m or not parts:
        parts.append(f"{m} minute{'s' if m != 1 else ''}")
    return " and ".join([", ".join(parts[:-1]), parts[-1]] if len(parts) > 1 else parts)


@register_app
class ClockApp(App):
    key = "clock"
    name = "Clock"
    package = "com.google.android.deskclock"
    aliases = ("alarm", "alarms", "deskclock", "alarm clock", "timer", "stopwatch")
    home_screen = "alarms"
    icon_color = "#1a73e8"
    activity = "com.android.deskclock.DeskClock"

    # ---- state ----------------------------------------------------------------------------
    def create_schema(self, phone: Phone) -> None:
        c = phone.conn
        c.execute("CREATE TABLE alarm_templates (_id INTEGER PRIMARY KEY, hour INTEGER, minutes INTEGER, "
                  "days_of_week INTEGER, enabled INTEGER, vibrate INTEGER, label TEXT, ringtone TEXT, "
                  "delete_after_use INTEGER DEFAULT 0)")
        c.execute("CREATE TABLE timers (_id INTEGER PRIMARY KEY, length_s INTEGER, remaining_s INTEGER, "
                  "state TEXT, end_time TEXT, label TEXT)")
        c.execute("CREATE TABLE stopwatch (_id INTEGER PRIMARY KEY CHECK (_id = 1), state TEXT, "
                  "accumulated_s REAL, started_at TEXT)")
        c.execute("CREATE TABLE laps (_id INTEGER PRIMARY KEY, lap_s REAL, total_s REAL)")
        c.execute("CREATE TABLE world_cities (_id INTEGER PRIMARY KEY, city TEXT UNIQUE, utc_offset REAL, "
                  "country TEXT)")
        c.execute("INSERT INTO stopwatch(_id, state, accumulated_s, started_at) VALUES(1, 'reset', 0, NULL)")

    def seed_data(self, phone: Phone, rng: random.Random) -> None:
        n = rng.randint(4, 8)
        used: set[tuple[int, int]] = set()
        labels = rng.sample(LABELS, n)
        for i in range(n):
            while True:
                hm = (rng.choice((5, 6, 6, 7, 7, 8, 9, 12, 13, 17, 18, 21, 22)), rng.choice((0, 0, 15, 30, 45, 10, 50)))
                if hm not in used:
                    used.add(hm)
                    break
            mask = rng.choice((0, 0, WEEKDAYS_MASK, WEEKEND_MASK, EVERY_DAY, 0b0010101, 0b0001010))
            label = labels[i] if rng.random() < 0.75 else ""
            phone.execute("INSERT INTO alarm_templates(hour, minutes, days_of_week, enabled, vibrate, label, ringtone) "
                          "VALUES(?,?,?,?,?,?,?)", (*hm, mask, int(rng.random() < 0.6), 1, label, "Bright Morning"))
        for city, off, country in rng.sample(CITIES, rng.randint(1, 3)):
            phone.execute("INSERT INTO world_cities(city, utc_offset, country) VALUES(?,?,?)", (city, off, country))

    def on_time(self, phone: Phone, before: Any, after: Any) -> None:
        for t in phone.query("SELECT _id, end_time FROM timers WHERE state='running'"):
            end = datetime.fromisoformat(t["end_time"])
            if end <= after:
                phone.execute("UPDATE timers SET state='expired', remaining_s=0 WHERE _id=?", (t["_id"],))
                phone.show_toast("Time's up")
            else:
                phone.execute("UPDATE timers SET remaining_s=? WHERE _id=?",
                              (int((end - after).total_seconds()), t["_id"]))

    # ---- shared ---------------------------------------------------------------------------------
    def _tabs(self, phone: Phone, selected: str) -> View:
        return bottom_tabs(TABS, selected, lambda k: phone.replace(k), rid="tabs")

    def _frame(self, phone: Phone, title: str, tab: str, body: View, fab_view: View | None = None) -> View:
        bar = app_bar(title, menu=[("Settings", lambda: phone.show_toast("Clock settings are not available")),
                                   ("Send feedback", lambda: phone.show_toast("Thanks for your feedback")),
                                   ("Help", lambda: phone.show_toast("Help is not available offline"))],
                      phone=phone)
        return screen_frame(bar, body, bottom=self._tabs(phone, tab),
                            fab=fab_view)

    # ---- alarms ---------------------------------------------------------------------------------
    def screen_alarms(self, phone: Phone, scr: Screen) -> View:
        rows = []
        for a in phone.query("SELECT * FROM alarm_templates ORDER BY hour, minutes, _id"):
            aid, enabled = a["_id"], bool(a["enabled"])
            time_text = phone.format_time(a["hour"], a["minutes"])
            mask = a["days_of_week"]
            if mask:
                when = days_summary(mask)
            elif enabled:
                fire = next_fire(phone.now, a["hour"], a["minutes"], 0)
                when = "Today" if fire.date() == phone.now.date() else "Tomorrow"
            else:
                when = "Not scheduled"
            sw = V("switch", rid="onoff", text="ON" if enabled else "OFF", checkable=True, checked=enabled,
                   clickable=True, focusable=True, desc=f"{time_text} alarm", w=150, h=96,
                   on_click=lambda aid=aid, en=enabled: self.set_enabled(phone, aid, not en))
            info = V("linear", text_view(time_text, rid="digital_clock", size=80,
                                         style={"fg": "#202124" if enabled else "#80868b"}),
                     text_view(a["label"], rid="label", size=38) if a["label"] else None,
                     text_view(when, rid="days_text", size=34, style={"fg": "#5f6368"}), grow=1)
            rows.append(V("cardview", V("linear", info, sw, horizontal=True, pad=(48, 30, 40, 30)),
                          rid="alarm_item", clickable=True, focusable=True,
                          desc=f"Alarm {time_text}" + (f", {a['label']}" if a["label"] else ""),
                          on_click=lambda aid=aid: phone.push("edit_alarm", alarm_id=aid),
                          style={"bg": "#f1f3f4", "shape": "card"}))
        body = V("linear", list_view(phone, scr, rows, rid="alarm_recycler_view", empty="No alarms"),
                 V("view", h=FAB_SPACE))
        return self._frame(phone, "Alarm", "alarms", body,
                           fab("Add alarm", lambda: phone.push("edit_alarm", alarm_id=None), bottom=2274 - 260))

    def set_enabled(self, phone: Phone, alarm_id: int, enabled: bool) -> None:
        phone.execute("UPDATE alarm_templates SET enabled=? WHERE _id=?", (int(enabled), alarm_id))
        if enabled:
            a = phone.query_one("SELECT * FROM alarm_templates WHERE _id=?", (alarm_id,))
            fire = next_fire(phone.now, a["hour"], a["minutes"], a["days_of_week"])
            phone.show_toast(f"Alarm set for {until_text(phone.now, fire)} from now")

    def _draft(self, phone: Phone, scr: Screen) -> dict[str, Any]:
        d = scr.state.get("draft")
        if d is None:
            aid = scr.args.get("alarm_id")
            a = phone.query_one("SELECT * FROM alarm_templates WHERE _id=?", (aid,)) if aid is not None else None
            if a is not None:
                d = {"hour": a["hour"], "minute": a["minutes"], "days": a["days_of_week"], "vibrate": a["vibrate"]}
                scr.fields.setdefault("label", a["label"] or "")
            else:
                d = {"hour": 8, "minute": 0, "days": 0, "vibrate": 1}
            scr.state["draft"] = d
        return d

    def screen_edit_alarm(self, phone: Phone, scr: Screen) -> View:
        d = self._draft(phone, scr)
        existing = scr.args.get("alarm_id") is not None
        time_text = phone.format_time(d["hour"], d["minute"])

        def pick_time() -> None:
            phone.show_dialog(self.key, "time_picker", title="Set alarm time", hour=d["hour"], minute=d["minute"],
                              on_ok="set_draft_time")

        def toggle_day(i: int) -> None:
            d["days"] ^= 1 << i

        days = [V("checkbox", text=DAY_LETTER[i], desc=WEEKDAYS[i], rid=f"day_button_{i}", checkable=True,
                  checked=bool(d["days"] >> i & 1), clickable=True, focusable=True,
                  on_click=lambda i=i: toggle_day(i), h=120,
                  style={"shape": "round", "bg": ACCENT if d["days"] >> i & 1 else "#e8eaed", "align": "center",
                         "fg": "#ffffff" if d["days"] >> i & 1 else "#202124"}) for i in range(7)]

        def toggle_vibrate() -> None:
            d["vibrate"] = 0 if d["vibrate"] else 1

        def delete() -> None:
            phone.show_dialog(self.key, "confirm", title="Delete alarm?",
                              message=f"The {time_text} alarm will be deleted.", ok="Delete", on_ok="delete_alarm",
                              args={"alarm_id": scr.args["alarm_id"]})

        body = V("linear",
                 V("text", text=time_text, rid="edit_time", desc=f"Alarm time {time_text}", clickable=True,
                   focusable=True, on_click=pick_time, h=260, style={"size": 120, "align": "center", "fg": ACCENT}),
                 text_view("Repeat", rid="repeat_title", size=40, pad=(0, 20, 0, 0)),
                 V("linear", *days, rid="repeat_days", horizontal=True, gap=16, h=120),
                 text_view(days_summary(d["days"]) if d["days"] else "Not repeating", rid="repeat_summary", size=36,
                           style={"fg": "#5f6368"}),
                 edit_field(phone, scr.fields, "label", hint="Label", rid="edit_label"),
                 V("linear", text_view("Vibrate", size=44, grow=1),
                   V("checkbox", rid="vibrate_onoff", desc="Vibrate", checkable=True, checked=bool(d["vibrate"]),
                     clickable=True, focusable=True, on_click=toggle_vibrate, w=120, h=96),
                   horizontal=True, h=130),
                 list_row("Sound", "Bright Morning", rid="choose_ringtone"),
                 V("linear", button("Delete", delete, rid="delete", w=300) if existing else None,
                   V("view", grow=1), button("Cancel", phone.back, rid="cancel", w=280),
                   button("Save", lambda: self.save_alarm(phone, scr), rid="save", primary=True, w=260),
                   horizontal=True, h=140, gap=24),
                 rid="alarm_editor", pad=(48, 30, 48, 30), gap=28)
        return screen_frame(app_bar("Edit alarm" if existing else "Add alarm", back=phone.back), body)

    def set_draft_time(self, phone: Phone, hour: int, minute: int) -> None:
        scr = phone.screen
        if scr is not None and scr.name == "edit_alarm":
            d = self._draft(phone, scr)
            d["hour"], d["minute"] = hour, minute

    def save_alarm(self, phone: Phone, scr: Screen) -> None:
        d = self._draft(phone, scr)
        label = scr.fields.get("label", "").strip()
        aid = scr.args.get("alarm_id")
        if aid is None:
            phone.execute("INSERT INTO alarm_templates(hour, minutes, days_of_week, enabled, vibrate, label, ringtone) "
                          "VALUES(?,?,?,?,?,?,?)", (d["hour"], d["minute"], d["days"], 1, d["vibrate"], label,
                                                    "Bright Morning"))
        else:
            phone.execute("UPDATE alarm_templates SET hour=?, minutes=?, days_of_week=?, vibrate=?, label=?, "
                          "enabled=1 WHERE _id=?", (d["hour"], d["minute"], d["days"], d["vibrate"], label, aid))
        fire = next_fire(phone.now, d["hour"], d["minute"], d["days"])
        phone.pop()
        phone.show_toast(f"Alarm set for {until_text(phone.now, fire)} from now")

    def delete_alarm(self, phone: Phone, alarm_id: int) -> None:
        phone.execute("DELETE FROM alarm_templates WHERE _id=?", (alarm_id,))
        if phone.screen is not None and phone.screen.name == "edit_alarm":
            phone.pop()
        phone.show_toast("Alarm deleted")

    # ---- world clock ----------------------------------------------------------------------------
    def _city_time(self, phone: Phone, offset: float) -> tuple[str, str]:
        t = phone.now + timedelta(hours=offset - HOME_OFFSET)
        diff = offset - HOME_OFFSET
        day = "Today" if t.date() == phone.now.date() else ("Tomorrow" if t.date() > phone.now.date() else "Yesterday")
        sign = "+" if diff >= 0 else "-"
        hrs = f"{abs(diff):g} hr{'s' if abs(diff) != 1 else ''}"
        return phone.format_time(t.hour, t.minute), f"{day}, {sign}{hrs}"

    def screen_clock(self, phone: Phone, scr: Screen) -> View:
        now = phone.now
        rows: list[View] = [
            V("linear", text_view(phone.format_time(now.hour, now.minute), rid="digital_clock", size=150,
                                  style={"align": "center"}),
              text_view(now.strftime("%a, %b %-d"), rid="date", size=44, style={"align": "center"}),
              h=420, pad=(0, 60, 0, 0))]
        for c in phone.query("SELECT * FROM world_cities ORDER BY city"):
            t, rel = self._city_time(phone, c["utc_offset"])
            rows.append(list_row(c["city"], rel, rid="city_item", right=text_view(t, rid="city_time", size=60, w=300),
                                 on_long_click=lambda cid=c["_id"], n=c["city"]: phone.show_dialog(
                                     self.key, "confirm", title=f"Remove {n}?", ok="Remove", on_ok="remove_city",
                                     args={"city_id": cid})))
        body = V("linear", list_view(phone, scr, rows, rid="cities"), V("view", h=FAB_SPACE))
        return self._frame(phone, "Clock", "clock", body,
                           fab("Add city", lambda: phone.push("city_search"), rid="fab", icon="globe",
                               bottom=2274 - 260))

    def remove_city(self, phone: Phone, city_id: int) -> None:
        phone.execute("DELETE FROM world_cities WHERE _id=?", (city_id,))

    def screen_city_search(self, phone: Phone, scr: Screen) -> View:
        q = scr.fields.get("query", "").strip().lower()
        chosen = {r[0] for r in phone.query("SELECT city FROM world_cities")}
        rows = []
        for city, off, country in sorted(CITIES):
            if q and q not in city.lower() and q not in country.lower():
                continue
            t, _ = self._city_time(phone, off)
            rows.append(list_row(city, country, rid="city_name", right=text_view(t, size=40, w=260),
                                 on_click=(lambda c=city, o=off, k=country: self.add_city(phone, c, o, k))
                                 if city not in chosen else None, enabled=city not in chosen))
        field = edit_field(phone, scr.fields, "query", hint="Search for a city", rid="search_src_text")
        bar = V("linear", icon_button("Navigate up", phone.back, icon="back", w=147, h=147), field,
                horizontal=True, h=168, pad=(12, 10, 30, 10))
        field.grow = 1
        return screen_frame(bar, list_view(phone, scr, rows, rid="search_results", empty="No results found"))

    def add_city(self, phone: Phone, city: str, offset: float, country: str) -> None:
        phone.execute("INSERT OR IGNORE INTO world_cities(city, utc_offset, country) VALUES(?,?,?)",
                      (city, offset, country))
        phone.pop()

    # ---- timer ----------------------------------------------------------------------------------
    def screen_timer(self, phone: Phone, scr: Screen) -> View:
        timers = phone.query("SELECT * FROM timers ORDER BY _id")
        if timers and not scr.state.get("setup"):
            return self._running_timers(phone, scr, timers)
        digits = scr.state.get("digits", "")
        padded = digits.rjust(6, "0")
        display = f"{padded[:2]}h {padded[2:4]}m {padded[4:]}s"

        def press(d: str) -> None:
            cur = scr.state.get("digits", "")
            if len(cur) < 6 and (cur or d != "0"):
                scr.state["digits"] = cur + d

        def delete() -> None:
            scr.state["digits"] = scr.state.get("digits", "")[:-1]

        keys = (("1", "2", "3"), ("4", "5", "6"), ("7", "8", "9"), ("00", "0", "⌫"))
        pad_rows = []
        for row in keys:
            cells = []
            for k in row:
                if k == "⌫":
                    cells.append(icon_button("Delete", delete, rid="timer_setup_delete", icon="backspace", w=220,
                                             h=180))
                elif k == "00":
                    cells.append(button("00", lambda: (press("0"), press("0")), rid="timer_setup_digit_00", w=220,
                                        h=180, style={"bg": "#f1f3f4", "fg": "#202124", "shape": "round"}))
                else:
                    cells.append(button(k, lambda k=k: press(k), rid=f"timer_setup_digit_{k}", w=220, h=180,
                                        style={"bg": "#f1f3f4", "fg": "#202124", "shape": "round"}))
            pad_rows.append(V("linear", *cells, horizontal=True, h=200, gap=40, pad=(110, 0, 110, 0)))
        body = V("linear", text_view(display, rid="timer_setup_time", desc=display, size=100,
                                     style={"align": "center"}, h=260), *pad_rows, pad=(0, 60, 0, 0))
        start = fab("Start", lambda: self.start_timer(phone, scr), rid="fab", icon="play",
                    bottom=2274 - 260) if digits else None
        return self._frame(phone, "Timer", "timer", body, start)

    def start_timer(self, phone: Phone, scr: Screen) -> None:
        p = scr.state.get("digits", "").rjust(6, "0")
        length = int(p[:2]) * 3600 + int(p[2:4]) * 60 + int(p[4:])
        if length <= 0:
            return
        end = phone.now + timedelta(seconds=length)
        phone.execute("INSERT INTO timers(length_s, remaining_s, state, end_time, label) VALUES(?,?,?,?,?)",
                      (length, length, "running", end.isoformat(), ""))
        scr.state["digits"] = ""
        scr.state["setup"] = False

    def _running_timers(self, phone: Phone, scr: Screen, timers: list) -> View:
        cards = []
        for t in timers:
            tid, state = t["_id"], t["state"]
            if state == "running":
                remaining = int((datetime.fromisoformat(t["end_time"]) - phone.now).total_seconds())
            else:
                remaining = t["remaining_s"]
            status = {"running": "", "paused": "Paused", "expired": "Time's up"}.get(state, "")
            toggle = ("Pause", "pause") if state == "running" else ("Start", "play")
            cards.append(V("cardview",
                           text_view(f"{fmt_duration(t['length_s'])} timer", rid="timer_label", size=38),
                           text_view(fmt_duration(remaining), rid="timer_time_text", size=110,
                                     style={"align": "center"}),
                           text_view(status, rid="timer_status", size=36) if status else None,
                           V("linear", button("+1:00", lambda tid=tid: self.add_minute(phone, tid), rid="timer_add_time",
                                              desc="Add 1 minute", w=240),
                             V("view", grow=1),
                             icon_button("Delete timer", lambda tid=tid: self.delete_timer(phone, tid),
                                         rid="timer_delete", icon="delete"),
                             icon_button(toggle[0], lambda tid=tid: self.toggle_timer(phone, tid),
                                         rid="timer_toggle", icon=toggle[1]),
                             horizontal=True, h=140, gap=20),
                           rid="timer_item", pad=40, gap=10, style={"bg": "#f1f3f4", "shape": "card"}))

        def add_timer() -> None:
            scr.state["setup"] = True

        body = V("linear", list_view(phone, scr, cards, key="timers", rid="timer_view_pager"),
                 button("Add timer", add_timer, rid="add_timer", w=400), pad=(30, 20, 30, 20), gap=20)
        return self._frame(phone, "Timer", "timer", body)

    def add_minute(self, phone: Phone, tid: int) -> None:
        t = phone.query_one("SELECT * FROM timers WHERE _id=?", (tid,))
        if t["state"] == "running":
            end = datetime.fromisoformat(t["end_time"]) + timedelta(minutes=1)
            phone.execute("UPDATE timers SET end_time=?, length_s=length_s+60 WHERE _id=?", (end.isoformat(), tid))
        else:
            phone.execute("UPDATE timers SET remaining_s=remaining_s+60, length_s=length_s+60, state="
                          "CASE state WHEN 'expired' THEN 'paused' ELSE state END WHERE _id=?", (tid,))

    def delete_timer(self, phone: Phone, tid: int) -> None:
        phone.execute("DELETE FROM timers WHERE _id=?", (tid,))

    def toggle_timer(self, phone: Phone, tid: int) -> None:
        t = phone.query_one("SELECT * FROM timers WHERE _id=?", (tid,))
        if t["state"] == "running":
            rem = int((datetime.fromisoformat(t["end_time"]) - phone.now).total_seconds())
            phone.execute("UPDATE timers SET state='paused', remaining_s=?, end_time=NULL WHERE _id=?", (rem, tid))
        elif t["remaining_s"] > 0:
            end = phone.now + timedelta(seconds=t["remaining_s"])
            phone.execute("UPDATE timers SET state='running', end_time=? WHERE _id=?", (end.isoformat(), tid))

    # ---- stopwatch --------------------------------------------------------------------------------
    def stopwatch_elapsed(self, phone: Phone) -> float:
        sw = phone.query_one("SELECT * FROM stopwatch WHERE _id=1")
        total = sw["accumulated_s"]
        if sw["state"] == "running":
            total += (phone.now - datetime.fromisoformat(sw["started_at"])).total_seconds()
        return total

    def screen_stopwatch(self, phone: Phone, scr: Screen) -> View:
        sw = phone.query_one("SELECT * FROM stopwatch WHERE _id=1")
        state = sw["state"]
        el = self.stopwatch_elapsed(phone)
        m, s = divmod(el, 60)
        display = f"{int(m):02d}:{s:05.2f}"
        laps = phone.query("SELECT * FROM laps ORDER BY _id DESC")
        lap_rows = [list_row(f"Lap {len(laps) - i}", f"{lp['lap_s']:.2f}   total {lp['total_s']:.2f}", rid="lap")
                    for i, lp in enumerate(laps)]
        controls = V("linear",
                     button("Reset", lambda: self.reset_stopwatch(phone), rid="reset", w=260,
                            enabled=state != "reset") if state != "running" else
                     button("Lap", lambda: self.lap(phone), rid="lap_button", w=260),
                     V("view", grow=1),
                     button("Pause" if state == "running" else "Start",
                            lambda: self.toggle_stopwatch(phone), rid="fab", primary=True, w=300, h=160,
                            desc="Pause" if state == "running" else "Start"),
                     horizontal=True, h=180, pad=(80, 0, 80, 0))
        body = V("linear", text_view(display, rid="stopwatch_time_text", size=130, style={"align": "center"}, h=360,
                                     pad=(0, 100, 0, 0)),
                 controls, list_view(phone, scr, lap_rows, key="laps", rid="laps_list"), gap=30)
        return self._frame(phone, "Stopwatch", "stopwatch", body)

    def toggle_stopwatch(self, phone: Phone) -> None:
        sw = phone.query_one("SELECT * FROM stopwatch WHERE _id=1")
        if sw["state"] == "running":
            phone.execute("UPDATE stopwatch SET state='paused', accumulated_s=?, started_at=NULL WHERE _id=1",
                          (self.stopwatch_elapsed(phone),))
        else:
            phone.execute("UPDATE stopwatch SET state='running', started_at=? WHERE _id=1", (phone.now.isoformat(),))

    def reset_stopwatch(self, phone: Phone) -> None:
        phone.execute("UPDATE stopwatch SET state='reset', accumulated_s=0, started_at=NULL WHERE _id=1")
        phone.execute("DELETE FROM laps")

    def lap(self, phone: Phone) -> None:
        total = self.stopwatch_elapsed(phone)
        prev = phone.query_one("SELECT total_s FROM laps ORDER BY _id DESC LIMIT 1")
        phone.execute("INSERT INTO laps(lap_s, total_s) VALUES(?, ?)", (total - (prev[0] if prev else 0), total))
