"""Settings app: the screens newer tasks use (Bluetooth device details, time zone picker) and a checker
success + near miss for every template added after the checker cases in test_tasks.py."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta

import pytest
from simhelpers import fresh, oracle_trace, run_oracle

from droidverify.actions.model import Action
from droidverify.env.sim import SimEnv
from droidverify.env.sim.apps.settings import TIME_ZONES, TIMEOUTS, _bt_address, set_brightness_pct
from droidverify.env.sim.phone import Phone
from droidverify.tasks import registry
from droidverify.tasks.oracle_utils import find
from droidverify.tasks.settings import BT_CATALOG, MAKE_SURE, PLAY_UPDATE, VOLUME_ROWS, WEEKDAYS, _zone_offset

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


# ---- templates added later: bulk Bluetooth, relative edits, read-then-write, more queries ------------
def _sql(*stmts: str | tuple[str, ...]) -> Callable[[Phone, dict], None]:
    """Run statements; a tuple is (sql, param keys...) with ? placeholders filled from the params."""
    def f(p: Phone, pr: dict) -> None:
        for st in stmts:
            sql, keys = (st, ()) if isinstance(st, str) else (st[0], st[1:])
            p.execute(sql, tuple(pr[k] for k in keys))
    return f


def _setting(table: str, name: str, value: Callable[[dict], object]) -> Callable[[Phone, dict], None]:
    return lambda p, pr: p.put_setting(table, name, value(pr))


def _both(*fs: Callable[[Phone, dict], None]) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        for g in fs:
            g(p, pr)
    return f


def _clock(hm: Callable[[dict], tuple[int, int]], auto: int = 0,
           day_shift: int = 0) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        h, m = hm(pr)
        p.put_setting("global", "auto_time", auto)
        p.now = p.now.replace(hour=h, minute=m, day=p.now.day + day_shift)
    return f


def _other_model(p: Phone) -> str:
    model = p.query_one("SELECT value FROM device_info WHERE name='model'")[0]
    return "Pixel 6" if model != "Pixel 6" else "Pixel 7"


_FORGET_OTHERS = ("UPDATE bluetooth_devices SET paired=0, connected=0 WHERE name <> ?", "device")
_JOIN_OPEN = ("UPDATE wifi_networks SET connected = (ssid = ?)", "ssid")
_FIRST_CONNECTED = "(SELECT _id FROM bluetooth_devices WHERE connected=1 ORDER BY name LIMIT 1)"
NEW_OPS: dict[str, tuple[Callable[[Phone, dict], None], list[Callable[[Phone, dict], None]]]] = {
    "settings_disconnect_all_bluetooth": (_sql("UPDATE bluetooth_devices SET connected=0"), [
        _both(_sql("UPDATE bluetooth_devices SET connected=0"),
              _setting("global", "bluetooth_on", lambda pr: 0)),  # Bluetooth switched off
        _sql(f"UPDATE bluetooth_devices SET connected=0 WHERE _id <> {_FIRST_CONNECTED}"),  # one left
        _sql("UPDATE bluetooth_devices SET paired=0 WHERE connected=1",  # forgotten instead of disconnected
             "UPDATE bluetooth_devices SET connected=0"),
    ]),
    "settings_forget_bluetooth_except": (_sql(_FORGET_OTHERS), [
        _sql("UPDATE bluetooth_devices SET paired=0, connected=0"),  # the one to keep went too
        _sql(("UPDATE bluetooth_devices SET paired=0, connected=0 WHERE name NOT IN (?, ?)",
              "device", "decoy")),  # the look-alike kept as well
        _sql(("DELETE FROM bluetooth_devices WHERE name <> ?", "device")),
        _sql(_FORGET_OTHERS,
             ("UPDATE bluetooth_devices SET connected=1 WHERE name = ?", "device")),  # the kept one touched
    ]),
    "settings_fix_clock_offset": (_clock(lambda pr: tuple(pr["target"])), [
        _clock(lambda pr: tuple(pr["target"]), auto=1),  # automatic time would undo it
        _clock(lambda pr: tuple(pr["start"])),  # automatic off, time unchanged
        _clock(lambda pr: divmod(2 * (pr["start"][0] * 60 + pr["start"][1])
                                 - (pr["target"][0] * 60 + pr["target"][1]), 60)),  # the wrong direction
        _clock(lambda pr: tuple(pr["target"]), day_shift=1),  # date changed as well
    ]),
    "settings_alarm_volume_like_ring": (_setting("system", "volume_alarm", lambda pr: pr["ring"]), [
        _setting("system", "volume_ring", lambda pr: pr["alarm"]),  # ring matched to alarm instead
        _setting("system", "volume_alarm", lambda pr: pr["ring"] + (1 if pr["ring"] < 7 else -1)),
        _both(_setting("system", "volume_alarm", lambda pr: pr["ring"]),
              _setting("system", "volume_music", lambda pr: pr["media"] + 1)),  # extra change
    ]),
    "settings_join_open_wifi": (_both(_setting("global", "wifi_on", lambda pr: 1), _sql(_JOIN_OPEN)), [
        _both(_setting("global", "wifi_on", lambda pr: 0), _sql(_JOIN_OPEN)),  # Wi-Fi left off
        _both(_setting("global", "wifi_on", lambda pr: 1),  # a password-protected one (forced in SQL)
              lambda p, pr: p.execute("UPDATE wifi_networks SET connected = (ssid = ?)", (pr["locked"][0],))),
        _setting("global", "wifi_on", lambda pr: 1),  # still on the old network
    ]),
    "settings_device_name_with_model": (
        lambda p, pr: p.put_setting("global", "device_name", f"{pr['prefix']} " + p.query_one(
            "SELECT value FROM device_info WHERE name='model'")[0]), [
            lambda p, pr: p.put_setting("global", "device_name", p.query_one(
                "SELECT value FROM device_info WHERE name='model'")[0]),
            lambda p, pr: p.put_setting("global", "device_name", f"{pr['prefix']}" + p.query_one(
                "SELECT value FROM device_info WHERE name='model'")[0]),  # no space
            lambda p, pr: p.put_setting("global", "device_name", f"{pr['prefix']} {_other_model(p)}"),
        ]),
    "settings_double_screen_timeout": (_setting("system", "screen_off_timeout", lambda pr: pr["ms"]), [
        _setting("system", "screen_off_timeout", lambda pr: pr["start"]),
        _setting("system", "screen_off_timeout", lambda pr: pr["ms"] * 2),
        _setting("system", "screen_off_timeout", lambda pr: pr["start"] // 2),
    ]),
}


@pytest.mark.parametrize("name", sorted(NEW_OPS))
def test_new_operation_checker_success_and_near_misses(name: str) -> None:
    good, misses = NEW_OPS[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 1000):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        assert task.is_successful(env.phone, None) == 0.0, (name, seed)
        good(env.phone, task.params)
        assert task.is_successful(env.phone, None) == 1.0, (name, seed)
        for k, bad in enumerate(misses):
            env = fresh(task, seed)
            bad(env.phone, task.params)
            assert task.is_successful(env.phone, None) == 0.0, (name, seed, k)


def _addr(p: Phone, name: str) -> str:
    return _bt_address(p.query_one("SELECT _id FROM bluetooth_devices WHERE name=?", (name,))[0])


def _q_address(p: Phone, pr: dict) -> tuple[list[str], list[str]]:
    a, d = _addr(p, pr["device"]), _addr(p, pr["decoy"])
    return [a, f"It's {a.lower()}."], [d, f"{a} or {d}", a[:-1] + ("0" if a[-1] != "0" else "1")]


VOLUME_NAMES = {"media": "Media volume", "call": "Call volume", "ring": "Ring & notification volume",
                "alarm": "Alarm volume"}


def _q_muted(p: Phone, pr: dict) -> tuple[list[str], list[str]]:
    right = VOLUME_NAMES[pr["muted"]]
    wrong = next(v for k, v in VOLUME_NAMES.items() if k != pr["muted"])
    return [right, f"The {pr['muted']} volume is at 0."], [wrong, f"{right} or {wrong}", "none of them"]


def _q_switch(p: Phone, pr: dict) -> tuple[list[str], list[str]]:
    right, wrong = ("On", "Off") if pr["on"] else ("Off", "On")
    return [right, f"It is {right.lower()}."], [wrong, "on or off", "I don't know"]


def _q_storage(p: Phone, pr: dict) -> tuple[list[str], list[str]]:
    free, used = 100 - pr["used"], pr["used"]
    total = p.query_one("SELECT value FROM device_info WHERE name='storage_total'")[0]
    return ([f"{free}%", f"{free} percent of the {total} is free"],
            [f"{used}%", f"{free + 1}%", f"{free}% or {used}%", f"{used}% used, so {free}% free"])


def _q_location(p: Phone, pr: dict) -> tuple[list[str], list[str]]:
    path = pr["path"]
    wrong = "System" if path == "About phone" else "About phone"
    return [path, f"Settings > {path}", path.replace(" > ", ", then ")], [wrong, f"{path} or Battery", ""]


NEW_QUERIES: dict[str, Callable[[Phone, dict], tuple[list[str], list[str]]]] = {
    "settings_query_bluetooth_address": _q_address,
    "settings_query_muted_volume": _q_muted,
    "settings_query_switch_state": _q_switch,
    "settings_query_free_storage": _q_storage,
    "settings_query_setting_location": _q_location,
}


@pytest.mark.parametrize("name", sorted(NEW_QUERIES))
def test_new_query_checker_success_and_near_misses(name: str) -> None:
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 3, 1000):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        good, bad = NEW_QUERIES[name](env.phone, task.params)
        for a in good:
            assert task.is_successful(env.phone, a) == 1.0, (name, seed, a)
        for a in bad:
            assert task.is_successful(env.phone, a) == 0.0, (name, seed, a)
        assert task.is_successful(env.phone, None) == 0.0


def test_settings_search_shows_the_menu_path_and_opens_the_setting() -> None:
    env = _settings()
    obs = _click(env, resource_id="search_action_bar")
    assert env.phone.location == "settings/search"
    i = find(obs, editable=True, resource_id="search_src_text")
    assert i is not None
    obs = env.step(Action(action_type="input_text", index=i, text="Time zone"))
    assert find(obs, text="System > Date & time", resource_id="search_result") is not None
    _click(env, text="Time zone", resource_id="search_result")
    assert env.phone.location == "settings/datetime"


@pytest.mark.parametrize("query", ["Wi-Fi", "wifi", "WI-FI", "Wi\u2011Fi"])
def test_settings_search_finds_wifi_whatever_the_hyphen_or_case(query: str) -> None:
    # the entry is displayed with a non-breaking hyphen (U+2011); typed ASCII must still find it
    env = _settings()
    _click(env, resource_id="search_action_bar")
    i = find(env.last_observation or env.observe(), editable=True, resource_id="search_src_text")
    assert i is not None
    obs = env.step(Action(action_type="input_text", index=i, text=query))
    titles = [e.text.split(" | ")[0] for e in obs.elements if (e.resource_id or "").endswith("search_result")]
    assert "Wi\u2011Fi" in titles, (query, titles)
    _click(env, text="Wi\u2011Fi", resource_id="search_result")
    assert env.phone.location == "settings/internet"


# ---- round 3: devices told apart by type or state, bulk sliders, conditional and derived answers -------
def _bt_set(sql: str, names: Callable[[dict], list[str]]) -> Callable[[Phone, dict], None]:
    """Run ``sql`` (one ? for the name) for each device name picked from the params."""
    def f(p: Phone, pr: dict) -> None:
        for n in names(pr):
            p.execute(sql, (n,))
    return f


_CONNECT = "UPDATE bluetooth_devices SET connected=1 WHERE name=?"
_DISCONNECT = "UPDATE bluetooth_devices SET connected=0 WHERE name=?"
_FORGET = "UPDATE bluetooth_devices SET paired=0, connected=0 WHERE name=?"


def _other_headphones(pr: dict) -> list[str]:
    return [n for n in pr["names"] if BT_CATALOG[n] == "headphones" and n != pr["device"]]


def _not_targets(pr: dict) -> list[str]:
    return [n for n in pr["names"] if n not in pr["targets"]]


def _timeout_ms(label: str) -> int:
    return dict(TIMEOUTS)[label]


def _battery_label(pr: dict, right: bool = True) -> str:
    low = pr["battery"] < pr["threshold"]
    return pr["short"] if low == right else pr["long"]


def _vol(name: str, level: int) -> Callable[[Phone, dict], None]:
    return _setting("system", name, lambda pr: level)


_FLIGHT_ON = _both(_setting("global", "airplane_mode_on", lambda pr: 1),
                   _setting("global", "bluetooth_on", lambda pr: 1))
_FLIGHT_GOOD = _both(_FLIGHT_ON, _bt_set(_CONNECT, lambda pr: [pr["device"]]))
_SWAP = _both(_bt_set(_DISCONNECT, lambda pr: [pr["old"]]), _bt_set(_CONNECT, lambda pr: [pr["new"]]))
_WIFI_ON = _setting("global", "wifi_on", lambda pr: 1)
ROUND3_OPS: dict[str, tuple[Callable[[Phone, dict], None], list[Callable[[Phone, dict], None]]]] = {
    "settings_flight_mode_with_headphones": (_FLIGHT_GOOD, [
        _both(_setting("global", "bluetooth_on", lambda pr: 1),
              _bt_set(_CONNECT, lambda pr: [pr["device"]])),  # airplane mode never turned on
        _both(_FLIGHT_ON, _bt_set(_CONNECT, _other_headphones)),  # the other headphones
        _both(_FLIGHT_ON, _bt_set(_CONNECT, lambda pr: pr["names"])),  # everything connected
        _FLIGHT_ON,  # nothing connected
    ]),
    "settings_switch_bluetooth_audio": (_SWAP, [
        _bt_set(_CONNECT, lambda pr: [pr["new"]]),  # the old one still connected
        _bt_set(_DISCONNECT, lambda pr: [pr["old"]]),  # the new one never connected
        _both(_SWAP, _bt_set(_FORGET, lambda pr: [pr["old"]])),  # forgotten, not just disconnected
        _both(_SWAP, _setting("global", "bluetooth_on", lambda pr: 0)),
        _both(_SWAP, _bt_set(_CONNECT, lambda pr: pr["others"][1:])),  # an extra device connected
    ]),
    "settings_forget_bluetooth_by_type": (_bt_set(_FORGET, lambda pr: pr["targets"]), [
        _bt_set(_FORGET, lambda pr: pr["targets"][:1]),  # one of the two left
        _bt_set(_FORGET, lambda pr: pr["targets"] + _not_targets(pr)[:1]),  # another type forgotten too
        _bt_set(_FORGET, _not_targets),  # the opposite set
        _both(_bt_set(_FORGET, lambda pr: pr["targets"]),
              _bt_set(_CONNECT, lambda pr: _not_targets(pr)[:1])),  # a kept device touched
    ]),
    "settings_silence_except_alarm": (_both(_vol("volume_music", 0), _vol("volume_ring", 0)), [
        _vol("volume_music", 0),  # ring left on
        _both(_vol("volume_music", 0), _vol("volume_ring", 1)),
        _both(_vol("volume_music", 0), _vol("volume_ring", 0), _vol("volume_alarm", 0)),  # the alarm as well
        _both(_vol("volume_music", 0), _vol("volume_ring", 0), _vol("volume_voice", 0)),  # the call one too
    ]),
    "settings_switch_to_other_saved_wifi": (_both(_WIFI_ON, _sql(_JOIN_OPEN)), [
        _both(_WIFI_ON, _sql(("UPDATE wifi_networks SET connected = (ssid = ?)", "decoy"))),  # open, unsaved
        _both(_setting("global", "wifi_on", lambda pr: 0), _sql(_JOIN_OPEN)),  # Wi-Fi left off
        _WIFI_ON,  # still on the first saved network
        _both(_WIFI_ON, _sql("UPDATE wifi_networks SET connected=0")),  # disconnected from everything
    ]),
    "settings_forget_connected_bluetooth_device": (_bt_set(_FORGET, lambda pr: [pr["device"]]), [
        _bt_set(_DISCONNECT, lambda pr: [pr["device"]]),  # disconnected but still saved
        _bt_set(_FORGET, lambda pr: [n for n in pr["names"] if n != pr["device"]][:1]),  # an idle one
        _bt_set(_FORGET, lambda pr: pr["names"]),  # all of them
    ]),
    "settings_timeout_by_battery": (
        _setting("system", "screen_off_timeout", lambda pr: _timeout_ms(_battery_label(pr))), [
            _setting("system", "screen_off_timeout", lambda pr: _timeout_ms(_battery_label(pr, right=False))),
            _setting("system", "screen_off_timeout", lambda pr: _timeout_ms(pr["start"])),
        ]),
}


@pytest.mark.parametrize("name", sorted(ROUND3_OPS))
def test_round3_operation_checker_success_and_near_misses(name: str) -> None:
    good, misses = ROUND3_OPS[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 3, 1000):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        assert task.is_successful(env.phone, None) == 0.0, (name, seed)
        good(env.phone, task.params)
        assert task.is_successful(env.phone, None) == 1.0, (name, seed)
        for k, bad in enumerate(misses):
            env = fresh(task, seed)
            bad(env.phone, task.params)
            assert task.is_successful(env.phone, None) == 0.0, (name, seed, k)


def _q_of_type(p: Phone, pr: dict) -> tuple[list[str], list[str]]:
    dev, other = pr["device"], pr["others"][0]
    return [dev, f"It's the {dev}."], [other, f"{dev} or {other}", ""]


def _q_connected(p: Phone, pr: dict) -> tuple[list[str], list[str]]:
    on = pr["connected"]
    idle = [n for n in pr["names"] if n not in on]
    return ([" and ".join(on), ", ".join(reversed(on))],
            [on[0], ", ".join(pr["names"]), ", ".join(on + idle[:1]), ", ".join(idle)])


def _q_open(p: Phone, pr: dict) -> tuple[list[str], list[str]]:
    n = len(pr["open"])
    return [str(n), f"{n} open networks"], [str(n + 1), f"{n} or {n + 1}", str(n + 2), "none"]


def _q_louder(p: Phone, pr: dict) -> tuple[list[str], list[str]]:
    right, wrong = ("alarm", "ring") if pr["alarm"] > pr["ring"] else ("ring", "alarm")
    return ([right, f"The {right} volume is louder."],
            [wrong, f"{right} or {wrong}", "They are the same", f"{wrong} & notification volume"])


def _q_weekday(p: Phone, pr: dict) -> tuple[list[str], list[str]]:
    day = pr["weekday"]
    other = WEEKDAYS[(WEEKDAYS.index(day) + 1) % 7]  # e.g. the weekday of the build date, Tuesday
    return [day, f"It's a {day.lower()}."], [other, f"{day} or {other}", "October"]


ROUND3_QUERIES: dict[str, Callable[[Phone, dict], tuple[list[str], list[str]]]] = {
    "settings_query_bluetooth_device_of_type": _q_of_type,
    "settings_query_connected_bluetooth_devices": _q_connected,
    "settings_query_open_wifi_count": _q_open,
    "settings_query_louder_alarm_or_ring": _q_louder,
    "settings_query_phone_weekday": _q_weekday,
}


@pytest.mark.parametrize("name", sorted(ROUND3_QUERIES))
def test_round3_query_checker_success_and_near_misses(name: str) -> None:
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 3, 1000):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        good, bad = ROUND3_QUERIES[name](env.phone, task.params)
        for a in good:
            assert task.is_successful(env.phone, a) == 1.0, (name, seed, a)
        for a in bad:
            assert task.is_successful(env.phone, a) == 0.0, (name, seed, a)
        assert task.is_successful(env.phone, None) == 0.0


def test_device_type_is_only_on_the_details_screen() -> None:
    task = registry.get_template("settings_query_bluetooth_device_of_type").instantiate(0)
    env = fresh(task, 0)
    env.step(Action(action_type="open_app", app_name="Settings"))
    obs = _click(env, text="Connected devices")
    kind = task.params["kind"].capitalize()
    assert find(obs, text=kind) is None  # the list text shows names and status only (icons aside)
    obs = _click(env, text=task.params["device"], resource_id="bt_device")
    assert find(obs, text=kind) is not None


# ---- round 4: whole-table checks, derived readings, rule-based bulk edits, "make sure" goals ----------


def _now(day: Callable[[dict], str], hm: Callable[[dict], list[int]], auto: int = 0) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        d = date.fromisoformat(day(pr))
        h, m = hm(pr)
        p.put_setting("global", "auto_time", auto)
        p.now = p.now.replace(year=d.year, month=d.month, day=d.day, hour=h, minute=m, second=0)
    return f


def _switches(which: Callable[[dict], list[int]], flip: bool = False) -> Callable[[Phone, dict], None]:
    """Put the picked switches (indexes into params["switches"]) in their wanted state (``flip``: opposite)."""
    def f(p: Phone, pr: dict) -> None:
        for k in which(pr):
            _, _, table, setting, on_value, off_value, _ = MAKE_SURE[pr["switches"][k]]
            on = (pr["states"][k] == "on") != flip
            p.put_setting(table, setting, on_value if on else off_value)
    return f


def _unpicked_switch(pr: dict) -> Callable[[Phone, dict], None]:
    i = next(i for i in range(len(MAKE_SURE)) if i not in pr["switches"])
    _, _, table, setting, on_value, off_value, _ = MAKE_SURE[i]
    return lambda p, _pr: p.put_setting(table, setting, off_value if p.get_setting(table, setting) == on_value
                                        else on_value)


def _headphones_branch(pr_connected: Callable[[dict], bool]) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        if pr_connected(pr):
            p.put_setting("system", "volume_music", pr["level"])
        else:
            p.put_setting("global", "bluetooth_on", 0)
            p.execute("UPDATE bluetooth_devices SET connected=0")
    return f


def _caps(levels: Callable[[dict, str, int], int]) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        for k, (_, setting, _) in VOLUME_ROWS.items():
            p.put_setting("system", setting, levels(pr, k, pr["levels"][k]))
    return f


def _capped(pr: dict, k: str, v: int) -> int:
    return min(v, pr["cap"])


def _a_quiet_one(pr: dict) -> str:
    return next(k for k, v in pr["levels"].items() if v <= pr["cap"])


_ONLY_ONE = _both(_bt_set(_DISCONNECT, lambda pr: pr["others_on"]), _bt_set(_CONNECT, lambda pr: [pr["device"]]))
ROUND4_OPS: dict[str, tuple[Callable[[Phone, dict], None], list[Callable[[Phone, dict], None]]]] = {
    "settings_brightness_from_battery": (lambda p, pr: set_brightness_pct(p, pr["level"]), [
        lambda p, pr: set_brightness_pct(p, pr["level"] + 10),  # rounded up
        lambda p, pr: set_brightness_pct(p, pr["example_level"]),  # the example's level
        _both(lambda p, pr: set_brightness_pct(p, pr["level"]),  # adaptive brightness changed as well
              lambda p, pr: p.put_setting("system", "screen_brightness_mode",
                                          1 - p.get_int("system", "screen_brightness_mode"))),
    ]),
    "settings_time_zone_hours_away": (
        _both(_setting("global", "time_zone", lambda pr: pr["zone"]), _setting("global", "auto_time_zone", lambda pr: 0)), [
            _both(_setting("global", "time_zone", lambda pr: pr["zone"]),
                  _setting("global", "auto_time_zone", lambda pr: 1)),  # automatic zone would undo it
            _both(_setting("global", "time_zone", lambda pr: next(z for z in TIME_ZONES if z not in (pr["zone"], pr["here"]))),
                  _setting("global", "auto_time_zone", lambda pr: 0)),  # another zone
            _both(_setting("global", "time_zone", lambda pr: pr["zone"]), _setting("global", "auto_time_zone", lambda pr: 0),
                  _setting("system", "time_12_24", lambda pr: "24")),  # an extra change
        ]),
    "settings_fix_wrong_date_or_time": (_now(lambda pr: pr["date"], lambda pr: pr["time"]), [
        _now(lambda pr: pr["date"], lambda pr: pr["time"], auto=1),  # automatic time switched on
        _now(lambda pr: pr["start_date"], lambda pr: pr["start_time"]),  # nothing fixed
        _now(lambda pr: pr["date"], lambda pr: [(pr["time"][0] + 12) % 24, pr["time"][1]]),  # AM/PM mixed up
        _now(lambda pr: (date.fromisoformat(pr["date"]) + timedelta(days=1)).isoformat(), lambda pr: pr["time"]),
    ]),
    "settings_make_sure_switches": (_switches(lambda pr: [0, 1, 2]), [
        _switches(lambda pr: [0, 1, 2], flip=True),  # every switch the wrong way
        _switches(lambda pr: [k for k in range(3) if not pr["already"][k]][:-1]),  # the last one left wrong
        _both(_switches(lambda pr: [0, 1, 2]),  # one that was already right flipped as well
              _switches(lambda pr: [k for k in range(3) if pr["already"][k]][:1], flip=True)),
        lambda p, pr: (_switches(lambda q: [0, 1, 2])(p, pr), _unpicked_switch(pr)(p, pr)),  # another switch too
    ]),
    "settings_media_volume_if_headphones": (_headphones_branch(lambda pr: pr["connected"]), [
        _headphones_branch(lambda pr: not pr["connected"]),  # the other branch
        _both(_headphones_branch(lambda pr: True), _headphones_branch(lambda pr: False)),  # both
        _setting("system", "volume_music", lambda pr: pr["level"] + 1),
    ]),
    "settings_cap_loud_volumes": (_caps(_capped), [
        _caps(lambda pr, k, v: pr["cap"]),  # every slider to the cap, the quiet ones too
        _caps(lambda pr, k, v: min(v, pr["cap"] - 1)),  # one below the cap
        _caps(lambda pr, k, v: _capped(pr, k, v) if k != "media" else v),  # media left loud
        _caps(lambda pr, k, v: _capped(pr, k, v) + (1 if k == _a_quiet_one(pr) else 0)),  # a quiet one raised
    ]),
    "settings_only_one_bluetooth_connected": (_ONLY_ONE, [
        _bt_set(_DISCONNECT, lambda pr: pr["others_on"][1:] + [pr["device"]]),  # one left, the wanted one off
        _both(_ONLY_ONE, _bt_set(_FORGET, lambda pr: pr["others_on"])),  # forgotten, not just disconnected
        _both(_ONLY_ONE, _setting("global", "bluetooth_on", lambda pr: 0)),
        _bt_set(_CONNECT, lambda pr: [pr["device"]]),  # the others still connected
    ]),
}


@pytest.mark.parametrize("name", sorted(ROUND4_OPS))
def test_round4_operation_checker_success_and_near_misses(name: str) -> None:
    good, misses = ROUND4_OPS[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 3, 4, 1000, 1001):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        assert task.is_successful(env.phone, None) == 0.0, (name, seed)
        good(env.phone, task.params)
        assert task.is_successful(env.phone, None) == 1.0, (name, seed)
        for k, bad in enumerate(misses):
            env = fresh(task, seed)
            bad(env.phone, task.params)
            assert task.is_successful(env.phone, None) == 0.0, (name, seed, k)


def _q_percent(p: Phone, pr: dict) -> tuple[list[str], list[str]]:
    pct, level = pr["percent"], pr["levels"][pr["slider"]]
    other = "call" if pr["slider"] == "media" else "media"
    other_pct = pr["levels"][other] * 100 // VOLUME_ROWS[other][2]
    return ([f"{pct}%", f"It's at {pct} percent."],
            [str(level), f"{other_pct}%", f"{pct}% or {other_pct}%", f"{pct + 20}%"])


def _q_days(p: Phone, pr: dict) -> tuple[list[str], list[str]]:
    days, today = pr["days"], date.fromisoformat(pr["date"])
    play = (today - date(2024, 8, 1)).days  # the Google Play system update on the same page
    wrong = {days + 1, days - 1, play, (date(2024, 10, 15) - date.fromisoformat(pr["patch"])).days} - {days}
    return [str(days), f"{days} days ago"], [str(w) for w in sorted(wrong)] + [f"{days} or {days + 1}"]


def _hm(minutes: int, twelve: bool = True) -> str:
    h, m = divmod(minutes % (24 * 60), 60)
    return f"{h % 12 or 12}:{m:02d} {'AM' if h < 12 else 'PM'}" if twelve else f"{h:02d}:{m:02d}"


def _q_zone_time(p: Phone, pr: dict) -> tuple[list[str], list[str]]:
    t = pr["target"][0] * 60 + pr["target"][1]
    local = pr["local"][0] * 60 + pr["local"][1]
    right = _hm(t)
    flipped = right.replace("AM", "PM") if "AM" in right else right.replace("PM", "AM")
    return ([right, _hm(t, twelve=False), f"It's {right.lower().replace('m', '.m.')} there."],
            [_hm(local), _hm(t + 60), flipped, f"{right} or {_hm(local)}", "", _hm(2 * local - t)])


def _q_password(p: Phone, pr: dict) -> tuple[list[str], list[str]]:
    right, wrong = ("Yes", "No") if pr["status"] == "secured" else ("No", "Yes")
    return [right, f"{right}, {'it is secured' if right == 'Yes' else 'it joins without one'}."], \
        [wrong, "yes or no", "Maybe"]


def _q_type_count(p: Phone, pr: dict) -> tuple[list[str], list[str]]:
    n, total = pr["count"], len(pr["names"])
    return [str(n), f"{n} {pr['kinds']}"], [str(n + 1), str(total), f"{n} or {n + 1}", "none"]


ROUND4_QUERIES: dict[str, Callable[[Phone, dict], tuple[list[str], list[str]]]] = {
    "settings_query_volume_percent_of_max": _q_percent,
    "settings_query_days_since_security_update": _q_days,
    "settings_query_time_in_other_zone": _q_zone_time,
    "settings_query_wifi_needs_password": _q_password,
    "settings_query_bluetooth_type_count": _q_type_count,
}


@pytest.mark.parametrize("name", sorted(ROUND4_QUERIES))
def test_round4_query_checker_success_and_near_misses(name: str) -> None:
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 3, 4, 1000, 1001):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        good, bad = ROUND4_QUERIES[name](env.phone, task.params)
        for a in good:
            assert task.is_successful(env.phone, a) == 1.0, (name, seed, a)
        for a in bad:
            assert task.is_successful(env.phone, a) == 0.0, (name, seed, a)
        assert task.is_successful(env.phone, None) == 0.0


def test_round4_screens_show_what_the_tasks_read() -> None:
    # the security update date and the phone's own date are on two screens; the zone on Date & time
    task = registry.get_template("settings_query_days_since_security_update").instantiate(0)
    env = fresh(task, 0)
    env.step(Action(action_type="open_app", app_name="Settings"))
    obs = env.observe()
    for _ in range(5):
        if find(obs, text="About phone") is not None:
            break
        obs = env.step(Action(action_type="scroll", direction="down"))
    _click(env, text="About phone")
    obs = _click(env, text="Android version")
    patch = date.fromisoformat(task.params["patch"])
    assert find(obs, text=f"{patch:%B} {patch.day}, {patch.year}") is not None
    assert find(obs, text="August 1, 2024") is not None  # the near miss next to it
    task = registry.get_template("settings_query_wifi_needs_password").instantiate(1)
    env = fresh(task, 1)
    env.phone.put_setting("global", "wifi_on", 1)
    env.step(Action(action_type="open_app", app_name="Settings"))
    _click(env, text="Network & internet")
    obs = _click(env, text="Internet")
    shown = {"secured": "Secured", "saved": "Saved", "open": "Open"}
    for key, status in (("ssid", "status"), ("lookalike", "lookalike_status")):
        i = find(obs, text=task.params[key], resource_id="wifi_entry")
        assert i is not None and shown[task.params[status]] in obs.elements[i].text


# ---- round 5: the search's result rows, derived targets (a zone, a date, a time, a level), counts across screens,
# if-type-then-connect-else-forget, reverse look-ups and rankings ----------------------------------------
ROUND5 = ["settings_time_zone_where_clock_reads", "settings_connect_or_forget_by_type",
          "settings_brightness_like_media_volume", "settings_timeout_at_least", "settings_date_to_next_weekday",
          "settings_date_after_security_update", "settings_set_time_from_other_zone", "settings_query_clock_offset",
          "settings_query_volume_ranking", "settings_query_connected_device_is_kind",
          "settings_query_bluetooth_device_by_address", "settings_query_switches_on_count"]


def _zone_at(pr: dict, sign: int) -> str:
    """The zone ``sign`` times the wanted shift away from the phone's zone, else one that is neither."""
    shift = _zone_offset(pr["zone"]) - _zone_offset(pr["here"])
    mirror = [z for z in TIME_ZONES if _zone_offset(z) == _zone_offset(pr["here"]) + sign * shift]
    return mirror[0] if mirror else next(z for z in TIME_ZONES if z not in (pr["zone"], pr["here"]))


