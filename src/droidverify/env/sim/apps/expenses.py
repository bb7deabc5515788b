"""Expenses (Pro Expense, com.arduia.expense): a log of purchases grouped by day, add/edit/delete,
filter by category and a monthly statistics screen.

State is Room-shaped like the real app: ``category(category_id, name)`` and
``expense(expense_id, name, amount_cents, category_id, note, created_date, modified_date)`` with
dates as epoch milliseconds (UTC wall time of the simulated phone, so ``phone.now`` round-trips).
Seed data is exactly :data:`SEED_COUNT` expenses between July 1 and ``phone.now``; checkers rely
on that count being fixed.
"""

from __future__ import annotations

import random
import re
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation

from droidverify.env.sim.app import (
    App,
    app_bar,
    button,
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
from droidverify.env.sim.timeutil import MONTHS, day_label, from_ms, to_ms
from droidverify.env.sim.view import V, View

CATEGORIES = ("Food", "Transport", "Shopping", "Bills", "Entertainment", "Health", "Education", "Other")
ALL_CATEGORIES = "All categories"
SEED_COUNT = 64
SEED_START = datetime(2024, 7, 1, 8, 0)

# (name, category, min dollars, max dollars) — realistic everyday purchases the seed draws from.
CATALOG: tuple[tuple[str, str, float, float], ...] = (
    ("Groceries", "Food", 25, 140), ("Lunch", "Food", 8, 19), ("Coffee", "Food", 3, 7),
    ("Pizza night", "Food", 18, 42), ("Bakery", "Food", 4, 16), ("Sushi dinner", "Food", 35, 95),
    ("Farmers market", "Food", 12, 48), ("Gas", "Transport", 30, 72), ("Uber ride", "Transport", 9, 38),
    ("Monthly bus pass", "Transport", 45, 90), ("Parking", "Transport", 5, 22),
    ("Train ticket", "Transport", 12, 64), ("New shoes", "Shopping", 45, 150), ("T-shirts", "Shopping", 15, 55),
    ("Headphones", "Shopping", 40, 220), ("Books", "Shopping", 10, 48), ("Home decor", "Shopping", 20, 95),
    ("Electricity bill", "Bills", 60, 145), ("Internet", "Bills", 50, 80), ("Phone plan", "Bills", 35, 70),
    ("Water bill", "Bills", 20, 60), ("Movie tickets", "Entertainment", 12, 36),
    ("Concert", "Entertainment", 45, 160), ("Streaming subscription", "Entertainment", 10, 18),
    ("Bowling", "Entertainment", 20, 46), ("Pharmacy", "Health", 8, 46), ("Gym membership", "Health", 30, 60),
    ("Dentist", "Health", 80, 210), ("Vitamins", "Health", 10, 32), ("Online course", "Education", 20, 120),
    ("Notebooks", "Education", 5, 21), ("Haircut", "Other", 20, 46), ("Gift for Mom", "Other", 20, 85),
    ("Laundry", "Other", 5, 16), ("Donation", "Other", 10, 50),
)
NOTES = ("", "", "", "", "paid by card", "split with Sam", "weekly", "cash", "with friends", "on sale")


# ---- money and dates ------------------------------------------------------------------------------
def format_money(cents: int) -> str:
    """``1234567`` -> ``"$12,345.67"`` (what the app shows)."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}${cents // 100:,}.{cents % 100:02d}"


_MONEY = re.compile(r"^\$?\s*(\d{1,3}(?:,\d{3})+|\d+)?(?:\.(\d{1,2}))?$")


def parse_money(text: str) -> int | None:
    """Cents for a typed amount (``"12"``, ``"12.5"``, ``"$1,234.50"``); None if not an amount."""
    t = text.strip()
    m = _MONEY.match(t)
    if not t or m is None or (m.group(1) is None and m.group(2) is None):
        return None
    try:
        value = Decimal((m.group(1) or "0").replace(",", "") + "." + (m.group(2) or "0"))
    except InvalidOperation:
        return None
    return int(value * 100)


def month_bounds(year: int, month: int) -> tuple[int, int]:
    """[start, end) of a month in epoch ms."""
    nxt = (year + (month == 12), month % 12 + 1)
    return to_ms(datetime(year, month, 1)), to_ms(datetime(nxt[0], nxt[1], 1))


def category_id(phone: Phone, name: str) -> int:
    row = phone.query_one("SELECT category_id FROM category WHERE name=?", (name,))
    if row is None:
        from droidverify.errors import EnvError

        raise EnvError(f"expenses: unknown category {name!r} (have {', '.join(CATEGORIES)})")
    return int(row[0])


def add_expense(phone: Phone, name: str, cents: int, category: str, when: datetime, note: str = "", *,
                modified: datetime | None = None) -> int:
    """Insert one expense (used by seeding, task set-ups and the app's Save); returns its id."""
    ms = to_ms(when)
    return phone.execute("INSERT INTO expense(name, amount_cents, category_id, note, created_date, modified_date) "
                         "VALUES(?,?,?,?,?,?)", (name, cents, category_id(phone, category), note, ms,
                                                 to_ms(modified) if modified else ms))


def expenses(phone: Phone, where: str = "", params: tuple = ()) -> list[dict]:
    """Expenses as plain dicts (newest first) with ``category`` name and ``date`` (datetime)."""
    rows = phone.query("SELECT e.*, c.name AS category FROM expense e JOIN category c USING(category_id) "
                       f"{'WHERE ' + where if where else ''} ORDER BY created_date DESC, expense_id DESC", params)
    out = []
    for r in rows:
        d = dict(r)
        d["date"] = from_ms(r["created_date"])
        out.append(d)
    return out


def month_expenses(phone: Phone, year: int, month: int, category: str | None = None) -> list[dict]:
    lo, hi = month_bounds(year, month)
    if category is None:
        return expenses(phone, "created_date >= ? AND created_date < ?", (lo, hi))
    return expenses(phone, "created_date >= ? AND created_date < ? AND c.name = ?", (lo, hi, category))


@register_app
class ExpensesApp(App):
    key = "expenses"
    name = "Expenses"
    package = "com.arduia.expense"
    aliases = ("pro expense", "expense", "expense tracker")
    icon_color = "#00897b"
    activity = ".ui.MainActivity"

    # ---- state ---------------------------------------------------------------------------------
    def create_schema(self, phone: Phone) -> None:
        phone.execute("CREATE TABLE category (category_id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL)")
        phone.execute("CREATE TABLE expense (expense_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, "
                      "amount_cents INTEGER NOT NULL, category_id INTEGER NOT NULL REFERENCES category, "
                      "note TEXT NOT NULL DEFAULT '', created_date INTEGER NOT NULL, "
                      "modified_date INTEGER NOT NULL)")
        for name in CATEGORIES:
            phone.execute("INSERT INTO category(name) VALUES(?)", (name,))

    def seed_data(self, phone: Phone, rng: random.Random) -> None:
        span = int((phone.now - SEED_START).total_seconds())
        times = sorted(rng.randrange(0, span) for _ in range(SEED_COUNT))
        for sec in times:
            when = (SEED_START + timedelta(seconds=sec)).replace(second=0)
            when = when.replace(hour=rng.randint(8, 21))
            if when > phone.now:
                when = phone.now.replace(second=0)
            name, cat, lo, hi = rng.choice(CATALOG)
            cents = rng.randint(int(lo * 100), int(hi * 100))
            cents -= cents % 5 if rng.random() < 0.5 else 0
            add_expense(phone, name, cents, cat, when, rng.choice(NOTES))

    # ---- main list -----------------------------------------------------------------------------
    def screen_main(self, phone: Phone, scr: Screen) -> View:
        cat = scr.state.get("category")
        items = expenses(phone, "c.name = ?", (cat,)) if cat else expenses(phone)
        now = phone.now
        month_total = sum(e["amount_cents"] for e in month_expenses(phone, now.year, now.month, cat))
        rows: list[View] = []
        day = None
        for e in items:
            d = e["date"].date()
            if d != day:
                day = d
                total = sum(x["amount_cents"] for x in items if x["date"].date() == d)
                rows.append(V("linear", text_view(day_label(e["date"]), rid="date_header", size=38, grow=1,
                                                  style={"fg": "#00897b"}),
                              text_view(format_money(total), rid="day_total", size=38, w=300,
                                        style={"fg": "#00897b", "align": "right"}),
                              horizontal=True, h=110, pad=(48, 40, 48, 0)))
            rows.append(self._row(phone, e))
        summary = V("linear",
                    text_view(f"{MONTHS[now.month - 1]} total" + (f" · {cat}" if cat else ""), rid="summary_label",
                              size=38, style={"fg": "#ffffff"}),
                    text_view(format_money(month_total), rid="month_total", size=64, style={"fg": "#ffffff"}),
                    rid="summary_card", pad=(48, 30, 48, 30), style={"bg": "#00897b"})
        chip = None
        if cat:
            chip = V("linear", text_view(f"Category: {cat}", rid="filter_label", size=38, grow=1),
                     button("Clear", lambda: self._set_filter(phone, ALL_CATEGORIES), rid="clear_filter", w=220,
                            h=110),
                     horizontal=True, h=140, pad=(48, 15, 40, 15))
        empty = f"No {cat} expenses" if cat else "No expenses yet"
        body = V("linear", summary, chip, list_view(phone, scr, rows, empty=empty), grow=1)
        bar = app_bar("Expenses", actions=[("Filter", "filter", lambda: self._pick_filter(phone)),
                                           ("Statistics", "statistics", lambda: self._open_stats(phone))],
                      menu=[("Filter by category", lambda: self._pick_filter(phone)),
                            ("Statistics", lambda: self._open_stats(phone))], phone=phone)
        return screen_frame(bar, body, fab=fab("Add expense", lambda: self._open_editor(phone, None)))

    def _row(self, phone: Phone, e: dict) -> View:
        summary = e["category"] + (f" · {e['note']}" if e["note"] else "")
        amount = text_view(format_money(e["amount_cents"]), rid="amount", size=44, w=280,
                           style={"align": "right"})
        eid, name = e["expense_id"], e["name"]
        return list_row(name, summary, rid="expense_item", right=amount,
                        on_click=lambda: phone.push("detail", expense_id=eid),
                        on_long_click=lambda: self._confirm_delete(phone, eid, name))

    def _pick_filter(self, phone: Phone) -> None:
        scr = phone.screen
        cur = scr.state.get("category") if scr is not None else None
        phone.show_dialog(self.key, "choice", title="Filter by category", options=[ALL_CATEGORIES, *CATEGORIES],
                          selected=cur or ALL_CATEGORIES, on_ok="_set_filter")

    def _set_filter(self, phone: Phone, value: str) -> None:
        scr = phone.screen
        if scr is None or scr.name != "main":
            return
        scr.state["category"] = None if value == ALL_CATEGORIES else value
        scr.scroll.clear()

    def _open_stats(self, phone: Phone) -> None:
        phone.push("stats", year=phone.now.year, month=phone.now.month)

    def _confirm_delete(self, phone: Phone, expense_id: int, name: str) -> None:
        phone.show_dialog(self.key, "confirm", title="Delete expense?",
                          message=f"\u201c{name}\u201d will be permanently deleted.", ok="Delete",
                          on_ok="delete_expense", args={"expense_id": expense_id})

    def delete_expense(self, phone: Phone, expense_id: int) -> None:
        phone.execute("DELETE FROM expense WHERE expense_id=?", (expense_id,))
        if phone.screen is not None and phone.screen.name == "detail":
            phone.pop()
        phone.show_toast("Expense deleted")

    # ---- detail --------------------------------------------------------------------------------
    def screen_detail(self, phone: Phone, scr: Screen) -> View:
        rows = expenses(phone, "expense_id = ?", (scr.args["expense_id"],))
        if not rows:  # deleted underneath (e.g. by a task checker's near-miss edit)
            return screen_frame(app_bar("Expense", back=phone.back),
                                V("linear", text_view("This expense no longer exists", rid="empty_view")))
        e = rows[0]
        eid = e["expense_id"]

        def field(label: str, value: str, rid: str) -> View:
            return V("linear", text_view(label, rid=f"{rid}_label", size=34, style={"fg": "#5f6368"}),
                     text_view(value or "—", rid=rid, size=48), pad=(48, 30, 48, 20))

        body = V("linear",
                 field("Name", e["name"], "tv_name"), field("Amount", format_money(e["amount_cents"]), "tv_amount"),
                 field("Category", e["category"], "tv_category"), field("Date", day_label(e["date"]) + ", "
                                                                       + phone.format_time(e["date"].hour,
                                                                                           e["date"].minute),
                                                                       "tv_date"),
                 field("Note", e["note"], "tv_note"),
                 V("linear", button("Edit", lambda: self._open_editor(phone, eid), rid="btn_edit", primary=True),
                   button("Delete", lambda: self._confirm_delete(phone, eid, e["name"]), rid="btn_delete"),
                   horizontal=True, gap=40, pad=(48, 60, 48, 0)))
        bar = app_bar("Expense details", back=phone.back,
                      actions=[("Delete", "delete", lambda: self._confirm_delete(phone, eid, e["name"]))])
        return screen_frame(bar, body)

    # ---- add / edit ----------------------------------------------------------------------------
    def _open_editor(self, phone: Phone, expense_id: int | None) -> None:
        if expense_id is None:
            scr = phone.push("edit", expense_id=None)
            scr.state.update(category="Food", year=phone.now.year, month=phone.now.month, day=phone.now.day)
            return
        e = expenses(phone, "expense_id = ?", (expense_id,))[0]
        scr = phone.push("edit", expense_id=expense_id)
        scr.fields.update(name=e["name"], amount=f"{e['amount_cents'] / 100:.2f}", note=e["note"])
        scr.state.update(category=e["category"], year=e["date"].year, month=e["date"].month, day=e["date"].day)

    def screen_edit(self, phone: Phone, scr: Screen) -> View:
        st = scr.state
        when = datetime(st["year"], st["month"], st["day"])

        def pick_category() -> None:
            phone.show_dialog(self.key, "choice", title="Category", options=list(CATEGORIES),
                              selected=st["category"], on_ok="_set_category")

        def pick_date() -> None:
            phone.show_dialog(self.key, "date_picker", title="Date", year=st["year"], month=st["month"],
                              day=st["day"], on_ok="_set_date")

        def label(text: str) -> View:
            return text_view(text, size=34, pad=(0, 20, 0, 0), style={"fg": "#5f6368"})

        form = V("linear",
                 label("Name"), edit_field(phone, scr.fields, "name", hint="Expense name", rid="edt_name"),
                 label("Amount"), edit_field(phone, scr.fields, "amount", hint="0.00", rid="edt_amount"),
                 label("Category"),
                 V("linear", text_view(st["category"], rid="tv_category", grow=1, size=46), rid="category_spinner",
                   desc="Category", horizontal=True, clickable=True, focusable=True, on_click=pick_category,
                   h=130, pad=(24, 30, 24, 0), style={"border": True}),
                 label("Date"),
                 V("linear", text_view(day_label(when), rid="tv_date", grow=1, size=46), rid="date_picker_button",
                   desc="Date", horizontal=True, clickable=True, focusable=True, on_click=pick_date, h=130,
                   pad=(24, 30, 24, 0), style={"border": True}),
                 label("Note"), edit_field(phone, scr.fields, "note", hint="Note (optional)", rid="edt_note"),
                 V("linear", button("Save", lambda: self._save(phone, scr), rid="btn_save", primary=True),
                   pad=(0, 50, 0, 0)),
                 rid="expense_form", pad=(48, 10, 48, 0), gap=6)
        title = "Edit expense" if scr.args.get("expense_id") else "Add expense"
        return screen_frame(app_bar(title, back=phone.back), form)

    def _edit_screen(self, phone: Phone) -> Screen | None:
        scr = phone.screen
        return scr if scr is not None and scr.name == "edit" else None

    def _set_category(self, phone: Phone, value: str) -> None:
        scr = self._edit_screen(phone)
        if scr is not None:
            scr.state["category"] = value

    def _set_date(self, phone: Phone, year: int, month: int, day: int) -> None:
        scr = self._edit_screen(phone)
        if scr is not None:
            scr.state.update(year=year, month=month, day=day)

    def _save(self, phone: Phone, scr: Screen) -> None:
        name = scr.fields.get("name", "").strip()
        cents = parse_money(scr.fields.get("amount", ""))
        if not name:
            phone.show_toast("Please enter a name")
            return
        if cents is None or cents <= 0:
            phone.show_toast("Please enter a valid amount")
            return
        st = scr.state
        note = scr.fields.get("note", "").strip()
        eid = scr.args.get("expense_id")
        if eid is None:
            when = datetime(st["year"], st["month"], st["day"], phone.now.hour, phone.now.minute)
            add_expense(phone, name, cents, st["category"], when, note, modified=phone.now)
        else:
            old = from_ms(phone.query_one("SELECT created_date FROM expense WHERE expense_id=?", (eid,))[0])
            when = datetime(st["year"], st["month"], st["day"], old.hour, old.minute)
            phone.execute("UPDATE expense SET name=?, amount_cents=?, category_id=?, note=?, created_date=?, "
                          "modified_date=? WHERE expense_id=?",
                          (name, cents, category_id(phone, st["category"]), note, to_ms(when), to_ms(phone.now),
                           eid))
        phone.pop()  # back to the list (or to the detail screen, which re-reads the row)
        phone.show_toast("Expense saved")

    # ---- statistics ----------------------------------------------------------------------------
    def screen_stats(self, phone: Phone, scr: Screen) -> View:
        y, m = scr.args["year"], scr.args["month"]
        items = month_expenses(phone, y, m)
        total = sum(e["amount_cents"] for e in items)

        def shift(delta: int) -> None:
            idx = y * 12 + m - 1 + delta
            scr.args.update(year=idx // 12, month=idx % 12 + 1)
            scr.scroll.clear()

        header = V("linear", icon_button("Previous month", lambda: shift(-1), rid="prev_month", icon="back"),
                   text_view(f"{MONTHS[m - 1]} {y}", rid="month_label", size=50, grow=1,
                             style={"align": "center"}),
                   icon_button("Next month", lambda: shift(1), rid="next_month", icon="forward"),
                   horizontal=True, h=150, pad=(24, 12, 24, 12))
        rows: list[View] = [
            list_row("Total spent", format_money(total), rid="total_spent"),
            list_row("Number of expenses", str(len(items)), rid="expense_count"),
        ]
        if items:
            top = max(items, key=lambda e: (e["amount_cents"], -e["expense_id"]))
            rows.append(list_row("Largest expense", f"{top['name']} · {format_money(top['amount_cents'])}",
                                 rid="largest_expense"))
        rows.append(text_view("By category", rid="section_title", size=38, pad=(48, 30, 0, 10),
                              style={"fg": "#00897b"}))
        by_cat: dict[str, list[int]] = {}
        for e in items:
            by_cat.setdefault(e["category"], []).append(e["amount_cents"])
        for cat, amounts in sorted(by_cat.items(), key=lambda kv: (-sum(kv[1]), kv[0])):
            s = sum(amounts)
            pct = round(100 * s / total) if total else 0
            n = len(amounts)
            rows.append(list_row(cat, f"{format_money(s)} · {pct}% · {n} expense{'s' if n != 1 else ''}",
                                 rid="category_total"))
        if not items:
            rows.append(text_view("No expenses this month", rid="empty_view", size=42, pad=(48, 40, 48, 0)))
        return screen_frame(app_bar("Statistics", back=phone.back),
                            V("linear", header, list_view(phone, scr, rows), grow=1))
