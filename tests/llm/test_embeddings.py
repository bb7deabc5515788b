"""The sentence encoder's dtype: chosen by timing on this CPU, remembered, and checked."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from droidverify.errors import ModelLoadError
from droidverify.llm.embeddings import TextEncoder, choose_embed_dtype


class _TimedModel:
    """A model whose bf16 pass is slow, as on a CPU without AVX512-BF16."""

    def __init__(self, slow: str) -> None:
        self.slow = slow
        self.dtype = "float32"
        self.calls = 0

    def to(self, dtype: Any) -> _TimedModel:
        self.dtype = str(dtype).removeprefix("torch.")
        return self

    def encode(self, texts: list[str], **_: Any) -> Any:
        self.calls += 1
        if self.dtype == self.slow:
            time.sleep(0.05)
        return np.ones((len(texts), 4), np.float32)


@pytest.mark.parametrize("slow, expected", [("bfloat16", "float32"), ("float32", "bfloat16")])
def test_auto_dtype_picks_the_faster_and_remembers_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       slow: str, expected: str) -> None:
    monkeypatch.setenv("DROIDVERIFY_CACHE", str(tmp_path))
    model = _TimedModel(slow)
    assert choose_embed_dtype(model, tmp_path / "minilm") == expected
    assert model.dtype == "float32"  # handed back in fp32; the caller casts to the choice
    assert (tmp_path / "autodtype.json").is_file()
    again = _TimedModel("float32" if slow == "bfloat16" else "bfloat16")  # would now choose the other
    assert choose_embed_dtype(again, tmp_path / "minilm") == expected
    assert again.calls == 0  # answered from disk, nothing timed


def test_timing_leaves_the_fp32_weights_exactly_as_they_were(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    class Linear(torch.nn.Module):  # an encoder with real fp32 weights that bf16 would round
        def __init__(self) -> None:
            super().__init__()
            self.lin = torch.nn.Linear(8, 4)

        def encode(self, texts: list[str], **_: Any) -> Any:
            with torch.no_grad():
                x = torch.ones(len(texts), 8, dtype=self.lin.weight.dtype)
                return self.lin(x).float().numpy()

    monkeypatch.setenv("DROIDVERIFY_CACHE", str(tmp_path))
    torch.manual_seed(0)
    model = Linear()
    before = model.lin.weight.detach().clone()
    choose_embed_dtype(model, tmp_path / "tiny")
    assert model.lin.weight.dtype == torch.float32
    assert torch.equal(model.lin.weight, before)


def test_unknown_dtype_is_refused() -> None:
    with pytest.raises(ModelLoadError, match="float16"):
        TextEncoder(dtype="float16")


def test_a_given_model_is_used_as_it_is() -> None:
    model = _TimedModel("bfloat16")
    enc = TextEncoder(model)
    assert enc.dtype == "float32"
    assert enc.encode(["a", "b", ""]).shape == (3, 4)
    assert model.calls == 1  # no timing pass on a model the caller chose


def test_a_damaged_dtype_store_is_measured_again_and_rewritten(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from droidverify.llm.modelcache import remember_dtype, remembered_dtype

    monkeypatch.setenv("DROIDVERIFY_CACHE", str(tmp_path))
    (tmp_path / "autodtype.json").write_text("[1, 2")  # a crash mid-write of some older version
    assert remembered_dtype("k", ("float32",)) is None
    remember_dtype("k", "float32")
    assert remembered_dtype("k", ("float32",)) == "float32"
    assert remembered_dtype("k", ("bfloat16",)) is None  # a stored value outside the choices is ignored


def test_a_screen_embeds_in_small_batches_and_a_data_set_in_large_ones() -> None:
    """A batch is padded to its longest string: a step's few new strings (one long goal beside short
    labels) go in small batches, a data set's thousands in large ones; each string once, in order."""
    seen: list[tuple[int, int]] = []

    class Recording:
        def encode(self, texts: list[str], *, batch_size: int, **_: Any) -> Any:
            seen.append((len(texts), batch_size))
            return np.array([[float(len(t)), 1.0] for t in texts], np.float32)

    enc = TextEncoder(Recording(), batch_size=32, small_batch_size=8)
    screen = ["a long goal " * 10, "OK", "Cancel", "OK"]
    assert enc.encode(screen)[:, 0].tolist() == [len(t) for t in screen]
    data = [f"label {i}" for i in range(300)]
    enc.encode(data + screen)
    assert seen == [(3, 8), (256, 32), (44, 32)]  # the screen's strings are not embedded again


def test_warming_the_cache_embeds_each_new_string_once_and_returns_no_matrix() -> None:
    """A trainer warms the cache with every string of its data (millions, mostly repeats): each
    distinct new string reaches the model once, and no per-occurrence matrix is built."""
    seen: list[str] = []

    class Recording(_TimedModel):
        def encode(self, texts: list[str], **kw: Any) -> Any:
            seen.extend(texts)
            return super().encode(texts, **kw)

    enc = TextEncoder(Recording("bfloat16"))
    assert enc.cache_texts(["a", "b", "a", "", "b", "c"] * 1000) == 3
    assert sorted(seen) == ["a", "b", "c"]
    assert enc.cache_texts(["a", "d", "d"]) == 1  # only "d" is new
    assert sorted(seen) == ["a", "b", "c", "d"]
    assert enc.encode(["d", "", "a"]).shape == (3, 4)  # served from the cache
    assert sorted(seen) == ["a", "b", "c", "d"]
