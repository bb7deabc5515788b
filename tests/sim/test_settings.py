"""Settings app: the screens newer tasks use (Bluetooth device details, time zone picker) and a checker
success + near miss for every template added after the checker cases in test_tasks.py."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

import pytest
from simhelpers import fresh

from droidverify.actions.model import Action
from droidverify.env.sim import SimEnv
from droidverify.env.sim.apps.settings import TIME_ZONES, set_brightness_pct
from droidverify.env.sim.phone import Phone
from droidverify.tasks import registry
from droidverify.tasks.oracle_utils import find

SETTINGS = sorted(t.name for t in registry.all_templates() if t.name.startswith("settings_"))


def test_enough_templates_with_both_kinds() -> None:
    assert len(SETTINGS) >= 27
    kinds = {registry.get_template(n).kind for n in SETTINGS}
    assert kinds == {"operation", "query"}


# ---- checker success + near miss --------------------------------------------------------------
def _connect_wifi(ssid_key: str, wifi_on: int = 1) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        p.put_setting("global", "wifi_on", wifi_on)
        p.execute("UPDATE wifi_networks SET connected = (ssid = ?)", (pr[ssid_key],))
    return f


def _bt(column: str, value: int, *keys: str, bt_on: int = 1) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        p.put_setting("global", "bluetooth_on", bt_on)
        for k in keys:
            p.execute(f"UPDATE bluetooth_devices SET {column}=? WHERE name=?", (value, pr[k]))
    return f


def _zone(zone: Callable[[dict], str], auto: int) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        p.put_setting("global", "auto_time_zone", auto)
        p.put_setting("global", "time_zone", zone(pr))
    return f


def _date(shift: int, auto: int) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        d = date.fromordinal(date.fromisoformat(pr["date"]).toordinal() + shift)
        p.put_setting("global", "auto_time", auto)
        p.now = p.now.replace(year=d.year, month=d.month, day=d.day)
    return f


def _night(dark: bool = True, bright: bool = True, timeout: bool = True) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        if dark:
            p.put_setting("secure", "ui_night_mode", 2)
        if bright:
            set_brightness_pct(p, pr["level"])
        if timeout:
            p.put_setting("system", "screen_off_timeout", pr["ms"])
    return f


# name -> (make it succeed, near misses that must each fail)
OPS: dict[str, tuple[Callable[[Phone, dict], None], list[Callable[[Phone, dict], None]]]] = {
    "settings_connect_wifi_network": (_connect_wifi("ssid"), [
        _connect_wifi("decoy"),  # the look-alike network
        _connect_wifi("ssid", wifi_on=0),  # right network remembered, but Wi-Fi left off
    ]),
    "settings_connect_bluetooth_device": (_bt("connected", 1, "device"), [
        _bt("connected", 1, "decoy"),
        _bt("connected", 1, "device", "decoy"),  # the look-alike connected as well
        _bt("connected", 1, "device", bt_on=0),
    ]),
    "settings_forget_bluetooth_device": (_bt("paired", 0, "device"), [
        _bt("paired", 0, "decoy"),
        _bt("paired", 0, "device", "decoy"),
    ]),
    "settings_set_time_zone": (_zone(lambda pr: pr["zone"], 0), [
        _zone(lambda pr: pr["zone"], 1),  # automatic time zone would undo it
        _zone(lambda pr: next(z for z in TIME_ZONES[1:] if z != pr["zone"]), 0),
    ]),
    "settings_set_date_manually": (_date(0, 0), [_date(0, 1), _date(1, 0), _date(-1, 0)]),
    "settings_night_display_setup": (_night(), [
        _night(dark=False), _night(bright=False), _night(timeout=False),
        lambda p, pr: (_night(bright=False)(p, pr), set_brightness_pct(p, pr["level"] + 10)),
    ]),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_operation_checker_success_and_near_misses(name: str) -> None:
    good, misses = OPS[name]
    tmpl = registry.get_template(name)
    for seed in range(3):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        good(env.phone, task.params)
        assert task.is_successful(env.phone, None) == 1.0, (name, seed)
        for k, bad in enumerate(misses):
            env = fresh(task, seed)
            bad(env.phone, task.params)
            assert task.is_successful(env.phone, None) == 0.0, (name, seed, k)


def _ip_off_by_one(exp: str) -> str:
    head, last = exp.rsplit(".", 1)
    return f"{head}.{int(last) % 250 + 1}"


# name -> (answers that pass, answers that must fail), from the expected answer
QUERIES: dict[str, tuple[Callable[[str], list[str]], Callable[[str], list[str]]]] = {
    "settings_query_battery_level": (
        lambda exp: [exp, f"The battery is at {exp.rstrip('%')} percent."],
        lambda exp: [f"{int(exp[:-1]) + 1}%", f"{exp} or {int(exp[:-1]) - 1}%",
                     f"{exp} - should last until about 11:30 PM"]),
    "settings_query_ip_address": (
        lambda exp: [exp, f"It's {exp}."],
        lambda exp: [_ip_off_by_one(exp), "192.168.1"]),
    "settings_query_bluetooth_device_count": (
        lambda exp: [exp, f"{exp} devices are saved"],
        lambda exp: [str(int(exp) + 1), f"{exp} or {int(exp) + 1}", str(int(exp) - 1)]),
}


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_query_checker_success_and_near_misses(name: str) -> None:
    good, bad = QUERIES[name]
    tmpl = registry.get_template(name)
    for seed in range(3):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        expected = tmpl.expected(env.phone)  # type: ignore[attr-defined]
        for a in good(expected):
            assert task.is_successful(env.phone, a) == 1.0, (name, seed, a)
        for a in bad(expected):
            assert task.is_successful(env.phone, a) == 0.0, (name, seed, a)
        assert task.is_successful(env.phone, None) == 0.0


def test_forgotten_bluetooth_device_is_not_counted() -> None:
    tmpl = registry.get_template("settings_query_bluetooth_device_count")
    task = tmpl.instantiate(0)
    env = fresh(task, 0)
    shown = 3 + len(task.params["extra"])  # the seed's three plus the planted ones; not the forgotten one
    assert tmpl.expected(env.phone) == str(shown)  # type: ignore[attr-defined]
    assert task.is_successful(env.phone, str(shown + 1)) == 0.0


# ---- screens ------------------------------------------------------------------------------------
def _settings(seed: int = 0) -> SimEnv:
    env = SimEnv(seed=seed)
    env.reset()
    env.step(Action(action_type="open_app", app_name="Settings"))
    return env


def _click(env: SimEnv, **criteria):
    obs = env.last_observation or env.observe()
    i = find(obs, **criteria)
    assert i is not None, (criteria, [e.label for e in obs.elements])
    return env.step(Action(action_type="click", index=i))


def test_saved_bluetooth_device_details_connect_and_forget() -> None:
    env = _settings()
    p = env.phone
    p.put_setting("global", "bluetooth_on", 1)
    name = p.query_one("SELECT name FROM bluetooth_devices WHERE paired=1 ORDER BY name")[0]
    _click(env, text="Connected devices")
    obs = _click(env, text=name, resource_id="bt_device")
    assert p.location == "settings/bt_device" and find(obs, text=name, resource_id="device_title") is not None
    obs = _click(env, text="Connect", resource_id="btn_connect")
    assert p.query_one("SELECT connected FROM bluetooth_devices WHERE name=?", (name,))[0] == 1
    assert obs.info["toast"] == f"Connected to {name}"
    assert find(obs, text="Disconnect") is not None
    env.step(Action(action_type="navigate_back"))
    obs = env.observe()
    assert find(obs, text="Connected", resource_id="bt_device") is not None  # the list says so too
    _click(env, text=name, resource_id="bt_device")
    obs = _click(env, text="Forget", resource_id="btn_forget")
    assert obs.info["dialog"] == "confirm"
    env.step(Action(action_type="navigate_back"))  # cancel keeps it
    assert p.query_one("SELECT paired FROM bluetooth_devices WHERE name=?", (name,))[0] == 1
    _click(env, text="Forget", resource_id="btn_forget")
    obs = _click(env, text="Forget device")
    assert p.query_one("SELECT paired, connected FROM bluetooth_devices WHERE name=?", (name,))[:] == (0, 0)
    assert p.location == "settings/connected" and find(obs, text=name) is None


def test_bluetooth_off_drops_connections_and_hides_connect() -> None:
    env = _settings()
    p = env.phone
    p.put_setting("global", "bluetooth_on", 0)
    p.execute("UPDATE bluetooth_devices SET connected=1")
    _click(env, text="Connected devices")
    obs = _click(env, resource_id="bt_device")
    assert find(obs, resource_id="btn_connect") is None
    assert find(obs, text="Turn on Bluetooth to connect") is not None
    assert find(obs, text="Saved", resource_id="device_status") is not None
    p.put_setting("global", "bluetooth_on", 1)
    env.step(Action(action_type="navigate_back"))
    _click(env, text="Connection preferences")
    _click(env, text="Bluetooth")
    _click(env, text="Use Bluetooth")  # off again: every connection ends
    assert p.get_setting("global", "bluetooth_on") == "0"
    assert p.query_one("SELECT COUNT(*) FROM bluetooth_devices WHERE connected=1")[0] == 0


def test_time_zone_row_opens_picker_only_when_automatic_zone_is_off() -> None:
    env = _settings()
    p = env.phone
    obs = env.observe()
    for _ in range(5):  # "System" is near the bottom of the home list
        if find(obs, text="System") is not None:
            break
        obs = env.step(Action(action_type="scroll", direction="down"))
    _click(env, text="System")
    obs = _click(env, text="Date & time")
    row = find(obs, text="Time zone")
    assert row is not None and not obs.elements[row].is_clickable  # automatic: the seeded state
    obs = _click(env, text="Set time zone automatically")
    obs = _click(env, text="Time zone")
    assert obs.info["dialog"] == "choice"
    _click(env, text=TIME_ZONES[4], class_contains="RadioButton")
    assert p.get_setting("global", "time_zone") == TIME_ZONES[4]
    assert find(env.observe(), text=TIME_ZONES[4]) is not None
