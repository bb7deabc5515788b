"""SEE's learned world model (rewards/see.py): its target, its inputs, its checkpoint, the reward.

Every test but the one marked ``model`` runs on a hash embedder double (no MiniLM load).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))
from compact_doubles import hash_encoder

from droidverify.actions.model import Action
from droidverify.env.sim import SimEnv
from droidverify.env.sim.env import action_outcome
from droidverify.errors import CheckpointError, DroidVerifyError, JudgeInputError, TrainingDataError
from droidverify.rewards.see import (
    NOTHING_CHANGED,
    SHIPPED_WORLD_MODEL,
    LearnedWorldModel,
    SEEJudge,
    SemanticEstimator,
    TransitionSet,
    WorldNetConfig,
    actions_equivalent,
    collect_transitions,
    describe_change,
    describe_data_change,
    pair_truth,
    resolve_action,
    sample_pairs,
    see_auc_table,
    semantic_reward,
    semantic_table,
)
from droidverify.tasks import registry


@pytest.fixture(scope="module")
def contacts():
    task = registry.get_template("contacts_add_to_favorites").instantiate(0)
    env = SimEnv(task=task, seed=0)
    env.reset()
    obs = env.step(Action(action_type="open_app", app_name="Contacts"))
    yield env, obs
    env.close()


def row(obs, name: str) -> int:
    return next(i for i, e in enumerate(obs.elements) if (e.text or "").startswith(name))


def label_point(obs, i: int) -> Action:
    b = obs.elements[i].bbox_pixels
    return Action(action_type="click", x=b.left + 120, y=(b.top + b.bottom) // 2)


def change(phone, action: Action) -> str:
    before, after = action_outcome(phone, None), action_outcome(phone, action)
    return describe_change(before[0], after[0], before[1], after[1])


def tiny_model(seed: int = 0) -> LearnedWorldModel:
    return LearnedWorldModel.create(WorldNetConfig(d_model=16, layers=1, heads=2, ff=32), encoder=hash_encoder(32),
                                    seed=seed)


# ---- the target -----------------------------------------------------------------------------------


def test_target_is_deterministic_agrees_for_equivalent_actions_and_tells_effects_apart(contacts) -> None:
    env, obs = contacts
    a = row(obs, "Amara Gallagher")
    by_index = Action(action_type="click", index=a)
    by_label = label_point(obs, a)
    other_row = Action(action_type="click", index=row(obs, "Amara Okafor"))
    assert actions_equivalent(env.phone, by_index, by_label)  # the constructed case: one real effect
    first = change(env.phone, by_index)
    assert first == change(env.phone, by_index)  # deterministic
    assert change(env.phone, by_label) == first  # equivalent actions, one target
    assert "Amara Gallagher" in first and "Amara Okafor" in change(env.phone, other_row)
    targets = {first, change(env.phone, other_row), change(env.phone, Action(action_type="navigate_back")),
               change(env.phone, Action(action_type="scroll", direction="down"))}
    assert len(targets) == 4  # four real effects, four targets
    assert change(env.phone, Action(action_type="wait")) == NOTHING_CHANGED
    assert all(len(t) <= 300 for t in targets)


def test_app_data_changes_are_named_by_row_and_column() -> None:
    schema = 'CREATE TABLE contacts (_id INTEGER PRIMARY KEY, name TEXT, starred INTEGER, modified INTEGER);'
    before = [schema, "INSERT INTO \"contacts\" VALUES(1,'Ann O''Neil',0,1728985260000);"]
    starred = [schema, "INSERT INTO \"contacts\" VALUES(1,'Ann O''Neil',1,1728985290000);"]
    added = [*before, "INSERT INTO \"contacts\" VALUES(2,'Bo',0,1);"]
    assert describe_data_change(before, starred) == "data: contacts 'Ann O'Neil' starred from '0' to '1'"
    assert describe_data_change(before, added) == "data: contacts added 'Bo'"
    assert describe_data_change(added, before) == "data: contacts deleted 'Bo'"
    assert describe_data_change(before, before) == ""
    xml = '<hierarchy rotation="0"><node class="android.widget.TextView" text="Hi" bounds="[0,0][100,100]"/></hierarchy>'
    assert describe_change(xml, xml, before, starred).startswith("data: contacts 'Ann O'Neil' starred")


def test_bad_target_inputs_are_typed_errors() -> None:
    xml = '<hierarchy rotation="0"><node class="android.widget.TextView" text="Hi" bounds="[0,0][100,100]"/></hierarchy>'
    with pytest.raises(JudgeInputError):
        describe_change(None, xml)  # type: ignore[arg-type]
    with pytest.raises(JudgeInputError):
        describe_change(xml, "")
    with pytest.raises(JudgeInputError):
        describe_change(xml, xml, "INSERT ...", ())  # type: ignore[arg-type]
    with pytest.raises(DroidVerifyError):
        describe_change(xml, "<hierarchy><node bounds='nonsense'")


# ---- the input --------------------------------------------------------------------------------------


def test_actions_resolve_to_the_element_a_tap_lands_on(contacts) -> None:
    _env, obs = contacts
    a = row(obs, "Amara Gallagher")
    assert resolve_action(obs, label_point(obs, a)) == Action(action_type="click", index=a)
    assert resolve_action(obs, Action(action_type="click", index=a)) == Action(action_type="click", index=a)
    title = next(i for i, e in enumerate(obs.elements) if e.resource_name == "toolbar_title")
    nothing = resolve_action(obs, Action(action_type="click", index=title))  # a label no tap reaches
    assert nothing.index is None and (nothing.x, nothing.y) == obs.elements[title].bbox_pixels.center
    lst = next(i for i, e in enumerate(obs.elements) if e.is_scrollable)
    child = Action(action_type="scroll", index=a, direction="down")
    assert resolve_action(obs, child) == Action(action_type="scroll", index=lst, direction="down")
    screen = Action(action_type="scroll", direction="up")  # the whole screen scrolls its list
    assert resolve_action(obs, screen) == Action(action_type="scroll", index=lst, direction="up")
    for unchanged in (Action(action_type="navigate_back"), Action(action_type="open_app", app_name="Clock"),
                      Action(action_type="click", index=999)):
        assert resolve_action(obs, unchanged) == unchanged


# ---- the model and the reward -----------------------------------------------------------------------


def test_reward_of_an_action_with_itself_is_one(contacts) -> None:
    _env, obs = contacts
    m = tiny_model()
    a = Action(action_type="click", index=row(obs, "Amara Gallagher"))
    assert semantic_reward(obs.xml, a, a, model=m) == 1.0
    assert semantic_reward(obs.xml, a.to_json(), a.to_dict(), model=m) == 1.0  # JSON and dicts too
    assert semantic_reward(obs.xml, a, label_point(obs, a.index), model=m) == 1.0  # one resolved action
    r = semantic_reward(obs.xml, a, Action(action_type="navigate_back"), model=m)
    assert -1.0 <= r < 1.0
    est = SemanticEstimator(world_model=m)
    assert est.similarity(obs, a, a) == 1.0 and est.similarity(obs, a, Action(action_type="navigate_back")) == r
    done = Action(action_type="status", goal_status="complete")
    answer = Action(action_type="answer", text="3")
    assert semantic_reward(obs.xml, done, done, model=m) == 1.0 and semantic_reward(obs.xml, answer, answer, model=m) == 1.0
    assert semantic_reward(obs.xml, done, a, model=m) == 0.0 and semantic_reward(obs.xml, answer, answer.model_copy(
        update={"text": "4"}), model=m) == 0.0  # endings and replies match only themselves


def test_semantic_table_is_the_pairwise_reward_of_every_action_in_one_batch(contacts) -> None:
    _env, obs = contacts
    m = tiny_model()
    a = Action(action_type="click", index=row(obs, "Amara Gallagher"))
    actions = [Action(action_type="navigate_back"), a, label_point(obs, a.index),
               Action(action_type="status", goal_status="complete"), Action(action_type="answer", text="3")]
    table = semantic_table(obs.xml, actions, 1, model=m)
    assert table == pytest.approx([semantic_reward(obs.xml, x, a, model=m) for x in actions], abs=1e-6)
    assert table[1] == table[2] == 1.0 and table[3] == table[4] == 0.0
    ending = semantic_table(obs.xml, actions, 3, model=m)
    assert ending == [0.0, 0.0, 0.0, 1.0, 0.0]  # an ending matches only itself
    with pytest.raises(JudgeInputError, match="out of range"):
        semantic_table(obs.xml, actions, 5, model=m)


def test_bad_reward_inputs_are_typed_errors(contacts) -> None:
    _env, obs = contacts
    m = tiny_model()
    back = Action(action_type="navigate_back")
    for xml, a, b in (("", back, back), (None, back, back), (obs.xml, "not json", back), (obs.xml, back, 3),
                      (obs.xml, {"action_type": "click"}, back)):
        with pytest.raises(JudgeInputError):
            semantic_reward(xml, a, b, model=m)  # type: ignore[arg-type]
    with pytest.raises(JudgeInputError):
        SemanticEstimator()  # no world model at all
    with pytest.raises(JudgeInputError):
        SemanticEstimator(world_model="oracle")
    with pytest.raises(JudgeInputError):
        SemanticEstimator(world_model=m).predict(obs, back)  # no text from the learned model


def test_save_and_reload_predict_identically(contacts, tmp_path: Path) -> None:
    _env, obs = contacts
    m = tiny_model(seed=3)
    actions = [Action(action_type="click", index=row(obs, "Amara")), Action(action_type="navigate_back"),
               Action(action_type="scroll", direction="down"), Action(action_type="open_app", app_name="Clock")]
    before = m.predict(obs, actions)
    m.save(tmp_path / "wm", provenance={"command": "test"})
    again = LearnedWorldModel.load(tmp_path / "wm", encoder=hash_encoder(32))
    assert np.array_equal(again.predict(obs, actions), before)
    assert again.version == m.version and again.version.startswith("see-learned-")
    assert json.loads((tmp_path / "wm" / "provenance.json").read_text())["command"] == "test"
    assert np.allclose(np.linalg.norm(before, axis=1), 1.0, atol=1e-5)
    judge = SEEJudge(SemanticEstimator(world_model=again))
    assert judge.version == again.version != SEEJudge.version  # learned judgements are keyed apart


def test_loading_refuses_missing_foreign_and_stale_models(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError):
        LearnedWorldModel.load(tmp_path)
    tiny_model().save(tmp_path / "wm")
    meta_file = tmp_path / "wm" / "world_model.json"
    meta = json.loads(meta_file.read_text())
    meta_file.write_text(json.dumps({**meta, "feature_version": 0}))
    with pytest.raises(CheckpointError, match="retrain"):
        LearnedWorldModel.load(tmp_path / "wm")
    meta_file.write_text(json.dumps({**meta, "format": "something else"}))
    with pytest.raises(CheckpointError):
        LearnedWorldModel.load(tmp_path / "wm")
    meta_file.write_text(json.dumps(meta))
    (tmp_path / "wm" / "model.safetensors").write_bytes(b"not weights")
    with pytest.raises(CheckpointError):
        LearnedWorldModel.load(tmp_path / "wm")


def test_the_shipped_world_model_is_small_and_documented() -> None:
    files = {p.name: p.stat().st_size for p in SHIPPED_WORLD_MODEL.iterdir()}
    assert {"world_model.json", "model.safetensors", "provenance.json"} <= set(files)
    assert sum(files.values()) < 20 * 2**20
    prov = json.loads((SHIPPED_WORLD_MODEL / "provenance.json").read_text())
    assert prov["command"].startswith("droidverify train world-model")
    assert prov["data"]["train"]["split"] == "train"
    m = LearnedWorldModel.load(encoder=hash_encoder(384))  # weights load without the MiniLM
    assert m.version.startswith("see-learned-")


# ---- data and measurement ---------------------------------------------------------------------------


def test_transitions_are_deterministic_and_round_trip(tmp_path: Path) -> None:
    ts = collect_transitions(templates=["contacts_add_to_favorites"], max_states=2)
    again = collect_transitions(templates=["contacts_add_to_favorites"], max_states=2)
    assert ts.transitions == again.transitions and ts.screens == again.screens
    assert {t.screen for t in ts.transitions} <= set(ts.screens)
    assert sum(t.oracle for t in ts.transitions) == 2  # the oracle's action in each state
    assert any(t.change == NOTHING_CHANGED for t in ts.transitions)
    assert len({t.change for t in ts.transitions}) > 10
    path = ts.save(tmp_path / "t.jsonl.gz")
    back = TransitionSet.load(path)
    assert back.transitions == ts.transitions and back.screens == ts.screens and back.meta == ts.meta
    examples = tiny_model().examples(back)
    keys = [(ex.input.screen.key, ex.input.action) for ex in examples]
    assert len(keys) == len(set(keys)) and len(examples) <= len(ts.transitions)
    (tmp_path / "bad.jsonl").write_text('{"type": "header", "version": 999}\n')
    with pytest.raises(TrainingDataError):
        TransitionSet.load(tmp_path / "bad.jsonl")
    with pytest.raises(JudgeInputError):
        collect_transitions(templates=["contacts_add_to_favorites"], wrong_turns=2.0)


def test_auc_table_reports_the_model_next_to_baselines() -> None:
    pairs = sample_pairs(8, seed=0)
    truth = pair_truth(pairs)
    table = see_auc_table(pairs, truth, model=tiny_model(), encoder=hash_encoder(32))
    for key in ("same action type", "action text cosine", "same resolved action", "target (real change) cosine",
                "learned world model", "learned, pairs not resolving to one action"):
        assert key in table
    assert table["target (real change) cosine"] == 1.0  # the target separates these pairs exactly
    with pytest.raises(JudgeInputError):
        see_auc_table(pairs, truth[:-1])


@pytest.mark.model
def test_shipped_world_model_knows_a_launcher_icon_opens_its_app() -> None:
    task = registry.get_template("contacts_add_to_favorites").instantiate(0)
    env = SimEnv(task=task, seed=0)
    try:
        obs = env.reset()
        icon = {e.text: i for i, e in enumerate(obs.elements) if e.resource_name == "icon"}
        open_contacts = Action(action_type="open_app", app_name="Contacts")
        r = {name: semantic_reward(obs.xml, open_contacts, Action(action_type="click", index=i))
             for name, i in icon.items()}
        assert max(r, key=r.get) == "Contacts" and r["Contacts"] > 0.6  # above SEE's bonus threshold tau
    finally:
        env.close()


def test_judge_command_takes_the_learned_world_model(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from droidverify.cli import app
    from droidverify.cli.judge import JudgeSpec, make_judge

    spec = JudgeSpec("see", world_model="learned")
    judge = make_judge("see", model=None, votes=1, max_tokens=8, probes=1, probe_steps=1, world_model="learned")
    assert judge.estimator.llm is None and judge.estimator.world_model is not None  # no LLM loaded
    assert spec.version == judge.version and spec.version.startswith("see-learned-")
    with pytest.raises(DroidVerifyError):
        JudgeSpec("see", world_model="oracle")
    runner = CliRunner()
    (tmp_path / "set.jsonl").write_text("")
    for args in (["--method", "passive", "--world-model", "learned"], ["--method", "see", "--world-model", "x"]):
        done = runner.invoke(app, ["judge", *args, str(tmp_path / "set.jsonl")])
        assert done.exit_code == 2 and "--world-model" in done.output
