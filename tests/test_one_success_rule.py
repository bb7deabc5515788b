"""One success rule (issue 23 item 3): every consumer agrees with ``env.records`` on a table of episodes.

Each row is an episode on a small simulator template whose checker gives the row's score (a query
template gives it only to the right answer). The reference is ``episode_success(checker, declared)``
and ``is_success`` of it; the runner (its trajectories and summary), the judge CLI's run labels, the
gym adapter, the rule judge (re-running the checker on the saved phone, and from the recorded
score), GRPO's rule reward and success rate, the labelled set's replay and label, and data
collection's episode success must all say the same. (``tests/runner/test_success_rule.py`` checks
the runner against the gym on real templates; this file covers every consumer.)
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from droidverify.actions.model import Action
from droidverify.agents.base import AgentOutput
from droidverify.env.records import (
    SUCCESS_SCORE,
    Observation,
    Step,
    Trajectory,
    episode_success,
    is_success,
    oracle_after_answer,
)
from droidverify.env.sim import SimEnv
from droidverify.errors import DroidVerifyError
from droidverify.rewards.labelled import checker_label, replay
from droidverify.rewards.rule import PHONE_STATE_KEY, RuleJudge
from droidverify.tasks import registry
from droidverify.tasks.base import Task, TaskTemplate

ANSWER = "42"
CRASH = "crash"  # in a row's actions: the agent raises instead of acting
LIMIT = 10  # the templates' step limit (TaskTemplate.max_steps for optimal_steps 1)
DONE = Action(action_type="status", goal_status="complete")
GIVE_UP = Action(action_type="status", goal_status="infeasible")
SUBMIT = Action(action_type="submit", text="done", evidences=(0,))
WAIT = Action(action_type="wait")
SAY = Action(action_type="answer", text=ANSWER)


@dataclass(frozen=True)
class Row:
    name: str
    score: float  # what the checker gives (a query template: only to the answer ANSWER)
    actions: tuple[Action | str, ...]
    checker: float  # the checker's score on the episode's end
    declared: bool  # whether the episode declared done
    query: bool = False
    answer_ends: bool = False  # run with answer_ends_episode (the gym's way)
    gym: bool = True  # the gym ends every episode at its answer: rows that go on after one are not its
    scripted: bool = True  # a scripted replay or collection cannot crash: agent-error rows are not theirs

    @property
    def expected(self) -> float:
        success = episode_success(self.checker, self.declared)
        assert success is not None
        return success

    @property
    def solved(self) -> bool:
        return is_success(self.expected)


ROWS = [
    Row("done_full", 1.0, (WAIT, DONE), 1.0, True),
    Row("done_partial", 0.5, (WAIT, DONE), 0.5, True),
    Row("done_zero", 0.0, (DONE,), 0.0, True),
    Row("gave_up_full", 1.0, (WAIT, GIVE_UP), 1.0, False),
    Row("submit_full", 1.0, (WAIT, SUBMIT), 1.0, True),
    Row("submit_partial", 0.5, (SUBMIT,), 0.5, True),
    Row("query_answered", 1.0, (SAY, DONE), 1.0, True, query=True),
    Row("query_not_answered", 1.0, (WAIT, DONE), 0.0, True, query=True),
    Row("query_answer_ends", 1.0, (SAY,), 1.0, True, query=True, answer_ends=True),
    Row("query_answer_goes_on", 1.0, (SAY, *[WAIT] * (LIMIT - 1)), 1.0, False, query=True, gym=False),
    Row("step_limit_full", 1.0, tuple([WAIT] * LIMIT), 1.0, False),
    Row("agent_error_full", 1.0, (WAIT, CRASH), 1.0, False, scripted=False),
]


def _template(row: Row) -> TaskTemplate:
    class _RowTemplate(TaskTemplate):
        name = f"dv_success_rule_{row.name}"
        apps = ("Settings",)
        kind = "query" if row.query else "operation"
        optimal_steps = 1
        goal_template = f"Success-rule episode {row.name}"

        def generate_params(self, rng: random.Random) -> dict[str, Any]:
            return {}

        def setup(self, phone: Any, params: dict[str, Any]) -> None:
            pass  # the launcher is the whole world: the checker reads only the row and the answer

        def is_successful(self, phone: Any, params: dict[str, Any], answer: str | None) -> float:
            return 0.0 if row.query and answer != ANSWER else row.score

        def oracle_action(self, phone: Any, params: dict[str, Any], obs: Observation) -> Action:
            return SAY if row.query else DONE

    return _RowTemplate()


TEMPLATES = {r.name: _template(r) for r in ROWS}
assert all(t.max_steps == LIMIT for t in TEMPLATES.values())


def _task(row: Row) -> Task:
    return TEMPLATES[row.name].instantiate(0)


class _Scripted:
    """Plays the row whose goal it is given; ``CRASH`` raises, as a broken agent does."""

    name = "scripted"

    def __init__(self) -> None:
        self.actions: tuple[Action | str, ...] = ()
        self.i = 0

    def reset(self, goal: str) -> None:
        self.actions = next(r.actions for r in ROWS if goal == f"Success-rule episode {r.name}")
        self.i = 0

    def act(self, observation: Observation, history: list[Step]) -> AgentOutput:
        item = self.actions[self.i]
        self.i += 1
        if item == CRASH:
            raise RuntimeError("scripted crash")
        assert isinstance(item, Action)
        return AgentOutput(action=item, raw_output=item.to_json())


@pytest.fixture(scope="module", autouse=True)
def _row_templates() -> Iterator[None]:
    registry.all_templates()  # load the built-in set first, so the patched table keeps it
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(registry, "_TEMPLATES", {**registry._TEMPLATES, **{t.name: t for t in TEMPLATES.values()}})
        yield


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every row through the runner (``run_many``), the answer-ends rows in a run of their own."""
    from droidverify.runner.run import run_many

    out: dict[str, Any] = {}
    for ends in (False, True):
        rows = [r for r in ROWS if r.answer_ends == ends]
        path = tmp_path_factory.mktemp(f"run_answer_ends_{ends}")
        summary = run_many(_Scripted, [(TEMPLATES[r.name], 0) for r in rows], path,
                           env_factory=lambda task, seed: SimEnv(task=task, seed=seed), progress=False,
                           report=False, answer_ends_episode=ends)
        out[str(ends)] = (path, summary)
    return out


