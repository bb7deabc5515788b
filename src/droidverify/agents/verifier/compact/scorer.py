"""The compact verifier backbone: step views -> tensors -> scores, and its checkpoint on disk.

Layout of a compact verifier directory (the same ``verifier.json`` format as the LLM verifier, with
``"backbone": "compact"``)::

    verifier.json       format, backbone, feature version, encoder, network shape, memory/content, and
                        the stacking combiner when trained with one (scale and a weight per number)
    model.safetensors   the network's weights (the sentence encoder is the bundled MiniLM, frozen); an
                        ensemble (``"members": K`` in verifier.json) holds K networks of one shape
    provenance.json     command, commit, data and metrics (written by the training command)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from droidverify.actions.model import Action
from droidverify.agents.verifier.compact.features import (
    FEATURE_VERSION,
    MAX_MEMORY,
    SUPPORTED_FEATURE_VERSIONS,
    StepView,
    numeric_names,
    step_view,
    uses_clauses,
)
from droidverify.errors import CheckpointError
from droidverify.llm.embeddings import EMBEDDER_NAME, TextEncoder
from droidverify.ui.element import UIElement

FORMAT = "droidverify-verifier"
FORMAT_VERSION = 1
BACKBONE = "compact"


def batch_tensors(views: Sequence[StepView], encoder: TextEncoder, *, with_clauses: bool | None = None) -> dict[str, Any]:
    """Pad a list of step views into the network's inputs (embedding every string through ``encoder``).
    ``with_clauses``: whether to pass the goal's clauses (feature version 7; None: when a view has any)."""
    import numpy as np
    import torch

    strings: list[str] = []
    for v in views:
        strings.extend(v.strings())
    emb = encoder.encode(strings)
    e = emb.shape[1] if emb.ndim == 2 and emb.shape[0] else encoder.dimension()
    b = len(views)
    m = max((len(v.memory) for v in views), default=0)
    n = max((len(v.candidates) for v in views), default=0)
    f = len(views[0].candidates[0].numeric) if views and views[0].candidates else len(numeric_names())
    goal = np.zeros((b, e), np.float32)
    mem = np.zeros((b, m, e), np.float32)
    mem_mask = np.zeros((b, m), bool)
    text = np.zeros((b, n, e), np.float32)
    ctx = np.zeros((b, n, e), np.float32)
    value = np.zeros((b, n, e), np.float32)
    num = np.zeros((b, n, f), np.float32)
    cand_mask = np.zeros((b, n), bool)
    c_max = max((len(v.clauses) for v in views), default=0)
    clauses = np.zeros((b, c_max, e), np.float32)
    clause_mask = np.zeros((b, c_max), bool)
    pos = 0
    for i, v in enumerate(views):
        k, c = len(v.memory), len(v.candidates)
        goal[i] = emb[pos]
        pos += 1
        if k:  # right-aligned: the newest entry is always the last slot
            mem[i, m - k:] = emb[pos:pos + k]
            mem_mask[i, m - k:] = True
        pos += k
        text[i, :c] = emb[pos:pos + c]
        pos += c
        ctx[i, :c] = emb[pos:pos + c]
        pos += c
        value[i, :c] = emb[pos:pos + c]
        pos += c
        num[i, :c] = np.asarray([cv.numeric for cv in v.candidates], np.float32).reshape(c, f)
        cand_mask[i, :c] = True
        k = len(v.clauses)
        clauses[i, :k] = emb[pos:pos + k]
        clause_mask[i, :k] = True
        pos += k
    t = torch.from_numpy
    out = {"goal": t(goal), "mem": t(mem), "mem_mask": t(mem_mask), "text": t(text), "ctx": t(ctx),
           "value": t(value), "num": t(num), "cand_mask": t(cand_mask)}
    if with_clauses or (with_clauses is None and any(v.clauses for v in views)):
        out.update(clauses=t(clauses), clause_mask=t(clause_mask))
    return out


