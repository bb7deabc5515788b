"""Expenses app tasks: add / edit / delete expenses and questions about spending.

Checkers diff the ``expense`` table against a *baseline* (a fresh phone of the same seed with the
task's set-up applied), so an extra change to the wrong row, a duplicate or a lost row fails, and
compare money by value ("$42.50" == "42.5"). Oracles act on the current screen.
"""

from __future__ import annotations

import random
import re
from datetime import date, datetime, timedelta
from typing import Any, ClassVar

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim.apps.expenses import (
    CATEGORIES,
    add_expense,
    expenses,
    format_money,
    month_expenses,
    parse_money,
)
from droidverify.env.sim.phone import Phone
from droidverify.env.sim.timeutil import MONTHS, day_label
from droidverify.tasks.base import TaskTemplate
from droidverify.tasks.helpers import (
    BACK,
    COMPLETE,
    NUMBER,
    answer,
    answer_matches,
    baseline_rows,
    click,
    click_in,
    click_or_scroll,
    diff_rows,
    dismiss_popups,
    dollars,
    find,
    money_matches,
    navigate,
    open_app,
    scroll_toward,
    type_in,
)
from droidverify.tasks.registry import register_task

APP = "expenses"
TODAY = date(2024, 10, 15)  # the simulator's default clock (phone.now)

# Items the set-ups plant; none is in the seed catalog, so a goal's name is unambiguous.
ITEMS: tuple[tuple[str, str], ...] = (
    ("Birthday cake", "Food"), ("Taxi to airport", "Transport"), ("Winter jacket", "Shopping"),
    ("Car insurance", "Bills"), ("Museum tickets", "Entertainment"), ("Eye exam", "Health"),
    ("Spanish class", "Education"), ("Flowers", "Other"), ("Board game", "Entertainment"),
    ("Bike repair", "Transport"), ("Yoga class", "Health"), ("Pet food", "Other"), ("Brunch", "Food"),
    ("Printer ink", "Shopping"), ("Ferry ticket", "Transport"), ("Cooking class", "Education"),
    ("Ice cream", "Food"), ("Water filter", "Shopping"), ("Theme park", "Entertainment"),
    ("Dry cleaning", "Other"),
)
AMOUNTS = ("4.75", "12.00", "18.40", "23.99", "36.50", "42.50", "57.25", "64.00", "89.90", "120.00",
           "15.25", "9.99", "145.60", "7.30")


# ---- expense-specific helpers -----------------------------------------------------------------------
EXPENSE_SQL = ("SELECT e.expense_id, e.name, e.amount_cents, c.name, e.note, date(e.created_date / 1000, "
               "'unixepoch') FROM expense e JOIN category c USING(category_id) ORDER BY e.expense_id")


def expense_diff(phone: Phone, template: TaskTemplate, params: dict[str, Any]):
    return diff_rows(baseline_rows(phone, template, params, EXPENSE_SQL), [tuple(r) for r in phone.query(EXPENSE_SQL)])


def row_is(row: tuple, name: str, cents: int, category: str, day: str | None = None, note: str | None = None) -> bool:
    """Row shape of EXPENSE_SQL: (id, name, cents, category, note, 'YYYY-MM-DD')."""
    return (row[1].strip().lower() == name.lower() and row[2] == cents and row[3] == category
            and (day is None or row[5] == day) and (note is None or row[4].strip().lower() == note.lower()))


def find_expense(phone: Phone, name: str) -> dict | None:
    rows = expenses(phone, "e.name = ?", (name,))
    return rows[0] if rows else None


def main_screen(phone: Phone, obs: Observation) -> Action | None:
    """Next action toward the unfiltered expense list; None once there (no dialog or menu open)."""
    step = navigate(phone, obs, APP, [("main", None)])
    if step is not None:
        return step
    if phone.dialog is not None or phone.menu_open:
        return BACK
    if phone.screen is not None and phone.screen.state.get("category"):
        return click(obs, resource_id="clear_filter")
    return None


def open_expense(phone: Phone, obs: Observation, expense_id: int, name: str,
                 amount_cents: int | None = None) -> Action | None:
    """Next action toward the detail screen of one expense; None once there.

    ``amount_cents`` tells apart rows of the same name (the row's label ends with its amount).
    """
    if phone.foreground != APP:
        return open_app(phone, APP)
    scr = phone.screen
    assert scr is not None
    if scr.name == "detail" and scr.args.get("expense_id") == expense_id:
        return None
    if scr.name != "main":
        return BACK
    extra = {} if amount_cents is None else {"text_contains": f"| {format_money(amount_cents)}"}
    return main_screen(phone, obs) or click_or_scroll(phone, obs, text=name, resource_id="expense_item", **extra)


