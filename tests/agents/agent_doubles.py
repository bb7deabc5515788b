"""Test doubles and fixtures for the agent tests.

``RuleLLM`` is a deterministic implementation of the ``droidverify.llm.base.LLM`` protocol: it
scores a continuation by keyword rules and replies to generation requests from a script. It lets
the agents' control flow be tested exactly; the real model is exercised in the ``model`` test.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from droidverify.env.records import Observation, TokenUsage
from droidverify.llm.base import Generation, ScoreResult
from droidverify.ui.element import Bounds, UIElement


def shared_dir() -> Path:
    env = os.environ.get("DROIDVERIFY_SHARED")
    path = Path(env) if env else Path(__file__).resolve().parents[2] / ".." / "shared"
    if not (path / "data" / "uiautomator").is_dir():
        raise FileNotFoundError(f"shared test data not found at {path} (set DROIDVERIFY_SHARED)")
    return path


def dump_observation(name: str) -> Observation:
    """A real uiautomator dump as an Observation, with its own screen size."""
    from droidverify.ui.select import screen_size_of
    from droidverify.ui.tree import parse_xml

    xml = (shared_dir() / "data" / "uiautomator" / name).read_text(encoding="utf-8")
    root = parse_xml(xml)
    pkg = next((n.package_name for n in root.iter() if n.package_name), None)
    return Observation(xml=xml, package=pkg, screen_size=screen_size_of(root))


def el(text: str | None = None, *, top: int = 0, **kw) -> UIElement:
    """A visible element 100px high at ``top`` (tests lay elements out in a column)."""
    kw.setdefault("bbox_pixels", Bounds(0, top, 1080, top + 100))
    kw.setdefault("class_name", "android.widget.TextView")
    return UIElement(text=text, **kw)


def make_obs(elements: list[UIElement], *, package: str = "com.example.app",
             activity: str | None = None) -> Observation:
    """An Observation with given indexed elements (no XML parsing involved)."""
    root = UIElement(class_name="hierarchy", bbox_pixels=Bounds(0, 0, 1080, 2400))
    root.children = list(elements)
    for n, e in enumerate(elements, start=1):  # a real tree has unique pre-order ids and links
        e.node_id, e.parent, e.depth = n, root, 1
    return Observation(xml="<hierarchy/>", package=package, activity=activity,
                       _root=root, _elements=list(elements))


class RuleLLM:
    """Deterministic LLM double.

    - ``score``: a continuation containing any of ``yes_words`` gets P(Yes)=0.9, P(No)=0.05;
      others P(Yes)=0.1, P(No)=0.6 (unnormalised, so normalisation is observable). ``rules`` maps a
      substring to an explicit P(Yes) and overrides the default.
    - ``generate``: pops replies from ``replies`` (a list) or calls ``reply_fn(messages)``.
    - ``render_chat``: a ChatML layout like SmolLM2's.
    """

    name = "rule-llm"

    def __init__(self, *, yes_words: tuple[str, ...] = (), rules: dict[str, float] | None = None,
                 replies: list[str] | None = None,
                 reply_fn: Callable[[list[dict[str, str]]], str] | None = None,
                 logits: bool = False) -> None:
        self.yes_words = yes_words
        self.rules = rules or {}
        self.replies = list(replies or [])
        self.reply_fn = reply_fn
        self.logits = logits
        self.score_calls: list[tuple[str, list[str]]] = []
        self.generate_calls: list[list[dict[str, str]]] = []

    def render_chat(self, messages, *, add_generation_prompt: bool = True) -> str:
        out = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
        return out + ("<|im_start|>assistant\n" if add_generation_prompt else "")

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def _p_yes(self, cont: str) -> tuple[float, float]:
        question = cont.split("<|im_end|>")[0]
        for key, p in self.rules.items():
            if key in question:
                return p, max(1e-6, 1 - p - 0.05)
        if any(w in question for w in self.yes_words):
            return 0.9, 0.05
        return 0.1, 0.6

    def score(self, prefix: str, continuations: list[str], targets=("Yes", "No")) -> ScoreResult:
        import math

        self.score_calls.append((prefix, list(continuations)))
        lps = []
        for c in continuations:
            py, pn = self._p_yes(c)
            lps.append({"Yes": math.log(py), "No": math.log(pn)})
        logits = None
        if self.logits:
            import torch

            logits = torch.tensor([[d["Yes"], d["No"], 0.0] for d in lps])
        n = self.count_tokens(prefix)
        return ScoreResult(logprobs=lps, usage=TokenUsage(prompt_tokens=n + len(continuations),
                                                          cached_tokens=n), logits=logits)

    def generate(self, messages, *, max_tokens: int = 256, temperature: float = 0.0,
                 stop=None, seed=None) -> Generation:
        self.generate_calls.append(list(messages))
        if self.reply_fn is not None:
            text = self.reply_fn(messages)
        elif self.replies:
            text = self.replies.pop(0)
        else:
            raise AssertionError("RuleLLM.generate called with no scripted reply left")
        return Generation(text=text, usage=TokenUsage(prompt_tokens=10, completion_tokens=3))
