"""Icons for the screenshot renderer: simple vector shapes drawn with Pillow's ``ImageDraw``.

``draw_icon(draw, name, (left, top, size), colour)`` draws one; ``icon_name(style, desc, rid)``
picks one for a node: the simulator's ``style["icon"]``, else a keyword of its content-desc or
resource id, so icons of real device dumps are guessed from what the dump says.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any

from PIL import ImageDraw

__all__ = ["ICON_NAMES", "IconFn", "draw_icon", "icon_name"]

IconFn = Callable[[ImageDraw.ImageDraw, Callable[[float, float], tuple[float, float]], float, str], None]
_ICONS: dict[str, IconFn] = {}


def _icon(*names: str) -> Callable[[IconFn], IconFn]:
    def deco(fn: IconFn) -> IconFn:
        for n in names:
            _ICONS[n] = fn
        return fn
    return deco


def _lw(s: float) -> int:
    return max(2, int(s / 11))


@_icon("back", "arrow_back")
def _i_back(d, p, s, c):
    w = _lw(s)
    d.line([p(0.15, 0.5), p(0.88, 0.5)], fill=c, width=w)
    d.line([p(0.48, 0.17), p(0.15, 0.5), p(0.48, 0.83)], fill=c, width=w, joint="curve")


@_icon("forward", "next", "chevron_right")
def _i_forward(d, p, s, c):
    d.line([p(0.35, 0.15), p(0.7, 0.5), p(0.35, 0.85)], fill=c, width=_lw(s), joint="curve")


@_icon("chevron_left")
def _i_cleft(d, p, s, c):
    d.line([p(0.65, 0.15), p(0.3, 0.5), p(0.65, 0.85)], fill=c, width=_lw(s), joint="curve")


@_icon("up")
def _i_up(d, p, s, c):
    d.line([p(0.15, 0.65), p(0.5, 0.3), p(0.85, 0.65)], fill=c, width=_lw(s), joint="curve")


@_icon("down")
def _i_down(d, p, s, c):
    d.line([p(0.15, 0.35), p(0.5, 0.7), p(0.85, 0.35)], fill=c, width=_lw(s), joint="curve")


@_icon("more")
def _i_more(d, p, s, c):
    r = s * 0.085
    for fy in (0.2, 0.5, 0.8):
        x, y = p(0.5, fy)
        d.ellipse((x - r, y - r, x + r, y + r), fill=c)


@_icon("menu")
def _i_menu(d, p, s, c):
    for fy in (0.25, 0.5, 0.75):
        d.line([p(0.12, fy), p(0.88, fy)], fill=c, width=_lw(s))


@_icon("apps")
def _i_apps(d, p, s, c):
    r = s * 0.07
    for fx in (0.2, 0.5, 0.8):
        for fy in (0.2, 0.5, 0.8):
            x, y = p(fx, fy)
            d.ellipse((x - r, y - r, x + r, y + r), fill=c)


@_icon("search")
def _i_search(d, p, s, c):
    w = _lw(s)
    (x0, y0), (x1, y1) = p(0.1, 0.1), p(0.66, 0.66)
    d.ellipse((x0, y0, x1, y1), outline=c, width=w)
    d.line([p(0.6, 0.6), p(0.92, 0.92)], fill=c, width=w + 1)


@_icon("add", "plus")
def _i_add(d, p, s, c):
    w = _lw(s)
    d.line([p(0.5, 0.12), p(0.5, 0.88)], fill=c, width=w)
    d.line([p(0.12, 0.5), p(0.88, 0.5)], fill=c, width=w)


@_icon("minus", "remove")
def _i_minus(d, p, s, c):
    d.line([p(0.12, 0.5), p(0.88, 0.5)], fill=c, width=_lw(s))


@_icon("check", "save", "done")
def _i_check(d, p, s, c):
    d.line([p(0.12, 0.52), p(0.4, 0.8), p(0.9, 0.25)], fill=c, width=_lw(s) + 1, joint="curve")


@_icon("close", "cancel", "clear")
def _i_close(d, p, s, c):
    w = _lw(s)
    d.line([p(0.18, 0.18), p(0.82, 0.82)], fill=c, width=w)
    d.line([p(0.82, 0.18), p(0.18, 0.82)], fill=c, width=w)


@_icon("delete", "trash")
def _i_delete(d, p, s, c):
    w = _lw(s)
    d.line([p(0.12, 0.22), p(0.88, 0.22)], fill=c, width=w)
    d.line([p(0.38, 0.22), p(0.38, 0.1), p(0.62, 0.1), p(0.62, 0.22)], fill=c, width=w)
    d.polygon([p(0.22, 0.28), p(0.78, 0.28), p(0.72, 0.92), p(0.28, 0.92)], outline=c, width=w)
    for fx in (0.42, 0.58):
        d.line([p(fx, 0.4), p(fx, 0.8)], fill=c, width=max(1, w - 1))


def _star_points(p, cx: float = 0.5, cy: float = 0.53, r1: float = 0.47, r2: float = 0.2):
    pts = []
    for i in range(10):
        r = r1 if i % 2 == 0 else r2
        a = -math.pi / 2 + i * math.pi / 5
        pts.append(p(cx + r * math.cos(a), cy + r * math.sin(a)))
    return pts


@_icon("star", "favorite", "starred")
def _i_star(d, p, s, c):
    d.polygon(_star_points(p), fill=c)


@_icon("star_border")
def _i_star_border(d, p, s, c):
    d.polygon(_star_points(p), outline=c, width=_lw(s))


@_icon("edit", "rename", "pencil")
def _i_edit(d, p, s, c):
    d.polygon([p(0.15, 0.85), p(0.2, 0.65), p(0.68, 0.17), p(0.83, 0.32), p(0.35, 0.8)], fill=c)
    d.line([p(0.12, 0.92), p(0.88, 0.92)], fill=c, width=max(1, _lw(s) - 1))


@_icon("home")
def _i_home(d, p, s, c):
    w = _lw(s)
    d.line([p(0.1, 0.48), p(0.5, 0.12), p(0.9, 0.48)], fill=c, width=w, joint="curve")
    d.line([p(0.22, 0.4), p(0.22, 0.88), p(0.78, 0.88), p(0.78, 0.4)], fill=c, width=w)


@_icon("nav_back")
def _i_nav_back(d, p, s, c):
    d.polygon([p(0.72, 0.15), p(0.72, 0.85), p(0.18, 0.5)], outline=c, width=_lw(s))


@_icon("nav_home")
def _i_nav_home(d, p, s, c):
    (x0, y0), (x1, y1) = p(0.15, 0.15), p(0.85, 0.85)
    d.ellipse((x0, y0, x1, y1), outline=c, width=_lw(s))


@_icon("nav_recents", "recents")
def _i_nav_recents(d, p, s, c):
    (x0, y0), (x1, y1) = p(0.2, 0.2), p(0.8, 0.8)
    d.rounded_rectangle((x0, y0, x1, y1), radius=s * 0.08, outline=c, width=_lw(s))


@_icon("send")
def _i_send(d, p, s, c):
    d.polygon([p(0.1, 0.12), p(0.92, 0.5), p(0.1, 0.88), p(0.2, 0.5)], fill=c)


@_icon("phone", "call", "action_call")
def _i_phone(d, p, s, c):
    # a handset: thick arc bulging to the lower left with rounded ear/mouth pieces
    (x0, y0), (x1, y1) = p(0.2, -0.4), p(1.4, 0.8)
    d.arc((x0, y0, x1, y1), 90, 180, fill=c, width=max(3, int(s * 0.2)))
    for fx, fy in ((0.2, 0.2), (0.8, 0.8)):
        x, y = p(fx, fy)
        r = s * 0.15
        d.ellipse((x - r, y - r, x + r, y + r), fill=c)


@_icon("bell", "notifications")
def _i_bell(d, p, s, c):
    d.chord((*p(0.2, 0.12), *p(0.8, 0.9)), 180, 360, fill=c)
    d.rectangle((*p(0.2, 0.5), *p(0.8, 0.75)), fill=c)
    d.rectangle((*p(0.1, 0.72), *p(0.9, 0.8)), fill=c)
    d.ellipse((*p(0.42, 0.8), *p(0.58, 0.94)), fill=c)


@_icon("sound", "volume", "speaker")
def _i_sound(d, p, s, c):
    d.polygon([p(0.08, 0.38), p(0.28, 0.38), p(0.52, 0.15), p(0.52, 0.85), p(0.28, 0.62), p(0.08, 0.62)], fill=c)
    d.arc((*p(0.35, 0.25), *p(0.85, 0.75)), -50, 50, fill=c, width=_lw(s))


@_icon("display", "brightness", "sun")
def _i_sun(d, p, s, c):
    for i in range(8):
        a = i * math.pi / 4
        d.line([p(0.5 + 0.32 * math.cos(a), 0.5 + 0.32 * math.sin(a)),
                p(0.5 + 0.46 * math.cos(a), 0.5 + 0.46 * math.sin(a))], fill=c, width=_lw(s))
    d.ellipse((*p(0.28, 0.28), *p(0.72, 0.72)), fill=c)


@_icon("location", "pin")
def _i_pin(d, p, s, c):
    d.ellipse((*p(0.2, 0.06), *p(0.8, 0.66)), fill=c)
    d.polygon([p(0.24, 0.5), p(0.76, 0.5), p(0.5, 0.95)], fill=c)
    r = s * 0.1
    x, y = p(0.5, 0.36)
    d.ellipse((x - r, y - r, x + r, y + r), fill="#ffffff")


@_icon("security", "lock", "safety", "vpn")
def _i_lock(d, p, s, c):
    d.arc((*p(0.28, 0.08), *p(0.72, 0.6)), 180, 360, fill=c, width=_lw(s) + 1)
    d.line([p(0.28, 0.34), p(0.28, 0.45)], fill=c, width=_lw(s) + 1)
    d.line([p(0.72, 0.34), p(0.72, 0.45)], fill=c, width=_lw(s) + 1)
    d.rounded_rectangle((*p(0.16, 0.42), *p(0.84, 0.92)), radius=s * 0.06, fill=c)


@_icon("passwords", "key")
def _i_key(d, p, s, c):
    w = _lw(s) + 1
    d.ellipse((*p(0.06, 0.3), *p(0.46, 0.7)), outline=c, width=w)
    d.line([p(0.46, 0.5), p(0.94, 0.5)], fill=c, width=w)
    d.line([p(0.8, 0.5), p(0.8, 0.68)], fill=c, width=w)
    d.line([p(0.66, 0.5), p(0.66, 0.64)], fill=c, width=w)


@_icon("storage", "dns", "sim", "datasaver")
def _i_storage(d, p, s, c):
    for fy in (0.12, 0.4, 0.68):
        d.rounded_rectangle((*p(0.1, fy), *p(0.9, fy + 0.22)), radius=s * 0.04, fill=c)


@_icon("connected", "devices", "nearby", "cast", "nfc", "car", "print")
def _i_devices(d, p, s, c):
    w = _lw(s)
    d.rounded_rectangle((*p(0.06, 0.18), *p(0.62, 0.82)), radius=s * 0.05, outline=c, width=w)
    d.rounded_rectangle((*p(0.68, 0.36), *p(0.94, 0.82)), radius=s * 0.05, fill=c)


@_icon("hotspot")
def _i_hotspot(d, p, s, c):
    w = _lw(s)
    d.ellipse((*p(0.42, 0.42), *p(0.58, 0.58)), fill=c)
    d.arc((*p(0.25, 0.25), *p(0.75, 0.75)), 200, 340, fill=c, width=w)
    d.arc((*p(0.08, 0.08), *p(0.92, 0.92)), 200, 340, fill=c, width=w)


@_icon("accessibility", "wellbeing", "digital")
def _i_accessibility(d, p, s, c):
    w = _lw(s) + 1
    d.ellipse((*p(0.4, 0.04), *p(0.6, 0.24)), fill=c)
    d.line([p(0.12, 0.34), p(0.88, 0.34)], fill=c, width=w)
    d.line([p(0.5, 0.34), p(0.5, 0.6), p(0.3, 0.95)], fill=c, width=w)
    d.line([p(0.5, 0.6), p(0.7, 0.95)], fill=c, width=w)


@_icon("system")
def _i_system(d, p, s, c):
    w = _lw(s)
    d.rounded_rectangle((*p(0.24, 0.06), *p(0.76, 0.94)), radius=s * 0.08, outline=c, width=w)
    d.line([p(0.42, 0.82), p(0.58, 0.82)], fill=c, width=w)


@_icon("wallpaper", "style")
def _i_wallpaper(d, p, s, c):
    _i_image(d, p, s, c)


@_icon("chat", "message", "sms")
def _i_chat(d, p, s, c):
    (x0, y0), (x1, y1) = p(0.1, 0.12), p(0.9, 0.72)
    d.rounded_rectangle((x0, y0, x1, y1), radius=s * 0.1, fill=c)
    d.polygon([p(0.22, 0.7), p(0.22, 0.92), p(0.45, 0.7)], fill=c)


@_icon("email", "mail")
def _i_email(d, p, s, c):
    w = _lw(s)
    (x0, y0), (x1, y1) = p(0.08, 0.2), p(0.92, 0.8)
    d.rectangle((x0, y0, x1, y1), outline=c, width=w)
    d.line([p(0.08, 0.22), p(0.5, 0.52), p(0.92, 0.22)], fill=c, width=w)


@_icon("folder")
def _i_folder(d, p, s, c):
    d.polygon([p(0.08, 0.2), p(0.4, 0.2), p(0.48, 0.3), p(0.92, 0.3), p(0.92, 0.82), p(0.08, 0.82)], fill=c)


@_icon("file", "note", "description")
def _i_file(d, p, s, c):
    w = _lw(s)
    d.polygon([p(0.2, 0.08), p(0.62, 0.08), p(0.8, 0.26), p(0.8, 0.92), p(0.2, 0.92)], outline=c, width=w)
    for fy in (0.45, 0.6, 0.75):
        d.line([p(0.32, fy), p(0.68, fy)], fill=c, width=max(1, w - 1))


@_icon("wifi", "network", "internet")
def _i_wifi(d, p, s, c):
    (x0, y0), (x1, y1) = p(-0.1, 0.12), p(1.1, 1.32)
    d.pieslice((x0, y0, x1, y1), 225, 315, fill=c)


@_icon("bt", "bluetooth")
def _i_bt(d, p, s, c):
    d.line([p(0.25, 0.3), p(0.72, 0.7), p(0.5, 0.9), p(0.5, 0.1), p(0.72, 0.3), p(0.25, 0.7)], fill=c,
           width=_lw(s), joint="curve")


@_icon("airplane")
def _i_airplane(d, p, s, c):
    d.line([p(0.5, 0.06), p(0.5, 0.85)], fill=c, width=max(3, int(s * 0.13)))
    d.polygon([p(0.5, 0.35), p(0.95, 0.6), p(0.95, 0.68), p(0.5, 0.55), p(0.05, 0.68), p(0.05, 0.6)], fill=c)
    d.polygon([p(0.5, 0.78), p(0.72, 0.92), p(0.28, 0.92)], fill=c)


@_icon("battery")
def _i_battery(d, p, s, c, level: float = 0.85):
    w = _lw(s)
    (x0, y0), (x1, y1) = p(0.28, 0.14), p(0.72, 0.95)
    d.rectangle((*p(0.4, 0.06), *p(0.6, 0.14)), fill=c)
    d.rectangle((x0, y0, x1, y1), outline=c, width=w)
    top = y1 - (y1 - y0) * max(0.0, min(1.0, level))
    d.rectangle((x0 + w, top, x1 - w, y1 - w), fill=c)


@_icon("play", "start")
def _i_play(d, p, s, c):
    d.polygon([p(0.25, 0.12), p(0.85, 0.5), p(0.25, 0.88)], fill=c)


@_icon("pause")
def _i_pause(d, p, s, c):
    d.rectangle((*p(0.22, 0.15), *p(0.4, 0.85)), fill=c)
    d.rectangle((*p(0.6, 0.15), *p(0.78, 0.85)), fill=c)


@_icon("stop")
def _i_stop(d, p, s, c):
    d.rectangle((*p(0.2, 0.2), *p(0.8, 0.8)), fill=c)


@_icon("globe", "language")
def _i_globe(d, p, s, c):
    w = max(1, _lw(s) - 1)
    d.ellipse((*p(0.08, 0.08), *p(0.92, 0.92)), outline=c, width=w)
    d.ellipse((*p(0.3, 0.08), *p(0.7, 0.92)), outline=c, width=w)
    d.line([p(0.08, 0.5), p(0.92, 0.5)], fill=c, width=w)


@_icon("avatar", "person", "account")
def _i_person(d, p, s, c):
    d.ellipse((*p(0.3, 0.1), *p(0.7, 0.5)), fill=c)
    d.chord((*p(0.1, 0.58), *p(0.9, 1.3)), 180, 360, fill=c)


@_icon("clock", "alarm", "tab_alarms", "tab_clock", "time", "today_time")
def _i_clock(d, p, s, c):
    w = _lw(s)
    d.ellipse((*p(0.1, 0.1), *p(0.9, 0.9)), outline=c, width=w)
    d.line([p(0.5, 0.25), p(0.5, 0.5), p(0.7, 0.62)], fill=c, width=w)


@_icon("timer", "tab_timer", "hourglass")
def _i_timer(d, p, s, c):
    d.polygon([p(0.2, 0.08), p(0.8, 0.08), p(0.5, 0.5), p(0.8, 0.92), p(0.2, 0.92), p(0.5, 0.5)], outline=c,
              width=_lw(s))


@_icon("stopwatch", "tab_stopwatch")
def _i_stopwatch(d, p, s, c):
    w = _lw(s)
    d.ellipse((*p(0.14, 0.2), *p(0.86, 0.92)), outline=c, width=w)
    d.line([p(0.4, 0.06), p(0.6, 0.06)], fill=c, width=w)
    d.line([p(0.5, 0.56), p(0.5, 0.36)], fill=c, width=w)


@_icon("calendar", "today", "event", "date")
def _i_calendar(d, p, s, c):
    w = _lw(s)
    d.rectangle((*p(0.1, 0.16), *p(0.9, 0.9)), outline=c, width=w)
    d.rectangle((*p(0.1, 0.16), *p(0.9, 0.34)), fill=c)
    d.rectangle((*p(0.55, 0.55), *p(0.75, 0.75)), fill=c)


@_icon("filter")
def _i_filter(d, p, s, c):
    d.polygon([p(0.08, 0.15), p(0.92, 0.15), p(0.58, 0.55), p(0.58, 0.88), p(0.42, 0.78), p(0.42, 0.55)], fill=c)


@_icon("sort")
def _i_sort(d, p, s, c):
    for fy, fx in ((0.25, 0.88), (0.5, 0.64), (0.75, 0.4)):
        d.line([p(0.12, fy), p(fx, fy)], fill=c, width=_lw(s))


@_icon("statistics", "chart", "stats")
def _i_stats(d, p, s, c):
    for fx, fy in ((0.15, 0.55), (0.42, 0.25), (0.69, 0.45)):
        d.rectangle((*p(fx, fy), *p(fx + 0.17, 0.88)), fill=c)


@_icon("info", "about")
def _i_info(d, p, s, c):
    w = _lw(s)
    d.ellipse((*p(0.08, 0.08), *p(0.92, 0.92)), outline=c, width=w)
    d.line([p(0.5, 0.45), p(0.5, 0.75)], fill=c, width=w)
    x, y = p(0.5, 0.3)
    d.ellipse((x - w, y - w, x + w, y + w), fill=c)


@_icon("settings", "prefs", "gear")
def _i_gear(d, p, s, c):
    w = _lw(s)
    for i in range(8):
        a = i * math.pi / 4
        d.line([p(0.5 + 0.28 * math.cos(a), 0.5 + 0.28 * math.sin(a)),
                p(0.5 + 0.44 * math.cos(a), 0.5 + 0.44 * math.sin(a))], fill=c, width=w + 2)
    d.ellipse((*p(0.2, 0.2), *p(0.8, 0.8)), outline=c, width=w + 1)


@_icon("backspace")
def _i_backspace(d, p, s, c):
    w = _lw(s)
    d.polygon([p(0.05, 0.5), p(0.3, 0.18), p(0.95, 0.18), p(0.95, 0.82), p(0.3, 0.82)], outline=c, width=w)
    d.line([p(0.48, 0.36), p(0.76, 0.64)], fill=c, width=w)
    d.line([p(0.76, 0.36), p(0.48, 0.64)], fill=c, width=w)


def _i_image(d, p, s, c):
    d.rectangle((*p(0.1, 0.15), *p(0.9, 0.85)), outline=c, width=_lw(s))
    d.polygon([p(0.18, 0.78), p(0.42, 0.45), p(0.6, 0.66), p(0.7, 0.55), p(0.84, 0.78)], fill=c)


@_icon("music", "audio")
def _i_music(d, p, s, c):
    d.line([p(0.62, 0.72), p(0.62, 0.12), p(0.85, 0.25)], fill=c, width=_lw(s))
    d.ellipse((*p(0.3, 0.6), *p(0.66, 0.88)), fill=c)


_ICONS["image"] = _ICONS["photo"] = _i_image


def icon_name(style: dict[str, Any], desc: str, rid: str) -> str | None:
    """Icon key: the view's style, else a keyword of content-desc / resource id (device dumps)."""
    name = style.get("icon")
    if name in _ICONS:
        return name
    for k in (str(name or ""), rid, desc):
        k = k.lower()
        if not k:
            continue
        bare = k.rstrip("0123456789")  # wifi3 -> wifi
        if bare in _ICONS:
            return bare
        words = " " + " ".join(re.findall(r"[a-z]+", k)) + " "
        for word, icon in _KEYWORDS:
            if f" {word} " in words:
                return icon
    return None


