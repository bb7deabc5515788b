"""The compact verifier backbone: features, the network, the checkpoint and the agent on it."""

from __future__ import annotations

import json
import math
import random

import pytest
import torch
from compact_doubles import hash_encoder

from droidverify.actions.model import Action
from droidverify.agents.verifier import VerifierAgent, extract_candidates
from droidverify.agents.verifier.compact.features import (
    MAX_CLAUSES,
    NUMERIC_NAMES,
    goal_clauses,
    memory_entries,
    numeric_names,
    step_view,
    tokens,
    type_kinds,
)
from droidverify.agents.verifier.compact.model import CompactNet, NetConfig
from droidverify.agents.verifier.compact.scorer import CompactScorer, batch_tensors, read_compact_meta
from droidverify.agents.verifier.trained import load_compact, load_verifier, verifier_backbone
from droidverify.env.sim import SimEnv
from droidverify.errors import CheckpointError
from droidverify.tasks import registry
from droidverify.training.loop import sim_apps


def _scorer(dim: int = 32, layers: int = 2, seed: int = 0) -> CompactScorer:
    torch.manual_seed(seed)
    net = CompactNet(NetConfig(emb_dim=dim, n_numeric=len(NUMERIC_NAMES), d_model=32, layers=layers, heads=4,
                               ff=64, dropout=0.0))
    return CompactScorer(net, hash_encoder(dim))


@pytest.fixture(scope="module")
def contact_step():
    task = registry.get_template("contacts_add_contact").instantiate(0)
    env = SimEnv(task=task, seed=0)
    obs = env.reset()
    for _ in range(2):  # two oracle steps in: a form with fields, a memory with two entries
        obs = env.step(task.oracle_action(env.phone, obs))
    return task, env, obs


def test_every_candidate_gets_one_feature_row_of_the_declared_width(contact_step):
    task, _, obs = contact_step
    cands = extract_candidates(obs, apps=sim_apps())
    view = step_view(task.goal, "Step 1: open the app 'Contacts'\nStep 2: click x", obs.elements, cands)
    assert len(view.candidates) == len(cands)
    assert all(len(c.numeric) == len(NUMERIC_NAMES) for c in view.candidates)
    assert view.memory == ["open the app 'Contacts'", "click x"]
    assert memory_entries("") == []


def test_scores_do_not_depend_on_candidate_order(contact_step):
    task, _, obs = contact_step
    scorer = _scorer()
    cands = extract_candidates(obs, apps=sim_apps())
    base = scorer.score(task.goal, "Step 1: opened Contacts", obs.elements, cands)
    perm = list(range(len(cands)))
    random.Random(3).shuffle(perm)
    shuffled = scorer.score(task.goal, "Step 1: opened Contacts", obs.elements, [cands[i] for i in perm])
    assert shuffled == pytest.approx([base[i] for i in perm], abs=1e-5)
    assert len({round(x, 5) for x in base}) > 1  # not a constant


def test_a_saved_and_reloaded_checkpoint_scores_identically(tmp_path, contact_step):
    task, _, obs = contact_step
    scorer = _scorer()
    cands = extract_candidates(obs, apps=sim_apps())
    before = scorer.score(task.goal, "", obs.elements, cands)
    path = scorer.save(tmp_path / "v", train_config={"epochs": 1}, provenance={"command": "test"})
    assert verifier_backbone(path) == "compact"
    again = CompactScorer.load(path, scorer.encoder)
    assert again.score(task.goal, "", obs.elements, cands) == pytest.approx(before, abs=1e-6)
    assert json.loads((path / "provenance.json").read_text())["command"] == "test"


def test_a_checkpoint_of_other_features_or_another_backbone_is_refused(tmp_path):
    path = _scorer().save(tmp_path / "v")
    meta = json.loads((path / "verifier.json").read_text())
    (path / "verifier.json").write_text(json.dumps({**meta, "feature_version": 0}))
    with pytest.raises(CheckpointError, match="feature version 0"):
        read_compact_meta(path)
    (path / "verifier.json").write_text(json.dumps({**meta, "backbone": "llm"}))
    with pytest.raises(CheckpointError, match="not a compact verifier"):
        read_compact_meta(path)
    (path / "verifier.json").write_text(json.dumps({**meta, "backbone": "quantum"}))
    with pytest.raises(CheckpointError, match="unknown backbone 'quantum'"):
        verifier_backbone(path)


