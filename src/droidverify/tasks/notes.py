"""Markor (Notes) tasks: create/edit/rename/move/delete notes and folders, questions about notes.

Checkers read the shared storage table (``droidverify.env.sim.storage``) under the Markor folder.
A created note may be Markdown (``.md``) or plain text (``.txt``) unless the goal names the file.
"""

from __future__ import annotations

import posixpath
import random
from typing import Any

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim import storage as st
from droidverify.env.sim.apps.notes import KEY, MARKOR_DIR, note_path
from droidverify.env.sim.phone import Phone
from droidverify.tasks.base import TaskTemplate
from droidverify.tasks.helpers import (
    BACK,
    COMPLETE,
    answer,
    answer_matches,
    click,
    click_or_scroll,
    navigate,
    type_into,
)
from droidverify.tasks.registry import register_task

NOTE_NAMES = ("Trip ideas", "Weekend plans", "Gift list", "Garden tasks", "Podcast notes", "Birthday party",
              "Reading notes", "Home repairs", "Car maintenance", "Recipe swaps")
TEXTS = ("Buy paint and brushes", "Call Anna about Saturday", "Book the train tickets", "Water the tomatoes",
         "Renew the library card", "Pick up the dry cleaning", "Try the new ramen place")
FOLDERS = ("Archive", "Projects", "Personal", "Drafts", "Ideas 2024", "Family")


def stem(name: str) -> str:
    return posixpath.splitext(name)[0]


def notes_named(phone: Phone, name: str, folder: str = "") -> list[st.FileEntry]:
    """Files in ``folder`` (relative to Markor) named ``name``.md or ``name``.txt (or exactly ``name``)."""
    d = note_path(folder) if folder else MARKOR_DIR
    if not st.is_dir(phone, d):
        return []
    return [e for e in st.list_dir(phone, d, show_hidden=True)
            if not e.is_dir and (e.name == name or (stem(e.name) == name and e.name.endswith((".md", ".txt"))))]


def one_note(phone: Phone, name: str, folder: str = "") -> str | None:
    """Content of the single note ``name`` in ``folder``; None if absent or duplicated."""
    found = notes_named(phone, name, folder)
    return st.read_file(phone, found[0].path) if len(found) == 1 else None


def same_text(a: str | None, b: str) -> bool:
    """Equal up to surrounding whitespace and trailing spaces on lines."""
    if a is None:
        return False
    norm = lambda s: "\n".join(line.rstrip() for line in s.strip().splitlines())
    return norm(a) == norm(b)


def write_note(phone: Phone, name: str, text: str, folder: str = "") -> str:
    for e in notes_named(phone, stem(name), folder):
        st.delete(phone, e.path)
    return st.write_file(phone, note_path(name, folder), text, parents=True).path


# ---- oracle helpers ---------------------------------------------------------------------------
def current_dir(phone: Phone) -> str | None:
    scr = phone.screen
    if phone.foreground != KEY or scr is None or scr.name != "main":
        return None
    return scr.args.get("dir") or MARKOR_DIR


def to_folder(phone: Phone, obs: Observation, folder: str = "") -> Action | None:
    """Next step toward the plain listing of ``folder`` (relative to Markor); None once there."""
    target = note_path(folder) if folder else MARKOR_DIR
    if phone.foreground != KEY:
        return navigate(phone, obs, KEY, [("main", None)])
    scr = phone.screen
    assert scr is not None
    at_target = current_dir(phone) == target and not scr.state.get("selected") and not scr.state.get("searching")
    if at_target and phone.dialog is not None and phone.dialog.name == "new_file":
        return None  # the caller is creating something here
    if phone.dialog is not None or phone.menu_open:
        return BACK
    if scr.name != "main":
        return BACK
    if scr.state.get("selected") or scr.state.get("searching"):
        return BACK
    cur = current_dir(phone)
    assert cur is not None
    if cur == target:
        return None
    if target.startswith(cur + "/"):
        nxt = target[len(cur) + 1:].split("/")[0]
        return click_or_scroll(phone, obs, desc=f"Folder {nxt}")
    return BACK


