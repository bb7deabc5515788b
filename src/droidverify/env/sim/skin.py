"""Skins: seeded layout variation that changes how screens look and are labelled, never what they do.

Real phones show the same app differently (another vendor's wording, Material ALL-CAPS buttons,
the OK button left or right, denser or looser lists). A model trained on one simulator look learns
that look; a skin varies it. ``skin_for(0)`` is the identity (the simulator's own screens, byte for
byte); ``skin_for(k)`` for ``1 <= k <= SKIN_COUNT`` is a fixed mix drawn from ``k``:

* **labels**: app chrome (button texts, icon content-descs, menu items, dialog titles) drawn from
  :data:`CHROME_SYNONYMS`, and ALL-CAPS button texts;
* **order**: toolbar action icons (never "Navigate up" or "More options") and dialog buttons;
* **classes**: Button -> clickable TextView, ImageButton -> clickable ImageView (same flags);
* **sizes**: text sizes, paddings and the toolbar height scaled down, list rows up or down (a list
  scrolls; nothing on a fixed screen can grow off it).

What a user created (note names, contacts, message text, amounts) is never touched: only nodes
that are chrome (``View.chrome``, else decided by class and window) and whose text is a known
label change. Resource ids, flags and handlers stay, so element actions map to the same nodes.
Oracles match through :func:`canonical_label` (``tasks.helpers.oracle.matches``), the one inverse
table: every variant (and every ALL-CAPS form) back to its canonical label.

The phone carries its skin (``Phone(seed, skin=k)``, kept by snapshots and clones) and ``SimEnv``
applies it to the composed windows before emitting them (:func:`apply_skin`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING

from droidverify.env.sim.view import View, layout
from droidverify.errors import EnvError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from droidverify.env.sim.system import Composed

SKIN_COUNT = 12  # skins 1..SKIN_COUNT are variants; 0 is the simulator's own look

# Canonical chrome label (as the apps show it) -> the other wordings real apps use. A variant is
# never a canonical label and never the variant of two labels (checked at import and in the tests
# against every string the apps show).
CHROME_SYNONYMS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    # shared buttons and toolbar icons
    "Save": ("Done", "Confirm", "Save changes"),
    "OK": ("Okay", "Apply"),
    "Cancel": ("Dismiss", "Not now"),
    "Close": ("Got it", "Exit"),
    "Delete": ("Erase", "Delete item"),
    "Discard": ("Discard changes", "Don't save"),
    "Search": ("Find", "Look up"),
    "More options": ("Menu", "Options", "More"),
    "Navigate up": ("Go back", "Up"),
    "Rename": ("Change name", "Edit name"),
    "Move": ("Relocate", "Move item"),
    "Edit": ("Modify", "Change"),
    "Create": ("Add", "New"),
    "Share": ("Send to", "Share via"),
    "Filter": ("Filters", "Refine"),
    "Cancel selection": ("Clear selection", "Exit selection"),
    "Select all": ("Select everything", "Choose all"),
    "Go to today": ("Jump to today", "Show today"),
    "Next month": ("Show next month",),
    "Previous month": ("Show previous month",),
    "Statistics": ("Stats", "Reports"),
    "Copy here": ("Paste here", "Copy into folder"),
    "Move here": ("Move into folder", "Place here"),
    # app actions
    "Edit contact": ("Modify contact", "Change contact"),
    "Create contact": ("New contact", "Add new contact"),
    "Add to favorites": ("Star", "Add to starred"),
    "Remove from favorites": ("Unstar", "Remove from starred"),
    "Add alarm": ("New alarm", "Create alarm"),
    "Add expense": ("New expense", "Record expense"),
    "New event": ("Create event", "Add event"),
    "Start chat": ("New chat", "Compose"),
    "Send SMS": ("Send", "Send text"),
    "Mark as read": ("Mark read",),
    "Mark as unread": ("Mark unread",),
    "Create a new file or folder": ("New file or folder", "Add item"),
    # menu items and dialog titles
    "Copy to\u2026": ("Copy to folder", "Duplicate to"),
    "Move to\u2026": ("Move to folder", "Move elsewhere"),
    "Sort by\u2026": ("Sort order", "Order by"),
    "New folder": ("Create folder", "Add folder"),
    "Select date": ("Pick a date", "Choose date"),
    "Select time": ("Pick a time", "Choose time"),
})
# Button texts without other wordings that a Material skin still shows in capitals.
CAPS_ONLY: frozenset[str] = frozenset({
    "Add timer", "Call", "Email", "Text", "Folder", "Lap", "Reset", "Start", "Pause",
})

_BUTTON = "android.widget.Button"
_TEXT = "android.widget.TextView"
_IMAGE_BUTTON = "android.widget.ImageButton"
_IMAGE = "android.widget.ImageView"
_FAB = "com.google.android.material.floatingactionbutton.FloatingActionButton"
_CHROME_CLASSES = frozenset({_BUTTON, _IMAGE_BUTTON, _IMAGE, _FAB})
_FIXED_TOOLBAR_ICONS = frozenset({"Navigate up", "More options"})


def _inverse() -> dict[str, str]:
    inv: dict[str, str] = {}
    canon = set(CHROME_SYNONYMS) | CAPS_ONLY

    def put(form: str, label: str) -> None:
        if form == label:
            return
        if form in canon:
            raise EnvError(f"skin variant {form!r} of {label!r} is itself a canonical label")
        if inv.get(form, label) != label:
            raise EnvError(f"skin variant {form!r} stands for both {inv[form]!r} and {label!r}")
        inv[form] = label

    for label in sorted(canon):
        for form in (label, *CHROME_SYNONYMS.get(label, ())):
            put(form, label)
            put(form.upper(), label)
    return inv


_CANONICAL: dict[str, str] = _inverse()
VARIANTS: frozenset[str] = frozenset(_CANONICAL)  # every string a skin may show instead of a label


def canonical_label(s: str) -> str:
    """The label the simulator's own look shows for ``s`` (a skin variant or ALL-CAPS form); any
    other string, user content included, comes back unchanged."""
    return _CANONICAL.get(s, s)


@dataclass(frozen=True)
class Skin:
    """One look. ``labels`` holds (canonical, shown) for the chrome labels this skin rewords."""

    index: int
    labels: tuple[tuple[str, str], ...] = ()
    all_caps: bool = False  # Button texts in capitals (Material)
    toolbar_order: str = "keep"  # keep | reverse | rotate: toolbar action icons
    dialog_buttons: str = "end"  # end (positive right) | reversed (positive left)
    button_as_text: bool = False  # Button -> clickable TextView
    icon_as_image: bool = False  # ImageButton -> clickable ImageView
    text_scale: float = 1.0
    pad_scale: float = 1.0
    bar_scale: float = 1.0  # toolbar height
    row_scale: float = 1.0  # rows of scrolling lists

    @property
    def identity(self) -> bool:
        return self.index == 0

    @property
    def label_map(self) -> dict[str, str]:
        return _label_map(self)

    def label(self, s: str, *, button: bool = False) -> str:
        """What this skin shows for chrome text ``s`` (``button``: a Button's own text)."""
        shown = _label_map(self).get(s, s)
        if button and self.all_caps and (s in CHROME_SYNONYMS or s in CAPS_ONLY):
            shown = shown.upper()
        return shown


@cache
def _label_map(skin: Skin) -> dict[str, str]:
    return dict(skin.labels)


@cache
def skin_for(index: int) -> Skin:
    """Skin ``index``: 0 the identity, 1..:data:`SKIN_COUNT` deterministic variants drawn from it."""
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index <= SKIN_COUNT:
        raise EnvError(f"skin must be an int in 0..{SKIN_COUNT}, got {index!r}")
    if index == 0:
        return Skin(0)
    rng = random.Random(f"droidverify.sim.skin:{index}")
    labels = []
    for label in sorted(CHROME_SYNONYMS):
        if rng.random() < 0.7:
            labels.append((label, rng.choice(CHROME_SYNONYMS[label])))
    return Skin(
        index=index, labels=tuple(labels), all_caps=rng.random() < 0.5,
        toolbar_order=rng.choice(("keep", "reverse", "rotate")),
        dialog_buttons=rng.choice(("end", "reversed")),
        button_as_text=rng.random() < 0.35, icon_as_image=rng.random() < 0.35,
        text_scale=rng.choice((0.85, 0.9, 0.95)), pad_scale=rng.choice((0.7, 0.8, 0.9)),
        bar_scale=rng.choice((0.85, 0.9, 1.0)), row_scale=rng.choice((0.95, 1.1, 1.2, 1.3)))


# ---- applying a skin to composed windows ------------------------------------------------------
def apply_skin(composed: Composed, skin: Skin, *, launcher: bool) -> None:
    """Restyle the app, dialog and menu windows of ``composed`` in place and lay them out again.

    The launcher, status bar, navigation bar and toasts keep the simulator's look. Only text,
    content-desc, class, child order and sizes change; handlers stay on their nodes.
    """
    if skin.identity:
        return
    for (root, _pkg), kind in zip(composed.windows, composed.kinds):
        if kind not in ("app", "dialog", "menu") or (kind == "app" and launcher):
            continue
        seen: set[int] = set()
        _walk(root, skin, kind, seen, root=True, row=False)
        layout(root, *root.bounds)


def _is_chrome(v: View, kind: str) -> bool:
    if v.chrome is not None:
        return v.chrome
    if v.cls in _CHROME_CLASSES:
        return True
    if v.cls == _TEXT:
        return kind == "menu" or (kind == "dialog" and v.rid.endswith("alertTitle"))
    return False


def _walk(v: View, skin: Skin, kind: str, seen: set[int], *, root: bool, row: bool) -> None:
    if id(v) in seen:  # a node shared between places is restyled once
        return
    seen.add(id(v))
    if _is_chrome(v, kind):
        if v.text:
            v.text = skin.label(v.text, button=v.cls == _BUTTON)
        if v.desc:
            v.desc = skin.label(v.desc)
    if v.clickable and v.chrome is not False:
        if skin.button_as_text and v.cls == _BUTTON:
            v.cls = _TEXT
        elif skin.icon_as_image and v.cls == _IMAGE_BUTTON:
            v.cls = _IMAGE
    if v.rid == "toolbar" and v.horizontal:
        _order_toolbar(v, skin)
    elif v.rid == "buttonPanel" and v.horizontal:
        _order_dialog_buttons(v, skin, kind)
    if kind == "app":
        _resize(v, skin, root=root, row=row)
    if v.rows is not None:
        for r in v.rows:
            _walk(r, skin, kind, seen, root=False, row=True)
    else:
        for c in v.children:
            _walk(c, skin, kind, seen, root=False, row=False)


def _order_toolbar(bar: View, skin: Skin) -> None:
    kids = bar.children
    # the action icons after the title; the leading icon (up / cancel selection) stays first
    title = next((i for i, c in enumerate(kids) if c.cls == _TEXT), None)
    if title is None:
        return
    slots = [i for i, c in enumerate(kids)
             if i > title and c.cls in (_IMAGE_BUTTON, _IMAGE) and c.clickable and c.at is None
             and canonical_label(c.desc) not in _FIXED_TOOLBAR_ICONS]
    if len(slots) < 2 or skin.toolbar_order == "keep":
        return
    icons = [kids[i] for i in slots]
    icons = icons[::-1] if skin.toolbar_order == "reverse" else icons[1:] + icons[:1]
    for i, c in zip(slots, icons):
        kids[i] = c


def _order_dialog_buttons(panel: View, skin: Skin, kind: str) -> None:
    buttons = [c for c in panel.children if c.clickable]
    for b in buttons:  # dialog buttons are as wide as their label (app.dialog_panel)
        if b.w is not None and b.text and _is_chrome(b, kind):
            b.w = max(200, 40 + 30 * len(skin.label(b.text, button=b.cls == _BUTTON)))
    if skin.dialog_buttons == "reversed" and len(buttons) > 1:
        slots = [i for i, c in enumerate(panel.children) if c.clickable]
        for i, c in zip(slots, reversed(buttons)):
            panel.children[i] = c


def _resize(v: View, skin: Skin, *, root: bool, row: bool) -> None:
    if root:  # the window frame's padding places the app between the system bars
        return
    if v.pad != (0, 0, 0, 0):
        s = skin.pad_scale
        v.pad = (round(v.pad[0] * s), round(v.pad[1] * s), round(v.pad[2] * s), round(v.pad[3] * s))
    if v.text and not v.children and v.rows is None:
        v.style = {**v.style, "size": max(1, round(v.style.get("size", 42) * skin.text_scale))}
    if v.h is not None:
        if row:
            v.h = round(v.h * skin.row_scale)
        elif v.rid == "toolbar":
            v.h = round(v.h * skin.bar_scale)
