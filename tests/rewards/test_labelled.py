from __future__ import annotations

import gzip
from collections import Counter

import pytest

from droidverify.env.sim.state import decode_phone, encode_phone
from droidverify.errors import LabelledSetError, PhoneStateError
from droidverify.rewards.labelled import (
    FAILURE_KINDS,
    SET_VERSION,
    build_items,
    oracle_trace,
    read_set,
    write_set,
)
from droidverify.rewards.smartsnap import check_submit
from droidverify.tasks import registry


def test_balanced_and_labelled_by_the_checker(labelled_items) -> None:
    assert len(labelled_items) == 60
    assert sum(it.label for it in labelled_items) == 30
    kinds = Counter(it.variant for it in labelled_items)
    assert {"oracle", "sv_correct", "sv_irrelevant", "sv_too_many", "sv_false_claim"} <= set(kinds)
    assert len(set(kinds) & set(FAILURE_KINDS)) >= 5
    for it in labelled_items:
        t = it.trajectory
        assert it.label == (t.success is not None and t.success >= 1.0)
        assert t.metadata["episode_id"] == it.id
        assert it.template and t.metadata["final_phone_state"]
    assert all(it.label for it in labelled_items if it.variant == "oracle")
    assert not any(it.label for it in labelled_items if it.variant in ("gave_up", "sv_false_claim"))


def test_self_verifying_variants_are_well_formed_submits(labelled_items) -> None:
    for it in labelled_items:
        if not it.variant.startswith("sv_"):
            continue
        c = check_submit(it.trajectory)
        assert c.ok, (it.id, c.reason)
        if it.variant == "sv_too_many":
            assert len(c.evidences) >= 4
        else:
            assert len(c.evidences) == 1


def test_correct_evidence_is_the_round_that_first_made_the_checker_pass(labelled_items) -> None:
    from droidverify.env.sim import SimEnv
    from droidverify.tasks import registry

    for it in [i for i in labelled_items if i.variant == "sv_correct"][:5]:
        t = it.trajectory
        ev = check_submit(t).evidences[0]
        task = registry.get_template(it.template).instantiate(it.seed)
        env = SimEnv(task=task, seed=it.seed)
        env.reset()
        passed = []
        for s in t.steps[:-1]:
            env.step(s.action)
            passed.append(task.is_successful(env.phone, env.last_answer) >= 1.0)
        first = passed.index(True)
        if task.template.kind == "query":
            assert ev == max(0, first - 1)
        else:
            assert ev == first and not any(passed[:ev])
        env.close()


def test_write_read_roundtrip(tmp_path, labelled_items) -> None:
    items = list(labelled_items[:6])
    for name in ("set.jsonl", "set.jsonl.gz"):
        path = write_set(items, tmp_path / name, split="train")
        header, back = read_set(path)
        assert header["version"] == SET_VERSION and header["n"] == 6
        assert [b.id for b in back] == [i.id for i in items]
        assert back[0].trajectory.to_dict() == items[0].trajectory.to_dict()
    with gzip.open(tmp_path / "set.jsonl.gz") as fh:
        assert fh.readline()


