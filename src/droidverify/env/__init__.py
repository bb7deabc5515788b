"""Environments: the contract, the records it exchanges, the simulator and the adb device.

``SimEnv`` (``droidverify.env.sim``) and ``AdbEnv`` (``droidverify.env.adb``) are loaded only when
first named here, so importing the records stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from droidverify.env.interface import Environment
from droidverify.env.records import Observation, Step, TokenUsage, Trajectory

if TYPE_CHECKING:
    from droidverify.env.adb import AdbEnv
    from droidverify.env.sim import SimEnv

_LAZY = {"AdbEnv": "droidverify.env.adb", "SimEnv": "droidverify.env.sim"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["AdbEnv", "Environment", "Observation", "SimEnv", "Step", "TokenUsage", "Trajectory"]
