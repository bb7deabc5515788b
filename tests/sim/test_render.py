"""Screenshot renderer: concrete pixels for styles, widgets, icons, dialogs and device dumps."""

from __future__ import annotations

import io
import os
import pickle
from pathlib import Path

import pytest
from PIL import Image
from simhelpers import shared_dumps

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim import SimEnv
from droidverify.env.sim.env import SimObservation
from droidverify.tasks.oracle_utils import find
from droidverify.ui.element import UIElement
from droidverify.ui.render import ACCENT, render_png
from droidverify.ui.tree import parse_xml

WHITE = (255, 255, 255)


def _rgb(c: str) -> tuple[int, int, int]:
    return int(c[1:3], 16), int(c[3:5], 16), int(c[5:7], 16)


def _img(obs: Observation | UIElement, **kw) -> Image.Image:
    return Image.open(io.BytesIO(render_png(obs, **kw))).convert("RGB")


def _close(a: tuple[int, int, int], b: tuple[int, int, int], tol: int = 24) -> bool:
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def _count(img: Image.Image, box: tuple[int, int, int, int], colour: tuple[int, int, int], tol: int = 24) -> int:
    crop = img.crop(box)
    return sum(n for n, px in crop.getcolors(maxcolors=1 << 20) if _close(px, colour, tol))


def _screen(app: str, screen: str | None = None, **args) -> tuple[SimEnv, Observation]:
    env = SimEnv(seed=0)
    env.reset()
    env.phone.open_app(app, screen, **args)
    return env, env.observe()


def _el(obs: Observation, **crit) -> UIElement:
    i = find(obs, **crit)
    assert i is not None, f"no element {crit} on {obs.info['location']}"
    return obs.elements[i]


def test_switch_on_shows_accent_thumb_side_and_off_does_not() -> None:
    _env, obs = _screen("settings", "display")
    switches = [e for e in obs.root.iter() if (e.class_name or "").endswith("Switch")]
    on = [e for e in switches if e.is_checked]
    off = [e for e in switches if not e.is_checked]
    assert on and off, "display settings should show both an on and an off switch"
    img = _img(obs)
    accent = _rgb(ACCENT)
    for sw in on:
        b = sw.bbox_pixels
        right = (b.center[0], b.top, b.right, b.bottom)
        left = (b.left, b.top, b.center[0], b.bottom)
        # the thumb sits at the right end of an accent-filled track
        assert _count(img, right, accent) > 600
        assert _count(img, right, WHITE, 6) > 300  # the white thumb
        assert _count(img, left, accent) > 600  # track under the left half too
    for sw in off:
        b = sw.bbox_pixels
        assert _count(img, (b.left, b.top, b.right, b.bottom), accent) == 0
        # the grey thumb sits on the left
        grey = (0x79, 0x74, 0x7E)
        assert _count(img, (b.left, b.top, b.center[0], b.bottom), grey, 10) > \
            2 * _count(img, (b.center[0], b.top, b.right, b.bottom), grey, 10)


def test_dialog_dims_the_screen_behind_it_but_not_itself() -> None:
    env, obs = _screen("clock")
    before = _img(obs)
    env.phone.show_dialog("clock", "confirm", title="Delete alarm?", message="It goes away", ok="Delete",
                          on_ok="delete_alarm", args={"alarm_id": 1})
    obs = env.observe()
    after = _img(obs)
    title = _el(obs, text="Delete alarm?")
    # points of the app window outside the dialog (toolbar, list) are darkened by the scrim
    for x, y in ((540, 200), (540, 600)):
        assert not title.bbox_pixels.contains(x, y)
        was, now = before.getpixel((x, y)), after.getpixel((x, y))
        assert all(0.5 * a <= c <= 0.66 * a for a, c in zip(was, now)), (was, now)
    # the dialog panel itself stays white (left of its title, inside the card)
    parent = title.parent
    while parent is not None and parent.resource_name != "parentPanel":
        parent = parent.parent
    assert parent is not None
    pb = parent.bbox_pixels
    assert after.getpixel((pb.left + 20, pb.top + 20)) == WHITE


def test_text_is_drawn_inside_its_element_bounds() -> None:
    _env, obs = _screen("settings")
    img = _img(obs)
    for label in ("Display", "Network & internet", "Battery"):
        b = _el(obs, text=label).bbox_pixels
        # the row (list element) is larger than the title; find the title TextView itself
        tv = next(e for e in obs.root.iter() if e.text == label and (e.class_name or "").endswith("TextView"))
        tb = tv.bbox_pixels
        assert b.contains(*tb.center)
        inside = img.crop((tb.left, tb.top, tb.right, tb.bottom))
        dark = sum(n for n, px in inside.getcolors(maxcolors=1 << 20) if sum(px) < 300)
        assert dark > 150, f"no glyph pixels inside {label!r} at {tb}"