def test_a_checkpoint_adopts_its_memory_and_refuses_another(tmp_path, monkeypatch):
    path = _scorer().save(tmp_path / "v")
    # adopted: no memory asked for
    assert load_compact(path).memory == "diff"
    with pytest.raises(CheckpointError, match=r"trained with memory 'diff'; it cannot run with memory 'history'"):
        load_compact(path, memory="history")
    with pytest.raises(CheckpointError, match=r"trained with content 'select'"):
        load_compact(path, content="llm")
    monkeypatch.setattr("droidverify.agents.verifier.compact.scorer.TextEncoder", lambda **kw: hash_encoder())
    agent = load_verifier(path, apps=sim_apps())
    assert agent.memory.name == "diff" and agent.content == "select" and agent.llm is None
    with pytest.raises(CheckpointError, match="memory 'history'"):
        load_verifier(path, memory="history")


def test_the_agent_on_a_compact_scorer_needs_no_llm_and_chooses_values(contact_step):
    task, _, obs = contact_step
    agent = VerifierAgent(None, scorer=_scorer(), apps=sim_apps())
    agent.reset(task.goal)
    out = agent.act(obs, [])
    info = out.info
    assert info["score_kind"] == "compact" and info["content"] == "select"
    actions = [Action.model_validate_json(c["action"]) for c in info["candidates"]]
    # text by selection: no placeholder is left where a value was proposed, one open_app per app
    # but the one in front (the step is on a Contacts screen)
    apps = sorted(a.app_name for a in actions if a.action_type == "open_app")
    assert apps == sorted(set(sim_apps()) - {"Contacts"})
    assert out.action is not None and out.action.to_json() in {a.to_json() for a in actions}
    assert len(info["candidates"]) == info["n_candidates"]


def test_an_unproposed_value_without_an_llm_moves_on_to_the_next_candidate(contact_step):
    task, _, obs = contact_step

    class PlaceholderFirst:
        memory, content = "diff", "select"

        def score(self, goal, memory, elements, candidates, descriptions=None):
            return [10.0 if c.action_type == "answer" and c.text == "<answer to be completed>" else 0.0
                    for c in candidates]

    agent = VerifierAgent(None, scorer=PlaceholderFirst(), apps=sim_apps(), content="llm")
    agent.reset(task.goal)
    out = agent.act(obs, [])
    assert out.action is not None and out.action.action_type != "answer"
    assert "no language model" in out.info["completion_failures"][0]["error"]


def _form(xml_fields: str) -> list:
    from droidverify.env.records import Observation

    xml = ('<hierarchy rotation="0"><node index="0" class="android.widget.FrameLayout" package="com.example" '
           'bounds="[0,0][1080,2400]">' + xml_fields + '</node></hierarchy>')
    return Observation(xml=xml).elements


def _num(view, i: int, name: str) -> float:
    return view.candidates[i].numeric[NUMERIC_NAMES.index(name)]


