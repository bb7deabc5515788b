"""A real Android device (or emulator) over adb, implementing :class:`droidverify.env.Environment`.

Two layers:

- :class:`AdbShell`, the command boundary: ``shell(cmd)`` / ``exec_out(cmd)``. ``cmd`` is an argv
  list (each element is quoted for the device's POSIX shell with :func:`shlex.join`) or a ready
  command line. :class:`AdbutilsShell` talks to a device through ``adbutils``;
  :class:`RecordingShell` records commands and replays canned output (tests, dry runs).
- :class:`AdbEnv`, which turns actions into ``input``/``am``/``monkey`` commands and observations
  into ``uiautomator dump`` + ``dumpsys window`` (+ optional ``screencap``).

Behaviour worth knowing:

- ``scroll`` direction is where the content goes to reveal: ``down`` shows what lies below, so the
  finger moves UP. ``swipe`` direction is the finger's direction.
- ``input_text`` taps the target, deletes the field's current text (``KEYCODE_MOVE_END`` then
  ``KEYCODE_DEL`` once per character of the element's text as last observed; ``clear_max_chars``
  times when the text is unknown), types, then presses enter if asked. ``clear_text`` does the
  same without typing. Select-all needs ``input keycombination`` (Android 13+), so it is not used.
- ``input text`` can only type ASCII: spaces are sent as ``%s`` and a literal ``%s`` is split over
  two commands; ``\\n``/``\\t`` become ENTER/TAB key events. Other text (non-ASCII, control
  characters) needs the ADBKeyboard IME (https://github.com/senzhk/ADBKeyBoard) installed AND set
  as the current input method; text is then sent base64-encoded with
  ``am broadcast -a ADB_INPUT_B64``. Without it a :class:`DeviceError` explains how to enable it;
  characters are never dropped silently.
- Observations wait for the screen to settle: dumps repeat until two consecutive ones are equal
  (the status-bar clock is ignored), at most ``settle_max_tries`` dumps / ``settle_timeout``
  seconds. An unsettled screen (video, animation) is returned with ``info["settled"] = False``.
- Terminal actions (answer, status, submit) send nothing to the device; ``answer`` sets
  ``last_answer``.
"""

from __future__ import annotations

import base64
import re
import shlex
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from droidverify.actions.model import Action, require_action
from droidverify.actions.validate import validate_action
from droidverify.env.apps import resolve_app
from droidverify.env.records import Observation
from droidverify.errors import DeviceError, DeviceLostError, DeviceTimeoutError, EnvError
from droidverify.ui.element import Bounds, UIElement

Command = Sequence[str] | str

DUMP_PATH = "/sdcard/window_dump.xml"
ADB_KEYBOARD_IME = "com.android.adbkeyboard/.AdbIME"
_LOST_MARKERS = ("not found", "offline", "no devices", "closed", "connection reset", "connection refused",
                 "broken pipe", "device disconnected", "transport")


def to_command_line(cmd: Command) -> str:
    """The line the device shell runs: argv elements quoted for a POSIX shell, strings as given."""
    return cmd if isinstance(cmd, str) else shlex.join([str(c) for c in cmd])


@runtime_checkable
class AdbShell(Protocol):
    """Runs commands on one device. Implementations raise DeviceTimeoutError / DeviceLostError /
    DeviceError (never adb library exceptions)."""

    def shell(self, cmd: Command, timeout: float) -> str: ...

    def exec_out(self, cmd: Command, timeout: float) -> bytes: ...


