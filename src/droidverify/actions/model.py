"""The one action model, with AndroidWorld's action names plus SmartSnap's terminal ``submit``.

Structural rules (which fields each action type needs) are enforced at construction, so an
``Action`` that exists is well formed; whether it fits a given screen is ``validate_action``'s job.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    StrictBool,
    StrictInt,
    ValidationError,
    field_validator,
    model_validator,
)

from droidverify.errors import ActionValidationError

ActionType = Literal[
    "click", "long_press", "double_tap", "scroll", "swipe", "input_text", "clear_text",
    "keyboard_enter", "navigate_home", "navigate_back", "open_app", "wait", "answer", "status",
    "submit",
]
ACTION_TYPES: tuple[str, ...] = ActionType.__args__  # type: ignore[attr-defined]
Direction = Literal["up", "down", "left", "right"]
DIRECTIONS: tuple[str, ...] = ("up", "down", "left", "right")
GoalStatus = Literal["complete", "infeasible"]

# Which optional fields each action type may carry; anything else is an error.
_ALLOWED: dict[str, frozenset[str]] = {
    "click": frozenset({"index", "x", "y"}),
    "long_press": frozenset({"index", "x", "y"}),
    "double_tap": frozenset({"index", "x", "y"}),
    "scroll": frozenset({"index", "direction"}),
    "swipe": frozenset({"index", "x", "y", "direction"}),
    "input_text": frozenset({"index", "x", "y", "text", "press_enter"}),
    "clear_text": frozenset({"index", "x", "y"}),
    "keyboard_enter": frozenset(),
    "navigate_home": frozenset(),
    "navigate_back": frozenset(),
    "open_app": frozenset({"app_name"}),
    "wait": frozenset(),
    "answer": frozenset({"text"}),
    "status": frozenset({"goal_status"}),
    "submit": frozenset({"text", "evidences"}),
}
_TARGETED = frozenset({"click", "long_press", "double_tap", "input_text", "clear_text"})
TERMINAL_TYPES = frozenset({"status", "submit"})
_SURROGATE = re.compile("[\ud800-\udfff]")


def _typed_error(data: Any, exc: ValidationError) -> ActionValidationError:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err.get("loc", ())) or None
    msg = err.get("msg", str(exc)).removeprefix("Value error, ")
    return ActionValidationError(f"invalid action {data!r}: {msg}", field=loc)


class Action(BaseModel):
    """One agent action.

    - click / long_press / double_tap / clear_text: ``index`` (element) or ``x``/``y`` (pixels).
    - scroll: ``direction`` (content moves to reveal what lies that way); ``index`` optional
      (the scrollable element), else the whole screen.
    - swipe: finger ``direction``; from ``index`` or ``x``/``y``, else the screen centre.
    - input_text: target (``index`` or ``x``/``y``), non-empty ``text``; clears the field first;
      ``press_enter`` optionally presses enter afterwards.
    - open_app: ``app_name``.  answer: ``text``.  status: ``goal_status`` complete|infeasible.
    - submit (SmartSnap): ``text`` is the message, ``evidences`` the ids of earlier steps.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    # Strict numbers: True is not an index, "3" is not a coordinate.
    action_type: ActionType
    index: StrictInt | None = None
    x: StrictInt | None = None
    y: StrictInt | None = None
    direction: Direction | None = None
    text: str | None = None
    press_enter: StrictBool | None = None
    app_name: str | None = None
    goal_status: GoalStatus | None = None
    evidences: tuple[StrictInt, ...] | None = None

    def __init__(self, **data: Any) -> None:
        """Construct; a malformed action raises :class:`ActionValidationError` naming the field."""
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise _typed_error(data, exc) from None

    @field_validator("text", "app_name")
    @classmethod
    def _valid_unicode(cls, v: str | None) -> str | None:
        # A lone surrogate (seen in model output) is not text; it would break every UTF-8 writer.
        return _SURROGATE.sub("\ufffd", v) if v is not None else None

    @model_validator(mode="after")
    def _check_structure(self) -> Action:
        t = self.action_type
        present = {k for k in _ALLOWED["input_text"] | _ALLOWED["submit"] | _ALLOWED["swipe"]
                   | {"app_name", "goal_status"} if getattr(self, k) is not None}
        extra = present - _ALLOWED[t]
        if extra:
            raise ValueError(f"{t} does not take {', '.join(sorted(extra))}")
        has_index = self.index is not None
        has_xy = self.x is not None or self.y is not None
        if has_index and has_xy:
            raise ValueError(f"{t}: give either index or x/y, not both")
        if has_xy and (self.x is None or self.y is None):
            raise ValueError(f"{t}: x and y must be given together")
        if has_index and self.index < 0:  # type: ignore[operator]
            raise ValueError(f"{t}: index must be >= 0, got {self.index}")
        if has_xy and (self.x < 0 or self.y < 0):  # type: ignore[operator]
            raise ValueError(f"{t}: x/y must be >= 0, got ({self.x}, {self.y})")
        if t in _TARGETED and not (has_index or has_xy):
            raise ValueError(f"{t} needs an element index or x/y")
        if t in ("scroll", "swipe") and self.direction is None:
            raise ValueError(f"{t} needs a direction (up/down/left/right)")
        if t == "input_text" and not self.text:
            raise ValueError("input_text needs non-empty text")
        if t == "open_app" and not (self.app_name and self.app_name.strip()):
            raise ValueError("open_app needs app_name")
        if t == "answer" and self.text is None:
            raise ValueError("answer needs text")
        if t == "status" and self.goal_status is None:
            raise ValueError("status needs goal_status (complete or infeasible)")
        if t == "submit":
            if self.text is None:
                raise ValueError("submit needs a message (text)")
            if self.evidences is None:
                raise ValueError("submit needs evidences (a list of step ids, may be empty)")
        return self

    # ---- construction helpers -------------------------------------------------
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Action:
        """Build from a plain dict; raises :class:`ActionValidationError` naming the problem."""
        if not isinstance(data, dict):
            raise ActionValidationError(f"an action must be a dict, got {type(data).__name__}")
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise _typed_error(data, exc) from None

    @classmethod
    def make(cls, action_type: str, **fields: Any) -> Action:
        return cls.from_dict({"action_type": action_type, **fields})

    # ---- serialization ----------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        d = self.model_dump(exclude_none=True)
        if "evidences" in d:
            d["evidences"] = list(d["evidences"])
        return d

    def to_json(self) -> str:
        """Canonical JSON: ``action_type`` first, other keys sorted, no whitespace, None omitted."""
        d = self.to_dict()
        ordered = {"action_type": d.pop("action_type"), **dict(sorted(d.items()))}
        return json.dumps(ordered, ensure_ascii=False, separators=(",", ":"))

    @property
    def is_terminal(self) -> bool:
        return self.action_type in TERMINAL_TYPES

    def describe(self) -> str:
        """Short human/LLM-facing rendering, e.g. ``click(index=3)``."""
        d = self.to_dict()
        t = d.pop("action_type")
        return f"{t}({', '.join(f'{k}={v!r}' for k, v in sorted(d.items()))})"


def require_action(action: object) -> Action:
    """``action`` if it is an :class:`Action`, else :class:`ActionValidationError` (for entry points
    such as ``env.step`` that a caller may hand anything)."""
    if not isinstance(action, Action):
        raise ActionValidationError(f"expected an Action, got {type(action).__name__} {action!r:.80}",
                                    field="action")
    return action
