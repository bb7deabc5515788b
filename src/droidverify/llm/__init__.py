"""LLM backends: local transformers (default SmolLM2-135M) and OpenAI-compatible servers.

Backends import torch/transformers or openai lazily: ``from droidverify.llm import load_llm`` is cheap,
and ``LocalLLM`` / ``OpenAICompatLLM`` are loaded only when first named.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from droidverify.llm.base import LLM, Generation, Messages, ScoreResult
from droidverify.llm.registry import load_llm

if TYPE_CHECKING:
    from droidverify.llm.local import LocalLLM
    from droidverify.llm.openai_backend import OpenAICompatLLM

_LAZY = {"LocalLLM": "droidverify.llm.local", "OpenAICompatLLM": "droidverify.llm.openai_backend"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["LLM", "Generation", "LocalLLM", "Messages", "OpenAICompatLLM", "ScoreResult", "load_llm"]
