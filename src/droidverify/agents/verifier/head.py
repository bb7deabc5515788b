"""V-Droid's learned score head: next-token logits -> one score per candidate.

``linear``: one linear layer over the whole vocabulary's logits, no bias (the authors' head),
initialised to ``logit(Yes) - logit(No)`` so an untrained head ranks exactly like normalised
P("Yes"). ``yesno``: that difference with no parameters (train the adapter only).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from droidverify.errors import CheckpointError

HEAD_KINDS = ("linear", "yesno")


def make_head(kind: str, vocab_size: int, yes_id: int, no_id: int) -> Any:
    """A ``torch.nn.Module`` mapping ``[n, vocab]`` float logits to ``[n]`` scores."""
    import torch

    class ScoreHead(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.kind, self.yes_id, self.no_id = kind, yes_id, no_id
            if kind == "linear":
                self.linear = torch.nn.Linear(vocab_size, 1, bias=False, dtype=torch.float32)
                with torch.no_grad():
                    self.linear.weight.zero_()
                    self.linear.weight[0, yes_id] = 1.0
                    self.linear.weight[0, no_id] = -1.0

        def forward(self, logits: torch.Tensor) -> torch.Tensor:
            if self.kind == "linear":
                return self.linear(logits.to(self.linear.weight.device).float()).squeeze(-1)
            logits = logits.float()
            return logits[:, self.yes_id] - logits[:, self.no_id]

    if kind not in HEAD_KINDS:
        raise CheckpointError(f"unknown head kind {kind!r}; choose one of {HEAD_KINDS}")
    return ScoreHead()


def save_head(head: Any, path: str | Path) -> None:
    from safetensors.torch import save_file

    tensors = {k: v.detach().float().contiguous() for k, v in head.state_dict().items()}
    save_file(tensors, str(path), metadata={"kind": head.kind, "yes_id": str(head.yes_id),
                                            "no_id": str(head.no_id)})


def load_head(path: str | Path, vocab_size: int) -> Any:
    from safetensors import safe_open
    from safetensors.torch import load_file

    try:
        with safe_open(str(path), framework="pt") as f:
            meta = f.metadata() or {}
        kind, yes_id, no_id = meta["kind"], int(meta["yes_id"]), int(meta["no_id"])
        head = make_head(kind, vocab_size, yes_id, no_id)
        head.load_state_dict(load_file(str(path)))
    except (OSError, KeyError, ValueError, RuntimeError) as exc:
        raise CheckpointError(f"cannot load score head {path}: {type(exc).__name__}: {exc}") from exc
    head.eval()
    head.requires_grad_(False)
    return head