def test_contact_avatar_is_a_coloured_disc_with_the_initial() -> None:
    _env, obs = _screen("contacts")
    img = _img(obs)
    avatars = [e for e in obs.root.iter() if (e.class_name or "").endswith("ImageView")
               and e.resource_name == "photo"] or \
              [e for e in obs.root.iter() if (e.class_name or "").endswith("ImageView")
               and e.bbox_pixels.width >= 80 and e.bbox_pixels.left < 200]
    assert avatars, "contacts list should show avatars"
    b = avatars[0].bbox_pixels
    box = (b.left, b.top, b.right, b.bottom)
    accent = _count(img, box, _rgb(ACCENT))
    white = _count(img, box, WHITE, 30)
    assert accent > 0.3 * b.area  # the disc
    # corners outside the disc stay background, the initial is white pixels inside it
    assert img.getpixel((b.left + 1, b.top + 1)) == WHITE
    cx, cy = b.center
    centre = img.crop((cx - 20, cy - 20, cx + 20, cy + 20))
    assert any(_close(px, WHITE, 30) for _, px in centre.getcolors(maxcolors=1 << 20))
    assert white > 0


def test_chat_bubbles_use_their_background_and_text_colours() -> None:
    from droidverify.tasks import registry

    task = registry.get_template("messages_reply_to_latest").instantiate(0)
    env = SimEnv(task, 0)
    obs = env.reset()
    while env.phone.location != "messages/thread":
        obs = env.step(task.oracle_action(env.phone, obs))
    env.step(Action(action_type="input_text", index=find(env.last_observation, editable=True), text="On my way"))
    obs = env.step(Action(action_type="click", index=find(env.last_observation, desc="Send SMS")))
    img = _img(obs)
    sent = [e for e in obs.root.iter() if e.text == "On my way"]
    assert sent, "the sent message should be on screen"
    tb = sent[-1].bbox_pixels
    box = (tb.left, tb.top, tb.right, tb.bottom)
    # a sent bubble: accent background around white text
    assert _count(img, box, _rgb(ACCENT)) > 0.3 * tb.area
    assert _count(img, box, WHITE, 40) > 40
    # received bubbles are light grey, not accent
    recv = next(e for e in obs.root.iter() if e.resource_name == "message_text" and e.text != "On my way") \
        if any(e.resource_name == "message_text" for e in obs.root.iter()) else None
    if recv is not None and recv.bbox_pixels.left < 200:
        rb = recv.bbox_pixels
        assert _count(img, (rb.left, rb.top, rb.right, rb.bottom), _rgb(ACCENT)) == 0


def test_back_icon_is_a_drawn_arrow_not_a_letter() -> None:
    _env, obs = _screen("settings", "display")
    b = _el(obs, desc="Navigate up").bbox_pixels
    img = _img(obs)
    cy = b.center[1]
    row = [img.getpixel((x, cy)) for x in range(b.left, b.right)]
    dark = [i for i, px in enumerate(row) if sum(px) < 450]
    # the shaft: one unbroken horizontal run across most of the icon
    assert dark and dark[-1] - dark[0] >= 40 and len(dark) == dark[-1] - dark[0] + 1
    # the head: dark pixels above and below the shaft near its left end only
    def darkest(x: int, y: int) -> int:
        return min(sum(img.getpixel((x + dx, y + dy))) for dx in range(-3, 4) for dy in range(-3, 4))

    x0 = b.left + dark[0]
    assert darkest(x0 + 12, cy - 12) < 450 and darkest(x0 + 12, cy + 12) < 450
    assert darkest(b.left + dark[-1] - 4, cy - 12) > 700  # no head at the tip end


def test_toast_is_a_dark_pill_with_white_text() -> None:
    env, _obs = _screen("clock")
    env.phone.show_toast("Alarm saved")
    obs = env.observe()
    img = _img(obs)
    t = next(e for e in obs.root.iter() if e.text == "Alarm saved").bbox_pixels
    box = (t.left, t.top, t.right, t.bottom)
    assert _count(img, box, (0x32, 0x32, 0x32), 8) > 0.4 * t.area
    assert _count(img, box, WHITE, 40) > 50


