"""App base class, the app registry and the shared widgets/dialogs every simulated app uses.

An app is a subclass of :class:`App` registered with ``@register_app`` in a module under
``droidverify.env.sim.apps`` (modules there are imported automatically). It declares its SQL
schema, seeds realistic data, and renders screens: method ``screen_<name>(phone, scr) -> View``
for every screen name pushed on its back stack, and ``dialog_<name>(phone, dlg) -> View`` for
its own dialogs. See docs/sim_apps.md for a worked example.
"""

from __future__ import annotations

import importlib
import pkgutil
import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from droidverify.env.sim.timeutil import MONTHS, day_label
from droidverify.env.sim.view import APP_BOTTOM, SCREEN_W, V, View, scroll_list
from droidverify.errors import EnvError

if TYPE_CHECKING:
    from droidverify.env.sim.phone import Dialog, Phone, Screen

_APPS: dict[str, type[App]] = {}
_LOADED = False


def register_app(cls: type[App]) -> type[App]:
    """Class decorator: make an app available on every new Phone (key = ``cls.key``)."""
    key = cls.key
    if key in _APPS and _APPS[key] is not cls:
        raise EnvError(f"app key {key!r} registered twice ({_APPS[key].__name__} and {cls.__name__})")
    _APPS[key] = cls
    return cls


def _load_apps() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    from droidverify.env.sim import apps as pkg

    for mod in sorted(m.name for m in pkgutil.iter_modules(pkg.__path__)):
        importlib.import_module(f"{pkg.__name__}.{mod}")


_INSTANCES: dict[str, App] = {}


def installed_apps() -> dict[str, App]:
    """Key -> app instance for every registered app (apps are stateless; instances are shared)."""
    _load_apps()
    for key, cls in _APPS.items():
        if key not in _INSTANCES or type(_INSTANCES[key]) is not cls:
            _INSTANCES[key] = cls()
    return {k: _INSTANCES[k] for k in sorted(_APPS)}


class App:
    """Base class of a simulated app. Stateless: all state lives in the Phone (SQL + screens)."""

    key: ClassVar[str]  # short id, e.g. "clock"
    name: ClassVar[str]  # launcher label, e.g. "Clock"
    package: ClassVar[str]  # e.g. "com.google.android.deskclock"
    aliases: ClassVar[tuple[str, ...]] = ()
    home_screen: ClassVar[str] = "main"
    icon_color: ClassVar[str] = "#1a73e8"  # launcher icon colour (screenshot only)
    activity: ClassVar[str] = ".MainActivity"
    on_back: ClassVar[Callable[[Phone], bool] | None] = None  # return True if it handled back

    def create_schema(self, phone: Phone) -> None:
        """Create this app's tables (called once per phone)."""

    def seed_data(self, phone: Phone, rng: random.Random) -> None:
        """Insert realistic initial content drawn from ``rng`` (seeded per phone and app)."""

    def on_time(self, phone: Phone, before: Any, after: Any) -> None:
        """The clock moved from ``before`` to ``after`` (fire timers etc.)."""

    def render(self, phone: Phone, scr: Screen) -> View:
        fn = getattr(self, f"screen_{scr.name}", None)
        if fn is None:
            raise EnvError(f"app {self.key!r} has no screen {scr.name!r} (define screen_{scr.name})")
        return fn(phone, scr)

    def render_dialog(self, phone: Phone, dlg: Dialog) -> View:
        fn = getattr(self, f"dialog_{dlg.name}", None)
        if fn is None:
            raise EnvError(f"app {self.key!r} has no dialog {dlg.name!r} (define dialog_{dlg.name})")
        return fn(phone, dlg)

    def call(self, phone: Phone, method: str, **kwargs: Any) -> None:
        """Invoke a named app method (dialogs store method names, never closures)."""
        fn = getattr(self, method, None)
        if fn is None:
            raise EnvError(f"app {self.key!r} has no method {method!r}")
        fn(phone, **kwargs)

    # ---- system dialogs every app can open with phone.show_dialog(app.key, "<name>", ...) -----
    def dialog_confirm(self, phone: Phone, dlg: Dialog) -> View:
        """data: title, message, ok (label), on_ok (method name), args (dict)."""
        d = dlg.data

        def ok() -> None:
            phone.close_dialog()
            self.call(phone, d["on_ok"], **d.get("args", {}))

        return dialog_panel(
            d.get("title", ""), [V("text", text=d.get("message", ""), rid="android:id/message", style={"size": 40})]
            if d.get("message") else [],
            buttons=[("Cancel", phone.close_dialog), (d.get("ok", "OK"), ok)], pkg_rid="android")

    def dialog_choice(self, phone: Phone, dlg: Dialog) -> View:
        """data: title, options (list of labels), selected (label), on_ok (method, gets value=)."""
        d = dlg.data
        rows = []
        for i, opt in enumerate(d["options"]):
            def pick(opt: str = opt) -> None:
                phone.close_dialog()
                self.call(phone, d["on_ok"], value=opt, **d.get("args", {}))

            rows.append(V("radio", text=opt, rid="text1", checkable=True, checked=opt == d.get("selected"),
                          clickable=True, focusable=True, on_click=pick, h=132, style={"size": 40}))
        return dialog_panel(d.get("title", ""), [V("linear", *rows, rid="select_dialog_listview")],
                            buttons=[("Cancel", phone.close_dialog)], pkg_rid="android")

    def dialog_text_input(self, phone: Phone, dlg: Dialog) -> View:
        """data: title, value, hint, ok, on_ok (method, gets value=)."""
        d = dlg.data
        store = d.setdefault("fields", {"value": d.get("value", "")})

        def ok() -> None:
            value = store["value"].strip()
            if not value and not d.get("allow_empty"):
                phone.show_toast(d.get("empty_error", "Name can't be empty"))
                return
            phone.close_dialog()
            self.call(phone, d["on_ok"], value=value, **d.get("args", {}))

        field = edit_field(phone, store, "value", hint=d.get("hint", ""), rid="edit", on_enter=ok)
        return dialog_panel(d.get("title", ""), [field], buttons=[("Cancel", phone.close_dialog),
                                                                  (d.get("ok", "OK"), ok)], pkg_rid="android")

    def dialog_time_picker(self, phone: Phone, dlg: Dialog) -> View:
        """data: title, hour (0-23), minute, on_ok (method, gets hour=, minute=), args."""
        return time_picker_panel(phone, self, dlg)

    def dialog_date_picker(self, phone: Phone, dlg: Dialog) -> View:
        """data: title, year, month (1-12), day, on_ok (method, gets year=, month=, day=), args."""
        return date_picker_panel(phone, self, dlg)


