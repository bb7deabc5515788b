"""All state of one simulated phone: SQL app state, frozen clock, RNG, navigation and transient UI.

Everything here is plain data (the SQLite database plus dicts/lists/dataclasses of primitives), so
``snapshot``/``restore``/``clone`` copy a phone exactly. UI handlers live only in the views built
at render time and mutate the phone through its methods.
"""

from __future__ import annotations

import copy
import random
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from droidverify.env.sim.skin import skin_for
from droidverify.errors import EnvError

if TYPE_CHECKING:
    from droidverify.env.sim.app import App

DEFAULT_NOW = datetime(2024, 10, 15, 9, 41, 0)  # a Tuesday morning; tasks may set their own
ORIGIN_KEY = "origin"  # optional snapshot key: how a phone built off the defaults was built
SKIN_KEY = "skin"  # optional snapshot key: the look (``env.sim.skin``) when it is not the default 0
TOAST_STEPS = 2  # a toast stays on screen for this many observations
_SEED_IMAGES: dict[tuple, bytes] = {}  # (seed, now, seed_data, apps) -> freshly seeded database image
_SEED_IMAGES_MAX = 512
_SCHEMA_IMAGES: dict[tuple, bytes] = {}  # (now, apps) -> database with every app's schema, before seeding


@dataclass
class Screen:
    """One entry of an app's back stack: screen name, arguments and per-screen UI state."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    fields: dict[str, str] = field(default_factory=dict)  # EditText contents by key
    scroll: dict[str, int] = field(default_factory=dict)  # first visible row by list key
    state: dict[str, Any] = field(default_factory=dict)  # anything else (selected tab, draft...)


@dataclass
class Dialog:
    """An open dialog: ``app`` key (or "system"), dialog ``name`` and its data (plain values)."""

    app: str
    name: str
    data: dict[str, Any] = field(default_factory=dict)
    cancelable: bool = True


@dataclass
class Snapshot:
    db: bytes
    state: dict[str, Any]


class Phone:
    """One phone. Apps keep their state in ``conn`` (SQL); navigation/UI state is in attributes."""

    def __init__(self, seed: int = 0, *, now: datetime = DEFAULT_NOW, seed_data: bool = True,
                 skin: int = 0) -> None:
        from droidverify.env.sim.app import installed_apps

        skin_for(skin)  # 0..SKIN_COUNT, else EnvError
        self.seed = seed
        # How screens look (``env.sim.skin``; 0 = the simulator's own look). Apps never read it:
        # SimEnv applies it when it emits a screen, so app state and checkers do not depend on it.
        self.skin: int = skin
        self.conn = sqlite3.connect(":memory:", check_same_thread=False)
        self.conn.row_factory = sqlite3.Row
        self.now: datetime = now
        # How the phone was built (its seed data are stamped with this clock): a task's baseline
        # rebuilds the starting phone from them (``rebuild``), not from the defaults.
        self.built_at: datetime = now
        self.seed_data: bool = seed_data
        self.rng = random.Random(seed)
        self.apps: dict[str, App] = installed_apps()
        # navigation
        self.foreground: str | None = None  # app key; None = launcher
        self.launcher_page: str = "home"  # home | drawer | recents
        self.stacks: dict[str, list[Screen]] = {}
        self.recents: list[str] = []  # app keys, most recent last
        # transient UI
        self.toast: str | None = None
        self.toast_ttl: int = 0
        self.dialog: Dialog | None = None
        self.menu_open: bool = False
        self.focused: str | None = None  # key of the focused text field on the current screen
        self.keyboard_shown: bool = False
        self.launcher_fields: dict[str, str] = {}
        self.events: list[tuple[str, Any]] = []  # app-level log (e.g. alarms that fired)
        # Building schema + seed data costs a few ms; identical phones are restored from a cached image.
        cache_key = (seed, now, seed_data, tuple(self.apps))
        image = _SEED_IMAGES.get(cache_key)
        if image is not None:
            self.conn.deserialize(image)
            return
        # The schema (and the fixed rows some create_schema hooks insert, e.g. storage folders stamped
        # with ``now``) does not depend on the seed: build it once per process and copy it in.
        schema_key = (now, tuple(self.apps))
        schema = _SCHEMA_IMAGES.get(schema_key)
        if schema is not None:
            self.conn.deserialize(schema)
        else:
            self._create_schema()
            for app in self.apps.values():
                app.create_schema(self)
            self.conn.commit()
            if len(_SCHEMA_IMAGES) >= 64:
                _SCHEMA_IMAGES.pop(next(iter(_SCHEMA_IMAGES)))
            _SCHEMA_IMAGES[schema_key] = self.conn.serialize()
        if seed_data:
            for key in sorted(self.apps):
                self.apps[key].seed_data(self, random.Random(f"{seed}:{key}"))
        self.conn.commit()
        if len(_SEED_IMAGES) >= _SEED_IMAGES_MAX:
            _SEED_IMAGES.pop(next(iter(_SEED_IMAGES)))
        _SEED_IMAGES[cache_key] = self.conn.serialize()

    # ---- settings (Android's name/value provider tables) --------------------------------------
    def _create_schema(self) -> None:
        for table in ("settings_system", "settings_global", "settings_secure"):
            self.conn.execute(f"CREATE TABLE {table} (_id INTEGER PRIMARY KEY, name TEXT UNIQUE, value TEXT)")

    def get_setting(self, table: str, name: str, default: str | None = None) -> str | None:
        row = self.conn.execute(f"SELECT value FROM settings_{table} WHERE name=?", (name,)).fetchone()
        return row[0] if row else default

    def get_int(self, table: str, name: str, default: int = 0) -> int:
        v = self.get_setting(table, name)
        try:
            return int(v) if v is not None else default
        except ValueError:
            return default

    def put_setting(self, table: str, name: str, value: Any) -> None:
        if table not in ("system", "global", "secure"):
            raise EnvError(f"unknown settings table {table!r} (system, global or secure)")
        self.conn.execute(
            f"INSERT INTO settings_{table}(name, value) VALUES(?, ?) "
            "ON CONFLICT(name) DO UPDATE SET value=excluded.value", (name, str(value)))

    # ---- SQL helpers ------------------------------------------------------------------------
    def query(self, sql: str, params: tuple | dict = ()) -> list[sqlite3.Row]:
        return self.conn.execute(sql, params).fetchall()

    def query_one(self, sql: str, params: tuple | dict = ()) -> sqlite3.Row | None:
        return self.conn.execute(sql, params).fetchone()

    def execute(self, sql: str, params: tuple | dict = ()) -> int:
        """Run a write; returns ``lastrowid``."""
        return self.conn.execute(sql, params).lastrowid or 0

    # ---- clock --------------------------------------------------------------------------------
    def advance(self, seconds: float) -> None:
        """Move the frozen clock forward; apps react via their ``on_time`` hook (timers firing)."""
        before = self.now
        self.now = self.now + timedelta(seconds=seconds)
        for app in self.apps.values():
            app.on_time(self, before, self.now)

    @property
    def uses_24h(self) -> bool:
        return self.get_setting("system", "time_12_24", "12") == "24"

    def format_time(self, hour: int, minute: int, *, ampm: bool = True) -> str:
        """Time of day as the phone shows it under its 12/24-hour setting."""
        if self.uses_24h:
            return f"{hour:02d}:{minute:02d}"
        h12 = hour % 12 or 12
        return f"{h12}:{minute:02d} {'AM' if hour < 12 else 'PM'}" if ampm else f"{h12}:{minute:02d}"

    # ---- navigation -------------------------------------------------------------------------
    def app(self, key: str) -> App:
        try:
            return self.apps[key]
        except KeyError:
            raise EnvError(f"no app {key!r} installed (have {', '.join(sorted(self.apps))})") from None

    def resolve_app(self, name: str) -> str | None:
        """App key for a launcher name, package or alias (case-insensitive), else None."""
        want = " ".join(name.lower().split())
        for key, app in self.apps.items():
            names = {app.name.lower(), app.package.lower(), key.lower(), *(a.lower() for a in app.aliases)}
            if want in names:
                return key
        return None

    def open_app(self, key: str, screen: str | None = None, **args: Any) -> None:
        """Bring ``key`` to the foreground (resuming its back stack) or start it at ``screen``."""
        app = self.app(key)
        self._clear_transient()
        self.foreground = key
        if screen is not None:
            self.stacks[key] = [Screen(screen, dict(args))]
        elif not self.stacks.get(key):
            self.stacks[key] = [Screen(app.home_screen)]
        if key in self.recents:
            self.recents.remove(key)
        self.recents.append(key)

    @property
    def screen(self) -> Screen | None:
        """The foreground app's top screen (None on the launcher)."""
        if self.foreground is None:
            return None
        return self.stacks[self.foreground][-1]

    @property
    def location(self) -> str:
        """``"<app>/<screen>"`` or ``"launcher/<page>"``; handy for oracles and logs."""
        if self.foreground is None:
            return f"launcher/{self.launcher_page}"
        return f"{self.foreground}/{self.stacks[self.foreground][-1].name}"

    def push(self, name: str, **args: Any) -> Screen:
        """Open a new screen of the foreground app on top of its back stack."""
        if self.foreground is None:
            raise EnvError(f"cannot push screen {name!r}: no app in the foreground")
        self._clear_transient()
        scr = Screen(name, dict(args))
        self.stacks[self.foreground].append(scr)
        return scr

    def replace(self, name: str, **args: Any) -> Screen:
        """Replace the top screen (e.g. switching tabs)."""
        if self.foreground is None:
            raise EnvError(f"cannot show screen {name!r}: no app in the foreground")
        self._clear_transient()
        scr = Screen(name, dict(args))
        self.stacks[self.foreground][-1] = scr
        return scr

    def pop(self) -> None:
        """Close the top screen; closing an app's last screen returns to the launcher."""
        self._clear_transient()
        if self.foreground is None:
            self.launcher_page = "home"
            return
        stack = self.stacks[self.foreground]
        stack.pop()
        if not stack:
            del self.stacks[self.foreground]
            self.go_home()

    def go_home(self) -> None:
        self._clear_transient()
        self.foreground = None
        self.launcher_page = "home"

    def back(self) -> None:
        """The system back key: hide keyboard, else close menu/dialog, else pop a screen."""
        if self.keyboard_shown:
            self.keyboard_shown = False
            return
        if self.menu_open:
            self.menu_open = False
            return
        if self.dialog is not None:
            if self.dialog.cancelable:
                self.dialog = None
            return
        if self.foreground is None:
            if self.launcher_page != "home":
                self.launcher_page = "home"
                self.launcher_fields.clear()
            return
        handler = self.apps[self.foreground].on_back
        if handler is not None and handler(self):
            return
        self.pop()

    def _clear_transient(self) -> None:
        self.dialog = None
        self.menu_open = False
        self.focused = None
        self.keyboard_shown = False

    # ---- transient UI -------------------------------------------------------------------------
    def show_toast(self, text: str, steps: int = TOAST_STEPS) -> None:
        self.toast, self.toast_ttl = text, steps

    def show_dialog(self, app: str, name: str, *, cancelable: bool = True, **data: Any) -> None:
        """Open dialog ``name`` rendered by ``apps[app].dialog_<name>`` (or the system dialogs)."""
        self.menu_open = False
        self.focused = None
        self.keyboard_shown = False
        self.dialog = Dialog(app, name, dict(data), cancelable)

    def close_dialog(self) -> None:
        self.dialog = None
        self.focused = None
        self.keyboard_shown = False

    def tick(self) -> None:
        """One observation passed: age the toast."""
        if self.toast_ttl > 0:
            self.toast_ttl -= 1
            if self.toast_ttl == 0:
                self.toast = None

    # ---- snapshot / clone ---------------------------------------------------------------------
    _STATE = ("seed", "now", "foreground", "launcher_page", "stacks", "recents", "toast", "toast_ttl",
              "dialog", "menu_open", "focused", "keyboard_shown", "launcher_fields", "events")

    def snapshot(self) -> Snapshot:
        """Everything needed to restore this phone exactly (SQL bytes + copied Python state)."""
        self.conn.commit()
        state = {k: copy.deepcopy(getattr(self, k)) for k in self._STATE}
        state["rng"] = self.rng.getstate()
        origin = self.origin
        if origin != (DEFAULT_NOW, True):
            # Only a phone built off the defaults carries its origin, so every default phone's
            # snapshot (and saved state) stays byte-identical to what earlier versions wrote.
            state[ORIGIN_KEY] = {"built_at": origin[0], "seed_data": origin[1]}
        skin = getattr(self, "skin", 0)
        if skin:  # likewise only a skinned phone carries its skin
            state[SKIN_KEY] = skin
        return Snapshot(self.conn.serialize(), state)

    def restore(self, snap: Snapshot) -> None:
        self.conn.deserialize(snap.db)
        for k in self._STATE:
            setattr(self, k, copy.deepcopy(snap.state[k]))
        self.rng.setstate(snap.state["rng"])
        origin = snap.state.get(ORIGIN_KEY) or {}
        self.built_at = origin.get("built_at", DEFAULT_NOW)
        self.seed_data = origin.get("seed_data", True)
        self.skin = snap.state.get(SKIN_KEY, 0)

    @property
    def origin(self) -> tuple[datetime, bool]:
        """(clock at build, seeded?): with ``seed``, all that determines the phone before any set-up."""
        return getattr(self, "built_at", DEFAULT_NOW), getattr(self, "seed_data", True)

    def rebuild(self) -> Phone:
        """A new phone as this one was built: same seed, same clock at build, same seed data, same skin."""
        built_at, seed_data = self.origin
        return Phone(self.seed, now=built_at, seed_data=seed_data, skin=getattr(self, "skin", 0))

    def clone(self) -> Phone:
        """An independent phone in the same state; changing one never affects the other."""
        other = Phone.__new__(Phone)
        other.conn = sqlite3.connect(":memory:", check_same_thread=False)
        other.conn.row_factory = sqlite3.Row
        other.rng = random.Random()
        other.apps = self.apps
        other.restore(self.snapshot())
        return other

    def close(self) -> None:
        self.conn.close()
