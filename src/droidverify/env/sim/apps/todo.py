"""Tasks (Tasks.org, org.tasks): a to-do list app with lists, due dates, priorities and completion.

State is Room-shaped like the real app, in three tables of its own (prefixed ``todo_`` so they
never clash with another app's):

* ``todo_lists(_id, name, color, position)`` — Inbox, Work, Personal and Groceries exist on every
  phone (inserted with the schema); users add more from the drawer;
* ``todo_tasks(_id, list_id, title, notes, due, priority, completed, completed_at, created,
  modified)`` — ``due`` is epoch ms at 12:00 of the due day (0 = no due date, as Tasks.org stores
  all-day due dates), ``priority`` uses Tasks.org's numbers (0 high, 1 medium, 2 low, 3 none);
* ``todo_prefs(name, value)`` — ``show_completed`` ("0"/"1", default hidden) and ``sort``.

Screens:

* ``main`` — the tasks of the current list (``scr.state["list_id"]``): open tasks sorted by the
  sort preference, then (when "Show completed" is on) a "Completed" section. Each row has a
  checkbox that completes/reopens the task; tapping a row opens the editor, long-pressing selects
  it and the toolbar then offers "Move to list" and "Delete" (with confirmation). The navigation
  drawer (toolbar icon) switches lists and creates new ones; ⋮ offers Sort, Show/Hide completed and
  Delete completed; the search icon opens ``search``; the FAB creates a task in the current list.
* ``search`` — a search field; matching tasks of every list (title or description).
* ``edit`` — title, description, due date (date picker, clearable), priority, list; Save in the
  toolbar (back discards), Delete for an existing task.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta
from typing import Any

from droidverify.env.sim.app import (
    ACCENT,
    App,
    app_bar,
    edit_field,
    fab,
    icon_button,
    list_row,
    list_view,
    register_app,
    screen_frame,
    text_view,
)
from droidverify.env.sim.phone import Phone, Screen
from droidverify.env.sim.timeutil import MONTHS_SHORT, WEEKDAYS_SHORT, day_label, from_ms, to_ms
from droidverify.env.sim.view import APP_BOTTOM, APP_TOP, SCREEN_W, V, View

KEY = "todo"
LISTS = ("Inbox", "Work", "Personal", "Groceries")  # the lists every phone starts with, in drawer order
LIST_COLORS = ("#7e57c2", "#1e88e5", "#43a047", "#fb8c00")
# Index = the stored priority (Tasks.org: 0 is the highest).
PRIORITIES = ("High", "Medium", "Low", "None")
PRIORITY_NONE = 3
PRIORITY_COLORS = ("#d32f2f", "#f57c00", "#1976d2", "#9e9e9e")
SORTS = (("due", "By due date"), ("priority", "By priority"), ("title", "Alphabetical"),
         ("created", "By creation date"))

# Seed catalogue per list: (title, description). Task set-ups plant titles from their own
# catalogue (tasks/todo.py), none of which is here, so a goal's title is never ambiguous.
SEED_TASKS: dict[str, tuple[tuple[str, str], ...]] = {
    "Inbox": (("Reply to Jenna's email", ""), ("Check the blender warranty", "Receipt is in the kitchen drawer"),
              ("Pick up dry cleaning", ""), ("Cancel the gym trial", "Before the 30 days run out"),
              ("Look into travel insurance", ""), ("Back up phone photos", ""),
              ("Find a plumber", "Ask the neighbours for a recommendation")),
    "Work": (("Review pull request #214", ""), ("Prepare slides for standup", "Keep it to five slides"),
             ("Send invoice to Acme Corp", ""), ("Update the project roadmap", ""),
             ("Book meeting room for retro", "Room 4B if it's free"), ("Write onboarding docs", ""),
             ("Fix flaky login test", ""), ("Submit expense report", "Include the taxi receipts"),
             ("Plan Q4 goals", "")),
    "Personal": (("Call the landlord about the heater", ""), ("Plan weekend hike", "Check the trail conditions"),
                 ("Buy a gift for Tom", ""), ("Schedule a haircut", ""), ("Sign up for pottery class", ""),
                 ("Pay credit card bill", ""), ("Clean out the closet", "Donate the old jackets")),
    "Groceries": (("Milk", ""), ("Eggs", "A dozen, free range"), ("Sourdough bread", ""), ("Bananas", ""),
                  ("Coffee beans", ""), ("Chicken thighs", ""), ("Spinach", ""), ("Greek yogurt", ""),
                  ("Olive oil", ""), ("Tomatoes", ""), ("Cheddar cheese", ""), ("Pasta", ""), ("Rice", ""),
                  ("Apples", "")),
}
SEED_COUNTS = {"Inbox": (3, 6), "Work": (6, 9), "Personal": (4, 7), "Groceries": (9, 13)}


# ---- dates ----------------------------------------------------------------------------------
def due_ms(d: date) -> int:
    """Stored ``due`` of an all-day due date (12:00 of that day, as Tasks.org stores it)."""
    return to_ms(datetime(d.year, d.month, d.day, 12))


def due_day(ms: int) -> date | None:
    return from_ms(ms).date() if ms else None


def due_label(d: date, today: date) -> str:
    """How a task row shows its due date: "Today", "Tomorrow", "Yesterday" or "Fri, Oct 18"."""
    delta = (d - today).days
    if delta == 0:
        return "Today"
    if delta == 1:
        return "Tomorrow"
    if delta == -1:
        return "Yesterday"
    text = f"{WEEKDAYS_SHORT[d.weekday()]}, {MONTHS_SHORT[d.month - 1]} {d.day}"
    return text if d.year == today.year else f"{text}, {d.year}"


# ---- state helpers (the app, task set-ups and checkers share these) -------------------------
def list_id(phone: Phone, name: str) -> int | None:
    """Id of the list called ``name`` (case-insensitive, surrounding spaces ignored), else None."""
    row = phone.query_one("SELECT _id FROM todo_lists WHERE lower(trim(name)) = lower(trim(?)) ORDER BY _id",
                          (name,))
    return int(row[0]) if row else None


def list_name(phone: Phone, lid: int) -> str:
    row = phone.query_one("SELECT name FROM todo_lists WHERE _id=?", (lid,))
    return row[0] if row else ""


def all_lists(phone: Phone) -> list[tuple[int, str]]:
    return [(int(r[0]), r[1]) for r in phone.query("SELECT _id, name FROM todo_lists ORDER BY position, _id")]


def add_list(phone: Phone, name: str) -> int:
    pos = phone.query_one("SELECT COALESCE(MAX(position), -1) + 1 FROM todo_lists")[0]
    return phone.execute("INSERT INTO todo_lists(name, color, position) VALUES(?, 0, ?)", (name, pos))


def add_task(phone: Phone, list_name_: str, title: str, *, notes: str = "", due: date | None = None,
             priority: int = PRIORITY_NONE, completed: bool = False, created: datetime | None = None) -> int:
    """Insert one task into the list named ``list_name_`` (seeding, task set-ups); returns its id."""
    lid = list_id(phone, list_name_)
    if lid is None:
        lid = add_list(phone, list_name_)
    ms = to_ms(created or phone.now)
    return phone.execute(
        "INSERT INTO todo_tasks(list_id, title, notes, due, priority, completed, completed_at, created, modified) "
        "VALUES(?,?,?,?,?,?,?,?,?)",
        (lid, title, notes, due_ms(due) if due else 0, priority, int(completed), ms if completed else 0, ms, ms))


def tasks(phone: Phone, where: str = "", params: tuple = ()) -> list[dict[str, Any]]:
    """Tasks as plain dicts with their ``list`` name and ``due_date`` (date or None), by id."""
    rows = phone.query("SELECT t.*, l.name AS list FROM todo_tasks t JOIN todo_lists l ON l._id = t.list_id "
                       f"{'WHERE ' + where if where else ''} ORDER BY t._id", params)
    out = []
    for r in rows:
        d = dict(r)
        d["due_date"] = due_day(r["due"])
        out.append(d)
    return out


def get_pref(phone: Phone, name: str, default: str) -> str:
    row = phone.query_one("SELECT value FROM todo_prefs WHERE name=?", (name,))
    return row[0] if row else default


def set_pref(phone: Phone, name: str, value: str) -> None:
    phone.execute("INSERT OR REPLACE INTO todo_prefs(name, value) VALUES(?, ?)", (name, value))


def show_completed(phone: Phone) -> bool:
    return get_pref(phone, "show_completed", "0") == "1"


def sort_order(phone: Phone) -> str:
    return get_pref(phone, "sort", "due")


def current_list(phone: Phone, scr: Screen) -> int:
    """The list the main screen shows: its saved choice if that list still exists, else Inbox."""
    lid = scr.state.get("list_id")
    if lid is not None and phone.query_one("SELECT 1 FROM todo_lists WHERE _id=?", (lid,)):
        return int(lid)
    lists = all_lists(phone)
    inbox = list_id(phone, "Inbox")
    return inbox if inbox is not None else (lists[0][0] if lists else add_list(phone, "Inbox"))


def _sort_key(order: str) -> Any:
    if order == "priority":
        return lambda t: (t["priority"], t["due"] == 0, t["due"], t["_id"])
    if order == "title":
        return lambda t: (t["title"].lower(), t["_id"])
    if order == "created":
        return lambda t: (-t["created"], -t["_id"])
    return lambda t: (t["due"] == 0, t["due"], t["priority"], t["_id"])


def sorted_tasks(phone: Phone, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Open tasks in the sort order of the preferences, then completed ones (latest done first)."""
    open_ = sorted((t for t in items if not t["completed"]), key=_sort_key(sort_order(phone)))
    done = sorted((t for t in items if t["completed"]), key=lambda t: (-t["completed_at"], -t["_id"]))
    return open_ + done


