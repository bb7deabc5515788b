"""Tasks (Tasks.org) app tasks: add, edit, complete, reopen, move and delete to-dos; questions about them.

Checkers diff the ``todo_tasks`` rows against a *baseline* (a fresh phone of the same seed with the
task's set-up applied), so a change to the look-alike decoy task, a duplicate or a lost row fails.
Set-ups plant tasks whose titles come from catalogues the app never seeds, usually next to a
decoy with a similar title. Oracles act on the current screen and find planted tasks by title in
the live state, so they work from any screen of the app and after detours.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim.apps.todo import (
    KEY,
    PRIORITIES,
    add_task,
    all_lists,
    current_list,
    due_ms,
    list_id,
    list_name,
    show_completed,
    sort_order,
    tasks,
)
from droidverify.env.sim.phone import Phone
from droidverify.env.sim.timeutil import MONTHS, WEEKDAYS
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
    click_or_scroll,
    diff_rows,
    find,
    open_app,
    scroll_toward,
    type_in,
)
from droidverify.tasks.registry import register_task

TODAY = date(2024, 10, 15)  # the simulator's default clock (phone.now)
LISTS = ("Inbox", "Work", "Personal", "Groceries")
ERRAND_LISTS = LISTS[:3]  # where the planted errands belong (never the shopping list)
# (target, decoy): the decoy sits next to the target and must be left alone.
PAIRS: tuple[tuple[str, str], ...] = (
    ("Pay electricity bill", "Pay water bill"), ("Book dentist appointment", "Book doctor appointment"),
    ("Renew passport", "Renew library card"), ("Email Sarah the slides", "Email Sam the slides"),
    ("Buy birthday card for Anna", "Buy birthday cake for Anna"), ("Water the plants", "Water the garden"),
    ("Schedule car service", "Schedule bike service"), ("Return library books", "Return the Amazon package"),
    ("Prepare quarterly report", "Prepare weekly report"), ("Call mom", "Call grandma"),
    ("Clean the garage", "Clean the gutters"), ("Update resume", "Update LinkedIn profile"),
)
NEW_TITLES = ("Order printer ink", "Buy stamps", "Fix the leaking tap", "Research summer camps",
              "Send thank-you notes", "Defrost the freezer", "Book flights to Lisbon", "Pick up prescription",
              "Oil the bike chain", "Set up the new router")
NOTES = ("Ask for a receipt", "Use the blue folder", "Before 5 pm", "Check the coupon first",
         "Compare three quotes", "Bring the old one along")
NEW_LISTS = ("Home Renovation", "Travel", "Reading", "Fitness", "Garden", "Wedding")
FILLERS = ("Sort the recycling", "Charge the camera", "Order new contacts", "Print boarding pass",
           "Buy light bulbs", "Clean the oven", "Reply to the survey", "Wrap the present")

TASK_SQL = "SELECT _id, list_id, title, notes, due, priority, completed FROM todo_tasks ORDER BY _id"
LIST_SQL = "SELECT _id, name FROM todo_lists ORDER BY _id"
COLS = ("_id", "list_id", "title", "notes", "due", "priority", "completed")


def say_day(d: date) -> str:
    """``date(2024, 10, 22)`` -> ``"Tuesday, October 22"`` (how goals write a due date)."""
    return f"{WEEKDAYS[d.weekday()]}, {MONTHS[d.month - 1]} {d.day}"


def prio(name: str) -> int:
    """Stored priority of a goal's priority word ("high" -> 0)."""
    return [p.lower() for p in PRIORITIES].index(name.lower())


def norm(text: str) -> str:
    return " ".join(text.split()).lower()


# ---- checker helpers --------------------------------------------------------------------------
def task_diff(phone: Phone, template: TaskTemplate, params: dict[str, Any]):
    before = baseline_rows(phone, template, params, TASK_SQL)
    return diff_rows(before, [tuple(r) for r in phone.query(TASK_SQL)])


def lists_unchanged(phone: Phone, template: TaskTemplate, params: dict[str, Any]) -> bool:
    return baseline_rows(phone, template, params, LIST_SQL) == [tuple(r) for r in phone.query(LIST_SQL)]


def row_matches(row: tuple, **want: Any) -> bool:
    """A TASK_SQL row has the wanted values (titles and notes compared ignoring case and spacing)."""
    for col, value in want.items():
        got = row[COLS.index(col)]
        if col in ("title", "notes"):
            if norm(got) != norm(value):
                return False
        elif got != value:
            return False
    return True


def only_change(phone: Phone, template: TaskTemplate, params: dict[str, Any], target: str, **want: Any) -> bool:
    """Exactly one task changed, the one titled ``target``, and only in the ``want`` columns."""
    added, removed, changed = task_diff(phone, template, params)
    if added or removed or len(changed) != 1 or not lists_unchanged(phone, template, params):
        return False
    old, new = changed[0]
    if old[2] != target:
        return False
    expected = {c: old[i] for i, c in enumerate(COLS) if c not in want}
    return row_matches(new, **want) and row_matches(new, **expected)


def find_task(phone: Phone, title: str) -> dict[str, Any] | None:
    found = tasks(phone, "t.title = ?", (title,))
    return found[0] if found else None


# ---- oracle helpers ---------------------------------------------------------------------------
def on_list(phone: Phone, name: str) -> bool:
    """The plain main screen of list ``name`` (no drawer, selection, dialog or menu) is showing."""
    scr = phone.screen
    if phone.foreground != KEY or scr is None or scr.name != "main":
        return False
    if scr.state.get("drawer") or scr.state.get("selected") is not None:
        return False
    return current_list(phone, scr) == list_id(phone, name)


def to_list(phone: Phone, obs: Observation, name: str) -> Action | None:
    """Next action toward the plain main screen of list ``name``; None once there."""
    if phone.foreground != KEY:
        return open_app(phone, KEY)
    scr = phone.screen
    assert scr is not None
    if phone.dialog is not None or phone.menu_open or scr.name != "main" or scr.state.get("selected") is not None:
        return BACK
    here = current_list(phone, scr) == list_id(phone, name)
    if scr.state.get("drawer"):
        return BACK if here else click_or_scroll(phone, obs, resource_id="drawer_list_item", text=name)
    return None if here else click(obs, desc="Open navigation drawer") or BACK


def via_menu(phone: Phone, obs: Observation, name: str, item: str) -> Action:
    """Pick ``item`` from the ⋮ menu of list ``name``."""
    if phone.menu_open and phone.screen is not None and phone.screen.name == "main" \
            and not phone.screen.state.get("drawer") and current_list(phone, phone.screen) == list_id(phone, name):
        return click(obs, text=item) or BACK
    return to_list(phone, obs, name) or click(obs, desc="More options") or BACK


def in_editor(phone: Phone, task_id: int | None) -> bool:
    scr = phone.screen
    return phone.foreground == KEY and scr is not None and scr.name == "edit" and scr.args.get("task_id") == task_id


def open_editor(phone: Phone, obs: Observation, t: dict[str, Any]) -> Action | None:
    """Next action toward the editor of task ``t`` (a row of ``tasks``); None once it is open."""
    if in_editor(phone, t["_id"]):
        return None
    if t["completed"] and not show_completed(phone):
        return via_menu(phone, obs, t["list"], "Show completed")
    return to_list(phone, obs, t["list"]) or click_or_scroll(phone, obs, resource_id="rowBody", text=t["title"])


def select_task(phone: Phone, obs: Observation, t: dict[str, Any]) -> Action | None:
    """Next action toward list ``t["list"]`` in selection mode with ``t`` selected; None once so."""
    scr = phone.screen
    if phone.foreground == KEY and scr is not None and scr.name == "main" and not scr.state.get("drawer") \
            and scr.state.get("selected") == t["_id"] and phone.dialog is None and not phone.menu_open:
        return None
    step = to_list(phone, obs, t["list"])
    if step is not None:
        return step
    i = find(obs, resource_id="rowBody", text=t["title"])
    if i is None:
        return click_or_scroll(phone, obs, resource_id="rowBody", text=t["title"])
    return Action(action_type="long_press", index=i)


