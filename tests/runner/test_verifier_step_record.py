"""Typed run-file records (issue 23, item 5): the verifier's step record (``VerifierStepInfo``)
and the episode line (``EpisodeRecord``), written in the JSON shape run files have always had,
and lines written before them still load."""

from __future__ import annotations

import json
from pathlib import Path

from droidverify.agents.base import CandidateRecord
from droidverify.agents.verifier.record import VerifierStepInfo
from droidverify.env.records import Step, Trajectory
from droidverify.runner.report import _verifier_view
from droidverify.runner.run import _episode_record
from droidverify.runner.store import EpisodeRecord, load_trajectories, read_episodes

XML = ('<hierarchy rotation="0"><node index="0" text="Back" class="android.widget.Button" package="p" '
       'clickable="true" bounds="[0,0][100,100]" /></hierarchy>')
# A verifier step's agent_info exactly as the agent wrote it before the typed record (a sampling agent
# with avoid_repeats: every optional key present), key order included.
OLD_INFO = {
    "paradigm": "verifier", "score_kind": "p_yes_normalized", "content": "llm",
    "candidates": [{"action": "{\"action_type\":\"navigate_back\"}", "description": "go back", "score": 0.7,
                    "logprob_yes": -0.2, "logprob_no": -1.1},
                   {"action": "{\"action_type\":\"wait\"}", "description": "wait", "score": 0.3}],
    "n_candidates": 2, "argmax": 0, "chosen": 1, "entropy": 0.61, "entropy_normalized": 0.88,
    "prefix_tokens": 412, "seconds_memory": 0.01, "seconds_scoring": 0.5, "seconds_completion": 0.0,
    "memory_name": "diff", "memory": "Nothing has been done yet.", "completion": None,
    "completion_failures": [{"kind": "open_app", "raw": "", "cleaned": "", "error": "empty app name",
                             "candidate": 3}],
    "finish": "submit", "temperature": 0.5, "top_k": 4, "sampled_rank": 1,
    "skipped_repeats": [0], "all_repeats": False,
}
OLD_STEP_LINE = json.dumps({
    "kind": "step", "episode_id": "t:0", "attempt_id": "a0", "task_id": "t", "seed": 0, "index": 0,
    "n_elements": 1, "screenshot": None, "written_at": 1.0,
    "step": {"index": 0, "observation": {"xml": XML, "package": "p", "activity": None, "screen_size": [1080, 2400],
                                         "timestamp": 0.0, "info": {}},
             "action": {"action_type": "wait"}, "raw_output": None, "error": None, "agent_info": OLD_INFO,
             "usage": {"prompt_tokens": 0, "completion_tokens": 0, "cached_tokens": 0},
             "timings": {"agent": 0.01, "env": 0.0}}}, separators=(",", ":"))
OLD_EPISODE_LINE = json.dumps({
    "kind": "episode", "episode_id": "t:0", "attempt_id": "a0", "task_id": "t", "seed": 0, "agent": "verifier",
    "goal": "go back", "params": {}, "apps": ["Clock"], "complexity": 1, "task_kind": "operation", "n_steps": 1,
    "actions": ["{\"action_type\":\"wait\"}"], "errors": [None], "answer": None, "declared_done": False,
    "success": 0.0, "checker_score": 0.0, "checker_error": None, "agent_error": None, "termination": "step_limit",
    "max_steps": 1, "usage": {"prompt_tokens": 3}, "time_agent": 0.1, "time_env": 0.0, "started_at": 1.0,
    "finished_at": 2.0}, separators=(",", ":"))


def test_the_record_writes_the_agent_info_the_verifier_always_wrote() -> None:
    rec = VerifierStepInfo.from_info(OLD_INFO)
    assert rec.is_verifier and rec.chosen == 1 and rec.argmax == 0 and rec.entropy_normalized == 0.88
    assert rec.candidate(rec.argmax) == CandidateRecord.from_dict(OLD_INFO["candidates"][0])
    # same keys, same order, same values: old run files and new ones are one format
    assert json.dumps(rec.to_dict()) == json.dumps(OLD_INFO)
    plain = {k: v for k, v in OLD_INFO.items()
             if k not in ("finish", "temperature", "top_k", "sampled_rank", "skipped_repeats", "all_repeats")}
    assert json.dumps(VerifierStepInfo.from_info(plain).to_dict()) == json.dumps(plain)


def test_damaged_or_foreign_agent_info_reads_as_none_never_raises() -> None:
    junk = VerifierStepInfo.from_info({"paradigm": 3, "argmax": "0", "chosen": True, "entropy": "high",
                                       "candidates": "x", "completion_failures": ["a", {"kind": "k"}],
                                       "skipped_repeats": [1, "2"]})
    assert not junk.is_verifier and junk.argmax is None and junk.chosen is None and junk.entropy is None
    assert junk.candidates == [] and junk.completion_failures == [{"kind": "k"}] and junk.skipped_repeats == [1]
    assert junk.candidate(junk.argmax) is None
    assert VerifierStepInfo.from_info(None) == VerifierStepInfo(paradigm="")
    generator = VerifierStepInfo.from_info({"paradigm": "generator", "attempts": []})
    assert not generator.is_verifier and generator.candidates == []


def test_an_old_run_directory_loads_and_the_report_reads_its_verifier_steps(tmp_path: Path) -> None:
    (tmp_path / "steps.jsonl").write_text(OLD_STEP_LINE + "\n")
    (tmp_path / "episodes.jsonl").write_text(OLD_EPISODE_LINE + "\n")
    read = read_episodes(tmp_path)
    assert read.skipped == [] and read.episodes["t:0"]["termination"] == "step_limit"
    (traj,) = load_trajectories(tmp_path)
    (step,) = traj.steps
    assert step.agent_info == OLD_INFO
    info = VerifierStepInfo.from_info(step.agent_info)
    assert info.temperature == 0.5 and info.skipped_repeats == [0] and info.finish == "submit"
    view = _verifier_view(step.agent_info, top_k=8)
    assert view is not None and [b.chosen for b in view.bars] == [False, True]
    assert view.entropy_normalized == 0.88 and view.completion_failures == OLD_INFO["completion_failures"]


def test_the_episode_line_is_written_from_the_record_readers_validate() -> None:
    step = Step.from_dict(json.loads(OLD_STEP_LINE)["step"])
    traj = Trajectory(task_id="t", goal="go back", seed=0, agent="verifier", steps=[step], success=0.0,
                      metadata={"params": {}, "apps": ["Clock"], "complexity": 1, "task_kind": "operation",
                                "checker_score": 0.0, "checker_error": None, "agent_error": None,
                                "termination": "step_limit", "max_steps": 1, "usage": {"prompt_tokens": 3},
                                "time_agent": 0.1, "time_env": 0.0, "started_at": 1.0, "finished_at": 2.0})
    line = _episode_record(traj, "a0")
    # byte for byte the line the runner wrote before (no attempt keys without judged retries)
    assert json.dumps(line, separators=(",", ":")) == OLD_EPISODE_LINE
    assert EpisodeRecord.model_validate(line).to_line() == line
    retry = _episode_record(traj, "a1", attempt=2, attempt_seed=77)
    assert list(retry)[-2:] == ["attempt_seed", "attempt"] and (retry["attempt"], retry["attempt_seed"]) == (2, 77)
    assert EpisodeRecord.model_validate(retry).attempt_seed == 77
