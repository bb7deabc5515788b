"""One guarded call to a judge model: usage and raw text recorded, failures returned, not raised."""

from __future__ import annotations

from dataclasses import dataclass

from droidverify import errors
from droidverify.llm.base import LLM, Messages
from droidverify.rewards.base import Tally

# A server that is down or a model that cannot load is the machinery failing, not a verdict: it
# propagates so the judging run stops and a rerun retries the episode (older trees lack the class).
INFRASTRUCTURE_ERRORS: tuple[type[BaseException], ...] = tuple(
    c for c in (getattr(errors, "InfrastructureError", None), errors.ModelLoadError) if c is not None)


@dataclass
class Reply:
    text: str | None
    error: str | None = None


def call(llm: LLM, messages: Messages, tally: Tally, *, max_tokens: int, temperature: float = 0.0,
         seed: int | None = None, stop: list[str] | None = None) -> Reply:
    """Generate once. Any model error (bad request, timeout, a backend bug) comes back as
    ``Reply(None, error)`` so the caller can mark the judgement ``undecided``."""
    try:
        gen = llm.generate(messages, max_tokens=max_tokens, temperature=temperature, seed=seed, stop=stop)
    except INFRASTRUCTURE_ERRORS:
        raise
    except Exception as exc:  # noqa: BLE001 -- an errored judge call is an undecided vote, recorded
        msg = f"{type(exc).__name__}: {exc}"
        tally.raw.append(f"[error] {msg}"[:2000])
        return Reply(None, msg)
    text = gen.text if isinstance(gen.text, str) else ""
    tally.add(gen.usage, text)
    return Reply(text)