# ---- widgets ------------------------------------------------------------------------------
ACCENT = "#1a73e8"
TOOLBAR_H = 168
ROW_H = 147
ROW2_H = 189


def app_bar(title: str, *, back: Callable[[], None] | None = None,
            actions: Sequence[tuple[str, str, Callable[[], None]]] = (),
            menu: Sequence[tuple[str, Callable[[], None]]] = (), phone: Phone | None = None) -> View:
    """Toolbar: optional "Navigate up" button, title, action icons (desc, rid, handler), ⋮ menu.

    Menu items are kept on the toolbar node; the environment shows them as a popup when the
    "More options" button was pressed (``phone.menu_open``).
    """
    kids: list[View] = []
    if back is not None:
        kids.append(V("imagebutton", desc="Navigate up", clickable=True, focusable=True, on_click=back,
                      w=147, h=147, style={"icon": "back"}))
    kids.append(V("text", text=title, rid="title" if back else "toolbar_title", grow=1,
                  style={"size": 56, "valign": "center"}))
    for desc, rid, handler in actions:
        kids.append(V("imagebutton", desc=desc, rid=rid, clickable=True, focusable=True, on_click=handler,
                      w=147, h=147, style={"icon": rid}))
    if menu:
        def open_menu() -> None:
            if phone is not None:
                phone.menu_open = True

        kids.append(V("imagebutton", desc="More options", clickable=True, focusable=True, on_click=open_menu,
                      w=126, h=147, style={"icon": "more"}))
    bar = V("linear", *kids, rid="toolbar", horizontal=True, h=TOOLBAR_H, pad=(24, 10, 16, 10),
            style={"bg": "#ffffff"})
    bar.style["menu"] = list(menu)
    return bar


def screen_frame(bar: View | None, body: View, *, fab: View | None = None, bottom: View | None = None,
                 rid: str = "content") -> View:
    """The app window's root: toolbar, a growing body, optional bottom bar and floating button."""
    body.grow = body.grow or 1.0
    root = V("frame", V("linear", bar, body, bottom, rid=rid, grow=1), rid="",
             style={"bg": "#ffffff"})
    root.children[0].h = None
    if fab is not None:
        root.children.append(fab)
    return root


