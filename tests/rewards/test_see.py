from __future__ import annotations

import random

import pytest
from rewards_doubles import ScriptedLLM

from droidverify.actions.model import Action
from droidverify.env.sim import SimEnv
from droidverify.llm.embeddings import embedder_path
from droidverify.rewards.see import (
    SEEJudge,
    SemanticEstimator,
    actions_equivalent,
    cosine,
    equivalent_forms,
    sample_pairs,
    see_rl_reward,
)
from droidverify.tasks import registry


@pytest.fixture()
def contacts():
    task = registry.get_template("contacts_add_to_favorites").instantiate(0)
    env = SimEnv(task=task, seed=0)
    env.reset()
    obs = env.step(Action(action_type="open_app", app_name="Contacts"))
    yield env, obs
    env.close()


def row(obs, name):
    return next(i for i, e in enumerate(obs.elements) if (e.text or "").startswith(name))


def test_tap_on_a_rows_label_equals_tap_on_the_row(contacts) -> None:
    env, obs = contacts
    i = row(obs, "Amara Gallagher")
    b = obs.elements[i].bbox_pixels
    label_point = Action(action_type="click", x=b.left + 120, y=(b.top + b.bottom) // 2)
    assert actions_equivalent(env.phone, Action(action_type="click", index=i), label_point)


def test_different_rows_and_different_effects_are_not_equivalent(contacts) -> None:
    env, obs = contacts
    a, b = row(obs, "Amara Gallagher"), row(obs, "Amara Okafor")
    assert not actions_equivalent(env.phone, Action(action_type="click", index=a), Action(action_type="click", index=b))
    assert not actions_equivalent(env.phone, Action(action_type="navigate_back"), Action(action_type="click", index=a))
    assert actions_equivalent(env.phone, Action(action_type="click", index=a), Action(action_type="click", index=a))


def test_equivalence_does_not_touch_the_phone(contacts) -> None:
    env, obs = contacts
    before = list(env.phone.conn.iterdump())
    actions_equivalent(env.phone, Action(action_type="click", index=row(obs, "Amara")), Action(action_type="navigate_home"))
    assert list(env.phone.conn.iterdump()) == before and env.observe().xml == obs.xml


def test_rl_reward_threshold() -> None:
    assert see_rl_reward(1.0, 0.7) == pytest.approx(1.35)
    assert see_rl_reward(1.0, 0.6) == 1.0  # strictly above tau
    assert see_rl_reward(0.0, 0.9, tau=0.95, beta=1.0) == 0.0


def fake_embed(texts):
    # bag of words over a tiny vocabulary: identical predictions -> 1.0, unrelated -> 0.0
    vocab = ["opens", "contact", "favorite", "back", "home", "nothing"]
    return [[float(w in t.lower()) for w in vocab] for t in texts]


def test_estimator_similarity_with_scripted_world_model(contacts) -> None:
    _env, obs = contacts
    llm = ScriptedLLM(reply_fn=lambda m, i: "Goes back home." if "go back" in m[-1]["content"]
                      else "Opens the contact's details.")
    est = SemanticEstimator(llm, embed=fake_embed)
    a = Action(action_type="click", index=row(obs, "Amara Gallagher"))
    b = Action(action_type="click", index=row(obs, "Amara Okafor"))
    assert est.similarity(obs, a, a) == 1.0 and llm.calls == []  # identical actions need no model
    assert est.similarity(obs, a, b) == pytest.approx(1.0)
    assert est.similarity(obs, a, Action(action_type="navigate_back")) == pytest.approx(0.0)
    n = len(llm.calls)
    est.similarity(obs, a, b)
    assert len(llm.calls) == n  # predictions are cached per (screen, action)
    assert cosine([0, 0], [1, 0]) == 0.0
    # float rounding carries about one vector in five past 1.0 against itself: a similarity stays in [-1, 1]
    rng = random.Random(0)
    vectors = [[rng.random() for _ in range(30)] for _ in range(200)]
    assert all(-1.0 <= cosine(v, v) <= 1.0 and -1.0 <= cosine(v, [-x for x in v]) for v in vectors)


def test_errored_world_model_gives_no_semantic_credit(contacts) -> None:
    _env, obs = contacts
    est = SemanticEstimator(ScriptedLLM([RuntimeError("down")]), embed=fake_embed)
    assert est.similarity(obs, Action(action_type="navigate_back"), Action(action_type="navigate_home")) == 0.0


def test_see_judge_replays_against_the_oracle(labelled_items) -> None:
    it = next(i for i in labelled_items if i.variant == "oracle")
    est = SemanticEstimator(ScriptedLLM(["Opens the contact."]), embed=fake_embed)
    j = SEEJudge(est).judge(it.trajectory)
    rows = j.details["steps"]
    assert rows and all(r["action"] == r["oracle"] for r in rows)  # the oracle's own episode
    assert all(r.get("equivalent", True) for r in rows)
    assert j.outcome == "success" and j.reward == 1.0


def test_bundled_embedder_files_are_found() -> None:
    path = embedder_path()
    assert (path / "model.safetensors").is_file() and (path / "modules.json").is_file()


def test_equivalent_forms_are_other_ways_to_do_the_same_thing(contacts) -> None:
    env, obs = contacts
    i = row(obs, "Amara Gallagher")
    b = obs.elements[i].bbox_pixels
    click = Action(action_type="click", index=i)
    forms = equivalent_forms(obs, click)
    assert [(f.x, f.y) for f in forms] == [b.center, (b.left + b.width // 4, b.center[1])]
    back = equivalent_forms(obs, Action(action_type="navigate_back"))
    assert [obs.elements[f.index].content_description for f in back] == ["Back"]
    for ref, fs in ((click, forms), (Action(action_type="navigate_back"), back)):
        assert all(actions_equivalent(env.phone, ref, f) for f in fs)
    assert equivalent_forms(obs, Action(action_type="wait")) == []


def test_equivalent_forms_open_an_app_from_its_launcher_icon() -> None:
    task = registry.get_template("contacts_add_to_favorites").instantiate(0)
    env = SimEnv(task=task, seed=0)
    try:
        obs = env.reset()
        ref = Action(action_type="open_app", app_name="Contacts")
        (icon,) = equivalent_forms(obs, ref)
        assert obs.elements[icon.index].text == "Contacts" and actions_equivalent(env.phone, ref, icon)
    finally:
        env.close()


def test_sampled_pairs_hold_both_classes_and_are_deterministic() -> None:
    pairs = sample_pairs(32, seed=0)
    again = sample_pairs(32, seed=0)
    assert len(pairs) == 32
    assert [(p.reference.to_json(), p.other.to_json()) for p in pairs] == \
        [(p.reference.to_json(), p.other.to_json()) for p in again]
    truth = [actions_equivalent(p.phone, p.reference, p.other) for p in pairs]
    assert sum(truth) >= len(pairs) // 4 and sum(truth) < len(pairs)  # both classes, >= 1/4 equivalent
    assert all(t for p, t in zip(pairs, truth) if p.source == "form")
    assert all(p.other.to_json() != p.reference.to_json() for p in pairs)
    small = sample_pairs(6, seed=0)  # a small run has both classes too
    assert len({actions_equivalent(p.phone, p.reference, p.other) for p in small}) == 2
