"""Settings (com.android.settings): network, Bluetooth, display, sound, date & time, about phone.

State lives in the Android-shaped ``settings_system/global/secure`` name/value tables plus
``device_info``, ``wifi_networks`` and ``bluetooth_devices``.
"""

from __future__ import annotations

import random

from droidverify.env.sim.app import (
    App,
    app_bar,
    button,
    edit_field,
    icon_button,
    list_row,
    list_view,
    register_app,
    screen_frame,
    switch_row,
    text_view,
)
from droidverify.env.sim.phone import Phone, Screen
from droidverify.env.sim.view import V, View

MODELS = (("Pixel 7", "Google"), ("Pixel 7a", "Google"), ("Pixel 8", "Google"), ("Pixel 8 Pro", "Google"),
          ("Pixel 6", "Google"), ("Pixel Fold", "Google"))
ANDROID = (("13", "TQ3A.230901.001", "September 5, 2023"), ("14", "UQ1A.240105.004", "January 5, 2024"),
           ("14", "AP1A.240305.019", "March 5, 2024"), ("15", "AP3A.241005.015", "October 5, 2024"))
SSIDS = ("HomeNet-5G", "Linksys_2.4", "Cafe Aroma Guest", "NETGEAR42", "Office-WLAN", "xfinitywifi",
         "TP-Link_8C21", "Starbucks WiFi", "Library Public", "DIRECT-roku-512")
BT_DEVICES = (("Pixel Buds Pro", "headphones"), ("JBL Flip 5", "speaker"), ("Galaxy Watch5", "watch"),
              ("Toyota Camry", "car"), ("Bose QC45", "headphones"), ("Logitech K380", "keyboard"))
TIMEOUTS = (("15 seconds", 15000), ("30 seconds", 30000), ("1 minute", 60000), ("2 minutes", 120000),
            ("5 minutes", 300000), ("10 minutes", 600000), ("30 minutes", 1800000))
VOLUMES = (("Media volume", "volume_music", 15), ("Call volume", "volume_voice", 5),
           ("Ring & notification volume", "volume_ring", 7), ("Alarm volume", "volume_alarm", 7))

# Static pages reached from the main list that no task changes (kept realistic, read-only).
INFO_PAGES: dict[str, list[tuple[str, str]]] = {
    "Apps": [("Recently opened apps", "Clock, Settings"), ("Default apps", "Chrome, Phone and Messages"),
             ("Screen time", "1 hr 12 min today"), ("Unused apps", "0 unused apps"),
             ("App battery usage", ""), ("Special app access", "2 apps can use unrestricted data")],
    "Notifications": [("App notifications", "On for all apps"), ("Notification history", ""),
                      ("Conversations", "No priority conversations"), ("Bubbles", "On"),
                      ("Do Not Disturb", "Off"), ("Wireless emergency alerts", "")],
    "Battery": [("Battery usage", "Since last full charge"), ("Battery Saver", "Off"),
                ("Adaptive Battery", "On"), ("Battery percentage", "Show in status bar")],
    "Storage": [("System", "14.2 GB"), ("Apps", "9.8 GB"), ("Images", "3.1 GB"), ("Videos", "1.7 GB"),
                ("Documents & other", "640 MB"), ("Trash", "120 MB")],
    "Wallpaper & style": [("Wallpaper", "Current"), ("Wallpaper colors", "Auto"), ("Themed icons", "Off"),
                          ("App grid", "4 x 5")],
    "Accessibility": [("TalkBack", "Off"), ("Select to Speak", "Off"), ("Display size and text", ""),
                      ("Color and motion", ""), ("Live Caption", "Off"), ("Accessibility Menu", "Off")],
    "Security & privacy": [("Screen lock", "PIN"), ("Fingerprint Unlock", "1 fingerprint"),
                           ("Find My Device", "On"), ("Security update", "Up to date"),
                           ("Privacy dashboard", ""), ("Permission manager", "")],
    "Location": [("Use location", "On - 6 apps have access"), ("Recent access", "Maps, Clock"),
                 ("App location permissions", ""), ("Location services", "")],
    "Safety & emergency": [("Emergency SOS", "On"), ("Medical information", ""),
                           ("Emergency contacts", "None"), ("Crisis alerts", "On")],
    "Passwords & accounts": [("Google Password Manager", "12 passwords"), ("Autofill service", "Google"),
                             ("Accounts", "alex.morgan@gmail.com")],
    "Digital Wellbeing & parental controls": [("Dashboard", "1 hr 12 min today"), ("Bedtime mode", "Off"),
                                               ("Focus mode", "Off"), ("Parental controls", "")],
    "Google": [("Manage your Google Account", ""), ("Backup", "On"), ("Devices & sharing", ""),
               ("Find My Device", "On"), ("Autofill", "")],
    "Languages & input": [("Languages", "English (United States)"), ("On-screen keyboard", "Gboard"),
                          ("Spell checker", "On"), ("Pointer speed", "")],
    "Gestures": [("Quick Tap", "Off"), ("Double-tap power button", "On"), ("System navigation", "3-button navigation")],
    "Backup": [("Backup by Google One", "On"), ("Backup details", "Last backup 2 hours ago")],
    "Reset options": [("Reset Wi-Fi, mobile & Bluetooth", ""), ("Reset app preferences", ""),
                      ("Erase all data (factory reset)", "")],
}

