"""Training the compact verifier: labels carry over to chosen values, the loss falls, the trainer
scores a step exactly as the agent does, resume and export."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))
from compact_doubles import compact_records, hash_encoder, small_config

from droidverify.actions.model import Action
from droidverify.agents.verifier import VerifierAgent
from droidverify.agents.verifier.compact.scorer import CompactScorer
from droidverify.env.records import Step
from droidverify.env.sim import SimEnv
from droidverify.errors import TrainingDataError, TrainingError
from droidverify.tasks import registry
from droidverify.training import collect
from droidverify.training.compact import CompactConfig, CompactTrainer, expand_record, step_loss
from droidverify.training.loop import sim_apps


@pytest.fixture(scope="module")
def records():
    return compact_records()


def _config(tmp_path: Path, records, **kw) -> CompactConfig:
    return small_config(CompactConfig, tmp_path, records, **{"epochs": 40, **kw})


def test_a_typed_value_label_moves_to_the_candidate_carrying_it(records):
    typed = [r for r in records if r.completion is not None and r.completion.kind == "input_text"]
    assert typed, "the contact form types text"
    for rec in typed:
        _, cands, correct, positive = expand_record(rec, sim_apps())
        assert positive is not None and positive in correct
        assert cands[positive].action_type == "input_text" and cands[positive].text == rec.completion.target


def _answer_records(template: str) -> list:
    """The records of a template's oracle episode (seed 0) whose label is an answer (at least one)."""
    task = registry.get_template(template).instantiate(0)
    recs = [r for r in collect([task], split_of=registry.split_of, apps=sim_apps())
            if Action.model_validate_json(r.oracle_action).action_type == "answer"]
    assert recs, "the oracle answers"
    return recs


def test_an_answer_label_covers_every_proposal_that_says_the_same():
    """The oracle answers "Off"; the screen's "off" (and any spelling the checker reads alike) is right
    too, so the proposals that say it are all labelled right, none trained as a wrong answer."""
    for rec in _answer_records("settings_query_switch_state"):
        want = Action.model_validate_json(rec.oracle_action).text
        _, cands, correct, positive = expand_record(rec, sim_apps())
        same = {j for j, c in enumerate(cands) if c.action_type == "answer" and c.text is not None
                and c.text.strip().lower() == want.strip().lower()}
        assert positive is not None and same and correct >= same, (want, [cands[j].text for j in correct])
        assert not any(cands[j].action_type == "answer" and cands[j].text.lower() != want.lower() for j in correct)


def test_records_written_by_another_memory_are_refused(tmp_path, records):
    """The records' memory text is written by one working memory; a verifier configured for another would
    run on text it never saw, so training stops with the name to pass."""
    cfg = _config(tmp_path, records, epochs=1)
    Path(cfg.train_file).with_suffix(".stats.json").write_text(json.dumps({"spec": {"memory": "notes"}}))
    with pytest.raises(TrainingDataError, match="'notes' working memory.*--memory notes"):
        CompactTrainer(cfg, encoder=hash_encoder()).train()
    with pytest.raises(TrainingError, match="memory must be"):
        _config(tmp_path, records, memory="llm").validate()


def test_notes_memory_records_carry_what_was_read():
    task = registry.get_template("contacts_query_coworker").instantiate(0)
    diff = list(collect([task], split_of=registry.split_of, apps=sim_apps()))
    notes = list(collect([task], split_of=registry.split_of, apps=sim_apps(), memory="notes"))
    assert [r.record_id for r in diff] == [r.record_id for r in notes]  # the same steps, other memory text
    assert any("noted '" in r.memory for r in notes) and not any("noted '" in r.memory for r in diff)
    with pytest.raises(TrainingError, match="working memory 'llm'"):
        list(collect([task], split_of=registry.split_of, apps=sim_apps(), memory="llm"))


def test_records_without_screens_are_a_clear_error(records):
    old = records[0].model_copy(update={"xml": None})
    with pytest.raises(TrainingDataError, match="no screen xml"):
        expand_record(old, sim_apps())


