"""Issue 10 item 18: a label-less control borrows the nearest sibling's label (icon button + caption)."""

from __future__ import annotations

from ui_helpers import hierarchy, node

from droidverify.actions.model import Action
from droidverify.agents.screen import describe_action
from droidverify.agents.verifier.candidates import extract_candidates
from droidverify.env.records import Observation
from droidverify.ui import describe, parse_xml, select_elements

SCREEN = "[0,0][1080,2400]"
ICON = "android.widget.ImageButton"


def frame(*children: str, bounds: str = SCREEN, **attrs: str) -> str:
    return node("android.widget.FrameLayout", bounds, "".join(children), **attrs)


def row(*children: str, **attrs: str) -> str:
    return node("android.widget.LinearLayout", "[0,0][1080,200]", "".join(children), **attrs)


def icon(left: int = 0, **attrs: str) -> str:
    attrs.setdefault("clickable", "true")
    attrs.setdefault("resource_id", "com.app:id/btn_share")
    return node(ICON, f"[{left},0][{left + 100},100]", **attrs)


def caption(text: str, left: int = 100, **attrs: str) -> str:
    return node("android.widget.TextView", f"[{left},0][{left + 100},100]", text=text, **attrs)


def select(*children: str, **kw: object) -> list:
    return select_elements(parse_xml(hierarchy(frame(row(*children)))), **kw)  # type: ignore[arg-type]


def test_icon_button_borrows_its_caption_sibling() -> None:
    els = select(icon(), caption("Share"))
    assert [(e.class_name, e.text) for e in els] == [(ICON, "Share"), ("android.widget.TextView", "Share")]
    btn = els[0]
    assert btn.extra["label_source"] == "sibling" and btn.extra["label_from"] == str(els[1].node_id)
    assert btn.resource_name == "btn_share"  # still there, but no longer the only name
    # Every description shows the caption, not the resource id, as the control's name.
    assert describe(els, "html").text.splitlines()[0] == "<button id=0 onclick>Share</button>"
    assert describe(els, "list").text.splitlines()[0].startswith('0: ImageButton "Share" res=btn_share')
    obs = Observation(xml=hierarchy(frame(row(icon(), caption("Share")))))
    assert describe_action(Action(action_type="click", index=0), obs.elements) == \
        "click <button id=0 onclick>Share</button>"
    # Candidates depend on what the control can do, not on its name.
    assert [c.to_json() for c in extract_candidates(obs, defaults=False)] == \
        [Action(action_type="click", index=0).to_json()]


def test_without_sibling_labels_the_resource_id_is_the_only_name() -> None:
    (btn, _) = select(icon(), caption("Share"), sibling_labels=False)
    assert btn.text is None and "label_source" not in btn.extra
    assert describe([btn], "html").text == '<button id=0 onclick res="btn_share"></button>'


def test_caption_before_the_icon_and_nested_captions() -> None:
    assert select(caption("Call", left=0), icon(left=100))[1].text == "Call"
    title = row(caption("Markor"), caption("8 items"))  # a non-interactive block: its texts
    assert select(icon(), title)[0].text == "Markor | 8 items"


def test_nearest_sibling_wins_and_the_following_one_on_a_tie() -> None:
    els = select(caption("far", left=0), caption("near", left=100), icon(left=200))
    assert els[2].text == "near"
    els = select(caption("before", left=0), icon(left=100), caption("after", left=200))
    assert els[1].text == "after"
    # Two icon/caption pairs in one row: each icon takes its own caption.
    els = select(icon(left=0), caption("Reply"), icon(left=200, resource_id="com.app:id/b2"),
                 caption("Forward", left=300))
    assert [e.text for e in els if e.class_name == ICON] == ["Reply", "Forward"]


def test_a_control_with_its_own_label_keeps_it() -> None:
    for own in ({"content_desc": "Send"}, {"text": "Send"}):
        btn = select(icon(**own), caption("Share"))[0]
        assert btn.label == "Send" and "label_source" not in btn.extra
    # A clickable container names itself by its own children first.
    inner = node(ICON, "[0,0][100,100]", caption("Inside", left=0), clickable="true")
    assert select(inner, caption("Beside"))[0].text == "Inside"


