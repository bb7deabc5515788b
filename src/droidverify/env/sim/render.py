"""Screenshot rendering: draw a UI tree (simulator observation or any parsed dump) to a PNG.

Works from ``UIElement`` trees, so it renders real device dumps too. Colours come from the
simulator's view styles when available (``Observation.info["styles"]`` is not needed: the
simulator renders from the tree plus class-based defaults).
"""

from __future__ import annotations

import io
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from droidverify.env.records import Observation
from droidverify.errors import EnvError
from droidverify.ui.element import UIElement

BG = "#ffffff"
ACCENT = "#1a73e8"
TEXT = "#202124"
MUTED = "#5f6368"


@lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=size)


def _short(cls: str | None) -> str:
    return (cls or "").rsplit(".", 1)[-1]


def _fit(draw: ImageDraw.ImageDraw, text: str, font, width: int) -> list[str]:
    words, lines, cur = text.split(), [], ""
    for w in words:
        cand = f"{cur} {w}".strip()
        if draw.textlength(cand, font=font) <= width or not cur:
            cur = cand
        else:
            lines.append(cur)
            cur = w
    if cur:
        lines.append(cur)
    return lines or [""]


_ICON_GLYPH = {"Navigate up": "<", "More options": ":", "Back": "<", "Home": "O", "Overview": "[ ]",
               "Apps list": "Apps", "Delete": "x", "Delete timer": "x", "Start": ">", "Pause": "||",
               "Bluetooth on.": "BT", "Airplane mode.": "AIR", "Wi-Fi signal full.": "Wi-Fi"}


def _glyph(desc: str) -> str:
    if desc in _ICON_GLYPH:
        return _ICON_GLYPH[desc]
    if desc.startswith("Battery "):
        return desc.split()[1] + "%"
    for prefix, g in (("Increase", "+"), ("Decrease", "-"), ("Next", "^"), ("Previous", "v")):
        if desc.startswith(prefix):
            return g
    return desc[:1]