def fill_form(phone: Phone, obs: Observation, *, name: str | None = None, cents: int | None = None,
              category: str | None = None, day: date | None = None, note: str | None = None) -> Action:
    """Next action on the add/edit form (or its pickers) toward the wanted values, then Save."""
    scr = phone.screen
    assert scr is not None and scr.name == "edit"
    dlg = phone.dialog
    if dlg is not None:
        if dlg.name == "choice" and category is not None:
            return click_in(obs, "dialog", text=category) or BACK
        if dlg.name == "date_picker" and day is not None:
            d = dlg.data
            cur, want = int(d["year"]) * 12 + int(d["month"]), day.year * 12 + day.month
            if cur != want:
                return click_in(obs, "dialog", desc="Next month" if want > cur else "Previous month") or BACK
            if int(d["day"]) != day.day:
                i = find(obs, editable=True, resource_id="day")
                if i is not None:
                    return Action(action_type="input_text", index=i, text=str(day.day))
            return click_in(obs, "dialog", text="OK", resource_id="button1") or BACK
        return BACK
    f, st = scr.fields, scr.state
    if name is not None and f.get("name", "").strip() != name:
        return type_in(obs, name, resource_id="edt_name") or BACK
    if cents is not None and parse_money(f.get("amount", "")) != cents:
        return type_in(obs, dollars(cents), resource_id="edt_amount") or BACK
    if category is not None and st.get("category") != category:
        return click(obs, resource_id="category_spinner") or BACK
    if day is not None and (st.get("year"), st.get("month"), st.get("day")) != (day.year, day.month, day.day):
        return click(obs, resource_id="date_picker_button") or BACK
    if note is not None and f.get("note", "").strip() != note:
        return type_in(obs, note, resource_id="edt_note") or BACK
    return click(obs, resource_id="btn_save") or BACK


def add_form(phone: Phone, obs: Observation, **want: Any) -> Action:
    """Open a new-expense form from anywhere, then fill it."""
    scr = phone.screen
    if phone.foreground == APP and scr is not None and scr.name == "edit" and scr.args.get("expense_id") is None:
        return fill_form(phone, obs, **want)
    return main_screen(phone, obs) or click(obs, desc="Add expense") or BACK


def edit_form(phone: Phone, obs: Observation, expense_id: int, label: str, **want: Any) -> Action:
    scr = phone.screen
    if phone.foreground == APP and scr is not None and scr.name == "edit" \
            and scr.args.get("expense_id") == expense_id:
        return fill_form(phone, obs, **want)
    return open_expense(phone, obs, expense_id, label) or click(obs, resource_id="btn_edit") or BACK


def delete_expense_action(phone: Phone, obs: Observation, expense_id: int, name: str) -> Action:
    dlg = phone.dialog
    scr = phone.screen
    if dlg is not None and dlg.name == "confirm" and dlg.data.get("args", {}).get("expense_id") == expense_id \
            and phone.foreground == APP:
        return click_in(obs, "dialog", text="Delete", resource_id="button1") or BACK
    return open_expense(phone, obs, expense_id, name) or \
        (click(obs, resource_id="btn_delete") if scr is not None else None) or BACK


def stats_screen(phone: Phone, obs: Observation, year: int, month: int) -> Action | None:
    """Next action toward the Statistics screen showing ``month``; None once there."""
    step = navigate(phone, obs, APP, [("main", {"desc": "Statistics"}), ("stats", None)])
    if step is not None:
        return step
    if phone.dialog is not None or phone.menu_open:
        return BACK
    scr = phone.screen
    assert scr is not None
    cur, want = scr.args["year"] * 12 + scr.args["month"], year * 12 + month
    if cur != want:
        return click(obs, desc="Next month" if want > cur else "Previous month")
    return None


def pick_item(rng: random.Random) -> tuple[str, str]:
    return rng.choice(ITEMS)


def pick_cents(rng: random.Random, *, avoid: int | None = None) -> int:
    choices = [parse_money(a) for a in AMOUNTS]
    return rng.choice([c for c in choices if c is not None and c != avoid])


def plant(phone: Phone, name: str, cents: int, category: str, day: str, note: str = "") -> int:
    """Insert a set-up expense at 12:30 on ``day`` (ISO), after removing any of the same name."""
    phone.execute("DELETE FROM expense WHERE name=?", (name,))
    when = datetime.fromisoformat(day).replace(hour=12, minute=30)
    return add_expense(phone, name, cents, category, when, note)


def _month_name(m: int) -> str:
    return MONTHS[m - 1]


# ---- operation templates ------------------------------------------------------------------------------
class AddTemplate(TaskTemplate):
    apps = ("Expenses",)
    complexity = 2
    with_day: ClassVar[bool] = False
    with_note: ClassVar[bool] = False

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = pick_item(rng)
        cents = pick_cents(rng)
        p: dict[str, Any] = {"name": name, "amount": dollars(cents), "category": cat}
        if self.with_day:
            day = TODAY - timedelta(days=rng.randint(2, 40))
            p.update(day=day.isoformat(), day_text=f"{_month_name(day.month)} {day.day}, {day.year}")
        if self.with_note:
            p["note"] = rng.choice(("for the party", "reimbursable", "paid in cash", "gift", "work trip"))
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM expense WHERE name=?", (params["name"],))

    def _want(self, params: dict[str, Any]) -> dict[str, Any]:
        want: dict[str, Any] = {"name": params["name"], "cents": parse_money(params["amount"]),
                                "category": params["category"]}
        want["day"] = date.fromisoformat(params["day"]) if self.with_day else TODAY
        if self.with_note:
            want["note"] = params["note"]
        return want

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        w = self._want(params)
        ok = len(added) == 1 and not removed and not changed and row_is(
            added[0], w["name"], w["cents"], w["category"], w["day"].isoformat(), w.get("note"))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return add_form(phone, obs, **self._want(params))