MAIN_ROWS: tuple[tuple[str, str, str], ...] = (
    ("Network & internet", "Mobile, Wi‑Fi, hotspot", "network"),
    ("Connected devices", "Bluetooth, pairing", "connected"),
    ("Apps", "Assistant, recent apps, default apps", "info"),
    ("Notifications", "Notification history, conversations", "info"),
    ("Battery", "", "info"),
    ("Storage", "", "info"),
    ("Sound & vibration", "Volume, haptics, Do Not Disturb", "sound"),
    ("Display", "Dark theme, font size, brightness", "display"),
    ("Wallpaper & style", "Colors, themed icons, app grid", "info"),
    ("Accessibility", "Display, interaction, audio", "info"),
    ("Security & privacy", "App security, device lock, permissions", "info"),
    ("Location", "On - 6 apps have access to location", "info"),
    ("Safety & emergency", "Emergency SOS, medical info, alerts", "info"),
    ("Passwords & accounts", "Saved passwords, autofill, synced accounts", "info"),
    ("Digital Wellbeing & parental controls", "Screen time, app timers, bedtime schedules", "info"),
    ("Google", "Services & preferences", "info"),
    ("System", "Languages, gestures, time, backup", "system"),
    ("About phone", "", "about"),
)

# Settings search index: (title, breadcrumb, screen to open)
SEARCH_INDEX: tuple[tuple[str, str, str], ...] = (
    ("Wi‑Fi", "Network & internet > Internet", "internet"),
    ("Internet", "Network & internet", "internet"),
    ("Airplane mode", "Network & internet", "network"),
    ("Bluetooth", "Connected devices > Connection preferences", "bluetooth"),
    ("Pair new device", "Connected devices", "connected"),
    ("Brightness level", "Display", "brightness"),
    ("Adaptive brightness", "Display", "display"),
    ("Dark theme", "Display", "display"),
    ("Screen timeout", "Display", "display"),
    ("Media volume", "Sound & vibration", "sound"),
    ("Ring & notification volume", "Sound & vibration", "sound"),
    ("Alarm volume", "Sound & vibration", "sound"),
    ("Call volume", "Sound & vibration", "sound"),
    ("Date & time", "System", "datetime"),
    ("Use 24-hour format", "System > Date & time", "datetime"),
    ("Set time automatically", "System > Date & time", "datetime"),
    ("Time zone", "System > Date & time", "datetime"),
    ("Device name", "About phone", "about"),
    ("Android version", "About phone", "android_version"),
    ("Build number", "About phone", "about"),
    ("Model", "About phone", "about"),
)

# Titles are written with a non-breaking hyphen (U+2011 in Wi-Fi); Android's search ignores hyphens and
# case, so typing "Wi-Fi" or "wifi" still finds the entry. Only matching is folded, never displayed text.
_HYPHENS = dict.fromkeys(map(ord, "-\u00ad\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\ufe63\uff0d"))