def _tz(zone: Callable[[dict], str], auto: int = 0) -> Callable[[Phone, dict], None]:
    return _both(_setting("global", "time_zone", zone), _setting("global", "auto_time_zone", lambda pr: auto))


def _branch(is_kind: Callable[[dict], bool], who: Callable[[dict], list[str]]) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        for n in who(pr):
            p.execute(_CONNECT if is_kind(pr) else _FORGET, (n,))
    return f


def _mate(pr: dict) -> str:
    return next(n for n in pr["names"] if n != pr["device"] and BT_CATALOG[n] == pr["kind"])


def _bystander(p: Phone, pr: dict) -> None:
    """Flip the connection of a saved device the goal does not name."""
    other = next(n for n in pr["names"] if n != pr["device"])
    p.execute("UPDATE bluetooth_devices SET connected = 1 - connected WHERE name=?", (other,))


def _timeout(label: Callable[[dict], str]) -> Callable[[Phone, dict], None]:
    return _setting("system", "screen_off_timeout", lambda pr: dict(TIMEOUTS)[label(pr)])


def _above(label: str) -> str:
    labels = [lbl for lbl, _ in TIMEOUTS]
    return labels[min(labels.index(label) + 1, len(labels) - 1)]


def _day(day: Callable[[dict], date], auto: int = 0) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        d = day(pr)
        p.put_setting("global", "auto_time", auto)
        p.now = p.now.replace(year=d.year, month=d.month, day=d.day)
    return f


