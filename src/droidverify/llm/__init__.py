"""LLM backends: local transformers (default SmolLM2-135M) and OpenAI-compatible servers."""

from droidverify.llm.base import LLM, Generation, Messages, ScoreResult

__all__ = ["LLM", "Generation", "Messages", "ScoreResult"]