@register_app
class TasksApp(App):
    key = KEY
    name = "Tasks"
    package = "org.tasks"
    aliases = ("tasks.org", "to-do", "to do", "todo list", "to-do list")
    icon_color = "#7e57c2"
    activity = "com.todoroo.astrid.activity.MainActivity"

    @staticmethod
    def _on_back(phone: Phone) -> bool:
        scr = phone.screen
        if scr is None or scr.name != "main":
            return False
        if scr.state.get("drawer"):  # back closes the drawer first, then leaves selection mode
            scr.state["drawer"] = False
            return True
        if scr.state.get("selected") is not None:
            scr.state.pop("selected", None)
            return True
        return False

    on_back = _on_back

    # ---- state ------------------------------------------------------------------------------
    def create_schema(self, phone: Phone) -> None:
        phone.execute("CREATE TABLE todo_lists (_id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                      "color INTEGER NOT NULL DEFAULT 0, position INTEGER NOT NULL DEFAULT 0)")
        phone.execute("CREATE TABLE todo_tasks (_id INTEGER PRIMARY KEY, list_id INTEGER NOT NULL, "
                      "title TEXT NOT NULL, notes TEXT NOT NULL DEFAULT '', due INTEGER NOT NULL DEFAULT 0, "
                      "priority INTEGER NOT NULL DEFAULT 3, completed INTEGER NOT NULL DEFAULT 0, "
                      "completed_at INTEGER NOT NULL DEFAULT 0, created INTEGER NOT NULL, "
                      "modified INTEGER NOT NULL)")
        phone.execute("CREATE TABLE todo_prefs (name TEXT PRIMARY KEY, value TEXT)")
        for i, name in enumerate(LISTS):  # fixed rows: even an unseeded phone has its lists
            phone.execute("INSERT INTO todo_lists(name, color, position) VALUES(?, ?, ?)", (name, i, i))

    def seed_data(self, phone: Phone, rng: random.Random) -> None:
        # ``rng`` is this app's own generator (seeded with the phone seed and "todo"): drawing from
        # it never shifts what the other apps seed.
        today = phone.now.date()
        for lname in LISTS:
            lo, hi = SEED_COUNTS[lname]
            for title, notes in rng.sample(SEED_TASKS[lname], rng.randint(lo, hi)):
                due = today + timedelta(days=rng.randint(-3, 20)) if rng.random() < 0.55 else None
                priority = rng.choices(range(4), weights=(2, 3, 2, 6))[0]
                done = rng.random() < 0.2
                created = phone.now - timedelta(days=rng.randint(1, 40), minutes=rng.randint(0, 1439))
                add_task(phone, lname, title, notes=notes, due=due, priority=priority, completed=done,
                         created=created)

    # ---- main: the tasks of one list ------------------------------------------------------------
    def screen_main(self, phone: Phone, scr: Screen) -> View:
        lid = current_list(phone, scr)
        name = list_name(phone, lid)
        items = sorted_tasks(phone, tasks(phone, "t.list_id = ?", (lid,)))
        open_items = [t for t in items if not t["completed"]]
        done_items = [t for t in items if t["completed"]]
        selected = scr.state.get("selected")
        if selected is not None and not any(t["_id"] == selected for t in items):
            selected = None
            scr.state.pop("selected", None)
        rows = [self._task_row(phone, scr, t) for t in open_items]
        if done_items and show_completed(phone):
            rows.append(text_view(f"Completed ({len(done_items)})", rid="completed_header", size=36,
                                  pad=(48, 36, 48, 12), style={"fg": "#5f6368"}))
            rows += [self._task_row(phone, scr, t) for t in done_items]
        if selected is not None:
            title = next(t["title"] for t in items if t["_id"] == selected)
            bar = app_bar("1 selected", back=lambda: scr.state.pop("selected", None), actions=[
                ("Move to list", "move", lambda: self._pick_move(phone, selected)),
                ("Delete", "delete", lambda: self._confirm_delete(phone, selected, title))])
        else:
            menu = [("Sort", lambda: self._pick_sort(phone)),
                    ("Hide completed" if show_completed(phone) else "Show completed",
                     lambda: set_pref(phone, "show_completed", "0" if show_completed(phone) else "1")),
                    ("Delete completed", lambda: self._confirm_clear(phone, lid))]
            bar = app_bar(name, phone=phone, menu=menu,
                          actions=[("Search", "search", lambda: phone.push("search"))])
            bar.children.insert(0, V("imagebutton", desc="Open navigation drawer", rid="drawer_button",
                                     clickable=True, focusable=True, on_click=lambda: self._open_drawer(scr),
                                     w=147, h=147, style={"icon": "menu"}))
        empty = "No open tasks" if done_items else "Nothing to do. Tap + to add a task."
        body = list_view(phone, scr, rows, key="tasks", rid="recycler_view", empty=empty)
        add = fab("Create new task", lambda: self._open_editor(phone, None, lid))
        root = screen_frame(bar, body, fab=None if selected is not None else add)
        if scr.state.get("drawer"):
            root.children.append(self._drawer(phone, scr, lid))
        return root

    def _task_row(self, phone: Phone, scr: Screen, t: dict[str, Any], *, show_list: bool = False) -> View:
        tid, title, done = t["_id"], t["title"], bool(t["completed"])
        today = phone.now.date()
        box = V("checkbox", desc=f"Mark {title} as {'not done' if done else 'done'}", rid="completeBox",
                checkable=True, checked=done, clickable=True, focusable=True,
                on_click=lambda: self.set_completed(phone, tid, not done), w=126, h=126,
                style={"fg": PRIORITY_COLORS[t["priority"]]})
        meta: list[View] = []
        d = t["due_date"]
        if d is not None:
            late = d < today and not done
            meta.append(text_view(due_label(d, today), rid="due_date", size=34,
                                  style={"fg": "#d32f2f" if late else "#5f6368"}))
        if t["priority"] != PRIORITY_NONE:
            meta.append(text_view(f"{PRIORITIES[t['priority']]} priority", rid="priority", size=34,
                                  style={"fg": PRIORITY_COLORS[t["priority"]]}))
        if show_list:
            meta.append(text_view(t["list"], rid="list_name", size=34, style={"fg": "#5f6368"}))
        texts: list[View] = [text_view(title, rid="title", size=46,
                                       style={"fg": "#9e9e9e" if done else "#202124", "strike": done})]
        if meta:
            texts.append(V("linear", *meta, rid="chip_group", horizontal=True, gap=24))
        if t["notes"]:
            first = t["notes"].splitlines()[0]
            texts.append(text_view(first if len(first) <= 40 else first[:39] + "…", rid="description", size=34,
                                   style={"fg": "#5f6368"}))

        def tap() -> None:
            if scr.state.get("selected") is not None:
                scr.state["selected"] = tid  # in selection mode a tap moves the selection
            else:
                self._open_editor(phone, tid, None)

        def select() -> None:
            if scr.name == "main":
                scr.state["selected"] = tid

        row = V("linear", box, V("linear", *texts, grow=1, pad=(12, 24, 0, 24), gap=4), rid="rowBody",
                horizontal=True, clickable=True, focusable=True, long_clickable=scr.name == "main", on_click=tap,
                on_long_click=select if scr.name == "main" else None, pad=(24, 0, 40, 0))
        row.selected = scr.state.get("selected") == tid
        if row.selected:
            row.style["bg"] = "#e8eaf6"
        return row

    def _open_drawer(self, scr: Screen) -> None:
        scr.state["drawer"] = True

    def _drawer(self, phone: Phone, scr: Screen, current: int) -> View:
        counts = {int(r[0]): int(r[1]) for r in phone.query(
            "SELECT list_id, COUNT(*) FROM todo_tasks WHERE completed=0 GROUP BY list_id")}
        rows: list[View] = [text_view("Tasks", rid="drawer_header", size=56, pad=(48, 60, 48, 40),
                                      style={"bold": True, "fg": ACCENT})]
        for lid, lname in all_lists(phone):
            def pick(i: int = lid) -> None:
                scr.state.update(list_id=i, drawer=False)
                scr.state.pop("selected", None)
                scr.scroll.clear()

            row = list_row(lname, rid="drawer_list_item", icon="list", on_click=pick,
                           right=text_view(str(counts.get(lid, 0)), rid="count", size=38, w=120,
                                           style={"align": "right", "fg": "#5f6368"}))
            row.selected = lid == current
            rows.append(row)
        rows.append(list_row("New list", rid="new_list", icon="add", on_click=lambda: phone.show_dialog(
            self.key, "text_input", title="New list", hint="List name", ok="Create", on_ok="create_list",
            empty_error="List name can't be empty")))
        panel = V("linear", *rows, rid="navigation_drawer", at=(0, APP_TOP, 840, APP_BOTTOM),
                  style={"bg": "#ffffff", "opaque": True})

        def close() -> None:
            scr.state["drawer"] = False

        # A clickable scrim over the whole window: a tap beside the drawer closes it, and the list
        # behind is covered (not offered to the agent), as with a real DrawerLayout.
        return V("frame", panel, rid="drawer_layout", clickable=True, on_click=close,
                 at=(0, APP_TOP, SCREEN_W, APP_BOTTOM), style={"bg": "#00000066"})

    def create_list(self, phone: Phone, value: str) -> None:
        if list_id(phone, value) is not None:
            phone.show_toast("A list with that name already exists")
            return
        lid = add_list(phone, value)
        scr = phone.screen
        if scr is not None and scr.name == "main":
            scr.state.update(list_id=lid, drawer=False)
            scr.state.pop("selected", None)
            scr.scroll.clear()

    # ---- task operations ------------------------------------------------------------------------
    def set_completed(self, phone: Phone, task_id: int, done: bool) -> None:
        now = to_ms(phone.now)
        phone.execute("UPDATE todo_tasks SET completed=?, completed_at=?, modified=? WHERE _id=?",
                      (int(done), now if done else 0, now, task_id))
        if done:
            phone.show_toast("Task completed")

    def _pick_move(self, phone: Phone, task_id: int) -> None:
        row = phone.query_one("SELECT list_id FROM todo_tasks WHERE _id=?", (task_id,))
        phone.show_dialog(self.key, "choice", title="Move to list", options=[n for _, n in all_lists(phone)],
                          selected=list_name(phone, row[0]) if row else None, on_ok="move_task",
                          args={"task_id": task_id})

    def move_task(self, phone: Phone, value: str, task_id: int) -> None:
        lid = list_id(phone, value)
        if lid is None:
            return
        phone.execute("UPDATE todo_tasks SET list_id=?, modified=? WHERE _id=?", (lid, to_ms(phone.now), task_id))
        scr = phone.screen
        if scr is not None and scr.name == "main":
            scr.state.pop("selected", None)
        phone.show_toast(f"Moved to {value}")

    def _confirm_delete(self, phone: Phone, task_id: int, title: str) -> None:
        phone.show_dialog(self.key, "confirm", title="Delete task?", message=f"\u201c{title}\u201d will be deleted.",
                          ok="Delete", on_ok="delete_task", args={"task_id": task_id})

    def delete_task(self, phone: Phone, task_id: int) -> None:
        phone.execute("DELETE FROM todo_tasks WHERE _id=?", (task_id,))
        scr = phone.screen
        if scr is not None and scr.name == "edit":
            phone.pop()
        elif scr is not None and scr.name == "main":
            scr.state.pop("selected", None)
        phone.show_toast("Task deleted")

    def _confirm_clear(self, phone: Phone, lid: int) -> None:
        n = phone.query_one("SELECT COUNT(*) FROM todo_tasks WHERE list_id=? AND completed=1", (lid,))[0]
        if not n:
            phone.show_toast("No completed tasks")
            return
        phone.show_dialog(self.key, "confirm", title="Delete completed tasks?",
                          message=f"Delete {n} completed task{'s' if n != 1 else ''} from "
                                  f"\u201c{list_name(phone, lid)}\u201d?",
                          ok="Delete", on_ok="delete_completed", args={"list_id": lid})

    def delete_completed(self, phone: Phone, list_id: int) -> None:
        phone.execute("DELETE FROM todo_tasks WHERE list_id=? AND completed=1", (list_id,))
        phone.show_toast("Completed tasks deleted")

    def _pick_sort(self, phone: Phone) -> None:
        cur = dict(SORTS).get(sort_order(phone))
        phone.show_dialog(self.key, "choice", title="Sort", options=[label for _, label in SORTS], selected=cur,
                          on_ok="set_sort")

    def set_sort(self, phone: Phone, value: str) -> None:
        key = next((k for k, label in SORTS if label == value), "due")
        set_pref(phone, "sort", key)

    # ---- search ---------------------------------------------------------------------------------
    def screen_search(self, phone: Phone, scr: Screen) -> View:
        query = scr.fields.get("query", "").strip().lower()
        field = edit_field(phone, scr.fields, "query", hint="Search tasks", rid="search_input")
        field.grow = 1
        bar = V("linear", V("imagebutton", desc="Navigate up", clickable=True, focusable=True, on_click=phone.back,
                            w=147, h=147, style={"icon": "back"}), field,
                rid="toolbar", horizontal=True, h=168, pad=(24, 10, 24, 10), style={"bg": "#ffffff"})
        if not query:
            body = V("linear", text_view("Search your tasks by name or description", rid="empty_view",
                                         style={"align": "center", "fg": "#5f6368"}), grow=1, pad=(48, 300, 48, 0))
            return screen_frame(bar, body)
        found = [t for t in tasks(phone) if query in t["title"].lower() or query in t["notes"].lower()]
        rows = [self._task_row(phone, scr, t, show_list=True) for t in sorted_tasks(phone, found)]
        return screen_frame(bar, list_view(phone, scr, rows, key="results", empty="No matching tasks"))

    # ---- editor ---------------------------------------------------------------------------------
    def _open_editor(self, phone: Phone, task_id: int | None, lid: int | None) -> None:
        phone.push("edit", task_id=task_id, list_id=lid)

    def _load_editor(self, phone: Phone, scr: Screen) -> bool:
        """Fill a fresh editor from its task (or defaults); False if the task no longer exists."""
        if scr.state.get("loaded"):
            return True
        tid = scr.args.get("task_id")
        if tid is None:
            lid = scr.args.get("list_id") or list_id(phone, "Inbox") or all_lists(phone)[0][0]
            scr.fields.update(title="", notes="")
            scr.state.update(loaded=True, due=None, priority=PRIORITY_NONE, list_id=lid)
            return True
        found = tasks(phone, "t._id = ?", (tid,))
        if not found:
            return False
        t = found[0]
        scr.fields.update(title=t["title"], notes=t["notes"])
        scr.state.update(loaded=True, due=t["due_date"].isoformat() if t["due_date"] else None,
                         priority=t["priority"], list_id=t["list_id"])
        return True

    def screen_edit(self, phone: Phone, scr: Screen) -> View:
        if not self._load_editor(phone, scr):  # deleted underneath (e.g. by a checker's near-miss edit)
            return screen_frame(app_bar("Task", back=phone.back),
                                V("linear", text_view("This task no longer exists", rid="empty_view")))
        st = scr.state
        tid = scr.args.get("task_id")
        due = date.fromisoformat(st["due"]) if st.get("due") else None

        def label(text: str) -> View:
            return text_view(text, size=34, pad=(0, 24, 0, 0), style={"fg": "#5f6368"})

        def pick_due() -> None:
            d = due or phone.now.date()
            phone.show_dialog(self.key, "date_picker", title="Due date", year=d.year, month=d.month, day=d.day,
                              on_ok="_set_due")

        due_row = V("linear", V("image", rid="due_icon", w=96, h=84, style={"icon": "event"}),
                    text_view(day_label(due) if due else "No due date", rid="due_date", size=44, grow=1,
                              style={"fg": "#202124" if due else "#9e9e9e"}),
                    icon_button("Clear due date", lambda: st.update(due=None), rid="clear_due") if due else None,
                    rid="due_date_row", desc="Due date", horizontal=True, clickable=True, focusable=True,
                    on_click=pick_due, h=140, pad=(0, 28, 0, 0))
        prio_buttons = []
        for p in range(4):
            desc = "No priority" if p == PRIORITY_NONE else f"{PRIORITIES[p]} priority"
            prio_buttons.append(V("radio", text=PRIORITIES[p], desc=desc,
                                  rid=f"priority_{PRIORITIES[p].lower()}", checkable=True, checked=st["priority"] == p,
                                  clickable=True, focusable=True, on_click=lambda p=p: st.update(priority=p),
                                  h=120, style={"size": 38, "fg": PRIORITY_COLORS[p]}))
        lid = st["list_id"]

        def pick_list() -> None:
            phone.show_dialog(self.key, "choice", title="List", options=[n for _, n in all_lists(phone)],
                              selected=list_name(phone, lid), on_ok="_set_list")

        list_field = V("linear", V("image", rid="list_icon", w=96, h=84, style={"icon": "list"}),
                       text_view(list_name(phone, lid), rid="list_name", size=44, grow=1),
                       rid="list_row", desc="List", horizontal=True, clickable=True, focusable=True,
                       on_click=pick_list, h=140, pad=(0, 28, 0, 0))
        notes = edit_field(phone, scr.fields, "notes", hint="Description", rid="notes", h=220)
        form = V("linear",
                 label("Task name"), edit_field(phone, scr.fields, "title", hint="Task name", rid="title"),
                 label("Description"), notes,
                 label("Due date"), due_row,
                 label("Priority"), V("linear", *prio_buttons, rid="priority_group", horizontal=True, gap=8),
                 label("List"), list_field,
                 rid="task_form", pad=(48, 10, 48, 0), gap=6)
        actions = [("Save", "save", lambda: self._save(phone, scr))]
        if tid is not None:
            actions.insert(0, ("Delete task", "delete", lambda: self._confirm_delete(
                phone, tid, scr.fields.get("title", "") or "Task")))
        return screen_frame(app_bar("Edit task" if tid is not None else "New task", back=phone.back,
                                    actions=actions), form)

    def _edit_screen(self, phone: Phone) -> Screen | None:
        scr = phone.screen
        return scr if scr is not None and scr.name == "edit" else None

    def _set_due(self, phone: Phone, year: int, month: int, day: int) -> None:
        scr = self._edit_screen(phone)
        if scr is not None:
            scr.state["due"] = date(year, month, day).isoformat()

    def _set_list(self, phone: Phone, value: str) -> None:
        scr = self._edit_screen(phone)
        lid = list_id(phone, value)
        if scr is not None and lid is not None:
            scr.state["list_id"] = lid

    def _save(self, phone: Phone, scr: Screen) -> None:
        title = scr.fields.get("title", "").strip()
        if not title:
            phone.show_toast("Task name can't be empty")
            return
        st = scr.state
        notes = scr.fields.get("notes", "").strip()
        due = due_ms(date.fromisoformat(st["due"])) if st.get("due") else 0
        now = to_ms(phone.now)
        tid = scr.args.get("task_id")
        if tid is None:
            phone.execute("INSERT INTO todo_tasks(list_id, title, notes, due, priority, completed, completed_at, "
                          "created, modified) VALUES(?,?,?,?,?,0,0,?,?)",
                          (st["list_id"], title, notes, due, st["priority"], now, now))
        else:
            phone.execute("UPDATE todo_tasks SET list_id=?, title=?, notes=?, due=?, priority=?, modified=? "
                          "WHERE _id=?", (st["list_id"], title, notes, due, st["priority"], now, tid))
        phone.pop()
        phone.show_toast("Task saved")
