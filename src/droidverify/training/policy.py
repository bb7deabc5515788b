"""Training the compact policy the other papers' ways: SFT and ASL's semantic loss.

The compact verifier's scores over a step's candidates, through a softmax, are a policy
``pi(a | s)``: its log-probabilities cost one small forward pass. Three objectives train the same
network on the same ``VerifierStepRecord`` files, so they can be compared at one data budget:

- ``p3`` (``training.compact.CompactTrainer``): V-Droid's, every correct candidate (equivalents
  included) above the rest.
- ``sft``: behaviour cloning, cross-entropy on the annotator's one action (the record's positive);
  an equivalent action (the launcher icon for ``open_app``) counts as wrong, as it does when a
  generator is fine-tuned on reference actions.
- ``asl`` (ASL, paper 004): per step, sample ``a ~ pi(.|s)``; ``r`` = semantic similarity of ``a``
  and the reference on that screen; loss ``-r log pi(a|s) + lambda * SFT`` with
  ``lambda = 1 - (1 - alpha) r`` and ``alpha = exp(-SFT)`` detached. With ``tau`` set, the
  thresholded reward ``r' = 1[a = ref] + beta * 1[r > tau] * r`` (the digest's
  ``r_env + beta 1[r > tau] r`` with the step-level match as ``r_env``; lambda uses ``min(r', 1)``).

Reward sources (``PolicyConfig.reward``): ``exact``, the simulator's own semantics recorded with the
data (1 when the sampled candidate leads to the same phone state as the reference, the record's
equivalents; else 0; beyond the paper), or a **semantic table** handed in by the caller (SEE with the
learned world model: ``rewards.see.semantic_table``; training never imports rewards). A table gives,
per record, every candidate's similarity to the reference; it is computed once and cached in the
output directory (``rewards-<name>.json``), so a resumed run reads it back.

The trained network is exported as a compact verifier (``verifier.json`` names its objective), so
``droidverify run --agent verifier --verifier DIR`` runs it: greedy is the verifier's argmax.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from droidverify.actions.model import Action
from droidverify.agents.verifier.compact.features import uses_derived
from droidverify.errors import TrainingError
from droidverify.training.compact import CompactConfig, CompactTrainer, Example, expand_record
from droidverify.training.records import VerifierStepRecord, iter_records

OBJECTIVES = ("sft", "asl")
REWARDS = ("exact", "table")

# (screen xml, the step's candidates as the scorer sees them, the reference's index) -> one
# similarity to the reference per candidate, in [-1, 1]
SemanticTable = Callable[[str, Sequence[Action], int], list[float]]


@dataclass
class PolicyConfig(CompactConfig):
    """A compact-policy training run: :class:`CompactConfig`'s network and schedule plus the objective."""

    objective: str = "sft"
    reward: str = "exact"  # asl: exact (recorded simulator semantics) or table (a SemanticTable, e.g. SEE)
    reward_name: str = "exact"  # what the table is (cache file name, provenance): e.g. "see-learned"
    tau: float | None = None  # asl thresholded variant: reward only similarities above tau ...
    beta: float = 0.5  # ... scaled by beta, on top of the exact-match reward
    samples: int = 1  # actions sampled per step (the ASL term is averaged over them)
    # how the trained policy ends an episode: "status" (declares done) or "submit" (SmartSnap's
    # self-verifying policy, trained on training.selfverify's records); written to verifier.json
    finish: str = "status"

    def validate(self) -> None:
        super().validate()
        if self.stack_folds:  # the combiner is fitted with P^3's loss and would change the policy's probabilities
            raise TrainingError("stack_folds is for `train compact` (P^3); a policy's objective trains the network alone")
        if self.members > 1:  # members would be trained by P^3's loss, not this objective's
            raise TrainingError("members is for `train compact` (P^3); a policy's objective trains one network")
        if self.objective not in OBJECTIVES:
            raise TrainingError(f"objective must be one of {OBJECTIVES} (p3 is `train compact`), got {self.objective!r}")
        if self.reward not in REWARDS:
            raise TrainingError(f"reward must be one of {REWARDS}, got {self.reward!r}")
        if self.tau is not None and not -1.0 <= self.tau <= 1.0:
            raise TrainingError(f"tau is a similarity threshold in [-1, 1], got {self.tau}")
        if self.beta < 0 or self.samples < 1:
            raise TrainingError("beta must be >= 0 and samples >= 1")
        if self.finish not in ("status", "submit"):
            raise TrainingError(f"finish must be 'status' or 'submit', got {self.finish!r}")


def exact_rewards(ex: Example) -> list[float]:
    """The simulator's semantics as a reward row: 1 for the candidates that reach the reference's
    state (the record's positive and equivalents), else 0."""
    return [1.0 if j in ex.correct else 0.0 for j in range(len(ex.candidate_json))]


def asl_loss(scores: Any, reference: Sequence[int], sampled: Any, reward: Any) -> Any:
    """ASL's loss averaged over a batch.

    ``scores`` [B, N] (-inf where no candidate); ``reference`` the reference index per row;
    ``sampled`` [B, K] sampled indices; ``reward`` [B, K] their rewards (lambda uses ``min(r, 1)``).
    Per row: ``mean_k(-r_k log p(a_k)) + lambda * SFT``, ``lambda = 1 - (1 - alpha) * mean_k r_k``,
    ``alpha = exp(-SFT)`` detached, ``SFT = -log p(reference)``.
    """
    import torch

    logp = torch.log_softmax(scores, -1)
    ref = torch.as_tensor(list(reference), dtype=torch.long, device=scores.device)
    sft = -logp.gather(1, ref[:, None]).squeeze(1)
    alpha = torch.exp(-sft).detach()
    r = reward.to(scores.dtype)
    lam = 1.0 - (1.0 - alpha) * r.clamp(max=1.0).mean(1)
    pg = -(r * logp.gather(1, sampled)).mean(1)
    return (pg + lam * sft).mean()


