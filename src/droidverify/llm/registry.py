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


def load_llm(spec: str | Path | None = None, **kwargs: Any) -> LLM:
    """Build the backend named by ``spec``; ``kwargs`` go to its constructor (e.g. ``dtype=``)."""
    if spec is None or (isinstance(spec, str) and spec.strip().lower() in ("", "smollm2")):
        from droidverify.llm.local import LocalLLM

        return LocalLLM(None, **kwargs)
    if isinstance(spec, str) and spec.startswith("openai:"):
        from droidverify.llm.openai_backend import OpenAICompatLLM

        rest = spec[len("openai:"):]
        url, _, model = rest.partition("#")
        return OpenAICompatLLM(url or None, model or None, **kwargs)
    if isinstance(spec, (str, Path)):
        from droidverify.llm.local import LocalLLM

        return LocalLLM(spec, **kwargs)
    raise LLMInputError(f"LLM spec must be None, 'smollm2', a model path or 'openai:URL[#model]', got {spec!r}")
