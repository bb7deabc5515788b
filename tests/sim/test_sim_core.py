"""Simulator core: XML format, determinism, snapshot/clone, hit-testing, scrolling, back stack,
toasts, dialogs, menus, text input, invalid actions, screenshots."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from droidverify.actions.model import Action
from droidverify.env import Environment
from droidverify.env.sim import SimEnv
from droidverify.errors import ActionValidationError, EnvError, RenderError
from droidverify.tasks.oracle_utils import find
from droidverify.ui.render import render_png
from droidverify.ui.tree import parse_xml


def _open(env: SimEnv, app: str):
    return env.step(Action.make("open_app", app_name=app))


def _click(env: SimEnv, **criteria):
    obs = env.last_observation
    i = find(obs, **criteria)
    assert i is not None, (criteria, [e.text or e.content_description for e in obs.elements])
    return env.step(Action.make("click", index=i))


def test_implements_environment_protocol_and_starts_home() -> None:
    env = SimEnv(seed=0)
    assert isinstance(env, Environment)
    obs = env.reset()
    assert obs.package == "com.google.android.apps.nexuslauncher"
    assert find(obs, text="Clock") is not None and find(obs, text="Settings") is not None
    assert obs.screen_size == (1080, 2400)


def test_xml_looks_like_a_device_dump_and_parses() -> None:
    env = SimEnv(seed=1)
    env.reset()
    obs = _open(env, "Settings")
    assert obs.xml.startswith("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">")
    first = obs.xml.split("<node ", 2)[1]
    for attr in ("index", "text", "resource-id", "class", "package", "content-desc", "checkable", "checked",
                 "clickable", "enabled", "focusable", "focused", "scrollable", "long-clickable", "password",
                 "selected", "bounds"):
        assert f' {attr}="' in " " + first, attr
    parsed = parse_xml(obs.xml)
    mine = list(obs.root.iter())
    theirs = list(parsed.iter())
    assert len(mine) == len(theirs)
    for a, b in zip(mine, theirs):
        assert (a.node_id, a.class_name, a.text, a.resource_id, a.bbox_pixels, a.is_clickable, a.is_checked,
                a.is_scrollable, a.window, a.depth) == (b.node_id, b.class_name, b.text, b.resource_id,
                                                         b.bbox_pixels, b.is_clickable, b.is_checked,
                                                         b.is_scrollable, b.window, b.depth)
    ids = {e.resource_id for e in theirs}
    assert "com.android.settings:id/recycler_view" in ids and "com.android.systemui:id/clock" in ids
    assert "com.android.systemui:id/back" in ids


def test_text_is_escaped_in_xml() -> None:
    env = SimEnv(seed=0)
    env.reset()
    _open(env, "Settings")
    _click(env, desc="Search settings")
    obs = env.last_observation
    i = find(obs, editable=True)
    obs = env.step(Action.make("input_text", index=i, text='<a href="x">&\'y\''))
    assert '&lt;a href=&quot;x&quot;&gt;&amp;&apos;y&apos;' in obs.xml
    assert parse_xml(obs.xml) is not None
    assert obs.elements[find(obs, editable=True)].text == '<a href="x">&\'y\''


def _random_run(seed: int, steps: int = 60) -> list[str]:
    env = SimEnv(seed=seed)
    obs = env.reset()
    rng = random.Random(seed)
    out = [obs.xml]
    for _ in range(steps):
        n = len(obs.elements)
        kind = rng.choice(("click", "click", "click", "scroll", "back", "open", "input"))
        if kind == "click" and n:
            a = Action.make("click", index=rng.randrange(n))
        elif kind == "scroll":
            a = Action.make("scroll", direction=rng.choice(("up", "down")))
        elif kind == "back":
            a = Action.make("navigate_back")
        elif kind == "input":
            edits = [i for i, e in enumerate(obs.elements) if e.is_editable]
            a = Action.make("input_text", index=edits[0], text="7") if edits else Action.make("wait")
        else:
            a = Action.make("open_app", app_name=rng.choice(("Clock", "Settings")))
        obs = env.step(a)
        out.append(obs.xml)
    return out


def test_same_seed_same_actions_byte_identical() -> None:
    assert _random_run(5) == _random_run(5)
    assert SimEnv(seed=1).reset().xml != SimEnv(seed=2).reset().xml or \
        _random_run(1, 5) != _random_run(2, 5)


def test_snapshot_restore_and_clone_diverge_independently() -> None:
    env = SimEnv(seed=3)
    env.reset()
    _open(env, "Clock")
    phone = env.phone
    snap = phone.snapshot()
    n_alarms = len(phone.query("SELECT * FROM alarm_templates"))
    twin = phone.clone()
    twin.execute("DELETE FROM alarm_templates")
    twin.push("edit_alarm", alarm_id=None)
    twin.show_toast("only on the twin")
    assert len(phone.query("SELECT * FROM alarm_templates")) == n_alarms
    assert phone.location == "clock/alarms" and phone.toast is None
    assert twin.location == "clock/edit_alarm"
    # mutate the original, then restore it
    phone.execute("DELETE FROM alarm_templates")
    phone.go_home()
    phone.restore(snap)
    assert len(phone.query("SELECT * FROM alarm_templates")) == n_alarms
    assert phone.location == "clock/alarms"
    assert SimEnv.attach(phone.clone()).observe().xml == env.observe().xml


def test_outcomes_are_equal_on_the_same_screen_and_rows_whatever_the_database_bytes() -> None:
    import sqlite3

    from droidverify.env.sim.env import Outcome, action_outcome, outcome

    env = SimEnv(seed=3)
    env.reset()
    _open(env, "Clock")
    phone = env.phone
    now = outcome(phone, None)
    assert outcome(phone, None) == outcome(phone, None)
    back = outcome(phone, Action(action_type="navigate_back"))
    assert back != now and back.same_data(now)  # another screen, the same data
    twin = phone.clone()
    twin.execute("DELETE FROM alarm_templates")
    changed = outcome(twin, None)
    assert not changed.same_data(now)
    assert action_outcome(phone, None) == (now.xml, now.dump())  # the readable form of the same state

    def db(churn: bool) -> bytes:  # the same rows, written two ways (different pages)
        c = sqlite3.connect(":memory:")
        c.execute("CREATE TABLE t (a TEXT)")
        c.execute("INSERT INTO t VALUES ('x')")
        if churn:
            c.executemany("INSERT INTO t VALUES (?)", [("y" * 500,)] * 20)
            c.execute("DELETE FROM t WHERE a != 'x'")
        c.commit()
        return c.serialize()

    plain, churned = db(False), db(True)
    assert plain != churned
    assert Outcome("s", plain) == Outcome("s", churned) and Outcome("s", plain) != Outcome("t", churned)
    with pytest.raises(TypeError):
        hash(now)

def test_tap_by_coordinates_hit_tests_like_a_device() -> None:
    env = SimEnv(seed=0)
    obs = env.reset()
    _open(env, "Settings")
    obs = env.last_observation
    row = obs.elements[find(obs, text="Display")]
    x, y = row.bbox_pixels.center
    obs = env.step(Action.make("click", x=x, y=y))
    assert env.phone.location == "settings/display"
    # tapping the Switch widget itself reaches the clickable row that owns it (deepest clickable)
    before = env.phone.get_setting("secure", "ui_night_mode")
    sw = [e for e in obs.elements if e.class_name.endswith("Switch")]
    dark_row = obs.elements[find(obs, text="Dark theme")]
    target = next(s for s in sw if dark_row.bbox_pixels.contains(*s.bbox_pixels.center))
    env.step(Action.make("click", x=target.bbox_pixels.center[0], y=target.bbox_pixels.center[1]))
    assert env.phone.get_setting("secure", "ui_night_mode") != before
    # a non-interactive point (the toolbar title) does nothing
    loc, xml = env.phone.location, env.last_observation.xml
    env.step(Action.make("click", x=600, y=190))
    assert env.phone.location == loc and env.last_observation.xml == xml


def test_scrolling_list_rows_absent_until_scrolled() -> None:
    env = SimEnv(seed=0)
    env.reset()
    obs = _open(env, "Settings")
    assert "About phone" not in obs.xml  # off-screen rows are not in the tree at all
    scrollers = [i for i, e in enumerate(obs.elements) if e.is_scrollable]
    assert scrollers
    obs = env.step(Action.make("scroll", index=scrollers[0], direction="down"))
    assert "About phone" in obs.xml and "Network &amp; internet" not in obs.xml
    obs = env.step(Action.make("scroll", direction="down"))  # at the end: no change
    obs2 = env.step(Action.make("scroll", direction="up"))
    obs2 = env.step(Action.make("scroll", direction="up"))
    assert "Network &amp; internet" in obs2.xml
    # a finger swipe up scrolls the content down
    obs3 = env.step(Action.make("swipe", direction="up"))
    assert "About phone" in obs3.xml


def test_back_stack_and_home() -> None:
    env = SimEnv(seed=0)
    env.reset()
    _open(env, "Settings")
    env.step(Action.make("scroll", direction="down"))
    _click(env, text="System")
    _click(env, text="Date & time")
    assert env.phone.location == "settings/datetime"
    env.step(Action.make("navigate_home"))
    assert env.phone.location == "launcher/home"
    _open(env, "settings")  # resumes where it was, like a real launch from recents
    assert env.phone.location == "settings/datetime"
    for expected in ("settings/system", "settings/main", "launcher/home"):
        env.step(Action.make("navigate_back"))
        assert env.phone.location == expected
    _open(env, "Settings")
    assert env.phone.location == "settings/main"  # back out of the root forgot the stack


def test_launcher_drawer_search_and_aliases() -> None:
    env = SimEnv(seed=0)
    env.reset()
    obs = env.step(Action.make("swipe", direction="up"))
    assert env.phone.location == "launcher/drawer"
    obs = env.step(Action.make("input_text", index=find(obs, editable=True), text="clo"))
    assert find(obs, text="Clock") is not None and find(obs, text="Settings") is None
    env.step(Action.make("click", index=find(obs, text="Clock")))
    assert env.phone.location == "clock/alarms"
    env.step(Action.make("open_app", app_name="  ALARM clock "))
    assert env.phone.foreground == "clock"
    with pytest.raises(ActionValidationError, match="no app named 'Tetris'"):
        env.step(Action.make("open_app", app_name="Tetris"))


def test_toast_lives_two_observations() -> None:
    env = SimEnv(seed=0)
    env.reset()
    env.phone.show_toast("Alarm deleted")
    assert env.observe().info["toast"] == "Alarm deleted" and "Alarm deleted" in env.observe().xml
    assert "Alarm deleted" in env.step(Action.make("wait")).xml
    obs = env.step(Action.make("wait"))
    assert obs.info["toast"] is None and "Alarm deleted" not in obs.xml


def test_dialog_confirm_cancel_outside_and_back() -> None:
    env = SimEnv(seed=4)
    env.reset()
    obs = _open(env, "Clock")
    n = len(env.phone.query("SELECT * FROM alarm_templates"))
    _click(env, resource_id="alarm_item")
    _click(env, resource_id="delete")
    assert env.phone.dialog is not None
    env.step(Action.make("click", x=540, y=2150))  # outside the dialog: cancels it
    assert env.phone.dialog is None and len(env.phone.query("SELECT * FROM alarm_templates")) == n
    _click(env, resource_id="delete")
    env.step(Action.make("navigate_back"))
    assert env.phone.dialog is None
    _click(env, resource_id="delete")
    obs = _click(env, resource_id="android:id/button1")
    assert len(env.phone.query("SELECT * FROM alarm_templates")) == n - 1
    assert obs.info["toast"] == "Alarm deleted" and env.phone.location == "clock/alarms"


def test_overflow_menu_opens_and_dismisses() -> None:
    env = SimEnv(seed=0)
    env.reset()
    _open(env, "Clock")
    obs = _click(env, desc="More options")
    assert obs.info["menu_open"] and find(obs, text="Send feedback") is not None
    obs = _click(env, text="Send feedback")
    assert not obs.info["menu_open"] and obs.info["toast"] == "Thanks for your feedback"


def test_time_picker_is_operable_by_typing_and_buttons() -> None:
    env = SimEnv(seed=0)
    env.reset()
    _open(env, "Clock")
    _click(env, desc="Add alarm")
    obs = _click(env, resource_id="edit_time")
    assert env.phone.dialog.name == "time_picker"
    obs = env.step(Action.make("input_text", index=find(obs, resource_id="hour"), text="6"))
    obs = env.step(Action.make("input_text", index=find(obs, resource_id="minute"), text="45"))
    obs = _click(env, desc="Increase minute")
    obs = _click(env, resource_id="pm_label")
    obs = _click(env, resource_id="android:id/button1")
    assert find(obs, text="6:46 PM") is not None
    obs = _click(env, desc="Saturday")
    obs = env.step(Action.make("input_text", index=find(obs, resource_id="edit_label"), text="Run",
                               press_enter=True))
    assert obs.info["keyboard_shown"]
    env.step(Action.make("navigate_back"))  # first back only hides the keyboard
    assert env.phone.location == "clock/edit_alarm"
    _click(env, resource_id="save")
    row = env.phone.query_one("SELECT * FROM alarm_templates WHERE label='Run'")
    assert (row["hour"], row["minutes"], row["days_of_week"]) == (18, 46, 0b0100000)


def test_24h_setting_changes_clock_rendering() -> None:
    env = SimEnv(seed=0)
    env.reset()
    env.phone.put_setting("system", "time_12_24", "24")
    env.phone.execute("INSERT INTO alarm_templates(hour, minutes, days_of_week, enabled, vibrate, label, ringtone)"
                      " VALUES(0, 5, 0, 1, 1, 'Early', 'x')")
    obs = _open(env, "Clock")
    assert find(obs, text="00:05") is not None and "AM" not in obs.elements[find(obs, text="00:05")].text


def test_invalid_actions_raise_clear_errors() -> None:
    env = SimEnv(seed=0)
    obs = env.reset()
    with pytest.raises(ActionValidationError, match="out of range"):
        env.step(Action.make("click", index=len(obs.elements)))
    with pytest.raises(ActionValidationError, match="needs a text field"):
        env.step(Action.make("input_text", index=0, text="hi"))
    with pytest.raises(ActionValidationError, match="off the 1080x2400 screen"):
        env.step(Action.make("click", x=5000, y=10))
    with pytest.raises(ActionValidationError, match="no text field"):
        env.step(Action.make("input_text", x=540, y=50, text="hi"))
    env.close()
    with pytest.raises(EnvError, match="closed"):
        env.observe()


def test_wait_moves_the_frozen_clock_and_timers_fire() -> None:
    env = SimEnv(seed=0)
    env.reset()
    t0 = env.phone.now
    env.step(Action.make("click", index=0))
    assert env.phone.now == t0  # frozen: ordinary actions do not move time
    env.phone.execute("INSERT INTO timers(length_s, remaining_s, state, end_time, label) VALUES(5, 5, 'running', ?, '')",
                      ((t0.replace(second=t0.second + 4)).isoformat(),))
    obs = env.step(Action.make("wait"))
    assert env.phone.now > t0
    assert env.phone.query_one("SELECT state FROM timers")["state"] == "expired"
    assert obs.info["toast"] == "Time's up"


def test_answer_recorded_and_status_changes_nothing() -> None:
    env = SimEnv(seed=0)
    obs = env.reset()
    xml = obs.xml
    obs = env.step(Action.make("answer", text="14"))
    assert env.last_answer == "14" and obs.xml == xml
    assert env.step(Action.make("status", goal_status="complete")).xml == xml


def test_screenshot_png_decodes_with_right_size() -> None:
    env = SimEnv(seed=0, screenshot=True)
    env.reset()
    obs = _open(env, "Clock")
    img = Image.open(io.BytesIO(obs.screenshot_png))
    assert img.size == (1080, 2400) and img.format == "PNG"
    # the picture is not blank: the status bar is dark and the alarm list has content
    assert img.getpixel((540, 20))[0] < 80 and len(img.crop((0, 300, 1080, 900)).getcolors(maxcolors=100000) or []) > 5
    small = Image.open(io.BytesIO(render_png(obs, highlight=find(obs, desc="Add alarm"), scale=0.5)))
    assert small.size == (540, 1200)
    with pytest.raises(RenderError, match="highlight index"):
        render_png(obs, highlight=999)
    from simhelpers import shared_dumps

    root = parse_xml(shared_dumps()[0].read_text())
    assert Image.open(io.BytesIO(render_png(root))).size == (1080, 2400)