def test_listwise_and_pairwise_losses_match_a_hand_computation():
    import math

    import torch

    s = torch.tensor([[2.0, 0.0, 1.0, float("-inf")]])
    listwise = float(step_loss(s, [{0, 2}], [0], "listwise"))
    want = math.log(math.exp(2) + 1 + math.exp(1)) - math.log(math.exp(2) + math.exp(1))
    assert listwise == pytest.approx(want, abs=1e-6)
    pairwise = float(step_loss(s, [{0, 2}], [0], "pairwise"))
    assert pairwise == pytest.approx(math.log(1 + math.exp(-2)), abs=1e-6)



def test_kind_balance_weights_rare_action_types_up_and_keeps_the_mean_loss_scale():
    import torch

    from droidverify.training.compact import kind_weights

    kinds = ["click"] * 9 + ["answer"]
    assert kind_weights(kinds, 0.0) == {"click": pytest.approx(1.0), "answer": pytest.approx(1.0)}
    w = kind_weights(kinds, 1.0)
    assert w["answer"] == pytest.approx(9 * w["click"])  # every type alike: 9 clicks weigh one answer's share
    assert sum(w[k] for k in kinds) / len(kinds) == pytest.approx(1.0)
    half = kind_weights(kinds, 0.5)
    assert half["answer"] / half["click"] == pytest.approx(3.0)
    s = torch.tensor([[2.0, 0.0], [0.0, 1.0]])
    plain = step_loss(s, [{0}, {0}], [0, 0], "listwise")
    weighted = step_loss(s, [{0}, {0}], [0, 0], "listwise", [0.5, 1.5])
    rows = [float(step_loss(s[i:i + 1], [{0}], [0], "listwise")) for i in range(2)]
    assert float(plain) == pytest.approx(sum(rows) / 2)
    assert float(weighted) == pytest.approx((0.5 * rows[0] + 1.5 * rows[1]) / 2)


def test_embedding_uses_every_core_and_gives_the_network_its_threads_back():
    import torch

    from droidverify.training.compact import all_cores

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with all_cores():
            inside = torch.get_num_threads()
        assert inside >= 1 and inside == max(1, len(os.sched_getaffinity(0)))
        assert torch.get_num_threads() == 1  # back to what the trainer set
    finally:
        torch.set_num_threads(before)


def test_kind_balance_outside_zero_to_one_is_refused(tmp_path):
    with pytest.raises(TrainingError, match="kind_balance"):
        CompactConfig(output_dir=str(tmp_path), train_file="x.jsonl", kind_balance=1.5).validate()

@pytest.mark.slow
@pytest.mark.parametrize("type_head", [False, True])
def test_training_on_a_small_set_drives_the_loss_down_and_fits_it(tmp_path, records, type_head):
    trainer = CompactTrainer(_config(tmp_path, records, type_head=type_head), encoder=hash_encoder())
    assert (trainer.net.type_head is not None) == type_head
    result = trainer.train()
    log = [json.loads(x) for x in (tmp_path / "out" / "log.jsonl").read_text().splitlines()]
    assert log[-1]["loss"] < 0.5 * log[0]["loss"]
    assert result["train_fit"]["top1"] >= 0.95
    assert (tmp_path / "out" / "curves.png").stat().st_size > 0


@pytest.mark.parametrize("version", [4, 5, 7])
def test_trainer_scores_equal_agent_scores_for_the_same_step(tmp_path, records, version):
    trainer = CompactTrainer(_config(tmp_path, records, epochs=2, feature_version=version), encoder=hash_encoder())
    trainer.train()
    scorer = CompactScorer(trainer.net, trainer.encoder, meta={"feature_version": version})
    task = registry.get_template("contacts_add_contact").instantiate(0)
    env = SimEnv(task=task, seed=0)
    obs = env.reset()
    agent = VerifierAgent(None, scorer=scorer, apps=sim_apps())
    agent.reset(task.goal)
    history: list[Step] = []
    mine = [r for r in records if r.task_id == task.id]
    for index in range(3):
        out = agent.act(obs, list(history))
        rec = mine[index]
        _, cands, _, _ = expand_record(rec, sim_apps())
        assert [c["action"] for c in out.info["candidates"]] == [c.to_json() for c in cands]
        assert [c["score"] for c in out.info["candidates"]] == pytest.approx(trainer.score_record(rec), abs=1e-5)
        action = task.oracle_action(env.phone, obs)
        history.append(Step(index=index, observation=obs, action=action))
        obs = env.step(action)