@register_task
class AddExpense(AddTemplate):
    name = "expenses_add_expense"
    optimal_steps = 8
    goal_template = "In the Expenses app, add an expense \"{name}\" of ${amount} in the {category} category."
    goal_phrasings = (
        "Could you log \"{name}\" for ${amount} under {category} in Expenses?",
        "New {category} expense \"{name}\": ${amount}.",
        "I just spent ${amount} on \"{name}\" ({category}); please record it in the Expenses app.",
    )


@register_task
class AddExpenseDated(AddTemplate):
    name = "expenses_add_expense_on_date"
    complexity = 3
    optimal_steps = 11
    with_day = True
    goal_template = "Record an expense \"{name}\" for ${amount} ({category}) dated {day_text} in Expenses."
    goal_phrasings = (
        "On {day_text} I paid ${amount} for \"{name}\". Add it to Expenses as {category}.",
        "Could you add a {category} expense called \"{name}\" of ${amount} with the date {day_text}?",
        "Expenses: \"{name}\", ${amount}, {category}, {day_text}.",
    )


@register_task
class AddExpenseWithNote(AddTemplate):
    name = "expenses_add_expense_with_note"
    optimal_steps = 9
    with_note = True
    goal_template = ("Add a {category} expense named \"{name}\" costing ${amount} with the note \"{note}\" "
                     "in the Expenses app.")
    goal_phrasings = (
        "Could you log \"{name}\" (${amount}, {category}) in Expenses and add the note \"{note}\"?",
        "New expense \"{name}\": ${amount}, category {category}, note \"{note}\".",
        "In Expenses, record ${amount} for \"{name}\" under {category}; note: \"{note}\".",
    )


@register_task
class AddTwoExpenses(TaskTemplate):
    name = "expenses_add_two_expenses"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 14
    goal_template = ("In Expenses, log two expenses for today: \"{name1}\" ${amount1} ({category1}) and "
                     "\"{name2}\" ${amount2} ({category2}).")
    goal_phrasings = (
        ("Add two of today's purchases to the Expenses app: \"{name1}\" for ${amount1} under {category1}, and "
         "\"{name2}\" for ${amount2} under {category2}."),
        "Could you record \"{name2}\" (${amount2}, {category2}) and \"{name1}\" (${amount1}, {category1}) as today's expenses?",
        "Today's spending: \"{name1}\" ${amount1} {category1}; \"{name2}\" ${amount2} {category2}. Log both in Expenses.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (n1, c1), (n2, c2) = rng.sample(ITEMS, 2)
        return {"name1": n1, "amount1": dollars(pick_cents(rng)), "category1": c1,
                "name2": n2, "amount2": dollars(pick_cents(rng)), "category2": c2}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM expense WHERE name IN (?, ?)", (params["name1"], params["name2"]))

    def _wants(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"name": params[f"name{i}"], "cents": parse_money(params[f"amount{i}"]),
                 "category": params[f"category{i}"], "day": TODAY} for i in (1, 2)]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        if removed or changed or len(added) != 2:
            return 0.0
        wants = self._wants(params)
        ok = all(any(row_is(r, w["name"], w["cents"], w["category"], w["day"].isoformat()) for r in added)
                 for w in wants)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        for w in self._wants(params):
            if find_expense(phone, w["name"]) is None:
                return add_form(phone, obs, **w)
        return COMPLETE


