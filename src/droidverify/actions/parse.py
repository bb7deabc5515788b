"""Extract one :class:`Action` from free LLM text.

LLM output is untrusted: it may wrap the action in prose or code fences, use single quotes,
trailing commas or Python literals, borrow key and action names from other agent frameworks, or
contain nothing usable at all. :func:`parse_action` either returns a valid ``Action`` or raises
an :class:`~droidverify.errors.ActionError` subclass -- never anything else.

Accepted forms (anywhere in the text):

- JSON objects, also inside ```` ```json ```` fences or after ``Action:``; single-quoted strings,
  trailing commas and ``True``/``False``/``None`` are accepted.
- Wrapped objects: ``{"action": {...}}``, OpenAI-style ``{"name": "click", "arguments": {...}}``
  (``arguments`` may be a JSON string), ``{"action": "click", "params": {...}}``.
- Function calls as :meth:`Action.describe` renders them: ``click(index=3)``,
  ``submit(evidences=[1, 2], text='done')``, plus one positional argument for the obvious field
  (``open_app("Clock")``, ``click(3)``, ``scroll("down")``).

Selection rule: candidates are ordered by where they END in the text; the **last** candidate that
converts to a valid action wins (an LLM that revises itself usually ends with the final answer).
Nested objects are considered only when their enclosing object is not action-like. If no
candidate is valid, the error of the last action-like candidate is raised as
``ActionValidationError``; with no action-like candidate at all, ``ActionParseError``.

Aliases (see ``KEY_ALIASES`` and ``ACTION_ALIASES``): ``action``/``type``→``action_type``,
``element_id``/``idx``→``index``, ``app``→``app_name``, ``status``→``goal_status``,
``message``→``text``, ``evidence``→``evidences``, ``coordinate: [x, y]``→``x``/``y``;
``tap``→click, ``type``→input_text, ``back``→navigate_back, ``home``→navigate_home,
``enter``→keyboard_enter, ``finish``/``done``→status complete, ``scroll_down``→scroll down, ...
Commentary keys (``reason``, ``thought``, ...) are dropped; other unknown keys are errors.

Prompt injection: text the agent read on screen ("ignore previous instructions and ...") that
the model copies into its output is just more text here. Parsing never executes anything; a
resulting action still has to pass :func:`~droidverify.actions.validate.validate_action` against
the real screen, and which action to take is the agent's decision, not the parser's.
"""

from __future__ import annotations

import ast
import json
import math
import re
import warnings
from dataclasses import dataclass
from typing import Any

from droidverify.actions.model import ACTION_TYPES, DIRECTIONS, Action
from droidverify.errors import ActionError, ActionParseError, ActionValidationError

MAX_INPUT_CHARS = 100_000  # longer inputs are rejected outright
MAX_NESTING = 32  # deeper JSON/literal nesting is not an action
_MAX_CALL_CANDIDATES = 200  # function-call look-alikes examined (last ones in the text)
_MAX_CALL_CHARS = 20_000  # longest function-call argument list scanned

_FIELDS = frozenset(Action.model_fields)

KEY_ALIASES: dict[str, str] = {
    "action": "action_type", "type": "action_type", "action_name": "action_type", "name": "action_type",
    "actiontype": "action_type", "action_type": "action_type",
    "element_id": "index", "idx": "index", "element": "index", "element_index": "index",
    "elem_id": "index", "id": "index", "index": "index",
    "app": "app_name", "app_name": "app_name", "application": "app_name", "package": "app_name",
    "status": "goal_status", "goal_status": "goal_status",
    "message": "text", "text": "text", "content": "text", "value": "text", "answer": "text",
    "evidence": "evidences", "evidences": "evidences", "evidence_ids": "evidences",
    "direction": "direction", "press_enter": "press_enter", "x": "x", "y": "y",
}
_COORD_KEYS = ("coordinate", "coordinates", "point", "xy", "position")
_WRAPPER_KEYS = ("arguments", "args", "params", "parameters", "action_input", "input")
COMMENTARY_KEYS = frozenset({
    "reason", "reasoning", "thought", "thoughts", "explanation", "description", "rationale",
    "summary", "observation", "plan", "confidence", "comment", "note", "notes", "why",
})