def open_note(phone: Phone, obs: Observation, name: str, folder: str = "") -> Action | None:
    """Next step toward the editor of note ``name``; None once it is open."""
    scr = phone.screen
    found = notes_named(phone, name, folder)
    if phone.foreground == KEY and scr is not None and scr.name == "editor" and found \
            and scr.args.get("path") == found[0].path:
        return BACK if phone.dialog is not None else None
    if phone.foreground == KEY and scr is not None and scr.name == "editor":
        return BACK
    step = to_folder(phone, obs, folder)
    if step is not None:
        return step
    return click_or_scroll(phone, obs, desc=found[0].name)


def select_item(phone: Phone, obs: Observation, item_name: str, folder: str = "") -> Action | None:
    """Next step toward the listing of ``folder`` with ``item_name`` selected; None once selected."""
    scr = phone.screen
    path = posixpath.join(note_path(folder) if folder else MARKOR_DIR, item_name)
    if current_dir(phone) == posixpath.dirname(path) and scr is not None and scr.state.get("selected") == path:
        return None
    step = to_folder(phone, obs, folder)
    if step is not None:
        return step
    entry = st.stat(phone, path)
    desc = ("Folder " if entry.is_dir else "") + item_name
    i = click(obs, desc=desc)
    if i is None:
        return click_or_scroll(phone, obs, desc=desc)
    return Action(action_type="long_press", index=i.index)


def edit_text(phone: Phone, obs: Observation, text: str) -> Action:
    """In the editor: type ``text`` (whole content), then leave (Markor saves on back)."""
    scr = phone.screen
    assert scr is not None
    if scr.fields.get("text") != text:
        return type_into(obs, text, resource_id="document__fragment__edit__highlighting_editor") or BACK
    return click(obs, desc="Save") or BACK


def new_item(phone: Phone, obs: Observation, name: str, *, folder: bool) -> Action:
    """On the listing: open the "New file" dialog, type ``name`` and press OK (or Folder)."""
    dlg = phone.dialog
    if dlg is not None and dlg.name == "new_file":
        if dlg.data.get("fields", {}).get("name") != name:
            return type_into(obs, name, resource_id="new_file_dialog__name") or BACK
        return click(obs, text="Folder" if folder else "OK") or BACK
    if dlg is not None or phone.menu_open:
        return BACK
    return click(obs, desc="Create a new file or folder") or BACK


# ---- templates --------------------------------------------------------------------------------
class NoteTask(TaskTemplate):
    apps = ("Markor",)