def test_features_of_version_4_say_which_field_a_goal_value_belongs_in():
    els = _form(
        '<node index="0" class="android.widget.EditText" package="com.example" resource-id="com.example:id/name" '
        'text="" hint="Name" editable="true" clickable="true" bounds="[0,100][1080,200]"/>'
        '<node index="1" class="android.widget.EditText" package="com.example" resource-id="com.example:id/phone" '
        'text="" hint="Phone" editable="true" clickable="true" bounds="[0,200][1080,300]"/>')
    name_i = next(i for i, e in enumerate(els) if e.resource_name == "name")
    phone_i = next(i for i, e in enumerate(els) if e.resource_name == "phone")
    goal = "Add a contact named Ada Byron with phone 555-123-4567"
    cands = [Action(action_type="input_text", index=phone_i, text="555-123-4567"),
             Action(action_type="input_text", index=name_i, text="555-123-4567"),
             Action(action_type="input_text", index=name_i, text="Ada Byron")]
    view = step_view(goal, "", els, cands)
    assert _num(view, 0, "value_cue_field_overlap") == 1.0  # "phone 555..." -> the Phone field
    assert _num(view, 1, "value_cue_field_overlap") == 0.0
    # a phone-shaped value fits the Phone field; the Name field names no shape
    assert _num(view, 0, "value_shape_fits_field") == 1.0 and _num(view, 1, "value_shape_fits_field") == 0.0
    # proposal rank: the first value proposed for a field ranks above the next one for the same field
    assert _num(view, 1, "value_rank") == 1.0 and _num(view, 2, "value_rank") == 0.5
    assert _num(view, 0, "goal_is_question") == 0.0
    assert _num(view, 0, "fields_filled_frac") == 0.0


@pytest.mark.parametrize(("text", "expected"), [
    ("Turn on Wi-Fi", ["turn", "on", "wi", "fi"]),                   # spaced scripts: words, as before
    ("打开蓝牙", ["打开", "开蓝", "蓝牙"]),                                # Han: overlapping character pairs
    ("蓝", ["蓝"]),                                                      # one character stays one token
    ("5G网络设置", ["5g", "网络", "络设", "设置"]),                         # digits and Latin apart from the run
    ("와이파이를 켜줘", ["와이", "이파", "파이", "이를", "켜줘"]),              # Hangul with its particle glued on
    ("設定を開く", ["設定", "定を", "を開", "開く"]),                         # kanji and kana
])
def test_tokens_split_unspaced_scripts_into_character_pairs(text, expected):
    assert tokens(text) == expected


def test_a_chinese_goal_matches_the_label_it_names():
    # "Turn on Bluetooth" on a Chinese quick-settings panel: before, "打开蓝牙" was one token and
    # no word of the label "蓝牙" was ever in the goal
    els = _form(
        '<node index="0" class="android.widget.Switch" package="com.example" content-desc="蓝牙" '
        'checkable="true" clickable="true" bounds="[0,100][540,200]"/>'
        '<node index="1" class="android.widget.Switch" package="com.example" content-desc="飞行模式" '
        'checkable="true" clickable="true" bounds="[540,100][1080,200]"/>')
    cands = [Action(action_type="click", index=i) for i, e in enumerate(els) if e.is_clickable]
    view = step_view("打开蓝牙", "", els, cands)
    assert [_num(view, i, "label_in_goal_frac") for i in range(2)] == [1.0, 0.0]
    assert _num(view, 0, "goal_in_label_frac") > _num(view, 1, "goal_in_label_frac")
    assert _num(view, 0, "goal_words_on_screen") > 0.0  # a character pair is a content word


def test_an_answer_carries_the_row_it_is_read_from_and_questions_are_flagged():
    els = _form(
        '<node index="0" class="android.widget.LinearLayout" package="com.example" bounds="[0,100][1080,200]">'
        '<node index="0" class="android.widget.TextView" package="com.example" text="Grace Hopper" '
        'bounds="[0,100][500,200]"/><node index="1" class="android.widget.TextView" package="com.example" '
        'text="555-0101" bounds="[500,100][1080,200]"/></node>'
        '<node index="1" class="android.widget.LinearLayout" package="com.example" bounds="[0,200][1080,300]">'
        '<node index="0" class="android.widget.TextView" package="com.example" text="Alan Turing" '
        'bounds="[0,200][500,300]"/><node index="1" class="android.widget.TextView" package="com.example" '
        'text="555-0199" bounds="[500,200][1080,300]"/></node>')
    goal = "What is the phone number of Alan Turing?"
    cands = [Action(action_type="answer", text="555-0101"), Action(action_type="answer", text="555-0199")]
    view = step_view(goal, "", els, cands)
    assert "Grace Hopper" in view.candidates[0].context and "Alan Turing" in view.candidates[1].context
    assert _num(view, 1, "context_in_goal_frac") > _num(view, 0, "context_in_goal_frac")
    assert _num(view, 0, "goal_is_question") == 1.0
    # a version-3 checkpoint gets exactly the numbers and strings it was trained on
    old = step_view(goal, "", els, cands, version=3)
    assert old.candidates[1].context == "" and len(old.candidates[1].numeric) == len(numeric_names(3))
    assert old.candidates[1].numeric == view.candidates[1].numeric[:len(numeric_names(3))]