def _run_of(run_dir: dict[str, Any], row: Row) -> tuple[Path, Any]:
    return run_dir[str(row.answer_ends)]


def _trajectory(run_dir: dict[str, Any], row: Row) -> Trajectory:
    from droidverify.cli.judge import load_episodes

    trajs, _labels, _ = load_episodes(_run_of(run_dir, row)[0])
    return next(t for t in trajs if t.task_id == TEMPLATES[row.name].name)


def test_the_table_covers_every_ending() -> None:
    # solved, partial and failed; declared or not; every way an episode ends
    assert {r.solved for r in ROWS} == {True, False}
    assert {r.expected for r in ROWS} == {0.0, 0.5, 1.0}
    assert any(r.checker >= SUCCESS_SCORE and not r.declared for r in ROWS)
    assert len({r.name for r in ROWS}) == len(ROWS)  # one template, so one goal, per row


def test_is_success_is_the_threshold() -> None:
    assert is_success(1.0) and is_success(True) and is_success(1) and not is_success(0.999)
    assert not is_success(None) and not is_success(0.5) and not is_success(0.0)
    with pytest.raises(DroidVerifyError, match="success score must be a number or None, got str 'yes'"):
        is_success("yes")  # type: ignore[arg-type]
    with pytest.raises(DroidVerifyError, match="got dict"):
        is_success({})  # type: ignore[arg-type]


def test_the_oracle_finishes_after_an_answer() -> None:
    assert oracle_after_answer(SAY, answered=True) == DONE
    assert oracle_after_answer(SAY, answered=False) == SAY
    assert oracle_after_answer(WAIT, answered=True) == WAIT


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_the_runner_and_its_summary(run_dir: dict[str, Any], row: Row) -> None:
    traj = _trajectory(run_dir, row)
    assert traj.declared_done == row.declared and traj.checker_score == row.checker
    assert traj.success == row.expected
    stats = _run_of(run_dir, row)[1].by_task[TEMPLATES[row.name].name]
    assert (stats.episodes, stats.scored, stats.solved) == (1, 1, int(row.solved))
    assert stats.score_sum == row.expected


