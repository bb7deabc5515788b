"""The self-verifying compact policy: submit candidates, warm-start records that cite the proving
round, and GRPO on the compact policy (clipped objective, learning from advantages, resume)."""

from __future__ import annotations

import dataclasses
import json
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))
from compact_doubles import hash_encoder

from droidverify.actions.model import Action
from droidverify.agents.verifier import VerifierAgent
from droidverify.agents.verifier.compact.features import NUMERIC_NAMES
from droidverify.agents.verifier.compact.model import CompactNet, NetConfig
from droidverify.agents.verifier.compact.scorer import CompactScorer
from droidverify.agents.verifier.submit import submit_candidates, with_submit
from droidverify.env.records import Step, is_success
from droidverify.env.sim import SimEnv
from droidverify.errors import TrainingError
from droidverify.tasks import registry
from droidverify.training.grpo import GRPOMember, RolloutGroup, group_advantages
from droidverify.training.loop import sim_apps
from droidverify.training.policy_grpo import PolicyGRPOConfig, PolicyGRPOTrainer, clipped_objective
from droidverify.training.selfverify import submit_records, with_submit_candidates


def test_submit_candidates_cite_the_last_rounds_and_carry_the_answer():
    assert [a.evidences for a in submit_candidates([])] == [()]
    subs = submit_candidates(range(6))
    assert [a.evidences for a in subs] == [(5,), (4,), (3,), (2,), (4, 5)]
    assert all(a.action_type == "submit" for a in subs)
    assert "42" in submit_candidates([0, 1], answer="42")[0].text
    done = Action(action_type="status", goal_status="complete")
    click = Action(action_type="click", index=1)
    history = [Step(index=0, observation=None, action=click), Step(index=1, observation=None,  # type: ignore[arg-type]
                                                                    action=Action(action_type="answer", text="7"))]
    out = with_submit([click, done, Action(action_type="navigate_back")], history)
    assert done not in out and out[0] == click and out[-1].action_type == "navigate_back"
    assert [a.evidences for a in out if a.action_type == "submit"] == [(1,), (0,), (0, 1)]
    assert all("7" in a.text for a in out if a.action_type == "submit")


def _tiny_policy(directory: Path, finish: str = "submit") -> Path:
    import torch

    torch.manual_seed(0)
    net = CompactNet(NetConfig(emb_dim=32, n_numeric=len(NUMERIC_NAMES), d_model=16, layers=1, heads=2, ff=32,
                               dropout=0.1))  # the default: the trainer must not apply it
    return CompactScorer(net, hash_encoder(), finish=finish).save(directory)


def test_a_self_verifying_checkpoint_makes_the_agent_submit_instead_of_declaring_done(tmp_path):
    scorer = CompactScorer.load(_tiny_policy(tmp_path / "p"), encoder=hash_encoder())
    assert scorer.meta["finish"] == "submit"
    task = registry.get_template("settings_wifi_toggle").instantiate(0)
    env = SimEnv(task=task, seed=0)
    obs = env.reset()
    agent = VerifierAgent(None, scorer=scorer, apps=sim_apps())
    agent.reset(task.goal)
    out = agent.act(obs, [])
    kinds = [json.loads(c["action"])["action_type"] for c in out.info["candidates"]]
    assert "submit" in kinds and "status" not in [k for k, c in zip(kinds, out.info["candidates"], strict=True)
                                                  if '"complete"' in c["action"]]
    assert out.info["finish"] == "submit"
    plain = CompactScorer.load(_tiny_policy(tmp_path / "q", finish="status"), encoder=hash_encoder())
    assert VerifierAgent(None, scorer=plain, apps=sim_apps()).finish == "status"


