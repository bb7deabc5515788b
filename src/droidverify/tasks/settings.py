"""Settings app tasks: toggles (both directions), levels, choices, renaming and queries.

Checkers read the settings tables / device_info (never the agent's claims). Every set-up puts the
phone in a state that is NOT the goal, so an agent that does nothing fails.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any, ClassVar

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim.apps.settings import TIME_ZONES, TIMEOUTS, brightness_pct, set_brightness_pct
from droidverify.env.sim.phone import Phone
from droidverify.env.sim.timeutil import MONTHS
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
    navigate,
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