class CompactScorer:
    """Scores a step's candidates with a :class:`CompactNet` over frozen sentence embeddings.

    ``memory`` and ``content`` name the working memory the network was trained on and how it fills
    text (``select``: candidates carry proposed values); the agent adopts them from the checkpoint.
    """

    kind = BACKBONE

    def __init__(self, net: Any, encoder: TextEncoder | None = None, *, memory: str = "diff",
                 content: str = "select", finish: str = "status", meta: dict[str, Any] | None = None,
                 combiner: dict[str, Any] | None = None) -> None:
        self.net = net.eval()
        self.encoder = encoder or TextEncoder()
        self.memory = memory
        self.content = content
        self.meta = {**(meta or {}), "finish": (meta or {}).get("finish", finish)}
        self.feature_version = int(self.meta.get("feature_version", FEATURE_VERSION))
        self.combiner = combiner if combiner is not None else self.meta.get("combiner")
        if self.combiner is not None:
            check_combiner(self.combiner, self.feature_version)

    def combine(self, scores: Any, num: Any, cand_mask: Any) -> Any:
        """The network's scores as the combiner weighs them against the numbers (stacking; identity
        without a combiner): ``scale * score + numbers @ weights``, -inf where no candidate is."""
        if self.combiner is None:
            return scores
        import torch

        w = torch.tensor(self.combiner["weights"], dtype=num.dtype)
        out = float(self.combiner["scale"]) * scores.masked_fill(~cand_mask, 0.0) + num @ w
        return out.masked_fill(~cand_mask, float("-inf"))

    def view(self, goal: str, memory_text: str, elements: Sequence[UIElement], candidates: Sequence[Action],
             descriptions: Sequence[str] | None = None) -> StepView:
        return step_view(goal, memory_text, elements, candidates, descriptions, version=self.feature_version)

    def score_views(self, views: Sequence[StepView], batch: int = 64) -> list[list[float]]:
        """Scores of each step's candidates, ``batch`` steps per forward pass."""
        import torch

        self.net.eval()
        out: list[list[float]] = []
        with torch.inference_mode():
            for start in range(0, len(views), batch):
                chunk = views[start:start + batch]
                t = batch_tensors(chunk, self.encoder, with_clauses=uses_clauses(self.feature_version))
                s = self.combine(self.net(**t), t["num"], t["cand_mask"])
                out.extend(s[i, :len(v.candidates)].tolist() for i, v in enumerate(chunk))
        return out

    def score(self, goal: str, memory_text: str, elements: Sequence[UIElement], candidates: Sequence[Action],
              descriptions: Sequence[str] | None = None) -> list[float]:
        """One score per candidate (higher is better)."""
        return self.score_views([self.view(goal, memory_text, elements, candidates, descriptions)])[0]

    # ---- on disk ---------------------------------------------------------------------------
    def save(self, directory: str | Path, *, train_config: dict[str, Any] | None = None,
             provenance: dict[str, Any] | None = None) -> Path:
        """Write the checkpoint atomically (a crash never leaves half a directory)."""
        from safetensors.torch import save_file

        from droidverify.agents.verifier.trained import write_verifier_dir

        def weights(tmp: Path) -> None:
            save_file({k: v.detach().contiguous() for k, v in self.net.state_dict().items()},
                      str(tmp / "model.safetensors"))

        meta = {"format": FORMAT, "version": FORMAT_VERSION, "backbone": BACKBONE,
                "feature_version": self.feature_version, "numeric": list(numeric_names(self.feature_version)),
                "max_memory": MAX_MEMORY,
                "encoder": EMBEDDER_NAME, "encoder_dtype": getattr(self.encoder, "dtype", "float32"),
                "net": self.net.cfg.to_dict(), "memory": self.memory,
                "content": self.content, "train_config": train_config or {}}
        if self.meta.get("finish", "status") != "status":  # a self-verifying policy ends by submitting proof
            meta["finish"] = self.meta["finish"]
        if self.combiner is not None:
            meta["combiner"] = self.combiner
        members = len(getattr(self.net, "members", ()))
        if members:
            meta["members"] = members
        return write_verifier_dir(directory, weights, meta, provenance)

    @classmethod
    def load(cls, directory: str | Path, encoder: TextEncoder | None = None) -> CompactScorer:
        from safetensors.torch import load_file

        from droidverify.agents.verifier.compact.model import CompactNet, EnsembleNet, NetConfig

        directory = Path(directory)
        meta = read_compact_meta(directory)
        try:
            cfg = NetConfig(**meta["net"])
            members = meta.get("members", 1)
            net = EnsembleNet([CompactNet(cfg) for _ in range(members)]) if members > 1 else CompactNet(cfg)
            net.load_state_dict(load_file(str(directory / "model.safetensors")))
        except (OSError, TypeError, KeyError, RuntimeError, ValueError) as exc:
            raise CheckpointError(f"cannot load the compact verifier in {directory}: {exc}") from exc
        # the faster dtype on this CPU, whatever it was trained with: the shipped bf16 checkpoint
        # scores 1,093 validation steps to the same top-1 on fp32 vectors (docs/benchmarks.md)
        encoder = encoder or TextEncoder()
        return cls(net, encoder, memory=meta.get("memory", "diff"), content=meta.get("content", "select"),
                   meta=meta)


