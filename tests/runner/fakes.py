"""A small deterministic environment and tasks implementing the contracts, for runner tests.

A legitimate test double: a "phone" with one counter and a note field, a screen with an
Increment button, a Reset button and a text field, and two task templates (an operation and a
query) with real checkers and screen-driven oracles.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.errors import ActionValidationError, DeviceLostError, EnvError
from droidverify.tasks.base import Task, TaskTemplate
from droidverify.ui.element import Bounds, UIElement


@dataclass
class FakePhone:
    count: int = 0
    note: str = ""


def _elements(phone: FakePhone) -> list[UIElement]:
    return [
        UIElement(text="Increment", class_name="android.widget.Button", is_clickable=True,
                  bbox_pixels=Bounds(0, 100, 540, 200), package_name="fake.counter"),
        UIElement(text="Reset", class_name="android.widget.Button", is_clickable=True,
                  bbox_pixels=Bounds(540, 100, 1080, 200), package_name="fake.counter"),
        UIElement(text=phone.note, hint_text="Note", class_name="android.widget.EditText",
                  is_editable=True, is_clickable=True, bbox_pixels=Bounds(0, 300, 1080, 400),
                  package_name="fake.counter"),
        UIElement(text=f"Count: {phone.count}", class_name="android.widget.TextView",
                  bbox_pixels=Bounds(0, 500, 1080, 600), package_name="fake.counter"),
    ]


def _xml(phone: FakePhone) -> str:
    nodes = "".join(
        f'<node index="{i}" text="{el.text}" class="{el.class_name}" package="fake.counter" '
        f'clickable="{str(el.is_clickable).lower()}" bounds="{el.bbox_pixels.to_uiautomator()}" />'
        for i, el in enumerate(_elements(phone))
    )
    return f"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">{nodes}</hierarchy>"


class FakeEnv:
    """Deterministic counter screen. ``wait`` raises EnvError (a recoverable hiccup), ``fail_after``
    simulates a lost device, ``delay`` slows steps down (for kill tests)."""

    def __init__(self, task: Task | None = None, seed: int = 0, *, delay: float = 0.0,
                 fail_after: int | None = None, screenshot: bool = False) -> None:
        self.task = task
        self.seed = seed
        self.delay = delay
        self.fail_after = fail_after
        self.screenshot = screenshot
        self.phone = FakePhone()
        self.last_answer: str | None = None
        self.steps_taken = 0
        self.closed = False

    def observe(self) -> Observation:
        png = f"PNG{self.phone.count}".encode() if self.screenshot else None
        return Observation(xml=_xml(self.phone), package="fake.counter", screenshot_png=png,
                           _elements=_elements(self.phone))

    def reset(self, *, go_home: bool = True) -> Observation:
        self.phone = FakePhone()
        self.last_answer = None
        if self.task is not None:
            self.task.setup(self.phone)  # type: ignore[arg-type]
        return self.observe()

    def step(self, action: Action) -> Observation:
        self.steps_taken += 1
        if self.delay:
            time.sleep(self.delay)
        if self.fail_after is not None and self.steps_taken > self.fail_after:
            raise DeviceLostError("fake device unplugged")
        t = action.action_type
        if t == "wait":
            raise EnvError("screen did not settle")
        if t in ("click", "input_text"):
            els = _elements(self.phone)
            if action.index is None or action.index >= len(els):
                raise ActionValidationError(f"index {action.index} out of range (0..{len(els) - 1})",
                                            field="index")
            label = els[action.index].text
            if t == "click" and label == "Increment":
                self.phone.count += 1
            elif t == "click" and label == "Reset":
                self.phone.count = 0
            elif t == "input_text":
                if not els[action.index].is_editable:
                    raise ActionValidationError(f"element {action.index} is not editable", field="index")
                self.phone.note = action.text or ""
        elif t == "answer":
            self.last_answer = action.text
        return self.observe()

    def close(self) -> None:
        self.closed = True


class TapTemplate(TaskTemplate):
    name = "tap_counter"
    apps = ("Counter",)
    kind = "operation"
    complexity = 1
    optimal_steps = 4
    goal_template = "Tap Increment until the counter shows {target}"

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"target": rng.randint(2, 4)}

    def setup(self, phone: Any, params: dict[str, Any]) -> None:
        phone.count = 0

    def is_successful(self, phone: Any, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if phone.count == params["target"] else 0.0

    def oracle_action(self, phone: Any, params: dict[str, Any], obs: Observation) -> Action:
        if phone.count < params["target"]:
            return Action(action_type="click", index=0)
        if phone.count > params["target"]:
            return Action(action_type="click", index=1)
        return Action(action_type="status", goal_status="complete")


class CountQueryTemplate(TaskTemplate):
    """Query task: the oracle keeps returning the answer (it has no memory of answering)."""

    name = "query_count"
    apps = ("Counter", "Notes")
    kind = "query"
    complexity = 2
    optimal_steps = 3
    goal_template = "Set the counter to {start} first? No: tell me what the counter shows."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"start": rng.randint(1, 9)}

    def setup(self, phone: Any, params: dict[str, Any]) -> None:
        phone.count = params["start"]

    def is_successful(self, phone: Any, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if (answer or "").strip() == str(params["start"]) else 0.0

    def oracle_action(self, phone: Any, params: dict[str, Any], obs: Observation) -> Action:
        return Action(action_type="answer", text=str(phone.count))


TEMPLATES = [TapTemplate(), CountQueryTemplate()]


def pairs(seeds: range | list[int]) -> list[Task]:
    return [t.instantiate(s) for t in TEMPLATES for s in seeds]
