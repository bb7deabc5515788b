"""Files (Android's documentsui, com.google.android.documentsui): browse shared storage.

All data is the shared ``files`` table of :mod:`droidverify.env.sim.storage` (the same files the
Notes app writes). The browser shows one folder at a time with a breadcrumb, sorts by name, date
or size, selects by long press, and deletes / renames / moves / copies the selection; a folder
picker chooses the destination; search finds files by name anywhere on the device.

Screen state (plain data): ``main.state`` holds ``path`` (current folder), ``selected`` (paths)
and ``sort``; ``picker.state`` holds ``path`` with the operation in ``picker.args``.
"""

from __future__ import annotations

import posixpath
import random

from droidverify.env.sim import storage
from droidverify.env.sim.app import (
    App,
    app_bar,
    button,
    edit_field,
    icon_button,
    list_row,
    list_view,
    register_app,
    screen_frame,
    text_view,
)
from droidverify.env.sim.phone import Dialog, Phone, Screen
from droidverify.env.sim.storage import ROOT, FileEntry
from droidverify.env.sim.timeutil import MONTHS_SHORT
from droidverify.env.sim.view import V, View
from droidverify.errors import EnvError

ROOT_LABEL = "Internal storage"
SORTS = (("Name", "name"), ("Date modified", "modified"), ("Size", "size"))


def display_path(path: str) -> str:
    """``/storage/emulated/0/Download/x`` -> ``Internal storage > Download > x``."""
    rel = "" if path == ROOT else path[len(ROOT) + 1:]
    return " > ".join([ROOT_LABEL, *[p for p in rel.split("/") if p]])


def short_date(ts: int) -> str:
    dt = storage.to_datetime(ts)
    return f"{MONTHS_SHORT[dt.month - 1]} {dt.day}, {dt.year}"


def _children(phone: Phone, path: str) -> int:
    return len(storage.list_dir(phone, path))


def _on_back(phone: Phone) -> bool:
    """Back clears a selection, then climbs to the parent folder, before leaving the screen."""
    scr = phone.screen
    if scr is None:
        return False
    if scr.name == "main" and scr.state.get("selected"):
        scr.state["selected"] = []
        return True
    if scr.name in ("main", "picker"):
        path = scr.state.get("path", ROOT)
        if path != ROOT and path != scr.state.get("top", ROOT):
            scr.state["path"] = posixpath.dirname(path)
            scr.scroll.clear()
            return True
    return False