def search_key(text: str) -> str:
    """``text`` folded for settings search: case-insensitive, hyphen-insensitive, whitespace collapsed."""
    return " ".join(text.casefold().translate(_HYPHENS).split())


TIME_ZONES = ("GMT-08:00 Pacific Standard Time", "GMT-05:00 Eastern Standard Time",
              "GMT+00:00 Greenwich Mean Time", "GMT+01:00 Central European Standard Time",
              "GMT+09:00 Japan Standard Time")


def brightness_pct(phone: Phone) -> int:
    return round(phone.get_int("system", "screen_brightness", 128) * 100 / 255)


def set_brightness_pct(phone: Phone, pct: int) -> None:
    pct = max(0, min(100, pct))
    phone.put_setting("system", "screen_brightness", round(pct * 255 / 100))


def _bt_address(device_id: int) -> str:
    # a stable made-up MAC per saved device (shown on its details screen only)
    raw = f"{0x3C5AB4100000 + device_id * 40961:012X}"
    return ":".join(raw[i:i + 2] for i in range(0, 12, 2))


def on(phone: Phone, table: str, name: str) -> bool:
    return phone.get_setting(table, name, "0") == "1"


@register_app
class SettingsApp(App):
    key = "settings"
    name = "Settings"
    package = "com.android.settings"
    aliases = ("android settings", "system settings", "settings app")
    icon_color = "#5f6368"
    activity = ".Settings"

    # ---- state ----------------------------------------------------------------------------
    def create_schema(self, phone: Phone) -> None:
        c = phone.conn
        c.execute("CREATE TABLE device_info (name TEXT PRIMARY KEY, value TEXT)")
        c.execute("CREATE TABLE wifi_networks (_id INTEGER PRIMARY KEY, ssid TEXT, security TEXT, "
                  "signal INTEGER, saved INTEGER, connected INTEGER)")
        c.execute("CREATE TABLE bluetooth_devices (_id INTEGER PRIMARY KEY, name TEXT, type TEXT, "
                  "paired INTEGER, connected INTEGER)")

    def seed_data(self, phone: Phone, rng: random.Random) -> None:
        model, maker = rng.choice(MODELS)
        version, build, patch = rng.choice(ANDROID)
        owner = rng.choice(("Alex", "Sam", "Jordan", "Taylor", "Riley", "Morgan", "Casey"))
        info = {
            "model": model, "manufacturer": maker, "android_version": version, "build_number": build,
            "security_patch": patch, "baseband": f"g5300{rng.randint(10, 99)}-{rng.randint(100000, 999999)}",
            "kernel": f"5.10.{rng.randint(150, 210)}-android13-4", "phone_number": f"+1 (650) 555-{rng.randint(1000, 9999)}",
            "ip_address": f"192.168.1.{rng.randint(2, 250)}", "serial": f"{rng.randint(10**9, 10**10 - 1):X}",
            "storage_total": rng.choice(("128 GB", "256 GB")), "storage_used": f"{rng.randint(35, 80)}%",
        }
        for k, v in info.items():
            phone.execute("INSERT INTO device_info(name, value) VALUES(?, ?)", (k, v))
        defaults = {
            ("global", "wifi_on"): 1, ("global", "bluetooth_on"): rng.choice((0, 1)),
            ("global", "airplane_mode_on"): 0, ("global", "auto_time"): 1, ("global", "auto_time_zone"): 1,
            ("global", "device_name"): f"{owner}'s {model}", ("global", "battery_level"): rng.randint(35, 98),
            ("global", "mobile_data"): 1, ("global", "time_zone"): TIME_ZONES[0],
            ("system", "screen_brightness"): round(rng.choice((30, 40, 50, 60, 70)) * 255 / 100),
            ("system", "screen_brightness_mode"): rng.choice((0, 1)), ("system", "time_12_24"): "12",
            ("system", "screen_off_timeout"): rng.choice((30000, 60000, 120000)),
            ("system", "accelerometer_rotation"): rng.choice((0, 1)), ("system", "volume_music"): rng.randint(4, 11),
            ("system", "volume_ring"): rng.randint(2, 6), ("system", "volume_alarm"): rng.randint(2, 6),
            ("system", "volume_voice"): rng.randint(2, 4), ("secure", "ui_night_mode"): rng.choice((1, 2)),
        }
        for (table, name), value in defaults.items():
            phone.put_setting(table, name, value)
        for i, ssid in enumerate(rng.sample(SSIDS, 6)):
            phone.execute("INSERT INTO wifi_networks(ssid, security, signal, saved, connected) VALUES(?,?,?,?,?)",
                          (ssid, rng.choice(("WPA2", "WPA3", "Open")), rng.randint(1, 4), int(i == 0), int(i == 0)))
        for i, (name, kind) in enumerate(rng.sample(BT_DEVICES, 3)):
            phone.execute("INSERT INTO bluetooth_devices(name, type, paired, connected) VALUES(?,?,?,?)",
                          (name, kind, 1, 0))

    def device(self, phone: Phone, name: str) -> str:
        row = phone.query_one("SELECT value FROM device_info WHERE name=?", (name,))
        return row[0] if row else ""

    # ---- helpers ----------------------------------------------------------------------------
    def _frame(self, phone: Phone, title: str, rows: list[View], scr: Screen, *, back: bool = True,
               header: View | None = None) -> View:
        body = list_view(phone, scr, rows)
        if header is not None:
            body = V("linear", header, body, grow=1)
        return screen_frame(app_bar(title, back=phone.back if back else None), body)

    def _toggle(self, phone: Phone, table: str, name: str):
        def set_value(value: bool) -> None:
            phone.put_setting(table, name, int(value))
        return set_value

    # ---- screens -------------------------------------------------------------------------------
    def screen_main(self, phone: Phone, scr: Screen) -> View:
        search = V("linear", V("image", w=80, h=80, style={"icon": "search"}),
                   text_view("Search settings", rid="search_action_bar_title", grow=1, style={"fg": "#5f6368"}),
                   rid="search_action_bar", desc="Search settings", horizontal=True, clickable=True, focusable=True,
                   on_click=lambda: phone.push("search"), h=150, pad=(40, 35, 40, 35), gap=30,
                   style={"bg": "#e8eaed", "shape": "pill"})
        rows = []
        for title, summary, target in MAIN_ROWS:
            if target == "about":
                summary = self.device(phone, "model")
            elif title == "Battery":
                summary = f"{phone.get_int('global', 'battery_level', 85)}% - Should last until about 11:30 PM"
            elif title == "Storage":
                summary = f"{self.device(phone, 'storage_used')} used - {self.device(phone, 'storage_total')} total"

            def go(target: str = target, title: str = title) -> None:
                phone.push(target, title=title)
            rows.append(list_row(title, summary or None, on_click=go, icon=title.split()[0].lower()))
        header = V("linear", text_view("Settings", rid="homepage_title", size=72, pad=(48, 80, 0, 40)),
                   V("linear", search, pad=(40, 0, 40, 30)))
        return screen_frame(None, V("linear", header, list_view(phone, scr, rows, rid="recycler_view"), grow=1))

    def screen_info(self, phone: Phone, scr: Screen) -> View:
        title = scr.args.get("title", "Settings")
        rows = [list_row(t, s or None) for t, s in INFO_PAGES.get(title, [])]
        return self._frame(phone, title, rows, scr)

    def screen_search(self, phone: Phone, scr: Screen) -> View:
        query = search_key(scr.fields.get("query", ""))
        rows = []
        if query:
            for title, crumb, target in SEARCH_INDEX:
                if query in search_key(title) or query in search_key(crumb):
                    rows.append(list_row(title, crumb, rid="search_result",
                                         on_click=lambda t=target, ti=title: phone.push(t, title=ti)))
        field = edit_field(phone, scr.fields, "query", hint="Search settings", rid="search_src_text")
        bar = V("linear", icon_button("Navigate up", phone.back, icon="back", w=147, h=147), field,
                horizontal=True, h=168, pad=(12, 10, 30, 10))
        bar.children[1].grow = 1
        empty = "No results" if query else None
        return screen_frame(bar, list_view(phone, scr, rows, empty=empty))

    def screen_network(self, phone: Phone, scr: Screen) -> View:
        airplane = on(phone, "global", "airplane_mode_on")
        wifi = on(phone, "global", "wifi_on")
        ssid = phone.query_one("SELECT ssid FROM wifi_networks WHERE connected=1")
        internet = "Airplane mode" if airplane and not wifi else (ssid[0] if wifi and ssid else
                                                                  "Wi‑Fi is off" if not wifi else "Not connected")
        rows = [
            list_row("Internet", internet, on_click=lambda: phone.push("internet"), icon="wifi"),
            list_row("SIMs", "T-Mobile", icon="sim"),
            switch_row("Airplane mode", airplane, self._toggle(phone, "global", "airplane_mode_on"),
                       rid="airplane_mode"),
            list_row("Hotspot & tethering", "Off", icon="hotspot"),
            list_row("Data Saver", "Off", icon="datasaver"),
            list_row("VPN", "None", icon="vpn"),
            list_row("Private DNS", "Automatic", icon="dns"),
        ]
        return self._frame(phone, "Network & internet", rows, scr)

    def screen_internet(self, phone: Phone, scr: Screen) -> View:
        wifi = on(phone, "global", "wifi_on")
        rows = [switch_row("Wi‑Fi", wifi, self._toggle(phone, "global", "wifi_on"), rid="wifi_toggle")]
        if wifi:
            nets = phone.query("SELECT ssid, security, signal, connected, saved FROM wifi_networks "
                               "ORDER BY connected DESC, signal DESC, ssid")
            for n in nets:
                summary = "Connected" if n["connected"] else ("Saved" if n["saved"] else
                                                              ("Open" if n["security"] == "Open" else "Secured"))
                rows.append(list_row(n["ssid"], summary, rid="wifi_entry", icon=f"wifi{n['signal']}",
                                     on_click=lambda s=n["ssid"]: self._connect(phone, s)))
            rows.append(list_row("Add network", None, icon="add"))
        else:
            rows.append(list_row("To see available networks, turn Wi‑Fi on", None))
        rows.append(list_row("Network preferences", "Wi‑Fi turns back on automatically"))
        return self._frame(phone, "Internet", rows, scr)

    def _connect(self, phone: Phone, ssid: str) -> None:
        row = phone.query_one("SELECT security, saved FROM wifi_networks WHERE ssid=?", (ssid,))
        if row is None:
            return
        if row["security"] != "Open" and not row["saved"]:
            phone.show_toast(f"Enter the password to connect to {ssid}")
            return
        phone.execute("UPDATE wifi_networks SET connected = (ssid = ?)", (ssid,))
        phone.show_toast(f"Connected to {ssid}")

    def screen_connected(self, phone: Phone, scr: Screen) -> View:
        rows = [list_row("Pair new device", None, icon="add")]
        rows.append(text_view("Saved devices", rid="category_title", size=36, pad=(48, 30, 0, 10),
                              style={"fg": "#1a73e8"}))
        bt = on(phone, "global", "bluetooth_on")
        for d in phone.query("SELECT _id, name, type, connected FROM bluetooth_devices WHERE paired=1 ORDER BY name"):
            # a saved device opens its details (connect / forget), as the gear next to it does on Android
            rows.append(list_row(d["name"], "Connected" if bt and d["connected"] else "Saved", icon=d["type"],
                                 rid="bt_device", on_click=lambda i=d["_id"]: phone.push("bt_device", device_id=i)))
        rows.append(list_row("Connection preferences", "Bluetooth, Android Auto, NFC",
                             on_click=lambda: phone.push("connection_prefs"), icon="prefs"))
        return self._frame(phone, "Connected devices", rows, scr)

    def screen_bt_device(self, phone: Phone, scr: Screen) -> View:
        dev = phone.query_one("SELECT _id, name, type, paired, connected FROM bluetooth_devices WHERE _id=?",
                              (scr.args["device_id"],))
        if dev is None or not dev["paired"]:  # forgotten underneath
            return self._frame(phone, "Device details", [list_row("This device is no longer saved", None)], scr)
        bt = on(phone, "global", "bluetooth_on")
        did, name = dev["_id"], dev["name"]
        connected = bool(bt and dev["connected"])
        if not bt:
            action = list_row("Turn on Bluetooth to connect", None, rid="bt_off_hint")
        else:
            action = V("linear", button("Disconnect" if connected else "Connect",
                                        lambda: self._set_connected(phone, did, not connected), rid="btn_connect",
                                        primary=True),
                       button("Forget", lambda: self._confirm_forget(phone, did, name), rid="btn_forget"),
                       horizontal=True, gap=40, pad=(48, 30, 48, 30))
        rows = [text_view(name, rid="device_title", size=56, pad=(48, 40, 48, 10)),
                text_view("Connected" if connected else "Saved", rid="device_status", size=38,
                          pad=(48, 0, 48, 20), style={"fg": "#5f6368"}),
                action,
                list_row("Device type", dev["type"].capitalize(), rid="device_type"),
                list_row("Device's Bluetooth address", _bt_address(did))]
        if not bt:
            rows.append(V("linear", button("Forget", lambda: self._confirm_forget(phone, did, name),
                                           rid="btn_forget"), pad=(48, 30, 48, 30)))
        return self._frame(phone, "Device details", rows, scr)

    def _set_connected(self, phone: Phone, device_id: int, value: bool) -> None:
        phone.execute("UPDATE bluetooth_devices SET connected=? WHERE _id=?", (int(value), device_id))
        name = phone.query_one("SELECT name FROM bluetooth_devices WHERE _id=?", (device_id,))[0]
        phone.show_toast(f"Connected to {name}" if value else f"Disconnected from {name}")

    def _confirm_forget(self, phone: Phone, device_id: int, name: str) -> None:
        phone.show_dialog(self.key, "confirm", title="Forget device?",
                          message=f"Your phone will no longer be paired with {name}", ok="Forget device",
                          on_ok="forget_device", args={"device_id": device_id})

    def forget_device(self, phone: Phone, device_id: int) -> None:
        phone.execute("UPDATE bluetooth_devices SET paired=0, connected=0 WHERE _id=?", (device_id,))
        if phone.screen is not None and phone.screen.name == "bt_device":
            phone.pop()
        phone.show_toast("Device forgotten")

    def screen_connection_prefs(self, phone: Phone, scr: Screen) -> View:
        bt = on(phone, "global", "bluetooth_on")
        rows = [
            list_row("Bluetooth", "On" if bt else "Off", on_click=lambda: phone.push("bluetooth"), icon="bt"),
            list_row("Cast", "Not connected", icon="cast"),
            list_row("Printing", "1 print service on", icon="print"),
            list_row("Nearby Share", "On", icon="nearby"),
            list_row("Android Auto", "Use apps on your car screen", icon="car"),
            list_row("NFC", "On", icon="nfc"),
        ]
        return self._frame(phone, "Connection preferences", rows, scr)

    def screen_bluetooth(self, phone: Phone, scr: Screen) -> View:
        bt = on(phone, "global", "bluetooth_on")
        name = phone.get_setting("global", "device_name", "")
        def toggle_bt(value: bool) -> None:
            phone.put_setting("global", "bluetooth_on", int(value))
            if not value:  # turning Bluetooth off drops every connection
                phone.execute("UPDATE bluetooth_devices SET connected=0 WHERE connected=1")

        rows = [switch_row("Use Bluetooth", bt, toggle_bt, rid="bt_toggle"),
                list_row("Device name", name), list_row("Pair new device", None, icon="add", enabled=bt)]
        if not bt:
            rows.append(list_row("When Bluetooth is turned on, your device can communicate with other nearby "
                                 "Bluetooth devices.", None))
        return self._frame(phone, "Bluetooth", rows, scr)

    def screen_display(self, phone: Phone, scr: Screen) -> View:
        timeout = phone.get_int("system", "screen_off_timeout", 30000)
        label = next((lbl for lbl, ms in TIMEOUTS if ms == timeout), f"{timeout // 1000} seconds")

        def pick_timeout() -> None:
            phone.show_dialog(self.key, "choice", title="Screen timeout", options=[t for t, _ in TIMEOUTS],
                              selected=label, on_ok="set_timeout")

        rows = [
            list_row("Brightness level", f"{brightness_pct(phone)}%", on_click=lambda: phone.push("brightness")),
            switch_row("Adaptive brightness", on(phone, "system", "screen_brightness_mode"),
                       self._toggle(phone, "system", "screen_brightness_mode"), rid="adaptive_brightness",
                       summary="Optimize brightness for available light"),
            switch_row("Dark theme", phone.get_setting("secure", "ui_night_mode") == "2",
                       lambda v: phone.put_setting("secure", "ui_night_mode", 2 if v else 1), rid="dark_ui_mode",
                       summary="Use dark background"),
            list_row("Screen timeout", f"After {label} of inactivity", on_click=pick_timeout),
            switch_row("Auto-rotate screen", on(phone, "system", "accelerometer_rotation"),
                       self._toggle(phone, "system", "accelerometer_rotation"), rid="auto_rotate"),
            list_row("Display size and text", "Font size, display size, bold text"),
            list_row("Screen saver", "Clock"),
            list_row("Lock screen", "Show all notification content"),
        ]
        return self._frame(phone, "Display", rows, scr)

    def set_timeout(self, phone: Phone, value: str) -> None:
        ms = dict(TIMEOUTS)[value]
        phone.put_setting("system", "screen_off_timeout", ms)

    def screen_brightness(self, phone: Phone, scr: Screen) -> View:
        pct = brightness_pct(phone)

        def step(delta: int) -> None:
            base = (pct // 10) * 10 if delta > 0 else -((-pct) // 10) * 10
            set_brightness_pct(phone, base + delta)

        slider = V("linear",
                   icon_button("Decrease brightness", lambda: step(-10), rid="brightness_down", icon="minus"),
                   V("seekbar", text=f"{pct}%", desc="Brightness level", rid="seekbar", grow=1, h=96,
                     focusable=True, style={"progress": pct / 100}),
                   icon_button("Increase brightness", lambda: step(10), rid="brightness_up", icon="plus"),
                   horizontal=True, h=160, pad=(30, 0, 30, 0))
        rows = [text_view("Brightness level", rid="title", size=46, pad=(48, 40, 0, 0)),
                text_view(f"{pct}%", rid="brightness_value", size=64, pad=(48, 10, 0, 10)), slider,
                text_view("Adaptive brightness is " + ("on" if on(phone, "system", "screen_brightness_mode")
                                                       else "off"), size=36, pad=(48, 30, 48, 0),
                          style={"fg": "#5f6368"})]
        return screen_frame(app_bar("Brightness level", back=phone.back), V("linear", *rows, rid="brightness_panel"))

    def screen_sound(self, phone: Phone, scr: Screen) -> View:
        rows: list[View] = []
        for label, name, mx in VOLUMES:
            level = phone.get_int("system", name, 0)

            def change(delta: int, name: str = name, level: int = level, mx: int = mx) -> None:
                phone.put_setting("system", name, max(0, min(mx, level + delta)))

            short = label.split()[0].lower()
            rows.append(V("linear",
                          text_view(label, rid="title", size=46),
                          V("linear",
                            icon_button(f"Decrease {label.lower()}", lambda c=change: c(-1), rid=f"{short}_down",
                                        icon="minus", enabled=level > 0),
                            V("seekbar", text=f"{level}/{mx}", desc=label, rid="seekbar", grow=1, h=96,
                              focusable=True, style={"progress": level / mx}),
                            icon_button(f"Increase {label.lower()}", lambda c=change: c(1), rid=f"{short}_up",
                                        icon="plus", enabled=level < mx),
                            horizontal=True, h=140),
                          rid=f"{name}_row", pad=(48, 20, 30, 10), h=260))
        rows += [list_row("Do Not Disturb", "Off"), list_row("Live Caption", "Automatically caption media"),
                 list_row("Phone ringtone", "The Big Adventure"), list_row("Default notification sound", "Popcorn"),
                 list_row("Default alarm sound", "Bright Morning"), list_row("Vibration & haptics", "On")]
        return self._frame(phone, "Sound & vibration", rows, scr)

    def screen_system(self, phone: Phone, scr: Screen) -> View:
        rows = [list_row(t, s, on_click=(lambda t=t, g=g: phone.push(g, title=t)))
                for t, s, g in (("Languages & input", "Gboard", "info"), ("Gestures", None, "info"),
                                ("Date & time", "GMT-08:00 Pacific Standard Time", "datetime"),
                                ("Backup", "On", "info"), ("Reset options", None, "info"))]
        rows += [list_row("Multiple users", "Signed in as Owner"), list_row("System update", "Updated to Android "
                                                                             + self.device(phone, "android_version"))]
        return self._frame(phone, "System", rows, scr)

    def screen_datetime(self, phone: Phone, scr: Screen) -> View:
        auto = on(phone, "global", "auto_time")
        auto_tz = on(phone, "global", "auto_time_zone")
        h24 = phone.uses_24h
        now = phone.now

        def pick_date() -> None:
            phone.show_dialog(self.key, "date_picker", year=now.year, month=now.month, day=now.day,
                              on_ok="set_date")

        def pick_time() -> None:
            phone.show_dialog(self.key, "time_picker", hour=now.hour, minute=now.minute, on_ok="set_time")

        def pick_zone() -> None:
            phone.show_dialog(self.key, "choice", title="Time zone", options=list(TIME_ZONES),
                              selected=phone.get_setting("global", "time_zone", TIME_ZONES[0]), on_ok="set_time_zone")

        rows = [
            switch_row("Set time automatically", auto, self._toggle(phone, "global", "auto_time"), rid="auto_time"),
            list_row("Date", now.strftime("%B %-d, %Y"), on_click=pick_date if not auto else None, enabled=not auto),
            list_row("Time", phone.format_time(now.hour, now.minute), on_click=pick_time if not auto else None,
                     enabled=not auto),
            switch_row("Set time zone automatically", auto_tz, self._toggle(phone, "global", "auto_time_zone"),
                       rid="auto_zone"),
            list_row("Time zone", phone.get_setting("global", "time_zone", TIME_ZONES[0]),
                     on_click=pick_zone if not auto_tz else None, enabled=not auto_tz),
            switch_row("Use 24-hour format", h24,
                       lambda v: phone.put_setting("system", "time_12_24", "24" if v else "12"),
                       summary="13:00" if h24 else "1:00 PM", rid="24_hour"),
        ]
        return self._frame(phone, "Date & time", rows, scr)

    def set_time_zone(self, phone: Phone, value: str) -> None:
        phone.put_setting("global", "time_zone", value)

    def set_date(self, phone: Phone, year: int, month: int, day: int) -> None:
        phone.now = phone.now.replace(year=year, month=month, day=day)

    def set_time(self, phone: Phone, hour: int, minute: int) -> None:
        phone.now = phone.now.replace(hour=hour, minute=minute, second=0)

    def screen_about(self, phone: Phone, scr: Screen) -> View:
        name = phone.get_setting("global", "device_name", "")

        def rename() -> None:
            phone.show_dialog(self.key, "text_input", title="Device name", value=name, ok="Rename",
                              on_ok="set_device_name")

        d = lambda k: self.device(phone, k)
        rows = [
            list_row("Device name", name, on_click=rename, rid="device_name"),
            list_row("Phone number (sim slot 1)", d("phone_number")),
            list_row("Emergency information", None),
            list_row("Legal information", None),
            list_row("SIM status", "T-Mobile"),
            list_row("Model", d("model"), rid="model"),
            list_row("IMEI", "Unavailable"),
            list_row("Android version", d("android_version"), on_click=lambda: phone.push("android_version"),
                     rid="firmware_version"),
            list_row("IP address", d("ip_address")),
            list_row("Wi‑Fi MAC address", "Use randomized MAC"),
            list_row("Up time", "312:07:45"),
            list_row("Build number", d("build_number"), rid="build_number"),
        ]
        return self._frame(phone, "About phone", rows, scr)

    def set_device_name(self, phone: Phone, value: str) -> None:
        phone.put_setting("global", "device_name", value)

    def screen_android_version(self, phone: Phone, scr: Screen) -> View:
        d = lambda k: self.device(phone, k)
        rows = [list_row("Android version", d("android_version"), rid="os_firmware_version"),
                list_row("Android security update", d("security_patch"), rid="security_patch"),
                list_row("Google Play system update", "August 1, 2024"),
                list_row("Baseband version", d("baseband")), list_row("Kernel version", d("kernel")),
                list_row("Build number", d("build_number"))]
        return self._frame(phone, "Android version", rows, scr)

