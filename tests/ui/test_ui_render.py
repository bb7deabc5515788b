"""The renderer in the ui layer: draws device dumps and any observation-shaped object, typed errors."""

from __future__ import annotations

import io
from dataclasses import dataclass

import pytest
from PIL import Image, ImageDraw

from droidverify.errors import DroidVerifyError, RenderError
from droidverify.ui import UIElement, parse_xml, select_elements
from droidverify.ui.icons import ICON_NAMES, draw_icon, icon_name
from droidverify.ui.render import render_png

XML = ('<hierarchy rotation="0">'
       '<node index="0" text="" class="android.widget.FrameLayout" package="com.example" bounds="[0,0][1080,2400]">'
       '<node index="0" text="" content-desc="Search" class="android.widget.ImageButton" package="com.example" '
       'clickable="true" bounds="[900,100][1040,240]" />'
       '<node index="1" text="Sign in" class="android.widget.Button" package="com.example" clickable="true" '
       'bounds="[100,1000][980,1140]" /></node></hierarchy>')


@dataclass
class DeviceScreen:
    """Observation-shaped, as an adb report has it: no simulator styles."""

    root: UIElement
    elements: list[UIElement]
    screen_size: tuple[int, int] = (1080, 2400)


def _png(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data))


def test_renders_a_dump_and_an_observation_shaped_object() -> None:
    root = parse_xml(XML)
    assert _png(render_png(root)).size == (1080, 2400)
    screen = DeviceScreen(root, select_elements(root))
    sign_in = next(i for i, e in enumerate(screen.elements) if e.text == "Sign in")
    img = _png(render_png(screen, highlight=sign_in, scale=0.5)).convert("RGB")
    assert img.size == (540, 1200)
    assert img.getpixel((50 + 1, 500 + 1)) == (0xEA, 0x43, 0x35)  # the highlight outline, scaled


def test_bad_arguments_are_render_errors() -> None:
    root = parse_xml(XML)
    screen = DeviceScreen(root, select_elements(root))
    for call, match in ((lambda: render_png("not a screen"), "needs an Observation or UIElement"),  # type: ignore[arg-type]
                        (lambda: render_png(root, scale=0), "scale must be > 0"),
                        (lambda: render_png(screen, highlight=99), "highlight index 99")):
        with pytest.raises(RenderError, match=match) as e:
            call()
        assert isinstance(e.value, DroidVerifyError)


def test_icons_are_guessed_from_what_a_dump_says() -> None:
    assert icon_name({}, "Search", "") == "search"
    assert icon_name({}, "", "com.example:id/btn_delete") == "delete"
    assert icon_name({"icon": "wifi"}, "", "") == "wifi"
    assert icon_name({}, "Sign in", "") is None
    assert {"back", "search", "battery", "check"} <= ICON_NAMES
    img = Image.new("RGB", (64, 64), "#ffffff")
    draw_icon(ImageDraw.Draw(img), "check", (8, 8, 48), "#000000")
    assert img.getcolors() is not None and len(img.getcolors()) > 1


@pytest.mark.parametrize(("text", "cjk"), [
    ("Settings", False), ("Paramètres · Настройки", False), ("", False), (None, False),
    ("设置", True), ("Play 스토어", True), ("設定", True), ("カメラ", True), ("ＡＢＣ", True),
])
def test_which_text_needs_a_cjk_font(text, cjk) -> None:
    from droidverify.ui import render

    assert render.needs_cjk_font(text) is cjk


def test_cjk_text_is_drawn_with_a_cjk_font_where_one_is_installed(monkeypatch) -> None:
    from droidverify.ui import render

    asked: list[str] = []
    installed = {"wqy-microhei.ttc", "DejaVuSans.ttf", "DejaVuSans-Bold.ttf"}

    def truetype(name: str, size: int):
        asked.append(name)
        if name not in installed:
            raise OSError(name)
        return (name, size)

    monkeypatch.setattr(render.ImageFont, "truetype", truetype)
    render._font_for.cache_clear()
    try:
        assert render._font(20, text="低音增强") == ("wqy-microhei.ttc", 20)
        assert asked[:2] == list(render.CJK_FONTS[:2])  # tried in order until one is found
        asked.clear()
        assert render._font(20, text="Bass boost") == ("DejaVuSans.ttf", 20)
        assert asked == ["DejaVuSans.ttf"]  # Latin text never looks for a CJK font
        installed.discard("wqy-microhei.ttc")
        render._font_for.cache_clear()
        assert render._font(20, True, "低音增强") == ("DejaVuSans-Bold.ttf", 20)  # none installed: DejaVu
    finally:
        render._font_for.cache_clear()
