"""Environments: the contract, the records it exchanges, the simulator and the adb device.

``SimEnv`` (``droidverify.env.sim``) and ``AdbEnv`` (``droidverify.env.adb``) are loaded only when
first named here, so importing the records stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from droidverify._lazy import lazy_attributes
from droidverify.env.interface import Environment
from droidverify.env.records import Observation, Step, TokenUsage, Trajectory

if TYPE_CHECKING:
    from droidverify.env.adb import AdbEnv
    from droidverify.env.sim import SimEnv

__getattr__ = lazy_attributes(__name__, {"AdbEnv": "droidverify.env.adb", "SimEnv": "droidverify.env.sim"})

__all__ = ["AdbEnv", "Environment", "Observation", "SimEnv", "Step", "TokenUsage", "Trajectory"]
