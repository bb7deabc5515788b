"""Files app tasks: create folders, delete / rename / move / copy files, and questions about files.

Checkers diff the shared ``files`` table against the task's initial state (a fresh phone of the
same seed with the set-up applied), so moving to the wrong folder, deleting a neighbour too or
leaving a copy behind fails. Oracles browse from whatever screen is showing.
"""

from __future__ import annotations

import posixpath
import random
import re
from datetime import datetime, timedelta
from typing import Any, ClassVar

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim import storage
from droidverify.env.sim.apps.files import short_date
from droidverify.env.sim.phone import Phone
from droidverify.env.sim.storage import ROOT
from droidverify.errors import TaskError
from droidverify.tasks.base import TaskTemplate
from droidverify.tasks.helpers import (
    BACK,
    COMPLETE,
    answer,
    answer_matches,
    baseline_rows,
    click,
    click_in,
    diff_rows,
    find,
    normalize_answer,
    open_app,
    scroll_toward,
    type_in,
)
from droidverify.tasks.registry import register_task

APP = "files"
FILES_SQL = "SELECT path, is_dir, size FROM files ORDER BY path"

# (folder, file name, min kB, max kB) planted by set-ups; none collides with the seeded files.
PLANTS: tuple[tuple[str, str, int, int], ...] = (
    ("Download", "Invoice_ACME_0923.pdf", 80, 900), ("Documents", "Project_plan.docx", 20, 400),
    ("Download", "holiday_itinerary.pdf", 60, 700), ("Documents", "Meeting_minutes.txt", 2, 30),
    ("Pictures", "family_portrait.jpg", 1500, 4800), ("Download", "setup_guide.pdf", 300, 2500),
    ("Documents", "budget_q3.xlsx", 15, 120), ("Music", "Voice_memo_0412.m4a", 400, 3000),
    ("Download", "concert_poster.png", 200, 1800), ("Documents", "cover_letter.docx", 12, 90),
)
FOLDER_NAMES = ("Receipts", "Travel 2024", "Tax documents", "Work", "Recipes", "Old photos", "Invoices",
                "School", "Car", "Wedding")
DESTS = ("Documents", "Download", "Pictures", "Music", "Movies")


def rel(path: str) -> str:
    return path[len(ROOT) + 1:] if path.startswith(ROOT + "/") else ""


def absolute(relpath: str) -> str:
    return ROOT if not relpath else f"{ROOT}/{relpath}"


def files_diff(phone: Phone, template: TaskTemplate, params: dict[str, Any]):
    return diff_rows(baseline_rows(phone, template, params, FILES_SQL), [tuple(r) for r in phone.query(FILES_SQL)])


def plant(phone: Phone, folder: str, name: str, size: int, days_ago: int = 3) -> str:
    path = f"{ROOT}/{folder}/{name}"
    storage.write_file(phone, path, None, size=size, modified=phone.now - timedelta(days=days_ago, hours=2),
                       parents=True)
    return path


_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*(bytes|byte|b|kb|mb|gb)\b", re.IGNORECASE)
_UNIT = {"b": 1, "byte": 1, "bytes": 1, "kb": 1000, "mb": 1000**2, "gb": 1000**3}


def size_matches(text: str | None, nbytes: int) -> bool:
    """Whether an answer states ``nbytes`` as the app shows it ("1.4 MB", "1.4MB") or exactly in bytes."""
    if not text:
        return False
    shown = storage.human_size(nbytes)
    for m in _SIZE.finditer(text.replace(",", "")):
        value, unit = float(m.group(1)), _UNIT[m.group(2).lower()]
        if unit == 1 and int(value) == nbytes:
            return True
        if storage.human_size(round(value * unit)) == shown and shown.split()[1].lower() == m.group(2).lower():
            return True
    return False


# ---- oracle helpers ---------------------------------------------------------------------------------
def browse_to(phone: Phone, obs: Observation, folder: str, *, keep_selection: bool = False) -> Action | None:
    """Next action toward the browser showing ``folder`` (absolute); None once there."""
    if phone.foreground != APP:
        return open_app(phone, APP)
    scr = phone.screen
    assert scr is not None
    if phone.dialog is not None or scr.name != "main":
        return BACK
    cur = scr.state.get("path", ROOT)
    if phone.menu_open and cur != folder:
        return BACK
    if scr.state.get("selected") and not (keep_selection and cur == folder):
        return BACK
    if cur == folder:
        return None  # (an open ⋮ menu is left to the caller)
    if folder.startswith(cur + "/"):
        nxt = folder[len(cur) + 1:].split("/")[0]
        return item(phone, obs, nxt)
    return BACK


def item(phone: Phone, obs: Observation, name: str, *, long: bool = False) -> Action:
    """Tap (or long-press) the row called ``name``, scrolling to it first."""
    i = find(obs, text=name, resource_id="item")
    if i is not None:
        return Action(action_type="long_press" if long else "click", index=i)
    act = scroll_toward(phone, obs, text=name, resource_id="item")
    if act is None:
        raise TaskError(f"oracle: no row {name!r} on {phone.location}")
    return act


def select_only(phone: Phone, obs: Observation, paths: list[str]) -> Action | None:
    """With the browser on the right folder: make the selection exactly ``paths``; None once so."""
    scr = phone.screen
    assert scr is not None
    sel = scr.state.get("selected", [])
    if set(sel) == set(paths):
        return None
    extra = [p for p in sel if p not in paths]
    if extra:
        return item(phone, obs, posixpath.basename(extra[0]))
    missing = [p for p in paths if p not in sel]
    return item(phone, obs, posixpath.basename(missing[0]), long=not sel)


def selection_action(phone: Phone, obs: Observation, paths: list[str], menu_item: str | None = None,
                     desc: str | None = None) -> Action:
    """Select ``paths`` (all in one folder) and run a selection-mode action (toolbar icon or ⋮ item)."""
    folder = posixpath.dirname(paths[0])
    step = browse_to(phone, obs, folder, keep_selection=True) or select_only(phone, obs, paths)
    if step is not None:
        return step
    if desc is not None:
        return click(obs, desc=desc) or BACK
    if phone.menu_open:
        return click_in(obs, "menu", text=menu_item) or BACK
    return click(obs, desc="More options") or BACK


def delete_action(phone: Phone, obs: Observation, paths: list[str]) -> Action:
    dlg = phone.dialog
    if phone.foreground == APP and dlg is not None and dlg.name == "confirm" \
            and set(dlg.data.get("args", {}).get("paths", [])) == set(paths):
        return click_in(obs, "dialog", text="Delete", resource_id="button1") or BACK
    return selection_action(phone, obs, paths, desc="Delete")


def transfer_action(phone: Phone, obs: Observation, paths: list[str], dest: str, mode: str) -> Action:
    """Move or copy ``paths`` into folder ``dest`` via the destination picker."""
    scr = phone.screen
    if phone.foreground == APP and scr is not None and scr.name == "picker" and phone.dialog is None \
            and scr.args.get("mode") == mode and set(scr.args.get("sources", [])) == set(paths):
        cur = scr.state.get("path", ROOT)
        if cur == dest:
            return click(obs, resource_id="btn_confirm") or BACK
        if dest.startswith(cur + "/"):
            return item(phone, obs, dest[len(cur) + 1:].split("/")[0])
        return BACK
    return selection_action(phone, obs, paths, menu_item="Move to\u2026" if mode == "move" else "Copy to\u2026")


def rename_action(phone: Phone, obs: Observation, path: str, new_name: str) -> Action:
    dlg = phone.dialog
    if phone.foreground == APP and dlg is not None and dlg.name == "text_input" \
            and dlg.data.get("args", {}).get("path") == path:
        if dlg.data.get("fields", {}).get("value", dlg.data.get("value")) != new_name:
            return type_in(obs, new_name, resource_id="edit") or BACK
        return click_in(obs, "dialog", text="Rename", resource_id="button1") or BACK
    return selection_action(phone, obs, [path], menu_item="Rename")


def new_folder_action(phone: Phone, obs: Observation, parent: str, name: str) -> Action:
    dlg = phone.dialog
    if phone.foreground == APP and dlg is not None and dlg.name == "text_input" \
            and dlg.data.get("args", {}).get("path") == parent and dlg.data.get("on_ok") == "create_folder":
        if dlg.data.get("fields", {}).get("value", "") != name:
            return type_in(obs, name, resource_id="edit") or BACK
        return click_in(obs, "dialog", text="Create", resource_id="button1") or BACK
    step = browse_to(phone, obs, parent)
    if step is not None:
        return step
    if phone.menu_open:
        return click_in(obs, "menu", text="New folder") or BACK
    return click(obs, desc="More options") or BACK


def show_rows(phone: Phone, obs: Observation, folder: str, names: list[str]) -> Action | None:
    """Browse to ``folder`` and scroll until every name is on screen (or all were seen); None when done."""
    step = browse_to(phone, obs, folder)
    if step is not None:
        return step
    for n in names:
        if find(obs, text=n, resource_id="item") is None:
            return scroll_toward(phone, obs, text=n, resource_id="item")
    return None