def test_a_run_resumes_from_its_checkpoint_and_refuses_other_settings(tmp_path, records):
    cfg = _config(tmp_path, records, epochs=2)
    CompactTrainer(cfg, encoder=hash_encoder()).train()
    cfg2 = _config(tmp_path, records, epochs=3)
    t2 = CompactTrainer(cfg2, encoder=hash_encoder())
    t2.train()
    assert t2.epoch == 3
    log = [json.loads(x) for x in (tmp_path / "out" / "log.jsonl").read_text().splitlines()]
    assert [x["epoch"] for x in log] == [1, 2, 3]
    with pytest.raises(TrainingError, match="other settings.*d_model"):
        CompactTrainer(_config(tmp_path, records, epochs=4, d_model=64), encoder=hash_encoder()).train()


def test_export_writes_a_loadable_verifier_with_relative_provenance(tmp_path, records):
    trainer = CompactTrainer(_config(tmp_path, records, epochs=1), encoder=hash_encoder())
    trainer.train()
    path = trainer.export(tmp_path / "out" / "verifier", provenance={"command": "t"})
    meta = json.loads((path / "verifier.json").read_text())
    assert meta["backbone"] == "compact" and not Path(meta["train_config"]["train_file"]).is_absolute()
    again = CompactScorer.load(path, trainer.encoder)
    rec = records[0]
    assert again.score_views([trainer.examples([rec])[0].view])[0] == pytest.approx(trainer.score_record(rec),
                                                                                   abs=1e-6)


def test_bad_settings_are_refused():
    for kw, msg in (({"loss": "hinge"}, "loss must be"), ({"content": "guess"}, "content must be"),
                    ({"d_model": 30, "heads": 4}, "multiple of heads")):
        with pytest.raises(TrainingError, match=msg):
            CompactConfig(output_dir="x", train_file="y", **kw).validate()


class _Backwards:
    """Always proposes navigate_back, with a fixed uncertainty."""

    name = "backwards"

    def __init__(self, entropy: float) -> None:
        self.entropy = entropy

    def reset(self, goal):
        pass

    def act(self, observation, history):
        from droidverify.actions.model import Action
        from droidverify.agents.base import AgentOutput

        back = Action(action_type="navigate_back")
        return AgentOutput(action=back, info={"entropy": self.entropy, "entropy_normalized": self.entropy,
                                              "argmax": 0, "candidates": [{"action": back.to_json()}]})


def test_vdroid_annotation_corrects_uncertain_steps_and_keeps_confident_ones():
    from droidverify.training.collection import CollectStats

    task = registry.get_template("clock_create_alarm").instantiate(0)
    st = CollectStats()
    # uncertain everywhere: the annotator corrects every step, so the episode follows the oracle and succeeds
    recs = list(collect([task], split_of=registry.split_of, apps=sim_apps(), policy=lambda t: _Backwards(0.9),
                        annotate_above=0.5, stats=st))
    assert recs and {r.source for r in recs} == {"annotated"} and st.episode_success == 1
    assert all(r.oracle_action != '{"action_type":"navigate_back"}' for r in recs)
    # confident everywhere: its own (wrong) choice is executed and becomes the label
    recs = list(collect([task], split_of=registry.split_of, apps=sim_apps(), policy=lambda t: _Backwards(0.1),
                        annotate_above=0.5, max_steps=3))
    assert [r.source for r in recs] == ["self_label"] * 3
    assert all(r.candidates[r.positive] == '{"action_type":"navigate_back"}' for r in recs)
    with pytest.raises(TrainingError, match="needs an agent policy"):
        list(collect([task], split_of=registry.split_of, apps=sim_apps(), annotate_above=0.5))