def render_png(source: Observation | UIElement, *, size: tuple[int, int] = (1080, 2400),
               highlight: int | None = None, scale: float = 1.0) -> bytes:
    """PNG bytes of the screen; ``highlight`` outlines element ``index`` of ``observation.elements``."""
    if isinstance(source, Observation):
        root, size, elements = source.root, source.screen_size, source.elements
    elif isinstance(source, UIElement):
        root, elements = source, None
    else:
        raise EnvError(f"render_png needs an Observation or UIElement, got {type(source).__name__}")
    w, h = size
    img = Image.new("RGB", (w, h), BG)
    d = _SafeDraw(img)
    for node in root.iter():
        if node.class_name == "hierarchy" or node.bbox_pixels is None:
            continue
        b = node.bbox_pixels
        if b.width <= 0 or b.height <= 0:
            continue
        box = (b.left, b.top, b.right - 1, b.bottom - 1)
        cls = _short(node.class_name)
        pkg = node.package_name or ""
        rid = node.resource_name or ""
        if node.parent is not None and node.parent.class_name == "hierarchy":
            # window roots: system bars, launcher wallpaper, dialog cards, toasts
            if pkg == "com.android.systemui" and rid in ("status_bar",):
                d.rectangle(box, fill="#202124")
            elif pkg == "com.android.systemui" and rid == "navigation_bar_frame":
                d.rectangle(box, fill="#000000")
            elif "launcher" in pkg:
                d.rectangle(box, fill="#3b5f8a" if rid == "launcher" else "#303134")
            elif node.window > 0 and rid != "status_bar":
                d.rounded_rectangle(box, radius=36, fill="#ffffff", outline="#dadce0", width=3)
        dark_bg = pkg == "com.android.systemui" or "launcher" in pkg
        fg = "#ffffff" if dark_bg else TEXT
        if cls in ("Button",):
            fill = ACCENT if node.is_selected else "#e8f0fe"
            d.rounded_rectangle(box, radius=min(60, b.height // 2), fill=fill)
            fg = "#ffffff" if node.is_selected else ACCENT
        elif cls == "FloatingActionButton":
            d.rounded_rectangle(box, radius=48, fill=ACCENT)
            d.text(b.center, "+", fill="#ffffff", font=_font(90), anchor="mm")
        elif cls == "CardView":
            d.rounded_rectangle(box, radius=40, fill="#f1f3f4")
        elif cls == "EditText":
            d.rectangle((b.left, b.bottom - 6, b.right, b.bottom), fill=ACCENT if node.is_focused else "#9aa0a6")
        elif cls == "Switch":
            on = node.is_checked
            track = (b.left + 20, b.top + 28, b.right - 20, b.bottom - 28)
            d.rounded_rectangle(track, radius=20, fill="#a8c7fa" if on else "#dadce0")
            cx = track[2] - 20 if on else track[0] + 20
            d.ellipse((cx - 28, b.top + 20, cx + 28, b.bottom - 20), fill=ACCENT if on else "#80868b")
        elif cls in ("CheckBox", "RadioButton") and not node.text or cls == "CheckBox" and len(node.text or "") <= 1:
            if len(node.text or "") == 1:  # day toggles
                d.ellipse(box, fill=ACCENT if node.is_checked else "#e8eaed")
                fg = "#ffffff" if node.is_checked else TEXT
            else:
                s = min(b.width, b.height) - 30
                bx = (b.left + 15, b.top + (b.height - s) // 2, b.left + 15 + s, b.top + (b.height + s) // 2)
                d.rectangle(bx, outline=ACCENT, width=5, fill=ACCENT if node.is_checked else None)
        elif cls == "RadioButton":
            r = 26
            cy = (b.top + b.bottom) // 2
            d.ellipse((b.left + 10, cy - r, b.left + 10 + 2 * r, cy + r), outline=ACCENT, width=5)
            if node.is_checked:
                d.ellipse((b.left + 22, cy - r + 12, b.left + 2 * r - 2, cy + r - 12), fill=ACCENT)
        elif cls == "SeekBar":
            cy = (b.top + b.bottom) // 2
            d.rounded_rectangle((b.left + 20, cy - 8, b.right - 20, cy + 8), radius=8, fill="#dadce0")
            frac = _progress(node.text)
            x = b.left + 20 + int((b.width - 40) * frac)
            d.rounded_rectangle((b.left + 20, cy - 8, x, cy + 8), radius=8, fill=ACCENT)
            d.ellipse((x - 24, cy - 24, x + 24, cy + 24), fill=ACCENT)
            continue
        elif cls in ("ImageButton", "ImageView") and node.content_description:
            glyph = _glyph(node.content_description)
            d.text(b.center, glyph, fill=fg if dark_bg else MUTED, font=_font(max(24, min(64, b.height // 2))),
                   anchor="mm")
            continue
        if "launcher" in pkg and cls == "TextView" and node.is_clickable and node.text:
            # app icon: coloured circle above the label
            r = min(90, b.width // 3)
            cx, cy = b.center[0], b.top + 40 + r
            d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=_colour(node.text))
            d.text((cx, cy), node.text[:1], fill="#ffffff", font=_font(r), anchor="mm")
            d.text((cx, cy + r + 40), node.text, fill="#ffffff", font=_font(36), anchor="mm")
            continue
        text = node.text if not (node.is_editable and not node.text) else None
        if node.is_editable and node.text and node.hint_text and node.text == node.hint_text:
            fg = MUTED
        if text and cls != "Switch":
            size = _guess_size(node)
            font = _font(size)
            lines = _fit(d, text, font, max(10, b.width - 10))
            lh = int(size * 1.3)
            total = lh * len(lines)
            centred = cls in ("Button", "CheckBox") or node.is_selected or rid.startswith("tab_") or \
                rid in ("message", "digital_clock", "timer_setup_time", "stopwatch_time_text", "timer_time_text",
                        "edit_time")
            y = b.top + max(0, (b.height - total) // 2)
            for ln in lines:
                if y + lh > b.bottom + lh // 2:
                    break
                if centred:
                    d.text((b.center[0], y + lh // 2), ln, fill=fg, font=font, anchor="mm")
                else:
                    d.text((b.left + 4, y + lh // 2), ln, fill=fg, font=font, anchor="lm")
                y += lh
        if rid.startswith("tab_") and node.is_selected:
            d.rounded_rectangle((b.center[0] - 80, b.top + 20, b.center[0] + 80, b.top + 70), radius=25,
                                fill="#c2e7ff")
    if highlight is not None and elements is not None:
        if not 0 <= highlight < len(elements):
            raise EnvError(f"highlight index {highlight} out of range (0..{len(elements) - 1})")
        hb = elements[highlight].bbox_pixels
        if hb is not None:
            d.rectangle((hb.left, hb.top, hb.right - 1, hb.bottom - 1), outline="#ea4335", width=8)
    if scale != 1.0:
        img = img.resize((max(1, int(w * scale)), max(1, int(h * scale))))
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


class _SafeDraw(ImageDraw.ImageDraw):
    """Skips shapes that clipping made degenerate (a row cut by a list edge) instead of raising."""

    @staticmethod
    def _ok(xy) -> bool:
        x0, y0, x1, y1 = xy
        return x1 >= x0 and y1 >= y0

    def rounded_rectangle(self, xy, *args, **kw):  # type: ignore[override]
        if self._ok(xy):
            super().rounded_rectangle(xy, *args, **kw)

    def ellipse(self, xy, *args, **kw):  # type: ignore[override]
        if self._ok(xy):
            super().ellipse(xy, *args, **kw)

    def rectangle(self, xy, *args, **kw):  # type: ignore[override]
        if self._ok(xy):
            super().rectangle(xy, *args, **kw)


def _progress(text: str | None) -> float:
    if not text:
        return 0.0
    try:
        if "/" in text:
            a, b = text.split("/", 1)
            return max(0.0, min(1.0, float(a) / float(b)))
        if text.endswith("%"):
            return max(0.0, min(1.0, float(text[:-1]) / 100))
        return max(0.0, min(1.0, float(text)))
    except ValueError:
        return 0.0


def _guess_size(node: UIElement) -> int:
    b = node.bbox_pixels
    assert b is not None
    rid = node.resource_name or ""
    if rid in ("digital_clock", "timer_setup_time", "stopwatch_time_text", "timer_time_text", "edit_time"):
        return max(40, min(140, int(b.height * 0.45)))
    if rid in ("homepage_title",):
        return 72
    if rid in ("title", "toolbar_title") and node.package_name and b.top < 300:
        return 56
    return max(26, min(46, int(b.height * 0.55)))


def _colour(name: str) -> str:
    palette = ("#1a73e8", "#5f6368", "#188038", "#e37400", "#d93025", "#9334e6", "#12b5cb", "#f9ab00")
    return palette[sum(map(ord, name)) % len(palette)]
