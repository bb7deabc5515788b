"""Environments: the contract, the records it exchanges, the simulator and the adb device."""

from droidverify.env.interface import Environment
from droidverify.env.records import Observation, Step, TokenUsage, Trajectory

__all__ = ["Environment", "Observation", "Step", "TokenUsage", "Trajectory"]
