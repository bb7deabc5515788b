"""A trained verifier on disk: LoRA adapter + score head + what they were trained on.

Layout of a verifier directory::

    verifier.json         format, base model and its digest, head kind, prompt settings
    adapter/              peft LoRA adapter (adapter_config.json, adapter_model.safetensors)
    head.safetensors      the score head over next-token logits
    provenance.json       command, commit, data and metrics (written by the training command)

``load_verifier`` merges the adapter into the base model (inference then costs what the untrained
model costs) and returns a :class:`VerifierAgent` whose scores come from the head.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from droidverify.agents.verifier.agent import VerifierAgent
from droidverify.agents.verifier.head import load_head
from droidverify.errors import CheckpointError, DroidVerifyError

FORMAT = "droidverify-verifier"
FORMAT_VERSION = 1


def shipped_verifier_path() -> Path:
    """The LLM verifier (LoRA adapter + head for the bundled 135M model) shipped in the package."""
    return Path(__file__).resolve().parent / "shipped"


def shipped_compact_path() -> Path:
    """The compact verifier trained by ``droidverify train default`` and shipped in the package."""
    return Path(__file__).resolve().parent / "shipped_compact"


BACKBONES = ("llm", "compact")


def verifier_backbone(directory: str | Path) -> str:
    """``"llm"`` or ``"compact"``: what a verifier directory's ``verifier.json`` says it is."""
    backbone = read_verifier_json(directory).get("backbone", "llm")
    if backbone not in BACKBONES:
        raise CheckpointError(f"{Path(directory) / 'verifier.json'}: unknown backbone {backbone!r}; "
                              f"this droidverify knows {BACKBONES}")
    return str(backbone)


