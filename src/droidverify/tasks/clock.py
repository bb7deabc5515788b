"""Clock app tasks: alarms (create, repeat days, delete, on/off, edit), timer, stopwatch, world clock.

Checkers read ``alarm_templates``/``timers``/``stopwatch``/``world_cities``. Near misses fail: an
alarm at the right time on the wrong days, a second copy of the alarm, the decoy alarm changed.
"""

from __future__ import annotations

import random
import re
from typing import Any

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim.apps.clock import CITIES, EVERY_DAY, LABELS, WEEKDAYS_MASK, WEEKEND_MASK
from droidverify.env.sim.phone import Phone
from droidverify.tasks.base import TaskTemplate
from droidverify.tasks.helpers import (
    BACK,
    COMPLETE,
    answer,
    click,
    click_or_scroll,
    dismiss_popups,
    find,
    navigate,
    type_into,
)
from droidverify.tasks.helpers.clock import (
    APP,
    alarm_desc,
    alarms,
    edit_draft,
    insert_alarm,
    labelled,
    open_alarm_editor,
    say_time,
    to_tab,
)
from droidverify.tasks.registry import register_task

TIMES = [(h, m) for h in (5, 6, 7, 8, 9, 10, 11, 14, 15, 16, 19, 20, 23) for m in (5, 20, 35, 40, 55)]
DAY_SETS = (("on weekdays", WEEKDAYS_MASK), ("on weekends", WEEKEND_MASK), ("every day", EVERY_DAY),
            ("every Monday, Wednesday and Friday", 0b0010101), ("every Tuesday and Thursday", 0b0001010),
            ("every Saturday", 0b0100000), ("every Sunday", 0b1000000), ("every Monday", 0b0000001))
NEW_LABELS = ("Dentist", "Flight check-in", "Team sync", "Piano practice", "Feed the cat", "Stretch",
              "Bake bread", "Pay rent", "Vitamins", "Swim")


class AlarmTemplate(TaskTemplate):
    apps = ("Clock",)


@register_task
class CreateAlarm(AlarmTemplate):
    name = "clock_create_alarm"
    complexity = 2
    optimal_steps = 9
    goal_template = "Create an alarm for {time} with the label \"{label}\"."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        h, m = rng.choice(TIMES)
        return {"hour": h, "minute": m, "time": say_time(h, m), "label": rng.choice(NEW_LABELS)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM alarm_templates WHERE (hour=? AND minutes=?) OR lower(label)=?",
                      (params["hour"], params["minute"], params["label"].lower()))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        hits = labelled(phone, params["label"])
        return 1.0 if len(hits) == 1 and (hits[0]["hour"], hits[0]["minutes"]) == (params["hour"], params["minute"]) \
            and hits[0]["enabled"] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        scr = phone.screen
        if phone.foreground == APP and scr is not None and scr.name == "edit_alarm" and scr.args.get("alarm_id") is None:
            return edit_draft(phone, obs, params["hour"], params["minute"], None, params["label"])
        return to_tab(phone, obs, "alarms") or click(obs, desc="Add alarm") or COMPLETE


@register_task
class CreateRepeatingAlarm(AlarmTemplate):
    name = "clock_create_repeating_alarm"
    complexity = 3
    optimal_steps = 10
    goal_template = "Set an alarm for {time} that repeats {days_text}."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        h, m = rng.choice(TIMES)
        text, mask = rng.choice(DAY_SETS)
        return {"hour": h, "minute": m, "time": say_time(h, m), "days_text": text, "days": mask}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM alarm_templates WHERE hour=? AND minutes=?", (params["hour"], params["minute"]))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        hits = alarms(phone, hour=params["hour"], minutes=params["minute"])
        return 1.0 if len(hits) == 1 and hits[0]["days_of_week"] == params["days"] and hits[0]["enabled"] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        scr = phone.screen
        if phone.foreground == APP and scr is not None and scr.name == "edit_alarm" and scr.args.get("alarm_id") is None:
            return edit_draft(phone, obs, params["hour"], params["minute"], params["days"], None)
        return to_tab(phone, obs, "alarms") or click(obs, desc="Add alarm") or COMPLETE


def _with_decoy(phone: Phone, params: dict[str, Any], *, enabled: int, days: int = 0) -> None:
    insert_alarm(phone, params["decoy_hour"], params["decoy_minute"], label=params["decoy_label"], enabled=enabled,
                  days=days)
    insert_alarm(phone, params["hour"], params["minute"], label=params["label"], enabled=enabled, days=days)


def _pair(rng: random.Random) -> dict[str, Any]:
    (h, m), (dh, dm) = rng.sample(TIMES, 2)
    label, decoy = rng.sample(LABELS, 2)
    return {"hour": h, "minute": m, "time": say_time(h, m), "label": label, "decoy_hour": dh, "decoy_minute": dm,
            "decoy_label": decoy}