def test_status_and_nav_bars_are_dark_with_light_glyphs() -> None:
    _env, obs = _screen("clock")
    img = _img(obs)
    status = next(e for e in obs.root.children if e.resource_name == "status_bar").bbox_pixels
    nav = next(e for e in obs.root.children if e.resource_name == "navigation_bar_frame").bbox_pixels
    assert img.getpixel((540, status.top + 5)) == _rgb("#202124")
    assert img.getpixel((5, nav.bottom - 5)) == (0, 0, 0)
    clock = next(e for e in obs.root.iter() if e.resource_name == "clock").bbox_pixels
    assert _count(img, (clock.left, clock.top, clock.right, clock.bottom), WHITE, 40) > 50
    home = next(e for e in obs.root.iter() if e.content_description == "Home").bbox_pixels
    assert _count(img, (home.left, home.top, home.right, home.bottom), WHITE, 60) > 50


def test_menu_and_fab_render_and_scale_keeps_aspect() -> None:
    env, obs = _screen("messages")
    img = _img(obs)
    fab = next(e for e in obs.root.iter() if (e.class_name or "").endswith("FloatingActionButton")).bbox_pixels
    assert _count(img, (fab.left, fab.top, fab.right, fab.bottom), _rgb(ACCENT)) > 0.5 * fab.area
    env.step(Action(action_type="click", index=find(obs, desc="More options")))
    obs = env.last_observation
    assert obs.info["windows"].count("menu") == 1
    img = _img(obs, scale=0.5)
    assert img.size == (540, 1200)


def test_device_dump_without_styles_renders_recognisably() -> None:
    for path in shared_dumps():
        root = parse_xml(path.read_text())
        img = _img(root)
        colours = img.getcolors(maxcolors=1 << 20)
        assert len(colours) > 20, f"{path.name} rendered nearly blank"
        texts = [e for e in root.iter() if e.text and e.bbox_pixels is not None and e.bbox_pixels.area > 2000]
        if texts:
            b = texts[0].bbox_pixels
            inside = img.crop((b.left, b.top, b.right, b.bottom)).getcolors(maxcolors=1 << 20)
            assert len(inside) > 2, f"no text drawn for {texts[0].text!r} in {path.name}"


def test_views_travel_only_with_the_latest_observation_and_never_pickle() -> None:
    env, first = _screen("contacts")
    assert isinstance(first, SimObservation) and first.views is not None
    second = env.step(Action(action_type="scroll", direction="down"))
    assert first.views is None and second.views is not None
    clone = pickle.loads(pickle.dumps(second))
    assert clone.views is None and clone.xml == second.xml
    # without styles the old observation still renders (class defaults)
    assert _img(first).size == (1080, 2400)


# ---- XML-only renders (stored runs, device dumps): nothing a person needs may be lost -----------
def _shared() -> Path:
    base = os.environ.get("DROIDVERIFY_SHARED")
    shared = Path(base) if base else Path(__file__).resolve().parents[2] / ".." / "shared"
    if not (shared / "data" / "uiautomator").is_dir():
        pytest.fail(f"real uiautomator dumps missing under {shared}")
    return shared


def _off_background(img: Image.Image, box: tuple[int, int, int, int]) -> int:
    """Pixels in ``box`` that differ from the box's most common colour (text, glyphs)."""
    colours = img.crop(box).getcolors(maxcolors=1 << 20)
    top = max(colours)[1]
    return sum(n for n, px in colours if not _close(px, top, 30))


def _dump(body: str, w: int = 1080, h: int = 2400) -> UIElement:
    return parse_xml(
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
        f'<node index="0" class="android.widget.FrameLayout" package="com.example" bounds="[0,0][{w},{h}]">'
        f"{body}</node></hierarchy>")