def test_annotation_rounds_write_the_memory_the_verifier_was_trained_on(tmp_path, monkeypatch):
    """A notes verifier's rollouts are recorded with the notes memory, so round 1 trains on round 0's records
    and its own written alike (records of another memory would be refused)."""
    from droidverify.training import collection, compact

    calls: list[dict] = []
    monkeypatch.setattr(collection, "collect", lambda tasks, **kw: calls.append(kw) or iter(()))

    class _Trainer:
        def __init__(self, cfg, log=None):
            self.cfg = cfg

        def train(self):
            return {"eval": {}}

        def export(self, vdir, provenance=None):
            Path(vdir).mkdir(parents=True, exist_ok=True)
            (Path(vdir) / "verifier.json").write_text("{}")

    monkeypatch.setattr(compact, "CompactTrainer", _Trainer)
    train = tmp_path / "train.jsonl"
    train.write_text("")
    tc = CompactConfig(output_dir=str(tmp_path / "t"), train_file=str(train), memory="notes")
    compact.run_compact_loop(compact.CompactLoopConfig(output_dir=str(tmp_path / "loop"), train_config=tc,
                                                       rounds=1, max_tasks=1))
    assert len(calls) == 1 and calls[0]["memory"] == "notes"


def test_stacking_learns_a_combiner_on_held_out_templates_and_the_checkpoint_applies_it(tmp_path, records):
    from droidverify.agents.verifier.compact.features import numeric_names
    from droidverify.training.compact import template_folds

    folds = template_folds([r.task_id for r in records], 2)
    assert folds == template_folds(sorted({r.task_id for r in records}, reverse=True), 2)  # order-free
    assert len(set(folds.values())) == 2
    trainer = CompactTrainer(_config(tmp_path, records, epochs=3, stack_folds=2), encoder=hash_encoder())
    result = trainer.train()
    combiner = trainer.combiner
    assert combiner is not None and combiner["scale"] > 0 and combiner["folds"] == 2
    assert len(combiner["weights"]) == len(numeric_names(trainer.config.feature_version))
    assert any(w != 0.0 for w in combiner["weights"])
    assert combiner["held_out_records"] == len(trainer.train_examples)  # every record scored by a network
    for k in range(2):  # that never saw its template
        assert (tmp_path / "out" / "stack" / f"fold-{k}" / "checkpoint.pt").is_file()
    assert "eval_without_combiner" in result and result["combiner"]["held_out_top1_combined"] >= 0.0

    rec = records[0]
    view = trainer.examples([rec])[0].view
    raw = CompactScorer(trainer.net, trainer.encoder).score_views([view])[0]
    combined = trainer.score_record(rec)
    assert combined != pytest.approx(raw, abs=1e-4)
    path = trainer.export(tmp_path / "out" / "verifier", provenance={"command": "t"})
    again = CompactScorer.load(path, trainer.encoder)
    assert again.combiner == combiner
    assert again.score_views([view])[0] == pytest.approx(combined, abs=1e-5)

    # a rerun resumes every network and fits the same combiner
    rerun = CompactTrainer(_config(tmp_path, records, epochs=3, stack_folds=2), encoder=hash_encoder())
    rerun.train()
    assert rerun.combiner["weights"] == pytest.approx(combiner["weights"], abs=1e-5)


def test_stacking_needs_a_template_in_every_fold_and_a_valid_combiner(tmp_path, records):
    from droidverify.errors import CheckpointError
    from droidverify.training.compact import template_folds
    from droidverify.training.policy import PolicyConfig

    with pytest.raises(TrainingDataError, match="fold"):
        template_folds([r.task_id for r in records], 3)  # the three templates hash into two of three folds
    with pytest.raises(TrainingError, match="stack_folds"):
        _config(tmp_path, records, stack_folds=1).validate()
    with pytest.raises(TrainingError, match="stack_folds"):
        small_config(PolicyConfig, tmp_path, records, stack_folds=2).validate()

    trainer = CompactTrainer(_config(tmp_path, records, epochs=1), encoder=hash_encoder())
    trainer.train()
    path = trainer.export(tmp_path / "v", provenance={})
    meta = json.loads((path / "verifier.json").read_text())
    meta["combiner"] = {"scale": 1.0, "weights": [0.0, 1.0]}  # not one weight per number
    (path / "verifier.json").write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="combiner"):
        CompactScorer.load(path, trainer.encoder)