def fill_editor(phone: Phone, obs: Observation, *, title: str | None = None, notes: str | None = None,
                due: date | None = None, priority: int | None = None, list_name: str | None = None) -> Action:
    """On the editor: set the wanted fields (pickers included), then Save."""
    scr = phone.screen
    assert scr is not None and scr.name == "edit"
    dlg = phone.dialog
    if dlg is not None:
        if dlg.name == "date_picker" and due is not None:
            d = dlg.data
            cur, want = int(d["year"]) * 12 + int(d["month"]), due.year * 12 + due.month
            if cur != want:
                return click_in(obs, "dialog", desc="Next month" if want > cur else "Previous month") or BACK
            if int(d["day"]) != due.day:
                return type_in(obs, str(due.day), resource_id="day") or BACK
            return click_in(obs, "dialog", text="OK", resource_id="button1") or BACK
        if dlg.name == "choice" and list_name is not None:
            return click_in(obs, "dialog", text=list_name) or BACK
        return BACK
    if phone.menu_open:
        return BACK
    f, st = scr.fields, scr.state
    if title is not None and norm(f.get("title", "")) != norm(title):
        return type_in(obs, title, resource_id="title") or BACK
    if notes is not None and norm(f.get("notes", "")) != norm(notes):
        return type_in(obs, notes, resource_id="notes") or BACK
    if due is not None and st.get("due") != due.isoformat():
        return click(obs, resource_id="due_date_row") or BACK
    if priority is not None and st.get("priority") != priority:
        return click(obs, resource_id=f"priority_{PRIORITIES[priority].lower()}") or BACK
    if list_name is not None and st.get("list_id") != list_id(phone, list_name):
        return click(obs, resource_id="list_row") or BACK
    return click(obs, desc="Save") or BACK


def confirm_dialog(phone: Phone, obs: Observation, method: str, **args: Any) -> Action | None:
    """Press the dialog's OK button when the open confirmation is ``method`` with ``args``."""
    dlg = phone.dialog
    if phone.foreground == KEY and dlg is not None and dlg.name == "confirm" and dlg.data.get("on_ok") == method \
            and all(dlg.data.get("args", {}).get(k) == v for k, v in args.items()):
        return click_in(obs, "dialog", resource_id="android:id/button1") or BACK
    return None


# ---- templates --------------------------------------------------------------------------------
class TodoTemplate(TaskTemplate):
    apps = ("Tasks",)