def map_adb_error(exc: BaseException, cmd: Command) -> DeviceError:
    """Translate an adbutils/socket exception into the matching typed device error."""
    line = to_command_line(cmd)[:200]
    import adbutils
    from adbutils.errors import AdbConnectionError

    if isinstance(exc, DeviceError):
        return exc
    if isinstance(exc, (adbutils.AdbTimeout, socket.timeout, TimeoutError)):
        return DeviceTimeoutError(f"adb command timed out: {line}")
    msg = str(exc) or type(exc).__name__
    if isinstance(exc, (AdbConnectionError, ConnectionError, OSError, EOFError)) or any(m in msg.lower() for m in _LOST_MARKERS):
        return DeviceLostError(f"device lost while running {line!r}: {msg}")
    return DeviceError(f"adb failed running {line!r}: {msg}")


class AdbutilsShell:
    """:class:`AdbShell` over ``adbutils``: the device with ``serial``, else the first one attached.

    ``device`` may be given directly (any object with adbutils' ``shell(cmd, timeout=, encoding=)``).
    """

    def __init__(self, serial: str | None = None, *, host: str | None = None, port: int | None = None,
                 device: Any = None) -> None:
        if device is None:
            import adbutils

            try:
                client = adbutils.AdbClient(host=host, port=port)
                if serial is None:
                    devices = client.device_list()
                    if not devices:
                        raise DeviceError("no Android device attached (`adb devices` lists none)")
                    device = devices[0]
                else:
                    device = client.device(serial)
                    device.get_state()  # fails now, not at the first action, if the serial is wrong
            except DeviceError:
                raise
            except Exception as exc:  # adbutils raises its own and socket errors
                raise map_adb_error(exc, "get-state") from exc
        self.device = device
        self.serial = getattr(device, "serial", serial)

    def _run(self, cmd: Command, timeout: float, encoding: str | None) -> Any:
        try:
            return self.device.shell(to_command_line(cmd), timeout=timeout, encoding=encoding)
        except Exception as exc:  # mapped to typed errors; nothing is swallowed
            raise map_adb_error(exc, cmd) from exc

    def shell(self, cmd: Command, timeout: float) -> str:
        return self._run(cmd, timeout, "utf-8")

    def exec_out(self, cmd: Command, timeout: float) -> bytes:
        return self._run(cmd, timeout, None)


@dataclass
class ShellCall:
    kind: Literal["shell", "exec_out"]
    cmd: list[str] | str
    timeout: float

    @property
    def line(self) -> str:
        return to_command_line(self.cmd)


@dataclass
class RecordingShell:
    """Records every command; ``responder(call) -> str | bytes`` supplies output (default "").

    A responder may raise typed device errors to simulate failures. Useful for tests and for dry
    runs that print what an agent would do (``[c.line for c in shell.calls]``).
    """

    responder: Callable[[ShellCall], str | bytes] | None = None
    calls: list[ShellCall] = field(default_factory=list)

    def _call(self, kind: Literal["shell", "exec_out"], cmd: Command, timeout: float) -> str | bytes:
        call = ShellCall(kind, cmd if isinstance(cmd, str) else [str(c) for c in cmd], timeout)
        self.calls.append(call)
        return self.responder(call) if self.responder else ""

    def shell(self, cmd: Command, timeout: float) -> str:
        out = self._call("shell", cmd, timeout)
        return out.decode("utf-8", "replace") if isinstance(out, bytes) else out

    def exec_out(self, cmd: Command, timeout: float) -> bytes:
        out = self._call("exec_out", cmd, timeout)
        return out.encode() if isinstance(out, str) else out


# ---------------------------------------------------------------------------------------------
# Pure helpers (tested on recorded outputs)
# ---------------------------------------------------------------------------------------------
_FOCUS_RE = re.compile(r"mCurrentFocus=Window\{[^}\s]*\s+(?:u\d+\s+)?([\w.]+)/([\w.$]+)")
_FOCUSED_APP_RE = re.compile(r"mFocusedApp=.*?ActivityRecord\{[^}\s]*\s+(?:u\d+\s+)?([\w.]+)/([\w.$]+)")