def test_damaged_or_foreign_sets_raise_typed_errors(tmp_path) -> None:
    with pytest.raises(LabelledSetError, match="no labelled set"):
        read_set(tmp_path / "missing.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "header", "version": "labelled-v0"}\n')
    with pytest.raises(LabelledSetError, match="version"):
        read_set(bad)
    bad.write_text(f'{{"kind": "header", "version": "{SET_VERSION}"}}\n{{"kind": "trajectory", "id": 1}}\n')
    with pytest.raises(LabelledSetError, match="damaged"):
        read_set(bad)
    bad.write_text("[1, 2]\n")
    with pytest.raises(LabelledSetError, match="header"):
        read_set(bad)
    with pytest.raises(LabelledSetError):
        build_items("train", n=7)
    with pytest.raises(LabelledSetError):
        build_items("nonsense", n=2)


def test_phone_state_roundtrip_and_damage() -> None:
    from droidverify.actions.model import Action
    from droidverify.env.sim import SimEnv
    from droidverify.tasks import registry

    task = registry.get_template("clock_create_alarm").instantiate(0)
    env = SimEnv(task=task, seed=0)
    env.reset()
    obs = env.step(Action(action_type="open_app", app_name="Clock"))
    phone = decode_phone(encode_phone(env.phone))
    assert list(phone.conn.iterdump()) == list(env.phone.conn.iterdump())
    assert SimEnv.attach(phone).observe().xml == obs.xml
    text = encode_phone(env.phone)
    for damaged in ["", "!!!", text[:100], "aGVsbG8=", __import__("base64").b64encode(
            __import__("zlib").compress(b'{"format": "other"}')).decode()]:
        with pytest.raises(PhoneStateError):
            decode_phone(damaged)


def test_extended_variants_add_submit_near_misses_and_keep_the_default_ones() -> None:
    import random

    from droidverify.rewards.labelled import EXTENDED_KINDS, SV_EXTRA_KINDS, oracle_trace, variants
    from droidverify.tasks import registry

    for name in ("clock_create_alarm", "calendar_query_event_count", "clock_turn_on_alarm"):
        task = registry.get_template(name).instantiate(1)
        trace = oracle_trace(task)
        plain = list(variants(task, trace, random.Random(5)))
        wide = list(variants(task, trace, random.Random(5), extended=True))
        assert [k for k, _ in wide[:len(plain)]] == [k for k, _ in plain]
        assert {k for k, _ in wide} <= set(EXTENDED_KINDS) and {k for k, _ in wide} & set(SV_EXTRA_KINDS)
        for (k, a), (_, b) in zip(plain, wide, strict=False):
            if k == "wandered":
                continue  # callables drawn from the same seed; replayed below
            strip = [x.model_copy(update={"text": None}) if x.action_type == "submit" else x for x in a]
            assert strip == [x.model_copy(update={"text": None}) if x.action_type == "submit" else x for x in b]


def test_a_query_answered_with_another_text_of_its_screen_is_a_labelled_failure() -> None:
    """The commonest wrong answer of a trained agent is another text of the right screen (a place
    for a duration): extended sets carry it, in both endings, labelled by the checker."""
    from droidverify.rewards.labelled import build_training_items, other_text

    names = ["calendar_query_event_location", "files_query_modified_date", "clock_create_alarm"]
    plain = list(build_training_items("train", seeds=[0], templates=names))
    items = list(build_training_items("train", seeds=[0], templates=names, other_answers=True))
    # opt-in, and adding them leaves every other item as it was
    assert not any("other_answer" in it.variant for it in plain)
    assert [(it.id, it.label, it.trajectory.answer) for it in items if "other_answer" not in it.variant] == \
        [(it.id, it.label, it.trajectory.answer) for it in plain]
    by = {(it.template, it.variant): it for it in items}
    assert not any(v in ("other_answer", "sv_other_answer") for t, v in by if t == "clock_create_alarm")
    for name in names[:2]:
        right = by[(name, "oracle")].trajectory.answer
        for variant in ("other_answer", "sv_other_answer"):
            it = by[(name, variant)]
            assert it.label is False and it.trajectory.answer and it.trajectory.answer != right
        sv = by[(name, "sv_other_answer")]
        assert check_submit(sv.trajectory).ok and sv.evidence_label is False
        assert by[(name, "sv_other_answer")].trajectory.answer in sv.trajectory.steps[-1].action.text
    # the same build twice gives the same items (its own generator, seeded by the task)
    again = {(it.template, it.variant): it.trajectory.answer for it in build_training_items(
        "train", seeds=[0], templates=names, other_answers=True)}
    assert all(again[k] == it.trajectory.answer for k, it in by.items())
    # the answer's own row first; any other text when the screen does not show it; else None
    import random

    from droidverify.env.records import Observation

    def node(text: str, bounds: str) -> str:
        return f'<node class="android.widget.TextView" text="{text}" bounds="{bounds}"/>'

    def screen(*rows: str) -> Observation:
        return Observation(xml='<hierarchy rotation="0"><node class="android.widget.FrameLayout" '
                           'bounds="[0,0][1080,2400]">' + "".join(rows) + "</node></hierarchy>")

    def row(top: int, *texts: str) -> str:
        cells = "".join(node(t, f"[{i * 300},{top}][{i * 300 + 300},{top + 100}]") for i, t in enumerate(texts))
        return f'<node class="android.widget.LinearLayout" bounds="[0,{top}][1080,{top + 100}]">{cells}</node>'

    obs = screen(row(100, "Hackathon kickoff", "60 min", "Oak Street Library"), row(300, "Farmers market", "30 min"))
    assert {other_text(obs, "60 min", random.Random(i)) for i in range(20)} == {"Hackathon kickoff",
                                                                               "Oak Street Library"}
    assert {other_text(obs, "45", random.Random(i)) for i in range(40)} == {
        "Hackathon kickoff", "60 min", "Oak Street Library", "Farmers market", "30 min"}
    assert other_text(screen(node("60 min", "[0,0][300,100]")), "60 min", random.Random(0)) is None


def test_training_items_carry_evidence_labels_by_the_rule() -> None:
    from droidverify.rewards.labelled import build_training_items, iter_set, read_header

    items = list(build_training_items("train", seeds=[0], templates=["clock_create_alarm",
                                                                     "calendar_query_event_count"]))
    by = {(it.template, it.variant): it for it in items}
    for template in ("clock_create_alarm", "calendar_query_event_count"):
        assert by[(template, "sv_correct")].evidence_label is True
        assert by[(template, "sv_too_many")].evidence_label is True and by[(template, "sv_two")].evidence_label
        assert by[(template, "sv_irrelevant")].label and by[(template, "sv_irrelevant")].evidence_label is False
        assert by[(template, "sv_no_evidence")].label and by[(template, "sv_no_evidence")].evidence_label is False
        assert by[(template, "oracle")].evidence_label is None
    for it in items:
        if it.variant.startswith("sv_"):
            assert check_submit(it.trajectory).ok and (not it.evidence_label or it.label)
    query = by[("calendar_query_event_count", "sv_correct")].trajectory.steps[-1].action.text
    assert "The answer is" in query  # a query's message carries the answer it gave
    # a stream is written in one pass and read back one item at a time
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        path = write_set((it for it in items), Path(d) / "s.jsonl.gz", split="train", extra={"seeds": [0]})
        header = read_header(path)
        assert header["n"] == len(items) and header["seeds"] == [0]
        back = list(iter_set(path))
        assert [b.evidence_label for b in back] == [it.evidence_label for it in items]
        assert not list(Path(d).glob("*.tmp"))
    with pytest.raises(LabelledSetError):
        list(build_training_items("train", seeds=[]))
    with pytest.raises(LabelledSetError):
        list(build_training_items("nonsense", seeds=[0]))


def test_policy_items_label_an_agents_own_episodes_by_the_checker() -> None:
    """A run's episodes become judge data: replayed, labelled by the checker, evidence labelled
    for submits; an episode that cannot be replayed as recorded is left out, not mislabelled."""
    from droidverify.actions.model import Action
    from droidverify.rewards.labelled import PolicyItemStats, oracle_trace, policy_items, replay
    from droidverify.tasks import registry

    task = registry.get_template("clock_create_alarm").instantiate(0)
    assert registry.split_of(task.id) == "train"
    body = oracle_trace(task).actions[:-1]
    done = replay(task, body + [Action(action_type="status", goal_status="complete")], episode_id="a")
    early = replay(task, body[:-1] + [Action(action_type="status", goal_status="complete")], episode_id="b")
    proof = len(body) - 1
    submit = replay(task, body + [Action(action_type="submit", text="Done.", evidences=[proof])], episode_id="c")
    unproven = replay(task, body + [Action(action_type="submit", text="Done.", evidences=[0])], episode_id="d")
    assert done.success == 1.0 and early.success == 0.0
    stats = PolicyItemStats()
    items = list(policy_items([done, early, submit, unproven], split="train", tag="t", stats=stats))
    assert [it.label for it in items] == [True, False, True, True]
    assert [it.evidence_label for it in items] == [None, None, True, False]
    assert {it.variant for it in items} == {"policy"} and len({it.id for it in items}) == 4
    assert (stats.kept, stats.successes, stats.diverged, stats.no_action) == (4, 3, 0, 0)
    # a recording the replay does not reproduce (another version's run) is counted and left out
    forged = replay(task, body[:-1] + [Action(action_type="status", goal_status="complete")], episode_id="e")
    forged.success = 1.0
    stats = PolicyItemStats()
    assert list(policy_items([forged], split="train", stats=stats)) == [] and stats.diverged == 1
    with pytest.raises(LabelledSetError, match="not validation"):
        list(policy_items([done], split="validation"))
    other = replay(task, body, episode_id="f")
    other.goal = "Do something else entirely."
    with pytest.raises(LabelledSetError, match="no\\s+wording"):
        list(policy_items([other], split="train"))


DECOY_TEMPLATES = sorted(t.name for t in registry.all_templates()
                         if any(k.startswith("decoy_") for k in t.instantiate(0).params))


@pytest.mark.parametrize("name", DECOY_TEMPLATES)
def test_decoy_steered_oracle_ends_or_says_it_has_no_target(name: str) -> None:
    # the labelled set swaps decoy_* params into the oracle; a template whose oracle then crashes
    # (instead of raising TaskError) stops `train judge-data` for every template after it
    for seed in (0, 1, 1000):
        task = registry.get_template(name).instantiate(seed)
        decoy = {k[len("decoy_"):]: v for k, v in task.params.items() if k.startswith("decoy_")}
        if decoy and all(k in task.params for k in decoy):
            oracle_trace(task, params={**task.params, **decoy})
