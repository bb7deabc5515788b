"""System UI: launcher (home, app drawer, recents), status bar, navigation bar, toasts, dialogs, menus.

``compose(phone)`` lays out every window of the current screen in z-order (bottom first).
"""

from __future__ import annotations

from dataclasses import dataclass

from droidverify.env.sim.app import edit_field, text_view
from droidverify.env.sim.phone import Phone
from droidverify.env.sim.timeutil import MONTHS_SHORT, WEEKDAYS_SHORT
from droidverify.env.sim.view import (
    APP_BOTTOM,
    APP_TOP,
    NAV_BAR_H,
    SCREEN_H,
    SCREEN_W,
    STATUS_BAR_H,
    V,
    View,
    layout,
    measure_h,
)

LAUNCHER_PKG = "com.google.android.apps.nexuslauncher"
SYSTEMUI_PKG = "com.android.systemui"
# Home-screen order: familiar apps first; anything else follows alphabetically.
HOME_ORDER = ("clock", "settings", "contacts", "messages", "calendar", "notes", "expenses", "files")
GRID_COLS = 4


@dataclass
class Composed:
    windows: list[tuple[View, str]]  # (window root, package), bottom first
    package: str  # foreground package
    activity: str
    kinds: list[str]  # window kind per entry: app, dialog, menu, status_bar, nav_bar, toast


def _app_icon(phone: Phone, key: str, *, rid: str = "icon") -> View:
    app = phone.apps[key]
    return V("text", text=app.name, desc=app.name, rid=rid, clickable=True, focusable=True,
             long_clickable=True, on_click=lambda: phone.open_app(key), h=300,
             style={"app_icon": app.icon_color, "size": 36, "align": "center", "fg": "#ffffff"})


def _grid(phone: Phone, keys: list[str], cols: int, rid: str) -> View:
    rows = []
    for i in range(0, len(keys), cols):
        chunk = [_app_icon(phone, k) for k in keys[i:i + cols]]
        while len(chunk) < cols:
            chunk.append(V("view", h=300))
        rows.append(V("linear", *chunk, horizontal=True, h=300))
    return V("linear", *rows, rid=rid, pad=(24, 20, 24, 0))


def home_order(phone: Phone) -> list[str]:
    keys = sorted(phone.apps)
    first = [k for k in HOME_ORDER if k in phone.apps]
    return first + [k for k in keys if k not in first]