@register_task
class CreateNote(NoteTask):
    name = "notes_create_note"
    complexity = 2
    optimal_steps = 8
    goal_template = "In Markor, create a note named \"{note}\" with the text \"{text}\"."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"note": rng.choice(NOTE_NAMES), "text": rng.choice(TEXTS), "folder": ""}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for e in notes_named(phone, params["note"], params["folder"]):
            st.delete(phone, e.path)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if same_text(one_note(phone, params["note"], params["folder"]), params["text"]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if notes_named(phone, params["note"], params["folder"]):
            return open_note(phone, obs, params["note"], params["folder"]) or edit_text(phone, obs, params["text"])
        return to_folder(phone, obs, params["folder"]) or new_item(phone, obs, params["note"], folder=False)


@register_task
class CreateNoteInFolder(CreateNote):
    name = "notes_create_note_in_folder"
    complexity = 2
    optimal_steps = 9
    goal_template = "In Markor, create a note \"{note}\" inside the folder \"{folder}\" containing \"{text}\"."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"note": rng.choice(NOTE_NAMES), "text": rng.choice(TEXTS), "folder": rng.choice(FOLDERS)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        st.mkdir(phone, note_path(params["folder"]), exist_ok=True)
        write_note(phone, "Index.md", "Folder index", params["folder"])
        super().setup(phone, params)
        for e in notes_named(phone, params["note"]):  # the same note in the Markor root is the wrong place
            st.delete(phone, e.path)


class ExistingNote(NoteTask):
    """Tasks about one note ``note`` (in ``folder``) the set-up writes with ``body``."""

    def base(self, rng: random.Random) -> dict[str, Any]:
        name = rng.choice(NOTE_NAMES)
        lines = rng.sample(TEXTS, 3)
        return {"note": name, "file": name + ".md", "body": "\n".join(f"- {x}" for x in lines), "folder": ""}

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return self.base(rng)

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        write_note(phone, params["file"], params["body"], params["folder"])


@register_task
class AppendLine(ExistingNote):
    name = "notes_append_line"
    complexity = 2
    optimal_steps = 5
    goal_template = "In Markor, add the line \"{line}\" at the end of the note \"{note}\"."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base(rng)
        p["line"] = "- " + rng.choice([t for t in TEXTS if t not in p["body"]])
        return p

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if same_text(one_note(phone, params["note"]), params["body"] + "\n" + params["line"]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return open_note(phone, obs, params["note"]) or edit_text(phone, obs, params["body"] + "\n" + params["line"])


@register_task
class ReplaceText(ExistingNote):
    name = "notes_replace_text"
    complexity = 2
    optimal_steps = 5
    goal_template = "In the Markor note \"{note}\", replace \"{old}\" with \"{new}\"."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base(rng)
        p["old"] = p["body"].splitlines()[1][2:]
        p["new"] = rng.choice([t for t in TEXTS if t not in p["body"]])
        return p

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = params["body"].replace(params["old"], params["new"])
        return 1.0 if same_text(one_note(phone, params["note"]), want) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return open_note(phone, obs, params["note"]) or \
            edit_text(phone, obs, params["body"].replace(params["old"], params["new"]))


@register_task
class RenameNote(ExistingNote):
    name = "notes_rename_note"
    complexity = 2
    optimal_steps = 6
    goal_template = "Rename the Markor note \"{file}\" to \"{new_file}\"."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base(rng)
        p["new_file"] = rng.choice([n for n in NOTE_NAMES if n != p["note"]]) + " (old).md"
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        super().setup(phone, params)
        write_note(phone, params["new_file"], "placeholder")
        st.delete(phone, note_path(params["new_file"]))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        new = note_path(params["new_file"])
        ok = st.exists(phone, new) and same_text(st.read_file(phone, new), params["body"]) and \
            not st.exists(phone, note_path(params["file"]))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        dlg = phone.dialog
        if dlg is not None and dlg.name == "text_input":
            if dlg.data.get("fields", {}).get("value", dlg.data.get("value")) != params["new_file"]:
                return type_into(obs, params["new_file"], resource_id="edit") or BACK
            return click(obs, text="OK") or BACK
        return select_item(phone, obs, params["file"]) or click(obs, desc="Rename") or BACK


@register_task
class DeleteNote(ExistingNote):
    name = "notes_delete_note"
    complexity = 1
    optimal_steps = 5
    goal_template = "Delete the note \"{file}\" in Markor."

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        super().setup(phone, params)
        write_note(phone, params["note"] + " copy.md", params["body"])  # similar name that must stay

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = not st.exists(phone, note_path(params["file"])) and st.exists(phone, note_path(params["note"] + " copy.md"))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        dlg = phone.dialog
        if dlg is not None and dlg.name == "confirm":
            return click(obs, text="OK") or BACK
        return select_item(phone, obs, params["file"]) or click(obs, desc="Delete") or BACK


@register_task
class CreateFolder(NoteTask):
    name = "notes_create_folder"
    complexity = 1
    optimal_steps = 5
    goal_template = "In Markor, create a new folder named \"{folder}\"."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"folder": rng.choice(FOLDERS)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        if st.exists(phone, note_path(params["folder"])):
            st.delete(phone, note_path(params["folder"]), recursive=True)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if st.is_dir(phone, note_path(params["folder"])) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return to_folder(phone, obs) or new_item(phone, obs, params["folder"], folder=True)


@register_task
class MoveNote(ExistingNote):
    name = "notes_move_note"
    complexity = 2
    optimal_steps = 5
    goal_template = "In Markor, move the note \"{file}\" into the folder \"{dest}\"."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base(rng)
        p["dest"] = rng.choice(FOLDERS)
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        super().setup(phone, params)
        st.mkdir(phone, note_path(params["dest"]), exist_ok=True)
        p = note_path(params["file"], params["dest"])
        if st.exists(phone, p):
            st.delete(phone, p)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        moved = note_path(params["file"], params["dest"])
        ok = st.exists(phone, moved) and same_text(st.read_file(phone, moved), params["body"]) and \
            not st.exists(phone, note_path(params["file"]))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        dlg = phone.dialog
        if dlg is not None and dlg.name == "choice":
            return click_or_scroll(phone, obs, text="Markor/" + params["dest"])
        if not st.is_dir(phone, note_path(params["dest"])):
            return to_folder(phone, obs) or new_item(phone, obs, params["dest"], folder=True)
        return select_item(phone, obs, params["file"]) or click(obs, desc="Move") or BACK


@register_task
class CreateFolderAndMove(MoveNote):
    name = "notes_create_folder_and_move"
    complexity = 3
    optimal_steps = 8
    goal_template = "In Markor, create a folder \"{dest}\" and move the note \"{file}\" into it."

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        ExistingNote.setup(self, phone, params)
        if st.exists(phone, note_path(params["dest"])):
            st.delete(phone, note_path(params["dest"]), recursive=True)


@register_task
class DeleteFolder(NoteTask):
    name = "notes_delete_folder"
    complexity = 2
    optimal_steps = 5
    goal_template = "Delete the folder \"{folder}\" and everything in it from Markor."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"folder": rng.choice(FOLDERS), "keep": "Keep this.md"}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        write_note(phone, "Plan.md", "- step one", params["folder"])
        write_note(phone, params["keep"], "stay")

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = not st.exists(phone, note_path(params["folder"])) and st.exists(phone, note_path(params["keep"]))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        dlg = phone.dialog
        if dlg is not None and dlg.name == "confirm":
            return click(obs, text="OK") or BACK
        return select_item(phone, obs, params["folder"]) or click(obs, desc="Delete") or BACK


FACTS = (("Trip to Lisbon", "Hotel", ("Casa Azul", "Hotel Miradouro", "Alfama Inn")),
         ("Wifi passwords", "Guest network password", ("sunflower42", "blue-harbor-7", "maple2024")),
         ("Car maintenance", "Next oil change", ("December 12", "January 5", "November 30")),
         ("Apartment", "Landlord phone", ("555-0134", "555-0199", "555-0172")))


@register_task
class QueryNoteFact(NoteTask):
    name = "notes_query_note_fact"
    kind = "query"
    complexity = 1
    optimal_steps = 4
    goal_template = "According to my Markor note \"{note}\", what is the {key}?"

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        note, key, values = rng.choice(FACTS)
        value, *others = rng.sample(values, 3)
        return {"note": note, "key": key.lower(), "value": value, "body":
                f"# {note}\nOld {key.lower()}: {others[0]} (outdated)\n{key}: {value}\nAdded on Sunday."}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        write_note(phone, params["note"] + ".md", params["body"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        stale = params["body"].splitlines()[1].split(": ", 1)[1].split(" (")[0]
        ok = answer_matches(answer, params["value"]) and not answer_matches(answer, stale)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return open_note(phone, obs, params["note"]) or answer(params["value"])


@register_task
class QueryCountFolder(NoteTask):
    name = "notes_query_count_folder"
    kind = "query"
    complexity = 1
    optimal_steps = 4
    goal_template = "How many notes are in the Markor folder \"{folder}\"? Answer with a number."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"folder": rng.choice(FOLDERS), "n": rng.randint(2, 6), "names": rng.sample(NOTE_NAMES, 6)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for name in params["names"][:params["n"]]:
            write_note(phone, name + ".md", "x", params["folder"])

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        d = note_path(params["folder"])
        return str(sum(1 for e in st.list_dir(phone, d) if not e.is_dir)) if st.is_dir(phone, d) else "0"

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer_matches(answer, self.expected(phone, params)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return to_folder(phone, obs, params["folder"]) or answer(self.expected(phone, params))


@register_task
class QueryListItems(ExistingNote):
    name = "notes_query_list_items"
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "How many items are listed in my Markor note \"{note}\"? Answer with a number."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base(rng)
        items = rng.sample(TEXTS, rng.randint(2, 6))
        p["body"] = f"# {p['note']}\n" + "\n".join(f"- {x}" for x in items)
        p["count"] = len(items)
        return p

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer_matches(answer, str(params["count"])) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return open_note(phone, obs, params["note"]) or answer(str(params["count"]))