def ensemble_of(directories: Sequence[str | Path], encoder: TextEncoder | None = None) -> CompactScorer:
    """One scorer from compact verifiers trained alike (same features, shape, memory, content and
    ending; no stacking combiner), scoring by the mean of their probabilities."""
    from droidverify.agents.verifier.compact.model import EnsembleNet

    if len(directories) < 2:
        raise CheckpointError(f"an ensemble needs at least 2 compact verifiers, got {len(directories)}")
    encoder = encoder or TextEncoder()
    scorers = [CompactScorer.load(d, encoder=encoder) for d in directories]
    first = scorers[0]
    same = ("feature_version", "net", "memory", "content", "finish")
    for d, sc in zip(directories[1:], scorers[1:]):
        differ = [k for k in same if sc.meta.get(k) != first.meta.get(k)]
        if differ:
            raise CheckpointError(f"{d} differs from {directories[0]} in {', '.join(differ)}: an ensemble's "
                                  "networks must be trained alike")
    for d, sc in zip(directories, scorers):
        if sc.combiner is not None or isinstance(sc.net, EnsembleNet):
            raise CheckpointError(f"{d} is an ensemble or carries a stacking combiner: list its own networks")
    meta = {k: v for k, v in first.meta.items() if k in same}
    return CompactScorer(EnsembleNet([sc.net for sc in scorers]), encoder, memory=first.memory,
                         content=first.content, meta=meta)


def check_combiner(combiner: Any, feature_version: int) -> None:
    """A stacking combiner must weigh exactly the numbers of its checkpoint's feature version."""
    import math

    names = list(numeric_names(feature_version))
    if not isinstance(combiner, dict):
        raise CheckpointError(f"the combiner must be an object with scale and weights, got {type(combiner).__name__}")
    scale, weights = combiner.get("scale"), combiner.get("weights")
    if (not isinstance(scale, (int, float)) or not isinstance(weights, list) or len(weights) != len(names)
            or not all(isinstance(w, (int, float)) and math.isfinite(w) for w in weights)
            or not math.isfinite(scale) or scale <= 0):
        raise CheckpointError(f"the combiner needs a finite scale > 0 and {len(names)} finite weights (one per number "
                              f"of feature version {feature_version})")


def read_compact_meta(directory: str | Path) -> dict[str, Any]:
    """``verifier.json`` of a compact verifier, checked against what this code computes."""
    from droidverify.agents.verifier.trained import read_verifier_json

    directory = Path(directory)
    meta = read_verifier_json(directory)
    if meta.get("format") != FORMAT or meta.get("version") != FORMAT_VERSION or meta.get("backbone") != BACKBONE:
        raise CheckpointError(f"{directory}: not a compact verifier (format {meta.get('format')!r}, "
                              f"backbone {meta.get('backbone')!r})")
    version = meta.get("feature_version")
    if version not in SUPPORTED_FEATURE_VERSIONS or meta.get("numeric") != list(numeric_names(version)):
        raise CheckpointError(f"{directory} was trained on feature version {version}; this droidverify "
                              f"computes versions {list(SUPPORTED_FEATURE_VERSIONS)}: retrain it")
    members = meta.get("members", 1)
    if not isinstance(members, int) or isinstance(members, bool) or members < 1:
        raise CheckpointError(f"{directory}: members must be a whole number >= 1, got {members!r}")
    if members > 1 and meta.get("combiner") is not None:
        raise CheckpointError(f"{directory}: an ensemble ({members} members) cannot carry a stacking combiner")
    if meta.get("encoder") != EMBEDDER_NAME:
        raise CheckpointError(f"{directory} was trained on the {meta.get('encoder')!r} encoder, not {EMBEDDER_NAME!r}")
    if meta.get("combiner") is not None:
        try:
            check_combiner(meta["combiner"], version)
        except CheckpointError as exc:
            raise CheckpointError(f"{directory}: {exc}") from None
    return meta
