"""Shared helpers for simulator/task tests (app authors reuse them for their own tasks)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from droidverify.actions.model import Action
from droidverify.env.sim import SimEnv
from droidverify.tasks.base import Task


def run_oracle(task: Task, seed: int, *, limit: int | None = None) -> tuple[SimEnv, int]:
    """Run the task's oracle until it declares done (or answers); returns (env, steps taken)."""
    env = SimEnv(task, seed)
    obs = env.reset()
    limit = limit or task.max_steps
    for n in range(1, limit + 1):
        action = task.oracle_action(env.phone, obs)
        if action.action_type == "status":
            return env, n
        obs = env.step(action)
        if action.action_type == "answer":
            return env, n + 1  # the runner's oracle follows an answer with status complete
    raise AssertionError(f"oracle for {task.id} seed {seed} did not finish in {limit} steps "
                         f"(at {env.phone.location})")


@dataclass
class OracleStep:
    """One step of an oracle's solving path: the goal and every text on screen, the action, where it was."""

    shown: str
    action: Action
    location: str
    screen: object


def oracle_trace(name: str, seed: int, *, step_answer: bool = True) -> list[OracleStep]:
    """The oracle's solving path of template ``name`` at ``seed``, asserted successful at its end;
    ``step_answer=False`` stops before an answer is submitted (for operations read along the way)."""
    from droidverify.tasks import registry

    task = registry.get_template(name).instantiate(seed)
    env = SimEnv(task, seed)
    obs = env.reset()
    steps = []
    for _ in range(task.max_steps):
        a = task.oracle_action(env.phone, obs)
        shown = " | ".join(f"{e.text or ''} {e.content_description or ''}" for e in obs.elements)
        steps.append(OracleStep(task.goal + " | " + shown, a, env.phone.location, env.phone.screen))
        if a.action_type == "status" or (a.action_type == "answer" and not step_answer):
            break
        obs = env.step(a)
        if a.action_type == "answer":
            break
    assert env.is_successful() == 1.0, (name, seed)
    return steps


def oracle_path(name: str, seed: int) -> list[tuple[str, Action]]:
    """(the goal and every text on screen, the oracle's action) per step of the oracle's solving path."""
    return [(s.shown, s.action) for s in oracle_trace(name, seed)]


def unread_values(name: str, seed: int) -> list[str]:
    """Texts the oracle types or answers that no earlier screen (nor the goal) showed."""
    seen: list[str] = []
    out = []
    for shown, a in oracle_path(name, seed):
        seen.append(shown.lower())
        if a.action_type in ("input_text", "answer") and a.text and not any(a.text.lower() in t for t in seen):
            out.append(a.text)
    return out


def fresh(task: Task, seed: int = 0) -> SimEnv:
    env = SimEnv(task, seed)
    env.reset()
    return env


def act(env: SimEnv, action_type: str, **fields) -> None:
    env.step(Action.make(action_type, **fields))


def shared_dumps() -> list[Path]:
    """The real uiautomator dumps (../shared, or DROIDVERIFY_SHARED); FAIL, never skip, without them."""
    base = os.environ.get("DROIDVERIFY_SHARED")
    shared = Path(base) if base else Path(__file__).resolve().parents[2] / ".." / "shared"
    dumps = sorted((shared / "data" / "uiautomator").glob("*.xml"))
    if not dumps:
        pytest.fail(f"real uiautomator dumps missing under {shared} (set DROIDVERIFY_SHARED)")
    return dumps
