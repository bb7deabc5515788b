"""Helpers for the end-to-end tests: agents -> runner -> simulator / adb (recorded) -> run files.

The deterministic LLM double is the agents' ``RuleLLM`` (tests/agents/agent_doubles.py), extended
here with a per-step plan so a whole episode's choices are known in advance.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))
from agent_doubles import RuleLLM

from droidverify.env.adb import RecordingShell, ShellCall


def uiautomator_dir() -> Path:
    """The real uiautomator dumps (../shared/data/uiautomator); a missing directory FAILS the test."""
    env = os.environ.get("DROIDVERIFY_SHARED")
    root = Path(env) if env else Path(__file__).resolve().parents[2] / ".." / "shared"
    data = root / "data" / "uiautomator"
    if not data.is_dir():
        pytest.fail(f"test data missing: {data} (set DROIDVERIFY_SHARED to the shared directory)")
    return data


class PlannedLLM(RuleLLM):
    """``RuleLLM`` whose scoring rules change per ``score`` call: call *i* uses ``plan[i]``."""

    def __init__(self, plan: list[dict[str, float]], **kw) -> None:
        super().__init__(**kw)
        self.plan = plan

    def score(self, prefix: str, continuations: list[str], targets=("Yes", "No")):
        step = len(self.score_calls)
        if step >= len(self.plan):
            raise AssertionError(f"PlannedLLM.score called {step + 1} times; the plan has {len(self.plan)} steps")
        self.rules = self.plan[step]
        return super().score(prefix, continuations, targets)


LAUNCHER_DUMP = "xiaocong_uiautomator__launcher_deskclock_widget.xml"
DUMPSYS = ("  mCurrentFocus=Window{8a1c2d3 u0 com.android.launcher/com.android.launcher2.Launcher}\n"
           "  mFocusedApp=ActivityRecord{4b3e1f0 u0 com.android.launcher/com.android.launcher2.Launcher t1}\n")
# Commands AdbEnv sends to observe the screen (not caused by an action).
OBSERVE_PREFIXES = ("uiautomator dump", "cat /sdcard/window_dump.xml", "dumpsys window", "wm size")


class ReplayDevice:
    """Answers AdbEnv's commands like a device that always shows one real dump."""

    def __init__(self, xml: str) -> None:
        self.xml = xml

    def __call__(self, call: ShellCall) -> str:
        line = call.line
        if line.startswith("uiautomator dump /sdcard"):
            return "UI hierchary dumped to: /sdcard/window_dump.xml"
        if line == "cat /sdcard/window_dump.xml":
            return self.xml
        if line.startswith("dumpsys window"):
            return DUMPSYS
        if line.startswith("wm size"):
            return "Physical size: 480x800"
        if line.startswith("am start"):
            return "Starting: Intent { cmp=... }"
        return ""


def action_commands(shell: RecordingShell) -> list[str]:
    """The command lines an episode sent, without the observation commands."""
    return [c.line for c in shell.calls if not c.line.startswith(OBSERVE_PREFIXES)]