class PolicyTrainer(CompactTrainer):
    """SFT or ASL on the compact policy (``config.objective``); resumable like the compact trainer."""

    def __init__(self, config: PolicyConfig, *, table: SemanticTable | None = None, encoder: Any = None,
                 log: Callable[[str], None] | None = None) -> None:
        config.validate()
        if config.objective == "asl" and config.reward == "table" and table is None:
            raise TrainingError(f"reward 'table' ({config.reward_name}) needs a semantic table function")
        super().__init__(config, encoder=encoder, log=log)
        self.config: PolicyConfig = config
        self.table = table
        self.reward_stats: dict[str, Any] = {}

    def load_data(self) -> None:
        super().load_data()
        cfg = self.config
        if cfg.objective == "sft":
            return  # behaviour cloning needs no reward: the annotator's action alone is right
        if cfg.reward == "exact":
            for ex in self.train_examples:
                ex.meta["reward"] = exact_rewards(ex)
        else:
            self._table_rewards()
        rows = [ex.meta["reward"] for ex in self.train_examples]
        off = [x for row, ex in zip(rows, self.train_examples, strict=True)
               for j, x in enumerate(row) if j not in ex.correct]
        self.reward_stats = {"reward": cfg.reward_name if cfg.reward == "table" else "exact",
                             "mean_reward_of_wrong_candidates": round(sum(off) / max(len(off), 1), 4),
                             "wrong_candidates_above_tau": (round(sum(x > cfg.tau for x in off) / max(len(off), 1), 4)
                                                            if cfg.tau is not None else None)}
        self.data_stats.update(self.reward_stats)

    def _table_rewards(self) -> None:
        """Every train example's row of the semantic table, read from the cache or computed (and cached)."""
        assert self.table is not None
        cfg = self.config
        cache_file = self.out / f"rewards-{cfg.reward_name}.json"
        cache: dict[str, list[float]] = json.loads(cache_file.read_text()) if cache_file.is_file() else {}
        want = {ex.record_id: ex for ex in self.train_examples if ex.record_id not in cache}
        if want:
            self.say(f"semantic rewards ({cfg.reward_name}) for {len(want)} records")
            done = 0
            for rec in iter_records(cfg.train_file):
                ex = want.get(rec.record_id)
                if ex is None:
                    continue
                cache[rec.record_id] = self._row(rec, ex)
                done += 1
                if done % 500 == 0:
                    self.say(f"  {done}/{len(want)}")
                    _write_json(cache_file, cache)
            _write_json(cache_file, cache)
        for ex in self.train_examples:
            row = cache.get(ex.record_id)
            if row is None or len(row) != len(ex.candidate_json):
                raise TrainingError(f"{cache_file}: no reward row matching record {ex.record_id}'s candidates "
                                    "(the data file changed): delete the cache file to recompute it")
            ex.meta["reward"] = [float(x) for x in row]

    def _row(self, rec: VerifierStepRecord, ex: Example) -> list[float]:
        assert self.table is not None and ex.positive is not None and rec.xml is not None
        _, cands, _, _ = expand_record(rec, self.config.apps, self.config.content,
                                       uses_derived(self.config.feature_version))
        if [c.to_json() for c in cands] != list(ex.candidate_json):
            raise TrainingError(f"record {rec.record_id}: candidates differ between preparations")
        row = [float(x) for x in self.table(rec.xml, cands, ex.positive)]
        if len(row) != len(cands) or not all(math.isfinite(x) for x in row):
            raise TrainingError(f"the semantic table {self.config.reward_name!r} returned {len(row)} values "
                                f"(finite: {all(math.isfinite(x) for x in row)}) for {len(cands)} candidates")
        # the reference and what the simulator says is the same are exact: the table only grades the rest
        return [1.0 if j in ex.correct else x for j, x in enumerate(row)]

    def batch_loss(self, scores: Any, batch: Sequence[Example]) -> Any:
        import torch

        cfg = self.config
        ref = [ex.positive for ex in batch]
        if cfg.objective == "sft":
            logp = torch.log_softmax(scores, -1)
            return -logp.gather(1, torch.as_tensor(ref)[:, None]).mean()
        # the same samples at the same step whether or not the run was interrupted
        gen = torch.Generator().manual_seed(cfg.seed * 1_000_003 + self.step)
        probs = torch.softmax(scores.detach().float(), -1)
        sampled = torch.multinomial(probs, cfg.samples, replacement=True, generator=gen)
        r = torch.tensor([[self._reward(ex, int(j), ref[b]) for j in sampled[b]] for b, ex in enumerate(batch)])
        return asl_loss(scores, ref, sampled, r)  # type: ignore[arg-type]

    def _reward(self, ex: Example, j: int, ref: int | None) -> float:
        r = float(ex.meta["reward"][j])
        tau = self.config.tau
        if tau is None:
            return r
        return (1.0 if j == ref else 0.0) + self.config.beta * (r if r > tau else 0.0)

    def train(self, *, resume: bool = True) -> dict[str, Any]:
        result = super().train(resume=resume)
        result["objective"] = self.config.objective
        return result

    def export(self, directory: str | Path, *, provenance: dict[str, Any] | None = None) -> Path:
        return super().export(directory, provenance={**(provenance or {}), "objective": self.config.objective,
                                                     **({"reward": self.reward_stats} if self.reward_stats else {})})


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data))
    tmp.replace(path)
