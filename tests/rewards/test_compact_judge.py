"""The trained compact judge: its view of an episode, the network, the judge directory, the Judge
contract and the CLI. A hash embedder stands in for MiniLM (one test, marked ``model``, loads it)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from droidverify.errors import CheckpointError, JudgeInputError
from droidverify.rewards.compact_judge import (
    ELEMENT,
    ELEMENT_NUMERIC_3,
    GLOBAL_NUMERIC,
    SETTINGS,
    TOKEN_NUMERIC,
    CompactJudge,
    CompactJudgeModel,
    JudgeNetConfig,
    batch_tensors,
    build_net,
    claim_off,
    digit_off,
    goal_slots,
    goal_values,
    near_only,
    passive_view,
    shipped_judge_path,
    trajectory_view,
    typed_vs_goal,
    view_of,
)
from droidverify.rewards.labelled import HOSTILE_TEXTS, build_training_items, with_hostile_text, write_set

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))
from compact_doubles import hash_encoder

TEMPLATES = ("clock_create_alarm", "clock_turn_on_alarm", "calendar_query_event_count", "settings_bluetooth_toggle",
             "expenses_edit_amount", "contacts_add_contact")


@pytest.fixture(scope="module")
def items():
    return list(build_training_items("train", seeds=[0], templates=TEMPLATES))


def fixed_model(seed: int = 0, thresholds: dict[str, float] | None = None) -> CompactJudgeModel:
    import torch

    torch.manual_seed(seed)
    net = build_net(JudgeNetConfig(emb_dim=32, d_model=16, heads=2, ff=32))
    return CompactJudgeModel(net, hash_encoder(), thresholds=thresholds or {"passive": 0.5, "evidence": 0.5})


def test_goal_slots_are_found_by_pattern() -> None:
    slots = {(s.kind, s.text) for s in goal_slots('Create an alarm for 4:35 PM with the label "Stretch".')}
    assert slots == {("time", "4:35 pm"), ("quoted", "stretch")}
    slots = {(s.kind, s.text) for s in goal_slots(
        "I have Jamal Singh saved twice. Delete the entry with the old number (213) 904-8993.")}
    assert ("name", "jamal singh") in slots and ("number", "8993") in slots
    assert not any(k == "name" and t in ("i", "delete") for k, t in slots)  # sentence starts are no names
    assert ("file", "setup_guide.pdf") in {(s.kind, s.text) for s in goal_slots("Move setup_guide.pdf to Documents.")}
    assert goal_slots("") == []


def test_a_typed_value_one_edit_off_the_goal_is_flagged() -> None:
    """The commonest wrong value a form is saved with is one character off the goal's (a minute off,
    a name cut short, a typo); the final screen need not show it, so the judge reads it from the
    typing. Pieces of the goal's times count as given (an hour field gets "9" of "9:00 AM")."""
    values = goal_values('Move "Parent-teacher meeting" to 9:00 AM. Email sven.patel71@gmail.com, last name Costa.')
    assert {"9", "00", "parent-teacher meeting", "sven.patel71@gmail.com", "costa"} <= values
    assert typed_vs_goal("9", values) == (True, False)
    assert typed_vs_goal(" Costa ", values) == (True, False)  # compared as the judge normalises
    for wrong in ("01", "Cost", "Costas", "sven.patel72@gmail.com", "Parent-teacher meetin"):
        assert typed_vs_goal(wrong, values) == (False, True), wrong
    for unrelated in ("Dentist", "7:45", ""):  # not from the goal, not near it: neither
        assert typed_vs_goal(unrelated, values) == (False, False), unrelated