ACTION_ALIASES: dict[str, dict[str, Any]] = {
    "tap": {"action_type": "click"}, "press": {"action_type": "click"},
    "click_element": {"action_type": "click"}, "tap_element": {"action_type": "click"},
    "long_click": {"action_type": "long_press"}, "longpress": {"action_type": "long_press"},
    "long_tap": {"action_type": "long_press"}, "long_press_element": {"action_type": "long_press"},
    "double_click": {"action_type": "double_tap"}, "doubletap": {"action_type": "double_tap"},
    "type": {"action_type": "input_text"}, "input": {"action_type": "input_text"},
    "type_text": {"action_type": "input_text"}, "enter_text": {"action_type": "input_text"},
    "text_input": {"action_type": "input_text"}, "set_text": {"action_type": "input_text"},
    "clear": {"action_type": "clear_text"},
    "back": {"action_type": "navigate_back"}, "go_back": {"action_type": "navigate_back"},
    "press_back": {"action_type": "navigate_back"},
    "home": {"action_type": "navigate_home"}, "go_home": {"action_type": "navigate_home"},
    "press_home": {"action_type": "navigate_home"},
    "enter": {"action_type": "keyboard_enter"}, "press_enter": {"action_type": "keyboard_enter"},
    "open": {"action_type": "open_app"}, "launch": {"action_type": "open_app"},
    "launch_app": {"action_type": "open_app"}, "start_app": {"action_type": "open_app"},
    "open_application": {"action_type": "open_app"},
    "sleep": {"action_type": "wait"},
    "finish": {"action_type": "status", "goal_status": "complete"},
    "done": {"action_type": "status", "goal_status": "complete"},
    "complete": {"action_type": "status", "goal_status": "complete"},
    "task_complete": {"action_type": "status", "goal_status": "complete"},
    "infeasible": {"action_type": "status", "goal_status": "infeasible"},
    "reply": {"action_type": "answer"}, "respond": {"action_type": "answer"},
    **{f"scroll_{d}": {"action_type": "scroll", "direction": d} for d in DIRECTIONS},
    **{f"swipe_{d}": {"action_type": "swipe", "direction": d} for d in DIRECTIONS},
}
_GOAL_STATUS_ALIASES = {
    "complete": "complete", "completed": "complete", "done": "complete", "success": "complete",
    "successful": "complete", "finished": "complete", "task_complete": "complete",
    "infeasible": "infeasible", "impossible": "infeasible", "task_infeasible": "infeasible",
    "not_feasible": "infeasible", "failed": "infeasible", "failure": "infeasible",
}
# One positional argument of a function-call rendering maps to this field.
_POSITIONAL: dict[str, str] = {
    "click": "index", "long_press": "index", "double_tap": "index", "clear_text": "index",
    "scroll": "direction", "swipe": "direction", "open_app": "app_name", "answer": "text",
    "status": "goal_status", "input_text": "text", "submit": "text",
}
_INT_FIELDS = ("index", "x", "y")


@dataclass(frozen=True)
class ParseResult:
    """Outcome of :func:`try_parse_action`: exactly one of ``action`` / ``error`` is set."""

    action: Action | None
    error: str | None = None
    error_type: str | None = None  # "ActionParseError" or "ActionValidationError"

    @property
    def ok(self) -> bool:
        return self.action is not None


# ---------------------------------------------------------------------------------------------
# Candidate scanning (linear, no regex backtracking over the whole input)
# ---------------------------------------------------------------------------------------------
@dataclass
class _Span:
    start: int
    end: int  # exclusive
    depth: int  # max nesting below and including this span
    children: list[_Span]


def _scan_objects(text: str) -> list[_Span]:
    """Top-level balanced ``{...}`` spans, string-aware, in text order (one pass)."""
    stack: list[_Span] = []
    roots: list[_Span] = []
    quote: str | None = None
    prev_sig = ""  # previous non-space char outside strings
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if quote is not None:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = None
                prev_sig = c
            i += 1
            continue
        if c == "{":
            stack.append(_Span(i, -1, 1, []))
        elif c == "}" and stack:
            span = stack.pop()
            span.end = i + 1
            span.depth = 1 + max((ch.depth for ch in span.children), default=0)
            (stack[-1].children if stack else roots).append(span)
        elif c in "\"'" and stack and prev_sig in "{[,:(":
            # Only a quote where a key/value may start opens a string; prose apostrophes don't.
            quote = c
        if not c.isspace():
            prev_sig = c
        i += 1
    # Unclosed outer braces: their closed children are still candidates.
    for span in stack:
        roots.extend(span.children)
    roots.sort(key=lambda s: s.start)
    return roots


