"""Notes (Markor-like, net.gsantner.markor): a file browser and text editor over shared storage.

Notes are real files of the phone's shared storage (``droidverify.env.sim.storage``) under
``/storage/emulated/0/Documents/Markor``, so the Files app sees them too. Screens:

* ``main`` — the folder listing (``args["dir"]``, default the Markor root): folders first, then
  notes with their date and size; tap a folder to enter it, a note to open it; long-press selects
  an item and the toolbar then offers Rename, Move and Delete (with confirmation); the search icon
  shows a filter field (file names, recursively); ⋮ sorts by name/date/size (kept in
  ``markor_prefs``); the FAB opens "New file" (name + type, or "Folder").
* ``editor`` — the note's text in one EditText; Save icon, and leaving the editor saves, as Markor
  does.
"""

from __future__ import annotations

import posixpath
import random

from droidverify.env.sim import storage as st
from droidverify.env.sim.app import (
    App,
    app_bar,
    dialog_panel,
    edit_field,
    fab,
    list_row,
    list_view,
    register_app,
    screen_frame,
    text_view,
)
from droidverify.env.sim.phone import Phone, Screen
from droidverify.env.sim.view import V, View
from droidverify.errors import EnvError

KEY = "notes"
MARKOR_DIR = f"{st.ROOT}/Documents/Markor"
NOTE_TYPES = (("Markdown", ".md"), ("Plain text", ".txt"))

SEED_NOTES: tuple[tuple[str, str], ...] = (
    ("Shopping list.md", ("# Shopping list\n- 2 liters of milk\n- eggs\n- sourdough bread\n- coffee beans\n"
                         "- bananas\n- olive oil")),
    ("Books to read.md", ("# Books to read\n1. The Midnight Library\n2. Project Hail Mary\n3. Sapiens\n"
                         "4. Atomic Habits")),
    ("Ideas.txt", ("App idea: a plant watering reminder with photos.\nBlog post: lessons from learning Rust.\n"
                  "Gift idea for Mom: a pottery class.")),
    ("Gym routine.md", ("# Gym routine\nMonday: chest and triceps\nWednesday: back and biceps\n"
                       "Friday: legs and core")),
    ("Quotes.md", ("> The best way out is always through. - Robert Frost\n"
                  "> Simplicity is the ultimate sophistication. - Leonardo da Vinci")),
    ("Movies to watch.txt", "Dune: Part Two\nOppenheimer\nPast Lives\nThe Holdovers"),
)
SEED_FOLDERS: dict[str, tuple[tuple[str, str], ...]] = {
    "Work": (("Meeting notes.md", ("# Meeting notes\n- Launch moved to November 4\n- Priya owns the QA plan\n"
                                  "- Next sync on Thursday")),
             ("Project Apollo.md", ("# Project Apollo\nDeadline: December 2\nBudget: 45,000 dollars\n"
                                   "Lead: Marco Rossi"))),
    "Recipes": (("Pancakes.md", ("# Pancakes\n- 200 g flour\n- 2 eggs\n- 300 ml milk\n- 1 tbsp sugar\n"
                                "Cook 2 minutes per side.")),
                ("Guacamole.md", "# Guacamole\n- 3 avocados\n- 1 lime\n- half an onion\n- cilantro\n- salt")),
    "Travel": (("Packing list.md", "# Packing list\n- passport\n- charger\n- sunglasses\n- swimsuit"),),
}


def note_path(name: str, folder: str = "") -> str:
    """Absolute path of note ``name`` in ``folder`` (relative to the Markor directory)."""
    return posixpath.join(MARKOR_DIR, folder, name) if folder else posixpath.join(MARKOR_DIR, name)


def sort_order(phone: Phone) -> str:
    row = phone.query_one("SELECT value FROM markor_prefs WHERE name='sort'")
    return row["value"] if row else "name"


def _rel(path: str) -> str:
    """Path relative to the Markor directory ("" for the directory itself)."""
    return "" if path == MARKOR_DIR else path[len(MARKOR_DIR) + 1:]