def test_a_sibling_with_its_own_action_is_never_borrowed() -> None:
    # The text of a button names that button's action: "Delete" beside a share icon would make
    # the agent believe the icon deletes. Disabled buttons, checkboxes, fields and lists alike.
    others = [
        node("android.widget.Button", "[100,0][300,100]", text="Delete", clickable="true"),
        node("android.widget.Button", "[100,0][300,100]", text="Delete", clickable="true", enabled="false"),
        node("android.widget.CheckBox", "[100,0][300,100]", text="Delete", checkable="true"),
        node("android.widget.EditText", "[100,0][300,100]", text="Delete", editable="true", focusable="true"),
        node("android.widget.TextView", "[100,0][300,100]", text="Delete", long_clickable="true"),
    ]
    for other in others:
        btn = select(icon(), other)[0]
        assert btn.class_name == ICON and btn.text is None, other
    # ... but a caption further away still is (the nearest *labelling* sibling).
    els = select(caption("Share", left=0), icon(left=100), others[0])
    assert els[1].text == "Share" and els[2].label == "Delete"


def test_text_the_enclosing_control_already_carries_is_not_borrowed() -> None:
    # A file row (clickable) named by its title, with a checkbox beside the title block: the row is
    # the control the title names; the checkbox stays as it is (the simulator's Files app).
    check = node("android.widget.CheckBox", "[930,0][1040,100]", checkable="true",
                 resource_id="com.app:id/icon_check")
    xml = hierarchy(frame(row(caption("Markor"), check, clickable="true")))
    els = select_elements(parse_xml(xml))
    assert [(e.class_name, e.text) for e in els] == [
        ("android.widget.LinearLayout", "Markor"), ("android.widget.CheckBox", None)]


def test_what_does_not_borrow_or_cannot_be_borrowed() -> None:
    # Editable fields: a label beside a field is not its content (the hint speaks for it).
    field = node("android.widget.EditText", "[0,0][500,100]", editable="true", focusable="true",
                 clickable="true")
    assert select(caption("Name", left=500), field)[1].text is None
    # A non-actionable image is not a control; a scroller's name is not its neighbour's.
    plain = node("android.widget.ImageView", "[0,0][100,100]", content_desc="")
    assert [e.label for e in select(plain, caption("Photo"))] == ["Photo"]
    scroller = node("android.widget.ScrollView", "[0,100][1080,200]", scrollable="true")
    assert select(caption("Title", left=0), scroller)[1].text is None
    # Hidden, off-screen or empty siblings are skipped.
    hidden = node("android.widget.TextView", "[100,0][200,100]", text="hidden", visible_to_user="false")
    offscreen = node("android.widget.TextView", "[2000,0][2100,100]", text="off screen")
    blank = node("android.widget.TextView", "[100,0][200,100]", text="  ")
    for sibling in (hidden, offscreen, blank):
        assert select(icon(), sibling)[0].text is None
    assert select(icon(), hidden, caption("Shown", left=300))[0].text == "Shown"
    # A control alone in its parent has no sibling to borrow from.
    assert select(icon())[0].text is None


def test_the_tree_itself_is_not_modified() -> None:
    root = parse_xml(hierarchy(frame(row(icon(), caption("Share")))))
    select_elements(root)
    original = root.children[0].children[0].children[0]
    assert original.class_name == ICON and original.text is None and "label_source" not in original.extra


def test_simulator_screens_are_unchanged() -> None:
    # The shipped verifier was trained on the simulator's descriptions: sibling labels must not
    # change them (scripts/sim_prompt_hashes.py checks every template's oracle path; this is the
    # Files app, whose row checkboxes sit beside their row's title).
    from droidverify.env.sim import SimEnv
    from droidverify.tasks import registry

    task = registry.get_template("files_rename_file").instantiate(0)
    env = SimEnv(task=task, seed=0)
    obs, checked = env.reset(), 0
    for _ in range(6):
        a = select_elements(obs.root, screen_size=obs.screen_size)
        b = select_elements(obs.root, screen_size=obs.screen_size, sibling_labels=False)
        assert [(e.node_id, e.text) for e in a] == [(e.node_id, e.text) for e in b]
        checked += any((e.resource_name or "") == "icon_check" for e in a)
        action = task.oracle_action(env.phone, obs)
        if action.action_type == "status":
            break
        obs = env.step(action)
    env.close()
    assert checked  # the pattern was on screen
