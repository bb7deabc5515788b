"""Helpers shared by the backends: message validation, the ChatML fallback, stop strings, targets."""

from __future__ import annotations

from typing import Any

from jinja2.sandbox import ImmutableSandboxedEnvironment

from droidverify.errors import LLMInputError

# Used only when a model carries no chat template of its own (and for remote models without a
# local tokenizer). ChatML is what SmolLM2, Qwen and many small instruct models are trained on:
#   <|im_start|>{role}\n{content}<|im_end|>\n ... then "<|im_start|>assistant\n" to prompt a reply.
CHATML_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
CHATML_STOP = ["<|im_end|>"]

_ROLES = {"system", "user", "assistant", "tool"}


def validate_messages(messages: Any) -> list[dict[str, str]]:
    """Check OpenAI-style messages; raise :class:`LLMInputError` naming the bad entry."""
    if not isinstance(messages, list) or not messages:
        raise LLMInputError(f"messages must be a non-empty list of dicts, got {type(messages).__name__}")
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            raise LLMInputError(f"messages[{i}] must be a dict, got {type(m).__name__}")
        role, content = m.get("role"), m.get("content")
        if role not in _ROLES:
            raise LLMInputError(f"messages[{i}].role must be one of {sorted(_ROLES)}, got {role!r}")
        if not isinstance(content, str):
            raise LLMInputError(f"messages[{i}].content must be a string, got {type(content).__name__}")
    return messages


def render_chatml(messages: list[dict[str, str]], add_generation_prompt: bool = True) -> str:
    env = ImmutableSandboxedEnvironment()
    return env.from_string(CHATML_TEMPLATE).render(messages=messages,
                                                   add_generation_prompt=add_generation_prompt)


def validate_targets(targets: Any) -> tuple[str, ...]:
    if isinstance(targets, str) or not targets:
        raise LLMInputError(f"targets must be a non-empty tuple of strings, got {targets!r}")
    targets = tuple(targets)
    for t in targets:
        if not isinstance(t, str) or not t:
            raise LLMInputError(f"each target must be a non-empty string, got {t!r}")
    if len(set(targets)) != len(targets):
        raise LLMInputError(f"targets must be distinct, got {targets!r}")
    return targets


def validate_continuations(continuations: Any) -> list[str]:
    if isinstance(continuations, str) or not isinstance(continuations, (list, tuple)):
        raise LLMInputError("continuations must be a list of strings, "
                            f"got {type(continuations).__name__}")
    for i, c in enumerate(continuations):
        if not isinstance(c, str):
            raise LLMInputError(f"continuations[{i}] must be a string, got {type(c).__name__}")
    return list(continuations)


def cut_at_stop(text: str, stop: list[str] | None) -> tuple[str, bool]:
    """Truncate ``text`` before the earliest stop string; return (text, whether one was found)."""
    if not stop:
        return text, False
    cut = min((i for i in (text.find(s) for s in stop if s) if i >= 0), default=-1)
    return (text[:cut], True) if cut >= 0 else (text, False)