@register_app
class FilesApp(App):
    key = "files"
    name = "Files"
    package = "com.google.android.documentsui"
    aliases = ("documentsui", "file manager", "my files")
    icon_color = "#1a73e8"
    activity = "com.android.documentsui.files.FilesActivity"
    on_back = staticmethod(_on_back)

    def create_schema(self, phone: Phone) -> None:
        storage.ensure_storage(phone)

    def seed_data(self, phone: Phone, rng: random.Random) -> None:
        storage.seed_common_files(phone)  # idempotent, draws from its own RNG

    # ---- browser -------------------------------------------------------------------------------
    def screen_main(self, phone: Phone, scr: Screen) -> View:
        st = scr.state
        path = st.setdefault("path", scr.args.get("path", ROOT))
        if not storage.is_dir(phone, path):  # deleted/moved underneath: fall back to the root
            path = st["path"] = ROOT
        selected: list[str] = st.setdefault("selected", [])
        sort = st.get("sort", "name")
        entries = storage.list_dir(phone, path, sort=sort)
        live = {e.path for e in entries}
        if any(p not in live for p in selected):
            selected[:] = [p for p in selected if p in live]
        rows = [self._row(phone, scr, e) for e in entries]
        crumbs = self._breadcrumb(phone, scr, path)
        body = V("linear", crumbs, list_view(phone, scr, rows, empty="No items"), grow=1)
        if selected:
            n = len(selected)
            menu = [("Select all", lambda: self._select_all(phone, scr, entries)),
                    ("Copy to\u2026", lambda: self._open_picker(phone, scr, "copy")),
                    ("Move to\u2026", lambda: self._open_picker(phone, scr, "move"))]
            if n == 1:
                menu.append(("Rename", lambda: self._ask_rename(phone, selected[0])))
            bar = app_bar(f"{n} selected", back=lambda: selected.clear(),
                          actions=[("Delete", "action_menu_delete", lambda: self._ask_delete(phone, list(selected)))],
                          menu=menu, phone=phone)
            bar.children[0].desc = "Cancel selection"
        else:
            title = ROOT_LABEL if path == ROOT else posixpath.basename(path)
            bar = app_bar(title, back=(lambda: _on_back(phone)) if path != ROOT else None,
                          actions=[("Search", "option_menu_search", lambda: phone.push("search"))],
                          menu=[("New folder", lambda: self._ask_new_folder(phone, path)),
                                ("Sort by\u2026", lambda: self._ask_sort(phone, sort))], phone=phone)
        return screen_frame(bar, body)

    def _breadcrumb(self, phone: Phone, scr: Screen, path: str) -> View:
        parts = [ROOT]
        for name in ([] if path == ROOT else path[len(ROOT) + 1:].split("/")):
            parts.append(f"{parts[-1]}/{name}")
        crumbs: list[View] = []
        for i, p in enumerate(parts[-3:]):
            label = ROOT_LABEL if p == ROOT else posixpath.basename(p)
            if i:
                crumbs.append(text_view(">", size=38, w=40, style={"fg": "#5f6368"}))

            def go(p: str = p) -> None:
                scr.state["path"], scr.state["selected"] = p, []
                scr.scroll.clear()

            crumbs.append(V("text", text=label, rid="breadcrumb_text", clickable=p != path, focusable=True,
                            on_click=go if p != path else None, w=min(420, 60 + int(len(label) * 38 * 0.52)),
                            style={"size": 38, "fg": "#1a73e8" if p != path else "#202124"}))
        return V("linear", *crumbs, rid="horizontal_breadcrumb", horizontal=True, h=110, pad=(48, 20, 48, 10),
                 gap=8)

    def _row(self, phone: Phone, scr: Screen, e: FileEntry) -> View:
        selected = scr.state["selected"]
        is_sel = e.path in selected
        if e.is_dir:
            n = _children(phone, e.path)
            summary = f"{n} item{'s' if n != 1 else ''}"
        else:
            summary = f"{storage.human_size(e.size)} \u00b7 {short_date(e.modified)}"

        def toggle() -> None:
            if e.path in selected:
                selected.remove(e.path)
            else:
                selected.append(e.path)

        def open_() -> None:
            if selected:
                toggle()
            elif e.is_dir:
                scr.state["path"] = e.path
                scr.scroll.clear()
            else:
                self._show_info(phone, e.path)

        def long() -> None:
            if e.path not in selected:
                selected.append(e.path)

        check = V("checkbox", rid="icon_check", checkable=True, checked=is_sel, w=110, h=96) if selected else None
        row = list_row(e.name, summary, rid="item", icon="folder" if e.is_dir else _icon(e), right=check,
                       on_click=open_, on_long_click=long)
        row.selected = is_sel
        return row

    def _select_all(self, phone: Phone, scr: Screen, entries: list[FileEntry]) -> None:
        scr.state["selected"] = [e.path for e in entries]

    # ---- dialogs and operations ------------------------------------------------------------------
    def _show_info(self, phone: Phone, path: str) -> None:
        phone.show_dialog(self.key, "info", path=path)

    def dialog_info(self, phone: Phone, dlg: Dialog) -> View:
        from droidverify.env.sim.app import dialog_panel

        try:
            e = storage.stat(phone, dlg.data["path"])
        except EnvError:
            return dialog_panel("File not found", [], buttons=[("Close", phone.close_dialog)], pkg_rid="android")
        kv = [("Name", e.name, "info_name"), ("Location", display_path(e.parent), "info_location"),
              ("Size", f"{storage.human_size(e.size)} ({e.size:,} bytes)", "info_size"),
              ("Modified", f"{short_date(e.modified)}, {phone.format_time(e.modified_dt.hour, e.modified_dt.minute)}",
               "info_modified"), ("Type", e.mime, "info_type")]
        body = [V("linear", text_view(k, size=34, style={"fg": "#5f6368"}), text_view(v, rid=rid, size=42))
                for k, v, rid in kv]
        return dialog_panel("File info", body, buttons=[("Close", phone.close_dialog)], pkg_rid="android")

    def _ask_delete(self, phone: Phone, paths: list[str]) -> None:
        n = len(paths)
        msg = (f"Delete \u201c{posixpath.basename(paths[0])}\u201d?" if n == 1 else f"Delete {n} items?")
        phone.show_dialog(self.key, "confirm", title=msg, message="This can't be undone.", ok="Delete",
                          on_ok="delete_paths", args={"paths": list(paths)})

    def delete_paths(self, phone: Phone, paths: list[str]) -> None:
        for p in paths:
            if storage.exists(phone, p):
                storage.delete(phone, p, recursive=True)
        self._clear_selection(phone)
        phone.show_toast(f"Deleted {len(paths)} item{'s' if len(paths) != 1 else ''}")

    def _clear_selection(self, phone: Phone) -> None:
        for scr in phone.stacks.get(self.key, []):
            if scr.name == "main":
                scr.state["selected"] = []

    def _ask_rename(self, phone: Phone, path: str) -> None:
        phone.show_dialog(self.key, "text_input", title="Rename", value=posixpath.basename(path), ok="Rename",
                          on_ok="rename_path", args={"path": path})

    def rename_path(self, phone: Phone, value: str, path: str) -> None:
        try:
            storage.rename(phone, path, value)
        except EnvError as err:
            phone.show_toast("A file with that name already exists" if "exists" in str(err) else "Invalid name")
            return
        self._clear_selection(phone)
        phone.show_toast("Renamed")

    def _ask_new_folder(self, phone: Phone, path: str) -> None:
        phone.show_dialog(self.key, "text_input", title="New folder", hint="Folder name", ok="Create",
                          on_ok="create_folder", args={"path": path})

    def create_folder(self, phone: Phone, value: str, path: str) -> None:
        try:
            storage.mkdir(phone, posixpath.join(path, storage.check_name(value)))
        except EnvError as err:
            phone.show_toast("A folder with that name already exists" if "exists" in str(err)
                             else "Invalid folder name")
            return
        phone.show_toast("Folder created")

    def _ask_sort(self, phone: Phone, sort: str) -> None:
        label = next(lbl for lbl, key in SORTS if key == sort)
        phone.show_dialog(self.key, "choice", title="Sort by", options=[lbl for lbl, _ in SORTS], selected=label,
                          on_ok="set_sort")

    def set_sort(self, phone: Phone, value: str) -> None:
        scr = phone.screen
        if scr is not None and scr.name == "main":
            scr.state["sort"] = dict(SORTS)[value]
            scr.scroll.clear()

    # ---- move / copy destination picker ------------------------------------------------------------
    def _open_picker(self, phone: Phone, scr: Screen, mode: str) -> None:
        sources = list(scr.state["selected"])
        start = scr.state.get("path", ROOT)
        picker = phone.push("picker", mode=mode, sources=sources)
        picker.state["path"] = start

    def screen_picker(self, phone: Phone, scr: Screen) -> View:
        path = scr.state.setdefault("path", ROOT)
        if not storage.is_dir(phone, path):
            path = scr.state["path"] = ROOT
        mode = scr.args["mode"]
        sources = scr.args["sources"]
        rows = []
        for e in storage.list_dir(phone, path):
            inside = any(e.path == s or e.path.startswith(s + "/") for s in sources)
            if not e.is_dir:
                rows.append(list_row(e.name, storage.human_size(e.size), rid="item", icon=_icon(e), enabled=False))
                continue

            def enter(p: str = e.path) -> None:
                scr.state["path"] = p
                scr.scroll.clear()

            rows.append(list_row(e.name, None, rid="item", icon="folder", enabled=not inside,
                                 on_click=enter if not inside else None))
        verb = "Move" if mode == "move" else "Copy"
        same = all(posixpath.dirname(s) == path for s in sources)
        bottom = V("linear", V("view", grow=1), button("Cancel", phone.pop, rid="btn_cancel", w=280),
                   button(f"{verb} here", (lambda: self._finish(phone, scr)) if not same else None,
                          rid="btn_confirm", primary=True, enabled=not same, w=340),
                   horizontal=True, h=170, pad=(40, 22, 40, 22), gap=30, style={"bg": "#f1f3f4"})
        title = f"{verb} {len(sources)} item{'s' if len(sources) != 1 else ''} to\u2026"
        bar = app_bar(title, back=phone.back)
        body = V("linear", self._picker_crumb(path), list_view(phone, scr, rows, empty="No folders"), grow=1)
        return screen_frame(bar, body, bottom=bottom)

    def _picker_crumb(self, path: str) -> View:
        return V("linear", text_view(display_path(path), rid="picker_path", size=38, style={"fg": "#5f6368"}),
                 h=100, pad=(48, 24, 48, 0))

    def _finish(self, phone: Phone, scr: Screen) -> None:
        dest = scr.state["path"]
        mode = scr.args["mode"]
        fn = storage.move if mode == "move" else storage.copy
        done, failed = 0, 0
        for src in scr.args["sources"]:
            try:
                fn(phone, src, dest)
                done += 1
            except EnvError:
                failed += 1
        phone.pop()
        self._clear_selection(phone)
        verb = "Moved" if mode == "move" else "Copied"
        phone.show_toast(f"{verb} {done} item{'s' if done != 1 else ''}" +
                         (f"; {failed} already existed" if failed else ""))

    # ---- search ------------------------------------------------------------------------------------
    def screen_search(self, phone: Phone, scr: Screen) -> View:
        query = scr.fields.get("query", "").strip()
        rows = []
        if query:
            for e in storage.search(phone, query):
                if e.name.startswith("."):
                    continue
                where = display_path(e.parent)
                summary = where if e.is_dir else f"{storage.human_size(e.size)} \u00b7 {where}"

                def open_(e: FileEntry = e) -> None:
                    if e.is_dir:
                        self._open_folder(phone, e.path)
                    else:
                        self._show_info(phone, e.path)

                rows.append(list_row(e.name, summary, rid="item", icon="folder" if e.is_dir else _icon(e),
                                     on_click=open_))
        field = edit_field(phone, scr.fields, "query", hint="Search files", rid="search_src_text")
        bar = V("linear", icon_button("Navigate up", phone.back, icon="back", w=147, h=147), field,
                horizontal=True, h=168, pad=(12, 10, 30, 10))
        bar.children[1].grow = 1
        return screen_frame(bar, list_view(phone, scr, rows, empty="No matches" if query else None))

    def _open_folder(self, phone: Phone, path: str) -> None:
        phone.pop()  # leave search
        scr = phone.screen
        if scr is not None and scr.name == "main":
            scr.state.update(path=path, selected=[])
            scr.scroll.clear()


def _icon(e: FileEntry) -> str:
    major = e.mime.split("/", 1)[0]
    if e.mime == "application/pdf":
        return "pdf"
    return {"image": "image", "audio": "audio", "video": "video", "text": "doc"}.get(major, "file")