@pytest.mark.parametrize("template", ["contacts_add_contact", "settings_wifi_toggle"])
def test_warm_start_records_end_in_a_submit_citing_the_round_that_made_the_checker_pass(template):
    task = registry.get_template(template).instantiate(0)
    stats: dict = {}
    recs = list(submit_records([task], split_of=registry.split_of, apps=sim_apps(), skin="none", stats=stats))
    assert recs and stats["records"] == len(recs)
    for r in recs:  # submitting is a candidate everywhere; declaring done is not
        kinds = [json.loads(c)["action_type"] for c in r.candidates]
        assert "submit" in kinds and not any('"complete"' in c for c in r.candidates)
    last = recs[-1]
    final = Action.model_validate_json(last.candidates[last.positive])
    assert final.action_type == "submit" and len(final.evidences) == 1
    proof = final.evidences[0]
    # replay: the checker fails before the cited round and passes after it
    env = SimEnv(task=task, seed=0)
    env.reset()
    passed = []
    for r in recs[:-1]:
        env.step(Action.model_validate_json(r.oracle_action))
        passed.append(is_success(task.is_successful(env.phone, env.last_answer)))
    env.close()
    assert passed[proof] and not any(passed[:proof])


def test_a_query_cites_the_screen_the_answer_was_read_from_and_says_the_answer():
    names = [t.name for t in registry.templates_for_split("train")]
    for name in names:
        task = registry.get_template(name).instantiate(0)
        recs = list(submit_records([task], split_of=registry.split_of, apps=sim_apps(), skin="none"))
        answers = [r for r in recs if Action.model_validate_json(r.oracle_action).action_type == "answer"]
        if answers:
            break
    else:
        pytest.skip("no query template in the train split")
    given = Action.model_validate_json(answers[0].oracle_action).text
    final = Action.model_validate_json(recs[-1].candidates[recs[-1].positive])
    assert final.evidences == (answers[0].step - 1,) and given in final.text


def test_other_records_get_submit_candidates_and_keep_their_label():
    from droidverify.training import collect

    task = registry.get_template("settings_wifi_toggle").instantiate(0)
    recs = list(collect([task], split_of=registry.split_of, apps=sim_apps()))
    done = [r for r in recs if '"complete"' in r.candidates[r.positive]]
    assert done and with_submit_candidates(done[0]) is None  # which round proves it needs a replay
    for r in recs:
        if r in done:
            continue
        new = with_submit_candidates(r)
        assert new is not None and new.candidates[new.positive] == r.candidates[r.positive]
        assert not any('"complete"' in c for c in new.candidates)
        assert sum('"submit"' in c for c in new.candidates) == len(submit_candidates(range(r.step)))
        assert {new.candidates[i] for i in new.equivalent} == {r.candidates[i] for i in r.equivalent}


def test_clipped_objective_matches_a_hand_computation():
    import torch

    new = torch.tensor([math.log(0.5), math.log(0.2), math.log(0.9)])
    old = torch.tensor([math.log(0.25), math.log(0.4), math.log(0.9)])
    adv = torch.tensor([1.0, -1.0, 0.5])
    loss, frac = clipped_objective(new, old, adv, 0.2)
    # ratios 2.0 (clipped to 1.2, A>0: min(2.0, 1.2) = 1.2), 0.5 (A<0: min(-0.5, -0.8) = -0.8), 1.0
    assert float(loss) == pytest.approx(-(1.2 - 0.8 + 0.5) / 3, abs=1e-6)
    assert float(frac) == pytest.approx(2 / 3)


TASK = "settings_wifi_toggle"


def _rollout_preferring(first_kind: str, encoder):
    """A rollout that plays G episodes of 2 steps with the policy, rewarding +1 when its first action
    is ``first_kind`` (a stand-in judge), with GRPO's advantages."""
    from droidverify.runner.episode import run_episode

    def rollout(policy: Path, tasks, k):
        scorer = CompactScorer.load(policy, encoder=encoder)
        groups = []
        for task in tasks:
            members = []
            for g in range(8):
                agent = VerifierAgent(None, scorer=scorer, apps=sim_apps(), temperature=1.0, sample_seed=100 * k + g)
                env = SimEnv(task=task, seed=task.seed)
                traj = run_episode(agent, env, task, max_steps=2)
                env.close()
                r = 1.0 if traj.steps[0].action.action_type == first_kind else -1.0
                members.append(GRPOMember(g, g, traj, r, "success" if r > 0 else "failure"))
            group = RolloutGroup(task_id=task.id, task_seed=task.seed, goal=task.goal, members=members, config={})
            for m, a in zip(members, group_advantages([m.reward for m in members]), strict=True):
                m.advantage = a
            groups.append(group)
        return groups

    return rollout