def test_a_version_3_checkpoint_still_loads_and_scores_on_its_own_features(tmp_path, contact_step):
    task, _, obs = contact_step
    torch.manual_seed(0)
    net = CompactNet(NetConfig(emb_dim=32, n_numeric=len(numeric_names(3)), d_model=32, layers=1, heads=4, ff=64,
                               dropout=0.0))
    old = CompactScorer(net, hash_encoder(32), meta={"feature_version": 3})
    path = old.save(tmp_path / "v3")
    assert json.loads((path / "verifier.json").read_text())["numeric"] == list(numeric_names(3))
    again = CompactScorer.load(path, hash_encoder(32))
    cands = extract_candidates(obs, apps=sim_apps())
    assert again.score(task.goal, "", obs.elements, cands) == pytest.approx(old.score(task.goal, "", obs.elements, cands))


def test_identity_dropout_hides_an_elements_own_name_but_not_its_match_with_the_goal(tmp_path, contact_step):
    task, _, obs = contact_step
    cands = extract_candidates(obs, apps=sim_apps())
    dim = 32

    def scorer_with(p: float) -> CompactScorer:
        torch.manual_seed(0)
        net = CompactNet(NetConfig(emb_dim=dim, n_numeric=len(NUMERIC_NAMES), d_model=32, layers=1, heads=4,
                                   ff=64, dropout=0.0, identity_dropout=p))
        return CompactScorer(net, hash_encoder(dim))

    def zero_columns(scorer: CompactScorer, start: int, stop: int) -> list[float]:
        with torch.no_grad():
            scorer.net.cand_proj[0].weight[:, start:stop] = 0.0
        return scorer.score(task.goal, "", obs.elements, cands)

    hidden = scorer_with(1.0)
    before = hidden.score(task.goal, "", obs.elements, cands)
    # the element's own text and row embeddings (the first two blocks) are never read at p = 1
    assert zero_columns(hidden, 0, 2 * dim) == pytest.approx(before, abs=1e-6)
    # ... while its product with the goal is
    assert zero_columns(hidden, 3 * dim, 4 * dim) != pytest.approx(before, abs=1e-4)
    shown = scorer_with(0.0)
    read = shown.score(task.goal, "", obs.elements, cands)
    assert zero_columns(shown, 0, 2 * dim) != pytest.approx(read, abs=1e-4)

    again = CompactScorer.load(hidden.save(tmp_path / "v", train_config={}, provenance={}), hidden.encoder)
    assert again.net.cfg.identity_dropout == 1.0
    assert again.score(task.goal, "", obs.elements, cands) == pytest.approx(
        hidden.score(task.goal, "", obs.elements, cands), abs=1e-6)

    half = scorer_with(0.5)  # hidden for a random half of the candidates, in training only
    assert half.score(task.goal, "", obs.elements, cands) == half.score(task.goal, "", obs.elements, cands)
    inputs = batch_tensors([step_view(task.goal, "", obs.elements, cands)], half.encoder)
    half.net.train()
    with torch.no_grad():
        draws = {tuple(round(x, 4) for x in half.net(**inputs)[0].tolist()) for _ in range(4)}
    assert len(draws) > 1


def _typed_scorer(dim: int = 32, seed: int = 0) -> CompactScorer:
    torch.manual_seed(seed)
    net = CompactNet(NetConfig(emb_dim=dim, n_numeric=len(NUMERIC_NAMES), d_model=32, layers=1, heads=4,
                               ff=64, dropout=0.0, type_kinds=type_kinds()))
    return CompactScorer(net, hash_encoder(dim))


