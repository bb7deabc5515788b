"""Clock helpers for checkers and oracles of alarm, timer and world-clock tasks.

Checkers read ``alarm_templates`` (``alarms``, ``labelled``); set-ups plant alarms with
``insert_alarm``; oracles reach a tab (``to_tab``), open an alarm's editor (``open_alarm_editor``)
and fill it (``edit_draft``: time picker, repeat days, label, then Save) from whatever is showing.
"""

from __future__ import annotations

from typing import Any

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim.phone import Phone
from droidverify.env.sim.timeutil import WEEKDAYS
from droidverify.tasks.helpers.oracle import BACK, click, click_or_scroll, open_app, type_into

APP = "clock"
TABS = ("alarms", "clock", "timer", "stopwatch")


def say_time(h: int, m: int) -> str:
    """``(19, 5)`` -> ``"7:05 PM"`` (how goals and answers write a time)."""
    return f"{h % 12 or 12}:{m:02d} {'AM' if h < 12 else 'PM'}"


def alarms(phone: Phone, **where: Any) -> list:
    """Rows of ``alarm_templates`` whose columns equal ``where`` (all rows when empty)."""
    sql = "SELECT * FROM alarm_templates"
    if where:
        sql += " WHERE " + " AND ".join(f"{k}=?" for k in where)
    return phone.query(sql, tuple(where.values()))


def labelled(phone: Phone, label: str) -> list:
    """Alarms whose label is ``label`` (case and surrounding spaces ignored)."""
    return [a for a in alarms(phone) if (a["label"] or "").strip().lower() == label.lower()]


def insert_alarm(phone: Phone, h: int, m: int, *, label: str = "", days: int = 0, enabled: int = 1) -> int:
    """Plant an alarm (replacing any at that time or with that label); returns its id."""
    phone.execute("DELETE FROM alarm_templates WHERE hour=? AND minutes=?", (h, m))
    if label:
        phone.execute("DELETE FROM alarm_templates WHERE lower(label)=?", (label.lower(),))
    return phone.execute("INSERT INTO alarm_templates(hour, minutes, days_of_week, enabled, vibrate, label, ringtone)"
                         " VALUES(?,?,?,?,?,?,?)", (h, m, days, enabled, 1, label, "Bright Morning"))


def alarm_desc(phone: Phone, a: Any) -> str:
    """The content description of an alarm's row in the alarm list ("Alarm 7:05 AM, Swim")."""
    t = phone.format_time(a["hour"], a["minutes"])
    return f"Alarm {t}" + (f", {a['label']}" if a["label"] else "")


def to_tab(phone: Phone, obs: Observation, tab: str) -> Action | None:
    """Next action toward the Clock tab ``tab`` (one of ``TABS``); None once there, no popup open."""
    if phone.foreground != APP:
        return open_app(phone, APP)
    if phone.dialog is not None or phone.menu_open:
        return BACK
    scr = phone.screen
    assert scr is not None
    if scr.name == tab:
        return None
    if scr.name in TABS:
        return click(obs, resource_id=f"tab_{tab}")
    return BACK


def open_alarm_editor(phone: Phone, obs: Observation, alarm: Any) -> Action:
    """From anywhere: reach the alarm list, then open ``alarm``'s editor."""
    step = to_tab(phone, obs, "alarms")
    if step is not None:
        return step
    return click_or_scroll(phone, obs, desc=alarm_desc(phone, alarm))


def edit_draft(phone: Phone, obs: Observation, h: int, m: int, days: int | None, label: str | None) -> Action:
    """On the alarm editor: fix time, days (a weekday bit mask, Monday = bit 0) and label, then Save.

    ``days`` / ``label`` None leave them as they are.
    """
    scr = phone.screen
    assert scr is not None and scr.name == "edit_alarm"
    d = scr.state.get("draft") or {}
    dlg = phone.dialog
    if dlg is not None and dlg.name == "time_picker":
        fields = dlg.data.get("fields", {})
        want_h = str(h if phone.uses_24h else (h % 12 or 12))
        if fields.get("hour") != want_h:
            return type_into(obs, want_h, resource_id="hour")  # type: ignore[return-value]
        if fields.get("minute") != f"{m:02d}" or int(dlg.data["minute"]) != m:
            return type_into(obs, f"{m:02d}", resource_id="minute")  # type: ignore[return-value]
        if not phone.uses_24h and (int(dlg.data["hour"]) >= 12) != (h >= 12):
            return click(obs, resource_id="pm_label" if h >= 12 else "am_label")  # type: ignore[return-value]
        return click(obs, text="OK")  # type: ignore[return-value]
    if dlg is not None:
        return BACK
    if (d.get("hour"), d.get("minute")) != (h, m):
        return click(obs, resource_id="edit_time")  # type: ignore[return-value]
    if days is not None and d.get("days") != days:
        for i in range(7):
            if bool(d.get("days", 0) >> i & 1) != bool(days >> i & 1):
                return click(obs, desc=WEEKDAYS[i])  # type: ignore[return-value]
    if label is not None and scr.fields.get("label", "") != label:
        return type_into(obs, label, resource_id="edit_label")  # type: ignore[return-value]
    return click(obs, text="Save")  # type: ignore[return-value]
