"""Multi-app templates of ``tasks/multi_more.py``: checker success + near miss for each, the oracle
repairing an earlier wrong try, and goal phrasings of every multi-app template."""

from __future__ import annotations

import string
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

import pytest
from simhelpers import fresh, unread_values

from droidverify.actions.model import Action
from droidverify.env.sim import SimEnv
from droidverify.env.sim.apps.calendar import add_event
from droidverify.env.sim.apps.contacts import add_contact
from droidverify.env.sim.apps.expenses import add_expense, parse_money
from droidverify.env.sim.apps.messages import TYPE_SENT, add_sms
from droidverify.env.sim.apps.todo import add_task as add_todo
from droidverify.env.sim.apps.todo import due_ms, list_id
from droidverify.env.sim.phone import Phone
from droidverify.tasks import registry
from droidverify.tasks.calendar import TODAY, at
from droidverify.tasks.helpers import dollars, find
from droidverify.tasks.helpers.clock import insert_alarm
from droidverify.tasks.multi_more import checklist_body, listed_names
from droidverify.tasks.notes import write_note

MODULES = ("multi_more", "multi_calendar_notes", "multi_contacts_messages", "multi_expenses_files")
NEW = sorted(t.name for t in registry.all_templates() if type(t).__module__.endswith(".multi_more"))
OWNED = sorted(t.name for t in registry.all_templates() if type(t).__module__.rsplit(".", 1)[-1] in MODULES)

Fn = Callable[[Phone, dict[str, Any]], Any]


def test_enough_new_templates_over_many_app_pairs() -> None:
    assert 10 <= len(NEW) <= 24  # 12 of the first round, then round 2 (Tasks and Markor as partners)
    pairs = {frozenset(registry.get_template(n).apps) for n in NEW}
    assert len(pairs) >= 8, pairs
    assert all(len(registry.get_template(n).apps) in (2, 3) for n in NEW)


# ---- checker success + near miss ------------------------------------------------------------------
def _text(number_key: str, body: Callable[[dict], str]) -> Fn:
    return lambda p, q: add_sms(p, q[number_key], body(q), kind=TYPE_SENT)


def _alarm(h: str, m: str, label: str = "title") -> Fn:
    return lambda p, q: insert_alarm(p, q[h], q[m], label=q[label])


def _note(text: Callable[[dict], str]) -> Fn:
    return lambda p, q: write_note(p, q["note"] + ".md", text(q))


def _expense(amount: Callable[[dict], str]) -> Fn:
    return lambda p, q: add_expense(p, q["name"], parse_money(amount(q)) or 0, q["category"], p.now)


def _dinner(hour_shift: int) -> Fn:
    def go(p: Phone, q: dict) -> None:
        s = at(date.fromisoformat(q["date"]), q["hour"] + hour_shift, q["minute"])
        add_event(p, q["title"], s, s + timedelta(hours=1), location=q["place"])
    return go


def _other_line(q: dict) -> str:
    return next(a for n, a in q["lines"] if n != q["name"])


# name -> (make it succeed, a near miss that must fail)
OPS: dict[str, tuple[Fn, Fn]] = {
    "multi_text_event_location": (_text("number", lambda q: f"It's at {q['location']}, see you there"),
                                  _text("number", lambda q: f"It's at {q['decoy_location']}")),  # the past one
    "multi_text_birthday_person_today": (_text("number", lambda q: q["body"]),
                                         _text("other_number", lambda q: q["body"])),  # tomorrow's birthday
    "multi_alarm_before_first_event_tomorrow": (_alarm("alarm_hour", "alarm_minute"),
                                                _alarm("hour", "minute")),  # at the event, not before it
    "multi_save_contact_number_note": (_note(lambda q: q["number"]),
                                       _note(lambda q: q["decoy_number"])),  # the namesake's number
    "multi_add_contact_from_note": (lambda p, q: add_contact(p, q["first"], q["last"], number=q["number"]),
                                    lambda p, q: add_contact(p, q["first"], q["last"], number=q["ref_number"])),
    "multi_add_expense_from_note": (_expense(lambda q: q["amount"]), _expense(_other_line)),  # another line's cost
    "multi_rename_device_from_note": (lambda p, q: p.put_setting("global", "device_name", q["new_name"]),
                                      lambda p, q: p.put_setting("global", "device_name", q["old_name"])),
    "multi_note_listing_folder_files": (_note(lambda q: "\n".join(f"- {f}" for f in q["files"])),
                                        _note(lambda q: "\n".join(q["files"][:-1]))),  # one file left out
    "multi_alarm_from_message_time": (_alarm("hour", "minute", "label"),
                                      _alarm("first_hour", "first_minute", "label")),  # the superseded time
    "multi_event_from_text_invite": (_dinner(0), _dinner(-12)),  # AM instead of PM
    "multi_text_half_of_expense": (_text("number", lambda q: f"You owe me ${dollars(q['half'])}"),
                                   _text("number", lambda q: f"You owe me ${dollars(q['decoy_cents'] // 2)}")),
}
QUERIES: dict[str, tuple[Callable[[dict], str], Callable[[dict], str]]] = {
    "multi_query_first_meeting_phone": (lambda q: f"It's {q['name']}: {q['number']}", lambda q: q["decoy_number"]),
}