def text_view(text: str, *, rid: str = "", size: int = 42, **kw: Any) -> View:
    style = kw.pop("style", {})
    style.setdefault("size", size)
    return V("text", text=text, rid=rid, style=style, **kw)


def list_row(title: str, summary: str | None = None, *, on_click: Callable[[], None] | None = None,
             rid: str = "", icon: str | None = None, right: View | None = None,
             on_long_click: Callable[[], None] | None = None, enabled: bool = True,
             desc: str = "") -> View:
    """A preference-style row: title, optional summary, optional trailing widget."""
    texts = V("linear", text_view(title, rid="title", size=46, enabled=enabled),
              text_view(summary, rid="summary", size=36, style={"fg": "#5f6368"}, enabled=enabled)
              if summary else None, rid="", grow=1, pad=(0, 24, 0, 24))
    kids: list[View | None] = []
    if icon:
        kids.append(V("image", rid="icon", w=126, h=84, style={"icon": icon}))
    kids += [texts, right]
    return V("linear", *kids, rid=rid, horizontal=True, clickable=on_click is not None,
             focusable=on_click is not None, on_click=on_click, long_clickable=on_long_click is not None,
             on_long_click=on_long_click, enabled=enabled, desc=desc, pad=(48, 0, 40, 0),
             h=ROW2_H if summary else ROW_H)


def switch_row(title: str, checked: bool, on_toggle: Callable[[bool], None], *, summary: str | None = None,
               rid: str = "", enabled: bool = True, switch_rid: str = "switch_widget") -> View:
    """A row with a Switch; tapping anywhere on the row (or the switch) toggles it."""
    sw = V("switch", rid=switch_rid, text="ON" if checked else "OFF", checkable=True, checked=checked,
           enabled=enabled, focusable=True, w=150, h=96)
    return list_row(title, summary, rid=rid, right=sw, enabled=enabled,
                    on_click=(lambda: on_toggle(not checked)) if enabled else None)


def edit_field(phone: Phone, store: dict[str, str], key: str, *, hint: str = "", rid: str = "",
               on_change: Callable[[str], None] | None = None, on_enter: Callable[[], None] | None = None,
               password: bool = False, h: int | None = None, size: int = 44) -> View:
    """An EditText whose text lives in ``store[key]`` (screen/dialog state)."""
    focus_key = rid or key
    value = store.get(key, "")

    def focus() -> None:
        phone.focused = focus_key
        phone.keyboard_shown = True

    def set_text(text: str) -> None:
        store[key] = text
        phone.focused = focus_key
        phone.keyboard_shown = True
        if on_change is not None:
            on_change(text)

    return V("edit", text=value, hint=hint, rid=rid or key, clickable=True, focusable=True,
             long_clickable=True, focused=phone.focused == focus_key, password=password, on_click=focus,
             on_text=set_text, on_enter=on_enter, h=h, style={"size": size, "border": True})


def fab(desc: str, on_click: Callable[[], None], *, rid: str = "fab", icon: str = "add",
        bottom: int = APP_BOTTOM - 60) -> View:
    """A floating action button in the bottom-right corner."""
    size = 168
    return V("fab", desc=desc, rid=rid, clickable=True, focusable=True, on_click=on_click,
             at=(SCREEN_W - 63 - size, bottom - size, SCREEN_W - 63, bottom),
             style={"icon": icon, "bg": ACCENT, "shape": "round"})


def button(text: str, on_click: Callable[[], None] | None, *, rid: str = "", desc: str = "",
           enabled: bool = True, w: int | None = None, h: int | None = 126, primary: bool = False,
           **kw: Any) -> View:
    style = kw.pop("style", {})
    style.setdefault("bg", ACCENT if primary else "#e8f0fe")
    style.setdefault("fg", "#ffffff" if primary else ACCENT)
    style.setdefault("shape", "pill")
    return V("button", text=text, desc=desc, rid=rid, clickable=True, focusable=True, enabled=enabled,
             on_click=on_click, w=w, h=h, style=style, **kw)


def icon_button(desc: str, on_click: Callable[[], None] | None, *, rid: str = "", icon: str = "",
                w: int = 126, h: int = 126, enabled: bool = True) -> View:
    return V("imagebutton", desc=desc, rid=rid, clickable=True, focusable=True, on_click=on_click,
             enabled=enabled, w=w, h=h, style={"icon": icon or rid})