def test_launcher_from_xml_alone_shows_labels_under_icons() -> None:
    obs = SimEnv(seed=0).reset()
    icons = [e for e in obs.root.iter() if (e.resource_name or "") == "icon" and e.text]
    assert len(icons) >= 4
    img = _img(parse_xml(obs.xml))  # the dump alone, as `droidverify report` renders steps.jsonl
    for e in icons:
        b = e.bbox_pixels
        r = min(84, b.width // 3)
        label = (b.left, b.top + 36 + 2 * r + 12, b.right, b.bottom)  # below the disc
        assert _count(img, label, WHITE, 40) > 150, f"no label under the {e.text} icon"
        assert _off_background(img, label) > 150
    date = next(e for e in obs.root.iter() if e.resource_name == "date").bbox_pixels
    assert _off_background(img, (date.left, date.top, date.right, date.bottom)) > 200


def test_real_launcher_dump_shows_content_desc_only_items() -> None:
    path = _shared() / "data" / "uiautomator" / "xiaocong_uiautomator__launcher_deskclock_widget.xml"
    root = parse_xml(path.read_text())
    img = _img(root)
    by_desc = {e.content_description: e.bbox_pixels for e in root.iter() if e.content_description}
    for desc in ("Apps", "Search", "11:33"):  # no text attribute: only content-desc names them
        b = by_desc[desc]
        assert _off_background(img, (b.left, b.top, b.right, b.bottom)) > 40, f"{desc!r} not drawn"
    phone = next(e for e in root.iter() if e.text == "Phone").bbox_pixels
    lower = (phone.left, phone.top + phone.height * 2 // 3, phone.right, phone.bottom)
    assert _count(img, lower, WHITE, 40) > 20, "hotseat label missing under its icon"


def test_xml_empty_edittext_shows_hint_in_grey_and_typed_text_in_black() -> None:
    field = ('<node index="{i}" text="{t}" hint="Label" class="android.widget.EditText" package="com.example" '
             'clickable="true" focusable="true" bounds="[40,{y0}][1040,{y1}]" />')
    root = _dump(field.format(i=0, t="", y0=200, y1=360) + field.format(i=1, t="Vitamins", y0=400, y1=560))
    img = _img(root)
    empty, typed = (60, 220, 1020, 340), (60, 420, 1020, 540)  # inside the outline
    assert _count(img, empty, _rgb("#5f6368"), 12) > 100  # grey hint
    assert _count(img, empty, (0x20, 0x21, 0x24), 12) == 0
    assert _count(img, typed, (0x20, 0x21, 0x24), 30) > 100  # real text in the text colour


def test_xml_checked_state_is_visible_for_widgetless_checkables() -> None:
    row = ('<node index="{i}" text="Wi-Fi calling" class="android.widget.CheckedTextView" package="com.example" '
           'checkable="true" checked="{c}" clickable="true" bounds="[0,{y0}][1080,{y1}]" />')
    root = _dump(row.format(i=0, c="true", y0=200, y1=340) + row.format(i=1, c="false", y0=400, y1=540))
    img = _img(root)
    accent = _rgb(ACCENT)
    assert _count(img, (900, 200, 1080, 340), accent, 30) > 100  # check mark on the checked row
    assert _count(img, (0, 400, 1080, 540), accent, 30) == 0
    assert _off_background(img, (0, 200, 1080, 340)) > 100 and _off_background(img, (0, 400, 1080, 540)) > 100


def test_xml_clickable_container_children_text_is_drawn() -> None:
    root = _dump('<node index="0" class="android.widget.LinearLayout" package="com.example" clickable="true" '
                 'bounds="[0,300][1080,500]"><node index="0" text="Bus" class="android.widget.TextView" '
                 'package="com.example" bounds="[48,310][1000,400]" /><node index="1" text="Every day" '
                 'class="android.widget.TextView" package="com.example" bounds="[48,400][1000,490]" /></node>')
    img = _img(root)
    assert _count(img, (48, 310, 1000, 400), (0x20, 0x21, 0x24), 30) > 50
    assert _count(img, (48, 400, 1000, 490), (0x20, 0x21, 0x24), 30) > 50


def test_xml_dialog_sits_on_a_white_card() -> None:
    env = SimEnv(seed=0)
    env.reset()
    env.phone.open_app("clock")
    obs = env.observe()
    env.step(Action(action_type="click", index=find(obs, desc="Add alarm")))
    obs = env.last_observation
    env.step(Action(action_type="click", index=find(obs, text="8:00 AM")))  # opens the time picker dialog
    obs = env.last_observation
    title = next(e for e in obs.root.iter() if e.resource_name == "alertTitle")
    dialog = next(w for w in obs.root.children if w.window > 0 and "systemui" not in (w.package_name or ""))
    img = _img(parse_xml(obs.xml))
    d = dialog.bbox_pixels
    # the card is white (not the dimmed screen below it) and the title is legible on it
    assert _count(img, (d.left + 40, d.top + 40, d.right - 40, d.bottom - 40), WHITE, 4) > 0.4 * d.area
    t = title.bbox_pixels
    assert _count(img, (t.left, t.top, t.right, t.bottom), (0x20, 0x21, 0x24), 40) > 100


def test_live_render_never_uses_the_xml_fallbacks(monkeypatch: pytest.MonkeyPatch) -> None:
    from droidverify.ui import render

    def boom(*_a, **_k):
        raise AssertionError("XML-only fallback used for a styled (live) render")

    for name in ("xml_window_bg", "xml_label", "xml_checked", "xml_app_icon"):
        monkeypatch.setattr(render._Renderer, name, boom)
    env = SimEnv(seed=0)
    home = env.reset()
    assert isinstance(home, SimObservation) and home.views is not None
    _img(home)
    for app in ("clock", "settings", "messages"):
        env.phone.open_app(app)
        _img(env.observe())
    with pytest.raises(AssertionError, match="XML-only fallback"):
        _img(parse_xml(home.xml))  # the patch is live: the XML path does reach it
