"""LLM backends: local transformers (default SmolLM2-135M) and OpenAI-compatible servers.

Backends import torch/transformers or openai lazily: ``from droidverify.llm import load_llm`` is cheap,
and ``LocalLLM`` / ``OpenAICompatLLM`` are loaded only when first named.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from droidverify._lazy import lazy_attributes
from droidverify.llm.base import LLM, Generation, Messages, ScoreResult
from droidverify.llm.registry import load_llm

if TYPE_CHECKING:
    from droidverify.llm.local import LocalLLM
    from droidverify.llm.openai_backend import OpenAICompatLLM

__getattr__ = lazy_attributes(__name__, {"LocalLLM": "droidverify.llm.local",
                                         "OpenAICompatLLM": "droidverify.llm.openai_backend"})

__all__ = ["LLM", "Generation", "LocalLLM", "Messages", "OpenAICompatLLM", "ScoreResult", "load_llm"]
