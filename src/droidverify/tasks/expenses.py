"""Expenses app tasks: add / edit / delete expenses and questions about spending.

Checkers diff the ``expense`` table against a *baseline* (a fresh phone of the same seed with the
task's set-up applied), so an extra change to the wrong row, a duplicate or a lost row fails, and
compare money by value ("$42.50" == "42.5"). Oracles act on the current screen.
"""

from __future__ import annotations

import random
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
from droidverify.env.sim.timeutil import MONTHS
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
    dollars,
    find,
    money_matches,
    navigate,
    open_app,
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


def open_expense(phone: Phone, obs: Observation, expense_id: int, name: str) -> Action | None:
    """Next action toward the detail screen of one expense; None once there."""
    if phone.foreground != APP:
        return open_app(phone, APP)
    scr = phone.screen
    assert scr is not None
    if scr.name == "detail" and scr.args.get("expense_id") == expense_id:
        return None
    if scr.name != "main":
        return BACK
    return main_screen(phone, obs) or click_or_scroll(phone, obs, text=name, resource_id="expense_item")


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


@register_task
class AddExpenseDated(AddTemplate):
    name = "expenses_add_expense_on_date"
    complexity = 3
    optimal_steps = 11
    with_day = True
    goal_template = "Record an expense \"{name}\" for ${amount} ({category}) dated {day_text} in Expenses."


@register_task
class AddExpenseWithNote(AddTemplate):
    name = "expenses_add_expense_with_note"
    optimal_steps = 9
    with_note = True
    goal_template = ("Add a {category} expense named \"{name}\" costing ${amount} with the note \"{note}\" "
                     "in the Expenses app.")


@register_task
class AddTwoExpenses(TaskTemplate):
    name = "expenses_add_two_expenses"
    apps = ("Expenses",)
    complexity = 3
    optimal_steps = 14
    goal_template = ("In Expenses, log two expenses for today: \"{name1}\" ${amount1} ({category1}) and "
                     "\"{name2}\" ${amount2} ({category2}).")

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

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # a purchase in that category this month, so the answer is never an empty "$0.00"
        name = next(n for n, c in ITEMS if c == params["category"])
        plant(phone, name, 1875, params["category"], TODAY.replace(day=2).isoformat())


@register_task
class QueryMonthTotal(SpendQuery):
    name = "expenses_query_month_total"
    optimal_steps = 6
    goal_template = "What was my total spending in {month} {year}? Use the Expenses app."


@register_task
class QueryLargestInMonth(StatsQuery):
    name = "expenses_query_largest_in_month"
    optimal_steps = 6
    goal_template = "What was my most expensive purchase in {month} {year}? Answer with the expense name."

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

