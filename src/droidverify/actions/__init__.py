"""Actions: one model (AndroidWorld names + SmartSnap submit), validation and LLM-text parsing."""

from droidverify.actions.model import ACTION_TYPES, DIRECTIONS, TERMINAL_TYPES, Action, ActionType

__all__ = ["ACTION_TYPES", "DIRECTIONS", "TERMINAL_TYPES", "Action", "ActionType"]