def test_the_passive_view_carries_a_wrong_value_typed(items) -> None:
    by = {(it.template, it.variant): it for it in items}
    right = passive_view(by[("contacts_add_contact", "oracle")].trajectory)
    wrong = passive_view(by[("contacts_add_contact", "wrong_value")].trajectory)
    g_right = dict(zip(GLOBAL_NUMERIC, right.numeric, strict=True))
    g_wrong = dict(zip(GLOBAL_NUMERIC, wrong.numeric, strict=True))
    assert g_right["typed_near_goal"] == 0.0 and g_wrong["typed_near_goal"] == 1.0
    assert g_right["typed_from_goal"] > g_wrong["typed_from_goal"]


def test_values_one_digit_off_are_told_from_other_values() -> None:
    """A wrong value saved or an answer misread is most often one digit off the right one (the
    labelled set's own near misses are made that way): a minute, a cent, a year. Single digits are
    not compared (any two would count) and the right value shown as well clears the flag."""
    for a, b in (("11:55", "11:56"), ("70.9", "70.0"), ("2024", "2025"), ("1272", "1273")):
        assert digit_off(a, b) and digit_off(b, a)
    for a, b in (("4", "5"), ("11:55", "11:55"), ("11:55", "1:55"), ("45", "54"), ("498", "4980")):
        assert not digit_off(a, b), (a, b)
    slots = goal_slots('Set "Walk the dog" to 11:55 AM, repeat 12 times.')
    assert [(s.kind, s.text) for s in slots] == [("quoted", "walk the dog"), ("time", "11:55 am"), ("number", "12")]
    slots = [slots[1], slots[0], slots[2]]  # time, name, number
    assert near_only(slots, {"11:56"}, [False, False, False]) == [True, False, False]
    assert near_only(slots, {"11:56", "13"}, [False, True, False]) == [True, False, True]
    assert near_only(slots, {"11:56", "11:55"}, [False, False, False]) == [False, False, False]  # shown too
    assert near_only(slots, {"11:56"}, [True, False, False]) == [False, False, False]
    assert claim_off({"498"}, {"497", "2024"}) and not claim_off({"498"}, {"498", "497"})
    assert not claim_off(set(), {"497"}) and not claim_off({"498"}, {"398 kb"})


def test_the_passive_view_flags_values_one_digit_off(items) -> None:
    """A form saved one digit off the goal (a contact's number) and an answer one digit off what the
    final screen shows raise version 3's numbers; the right value does not."""
    import copy
    import re

    by = {(it.template, it.variant): it for it in items}

    def numbers(traj):
        v = passive_view(traj)
        g = dict(zip(GLOBAL_NUMERIC, v.numeric, strict=True))
        toks = {n: any(t.numeric[TOKEN_NUMERIC.index(n)] for t in v.tokens) for n in ELEMENT_NUMERIC_3}
        return g, toks

    right, right_tok = numbers(by[("contacts_add_contact", "oracle")].trajectory)
    wrong, wrong_tok = numbers(by[("contacts_add_contact", "wrong_value")].trajectory)
    assert right["slot_near_in_row"] == 0.0 and wrong["slot_near_in_row"] == 1.0
    assert not right_tok["near_slot"] and wrong_tok["near_slot"]
    assert right["claim_near_screen"] == -1.0  # no answer: not asked
    # an answer a digit off a number the final screen shows, and the number itself
    oracle = by[("contacts_add_contact", "oracle")].trajectory
    shown = max(n for e in oracle.final_observation.elements for n in re.findall(r"\d{3,}", e.text or ""))
    for answer, flagged in ((shown[:-1] + str((int(shown[-1]) + 1) % 10), True), (shown, False)):
        traj = copy.deepcopy(oracle)
        traj.answer = f"It is {answer}"
        g, toks = numbers(traj)
        assert (g["claim_near_screen"], toks["claim_near"]) == (float(flagged), flagged), answer


