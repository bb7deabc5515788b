"""Episode runner: run agents on tasks, record every step to resumable JSONL, summarise (docs/runner.md)."""

from droidverify.runner.episode import run_episode
from droidverify.runner.factories import AgentSpec, EnvSpec, make_agent, make_env
from droidverify.runner.run import normalize_pairs, run_many
from droidverify.runner.store import load_trajectories, read_jsonl, read_steps
from droidverify.runner.summary import GroupStats, RunSummary

__all__ = ["AgentSpec", "EnvSpec", "GroupStats", "RunSummary", "load_trajectories", "make_agent", "make_env",
           "normalize_pairs", "read_jsonl", "read_steps", "run_episode", "run_many"]
