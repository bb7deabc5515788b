"""Clock app tasks: alarms (create, repeat days, label, vibration, delete, on/off, edit, count), timer,
stopwatch (laps), world clock (add, remove, read a city's time).

Checkers read ``alarm_templates``/``timers``/``stopwatch``/``world_cities``. Near misses fail: an
alarm at the right time on the wrong days, a second copy of the alarm, the decoy alarm changed.
"""

from __future__ import annotations

import random
import re
from datetime import timedelta
from typing import Any, ClassVar

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim.apps.clock import (
    CITIES,
    EVERY_DAY,
    HOME_OFFSET,
    LABELS,
    WEEKDAYS_MASK,
    WEEKEND_MASK,
    fmt_duration,
    next_fire,
)
from droidverify.env.sim.phone import Phone
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
    diff_rows,
    dismiss_popups,
    find,
    find_all,
    navigate,
    normalize_answer,
    scroll_toward,
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


def read_time(text: str | None, true_hour: int) -> tuple[int, int] | None:
    """The first clock time written in ``text`` as (hour 0-23, minute); None when there is none or it
    is ambiguous: "7:20" without AM/PM cannot stand for an afternoon ``true_hour``."""
    if text is None:
        return None
    m = re.search(r"\b(\d{1,2})[:.](\d{2})\s*([ap])?\.?\s*m?\b", text.lower())
    if m is None:
        return None
    h, mi, ap = int(m.group(1)), int(m.group(2)), m.group(3)
    if ap:
        if not 1 <= h <= 12:
            return None
        h = h % 12 + (12 if ap == "p" else 0)
    elif h < 12 and true_hour >= 12 and h != 0:
        return None  # "7:20" for 19:20 is ambiguous without PM
    return h, mi


class AlarmTemplate(TaskTemplate):
    apps = ("Clock",)


@register_task
class CreateAlarm(AlarmTemplate):
    name = "clock_create_alarm"
    complexity = 2
    optimal_steps = 9
    goal_template = "Create an alarm for {time} with the label \"{label}\"."
    goal_phrasings = (
        "Could you set an alarm at {time} called \"{label}\"?",
        "New alarm: {time}, label \"{label}\".",
        "In the Clock app, add a \"{label}\" alarm for {time}.",
    )

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
    goal_phrasings = (
        "Could you add a {time} alarm repeating {days_text}?",
        "I need an alarm at {time}, repeating {days_text}.",
        "Clock: new alarm {time}, repeat {days_text}.",
    )

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
    goal_phrasings = (
        "Please remove my \"{label}\" alarm.",
        "Could you get rid of the alarm called \"{label}\" in the Clock app?",
        "Alarm \"{label}\" - delete it.",
    )

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
    goal_phrasings = (
        "Could you disable my {time} alarm without deleting it?",
        "Switch the {time} alarm off, but don't remove it.",
        "In the Clock app, turn the {time} alarm off (keep it in the list).",
    )


@register_task
class TurnOnAlarm(SwitchAlarm):
    name = "clock_turn_on_alarm"
    enable = True
    goal_template = "Switch on the {time} alarm."
    goal_phrasings = (
        "Could you enable my {time} alarm?",
        "Turn the alarm at {time} back on in the Clock app.",
        "{time} alarm on, please.",
    )


