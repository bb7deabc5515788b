"""The rule judge: the task's checker behind the ``Judge`` contract (ground truth on the simulator)."""

from __future__ import annotations

from typing import Any

from droidverify.env.records import Trajectory, episode_success, is_success
from droidverify.errors import DroidVerifyError
from droidverify.rewards.base import Judgement, Tally, trajectory_id

VERSION = "rule-v1"
PHONE_STATE_KEY = "final_phone_state"  # Trajectory.metadata key of the encoded final phone


def final_phone(traj: Trajectory) -> Any | None:
    """The simulator phone the episode ended in, decoded from the saved state (None if not saved)."""
    text = traj.metadata.get(PHONE_STATE_KEY) if isinstance(traj.metadata, dict) else None
    if not text:
        return None
    from droidverify.env.sim.state import decode_phone

    return decode_phone(text)


def task_of(traj: Trajectory) -> Any:
    """Re-instantiate the episode's task; its parameters must match the recorded ones."""
    from droidverify.errors import JudgeInputError
    from droidverify.tasks import registry

    task = registry.get_template(traj.task_id).instantiate(traj.seed or 0)
    recorded = traj.metadata.get("params") if isinstance(traj.metadata, dict) else None
    if recorded is not None and recorded != task.params:
        raise JudgeInputError(f"episode {trajectory_id(traj)}: recorded params differ from "
                              f"{traj.task_id} seed {traj.seed} (task definitions changed?)")
    return task


class RuleJudge:
    """Re-runs the checker on the saved final phone state when there is one; otherwise reports the
    checker result the runner recorded. Success needs the checker AND a declaration of done."""

    name = "rule"
    version = VERSION

    def judge(self, trajectory: Trajectory) -> Judgement:
        tally = Tally()
        eid = trajectory_id(trajectory)
        try:
            phone = final_phone(trajectory)
            if phone is not None:
                task = task_of(trajectory)
                score: float | None = float(task.is_successful(phone, trajectory.answer))
                phone.close()
                source = "final_phone_state"
            else:
                raw = trajectory.metadata.get("checker_score")
                score = float(raw) if raw is not None else (
                    None if trajectory.success is None or not trajectory.declared_done
                    else float(trajectory.success))
                source = "recorded"
        except DroidVerifyError as exc:
            return tally.judgement(episode_id=eid, judge=self.name, version=self.version,
                                   outcome="undecided", reward=0.0, error=f"{type(exc).__name__}: {exc}")
        if score is None:
            return tally.judgement(episode_id=eid, judge=self.name, version=self.version,
                                   outcome="undecided", reward=0.0, error="no checker result recorded",
                                   components={"source": source})
        reward = episode_success(score, trajectory.declared_done) or 0.0  # a float: score is not None
        return tally.judgement(
            episode_id=eid, judge=self.name, version=self.version,
            outcome="success" if is_success(reward) else "failure", reward=reward,
            components={"checker_score": score, "declared_done": trajectory.declared_done, "source": source},
            rationale=f"checker {score:g}, {'declared' if trajectory.declared_done else 'did not declare'} done")