def _after_patch(shift: int = 0) -> Callable[[dict], date]:
    return lambda pr: date.fromisoformat(pr["date"]) + timedelta(days=shift)


def _hm_set(hm: Callable[[dict], int]) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        h, m = divmod(hm(pr) % (24 * 60), 60)
        p.now = p.now.replace(hour=h, minute=m, second=0)
    return f


def _mins(hm: list[int]) -> int:
    return hm[0] * 60 + hm[1]


def _ref_minutes(pr: dict) -> int:
    return _mins(pr["time"]) - (_zone_offset(pr["here"]) - _zone_offset(pr["ref_zone"]))


def _next_weekday(day: date, weekday: str) -> date:
    ahead = (WEEKDAYS.index(weekday) - day.weekday() - 1) % 7 + 1
    return day + timedelta(days=ahead)


ROUND5_OPS: dict[str, tuple[Callable[[Phone, dict], None], list[Callable[[Phone, dict], None]]]] = {
    "settings_time_zone_where_clock_reads": (_tz(lambda pr: pr["zone"]), [
        _tz(lambda pr: pr["zone"], auto=1),  # automatic time zone left (or switched) on
        _tz(lambda pr: _zone_at(pr, -1)),  # shifted the other way
        _tz(lambda pr: next(z for z in TIME_ZONES if z not in (pr["zone"], pr["here"]))),
        _both(_tz(lambda pr: pr["zone"]), _setting("system", "time_12_24", lambda pr: "24")),  # an extra change
    ]),
    "settings_connect_or_forget_by_type": (_branch(lambda pr: pr["is_kind"], lambda pr: [pr["device"]]), [
        _branch(lambda pr: not pr["is_kind"], lambda pr: [pr["device"]]),  # the other branch
        _both(_branch(lambda pr: pr["is_kind"], lambda pr: [pr["device"]]),
              _bt_set(_FORGET, lambda pr: [_mate(pr)])),  # the unnamed one of that type forgotten too
        _both(_branch(lambda pr: pr["is_kind"], lambda pr: [pr["device"]]),
              _bystander),  # another device's connection touched
        _branch(lambda pr: pr["is_kind"], lambda pr: [_mate(pr)]),  # the wrong device
        _both(_branch(lambda pr: pr["is_kind"], lambda pr: [pr["device"]]),
              _setting("global", "airplane_mode_on", lambda pr: 1)),  # an extra change
    ]),
    "settings_brightness_like_media_volume": (lambda p, pr: set_brightness_pct(p, pr["percent"]), [
        lambda p, pr: set_brightness_pct(p, round(pr["ring"] * 100 / 7)),  # the ring volume's share
        lambda p, pr: set_brightness_pct(p, pr["media"] * 10),  # the level read as tens of percent
        lambda p, pr: set_brightness_pct(p, pr["percent"] + 10),
        _both(lambda p, pr: set_brightness_pct(p, pr["percent"]),
              _setting("system", "volume_music", lambda pr: pr["media"] + 1)),  # the volume moved too
    ]),
    "settings_timeout_at_least": (_timeout(lambda pr: pr["label"]), [
        _timeout(lambda pr: pr["below"]),  # shorter than needed
        _timeout(lambda pr: _above(pr["label"]) if _above(pr["label"]) != pr["label"] else pr["below"]),
        _both(_timeout(lambda pr: pr["label"]),
              lambda p, pr: p.put_setting("system", "accelerometer_rotation",
                                          1 - p.get_int("system", "accelerometer_rotation"))),  # an extra change
    ]),
    "settings_date_to_next_weekday": (_day(lambda pr: date.fromisoformat(pr["date"])), [
        _day(lambda pr: date.fromisoformat(pr["date"]) + timedelta(days=7)),  # the one after
        _day(lambda pr: date.fromisoformat(pr["date"]) - timedelta(days=7)),  # the one before the phone's date
        _day(lambda pr: _next_weekday(date(2024, 10, 15), pr["weekday"])),  # counted from the real date
        _day(lambda pr: date.fromisoformat(pr["date"]), auto=1),  # automatic time switched on
    ]),
    "settings_date_after_security_update": (_day(_after_patch()), [
        _day(_after_patch(), auto=1),  # automatic time still on
        _day(_after_patch(1)), _day(_after_patch(-1)),
        _day(lambda pr: PLAY_UPDATE + timedelta(days=pr["days"])),  # counted from the Play system update
        _day(lambda pr: date(2024, 10, 15) + timedelta(days=pr["days"])),  # counted from today
        _both(_day(_after_patch()), _setting("global", "auto_time_zone", lambda pr: 0)),
    ]),
    "settings_set_time_from_other_zone": (_hm_set(lambda pr: _mins(pr["time"])), [
        lambda p, pr: None,  # left wrong
        _hm_set(_ref_minutes),  # the other zone's time, not converted
        _hm_set(lambda pr: 2 * _ref_minutes(pr) - _mins(pr["time"]) if _ref_minutes(pr) != _mins(pr["time"])
                else _mins(pr["time"]) + 60),  # converted the wrong way
        _both(_hm_set(lambda pr: _mins(pr["time"])), _setting("global", "auto_time", lambda pr: 1)),
        _both(_hm_set(lambda pr: _mins(pr["time"])), _setting("global", "time_zone", lambda pr: pr["ref_zone"])),
        _both(_hm_set(lambda pr: _mins(pr["time"])), _day(lambda pr: date(2024, 10, 16))),
    ]),
}