def test_a_judge_of_an_earlier_feature_version_reads_its_own_numbers(tmp_path, items) -> None:
    """Feature versions only add names: a judge trained before reads its columns by name and judges
    as it did; a file naming numbers this code does not compute, or not matching its network, is refused."""
    import torch

    old_tokens = [n for n in TOKEN_NUMERIC if n not in ELEMENT_NUMERIC_3]
    old_globals = GLOBAL_NUMERIC[:GLOBAL_NUMERIC.index("claim_near_screen")]
    torch.manual_seed(5)
    net = build_net(JudgeNetConfig(emb_dim=32, d_model=16, heads=2, ff=32, n_token_numeric=len(old_tokens),
                                   n_global=len(old_globals)))
    meta = {"feature_version": 2, "token_numeric": old_tokens, "global_numeric": list(old_globals)}
    model = CompactJudgeModel(net, hash_encoder(), thresholds={"passive": 0.5}, meta=meta)
    views = [passive_view(it.trajectory) for it in items[:8]]
    inputs = batch_tensors(views, hash_encoder())
    keep = [TOKEN_NUMERIC.index(n) for n in old_tokens]
    inputs["tok_num"], inputs["glob"] = inputs["tok_num"][:, :, keep], inputs["glob"][:, :len(old_globals)]
    with torch.inference_mode():
        want = torch.sigmoid(net(**inputs)).tolist()
    assert model.p_success(views) == pytest.approx(want, abs=1e-6)
    model.save(tmp_path / "old")
    saved = json.loads((tmp_path / "old" / "judge.json").read_text())
    assert saved["feature_version"] == 2 and saved["token_numeric"] == old_tokens
    loaded = CompactJudge.load(tmp_path / "old", "passive", encoder=hash_encoder())
    assert loaded.models["passive"].p_success(views) == model.p_success(views)
    assert loaded.version.startswith("compact-f2-passive@")
    for change in ({"token_numeric": [*old_tokens, "mood"]}, {"feature_version": 99}, {"feature_version": 1}):
        (tmp_path / "old" / "judge.json").write_text(json.dumps({**saved, **change}))
        with pytest.raises(CheckpointError, match="feature version"):
            CompactJudge.load(tmp_path / "old", encoder=hash_encoder())
    (tmp_path / "old" / "judge.json").write_text(json.dumps({**saved, "global_numeric": list(GLOBAL_NUMERIC)}))
    with pytest.raises(CheckpointError, match="episode numbers"):
        CompactJudge.load(tmp_path / "old", encoder=hash_encoder())


def test_views_read_what_each_setting_may_see(items) -> None:
    oracle = next(it for it in items if it.variant == "oracle")
    v = passive_view(oracle.trajectory)
    g = dict(zip(GLOBAL_NUMERIC, v.numeric, strict=True))
    assert v.setting == "passive" and v.goal and g["declared_done"] == 1.0 and g["end_complete"] == 1.0
    assert sum(t.kind == 2 for t in v.tokens) <= 6 and any(t.kind == 3 for t in v.tokens)
    sv = next(it for it in items if it.variant == "sv_correct")
    e = view_of(sv.trajectory, "evidence")
    assert e is not None and e.setting == "evidence"
    last = sv.trajectory.steps[-1].action
    assert e.claim == last.text  # the submit message, nothing about how many rounds the episode took
    assert dict(zip(GLOBAL_NUMERIC, e.numeric, strict=True))["steps"] == 0.0
    # the evidence view reads only the cited exhibits: a different uncited round changes nothing
    traj = sv.trajectory
    other = [i for i in range(len(traj.steps) - 1) if i not in last.evidences and i + 1 not in last.evidences]
    if other:
        changed = type(traj).from_dict(traj.to_dict())
        changed.steps[other[0]].action = changed.steps[other[0]].action.model_copy(update={"action_type": "wait"})
        e2 = view_of(changed, "evidence")
        assert e2 is not None and e2.strings() == e.strings() and e2.numeric == e.numeric
    with pytest.raises(JudgeInputError):
        view_of(traj, "vibes")


