"""Settings app tasks: toggles (both directions), levels, choices, renaming and queries.

Checkers read the settings tables / device_info (never the agent's claims). Every set-up puts the
phone in a state that is NOT the goal, so an agent that does nothing fails.
"""

from __future__ import annotations

import random
import re
from datetime import date, timedelta
from typing import Any, ClassVar

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim.apps.settings import (
    MAIN_ROWS,
    SEARCH_INDEX,
    TIME_ZONES,
    TIMEOUTS,
    _bt_address,
    brightness_pct,
    search_key,
    set_brightness_pct,
)
from droidverify.env.sim.phone import Phone
from droidverify.env.sim.timeutil import MONTHS
from droidverify.errors import TaskError
from droidverify.tasks.base import TaskTemplate
from droidverify.tasks.helpers import (
    BACK,
    COMPLETE,
    NUMBER,
    NavPath,
    answer,
    answer_matches,
    baseline_rows,
    click,
    click_in,
    click_or_scroll,
    diff_rows,
    dismiss_popups,
    find,
    look_first,
    navigate,
    normalize_answer,
)
from droidverify.tasks.registry import register_task

APP = "settings"
DEFAULT_DAY = date(2024, 10, 15)  # the simulator's default clock (phone.now)

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
    goal_phrasings = (
        "Could you switch {state} {label}?",
        "In Settings, turn {state} {label}.",
        "Please turn {label} {state}.",
    )
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
    goal_phrasings = (
        "Please disable Wi-Fi and Bluetooth.",
        "Could you switch off Bluetooth and Wi-Fi on my phone?",
        "Wi-Fi off, Bluetooth off.",
    )

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
    goal_phrasings = (
        "Could you change the brightness to {level}%?",
        "In Settings, make the display brightness {level}%.",
        "Brightness: {level}%.",
    )

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
    goal_phrasings = (
        "Could you put the {what} at {level} out of {maximum}?",
        "In Sound settings, change the {what} to level {level} (max {maximum}).",
        "Please make the {what} {level} on its 0-{maximum} slider.",
    )

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
    goal_phrasings = (
        "Could you make the screen turn off after {label} of inactivity?",
        "In the Display settings, change the screen timeout to {label}.",
        "Screen timeout: {label}.",
    )

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
    goal_phrasings = (
        "Change the device name to \"{new_name}\".",
        "Could you call this phone \"{new_name}\" in Settings?",
        "Device name should be \"{new_name}\".",
    )

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
    goal_phrasings = (
        "Which version of Android is installed? Just give the number.",
        "Could you check in Settings which Android version this phone has (version number only)?",
    )
    optimal_steps = 4
    path, row = TO_ABOUT, "Android version"

    def expected(self, phone: Phone) -> str:
        return _device(phone, "android_version")


@register_task
class QueryModel(QueryTemplate):
    name = "settings_query_model"
    goal_template = "What is the model name of this phone?"
    goal_phrasings = (
        "Which phone model is this?",
        "Could you look up this device's model in Settings?",
    )
    optimal_steps = 4
    path, row = TO_ABOUT, "Model"

    def expected(self, phone: Phone) -> str:
        return _device(phone, "model")


@register_task
class QueryBuildNumber(QueryTemplate):
    name = "settings_query_build_number"
    goal_template = "What is this phone's build number?"
    goal_phrasings = (
        "Find this phone's build number for me.",
        "Could you tell me the build number shown in Settings?",
    )
    optimal_steps = 5
    path, row = TO_ABOUT, "Build number"

    def expected(self, phone: Phone) -> str:
        return _device(phone, "build_number")


@register_task
class QuerySecurityPatch(QueryTemplate):
    name = "settings_query_security_patch"
    goal_template = "What is the Android security update date on this phone?"
    goal_phrasings = (
        "When was this phone's last Android security update? Give the date.",
        "Could you look up the security patch date in Settings?",
    )
    optimal_steps = 5
    complexity = 2
    path, row = TO_ANDROID_VERSION, "Android security update"

    def expected(self, phone: Phone) -> str:
        return _device(phone, "security_patch")


@register_task
class QueryWifiNetwork(QueryTemplate):
    name = "settings_query_wifi_network"
    goal_template = "Which Wi-Fi network is the phone connected to? Answer with the network name."
    goal_phrasings = (
        "What's the name of the Wi-Fi network I'm on right now?",
        "Could you check in Settings which Wi-Fi network the phone is using? Give the network name.",
    )
    optimal_steps = 4
    path, row = TO_NETWORK, "Internet"

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "wifi_on", 1)
        phone.put_setting("global", "airplane_mode_on", 0)

    def expected(self, phone: Phone) -> str:
        row = phone.query_one("SELECT ssid FROM wifi_networks WHERE connected=1")
        return row[0] if row else ""


# ---- more queries: battery, IP address, saved Bluetooth devices ------------------------------------
TO_CONNECTED: NavPath = [("main", {"text": "Connected devices"}), ("connected", None)]


def _only_number(text: str, expected: str) -> bool:
    # the number must be there and be the only one: hedging ("3 or 4") or reciting the screen fails
    nums = {n.replace(",", "") for n in NUMBER.findall(text)}
    return answer_matches(text, expected) and nums == {expected.rstrip("%")}


@register_task
class QueryBatteryLevel(QueryTemplate):
    name = "settings_query_battery_level"
    goal_template = "What is the phone's current battery level? Answer with the percentage."
    goal_phrasings = (
        "How much battery do I have left, in percent?",
        "Could you check in Settings what percentage the battery is at?",
        "Battery level right now? Give the percentage.",
    )
    optimal_steps = 3
    path, row = [("main", None)], "Battery"

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"level": rng.randint(12, 97)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "battery_level", params["level"])

    def expected(self, phone: Phone) -> str:
        return f"{phone.get_int('global', 'battery_level')}%"

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer is not None and _only_number(answer, self.expected(phone)) else 0.0


@register_task
class QueryIpAddress(QueryTemplate):
    name = "settings_query_ip_address"
    goal_template = "What is this phone's IP address?"
    goal_phrasings = (
        "Find the IP address of this phone in Settings.",
        "Could you tell me which IP address the phone has?",
        "Phone IP address?",
    )
    optimal_steps = 5
    path, row = TO_ABOUT, "IP address"

    def expected(self, phone: Phone) -> str:
        return _device(phone, "ip_address")


# devices a set-up may add; none is in the seed catalog, so the count is the planted one plus the seed's 3
EXTRA_BT = (("Sony WH-1000XM5", "headphones"), ("Fitbit Charge 6", "watch"), ("Anker Soundcore 2", "speaker"),
            ("Honda Civic", "car"), ("MX Master 3S", "mouse"))