@register_task
class ChangeAlarmTime(AlarmTemplate):
    name = "clock_change_alarm_time"
    complexity = 2
    optimal_steps = 8
    goal_template = "Change the alarm labelled \"{label}\" to {new_time}."
    goal_phrasings = (
        "Could you move my \"{label}\" alarm to {new_time}?",
        "The \"{label}\" alarm should ring at {new_time} from now on.",
        "Set alarm \"{label}\" to {new_time}.",
    )

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
    goal_phrasings = (
        "Could you set my \"{label}\" alarm to repeat {days_text}?",
        "I want the \"{label}\" alarm to go off {days_text}.",
        "Alarm \"{label}\": repeat {days_text}.",
    )

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
    goal_phrasings = (
        "When does my \"{label}\" alarm go off?",
        "Could you check the Clock app and tell me the time of the \"{label}\" alarm?",
        "\"{label}\" alarm - what time?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return _pair(rng)

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        _with_decoy(phone, params, enabled=1)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if read_time(answer, params["hour"]) == (params["hour"], params["minute"]) else 0.0

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
    goal_phrasings = (
        "Could you time {duration_text} for me with the Clock app's timer?",
        "Timer: {duration_text}, start it now.",
        "Please start a countdown of {duration_text}.",
    )

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
    goal_phrasings = (
        "Could you start the stopwatch in the Clock app?",
        "Begin timing with the stopwatch.",
        "Stopwatch on, please.",
    )

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
    goal_phrasings = (
        "Could you show {city}'s time on my world clock?",
        "Put {city} on the Clock app's world clock list.",
        "World clock: add {city}.",
    )

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
            # the result row, not the search box (which holds "Rome" when the city is Rome)
            return click_or_scroll(phone, obs, text=params["city"], resource_id="city_name")
        step = navigate(phone, obs, APP, [("clock", {"desc": "Add city"}), ("city_search", None)])
        if step is not None and phone.foreground == APP and phone.screen is not None \
                and phone.screen.name in ("alarms", "timer", "stopwatch"):
            return to_tab(phone, obs, "clock") or step
        return step or dismiss_popups(phone) or BACK


# ---- more alarm edits ----------------------------------------------------------------------------
def _on_editor_of(phone: Phone, alarm_id: int | None) -> bool:
    """The alarm editor of ``alarm_id`` (None: the new-alarm editor) is the current screen."""
    scr = phone.screen
    return phone.foreground == APP and scr is not None and scr.name == "edit_alarm" \
        and scr.args.get("alarm_id") == alarm_id


def _read_rows(phone: Phone, obs: Observation, rows: list) -> Action | None:
    """Next step of bringing each alarm of ``rows`` on screen in the alarm list (its row shows the label
    and repeat days), so the oracle reads them before it types or copies them; None once every one was.

    What was shown is noted on the phone's event log: the oracle is called afresh at every step.
    """
    for a in rows:
        key = ("oracle_seen", f"clock alarm {a['_id']}")
        if key in phone.events:
            continue
        step = to_tab(phone, obs, "alarms")
        if step is not None:
            return step
        if find(obs, desc=alarm_desc(phone, a)) is None:
            act = scroll_toward(phone, obs, desc=alarm_desc(phone, a))
            if act is not None:
                return act
        phone.events.append(key)
    return None


@register_task
class LabelAlarm(AlarmTemplate):
    name = "clock_label_alarm"
    complexity = 2
    optimal_steps = 5
    goal_template = "Give the {time} alarm the label \"{label}\"."
    goal_phrasings = (
        "Could you name my {time} alarm \"{label}\"?",
        "Label the alarm set for {time} as \"{label}\" in the Clock app.",
        "{time} alarm: add the label \"{label}\".",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        h, m = rng.choice(TIMES)
        # the decoy rings at the same digits in the other half of the day (7:20 AM vs 7:20 PM)
        return {"hour": h, "minute": m, "time": say_time(h, m), "label": rng.choice(NEW_LABELS),
                "decoy_hour": (h + 12) % 24, "decoy_minute": m}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM alarm_templates WHERE lower(label)=?", (params["label"].lower(),))
        insert_alarm(phone, params["decoy_hour"], params["decoy_minute"], enabled=1)
        insert_alarm(phone, params["hour"], params["minute"], enabled=1)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        t = alarms(phone, hour=params["hour"], minutes=params["minute"])
        d = alarms(phone, hour=params["decoy_hour"], minutes=params["decoy_minute"])
        ok = len(t) == 1 and (t[0]["label"] or "").strip().lower() == params["label"].lower() and \
            len(labelled(phone, params["label"])) == 1 and len(d) == 1 and not (d[0]["label"] or "").strip()
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        t = alarms(phone, hour=params["hour"], minutes=params["minute"])[0]
        if _on_editor_of(phone, t["_id"]):
            return edit_draft(phone, obs, params["hour"], params["minute"], None, params["label"])
        return open_alarm_editor(phone, obs, t)


@register_task
class AlarmVibrationOff(AlarmTemplate):
    name = "clock_turn_off_alarm_vibration"
    complexity = 2
    optimal_steps = 5
    goal_template = "Turn off vibration for the alarm labelled \"{label}\"."
    goal_phrasings = (
        "Could you stop my \"{label}\" alarm from vibrating?",
        "The \"{label}\" alarm should ring without vibrating - switch vibration off in the Clock app.",
        "Alarm \"{label}\": vibrate off.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return _pair(rng)

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        _with_decoy(phone, params, enabled=1)  # both vibrate

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        hits = labelled(phone, params["label"])
        decoy = labelled(phone, params["decoy_label"])
        ok = len(hits) == 1 and hits[0]["vibrate"] == 0 and hits[0]["enabled"] and \
            (hits[0]["hour"], hits[0]["minutes"]) == (params["hour"], params["minute"]) and \
            _decoy_intact(phone, params, enabled=1) and decoy[0]["vibrate"] == 1
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        a = labelled(phone, params["label"])[0]
        decoy = labelled(phone, params["decoy_label"])
        if decoy and not decoy[0]["enabled"]:  # a detour switched the other alarm off: back on
            return to_tab(phone, obs, "alarms") or click_or_scroll(
                phone, obs, desc=f"{phone.format_time(decoy[0]['hour'], decoy[0]['minutes'])} alarm",
                class_contains="Switch")
        if not _on_editor_of(phone, a["_id"]):
            return open_alarm_editor(phone, obs, a)
        scr = phone.screen
        assert scr is not None
        if phone.dialog is not None:
            return BACK
        if (scr.state.get("draft") or {}).get("vibrate"):
            return click(obs, desc="Vibrate") or BACK
        return click(obs, text="Save") or BACK


@register_task
class DeleteDisabledAlarms(AlarmTemplate):
    name = "clock_delete_disabled_alarms"
    complexity = 3
    optimal_steps = 14
    goal_template = "Delete every alarm that is switched off; keep the ones that are on."
    goal_phrasings = (
        "Could you clean up my alarms by removing all the disabled ones? Leave the active alarms alone.",
        "Remove all inactive alarms from the Clock app (the ones that are on stay).",
        "Alarms that are off: delete them all.",
    )
    MAX_OFF: ClassVar[int] = 4  # bounds the work: extra switched-off seeded alarms are switched on

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        times = rng.sample(TIMES, 3)
        return {"off": [list(t) for t in times[:2]], "on": list(times[2]), "labels": rng.sample(NEW_LABELS, 3)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for (h, m), label in zip(params["off"], params["labels"]):
            insert_alarm(phone, h, m, label=label, enabled=0)
        insert_alarm(phone, *params["on"], label=params["labels"][2], enabled=1)
        off = [a["_id"] for a in phone.query("SELECT _id FROM alarm_templates WHERE enabled=0 ORDER BY _id DESC")]
        for aid in off[self.MAX_OFF:]:  # the newest (ours) are kept off
            phone.execute("UPDATE alarm_templates SET enabled=1 WHERE _id=?", (aid,))

    ON_SQL: ClassVar[str] = ("SELECT _id, hour, minutes, days_of_week, label FROM alarm_templates WHERE enabled=1 "
                             "ORDER BY _id")

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if alarms(phone, enabled=0):
            return 0.0
        kept = [tuple(r) for r in phone.query(self.ON_SQL)]
        return 1.0 if kept == baseline_rows(phone, self, params, self.ON_SQL) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        keep = {r[0] for r in baseline_rows(phone, self, params, self.ON_SQL)}
        order = sorted(alarms(phone), key=lambda a: (a["hour"], a["minutes"], a["_id"]))
        # a detour may have switched alarms: one that was on goes back on, every other one goes
        relit = [a for a in order if a["_id"] in keep and not a["enabled"]]
        off = [a for a in order if a["_id"] not in keep]
        if not off:
            if not relit:
                return COMPLETE  # nothing left this task can fix
            a = relit[0]
            return to_tab(phone, obs, "alarms") or click_or_scroll(
                phone, obs, desc=f"{phone.format_time(a['hour'], a['minutes'])} alarm", class_contains="Switch")
        ids = {a["_id"] for a in off}
        dlg = phone.dialog
        if dlg is not None and dlg.data.get("on_ok") == "delete_alarm":
            return click(obs, resource_id="android:id/button1") if dlg.data.get("args", {}).get("alarm_id") in ids \
                else BACK
        scr = phone.screen
        if phone.foreground == APP and scr is not None and scr.name == "edit_alarm":
            if scr.args.get("alarm_id") in ids and dlg is None:
                return click(obs, resource_id="delete") or BACK
            return BACK  # never Save here: saving switches the alarm on
        return open_alarm_editor(phone, obs, off[0])


@register_task
class CreateDetailedAlarm(AlarmTemplate):
    name = "clock_create_detailed_alarm"
    complexity = 3
    optimal_steps = 13
    goal_template = ("Create an alarm for {time} labelled \"{label}\" that repeats {days_text}, with vibration "
                     "turned off.")
    goal_phrasings = (
        "Could you set a \"{label}\" alarm at {time}, repeating {days_text}, and make it not vibrate?",
        "New alarm: {time}, label \"{label}\", repeat {days_text}, vibrate off.",
        "I need a silent-vibration alarm at {time} called \"{label}\" that goes off {days_text}.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        h, m = rng.choice(TIMES)
        text, mask = rng.choice(DAY_SETS)
        return {"hour": h, "minute": m, "time": say_time(h, m), "label": rng.choice(NEW_LABELS),
                "days_text": text, "days": mask}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM alarm_templates WHERE (hour=? AND minutes=?) OR lower(label)=?",
                      (params["hour"], params["minute"], params["label"].lower()))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        hits = labelled(phone, params["label"])
        ok = len(hits) == 1 and (hits[0]["hour"], hits[0]["minutes"]) == (params["hour"], params["minute"]) and \
            hits[0]["days_of_week"] == params["days"] and hits[0]["vibrate"] == 0 and hits[0]["enabled"]
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if _on_editor_of(phone, None):
            scr = phone.screen
            assert scr is not None
            if phone.dialog is None and (scr.state.get("draft") or {}).get("vibrate"):
                return click(obs, desc="Vibrate") or BACK
            return edit_draft(phone, obs, params["hour"], params["minute"], params["days"], params["label"])
        return to_tab(phone, obs, "alarms") or click(obs, desc="Add alarm") or COMPLETE


@register_task
class QueryEnabledAlarmCount(AlarmTemplate):
    name = "clock_query_enabled_alarm_count"
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "How many of my alarms are switched on? Answer with a number."
    goal_phrasings = (
        "Count the alarms that are currently enabled in the Clock app and tell me the number.",
        "Could you check how many active alarms I have?",
        "Number of alarms that are on right now?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return _pair(rng)

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # one more on and one more off, so neither "all" nor "none" is the answer
        insert_alarm(phone, params["hour"], params["minute"], label=params["label"], enabled=1)
        insert_alarm(phone, params["decoy_hour"], params["decoy_minute"], label=params["decoy_label"], enabled=0)

    def expected(self, phone: Phone) -> int:
        return len(alarms(phone, enabled=1))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        n = self.expected(phone)
        words = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                 "twelve")
        nums = re.findall(r"\d+", answer or "")
        ok = nums == [str(n)] or (not nums and n < len(words) and answer_matches(answer, words[n]))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_tab(phone, obs, "alarms")
        if step is not None:
            return step
        listed = sorted(alarms(phone), key=lambda a: (a["hour"], a["minutes"], a["_id"]))
        if listed and find(obs, desc=alarm_desc(phone, listed[-1])) is None:  # read to the end of the list
            act = scroll_toward(phone, obs, desc=alarm_desc(phone, listed[-1]))
            if act is not None:
                return act
        return answer(str(self.expected(phone)))


# ---- world clock ---------------------------------------------------------------------------------
CITY_INFO = {c: (off, country) for c, off, country in CITIES}


def _add_city(phone: Phone, city: str) -> None:
    off, country = CITY_INFO[city]
    phone.execute("INSERT OR IGNORE INTO world_cities(city, utc_offset, country) VALUES(?,?,?)", (city, off, country))


def _city_pair(rng: random.Random) -> dict[str, Any]:
    """A city away from the phone's own zone and a second one, from the same country when there is one."""
    city = rng.choice([c for c, off, _ in CITIES if off != HOME_OFFSET])
    country = CITY_INFO[city][1]
    twins = [c for c, (_, k) in CITY_INFO.items() if k == country and c != city]
    decoy = rng.choice(twins or [c for c in CITY_INFO if c != city])
    return {"city": city, "decoy_city": decoy}


def _to_city_row(phone: Phone, obs: Observation, city: str) -> tuple[Action | None, int | None]:
    """(next step, None) toward the world clock with ``city``'s row on screen, then (None, its index)."""
    step = to_tab(phone, obs, "clock")
    if step is not None:
        return step, None
    i = find(obs, text=city, resource_id="city_item")
    if i is None:
        return scroll_toward(phone, obs, text=city, resource_id="city_item") or BACK, None
    return None, i


@register_task
class RemoveWorldCity(TaskTemplate):
    name = "clock_remove_world_city"
    apps = ("Clock",)
    complexity = 2
    optimal_steps = 5
    goal_template = "Remove {city} from the world clock."
    goal_phrasings = (
        "Could you take {city} off my world clock list?",
        "I no longer need {city}'s time in the Clock app - delete that city.",
        "World clock: remove {city}.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return _city_pair(rng)

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        _add_city(phone, params["decoy_city"])
        _add_city(phone, params["city"])

    SQL: ClassVar[str] = "SELECT city FROM world_cities ORDER BY city"

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = [r for r in baseline_rows(phone, self, params, self.SQL) if r[0] != params["city"]]
        return 1.0 if [tuple(r) for r in phone.query(self.SQL)] == want else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        before = {r[0] for r in baseline_rows(phone, self, params, self.SQL)} - {params["city"]}
        # the city, then any city a detour added
        extra = [r for r in phone.query("SELECT _id, city FROM world_cities ORDER BY city") if r["city"] not in before]
        if not extra:
            return COMPLETE
        row = next((r for r in extra if r["city"] == params["city"]), extra[0])
        dlg = phone.dialog
        if dlg is not None and dlg.data.get("on_ok") == "remove_city":
            if dlg.data.get("args", {}).get("city_id") == row["_id"]:
                return click(obs, resource_id="android:id/button1") or BACK
            return BACK
        step, i = _to_city_row(phone, obs, row["city"])
        return step or Action(action_type="long_press", index=i)


@register_task
class QueryCityTime(TaskTemplate):
    name = "clock_query_city_time"
    apps = ("Clock",)
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "What time is it in {city} right now? Check the world clock."
    goal_phrasings = (
        "Could you look at my world clock and tell me the current time in {city}?",
        "Current local time in {city}, according to the Clock app?",
        "Check the world clock: what's the time in {city} now?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return _city_pair(rng)

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        _add_city(phone, params["decoy_city"])
        _add_city(phone, params["city"])

    def truth(self, phone: Phone, params: dict[str, Any]) -> tuple[int, int]:
        t = phone.now + timedelta(hours=CITY_INFO[params["city"]][0] - HOME_OFFSET)
        return t.hour, t.minute

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        h, m = self.truth(phone, params)
        got = read_time(answer, h)
        if got is None:
            return 0.0
        off = abs((got[0] * 60 + got[1]) - (h * 60 + m)) % 1440
        return 1.0 if min(off, 1440 - off) <= 5 else 0.0  # a wait or two between reading and answering

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step, _ = _to_city_row(phone, obs, params["city"])
        return step or answer(say_time(*self.truth(phone, params)))


# ---- timer and stopwatch ---------------------------------------------------------------------------
@register_task
class PauseTimer(TaskTemplate):
    name = "clock_pause_timer"
    apps = ("Clock",)
    complexity = 2
    optimal_steps = 4
    goal_template = "Pause the {duration_text} timer; the other timer should keep running."
    goal_phrasings = (
        "Could you pause my {duration_text} timer? Leave the other one going.",
        "Hold the {duration_text} timer (pause it) but don't touch the other timer.",
        "{duration_text} timer: pause. Other timer: keep running.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        mins, other = rng.sample((3, 5, 10, 15, 20, 25, 30, 45), 2)
        return {"seconds": mins * 60, "other_seconds": other * 60, "duration_text": f"{mins}-minute",
                "target_first": rng.random() < 0.5}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM timers")
        order = [params["seconds"], params["other_seconds"]]
        for length in order if params["target_first"] else order[::-1]:
            end = phone.now + timedelta(seconds=length)
            phone.execute("INSERT INTO timers(length_s, remaining_s, state, end_time, label) VALUES(?,?,?,?,?)",
                          (length, length, "running", end.isoformat(), ""))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        rows = phone.query("SELECT length_s, state FROM timers ORDER BY length_s")
        states = {r["length_s"]: r["state"] for r in rows}
        ok = len(rows) == 2 and states.get(params["seconds"]) == "paused" and \
            states.get(params["other_seconds"]) == "running"
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = to_tab(phone, obs, "timer")
        if step is not None:
            return step
        for length, want in ((params["other_seconds"], "running"), (params["seconds"], "paused")):
            row = phone.query_one("SELECT state FROM timers WHERE length_s=?", (length,))
            if row is None or row["state"] == want:
                continue
            label = find(obs, text=f"{fmt_duration(length)} timer", resource_id="timer_label")
            if label is None:
                return scroll_toward(phone, obs, text=f"{fmt_duration(length)} timer") or COMPLETE
            toggle = next((i for i in range(label + 1, len(obs.elements))
                           if (obs.elements[i].resource_id or "").endswith("timer_toggle")), None)
            return COMPLETE if toggle is None else Action(action_type="click", index=toggle)
        return COMPLETE


@register_task
class RecordStopwatchLaps(TaskTemplate):
    name = "clock_record_stopwatch_laps"
    apps = ("Clock",)
    complexity = 2
    optimal_steps = 8
    goal_template = "Start the stopwatch and record {laps} laps, leaving it running."
    goal_phrasings = (
        "Could you start the stopwatch, tap Lap {laps} times, and keep it running?",
        "Stopwatch: start, then {laps} laps; don't stop it.",
        "I'm timing a run - get the Clock stopwatch going and mark {laps} laps.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"laps": rng.randint(2, 4)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("UPDATE stopwatch SET state='reset', accumulated_s=0, started_at=NULL WHERE _id=1")
        phone.execute("DELETE FROM laps")

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        sw = phone.query_one("SELECT state FROM stopwatch WHERE _id=1")
        n = phone.query_one("SELECT COUNT(*) FROM laps")[0]
        return 1.0 if sw is not None and sw["state"] == "running" and n == params["laps"] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = to_tab(phone, obs, "stopwatch")
        if step is not None:
            return step
        running = phone.query_one("SELECT state FROM stopwatch WHERE _id=1")["state"] == "running"
        n = phone.query_one("SELECT COUNT(*) FROM laps")[0]
        if n > params["laps"]:  # too many: stop, reset (clears laps) and start over
            return (click(obs, desc="Pause") if running else click(obs, resource_id="reset")) or COMPLETE
        if not running:
            return click(obs, desc="Start") or COMPLETE
        return click(obs, resource_id="lap_button") or COMPLETE


# ---- 2026-11-28: more kinds of Clock task ----------------------------------------------------------
def _plain_cities() -> list[str]:
    """World-clock cities whose names are plain ASCII (answers and searches stay unambiguous)."""
    return [c for c, off, _ in CITIES if c.isascii() and off != HOME_OFFSET]


def _insert_timer(phone: Phone, length: int, state: str, remaining: int | None = None) -> int:
    """Plant a timer: running (ends ``remaining`` seconds from now), paused, or expired."""
    remaining = length if remaining is None else remaining
    end = (phone.now + timedelta(seconds=remaining)).isoformat() if state == "running" else None
    return phone.execute("INSERT INTO timers(length_s, remaining_s, state, end_time, label) VALUES(?,?,?,?,?)",
                         (length, 0 if state == "expired" else remaining, state, end, ""))


def _timer_button(phone: Phone, obs: Observation, length: int, rid: str) -> Action | None:
    """A click on the ``rid`` button of the card of the timer of ``length`` seconds (scrolling to it first);
    None when there is no such card."""
    label = find(obs, text=f"{fmt_duration(length)} timer", resource_id="timer_label")
    if label is None:
        return scroll_toward(phone, obs, text=f"{fmt_duration(length)} timer")
    i = next((j for j in range(label + 1, len(obs.elements))
              if (obs.elements[j].resource_id or "").endswith(rid)), None)
    return None if i is None else Action(action_type="click", index=i)


def _on_timer_list(phone: Phone, obs: Observation) -> Action | None:
    """Next step toward the Timer tab showing the list of timers (not the keypad); None once there."""
    step = to_tab(phone, obs, "timer")
    if step is not None:
        return step
    scr = phone.screen
    if scr is not None and scr.state.get("setup"):
        return to_tab(phone, obs, "alarms")  # leaving the tab drops the half-typed keypad
    return None


TIMER_SQL = "SELECT _id, length_s, state FROM timers ORDER BY _id"


@register_task
class ExtendTimer(TaskTemplate):
    name = "clock_extend_running_timer"
    apps = ("Clock",)
    complexity = 2
    optimal_steps = 6
    goal_template = "Give my {duration_text} timer {extra} more minutes; don't change the other timer."
    goal_phrasings = (
        "Could you add {extra} minutes to the {duration_text} timer that's running? Leave the other one alone.",
        "The {duration_text} timer needs {extra} extra minutes - add them in the Clock app (other timer unchanged).",
        "Timer {duration_text}: +{extra} minutes. Don't touch the other timer.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        mins = rng.choice((3, 5, 8, 10, 15, 20, 25, 30))
        extra = rng.randint(2, 3)
        other = rng.choice([m for m in (4, 6, 12, 18, 40, 45, 50, 60) if not mins <= m <= mins + extra])
        return {"seconds": mins * 60, "other_seconds": other * 60, "extra": extra,
                "duration_text": f"{mins}-minute", "target_first": rng.random() < 0.5}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM timers")
        order = [params["seconds"], params["other_seconds"]]
        for length in order if params["target_first"] else order[::-1]:
            _insert_timer(phone, length, "running")

    def _ids(self, phone: Phone, params: dict[str, Any]) -> tuple[int, int]:
        base = {r[1]: r[0] for r in baseline_rows(phone, self, params, TIMER_SQL)}
        return base[params["seconds"]], base[params["other_seconds"]]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        tid, oid = self._ids(phone, params)
        rows = {r[0]: (r[1], r[2]) for r in phone.query(TIMER_SQL)}
        want = {tid: (params["seconds"] + 60 * params["extra"], "running"), oid: (params["other_seconds"], "running")}
        return 1.0 if rows == want else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = _on_timer_list(phone, obs)
        if step is not None:
            return step
        tid, oid = self._ids(phone, params)
        t = phone.query_one("SELECT length_s, state FROM timers WHERE _id=?", (tid,))
        o = phone.query_one("SELECT length_s, state FROM timers WHERE _id=?", (oid,))
        if t is None or o is None or t["length_s"] > params["seconds"] + 60 * params["extra"]:
            return COMPLETE  # deleted or overshot: nothing left to fix
        if o["state"] != "running":
            return _timer_button(phone, obs, o["length_s"], "timer_toggle") or COMPLETE
        if t["state"] != "running":
            return _timer_button(phone, obs, t["length_s"], "timer_toggle") or COMPLETE
        return _timer_button(phone, obs, t["length_s"], "timer_add_time") or COMPLETE


@register_task
class DeleteFinishedTimer(TaskTemplate):
    name = "clock_delete_finished_timer"
    apps = ("Clock",)
    complexity = 2
    optimal_steps = 4
    goal_template = "One of my timers has already gone off. Delete that one and keep the other timers as they are."
    goal_phrasings = (
        "Could you remove the timer that has finished? The others should stay untouched.",
        "A timer in the Clock app says its time is up - delete it, but leave my other timers alone.",
        "Finished timer: delete. Other timers: keep.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        done, running, paused = rng.sample((2, 3, 5, 10, 15, 20, 30, 45), 3)
        order = ["expired", "running", "paused"]
        rng.shuffle(order)
        return {"expired": done * 60, "running": running * 60, "paused": paused * 60, "order": order}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM timers")
        for state in params["order"]:
            length = params[state]
            _insert_timer(phone, length, state, length // 2 if state == "paused" else None)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = [r for r in baseline_rows(phone, self, params, TIMER_SQL) if r[2] != "expired"]
        return 1.0 if [tuple(r) for r in phone.query(TIMER_SQL)] == want else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = _on_timer_list(phone, obs)
        if step is not None:
            return step
        base = baseline_rows(phone, self, params, TIMER_SQL)
        now = {r[0]: (r[1], r[2]) for r in phone.query(TIMER_SQL)}
        for tid, length, state in base:  # a detour paused or started a timer to keep: switch it back
            if state != "expired" and tid in now and now[tid][1] != state:
                return _timer_button(phone, obs, now[tid][0], "timer_toggle") or COMPLETE
        gone = next((r for r in base if r[2] == "expired"), None)
        if gone is None or gone[0] not in now:
            return COMPLETE
        return _timer_button(phone, obs, now[gone[0]][0], "timer_delete") or COMPLETE


def _says_duration(answer: str | None, seconds: int) -> bool:
    """Whether ``answer`` states ``seconds`` as "6:35" or "6 minutes 35 seconds" (only that duration)."""
    if answer is None:
        return False
    m, s = divmod(seconds, 60)
    if answer_matches(answer, fmt_duration(seconds)):
        return True
    text = answer.lower()
    mins = re.search(r"(\d+)\s*(?:minutes?|mins?|m)\b", text)
    secs = re.search(r"(\d+)\s*(?:seconds?|secs?|s)\b", text)
    got_m = int(mins.group(1)) if mins else 0
    got_s = int(secs.group(1)) if secs else 0
    return (mins is not None or secs is not None) and (got_m, got_s) == (m, s)


@register_task
class QueryTimerRemaining(TaskTemplate):
    name = "clock_query_paused_timer_left"
    apps = ("Clock",)
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "How much time is left on my paused {duration_text} timer?"
    goal_phrasings = (
        "I paused the {duration_text} timer a while ago - how much of it remains?",
        "Could you check the Clock app and tell me the time remaining on the {duration_text} timer?",
        "Paused {duration_text} timer: time left?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        mins, other = rng.sample((5, 10, 12, 15, 20, 25, 30, 45), 2)
        left = rng.randint(30, mins * 60 - 20)
        return {"seconds": mins * 60, "left": left, "other_seconds": other * 60, "other_left": other * 30 + 7,
                "duration_text": f"{mins}-minute", "target_first": rng.random() < 0.5}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM timers")
        plan = [(params["seconds"], "paused", params["left"]), (params["other_seconds"], "running",
                                                               params["other_left"])]
        for length, state, left in plan if params["target_first"] else plan[::-1]:
            _insert_timer(phone, length, state, left)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if _says_duration(answer, params["left"]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = _on_timer_list(phone, obs)
        if step is not None:
            return step
        if find(obs, text=f"{fmt_duration(params['seconds'])} timer", resource_id="timer_label") is None:
            act = scroll_toward(phone, obs, text=f"{fmt_duration(params['seconds'])} timer")
            if act is not None:
                return act
        return answer(fmt_duration(params["left"]))


@register_task
class ResetStopwatch(TaskTemplate):
    name = "clock_reset_stopwatch"
    apps = ("Clock",)
    complexity = 1
    optimal_steps = 5
    goal_template = "Stop the running stopwatch and reset it to zero, clearing its {laps} laps."
    goal_phrasings = (
        "Could you stop my stopwatch and reset it? The {laps} laps can go.",
        "I'm done timing: pause the stopwatch, then reset it so the {laps} recorded laps are cleared.",
        "Stopwatch: stop, reset, clear the {laps} laps.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        laps = rng.randint(2, 5)
        return {"laps": laps, "lap_times": [round(rng.uniform(40, 90), 2) for _ in range(laps)],
                "tail": round(rng.uniform(5, 30), 2)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM laps")
        total = 0.0
        for lap in params["lap_times"]:
            total += lap
            phone.execute("INSERT INTO laps(lap_s, total_s) VALUES(?, ?)", (lap, round(total, 2)))
        started = phone.now - timedelta(seconds=total + params["tail"])
        phone.execute("UPDATE stopwatch SET state='running', accumulated_s=0, started_at=? WHERE _id=1",
                      (started.isoformat(),))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        sw = phone.query_one("SELECT state, accumulated_s FROM stopwatch WHERE _id=1")
        n = phone.query_one("SELECT COUNT(*) FROM laps")[0]
        return 1.0 if sw is not None and sw["state"] == "reset" and sw["accumulated_s"] == 0 and n == 0 else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = to_tab(phone, obs, "stopwatch")
        if step is not None:
            return step
        running = phone.query_one("SELECT state FROM stopwatch WHERE _id=1")["state"] == "running"
        return (click(obs, desc="Pause") if running else click(obs, resource_id="reset")) or COMPLETE


@register_task
class QueryFastestLap(TaskTemplate):
    name = "clock_query_fastest_lap"
    apps = ("Clock",)
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "My stopwatch is paused after a run of {laps} laps. Which lap was the fastest? Answer with " \
                    "the lap number."
    goal_phrasings = (
        "I ran {laps} laps with the stopwatch (it's paused now). Which lap did I run quickest? Give the lap number.",
        "Looking at the {laps} laps on my stopwatch, which one had the shortest lap time? Just the number.",
        "Stopwatch, {laps} laps: number of the fastest lap?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        laps = rng.randint(4, 6)
        times = sorted(rng.sample(range(5200, 8800, 7), laps))  # hundredths of a second, all distinct
        best = rng.randrange(laps)
        order = times[1:]
        rng.shuffle(order)
        order.insert(best, times[0])
        return {"laps": laps, "lap_times": [t / 100 for t in order], "fastest": best + 1}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM laps")
        total = 0.0
        for lap in params["lap_times"]:
            total = round(total + lap, 2)
            phone.execute("INSERT INTO laps(lap_s, total_s) VALUES(?, ?)", (lap, total))
        phone.execute("UPDATE stopwatch SET state='paused', accumulated_s=?, started_at=NULL WHERE _id=1",
                      (round(total + 11.37, 2),))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if answer is None:
            return 0.0
        n = str(params["fastest"])
        words = ("first", "second", "third", "fourth", "fifth", "sixth")
        ok = re.fullmatch(r"\s*(?:lap\s*)?#?\s*" + n + r"\s*\.?\s*", answer.lower()) is not None or \
            answer_matches(answer, f"lap {n}") or answer_matches(answer, f"{words[params['fastest'] - 1]} lap")
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_tab(phone, obs, "stopwatch")
        if step is not None:
            return step
        want = f"Lap {params['fastest']}"
        if find(obs, text=want) is None:
            act = scroll_toward(phone, obs, text=want)
            if act is not None:
                return act
        return answer(want)


ALARM_SQL = "SELECT _id, hour, minutes, days_of_week, enabled, vibrate, label FROM alarm_templates ORDER BY _id"


def _add_alarm_step(phone: Phone, obs: Observation, base: list[tuple], h: int, m: int, days: int | None,
                    label: str) -> Action:
    """Oracle step of a task that adds one alarm (h:m, ``days`` or any, ``label``) and changes nothing else.

    Recovers from detours: switches flipped by mistake go back, wrong or extra new alarms are deleted.
    """
    added, _, changed = diff_rows(base, [tuple(r) for r in phone.query(ALARM_SQL)])

    def right(r: tuple) -> bool:
        return (r[1], r[2], r[4]) == (h, m, 1) and (days is None or r[3] == days) and \
            (r[6] or "").strip().lower() == label.lower()

    good = [r for r in added if right(r)]
    bad = {r[0] for r in added if not right(r)} | {r[0] for r in good[1:]}
    flipped = [new for old, new in changed if old[:4] + old[5:] == new[:4] + new[5:]]
    dlg = phone.dialog
    if dlg is not None and dlg.data.get("on_ok") == "delete_alarm":
        return click(obs, resource_id="android:id/button1") if dlg.data.get("args", {}).get("alarm_id") in bad \
            else BACK
    if not added and not flipped and _on_editor_of(phone, None):
        return edit_draft(phone, obs, h, m, days, label)
    if flipped:
        a = phone.query_one("SELECT * FROM alarm_templates WHERE _id=?", (flipped[0][0],))
        return to_tab(phone, obs, "alarms") or click_or_scroll(
            phone, obs, desc=f"{phone.format_time(a['hour'], a['minutes'])} alarm", class_contains="Switch")
    if bad:
        target = min(bad)
        if _on_editor_of(phone, target) and dlg is None:
            return click(obs, resource_id="delete") or BACK
        return open_alarm_editor(phone, obs, phone.query_one("SELECT * FROM alarm_templates WHERE _id=?", (target,)))
    if not good:
        return to_tab(phone, obs, "alarms") or click(obs, desc="Add alarm") or COMPLETE
    return COMPLETE  # done, or an alarm was deleted or edited: nothing this task can put back


def _fires_at(phone: Phone, a: Any) -> Any:
    return next_fire(phone.now, a["hour"], a["minutes"], a["days_of_week"])


@register_task
class QueryNextAlarm(AlarmTemplate):
    name = "clock_query_next_alarm"
    kind = "query"
    complexity = 3
    optimal_steps = 3
    goal_template = "Which of my alarms will go off next? Answer with its time."
    goal_phrasings = (
        "When is the next alarm that will actually ring? Tell me its time.",
        "Could you check my alarms and tell me the time of the next one that's going to ring?",
        "Next alarm to ring - what time?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        # minutes after the phone's clock (rounded up to 5): a switched-off alarm soonest, then one that
        # repeats on other days of the week, then the answer
        off = rng.choice((10, 15, 20))
        other_days = rng.choice((25, 30, 40, 45))
        target = rng.choice((50, 55, 65, 80, 95, 110, 125, 140))
        labels = rng.sample(LABELS, 3)
        return {"off": off, "other_days": other_days, "target": target, "labels": labels,
                "other_mask": rng.choice((WEEKEND_MASK, 0b0010101, 0b0100000, 0b1000000))}

    def _at(self, phone: Phone, minutes: int) -> tuple[int, int]:
        base = phone.now.replace(second=0, microsecond=0)
        base += timedelta(minutes=(5 - base.minute % 5) % 5 + minutes)
        return base.hour, base.minute

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        t = insert_alarm(phone, *self._at(phone, params["target"]), label=params["labels"][0], enabled=1)
        insert_alarm(phone, *self._at(phone, params["off"]), label=params["labels"][1], enabled=0)
        today = 1 << phone.now.weekday()
        insert_alarm(phone, *self._at(phone, params["other_days"]), label=params["labels"][2], enabled=1,
                     days=params["other_mask"] & ~today)
        target = phone.query_one("SELECT * FROM alarm_templates WHERE _id=?", (t,))
        for a in alarms(phone, enabled=1):  # the planted alarm is the next one: earlier ones are switched off
            if a["_id"] != t and _fires_at(phone, a) <= _fires_at(phone, target):
                phone.execute("UPDATE alarm_templates SET enabled=0 WHERE _id=?", (a["_id"],))

    def expected(self, phone: Phone) -> Any:
        on = alarms(phone, enabled=1)
        return min(on, key=lambda a: _fires_at(phone, a)) if on else None

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        a = self.expected(phone)
        if a is None:
            return 0.0
        return 1.0 if read_time(answer, a["hour"]) == (a["hour"], a["minutes"]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_tab(phone, obs, "alarms")
        if step is not None:
            return step
        a = self.expected(phone)
        if a is None:
            return answer("none")
        if find(obs, desc=alarm_desc(phone, a)) is None:
            act = scroll_toward(phone, obs, desc=alarm_desc(phone, a))
            if act is not None:
                return act
        return answer(say_time(a["hour"], a["minutes"]))


@register_task
class DisableWeekdayAlarms(AlarmTemplate):
    name = "clock_switch_off_weekday_alarms"
    complexity = 3
    optimal_steps = 6
    goal_template = ("I'm on holiday this week. Switch off every alarm that repeats on weekdays (Monday to "
                     "Friday) without deleting it, and leave my other alarms as they are.")
    goal_phrasings = (
        "Vacation mode: turn off all my Monday-to-Friday alarms (keep them, just off); don't change any other alarm.",
        "Could you disable each alarm set to repeat on weekdays? Keep them in the list and leave the rest alone.",
        "Weekday alarms (Mon-Fri): all off, none deleted. Other alarms: unchanged.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        times = rng.sample(TIMES, 4)
        return {"weekday": [list(t) for t in times[:2]], "decoys": [list(t) for t in times[2:]],
                "decoy_masks": [EVERY_DAY, rng.choice((0b0010101, 0b0001010, 0b0011110))],
                "labels": rng.sample(NEW_LABELS, 4)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for (h, m), label in zip(params["weekday"], params["labels"]):
            insert_alarm(phone, h, m, label=label, days=WEEKDAYS_MASK, enabled=1)
        for (h, m), mask, label in zip(params["decoys"], params["decoy_masks"], params["labels"][2:]):
            insert_alarm(phone, h, m, label=label, days=mask, enabled=1)

    @staticmethod
    def _want(row: tuple) -> tuple:
        return (*row[:4], 0, *row[5:]) if row[3] == WEEKDAYS_MASK else row

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = [self._want(r) for r in baseline_rows(phone, self, params, ALARM_SQL)]
        return 1.0 if [tuple(r) for r in phone.query(ALARM_SQL)] == want else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = to_tab(phone, obs, "alarms")
        if step is not None:
            return step
        want = {r[0]: self._want(r) for r in baseline_rows(phone, self, params, ALARM_SQL)}
        order = sorted(alarms(phone), key=lambda a: (a["hour"], a["minutes"], a["_id"]))
        for a in order:  # the switch is all this task uses: flip each alarm whose on/off is wrong
            w = want.get(a["_id"])
            if w is not None and a["enabled"] != w[4]:
                return click_or_scroll(phone, obs, desc=f"{phone.format_time(a['hour'], a['minutes'])} alarm",
                                       class_contains="Switch")
        return COMPLETE  # an alarm was deleted or edited: nothing the switches can fix


@register_task
class CopyAlarm(AlarmTemplate):
    name = "clock_copy_alarm_settings"
    complexity = 3
    optimal_steps = 11
    goal_template = ("Add a new alarm at {new_time} with the same label and the same repeat days as my {time} "
                     "alarm. Keep the {time} alarm as it is.")
    goal_phrasings = (
        ("Could you create a {new_time} alarm that copies the label and repeat days of the {time} alarm? Don't "
         "change the {time} one."),
        ("I want a second alarm like the one at {time} - same label, same days - but ringing at {new_time}. "
         "Leave the {time} alarm alone."),
        "New alarm {new_time}: label and repeat days copied from the {time} alarm (which stays unchanged).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        h, m = rng.choice(TIMES)
        nh, nm = rng.choice([t for t in TIMES if t not in ((h, m), ((h + 12) % 24, m))])
        label, decoy = rng.sample(LABELS, 2)
        masks = [mask for _, mask in DAY_SETS]
        mask, decoy_mask = rng.sample(masks, 2)
        return {"hour": h, "minute": m, "time": say_time(h, m), "new_hour": nh, "new_minute": nm,
                "new_time": say_time(nh, nm), "label": label, "days": mask, "decoy_label": decoy,
                "decoy_days": decoy_mask}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM alarm_templates WHERE hour=? AND minutes=?", (params["new_hour"],
                                                                                 params["new_minute"]))
        # the decoy rings at the same digits in the other half of the day
        insert_alarm(phone, (params["hour"] + 12) % 24, params["minute"], label=params["decoy_label"],
                     days=params["decoy_days"], enabled=1)
        insert_alarm(phone, params["hour"], params["minute"], label=params["label"], days=params["days"], enabled=1)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = diff_rows(baseline_rows(phone, self, params, ALARM_SQL),
                                            [tuple(r) for r in phone.query(ALARM_SQL)])
        if removed or changed or len(added) != 1:
            return 0.0
        _, h, m, days, enabled, _, label = added[0]
        ok = (h, m, days, enabled) == (params["new_hour"], params["new_minute"], params["days"], 1) and \
            (label or "").strip().lower() == params["label"].lower()
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = _read_rows(phone, obs, alarms(phone, hour=params["hour"], minutes=params["minute"])[:1])
        if step is not None:
            return step
        return _add_alarm_step(phone, obs, baseline_rows(phone, self, params, ALARM_SQL), params["new_hour"],
                               params["new_minute"], params["days"], params["label"])


@register_task
class QuerySilentAlarm(AlarmTemplate):
    name = "clock_query_alarm_without_vibration"
    kind = "query"
    complexity = 3
    optimal_steps = 4
    goal_template = "Exactly one of my alarms is set not to vibrate. Which one is it? Answer with its label."
    goal_phrasings = (
        "One alarm has vibration switched off - could you find it and tell me its label?",
        "Which of my alarms doesn't vibrate? Give me the alarm's label.",
        "Alarm with vibrate off: its label?",
    )
    KEEP: ClassVar[int] = 3  # seeded alarms kept besides the planted ones, so the search stays short

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        times = rng.sample(TIMES, 3)
        return {"times": [list(t) for t in times], "labels": rng.sample(NEW_LABELS, 3)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        ids = [r[0] for r in phone.query("SELECT _id FROM alarm_templates ORDER BY _id")]
        for aid in ids[self.KEEP:]:
            phone.execute("DELETE FROM alarm_templates WHERE _id=?", (aid,))
        for (h, m), label in zip(params["times"], params["labels"]):
            insert_alarm(phone, h, m, label=label, enabled=1)
        phone.execute("UPDATE alarm_templates SET vibrate=1")
        phone.execute("UPDATE alarm_templates SET vibrate=0 WHERE label=?", (params["labels"][0],))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        others = [a["label"] for a in alarms(phone) if a["label"] and a["label"] != params["labels"][0]]
        ok = answer_matches(answer, params["labels"][0]) and not any(answer_matches(answer, o) for o in others)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        hits = labelled(phone, params["labels"][0])
        if not hits or _on_editor_of(phone, hits[0]["_id"]):
            return answer(params["labels"][0])
        return open_alarm_editor(phone, obs, hits[0])


@register_task
class AlarmForCityTime(AlarmTemplate):
    name = "clock_alarm_for_city_time"
    complexity = 3
    optimal_steps = 10
    goal_template = ("I have a call at {city_time} {city} time. Set an alarm labelled \"{label}\" for that moment "
                     "in my own time zone (the world clock shows {city}).")
    goal_phrasings = (
        ("My call is at {city_time} in {city}. Could you add an alarm called \"{label}\" that rings then, in "
         "my local time? {city} is on my world clock."),
        "Use the world clock to convert {city_time} {city} time to my time, and set a \"{label}\" alarm for it.",
        "Alarm \"{label}\" at the local time matching {city_time} in {city} (see world clock).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        city = rng.choice(_plain_cities())
        diff = CITY_INFO[city][0] - HOME_OFFSET
        while True:
            ch, cm = rng.randint(0, 23), rng.choice((0, 15, 30, 45))
            total = round((ch * 60 + cm) - diff * 60) % 1440
            h, m = divmod(total, 60)
            if 5 <= h <= 22:  # a time a person would set an alarm for
                break
        return {"city": city, "city_time": say_time(ch, cm), "hour": h, "minute": m,
                "label": rng.choice(NEW_LABELS)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        _add_city(phone, params["city"])
        phone.execute("DELETE FROM alarm_templates WHERE (hour=? AND minutes=?) OR lower(label)=?",
                      (params["hour"], params["minute"], params["label"].lower()))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = diff_rows(baseline_rows(phone, self, params, ALARM_SQL),
                                            [tuple(r) for r in phone.query(ALARM_SQL)])
        if removed or changed or len(added) != 1:
            return 0.0
        _, h, m, _, enabled, _, label = added[0]
        ok = (h, m, enabled) == (params["hour"], params["minute"], 1) and \
            (label or "").strip().lower() == params["label"].lower()
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return _add_alarm_step(phone, obs, baseline_rows(phone, self, params, ALARM_SQL), params["hour"],
                               params["minute"], None, params["label"])


# ---- world clock, again ----------------------------------------------------------------------------
WORLD_SQL = "SELECT city FROM world_cities ORDER BY city"


@register_task
class ReplaceWorldCity(TaskTemplate):
    name = "clock_replace_world_city"
    apps = ("Clock",)
    complexity = 3
    optimal_steps = 8
    goal_template = "On my world clock, replace {old_city} with {new_city}."
    goal_phrasings = (
        "I moved my trip from {old_city} to {new_city}: swap {old_city} for {new_city} on the world clock.",
        "Could you take {old_city} off the world clock and put {new_city} there instead?",
        "World clock: {old_city} out, {new_city} in.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        old, new = rng.sample(_plain_cities(), 2)
        return {"old_city": old, "new_city": new}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM world_cities WHERE city=?", (params["new_city"],))
        _add_city(phone, params["old_city"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = sorted({r[0] for r in baseline_rows(phone, self, params, WORLD_SQL)} - {params["old_city"]}
                      | {params["new_city"]})
        return 1.0 if [r[0] for r in phone.query(WORLD_SQL)] == want else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        keep = {r[0] for r in baseline_rows(phone, self, params, WORLD_SQL)} - {params["old_city"]}
        have = {r["city"]: r["_id"] for r in phone.query("SELECT _id, city FROM world_cities")}
        extra = sorted(c for c in have if c not in keep and c != params["new_city"])
        scr = phone.screen
        if extra:  # the old city (or a wrong one a detour added) goes first
            city = params["old_city"] if params["old_city"] in extra else extra[0]
            dlg = phone.dialog
            if dlg is not None and dlg.data.get("on_ok") == "remove_city":
                if dlg.data.get("args", {}).get("city_id") == have[city]:
                    return click(obs, resource_id="android:id/button1") or BACK
                return BACK
            step, i = _to_city_row(phone, obs, city)
            return step or Action(action_type="long_press", index=i)
        if params["new_city"] in have:
            return COMPLETE  # a city to keep was removed: nothing to put back from here
        if phone.foreground == APP and scr is not None and scr.name == "city_search":
            query = params["new_city"][:4]
            if scr.fields.get("query", "") != query:
                return type_into(obs, query, resource_id="search_src_text") or BACK
            # the result row, not the search box (which holds "Rome" when the city is Rome)
            return click_or_scroll(phone, obs, text=params["new_city"], resource_id="city_name")
        return to_tab(phone, obs, "clock") or click(obs, desc="Add city") or COMPLETE


@register_task
class QueryFarthestCity(TaskTemplate):
    name = "clock_query_farthest_city"
    apps = ("Clock",)
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = ("Of the cities on my world clock, which one has the biggest time difference from my own "
                     "time? Answer with the city name.")
    goal_phrasings = (
        "Which world clock city is the most hours away from me (ahead or behind)? Just the city.",
        "Could you look at my world clock and tell me the city whose time differs most from mine?",
        "World clock: city with the largest time difference from here?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        while True:
            cities = rng.sample(_plain_cities(), rng.randint(3, 4))
            gaps = sorted((abs(CITY_INFO[c][0] - HOME_OFFSET), c) for c in cities)
            if gaps[-1][0] > gaps[-2][0]:
                return {"cities": sorted(cities), "farthest": gaps[-1][1]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM world_cities")
        for c in params["cities"]:
            _add_city(phone, c)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        others = [c for c in params["cities"] if c != params["farthest"]]
        ok = answer_matches(answer, params["farthest"]) and not any(answer_matches(answer, c) for c in others)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_tab(phone, obs, "clock")
        if step is not None:
            return step
        last = params["cities"][-1]
        if find(obs, text=last, resource_id="city_item") is None:
            act = scroll_toward(phone, obs, text=last, resource_id="city_item")
            if act is not None:
                return act
        return answer(params["farthest"])


# ---- 2026-11-28 (round 2): yet more kinds of Clock task ----------------------------------------------
def _city_step(phone: Phone, obs: Observation, city: str, dialog_ok: bool) -> Action:
    """Next step of removing ``city`` from the world clock (long-press its row, confirm)."""
    dlg = phone.dialog
    if dlg is not None and dlg.data.get("on_ok") == "remove_city":
        row = phone.query_one("SELECT _id FROM world_cities WHERE city=?", (city,))
        if dialog_ok and row is not None and dlg.data.get("args", {}).get("city_id") == row["_id"]:
            return click(obs, resource_id="android:id/button1") or BACK
        return BACK
    step, i = _to_city_row(phone, obs, city)
    return step or Action(action_type="long_press", index=i)


@register_task
class AddCountryCities(TaskTemplate):
    name = "clock_add_country_cities"
    apps = ("Clock",)
    complexity = 3
    optimal_steps = 12
    goal_template = "Add every city the world clock's city search offers in {country_text} to my world clock."
    goal_phrasings = (
        "I work with offices all over {country_text}: put each of its cities from the city search on my world clock.",
        "Could you add all the cities listed for {country_text} to the Clock app's world clock?",
        "World clock: add all cities in {country_text} (any already there can stay).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        country = rng.choice(("United States", "United States", "Canada"))
        cities = sorted(c for c, (_, k) in CITY_INFO.items() if k == country)
        present = rng.choice([None, *cities]) if country == "United States" else rng.choice([None, None, cities[0]])
        text = "the United States" if country == "United States" else country
        return {"country": country, "country_text": text, "cities": cities, "present": present}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for c in params["cities"]:
            phone.execute("DELETE FROM world_cities WHERE city=?", (c,))
        if params["present"]:
            _add_city(phone, params["present"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = sorted({r[0] for r in baseline_rows(phone, self, params, WORLD_SQL)} | set(params["cities"]))
        return 1.0 if [r[0] for r in phone.query(WORLD_SQL)] == want else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        keep = {r[0] for r in baseline_rows(phone, self, params, WORLD_SQL)} | set(params["cities"])
        have = {r[0] for r in phone.query(WORLD_SQL)}
        extra = sorted(have - keep)
        scr = phone.screen
        if extra:  # a detour added a city from elsewhere: take it off again
            if phone.foreground == APP and scr is not None and scr.name == "city_search":
                return BACK
            return _city_step(phone, obs, extra[0], True)
        missing = [c for c in params["cities"] if c not in have]
        if not missing:
            return COMPLETE  # a city that was there was removed: nothing to put back from here
        if phone.foreground == APP and scr is not None and scr.name == "city_search" and phone.dialog is None:
            if scr.fields.get("query", "") != params["country"]:
                return type_into(obs, params["country"], resource_id="search_src_text") or BACK
            return click_or_scroll(phone, obs, text=missing[0], resource_id="city_name")
        return to_tab(phone, obs, "clock") or click(obs, desc="Add city") or COMPLETE


INT_CITIES = [c for c in CITY_INFO if c.isascii() and float(CITY_INFO[c][0]).is_integer()]


@register_task
class QueryHoursBetweenCities(TaskTemplate):
    name = "clock_query_hours_between_cities"
    apps = ("Clock",)
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = ("How many hours ahead of {behind} is {ahead}? Both are on my world clock. Answer with a "
                     "number of hours.")
    goal_phrasings = (
        ("Using my world clock, work out the time difference between {ahead} and {behind}: how many hours is "
         "{ahead} ahead?"),
        "{ahead} vs {behind} on the world clock - how many hours ahead is {ahead}?",
        "Could you tell me by how many hours {ahead}'s clock runs ahead of {behind}'s? Check the Clock app.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        while True:
            a, b = rng.sample(INT_CITIES, 2)
            gap = CITY_INFO[a][0] - CITY_INFO[b][0]
            if gap != 0 and HOME_OFFSET not in (CITY_INFO[a][0], CITY_INFO[b][0]):
                ahead, behind = (a, b) if gap > 0 else (b, a)
                return {"ahead": ahead, "behind": behind, "hours": int(abs(gap))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        _add_city(phone, params["ahead"])
        _add_city(phone, params["behind"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        nums = re.findall(r"\d+(?:\.\d+)?", answer or "")
        words = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                 "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
                 "twenty")
        n = params["hours"]
        ok = (len(nums) == 1 and float(nums[0]) == n) or (not nums and answer_matches(answer, words[n]))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_tab(phone, obs, "clock")
        if step is not None:
            return step
        last = max(params["ahead"], params["behind"])
        if find(obs, text=last, resource_id="city_item") is None:
            act = scroll_toward(phone, obs, text=last, resource_id="city_item")
            if act is not None:
                return act
        return answer(f"{params['hours']} hours")


def _switch_back(phone: Phone, obs: Observation, base: list[tuple]) -> Action | None:
    """Next step of switching back an alarm a detour switched on or off (None when none was)."""
    was = {r[0]: r[4] for r in base}
    for a in sorted(alarms(phone), key=lambda a: (a["hour"], a["minutes"], a["_id"])):
        if a["_id"] in was and a["enabled"] != was[a["_id"]]:
            return to_tab(phone, obs, "alarms") or click_or_scroll(
                phone, obs, desc=f"{phone.format_time(a['hour'], a['minutes'])} alarm", class_contains="Switch")
    return None


@register_task
class RemoveDuplicateAlarm(AlarmTemplate):
    name = "clock_remove_duplicate_alarm"
    complexity = 2
    optimal_steps = 5
    goal_template = ("I accidentally set the {time} \"{label}\" alarm twice. Delete one of the two copies so that "
                     "exactly one is left.")
    goal_phrasings = (
        "There are two identical {time} alarms called \"{label}\" - please remove the duplicate and keep one.",
        "Could you get rid of the extra copy of my {time} \"{label}\" alarm? One of them should stay.",
        "Duplicate alarm: {time} \"{label}\". Delete one copy, keep the other.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = _pair(rng)
        p["days"] = rng.choice([0, *(mask for _, mask in DAY_SETS)])
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        _with_decoy(phone, params, enabled=1)
        phone.execute("UPDATE alarm_templates SET days_of_week=? WHERE label=?", (params["days"], params["label"]))
        phone.execute("INSERT INTO alarm_templates(hour, minutes, days_of_week, enabled, vibrate, label, ringtone)"
                      " VALUES(?,?,?,?,?,?,?)", (params["hour"], params["minute"], params["days"], 1, 1,
                                                 params["label"], "Bright Morning"))

    def _pair_ids(self, phone: Phone, params: dict[str, Any]) -> set[int]:
        return {r[0] for r in baseline_rows(phone, self, params, ALARM_SQL) if r[6] == params["label"]}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = diff_rows(baseline_rows(phone, self, params, ALARM_SQL),
                                            [tuple(r) for r in phone.query(ALARM_SQL)])
        ok = not added and not changed and len(removed) == 1 and removed[0][0] in self._pair_ids(phone, params)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        pair = self._pair_ids(phone, params)
        left = sorted(a["_id"] for a in alarms(phone) if a["_id"] in pair)
        base = baseline_rows(phone, self, params, ALARM_SQL)
        fix = _switch_back(phone, obs, [r for r in base if r[0] not in pair])
        if fix is not None:
            return fix
        if len(left) < 2:
            return COMPLETE  # both gone or something else changed: nothing this task can put back
        flipped = [a["_id"] for a in alarms(phone) if a["_id"] in pair and not a["enabled"]]
        if flipped:  # a detour switched a copy off: back on (its twin's switch looks the same: count them)
            step = to_tab(phone, obs, "alarms")
            if step is not None:
                return step
            desc = f"{phone.format_time(params['hour'], params['minute'])} alarm"
            switches = find_all(obs, desc=desc, class_contains="Switch")
            pos = left.index(flipped[0])
            if len(switches) > pos:
                return Action(action_type="click", index=switches[pos])
            return scroll_toward(phone, obs, desc=desc, class_contains="Switch") or \
                Action(action_type="scroll", direction="down")
        dlg = phone.dialog
        if dlg is not None and dlg.data.get("on_ok") == "delete_alarm":
            return click(obs, resource_id="android:id/button1") if dlg.data.get("args", {}).get("alarm_id") in pair \
                else BACK
        scr = phone.screen
        if phone.foreground == APP and scr is not None and scr.name == "edit_alarm":
            if scr.args.get("alarm_id") in pair and dlg is None:
                return click(obs, resource_id="delete") or BACK
            return BACK
        return open_alarm_editor(phone, obs, phone.query_one("SELECT * FROM alarm_templates WHERE _id=?", (left[0],)))


def _timer_keypad(phone: Phone, obs: Observation, seconds: int) -> Action:
    """On the timer keypad: type ``seconds`` as minutes and seconds, then Start."""
    scr = phone.screen
    assert scr is not None
    m, s = divmod(seconds, 60)
    want = f"{m:02d}{s:02d}".lstrip("0")
    have = scr.state.get("digits", "")
    if have == want:
        return click(obs, desc="Start") or COMPLETE
    if not want.startswith(have):
        return click(obs, desc="Delete") or COMPLETE
    return click(obs, resource_id=f"timer_setup_digit_{want[len(have)]}") or COMPLETE


@register_task
class AddSecondTimer(TaskTemplate):
    name = "clock_add_second_timer"
    apps = ("Clock",)
    complexity = 2
    optimal_steps = 9
    goal_template = "Keep my {duration_text} timer running and start a second timer for {new_text}."
    goal_phrasings = (
        "Could you add another timer of {new_text}? The {duration_text} one that's counting down must keep going.",
        "I need a {new_text} timer as well - start it alongside the running {duration_text} timer.",
        "Second timer: {new_text}, started now. Leave the {duration_text} timer alone.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        mins, new = rng.sample((3, 4, 5, 8, 10, 12, 15, 20, 25, 30, 40, 45), 2)
        return {"seconds": mins * 60, "duration_text": f"{mins}-minute", "new_seconds": new * 60,
                "new_text": f"{new} minutes"}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM timers")
        _insert_timer(phone, params["seconds"], "running", params["seconds"] - 95)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        base = baseline_rows(phone, self, params, TIMER_SQL)
        added, removed, changed = diff_rows(base, [tuple(r) for r in phone.query(TIMER_SQL)])
        ok = not removed and not changed and len(added) == 1 and added[0][1:] == (params["new_seconds"], "running")
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = to_tab(phone, obs, "timer")
        if step is not None:
            return step
        scr = phone.screen
        assert scr is not None
        if scr.state.get("setup"):
            return _timer_keypad(phone, obs, params["new_seconds"])
        base = baseline_rows(phone, self, params, TIMER_SQL)
        added, removed, changed = diff_rows(base, [tuple(r) for r in phone.query(TIMER_SQL)])
        if removed:
            return COMPLETE  # the first timer was deleted: nothing to put back
        if changed:  # a detour paused the first timer: start it again
            return _timer_button(phone, obs, changed[0][1][1], "timer_toggle") or COMPLETE
        wrong = [r for r in added if r[1:] != (params["new_seconds"], "running")]
        if wrong or len(added) > 1:
            r = wrong[0] if wrong else added[-1]
            return _timer_button(phone, obs, r[1], "timer_delete") or COMPLETE
        return click(obs, resource_id="add_timer") or scroll_toward(phone, obs, resource_id="add_timer") or COMPLETE


@register_task
class FinishStopwatchRun(TaskTemplate):
    name = "clock_finish_stopwatch_run"
    apps = ("Clock",)
    complexity = 2
    optimal_steps = 5
    goal_template = ("I'm on my last lap: record one more lap on the running stopwatch, then stop it. Don't reset "
                     "it - I want to keep the {laps} laps already there plus the new one.")
    goal_phrasings = (
        "Mark a final lap on my stopwatch and pause it right after; keep all laps (there are {laps} now).",
        "Stopwatch: one more lap, then stop. No reset - the {laps} earlier laps stay.",
        "Could you log the last lap and stop the stopwatch? It has {laps} laps so far; don't clear them.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        laps = rng.randint(2, 5)
        return {"laps": laps, "lap_times": [round(rng.uniform(40, 90), 2) for _ in range(laps)],
                "tail": round(rng.uniform(20, 60), 2)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        ResetStopwatch().setup(phone, params)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        sw = phone.query_one("SELECT state, accumulated_s FROM stopwatch WHERE _id=1")
        laps = phone.query("SELECT lap_s FROM laps ORDER BY _id")
        ok = sw is not None and sw["state"] == "paused" and len(laps) == params["laps"] + 1 and \
            [round(r[0], 2) for r in laps[:-1]] == params["lap_times"]
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = to_tab(phone, obs, "stopwatch")
        if step is not None:
            return step
        state = phone.query_one("SELECT state FROM stopwatch WHERE _id=1")["state"]
        n = phone.query_one("SELECT COUNT(*) FROM laps")[0]
        if state == "reset" or n > params["laps"] + 1:
            return COMPLETE  # the laps are gone or too many: nothing to put back
        if state != "running":
            return click(obs, desc="Start") or COMPLETE
        if n <= params["laps"]:
            return click(obs, resource_id="lap_button") or COMPLETE
        return click(obs, desc="Pause") or COMPLETE


WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


@register_task
class QueryAlarmOnWeekday(AlarmTemplate):
    name = "clock_query_alarm_on_weekday"
    kind = "query"
    complexity = 3
    optimal_steps = 3
    goal_template = "Which of my alarms will ring on {day}? Only one that is switched on does. Answer with its label."
    goal_phrasings = (
        "Exactly one active alarm repeats on {day}. What is its label?",
        "Could you check my alarms: which switched-on alarm goes off on {day}s? Tell me its label.",
        "{day} alarm (the one that's on) - its label?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        # never today (Tuesday) or tomorrow: one-shot alarms ring on those days
        day = rng.choice((0, 3, 4, 5, 6))
        masks = [m for m in (WEEKDAYS_MASK, WEEKEND_MASK, 0b0010101, 0b0001010, 0b1010100, 0b0011000, 0b1000001)]
        target = rng.choice([m for m in masks if m >> day & 1])
        off = rng.choice([m for m in masks if m >> day & 1 and m != target] + [EVERY_DAY])
        other = rng.choice([m for m in masks if not m >> day & 1])
        (h1, m1), (h2, m2), (h3, m3) = rng.sample(TIMES, 3)
        return {"day": WEEKDAY_NAMES[day], "bit": day, "labels": rng.sample(NEW_LABELS, 3),
                "alarms": [[h1, m1, target, 1], [h2, m2, off, 0], [h3, m3, other, 1]]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("UPDATE alarm_templates SET days_of_week = days_of_week & ?", (EVERY_DAY & ~(1 << params["bit"]),))
        for (h, m, mask, on), label in zip(params["alarms"], params["labels"]):
            insert_alarm(phone, h, m, label=label, days=mask, enabled=on)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = params["labels"][0]
        others = [a["label"] for a in alarms(phone) if a["label"] and a["label"].lower() != want.lower()]
        ok = answer_matches(answer, want) and not any(answer_matches(answer, o) for o in others)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_tab(phone, obs, "alarms")
        if step is not None:
            return step
        hits = labelled(phone, params["labels"][0])
        if hits and find(obs, desc=alarm_desc(phone, hits[0])) is None:
            act = scroll_toward(phone, obs, desc=alarm_desc(phone, hits[0]))
            if act is not None:
                return act
        return answer(params["labels"][0])


@register_task
class ShiftAlarm(AlarmTemplate):
    name = "clock_shift_alarm_by_minutes"
    complexity = 3
    optimal_steps = 8
    goal_template = "Move my \"{label}\" alarm {delta} minutes {direction} than it is now."
    goal_phrasings = (
        "Could you set the \"{label}\" alarm to ring {delta} minutes {direction}? Keep everything else about it.",
        "The \"{label}\" alarm should go off {delta} minutes {direction} than it's set for now.",
        "Alarm \"{label}\": shift it {delta} min {direction}.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = _pair(rng)
        delta = rng.choice((10, 15, 20, 25, 30, 45, 60, 90))
        direction = rng.choice(("earlier", "later"))
        total = (p["hour"] * 60 + p["minute"] + (delta if direction == "later" else -delta)) % 1440
        nh, nm = divmod(total, 60)
        if (nh, nm) == (p["decoy_hour"], p["decoy_minute"]):
            p["decoy_minute"] += 2  # never a multiple of 5, so clear of the alarm and its new time
        p.update(delta=delta, direction=direction, new_hour=nh, new_minute=nm,
                 days=rng.choice([0, *(mask for _, mask in DAY_SETS)]))
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM alarm_templates WHERE hour=? AND minutes=?", (params["new_hour"],
                                                                                 params["new_minute"]))
        _with_decoy(phone, params, enabled=1)
        phone.execute("UPDATE alarm_templates SET days_of_week=? WHERE label=?", (params["days"], params["label"]))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = diff_rows(baseline_rows(phone, self, params, ALARM_SQL),
                                            [tuple(r) for r in phone.query(ALARM_SQL)])
        if added or removed or len(changed) != 1:
            return 0.0
        old, new = changed[0]
        ok = old[6] == params["label"] and new[1:3] == (params["new_hour"], params["new_minute"]) and \
            new[3:] == old[3:]
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        hits = labelled(phone, params["label"])
        if not hits:
            return COMPLETE
        fix = _switch_back(phone, obs, baseline_rows(phone, self, params, ALARM_SQL))
        if fix is not None:
            return fix
        if _on_editor_of(phone, hits[0]["_id"]):
            return edit_draft(phone, obs, params["new_hour"], params["new_minute"], params["days"], params["label"])
        return open_alarm_editor(phone, obs, hits[0])


@register_task
class SwapAlarmLabels(AlarmTemplate):
    name = "clock_swap_alarm_labels"
    complexity = 3
    optimal_steps = 8
    goal_template = "I mixed up two labels: swap the labels of my {time} and {other_time} alarms."
    goal_phrasings = (
        "The {time} alarm should carry the {other_time} alarm's label and vice versa - could you swap them?",
        "Exchange the labels of the {time} alarm and the {other_time} alarm.",
        "Alarms {time} and {other_time}: swap labels, change nothing else.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (h, m), (oh, om) = rng.sample(TIMES, 2)
        a, b = rng.sample(NEW_LABELS, 2)
        return {"hour": h, "minute": m, "time": say_time(h, m), "other_hour": oh, "other_minute": om,
                "other_time": say_time(oh, om), "label": a, "other_label": b}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        insert_alarm(phone, params["hour"], params["minute"], label=params["label"], enabled=1)
        insert_alarm(phone, params["other_hour"], params["other_minute"], label=params["other_label"], enabled=1,
                     days=WEEKDAYS_MASK)

    def _want(self, params: dict[str, Any]) -> dict[tuple[int, int], str]:
        return {(params["hour"], params["minute"]): params["other_label"],
                (params["other_hour"], params["other_minute"]): params["label"]}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = self._want(params)
        base = baseline_rows(phone, self, params, ALARM_SQL)
        expect = [(*r[:6], want[(r[1], r[2])]) if (r[1], r[2]) in want else r for r in base]
        now = [(*r[:6], (r[6] or "").strip()) for r in phone.query(ALARM_SQL)]
        return 1.0 if now == expect else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        # both rows shown before the first edit: each label typed is the other alarm's
        pair = [a for h, m in self._want(params) for a in alarms(phone, hour=h, minutes=m)[:1]]
        step = _read_rows(phone, obs, pair)
        if step is not None:
            return step
        fix = _switch_back(phone, obs, baseline_rows(phone, self, params, ALARM_SQL))
        if fix is not None:
            return fix
        for (h, m), label in self._want(params).items():
            hits = alarms(phone, hour=h, minutes=m)
            if not hits:
                return COMPLETE
            a = hits[0]
            if _on_editor_of(phone, a["_id"]):
                return edit_draft(phone, obs, h, m, a["days_of_week"], label)
        for (h, m), label in self._want(params).items():
            a = alarms(phone, hour=h, minutes=m)[0]
            if (a["label"] or "").strip() != label or not a["enabled"]:
                return open_alarm_editor(phone, obs, a)
        return COMPLETE


@register_task
class KeepOnlyCity(TaskTemplate):
    name = "clock_keep_only_world_city"
    apps = ("Clock",)
    complexity = 3
    optimal_steps = 8
    goal_template = "Clean up my world clock: remove every city except {city}."
    goal_phrasings = (
        "I only care about {city} now - take all the other cities off the world clock.",
        "Could you delete all world clock cities but {city}?",
        "World clock: keep {city}, remove the rest.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        cities = rng.sample(_plain_cities(), 4)
        return {"city": cities[0], "others": sorted(cities[1:rng.randint(3, 4)])}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM world_cities")
        for c in [params["city"], *params["others"]]:
            _add_city(phone, c)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if [r[0] for r in phone.query(WORLD_SQL)] == [params["city"]] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        extra = [r[0] for r in phone.query(WORLD_SQL) if r[0] != params["city"]]
        if not extra:
            return COMPLETE  # the city itself was removed: re-adding is another task
        return _city_step(phone, obs, extra[0], True)


def _durations(text: str) -> list[int]:
    """Every timer length written in ``text``, in seconds ("10:00", "1:30:00", "10-minute", "10 min")."""
    out = []
    for m in re.finditer(r"(\d+)(?::(\d{2}))(?::(\d{2}))?|(\d+)\s*-?\s*(hours?|hrs?|h|minutes?|mins?|m)?\b", text.lower()):
        if m.group(1) is not None:
            parts = [int(g) for g in m.group(1, 2, 3) if g is not None]
            out.append(parts[0] * 3600 + parts[1] * 60 + parts[2] if len(parts) == 3 else parts[0] * 60 + parts[1])
        else:
            unit = m.group(5) or "m"
            out.append(int(m.group(4)) * (3600 if unit.startswith("h") else 60))
    return out


@register_task
class QueryFirstTimer(TaskTemplate):
    name = "clock_query_first_timer_to_ring"
    apps = ("Clock",)
    kind = "query"
    complexity = 3
    optimal_steps = 4
    goal_template = ("Which of my running timers will go off first? Answer with that timer's length (e.g. "
                     "\"the 10-minute timer\").")
    goal_phrasings = (
        "Of the timers that are counting down, which one rings soonest? Tell me its length.",
        "Could you check my timers and tell me which running one finishes first (by its length)?",
        "Running timers: which one ends next? Its length, please.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        lengths = rng.sample((5, 8, 10, 12, 15, 20, 25, 30, 40, 45), 4)
        rem = sorted(rng.sample(range(40, 280, 7), 4))  # seconds left on each
        # the paused timer has the least time left (but will not ring); the running ones the rest
        paused_len = rng.choice(lengths)
        running = [x for x in lengths if x != paused_len]
        rng.shuffle(running)
        plan = [[paused_len * 60, rem[0], "paused"]] + [[L * 60, r, "running"] for L, r in zip(running, rem[1:])]
        rng.shuffle(plan)
        target = min((p for p in plan if p[2] == "running"), key=lambda p: p[1])
        return {"timers": plan, "target": target[0]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM timers")
        for length, left, state in params["timers"]:
            _insert_timer(phone, length, state, left)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        got = _durations(answer or "")
        others = {t[0] for t in params["timers"]} - {params["target"]}
        return 1.0 if params["target"] in got and not others & set(got) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = _on_timer_list(phone, obs)
        if step is not None:
            return step
        label = f"{fmt_duration(params['target'])} timer"
        if find(obs, text=label, resource_id="timer_label") is None:
            act = scroll_toward(phone, obs, text=label)
            if act is not None:
                return act
        return answer(f"the {params['target'] // 60}-minute timer")


@register_task
class AlarmInMinutes(AlarmTemplate):
    name = "clock_alarm_in_minutes"
    complexity = 3
    optimal_steps = 8
    goal_template = "Set an alarm that rings {minutes} minutes from now."
    goal_phrasings = (
        "I'm taking a nap - wake me in {minutes} minutes with an alarm.",
        "Could you add an alarm for {minutes} minutes from the current time?",
        "Alarm: now + {minutes} minutes.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"minutes": rng.choice((20, 25, 30, 40, 45, 50, 75, 90, 100, 120, 150))}

    @staticmethod
    def _at(t: Any, minutes: int) -> tuple[int, int]:
        when = t.replace(second=0, microsecond=0) + timedelta(minutes=minutes)
        return when.hour, when.minute

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for k in range(3):
            h, m = self._at(phone.now, params["minutes"] + k)
            phone.execute("DELETE FROM alarm_templates WHERE hour=? AND minutes=?", (h, m))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = diff_rows(baseline_rows(phone, self, params, ALARM_SQL),
                                            [tuple(r) for r in phone.query(ALARM_SQL)])
        if removed or changed or len(added) != 1 or not added[0][4] or added[0][3]:
            return 0.0
        start = phone.origin[0].replace(second=0, microsecond=0)
        end = phone.now.replace(second=0, microsecond=0) + timedelta(minutes=1)  # a wait or two allowed
        t = start
        ok = set()
        while t <= end:
            ok.add(self._at(t, params["minutes"]))
            t += timedelta(minutes=1)
        return 1.0 if tuple(added[0][1:3]) in ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        h, m = self._at(phone.origin[0], params["minutes"])
        return _add_alarm_step(phone, obs, baseline_rows(phone, self, params, ALARM_SQL), h, m, 0, "")


def _says_hours_minutes(answer: str | None) -> int | None:
    """Minutes in an answer like "3 hours and 19 minutes", "3 h 19 min" or "45 minutes"; None if none."""
    if answer is None:
        return None
    text = answer.lower()
    hrs = re.search(r"(\d+)\s*(?:hours?|hrs?|h)\b", text)
    mins = re.search(r"(\d+)\s*(?:minutes?|mins?|m)\b", text)
    if hrs is None and mins is None:
        return None
    return (int(hrs.group(1)) if hrs else 0) * 60 + (int(mins.group(1)) if mins else 0)


@register_task
class QueryTimeUntilAlarm(AlarmTemplate):
    name = "clock_query_time_until_alarm"
    kind = "query"
    complexity = 3
    optimal_steps = 3
    goal_template = "How long from now until my \"{label}\" alarm rings? Answer in hours and minutes."
    goal_phrasings = (
        "How much time is left before the \"{label}\" alarm goes off (hours and minutes)?",
        "Could you work out how many hours and minutes remain until my \"{label}\" alarm?",
        "\"{label}\" alarm: time until it rings?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return _pair(rng)

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        _with_decoy(phone, params, enabled=1)

    def truth(self, phone: Phone, params: dict[str, Any]) -> int:
        a = labelled(phone, params["label"])
        if not a:
            a = [{"hour": params["hour"], "minutes": params["minute"], "days_of_week": 0}]
        fire = next_fire(phone.now, a[0]["hour"], a[0]["minutes"], a[0]["days_of_week"])
        return int((fire - phone.now).total_seconds() // 60)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        got = _says_hours_minutes(answer)
        if got is None:
            return 0.0
        return 1.0 if abs(got - self.truth(phone, params)) <= 2 else 0.0  # the toast rounds up a minute

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_tab(phone, obs, "alarms")
        if step is not None:
            return step
        hits = labelled(phone, params["label"])
        if hits and find(obs, desc=alarm_desc(phone, hits[0])) is None:
            act = scroll_toward(phone, obs, desc=alarm_desc(phone, hits[0]))
            if act is not None:
                return act
        h, m = divmod(self.truth(phone, params), 60)
        return answer(f"{h} hours and {m} minutes")


# ---- 2026-11-28 (round 3): Clock tasks of other shapes ---------------------------------------------
# (conditional edits, targets named by a property, "fix the odd one", partly done set-ups, values read on
# one tab and used on another, yes/no, derived numbers and rankings)
def _delete_step(phone: Phone, obs: Observation, alarm_id: int) -> Action:
    """Next step of deleting alarm ``alarm_id`` through its editor (Delete, then confirm)."""
    dlg = phone.dialog
    if dlg is not None and dlg.data.get("on_ok") == "delete_alarm":
        return click(obs, resource_id="android:id/button1") if dlg.data.get("args", {}).get("alarm_id") == alarm_id \
            else BACK
    if _on_editor_of(phone, alarm_id) and dlg is None:
        return click(obs, resource_id="delete") or BACK
    return open_alarm_editor(phone, obs, phone.query_one("SELECT * FROM alarm_templates WHERE _id=?", (alarm_id,)))


def _one_change(phone: Phone, base: list[tuple], alarm_id: int, want: tuple) -> bool:
    """The alarm table differs from ``base`` only in alarm ``alarm_id``, which now reads ``want``."""
    added, removed, changed = diff_rows(base, [tuple(r) for r in phone.query(ALARM_SQL)])
    return not added and not removed and len(changed) == 1 and changed[0][0][0] == alarm_id and \
        (*changed[0][1][:6], (changed[0][1][6] or "").strip()) == want


def _plant(phone: Phone, h: int, m: int, label: str, days: int, enabled: int) -> int:
    """An alarm row added as it is (``insert_alarm`` would replace another alarm with the same label)."""
    phone.execute("DELETE FROM alarm_templates WHERE hour=? AND minutes=?", (h, m))
    return phone.execute("INSERT INTO alarm_templates(hour, minutes, days_of_week, enabled, vibrate, label, ringtone)"
                         " VALUES(?,?,?,?,?,?,?)", (h, m, days, enabled, 1, label, "Bright Morning"))


def _hours_text(n: int) -> str:
    return f"{n} hour{'s' if n != 1 else ''}"


UNIQUE_ZONE_CITIES = sorted(c for c in _plain_cities()
                            if float(CITY_INFO[c][0]).is_integer()
                            and sum(1 for o, _ in CITY_INFO.values() if o == CITY_INFO[c][0]) == 1)


def _search_add_step(phone: Phone, obs: Observation, city: str) -> Action:
    """Next step of adding ``city`` through the world clock's city search."""
    scr = phone.screen
    if phone.foreground == APP and scr is not None and scr.name == "city_search" and phone.dialog is None:
        query = city[:4]
        if scr.fields.get("query", "") != query:
            return type_into(obs, query, resource_id="search_src_text") or BACK
        return click_or_scroll(phone, obs, text=city, resource_id="city_name")
    return to_tab(phone, obs, "clock") or click(obs, desc="Add city") or BACK


@register_task
class AddCityByHourDifference(TaskTemplate):
    name = "clock_add_city_by_hour_difference"
    apps = ("Clock",)
    complexity = 3
    optimal_steps = 6
    goal_template = ("Add to my world clock the one city in the city search whose time is {hours_text} {direction} "
                     "my own time right now.")
    goal_phrasings = (
        "Find the city in the world clock's city list that is {hours_text} {direction} me and add it to my world clock.",
        ("Which city offered by the Clock app's city search runs {hours_text} {direction} my time? Put it on my "
        "world clock."),
        "World clock: add the city that is {hours_text} {direction} my local time (only one in the search is).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        city = rng.choice(UNIQUE_ZONE_CITIES)
        diff = int(CITY_INFO[city][0] - HOME_OFFSET)
        return {"city": city, "hours_text": _hours_text(abs(diff)), "direction": "ahead of" if diff > 0 else "behind"}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM world_cities WHERE city=?", (params["city"],))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = sorted({r[0] for r in baseline_rows(phone, self, params, WORLD_SQL)} | {params["city"]})
        return 1.0 if [r[0] for r in phone.query(WORLD_SQL)] == want else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        keep = {r[0] for r in baseline_rows(phone, self, params, WORLD_SQL)}
        have = {r[0] for r in phone.query(WORLD_SQL)}
        extra = sorted(have - keep - {params["city"]})
        if extra:  # a city a detour added goes again
            return _city_step(phone, obs, extra[0], True)
        if params["city"] in have or keep - have:
            return COMPLETE  # a city to keep was removed: nothing to put back from here
        return _search_add_step(phone, obs, params["city"])


@register_task
class RepeatOrDeleteAlarm(AlarmTemplate):
    name = "clock_repeat_or_delete_alarm_by_state"
    complexity = 3
    optimal_steps = 7
    goal_template = ("Check my \"{label}\" alarm: if it is switched on, make it repeat {days_text}; if it is "
                     "switched off, delete it.")
    goal_phrasings = (
        "If the \"{label}\" alarm is on, set it to repeat {days_text}. If it's off, I don't need it: delete it.",
        "Look at the \"{label}\" alarm. Switched on: repeat {days_text}. Switched off: remove it.",
        "Could you either make my \"{label}\" alarm repeat {days_text} (when it's on) or delete it (when it's off)?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (h, m), (oh, om) = rng.sample(TIMES, 2)
        label, other = rng.sample(LABELS, 2)
        text, mask = rng.choice(DAY_SETS)
        on = rng.random() < 0.5
        return {"hour": h, "minute": m, "label": label, "on": on, "days_text": text, "days": mask,
                "other_hour": oh, "other_minute": om, "other_label": other}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # the other alarm is in the opposite state: the branch is read off the right row
        insert_alarm(phone, params["other_hour"], params["other_minute"], label=params["other_label"],
                     enabled=0 if params["on"] else 1)
        insert_alarm(phone, params["hour"], params["minute"], label=params["label"], enabled=1 if params["on"] else 0)

    def _target(self, phone: Phone, params: dict[str, Any]) -> tuple | None:
        base = baseline_rows(phone, self, params, ALARM_SQL)
        return next((r for r in base if r[6] == params["label"]), None)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        base = baseline_rows(phone, self, params, ALARM_SQL)
        t = self._target(phone, params)
        if t is None:
            return 0.0
        if t[4]:
            return 1.0 if _one_change(phone, base, t[0], (*t[:3], params["days"], *t[4:6], t[6])) else 0.0
        added, removed, changed = diff_rows(base, [tuple(r) for r in phone.query(ALARM_SQL)])
        return 1.0 if not added and not changed and [r[0] for r in removed] == [t[0]] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        t = self._target(phone, params)
        now = phone.query_one("SELECT * FROM alarm_templates WHERE _id=?", (t[0],)) if t else None
        if now is None:
            return COMPLETE  # deleted although it was on: nothing to put back
        fix = _switch_back(phone, obs, baseline_rows(phone, self, params, ALARM_SQL))
        if fix is not None:
            return fix
        if not t[4]:
            return _delete_step(phone, obs, t[0])
        if _on_editor_of(phone, t[0]):
            return edit_draft(phone, obs, t[1], t[2], params["days"], t[6])
        return open_alarm_editor(phone, obs, now)


@register_task
class AlarmBeforeEarliest(AlarmTemplate):
    name = "clock_add_alarm_before_earliest"
    complexity = 3
    optimal_steps = 9
    goal_template = ("Add an alarm labelled \"{label}\" that rings {delta} minutes before my earliest alarm that is "
                     "switched on (no repeat days).")
    goal_phrasings = (
        ("I want a warning alarm \"{label}\" {delta} minutes ahead of the earliest switched-on alarm I have; "
        "it shouldn't repeat."),
        "Could you set a one-time \"{label}\" alarm {delta} minutes earlier than the first of my active alarms?",
        "New alarm \"{label}\": {delta} min before my earliest alarm that's on. No repeat.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        h, m = rng.choice([t for t in TIMES if 6 <= t[0] <= 9])
        delta = rng.choice((10, 15, 20, 25, 30, 45))
        nh, nm = divmod(h * 60 + m - delta, 60)
        off = rng.choice([t for t in TIMES if t < (h, m) and t != (nh, nm)])
        labels = rng.sample(LABELS, 2)
        return {"hour": h, "minute": m, "delta": delta, "new_hour": nh, "new_minute": nm, "label": rng.choice(NEW_LABELS),
                "off_hour": off[0], "off_minute": off[1], "labels": labels}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM alarm_templates WHERE (hour=? AND minutes=?) OR lower(label)=?",
                      (params["new_hour"], params["new_minute"], params["label"].lower()))
        h, m = params["hour"], params["minute"]
        phone.execute("UPDATE alarm_templates SET enabled=0 WHERE hour*60+minutes <= ?", (h * 60 + m,))
        # the earliest alarm of all is switched off; the earliest switched-on one is the planted one
        insert_alarm(phone, params["off_hour"], params["off_minute"], label=params["labels"][1], enabled=0)
        insert_alarm(phone, h, m, label=params["labels"][0], enabled=1, days=WEEKDAYS_MASK)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = diff_rows(baseline_rows(phone, self, params, ALARM_SQL),
                                            [tuple(r) for r in phone.query(ALARM_SQL)])
        if removed or changed or len(added) != 1:
            return 0.0
        _, h, m, days, enabled, _, label = added[0]
        ok = (h, m, days, enabled) == (params["new_hour"], params["new_minute"], 0, 1) and \
            (label or "").strip().lower() == params["label"].lower()
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = _read_rows(phone, obs, alarms(phone, hour=params["hour"], minutes=params["minute"])[:1])
        if step is not None:
            return step
        return _add_alarm_step(phone, obs, baseline_rows(phone, self, params, ALARM_SQL), params["new_hour"],
                               params["new_minute"], 0, params["label"])


@register_task
class FixOddRepeatDays(AlarmTemplate):
    name = "clock_fix_odd_repeat_days"
    complexity = 3
    optimal_steps = 6
    goal_template = ("All my \"{label}\" alarms should repeat every day, but one of them doesn't. Fix that one and "
                     "leave the others as they are.")
    goal_phrasings = (
        ("One of my \"{label}\" alarms is missing a day: make it repeat every day like the rest, and change nothing "
        "else."),
        "Every \"{label}\" alarm is meant to ring daily. Find the one that doesn't and set it to every day.",
        "\"{label}\" alarms: the one not repeating every day - fix its repeat days.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        times = sorted(rng.sample(TIMES, 4))
        odd = rng.randrange(3)
        missing = rng.sample(range(7), rng.choice((1, 1, 2)))
        mask = EVERY_DAY & ~sum(1 << d for d in missing)
        return {"label": rng.choice(("Vitamins", "Take medicine", "Stretch", "Feed the cat")),
                "times": [list(t) for t in times[:3]], "odd": odd, "odd_days": mask,
                "other_time": list(times[3]), "other_label": rng.choice(("Gym", "Yoga", "Study"))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for label in (params["label"], params["other_label"]):
            phone.execute("DELETE FROM alarm_templates WHERE lower(label)=?", (label.lower(),))
        # another alarm that is not daily either, but is no "{label}" alarm: it stays
        _plant(phone, *params["other_time"], params["other_label"], params["odd_days"], 1)
        for i, (h, m) in enumerate(params["times"]):
            _plant(phone, h, m, params["label"], params["odd_days"] if i == params["odd"] else EVERY_DAY, 1)

    def _odd(self, phone: Phone, params: dict[str, Any]) -> tuple:
        h, m = params["times"][params["odd"]]
        return next(r for r in baseline_rows(phone, self, params, ALARM_SQL)
                    if (r[1], r[2]) == (h, m) and r[6] == params["label"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        t = self._odd(phone, params)
        ok = _one_change(phone, baseline_rows(phone, self, params, ALARM_SQL), t[0], (*t[:3], EVERY_DAY, *t[4:]))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        t = self._odd(phone, params)
        now = phone.query_one("SELECT * FROM alarm_templates WHERE _id=?", (t[0],))
        if now is None:
            return COMPLETE
        fix = _switch_back(phone, obs, baseline_rows(phone, self, params, ALARM_SQL))
        if fix is not None:
            return fix
        if _on_editor_of(phone, t[0]):
            return edit_draft(phone, obs, t[1], t[2], EVERY_DAY, t[6])
        return open_alarm_editor(phone, obs, now)


@register_task
class EnsureTimersRunning(TaskTemplate):
    name = "clock_ensure_timers_running"
    apps = ("Clock",)
    complexity = 3
    optimal_steps = 10
    goal_template = ("I want three timers counting down: {first}, {second} and {third} minutes. Some of them are "
                     "already there - get all three running without making a second copy of any, and leave my "
                     "finished timer alone.")
    goal_phrasings = (
        ("Make sure timers of {first}, {second} and {third} minutes are all running. Reuse the ones I already have "
        "(no duplicates) and keep the timer that has gone off as it is."),
        ("I need {first}-, {second}- and {third}-minute timers going. Some exist already: start what's missing, "
        "don't duplicate, don't touch the finished one."),
        "Timers {first}, {second}, {third} min: all running, one of each. Finished timer: leave it.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        lengths = sorted(rng.sample((3, 4, 5, 8, 10, 12, 15, 20, 25, 30), 3))
        roles = ["running", "paused", "missing"]
        rng.shuffle(roles)
        done = rng.choice([x for x in (2, 6, 7, 9, 40, 45) if x not in lengths])
        return {"first": lengths[0], "second": lengths[1], "third": lengths[2],
                "roles": {str(L): r for L, r in zip(lengths, roles)}, "done": done}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM timers")
        _insert_timer(phone, params["done"] * 60, "expired")
        for L, role in sorted(params["roles"].items(), key=lambda kv: kv[1]):
            secs = int(L) * 60
            if role == "running":
                _insert_timer(phone, secs, "running", secs - 75)
            elif role == "paused":
                _insert_timer(phone, secs, "paused", secs // 2)

    def _missing(self, params: dict[str, Any]) -> int:
        return next(int(L) for L, r in params["roles"].items() if r == "missing") * 60

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        base = baseline_rows(phone, self, params, TIMER_SQL)
        want = [(i, L, "running" if s == "paused" else s) for i, L, s in base]
        added, removed, changed = diff_rows(want, [tuple(r) for r in phone.query(TIMER_SQL)])
        ok = not removed and not changed and len(added) == 1 and added[0][1:] == (self._missing(params), "running")
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = to_tab(phone, obs, "timer")
        if step is not None:
            return step
        scr = phone.screen
        assert scr is not None
        base = baseline_rows(phone, self, params, TIMER_SQL)
        now = {r[0]: (r[1], r[2]) for r in phone.query(TIMER_SQL)}
        added = [(i, *v) for i, v in now.items() if i not in {b[0] for b in base}]
        good = [a for a in added if a[1:] == (self._missing(params), "running")]
        bad = [a for a in added if a not in good[:1]]
        if any(b[0] not in now or now[b[0]][0] != b[1] for b in base):
            return COMPLETE  # a timer was deleted or lengthened: nothing to put back
        if scr.state.get("setup") or not now:
            if not good and not bad:
                return _timer_keypad(phone, obs, self._missing(params))
            return to_tab(phone, obs, "alarms") or COMPLETE  # leave the keypad
        for i, L, state in base:
            want = "running" if state == "paused" else state
            if now[i][1] != want:
                return _timer_button(phone, obs, L, "timer_toggle") or COMPLETE
        if bad:
            return _timer_button(phone, obs, bad[0][1], "timer_delete") or COMPLETE
        if not good:
            return click(obs, resource_id="add_timer") or scroll_toward(phone, obs, resource_id="add_timer") or \
                COMPLETE
        return COMPLETE


TIMER_END_SQL = "SELECT _id, length_s, state, end_time FROM timers ORDER BY _id"


@register_task
class TimerUntilAlarm(AlarmTemplate):
    name = "clock_timer_until_alarm"
    complexity = 3
    optimal_steps = 8
    goal_template = ("Start a timer that goes off at the same moment as my \"{label}\" alarm rings today (check the "
                     "alarm's time first).")
    goal_phrasings = (
        "I'd like a countdown to my \"{label}\" alarm: start a timer that ends exactly when that alarm goes off today.",
        "Look up when the \"{label}\" alarm rings and set a timer running that finishes at that same time.",
        "Timer ending when the \"{label}\" alarm rings today - start it.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        minutes, other = rng.sample((19, 24, 29, 34, 39, 44, 49, 54), 2)
        label, other_label = rng.sample(LABELS, 2)
        return {"minutes": minutes, "label": label, "other_minutes": other, "other_label": other_label}

    @staticmethod
    def _at(phone: Phone, minutes: int) -> Any:
        return phone.origin[0].replace(second=0, microsecond=0) + timedelta(minutes=minutes)

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM timers")
        for mins, label in ((params["other_minutes"], params["other_label"]), (params["minutes"], params["label"])):
            t = self._at(phone, mins)
            insert_alarm(phone, t.hour, t.minute, label=label, enabled=1)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        from datetime import datetime

        added, removed, changed = diff_rows(baseline_rows(phone, self, params, TIMER_END_SQL),
                                            [tuple(r) for r in phone.query(TIMER_END_SQL)])
        if removed or changed or len(added) != 1 or added[0][2] != "running" or not added[0][3]:
            return 0.0
        end = datetime.fromisoformat(added[0][3])
        return 1.0 if abs((end - self._at(phone, params["minutes"])).total_seconds()) <= 60 else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        t = self._at(phone, params["minutes"])
        step = _read_rows(phone, obs, alarms(phone, hour=t.hour, minutes=t.minute)[:1])
        if step is not None:
            return step
        step = to_tab(phone, obs, "timer")
        if step is not None:
            return step
        scr = phone.screen
        assert scr is not None
        timers = phone.query(TIMER_SQL)
        if timers and not scr.state.get("setup"):  # a wrong timer: delete it first
            return _timer_button(phone, obs, timers[0]["length_s"], "timer_delete") or COMPLETE
        left = int((t - phone.now).total_seconds())
        if left <= 0:
            return COMPLETE
        return _timer_keypad(phone, obs, left)


@register_task
class LabelLatestAlarm(AlarmTemplate):
    name = "clock_label_latest_alarm"
    complexity = 3
    optimal_steps = 6
    goal_template = "Give the alarm I have set for the latest time of day the label \"{label}\"; change nothing else."
    goal_phrasings = (
        "My last alarm of the day (the one set latest) should be labelled \"{label}\". Rename it, nothing else.",
        "Could you find the alarm with the latest time and change its label to \"{label}\"?",
        "Latest alarm of the day: label it \"{label}\".",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        h, m = rng.choice([t for t in TIMES if t[0] >= 19])
        old, other = rng.sample(LABELS, 2)
        return {"hour": h, "minute": m, "label": rng.choice(NEW_LABELS), "old_label": old, "other_label": other}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        h, m = params["hour"], params["minute"]
        phone.execute("DELETE FROM alarm_templates WHERE hour*60+minutes > ? OR lower(label)=?",
                      (h * 60 + m, params["label"].lower()))
        # the same digits in the morning: the latest by the clock face, not by the day
        insert_alarm(phone, h - 12, m, label=params["other_label"], enabled=1)
        insert_alarm(phone, h, m, label=params["old_label"], enabled=1, days=WEEKDAYS_MASK)

    def _target(self, phone: Phone, params: dict[str, Any]) -> tuple:
        return next(r for r in baseline_rows(phone, self, params, ALARM_SQL)
                    if (r[1], r[2]) == (params["hour"], params["minute"]))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        t = self._target(phone, params)
        ok = _one_change(phone, baseline_rows(phone, self, params, ALARM_SQL), t[0], (*t[:6], params["label"]))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        t = self._target(phone, params)
        now = phone.query_one("SELECT * FROM alarm_templates WHERE _id=?", (t[0],))
        if now is None:
            return COMPLETE
        fix = _switch_back(phone, obs, baseline_rows(phone, self, params, ALARM_SQL))
        if fix is not None:
            return fix
        if _on_editor_of(phone, t[0]):
            return edit_draft(phone, obs, t[1], t[2], t[3], params["label"])
        return open_alarm_editor(phone, obs, now)


ZONE_GROUPS = {off: sorted(c for c in _plain_cities() if CITY_INFO[c][0] == off)
               for off in {CITY_INFO[c][0] for c in _plain_cities()}}


@register_task
class RemoveSameTimeCities(TaskTemplate):
    name = "clock_remove_same_time_cities"
    apps = ("Clock",)
    complexity = 3
    optimal_steps = 6
    goal_template = ("On my world clock, remove every other city that shows the same time as {city}; keep {city} "
                     "itself and the cities with a different time.")
    goal_phrasings = (
        ("I only need one clock per time zone: take off the world clock each city whose time equals {city}'s, "
        "but leave {city} and all other cities."),
        "Could you delete the world clock cities that show exactly the same time as {city} ({city} stays)?",
        "World clock: cities at {city}'s time, except {city}, out. Others stay.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        off = rng.choice(sorted(o for o, cs in ZONE_GROUPS.items() if len(cs) >= 2))
        group = ZONE_GROUPS[off]
        city = rng.choice(group)
        twins = sorted(rng.sample([c for c in group if c != city], min(2, len(group) - 1, rng.randint(1, 2))))
        near = [c for c in _plain_cities() if 0 < abs(CITY_INFO[c][0] - off) <= 2]
        return {"city": city, "twins": twins, "others": sorted(rng.sample(near, 2))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM world_cities")
        for c in [params["city"], *params["twins"], *params["others"]]:
            _add_city(phone, c)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = sorted({r[0] for r in baseline_rows(phone, self, params, WORLD_SQL)} - set(params["twins"]))
        return 1.0 if [r[0] for r in phone.query(WORLD_SQL)] == want else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        keep = {r[0] for r in baseline_rows(phone, self, params, WORLD_SQL)} - set(params["twins"])
        have = [r[0] for r in phone.query(WORLD_SQL)]
        if keep - set(have):
            return COMPLETE  # a city to keep was removed: nothing to put back from here
        go = [c for c in have if c not in keep]
        return _city_step(phone, obs, go[0], True) if go else COMPLETE


def _yes_no(answer: str | None) -> bool | None:
    """True for a yes, False for a no, None when the answer says neither or both."""
    toks = set(normalize_answer(answer or ""))
    yes, no = "yes" in toks, bool(toks & {"no", "not", "won't", "won"})
    return None if yes == no else yes


@register_task
class QueryAlarmRingsOnDay(AlarmTemplate):
    name = "clock_query_alarm_rings_on_day"
    kind = "query"
    complexity = 2
    optimal_steps = 3
    goal_template = "Will my \"{label}\" alarm ring on {day} as it is set now? Answer yes or no."
    goal_phrasings = (
        "As things stand, does the \"{label}\" alarm go off on {day}? Yes or no.",
        "Could you check whether my \"{label}\" alarm is going to ring on {day}? Just yes or no.",
        "\"{label}\" alarm on {day}: will it ring (yes/no)?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        day = rng.choice((0, 3, 4, 5, 6))  # never today (Tuesday) or tomorrow: one-shot alarms ring then
        case = rng.choice(("yes", "yes", "off", "other_days"))
        masks = (WEEKDAYS_MASK, WEEKEND_MASK, 0b0010101, 0b0001010, 0b1010100, 0b0011000, 0b1000001, EVERY_DAY)
        with_day = [m for m in masks if m >> day & 1]
        without = [m for m in masks if not m >> day & 1]
        mask = rng.choice(without if case == "other_days" else with_day)
        (h, m), (oh, om) = rng.sample(TIMES, 2)
        label, other = rng.sample(LABELS, 2)
        # the other alarm gives the opposite answer
        other_mask, other_on = (rng.choice(with_day), 0) if case == "yes" else (rng.choice(with_day), 1)
        return {"label": label, "day": WEEKDAY_NAMES[day], "bit": day, "hour": h, "minute": m, "days": mask,
                "on": int(case != "off"), "other_label": other, "other_hour": oh, "other_minute": om,
                "other_days": other_mask, "other_on": other_on}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        insert_alarm(phone, params["other_hour"], params["other_minute"], label=params["other_label"],
                     days=params["other_days"], enabled=params["other_on"])
        insert_alarm(phone, params["hour"], params["minute"], label=params["label"], days=params["days"],
                     enabled=params["on"])

    def expected(self, phone: Phone, params: dict[str, Any]) -> bool:
        a = labelled(phone, params["label"])
        mask, on = (a[0]["days_of_week"], a[0]["enabled"]) if a else (params["days"], params["on"])
        return bool(on) and bool(mask >> params["bit"] & 1)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if _yes_no(answer) is self.expected(phone, params) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = _read_rows(phone, obs, labelled(phone, params["label"])[:1])
        if step is not None:
            return step
        return answer("yes" if self.expected(phone, params) else "no")


@register_task
class QueryLapSpread(TaskTemplate):
    name = "clock_query_lap_spread"
    apps = ("Clock",)
    kind = "query"
    complexity = 3
    optimal_steps = 4
    goal_template = ("My stopwatch is paused after {laps} laps. How many seconds faster was my fastest lap than my "
                     "slowest lap? Answer with the number of seconds.")
    goal_phrasings = (
        ("Looking at the {laps} laps on my paused stopwatch, what's the gap in seconds between the quickest and the "
        "slowest lap?"),
        "Could you work out by how many seconds my best lap beat my worst one? The stopwatch shows {laps} laps.",
        "Stopwatch, {laps} laps: slowest lap minus fastest lap, in seconds?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        laps = rng.randint(4, 6)
        times = rng.sample(range(5200, 8800, 7), laps)  # hundredths of a second, all distinct
        return {"laps": laps, "lap_times": [t / 100 for t in times], "spread": max(times) - min(times)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        QueryFastestLap().setup(phone, params)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        from decimal import Decimal

        nums = [n.replace(",", "") for n in NUMBER.findall(answer or "")]
        return 1.0 if len(nums) == 1 and Decimal(nums[0]) == Decimal(params["spread"]) / 100 else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_tab(phone, obs, "stopwatch")
        if step is not None:
            return step
        if find(obs, text="Lap 1") is None:  # the first lap is the last row: read the list to its end
            act = scroll_toward(phone, obs, text="Lap 1")
            if act is not None:
                return act
        return answer(f"{params['spread'] / 100:.2f} seconds")


COUNT_MASKS = (WEEKDAYS_MASK, WEEKEND_MASK, EVERY_DAY, 0b0010101, 0b0001010, 0b0100000, 0b1000000, 0b1011001,
               0b0110110, 0b1111110)
COUNT_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven")


@register_task
class QueryAlarmDaysPerWeek(AlarmTemplate):
    name = "clock_query_alarm_days_per_week"
    kind = "query"
    complexity = 2
    optimal_steps = 3
    goal_template = "On how many days a week does my \"{label}\" alarm ring? Answer with a number."
    goal_phrasings = (
        "How many days of the week is the \"{label}\" alarm set to repeat on? Give me the number.",
        "Could you count the weekdays my \"{label}\" alarm goes off on, and tell me how many?",
        "\"{label}\" alarm: number of days per week it rings?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        mask = rng.choice(COUNT_MASKS)
        other = rng.choice([m for m in COUNT_MASKS if (m).bit_count() != (mask).bit_count()])
        (h, m), (oh, om) = rng.sample(TIMES, 2)
        label, other_label = rng.sample(LABELS, 2)
        return {"label": label, "hour": h, "minute": m, "days": mask, "count": (mask).bit_count(),
                "other_label": other_label, "other_hour": oh, "other_minute": om, "other_days": other}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        insert_alarm(phone, params["other_hour"], params["other_minute"], label=params["other_label"],
                     days=params["other_days"], enabled=1)
        insert_alarm(phone, params["hour"], params["minute"], label=params["label"], days=params["days"], enabled=1)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        n = params["count"]
        nums = re.findall(r"\d+", answer or "")
        ok = nums == [str(n)] or (not nums and answer_matches(answer, COUNT_WORDS[n]) and
                                  not any(answer_matches(answer, w) for w in COUNT_WORDS if w != COUNT_WORDS[n]))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = _read_rows(phone, obs, labelled(phone, params["label"])[:1])
        if step is not None:
            return step
        return answer(str(params["count"]))


@register_task
class QueryCitiesAheadOrder(TaskTemplate):
    name = "clock_query_cities_ahead_order"
    apps = ("Clock",)
    kind = "query"
    complexity = 3
    optimal_steps = 4
    goal_template = ("Rank the cities on my world clock by how far ahead of my own time they are, from the furthest "
                     "ahead to the least. Answer with the city names in that order.")
    goal_phrasings = (
        ("Order my world clock cities from the one that is the most hours ahead of me to the one that is the fewest. "
        "List the names in order."),
        "Could you sort the cities on my world clock by their time difference from me, biggest lead first?",
        "World clock cities, most hours ahead of me first: in what order?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        pool = [c for c in _plain_cities() if CITY_INFO[c][0] > HOME_OFFSET]
        while True:
            cities = rng.sample(pool, rng.randint(3, 4))
            offs = [CITY_INFO[c][0] for c in cities]
            if len(set(offs)) == len(offs):
                break
        return {"cities": sorted(cities), "order": sorted(cities, key=lambda c: -CITY_INFO[c][0])}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM world_cities")
        for c in params["cities"]:
            _add_city(phone, c)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        text = " ".join(normalize_answer(answer or ""))
        spots = []
        for c in params["order"]:
            name = " ".join(normalize_answer(c))
            hits = [m.start() for m in re.finditer(r"\b" + re.escape(name) + r"\b", text)]
            if len(hits) != 1:
                return 0.0
            spots.append(hits[0])
        return 1.0 if spots == sorted(spots) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_tab(phone, obs, "clock")
        if step is not None:
            return step
        last = params["cities"][-1]
        if find(obs, text=last, resource_id="city_item") is None:
            act = scroll_toward(phone, obs, text=last, resource_id="city_item")
            if act is not None:
                return act
        return answer(", ".join(params["order"]))


# ---- 2026-11-28 (round 4): screens and controls no earlier oracle used ---------------------------------
# (the city search as a place to read a time, the laps' running totals, the stopwatch's own display, the
# "Today"/"Tomorrow" line of one-time alarms, labels that carry a time, the remaining time on a timer card
# copied into the keypad or into an alarm, the vibrate box checked alarm by alarm with Cancel, the world
# clock's "Tomorrow" line, and a world clock brought to an exact set of cities)
def _seen(phone: Phone, what: str) -> bool:
    return ("oracle_seen", what) in phone.events


def _note(phone: Phone, what: str) -> None:
    if not _seen(phone, what):
        phone.events.append(("oracle_seen", what))


def _city_time_now(phone: Phone, city: str) -> tuple[int, int]:
    t = phone.now + timedelta(hours=CITY_INFO[city][0] - HOME_OFFSET)
    return t.hour, t.minute


@register_task
class QueryCityTimeInSearch(TaskTemplate):
    name = "clock_query_city_time_in_search"
    apps = ("Clock",)
    kind = "query"
    complexity = 2
    optimal_steps = 6
    goal_template = ("What time is it in {city} right now? Look it up in the Clock app's city search, but don't add "
                     "{city} to my world clock.")
    goal_phrasings = (
        "I don't want {city} on my world clock, I just need its current time: check the city search and tell me.",
        "Without adding it to the world clock, find out what time it is in {city} at the moment.",
        "Time in {city} now? (Use the city search; {city} stays off my world clock.)",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        city = rng.choice(_plain_cities())
        off, country = CITY_INFO[city]
        near = [c for c in _plain_cities() if c != city and CITY_INFO[c][0] != off]
        twins = [c for c in near if CITY_INFO[c][1] == country]
        return {"city": city, "other_city": rng.choice(twins or near)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM world_cities WHERE city=?", (params["city"],))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if [tuple(r) for r in phone.query(WORLD_SQL)] != baseline_rows(phone, self, params, WORLD_SQL):
            return 0.0
        h, m = _city_time_now(phone, params["city"])
        return 1.0 if read_time(answer, h) == (h, m) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        keep = {r[0] for r in baseline_rows(phone, self, params, WORLD_SQL)}
        extra = sorted({r[0] for r in phone.query(WORLD_SQL)} - keep)
        if extra:  # a city a detour added goes again
            return _city_step(phone, obs, extra[0], True)
        scr = phone.screen
        city = params["city"]
        if phone.foreground == APP and scr is not None and scr.name == "city_search" and phone.dialog is None:
            if scr.fields.get("query", "") != city[:4]:
                return type_into(obs, city[:4], resource_id="search_src_text") or BACK
            if find(obs, text=city, resource_id="city_name") is None:
                return scroll_toward(phone, obs, text=city, resource_id="city_name") or BACK
            return answer(phone.format_time(*_city_time_now(phone, city)))
        return to_tab(phone, obs, "clock") or click(obs, desc="Add city") or BACK


def _says_lap(answer: str | None, n: int) -> bool:
    """Whether ``answer`` names lap ``n`` ("3", "Lap 3", "lap #3", "the third lap") and no other lap."""
    if answer is None:
        return False
    words = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
    if re.findall(r"\d+", answer) not in ([str(n)], []):
        return False
    return re.fullmatch(r"\s*(?:lap\s*)?#?\s*" + str(n) + r"\s*\.?\s*", answer.lower()) is not None or \
        answer_matches(answer, f"lap {n}") or answer_matches(answer, f"{words[n - 1]} lap")


def _plant_laps(phone: Phone, lap_times: list[float], extra: float) -> None:
    """A paused stopwatch with these laps, ``extra`` seconds past the last lap."""
    phone.execute("DELETE FROM laps")
    total = 0.0
    for lap in lap_times:
        total = round(total + lap, 2)
        phone.execute("INSERT INTO laps(lap_s, total_s) VALUES(?, ?)", (lap, total))
    phone.execute("UPDATE stopwatch SET state='paused', accumulated_s=?, started_at=NULL WHERE _id=1",
                  (round(total + extra, 2),))


@register_task
class QueryLapWhenTotalPassed(TaskTemplate):
    name = "clock_query_lap_total_passed_mark"
    apps = ("Clock",)
    kind = "query"
    complexity = 3
    optimal_steps = 4
    goal_template = ("My stopwatch is paused after a run of {laps} laps. During which lap did the total time pass "
                     "{minutes} minutes? Answer with the lap number.")
    goal_phrasings = (
        "Looking at the {laps} laps on my paused stopwatch, in which lap did I go past the {minutes}-minute mark?",
        "I want to know when my run crossed {minutes} minutes: which of the {laps} stopwatch laps was I on? Lap number only.",
        "Stopwatch ({laps} laps, paused): lap in which the running total reached {minutes} minutes?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        while True:
            laps = rng.randint(7, 9)
            times = [rng.randrange(5200, 8800, 7) for _ in range(laps)]  # hundredths of a second
            totals = [sum(times[:i + 1]) for i in range(laps)]
            marks = [m for m in range(2, 12) if totals[1] < m * 6000 <= totals[-2]
                     and all(abs(t - m * 6000) > 300 for t in totals)]
            if marks:
                break
        mark = rng.choice(marks)
        lap = next(i + 1 for i, t in enumerate(totals) if t >= mark * 6000)
        return {"laps": laps, "lap_times": [t / 100 for t in times], "minutes": mark, "lap": lap}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        _plant_laps(phone, params["lap_times"], 9.12)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if _says_lap(answer, params["lap"]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_tab(phone, obs, "stopwatch")
        if step is not None:
            return step
        before = f"Lap {params['lap'] - 1}"  # the lap before it (shown below it) is still under the mark
        if find(obs, text=before) is None:
            act = scroll_toward(phone, obs, text=before)
            if act is not None:
                return act
        return answer(f"Lap {params['lap']}")


STOPWATCH_SQL = "SELECT state, accumulated_s FROM stopwatch"
LAPS_SQL = "SELECT _id, lap_s, total_s FROM laps ORDER BY _id"


@register_task
class StopwatchResetOrResume(TaskTemplate):
    name = "clock_stopwatch_reset_or_resume"
    apps = ("Clock",)
    complexity = 3
    optimal_steps = 4
    goal_template = ("Look at my paused stopwatch: if it shows more than {limit} minutes, reset it to zero; if it "
                     "shows less, start it again from where it is.")
    goal_phrasings = (
        "My stopwatch is paused. Over {limit} minutes on it? Then clear it. Under {limit} minutes? Then let it carry on.",
        ("Depending on the paused stopwatch: above {limit} minutes, reset it; below {limit} minutes, resume it "
        "without resetting."),
        "I forgot whether my stopwatch run was long. If it's past {limit} minutes reset it, otherwise keep it going.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        limit = rng.choice((5, 10, 15, 20, 30))
        over = rng.random() < 0.5
        secs = limit * 60 + (1 if over else -1) * rng.randint(45, 240) + rng.randint(0, 99) / 100
        laps = rng.randint(0, 3)
        lap_times = [round(secs / (laps + 1) + rng.randint(-300, 300) / 100, 2) for _ in range(laps)]
        return {"limit": limit, "over": over, "lap_times": lap_times,
                "extra": round(secs - sum(lap_times), 2)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        _plant_laps(phone, params["lap_times"], params["extra"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        sw = tuple(phone.query_one(STOPWATCH_SQL))
        laps = [tuple(r) for r in phone.query(LAPS_SQL)]
        if params["over"]:
            return 1.0 if sw == ("reset", 0) and not laps else 0.0
        base = baseline_rows(phone, self, params, STOPWATCH_SQL)[0]
        ok = sw == ("running", base[1]) and laps == baseline_rows(phone, self, params, LAPS_SQL)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = to_tab(phone, obs, "stopwatch")
        if step is not None:
            return step
        state, acc = tuple(phone.query_one(STOPWATCH_SQL))
        base = baseline_rows(phone, self, params, STOPWATCH_SQL)[0]
        if params["over"]:
            if state == "running":
                return click(obs, desc="Pause") or COMPLETE
            return click(obs, resource_id="reset") or COMPLETE
        if state == "paused" and acc == base[1]:
            return click(obs, desc="Start") or COMPLETE
        return COMPLETE  # reset, lapped or run on: nothing this task can put back


@register_task
class QueryOneTimeAlarmToday(AlarmTemplate):
    name = "clock_query_one_time_alarm_today"
    kind = "query"
    complexity = 3
    optimal_steps = 3
    goal_template = ("Of my one-time alarms (the ones that don't repeat), which one is still going to ring today? "
                     "Answer with its label.")
    goal_phrasings = (
        "Only one of my non-repeating alarms will go off later today. What is it called?",
        "I have a few alarms that ring just once. Which of them rings today rather than tomorrow? Give me its label.",
        "One-time alarm still due today: label?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        later = [t for t in TIMES if t[0] >= 10]
        earlier = [t for t in TIMES if t[0] <= 8]
        (h, m), (ph, pm) = rng.sample(later, 2)
        rh, rm = rng.choice([t for t in later if t not in ((h, m), (ph, pm))])
        eh, em = rng.choice(earlier)
        label, early, off, rep = rng.sample(LABELS, 4)
        return {"label": label, "hour": h, "minute": m, "early_label": early, "early_hour": eh, "early_minute": em,
                "off_label": off, "off_hour": ph, "off_minute": pm, "repeat_label": rep, "repeat_hour": rh,
                "repeat_minute": rm, "repeat_days": rng.choice((WEEKDAYS_MASK, EVERY_DAY, 0b0001010))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM alarm_templates WHERE days_of_week=0")
        p = params
        insert_alarm(phone, p["early_hour"], p["early_minute"], label=p["early_label"], enabled=1)  # "Tomorrow"
        insert_alarm(phone, p["off_hour"], p["off_minute"], label=p["off_label"], enabled=0)  # "Not scheduled"
        insert_alarm(phone, p["repeat_hour"], p["repeat_minute"], label=p["repeat_label"], days=p["repeat_days"])
        insert_alarm(phone, p["hour"], p["minute"], label=p["label"], enabled=1)  # "Today"

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        others = (params["early_label"], params["off_label"], params["repeat_label"])
        ok = answer_matches(answer, params["label"]) and not any(answer_matches(answer, o) for o in others)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        mine = [a for a in alarms(phone) if not a["days_of_week"]]
        step = _read_rows(phone, obs, sorted(mine, key=lambda a: (a["hour"], a["minutes"], a["_id"])))
        if step is not None:
            return step
        return answer(params["label"])


TIME_WORDS = ("Bus", "Train", "Pills", "Ferry", "Shuttle", "Call Dad")


@register_task
class FixAlarmTimeFromLabel(AlarmTemplate):
    name = "clock_fix_alarm_time_from_label"
    complexity = 3
    optimal_steps = 8
    goal_template = ("My alarms named after a time (like \"{example}\") should ring at the time in their name, but "
                     "one of them is set wrong. Set that one to the time its name says and change nothing else.")
    goal_phrasings = (
        ("Each alarm whose label gives a time, such as \"{example}\", is meant to go off then. One doesn't: fix its "
        "time."),
        "One of my alarms rings at a different time from the one written in its label (\"{example}\" is an example of such a label). Correct it.",
        "Alarm labels like \"{example}\" name the ring time. Find the one whose time doesn't match and fix it.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        words = rng.sample(TIME_WORDS, 3)
        times = rng.sample(TIMES, 3)
        odd = rng.randrange(3)
        h, m = times[odd]
        kind = rng.choice(("minutes", "minutes", "half_day"))
        if kind == "half_day":
            wrong = ((h + 12) % 24, m)
        else:
            wrong = divmod(h * 60 + m + rng.choice((-30, -15, -10, 10, 15, 30)), 60)
        while wrong in times or not 0 <= wrong[0] < 24:
            wrong = ((wrong[0] + 1) % 24, wrong[1])
        labels = [f"{w} {say_time(*t)}" for w, t in zip(words, times)]
        return {"labels": labels, "times": [list(t) for t in times], "odd": odd, "wrong": list(wrong),
                "example": labels[(odd + 1) % 3]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, (label, t) in enumerate(zip(params["labels"], params["times"])):
            h, m = params["wrong"] if i == params["odd"] else t
            _plant(phone, h, m, label, rng_days(i), 1)

    def _target(self, phone: Phone, params: dict[str, Any]) -> tuple:
        label = params["labels"][params["odd"]]
        return next(r for r in baseline_rows(phone, self, params, ALARM_SQL) if r[6] == label)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        t = self._target(phone, params)
        h, m = params["times"][params["odd"]]
        ok = _one_change(phone, baseline_rows(phone, self, params, ALARM_SQL), t[0], (t[0], h, m, *t[3:]))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        t = self._target(phone, params)
        now = phone.query_one("SELECT * FROM alarm_templates WHERE _id=?", (t[0],))
        if now is None:
            return COMPLETE
        fix = _switch_back(phone, obs, baseline_rows(phone, self, params, ALARM_SQL))
        if fix is not None:
            return fix
        if _on_editor_of(phone, t[0]):
            h, m = params["times"][params["odd"]]
            return edit_draft(phone, obs, h, m, t[3], t[6])
        return open_alarm_editor(phone, obs, now)


def rng_days(i: int) -> int:
    """Repeat days of the i-th planted alarm (fixed: the set-up draws nothing)."""
    return (WEEKDAYS_MASK, 0, EVERY_DAY)[i % 3]


def _card_button(phone: Phone, obs: Observation, length: int, rid: str) -> Action | None:
    """A click on the ``rid`` button of the card of the timer of ``length`` seconds, scrolling until both its
    label and that button are on screen (a card can be cut off at the bottom); None when there is no such card."""
    from droidverify.env.sim.env import probe_scroll

    def button(o: Observation) -> int | None:
        label = find(o, text=f"{fmt_duration(length)} timer", resource_id="timer_label")
        if label is None:
            return None
        for j in range(label + 1, len(o.elements)):
            r = o.elements[j].resource_id or ""
            if r.endswith("timer_label"):
                return None
            if r.endswith(rid):
                return j
        return None

    i = button(obs)
    if i is not None:
        return Action(action_type="click", index=i)
    direction = probe_scroll(phone, lambda o: button(o) is not None)
    return Action(action_type="scroll", direction=direction) if direction else None


@register_task
class ReplacePausedTimer(TaskTemplate):
    name = "clock_replace_paused_timer"
    apps = ("Clock",)
    complexity = 3
    optimal_steps = 10
    goal_template = ("Swap my paused {duration_text} timer for a fresh one: start a new timer for exactly the time "
                     "left on it, then delete the paused timer. My other timer keeps running.")
    goal_phrasings = (
        ("Start a new timer as long as what's left on the paused {duration_text} timer, and get rid of the paused "
        "one afterwards; leave the running timer alone."),
        "I'd rather have a clean timer: replace the paused {duration_text} timer by a new running one for its remaining time.",
        "Paused {duration_text} timer -> new timer with its time left, running; delete the paused one. Other timer unchanged.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        mins = rng.choice((10, 12, 15, 20, 25, 30, 45))
        left = rng.randint(2 * 60, mins * 60 - 60)
        other = rng.choice([x for x in (4, 6, 8, 40, 50, 60) if x * 60 not in (mins * 60, left)])
        return {"seconds": mins * 60, "left": left, "other_seconds": other * 60, "duration_text": f"{mins}-minute",
                "paused_first": rng.random() < 0.5}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM timers")
        plan = [(params["seconds"], "paused", params["left"]), (params["other_seconds"], "running", None)]
        for length, state, rem in plan if params["paused_first"] else plan[::-1]:
            _insert_timer(phone, length, state, rem)

    def _ids(self, phone: Phone, params: dict[str, Any]) -> tuple[int, int]:
        base = {r[1]: r[0] for r in baseline_rows(phone, self, params, TIMER_SQL)}
        return base[params["seconds"]], base[params["other_seconds"]]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = diff_rows(baseline_rows(phone, self, params, TIMER_SQL),
                                            [tuple(r) for r in phone.query(TIMER_SQL)])
        pid, _ = self._ids(phone, params)
        ok = not changed and [r[0] for r in removed] == [pid] and len(added) == 1 and \
            added[0][1:] == (params["left"], "running")
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = to_tab(phone, obs, "timer")
        if step is not None:
            return step
        scr = phone.screen
        assert scr is not None
        pid, oid = self._ids(phone, params)
        now = {r[0]: (r[1], r[2]) for r in phone.query(TIMER_SQL)}
        if oid not in now or now[oid][0] != params["other_seconds"]:
            return COMPLETE  # the other timer was deleted or lengthened: nothing to put back
        added = [(i, *v) for i, v in now.items() if i not in (pid, oid)]
        good = [a for a in added if a[1:] == (params["left"], "running")]
        bad = [a for a in added if a not in good[:1]]
        if scr.state.get("setup") or not now:
            if not good and not bad and pid in now:
                return _timer_keypad(phone, obs, params["left"])
            return to_tab(phone, obs, "alarms") or COMPLETE  # leave the keypad
        if now[oid][1] != "running":
            return _card_button(phone, obs, params["other_seconds"], "timer_toggle") or COMPLETE
        if pid in now and (now[pid][0] != params["seconds"] or now[pid][1] != "paused"):
            return COMPLETE  # the paused timer was changed: its time left is lost
        if bad:
            return _card_button(phone, obs, bad[0][1], "timer_delete") or COMPLETE
        if not good:
            if pid not in now:
                return COMPLETE
            if not _seen(phone, "clock paused timer"):  # read the time left on its card first
                label = find(obs, text=f"{fmt_duration(params['seconds'])} timer", resource_id="timer_label")
                if label is None:
                    return scroll_toward(phone, obs, text=f"{fmt_duration(params['seconds'])} timer") or COMPLETE
                _note(phone, "clock paused timer")
            return click(obs, resource_id="add_timer") or scroll_toward(phone, obs, resource_id="add_timer") or \
                COMPLETE
        return _card_button(phone, obs, params["seconds"], "timer_delete") or COMPLETE


@register_task
class PauseAllRunningTimers(TaskTemplate):
    name = "clock_pause_all_running_timers"
    apps = ("Clock",)
    complexity = 3
    optimal_steps = 7
    goal_template = ("I need a break: pause every timer that is counting down right now. Leave the timers that are "
                     "already paused or finished as they are, and delete none.")
    goal_phrasings = (
        "Hold all my running timers (pause each one); the paused and finished timers stay as they are.",
        "Could you stop every timer that's still ticking, without deleting anything or touching the others?",
        "Running timers: pause them all. Paused/finished ones: leave.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        lengths = rng.sample((2, 3, 5, 8, 10, 12, 15, 20, 25, 30, 45), 5)
        states = ["running"] * rng.randint(2, 3) + ["paused", "expired"]
        states += ["running"] * (5 - len(states))
        rng.shuffle(states)
        return {"timers": [[m * 60, s] for m, s in zip(lengths, states)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM timers")
        for length, state in params["timers"]:
            _insert_timer(phone, length, state, length // 3 if state == "paused" else length - 40)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = [(i, L, "paused" if s == "running" else s) for i, L, s in baseline_rows(phone, self, params, TIMER_SQL)]
        return 1.0 if [tuple(r) for r in phone.query(TIMER_SQL)] == want else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = _on_timer_list(phone, obs)
        if step is not None:
            return step
        base = baseline_rows(phone, self, params, TIMER_SQL)
        now = {r[0]: (r[1], r[2]) for r in phone.query(TIMER_SQL)}
        if set(now) != {r[0] for r in base}:
            return COMPLETE  # a timer was added or deleted: nothing this task puts back
        for i, L, state in base:
            want = "paused" if state == "running" else state
            if now[i][1] != want:
                return _card_button(phone, obs, L, "timer_toggle") or COMPLETE
        return COMPLETE


def _says_minutes(answer: str | None, minutes: int) -> bool:
    """Whether ``answer`` states ``minutes`` ("95", "95 minutes", "1 hour 35 minutes") and no other number."""
    if answer is None:
        return False
    nums = re.findall(r"\d+", answer)
    if nums == [str(minutes)]:
        return True
    hours = re.search(r"\d+\s*(?:hours?|hrs?|h)\b", answer.lower())
    return len(nums) == 2 and hours is not None and _says_hours_minutes(answer) == minutes


@register_task
class QueryMinutesBetweenAlarms(AlarmTemplate):
    name = "clock_query_minutes_between_alarms"
    kind = "query"
    complexity = 3
    optimal_steps = 3
    goal_template = ("How many minutes after my \"{first}\" alarm does my \"{second}\" alarm ring? Answer with a "
                     "number of minutes.")
    goal_phrasings = (
        "What's the gap, in minutes, between the \"{first}\" alarm and the later \"{second}\" alarm?",
        "I'd like to know how long I have between my \"{first}\" and \"{second}\" alarms. Give it in minutes.",
        "Minutes from the \"{first}\" alarm to the \"{second}\" alarm?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        while True:
            a, b, c = sorted(rng.sample(TIMES, 3))
            gap = (b[0] - a[0]) * 60 + b[1] - a[1]
            if 10 <= gap <= 240 and (c[0] - b[0]) * 60 + c[1] - b[1] != gap:
                break
        first, second, other = rng.sample(LABELS, 3)
        return {"first": first, "second": second, "other_label": other, "first_time": list(a),
                "second_time": list(b), "other_time": list(c), "gap": gap}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # a third alarm right after the second: "minutes between the second and the next" is a near miss
        for key in ("other", "first", "second"):
            label = params["other_label"] if key == "other" else params[key]
            insert_alarm(phone, *params[f"{key}_time"], label=label, enabled=1)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if _says_minutes(answer, params["gap"]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        rows = [labelled(phone, params[k])[:1] for k in ("first", "second")]
        step = _read_rows(phone, obs, [r[0] for r in rows if r])
        if step is not None:
            return step
        return answer(f"{params['gap']} minutes")


VIB_SQL = "SELECT _id, hour, minutes, days_of_week, enabled, vibrate, label FROM alarm_templates ORDER BY _id"


@register_task
class VibrateAllAlarms(AlarmTemplate):
    name = "clock_vibrate_all_alarms"
    complexity = 3
    optimal_steps = 13
    goal_template = ("Make sure every one of my alarms vibrates. Most of them already do: open each alarm to check, "
                     "turn vibration on where it is off, and change nothing else.")
    goal_phrasings = (
        "I keep sleeping through some alarms. Every alarm should have vibration on; fix the ones that don't.",
        "Go through my alarms and switch on vibrate for any alarm that has it off. Leave everything else alone.",
        "All alarms: vibration on (some are already). Nothing else changes.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (h, m), (h2, m2) = rng.sample(TIMES, 2)
        return {"silent": [[h, m], [h2, m2]][:rng.randint(1, 2)], "labels": rng.sample(LABELS, 2),
                "days": rng.choice((0, WEEKDAYS_MASK, 0b0010101))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("UPDATE alarm_templates SET vibrate=1")
        for (h, m), label in zip(params["silent"], params["labels"]):
            aid = insert_alarm(phone, h, m, label=label, days=params["days"], enabled=1)
            phone.execute("UPDATE alarm_templates SET vibrate=0 WHERE _id=?", (aid,))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = [(*r[:5], 1, r[6]) for r in baseline_rows(phone, self, params, VIB_SQL)]
        return 1.0 if [tuple(r) for r in phone.query(VIB_SQL)] == want else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        base = baseline_rows(phone, self, params, VIB_SQL)
        if {r[0] for r in phone.query(VIB_SQL)} != {r[0] for r in base}:
            return COMPLETE  # an alarm was added or deleted: nothing this task puts back
        fix = _switch_back(phone, obs, base)
        if fix is not None:
            return fix
        scr = phone.screen
        dlg = phone.dialog
        if phone.foreground == APP and scr is not None and scr.name == "edit_alarm":
            aid = scr.args.get("alarm_id")
            a = phone.query_one("SELECT * FROM alarm_templates WHERE _id=?", (aid,)) if aid is not None else None
            if dlg is not None or a is None:
                return BACK
            d = scr.state.get("draft") or {}
            want = {"hour": a["hour"], "minute": a["minutes"], "days": a["days_of_week"]}
            if any(d.get(k) != v for k, v in want.items()) or scr.fields.get("label", "") != (a["label"] or ""):
                return click(obs, resource_id="cancel") or BACK  # a half-edited draft: throw it away
            _note(phone, f"clock vibrate {aid}")
            if not d.get("vibrate"):
                return click(obs, resource_id="vibrate_onoff") or BACK
            if not a["vibrate"]:
                return click(obs, resource_id="save") or BACK
            return click(obs, resource_id="cancel") or BACK  # vibrates already: leave unchanged
        for a in sorted(alarms(phone), key=lambda a: (a["hour"], a["minutes"], a["_id"])):
            if not _seen(phone, f"clock vibrate {a['_id']}") or not a["vibrate"]:
                return open_alarm_editor(phone, obs, a)
        return COMPLETE


@register_task
class AlarmWhenTimerEnds(AlarmTemplate):
    name = "clock_alarm_when_timer_ends"
    complexity = 3
    optimal_steps = 12
    goal_template = ("My {duration_text} timer is running. Set a one-time alarm labelled \"{label}\" for the time of "
                     "day when that timer goes off.")
    goal_phrasings = (
        ("I'll close the Timer, so I want an alarm \"{label}\" at the exact clock time my running {duration_text} "
        "timer ends. It shouldn't repeat."),
        "Work out when the {duration_text} timer will finish and add a non-repeating \"{label}\" alarm at that time.",
        "Alarm \"{label}\", no repeat, at the moment the {duration_text} timer runs out.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        mins, other = rng.sample((30, 45, 60, 90, 120, 150), 2)
        left = rng.randint(12, mins - 5)
        other_left = rng.choice([x for x in range(12, other - 3) if abs(x - left) >= 7])
        return {"seconds": mins * 60, "left": left, "other_seconds": other * 60, "other_left": other_left,
                "duration_text": f"{mins}-minute", "label": rng.choice(NEW_LABELS), "target_first": rng.random() < 0.5}

    @staticmethod
    def _at(phone: Phone, minutes: int) -> Any:
        return phone.origin[0].replace(second=0, microsecond=0) + timedelta(minutes=minutes)

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM timers")
        t = self._at(phone, params["left"])
        phone.execute("DELETE FROM alarm_templates WHERE (hour=? AND minutes=?) OR lower(label)=?",
                      (t.hour, t.minute, params["label"].lower()))
        plan = [(params["seconds"], params["left"]), (params["other_seconds"], params["other_left"])]
        for length, left in plan if params["target_first"] else plan[::-1]:
            rem = int((self._at(phone, left) - phone.now).total_seconds())
            _insert_timer(phone, length, "running", rem)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = diff_rows(baseline_rows(phone, self, params, ALARM_SQL),
                                            [tuple(r) for r in phone.query(ALARM_SQL)])
        if removed or changed or len(added) != 1:
            return 0.0
        t = self._at(phone, params["left"])
        _, h, m, days, enabled, _, label = added[0]
        ok = (h, m, days, enabled) == (t.hour, t.minute, 0, 1) and (label or "").strip().lower() == params["label"].lower()
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if not _seen(phone, "clock timer left"):  # the time left on the timer's card
            step = _on_timer_list(phone, obs)
            if step is not None:
                return step
            if find(obs, text=f"{fmt_duration(params['seconds'])} timer", resource_id="timer_label") is None:
                return scroll_toward(phone, obs, text=f"{fmt_duration(params['seconds'])} timer") or COMPLETE
            _note(phone, "clock timer left")
        if not _seen(phone, "clock time now"):  # the time now, on the Clock tab
            step = to_tab(phone, obs, "clock")
            if step is not None:
                return step
            _note(phone, "clock time now")
        t = self._at(phone, params["left"])
        return _add_alarm_step(phone, obs, baseline_rows(phone, self, params, ALARM_SQL), t.hour, t.minute, 0,
                               params["label"])


def _is_tomorrow(phone: Phone, city: str) -> bool:
    return (phone.now + timedelta(hours=CITY_INFO[city][0] - HOME_OFFSET)).date() > phone.now.date()


@register_task
class QueryCitiesAlreadyTomorrow(TaskTemplate):
    name = "clock_query_cities_already_tomorrow"
    apps = ("Clock",)
    kind = "query"
    complexity = 3
    optimal_steps = 4
    goal_template = "Which cities on my world clock have already moved on to tomorrow's date? Name all of them."
    goal_phrasings = (
        "On my world clock, where is it already tomorrow? List every such city.",
        "I need every world-clock city whose date is a day ahead of mine. Which are they?",
        "World clock: cities already on tomorrow - all of them?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        # the phone's clock (09:41 on build) puts zones of UTC+8 and more into tomorrow; UTC+7 is a near miss
        ahead = [c for c in _plain_cities() if CITY_INFO[c][0] >= 8]
        today = [c for c in _plain_cities() if CITY_INFO[c][0] < 8]
        near = [c for c in today if CITY_INFO[c][0] >= 4]
        picks = rng.sample(ahead, rng.randint(1, 3)) + [rng.choice(near)]
        picks += rng.sample([c for c in today if c not in picks], rng.randint(1, 2))
        return {"cities": sorted(picks)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM world_cities")
        for c in params["cities"]:
            _add_city(phone, c)

    def expected(self, phone: Phone, params: dict[str, Any]) -> list[str]:
        return [c for c in params["cities"] if _is_tomorrow(phone, c)]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = set(self.expected(phone, params))
        if not want:
            return 0.0
        named = {c for c in params["cities"] if answer_matches(answer, c)}
        return 1.0 if named == want else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_tab(phone, obs, "clock")
        if step is not None:
            return step
        last = params["cities"][-1]
        if find(obs, text=last, resource_id="city_item") is None:
            act = scroll_toward(phone, obs, text=last, resource_id="city_item")
            if act is not None:
                return act
        return answer(", ".join(self.expected(phone, params)))


@register_task
class WorldClockExactSet(TaskTemplate):
    name = "clock_world_clock_exact_set"
    apps = ("Clock",)
    complexity = 3
    optimal_steps = 10
    goal_template = ("I want my world clock to show exactly these cities: {first}, {second} and {third}. Some are "
                     "on it already; add the missing ones and remove any other city.")
    goal_phrasings = (
        "Make my world clock list {first}, {second} and {third} and nothing else (keep whichever of them are there).",
        "Tidy the world clock so it has just {first}, {second} and {third}: add what's missing, drop the rest.",
        "World clock = {first}, {second}, {third}. Add or remove cities to get exactly that.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        pool = _plain_cities()
        want = rng.sample(pool, 3)
        have = rng.sample(want, rng.randint(1, 2))
        extra = rng.sample([c for c in pool if c not in want], rng.randint(1, 2))
        return {"first": want[0], "second": want[1], "third": want[2], "have": sorted(have), "extra": sorted(extra)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM world_cities")
        for c in [*params["have"], *params["extra"]]:
            _add_city(phone, c)

    def _want(self, params: dict[str, Any]) -> list[str]:
        return sorted([params["first"], params["second"], params["third"]])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if [r[0] for r in phone.query(WORLD_SQL)] == self._want(params) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        want = self._want(params)
        have = [r[0] for r in phone.query(WORLD_SQL)]
        go = [c for c in have if c not in want]
        if go:
            return _city_step(phone, obs, go[0], True)
        missing = [c for c in want if c not in have]
        return _search_add_step(phone, obs, missing[0]) if missing else COMPLETE