def verifier_digest(directory: str | Path) -> str:
    """SHA-256 over what a verifier directory scores with (every file but provenance.json, by
    relative path and bytes): a run directory records it, so a resumed run cannot silently use
    other weights found at the same path."""
    root = Path(directory)
    h = hashlib.sha256()
    for f in sorted(p for p in root.rglob("*") if p.is_file() and p.name != "provenance.json"):
        h.update(f.relative_to(root).as_posix().encode() + b"\0")
        h.update(f.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def base_identity(llm: Any) -> dict[str, Any]:
    """What an adapter was trained on: the model's name, shape and (for a GGUF file) its digest."""
    from droidverify.llm.modelcache import file_digest, resolve_model_path

    ident: dict[str, Any] = {"name": llm.name, "vocab_size": int(llm.model.config.vocab_size),
                             "num_hidden_layers": int(llm.model.config.num_hidden_layers)}
    src = getattr(llm, "source", None)
    try:
        path = resolve_model_path(src)
        if path.is_file():
            ident["gguf_digest"] = file_digest(path)
    except DroidVerifyError:  # a directory model has no GGUF file to digest: name and shape suffice
        pass
    return ident


def save_verifier(directory: str | Path, *, peft_model: Any, head: Any, llm: Any, config: dict[str, Any],
                  provenance: dict[str, Any] | None = None, adapter_dtype: str = "bfloat16") -> Path:
    """Write adapter (cast to ``adapter_dtype`` to keep it small), head and metadata atomically."""
    import torch

    def weights(tmp: Path) -> None:
        peft_model.save_pretrained(str(tmp / "adapter"))
        if adapter_dtype != "float32":
            from safetensors.torch import load_file, save_file

            f = tmp / "adapter" / "adapter_model.safetensors"
            tensors = load_file(str(f))
            save_file({k: v.to(getattr(torch, adapter_dtype)).contiguous() for k, v in tensors.items()}, str(f))
        from droidverify.agents.verifier.head import save_head

        save_head(head, tmp / "head.safetensors")

    meta = {"format": FORMAT, "version": FORMAT_VERSION, "base_model": base_identity(llm),
            "head": head.kind, "ui_style": "html", "memory": config.get("memory", "diff"),
            "adapter_dtype": adapter_dtype, "train_config": config}
    return write_verifier_dir(directory, weights, meta, provenance)


def write_verifier_dir(directory: str | Path, weights: Callable[[Path], None], meta: dict[str, Any],
                       provenance: dict[str, Any] | None) -> Path:
    """Write a verifier directory of either backbone atomically: ``weights(tmp)`` writes the weight
    files, then verifier.json and provenance.json; a crash never leaves half a directory."""
    directory = Path(directory)
    tmp = directory.with_name(directory.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    weights(tmp)
    (tmp / "verifier.json").write_text(json.dumps(meta, indent=1))
    if provenance is not None:
        (tmp / "provenance.json").write_text(json.dumps(provenance, indent=1))
    if directory.exists():
        shutil.rmtree(directory)
    tmp.rename(directory)
    return directory


def read_verifier_json(directory: str | Path) -> dict[str, Any]:
    """A verifier directory's ``verifier.json`` (either backbone), or a :class:`CheckpointError`."""
    path = Path(directory) / "verifier.json"
    try:
        meta = json.loads(path.read_text())
    except FileNotFoundError as exc:
        raise CheckpointError(f"{directory} is not a trained verifier: no verifier.json") from exc
    except (OSError, ValueError) as exc:
        raise CheckpointError(f"cannot read {path}: {exc}") from exc
    if not isinstance(meta, dict):
        raise CheckpointError(f"{path} holds no JSON object")
    return meta


def read_verifier_meta(directory: str | Path) -> dict[str, Any]:
    directory = Path(directory)
    meta = read_verifier_json(directory)
    if meta.get("format") != FORMAT or meta.get("version") != FORMAT_VERSION:
        raise CheckpointError(f"{directory}: unknown verifier format {meta.get('format')!r} "
                              f"version {meta.get('version')!r}")
    if meta.get("backbone", "llm") != "llm":
        raise CheckpointError(f"{directory} is a {meta.get('backbone')!r} verifier, not an LLM adapter: "
                              "load it with load_verifier (or --verifier), which needs no language model")
    return meta


def _merge_lora(model: Any, adapter_dir: Path) -> None:
    """Add each LoRA delta ``scale * B @ A`` into its base weight, in place.

    Done here rather than through peft so that running a trained verifier needs only torch and
    safetensors (peft is a training extra); the result equals peft's ``merge_and_unload``.
    """
    import torch
    from safetensors.torch import load_file

    try:
        cfg = json.loads((adapter_dir / "adapter_config.json").read_text())
        tensors = load_file(str(adapter_dir / "adapter_model.safetensors"))
    except (OSError, ValueError) as exc:
        raise CheckpointError(f"cannot read the adapter in {adapter_dir}: {exc}") from exc
    r, alpha = int(cfg["r"]), float(cfg["lora_alpha"])
    scale = alpha / (r ** 0.5) if cfg.get("use_rslora") else alpha / r
    modules = dict(model.named_modules())
    pairs = 0
    for key, a in tensors.items():
        if not key.endswith(".lora_A.weight"):
            continue
        name = key[: -len(".lora_A.weight")].removeprefix("base_model.model.")
        b = tensors.get(key.replace(".lora_A.", ".lora_B."))
        module = modules.get(name)
        if b is None or module is None or not hasattr(module, "weight"):
            raise CheckpointError(f"adapter in {adapter_dir} does not fit this model: no module {name!r} "
                                  "or a missing lora_B")
        w = module.weight
        delta = (b.float() @ a.float()) * scale
        if delta.shape != w.shape:
            raise CheckpointError(f"adapter tensor {key} has shape {tuple(delta.shape)}, the model's "
                                  f"{name} weight {tuple(w.shape)}")
        with torch.no_grad():
            w.copy_((w.float() + delta.to(w.device)).to(w.dtype))
        pairs += 1
    if pairs == 0:
        raise CheckpointError(f"adapter in {adapter_dir} holds no LoRA weights")


def apply_verifier(llm: Any, directory: str | Path) -> Any:
    """Merge the verifier's adapter into ``llm.model`` (in place) and return its score head."""
    directory = Path(directory)
    meta = read_verifier_meta(directory)
    return apply_adapter(llm, directory, meta["base_model"])


def apply_adapter(llm: Any, directory: str | Path, base: dict[str, Any]) -> Any:
    """Merge ``directory/adapter`` into ``llm.model`` (in place) after checking that ``llm`` is the
    ``base`` model it was trained on (:func:`base_identity`); return ``directory/head.safetensors``.
    Shared by every LoRA + score-head checkpoint (the LLM verifier, the LLM judge)."""
    directory = Path(directory)
    merge_adapter(llm, directory, base)
    head = load_head(directory / "head.safetensors", llm.model.config.vocab_size).to(llm.device)
    return head


def merge_adapter(llm: Any, directory: str | Path, base: dict[str, Any]) -> None:
    """Check that ``llm`` is the ``base`` model ``directory/adapter`` was trained on (shape and
    GGUF digest, :func:`base_identity`), then merge the adapter into ``llm.model`` in place; the
    model's name gains the directory's. Shared by every LoRA checkpoint (verifier, judge, policy)."""
    directory = Path(directory)
    cfg = llm.model.config
    if base.get("vocab_size") != cfg.vocab_size or base.get("num_hidden_layers") != cfg.num_hidden_layers:
        raise CheckpointError(f"{directory} was trained on {base.get('name')!r} "
                              f"(vocab {base.get('vocab_size')}, {base.get('num_hidden_layers')} layers), "
                              f"not on {llm.name!r} (vocab {cfg.vocab_size}, {cfg.num_hidden_layers} layers)")
    want = base.get("gguf_digest")
    have = base_identity(llm).get("gguf_digest")
    if want and have and want != have:
        raise CheckpointError(f"{directory} was trained on a different model file (digest {want}, "
                              f"this one is {have})")
    _merge_lora(llm.model, directory / "adapter")
    llm.model.eval()
    llm.name = f"{llm.name}+{directory.name}"


def check_settings(directory: str | Path, **asked: str | None) -> dict[str, str]:
    """The settings a verifier checkpoint was trained with (``memory``; the compact one also
    ``content``), checked against what the caller asks for: None adopts the checkpoint's, anything
    else must equal it. A verifier trained on one memory's text scores another's unreliably, so a
    mismatch is a :class:`CheckpointError`, never silent. Checkpoints written before the setting was
    recorded adopt what the caller asks."""
    meta = read_verifier_json(directory)
    out: dict[str, str] = {}
    for name, want in asked.items():
        have = meta.get(name)
        if have is None:
            if want is not None:
                out[name] = want
            continue
        if want is not None and want != have:
            raise CheckpointError(f"{directory} was trained with {name} {have!r}; it cannot run with "
                                  f"{name} {want!r} (leave the option out to use {have!r}, or train "
                                  f"a verifier with {name} {want!r})")
        out[name] = str(have)
    return out


def load_compact(directory: str | Path, *, memory: str | None = None, content: str | None = None) -> Any:
    """The :class:`CompactScorer` of a compact verifier directory. ``memory``/``content``: what the
    caller asks for (see :func:`check_settings`)."""
    from droidverify.agents.verifier.compact.scorer import CompactScorer

    scorer = CompactScorer.load(directory)
    for name, asked in (("memory", memory), ("content", content)):
        have = getattr(scorer, name)
        if asked is not None and asked != have:
            raise CheckpointError(f"{directory} was trained with {name} {have!r}; it cannot run with "
                                  f"{name} {asked!r} (leave the option out to use {have!r}, or train "
                                  f"a verifier with {name} {asked!r})")
    return scorer


def load_verifier(directory: str | Path | None = None, *, llm: Any = None, model: str | None = None,
                  dtype: str = "auto", device: str = "cpu", apps: Sequence[str] | None = None,
                  **agent_kwargs: Any) -> VerifierAgent:
    """A :class:`VerifierAgent` scoring with a trained verifier (default: the shipped LLM one).

    LLM verifier: ``llm`` is an already loaded :class:`LocalLLM` of the same base model (its weights
    are changed in place); otherwise ``model``/``dtype``/``device`` load one. Compact verifier: no
    model is needed (``llm``, or ``model``, only generates content no proposal covers). Either
    kind adopts the memory (and the compact one the content mode) it was trained with, unless
    ``memory=``/``content=`` ask for others (a :class:`CheckpointError`).
    """
    directory = Path(directory) if directory is not None else shipped_verifier_path()
    if verifier_backbone(directory) == "compact":
        scorer = load_compact(directory, memory=agent_kwargs.pop("memory", None),
                              content=agent_kwargs.pop("content", None))
        if llm is None and model is not None:
            from droidverify.llm.local import LocalLLM

            llm = LocalLLM(model, dtype=dtype, device=device)
        return VerifierAgent(llm, scorer=scorer, memory=scorer.memory, content=scorer.content, apps=apps,
                             **agent_kwargs)
    read_verifier_meta(directory)  # fail before loading a model
    agent_kwargs.update(check_settings(directory, memory=agent_kwargs.pop("memory", None)))
    if llm is None:
        from droidverify.llm.local import LocalLLM

        llm = LocalLLM(model, dtype=dtype, device=device)
    head = apply_verifier(llm, directory)
    return VerifierAgent(llm, head=head, apps=apps, **agent_kwargs)