def _decoy_intact(phone: Phone, params: dict[str, Any], *, enabled: int) -> bool:
    d = labelled(phone, params["decoy_label"])
    return len(d) == 1 and (d[0]["hour"], d[0]["minutes"], d[0]["enabled"]) == (
        params["decoy_hour"], params["decoy_minute"], enabled)


@register_task
class DeleteAlarm(AlarmTemplate):
    name = "clock_delete_alarm"
    complexity = 2
    optimal_steps = 5
    goal_template = "Delete the alarm labelled \"{label}\"."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return _pair(rng)

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        _with_decoy(phone, params, enabled=1)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        gone = not labelled(phone, params["label"])
        return 1.0 if gone and _decoy_intact(phone, params, enabled=1) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        hits = labelled(phone, params["label"])
        if not hits:
            return COMPLETE
        if phone.dialog is not None and phone.dialog.data.get("on_ok") == "delete_alarm":
            return click(obs, resource_id="android:id/button1") or BACK
        scr = phone.screen
        if phone.foreground == APP and scr is not None and scr.name == "edit_alarm" \
                and scr.args.get("alarm_id") == hits[0]["_id"] and phone.dialog is None:
            return click(obs, resource_id="delete") or BACK
        return open_alarm_editor(phone, obs, hits[0])


class SwitchAlarm(AlarmTemplate):
    complexity = 2
    optimal_steps = 3
    enable: bool

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return _pair(rng)

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        _with_decoy(phone, params, enabled=0 if self.enable else 1, days=WEEKDAYS_MASK)

    def _target(self, phone: Phone, params: dict[str, Any]) -> list:
        return alarms(phone, hour=params["hour"], minutes=params["minute"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        t = self._target(phone, params)
        ok = len(t) == 1 and bool(t[0]["enabled"]) == self.enable and t[0]["days_of_week"] == WEEKDAYS_MASK
        return 1.0 if ok and _decoy_intact(phone, params, enabled=0 if self.enable else 1) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = to_tab(phone, obs, "alarms")
        if step is not None:
            return step
        t = self._target(phone, params)[0]
        return click_or_scroll(phone, obs, desc=f"{phone.format_time(t['hour'], t['minutes'])} alarm",
                               class_contains="Switch")


@register_task
class TurnOffAlarm(SwitchAlarm):
    name = "clock_turn_off_alarm"
    enable = False
    goal_template = "Turn off the {time} alarm (keep it, just switch it off)."


@register_task
class TurnOnAlarm(SwitchAlarm):
    name = "clock_turn_on_alarm"
    enable = True
    goal_template = "Switch on the {time} alarm."


@register_task
class ChangeAlarmTime(AlarmTemplate):
    name = "clock_change_alarm_time"
    complexity = 2
    optimal_steps = 8
    goal_template = "Change the alarm labelled \"{label}\" to {new_time}."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = _pair(rng)
        nh, nm = rng.choice([t for t in TIMES if t not in ((p["hour"], p["minute"]), (p["decoy_hour"],
                                                                                          p["decoy_minute"]))])
        p.update(new_hour=nh, new_minute=nm, new_time=say_time(nh, nm))
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM alarm_templates WHERE hour=? AND minutes=?", (params["new_hour"],
                                                                                 params["new_minute"]))
        _with_decoy(phone, params, enabled=1)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        hits = labelled(phone, params["label"])
        ok = len(hits) == 1 and (hits[0]["hour"], hits[0]["minutes"]) == (params["new_hour"], params["new_minute"])
        return 1.0 if ok and _decoy_intact(phone, params, enabled=1) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        hits = labelled(phone, params["label"])
        scr = phone.screen
        if hits and phone.foreground == APP and scr is not None and scr.name == "edit_alarm" \
                and scr.args.get("alarm_id") == hits[0]["_id"]:
            return edit_draft(phone, obs, params["new_hour"], params["new_minute"], None, None)
        return open_alarm_editor(phone, obs, hits[0])


@register_task
class AlarmRepeatDays(AlarmTemplate):
    name = "clock_alarm_repeat_days"
    complexity = 2
    optimal_steps = 7
    goal_template = "Make the alarm labelled \"{label}\" repeat {days_text}."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = _pair(rng)
        text, mask = rng.choice(DAY_SETS)
        p.update(days_text=text, days=mask)
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        _with_decoy(phone, params, enabled=1)  # both one-shot (no repeat days)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        hits = labelled(phone, params["label"])
        ok = len(hits) == 1 and hits[0]["days_of_week"] == params["days"] and \
            (hits[0]["hour"], hits[0]["minutes"]) == (params["hour"], params["minute"])
        decoy = labelled(phone, params["decoy_label"])
        return 1.0 if ok and len(decoy) == 1 and decoy[0]["days_of_week"] == 0 else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        hits = labelled(phone, params["label"])
        scr = phone.screen
        if hits and phone.foreground == APP and scr is not None and scr.name == "edit_alarm" \
                and scr.args.get("alarm_id") == hits[0]["_id"]:
            return edit_draft(phone, obs, params["hour"], params["minute"], params["days"], None)
        return open_alarm_editor(phone, obs, hits[0])


