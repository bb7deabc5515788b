"""AdbEnv at the command boundary: exact adb commands per action, settling, errors, escaping.

A recording shell replays real uiautomator dumps from ../shared/data/uiautomator; no device needed.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import adbutils
import adbutils.errors
import pytest

from droidverify.actions import Action
from droidverify.env import Environment
from droidverify.env.adb import (
    ADB_KEYBOARD_IME,
    AdbEnv,
    AdbutilsShell,
    RecordingShell,
    ShellCall,
    extract_dump_xml,
    input_text_commands,
    parse_focus,
    parse_wm_size,
    settle_key,
    to_command_line,
)
from droidverify.env.apps import UnknownAppError
from droidverify.errors import (
    ActionValidationError,
    DeviceError,
    DeviceLostError,
    DeviceTimeoutError,
    EnvError,
)


def _shared() -> Path:
    env = os.environ.get("DROIDVERIFY_SHARED")
    path = Path(env) if env else Path(__file__).resolve().parents[2] / ".." / "shared"
    data = path / "data" / "uiautomator"
    assert data.is_dir(), f"test data missing: {data} (set DROIDVERIFY_SHARED)"
    return data


LAUNCHER = (_shared() / "xiaocong_uiautomator__launcher_deskclock_widget.xml").read_text()
GMAIL = (_shared() / "mobile-env__gmail_welcome.xml").read_text()
# The launcher dump with its search box turned into a text field holding "hello world".
EDIT = LAUNCHER.replace(
    'text="" resource-id="com.android.launcher:id/search_button_container" '
    'class="android.widget.LinearLayout"',
    'text="hello world" resource-id="com.android.launcher:id/search_button_container" '
    'class="android.widget.EditText"')
assert EDIT != LAUNCHER

DUMPSYS_Q = """WINDOW MANAGER WINDOWS (dumpsys window windows)
  Window #5 Window{8a1c2d3 u0 com.android.launcher/com.android.launcher2.Launcher}:
    mDisplayId=0 rootTaskId=1 mSession=Session{5f2 1234:u0a10088} mClient=android.os.BinderProxy@1
  mGlobalConfiguration={1.0 ?mcc?mnc [en_US] ldltr sw411dp w411dp h842dp 420dpi nrml long port}
  mHasPermanentDpad=false
  mTopFocusedDisplayId=0
  mCurrentFocus=Window{8a1c2d3 u0 com.android.launcher/com.android.launcher2.Launcher}
  mFocusedApp=ActivityRecord{4b3e1f0 u0 com.android.launcher/com.android.launcher2.Launcher t1}