@pytest.mark.parametrize("name", sorted(ROUND5_OPS))
def test_round5_operation_checker_success_and_near_misses(name: str) -> None:
    good, misses = ROUND5_OPS[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 3, 4, 1000, 1001, 1002):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        assert task.is_successful(env.phone, None) == 0.0, (name, seed)
        good(env.phone, task.params)
        assert task.is_successful(env.phone, None) == 1.0, (name, seed)
        for k, bad in enumerate(misses):
            env = fresh(task, seed)
            bad(env.phone, task.params)
            assert task.is_successful(env.phone, None) == 0.0, (name, seed, k)


def _q_offset(p: Phone, pr: dict) -> tuple[list[str], list[str]]:
    n, fast = abs(pr["offset"]), pr["offset"] > 0
    right, wrong = ("fast", "slow") if fast else ("slow", "fast")
    said = "ahead" if fast else "behind"
    return ([f"{n} minutes {right}", f"It's {said} by {n} minutes."],
            [f"{n} minutes {wrong}", f"{n + 1} minutes {right}", f"{n} or {n + 1} minutes {right}", right,
             f"{n} minutes", f"{n} minutes {right} or {wrong}"])


def _q_ranking(p: Phone, pr: dict) -> tuple[list[str], list[str]]:
    names = {"media": "media", "call": "call", "ring": "ring & notification", "alarm": "alarm"}
    order = [names[k] for k in pr["order"]]
    return ([", ".join(order), " > ".join(o.split()[0] for o in order)],
            [", ".join(names[k] for k in pr["by_level"]),  # ranked by the raw level, not the share
             ", ".join(reversed(order)), ", ".join(order[:3]), ", ".join(order[1:2] + order[:1] + order[2:])])