def launcher_view(phone: Phone) -> View:
    now = phone.now
    page = phone.launcher_page
    if page == "drawer":
        store = phone.launcher_fields
        query = store.get("search", "").strip().lower()
        keys = sorted(phone.apps, key=lambda k: phone.apps[k].name.lower())
        if query:
            keys = [k for k in keys if query in phone.apps[k].name.lower()]
        search = edit_field(phone, store, "search", hint="Search apps", rid="search_box_input")
        body = _grid(phone, keys, 5, "apps_list_view") if keys else text_view(
            "No apps found", rid="no_results", style={"align": "center"})
        content = V("linear", search, body, rid="apps_view", pad=(30, 40, 30, 0), gap=30)
        content.children[0].style["bg"] = "#f1f3f4"
        return V("frame", content, rid="launcher", pad=(0, APP_TOP, 0, NAV_BAR_H),
                 on_scroll=lambda d: _drawer_scroll(phone, d), style={"bg": "#fafafa"})
    if page == "recents":
        cards = []
        for key in reversed(phone.recents):
            app = phone.apps[key]
            cards.append(V("linear", text_view(app.name, rid="title", size=44),
                           text_view(phone.location if key == phone.foreground else "", size=30),
                           rid="snapshot", desc=app.name, clickable=True, focusable=True,
                           on_click=lambda k=key: phone.open_app(k), h=360, pad=36,
                           style={"bg": "#ffffff", "shape": "card"}))
        if not cards:
            cards.append(text_view("No recent items", rid="empty", style={"align": "center"}, pad=(0, 400, 0, 0)))

        def clear_all() -> None:
            phone.stacks.clear()
            phone.recents.clear()
            phone.launcher_page = "home"

        clear = V("button", text="Clear all", rid="clear_all", clickable=True, focusable=True,
                  on_click=clear_all, w=360, h=126, style={"bg": "#ffffff", "shape": "pill"}) if phone.recents else None
        return V("frame", V("linear", *cards, clear, rid="overview_panel", gap=40, pad=60), rid="overview",
                 pad=(0, APP_TOP, 0, NAV_BAR_H), style={"bg": "#3c4043"})
    date = f"{WEEKDAYS_SHORT[now.weekday()]}, {MONTHS_SHORT[now.month - 1]} {now.day}"
    keys = home_order(phone)
    grid = _grid(phone, keys[:16], GRID_COLS, "workspace")
    grid.grow = 1

    def open_drawer() -> None:
        phone.launcher_page = "drawer"

    apps_btn = V("imagebutton", desc="Apps list", rid="all_apps_handle", clickable=True, focusable=True,
                 on_click=open_drawer, w=168, h=168, style={"icon": "apps"})
    bottom = V("linear", V("view", grow=1), apps_btn, V("view", grow=1), rid="hotseat", horizontal=True, h=220)
    content = V("linear", text_view(date, rid="date", size=52, desc=date, style={"fg": "#ffffff"}, pad=(60, 40, 0, 40)),
                grid, bottom, rid="workspace_container", grow=1)
    return V("frame", content, rid="launcher", pad=(0, APP_TOP, 0, NAV_BAR_H),
             on_scroll=lambda d: _home_scroll(phone, d), style={"bg": "#3b5f8a"})


def _home_scroll(phone: Phone, direction: str) -> bool:
    # content scroll "down" == finger swipe up: opens the app drawer, as on a Pixel
    if direction == "down":
        phone.launcher_page = "drawer"
        return True
    return False


def _drawer_scroll(phone: Phone, direction: str) -> bool:
    if direction == "up":
        phone.launcher_page = "home"
        phone.launcher_fields.clear()
        return True
    return False


def status_bar(phone: Phone) -> View:
    now = phone.now
    airplane = phone.get_setting("global", "airplane_mode_on", "0") == "1"
    wifi = phone.get_setting("global", "wifi_on", "1") == "1" and not airplane
    bt = phone.get_setting("global", "bluetooth_on", "0") == "1"
    battery = phone.get_int("global", "battery_level", 85)
    icons = []
    if bt:
        icons.append(V("image", desc="Bluetooth on.", rid="bluetooth", w=60, h=60, style={"icon": "bt"}))
    if airplane:
        icons.append(V("image", desc="Airplane mode.", rid="airplane", w=60, h=60, style={"icon": "airplane"}))
    if wifi:
        icons.append(V("image", desc="Wi-Fi signal full.", rid="wifi_signal", w=60, h=60, style={"icon": "wifi"}))
    icons.append(V("image", desc=f"Battery {battery} percent.", rid="battery", w=60, h=60,
                   style={"icon": "battery"}))
    clock = V("text", text=phone.format_time(now.hour, now.minute, ampm=False), rid="clock",
              desc=phone.format_time(now.hour, now.minute), w=240, style={"size": 38, "fg": "#ffffff"})
    bar = V("linear", clock, V("view", grow=1), *icons, rid="status_bar", horizontal=True,
            pad=(48, 0, 48, 0), gap=12, style={"bg": "#202124"})
    bar.h = STATUS_BAR_H
    return bar


def nav_bar(phone: Phone) -> View:
    def recents() -> None:
        phone.go_home()
        phone.launcher_page = "recents"

    buttons = [
        V("imagebutton", desc="Back", rid="back", clickable=True, focusable=True, long_clickable=True,
          on_click=phone.back, h=NAV_BAR_H, style={"icon": "nav_back"}),
        V("imagebutton", desc="Home", rid="home_button", clickable=True, focusable=True, long_clickable=True,
          on_click=phone.go_home, h=NAV_BAR_H, style={"icon": "nav_home"}),
        V("imagebutton", desc="Overview", rid="recent_apps", clickable=True, focusable=True,
          on_click=recents, h=NAV_BAR_H, style={"icon": "nav_recents"}),
    ]
    return V("linear", *buttons, rid="navigation_bar_frame", horizontal=True, style={"bg": "#000000"})


