"""``load_llm(spec)``: one string names any backend (used by the CLI and configs).

* ``None``, ``""`` or ``"smollm2"``: the bundled SmolLM2-135M-Instruct (local, transformers);
* a path: a transformers model directory or a ``.gguf`` file (local);
* ``"openai:"``: an OpenAI-compatible server at ``$OPENAI_BASE_URL`` with key ``$OPENAI_API_KEY``;
* ``"openai:URL"`` or ``"openai:URL#model"``: a server at URL (model: the first it lists if absent).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from droidverify.errors import LLMInputError
from droidverify.llm.base import LLM

OPENAI_PREFIX = "openai:"


def is_remote(spec: str | Path | None) -> bool:
    """Whether ``spec`` names an OpenAI-compatible server (only a client loads: no local model, and the
    server chooses its own dtype and device). The one test of the ``openai:`` prefix."""
    return isinstance(spec, str) and spec.startswith(OPENAI_PREFIX)


def load_llm(spec: str | Path | None = None, **kwargs: Any) -> LLM:
    """Build the backend named by ``spec``; ``kwargs`` go to its constructor (e.g. ``dtype=``)."""
    if spec is None or (isinstance(spec, str) and spec.strip().lower() in ("", "smollm2")):
        from droidverify.llm.local import LocalLLM

        return LocalLLM(None, **kwargs)
    if isinstance(spec, str) and is_remote(spec):
        from droidverify.llm.openai_backend import OpenAICompatLLM

        rest = spec[len(OPENAI_PREFIX):]
        url, _, model = rest.partition("#")
        return OpenAICompatLLM(url or None, model or None, **kwargs)
    if isinstance(spec, (str, Path)):
        from droidverify.llm.local import LocalLLM

        return LocalLLM(spec, **kwargs)
    raise LLMInputError(f"LLM spec must be None, 'smollm2', a model path or 'openai:URL[#model]', got {spec!r}")


def load_model(spec: str | Path | None, *, dtype: str = "auto", device: str = "cpu") -> LLM:
    """:func:`load_llm` as agents, judges and GRPO players load their model lazily (once per worker):
    ``dtype`` and ``device`` apply to a local model only; a server chooses its own."""
    if is_remote(spec):
        return load_llm(spec)
    return load_llm(spec, dtype=dtype, device=device)