@register_task
class QueryAlarmTime(AlarmTemplate):
    name = "clock_query_alarm_time"
    kind = "query"
    optimal_steps = 2
    goal_template = "What time is the alarm labelled \"{label}\" set for?"

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return _pair(rng)

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        _with_decoy(phone, params, enabled=1)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if answer is None:
            return 0.0
        m = re.search(r"\b(\d{1,2})[:.](\d{2})\s*([ap])?\.?\s*m?\b", answer.lower())
        if m is None:
            return 0.0
        h, mi, ap = int(m.group(1)), int(m.group(2)), m.group(3)
        if ap:
            if not 1 <= h <= 12:
                return 0.0
            h = h % 12 + (12 if ap == "p" else 0)
        elif h < 12 and params["hour"] >= 12 and h != 0:
            return 0.0  # "7:20" for 19:20 is ambiguous without PM
        return 1.0 if (h, mi) == (params["hour"], params["minute"]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_tab(phone, obs, "alarms")
        if step is not None:
            return step
        a = labelled(phone, params["label"])[0]
        if find(obs, desc=alarm_desc(phone, a)) is None:
            return click_or_scroll(phone, obs, desc=alarm_desc(phone, a))
        return answer(say_time(a["hour"], a["minutes"]))


@register_task
class StartTimer(TaskTemplate):
    name = "clock_start_timer"
    apps = ("Clock",)
    complexity = 2
    optimal_steps = 6
    goal_template = "Start a timer for {duration_text}."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        m, s = rng.choice(((1, 0), (2, 30), (3, 0), (5, 0), (7, 0), (10, 0), (12, 0), (15, 0), (25, 0), (45, 0),
                           (0, 45), (1, 30)))
        parts = ([f"{m} minute{'s' if m != 1 else ''}"] if m else []) + ([f"{s} seconds"] if s else [])
        return {"seconds": m * 60 + s, "duration_text": " and ".join(parts)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM timers")

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        t = phone.query("SELECT length_s, state FROM timers")
        return 1.0 if len(t) == 1 and t[0]["length_s"] == params["seconds"] and t[0]["state"] == "running" else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = to_tab(phone, obs, "timer")
        if step is not None:
            return step
        scr = phone.screen
        assert scr is not None
        if phone.query("SELECT 1 FROM timers") and not scr.state.get("setup"):
            return click(obs, desc="Delete timer") or COMPLETE  # a wrong timer: remove it and retry
        m, s = divmod(params["seconds"], 60)
        want = f"{m:02d}{s:02d}".lstrip("0")
        have = scr.state.get("digits", "")
        if have == want:
            return click(obs, desc="Start") or COMPLETE
        if not want.startswith(have):
            return click(obs, desc="Delete") or COMPLETE
        return click(obs, resource_id=f"timer_setup_digit_{want[len(have)]}") or COMPLETE


@register_task
class StartStopwatch(TaskTemplate):
    name = "clock_start_stopwatch"
    apps = ("Clock",)
    optimal_steps = 4
    goal_template = "Start the stopwatch."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("UPDATE stopwatch SET state='reset', accumulated_s=0, started_at=NULL WHERE _id=1")

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        row = phone.query_one("SELECT state FROM stopwatch WHERE _id=1")
        return 1.0 if row is not None and row["state"] == "running" else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return to_tab(phone, obs, "stopwatch") or click(obs, desc="Start") or COMPLETE


@register_task
class AddWorldCity(TaskTemplate):
    name = "clock_add_world_city"
    apps = ("Clock",)
    complexity = 2
    optimal_steps = 6
    goal_template = "Add {city} to the world clock."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"city": rng.choice(CITIES)[0]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM world_cities WHERE city=?", (params["city"],))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if phone.query("SELECT 1 FROM world_cities WHERE city=?", (params["city"],)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        scr = phone.screen
        if phone.foreground == APP and scr is not None and scr.name == "city_search":
            query = params["city"][:4]
            if scr.fields.get("query", "") != query:
                return type_into(obs, query, resource_id="search_src_text") or BACK
            return click_or_scroll(phone, obs, text=params["city"])
        step = navigate(phone, obs, APP, [("clock", {"desc": "Add city"}), ("city_search", None)])
        if step is not None and phone.foreground == APP and phone.screen is not None \
                and phone.screen.name in ("alarms", "timer", "stopwatch"):
            return to_tab(phone, obs, "clock") or step
        return step or dismiss_popups(phone) or BACK