def bottom_tabs(items: Sequence[tuple[str, str]], selected: str, on_select: Callable[[str], None],
                *, rid: str = "tabs") -> View:
    """Bottom navigation: (label, key) pairs; the selected tab has ``selected=true``."""
    kids = []
    for label, key in items:
        kids.append(V("text", text=label, desc=label, rid=f"tab_{key}", clickable=True, focusable=True,
                      selected=key == selected, on_click=(lambda k=key: on_select(k)),
                      style={"size": 36, "align": "center", "valign": "bottom", "icon": f"tab_{key}"}))
    return V("linear", *kids, rid=rid, horizontal=True, h=210, style={"bg": "#f1f3f4"})


def list_view(phone: Phone, scr: Screen, rows: Sequence[View], *, key: str = "list",
              rid: str = "recycler_view", empty: str | None = None, **kw: Any) -> View:
    """A scrollable list whose offset lives in ``scr.scroll[key]``; off-screen rows are absent."""
    if not rows and empty:
        return V("linear", text_view(empty, rid="empty_view", size=42, style={"align": "center"}),
                 grow=1, pad=(48, 300, 48, 0))

    def set_offset(n: int) -> None:
        scr.scroll[key] = n

    return scroll_list(rows, scr.scroll.get(key, 0), set_offset, rid=rid, **kw)


def dialog_panel(title: str, body: Sequence[View], *, buttons: Sequence[tuple[str, Callable[[], None]]],
                 pkg_rid: str = "", width: int = 900) -> View:
    """An AlertDialog-like panel: title, body views and a row of text buttons (right-aligned)."""
    ns = f"{pkg_rid}:id/" if pkg_rid else ""  # platform dialogs use android:id/button1 (positive) ...
    btns = [V("button", text=label, rid=f"{ns}button{i + 1}", clickable=True,
              focusable=True, on_click=fn, w=max(200, 40 + 30 * len(label)), h=126,
              style={"fg": ACCENT, "bg": None}) for i, (label, fn) in enumerate(reversed(buttons))]
    btns.reverse()
    row = V("linear", V("view", grow=1), *btns, rid="buttonPanel", horizontal=True, h=150, gap=12)
    kids = [text_view(title, rid=f"{ns}alertTitle", size=52, style={"bold": True})] if title else []
    panel = V("linear", *kids, V("linear", *body, rid="custom", gap=12), row, rid="parentPanel", w=width,
              pad=(60, 60, 40, 30), gap=30, style={"bg": "#ffffff", "shape": "card"})
    return panel


def _bump(value: int, delta: int, lo: int, hi: int) -> int:
    span = hi - lo + 1
    return lo + (value - lo + delta) % span


def time_picker_panel(phone: Phone, app: App, dlg: Dialog) -> View:
    """Time picker: hour/minute fields (typeable) with +/- buttons, AM/PM in 12-hour mode."""
    d = dlg.data
    h24 = phone.uses_24h
    hour, minute = int(d["hour"]), int(d["minute"])
    f = d.setdefault("fields", {})
    f.setdefault("hour", str(hour if h24 else (hour % 12 or 12)))
    f.setdefault("minute", f"{minute:02d}")

    def set_hm(new_h: int, new_m: int) -> None:
        d["hour"], d["minute"] = new_h, new_m
        f["hour"] = str(new_h if h24 else (new_h % 12 or 12))
        f["minute"] = f"{new_m:02d}"

    def typed_hour(text: str) -> None:
        if text.strip().isdigit():
            v = int(text)
            if h24 and 0 <= v <= 23:
                d["hour"] = v
            elif not h24 and 1 <= v <= 12:
                d["hour"] = (v % 12) + (12 if int(d["hour"]) >= 12 else 0)

    def typed_minute(text: str) -> None:
        if text.strip().isdigit() and 0 <= int(text) <= 59:
            d["minute"] = int(text)

    def ok() -> None:
        try:
            hv, mv = int(f["hour"]), int(f["minute"])
            valid = (0 <= hv <= 23 if h24 else 1 <= hv <= 12) and 0 <= mv <= 59
        except ValueError:
            valid = False
        if not valid:
            phone.show_toast("Enter a valid time")
            return
        phone.close_dialog()
        app.call(phone, d["on_ok"], hour=int(d["hour"]), minute=int(d["minute"]), **d.get("args", {}))

    def column(label: str, key: str, on_text: Callable[[str], None], inc: Callable[[], None],
               dec: Callable[[], None]) -> View:
        fld = edit_field(phone, f, key, hint=label, rid=key, on_change=on_text, size=72, h=170)
        fld.desc = label
        return V("linear", icon_button(f"Increase {label.lower()}", inc, rid=f"{key}_up", icon="up", w=200),
                 fld, icon_button(f"Decrease {label.lower()}", dec, rid=f"{key}_down", icon="down", w=200),
                 rid=f"{key}_picker", w=260)

    cols = [
        column("Hour", "hour", typed_hour, lambda: set_hm(_bump(hour, 1, 0, 23), minute),
               lambda: set_hm(_bump(hour, -1, 0, 23), minute)),
        text_view(":", size=72, w=60, style={"align": "center"}),
        column("Minute", "minute", typed_minute, lambda: set_hm(hour, _bump(minute, 1, 0, 59)),
               lambda: set_hm(hour, _bump(minute, -1, 0, 59))),
    ]
    if not h24:
        def am() -> None:
            if hour >= 12:
                set_hm(hour - 12, minute)

        def pm() -> None:
            if hour < 12:
                set_hm(hour + 12, minute)

        cols.append(V("linear", button("AM", am, rid="am_label", selected=hour < 12, primary=hour < 12),
                      button("PM", pm, rid="pm_label", selected=hour >= 12, primary=hour >= 12),
                      rid="ampm_toggle", w=200, gap=20, pad=(0, 90, 0, 0)))
    body = V("linear", *cols, rid="time_picker", horizontal=True, gap=10)
    return dialog_panel(d.get("title", "Select time"), [body],
                        buttons=[("Cancel", phone.close_dialog), ("OK", ok)], pkg_rid="android")


