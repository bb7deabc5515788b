"""Expenses app: screens (list, filter, form validation, statistics) and every task template
(oracle solves it, doing nothing fails, checker success + near miss)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, timedelta

import pytest
from simhelpers import fresh, unread_values

from droidverify.actions.model import Action
from droidverify.env.sim import SimEnv
from droidverify.env.sim.apps.expenses import (
    SEED_COUNT,
    add_expense,
    category_id,
    expenses,
    format_money,
    month_expenses,
    parse_money,
)
from droidverify.env.sim.phone import Phone
from droidverify.tasks import registry
from droidverify.tasks.expenses import money_matches
from droidverify.tasks.oracle_utils import find, find_all

TEMPLATES = [t for t in registry.all_templates() if t.name.startswith("expenses_")]
NAMES = [t.name for t in TEMPLATES]


def test_enough_templates_with_both_kinds() -> None:
    assert len(NAMES) >= 25
    kinds = {t.kind for t in TEMPLATES}
    assert kinds == {"operation", "query"}


# ---- checker success + near miss --------------------------------------------------------------
def _today(p: Phone) -> datetime:
    return p.now.replace(second=0, microsecond=0)


def _cents(s: str) -> int:
    c = parse_money(s)
    assert c is not None
    return c


def _add(day_key: str | None = None, cents_delta: int = 0, category: str | None = None, note: str | None = None,
         twice: bool = False):
    def f(p: Phone, pr: dict) -> None:
        when = datetime.fromisoformat(pr[day_key]).replace(hour=9) if day_key else _today(p)
        for _ in range(2 if twice else 1):
            add_expense(p, pr["name"], _cents(pr["amount"]) + cents_delta, category or pr["category"], when,
                        pr.get("note", "") if note is None else note)
    return f


def _target(p: Phone, pr: dict) -> int:
    return expenses(p, "e.name = ?", (pr["name"],))[0]["expense_id"]


def _update(**cols: Callable[[Phone, dict], object]):
    def f(p: Phone, pr: dict) -> None:
        eid = _target(p, pr)
        for col, value in cols.items():
            p.execute(f"UPDATE expense SET {col}=? WHERE expense_id=?", (value(p, pr), eid))
    return f


def _ms(iso: str, shift_days: int = 0) -> int:
    from droidverify.env.sim.apps.expenses import to_ms

    return to_ms(datetime.fromisoformat(iso).replace(hour=12, minute=30) + timedelta(days=shift_days))


def _delete_named(p: Phone, pr: dict) -> None:
    p.execute("DELETE FROM expense WHERE name=?", (pr["name"],))


def _delete_named_and_another(p: Phone, pr: dict) -> None:
    _delete_named(p, pr)
    p.execute("DELETE FROM expense WHERE expense_id = (SELECT MIN(expense_id) FROM expense)")


def _delete_one_of_named(p: Phone, pr: dict) -> None:
    p.execute("DELETE FROM expense WHERE expense_id = (SELECT MIN(expense_id) FROM expense WHERE name=?)",
              (pr["name"],))


def _add_both(only_first: bool = False):
    def f(p: Phone, pr: dict) -> None:
        for i in (1,) if only_first else (1, 2):
            add_expense(p, pr[f"name{i}"], _cents(pr[f"amount{i}"]), pr[f"category{i}"], _today(p))
    return f


# name -> (make it succeed, near miss that must fail)
OPS: dict[str, tuple[Callable, Callable]] = {
    "expenses_add_expense": (_add(), _add(cents_delta=100)),
    "expenses_add_expense_on_date": (_add("day"), lambda p, pr: _add()(p, pr)),  # right item, today not the date
    "expenses_add_expense_with_note": (_add(), _add(note="")),
    "expenses_add_two_expenses": (_add_both(), _add_both(only_first=True)),
    "expenses_delete_expense": (_delete_named, _delete_named_and_another),
    "expenses_delete_all_named": (_delete_named, _delete_one_of_named),
    "expenses_edit_amount": (_update(amount_cents=lambda p, pr: _cents(pr["new_amount"])),
                             _update(amount_cents=lambda p, pr: _cents(pr["new_amount"]) + 1)),
    "expenses_edit_category": (_update(category_id=lambda p, pr: category_id(p, pr["new_category"])),
                               _update(category_id=lambda p, pr: category_id(
                                   p, "Other" if pr["new_category"] != "Other" else "Food"))),
    "expenses_rename_expense": (_update(name=lambda p, pr: pr["new_name"]),
                                _update(name=lambda p, pr: pr["new_name"], amount_cents=lambda p, pr: 1)),
    "expenses_edit_date": (_update(created_date=lambda p, pr: _ms(pr["new_day"])),
                           _update(created_date=lambda p, pr: _ms(pr["new_day"], 1))),
}


def _update_decoy(p: Phone, pr: dict) -> None:
    p.execute("UPDATE expense SET note=? WHERE name=?", (pr["note"], pr["decoy"]))


def _delete_on(day_key: str):
    def f(p: Phone, pr: dict) -> None:
        p.execute("DELETE FROM expense WHERE name=? AND date(created_date / 1000, 'unixepoch')=?",
                  (pr["name"], pr[day_key]))
    return f


def _add_again(day_key: str | None = None, cents_delta: int = 0):
    def f(p: Phone, pr: dict) -> None:
        when = datetime.fromisoformat(pr[day_key]).replace(hour=9) if day_key else _today(p)
        add_expense(p, pr["name"], _cents(pr["amount"]) + cents_delta, pr["category"], when)
    return f


OPS.update({
    "expenses_add_note": (_update(note=lambda p, pr: pr["note"]), _update_decoy),  # the look-alike got it
    "expenses_delete_expense_on_date": (_delete_on("day"), _delete_on("other_day")),  # the other one
    "expenses_edit_amount_and_category": (
        _update(amount_cents=lambda p, pr: _cents(pr["new_amount"]),
                category_id=lambda p, pr: category_id(p, pr["new_category"])),
        _update(amount_cents=lambda p, pr: _cents(pr["new_amount"]))),  # category forgotten
    "expenses_split_expense_in_half": (_update(amount_cents=lambda p, pr: _cents(pr["amount"]) // 2),
                                       _update(amount_cents=lambda p, pr: _cents(pr["amount"]) // 2 + 1)),
    "expenses_repeat_expense": (_add_again(), _add_again(cents_delta=100)),  # not the same price
})


def test_new_templates_more_near_misses() -> None:
    """Second near misses: note plus another field changed, both look-alikes deleted, old date re-used."""
    cases: dict[str, Callable[[Phone, dict], None]] = {
        "expenses_add_note": _update(note=lambda p, pr: pr["note"], amount_cents=lambda p, pr: 1),
        "expenses_delete_expense_on_date": _delete_named,
        "expenses_edit_amount_and_category": _update(category_id=lambda p, pr: category_id(p, pr["new_category"])),
        "expenses_split_expense_in_half": _update(amount_cents=lambda p, pr: _cents(pr["amount"]) // 4),
        "expenses_repeat_expense": _add_again("day"),  # a copy on the old day, not today
    }
    for name, bad in cases.items():
        task = registry.get_template(name).instantiate(2)
        env = fresh(task, 2)
        bad(env.phone, task.params)
        assert task.is_successful(env.phone, None) == 0.0, name


@pytest.mark.parametrize("name", sorted(OPS))
def test_operation_checker_success_and_near_miss(name: str) -> None:
    good, bad = OPS[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        good(env.phone, task.params)
        assert task.is_successful(env.phone, None) == 1.0, (name, seed)
        env2 = fresh(task, seed)
        bad(env2.phone, task.params)
        assert task.is_successful(env2.phone, None) == 0.0, (name, seed)


def test_add_duplicate_and_collateral_changes_fail() -> None:
    task = registry.get_template("expenses_add_expense").instantiate(3)
    env = fresh(task, 3)
    _add(twice=True)(env.phone, task.params)
    assert task.is_successful(env.phone, None) == 0.0  # a duplicate is not "an expense"
    env = fresh(task, 3)
    _add()(env.phone, task.params)
    env.phone.execute("UPDATE expense SET amount_cents = amount_cents + 1 WHERE expense_id = 1")
    assert task.is_successful(env.phone, None) == 0.0  # an unrelated row was changed
    env = fresh(task, 3)
    _add(category="Health" if task.params["category"] != "Health" else "Food")(env.phone, task.params)
    assert task.is_successful(env.phone, None) == 0.0  # wrong category


def _month(p: Phone, pr: dict, category: str | None = None) -> list[dict]:
    return month_expenses(p, pr["year"], pr["month_num"], category)


QUERIES: dict[str, tuple[Callable[[Phone, dict], list[str]], Callable[[Phone, dict], list[str]]]] = {
    "expenses_query_amount": (
        lambda p, pr: [format_money(_cents(pr["amount"])), pr["amount"].rstrip("0").rstrip("."),
                       f"It cost {pr['amount']} dollars"],
        lambda p, pr: [format_money(_cents(pr["amount"]) + 1), "I don't know", "1 2 3 4 " + pr["amount"]]),
    "expenses_query_category_this_month": (
        lambda p, pr: [format_money(sum(e["amount_cents"] for e in _month(p, pr, pr["category"])))],
        lambda p, pr: [format_money(sum(e["amount_cents"] for e in _month(p, pr)))]),
    "expenses_query_month_total": (
        lambda p, pr: [format_money(sum(e["amount_cents"] for e in _month(p, pr))),
                       f"{sum(e['amount_cents'] for e in _month(p, pr)) / 100:.2f}".replace(".00", "")],
        lambda p, pr: [format_money(sum(e["amount_cents"] for e in _month(p, pr)) - 1)]),
    "expenses_query_largest_in_month": (
        lambda p, pr: [max(_month(p, pr), key=lambda e: e["amount_cents"])["name"]],
        lambda p, pr: [sorted(_month(p, pr), key=lambda e: -e["amount_cents"])[i]["name"]
                       for i in range(1, 4)
                       if sorted(_month(p, pr), key=lambda e: -e["amount_cents"])[i]["name"]
                       != max(_month(p, pr), key=lambda e: e["amount_cents"])["name"]][:1]),
    "expenses_query_category_count": (
        lambda p, pr: [str(len(_month(p, pr, pr["category"]))),
                       f"{len(_month(p, pr, pr['category']))} expenses"],
        lambda p, pr: [str(len(_month(p, pr, pr["category"])) + 1)]),
    "expenses_query_top_category": (
        lambda p, pr: [registry.get_template("expenses_query_top_category").expected(p, pr)],
        lambda p, pr: ["Food, Transport, Shopping, Bills, Entertainment, Health, Education or Other"]),
}


def _day_texts(d: date) -> list[str]:
    return [f"{d:%B} {d.day}, {d.year}", f"{d:%b} {d.day}{'th' if d.day > 3 else ''}", d.isoformat(),
            f"{d.month}/{d.day}/{d.year}", f"On {d:%A}, {d:%B} {d.day}, {d.year} at 12:30 PM"]


def _shift(iso: str, days: int) -> date:
    return date.fromisoformat(iso) + timedelta(days=days)


def _day_cents(p: Phone, iso: str) -> int:
    return sum(e["amount_cents"] for e in expenses(p) if e["date"].date().isoformat() == iso)


def _share(p: Phone, pr: dict) -> int:
    return int(registry.get_template("expenses_query_category_share").expected(p, pr).rstrip("%"))


def _in_category(p: Phone, pr: dict) -> list[str]:
    return [e["name"] for e in expenses(p, "c.name = ?", (pr["category"],))]


def _older_name(p: Phone, pr: dict) -> str:
    names = _in_category(p, pr)
    return next((n for n in names[1:] if n != names[0]), "Nothing")


QUERIES.update({
    "expenses_query_expense_date": (
        lambda p, pr: _day_texts(date.fromisoformat(pr["day"])),
        lambda p, pr: [_day_texts(_shift(pr["day"], 1))[0], _day_texts(_shift(pr["day"], -1))[0],  # the decoy's day
                       f"{_day_texts(_shift(pr['day'], 0))[0]} or {_day_texts(_shift(pr['day'], 1))[0]}",
                       _day_texts(_shift(pr["day"], 31))[0]]),
    "expenses_query_day_total": (
        lambda p, pr: [format_money(_day_cents(p, pr["day"])), f"{_day_cents(p, pr['day']) / 100:.2f} dollars"],
        lambda p, pr: [format_money(_day_cents(p, pr["day"]) - _cents(pr["amount"])),  # planted one left out
                       format_money(_day_cents(p, pr["day"]) + 1)]),
    "expenses_query_category_share": (
        lambda p, pr: [f"{_share(p, pr)}%", f"About {_share(p, pr)} percent", f"{_share(p, pr)} %"],
        lambda p, pr: [f"{_share(p, pr) + 1}%", f"{_share(p, pr)}% or {_share(p, pr) + 1}%",
                       f"{_share(p, pr) - 1} percent"]),
    "expenses_query_latest_in_category": (
        lambda p, pr: [_in_category(p, pr)[0], f"It was {_in_category(p, pr)[0]}."],
        lambda p, pr: [_older_name(p, pr), f"{_in_category(p, pr)[0]} or {_older_name(p, pr)}"]),
})


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_query_checker_success_and_near_miss(name: str) -> None:
    good, bad = QUERIES[name]
    tmpl = registry.get_template(name)
    for seed in range(3):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        for a in good(env.phone, task.params):
            assert task.is_successful(env.phone, a) == 1.0, (name, seed, a)
        wrong = bad(env.phone, task.params)
        assert wrong, name
        for a in wrong:
            assert task.is_successful(env.phone, a) == 0.0, (name, seed, a)


def test_money_parsing_and_matching() -> None:
    assert parse_money("42.5") == 4250 and parse_money("$1,234.50") == 123450 and parse_money("7") == 700
    assert parse_money("abc") is None and parse_money("") is None and parse_money("1.234") is None
    assert format_money(123450) == "$1,234.50" and format_money(5) == "$0.05"
    assert money_matches("$42.50", 4250) and money_matches("42.5", 4250) and money_matches("USD 42", 4200)
    assert not money_matches("$42.51", 4250) and not money_matches(None, 4250)
    assert not money_matches("10 20 30 42.50", 4250)  # enumerating amounts is not an answer


# ---- screens ------------------------------------------------------------------------------------
def _open() -> SimEnv:
    env = SimEnv(seed=0)
    env.reset()
    env.step(Action(action_type="open_app", app_name="Expenses"))
    return env


def _click(env: SimEnv, **criteria):
    obs = env.last_observation or env.observe()
    i = find(obs, **criteria)
    assert i is not None, (criteria, [e.label for e in obs.elements])
    return env.step(Action(action_type="click", index=i))


def test_main_list_grouped_by_day_and_scrolls_with_offscreen_rows_absent() -> None:
    env = _open()
    obs = env.observe()
    assert "com.arduia.expense:id/summary_card" in obs.xml  # a container: in the dump, not an element
    for rid in ("month_total", "date_header", "expense_item", "fab"):
        assert find(obs, resource_id=rid) is not None, rid
    rows = find_all(obs, resource_id="expense_item")
    assert 3 <= len(rows) < SEED_COUNT  # only what fits is in the tree
    first = [obs.elements[i].label for i in rows]
    newest = expenses(env.phone)[0]
    assert obs.elements[rows[0]].label.startswith(newest["name"])
    oldest = expenses(env.phone)[-1]
    assert not any(oldest["name"] in (obs.elements[i].label or "") and format_money(oldest["amount_cents"])
                   in (obs.elements[i].label or "") for i in rows)
    obs = env.step(Action(action_type="scroll", direction="down"))
    after = [obs.elements[i].label for i in find_all(obs, resource_id="expense_item")]
    assert after and after != first
    now = env.phone.now
    month_total = sum(e["amount_cents"] for e in month_expenses(env.phone, now.year, now.month))
    assert obs.elements[find(obs, resource_id="month_total")].text == format_money(month_total)


def test_filter_by_category_dialog_and_clear() -> None:
    env = _open()
    obs = _click(env, desc="Filter")
    assert obs.info["dialog"] == "choice"
    obs = _click(env, text="Food", class_contains="RadioButton")
    labels = [obs.elements[i].label for i in find_all(obs, resource_id="expense_item")]
    assert labels and all(" | Food" in lbl for lbl in labels)
    assert find(obs, text="Category: Food") is not None
    obs = _click(env, resource_id="clear_filter")
    assert find(obs, resource_id="filter_label") is None


def test_add_form_validates_amount_then_saves_with_category_and_date() -> None:
    env = _open()
    before = len(expenses(env.phone))
    obs = _click(env, desc="Add expense")
    assert env.phone.location == "expenses/edit"
    obs = env.step(Action(action_type="input_text", index=find(obs, resource_id="edt_name"), text="Taxi"))
    obs = env.step(Action(action_type="input_text", index=find(obs, resource_id="edt_amount"), text="twelve"))
    obs = _click(env, resource_id="btn_save")
    assert obs.info["toast"] == "Please enter a valid amount" and len(expenses(env.phone)) == before
    obs = env.step(Action(action_type="input_text", index=find(obs, resource_id="edt_amount"), text="$12.5"))
    _click(env, resource_id="category_spinner")
    _click(env, text="Transport", class_contains="RadioButton")
    obs = _click(env, resource_id="date_picker_button")
    assert obs.info["dialog"] == "date_picker"
    obs = _click(env, desc="Previous month")
    obs = env.step(Action(action_type="input_text", index=find(obs, resource_id="day"), text="3"))
    _click(env, text="OK", resource_id="button1")
    obs = _click(env, resource_id="btn_save")
    assert env.phone.location == "expenses/main" and obs.info["toast"] == "Expense saved"
    e = expenses(env.phone, "e.name = 'Taxi'")
    assert len(e) == 1 and e[0]["amount_cents"] == 1250 and e[0]["category"] == "Transport"
    assert e[0]["date"].date() == date(2024, 9, 3)


def test_detail_delete_needs_confirmation_and_stats_switch_months() -> None:
    env = _open()
    victim = expenses(env.phone)[0]
    _click(env, resource_id="expense_item")
    obs = _click(env, resource_id="btn_delete")
    assert obs.info["dialog"] == "confirm"
    env.step(Action(action_type="navigate_back"))  # cancel keeps it
    assert expenses(env.phone, "expense_id = ?", (victim["expense_id"],))
    _click(env, resource_id="btn_delete")
    obs = _click(env, text="Delete", resource_id="button1")
    assert not expenses(env.phone, "expense_id = ?", (victim["expense_id"],))
    assert env.phone.location == "expenses/main"
    obs = _click(env, desc="Statistics")
    assert obs.elements[find(obs, resource_id="month_label")].text == "October 2024"
    obs = _click(env, desc="Previous month")
    assert obs.elements[find(obs, resource_id="month_label")].text == "September 2024"
    sep = month_expenses(env.phone, 2024, 9)
    assert find(obs, text="Total spent") is not None
    assert find(obs, text=format_money(sum(e["amount_cents"] for e in sep)), resource_id="summary") is not None


def test_date_answers() -> None:
    from droidverify.tasks.expenses import date_matches

    d = date(2024, 10, 3)
    for ok in ("October 3, 2024", "Oct 3rd", "oct. 3", "2024-10-03", "10/3/2024", "I decided on Oct 3",
               "Thu, Oct 3, 2024, 12:30 PM"):
        assert date_matches(ok, d), ok
    for bad in ("October 13, 2024", "Oct 3, 2023", "Sep 3", "Oct 3 or Oct 4", "3/10/2024", "October", None,
                "October 3 or November 3"):
        assert not date_matches(bad, d), bad


# Regression: amounts next to a date were read as days ("$45.20" -> days 45 and 20).
@pytest.mark.parametrize(("text", "ok"), [
    ("October 9, 2024 ($45.20)", True),
    ("October 9, 2024, $12.05", True),
    ("$12.05 on October 9", True),
    ("Oct 9 - $9.50", True),
    ("October 9, 2024 (45.20)", True),
    ("Oct 9: 12.05 dollars", True),
    ("October 9, 2024 ($1,234.56)", True),
    ("October 9, $12", True),
    ("2024-10-09 ($3.50)", True),
    ("10/9/2024 $12.05", True),
    ("Wed, Oct 9, 2024, 10:30:00 AM ($8.00)", True),
    ("October 12, 2024 ($9.05)", False),
    ("Oct 9, 2023 ($4.50)", False),
    ("Oct 9 or Oct 10 ($45.20)", False),
    ("Oct 9 or 10", False),
    ("October ($9.00)", False),
    ("$9.10", False),
])
def test_date_answers_with_amounts(text: str, ok: bool) -> None:
    from droidverify.tasks.expenses import date_matches

    assert date_matches(text, date(2024, 10, 9)) is ok


# ---- the second batch of kinds: bulk/comparative edits, merges, read-then-act, range and comparison queries ----
def _tmpl(name: str):
    return registry.get_template(name)


def _recat(all_of_them: bool = True, decoy: bool = False):
    def f(p: Phone, pr: dict) -> None:
        new = category_id(p, pr["new_category"])
        ids = [e["expense_id"] for e in expenses(p, "e.name = ?", (pr["name"],))]
        for eid in ids if all_of_them else ids[:1]:
            p.execute("UPDATE expense SET category_id=? WHERE expense_id=?", (new, eid))
        if decoy:
            p.execute("UPDATE expense SET category_id=? WHERE name=?", (new, pr["decoy"]))
    return f


def _merge(keep_right: bool = True, delete_other: bool = True):
    def f(p: Phone, pr: dict) -> None:
        keep, other = _tmpl("expenses_merge_two_entries").ids(p, pr)
        if not keep_right:
            keep, other = other, keep
        p.execute("UPDATE expense SET amount_cents=? WHERE expense_id=?",
                  (_cents(pr["amount"]) + _cents(pr["other_amount"]), keep))
        if delete_other:
            p.execute("DELETE FROM expense WHERE expense_id=?", (other,))
    return f


def _fix_from_note(note: str | None = "", on_decoy: bool = False):
    def f(p: Phone, pr: dict) -> None:
        name = pr["decoy"] if on_decoy else pr["name"]
        p.execute("UPDATE expense SET amount_cents=?, note=COALESCE(?, note) WHERE name=?",
                  (_cents(pr["real_amount"]), note, name))
    return f


def _delete_largest(which: str):
    def f(p: Phone, pr: dict) -> None:
        if which == "decoy":  # last month's bigger one
            p.execute("DELETE FROM expense WHERE name=?", (pr["decoy"],))
            return
        eid = _tmpl("expenses_delete_largest_in_category").targets(p, pr)[0][0]
        p.execute("DELETE FROM expense WHERE expense_id=?", (eid,))
        if which == "and_another":
            p.execute("DELETE FROM expense WHERE expense_id = (SELECT MIN(expense_id) FROM expense)")
    return f


def _add_same_day(day_key: str | None = "ref_day"):
    def f(p: Phone, pr: dict) -> None:
        when = datetime.fromisoformat(pr[day_key]).replace(hour=9) if day_key else _today(p)
        add_expense(p, pr["name"], _cents(pr["amount"]), pr["category"], when)
    return f


def _delete_on_day(whole_day: bool = False, just_one: bool = False):
    def f(p: Phone, pr: dict) -> None:
        where = "date(created_date / 1000, 'unixepoch')=?"
        args: tuple = (pr["day"],)
        if not whole_day:
            where += " AND category_id=?"
            args += (category_id(p, pr["category"]),)
        if just_one:
            where += " AND name=?"
            args += (pr["names"][0],)
        p.execute(f"DELETE FROM expense WHERE {where}", args)
    return f


def _swap(both: bool = True):
    def f(p: Phone, pr: dict) -> None:
        p.execute("UPDATE expense SET amount_cents=? WHERE name=?", (_cents(pr["amount2"]), pr["name1"]))
        if both:
            p.execute("UPDATE expense SET amount_cents=? WHERE name=?", (_cents(pr["amount1"]), pr["name2"]))
    return f


NEW_OPS: dict[str, tuple[Callable, list[Callable]]] = {
    "expenses_recategorize_all_named": (_recat(), [_recat(all_of_them=False), _recat(decoy=True)]),
    "expenses_merge_two_entries": (_merge(), [_merge(keep_right=False), _merge(delete_other=False)]),
    "expenses_fix_amount_from_note": (_fix_from_note(), [_fix_from_note(note=None),
                                                         _fix_from_note(on_decoy=True)]),
    "expenses_delete_largest_in_category": (_delete_largest("target"), [_delete_largest("decoy"),
                                                                        _delete_largest("and_another")]),
    "expenses_add_on_same_day_as": (_add_same_day(), [_add_same_day(None)]),
    "expenses_delete_category_on_day": (_delete_on_day(), [_delete_on_day(whole_day=True),
                                                           _delete_on_day(just_one=True)]),
    "expenses_swap_amounts": (_swap(), [_swap(both=False)]),
}


@pytest.mark.parametrize("name", sorted(NEW_OPS))
def test_more_operation_checkers_success_and_near_misses(name: str) -> None:
    good, bads = NEW_OPS[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        good(env.phone, task.params)
        assert task.is_successful(env.phone, None) == 1.0, (name, seed)
        for i, bad in enumerate(bads):
            env2 = fresh(task, seed)
            bad(env2.phone, task.params)
            assert task.is_successful(env2.phone, None) == 0.0, (name, seed, i)


def _month_cents(p: Phone, year: int, month: int, category: str | None = None) -> int:
    return sum(e["amount_cents"] for e in month_expenses(p, year, month, category))


def _gap(p: Phone, pr: dict) -> int:
    return abs(_month_cents(p, pr["year"], pr["month1_num"]) - _month_cents(p, pr["year"], pr["month2_num"]))


def _avg(p: Phone, pr: dict) -> tuple[int, int]:
    items = month_expenses(p, pr["year"], pr["month_num"], pr["category"])
    return sum(e["amount_cents"] for e in items), len(items)


def _cheap(p: Phone, pr: dict) -> tuple[str, str]:
    """(the cheapest name in the category, a pricier name that is not it)."""
    items = sorted(expenses(p, "c.name = ?", (pr["category"],)), key=lambda e: e["amount_cents"])
    low = items[0]["name"]
    return low, next((e["name"] for e in items[1:] if e["amount_cents"] > items[0]["amount_cents"]
                      and low.lower() not in e["name"].lower() and e["name"].lower() not in low.lower()), "Nothing")


def _pricier(pr: dict) -> tuple[str, str]:
    one = _cents(pr["amount1"]) > _cents(pr["amount2"])
    return (pr["name1"], pr["name2"]) if one else (pr["name2"], pr["name1"])


def _since(p: Phone, pr: dict, *, include_first: bool = True) -> int:
    day = date.fromisoformat(pr["day"])
    return sum(e["amount_cents"] for e in expenses(p)
               if e["date"].date() > day or (include_first and e["date"].date() == day))


NEW_QUERIES: dict[str, tuple[Callable[[Phone, dict], list[str]], Callable[[Phone, dict], list[str]]]] = {
    "expenses_query_month_difference": (
        lambda p, pr: [format_money(_gap(p, pr)), f"The gap is {_gap(p, pr) / 100:.2f} dollars"],
        lambda p, pr: [format_money(_month_cents(p, pr["year"], pr["month1_num"])),  # a month's total
                       format_money(_gap(p, pr) + 1), "I don't know"]),
    "expenses_query_category_average": (
        lambda p, pr: [format_money(int(_avg(p, pr)[0] / _avg(p, pr)[1] + 0.5)),
                       f"about {_avg(p, pr)[0] // _avg(p, pr)[1] / 100:.2f}"],  # truncated to the cent
        lambda p, pr: [format_money(_avg(p, pr)[0]),  # the category total, not the average
                       format_money(_avg(p, pr)[0] // _avg(p, pr)[1] + 3)]),
    "expenses_query_cheapest_in_category": (
        lambda p, pr: [_cheap(p, pr)[0], f"It was {_cheap(p, pr)[0]}."],
        lambda p, pr: [_cheap(p, pr)[1], f"{_cheap(p, pr)[0]} or {_cheap(p, pr)[1]}"]),
    "expenses_query_which_cost_more": (
        lambda p, pr: [_pricier(pr)[0], f"\"{_pricier(pr)[0]}\" cost more"],
        lambda p, pr: [_pricier(pr)[1], f"{pr['name1']} or {pr['name2']}"]),
    "expenses_query_spent_since": (
        lambda p, pr: [format_money(_since(p, pr)), f"{_since(p, pr) / 100:.2f}"],
        lambda p, pr: [format_money(_since(p, pr, include_first=False)),  # the first day left out
                       format_money(_since(p, pr) + 1)]),
}


@pytest.mark.parametrize("name", sorted(NEW_QUERIES))
def test_more_query_checkers_success_and_near_misses(name: str) -> None:
    good, bad = NEW_QUERIES[name]
    tmpl = registry.get_template(name)
    for seed in range(3):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        assert task.is_successful(env.phone, None) == 0.0, (name, seed)
        for a in good(env.phone, task.params):
            assert task.is_successful(env.phone, a) == 1.0, (name, seed, a)
        for a in bad(env.phone, task.params):
            assert task.is_successful(env.phone, a) == 0.0, (name, seed, a)


def test_cheapest_follows_the_data_and_swap_checks_both_rows() -> None:
    """Answers follow the current data (a cheaper planted row wins); a swap that also renames fails."""
    task = registry.get_template("expenses_query_cheapest_in_category").instantiate(4)
    env = fresh(task, 4)
    add_expense(env.phone, "Tiny thing", 1, task.params["category"], _today(env.phone))
    assert task.is_successful(env.phone, "Tiny thing") == 1.0
    task = registry.get_template("expenses_swap_amounts").instantiate(4)
    env = fresh(task, 4)
    _swap()(env.phone, task.params)
    env.phone.execute("UPDATE expense SET name=? WHERE name=?", (task.params["name1"] + " x", task.params["name1"]))
    assert task.is_successful(env.phone, None) == 0.0


# ---- the third batch: day moves, receipts, copies, split-offs, replacements, thresholds, day/month queries ----
def _move_day(only_first: bool = False, wrong_day: bool = False):
    def f(p: Phone, pr: dict) -> None:
        from droidverify.env.sim.timeutil import to_ms
        new = date.fromisoformat(pr["new_day"]) - timedelta(days=1 if wrong_day else 0)
        rows = [e for e in expenses(p) if e["date"].date().isoformat() == pr["day"]]
        for e in rows[:1] if only_first else rows:
            p.execute("UPDATE expense SET created_date=? WHERE expense_id=?",
                      (to_ms(datetime.combine(new, e["date"].time())), e["expense_id"]))
    return f


def _receipt(fix: str = "wrong", cents_delta: int = 0):
    def f(p: Phone, pr: dict) -> None:
        i = pr["wrong"] if fix in ("wrong", "both") else 3 - pr["wrong"]
        p.execute("UPDATE expense SET amount_cents=? WHERE name=?", (_cents(pr[f"amount{i}"]) + cents_delta,
                                                                      pr[f"name{i}"]))
        if fix == "both":
            j = 3 - i
            p.execute("UPDATE expense SET amount_cents=amount_cents + 100 WHERE name=?", (pr[f"name{j}"],))
    return f


def _match_category(reverse: bool = False):
    def f(p: Phone, pr: dict) -> None:
        if reverse:  # the reference moved to the wrong category instead
            p.execute("UPDATE expense SET category_id=? WHERE name=?", (category_id(p, pr["category"]), pr["ref"]))
        else:
            p.execute("UPDATE expense SET category_id=? WHERE name=?",
                      (category_id(p, pr["ref_category"]), pr["name"]))
    return f


def _copies(keep: int = 1, old_too: bool = False):
    def f(p: Phone, pr: dict) -> None:
        ids = [e["expense_id"] for e in expenses(p, "e.name = ?", (pr["name"],))
               if e["date"].date() == p.now.date()]
        for eid in ids[keep:]:
            p.execute("DELETE FROM expense WHERE expense_id=?", (eid,))
        if old_too:
            p.execute("DELETE FROM expense WHERE name=? AND amount_cents=?", (pr["name"], _cents(pr["old_amount"])))
    return f


def _split_off(day_key: str | None = "day", lower: bool = True):
    def f(p: Phone, pr: dict) -> None:
        if lower:
            p.execute("UPDATE expense SET amount_cents=? WHERE name=?",
                      (_cents(pr["amount"]) - _cents(pr["part_amount"]), pr["name"]))
        when = datetime.fromisoformat(pr[day_key]).replace(hour=9) if day_key else _today(p)
        add_expense(p, pr["part"], _cents(pr["part_amount"]), pr["part_category"], when)
    return f


def _delete_small(leave_one: bool = False, decoy: bool = False):
    def f(p: Phone, pr: dict) -> None:
        ids = sorted(_tmpl("expenses_delete_small_since").targets(p, pr))
        for eid in ids[1:] if leave_one else ids:
            p.execute("DELETE FROM expense WHERE expense_id=?", (eid,))
        if decoy:  # the small one from before the start day
            p.execute("DELETE FROM expense WHERE name=?", (pr["decoy"][0],))
    return f


def _replace(delete_old: bool = True, category: str | None = None):
    def f(p: Phone, pr: dict) -> None:
        if delete_old:
            p.execute("DELETE FROM expense WHERE name=?", (pr["old"],))
        cat = category or pr["category"]
        if category == "other":
            cat = next(c for c in ("Food", "Other") if c != pr["category"])
        add_expense(p, pr["new"], _cents(pr["amount"]), cat, _today(p))
    return f


THIRD_OPS: dict[str, tuple[Callable, list[Callable]]] = {
    "expenses_move_day_to_date": (_move_day(), [_move_day(only_first=True), _move_day(wrong_day=True)]),
    "expenses_fix_receipt_mismatch": (_receipt(), [_receipt(fix="right"), _receipt(fix="both"),
                                                   _receipt(cents_delta=1)]),
    "expenses_match_category_of": (_match_category(), [_match_category(reverse=True)]),
    "expenses_remove_extra_copies": (_copies(), [_copies(keep=0), _copies(old_too=True)]),
    "expenses_split_off_item": (_split_off(), [_split_off(day_key=None), _split_off(lower=False)]),
    "expenses_delete_small_since": (_delete_small(), [_delete_small(leave_one=True), _delete_small(decoy=True)]),
    "expenses_replace_returned": (_replace(), [_replace(delete_old=False), _replace(category="other")]),
}


@pytest.mark.parametrize("name", sorted(THIRD_OPS))
def test_third_batch_operation_checkers_success_and_near_misses(name: str) -> None:
    good, bads = THIRD_OPS[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 3):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        assert task.is_successful(env.phone, None) == 0.0, (name, seed)
        good(env.phone, task.params)
        assert task.is_successful(env.phone, None) == 1.0, (name, seed)
        for i, bad in enumerate(bads):
            env2 = fresh(task, seed)
            bad(env2.phone, task.params)
            assert task.is_successful(env2.phone, None) == 0.0, (name, seed, i)


def _window(p: Phone, pr: dict) -> dict[date, int]:
    end = date.fromisoformat(pr["end"])
    days = [end - timedelta(days=i) for i in range(7)]
    return {d: sum(e["amount_cents"] for e in expenses(p) if e["date"].date() == d) for d in days}


def _top_days(p: Phone, pr: dict) -> tuple[date, date]:
    w = _window(p, pr)
    ranked = sorted(w, key=lambda d: -w[d])
    return ranked[0], next(d for d in ranked if w[d] != w[ranked[0]])


def _day_words(d: date) -> str:
    return f"{d.strftime('%B')} {d.day}, {d.year}"


def _empty_days(p: Phone, pr: dict) -> int:
    return sum(1 for v in _window(p, pr).values() if not v)


def _item_cents(p: Phone, pr: dict, with_decoy: bool = False) -> int:
    names = (pr["name"], pr["decoy"]) if with_decoy else (pr["name"],)
    return sum(e["amount_cents"] for e in expenses(p) if e["name"] in names)


def _peak_months(p: Phone, pr: dict) -> tuple[str, str]:
    by = {m: sum(e["amount_cents"] for e in month_expenses(p, 2024, m, pr["category"])) for m in (7, 8, 9, 10)}
    ranked = sorted(by, key=lambda m: -by[m])
    names = ("July", "August", "September", "October")
    return names[ranked[0] - 7], names[next(m for m in ranked if by[m] != by[ranked[0]]) - 7]


def _over(p: Phone, pr: dict) -> int:
    limit = _cents(pr["limit"])
    return sum(1 for e in month_expenses(p, 2024, 10) if e["amount_cents"] > limit)


THIRD_QUERIES: dict[str, tuple[Callable, Callable]] = {
    "expenses_query_biggest_day": (
        lambda p, pr: [_day_words(_top_days(p, pr)[0]), f"{_top_days(p, pr)[0].isoformat()} ($12.50)"],
        lambda p, pr: [_day_words(_top_days(p, pr)[1]),
                       f"{_day_words(_top_days(p, pr)[0])} or {_day_words(_top_days(p, pr)[1])}"]),
    "expenses_query_days_without_spending": (
        lambda p, pr: [str(_empty_days(p, pr)), f"{_empty_days(p, pr)} days"],
        lambda p, pr: [str(_empty_days(p, pr) + 1), f"{_empty_days(p, pr)} or {_empty_days(p, pr) + 1}",
                       str(7 - _empty_days(p, pr))]),
    "expenses_query_item_total": (
        lambda p, pr: [format_money(_item_cents(p, pr)), f"{_item_cents(p, pr) / 100:.2f} in total"],
        lambda p, pr: [format_money(_item_cents(p, pr, with_decoy=True)),  # the look-alike added in
                       format_money(_item_cents(p, pr) - _cents(pr["amounts"][0]))]),
    "expenses_query_peak_month_for_category": (
        lambda p, pr: [_peak_months(p, pr)[0], f"{_peak_months(p, pr)[0]} 2024"],
        lambda p, pr: [_peak_months(p, pr)[1], f"{_peak_months(p, pr)[0]} or {_peak_months(p, pr)[1]}"]),
    "expenses_query_count_over_amount": (
        lambda p, pr: [str(_over(p, pr)), f"{_over(p, pr)} expenses over ${pr['limit']}"],
        lambda p, pr: [str(_over(p, pr) + 1), f"{_over(p, pr)} or {_over(p, pr) + 1}",
                       str(len(month_expenses(p, 2024, 10)))]),
}


@pytest.mark.parametrize("name", sorted(THIRD_QUERIES))
def test_third_batch_query_checkers_success_and_near_misses(name: str) -> None:
    good, bad = THIRD_QUERIES[name]
    tmpl = registry.get_template(name)
    for seed in range(4):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        assert task.is_successful(env.phone, None) == 0.0, (name, seed)
        for a in good(env.phone, task.params):
            assert task.is_successful(env.phone, a) == 1.0, (name, seed, a)
        for a in bad(env.phone, task.params):
            if a in good(env.phone, task.params):
                continue  # e.g. every expense of the month is over the limit
            assert task.is_successful(env.phone, a) == 0.0, (name, seed, a)


# ---- the fourth batch: conditional, partly-done, odd-one-out, oldest, derived date/amount, by note; yes/no,
# ---- ranking, day gaps, list neighbours ------------------------------------------------------------------------
FOURTH = ["expenses_note_by_budget", "expenses_fix_odd_category_out", "expenses_log_missing_receipts",
          "expenses_note_oldest_in_category", "expenses_redate_days_after", "expenses_add_percent_of_month",
          "expenses_delete_pricier_twin", "expenses_recategorize_by_note", "expenses_query_logged_on_day",
          "expenses_query_rank_three", "expenses_query_days_between", "expenses_query_previous_purchase"]


def _set_col(p: Phone, eid: int, col: str, value: object) -> None:
    p.execute(f"UPDATE expense SET {col}=? WHERE expense_id=?", (value, eid))


def _budget(wrong_note: bool = False, also_amount: bool = False):
    def f(p: Phone, pr: dict) -> None:
        eid, note = _tmpl("expenses_note_by_budget").target(p, pr)
        if wrong_note:
            note = "within budget" if note == "over budget" else "over budget"
        _set_col(p, eid, "note", note)
        if also_amount:
            _set_col(p, eid, "amount_cents", _cents(pr["amount"]) + 100)
    return f


def _odd(reverse: bool = False, lookalike_too: bool = False):
    def f(p: Phone, pr: dict) -> None:
        rows = expenses(p, "e.name = ?", (pr["name"],))
        if reverse:  # the others moved to the odd one's category instead
            for e in rows:
                if e["category"] == pr["category"]:
                    _set_col(p, e["expense_id"], "category_id", category_id(p, pr["wrong_category"]))
            return
        _set_col(p, _tmpl("expenses_fix_odd_category_out").target(p, pr), "category_id",
                 category_id(p, pr["category"]))
        if lookalike_too:
            p.execute("UPDATE expense SET category_id=? WHERE name=?", (category_id(p, pr["category"]), pr["lookalike"]))
    return f


def _receipts(all_three: bool = False, day_key: str | None = None, skip_one: bool = False):
    def f(p: Phone, pr: dict) -> None:
        todo = [i for i in (1, 2, 3) if all_three or i not in pr["logged"]]
        if skip_one:
            todo = todo[1:] if len(todo) > 1 else []
        when = datetime.fromisoformat(pr[day_key]).replace(hour=9) if day_key else _today(p)
        for i in todo:
            add_expense(p, pr[f"name{i}"], _cents(pr[f"amount{i}"]), pr[f"category{i}"], when)
    return f


def _oldest(newest: bool = False, note: str | None = None):
    def f(p: Phone, pr: dict) -> None:
        items = expenses(p, "c.name = ?", (pr["category"],))
        e = items[0] if newest else items[-1]
        _set_col(p, e["expense_id"], "note", note or pr["note"])
    return f


def _redate(shift: int = 0, ref: bool = False):
    def f(p: Phone, pr: dict) -> None:
        from droidverify.env.sim.timeutil import to_ms
        new = date.fromisoformat(pr["ref_day"]) + timedelta(days=pr["n"] + shift)
        p.execute("UPDATE expense SET created_date=? WHERE name=?",
                  (to_ms(datetime.combine(new, datetime.min.time()).replace(hour=12, minute=30)),
                   pr["ref"] if ref else pr["name"]))
    return f


def _month_share(p: Phone, pr: dict, month: int | None = None) -> int:
    total = sum(e["amount_cents"] for e in month_expenses(p, 2024, month or pr["month_num"]))
    return total * pr["percent"] // 100


def _set_aside(cents_delta: int = 0, month: int | None = None, category: str | None = None):
    def f(p: Phone, pr: dict) -> None:
        add_expense(p, pr["name"], _month_share(p, pr, month) + cents_delta, category or pr["category"], _today(p))
    return f


def _twin(cheaper: bool = False, other_day: bool = False):
    def f(p: Phone, pr: dict) -> None:
        rows = expenses(p, "e.name = ?", (pr["name"],))
        if other_day:
            eid = next(e["expense_id"] for e in rows if e["date"].date().isoformat() == pr["other_day"])
        else:
            day = sorted((e for e in rows if e["date"].date().isoformat() == pr["day"]), key=lambda e: e["amount_cents"])
            eid = day[0 if cheaper else -1]["expense_id"]
        p.execute("DELETE FROM expense WHERE expense_id=?", (eid,))
    return f


def _by_note(similar_too: bool = False, only_first: bool = False):
    def f(p: Phone, pr: dict) -> None:
        notes = [pr["note"], pr["similar_note"]] if similar_too else [pr["note"]]
        rows = [e for e in expenses(p) if e["note"] in notes]
        for e in rows[:1] if only_first else rows:
            _set_col(p, e["expense_id"], "category_id", category_id(p, pr["new_category"]))
    return f


FOURTH_OPS: dict[str, tuple[Callable, list[Callable]]] = {
    "expenses_note_by_budget": (_budget(), [_budget(wrong_note=True), _budget(also_amount=True)]),
    "expenses_fix_odd_category_out": (_odd(), [_odd(reverse=True), _odd(lookalike_too=True)]),
    "expenses_log_missing_receipts": (_receipts(), [_receipts(all_three=True), _receipts(day_key="older_day"),
                                                    _receipts(skip_one=True)]),
    "expenses_note_oldest_in_category": (_oldest(), [_oldest(newest=True), _oldest(note="wrong note")]),
    "expenses_redate_days_after": (_redate(), [_redate(shift=-1), _redate(shift=1), _redate(ref=True)]),
    "expenses_add_percent_of_month": (_set_aside(), [_set_aside(cents_delta=-1), _set_aside(cents_delta=2),
                                                     _set_aside(category="Bills")]),
    "expenses_delete_pricier_twin": (_twin(), [_twin(cheaper=True), _twin(other_day=True)]),
    "expenses_recategorize_by_note": (_by_note(), [_by_note(similar_too=True), _by_note(only_first=True)]),
}


@pytest.mark.parametrize("name", sorted(FOURTH_OPS))
def test_fourth_batch_operation_checkers_success_and_near_misses(name: str) -> None:
    good, bads = FOURTH_OPS[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 3, 1000):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        assert task.is_successful(env.phone, None) == 0.0, (name, seed)
        good(env.phone, task.params)
        assert task.is_successful(env.phone, None) == 1.0, (name, seed)
        for i, bad in enumerate(bads):
            env2 = fresh(task, seed)
            before = [tuple(r) for r in env2.phone.query("SELECT * FROM expense ORDER BY expense_id")]
            bad(env2.phone, task.params)
            if [tuple(r) for r in env2.phone.query("SELECT * FROM expense ORDER BY expense_id")] == before:
                continue  # e.g. the newest of the category is also its oldest
            assert task.is_successful(env2.phone, None) == 0.0, (name, seed, i)


def test_fourth_batch_percent_accepts_rounding_half_up_but_not_a_duplicate() -> None:
    task = registry.get_template("expenses_add_percent_of_month").instantiate(2)
    env = fresh(task, 2)
    total = sum(e["amount_cents"] for e in month_expenses(env.phone, 2024, task.params["month_num"]))
    exact = total * task.params["percent"]
    add_expense(env.phone, task.params["name"], (exact + 50) // 100, "Other", _today(env.phone))  # rounded half up
    assert task.is_successful(env.phone, None) == 1.0
    add_expense(env.phone, task.params["name"], (exact + 50) // 100, "Other", _today(env.phone))  # a duplicate
    assert task.is_successful(env.phone, None) == 0.0


def _ranked3(p: Phone, pr: dict) -> list[str]:
    return sorted((pr[f"name{i}"] for i in (1, 2, 3)), key=lambda n: expenses(p, "e.name = ?", (n,))[0]["amount_cents"])


def _days_gap(p: Phone, pr: dict) -> int:
    a, b = (expenses(p, "e.name = ?", (pr[f"name{i}"],))[0]["date"].date() for i in (1, 2))
    return abs((a - b).days)


def _logged(p: Phone, pr: dict) -> bool:
    return any(e["date"].date().isoformat() == pr["asked"] for e in expenses(p, "e.name = ?", (pr["name"],)))


def _around(p: Phone, pr: dict) -> tuple[str, str]:
    """(the expense just before the planted one, the one just after, or the planted name when it is the newest)."""
    items = expenses(p)
    i = next(k for k, e in enumerate(items) if e["name"] == pr["name"])
    return items[i + 1]["name"], items[i - 1]["name"] if i else pr["name"]


FOURTH_QUERIES: dict[str, tuple[Callable, Callable]] = {
    "expenses_query_logged_on_day": (
        lambda p, pr: ["yes" if _logged(p, pr) else "no", "Yes, I did." if _logged(p, pr) else "No, it isn't there."],
        lambda p, pr: ["no" if _logged(p, pr) else "yes", "yes or no", "maybe"]),
    "expenses_query_rank_three": (
        lambda p, pr: [", ".join(_ranked3(p, pr)),
                       f"{_ranked3(p, pr)[0]} first, then {_ranked3(p, pr)[1]}, and {_ranked3(p, pr)[2]} last"],
        lambda p, pr: [", ".join(reversed(_ranked3(p, pr))),
                       ", ".join([_ranked3(p, pr)[1], _ranked3(p, pr)[0], _ranked3(p, pr)[2]]),
                       ", ".join(_ranked3(p, pr)[:2])]),
    "expenses_query_days_between": (
        lambda p, pr: [str(_days_gap(p, pr)), f"{_days_gap(p, pr)} days",
                       f"{_days_gap(p, pr)} days (October 3, 2024 to Oct 9th)"],
        lambda p, pr: [str(_days_gap(p, pr) + 1), str(max(_days_gap(p, pr) - 1, 0)), f"{_days_gap(p, pr)} or {_days_gap(p, pr) + 1}"]),
    "expenses_query_previous_purchase": (
        lambda p, pr: [_around(p, pr)[0], f"It was \"{_around(p, pr)[0]}\"."],
        lambda p, pr: [pr["name"]] + ([_around(p, pr)[1], f"{_around(p, pr)[0]} or {_around(p, pr)[1]}"]
                                      if _around(p, pr)[1] not in (_around(p, pr)[0], pr["name"]) else [])),
}


@pytest.mark.parametrize("name", sorted(FOURTH_QUERIES))
def test_fourth_batch_query_checkers_success_and_near_misses(name: str) -> None:
    good, bad = FOURTH_QUERIES[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 3, 1000):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        assert task.is_successful(env.phone, None) == 0.0, (name, seed)
        goods = good(env.phone, task.params)
        for a in goods:
            assert task.is_successful(env.phone, a) == 1.0, (name, seed, a)
        for a in bad(env.phone, task.params):
            if any(a.lower() in g.lower() for g in goods):
                continue  # e.g. the expense after it has the same name as the one before
            assert task.is_successful(env.phone, a) == 0.0, (name, seed, a)


# ---- oracles from mid-task screens (the fourth batch) ------------------------------------------------------------
def _act(env: SimEnv, action_type: str, **fields: object) -> None:
    env.step(Action.make(action_type, **fields))


def _open_expenses(env: SimEnv) -> None:
    env.phone.open_app("expenses")


def _detour_stats_last_month(env: SimEnv) -> None:
    _open_expenses(env)
    _act(env, "click", index=find(env.observe(), desc="Statistics"))
    _act(env, "click", index=find(env.observe(), desc="Previous month"))


def _detour_filter_dialog(env: SimEnv) -> None:
    _open_expenses(env)
    _act(env, "click", index=find(env.observe(), desc="Filter"))


def _detour_filtered_by_health(env: SimEnv) -> None:
    _detour_filter_dialog(env)
    _act(env, "click", index=find(env.observe(), text="Health"))


def _detour_scratch_add_form(env: SimEnv) -> None:
    _open_expenses(env)
    _act(env, "click", index=find(env.observe(), desc="Add expense"))
    _act(env, "input_text", index=find(env.observe(), resource_id="edt_name"), text="Scratch")
    _act(env, "click", index=find(env.observe(), resource_id="category_spinner"))


def _detour_other_detail_delete_dialog(env: SimEnv) -> None:
    _open_expenses(env)
    _act(env, "scroll", direction="down")
    _act(env, "click", index=find(env.observe(), resource_id="expense_item"))
    _act(env, "click", index=find(env.observe(), resource_id="btn_delete"))


def _detour_other_edit_date_picker(env: SimEnv) -> None:
    _open_expenses(env)
    _act(env, "scroll", direction="down")
    _act(env, "scroll", direction="down")
    _act(env, "click", index=find(env.observe(), resource_id="expense_item"))
    _act(env, "click", index=find(env.observe(), resource_id="btn_edit"))
    _act(env, "click", index=find(env.observe(), resource_id="date_picker_button"))


def _detour_other_app(env: SimEnv) -> None:
    env.phone.open_app("settings")


def _detour_menu(env: SimEnv) -> None:
    _open_expenses(env)
    _act(env, "click", index=find(env.observe(), desc="More options"))


DETOURS = [_detour_stats_last_month, _detour_filter_dialog, _detour_filtered_by_health, _detour_scratch_add_form,
           _detour_other_detail_delete_dialog, _detour_other_edit_date_picker, _detour_other_app, _detour_menu]


@pytest.mark.parametrize("name", FOURTH)
def test_fourth_batch_oracles_finish_from_mid_task_screens(name: str) -> None:
    tmpl = registry.get_template(name)
    for k, detour in enumerate(DETOURS):
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


def test_fourth_batch_oracles_solve_unseen_seeds() -> None:
    from simhelpers import run_oracle

    for name in FOURTH:
        tmpl = registry.get_template(name)
        for seed in (1000, 1001, 1002, 1003, 1004):
            env, steps = run_oracle(tmpl.instantiate(seed), seed)
            assert env.is_successful() == 1.0 and steps <= tmpl.max_steps, (name, seed)


# ---- fifth batch: picker arrows (year, day, next month), future-dated entries, twins told apart by time, typos,
# ---- make-sure edits; questions by note, complement, frequency, per-day average, next month's total -------------
FIFTH = ["expenses_fix_wrong_year", "expenses_fix_future_dated", "expenses_add_for_yesterday",
         "expenses_schedule_next_month_bill", "expenses_round_up_day_amounts", "expenses_delete_later_same_day_twin",
         "expenses_make_sure_today_logged", "expenses_query_next_month_logged", "expenses_query_unused_categories",
         "expenses_query_daily_average", "expenses_query_most_frequent", "expenses_query_named_by_note"]
TODAY5 = date(2024, 10, 15)


def _months(d: date, n: int) -> date:
    idx = d.year * 12 + d.month - 1 + n
    return date(idx // 12, idx % 12 + 1, d.day)


def _shift_row(p: Phone, eid: int, to: date) -> None:
    from droidverify.env.sim.timeutil import to_ms
    old = expenses(p, "expense_id = ?", (eid,))[0]["date"]
    _set_col(p, eid, "created_date", to_ms(datetime.combine(to, old.time())))


def _named(p: Phone, name: str) -> list[dict]:
    return expenses(p, "e.name = ?", (name,))


def _wrong_year(which: str = "target", to: Callable[[dict], date] = lambda pr: date.fromisoformat(pr["day"]),
                also_amount: bool = False):
    def f(p: Phone, pr: dict) -> None:
        rows = _named(p, pr["name"])
        pick = [e for e in rows if (e["date"].year == int(pr["wrong_year"])) == (which == "target")]
        for e in pick:
            _shift_row(p, e["expense_id"], to(pr) if which == "target" else e["date"].date() + timedelta(days=1))
            if also_amount:
                _set_col(p, e["expense_id"], "amount_cents", e["amount_cents"] + 100)
    return f


def _future(only_first: bool = False, today_too: bool = False, off_by_day: bool = False):
    def f(p: Phone, pr: dict) -> None:
        rows = [e for e in expenses(p) if e["date"].date() > TODAY5]
        for k, e in enumerate(rows[:1] if only_first else rows):
            _shift_row(p, e["expense_id"], _months(e["date"].date(), -1) - timedelta(days=1 if off_by_day and k == 0 else 0))
        if today_too:
            e = _named(p, pr["today_item"][0])[0]
            _shift_row(p, e["expense_id"], _months(e["date"].date(), -1))
    return f


def _yesterday(days: int = 1, move_old: bool = False, twice: bool = False):
    def f(p: Phone, pr: dict) -> None:
        when = datetime.combine(TODAY5 - timedelta(days=days), datetime.min.time()).replace(hour=9)
        if move_old:
            _shift_row(p, _named(p, pr["name"])[0]["expense_id"], when.date())
            _set_col(p, _named(p, pr["name"])[0]["expense_id"], "amount_cents", _cents(pr["amount"]))
            return
        for _ in range(2 if twice else 1):
            add_expense(p, pr["name"], _cents(pr["amount"]), pr["category"], when)
    return f


def _next_bill(last_price: bool = False, shift: int = 0, today: bool = False):
    def f(p: Phone, pr: dict) -> None:
        cents = _cents(pr["last_amount"] if last_price else pr["amount"])
        day = TODAY5 if today else _months(date.fromisoformat(pr["day"]), 1) + timedelta(days=shift)
        add_expense(p, pr["name"], cents, pr["category"], datetime.combine(day, datetime.min.time()).replace(hour=9))
    return f


def _round_up(skip_one: bool = False, down_one: bool = False, whole_too: bool = False, other_too: bool = False):
    def f(p: Phone, pr: dict) -> None:
        rows = [e for e in expenses(p) if e["date"].date().isoformat() == pr["day"] and e["amount_cents"] % 100]
        for k, e in enumerate(rows[1:] if skip_one else rows):
            c = e["amount_cents"]
            _set_col(p, e["expense_id"], "amount_cents", c - c % 100 if down_one and k == 0 else -(-c // 100) * 100)
        if whole_too:
            e = next(e for e in expenses(p) if e["date"].date().isoformat() == pr["day"] and not e["amount_cents"] % 100)
            _set_col(p, e["expense_id"], "amount_cents", e["amount_cents"] + 100)
        if other_too:
            e = _named(p, pr["other"][0])[0]
            _set_col(p, e["expense_id"], "amount_cents", -(-e["amount_cents"] // 100) * 100)
    return f


def _twin_delete(which: str = "late"):
    def f(p: Phone, pr: dict) -> None:
        rows = _named(p, pr["name"])
        twins = sorted((e for e in rows if e["date"].date().isoformat() == pr["day"]), key=lambda e: e["date"])
        pick = {"late": twins[-1:], "early": twins[:1], "both": twins,
                "other": [e for e in rows if e["date"].date().isoformat() == pr["other_day"]]}[which]
        for e in pick:
            p.execute("DELETE FROM expense WHERE expense_id=?", (e["expense_id"],))
    return f


def _make_sure(cents_delta: int = 0, always_add: bool = False, edit_old: bool = False):
    def f(p: Phone, pr: dict) -> None:
        cents = _cents(pr["amount"]) + cents_delta
        today = [e for e in _named(p, pr["name"]) if e["date"].date() == TODAY5]
        if edit_old:
            old = next(e for e in _named(p, pr["name"]) if e["date"].date() != TODAY5)
            _set_col(p, old["expense_id"], "amount_cents", cents)
        elif today and not always_add:
            _set_col(p, today[0]["expense_id"], "amount_cents", cents)
        else:
            for _ in range(2 if always_add and not today else 1):  # a new one beside today's, or two new ones
                add_expense(p, pr["name"], cents, pr["category"], _today(p))
    return f


FIFTH_OPS: dict[str, tuple[Callable, list[Callable]]] = {
    "expenses_fix_wrong_year": (_wrong_year(), [
        _wrong_year(to=lambda pr: date.fromisoformat(pr["day"]) + timedelta(days=1)), _wrong_year(which="other"),
        _wrong_year(also_amount=True)]),
    "expenses_fix_future_dated": (_future(), [_future(only_first=True), _future(today_too=True),
                                              _future(off_by_day=True)]),
    "expenses_add_for_yesterday": (_yesterday(), [_yesterday(days=0), _yesterday(days=2), _yesterday(move_old=True),
                                                  _yesterday(twice=True)]),
    "expenses_schedule_next_month_bill": (_next_bill(), [_next_bill(last_price=True), _next_bill(shift=1),
                                                         _next_bill(today=True)]),
    "expenses_round_up_day_amounts": (_round_up(), [_round_up(skip_one=True), _round_up(down_one=True),
                                                    _round_up(whole_too=True), _round_up(other_too=True)]),
    "expenses_delete_later_same_day_twin": (_twin_delete(), [_twin_delete("early"), _twin_delete("both"),
                                                             _twin_delete("other")]),
    "expenses_make_sure_today_logged": (_make_sure(), [_make_sure(cents_delta=1), _make_sure(always_add=True),
                                                       _make_sure(edit_old=True)]),
}


@pytest.mark.parametrize("name", sorted(FIFTH_OPS))
def test_fifth_batch_operation_checkers_success_and_near_misses(name: str) -> None:
    good, bads = FIFTH_OPS[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 3, 1000, 1001):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        assert task.is_successful(env.phone, None) == 0.0, (name, seed)
        good(env.phone, task.params)
        assert task.is_successful(env.phone, None) == 1.0, (name, seed)
        for i, bad in enumerate(bads):
            env2 = fresh(task, seed)
            before = [tuple(r) for r in env2.phone.query("SELECT * FROM expense ORDER BY expense_id")]
            bad(env2.phone, task.params)
            if [tuple(r) for r in env2.phone.query("SELECT * FROM expense ORDER BY expense_id")] == before:
                continue
            assert task.is_successful(env2.phone, None) == 0.0, (name, seed, i)


def test_make_sure_today_logged_covers_both_branches() -> None:
    tmpl = registry.get_template("expenses_make_sure_today_logged")
    assert {tmpl.instantiate(s).params["logged_today"] for s in range(8)} == {True, False}


def _month_total(p: Phone, year: int, month: int) -> int:
    return sum(e["amount_cents"] for e in month_expenses(p, year, month))


def _unused(p: Phone) -> list[str]:
    from droidverify.env.sim.apps.expenses import CATEGORIES
    used = {e["category"] for e in month_expenses(p, 2024, 10)}
    return [c for c in CATEGORIES if c not in used]


def _used_one(p: Phone) -> str:
    return month_expenses(p, 2024, 10)[0]["category"]


def _frequency(p: Phone) -> list[str]:
    counts: dict[str, int] = {}
    for e in month_expenses(p, 2024, 10):
        counts[e["name"]] = counts.get(e["name"], 0) + 1
    return sorted(counts, key=lambda n: -counts[n])


FIFTH_QUERIES: dict[str, tuple[Callable, Callable]] = {
    "expenses_query_next_month_logged": (
        lambda p, pr: [format_money(_month_total(p, 2024, 11)), f"{format_money(_month_total(p, 2024, 11))} in total"],
        lambda p, pr: [format_money(_month_total(p, 2024, 11) + _cents(pr["later"][2])),
                       format_money(_cents(pr["bills"][0][2])), "nothing"]),
    "expenses_query_unused_categories": (
        lambda p, pr: [", ".join(_unused(p)), " and ".join(reversed(_unused(p))) + "."],
        lambda p, pr: ([", ".join(_unused(p)[:-1])] if len(_unused(p)) > 1 else [])
        + [", ".join([*_unused(p), _used_one(p)]), pr["category"]]),
    "expenses_query_daily_average": (
        lambda p, pr: [format_money((2 * _month_total(p, 2024, 10) + 15) // 30), f"${_month_total(p, 2024, 10) // 15 / 100:.2f} a day"],
        lambda p, pr: [format_money(_month_total(p, 2024, 10)), format_money(_month_total(p, 2024, 10) // 14),
                       format_money(_month_total(p, 2024, 10) // 31)]),
    "expenses_query_most_frequent": (
        lambda p, pr: [_frequency(p)[0], f"\"{_frequency(p)[0]}\", logged several times"],
        lambda p, pr: [_frequency(p)[1], f"{_frequency(p)[0]} or {_frequency(p)[1]}"]),
    "expenses_query_named_by_note": (
        lambda p, pr: [pr["name"], f"It's \"{pr['name']}\"."],
        lambda p, pr: [pr["other_name"], f"{pr['name']} or {pr['other_name']}"]),
}


@pytest.mark.parametrize("name", sorted(FIFTH_QUERIES))
def test_fifth_batch_query_checkers_success_and_near_misses(name: str) -> None:
    good, bad = FIFTH_QUERIES[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 3, 1000, 1001):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        assert task.is_successful(env.phone, None) == 0.0, (name, seed)
        goods = good(env.phone, task.params)
        for a in goods:
            assert task.is_successful(env.phone, a) == 1.0, (name, seed, a)
        for a in bad(env.phone, task.params):
            assert task.is_successful(env.phone, a) == 0.0, (name, seed, a)


def test_most_frequent_answer_is_unique_and_twin_times_differ() -> None:
    for seed in (0, 1, 2, 1000):
        task = registry.get_template("expenses_query_most_frequent").instantiate(seed)
        env = fresh(task, seed)
        counts = [month_expenses(env.phone, 2024, 10)].pop()
        names = [e["name"] for e in counts]
        top = max(names.count(n) for n in names)
        assert [n for n in set(names) if names.count(n) == top] == [task.params["name"]], seed
        twin = registry.get_template("expenses_delete_later_same_day_twin").instantiate(seed)
        env = fresh(twin, seed)
        rows = [e for e in _named(env.phone, twin.params["name"]) if e["date"].date().isoformat() == twin.params["day"]]
        assert len(rows) == 2 and rows[0]["date"] != rows[1]["date"], seed
        assert len({(e["name"], e["amount_cents"], e["category"], e["note"]) for e in rows}) == 1, seed


@pytest.mark.parametrize("name", ["expenses_schedule_next_month_bill", "expenses_make_sure_today_logged", "expenses_add_for_yesterday",
                                  "expenses_query_named_by_note", "expenses_query_most_frequent",
                                  "expenses_query_next_month_logged"])
def test_fifth_batch_oracles_type_only_what_they_were_shown(name: str) -> None:
    for seed in (0, 1, 2, 1000):
        assert unread_values(name, seed) == [], (name, seed)


def test_fifth_batch_paths_use_new_controls() -> None:
    """The year / day / next-month arrows of the picker, Statistics' Next month, the ⋮ menu and the detail
    toolbar's Delete are on these oracles' paths."""
    def clicked(name: str, seed: int = 0) -> set[str]:
        task = registry.get_template(name).instantiate(seed)
        env = SimEnv(task, seed)
        obs = env.reset()
        out = set()
        for _ in range(task.max_steps):
            a = task.oracle_action(env.phone, obs)
            if a.action_type == "click":
                el = obs.elements[a.index]
                out.add((el.resource_id or "").rsplit("/", 1)[-1] or el.content_description or el.text or "")
            if a.action_type in ("status", "answer"):
                break
            obs = env.step(a)
        return out

    assert "year_up" in clicked("expenses_fix_wrong_year")
    assert "day_down" in clicked("expenses_add_for_yesterday")
    assert "month_up" in clicked("expenses_schedule_next_month_bill")
    assert {"More options", "next_month"} <= clicked("expenses_query_next_month_logged")
    assert "delete" in clicked("expenses_delete_later_same_day_twin")


@pytest.mark.parametrize("name", FIFTH)
def test_fifth_batch_oracles_finish_from_mid_task_screens(name: str) -> None:
    tmpl = registry.get_template(name)
    for k, detour in enumerate(DETOURS):
        seed = 40 + k
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


def test_fifth_batch_oracles_solve_unseen_seeds() -> None:
    from simhelpers import run_oracle

    for name in FIFTH:
        tmpl = registry.get_template(name)
        for seed in (1000, 1001, 1002, 1003, 1004):
            env, steps = run_oracle(tmpl.instantiate(seed), seed)
            assert env.is_successful() == 1.0 and steps <= tmpl.max_steps, (name, seed)
