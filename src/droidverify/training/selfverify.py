"""Warm-start data for the self-verifying compact policy: oracle episodes ending in a correct submit.

SmartSnap's agent ends with ``submit(message, evidences)``; a ranking policy chooses among the submit
candidates of ``agents.verifier.submit`` (each of the last rounds alone, the last two together). These
records are the oracle's episodes as that policy sees them: at every step the ``status complete``
candidate is replaced by the submit candidates of the rounds so far (so submitting early is a
negative everywhere), and the final ``status complete`` label becomes the submit citing the proof:

- an operation: the first round after which the task's checker passes (its resulting screen shows
  the change), found by replaying the episode on the simulator;
- a query: the round whose screen the answer was read from (the one before the ``answer``), with
  the answer in the message.

This is the same exhibit ``rewards.labelled`` cites in its correct submit episodes (``sv_correct``),
on which the compact evidence judge was trained. An episode whose proof round is not among the
offered candidates (older than the last few rounds) keeps its other steps and loses the final one
(counted in ``stats["proof_not_offered"]``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from droidverify.actions.model import Action
from droidverify.agents.screen import describe_action
from droidverify.agents.verifier.submit import submit_candidates
from droidverify.env.records import Observation, is_success
from droidverify.tasks.base import Task
from droidverify.training.collection import collect
from droidverify.training.records import VerifierStepRecord

_DONE = Action(action_type="status", goal_status="complete").to_json()


def _passed_after(task: Task, recs: Sequence[VerifierStepRecord]) -> list[bool] | None:
    """Whether the checker passes after each recorded round (None: the replay left the recorded path)."""
    from droidverify.env.sim import SimEnv

    env = SimEnv(task=task, seed=task.seed, skin=recs[0].skin)
    try:
        obs = env.reset()
        out: list[bool] = []
        for rec in recs:
            if obs.xml != rec.xml:
                return None
            action = Action.model_validate_json(rec.oracle_action)
            if action.is_terminal:
                break
            obs = env.step(action)
            out.append(is_success(task.is_successful(env.phone, env.last_answer)))
        return out
    finally:
        env.close()


def proof_round(recs: Sequence[VerifierStepRecord], passed: Sequence[bool]) -> int | None:
    """The round that proves an oracle episode (module docstring); None when there is none."""
    for rec in recs:
        if Action.model_validate_json(rec.oracle_action).action_type == "answer":
            return rec.step - 1 if rec.step >= 1 else None
    return next((k for k, ok in enumerate(passed) if ok), None)


def as_self_verifying(recs: Sequence[VerifierStepRecord], proof: int | None,
                      stats: dict[str, int]) -> Iterator[VerifierStepRecord]:
    """One oracle episode's records with submit candidates in place of ``status complete``."""
    given: str | None = None
    for rec in recs:
        cands = [Action.model_validate_json(c) for c in rec.candidates]
        subs = submit_candidates(range(rec.step), given)
        new: list[Action] = []
        for c in cands:
            new.extend(subs if c.to_json() == _DONE else [c])
        if _DONE not in rec.candidates:
            new.extend(subs)
        keys = [c.to_json() for c in new]
        old_pos = rec.candidates[rec.positive]
        if old_pos == _DONE:
            want = Action(action_type="submit", text=subs[0].text, evidences=(proof,)).to_json() if proof is not None else None
            if want not in keys:
                stats["proof_not_offered"] = stats.get("proof_not_offered", 0) + 1
                continue
            positive, equivalent = keys.index(want), []
        else:
            positive = keys.index(old_pos)
            equivalent = [keys.index(rec.candidates[i]) for i in rec.equivalent if rec.candidates[i] in keys]
        elements = Observation(xml=rec.xml).elements if rec.xml is not None else []
        oracle = new[positive].to_json() if old_pos == _DONE else rec.oracle_action
        yield rec.model_copy(update={
            "record_id": f"sv:{rec.record_id}", "candidates": keys,
            "descriptions": [describe_action(c, elements) for c in new], "positive": positive,
            "equivalent": equivalent, "oracle_action": oracle})
        stats["records"] = stats.get("records", 0) + 1
        a = Action.model_validate_json(rec.oracle_action)
        if a.action_type == "answer":  # later submits carry it in their message
            given = a.text


def submit_records(tasks: Iterable[Task], *, split_of: Callable[[str], str], apps: Sequence[str],
                   skin: str = "seeded", stats: dict[str, Any] | None = None) -> Iterator[VerifierStepRecord]:
    """Warm-start records (module docstring) from the oracle's episodes of ``tasks``."""
    st: dict[str, Any] = stats if stats is not None else {}
    for task in tasks:
        recs = sorted(collect([task], split_of=split_of, apps=apps, policy="oracle", skin=skin), key=lambda r: r.step)
        st["episodes"] = st.get("episodes", 0) + 1
        if not recs or Action.model_validate_json(recs[-1].oracle_action).to_json() != _DONE:
            st["not_finished"] = st.get("not_finished", 0) + 1
            continue
        passed = _passed_after(task, recs)
        if passed is None:
            st["replay_diverged"] = st.get("replay_diverged", 0) + 1
            continue
        yield from as_self_verifying(recs, proof_round(recs, passed), st)


def with_submit_candidates(rec: VerifierStepRecord) -> VerifierStepRecord | None:
    """Any other record (noisy-policy states, mid-task starts) as the self-verifying policy sees it:
    ``status complete`` replaced by the submit candidates of its rounds. None for a record whose label
    is ``status complete`` (which round proves it needs a replay: :func:`submit_records` does that);
    the message carries no answer (the record does not tell which was given)."""
    if rec.candidates[rec.positive] == _DONE:
        return None
    stats: dict[str, int] = {}
    # the record alone: its positive is not the ending, so as_self_verifying only swaps candidates
    out = list(as_self_verifying([rec.model_copy(update={"oracle_action": rec.oracle_action})], None, stats))
    if not out:
        return None
    return out[0].model_copy(update={"record_id": f"sv:{rec.record_id}"})
