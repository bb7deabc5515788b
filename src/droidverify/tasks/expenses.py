"""Expenses app tasks: add / edit / delete expenses and questions about spending.

Checkers diff the ``expense`` table against a *baseline* (a fresh phone of the same seed with the
task's set-up applied), so an extra change to the wrong row, a duplicate or a lost row fails, and
compare money by value ("$42.50" == "42.5"). Oracles act on the current screen.
"""

from __future__ import annotations

import random
import re
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any, ClassVar

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim.apps.expenses import (
    CATEGORIES,
    add_expense,
    expenses,
    format_money,
    month_bounds,
    month_expenses,
    parse_money,
)
from droidverify.env.sim.phone import Phone
from droidverify.env.sim.timeutil import MONTHS, day_label
from droidverify.errors import TaskError
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
    find_all,
    look_first,
    money_matches,
    navigate,
    normalize_answer,
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


_TIME = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\b")
# Amounts are not days: "$45.20", "$12", "45.20", "1,234.56", "12 dollars" (decimals also cover "12.05").
_NUM = r"(?:\d{1,3}(?:,\d{3})+|\d+)"
_AMOUNT = re.compile(rf"[$€£]\s*{_NUM}(?:\.\d+)?|\b{_NUM}\.\d+\b|\b{_NUM}\s*(?:dollars?|usd|eur|cents?)\b")
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

    Naming a second day or month (hedging) fails; a time of day ("12:30 PM") and money amounts
    ("October 9, 2024 ($45.20)") are ignored.
    """
    if text is None:
        return False
    t = _AMOUNT.sub(" ", _TIME.sub(" ", text.lower()))
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


# ---- more kinds of task: bulk and comparative edits, read-then-act, merges, ranges, comparisons ---------
def items_in(category: str) -> list[str]:
    """The planted item names of one category (ITEMS order)."""
    return [n for n, c in ITEMS if c == category]


def row_of(name: str, cents: int) -> dict[str, Any]:
    """Criteria of the list row of one expense (its label ends with the amount)."""
    return {"text": name, "text_contains": f"| {format_money(cents)}", "resource_id": "expense_item"}


def on_screen(phone: Phone, name: str, **args: Any) -> bool:
    """Whether the Expenses app shows screen ``name`` (with these args) and no dialog or menu."""
    scr = phone.screen
    return (phone.foreground == APP and scr is not None and scr.name == name and phone.dialog is None
            and not phone.menu_open and all(scr.args.get(k) == v for k, v in args.items()))


def confirming(phone: Phone, expense_ids: Any) -> bool:
    """Whether the delete-confirmation dialog of one of ``expense_ids`` is open."""
    dlg = phone.dialog
    return phone.foreground == APP and dlg is not None and dlg.name == "confirm" \
        and dlg.data.get("args", {}).get("expense_id") in expense_ids


def filtered_list(phone: Phone, obs: Observation, category: str) -> Action | None:
    """Next action toward the main list filtered by ``category``; None once there."""
    dlg, scr = phone.dialog, phone.screen
    if phone.foreground == APP and dlg is not None and dlg.name == "choice" and scr is not None \
            and scr.name == "main":
        return click_in(obs, "dialog", text=category) or BACK
    step = navigate(phone, obs, APP, [("main", None)]) or dismiss_popups(phone)
    if step is not None:
        return step
    assert scr is not None
    if scr.state.get("category") != category:
        return click(obs, desc="Filter") or BACK
    return None


def same_but(old: tuple, new: tuple, **changed: Any) -> bool:
    """Whether EXPENSE_SQL row ``new`` equals ``old`` except for the named columns, which hold these values."""
    cols = {"name": 1, "cents": 2, "category": 3, "note": 4, "day": 5}
    want = list(old)
    for col, value in changed.items():
        want[cols[col]] = value
    got = list(new)
    got[1], want[1] = got[1].strip(), want[1].strip()
    got[4], want[4] = got[4].strip(), want[4].strip()
    return got == want


@register_task
class RecategorizeAllNamed(TaskTemplate):
    name = "expenses_recategorize_all_named"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 19
    goal_template = ("Every expense named exactly \"{name}\" is in the wrong category. Move all of them to "
                     "{new_category} in Expenses.")
    goal_phrasings = (
        "Could you recategorise each \"{name}\" entry in the Expenses app as {new_category}? Only that exact name.",
        "All my \"{name}\" expenses belong under {new_category}; please fix every one of them.",
        "Expenses: set the category of every \"{name}\" to {new_category}.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = pick_item(rng)
        n = rng.randint(2, 3)
        cents = rng.sample([c for c in (parse_money(a) for a in AMOUNTS) if c is not None], n + 1)
        days = [(TODAY - timedelta(days=d)).isoformat() for d in sorted(rng.sample(range(21), n))]
        return {"name": name, "category": cat, "new_category": rng.choice([c for c in CATEGORIES if c != cat]),
                "amounts": [dollars(c) for c in cents[:n]], "days": days,
                "decoy": name + rng.choice(DECOY_SUFFIXES), "decoy_amount": dollars(cents[n])}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM expense WHERE name IN (?, ?)", (params["name"], params["decoy"]))
        for amount, day in zip(params["amounts"], params["days"]):
            add_expense(phone, params["name"], parse_money(amount) or 0, params["category"],
                        datetime.fromisoformat(day).replace(hour=12, minute=30))
        plant(phone, params["decoy"], parse_money(params["decoy_amount"]) or 0, params["category"],
              params["days"][-1])

    def targets(self, phone: Phone, params: dict[str, Any]) -> set[int]:
        return {r[0] for r in baseline_rows(phone, self, params, EXPENSE_SQL) if r[1] == params["name"]}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        ok = not added and not removed and {old[0] for old, _ in changed} == self.targets(phone, params) and all(
            same_but(old, new, category=params["new_category"]) for old, new in changed)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        ids, new = self.targets(phone, params), params["new_category"]
        scr = phone.screen
        if phone.foreground == APP and scr is not None and scr.name == "edit" and scr.args.get("expense_id") in ids:
            return fill_form(phone, obs, category=new)
        todo = [e for e in expenses(phone, "e.name = ?", (params["name"],))
                if e["expense_id"] in ids and e["category"] != new]
        if not todo:
            return COMPLETE
        if any(on_screen(phone, "detail", expense_id=e["expense_id"]) for e in todo):
            return click(obs, resource_id="btn_edit") or BACK
        e = todo[0]
        return open_expense(phone, obs, e["expense_id"], e["name"], e["amount_cents"]) or \
            click(obs, resource_id="btn_edit") or BACK


@register_task
class MergeTwoEntries(TaskTemplate):
    name = "expenses_merge_two_entries"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 11
    goal_template = ("I paid for \"{name}\" in two parts and logged both. Merge them in Expenses: give the one "
                     "dated {day_text} the total of both amounts and delete the other one.")
    goal_phrasings = (
        ("Could you combine my two \"{name}\" expenses into one? Keep the {day_text} entry with the sum of the "
         "two, and remove the second entry."),
        ("\"{name}\" shows up twice because I paid in two instalments. Make the {day_text} one the full amount "
         "and delete the other."),
        "Expenses: merge the two \"{name}\" entries into the one from {day_text} (amount = both added up).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = pick_item(rng)
        c1 = pick_cents(rng)
        c2 = pick_cents(rng, avoid=c1)
        d1, d2 = (TODAY - timedelta(days=d) for d in rng.sample(range(1, 21), 2))
        return {"name": name, "category": cat, "amount": dollars(c1), "day": d1.isoformat(), "day_text": day_text(d1),
                "other_amount": dollars(c2), "other_day": d2.isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM expense WHERE name=?", (params["name"],))
        for amount, day in ((params["amount"], params["day"]), (params["other_amount"], params["other_day"])):
            add_expense(phone, params["name"], parse_money(amount) or 0, params["category"],
                        datetime.fromisoformat(day).replace(hour=12, minute=30))

    def ids(self, phone: Phone, params: dict[str, Any]) -> tuple[int, int]:
        rows = [r for r in baseline_rows(phone, self, params, EXPENSE_SQL) if r[1] == params["name"]]
        keep = next(r[0] for r in rows if r[5] == params["day"])
        other = next(r[0] for r in rows if r[5] == params["other_day"])
        return keep, other

    def total(self, params: dict[str, Any]) -> int:
        return (parse_money(params["amount"]) or 0) + (parse_money(params["other_amount"]) or 0)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        keep, other = self.ids(phone, params)
        ok = not added and [r[0] for r in removed] == [other] and len(changed) == 1 and changed[0][0][0] == keep \
            and same_but(changed[0][0], changed[0][1], cents=self.total(params))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        keep, other = self.ids(phone, params)
        total, name = self.total(params), params["name"]
        if confirming(phone, (other,)):
            return click_in(obs, "dialog", text="Delete", resource_id="button1") or BACK
        scr = phone.screen
        if phone.foreground == APP and scr is not None and scr.name == "edit" and scr.args.get("expense_id") == keep:
            return fill_form(phone, obs, cents=total)
        rows = {e["expense_id"]: e for e in expenses(phone, "e.name = ?", (name,))}
        if keep in rows and rows[keep]["amount_cents"] != total:
            return open_expense(phone, obs, keep, name, rows[keep]["amount_cents"]) or \
                click(obs, resource_id="btn_edit") or BACK
        if other in rows:
            return open_expense(phone, obs, other, name, rows[other]["amount_cents"]) or \
                click(obs, resource_id="btn_delete") or BACK
        return COMPLETE


FIX_NOTES = ("actual charge was ${real}", "refund applied, paid ${real}", "correct amount: ${real}",
             "receipt says ${real}")


@register_task
class FixAmountFromNote(DecoyTemplate):
    name = "expenses_fix_amount_from_note"
    complexity = 2
    optimal_steps = 8
    goal_template = ("The note on my \"{name}\" expense says what I was really charged. Set its amount to that "
                     "figure and clear the note.")
    goal_phrasings = (
        ("Could you open \"{name}\" in Expenses, change the amount to the one written in its note, and then "
         "delete the note text?"),
        "My \"{name}\" expense has the right price in its note. Put that price in the amount field and empty the note.",
        "Expenses: \"{name}\" amount := the figure in its note; note := empty.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = super().generate_params(rng)
        real = pick_cents(rng, avoid=parse_money(p["amount"]))
        other = pick_cents(rng, avoid=real)
        p.update(real_amount=dollars(real), note=rng.choice(FIX_NOTES).format(real=dollars(real)),
                 decoy_note=rng.choice(FIX_NOTES).format(real=dollars(other)))
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        day = (date.fromisoformat(params["day"]) - timedelta(days=1)).isoformat()
        plant(phone, params["decoy"], parse_money(params["decoy_amount"]) or 0, params["category"], day,
              params["decoy_note"])
        plant(phone, params["name"], parse_money(params["amount"]) or 0, params["category"], params["day"],
              params["note"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        eid, _ = self.target(phone, params)
        ok = not added and not removed and len(changed) == 1 and changed[0][0][0] == eid and same_but(
            changed[0][0], changed[0][1], cents=parse_money(params["real_amount"]), note="")
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        eid, name = self.target(phone, params)
        real = parse_money(params["real_amount"])
        scr = phone.screen
        if phone.foreground == APP and scr is not None and scr.name == "edit" and scr.args.get("expense_id") == eid \
                and phone.dialog is None and parse_money(scr.fields.get("amount", "")) == real \
                and scr.fields.get("note", "").strip():
            i = find(obs, editable=True, resource_id="edt_note")
            return Action(action_type="clear_text", index=i) if i is not None else BACK
        return edit_form(phone, obs, eid, name, cents=real)


@register_task
class DeleteLargestInCategory(TaskTemplate):
    name = "expenses_delete_largest_in_category"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 7
    goal_template = ("My most expensive {category} purchase this month was refunded. Delete that expense from "
                     "Expenses, and nothing else.")
    goal_phrasings = (
        "Could you find the priciest {category} expense of this month in the Expenses app and delete it?",
        "Remove this month's largest {category} expense; I got my money back for it.",
        "Expenses: delete the biggest {category} entry from the current month.",
    )
    CATS: ClassVar[tuple[str, ...]] = tuple(c for c in CATEGORIES if len(items_in(c)) >= 2)

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        cat = rng.choice(self.CATS)
        name, decoy = rng.sample(items_in(cat), 2)
        day = TODAY - timedelta(days=rng.randint(1, 13))
        old = date(2024, 9, rng.randint(3, 28))
        return {"category": cat, "name": name, "amount": rng.choice(("89.90", "120.00", "145.60", "64.00")),
                "day": day.isoformat(), "decoy": decoy, "decoy_amount": rng.choice(("239.00", "265.50", "299.99")),
                "decoy_day": old.isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # a bigger one last month: "largest ever" is not "largest this month"
        plant(phone, params["decoy"], parse_money(params["decoy_amount"]) or 0, params["category"],
              params["decoy_day"])
        plant(phone, params["name"], parse_money(params["amount"]) or 0, params["category"], params["day"])

    def targets(self, phone: Phone, params: dict[str, Any]) -> list[tuple]:
        month = TODAY.isoformat()[:7]
        rows = [r for r in baseline_rows(phone, self, params, EXPENSE_SQL)
                if r[3] == params["category"] and r[5][:7] == month]
        if not rows:  # only for other params than the set-up's (the labelled set's decoy-steered oracle)
            raise TaskError(f"oracle: no {params['category']} expense this month")
        top = max(r[2] for r in rows)
        return [r for r in rows if r[2] == top]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        ok = not added and not changed and len(removed) == 1 and removed[0][0] in {
            r[0] for r in self.targets(phone, params)}
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        row = self.targets(phone, params)[0]
        eid = row[0]
        if confirming(phone, (eid,)):
            return click_in(obs, "dialog", text="Delete", resource_id="button1") or BACK
        if on_screen(phone, "detail", expense_id=eid):
            return click(obs, resource_id="btn_delete") or BACK
        return filtered_list(phone, obs, params["category"]) or click_or_scroll(phone, obs, **row_of(row[1], row[2]))


@register_task
class AddOnSameDayAs(TaskTemplate):
    name = "expenses_add_on_same_day_as"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 14
    goal_template = ("I also bought \"{name}\" for ${amount} ({category}) on the same day as my \"{ref}\" expense. "
                     "Add it to Expenses with that date.")
    goal_phrasings = (
        "Could you log \"{name}\", ${amount}, {category}, dated the same day as the \"{ref}\" expense?",
        ("Add a {category} expense \"{name}\" of ${amount}. It happened on the day I bought \"{ref}\", so use "
         "that date."),
        "Expenses: new \"{name}\" ${amount} ({category}), same date as \"{ref}\".",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (name, cat), (ref, ref_cat) = rng.sample(ITEMS, 2)
        day = TODAY - timedelta(days=rng.randint(3, 40))
        return {"name": name, "amount": dollars(pick_cents(rng)), "category": cat, "ref": ref,
                "ref_category": ref_cat, "ref_amount": dollars(pick_cents(rng)), "ref_day": day.isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM expense WHERE name=?", (params["name"],))
        plant(phone, params["ref"], parse_money(params["ref_amount"]) or 0, params["ref_category"],
              params["ref_day"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        ok = len(added) == 1 and not removed and not changed and row_is(
            added[0], params["name"], parse_money(params["amount"]) or 0, params["category"], params["ref_day"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        scr = phone.screen
        if phone.foreground == APP and scr is not None and scr.name == "edit" and scr.args.get("expense_id") is None:
            return fill_form(phone, obs, name=params["name"], cents=parse_money(params["amount"]),
                             category=params["category"], day=date.fromisoformat(params["ref_day"]))
        step = main_screen(phone, obs)
        if step is not None:
            return step
        ref = {"text": params["ref"], "resource_id": "expense_item"}  # read its day off the list first
        if find(obs, **ref) is None:
            return scroll_toward(phone, obs, **ref) or click(obs, desc="Add expense") or BACK
        return click(obs, desc="Add expense") or BACK


@register_task
class DeleteCategoryOnDay(TaskTemplate):
    name = "expenses_delete_category_on_day"
    apps = ("Expenses",)
    complexity = 2
    optimal_steps = 7
    goal_template = ("Delete all my {category} expenses from {day_text} in Expenses; keep that day's other "
                     "expenses and every other day as they are.")
    goal_phrasings = (
        "Could you remove every {category} entry dated {day_text}? Nothing else should be deleted.",
        "The {category} purchases I logged for {day_text} were all mistakes. Please delete just those.",
        "Expenses: delete {day_text}'s {category} expenses (only that category, only that day).",
    )
    CATS: ClassVar[tuple[str, ...]] = tuple(c for c in CATEGORIES if len(items_in(c)) >= 3)

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        cat = rng.choice(self.CATS)
        names = rng.sample(items_in(cat), 3)
        other, other_cat = rng.choice([(n, c) for n, c in ITEMS if c != cat])
        cents = rng.sample([c for c in (parse_money(a) for a in AMOUNTS) if c is not None], 4)
        day = TODAY - timedelta(days=rng.randint(2, 20))
        return {"category": cat, "day": day.isoformat(), "day_text": day_text(day), "names": names[:2],
                "amounts": [dollars(c) for c in cents[:2]], "neighbour": names[2], "neighbour_amount": dollars(cents[2]),
                "neighbour_day": (day - timedelta(days=rng.choice((-1, 1)))).isoformat(), "other": other,
                "other_category": other_cat, "other_amount": dollars(cents[3])}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        p = params
        plant(phone, p["neighbour"], parse_money(p["neighbour_amount"]) or 0, p["category"], p["neighbour_day"])
        plant(phone, p["other"], parse_money(p["other_amount"]) or 0, p["other_category"], p["day"])
        for name, amount in zip(p["names"], p["amounts"]):
            plant(phone, name, parse_money(amount) or 0, p["category"], p["day"])

    def targets(self, phone: Phone, params: dict[str, Any]) -> set[int]:
        return {r[0] for r in baseline_rows(phone, self, params, EXPENSE_SQL)
                if r[3] == params["category"] and r[5] == params["day"]}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        ok = not added and not changed and {r[0] for r in removed} == self.targets(phone, params) \
            and len(removed) == len(self.targets(phone, params))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        ids = self.targets(phone, params)
        if confirming(phone, ids):
            return click_in(obs, "dialog", text="Delete", resource_id="button1") or BACK
        if any(on_screen(phone, "detail", expense_id=i) for i in ids):
            return click(obs, resource_id="btn_delete") or BACK
        step = main_screen(phone, obs)
        if step is not None:
            return step
        left = [e for e in expenses(phone) if e["expense_id"] in ids]
        if not left:
            return COMPLETE
        # a row told apart by name and amount (prefer one no other expense shares)
        left.sort(key=lambda e: len(expenses(phone, "e.name = ? AND e.amount_cents = ?",
                                             (e["name"], e["amount_cents"]))))
        crit = row_of(left[0]["name"], left[0]["amount_cents"])
        i = find(obs, **crit)
        if i is not None:
            return Action(action_type="long_press", index=i)  # delete straight from the list
        return click_or_scroll(phone, obs, **crit)


@register_task
class SwapAmounts(TaskTemplate):
    name = "expenses_swap_amounts"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 12
    goal_template = ("I mixed up the amounts of \"{name1}\" and \"{name2}\" in Expenses: each shows the other's "
                     "price. Swap their amounts.")
    goal_phrasings = (
        "Could you swap the prices of my \"{name1}\" and \"{name2}\" expenses? I typed them the wrong way round.",
        "\"{name2}\" has the amount that belongs to \"{name1}\" and vice versa. Please exchange them.",
        "Expenses: exchange the amounts of \"{name1}\" and \"{name2}\".",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (n1, c1), (n2, c2) = rng.sample(ITEMS, 2)
        a1 = pick_cents(rng)
        a2 = pick_cents(rng, avoid=a1)
        d1, d2 = (TODAY - timedelta(days=d) for d in rng.sample(range(25), 2))
        return {"name1": n1, "category1": c1, "amount1": dollars(a1), "day1": d1.isoformat(),
                "name2": n2, "category2": c2, "amount2": dollars(a2), "day2": d2.isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i in (1, 2):
            plant(phone, params[f"name{i}"], parse_money(params[f"amount{i}"]) or 0, params[f"category{i}"],
                  params[f"day{i}"])

    def wants(self, phone: Phone, params: dict[str, Any]) -> list[tuple[int, str, int]]:
        """(id, name, wanted cents) of both."""
        base = {r[1]: r[0] for r in baseline_rows(phone, self, params, EXPENSE_SQL)}
        return [(base[params["name1"]], params["name1"], parse_money(params["amount2"]) or 0),
                (base[params["name2"]], params["name2"], parse_money(params["amount1"]) or 0)]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        want = {eid: cents for eid, _, cents in self.wants(phone, params)}
        ok = not added and not removed and len(changed) == 2 and all(
            old[0] in want and same_but(old, new, cents=want[old[0]]) for old, new in changed)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        wants = self.wants(phone, params)
        scr = phone.screen
        for eid, name, cents in wants:
            if phone.foreground == APP and scr is not None and scr.name == "edit" and scr.args.get("expense_id") == eid:
                return fill_form(phone, obs, cents=cents)
        for eid, name, cents in wants:
            e = expenses(phone, "expense_id = ?", (eid,))
            if e and e[0]["amount_cents"] != cents:
                return edit_form(phone, obs, eid, name, cents=cents)
        return COMPLETE


# ---- more queries ---------------------------------------------------------------------------------------
@register_task
class QueryMonthDifference(TaskTemplate):
    name = "expenses_query_month_difference"
    apps = ("Expenses",)
    kind = "query"
    complexity = 2
    optimal_steps = 6
    goal_template = ("What is the difference between my total spending in {month1} {year} and in {month2} {year}? "
                     "Use the Expenses app.")
    goal_phrasings = (
        "By how much did my {month2} {year} spending differ from {month1} {year}?",
        "Could you compare my {month1} and {month2} {year} totals in Expenses and tell me the gap between them?",
        "Spending gap, {month1} {year} vs {month2} {year}?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        m1, m2 = rng.choice(((7, 8), (7, 9), (8, 9)))
        return {"month1": _month_name(m1), "month1_num": m1, "month2": _month_name(m2), "month2_num": m2,
                "year": 2024}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        pass

    def _diff(self, phone: Phone, params: dict[str, Any]) -> int:
        a, b = (sum(e["amount_cents"] for e in month_expenses(phone, params["year"], params[k]))
                for k in ("month1_num", "month2_num"))
        return abs(a - b)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if money_matches(answer, self._diff(phone, params)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        # Statistics opens on this month; going back to the earlier month passes the later one
        return stats_screen(phone, obs, params["year"], params["month1_num"]) or \
            answer(format_money(self._diff(phone, params)))


@register_task
class QueryCategoryAverage(StatsQuery):
    name = "expenses_query_category_average"
    optimal_steps = 6
    goal_template = ("On average, how much did one {category} expense cost me in {month} {year}? Use the "
                     "Expenses app.")
    goal_phrasings = (
        "What was the average amount of my {category} expenses in {month} {year}?",
        "Could you work out from Expenses my mean {category} purchase in {month} {year}?",
        "Average {category} expense, {month} {year}?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        m = rng.choice(self.months)
        cat = rng.choice([c for c in CATEGORIES if len(items_in(c)) >= 2])
        names = rng.sample(items_in(cat), 2)
        return {"month": _month_name(m), "month_num": m, "year": 2024, "category": cat, "names": names,
                "amounts": [dollars(pick_cents(rng)) for _ in names], "days": sorted(rng.sample(range(1, 29), 2))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # two purchases in that category that month, so there is something to average
        for name, amount, d in zip(params["names"], params["amounts"], params["days"]):
            plant(phone, name, parse_money(amount) or 0, params["category"],
                  date(params["year"], params["month_num"], d).isoformat())

    def _sum_count(self, phone: Phone, params: dict[str, Any]) -> tuple[int, int]:
        items = self.items(phone, params, params["category"])
        return sum(e["amount_cents"] for e in items), len(items)

    def check(self, phone: Phone, params: dict[str, Any], text: str) -> bool:
        total, n = self._sum_count(phone, params)
        nums = [n_.replace(",", "") for n_ in NUMBER.findall(text)]
        if not n or not nums or len(nums) > 3:
            return False
        # rounded, truncated or rounded up to the cent (|answer - total / n| under one cent)
        return any(abs(Decimal(x) * 100 * n - total) < n for x in nums)

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        total, n = self._sum_count(phone, params)
        return format_money(int(total / n + 0.5))

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = stats_screen(phone, obs, params["year"], params["month_num"])
        if step is not None:
            return step
        row = {"text": params["category"], "resource_id": "category_total"}
        if find(obs, **row) is None:
            return scroll_toward(phone, obs, **row) or answer(self.expected(phone, params))
        return answer(self.expected(phone, params))


@register_task
class QueryCheapestInCategory(TaskTemplate):
    name = "expenses_query_cheapest_in_category"
    apps = ("Expenses",)
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = "What is the cheapest {category} expense I have logged in Expenses? Answer with its name."
    goal_phrasings = (
        "Which of my {category} expenses cost the least? Give its name.",
        "Could you look through my {category} purchases in the Expenses app and tell me which one was the cheapest?",
        "Lowest-priced {category} expense (name)?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        cat = rng.choice(CATEGORIES)
        day = TODAY - timedelta(days=rng.randint(1, 60))
        return {"category": cat, "name": rng.choice(items_in(cat)), "amount": dollars(pick_cents(rng)),
                "day": day.isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # at least one expense in the category; whether it is the cheapest depends on the seed
        plant(phone, params["name"], parse_money(params["amount"]) or 0, params["category"], params["day"])

    def _ranked(self, phone: Phone, params: dict[str, Any]) -> tuple[list[dict], list[dict]]:
        """(cheapest expenses, the others) in the category, newest first."""
        items = expenses(phone, "c.name = ?", (params["category"],))
        low = min(e["amount_cents"] for e in items)
        return [e for e in items if e["amount_cents"] == low], [e for e in items if e["amount_cents"] != low]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        low, rest = self._ranked(phone, params)
        right = {e["name"] for e in low}
        if answer is None or not any(answer_matches(answer, n) for n in right):
            return 0.0
        # naming pricier ones too (hedging) fails, unless that name is part of a right one
        others = {e["name"] for e in rest} - right
        others = {n for n in others if not any(answer_matches(r, n) for r in right)}
        return 0.0 if any(answer_matches(answer, n) for n in others) else 1.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = filtered_list(phone, obs, params["category"])
        if step is not None:
            return step
        e = self._ranked(phone, params)[0][-1]
        crit = row_of(e["name"], e["amount_cents"])
        if find(obs, **crit) is None:
            return scroll_toward(phone, obs, **crit) or answer(e["name"])
        return answer(e["name"])


@register_task
class QueryWhichCostMore(TaskTemplate):
    name = "expenses_query_which_cost_more"
    apps = ("Expenses",)
    kind = "query"
    complexity = 1
    optimal_steps = 7
    goal_template = "Which cost me more, \"{name1}\" or \"{name2}\"? Check Expenses and answer with the expense name."
    goal_phrasings = (
        "Between \"{name1}\" and \"{name2}\", which expense was pricier?",
        "Could you look up \"{name1}\" and \"{name2}\" in the Expenses app and tell me which was more expensive?",
        "More expensive of \"{name1}\" / \"{name2}\"?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (n1, c1), (n2, c2) = rng.sample(ITEMS, 2)
        a1 = pick_cents(rng)
        a2 = pick_cents(rng, avoid=a1)
        return {"name1": n1, "category1": c1, "amount1": dollars(a1),
                "day1": (TODAY - timedelta(days=rng.randint(0, 10))).isoformat(),
                "name2": n2, "category2": c2, "amount2": dollars(a2),
                "day2": (TODAY - timedelta(days=rng.randint(15, 45))).isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i in (1, 2):
            plant(phone, params[f"name{i}"], parse_money(params[f"amount{i}"]) or 0, params[f"category{i}"],
                  params[f"day{i}"])

    def _ranked(self, phone: Phone, params: dict[str, Any]) -> list[str]:
        """The two names, pricier first (as the app holds them now)."""
        cents = {}
        for i in (1, 2):
            e = find_expense(phone, params[f"name{i}"])
            cents[params[f"name{i}"]] = e["amount_cents"] if e else -1
        return sorted(cents, key=lambda n: -cents[n])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        win, lose = self._ranked(phone, params)
        return 1.0 if answer_matches(answer, win) and not answer_matches(answer, lose) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = main_screen(phone, obs)
        if step is not None:
            return step
        older = {"text": params["name2"], "resource_id": "expense_item"}
        if find(obs, **older) is None:
            return scroll_toward(phone, obs, **older) or answer(self._ranked(phone, params)[0])
        return answer(self._ranked(phone, params)[0])


@register_task
class QuerySpentSince(TaskTemplate):
    name = "expenses_query_spent_since"
    apps = ("Expenses",)
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = "How much have I spent in total since {day_text} (that day included)? Use the Expenses app."
    goal_phrasings = (
        "What do my expenses add up to from {day_text} through today?",
        "Could you add up everything I've logged in Expenses since {day_text}, including that day?",
        "Total spending {day_text} to today?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = pick_item(rng)
        day = TODAY - timedelta(days=rng.randint(5, 30))
        return {"day": day.isoformat(), "day_text": day_text(day), "name": name, "category": cat,
                "amount": dollars(pick_cents(rng))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # something on the first day, so its header marks where the range starts
        plant(phone, params["name"], parse_money(params["amount"]) or 0, params["category"], params["day"])

    def _cents(self, phone: Phone, params: dict[str, Any]) -> int:
        day = date.fromisoformat(params["day"])
        return sum(e["amount_cents"] for e in expenses(phone) if e["date"].date() >= day)

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


# ---- third batch: day moves, receipts, copies, split-offs, replacements, thresholds, day/month comparisons --
SMALL_AMOUNTS = ("4.75", "6.50", "7.30", "8.25", "9.99")
NUMBER_WORDS = {w: i for i, w in enumerate(("zero", "one", "two", "three", "four", "five", "six", "seven"))}
NUMBER_WORDS["none"] = 0
_MONEY_TEXT = re.compile(r"(?:\$\s*\d[\d,]*(?:\.\d+)?|\b\d[\d,]*\.\d{2}\b)")


def window_days(end: date, n: int = 7) -> list[date]:
    """The ``n`` days ending on ``end`` (oldest first)."""
    return [end - timedelta(days=n - 1 - i) for i in range(n)]


def day_totals(phone: Phone, days: list[date]) -> dict[date, int]:
    """Money spent on each of ``days`` (0 for a day without expenses)."""
    totals = dict.fromkeys(days, 0)
    for e in expenses(phone):
        d = e["date"].date()
        if d in totals:
            totals[d] += e["amount_cents"]
    return totals


def list_answer(phone: Phone, obs: Observation, oldest: date | None, text: str, category: str | None = None) -> Action:
    """On the (filtered) main list, scroll until the header of ``oldest`` is on screen, then answer ``text``."""
    step = filtered_list(phone, obs, category) if category else main_screen(phone, obs)
    if step is not None:
        return step
    if oldest is not None:
        header = {"text": day_label(oldest), "resource_id": "date_header"}
        if find(obs, **header) is None:
            return scroll_toward(phone, obs, **header) or answer(text)
    return answer(text)


def delete_rows_action(phone: Phone, obs: Observation, ids: set[int]) -> Action:
    """Next action deleting the expenses ``ids`` one by one (confirm, detail's Delete, or a list long-press)."""
    if confirming(phone, ids):
        return click_in(obs, "dialog", text="Delete", resource_id="button1") or BACK
    if any(on_screen(phone, "detail", expense_id=i) for i in ids):
        return click(obs, resource_id="btn_delete") or BACK
    step = main_screen(phone, obs)
    if step is not None:
        return step
    left = [e for e in expenses(phone) if e["expense_id"] in ids]
    if not left:
        return COMPLETE
    left.sort(key=lambda e: len(expenses(phone, "e.name = ? AND e.amount_cents = ?",
                                         (e["name"], e["amount_cents"]))))
    crit = row_of(left[0]["name"], left[0]["amount_cents"])
    i = find(obs, **crit)
    if i is not None:
        return Action(action_type="long_press", index=i)
    return click_or_scroll(phone, obs, **crit)


@register_task
class MoveDayToDate(TaskTemplate):
    name = "expenses_move_day_to_date"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 22
    goal_template = ("Everything I logged in Expenses for {day_text} actually happened on {new_day_text}. Change "
                     "the date of all of that day's expenses to {new_day_text}.")
    goal_phrasings = (
        "Could you move every expense dated {day_text} to {new_day_text}? I entered that whole day wrong.",
        "All of my {day_text} expenses belong to {new_day_text}; please re-date each one in the Expenses app.",
        "Expenses: {day_text} -> {new_day_text} for every entry of that day.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (n1, c1), (n2, c2) = rng.sample(ITEMS, 2)
        a1 = pick_cents(rng)
        day = TODAY - timedelta(days=rng.randint(3, 20))
        new = day - timedelta(days=rng.randint(1, 6))
        return {"day": day.isoformat(), "day_text": day_text(day), "new_day": new.isoformat(),
                "new_day_text": day_text(new), "names": [n1, n2], "categories": [c1, c2],
                "amounts": [dollars(a1), dollars(pick_cents(rng, avoid=a1))]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for name, cat, amount in zip(params["names"], params["categories"], params["amounts"]):
            plant(phone, name, parse_money(amount) or 0, cat, params["day"])

    def targets(self, phone: Phone, params: dict[str, Any]) -> set[int]:
        return {r[0] for r in baseline_rows(phone, self, params, EXPENSE_SQL) if r[5] == params["day"]}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        ok = not added and not removed and {old[0] for old, _ in changed} == self.targets(phone, params) and all(
            same_but(old, new, day=params["new_day"]) for old, new in changed)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        ids, new = self.targets(phone, params), date.fromisoformat(params["new_day"])
        scr = phone.screen
        if phone.foreground == APP and scr is not None and scr.name == "edit" and scr.args.get("expense_id") in ids:
            return fill_form(phone, obs, day=new)
        todo = [e for e in expenses(phone) if e["expense_id"] in ids and e["date"].date() != new]
        if not todo:
            return COMPLETE
        if any(on_screen(phone, "detail", expense_id=e["expense_id"]) for e in todo):
            return click(obs, resource_id="btn_edit") or BACK
        e = todo[0]
        return open_expense(phone, obs, e["expense_id"], e["name"], e["amount_cents"]) or \
            click(obs, resource_id="btn_edit") or BACK


@register_task
class FixReceiptMismatch(TaskTemplate):
    name = "expenses_fix_receipt_mismatch"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 7
    goal_template = ("My receipt lists \"{name1}\" at ${amount1} and \"{name2}\" at ${amount2}. One of them is "
                     "logged in Expenses with a different amount: fix that one and leave the other alone.")
    goal_phrasings = (
        ("Could you compare my \"{name1}\" and \"{name2}\" expenses with the receipt (${amount1} and ${amount2}) "
         "and correct whichever is wrong?"),
        "Receipt check: \"{name1}\" should be ${amount1}, \"{name2}\" should be ${amount2}. Fix the one that differs.",
        "Expenses: make \"{name1}\" = ${amount1} and \"{name2}\" = ${amount2}; only one of them needs changing.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (n1, c1), (n2, c2) = rng.sample(ITEMS, 2)
        a1 = pick_cents(rng)
        a2 = pick_cents(rng)
        wrong = rng.choice((1, 2))
        logged = pick_cents(rng, avoid=a1 if wrong == 1 else a2)
        d1, d2 = (TODAY - timedelta(days=d) for d in rng.sample(range(12), 2))
        return {"name1": n1, "category1": c1, "amount1": dollars(a1), "day1": d1.isoformat(),
                "name2": n2, "category2": c2, "amount2": dollars(a2), "day2": d2.isoformat(),
                "wrong": wrong, "logged": dollars(logged)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i in (1, 2):
            amount = params["logged"] if params["wrong"] == i else params[f"amount{i}"]
            plant(phone, params[f"name{i}"], parse_money(amount) or 0, params[f"category{i}"], params[f"day{i}"])

    def target(self, phone: Phone, params: dict[str, Any]) -> tuple[int, str, int]:
        """(id, name, receipt cents) of the wrongly logged one."""
        i = params["wrong"]
        eid = next(r[0] for r in baseline_rows(phone, self, params, EXPENSE_SQL) if r[1] == params[f"name{i}"])
        return eid, params[f"name{i}"], parse_money(params[f"amount{i}"]) or 0

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        eid, _, cents = self.target(phone, params)
        ok = not added and not removed and len(changed) == 1 and changed[0][0][0] == eid and same_but(
            changed[0][0], changed[0][1], cents=cents)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        eid, name, cents = self.target(phone, params)
        return edit_form(phone, obs, eid, name, cents=cents)


@register_task
class MatchCategoryOf(TaskTemplate):
    name = "expenses_match_category_of"
    apps = ("Expenses",)
    complexity = 2
    optimal_steps = 7
    goal_template = ("\"{name}\" is filed under the wrong category in Expenses. Put it in the same category as my "
                     "\"{ref}\" expense.")
    goal_phrasings = (
        "Could you give \"{name}\" whatever category \"{ref}\" has?",
        "\"{name}\" should be categorised like \"{ref}\". Please change it in the Expenses app.",
        "Expenses: category of \"{name}\" := category of \"{ref}\".",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (name, _), (ref, ref_cat) = rng.sample(ITEMS, 2)
        wrong = rng.choice([c for c in CATEGORIES if c != ref_cat])
        d1, d2 = (TODAY - timedelta(days=d) for d in rng.sample(range(30), 2))
        return {"name": name, "category": wrong, "amount": dollars(pick_cents(rng)), "day": d1.isoformat(),
                "ref": ref, "ref_category": ref_cat, "ref_amount": dollars(pick_cents(rng)), "ref_day": d2.isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        plant(phone, params["ref"], parse_money(params["ref_amount"]) or 0, params["ref_category"], params["ref_day"])
        plant(phone, params["name"], parse_money(params["amount"]) or 0, params["category"], params["day"])

    def target(self, phone: Phone, params: dict[str, Any]) -> int:
        return next(r[0] for r in baseline_rows(phone, self, params, EXPENSE_SQL) if r[1] == params["name"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        ok = not added and not removed and len(changed) == 1 and changed[0][0][0] == self.target(phone, params) \
            and same_but(changed[0][0], changed[0][1], category=params["ref_category"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return edit_form(phone, obs, self.target(phone, params), params["name"], category=params["ref_category"])


@register_task
class RemoveExtraCopies(TaskTemplate):
    name = "expenses_remove_extra_copies"
    apps = ("Expenses",)
    complexity = 2
    optimal_steps = 5
    goal_template = ("I accidentally saved \"{name}\" {count} times today. Delete the extra copies so exactly one "
                     "of today's remains, and keep my older \"{name}\" from {old_day_text}.")
    goal_phrasings = (
        ("Today's \"{name}\" got logged {count} times in Expenses. Please leave just one of those; the "
         "{old_day_text} \"{name}\" is a real, separate purchase."),
        ("Could you remove the duplicate \"{name}\" entries from today ({count} identical ones) so only one is "
         "left? Don't touch the one from {old_day_text}."),
        ("Expenses: \"{name}\" appears {count} times today; delete all but one of today's copies (not the "
         "{old_day_text} one)."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = pick_item(rng)
        cents = pick_cents(rng)
        old = TODAY - timedelta(days=rng.randint(3, 25))
        return {"name": name, "category": cat, "amount": dollars(cents), "count": rng.choice((2, 3)),
                "old_amount": dollars(pick_cents(rng, avoid=cents)), "old_day": old.isoformat(),
                "old_day_text": day_text(old)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        plant(phone, params["name"], parse_money(params["old_amount"]) or 0, params["category"], params["old_day"])
        for _ in range(params["count"]):
            add_expense(phone, params["name"], parse_money(params["amount"]) or 0, params["category"],
                        datetime.combine(TODAY, datetime.min.time()).replace(hour=9, minute=15))

    def copies(self, phone: Phone, params: dict[str, Any]) -> set[int]:
        return {r[0] for r in baseline_rows(phone, self, params, EXPENSE_SQL)
                if r[1] == params["name"] and r[5] == TODAY.isoformat()}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        ids = {r[0] for r in removed}
        ok = not added and not changed and len(ids) == params["count"] - 1 and ids <= self.copies(phone, params)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        left = {e["expense_id"] for e in expenses(phone) if e["expense_id"] in self.copies(phone, params)}
        if len(left) <= 1:
            return COMPLETE
        return delete_rows_action(phone, obs, left)


@register_task
class SplitOffItem(TaskTemplate):
    name = "expenses_split_off_item"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 17
    goal_template = ("My \"{name}\" expense of ${amount} also included \"{part}\" for ${part_amount}. Take that "
                     "out of \"{name}\" (lower its amount) and log \"{part}\" as its own {part_category} expense "
                     "with the same date.")
    goal_phrasings = (
        ("Could you split \"{part}\" (${part_amount}, {part_category}) out of my ${amount} \"{name}\" expense? "
         "Reduce \"{name}\" by that much and add \"{part}\" on the same day."),
        ("${part_amount} of the ${amount} I logged as \"{name}\" was really \"{part}\". Please record \"{part}\" "
         "separately under {part_category}, dated like \"{name}\", and lower \"{name}\" accordingly."),
        "Expenses: split \"{name}\" (${amount}) into \"{name}\" and \"{part}\" (${part_amount}, {part_category}).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (name, cat), (part, part_cat) = rng.sample(ITEMS, 2)
        cents = rng.choice([c for c in (parse_money(a) or 0 for a in AMOUNTS) if c >= 3600])
        part_cents = rng.choice([c for c in (parse_money(a) or 0 for a in AMOUNTS) if c < cents])
        day = TODAY - timedelta(days=rng.randint(2, 30))
        return {"name": name, "category": cat, "amount": dollars(cents), "day": day.isoformat(), "part": part,
                "part_category": part_cat, "part_amount": dollars(part_cents)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM expense WHERE name=?", (params["part"],))
        plant(phone, params["name"], parse_money(params["amount"]) or 0, params["category"], params["day"])

    def target(self, phone: Phone, params: dict[str, Any]) -> int:
        return next(r[0] for r in baseline_rows(phone, self, params, EXPENSE_SQL) if r[1] == params["name"])

    def rest(self, params: dict[str, Any]) -> int:
        return (parse_money(params["amount"]) or 0) - (parse_money(params["part_amount"]) or 0)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        ok = not removed and len(changed) == 1 and changed[0][0][0] == self.target(phone, params) and same_but(
            changed[0][0], changed[0][1], cents=self.rest(params)) and len(added) == 1 and row_is(
            added[0], params["part"], parse_money(params["part_amount"]) or 0, params["part_category"], params["day"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        eid, rest = self.target(phone, params), self.rest(params)
        scr = phone.screen
        if phone.foreground == APP and scr is not None and scr.name == "edit" and scr.args.get("expense_id") == eid:
            return fill_form(phone, obs, cents=rest)
        e = expenses(phone, "expense_id = ?", (eid,))
        if e and e[0]["amount_cents"] != rest:
            return edit_form(phone, obs, eid, params["name"], cents=rest)
        if find_expense(phone, params["part"]) is None:
            return add_form(phone, obs, name=params["part"], cents=parse_money(params["part_amount"]),
                            category=params["part_category"], day=date.fromisoformat(params["day"]))
        return COMPLETE


@register_task
class DeleteSmallSince(TaskTemplate):
    name = "expenses_delete_small_since"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 6
    goal_template = ("Delete every expense under ${limit} that I logged since {day_text} (that day included). Keep "
                     "the bigger ones and everything older.")
    goal_phrasings = (
        "Could you clear out all expenses below ${limit} from {day_text} onwards in the Expenses app?",
        ("I don't want to track tiny purchases: remove each expense of less than ${limit} dated {day_text} or "
         "later, and nothing else."),
        "Expenses: delete entries < ${limit} from {day_text} to today.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (n1, c1), (n2, c2), (n3, c3), (n4, c4) = rng.sample(ITEMS, 4)
        day = TODAY - timedelta(days=rng.randint(4, 8))
        d1, d2 = (day + timedelta(days=d) for d in rng.sample(range((TODAY - day).days + 1), 2))
        return {"limit": rng.choice(("10.00", "12.00", "15.00")), "day": day.isoformat(), "day_text": day_text(day),
                "small": [[n, c, a, d.isoformat()]
                          for (n, c), a, d in zip(((n1, c1), (n2, c2)), rng.sample(SMALL_AMOUNTS, 2), (d1, d2))],
                "big": [n3, c3, rng.choice(("18.40", "23.99", "36.50")), d2.isoformat()],
                "decoy": [n4, c4, rng.choice(SMALL_AMOUNTS), (day - timedelta(days=rng.randint(1, 3))).isoformat()]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for name, cat, amount, day in (*params["small"], params["big"], params["decoy"]):
            plant(phone, name, parse_money(amount) or 0, cat, day)

    def targets(self, phone: Phone, params: dict[str, Any]) -> set[int]:
        limit = parse_money(params["limit"]) or 0
        return {r[0] for r in baseline_rows(phone, self, params, EXPENSE_SQL) if r[5] >= params["day"] and r[2] < limit}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        ids = [r[0] for r in removed]
        ok = not added and not changed and len(ids) == len(set(ids)) and set(ids) == self.targets(phone, params)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return delete_rows_action(phone, obs, self.targets(phone, params))


@register_task
class ReplaceReturned(TaskTemplate):
    name = "expenses_replace_returned"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 12
    goal_template = ("I returned \"{old}\" and bought \"{new}\" instead today for ${amount} ({category}). Delete the "
                     "\"{old}\" expense and log the new purchase in Expenses.")
    goal_phrasings = (
        ("Could you swap my \"{old}\" expense for today's \"{new}\" (${amount}, {category})? \"{old}\" went back "
         "to the shop."),
        "\"{old}\" was refunded; I got \"{new}\" for ${amount} today instead. Update Expenses: remove the old, add the new ({category}).",
        "Expenses: delete \"{old}\", add \"{new}\" ${amount} {category} for today.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (old, old_cat), (new, cat) = rng.sample(ITEMS, 2)
        old_cents = pick_cents(rng)
        return {"old": old, "old_category": old_cat, "old_amount": dollars(old_cents),
                "old_day": (TODAY - timedelta(days=rng.randint(2, 20))).isoformat(), "new": new, "category": cat,
                "amount": dollars(pick_cents(rng, avoid=old_cents))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM expense WHERE name=?", (params["new"],))
        plant(phone, params["old"], parse_money(params["old_amount"]) or 0, params["old_category"], params["old_day"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        ok = not changed and [r[1] for r in removed] == [params["old"]] and len(added) == 1 and row_is(
            added[0], params["new"], parse_money(params["amount"]) or 0, params["category"], TODAY.isoformat())
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        old = find_expense(phone, params["old"])
        if old is not None:
            return delete_expense_action(phone, obs, old["expense_id"], params["old"])
        if find_expense(phone, params["new"]) is None:
            return add_form(phone, obs, name=params["new"], cents=parse_money(params["amount"]),
                            category=params["category"], day=TODAY)
        return COMPLETE


class WindowQuery(TaskTemplate):
    """A question about the seven days ``start``..``end``, read off the day headers of the main list."""

    apps = ("Expenses",)
    kind = "query"
    complexity = 2

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        end = TODAY - timedelta(days=rng.randint(0, 14))
        days = window_days(end)
        name, cat = pick_item(rng)
        return {"start": days[0].isoformat(), "start_text": day_text(days[0]), "end": end.isoformat(),
                "end_text": day_text(end), "name": name, "category": cat, "amount": dollars(pick_cents(rng)),
                "day": rng.choice(days).isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # one purchase inside the window, so the window is never empty
        plant(phone, params["name"], parse_money(params["amount"]) or 0, params["category"], params["day"])

    def totals(self, phone: Phone, params: dict[str, Any]) -> dict[date, int]:
        return day_totals(phone, window_days(date.fromisoformat(params["end"])))

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        raise NotImplementedError

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        spent = [d for d, v in self.totals(phone, params).items() if v]
        return list_answer(phone, obs, min(spent) if spent else None, self.expected(phone, params))


@register_task
class QueryBiggestDay(WindowQuery):
    name = "expenses_query_biggest_day"
    optimal_steps = 3
    goal_template = "Between {start_text} and {end_text}, on which day did I spend the most in total? Use Expenses."
    goal_phrasings = (
        "Which day from {start_text} to {end_text} had my highest spending? Give the date.",
        "Could you check in the Expenses app which single day between {start_text} and {end_text} cost me the most?",
        "Most expensive day, {start_text} to {end_text}?",
    )

    def tops(self, phone: Phone, params: dict[str, Any]) -> list[date]:
        totals = self.totals(phone, params)
        top = max(totals.values())
        return [d for d, v in totals.items() if v == top]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if answer is None:
            return 0.0
        text = _MONEY_TEXT.sub(" ", answer)  # "Oct 9 ($84.20)": the amount is not a day
        return 1.0 if any(date_matches(text, d) for d in self.tops(phone, params)) else 0.0

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        return day_text(self.tops(phone, params)[0])


@register_task
class QueryDaysWithoutSpending(WindowQuery):
    name = "expenses_query_days_without_spending"
    optimal_steps = 3
    goal_template = ("On how many days from {start_text} to {end_text} (both included) did I log no expenses at "
                     "all? Use the Expenses app.")
    goal_phrasings = (
        "How many of the days between {start_text} and {end_text} had zero spending in Expenses?",
        "Could you count the days from {start_text} through {end_text} on which I spent nothing?",
        "No-spend days, {start_text} to {end_text} (count)?",
    )

    def count(self, phone: Phone, params: dict[str, Any]) -> int:
        return sum(1 for v in self.totals(phone, params).values() if not v)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if answer is None:
            return 0.0
        nums = [int(x) for x in NUMBER.findall(_TIME.sub(" ", answer)) if x.isdigit()]
        if not nums:  # "none", "two days"
            nums = [NUMBER_WORDS[w] for w in re.findall(r"[a-z]+", answer.lower()) if w in NUMBER_WORDS]
        return 1.0 if len(set(nums)) == 1 and nums[0] == self.count(phone, params) else 0.0

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        return str(self.count(phone, params))


@register_task
class QueryItemTotal(TaskTemplate):
    name = "expenses_query_item_total"
    apps = ("Expenses",)
    kind = "query"
    complexity = 2
    optimal_steps = 6
    goal_template = ("How much have I spent on \"{name}\" altogether? Add up every expense named \"{name}\" in "
                     "Expenses.")
    goal_phrasings = (
        "What do all my \"{name}\" expenses come to in total?",
        "Could you sum up every \"{name}\" entry in the Expenses app for me?",
        "Total of all \"{name}\" expenses (exact name)?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = pick_item(rng)
        n = rng.randint(2, 3)
        days = [(TODAY - timedelta(days=d)).isoformat() for d in sorted(rng.sample(range(1, 70), n + 1))]
        return {"name": name, "category": cat, "amounts": [dollars(pick_cents(rng)) for _ in range(n)],
                "days": days[:n], "decoy": name + rng.choice(DECOY_SUFFIXES), "decoy_amount": dollars(pick_cents(rng)),
                "decoy_day": days[n]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM expense WHERE name IN (?, ?)", (params["name"], params["decoy"]))
        for amount, day in zip(params["amounts"], params["days"]):
            add_expense(phone, params["name"], parse_money(amount) or 0, params["category"],
                        datetime.fromisoformat(day).replace(hour=12, minute=30))
        plant(phone, params["decoy"], parse_money(params["decoy_amount"]) or 0, params["category"],
              params["decoy_day"])

    def _items(self, phone: Phone, params: dict[str, Any]) -> list[dict]:
        return expenses(phone, "e.name = ?", (params["name"],))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        items = self._items(phone, params)
        ok = bool(items) and money_matches(answer, sum(e["amount_cents"] for e in items))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        items = self._items(phone, params)
        total = format_money(sum(e["amount_cents"] for e in items))
        if not items:
            return answer(total)
        return list_answer(phone, obs, items[-1]["date"].date(), total, params["category"])


@register_task
class QueryPeakMonthForCategory(TaskTemplate):
    name = "expenses_query_peak_month_for_category"
    apps = ("Expenses",)
    kind = "query"
    complexity = 3
    optimal_steps = 7
    goal_template = ("Since July 2024, in which month did I spend the most on {category}? Answer with the month "
                     "name; use the Expenses app.")
    goal_phrasings = (
        "Which month from July 2024 until now had my highest {category} spending?",
        "Could you compare my {category} totals month by month in Expenses (July 2024 onwards) and tell me the top month?",
        "Peak {category} month since July 2024?",
    )
    MONTHS_ASKED: ClassVar[tuple[int, ...]] = (7, 8, 9, 10)

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        cat = rng.choice(CATEGORIES)
        m = rng.choice(self.MONTHS_ASKED)
        return {"category": cat, "name": rng.choice(items_in(cat)), "amount": dollars(pick_cents(rng)),
                "day": date(2024, m, rng.randint(1, 15)).isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # one purchase in the category, so it has a month with spending
        plant(phone, params["name"], parse_money(params["amount"]) or 0, params["category"], params["day"])

    def tops(self, phone: Phone, params: dict[str, Any]) -> list[int]:
        by = {m: sum(e["amount_cents"] for e in month_expenses(phone, 2024, m, params["category"]))
              for m in self.MONTHS_ASKED}
        top = max(by.values())
        return [m for m, v in by.items() if v == top]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if answer is None:
            return 0.0
        named = _months_named(_MONEY_TEXT.sub(" ", answer.lower()))
        return 1.0 if len(named) == 1 and named <= set(self.tops(phone, params)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        # Statistics opens on this month; paging back to July passes every month asked about
        step = stats_screen(phone, obs, 2024, self.MONTHS_ASKED[0])
        return step or answer(_month_name(self.tops(phone, params)[0]))


@register_task
class QueryCountOverAmount(TaskTemplate):
    name = "expenses_query_count_over_amount"
    apps = ("Expenses",)
    kind = "query"
    complexity = 2
    optimal_steps = 3
    goal_template = "How many of my expenses this month cost more than ${limit}? Check the Expenses app."
    goal_phrasings = (
        "Count this month's expenses above ${limit}.",
        "Could you look through Expenses and tell me how many purchases this month were over ${limit}?",
        "Number of expenses > ${limit} this month?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = pick_item(rng)
        limit = rng.choice(("20.00", "30.00", "40.00", "50.00"))
        return {"limit": limit, "name": name, "category": cat, "amount": rng.choice(("57.25", "64.00", "89.90")),
                "day": TODAY.replace(day=rng.randint(1, 14)).isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # one big purchase this month, so the count is never zero
        plant(phone, params["name"], parse_money(params["amount"]) or 0, params["category"], params["day"])

    def _items(self, phone: Phone) -> list[dict]:
        return month_expenses(phone, TODAY.year, TODAY.month)

    def _count(self, phone: Phone, params: dict[str, Any]) -> int:
        limit = parse_money(params["limit"]) or 0
        return sum(1 for e in self._items(phone) if e["amount_cents"] > limit)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if answer is None:
            return 0.0
        nums = [n for n in NUMBER.findall(_MONEY_TEXT.sub(" ", answer))]
        n = str(self._count(phone, params))
        return 1.0 if len(nums) == 1 and nums[0] == n else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        items = self._items(phone)
        oldest = items[-1]["date"].date() if items else None
        return list_answer(phone, obs, oldest, str(self._count(phone, params)))


# ---- fourth batch: conditional and partly-done edits, odd-one-out fixes, property targets, bulk edits by note,
# ---- derived dates and amounts, yes/no, ranking, day gaps and list neighbours --------------------------------
OVER_NOTE, UNDER_NOTE = "over budget", "within budget"
BUDGETS = ("40.00", "60.00", "80.00", "100.00", "120.00", "150.00", "200.00")
TAG_NOTES = {"reimbursable": "not reimbursable", "client visit": "client visit cancelled",
             "work trip": "work trip snacks", "tax deductible": "not tax deductible"}
SET_ASIDE = ("Savings transfer", "Emergency fund", "Charity pledge")


def on_edit(phone: Phone, expense_id: int | None) -> bool:
    """Whether the add/edit form of ``expense_id`` (None: a new expense) is the top screen of Expenses."""
    scr = phone.screen
    return phone.foreground == APP and scr is not None and scr.name == "edit" \
        and scr.args.get("expense_id") == expense_id


def edit_row_action(phone: Phone, obs: Observation, expense_id: int, via: str | None = None,
                    **want: Any) -> Action:
    """Next action editing one expense toward ``want`` (fill_form's keys), reaching it through the list
    (filtered by the category ``via`` when given) told apart by name and amount."""
    if on_edit(phone, expense_id):
        return fill_form(phone, obs, **want)
    if on_screen(phone, "detail", expense_id=expense_id):
        return click(obs, resource_id="btn_edit") or BACK
    rows = expenses(phone, "expense_id = ?", (expense_id,))
    if not rows:
        raise TaskError(f"oracle: expense {expense_id} is gone")
    e = rows[0]
    if via is not None:
        if phone.foreground == APP and phone.screen is not None and phone.screen.name != "main" \
                and phone.dialog is None:
            return BACK
        step = filtered_list(phone, obs, via)
        if step is not None:
            return step
        return click_or_scroll(phone, obs, **row_of(e["name"], e["amount_cents"]))
    return open_expense(phone, obs, expense_id, e["name"], e["amount_cents"]) or \
        click(obs, resource_id="btn_edit") or BACK


_DATE_TEXT = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?"
                        r"(?:,?\s+\d{4})?|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b", re.IGNORECASE)


def answer_numbers(text: str) -> list[str]:
    """The plain numbers of an answer, dates ("Oct 3", "2024-10-03"), money amounts and times of day left out."""
    text = _DATE_TEXT.sub(" ", _TIME.sub(" ", text))
    return [n.replace(",", "") for n in NUMBER.findall(_MONEY_TEXT.sub(" ", text))]


@register_task
class NoteByBudget(TaskTemplate):
    name = "expenses_note_by_budget"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 8
    goal_template = ("Check my {category} spending this month in Expenses. If it is more than ${budget}, add the "
                     "note \"over budget\" to my \"{name}\" expense; otherwise give it the note \"within budget\".")
    goal_phrasings = (
        ("Have I spent over ${budget} on {category} this month? Depending on that, note my \"{name}\" expense as "
         "\"over budget\" or \"within budget\" in the Expenses app."),
        ("Budget check for {category}, this month's limit ${budget}: if I went past it, put \"over budget\" in the "
         "note of \"{name}\", else put \"within budget\" there."),
        "Expenses: note on \"{name}\" := \"over budget\" if this month's {category} total > ${budget}, else \"within budget\".",
    )
    CATS: ClassVar[tuple[str, ...]] = tuple(c for c in CATEGORIES if items_in(c))

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        cat = rng.choice(self.CATS)
        day = TODAY.replace(day=rng.randint(1, TODAY.day))
        return {"category": cat, "name": rng.choice(items_in(cat)), "amount": dollars(pick_cents(rng)),
                "day": day.isoformat(), "budget": rng.choice(BUDGETS)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        plant(phone, params["name"], parse_money(params["amount"]) or 0, params["category"], params["day"])

    def target(self, phone: Phone, params: dict[str, Any]) -> tuple[int, str]:
        """(id, wanted note) from the starting rows: this month's total in the category against the budget."""
        rows = baseline_rows(phone, self, params, EXPENSE_SQL)
        month = TODAY.isoformat()[:7]
        total = sum(r[2] for r in rows if r[3] == params["category"] and r[5][:7] == month)
        eid = next((r[0] for r in rows if r[1] == params["name"]), None)
        if eid is None:
            raise TaskError(f"oracle: no expense named {params['name']!r}")
        return eid, OVER_NOTE if total > (parse_money(params["budget"]) or 0) else UNDER_NOTE

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        eid, note = self.target(phone, params)
        ok = not added and not removed and len(changed) == 1 and changed[0][0][0] == eid and same_but(
            changed[0][0], changed[0][1], note=note)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        eid, note = self.target(phone, params)
        # the filtered list shows this month's total for the category on its summary card
        return edit_row_action(phone, obs, eid, via=params["category"], note=note)


@register_task
class FixOddCategoryOut(TaskTemplate):
    name = "expenses_fix_odd_category_out"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 8
    goal_template = ("All my \"{name}\" expenses should be in one category, but one of them was filed differently "
                     "from the rest. Move that one to the category the others share.")
    goal_phrasings = (
        "Could you find the \"{name}\" entry in Expenses whose category doesn't match the other \"{name}\" entries, and fix it?",
        "One \"{name}\" expense is the odd one out category-wise. Give it the same category as my other \"{name}\" expenses.",
        "Expenses: make every \"{name}\" share the category most of them already have (only one needs fixing).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = pick_item(rng)
        wrong = rng.choice([c for c in CATEGORIES if c != cat])
        cents = rng.sample([c for c in (parse_money(a) for a in AMOUNTS) if c is not None], 4)
        days = [(TODAY - timedelta(days=d)).isoformat() for d in sorted(rng.sample(range(1, 25), 3))]
        return {"name": name, "category": cat, "wrong_category": wrong, "amounts": [dollars(c) for c in cents[:3]],
                "days": days, "odd": rng.randrange(3), "lookalike": name + rng.choice(DECOY_SUFFIXES),
                "lookalike_amount": dollars(cents[3])}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM expense WHERE name IN (?, ?)", (params["name"], params["lookalike"]))
        for i, (amount, day) in enumerate(zip(params["amounts"], params["days"])):
            cat = params["wrong_category"] if i == params["odd"] else params["category"]
            add_expense(phone, params["name"], parse_money(amount) or 0, cat,
                        datetime.fromisoformat(day).replace(hour=12, minute=30))
        # a look-alike filed like the odd one: it is not a "{name}" and stays where it is
        plant(phone, params["lookalike"], parse_money(params["lookalike_amount"]) or 0, params["wrong_category"],
              params["days"][params["odd"]])

    def target(self, phone: Phone, params: dict[str, Any]) -> int:
        rows = [r for r in baseline_rows(phone, self, params, EXPENSE_SQL) if r[1] == params["name"]]
        odd = [r[0] for r in rows if r[3] != params["category"]]
        if len(odd) != 1:
            raise TaskError(f"oracle: no single odd {params['name']!r}")
        return odd[0]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        ok = not added and not removed and len(changed) == 1 and changed[0][0][0] == self.target(phone, params) \
            and same_but(changed[0][0], changed[0][1], category=params["category"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return edit_row_action(phone, obs, self.target(phone, params), category=params["category"])


@register_task
class LogMissingReceipts(TaskTemplate):
    name = "expenses_log_missing_receipts"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 12
    goal_template = ("I'm entering today's receipts: \"{name1}\" ${amount1} ({category1}), \"{name2}\" ${amount2} "
                     "({category2}) and \"{name3}\" ${amount3} ({category3}). Some are already in Expenses for today; "
                     "add only the missing ones so each is logged once for today.")
    goal_phrasings = (
        ("Make sure today's \"{name1}\" (${amount1}, {category1}), \"{name2}\" (${amount2}, {category2}) and "
         "\"{name3}\" (${amount3}, {category3}) are each in Expenses exactly once. I logged some of them already."),
        ("Could you finish logging today's purchases? \"{name1}\" ${amount1} {category1}, \"{name2}\" ${amount2} "
         "{category2}, \"{name3}\" ${amount3} {category3}. Don't add the ones that are already there for today."),
        ("Expenses, today: \"{name1}\" ${amount1} ({category1}); \"{name2}\" ${amount2} ({category2}); \"{name3}\" "
         "${amount3} ({category3}). Add whichever are missing, no duplicates."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        items = rng.sample(ITEMS, 3)
        p: dict[str, Any] = {}
        for i, (n, c) in enumerate(items, 1):
            p.update({f"name{i}": n, f"category{i}": c, f"amount{i}": dollars(pick_cents(rng))})
        logged = sorted(rng.sample((1, 2, 3), rng.choice((1, 2))))
        missing = [i for i in (1, 2, 3) if i not in logged]
        old = TODAY - timedelta(days=rng.randint(2, 12))
        # one of the missing ones was also bought on an older day: that entry is not today's
        p.update(logged=logged, older=rng.choice(missing), older_day=old.isoformat())
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM expense WHERE name IN (?, ?, ?)", tuple(params[f"name{i}"] for i in (1, 2, 3)))
        i = params["older"]
        add_expense(phone, params[f"name{i}"], parse_money(params[f"amount{i}"]) or 0, params[f"category{i}"],
                    datetime.fromisoformat(params["older_day"]).replace(hour=12, minute=30))
        for i in params["logged"]:
            add_expense(phone, params[f"name{i}"], parse_money(params[f"amount{i}"]) or 0, params[f"category{i}"],
                        datetime.combine(TODAY, datetime.min.time()).replace(hour=8, minute=40))

    def wants(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"name": params[f"name{i}"], "cents": parse_money(params[f"amount{i}"]),
                 "category": params[f"category{i}"], "day": TODAY} for i in (1, 2, 3) if i not in params["logged"]]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        wants = self.wants(params)
        ok = not removed and not changed and len(added) == len(wants) and all(
            sum(row_is(r, w["name"], w["cents"], w["category"], TODAY.isoformat()) for r in added) == 1
            for w in wants)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        for w in self.wants(params):
            today = [e for e in expenses(phone, "e.name = ?", (w["name"],)) if e["date"].date() == TODAY]
            if not today:
                return add_form(phone, obs, **w)
        return COMPLETE


@register_task
class NoteOldestInCategory(TaskTemplate):
    name = "expenses_note_oldest_in_category"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 9
    goal_template = "Add the note \"{note}\" to my oldest {category} expense in Expenses (the earliest one in that category)."
    goal_phrasings = (
        "Could you find the very first {category} expense I logged and put the note \"{note}\" on it?",
        "My earliest {category} purchase in the Expenses app needs the note \"{note}\".",
        "Expenses: note \"{note}\" on the oldest {category} entry.",
    )
    OLDEST_SQL: ClassVar[str] = ("SELECT e.expense_id, e.created_date FROM expense e JOIN category c USING(category_id) "
                                 "WHERE c.name = ? ORDER BY e.created_date, e.expense_id")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        cat = rng.choice([c for c in CATEGORIES if items_in(c)])
        day = TODAY - timedelta(days=rng.randint(0, 10))
        return {"category": cat, "name": rng.choice(items_in(cat)), "amount": dollars(pick_cents(rng)),
                "day": day.isoformat(), "note": rng.choice(("checked", "first one", "keep receipt", "audited"))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # a recent one in the category (its newest): the list opens on it, the oldest is at the bottom
        plant(phone, params["name"], parse_money(params["amount"]) or 0, params["category"], params["day"])

    def targets(self, phone: Phone, params: dict[str, Any]) -> set[int]:
        sql = self.OLDEST_SQL.replace("?", "'" + params["category"].replace("'", "''") + "'")
        rows = baseline_rows(phone, self, params, sql)
        if not rows:
            raise TaskError(f"oracle: no {params['category']} expense")
        return {r[0] for r in rows if r[1] == rows[0][1]}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        ok = not added and not removed and len(changed) == 1 and changed[0][0][0] in self.targets(phone, params) \
            and same_but(changed[0][0], changed[0][1], note=params["note"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        eid = min(self.targets(phone, params))
        return edit_row_action(phone, obs, eid, via=params["category"], note=params["note"])


@register_task
class RedateDaysAfter(TaskTemplate):
    name = "expenses_redate_days_after"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 12
    goal_template = ("\"{name}\" has the wrong date in Expenses: I paid it {n} days after my \"{ref}\" purchase. Change "
                     "its date to {n} days after the date of \"{ref}\".")
    goal_phrasings = (
        "Could you re-date my \"{name}\" expense so it falls {n} days after the day of my \"{ref}\" expense?",
        "I bought \"{name}\" {n} days later than \"{ref}\". Look up when \"{ref}\" was and fix the date of \"{name}\" to match.",
        "Expenses: date of \"{name}\" := date of \"{ref}\" + {n} days.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (name, cat), (ref, ref_cat) = rng.sample(ITEMS, 2)
        n = rng.randint(2, 9)
        ref_day = TODAY - timedelta(days=rng.randint(n + 1, 40))
        new = ref_day + timedelta(days=n)
        wrong = rng.choice([new - timedelta(days=k) for k in (1, 2, 3)] + [ref_day, new + timedelta(days=1)])
        return {"name": name, "category": cat, "amount": dollars(pick_cents(rng)), "day": wrong.isoformat(),
                "ref": ref, "ref_category": ref_cat, "ref_amount": dollars(pick_cents(rng)),
                "ref_day": ref_day.isoformat(), "n": n}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        plant(phone, params["ref"], parse_money(params["ref_amount"]) or 0, params["ref_category"], params["ref_day"])
        plant(phone, params["name"], parse_money(params["amount"]) or 0, params["category"], params["day"])

    def new_day(self, params: dict[str, Any]) -> date:
        return date.fromisoformat(params["ref_day"]) + timedelta(days=int(params["n"]))

    def target(self, phone: Phone, params: dict[str, Any]) -> int:
        eid = next((r[0] for r in baseline_rows(phone, self, params, EXPENSE_SQL) if r[1] == params["name"]), None)
        if eid is None:
            raise TaskError(f"oracle: no expense named {params['name']!r}")
        return eid

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        ok = not added and not removed and len(changed) == 1 and changed[0][0][0] == self.target(phone, params) \
            and same_but(changed[0][0], changed[0][1], day=self.new_day(params).isoformat())
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        eid = self.target(phone, params)
        ref = find_expense(phone, params["ref"])
        if ref is not None and not on_edit(phone, eid):
            # read the reference's date on its detail screen first
            step = look_first(phone, f"expenses ref {ref['expense_id']}",
                              lambda: open_expense(phone, obs, ref["expense_id"], params["ref"]))
            if step is not None:
                return step
        return edit_row_action(phone, obs, eid, day=self.new_day(params))


@register_task
class AddPercentOfMonth(TaskTemplate):
    name = "expenses_add_percent_of_month"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 12
    goal_template = ("I set aside {percent}% of what I spent in {month} {year}. Log that in Expenses as \"{name}\" "
                     "({category}) for today, for {percent}% of my {month} {year} total, rounded to the cent.")
    goal_phrasings = (
        ("Could you add an expense \"{name}\" under {category}, dated today, worth {percent}% of my total "
         "{month} {year} spending (to the cent)?"),
        ("Work out {percent}% of everything I spent in {month} {year} according to Expenses, and record it as "
         "today's \"{name}\" ({category})."),
        "Expenses: new \"{name}\" ({category}) today = {percent}% of the {month} {year} total, rounded to cents.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        m = rng.choice((7, 8, 9))
        return {"name": rng.choice(SET_ASIDE), "category": "Other", "percent": rng.choice((5, 10, 15, 20)),
                "month": _month_name(m), "month_num": m, "year": 2024}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM expense WHERE name=?", (params["name"],))

    def allowed(self, phone: Phone, params: dict[str, Any]) -> set[int]:
        """Cents accepted: the share rounded half up or cut down to the cent (of the starting total)."""
        month = f"{params['year']}-{params['month_num']:02d}"
        total = sum(r[2] for r in baseline_rows(phone, self, params, EXPENSE_SQL) if r[5][:7] == month)
        exact = Decimal(total) * int(params["percent"]) / 100
        return {int(exact), int(exact + Decimal("0.5"))}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        ok = len(added) == 1 and not removed and not changed and added[0][2] in self.allowed(phone, params) \
            and row_is(added[0], params["name"], added[0][2], params["category"], TODAY.isoformat())
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if not on_edit(phone, None):
            # read the month's total on the Statistics screen first
            step = look_first(phone, f"expenses stats {params['year']}-{params['month_num']}",
                              lambda: stats_screen(phone, obs, params["year"], params["month_num"]))
            if step is not None:
                return step
        cents = max(self.allowed(phone, params))
        return add_form(phone, obs, name=params["name"], cents=cents, category=params["category"], day=TODAY)


@register_task
class DeletePricierTwin(TaskTemplate):
    name = "expenses_delete_pricier_twin"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 5
    goal_template = ("On {day_text} I logged \"{name}\" twice with different amounts; only the cheaper one is right. "
                     "Delete the more expensive of those two and keep every other \"{name}\".")
    goal_phrasings = (
        "There are two \"{name}\" entries dated {day_text}. Remove the pricier one; the cheaper one is correct.",
        ("Could you delete the higher of the two \"{name}\" amounts from {day_text} in Expenses? Other days' "
         "\"{name}\" entries stay."),
        "Expenses: of the two \"{name}\" on {day_text}, delete the more expensive one.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = pick_item(rng)
        pool = sorted(c for c in (parse_money(a) for a in AMOUNTS) if c is not None)
        low, high, top = sorted(rng.sample(pool, 3))
        day = TODAY - timedelta(days=rng.randint(1, 20))
        other = day - timedelta(days=rng.randint(1, 6))
        # the pricier of the day first or second on the list (same time of day: the newer row is on top)
        return {"name": name, "category": cat, "day": day.isoformat(), "day_text": day_text(day),
                "amounts": [dollars(c) for c in rng.sample([low, high], 2)], "other_day": other.isoformat(),
                "other_amount": dollars(top)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM expense WHERE name=?", (params["name"],))
        add_expense(phone, params["name"], parse_money(params["other_amount"]) or 0, params["category"],
                    datetime.fromisoformat(params["other_day"]).replace(hour=12, minute=30))
        for amount in params["amounts"]:
            add_expense(phone, params["name"], parse_money(amount) or 0, params["category"],
                        datetime.fromisoformat(params["day"]).replace(hour=12, minute=30))

    def target(self, phone: Phone, params: dict[str, Any]) -> int:
        rows = [r for r in baseline_rows(phone, self, params, EXPENSE_SQL)
                if r[1] == params["name"] and r[5] == params["day"]]
        if len(rows) != 2 or rows[0][2] == rows[1][2]:
            raise TaskError(f"oracle: no two {params['name']!r} of different amounts on {params['day']}")
        return max(rows, key=lambda r: r[2])[0]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        ok = not added and not changed and [r[0] for r in removed] == [self.target(phone, params)]
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return delete_rows_action(phone, obs, {self.target(phone, params)})


@register_task
class RecategorizeByNote(TaskTemplate):
    name = "expenses_recategorize_by_note"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 14
    goal_template = ("Every expense whose note is exactly \"{note}\" belongs in {new_category}. Move each of them to "
                     "{new_category} in Expenses and leave everything else alone.")
    goal_phrasings = (
        "Could you go through Expenses and put every entry with the note \"{note}\" into the {new_category} category?",
        ("All the expenses I noted as \"{note}\" should be filed under {new_category}. Please recategorise just "
         "those (notes that only look similar don't count)."),
        "Expenses: category := {new_category} for each expense with the note \"{note}\".",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        note = rng.choice(sorted(TAG_NOTES))
        new = rng.choice(("Bills", "Other", "Education", "Health"))
        pool = [(n, c) for n, c in ITEMS if c != new]
        picked = rng.sample(pool, 3)
        cents = rng.sample([c for c in (parse_money(a) for a in AMOUNTS) if c is not None], 3)
        days = [(TODAY - timedelta(days=d)).isoformat() for d in sorted(rng.sample(range(21), 3))]
        rows = [[n, c, dollars(a), d] for (n, c), a, d in zip(picked, cents, days)]
        return {"note": note, "new_category": new, "tagged": rows[:2], "similar": rows[2],
                "similar_note": TAG_NOTES[note]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for name, cat, amount, day in params["tagged"]:
            plant(phone, name, parse_money(amount) or 0, cat, day, params["note"])
        name, cat, amount, day = params["similar"]
        plant(phone, name, parse_money(amount) or 0, cat, day, params["similar_note"])

    def targets(self, phone: Phone, params: dict[str, Any]) -> set[int]:
        return {r[0] for r in baseline_rows(phone, self, params, EXPENSE_SQL) if r[4] == params["note"]}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        want = self.targets(phone, params)
        ok = not added and not removed and {old[0] for old, _ in changed} == want and len(changed) == len(want) \
            and all(same_but(old, new, category=params["new_category"]) for old, new in changed)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        ids, new = self.targets(phone, params), params["new_category"]
        for eid in ids:
            if on_edit(phone, eid):
                return fill_form(phone, obs, category=new)
        todo = sorted(e["expense_id"] for e in expenses(phone) if e["expense_id"] in ids and e["category"] != new)
        if not todo:
            return COMPLETE
        for eid in todo:
            if on_screen(phone, "detail", expense_id=eid):
                return click(obs, resource_id="btn_edit") or BACK
        return edit_row_action(phone, obs, todo[0], category=new)


# ---- fourth batch: questions (yes/no, ranking, a day count, a list neighbour) ---------------------------------
YES_NO = re.compile(r"\b(yes|no|yeah|yep|nope|not)\b")


def yes_no(text: str | None) -> bool | None:
    """True for a plain yes, False for a plain no, None when the answer says neither or both."""
    if text is None:
        return None
    words = set(YES_NO.findall(text.lower()))
    yes, no = bool(words & {"yes", "yeah", "yep"}), bool(words & {"no", "nope", "not"})
    return None if yes == no else yes


@register_task
class QueryLoggedOnDay(TaskTemplate):
    name = "expenses_query_logged_on_day"
    apps = ("Expenses",)
    kind = "query"
    complexity = 2
    optimal_steps = 3
    goal_template = "Did I log \"{name}\" on {asked_text} in Expenses? Answer yes or no."
    goal_phrasings = (
        "Is there a \"{name}\" expense dated {asked_text}? Just say yes or no.",
        "Could you check whether I already recorded \"{name}\" for {asked_text}? Yes or no.",
        "\"{name}\" logged on {asked_text}: yes/no?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = pick_item(rng)
        day = TODAY - timedelta(days=rng.randint(3, 20))
        asked = day if rng.random() < 0.5 else day + timedelta(days=rng.choice((-2, -1, 1, 2)))
        return {"name": name, "category": cat, "amount": dollars(pick_cents(rng)), "day": day.isoformat(),
                "asked": asked.isoformat(), "asked_text": day_text(asked)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # logged once, on the asked day or a day or two off it
        plant(phone, params["name"], parse_money(params["amount"]) or 0, params["category"], params["day"])

    def truth(self, phone: Phone, params: dict[str, Any]) -> bool:
        return any(e["date"].date().isoformat() == params["asked"]
                   for e in expenses(phone, "e.name = ?", (params["name"],)))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        said = yes_no(answer)
        return 1.0 if said is not None and said == self.truth(phone, params) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        reply = "yes" if self.truth(phone, params) else "no"
        e = find_expense(phone, params["name"])
        if e is None:
            return answer(reply)
        # its row under its day's header on the list
        return list_answer(phone, obs, e["date"].date(), reply)


@register_task
class QueryRankThree(TaskTemplate):
    name = "expenses_query_rank_three"
    apps = ("Expenses",)
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = ("Rank my \"{name1}\", \"{name2}\" and \"{name3}\" expenses from cheapest to most expensive. "
                     "Answer with the three names in that order.")
    goal_phrasings = (
        "Order \"{name1}\", \"{name2}\" and \"{name3}\" by how much they cost me, lowest first.",
        "Could you check Expenses and list \"{name1}\", \"{name2}\", \"{name3}\" from the least to the most expensive?",
        "Cheapest to priciest: \"{name1}\", \"{name2}\", \"{name3}\"?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        items = rng.sample(ITEMS, 3)
        cents = rng.sample([c for c in (parse_money(a) for a in AMOUNTS) if c is not None], 3)
        days = rng.sample(range(16), 3)
        p: dict[str, Any] = {}
        for i, ((n, c), a, d) in enumerate(zip(items, cents, days), 1):
            p.update({f"name{i}": n, f"category{i}": c, f"amount{i}": dollars(a),
                      f"day{i}": (TODAY - timedelta(days=d)).isoformat()})
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i in (1, 2, 3):
            plant(phone, params[f"name{i}"], parse_money(params[f"amount{i}"]) or 0, params[f"category{i}"],
                  params[f"day{i}"])

    def ranked(self, phone: Phone, params: dict[str, Any]) -> list[str]:
        cents = {}
        for i in (1, 2, 3):
            e = find_expense(phone, params[f"name{i}"])
            cents[params[f"name{i}"]] = e["amount_cents"] if e else -1
        return sorted(cents, key=lambda n: cents[n])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if answer is None:
            return 0.0
        text = " ".join(normalize_answer(answer))
        pos = []
        for n in self.ranked(phone, params):
            m = re.search(rf"(?<!\w){re.escape(' '.join(normalize_answer(n)))}(?!\w)", text)
            if m is None:
                return 0.0
            pos.append(m.start())
        return 1.0 if pos == sorted(pos) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        oldest = min(date.fromisoformat(params[f"day{i}"]) for i in (1, 2, 3))
        return list_answer(phone, obs, oldest, ", ".join(self.ranked(phone, params)))


@register_task
class QueryDaysBetween(TaskTemplate):
    name = "expenses_query_days_between"
    apps = ("Expenses",)
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = "How many days apart are my \"{name1}\" and \"{name2}\" expenses? Answer with a number of days."
    goal_phrasings = (
        "How many days passed between when I bought \"{name1}\" and when I bought \"{name2}\"?",
        "Could you check the dates of \"{name1}\" and \"{name2}\" in Expenses and tell me how many days lie between them?",
        "Days between \"{name1}\" and \"{name2}\" (number)?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (n1, c1), (n2, c2) = rng.sample(ITEMS, 2)
        d1, d2 = rng.sample(range(26), 2)
        return {"name1": n1, "category1": c1, "amount1": dollars(pick_cents(rng)),
                "day1": (TODAY - timedelta(days=d1)).isoformat(),
                "name2": n2, "category2": c2, "amount2": dollars(pick_cents(rng)),
                "day2": (TODAY - timedelta(days=d2)).isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i in (1, 2):
            plant(phone, params[f"name{i}"], parse_money(params[f"amount{i}"]) or 0, params[f"category{i}"],
                  params[f"day{i}"])

    def days(self, phone: Phone, params: dict[str, Any]) -> list[date]:
        out = []
        for i in (1, 2):
            e = find_expense(phone, params[f"name{i}"])
            if e is None:
                raise TaskError(f"oracle: no expense named {params[f'name{i}']!r}")
            out.append(e["date"].date())
        return out

    def gap(self, phone: Phone, params: dict[str, Any]) -> int:
        a, b = self.days(phone, params)
        return abs((a - b).days)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if answer is None or any(find_expense(phone, params[f"name{i}"]) is None for i in (1, 2)):
            return 0.0
        nums = answer_numbers(answer)
        if not nums:  # "two days"
            nums = [str(NUMBER_WORDS[w]) for w in re.findall(r"[a-z]+", answer.lower()) if w in NUMBER_WORDS]
        return 1.0 if len(set(nums)) == 1 and Decimal(nums[0]) == self.gap(phone, params) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        days = self.days(phone, params)
        return list_answer(phone, obs, min(days), str(self.gap(phone, params)))


@register_task
class QueryPreviousPurchase(TaskTemplate):
    name = "expenses_query_previous_purchase"
    apps = ("Expenses",)
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "What did I buy right before \"{name}\"? Answer with the name of the expense logged just before it."
    goal_phrasings = (
        "Which purchase came immediately before my \"{name}\" expense? Give its name.",
        "Could you look in Expenses for the expense dated just before \"{name}\" and tell me what it was?",
        "Expense right before \"{name}\" (name)?",
    )
    TIMES_SQL: ClassVar[str] = "SELECT expense_id, name, created_date FROM expense ORDER BY created_date, expense_id"

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = pick_item(rng)
        day = TODAY - timedelta(days=rng.randint(2, 20))
        return {"name": name, "category": cat, "amount": dollars(pick_cents(rng)), "day": day.isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        plant(phone, params["name"], parse_money(params["amount"]) or 0, params["category"], params["day"])

    def neighbours(self, phone: Phone, params: dict[str, Any]) -> tuple[list[dict], list[dict]]:
        """(the expenses just before the named one, those just after it), by date and time, as the app holds them."""
        items = expenses(phone)
        me = next((e for e in items if e["name"] == params["name"]), None)
        if me is None:
            return [], []
        t = me["created_date"]
        before = [e for e in items if e["created_date"] < t]
        after = [e for e in items if e["created_date"] > t]
        top = max((e["created_date"] for e in before), default=None)
        low = min((e["created_date"] for e in after), default=None)
        return [e for e in before if e["created_date"] == top], [e for e in after if e["created_date"] == low]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        before, after = self.neighbours(phone, params)
        right = {e["name"] for e in before}
        if answer is None or not any(answer_matches(answer, n) for n in right):
            return 0.0
        # naming the one after it too (hedging) fails, unless that name is part of a right one
        wrong = {e["name"] for e in after} - right
        wrong = {n for n in wrong if not any(answer_matches(r, n) for r in right)}
        return 0.0 if any(answer_matches(answer, n) for n in wrong) else 1.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        before, _ = self.neighbours(phone, params)
        if not before:
            return answer("nothing")
        e = before[0]
        step = main_screen(phone, obs)
        if step is not None:
            return step
        crit = row_of(e["name"], e["amount_cents"])
        if find(obs, **crit) is None:
            return scroll_toward(phone, obs, **crit) or answer(e["name"])
        return answer(e["name"])


# ---- fifth batch: the date picker's year / day / next-month buttons, future-dated entries, the statistics screen's
# ---- next month and the ⋮ menu, the detail toolbar's Delete, twins told apart by time, typos, make-sure edits;
# ---- questions answered by a note, a complement, a frequency and a per-day average --------------------------------
BILLS: tuple[tuple[str, str], ...] = (
    ("Rent", "Bills"), ("Cloud storage", "Bills"), ("Music subscription", "Entertainment"),
    ("Climbing gym", "Health"), ("Language app", "Education"), ("Phone insurance", "Bills"),
)


def add_months(d: date, n: int) -> date:
    """``d`` moved by ``n`` months, same day (callers pick days that exist in the target month)."""
    idx = d.year * 12 + d.month - 1 + n
    return date(idx // 12, idx % 12 + 1, d.day)


def picker_step(obs: Observation, data: dict[str, Any], day: date) -> Action:
    """Next click in the date picker toward ``day`` with its arrow buttons (year, then month, then day), then OK."""
    y, m, d = int(data["year"]), int(data["month"]), int(data["day"])
    if y != day.year:
        return click_in(obs, "dialog", desc="Next year" if day.year > y else "Previous year") or BACK
    if m != day.month:
        return click_in(obs, "dialog", desc="Next month" if day.month > m else "Previous month") or BACK
    if d != day.day:
        if abs(d - day.day) > 2:  # far off: type the day
            i = find(obs, editable=True, resource_id="day")
            if i is not None:
                return Action(action_type="input_text", index=i, text=str(day.day))
        return click_in(obs, "dialog", desc="Next day" if day.day > d else "Previous day") or BACK
    return click_in(obs, "dialog", text="OK", resource_id="button1") or BACK


def form_step(phone: Phone, obs: Observation, day: date, **want: Any) -> Action:
    """Next action on the open add/edit form: ``want`` (fill_form's name / cents / category), then the date with the
    picker's arrows, then Save."""
    dlg, scr = phone.dialog, phone.screen
    assert scr is not None
    if dlg is not None and dlg.name == "date_picker":
        return picker_step(obs, dlg.data, day)
    f, st = scr.fields, scr.state
    if dlg is not None or ("name" in want and f.get("name", "").strip() != want["name"]) \
            or ("cents" in want and parse_money(f.get("amount", "")) != want["cents"]) \
            or ("category" in want and st.get("category") != want["category"]):
        return fill_form(phone, obs, **want)
    if (st.get("year"), st.get("month"), st.get("day")) != (day.year, day.month, day.day):
        return click(obs, resource_id="date_picker_button") or BACK
    return click(obs, resource_id="btn_save") or BACK


def display_rows(phone: Phone) -> list[tuple[str, Any]]:
    """The unfiltered main list as the app lays it out: ("day", date) headers and ("expense", id) rows."""
    out: list[tuple[str, Any]] = []
    day = None
    for e in expenses(phone):
        d = e["date"].date()
        if d != day:
            day = d
            out.append(("day", d))
        out.append(("expense", e["expense_id"]))
    return out


def click_row_by_place(phone: Phone, obs: Observation, expense_id: int) -> Action:
    """On the unfiltered main list, click the row of ``expense_id`` by its place in the list (identical rows are
    told apart), scrolling toward it while it is off screen."""
    e = expenses(phone, "expense_id = ?", (expense_id,))
    if not e:
        raise TaskError(f"oracle: expense {expense_id} is gone")
    scr = phone.screen
    assert scr is not None
    seq = display_rows(phone)
    pos = seq.index(("expense", expense_id))
    start = scr.scroll.get("list", 0)
    shown = [i for i, el in enumerate(obs.elements)
             if (el.resource_id or "").rsplit("/", 1)[-1] in ("date_header", "expense_item")]
    if start <= pos < start + len(shown):
        i = shown[pos - start]
        if find_all(obs, **row_of(e[0]["name"], e[0]["amount_cents"])).count(i):
            return Action(action_type="click", index=i)
        return click_or_scroll(phone, obs, **row_of(e[0]["name"], e[0]["amount_cents"]))
    return Action(action_type="scroll", direction="down" if pos >= start + len(shown) else "up")


def stats_via_menu(phone: Phone, obs: Observation, year: int, month: int) -> Action | None:
    """Next action toward Statistics showing ``month``, opened from the list's ⋮ menu; None once there."""
    scr = phone.screen
    if phone.foreground == APP and phone.menu_open and scr is not None and scr.name == "main":
        return click_in(obs, "menu", text="Statistics") or BACK
    step = navigate(phone, obs, APP, [("main", {"desc": "More options"}), ("stats", None)])
    if step is not None:
        return step
    return stats_screen(phone, obs, year, month)


@register_task
class FixWrongYear(TaskTemplate):
    name = "expenses_fix_wrong_year"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 19
    goal_template = ("One of my two \"{name}\" expenses has the wrong year: it is dated {wrong_year}, but I bought it "
                     "in {year} on the same month and day. Fix that entry's date and leave the other \"{name}\" alone.")
    goal_phrasings = (
        ("Could you find the \"{name}\" expense that ended up in {wrong_year} and move it to {year}, keeping its "
         "month and day? The other \"{name}\" is right."),
        ("I typed {wrong_year} instead of {year} for one of my \"{name}\" entries. Please correct that year in "
         "Expenses (same month and day) and don't touch the other one."),
        "Expenses: the \"{name}\" dated in {wrong_year} belongs in {year}, same month and day; the other \"{name}\" stays.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = pick_item(rng)
        cents = pick_cents(rng)
        d1, d2 = rng.sample(range(2, 100), 2)
        return {"name": name, "category": cat, "amount": dollars(cents), "day": (TODAY - timedelta(days=d1)).isoformat(),
                "other_amount": dollars(pick_cents(rng, avoid=cents)),
                "other_day": (TODAY - timedelta(days=d2)).isoformat(), "year": str(TODAY.year),
                "wrong_year": str(TODAY.year - 1)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        wrong = date.fromisoformat(params["day"]).replace(year=int(params["wrong_year"]))
        plant(phone, params["name"], parse_money(params["amount"]) or 0, params["category"], wrong.isoformat())
        add_expense(phone, params["name"], parse_money(params["other_amount"]) or 0, params["category"],
                    datetime.fromisoformat(params["other_day"]).replace(hour=18, minute=10))

    def target(self, phone: Phone, params: dict[str, Any]) -> int:
        eid = next((r[0] for r in baseline_rows(phone, self, params, EXPENSE_SQL)
                    if r[1] == params["name"] and r[5].startswith(params["wrong_year"])), None)
        if eid is None:
            raise TaskError(f"oracle: no {params['name']!r} dated in {params['wrong_year']}")
        return eid

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        ok = not added and not removed and len(changed) == 1 and changed[0][0][0] == self.target(phone, params) \
            and same_but(changed[0][0], changed[0][1], day=params["day"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        eid, want = self.target(phone, params), date.fromisoformat(params["day"])
        if on_edit(phone, eid):
            return form_step(phone, obs, want)
        rows = expenses(phone, "expense_id = ?", (eid,))
        if not rows or rows[0]["date"].date() == want:
            return COMPLETE
        return edit_row_action(phone, obs, eid)


@register_task
class FixFutureDated(TaskTemplate):
    name = "expenses_fix_future_dated"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 18
    goal_template = ("Some of my recent expenses are dated in the future because I picked the wrong month when I "
                     "logged them: each is exactly one month too late. Move every future-dated expense back one "
                     "month (keep the day of the month) and leave all the others alone.")
    goal_phrasings = (
        ("Expenses shows a few entries with dates that haven't happened yet; I chose the next month by mistake. "
         "Could you set each of those one month earlier, on the same day?"),
        ("Please fix my future-dated expenses: each belongs one month earlier than it shows (same day of the "
         "month). Don't change any other entry."),
        "Expenses: every entry dated after today -> same day, one month earlier.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        picked = rng.sample(ITEMS, 4)
        offs = sorted(rng.sample(range(1, 30), 3))
        n = rng.choice((2, 3))
        rows = [[nm, c, dollars(pick_cents(rng)), (TODAY - timedelta(days=o)).isoformat()]
                for (nm, c), o in zip(picked[:n], offs)]
        (tn, tc) = picked[3]
        return {"entries": rows, "today_item": [tn, tc, dollars(pick_cents(rng))]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for name, cat, amount, day in params["entries"]:
            plant(phone, name, parse_money(amount) or 0, cat, add_months(date.fromisoformat(day), 1).isoformat())
        name, cat, amount = params["today_item"]
        phone.execute("DELETE FROM expense WHERE name=?", (name,))
        add_expense(phone, name, parse_money(amount) or 0, cat, datetime.combine(TODAY, datetime.min.time()).replace(
            hour=9, minute=30))

    def targets(self, phone: Phone, params: dict[str, Any]) -> dict[int, str]:
        """Future-dated starting rows -> the day each belongs on."""
        real = {name: day for name, _, _, day in params["entries"]}
        return {r[0]: real.get(r[1], add_months(date.fromisoformat(r[5]), -1).isoformat())
                for r in baseline_rows(phone, self, params, EXPENSE_SQL) if r[5] > TODAY.isoformat()}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        want = self.targets(phone, params)
        ok = not added and not removed and len(changed) == len(want) and {o[0] for o, _ in changed} == set(want) \
            and all(same_but(o, n, day=want[o[0]]) for o, n in changed)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        want = self.targets(phone, params)
        for eid, day in want.items():
            if on_edit(phone, eid):
                return form_step(phone, obs, date.fromisoformat(day))
        todo = [e for e in expenses(phone) if e["expense_id"] in want
                and e["date"].date().isoformat() != want[e["expense_id"]]]
        if not todo:
            return COMPLETE
        for e in todo:
            if on_screen(phone, "detail", expense_id=e["expense_id"]):
                return click(obs, resource_id="btn_edit") or BACK
        return edit_row_action(phone, obs, todo[0]["expense_id"])


@register_task
class AddForYesterday(TaskTemplate):
    name = "expenses_add_for_yesterday"
    apps = ("Expenses",)
    complexity = 2
    optimal_steps = 11
    goal_template = "I forgot to log yesterday's \"{name}\": ${amount}, {category}. Add it to Expenses with yesterday's date."
    goal_phrasings = (
        "Yesterday I paid ${amount} for \"{name}\" ({category}) and didn't record it. Please add it, dated yesterday.",
        "Could you add \"{name}\" to Expenses for ${amount} under {category}, but with yesterday's date rather than today's?",
        "Expenses, backdated one day: \"{name}\", ${amount}, {category}.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = pick_item(rng)
        cents = pick_cents(rng)
        return {"name": name, "category": cat, "amount": dollars(cents),
                "old_amount": dollars(pick_cents(rng, avoid=cents)),
                "old_day": (TODAY - timedelta(days=rng.randint(5, 30))).isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # an older "{name}" that must stay as it is
        plant(phone, params["name"], parse_money(params["old_amount"]) or 0, params["category"], params["old_day"])

    def _want(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"name": params["name"], "cents": parse_money(params["amount"]), "category": params["category"]}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        w = self._want(params)
        ok = not removed and not changed and len(added) == 1 and row_is(
            added[0], w["name"], w["cents"], w["category"], (TODAY - timedelta(days=1)).isoformat())
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if on_edit(phone, None):
            return form_step(phone, obs, TODAY - timedelta(days=1), **self._want(params))
        return main_screen(phone, obs) or click(obs, desc="Add expense") or BACK


@register_task
class ScheduleNextMonthBill(TaskTemplate):
    name = "expenses_schedule_next_month_bill"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 15
    goal_template = ("My \"{name}\" is charged every month. Log next month's payment now: same name, amount and "
                     "category as this month's \"{name}\", dated exactly one month after it.")
    goal_phrasings = (
        ("Could you pre-log next month's \"{name}\" in Expenses? Copy this month's entry (amount and category) and "
         "date it one month later, same day."),
        ("This month's \"{name}\" comes again next month for the same price. Add that upcoming one now, dated a "
         "month after this month's."),
        "Expenses: new \"{name}\" = this month's \"{name}\" (amount, category), date + 1 month.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = rng.choice(BILLS)
        cents = pick_cents(rng)
        day = TODAY.replace(day=rng.randint(1, TODAY.day - 1))
        return {"name": name, "category": cat, "amount": dollars(cents), "day": day.isoformat(),
                "last_amount": dollars(pick_cents(rng, avoid=cents)), "last_day": add_months(day, -1).isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # last month's was another price; this month's is the one to copy
        plant(phone, params["name"], parse_money(params["last_amount"]) or 0, params["category"], params["last_day"])
        add_expense(phone, params["name"], parse_money(params["amount"]) or 0, params["category"],
                    datetime.fromisoformat(params["day"]).replace(hour=8, minute=45))

    def this_month(self, phone: Phone, params: dict[str, Any]) -> tuple[int, int, str]:
        """(id, cents, category) of this month's entry, from the starting rows."""
        r = next((r for r in baseline_rows(phone, self, params, EXPENSE_SQL)
                  if r[1] == params["name"] and r[5] == params["day"]), None)
        if r is None:
            raise TaskError(f"oracle: no {params['name']!r} on {params['day']}")
        return r[0], r[2], r[3]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        _, cents, cat = self.this_month(phone, params)
        ok = not removed and not changed and len(added) == 1 and row_is(
            added[0], params["name"], cents, cat, add_months(date.fromisoformat(params["day"]), 1).isoformat())
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        eid, cents, cat = self.this_month(phone, params)
        # read this month's amount and category on its detail screen first
        step = look_first(phone, f"{self.name} {eid}", lambda: open_expense(phone, obs, eid, params["name"], cents))
        if step is not None:
            return step
        if not on_edit(phone, None):
            return main_screen(phone, obs) or click(obs, desc="Add expense") or BACK
        return form_step(phone, obs, add_months(date.fromisoformat(params["day"]), 1), name=params["name"],
                         cents=cents, category=cat)


@register_task
class RoundUpDayAmounts(TaskTemplate):
    name = "expenses_round_up_day_amounts"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 19
    goal_template = ("My bank rounded every card purchase I made on {day_text} up to the next whole dollar. Update "
                     "each of that day's expenses to its rounded-up amount; amounts that are already whole dollars stay "
                     "as they are, and so does every other day.")
    goal_phrasings = (
        ("Could you round up each expense dated {day_text} to the next whole dollar in Expenses? Whole-dollar ones "
         "don't change."),
        ("Every purchase from {day_text} was charged rounded up to a whole dollar. Please fix those amounts (for "
         "example $23.99 becomes $24.00) and leave other days alone."),
        "Expenses, {day_text}: amount := next whole dollar for each entry that has cents.",
    )
    ODD: ClassVar[tuple[str, ...]] = tuple(a for a in AMOUNTS if not a.endswith(".00"))
    WHOLE: ClassVar[tuple[str, ...]] = tuple(a for a in AMOUNTS if a.endswith(".00"))

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        picked = rng.sample(ITEMS, 5)
        n = rng.choice((2, 3))
        amounts = rng.sample(self.ODD, n) + [rng.choice(self.WHOLE)]
        day = TODAY - timedelta(days=rng.randint(2, 25))
        other = day - timedelta(days=rng.randint(1, 4))
        rows = [[nm, c, a, day.isoformat()] for (nm, c), a in zip(picked, amounts)]
        (on, oc) = picked[-1]
        return {"day": day.isoformat(), "day_text": day_text(day), "entries": rows,
                "other": [on, oc, rng.choice(self.ODD), other.isoformat()]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # an entry with cents on a neighbouring day, which stays
        for name, cat, amount, day in (*params["entries"], params["other"]):
            plant(phone, name, parse_money(amount) or 0, cat, day)

    def targets(self, phone: Phone, params: dict[str, Any]) -> dict[int, int]:
        """Starting rows of the day that have cents -> their rounded-up amount."""
        return {r[0]: -(-r[2] // 100) * 100 for r in baseline_rows(phone, self, params, EXPENSE_SQL)
                if r[5] == params["day"] and r[2] % 100}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        want = self.targets(phone, params)
        ok = not added and not removed and len(changed) == len(want) and {o[0] for o, _ in changed} == set(want) \
            and all(same_but(o, n, cents=want[o[0]]) for o, n in changed)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        want = self.targets(phone, params)
        for eid, cents in want.items():
            if on_edit(phone, eid):
                return fill_form(phone, obs, cents=cents)
        todo = [e for e in expenses(phone) if e["expense_id"] in want and e["amount_cents"] != want[e["expense_id"]]]
        if not todo:
            return COMPLETE
        for e in todo:
            if on_screen(phone, "detail", expense_id=e["expense_id"]):
                return click(obs, resource_id="btn_edit") or BACK
        return edit_row_action(phone, obs, todo[0]["expense_id"], cents=want[todo[0]["expense_id"]])


@register_task
class DeleteLaterSameDayTwin(TaskTemplate):
    name = "expenses_delete_later_same_day_twin"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 7
    goal_template = ("On {day_text} I saved \"{name}\" twice: the same purchase, logged at two different times that "
                     "day. The entry with the later time is the duplicate. Delete it and keep the earlier one.")
    goal_phrasings = (
        "Could you check the times of my two \"{name}\" entries from {day_text} and delete the one logged later in the day?",
        ("\"{name}\" shows up twice on {day_text} in Expenses; the later one (by time of day) is a duplicate. Please "
         "remove just that one."),
        "Expenses: of the two \"{name}\" entries on {day_text}, delete the later one by time.",
    )
    TIMES_SQL: ClassVar[str] = "SELECT expense_id, name, created_date FROM expense ORDER BY expense_id"

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = pick_item(rng)
        d1, d2 = rng.sample(range(2, 30), 2)
        early, late = sorted(rng.sample(range(8 * 60, 21 * 60, 5), 2))
        return {"name": name, "category": cat, "amount": dollars(pick_cents(rng)),
                "day": (TODAY - timedelta(days=d1)).isoformat(), "day_text": day_text(TODAY - timedelta(days=d1)),
                "early": early, "late": late, "late_first": rng.random() < 0.5,
                "other_day": (TODAY - timedelta(days=d2)).isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        cents = parse_money(params["amount"]) or 0
        # another "{name}" of the same price on another day, which stays
        plant(phone, params["name"], cents, params["category"], params["other_day"])
        day = datetime.fromisoformat(params["day"])
        times = [params["late"], params["early"]] if params["late_first"] else [params["early"], params["late"]]
        for t in times:
            add_expense(phone, params["name"], cents, params["category"], day.replace(hour=t // 60, minute=t % 60))

    def target(self, phone: Phone, params: dict[str, Any]) -> int:
        from droidverify.env.sim.timeutil import to_ms

        late = datetime.fromisoformat(params["day"]).replace(hour=params["late"] // 60, minute=params["late"] % 60)
        eid = next((r[0] for r in baseline_rows(phone, self, params, self.TIMES_SQL)
                    if r[1] == params["name"] and r[2] == to_ms(late)), None)
        if eid is None:
            raise TaskError(f"oracle: no {params['name']!r} at {late}")
        return eid

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        ok = not added and not changed and [r[0] for r in removed] == [self.target(phone, params)]
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        eid = self.target(phone, params)
        if not expenses(phone, "expense_id = ?", (eid,)):
            return COMPLETE
        if confirming(phone, {eid}):
            return click_in(obs, "dialog", text="Delete", resource_id="button1") or BACK
        if on_screen(phone, "detail", expense_id=eid):
            # its time shows on the detail screen; the toolbar's Delete
            return click(obs, resource_id="delete") or click(obs, resource_id="btn_delete") or BACK
        step = main_screen(phone, obs)
        if step is not None:
            return step
        return click_row_by_place(phone, obs, eid)


@register_task
class MakeSureTodayLogged(TaskTemplate):
    name = "expenses_make_sure_today_logged"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 8
    goal_template = ("Make sure today's \"{name}\" is in Expenses as ${amount} ({category}): if I already logged it "
                     "today, correct that entry; if I haven't, add it. There should be one \"{name}\" for today.")
    goal_phrasings = (
        ("I'm not sure whether I logged today's \"{name}\" yet. If it's there for today, set it to ${amount}; if "
         "not, add it for today ({category}, ${amount})."),
        ("Today's \"{name}\" should show ${amount} under {category} in Expenses: fix today's entry if it exists, or "
         "create it otherwise. Leave older \"{name}\" entries alone."),
        "Expenses: ensure exactly one \"{name}\" today at ${amount} ({category}); edit or add as needed.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = pick_item(rng)
        cents = pick_cents(rng)
        return {"name": name, "category": cat, "amount": dollars(cents), "logged_today": rng.random() < 0.5,
                "today_amount": dollars(pick_cents(rng, avoid=cents)),
                "old_amount": dollars(pick_cents(rng, avoid=cents)),
                "old_day": (TODAY - timedelta(days=rng.randint(2, 20))).isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        plant(phone, params["name"], parse_money(params["old_amount"]) or 0, params["category"], params["old_day"])
        if params["logged_today"]:
            add_expense(phone, params["name"], parse_money(params["today_amount"]) or 0, params["category"],
                        datetime.combine(TODAY, datetime.min.time()).replace(hour=8, minute=20))

    def today_id(self, phone: Phone, params: dict[str, Any]) -> int | None:
        return next((r[0] for r in baseline_rows(phone, self, params, EXPENSE_SQL)
                     if r[1] == params["name"] and r[5] == TODAY.isoformat()), None)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        cents = parse_money(params["amount"]) or 0
        eid = self.today_id(phone, params)
        if eid is None:
            ok = not removed and not changed and len(added) == 1 and row_is(
                added[0], params["name"], cents, params["category"], TODAY.isoformat())
        else:
            ok = not added and not removed and len(changed) == 1 and changed[0][0][0] == eid and same_but(
                changed[0][0], changed[0][1], cents=cents)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        cents = parse_money(params["amount"])
        eid = self.today_id(phone, params)
        if eid is not None:
            return edit_row_action(phone, obs, eid, cents=cents)
        return add_form(phone, obs, name=params["name"], cents=cents, category=params["category"], day=TODAY)


# ---- fifth batch: questions --------------------------------------------------------------------------------------
@register_task
class QueryNextMonthLogged(TaskTemplate):
    name = "expenses_query_next_month_logged"
    apps = ("Expenses",)
    kind = "query"
    complexity = 2
    optimal_steps = 6
    goal_template = ("I've already entered some bills that will be charged in {month} {year}. How much do the "
                     "expenses dated in {month} {year} come to in total? Use Expenses.")
    goal_phrasings = (
        "What is the total of everything logged in Expenses with a date in {month} {year}?",
        "Could you add up the upcoming expenses I pre-logged for {month} {year} and tell me the total?",
        "Total already logged for {month} {year} in Expenses?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        nxt = add_months(TODAY.replace(day=1), 1)
        picked = rng.sample(BILLS, 3)
        n = rng.choice((2, 3))
        days = rng.sample(range(1, 29), n)
        bills = [[nm, c, dollars(pick_cents(rng)), nxt.replace(day=d).isoformat()]
                 for (nm, c), d in zip(picked[:n], days)]
        (ln, lc) = pick_item(rng)
        later = [ln, lc, dollars(pick_cents(rng)), TODAY.replace(day=rng.randint(TODAY.day + 1, 31)).isoformat()]
        return {"month": _month_name(nxt.month), "year": str(nxt.year), "month_num": nxt.month, "bills": bills,
                "later": later}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # a bill later this month is in the future too, but not in the month asked about
        for name, cat, amount, day in (*params["bills"], params["later"]):
            plant(phone, name, parse_money(amount) or 0, cat, day)

    def total(self, phone: Phone, params: dict[str, Any]) -> int:
        return sum(e["amount_cents"] for e in month_expenses(phone, int(params["year"]), params["month_num"]))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        total = self.total(phone, params)
        return 1.0 if total and money_matches(answer, total) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = stats_via_menu(phone, obs, int(params["year"]), params["month_num"])
        return step or answer(format_money(self.total(phone, params)))


@register_task
class QueryUnusedCategories(TaskTemplate):
    name = "expenses_query_unused_categories"
    apps = ("Expenses",)
    kind = "query"
    complexity = 3
    optimal_steps = 6
    goal_template = ("Which spending categories have no expenses at all in {month} {year}? Name every category I "
                     "haven't used that month.")
    goal_phrasings = (
        "In {month} {year}, which of the Expenses categories did I not spend anything on? List them all.",
        "Could you check Expenses and tell me every category that has zero expenses in {month} {year}?",
        "Categories with nothing logged in {month} {year}?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = pick_item(rng)
        gap = rng.choice([c for c in CATEGORIES if c != cat])
        return {"month": _month_name(TODAY.month), "year": str(TODAY.year), "name": name, "category": cat,
                "amount": dollars(pick_cents(rng)), "day": TODAY.replace(day=rng.randint(1, TODAY.day)).isoformat(),
                "gap": gap}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # nothing of one category this month (so the answer is never empty), one planted purchase
        lo, hi = month_bounds(TODAY.year, TODAY.month)
        phone.execute("DELETE FROM expense WHERE category_id=(SELECT category_id FROM category WHERE name=?) "
                      "AND created_date >= ? AND created_date < ?", (params["gap"], lo, hi))
        plant(phone, params["name"], parse_money(params["amount"]) or 0, params["category"], params["day"])

    def unused(self, phone: Phone) -> list[str]:
        used = {e["category"] for e in month_expenses(phone, TODAY.year, TODAY.month)}
        return [c for c in CATEGORIES if c not in used]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if answer is None:
            return 0.0
        words = set(normalize_answer(answer))
        named = [c for c in CATEGORIES if c.lower() in words]
        want = self.unused(phone)
        return 1.0 if want and named == want else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        items = month_expenses(phone, TODAY.year, TODAY.month)
        if items:
            by: dict[str, int] = {}
            for e in items:
                by[e["category"]] = by.get(e["category"], 0) + e["amount_cents"]
            last = max(by.items(), key=lambda kv: (-kv[1], kv[0]))[0]  # the bottom row of the breakdown
            crit = {"text": last, "resource_id": "category_total"}

            def whole_breakdown() -> Action | None:
                step = stats_screen(phone, obs, TODAY.year, TODAY.month)
                if step is not None or find(obs, **crit) is not None:
                    return step
                return scroll_toward(phone, obs, **crit)

            # the month's categories on Statistics, then every category in the filter dialog
            step = look_first(phone, f"{self.name} stats", whole_breakdown)
            if step is not None:
                return step
        dlg, scr = phone.dialog, phone.screen
        if phone.foreground == APP and dlg is not None and dlg.name == "choice" and scr is not None \
                and scr.name == "main":
            return answer(", ".join(self.unused(phone)))
        return main_screen(phone, obs) or click(obs, desc="Filter") or BACK


@register_task
class QueryDailyAverage(TaskTemplate):
    name = "expenses_query_daily_average"
    apps = ("Expenses",)
    kind = "query"
    complexity = 3
    optimal_steps = 5
    goal_template = ("On average, how much have I spent per day so far in {month}? Divide the month's total by the "
                     "number of days from {month} 1 through today, today included.")
    goal_phrasings = (
        "What is my average spending per day in {month} so far, counting today? Use the Expenses app.",
        ("Could you work out my daily average for {month}: the month's total so far divided by the days from the "
         "1st to today (inclusive)?"),
        "Average spent per day in {month} (1st to today inclusive)?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = pick_item(rng)
        return {"month": _month_name(TODAY.month), "name": name, "category": cat, "amount": dollars(pick_cents(rng)),
                "day": TODAY.replace(day=rng.randint(1, TODAY.day)).isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        plant(phone, params["name"], parse_money(params["amount"]) or 0, params["category"], params["day"])

    def averages(self, phone: Phone) -> set[int]:
        """The per-day average in cents, rounded half up or cut off at the cent."""
        total = sum(e["amount_cents"] for e in month_expenses(phone, TODAY.year, TODAY.month))
        days = TODAY.day
        return {total // days, (2 * total + days) // (2 * days)}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if any(money_matches(answer, c) for c in self.averages(phone)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = stats_via_menu(phone, obs, TODAY.year, TODAY.month)
        return step or answer(format_money(max(self.averages(phone))))


@register_task
class QueryMostFrequent(TaskTemplate):
    name = "expenses_query_most_frequent"
    apps = ("Expenses",)
    kind = "query"
    complexity = 3
    optimal_steps = 4
    goal_template = "What did I buy most often in {month}? Answer with the name of the expense I logged the most times that month."
    goal_phrasings = (
        "Which expense name shows up most often among my {month} expenses?",
        "Could you look through this month's entries in Expenses ({month}) and tell me which purchase I logged the most times?",
        "Most frequent expense in {month} (name)?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        name, cat = pick_item(rng)
        return {"month": _month_name(TODAY.month), "name": name, "category": cat,
                "amounts": [dollars(pick_cents(rng)) for _ in range(6)],
                "days": [TODAY.replace(day=d).isoformat() for d in rng.sample(range(1, TODAY.day + 1), 6)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # one more time than any name the month already has
        phone.execute("DELETE FROM expense WHERE name=?", (params["name"],))
        counts: dict[str, int] = {}
        for e in month_expenses(phone, TODAY.year, TODAY.month):
            counts[e["name"]] = counts.get(e["name"], 0) + 1
        k = min(max(counts.values(), default=1) + 1, len(params["days"]))
        for amount, day in list(zip(params["amounts"], params["days"]))[:k]:
            add_expense(phone, params["name"], parse_money(amount) or 0, params["category"],
                        datetime.fromisoformat(day).replace(hour=12, minute=30))

    def counts(self, phone: Phone) -> dict[str, int]:
        out: dict[str, int] = {}
        for e in month_expenses(phone, TODAY.year, TODAY.month):
            out[e["name"]] = out.get(e["name"], 0) + 1
        return out

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        counts = self.counts(phone)
        if answer is None or not counts:
            return 0.0
        top = max(counts.values())
        named = {n for n in counts if answer_matches(answer, n)}
        return 1.0 if len(named) == 1 and counts[named.pop()] == top else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        counts = self.counts(phone)
        if not counts:
            return answer("nothing")
        top = max(counts.values())
        name = params["name"] if counts.get(params["name"]) == top else min(n for n, v in counts.items() if v == top)
        oldest = min(e["date"].date() for e in month_expenses(phone, TODAY.year, TODAY.month))
        return list_answer(phone, obs, oldest, name)


@register_task
class QueryNamedByNote(TaskTemplate):
    name = "expenses_query_named_by_note"
    apps = ("Expenses",)
    kind = "query"
    complexity = 2
    optimal_steps = 3
    goal_template = "Which of my expenses has the note \"{note}\"? Answer with the expense name."
    goal_phrasings = (
        "I left the note \"{note}\" on one expense in Expenses. Which one is it?",
        "Could you find the expense whose note is \"{note}\" and tell me its name?",
        "Expense with the note \"{note}\" (name)?",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        note = rng.choice(sorted(TAG_NOTES))
        (n1, c1), (n2, c2) = rng.sample(ITEMS, 2)
        d1, d2 = rng.sample(range(30), 2)
        return {"note": note, "name": n1, "category": c1, "amount": dollars(pick_cents(rng)),
                "day": (TODAY - timedelta(days=d1)).isoformat(), "other_name": n2, "other_category": c2,
                "other_amount": dollars(pick_cents(rng)), "other_day": (TODAY - timedelta(days=d2)).isoformat(),
                "other_note": TAG_NOTES[note]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # a second expense whose note only looks alike ("not reimbursable")
        plant(phone, params["name"], parse_money(params["amount"]) or 0, params["category"], params["day"],
              params["note"])
        plant(phone, params["other_name"], parse_money(params["other_amount"]) or 0, params["other_category"],
              params["other_day"], params["other_note"])

    def noted(self, phone: Phone, params: dict[str, Any]) -> list[str]:
        return [e["name"] for e in expenses(phone, "e.note = ?", (params["note"],))]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        right = self.noted(phone, params)
        wrong = {e["name"] for e in expenses(phone, "e.note != ?", (params["note"],))} - set(right)
        wrong = {n for n in wrong if not any(answer_matches(r, n) for r in right)}
        ok = len(right) == 1 and answer_matches(answer, right[0]) and not any(answer_matches(answer, n) for n in wrong)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        right = self.noted(phone, params)
        if not right:
            return answer("none")
        step = main_screen(phone, obs)
        if step is not None:
            return step
        crit = {"text_contains": f"· {params['note']} |", "resource_id": "expense_item"}
        if find(obs, **crit) is None:
            return scroll_toward(phone, obs, **crit) or answer(right[0])
        return answer(right[0])