def parse_focus(dumpsys_window: str) -> tuple[str | None, str | None]:
    """(package, activity) of the focused window from ``dumpsys window`` output.

    Uses ``mCurrentFocus`` when it names an app window, else ``mFocusedApp`` (the focus may be a
    popup, the notification shade or null). Relative activities (``.Main``) are expanded.
    """
    for regex in (_FOCUS_RE, _FOCUSED_APP_RE):
        m = regex.search(dumpsys_window)
        if m:
            pkg, act = m.group(1), m.group(2)
            return pkg, pkg + act if act.startswith(".") else act
    return None, None


_SIZE_RE = re.compile(r"(Physical|Override) size:\s*(\d+)x(\d+)")


def parse_wm_size(output: str) -> tuple[int, int]:
    """(width, height) from ``wm size`` (the override size wins over the physical size)."""
    sizes = {m.group(1): (int(m.group(2)), int(m.group(3))) for m in _SIZE_RE.finditer(output)}
    if not sizes:
        raise DeviceError(f"cannot read the screen size from `wm size` output: {output[:200]!r}")
    return sizes.get("Override") or sizes["Physical"]


_DUMPED_RE = re.compile(r"UI hie?rar?chy dumped to:?[^\n]*", re.IGNORECASE)


def extract_dump_xml(raw: str) -> str:
    """The XML of a ``uiautomator dump`` output, without the trailing 'UI hierchary dumped to' line."""
    text = _DUMPED_RE.sub("", raw)
    start = text.find("<?xml")
    if start < 0:
        start = text.find("<hierarchy")
    end = text.rfind("</hierarchy>")
    if start < 0 or end < 0:
        raise DeviceError(f"uiautomator dump returned no hierarchy: {raw.strip()[:200]!r}")
    return text[start:end + len("</hierarchy>")]


_NODE_RE = re.compile(r"<node\b[^>]*>")
_VOLATILE_IDS = ('resource-id="com.android.systemui:id/clock"',)


def settle_key(xml: str) -> str:
    """The dump with volatile parts (the status-bar clock text) blanked, for settle comparison."""
    def blank(m: re.Match[str]) -> str:
        tag = m.group(0)
        if any(v in tag for v in _VOLATILE_IDS):
            tag = re.sub(r'\b(text|content-desc)="[^"]*"', r'\1=""', tag)
        return tag

    return _NODE_RE.sub(blank, xml)


def input_text_commands(text: str) -> list[list[str]]:
    """``input text`` argv lists typing printable-ASCII ``text`` exactly.

    ``input`` turns ``%s`` into a space, so spaces are sent as ``%s`` and a literal ``%s`` in the
    text is split across two commands (``...%`` then ``s...``). Shell quoting happens later in
    :func:`to_command_line`.
    """
    if any(not (" " <= c <= "~") for c in text):
        raise ValueError("input text only types printable ASCII")
    chunks: list[str] = []
    rest = text
    while (i := rest.find("%s")) >= 0:
        chunks.append(rest[:i + 1])
        rest = rest[i + 1:]
    chunks.append(rest)
    return [["input", "text", c.replace(" ", "%s")] for c in chunks if c]


