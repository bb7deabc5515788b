"""One bundled SmolLM2 model per test session, converted into a session-private cache directory.

The first load (GGUF dequantisation + save) is timed so the cache round-trip test can compare it
with a second load that must reuse the converted weights.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def model_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("dv-cache")


@pytest.fixture(scope="session")
def llm_fp32(model_cache_dir: Path) -> Iterator[object]:
    from droidverify.llm.local import LocalLLM

    old = os.environ.get("DROIDVERIFY_CACHE")
    os.environ["DROIDVERIFY_CACHE"] = str(model_cache_dir)
    try:
        t = time.perf_counter()
        llm = LocalLLM(dtype="float32", max_batch=8)
        llm.first_load_seconds = time.perf_counter() - t  # type: ignore[attr-defined]
        yield llm
    finally:
        if old is None:
            os.environ.pop("DROIDVERIFY_CACHE", None)
        else:
            os.environ["DROIDVERIFY_CACHE"] = old