@register_task
class QuerySavedBluetoothCount(QueryTemplate):
    name = "settings_query_bluetooth_device_count"
    goal_template = "How many Bluetooth devices are saved (paired) on this phone?"
    goal_phrasings = (
        "Count the saved Bluetooth devices on this phone for me.",
        "Could you check in Settings how many Bluetooth devices my phone is paired with?",
        "Number of paired Bluetooth devices?",
    )
    complexity = 2
    optimal_steps = 4
    path, row = TO_CONNECTED, "Connection preferences"  # the last row: every saved device is above it

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        picked = [n for n, _ in rng.sample(EXTRA_BT, rng.randint(0, 2) + 1)]
        # the last one was paired once and forgotten: still in the table, not shown, not counted
        return {"extra": picked[:-1], "forgotten": picked[-1]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        kinds = dict(EXTRA_BT)
        for name in params["extra"]:
            phone.execute("INSERT INTO bluetooth_devices(name, type, paired, connected) VALUES(?,?,1,0)",
                          (name, kinds[name]))
        phone.execute("INSERT INTO bluetooth_devices(name, type, paired, connected) VALUES(?,?,0,0)",
                      (params["forgotten"], kinds[params["forgotten"]]))

    def expected(self, phone: Phone) -> str:
        return str(phone.query_one("SELECT COUNT(*) FROM bluetooth_devices WHERE paired=1")[0])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer is not None and _only_number(answer, self.expected(phone)) else 0.0


# ---- Wi-Fi and Bluetooth connections (near-miss names) --------------------------------------------
# (one, look-alike): the goal names one of the two; both are saved, so connecting the wrong one works too
WIFI_PAIRS = (("Hotel Lumen Guest", "Hotel Lumen Staff"), ("Maple-Home", "Maple-Home-5G"),
              ("CoffeeLab Free", "CoffeeLab Free 2"), ("Airport_WiFi", "Airport_WiFi_Premium"),
              ("Office Guest", "Office Guest 5GHz"), ("Dana's Hotspot", "Dan's Hotspot"))
BT_PAIRS = (("Pixel Buds Pro", "Pixel Buds A-Series"), ("JBL Flip 5", "JBL Flip 6"), ("Bose QC45", "Bose QC Earbuds"),
            ("Galaxy Watch5", "Galaxy Watch4"), ("Sony WH-1000XM4", "Sony WH-1000XM5"),
            ("Toyota Camry", "Toyota RAV4"))
BT_KINDS = {"Pixel": "headphones", "JBL": "speaker", "Bose": "headphones", "Galaxy": "watch", "Sony": "headphones",
            "Toyota": "car"}


def _pair(rng: random.Random, pairs: tuple[tuple[str, str], ...]) -> tuple[str, str]:
    a, b = rng.choice(pairs)
    return (a, b) if rng.random() < 0.5 else (b, a)


@register_task
class ConnectWifi(TaskTemplate):
    name = "settings_connect_wifi_network"
    apps = ("Settings",)
    complexity = 2
    optimal_steps = 5
    goal_template = "Connect the phone to the Wi-Fi network \"{ssid}\"."
    goal_phrasings = (
        "Could you switch my Wi-Fi over to \"{ssid}\"?",
        "In Settings, join the saved network \"{ssid}\".",
        "Wi-Fi: connect to \"{ssid}\".",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        ssid, decoy = _pair(rng, WIFI_PAIRS)
        return {"ssid": ssid, "decoy": decoy, "wifi_on": rng.choice((0, 1)), "signal": rng.randint(1, 4)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "wifi_on", params["wifi_on"])
        phone.put_setting("global", "airplane_mode_on", 0)
        for ssid, signal in ((params["ssid"], params["signal"]), (params["decoy"], 5 - params["signal"])):
            phone.execute("INSERT INTO wifi_networks(ssid, security, signal, saved, connected) "
                          "VALUES(?, 'WPA2', ?, 1, 0)", (ssid, signal))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        joined = [r[0] for r in phone.query("SELECT ssid FROM wifi_networks WHERE connected=1")]
        return 1.0 if _flag(phone, "global", "wifi_on") and joined == [params["ssid"]] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = navigate(phone, obs, APP, TO_INTERNET) or dismiss_popups(phone)
        if step is not None:
            return step
        if not _flag(phone, "global", "wifi_on"):
            return click_or_scroll(phone, obs, text="Wi‑Fi")
        return click_or_scroll(phone, obs, text=params["ssid"], resource_id="wifi_entry")


class BluetoothDeviceTemplate(TaskTemplate):
    """Act on one saved Bluetooth device that has a saved look-alike (``decoy``)."""

    apps = ("Settings",)
    complexity = 2

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        device, decoy = _pair(rng, BT_PAIRS)
        return {"device": device, "decoy": decoy, "bt_on": rng.choice((0, 1))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "bluetooth_on", params["bt_on"])
        for name in (params["device"], params["decoy"]):
            phone.execute("DELETE FROM bluetooth_devices WHERE name=?", (name,))
            phone.execute("INSERT INTO bluetooth_devices(name, type, paired, connected) VALUES(?,?,1,0)",
                          (name, BT_KINDS[name.split()[0]]))

    def changes(self, phone: Phone, params: dict[str, Any]) -> tuple[list, list, list]:
        sql = "SELECT _id, name, paired, connected FROM bluetooth_devices ORDER BY _id"
        return diff_rows(baseline_rows(phone, self, params, sql), [tuple(r) for r in phone.query(sql)])

    def device_id(self, phone: Phone, params: dict[str, Any]) -> int:
        return phone.query_one("SELECT _id FROM bluetooth_devices WHERE name=?", (params["device"],))[0]

    def open_device(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action | None:
        """Next action toward the device's details screen; None once there (no popup open)."""
        scr = phone.screen
        if phone.foreground == APP and scr is not None and scr.name == "bt_device" \
                and scr.args.get("device_id") == self.device_id(phone, params):
            return dismiss_popups(phone)
        if phone.foreground == APP and scr is not None and scr.name == "bt_device":
            return BACK  # the look-alike's page
        return navigate(phone, obs, APP, TO_CONNECTED) or dismiss_popups(phone) or \
            click_or_scroll(phone, obs, text=params["device"], resource_id="bt_device")


@register_task
class ConnectBluetoothDevice(BluetoothDeviceTemplate):
    name = "settings_connect_bluetooth_device"
    optimal_steps = 8
    goal_template = "Connect my \"{device}\" to the phone over Bluetooth."
    goal_phrasings = (
        "Could you connect the phone to the saved Bluetooth device \"{device}\"?",
        "Bluetooth: connect to \"{device}\".",
        "I want to use my \"{device}\" now; connect it via Bluetooth in Settings.",
    )

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = self.changes(phone, params)
        ok = _flag(phone, "global", "bluetooth_on") and not added and not removed and len(changed) == 1 \
            and changed[0][1][1] == params["device"] and changed[0][1][2:] == (1, 1)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if not _flag(phone, "global", "bluetooth_on"):
            return navigate(phone, obs, APP, TO_BLUETOOTH) or dismiss_popups(phone) or \
                click_or_scroll(phone, obs, text="Use Bluetooth")
        return self.open_device(phone, params, obs) or click(obs, text="Connect", resource_id="btn_connect") or BACK


@register_task
class ForgetBluetoothDevice(BluetoothDeviceTemplate):
    name = "settings_forget_bluetooth_device"
    optimal_steps = 6
    goal_template = "Forget the Bluetooth device \"{device}\" so the phone is no longer paired with it."
    goal_phrasings = (
        "Unpair \"{device}\" from this phone.",
        "Could you remove \"{device}\" from my saved Bluetooth devices?",
        "In Settings, forget the saved device \"{device}\".",
    )

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = self.changes(phone, params)
        ok = not added and not removed and len(changed) == 1 and changed[0][1][1] == params["device"] \
            and changed[0][1][2] == 0
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        dlg = phone.dialog
        if dlg is not None and dlg.name == "confirm" and phone.foreground == APP \
                and dlg.data.get("args", {}).get("device_id") == self.device_id(phone, params):
            return click_in(obs, "dialog", text="Forget device") or BACK
        return self.open_device(phone, params, obs) or click(obs, text="Forget", resource_id="btn_forget") or BACK


# ---- date & time ---------------------------------------------------------------------------------
ZONE_NAMES = tuple(z.split(" ", 1)[1] for z in TIME_ZONES)  # "Eastern Standard Time", ...


@register_task
class SetTimeZone(TaskTemplate):
    name = "settings_set_time_zone"
    apps = ("Settings",)
    complexity = 2
    optimal_steps = 8
    goal_template = "Change the phone's time zone to {zone_name}."
    goal_phrasings = (
        "I'm travelling: set the time zone to {zone_name} by hand.",
        "Could you switch this phone to {zone_name}?",
        "Time zone: {zone_name}.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        i = rng.randrange(1, len(TIME_ZONES))
        return {"zone_name": ZONE_NAMES[i], "zone": TIME_ZONES[i]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "auto_time_zone", 1)
        phone.put_setting("global", "time_zone", TIME_ZONES[0])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        # automatic time zone back on would overwrite the choice on a real phone
        ok = phone.get_setting("global", "time_zone") == params["zone"] and _flag(phone, "global", "auto_time_zone", "0")
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        scr, dlg = phone.screen, phone.dialog
        if dlg is not None and dlg.name == "choice" and phone.foreground == APP and scr is not None \
                and scr.name == "datetime":
            return click_in(obs, "dialog", text=params["zone"]) or BACK
        step = navigate(phone, obs, APP, TO_DATETIME) or dismiss_popups(phone)
        if step is not None:
            return step
        if _flag(phone, "global", "auto_time_zone"):
            return click_or_scroll(phone, obs, text="Set time zone automatically")
        return click_or_scroll(phone, obs, text="Time zone")


@register_task
class SetDateManually(TaskTemplate):
    name = "settings_set_date_manually"
    apps = ("Settings",)
    complexity = 3
    optimal_steps = 10
    goal_template = "Turn off automatic date & time and set the phone's date to {date_text}."
    goal_phrasings = (
        "Stop the phone from setting its time automatically, then change the date to {date_text}.",
        "Could you set the date by hand to {date_text}? Automatic time has to be off for that.",
        "Manual date: {date_text} (automatic time off).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        day = DEFAULT_DAY + timedelta(days=rng.choice([d for d in range(-40, 41) if d]))
        return {"date": day.isoformat(), "date_text": f"{MONTHS[day.month - 1]} {day.day}, {day.year}"}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "auto_time", 1)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = phone.now.date().isoformat() == params["date"] and _flag(phone, "global", "auto_time", "0")
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        want = date.fromisoformat(params["date"])
        scr, dlg = phone.screen, phone.dialog
        if dlg is not None and dlg.name == "date_picker" and phone.foreground == APP and scr is not None \
                and scr.name == "datetime":
            d = dlg.data
            cur, goal = int(d["year"]) * 12 + int(d["month"]), want.year * 12 + want.month
            if cur != goal:
                return click_in(obs, "dialog", desc="Next month" if goal > cur else "Previous month") or BACK
            if int(d["day"]) != want.day:
                i = find(obs, editable=True, resource_id="day")
                return BACK if i is None else Action(action_type="input_text", index=i, text=str(want.day))
            return click_in(obs, "dialog", text="OK", resource_id="button1") or BACK
        step = navigate(phone, obs, APP, TO_DATETIME) or dismiss_popups(phone)
        if step is not None:
            return step
        if _flag(phone, "global", "auto_time"):
            return click_or_scroll(phone, obs, text="Set time automatically")
        return click_or_scroll(phone, obs, text="Date")


# ---- several display settings at once -------------------------------------------------------------
@register_task
class NightDisplaySetup(TaskTemplate):
    name = "settings_night_display_setup"
    apps = ("Settings",)
    complexity = 3
    optimal_steps = 12
    goal_template = ("Get the display ready for the night: turn on dark theme, lower the brightness to {level}% "
                     "and set the screen timeout to {timeout}.")
    goal_phrasings = (
        ("Could you switch on dark theme, set the screen brightness to {level}% and make the screen time out "
         "after {timeout}?"),
        "Display settings: dark theme on, brightness {level}%, screen timeout {timeout}.",
        "Set the screen timeout to {timeout}, the brightness to {level}% and enable the dark theme.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (label, ms), (_, start_ms) = rng.sample(TIMEOUTS, 2)
        return {"level": rng.choice((10, 20, 30)), "start": rng.choice((50, 60, 70)), "timeout": label, "ms": ms,
                "start_ms": start_ms}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("secure", "ui_night_mode", 1)
        set_brightness_pct(phone, params["start"])
        phone.put_setting("system", "screen_off_timeout", params["start_ms"])

    def _parts(self, phone: Phone, params: dict[str, Any]) -> tuple[bool, bool, bool]:
        return (phone.get_setting("secure", "ui_night_mode") == "2", brightness_pct(phone) == params["level"],
                phone.get_int("system", "screen_off_timeout") == params["ms"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if all(self._parts(phone, params)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        dark, bright, timeout = self._parts(phone, params)
        if dark and bright and timeout:
            return COMPLETE
        scr, dlg = phone.screen, phone.dialog
        if not bright:
            step = navigate(phone, obs, APP, TO_BRIGHTNESS) or dismiss_popups(phone)
            if step is not None:
                return step
            desc = "Increase brightness" if brightness_pct(phone) < params["level"] else "Decrease brightness"
            return click_or_scroll(phone, obs, desc=desc)
        if not timeout and dlg is not None and dlg.name == "choice" and scr is not None and scr.name == "display":
            return click_or_scroll(phone, obs, text=params["timeout"], class_contains="RadioButton")
        step = navigate(phone, obs, APP, TO_DISPLAY) or dismiss_popups(phone)
        if step is not None:
            return step
        return click_or_scroll(phone, obs, text="Dark theme" if not dark else "Screen timeout")


# ---- more kinds: bulk Bluetooth changes, relative edits, read-then-write, search -----------------
BT_SQL = "SELECT _id, name, paired, connected FROM bluetooth_devices ORDER BY _id"


def _bt_rows(phone: Phone) -> list[tuple]:
    return [tuple(r) for r in phone.query(BT_SQL)]


@register_task
class DisconnectAllBluetooth(TaskTemplate):
    name = "settings_disconnect_all_bluetooth"
    apps = ("Settings",)
    complexity = 2
    optimal_steps = 8
    goal_template = "Disconnect all my Bluetooth devices, but keep Bluetooth itself turned on."
    goal_phrasings = (
        "Could you disconnect every device that's connected over Bluetooth? Leave Bluetooth on.",
        "Bluetooth should stay on, but nothing should be connected to it anymore.",
        "In Settings, disconnect everything connected via Bluetooth without switching Bluetooth off.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        extra = rng.choice([None] + [n for n, _ in EXTRA_BT])
        return {"connected": rng.choice((2, 3)), "extra": extra}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "bluetooth_on", 1)
        if params["extra"]:
            phone.execute("INSERT INTO bluetooth_devices(name, type, paired, connected) VALUES(?,?,1,0)",
                          (params["extra"], dict(EXTRA_BT)[params["extra"]]))
        phone.execute("UPDATE bluetooth_devices SET connected=1 WHERE _id IN "
                      "(SELECT _id FROM bluetooth_devices WHERE paired=1 ORDER BY name LIMIT ?)",
                      (params["connected"],))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = diff_rows(baseline_rows(phone, self, params, BT_SQL), _bt_rows(phone))
        kept = all(old[:3] == new[:3] for old, new in changed)  # nothing forgotten, only disconnected
        none_left = phone.query_one("SELECT COUNT(*) FROM bluetooth_devices WHERE connected=1")[0] == 0
        ok = _flag(phone, "global", "bluetooth_on") and not added and not removed and kept and none_left
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if not _flag(phone, "global", "bluetooth_on"):
            return navigate(phone, obs, APP, TO_BLUETOOTH) or dismiss_popups(phone) or \
                click_or_scroll(phone, obs, text="Use Bluetooth")
        scr = phone.screen
        if phone.foreground == APP and scr is not None and scr.name == "bt_device":
            row = phone.query_one("SELECT connected FROM bluetooth_devices WHERE _id=?",
                                  (scr.args.get("device_id"),))
            if phone.dialog is None and row is not None and row[0]:
                return click(obs, text="Disconnect", resource_id="btn_connect") or BACK
            return BACK
        return navigate(phone, obs, APP, TO_CONNECTED) or dismiss_popups(phone) or \
            click_or_scroll(phone, obs, text="Connected", resource_id="bt_device")


@register_task
class ForgetBluetoothExcept(BluetoothDeviceTemplate):
    name = "settings_forget_bluetooth_except"
    complexity = 3
    optimal_steps = 15
    goal_template = "Forget every saved Bluetooth device except my \"{device}\"; that one stays paired."
    goal_phrasings = (
        "Clean up my Bluetooth list: unpair everything but \"{device}\".",
        "Could you remove all saved Bluetooth devices from this phone, keeping only \"{device}\"?",
        "Keep \"{device}\" paired and forget all the other saved Bluetooth devices.",
    )

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = self.changes(phone, params)
        paired = [r[0] for r in phone.query("SELECT name FROM bluetooth_devices WHERE paired=1")]
        keep = phone.query_one("SELECT paired FROM bluetooth_devices WHERE name=?", (params["device"],))
        untouched = all(new[1] != params["device"] for _, new in changed)
        kept = keep is not None and keep[0] == 1
        ok = not added and not removed and paired == [params["device"]] and kept and untouched
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        keep_id = self.device_id(phone, params)
        scr, dlg = phone.screen, phone.dialog
        if phone.foreground == APP and scr is not None and scr.name == "bt_device":
            on_keep = scr.args.get("device_id") == keep_id
            if dlg is not None and dlg.name == "confirm" and not on_keep:
                return click_in(obs, "dialog", text="Forget device") or BACK
            if dlg is not None or on_keep:
                return BACK
            return click_or_scroll(phone, obs, text="Forget", resource_id="btn_forget")
        step = navigate(phone, obs, APP, TO_CONNECTED) or dismiss_popups(phone)
        if step is not None:
            return step
        other = phone.query_one("SELECT name FROM bluetooth_devices WHERE paired=1 AND name<>? ORDER BY name",
                                (params["device"],))
        return click_or_scroll(phone, obs, text=other[0], resource_id="bt_device")


def _say_hm(h: int, m: int) -> str:
    return f"{h % 12 or 12}:{m:02d} {'AM' if h < 12 else 'PM'}"


@register_task
class FixClockOffset(TaskTemplate):
    name = "settings_fix_clock_offset"
    apps = ("Settings",)
    complexity = 3
    optimal_steps = 9
    goal_template = ("My phone's clock is {minutes} minutes {direction}. Turn off automatic time and correct "
                     "the time by hand (the date is right).")
    goal_phrasings = (
        ("The time on this phone is {minutes} minutes {direction}; set it right manually, with automatic "
         "time off."),
        ("Could you fix the clock? It's {minutes} minutes {direction}. Set the time yourself instead of "
         "automatically."),
        "Clock {minutes} minutes {direction}: switch off automatic date & time and correct it, same date.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        start = rng.randint(8 * 60, 20 * 60 - 1)
        minutes = rng.choice((5, 10, 12, 15, 20, 25, 30, 45))
        direction = rng.choice(("slow", "fast"))
        target = start + minutes if direction == "slow" else start - minutes
        return {"minutes": minutes, "direction": direction, "start": [start // 60, start % 60],
                "target": [target // 60, target % 60]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "auto_time", 1)
        h, m = params["start"]
        phone.now = phone.now.replace(hour=h, minute=m, second=0)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        now = phone.now
        ok = [now.hour, now.minute] == list(params["target"]) and now.date() == DEFAULT_DAY \
            and _flag(phone, "global", "auto_time", "0")
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        h, m = params["target"]
        scr, dlg = phone.screen, phone.dialog
        if dlg is not None and dlg.name == "time_picker" and phone.foreground == APP and scr is not None \
                and scr.name == "datetime":
            fields = dlg.data.get("fields", {})
            want_h = str(h if phone.uses_24h else (h % 12 or 12))
            if fields.get("hour") != want_h:
                i = find(obs, editable=True, resource_id="hour")
                return BACK if i is None else Action(action_type="input_text", index=i, text=want_h)
            if fields.get("minute") != f"{m:02d}" or int(dlg.data["minute"]) != m:
                i = find(obs, editable=True, resource_id="minute")
                return BACK if i is None else Action(action_type="input_text", index=i, text=f"{m:02d}")
            if not phone.uses_24h and (int(dlg.data["hour"]) >= 12) != (h >= 12):
                return click_in(obs, "dialog", resource_id="pm_label" if h >= 12 else "am_label") or BACK
            return click_in(obs, "dialog", text="OK", resource_id="button1") or BACK
        if dlg is not None and dlg.name == "date_picker" and phone.foreground == APP and scr is not None \
                and scr.name == "datetime":
            d = dlg.data
            cur, goal = int(d["year"]) * 12 + int(d["month"]), DEFAULT_DAY.year * 12 + DEFAULT_DAY.month
            if cur != goal:
                return click_in(obs, "dialog", desc="Next month" if goal > cur else "Previous month") or BACK
            if int(d["day"]) != DEFAULT_DAY.day:
                i = find(obs, editable=True, resource_id="day")
                day = str(DEFAULT_DAY.day)
                return BACK if i is None else Action(action_type="input_text", index=i, text=day)
            return click_in(obs, "dialog", text="OK", resource_id="button1") or BACK
        step = navigate(phone, obs, APP, TO_DATETIME) or dismiss_popups(phone)
        if step is not None:
            return step
        if _flag(phone, "global", "auto_time"):
            return click_or_scroll(phone, obs, text="Set time automatically")
        if phone.now.date() != DEFAULT_DAY:  # a wrong date picked by mistake: put it back
            return click_or_scroll(phone, obs, text="Date")
        return click_or_scroll(phone, obs, text="Time")


@register_task
class AlarmVolumeLikeRing(TaskTemplate):
    name = "settings_alarm_volume_like_ring"
    apps = ("Settings",)
    complexity = 2
    optimal_steps = 5
    goal_template = "Set the alarm volume to the same level as the ring & notification volume is now."
    goal_phrasings = (
        "Could you make my alarm exactly as loud as my ringtone? Match the alarm volume to the ring volume.",
        "Match the alarm volume slider to the ring & notification volume slider (leave the ring one as is).",
        "In Sound settings, change the alarm volume so it equals the current ring & notification volume.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        ring = rng.randint(1, 6)
        alarm = rng.choice([v for v in range(8) if 1 <= abs(v - ring) <= 3])
        return {"ring": ring, "alarm": alarm, "media": rng.randint(3, 12), "call": rng.randint(1, 4)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for key, name in (("ring", "volume_ring"), ("alarm", "volume_alarm"), ("media", "volume_music"),
                          ("call", "volume_voice")):
            phone.put_setting("system", name, params[key])

    def _levels(self, phone: Phone) -> tuple[int, int, int, int]:
        return tuple(phone.get_int("system", n, -1)  # type: ignore[return-value]
                     for n in ("volume_ring", "volume_alarm", "volume_music", "volume_voice"))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = (params["ring"], params["ring"], params["media"], params["call"])
        return 1.0 if self._levels(phone) == want else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = navigate(phone, obs, APP, TO_SOUND) or dismiss_popups(phone)
        if step is not None:
            return step
        ring, alarm, media, call = self._levels(phone)
        for cur, want, label in ((ring, params["ring"], "ring & notification volume"),
                                 (alarm, params["ring"], "alarm volume"),
                                 (media, params["media"], "media volume"),
                                 (call, params["call"], "call volume")):
            if cur != want:
                verb = "Increase" if cur < want else "Decrease"
                return click_or_scroll(phone, obs, desc=f"{verb} {label}")
        return COMPLETE


OPEN_SSIDS = ("Terrace-AP", "Guest_7F2A", "Bldg4-Lobby", "Harbor Cafe", "MeetingRoom-B", "Corner Bakery")
LOCKED_SSIDS = ("Zephyr-Home", "ATT-5G-91C2", "Penthouse_2", "Mesh-Node-3", "BlueWave", "Orchid-WLAN")


@register_task
class JoinOpenWifi(TaskTemplate):
    name = "settings_join_open_wifi"
    apps = ("Settings",)
    complexity = 2
    optimal_steps = 6
    goal_template = "Connect to the Wi-Fi network that doesn't need a password (only one network is open)."
    goal_phrasings = (
        "Find the one open Wi-Fi network, the one with no password, and join it.",
        "Could you switch my Wi-Fi to the only available network that isn't password-protected?",
        "Join whichever Wi-Fi network is open (no password needed); it's the only one like that.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"ssid": rng.choice(OPEN_SSIDS), "locked": rng.sample(LOCKED_SSIDS, 2),
                "signal": rng.randint(1, 3), "wifi_on": rng.choice((0, 1))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "wifi_on", params["wifi_on"])
        phone.put_setting("global", "airplane_mode_on", 0)
        phone.execute("UPDATE wifi_networks SET security='WPA2' WHERE security='Open'")
        phone.execute("INSERT INTO wifi_networks(ssid, security, signal, saved, connected) "
                      "VALUES(?, 'Open', ?, 0, 0)", (params["ssid"], params["signal"]))
        for ssid in params["locked"]:  # stronger, listed above it
            phone.execute("INSERT INTO wifi_networks(ssid, security, signal, saved, connected) "
                          "VALUES(?, 'WPA3', 4, 0, 0)", (ssid,))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        joined = [r[0] for r in phone.query("SELECT ssid FROM wifi_networks WHERE connected=1")]
        return 1.0 if _flag(phone, "global", "wifi_on") and joined == [params["ssid"]] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = navigate(phone, obs, APP, TO_INTERNET) or dismiss_popups(phone)
        if step is not None:
            return step
        if not _flag(phone, "global", "wifi_on"):
            return click_or_scroll(phone, obs, text="Wi‑Fi")
        return click_or_scroll(phone, obs, text=params["ssid"], resource_id="wifi_entry")


@register_task
class DeviceNameWithModel(TaskTemplate):
    name = "settings_device_name_with_model"
    apps = ("Settings",)
    complexity = 2
    optimal_steps = 7
    goal_template = ("Rename this phone to \"{prefix}\" followed by a space and the phone's model name "
                     "(as shown under Model in About phone).")
    goal_phrasings = (
        ("Change the device name to the word \"{prefix}\", a space, then this phone's model (look it up in "
         "About phone)."),
        "Could you name this phone \"{prefix} <model>\", using its real model name from Settings?",
        "Device name: \"{prefix}\" plus a space plus the model name shown in About phone.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"prefix": rng.choice(("Work", "Travel", "Kitchen", "Studio", "Backup", "Dana's", "Office"))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        pass  # the seeded name is "<owner>'s <model>" with owners that are never a prefix here

    def _want(self, phone: Phone, params: dict[str, Any]) -> str:
        return f"{params['prefix']} {_device(phone, 'model')}"

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if phone.get_setting("global", "device_name") == self._want(phone, params) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        want = self._want(phone, params)
        dlg = phone.dialog
        scr = phone.screen
        if dlg is not None and dlg.name == "text_input" and phone.foreground == APP and scr is not None \
                and scr.name == "about":
            if dlg.data.get("fields", {}).get("value") != want:
                i = find(obs, editable=True)
                return BACK if i is None else Action(action_type="input_text", index=i, text=want)
            return click_in(obs, "dialog", text="Rename") or BACK
        return navigate(phone, obs, APP, TO_ABOUT) or dismiss_popups(phone) or \
            click_or_scroll(phone, obs, text="Device name")


@register_task
class DoubleScreenTimeout(TaskTemplate):
    name = "settings_double_screen_timeout"
    apps = ("Settings",)
    optimal_steps = 5
    goal_template = "Make the screen stay on twice as long as it does now before it times out."
    goal_phrasings = (
        "Could you double the current screen timeout?",
        "My screen turns off too fast: set the screen timeout to twice what it is now.",
        "In Display settings, change the screen timeout to double its current value.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        start = rng.choice((15000, 30000, 60000, 300000))
        return {"start": start, "ms": 2 * start}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("system", "screen_off_timeout", params["start"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if phone.get_int("system", "screen_off_timeout") == params["ms"] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        label = next(lbl for lbl, ms in TIMEOUTS if ms == params["ms"])
        if phone.dialog is not None and phone.dialog.name == "choice" and phone.screen \
                and phone.screen.name == "display":
            return click_or_scroll(phone, obs, text=label, class_contains="RadioButton")
        return navigate(phone, obs, APP, TO_DISPLAY) or dismiss_popups(phone) or \
            click_or_scroll(phone, obs, text="Screen timeout")


# ---- queries: a device's details page, a scan of sliders, a switch, arithmetic, search ---------------
@register_task
class QueryBluetoothAddress(BluetoothDeviceTemplate):
    name = "settings_query_bluetooth_address"
    kind = "query"
    optimal_steps = 5
    goal_template = "What is the Bluetooth address of my saved device \"{device}\"?"
    goal_phrasings = (
        "Look up the Bluetooth (MAC) address of \"{device}\" in Settings.",
        "Could you tell me the device's Bluetooth address for my \"{device}\"?",
        "\"{device}\": what Bluetooth address does Settings show for it?",
    )

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        return _bt_address(self.device_id(phone, params))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        decoy = phone.query_one("SELECT _id FROM bluetooth_devices WHERE name=?", (params["decoy"],))[0]
        ok = answer_matches(answer, self.expected(phone, params)) \
            and not answer_matches(answer, _bt_address(decoy))  # both addresses: a hedge
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = self.open_device(phone, params, obs)
        if step is not None:
            return step
        want = self.expected(phone, params)
        if click(obs, text=want) is None:
            return click_or_scroll(phone, obs, text=want)
        return answer(want)


VOLUME_WORDS = (("media", ("media",)), ("call", ("call",)), ("ring", ("ring", "notification", "ringer")),
                ("alarm", ("alarm",)))
VOLUME_SETTINGS = {"media": ("volume_music", 15), "call": ("volume_voice", 5), "ring": ("volume_ring", 7),
                   "alarm": ("volume_alarm", 7)}


@register_task
class QueryMutedVolume(TaskTemplate):
    name = "settings_query_muted_volume"
    apps = ("Settings",)
    kind = "query"
    optimal_steps = 4
    goal_template = "One of my volume sliders is turned all the way down. Which one is it?"
    goal_phrasings = (
        "Which volume setting is at zero right now? Check Sound & vibration.",
        "Something on my phone is muted. Which of the volume sliders is set to 0?",
        "Could you find the volume that's turned down completely and tell me which one it is?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        muted = rng.choice([k for k, _ in VOLUME_WORDS])
        levels = {k: (0 if k == muted else rng.randint(1, mx - 1)) for k, (_, mx) in VOLUME_SETTINGS.items()}
        return {"muted": muted, "levels": levels}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for k, (setting, _) in VOLUME_SETTINGS.items():
            phone.put_setting("system", setting, params["levels"][k])

    def expected(self, params: dict[str, Any]) -> str:
        # the slider that was at 0 when asked (a slider the agent moves afterwards does not change the answer)
        return {"media": "Media volume", "call": "Call volume", "ring": "Ring & notification volume",
                "alarm": "Alarm volume"}[params["muted"]]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if answer is None:
            return 0.0
        tokens = set(normalize_answer(answer))
        named = {k for k, words in VOLUME_WORDS if tokens & set(words)}
        return 1.0 if named == {params["muted"]} else 0.0  # naming two is a hedge

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = navigate(phone, obs, APP, TO_SOUND) or dismiss_popups(phone)
        if step is not None:
            return step
        want = self.expected(params)
        if find(obs, text=want) is None:
            return click_or_scroll(phone, obs, text=want)
        return answer(want)


# (what the goal calls it, row title on screen, table, setting, value when on, path)
SWITCHES = (
    ("auto-rotate screen", "Auto-rotate screen", "system", "accelerometer_rotation", "1", TO_DISPLAY),
    ("adaptive brightness", "Adaptive brightness", "system", "screen_brightness_mode", "1", TO_DISPLAY),
    ("the 24-hour time format", "Use 24-hour format", "system", "time_12_24", "24", TO_DATETIME),
    ("automatic time zone", "Set time zone automatically", "global", "auto_time_zone", "1", TO_DATETIME),
    ("airplane mode", "Airplane mode", "global", "airplane_mode_on", "1", TO_NETWORK),
)
ON_WORDS, OFF_WORDS = {"on", "yes", "enabled"}, {"off", "no", "disabled", "not"}


@register_task
class QuerySwitchState(TaskTemplate):
    name = "settings_query_switch_state"
    apps = ("Settings",)
    kind = "query"
    optimal_steps = 4
    goal_template = "Is {label} turned on or off on this phone right now? Answer on or off."
    goal_phrasings = (
        "Could you check in Settings whether {label} is on? Just say on or off.",
        "I want to know if {label} is enabled. On or off?",
        "On or off: {label}?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        i = rng.randrange(len(SWITCHES))
        return {"label": SWITCHES[i][0], "switch": i, "on": rng.choice((0, 1))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        _, _, table, setting, on_value, _ = SWITCHES[params["switch"]]
        off_value = "12" if on_value == "24" else "0"
        phone.put_setting(table, setting, on_value if params["on"] else off_value)

    def expected(self, params: dict[str, Any]) -> str:
        return "On" if params["on"] else "Off"  # as set up: flipping it afterwards does not change the answer

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if answer is None:
            return 0.0
        tokens = set(normalize_answer(answer))
        says_on, says_off = bool(tokens & ON_WORDS), bool(tokens & OFF_WORDS)
        if says_on == says_off:  # neither, or both (hedge / "not on")
            return 0.0
        return 1.0 if says_on == bool(params["on"]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        _, row, _, _, _, path = SWITCHES[params["switch"]]
        step = navigate(phone, obs, APP, path) or dismiss_popups(phone)
        if step is not None:
            return step
        if find(obs, text=row) is None:
            return click_or_scroll(phone, obs, text=row)
        return answer(self.expected(params))


@register_task
class QueryFreeStorage(TaskTemplate):
    name = "settings_query_free_storage"
    apps = ("Settings",)
    kind = "query"
    optimal_steps = 3
    goal_template = "What percentage of this phone's storage is still free? Answer with the percentage."
    goal_phrasings = (
        "How much of my storage is left unused, in percent?",
        "Could you check in Settings what percent of the phone's storage is free?",
        "Free storage, as a percentage of the total?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"used": rng.randint(31, 92)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("UPDATE device_info SET value=? WHERE name='storage_used'", (f"{params['used']}%",))

    def expected(self, phone: Phone) -> str:
        return f"{100 - int(_device(phone, 'storage_used').rstrip('%'))}%"

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if answer is None:
            return 0.0
        free = self.expected(phone).rstrip("%")
        total = _device(phone, "storage_total").split()[0]
        nums = {n.replace(",", "") for n in NUMBER.findall(answer)}
        return 1.0 if free in nums and nums <= {free, total} else 0.0  # the used share or a hedge fails

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = navigate(phone, obs, APP, [("main", None)]) or dismiss_popups(phone)
        if step is not None:
            return step
        if find(obs, text="Storage") is None:
            return click_or_scroll(phone, obs, text="Storage")
        return answer(self.expected(phone))


# settings the search finds, with the menu path its result shows (Wi-Fi is left out: its non-breaking
# hyphen once made it unsearchable; search now folds hyphens, but the set is kept so seeds keep their params)
SEARCHABLE = tuple((t, crumb) for t, crumb, _ in SEARCH_INDEX if "Wi" not in t and t not in ("Internet",))
TOP_MENUS = tuple(t for t, _, _ in MAIN_ROWS)
TO_SEARCH: NavPath = [("main", {"resource_id": "search_action_bar"}), ("search", None)]


@register_task
class QuerySettingLocation(TaskTemplate):
    name = "settings_query_setting_location"
    apps = ("Settings",)
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = ("Where in Settings is the \"{setting}\" option? Search for it and answer with the menu "
                     "path the search result shows.")
    goal_phrasings = (
        "Use the Settings search to find \"{setting}\": under which menu (path) does it live?",
        ("I can never find \"{setting}\" in Settings. Which menu is it under? Give the path from the search "
         "result."),
        "Search Settings for \"{setting}\" and tell me the menu path it's in.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        setting, crumb = rng.choice(SEARCHABLE)
        return {"setting": setting, "path": crumb}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        pass  # nothing to change: the answer is where the setting lives

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        parts = {p.strip() for p in params["path"].split(">")}
        if answer is None or not all(answer_matches(answer, p) for p in parts):  # every level of the path
            return 0.0
        others = [t for t in TOP_MENUS if t not in parts and not any(answer_matches(p, t) for p in parts)]
        hedge = any(answer_matches(answer, t) for t in others)  # naming other menus as well
        return 0.0 if hedge else 1.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = navigate(phone, obs, APP, TO_SEARCH) or dismiss_popups(phone)
        if step is not None:
            return step
        scr = phone.screen
        assert scr is not None
        if scr.fields.get("query", "") != params["setting"]:
            i = find(obs, editable=True, resource_id="search_src_text")
            return BACK if i is None else Action(action_type="input_text", index=i, text=params["setting"])
        if find(obs, text=params["setting"], resource_id="search_result") is None:
            return click_or_scroll(phone, obs, text=params["setting"], resource_id="search_result")
        return answer(params["path"])


# ---- round 3: devices told apart by type or state, bulk sliders, conditional and derived answers -------
# saved Bluetooth devices a set-up may plant (name -> type shown on the device's details page only)
BT_CATALOG: dict[str, str] = {
    "Pixel Buds Pro": "headphones", "Bose QC45": "headphones", "Sony WH-1000XM5": "headphones",
    "Galaxy Buds2": "headphones", "JBL Flip 5": "speaker", "Anker Soundcore 2": "speaker",
    "Bose SoundLink Flex": "speaker", "Sonos Roam": "speaker", "Galaxy Watch5": "watch",
    "Fitbit Charge 6": "watch", "Pixel Watch 2": "watch", "Toyota Camry": "car", "Honda Civic": "car",
    "Ford SYNC": "car", "Logitech K380": "keyboard", "Keychron K2": "keyboard", "MX Master 3S": "mouse",
}


def _of_kind(kind: str) -> list[str]:
    return [n for n, k in BT_CATALOG.items() if k == kind]


def _not_kind(kind: str) -> list[str]:
    return [n for n, k in BT_CATALOG.items() if k != kind]


def _plant_bt(phone: Phone, names: list[str], connected: tuple[str, ...] = ()) -> None:
    """Replace the saved Bluetooth devices with ``names`` (in this order), ``connected`` ones connected."""
    phone.execute("DELETE FROM bluetooth_devices")
    for name in names:
        phone.execute("INSERT INTO bluetooth_devices(name, type, paired, connected) VALUES(?,?,1,?)",
                      (name, BT_CATALOG[name], int(name in connected)))


def _bt_id(phone: Phone, name: str) -> int:
    return phone.query_one("SELECT _id FROM bluetooth_devices WHERE name=?", (name,))[0]


def _open_bt(phone: Phone, obs: Observation, device_id: int) -> Action | None:
    """Next action toward the details screen of saved device ``device_id``; None once there, no popup."""
    scr = phone.screen
    if phone.foreground == APP and scr is not None and scr.name == "bt_device":
        return dismiss_popups(phone) if scr.args.get("device_id") == device_id else BACK
    name = phone.query_one("SELECT name FROM bluetooth_devices WHERE _id=?", (device_id,))[0]
    return navigate(phone, obs, APP, TO_CONNECTED) or dismiss_popups(phone) or \
        click_or_scroll(phone, obs, text=name, resource_id="bt_device")


def _bt_changes(phone: Phone, tmpl: TaskTemplate, params: dict[str, Any]) -> tuple[list, list, list]:
    return diff_rows(baseline_rows(phone, tmpl, params, BT_SQL), _bt_rows(phone))


def _changed_to(changed: list, want: dict[str, tuple[int, int]]) -> bool:
    """Exactly the devices in ``want`` changed, each to its (paired, connected)."""
    got = {new[1]: tuple(new[2:]) for _, new in changed}
    return got == want and all(old[1] == new[1] for old, new in changed)


@register_task
class QueryBluetoothDeviceOfType(TaskTemplate):
    name = "settings_query_bluetooth_device_of_type"
    apps = ("Settings",)
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = "Which of my saved Bluetooth devices is a {kind}? Answer with its name."
    goal_phrasings = (
        "One of the Bluetooth devices saved on this phone is a {kind}. What is it called?",
        "Could you check the device types in Bluetooth settings and tell me which saved device is a {kind}?",
        "Name of the saved Bluetooth device whose type is {kind}?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        kind = rng.choice(("car", "watch", "speaker", "keyboard"))
        target = rng.choice(_of_kind(kind))
        others: list[str] = []
        for name in rng.sample(_not_kind(kind), len(_not_kind(kind))):  # one per other type at most
            if len(others) < 3 and BT_CATALOG[name] not in {BT_CATALOG[o] for o in others}:
                others.append(name)
        names = [target, *others]
        rng.shuffle(names)
        return {"kind": kind, "device": target, "others": others, "names": names}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        _plant_bt(phone, params["names"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = answer_matches(answer, params["device"]) \
            and not any(answer_matches(answer, o) for o in params["others"])
        return 1.0 if ok else 0.0  # naming another saved device too is a hedge

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = _open_bt(phone, obs, _bt_id(phone, params["device"]))
        if step is not None:
            return step
        if find(obs, text="Device type") is None:
            return click_or_scroll(phone, obs, text="Device type")
        return answer(params["device"])


@register_task
class QueryConnectedBluetoothDevices(TaskTemplate):
    name = "settings_query_connected_bluetooth_devices"
    apps = ("Settings",)
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "Which of my Bluetooth devices are connected to the phone right now? Name all of them."
    goal_phrasings = (
        "List every Bluetooth device that's currently connected (not just saved).",
        "Could you tell me the names of all the devices connected over Bluetooth at the moment?",
        "Bluetooth: which saved devices show as connected right now? Give me all their names.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        names = rng.sample(sorted(BT_CATALOG), 5)
        return {"names": names, "connected": sorted(rng.sample(names, rng.choice((2, 3))))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "bluetooth_on", 1)
        _plant_bt(phone, params["names"], tuple(params["connected"]))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        # the devices connected when asked: all of them named, none of the merely saved ones
        idle = [n for n in params["names"] if n not in params["connected"]]
        ok = all(answer_matches(answer, n) for n in params["connected"]) \
            and not any(answer_matches(answer, n) for n in idle)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = navigate(phone, obs, APP, TO_CONNECTED) or dismiss_popups(phone)
        if step is not None:
            return step
        if find(obs, text="Connection preferences") is None:  # the last row: every device seen
            return click_or_scroll(phone, obs, text="Connection preferences")
        return answer(" and ".join(params["connected"]))


@register_task
class QueryOpenWifiCount(TaskTemplate):
    name = "settings_query_open_wifi_count"
    apps = ("Settings",)
    kind = "query"
    complexity = 2
    optimal_steps = 6
    goal_template = "How many of the Wi-Fi networks the phone can see are open, with no password needed?"
    goal_phrasings = (
        "Count the open (password-free) Wi-Fi networks in the phone's Wi-Fi list for me.",
        "Could you check how many available Wi-Fi networks don't need a password?",
        "Number of open Wi-Fi networks around me right now?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"open": rng.sample(OPEN_SSIDS, rng.randint(1, 4)), "locked": rng.sample(LOCKED_SSIDS, 2)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "wifi_on", 1)
        phone.put_setting("global", "airplane_mode_on", 0)
        phone.execute("UPDATE wifi_networks SET security='WPA2' WHERE security='Open'")
        for ssid in params["open"]:
            phone.execute("INSERT INTO wifi_networks(ssid, security, signal, saved, connected) "
                          "VALUES(?, 'Open', 2, 0, 0)", (ssid,))
        for ssid in params["locked"]:
            phone.execute("INSERT INTO wifi_networks(ssid, security, signal, saved, connected) "
                          "VALUES(?, 'WPA3', 3, 0, 0)", (ssid,))

    def expected(self, params: dict[str, Any]) -> str:
        return str(len(params["open"]))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer is not None and _only_number(answer, self.expected(params)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = navigate(phone, obs, APP, TO_INTERNET) or dismiss_popups(phone)
        if step is not None:
            return step
        if not _flag(phone, "global", "wifi_on"):  # switched off by mistake: the list is hidden
            return click_or_scroll(phone, obs, text="Wi‑Fi")
        if find(obs, text="Network preferences") is None:  # the last row: every network seen
            return click_or_scroll(phone, obs, text="Network preferences")
        return answer(self.expected(params))


@register_task
class FlightModeWithHeadphones(TaskTemplate):
    name = "settings_flight_mode_with_headphones"
    apps = ("Settings",)
    complexity = 3
    optimal_steps = 13
    goal_template = ("I'm about to board: turn on airplane mode, then switch Bluetooth back on and connect "
                     "my \"{device}\" so I can still listen to music.")
    goal_phrasings = (
        ("Flight mode please, but I want my \"{device}\": airplane mode on, Bluetooth on, \"{device}\" "
         "connected."),
        ("Could you put the phone in airplane mode and then connect my \"{device}\" over Bluetooth "
         "(Bluetooth is off right now)?"),
        "Airplane mode on, and get my \"{device}\" connected via Bluetooth for the flight.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        device = rng.choice(_of_kind("headphones"))
        names = [device, *rng.sample(_not_kind("headphones"), 2), rng.choice(
            [n for n in _of_kind("headphones") if n != device])]
        rng.shuffle(names)
        return {"device": device, "names": names}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "airplane_mode_on", 0)
        phone.put_setting("global", "bluetooth_on", 0)
        _plant_bt(phone, params["names"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = _bt_changes(phone, self, params)
        ok = _flag(phone, "global", "airplane_mode_on") and _flag(phone, "global", "bluetooth_on") \
            and not added and not removed and _changed_to(changed, {params["device"]: (1, 1)})
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if not _flag(phone, "global", "airplane_mode_on"):
            return navigate(phone, obs, APP, TO_NETWORK) or dismiss_popups(phone) or \
                click_or_scroll(phone, obs, text="Airplane mode")
        if not _flag(phone, "global", "bluetooth_on"):
            return navigate(phone, obs, APP, TO_BLUETOOTH) or dismiss_popups(phone) or \
                click_or_scroll(phone, obs, text="Use Bluetooth")
        return _open_bt(phone, obs, _bt_id(phone, params["device"])) or \
            click(obs, text="Connect", resource_id="btn_connect") or BACK


@register_task
class SwitchBluetoothAudio(TaskTemplate):
    name = "settings_switch_bluetooth_audio"
    apps = ("Settings",)
    complexity = 2
    optimal_steps = 8
    goal_template = ("Switch my audio from \"{old}\" to \"{new}\": disconnect \"{old}\" and connect "
                     "\"{new}\" over Bluetooth.")
    goal_phrasings = (
        "Could you disconnect my \"{old}\" and connect my \"{new}\" instead?",
        ("I want to listen on \"{new}\" now, not \"{old}\". Disconnect the one and connect the other "
         "(keep both saved)."),
        "Bluetooth: \"{old}\" off the connection, \"{new}\" connected.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        audio = _of_kind("headphones") + _of_kind("speaker")
        old, new = rng.sample(audio, 2)
        others = rng.sample([n for n in BT_CATALOG if n not in (old, new)], 2)
        names = [old, new, *others]
        rng.shuffle(names)
        return {"old": old, "new": new, "names": names, "others_on": rng.choice((0, 1)), "others": others}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "bluetooth_on", 1)
        # a watch or car may stay connected alongside: it must be left alone
        keep_on = (params["others"][0],) if params["others_on"] else ()
        _plant_bt(phone, params["names"], (params["old"], *keep_on))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = _bt_changes(phone, self, params)
        ok = _flag(phone, "global", "bluetooth_on") and not added and not removed \
            and _changed_to(changed, {params["old"]: (1, 0), params["new"]: (1, 1)})
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if not _flag(phone, "global", "bluetooth_on"):  # switched off by mistake
            return navigate(phone, obs, APP, TO_BLUETOOTH) or dismiss_popups(phone) or \
                click_or_scroll(phone, obs, text="Use Bluetooth")
        old = phone.query_one("SELECT _id, connected FROM bluetooth_devices WHERE name=?", (params["old"],))
        if old["connected"]:
            return _open_bt(phone, obs, old["_id"]) or \
                click(obs, text="Disconnect", resource_id="btn_connect") or BACK
        return _open_bt(phone, obs, _bt_id(phone, params["new"])) or \
            click(obs, text="Connect", resource_id="btn_connect") or BACK


@register_task
class ForgetBluetoothByType(TaskTemplate):
    name = "settings_forget_bluetooth_by_type"
    apps = ("Settings",)
    complexity = 3
    optimal_steps = 9
    goal_template = ("Forget every saved Bluetooth device whose type is {kind} (check the device details); "
                     "keep all my other devices.")
    goal_phrasings = (
        "Unpair all the {kind} devices saved in Bluetooth, and only those.",
        "Could you remove each saved Bluetooth device of type {kind} from the phone? Leave the rest paired.",
        "Bluetooth clean-up: forget the saved devices listed as {kind} in their details, nothing else.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        kind = rng.choice(("headphones", "speaker"))
        other = "speaker" if kind == "headphones" else "headphones"
        targets = rng.sample(_of_kind(kind), 2)
        keep = [rng.choice(_of_kind(other)), rng.choice(_of_kind(rng.choice(("watch", "car", "keyboard"))))]
        names = targets + keep
        rng.shuffle(names)
        return {"kind": kind, "targets": sorted(targets), "names": names, "bt_on": rng.choice((0, 1))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "bluetooth_on", params["bt_on"])
        _plant_bt(phone, params["names"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = _bt_changes(phone, self, params)
        ok = not added and not removed and _changed_to(changed, {n: (0, 0) for n in params["targets"]})
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        ids = {_bt_id(phone, n) for n in params["targets"]}
        scr, dlg = phone.screen, phone.dialog
        if dlg is not None and dlg.name == "confirm" and phone.foreground == APP \
                and dlg.data.get("args", {}).get("device_id") in ids:
            return click_in(obs, "dialog", text="Forget device") or BACK
        left = phone.query_one("SELECT _id FROM bluetooth_devices WHERE paired=1 AND name IN (?, ?) "
                               "ORDER BY name", tuple(params["targets"]))
        if left is None:  # a wrong device forgotten: the simulator cannot re-pair, nothing more to do
            return navigate(phone, obs, APP, TO_CONNECTED) or COMPLETE
        if phone.foreground == APP and scr is not None and scr.name == "bt_device" and dlg is None \
                and scr.args.get("device_id") in ids:
            return click_or_scroll(phone, obs, text="Forget", resource_id="btn_forget")
        return _open_bt(phone, obs, left[0]) or \
            click_or_scroll(phone, obs, text="Forget", resource_id="btn_forget")


SILENT_VOLUMES = ("volume_music", "volume_ring", "volume_alarm", "volume_voice")


@register_task
class SilenceExceptAlarm(TaskTemplate):
    name = "settings_silence_except_alarm"
    apps = ("Settings",)
    complexity = 2
    optimal_steps = 9
    goal_template = ("Silence my phone: turn the media volume and the ring & notification volume all the way "
                     "down, but leave the alarm and call volumes as they are.")
    goal_phrasings = (
        ("Could you mute media and ring & notification sounds (both sliders to 0)? Don't touch the alarm or "
         "call volume."),
        "Media volume 0, ring & notification volume 0; keep the alarm volume and call volume where they are.",
        "I'm going into a meeting: put the media and ring volumes at zero, alarm and call volumes unchanged.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"levels": [rng.randint(2, 5), rng.randint(1, 4), rng.randint(2, 6), rng.randint(1, 4)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for name, level in zip(SILENT_VOLUMES, params["levels"]):
            phone.put_setting("system", name, level)

    def _want(self, params: dict[str, Any]) -> list[int]:
        return [0, 0, params["levels"][2], params["levels"][3]]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        levels = [phone.get_int("system", n, -1) for n in SILENT_VOLUMES]
        return 1.0 if levels == self._want(params) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = navigate(phone, obs, APP, TO_SOUND) or dismiss_popups(phone)
        if step is not None:
            return step
        labels = ("media volume", "ring & notification volume", "alarm volume", "call volume")
        for name, want, label in zip(SILENT_VOLUMES, self._want(params), labels):
            cur = phone.get_int("system", name, 0)
            if cur != want:
                verb = "Increase" if cur < want else "Decrease"
                return click_or_scroll(phone, obs, desc=f"{verb} {label}")
        return COMPLETE


SAVED_SSIDS = ("Home-Upstairs", "Garage_Mesh", "Pixel_Hotspot_42", "Mom&Dad WiFi", "StudioNet", "Cabin-5G")


@register_task
class SwitchToOtherSavedWifi(TaskTemplate):
    name = "settings_switch_to_other_saved_wifi"
    apps = ("Settings",)
    complexity = 2
    optimal_steps = 5
    goal_template = ("My current Wi-Fi keeps dropping. Switch to the other Wi-Fi network this phone has "
                     "saved (there are only two saved ones).")
    goal_phrasings = (
        "Could you move the phone over to its other saved Wi-Fi network? Only two are saved.",
        "Connect to whichever saved Wi-Fi network the phone isn't on right now (it has exactly two saved).",
        "Wi-Fi: leave the current network and join the second saved one.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"ssid": rng.choice(SAVED_SSIDS), "signal": rng.randint(1, 3), "decoy": rng.choice(OPEN_SSIDS),
                "wifi_on": rng.choice((0, 1, 1))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "wifi_on", params["wifi_on"])
        phone.put_setting("global", "airplane_mode_on", 0)
        phone.execute("UPDATE wifi_networks SET saved=connected")  # the seed saves only the connected one
        phone.execute("INSERT INTO wifi_networks(ssid, security, signal, saved, connected) "
                      "VALUES(?, 'WPA2', ?, 1, 0)", (params["ssid"], params["signal"]))
        phone.execute("INSERT INTO wifi_networks(ssid, security, signal, saved, connected) "
                      "VALUES(?, 'Open', 4, 0, 0)", (params["decoy"],))  # strong and open, but not saved

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        joined = [r[0] for r in phone.query("SELECT ssid FROM wifi_networks WHERE connected=1")]
        return 1.0 if _flag(phone, "global", "wifi_on") and joined == [params["ssid"]] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = navigate(phone, obs, APP, TO_INTERNET) or dismiss_popups(phone)
        if step is not None:
            return step
        if not _flag(phone, "global", "wifi_on"):
            return click_or_scroll(phone, obs, text="Wi‑Fi")
        return click_or_scroll(phone, obs, text=params["ssid"], resource_id="wifi_entry")


@register_task
class ForgetConnectedBluetoothDevice(TaskTemplate):
    name = "settings_forget_connected_bluetooth_device"
    apps = ("Settings",)
    complexity = 2
    optimal_steps = 6
    goal_template = ("Forget the Bluetooth device that is connected right now; leave my other saved devices "
                     "as they are.")
    goal_phrasings = (
        "Whatever is connected over Bluetooth at the moment: unpair it from this phone. Nothing else.",
        "Could you forget the currently connected Bluetooth device (only that one)?",
        "Remove the connected Bluetooth device from my saved devices; keep the rest.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        names = rng.sample(sorted(BT_CATALOG), 4)
        return {"names": names, "device": rng.choice(names)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "bluetooth_on", 1)
        _plant_bt(phone, params["names"], (params["device"],))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = _bt_changes(phone, self, params)
        ok = not added and not removed and _changed_to(changed, {params["device"]: (0, 0)})
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        did = _bt_id(phone, params["device"])
        dlg = phone.dialog
        if dlg is not None and dlg.name == "confirm" and phone.foreground == APP \
                and dlg.data.get("args", {}).get("device_id") == did:
            return click_in(obs, "dialog", text="Forget device") or BACK
        return _open_bt(phone, obs, did) or click(obs, text="Forget", resource_id="btn_forget") or BACK


TIMEOUT_MS = dict(TIMEOUTS)


@register_task
class TimeoutByBattery(TaskTemplate):
    name = "settings_timeout_by_battery"
    apps = ("Settings",)
    complexity = 2
    optimal_steps = 5
    goal_template = ("Check my battery level: if it's below {threshold}%, set the screen timeout to {short}; "
                     "otherwise set it to {long}.")
    goal_phrasings = (
        ("Screen timeout depends on the battery: under {threshold}% make it {short}, at {threshold}% or more "
         "make it {long}."),
        ("Could you look at the battery percentage and set the screen timeout to {short} if it's under "
         "{threshold}%, or to {long} if not?"),
        "If battery < {threshold}%: screen timeout {short}. Else: screen timeout {long}.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        threshold = rng.choice((30, 40, 50, 60))
        battery = rng.choice([b for b in range(15, 96) if b != threshold])
        short = rng.choice(("15 seconds", "30 seconds"))
        long = rng.choice(("2 minutes", "5 minutes", "10 minutes"))
        start = rng.choice([lbl for lbl, _ in TIMEOUTS if lbl not in (short, long)])
        return {"threshold": threshold, "battery": battery, "short": short, "long": long, "start": start}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "battery_level", params["battery"])
        phone.put_setting("system", "screen_off_timeout", TIMEOUT_MS[params["start"]])

    def _label(self, params: dict[str, Any]) -> str:
        return params["short"] if params["battery"] < params["threshold"] else params["long"]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ms = TIMEOUT_MS[self._label(params)]
        return 1.0 if phone.get_int("system", "screen_off_timeout") == ms else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if phone.dialog is not None and phone.dialog.name == "choice" and phone.screen \
                and phone.screen.name == "display":
            return click_or_scroll(phone, obs, text=self._label(params), class_contains="RadioButton")
        return navigate(phone, obs, APP, TO_DISPLAY) or dismiss_popups(phone) or \
            click_or_scroll(phone, obs, text="Screen timeout")


RING_WORDS, ALARM_WORDS = {"ring", "ringer", "ringtone", "notification", "notifications"}, {"alarm", "alarms"}


@register_task
class QueryLouderAlarmOrRing(TaskTemplate):
    name = "settings_query_louder_alarm_or_ring"
    apps = ("Settings",)
    kind = "query"
    optimal_steps = 4
    goal_template = ("Which is set louder right now: the alarm volume or the ring & notification volume? "
                     "Answer alarm or ring.")
    goal_phrasings = (
        "Is my alarm volume higher than my ring & notification volume, or is the ring one higher? Say which.",
        "Could you compare the alarm and ring & notification volume sliders and tell me which one is louder?",
        "Louder right now, alarm or ring & notification volume?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        ring, alarm = rng.sample(range(1, 8), 2)
        return {"ring": ring, "alarm": alarm, "media": rng.randint(1, 14)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("system", "volume_ring", params["ring"])
        phone.put_setting("system", "volume_alarm", params["alarm"])
        phone.put_setting("system", "volume_music", params["media"])

    def expected(self, params: dict[str, Any]) -> str:
        return "Alarm volume" if params["alarm"] > params["ring"] else "Ring & notification volume"

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if answer is None:
            return 0.0
        tokens = set(normalize_answer(answer))
        says_alarm, says_ring = bool(tokens & ALARM_WORDS), bool(tokens & RING_WORDS)
        if says_alarm == says_ring:  # neither, or both (a hedge)
            return 0.0
        return 1.0 if says_alarm == (params["alarm"] > params["ring"]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = navigate(phone, obs, APP, TO_SOUND) or dismiss_popups(phone)
        if step is not None:
            return step
        if find(obs, desc="Alarm volume") is None:
            return click_or_scroll(phone, obs, desc="Alarm volume")
        return answer(self.expected(params))


WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


@register_task
class QueryPhoneWeekday(TaskTemplate):
    name = "settings_query_phone_weekday"
    apps = ("Settings",)
    kind = "query"
    complexity = 2
    optimal_steps = 6
    goal_template = ("The date on this phone was set by hand. What day of the week is it by the phone's "
                     "date? Answer with the weekday.")
    goal_phrasings = (
        "Look at the date in Date & time settings: which weekday is that?",
        "Could you tell me what day of the week the phone thinks it is (its date is set manually)?",
        "Phone's date, as a day of the week?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        day = DEFAULT_DAY + timedelta(days=rng.choice([d for d in range(-45, 46) if d % 7]))
        return {"date": day.isoformat(), "weekday": WEEKDAYS[day.weekday()]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        d = date.fromisoformat(params["date"])
        phone.put_setting("global", "auto_time", 0)
        phone.now = phone.now.replace(year=d.year, month=d.month, day=d.day)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if answer is None:
            return 0.0
        named = {w for w in WEEKDAYS if answer_matches(answer, w)}
        return 1.0 if named == {params["weekday"]} else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = navigate(phone, obs, APP, TO_DATETIME) or dismiss_popups(phone)
        if step is not None:
            return step
        if find(obs, text="Date") is None:
            return click_or_scroll(phone, obs, text="Date")
        return answer(params["weekday"])


# ---- round 4: whole-table checks, derived readings, rule-based bulk edits, "make sure" goals ----------
# every setting as ("<table>/<name>", value), so a checker can demand that nothing else changed
SETTINGS_SQL = ("SELECT 'system/' || name, value FROM settings_system UNION ALL "
                "SELECT 'global/' || name, value FROM settings_global UNION ALL "
                "SELECT 'secure/' || name, value FROM settings_secure ORDER BY 1")


def _setting_changes(phone: Phone, tmpl: TaskTemplate, params: dict[str, Any]) -> dict[str, str | None]:
    """Settings that differ from the starting phone: name -> new value (None when removed)."""
    added, removed, changed = diff_rows(baseline_rows(phone, tmpl, params, SETTINGS_SQL),
                                        [tuple(r) for r in phone.query(SETTINGS_SQL)])
    out: dict[str, str | None] = {r[0]: r[1] for r in added}
    out.update({new[0]: new[1] for _, new in changed})
    out.update({r[0]: None for r in removed})
    return out


def _yes_no(answer: str | None) -> bool | None:
    """True for a plain yes, False for a plain no, None for neither or both (a hedge)."""
    if answer is None:
        return None
    tokens = set(normalize_answer(answer))
    says_yes, says_no = "yes" in tokens, "no" in tokens
    return None if says_yes == says_no else says_yes


def _zone_offset(zone: str) -> int:
    """Minutes east of GMT of a time-zone label ("GMT-05:00 Eastern Standard Time" -> -300)."""
    sign = -1 if zone[3] == "-" else 1
    return sign * (int(zone[4:6]) * 60 + int(zone[7:9]))


def _date_text(day: date) -> str:
    return f"{MONTHS[day.month - 1]} {day.day}, {day.year}"


def _time_picker_step(phone: Phone, obs: Observation, h: int, m: int) -> Action:
    """Next action in the open time picker toward h:m (24-hour), then OK."""
    dlg = phone.dialog
    assert dlg is not None
    fields = dlg.data.get("fields", {})
    want_h = str(h if phone.uses_24h else (h % 12 or 12))
    if fields.get("hour") != want_h:
        i = find(obs, editable=True, resource_id="hour")
        return BACK if i is None else Action(action_type="input_text", index=i, text=want_h)
    if fields.get("minute") != f"{m:02d}" or int(dlg.data["minute"]) != m:
        i = find(obs, editable=True, resource_id="minute")
        return BACK if i is None else Action(action_type="input_text", index=i, text=f"{m:02d}")
    if not phone.uses_24h and (int(dlg.data["hour"]) >= 12) != (h >= 12):
        return click_in(obs, "dialog", resource_id="pm_label" if h >= 12 else "am_label") or BACK
    return click_in(obs, "dialog", text="OK", resource_id="button1") or BACK


def _date_picker_step(phone: Phone, obs: Observation, want: date) -> Action:
    """Next action in the open date picker toward ``want``, then OK."""
    dlg = phone.dialog
    assert dlg is not None
    d = dlg.data
    cur, goal = int(d["year"]) * 12 + int(d["month"]), want.year * 12 + want.month
    if cur != goal:
        return click_in(obs, "dialog", desc="Next month" if goal > cur else "Previous month") or BACK
    if int(d["day"]) != want.day:
        i = find(obs, editable=True, resource_id="day")
        return BACK if i is None else Action(action_type="input_text", index=i, text=str(want.day))
    return click_in(obs, "dialog", text="OK", resource_id="button1") or BACK


def _on_datetime_with(phone: Phone, dialog: str) -> bool:
    scr, dlg = phone.screen, phone.dialog
    return dlg is not None and dlg.name == dialog and phone.foreground == APP and scr is not None \
        and scr.name == "datetime"


VOLUME_ROWS = {"media": ("Media volume", "volume_music", 15), "call": ("Call volume", "volume_voice", 5),
               "ring": ("Ring & notification volume", "volume_ring", 7),
               "alarm": ("Alarm volume", "volume_alarm", 7)}


@register_task
class QueryVolumePercentOfMax(TaskTemplate):
    name = "settings_query_volume_percent_of_max"
    apps = ("Settings",)
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "What percentage of its maximum is the {what} set to right now? Answer with the percentage."
    goal_phrasings = (
        "How far up is my {what} slider, as a percentage of the way to its maximum?",
        "Could you check Sound & vibration and tell me the {what} as a percent of its highest setting?",
        "{what}: what percent of the maximum is it at?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        slider = rng.choice(("media", "call"))
        other = "call" if slider == "media" else "media"
        fifth = rng.randint(1, 4)  # 20%, 40%, 60% or 80%: a whole number of fifths of either maximum
        levels = {k: rng.randint(1, mx - 1) for k, (_, _, mx) in VOLUME_ROWS.items()}
        levels[slider] = fifth * VOLUME_ROWS[slider][2] // 5
        levels[other] = rng.choice([f for f in range(1, 5) if f != fifth]) * VOLUME_ROWS[other][2] // 5
        return {"what": VOLUME_ROWS[slider][0].lower(), "slider": slider, "levels": levels,
                "percent": fifth * 20}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for k, (_, setting, _) in VOLUME_ROWS.items():
            phone.put_setting("system", setting, params["levels"][k])

    def expected(self, params: dict[str, Any]) -> str:
        return f"{params['percent']}%"  # as set up: a slider moved afterwards does not change the answer

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer is not None and _only_number(answer, self.expected(params)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = navigate(phone, obs, APP, TO_SOUND) or dismiss_popups(phone)
        if step is not None:
            return step
        label = VOLUME_ROWS[params["slider"]][0]
        if find(obs, desc=label) is None:
            return click_or_scroll(phone, obs, desc=label)
        return answer(self.expected(params))


PATCH_DATES = ("2024-06-05", "2024-07-01", "2024-07-05", "2024-08-05", "2024-09-01", "2024-09-05")
PLAY_UPDATE = date(2024, 8, 1)  # "Google Play system update" on the same page: the near miss


@register_task
class QueryDaysSinceSecurityUpdate(TaskTemplate):
    name = "settings_query_days_since_security_update"
    apps = ("Settings",)
    kind = "query"
    complexity = 3
    optimal_steps = 7
    goal_template = ("Going by the date set on this phone, how many days ago was its Android security update? "
                     "Answer with a number of days.")
    goal_phrasings = (
        "How many days old is this phone's security patch, counting up to the phone's own date?",
        ("Could you work out how many days have passed between the Android security update date and the "
         "date the phone shows?"),
        "Days since the last Android security update, by the phone's date?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        patch = date.fromisoformat(rng.choice(PATCH_DATES))
        today = DEFAULT_DAY + timedelta(days=rng.randint(-20, 60))
        return {"patch": patch.isoformat(), "date": today.isoformat(), "days": (today - patch).days}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        patch, today = date.fromisoformat(params["patch"]), date.fromisoformat(params["date"])
        phone.execute("UPDATE device_info SET value=? WHERE name='security_patch'", (_date_text(patch),))
        phone.put_setting("global", "auto_time", 0)
        phone.now = phone.now.replace(year=today.year, month=today.month, day=today.day)

    def expected(self, params: dict[str, Any]) -> str:
        return str(params["days"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer is not None and _only_number(answer, self.expected(params)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = navigate(phone, obs, APP, TO_ANDROID_VERSION) or dismiss_popups(phone)
        if step is not None:
            return step
        if find(obs, text="Android security update") is None:
            return click_or_scroll(phone, obs, text="Android security update")
        return answer(self.expected(params))


# "7:37 PM", "19:37", "7 pm"; not the "01:00" of "GMT+01:00" nor a bare number
TIME_RE = re.compile(r"(?<![+\-\d:])(\d{1,2})(?::(\d{2}))?(?:\s*([ap])\.?\s*m\b\.?)?")


def _times_in(text: str) -> set[int]:
    """Times of day named in an answer, as minutes after midnight (no AM/PM read as 24-hour)."""
    out = set()
    for h, m, half in TIME_RE.findall(text.lower()):
        if not m and not half:
            continue
        hour, minute = int(h), int(m or 0)
        if minute > 59 or (not half and hour > 23):
            continue
        if half:
            if not 1 <= hour <= 12:
                continue
            hour = hour % 12 + (12 if half == "p" else 0)
        out.add(hour * 60 + minute)
    return out


@register_task
class QueryTimeInOtherZone(TaskTemplate):
    name = "settings_query_time_in_other_zone"
    apps = ("Settings",)
    kind = "query"
    complexity = 3
    optimal_steps = 7
    goal_template = ("What time is it right now in {zone}, going by this phone's clock and its "
                     "time zone setting?")
    goal_phrasings = (
        "Using the time and time zone set on this phone, work out the current time in {zone}.",
        "Could you tell me what the clock would read in {zone} right now, based on the phone's own time and zone?",
        "Current time in {zone}, converted from the phone's clock?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        here, there = rng.sample(TIME_ZONES, 2)
        shift = _zone_offset(there) - _zone_offset(here)
        lo, hi = max(60, 60 - shift), min(23 * 60 - 1, 23 * 60 - 1 - shift)  # same day in both zones
        local = rng.randrange(lo, hi + 1, 1)
        target = local + shift
        return {"zone": there, "here": here, "local": [local // 60, local % 60],
                "target": [target // 60, target % 60], "h24": rng.choice((0, 0, 1))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        h, m = params["local"]
        phone.put_setting("global", "auto_time_zone", 0)
        phone.put_setting("global", "time_zone", params["here"])
        phone.put_setting("system", "time_12_24", "24" if params["h24"] else "12")
        phone.now = phone.now.replace(hour=h, minute=m, second=0)

    def expected(self, params: dict[str, Any]) -> str:
        return _say_hm(*params["target"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if answer is None:
            return 0.0
        h, m = params["target"]
        return 1.0 if _times_in(answer) == {h * 60 + m} else 0.0  # the local time too is a hedge

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = navigate(phone, obs, APP, TO_DATETIME) or dismiss_popups(phone)
        if step is not None:
            return step
        if find(obs, text=params["here"]) is None:
            return click_or_scroll(phone, obs, text="Time zone")
        return answer(self.expected(params))


@register_task
class QueryWifiNeedsPassword(TaskTemplate):
    name = "settings_query_wifi_needs_password"
    apps = ("Settings",)
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = "Would I have to type a password to join the Wi-Fi network \"{ssid}\" on this phone? Answer yes or no."
    goal_phrasings = (
        "Is a password needed to connect this phone to the Wi-Fi network \"{ssid}\"? Answer yes or no.",
        "Does connecting to the Wi-Fi network \"{ssid}\" need a password from me? Yes or no.",
        "Check the Wi-Fi list: is a password required for \"{ssid}\"? Answer yes or no.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        ssid, lookalike = _pair(rng, WIFI_PAIRS)
        status = rng.choice(("secured", "saved", "open"))
        other = rng.choice(("saved", "open")) if status == "secured" else "secured"
        return {"ssid": ssid, "lookalike": lookalike, "status": status, "lookalike_status": other,
                "wifi_on": rng.choice((0, 1, 1))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "wifi_on", params["wifi_on"])
        phone.put_setting("global", "airplane_mode_on", 0)
        for ssid, status, signal in ((params["ssid"], params["status"], 2),
                                     (params["lookalike"], params["lookalike_status"], 3)):
            phone.execute("INSERT INTO wifi_networks(ssid, security, signal, saved, connected) VALUES(?, ?, ?, ?, 0)",
                          (ssid, "Open" if status == "open" else "WPA2", signal, int(status == "saved")))

    def expected(self, params: dict[str, Any]) -> str:
        return "Yes" if params["status"] == "secured" else "No"  # a saved network joins without one

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        said = _yes_no(answer)
        return 1.0 if said is not None and said == (params["status"] == "secured") else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = navigate(phone, obs, APP, TO_INTERNET) or dismiss_popups(phone)
        if step is not None:
            return step
        if not _flag(phone, "global", "wifi_on"):  # the list shows only with Wi-Fi on
            return click_or_scroll(phone, obs, text="Wi‑Fi")
        if find(obs, text=params["ssid"], resource_id="wifi_entry") is None:
            return click_or_scroll(phone, obs, text=params["ssid"], resource_id="wifi_entry")
        return answer(self.expected(params))


KIND_PLURALS = {"headphones": "headphones", "speaker": "speakers", "watch": "watches", "car": "cars"}


@register_task
class QueryBluetoothTypeCount(TaskTemplate):
    name = "settings_query_bluetooth_type_count"
    apps = ("Settings",)
    kind = "query"
    complexity = 3
    optimal_steps = 5
    goal_template = "How many of the Bluetooth devices saved on this phone are {kinds}? Answer with a number."
    goal_phrasings = (
        "Count the saved Bluetooth devices whose device type is {kinds}.",
        "Could you check each saved Bluetooth device's type and tell me how many are {kinds}?",
        "Number of {kinds} among my paired Bluetooth devices?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        kind = rng.choice(sorted(KIND_PLURALS))
        pool = _of_kind(kind)
        count = rng.randint(1, min(3, len(pool) - 1))
        picked = rng.sample(pool, count + 1)  # the last one was forgotten: in the table, not shown
        others = rng.sample(_not_kind(kind), rng.randint(2, 3))
        names = picked[:-1] + others
        rng.shuffle(names)
        return {"kinds": KIND_PLURALS[kind], "kind": kind, "names": names, "forgotten": picked[-1],
                "count": count}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        _plant_bt(phone, params["names"])
        phone.execute("INSERT INTO bluetooth_devices(name, type, paired, connected) VALUES(?,?,0,0)",
                      (params["forgotten"], params["kind"]))

    def expected(self, params: dict[str, Any]) -> str:
        return str(params["count"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer is not None and _only_number(answer, self.expected(params)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        last = max(n for n in params["names"] if BT_CATALOG[n] == params["kind"])
        step = _open_bt(phone, obs, _bt_id(phone, last))
        if step is not None:
            return step
        if find(obs, text="Device type") is None:
            return click_or_scroll(phone, obs, text="Device type")
        return answer(self.expected(params))


@register_task
class BrightnessFromBattery(TaskTemplate):
    name = "settings_brightness_from_battery"
    apps = ("Settings",)
    complexity = 2
    optimal_steps = 7
    goal_template = ("Set the screen brightness to my battery percentage rounded down to a multiple of 10% "
                     "(at {example_battery}% battery that would be {example_level}%).")
    goal_phrasings = (
        ("Match the brightness to the battery level, rounded down to the nearest ten percent (e.g. "
         "{example_battery}% battery -> {example_level}% brightness)."),
        ("Could you check my battery level and set the brightness to it, rounded down to a whole 10% step? "
         "For {example_battery}% it would be {example_level}%."),
        ("Brightness = battery %, rounded down to the nearest 10 (example: {example_battery}% gives "
         "{example_level}%)."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        battery = rng.choice([b for b in range(21, 98) if b % 10])
        level = battery // 10 * 10
        example = rng.choice([b for b in range(13, 98) if b % 10 and b // 10 != battery // 10])
        start = rng.choice([p for p in range(10, 100, 10) if abs(p - level) in (20, 30, 40)])
        return {"battery": battery, "level": level, "start": start, "example_battery": example,
                "example_level": example // 10 * 10}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "battery_level", params["battery"])
        set_brightness_pct(phone, params["start"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        changed = _setting_changes(phone, self, params)
        ok = brightness_pct(phone) == params["level"] and set(changed) == {"system/screen_brightness"}
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if brightness_pct(phone) == params["level"]:
            return COMPLETE  # (a detour's stray change elsewhere is not put back)
        step = navigate(phone, obs, APP, TO_BRIGHTNESS) or dismiss_popups(phone)
        if step is not None:
            return step
        desc = "Increase brightness" if brightness_pct(phone) < params["level"] else "Decrease brightness"
        return click_or_scroll(phone, obs, desc=desc)


@register_task
class TimeZoneHoursAway(TaskTemplate):
    name = "settings_time_zone_hours_away"
    apps = ("Settings",)
    complexity = 3
    optimal_steps = 8
    goal_template = ("I've travelled to a place {hours} {direction} the time zone this phone is set to. "
                     "Set the phone's time zone by hand to the one that is {hours} {direction} the "
                     "current one.")
    goal_phrasings = (
        ("Where I am now is {hours} {direction} the phone's current time zone. Pick that zone "
         "manually in Date & time."),
        ("Could you change the time zone to the one {hours} {direction} what the phone uses now "
         "(automatic time zone off)?"),
        "Time zone: move it {hours} {direction} the current setting, chosen by hand.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        here, there = rng.sample(TIME_ZONES, 2)
        diff = (_zone_offset(there) - _zone_offset(here)) // 60
        hours = f"{abs(diff)} hour" + ("s" if abs(diff) != 1 else "")
        return {"here": here, "zone": there, "hours": hours, "direction": "ahead of" if diff > 0 else "behind",
                "auto_zone": rng.choice((0, 1))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "auto_time_zone", params["auto_zone"])
        phone.put_setting("global", "time_zone", params["here"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = {"global/time_zone": params["zone"]}
        if params["auto_zone"]:
            want["global/auto_time_zone"] = "0"
        ok = _setting_changes(phone, self, params) == want
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if phone.get_setting("global", "time_zone") == params["zone"] \
                and _flag(phone, "global", "auto_time_zone", "0"):
            return COMPLETE
        if _on_datetime_with(phone, "choice"):
            return click_in(obs, "dialog", text=params["zone"]) or BACK
        step = navigate(phone, obs, APP, TO_DATETIME) or dismiss_popups(phone)
        if step is not None:
            return step
        if _flag(phone, "global", "auto_time_zone"):
            return click_or_scroll(phone, obs, text="Set time zone automatically")
        return click_or_scroll(phone, obs, text="Time zone")


@register_task
class FixWrongDateOrTime(TaskTemplate):
    name = "settings_fix_wrong_date_or_time"
    apps = ("Settings",)
    complexity = 3
    optimal_steps = 9
    goal_template = ("This phone's date and time are set by hand and one of the two is wrong: it is really "
                     "{date_text}, {time_text}. Fix whichever is wrong and keep automatic time off.")
    goal_phrasings = (
        ("Either the date or the time on my phone is off (it's really {date_text}, {time_text}). Correct the "
         "wrong one by hand; automatic time stays off."),
        ("Could you check the phone's manual date and time against {date_text}, {time_text} and fix the one "
         "that doesn't match? Don't switch on automatic time."),
        "Real date and time: {date_text}, {time_text}. One of them is wrong on the phone; fix it manually.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        day = DEFAULT_DAY + timedelta(days=rng.randint(-20, 20))
        minutes = rng.randint(7 * 60, 20 * 60)  # the wrong time stays on the same day
        wrong = rng.choice(("date", "time"))
        bad_day = day + timedelta(days=rng.choice([d for d in range(-12, 13) if d]))
        bad_minutes = minutes + rng.choice([d for d in range(-300, 181, 15) if abs(d) >= 30])
        if wrong == "date":
            start_day, start_min = bad_day, minutes
        else:
            start_day, start_min = day, bad_minutes
        h, m = divmod(minutes, 60)
        return {"date": day.isoformat(), "time": [h, m], "date_text": _date_text(day), "time_text": _say_hm(h, m),
                "wrong": wrong, "start_date": start_day.isoformat(), "start_time": list(divmod(start_min, 60))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        d = date.fromisoformat(params["start_date"])
        h, m = params["start_time"]
        phone.put_setting("global", "auto_time", 0)
        phone.now = phone.now.replace(year=d.year, month=d.month, day=d.day, hour=h, minute=m, second=0)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        now = phone.now
        ok = now.date().isoformat() == params["date"] and [now.hour, now.minute] == list(params["time"]) \
            and not _setting_changes(phone, self, params)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        now = phone.now
        if now.date().isoformat() == params["date"] and [now.hour, now.minute] == list(params["time"]) \
                and _flag(phone, "global", "auto_time", "0"):
            return COMPLETE
        want = date.fromisoformat(params["date"])
        if _on_datetime_with(phone, "time_picker"):
            return _time_picker_step(phone, obs, *params["time"])
        if _on_datetime_with(phone, "date_picker"):
            return _date_picker_step(phone, obs, want)
        step = navigate(phone, obs, APP, TO_DATETIME) or dismiss_popups(phone)
        if step is not None:
            return step
        if _flag(phone, "global", "auto_time"):  # switched on by mistake: off again
            return click_or_scroll(phone, obs, text="Set time automatically")
        if phone.now.date() != want:
            return click_or_scroll(phone, obs, text="Date")
        return click_or_scroll(phone, obs, text="Time")


# (what the goal calls it, row title, table, setting, value when on, value when off, path)
MAKE_SURE = (
    ("Wi-Fi", "Wi‑Fi", "global", "wifi_on", "1", "0", TO_INTERNET),
    ("Bluetooth", "Use Bluetooth", "global", "bluetooth_on", "1", "0", TO_BLUETOOTH),
    ("airplane mode", "Airplane mode", "global", "airplane_mode_on", "1", "0", TO_NETWORK),
    ("dark theme", "Dark theme", "secure", "ui_night_mode", "2", "1", TO_DISPLAY),
    ("adaptive brightness", "Adaptive brightness", "system", "screen_brightness_mode", "1", "0", TO_DISPLAY),
    ("auto-rotate screen", "Auto-rotate screen", "system", "accelerometer_rotation", "1", "0", TO_DISPLAY),
    ("the 24-hour time format", "Use 24-hour format", "system", "time_12_24", "24", "12", TO_DATETIME),
    ("automatic time zone", "Set time zone automatically", "global", "auto_time_zone", "1", "0", TO_DATETIME),
)


@register_task
class MakeSureSwitches(TaskTemplate):
    name = "settings_make_sure_switches"
    apps = ("Settings",)
    complexity = 3
    optimal_steps = 6
    goal_template = ("Make sure {first} is {first_state}, {second} is {second_state} and {third} is "
                     "{third_state}. Some of that may already be set; leave everything else as it is.")
    goal_phrasings = (
        ("I want {first} {first_state}, {second} {second_state} and {third} {third_state}. Check each one and "
         "only change what isn't that way yet."),
        ("Could you go through these and fix any that aren't right: {first} {first_state}, {second} "
         "{second_state}, {third} {third_state}?"),
        "End state wanted: {first} {first_state}; {second} {second_state}; {third} {third_state}. Touch nothing else.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        picks = rng.sample(range(len(MAKE_SURE)), 3)
        states = [rng.choice(("on", "off")) for _ in picks]
        already = rng.choice([(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0), (1, 0, 1), (0, 1, 1)])
        p: dict[str, Any] = {"switches": picks, "states": states, "already": list(already)}
        for slot, i, state in zip(("first", "second", "third"), picks, states):
            p[slot], p[f"{slot}_state"] = MAKE_SURE[i][0], state
        return p

    def _want(self, params: dict[str, Any]) -> dict[str, str]:
        return {f"{MAKE_SURE[i][2]}/{MAKE_SURE[i][3]}": MAKE_SURE[i][4] if s == "on" else MAKE_SURE[i][5]
                for i, s in zip(params["switches"], params["states"])}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, state, done in zip(params["switches"], params["states"], params["already"]):
            _, _, table, setting, on_value, off_value, _ = MAKE_SURE[i]
            phone.put_setting(table, setting, on_value if (state == "on") == bool(done) else off_value)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        todo = {f"{MAKE_SURE[i][2]}/{MAKE_SURE[i][3]}" for i, d in zip(params["switches"], params["already"])
                if not d}
        want = {k: v for k, v in self._want(params).items() if k in todo}
        return 1.0 if _setting_changes(phone, self, params) == want else 0.0  # the set ones untouched

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        for i, state in zip(params["switches"], params["states"]):
            _, row, table, setting, on_value, off_value, path = MAKE_SURE[i]
            if phone.get_setting(table, setting) != (on_value if state == "on" else off_value):
                return navigate(phone, obs, APP, path) or dismiss_popups(phone) or click_or_scroll(phone, obs, text=row)
        return COMPLETE


@register_task
class MediaVolumeIfHeadphones(TaskTemplate):
    name = "settings_media_volume_if_headphones"
    apps = ("Settings",)
    complexity = 3
    optimal_steps = 6
    goal_template = ("If my \"{device}\" is connected over Bluetooth right now, set the media volume to {level}; "
                     "if it isn't connected, just turn Bluetooth off instead.")
    goal_phrasings = (
        ("Check whether \"{device}\" is connected. Connected: media volume to {level}. Not connected: switch "
         "Bluetooth off and leave the volume."),
        ("Could you look at my Bluetooth devices? With \"{device}\" connected I want the media volume at "
         "{level}; without it, I don't need Bluetooth, so turn it off."),
        "\"{device}\" connected -> media volume {level}. Otherwise -> Bluetooth off. Nothing else.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        device, lookalike = rng.sample(_of_kind("headphones"), 2)
        others = rng.sample(_not_kind("headphones"), 2)
        names = [device, lookalike, *others]
        rng.shuffle(names)
        start = rng.randint(3, 12)
        level = rng.choice([v for v in range(2, 14) if abs(v - start) in (2, 3, 4)])
        return {"device": device, "lookalike": lookalike, "names": names, "connected": rng.choice((0, 1)),
                "level": level, "start": start}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "bluetooth_on", 1)
        phone.put_setting("system", "volume_music", params["start"])
        # either the named headphones or the other pair are connected: "Connected" shows in both cases
        _plant_bt(phone, params["names"], (params["device"] if params["connected"] else params["lookalike"],))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        changed = _setting_changes(phone, self, params)
        added, removed, bt_changed = _bt_changes(phone, self, params)
        if params["connected"]:
            ok = changed == {"system/volume_music": str(params["level"])} and not bt_changed
        else:  # Bluetooth off drops the other pair's connection, and nothing else
            ok = changed == {"global/bluetooth_on": "0"} and _changed_to(bt_changed, {params["lookalike"]: (1, 0)})
        return 1.0 if ok and not added and not removed else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if params["connected"]:
            step = navigate(phone, obs, APP, TO_SOUND) or dismiss_popups(phone)
            if step is not None:
                return step
            cur = phone.get_int("system", "volume_music", 0)
            if cur == params["level"]:
                return COMPLETE
            verb = "Increase" if cur < params["level"] else "Decrease"
            return click_or_scroll(phone, obs, desc=f"{verb} media volume")
        if not _flag(phone, "global", "bluetooth_on"):
            return COMPLETE  # off already, yet not a success: something else was changed on the way
        return navigate(phone, obs, APP, TO_BLUETOOTH) or dismiss_popups(phone) or \
            click_or_scroll(phone, obs, text="Use Bluetooth")


@register_task
class CapLoudVolumes(TaskTemplate):
    name = "settings_cap_loud_volumes"
    apps = ("Settings",)
    complexity = 3
    optimal_steps = 7
    goal_template = ("Turn every volume slider that is above {cap} down to exactly {cap}; leave the ones at {cap} "
                     "or below as they are.")
    goal_phrasings = (
        "No volume should be higher than {cap}: lower each slider that's above {cap} to {cap}, don't touch the rest.",
        ("Could you cap all my volume levels at {cap}? Anything louder goes down to {cap}; quieter ones stay "
         "where they are."),
        "Sound & vibration: every slider above {cap} -> {cap}. Sliders at or under {cap} unchanged.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        cap = rng.randint(2, 4)
        keys = list(VOLUME_ROWS)
        quiet = rng.sample([k for k in keys if k != "media"], rng.choice((1, 2)))
        levels = {k: rng.randint(0, cap) if k in quiet else rng.randint(cap + 1, min(cap + 4, VOLUME_ROWS[k][2]))
                  for k in keys}
        return {"cap": cap, "levels": levels}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for k, (_, setting, _) in VOLUME_ROWS.items():
            phone.put_setting("system", setting, params["levels"][k])

    def _want(self, params: dict[str, Any]) -> dict[str, str]:
        return {f"system/{VOLUME_ROWS[k][1]}": str(params["cap"]) for k, v in params["levels"].items()
                if v > params["cap"]}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if _setting_changes(phone, self, params) == self._want(params) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = navigate(phone, obs, APP, TO_SOUND) or dismiss_popups(phone)
        if step is not None:
            return step
        for k, (label, setting, _) in VOLUME_ROWS.items():
            cur, start = phone.get_int("system", setting, 0), params["levels"][k]
            want = min(start, params["cap"])
            if cur != want:
                verb = "Increase" if cur < want else "Decrease"
                return click_or_scroll(phone, obs, desc=f"{verb} {label.lower()}")
        return COMPLETE


@register_task
class OnlyOneBluetoothConnected(TaskTemplate):
    name = "settings_only_one_bluetooth_connected"
    apps = ("Settings",)
    complexity = 3
    optimal_steps = 8
    goal_template = ("Make \"{device}\" the only Bluetooth device connected to my phone: connect it if it isn't "
                     "already and disconnect anything else, but keep every device saved.")
    goal_phrasings = (
        ("I only want \"{device}\" connected over Bluetooth. Disconnect whatever else is connected (don't forget "
         "anything) and make sure \"{device}\" is connected."),
        ("Could you see to it that \"{device}\" is connected and no other Bluetooth device is? All devices stay "
         "paired."),
        "Bluetooth: \"{device}\" connected, every other saved device disconnected, none forgotten.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        names = rng.sample(sorted(BT_CATALOG), 5)
        device = rng.choice(names)
        rest = [n for n in names if n != device]
        return {"device": device, "names": names, "device_on": rng.choice((0, 1)),
                "others_on": sorted(rng.sample(rest, rng.choice((1, 2))))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "bluetooth_on", 1)
        on = tuple(params["others_on"]) + ((params["device"],) if params["device_on"] else ())
        _plant_bt(phone, params["names"], on)

    def _want(self, params: dict[str, Any]) -> dict[str, tuple[int, int]]:
        want = {n: (1, 0) for n in params["others_on"]}
        if not params["device_on"]:
            want[params["device"]] = (1, 1)
        return want

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = _bt_changes(phone, self, params)
        ok = not added and not removed and _changed_to(changed, self._want(params)) \
            and not _setting_changes(phone, self, params)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if not _flag(phone, "global", "bluetooth_on"):  # switched off by mistake
            return navigate(phone, obs, APP, TO_BLUETOOTH) or dismiss_popups(phone) or \
                click_or_scroll(phone, obs, text="Use Bluetooth")
        other = phone.query_one("SELECT _id FROM bluetooth_devices WHERE connected=1 AND paired=1 AND name<>? "
                                "ORDER BY name", (params["device"],))
        if other is not None:
            return _open_bt(phone, obs, other[0]) or click(obs, text="Disconnect", resource_id="btn_connect") or BACK
        mine = phone.query_one("SELECT _id, paired, connected FROM bluetooth_devices WHERE name=?", (params["device"],))
        if mine["paired"] and not mine["connected"]:
            return _open_bt(phone, obs, mine["_id"]) or click(obs, text="Connect", resource_id="btn_connect") or BACK
        return navigate(phone, obs, APP, TO_CONNECTED) or COMPLETE  # something forgotten: cannot be undone


# ---- round 5: the search's result rows, derived targets (a zone, a date, a time, a level), counts across screens,
# if-type-then-connect-else-forget, reverse look-ups and rankings ----------------------------------------
def _via_search(phone: Phone, obs: Observation, term: str, title: str, target: str) -> Action | None:
    """Next action toward screen ``target`` through the Settings search (type ``term``, open the result
    ``title``); None once on ``target``. Dialogs on ``target`` are left to the caller."""
    scr = phone.screen
    if phone.foreground == APP and scr is not None and scr.name == target:
        return None
    if phone.foreground == APP and scr is not None and scr.name == "search":
        if phone.dialog is not None or phone.menu_open:
            return BACK
        if search_key(scr.fields.get("query", "")) != search_key(term):
            i = find(obs, editable=True, resource_id="search_src_text")
            return BACK if i is None else Action(action_type="input_text", index=i, text=term)
        return click_or_scroll(phone, obs, text=title, resource_id="search_result")
    return navigate(phone, obs, APP, TO_SEARCH)


def _shown_or_scroll(phone: Phone, obs: Observation, **criteria: Any) -> Action | None:
    """None when an element matching ``criteria`` is on screen, else a scroll (or click) toward it."""
    return None if find(obs, **criteria) is not None else click_or_scroll(phone, obs, **criteria)


@register_task
class TimeZoneWhereClockReads(TaskTemplate):
    name = "settings_time_zone_where_clock_reads"
    apps = ("Settings",)
    complexity = 3
    optimal_steps = 8
    goal_template = ("My sister just texted that it's {target_text} where she is. Going by this phone's clock and "
                     "its current time zone, set the phone's time zone by hand to the one where it is "
                     "{target_text} right now.")
    goal_phrasings = (
        ("It's {target_text} right now where I'm flying to. Work out from the phone's own time and time zone "
         "which zone that is, and pick it manually."),
        ("Could you switch the phone's time zone (by hand) to whichever zone is at {target_text} at this "
         "moment, judging by the time and zone the phone shows now?"),
        ("Time zone wanted: the one where the clock reads {target_text} now (compare with the phone's clock). "
         "Set it manually."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        here, there = rng.sample(TIME_ZONES, 2)
        shift = _zone_offset(there) - _zone_offset(here)
        lo, hi = max(60, 60 - shift), min(23 * 60 - 1, 23 * 60 - 1 - shift)  # the same day in both zones
        local = rng.randrange(lo, hi + 1)
        target = local + shift
        return {"here": here, "zone": there, "local": list(divmod(local, 60)),
                "target_text": _say_hm(*divmod(target, 60)), "auto_zone": rng.choice((0, 1))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        h, m = params["local"]
        phone.put_setting("global", "auto_time_zone", params["auto_zone"])
        phone.put_setting("global", "time_zone", params["here"])
        phone.put_setting("system", "time_12_24", "12")
        phone.now = phone.now.replace(hour=h, minute=m, second=0)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = {"global/time_zone": params["zone"]}
        if params["auto_zone"]:
            want["global/auto_time_zone"] = "0"
        return 1.0 if _setting_changes(phone, self, params) == want else 0.0

    def _to_datetime(self, phone: Phone, obs: Observation) -> Action | None:
        return _via_search(phone, obs, "Time zone", "Time zone", "datetime")

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if phone.get_setting("global", "time_zone") == params["zone"] \
                and _flag(phone, "global", "auto_time_zone", "0"):
            return COMPLETE
        step = look_first(phone, "phone time and zone", lambda: self._to_datetime(phone, obs)
                          or dismiss_popups(phone) or _shown_or_scroll(phone, obs, text="Time zone"))
        if step is not None:
            return step
        if _on_datetime_with(phone, "choice"):
            return click_in(obs, "dialog", text=params["zone"]) or BACK
        step = self._to_datetime(phone, obs) or dismiss_popups(phone)
        if step is not None:
            return step
        if _flag(phone, "global", "auto_time_zone"):
            return click_or_scroll(phone, obs, text="Set time zone automatically")
        return click_or_scroll(phone, obs, text="Time zone")


@register_task
class ConnectOrForgetByType(TaskTemplate):
    name = "settings_connect_or_forget_by_type"
    apps = ("Settings",)
    complexity = 3
    optimal_steps = 6
    goal_template = ("I don't remember what my saved Bluetooth device \"{device}\" is. If its device type is "
                     "{kind}, connect it; if it's any other type, forget it.")
    goal_phrasings = (
        ("Check the details of \"{device}\" in my Bluetooth devices: a {kind} gets connected, anything else "
         "gets forgotten."),
        ("Could you look up what type \"{device}\" is? Connect it if it's a {kind}; otherwise remove it from "
         "my saved devices."),
        "\"{device}\": type {kind} -> connect it. Any other type -> forget it. Leave the other devices alone.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        kind = rng.choice(("headphones", "speaker", "watch", "car"))
        is_kind = rng.choice((0, 1))
        device = rng.choice(_of_kind(kind) if is_kind else _not_kind(kind))
        mate = rng.choice([n for n in _of_kind(kind) if n != device])  # a device of that type, not named
        others = rng.sample([n for n in _not_kind(kind) if n != device], 2)
        names = [device, mate, *others]
        rng.shuffle(names)
        return {"device": device, "kind": kind, "is_kind": is_kind, "names": names,
                "others_on": rng.choice([[], [others[0]], [mate]])}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "bluetooth_on", 1)
        _plant_bt(phone, params["names"], tuple(params["others_on"]))

    def _want(self, params: dict[str, Any]) -> dict[str, tuple[int, int]]:
        return {params["device"]: (1, 1) if params["is_kind"] else (0, 0)}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = _bt_changes(phone, self, params)
        ok = not added and not removed and _changed_to(changed, self._want(params)) \
            and not _setting_changes(phone, self, params)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        did = _bt_id(phone, params["device"])
        dlg = phone.dialog
        if dlg is not None and dlg.name == "confirm" and phone.foreground == APP \
                and dlg.data.get("args", {}).get("device_id") == did and not params["is_kind"]:
            return click_in(obs, "dialog", text="Forget device") or BACK
        row = phone.query_one("SELECT paired, connected FROM bluetooth_devices WHERE _id=?", (did,))
        if not row["paired"] or (params["is_kind"] and row["connected"]):
            return COMPLETE  # done as far as it goes (a forgotten device cannot be paired again here)
        if not _flag(phone, "global", "bluetooth_on"):  # switched off by mistake
            return navigate(phone, obs, APP, TO_BLUETOOTH) or dismiss_popups(phone) or \
                click_or_scroll(phone, obs, text="Use Bluetooth")
        step = _open_bt(phone, obs, did) or _shown_or_scroll(phone, obs, text="Device type")
        if step is not None:
            return step
        if params["is_kind"]:
            return click(obs, text="Connect", resource_id="btn_connect") or BACK
        return click(obs, text="Forget", resource_id="btn_forget") or BACK


@register_task
class BrightnessLikeMediaVolume(TaskTemplate):
    name = "settings_brightness_like_media_volume"
    apps = ("Settings",)
    complexity = 3
    optimal_steps = 9
    goal_template = ("Set the screen brightness to the same percentage that my media volume is at, counted "
                     "out of the media slider's maximum.")
    goal_phrasings = (
        "Make the brightness level match the media volume as a share of its maximum (same percent).",
        ("Could you look at how far up my media volume is, as a percentage of its top level, and set the "
         "brightness to that percentage?"),
        "Brightness % = media volume / its maximum, in percent. Change only the brightness.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        fifth = rng.randint(1, 4)  # media 3, 6, 9 or 12 of 15: 20%, 40%, 60% or 80%
        pct = fifth * 20
        start = rng.choice([p for p in range(10, 100, 10) if abs(p - pct) in (20, 30, 40)])
        ring = rng.choice([r for r in range(1, 7) if round(r * 100 / 7) != pct])
        return {"media": fifth * 3, "percent": pct, "start": start, "ring": ring, "call": rng.randint(1, 4)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("system", "volume_music", params["media"])
        phone.put_setting("system", "volume_ring", params["ring"])
        phone.put_setting("system", "volume_voice", params["call"])
        set_brightness_pct(phone, params["start"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = brightness_pct(phone) == params["percent"] \
            and set(_setting_changes(phone, self, params)) == {"system/screen_brightness"}
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if brightness_pct(phone) == params["percent"]:
            return COMPLETE
        step = look_first(phone, "media volume", lambda: navigate(phone, obs, APP, TO_SOUND)
                          or dismiss_popups(phone) or _shown_or_scroll(phone, obs, desc="Media volume"))
        if step is not None:
            return step
        step = navigate(phone, obs, APP, TO_BRIGHTNESS) or dismiss_popups(phone)
        if step is not None:
            return step
        up = brightness_pct(phone) < params["percent"]
        return click_or_scroll(phone, obs, desc="Increase brightness" if up else "Decrease brightness")


# (how long the user needs, the shortest timeout option at least that long)
TIMEOUT_NEEDS = (("20 seconds", "30 seconds"), ("45 seconds", "1 minute"), ("90 seconds", "2 minutes"),
                 ("3 minutes", "5 minutes"), ("4 minutes", "5 minutes"), ("7 minutes", "10 minutes"),
                 ("15 minutes", "30 minutes"), ("20 minutes", "30 minutes"))


@register_task
class TimeoutAtLeast(TaskTemplate):
    name = "settings_timeout_at_least"
    apps = ("Settings",)
    complexity = 2
    optimal_steps = 7
    goal_template = ("I follow recipes on my phone and need the screen to stay on for at least {need} without "
                     "me touching it. Set the screen timeout to the shortest option that is at least that long.")
    goal_phrasings = (
        ("The screen must not turn off before {need} of inactivity. Pick the smallest screen timeout choice "
         "that gives me that much."),
        ("Could you set the screen timeout to the shortest available option of {need} or more? I need the "
         "screen on that long."),
        "Screen timeout: shortest choice >= {need}.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        need, label = rng.choice(TIMEOUT_NEEDS)
        below = [lbl for lbl, ms in TIMEOUTS if ms < TIMEOUT_MS[label]]
        start = rng.choice([lbl for lbl, _ in TIMEOUTS if lbl != label])
        return {"need": need, "label": label, "below": below[-1], "start": start}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("system", "screen_off_timeout", TIMEOUT_MS[params["start"]])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = {"system/screen_off_timeout": str(TIMEOUT_MS[params["label"]])}
        return 1.0 if _setting_changes(phone, self, params) == want else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if phone.get_int("system", "screen_off_timeout") == TIMEOUT_MS[params["label"]]:
            return COMPLETE
        scr, dlg = phone.screen, phone.dialog
        if dlg is not None and dlg.name == "choice" and phone.foreground == APP and scr is not None \
                and scr.name == "display":
            return click_or_scroll(phone, obs, text=params["label"], class_contains="RadioButton")
        step = _via_search(phone, obs, "Screen timeout", "Screen timeout", "display") or dismiss_popups(phone)
        return step or click_or_scroll(phone, obs, text="Screen timeout")


@register_task
class DateAfterSecurityUpdate(TaskTemplate):
    name = "settings_date_after_security_update"
    apps = ("Settings",)
    complexity = 3
    optimal_steps = 14
    goal_template = ("I'm testing an app that warns about old security patches. Turn off automatic date & time "
                     "and set the phone's date to exactly {days} days after its Android security update date.")
    goal_phrasings = (
        ("Set the phone's date by hand to the day that is {days} days after the Android security update "
         "date shown in About phone (automatic date & time off)."),
        ("Could you move the phone's date to {days} days past its security update date? Switch off "
         "automatic time first."),
        "Phone date = Android security update date + {days} days, set manually.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        patch = date.fromisoformat(rng.choice(PATCH_DATES))
        days = rng.choice([d for d in (30, 45, 50, 60, 75, 90) if patch + timedelta(days=d) != DEFAULT_DAY])
        return {"patch": patch.isoformat(), "days": days, "date": (patch + timedelta(days=days)).isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("UPDATE device_info SET value=? WHERE name='security_patch'",
                      (_date_text(date.fromisoformat(params["patch"])),))
        phone.put_setting("global", "auto_time", 1)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = phone.now.date().isoformat() == params["date"] \
            and _setting_changes(phone, self, params) == {"global/auto_time": "0"}
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        want = date.fromisoformat(params["date"])
        if phone.now.date() == want and _flag(phone, "global", "auto_time", "0"):
            return COMPLETE
        step = look_first(phone, "security update date", lambda: navigate(phone, obs, APP, TO_ANDROID_VERSION)
                          or dismiss_popups(phone) or _shown_or_scroll(phone, obs, text="Android security update"))
        if step is not None:
            return step
        if _on_datetime_with(phone, "date_picker"):
            return _date_picker_step(phone, obs, want)
        step = navigate(phone, obs, APP, TO_DATETIME) or dismiss_popups(phone)
        if step is not None:
            return step
        if _flag(phone, "global", "auto_time"):
            return click_or_scroll(phone, obs, text="Set time automatically")
        return click_or_scroll(phone, obs, text="Date")


@register_task
class SetTimeFromOtherZone(TaskTemplate):
    name = "settings_set_time_from_other_zone"
    apps = ("Settings",)
    complexity = 3
    optimal_steps = 10
    goal_template = ("This phone's clock is set by hand and it is wrong. It's {ref_text} in {ref_zone} right now: "
                     "set the phone's time so it is right for the phone's own time zone (keep that time zone and "
                     "the date).")
    goal_phrasings = (
        ("My manual clock is off. The time in {ref_zone} is {ref_text} at the moment; convert that to the time "
         "zone the phone is set to and set the phone's time to it."),
        ("Could you correct the phone's time by hand? It is {ref_text} in {ref_zone} now, and the phone should "
         "show the matching time for its own zone. Don't change the zone or the date."),
        "Right now: {ref_text} in {ref_zone}. Set the phone's clock to the same moment in its own time zone.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        here, ref_zone = rng.sample(TIME_ZONES, 2)
        shift = _zone_offset(here) - _zone_offset(ref_zone)  # phone time = reference time + shift
        lo, hi = max(60, 60 - shift), min(23 * 60 - 1, 23 * 60 - 1 - shift)
        ref = rng.randrange(lo, hi + 1)
        target = ref + shift
        wrong = target + rng.choice([d for d in range(-240, 241, 5) if abs(d) >= 20 and 0 < target + d < 24 * 60])
        return {"here": here, "ref_zone": ref_zone, "ref_text": _say_hm(*divmod(ref, 60)),
                "time": list(divmod(target, 60)), "start": list(divmod(wrong, 60))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        h, m = params["start"]
        phone.put_setting("global", "auto_time", 0)
        phone.put_setting("global", "auto_time_zone", 0)
        phone.put_setting("global", "time_zone", params["here"])
        phone.now = phone.now.replace(hour=h, minute=m, second=0)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        now = phone.now
        ok = [now.hour, now.minute] == list(params["time"]) and now.date() == DEFAULT_DAY \
            and not _setting_changes(phone, self, params)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        now = phone.now
        if [now.hour, now.minute] == list(params["time"]) and now.date() == DEFAULT_DAY \
                and _flag(phone, "global", "auto_time", "0"):
            return COMPLETE
        step = look_first(phone, "phone time zone", lambda: navigate(phone, obs, APP, TO_DATETIME)
                          or dismiss_popups(phone) or _shown_or_scroll(phone, obs, text="Time zone"))
        if step is not None:
            return step
        if _on_datetime_with(phone, "time_picker"):
            return _time_picker_step(phone, obs, *params["time"])
        if _on_datetime_with(phone, "date_picker"):
            return _date_picker_step(phone, obs, DEFAULT_DAY)
        step = navigate(phone, obs, APP, TO_DATETIME) or dismiss_popups(phone)
        if step is not None:
            return step
        if _flag(phone, "global", "auto_time"):  # switched on by mistake
            return click_or_scroll(phone, obs, text="Set time automatically")
        if now.date() != DEFAULT_DAY:
            return click_or_scroll(phone, obs, text="Date")
        return click_or_scroll(phone, obs, text="Time")


FAST_WORDS, SLOW_WORDS = {"fast", "ahead"}, {"slow", "behind"}


@register_task
class QueryClockOffset(TaskTemplate):
    name = "settings_query_clock_offset"
    apps = ("Settings",)
    kind = "query"
    complexity = 2
    optimal_steps = 6
    goal_template = ("It's really {real_text} right now. Is this phone's clock fast or slow, and by how many "
                     "minutes? (Its time is set by hand.)")
    goal_phrasings = (
        "The correct time is {real_text}. By how many minutes is the phone's manually set clock off, and is it ahead or behind?",
        ("Could you compare the time in the phone's Date & time settings with the real time, {real_text}, and "
         "tell me how many minutes fast or slow it is?"),
        "Real time {real_text}. Phone clock: how many minutes fast or slow?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        real = rng.randint(8 * 60, 20 * 60)
        offset = rng.choice([d for d in range(-55, 56) if abs(d) >= 3])
        return {"real_text": _say_hm(*divmod(real, 60)), "offset": offset,
                "phone": list(divmod(real + offset, 60))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        h, m = params["phone"]
        phone.put_setting("global", "auto_time", 0)
        phone.now = phone.now.replace(hour=h, minute=m, second=0)

    def expected(self, params: dict[str, Any]) -> str:
        return f"{abs(params['offset'])} minutes {'fast' if params['offset'] > 0 else 'slow'}"

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if answer is None:
            return 0.0
        tokens = set(normalize_answer(answer))
        fast, slow = bool(tokens & FAST_WORDS), bool(tokens & SLOW_WORDS)
        nums = {n.replace(",", "") for n in NUMBER.findall(answer)}
        ok = fast != slow and fast == (params["offset"] > 0) and nums == {str(abs(params["offset"]))}
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = navigate(phone, obs, APP, TO_DATETIME) or dismiss_popups(phone) or \
            _shown_or_scroll(phone, obs, text="Time")
        return step or answer(self.expected(params))


VOLUME_KEYS = {"media": "media", "call": "call", "ring": "ring", "notification": "ring", "ringer": "ring",
               "alarm": "alarm"}


def _order_named(text: str) -> list[str]:
    """The volume sliders an answer names, in the order it first names them."""
    out: list[str] = []
    for tok in normalize_answer(text):
        k = VOLUME_KEYS.get(tok)
        if k is not None and k not in out:
            out.append(k)
    return out


@register_task
class QueryVolumeRanking(TaskTemplate):
    name = "settings_query_volume_ranking"
    apps = ("Settings",)
    kind = "query"
    complexity = 3
    optimal_steps = 4
    goal_template = ("Rank my four volume sliders (media, call, ring & notification, alarm) from loudest to "
                     "quietest, each counted as a share of its own slider's maximum.")
    goal_phrasings = (
        ("Order the media, call, ring & notification and alarm volumes from highest to lowest, relative to "
         "each slider's maximum."),
        ("Could you list my volume sliders from the one turned up furthest to the one turned down most, as a "
         "fraction of each one's top level?"),
        "Volumes, loudest first, by percent of each slider's max: media, call, ring & notification, alarm.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        while True:
            levels = {k: rng.randint(1, mx - 1) for k, (_, _, mx) in VOLUME_ROWS.items()}
            share = {k: levels[k] / VOLUME_ROWS[k][2] for k in levels}
            by_share = sorted(levels, key=lambda k: -share[k])
            by_level = sorted(levels, key=lambda k: -levels[k])
            if len(set(share.values())) == 4 and len(set(levels.values())) == 4 and by_share != by_level:
                return {"levels": levels, "order": by_share, "by_level": by_level}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for k, (_, setting, _) in VOLUME_ROWS.items():
            phone.put_setting("system", setting, params["levels"][k])

    def expected(self, params: dict[str, Any]) -> str:
        return ", then ".join(VOLUME_ROWS[k][0] for k in params["order"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer is not None and _order_named(answer) == list(params["order"]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = navigate(phone, obs, APP, TO_SOUND) or dismiss_popups(phone) or \
            _shown_or_scroll(phone, obs, desc="Alarm volume")
        return step or answer(self.expected(params))


KIND_WORDS = {"headphones": "pair of headphones", "speaker": "speaker", "watch": "watch", "car": "car"}


@register_task
class QueryConnectedDeviceIsKind(TaskTemplate):
    name = "settings_query_connected_device_is_kind"
    apps = ("Settings",)
    kind = "query"
    complexity = 3
    optimal_steps = 5
    goal_template = "Is the Bluetooth device that's connected to my phone right now a {what}? Answer yes or no."
    goal_phrasings = (
        "Whatever is connected over Bluetooth at the moment: is it a {what}? Yes or no.",
        "Could you check the device type of the Bluetooth device I'm connected to and tell me if it's a {what} (yes or no)?",
        "Connected Bluetooth device = a {what}? Answer yes or no.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        kind = rng.choice(sorted(KIND_WORDS))
        yes = rng.choice((0, 1))
        device = rng.choice(_of_kind(kind) if yes else _not_kind(kind))
        # a saved but idle look-alike: of that type when the answer is no, of another type when it is yes
        lookalike = rng.choice([n for n in (_not_kind(kind) if yes else _of_kind(kind)) if n != device])
        others = rng.sample([n for n in BT_CATALOG if n not in (device, lookalike)], 2)
        names = [device, lookalike, *others]
        rng.shuffle(names)
        return {"what": KIND_WORDS[kind], "kind": kind, "device": device, "names": names, "yes": yes}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "bluetooth_on", 1)
        _plant_bt(phone, params["names"], (params["device"],))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        said = _yes_no(answer)
        return 1.0 if said is not None and said == bool(params["yes"]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        gone = not phone.query_one("SELECT paired FROM bluetooth_devices WHERE name=?", (params["device"],))[0]
        if gone or not _flag(phone, "global", "bluetooth_on"):  # forgotten or switched off on the way
            return navigate(phone, obs, APP, TO_CONNECTED) or answer("Yes" if params["yes"] else "No")
        step = _open_bt(phone, obs, _bt_id(phone, params["device"])) or \
            _shown_or_scroll(phone, obs, text="Device type")
        return step or answer("Yes" if params["yes"] else "No")


@register_task
class QueryBluetoothDeviceByAddress(TaskTemplate):
    name = "settings_query_bluetooth_device_by_address"
    apps = ("Settings",)
    kind = "query"
    complexity = 3
    optimal_steps = 9
    goal_template = ("A log on my laptop shows a Bluetooth device whose address ends in {suffix}. Which of the "
                     "devices saved on my phone is that? Answer with its name.")
    goal_phrasings = (
        "Which of my saved Bluetooth devices has an address ending in {suffix}? Give its name.",
        ("Could you check the Bluetooth addresses of my saved devices and tell me which one ends with "
         "{suffix}?"),
        "Saved Bluetooth device with address ...{suffix}: what's it called?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        names = rng.sample(sorted(BT_CATALOG), rng.choice((4, 5)))
        device = rng.choice(names)
        # set-up plants the devices in this order into an emptied table: ids 1, 2, ...
        suffix = _bt_address(names.index(device) + 1)[-5:]
        return {"names": names, "device": device, "suffix": suffix}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        _plant_bt(phone, params["names"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = answer_matches(answer, params["device"]) \
            and not any(answer_matches(answer, n) for n in params["names"] if n != params["device"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        # opens the saved devices in list order until the address matches (as a person would)
        paired = {r[0] for r in phone.query("SELECT name FROM bluetooth_devices WHERE paired=1")}
        if params["device"] not in paired:  # forgotten on the way: its page is gone, the answer is not
            return answer(params["device"])
        for name in sorted(n for n in params["names"] if n in paired):
            did = _bt_id(phone, name)
            look = lambda did=did: _open_bt(phone, obs, did) or \
                _shown_or_scroll(phone, obs, text="Device's Bluetooth address")
            if name != params["device"]:
                step = look_first(phone, f"address of device {did}", look)
                if step is not None:
                    return step
                continue
            return look() or answer(params["device"])
        raise TaskError(f"no saved device {params['device']!r}")


@register_task
class DateToNextWeekday(TaskTemplate):
    name = "settings_date_to_next_weekday"
    apps = ("Settings",)
    complexity = 3
    optimal_steps = 8
    goal_template = ("This phone's date is set by hand and I want to try what an app does on {weekday}s. Move the "
                     "phone's date forward to the next {weekday} after the date it shows now; keep everything else.")
    goal_phrasings = (
        ("Set the phone's manual date to the first {weekday} that comes after its current date (leave automatic "
         "time off)."),
        "Could you move the phone's date ahead to the coming {weekday}, counting from the date it is set to?",
        "Phone date -> the next {weekday} after the one shown in Date & time. Nothing else changes.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        # at least a week away from the real date, so "the next one after today" is another day
        start = DEFAULT_DAY + timedelta(days=rng.choice([d for d in range(-30, 31) if abs(d) >= 7]))
        ahead = rng.randint(1, 6)
        target = start + timedelta(days=ahead)
        return {"start": start.isoformat(), "weekday": WEEKDAYS[target.weekday()], "date": target.isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        d = date.fromisoformat(params["start"])
        phone.put_setting("global", "auto_time", 0)
        phone.now = phone.now.replace(year=d.year, month=d.month, day=d.day)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = phone.now.date().isoformat() == params["date"] and not _setting_changes(phone, self, params)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        want = date.fromisoformat(params["date"])
        if phone.now.date() == want and _flag(phone, "global", "auto_time", "0"):
            return COMPLETE
        step = look_first(phone, "phone date", lambda: navigate(phone, obs, APP, TO_DATETIME)
                          or dismiss_popups(phone) or _shown_or_scroll(phone, obs, text="Date"))
        if step is not None:
            return step
        if _on_datetime_with(phone, "date_picker"):
            return _date_picker_step(phone, obs, want)
        step = navigate(phone, obs, APP, TO_DATETIME) or dismiss_popups(phone)
        if step is not None:
            return step
        if _flag(phone, "global", "auto_time"):  # switched on by mistake
            return click_or_scroll(phone, obs, text="Set time automatically")
        return click_or_scroll(phone, obs, text="Date")


@register_task
class QuerySwitchesOnCount(TaskTemplate):
    name = "settings_query_switches_on_count"
    apps = ("Settings",)
    kind = "query"
    complexity = 3
    optimal_steps = 12
    goal_template = ("Of these four, how many are switched on right now: {first}, {second}, {third} and {fourth}? "
                     "Answer with a number.")
    goal_phrasings = (
        "Count how many of {first}, {second}, {third} and {fourth} are turned on at the moment.",
        ("Could you check {first}, {second}, {third} and {fourth} in Settings and tell me how many of them are "
         "on?"),
        "On right now, out of {first} / {second} / {third} / {fourth}: how many?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        picks = sorted(rng.sample(range(len(MAKE_SURE)), 4))  # in the order of MAKE_SURE: screen by screen
        order = picks[:]
        rng.shuffle(order)
        count = rng.randint(1, 3)
        on = sorted(rng.sample(picks, count))
        p: dict[str, Any] = {"switches": picks, "on": on, "count": count}
        for slot, i in zip(("first", "second", "third", "fourth"), order):
            p[slot] = MAKE_SURE[i][0]
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i in params["switches"]:
            _, _, table, setting, on_value, off_value, _ = MAKE_SURE[i]
            phone.put_setting(table, setting, on_value if i in params["on"] else off_value)

    def expected(self, params: dict[str, Any]) -> str:
        return str(params["count"])  # as set up: a switch flipped afterwards does not change the answer

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer is not None and _only_number(answer, self.expected(params)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        for i in params["switches"]:  # each switch's own screen, once
            _, row, _, _, _, _, path = MAKE_SURE[i]
            step = look_first(phone, f"switch {row}", lambda path=path, row=row: navigate(phone, obs, APP, path)
                              or dismiss_popups(phone) or _shown_or_scroll(phone, obs, text=row))
            if step is not None:
                return step
        return answer(self.expected(params))