def _q_is_kind(p: Phone, pr: dict) -> tuple[list[str], list[str]]:
    right, wrong = ("Yes", "No") if pr["yes"] else ("No", "Yes")
    return [right, f"{right}, it is {'' if pr['yes'] else 'not '}a {pr['what']}."], [wrong, "yes or no", ""]


def _q_by_address(p: Phone, pr: dict) -> tuple[list[str], list[str]]:
    other = next(n for n in pr["names"] if n != pr["device"])
    return [pr["device"], f"That's my {pr['device']}."], [other, f"{pr['device']} or {other}", pr["suffix"]]


def _q_switch_count(p: Phone, pr: dict) -> tuple[list[str], list[str]]:
    n = pr["count"]
    return [str(n), f"{n} of them are on."], [str(n + 1), str(n - 1), f"{n} or {n + 1}", "4", "none"]


ROUND5_QUERIES: dict[str, Callable[[Phone, dict], tuple[list[str], list[str]]]] = {
    "settings_query_clock_offset": _q_offset,
    "settings_query_volume_ranking": _q_ranking,
    "settings_query_connected_device_is_kind": _q_is_kind,
    "settings_query_bluetooth_device_by_address": _q_by_address,
    "settings_query_switches_on_count": _q_switch_count,
}


@pytest.mark.parametrize("name", sorted(ROUND5_QUERIES))
def test_round5_query_checker_success_and_near_misses(name: str) -> None:
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 3, 4, 1000, 1001, 1002):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        good, bad = ROUND5_QUERIES[name](env.phone, task.params)
        for a in good:
            assert task.is_successful(env.phone, a) == 1.0, (name, seed, a)
        for a in bad:
            assert task.is_successful(env.phone, a) == 0.0, (name, seed, a)
        assert task.is_successful(env.phone, None) == 0.0