def test_a_type_head_scores_log_probabilities_type_then_candidate_in_any_order(tmp_path, contact_step):
    task, _, obs = contact_step
    cands = extract_candidates(obs, apps=sim_apps())
    scorer = _typed_scorer()
    scores = scorer.score(task.goal, "Step 1: opened Contacts", obs.elements, cands)
    assert sum(math.exp(s) for s in scores) == pytest.approx(1.0, abs=1e-5)
    # the type's share is the type head's, whatever the candidates of that type score: a type with one
    # candidate (navigate back) keeps its probability when the click scores are shifted
    kinds = [c.action_type for c in cands]
    back = kinds.index("navigate_back")
    with torch.no_grad():
        scorer.net.out[-1].bias += 5.0  # every candidate's raw score moves alike
    assert scorer.score(task.goal, "Step 1: opened Contacts", obs.elements, cands)[back] == pytest.approx(
        scores[back], abs=1e-5)
    perm = list(range(len(cands)))
    random.Random(3).shuffle(perm)
    shuffled = scorer.score(task.goal, "Step 1: opened Contacts", obs.elements, [cands[i] for i in perm])
    assert shuffled == pytest.approx([scores[i] for i in perm], abs=1e-5)
    again = CompactScorer.load(scorer.save(tmp_path / "v", train_config={}, provenance={}), scorer.encoder)
    assert again.net.cfg.type_kinds == type_kinds()
    assert again.score(task.goal, "Step 1: opened Contacts", obs.elements, cands) == pytest.approx(
        scorer.score(task.goal, "Step 1: opened Contacts", obs.elements, cands), abs=1e-6)


def test_a_type_head_gives_finite_gradients_when_a_step_offers_one_type_or_is_padded():
    k = type_kinds()
    torch.manual_seed(0)
    net = CompactNet(NetConfig(emb_dim=8, n_numeric=k + 2, d_model=16, layers=1, heads=2, ff=32, type_kinds=k))
    kinds = torch.tensor([[0, 0, 0, 0], [12, 0, 13, 13]])  # all clicks; status, click, two answers
    num = torch.zeros(2, 4, k + 2)
    num[..., :k] = torch.nn.functional.one_hot(kinds, k).float()
    mask = torch.tensor([[True, True, False, False], [True, True, True, True]])
    out = net(goal=torch.randn(2, 8), mem=torch.zeros(2, 0, 8), mem_mask=torch.zeros(2, 0, dtype=torch.bool),
              text=torch.randn(2, 4, 8), ctx=torch.randn(2, 4, 8), value=torch.randn(2, 4, 8), num=num,
              cand_mask=mask)
    assert torch.isinf(out[0, 2:]).all() and torch.isfinite(out[mask]).all()
    assert out[0, :2].exp().sum().item() == pytest.approx(1.0, abs=1e-5)  # one type: within-type only
    (-out[1, 3]).backward()
    assert all(torch.isfinite(p.grad).all() for p in net.parameters() if p.grad is not None)
    with pytest.raises(ValueError, match="type_kinds"):
        CompactNet(NetConfig(emb_dim=8, n_numeric=3, d_model=16, layers=1, heads=2, ff=32, type_kinds=k))


def step_view5(*args):
    return step_view(*args, version=5)


def _num5(view, i: int, name: str) -> float:
    return view.candidates[i].numeric[numeric_names(5).index(name)]