@pytest.mark.parametrize("answer_ends", [False, True])
def test_the_judge_cli_labels_a_run_by_the_rule(run_dir: dict[str, Any], answer_ends: bool) -> None:
    from droidverify.cli.judge import load_episodes

    trajs, labels, _ = load_episodes(run_dir[str(answer_ends)][0])
    rows = {TEMPLATES[r.name].name: r for r in ROWS if r.answer_ends == answer_ends}
    assert {t.task_id: labels[str(t.metadata["episode_id"])] for t in trajs} == \
        {name: r.solved for name, r in rows.items()}


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_the_rule_judge_and_grpo(run_dir: dict[str, Any], row: Row) -> None:
    from droidverify.runner.judging import GuardedJudge
    from droidverify.training.grpo import GRPOMember, RolloutGroup, group_stats

    traj = _trajectory(run_dir, row)
    assert PHONE_STATE_KEY in traj.metadata  # the judge re-runs the checker on the saved phone
    recorded = copy.deepcopy(traj)
    del recorded.metadata[PHONE_STATE_KEY]  # ... or reads the score the runner recorded
    for t, source in ((traj, "final_phone_state"), (recorded, "recorded")):
        j = RuleJudge().judge(t)
        assert j.components["source"] == source
        assert (j.reward, j.outcome) == (row.expected, "success" if row.solved else "failure")
    # GRPO's rule reward: the runner's episode, judged as GRPOWorker.play judges it
    member = GRPOMember.judged(0, 0, traj, GuardedJudge(RuleJudge()).judge(traj).to_dict())
    assert (member.reward, member.outcome) == (row.expected, "success" if row.solved else "failure")
    group = RolloutGroup(task_id=traj.task_id, task_seed=0, goal=traj.goal, members=[member])
    assert group_stats([group])["success_rate"] == float(row.solved)


@pytest.mark.parametrize("row", [r for r in ROWS if r.gym], ids=[r.name for r in ROWS if r.gym])
def test_the_gym_adapter(row: Row) -> None:
    from droidverify.runner.gym import DroidSimGymEnv

    env = DroidSimGymEnv(tasks=[TEMPLATES[row.name].name], seeds=[0])
    env.reset(seed=0)
    total, ended = 0.0, False
    for item in row.actions:
        if item == CRASH:
            break  # a crashed agent sends nothing more: the episode never terminates
        assert isinstance(item, Action)
        _, reward, terminated, truncated, _ = env.step(item.to_json())
        total += reward
        if terminated or truncated:
            ended = True
            break
    env.close()
    assert total == row.expected
    assert ended == row.scripted  # an episode whose agent crashed never ended


SCRIPTED = [r for r in ROWS if r.scripted and not r.answer_ends]


@pytest.mark.parametrize("row", SCRIPTED, ids=[r.name for r in SCRIPTED])
def test_the_labelled_set(row: Row) -> None:
    task = _task(row)
    traj = replay(task, list(row.actions), episode_id=f"{task.id}:0:table")  # type: ignore[arg-type]
    assert traj.declared_done == row.declared and traj.metadata["checker_score"] == row.checker
    assert traj.success == row.expected and checker_label(traj) == row.solved
    j = RuleJudge().judge(traj)  # the set's episodes carry their phone: the judge re-runs the checker
    assert j.components["source"] == "final_phone_state"
    assert (j.reward, j.outcome) == (row.expected, "success" if row.solved else "failure")


@pytest.mark.parametrize("row", SCRIPTED, ids=[r.name for r in SCRIPTED])
def test_data_collection(row: Row) -> None:
    from droidverify.training.collection import CollectStats, collect

    stats = CollectStats()
    recs = list(collect([_task(row)], split_of=lambda _: "train", apps=["Settings"],
                        policy=lambda task: _Scripted(), stats=stats))
    assert stats.episodes == 1 and len(recs) == stats.steps
    assert stats.episode_success == int(row.solved)
    if row.query:  # the oracle labels the answer once, then finishing (oracle_after_answer)
        labels = [Action.model_validate_json(r.oracle_action).action_type for r in recs]
        answered = any(a is SAY for a in row.actions)
        assert labels[0] == "answer" and set(labels[1:]) <= ({"status"} if answered else {"answer"})
