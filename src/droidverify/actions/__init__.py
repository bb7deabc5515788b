"""Actions: one model (AndroidWorld names + SmartSnap submit), validation and LLM-text parsing."""

from droidverify.actions.model import ACTION_TYPES, DIRECTIONS, TERMINAL_TYPES, Action, ActionType
from droidverify.actions.parse import ParseResult, action_from_dict, parse_action, try_parse_action
from droidverify.actions.validate import action_warnings, validate_action

__all__ = [
    "ACTION_TYPES", "DIRECTIONS", "TERMINAL_TYPES", "Action", "ActionType", "ParseResult",
    "action_from_dict", "action_warnings", "parse_action", "try_parse_action", "validate_action",
]