def test_an_ensemble_trains_its_members_from_other_seeds_and_scores_by_their_mean_probability(tmp_path, records):
    import math

    trainer = CompactTrainer(_config(tmp_path, records, epochs=2, members=3), encoder=hash_encoder())
    result = trainer.train()
    assert [m["seed"] for m in result["members"]] == [0, 1, 2] and all("top1" in m for m in result["members"])
    assert trainer.ensemble is not None and len(trainer.ensemble.members) == 3
    for k in (1, 2):  # each member resumable in its own directory, seeded apart
        state = (tmp_path / "out" / "members" / f"member-{k}" / "checkpoint.pt")
        assert state.is_file()
    first, second = (m.state_dict()["goal_proj.weight"] for m in trainer.ensemble.members[:2])
    assert not first.allclose(second)
    assert result["train_fit"]["records"] > 0

    rec = records[0]
    view = trainer.examples([rec])[0].view
    singles = [CompactScorer(m, trainer.encoder).score_views([view])[0] for m in trainer.ensemble.members]
    mean = [math.log(sum(math.exp(s[i] - math.log(sum(math.exp(x) for x in s))) for s in singles) / 3)
            for i in range(len(singles[0]))]
    assert trainer.score_record(rec) == pytest.approx(mean, abs=1e-5)

    path = trainer.export(tmp_path / "out" / "verifier", provenance={"command": "t"})
    assert json.loads((path / "verifier.json").read_text())["members"] == 3
    again = CompactScorer.load(path, trainer.encoder)
    assert again.score_views([view])[0] == pytest.approx(mean, abs=1e-5)

    with pytest.raises(TrainingError, match="members and stack_folds"):
        _config(tmp_path, records, members=2, stack_folds=2).validate()
    with pytest.raises(TrainingError, match="members must be"):
        _config(tmp_path, records, members=0).validate()


def test_verifiers_trained_apart_join_into_an_ensemble_only_when_trained_alike(tmp_path, records):
    from droidverify.agents.verifier.compact.scorer import ensemble_of
    from droidverify.errors import CheckpointError

    dirs = []
    for seed in (0, 1):
        (tmp_path / f"s{seed}").mkdir()
        t = CompactTrainer(_config(tmp_path / f"s{seed}", records, epochs=1, seed=seed),
                           encoder=hash_encoder())
        t.train()
        dirs.append(t.export(tmp_path / f"v{seed}"))
    joined = ensemble_of(dirs, encoder=hash_encoder())
    out = joined.save(tmp_path / "ens")
    assert CompactScorer.load(out, hash_encoder()).net.members[1].state_dict()["goal_proj.weight"].allclose(
        CompactScorer.load(dirs[1], hash_encoder()).net.state_dict()["goal_proj.weight"])
    with pytest.raises(CheckpointError, match="at least 2"):
        ensemble_of(dirs[:1], encoder=hash_encoder())
    with pytest.raises(CheckpointError, match="is an ensemble"):
        ensemble_of([out, dirs[0]], encoder=hash_encoder())
    (tmp_path / "w").mkdir()
    other = CompactTrainer(_config(tmp_path / "w", records, epochs=1, d_model=64),
                           encoder=hash_encoder())
    other.train()
    with pytest.raises(CheckpointError, match="differs from .* in .*net"):
        ensemble_of([dirs[0], other.export(tmp_path / "vw")], encoder=hash_encoder())
    meta = json.loads((out / "verifier.json").read_text())
    (out / "verifier.json").write_text(json.dumps({**meta, "members": 0}))
    with pytest.raises(CheckpointError, match="members must be"):
        CompactScorer.load(out, hash_encoder())


def test_a_derived_answer_is_labelled_right_only_where_derived_values_are_proposed():
    """The oracle answers the minutes between two alarms, a value no screen shows: a version-4 record
    has no right answer candidate (uncovered), a version-6 record labels the derived value right."""
    from droidverify.training.compact import record_example

    for rec in _answer_records("clock_query_minutes_between_alarms"):
        want = Action.model_validate_json(rec.oracle_action).text
        _, plain, correct, _ = expand_record(rec, sim_apps())
        assert not any(plain[j].action_type == "answer" for j in correct), "not proposed without derivation"
        _, cands, correct, positive = expand_record(rec, sim_apps(), derived=True)
        assert positive is not None and cands[positive].action_type == "answer"
        assert cands[positive].text == want
        ex = record_example(rec, sim_apps(), feature_version=6)
        assert ex.positive is not None and ex.candidate_json[ex.positive] == cands[positive].to_json()
