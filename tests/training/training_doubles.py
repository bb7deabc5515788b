"""Test doubles for the training tests."""

from __future__ import annotations


class RecordingLLM:
    """Only what prompt assembly needs: a ChatML renderer that records the prompts it is asked for."""

    name = "recording"

    def __init__(self) -> None:
        self.scored: list[tuple[str, list[str]]] = []

    def render_chat(self, messages, *, add_generation_prompt: bool = True) -> str:
        text = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
        return text + ("<|im_start|>assistant\n" if add_generation_prompt else "")

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def score(self, prefix, continuations, targets=("Yes", "No")):
        from droidverify.llm.base import ScoreResult

        self.scored.append((prefix, list(continuations)))
        return ScoreResult(logprobs=[{"Yes": -1.0 - 0.01 * i, "No": -1.0} for i in range(len(continuations))])

    def generate(self, messages, **kw):
        from droidverify.llm.base import Generation

        return Generation(text="Clock")
