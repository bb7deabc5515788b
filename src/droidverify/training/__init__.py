"""Training: verifier step data labelled by the simulator's oracles, the P^3 trainer, and V-Droid's
annotation loop with entropy triage. Heavy dependencies (torch, peft) load only when training runs."""

from droidverify.training.collection import (
    CollectStats,
    NoisyOracle,
    collect,
    match_candidate,
    reverse_action,
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
    "SCHEMA_VERSION", "CollectStats", "CompletionLabel", "DataSpec", "LoopConfig", "NoisyOracle", "P3Config",
    "P3Trainer", "VerifierStepRecord", "build_dataset", "collect", "entropy_auc", "iter_records",
    "load_hf_dataset", "match_candidate", "plot_curves", "read_records", "reverse_action", "roc_auc",
    "run_loop", "write_records",
]
