"""A judge as the verifier's finish check: the episode so far is what the runner would record, the
shipped compact judge decides, the check travels to workers, and judges that cannot read a running
episode are refused."""

from __future__ import annotations

import pickle

import pytest

from droidverify.actions.model import Action
from droidverify.env.records import Step
from droidverify.errors import JudgeInputError
from droidverify.rewards.compact_judge import CompactJudge
from droidverify.rewards.finish_check import JudgeFinishCheck, episode_so_far
from droidverify.rewards.labelled import build_training_items
from droidverify.rewards.registry import JudgeSpec


def test_the_check_judges_the_episode_as_if_it_ended_now() -> None:
    items = [i for i in build_training_items("train", seeds=[0], templates=("clock_create_alarm",))
             if i.variant in ("oracle", "early_done")]
    check = pickle.loads(pickle.dumps(JudgeFinishCheck()))  # picklable for --workers
    judge = CompactJudge.load(None, "passive")
    for item in items:
        traj = item.trajectory
        done = Action(action_type="status", goal_status="complete")
        history = [s for s in traj.steps if not (s.action is not None and s.action.is_terminal)]
        last = traj.final_observation or history[-1].observation
        so_far = episode_so_far(traj.goal, history, last, done)
        assert so_far.declared_done and so_far.steps[-1].action == done and so_far.final_observation is last
        assert len(so_far.steps) == len(history) + 1 and so_far.answer == traj.answer
        accept, detail = check(traj.goal, history, last, done)
        expected = judge.judge(so_far)
        assert accept == (expected.outcome == "success")
        assert detail["p_success"] == pytest.approx(expected.components["p_success"], abs=1e-6)
    answered = [Step(index=0, observation=items[0].trajectory.steps[0].observation,
                     action=Action(action_type="answer", text="7"))]
    assert episode_so_far("g", answered, answered[0].observation, Action(action_type="status",
                                                                         goal_status="complete")).answer == "7"


def test_judges_that_cannot_read_a_running_episode_are_refused() -> None:
    for method in ("rule", "prore", "see", "smartsnap"):
        with pytest.raises(JudgeInputError, match="finish check"):
            JudgeFinishCheck(JudgeSpec(method))
