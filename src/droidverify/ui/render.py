"""Screenshot rendering: draw a UI tree (simulator observation or any parsed dump) to a PNG.

Works from ``UIElement`` trees, so it renders real device dumps too (class-based defaults and
icons guessed from content-desc / resource id). For simulator observations the renderer also
reads each node's ``style`` (the view that produced it: ``SimObservation.views`` or the
``views=`` argument): ``bg``, ``fg``, ``size``, ``bold``, ``shape`` (``round`` / ``pill`` /
``card``), ``align`` / ``valign``, ``border``, ``icon``, ``letter`` (avatar initials),
``progress`` (seek bars), ``app_icon`` (launcher icons) and ``scrim`` (dim what is below a
dialog). Icons are simple vector shapes drawn with Pillow's ``ImageDraw`` (``ui.icons``).

It sits in the ui layer and imports nothing of ``env``: reports of real-device runs render their
dumps without the simulator (an observation is anything with ``root``, ``elements`` and
``screen_size``; simulator styles come in as plain objects).
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Protocol

from PIL import Image, ImageDraw, ImageFont

from droidverify.errors import RenderError
from droidverify.ui.element import Bounds, UIElement
from droidverify.ui.icons import draw_icon, icon_name

BG = "#ffffff"
ACCENT = "#1a73e8"
TEXT = "#202124"
MUTED = "#5f6368"
ICON = "#444746"
DIVIDER = "#e3e3e3"
SCRIM_ALPHA = 0.42  # how much a dialog darkens the screen below it
_FONT_SCALE = 0.9  # DejaVu is wider than Roboto; the layout engine assumes ~0.52 em per glyph
_EMPTY: dict[str, Any] = {}


# ---- fonts ------------------------------------------------------------------------------------
# DejaVu has no CJK or Hangul glyphs: text with them is drawn with the first of these found, so a
# device report of a Chinese, Japanese or Korean phone is legible where such a font is installed
# (Debian: fonts-noto-cjk, fonts-wqy-microhei, fonts-nanum).
CJK_FONTS = ("NotoSansCJK-Regular.ttc", "NotoSansCJKsc-Regular.otf", "wqy-microhei.ttc", "wqy-zenhei.ttc",
             "DroidSansFallbackFull.ttf", "NanumGothic.ttf")
_CJK_RE = re.compile("[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")


def needs_cjk_font(text: str | None) -> bool:
    """Whether ``text`` has characters DejaVu Sans cannot draw (CJK ideographs, kana, Hangul,
    full-width forms)."""
    return bool(text) and _CJK_RE.search(text) is not None


def _font(size: int, bold: bool = False, text: str | None = None) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    return _font_for(max(8, int(size)), bold, needs_cjk_font(text))


@lru_cache(maxsize=128)
def _font_for(size: int, bold: bool, cjk: bool) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    names = (CJK_FONTS if cjk else ()) + (("DejaVuSans-Bold.ttf",) if bold else ("DejaVuSans.ttf",))
    for name in names:
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default(size=size)  # Pillow's bundled font (no system fonts installed)


def _short(cls: str | None) -> str:
    return (cls or "").rsplit(".", 1)[-1]


def _fit(draw: ImageDraw.ImageDraw, text: str, font: Any, width: int) -> list[str]:
    """Greedy word wrap; hard newlines start new lines; over-long words are cut by characters."""
    lines: list[str] = []
    for para in text.split("\n"):
        cur = ""
        for w in para.split(" "):
            cand = f"{cur} {w}" if cur else w
            if draw.textlength(cand, font=font) <= width:
                cur = cand
                continue
            if cur:
                lines.append(cur)
            cur = w
            while cur and draw.textlength(cur, font=font) > width and len(cur) > 1:
                n = max(1, int(len(cur) * width / max(1.0, draw.textlength(cur, font=font))))
                lines.append(cur[:n])
                cur = cur[n:]
        lines.append(cur)
    return lines or [""]


def _ellipsize(draw: ImageDraw.ImageDraw, line: str, font: Any, width: int) -> str:
    if draw.textlength(line, font=font) <= width:
        return line
    while line and draw.textlength(line + "…", font=font) > width:
        line = line[:-1]
    return line + "…"


# ---- colours ------------------------------------------------------------------------------------
def _rgb(c: str) -> tuple[int, int, int]:
    c = c.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


def _is_dark(c: str | None) -> bool:
    if not c or not c.startswith("#") or len(c) != 7:
        return False
    r, g, b = _rgb(c)
    return 0.299 * r + 0.587 * g + 0.114 * b < 140


def _tint(c: str, f: float) -> str:
    """Mix colour ``c`` with white (f=0 -> c, f=1 -> white)."""
    r, g, b = _rgb(c)
    return "#" + "".join(f"{int(v + (255 - v) * f):02x}" for v in (r, g, b))


def _colour(name: str) -> str:
    palette = ("#1a73e8", "#5f6368", "#188038", "#e37400", "#d93025", "#9334e6", "#12b5cb", "#f9ab00")
    return palette[sum(map(ord, name)) % len(palette)]


# ---- the renderer ---------------------------------------------------------------------------------
class Screen(Protocol):
    """What ``render_png`` needs of an observation (``droidverify.env.Observation`` is one; the ui
    layer does not import env, so any object with these attributes renders)."""

    @property
    def root(self) -> UIElement: ...

    @property
    def elements(self) -> list[UIElement]: ...

    screen_size: tuple[int, int]


def render_png(source: Screen | UIElement, *, size: tuple[int, int] = (1080, 2400),
               highlight: int | None = None, scale: float = 1.0, views: Sequence[Any] | None = None,
               optimize: bool = False) -> bytes:
    """PNG bytes of the screen; ``highlight`` outlines element ``index`` of ``observation.elements``.

    ``source`` is an observation (simulator or device) or a bare ``UIElement`` tree (a parsed
    dump). ``views`` (a list indexed by ``UIElement.node_id`` of objects with a ``style`` dict and a
    ``cls``) supplies styles; simulator observations carry theirs. ``optimize`` spends extra time
    for a smaller file (documentation images). Bad arguments raise :class:`RenderError`.
    """
    elements: list[UIElement] | None
    if isinstance(source, UIElement):
        root, elements = source, None
    elif all(hasattr(source, a) for a in ("root", "elements", "screen_size")):
        root, size, elements = source.root, source.screen_size, source.elements
        if views is None:
            views = getattr(source, "views", None)
    else:
        raise RenderError(f"render_png needs an Observation or UIElement, got {type(source).__name__}")
    w, h = size
    if scale <= 0:
        raise RenderError(f"render_png scale must be > 0, got {scale}")
    img = _Renderer(root, (w, h), views).run()
    if highlight is not None and elements is not None:
        if not 0 <= highlight < len(elements):
            raise RenderError(f"highlight index {highlight} out of range (0..{len(elements) - 1})")
        hb = elements[highlight].bbox_pixels
        if hb is not None:
            ImageDraw.Draw(img).rectangle((hb.left, hb.top, hb.right - 1, hb.bottom - 1), outline="#ea4335",
                                          width=8)
    if scale != 1.0:
        img = img.resize((max(1, int(w * scale)), max(1, int(h * scale))), Image.Resampling.BILINEAR
                         if scale < 1 else Image.Resampling.BICUBIC, reducing_gap=None)
    buf = io.BytesIO()
    if optimize:
        img.save(buf, format="PNG", optimize=True)
    else:
        img.save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


class _Renderer:
    def __init__(self, root: UIElement, size: tuple[int, int], views: Sequence[Any] | None) -> None:
        self.root, self.size, self.views = root, size, views
        self.img = Image.new("RGB", size, BG)
        self.d = _SafeDraw(self.img)
        self.dark: dict[int, bool] = {}  # node_id -> drawn on a dark background

    def view(self, node: UIElement) -> Any:
        vs = self.views
        if vs is None or not 0 <= node.node_id < len(vs):
            return None
        v = vs[node.node_id]
        if getattr(v, "cls", None) != node.class_name:  # views from another screen: ignore
            return None
        return v

    def style(self, node: UIElement) -> dict[str, Any]:
        v = self.view(node)
        return (getattr(v, "style", None) or _EMPTY) if v is not None else _EMPTY

    def run(self) -> Image.Image:
        for win in self.root.children:
            self.window(win)
        return self.img

    # windows ------------------------------------------------------------------------------------
    def window(self, win: UIElement) -> None:
        st = self.style(win)
        pkg = win.package_name or ""
        rid = win.resource_name or ""
        is_dialog = st.get("scrim") or (self.views is None and win.window > 0 and pkg != "com.android.systemui"
                                        and rid not in ("message",) and _short(win.class_name) != "ListView")
        if is_dialog:
            self.scrim()
        b = win.bbox_pixels
        if st.get("shadow") or _short(win.class_name) == "ListView":
            self.shadow(b, 24)
        if pkg == "com.android.systemui" and self.views is None:
            if rid == "status_bar":
                self.d.rectangle(_box(b), fill="#202124")
            elif rid == "navigation_bar_frame":
                self.d.rectangle(_box(b), fill="#000000")
        if self.views is None:
            self.xml_window_bg(win, b, pkg, rid, bool(is_dialog))
        self.node(win, dark=pkg == "com.android.systemui" or "launcher" in pkg)

    # XML-only fallbacks ---------------------------------------------------------------------------
    # Without the simulator's styles nothing paints the surfaces that white text sits on (wallpaper,
    # toast) or the card a dialog's text sits on; these draw them from the dump alone. Only called
    # when ``views is None`` so live renders never pass through them.
    def xml_window_bg(self, win: UIElement, b: Bounds | None, pkg: str, rid: str, is_dialog: bool) -> None:
        if b is None or b.width <= 0 or b.height <= 0:
            return
        if "launcher" in pkg:
            self.d.rectangle(_box(b), fill=WALLPAPER)
        elif pkg == "com.android.systemui" and win.window > 0 and rid not in ("status_bar", "navigation_bar_frame"):
            self.d.rounded_rectangle(_box(b), radius=min(b.height // 2, 60), fill=TOAST_BG)  # a toast
        elif is_dialog:
            self.shadow(b, 28)
            self.d.rounded_rectangle(_box(b), radius=28, fill=BG)

    def xml_label(self, n: UIElement, b: Bounds, cls: str, dark: bool) -> None:
        """Text for a node the dump describes only by content-desc (or an empty field's hint)."""
        if n.text:
            return
        if n.is_editable or cls == "EditText":
            if n.hint_text:  # empty field: its hint in grey, as Android shows it
                self.text(dataclasses.replace(n, text=n.hint_text), b, _HINT_STYLE, cls, dark, inset=32)
            return
        desc = (n.content_description or "").strip()
        if not desc or _has_words(n.children):
            return
        self.text(dataclasses.replace(n, text=desc), b, _EMPTY, cls, dark)

    def xml_checked(self, n: UIElement, b: Bounds, cls: str) -> None:
        """A checked checkable with no widget of its own (chip, CheckedTextView): tint + check mark."""
        if not (n.is_checkable and n.is_checked) or cls in ("Switch", "CheckBox", "RadioButton"):
            return
        self.d.rounded_rectangle(_box(b, 2), radius=min(24, b.height // 2), fill=_tint(ACCENT, 0.8))
        s = max(16, min(48, b.height // 2))
        draw_icon(self.d, "check", (b.right - s - 12, (b.top + b.bottom - s) / 2, s), ACCENT)

    def scrim(self) -> None:
        black = Image.new("RGB", self.size, "#000000")
        self.img = Image.blend(self.img, black, SCRIM_ALPHA)
        self.d = _SafeDraw(self.img)

    def shadow(self, b: Bounds | None, radius: int) -> None:
        if b is None:
            return
        for i, col in ((10, "#d6d6d6"), (5, "#c4c4c4")):
            self.d.rounded_rectangle((b.left - 2, b.top + i - 4, b.right + 2, b.bottom + i), radius=radius,
                                     fill=col)

    # nodes --------------------------------------------------------------------------------------
    def node(self, n: UIElement, *, dark: bool) -> None:
        b = n.bbox_pixels
        if b is None or b.width <= 0 or b.height <= 0:
            return
        st = self.style(n)
        cls = _short(n.class_name)
        bg = st.get("bg", _DEFAULT_BG.get(cls))
        if cls == "Button" and "bg" not in st and self.views is None:
            bg = "#e8f0fe"
        if bg:
            self.background(n, b, bg, st, cls)
            dark = _is_dark(bg)
        if st.get("border") and cls not in ("EditText",):
            self.d.rounded_rectangle(_box(b), radius=12 if cls != "TextView" else 0, outline=DIVIDER, width=2)
        if self.views is None:
            self.xml_checked(n, b, cls)
        drawn = self.widget(n, b, st, cls, dark)
        if not drawn:
            self.text(n, b, st, cls, dark)
        if self.views is None and (not drawn or cls == "EditText"):
            self.xml_label(n, b, cls, dark)
        for c in n.children:
            self.node(c, dark=dark)
        if n.is_scrollable or cls in ("RecyclerView", "ListView"):
            self.dividers(n)
        if (n.resource_name or "").startswith("tab_") and st.get("icon") is None and n.is_selected:
            self.d.rectangle((b.left + 40, b.bottom - 8, b.right - 40, b.bottom), fill=ACCENT)

    def background(self, n: UIElement, b: Bounds, bg: str, st: dict[str, Any], cls: str) -> None:
        shape = st.get("shape")
        box = _box(b)
        if cls == "FloatingActionButton":
            self.d.rounded_rectangle((b.left + 2, b.top + 8, b.right + 2, b.bottom + 6), radius=52, fill="#c6c6c6")
            self.d.rounded_rectangle(box, radius=52, fill=bg)
        elif shape == "round":
            s = min(b.width, b.height)
            cx, cy = (b.left + b.right) // 2, (b.top + b.bottom) // 2
            self.d.ellipse((cx - s // 2, cy - s // 2, cx + s // 2 - 1, cy + s // 2 - 1), fill=bg)
        elif shape == "pill" or cls == "Button":
            self.d.rounded_rectangle(box, radius=min(b.height // 2, b.width // 2), fill=bg)
        elif shape == "card" or cls == "CardView":
            self.d.rounded_rectangle(box, radius=min(40, b.height // 2, b.width // 2), fill=bg)
        else:
            self.d.rectangle(box, fill=bg)

    def widget(self, n: UIElement, b: Bounds, st: dict[str, Any], cls: str, dark: bool) -> bool:
        """Class-specific drawing; True when the node's text was drawn here too."""
        d = self.d
        if "app_icon" in st:
            self.app_icon(n.text or "", b, st["app_icon"] or _colour(n.text or "?"))
            return True
        if self.views is None and "launcher" in (n.package_name or "") and cls == "TextView" and n.is_clickable \
                and (n.text or n.content_description):
            self.xml_app_icon(n, b)
            return True
        if cls == "Switch":
            self.switch(b, n.is_checked, n.is_enabled)
            return True
        if cls == "SeekBar":
            cy = (b.top + b.bottom) // 2
            frac = st.get("progress")
            frac = _progress(n.text) if frac is None else max(0.0, min(1.0, float(frac)))
            x = b.left + 30 + int((b.width - 60) * frac)
            d.rounded_rectangle((b.left + 30, cy - 8, b.right - 30, cy + 8), radius=8, fill="#d3e3fd")
            d.rounded_rectangle((b.left + 30, cy - 8, x, cy + 8), radius=8, fill=ACCENT)
            d.ellipse((x - 26, cy - 26, x + 26, cy + 26), fill=ACCENT)
            return True
        if cls == "EditText":
            focused = n.is_focused
            if st.get("border") or self.views is None:
                d.rounded_rectangle(_box(b, 4), radius=14, outline=ACCENT if focused else "#79747e",
                                    width=5 if focused else 2)
            self.text(n, b, st, cls, dark, inset=32, cursor=focused)
            return True
        if cls in ("CheckBox", "RadioButton") and not ("bg" in st or st.get("shape")):
            label = n.text or ""
            s = min(64, b.height - 24)
            cy = (b.top + b.bottom) // 2
            x0 = b.left + 14 if label else (b.left + b.right - s) // 2
            box = (x0, cy - s // 2, x0 + s, cy + s // 2)
            if cls == "CheckBox":
                if n.is_checked:
                    d.rounded_rectangle(box, radius=8, fill=ACCENT)
                    draw_icon(d, "check", (box[0] + s * 0.12, box[1] + s * 0.12, s * 0.76), "#ffffff")
                else:
                    d.rounded_rectangle(box, radius=8, outline=MUTED, width=5)
            else:
                d.ellipse(box, outline=ACCENT if n.is_checked else MUTED, width=5)
                if n.is_checked:
                    q = s // 4
                    d.ellipse((box[0] + q, box[1] + q, box[2] - q, box[3] - q), fill=ACCENT)
            if label:
                self.text(n, b, st, cls, dark, inset=s + 48)
            return True
        icon = None
        if cls in ("ImageButton", "ImageView", "FloatingActionButton") or st.get("icon"):
            icon = icon_name(st, n.content_description or "", n.resource_name or "")
        if icon == "avatar" and st.get("letter"):
            s = min(b.width, b.height)
            if not st.get("bg"):
                cx, cy = b.center
                d.ellipse((cx - s // 2, cy - s // 2, cx + s // 2, cy + s // 2), fill=ACCENT)
            letter = str(st["letter"])[:2]
            d.text(b.center, letter, fill=st.get("fg", "#ffffff"), font=_font(int(s * 0.45), True, letter),
                   anchor="mm")
            return True
        if icon is not None or (cls in ("ImageButton", "ImageView") and (n.content_description or st.get("letter"))):
            has_label = bool(n.text) and cls not in ("ImageButton", "ImageView", "FloatingActionButton")
            colour = st.get("fg") if cls not in ("TextView",) else None
            if colour is None:
                if cls == "FloatingActionButton" or (st.get("bg") and _is_dark(st.get("bg"))) or dark:
                    colour = "#ffffff"
                elif icon == "star":
                    colour = "#f9ab00"
                else:
                    colour = ICON
            if has_label:  # bottom tab: icon above its label, pill behind the selected one
                s = 60
                cx = b.center[0]
                top = b.top + max(12, (b.height - 150) // 2)
                if n.is_selected:
                    d.rounded_rectangle((cx - 80, top - 8, cx + 80, top + s + 8), radius=38, fill="#c2e7ff")
                if icon is not None:
                    draw_icon(d, icon, (cx - s / 2, top, s), TEXT if n.is_selected else ICON)
                font = _font(int(st.get("size", 36) * _FONT_SCALE), bool(n.is_selected), n.text)
                d.text((cx, top + s + 50), n.text or "", fill=TEXT if n.is_selected else MUTED, font=font, anchor="mm")
                return True
            s = min(b.width, b.height) * (0.42 if cls in ("ImageButton", "FloatingActionButton") else 0.7)
            s = max(16, min(s, 96))
            cx, cy = b.center
            if icon is None:  # unknown icon: a tinted disc with the first letter
                g = str(st.get("letter") or (n.content_description or "?"))[:1].upper()
                d.ellipse((cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2), fill=_tint(ACCENT, 0.8))
                d.text((cx, cy), g, fill=ACCENT, font=_font(int(s * 0.55), True, g), anchor="mm")
            elif (n.resource_name or "") == "icon" and cls == "ImageView" and not st.get("bg"):
                r = min(b.height, b.width) * 0.4  # list-row icon: white glyph on a coloured disc
                d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=_colour(str(st.get("icon") or icon)))
                draw_icon(d, icon, (cx - r * 0.55, cy - r * 0.55, r * 1.1), "#ffffff")
            elif icon == "battery":
                draw_icon(d, icon, (cx - s / 2, cy - s / 2, s), colour,
                          level=_battery_level(n.content_description or ""))
            else:
                draw_icon(d, icon, (cx - s / 2, cy - s / 2, s), colour)
            return True
        return False

    def app_icon(self, name: str, b: Bounds, colour: str, label_size: int = 34) -> None:
        d = self.d
        r = min(84, b.width // 3)
        cx, cy = b.center[0], b.top + 36 + r
        d.ellipse((cx - r, cy - r + 6, cx + r, cy + r + 6), fill="#2b4a6e")
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=colour)
        d.text((cx, cy), (name or "?")[:1], fill="#ffffff", font=_font(int(r * 0.95), True, name), anchor="mm")
        lbl = _ellipsize(d, name, _font(label_size, text=name), b.width - 8)
        d.text((cx, cy + r + 44), lbl, fill="#ffffff", font=_font(label_size, text=name), anchor="mm")

    def xml_app_icon(self, n: UIElement, b: Bounds) -> None:
        """Launcher icon from a dump: disc + letter, label below; small cells (old phones) shrink to fit."""
        name = n.text or n.content_description or "?"
        r = min(84, b.width // 3)
        if b.top + 36 + 2 * r + 44 + 20 <= b.bottom:
            self.app_icon(name, b, _colour(name))
            return
        d = self.d  # a cell too short for the simulator's layout: disc in the upper part, label under it
        size = max(10, min(34, b.height // 6))
        r = max(6, min(b.width // 3, (b.height - size - 16) // 2 - 4))
        cx, cy = b.center[0], b.top + 4 + r
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=_colour(name))
        d.text((cx, cy), name[:1], fill="#ffffff", font=_font(int(r * 0.95), True, name), anchor="mm")
        lbl = _ellipsize(d, name, _font(size, text=name), b.width - 4)
        d.text((cx, min(b.bottom - size // 2 - 2, cy + r + 6 + size // 2)), lbl, fill="#ffffff",
               font=_font(size, text=name),
               anchor="mm")

    def switch(self, b: Bounds, on: bool, enabled: bool) -> None:
        d = self.d
        tw, th = min(b.width - 20, 130), min(b.height - 20, 78)
        x1 = b.right - (b.width - tw) // 2
        cy = (b.top + b.bottom) // 2
        track = (x1 - tw, cy - th // 2, x1, cy + th // 2)
        if on:
            d.rounded_rectangle(track, radius=th // 2, fill=ACCENT if enabled else "#bdc1c6")
            r = th // 2 - 9
            cx = track[2] - th // 2
            d.ellipse((cx - r, cy - r, cx + r, cy + r), fill="#ffffff")
            draw_icon(d, "check", (cx - r * 0.6, cy - r * 0.6, r * 1.2), ACCENT)
        else:
            d.rounded_rectangle(track, radius=th // 2, fill="#e7e0ec", outline="#79747e", width=4)
            r = th // 2 - 20
            cx = track[0] + th // 2
            d.ellipse((cx - r, cy - r, cx + r, cy + r), fill="#79747e")

    def text(self, n: UIElement, b: Bounds, st: dict[str, Any], cls: str, dark: bool, *, inset: int = 0,
             cursor: bool = False) -> None:
        text = n.text or ""
        hint_shown = n.is_editable and (not text or (n.hint_text is not None and text == n.hint_text))
        if not text:
            if cursor:
                cy = (b.top + b.bottom) // 2
                self.d.rectangle((b.left + inset, cy - 28, b.left + inset + 3, cy + 28), fill=ACCENT)
            return
        if n.is_password and not hint_shown:
            text = "•" * len(text)
        fg = st.get("fg")
        if fg is None:
            if hint_shown:
                fg = MUTED
            elif cls == "Button":
                fg = "#ffffff" if dark else ACCENT
            else:
                fg = "#ffffff" if dark else TEXT
        if not n.is_enabled and cls != "Button":
            fg = "#9aa0a6"
        size = st.get("size") or _guess_size(n)
        font = _font(int(size * _FONT_SCALE), bool(st.get("bold")) or cls == "Button", text)
        v = self.view(n)
        pad = getattr(v, "pad", None) or (0, 0, 0, 0)
        if not inset and pad != (0, 0, 0, 0):  # text sits inside the view's padding
            b = Bounds(min(b.right, b.left + pad[0]), min(b.bottom, b.top + pad[1]), max(b.left, b.right - pad[2]),
                       max(b.top, b.bottom - pad[3]))
        width = max(10, b.width - 2 * inset - (8 if not inset else 0))
        lines = _fit(self.d, text, font, width)
        lh = int(size * 1.3)
        room = max(1, (b.height + lh // 3) // lh)
        if len(lines) > room:
            lines = lines[:room]
            lines[-1] = _ellipsize(self.d, lines[-1] + "…", font, width)
        total = lh * len(lines)
        align = st.get("align") or ("center" if cls in ("Button",) or (
            self.views is None and (n.is_selected or (n.resource_name or "") in _CENTRED)) else "left")
        valign = st.get("valign", "center")
        if valign == "top":
            y = b.top
        elif valign == "bottom":
            y = b.bottom - total - 12
        else:
            y = b.top + (b.height - total) // 2
        x_left = b.left + (inset or 4)
        for ln in lines:
            if align == "center":
                self.d.text((b.left + b.width // 2, y + lh // 2), ln, fill=fg, font=font, anchor="mm")
            elif align == "right":
                self.d.text((b.right - (inset or 4), y + lh // 2), ln, fill=fg, font=font, anchor="rm")
            else:
                self.d.text((x_left, y + lh // 2), ln, fill=fg, font=font, anchor="lm")
            y += lh
        if cursor and not hint_shown:
            end = x_left + self.d.textlength(lines[-1], font=font) + 4
            cy = y - lh // 2
            self.d.rectangle((end, cy - size * 0.5, end + 3, cy + size * 0.5), fill=ACCENT)

    def dividers(self, n: UIElement) -> None:
        """Hairlines between the rows of a list (not between cards or after the last row)."""
        kids = n.children
        for a, c in itertools.pairwise(kids):
            if self._has_bg(a) or self._has_bg(c) or _short(a.class_name) == "CardView":
                continue
            ab, cb = a.bbox_pixels, c.bbox_pixels
            if ab is None or cb is None or ab.height < 100 or cb.top < ab.bottom - 2:
                continue
            self.d.rectangle((ab.left + 48, ab.bottom - 2, ab.right - 24, ab.bottom - 1), fill=DIVIDER)


    def _has_bg(self, n: UIElement, depth: int = 3) -> bool:
        if self.style(n).get("bg"):
            return True
        return depth > 0 and any(self._has_bg(c, depth - 1) for c in n.children)


_DEFAULT_BG = {"CardView": "#f1f3f4", "FloatingActionButton": ACCENT}
WALLPAPER = "#3b5f8a"  # launcher background in XML-only renders (the simulator's wallpaper colour)
TOAST_BG = "#303134"
_HINT_STYLE: dict[str, Any] = {"fg": MUTED}


def _has_words(nodes: Sequence[UIElement]) -> bool:
    """Whether any of ``nodes`` or their descendants carries text or a content-desc."""
    return any(c.text or c.content_description or _has_words(c.children) for c in nodes)
_CENTRED = frozenset(("message", "digital_clock", "timer_setup_time", "stopwatch_time_text", "timer_time_text",
                      "edit_time"))


def _box(b: Bounds | None, inset: int = 0) -> tuple[int, int, int, int]:
    assert b is not None
    return b.left + inset, b.top + inset, b.right - 1 - inset, b.bottom - 1 - inset


class _SafeDraw(ImageDraw.ImageDraw):
    """Skips shapes that clipping made degenerate (a row cut by a list edge) instead of raising."""

    @staticmethod
    def _ok(xy) -> bool:
        x0, y0, x1, y1 = xy
        return x1 >= x0 and y1 >= y0

    def rounded_rectangle(self, xy, radius=0, *args, **kw):  # type: ignore[override]
        if self._ok(xy):
            x0, y0, x1, y1 = xy
            radius = max(0, min(radius, int((x1 - x0) / 2), int((y1 - y0) / 2)))
            super().rounded_rectangle(xy, radius, *args, **kw)

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
    except (ValueError, ZeroDivisionError):
        return 0.0


def _battery_level(desc: str) -> float:
    for part in desc.split():
        if part.isdigit():
            return int(part) / 100
    return 0.85


def _guess_size(node: UIElement) -> int:
    b = node.bbox_pixels
    assert b is not None
    rid = node.resource_name or ""
    if rid in _CENTRED and rid != "message":
        return max(40, min(140, int(b.height * 0.45)))
    if rid in ("homepage_title",):
        return 72
    if rid in ("title", "toolbar_title") and node.package_name and b.top < 300:
        return 56
    return max(26, min(46, int(b.height * 0.55)))
