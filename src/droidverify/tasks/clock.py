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
)
from droidverify.env.sim.phone import Phone
from droidverify.tasks.base import TaskTemplate
from droidverify.tasks.helpers import (
    BACK,
    COMPLETE,
    answer,
    answer_matches,
    baseline_rows,
    click,
    click_or_scroll,
    dismiss_popups,
    find,
    navigate,
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
            return click_or_scroll(phone, obs, text=params["city"])
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
