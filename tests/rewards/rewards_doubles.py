"""Scripted judge LLMs for the reward tests (no model load)."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from types import ModuleType

from droidverify.env.records import TokenUsage
from droidverify.llm.base import Generation, ScoreResult


class ScriptedLLM:
    """Replies from a list (cycled) or from ``reply_fn(messages, call_index)``; may raise instead."""

    name = "scripted"

    def __init__(self, replies: list[str | Exception] | None = None,
                 reply_fn: Callable[[list[dict[str, str]], int], str] | None = None) -> None:
        self.replies = list(replies or [])
        self.reply_fn = reply_fn
        self.calls: list[dict] = []

    def generate(self, messages, *, max_tokens=256, temperature=0.0, stop=None, seed=None) -> Generation:
        i = len(self.calls)
        self.calls.append({"messages": messages, "temperature": temperature, "seed": seed,
                           "max_tokens": max_tokens})
        if self.reply_fn is not None:
            out: str | Exception = self.reply_fn(messages, i)
        else:
            out = self.replies[i % len(self.replies)]
        if isinstance(out, Exception):
            raise out
        n_in = sum(len(m["content"].split()) for m in messages)
        return Generation(text=out, usage=TokenUsage(prompt_tokens=n_in, completion_tokens=len(out.split())))

    def score(self, prefix, continuations, targets=("Yes", "No")) -> ScoreResult:
        raise AssertionError("judges do not score")

    def render_chat(self, messages, *, add_generation_prompt=True) -> str:
        out = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
        return out + ("<|im_start|>assistant\n" if add_generation_prompt else "")

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def reply(verdict: str, valid: bool | None = None, reasoning: str = "The screen shows it.") -> str:
    ev = "" if valid is None else f"<evidence_valid>{valid}</evidence_valid>\n"
    return f"<reasoning>{reasoning}</reasoning>\n{ev}<verdict>{verdict}</verdict>"


@lru_cache(maxsize=1)
def small_set():
    from droidverify.rewards.labelled import build_items

    return tuple(build_items("train", n=60, seeds=range(2)))


def load_benchmark(name: str) -> ModuleType:
    """A script of benchmarks/ (not a package) loaded as a module, e.g. ``load_benchmark("rewards")``."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
