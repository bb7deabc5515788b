"""Simulator skins: seeded relabelling/restyling of app chrome that never changes what screens do.

Skin 0 is the simulator's own look (byte-identical XML); every other skin changes each app's
screens; a skin is deterministic, travels with the phone (clone, snapshot, saved state), never
changes user content, and the oracles (which match chrome through ``canonical_label``) solve
every template under it with the same checker results.
"""

from __future__ import annotations

import pytest

from droidverify.actions.model import Action
from droidverify.env.sim import Phone, SimEnv
from droidverify.env.sim import storage as st
from droidverify.env.sim.apps.notes import note_path
from droidverify.env.sim.phone import SKIN_KEY
from droidverify.env.sim.skin import (
    CAPS_ONLY,
    CHROME_SYNONYMS,
    SKIN_COUNT,
    VARIANTS,
    Skin,
    canonical_label,
    skin_for,
)
from droidverify.env.sim.state import decode_phone, encode_phone
from droidverify.env.sim.system import compose
from droidverify.env.sim.view import emit
from droidverify.errors import EnvError
from droidverify.tasks import registry
from droidverify.tasks.base import Task
from droidverify.tasks.helpers.oracle import find, matches
from droidverify.ui.element import UIElement

TEMPLATES = registry.all_templates()
NAMES = [t.name for t in TEMPLATES]
ORACLE_SKINS = (1, SKIN_COUNT // 2, SKIN_COUNT)  # three skins spread over the range
APP_NAMES = ("Clock", "Settings", "Contacts", "Markor", "Files", "Calendar")


def _oracle_xmls(task: Task, skin: int, *, raw: bool = False) -> list[str]:
    """Every screen along the oracle's path (``raw``: also emitted straight from the composed
    windows, with no skin machinery, and checked equal)."""
    env = SimEnv(task, task.seed, skin=skin)
    obs = env.reset()
    out = []
    for _ in range(task.max_steps + 1):
        out.append(obs.xml)
        if raw:
            assert emit(compose(env.phone).windows).xml == obs.xml
        action = task.oracle_action(env.phone, obs)
        if action.action_type == "status":
            break
        obs = env.step(action)
        if action.action_type == "answer":
            break
    env.close()
    return out


def _app_screen(app: str, skin: int) -> str:
    env = SimEnv(seed=0, skin=skin)
    env.reset()
    return env.step(Action.make("open_app", app_name=app)).xml


def test_skin_zero_is_the_identity_and_byte_identical() -> None:
    assert skin_for(0) == Skin(0) and skin_for(0).identity
    for name in ("notes_create_note", "contacts_delete_contact", "clock_create_alarm", "files_delete_file"):
        if name not in NAMES:
            continue
        task = registry.get_template(name).instantiate(0)
        default = _oracle_xmls(task, 0, raw=True)
        env = SimEnv(task, 0)  # no skin given: skin 0
        assert env.skin == 0
        assert default == _oracle_xmls(task, 0)


def test_skins_are_deterministic_and_bounded() -> None:
    assert 8 <= SKIN_COUNT <= 16
    skins = [skin_for(k) for k in range(1, SKIN_COUNT + 1)]
    assert all(s.index == k for k, s in enumerate(skins, 1))
    assert len({s for s in skins}) == SKIN_COUNT  # all different looks
    for s in skins:
        assert not s.identity and s.labels
        assert all(shown in CHROME_SYNONYMS[label] for label, shown in s.labels)
    for bad in (-1, SKIN_COUNT + 1, True, "1"):
        with pytest.raises(EnvError):
            skin_for(bad)  # type: ignore[arg-type]
        with pytest.raises(EnvError):
            SimEnv(seed=0, skin=bad)  # type: ignore[arg-type]
    with pytest.raises(EnvError):
        Phone(0, skin=SKIN_COUNT + 1)


def test_every_skin_changes_app_screens_but_not_the_launcher() -> None:
    home = SimEnv(seed=0).reset().xml
    base = {app: _app_screen(app, 0) for app in APP_NAMES}
    for k in range(1, SKIN_COUNT + 1):
        assert SimEnv(seed=0, skin=k).reset().xml == home, k
        for app in APP_NAMES:
            assert _app_screen(app, k) != base[app], (k, app)


def test_same_skin_same_actions_identical_xml() -> None:
    task = registry.get_template("notes_create_note").instantiate(3)
    for k in ORACLE_SKINS:
        assert _oracle_xmls(task, k) == _oracle_xmls(task, k)


def test_clone_snapshot_and_saved_state_keep_the_skin() -> None:
    k = ORACLE_SKINS[1]
    env = SimEnv(seed=2, skin=k)
    env.reset()
    obs = env.step(Action.make("open_app", app_name="Markor"))
    assert env.skin == env.phone.skin == k
    clone = env.phone.clone()
    assert clone.skin == k
    assert SimEnv.attach(clone).observe().xml == obs.xml
    assert SimEnv.attach(env.phone.rebuild()).skin == k
    back = decode_phone(encode_phone(env.phone))
    assert back.skin == k and SimEnv.attach(back).observe().xml == obs.xml
    assert env.phone.snapshot().state[SKIN_KEY] == k
    # the default look leaves no trace in saved state (existing saved phones stay byte-identical)
    plain = SimEnv(seed=2)
    plain.reset()
    assert SKIN_KEY not in plain.phone.snapshot().state
    assert decode_phone(encode_phone(plain.phone)).skin == 0


def test_handlers_follow_their_nodes_under_a_skin() -> None:
    """Tapping the relabelled, reordered FAB and dialog buttons does what it does in skin 0."""
    for k in range(1, SKIN_COUNT + 1):
        env = SimEnv(seed=0, skin=k)
        env.reset()
        obs = env.step(Action.make("open_app", app_name="Markor"))
        obs = env.step(Action.make("click", index=find(obs, desc="Create a new file or folder")))
        assert env.phone.dialog is not None and env.phone.dialog.name == "new_file", k
        obs = env.step(Action.make("input_text", index=find(obs, resource_id="new_file_dialog__name"),
                                   text="Skinned"))
        env.step(Action.make("click", index=find(obs, text="OK")))
        assert env.phone.dialog is None
        assert st.exists(env.phone, note_path("Skinned.md")), k


def test_canonical_label_maps_variants_back_and_leaves_the_rest() -> None:
    for label, variants in CHROME_SYNONYMS.items():
        assert canonical_label(label) == label
        for v in variants:
            assert canonical_label(v) == label and canonical_label(v.upper()) == label
    for label in CAPS_ONLY:
        assert canonical_label(label.upper()) == label
    for s in ("Trip ideas", "Anna", "$12.50", "", "ok"):
        assert canonical_label(s) == s
    el = UIElement(text="OKAY", content_description="Delete item")
    assert matches(el, text="OK") and matches(el, desc="Delete") and not matches(el, text="Cancel")
    row = UIElement(text="Gift list | Erase")
    assert matches(row, text="Delete") and matches(row, text="Gift list") and matches(row, text_contains="Delete")


def test_user_content_is_never_relabelled() -> None:
    """A folder and a note named like chrome ("Delete", "Cancel") keep their names in every skin."""
    for k in range(SKIN_COUNT + 1):
        env = SimEnv(seed=0, skin=k)
        env.reset()
        st.mkdir(env.phone, note_path("Delete"))
        st.write_file(env.phone, note_path("Cancel"), "Save")
        obs = env.step(Action.make("open_app", app_name="Markor"))
        texts = {e.text for e in obs.root.iter()}
        descs = {e.content_description for e in obs.root.iter()}
        assert {"Delete", "Cancel"} <= texts and {"Folder Delete", "Cancel"} <= descs, k
        obs = env.step(Action.make("click", index=find(obs, desc="Cancel", clickable=True,
                                                          resource_id="file_item")))
        assert any(e.text == "Save" for e in obs.root.iter() if e.is_editable), k


def _shown_strings(task: Task) -> set[str]:
    env = SimEnv(task, task.seed)
    obs = env.reset()
    seen: set[str] = set()
    for _ in range(task.max_steps + 1):
        for el in obs.root.iter():
            seen.update(s for s in (el.text, el.content_description, el.hint_text) if s)
        action = task.oracle_action(env.phone, obs)
        if action.action_type == "status":
            break
        obs = env.step(action)
        if action.action_type == "answer":
            break
    env.close()
    return seen


def test_no_variant_is_a_string_the_apps_show() -> None:
    """A variant that the simulator's own look shows anywhere (chrome or user content) would make
    ``matches`` confuse it with the label it stands for: none may occur on any template's path."""
    shown: set[str] = set()
    for tmpl in TEMPLATES:
        for seed in (0, 1):
            shown |= _shown_strings(tmpl.instantiate(seed))
    clash = sorted(VARIANTS & shown)
    assert not clash, f"skin variants the apps show as they are: {clash}"


def _run(task: Task, skin: int) -> tuple[SimEnv, int]:
    """``simhelpers.run_oracle`` in a skin."""
    env = SimEnv(task, task.seed, skin=skin)
    obs = env.reset()
    for n in range(1, task.max_steps + 1):
        action = task.oracle_action(env.phone, obs)
        if action.action_type == "status":
            return env, n
        obs = env.step(action)
        if action.action_type == "answer":
            return env, n + 1
    raise AssertionError(f"oracle for {task.id} skin {skin} did not finish in {task.max_steps} steps "
                         f"(at {env.phone.location})")


@pytest.mark.parametrize("name", NAMES)
def test_oracle_solves_every_template_under_three_skins(name: str) -> None:
    tmpl = registry.get_template(name)
    task = tmpl.instantiate(0)
    for k in ORACLE_SKINS:
        env, steps = _run(task, k)
        assert env.skin == k
        assert env.is_successful() == 1.0, (name, k, env.phone.location)
        assert steps <= tmpl.max_steps
        env.close()


@pytest.mark.parametrize("name", NAMES)
def test_checker_does_not_depend_on_the_skin(name: str) -> None:
    """The same app state scores the same in every skin: the solved end state and the start."""
    task = registry.get_template(name).instantiate(1)
    done, _ = _run(task, 0)
    want_done = task.is_successful(done.phone, done.last_answer)
    start = SimEnv(task, 1)
    start.reset()
    want_start = task.is_successful(start.phone, None)
    for k in range(1, SKIN_COUNT + 1):
        other = done.phone.clone()
        other.skin = k
        assert task.is_successful(other, done.last_answer) == want_done, (name, k)
        skinned = SimEnv(task, 1, skin=k)
        skinned.reset()
        assert task.is_successful(skinned.phone, None) == want_start, (name, k)
        skinned.close()