def _menu_items(v: View) -> list | None:
    stack = [v]
    while stack:
        n = stack.pop()
        items = n.style.get("menu")
        if items:
            return items
        stack.extend(n.children)
    return None


def compose(phone: Phone) -> Composed:
    windows: list[tuple[View, str]] = []
    kinds: list[str] = []
    if phone.foreground is None:
        root = launcher_view(phone)
        layout(root, 0, 0, SCREEN_W, SCREEN_H)
        windows.append((root, LAUNCHER_PKG))
        kinds.append("app")
        package, activity = LAUNCHER_PKG, ".NexusLauncherActivity"
    else:
        app = phone.apps[phone.foreground]
        scr = phone.screen
        assert scr is not None
        content = app.render(phone, scr)
        content.grow = 1
        root = V("frame", content, rid="", pad=(0, APP_TOP, 0, NAV_BAR_H))
        layout(root, 0, 0, SCREEN_W, SCREEN_H)
        windows.append((root, app.package))
        kinds.append("app")
        package, activity = app.package, app.activity
        if phone.menu_open:
            items = _menu_items(content) or []
            rows = []
            for label, handler in items:
                def pick(h=handler) -> None:
                    phone.menu_open = False
                    h()

                rows.append(V("linear", text_view(label, rid="title", size=44), clickable=True, focusable=True,
                              on_click=pick, h=147, pad=(48, 40, 48, 0)))
            if rows:
                menu = V("android.widget.ListView", *rows, rid="", style={"bg": "#ffffff", "shape": "card", "shadow": True})
                mh = sum(r.h or 0 for r in rows)
                layout(menu, SCREEN_W - 620, APP_TOP + 20, SCREEN_W - 20, APP_TOP + 20 + mh)
                windows.append((menu, app.package))
                kinds.append("menu")
            else:
                phone.menu_open = False
        if phone.dialog is not None:
            dlg = phone.dialog
            owner = phone.apps.get(dlg.app, app)
            panel = owner.render_dialog(phone, dlg)
            width = panel.w or 900
            panel.w = None
            h = measure_h(panel, width)
            top = max(APP_TOP + 40, (SCREEN_H - h) // 2)
            frame = V("frame", panel, rid="", style={"bg": None, "scrim": True})
            left = (SCREEN_W - width) // 2
            layout(frame, left, top, left + width, min(APP_BOTTOM, top + h))
            windows.append((frame, owner.package))
            kinds.append("dialog")
    sb = status_bar(phone)
    layout(sb, 0, 0, SCREEN_W, STATUS_BAR_H)
    windows.append((sb, SYSTEMUI_PKG))
    kinds.append("status_bar")
    nb = nav_bar(phone)
    layout(nb, 0, SCREEN_H - NAV_BAR_H, SCREEN_W, SCREEN_H)
    windows.append((nb, SYSTEMUI_PKG))
    kinds.append("nav_bar")
    if phone.toast:
        width = min(960, 120 + int(len(phone.toast) * 40 * 0.52))
        t = V("text", text=phone.toast, rid="message", style={"size": 40, "bg": "#323232", "fg": "#ffffff",
                                                              "shape": "pill", "align": "center"})
        h = measure_h(t, width - 80) + 40
        toast = V("linear", t, rid="", pad=(40, 20, 40, 20), style={"bg": None})
        left = (SCREEN_W - width) // 2
        layout(toast, left, APP_BOTTOM - 200 - h, left + width, APP_BOTTOM - 200)
        windows.append((toast, "com.android.systemui"))
        kinds.append("toast")
    return Composed(windows, package, activity, kinds)
