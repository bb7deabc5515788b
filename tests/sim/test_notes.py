"""Markor (Notes) app and tasks: oracle/no-op, checker success + near misses, screens over shared storage."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from simhelpers import act, fresh, run_oracle

from droidverify.actions.model import Action
from droidverify.env.sim import SimEnv
from droidverify.env.sim import storage as st
from droidverify.env.sim.apps.notes import MARKOR_DIR, note_path, sort_order
from droidverify.env.sim.phone import Phone
from droidverify.tasks import registry
from droidverify.tasks.notes import SORT_LABELS, note_lines, without_ext
from droidverify.tasks.oracle_utils import click, find

NOTES = sorted(t.name for t in registry.all_templates() if t.name.startswith("notes_"))


def test_enough_templates() -> None:
    assert len(NOTES) >= 22
    assert len(NOTES) + len([t for t in registry.all_templates() if t.name.startswith("calendar_")]) >= 27


def _solved(name: str, seed: int = 1):
    task = registry.get_template(name).instantiate(seed)
    env, _ = run_oracle(task, seed)
    assert task.is_successful(env.phone) == 1.0
    return task, env


def _only(env: SimEnv, name: str, folder: str = "") -> str:
    d = note_path(folder) if folder else MARKOR_DIR
    return next(e.path for e in st.list_dir(env.phone, d) if e.name.rsplit(".", 1)[0] == name)


@pytest.mark.parametrize("name", ["notes_create_note", "notes_create_note_in_folder", "notes_append_line",
                                  "notes_replace_text"])
def test_wrong_content_and_duplicate_fail(name: str) -> None:
    task, env = _solved(name)
    folder = task.params.get("folder", "") if name != "notes_append_line" else ""
    path = _only(env, task.params["note"], folder if name.startswith("notes_create") else "")
    snap = env.phone.snapshot()
    st.write_file(env.phone, path, st.read_file(env.phone, path) + "\nextra words")
    assert task.is_successful(env.phone) == 0.0
    env.phone.restore(snap)
    other = path[:-3] + ".txt" if path.endswith(".md") else path[:-4] + ".md"
    st.write_file(env.phone, other, st.read_file(env.phone, path))  # a second file with the same name
    assert task.is_successful(env.phone) == 0.0


def test_note_in_wrong_folder_fails() -> None:
    task = registry.get_template("notes_create_note_in_folder").instantiate(0)
    env = fresh(task, 0)
    st.write_file(env.phone, note_path(task.params["note"] + ".md"), task.params["text"])  # root, not folder
    assert task.is_successful(env.phone) == 0.0


def test_rename_move_delete_near_misses() -> None:
    task, env = _solved("notes_rename_note")
    st.write_file(env.phone, note_path(task.params["file"]), "again")  # old name came back
    assert task.is_successful(env.phone) == 0.0
    task, env = _solved("notes_move_note")
    st.write_file(env.phone, note_path(task.params["file"]), task.params["body"])  # copied, not moved
    assert task.is_successful(env.phone) == 0.0
    task = registry.get_template("notes_delete_note").instantiate(0)
    env = fresh(task, 0)
    st.delete(env.phone, note_path(task.params["note"] + " copy.md"))  # deleted the look-alike
    assert task.is_successful(env.phone) == 0.0
    task = registry.get_template("notes_delete_folder").instantiate(0)
    env = fresh(task, 0)
    st.delete(env.phone, note_path("Plan.md", task.params["folder"]))  # emptied, not deleted
    assert task.is_successful(env.phone) == 0.0


def test_create_folder_near_miss_file_of_that_name() -> None:
    task = registry.get_template("notes_create_folder").instantiate(0)
    env = fresh(task, 0)
    st.write_file(env.phone, note_path(task.params["folder"]), "")
    assert task.is_successful(env.phone) == 0.0


@pytest.mark.parametrize("name,bad", [("notes_query_note_fact", None), ("notes_query_count_folder", "17"),
                                      ("notes_query_list_items", "17")])
def test_query_answers(name: str, bad: str | None) -> None:
    task = registry.get_template(name).instantiate(2)
    env = fresh(task, 2)
    p = task.params
    exp = p.get("value") or (str(p["count"]) if "count" in p else task.template.expected(env.phone, p))
    assert task.is_successful(env.phone, exp) == 1.0
    assert task.is_successful(env.phone, None) == 0.0
    if bad is None:  # the outdated value in the same note
        bad = p["body"].splitlines()[1].split(": ", 1)[1].split(" (")[0]
    assert task.is_successful(env.phone, bad) == 0.0


def test_multi_near_misses() -> None:
    task, env = _solved("multi_note_from_first_event_tomorrow")
    st.write_file(env.phone, _only(env, task.params["title"]), "Bean There Cafe")  # location of the later event
    assert task.is_successful(env.phone) == 0.0
    task, env = _solved("multi_event_from_note")
    env.phone.execute("UPDATE events SET eventLocation='' WHERE title=?", (task.params["title"],))
    assert task.is_successful(env.phone) == 0.0
    task, env = _solved("multi_count_events_into_note")
    path = _only(env, task.params["note"])
    st.write_file(env.phone, path, str(int(st.read_file(env.phone, path)) + 1))
    assert task.is_successful(env.phone) == 0.0


# ---- newer templates: success and a near miss each, on fresh phones of three seeds ---------------
def _write(name_key: str, text: Callable[[dict], str], ext: str = ".md") -> Callable[[Phone, dict], object]:
    return lambda p, pr: st.write_file(p, note_path(pr[name_key] + ext), text(pr))


def _sort(key: Callable[[dict], str]) -> Callable[[Phone, dict], object]:
    return lambda p, pr: p.execute("INSERT OR REPLACE INTO markor_prefs(name, value) VALUES('sort', ?)",
                                   (SORT_LABELS[key(pr)],))


def _tick(item_key: Callable[[dict], str]) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        item = item_key(pr)
        st.write_file(p, note_path(pr["note"] + ".md"), pr["body"].replace(f"- [ ] {item}", f"- [x] {item}"))
    return f


def _other_open_item(pr: dict) -> str:  # an unticked item that is not the one asked for
    return next(line[6:] for line in pr["body"].splitlines()[1:]
                if line.startswith("- [ ]") and line[6:] != pr["item"])


def _merge(delete_second: bool) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        st.write_file(p, note_path(pr["first"] + ".md"), pr["body1"] + "\n" + pr["body2"])
        if delete_second:
            st.delete(p, note_path(pr["second"] + ".md"))
    return f


NEW_OPS: dict[str, tuple[Callable[[Phone, dict], object], Callable[[Phone, dict], object]]] = {
    "notes_create_plain_text_note": (_write("note", lambda pr: pr["text"], ".txt"),
                                     _write("note", lambda pr: pr["text"], ".md")),  # Markdown, not plain text
    "notes_change_sort_order": (_sort(lambda pr: pr["order"]),
                                _sort(lambda pr: next(k for k in ("name", "date", "size")
                                                      if k not in (pr["order"], pr["current"])))),
    "notes_check_off_todo": (_tick(lambda pr: pr["item"]), _tick(_other_open_item)),  # the wrong box ticked
    "notes_duplicate_note": (_write("copy", lambda pr: pr["body"]),
                             lambda p, pr: st.rename(p, note_path(pr["file"]), pr["copy"] + ".md")),
    "notes_rename_folder": (lambda p, pr: st.rename(p, note_path(pr["folder"]), pr["new_folder"]),
                            lambda p, pr: st.mkdir(p, note_path(pr["new_folder"]))),  # old one kept
    "notes_merge_notes": (_merge(True), _merge(False)),  # "{second}" not deleted
    "notes_create_list_note": (_write("note", lambda pr: "\n".join(f"- {x}" for x in pr["list"])),
                               _write("note", lambda pr: pr["items"])),  # all on one line
}


@pytest.mark.parametrize("name", sorted(NEW_OPS))
def test_new_operation_checker_success_and_near_miss(name: str) -> None:
    good, bad = NEW_OPS[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        good(env.phone, task.params)
        assert task.is_successful(env.phone) == 1.0, (name, seed)
        env = fresh(task, seed)
        bad(env.phone, task.params)
        assert task.is_successful(env.phone) == 0.0, (name, seed)


def test_list_note_accepts_any_list_marker_but_not_a_missing_item() -> None:
    task = registry.get_template("notes_create_list_note").instantiate(3)
    env = fresh(task, 3)
    items = task.params["list"]
    st.write_file(env.phone, note_path(task.params["note"] + ".md"),
                  "\n".join(f"{i}. {x.upper()}" for i, x in enumerate(items, 1)))
    assert task.is_successful(env.phone) == 1.0
    st.write_file(env.phone, note_path(task.params["note"] + ".md"), "\n".join(f"* {x}" for x in items[:-1]))
    assert task.is_successful(env.phone) == 0.0
    assert note_lines("- [ ] milk\n\n2) eggs") == ["milk", "eggs"]


def test_plain_text_note_with_a_markdown_twin_fails() -> None:
    task = registry.get_template("notes_create_plain_text_note").instantiate(0)
    env = fresh(task, 0)
    for ext in (".txt", ".md"):
        st.write_file(env.phone, note_path(task.params["note"] + ext), task.params["text"])
    assert task.is_successful(env.phone) == 0.0


def test_sort_order_near_miss_is_a_real_change() -> None:
    task = registry.get_template("notes_change_sort_order").instantiate(0)
    env = fresh(task, 0)
    assert sort_order(env.phone) == SORT_LABELS[task.params["current"]] != SORT_LABELS[task.params["order"]]


NEW_QUERIES: dict[str, tuple[Callable[[dict], list[str]], Callable[[dict], list[str]]]] = {
    "notes_query_latest_in_folder": (
        lambda pr: [pr["latest"], pr["latest"] + ".md", f"It is {pr['folder']}/{pr['latest']}.md"],
        lambda pr: [next(n for n, _ in pr["notes"] if n != pr["latest"]),  # an older note
                    " or ".join(n for n, _ in pr["notes"])]),  # listing every note
    "notes_query_note_folder": (
        lambda pr: [pr["folder"], f"It's in Markor/{pr['folder']}", f"{pr['folder']}/{pr['note']}.md"],
        lambda pr: [pr["decoy_folder"], f"{pr['folder']} or {pr['decoy_folder']}"]),  # the look-alike's folder
}


@pytest.mark.parametrize("name", sorted(NEW_QUERIES))
def test_new_query_checker_success_and_near_miss(name: str) -> None:
    good, bad = NEW_QUERIES[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        for a in good(task.params):
            assert task.is_successful(env.phone, a) == 1.0, (name, seed, a)
        for a in bad(task.params) + [None, ""]:
            assert task.is_successful(env.phone, a) == 0.0, (name, seed, a)


def test_latest_note_is_the_first_row_when_sorted_by_date() -> None:
    task = registry.get_template("notes_query_latest_in_folder").instantiate(4)
    env = fresh(task, 4)
    rows = st.list_dir(env.phone, note_path(task.params["folder"]), sort="modified")
    assert without_ext(rows[0].name) == task.params["latest"]


# ---- screens ------------------------------------------------------------------------------------
def _env() -> SimEnv:
    env = SimEnv(None, 2)
    env.reset()
    env.phone.open_app("notes")
    return env


def _c(obs, **kw) -> Action:
    a = click(obs, **kw)
    assert a is not None, kw
    return a


def test_listing_editor_and_storage_shared() -> None:
    env = _env()
    obs = env.observe()
    assert obs.package == "net.gsantner.markor"
    assert find(obs, text="/Markor") is not None
    assert find(obs, desc="QuickNote.md") is not None
    obs = env.step(_c(obs, desc="QuickNote.md"))
    assert env.phone.location == "notes/editor"
    i = find(obs, resource_id="document__fragment__edit__highlighting_editor")
    assert obs.elements[i].text == "Call the plumber about the kitchen sink."
    act(env, "input_text", index=i, text="Plumber done")
    env.step(Action(action_type="navigate_back"))  # hides the keyboard first
    assert env.phone.location == "notes/editor" and not env.phone.keyboard_shown
    env.step(Action(action_type="navigate_back"))  # leaving saves, as in Markor
    assert env.phone.location == "notes/main"
    assert st.read_file(env.phone, "Documents/Markor/QuickNote.md") == "Plumber done"


def test_new_file_dialog_creates_note_and_folder() -> None:
    env = _env()
    obs = env.step(_c(env.observe(), desc="Create a new file or folder"))
    assert env.phone.dialog is not None and env.phone.dialog.name == "new_file"
    obs = env.step(_c(obs, text="OK"))
    assert env.phone.toast == "Name can't be empty"
    act(env, "input_text", index=find(env.observe(), resource_id="new_file_dialog__name"), text="Plan")
    obs = env.step(_c(env.observe(), text="Plain text"))
    env.step(_c(obs, text="OK"))
    assert env.phone.location == "notes/editor" and st.exists(env.phone, "Documents/Markor/Plan.txt")
    while env.phone.location != "notes/main":
        env.phone.back()
    obs = env.step(_c(env.observe(), desc="Create a new file or folder"))
    act(env, "input_text", index=find(obs, resource_id="new_file_dialog__name"), text="Plan.txt")
    env.step(_c(env.observe(), text="OK"))
    assert env.phone.toast == "Plan.txt already exists"


def test_selection_rename_move_delete_and_search() -> None:
    env = _env()
    st.mkdir(env.phone, note_path("Box"))
    obs = env.observe()
    obs = env.step(Action(action_type="long_press", index=find(obs, desc="QuickNote.md")))
    assert find(obs, text="1 selected") is not None and find(obs, desc="Create a new file or folder") is None
    obs = env.step(_c(obs, desc="Move"))
    obs = env.step(_c(obs, text="Markor/Box"))
    assert st.exists(env.phone, note_path("QuickNote.md", "Box"))
    assert not st.exists(env.phone, note_path("QuickNote.md"))
    obs = env.step(_c(obs, desc="Search"))
    act(env, "input_text", index=find(env.observe(), resource_id="search_input"), text="quick")
    obs = env.observe()
    assert find(obs, text="Box/QuickNote.md") is not None
    env.step(Action(action_type="navigate_back"))  # keyboard
    obs = env.step(Action(action_type="navigate_back"))  # closes the search, stays in Markor
    assert env.phone.location == "notes/main" and find(obs, resource_id="search_input") is None
    obs = env.step(Action(action_type="long_press", index=find(env.observe(), desc="Folder Box")))
    obs = env.step(_c(obs, desc="Delete"))
    assert env.phone.dialog is not None and env.phone.dialog.name == "confirm"
    env.step(_c(env.observe(), text="OK"))
    assert not st.exists(env.phone, note_path("Box"))


def test_sort_menu_and_long_listing_scrolls() -> None:
    env = _env()
    for i in range(20):
        st.write_file(env.phone, note_path(f"zz note {i:02d}.md"), "x" * i)
    obs = env.observe()
    assert find(obs, desc="zz note 19.md") is None  # off screen rows are absent
    obs = env.step(Action(action_type="scroll", direction="down"))
    obs = env.step(Action(action_type="scroll", direction="down"))
    assert find(obs, desc="zz note 19.md") is not None
    obs = env.step(_c(obs, desc="More options"))
    env.step(_c(obs, text="Sort by size"))
    rows = st.list_dir(env.phone, MARKOR_DIR, sort="size", dirs_first=True)
    assert rows[0].is_dir
    assert env.phone.query_one("SELECT value FROM markor_prefs WHERE name='sort'")["value"] == "size"


# ---- checklist clean-up, nested folders, archiving by date, search and reading: success + near misses -----
def _unticked_too(p: Phone, pr: dict) -> None:  # the ticked lines removed, and one open item with them
    lines = [line for line in pr["body"].splitlines() if not line.startswith("- [x]")]
    lines.remove(f"- [ ] {pr['open'][0]}")
    st.write_file(p, note_path(pr["note"] + ".md"), "\n".join(lines))


def _subfolder_note(where: Callable[[dict], str]) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        st.mkdir(p, note_path(f"{pr['parent']}/{pr['child']}"), exist_ok=True)
        st.write_file(p, note_path(pr["note"] + ".md", where(pr)), pr["text"], parents=True)
    return f


def _archive(which: Callable[[dict], list[str]]) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        for name in which(pr):
            st.move(p, note_path(name + ".md", pr["folder"]), note_path(pr["dest"]))
    return f


ROUND3_OPS: dict[str, tuple[Callable[[Phone, dict], object], Callable[[Phone, dict], object]]] = {
    "notes_remove_checked_items": (
        _write("note", lambda pr: "\n".join(x for x in pr["body"].splitlines() if not x.startswith("- [x]"))),
        _unticked_too),
    "notes_create_subfolder_note": (_subfolder_note(lambda pr: f"{pr['parent']}/{pr['child']}"),
                                    _subfolder_note(lambda pr: pr["parent"])),  # note one level too high
    "notes_archive_old_notes": (_archive(lambda pr: pr["old"]),
                                _archive(lambda pr: [n for n, _ in pr["notes"]])),  # newer notes moved too
}


@pytest.mark.parametrize("name", sorted(ROUND3_OPS))
def test_round3_operation_checker_success_and_near_miss(name: str) -> None:
    good, bad = ROUND3_OPS[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 1000):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        assert task.is_successful(env.phone) == 0.0, (name, seed)  # the start is not the goal
        good(env.phone, task.params)
        assert task.is_successful(env.phone) == 1.0, (name, seed)
        env = fresh(task, seed)
        bad(env.phone, task.params)
        assert task.is_successful(env.phone) == 0.0, (name, seed)


def test_round3_more_near_misses() -> None:
    task = registry.get_template("notes_archive_old_notes").instantiate(3)
    env = fresh(task, 3)
    _archive(lambda pr: pr["old"][:1])(env.phone, task.params)  # only one of the old notes
    assert task.is_successful(env.phone) == 0.0
    task = registry.get_template("notes_create_subfolder_note").instantiate(3)
    env = fresh(task, 3)
    st.write_file(env.phone, note_path(task.params["note"] + ".md", task.params["child"]),
                  task.params["text"], parents=True)  # "{child}" made at the top level
    assert task.is_successful(env.phone) == 0.0
    task = registry.get_template("notes_remove_checked_items").instantiate(3)
    env = fresh(task, 3)
    body = task.params["body"].replace("- [x] ", "- [ ] ")  # unticked instead of removed
    st.write_file(env.phone, note_path(task.params["note"] + ".md"), body)
    assert task.is_successful(env.phone) == 0.0


ROUND3_QUERIES: dict[str, tuple[Callable[..., list[str]], Callable[..., list[str]]]] = {
    "notes_query_open_checklist_items": (
        lambda t, env: ["; ".join(t.params["open"]), "Still open: " + ", ".join(reversed(t.params["open"]))],
        lambda t, env: [", ".join(t.params["open"][:-1]),  # one open item missing
                   ", ".join(t.params["open"] + t.params["done"][:1])]),  # a ticked one listed too
    "notes_query_search_count": (
        lambda t, env: [t.template.expected(env.phone, t.params),
                        f"{t.template.expected(env.phone, t.params)} notes"],
        lambda t, env: [str(int(t.template.expected(env.phone, t.params)) + 1)]),  # the folder counted too
    "notes_query_note_mentioning": (
        lambda t, env: [t.params["note"], t.params["note"] + ".md",
                        f"{t.params['folder']}/{t.params['note']}.md"],
        lambda t, env: [next(n for n, _ in t.params["notes"] if n != t.params["note"]),
                   ", ".join(n for n, _ in t.params["notes"])]),  # listing every note
}


@pytest.mark.parametrize("name", sorted(ROUND3_QUERIES))
def test_round3_query_checker_success_and_near_miss(name: str) -> None:
    good, bad = ROUND3_QUERIES[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 1000):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        for a in good(task, env):
            assert task.is_successful(env.phone, a) == 1.0, (name, seed, a)
        for a in bad(task, env) + [None, ""]:
            assert task.is_successful(env.phone, a) == 0.0, (name, seed, a)


def test_search_count_matches_the_search_results_minus_the_folder() -> None:
    task = registry.get_template("notes_query_search_count").instantiate(0)
    env = fresh(task, 0)
    w = task.params["word"]
    hits = [e for e in st.walk(env.phone, MARKOR_DIR) if w in e.name.lower()]
    assert len([e for e in hits if e.is_dir]) == 1
    want = str(len(task.params["notes"]))
    assert str(len(hits) - 1) == task.template.expected(env.phone, task.params) == want


# ---- reordering lines, sweeping empty notes, folder indexes, bulk renames, comparing notes ----
def _lines(pr: dict, items: list[str]) -> str:
    return f"# {pr['note']}\n" + "\n".join(f"- {x}" for x in items)


def _delete_notes(which: Callable[[dict], list[str]], where: Callable[[dict], str] = lambda pr: pr["folder"]):
    def f(p: Phone, pr: dict) -> None:
        for name in which(pr):
            st.delete(p, note_path(name + ".md", where(pr)))
    return f


def _index(text: Callable[[dict], str]) -> Callable[[Phone, dict], object]:
    return lambda p, pr: st.write_file(p, note_path(pr["index"] + ".md", pr["folder"]), text(pr))


def _prefix(which: Callable[[dict], list[str]]) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        for name in which(pr):
            st.rename(p, note_path(name + ".md", pr["folder"]), pr["prefix"] + name + ".md")
    return f


ROUND4_OPS: dict[str, tuple[Callable[[Phone, dict], object], Callable[[Phone, dict], object]]] = {
    "notes_sort_list_alphabetically": (
        _write("note", lambda pr: _lines(pr, sorted(pr["items"]))),
        _write("note", lambda pr: _lines(pr, sorted(pr["items"], reverse=True)))),  # Z to A
    "notes_delete_empty_notes": (
        _delete_notes(lambda pr: pr["empty"]),
        lambda p, pr: (_delete_notes(lambda pr: pr["empty"])(p, pr),
                       _delete_notes(lambda pr: [pr["outside"]], lambda pr: "")(p, pr))),  # the root one too
    "notes_write_folder_index": (
        _index(lambda pr: "\n".join(f"- {n}" for n in sorted(pr["notes"]))),
        _index(lambda pr: "\n".join(sorted(pr["notes"], reverse=True)))),  # Z to A
    "notes_prefix_folder_notes": (
        _prefix(lambda pr: pr["notes"]),
        _prefix(lambda pr: pr["notes"][:-1])),  # the last one forgotten
}


@pytest.mark.parametrize("name", sorted(ROUND4_OPS))
def test_round4_operation_checker_success_and_near_miss(name: str) -> None:
    good, bad = ROUND4_OPS[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 1000):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        assert task.is_successful(env.phone) == 0.0, (name, seed)  # the start is not the goal
        good(env.phone, task.params)
        assert task.is_successful(env.phone) == 1.0, (name, seed)
        env = fresh(task, seed)
        bad(env.phone, task.params)
        assert task.is_successful(env.phone) == 0.0, (name, seed)


def test_round4_more_near_misses() -> None:
    task = registry.get_template("notes_sort_list_alphabetically").instantiate(3)
    env = fresh(task, 3)
    _write("note", lambda pr: "\n".join(f"- {x}" for x in sorted(pr["items"])) + f"\n# {pr['note']}")(
        env.phone, task.params)
    assert task.is_successful(env.phone) == 0.0  # the heading moved to the bottom
    task = registry.get_template("notes_delete_empty_notes").instantiate(3)
    env = fresh(task, 3)
    _delete_notes(lambda pr: pr["empty"] + [pr["full"][0][0]])(env.phone, task.params)  # a note with text
    assert task.is_successful(env.phone) == 0.0
    env = fresh(task, 3)
    _delete_notes(lambda pr: pr["empty"][:1])(env.phone, task.params)  # only one of the empty notes
    assert task.is_successful(env.phone) == 0.0
    task = registry.get_template("notes_write_folder_index").instantiate(3)
    env = fresh(task, 3)
    st.write_file(env.phone, note_path(task.params["index"] + ".md"),  # in the Markor root, not the folder
                  "\n".join(sorted(task.params["notes"])))
    assert task.is_successful(env.phone) == 0.0
    env = fresh(task, 3)
    _index(lambda pr: "\n".join(sorted(pr["notes"])[:-1]))(env.phone, task.params)  # one name missing
    assert task.is_successful(env.phone) == 0.0
    env = fresh(task, 3)
    _index(lambda pr: "\n".join(f"{n}.md" for n in sorted(pr["notes"])))(env.phone, task.params)
    assert task.is_successful(env.phone) == 1.0  # file names with their extension are fine
    task = registry.get_template("notes_prefix_folder_notes").instantiate(3)
    env = fresh(task, 3)
    _prefix(lambda pr: pr["notes"])(env.phone, task.params)
    st.rename(env.phone, note_path(task.params["outside"] + ".md"),
              task.params["prefix"] + task.params["outside"] + ".md")  # a root note renamed as well
    assert task.is_successful(env.phone) == 0.0
    env = fresh(task, 3)
    for name in task.params["notes"]:  # the prefix at the end instead
        st.rename(env.phone, note_path(name + ".md", task.params["folder"]),
                  name + " " + task.params["prefix"].strip() + ".md")
    assert task.is_successful(env.phone) == 0.0


ROUND4_QUERIES: dict[str, tuple[Callable[..., list[str]], Callable[..., list[str]]]] = {
    "notes_query_longer_list": (
        lambda t, env: [t.template.winner(t.params)[0], f"\"{t.template.winner(t.params)[0]}.md\" has more"],
        lambda t, env: [t.template.winner(t.params)[1],  # the shorter one
                        f"{t.params['a']} and {t.params['b']}"]),  # both named
    "notes_query_common_item": (
        lambda t, env: [t.params["common"], f"Both lists have {t.params['common'].title()}."],
        lambda t, env: [next(x for x in t.params["list_a"] if x != t.params["common"]),  # only on one list
                        ", ".join(t.params["list_a"])]),  # a whole list
}


@pytest.mark.parametrize("name", sorted(ROUND4_QUERIES))
def test_round4_query_checker_success_and_near_miss(name: str) -> None:
    good, bad = ROUND4_QUERIES[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 1000):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        for a in good(task, env):
            assert task.is_successful(env.phone, a) == 1.0, (name, seed, a)
        for a in bad(task, env) + [None, ""]:
            assert task.is_successful(env.phone, a) == 0.0, (name, seed, a)


def test_round4_list_notes_on_the_phone_match_the_params() -> None:
    task = registry.get_template("notes_query_longer_list").instantiate(4)
    env = fresh(task, 4)
    counts = {k: len(note_lines(st.read_file(env.phone, note_path(task.params[k] + ".md")))) - 1 for k in "ab"}
    assert counts == {"a": len(task.params["items_a"]), "b": len(task.params["items_b"])}
    assert counts["a"] != counts["b"]
    task = registry.get_template("notes_query_common_item").instantiate(4)
    env = fresh(task, 4)
    a, b = (set(note_lines(st.read_file(env.phone, note_path(task.params[k] + ".md")))[1:]) for k in "ab")
    assert a & b == {task.params["common"]}


# ---- round 5: acting on search hits, a derived total, the oldest note, content sweeps, yes/no and comparisons ----
def _move_hits(extra: Callable[[Phone, dict], None] | None = None, skip_last: bool = False):
    def f(p: Phone, pr: dict) -> None:
        dest = note_path(pr["dest"])
        hits = [e for e in st.walk(p, MARKOR_DIR) if not e.is_dir and pr["word"] in e.name.lower()
                and e.parent != dest]
        for e in hits[:-1] if skip_last else hits:
            st.move(p, e.path, dest)
        if extra is not None:
            extra(p, pr)
    return f


def _total_note(total: Callable[[dict], int], line: str = "Total: {}") -> Callable[[Phone, dict], object]:
    def f(p: Phone, pr: dict) -> object:
        body = st.read_file(p, note_path(pr["note"] + ".md"))
        return st.write_file(p, note_path(pr["note"] + ".md"), body + "\n" + line.format(total(pr)))
    return f


def _sum(pr: dict) -> int:
    return sum(a for _, a in pr["items"])


def _oldest(pr: dict) -> list[str]:
    return [max(pr["notes"], key=lambda nd: nd[1])[0]]


ROUND5_OPS: dict[str, tuple[Callable[[Phone, dict], object], Callable[[Phone, dict], object]]] = {
    "notes_move_search_hits": (
        _move_hits(),
        _move_hits(lambda p, pr: st.move(p, note_path(pr["other_folder"]), note_path(pr["dest"])))),  # a folder too
    "notes_append_total": (
        _total_note(_sum),
        _total_note(lambda pr: _sum(pr) - pr["items"][-1][1])),  # the last amount left out
    "notes_delete_oldest_note": (
        _delete_notes(_oldest),
        _delete_notes(lambda pr: [pr["outside"]], lambda pr: "")),  # older, but not in the folder
    "notes_delete_notes_mentioning": (
        _delete_notes(lambda pr: pr["hits"]),
        lambda p, pr: (_delete_notes(lambda pr: pr["hits"])(p, pr),
                       _delete_notes(lambda pr: [pr["outside"][0]], lambda pr: "")(p, pr))),  # the root one too
}


@pytest.mark.parametrize("name", sorted(ROUND5_OPS))
def test_round5_operation_checker_success_and_near_miss(name: str) -> None:
    good, bad = ROUND5_OPS[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 3, 1000, 1001):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        assert task.is_successful(env.phone) == 0.0, (name, seed)  # the start is not the goal
        good(env.phone, task.params)
        assert task.is_successful(env.phone) == 1.0, (name, seed)
        env = fresh(task, seed)
        bad(env.phone, task.params)
        assert task.is_successful(env.phone) == 0.0, (name, seed)


def test_round5_more_near_misses() -> None:
    task = registry.get_template("notes_move_search_hits").instantiate(3)
    env = fresh(task, 3)
    _move_hits(skip_last=True)(env.phone, task.params)  # one of them left behind
    assert task.is_successful(env.phone) == 0.0
    env = fresh(task, 3)
    _move_hits(lambda p, pr: st.write_file(p, note_path("Summary.md", pr["other_folder"]), "edited"))(
        env.phone, task.params)  # another note changed on the way
    assert task.is_successful(env.phone) == 0.0
    task = registry.get_template("notes_append_total").instantiate(3)
    for line, ok in (("total: ${}", 1.0), ("Total: {}.00", 1.0), ("Sum: {}", 0.0), ("{}", 0.0)):
        env = fresh(task, 3)
        _total_note(_sum, line)(env.phone, task.params)
        assert task.is_successful(env.phone) == ok, line
    env = fresh(task, 3)
    _total_note(_sum)(env.phone, task.params)
    p = note_path(task.params["old_note"] + ".md")
    st.write_file(env.phone, p, st.read_file(env.phone, p) + "\nTotal: 1")  # the look-alike note edited too
    assert task.is_successful(env.phone) == 0.0
    env = fresh(task, 3)
    p = note_path(task.params["note"] + ".md")
    st.write_file(env.phone, p, f"Total: {_sum(task.params)}\n" + st.read_file(env.phone, p))  # at the top
    assert task.is_successful(env.phone) == 0.0
    task = registry.get_template("notes_delete_oldest_note").instantiate(3)
    env = fresh(task, 3)
    newest = min(task.params["notes"], key=lambda nd: nd[1])[0]
    _delete_notes(lambda pr: [newest])(env.phone, task.params)  # the newest instead
    assert task.is_successful(env.phone) == 0.0
    task = registry.get_template("notes_delete_notes_mentioning").instantiate(3)
    env = fresh(task, 3)
    _delete_notes(lambda pr: pr["hits"][:1])(env.phone, task.params)  # only one of them
    assert task.is_successful(env.phone) == 0.0


def test_round5_set_ups_match_the_params() -> None:
    for seed in range(4):
        task = registry.get_template("notes_delete_oldest_note").instantiate(seed)
        env = fresh(task, seed)
        entries = st.list_dir(env.phone, note_path(task.params["folder"]), sort="modified")
        oldest = min(entries, key=lambda e: e.modified)
        assert oldest.name == _oldest(task.params)[0] + ".md", seed
        task = registry.get_template("notes_delete_notes_mentioning").instantiate(seed)
        env = fresh(task, seed)
        d = note_path(task.params["folder"])
        with_phrase = sorted(e.name for e in st.list_dir(env.phone, d)
                             if task.params["phrase"] in st.read_file(env.phone, e.path))
        assert with_phrase == sorted(n + ".md" for n in task.params["hits"]) and len(with_phrase) >= 2, seed
        task = registry.get_template("notes_query_folder_with_more_notes").instantiate(seed)
        env = fresh(task, seed)
        counts = {k: len(st.list_dir(env.phone, note_path(task.params[k]))) for k in "ab"}
        assert counts == {k: len(task.params["notes_" + k]) for k in "ab"} and counts["a"] != counts["b"], seed


ROUND5_QUERIES: dict[str, tuple[Callable[..., list[str]], Callable[..., list[str]]]] = {
    "notes_query_item_on_list": (
        lambda t, env: ["Yes" if t.params["on_list"] else "No",
                        f"{'Yes' if t.params['on_list'] else 'No'}, I checked."],
        lambda t, env: ["No" if t.params["on_list"] else "Yes", "yes or no"]),  # the other answer; both
    "notes_query_folder_with_more_notes": (
        lambda t, env: [t.template.winner(t.params)[0], f"\"{t.template.winner(t.params)[0]}\" has more"],
        lambda t, env: [t.template.winner(t.params)[1],  # the one with fewer notes
                        f"{t.params['a']} and {t.params['b']}"]),  # both named
}


@pytest.mark.parametrize("name", sorted(ROUND5_QUERIES))
def test_round5_query_checker_success_and_near_miss(name: str) -> None:
    good, bad = ROUND5_QUERIES[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 3, 1000, 1001):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        for a in good(task, env):
            assert task.is_successful(env.phone, a) == 1.0, (name, seed, a)
        for a in bad(task, env) + [None, ""]:
            assert task.is_successful(env.phone, a) == 0.0, (name, seed, a)


def test_round5_item_on_list_answers_both_ways_and_the_item_is_where_the_params_say() -> None:
    seen = set()
    for seed in range(8):
        task = registry.get_template("notes_query_item_on_list").instantiate(seed)
        env = fresh(task, seed)
        mine = note_lines(st.read_file(env.phone, note_path(task.params["note"] + ".md")))
        other = note_lines(st.read_file(env.phone, note_path(task.params["other_note"] + ".md")))
        item = task.params["item"]
        assert (item in mine) == task.params["on_list"] and (item in other) != task.params["on_list"], seed
        seen.add(task.params["on_list"])
    assert seen == {True, False}


def _detour_search(env: SimEnv) -> None:
    env.phone.open_app("notes")
    act(env, "click", index=find(env.observe(), desc="Search"))
    act(env, "input_text", index=find(env.observe(), resource_id="search_input"), text="e")


def _detour_other_editor(env: SimEnv) -> None:
    env.phone.open_app("notes")
    act(env, "click", index=find(env.observe(), desc="QuickNote.md"))


def _detour_new_file_dialog(env: SimEnv) -> None:
    env.phone.open_app("notes")
    act(env, "click", index=find(env.observe(), desc="Create a new file or folder"))
    act(env, "input_text", index=find(env.observe(), resource_id="new_file_dialog__name"), text="Scratch")


def _detour_selection(env: SimEnv) -> None:
    env.phone.open_app("notes")
    act(env, "long_press", index=find(env.observe(), desc="QuickNote.md"))


def _detour_menu_in_a_folder(env: SimEnv) -> None:
    env.phone.open_app("notes")
    act(env, "click", index=find(env.observe(), resource_id="file_item"))  # folders come first
    act(env, "click", index=find(env.observe(), desc="More options"))


NOTES_DETOURS = [_detour_search, _detour_other_editor, _detour_new_file_dialog, _detour_selection,
                 _detour_menu_in_a_folder]


@pytest.mark.parametrize("name", sorted(set(ROUND5_OPS) | set(ROUND5_QUERIES)))
def test_round5_oracle_finishes_from_mid_task_screens(name: str) -> None:
    tmpl = registry.get_template(name)
    for k, detour in enumerate(NOTES_DETOURS):
        seed = 10 + k
        task = tmpl.instantiate(seed)
        env = SimEnv(task, seed)
        env.reset()
        detour(env)
        obs = env.observe()
        for _ in range(tmpl.max_steps):
            action = task.oracle_action(env.phone, obs)
            if action.action_type == "status":
                break
            obs = env.step(action)
            if action.action_type == "answer":
                break
        else:
            raise AssertionError(f"{name} after {detour.__name__}: no finish (at {env.phone.location})")
        assert env.is_successful() == 1.0, (name, detour.__name__)
