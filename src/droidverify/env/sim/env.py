"""``SimEnv``: the deterministic simulated phone behind the ``Environment`` contract."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from droidverify.actions.model import Action, require_action
from droidverify.env.interface import check_seed
from droidverify.env.records import Observation
from droidverify.env.sim.phone import Phone
from droidverify.env.sim.skin import apply_skin, skin_for
from droidverify.env.sim.system import Composed, compose
from droidverify.env.sim.view import SCREEN_H, SCREEN_W, Emitted, View, emit, hit_test
from droidverify.errors import ActionValidationError, EnvError
from droidverify.ui.element import UIElement


class Task(Protocol):
    """What the simulator needs of a task (``droidverify.tasks.base.Task`` is one); env does not
    import tasks: tasks sit above it."""

    def setup(self, phone: Phone) -> None: ...

    def is_successful(self, phone: Phone, answer: str | None = None) -> float: ...

WAIT_SECONDS = 5  # how far ``wait`` moves the frozen clock


@dataclass(eq=False)
class SimObservation(Observation):
    """An ``Observation`` that also carries the views it was emitted from (``views[node_id]``).

    The renderer reads their ``style`` (colours, shapes, icons) for faithful screenshots. Views hold
    render-time closures, so they are dropped when the observation is pickled or serialised, and
    ``SimEnv`` keeps them only on its latest observation (older ones in a trajectory would otherwise
    pin every screen's views in memory); rendering an older one falls back to class defaults.
    """

    views: list[View] | None = field(default=None, repr=False)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["views"] = None
        return state


class SimEnv:
    """A simulated phone an agent can act on; same seed + same actions -> byte-identical XML.

    ``reset`` builds a fresh phone from ``seed`` (seed data drawn from it), applies the task's
    set-up and returns the home screen. Element indices in actions refer to the ``elements`` of
    the latest observation (``droidverify.ui.select.select_elements``); each maps back to the
    exact view node it was emitted from (by ``node_id``).

    ``skin`` picks the look (``env.sim.skin``: 0 is the simulator's own, 1..SKIN_COUNT relabel and
    restyle app chrome); the phone carries it, so clones and saved states keep it, and neither
    app state nor the task's checker depends on it.
    """

    def __init__(self, task: Task | None = None, seed: int = 0, *, screenshot: bool = False,
                 skin: int = 0) -> None:
        self.task = task
        self.seed = check_seed(seed)
        skin_for(skin)  # 0..SKIN_COUNT, else EnvError
        self._skin = skin
        self.screenshot = screenshot
        self.last_answer: str | None = None
        self._phone: Phone | None = None  # built on first use: reset() builds it exactly once
        self._emitted: Emitted | None = None
        self._composed: Composed | None = None
        self._obs: Observation | None = None
        self._closed = False
        self.steps = 0

    @classmethod
    def attach(cls, phone: Phone, task: Task | None = None) -> SimEnv:
        """An environment around an existing phone (no reset): for probing branches/clones."""
        env = cls.__new__(cls)
        env.task, env.seed, env.screenshot, env._skin = task, phone.seed, False, phone.skin
        env.last_answer, env._phone, env.steps, env._closed = None, phone, 0, False
        env._emitted = env._composed = env._obs = None
        return env

    @property
    def phone(self) -> Phone:
        """The simulated phone (built from ``seed`` on first access if no reset happened yet)."""
        if self._phone is None:
            self._check_open()
            self._phone = Phone(self.seed, skin=self._skin)
        return self._phone

    @phone.setter
    def phone(self, value: Phone) -> None:
        self._phone = value

    @property
    def skin(self) -> int:
        """The look screens are emitted in (the phone's ``skin``; 0 = the simulator's own)."""
        return self._phone.skin if self._phone is not None else self._skin

    # ---- Environment protocol -----------------------------------------------------------------
    def reset(self, *, go_home: bool = True) -> Observation:
        self._check_open()
        if self._phone is not None:
            self._phone.close()
        self._phone = Phone(self.seed, skin=self._skin)
        self.last_answer = None
        self.steps = 0
        if self.task is not None:
            self.task.setup(self.phone)
            self.phone.conn.commit()
        if go_home:
            self.phone.go_home()
        return self.observe()

    def observe(self) -> Observation:
        """Render the current screen (no state change)."""
        self._check_open()
        composed = compose(self.phone)
        skin = skin_for(self.phone.skin)
        if not skin.identity:
            apply_skin(composed, skin, launcher=self.phone.foreground is None)
        em = emit(composed.windows)
        self._composed, self._emitted = composed, em
        p = self.phone
        info = {
            "location": p.location, "toast": p.toast, "keyboard_shown": p.keyboard_shown,
            "dialog": p.dialog.name if p.dialog else None, "menu_open": p.menu_open,
            "time": p.now.isoformat(timespec="seconds"), "windows": composed.kinds,
        }
        obs = SimObservation(xml=em.xml, package=composed.package, activity=composed.activity,
                          screen_size=(SCREEN_W, SCREEN_H), timestamp=p.now.timestamp(), info=info,
                          _root=em.root, views=em.nodes)
        if self.screenshot:
            from droidverify.ui.render import render_png

            obs.screenshot_png = render_png(obs)
        if isinstance(self._obs, SimObservation):
            self._obs.views = None
        self._obs = obs
        return obs

    def step(self, action: Action) -> Observation:
        self._check_open()
        require_action(action)
        if self._obs is None:
            self.observe()
        self.phone.tick()
        self._execute(action)
        self.steps += 1
        return self.observe()

    def close(self) -> None:
        if not self._closed:
            if self._phone is not None:
                self._phone.close()
            self._closed = True

    # ---- helpers --------------------------------------------------------------------------------
    @property
    def last_observation(self) -> Observation | None:
        return self._obs

    def is_successful(self) -> float:
        """The task checker's score on the current phone state. An episode's *success* also needs
        the agent to declare done: :func:`~droidverify.env.records.episode_success`."""
        if self.task is None:
            raise EnvError("SimEnv has no task to check")
        return self.task.is_successful(self.phone, self.last_answer)

    def _check_open(self) -> None:
        if self._closed:
            raise EnvError("SimEnv is closed")

    def _element(self, index: int) -> tuple[UIElement, View]:
        assert self._obs is not None and self._emitted is not None
        elements = self._obs.elements
        if not 0 <= index < len(elements):
            raise ActionValidationError(
                f"element index {index} is out of range: the current screen has {len(elements)} elements"
                f" (0..{len(elements) - 1})", field="index")
        el = elements[index]
        nodes = self._emitted.nodes
        if not (0 <= el.node_id < len(nodes)) or self._emitted.elements[el.node_id].class_name != el.class_name:
            raise EnvError(f"element {index} does not map back to a node of the rendered screen")
        return el, nodes[el.node_id]

    def _point(self, action: Action) -> tuple[int, int, UIElement | None, View | None]:
        if action.index is not None:
            el, view = self._element(action.index)
            b = el.bbox_pixels
            assert b is not None
            x, y = b.center
            return x, y, el, view
        assert action.x is not None and action.y is not None
        if action.x >= SCREEN_W or action.y >= SCREEN_H:
            raise ActionValidationError(
                f"point ({action.x}, {action.y}) is off the {SCREEN_W}x{SCREEN_H} screen", field="x")
        return action.x, action.y, None, None

    def _window_of(self, kind: str) -> UIElement | None:
        assert self._composed is not None and self._emitted is not None
        for k, el in zip(self._composed.kinds, self._emitted.root.children):
            if k == kind:
                return el
        return None

    def _tap(self, x: int, y: int, *, long: bool = False) -> None:
        """A finger tap at (x, y): dismiss popups when outside them, else hit-test like a device."""
        assert self._emitted is not None
        p = self.phone
        bars = [w for w in (self._window_of("status_bar"), self._window_of("nav_bar")) if w is not None]
        on_bar = any(w.bbox_pixels is not None and w.bbox_pixels.contains(x, y) for w in bars)
        for kind in ("menu", "dialog"):
            win = self._window_of(kind)
            if win is not None and not on_bar and win.bbox_pixels is not None and not win.bbox_pixels.contains(x, y):
                if kind == "menu":
                    p.menu_open = False
                elif p.dialog is not None and p.dialog.cancelable:
                    p.close_dialog()
                return
        view = hit_test(self._emitted, x, y, want="long_click" if long else "click")
        if view is None:
            return
        handler = view.on_long_click if long else view.on_click
        if handler is not None:
            handler()
        elif not long and p.keyboard_shown and not view.editable:
            p.keyboard_shown = False

    def _editable(self, action: Action) -> View:
        x, y, _el, view = self._point(action)
        if view is None:
            assert self._emitted is not None
            view = hit_test(self._emitted, x, y, want="edit")
            if view is None:
                raise ActionValidationError(f"no text field at ({x}, {y})", field="x")
        if not view.editable:
            what = f"{view.cls.rsplit('.', 1)[-1]} {(view.text or view.desc or view.rid)!r}"
            raise ActionValidationError(
                f"{action.action_type} needs a text field, but element {action.index} is a {what}",
                field="index")
        return view

    def _scroll_target(self, action: Action) -> View | None:
        assert self._emitted is not None and self._composed is not None
        if action.index is not None:
            el, _view = self._element(action.index)
            node: UIElement | None = el
            while node is not None:  # the element itself or its nearest scrollable ancestor
                v = self._emitted.nodes[node.node_id]
                if v.scrollable and v.on_scroll is not None:
                    return v
                node = node.parent
            return None
        # whole screen: the largest scrollable of the top-most interactive window
        for kind, win in reversed(list(zip(self._composed.kinds, self._emitted.root.children))):
            if kind in ("status_bar", "nav_bar", "toast"):
                continue
            best, area = None, -1
            for el in win.iter():
                v = self._emitted.nodes[el.node_id]
                if v.on_scroll is not None and el.bbox_pixels is not None and el.bbox_pixels.area > area:
                    best, area = v, el.bbox_pixels.area
            return best
        return None

    def _execute(self, action: Action) -> None:
        p = self.phone
        t = action.action_type
        if t in ("click", "double_tap"):
            x, y, _, _ = self._point(action)
            self._tap(x, y)
            if t == "double_tap":
                self.observe()  # the second tap lands on whatever the first one revealed
                self._tap(x, y)
        elif t == "long_press":
            x, y, _, _ = self._point(action)
            self._tap(x, y, long=True)
        elif t == "input_text":
            view = self._editable(action)
            if not view.enabled:
                return
            if view.on_click is not None:
                view.on_click()
            if view.on_text is not None:
                view.on_text(action.text or "")
            if action.press_enter and view.on_enter is not None:
                view.on_enter()
        elif t == "clear_text":
            view = self._editable(action)
            if view.enabled and view.on_text is not None:
                view.on_text("")
        elif t == "keyboard_enter":
            assert self._emitted is not None
            for v in self._emitted.nodes:
                if v.editable and v.focused:
                    if v.on_enter is not None:
                        v.on_enter()
                    break
        elif t == "scroll":
            target = self._scroll_target(action)
            if target is not None and target.on_scroll is not None:
                target.on_scroll(action.direction or "down")
        elif t == "swipe":
            if action.index is not None or action.x is not None:
                x, y, _, _ = self._point(action)
            else:
                x, y = SCREEN_W // 2, SCREEN_H // 2
            assert self._emitted is not None
            target = hit_test(self._emitted, x, y, want="scroll")
            if target is None and p.foreground is None:  # the launcher scrolls as a whole
                target = self._emitted.nodes[self._emitted.root.children[0].node_id]
            opposite = {"up": "down", "down": "up", "left": "right", "right": "left"}
            if target is not None and target.on_scroll is not None:
                target.on_scroll(opposite[action.direction or "up"])
        elif t == "navigate_home":
            p.go_home()
        elif t == "navigate_back":
            p.back()
        elif t == "open_app":
            key = p.resolve_app(action.app_name or "")
            if key is None:
                names = ", ".join(sorted(a.name for a in p.apps.values()))
                raise ActionValidationError(f"no app named {action.app_name!r} is installed (apps: {names})",
                                            field="app_name")
            p.open_app(key)
        elif t == "wait":
            p.advance(WAIT_SECONDS)
        elif t == "answer":
            self.last_answer = action.text
        # status / submit end the episode; the screen does not change


class Outcome:
    """The state a CLONE of a phone ends in after an action: its screen (XML) and its app data (the
    database's bytes). Two outcomes are equal iff the screens are equal and the data are (the SQL
    dumps, computed only when the screens already match: comparing dumps is most of the cost, and
    most candidate actions already differ on screen). Not hashable."""

    __slots__ = ("_dump", "db", "xml")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, xml: str, db: bytes) -> None:
        self.xml = xml
        self.db = db
        self._dump: tuple[str, ...] | None = None

    def dump(self) -> tuple[str, ...]:
        """The app data as SQL statements (``Connection.iterdump``)."""
        if self._dump is None:
            import sqlite3

            conn = sqlite3.connect(":memory:")
            try:
                conn.deserialize(self.db)
                self._dump = tuple(conn.iterdump())
            finally:
                conn.close()
        return self._dump

    def same_data(self, other: Outcome) -> bool:
        # equal bytes are equal data; different bytes may still hold the same rows (page layout)
        return self.db == other.db or self.dump() == other.dump()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Outcome):
            return NotImplemented
        return self.xml == other.xml and self.same_data(other)


def outcome(phone: Phone, action: Action | None) -> Outcome:
    """The :class:`Outcome` of ``action`` on a CLONE of ``phone`` (None: the state now); a rejected
    action leaves the state as it was. The phone itself is untouched. Two actions are semantically
    equivalent on a state iff their outcomes are equal (the SEE ground truth and the verifier's
    equivalent training labels both use this)."""
    env = SimEnv.attach(phone.clone())
    try:
        obs = env.observe()
        if action is not None:
            try:
                obs = env.step(action)
            except (ActionValidationError, EnvError):
                obs = env.observe()
        env.phone.conn.commit()
        return Outcome(obs.xml, env.phone.conn.serialize())
    finally:
        env.close()


def action_outcome(phone: Phone, action: Action | None) -> tuple[str, tuple[str, ...]]:
    """:func:`outcome` as (screen XML, app data as an SQL dump), for readers of the change itself."""
    o = outcome(phone, action)
    return o.xml, o.dump()


def probe_scroll(phone: Phone, found: Callable[[Observation], bool], *, max_scrolls: int = 30) -> str | None:
    """The whole-screen scroll direction ("down", then "up") that brings something ``found`` on
    screen, or None. Scrolls a CLONE of ``phone`` until found or the screen stops changing; the
    phone itself is untouched (oracles use this to look ahead)."""
    return probe_scroll_on(phone, lambda _probe, obs: found(obs), max_scrolls=max_scrolls)


def probe_action(phone: Phone, action: Action, check: Callable[[Phone], bool]) -> bool:
    """``check`` on a CLONE of ``phone`` after ``action`` (oracles use this to tell look-alike rows
    apart by what tapping them does); the phone itself is untouched."""
    probe = SimEnv.attach(phone.clone())
    try:
        probe.observe()
        probe.step(action)
        return check(probe.phone)
    finally:
        probe.close()


def probe_scroll_on(phone: Phone, found: Callable[[Phone, Observation], bool], *,
                    max_scrolls: int = 30) -> str | None:
    """:func:`probe_scroll` whose test also gets the scrolled clone (to try a click on it in turn)."""
    for direction in ("down", "up"):
        probe = SimEnv.attach(phone.clone())
        try:
            before = probe.observe().xml
            for _ in range(max_scrolls):
                after = probe.step(Action(action_type="scroll", direction=direction))
                if found(probe.phone, after):
                    return direction
                if after.xml == before:
                    break
                before = after.xml
        finally:
            probe.close()
    return None
