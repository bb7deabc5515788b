"""Typed records (issue 10, design): candidate records shared by agents and the report, and the
episode outcome as Trajectory fields."""

from __future__ import annotations

import math
from pathlib import Path

from fakes import FakeEnv, pairs

from droidverify.agents.base import CandidateRecord
from droidverify.agents.random import NoopAgent
from droidverify.env.records import Trajectory
from droidverify.runner.report import _verifier_view
from droidverify.runner.run import run_many
from droidverify.runner.store import load_trajectories


def test_candidate_record_round_trips_and_reads_untrusted_input() -> None:
    rec = CandidateRecord(action='{"action_type":"wait"}', description="wait", score=0.25, logprob_yes=-1.0,
                          logprob_no=-0.5)
    assert CandidateRecord.from_dict(rec.to_dict()) == rec
    bad = CandidateRecord.from_dict({"action": 3, "score": "high", "logprob_yes": math.inf})
    assert bad == CandidateRecord(action="3", description="", score=None)
    assert CandidateRecord.list_from({"candidates": [rec.to_dict(), "junk"]})[1].score is None
    assert CandidateRecord.list_from({"candidates": "junk"}) == []


def test_report_reads_candidates_through_the_record_type() -> None:
    cands = [CandidateRecord('{"action_type":"wait"}', "wait", 0.2).to_dict(),
             CandidateRecord('{"action_type":"navigate_back"}', "back", 0.7).to_dict()]
    view = _verifier_view({"candidates": cands, "chosen": 1, "argmax": 1}, top_k=8)
    assert view is not None and [b.description for b in view.bars] == ["back", "wait"]


def test_episode_outcome_is_typed_on_the_trajectory(tmp_path: Path) -> None:
    run_many(NoopAgent, pairs(range(1)), tmp_path, env_factory=FakeEnv, progress=False)
    for traj in load_trajectories(tmp_path):
        assert traj.termination == "complete" and traj.checker_score == 0.0 and traj.success == 0.0
        assert traj.agent_error is None and traj.checker_error is None
        again = Trajectory.from_dict(traj.to_dict())
        assert (again.termination, again.checker_score) == ("complete", 0.0)