def _match_paren(text: str, open_pos: int) -> int | None:
    """Index just past the ``)`` closing ``text[open_pos] == '('``, string-aware; None if unclosed."""
    depth, quote = 0, None
    limit = min(len(text), open_pos + _MAX_CALL_CHARS)
    i = open_pos
    while i < limit:
        c = text[i]
        if quote is not None:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c in "([{":
            depth += 1
            if depth > MAX_NESTING:
                return None
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1 if c == ")" else None
        i += 1
    return None


_CALL_NAMES = sorted(set(ACTION_TYPES) | set(ACTION_ALIASES), key=len, reverse=True)
_CALL_RE = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, _CALL_NAMES)) + r")\(")


# ---------------------------------------------------------------------------------------------
# Literal decoding
# ---------------------------------------------------------------------------------------------
_NAME_CONSTS = {"true": True, "false": False, "null": None, "none": None,
                "True": True, "False": False, "None": None}


class _NotLiteral(Exception):
    pass


def _literal(node: ast.AST, depth: int = 0) -> Any:
    """Evaluate a JSON/Python literal expression (dicts, lists, strings, numbers, true/null/None)."""
    if depth > MAX_NESTING:
        raise _NotLiteral("nested too deeply")
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool, type(None))):
        return node.value
    if isinstance(node, ast.Name) and node.id in _NAME_CONSTS:
        return _NAME_CONSTS[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _literal(node.operand, depth + 1)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return -v if isinstance(node.op, ast.USub) else v
        raise _NotLiteral("sign on a non-number")
    if isinstance(node, ast.Dict):
        out = {}
        for k, v in zip(node.keys, node.values, strict=True):
            if k is None:
                raise _NotLiteral("** in dict")
            key = _literal(k, depth + 1)
            if not isinstance(key, str):
                raise _NotLiteral("non-string key")
            out[key] = _literal(v, depth + 1)
        return out
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(e, depth + 1) for e in node.elts]
    raise _NotLiteral(type(node).__name__)