# ---- operation templates ----------------------------------------------------------------------------
class PlantTemplate(TaskTemplate):
    """Templates about one planted file."""

    apps = ("Files",)
    complexity = 2

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        folder, name, lo, hi = rng.choice(PLANTS)
        return {"folder": folder, "name": name, "size": rng.randint(lo, hi) * 1000 + rng.randint(0, 999)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        plant(phone, params["folder"], params["name"], params["size"])

    def src(self, params: dict[str, Any]) -> str:
        return f"{ROOT}/{params['folder']}/{params['name']}"


@register_task
class DeleteFile(PlantTemplate):
    name = "files_delete_file"
    optimal_steps = 6
    goal_template = "Using the Files app, delete the file {name} from the {folder} folder."
    goal_phrasings = (
        "Could you remove {name} from my {folder} folder?",
        "Delete {name} in {folder} (Files app).",
        "In Files, get rid of {name}, which is in {folder}.",
    )

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = files_diff(phone, self, params)
        return 1.0 if not added and not changed and [r[0] for r in removed] == [self.src(params)] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return delete_action(phone, obs, [self.src(params)])


@register_task
class RenameFile(PlantTemplate):
    name = "files_rename_file"
    optimal_steps = 8
    goal_template = "In Files, rename {name} in {folder} to {new_name}."
    goal_phrasings = (
        "Could you change the name of {name} (in {folder}) to {new_name} using the Files app?",
        "Rename {folder}/{name} to {new_name}.",
        "{name} in the {folder} folder should be called {new_name}; please rename it in Files.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = super().generate_params(rng)
        stem, ext = posixpath.splitext(p["name"])
        p["new_name"] = rng.choice(("final_", "old_", "copy_of_", "2024_")) + stem.lower() + ext
        return p

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = files_diff(phone, self, params)
        new = f"{ROOT}/{params['folder']}/{params['new_name']}"
        ok = not changed and [r[0] for r in removed] == [self.src(params)] and \
            [(r[0], r[2]) for r in added] == [(new, params["size"])]
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return rename_action(phone, obs, self.src(params), params["new_name"])


class TransferTemplate(PlantTemplate):
    complexity = 3
    mode: ClassVar[str]

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = super().generate_params(rng)
        p["dest"] = rng.choice([d for d in DESTS if d != p["folder"]])
        return p

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = files_diff(phone, self, params)
        want_removed = [self.src(params)] if self.mode == "move" else []
        dst = f"{ROOT}/{params['dest']}/{params['name']}"
        ok = not changed and [r[0] for r in removed] == want_removed and \
            [(r[0], r[2]) for r in added] == [(dst, params["size"])]
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return transfer_action(phone, obs, [self.src(params)], f"{ROOT}/{params['dest']}", self.mode)


@register_task
class MoveFile(TransferTemplate):
    name = "files_move_file"
    mode = "move"
    optimal_steps = 9
    goal_template = "Move the file {name} from {folder} to the {dest} folder using Files."
    goal_phrasings = (
        "In Files, put {name} into {dest}; it's currently in {folder}.",
        "Could you move {name} out of {folder} and into {dest}?",
        "Move {folder}/{name} to {dest}.",
    )


@register_task
class CopyFile(TransferTemplate):
    name = "files_copy_file"
    mode = "copy"
    optimal_steps = 9
    goal_template = "Make a copy of {name} (in {folder}) in the {dest} folder, keeping the original."
    goal_phrasings = (
        "Copy {name} from {folder} to {dest} with the Files app; don't move it.",
        "Could you put a copy of {folder}/{name} in {dest}? The original should stay where it is.",
        "I need {name} in {dest} too: copy it there from {folder}.",
    )


@register_task
class CreateFolder(TaskTemplate):
    name = "files_create_folder"
    apps = ("Files",)
    complexity = 2
    optimal_steps = 7
    goal_template = "Create a new folder called \"{folder_name}\" in {parent_label} with the Files app."
    goal_phrasings = (
        "In Files, make a folder named \"{folder_name}\" in {parent_label}.",
        "Could you add a new folder \"{folder_name}\" to {parent_label}?",
        "New folder \"{folder_name}\" in {parent_label}, please.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        parent = rng.choice(("", "Documents", "Download", "Pictures"))
        return {"folder_name": rng.choice(FOLDER_NAMES), "parent": parent,
                "parent_label": f"the {parent} folder" if parent else "internal storage (the top level)"}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        path = f"{absolute(params['parent'])}/{params['folder_name']}"
        if storage.exists(phone, path):
            storage.delete(phone, path, recursive=True)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = files_diff(phone, self, params)
        want = (f"{absolute(params['parent'])}/{params['folder_name']}", 1)
        return 1.0 if not removed and not changed and [(r[0], r[1]) for r in added] == [want] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return new_folder_action(phone, obs, absolute(params["parent"]), params["folder_name"])


@register_task
class CreateFolderAndMove(TaskTemplate):
    name = "files_create_folder_and_move"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 16
    goal_template = ("In Files, create a folder \"{folder_name}\" inside Documents and move {name} from "
                     "Download into it.")
    goal_phrasings = (
        "Make a new folder \"{folder_name}\" in Documents, then move {name} there from Download.",
        "Could you move {name} out of Download into a new Documents folder called \"{folder_name}\"?",
        ("Using the Files app, put {name} (now in Download) into a folder \"{folder_name}\" that you create "
         "inside Documents."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        _, name, lo, hi = rng.choice([p for p in PLANTS if p[0] == "Download"])
        return {"folder_name": rng.choice(FOLDER_NAMES), "name": name, "size": rng.randint(lo, hi) * 1000}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        plant(phone, "Download", params["name"], params["size"])
        path = f"{ROOT}/Documents/{params['folder_name']}"
        if storage.exists(phone, path):
            storage.delete(phone, path, recursive=True)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = files_diff(phone, self, params)
        folder = f"{ROOT}/Documents/{params['folder_name']}"
        ok = not changed and [r[0] for r in removed] == [f"{ROOT}/Download/{params['name']}"] and \
            sorted((r[0], r[1]) for r in added) == [(folder, 1), (f"{folder}/{params['name']}", 0)]
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        folder = f"{ROOT}/Documents/{params['folder_name']}"
        if not storage.exists(phone, folder):
            return new_folder_action(phone, obs, f"{ROOT}/Documents", params["folder_name"])
        return transfer_action(phone, obs, [f"{ROOT}/Download/{params['name']}"], folder, "move")


@register_task
class DeleteScreenshots(TaskTemplate):
    name = "files_delete_screenshots"
    apps = ("Files",)
    complexity = 2
    optimal_steps = 9
    goal_template = "Free up space: delete all the screenshots in Pictures/Screenshots (keep the folder itself)."
    goal_phrasings = (
        "Delete every screenshot in Pictures/Screenshots, but leave the Screenshots folder in place.",
        "Could you clear out my screenshots? Remove the files in Pictures/Screenshots, not the folder.",
        "Empty the Pictures/Screenshots folder in Files (keep the folder).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        storage.seed_common_files(phone)  # the screenshots come from the shared seed

    def targets(self, phone: Phone, params: dict[str, Any]) -> list[str]:
        folder = f"{ROOT}/Pictures/Screenshots/"
        return sorted(r[0] for r in baseline_rows(phone, self, params, FILES_SQL) if r[0].startswith(folder))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = files_diff(phone, self, params)
        want = self.targets(phone, params)
        return 1.0 if want and not added and not changed and sorted(r[0] for r in removed) == want else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        left = [p for p in self.targets(phone, params) if storage.exists(phone, p)]
        return delete_action(phone, obs, left)


@register_task
class DeleteFolder(TaskTemplate):
    name = "files_delete_folder"
    apps = ("Files",)
    complexity = 2
    optimal_steps = 7
    goal_template = "Delete the folder \"{folder_name}\" in Documents, including everything in it."
    goal_phrasings = (
        "In Files, remove the Documents folder \"{folder_name}\" and all of its contents.",
        "Could you delete \"{folder_name}\" (a folder in Documents) together with the files inside?",
        "Get rid of the whole \"{folder_name}\" folder under Documents.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"folder_name": rng.choice(("Old backups", "Temp", "Scans 2022", "Unsorted")),
                "files": rng.sample(["scan_001.pdf", "scan_002.pdf", "notes.txt", "photo.jpg", "data.csv"], 3)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, f in enumerate(params["files"]):
            plant(phone, f"Documents/{params['folder_name']}", f, 10_000 + 7_919 * i, days_ago=40 + i)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = files_diff(phone, self, params)
        folder = f"{ROOT}/Documents/{params['folder_name']}"
        want = sorted([folder] + [f"{folder}/{f}" for f in params["files"]])
        return 1.0 if not added and not changed and sorted(r[0] for r in removed) == want else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return delete_action(phone, obs, [f"{ROOT}/Documents/{params['folder_name']}"])


# ---- query templates ----------------------------------------------------------------------------------
class FileQuery(TaskTemplate):
    apps = ("Files",)
    kind = "query"
    complexity = 1
    folder: ClassVar[str] = "Download"

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        pass

    def entries(self, phone: Phone, params: dict[str, Any]) -> list[storage.FileEntry]:
        return storage.list_dir(phone, f"{ROOT}/{self.folder}")

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        raise NotImplementedError

    def check(self, phone: Phone, params: dict[str, Any], text: str) -> bool:
        return answer_matches(text, self.expected(phone, params))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer is not None and self.check(phone, params, answer) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = show_rows(phone, obs, f"{ROOT}/{self.folder}", [e.name for e in self.entries(phone, params)][-1:])
        return step or answer(self.expected(phone, params))


@register_task
class QueryPdfCount(FileQuery):
    name = "files_query_pdf_count"
    optimal_steps = 4
    goal_template = "How many PDF files are in the Download folder?"
    goal_phrasings = (
        "Count the PDFs in Download and tell me the number.",
        "Could you check how many PDF documents my Download folder has?",
        "Number of .pdf files in Download?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"extra": rng.sample([p[1] for p in PLANTS if p[1].endswith(".pdf")], rng.randint(0, 2))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, name in enumerate(params["extra"]):
            plant(phone, "Download", name, 150_000 + 10_007 * i)

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        return str(sum(1 for e in self.entries(phone, params) if e.name.lower().endswith(".pdf")))

    def check(self, phone: Phone, params: dict[str, Any], text: str) -> bool:
        return answer_matches(text, self.expected(phone, params)) and len(re.findall(r"\d+", text)) == 1


@register_task
class QueryPhotoCount(QueryPdfCount):
    name = "files_query_photo_count"
    folder = "DCIM/Camera"
    optimal_steps = 5
    goal_template = "How many photos are in the DCIM/Camera folder?"
    goal_phrasings = (
        "Count the pictures in DCIM/Camera.",
        "Could you tell me how many photos my camera folder (DCIM/Camera) holds?",
        "Number of photos in DCIM/Camera?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        pass

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        return str(sum(1 for e in self.entries(phone, params) if e.mime.startswith("image/")))


@register_task
class QueryFileSize(PlantTemplate):
    name = "files_query_file_size"
    kind = "query"
    complexity = 1
    optimal_steps = 4
    goal_template = "What is the size of the file {name} in {folder}? Answer as the Files app shows it."
    goal_phrasings = (
        "How big is {name} in the {folder} folder? Give the size the Files app shows.",
        "Could you check the file size of {folder}/{name} in Files?",
        "Size of {name} ({folder})? Reply with the size as shown in Files.",
    )

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if not storage.exists(phone, self.src(params)):
            return 0.0
        return 1.0 if size_matches(answer, storage.stat(phone, self.src(params)).size) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = show_rows(phone, obs, f"{ROOT}/{params['folder']}", [params["name"]])
        return step or answer(storage.human_size(storage.stat(phone, self.src(params)).size))


@register_task
class QueryNewestPhoto(FileQuery):
    name = "files_query_newest_photo"
    folder = "DCIM/Camera"
    complexity = 2
    optimal_steps = 6
    goal_template = "What is the file name of the most recent photo in DCIM/Camera?"
    goal_phrasings = (
        "Which photo in DCIM/Camera was taken last? Give me its file name.",
        "Could you find the newest picture in the camera folder (DCIM/Camera) and tell me its name?",
        "Latest photo in DCIM/Camera: what's the file called?",
    )

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        photos = [e for e in self.entries(phone, params) if not e.is_dir]
        return max(photos, key=lambda e: (e.modified, e.name)).name

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = show_rows(phone, obs, f"{ROOT}/{self.folder}", [self.expected(phone, params)])
        return step or answer(self.expected(phone, params))


@register_task
class QueryLargestSong(FileQuery):
    name = "files_query_largest_in_music"
    folder = "Music"
    complexity = 2
    optimal_steps = 4
    goal_template = "Which file in the Music folder is the largest? Answer with its file name."
    goal_phrasings = (
        "What's the biggest file in Music? Just the file name.",
        "Could you find the largest file in my Music folder and tell me its name?",
        "Largest file in Music, by size: which one is it?",
    )

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        files = [e for e in self.entries(phone, params) if not e.is_dir]
        return max(files, key=lambda e: (e.size, e.name)).name


@register_task
class QueryLocateFile(TaskTemplate):
    name = "files_query_locate_file"
    apps = ("Files",)
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = "I can't find {name}. Which folder is it in? Answer with the folder name."
    goal_phrasings = (
        "Where is {name} stored? Tell me the name of its folder.",
        "Could you search my files for {name} and tell me which folder holds it?",
        "Which folder contains {name}?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name = rng.choice(("passport_scan.pdf", "insurance_card.jpg", "wifi_password.txt", "lease_signed.pdf",
                           "vaccination_record.pdf"))
        parent = rng.choice(("Documents", "Download", "Pictures"))
        return {"name": name, "folder": f"{parent}/{rng.choice(FOLDER_NAMES)}"}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        plant(phone, params["folder"], params["name"], 245_760, days_ago=12)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        hits = [e for e in storage.search(phone, params["name"]) if e.name == params["name"]]
        if len(hits) != 1 or answer is None:
            return 0.0
        # a path answer ("Documents/Work") names the folder too
        return 1.0 if answer_matches(answer.replace("/", " "), posixpath.basename(hits[0].parent)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if phone.foreground != APP:
            return open_app(phone, APP)
        scr = phone.screen
        assert scr is not None
        if phone.dialog is not None or phone.menu_open:
            return BACK
        if scr.name == "search":
            if scr.fields.get("query", "") != params["name"]:
                return type_in(obs, params["name"], resource_id="search_src_text") or BACK
            if find(obs, text=params["name"], resource_id="item") is not None:
                return answer(posixpath.basename(params["folder"]))
        if scr.name == "main" and not scr.state.get("selected"):
            return click(obs, desc="Search") or BACK
        return BACK


# ---- more templates: selections by size or type, folders as a whole, duplicates, dates ----------------
def changed_exactly(phone: Phone, template: TaskTemplate, params: dict[str, Any], removed: list[str],
                    added: list[tuple[str, int, int]]) -> bool:
    """Whether, since set-up, exactly ``removed`` paths went and exactly ``added`` (path, is_dir, size) rows came."""
    a, r, c = files_diff(phone, template, params)
    return not c and sorted(x[0] for x in r) == sorted(removed) and sorted(tuple(x) for x in a) == sorted(added)


def tree_rows(phone: Phone, template: TaskTemplate, params: dict[str, Any], folder: str) -> list[tuple]:
    """Starting rows (path, is_dir, size) of ``folder`` and everything below it."""
    return [r for r in baseline_rows(phone, template, params, FILES_SQL)
            if r[0] == folder or r[0].startswith(folder + "/")]


def moved_rows(rows: list[tuple], src: str, dst: str) -> list[tuple[str, int, int]]:
    """``rows`` of folder ``src``'s tree as they read once the folder is at ``dst``."""
    return [(dst + r[0][len(src):], r[1], r[2]) for r in rows]


_MONTH_WORD = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"


def dates_in(text: str) -> set[tuple[int, int, int | None]]:
    """(month, day, year or None) of every date written as "Oct 3, 2024", "3 October", "2024-10-03"."""
    t = text.lower()
    months = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
    out: set[tuple[int, int, int | None]] = set()
    # A day is never the tail or head of an amount or size ("$12.05 March 9": 05 is not a day).
    for m in re.finditer(rf"\b{_MONTH_WORD}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?!\.\d)(?:,?\s+(\d{{4}}))?", t):
        out.add((months.index(m.group(1)) + 1, int(m.group(2)), int(m.group(3)) if m.group(3) else None))
    for m in re.finditer(rf"(?<![\d.,$€£])\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH_WORD}(?:,?\s+(\d{{4}}))?",
                         t):
        out.add((months.index(m.group(2)) + 1, int(m.group(1)), int(m.group(3)) if m.group(3) else None))
    for m in re.finditer(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b", t):
        out.add((int(m.group(2)), int(m.group(3)), int(m.group(1))))
    return out


def date_matches(text: str | None, when: datetime) -> bool:
    """One date is stated and it is ``when``'s day (the year may be left out, not contradicted)."""
    if not text:
        return False
    found = dates_in(text)
    if len({(mo, d) for mo, d, _ in found}) != 1:
        return False
    return all(mo == when.month and d == when.day and y in (None, when.year) for mo, d, y in found)


@register_task
class DeleteLargeDownloads(TaskTemplate):
    name = "files_delete_large_downloads"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 7
    goal_template = "In the Files app, delete every file in Download that is larger than {limit} MB."
    goal_phrasings = (
        "Free up space: remove all files bigger than {limit} MB from my Download folder, and nothing else.",
        "Could you delete the downloads over {limit} MB? Smaller files stay.",
        "Download folder: delete each file above {limit} MB (Files app).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        limit = rng.choice((5, 10, 20))
        # one file well above the limit and one below it; none near it, so the shown sizes decide
        big = rng.choice(("photos_export.zip", "screen_recording.mp4", "offline_maps.zip"))
        small = rng.choice(("presentation_final.pptx", "scanned_contract.pdf", "lecture_slides.pdf"))
        return {"limit": limit, "big": [big, int(limit * 1_000_000 * rng.uniform(1.3, 3.0))],
                "small": [small, int(limit * 1_000_000 * rng.uniform(0.5, 0.85))]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        plant(phone, "Download", params["big"][0], params["big"][1], days_ago=6)
        plant(phone, "Download", params["small"][0], params["small"][1], days_ago=2)

    def targets(self, phone: Phone, params: dict[str, Any]) -> list[str]:
        folder = f"{ROOT}/Download/"
        return sorted(r[0] for r in baseline_rows(phone, self, params, FILES_SQL)
                      if r[0].startswith(folder) and "/" not in r[0][len(folder):] and not r[1]
                      and r[2] > params["limit"] * 1_000_000)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if changed_exactly(phone, self, params, self.targets(phone, params), []) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return delete_action(phone, obs, [p for p in self.targets(phone, params) if storage.exists(phone, p)])


@register_task
class MovePdfsToFolder(TaskTemplate):
    name = "files_move_pdfs_to_folder"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 15
    goal_template = "Using Files, move every PDF in Download into the \"{folder_name}\" folder inside Documents."
    goal_phrasings = (
        "Could you tidy my downloads by moving all the PDF files into \"{folder_name}\" under Documents?",
        "Move all PDFs from Download to the Documents folder \"{folder_name}\"; other files stay put.",
        "With the Files app, put each .pdf file from Download in the \"{folder_name}\" folder of Documents.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        extra = rng.sample([p[1] for p in PLANTS if p[1].endswith(".pdf")], rng.randint(0, 1))
        return {"folder_name": rng.choice(("Receipts", "Invoices", "Tax documents", "School", "Car")),
                "extra": extra, "decoy": rng.choice(("invoice_photo.jpg", "receipt_scan.png", "ticket_notes.txt"))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        storage.mkdir(phone, f"{ROOT}/Documents/{params['folder_name']}", exist_ok=True)
        for i, name in enumerate(params["extra"]):
            plant(phone, "Download", name, 210_000 + 13_001 * i)
        plant(phone, "Download", params["decoy"], 95_000, days_ago=1)  # looks like a receipt, not a PDF

    def pdfs(self, phone: Phone, params: dict[str, Any]) -> list[tuple]:
        folder = f"{ROOT}/Download/"
        return [r for r in baseline_rows(phone, self, params, FILES_SQL) if r[0].startswith(folder)
                and "/" not in r[0][len(folder):] and not r[1] and r[0].lower().endswith(".pdf")]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        dest = f"{ROOT}/Documents/{params['folder_name']}"
        rows = self.pdfs(phone, params)
        added = [(f"{dest}/{posixpath.basename(r[0])}", 0, r[2]) for r in rows]
        return 1.0 if rows and changed_exactly(phone, self, params, [r[0] for r in rows], added) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        left = [r[0] for r in self.pdfs(phone, params) if storage.exists(phone, r[0])]
        return transfer_action(phone, obs, left, f"{ROOT}/Documents/{params['folder_name']}", "move")


@register_task
class QueryModifiedDate(PlantTemplate):
    name = "files_query_modified_date"
    kind = "query"
    complexity = 1
    optimal_steps = 4
    goal_template = "When was {name} in the {folder} folder last modified? Answer with the date."
    goal_phrasings = (
        "Could you check in Files on what date {name} ({folder}) was last changed?",
        "What's the modification date of {folder}/{name}?",
        "Last modified date of {name} in {folder}, please.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = super().generate_params(rng)
        p["days_ago"] = rng.randint(1, 200)
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        plant(phone, params["folder"], params["name"], params["size"], days_ago=params["days_ago"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if not storage.exists(phone, self.src(params)):
            return 0.0
        return 1.0 if date_matches(answer, storage.stat(phone, self.src(params)).modified_dt) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = show_rows(phone, obs, f"{ROOT}/{params['folder']}", [params["name"]])
        return step or answer(short_date(storage.stat(phone, self.src(params)).modified))


@register_task
class RenameFolder(TaskTemplate):
    name = "files_rename_folder"
    apps = ("Files",)
    complexity = 2
    optimal_steps = 8
    goal_template = "In Files, rename the folder \"{folder_name}\" in Documents to \"{new_name}\"."
    goal_phrasings = (
        "Could you change the name of my Documents folder \"{folder_name}\" to \"{new_name}\"?",
        "Rename \"{folder_name}\" (it's in Documents) to \"{new_name}\", keeping everything inside it.",
        "The folder \"{folder_name}\" (in Documents) should be called \"{new_name}\" from now on.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        old = rng.choice(("Scans", "Old backups", "Unsorted", "Photos to print"))
        return {"folder_name": old, "new_name": rng.choice(FOLDER_NAMES),
                "decoy": f"{old} {rng.choice((2022, 2023))}",
                "files": rng.sample(["scan_001.pdf", "notes.txt", "photo.jpg", "data.csv", "letter.docx"], 2)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, f in enumerate(params["files"]):
            plant(phone, f"Documents/{params['folder_name']}", f, 12_000 + 5_003 * i, days_ago=20 + i)
        plant(phone, f"Documents/{params['decoy']}", params["files"][0], 9_000, days_ago=300)  # look-alike folder

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        src, dst = f"{ROOT}/Documents/{params['folder_name']}", f"{ROOT}/Documents/{params['new_name']}"
        rows = tree_rows(phone, self, params, src)
        return 1.0 if changed_exactly(phone, self, params, [r[0] for r in rows], moved_rows(rows, src, dst)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return rename_action(phone, obs, f"{ROOT}/Documents/{params['folder_name']}", params["new_name"])


@register_task
class CopyLatestPhoto(TaskTemplate):
    name = "files_copy_latest_photo"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 11
    goal_template = "Copy the most recent photo in DCIM/Camera to the {dest} folder with the Files app."
    goal_phrasings = (
        "Could you put a copy of my newest camera photo (DCIM/Camera) in {dest}? Keep the original.",
        "Find the latest picture in DCIM/Camera and copy it into {dest}.",
        "{dest} needs a copy of the last photo I took; it's in DCIM/Camera.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"dest": rng.choice(("Pictures", "Documents", "Download"))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        storage.seed_common_files(phone)  # the photos come from the shared seed

    def newest(self, phone: Phone, params: dict[str, Any]) -> tuple:
        folder = f"{ROOT}/DCIM/Camera/"
        photos = [r for r in baseline_rows(phone, self, params, FILES_SQL) if r[0].startswith(folder) and not r[1]]
        # camera names carry the time taken (IMG_YYYYMMDD_HHMMSS), as the seed's modified times do
        return max(photos, key=lambda r: r[0])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        path, _, size = self.newest(phone, params)
        want = (f"{ROOT}/{params['dest']}/{posixpath.basename(path)}", 0, size)
        return 1.0 if changed_exactly(phone, self, params, [], [want]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return transfer_action(phone, obs, [self.newest(phone, params)[0]], f"{ROOT}/{params['dest']}", "copy")


@register_task
class DeleteDuplicate(PlantTemplate):
    name = "files_delete_duplicate"
    optimal_steps = 6
    goal_template = "There are two copies of {name} in {folder}. Delete the extra copy and keep the original."
    goal_phrasings = (
        "I downloaded {name} twice; could you remove the duplicate from {folder} but leave the original?",
        "In Files, {folder} has {name} and a duplicate of it. Delete only the duplicate.",
        "Clean up the second copy of {name} in the {folder} folder (the original stays).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = super().generate_params(rng)
        stem, ext = posixpath.splitext(p["name"])
        p["dup"] = f"{stem} (1){ext}"  # how Android names a second download of the same file
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        plant(phone, params["folder"], params["name"], params["size"], days_ago=9)
        plant(phone, params["folder"], params["dup"], params["size"], days_ago=1)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        dup = f"{ROOT}/{params['folder']}/{params['dup']}"
        return 1.0 if changed_exactly(phone, self, params, [dup], []) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return delete_action(phone, obs, [f"{ROOT}/{params['folder']}/{params['dup']}"])


LOST_FILES = (("insurance_claim.pdf", "insurance_claim_final.pdf"), ("old_resume.docx", "old_resume_2019.docx"),
              ("draft_contract.pdf", "draft_contract_signed.pdf"), ("party_playlist.txt", "party_playlist_v2.txt"))


@register_task
class FindAndDelete(TaskTemplate):
    name = "files_find_and_delete"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 7
    goal_template = "Find the file {name} (I don't remember which folder it's in) and delete it with the Files app."
    goal_phrasings = (
        "Somewhere on my phone there's {name}. Could you track it down and delete it?",
        "Delete {name}; you'll have to search for it first since I don't know where it is.",
        "Using Files, locate {name} wherever it is and remove it (only that file).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, decoy = rng.choice(LOST_FILES)
        folder = f"{rng.choice(('Documents', 'Download'))}/{rng.choice(FOLDER_NAMES)}"
        return {"name": name, "folder": folder, "decoy": decoy,
                "decoy_folder": rng.choice([d for d in ("Documents", "Download") if not folder.startswith(d)])}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        plant(phone, params["folder"], params["name"], 184_320, days_ago=33)
        plant(phone, params["decoy_folder"], params["decoy"], 201_728, days_ago=12)  # similar name, must stay

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        path = f"{ROOT}/{params['folder']}/{params['name']}"
        return 1.0 if changed_exactly(phone, self, params, [path], []) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return delete_action(phone, obs, [f"{ROOT}/{params['folder']}/{params['name']}"])


@register_task
class MoveFolder(TaskTemplate):
    name = "files_move_folder"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 9
    goal_template = "Using Files, move the whole folder \"{folder_name}\" from {folder} into {dest}."
    goal_phrasings = (
        "Could you move my \"{folder_name}\" folder, with everything in it, out of {folder} and into {dest}?",
        "Move the \"{folder_name}\" folder in {folder} to {dest}: the folder itself, not just its files.",
        "The folder \"{folder_name}\" belongs in {dest}, not {folder}; please move it there with Files.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        folder, dest = rng.sample(("Download", "Documents", "Pictures"), 2)
        return {"folder_name": rng.choice(("Vacation 2023", "Concert photos", "Wallpapers", "Scans")),
                "folder": folder, "dest": dest,
                "files": rng.sample(["IMG_0412.jpg", "IMG_0413.jpg", "notes.txt", "map.png", "itinerary.pdf"], 3)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, f in enumerate(params["files"]):
            plant(phone, f"{params['folder']}/{params['folder_name']}", f, 250_000 + 31_337 * i, days_ago=15 + i)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        src = f"{ROOT}/{params['folder']}/{params['folder_name']}"
        dst = f"{ROOT}/{params['dest']}/{params['folder_name']}"
        rows = tree_rows(phone, self, params, src)
        return 1.0 if changed_exactly(phone, self, params, [r[0] for r in rows], moved_rows(rows, src, dst)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return transfer_action(phone, obs, [f"{ROOT}/{params['folder']}/{params['folder_name']}"],
                               f"{ROOT}/{params['dest']}", "move")


# ---- folder housekeeping, multi-step reorganisation, search and comparison questions -------------------
def files_in(phone: Phone, folder: str) -> list[storage.FileEntry]:
    """The (non-hidden) files, not folders, directly in ``folder`` (absolute)."""
    return [e for e in storage.list_dir(phone, folder) if not e.is_dir]


def baseline_children(phone: Phone, template: TaskTemplate, params: dict[str, Any], folder: str,
                      sql: str = FILES_SQL) -> list[tuple]:
    """Starting rows of ``sql`` (path first) directly inside ``folder``."""
    return [r for r in baseline_rows(phone, template, params, sql) if posixpath.dirname(r[0]) == folder]


def searching(phone: Phone, obs: Observation, query: str) -> Action | None:
    """Next action toward the search screen showing results for ``query``; None once there."""
    if phone.foreground != APP:
        return open_app(phone, APP)
    scr = phone.screen
    assert scr is not None
    if phone.dialog is not None or phone.menu_open:
        return BACK
    if scr.name == "search":
        if scr.fields.get("query", "") != query:
            return type_in(obs, query, resource_id="search_src_text") or BACK
        return None
    if scr.name == "main" and not scr.state.get("selected"):
        return click(obs, desc="Search") or BACK
    return BACK


@register_task
class DeleteEmptyFolders(TaskTemplate):
    name = "files_delete_empty_folders"
    apps = ("Files",)
    complexity = 2
    optimal_steps = 8
    goal_template = ("Using Files, delete every empty folder (0 items) directly inside Documents; folders "
                     "that contain anything must stay.")
    goal_phrasings = (
        "Clean up Documents: remove the folders in it that are empty, and keep every folder that has files.",
        "Could you get rid of the empty folders in my Documents folder? Don't touch folders with stuff inside.",
        "In the Files app, find the folders in Documents showing 0 items and delete them (only those).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        empty = rng.sample(("Temp", "New folder", "Untitled", "Old exports", "Camera uploads"), rng.randint(2, 3))
        full = rng.sample(("Scans", "Contracts", "Letters", "Manuals"), 2)
        return {"empty": sorted(empty), "full": [[f, rng.choice(("page_1.pdf", "notes.txt", "photo.jpg"))]
                                                 for f in full]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for name in params["empty"]:
            storage.mkdir(phone, f"{ROOT}/Documents/{name}", exist_ok=True)
        for i, (folder, f) in enumerate(params["full"]):  # look-alike folders holding one file each
            plant(phone, f"Documents/{folder}", f, 20_000 + 4_001 * i, days_ago=30 + i)

    def targets(self, phone: Phone, params: dict[str, Any]) -> list[str]:
        rows = baseline_rows(phone, self, params, FILES_SQL)
        parents = {posixpath.dirname(r[0]) for r in rows}
        return sorted(r[0] for r in baseline_children(phone, self, params, f"{ROOT}/Documents")
                      if r[1] and r[0] not in parents)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = self.targets(phone, params)
        return 1.0 if want and changed_exactly(phone, self, params, want, []) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return delete_action(phone, obs, [p for p in self.targets(phone, params) if storage.exists(phone, p)])


MERGE_PAIRS = (("Scans", "Scans (2)"), ("Receipts", "Receipts old"), ("Wallpapers", "Wallpapers new"),
               ("Contracts", "Contracts copy"))
MERGE_FILES = ("page_01.pdf", "page_02.pdf", "page_03.pdf", "page_04.pdf", "summary.txt", "photo_front.jpg",
               "photo_back.jpg")


@register_task
class MergeFolders(TaskTemplate):
    name = "files_merge_folders"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 15
    goal_template = ("In Documents, move everything from the folder \"{src_name}\" into the folder "
                     "\"{dest_name}\", then delete the emptied \"{src_name}\" folder.")
    goal_phrasings = (
        ("Merge \"{src_name}\" into \"{dest_name}\" (both are in Documents): move its files over and delete "
        "\"{src_name}\" once it's empty."),
        ("Could you combine my Documents folders? Everything in \"{src_name}\" should go into \"{dest_name}\", "
        "and \"{src_name}\" should be removed afterwards."),
        "Using Files, empty \"{src_name}\" in Documents into \"{dest_name}\" and then delete \"{src_name}\".",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        dest, src = rng.choice(MERGE_PAIRS)
        names = rng.sample(MERGE_FILES, 4)
        n_src = rng.randint(1, 2)
        return {"dest_name": dest, "src_name": src, "src_files": sorted(names[:n_src]),
                "dest_files": sorted(names[n_src:])}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, f in enumerate(params["dest_files"]):
            plant(phone, f"Documents/{params['dest_name']}", f, 31_000 + 2_111 * i, days_ago=50 + i)
        for i, f in enumerate(params["src_files"]):
            plant(phone, f"Documents/{params['src_name']}", f, 47_000 + 3_917 * i, days_ago=10 + i)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        src, dst = f"{ROOT}/Documents/{params['src_name']}", f"{ROOT}/Documents/{params['dest_name']}"
        rows = tree_rows(phone, self, params, src)
        added = [(f"{dst}/{posixpath.basename(r[0])}", r[1], r[2]) for r in rows if r[0] != src]
        return 1.0 if changed_exactly(phone, self, params, [r[0] for r in rows], added) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        src, dst = f"{ROOT}/Documents/{params['src_name']}", f"{ROOT}/Documents/{params['dest_name']}"
        left = [f"{src}/{f}" for f in params["src_files"] if storage.exists(phone, f"{src}/{f}")]
        if left:
            return transfer_action(phone, obs, left, dst, "move")
        return delete_action(phone, obs, [src])


VERSIONED = (("Thesis_draft", ".docx", 40, 300), ("Lease_terms", ".pdf", 90, 900), ("Team_roster", ".xlsx", 10, 80),
             ("Travel_plan", ".pdf", 60, 700), ("Wedding_speech", ".docx", 15, 120))


@register_task
class ReplaceOldVersion(TaskTemplate):
    name = "files_replace_old_version"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 11
    goal_template = ("In {folder}, replace {name} with its newer version {new_file}: delete the old {name}, "
                     "then rename {new_file} to {name}.")
    goal_phrasings = (
        "{new_file} in {folder} is the updated {name}. Delete the old {name} and give {new_file} the name {name}.",
        "Could you swap in the new version? In the {folder} folder, remove {name} and rename {new_file} to {name}.",
        "Using Files: get rid of the outdated {name} in {folder}, then call {new_file} {name} instead.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        stem, ext, lo, hi = rng.choice(VERSIONED)
        old = rng.randint(lo, hi) * 1000 + rng.randint(0, 999)
        return {"folder": rng.choice(("Documents", "Download")), "name": stem + ext,
                "new_file": f"{stem}_v2{ext}", "size": old, "new_size": old + rng.randint(3, 40) * 1000 + 517}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        plant(phone, params["folder"], params["name"], params["size"], days_ago=40)
        plant(phone, params["folder"], params["new_file"], params["new_size"], days_ago=2)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        old, new = f"{ROOT}/{params['folder']}/{params['name']}", f"{ROOT}/{params['folder']}/{params['new_file']}"
        new_size = next(r[2] for r in baseline_rows(phone, self, params, FILES_SQL) if r[0] == new)
        # the old path is "removed" and "added" again, now with the new version's size: a changed row
        a, r, c = files_diff(phone, self, params)
        ok = not a and [x[0] for x in r] == [new] and [(o[0], n[2]) for o, n in c] == [(old, new_size)]
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        old, new = f"{ROOT}/{params['folder']}/{params['name']}", f"{ROOT}/{params['folder']}/{params['new_file']}"
        if storage.exists(phone, old) and storage.exists(phone, new):
            return delete_action(phone, obs, [old])
        return rename_action(phone, obs, new, params["name"])


TYPED_SQL = "SELECT path, is_dir, size, mime FROM files ORDER BY path"


@register_task
class SortDownloadsByType(TaskTemplate):
    name = "files_sort_downloads_by_type"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 17
    goal_template = ("Tidy up Download with the Files app: move every image file to Pictures and every audio "
                     "file to Music. Videos, documents and everything else stay in Download.")
    goal_phrasings = (
        ("Could you sort my downloads? Pictures (images) go to the Pictures folder, audio files go to Music, "
        "and all other files remain in Download."),
        ("In Files, move the images from Download into Pictures and the audio files from Download into Music; "
        "leave the rest where it is."),
        "Put each image in Download into Pictures and each sound/audio file into Music. Don't move anything else.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"image": [rng.choice(("scan_receipt.jpg", "meme.png", "ticket_qr.png", "profile_photo.jpg")),
                          rng.randint(150, 2400) * 1000 + 37],
                "audio": [rng.choice(("voice_note_0917.m4a", "ringtone_bells.mp3", "lecture_recording.mp3")),
                          rng.randint(500, 9000) * 1000 + 81],
                "video": [rng.choice(("birthday_video.mp4", "screen_recording.mp4", "dance_clip.mp4")),
                          rng.randint(8, 60) * 1_000_000 + 5]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, key in enumerate(("image", "audio", "video")):
            plant(phone, "Download", params[key][0], params[key][1], days_ago=3 + i)

    def targets(self, phone: Phone, params: dict[str, Any]) -> list[tuple[str, str, int]]:
        """(path, destination folder, size) of each starting image/audio file in Download."""
        out = []
        for r in baseline_children(phone, self, params, f"{ROOT}/Download", TYPED_SQL):
            major = r[3].split("/")[0]
            if not r[1] and major in ("image", "audio"):
                out.append((r[0], f"{ROOT}/{'Pictures' if major == 'image' else 'Music'}", r[2]))
        return out

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        t = self.targets(phone, params)
        added = [(f"{d}/{posixpath.basename(p)}", 0, s) for p, d, s in t]
        return 1.0 if t and changed_exactly(phone, self, params, [p for p, _, _ in t], added) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        for dest in (f"{ROOT}/Pictures", f"{ROOT}/Music"):
            left = [p for p, d, _ in self.targets(phone, params) if d == dest and storage.exists(phone, p)]
            if left:
                return transfer_action(phone, obs, left, dest, "move")
        return BACK


GATHER = (("invoice", "Invoices", ("invoice_plumber.pdf", "Invoice_internet_May.pdf", "car_repair_invoice.jpg")),
          ("ticket", "Tickets", ("ticket_museum.pdf", "bus_ticket.png", "Ferry_ticket_return.pdf")),
          ("warranty", "Warranties", ("warranty_fridge.pdf", "Dishwasher_warranty.jpg", "laptop_warranty_card.pdf")))


@register_task
class GatherByKeyword(TaskTemplate):
    name = "files_gather_by_keyword"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 19
    goal_template = ("My {keyword} files are scattered over several folders. Move every file with \"{keyword}\" in "
                     "its name into Documents/{dest_name}.")
    goal_phrasings = (
        ("Could you collect all files whose names contain \"{keyword}\", wherever they are, in the {dest_name} "
        "folder inside Documents?"),
        "Using Files, gather each file with \"{keyword}\" in the name (any folder) into Documents/{dest_name}.",
        "Every file named with \"{keyword}\" belongs in Documents/{dest_name}; please move them all there.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        keyword, dest, names = rng.choice(GATHER)
        picked = rng.sample(names, 2)
        folders = rng.sample(("Download", "Pictures", "Documents"), 2)
        return {"keyword": keyword, "dest_name": dest,
                "plants": [[f, n, 70_000 + 20_011 * i] for i, (f, n) in enumerate(zip(folders, picked))]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        storage.mkdir(phone, f"{ROOT}/Documents/{params['dest_name']}", exist_ok=True)
        for folder, name, size in params["plants"]:
            plant(phone, folder, name, size, days_ago=14)

    def targets(self, phone: Phone, params: dict[str, Any]) -> list[tuple]:
        dest = f"{ROOT}/Documents/{params['dest_name']}"
        return [r for r in baseline_rows(phone, self, params, FILES_SQL)
                if not r[1] and params["keyword"] in posixpath.basename(r[0]).lower()
                and not posixpath.basename(r[0]).startswith(".") and posixpath.dirname(r[0]) != dest]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        dest = f"{ROOT}/Documents/{params['dest_name']}"
        rows = self.targets(phone, params)
        added = [(f"{dest}/{posixpath.basename(r[0])}", 0, r[2]) for r in rows]
        return 1.0 if rows and changed_exactly(phone, self, params, [r[0] for r in rows], added) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        left = sorted(r[0] for r in self.targets(phone, params) if storage.exists(phone, r[0]))
        if not left:
            return BACK
        # one folder at a time: the one being browsed first, if it still holds some
        scr = phone.screen
        cur = scr.state.get("path") if phone.foreground == APP and scr is not None and scr.name == "main" else None
        folder = cur if any(posixpath.dirname(p) == cur for p in left) else posixpath.dirname(left[0])
        if phone.foreground == APP and scr is not None and scr.name == "picker":
            folder = posixpath.dirname(scr.args.get("sources", left)[0])
        group = [p for p in left if posixpath.dirname(p) == folder]
        return transfer_action(phone, obs, group or left[:1], f"{ROOT}/Documents/{params['dest_name']}", "move")


@register_task
class MoveAndRename(PlantTemplate):
    name = "files_move_and_rename"
    complexity = 3
    optimal_steps = 16
    goal_template = "Move {name} from {folder} to {dest} and rename it to {new_name} there."
    goal_phrasings = (
        "Using Files, put {name} (currently in {folder}) into the {dest} folder, renamed to {new_name}.",
        "Could you file {folder}/{name} under {dest} with the new name {new_name}?",
        "{name} should end up in {dest} as {new_name}; it's in {folder} right now.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = super().generate_params(rng)
        p["dest"] = rng.choice([d for d in DESTS if d != p["folder"]])
        stem, ext = posixpath.splitext(p["name"])
        p["new_name"] = stem.split("_")[0].lower() + rng.choice(("_archived", "_2024", "_signed", "_keep")) + ext
        return p

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = (f"{ROOT}/{params['dest']}/{params['new_name']}", 0, params["size"])
        return 1.0 if changed_exactly(phone, self, params, [self.src(params)], [want]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        src = self.src(params)
        if storage.exists(phone, src):
            return transfer_action(phone, obs, [src], f"{ROOT}/{params['dest']}", "move")
        return rename_action(phone, obs, f"{ROOT}/{params['dest']}/{params['name']}", params["new_name"])


@register_task
class CreateFolderWithSubfolders(TaskTemplate):
    name = "files_create_folder_with_subfolders"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 16
    goal_template = ("In the {parent} folder, create a folder \"{folder_name}\" with two subfolders inside it: "
                     "\"{sub1}\" and \"{sub2}\".")
    goal_phrasings = (
        ("Set up folders in {parent}: a new \"{folder_name}\" folder containing the subfolders \"{sub1}\" and "
        "\"{sub2}\"."),
        ("Could you make a folder \"{folder_name}\" in {parent} and, inside it, folders named \"{sub1}\" and "
        "\"{sub2}\"?"),
        "Using Files, create {parent}/{folder_name}/{sub1} and {parent}/{folder_name}/{sub2} (all new folders).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        sub1, sub2 = rng.sample(("2023", "2024", "Archive", "Drafts", "Shared", "Photos", "Bills"), 2)
        return {"parent": rng.choice(("Documents", "Pictures", "Download")),
                "folder_name": rng.choice(("Trips", "House", "Kids", "Finances", "Projects")), "sub1": sub1,
                "sub2": sub2}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        path = f"{ROOT}/{params['parent']}/{params['folder_name']}"
        if storage.exists(phone, path):
            storage.delete(phone, path, recursive=True)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        top = f"{ROOT}/{params['parent']}/{params['folder_name']}"
        want = [(top, 1, 0), (f"{top}/{params['sub1']}", 1, 0), (f"{top}/{params['sub2']}", 1, 0)]
        return 1.0 if changed_exactly(phone, self, params, [], want) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        top = f"{ROOT}/{params['parent']}/{params['folder_name']}"
        if not storage.exists(phone, top):
            return new_folder_action(phone, obs, f"{ROOT}/{params['parent']}", params["folder_name"])
        sub = params["sub1"] if not storage.exists(phone, f"{top}/{params['sub1']}") else params["sub2"]
        return new_folder_action(phone, obs, top, sub)


MONTHS_LONG = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
               "November", "December")


@register_task
class RenamePhotoFromDate(TaskTemplate):
    name = "files_rename_photo_from_date"
    apps = ("Files",)
    complexity = 2
    optimal_steps = 9
    goal_template = "Rename the photo I took on {date_text} (it's in DCIM/Camera) to {new_name}."
    goal_phrasings = (
        "In DCIM/Camera there's one picture from {date_text}. Could you rename it {new_name}?",
        "Using Files, give the camera photo dated {date_text} the name {new_name}.",
        "Find my {date_text} photo in DCIM/Camera and call it {new_name}.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        from droidverify.env.sim.phone import DEFAULT_NOW

        days = rng.randint(70, 150)
        taken = (DEFAULT_NOW - timedelta(days=days)).replace(hour=rng.randint(8, 20), minute=rng.randint(0, 59),
                                                             second=rng.randint(0, 59))
        other = taken + timedelta(days=rng.choice((-1, 1)), hours=rng.randint(-3, 3), minutes=rng.randint(1, 50))
        return {"taken": taken.isoformat(), "decoy": other.isoformat(),
                "date_text": f"{MONTHS_LONG[taken.month - 1]} {taken.day}",
                "new_name": rng.choice(("passport_photo.jpg", "parking_spot.jpg", "whiteboard_notes.jpg",
                                        "new_sofa.jpg")),
                "sizes": [rng.randint(1_900_000, 5_000_000), rng.randint(1_900_000, 5_000_000)]}

    def photo(self, params: dict[str, Any], key: str = "taken") -> str:
        return f"{ROOT}/DCIM/Camera/IMG_{datetime.fromisoformat(params[key]):%Y%m%d_%H%M%S}.jpg"

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        storage.seed_common_files(phone)
        for key, size in zip(("taken", "decoy"), params["sizes"]):
            storage.write_file(phone, self.photo(params, key), None, size=size,
                               modified=datetime.fromisoformat(params[key]))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = (f"{ROOT}/DCIM/Camera/{params['new_name']}", 0, params["sizes"][0])
        return 1.0 if changed_exactly(phone, self, params, [self.photo(params)], [want]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return rename_action(phone, obs, self.photo(params), params["new_name"])


SEARCH_SETS = (("scan", "Old scans", ("scan_passport.pdf", "Scan_0012.jpg", "contract_scan.pdf", "ID_card_scan.png")),
               ("backup", "Backups", ("contacts_backup.vcf", "Backup_photos.zip", "chat_backup_2024.db",
                                      "notes_backup.txt")),
               ("recipe", "Recipes", ("recipe_lasagna.pdf", "Recipe_cards.jpg", "grandmas_recipe.txt",
                                      "recipe_curry.docx")))


@register_task
class QuerySearchCount(TaskTemplate):
    name = "files_query_search_count"
    apps = ("Files",)
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = ("How many files on my phone have \"{keyword}\" in their name, counting every folder? "
                     "Folders don't count. Answer with a number.")
    goal_phrasings = (
        "Count the files (not folders) anywhere in storage whose names contain \"{keyword}\".",
        "Could you search my files for \"{keyword}\" and tell me how many files match? Ignore folders.",
        "Number of files with \"{keyword}\" in the file name, across all folders?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        keyword, folder, names = rng.choice(SEARCH_SETS)
        picked = rng.sample(names, rng.randint(2, 4))
        places = ("Download", "Documents", "Pictures", f"Documents/{folder}")
        return {"keyword": keyword, "folder": folder,
                "plants": [[rng.choice(places), n, 30_000 + 9_973 * i] for i, n in enumerate(picked)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        storage.mkdir(phone, f"{ROOT}/Documents/{params['folder']}", exist_ok=True)  # a matching folder: no file
        for folder, name, size in params["plants"]:
            plant(phone, folder, name, size, days_ago=21)

    def matches(self, phone: Phone, params: dict[str, Any]) -> list[storage.FileEntry]:
        return [e for e in storage.search(phone, params["keyword"]) if not e.is_dir and not e.name.startswith(".")]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if answer is None or len(re.findall(r"\d+", answer)) != 1:
            return 0.0
        return 1.0 if answer_matches(answer, str(len(self.matches(phone, params)))) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = searching(phone, obs, params["keyword"])
        if step is not None:
            return step
        names = [e.name for e in self.matches(phone, params)]
        if names and find(obs, text=names[-1], resource_id="item") is None:
            act = scroll_toward(phone, obs, text=names[-1], resource_id="item")
            if act is not None:
                return act
        return answer(str(len(names)))


@register_task
class QueryBiggerFile(TaskTemplate):
    name = "files_query_bigger_file"
    apps = ("Files",)
    kind = "query"
    complexity = 2
    optimal_steps = 6
    goal_template = "Which file is bigger: {name_a} in {folder_a} or {name_b} in {folder_b}? Answer with its name."
    goal_phrasings = (
        "Compare {name_a} ({folder_a}) with {name_b} ({folder_b}): which one takes more space?",
        "Could you check which is larger, {folder_a}/{name_a} or {folder_b}/{name_b}? Tell me the file name.",
        "Between {name_a} in {folder_a} and {name_b} in {folder_b}, which file is the largest?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        a = rng.choice(PLANTS)
        b = rng.choice([p for p in PLANTS if p[0] != a[0]])
        size_a = rng.randint(200, 3000) * 1000 + rng.randint(0, 999)
        size_b = int(size_a * rng.choice((rng.uniform(0.45, 0.85), rng.uniform(1.2, 2.2))))
        return {"folder_a": a[0], "name_a": a[1], "size_a": size_a, "folder_b": b[0], "name_b": b[1],
                "size_b": size_b}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        plant(phone, params["folder_a"], params["name_a"], params["size_a"], days_ago=5)
        plant(phone, params["folder_b"], params["name_b"], params["size_b"], days_ago=8)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        paths = [f"{ROOT}/{params['folder_a']}/{params['name_a']}", f"{ROOT}/{params['folder_b']}/{params['name_b']}"]
        if answer is None or not all(storage.exists(phone, p) for p in paths):
            return 0.0
        small, big = sorted((storage.stat(phone, p) for p in paths), key=lambda e: e.size)
        return 1.0 if answer_matches(answer, big.name) and not answer_matches(answer, small.name) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        # look at the first file in its folder, then search for the second one (its size shows in the results)
        a, b = params["name_a"], params["name_b"]
        scr = phone.screen
        on_a = phone.foreground == APP and scr is not None and scr.name == "main" and phone.dialog is None \
            and scr.state.get("path") == f"{ROOT}/{params['folder_a']}" and find(obs, text=a, resource_id="item") \
            is not None and not scr.state.get("selected") and not phone.menu_open
        if on_a:
            return click(obs, desc="Search") or BACK
        if phone.foreground == APP and scr is not None and scr.name == "search" and phone.dialog is None:
            step = searching(phone, obs, b)
            if step is not None:
                return step
            if find(obs, text=b, resource_id="item") is not None:
                big = max((params["size_a"], a), (params["size_b"], b))[1]
                return answer(big)
            return BACK
        return show_rows(phone, obs, f"{ROOT}/{params['folder_a']}", [a]) or BACK


@register_task
class QueryFullestFolder(TaskTemplate):
    name = "files_query_fullest_folder"
    apps = ("Files",)
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "Which folder inside Pictures contains the most items? Answer with the folder name."
    goal_phrasings = (
        "Of the folders in Pictures, which one holds the largest number of items?",
        "Could you check my Pictures folder and tell me which of its subfolders has the most files in it?",
        "In Files, which subfolder of Pictures has the highest item count?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        names = rng.sample(("Holidays", "Family", "Wallpapers", "Memes", "Pets", "Garden"), 3)
        counts = rng.sample((1, 2, 4, 5, 6, 7), 3)  # distinct, and the largest beats Screenshots (3)
        return {"folders": [[n, c] for n, c in zip(names, counts)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for j, (name, count) in enumerate(params["folders"]):
            for k in range(count):
                plant(phone, f"Pictures/{name}", f"IMG_{100 * j + k + 1:04d}.jpg", 900_000 + 77_777 * k,
                      days_ago=60 + k)

    def counts(self, phone: Phone) -> dict[str, int]:
        return {e.name: len(storage.list_dir(phone, e.path)) for e in storage.list_dir(phone, f"{ROOT}/Pictures")
                if e.is_dir}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        counts = self.counts(phone)
        if answer is None or not counts:
            return 0.0
        top = max(counts.values())
        best = [n for n, c in counts.items() if c == top]
        named = [n for n in counts if answer_matches(answer, n)]
        return 1.0 if len(best) == 1 and named == best else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        counts = self.counts(phone)
        step = show_rows(phone, obs, f"{ROOT}/Pictures", sorted(counts, key=str.lower))
        return step or answer(max(counts, key=lambda n: counts[n]))


def size_in_mb(text: str | None) -> float | None:
    """The one size an answer states, in MB ("14.6 MB", "14.6", "0.9 GB", "850 kB"); None if not exactly one."""
    if not text:
        return None
    t = text.replace(",", "")
    found = [(float(m.group(1)), m.group(2).lower()) for m in _SIZE.finditer(t)]
    if not found:
        nums = re.findall(r"\d+(?:\.\d+)?", t)
        return float(nums[0]) if len(nums) == 1 else None
    if len(found) != 1 or len(re.findall(r"\d+(?:\.\d+)?", t)) != 1:
        return None
    value, unit = found[0]
    return value * _UNIT[unit] / 1_000_000


@register_task
class QueryFolderTotalSize(TaskTemplate):
    name = "files_query_folder_total_size"
    apps = ("Files",)
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "How much space do all the files in {folder} take up together? Answer with one number in MB."
    goal_phrasings = (
        "Add up the sizes of the files in my {folder} folder: what's the total, in MB?",
        "Could you tell me the combined size (MB) of everything in {folder}?",
        "Total size of the {folder} folder's files, in megabytes?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        folder = rng.choice(("Music", "Movies"))
        extra = None
        if rng.random() < 0.5:
            extra = (["Voice memo 12.m4a", rng.randint(400, 3000) * 1000 + 213] if folder == "Music"
                     else ["Clip_0815.mp4", rng.randint(5, 40) * 1_000_000 + 4_321])
        return {"folder": folder, "extra": extra}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        storage.seed_common_files(phone)
        if params["extra"]:
            plant(phone, params["folder"], params["extra"][0], params["extra"][1], days_ago=4)

    def sizes(self, phone: Phone, params: dict[str, Any]) -> list[int]:
        return [e.size for e in files_in(phone, f"{ROOT}/{params['folder']}")]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        sizes = self.sizes(phone, params)
        got = size_in_mb(answer)
        if got is None or not sizes:
            return 0.0
        # the list shows each size rounded (0.1 MB below 100 MB, 1 MB above): allow those roundings added up
        slack = sum(0.5 if s >= 99_950_000 else 0.05 for s in sizes) + 0.01
        return 1.0 if abs(got - sum(sizes) / 1_000_000) <= slack else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        names = [e.name for e in files_in(phone, f"{ROOT}/{params['folder']}")]
        step = show_rows(phone, obs, f"{ROOT}/{params['folder']}", names)
        return step or answer(f"{sum(self.sizes(phone, params)) / 1_000_000:.1f} MB")


# ---- round 3: swaps, ordered renames, keep-one clean-ups, relative places, yes/no and top-k questions -----
def plant_at(phone: Phone, path: str, size: int, when: datetime) -> None:
    """A binary file at ``path`` (absolute) of ``size`` bytes, last modified at ``when``."""
    storage.write_file(phone, path, None, size=size, modified=when, parents=True)


def in_folder(phone: Phone, folder: str, size: int) -> str | None:
    """Path of the (first) file directly in ``folder`` with exactly ``size`` bytes, if any."""
    return next((e.path for e in files_in(phone, folder) if e.size == size), None)


def gather_into(phone: Phone, obs: Observation, names: list[str], dest: str) -> Action:
    """Move the files called ``names`` into folder ``dest`` from wherever they are, one folder at a time."""
    left = sorted(e.path for n in names for e in storage.search(phone, n)
                  if e.name == n and not e.is_dir and e.parent != dest)
    if not left:
        return BACK
    scr = phone.screen
    if phone.foreground == APP and scr is not None and scr.name == "picker":
        folder = posixpath.dirname(scr.args.get("sources", left)[0])
    elif phone.foreground == APP and scr is not None and scr.name == "main" and \
            any(posixpath.dirname(p) == scr.state.get("path") for p in left):
        folder = scr.state.get("path")
    else:
        folder = posixpath.dirname(left[0])
    group = [p for p in left if posixpath.dirname(p) == folder]
    return transfer_action(phone, obs, group or left[:1], dest, "move")


def named_positions(text: str, names: list[str]) -> list[int | None]:
    """Token index where each file name is first stated in ``text``, extension optional (None if not)."""
    got = normalize_answer(text)
    out: list[int | None] = []
    for n in names:
        hits = []
        for form in (n, posixpath.splitext(n)[0]):  # with or without its extension
            want = normalize_answer(form)
            k = len(want)
            hits += [i for i in range(len(got) - k + 1) if want and got[i:i + k] == want]
        out.append(min(hits) if hits else None)
    return out


def yes_no(text: str | None) -> bool | None:
    """True for a plain yes, False for a plain no, None when neither or both are said."""
    toks = set(normalize_answer(text or ""))
    yes, no = bool(toks & {"yes", "yeah", "yep"}), bool(toks & {"no", "nope"})
    return None if yes == no else yes


SWAPS = (("photo_front.jpg", "photo_back.jpg"), ("invoice_march.pdf", "invoice_april.pdf"),
         ("before_repair.jpg", "after_repair.jpg"), ("slides_draft.pptx", "slides_final.pptx"),
         ("speech_short.docx", "speech_long.docx"))


@register_task
class SwapFileNames(TaskTemplate):
    name = "files_swap_file_names"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 18
    goal_template = ("In {folder}, {name_a} and {name_b} got each other's names by mistake. Swap their names "
                     "with the Files app.")
    goal_phrasings = (
        ("The files {name_a} and {name_b} in my {folder} folder are mislabelled: each has the other's name. "
        "Please swap the two names."),
        "Could you exchange the names of {name_a} and {name_b} (both in {folder})? Right now they're backwards.",
        "Using Files, rename {name_a} to {name_b} and {name_b} to {name_a}; they are in {folder}.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        a, b = rng.choice(SWAPS)
        size_a = rng.randint(40, 900) * 1000 + rng.randint(0, 999)
        return {"folder": rng.choice(("Documents", "Download", "Pictures")), "name_a": a, "name_b": b,
                "size_a": size_a, "size_b": size_a + rng.choice((-1, 1)) * rng.randint(8, 30) * 1000 + 7}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        plant(phone, params["folder"], params["name_a"], params["size_a"], days_ago=6)
        plant(phone, params["folder"], params["name_b"], params["size_b"], days_ago=5)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        folder = f"{ROOT}/{params['folder']}"
        a, r, c = files_diff(phone, self, params)
        want = {(f"{folder}/{params['name_a']}", params["size_b"]), (f"{folder}/{params['name_b']}", params["size_a"])}
        ok = not a and not r and len(c) == 2 and {(new[0], new[2]) for _, new in c} == want
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        folder = f"{ROOT}/{params['folder']}"
        pa = f"{folder}/{params['name_a']}"
        x = in_folder(phone, folder, params["size_a"])  # the file now called name_a that must end up as name_b
        y = in_folder(phone, folder, params["size_b"])
        if x is None or y is None:
            return BACK
        if y != pa:
            if x == pa:  # name_a is taken: park the first file under a spare name
                stem, ext = posixpath.splitext(params["name_a"])
                return rename_action(phone, obs, x, f"{stem}_tmp{ext}")
            return rename_action(phone, obs, y, params["name_a"])
        return rename_action(phone, obs, x, params["name_b"])


@register_task
class NumberScreenshots(TaskTemplate):
    name = "files_number_screenshots"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 19
    goal_template = ("Rename the screenshots in Pictures/Screenshots to {prefix}_1.png, {prefix}_2.png and so "
                     "on, numbered from the oldest (1) to the newest.")
    goal_phrasings = (
        ("Give my screenshots (Pictures/Screenshots) numbered names in the order they were taken: the oldest "
        "becomes {prefix}_1.png, the next {prefix}_2.png, and so on."),
        ("Could you number the files in Pictures/Screenshots as {prefix}_1.png, {prefix}_2.png, ... "
        "starting with the oldest one?"),
        ("Using Files, rename each screenshot in Pictures/Screenshots to {prefix}_<n>.png, where n counts "
        "up from 1 for the earliest screenshot."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"prefix": rng.choice(("shot", "screen", "capture", "snap"))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        storage.seed_common_files(phone)  # the screenshots come from the shared seed

    def plan(self, phone: Phone, params: dict[str, Any]) -> list[tuple[str, str, int]]:
        """(old path, new path, size) oldest first (screenshot names carry the time taken)."""
        folder = f"{ROOT}/Pictures/Screenshots"
        rows = sorted(r for r in baseline_children(phone, self, params, folder) if not r[1])
        return [(r[0], f"{folder}/{params['prefix']}_{i}.png", r[2]) for i, r in enumerate(rows, 1)]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        plan = self.plan(phone, params)
        added = [(new, 0, size) for _, new, size in plan]
        return 1.0 if plan and changed_exactly(phone, self, params, [old for old, _, _ in plan], added) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        for old, new, _ in self.plan(phone, params):
            if storage.exists(phone, old):
                return rename_action(phone, obs, old, posixpath.basename(new))
        return BACK


BACKUP_SETS = (("Contacts backup", "contacts_backup.vcf"), ("Chat exports", "chat_history.txt"),
               ("Phone backups", "settings_backup.zip"), ("Notes export", "notes_export.zip"))


@register_task
class KeepNewestBackup(TaskTemplate):
    name = "files_keep_newest_backup"
    apps = ("Files",)
    complexity = 2
    optimal_steps = 9
    goal_template = ("Documents/{folder} has several versions of my backup. Keep only the most recently "
                     "modified file in it and delete all the others.")
    goal_phrasings = (
        "Clean up Documents/{folder}: delete every file except the newest one (by modified date).",
        "Could you get rid of the old backups in Documents/{folder}? Only the latest file should remain.",
        "In Files, look at the dates in Documents/{folder} and remove all but the most recent file.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        folder, base = rng.choice(BACKUP_SETS)
        stem, ext = posixpath.splitext(base)
        n = rng.randint(3, 4)
        names = [base] + [f"{stem} ({k}){ext}" for k in range(1, n)]
        days = rng.sample(range(2, 160), n)  # distinct days: the newest is not always the highest number
        return {"folder": folder,
                "files": [[nm, d, rng.randint(30, 400) * 1000 + rng.randint(0, 999)] for nm, d in zip(names, days)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for name, days, size in params["files"]:
            plant(phone, f"Documents/{params['folder']}", name, size, days_ago=days)

    def targets(self, params: dict[str, Any]) -> list[str]:
        newest = min(params["files"], key=lambda f: f[1])[0]
        return sorted(f"{ROOT}/Documents/{params['folder']}/{f[0]}" for f in params["files"] if f[0] != newest)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if changed_exactly(phone, self, params, self.targets(params), []) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        left = [p for p in self.targets(params) if storage.exists(phone, p)]
        return delete_action(phone, obs, left) if left else BACK


@register_task
class MoveMonthPhotosToNewFolder(TaskTemplate):
    name = "files_move_month_photos_to_new_folder"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 20
    goal_template = ("Create a folder \"{folder_name}\" in Pictures and move every photo from DCIM/Camera that "
                     "was taken in {month} into it.")
    goal_phrasings = (
        ("Using Files, make a new Pictures folder called \"{folder_name}\" and put all my {month} camera photos "
        "(from DCIM/Camera) in it."),
        ("Could you gather the photos I took in {month}? They're in DCIM/Camera; move them into a new folder "
        "\"{folder_name}\" inside Pictures."),
        ("All DCIM/Camera pictures from {month} should go into Pictures/{folder_name}, a folder you need to "
        "create first. Photos from other months stay."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        month = rng.choice((5, 6, 7))
        days = sorted(rng.sample(range(2, 28), rng.randint(2, 3)))

        def at(m: int, d: int) -> str:
            return datetime(2024, m, d, rng.randint(7, 21), rng.randint(0, 59), rng.randint(0, 59)).isoformat()

        last_prev = (datetime(2024, month, 1) - timedelta(days=1)).day
        return {"month": f"{MONTHS_LONG[month - 1]} 2024",
                "folder_name": rng.choice(("Summer trip", "Family visit", "Road trip", "Garden", "Holiday")),
                "photos": [[at(month, d), rng.randint(1_900_000, 5_000_000)] for d in days],
                "decoys": [[at(month - 1, last_prev), rng.randint(1_900_000, 5_000_000)],
                           [at(month + 1, 1), rng.randint(1_900_000, 5_000_000)]]}

    @staticmethod
    def photo(when: str) -> str:
        return f"{ROOT}/DCIM/Camera/IMG_{datetime.fromisoformat(when):%Y%m%d_%H%M%S}.jpg"

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        storage.seed_common_files(phone)
        for when, size in params["photos"] + params["decoys"]:
            plant_at(phone, self.photo(when), size, datetime.fromisoformat(when))
        path = f"{ROOT}/Pictures/{params['folder_name']}"
        if storage.exists(phone, path):
            storage.delete(phone, path, recursive=True)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        dest = f"{ROOT}/Pictures/{params['folder_name']}"
        srcs = [self.photo(w) for w, _ in params["photos"]]
        added = [(dest, 1, 0)] + [(f"{dest}/{posixpath.basename(p)}", 0, s)
                                  for p, (_, s) in zip(srcs, params["photos"])]
        return 1.0 if changed_exactly(phone, self, params, srcs, added) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        dest = f"{ROOT}/Pictures/{params['folder_name']}"
        if not storage.exists(phone, dest):
            return new_folder_action(phone, obs, f"{ROOT}/Pictures", params["folder_name"])
        return gather_into(phone, obs, [posixpath.basename(self.photo(w)) for w, _ in params["photos"]], dest)


EXISTS_NAMES = ("passport_scan.pdf", "birth_certificate.pdf", "car_insurance.pdf", "warranty_tv.pdf",
                "vaccination_card.jpg", "rental_deposit_receipt.pdf")


@register_task
class QueryFileExists(TaskTemplate):
    name = "files_query_file_exists"
    apps = ("Files",)
    kind = "query"
    complexity = 1
    optimal_steps = 5
    goal_template = "Is there a file named exactly {name} anywhere on my phone? Answer yes or no."
    goal_phrasings = (
        "Do I still have {name} somewhere in my files? Just yes or no, please (the name must match exactly).",
        "Could you check with Files whether a file called {name} exists in any folder? Reply yes or no.",
        "Yes or no: is {name} (that exact file name) stored on this phone?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"name": rng.choice(EXISTS_NAMES), "present": rng.random() < 0.5,
                "folder": rng.choice(("Documents", "Download", "Pictures", "Documents/Scans"))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        if params["present"]:
            plant(phone, params["folder"], params["name"], 312_000, days_ago=40)
        plant(phone, "Download", f"old_{params['name']}", 287_000, days_ago=400)  # shows up in a search too

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        was = any(posixpath.basename(r[0]) == params["name"] for r in baseline_rows(phone, self, params, FILES_SQL))
        there = any(e.name == params["name"] for e in storage.search(phone, params["name"]))
        said = yes_no(answer)
        return 1.0 if said is not None and said == was == there else 0.0  # deleting or adding it is no answer

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = searching(phone, obs, params["name"])
        if step is not None:
            return step
        there = any(e.name == params["name"] for e in storage.search(phone, params["name"]))
        return answer("Yes" if there else "No")


TREE_TOPS = ("Projects", "House", "School", "Taxes", "Garden plans")
TREE_FILES = ("notes.txt", "plan.pdf", "photo_01.jpg", "budget.xlsx", "sketch.png", "contract.pdf", "list.docx")


@register_task
class QueryTreeFileCount(TaskTemplate):
    name = "files_query_tree_file_count"
    apps = ("Files",)
    kind = "query"
    complexity = 2
    optimal_steps = 7
    goal_template = ("How many files are in Documents/{top} altogether, counting the files inside its subfolders "
                     "too? Folders themselves don't count.")
    goal_phrasings = (
        "Count every file under Documents/{top}, including those in subfolders (but not the folders). How many?",
        "Could you tell me the total number of files in the {top} folder of Documents, subfolders included?",
        "Documents/{top} and everything below it: how many files (not folders) is that?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        sub1, sub2 = rng.sample(("2024", "Archive", "Old", "Drafts", "Misc"), 2)
        return {"top": rng.choice(TREE_TOPS), "subs": [sub1, sub2],
                "counts": [rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 3)]}

    def levels(self, params: dict[str, Any]) -> list[str]:
        top = f"{ROOT}/Documents/{params['top']}"
        return [top, f"{top}/{params['subs'][0]}", f"{top}/{params['subs'][0]}/{params['subs'][1]}"]

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, (folder, n) in enumerate(zip(self.levels(params), params["counts"])):
            for k, name in enumerate(TREE_FILES[i * 2:i * 2 + n]):
                plant_at(phone, f"{folder}/{name}", 15_000 + 3_331 * (k + 3 * i),
                         phone.now - timedelta(days=20 + k + 5 * i))

    def count(self, phone: Phone, params: dict[str, Any]) -> int:
        return sum(1 for e in storage.walk(phone, self.levels(params)[0]) if not e.is_dir)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if answer is None or len(re.findall(r"\d+", answer)) != 1:
            return 0.0
        return 1.0 if answer_matches(answer, str(self.count(phone, params))) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        deepest = self.levels(params)[-1]  # browsing there opens each level on the way
        step = show_rows(phone, obs, deepest, [e.name for e in storage.list_dir(phone, deepest)])
        return step or answer(str(self.count(phone, params)))


DATED_DOWNLOADS = ("flight_confirmation.pdf", "concert_ebook.epub", "gym_membership.pdf", "kitchen_manual.pdf",
                   "quarterly_report.xlsx", "tax_form_1040.pdf")


@register_task
class QueryDownloadOnDate(TaskTemplate):
    name = "files_query_download_on_date"
    apps = ("Files",)
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "I downloaded a file on {date_text}. What is it called? It's in the Download folder."
    goal_phrasings = (
        "Which file in Download was modified on {date_text}? Give me its name.",
        "Could you look through my Download folder and tell me the name of the file dated {date_text}?",
        "Name of the download from {date_text}, please (check the dates in Download).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        from droidverify.env.sim.phone import DEFAULT_NOW

        name, decoy = rng.sample(DATED_DOWNLOADS, 2)
        days = rng.randint(95, 200)  # older than every seeded download; the decoy is a day off
        day = DEFAULT_NOW - timedelta(days=days)
        return {"name": name, "days": days, "decoy": decoy, "decoy_days": days + rng.choice((-1, 1)),
                "date_text": f"{MONTHS_LONG[day.month - 1]} {day.day}"}

    @staticmethod
    def when(days: int) -> datetime:
        from droidverify.env.sim.phone import DEFAULT_NOW

        return (DEFAULT_NOW - timedelta(days=days)).replace(hour=14, minute=12)  # the day the goal names

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        plant_at(phone, f"{ROOT}/Download/{params['name']}", 164_000, self.when(params["days"]))
        plant_at(phone, f"{ROOT}/Download/{params['decoy']}", 171_000, self.when(params["decoy_days"]))

    def dated(self, phone: Phone, params: dict[str, Any]) -> list[storage.FileEntry]:
        day = self.when(params["days"]).date()
        return [e for e in files_in(phone, f"{ROOT}/Download") if e.modified_dt.date() == day]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        hits = self.dated(phone, params)
        others = [e.name for e in files_in(phone, f"{ROOT}/Download") if e not in hits]
        ok = len(hits) == 1 and answer_matches(answer, hits[0].name) and \
            not any(answer_matches(answer, n) for n in others)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        hits = self.dated(phone, params)
        step = show_rows(phone, obs, f"{ROOT}/Download", [e.name for e in hits])
        return step or answer(hits[0].name if hits else "none")


TOP_PLANTS = ("family_videos.zip", "game_data.obb", "maps_europe.zip", "firmware_update.bin", "ebook_collection.zip")


@register_task
class QueryTopThreeLargest(TaskTemplate):
    name = "files_query_top_three_largest"
    apps = ("Files",)
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "What are the three largest files in my Download folder? List their names from biggest to smallest."
    goal_phrasings = (
        "Name the 3 biggest files in Download, largest first.",
        ("Could you find which three files take the most space in Download and list them in order of size, "
        "biggest first?"),
        "Top three files by size in the Download folder, from the largest down?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        names = rng.sample(TOP_PLANTS, 3)
        # size bands chosen so no two files (seeded ones included) show the same size
        sizes = [rng.randint(30, 99) * 100_000 + 41, rng.randint(105, 179) * 100_000 + 17,
                 rng.randint(190, 399) * 100_000 + 3]
        return {"plants": [[n, s] for n, s in zip(names, sizes)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, (name, size) in enumerate(params["plants"]):
            plant(phone, "Download", name, size, days_ago=4 + i)

    def ranking(self, phone: Phone) -> list[str]:
        return [e.name for e in sorted(files_in(phone, f"{ROOT}/Download"), key=lambda e: (-e.size, e.name))]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ranked = self.ranking(phone)
        if answer is None or len(ranked) < 3:
            return 0.0
        pos = named_positions(answer, ranked)
        top, rest = pos[:3], pos[3:]
        ok = all(p is not None for p in top) and top == sorted(top) and all(p is None for p in rest)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        ranked = self.ranking(phone)
        listed = [e.name for e in storage.list_dir(phone, f"{ROOT}/Download")]
        # scroll to the bottom row: the ranking needs every size on screen, not just the top three
        step = show_rows(phone, obs, f"{ROOT}/Download", listed[-1:])
        return step or answer(", ".join(ranked[:3]))


@register_task
class DeleteLargestVideo(TaskTemplate):
    name = "files_delete_largest_video"
    apps = ("Files",)
    complexity = 2
    optimal_steps = 6
    goal_template = "My storage is almost full. Delete the biggest video in the Movies folder, and only that one."
    goal_phrasings = (
        "Free up some space by removing the largest file in Movies; leave the other videos alone.",
        "Could you find the video in Movies that takes the most space and delete it?",
        "In Files, delete whichever video in Movies is the biggest (just that one).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        big = rng.random() < 0.5
        size = rng.randint(260, 400) * 1_000_000 + 123 if big else rng.randint(5, 15) * 1_000_000 + 77
        return {"extra": [rng.choice(("Graduation.mp4", "Wedding_video.mp4", "Drone_flight.mp4")), size]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        storage.seed_common_files(phone)
        movies = sorted(files_in(phone, f"{ROOT}/Movies"), key=lambda e: e.size)
        if len(movies) >= 2 and storage.human_size(movies[-1].size) == storage.human_size(movies[-2].size):
            phone.execute("UPDATE files SET size = size + 5000000 WHERE path=?", (movies[-1].path,))  # no tie
        plant(phone, "Movies", params["extra"][0], params["extra"][1], days_ago=9)

    def target(self, phone: Phone, params: dict[str, Any]) -> str:
        rows = [r for r in baseline_children(phone, self, params, f"{ROOT}/Movies") if not r[1]]
        return max(rows, key=lambda r: r[2])[0]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if changed_exactly(phone, self, params, [self.target(phone, params)], []) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return delete_action(phone, obs, [self.target(phone, params)])


COPIED = ("lease_contract.pdf", "family_photo.jpg", "recipe_book.pdf", "resume.docx", "car_title.pdf")


@register_task
class KeepOneCopy(TaskTemplate):
    name = "files_keep_one_copy"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 11
    goal_template = ("I saved {name} in Download, Documents and Pictures. Keep only the copy in {keep} and "
                     "delete the other copies.")
    goal_phrasings = (
        ("There are three copies of {name} (in Download, Documents and Pictures). Delete all of them except the "
        "one in {keep}."),
        ("Could you remove the duplicate copies of {name}? The one in {keep} should stay; the ones in the other "
        "folders go."),
        "Using Files, make {keep} the only place that has {name}: delete its copies in the other folders.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        keep = rng.choice(("Download", "Documents", "Pictures"))
        name = rng.choice(COPIED)
        stem, ext = posixpath.splitext(name)
        return {"name": name, "keep": keep, "size": rng.randint(80, 900) * 1000 + 311,
                "decoy": f"{stem}_v2{ext}", "decoy_folder": rng.choice([d for d in ("Download", "Documents",
                                                                                      "Pictures") if d != keep])}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, folder in enumerate(("Download", "Documents", "Pictures")):
            plant(phone, folder, params["name"], params["size"], days_ago=30 + i)
        plant(phone, params["decoy_folder"], params["decoy"], params["size"] + 4_096, days_ago=3)  # a newer version

    def targets(self, params: dict[str, Any]) -> list[str]:
        return [f"{ROOT}/{f}/{params['name']}" for f in ("Download", "Documents", "Pictures") if f != params["keep"]]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if changed_exactly(phone, self, params, self.targets(params), []) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        left = [p for p in self.targets(params) if storage.exists(phone, p)]
        if not left:
            return BACK
        scr = phone.screen
        cur = scr.state.get("path") if phone.foreground == APP and scr is not None and scr.name == "main" else None
        here = [p for p in left if posixpath.dirname(p) == cur]
        return delete_action(phone, obs, here[:1] or left[:1])


NEXT_TO = (("Work", "Contracts", "employment_contract.pdf"), ("Home", "Insurance", "home_policy.pdf"),
           ("Car", "Service", "oil_change_receipt.pdf"), ("Health", "Dental", "xray_results.pdf"))


@register_task
class MoveNextToFile(TaskTemplate):
    name = "files_move_next_to_file"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 11
    goal_template = "Move {name} from Download into the same folder where {ref} is kept."
    goal_phrasings = (
        "Could you put {name} (now in Download) next to {ref}, in whatever folder that file is in?",
        "{name} belongs with {ref}. Find the folder that holds {ref} and move {name} there from Download.",
        "Using Files, file {name} away in the folder that contains {ref}; it's currently in Download.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        parent, sub, ref = rng.choice(NEXT_TO)
        return {"name": rng.choice(("signed_addendum.pdf", "scan_page2.pdf", "receipt_0931.jpg", "letter.docx")),
                "ref": ref, "parent": parent, "sub": sub, "size": rng.randint(60, 700) * 1000 + 29}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        plant(phone, "Download", params["name"], params["size"], days_ago=1)
        plant(phone, f"Documents/{params['parent']}/{params['sub']}", params["ref"], 233_000, days_ago=90)
        storage.mkdir(phone, f"{ROOT}/Documents/{params['sub']}", exist_ok=True)  # a look-alike, empty folder

    def dest(self, params: dict[str, Any]) -> str:
        return f"{ROOT}/Documents/{params['parent']}/{params['sub']}"

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        src = f"{ROOT}/Download/{params['name']}"
        want = (f"{self.dest(params)}/{params['name']}", 0, params["size"])
        return 1.0 if changed_exactly(phone, self, params, [src], [want]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        # normally in Download; after a slip it may sit elsewhere (a copy left in Download is moved first)
        where = sorted((e.parent != f"{ROOT}/Download", e.path) for e in storage.search(phone, params["name"])
                       if e.name == params["name"] and not e.is_dir and e.parent != self.dest(params))
        if not where:
            return BACK
        return transfer_action(phone, obs, [where[0][1]], self.dest(params), "move")


EXCEPT_SETS = (("Telegram", ("IMG_2231.jpg", "IMG_2232.jpg", "sticker_pack.webp", "voice_0412.ogg",
                             "menu_photo.jpg")),
               ("WhatsApp Images", ("IMG-20240901-WA0003.jpg", "IMG-20240903-WA0011.jpg", "IMG-20240907-WA0002.jpg",
                                    "IMG-20240912-WA0007.jpg")),
               ("Bluetooth", ("beach_01.jpg", "beach_02.jpg", "beach_03.jpg", "group_selfie.jpg")))


@register_task
class MoveAllExcept(TaskTemplate):
    name = "files_move_all_except"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 13
    goal_template = "Move everything in Download/{sub} to {dest} except {keep}, which should stay where it is."
    goal_phrasings = (
        "Could you move all the files from Download/{sub} into {dest}, apart from {keep}?",
        "Using Files, empty Download/{sub} into {dest}, leaving only {keep} behind.",
        "Every file in Download/{sub} but {keep} goes to {dest}; {keep} stays in Download/{sub}.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        sub, names = rng.choice(EXCEPT_SETS)
        files = sorted(rng.sample(names, rng.randint(3, 4)))
        return {"sub": sub, "files": files, "keep": rng.choice(files), "dest": rng.choice(("Pictures", "Documents"))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, name in enumerate(params["files"]):
            plant(phone, f"Download/{params['sub']}", name, 140_000 + 27_103 * i, days_ago=8 + i)

    def sources(self, params: dict[str, Any]) -> list[str]:
        return [f"{ROOT}/Download/{params['sub']}/{n}" for n in params["files"] if n != params["keep"]]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        dest = f"{ROOT}/{params['dest']}"
        added = [(f"{dest}/{posixpath.basename(p)}", 0, 140_000 + 27_103 * params["files"].index(
            posixpath.basename(p))) for p in self.sources(params)]
        return 1.0 if changed_exactly(phone, self, params, self.sources(params), added) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        home = f"{ROOT}/Download/{params['sub']}"
        if not storage.exists(phone, f"{home}/{params['keep']}"):  # moved away by mistake: bring it back
            return gather_into(phone, obs, [params["keep"]], home)
        return gather_into(phone, obs, [posixpath.basename(p) for p in self.sources(params)], f"{ROOT}/{params['dest']}")


# ---- round 4: file info reads, derived numbers and names, restore, conditional moves, fix-the-odd-one ------------
def info_action(phone: Phone, obs: Observation, path: str) -> Action | None:
    """Next action toward the File info dialog of ``path`` (absolute) in the browser; None once it shows."""
    dlg = phone.dialog
    if phone.foreground == APP and dlg is not None and dlg.name == "info" and dlg.data.get("path") == path:
        return None
    step = browse_to(phone, obs, posixpath.dirname(path))
    if step is not None:
        return step
    if phone.menu_open:
        return BACK
    return item(phone, obs, posixpath.basename(path))


def minutes_in(text: str | None) -> int | None:
    """The one duration an answer states, in minutes ("95", "95 minutes", "1 h 35 min", "1 hour and 35 minutes")."""
    if not text:
        return None
    t = text.lower().replace(",", "")
    m = re.fullmatch(r"\D*?(\d+)\s*(?:h|hr|hrs|hour|hours)\b\W*(?:and\s+)?(\d+)\s*(?:m|min|mins|minute|minutes)\b\W*",
                     t)
    if m:
        return int(m.group(1)) * 60 + int(m.group(2))
    nums = re.findall(r"(?<![\w.])\d+(?!\w|\.\d)", t)  # standalone numbers: not the digits of a file name
    if len(nums) != 1 or re.search(r"\b(?:h|hr|hrs|hour|hours)\b", t):
        return None
    return int(nums[0])


SAVED_SETS = (("lecture_part1.m4a", "lecture_part2.m4a", "lecture_questions.m4a"),
              ("scan_page1.pdf", "scan_page2.pdf", "scan_cover.pdf"),
              ("draft_intro.docx", "draft_conclusion.docx", "draft_outline.docx"),
              ("receipt_lunch.jpg", "receipt_taxi.jpg", "receipt_hotel.jpg"))


@register_task
class QueryMinutesBetweenSaves(TaskTemplate):
    name = "files_query_minutes_between_saves"
    apps = ("Files",)
    kind = "query"
    complexity = 3
    optimal_steps = 5
    goal_template = ("{name_a} and {name_b} in {folder} were last modified on the same day. How many minutes after "
                     "{name_a} was {name_b} modified? Answer with a number of minutes.")
    goal_phrasings = (
        ("Check the modified times of {name_a} and {name_b} (both in {folder}): how many minutes later was "
        "{name_b} saved than {name_a}?"),
        ("Could you tell me, in minutes, how long after {name_a} the file {name_b} was last changed? Both are "
        "in my {folder} folder."),
        "In Files, {folder}: minutes between the last modification of {name_a} and that of {name_b}?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        from droidverify.env.sim.phone import DEFAULT_NOW

        a, b, c = rng.choice(SAVED_SETS)
        if rng.random() < 0.5:
            a, b = b, a
        day = (DEFAULT_NOW - timedelta(days=rng.randint(3, 40))).replace(hour=rng.randint(8, 15),
                                                                        minute=rng.randint(0, 59), second=0)
        gap = rng.randint(12, 250)
        third = rng.choice([g for g in range(8, 250) if abs(g - gap) >= 5 and g != 2 * gap])
        return {"folder": rng.choice(("Documents", "Download")), "name_a": a, "name_b": b, "other": c,
                "at": day.isoformat(), "gap": gap, "other_gap": third,
                "sizes": [rng.randint(40, 900) * 1000 + rng.randint(0, 999) for _ in range(3)]}

    def paths(self, params: dict[str, Any]) -> list[str]:
        return [f"{ROOT}/{params['folder']}/{params[k]}" for k in ("name_a", "name_b", "other")]

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        at = datetime.fromisoformat(params["at"])
        for path, gap, size in zip(self.paths(params), (0, params["gap"], params["other_gap"]), params["sizes"]):
            plant_at(phone, path, size, at + timedelta(minutes=gap))

    def minutes(self, phone: Phone, params: dict[str, Any]) -> int | None:
        a, b, _ = self.paths(params)
        if not (storage.exists(phone, a) and storage.exists(phone, b)):
            return None
        return (storage.stat(phone, b).modified - storage.stat(phone, a).modified) // 60

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = self.minutes(phone, params)
        return 1.0 if want is not None and minutes_in(answer) == want else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = info_action(phone, obs, self.paths(params)[1])  # its time, next to the first one's (read off state)
        return step or answer(f"{self.minutes(phone, params)} minutes")


SAME_SIZE_NAMES = ("wedding_video_edit.mp4", "insurance_policy.pdf", "holiday_album.zip", "thesis_final.docx",
                   "house_contract.pdf")


@register_task
class QueryCopiesSameSize(TaskTemplate):
    name = "files_query_copies_same_size"
    apps = ("Files",)
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = ("I have {name} in both Download and Documents. Are the two copies exactly the same size, down "
                     "to the byte? Answer yes or no.")
    goal_phrasings = (
        "Is the {name} in Documents byte-for-byte the same size as the {name} in Download? Yes or no.",
        ("Could you compare the exact sizes in bytes of my two copies of {name} (Download and Documents) and tell "
        "me yes if they match, no if they don't?"),
        ("Yes or no: do both copies of {name}, the one in Download and the one in Documents, have the same number "
        "of bytes?"),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        size = rng.randint(1100, 9800) * 1000 + rng.randint(0, 99)
        same = rng.random() < 0.5
        # a different copy differs by a few hundred bytes: the list shows the same size, File info does not
        other = size if same else size + rng.randint(101, 899)
        return {"name": rng.choice(SAME_SIZE_NAMES), "same": same, "sizes": [size, other]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        size, other = params["sizes"]
        plant(phone, "Download", params["name"], size, days_ago=12)
        plant(phone, "Documents", params["name"], other, days_ago=4)
        stem, ext = posixpath.splitext(params["name"])
        # a look-alike in Download whose bytes give the opposite answer
        plant(phone, "Download", f"{stem} (1){ext}", other if not params["same"] else size + 313, days_ago=3)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        paths = [f"{ROOT}/{f}/{params['name']}" for f in ("Download", "Documents")]
        if not all(storage.exists(phone, p) for p in paths):
            return 0.0
        now_same = len({storage.stat(phone, p).size for p in paths}) == 1
        said = yes_no(answer)
        return 1.0 if said is not None and said == now_same == params["same"] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = info_action(phone, obs, f"{ROOT}/Documents/{params['name']}")
        if step is not None:
            return step
        sizes = {storage.stat(phone, f"{ROOT}/{f}/{params['name']}").size for f in ("Download", "Documents")}
        return answer("Yes" if len(sizes) == 1 else "No")


COUNT_FOLDERS = (("Scans", "scan"), ("Statements", "statement"), ("Payslips", "payslip"), ("Lecture slides", "slides"))


@register_task
class QueryCountModifiedBefore(TaskTemplate):
    name = "files_query_count_modified_before"
    apps = ("Files",)
    kind = "query"
    complexity = 2
    optimal_steps = 6
    goal_template = ("How many files in Documents/{folder} were last modified before {date_text}? "
                     "Answer with a number.")
    goal_phrasings = (
        "Count the files in my Documents/{folder} folder whose modified date is earlier than {date_text}.",
        "Could you check Documents/{folder} and tell me how many of its files are dated before {date_text}?",
        "Number of files in Documents/{folder} last changed before {date_text} (that day itself doesn't count)?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        from droidverify.env.sim.phone import DEFAULT_NOW

        folder, stem = rng.choice(COUNT_FOLDERS)
        cut = rng.randint(40, 120)  # days ago; files the day before and the day after it are the near misses
        n = rng.randint(12, 15)
        days = [cut + 1, cut - 1] + rng.sample(sorted(set(range(5, 200)) - {cut - 1, cut, cut + 1}), n - 2)
        rng.shuffle(days)
        day = DEFAULT_NOW - timedelta(days=cut)
        return {"folder": folder, "stem": stem, "cut": cut, "days": days,
                "date_text": f"{MONTHS_LONG[day.month - 1]} {day.day}, {day.year}"}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        from droidverify.env.sim.phone import DEFAULT_NOW

        for i, d in enumerate(params["days"], 1):
            when = (DEFAULT_NOW - timedelta(days=d)).replace(hour=11, minute=(7 * i) % 60)
            plant_at(phone, f"{ROOT}/Documents/{params['folder']}/{params['stem']}_{i:02d}.pdf",
                     60_000 + 7_919 * i, when)

    def count(self, phone: Phone, params: dict[str, Any]) -> int:
        from droidverify.env.sim.phone import DEFAULT_NOW

        cut = (DEFAULT_NOW - timedelta(days=params["cut"])).date()
        return sum(1 for e in files_in(phone, f"{ROOT}/Documents/{params['folder']}") if e.modified_dt.date() < cut)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if answer is None or len(re.findall(r"\d+", answer)) != 1:
            return 0.0
        return 1.0 if answer_matches(answer, str(self.count(phone, params))) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        folder = f"{ROOT}/Documents/{params['folder']}"
        step = show_rows(phone, obs, folder, [e.name for e in storage.list_dir(phone, folder)][-1:])
        return step or answer(str(self.count(phone, params)))


TOTAL_FOLDERS = ("Lectures", "Podcasts", "Wallpapers", "Voice notes", "Manuals", "Comics")


@register_task
class QueryBiggerFolderTotal(TaskTemplate):
    name = "files_query_bigger_folder_total"
    apps = ("Files",)
    kind = "query"
    complexity = 3
    optimal_steps = 8
    goal_template = ("Which folder takes up more space in total: Documents/{folder_a} or Documents/{folder_b}? "
                     "Answer with the folder name.")
    goal_phrasings = (
        ("Add up the file sizes in Documents/{folder_a} and in Documents/{folder_b}: which of the two folders is "
        "bigger overall?"),
        "Could you work out whether Documents/{folder_a} or Documents/{folder_b} uses more storage altogether?",
        "Between my Documents folders {folder_a} and {folder_b}, which holds more megabytes in total?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        a, b = rng.sample(TOTAL_FOLDERS, 2)
        many, few = rng.sample((a, b), 2)
        many_wins = rng.random() < 0.5  # the folder with more files is not always the bigger one
        if many_wins:
            many_sizes = [rng.randint(800, 1500) * 1000 + rng.randint(0, 999) for _ in range(rng.randint(5, 7))]
            few_sizes = [rng.randint(500, 1200) * 1000 + rng.randint(0, 999) for _ in range(2)]
        else:
            many_sizes = [rng.randint(100, 400) * 1000 + rng.randint(0, 999) for _ in range(rng.randint(5, 7))]
            few_sizes = [rng.randint(3000, 8000) * 1000 + rng.randint(0, 999) for _ in range(2)]
        return {"folder_a": a, "folder_b": b,
                "files": {many: [[f"part_{i:02d}.bin", s] for i, s in enumerate(many_sizes, 1)],
                          few: [[f"item_{i:02d}.bin", s] for i, s in enumerate(few_sizes, 1)]}}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for folder, files in params["files"].items():
            for i, (name, size) in enumerate(files):
                plant(phone, f"Documents/{folder}", name, size, days_ago=10 + i)

    def totals(self, phone: Phone, params: dict[str, Any]) -> dict[str, int]:
        out = {}
        for k in ("folder_a", "folder_b"):
            path = f"{ROOT}/Documents/{params[k]}"
            out[params[k]] = sum(e.size for e in storage.walk(phone, path) if not e.is_dir) \
                if storage.is_dir(phone, path) else -1
        return out

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        totals = self.totals(phone, params)
        if answer is None or min(totals.values()) < 0:
            return 0.0
        big, small = sorted(totals, key=lambda n: -totals[n])
        said = answer.replace("/", " ")  # "Documents/Comics" names the folder too
        return 1.0 if answer_matches(said, big) and not answer_matches(said, small) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        # read folder a's list, then search for folder b and open it from the results
        a, b = f"{ROOT}/Documents/{params['folder_a']}", f"{ROOT}/Documents/{params['folder_b']}"
        scr = phone.screen
        here = phone.foreground == APP and scr is not None and phone.dialog is None and not phone.menu_open
        if here and scr.name == "main" and not scr.state.get("selected") and scr.state.get("path") == b:
            totals = self.totals(phone, params)
            step = show_rows(phone, obs, b, [e.name for e in storage.list_dir(phone, b)][-1:])
            return step or answer(max(totals, key=lambda n: totals[n]))
        if here and scr.name == "search":
            return searching(phone, obs, params["folder_b"]) or item(phone, obs, params["folder_b"])
        step = show_rows(phone, obs, a, [e.name for e in storage.list_dir(phone, a)][-1:])
        return step or click(obs, desc="Search") or BACK


@register_task
class RenameWithModifiedDate(PlantTemplate):
    name = "files_rename_with_modified_date"
    optimal_steps = 8
    goal_template = ("Add the last-modified date to the name of {name} in {folder}: rename it to "
                     "{stem}_YYYY-MM-DD{ext}, with the date the Files app shows for the file.")
    goal_phrasings = (
        "Rename {folder}/{name} to {stem}_YYYY-MM-DD{ext}, filling in the date it was last modified.",
        ("Could you put the file's modified date into its name? {name} (in {folder}) should become "
        "{stem}_YYYY-MM-DD{ext}."),
        ("In Files, check when {name} in {folder} was last changed and rename it {stem}_YYYY-MM-DD{ext} with that "
        "date."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = super().generate_params(rng)
        p["stem"], p["ext"] = posixpath.splitext(p["name"])
        p["days_ago"] = rng.randint(10, 300)
        p["other_days_ago"] = p["days_ago"] + rng.choice((-7, -1, 1, 30))
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        from droidverify.env.sim.phone import DEFAULT_NOW

        when = (DEFAULT_NOW - timedelta(days=params["days_ago"])).replace(hour=13, minute=5)
        plant_at(phone, self.src(params), params["size"], when)
        other = (DEFAULT_NOW - timedelta(days=params["other_days_ago"])).replace(hour=10, minute=40)
        plant_at(phone, f"{ROOT}/{params['folder']}/{params['stem']} (1){params['ext']}", params["size"] + 2_048,
                 other)  # an older/newer download of it, with another date

    def new_name(self, params: dict[str, Any]) -> str:
        from droidverify.env.sim.phone import DEFAULT_NOW

        day = DEFAULT_NOW - timedelta(days=params["days_ago"])
        return f"{params['stem']}_{day:%Y-%m-%d}{params['ext']}"

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = (f"{ROOT}/{params['folder']}/{self.new_name(params)}", 0, params["size"])
        return 1.0 if changed_exactly(phone, self, params, [self.src(params)], [want]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return rename_action(phone, obs, self.src(params), self.new_name(params))


RESTORABLE = (("household_budget.xlsx", "Documents", 20, 90), ("family_tree.pdf", "Download", 200, 900),
              ("wedding_vows.docx", "Documents", 15, 60), ("recipe_book.pdf", "Download", 300, 2400),
              ("band_logo.png", "Pictures", 100, 800))


@register_task
class RestoreFromBackup(TaskTemplate):
    name = "files_restore_from_backup"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 14
    goal_template = ("{name} in {folder} got corrupted and is now empty (0 B). Restore it from the copy in "
                     "Documents/Backups, and keep the backup there too.")
    goal_phrasings = (
        "My {folder}/{name} shows 0 B now. Replace it with the good copy from Documents/Backups (the backup stays).",
        ("Could you bring back {name} in {folder}? It's an empty file now; there's an intact copy in "
        "Documents/Backups that should also remain."),
        "Using Files, restore the broken {name} in {folder} from Documents/Backups without removing the backup.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, folder, lo, hi = rng.choice(RESTORABLE)
        size = rng.randint(lo, hi) * 1000 + rng.randint(0, 999)
        return {"name": name, "folder": folder, "size": size,
                "old_size": size - rng.randint(3, 12) * 1000 - 211}

    def paths(self, params: dict[str, Any]) -> tuple[str, str]:
        return f"{ROOT}/{params['folder']}/{params['name']}", f"{ROOT}/Documents/Backups/{params['name']}"

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        stem, ext = posixpath.splitext(params["name"])
        plant(phone, params["folder"], params["name"], 0, days_ago=1)
        plant(phone, "Documents/Backups", params["name"], params["size"], days_ago=20)
        plant(phone, "Documents/Backups", f"{stem}_old{ext}", params["old_size"], days_ago=90)  # an older version

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        broken, _ = self.paths(params)
        a, r, c = files_diff(phone, self, params)
        ok = not a and not r and [(old, new) for old, new in c] == [((broken, 0, 0), (broken, 0, params["size"]))]
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        broken, backup = self.paths(params)
        if not storage.exists(phone, backup):
            raise TaskError(f"oracle: the backup {backup!r} is gone")
        if storage.exists(phone, broken) and storage.stat(phone, broken).size != params["size"]:
            return delete_action(phone, obs, [broken])
        if not storage.exists(phone, broken):
            return transfer_action(phone, obs, [backup], f"{ROOT}/{params['folder']}", "copy")
        return BACK


FINISH_SETS = (("Tax 2024", ("W2_form.pdf", "donation_receipt.pdf", "mortgage_statement.pdf", "daycare_invoice.pdf")),
               ("Trip to Rome", ("flight_tickets.pdf", "hotel_booking.pdf", "museum_pass.pdf", "train_rome.pdf")),
               ("New job", ("offer_letter.pdf", "signed_contract.pdf", "benefits_guide.pdf", "badge_photo.jpg")))


@register_task
class FinishMovingToFolder(TaskTemplate):
    name = "files_finish_moving_to_folder"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 15
    goal_template = ("I was moving {list_text} from Download to Documents/{dest_name} and got interrupted. Finish "
                     "the job: each of them should be in Documents/{dest_name} and no longer in Download.")
    goal_phrasings = (
        ("Some of {list_text} already made it from Download into Documents/{dest_name}. Complete the move so all of "
        "them are in Documents/{dest_name} and none is left in Download."),
        ("Could you finish moving {list_text} into Documents/{dest_name}? Part of it is done; nothing of them should "
        "stay in Download."),
        ("Using Files, make sure {list_text} end up in Documents/{dest_name} only (not in Download); I started "
        "this already."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        dest, names = rng.choice(FINISH_SETS)
        picked = rng.sample(names, 4)
        sizes = [rng.randint(40, 900) * 1000 + rng.randint(0, 999) for _ in picked]
        # state of each: moved (only in dest), copied (in both: the original was never deleted), todo (Download)
        states = ["moved", "copied", "todo", "todo"]
        rng.shuffle(states)
        return {"dest_name": dest, "files": [[n, s, st] for n, s, st in zip(picked, sizes, states)],
                "list_text": ", ".join(picked[:-1]) + " and " + picked[-1],
                "other": [rng.choice(("phone_bill.pdf", "gym_schedule.pdf", "pizza_menu.pdf")),
                          rng.randint(40, 900) * 1000 + 17]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, (name, size, state) in enumerate(params["files"]):
            if state != "moved":
                plant(phone, "Download", name, size, days_ago=5 + i)
            if state != "todo":
                plant(phone, f"Documents/{params['dest_name']}", name, size, days_ago=5 + i)
        storage.mkdir(phone, f"{ROOT}/Documents/{params['dest_name']}", exist_ok=True)
        plant(phone, "Download", params["other"][0], params["other"][1], days_ago=2)  # not on the list: stays

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        dest = f"{ROOT}/Documents/{params['dest_name']}"
        removed = [f"{ROOT}/Download/{n}" for n, _, st in params["files"] if st != "moved"]
        added = [(f"{dest}/{n}", 0, s) for n, s, st in params["files"] if st == "todo"]
        return 1.0 if changed_exactly(phone, self, params, removed, added) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        dest = f"{ROOT}/Documents/{params['dest_name']}"
        left = [n for n, _, _ in params["files"] if storage.exists(phone, f"{ROOT}/Download/{n}")]
        to_move = [f"{ROOT}/Download/{n}" for n in left if not storage.exists(phone, f"{dest}/{n}")]
        if to_move:
            return transfer_action(phone, obs, to_move, dest, "move")
        if left:  # already in the folder: the Download copy is a leftover
            return delete_action(phone, obs, [f"{ROOT}/Download/{n}" for n in left])
        raise TaskError("oracle: a listed file is missing from both folders")


NO_EXT_NAMES = ("attachment_0312", "shared_file_7781", "download_2291", "export_final", "received_item")
NO_EXT_TYPES = (("image/jpeg", "Pictures"), ("audio/mpeg", "Music"), ("application/pdf", "Documents"),
                ("application/zip", "Documents"), ("image/png", "Pictures"), ("audio/mp4", "Music"))


@register_task
class MoveByTypeNoExtension(TaskTemplate):
    name = "files_move_by_type_no_extension"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 9
    goal_template = ("{name} in Download has no file extension. Check its type in the Files app's file info: if it "
                     "is an image, move it to Pictures; if it is audio, move it to Music; otherwise move it to "
                     "Documents.")
    goal_phrasings = (
        ("Look up the type of {name} (in Download, no extension) in File info. Image: move it to Pictures. Audio: "
        "move it to Music. Anything else: move it to Documents."),
        ("Could you sort {name} out of my Download folder by its type as Files reports it? Images go to Pictures, "
        "audio to Music, and everything else to Documents."),
        ("Using Files, find out what kind of file {name} in Download is and move it: Pictures for an image, Music "
        "for audio, Documents for any other type."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, other = rng.sample(NO_EXT_NAMES, 2)
        mime, dest = rng.choice(NO_EXT_TYPES)
        other_mime = rng.choice([m for m, d in NO_EXT_TYPES if d != dest])
        return {"name": name, "mime": mime, "dest": dest, "size": rng.randint(90, 4000) * 1000 + 123,
                "other": [other, other_mime, rng.randint(90, 4000) * 1000 + 45]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        from droidverify.env.sim.phone import DEFAULT_NOW

        storage.write_file(phone, f"{ROOT}/Download/{params['name']}", None, size=params["size"], mime=params["mime"],
                           modified=DEFAULT_NOW - timedelta(days=2, hours=3))
        other, mime, size = params["other"]  # another extension-less download of another type: it stays
        storage.write_file(phone, f"{ROOT}/Download/{other}", None, size=size, mime=mime,
                           modified=DEFAULT_NOW - timedelta(days=4, hours=1))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = (f"{ROOT}/{params['dest']}/{params['name']}", 0, params["size"])
        return 1.0 if changed_exactly(phone, self, params, [f"{ROOT}/Download/{params['name']}"], [want]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        where = sorted(e.path for e in storage.search(phone, params["name"])
                       if e.name == params["name"] and not e.is_dir and e.parent != f"{ROOT}/{params['dest']}")
        if not where:
            raise TaskError(f"oracle: no {params['name']!r} to move")
        return transfer_action(phone, obs, where[:1], f"{ROOT}/{params['dest']}", "move")


ALBUMS = ("Holiday", "Kids", "Garden", "Renovation", "Birthday party")
WRONG_EXTS = ((".txt", "captions.txt", "text/plain"), (".pdf", "album_order_form.pdf", "application/pdf"),
              (".mp4", "slideshow.mp4", "video/mp4"))


@register_task
class FixWrongExtension(TaskTemplate):
    name = "files_fix_wrong_extension"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 9
    goal_template = ("Every photo in Pictures/{album} is a JPEG image, but one of them was saved with the wrong "
                     "extension. Rename that photo so its name ends in .jpg (keep the rest of the name).")
    goal_phrasings = (
        ("One of the JPEG photos in Pictures/{album} has a wrong file extension. Fix its name so it ends with .jpg, "
        "leaving everything before the extension as it is."),
        ("Could you find the photo in Pictures/{album} whose extension doesn't match its JPEG type and rename it to "
        "end in .jpg?"),
        "Using Files, correct the misnamed photo in Pictures/{album}: it is a JPEG, so its extension should be .jpg.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        nums = rng.sample(range(1000, 9999), rng.randint(4, 5))
        wrong_ext, other, other_mime = rng.choice(WRONG_EXTS)
        photos = [[f"IMG_{n}.jpg", rng.randint(1_500, 4_800) * 1000 + 7 * k] for k, n in enumerate(nums)]
        k = rng.randrange(len(photos))
        photos[k][0] = photos[k][0][:-4] + wrong_ext
        return {"album": rng.choice(ALBUMS), "photos": photos, "wrong": photos[k][0],
                "other": [other, other_mime, rng.randint(3, 400) * 1000 + 11]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        from droidverify.env.sim.phone import DEFAULT_NOW

        folder = f"{ROOT}/Pictures/{params['album']}"
        for i, (name, size) in enumerate(params["photos"]):
            storage.write_file(phone, f"{folder}/{name}", None, size=size, mime="image/jpeg",
                               modified=DEFAULT_NOW - timedelta(days=30 + i, hours=i), parents=True)
        other, mime, size = params["other"]  # not a photo: its extension is right
        storage.write_file(phone, f"{folder}/{other}", None, size=size, mime=mime,
                           modified=DEFAULT_NOW - timedelta(days=25))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        folder = f"{ROOT}/Pictures/{params['album']}"
        size = next(s for n, s in params["photos"] if n == params["wrong"])
        want = (f"{folder}/{posixpath.splitext(params['wrong'])[0]}.jpg", 0, size)
        return 1.0 if changed_exactly(phone, self, params, [f"{folder}/{params['wrong']}"], [want]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        folder = f"{ROOT}/Pictures/{params['album']}"
        return rename_action(phone, obs, f"{folder}/{params['wrong']}", posixpath.splitext(params["wrong"])[0] + ".jpg")


COUNTED_FOLDERS = ("Scans", "Receipts", "Lecture notes", "Contracts", "Sheet music")


@register_task
class RenameFolderWithCount(TaskTemplate):
    name = "files_rename_folder_with_count"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 8
    goal_template = ("Rename the folder \"{folder_name}\" in Documents so its name also says how many files it "
                     "holds, as \"{folder_name} (N files)\" with N the number of files in it.")
    goal_phrasings = (
        ("Count the files in Documents/{folder_name}, then rename that folder to \"{folder_name} (N files)\", "
        "N being the count."),
        ("Could you add the file count to my Documents folder \"{folder_name}\"? It should be called "
        "\"{folder_name} (N files)\" where N is how many files are inside."),
        ("Using Files, give Documents/{folder_name} the name \"{folder_name} (N files)\" with N replaced by its "
        "number of files."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        n = rng.randint(6, 12)
        return {"folder_name": rng.choice(COUNTED_FOLDERS), "count": n, "other_count": rng.choice(
            [k for k in range(2, 12) if k != n]), "other_year": rng.choice((2022, 2023))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i in range(params["count"]):
            plant(phone, f"Documents/{params['folder_name']}", f"page_{i + 1:02d}.pdf", 30_000 + 4_111 * i,
                  days_ago=20 + i)
        look_alike = f"Documents/{params['folder_name']} {params['other_year']}"  # a look-alike with another count
        for i in range(params["other_count"]):
            plant(phone, look_alike, f"page_{i + 1:02d}.pdf", 25_000 + 3_001 * i, days_ago=300 + i)

    def new_name(self, phone: Phone, params: dict[str, Any]) -> str:
        src = f"{ROOT}/Documents/{params['folder_name']}"
        n = sum(1 for r in tree_rows(phone, self, params, src) if not r[1] and posixpath.dirname(r[0]) == src)
        return f"{params['folder_name']} ({n} files)"

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        src = f"{ROOT}/Documents/{params['folder_name']}"
        dst = f"{ROOT}/Documents/{self.new_name(phone, params)}"
        rows = tree_rows(phone, self, params, src)
        return 1.0 if changed_exactly(phone, self, params, [r[0] for r in rows], moved_rows(rows, src, dst)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return rename_action(phone, obs, f"{ROOT}/Documents/{params['folder_name']}", self.new_name(phone, params))


PREFIX_FILES = ("report.pdf", "budget.xlsx", "itinerary.pdf", "minutes.docx", "poster.png", "invoice_0921.pdf")


@register_task
class RemoveNamePrefix(TaskTemplate):
    name = "files_remove_name_prefix"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 16
    goal_template = ("By mistake I put \"{prefix}\" in front of some file names in Documents/{folder}. Remove that "
                     "prefix from those names and leave the other files' names alone.")
    goal_phrasings = (
        ("Undo my renaming slip in Documents/{folder}: the files whose names start with \"{prefix}\" should lose that "
        "prefix; other files keep their names."),
        ("Could you strip the \"{prefix}\" at the start of the file names in Documents/{folder}? Only those names "
        "change."),
        ("In Files, rename every file in Documents/{folder} that begins with \"{prefix}\" to the same name without "
        "\"{prefix}\"; nothing else."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        prefix = rng.choice(("copy_", "old_", "tmp_"))
        names = rng.sample(PREFIX_FILES, 4)
        k = rng.randint(2, 3)
        word = prefix.rstrip("_")
        return {"prefix": prefix, "folder": rng.choice(("Work", "Club", "Move house")),
                "prefixed": names[:k], "plain": names[k:] + [f"notes_{word}_2.txt"],
                "sizes": [rng.randint(20, 600) * 1000 + i for i in range(len(names) + 1)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        names = [params["prefix"] + n for n in params["prefixed"]] + params["plain"]
        for i, (name, size) in enumerate(zip(names, params["sizes"])):
            plant(phone, f"Documents/{params['folder']}", name, size, days_ago=6 + i)

    def plan(self, params: dict[str, Any]) -> list[tuple[str, str, int]]:
        folder = f"{ROOT}/Documents/{params['folder']}"
        return [(f"{folder}/{params['prefix']}{n}", f"{folder}/{n}", s)
                for n, s in zip(params["prefixed"], params["sizes"])]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        plan = self.plan(params)
        ok = changed_exactly(phone, self, params, [o for o, _, _ in plan], [(n, 0, s) for _, n, s in plan])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        for old, new, _ in self.plan(params):
            if storage.exists(phone, old):
                return rename_action(phone, obs, old, posixpath.basename(new))
        raise TaskError("oracle: no prefixed file left to rename")


BYTES_FOLDERS = (("Bluetooth", ("beach_01.jpg", "beach_02.jpg", "beach_03.jpg", "beach_04.jpg", "group_selfie.jpg")),
                 ("Telegram", ("voice_0412.ogg", "voice_0413.ogg", "voice_0415.ogg", "voice_0420.ogg", "voice_0501.ogg")),
                 ("WhatsApp Documents", ("menu.pdf", "floor_plan.pdf", "quote_v1.pdf", "quote_v2.pdf", "agenda.pdf")))


@register_task
class QueryFileByExactSize(TaskTemplate):
    name = "files_query_file_by_exact_size"
    apps = ("Files",)
    kind = "query"
    complexity = 3
    optimal_steps = 6
    goal_template = "One of the files in Download/{folder} is exactly {bytes_text} bytes. Which one? Answer with its name."
    goal_phrasings = (
        "Which file in my Download/{folder} folder has a size of exactly {bytes_text} bytes? Give me its file name.",
        "Could you find the file of {bytes_text} bytes in Download/{folder} and tell me what it's called?",
        "Download/{folder}: name of the file that is {bytes_text} bytes, to the byte?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        folder, names = rng.choice(BYTES_FOLDERS)
        picked = rng.sample(names, 4)
        k = rng.randint(1100, 8900)  # every file shows as the same size in the list; File info tells them apart
        sizes = [k * 1000 + b for b in rng.sample(range(1000), 4)]
        t = rng.randrange(4)
        return {"folder": folder, "files": [[n, s] for n, s in zip(picked, sizes)], "target": picked[t],
                "bytes_text": f"{sizes[t]:,}"}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, (name, size) in enumerate(params["files"]):
            plant(phone, f"Download/{params['folder']}", name, size, days_ago=3 + i)

    def size(self, params: dict[str, Any]) -> int:
        return int(params["bytes_text"].replace(",", ""))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        folder = f"{ROOT}/Download/{params['folder']}"
        entries = files_in(phone, folder) if storage.is_dir(phone, folder) else []
        hits = [e.name for e in entries if e.size == self.size(params)]
        others = [e.name for e in entries if e.name not in hits]
        ok = len(hits) == 1 and answer_matches(answer, hits[0]) and not any(answer_matches(answer, n) for n in others)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        folder = f"{ROOT}/Download/{params['folder']}"
        hit = in_folder(phone, folder, self.size(params)) if storage.is_dir(phone, folder) else None
        if hit is None:
            raise TaskError(f"oracle: no file of {params['bytes_text']} bytes in {folder!r}")
        step = info_action(phone, obs, hit)
        return step or answer(posixpath.basename(hit))


# ---- round 5: the sort dialog, Select all, breadcrumbs, folder copies, search-result sizes, derived names and dates ----
SORT_LABELS = {"name": "Name", "modified": "Date modified", "size": "Size"}


def go_to(phone: Phone, obs: Observation, folder: str, *, keep_selection: bool = False) -> Action | None:
    """Like :func:`browse_to`, but climbs to an ancestor by tapping its breadcrumb when it shows."""
    scr = phone.screen
    if phone.foreground == APP and scr is not None and scr.name == "main" and phone.dialog is None \
            and not phone.menu_open and not scr.state.get("selected"):
        cur = scr.state.get("path", ROOT)
        common = folder
        while common != ROOT and not (cur == common or cur.startswith(common + "/")):
            common = posixpath.dirname(common)
        if common != cur:  # climb to the deepest shared folder at once
            label = "Internal storage" if common == ROOT else posixpath.basename(common)
            i = find(obs, text=label, resource_id="breadcrumb_text", clickable=True)
            if i is not None:
                return Action(action_type="click", index=i)
    return browse_to(phone, obs, folder, keep_selection=keep_selection)


def sorted_by(phone: Phone, obs: Observation, folder: str, key: str) -> Action | None:
    """Browse to ``folder`` and sort its list by ``key`` with the Sort by dialog; None once so (list at the top)."""
    scr = phone.screen
    dlg = phone.dialog
    if phone.foreground == APP and dlg is not None and dlg.name == "choice" and dlg.data.get("on_ok") == "set_sort" \
            and scr is not None and scr.name == "main" and scr.state.get("path") == folder:
        return click_in(obs, "dialog", text=SORT_LABELS[key]) or BACK
    step = go_to(phone, obs, folder)
    if step is not None:
        return step
    scr = phone.screen
    assert scr is not None
    if scr.state.get("sort", "name") == key:
        return BACK if phone.menu_open else None
    if phone.menu_open:
        return click_in(obs, "menu", text="Sort by\u2026") or BACK
    return click(obs, desc="More options") or BACK


def select_all(phone: Phone, obs: Observation, folder: str) -> Action | None:
    """In ``folder``, select every entry with the selection menu's Select all; None once all are selected."""
    step = go_to(phone, obs, folder, keep_selection=True)
    if step is not None:
        return step
    scr = phone.screen
    assert scr is not None
    entries = [e.path for e in storage.list_dir(phone, folder)]
    sel = scr.state.get("selected", [])
    if entries and set(sel) == set(entries):
        return None
    if not entries:
        raise TaskError(f"oracle: {folder!r} is empty")
    if not sel:
        return BACK if phone.menu_open else item(phone, obs, posixpath.basename(entries[0]), long=True)
    if phone.menu_open:
        return click_in(obs, "menu", text="Select all") or BACK
    return click(obs, desc="More options") or BACK


def picker_step(phone: Phone, obs: Observation, paths: list[str], dest: str, mode: str) -> Action | None:
    """On the picker for exactly ``paths``: the next step toward ``dest`` and its confirm button; else None."""
    scr = phone.screen
    if phone.foreground == APP and scr is not None and scr.name == "picker" and phone.dialog is None \
            and scr.args.get("mode") == mode and set(scr.args.get("sources", [])) == set(paths):
        cur = scr.state.get("path", ROOT)
        if cur == dest:
            return click(obs, resource_id="btn_confirm") or BACK
        if dest.startswith(cur + "/"):
            return item(phone, obs, dest[len(cur) + 1:].split("/")[0])
        return BACK  # the picker climbs to the parent folder
    return None


def move_all_to(phone: Phone, obs: Observation, folder: str, dest: str) -> Action:
    """Select everything in ``folder`` (Select all) and move it into ``dest``."""
    entries = [e.path for e in storage.list_dir(phone, folder)]
    step = picker_step(phone, obs, entries, dest, "move")
    if step is not None:
        return step
    step = select_all(phone, obs, folder)
    if step is not None:
        return step
    if phone.menu_open:
        return click_in(obs, "menu", text="Move to\u2026") or BACK
    return click(obs, desc="More options") or BACK


def table_is(phone: Phone, template: TaskTemplate, params: dict[str, Any], drop: list[str],
             add: list[tuple[str, int, int]]) -> bool:
    """Whether the whole ``files`` table equals its starting rows less the ``drop`` paths plus the ``add`` rows."""
    before = baseline_rows(phone, template, params, FILES_SQL)
    want = sorted([tuple(r) for r in before if r[0] not in set(drop)] + [tuple(r) for r in add])
    return sorted(tuple(r) for r in phone.query(FILES_SQL)) == want


def answer_names(text: str | None, names: list[str]) -> set[str]:
    """The names of ``names`` that the answer states (with or without the extension)."""
    pos = named_positions(text or "", names)
    return {n for n, p in zip(names, pos) if p is not None}


BACKUP_FOLDERS = (("Thesis", ("chapter1.docx", "chapter2.docx", "chapter3.docx", "figures.pptx", "references.bib")),
                  ("Novel", ("part_one.docx", "part_two.docx", "outline.docx", "characters.xlsx", "cover.png")),
                  ("Band", ("setlist.pdf", "tour_dates.xlsx", "logo.png", "contract_venue.pdf", "lyrics.docx")))


@register_task
class RefreshFolderBackup(TaskTemplate):
    name = "files_refresh_folder_backup"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 13
    goal_template = ("Documents/Backups/{folder} is an old backup of my Documents/{folder} folder. Replace it with a "
                     "fresh copy of Documents/{folder} as it is now, so the backup matches it exactly; keep the "
                     "original folder and my other backups.")
    goal_phrasings = (
        ("My backup in Documents/Backups/{folder} is out of date. Swap it for a new copy of the whole "
         "Documents/{folder} folder; the original and the other backups stay as they are."),
        ("I need Documents/Backups/{folder} to be an exact, current copy of Documents/{folder}. Could you throw out "
         "the old backup and copy the folder there again? Don't touch my other backups."),
        ("Because I changed a lot in Documents/{folder} since my last backup, please redo the backup: "
         "Documents/Backups/{folder} should end up identical to Documents/{folder}, which stays where it is."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (folder, names), (other, onames) = rng.sample(BACKUP_FOLDERS, 2)
        now = rng.sample(names, 4)
        old = now[:2] + [n for n in names if n not in now][:1]  # a file deleted since, two kept (older sizes)
        return {"folder": folder, "other": other,
                "files": [[n, rng.randint(20, 900) * 1000 + 3 * i] for i, n in enumerate(now)],
                "old": [[n, rng.randint(20, 900) * 1000 + 5 * i + 1] for i, n in enumerate(old)],
                "other_files": [[n, rng.randint(20, 900) * 1000 + i] for i, n in enumerate(rng.sample(onames, 2))]}

    def paths(self, params: dict[str, Any]) -> tuple[str, str]:
        return f"{ROOT}/Documents/{params['folder']}", f"{ROOT}/Documents/Backups/{params['folder']}"

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, (n, s) in enumerate(params["files"]):
            plant(phone, f"Documents/{params['folder']}", n, s, days_ago=1 + i)
        for i, (n, s) in enumerate(params["old"]):
            plant(phone, f"Documents/Backups/{params['folder']}", n, s, days_ago=40 + i)
        for i, (n, s) in enumerate(params["other_files"]):  # another backup: it stays
            plant(phone, f"Documents/Backups/{params['other']}", n, s, days_ago=50 + i)

    def want(self, phone: Phone, params: dict[str, Any]) -> tuple[list[str], list[tuple[str, int, int]]]:
        src, bak = self.paths(params)
        old = [r[0] for r in tree_rows(phone, self, params, bak)]
        return old, moved_rows(tree_rows(phone, self, params, src), src, bak)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        drop, add = self.want(phone, params)
        return 1.0 if table_is(phone, self, params, drop, add) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        src, bak = self.paths(params)
        if storage.exists(phone, bak):  # the old backup (or a wrong copy) goes first: a copy can't overwrite it
            return delete_action(phone, obs, [bak])
        return transfer_action(phone, obs, [src], posixpath.dirname(bak), "copy")


SHARE_SETS = (("Wedding", ("guest_list.pdf", "menu_tasting.pdf", "venue_contract.pdf", "seating_plan.pdf",
                           "playlist.txt", "budget.xlsx", "invitation.png")),
              ("Renovation", ("quote_kitchen.pdf", "floor_plan.pdf", "permit.pdf", "tile_catalogue.pdf",
                              "measurements.txt", "costs.xlsx", "before.jpg")),
              ("Club", ("rules.pdf", "minutes_march.pdf", "membership_form.pdf", "fixtures.pdf",
                        "notes.txt", "members.xlsx", "team_photo.jpg")))


@register_task
class CopyMissingPdfs(TaskTemplate):
    name = "files_copy_missing_pdfs_to_shared"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 14
    goal_template = ("I share my PDFs from Documents/{folder} with {who} through Download/{shared}, which already "
                     "has some of them. Copy the PDFs it doesn't have yet into Download/{shared}; the other files "
                     "in Documents/{folder} aren't for sharing.")
    goal_phrasings = (
        ("Download/{shared} (shared with {who}) should have every PDF from Documents/{folder}; a few are there "
         "already. Copy over only the missing PDFs and nothing else, keeping the originals."),
        ("Make sure each PDF in Documents/{folder} also has a copy in Download/{shared}, the folder I share with "
         "{who}. Some are done; no other kinds of files should go there."),
        ("Could you finish sharing my Documents/{folder} PDFs with {who}? Copy into Download/{shared} every PDF "
         "that isn't there yet, and leave the non-PDF files out."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        folder, names = rng.choice(SHARE_SETS)
        pdfs = [n for n in names if n.endswith(".pdf")]
        done = rng.sample(pdfs, rng.randint(1, 2))
        return {"folder": folder, "who": rng.choice(("Ana", "my brother", "Priya", "the committee")),
                "shared": rng.choice(("Shared with Ana", "To share", "Outbox")),
                "files": [[n, rng.randint(40, 2400) * 1000 + 9 * i] for i, n in enumerate(names)],
                "done": sorted(done)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, (n, s) in enumerate(params["files"]):
            plant(phone, f"Documents/{params['folder']}", n, s, days_ago=3 + i)
            if n in params["done"]:
                plant(phone, f"Download/{params['shared']}", n, s, days_ago=1)
        plant(phone, f"Download/{params['shared']}", "holiday_photos.zip", 3_400_123, days_ago=9)  # theirs: stays

    def missing(self, params: dict[str, Any]) -> list[tuple[str, int]]:
        return [(n, s) for n, s in params["files"] if n.endswith(".pdf") and n not in params["done"]]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        dest = f"{ROOT}/Download/{params['shared']}"
        add = [(f"{dest}/{n}", 0, s) for n, s in self.missing(params)]
        return 1.0 if table_is(phone, self, params, [], add) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        src, dest = f"{ROOT}/Documents/{params['folder']}", f"{ROOT}/Download/{params['shared']}"
        if all(storage.exists(phone, f"{dest}/{n}") for n, _ in self.missing(params)):
            raise TaskError("oracle: every PDF is copied but the folders differ otherwise")
        # every PDF at once: the copies the shared folder already has are skipped ("already existed")
        pdfs = [e.path for e in files_in(phone, src) if e.name.endswith(".pdf")]
        return transfer_action(phone, obs, pdfs, dest, "copy")


VERSION_FILES = (("annual_report.pdf", 800, 4000), ("thesis_final.docx", 200, 900), ("site_plan.dwg", 1500, 9000),
                 ("podcast_mix.mp3", 9000, 40000), ("portfolio.zip", 5000, 30000))


@register_task
class KeepLargerVersion(TaskTemplate):
    name = "files_keep_larger_version"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 9
    goal_template = ("I have two versions of {name}, one in Download and one in Documents, and the bigger one is the "
                     "complete version. If the Documents copy is the bigger one, just delete the Download copy; "
                     "otherwise replace the Documents copy with the one from Download.")
    goal_phrasings = (
        ("Compare the sizes of {name} in Download and in Documents. When the Documents one is larger, delete the one "
         "in Download; when the Download one is larger, move it into Documents in place of the smaller copy."),
        ("Only the complete (larger) version of {name} should be left, and it belongs in Documents. Could you check "
         "which of my two copies, Download or Documents, is bigger and clean up accordingly?"),
        ("Since an interrupted download leaves a smaller file, make sure Documents ends up with the bigger of my two "
         "copies of {name} (Download, Documents) and no copy stays in Download."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, lo, hi = rng.choice(VERSION_FILES)
        big = rng.randint(lo, hi) * 1000 + rng.randint(0, 999)
        small = int(big * rng.uniform(0.3, 0.8))
        where = rng.choice(("Documents", "Download"))
        return {"name": name, "bigger_in": where,
                "sizes": {where: big, ("Download" if where == "Documents" else "Documents"): small},
                "draft_size": big + rng.randint(100, 900) * 1000}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        stem, ext = posixpath.splitext(params["name"])
        plant(phone, "Documents", params["name"], params["sizes"]["Documents"], days_ago=8)
        plant(phone, "Download", params["name"], params["sizes"]["Download"], days_ago=2)
        plant(phone, "Download", f"{stem}_draft{ext}", params["draft_size"], days_ago=5)  # bigger still: not a copy

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        docs, dl = (f"{ROOT}/{f}/{params['name']}" for f in ("Documents", "Download"))
        big = max(params["sizes"].values())
        return 1.0 if table_is(phone, self, params, [docs, dl], [(docs, 0, big)]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        docs, dl = (f"{ROOT}/{f}/{params['name']}" for f in ("Documents", "Download"))
        big = max(params["sizes"].values())
        if storage.exists(phone, docs) and storage.stat(phone, docs).size == big:
            if storage.exists(phone, dl):
                return delete_action(phone, obs, [dl])
            raise TaskError("oracle: Documents has the complete copy but something else changed")
        if storage.exists(phone, docs):
            return delete_action(phone, obs, [docs])
        if storage.exists(phone, dl) and storage.stat(phone, dl).size == big:
            return transfer_action(phone, obs, [dl], f"{ROOT}/Documents", "move")
        raise TaskError("oracle: no complete copy of the file is left")


NEWEST_SETS = (("Bluetooth", ("file_3a9c.jpg", "file_71b2.jpg", "file_0d4e.pdf", "file_88f1.jpg", "file_c2a7.mp4",
                              "file_5e03.jpg", "file_b9d6.pdf", "file_16ac.jpg", "file_e4f0.png", "file_9b3d.jpg",
                              "file_2c85.jpg", "file_d07e.pdf", "file_4fa9.jpg", "file_a61b.png")),
               ("Nearby Share", ("shared_alpha.jpg", "shared_bravo.pdf", "shared_charlie.jpg", "shared_delta.png",
                                 "shared_echo.jpg", "shared_foxtrot.mp4", "shared_golf.jpg", "shared_hotel.pdf",
                                 "shared_india.jpg", "shared_juliet.png", "shared_kilo.jpg", "shared_lima.jpg",
                                 "shared_mike.pdf", "shared_november.jpg")))


@register_task
class MoveThreeNewest(TaskTemplate):
    name = "files_move_three_newest"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 17
    goal_template = ("I need the three files I received most recently in Download/{sub} for my report. Move the three "
                     "most recently modified files in Download/{sub} into Documents/{dest}, and leave the older ones.")
    goal_phrasings = (
        ("Move the 3 newest files (by last-modified date) from Download/{sub} to Documents/{dest}; everything older "
         "stays in Download/{sub}."),
        ("Could you put the three latest arrivals in Download/{sub} into my Documents/{dest} folder? Only those "
         "three, judged by when they were modified."),
        ("Documents/{dest} should get the three most recent files from Download/{sub} (moved, not copied); the rest "
         "of Download/{sub} stays where it is."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        sub, names = rng.choice(NEWEST_SETS)
        picked = rng.sample(names, rng.randint(11, 14))
        # distinct days; the fourth newest is only a day older than the third
        ages = sorted(rng.sample(range(2, 120), len(picked) - 1))
        ages = ages[:3] + [ages[2] + 1] + [a + 2 for a in ages[3:]]
        order = list(range(len(picked)))
        rng.shuffle(order)
        return {"sub": sub, "dest": rng.choice(("Report", "Project files", "Evidence")),
                "files": [[picked[k], rng.randint(50, 4000) * 1000 + k, ages[j]] for j, k in enumerate(order)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        from droidverify.env.sim.phone import DEFAULT_NOW

        for name, size, age in params["files"]:
            plant_at(phone, f"{ROOT}/Download/{params['sub']}/{name}", size,
                     (DEFAULT_NOW - timedelta(days=age)).replace(hour=10 + age % 9, minute=(age * 7) % 60))
        storage.mkdir(phone, f"{ROOT}/Documents/{params['dest']}", exist_ok=True)
        plant(phone, f"Documents/{params['dest']}", "notes_outline.docx", 41_230, days_ago=1)

    def newest(self, params: dict[str, Any]) -> list[tuple[str, int]]:
        return [(n, s) for n, s, _ in sorted(params["files"], key=lambda f: f[2])[:3]]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        src, dest = f"{ROOT}/Download/{params['sub']}", f"{ROOT}/Documents/{params['dest']}"
        new = self.newest(params)
        ok = table_is(phone, self, params, [f"{src}/{n}" for n, _ in new], [(f"{dest}/{n}", 0, s) for n, s in new])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        src, dest = f"{ROOT}/Download/{params['sub']}", f"{ROOT}/Documents/{params['dest']}"
        todo = [f"{src}/{n}" for n, _ in self.newest(params) if storage.exists(phone, f"{src}/{n}")]
        if not todo:
            raise TaskError("oracle: the newest files are gone from the folder")
        step = picker_step(phone, obs, todo, dest, "move")
        if step is not None:
            return step
        scr = phone.screen
        if not (phone.foreground == APP and scr is not None and scr.name == "main" and scr.state.get("path") == src
                and scr.state.get("selected")):
            step = sorted_by(phone, obs, src, "modified")  # newest first: the three are the top rows
            if step is not None:
                return step
        return transfer_action(phone, obs, todo, dest, "move")


FLATTEN_SETS = (("Scans", ("January", "February", "March"), "scan"), ("Lecture notes", ("Week 1", "Week 2", "Week 3"),
                                                                       "notes"),
                ("Receipts", ("Food", "Travel", "Office"), "receipt"))


@register_task
class FlattenSubfolders(TaskTemplate):
    name = "files_flatten_subfolders"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 31
    goal_template = ("My files in Documents/{folder} are split over the subfolders {subs_text}. I want them all "
                     "directly in Documents/{folder}: move every file out of those subfolders up into "
                     "Documents/{folder}, then delete the emptied subfolders.")
    goal_phrasings = (
        ("Flatten Documents/{folder}: the files inside its subfolders {subs_text} should sit directly in "
         "Documents/{folder}, and the subfolders, once empty, should be removed."),
        ("Could you get rid of the subfolders {subs_text} in Documents/{folder} without losing anything? Move their "
         "files up one level into Documents/{folder} first, then delete the empty folders."),
        ("Since browsing subfolders is a pain, I'd like every file from {subs_text} moved up into "
         "Documents/{folder} itself, and those subfolders deleted afterwards."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        folder, subs, stem = rng.choice(FLATTEN_SETS)
        subs = list(subs[:rng.randint(2, 3)])
        n = 0
        tree: dict[str, list[list]] = {}
        for s in subs:
            k = rng.randint(2, 4)
            tree[s] = [[f"{stem}_{n + i + 1:02d}.pdf", rng.randint(30, 900) * 1000 + n + i] for i in range(k)]
            n += k
        top = [[f"{stem}_index.txt", rng.randint(1, 9) * 1000 + 17]]
        return {"folder": folder, "subs": subs, "tree": tree, "top": top,
                "subs_text": ", ".join(f'"{s}"' for s in subs[:-1]) + f' and "{subs[-1]}"',
                "other_year": rng.choice((2021, 2022, 2023))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        base = f"Documents/{params['folder']}"
        for i, (s, files) in enumerate(params["tree"].items()):
            for j, (n, size) in enumerate(files):
                plant(phone, f"{base}/{s}", n, size, days_ago=10 + 5 * i + j)
        for n, size in params["top"]:
            plant(phone, base, n, size, days_ago=2)
        # a look-alike folder of another year keeps its subfolders
        plant(phone, f"{base} {params['other_year']}/{params['subs'][0]}", "old_01.pdf", 55_500, days_ago=400)

    def want(self, params: dict[str, Any]) -> tuple[list[str], list[tuple[str, int, int]]]:
        base = f"{ROOT}/Documents/{params['folder']}"
        drop, add = [], []
        for s, files in params["tree"].items():
            drop.append(f"{base}/{s}")
            for n, size in files:
                drop.append(f"{base}/{s}/{n}")
                add.append((f"{base}/{n}", 0, size))
        return drop, add

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        drop, add = self.want(params)
        return 1.0 if table_is(phone, self, params, drop, add) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        base = f"{ROOT}/Documents/{params['folder']}"
        subs = [f"{base}/{s}" for s in params["subs"] if storage.is_dir(phone, f"{base}/{s}")]
        full = [s for s in subs if storage.list_dir(phone, s)]
        if full:
            scr = phone.screen  # finish the subfolder on screen (or in the picker) first
            here = scr.state.get("path") if phone.foreground == APP and scr is not None and scr.name == "main" else None
            if phone.foreground == APP and scr is not None and scr.name == "picker":
                here = posixpath.dirname(scr.args.get("sources", [""])[0])
            return move_all_to(phone, obs, here if here in full else full[0], base)
        if subs:
            dlg = phone.dialog
            if dlg is None or dlg.name != "confirm":
                step = go_to(phone, obs, base, keep_selection=True)
                if step is not None:
                    return step
            return delete_action(phone, obs, subs)
        raise TaskError("oracle: the subfolders are gone but the files are not all in place")


FOLDER_SETS = (("Taxes", "Insurance", "Car", "Medical"), ("Recipes", "Garden", "Pets", "Holidays"),
               ("Invoices", "Contracts", "Payslips", "Letters"))


@register_task
class EnsureFoldersExist(TaskTemplate):
    name = "files_ensure_folders_exist"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 9
    goal_template = ("Make sure my Documents folder has a folder for each of {list_text}. Some of them may exist "
                     "already: create only the ones that are missing, with exactly those names.")
    goal_phrasings = (
        ("I need the folders {list_text} inside Documents. Check which already exist and add just the missing ones "
         "(no duplicates, nothing renamed)."),
        ("Could you set up Documents so it contains the folders {list_text}? A few might be there already; create "
         "the rest."),
        ("Because I'm reorganising my papers, Documents must end up with the folders {list_text}. Create whichever "
         "of these don't exist yet, and leave the existing ones alone."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        names = list(rng.choice(FOLDER_SETS))
        rng.shuffle(names)
        names = names[:3]
        have = rng.sample(names, rng.randint(1, 2))
        look = rng.choice([n for n in names if n not in have])  # a look-alike of a missing one exists
        return {"names": names, "have": sorted(have), "look_alike": f"{look} {rng.choice(('old', '2023', 'backup'))}",
                "list_text": ", ".join(f'"{n}"' for n in names[:-1]) + f' and "{names[-1]}"'}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, n in enumerate(params["have"]):
            plant(phone, f"Documents/{n}", f"item_{i + 1}.pdf", 120_000 + 1_111 * i, days_ago=30 + i)
        storage.mkdir(phone, f"{ROOT}/Documents/{params['look_alike']}", exist_ok=True)

    def missing(self, params: dict[str, Any]) -> list[str]:
        return [n for n in params["names"] if n not in params["have"]]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        add = [(f"{ROOT}/Documents/{n}", 1, 0) for n in self.missing(params)]
        return 1.0 if table_is(phone, self, params, [], add) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        docs = f"{ROOT}/Documents"
        todo = [n for n in self.missing(params) if not storage.exists(phone, f"{docs}/{n}")]
        if not todo:
            raise TaskError("oracle: every folder exists but something else changed")
        scr = phone.screen
        if phone.foreground == APP and scr is not None and scr.name == "main" and phone.dialog is None \
                and scr.state.get("path") == docs and not phone.menu_open and not scr.state.get("selected"):
            step = show_rows(phone, obs, docs, [e.name for e in storage.list_dir(phone, docs) if e.is_dir][-1:])
            if step is not None:  # look over the existing folders once before creating
                return step
        return new_folder_action(phone, obs, docs, todo[0])


NUMBERED = (("Invoices", "invoice", ".docx", "invoice_template.docx"),
            ("Quotes", "quote", ".docx", "quote_template.docx"),
            ("Timesheets", "timesheet", ".xlsx", "timesheet_template.xlsx"))


@register_task
class CopyTemplateNextNumber(TaskTemplate):
    name = "files_copy_template_next_number"
    apps = ("Files",)
    complexity = 3
    optimal_steps = 17
    goal_template = ("Start a new {stem} from my template: copy Documents/Templates/{template} into "
                     "Documents/{folder} and rename the copy {stem}_NNN{ext}, where NNN is one more than the highest "
                     "number already used in Documents/{folder}.")
    goal_phrasings = (
        ("I need the next {stem} in Documents/{folder}. Make a copy of {template} from Documents/Templates there and "
         "name it {stem}_NNN{ext} with the next free number after the highest one in that folder (three digits)."),
        ("Could you copy Documents/Templates/{template} to Documents/{folder} and give the copy the next number in "
         "the {stem}_NNN{ext} series there? The template itself stays as it is."),
        ("Before I can fill it in, the new {stem} has to exist: put a copy of {template} (in Documents/Templates) in "
         "Documents/{folder}, named {stem}_NNN{ext}, NNN being the highest number there plus one."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        folder, stem, ext, template = rng.choice(NUMBERED)
        nums = sorted(rng.sample(range(12, 140), rng.randint(5, 8)))
        return {"folder": folder, "stem": stem, "ext": ext, "template": template, "numbers": nums,
                "size": rng.randint(15, 90) * 1000 + 321,
                "stray": nums[-1] + rng.randint(3, 20)}  # a higher number, but in Download

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        from droidverify.env.sim.phone import DEFAULT_NOW

        order = list(params["numbers"])
        random.Random(f"{params['folder']}{order}").shuffle(order)  # dates not in number order
        for i, n in enumerate(order):
            plant_at(phone, f"{ROOT}/Documents/{params['folder']}/{params['stem']}_{n:03d}{params['ext']}",
                     params["size"] + 1_000 * (i + 1) + n, DEFAULT_NOW - timedelta(days=5 + 9 * i, hours=i))
        plant(phone, "Documents/Templates", params["template"], params["size"], days_ago=200)
        plant(phone, "Download", f"{params['stem']}_{params['stray']:03d}{params['ext']}", params["size"] + 77,
              days_ago=1)

    def new_name(self, params: dict[str, Any]) -> str:
        return f"{params['stem']}_{max(params['numbers']) + 1:03d}{params['ext']}"

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = (f"{ROOT}/Documents/{params['folder']}/{self.new_name(params)}", 0, params["size"])
        return 1.0 if table_is(phone, self, params, [], [want]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        dest = f"{ROOT}/Documents/{params['folder']}"
        tpl = f"{ROOT}/Documents/Templates/{params['template']}"
        copied = f"{dest}/{params['template']}"
        if storage.exists(phone, copied):
            return rename_action(phone, obs, copied, self.new_name(params))
        if storage.exists(phone, f"{dest}/{self.new_name(params)}"):
            raise TaskError("oracle: the new file exists but the state differs otherwise")
        return transfer_action(phone, obs, [tpl], dest, "copy")


# ---- round 5 questions ----------------------------------------------------------------------------------------------
def spread_sizes(rng: random.Random, n: int, lo_kb: int = 300, hi_kb: int = 9000) -> list[int]:
    """``n`` sizes whose list labels ("2.4 MB") all differ by at least 0.2 MB."""
    steps = rng.sample(range(lo_kb // 200, hi_kb // 200), n)
    return [s * 200_000 + rng.randint(0, 40_000) for s in steps]


RANK_SETS = (("Telegram", ("voice_note_a.ogg", "lecture_rec.m4a", "meme_pack.zip", "sticker_set.zip", "clip_01.mp4",
                           "clip_02.mp4", "chat_export.txt", "scan_id.pdf", "group_photo.jpg", "menu_photo.jpg",
                           "ringtone.mp3", "tutorial.mp4")),
             ("Work", ("q3_report.pdf", "slides_kickoff.pptx", "roadmap.pdf", "budget_draft.xlsx", "team_photo.jpg",
                       "demo_video.mp4", "contract_nda.pdf", "specs_v2.docx", "logo_pack.zip", "training.mp4",
                       "survey_results.xlsx", "brochure.pdf")))


@register_task
class QueryCountBiggerThanFile(TaskTemplate):
    name = "files_query_count_bigger_than_file"
    apps = ("Files",)
    kind = "query"
    complexity = 3
    optimal_steps = 8
    goal_template = "How many files in Download/{folder} are bigger than {ref}? Answer with a number."
    goal_phrasings = (
        "Count the files in my Download/{folder} folder that take up more space than {ref}.",
        "Could you tell me how many of the files in Download/{folder} are larger than {ref} is?",
        "In Download/{folder}, {ref} is one of the files: how many others there beat it on size?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        folder, names = rng.choice(RANK_SETS)
        picked = rng.sample(names, rng.randint(10, 12))
        sizes = spread_sizes(rng, len(picked))
        ranked = sorted(zip(picked, sizes), key=lambda f: -f[1])
        k = rng.randint(2, len(picked) - 3)  # the reference is never near either end
        return {"folder": folder, "ref": ranked[k][0], "files": [[n, s] for n, s in zip(picked, sizes)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, (n, s) in enumerate(params["files"]):
            plant(phone, f"Download/{params['folder']}", n, s, days_ago=2 + 3 * i)

    def count(self, phone: Phone, params: dict[str, Any]) -> int | None:
        folder = f"{ROOT}/Download/{params['folder']}"
        ref = f"{folder}/{params['ref']}"
        if not storage.exists(phone, ref):
            return None
        size = storage.stat(phone, ref).size
        return sum(1 for e in files_in(phone, folder) if e.size > size)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        n = self.count(phone, params)
        if n is None or answer is None or len(re.findall(r"(?<![\w.])\d+(?!\w|\.\d)", answer)) != 1:
            return 0.0
        return 1.0 if answer_matches(answer, str(n)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        folder = f"{ROOT}/Download/{params['folder']}"
        step = sorted_by(phone, obs, folder, "size")  # biggest first: count the rows above the reference
        if step is None:
            step = show_rows(phone, obs, folder, [params["ref"]])
        return step or answer(str(self.count(phone, params)))


SAME_DAY_SETS = (("Statements", ("statement_visa.pdf", "statement_savings.pdf", "tax_notice.pdf", "pension_letter.pdf",
                                 "loan_summary.pdf", "card_terms.pdf", "fee_schedule.pdf", "dividends.pdf",
                                 "insurance_bill.pdf", "rent_receipt.pdf", "broker_report.pdf")),
                 ("Travel", ("boarding_pass.pdf", "hotel_voucher.pdf", "car_rental.pdf", "visa_copy.pdf",
                             "ferry_ticket.pdf", "museum_tickets.pdf", "travel_insurance.pdf", "tour_booking.pdf",
                             "train_pass.pdf", "city_map.pdf", "restaurant_list.pdf")))


@register_task
class QuerySavedSameDay(TaskTemplate):
    name = "files_query_saved_same_day"
    apps = ("Files",)
    kind = "query"
    complexity = 3
    optimal_steps = 8
    goal_template = ("Exactly one other file in Documents/{folder} was last modified on the same day as {ref}. "
                     "Which one is it? Answer with its name.")
    goal_phrasings = (
        "Which file in my Documents/{folder} folder has the same modified date as {ref}? There is just one; name it.",
        ("I saved {ref} and one more file in Documents/{folder} on the same day. Could you tell me what that other "
         "file is called?"),
        "Documents/{folder}: name the file, other than {ref}, whose last-modified day matches {ref}'s.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        folder, names = rng.choice(SAME_DAY_SETS)
        picked = rng.sample(names, rng.randint(9, 11))
        ref, mate = picked[0], picked[1]
        day = rng.randint(20, 150)
        others = rng.sample(sorted(set(range(3, 200)) - {day}), len(picked) - 4)
        ages = [day, day, day - 1, day + 1] + others  # the day before and after are the near misses
        hours = [rng.randint(8, 20) for _ in picked]
        rows = [[n, a, h, rng.randint(40, 900) * 1000 + i] for i, (n, a, h) in enumerate(zip(picked, ages, hours))]
        rng.shuffle(rows)
        return {"folder": folder, "ref": ref, "mate": mate, "files": rows}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        from droidverify.env.sim.phone import DEFAULT_NOW

        for name, age, hour, size in params["files"]:
            plant_at(phone, f"{ROOT}/Documents/{params['folder']}/{name}", size,
                     (DEFAULT_NOW - timedelta(days=age)).replace(hour=hour, minute=(size // 1000) % 60))

    def mates(self, phone: Phone, params: dict[str, Any]) -> tuple[list[str], list[str]]:
        folder = f"{ROOT}/Documents/{params['folder']}"
        ref = f"{folder}/{params['ref']}"
        if not storage.exists(phone, ref):
            return [], []
        day = storage.stat(phone, ref).modified_dt.date()
        files = [e for e in files_in(phone, folder) if e.path != ref]
        return [e.name for e in files if e.modified_dt.date() == day], [e.name for e in files
                                                                         if e.modified_dt.date() != day]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        hits, others = self.mates(phone, params)
        ok = len(hits) == 1 and answer_names(answer, hits + others) == set(hits)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        folder = f"{ROOT}/Documents/{params['folder']}"
        hits, _ = self.mates(phone, params)
        if len(hits) != 1:
            raise TaskError(f"oracle: {len(hits)} files share the reference's day")
        step = sorted_by(phone, obs, folder, "modified")  # same-day files sit next to each other
        if step is None:
            step = show_rows(phone, obs, folder, [params["ref"], hits[0]])
        return step or answer(hits[0])


MATCH_SETS = (("contract", ("Documents/Work", "Download/Telegram", "Documents/Apartment", "Download/Bluetooth"),
               ("rental_contract.pdf", "contract_signed.pdf", "contract_draft.pdf", "phone_contract.pdf"),
               "contacts_backup.pdf"),
              ("manual", ("Documents/Appliances", "Download/WhatsApp Documents", "Documents/Car", "Download/Email"),
               ("dishwasher_manual.pdf", "manual_camera.pdf", "owners_manual.pdf", "manual_router.pdf"),
               "manuscript_scan.pdf"),
              ("payslip", ("Documents/Finance", "Download/HR portal", "Documents/Old job", "Download/Email"),
               ("payslip_june.pdf", "payslip_july.pdf", "payslip_2023_12.pdf", "payslip_bonus.pdf"),
               "pay_slips_scan.pdf"))


@register_task
class QueryFolderOfLargestMatch(TaskTemplate):
    name = "files_query_folder_of_largest_match"
    apps = ("Files",)
    kind = "query"
    complexity = 3
    optimal_steps = 5
    goal_template = ("Several files with \"{keyword}\" in their name are spread over my folders. Which folder holds "
                     "the biggest of them? Answer with the folder name.")
    goal_phrasings = (
        "Of all my files whose names contain \"{keyword}\", find the largest one and tell me which folder it is in.",
        ("I have a few \"{keyword}\" files in different places. Could you tell me the folder where the biggest one "
         "is kept?"),
        "Which folder has the largest file with \"{keyword}\" in its name? Just the folder's name, please.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        keyword, folders, names, look_alike = rng.choice(MATCH_SETS)
        sizes = spread_sizes(rng, 4, 400, 6000)
        return {"keyword": keyword, "files": [[f, n, s] for f, n, s in zip(folders, rng.sample(names, 4), sizes)],
                "look_alike": [look_alike, max(sizes) + 3_000_000]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, (folder, name, size) in enumerate(params["files"]):
            plant(phone, folder, name, size, days_ago=4 + 7 * i)
        # a bigger file whose name only looks like the keyword: not a match
        plant(phone, "Download", params["look_alike"][0], params["look_alike"][1], days_ago=6)

    def hits(self, phone: Phone, params: dict[str, Any]) -> list[storage.FileEntry]:
        return sorted((e for e in storage.search(phone, params["keyword"]) if not e.is_dir
                       and not e.name.startswith(".")), key=lambda e: -e.size)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        hits = self.hits(phone, params)
        if not hits or answer is None or (len(hits) > 1 and hits[0].size == hits[1].size):
            return 0.0
        said = answer.replace("/", " ").replace(">", " ")
        folders = {posixpath.basename(e.parent) for e in hits}
        big = posixpath.basename(hits[0].parent)
        ok = answer_matches(said, big) and not any(answer_matches(said, f) for f in folders - {big})
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        hits = self.hits(phone, params)
        if not hits:
            raise TaskError("oracle: no file matches the keyword")
        step = searching(phone, obs, params["keyword"])  # the results show each file's size and folder
        if step is not None:
            return step
        for e in hits:
            if find(obs, text=e.name, resource_id="item") is None:
                return scroll_toward(phone, obs, text=e.name, resource_id="item") or BACK
        return answer(posixpath.basename(hits[0].parent))


RETURN_ITEMS = (("headphones", "receipt_headphones.pdf"), ("coffee machine", "receipt_coffee_machine.pdf"),
                ("running shoes", "receipt_running_shoes.pdf"), ("desk lamp", "receipt_desk_lamp.pdf"),
                ("blender", "receipt_blender.pdf"))


@register_task
class QueryReturnDeadline(TaskTemplate):
    name = "files_query_return_deadline"
    apps = ("Files",)
    kind = "query"
    complexity = 3
    optimal_steps = 5
    goal_template = ("The {item} I bought can be returned up to {days} days after the purchase, which was on the day "
                     "{receipt} in Download was last modified. What is the last day for the return? Answer with "
                     "the date.")
    goal_phrasings = (
        ("My {item} can go back within {days} days of purchase. The purchase day is the modified date of {receipt} "
         "(Download). Which date is the return deadline?"),
        ("Could you work out my return deadline for the {item}? It's {days} days after the date {receipt} in my "
         "Download folder was last changed."),
        ("Take the last-modified date of {receipt} in Download and add {days} days: on what date does my "
         "{item} return window end?"),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (item, receipt), (_, other) = rng.sample(RETURN_ITEMS, 2)
        return {"item": item, "receipt": receipt, "days": rng.choice((14, 15, 21, 28, 30, 45, 60, 90)),
                "age": rng.randint(3, 40), "other": other, "other_age": rng.randint(2, 60),
                "sizes": [rng.randint(40, 400) * 1000 + 3, rng.randint(40, 400) * 1000 + 5]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        from droidverify.env.sim.phone import DEFAULT_NOW

        plant_at(phone, f"{ROOT}/Download/{params['receipt']}", params["sizes"][0],
                 (DEFAULT_NOW - timedelta(days=params["age"])).replace(hour=17, minute=12))
        other_age = params["other_age"] if params["other_age"] != params["age"] else params["age"] + 1
        plant_at(phone, f"{ROOT}/Download/{params['other']}", params["sizes"][1],  # another purchase's receipt
                 (DEFAULT_NOW - timedelta(days=other_age)).replace(hour=11, minute=48))

    def deadline(self, phone: Phone, params: dict[str, Any]) -> datetime | None:
        path = f"{ROOT}/Download/{params['receipt']}"
        if not storage.exists(phone, path):
            return None
        return storage.stat(phone, path).modified_dt + timedelta(days=params["days"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        when = self.deadline(phone, params)
        return 1.0 if when is not None and date_matches(answer, when) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = info_action(phone, obs, f"{ROOT}/Download/{params['receipt']}")
        if step is not None:
            return step
        when = self.deadline(phone, params)
        assert when is not None
        return answer(f"{MONTHS_LONG[when.month - 1]} {when.day}, {when.year}")


PAIR_SETS = (("Bluetooth", ("sunset.jpg", "harbour.jpg", "market.jpg", "cathedral.jpg", "bridge.jpg", "old_town.jpg",
                            "beach_bar.jpg", "lighthouse.jpg", "vineyard.jpg", "castle.jpg")),
             ("Recordings", ("rehearsal.m4a", "interview.m4a", "lecture.m4a", "podcast_raw.m4a", "choir.m4a",
                             "meeting.m4a", "birdsong.m4a", "drum_take.m4a", "speech.m4a", "demo_song.m4a")))


@register_task
class QuerySameSizePair(TaskTemplate):
    name = "files_query_same_size_pair"
    apps = ("Files",)
    kind = "query"
    complexity = 3
    optimal_steps = 8
    goal_template = ("I suspect two of the files in Download/{folder} are the same file saved twice: exactly two of "
                     "them have the same size. Which two? Answer with both names.")
    goal_phrasings = (
        "Exactly two files in my Download/{folder} folder are the same size. Name both of them.",
        ("Could you find the pair of files in Download/{folder} whose sizes match? Only one pair does; tell me the two "
         "names."),
        "Download/{folder}: which two files have identical sizes? Give me both file names.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        folder, names = rng.choice(PAIR_SETS)
        picked = rng.sample(names, rng.randint(8, 10))
        sizes = spread_sizes(rng, len(picked) - 1, 500, 9000)
        twin = sizes[rng.randrange(len(sizes))]
        sizes.insert(rng.randrange(len(sizes) + 1), twin)  # the pair: byte for byte the same size
        pair = sorted(n for n, s in zip(picked, sizes) if s == twin)
        return {"folder": folder, "files": [[n, s] for n, s in zip(picked, sizes)], "pair": pair}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, (n, s) in enumerate(params["files"]):
            plant(phone, f"Download/{params['folder']}", n, s, days_ago=3 + 2 * i)

    def pairs(self, phone: Phone, params: dict[str, Any]) -> tuple[list[str], list[str]]:
        folder = f"{ROOT}/Download/{params['folder']}"
        files = files_in(phone, folder) if storage.is_dir(phone, folder) else []
        count: dict[int, int] = {}
        for e in files:
            count[e.size] = count.get(e.size, 0) + 1
        same = [e.name for e in files if count[e.size] > 1]
        return same, [e.name for e in files if e.name not in same]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        same, others = self.pairs(phone, params)
        return 1.0 if len(same) == 2 and answer_names(answer, same + others) == set(same) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        folder = f"{ROOT}/Download/{params['folder']}"
        same, _ = self.pairs(phone, params)
        if len(same) != 2:
            raise TaskError(f"oracle: {len(same)} files share a size")
        step = sorted_by(phone, obs, folder, "size")  # equal sizes end up on neighbouring rows
        if step is None:
            step = show_rows(phone, obs, folder, same)
        return step or answer(f"{same[0]} and {same[1]}")