def test_features_of_version_5_say_how_an_answer_fits_the_question():
    """What a question asks for (a phone number, a count, a name, yes or no) against each proposed answer,
    and where the value was read (after a label the question names): the cues the version-4 network
    missed on validation ("Chloe Nakamura" for a phone number, a MAC address for a device's name)."""
    els = _form(
        '<node index="0" class="android.widget.TextView" package="com.example" text="Sakura Williams" '
        'bounds="[0,100][1080,200]"/>'
        '<node index="1" class="android.widget.TextView" package="com.example" text="Chloe Nakamura" '
        'bounds="[0,200][1080,300]"/>'
        '<node index="2" class="android.widget.TextView" package="com.example" text="Mobile" '
        'bounds="[0,300][500,400]"/>'
        '<node index="3" class="android.widget.TextView" package="com.example" text="(212) 246-1272" '
        'bounds="[500,300][1080,400]"/>'
        '<node index="4" class="android.widget.TextView" package="com.example" text="3C:5A:B4:12:80:04" '
        'bounds="[0,400][1080,500]"/>')
    cands = [Action(action_type="answer", text=t) for t in ("(212) 246-1272", "Chloe Nakamura", "3C:5A:B4:12:80:04")]
    phone = step_view5("What is Sakura Williams's phone number?", "", els, cands)
    assert [_num5(phone, i, "answer_kind_fit") for i in range(3)] == [1.0, -1.0, -1.0]
    name = step_view5("Which of my contacts is a coworker? Answer with the name.", "", els, cands)
    assert [_num5(name, i, "answer_kind_fit") for i in range(3)] == [-1.0, 1.0, -1.0]
    # the question gives the number and asks for the name: the number is not what it asks for
    given = step_view5("Which contact has the phone number (212) 246-1272? Tell me their name.", "", els, cands)
    assert _num5(given, 1, "answer_kind_fit") == 1.0 and _num5(given, 0, "answer_kind_fit") == -1.0
    # read after the label "Mobile", which the question names
    mobile = step_view5("What is Sakura's mobile number?", "", els, cands)
    assert _num5(mobile, 0, "answer_after_label") == 1.0 and _num5(mobile, 1, "answer_after_label") == 0.0
    yes = step_view5("Is Chloe Nakamura in my contacts? Answer yes or no.", "", els,
                    [Action(action_type="answer", text="yes"), Action(action_type="answer", text="Chloe Nakamura")])
    assert _num5(yes, 0, "answer_kind_fit") == 1.0 and _num5(yes, 1, "answer_kind_fit") == -1.0
    # a count asked with words that end like an on/off question is still a count
    count = step_view5("How many of my alarms are switched on?", "", _form(
        '<node index="0" class="android.widget.TextView" package="com.example" text="3 alarms on" '
        'bounds="[0,100][1080,200]"/>'), [Action(action_type="answer", text="3"),
                                         Action(action_type="answer", text="on")])
    assert _num5(count, 0, "answer_kind_fit") == 1.0 and _num5(count, 1, "answer_kind_fit") == -1.0
    # other actions, and a value nothing proposed (an LLM's), carry zeros; version 4 is unchanged
    other = step_view5("What is Sakura Williams's phone number?", "", els,
                      [Action(action_type="click", index=0), Action(action_type="answer", text="no such value")])
    assert all(_num5(other, i, n) == 0.0 for i in range(2) for n in numeric_names(5)[len(numeric_names(4)):])
    v4 = step_view("What is Sakura Williams's phone number?", "", els, cands, version=4)
    assert [c.numeric for c in v4.candidates] == [c.numeric[:len(numeric_names(4))] for c in phone.candidates]


def test_a_version_6_checkpoint_chooses_among_derived_values_and_a_version_4_one_never_sees_them(tmp_path):
    """The agent expands a step as its checkpoint was trained: derived values only for version 6,
    after a save and load too."""
    from agent_doubles import el, make_obs

    goal = "How many minutes are there between 8:15 AM and 9:40 AM? Answer in minutes."
    obs = make_obs([el("Alarm"), el("8:15 AM", top=100), el("9:40 AM", top=200)])
    def saved_and_loaded(version: int) -> CompactScorer:
        torch.manual_seed(0)
        net = CompactNet(NetConfig(emb_dim=32, n_numeric=len(numeric_names(version)), d_model=32, layers=1, heads=4,
                                   ff=64, dropout=0.0))
        scorer = CompactScorer(net, hash_encoder(32), meta={"feature_version": version})
        return CompactScorer.load(scorer.save(tmp_path / f"v{version}"), hash_encoder(32))

    offered = {}
    for name, scorer in (("v4", saved_and_loaded(4)), ("v6", saved_and_loaded(6))):
        agent = VerifierAgent(None, scorer=scorer, apps=sim_apps())
        agent.reset(goal)
        info = agent.act(obs, []).info
        offered[name] = {a.text for a in (Action.model_validate_json(c["action"]) for c in info["candidates"])
                         if a.action_type == "answer"}
    assert "85 minutes" in offered["v6"] and "85 minutes" not in offered["v4"]
    assert offered["v4"] <= offered["v6"]