def test_the_trajectory_view_reads_every_action_and_what_earlier_screens_showed(items) -> None:
    """A count answered or a value saved and scrolled away is not on the final screen: the
    trajectory setting reads the passive view plus every action and the elements earlier screens
    showed that the final one does not (marked by minus the share of screens showing them)."""
    share = TOKEN_NUMERIC.index("exhibit_share")
    long = max((it for it in items if it.variant == "oracle"), key=lambda it: len(it.trajectory.steps))
    traj = long.trajectory
    p, t = passive_view(traj), trajectory_view(traj)
    assert t.setting == "trajectory" and t.goal == p.goal and t.claim == p.claim and t.numeric == p.numeric
    acted = [s for s in traj.steps if s.action is not None and not s.action.is_terminal]
    assert len(acted) > 6 and sum(x.kind == 2 for x in t.tokens) == len(acted)
    final = [x for x in t.tokens if x.kind == ELEMENT and x.numeric[share] == 0.0]
    earlier = [x for x in t.tokens if x.kind == ELEMENT and x.numeric[share] < 0.0]
    assert [(x.text, x.numeric) for x in final] == [(x.text, x.numeric) for x in p.tokens if x.kind == ELEMENT]
    assert earlier and all(-1.0 <= x.numeric[share] < 0.0 for x in earlier)
    # what only a middle screen showed reaches this view and not the passive one
    changed = type(traj).from_dict(traj.to_dict())
    changed.steps[len(changed.steps) // 2].observation.elements[0].text = "Only seen mid-episode"
    assert any("Only seen mid-episode" in x for x in trajectory_view(changed).strings())
    assert passive_view(changed).strings() == p.strings()
    # listed in another order, the same view
    shuffled = trajectory_view(_listed_in_reverse(traj))
    assert sorted(shuffled.strings()) == sorted(t.strings()) and shuffled.numeric == t.numeric
    assert view_of(traj, "trajectory").strings() == t.strings()


def test_a_trajectory_judge_is_asked_for_by_name(tmp_path, items) -> None:
    oracle = next(it for it in items if it.variant == "oracle")
    model = fixed_model(thresholds={"trajectory": 0.5})
    j = CompactJudge({"trajectory": model}, "trajectory").judge(oracle.trajectory)
    assert j.components["setting"] == "trajectory" and j.outcome in ("success", "failure")
    assert j.details["actions"] > 6 or len(oracle.trajectory.steps) <= 7
    model.save(tmp_path / "t")
    again = CompactJudge.load(tmp_path / "t", "trajectory", encoder=hash_encoder()).judge(oracle.trajectory)
    assert again.components["p_success"] == j.components["p_success"]
    # auto on a judge of whole trajectories only (run --judge compact --judge-model DIR): that setting
    auto = CompactJudge.load(tmp_path / "t", "auto", encoder=hash_encoder()).judge(oracle.trajectory)
    assert auto.components["setting"] == "trajectory" and auto.components["p_success"] == j.components["p_success"]
    with pytest.raises(JudgeInputError, match="no passive setting"):
        CompactJudge.load(tmp_path / "t", "passive", encoder=hash_encoder())
    with pytest.raises(JudgeInputError, match="no trajectory setting"):
        CompactJudge({s: fixed_model() for s in SETTINGS}, "trajectory")


def _listed_in_reverse(traj):
    """The same episode with every screen's elements listed in reverse order (same tree, same rows;
    each action's element index follows its element)."""
    out = type(traj).from_dict(traj.to_dict())
    for step in out.steps:
        n = len(step.observation.elements)
        step.observation._elements = list(reversed(step.observation.elements))
        if step.action is not None and step.action.index is not None:
            step.action = step.action.model_copy(update={"index": n - 1 - step.action.index})
    out.final_observation._elements = list(reversed(out.final_observation.elements))
    return out


def test_verdict_does_not_depend_on_element_order(items) -> None:
    model = fixed_model()
    picks = [i for i in items if i.variant in ("oracle", "decoy", "not_saved", "sv_correct", "sv_too_many")]
    for it in picks[:8]:
        traj, shuffled = it.trajectory, _listed_in_reverse(it.trajectory)
        assert [e.label for e in shuffled.final_observation.elements] != [e.label for e in traj.final_observation.elements]
        for setting in ("passive", "evidence") if it.variant.startswith("sv_") else ("passive",):
            a, b = view_of(traj, setting), view_of(shuffled, setting)
            assert a.strings() == b.strings() and a.numeric == b.numeric
            pa, pb = model.p_success([a, b])
            assert pa == pytest.approx(pb, abs=1e-5)
    # and at the network: the same tokens in another order give the same probability
    v = passive_view(items[0].trajectory)
    w = passive_view(items[0].trajectory)
    w.tokens = list(reversed(w.tokens))
    pa, pb = model.p_success([v, w])
    assert pa == pytest.approx(pb, abs=1e-5)


def test_judge_contract_and_format_rules(items) -> None:
    judge = CompactJudge({s: fixed_model() for s in SETTINGS}, "auto")
    for it in items[:20]:
        j = judge.judge(it.trajectory)
        assert j.outcome in ("success", "failure") and j.judge == "compact" and j.version == judge.version
        assert 0.0 <= j.components["p_success"] <= 1.0
        assert j.components["setting"] == ("evidence" if it.variant.startswith("sv_") else "passive")
        assert j.tokens_in > 0 and j.reward in (0.0, 1.0)
    # an evidence-setting episode without submit breaks SmartSnap's format rules: failure, -1
    oracle = next(it for it in items if it.variant == "oracle")
    j = CompactJudge({s: fixed_model() for s in SETTINGS}, "evidence").judge(oracle.trajectory)
    assert j.outcome == "failure" and j.reward == -1.0 and j.components["format_ok"] is False
    # only unreadable input is undecided
    blank = type(oracle.trajectory)(task_id="t", goal="Do it.")
    assert judge.judge(blank).outcome == "undecided"
    nogoal = type(oracle.trajectory).from_dict({**oracle.trajectory.to_dict(), "goal": " "})
    assert judge.judge(nogoal).outcome == "undecided"
    broken = type(oracle.trajectory).from_dict(oracle.trajectory.to_dict())
    broken.final_observation = type(broken.final_observation)(xml="<hierarchy><node")
    assert judge.judge(broken).outcome == "undecided"


def test_saved_and_reloaded_judge_scores_identically(tmp_path, items) -> None:
    model = fixed_model(seed=3, thresholds={"passive": 0.41, "evidence": 0.6})
    views = [passive_view(it.trajectory) for it in items[:12]]
    before = model.p_success(views)
    model.save(tmp_path / "j", provenance={"command": "test"})
    assert {p.name for p in (tmp_path / "j").iterdir()} == {"judge.json", "model.safetensors", "provenance.json"}
    loaded = CompactJudgeModel.load(tmp_path / "j", hash_encoder())
    assert loaded.p_success(views) == before
    assert loaded.thresholds == {"passive": 0.41, "evidence": 0.6} and loaded.digest() == model.digest()
    j1 = CompactJudge({s: model for s in SETTINGS}).judge(items[0].trajectory)
    j2 = CompactJudge.load(tmp_path / "j", encoder=hash_encoder()).judge(items[0].trajectory)
    assert j1.components["p_success"] == j2.components["p_success"] and j1.version == j2.version


def test_the_threshold_is_read_from_the_file(tmp_path, items) -> None:
    fixed_model().save(tmp_path / "j")
    meta = json.loads((tmp_path / "j" / "judge.json").read_text())
    trajs = [it.trajectory for it in items if not it.variant.startswith("sv_")][:6]
    for t, want in ((0.0, "success"), (1.0, "failure")):
        meta["thresholds"]["passive"] = t
        (tmp_path / "j" / "judge.json").write_text(json.dumps(meta))
        judge = CompactJudge.load(tmp_path / "j", "passive", encoder=hash_encoder())
        js = [judge.judge(x) for x in trajs]
        assert {j.outcome for j in js} == {want} and {j.components["threshold"] for j in js} == {t}
    assert "@passive:" in judge.version  # another threshold is another version (stored judgements)


def test_hostile_text_cannot_forge_how_an_episode_ended(items) -> None:
    """What says that the agent finished (its own actions) is not screen text: a screen claiming
    completion changes no ending number and no claim. A judge that decides on those numbers (built
    here by hand) keeps every verdict with every hostile text on every screen."""
    import torch

    ending = [GLOBAL_NUMERIC.index(n) for n in ("declared_done", "end_complete", "end_infeasible", "end_submit",
                                                  "answer_given", "claim_given", "steps", "errors")]
    picks = [it for it in items if it.variant in ("gave_up", "wandered", "early_done", "oracle")][:6]
    for it in picks:
        v = passive_view(it.trajectory)
        for text in HOSTILE_TEXTS:
            h = passive_view(with_hostile_text(it.trajectory, text))
            assert [h.numeric[i] for i in ending] == [v.numeric[i] for i in ending] and h.claim == v.claim
    model = fixed_model()
    with torch.no_grad():
        for p in model.net.parameters():
            p.zero_()
        d = model.net.cfg.d_model
        model.net.glob[0].weight[0, GLOBAL_NUMERIC.index("end_complete")] = 1.0
        model.net.head[0].weight.fill_(1.0)
        model.net.head[1].weight[0, 3 * d] = 1.0
        model.net.head[4].weight[0, 0] = 10.0
        model.net.head[4].bias.fill_(-1.0)
    from droidverify.training.judge import hostile_flips

    judge = CompactJudge({"passive": model}, "passive")
    before = {it.id: judge.judge(it.trajectory).outcome for it in picks}
    assert set(before.values()) == {"success", "failure"}  # the case decides both ways
    result = hostile_flips(judge.judge, [it.trajectory for it in picks])
    assert result["pairs"] == len(picks) * len(HOSTILE_TEXTS) and result["flips"] == 0


def test_bad_judge_directories_are_typed_errors(tmp_path) -> None:
    with pytest.raises(CheckpointError, match="no compact judge"):
        CompactJudge.load(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CheckpointError, match="holds no compact judge"):
        CompactJudge.load(tmp_path / "empty")
    fixed_model().save(tmp_path / "j")
    meta_path = tmp_path / "j" / "judge.json"
    good = json.loads(meta_path.read_text())
    for change, match in (({"feature_version": 0}, "feature version"), ({"format": "x"}, "not a compact judge"),
                          ({"thresholds": {"passive": 1.5}}, "threshold"), ({"thresholds": {"vibes": 0.5}}, "setting"),
                          ({"encoder": "other"}, "encoder"), ({"net": {"emb_dim": 32, "bogus": 1}}, "cannot load")):
        meta_path.write_text(json.dumps({**good, **change}))
        with pytest.raises(CheckpointError, match=match):
            CompactJudge.load(tmp_path / "j", encoder=hash_encoder())
    meta_path.write_text("{not json")
    with pytest.raises(CheckpointError):
        CompactJudge.load(tmp_path / "j")
    meta_path.write_text(json.dumps({**good, "thresholds": {"passive": 0.5}}))
    (tmp_path / "j" / "model.safetensors").write_bytes(b"garbage")
    with pytest.raises(CheckpointError, match="cannot load"):
        CompactJudge.load(tmp_path / "j", encoder=hash_encoder())
    fixed_model(thresholds={"passive": 0.5}).save(tmp_path / "p")
    with pytest.raises(JudgeInputError, match="no evidence"):
        CompactJudge.load(tmp_path / "p", "evidence", encoder=hash_encoder())
    with pytest.raises(JudgeInputError, match="unknown judge setting"):
        CompactJudge.load(tmp_path / "p", "vibes")


def test_cli_judges_with_a_compact_judge(tmp_path, items, monkeypatch) -> None:
    from droidverify.cli import app
    from droidverify.rewards import compact_judge

    monkeypatch.setattr(compact_judge, "TextEncoder", lambda *a, **k: hash_encoder())
    fixed_model().save(tmp_path / "j")
    path = write_set(items[:10], tmp_path / "set.jsonl", split="train")
    r = CliRunner().invoke(app, ["judge", "--method", "compact", "--judge-model", str(tmp_path / "j"),
                                 "--setting", "passive", str(path)])
    assert r.exit_code == 0, r.output
    lines = [json.loads(x) for x in (tmp_path / "set.judgements.jsonl").read_text().splitlines()]
    assert len(lines) == 10 and {x["components"]["setting"] for x in lines} == {"passive"}
    assert "agreement with the checker" in r.output
    for args, match in ((["--method", "passive", "--judge-model", str(tmp_path / "j")], "only to --method compact"),
                        (["--method", "compact", "--setting", "vibes"], "unknown --setting"),
                        (["--method", "compact", "--judge-model", str(tmp_path / "nope")], "does not exist"),
                        (["--method", "compact", "--model", "smollm2"], "--judge-model"),
                        (["--method", "compact", "--judge-model", str(tmp_path)], "CheckpointError")):
        r = CliRunner().invoke(app, ["judge", *args, str(path)])
        assert r.exit_code == 2 and match in r.output, (args, r.output)


def test_the_registry_knows_the_compact_judge(tmp_path, monkeypatch) -> None:
    from droidverify.cli.judge import METHODS, JudgeSpec, make_judge
    from droidverify.rewards import compact_judge

    monkeypatch.setattr(compact_judge, "TextEncoder", lambda *a, **k: hash_encoder())
    assert "compact" in METHODS
    fixed_model().save(tmp_path / "j")
    spec = JudgeSpec("compact", model=str(tmp_path / "j"), setting="evidence")
    judge = spec()
    assert isinstance(judge, CompactJudge) and judge.setting == "evidence"
    assert spec.name == "compact" and spec.version == judge.version
    assert isinstance(make_judge("compact", model=str(tmp_path / "j"), votes=1, max_tokens=1, probes=1,
                                 probe_steps=1), CompactJudge)
    with pytest.raises(JudgeInputError):
        JudgeSpec("compact", setting="vibes")


def test_the_shipped_judges_are_small_and_documented() -> None:
    root = shipped_judge_path()
    dirs = [root] if (root / "judge.json").is_file() else [root / s for s in SETTINGS]
    settings: set[str] = set()
    for d in dirs:
        assert (d / "judge.json").is_file() and (d / "provenance.json").is_file()
        assert sum(p.stat().st_size for p in d.iterdir()) < 20 * 1024 * 1024
        settings |= set(json.loads((d / "judge.json").read_text())["thresholds"])
        prov = json.loads((d / "provenance.json").read_text())
        assert prov["command"].startswith("droidverify train judge") and prov["data"]["train"]["split"] == "train"
        assert prov["data"]["eval"]["split"] == "validation"
        assert "/work/" not in json.dumps(prov) and "/tmp/" not in json.dumps(prov)  # relative paths only
    assert settings == set(SETTINGS)
    judge = CompactJudge.load()  # no model loads until something is scored
    assert set(judge.models) == set(SETTINGS)


@pytest.mark.model
def test_shipped_judges_on_the_real_encoder(items) -> None:
    judge = CompactJudge.load()
    picks = [it for it in items if it.variant in ("oracle", "gave_up", "sv_correct", "sv_no_evidence")][:8]
    for it in picks:
        j = judge.judge(it.trajectory)
        assert j.outcome in ("success", "failure") and 0.0 <= j.components["p_success"] <= 1.0
    assert judge.judge(next(it for it in picks if it.variant == "gave_up").trajectory).outcome == "failure"