def _parse_expr(src: str) -> ast.expr | None:
    try:
        with warnings.catch_warnings():  # e.g. "invalid escape sequence" from model output
            warnings.simplefilter("ignore")
            return ast.parse(src.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None


def _decode_object(src: str) -> dict[str, Any] | None:
    """JSON first; then a lenient literal reading (single quotes, trailing commas, True/None)."""
    try:
        value = json.loads(src)
    except (ValueError, RecursionError):
        value = None
        expr = _parse_expr(src)
        if expr is not None:
            try:
                value = _literal(expr)
            except (_NotLiteral, RecursionError):
                value = None
    return value if isinstance(value, dict) else None


# ---------------------------------------------------------------------------------------------
# Normalisation of a decoded dict into Action fields
# ---------------------------------------------------------------------------------------------
def _norm_name(value: str) -> str:
    return re.sub(r"[\s\-]+", "_", value.strip().lower())


_ACTION_KEY_PRIORITY = ("action_type", "actiontype", "action", "action_name", "type", "name")


def _action_key(data: dict[str, Any]) -> tuple[str | None, str | None, dict[str, Any]]:
    """(key used, canonical action type, implied fields) named by ``data`` after aliases."""
    keys = {_norm_name(k): k for k in data if isinstance(k, str)}
    for alias in _ACTION_KEY_PRIORITY:
        key = keys.get(alias)
        if key is None or not isinstance(data[key], str):
            continue
        name = _norm_name(data[key])
        if name in ACTION_TYPES:
            return key, name, {}
        if name in ACTION_ALIASES:
            implied = dict(ACTION_ALIASES[name])
            return key, implied.pop("action_type"), implied
    return None, None, {}


def _action_name(data: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    _key, name, implied = _action_key(data)
    return name, implied


def _is_action_like(data: dict[str, Any]) -> bool:
    """Names a known action, or has an explicit action key (whose value may be unknown)."""
    if _action_name(data)[0] is not None:
        return True
    if any(isinstance(k, str) and _norm_name(k) in ("action_type", "actiontype", "action")
           and isinstance(v, str) for k, v in data.items()):
        return True
    return any(isinstance(v, dict) and _is_action_like(v) for k, v in data.items()
               if _norm_name(k) in ("action", "function", "tool_call"))


def _check_int(field: str, value: Any) -> Any:
    if isinstance(value, bool):
        raise ActionValidationError(f"{field} must be an integer, got a boolean ({value})", field=field)
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            raise ActionValidationError(f"{field} must be an integer, got {value!r}", field=field)
        return int(value)
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())  # "3": the Action itself takes only real ints
    return value


def _to_fields(data: dict[str, Any], _depth: int = 0) -> dict[str, Any]:
    """Map an LLM's dict (aliases, wrappers, commentary) to Action.from_dict input."""
    if _depth > 4:
        raise ActionValidationError("action wrapped too deeply", field="action_type")
    # {"action": {...}} / {"function": {"name":..., "arguments":...}} wrappers.
    for key, val in data.items():
        if _norm_name(key) in ("action", "function", "tool_call") and isinstance(val, dict) \
                and _is_action_like(val):
            return _to_fields(val, _depth + 1)
    action_key, name, implied = _action_key(data)
    if name is None:
        named = next((v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)
                      and KEY_ALIASES.get(_norm_name(k)) == "action_type"), None)
        what = f"unknown action type {named[:40]!r}" if named else f"no action type in {list(data)[:8]!r}"
        raise ActionValidationError(f"{what}; expected one of {', '.join(ACTION_TYPES)}",
                                    field="action_type")
    out: dict[str, Any] = {"action_type": name, **implied}
    items = list(data.items())
    for key, val in items:
        k = _norm_name(key)
        if k in _WRAPPER_KEYS:
            if isinstance(val, str):
                decoded = _decode_object(val) if len(val) <= MAX_INPUT_CHARS else None
                if decoded is None and k in ("input", "action_input"):
                    items.append(("text", val))  # {"action": "type", "input": "hello"}
                    continue
                if decoded is None:
                    raise ActionValidationError(f"{key} is not an object: {val[:80]!r}", field=key)
                val = decoded
            if isinstance(val, dict):
                items.extend(val.items())
                continue
            raise ActionValidationError(f"{key} must be an object of parameters", field=key)
    for key, val in items:
        k = _norm_name(key)
        if key == action_key or k in _WRAPPER_KEYS or k in COMMENTARY_KEYS:
            continue
        if KEY_ALIASES.get(k) == "action_type":
            if k == "name" and name == "open_app":
                k = "app_name"  # {"action_type": "open_app", "name": "Clock"}
            elif isinstance(val, str) and _action_key({"action_type": val})[1] == name:
                continue  # the same action named twice
            else:
                raise ActionValidationError(
                    f"conflicting action types: {data[action_key]!r} and {key}={val!r}", field=key)
        if k in _COORD_KEYS:
            if not (isinstance(val, (list, tuple)) and len(val) == 2):
                raise ActionValidationError(f"{key} must be [x, y], got {val!r}", field=key)
            out["x"], out["y"] = _check_int("x", val[0]), _check_int("y", val[1])
            continue
        field = KEY_ALIASES.get(k, key)
        if field == "text" and name == "status" and "goal_status" not in out:
            field = "goal_status"  # {"action": "status", "value": "complete"}
        if field in out and field not in implied:
            raise ActionValidationError(f"{field} given twice (as {key!r} and another alias)", field=field)
        out[field] = val
    for f in _INT_FIELDS:
        if f in out:
            out[f] = _check_int(f, out[f])
    if isinstance(out.get("text"), (int, float)) and not isinstance(out["text"], bool):
        out["text"] = str(out["text"])  # a number the model meant to type
    if isinstance(out.get("press_enter"), str):
        flag = out["press_enter"].strip().lower()
        out["press_enter"] = {"true": True, "yes": True, "1": True, "false": False, "no": False,
                              "0": False}.get(flag, out["press_enter"])
    if isinstance(out.get("direction"), str):
        out["direction"] = out["direction"].strip().lower()
    if isinstance(out.get("goal_status"), str):
        gs = _norm_name(out["goal_status"])
        out["goal_status"] = _GOAL_STATUS_ALIASES.get(gs, gs)
    ev = out.get("evidences")
    if isinstance(ev, (int, float)) and not isinstance(ev, bool):
        ev = [ev]
    if isinstance(ev, list):
        out["evidences"] = [_check_int("evidences", e) for e in ev]
    return out


def action_from_dict(data: dict[str, Any]) -> Action:
    """Build an Action from an LLM-style dict with aliases; raises ``ActionValidationError``."""
    return Action.from_dict(_to_fields(data))