def _path(name: str, seed: int) -> list[tuple[str, Action, str]]:
    """(the goal and every text on screen, the oracle's action, the location) per step of its solving path."""
    return [(s.shown, s.action, s.location) for s in oracle_trace(name, seed)]


@pytest.mark.parametrize("name", ["settings_time_zone_where_clock_reads", "settings_timeout_at_least",
                                  "settings_query_connected_device_is_kind",
                                  "settings_query_bluetooth_device_by_address"])
def test_round5_oracle_types_only_what_it_was_shown(name: str) -> None:
    for seed in (0, 1, 2, 1000):
        seen: list[str] = []
        for shown, a, _ in _path(name, seed):
            seen.append(shown.lower())
            if a.action_type in ("input_text", "answer") and a.text:
                assert any(a.text.lower() in s for s in seen), (name, seed, a.text)


@pytest.mark.parametrize("name, screen", [
    ("settings_date_after_security_update", "settings/android_version"),  # the patch date, before the picker
    ("settings_brightness_like_media_volume", "settings/sound"),
    ("settings_date_to_next_weekday", "settings/datetime"),
    ("settings_set_time_from_other_zone", "settings/datetime"),
    ("settings_time_zone_where_clock_reads", "settings/search"),  # reached through the search's result
    ("settings_timeout_at_least", "settings/search"),
])
def test_round5_oracle_reads_where_the_value_is_shown_first(name: str, screen: str) -> None:
    for seed in (0, 1, 1000):
        path = _path(name, seed)
        first_edit = next(k for k, (_, a, loc) in enumerate(path) if loc == screen or a.action_type == "status")
        assert path[first_edit][2] == screen, (name, seed, [loc for _, _, loc in path])