_KEYWORDS: tuple[tuple[str, str], ...] = (
    ("navigate up", "back"), ("back", "back"), ("more options", "more"), ("overflow", "more"),
    ("search", "search"), ("delete", "delete"), ("trash", "delete"), ("remove", "delete"),
    ("save", "check"), ("done", "check"), ("confirm", "check"), ("favorite", "star"), ("star", "star"),
    ("edit", "edit"), ("rename", "edit"), ("home", "home"), ("menu", "menu"), ("drawer", "menu"),
    ("overview", "nav_recents"), ("recent", "nav_recents"), ("apps list", "apps"), ("send", "send"),
    ("call", "phone"), ("phone", "phone"), ("message", "chat"), ("sms", "chat"), ("email", "email"),
    ("folder", "folder"), ("wi fi", "wifi"), ("wifi", "wifi"), ("bluetooth", "bt"), ("airplane", "airplane"),
    ("battery", "battery"), ("pause", "pause"), ("stop", "stop"), ("play", "play"), ("start", "play"),
    ("close", "close"), ("cancel", "close"), ("clear", "close"), ("filter", "filter"), ("sort", "sort"),
    ("statistics", "statistics"), ("stats", "statistics"), ("today", "calendar"), ("calendar", "calendar"), ("alarm", "clock"),
    ("increase", "up"), ("decrease", "down"), ("next", "forward"), ("previous", "chevron_left"),
    ("add", "add"), ("new", "add"), ("create", "add"), ("plus", "add"), ("minus", "minus"),
    ("settings", "settings"), ("info", "info"), ("avatar", "avatar"), ("photo", "image"),
)


def draw_icon(d: ImageDraw.ImageDraw, name: str, box: Sequence[float], colour: str, **kw: Any) -> None:
    """Draw icon ``name`` into the square ``box`` = (left, top, size)."""
    x0, y0, s = box

    def p(fx: float, fy: float) -> tuple[float, float]:
        return x0 + fx * s, y0 + fy * s

    _ICONS[name](d, p, s, colour, **kw)


ICON_NAMES = frozenset(_ICONS)  # every name draw_icon accepts
