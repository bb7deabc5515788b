"""LLM backends: local transformers (default SmolLM2-135M) and OpenAI-compatible servers.

Backends import torch/transformers or openai lazily: ``from droidverify.llm import load_llm`` is cheap.
"""

from droidverify.llm.base import LLM, Generation, Messages, ScoreResult
from droidverify.llm.registry import load_llm

__all__ = ["LLM", "Generation", "Messages", "ScoreResult", "load_llm"]