def _call_to_dict(expr: ast.expr) -> dict[str, Any] | None:
    """``click(index=3)`` -> {"action_type": "click", "index": 3}; None if not a literal call."""
    if not isinstance(expr, ast.Call) or not isinstance(expr.func, ast.Name):
        return None
    try:
        kwargs = {kw.arg: _literal(kw.value) for kw in expr.keywords if kw.arg is not None}
        args = [_literal(a) for a in expr.args]
    except (_NotLiteral, RecursionError):
        return None
    if any(kw.arg is None for kw in expr.keywords):
        return None
    name = _norm_name(expr.func.id)
    canon = name if name in ACTION_TYPES else ACTION_ALIASES.get(name, {}).get("action_type")
    data: dict[str, Any] = {"action_type": name, **kwargs}
    if args:
        pos_field = _POSITIONAL.get(canon or "")
        if pos_field is None or len(args) > (2 if canon == "submit" else 1):
            return {"action_type": name, "__positional__": args}
        if canon == "submit" and len(args) == 2:
            data["evidences"] = args[1]
        data[pos_field] = args[0]
    return data


# ---------------------------------------------------------------------------------------------
# Public entry points
# ---------------------------------------------------------------------------------------------
def _candidates(text: str) -> list[tuple[int, str, Any]]:
    """(end, kind, payload) for JSON spans and function calls; kind is "obj" or "call"."""
    out: list[tuple[int, str, Any]] = [(s.end, "obj", s) for s in _scan_objects(text)]
    calls = list(_CALL_RE.finditer(text))[-_MAX_CALL_CANDIDATES:]
    for m in calls:
        end = _match_paren(text, m.end() - 1)
        if end is not None:
            out.append((end, "call", (m.start(), end)))
    out.sort(key=lambda c: c[0], reverse=True)
    return out


def _try_span(text: str, span: _Span, errors: list[ActionValidationError]) -> Action | None:
    if span.depth > MAX_NESTING:
        return None
    data = _decode_object(text[span.start:span.end])
    if data is not None and _is_action_like(data):
        try:
            return action_from_dict(data)
        except ActionValidationError as exc:
            errors.append(exc)
            return None
    # Not an action itself: look inside (e.g. {"steps": [{...action...}]}), last child first.
    for child in reversed(span.children):
        action = _try_span(text, child, errors)
        if action is not None:
            return action
    return None


def parse_action(text: str) -> Action:
    """Extract the action from LLM output (see the module docstring for formats and the rule).

    Raises ``ActionParseError`` when nothing action-like is found and ``ActionValidationError``
    when an action was found but is malformed. Never raises anything else.
    """
    if not isinstance(text, str):
        raise ActionParseError(f"expected text, got {type(text).__name__}", text=None)
    if len(text) > MAX_INPUT_CHARS:
        raise ActionParseError(
            f"output is {len(text)} characters; at most {MAX_INPUT_CHARS} are parsed", text=text[:200] + "...")
    errors: list[ActionValidationError] = []
    try:
        for _end, kind, payload in _candidates(text):
            if kind == "obj":
                action = _try_span(text, payload, errors)
            else:
                start, end = payload
                expr = _parse_expr(text[start:end])
                data = _call_to_dict(expr) if expr is not None else None
                action = None
                if data is not None:
                    if "__positional__" in data:
                        errors.append(ActionValidationError(
                            f"{text[start:end][:80]}: use keyword arguments, e.g. click(index=3)",
                            field="arguments"))
                        continue
                    try:
                        action = action_from_dict(data)
                    except ActionValidationError as exc:
                        errors.append(exc)
            if action is not None:
                return action
    except ActionError:
        raise
    except (RecursionError, MemoryError, ValueError, TypeError, KeyError) as exc:  # pragma: no cover
        # Defensive: any gap in the guards above still surfaces as a typed error.
        raise ActionParseError(f"could not parse output: {type(exc).__name__}", text=text) from None
    if errors:
        # Candidates are visited last-first, so errors[0] belongs to the last action-like one.
        raise errors[0]
    raise ActionParseError(
        "no action found: expected a JSON object like {\"action_type\": \"click\", \"index\": 3} "
        "or a call like click(index=3)", text=text)


def try_parse_action(text: str) -> ParseResult:
    """Like :func:`parse_action` but never raises: errors come back in ``ParseResult.error``."""
    try:
        return ParseResult(parse_action(text))
    except ActionError as exc:
        return ParseResult(None, str(exc), type(exc).__name__)