def date_picker_panel(phone: Phone, app: App, dlg: Dialog) -> View:
    """Date picker: year/month/day with +/- buttons; day and year are typeable."""
    import calendar
    from datetime import date

    d = dlg.data
    y, m, dd = int(d["year"]), int(d["month"]), int(d["day"])
    f = d.setdefault("fields", {})
    f["day"], f["year"] = str(dd), str(y)

    def set_ymd(ny: int, nm: int, nd: int) -> None:
        nd = min(nd, calendar.monthrange(ny, nm)[1])
        d["year"], d["month"], d["day"] = ny, nm, nd

    def month_step(delta: int) -> None:
        idx = (y * 12 + m - 1) + delta
        set_ymd(idx // 12, idx % 12 + 1, dd)

    def typed_day(text: str) -> None:
        if text.strip().isdigit() and 1 <= int(text) <= calendar.monthrange(y, m)[1]:
            d["day"] = int(text)

    def typed_year(text: str) -> None:
        if text.strip().isdigit() and 1900 <= int(text) <= 2100:
            set_ymd(int(text), m, dd)

    def ok() -> None:
        phone.close_dialog()
        app.call(phone, d["on_ok"], year=int(d["year"]), month=int(d["month"]), day=int(d["day"]),
                 **d.get("args", {}))

    last = calendar.monthrange(y, m)[1]
    header = text_view(day_label(date(y, m, dd)), rid="date_picker_header", size=56)
    day_f = edit_field(phone, f, "day", hint="Day", rid="day", on_change=typed_day, size=60)
    day_f.desc = "Day"
    year_f = edit_field(phone, f, "year", hint="Year", rid="year", on_change=typed_year, size=60)
    year_f.desc = "Year"
    cols = V("linear",
             V("linear", icon_button("Next month", lambda: month_step(1), rid="month_up", icon="up", w=260),
               text_view(MONTHS[m - 1], rid="month", size=48, h=150, style={"align": "center"}),
               icon_button("Previous month", lambda: month_step(-1), rid="month_down", icon="down", w=260),
               w=300),
             V("linear", icon_button("Next day", lambda: set_ymd(y, m, dd % last + 1), rid="day_up", icon="up",
                                     w=200),
               day_f, icon_button("Previous day", lambda: set_ymd(y, m, (dd - 2) % last + 1), rid="day_down",
                                  icon="down", w=200), w=220),
             V("linear", icon_button("Next year", lambda: set_ymd(y + 1, m, dd), rid="year_up", icon="up",
                                     w=200),
               year_f, icon_button("Previous year", lambda: set_ymd(y - 1, m, dd), rid="year_down", icon="down",
                                   w=200), w=240),
             rid="date_picker", horizontal=True, gap=20)
    return dialog_panel(d.get("title", "Select date"), [header, cols],
                        buttons=[("Cancel", phone.close_dialog), ("OK", ok)], pkg_rid="android")
