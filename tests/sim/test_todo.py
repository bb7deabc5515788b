"""Tasks (Tasks.org) app and tasks: screens and handlers, checker success + near miss per template,
oracles from mid-task starts."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta

import pytest
from simhelpers import act, fresh, run_oracle

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim import SimEnv
from droidverify.env.sim.apps.todo import (
    LISTS,
    PRIORITY_NONE,
    add_list,
    add_task,
    due_label,
    due_ms,
    list_id,
    set_pref,
    show_completed,
    sort_order,
    tasks,
)
from droidverify.env.sim.phone import Phone
from droidverify.tasks import registry
from droidverify.tasks.oracle_utils import click, find, find_all
from droidverify.tasks.todo import FILLERS, TODAY, prio

TEMPLATES = [t for t in registry.all_templates() if t.name.startswith("todo_")]
NAMES = [t.name for t in TEMPLATES]


def test_enough_templates_with_both_kinds_and_phrasings() -> None:
    assert 24 <= len(NAMES) <= 32
    assert {t.kind for t in TEMPLATES} == {"operation", "query"}
    assert all(2 <= len(t.goal_phrasings) <= 3 for t in TEMPLATES)


# ---- screens and handlers -------------------------------------------------------------------------
def _env(seed: int = 0) -> SimEnv:
    env = SimEnv(None, seed)
    env.reset()
    env.phone.open_app("todo")
    return env


def _c(obs: Observation, **kw) -> Action:
    a = click(obs, **kw)
    assert a is not None, kw
    return a


def _titles(obs: Observation) -> list[str]:
    return [obs.elements[i].text.split(" | ")[0] for i in find_all(obs, resource_id="rowBody")]


def _switch(env: SimEnv, name: str) -> Observation:
    obs = env.step(_c(env.observe(), desc="Open navigation drawer"))
    return env.step(_c(obs, resource_id="drawer_list_item", text=name))


def test_seed_data_is_deterministic_and_per_seed() -> None:
    def rows(seed: int) -> list[tuple]:
        return [(t["list"], t["title"], t["due"], t["priority"], t["completed"]) for t in tasks(Phone(seed))]

    assert rows(3) == rows(3)
    assert rows(3) != rows(4)
    phone = Phone(5)
    assert [n for _, n in phone.query("SELECT _id, name FROM todo_lists ORDER BY _id")] == list(LISTS)
    assert {t["list"] for t in tasks(phone)} == set(LISTS)
    unseeded = Phone(5, seed_data=False)
    assert list_id(unseeded, "Work") is not None and not tasks(unseeded)  # the lists exist regardless


def test_main_screen_lists_open_tasks_of_inbox() -> None:
    env = _env()
    obs = env.observe()
    assert obs.package == "org.tasks" and env.phone.location == "todo/main"
    assert find(obs, resource_id="toolbar_title", text="Inbox") is not None
    open_inbox = [t["title"] for t in tasks(env.phone, "l.name = 'Inbox' AND t.completed = 0")]
    assert sorted(_titles(obs)) == sorted(open_inbox)
    assert find(obs, desc="Create new task") is not None


def test_checkbox_completes_and_show_completed_reveals_it() -> None:
    env = _env()
    obs = env.observe()
    title = _titles(obs)[0]
    obs = env.step(_c(obs, desc=f"Mark {title} as done"))
    assert tasks(env.phone, "t.title = ?", (title,))[0]["completed"] == 1
    assert title not in _titles(obs)  # completed tasks are hidden by default
    assert env.phone.toast == "Task completed"
    obs = env.step(_c(obs, desc="More options"))
    obs = env.step(_c(obs, text="Show completed"))
    assert show_completed(env.phone)
    assert find(obs, resource_id="completed_header") is not None
    obs = env.step(_c(obs, desc=f"Mark {title} as not done"))
    assert tasks(env.phone, "t.title = ?", (title,))[0]["completed"] == 0


def test_drawer_switches_lists_shows_counts_and_back_closes_it() -> None:
    env = _env()
    obs = env.step(_c(env.observe(), desc="Open navigation drawer"))
    assert find(obs, desc="Create new task") is None  # the list behind the drawer is covered
    n_work = len(tasks(env.phone, "l.name = 'Work' AND t.completed = 0"))
    assert find(obs, resource_id="drawer_list_item", text=f"Work | {n_work}") is not None
    env.step(Action(action_type="navigate_back"))
    assert env.phone.location == "todo/main" and not env.phone.screen.state.get("drawer")
    obs = _switch(env, "Work")
    assert find(obs, resource_id="toolbar_title", text="Work") is not None
    assert len(_titles(obs)) == n_work


def test_new_list_from_drawer() -> None:
    env = _env()
    obs = env.step(_c(env.observe(), desc="Open navigation drawer"))
    obs = env.step(_c(obs, resource_id="new_list"))
    obs = env.step(_c(obs, text="Create"))
    assert env.phone.toast == "List name can't be empty"
    act(env, "input_text", index=find(env.observe(), resource_id="edit"), text="work ")
    env.step(_c(env.observe(), text="Create"))
    assert env.phone.toast == "A list with that name already exists"
    obs = env.step(_c(env.observe(), resource_id="new_list"))
    act(env, "input_text", index=find(obs, resource_id="edit"), text="Travel")
    obs = env.step(_c(env.observe(), text="Create"))
    assert list_id(env.phone, "Travel") is not None
    assert find(obs, resource_id="toolbar_title", text="Travel") is not None
    assert find(obs, resource_id="empty_view") is not None


def test_fab_editor_with_due_date_priority_and_list() -> None:
    env = _env()
    obs = env.step(_c(env.observe(), desc="Create new task"))
    assert env.phone.location == "todo/edit"
    obs = env.step(_c(obs, desc="Save"))
    assert env.phone.toast == "Task name can't be empty" and env.phone.location == "todo/edit"
    act(env, "input_text", index=find(obs, resource_id="title", editable=True), text="  Buy stamps ")
    act(env, "input_text", index=find(env.observe(), resource_id="notes"), text="Ten of them")
    obs = env.step(_c(env.observe(), resource_id="due_date_row"))
    obs = env.step(_c(obs, desc="Next month"))
    act(env, "input_text", index=find(obs, resource_id="day"), text="3")
    obs = env.step(_c(env.observe(), text="OK"))
    assert find(obs, resource_id="due_date", text="Sun, Nov 3, 2024") is not None
    obs = env.step(_c(obs, resource_id="priority_high"))
    obs = env.step(_c(obs, resource_id="list_row"))
    obs = env.step(_c(obs, text="Personal"))
    assert find(obs, resource_id="list_name", text="Personal") is not None
    env.step(_c(obs, desc="Save"))
    assert env.phone.location == "todo/main"
    t = tasks(env.phone, "t.title = 'Buy stamps'")
    assert len(t) == 1 and t[0]["list"] == "Personal" and t[0]["notes"] == "Ten of them"
    assert t[0]["due_date"] == date(2024, 11, 3) and t[0]["priority"] == 0 and t[0]["completed"] == 0


def test_editing_clearing_due_and_back_discards() -> None:
    env = _env()
    add_task(env.phone, "Inbox", "Zebra task", due=TODAY, priority=2)
    obs = env.observe()
    obs = env.step(_c(obs, resource_id="rowBody", text="Zebra task"))
    assert find(obs, resource_id="due_date", text="Tue, Oct 15, 2024") is not None
    act(env, "input_text", index=find(obs, resource_id="title", editable=True), text="Changed")
    env.step(Action(action_type="navigate_back"))  # keyboard
    env.step(Action(action_type="navigate_back"))  # leaves without saving
    assert env.phone.location == "todo/main" and tasks(env.phone, "t.title = 'Zebra task'")
    obs = env.step(_c(env.observe(), resource_id="rowBody", text="Zebra task"))
    obs = env.step(_c(obs, desc="Clear due date"))
    assert find(obs, resource_id="due_date", text="No due date") is not None
    obs = env.step(_c(obs, desc="No priority"))
    env.step(_c(obs, desc="Save"))
    t = tasks(env.phone, "t.title = 'Zebra task'")[0]
    assert t["due"] == 0 and t["priority"] == PRIORITY_NONE


def test_long_press_selection_delete_and_move() -> None:
    env = _env()
    a = add_task(env.phone, "Inbox", "Alpha errand", due=TODAY)
    add_task(env.phone, "Inbox", "Beta errand", due=TODAY)
    obs = env.observe()
    i = find(obs, resource_id="rowBody", text="Alpha errand")
    obs = env.step(Action(action_type="long_press", index=i))
    assert env.phone.screen.state["selected"] == a
    assert find(obs, text="1 selected") is not None and find(obs, desc="Create new task") is None
    obs = env.step(_c(obs, resource_id="rowBody", text="Beta errand"))  # a tap moves the selection
    assert env.phone.screen.state["selected"] != a
    obs = env.step(_c(obs, desc="Move to list"))
    env.step(_c(obs, text="Groceries"))
    assert tasks(env.phone, "t.title = 'Beta errand'")[0]["list"] == "Groceries"
    assert env.phone.screen.state.get("selected") is None
    obs = env.observe()
    obs = env.step(Action(action_type="long_press", index=find(obs, resource_id="rowBody", text="Alpha errand")))
    obs = env.step(_c(obs, desc="Delete"))
    assert env.phone.dialog is not None and env.phone.dialog.name == "confirm"
    obs = env.step(_c(obs, text="Cancel"))
    assert tasks(env.phone, "t.title = 'Alpha errand'")
    obs = env.step(_c(obs, desc="Delete"))
    env.step(_c(env.observe(), text="Delete", resource_id="android:id/button1"))
    assert not tasks(env.phone, "t.title = 'Alpha errand'") and env.phone.toast == "Task deleted"
    env.step(Action(action_type="long_press", index=find(env.observe(), resource_id="rowBody")))
    env.step(Action(action_type="navigate_back"))  # back leaves selection mode, not the app
    assert env.phone.location == "todo/main" and env.phone.screen.state.get("selected") is None


def test_delete_from_editor() -> None:
    env = _env()
    add_task(env.phone, "Inbox", "Gamma errand", due=TODAY)
    obs = env.step(_c(env.observe(), resource_id="rowBody", text="Gamma errand"))
    obs = env.step(_c(obs, desc="Delete task"))
    env.step(_c(obs, text="Delete", resource_id="android:id/button1"))
    assert env.phone.location == "todo/main" and not tasks(env.phone, "t.title = 'Gamma errand'")


def test_search_finds_tasks_of_every_list_by_title_and_notes() -> None:
    env = _env()
    add_task(env.phone, "Work", "Quarterly numbers", notes="ask finance")
    add_task(env.phone, "Groceries", "Finance magazine", completed=True)
    obs = env.step(_c(env.observe(), desc="Search"))
    assert env.phone.location == "todo/search" and find(obs, resource_id="empty_view") is not None
    act(env, "input_text", index=find(obs, resource_id="search_input"), text="FINANCE")
    obs = env.observe()
    assert sorted(_titles(obs)) == ["Finance magazine", "Quarterly numbers"]
    assert find(obs, resource_id="list_name", text="Groceries") is not None or \
        find(obs, text_contains="Groceries") is not None
    obs = env.step(_c(obs, resource_id="rowBody", text="Quarterly numbers"))
    assert env.phone.location == "todo/edit"
    env.step(Action(action_type="navigate_back"))  # back to the results
    assert env.phone.location == "todo/search"
    act(env, "input_text", index=find(env.observe(), resource_id="search_input"), text="no such thing")
    assert find(env.observe(), text="No matching tasks") is not None


def test_sort_options_reorder_the_list() -> None:
    env = _env()
    obs = _switch(env, "Groceries")
    obs = env.step(_c(obs, desc="More options"))
    obs = env.step(_c(obs, text="Sort"))
    env.step(_c(obs, text="Alphabetical"))
    assert sort_order(env.phone) == "title"
    titles = _titles(env.observe())
    assert titles == sorted(titles, key=str.lower)
    obs = env.step(_c(env.observe(), desc="More options"))
    obs = env.step(_c(obs, text="Sort"))
    env.step(_c(obs, text="By priority"))
    prios = {t["title"]: t["priority"] for t in tasks(env.phone)}
    got = [prios[t] for t in _titles(env.observe())]
    assert got == sorted(got)


def test_long_list_scrolls_and_rows_below_are_absent() -> None:
    env = _env()
    for i in range(14):
        add_task(env.phone, "Groceries", f"Item number {i:02d}", due=TODAY + timedelta(days=30 + i))
    obs = _switch(env, "Groceries")
    assert find(obs, text="Item number 13") is None  # sorted last, below the fold
    for _ in range(5):
        obs = env.step(Action(action_type="scroll", direction="down"))
    assert find(obs, resource_id="rowBody", text="Item number 13") is not None


def test_delete_completed_only_touches_the_current_list() -> None:
    env = _env()
    add_task(env.phone, "Work", "Done at work", completed=True)
    add_task(env.phone, "Personal", "Done at home", completed=True)
    obs = _switch(env, "Work")
    obs = env.step(_c(obs, desc="More options"))
    obs = env.step(_c(obs, text="Delete completed"))
    env.step(_c(obs, text="Delete", resource_id="android:id/button1"))
    assert not tasks(env.phone, "l.name = 'Work' AND t.completed = 1")
    assert tasks(env.phone, "t.title = 'Done at home'")
    env.phone.execute("DELETE FROM todo_tasks WHERE completed = 1")
    obs = env.step(_c(env.observe(), desc="More options"))
    env.step(_c(obs, text="Delete completed"))
    assert env.phone.toast == "No completed tasks" and env.phone.dialog is None


def test_due_labels() -> None:
    assert due_label(TODAY, TODAY) == "Today"
    assert due_label(TODAY + timedelta(days=1), TODAY) == "Tomorrow"
    assert due_label(TODAY - timedelta(days=1), TODAY) == "Yesterday"
    assert due_label(date(2024, 10, 18), TODAY) == "Fri, Oct 18"
    assert due_label(date(2025, 1, 2), TODAY) == "Thu, Jan 2, 2025"


# ---- checker success + near miss per template ------------------------------------------------------
def _id(p: Phone, title: str) -> int:
    return tasks(p, "t.title = ?", (title,))[0]["_id"]


def _set(title_key: str, **cols: Callable[[Phone, dict], object]):
    def f(p: Phone, pr: dict) -> None:
        tid = _id(p, pr[title_key])
        for col, value in cols.items():
            p.execute(f"UPDATE todo_tasks SET {col}=? WHERE _id=?", (value(p, pr), tid))
    return f


def _both(*fs: Callable[[Phone, dict], None]) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        for g in fs:
            g(p, pr)
    return f


def _add(list_key: str = "list", *, due_shift: int | None = 0, prio_key: str | None = "priority",
         notes: bool = False, to: str | None = None) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        due = date.fromisoformat(pr["due"]) + timedelta(days=due_shift) if "due" in pr and due_shift is not None \
            else None
        add_task(p, to or pr[list_key], pr["title"], due=due,
                 priority=prio(pr[prio_key]) if prio_key and prio_key in pr else PRIORITY_NONE,
                 notes=pr["notes"] if notes else "")
    return f


def _delete(title_key: str) -> Callable[[Phone, dict], None]:
    return lambda p, pr: p.execute("DELETE FROM todo_tasks WHERE title=?", (pr[title_key],))


def _other_list(pr: dict) -> str:
    return next(n for n in LISTS if n not in (pr["list"], pr.get("dest")))


def _new_list_with_task(into_new: bool) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        add_list(p, pr["list"])
        add_task(p, pr["list"] if into_new else "Inbox", pr["title"])
    return f


def _clear(only_list: bool) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        if only_list:
            p.execute("DELETE FROM todo_tasks WHERE completed=1 AND list_id=?", (list_id(p, pr["list"]),))
        else:
            p.execute("DELETE FROM todo_tasks WHERE completed=1")
    return f


# name -> (make it succeed, a near miss that must fail)
OPS: dict[str, tuple[Callable[[Phone, dict], None], Callable[[Phone, dict], None]]] = {
    "todo_add_task_due_priority": (_add(), _add(due_shift=1)),  # due a day late
    "todo_add_task_with_notes": (_add(notes=True), _add(notes=False)),  # description missing
    "todo_complete_task": (_set("title", completed=lambda p, pr: 1),
                           _set("decoy", completed=lambda p, pr: 1)),  # the look-alike checked off
    "todo_reopen_task": (_set("title", completed=lambda p, pr: 0),
                         _both(_set("title", completed=lambda p, pr: 0), _set("decoy", completed=lambda p, pr: 0))),
    "todo_delete_task": (_delete("title"), _delete("decoy")),
    "todo_rename_task": (_set("title", title=lambda p, pr: pr["new_title"]),
                         _set("decoy", title=lambda p, pr: pr["new_title"])),
    "todo_move_task": (_set("title", list_id=lambda p, pr: list_id(p, pr["dest"])),
                       _set("title", list_id=lambda p, pr: list_id(p, _other_list(pr)))),
    "todo_change_priority": (_set("title", priority=lambda p, pr: prio(pr["new_priority"])),
                             _both(_set("title", priority=lambda p, pr: prio(pr["new_priority"])),
                                   _set("decoy", priority=lambda p, pr: prio(pr["new_priority"])))),
    "todo_set_due_date": (_set("title", due=lambda p, pr: due_ms(date.fromisoformat(pr["new_due"]))),
                          _set("title", due=lambda p, pr: due_ms(date.fromisoformat(pr["new_due"]) + timedelta(1)))),
    "todo_clear_completed": (_clear(only_list=True), _clear(only_list=False)),
    "todo_create_list_with_task": (_new_list_with_task(True), _new_list_with_task(False)),
}


def _wrong_count(task, env: SimEnv) -> str:  # completed tasks counted too
    return str(len(tasks(env.phone, "l.name = ?", (task.params["list"],))))


# name -> (right answer, near-miss answer)
QUERIES: dict[str, tuple[Callable, Callable]] = {
    "todo_query_open_count": (lambda task, env: str(task.template.expected(env.phone, task.params)), _wrong_count),
    "todo_query_due_on": (lambda task, env: task.params["title"], lambda task, env: task.params["decoy"]),
    "todo_query_high_priority": (lambda task, env: f"It's \"{task.params['title']}\".",
                                 lambda task, env: task.params["decoy"]),
}


def test_every_template_has_a_near_miss_case() -> None:
    assert set(OPS) | set(QUERIES) == set(NAMES)


@pytest.mark.parametrize("name", sorted(OPS))
def test_operation_checker_success_and_near_miss(name: str) -> None:
    good, bad = OPS[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        good(env.phone, task.params)
        assert task.is_successful(env.phone, None) == 1.0, (name, seed)
        env2 = fresh(task, seed)
        bad(env2.phone, task.params)
        assert task.is_successful(env2.phone, None) == 0.0, (name, seed)


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_query_checker_success_and_near_miss(name: str) -> None:
    good, bad = QUERIES[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        assert task.is_successful(env.phone, good(task, env)) == 1.0, (name, seed)
        assert task.is_successful(env.phone, bad(task, env)) == 0.0, (name, seed)
        assert task.is_successful(env.phone, None) == 0.0


def test_created_twice_or_collateral_edit_fails() -> None:
    task = registry.get_template("todo_add_task_due_priority").instantiate(3)
    env = fresh(task, 3)
    _add()(env.phone, task.params)
    _add()(env.phone, task.params)
    assert task.is_successful(env.phone) == 0.0  # a duplicate
    env = fresh(task, 3)
    _add()(env.phone, task.params)
    env.phone.execute("UPDATE todo_tasks SET completed = 1 - completed WHERE _id = 1")
    assert task.is_successful(env.phone) == 0.0  # an unrelated task changed
    task = registry.get_template("todo_rename_task").instantiate(3)
    env = fresh(task, 3)
    _set("title", title=lambda p, pr: pr["new_title"], priority=lambda p, pr: 0 if pr["priority"] != "high" else 1)(
        env.phone, task.params)
    assert task.is_successful(env.phone) == 0.0  # renamed, but the priority changed too


def test_query_open_count_ignores_completed_planted_tasks() -> None:
    task = registry.get_template("todo_query_open_count").instantiate(0)
    env = fresh(task, 0)
    done = tasks(env.phone, "l.name = ? AND t.completed = 1", (task.params["list"],))
    assert {t["title"] for t in done} >= set(task.params["done"])


def test_query_high_priority_plants_a_completed_high_decoy() -> None:
    task = registry.get_template("todo_query_high_priority").instantiate(1)
    env = fresh(task, 1)
    assert task.is_successful(env.phone, FILLERS[0]) == 0.0
    high = tasks(env.phone, "l.name = ? AND t.priority = 0 AND t.completed = 0", (task.params["list"],))
    assert [t["title"] for t in high] == [task.params["title"]]


# ---- oracles from mid-task starts ------------------------------------------------------------------
def _detour_search(env: SimEnv) -> None:
    env.phone.open_app("todo")
    act(env, "click", index=find(env.observe(), desc="Search"))
    act(env, "input_text", index=find(env.observe(), resource_id="search_input"), text="e")


def _detour_new_editor(env: SimEnv) -> None:
    env.phone.open_app("todo")
    act(env, "click", index=find(env.observe(), desc="Create new task"))
    act(env, "input_text", index=find(env.observe(), resource_id="title", editable=True), text="Scratch")


def _detour_drawer(env: SimEnv) -> None:
    env.phone.open_app("todo")
    act(env, "click", index=find(env.observe(), desc="Open navigation drawer"))


def _detour_selection_in_groceries(env: SimEnv) -> None:
    env.phone.open_app("todo")
    _switch(env, "Groceries")
    act(env, "long_press", index=find(env.observe(), resource_id="rowBody"))


def _detour_menu(env: SimEnv) -> None:
    env.phone.open_app("todo")
    _switch(env, "Personal")
    act(env, "click", index=find(env.observe(), desc="More options"))


def _detour_other_editor_date_picker(env: SimEnv) -> None:
    env.phone.open_app("todo")
    _switch(env, "Work")
    act(env, "click", index=find(env.observe(), resource_id="rowBody"))
    act(env, "click", index=find(env.observe(), resource_id="due_date_row"))


DETOURS = [_detour_search, _detour_new_editor, _detour_drawer, _detour_selection_in_groceries, _detour_menu,
           _detour_other_editor_date_picker]


@pytest.mark.parametrize("name", NAMES)
def test_oracle_finishes_from_mid_task_screens(name: str) -> None:
    tmpl = registry.get_template(name)
    for k, detour in enumerate(DETOURS):
        seed = 10 + k
        task = tmpl.instantiate(seed)
        env = SimEnv(task, seed)
        obs = env.reset()
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


def test_oracle_solves_unseen_seeds() -> None:
    for tmpl in TEMPLATES:
        for seed in (1000, 1001):
            env, steps = run_oracle(tmpl.instantiate(seed), seed)
            assert env.is_successful() == 1.0 and steps <= tmpl.max_steps, (tmpl.name, seed)


# ---- overdue sweep, relative reschedule, same-title twins, bulk moves, questions: success + near miss ----
def _complete_ids(ids: Callable[[Phone, dict], set[int]]) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        for tid in ids(p, pr):
            p.execute("UPDATE todo_tasks SET completed=1 WHERE _id=?", (tid,))
    return f


def _overdue(p: Phone, pr: dict) -> set[int]:
    return registry.get_template("todo_complete_overdue_tasks").overdue_ids(p, pr)


def _twin(notes_key: str) -> Callable[[Phone, dict], set[int]]:
    return lambda p, pr: {t["_id"] for t in tasks(p, "t.title = ? AND t.notes = ?",
                                                  (pr["title"], pr[notes_key]))}


def _move_ids(ids: Callable[[Phone, dict], set[int]]) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        for tid in ids(p, pr):
            p.execute("UPDATE todo_tasks SET list_id=? WHERE _id=?", (list_id(p, pr["dest"]), tid))
    return f


def _high(p: Phone, pr: dict) -> set[int]:
    return registry.get_template("todo_move_high_priority_tasks").high_ids(p, pr)


def _new_due(pr: dict) -> date:
    return date.fromisoformat(pr["due"]) + timedelta(days=pr["shift"])


ROUND3_OPS: dict[str, tuple[Callable[[Phone, dict], None], Callable[[Phone, dict], None]]] = {
    "todo_complete_overdue_tasks": (
        _complete_ids(_overdue),
        _complete_ids(lambda p, pr: _overdue(p, pr) | {_id(p, pr["fine"][0][0])})),  # a task not yet due too
    "todo_postpone_task": (
        _set("title", due=lambda p, pr: due_ms(_new_due(pr))),
        _set("title", due=lambda p, pr: due_ms(TODAY + timedelta(days=pr["shift"])))),  # counted from today
    "todo_complete_twin_by_description": (_complete_ids(_twin("notes")), _complete_ids(_twin("decoy_notes"))),
    "todo_move_high_priority_tasks": (
        _move_ids(_high),
        _move_ids(lambda p, pr: _high(p, pr) | {_id(p, pr["done_high"])})),  # the completed one moved too
}

ROUND3_QUERIES: dict[str, tuple[Callable, Callable]] = {
    "todo_query_busiest_list": (lambda task, env: f"The {task.params['list']} list",
                                lambda task, env: task.params["decoy"]),  # most tasks counting completed ones
    "todo_query_description_code": (lambda task, env: f"Reference number {task.params['code']}",
                                    lambda task, env: task.params["decoy_code"]),  # the look-alike's number
}
OPS.update(ROUND3_OPS)  # test_every_template_has_a_near_miss_case covers these too
QUERIES.update(ROUND3_QUERIES)


@pytest.mark.parametrize("name", sorted(ROUND3_OPS))
def test_round3_operation_checker_success_and_near_miss(name: str) -> None:
    test_operation_checker_success_and_near_miss(name)


@pytest.mark.parametrize("name", sorted(ROUND3_QUERIES))
def test_round3_query_checker_success_and_near_miss(name: str) -> None:
    test_query_checker_success_and_near_miss(name)


def test_round3_more_near_misses() -> None:
    task = registry.get_template("todo_complete_overdue_tasks").instantiate(4)
    env = fresh(task, 4)
    _complete_ids(lambda p, pr: {min(_overdue(p, pr))})(env.phone, task.params)  # only one of them
    assert task.is_successful(env.phone) == 0.0
    task = registry.get_template("todo_postpone_task").instantiate(4)
    env = fresh(task, 4)
    both = _both(_set("title", due=lambda p, pr: due_ms(_new_due(pr))),
                 _set("decoy", due=lambda p, pr: due_ms(_new_due(pr))))
    both(env.phone, task.params)  # the look-alike postponed as well
    assert task.is_successful(env.phone) == 0.0
    task = registry.get_template("todo_move_high_priority_tasks").instantiate(4)
    env = fresh(task, 4)
    _move_ids(lambda p, pr: set(sorted(_high(p, pr))[:1]))(env.phone, task.params)  # only the first one
    assert task.is_successful(env.phone) == 0.0


def test_busiest_list_set_up_has_a_unique_winner_and_a_completed_heavy_decoy() -> None:
    tmpl = registry.get_template("todo_query_busiest_list")
    for seed in range(6):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        open_counts = {n: len(tasks(env.phone, "l.name = ? AND t.completed = 0", (n,))) for n in LISTS}
        all_counts = {n: len(tasks(env.phone, "l.name = ?", (n,))) for n in LISTS}
        best = task.params["list"]
        assert all(open_counts[best] > c for n, c in open_counts.items() if n != best), (seed, open_counts)
        assert all_counts[task.params["decoy"]] > all_counts[best], (seed, all_counts)


# ---- several tasks at once, copying a task, view settings, a new list for old tasks, due questions ----
def _add_titles(titles: Callable[[dict], list[str]], to: Callable[[dict], str] = lambda pr: pr["list"]):
    def f(p: Phone, pr: dict) -> None:
        for title in titles(pr):
            add_task(p, to(pr), title)
    return f


def _copy(dest_key: str, *, notes: bool = True) -> Callable[[Phone, dict], None]:
    return lambda p, pr: add_task(p, pr[dest_key], pr["title"], notes=pr["notes"] if notes else "",
                                  due=date.fromisoformat(pr["due"]), priority=prio(pr["priority"]))


def _prefs(sort: bool, shown: bool) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        if sort:
            set_pref(p, "sort", pr["sort"])
        if shown:
            set_pref(p, "show_completed", "1")
    return f


def _into_new_list(keys: tuple[str, ...]) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        lid = add_list(p, pr["new_list"])
        for key in keys:
            p.execute("UPDATE todo_tasks SET list_id=? WHERE title=?", (lid, pr[key]))
    return f


ROUND4_OPS: dict[str, tuple[Callable[[Phone, dict], None], Callable[[Phone, dict], None]]] = {
    "todo_add_several_tasks": (
        _add_titles(lambda pr: pr["titles"]),
        _both(_add_titles(lambda pr: pr["titles"][:2]),
              _add_titles(lambda pr: pr["titles"][2:], to=lambda pr: "Inbox"))),  # the third in the wrong list
    "todo_copy_task_to_list": (
        _copy("dest"),
        _set("title", list_id=lambda p, pr: list_id(p, pr["dest"]))),  # moved, not copied
    "todo_sort_and_show_completed": (_prefs(True, True), _prefs(True, False)),  # completed still hidden
    "todo_new_list_for_tasks": (
        _into_new_list(("first", "second")),
        _into_new_list(("first", "second", "other"))),  # the task that should stay moved too
}

ROUND4_QUERIES: dict[str, tuple[Callable, Callable]] = {
    "todo_query_earliest_due": (lambda task, env: f"{task.params['title']} is due first",
                                lambda task, env: task.params["elsewhere"]),  # earlier, but in another list
    "todo_query_due_by": (lambda task, env: ", ".join(t for t, _ in reversed(task.params["due"])),
                          lambda task, env: ", ".join([t for t, _ in task.params["due"]] + [task.params["late"]])),
}
OPS.update(ROUND4_OPS)
QUERIES.update(ROUND4_QUERIES)


@pytest.mark.parametrize("name", sorted(ROUND4_OPS))
def test_round4_operation_checker_success_and_near_miss(name: str) -> None:
    test_operation_checker_success_and_near_miss(name)
    good, _ = ROUND4_OPS[name]
    for seed in (1000, 1001):  # unseen draws too, and the start is never the goal
        task = registry.get_template(name).instantiate(seed)
        env = fresh(task, seed)
        assert task.is_successful(env.phone) == 0.0, (name, seed)
        good(env.phone, task.params)
        assert task.is_successful(env.phone) == 1.0, (name, seed)


@pytest.mark.parametrize("name", sorted(ROUND4_QUERIES))
def test_round4_query_checker_success_and_near_miss(name: str) -> None:
    test_query_checker_success_and_near_miss(name)


def _round4(name: str, seed: int = 5) -> tuple:
    task = registry.get_template(name).instantiate(seed)
    return task, fresh(task, seed)


def test_round4_more_near_misses() -> None:
    task, env = _round4("todo_add_several_tasks")
    _add_titles(lambda pr: pr["titles"] + pr["titles"][:1])(env.phone, task.params)  # one of them twice
    assert task.is_successful(env.phone) == 0.0
    task, env = _round4("todo_add_several_tasks")
    _add_titles(lambda pr: [f"{pr['titles'][0]}, {pr['titles'][1]} and {pr['titles'][2]}"])(env.phone, task.params)
    assert task.is_successful(env.phone) == 0.0  # all three in one task
    task, env = _round4("todo_copy_task_to_list")
    _copy("dest", notes=False)(env.phone, task.params)  # the description left out
    assert task.is_successful(env.phone) == 0.0
    task, env = _round4("todo_copy_task_to_list")
    _both(_copy("dest"), _set("title", priority=lambda p, pr: 0 if prio(pr["priority"]) else 1))(
        env.phone, task.params)  # the original changed on the way
    assert task.is_successful(env.phone) == 0.0
    task, env = _round4("todo_sort_and_show_completed")
    _both(_prefs(True, True), _set_first_open_done)(env.phone, task.params)  # a task completed on the way
    assert task.is_successful(env.phone) == 0.0
    task, env = _round4("todo_new_list_for_tasks")
    _into_new_list(("first",))(env.phone, task.params)  # only one of the two
    assert task.is_successful(env.phone) == 0.0
    task, env = _round4("todo_new_list_for_tasks")
    _both(_into_new_list(()), _move_ids(lambda p, pr: {_id(p, pr["first"]), _id(p, pr["second"])}))(
        env.phone, {**task.params, "dest": _other_list(task.params)})  # moved to an old list instead
    assert task.is_successful(env.phone) == 0.0
    task, env = _round4("todo_query_earliest_due")
    for wrong in (task.params["later"], task.params["done"]):  # the next one; an earlier one already done
        assert task.is_successful(env.phone, wrong) == 0.0
    task, env = _round4("todo_query_due_by")
    some = [t for t, _ in task.params["due"]]
    assert task.is_successful(env.phone, ", ".join(some[:-1])) == 0.0  # one missing
    assert task.is_successful(env.phone, ", ".join(some + [task.params["done"]])) == 0.0  # a completed one too


def _set_first_open_done(p: Phone, pr: dict) -> None:
    tid = tasks(p, "t.completed = 0")[0]["_id"]
    p.execute("UPDATE todo_tasks SET completed=1 WHERE _id=?", (tid,))


def test_round4_due_questions_have_one_right_answer() -> None:
    for seed in range(6):
        task, env = _round4("todo_query_earliest_due", seed)
        open_due = [t for t in tasks(env.phone, "l.name = ? AND t.completed = 0 AND t.due > 0",
                                     (task.params["list"],))]
        assert min(open_due, key=lambda t: t["due"])["title"] == task.params["title"], seed
        assert sum(1 for t in open_due if t["due"] == min(x["due"] for x in open_due)) == 1, seed
        task, env = _round4("todo_query_due_by", seed)
        cut = due_ms(date.fromisoformat(task.params["cut"]))
        due_by = {t["title"] for t in tasks(env.phone, "l.name = ? AND t.completed = 0 AND t.due > 0 AND t.due <= ?",
                                             (task.params["list"], cut))}
        assert due_by == {t for t, _ in task.params["due"]}, seed


# ---- round 5: days between due dates, a misfiled task, conditional priority, tagged sweeps, yes/no, a percentage ----
def _set_title(title: Callable[[dict], str], **cols: Callable[[Phone, dict], object]) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        tid = _id(p, title(pr))
        for col, value in cols.items():
            p.execute(f"UPDATE todo_tasks SET {col}=? WHERE _id=?", (value(p, pr), tid))
    return f


def _tagged(p: Phone, pr: dict) -> set[int]:
    return registry.get_template("todo_complete_tagged_tasks").target_ids(p, pr)


def _branch(pr: dict) -> str:
    return registry.get_template("todo_priority_by_due_date").want(pr)


ROUND5_OPS: dict[str, tuple[Callable[[Phone, dict], None], Callable[[Phone, dict], None]]] = {
    "todo_move_misfiled_task": (
        _set("errand", list_id=lambda p, pr: list_id(p, pr["dest"])),
        _both(_set("errand", list_id=lambda p, pr: list_id(p, pr["dest"])),  # a grocery item moved as well
              _set_title(lambda pr: pr["groceries"][0], list_id=lambda p, pr: list_id(p, pr["dest"])))),
    "todo_priority_by_due_date": (
        _set("title", priority=lambda p, pr: prio(_branch(pr))),
        _set("title", priority=lambda p, pr: prio("low" if _branch(pr) == "high" else "high"))),  # wrong branch
    "todo_complete_tagged_tasks": (
        _complete_ids(_tagged),
        _complete_ids(lambda p, pr: _tagged(p, pr) | {_id(p, pr["untagged"][0][0])})),  # another run's task too
}

ROUND5_QUERIES: dict[str, tuple[Callable, Callable]] = {
    "todo_query_days_between_due": (
        lambda task, env: f"{task.params['later_days'] - task.params['days']} days",
        lambda task, env: str(task.params["later_days"] - task.params["lookalike_days"])),  # from the look-alike
    "todo_query_is_task_done": (
        lambda task, env: "Yes, it's done" if task.params["done"] else "No, not yet",
        lambda task, env: "No" if task.params["done"] else "Yes"),  # the look-alike's state
    "todo_query_percent_done": (
        lambda task, env: f"{task.template.expected(task.params)}%",
        lambda task, env: f"{100 - task.template.expected(task.params)}%"),  # the open share
}
OPS.update(ROUND5_OPS)
QUERIES.update(ROUND5_QUERIES)


@pytest.mark.parametrize("name", sorted(ROUND5_OPS))
def test_round5_operation_checker_success_and_near_miss(name: str) -> None:
    test_operation_checker_success_and_near_miss(name)
    good, _ = ROUND5_OPS[name]
    for seed in (1000, 1001):  # unseen draws too, and the start is never the goal
        task = registry.get_template(name).instantiate(seed)
        env = fresh(task, seed)
        assert task.is_successful(env.phone) == 0.0, (name, seed)
        good(env.phone, task.params)
        assert task.is_successful(env.phone) == 1.0, (name, seed)


@pytest.mark.parametrize("name", sorted(ROUND5_QUERIES))
def test_round5_query_checker_success_and_near_miss(name: str) -> None:
    test_query_checker_success_and_near_miss(name)


def _round5(name: str, seed: int = 5) -> tuple:
    task = registry.get_template(name).instantiate(seed)
    return task, fresh(task, seed)


def test_round5_more_near_misses() -> None:
    task, env = _round5("todo_move_misfiled_task")
    _set("errand", list_id=lambda p, pr: list_id(p, _other_list(pr)))(env.phone, task.params)  # the wrong list
    assert task.is_successful(env.phone) == 0.0
    task, env = _round5("todo_move_misfiled_task")
    _set("errand", list_id=lambda p, pr: list_id(p, pr["dest"]), completed=lambda p, pr: 1)(
        env.phone, task.params)  # moved and checked off
    assert task.is_successful(env.phone) == 0.0
    task, env = _round5("todo_priority_by_due_date")
    _both(_set("title", priority=lambda p, pr: prio(_branch(pr))),
          _set("lookalike", priority=lambda p, pr: prio(_branch(pr))))(env.phone, task.params)  # the look-alike too
    assert task.is_successful(env.phone) == 0.0
    task, env = _round5("todo_complete_tagged_tasks")
    _complete_ids(lambda p, pr: set(sorted(_tagged(p, pr))[:1]))(env.phone, task.params)  # only one of them
    assert task.is_successful(env.phone) == 0.0
    task, env = _round5("todo_complete_tagged_tasks")
    _both(_complete_ids(_tagged), _set_title(lambda pr: pr["already"][0], completed=lambda p, pr: 0))(
        env.phone, task.params)  # the one already done reopened
    assert task.is_successful(env.phone) == 0.0
    task, env = _round5("todo_query_days_between_due")
    n = task.params["later_days"] - task.params["days"]
    assert task.is_successful(env.phone, str(n + 1)) == 0.0  # counted both ends
    task, env = _round5("todo_query_percent_done")
    done = len(task.params["done"])
    assert task.is_successful(env.phone, str(done)) == 0.0  # the count, not the percentage


def test_round5_set_ups_match_the_params() -> None:
    seen_branch, seen_done = set(), set()
    for seed in range(8):
        task, env = _round5("todo_query_percent_done", seed)
        rows = tasks(env.phone, "l.name = ?", (task.params["list"],))
        pct = 100 * sum(t["completed"] for t in rows) / len(rows)
        assert pct == task.template.expected(task.params) and pct != 50, seed
        task, env = _round5("todo_priority_by_due_date", seed)
        limit = date.fromisoformat(task.params["limit"])
        mine = tasks(env.phone, "t.title = ?", (task.params["title"],))[0]["due_date"]
        other = tasks(env.phone, "t.title = ?", (task.params["lookalike"],))[0]["due_date"]
        assert (mine <= limit) != (other <= limit), seed  # the look-alike is on the other side of the limit
        seen_branch.add(_branch(task.params))
        task, env = _round5("todo_query_is_task_done", seed)
        t = tasks(env.phone, "t.title = ?", (task.params["title"],))
        look = tasks(env.phone, "t.title = ?", (task.params["lookalike"],))
        assert len(t) == 1 and t[0]["completed"] == task.params["done"] and look[0]["completed"] != t[0]["completed"]
        seen_done.add(task.params["done"])
        task, env = _round5("todo_move_misfiled_task", seed)
        groceries = [t["title"] for t in tasks(env.phone, "l.name = 'Groceries'")]
        assert task.params["errand"] in groceries and len(groceries) >= 9, seed
    assert seen_branch == {"high", "low"} and seen_done == {True, False}
