"""Episode runner: run agents on tasks, record every step to resumable JSONL, summarise (docs/runner.md)."""

from droidverify.runner.episode import run_episode
from droidverify.runner.run import normalize_pairs, run_many
from droidverify.runner.store import load_trajectories, read_jsonl
from droidverify.runner.summary import GroupStats, RunSummary

__all__ = ["GroupStats", "RunSummary", "load_trajectories", "normalize_pairs", "read_jsonl", "run_episode",
           "run_many"]