def _first_prob(policy: Path, kind: str, encoder) -> float:
    scorer = CompactScorer.load(policy, encoder=encoder)
    task = registry.get_template(TASK).instantiate(2000)
    env = SimEnv(task=task, seed=task.seed)
    agent = VerifierAgent(None, scorer=scorer, apps=sim_apps())
    agent.reset(task.goal)
    info = agent.act(env.reset(), []).info
    env.close()
    s = [c["score"] for c in info["candidates"]]
    m = max(s)
    z = sum(math.exp(x - m) for x in s)
    return sum(math.exp(x - m) / z for x, c in zip(s, info["candidates"], strict=True)
               if json.loads(c["action"])["action_type"] == kind)


def _grpo_config(tmp_path: Path, init: Path, **kw) -> PolicyGRPOConfig:
    base = {"tasks": [TASK], "tasks_per_iteration": 1, "group_size": 8, "iterations": 6, "learning_rate": 5e-2,
            "batch_size": 8}
    return PolicyGRPOConfig(output_dir=str(tmp_path / "run"), init_policy=str(init), **{**base, **kw})


def test_grpo_raises_the_probability_of_what_the_judge_rewards(tmp_path):
    enc = hash_encoder()
    init = _tiny_policy(tmp_path / "init")
    before = _first_prob(init, "open_app", enc)
    trainer = PolicyGRPOTrainer(_grpo_config(tmp_path, init), rollout=_rollout_preferring("open_app", enc), encoder=enc)
    trainer.train()
    after = _first_prob(trainer.export(tmp_path / "final"), "open_app", enc)
    assert after > before + 0.1, (before, after)
    log = [json.loads(x) for x in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    assert [e["iteration"] for e in log] == [1, 2, 3, 4, 5, 6] and all(e["episodes"] == 8 for e in log)
    assert (tmp_path / "run" / "curves.png").stat().st_size > 0


def test_the_first_update_starts_at_ratio_one(tmp_path):
    """The trainer recomputes each step's log-probability from the recorded view exactly as the
    playing agent scored it (no dropout), so nothing is clipped before the policy has moved."""
    import torch

    from droidverify.agents.verifier.compact.scorer import batch_tensors
    from droidverify.training.policy_grpo import step_samples

    enc = hash_encoder()
    init = _tiny_policy(tmp_path / "init")
    trainer = PolicyGRPOTrainer(_grpo_config(tmp_path, init), rollout=_rollout_preferring("open_app", enc), encoder=enc)
    trainer.net.train()  # whatever mode it was left in
    groups = _rollout_preferring("open_app", enc)(trainer.export_policy(tmp_path / "p"), trainer.tasks_for(0), 0)
    samples = [s for m in groups[0].members for s in step_samples(m.trajectory, 1.0, 1.0)]
    assert samples
    trainer.net.eval()
    with torch.no_grad():
        logp = torch.log_softmax(trainer.net(**batch_tensors([s.view for s in samples], enc)), -1)
    new = logp.gather(1, torch.tensor([s.chosen for s in samples])[:, None]).squeeze(1)
    assert torch.allclose(new, torch.tensor([s.old_logp for s in samples]), atol=1e-4)
    trainer.config.ppo_epochs, trainer.config.batch_size = 1, len(samples)
    assert trainer.update(samples)["clip_fraction"] == 0.0


def test_the_logged_clip_fraction_separates_the_first_minibatch(tmp_path):
    # the iteration's clip fraction averages minibatches played after earlier optimizer steps; the
    # first minibatch's is logged apart: it must stay 0 however far a large step moves the rest
    enc = hash_encoder()
    init = _tiny_policy(tmp_path / "init")
    trainer = PolicyGRPOTrainer(_grpo_config(tmp_path, init, learning_rate=0.5), rollout=_rollout_preferring("open_app", enc),
                                encoder=enc)
    groups = _rollout_preferring("open_app", enc)(trainer.export_policy(tmp_path / "p"), trainer.tasks_for(0), 0)
    samples = [s for m in groups[0].members for s in step_samples_with(m, 1.0)]
    trainer.config.ppo_epochs, trainer.config.batch_size = 3, max(1, len(samples) // 4)
    out = trainer.update(samples)
    assert out["clip_fraction_first"] == 0.0
    assert out["clip_fraction"] > 0.0


def step_samples_with(member, advantage):
    from droidverify.training.policy_grpo import step_samples

    # alternating signs so that the update has something to push both ways
    return [dataclasses.replace(s, advantage=advantage * (-1) ** i)
            for i, s in enumerate(step_samples(member.trajectory, advantage, 1.0))]


def test_grpo_resumes_where_it_stopped_and_refuses_other_settings(tmp_path):
    import torch

    enc = hash_encoder()
    init = _tiny_policy(tmp_path / "init")
    straight = PolicyGRPOTrainer(_grpo_config(tmp_path / "a", init, iterations=2),
                                 rollout=_rollout_preferring("open_app", enc), encoder=enc)
    straight.train()
    first = PolicyGRPOTrainer(_grpo_config(tmp_path / "b", init, iterations=1),
                              rollout=_rollout_preferring("open_app", enc), encoder=enc)
    first.train()
    resumed = PolicyGRPOTrainer(_grpo_config(tmp_path / "b", init, iterations=2),
                                rollout=_rollout_preferring("open_app", enc), encoder=enc)
    resumed.train()
    assert resumed.iteration == 2
    for a, b in zip(straight.net.state_dict().values(), resumed.net.state_dict().values(), strict=True):
        assert torch.allclose(a, b, atol=1e-6)
    with pytest.raises(TrainingError, match="other settings.*learning_rate"):
        PolicyGRPOTrainer(_grpo_config(tmp_path / "b", init, iterations=3, learning_rate=0.5),
                          rollout=_rollout_preferring("open_app", enc), encoder=enc).train()


def test_bad_grpo_settings_are_refused(tmp_path):
    init = _tiny_policy(tmp_path / "init")
    for kw, match in (({"group_size": 1}, "group_size"), ({"temperature": 0.0}, "temperature"),
                      ({"tasks": []}, "tasks is empty"), ({"clip_eps": 1.5}, "clip_eps")):
        with pytest.raises(TrainingError, match=match):
            PolicyGRPOTrainer(_grpo_config(tmp_path, init, **kw), rollout=lambda *a: [], encoder=hash_encoder())


def test_grpo_refuses_a_start_that_carries_a_stacking_combiner(tmp_path):
    import torch

    torch.manual_seed(0)
    net = CompactNet(NetConfig(emb_dim=32, n_numeric=len(NUMERIC_NAMES), d_model=16, layers=1, heads=2, ff=32))
    combiner = {"scale": 0.5, "weights": [0.1] * len(NUMERIC_NAMES)}
    init = CompactScorer(net, hash_encoder(), finish="submit", combiner=combiner).save(tmp_path / "init")
    enc = hash_encoder()
    with pytest.raises(TrainingError, match="combiner"):  # players would score with it, updates would not
        PolicyGRPOTrainer(_grpo_config(tmp_path, init), rollout=_rollout_preferring("open_app", enc), encoder=enc)


def test_grpo_trains_an_ensemble_start_as_one_policy_and_keeps_it_an_ensemble(tmp_path):
    import torch

    from droidverify.agents.verifier.compact.model import EnsembleNet

    nets = []
    for seed in (0, 1):
        torch.manual_seed(seed)
        nets.append(CompactNet(NetConfig(emb_dim=32, n_numeric=len(NUMERIC_NAMES), d_model=16, layers=1, heads=2,
                                         ff=32)))
    init = CompactScorer(EnsembleNet(nets), hash_encoder(), finish="submit").save(tmp_path / "init")
    enc = hash_encoder()
    before = _first_prob(init, "open_app", enc)
    trainer = PolicyGRPOTrainer(_grpo_config(tmp_path, init), rollout=_rollout_preferring("open_app", enc), encoder=enc)
    start = [p.detach().clone() for p in trainer.net.parameters()]
    trainer.train()
    final = trainer.export(tmp_path / "final")
    assert json.loads((final / "verifier.json").read_text())["members"] == 2
    moved = [not torch.equal(a, b.detach()) for a, b in zip(start, trainer.net.parameters(), strict=True)]
    half = len(moved) // 2  # both members' weights are updated through the mixture's log-probabilities
    assert any(moved[:half]) and any(moved[half:])
    assert _first_prob(final, "open_app", enc) > before + 0.1