class NewTaskTemplate(TodoTemplate):
    """Create one task; success is exactly one added row with the wanted fields, nothing else touched."""

    def want(self, phone: Phone, params: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM todo_tasks WHERE lower(title) = lower(?)", (params["title"],))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = task_diff(phone, self, params)
        ok = (len(added) == 1 and not removed and not changed and lists_unchanged(phone, self, params)
              and row_matches(added[0], **self.want(phone, params)))
        return 1.0 if ok else 0.0

    def editor_values(self, params: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        values = self.editor_values(params)
        made = [t for t in tasks(phone) if norm(t["title"]) == norm(params["title"])]
        if made:  # created already but not right yet: fix it in its editor
            t = made[0]
            return open_editor(phone, obs, t) or fill_editor(phone, obs, **values)
        if in_editor(phone, None):
            return fill_editor(phone, obs, **values)
        return to_list(phone, obs, params["list"]) or click(obs, desc="Create new task") or BACK


@register_task
class AddTaskDuePriority(NewTaskTemplate):
    name = "todo_add_task_due_priority"
    complexity = 3
    optimal_steps = 11
    goal_template = "In Tasks, add a task \"{title}\" to the {list} list, due {due_text}, with {priority} priority."
    goal_phrasings = (
        "Could you create a {priority}-priority to-do \"{title}\" in my {list} list? It's due {due_text}.",
        "New task in {list}: \"{title}\", due {due_text}, priority {priority}.",
        "Put \"{title}\" on my {list} list in the Tasks app with a due date of {due_text} and {priority} priority.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        due = TODAY + timedelta(days=rng.randint(2, 30))
        return {"title": rng.choice(NEW_TITLES), "list": rng.choice(("Work", "Personal", "Inbox")),
                "due": due.isoformat(), "due_text": say_day(due), "priority": rng.choice(("high", "medium", "low"))}

    def want(self, phone: Phone, params: dict[str, Any]) -> dict[str, Any]:
        return {"title": params["title"], "list_id": list_id(phone, params["list"]),
                "due": due_ms(date.fromisoformat(params["due"])), "priority": prio(params["priority"]),
                "completed": 0}

    def editor_values(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"title": params["title"], "due": date.fromisoformat(params["due"]),
                "priority": prio(params["priority"]), "list_name": params["list"]}


@register_task
class AddTaskWithNotes(NewTaskTemplate):
    name = "todo_add_task_with_notes"
    complexity = 2
    optimal_steps = 7
    goal_template = "Create a task \"{title}\" in my {list} list in Tasks with the description \"{notes}\"."
    goal_phrasings = (
        "In the Tasks app, add \"{title}\" to {list} and write \"{notes}\" in its description.",
        "Please make a new to-do called \"{title}\" under {list}, description: \"{notes}\".",
        "Add a task to my {list} list: \"{title}\" (description \"{notes}\").",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"title": rng.choice(NEW_TITLES), "list": rng.choice(LISTS), "notes": rng.choice(NOTES)}

    def want(self, phone: Phone, params: dict[str, Any]) -> dict[str, Any]:
        return {"title": params["title"], "list_id": list_id(phone, params["list"]), "notes": params["notes"],
                "completed": 0}

    def editor_values(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"title": params["title"], "notes": params["notes"], "list_name": params["list"]}


class PlantedTemplate(TodoTemplate):
    """Tasks about one planted task ``title`` in ``list`` next to a look-alike ``decoy``."""

    target_done = False  # whether the planted pair starts completed

    def base(self, rng: random.Random) -> dict[str, Any]:
        title, decoy = rng.choice(PAIRS)
        if rng.random() < 0.5:
            title, decoy = decoy, title
        # far-off or no due dates sort the pair to the end of its list, often below the fold
        due = TODAY + timedelta(days=rng.randint(6, 28))
        return {"title": title, "decoy": decoy, "list": rng.choice(ERRAND_LISTS),
                "due": due.isoformat() if rng.random() < 0.5 else "",
                "priority": rng.choice(("high", "medium", "low", "none")),
                "busy": rng.sample(FILLERS, rng.randint(1, 4))}

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return self.base(rng)

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM todo_tasks WHERE title IN (?, ?)", (params["title"], params["decoy"]))
        for i, title in enumerate(params["busy"]):  # a busier list: sooner tasks push the pair down
            add_task(phone, params["list"], title, due=TODAY + timedelta(days=1 + i))
        due = date.fromisoformat(params["due"]) if params["due"] else None
        add_task(phone, params["list"], params["decoy"], due=due, priority=prio(params["priority"]),
                 completed=self.target_done)
        add_task(phone, params["list"], params["title"], due=due, priority=prio(params["priority"]),
                 completed=self.target_done)

    def target(self, phone: Phone, params: dict[str, Any]) -> dict[str, Any]:
        t = find_task(phone, params["title"])
        assert t is not None, f"{self.name}: the planted task {params['title']!r} is gone"
        return t


@register_task
class CompleteTask(PlantedTemplate):
    name = "todo_complete_task"
    complexity = 1
    optimal_steps = 5
    goal_template = "In the Tasks app, mark \"{title}\" in the {list} list as done."
    goal_phrasings = (
        "I finished \"{title}\" - check it off in my {list} list.",
        "Could you complete the to-do \"{title}\" on my {list} list in Tasks?",
        "Tick off \"{title}\" ({list} list).",
    )

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if only_change(phone, self, params, params["title"], completed=1) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        t = self.target(phone, params)
        return to_list(phone, obs, t["list"]) or click_or_scroll(phone, obs, desc=f"Mark {t['title']} as done")


@register_task
class ReopenTask(PlantedTemplate):
    name = "todo_reopen_task"
    complexity = 2
    optimal_steps = 7
    target_done = True
    goal_template = "In Tasks, \"{title}\" in my {list} list is marked as done by mistake; mark it as not done."
    goal_phrasings = (
        "Reopen the completed task \"{title}\" in the {list} list of the Tasks app.",
        "I haven't actually done \"{title}\" yet. Can you uncheck it in {list}?",
        "Mark \"{title}\" ({list}) as incomplete again.",
    )

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if only_change(phone, self, params, params["title"], completed=0) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        t = self.target(phone, params)
        if not show_completed(phone):
            return via_menu(phone, obs, t["list"], "Show completed")
        return to_list(phone, obs, t["list"]) or click_or_scroll(phone, obs, desc=f"Mark {t['title']} as not done")


@register_task
class DeleteTask(PlantedTemplate):
    name = "todo_delete_task"
    complexity = 2
    optimal_steps = 7
    goal_template = "Delete the task \"{title}\" from my {list} list in Tasks."
    goal_phrasings = (
        "In the Tasks app, remove \"{title}\" from the {list} list.",
        "I don't need the to-do \"{title}\" in {list} anymore; please delete it.",
        "Get rid of \"{title}\" ({list}) in Tasks.",
    )

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = task_diff(phone, self, params)
        ok = (not added and not changed and len(removed) == 1 and removed[0][2] == params["title"]
              and lists_unchanged(phone, self, params))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        t = self.target(phone, params)
        return confirm_dialog(phone, obs, "delete_task", task_id=t["_id"]) or select_task(phone, obs, t) \
            or click(obs, desc="Delete") or BACK


@register_task
class RenameTask(PlantedTemplate):
    name = "todo_rename_task"
    complexity = 2
    optimal_steps = 7
    goal_template = "In Tasks, rename the task \"{title}\" to \"{new_title}\"."
    goal_phrasings = (
        "Change the name of my to-do \"{title}\" to \"{new_title}\" in the Tasks app.",
        "Could you retitle \"{title}\" as \"{new_title}\"?",
        "Rename to-do: \"{title}\" -> \"{new_title}\".",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base(rng)
        p["new_title"] = rng.choice(NEW_TITLES)
        return p

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if only_change(phone, self, params, params["title"], title=params["new_title"]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        t = find_task(phone, params["title"]) or find_task(phone, params["new_title"])
        assert t is not None
        return open_editor(phone, obs, t) or fill_editor(phone, obs, title=params["new_title"])


@register_task
class MoveTask(PlantedTemplate):
    name = "todo_move_task"
    complexity = 2
    optimal_steps = 7
    goal_template = "In Tasks, move \"{title}\" from the {list} list to the {dest} list."
    goal_phrasings = (
        "\"{title}\" belongs in {dest}, not {list}. Move it there in the Tasks app.",
        "Could you move my to-do \"{title}\" out of {list} and into {dest}?",
        "Move task \"{title}\": {list} -> {dest}.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base(rng)
        p["dest"] = rng.choice([n for n in ERRAND_LISTS if n != p["list"]])
        return p

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        dest = list_id(phone, params["dest"])
        return 1.0 if only_change(phone, self, params, params["title"], list_id=dest) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        t = self.target(phone, params)
        dlg = phone.dialog
        if dlg is not None and dlg.name == "choice" and dlg.data.get("on_ok") == "move_task" \
                and dlg.data.get("args", {}).get("task_id") == t["_id"]:
            return click_in(obs, "dialog", text=params["dest"]) or BACK
        return select_task(phone, obs, t) or click(obs, desc="Move to list") or BACK


@register_task
class ChangePriority(PlantedTemplate):
    name = "todo_change_priority"
    complexity = 2
    optimal_steps = 7
    goal_template = "Set the priority of the task \"{title}\" to {new_priority} in the Tasks app."
    goal_phrasings = (
        "In Tasks, \"{title}\" should be {new_priority} priority. Please change it.",
        "Could you make \"{title}\" a {new_priority}-priority task?",
        "Priority of \"{title}\" -> {new_priority}.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base(rng)
        p["new_priority"] = rng.choice([x for x in ("high", "medium", "low") if x != p["priority"]])
        return p

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if only_change(phone, self, params, params["title"], priority=prio(params["new_priority"])) \
            else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        t = self.target(phone, params)
        return open_editor(phone, obs, t) or fill_editor(phone, obs, priority=prio(params["new_priority"]))


@register_task
class SetDueDate(PlantedTemplate):
    name = "todo_set_due_date"
    complexity = 3
    optimal_steps = 9
    goal_template = "Change the due date of the task \"{title}\" in Tasks to {new_due_text}."
    goal_phrasings = (
        "In the Tasks app, \"{title}\" is now due {new_due_text}. Update it, please.",
        "Could you move the deadline of my to-do \"{title}\" to {new_due_text}?",
        "Reschedule \"{title}\" for {new_due_text}.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base(rng)
        old = date.fromisoformat(p["due"]) if p["due"] else None
        new = rng.choice([TODAY + timedelta(days=n) for n in range(2, 40) if TODAY + timedelta(days=n) != old])
        p.update(new_due=new.isoformat(), new_due_text=say_day(new))
        return p

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        due = due_ms(date.fromisoformat(params["new_due"]))
        return 1.0 if only_change(phone, self, params, params["title"], due=due) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        t = self.target(phone, params)
        return open_editor(phone, obs, t) or fill_editor(phone, obs, due=date.fromisoformat(params["new_due"]))


@register_task
class ClearCompleted(TodoTemplate):
    name = "todo_clear_completed"
    complexity = 2
    optimal_steps = 7
    goal_template = "In Tasks, delete all completed tasks from my {list} list, but keep the ones in other lists."
    goal_phrasings = (
        "Clear out the finished to-dos in the {list} list of the Tasks app; leave the other lists alone.",
        "Could you remove every completed task from {list} (only that list)?",
        "Tasks app: delete the done items in {list} only.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name = rng.choice(LISTS)
        done = rng.sample(FILLERS, 3)
        return {"list": name, "done": done[:2], "other": rng.choice([n for n in LISTS if n != name]),
                "other_done": done[2], "open": rng.choice(PAIRS)[0]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for title in params["done"]:
            add_task(phone, params["list"], title, completed=True)
        add_task(phone, params["list"], params["open"], due=TODAY + timedelta(days=3))
        add_task(phone, params["other"], params["other_done"], completed=True)  # must survive

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        before = baseline_rows(phone, self, params, TASK_SQL)
        lid = list_id(phone, params["list"])
        want_gone = {r[0] for r in before if r[1] == lid and r[6]}
        added, removed, changed = task_diff(phone, self, params)
        ok = not added and not changed and {r[0] for r in removed} == want_gone and lists_unchanged(phone, self, params)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        lid = list_id(phone, params["list"])
        return confirm_dialog(phone, obs, "delete_completed", list_id=lid) or \
            via_menu(phone, obs, params["list"], "Delete completed")


@register_task
class CreateListWithTask(TodoTemplate):
    name = "todo_create_list_with_task"
    complexity = 3
    optimal_steps = 9
    goal_template = "In Tasks, create a new list called \"{list}\" and add a task \"{title}\" to it."
    goal_phrasings = (
        "Make a \"{list}\" list in the Tasks app with one to-do in it: \"{title}\".",
        "Could you start a new to-do list named \"{list}\" and put \"{title}\" on it?",
        "New list \"{list}\" with the task \"{title}\".",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"list": rng.choice(NEW_LISTS), "title": rng.choice(NEW_TITLES)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM todo_tasks WHERE lower(title) = lower(?)", (params["title"],))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        lists_before = baseline_rows(phone, self, params, LIST_SQL)
        lists_now = [tuple(r) for r in phone.query(LIST_SQL)]
        new_lists = [r for r in lists_now if r not in lists_before]
        if len(lists_now) != len(lists_before) + 1 or len(new_lists) != 1 or norm(new_lists[0][1]) != norm(params["list"]):
            return 0.0
        added, removed, changed = task_diff(phone, self, params)
        ok = (len(added) == 1 and not removed and not changed
              and row_matches(added[0], title=params["title"], list_id=new_lists[0][0], completed=0))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if list_id(phone, params["list"]) is None:
            dlg = phone.dialog
            if phone.foreground == KEY and dlg is not None and dlg.name == "text_input" \
                    and dlg.data.get("on_ok") == "create_list":
                if dlg.data.get("fields", {}).get("value", "") != params["list"]:
                    return type_in(obs, params["list"], resource_id="edit") or BACK
                return click_in(obs, "dialog", text="Create") or BACK
            scr = phone.screen
            if phone.foreground == KEY and scr is not None and scr.name == "main" and scr.state.get("drawer") \
                    and dlg is None:
                return click_or_scroll(phone, obs, resource_id="new_list")
            return to_list(phone, obs, "Inbox") or click(obs, desc="Open navigation drawer") or BACK
        made = [t for t in tasks(phone) if norm(t["title"]) == norm(params["title"])]
        if made:
            return open_editor(phone, obs, made[0]) or fill_editor(phone, obs, title=params["title"],
                                                                   list_name=params["list"])
        if in_editor(phone, None):
            return fill_editor(phone, obs, title=params["title"], list_name=params["list"])
        return to_list(phone, obs, params["list"]) or click(obs, desc="Create new task") or BACK


# ---- questions --------------------------------------------------------------------------------
class QueryTemplate(TodoTemplate):
    kind = "query"


@register_task
class QueryOpenCount(QueryTemplate):
    name = "todo_query_open_count"
    complexity = 2
    optimal_steps = 5
    goal_template = "How many open (not completed) tasks are in my {list} list in Tasks? Answer with a number."
    goal_phrasings = (
        "Count the unfinished to-dos in the {list} list of the Tasks app and tell me the number.",
        "In Tasks, how many things are still left to do in {list}?",
        "Number of open tasks in {list}?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        extra = rng.sample(FILLERS, rng.randint(2, 5))
        return {"list": rng.choice(("Work", "Personal", "Groceries")), "extra": extra,
                "done": [t for t in FILLERS if t not in extra][:2]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, title in enumerate(params["extra"]):
            add_task(phone, params["list"], title, due=TODAY + timedelta(days=4 + 3 * i))
        for title in params["done"]:  # completed ones do not count
            add_task(phone, params["list"], title, completed=True)

    def expected(self, phone: Phone, params: dict[str, Any]) -> int:
        return len(tasks(phone, "l.name = ? AND t.completed = 0", (params["list"],)))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer_matches(answer, str(self.expected(phone, params))) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return to_list(phone, obs, params["list"]) or answer(str(self.expected(phone, params)))


@register_task
class QueryDueOn(QueryTemplate):
    name = "todo_query_due_on"
    complexity = 2
    optimal_steps = 5
    goal_template = "Which task in the Tasks app is due on {due_text}? Answer with its title."
    goal_phrasings = (
        "What's on my to-do list for {due_text}? Tell me the task's name.",
        "In Tasks, name the task that has its due date on {due_text}.",
        "Task due {due_text}: which one is it?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        title, decoy = rng.choice(PAIRS)
        due = TODAY + timedelta(days=rng.randint(2, 12))
        lst, other = rng.sample(ERRAND_LISTS, 2)
        return {"title": title, "decoy": decoy, "list": lst, "decoy_list": other, "due": due.isoformat(),
                "due_text": say_day(due)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        due = date.fromisoformat(params["due"])
        # exactly one task is due that day: others move a week later; the look-alike is due the day after
        phone.execute("UPDATE todo_tasks SET due = ? WHERE due = ?", (due_ms(due + timedelta(days=7)), due_ms(due)))
        add_task(phone, params["list"], params["title"], due=due)
        add_task(phone, params["decoy_list"], params["decoy"], due=due + timedelta(days=1))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = answer_matches(answer, params["title"]) and not answer_matches(answer, params["decoy"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        t = find_task(phone, params["title"])
        step = to_list(phone, obs, t["list"] if t else params["list"])
        return step or answer(params["title"])


@register_task
class QueryHighPriority(QueryTemplate):
    name = "todo_query_high_priority"
    complexity = 2
    optimal_steps = 5
    goal_template = "Which open task in my {list} list in Tasks has high priority? Answer with the task name."
    goal_phrasings = (
        "In the Tasks app, what's the high-priority to-do in {list}?",
        "Tell me which unfinished {list} task is marked high priority.",
        "High-priority open task in {list}?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        title, decoy = rng.choice(PAIRS)
        lst, other = rng.sample(ERRAND_LISTS, 2)
        return {"title": title, "decoy": decoy, "list": lst, "decoy_list": other,
                "due": (TODAY + timedelta(days=rng.randint(1, 20))).isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        lid = list_id(phone, params["list"])
        phone.execute("UPDATE todo_tasks SET priority = 1 WHERE list_id = ? AND priority = 0", (lid,))
        add_task(phone, params["list"], params["title"], due=date.fromisoformat(params["due"]), priority=0)
        add_task(phone, params["decoy_list"], params["decoy"], priority=0)  # high, but in another list
        add_task(phone, params["list"], FILLERS[0], priority=0, completed=True)  # high, but done

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        others = [params["decoy"], FILLERS[0]]
        ok = answer_matches(answer, params["title"]) and not any(answer_matches(answer, o) for o in others)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        t = find_task(phone, params["title"])
        step = to_list(phone, obs, t["list"] if t else params["list"])
        return step or answer(params["title"])


# ---- more kinds of task: overdue sweep, relative reschedule, same-title twins, bulk moves, questions ----
def changed_only(phone: Phone, template: TaskTemplate, params: dict[str, Any], ids: set[int],
                 **want: Any) -> bool:
    """The rows whose ids are ``ids`` changed, each only in the ``want`` columns; nothing else changed."""
    added, removed, changed = task_diff(phone, template, params)
    if added or removed or {old[0] for old, _ in changed} != ids \
            or not lists_unchanged(phone, template, params):
        return False
    for old, new in changed:
        expected = {c: old[i] for i, c in enumerate(COLS) if c not in want}
        if not (row_matches(new, **want) and row_matches(new, **expected)):
            return False
    return True


@register_task
class CompleteOverdue(TodoTemplate):
    name = "todo_complete_overdue_tasks"
    complexity = 2
    optimal_steps = 6
    goal_template = ("In Tasks, mark every overdue task in my {list} list as done (the open ones whose due "
                     "date has already passed); leave tasks due today or later open.")
    goal_phrasings = (
        "Check off all the overdue to-dos in the {list} list of the Tasks app; nothing due today or later.",
        "Could you complete every task in {list} that is past its due date? Keep the others open.",
        "Tasks app, {list}: tick off whatever is overdue, only that.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        titles = rng.sample(FILLERS, 5)
        n_late = rng.randint(2, 3)
        late = [[t, -rng.randint(1, 9)] for t in titles[:n_late]]
        # look-alikes that are not overdue: due today, tomorrow or later
        fine = [[t, d] for t, d in zip(titles[n_late:], rng.sample((0, 0, 1, 3, 6), 5 - n_late))]
        return {"list": rng.choice(ERRAND_LISTS), "late": late, "fine": fine}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for title, days in params["late"] + params["fine"]:
            add_task(phone, params["list"], title, due=TODAY + timedelta(days=days))

    def overdue_ids(self, phone: Phone, params: dict[str, Any]) -> set[int]:
        lid = list_id(phone, params["list"])
        today_noon = due_ms(phone.now.date())
        return {r[0] for r in baseline_rows(phone, self, params, TASK_SQL)
                if r[1] == lid and not r[6] and 0 < r[4] < today_noon}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if changed_only(phone, self, params, self.overdue_ids(phone, params), completed=1) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        ids = self.overdue_ids(phone, params)
        was_open = {r[0] for r in baseline_rows(phone, self, params, TASK_SQL) if not r[6]}
        left = [t for t in tasks(phone) if t["_id"] in ids and not t["completed"]]
        if left:
            t = left[0]
            return to_list(phone, obs, t["list"]) or \
                click_or_scroll(phone, obs, desc=f"Mark {t['title']} as done")
        wrong = [t for t in tasks(phone) if t["_id"] in was_open - ids and t["completed"]]
        if not wrong:
            return COMPLETE
        t = wrong[0]  # checked off by mistake: reopen it
        if not show_completed(phone):
            return via_menu(phone, obs, t["list"], "Show completed")
        return to_list(phone, obs, t["list"]) or \
            click_or_scroll(phone, obs, desc=f"Mark {t['title']} as not done")


SHIFTS = ((1, "one day"), (2, "two days"), (3, "three days"), (7, "one week"), (14, "two weeks"))


@register_task
class PostponeTask(PlantedTemplate):
    name = "todo_postpone_task"
    complexity = 3
    optimal_steps = 9
    goal_template = "In Tasks, push the due date of \"{title}\" back by {shift_text} from what it is now."
    goal_phrasings = (
        "I need {shift_text} more for \"{title}\". Postpone its due date in the Tasks app by that much.",
        "Could you move the deadline of my to-do \"{title}\" {shift_text} later than it currently is?",
        "Snooze \"{title}\" by {shift_text} (its due date, in Tasks).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base(rng)
        if not p["due"]:
            p["due"] = (TODAY + timedelta(days=rng.randint(1, 20))).isoformat()
        p["shift"], p["shift_text"] = rng.choice(SHIFTS)
        return p

    def new_due(self, params: dict[str, Any]) -> date:
        return date.fromisoformat(params["due"]) + timedelta(days=params["shift"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        due = due_ms(self.new_due(params))
        return 1.0 if only_change(phone, self, params, params["title"], due=due) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        t = self.target(phone, params)
        return open_editor(phone, obs, t) or fill_editor(phone, obs, due=self.new_due(params))


@register_task
class CompleteTwinByDescription(TodoTemplate):
    name = "todo_complete_twin_by_description"
    complexity = 2
    optimal_steps = 5
    goal_template = ("I have two tasks called \"{title}\" in Tasks. Mark the one whose description says "
                     "\"{notes}\" as done and leave the other one open.")
    goal_phrasings = (
        ("There are two \"{title}\" to-dos in the Tasks app; complete only the one with the description "
        "\"{notes}\"."),
        "Could you check off \"{title}\", the copy described as \"{notes}\", not the other one?",
        "Tasks: \"{title}\" (description \"{notes}\") is done. The other \"{title}\" stays open.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        lst, other = rng.sample(ERRAND_LISTS, 2)
        notes, decoy_notes = rng.sample(NOTES, 2)
        return {"title": rng.choice(PAIRS)[rng.randint(0, 1)], "list": lst, "notes": notes,
                "decoy_list": other, "decoy_notes": decoy_notes}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM todo_tasks WHERE title = ?", (params["title"],))
        add_task(phone, params["decoy_list"], params["title"], notes=params["decoy_notes"])
        add_task(phone, params["list"], params["title"], notes=params["notes"])

    def target_id(self, phone: Phone, params: dict[str, Any]) -> int:
        return next(r[0] for r in baseline_rows(phone, self, params, TASK_SQL)
                    if r[2] == params["title"] and r[3] == params["notes"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if changed_only(phone, self, params, {self.target_id(phone, params)}, completed=1) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        # search by the description: only the right twin matches, and its row has a checkbox
        if phone.foreground != KEY:
            return open_app(phone, KEY)
        scr = phone.screen
        assert scr is not None
        if phone.dialog is not None or phone.menu_open:
            return BACK
        twin = [t for t in tasks(phone, "t.title = ? AND t.notes = ? AND t.completed = 1",
                                 (params["title"], params["decoy_notes"]))]
        query, mark = (params["decoy_notes"], "not done") if twin else (params["notes"], "done")
        if scr.name == "search":
            if norm(scr.fields.get("query", "")) != norm(query):
                return type_in(obs, query, resource_id="search_input") or BACK
            return click_or_scroll(phone, obs, desc=f"Mark {params['title']} as {mark}")
        if scr.name == "main" and not scr.state.get("drawer") and scr.state.get("selected") is None:
            return click(obs, desc="Search") or BACK
        return BACK


@register_task
class MoveHighPriority(TodoTemplate):
    name = "todo_move_high_priority_tasks"
    complexity = 3
    optimal_steps = 11
    goal_template = ("In Tasks, move every open high-priority task from my {list} list to the {dest} list; "
                     "leave everything else where it is.")
    goal_phrasings = (
        "Could you take all the unfinished high-priority to-dos out of {list} and put them in {dest}?",
        "Tasks app: the open tasks in {list} marked high priority belong in {dest}. Move them all.",
        "Move {list}'s open high-priority tasks to {dest}, nothing else.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        lst, dest = rng.sample(ERRAND_LISTS, 2)
        titles = rng.sample(NEW_TITLES, 5)
        n = rng.randint(2, 3)
        return {"list": lst, "dest": dest, "high": titles[:n], "medium": titles[n:-1],
                "done_high": titles[-1]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        lid = list_id(phone, params["list"])
        phone.execute("UPDATE todo_tasks SET priority = 1 "
                      "WHERE list_id = ? AND priority = 0 AND completed = 0", (lid,))
        for i, title in enumerate(params["high"]):
            add_task(phone, params["list"], title, due=TODAY + timedelta(days=2 + 5 * i), priority=0)
        for title in params["medium"]:
            add_task(phone, params["list"], title, priority=1)
        add_task(phone, params["list"], params["done_high"], priority=0, completed=True)  # done: stays

    def high_ids(self, phone: Phone, params: dict[str, Any]) -> set[int]:
        lid = list_id(phone, params["list"])
        return {r[0] for r in baseline_rows(phone, self, params, TASK_SQL)
                if r[1] == lid and not r[6] and r[5] == 0}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        dest = list_id(phone, params["dest"])
        return 1.0 if changed_only(phone, self, params, self.high_ids(phone, params), list_id=dest) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        ids = self.high_ids(phone, params)
        lid = list_id(phone, params["list"])
        was_here = {r[0] for r in baseline_rows(phone, self, params, TASK_SQL) if r[1] == lid}
        place = {i: params["dest"] if i in ids else params["list"] for i in was_here}
        left = [t for t in tasks(phone) if t["_id"] in place and t["list"] != place[t["_id"]]]
        if not left:
            return COMPLETE
        t = left[0]
        if t["completed"] and not show_completed(phone):  # a completed task moved by mistake
            return via_menu(phone, obs, t["list"], "Show completed")
        dlg = phone.dialog
        if dlg is not None and dlg.name == "choice" and dlg.data.get("on_ok") == "move_task" \
                and dlg.data.get("args", {}).get("task_id") == t["_id"]:
            return click_in(obs, "dialog", text=place[t["_id"]]) or BACK
        return select_task(phone, obs, t) or click(obs, desc="Move to list") or BACK


EXTRA_TITLES = FILLERS + NEW_TITLES + tuple(a for a, _ in PAIRS)


@register_task
class QueryBusiestList(QueryTemplate):
    name = "todo_query_busiest_list"
    complexity = 2
    optimal_steps = 4
    goal_template = ("Which of my lists in Tasks has the most open (not completed) tasks? "
                     "Answer with the list name.")
    goal_phrasings = (
        "In the Tasks app, which list has the largest number of unfinished to-dos?",
        "Could you tell me which to-do list has the most tasks still open?",
        "List with the most open tasks in Tasks?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        lst, decoy = rng.sample(LISTS, 2)
        return {"list": lst, "decoy": decoy, "lead": rng.randint(1, 2)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        def count(name: str, done: bool | None = False) -> int:
            where = "l.name = ?" + ("" if done is None else f" AND t.completed = {int(done)}")
            return len(tasks(phone, where, (name,)))

        used = {t["title"] for t in tasks(phone)}
        pool = [t for t in EXTRA_TITLES if t not in used]
        top = max(count(n) for n in LISTS if n != params["list"])
        for _ in range(max(0, top + params["lead"] - count(params["list"]))):
            add_task(phone, params["list"], pool.pop(0))
        # the decoy list has more tasks than the answer once completed ones are counted too
        for _ in range(max(0, count(params["list"], None) + 1 - count(params["decoy"], None))):
            add_task(phone, params["decoy"], pool.pop(0), completed=True)

    def expected(self, phone: Phone) -> str:
        counts = {name: len(tasks(phone, "l._id = ? AND t.completed = 0", (lid,)))
                  for lid, name in all_lists(phone)}
        return max(counts, key=lambda n: counts[n])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = self.expected(phone)
        ok = answer_matches(answer, want) and \
            not any(answer_matches(answer, name) for _, name in all_lists(phone) if name != want)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        scr = phone.screen
        if phone.foreground == KEY and scr is not None and scr.name == "main" and scr.state.get("drawer") \
                and phone.dialog is None and not phone.menu_open:
            return answer(self.expected(phone))
        return to_list(phone, obs, "Inbox") or click(obs, desc="Open navigation drawer") or BACK


CODES = ("48213", "90577", "31664", "72049", "15830", "66402")


@register_task
class QueryDescriptionCode(PlantedTemplate):
    name = "todo_query_description_code"
    kind = "query"
    complexity = 2
    optimal_steps = 6
    goal_template = ("What reference number did I write in the description of my task \"{title}\" in Tasks? "
                     "Answer with the number.")
    goal_phrasings = (
        "Look up the task \"{title}\" in the Tasks app and tell me the reference number in its description.",
        "Could you check which reference number I noted on my to-do \"{title}\"?",
        "Reference number in the description of \"{title}\" (Tasks)?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base(rng)
        code, decoy_code = rng.sample(CODES, 2)
        p.update(code=code, decoy_code=decoy_code)
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        super().setup(phone, params)
        for title, code in ((params["title"], params["code"]), (params["decoy"], params["decoy_code"])):
            notes = f"Call the front desk first, then quote reference number {code} at the counter."
            phone.execute("UPDATE todo_tasks SET notes = ? WHERE title = ?", (notes, title))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = answer_matches(answer, params["code"]) and not answer_matches(answer, params["decoy_code"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        t = find_task(phone, params["title"])
        assert t is not None
        return open_editor(phone, obs, t) or answer(params["code"])


# ---- round 4: several tasks at once, copying a task, view settings, a new list for old tasks, due questions ----
NEW_GROCERIES = ("Lemons", "Basil", "Oat milk", "Frozen peas", "Dark chocolate", "Rice noodles", "Parmesan")


@register_task
class AddSeveralTasks(TodoTemplate):
    name = "todo_add_several_tasks"
    complexity = 3
    optimal_steps = 13
    goal_template = "In Tasks, add these three items to my {list} list, each as its own task: {items}."
    goal_phrasings = (
        "Put {items} on my {list} list in the Tasks app, one task per item.",
        "Could you add three to-dos to {list}: {items}?",
        "Tasks app, {list} list: new tasks {items} (three separate tasks).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        chosen = rng.sample(NEW_GROCERIES, 3)
        return {"list": "Groceries", "titles": chosen, "items": f"{chosen[0]}, {chosen[1]} and {chosen[2]}"}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for title in params["titles"]:
            phone.execute("DELETE FROM todo_tasks WHERE lower(title) = lower(?)", (title,))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = task_diff(phone, self, params)
        lid = list_id(phone, params["list"])
        ok = (not removed and not changed and lists_unchanged(phone, self, params)
              and sorted(norm(r[2]) for r in added) == sorted(norm(t) for t in params["titles"])
              and all(row_matches(r, list_id=lid, completed=0, notes="", due=0) for r in added))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        wanted = {norm(t) for t in params["titles"]}
        made = [t for t in tasks(phone) if norm(t["title"]) in wanted]
        misplaced = [t for t in made if t["list"] != params["list"]]
        if misplaced:  # added to another list by mistake: fix it in its editor
            return open_editor(phone, obs, misplaced[0]) or fill_editor(phone, obs, list_name=params["list"])
        have = {norm(t["title"]) for t in made}
        missing = [t for t in params["titles"] if norm(t) not in have]
        if not missing:
            return COMPLETE
        if in_editor(phone, None):
            return fill_editor(phone, obs, title=missing[0], list_name=params["list"])
        return to_list(phone, obs, params["list"]) or click(obs, desc="Create new task") or BACK


@register_task
class CopyTaskToList(PlantedTemplate):
    name = "todo_copy_task_to_list"
    complexity = 3
    optimal_steps = 12
    goal_template = ("In Tasks, make a copy of my task \"{title}\" in the {dest} list with the same name, "
                     "description, due date and priority; the original stays in {list}.")
    goal_phrasings = (
        ("Could you duplicate the to-do \"{title}\" from {list} into my {dest} list? Same title, description, "
         "due date and priority, and keep the original."),
        "Tasks app: copy \"{title}\" ({list}) to {dest}, all of its details included; don't move the original.",
        ("I want \"{title}\" on my {dest} list too. Add an identical task there (description, due date, "
         "priority) and leave the one in {list} as it is."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base(rng)
        if not p["due"]:
            p["due"] = (TODAY + timedelta(days=rng.randint(3, 25))).isoformat()
        p["dest"] = rng.choice([n for n in ERRAND_LISTS if n != p["list"]])
        p["notes"] = rng.choice(NOTES)
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        super().setup(phone, params)
        phone.execute("UPDATE todo_tasks SET notes = ? WHERE title = ?", (params["notes"], params["title"]))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = task_diff(phone, self, params)
        ok = (len(added) == 1 and not removed and not changed and lists_unchanged(phone, self, params)
              and row_matches(added[0], title=params["title"], notes=params["notes"],
                              due=due_ms(date.fromisoformat(params["due"])), priority=prio(params["priority"]),
                              list_id=list_id(phone, params["dest"]), completed=0))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        values = {"title": params["title"], "notes": params["notes"], "due": date.fromisoformat(params["due"]),
                  "priority": prio(params["priority"])}
        copies = [t for t in tasks(phone) if norm(t["title"]) == norm(params["title"]) and t["list"] == params["dest"]]
        if copies:  # made already but not right yet: fix it in its editor
            return open_editor(phone, obs, copies[0]) or fill_editor(phone, obs, **values)
        src = params["list"]
        if in_editor(phone, None):
            # a new task opened from the original's list, where its row (due, priority, description) was
            # on screen: the values typed are the ones read there; opened elsewhere, go and read it first
            if phone.screen is not None and phone.screen.args.get("list_id") == list_id(phone, src):
                return fill_editor(phone, obs, list_name=params["dest"], **values)
            return BACK
        step = to_list(phone, obs, src)
        if step is not None:
            return step
        row = {"resource_id": "rowBody", "text": params["title"]}
        if find(obs, **row) is None:
            return scroll_toward(phone, obs, **row) or click(obs, desc="Create new task") or BACK
        return click(obs, desc="Create new task") or BACK


VIEW_SORTS = (("priority", "By priority", "by priority"), ("title", "Alphabetical", "alphabetically"),
              ("created", "By creation date", "by creation date"))


@register_task
class SortAndShowCompleted(TodoTemplate):
    name = "todo_sort_and_show_completed"
    complexity = 2
    optimal_steps = 7
    goal_template = "In Tasks, sort my tasks {sort_text} and make completed tasks show up in the list too."
    goal_phrasings = (
        "Change the Tasks app so the list is sorted {sort_text} and finished to-dos are visible as well.",
        "Could you set Tasks to order tasks {sort_text}? I also want to see the completed ones.",
        "Tasks view settings: sort {sort_text}, show completed tasks.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        key, label, text = rng.choice(VIEW_SORTS)
        return {"sort": key, "sort_label": label, "sort_text": text}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("INSERT OR REPLACE INTO todo_prefs(name, value) VALUES('sort', 'due')")
        phone.execute("INSERT OR REPLACE INTO todo_prefs(name, value) VALUES('show_completed', '0')")

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = task_diff(phone, self, params)
        ok = (sort_order(phone) == params["sort"] and show_completed(phone) and not added and not removed
              and not changed and lists_unchanged(phone, self, params))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        scr = phone.screen
        here = list_name(phone, current_list(phone, scr)) if phone.foreground == KEY and scr is not None \
            and scr.name == "main" else "Inbox"
        if sort_order(phone) != params["sort"]:
            dlg = phone.dialog
            if phone.foreground == KEY and dlg is not None and dlg.name == "choice" \
                    and dlg.data.get("on_ok") == "set_sort":
                return click_in(obs, "dialog", text=params["sort_label"]) or BACK
            return via_menu(phone, obs, here, "Sort")
        if not show_completed(phone):
            return via_menu(phone, obs, here, "Show completed")
        return COMPLETE  # changed in some other way: nothing this oracle can repair from here


def create_list_step(phone: Phone, obs: Observation, name: str) -> Action:
    """Next action toward a new list ``name`` made from the drawer's "New list"."""
    dlg = phone.dialog
    if phone.foreground == KEY and dlg is not None and dlg.name == "text_input" and dlg.data.get("on_ok") == "create_list":
        if dlg.data.get("fields", {}).get("value", "") != name:
            return type_in(obs, name, resource_id="edit") or BACK
        return click_in(obs, "dialog", text="Create") or BACK
    scr = phone.screen
    if phone.foreground == KEY and scr is not None and scr.name == "main" and scr.state.get("drawer") \
            and dlg is None and not phone.menu_open:
        return click_or_scroll(phone, obs, resource_id="new_list")
    if phone.foreground == KEY and scr is not None and scr.name == "main" and dlg is None and not phone.menu_open \
            and scr.state.get("selected") is None:
        return click(obs, desc="Open navigation drawer") or BACK
    return to_list(phone, obs, "Inbox") or BACK


@register_task
class NewListForTasks(TodoTemplate):
    name = "todo_new_list_for_tasks"
    complexity = 3
    optimal_steps = 14
    goal_template = ("In Tasks, create a new list \"{new_list}\" and move \"{first}\" and \"{second}\" from my "
                     "{list} list into it.")
    goal_phrasings = (
        ("Could you start a list called \"{new_list}\" in the Tasks app and put my {list} tasks \"{first}\" and "
         "\"{second}\" in it?"),
        "New list \"{new_list}\": move \"{first}\" and \"{second}\" there from {list}; the rest of {list} stays.",
        ("Tasks app: \"{first}\" and \"{second}\" belong in their own list. Make a \"{new_list}\" list and move "
         "both of them out of {list} into it."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first, second, other = rng.sample(NEW_TITLES, 3)
        return {"new_list": rng.choice(NEW_LISTS), "list": rng.choice(ERRAND_LISTS), "first": first,
                "second": second, "other": other}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, key in enumerate(("first", "other", "second")):  # the one that stays sits between them
            phone.execute("DELETE FROM todo_tasks WHERE title = ?", (params[key],))
            add_task(phone, params["list"], params[key], due=TODAY + timedelta(days=8 + i))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        lists_before = baseline_rows(phone, self, params, LIST_SQL)
        lists_now = [tuple(r) for r in phone.query(LIST_SQL)]
        new = [r for r in lists_now if r not in lists_before]
        if len(lists_now) != len(lists_before) + 1 or len(new) != 1 or norm(new[0][1]) != norm(params["new_list"]):
            return 0.0
        before = baseline_rows(phone, self, params, TASK_SQL)
        ids = {r[0] for r in before if r[2] in (params["first"], params["second"])}
        added, removed, changed = task_diff(phone, self, params)
        if added or removed or {old[0] for old, _ in changed} != ids:
            return 0.0
        for old, row in changed:
            keep = {c: old[i] for i, c in enumerate(COLS) if c != "list_id"}
            if not (row_matches(row, list_id=new[0][0]) and row_matches(row, **keep)):
                return 0.0
        return 1.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if list_id(phone, params["new_list"]) is None:
            return create_list_step(phone, obs, params["new_list"])
        left = [t for key in ("first", "second") for t in tasks(phone, "t.title = ?", (params[key],))
                if t["list"] != params["new_list"]]
        wrong = [t for t in tasks(phone, "t.title = ?", (params["other"],)) if t["list"] != params["list"]]
        if not left and not wrong:
            return COMPLETE  # changed in some other way: nothing this oracle can repair from here
        t, dest = (left[0], params["new_list"]) if left else (wrong[0], params["list"])
        dlg = phone.dialog
        if phone.foreground == KEY and dlg is not None and dlg.name == "choice" \
                and dlg.data.get("on_ok") == "move_task" and dlg.data.get("args", {}).get("task_id") == t["_id"]:
            return click_in(obs, "dialog", text=dest) or BACK
        return select_task(phone, obs, t) or click(obs, desc="Move to list") or BACK


@register_task
class QueryEarliestDue(QueryTemplate):
    name = "todo_query_earliest_due"
    complexity = 2
    optimal_steps = 4
    goal_template = ("Which open task in my {list} list in Tasks is due soonest? "
                     "Answer with the task name.")
    goal_phrasings = (
        "In the Tasks app, what's the next deadline in {list}? Tell me the unfinished task due first.",
        "Could you check which not-yet-done {list} task has the earliest due date?",
        "Tasks, {list} list: open task with the nearest due date?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        lst, other = rng.sample(ERRAND_LISTS, 2)
        title = rng.choice(NEW_TITLES)
        done, elsewhere, later = rng.sample(FILLERS, 3)
        return {"list": lst, "other_list": other, "title": title, "days": rng.randint(1, 5), "done": done,
                "elsewhere": elsewhere, "later": later}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        due = TODAY + timedelta(days=params["days"])
        lid = list_id(phone, params["list"])
        # every other open task of the list with a due date moves after the answer's
        phone.execute("UPDATE todo_tasks SET due = ? WHERE list_id = ? AND completed = 0 AND due > 0 AND due <= ?",
                      (due_ms(due + timedelta(days=4)), lid, due_ms(due)))
        add_task(phone, params["list"], params["title"], due=due)
        add_task(phone, params["list"], params["later"], due=due + timedelta(days=1), priority=0)
        add_task(phone, params["list"], params["done"], due=due - timedelta(days=2), completed=True)  # done
        add_task(phone, params["other_list"], params["elsewhere"], due=due - timedelta(days=1))  # other list

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        others = [params["done"], params["elsewhere"], params["later"]]
        ok = answer_matches(answer, params["title"]) and not any(answer_matches(answer, o) for o in others)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return to_list(phone, obs, params["list"]) or answer(params["title"])


@register_task
class QueryDueBy(QueryTemplate):
    name = "todo_query_due_by"
    complexity = 3
    optimal_steps = 4
    goal_template = ("Which open tasks in my {list} list in Tasks are due on or before {due_text}? "
                     "List them all.")
    goal_phrasings = (
        "What do I have to get done in {list} by {due_text}? Name every unfinished task due by then.",
        "Could you list the not-yet-done tasks in my {list} list with a due date no later than {due_text}?",
        "Tasks app, {list}: all open tasks due {due_text} or earlier?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        cut = TODAY + timedelta(days=rng.randint(3, 6))
        titles = rng.sample(NEW_TITLES, 4)
        n = rng.randint(2, 3)
        span = (cut - TODAY).days
        due = [[t, d] for t, d in zip(titles[:n], rng.sample(range(-2, span + 1), n))]
        late, done = rng.sample(FILLERS, 2)
        return {"list": rng.choice(ERRAND_LISTS), "cut": cut.isoformat(), "due_text": say_day(cut), "due": due,
                "late": late, "done": done}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        cut = date.fromisoformat(params["cut"])
        lid = list_id(phone, params["list"])
        phone.execute("UPDATE todo_tasks SET due = ? WHERE list_id = ? AND completed = 0 AND due > 0 AND due <= ?",
                      (due_ms(cut + timedelta(days=5)), lid, due_ms(cut)))
        for title, days in params["due"]:
            add_task(phone, params["list"], title, due=TODAY + timedelta(days=days))
        add_task(phone, params["list"], params["late"], due=cut + timedelta(days=1))  # one day too late
        add_task(phone, params["list"], params["done"], due=cut - timedelta(days=1), completed=True)  # done

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = all(answer_matches(answer, t) for t, _ in params["due"]) and \
            not any(answer_matches(answer, o) for o in (params["late"], params["done"]))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return to_list(phone, obs, params["list"]) or answer("; ".join(t for t, _ in params["due"]))


# ---- round 5: days between due dates, a misfiled task, conditional priority, tagged sweeps, yes/no, a percentage ----
@register_task
class QueryDaysBetweenDue(QueryTemplate):
    name = "todo_query_days_between_due"
    complexity = 3
    optimal_steps = 6
    goal_template = ("How many days after the due date of \"{title}\" is \"{later}\" due in Tasks? "
                     "Answer with a number.")
    goal_phrasings = (
        "In the Tasks app, count the days from the due date of \"{title}\" to the due date of \"{later}\".",
        "Could you tell me how many days lie between \"{title}\" being due and \"{later}\" being due?",
        "Tasks: days from \"{title}\"'s due date to \"{later}\"'s due date?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        title, lookalike = rng.choice(PAIRS)
        if rng.random() < 0.5:
            title, lookalike = lookalike, title
        first, other, later = sorted(rng.sample(range(3, 31), 3))
        if rng.random() < 0.5:
            first, other = other, first  # the look-alike is due before or after the right one
        lst, later_list = rng.choice(ERRAND_LISTS), rng.choice(ERRAND_LISTS)
        return {"title": title, "lookalike": lookalike, "later": rng.choice(NEW_TITLES), "list": lst,
                "later_list": later_list, "days": first, "lookalike_days": other, "later_days": later}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for key in ("title", "lookalike", "later"):
            phone.execute("DELETE FROM todo_tasks WHERE title = ?", (params[key],))
        add_task(phone, params["list"], params["lookalike"], due=TODAY + timedelta(days=params["lookalike_days"]))
        add_task(phone, params["list"], params["title"], due=TODAY + timedelta(days=params["days"]))
        add_task(phone, params["later_list"], params["later"], due=TODAY + timedelta(days=params["later_days"]))

    def expected(self, params: dict[str, Any]) -> int:
        return params["later_days"] - params["days"]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        wrong = params["later_days"] - params["lookalike_days"]  # counted from the look-alike
        ok = answer_matches(answer, str(self.expected(params))) and not answer_matches(answer, str(wrong))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        # the first due date is read on its row; the answer comes from the later task's editor
        t = find_task(phone, params["later"])
        if t is None:
            return answer(str(self.expected(params)))
        return open_editor(phone, obs, t) or answer(str(self.expected(params)))


ERRANDS = tuple(t for pair in PAIRS for t in pair if not t.startswith("Buy"))


@register_task
class MoveMisfiledTask(TodoTemplate):
    name = "todo_move_misfiled_task"
    complexity = 3
    optimal_steps = 7
    goal_template = ("One task on my {list} list in Tasks isn't something to buy; it's an errand. Move that one "
                     "to my {dest} list and leave the shopping items where they are.")
    goal_phrasings = (
        "Something that isn't a grocery ended up on my {list} list in Tasks. Put that errand in {dest} instead.",
        ("Could you find the task in {list} that isn't a thing to buy and move it to the {dest} list? The "
         "grocery items stay."),
        "Tasks app: the one non-shopping to-do in {list} belongs in {dest}. Move it, nothing else.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"list": "Groceries", "dest": rng.choice(ERRAND_LISTS), "errand": rng.choice(ERRANDS),
                "groceries": rng.sample(NEW_GROCERIES, rng.randint(2, 4))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for title in [params["errand"], *params["groceries"]]:
            phone.execute("DELETE FROM todo_tasks WHERE lower(title) = lower(?)", (title,))
        for title in params["groceries"]:
            add_task(phone, params["list"], title)
        add_task(phone, params["list"], params["errand"])  # no due date: at the end of a long list

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        dest = list_id(phone, params["dest"])
        return 1.0 if only_change(phone, self, params, params["errand"], list_id=dest) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        t = find_task(phone, params["errand"])
        if t is None:
            raise TaskError(f"{self.name}: no task {params['errand']!r}")
        dlg = phone.dialog
        if phone.foreground == KEY and dlg is not None and dlg.name == "choice" \
                and dlg.data.get("on_ok") == "move_task" and dlg.data.get("args", {}).get("task_id") == t["_id"]:
            return click_in(obs, "dialog", text=params["dest"]) or BACK
        if t["list"] == params["dest"]:
            return COMPLETE  # moved, but changed in some other way too: nothing to repair from here
        return select_task(phone, obs, t) or click(obs, desc="Move to list") or BACK


@register_task
class PriorityByDueDate(TodoTemplate):
    name = "todo_priority_by_due_date"
    complexity = 3
    optimal_steps = 7
    goal_template = ("In Tasks, check when \"{title}\" is due: if it's due on or before {limit_text}, set its "
                     "priority to high; otherwise set it to low.")
    goal_phrasings = (
        ("Look at the due date of my to-do \"{title}\". Due by {limit_text} (that day included)? Then make it high "
         "priority. Due later? Then low priority."),
        ("Could you set \"{title}\" in the Tasks app to high priority if it's due no later than {limit_text}, and "
         "to low priority if it's due after that?"),
        "Tasks: \"{title}\" -> high priority when due {limit_text} or earlier, else low priority.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        title, lookalike = rng.choice(PAIRS)
        if rng.random() < 0.5:
            title, lookalike = lookalike, title
        limit = rng.randint(5, 20)
        before, after = limit - rng.randint(0, 3), limit + rng.randint(1, 4)
        soon = rng.random() < 0.5
        days, other = (before, after) if soon else (after, before)  # the look-alike falls on the other side
        return {"title": title, "lookalike": lookalike, "list": rng.choice(ERRAND_LISTS), "days": days,
                "lookalike_days": other, "limit": (TODAY + timedelta(days=limit)).isoformat(),
                "limit_text": say_day(TODAY + timedelta(days=limit)), "start": rng.choice(("medium", "none"))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM todo_tasks WHERE title IN (?, ?)", (params["title"], params["lookalike"]))
        for key, days in (("lookalike", params["lookalike_days"]), ("title", params["days"])):
            add_task(phone, params["list"], params[key], due=TODAY + timedelta(days=days),
                     priority=prio(params["start"]))

    def want(self, params: dict[str, Any]) -> str:
        due = TODAY + timedelta(days=params["days"])
        return "high" if due <= date.fromisoformat(params["limit"]) else "low"

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if only_change(phone, self, params, params["title"], priority=prio(self.want(params))) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        t = find_task(phone, params["title"])
        if t is None:
            raise TaskError(f"{self.name}: no task {params['title']!r}")
        return open_editor(phone, obs, t) or fill_editor(phone, obs, priority=prio(self.want(params)))


TAGS = ("#hardware-store", "#post-office", "#pharmacy", "#bank")


@register_task
class CompleteTaggedTasks(TodoTemplate):
    name = "todo_complete_tagged_tasks"
    complexity = 3
    optimal_steps = 7
    goal_template = ("I just did my {tag} run. In Tasks, mark every task whose description mentions \"{tag}\" as "
                     "done, whichever list it is in (some are checked off already); leave all other tasks as they "
                     "are.")
    goal_phrasings = (
        ("Tick off all my to-dos tagged \"{tag}\" in their description, in every list of the Tasks app; I've done "
         "the {tag} errands. A few are already done; nothing else changes."),
        ("Could you complete each task that has \"{tag}\" in its description (any list)? That's my {tag} run "
         "finished. Keep the rest as is."),
        "Tasks: every task with \"{tag}\" in the description -> done, across lists ({tag} run done), only those.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        tag, other = rng.sample(TAGS, 2)
        titles = rng.sample(NEW_TITLES, 4)
        n = rng.randint(2, 3)
        tagged = [[t, rng.choice(ERRAND_LISTS)] for t in titles[:n]]
        already = rng.choice(FILLERS)
        return {"tag": tag, "other_tag": other, "tagged": tagged, "already": [already, rng.choice(ERRAND_LISTS)],
                "untagged": [[t, rng.choice(ERRAND_LISTS)] for t in titles[n:]]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        titles = [t for t, _ in params["tagged"] + params["untagged"]] + [params["already"][0]]
        for title in titles:
            phone.execute("DELETE FROM todo_tasks WHERE title = ?", (title,))
        for i, (title, lst) in enumerate(params["tagged"]):
            add_task(phone, lst, title, notes=f"Errand {i + 1} for the {params['tag']} run",
                     due=TODAY + timedelta(days=2 + i))
        add_task(phone, params["already"][1], params["already"][0], notes=f"Also for the {params['tag']} run",
                 completed=True)  # partly done already
        for title, lst in params["untagged"]:  # another errand run: stays open
            add_task(phone, lst, title, notes=f"Errand for the {params['other_tag']} run",
                     due=TODAY + timedelta(days=3))

    def target_ids(self, phone: Phone, params: dict[str, Any]) -> set[int]:
        return {r[0] for r in baseline_rows(phone, self, params, TASK_SQL)
                if params["tag"] in r[3] and not r[6]}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if changed_only(phone, self, params, self.target_ids(phone, params), completed=1) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        ids = self.target_ids(phone, params)
        left = [t for t in tasks(phone) if t["_id"] in ids and not t["completed"]]
        if not left:  # changed in some other way: nothing this oracle can repair from here
            return COMPLETE
        # the search (titles and descriptions, every list) shows exactly the tagged tasks
        if phone.foreground != KEY:
            return open_app(phone, KEY)
        scr = phone.screen
        assert scr is not None
        if phone.dialog is not None or phone.menu_open:
            return BACK
        if scr.name == "search":
            if norm(scr.fields.get("query", "")) != norm(params["tag"]):
                return type_in(obs, params["tag"], resource_id="search_input") or BACK
            return click_or_scroll(phone, obs, desc=f"Mark {left[0]['title']} as done")
        if scr.name == "main" and not scr.state.get("drawer") and scr.state.get("selected") is None:
            return click(obs, desc="Search") or BACK
        return BACK


@register_task
class QueryIsTaskDone(QueryTemplate):
    name = "todo_query_is_task_done"
    complexity = 2
    optimal_steps = 5
    goal_template = "Have I already checked off \"{title}\" in Tasks? Answer yes or no."
    goal_phrasings = (
        "Is the to-do \"{title}\" marked as done in the Tasks app? Yes or no.",
        "Could you check whether I completed \"{title}\" already? Just answer yes or no.",
        "Tasks: \"{title}\" done? yes/no",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        title, lookalike = rng.choice(PAIRS)
        if rng.random() < 0.5:
            title, lookalike = lookalike, title
        return {"title": title, "lookalike": lookalike, "done": rng.random() < 0.5,
                "list": rng.choice(ERRAND_LISTS), "lookalike_list": rng.choice(ERRAND_LISTS)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM todo_tasks WHERE title IN (?, ?)", (params["title"], params["lookalike"]))
        # the look-alike is in the other state
        add_task(phone, params["lookalike_list"], params["lookalike"], completed=not params["done"])
        add_task(phone, params["list"], params["title"], completed=params["done"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want, wrong = ("yes", "no") if params["done"] else ("no", "yes")
        return 1.0 if answer_matches(answer, want) and not answer_matches(answer, wrong) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        said = "yes" if params["done"] else "no"
        if phone.foreground != KEY:
            return open_app(phone, KEY)
        scr = phone.screen
        assert scr is not None
        if phone.dialog is not None or phone.menu_open:
            return BACK
        if scr.name == "search":  # the search lists completed tasks too, ticked
            if norm(scr.fields.get("query", "")) != norm(params["title"]):
                return type_in(obs, params["title"], resource_id="search_input") or BACK
            return answer(said)
        if scr.name == "main" and not scr.state.get("drawer") and scr.state.get("selected") is None:
            return click(obs, desc="Search") or BACK
        return BACK


# (tasks in the list, completed ones): percentages that are whole numbers, never 50
PERCENT_SPLITS = ((4, 1), (4, 3), (5, 1), (5, 2), (5, 3), (5, 4), (10, 3), (10, 7), (8, 2), (8, 6))


@register_task
class QueryPercentDone(QueryTemplate):
    name = "todo_query_percent_done"
    complexity = 3
    optimal_steps = 7
    goal_template = ("What percentage of all the tasks in my {list} list in Tasks are completed (completed ones "
                     "included in the total)? Answer with a whole-number percentage.")
    goal_phrasings = (
        ("In the Tasks app, how much of my {list} list is done? Give the completed tasks as a percentage of all "
         "its tasks, done ones included."),
        ("Could you work out what share of the tasks in {list} I've completed, as a percentage of every task "
         "in that list?"),
        "Tasks, {list}: percent of its tasks (open + completed) that are completed?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        total, done = rng.choice(PERCENT_SPLITS)
        titles = rng.sample(EXTRA_TITLES, total)
        return {"list": rng.choice(ERRAND_LISTS), "done": titles[:done], "open": titles[done:]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        lid = list_id(phone, params["list"])
        phone.execute("DELETE FROM todo_tasks WHERE list_id = ?", (lid,))
        for title in params["done"] + params["open"]:
            phone.execute("DELETE FROM todo_tasks WHERE title = ?", (title,))
        for i, title in enumerate(params["open"]):
            add_task(phone, params["list"], title, due=TODAY + timedelta(days=2 + i))
        for title in params["done"]:
            add_task(phone, params["list"], title, completed=True)

    def expected(self, params: dict[str, Any]) -> int:
        return round(100 * len(params["done"]) / (len(params["done"]) + len(params["open"])))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = self.expected(params)
        ok = answer_matches(answer, str(want)) and not answer_matches(answer, str(100 - want))  # the open share
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if not show_completed(phone):
            return via_menu(phone, obs, params["list"], "Show completed")
        return to_list(phone, obs, params["list"]) or answer(f"{self.expected(params)}%")
