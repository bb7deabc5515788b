"""A trained LLM policy on disk (what ``droidverify train llm-policy`` exports) and how an agent runs it.

Layout of a policy directory::

    policy.json         format, base model and its digest, agent, screen style, memory, objective
    adapter/            peft LoRA adapter (adapter_config.json, adapter_model.safetensors)
    provenance.json     command, commit, data and result (written by the training command)
    init/               only for a policy trained from another one (``train llm-policy --init``: GRPO
                        from the SFT start): that policy, whole; its adapter is merged first

The adapter is merged into the loaded base model (``agents.verifier.trained.merge_adapter``: the
base is checked first), so a trained policy costs what the untrained model costs per step. A policy
was trained on one agent's prompt (the generator's or the self-verifying agent's), one screen
description and one memory's text: running it with another is refused, never silent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from droidverify.errors import CheckpointError

POLICY_FORMAT = "droidverify-llm-policy"
POLICY_FORMAT_VERSION = 1
POLICY_FILE = "policy.json"


def read_policy_meta(directory: str | Path) -> dict[str, Any]:
    """A policy directory's ``policy.json``, checked: format and version, the agent whose prompt it
    was trained on, its screen style and memory; :class:`CheckpointError` naming what is wrong."""
    import json

    from droidverify.agents.registry import MEMORIES, SAMPLING_AGENTS
    from droidverify.agents.screen import UI_STYLES

    directory = Path(directory)
    path = directory / POLICY_FILE
    try:
        meta = json.loads(path.read_text())
    except FileNotFoundError:
        raise CheckpointError(f"{directory} is not a trained LLM policy: no {POLICY_FILE} (export one with "
                              "`droidverify train llm-policy ... --export DIR`)") from None
    except (OSError, ValueError) as exc:
        raise CheckpointError(f"cannot read {path}: {exc}") from exc
    if not isinstance(meta, dict):
        raise CheckpointError(f"{path} holds no JSON object")
    if meta.get("format") != POLICY_FORMAT or meta.get("version") != POLICY_FORMAT_VERSION:
        raise CheckpointError(f"{path}: unknown policy format {meta.get('format')!r} version "
                              f"{meta.get('version')!r} (this droidverify reads {POLICY_FORMAT} "
                              f"version {POLICY_FORMAT_VERSION})")
    checks = (("agent", SAMPLING_AGENTS), ("ui_style", UI_STYLES), ("memory", MEMORIES))
    for key, allowed in checks:
        if meta.get(key) not in allowed:
            raise CheckpointError(f"{path}: {key} {meta.get(key)!r} is not one of {', '.join(allowed)}")
    if not isinstance(meta.get("base_model"), dict):
        raise CheckpointError(f"{path}: no base_model (the model the adapter was trained on)")
    if not (directory / "adapter" / "adapter_config.json").is_file():
        raise CheckpointError(f"{directory} has no adapter/adapter_config.json")
    init = meta.get("init")
    if init is not None:
        if not isinstance(init, dict) or not isinstance(init.get("digest"), str):
            raise CheckpointError(f"{path}: init must name the digest of the policy it was trained from")
        if not (directory / "init" / POLICY_FILE).is_file():
            raise CheckpointError(f"{directory} was trained from another policy, but has no init/{POLICY_FILE}")
    return meta


def check_policy(directory: str | Path, *, agent: str, memory: str | None = None,
                 ui_style: str | None = None) -> dict[str, Any]:
    """:func:`read_policy_meta`, and the policy fits ``agent``, ``memory`` and ``ui_style`` (None
    adopts the policy's): a policy trained on one agent's prompt, one memory's text or one screen
    description is refused for another."""
    meta = read_policy_meta(directory)
    if meta["agent"] != agent:
        raise CheckpointError(f"{directory} was trained on the {meta['agent']} agent's prompt; it cannot run "
                              f"as --agent {agent}")
    if memory is not None and memory != meta["memory"]:
        raise CheckpointError(f"{directory} was trained on the {meta['memory']!r} memory's text; it cannot run "
                              f"with memory {memory!r} (leave --memory out to use {meta['memory']!r})")
    if ui_style is not None and ui_style != meta["ui_style"]:
        raise CheckpointError(f"{directory} reads the screen as {meta['ui_style']!r}, not as {ui_style!r}")
    return meta


def check_policy_base(directory: str | Path, model: str | None) -> None:
    """Before any model is loaded: a policy trained on one GGUF file refuses another (by digest),
    so a run fails at once instead of in every worker. A model directory is checked by shape when
    it loads (:func:`apply_policy`)."""
    from droidverify.llm.modelcache import file_digest, resolve_model_path
    from droidverify.llm.registry import is_remote

    if is_remote(model):
        raise CheckpointError(f"a trained policy ({directory}) is merged into local weights: it cannot run on "
                              f"an OpenAI-compatible server ({model}); serve the merged model there instead")
    want = read_policy_meta(directory)["base_model"].get("gguf_digest")
    path = resolve_model_path(model)
    have = file_digest(path) if want and path.is_file() else want
    if have != want:
        raise CheckpointError(f"{directory} was trained on a different model file (digest {want}, "
                              f"{path} is {have})")


def apply_policy(llm: Any, directory: str | Path) -> dict[str, Any]:
    """Merge the policy's adapter into ``llm`` (in place; its base checked first) and return the
    policy's metadata (the agent builds its prompt from ``ui_style``)."""
    from droidverify.agents.verifier.trained import merge_adapter

    meta = read_policy_meta(directory)
    if meta.get("init") is not None:  # the policy it was trained from, merged first (its digest checked)
        init = Path(directory) / "init"
        have = policy_digest(init)
        if have != meta["init"]["digest"]:
            raise CheckpointError(f"{init} is not the policy {directory} was trained from (digest "
                                  f"{have[:12]}, policy.json says {meta['init']['digest'][:12]})")
        check_policy(init, agent=meta["agent"], ui_style=meta["ui_style"])
        apply_policy(llm, init)
    merge_adapter(llm, directory, meta["base_model"])
    return meta


def policy_digest(directory: str | Path) -> str:
    """SHA-256 over the policy's files but provenance.json (a run records it: a resumed run cannot
    silently play other weights found at the same path)."""
    from droidverify.agents.verifier.trained import verifier_digest

    return verifier_digest(directory)