class PlantedTemplate(TaskTemplate):
    """Templates acting on one planted expense with a unique name."""

    apps = ("Expenses",)

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = pick_item(rng)
        cents = pick_cents(rng)
        day = TODAY - timedelta(days=rng.randint(0, 25))
        return {"name": name, "category": cat, "amount": dollars(cents), "day": day.isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        plant(phone, params["name"], parse_money(params["amount"]) or 0, params["category"], params["day"])

    def target(self, phone: Phone, params: dict[str, Any]) -> tuple[int, str]:
        row = next(r for r in baseline_rows(phone, self, params, EXPENSE_SQL) if r[1] == params["name"])
        return row[0], row[1]


@register_task
class DeleteExpense(PlantedTemplate):
    name = "expenses_delete_expense"
    complexity = 1
    optimal_steps = 6
    goal_template = "Delete the expense \"{name}\" from the Expenses app."
    goal_phrasings = (
        "Remove \"{name}\" from my expenses.",
        "Could you delete my \"{name}\" expense in Expenses?",
        "I never bought \"{name}\"; get rid of that entry in the Expenses app.",
    )

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        eid, _ = self.target(phone, params)
        return 1.0 if not added and not changed and [r[0] for r in removed] == [eid] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        eid, name = self.target(phone, params)
        return delete_expense_action(phone, obs, eid, name)


@register_task
class DeleteDuplicates(TaskTemplate):
    name = "expenses_delete_all_named"
    apps = ("Expenses",)
    complexity = 2
    optimal_steps = 12
    goal_template = "I logged \"{name}\" more than once by mistake. Delete every expense named \"{name}\"."
    goal_phrasings = (
        "Remove all the \"{name}\" entries from the Expenses app.",
        "Could you delete each expense called \"{name}\"? They were duplicates.",
        "Expenses: delete every \"{name}\" entry, not just one.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = pick_item(rng)
        n = rng.randint(2, 3)
        days = [(TODAY - timedelta(days=d)).isoformat() for d in sorted(rng.sample(range(21), n))]
        return {"name": name, "category": cat, "amount": dollars(pick_cents(rng)), "days": days}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM expense WHERE name=?", (params["name"],))
        for day in params["days"]:
            add_expense(phone, params["name"], parse_money(params["amount"]) or 0, params["category"],
                        datetime.fromisoformat(day).replace(hour=12, minute=30))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        ok = not added and not changed and sorted(r[1] for r in removed) == [params["name"]] * len(params["days"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        dlg = phone.dialog
        if dlg is not None and dlg.name == "confirm" and phone.foreground == APP:
            eid = dlg.data.get("args", {}).get("expense_id")
            return delete_expense_action(phone, obs, eid, params["name"])
        scr = phone.screen
        if phone.foreground == APP and scr is not None and scr.name == "detail":
            cur = find_expense(phone, params["name"])
            if cur is not None and scr.args.get("expense_id") in [
                    e["expense_id"] for e in expenses(phone, "e.name = ?", (params["name"],))]:
                return delete_expense_action(phone, obs, scr.args["expense_id"], params["name"])
        e = find_expense(phone, params["name"])
        if e is None:
            return COMPLETE
        return delete_expense_action(phone, obs, e["expense_id"], params["name"])


class EditTemplate(PlantedTemplate):
    complexity = 2
    field: ClassVar[str]  # name | amount | category | day

    def new_values(self, params: dict[str, Any]) -> dict[str, Any]:
        """Expected final (name, cents, category, day) of the edited row."""
        v = {"name": params["name"], "cents": parse_money(params["amount"]), "category": params["category"],
             "day": date.fromisoformat(params["day"])}
        v.update(self.change(params))
        return v

    def change(self, params: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        eid, _ = self.target(phone, params)
        v = self.new_values(params)
        ok = not added and not removed and len(changed) == 1 and changed[0][1][0] == eid and row_is(
            changed[0][1], v["name"], v["cents"], v["category"], v["day"].isoformat())
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        eid, name = self.target(phone, params)
        return edit_form(phone, obs, eid, name, **self.change(params))


@register_task
class EditAmount(EditTemplate):
    name = "expenses_edit_amount"
    optimal_steps = 7
    goal_template = "The expense \"{name}\" actually cost ${new_amount}. Fix its amount in Expenses."
    goal_phrasings = (
        "Change the amount of \"{name}\" to ${new_amount} in the Expenses app.",
        "Could you correct \"{name}\" so it shows ${new_amount}?",
        "\"{name}\" should be ${new_amount}; please fix the expense.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = super().generate_params(rng)
        p["new_amount"] = dollars(pick_cents(rng, avoid=parse_money(p["amount"])))
        return p

    def change(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"cents": parse_money(params["new_amount"])}


@register_task
class EditCategory(EditTemplate):
    name = "expenses_edit_category"
    optimal_steps = 8
    goal_template = "Move the expense \"{name}\" to the {new_category} category in Expenses."
    goal_phrasings = (
        "Could you recategorise \"{name}\" as {new_category}?",
        "In the Expenses app, change the category of \"{name}\" to {new_category}.",
        "\"{name}\" belongs under {new_category}; please update it in Expenses.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = super().generate_params(rng)
        p["new_category"] = rng.choice([c for c in CATEGORIES if c != p["category"]])
        return p

    def change(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"category": params["new_category"]}


@register_task
class RenameExpense(EditTemplate):
    name = "expenses_rename_expense"
    optimal_steps = 6
    goal_template = "Rename the expense \"{name}\" to \"{new_name}\" in the Expenses app."
    goal_phrasings = (
        "Change the name of my \"{name}\" expense to \"{new_name}\".",
        "Could you call the \"{name}\" entry \"{new_name}\" instead, in Expenses?",
        "Expenses: \"{name}\" -> \"{new_name}\" (rename).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = super().generate_params(rng)
        p["new_name"] = rng.choice([n for n, _ in ITEMS if n != p["name"]]) + rng.choice((" (shared)", " 2", ""))
        if p["new_name"] == p["name"]:
            p["new_name"] += " refund"
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM expense WHERE name=?", (params["new_name"],))
        super().setup(phone, params)

    def change(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"name": params["new_name"]}


@register_task
class EditDate(EditTemplate):
    name = "expenses_edit_date"
    complexity = 3
    optimal_steps = 9
    goal_template = "I entered \"{name}\" on the wrong day; change its date to {new_day_text} in Expenses."
    goal_phrasings = (
        "The expense \"{name}\" should be dated {new_day_text}. Please fix it in the Expenses app.",
        "Could you move \"{name}\" to {new_day_text}?",
        "Change the date of \"{name}\" in Expenses to {new_day_text}.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = super().generate_params(rng)
        old = date.fromisoformat(p["day"])
        new = old - timedelta(days=rng.choice((1, 2, 3, 5, 8, 12, 20, 31)))
        p.update(new_day=new.isoformat(), new_day_text=f"{_month_name(new.month)} {new.day}, {new.year}")
        return p

    def change(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"day": date.fromisoformat(params["new_day"])}


# ---- query templates ------------------------------------------------------------------------------
class StatsQuery(TaskTemplate):
    """Answer from the Statistics screen of one month."""

    apps = ("Expenses",)
    kind = "query"
    complexity = 2
    months: ClassVar[tuple[int, ...]] = (7, 8, 9)

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        m = rng.choice(self.months)
        return {"month": _month_name(m), "month_num": m, "year": 2024, "category": rng.choice(CATEGORIES[:6])}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        pass

    def items(self, phone: Phone, params: dict[str, Any], category: str | None = None) -> list[dict]:
        return month_expenses(phone, params["year"], params["month_num"], category)

    def check(self, phone: Phone, params: dict[str, Any], text: str) -> bool:
        raise NotImplementedError

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        raise NotImplementedError

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer is not None and self.check(phone, params, answer) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return stats_screen(phone, obs, params["year"], params["month_num"]) or \
            answer(self.expected(phone, params))


class SpendQuery(StatsQuery):
    """Answer: the money spent in the month (only in ``params["category"]`` when ``by_category``)."""

    by_category: ClassVar[bool] = False

    def _cents(self, phone: Phone, params: dict[str, Any]) -> int:
        category = params["category"] if self.by_category else None
        return sum(e["amount_cents"] for e in self.items(phone, params, category))

    def check(self, phone: Phone, params: dict[str, Any], text: str) -> bool:
        return money_matches(text, self._cents(phone, params))

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        return format_money(self._cents(phone, params))


@register_task
class QueryCategoryThisMonth(SpendQuery):
    name = "expenses_query_category_this_month"
    optimal_steps = 4
    months, by_category = (10,), True
    goal_template = "How much did I spend on {category} this month according to the Expenses app?"
    goal_phrasings = (
        "What is my {category} spending so far this month?",
        "Could you check in Expenses how much went to {category} this month?",
        "This month's {category} total in the Expenses app?",
    )

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # a purchase in that category this month, so the answer is never an empty "$0.00"
        name = next(n for n, c in ITEMS if c == params["category"])
        plant(phone, name, 1875, params["category"], TODAY.replace(day=2).isoformat())


@register_task
class QueryMonthTotal(SpendQuery):
    name = "expenses_query_month_total"
    optimal_steps = 6
    goal_template = "What was my total spending in {month} {year}? Use the Expenses app."
    goal_phrasings = (
        "How much did I spend altogether in {month} {year}?",
        "Could you look up in Expenses what I spent in total during {month} {year}?",
        "Expenses total for {month} {year}?",
    )


@register_task
class QueryLargestInMonth(StatsQuery):
    name = "expenses_query_largest_in_month"
    optimal_steps = 6
    goal_template = "What was my most expensive purchase in {month} {year}? Answer with the expense name."
    goal_phrasings = (
        "Which expense was the biggest in {month} {year}? Give its name.",
        "Could you find my largest expense of {month} {year} in the Expenses app and tell me what it was?",
        "Name of the priciest thing I bought in {month} {year}?",
    )

    def _names(self, phone: Phone, params: dict[str, Any]) -> list[str]:
        items = self.items(phone, params)
        top = max(e["amount_cents"] for e in items)
        return [e["name"] for e in items if e["amount_cents"] == top]

    def check(self, phone: Phone, params: dict[str, Any], text: str) -> bool:
        return any(answer_matches(text, n) for n in self._names(phone, params))

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        items = self.items(phone, params)
        return max(items, key=lambda e: (e["amount_cents"], -e["expense_id"]))["name"]


@register_task
class QueryCategoryCount(StatsQuery):
    name = "expenses_query_category_count"
    optimal_steps = 6
    goal_template = "How many {category} expenses did I record in {month} {year}?"
    goal_phrasings = (
        "Count my {category} expenses from {month} {year}.",
        "Could you check in Expenses how many {category} purchases I logged in {month} {year}?",
        "Number of {category} expenses in {month} {year}?",
    )

    def check(self, phone: Phone, params: dict[str, Any], text: str) -> bool:
        n = len(self.items(phone, params, params["category"]))
        return answer_matches(text, str(n)) and len(NUMBER.findall(text)) <= 2

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        return str(len(self.items(phone, params, params["category"])))


@register_task
class QueryTopCategory(StatsQuery):
    name = "expenses_query_top_category"
    optimal_steps = 6
    goal_template = "On which category did I spend the most money in {month} {year}?"
    goal_phrasings = (
        "Which spending category was the largest in {month} {year}?",
        "Could you look at {month} {year} in Expenses and tell me where most of my money went (the category)?",
        "Top expense category for {month} {year}?",
    )

    def _tops(self, phone: Phone, params: dict[str, Any]) -> list[str]:
        by: dict[str, int] = {}
        for e in self.items(phone, params):
            by[e["category"]] = by.get(e["category"], 0) + e["amount_cents"]
        top = max(by.values())
        return sorted(c for c, v in by.items() if v == top)

    def check(self, phone: Phone, params: dict[str, Any], text: str) -> bool:
        # naming every category must not pass: exactly one category name may appear
        named = [c for c in CATEGORIES if answer_matches(text, c)]
        return len(named) == 1 and named[0] in self._tops(phone, params)

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        return self._tops(phone, params)[0]


@register_task
class QueryExpenseAmount(PlantedTemplate):
    name = "expenses_query_amount"
    kind = "query"
    complexity = 1
    optimal_steps = 4
    goal_template = "How much did \"{name}\" cost? Check the Expenses app."
    goal_phrasings = (
        "What did I pay for \"{name}\"?",
        "Could you look up the amount of the \"{name}\" expense?",
        "In Expenses, how much was \"{name}\"?",
    )

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        e = find_expense(phone, params["name"])
        return 1.0 if e is not None and money_matches(answer, e["amount_cents"]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = main_screen(phone, obs)
        if step is not None:
            return step
        e = find_expense(phone, params["name"])
        if e is None:
            return answer("not found")
        if find(obs, text=params["name"], resource_id="expense_item") is None:
            return click_or_scroll(phone, obs, text=params["name"], resource_id="expense_item")
        return answer(format_money(e["amount_cents"]))



# ---- more templates: notes, look-alike names, multi-field edits, reasoning, reading the screen -------
DECOY_SUFFIXES = (" refund", " (Sam's)", " deposit", " 2")
NOTE_CHOICES = ("reimbursable", "split with Sam", "paid in cash", "birthday gift", "work trip", "returned")
# even cents, so half of the amount is exact
EVEN_AMOUNTS = tuple(c for c in (parse_money(a) or 0 for a in AMOUNTS) if c % 2 == 0)


def day_text(d: date) -> str:
    """``date(2024, 10, 3)`` -> ``"October 3, 2024"`` (how goals and answers write a day)."""
    return f"{_month_name(d.month)} {d.day}, {d.year}"


_TIME = re.compile(r"\b\d{1,2}:\d{2}\b")
_DAY_NUM = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\b")
_YEAR = re.compile(r"\b(\d{4})\b")
_SLASHED = re.compile(r"\b(\d{1,2})/(\d{1,2})(?:/(\d{2}|\d{4}))?\b")


def _months_named(text: str) -> set[int]:
    found = set()
    for i, m in enumerate(MONTHS, 1):
        short = m[:3].lower()
        if re.search(rf"\b{short}(?:{m[3:].lower()}|t)?\.?(?!\w)", text):
            found.add(i)
    return found


def date_matches(text: str | None, day: date) -> bool:
    """Whether an answer names ``day``: "October 3, 2024", "Oct 3rd", "2024-10-03" or "10/3/2024".

    Naming a second day or month (hedging) fails; a time of day ("12:30 PM") is ignored.
    """
    if text is None:
        return False
    t = _TIME.sub(" ", text.lower())
    if day.isoformat() in t:
        return True
    slashed = _SLASHED.findall(t)
    if slashed:
        return len(slashed) == 1 and (int(slashed[0][0]), int(slashed[0][1])) == (day.month, day.day) and (
            not slashed[0][2] or int(slashed[0][2]) % 100 == day.year % 100)
    years = {int(y) for y in _YEAR.findall(t)}
    days = {int(d) for d in _DAY_NUM.findall(t)}
    return _months_named(t) == {day.month} and days == {day.day} and years <= {day.year}


def plant_decoy(phone: Phone, params: dict[str, Any]) -> int:
    """The look-alike of the planted expense: same category, another amount, a day earlier."""
    day = (date.fromisoformat(params["day"]) - timedelta(days=1)).isoformat()
    return plant(phone, params["decoy"], parse_money(params["decoy_amount"]) or 0, params["category"], day)


class DecoyTemplate(PlantedTemplate):
    """A planted expense plus a look-alike (``decoy``: its name with a suffix) that must stay untouched."""

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = super().generate_params(rng)
        p.update(decoy=p["name"] + rng.choice(DECOY_SUFFIXES),
                 decoy_amount=dollars(pick_cents(rng, avoid=parse_money(p["amount"]))))
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        plant_decoy(phone, params)
        super().setup(phone, params)


@register_task
class AddNoteToExpense(DecoyTemplate):
    name = "expenses_add_note"
    complexity = 2
    optimal_steps = 6
    goal_template = "Add the note \"{note}\" to the expense \"{name}\" in Expenses."
    goal_phrasings = (
        "Could you put the note \"{note}\" on my \"{name}\" expense?",
        "In the Expenses app, the expense \"{name}\" needs the note \"{note}\".",
        "Note for \"{name}\": \"{note}\".",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = super().generate_params(rng)
        p["note"] = rng.choice(NOTE_CHOICES)
        return p

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        eid, _ = self.target(phone, params)
        if added or removed or len(changed) != 1 or changed[0][0][0] != eid:
            return 0.0
        old, new = changed[0]
        # only the note may differ: a re-typed name, amount, category or date is another change
        ok = old[:4] == new[:4] and old[5] == new[5] and new[4].strip().lower() == params["note"].lower()
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        eid, name = self.target(phone, params)
        return edit_form(phone, obs, eid, name, note=params["note"])


@register_task
class DeleteExpenseOnDate(TaskTemplate):
    name = "expenses_delete_expense_on_date"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 6
    goal_template = ("I have two \"{name}\" expenses in Expenses. Delete only the one dated {day_text} and keep "
                     "the other.")
    goal_phrasings = (
        "Remove the \"{name}\" expense from {day_text}; the other \"{name}\" entry is correct.",
        "Could you delete the {day_text} \"{name}\" in the Expenses app, but not the other one?",
        "Expenses: delete \"{name}\" ({day_text} only).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = pick_item(rng)
        d1, d2 = (TODAY - timedelta(days=d) for d in rng.sample(range(1, 21), 2))
        cents = pick_cents(rng)
        return {"name": name, "category": cat, "amount": dollars(cents),
                "other_amount": dollars(pick_cents(rng, avoid=cents)), "day": d1.isoformat(),
                "day_text": day_text(d1), "other_day": d2.isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM expense WHERE name=?", (params["name"],))
        for amount, day in ((params["amount"], params["day"]), (params["other_amount"], params["other_day"])):
            add_expense(phone, params["name"], parse_money(amount) or 0, params["category"],
                        datetime.fromisoformat(day).replace(hour=12, minute=30))

    def target(self, phone: Phone, params: dict[str, Any]) -> int:
        return next(r[0] for r in baseline_rows(phone, self, params, EXPENSE_SQL)
                    if r[1] == params["name"] and r[5] == params["day"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        ok = not added and not changed and [r[0] for r in removed] == [self.target(phone, params)]
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        eid, cents = self.target(phone, params), parse_money(params["amount"])
        dlg = phone.dialog
        if dlg is not None and dlg.name == "confirm" and phone.foreground == APP \
                and dlg.data.get("args", {}).get("expense_id") == eid:
            return click_in(obs, "dialog", text="Delete", resource_id="button1") or BACK
        return open_expense(phone, obs, eid, params["name"], cents) or click(obs, resource_id="btn_delete") or BACK


@register_task
class EditAmountAndCategory(EditTemplate):
    name = "expenses_edit_amount_and_category"
    complexity = 3
    optimal_steps = 9
    goal_template = ("Fix the expense \"{name}\" in Expenses: it cost ${new_amount} and belongs in the "
                     "{new_category} category.")
    goal_phrasings = (
        "Could you change \"{name}\" to ${new_amount} and move it to {new_category}?",
        "In the Expenses app, set the category of \"{name}\" to {new_category} and its amount to ${new_amount}.",
        "\"{name}\": amount ${new_amount}, category {new_category}.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = super().generate_params(rng)
        p["new_amount"] = dollars(pick_cents(rng, avoid=parse_money(p["amount"])))
        p["new_category"] = rng.choice([c for c in CATEGORIES if c != p["category"]])
        return p

    def change(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"cents": parse_money(params["new_amount"]), "category": params["new_category"]}


@register_task
class SplitExpenseInHalf(EditTemplate):
    name = "expenses_split_expense_in_half"
    complexity = 3
    optimal_steps = 7
    goal_template = ("I split \"{name}\" evenly with a friend who paid me back. Change its amount in Expenses to "
                     "my half of what it shows now.")
    goal_phrasings = (
        "Could you halve the amount of my \"{name}\" expense? A friend covered the other half.",
        "\"{name}\" was shared 50/50: update it in the Expenses app so it only counts my half.",
        "Expenses: cut \"{name}\" to half its current amount.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = pick_item(rng)
        day = TODAY - timedelta(days=rng.randint(0, 25))
        return {"name": name, "category": cat, "amount": dollars(rng.choice(EVEN_AMOUNTS)), "day": day.isoformat()}

    def change(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"cents": (parse_money(params["amount"]) or 0) // 2}


@register_task
class RepeatExpense(PlantedTemplate):
    name = "expenses_repeat_expense"
    complexity = 3
    optimal_steps = 8
    goal_template = ("I bought \"{name}\" again today for the same price as last time. Add it as a new expense "
                     "with the same category.")
    goal_phrasings = (
        "Could you log another \"{name}\" for today in Expenses, same amount and category as the existing one?",
        "Same as before: \"{name}\" again today. Record it in the Expenses app with the old price and category.",
        "Repeat the \"{name}\" expense for today (same price, same category).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = super().generate_params(rng)
        p["day"] = (TODAY - timedelta(days=rng.randint(3, 25))).isoformat()  # never today already
        return p

    def _want(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"name": params["name"], "cents": parse_money(params["amount"]), "category": params["category"],
                "day": TODAY}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        w = self._want(params)
        ok = len(added) == 1 and not removed and not changed and row_is(
            added[0], w["name"], w["cents"], w["category"], w["day"].isoformat())
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return add_form(phone, obs, **self._want(params))


@register_task
class QueryExpenseDate(DecoyTemplate):
    name = "expenses_query_expense_date"
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = "On what date did I buy \"{name}\"? Check the Expenses app."
    goal_phrasings = (
        "When did I log the expense \"{name}\"? Give the date.",
        "Could you find out in Expenses which day \"{name}\" was bought?",
        "Date of the \"{name}\" expense?",
    )

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        e = find_expense(phone, params["name"])
        return 1.0 if e is not None and date_matches(answer, e["date"].date()) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        e = find_expense(phone, params["name"])
        if e is None:
            return answer("not found")
        return open_expense(phone, obs, e["expense_id"], e["name"]) or answer(day_text(e["date"].date()))


@register_task
class QueryDayTotal(TaskTemplate):
    name = "expenses_query_day_total"
    apps = ("Expenses",)
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = "How much did I spend in total on {day_text}? Use the Expenses app."
    goal_phrasings = (
        "What was my total spending on {day_text}?",
        "Could you check in Expenses how much I spent altogether on {day_text}?",
        "Expenses total for {day_text}?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = pick_item(rng)
        day = TODAY - timedelta(days=rng.randint(2, 30))
        return {"day": day.isoformat(), "day_text": day_text(day), "name": name, "category": cat,
                "amount": dollars(pick_cents(rng))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # something on that day, so the answer is read off the list, never "nothing"
        plant(phone, params["name"], parse_money(params["amount"]) or 0, params["category"], params["day"])

    def _cents(self, phone: Phone, params: dict[str, Any]) -> int:
        day = date.fromisoformat(params["day"])
        return sum(e["amount_cents"] for e in expenses(phone) if e["date"].date() == day)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if money_matches(answer, self._cents(phone, params)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = main_screen(phone, obs)
        if step is not None:
            return step
        header = {"text": day_label(date.fromisoformat(params["day"])), "resource_id": "date_header"}
        if find(obs, **header) is None:
            return scroll_toward(phone, obs, **header) or answer(format_money(self._cents(phone, params)))
        return answer(format_money(self._cents(phone, params)))


@register_task
class QueryCategoryShare(StatsQuery):
    name = "expenses_query_category_share"
    optimal_steps = 6
    goal_template = "What percentage of my {month} {year} spending went to {category}? Use the Expenses app."
    goal_phrasings = (
        "How big a share of my {month} {year} expenses was {category}, in percent?",
        "Could you check the Expenses statistics for {month} {year} and tell me the {category} percentage?",
        "{category} share of {month} {year} spending (percent)?",
    )

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # one purchase in that category that month, so the share is never an empty 0%
        name = next(n for n, c in ITEMS if c == params["category"])
        plant(phone, name, 2450, params["category"], date(params["year"], params["month_num"], 12).isoformat())

    def _pct(self, phone: Phone, params: dict[str, Any]) -> int:
        total = sum(e["amount_cents"] for e in self.items(phone, params))
        part = sum(e["amount_cents"] for e in self.items(phone, params, params["category"]))
        return round(100 * part / total) if total else 0  # as the Statistics screen rounds it

    def check(self, phone: Phone, params: dict[str, Any], text: str) -> bool:
        pct = self._pct(phone, params)
        marked = re.findall(r"(\d+(?:\.\d+)?)\s*%", text)  # numbers written as percentages
        if marked:  # every percentage named must be the right one ("12% or 13%" hedges)
            return all(float(n) == pct for n in marked)
        nums = [n.replace(",", "") for n in NUMBER.findall(text)]
        return len(nums) == 1 and float(nums[0]) == pct  # "about 12 percent"

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        return f"{self._pct(phone, params)}%"

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = stats_screen(phone, obs, params["year"], params["month_num"])
        if step is not None:
            return step
        row = {"text": params["category"], "resource_id": "category_total"}
        if find(obs, **row) is None:
            return scroll_toward(phone, obs, **row) or answer(self.expected(phone, params))
        return answer(self.expected(phone, params))


@register_task
class QueryLatestInCategory(TaskTemplate):
    name = "expenses_query_latest_in_category"
    apps = ("Expenses",)
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = "What was my most recent {category} expense? Answer with its name."
    goal_phrasings = (
        "Which {category} purchase did I log last in Expenses? Give the expense name.",
        "Could you filter Expenses by {category} and tell me the name of the newest one?",
        "Latest {category} expense (name)?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        cat = rng.choice(CATEGORIES)
        name = rng.choice([n for n, c in ITEMS if c == cat])
        day = TODAY - timedelta(days=rng.randint(1, 40))
        return {"category": cat, "name": name, "amount": dollars(pick_cents(rng)), "day": day.isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # at least one expense in the category; whether it is the newest depends on the seed
        plant(phone, params["name"], parse_money(params["amount"]) or 0, params["category"], params["day"])

    def _latest(self, phone: Phone, params: dict[str, Any]) -> list[str]:
        """Names in the category, newest first, as the filtered list shows them."""
        return [e["name"] for e in expenses(phone, "c.name = ?", (params["category"],))]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        names = self._latest(phone, params)
        if answer is None or not names or not answer_matches(answer, names[0]):
            return 0.0
        # naming older ones too (hedging) fails, unless that name is part of the right one
        others = {n for n in names[1:] if not answer_matches(names[0], n)}
        return 0.0 if any(answer_matches(answer, n) for n in others) else 1.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        cat = params["category"]
        dlg, scr = phone.dialog, phone.screen
        if phone.foreground == APP and dlg is not None and dlg.name == "choice" and scr is not None \
                and scr.name == "main":
            return click_in(obs, "dialog", text=cat) or BACK
        step = navigate(phone, obs, APP, [("main", None)]) or dismiss_popups(phone)
        if step is not None:
            return step
        assert scr is not None
        if scr.state.get("category") != cat:
            return click(obs, desc="Filter") or BACK
        if scr.scroll.get("list"):
            return Action(action_type="scroll", direction="up")
        names = self._latest(phone, params)
        return answer(names[0] if names else "none")