def test_bluetooth_address_suffix_names_the_planted_device() -> None:
    tmpl = registry.get_template("settings_query_bluetooth_device_by_address")
    for seed in (0, 1, 2, 1000):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        ends = {n: _addr(env.phone, n)[-5:] for n in task.params["names"]}
        assert [n for n, a in ends.items() if a == task.params["suffix"]] == [task.params["device"]]


def test_search_result_opens_the_screen_it_names() -> None:
    env = _settings()
    obs = _click(env, resource_id="search_action_bar")
    i = find(obs, editable=True, resource_id="search_src_text")
    env.step(Action(action_type="input_text", index=i, text="screen timeout"))
    _click(env, text="Screen timeout", resource_id="search_result")
    assert env.phone.location == "settings/display"


def test_switch_count_oracle_looks_at_every_named_switch() -> None:
    from droidverify.tasks.settings import MAKE_SURE as SWITCHES

    for seed in (0, 1, 1000):
        task = registry.get_template("settings_query_switches_on_count").instantiate(seed)
        seen = " || ".join(shown for shown, _, _ in _path("settings_query_switches_on_count", seed))
        for i in task.params["switches"]:
            assert SWITCHES[i][1] in seen, (seed, SWITCHES[i][1])


# oracles from mid-task screens: detours that change no app data
def _r5_scroll_to(env: SimEnv, text: str) -> None:
    obs = env.observe()
    for _ in range(6):
        if find(obs, text=text) is not None:
            break
        obs = env.step(Action(action_type="scroll", direction="down"))
    _click(env, text=text)