@pytest.mark.parametrize("goal, clauses", [
    ("Delete every screenshot in Pictures/Screenshots with the Files app, then turn on dark theme.",
     ["Delete every screenshot in Pictures/Screenshots with the Files app", "turn on dark theme."]),
    ('Change the start time of "Standup" to 9:00 AM; keep its length the same.',
     ['Change the start time of "Standup" to 9:00 AM;', "keep its length the same."]),
    ("Set the alarm volume to 4 (the slider goes from 0 to 7).",
     ["Set the alarm volume to 4 (the slider goes from 0 to 7)."]),
    ("Pay $23.99 to Dr. Smith. Then mark it paid and then archive it",
     ["Pay $23.99 to Dr. Smith.", "mark it paid", "archive it"]),
    ("Make sure each has it once: remove any extra copy - and send it", ["Make sure each has it once:",
                                                                          "remove any extra copy", "and send it"]),
    ("a. b. c. d. e. f. g. h.", ["a.", "b.", "c.", "d.", "e.", "f. g. h."]),
    ("", []),
    ("...", []),
])
def test_a_goal_is_cut_into_its_clauses_in_order(goal, clauses):
    assert goal_clauses(goal) == clauses


def _clause_scorer(dim: int = 32, seed: int = 0) -> CompactScorer:
    torch.manual_seed(seed)
    net = CompactNet(NetConfig(emb_dim=dim, n_numeric=len(numeric_names(7)), d_model=32, layers=1, heads=4,
                               ff=64, dropout=0.0, type_kinds=type_kinds(7), clauses=MAX_CLAUSES))
    return CompactScorer(net, hash_encoder(dim), meta={"feature_version": 7})


def test_a_clause_reading_network_reads_them_in_order_in_any_candidate_order(tmp_path, contact_step):
    task, _, obs = contact_step
    cands = extract_candidates(obs, apps=sim_apps())
    scorer = _clause_scorer()
    goal = f"{task.goal} Then go back to the list."
    view = scorer.view(goal, "Step 1: opened Contacts", obs.elements, cands)
    assert view.clauses == goal_clauses(view.goal) and len(view.clauses) >= 2
    assert step_view(goal, "", obs.elements, cands, version=6).clauses == []  # older versions: none
    scores = scorer.score(goal, "Step 1: opened Contacts", obs.elements, cands)
    perm = list(range(len(cands)))
    random.Random(3).shuffle(perm)
    shuffled = scorer.score(goal, "Step 1: opened Contacts", obs.elements, [cands[i] for i in perm])
    assert shuffled == pytest.approx([scores[i] for i in perm], abs=1e-5)
    # the clauses are read, and their order counts
    view.clauses = list(reversed(view.clauses))
    assert scorer.score_views([view])[0] != pytest.approx(scores, abs=1e-4)
    again = CompactScorer.load(scorer.save(tmp_path / "v", train_config={}, provenance={}), scorer.encoder)
    assert again.net.cfg.clauses == MAX_CLAUSES and again.feature_version == 7
    assert again.score(goal, "Step 1: opened Contacts", obs.elements, cands) == pytest.approx(scores, abs=1e-6)


def test_a_clause_reading_network_refuses_inputs_without_clauses(contact_step):
    task, _, obs = contact_step
    cands = extract_candidates(obs, apps=sim_apps())
    scorer = _clause_scorer()
    view = step_view(task.goal, "", obs.elements, cands, version=7)
    with pytest.raises(ValueError, match="clauses"):
        scorer.net(**batch_tensors([view], scorer.encoder, with_clauses=False))
    # a goal with no clause at all (only punctuation) still scores: no clause to match, not an error
    empty = step_view("...", "", obs.elements, cands, version=7)
    assert empty.clauses == []
    out = scorer.net(**batch_tensors([empty], scorer.encoder, with_clauses=True))
    assert torch.isfinite(out).all()
