"""Candidate extraction (V-Droid's action space) on hand-built screens and real uiautomator dumps."""

from __future__ import annotations

from agent_doubles import dump_observation, el, make_obs

from droidverify.actions.model import Action
from droidverify.actions.validate import validate_action
from droidverify.agents import describe_action, extract_candidates
from droidverify.agents.screen import (
    ANSWER_PLACEHOLDER,
    APP_PLACEHOLDER,
    TEXT_PLACEHOLDER,
    needs_completion,
)

DEFAULT_TYPES = ["open_app", "wait", "navigate_home", "navigate_back", "status", "answer"]


def test_form_screen_candidates_exact(form_screen):
    got = [c.to_json() for c in extract_candidates(form_screen)]
    # Clickable editable field: click first, then input/clear (per-element order is fixed).
    expected = [
        Action(action_type="click", index=1),
        Action(action_type="input_text", index=1, text=TEXT_PLACEHOLDER),
        Action(action_type="clear_text", index=1),
        Action(action_type="click", index=2),
        Action(action_type="click", index=3),
        Action(action_type="long_press", index=3),
        *[Action(action_type="scroll", index=4, direction=d) for d in ("up", "down")],  # a vertical list
        Action(action_type="click", index=5),  # checkable
        # index 6 is disabled: nothing; index 0 is plain text: nothing
        Action(action_type="open_app", app_name=APP_PLACEHOLDER),
        Action(action_type="wait"),
        Action(action_type="navigate_home"),
        Action(action_type="navigate_back"),
        Action(action_type="status", goal_status="complete"),
        Action(action_type="answer", text=ANSWER_PLACEHOLDER),
    ]
    assert got == [a.to_json() for a in expected]


def test_deterministic_and_deduplicated(form_screen):
    a = extract_candidates(form_screen)
    b = extract_candidates(form_screen)
    assert [c.to_json() for c in a] == [c.to_json() for c in b]
    assert len({c.to_json() for c in a}) == len(a)


def test_clear_text_only_for_real_content():
    edit = {"is_editable": True, "is_focusable": True, "class_name": "android.widget.EditText"}
    child_hint = el(None, top=300, hint_text="Email")
    borrowed = el("Email", top=300, **edit)
    borrowed.children = [child_hint]
    screen = make_obs([
        el(None, hint_text="Search", **edit),
        el("Search", top=100, hint_text="Search", **edit),
        el("groceries", top=200, hint_text="Search", **edit),
        borrowed,  # a field showing its child's hint
        el("Total: 12", top=400, is_editable=True, class_name="android.widget.EditText"),  # read-only display
    ])
    types = [(c.action_type, c.index) for c in extract_candidates(screen, defaults=False)]
    assert types == [("input_text", 0), ("input_text", 1), ("input_text", 2), ("clear_text", 2),
                     ("input_text", 3)]


def test_scroll_directions_follow_the_container_axis():
    screen = make_obs([
        el(None, is_scrollable=True, class_name="android.widget.ListView"),
        el(None, top=100, is_scrollable=True, class_name="androidx.viewpager.widget.ViewPager"),
        el(None, top=200, is_scrollable=True, class_name="android.view.View"),
    ])
    dirs = {}
    for c in extract_candidates(screen, defaults=False):
        dirs.setdefault(c.index, []).append(c.direction)
    assert dirs == {0: ["up", "down"], 1: ["left", "right"], 2: ["up", "down", "left", "right"]}


def test_zero_area_element_skipped_and_apps_option():
    from droidverify.ui.element import Bounds

    screen = make_obs([el("Ghost", is_clickable=True, bbox_pixels=Bounds(10, 10, 10, 50))])
    assert [c.action_type for c in extract_candidates(screen)] == DEFAULT_TYPES
    assert "open_app" not in [c.action_type for c in extract_candidates(screen, apps=[])]
    assert extract_candidates(screen, defaults=False) == []


def test_gmail_dump_got_it_click():
    obs = dump_observation("mobile-env__gmail_welcome.xml")
    cands = extract_candidates(obs)
    got_it = [i for i, e in enumerate(obs.elements) if e.text == "GOT IT"]
    assert len(got_it) == 1
    assert Action(action_type="click", index=got_it[0]) in cands
    assert [c.action_type for c in cands[-6:]] == DEFAULT_TYPES
    desc = describe_action(Action(action_type="click", index=got_it[0]), obs.elements)
    assert desc.startswith(f"click <button id={got_it[0]}") and desc.endswith(">GOT IT</button>")
    for c in cands:
        if not needs_completion(c):
            validate_action(c, obs.elements, screen_size=obs.screen_size)


def test_launcher_dump_scroll_and_long_press():
    obs = dump_observation("xiaocong_uiautomator__launcher_deskclock_widget.xml")
    cands = extract_candidates(obs)
    scroll = [c for c in cands if c.action_type == "scroll"]
    assert scroll, "the launcher workspace is scrollable"
    ws = scroll[0].index
    assert obs.elements[ws].is_scrollable
    assert {c.direction for c in scroll if c.index == ws} == {"up", "down", "left", "right"}
    phone = next(i for i, e in enumerate(obs.elements) if e.label == "Phone")
    assert Action(action_type="click", index=phone) in cands
    # A long press on a home-screen icon only opens its shortcut menu: not offered.
    assert not [c for c in cands if c.action_type == "long_press"]
    for c in cands:
        if not needs_completion(c):
            validate_action(c, obs.elements, screen_size=obs.screen_size)


def test_home_screen_icons_get_no_long_press_whatever_the_launcher_is_called():
    from droidverify.agents.screen import is_launcher_package

    for pkg, home in (("com.google.android.apps.nexuslauncher", True), ("com.huawei.android.launcher", True),
                      ("com.bbk.launcher2", True), ("com.miui.home", True), ("app.lawnchair", True),
                      ("com.example.app", False), ("com.android.systemui", False), (None, False)):
        assert is_launcher_package(pkg) is home, pkg
        icon = el("Camera", is_clickable=True, is_long_clickable=True, package_name=pkg)
        kinds = {c.action_type for c in extract_candidates(make_obs([icon], package=pkg or ""))}
        assert ("long_press" in kinds) is (not home), pkg


def test_the_compact_features_know_miui_home_is_a_launcher():
    from droidverify.agents.verifier.compact.features import NUMERIC_NAMES, step_view

    at = NUMERIC_NAMES.index("on_launcher")
    for pkg, home in (("com.miui.home", 1.0), ("com.google.android.apps.nexuslauncher", 1.0), ("com.example.app", 0.0)):
        icon = el("Camera", is_clickable=True, package_name=pkg)
        obs = make_obs([icon], package=pkg)
        cands = extract_candidates(obs)
        view = step_view("Take a photo", "", obs.elements, cands)
        assert {c.numeric[at] for c in view.candidates} == {home}, pkg