def _r5_detour_search(env: SimEnv) -> None:
    env.step(Action(action_type="open_app", app_name="Settings"))
    obs = _click(env, resource_id="search_action_bar")
    env.step(Action(action_type="input_text", index=find(obs, editable=True, resource_id="search_src_text"),
                    text="volume"))


def _r5_detour_bt_device(env: SimEnv) -> None:
    env.step(Action(action_type="open_app", app_name="Settings"))
    _click(env, text="Connected devices")
    _click(env, resource_id="bt_device")


def _r5_detour_timeout_dialog(env: SimEnv) -> None:
    env.step(Action(action_type="open_app", app_name="Settings"))
    _click(env, text="Display")
    _click(env, text="Screen timeout")


def _r5_detour_android_version(env: SimEnv) -> None:
    env.step(Action(action_type="open_app", app_name="Settings"))
    _r5_scroll_to(env, "About phone")
    _click(env, text="Android version")


def _r5_detour_other_app(env: SimEnv) -> None:
    env.step(Action(action_type="open_app", app_name="Clock"))


R5_DETOURS = [_r5_detour_search, _r5_detour_bt_device, _r5_detour_timeout_dialog, _r5_detour_android_version,
              _r5_detour_other_app]


@pytest.mark.parametrize("name", ROUND5)
def test_round5_oracle_finishes_from_mid_task_screens(name: str) -> None:
    tmpl = registry.get_template(name)
    for k, detour in enumerate(R5_DETOURS):
        for seed in (10 + k, 1010 + k):
            task = tmpl.instantiate(seed)
            env = SimEnv(task, seed)
            env.reset()
            detour(env)
            obs = env.observe()
            for _ in range(tmpl.max_steps):
                action = task.oracle_action(env.phone, obs)
                if action.action_type == "status":
                    break
                obs = env.step(action)
                if action.action_type == "answer":
                    break
            else:
                raise AssertionError(f"{name} after {detour.__name__}: no finish (at {env.phone.location})")
            assert env.is_successful() == 1.0, (name, detour.__name__, seed)


@pytest.mark.parametrize("name", ROUND5)
def test_round5_oracle_solves_seen_and_unseen_seeds(name: str) -> None:
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 3, 4, 1000, 1001, 1002, 1003, 1004):
        env, steps = run_oracle(tmpl.instantiate(seed), seed)
        assert env.is_successful() == 1.0 and steps <= tmpl.max_steps, (name, seed)