"""


class Device:
    """A scripted device: dumps come from ``dumps`` (the last one repeats), other output from
    ``replies`` (prefix of the command line -> output or exception)."""

    def __init__(self, dumps: list[str], replies: dict[str, object] | None = None, tty: bool = False):
        self.dumps = list(dumps)
        self.tty = tty
        # Caller replies are matched before the defaults.
        defaults = {"dumpsys window": DUMPSYS_Q, "wm size": "Physical size: 480x800",
                        "uiautomator dump /sdcard": "UI hierchary dumped to: /sdcard/window_dump.xml",
                        "settings get secure default_input_method":
                            "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME"}
        replies = replies or {}
        self.replies = {**replies, **{k: v for k, v in defaults.items() if k not in replies}}

    def _next_dump(self) -> str:
        return self.dumps.pop(0) if len(self.dumps) > 1 else self.dumps[0]

    def __call__(self, call: ShellCall) -> str | bytes:
        line = call.line
        if line == "cat /sdcard/window_dump.xml":
            return self._next_dump()
        if line == "uiautomator dump /dev/tty":
            return (self._next_dump() + "UI hierchary dumped to: /dev/tty\n").encode()
        for prefix, out in self.replies.items():
            if line.startswith(prefix):
                if isinstance(out, BaseException):
                    raise out
                return out  # type: ignore[return-value]
        return ""


OBSERVE = [["uiautomator", "dump", "/sdcard/window_dump.xml"], ["cat", "/sdcard/window_dump.xml"]]


def make_env(dumps: list[str] | None = None, **kw) -> tuple[AdbEnv, RecordingShell, Device]:
    device = Device(dumps or [LAUNCHER], kw.pop("replies", None))
    shell = RecordingShell(device)
    sleeps: list[float] = []
    env = AdbEnv(shell, sleep=sleeps.append, **kw)
    env.sleeps = sleeps  # type: ignore[attr-defined]
    return env, shell, device


def action_cmds(env: AdbEnv, shell: RecordingShell, action: Action) -> list[list[str] | str]:
    """Commands ``step(action)`` sends before observing again."""
    env.observe()
    shell.calls.clear()
    env.step(action)
    cmds = [c.cmd for c in shell.calls]
    first_dump = cmds.index(OBSERVE[0])
    assert cmds[first_dump:] == [*OBSERVE, *OBSERVE, ["dumpsys", "window"]]  # settled on 2 dumps
    return cmds[:first_dump]


def A(t: str, **kw) -> Action:
    return Action.make(t, **kw)


# Launcher elements (see the dump): 0 workspace [0,38][480,800] scrollable, 5 Phone [0,706][96,800]
@pytest.mark.parametrize("action, expected", [
    (A("click", index=5), [["input", "tap", "48", "753"]]),
    (A("click", x=10, y=20), [["input", "tap", "10", "20"]]),
    (A("long_press", index=5), [["input", "swipe", "48", "753", "48", "753", "1000"]]),
    (A("long_press", x=3, y=4), [["input", "swipe", "3", "4", "3", "4", "1000"]]),
    (A("double_tap", index=5), ["input tap 48 753 && input tap 48 753"]),
    (A("scroll", direction="down"), [["input", "swipe", "240", "640", "240", "160", "500"]]),
    (A("scroll", direction="up"), [["input", "swipe", "240", "160", "240", "640", "500"]]),
    (A("scroll", direction="right"), [["input", "swipe", "384", "400", "96", "400", "500"]]),
    (A("scroll", direction="left"), [["input", "swipe", "96", "400", "384", "400", "500"]]),
    (A("scroll", index=0, direction="down"), [["input", "swipe", "240", "647", "240", "191", "500"]]),
    (A("swipe", direction="up"), [["input", "swipe", "240", "400", "240", "80", "300"]]),
    (A("swipe", index=5, direction="right"), [["input", "swipe", "48", "753", "240", "753", "300"]]),
    (A("swipe", x=470, y=10, direction="right"), [["input", "swipe", "470", "10", "479", "10", "300"]]),
    (A("swipe", x=10, y=10, direction="up"), [["input", "swipe", "10", "10", "10", "0", "300"]]),
    (A("keyboard_enter"), [["input", "keyevent", "KEYCODE_ENTER"]]),
    (A("navigate_home"), [["input", "keyevent", "KEYCODE_HOME"]]),
    (A("navigate_back"), [["input", "keyevent", "KEYCODE_BACK"]]),
    (A("wait"), []),
    (A("open_app", app_name="settings"), [["am", "start", "-n", "com.android.settings/com.android.settings.Settings"]]),
    (A("open_app", app_name="org.example.thing"),
     [["monkey", "-p", "org.example.thing", "-c", "android.intent.category.LAUNCHER", "1"]]),
])
def test_each_action_issues_exact_commands(action: Action, expected) -> None:
    env, shell, _ = make_env()
    assert action_cmds(env, shell, action) == expected


def test_wait_sleeps() -> None:
    env, shell, _ = make_env(wait_seconds=2.5)
    action_cmds(env, shell, A("wait"))
    assert 2.5 in env.sleeps  # type: ignore[attr-defined]


def test_input_text_taps_clears_exact_length_types_and_enters() -> None:
    env, shell, _ = make_env([EDIT])
    idx = next(i for i, e in enumerate(env.observe().elements) if e.is_editable)
    cmds = action_cmds(env, shell, A("input_text", index=idx, text="Hi you", press_enter=True))
    assert cmds == [
        ["input", "tap", "240", "73"],
        ["input", "keyevent", "KEYCODE_MOVE_END"], ["input", "keyevent", *["KEYCODE_DEL"] * 11],
        ["input", "text", "Hi%syou"],
        ["input", "keyevent", "KEYCODE_ENTER"],
    ]


def test_clear_text_by_coordinates_uses_the_field_under_the_point() -> None:
    env, shell, _ = make_env([EDIT])
    assert action_cmds(env, shell, A("clear_text", x=100, y=60)) == [
        ["input", "tap", "100", "60"],
        ["input", "keyevent", "KEYCODE_MOVE_END"], ["input", "keyevent", *["KEYCODE_DEL"] * 11]]


def test_clear_text_on_unknown_field_deletes_clear_max_chars() -> None:
    env, shell, _ = make_env(clear_max_chars=7)
    assert action_cmds(env, shell, A("clear_text", x=5, y=5)) == [
        ["input", "tap", "5", "5"],
        ["input", "keyevent", "KEYCODE_MOVE_END"], ["input", "keyevent", *["KEYCODE_DEL"] * 7]]


def test_input_text_newlines_and_tabs_become_key_events() -> None:
    env, shell, _ = make_env()
    cmds = action_cmds(env, shell, A("input_text", index=5, text="a\nb\tc"))
    # "Phone" label is the element's text, so it is deleted first (5 chars).
    assert cmds[0] == ["input", "tap", "48", "753"]
    assert cmds[1:3] == [["input", "keyevent", "KEYCODE_MOVE_END"], ["input", "keyevent", *["KEYCODE_DEL"] * 5]]
    assert cmds[3:] == [["input", "text", "a"], ["input", "keyevent", "KEYCODE_ENTER"], ["input", "text", "b"],
                        ["input", "keyevent", "KEYCODE_TAB"], ["input", "text", "c"]]


def test_non_ascii_without_adbkeyboard_is_a_typed_error_and_types_nothing() -> None:
    env, shell, _ = make_env()
    env.observe()
    shell.calls.clear()
    with pytest.raises(DeviceError, match="ADBKeyboard"):
        env.step(A("input_text", x=1, y=1, text="café"))
    assert [c.cmd for c in shell.calls] == [["settings", "get", "secure", "default_input_method"]]


def test_non_ascii_with_adbkeyboard_uses_base64_broadcast() -> None:
    env, shell, _ = make_env(replies={"settings get secure default_input_method": ADB_KEYBOARD_IME + "\n"})
    text = "naïve 日本 'q' $(rm -rf /)"
    cmds = action_cmds(env, shell, A("input_text", x=1, y=1, text=text))
    b64 = base64.b64encode(text.encode()).decode()
    assert cmds[-1] == ["am", "broadcast", "-a", "ADB_INPUT_B64", "--es", "msg", b64]
    assert base64.b64decode(cmds[-1][-1]).decode() == text


def test_open_app_falls_back_to_monkey_when_activity_fails() -> None:
    replies = {"am start": "Starting: Intent { cmp=com.android.settings/.Settings }\n"
                           "Error type 3\nError: Activity class {com.android.settings/...} does not exist."}
    env, shell, _ = make_env(replies=replies)
    assert action_cmds(env, shell, A("open_app", app_name="Settings")) == [
        ["am", "start", "-n", "com.android.settings/com.android.settings.Settings"],
        ["monkey", "-p", "com.android.settings", "-c", "android.intent.category.LAUNCHER", "1"]]


def test_open_app_not_installed() -> None:
    env, _, _ = make_env(replies={"monkey": "** No activities found to run, monkey aborted."})
    with pytest.raises(DeviceError, match="not installed"):
        env.step(A("open_app", app_name="com.nope.app"))


def test_open_app_unknown_name_suggests() -> None:
    env, shell, _ = make_env()
    with pytest.raises(UnknownAppError, match="Settings") as info:
        env.step(A("open_app", app_name="Setings"))
    assert isinstance(info.value, EnvError) and shell.calls == []


def test_terminal_actions_send_nothing() -> None:
    env, shell, _ = make_env()
    obs = env.observe()
    shell.calls.clear()
    assert env.step(A("answer", text="42")) is obs and env.last_answer == "42"
    env.step(A("status", goal_status="complete"))
    env.step(A("submit", text="done", evidences=[0]))
    assert shell.calls == []


def test_index_out_of_range_is_rejected_before_any_command() -> None:
    env, shell, _ = make_env()
    env.observe()
    shell.calls.clear()
    with pytest.raises(ActionValidationError, match="valid indices are 0-9"):
        env.step(A("click", index=10))
    with pytest.raises(ActionValidationError, match="outside the screen"):
        env.step(A("click", x=480, y=5))
    with pytest.raises(ActionValidationError, match="not scrollable"):
        env.step(A("scroll", index=5, direction="down"))
    assert shell.calls == []


def test_index_before_observing_is_an_env_error() -> None:
    env, _, _ = make_env()
    with pytest.raises(EnvError, match="observe"):
        env.step(A("click", index=0))


def test_reset_goes_home_and_observes() -> None:
    env, shell, _ = make_env([GMAIL], replies={"wm size": "Physical size: 1080x1920\nOverride size: 1080x1794"})
    env.last_answer = "old"
    obs = env.reset()
    assert shell.calls[0].cmd == ["input", "keyevent", "KEYCODE_HOME"] and env.last_answer is None
    assert obs.screen_size == (1080, 1794) and obs.package == "com.android.launcher"
    assert obs.activity == "com.android.launcher2.Launcher"
    assert [e.label for e in obs.elements][-1] == "GOT IT"
    assert obs.info == {"settled": True, "dump_attempts": 2}
    assert all(c.timeout == env.command_timeout for c in shell.calls)


# ---- settling --------------------------------------------------------------------------------------
def test_settles_after_screen_stops_changing() -> None:
    env, shell, _ = make_env([LAUNCHER, GMAIL, EDIT, EDIT])
    obs = env.observe()
    assert obs.xml == EDIT and obs.info == {"settled": True, "dump_attempts": 4}
    assert [c.cmd for c in shell.calls].count(["cat", "/sdcard/window_dump.xml"]) == 4
    assert env.sleeps == [env.settle_interval] * 3  # type: ignore[attr-defined]


def test_never_settling_screen_is_returned_after_max_tries() -> None:
    env, _, _ = make_env([LAUNCHER, GMAIL, EDIT, LAUNCHER, GMAIL, EDIT], settle_max_tries=4)
    obs = env.observe()
    assert obs.xml == LAUNCHER and obs.info == {"settled": False, "dump_attempts": 4}


def test_settle_timeout_bounds_the_loop() -> None:
    t = [0.0]

    def clock() -> float:
        t[0] += 4.0
        return t[0]

    device = Device([LAUNCHER, GMAIL, EDIT, LAUNCHER, GMAIL])
    env = AdbEnv(RecordingShell(device), sleep=lambda s: None, clock=clock, settle_timeout=10.0,
                 settle_max_tries=50)
    assert env.observe().info == {"settled": False, "dump_attempts": 3}


def test_clock_text_does_not_prevent_settling() -> None:
    bar = ('<node index="0" text="{t}" resource-id="com.android.systemui:id/clock" '
           'class="android.widget.TextView" package="com.android.systemui" bounds="[0,0][50,20]" />')
    a = LAUNCHER.replace("</hierarchy>", bar.format(t="11:33") + "</hierarchy>")
    b = LAUNCHER.replace("</hierarchy>", bar.format(t="11:34") + "</hierarchy>")
    assert settle_key(a) == settle_key(b) and a != b
    env, _, _ = make_env([a, b])
    assert env.observe().info["settled"] is True
    assert settle_key(LAUNCHER) != settle_key(GMAIL)


def test_dump_failure_is_retried_then_raised() -> None:
    env, _, _ = make_env([LAUNCHER], replies={"uiautomator dump": "ERROR: could not get idle state."})
    with pytest.raises(DeviceError, match="idle state"):
        env.observe()


def test_tty_dump_mode_strips_trailing_line() -> None:
    device = Device([GMAIL])
    shell = RecordingShell(device)
    env = AdbEnv(shell, dump_mode="tty", sleep=lambda s: None)
    obs = env.observe()
    assert obs.xml == GMAIL
    assert shell.calls[0].kind == "exec_out" and shell.calls[0].cmd == ["uiautomator", "dump", "/dev/tty"]


def test_screenshot() -> None:
    png = b"\x89PNG\r\n\x1a\nrest"
    device = Device([LAUNCHER])
    shell = RecordingShell(lambda c: png if c.cmd == ["screencap", "-p"] else device(c))
    assert AdbEnv(shell, screenshot=True, sleep=lambda s: None).observe().screenshot_png == png
    bad = RecordingShell(lambda c: b"error: closed" if c.cmd == ["screencap", "-p"] else device(c))
    with pytest.raises(DeviceError, match="no PNG"):
        AdbEnv(bad, screenshot=True, sleep=lambda s: None).observe()


def test_rotation_swaps_screen_size() -> None:
    env, _, _ = make_env([LAUNCHER.replace('rotation="0"', 'rotation="1"')])
    assert env.observe().screen_size == (800, 480)


def test_is_an_environment() -> None:
    env, _, _ = make_env()
    assert isinstance(env, Environment)


# ---- errors at the command boundary -----------------------------------------------------------------
@pytest.mark.parametrize("exc, expected", [
    (DeviceTimeoutError("adb command timed out"), DeviceTimeoutError),
    (DeviceLostError("device offline"), DeviceLostError),
])
def test_shell_errors_propagate_from_step(exc: Exception, expected: type) -> None:
    env, _, _ = make_env(replies={"input": exc})
    env.observe()
    with pytest.raises(expected):
        env.step(A("navigate_back"))


def test_timeout_during_observe_is_not_retried() -> None:
    env, shell, _ = make_env(replies={"uiautomator dump": DeviceTimeoutError("slow")})
    with pytest.raises(DeviceTimeoutError):
        env.observe()
    assert len(shell.calls) == 1


class FakeAdbDevice:
    serial = "emulator-5554"

    def __init__(self, behaviour: Callable[[str], object]):
        self.behaviour = behaviour
        self.lines: list[tuple[str, float, str | None]] = []

    def shell(self, line: str, timeout: float, encoding: str | None):
        self.lines.append((line, timeout, encoding))
        out = self.behaviour(line)
        if isinstance(out, BaseException):
            raise out
        return out


@pytest.mark.parametrize("raised, expected", [
    (adbutils.AdbTimeout("read timeout"), DeviceTimeoutError),
    (TimeoutError("timed out"), DeviceTimeoutError),
    (adbutils.AdbError("device 'emulator-5554' not found"), DeviceLostError),
    (adbutils.AdbError("device offline"), DeviceLostError),
    (ConnectionResetError(104, "Connection reset by peer"), DeviceLostError),
    (adbutils.errors.AdbConnectionError("[Errno 111] Connection refused"), DeviceLostError),
    (adbutils.AdbError("permission denied"), DeviceError),
])
def test_adbutils_errors_are_mapped(raised: Exception, expected: type) -> None:
    shell = AdbutilsShell(device=FakeAdbDevice(lambda line: raised))
    with pytest.raises(expected) as info:
        shell.shell(["input", "tap", "1", "2"], timeout=3.0)
    assert type(info.value) is expected and "input tap 1 2" in str(info.value)


def test_adbutils_shell_sends_quoted_lines() -> None:
    dev = FakeAdbDevice(lambda line: b"\x89PNG" if "screencap" in line else "ok")
    shell = AdbutilsShell(device=dev)
    assert shell.shell(["input", "text", "a'b"], timeout=2.0) == "ok"
    assert shell.exec_out(["screencap", "-p"], timeout=5.0) == b"\x89PNG"
    assert dev.lines == [("input text 'a'\"'\"'b'", 2.0, "utf-8"), ("screencap -p", 5.0, None)]


# ---- recorded outputs and escaping ------------------------------------------------------------------
@pytest.mark.parametrize("output, expected", [
    (DUMPSYS_Q, ("com.android.launcher", "com.android.launcher2.Launcher")),
    (("  mCurrentFocus=Window{42b3c2d8 u0 com.android.settings/com.android.settings.Settings}\n"
     "  mFocusedApp=AppWindowToken{42c7ee08 token=Token{42a2d8a8 ActivityRecord{42a24550 u0 "
     "com.android.settings/.Settings t4}}}"), ("com.android.settings", "com.android.settings.Settings")),
    (("  mCurrentFocus=null\n  mFocusedApp=ActivityRecord{d4e5f6 u0 org.tasks/com.todoroo.astrid.activity"
     ".MainActivity t15}"), ("org.tasks", "com.todoroo.astrid.activity.MainActivity")),
    (("  mCurrentFocus=Window{1f2e3d u0 PopupWindow:5a6b7c}\n  mFocusedApp=ActivityRecord{aa1 u0 "
     "com.google.android.gm/.ConversationListActivityGmail t9}"),
     ("com.google.android.gm", "com.google.android.gm.ConversationListActivityGmail")),
    ("  mCurrentFocus=Window{9c u0 NotificationShade}\n  mFocusedApp=null", (None, None)),
    ("", (None, None)),
])
def test_parse_focus(output: str, expected) -> None:
    assert parse_focus(output) == expected


def test_parse_wm_size() -> None:
    assert parse_wm_size("Physical size: 1080x2400") == (1080, 2400)
    assert parse_wm_size("Physical size: 1080x2400\nOverride size: 720x1600\n") == (720, 1600)
    with pytest.raises(DeviceError, match="screen size"):
        parse_wm_size("cmd: Can't find service: window")


def test_extract_dump_xml() -> None:
    assert extract_dump_xml(GMAIL + "UI hierchary dumped to: /dev/tty") == GMAIL
    assert extract_dump_xml("noise\n" + LAUNCHER + "\nUI hierarchy dumped to: /dev/tty\n") == LAUNCHER.strip()
    with pytest.raises(DeviceError, match="no hierarchy"):
        extract_dump_xml("ERROR: null root node returned by UiTestAutomationBridge.")


NASTY = [
    "hello world", "it's", 'say "hi"', "a;b&c|d", "$(reboot)", "`id`", "$HOME ${PATH}", "a\\b\\\\c",
    "100%sure", "%s", "%%s", "% s", "50% off", "x%", "*?[abc]~", "<tag>(x)", "  lead and trail  ",
    "#hash !bang ^caret", "-n", "--help", "'", '"', "\\", "a'b\"c`d$e", "tab-free ~user/dir", "{}",
]


def _java_input_text(arg: str) -> str:
    """What Android's `input text` types for one argument (its %s-to-space rule)."""
    out, i = [], 0
    while i < len(arg):
        if arg[i] == "%" and i + 1 < len(arg) and arg[i + 1] == "s":
            out.append(" ")
            i += 2
        else:
            out.append(arg[i])
            i += 1
    return "".join(out)


@pytest.mark.parametrize("text", NASTY)
def test_input_text_escaping_survives_a_real_posix_shell(text: str) -> None:
    sh = shutil.which("sh")
    assert sh, "a POSIX sh is needed to check quoting"
    cmds = input_text_commands(text)
    assert all(c[:2] == ["input", "text"] and " " not in c[2] for c in cmds)
    script = "input() { shift; printf '%s\\0' \"$1\"; }\n" + "\n".join(to_command_line(c) for c in cmds)
    res = subprocess.run([sh, "-c", script], capture_output=True, check=True)
    args = res.stdout.decode().split("\0")[:-1]
    assert args == [c[2] for c in cmds]  # the shell delivered each argument unchanged
    assert "".join(_java_input_text(a) for a in args) == text  # and `input` types the original


def test_input_text_commands_rejects_non_ascii() -> None:
    with pytest.raises(ValueError):
        input_text_commands("é")


def test_recording_shell_dry_run_lines() -> None:
    env, shell, _ = make_env()
    env.observe()
    env.step(A("input_text", x=5, y=5, text="a b;c"))
    assert "input text 'a%sb;c'" in [c.line for c in shell.calls]