# ---------------------------------------------------------------------------------------------
# The environment
# ---------------------------------------------------------------------------------------------
class AdbEnv:
    """:class:`~droidverify.env.Environment` for a real device (see the module docstring).

    ``shell`` defaults to :class:`AdbutilsShell` on ``serial`` (or the first attached device).
    ``sleep``/``clock`` are injectable so settle logic can be tested without waiting.
    """

    def __init__(
        self,
        shell: AdbShell | None = None,
        *,
        serial: str | None = None,
        screenshot: bool = False,
        dump_mode: Literal["file", "tty"] = "file",
        settle_max_tries: int = 5,
        settle_interval: float = 0.3,
        settle_timeout: float = 15.0,
        command_timeout: float = 20.0,
        wait_seconds: float = 1.0,
        clear_max_chars: int = 100,
        long_press_ms: int = 1000,
        scroll_ms: int = 500,
        swipe_ms: int = 300,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if dump_mode not in ("file", "tty"):
            raise EnvError(f"dump_mode must be 'file' or 'tty', got {dump_mode!r}")
        if settle_max_tries < 1:
            raise EnvError(f"settle_max_tries must be >= 1, got {settle_max_tries}")
        self.shell: AdbShell = shell if shell is not None else AdbutilsShell(serial)
        self.screenshot = screenshot
        self.dump_mode = dump_mode
        self.settle_max_tries = settle_max_tries
        self.settle_interval = settle_interval
        self.settle_timeout = settle_timeout
        self.command_timeout = command_timeout
        self.wait_seconds = wait_seconds
        self.clear_max_chars = clear_max_chars
        self.long_press_ms = long_press_ms
        self.scroll_ms = scroll_ms
        self.swipe_ms = swipe_ms
        self._sleep = sleep
        self._clock = clock
        self.last_answer: str | None = None
        self.last_observation: Observation | None = None
        self._screen_size: tuple[int, int] | None = None
        self._adb_keyboard: bool | None = None

    # ---- Environment -----------------------------------------------------------------------------
    def reset(self, *, go_home: bool = True) -> Observation:
        self.last_answer = None
        if go_home:
            self._sh(["input", "keyevent", "KEYCODE_HOME"])
        return self.observe()

    def observe(self) -> Observation:
        xml, info = self._settled_dump()
        package, activity = parse_focus(self._sh(["dumpsys", "window"]))
        png = None
        if self.screenshot:
            png = self.shell.exec_out(["screencap", "-p"], self.command_timeout)
            if not png.startswith(b"\x89PNG"):
                raise DeviceError(f"screencap returned no PNG: {png[:80]!r}")
        size = self.screen_size
        if re.search(r'<hierarchy[^>]*rotation="[13]"', xml[:300]):
            size = (size[1], size[0])
        obs = Observation(xml=xml, package=package, activity=activity, screen_size=size,
                          screenshot_png=png, info=info)
        self.last_observation = obs
        return obs

    def step(self, action: Action) -> Observation:
        t = require_action(action).action_type
        if t in ("answer", "status", "submit"):
            if t == "answer":
                self.last_answer = action.text
            return self.last_observation or self.observe()
        elements = None
        if action.index is not None:
            if self.last_observation is None:
                raise EnvError(f"{t} uses index {action.index} but nothing was observed yet; "
                               "call reset() or observe() first")
            elements = self.last_observation.elements
        validate_action(action, elements, screen_size=self._size() if action.x is not None else None)
        if t == "open_app":
            self._open_app(action.app_name or "")
        for cmd in self.commands_for(action):
            self._sh(cmd)
        if t == "wait":
            self._sleep(self.wait_seconds)
        return self.observe()

    def close(self) -> None:
        self.last_observation = None

    # ---- action -> commands -----------------------------------------------------------------------
    def commands_for(self, action: Action) -> list[list[str] | str]:
        """The adb shell commands that carry out ``action`` (terminal actions: none).

        Index targets resolve against ``last_observation.elements``; the caller validates first.
        """
        t = action.action_type
        if t in ("answer", "status", "submit", "wait", "open_app"):
            return []  # open_app is run by step() (am start, falling back to monkey)
        if t == "keyboard_enter":
            return [["input", "keyevent", "KEYCODE_ENTER"]]
        if t == "navigate_home":
            return [["input", "keyevent", "KEYCODE_HOME"]]
        if t == "navigate_back":
            return [["input", "keyevent", "KEYCODE_BACK"]]
        if t == "scroll":
            return [self._scroll(action)]
        if t == "swipe":
            return [self._swipe(action)]
        x, y = self._point(action)
        tap = ["input", "tap", str(x), str(y)]
        if t == "click":
            return [tap]
        if t == "long_press":
            return [["input", "swipe", str(x), str(y), str(x), str(y), str(self.long_press_ms)]]
        if t == "double_tap":
            # One shell invocation, so the two taps are as close together as adb allows.
            return [f"{to_command_line(tap)} && {to_command_line(tap)}"]
        if t in ("input_text", "clear_text"):
            cmds: list[list[str] | str] = [tap, *self._clear_commands(self._existing_text_len(action))]
            if t == "input_text":
                cmds += self._type_commands(action.text or "")
                if action.press_enter:
                    cmds.append(["input", "keyevent", "KEYCODE_ENTER"])
            return cmds
        raise EnvError(f"AdbEnv cannot execute action type {t!r}")  # pragma: no cover - exhaustive

    def _element(self, index: int) -> UIElement:
        assert self.last_observation is not None
        return self.last_observation.elements[index]

    def _point(self, action: Action) -> tuple[int, int]:
        if action.index is not None:
            bounds = self._element(action.index).bbox_pixels
            assert bounds is not None  # validate_action rejects elements without bounds
            return bounds.center
        if action.x is not None and action.y is not None:
            return action.x, action.y
        w, h = self._size()
        return w // 2, h // 2

    def _region(self, action: Action) -> Bounds:
        if action.index is not None:
            b = self._element(action.index).bbox_pixels
            assert b is not None
            return b
        w, h = self._size()
        return Bounds(0, 0, w, h)

    def _scroll(self, action: Action) -> list[str]:
        # Finger travels 60% of the region through its centre, opposite to the reveal direction.
        r = self._region(action)
        cx, cy = r.center
        dx, dy = int(r.width * 0.3), int(r.height * 0.3)
        start, end = {
            "down": ((cx, cy + dy), (cx, cy - dy)), "up": ((cx, cy - dy), (cx, cy + dy)),
            "right": ((cx + dx, cy), (cx - dx, cy)), "left": ((cx - dx, cy), (cx + dx, cy)),
        }[action.direction or "down"]
        return ["input", "swipe", *map(str, (*start, *end)), str(self.scroll_ms)]

    def _swipe(self, action: Action) -> list[str]:
        # Finger moves in ``direction`` by 40% of the screen, from the target (or screen centre).
        w, h = self._size()
        x, y = self._point(action)
        ex, ey = {"up": (x, y - int(h * 0.4)), "down": (x, y + int(h * 0.4)),
                  "left": (x - int(w * 0.4), y), "right": (x + int(w * 0.4), y)}[action.direction or "up"]
        ex, ey = min(max(ex, 0), w - 1), min(max(ey, 0), h - 1)
        return ["input", "swipe", str(x), str(y), str(ex), str(ey), str(self.swipe_ms)]

    def _existing_text_len(self, action: Action) -> int:
        el: UIElement | None = None
        if action.index is not None:
            el = self._element(action.index)
        elif self.last_observation is not None and action.x is not None and action.y is not None:
            hits = [e for e in self.last_observation.elements
                    if e.is_editable and e.bbox_pixels and e.bbox_pixels.contains(action.x, action.y)]
            el = min(hits, key=lambda e: e.bbox_pixels.area) if hits else None  # type: ignore[union-attr]
        if el is None:
            return self.clear_max_chars
        text = el.text or ""
        if el.hint_text and text == el.hint_text:
            return 0  # an empty field showing its hint
        return len(text)

    @staticmethod
    def _clear_commands(n: int) -> list[list[str]]:
        if n <= 0:
            return []
        return [["input", "keyevent", "KEYCODE_MOVE_END"], ["input", "keyevent", *["KEYCODE_DEL"] * n]]

    def _type_commands(self, text: str) -> list[list[str]]:
        if all(" " <= c <= "~" or c in "\n\t" for c in text):
            cmds: list[list[str]] = []
            for part in re.split(r"([\n\t])", text):
                if part == "\n":
                    cmds.append(["input", "keyevent", "KEYCODE_ENTER"])
                elif part == "\t":
                    cmds.append(["input", "keyevent", "KEYCODE_TAB"])
                else:
                    cmds += input_text_commands(part)
            return cmds
        if not self._has_adb_keyboard():
            bad = next(c for c in text if not (" " <= c <= "~" or c in "\n\t"))
            raise DeviceError(
                f"cannot type {bad!r} (U+{ord(bad):04X}): `input text` only types ASCII. Install "
                "ADBKeyboard (https://github.com/senzhk/ADBKeyBoard) and make it the input method: "
                f"`adb shell ime enable {ADB_KEYBOARD_IME} && adb shell ime set {ADB_KEYBOARD_IME}`")
        b64 = base64.b64encode(text.encode("utf-8")).decode("ascii")
        return [["am", "broadcast", "-a", "ADB_INPUT_B64", "--es", "msg", b64]]

    def _has_adb_keyboard(self) -> bool:
        if self._adb_keyboard is None:
            current = self._sh(["settings", "get", "secure", "default_input_method"]).strip()
            self._adb_keyboard = current == ADB_KEYBOARD_IME
        return self._adb_keyboard

    def _open_app(self, name: str) -> None:
        """``am start -n`` the known activity; if that fails (other device/app version) or none is
        known, launch the package's LAUNCHER intent with ``monkey``."""
        app = resolve_app(name)
        if app.component:
            out = self._sh(["am", "start", "-n", app.component])
            if "Error" not in out and "does not exist" not in out:
                return
        out = self._sh(["monkey", "-p", app.package, "-c", "android.intent.category.LAUNCHER", "1"])
        if "No activities found" in out or "monkey aborted" in out.lower():
            raise DeviceError(f"cannot open {name!r}: package {app.package} is not installed or has "
                              f"no launcher activity ({out.strip()[:200]})")

    # ---- observation ---------------------------------------------------------------------------------
    @property
    def screen_size(self) -> tuple[int, int]:
        if self._screen_size is None:
            self._screen_size = parse_wm_size(self._sh(["wm", "size"]))
        return self._screen_size

    def _dump(self) -> str:
        if self.dump_mode == "tty":
            raw = self.shell.exec_out(["uiautomator", "dump", "/dev/tty"], self.command_timeout)
            return extract_dump_xml(raw.decode("utf-8", "replace"))
        out = self._sh(["uiautomator", "dump", DUMP_PATH])
        if "dumped to" not in out.lower():
            raise DeviceError(f"uiautomator dump failed: {out.strip()[:200]!r}")
        return extract_dump_xml(self._sh(["cat", DUMP_PATH]))

    def _settled_dump(self) -> tuple[str, dict[str, Any]]:
        deadline = self._clock() + self.settle_timeout
        prev_key: str | None = None
        xml: str | None = None
        failure: DeviceError | None = None
        attempts = 0
        while attempts < self.settle_max_tries:
            if attempts and self._clock() >= deadline:
                break
            if attempts:
                self._sleep(self.settle_interval)
            attempts += 1
            try:
                current = self._dump()
            except (DeviceTimeoutError, DeviceLostError):
                raise
            except DeviceError as exc:  # e.g. "could not get idle state" while animating
                failure = exc
                continue
            key = settle_key(current)
            xml = current
            if key == prev_key:
                return xml, {"settled": True, "dump_attempts": attempts}
            prev_key = key
        if xml is None:
            assert failure is not None
            raise failure
        stable = self.settle_max_tries == 1
        return xml, {"settled": stable, "dump_attempts": attempts}

    def _size(self) -> tuple[int, int]:
        """Screen size as the last observation saw it (rotation applied), else from ``wm size``."""
        return self.last_observation.screen_size if self.last_observation else self.screen_size

    def _sh(self, cmd: Command) -> str:
        return self.shell.shell(cmd, self.command_timeout)