@register_app
class NotesApp(App):
    key = KEY
    name = "Markor"
    package = "net.gsantner.markor"
    aliases = ("notes", "markor notes", "markdown notes")
    icon_color = "#388e3c"
    activity = ".activity.MainActivity"

    @staticmethod
    def _on_back(phone: Phone) -> bool:
        scr = phone.screen
        if scr is None:
            return False
        if scr.name == "main" and scr.state.get("selected"):
            scr.state.pop("selected", None)  # back leaves selection mode first, then search
            return True
        if scr.name == "main" and scr.state.get("searching"):
            scr.state.pop("searching", None)
            scr.fields.pop("filter", None)
            return True
        if scr.name == "editor":
            app = phone.app(KEY)
            assert isinstance(app, NotesApp)
            app._save(phone, scr, toast=False)  # Markor saves when the editor is left
        return False

    on_back = _on_back

    # ---- state ----------------------------------------------------------------------------
    def create_schema(self, phone: Phone) -> None:
        st.ensure_storage(phone)
        phone.execute("CREATE TABLE markor_prefs (name TEXT PRIMARY KEY, value TEXT)")

    def seed_data(self, phone: Phone, rng: random.Random) -> None:
        from datetime import timedelta

        st.mkdir(phone, MARKOR_DIR, parents=True, exist_ok=True)

        def when() -> object:
            return phone.now - timedelta(days=rng.randint(1, 120), minutes=rng.randint(0, 1439))

        for name, text in rng.sample(SEED_NOTES, 5):
            st.write_file(phone, note_path(name), text, modified=when())
        for folder in rng.sample(sorted(SEED_FOLDERS), 2):
            st.mkdir(phone, note_path(folder))
            for name, text in SEED_FOLDERS[folder]:
                st.write_file(phone, note_path(name, folder), text, modified=when())
        st.write_file(phone, note_path("QuickNote.md"), "Call the plumber about the kitchen sink.",
                      modified=when())

    # ---- main: folder listing -------------------------------------------------------------
    def screen_main(self, phone: Phone, scr: Screen) -> View:
        folder = scr.args.get("dir") or MARKOR_DIR
        if not st.is_dir(phone, folder):  # deleted/moved elsewhere (e.g. from the Files app)
            folder = MARKOR_DIR
            st.mkdir(phone, MARKOR_DIR, parents=True, exist_ok=True)
        selected = scr.state.get("selected")
        if selected and not st.exists(phone, selected):
            selected = None
            scr.state.pop("selected", None)
        query = scr.fields.get("filter", "").strip().lower() if scr.state.get("searching") else ""
        if query:
            entries = [e for e in st.walk(phone, folder) if query in e.name.lower() and not e.name.startswith(".")]
        else:
            entries = st.list_dir(phone, folder, sort=sort_order(phone))
        rows = []
        for e in entries:
            when = e.modified_dt.strftime("%b %-d, %Y")
            if e.is_dir:
                n = len(st.list_dir(phone, e.path))
                summary = f"{when} · {n} item{'s' if n != 1 else ''}"
                opener = (lambda p=e.path: phone.push("main", dir=p))
            else:
                summary = f"{when} · {st.human_size(e.size)}"
                opener = (lambda p=e.path: phone.push("editor", path=p))
            title = _rel(e.path) if query else e.name

            def tap(p: str = e.path, o=opener) -> None:
                if scr.state.get("selected"):
                    scr.state["selected"] = p  # in selection mode a tap changes the selection
                else:
                    o()

            def select(p: str = e.path) -> None:
                scr.state["selected"] = p

            row = list_row(title, summary, rid="file_item", icon="folder" if e.is_dir else "note", on_click=tap,
                           on_long_click=select, desc=("Folder " if e.is_dir else "") + e.name)
            row.selected = e.path == selected
            if row.selected:
                row.style["bg"] = "#c8e6c9"
            rows.append(row)
        if selected:
            name = posixpath.basename(selected)
            bar = app_bar("1 selected", back=lambda: scr.state.pop("selected", None), actions=[
                ("Rename", "rename", lambda: phone.show_dialog(
                    self.key, "text_input", title="Rename", value=name, hint="Name", ok="OK", on_ok="rename",
                    args={"path": selected})),
                ("Move", "move", lambda: phone.show_dialog(
                    self.key, "choice", title="Move to", options=self._folders(phone, exclude=selected),
                    selected=_rel(posixpath.dirname(selected)) or "Markor", on_ok="move", args={"path": selected})),
                ("Delete", "delete", lambda: phone.show_dialog(
                    self.key, "confirm", title="Delete", message=f"Do you really want to delete \"{name}\"?",
                    ok="OK", on_ok="delete", args={"path": selected}))])
        else:
            title = "Markor" if folder == MARKOR_DIR else posixpath.basename(folder)
            menu = [(f"Sort by {k}", lambda k=k: self.set_sort(phone, k)) for k in ("name", "date", "size")]
            bar = app_bar(title, back=phone.back if folder != MARKOR_DIR else None, phone=phone, menu=menu,
                          actions=[("Search", "search", lambda: scr.state.__setitem__("searching", True))])
        body_kids: list[View] = []
        if scr.state.get("searching") and not selected:
            body_kids.append(V("linear", edit_field(phone, scr.fields, "filter", hint="Search", rid="search_input"),
                               pad=(40, 10, 40, 10)))
        crumb = "/" + "/".join(["Markor", *(p for p in _rel(folder).split("/") if p)])
        body_kids.append(text_view(crumb, rid="breadcrumb", size=34, pad=(48, 16, 48, 16), style={"fg": "#5f6368"}))
        body_kids.append(list_view(phone, scr, rows, key="files",
                                   empty="No matching files" if query else "This folder is empty"))
        add = fab("Create a new file or folder", lambda: phone.show_dialog(
            self.key, "new_file", dir=folder, type="Markdown"), rid="fab_add_new_item")
        return screen_frame(bar, V("linear", *body_kids, grow=1), fab=None if selected else add)

    def _folders(self, phone: Phone, exclude: str | None = None) -> list[str]:
        out = ["Markor"]
        for e in st.walk(phone, MARKOR_DIR):
            if e.is_dir and not (exclude and (e.path == exclude or e.path.startswith(exclude + "/"))):
                out.append("Markor/" + _rel(e.path))
        return out

    def set_sort(self, phone: Phone, key: str) -> None:
        order = {"name": "name", "date": "modified", "size": "size"}[key]
        phone.execute("INSERT OR REPLACE INTO markor_prefs(name, value) VALUES('sort', ?)", (order,))

    # ---- dialogs and file operations -------------------------------------------------------
    def dialog_new_file(self, phone: Phone, dlg) -> View:
        d = dlg.data
        f = d.setdefault("fields", {"name": ""})

        def choose(label: str) -> None:
            d["type"] = label

        types = [V("radio", text=label, rid="type_" + ext[1:], checkable=True, checked=d.get("type") == label,
                   clickable=True, focusable=True, on_click=lambda lb=label: choose(lb), h=110, style={"size": 40})
                 for label, ext in NOTE_TYPES]

        def create(folder: bool) -> None:
            name = f.get("name", "").strip()
            if not name:
                phone.show_toast("Name can't be empty")
                return
            if not folder:
                ext = dict(NOTE_TYPES)[d.get("type", "Markdown")]
                if not name.lower().endswith((".md", ".txt")):
                    name += ext
            try:
                path = posixpath.join(d["dir"], st.check_name(name))
                if st.exists(phone, path):
                    phone.show_toast(f"{name} already exists")
                    return
                if folder:
                    st.mkdir(phone, path)
                else:
                    st.write_file(phone, path, "")
            except EnvError:
                phone.show_toast("Invalid name")
                return
            phone.close_dialog()
            if not folder:
                phone.push("editor", path=path)

        body = [edit_field(phone, f, "name", hint="Name", rid="new_file_dialog__name"),
                V("linear", *types, rid="new_file_dialog__type")]
        return dialog_panel("New file", body, buttons=[("Cancel", phone.close_dialog),
                                                       ("Folder", lambda: create(True)),
                                                       ("OK", lambda: create(False))])

    def rename(self, phone: Phone, value: str, path: str) -> None:
        try:
            new = st.rename(phone, path, value)
        except EnvError as e:
            phone.show_toast("Could not rename: " + ("name already exists" if "exists" in str(e) else "invalid name"))
            return
        self._clear_selection(phone, new)

    def move(self, phone: Phone, value: str, path: str) -> None:
        dest = MARKOR_DIR if value == "Markor" else note_path(value[len("Markor/"):])
        try:
            new = st.move(phone, path, dest)
        except EnvError as e:
            phone.show_toast("Could not move: " + ("already there" if "already" in str(e) else "invalid target"))
            return
        self._clear_selection(phone, new)

    def delete(self, phone: Phone, path: str) -> None:
        if st.exists(phone, path):
            st.delete(phone, path, recursive=True)
            phone.show_toast("Deleted")
        self._clear_selection(phone, None)

    def _clear_selection(self, phone: Phone, _new: str | None) -> None:
        scr = phone.screen
        if scr is not None and scr.name == "main":
            scr.state.pop("selected", None)

    # ---- editor ---------------------------------------------------------------------------
    def screen_editor(self, phone: Phone, scr: Screen) -> View:
        path = scr.args["path"]
        if "text" not in scr.fields:
            scr.fields["text"] = st.read_file(phone, path) if st.exists(phone, path) else ""
        field = edit_field(phone, scr.fields, "text", hint="Start writing…",
                           rid="document__fragment__edit__highlighting_editor", size=40)
        field.grow = 1
        bar = app_bar(posixpath.basename(path), back=phone.back,
                      actions=[("Save", "action_save", lambda: self._save(phone, scr, toast=True))])
        return screen_frame(bar, V("linear", field, pad=(24, 12, 24, 12), grow=1))

    def _save(self, phone: Phone, scr: Screen, *, toast: bool) -> None:
        path = scr.args["path"]
        if not st.is_dir(phone, posixpath.dirname(path)):
            phone.show_toast("Folder no longer exists")
            return
        text = scr.fields.get("text")
        if text is None:
            return
        old = st.read_file(phone, path) if st.exists(phone, path) else None
        if old != text:
            st.write_file(phone, path, text)
        if toast:
            phone.show_toast("Saved")
