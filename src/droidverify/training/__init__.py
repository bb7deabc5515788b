"""Training: verifier step data labelled by the simulator's oracles, the P^3 trainer, V-Droid's
annotation loop with entropy triage, and GRPO rollout groups (``training.grpo``). Heavy dependencies
(torch, peft) load only when training runs."""

from droidverify.training.collection import (
    CollectStats,
    NoisyOracle,
    collect,
    match_candidate,
    reverse_action,
)
from droidverify.training.grpo import (
    GRPOConfig,
    GRPOMember,
    RolloutGroup,
    group_advantages,
    read_groups,
    rollout_groups,
    write_groups,
)
from droidverify.training.loop import DataSpec, LoopConfig, build_dataset, entropy_auc, roc_auc, run_loop
from droidverify.training.p3 import P3Config, P3Trainer, plot_curves
from droidverify.training.records import (
    SCHEMA_VERSION,
    CompletionLabel,
    VerifierStepRecord,
    iter_records,
    load_hf_dataset,
    read_records,
    write_records,
)

__all__ = [
    "SCHEMA_VERSION", "CollectStats", "CompletionLabel", "DataSpec", "GRPOConfig", "GRPOMember", "LoopConfig",
    "NoisyOracle", "P3Config", "P3Trainer", "RolloutGroup", "VerifierStepRecord", "build_dataset", "collect",
    "entropy_auc", "group_advantages", "iter_records", "load_hf_dataset", "match_candidate", "plot_curves",
    "read_groups", "read_records", "reverse_action", "roc_auc", "rollout_groups", "run_loop", "write_groups",
    "write_records",
]
