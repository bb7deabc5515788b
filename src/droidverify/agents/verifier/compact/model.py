"""The compact scorer network: a small transformer over [goal, memory entries, candidates].

Text arrives as frozen sentence embeddings; each candidate adds its numbers (features.py). Candidates
carry no position, so the scores do not depend on the order candidates are listed in; memory
entries carry their recency. One score per candidate (a logit: softmax over a step is the policy).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import torch
from torch import nn


@dataclass
class NetConfig:
    emb_dim: int = 384
    n_numeric: int = 49
    d_model: int = 128
    layers: int = 2
    heads: int = 4
    ff: int = 256
    dropout: float = 0.1
    max_memory: int = 12
    input_dropout: float = 0.0  # on the embeddings and numbers going in (against memorising templates)
    # Share of candidates whose own text and row embeddings are hidden in training (1: always, also
    # when scoring), leaving their matches with the goal and the numbers: against learning which
    # element is right by its name on the train templates ("Documents" in Files) rather than by the goal.
    identity_dropout: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class CompactNet(nn.Module):
    GOAL, MEMORY, CANDIDATE = 0, 1, 2

    def __init__(self, cfg: NetConfig) -> None:
        super().__init__()
        self.cfg = cfg
        d, e = cfg.d_model, cfg.emb_dim
        self.goal_proj = nn.Linear(e, d)
        self.mem_proj = nn.Linear(e, d)
        self.mem_recency = nn.Embedding(cfg.max_memory, d)
        # text, row context, value, their products with the goal (what matches it), numbers, 3 cosines
        self.cand_proj = nn.Sequential(nn.Linear(6 * e + cfg.n_numeric + 3, d), nn.GELU(), nn.Linear(d, d))
        self.kind = nn.Embedding(3, d)
        self.drop_in = nn.Dropout(cfg.input_dropout)
        if cfg.layers > 0:
            layer = nn.TransformerEncoderLayer(d, cfg.heads, cfg.ff, cfg.dropout, batch_first=True, norm_first=True)
            self.encoder: nn.Module | None = nn.TransformerEncoder(layer, cfg.layers, enable_nested_tensor=False)
        else:
            self.encoder = None
        self.out = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, d), nn.GELU(), nn.Linear(d, 1))

    def forward(self, goal: torch.Tensor, mem: torch.Tensor, mem_mask: torch.Tensor, text: torch.Tensor,
                ctx: torch.Tensor, value: torch.Tensor, num: torch.Tensor, cand_mask: torch.Tensor) -> torch.Tensor:
        """goal [B,E]; mem [B,M,E] with mem_mask [B,M] (True = present, newest last); text/ctx/value
        [B,N,E], num [B,N,F], cand_mask [B,N] (True = present). Returns [B,N] scores (-inf where absent)."""
        b, m = mem.shape[0], mem.shape[1]
        g = goal.unsqueeze(1)
        cos = [(x * g).sum(-1, keepdim=True) for x in (text, ctx, value)]
        # unit-norm embeddings have entries ~1/sqrt(E): scale them to ~1, like the numbers beside them
        s = self.cfg.emb_dim ** 0.5
        goal, mem, text, ctx, value, g = goal * s, mem * s, text * s, ctx * s, value * s, g * s
        own_text, own_ctx = text, ctx
        kept = 1.0 - self.cfg.identity_dropout  # share of candidates whose own name is read
        if kept <= 0.0:
            own_text, own_ctx = torch.zeros_like(text), torch.zeros_like(ctx)
        elif self.cfg.identity_dropout > 0.0 and self.training:
            keep = (torch.rand(text.shape[:-1] + (1,), device=text.device) < kept).to(text.dtype) / kept
            own_text, own_ctx = text * keep, ctx * keep
        cand = self.cand_proj(self.drop_in(torch.cat([own_text, own_ctx, value, text * g, ctx * g, value * g, num, *cos],
                                                     -1)))
        cand = cand + self.kind.weight[self.CANDIDATE]
        tokens = [self.goal_proj(goal).unsqueeze(1) + self.kind.weight[self.GOAL]]
        masks = [torch.ones(b, 1, dtype=torch.bool, device=goal.device)]
        if m > 0:
            # recency 0 = the newest entry; entries are right-aligned (newest last) by the batcher
            rec = torch.arange(m - 1, -1, -1, device=goal.device).clamp(max=self.cfg.max_memory - 1)
            tokens.append(self.mem_proj(mem) + self.mem_recency(rec) + self.kind.weight[self.MEMORY])
            masks.append(mem_mask)
        tokens.append(cand)
        masks.append(cand_mask)
        x = torch.cat(tokens, 1)
        present = torch.cat(masks, 1)
        if self.encoder is not None:
            x = self.encoder(x, src_key_padding_mask=~present)
        scores = self.out(x[:, -cand.shape[1]:]).squeeze(-1)
        return scores.masked_fill(~cand_mask, float("-inf"))
