"""The compact verifier backbone: features, the network, the checkpoint and the agent on it."""

from __future__ import annotations

import json
import random

import pytest
import torch
from compact_doubles import hash_encoder

from droidverify.actions.model import Action
from droidverify.agents.verifier import VerifierAgent, extract_candidates
from droidverify.agents.verifier.compact.features import NUMERIC_NAMES, memory_entries, step_view
from droidverify.agents.verifier.compact.model import CompactNet, NetConfig
from droidverify.agents.verifier.compact.scorer import CompactScorer, read_compact_meta
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
    apps = sorted(a.app_name for a in actions if a.action_type == "open_app")
    assert apps == sorted(sim_apps())
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
