"""Settings app tasks: toggles (both directions), levels, choices, renaming and queries.

Checkers read the settings tables / device_info (never the agent's claims). Every set-up puts the
phone in a state that is NOT the goal, so an agent that does nothing fails.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim.apps.settings import TIMEOUTS, brightness_pct, set_brightness_pct
from droidverify.env.sim.phone import Phone
from droidverify.tasks.base import TaskTemplate
from droidverify.tasks.helpers import (
    COMPLETE,
    NavPath,
    answer,
    answer_matches,
    click,
    click_or_scroll,
    dismiss_popups,
    navigate,
)
from droidverify.tasks.registry import register_task

APP = "settings"

# Navigation paths from the Settings home to each screen (criteria of the row to tap).
TO_NETWORK: NavPath = [("main", {"text": "Network & internet"}), ("network", None)]
TO_INTERNET: NavPath = [("main", {"text": "Network & internet"}), ("network", {"text": "Internet"}),
                        ("internet", None)]
TO_BLUETOOTH: NavPath = [("main", {"text": "Connected devices"}),
                         ("connected", {"text": "Connection preferences"}),
                         ("connection_prefs", {"text": "Bluetooth"}), ("bluetooth", None)]
TO_DISPLAY: NavPath = [("main", {"text": "Display"}), ("display", None)]
TO_BRIGHTNESS: NavPath = [("main", {"text": "Display"}), ("display", {"text": "Brightness level"}),
                          ("brightness", None)]
TO_SOUND: NavPath = [("main", {"text": "Sound & vibration"}), ("sound", None)]
TO_DATETIME: NavPath = [("main", {"text": "System"}), ("system", {"text": "Date & time"}), ("datetime", None)]
TO_ABOUT: NavPath = [("main", {"text": "About phone"}), ("about", None)]
TO_ANDROID_VERSION: NavPath = [("main", {"text": "About phone"}), ("about", {"text": "Android version"}),
                               ("android_version", None)]


def _flag(phone: Phone, table: str, name: str, on_value: str = "1") -> bool:
    return phone.get_setting(table, name) == on_value


class ToggleTemplate(TaskTemplate):
    """Turn a switch on or off; the set-up puts it in the opposite state."""

    apps = ("Settings",)
    complexity = 1
    table: ClassVar[str]
    setting: ClassVar[str]
    on_value: ClassVar[str] = "1"
    off_value: ClassVar[str] = "0"
    row: ClassVar[str]  # switch row title on screen
    path: ClassVar[NavPath]
    goal_template = "Turn {state} {label}."
    label: ClassVar[str]

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"state": rng.choice(("on", "off")), "label": self.label}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting(self.table, self.setting, self.off_value if params["state"] == "on" else self.on_value)

    def _done(self, phone: Phone, params: dict[str, Any]) -> bool:
        want = self.on_value if params["state"] == "on" else self.off_value
        return phone.get_setting(self.table, self.setting) == want

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if self._done(phone, params) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self._done(phone, params):
            return COMPLETE
        return navigate(phone, obs, APP, self.path) or dismiss_popups(phone) or \
            click_or_scroll(phone, obs, text=self.row)


@register_task
class WifiToggle(ToggleTemplate):
    name = "settings_wifi_toggle"
    table, setting, row, label, path = "global", "wifi_on", "Wi‑Fi", "Wi-Fi", TO_INTERNET
    optimal_steps = 5


@register_task
class BluetoothToggle(ToggleTemplate):
    name = "settings_bluetooth_toggle"
    table, setting, row, label, path = "global", "bluetooth_on", "Use Bluetooth", "Bluetooth", TO_BLUETOOTH
    optimal_steps = 6


@register_task
class AirplaneToggle(ToggleTemplate):
    name = "settings_airplane_mode_toggle"
    table, setting, row, label, path = "global", "airplane_mode_on", "Airplane mode", "airplane mode", TO_NETWORK
    optimal_steps = 4


@register_task
class DarkThemeToggle(ToggleTemplate):
    name = "settings_dark_theme_toggle"
    table, setting, row, label, path = "secure", "ui_night_mode", "Dark theme", "dark theme", TO_DISPLAY
    on_value, off_value = "2", "1"
    optimal_steps = 4


@register_task
class AdaptiveBrightnessToggle(ToggleTemplate):
    name = "settings_adaptive_brightness_toggle"
    table, setting, row, label, path = ("system", "screen_brightness_mode", "Adaptive brightness",
                                        "adaptive brightness", TO_DISPLAY)
    optimal_steps = 4


@register_task
class AutoRotateToggle(ToggleTemplate):
    name = "settings_auto_rotate_toggle"
    table, setting, row, label, path = ("system", "accelerometer_rotation", "Auto-rotate screen",
                                        "auto-rotate screen", TO_DISPLAY)
    optimal_steps = 4


@register_task
class AutoTimeToggle(ToggleTemplate):
    name = "settings_auto_time_toggle"
    table, setting, row, label, path = ("global", "auto_time", "Set time automatically",
                                        "setting the time automatically", TO_DATETIME)
    optimal_steps = 5


@register_task
class TwentyFourHourToggle(ToggleTemplate):
    name = "settings_24h_format_toggle"
    table, setting, row, label, path = "system", "time_12_24", "Use 24-hour format", "the 24-hour time format", \
        TO_DATETIME
    on_value, off_value = "24", "12"
    optimal_steps = 5


@register_task
class WifiAndBluetoothOff(TaskTemplate):
    name = "settings_wifi_and_bluetooth_off"
    apps = ("Settings",)
    complexity = 2
    optimal_steps = 11
    goal_template = "Turn off both Wi-Fi and Bluetooth."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "wifi_on", 1)
        phone.put_setting("global", "bluetooth_on", 1)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        wifi_off = _flag(phone, "global", "wifi_on", "0")
        bt_off = _flag(phone, "global", "bluetooth_on", "0")
        return 1.0 if wifi_off and bt_off else 0.0  # one of two is a failure, not half a success

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if _flag(phone, "global", "wifi_on", "1"):
            return navigate(phone, obs, APP, TO_INTERNET) or dismiss_popups(phone) or \
                click_or_scroll(phone, obs, text="Wi‑Fi")
        if _flag(phone, "global", "bluetooth_on", "1"):
            return navigate(phone, obs, APP, TO_BLUETOOTH) or dismiss_popups(phone) or \
                click_or_scroll(phone, obs, text="Use Bluetooth")
        return COMPLETE


@register_task
class BrightnessLevel(TaskTemplate):
    name = "settings_brightness_level"
    apps = ("Settings",)
    complexity = 2
    optimal_steps = 8
    goal_template = "Set the screen brightness level to {level}%."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"level": rng.choice((0, 10, 20, 30, 40, 60, 70, 80, 90, 100)), "start": rng.choice((50, 55))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        set_brightness_pct(phone, params["start"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if brightness_pct(phone) == params["level"] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        cur = brightness_pct(phone)
        if cur == params["level"]:
            return COMPLETE
        step = navigate(phone, obs, APP, TO_BRIGHTNESS) or dismiss_popups(phone)
        if step is not None:
            return step
        desc = "Increase brightness" if cur < params["level"] else "Decrease brightness"
        return click_or_scroll(phone, obs, desc=desc)


class VolumeTemplate(TaskTemplate):
    apps = ("Settings",)
    complexity = 2
    setting: ClassVar[str]
    label: ClassVar[str]  # row title
    maximum: ClassVar[int]
    goal_template = "Set the {what} to {level} (the slider goes from 0 to {maximum})."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        start = rng.randint(1, self.maximum - 1)
        level = rng.choice([v for v in range(self.maximum + 1) if abs(v - start) in (1, 2, 3)])
        return {"what": self.label.lower(), "level": level, "start": start, "maximum": self.maximum}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("system", self.setting, params["start"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if phone.get_int("system", self.setting, -1) == params["level"] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        cur = phone.get_int("system", self.setting, 0)
        if cur == params["level"]:
            return COMPLETE
        step = navigate(phone, obs, APP, TO_SOUND) or dismiss_popups(phone)
        if step is not None:
            return step
        verb = "Increase" if cur < params["level"] else "Decrease"
        return click_or_scroll(phone, obs, desc=f"{verb} {self.label.lower()}")


@register_task
class MediaVolume(VolumeTemplate):
    name = "settings_media_volume"
    setting, label, maximum = "volume_music", "Media volume", 15
    optimal_steps = 6


@register_task
class AlarmVolume(VolumeTemplate):
    name = "settings_alarm_volume"
    setting, label, maximum = "volume_alarm", "Alarm volume", 7
    optimal_steps = 6


@register_task
class RingVolume(VolumeTemplate):
    name = "settings_ring_volume"
    setting, label, maximum = "volume_ring", "Ring & notification volume", 7
    optimal_steps = 6


@register_task
class ScreenTimeout(TaskTemplate):
    name = "settings_screen_timeout"
    apps = ("Settings",)
    optimal_steps = 5
    goal_template = "Set the screen timeout to {label}."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (label, ms), (_, start) = rng.sample(TIMEOUTS, 2)
        return {"label": label, "ms": ms, "start": start}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("system", "screen_off_timeout", params["start"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if phone.get_int("system", "screen_off_timeout") == params["ms"] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if phone.dialog is not None and phone.dialog.name == "choice" and phone.screen \
                and phone.screen.name == "display":
            return click_or_scroll(phone, obs, text=params["label"], class_contains="RadioButton")
        return navigate(phone, obs, APP, TO_DISPLAY) or dismiss_popups(phone) or \
            click_or_scroll(phone, obs, text="Screen timeout")


NAMES = ("Work Phone", "Pixel of Dana", "Kitchen Tablet", "Road Trip Phone", "Studio Pixel", "Nova",
         "Backup Phone", "Travel Pixel")


@register_task
class DeviceName(TaskTemplate):
    name = "settings_device_name"
    apps = ("Settings",)
    complexity = 2
    optimal_steps = 6
    goal_template = "Rename this phone to \"{new_name}\"."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"new_name": rng.choice(NAMES)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        pass  # seeded owner name ("Alex's Pixel 7") never equals a NAMES entry

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if phone.get_setting("global", "device_name") == params["new_name"] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        dlg = phone.dialog
        if dlg is not None and dlg.name == "text_input":
            if dlg.data.get("fields", {}).get("value") != params["new_name"]:
                i = obs.elements.index(next(e for e in obs.elements if e.is_editable))
                return Action(action_type="input_text", index=i, text=params["new_name"])
            return click(obs, text="Rename") or COMPLETE
        return navigate(phone, obs, APP, TO_ABOUT) or dismiss_popups(phone) or \
            click_or_scroll(phone, obs, text="Device name")


class QueryTemplate(TaskTemplate):
    """Read a value off a Settings screen and ``answer`` it."""

    apps = ("Settings",)
    kind = "query"
    path: ClassVar[NavPath]
    row: ClassVar[str]

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        pass

    def expected(self, phone: Phone) -> str:
        raise NotImplementedError

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer is not None and answer_matches(answer, self.expected(phone)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = navigate(phone, obs, APP, self.path) or dismiss_popups(phone)
        if step is not None:
            return step
        if click(obs, text=self.row) is None:  # make the row visible before answering
            return click_or_scroll(phone, obs, text=self.row)
        return answer(self.expected(phone))


def _device(phone: Phone, key: str) -> str:
    row = phone.query_one("SELECT value FROM device_info WHERE name=?", (key,))
    return row[0] if row else ""


@register_task
class QueryAndroidVersion(QueryTemplate):
    name = "settings_query_android_version"
    goal_template = "What Android version is this phone running? Answer with the version number."
    optimal_steps = 4
    path, row = TO_ABOUT, "Android version"

    def expected(self, phone: Phone) -> str:
        return _device(phone, "android_version")


@register_task
class QueryModel(QueryTemplate):
    name = "settings_query_model"
    goal_template = "What is the model name of this phone?"
    optimal_steps = 4
    path, row = TO_ABOUT, "Model"

    def expected(self, phone: Phone) -> str:
        return _device(phone, "model")


@register_task
class QueryBuildNumber(QueryTemplate):
    name = "settings_query_build_number"
    goal_template = "What is this phone's build number?"
    optimal_steps = 5
    path, row = TO_ABOUT, "Build number"

    def expected(self, phone: Phone) -> str:
        return _device(phone, "build_number")


@register_task
class QuerySecurityPatch(QueryTemplate):
    name = "settings_query_security_patch"
    goal_template = "What is the Android security update date on this phone?"
    optimal_steps = 5
    complexity = 2
    path, row = TO_ANDROID_VERSION, "Android security update"

    def expected(self, phone: Phone) -> str:
        return _device(phone, "security_patch")


@register_task
class QueryWifiNetwork(QueryTemplate):
    name = "settings_query_wifi_network"
    goal_template = "Which Wi-Fi network is the phone connected to? Answer with the network name."
    optimal_steps = 4
    path, row = TO_NETWORK, "Internet"

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "wifi_on", 1)
        phone.put_setting("global", "airplane_mode_on", 0)

    def expected(self, phone: Phone) -> str:
        row = phone.query_one("SELECT ssid FROM wifi_networks WHERE connected=1")
        return row[0] if row else ""
