"""UI element and bounds: the records every screen reader and action executor shares."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Bounds:
    """Pixel rectangle ``[left,top][right,bottom]`` as uiautomator writes it (right/bottom exclusive)."""

    left: int
    top: int
    right: int
    bottom: int

    @property
    def width(self) -> int:
        return max(0, self.right - self.left)

    @property
    def height(self) -> int:
        return max(0, self.bottom - self.top)

    @property
    def area(self) -> int:
        return self.width * self.height

    @property
    def center(self) -> tuple[int, int]:
        return ((self.left + self.right) // 2, (self.top + self.bottom) // 2)

    def contains(self, x: int, y: int) -> bool:
        return self.left <= x < self.right and self.top <= y < self.bottom

    def intersect(self, other: Bounds) -> Bounds:
        left, top = max(self.left, other.left), max(self.top, other.top)
        right, bottom = min(self.right, other.right), min(self.bottom, other.bottom)
        return Bounds(left, top, max(left, right), max(top, bottom))

    def to_uiautomator(self) -> str:
        return f"[{self.left},{self.top}][{self.right},{self.bottom}]"


@dataclass(eq=False, slots=True)
class UIElement:
    """One node of a UI tree, with AndroidWorld's UIElement fields plus tree links.

    ``parent``/``children`` link the whole hierarchy; ``extra`` keeps attributes this model does
    not know (e.g. ``NAF``) so nothing in a dump is lost.
    """

    text: str | None = None
    content_description: str | None = None
    class_name: str | None = None
    bbox_pixels: Bounds | None = None
    hint_text: str | None = None
    is_checked: bool = False
    is_checkable: bool = False
    is_clickable: bool = False
    is_editable: bool = False
    is_enabled: bool = True
    is_focused: bool = False
    is_focusable: bool = False
    is_long_clickable: bool = False
    is_scrollable: bool = False
    is_selected: bool = False
    is_visible: bool = True
    is_password: bool = False
    package_name: str | None = None
    resource_id: str | None = None
    tooltip: str | None = None
    index_in_parent: int = 0  # uiautomator's ``index`` attribute
    window: int = 0  # which window (hierarchy child) this node belongs to
    depth: int = 0
    node_id: int = 0  # position in a pre-order walk of the whole dump; unique per screen
    parent: UIElement | None = field(default=None, repr=False)
    children: list[UIElement] = field(default_factory=list, repr=False)
    extra: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def resource_name(self) -> str | None:
        """``resource_id`` without the ``package:id/`` prefix (AndroidWorld's resource_name)."""
        if not self.resource_id:
            return None
        return self.resource_id.rsplit("/", 1)[-1]

    @property
    def is_interactive(self) -> bool:
        """Enabled and something can be done with it; a focusable leaf without text counts (Flutter
        and Compose controls are often focusable but not clickable)."""
        return self.is_enabled and (
            self.is_clickable or self.is_long_clickable or self.is_checkable
            or self.is_scrollable or self.is_editable
            or (self.is_focusable and not self.children and not self.text
                and not self.content_description)
        )

    @property
    def label(self) -> str:
        """Best human-readable name: text, else content description, else hint, else resource name."""
        for value in (self.text, self.content_description, self.hint_text, self.resource_name):
            if value:
                return value
        return ""

    def iter(self):
        """Pre-order walk over this node and its descendants."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))
