"""The compact scorer network: a small transformer over [goal, memory entries, candidates].

Text arrives as frozen sentence embeddings; each candidate adds its numbers (features.py). Candidates
carry no position, so the scores do not depend on the order candidates are listed in; memory
entries carry their recency. One score per candidate (a logit: softmax over a step is the policy).
"""

from __future__ import annotations

import math
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
    # LiMAC's split of action type and target: > 0 scores the step's action type once (from the goal
    # token and the pooled candidates) and each candidate within its type; the candidate's score is
    # then log P(type) + log P(candidate | type). The first ``type_kinds`` numbers of a candidate must
    # be its kind, one-hot (features.KINDS). 0: one flat score per candidate. Without it an action
    # type offered as many candidates (16 ``answer`` values) is learned as a crowd of negatives.
    type_kinds: int = 0
    # > 0: the goal's clauses (features.goal_clauses, at most this many) are tokens of their own, with
    # their order, and each candidate reads its best cosine with any clause (feature version 7)
    clauses: int = 0

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
        n_cos = 6 if cfg.clauses > 0 else 3  # with clauses, also each string's best match among them
        self.cand_proj = nn.Sequential(nn.Linear(6 * e + cfg.n_numeric + n_cos, d), nn.GELU(), nn.Linear(d, d))
        self.kind = nn.Embedding(3, d)
        if cfg.clauses > 0:
            self.clause_proj = nn.Linear(e, d)
            self.clause_pos = nn.Embedding(cfg.clauses, d)  # order, and what marks a clause token
        self.drop_in = nn.Dropout(cfg.input_dropout)
        if cfg.layers > 0:
            layer = nn.TransformerEncoderLayer(d, cfg.heads, cfg.ff, cfg.dropout, batch_first=True, norm_first=True)
            self.encoder: nn.Module | None = nn.TransformerEncoder(layer, cfg.layers, enable_nested_tensor=False)
        else:
            self.encoder = None
        self.out = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, d), nn.GELU(), nn.Linear(d, 1))
        if cfg.type_kinds > 0:
            if cfg.type_kinds > cfg.n_numeric:
                raise ValueError(f"type_kinds {cfg.type_kinds} exceeds the {cfg.n_numeric} numbers per candidate")
            self.type_head: nn.Module | None = nn.Sequential(nn.LayerNorm(3 * d), nn.Linear(3 * d, d), nn.GELU(),
                                                             nn.Linear(d, cfg.type_kinds))
        else:
            self.type_head = None

    def forward(self, goal: torch.Tensor, mem: torch.Tensor, mem_mask: torch.Tensor, text: torch.Tensor,
                ctx: torch.Tensor, value: torch.Tensor, num: torch.Tensor, cand_mask: torch.Tensor,
                clauses: torch.Tensor | None = None, clause_mask: torch.Tensor | None = None) -> torch.Tensor:
        """goal [B,E]; mem [B,M,E] with mem_mask [B,M] (True = present, newest last); text/ctx/value
        [B,N,E], num [B,N,F], cand_mask [B,N] (True = present); with ``cfg.clauses``, clauses [B,C,E] and
        clause_mask [B,C] (in the goal's order). Returns [B,N] scores (-inf where absent)."""
        b, m = mem.shape[0], mem.shape[1]
        g = goal.unsqueeze(1)
        cos = [(x * g).sum(-1, keepdim=True) for x in (text, ctx, value)]
        if self.cfg.clauses > 0:
            if clauses is None or clause_mask is None:
                raise ValueError("this network reads the goal's clauses (feature version 7): pass clauses and clause_mask")
            clauses, clause_mask = clauses[:, :self.cfg.clauses], clause_mask[:, :self.cfg.clauses]
            has = clause_mask.any(1).view(b, 1, 1)
            for x in (text, ctx, value):  # best cosine with any clause (0 for a goal without one)
                sim = torch.einsum("bne,bce->bnc", x, clauses).masked_fill(~clause_mask.unsqueeze(1), -2.0)
                best = sim.amax(-1, keepdim=True) if sim.shape[-1] else torch.zeros_like(cos[0])
                cos.append(torch.where(has, best, torch.zeros_like(best)))
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
        if self.cfg.clauses > 0 and clauses.shape[1]:  # checked present above
            order = torch.arange(clauses.shape[1], device=goal.device)
            tokens.append(self.clause_proj(clauses * s) + self.clause_pos(order))
            masks.append(clause_mask)
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
        cand_out = x[:, -cand.shape[1]:]
        scores = self.out(cand_out).squeeze(-1)
        if self.type_head is not None:
            scores = self._by_type(scores, x[:, 0], cand_out, num[..., :self.cfg.type_kinds], cand_mask)
        return scores.masked_fill(~cand_mask, float("-inf"))

    def _by_type(self, scores: torch.Tensor, goal_out: torch.Tensor, cand_out: torch.Tensor,
                 kinds: torch.Tensor, cand_mask: torch.Tensor) -> torch.Tensor:
        """log P(type | step) + log P(candidate | type), both softmaxes over what the step offers."""
        low = -1e4  # finite fills: a type or a step with nothing in it must not produce inf - inf
        present = cand_mask.unsqueeze(-1)
        count = present.sum(1).clamp(min=1).to(cand_out.dtype)
        pooled = torch.cat([goal_out, (cand_out * present).sum(1) / count,
                            cand_out.masked_fill(~present, low).amax(1)], -1)
        of_type = (kinds > 0.5) & present  # [B,N,K]
        type_logits = self.type_head(pooled).masked_fill(~of_type.any(1), low)
        kind = kinds.argmax(-1)  # [B,N]
        per_type = scores.unsqueeze(-1).masked_fill(~of_type, low).logsumexp(1)  # [B,K]
        return (scores - per_type.gather(1, kind)) + type_logits.log_softmax(-1).gather(1, kind)


class EnsembleNet(nn.Module):
    """Networks of one shape trained alike from different seeds, scoring as one: a candidate's score is
    the log of the members' mean probability for it (a deep ensemble). Networks of one recipe differ
    a lot on templates none of them saw (docs/training.md, "An ensemble of seeds"); their mean is
    steadier, and its entropy counts their disagreement as uncertainty."""

    def __init__(self, members: list[CompactNet]) -> None:
        super().__init__()
        if len(members) < 2:
            raise ValueError(f"an ensemble needs at least 2 networks, got {len(members)}")
        shapes = {tuple(sorted(m.cfg.to_dict().items())) for m in members}
        if len(shapes) != 1:
            raise ValueError("the networks of an ensemble must share one NetConfig")
        self.members = nn.ModuleList(members)
        self.cfg = members[0].cfg

    def forward(self, goal: torch.Tensor, mem: torch.Tensor, mem_mask: torch.Tensor, text: torch.Tensor,
                ctx: torch.Tensor, value: torch.Tensor, num: torch.Tensor, cand_mask: torch.Tensor,
                clauses: torch.Tensor | None = None, clause_mask: torch.Tensor | None = None) -> torch.Tensor:
        low = -1e4  # finite: a padded step with no candidate must not give NaN through log_softmax
        logp = torch.stack([m(goal, mem, mem_mask, text, ctx, value, num, cand_mask, clauses, clause_mask)
                            .masked_fill(~cand_mask, low)
                            .log_softmax(-1) for m in self.members])
        mean = logp.logsumexp(0) - math.log(len(self.members))
        return mean.masked_fill(~cand_mask, float("-inf"))