def test_every_new_template_has_a_near_miss_case() -> None:
    assert sorted(set(OPS) | set(QUERIES)) == NEW


@pytest.mark.parametrize("name", sorted(OPS))
def test_operation_checker_success_and_near_miss(name: str) -> None:
    good, bad = OPS[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        good(env.phone, task.params)
        assert task.is_successful(env.phone, None) == 1.0, (name, seed)
        miss = fresh(task, seed)
        bad(miss.phone, task.params)
        assert task.is_successful(miss.phone, None) == 0.0, (name, seed)


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_query_checker_success_and_near_miss(name: str) -> None:
    good, bad = QUERIES[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        assert task.is_successful(env.phone, good(task.params)) == 1.0, (name, seed)
        assert task.is_successful(env.phone, bad(task.params)) == 0.0, (name, seed)
        assert task.is_successful(env.phone, None) == 0.0


def test_more_near_misses() -> None:
    # the right text to the wrong person, and both locations in one text
    task = registry.get_template("multi_text_event_location").instantiate(3)
    env = fresh(task, 3)
    q = task.params
    add_sms(env.phone, q["number"], f"Either {q['location']} or {q['decoy_location']}", kind=TYPE_SENT)
    assert task.is_successful(env.phone, None) == 0.0
    # a second alarm with the same label is not "an alarm"
    task = registry.get_template("multi_alarm_from_message_time").instantiate(3)
    env = fresh(task, 3)
    for _ in range(2):
        env.phone.execute("INSERT INTO alarm_templates(hour, minutes, days_of_week, enabled, vibrate, label, "
                          "ringtone) VALUES(?,?,0,1,1,?,'x')", (task.params["hour"], task.params["minute"],
                                                                task.params["label"]))
    assert task.is_successful(env.phone, None) == 0.0
    # the full amount instead of half
    task = registry.get_template("multi_text_half_of_expense").instantiate(3)
    env = fresh(task, 3)
    add_sms(env.phone, task.params["number"], f"${dollars(task.params['cents'])}", kind=TYPE_SENT)
    assert task.is_successful(env.phone, None) == 0.0
    # an extra file name listed
    task = registry.get_template("multi_note_listing_folder_files").instantiate(3)
    env = fresh(task, 3)
    write_note(env.phone, task.params["note"] + ".md", "\n".join([*task.params["files"], "notes.txt"]))
    assert task.is_successful(env.phone, None) == 0.0


def test_listed_names_drops_headings_and_bullets() -> None:
    assert listed_names("# Scans\n\n- a.pdf\n2. b.png\n* c.jpg  \n") == ["a.pdf", "b.png", "c.jpg"]
    assert listed_names(None) == []


# ---- the oracle repairs an earlier wrong try --------------------------------------------------------
def _finish(env: SimEnv, limit: int) -> int:
    task = env.task
    assert task is not None
    obs = env.observe()
    for n in range(1, limit + 1):
        action = task.oracle_action(env.phone, obs)
        if action.action_type == "status":
            return n
        obs = env.step(action)
    raise AssertionError(f"oracle for {task.id} did not finish (at {env.phone.location})")


@pytest.mark.parametrize("name", ["multi_alarm_before_first_event_tomorrow", "multi_alarm_from_message_time",
                                  "multi_add_contact_from_note", "multi_add_expense_from_note",
                                  "multi_event_from_text_invite", "multi_save_contact_number_note",
                                  "multi_rename_device_from_note"])
def test_oracle_fixes_a_near_miss(name: str) -> None:
    tmpl = registry.get_template(name)
    for seed in (0, 1):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        OPS[name][1](env.phone, task.params)
        _finish(env, tmpl.max_steps + 10)
        assert env.is_successful() == 1.0, (name, seed)


def test_oracle_deletes_a_duplicate_alarm() -> None:
    tmpl = registry.get_template("multi_alarm_before_first_event_tomorrow")
    task = tmpl.instantiate(2)
    env = fresh(task, 2)
    q = task.params
    for h, m in ((q["hour"], q["minute"]), (q["alarm_hour"], q["alarm_minute"])):
        env.phone.execute("INSERT INTO alarm_templates(hour, minutes, days_of_week, enabled, vibrate, label, "
                          "ringtone) VALUES(?,?,0,1,1,?,'x')", (h, m, q["title"]))
    _finish(env, tmpl.max_steps)
    assert env.is_successful() == 1.0


# ---- goal phrasings -----------------------------------------------------------------------------------
def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


@pytest.mark.parametrize("name", OWNED)
def test_goal_phrasings(name: str) -> None:
    tmpl = registry.get_template(name)
    assert 2 <= len(tmpl.goal_phrasings) <= 3, name
    assert len(set(tmpl.phrasings)) == len(tmpl.phrasings)
    want = _fields(tmpl.goal_template)
    quoted = {f for f in want if f'"{{{f}}}"' in tmpl.goal_template}
    for k, phrasing in enumerate(tmpl.goal_phrasings, 1):
        assert _fields(phrasing) == want, (name, k)
        assert all(f'"{{{f}}}"' in phrasing for f in quoted), (name, k)  # quoted values stay quoted
        task = tmpl.instantiate(0, phrasing=k)
        assert task.params == tmpl.instantiate(0).params and "{" not in task.goal


# ---- round 2: Tasks and Markor as partners (which items to add or tick, text or re-prioritise, search,
# hidden completed tasks, derived due dates, targets named by a property) -----------------------------


def _todo_id(p: Phone, title: str) -> int:
    return p.query_one("SELECT _id FROM todo_tasks WHERE title=?", (title,))[0]


def _complete(key: str) -> Fn:
    def go(p: Phone, q: dict) -> None:
        for it in q["items"][1:]:
            p.execute("UPDATE todo_tasks SET completed=1 WHERE _id=?", (_todo_id(p, it[key]),))
    return go


def _open_items(extra: Callable[[dict], list[str]]) -> Fn:
    def go(p: Phone, q: dict) -> None:
        for t, done in q["lines"]:
            if not done and t != q["already"]:
                add_todo(p, q["list"], t)
        for t in extra(q):
            add_todo(p, q["list"], t)
    return go


def _new_task(title: str, due: Callable[[dict], date]) -> Fn:
    return lambda p, q: add_todo(p, q["list"], q[title], due=due(q))


def _by_state(right: bool) -> Fn:
    def go(p: Phone, q: dict) -> None:
        if q["done"] == right:  # done: the reply; not done: high priority
            add_sms(p, q["number"], q["body"], kind=TYPE_SENT)
        else:
            p.execute("UPDATE todo_tasks SET priority=0 WHERE _id=?", (_todo_id(p, q["title"]),))
    return go


def _ticked(which: Callable[[bool], bool]) -> Fn:
    return lambda p, q: write_note(p, q["note"] + ".md", checklist_body(q["note"], [[t, which(d)] for t, d in q["lines"]]))


def _bill(cents_key: str, done: int = 1) -> Fn:
    def go(p: Phone, q: dict) -> None:
        p.execute("UPDATE todo_tasks SET notes=?, completed=? WHERE _id=?",
                  (f"Paid ${dollars(q[cents_key])}", done, _todo_id(p, q["task"])))
    return go


R2_OPS: dict[str, tuple[Fn, Fn]] = {
    "multi_complete_bill_task_with_amount": (_bill("cents"), _bill("other_cents")),  # the other bill's amount
    "multi_tasks_from_note_open_items": (_open_items(lambda q: []),
                                         _open_items(lambda q: [q["already"]])),  # a duplicate of the one there
    "multi_complete_tasks_listed_in_note": (_complete("title"), _complete("twin")),  # the look-alikes
    "multi_task_due_day_before_event": (_new_task("task", lambda q: date.fromisoformat(q["date"]) - timedelta(days=1)),
                                        _new_task("task", lambda q: date.fromisoformat(q["date"]))),  # on the day
    "multi_text_or_prioritize_by_task_state": (_by_state(True), _by_state(False)),  # the other branch
    "multi_tick_note_items_done_in_tasks": (_ticked(lambda d: d), _ticked(lambda d: True)),  # everything ticked
    "multi_task_from_text_request": (_new_task("title", lambda q: date.fromisoformat(q["due"])),
                                     _new_task("title", lambda q: date.fromisoformat(q["first_due"]))),  # superseded
    "multi_alarm_for_task_due_tomorrow": (_alarm("hour", "minute", "title"),
                                          _alarm("hour", "minute", "other")),  # due tomorrow on another list
}
R2_QUERIES: dict[str, tuple[Callable[[dict], str], Callable[[dict], str]]] = {
    "multi_query_note_item_missing_in_tasks": (lambda q: f"You forgot the {q['missing']}",
                                               lambda q: next(i for i in q["items"] if i != q["missing"])),
    "multi_query_event_on_task_due_day": (lambda q: q["event"], lambda q: q["other_event"]),  # the twin's day
    "multi_query_number_for_priority_call": (lambda q: q["number"], lambda q: q["other_number"]),
}
ROUND2 = sorted([*R2_OPS, *R2_QUERIES])
OPS.update(R2_OPS)
QUERIES.update(R2_QUERIES)


@pytest.mark.parametrize("name", sorted(R2_OPS))
def test_round2_operation_checker_success_and_near_miss(name: str) -> None:
    good, bad = R2_OPS[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 3, 4, 1000):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        assert task.is_successful(env.phone, None) == 0.0, (name, seed)  # set-up is not the goal
        good(env.phone, task.params)
        assert task.is_successful(env.phone, None) == 1.0, (name, seed)
        miss = fresh(task, seed)
        bad(miss.phone, task.params)
        assert task.is_successful(miss.phone, None) == 0.0, (name, seed)


@pytest.mark.parametrize("name", sorted(R2_QUERIES))
def test_round2_query_checker_success_and_near_miss(name: str) -> None:
    good, bad = R2_QUERIES[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 1000):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        assert task.is_successful(env.phone, good(task.params)) == 1.0, (name, seed)
        assert task.is_successful(env.phone, bad(task.params)) == 0.0, (name, seed)
        assert task.is_successful(env.phone, None) == 0.0


def test_round2_more_near_misses() -> None:
    # both branches of the condition are drawn; doing both fails
    tmpl = registry.get_template("multi_text_or_prioritize_by_task_state")
    assert {tmpl.instantiate(s).params["done"] for s in range(8)} == {True, False}
    task = tmpl.instantiate(0)
    env = fresh(task, 0)
    _by_state(True)(env.phone, task.params)
    _by_state(False)(env.phone, task.params)
    assert task.is_successful(env.phone, None) == 0.0
    # a ticked (done) checklist item added as a task too
    task = registry.get_template("multi_tasks_from_note_open_items").instantiate(1)
    env = fresh(task, 1)
    _open_items(lambda q: [next(t for t, d in q["lines"] if d)])(env.phone, task.params)
    assert task.is_successful(env.phone, None) == 0.0
    # the wanted tasks, but on another list
    q = task.params
    env = fresh(task, 1)
    other = next(n for n in ("Inbox", "Work", "Personal") if n != q["list"])
    for t, done in q["lines"]:
        if not done and t != q["already"]:
            add_todo(env.phone, other, t)
    assert task.is_successful(env.phone, None) == 0.0
    # the checklist right, but a task was reopened on the way
    task = registry.get_template("multi_tick_note_items_done_in_tasks").instantiate(2)
    env = fresh(task, 2)
    _ticked(lambda d: d)(env.phone, task.params)
    t = next(t for t, d in task.params["lines"] if d)
    env.phone.execute("UPDATE todo_tasks SET completed=0 WHERE _id=?", (_todo_id(env.phone, t),))
    assert task.is_successful(env.phone, None) == 0.0
    # the amount written, but the bill task left open (half the job)
    task = registry.get_template("multi_complete_bill_task_with_amount").instantiate(1)
    env = fresh(task, 1)
    _bill("cents", done=0)(env.phone, task.params)
    assert task.is_successful(env.phone, None) == 0.0
    # the right task, due the day before the later occurrence
    task = registry.get_template("multi_task_due_day_before_event").instantiate(2)
    env = fresh(task, 2)
    _new_task("task", lambda q: date.fromisoformat(q["later"]) - timedelta(days=1))(env.phone, task.params)
    assert task.is_successful(env.phone, None) == 0.0
    # the task due tomorrow: the note item on another list answers "it's there"
    task = registry.get_template("multi_query_note_item_missing_in_tasks").instantiate(0)
    env = fresh(task, 0)
    assert task.is_successful(env.phone, " and ".join(task.params["items"])) == 0.0


# ---- the oracle reads before it types, and finishes after detours -----------------------------------
@pytest.mark.parametrize("name", ["multi_tasks_from_note_open_items", "multi_complete_tasks_listed_in_note",
                                  "multi_query_note_item_missing_in_tasks", "multi_text_or_prioritize_by_task_state",
                                  "multi_query_event_on_task_due_day", "multi_task_from_text_request",
                                  "multi_alarm_for_task_due_tomorrow", "multi_query_number_for_priority_call",
                                  "multi_complete_bill_task_with_amount"])
def test_round2_oracle_types_only_what_it_was_shown(name: str) -> None:
    for seed in (0, 1, 2, 1000):
        assert unread_values(name, seed) == [], (name, seed)


def _detour_todo_search(env: SimEnv) -> None:
    env.phone.open_app("todo")
    env.step(Action(action_type="click", index=find(env.observe(), desc="Search")))
    env.step(Action(action_type="input_text", index=find(env.observe(), resource_id="search_input"), text="e"))


def _detour_todo_new_editor(env: SimEnv) -> None:
    env.phone.open_app("todo")
    env.step(Action(action_type="click", index=find(env.observe(), desc="Create new task")))
    env.step(Action(action_type="input_text", index=find(env.observe(), resource_id="title", editable=True),
                    text="Scratch"))


def _detour_todo_drawer(env: SimEnv) -> None:
    env.phone.open_app("todo")
    env.step(Action(action_type="click", index=find(env.observe(), desc="Open navigation drawer")))


def _detour_markor_search(env: SimEnv) -> None:
    env.phone.open_app("notes")
    env.step(Action(action_type="click", index=find(env.observe(), desc="Search")))
    env.step(Action(action_type="input_text", index=find(env.observe(), resource_id="search_input"), text="a"))


def _detour_messages(env: SimEnv) -> None:
    env.phone.open_app("messages")


R2_DETOURS = [_detour_todo_search, _detour_todo_new_editor, _detour_todo_drawer, _detour_markor_search,
              _detour_messages]


@pytest.mark.parametrize("name", ROUND2)
def test_round2_oracle_finishes_from_mid_task_screens(name: str) -> None:
    tmpl = registry.get_template(name)
    for k, detour in enumerate(R2_DETOURS):
        seed = 20 + k
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


def test_round2_oracle_fixes_a_wrong_due_date() -> None:
    for name in ("multi_task_due_day_before_event", "multi_task_from_text_request"):
        tmpl = registry.get_template(name)
        task = tmpl.instantiate(1)
        env = fresh(task, 1)
        R2_OPS[name][1](env.phone, task.params)
        _finish(env, tmpl.max_steps)
        assert env.is_successful() == 1.0, name


def test_round2_setups() -> None:
    task = registry.get_template("multi_alarm_for_task_due_tomorrow").instantiate(0)
    env = fresh(task, 0)
    lid = list_id(env.phone, task.params["list"])
    # the only task of the list due tomorrow is the target (seeded ones were moved a day later)
    due = env.phone.query("SELECT title FROM todo_tasks WHERE list_id=? AND due=?",
                          (lid, due_ms(TODAY + timedelta(days=1))))
    assert [r[0] for r in due] == [task.params["title"]]
