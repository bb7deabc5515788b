"""Markor (Notes) tasks: create/edit/rename/move/delete notes and folders, questions about notes.

Checkers read the shared storage table (``droidverify.env.sim.storage``) under the Markor folder.
A created note may be Markdown (``.md``) or plain text (``.txt``) unless the goal names the file.
"""

from __future__ import annotations

import posixpath
import random
import re
from typing import Any

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim import storage as st
from droidverify.env.sim.apps.notes import KEY, MARKOR_DIR, note_path, sort_order
from droidverify.env.sim.phone import Phone
from droidverify.tasks.base import TaskTemplate
from droidverify.tasks.helpers import (
    BACK,
    COMPLETE,
    answer,
    answer_matches,
    baseline_rows,
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
    if phone.foreground == KEY and (phone.dialog is not None or phone.menu_open):
        return BACK  # e.g. a "New file" dialog left open: to_folder would leave it for a creator
    step = to_folder(phone, obs, folder)
    if step is not None:
        return step
    return click_or_scroll(phone, obs, desc=found[0].name)


def select_item(phone: Phone, obs: Observation, item_name: str, folder: str = "") -> Action | None:
    """Next step toward the listing of ``folder`` with ``item_name`` selected; None once selected."""
    scr = phone.screen
    path = posixpath.join(note_path(folder) if folder else MARKOR_DIR, item_name)
    if phone.foreground == KEY and (phone.dialog is not None or phone.menu_open):
        return BACK  # callers handle their own dialog before asking for the selection
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


def delete_action(phone: Phone, obs: Observation, item_name: str, folder: str = "") -> Action:
    """Select ``item_name`` (a note or folder in ``folder``) and delete it, confirming."""
    dlg = phone.dialog
    path = posixpath.join(note_path(folder) if folder else MARKOR_DIR, item_name)
    if phone.foreground == KEY and dlg is not None and dlg.name == "confirm" \
            and dlg.data.get("args", {}).get("path") == path:
        return click(obs, text="OK") or BACK
    return select_item(phone, obs, item_name, folder) or click(obs, desc="Delete") or BACK


def rename_action(phone: Phone, obs: Observation, item_name: str, new_name: str, folder: str = "") -> Action:
    """Select ``item_name`` and rename it to ``new_name`` through the Rename dialog (of that item, not another)."""
    dlg = phone.dialog
    path = posixpath.join(note_path(folder) if folder else MARKOR_DIR, item_name)
    if phone.foreground == KEY and dlg is not None and dlg.name == "text_input" \
            and dlg.data.get("args", {}).get("path") == path:
        if dlg.data.get("fields", {}).get("value", dlg.data.get("value")) != new_name:
            return type_into(obs, new_name, resource_id="edit") or BACK
        return click(obs, text="OK") or BACK
    return select_item(phone, obs, item_name, folder) or click(obs, desc="Rename") or BACK


def on_results(phone: Phone, query: str) -> bool:
    """The Markor root listing shows the search results for ``query`` (no dialog, menu or selection)."""
    scr = phone.screen
    return (current_dir(phone) == MARKOR_DIR and scr is not None and bool(scr.state.get("searching"))
            and not scr.state.get("selected") and scr.fields.get("filter", "") == query
            and phone.dialog is None and not phone.menu_open)


def read_note(phone: Phone, obs: Observation, name: str) -> Action | None:
    """Next step toward reading note ``name`` (Markor root) through the search; None once it was read.

    An oracle has no memory, so the search field tells where it is: typing the query focuses the
    field, opening a result clears the focus. Its results for ``name`` with the field unfocused
    are where leaving the note brings you: the note was just on screen.
    """
    scr = phone.screen
    found = notes_named(phone, name)
    if not found:
        return None  # nothing left to read
    if phone.foreground == KEY and scr is not None and scr.name == "editor":
        return BACK  # the note read (or another one) is left
    if on_results(phone, name):
        if phone.focused != "search_input":
            return None
        return click_or_scroll(phone, obs, desc=found[0].name)
    if phone.foreground == KEY and (phone.dialog is not None or phone.menu_open):
        return BACK
    if current_dir(phone) == MARKOR_DIR and scr is not None and scr.state.get("searching") \
            and not scr.state.get("selected"):
        return type_into(obs, name, resource_id="search_input") or BACK
    return to_folder(phone, obs) or click(obs, desc="Search") or BACK


def editing(phone: Phone, entries: list[st.FileEntry]) -> bool:
    """The editor of the first of ``entries`` (a ``notes_named`` result) is open."""
    scr = phone.screen
    return (phone.foreground == KEY and scr is not None and scr.name == "editor" and bool(entries)
            and scr.args.get("path") == entries[0].path)


# ---- templates --------------------------------------------------------------------------------
class NoteTask(TaskTemplate):
    apps = ("Markor",)


@register_task
class CreateNote(NoteTask):
    name = "notes_create_note"
    complexity = 2
    optimal_steps = 8
    goal_template = "In Markor, create a note named \"{note}\" with the text \"{text}\"."
    goal_phrasings = (
        "Could you make a new Markor note called \"{note}\" that says \"{text}\"?",
        "New note \"{note}\": \"{text}\"",
        "Write \"{text}\" in a new note titled \"{note}\" using Markor.",
    )

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
    goal_phrasings = (
        "Could you add a note called \"{note}\" to my \"{folder}\" folder in Markor? It should say \"{text}\".",
        "Markor, folder \"{folder}\": new note \"{note}\" with \"{text}\".",
        "Put \"{text}\" in a new note named \"{note}\" inside the \"{folder}\" folder of Markor.",
    )

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
    goal_phrasings = (
        "Append \"{line}\" as the last line of my Markor note \"{note}\".",
        "Could you open the note \"{note}\" and add \"{line}\" at the bottom?",
        "Markor note \"{note}\": add \"{line}\" to the end.",
    )

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
    goal_phrasings = (
        "Change \"{old}\" to \"{new}\" in my note \"{note}\" in Markor.",
        "Could you edit the note \"{note}\" so it says \"{new}\" instead of \"{old}\"?",
        "Markor, note \"{note}\": swap \"{old}\" for \"{new}\".",
    )

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
    goal_phrasings = (
        "In Markor, change the name of \"{file}\" to \"{new_file}\".",
        "Could you rename my note \"{file}\" so that it is called \"{new_file}\"?",
        "\"{file}\" should be renamed \"{new_file}\" in Markor.",
    )

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
        return rename_action(phone, obs, params["file"], params["new_file"])


@register_task
class DeleteNote(ExistingNote):
    name = "notes_delete_note"
    complexity = 1
    optimal_steps = 5
    goal_template = "Delete the note \"{file}\" in Markor."
    goal_phrasings = (
        "In Markor, remove the note \"{file}\".",
        "Could you delete \"{file}\" from my notes?",
        "Markor: delete \"{file}\".",
    )

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        super().setup(phone, params)
        write_note(phone, params["note"] + " copy.md", params["body"])  # similar name that must stay

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = not st.exists(phone, note_path(params["file"])) and st.exists(phone, note_path(params["note"] + " copy.md"))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return delete_action(phone, obs, params["file"])


@register_task
class CreateFolder(NoteTask):
    name = "notes_create_folder"
    complexity = 1
    optimal_steps = 5
    goal_template = "In Markor, create a new folder named \"{folder}\"."
    goal_phrasings = (
        "Make a folder called \"{folder}\" in Markor.",
        "Could you add a new Markor folder \"{folder}\"?",
        "New folder in my notes app: \"{folder}\".",
    )

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
    goal_phrasings = (
        "Put my note \"{file}\" in the \"{dest}\" folder in Markor.",
        "Could you move \"{file}\" to the Markor folder \"{dest}\"?",
        "Markor: \"{file}\" goes into the folder \"{dest}\".",
    )

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
    goal_phrasings = (
        "Make a new Markor folder called \"{dest}\", then put the note \"{file}\" inside it.",
        "Could you move \"{file}\" into a new folder named \"{dest}\" in Markor?",
        "Move the note \"{file}\" into \"{dest}\", a folder you first need to create in Markor.",
    )

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
    goal_phrasings = (
        "In Markor, remove the \"{folder}\" folder together with its notes.",
        "Could you delete my Markor folder \"{folder}\", contents included?",
        "Get rid of the whole \"{folder}\" folder in my notes.",
    )

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
        return delete_action(phone, obs, params["folder"])


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
    goal_phrasings = (
        "What's the {key} in my note \"{note}\"?",
        "Check the Markor note \"{note}\" and tell me the {key}.",
        "Could you look up the {key} in my \"{note}\" note in Markor?",
    )

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
    goal_phrasings = (
        "Count the notes in my \"{folder}\" folder in Markor and tell me the number.",
        "Could you tell me how many notes the Markor folder \"{folder}\" contains? Just the number.",
        "Number of notes in the folder \"{folder}\" (Markor)?",
    )

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
    goal_phrasings = (
        "Count the list items in the note \"{note}\" and give me the number.",
        "Open \"{note}\" in Markor and tell me how many items it lists, as a number.",
        "Markor note \"{note}\": how many items are in the list? Reply with a number.",
    )

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


# ---- more templates: note types, sorting, lists, copies, folders, questions answered from the listing ----
def without_ext(text: str | None) -> str | None:
    """An answer with note extensions and path slashes dropped ("Work/Trip ideas.md" -> "Work Trip ideas"),
    so a name or path copied from the listing or the search results still matches."""
    return None if text is None else re.sub(r"\.(?:md|txt)\b", "", text, flags=re.IGNORECASE).replace("/", " ")


def note_lines(text: str | None) -> list[str]:
    """Non-empty lines of a note with list markers ("- ", "* ", "1. ", "- [ ] ") stripped, lower-cased."""
    if text is None:
        return []
    out = []
    for line in text.splitlines():
        item = re.sub(r"^\s*(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)", "", line).strip()
        if item:
            out.append(item.lower())
    return out


@register_task
class CreatePlainTextNote(NoteTask):
    name = "notes_create_plain_text_note"
    complexity = 2
    optimal_steps = 8
    goal_template = "In Markor, create a plain text (.txt) note named \"{note}\" containing \"{text}\"."
    goal_phrasings = (
        "Could you make a new plain-text note called \"{note}\" in Markor, not Markdown, saying \"{text}\"?",
        "New .txt note \"{note}\" in Markor: \"{text}\"",
        "Write \"{text}\" into a plain text note named \"{note}\" (file type .txt) using Markor.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"note": rng.choice(NOTE_NAMES), "text": rng.choice(TEXTS)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for e in notes_named(phone, params["note"]):
            st.delete(phone, e.path)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        found = notes_named(phone, params["note"])  # a Markdown file of the same name is the near miss
        ok = len(found) == 1 and found[0].name == params["note"] + ".txt" and \
            same_text(st.read_file(phone, found[0].path), params["text"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        wrong = [e for e in notes_named(phone, params["note"]) if e.name != params["note"] + ".txt"]
        if wrong:  # a note of the wrong type is in the way: remove it first
            return delete_action(phone, obs, wrong[0].name)
        if notes_named(phone, params["note"]):
            return open_note(phone, obs, params["note"]) or edit_text(phone, obs, params["text"])
        dlg = phone.dialog
        if phone.foreground == KEY and dlg is not None and dlg.name == "new_file" \
                and dlg.data.get("type") != "Plain text":
            return click(obs, text="Plain text") or BACK
        return to_folder(phone, obs) or new_item(phone, obs, params["note"], folder=False)


SORT_LABELS = {"date": "modified", "size": "size", "name": "name"}


@register_task
class ChangeSortOrder(NoteTask):
    name = "notes_change_sort_order"
    complexity = 1
    optimal_steps = 4
    goal_template = "In Markor, sort the list of notes by {order}."
    goal_phrasings = (
        "Could you make Markor order my notes by {order}?",
        "Markor: sort by {order}.",
        "I want my notes listed by {order} in Markor, please change the sorting.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        order = rng.choice(("date", "size", "name"))
        return {"order": order, "current": rng.choice([k for k in SORT_LABELS if k != order])}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("INSERT OR REPLACE INTO markor_prefs(name, value) VALUES('sort', ?)",
                      (SORT_LABELS[params["current"]],))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if sort_order(phone) == SORT_LABELS[params["order"]] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        scr = phone.screen
        if phone.foreground == KEY and phone.menu_open and scr is not None and scr.name == "main":
            return click(obs, text=f"Sort by {params['order']}") or BACK
        return to_folder(phone, obs) or click(obs, desc="More options") or BACK


@register_task
class QueryLatestInFolder(NoteTask):
    name = "notes_query_latest_in_folder"
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "Which note in the Markor folder \"{folder}\" was modified most recently? Answer with its name."
    goal_phrasings = (
        "In Markor, what's the most recently edited note in my \"{folder}\" folder? Just give its name.",
        "Could you check the \"{folder}\" folder and tell me which note I changed last?",
        "Latest modified note in Markor folder \"{folder}\": which one is it?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        names = rng.sample(NOTE_NAMES, rng.randint(3, 6))
        days = rng.sample(range(2, 90), len(names))  # distinct days, so the listing's dates decide
        return {"folder": rng.choice(FOLDERS), "notes": [[n, d] for n, d in zip(names, days)],
                "latest": names[days.index(min(days))]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        from datetime import timedelta

        for name, days in params["notes"]:
            st.write_file(phone, note_path(name + ".md", params["folder"]), f"# {name}\n- draft",
                          modified=phone.now - timedelta(days=days, hours=1), parents=True)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        others = [n for n, _ in params["notes"] if n != params["latest"]]
        said = without_ext(answer)
        ok = answer_matches(said, params["latest"]) and not any(answer_matches(said, n) for n in others)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return to_folder(phone, obs, params["folder"]) or answer(params["latest"])


HIDDEN_NOTES = ("Warranty info", "Vet visits", "Tax checklist", "Piano practice", "Bike service", "Wedding toasts")


@register_task
class QueryNoteFolder(NoteTask):
    name = "notes_query_note_folder"
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = "Which Markor folder contains my note \"{note}\"? Answer with the folder name."
    goal_phrasings = (
        "I can't find my note \"{note}\" in Markor. Which folder did I put it in?",
        "Could you tell me what folder the note \"{note}\" is stored in?",
        "Folder of the Markor note \"{note}\"? Reply with just the folder name.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        folder, decoy = rng.sample(FOLDERS, 2)
        note = rng.choice(HIDDEN_NOTES)
        return {"note": note, "folder": folder, "decoy_folder": decoy, "decoy": f"{note} {rng.choice((2022, 2023))}"}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # an older note with a longer, similar name lives in another folder
        write_note(phone, params["note"] + ".md", f"# {params['note']}\n- current", params["folder"])
        write_note(phone, params["decoy"] + ".md", f"# {params['decoy']}\n- outdated", params["decoy_folder"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        said = without_ext(answer)
        ok = answer_matches(said, params["folder"]) and not answer_matches(said, params["decoy_folder"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        # search from the Markor root: results show "<folder>/<file>"
        if phone.foreground != KEY:
            return navigate(phone, obs, KEY, [("main", None)])
        scr = phone.screen
        assert scr is not None
        if phone.dialog is not None or phone.menu_open or scr.name != "main" or scr.state.get("selected"):
            return BACK
        if scr.state.get("searching"):
            if current_dir(phone) != MARKOR_DIR:
                return BACK
            if scr.fields.get("filter", "") != params["note"]:
                return type_into(obs, params["note"], resource_id="search_input") or BACK
            return answer(params["folder"])
        return to_folder(phone, obs) or click(obs, desc="Search") or BACK


TODO_NOTES = ("Weekend chores", "Errands", "Before the trip", "Moving checklist")


@register_task
class CheckOffTodo(NoteTask):
    name = "notes_check_off_todo"
    complexity = 2
    optimal_steps = 5
    goal_template = ("In my Markor to-do note \"{note}\", mark \"{item}\" as done (change its \"[ ]\" "
                     "to \"[x]\").")
    goal_phrasings = (
        "Tick off \"{item}\" in the checklist \"{note}\" in Markor, i.e. turn its \"[ ]\" into \"[x]\".",
        "Could you check the box of \"{item}\" in my note \"{note}\"? Write \"[x]\" instead of \"[ ]\".",
        "Markor, \"{note}\": \"{item}\" is done, so change \"[ ]\" to \"[x]\" on that line.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        items = rng.sample(TEXTS, 4)
        done = rng.choice(items)  # already ticked: the task's item is another one
        item = rng.choice([x for x in items if x != done])
        body = f"# {rng.choice(TODO_NOTES)}\n" + "\n".join(f"- [{'x' if x == done else ' '}] {x}" for x in items)
        return {"note": body.splitlines()[0][2:], "item": item, "body": body}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        write_note(phone, params["note"] + ".md", params["body"])

    def target(self, params: dict[str, Any]) -> str:
        return params["body"].replace(f"- [ ] {params['item']}", f"- [x] {params['item']}")

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if same_text(one_note(phone, params["note"]), self.target(params)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return open_note(phone, obs, params["note"]) or edit_text(phone, obs, self.target(params))


@register_task
class DuplicateNote(ExistingNote):
    name = "notes_duplicate_note"
    complexity = 3
    optimal_steps = 7
    goal_template = "In Markor, make a copy of the note \"{note}\" named \"{copy}\" with exactly the same text."
    goal_phrasings = (
        "Duplicate my Markor note \"{note}\" as a new note called \"{copy}\" (same content).",
        "Could you create a note \"{copy}\" containing the same text as \"{note}\"? Keep the original.",
        "Copy \"{note}\" to a new note \"{copy}\" in Markor.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base(rng)
        p["copy"] = p["note"] + rng.choice((" backup", " copy 2", " (shared)"))
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        super().setup(phone, params)
        for e in notes_named(phone, params["copy"]):
            st.delete(phone, e.path)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = same_text(one_note(phone, params["note"]), params["body"]) and \
            same_text(one_note(phone, params["copy"]), params["body"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if not same_text(one_note(phone, params["note"]), params["body"]):
            return open_note(phone, obs, params["note"]) or edit_text(phone, obs, params["body"])
        copies = notes_named(phone, params["copy"])
        if editing(phone, copies):
            return edit_text(phone, obs, params["body"])
        dlg = phone.dialog
        if not copies and phone.foreground == KEY and dlg is not None and dlg.name == "new_file":
            return new_item(phone, obs, params["copy"], folder=False)
        # read the original first: the text typed into the copy is what its editor showed
        step = read_note(phone, obs, params["note"])
        if step is not None:
            return step
        if copies:  # on the results of the original's name, the copy's name included
            return click_or_scroll(phone, obs, desc=copies[0].name)
        return new_item(phone, obs, params["copy"], folder=False)


@register_task
class RenameFolder(NoteTask):
    name = "notes_rename_folder"
    complexity = 2
    optimal_steps = 6
    goal_template = "In Markor, rename the folder \"{folder}\" to \"{new_folder}\"."
    goal_phrasings = (
        "Could you change the name of my Markor folder \"{folder}\" to \"{new_folder}\"? Keep its notes.",
        "Rename \"{folder}\" -> \"{new_folder}\" (a folder in Markor).",
        "The notes folder \"{folder}\" should be called \"{new_folder}\" from now on.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        folder, new = rng.sample(FOLDERS, 2)
        return {"folder": folder, "new_folder": new, "notes": rng.sample(NOTE_NAMES, 2)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for name in params["notes"]:
            write_note(phone, name + ".md", f"# {name}", params["folder"])
        if st.exists(phone, note_path(params["new_folder"])):
            st.delete(phone, note_path(params["new_folder"]), recursive=True)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        new = note_path(params["new_folder"])
        kept = st.is_dir(phone, new) and sorted(e.name for e in st.list_dir(phone, new, show_hidden=True)) == \
            sorted(n + ".md" for n in params["notes"])  # the notes travelled with the folder
        ok = kept and not st.exists(phone, note_path(params["folder"]))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return rename_action(phone, obs, params["folder"], params["new_folder"])


@register_task
class MergeNotes(NoteTask):
    name = "notes_merge_notes"
    complexity = 3
    optimal_steps = 10
    goal_template = ("In Markor, add the text of the note \"{second}\" to the end of the note \"{first}\", "
                     "then delete \"{second}\".")
    goal_phrasings = (
        ("Merge my note \"{second}\" into \"{first}\" in Markor: its text goes at the bottom of \"{first}\", "
         "and \"{second}\" is deleted afterwards."),
        "Could you append everything from \"{second}\" to \"{first}\" and then remove \"{second}\"?",
        "Markor: move the contents of \"{second}\" to the end of \"{first}\", then delete \"{second}\".",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first, second = rng.sample(NOTE_NAMES, 2)
        items = rng.sample(TEXTS, 4)
        return {"first": first, "second": second, "body1": "\n".join(f"- {x}" for x in items[:2]),
                "body2": "\n".join(f"- {x}" for x in items[2:])}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        write_note(phone, params["first"] + ".md", params["body1"])
        write_note(phone, params["second"] + ".md", params["body2"])

    def target(self, params: dict[str, Any]) -> str:
        return params["body1"] + "\n" + params["body2"]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = same_text(one_note(phone, params["first"]), self.target(params)) and \
            not notes_named(phone, params["second"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if not same_text(one_note(phone, params["first"]), self.target(params)):
            firsts = notes_named(phone, params["first"])
            if editing(phone, firsts):
                return edit_text(phone, obs, self.target(params))
            # searching for the first note comes only after the second was read (see read_note)
            if firsts and on_results(phone, params["first"]):
                return click_or_scroll(phone, obs, desc=firsts[0].name)
            step = read_note(phone, obs, params["second"])
            if step is not None:
                return step
            return type_into(obs, params["first"], resource_id="search_input") or BACK
        return delete_action(phone, obs, notes_named(phone, params["second"])[0].name)


GROCERIES = ("oat milk", "basil", "cherry tomatoes", "rice noodles", "greek yogurt", "lemons", "dark chocolate",
             "frozen peas", "parmesan")


@register_task
class CreateChecklist(NoteTask):
    name = "notes_create_list_note"
    complexity = 2
    optimal_steps = 7
    goal_template = "Create a Markor note named \"{note}\" listing these items, one per line: {items}."
    goal_phrasings = (
        "Could you start a new note \"{note}\" in Markor with one line for each of: {items}?",
        "New list note \"{note}\": {items} (each item on its own line).",
        "In Markor, write down {items} in a new note called \"{note}\", one item per line, in that order.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        chosen = rng.sample(GROCERIES, rng.randint(3, 5))
        return {"note": rng.choice(("Groceries", "Market run", "Shopping for Sunday", "Pantry restock")),
                "list": chosen, "items": ", ".join(chosen)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for e in notes_named(phone, params["note"]):
            st.delete(phone, e.path)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        # bullets, numbering or none are all fine; order and one item per line are not optional
        return 1.0 if note_lines(one_note(phone, params["note"])) == [x.lower() for x in params["list"]] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        text = "\n".join(f"- {x}" for x in params["list"])
        if notes_named(phone, params["note"]):
            return open_note(phone, obs, params["note"]) or edit_text(phone, obs, text)
        return to_folder(phone, obs) or new_item(phone, obs, params["note"], folder=False)


# ---- more kinds of task: checklist clean-up, nested folders, archiving by date, search and reading ----
def checklist(rng: random.Random, n_done: int, n_open: int) -> tuple[str, list[str], list[str]]:
    """A Markdown checklist note body with ``n_done`` ticked and ``n_open`` open items (shuffled)."""
    items = rng.sample(TEXTS, n_done + n_open)
    done, open_ = items[:n_done], items[n_done:]
    title = rng.choice(TODO_NOTES)
    body = f"# {title}\n" + "\n".join(f"- [{'x' if x in done else ' '}] {x}" for x in items)
    return body, done, open_


@register_task
class RemoveCheckedItems(NoteTask):
    name = "notes_remove_checked_items"
    complexity = 2
    optimal_steps = 5
    goal_template = ("Clean up my Markor checklist \"{note}\": delete every line that is already ticked "
                     "(\"[x]\") and keep the unticked ones as they are.")
    goal_phrasings = (
        ("In the Markor note \"{note}\", remove all the items that are checked off ([x]); "
         "leave the open ones."),
        "Could you delete the finished ([x]) items from my to-do note \"{note}\" in Markor? Keep the rest.",
        "Markor, \"{note}\": drop the ticked lines, keep the unticked lines unchanged.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        body, done, open_ = checklist(rng, rng.randint(2, 3), rng.randint(2, 3))
        return {"note": body.splitlines()[0][2:], "body": body, "done": done, "open": open_}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        write_note(phone, params["note"] + ".md", params["body"])

    def target(self, params: dict[str, Any]) -> str:
        return "\n".join(line for line in params["body"].splitlines() if not line.startswith("- [x]"))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if same_text(one_note(phone, params["note"]), self.target(params)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return open_note(phone, obs, params["note"]) or edit_text(phone, obs, self.target(params))


@register_task
class QueryOpenChecklistItems(NoteTask):
    name = "notes_query_open_checklist_items"
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "Which items in my Markor checklist \"{note}\" are not ticked off yet? List them all."
    goal_phrasings = (
        "What's still left to do in my Markor to-do note \"{note}\"? Tell me every unchecked item.",
        "Could you look at the note \"{note}\" and name the items that are still open ([ ])?",
        "Open items in the Markor checklist \"{note}\": which are they?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        body, done, open_ = checklist(rng, rng.randint(1, 3), rng.randint(2, 3))
        return {"note": body.splitlines()[0][2:], "body": body, "done": done, "open": open_}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        write_note(phone, params["note"] + ".md", params["body"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = all(answer_matches(answer, x) for x in params["open"]) and \
            not any(answer_matches(answer, x) for x in params["done"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return open_note(phone, obs, params["note"]) or answer("; ".join(params["open"]))


@register_task
class CreateSubfolderNote(NoteTask):
    name = "notes_create_subfolder_note"
    complexity = 3
    optimal_steps = 12
    goal_template = ("In Markor, inside the folder \"{parent}\", create a new folder \"{child}\" and put "
                     "a note \"{note}\" in it with the text \"{text}\".")
    goal_phrasings = (
        ("Make a subfolder \"{child}\" in my Markor folder \"{parent}\", then add a note \"{note}\" to it "
        "saying \"{text}\"."),
        ("Could you create the note \"{note}\" (text: \"{text}\") in a new folder \"{child}\" "
         "inside \"{parent}\"?"),
        "Markor: {parent}/{child}/{note} with \"{text}\" (the folder \"{child}\" doesn't exist yet).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        parent, child = rng.sample(FOLDERS, 2)
        return {"parent": parent, "child": child, "note": rng.choice(NOTE_NAMES), "text": rng.choice(TEXTS)}

    def sub(self, params: dict[str, Any]) -> str:
        return f"{params['parent']}/{params['child']}"

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        write_note(phone, "Index.md", "Folder index", params["parent"])
        for path in (note_path(params["child"]), note_path(self.sub(params))):
            if st.exists(phone, path):
                st.delete(phone, path, recursive=True)
        for folder in ("", params["parent"]):
            for e in notes_named(phone, params["note"], folder):
                st.delete(phone, e.path)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = same_text(one_note(phone, params["note"], self.sub(params)), params["text"]) and \
            not st.exists(phone, note_path(params["child"])) and \
            not notes_named(phone, params["note"]) and \
            not notes_named(phone, params["note"], params["parent"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        sub = self.sub(params)
        if not st.is_dir(phone, note_path(sub)):
            return to_folder(phone, obs, params["parent"]) or \
                new_item(phone, obs, params["child"], folder=True)
        if notes_named(phone, params["note"], sub):
            return open_note(phone, obs, params["note"], sub) or edit_text(phone, obs, params["text"])
        return to_folder(phone, obs, sub) or new_item(phone, obs, params["note"], folder=False)


MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
               "October", "November", "December")


@register_task
class ArchiveOldNotes(NoteTask):
    name = "notes_archive_old_notes"
    complexity = 3
    optimal_steps = 10
    goal_template = ("In Markor, move every note in the folder \"{folder}\" that was last modified before "
                     "{date_text} into the folder \"{dest}\"; notes modified on or after that day stay.")
    goal_phrasings = (
        ("Archive my old notes: anything in the Markor folder \"{folder}\" last changed before {date_text} "
         "goes to \"{dest}\", newer notes stay put."),
        ("Could you move the \"{folder}\" notes older than {date_text} (by modification date) into "
         "\"{dest}\" in Markor?"),
        "Markor: notes in \"{folder}\" modified before {date_text} -> folder \"{dest}\"; keep the others.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        from datetime import date, timedelta

        folder = rng.choice(("Drafts", "Projects", "Personal", "Family"))
        names = rng.sample(NOTE_NAMES, rng.randint(4, 5))
        n_old = rng.randint(2, 3)
        cut = rng.randint(20, 40)  # days before the phone's date (Oct 15, 2024)
        old_days = rng.sample(range(cut + 2, cut + 60), n_old)
        new_days = rng.sample(range(2, cut - 1), len(names) - n_old)
        day = date(2024, 10, 15) - timedelta(days=cut)
        return {"folder": folder, "dest": "Archive",
                "date_text": f"{MONTH_NAMES[day.month - 1]} {day.day}, {day.year}",
                "notes": [[n, d] for n, d in zip(names, old_days + new_days)], "old": names[:n_old]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        from datetime import timedelta

        for path in (note_path(params["folder"]), note_path(params["dest"])):
            if st.exists(phone, path):
                st.delete(phone, path, recursive=True)
        st.mkdir(phone, note_path(params["dest"]))
        for name, days in params["notes"]:
            st.write_file(phone, note_path(name + ".md", params["folder"]),
                          f"# {name}\n- written {days} days ago",
                          modified=phone.now - timedelta(days=days, hours=1), parents=True)

    def names_in(self, phone: Phone, folder: str) -> list[str]:
        d = note_path(folder)
        return sorted(e.name for e in st.list_dir(phone, d, show_hidden=True)) if st.is_dir(phone, d) else []

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        old = sorted(n + ".md" for n in params["old"])
        new = sorted(n + ".md" for n, _ in params["notes"] if n not in params["old"])
        ok = self.names_in(phone, params["dest"]) == old and self.names_in(phone, params["folder"]) == new
        for name, days in params["notes"]:  # contents travel with the notes
            where = params["dest"] if name in params["old"] else params["folder"]
            ok = ok and same_text(one_note(phone, name, where), f"# {name}\n- written {days} days ago")
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        # (note, where it is, where it belongs): old notes still in the folder, newer ones moved by mistake
        moves = [(n, params["folder"], params["dest"]) for n in params["old"]
                 if notes_named(phone, n, params["folder"])]
        moves += [(n, params["dest"], params["folder"]) for n, _ in params["notes"]
                  if n not in params["old"] and notes_named(phone, n, params["dest"])]
        if not moves:  # changed in some other way: nothing this oracle can repair from here
            return COMPLETE
        name, here, there = moves[0]
        dlg = phone.dialog
        if phone.foreground == KEY and dlg is not None and dlg.name == "choice" \
                and dlg.data.get("args", {}).get("path") == note_path(name + ".md", here):
            return click_or_scroll(phone, obs, text="Markor/" + there)
        return select_item(phone, obs, name + ".md", here) or click(obs, desc="Move") or BACK


SEARCH_WORDS = ("budget", "invoice", "lesson", "checklist", "receipt")


@register_task
class QuerySearchCount(NoteTask):
    name = "notes_query_search_count"
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = ("How many of my Markor notes, in any folder, have \"{word}\" in their file name? "
                     "Answer with a number.")
    goal_phrasings = (
        "Count all notes in Markor (every folder included) whose name contains \"{word}\". Just the number.",
        "Could you find out how many Markor notes are named with the word \"{word}\", across all folders?",
        "Number of notes with \"{word}\" in the name, anywhere in Markor?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        word = rng.choice(SEARCH_WORDS)
        n = rng.randint(2, 4)
        places = [rng.choice(("",) + FOLDERS) for _ in range(n)]
        labels = rng.sample(("March", "Q3", "old", "2023", "shared", "draft", "final", "v2"), n)
        notes = [[f"{word.capitalize()} {lab}" if i % 2 == 0 else f"{lab} {word}", place]
                 for i, (lab, place) in enumerate(zip(labels, places))]
        return {"word": word, "notes": notes, "decoy_folder": f"Old {word}s"}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for name, place in params["notes"]:
            write_note(phone, name + ".md", f"# {name}", place)
        # a folder whose name has the word shows up in the results too, but it is not a note
        write_note(phone, "Summary.md", "- see the notes", params["decoy_folder"])

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        w = params["word"].lower()
        return str(sum(1 for e in st.walk(phone, MARKOR_DIR)
                       if not e.is_dir and w in e.name.lower() and not e.name.startswith(".")))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer_matches(answer, self.expected(phone, params)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if phone.foreground != KEY:
            return navigate(phone, obs, KEY, [("main", None)])
        scr = phone.screen
        assert scr is not None
        if phone.dialog is not None or phone.menu_open or scr.name != "main" or scr.state.get("selected"):
            return BACK
        if scr.state.get("searching"):
            if current_dir(phone) != MARKOR_DIR:
                return BACK
            if scr.fields.get("filter", "") != params["word"]:
                return type_into(obs, params["word"], resource_id="search_input") or BACK
            return answer(self.expected(phone, params))
        return to_folder(phone, obs) or click(obs, desc="Search") or BACK


@register_task
class QueryNoteMentioning(NoteTask):
    name = "notes_query_note_mentioning"
    kind = "query"
    complexity = 3
    optimal_steps = 5
    goal_template = ("Which note in my Markor folder \"{folder}\" mentions \"{phrase}\"? "
                     "Answer with the note's name.")
    goal_phrasings = (
        "I wrote \"{phrase}\" in one of the notes in my \"{folder}\" folder in Markor. Which note was it?",
        ("Could you check the notes in the Markor folder \"{folder}\" and tell me which one contains "
         "\"{phrase}\"?"),
        "Markor folder \"{folder}\": name of the note with \"{phrase}\" in it?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        names = rng.sample(NOTE_NAMES, rng.randint(3, 4))
        lines = rng.sample(TEXTS + tuple(f"Buy {g}" for g in GROCERIES), 2 * len(names))
        bodies = [[n, f"# {n}\n- {lines[2 * i]}\n- {lines[2 * i + 1]}"] for i, n in enumerate(names)]
        k = rng.randrange(len(names))
        return {"folder": rng.choice(FOLDERS), "notes": bodies, "note": names[k],
                "phrase": lines[2 * k + rng.randint(0, 1)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for name, body in params["notes"]:
            write_note(phone, name + ".md", body, params["folder"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        others = [n for n, _ in params["notes"] if n != params["note"]]
        said = without_ext(answer)
        ok = answer_matches(said, params["note"]) and not any(answer_matches(said, n) for n in others)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return open_note(phone, obs, params["note"], params["folder"]) or answer(params["note"])


# ---- round 4: reordering lines, sweeping empty notes, folder indexes, bulk renames, comparing notes ----
def list_body(title: str, items: list[str]) -> str:
    """A Markdown list note: a heading, then one ``- item`` line per item."""
    return f"# {title}\n" + "\n".join(f"- {x}" for x in items)


@register_task
class SortNoteLines(NoteTask):
    name = "notes_sort_list_alphabetically"
    complexity = 2
    optimal_steps = 5
    goal_template = ("In my Markor note \"{note}\", put the list items in alphabetical order; keep the heading "
                     "line at the top.")
    goal_phrasings = (
        "Could you alphabetize the items of the list in my Markor note \"{note}\"? The title stays first.",
        "Markor, \"{note}\": reorder the list A to Z, heading unchanged.",
        "Sort the lines of my \"{note}\" list in Markor alphabetically (leave the heading where it is).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        items = rng.sample(GROCERIES, rng.randint(4, 6))
        while items == sorted(items):
            rng.shuffle(items)
        return {"note": rng.choice(("Market run", "Pantry restock", "Groceries", "Shopping for Sunday")),
                "items": items}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        write_note(phone, params["note"] + ".md", list_body(params["note"], params["items"]))

    def target(self, params: dict[str, Any]) -> str:
        return list_body(params["note"], sorted(params["items"]))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if same_text(one_note(phone, params["note"]), self.target(params)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return open_note(phone, obs, params["note"]) or edit_text(phone, obs, self.target(params))


@register_task
class DeleteEmptyNotes(NoteTask):
    name = "notes_delete_empty_notes"
    complexity = 3
    optimal_steps = 11
    goal_template = ("In Markor, delete every empty note (0 B) in the folder \"{folder}\"; keep the notes "
                     "that have text, and leave other folders alone.")
    goal_phrasings = (
        "Clean out the blank notes from my Markor folder \"{folder}\" (the ones of size 0 B); the rest stay.",
        "Could you remove all the empty files in \"{folder}\" in Markor? Notes with content must stay.",
        "Markor folder \"{folder}\": delete the 0-byte notes only.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        names = rng.sample(NOTE_NAMES, 6)
        n_empty = rng.randint(2, 3)
        texts = rng.sample(TEXTS, 5 - n_empty)
        return {"folder": rng.choice(FOLDERS), "empty": names[:n_empty],
                "full": [[n, t] for n, t in zip(names[n_empty:5], texts)], "outside": names[5]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        d = note_path(params["folder"])
        if st.exists(phone, d):
            st.delete(phone, d, recursive=True)
        for name in params["empty"]:
            write_note(phone, name + ".md", "", params["folder"])
        for name, text in params["full"]:
            write_note(phone, name + ".md", text, params["folder"])
        write_note(phone, params["outside"] + ".md", "")  # empty too, but in the Markor root: it stays

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        d = note_path(params["folder"])
        names = sorted(e.name for e in st.list_dir(phone, d, show_hidden=True)) if st.is_dir(phone, d) else None
        ok = names == sorted(n + ".md" for n, _ in params["full"]) and \
            all(same_text(one_note(phone, n, params["folder"]), t) for n, t in params["full"]) and \
            one_note(phone, params["outside"]) == ""
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        left = [n for n in params["empty"] if notes_named(phone, n, params["folder"])]
        if not left:  # changed in some other way: nothing this oracle can repair from here
            return COMPLETE
        return delete_action(phone, obs, notes_named(phone, left[0], params["folder"])[0].name, params["folder"])


@register_task
class WriteFolderIndex(NoteTask):
    name = "notes_write_folder_index"
    complexity = 3
    optimal_steps = 8
    goal_template = ("In the Markor folder \"{folder}\", create a note \"{index}\" that lists the names of the "
                     "other notes in that folder, one per line, in alphabetical order.")
    goal_phrasings = (
        ("Make me a table of contents for my Markor folder \"{folder}\": a new note \"{index}\" in it with "
         "the names of all the other notes there, A to Z, one per line."),
        ("Could you add a note called \"{index}\" to \"{folder}\" in Markor that names every other note in "
         "that folder (alphabetically, one name per line)?"),
        "Markor: new note \"{index}\" inside \"{folder}\" listing that folder's other notes A-Z, one per line.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"folder": rng.choice(FOLDERS), "index": rng.choice(("Index", "Contents", "Overview")),
                "notes": rng.sample(NOTE_NAMES, rng.randint(3, 4))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        d = note_path(params["folder"])
        if st.exists(phone, d):
            st.delete(phone, d, recursive=True)
        for name in params["notes"]:
            write_note(phone, name + ".md", f"# {name}", params["folder"])
        for e in notes_named(phone, params["index"]):
            st.delete(phone, e.path)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        d = note_path(params["folder"])
        if not st.is_dir(phone, d):
            return 0.0
        others = sorted(e.name for e in st.list_dir(phone, d, show_hidden=True)
                        if stem(e.name) != params["index"])
        lines = [without_ext(x) or "" for x in note_lines(one_note(phone, params["index"], params["folder"]))]
        ok = others == sorted(n + ".md" for n in params["notes"]) and \
            [x.strip() for x in lines] == sorted(n.lower() for n in params["notes"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        text = "\n".join(sorted(params["notes"]))
        if notes_named(phone, params["index"], params["folder"]):
            return open_note(phone, obs, params["index"], params["folder"]) or edit_text(phone, obs, text)
        return to_folder(phone, obs, params["folder"]) or new_item(phone, obs, params["index"], folder=False)


@register_task
class PrefixNotesInFolder(NoteTask):
    name = "notes_prefix_folder_notes"
    complexity = 3
    optimal_steps = 13
    goal_template = ("In Markor, rename every note in the folder \"{folder}\" so its name starts with "
                     "\"{prefix}\" (for example \"{example}\" becomes \"{prefix}{example}\"); notes elsewhere "
                     "keep their names.")
    goal_phrasings = (
        ("Could you put \"{prefix}\" in front of the name of each note in my Markor folder \"{folder}\"? "
         "So \"{example}\" turns into \"{prefix}{example}\"; don't rename anything outside it."),
        ("Markor folder \"{folder}\": prefix all the note names with \"{prefix}\" (\"{example}\" -> "
         "\"{prefix}{example}\")."),
        ("Add \"{prefix}\" to the start of every note name inside \"{folder}\" in Markor, like "
         "\"{prefix}{example}\" for \"{example}\"."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        names = rng.sample(NOTE_NAMES, rng.randint(2, 3) + 1)
        return {"folder": rng.choice(FOLDERS), "prefix": rng.choice(("2023 ", "Old ", "Done - ", "Archived ")),
                "notes": names[:-1], "example": names[0], "outside": names[-1]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        d = note_path(params["folder"])
        if st.exists(phone, d):
            st.delete(phone, d, recursive=True)
        for name in params["notes"]:
            write_note(phone, name + ".md", f"# {name}", params["folder"])
        write_note(phone, params["outside"] + ".md", f"# {params['outside']}")  # a root note: keeps its name

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        d = note_path(params["folder"])
        names = sorted(e.name for e in st.list_dir(phone, d, show_hidden=True)) if st.is_dir(phone, d) else None
        p = params["prefix"]
        ok = names == sorted(p + n + ".md" for n in params["notes"]) and \
            all(same_text(one_note(phone, p + n, params["folder"]), f"# {n}") for n in params["notes"]) and \
            same_text(one_note(phone, params["outside"]), f"# {params['outside']}")
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        p = params["prefix"]
        left = [n for n in params["notes"] if st.exists(phone, note_path(n + ".md", params["folder"]))]
        if not left:  # changed in some other way: nothing this oracle can repair from here
            return COMPLETE
        return rename_action(phone, obs, left[0] + ".md", p + left[0] + ".md", params["folder"])


@register_task
class QueryLongerList(NoteTask):
    name = "notes_query_longer_list"
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = ("Which of my Markor notes has more items on its list, \"{a}\" or \"{b}\"? "
                     "Answer with the note's name.")
    goal_phrasings = (
        "Compare my Markor notes \"{a}\" and \"{b}\": which one lists more items?",
        "Could you tell me whether \"{a}\" or \"{b}\" in Markor is the longer list (more items)?",
        "Markor: \"{a}\" vs \"{b}\", which list has more entries?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        a, b = rng.sample(NOTE_NAMES, 2)
        n_a, n_b = rng.sample(range(3, 7), 2)
        return {"a": a, "b": b, "items_a": rng.sample(TEXTS, n_a), "items_b": rng.sample(TEXTS, n_b)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        write_note(phone, params["a"] + ".md", list_body(params["a"], params["items_a"]))
        write_note(phone, params["b"] + ".md", list_body(params["b"], params["items_b"]))

    def winner(self, params: dict[str, Any]) -> tuple[str, str]:
        a_wins = len(params["items_a"]) > len(params["items_b"])
        return (params["a"], params["b"]) if a_wins else (params["b"], params["a"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        win, lose = self.winner(params)
        said = without_ext(answer)
        return 1.0 if answer_matches(said, win) and not answer_matches(said, lose) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        # the answer is read off the longer list's editor (its item count beside the other one's)
        win = self.winner(params)[0]
        return open_note(phone, obs, win) or answer(win)


@register_task
class QueryCommonItem(NoteTask):
    name = "notes_query_common_item"
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "Which item appears on both of my Markor lists \"{a}\" and \"{b}\"?"
    goal_phrasings = (
        "My Markor notes \"{a}\" and \"{b}\" have one item in common. What is it?",
        "Could you compare the lists \"{a}\" and \"{b}\" in Markor and tell me the item they share?",
        "Markor: the entry that is in both \"{a}\" and \"{b}\"?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        a, b = rng.sample(("Market run", "Pantry restock", "Groceries", "Shopping for Sunday"), 2)
        items = rng.sample(GROCERIES, 7)
        common = items[0]
        only_a, only_b = items[1:4], items[4:7]
        list_a, list_b = [common, *only_a], [common, *only_b]
        rng.shuffle(list_a)
        rng.shuffle(list_b)
        return {"a": a, "b": b, "common": common, "list_a": list_a, "list_b": list_b}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        write_note(phone, params["a"] + ".md", list_body(params["a"], params["list_a"]))
        write_note(phone, params["b"] + ".md", list_body(params["b"], params["list_b"]))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        others = [x for x in params["list_a"] + params["list_b"] if x != params["common"]]
        ok = answer_matches(answer, params["common"]) and not any(answer_matches(answer, x) for x in others)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return open_note(phone, obs, params["b"]) or answer(params["common"])


# ---- round 5: acting on search hits, a derived total, the oldest note, content sweeps, yes/no and comparisons ----
TREE_SQL = (f"SELECT path, is_dir, content FROM files WHERE substr(path, 1, {len(MARKOR_DIR) + 1}) = "
            f"'{MARKOR_DIR}/' ORDER BY path")


def markor_tree(rows: list[tuple]) -> dict[str, tuple[int, str | None]]:
    """``TREE_SQL`` rows as {path: (is_dir, content)}."""
    return {r[0]: (int(r[1]), r[2]) for r in rows}


def tree_now(phone: Phone) -> dict[str, tuple[int, str | None]]:
    return markor_tree([tuple(r) for r in phone.query(TREE_SQL)])


def tree_before(phone: Phone, template: TaskTemplate, params: dict[str, Any]) -> dict[str, tuple[int, str | None]]:
    return markor_tree(baseline_rows(phone, template, params, TREE_SQL))


def fresh_folder(phone: Phone, folder: str) -> None:
    """(Re)create the Markor folder ``folder`` empty."""
    d = note_path(folder)
    if st.exists(phone, d):
        st.delete(phone, d, recursive=True)
    st.mkdir(phone, d, parents=True)


@register_task
class MoveSearchHits(NoteTask):
    name = "notes_move_search_hits"
    complexity = 3
    optimal_steps = 14
    goal_template = ("In Markor, move every note whose file name contains \"{word}\", from whichever folder it is "
                     "in, into the folder \"{dest}\"; all other notes and folders stay where they are.")
    goal_phrasings = (
        ("Gather my Markor notes with \"{word}\" in their names into the folder \"{dest}\", wherever they are now; "
         "leave everything else in place."),
        ("Could you find every Markor note named with \"{word}\" (any folder) and move them all to \"{dest}\"? "
         "Nothing else should move."),
        "Markor: all notes whose name contains \"{word}\" -> folder \"{dest}\", from any folder; the rest stays.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        word = rng.choice(SEARCH_WORDS)
        labels = rng.sample(("March", "Q3", "old", "2023", "shared", "draft", "final", "v2"), 3)
        places = rng.sample(("", "") + FOLDERS, 3)
        hits = [[f"{word.capitalize()} {labels[0]}", places[0]], [f"{labels[1]} {word}", places[1]],
                [f"{word.capitalize()} {labels[2]}", places[2]]]
        dest = rng.choice(("Paperwork", "To file", "Sorted"))
        return {"word": word, "dest": dest, "hits": hits, "done": rng.random() < 0.5,
                "other_folder": f"Old {word}s", "keep": rng.choice(NOTE_NAMES)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        fresh_folder(phone, params["dest"])
        fresh_folder(phone, params["other_folder"])  # a folder whose name has the word: it stays
        write_note(phone, "Summary.md", "- see the notes", params["other_folder"])
        write_note(phone, params["keep"] + ".md", f"# {params['keep']}", params["hits"][0][1])
        for i, (name, place) in enumerate(params["hits"]):
            # partly done already: on some phones the last one is in the folder before the task starts
            where = params["dest"] if params["done"] and i == 2 else place
            write_note(phone, name + ".md", f"# {name}\n- {params['word']} details", where)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        before = tree_before(phone, self, params)
        want = dict(before)
        for path, (is_dir, text) in before.items():
            if not is_dir and params["word"] in posixpath.basename(path).lower():
                del want[path]
                want[note_path(posixpath.basename(path), params["dest"])] = (is_dir, text)
        return 1.0 if tree_now(phone) == want else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        dest = note_path(params["dest"])
        left = [e for e in st.walk(phone, MARKOR_DIR) if not e.is_dir and params["word"] in e.name.lower()
                and e.parent != dest]
        if not left:  # changed in some other way: nothing this oracle can repair from here
            return COMPLETE
        e = left[0]
        here = "" if e.parent == MARKOR_DIR else e.parent[len(MARKOR_DIR) + 1:]
        dlg = phone.dialog
        if phone.foreground == KEY and dlg is not None and dlg.name == "choice" \
                and dlg.data.get("args", {}).get("path") == e.path:
            return click_or_scroll(phone, obs, text="Markor/" + params["dest"])
        return select_item(phone, obs, e.name, here) or click(obs, desc="Move") or BACK


EXPENSE_NOTES = ("Trip costs", "Party budget", "Moving costs", "Bike parts")
EXPENSE_ITEMS = ("Train tickets", "Hotel", "Snacks", "Museum", "Taxi", "Decorations", "Cake", "Boxes", "Van rental",
                 "Tape", "Chain", "Brake pads")


def expense_body(title: str, items: list[list[Any]]) -> str:
    return f"# {title}\n" + "\n".join(f"- {label}: {amount}" for label, amount in items)


@register_task
class AppendTotal(NoteTask):
    name = "notes_append_total"
    complexity = 3
    optimal_steps = 5
    goal_template = ("My Markor note \"{note}\" lists amounts. Add a last line \"Total: \" followed by the sum of "
                     "all the amounts in it (just the number, e.g. \"Total: 42\"); leave the other lines as they are.")
    goal_phrasings = (
        ("Add up the amounts in my Markor note \"{note}\" and write the result at the bottom as a new line "
         "\"Total: \" plus the number (for example \"Total: 42\"). Don't change the existing lines."),
        ("Could you total the amounts listed in \"{note}\" in Markor? Put it in a final line like \"Total: 42\", "
         "after the other lines."),
        "Markor note \"{note}\": append \"Total: <sum of its amounts>\" as the last line (e.g. \"Total: 42\").",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        note = rng.choice(EXPENSE_NOTES)
        labels = rng.sample(EXPENSE_ITEMS, 7)
        items = [[lab, rng.randint(5, 120)] for lab in labels[:rng.randint(3, 5)]]
        other = [[lab, rng.randint(5, 120)] for lab in labels[5:]]
        return {"note": note, "items": items, "old_note": f"{note} 2023", "old_items": other}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        write_note(phone, params["note"] + ".md", expense_body(params["note"], params["items"]))
        # a look-alike from last year with other amounts: it stays as it is
        write_note(phone, params["old_note"] + ".md", expense_body(params["old_note"], params["old_items"]))

    def total(self, params: dict[str, Any]) -> int:
        return sum(a for _, a in params["items"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        before, now = tree_before(phone, self, params), tree_now(phone)
        path = note_path(params["note"] + ".md")
        if set(now) != set(before) or any(now[p] != before[p] for p in before if p != path):
            return 0.0
        lines = [x.rstrip() for x in (now[path][1] or "").strip().splitlines()]
        body = expense_body(params["note"], params["items"]).splitlines()
        if len(lines) != len(body) + 1 or lines[:-1] != body:
            return 0.0
        m = re.fullmatch(r"\s*total\s*:?\s*\$?\s*([0-9][0-9,]*(?:\.0+)?)\s*", lines[-1], re.IGNORECASE)
        ok = m is not None and float(m.group(1).replace(",", "")) == self.total(params)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        text = expense_body(params["note"], params["items"]) + f"\nTotal: {self.total(params)}"
        return open_note(phone, obs, params["note"]) or edit_text(phone, obs, text)


@register_task
class DeleteOldestNote(NoteTask):
    name = "notes_delete_oldest_note"
    complexity = 2
    optimal_steps = 6
    goal_template = ("In the Markor folder \"{folder}\", delete the note that was modified longest ago; "
                     "keep all the others.")
    goal_phrasings = (
        "Remove the oldest note (by last-modified date) from my Markor folder \"{folder}\", only that one.",
        "Could you delete whichever note in \"{folder}\" in Markor was changed least recently?",
        "Markor, folder \"{folder}\": delete the least recently modified note; the rest stays.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        names = rng.sample(NOTE_NAMES, 5)
        days = rng.sample(range(3, 90), 4)
        return {"folder": rng.choice(FOLDERS), "notes": [[n, d] for n, d in zip(names[:4], days)],
                "outside": names[4], "outside_days": max(days) + rng.randint(5, 30)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        from datetime import timedelta

        fresh_folder(phone, params["folder"])
        for name, days in params["notes"]:
            st.write_file(phone, note_path(name + ".md", params["folder"]), f"# {name}",
                          modified=phone.now - timedelta(days=days, hours=2))
        for e in notes_named(phone, params["outside"]):
            st.delete(phone, e.path)
        # older still, but in the Markor root: it stays
        st.write_file(phone, note_path(params["outside"] + ".md"), f"# {params['outside']}",
                      modified=phone.now - timedelta(days=params["outside_days"]))

    def oldest(self, params: dict[str, Any]) -> str:
        return max(params["notes"], key=lambda nd: nd[1])[0]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = tree_before(phone, self, params)
        want.pop(note_path(self.oldest(params) + ".md", params["folder"]), None)
        return 1.0 if tree_now(phone) == want else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        name = self.oldest(params)
        if not notes_named(phone, name, params["folder"]):  # changed in some other way
            return COMPLETE
        return delete_action(phone, obs, name + ".md", params["folder"])


PHRASES = ("the plumber", "Aunt Rosa", "the spare key", "the insurance claim")


@register_task
class DeleteNotesMentioning(NoteTask):
    name = "notes_delete_notes_mentioning"
    complexity = 3
    optimal_steps = 12
    goal_template = ("In my Markor folder \"{folder}\", delete every note that mentions \"{phrase}\" in its text; "
                     "keep the other notes.")
    goal_phrasings = (
        "Could you remove all the notes in the Markor folder \"{folder}\" whose text mentions \"{phrase}\"?",
        ("I'm done with everything about \"{phrase}\": delete each note in my \"{folder}\" folder in Markor that "
         "talks about it, and nothing else."),
        "Markor folder \"{folder}\": delete the notes containing \"{phrase}\"; the others stay.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        names = rng.sample(NOTE_NAMES, 6)
        phrase, other = rng.sample(PHRASES, 2)
        n_hit = rng.randint(2, 3)
        lines = rng.sample(TEXTS, 6)
        notes = [[n, f"# {n}\n- {lines[i]}\n- Ask about {phrase if i < n_hit else other}"]
                 for i, n in enumerate(names[:5])]
        rng.shuffle(notes)
        return {"folder": rng.choice(FOLDERS), "phrase": phrase, "notes": notes,
                "hits": [n for n, body in notes if phrase in body],
                "outside": [names[5], f"# {names[5]}\n- Ask about {phrase}"]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        fresh_folder(phone, params["folder"])
        for name, body in params["notes"]:
            write_note(phone, name + ".md", body, params["folder"])
        write_note(phone, params["outside"][0] + ".md", params["outside"][1])  # in the root: it stays

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = tree_before(phone, self, params)
        for name in params["hits"]:
            want.pop(note_path(name + ".md", params["folder"]), None)
        return 1.0 if tree_now(phone) == want else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        left = [n for n in params["hits"] if notes_named(phone, n, params["folder"])]
        if not left:  # changed in some other way: nothing this oracle can repair from here
            return COMPLETE
        return delete_action(phone, obs, notes_named(phone, left[0], params["folder"])[0].name, params["folder"])


LIST_NOTES = ("Market run", "Pantry restock", "Groceries", "Shopping for Sunday")


@register_task
class QueryItemOnList(NoteTask):
    name = "notes_query_item_on_list"
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "Is \"{item}\" on my Markor list \"{note}\"? Answer yes or no."
    goal_phrasings = (
        "Did I put \"{item}\" on my \"{note}\" list in Markor? Just yes or no.",
        "Could you check whether my Markor note \"{note}\" has \"{item}\" on it? Answer yes or no.",
        "Markor, \"{note}\": is \"{item}\" listed? yes/no",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        note, other = rng.sample(LIST_NOTES, 2)
        items = rng.sample(GROCERIES, 7)
        item = items[0]
        on_it = rng.random() < 0.5
        mine, theirs = items[1:4], items[4:7]
        (mine if on_it else theirs).append(item)
        rng.shuffle(mine)
        rng.shuffle(theirs)
        return {"note": note, "item": item, "items": mine, "other_note": other, "other_items": theirs,
                "on_list": on_it}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        write_note(phone, params["note"] + ".md", list_body(params["note"], params["items"]))
        write_note(phone, params["other_note"] + ".md", list_body(params["other_note"], params["other_items"]))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want, wrong = ("yes", "no") if params["on_list"] else ("no", "yes")
        return 1.0 if answer_matches(answer, want) and not answer_matches(answer, wrong) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return open_note(phone, obs, params["note"]) or answer("yes" if params["on_list"] else "no")


@register_task
class QueryFolderWithMoreNotes(NoteTask):
    name = "notes_query_folder_with_more_notes"
    kind = "query"
    complexity = 2
    optimal_steps = 3
    goal_template = "Which of my Markor folders holds more notes, \"{a}\" or \"{b}\"? Answer with the folder name."
    goal_phrasings = (
        "In Markor, does \"{a}\" or \"{b}\" contain more notes? Tell me the folder.",
        "Could you compare my Markor folders \"{a}\" and \"{b}\" and say which one has more notes in it?",
        "Markor: more notes in \"{a}\" or in \"{b}\"?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        a, b = rng.sample(FOLDERS, 2)
        n_a, n_b = rng.sample(range(1, 6), 2)
        names = list(NOTE_NAMES)
        return {"a": a, "b": b, "notes_a": rng.sample(names, n_a), "notes_b": rng.sample(names, n_b)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for key in ("a", "b"):
            fresh_folder(phone, params[key])
            for name in params["notes_" + key]:
                write_note(phone, name + ".md", f"# {name}", params[key])

    def winner(self, params: dict[str, Any]) -> tuple[str, str]:
        a_wins = len(params["notes_a"]) > len(params["notes_b"])
        return (params["a"], params["b"]) if a_wins else (params["b"], params["a"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        win, lose = self.winner(params)
        return 1.0 if answer_matches(answer, win) and not answer_matches(answer, lose) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        # both folders' rows in the Markor root show how many items each holds
        return to_folder(phone, obs) or answer(self.winner(params)[0])
