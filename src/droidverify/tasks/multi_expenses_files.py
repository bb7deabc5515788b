"""Tasks spanning Files and Expenses (and Settings): read receipts in Files and log them, clean up.

Checkers diff both the ``expense`` and ``files`` tables against the task's initial state.
"""

from __future__ import annotations

import random
from typing import Any

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim.apps.expenses import parse_money
from droidverify.env.sim.phone import Phone
from droidverify.env.sim.storage import ROOT
from droidverify.tasks.base import TaskTemplate
from droidverify.tasks.expenses import (
    TODAY,
    add_form,
    delete_expense_action,
    expense_diff,
    find_expense,
    row_is,
)
from droidverify.tasks.expenses import (
    plant as plant_expense,
)
from droidverify.tasks.files import delete_action, files_diff, plant, show_rows
from droidverify.tasks.helpers import COMPLETE, click_or_scroll, dismiss_popups, dollars, navigate
from droidverify.tasks.registry import register_task
from droidverify.tasks.settings import TO_DISPLAY

SHOPS = ("Target", "Walmart", "Costco", "IKEA", "BestBuy", "Walgreens", "HomeDepot", "Safeway")
DOWNLOAD = f"{ROOT}/Download"


def receipt_name(shop: str, amount: str) -> str:
    return f"receipt_{shop}_{amount}.pdf"


def _looked_at(phone: Phone, folder: str) -> bool:
    """Whether the Files app was left showing ``folder`` (the oracle reads files before acting)."""
    stack = phone.stacks.get("files") or []
    return bool(stack) and stack[-1].name == "main" and stack[-1].state.get("path") == folder


@register_task
class ExpensesFromReceipts(TaskTemplate):
    name = "multi_expenses_from_receipts"
    apps = ("Files", "Expenses")
    complexity = 3
    optimal_steps = 16
    goal_template = ("The Download folder has receipt PDFs named receipt_<shop>_<amount>.pdf. For each one, add "
                     "an expense for today in the Expenses app, named after the shop, with that amount, in the "
                     "Shopping category.")
    goal_phrasings = (
        ("Could you log every receipt PDF in my Download folder (receipt_<shop>_<amount>.pdf) as a Shopping "
         "expense for today, named after the shop and with that amount?"),
        ("For each receipt_<shop>_<amount>.pdf in Download, add a Shopping expense dated today in Expenses: name = "
         "the shop, amount = the amount in the file name."),
        ("My receipts are PDFs in Download named receipt_<shop>_<amount>.pdf. Enter each one in the Expenses app "
         "for today under Shopping, with the shop as the name and the amount from the file name."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        shops = rng.sample(SHOPS, 2)
        amounts = [dollars(rng.randint(500, 15000)) for _ in shops]
        return {"receipts": [[s, a] for s, a in zip(shops, amounts)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for i, (shop, amount) in enumerate(params["receipts"]):
            plant(phone, "Download", receipt_name(shop, amount), 48_000 + 1_337 * i, days_ago=i)
            phone.execute("DELETE FROM expense WHERE name=?", (shop,))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        wants = params["receipts"]
        if removed or changed or len(added) != len(wants):
            return 0.0
        ok = all(any(row_is(r, shop, parse_money(amount) or -1, "Shopping", TODAY.isoformat()) for r in added)
                 for shop, amount in wants)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if not _looked_at(phone, DOWNLOAD):
            names = [receipt_name(s, a) for s, a in params["receipts"]]
            step = show_rows(phone, obs, DOWNLOAD, names)
            if step is not None:
                return step
        for shop, amount in params["receipts"]:
            if find_expense(phone, shop) is None:
                return add_form(phone, obs, name=shop, cents=parse_money(amount), category="Shopping", day=TODAY)
        return COMPLETE


@register_task
class ScreenshotsAndDarkTheme(TaskTemplate):
    name = "multi_delete_screenshots_dark_theme"
    apps = ("Files", "Settings")
    complexity = 3
    optimal_steps = 12
    goal_template = "Delete every screenshot in Pictures/Screenshots with the Files app, then turn on dark theme."
    goal_phrasings = (
        "Could you clear out all the screenshots in Pictures/Screenshots using Files, and then switch on dark theme?",
        "Two things: remove every file in Pictures/Screenshots (Files app), then enable dark theme in Settings.",
        "Turn on dark theme after deleting all my screenshots from Pictures/Screenshots in the Files app.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("secure", "ui_night_mode", 1)

    def _targets(self, phone: Phone) -> list[str]:
        return [r[0] for r in phone.query("SELECT path FROM files WHERE parent=? AND is_dir=0 ORDER BY path",
                                          (f"{ROOT}/Pictures/Screenshots",))]

    def _files_done(self, phone: Phone, params: dict[str, Any]) -> bool:
        added, removed, changed = files_diff(phone, self, params)
        prefix = f"{ROOT}/Pictures/Screenshots/"
        return bool(removed) and not added and not changed and all(r[0].startswith(prefix) for r in removed) \
            and not self._targets(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        dark = phone.get_setting("secure", "ui_night_mode") == "2"
        return 1.0 if dark and self._files_done(phone, params) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self._targets(phone):
            return delete_action(phone, obs, self._targets(phone))
        if phone.get_setting("secure", "ui_night_mode") != "2":
            return navigate(phone, obs, "settings", TO_DISPLAY) or dismiss_popups(phone) or \
                click_or_scroll(phone, obs, text="Dark theme")
        return COMPLETE


@register_task
class RefundExpenseAndReceipt(TaskTemplate):
    name = "multi_refund_expense_and_receipt"
    apps = ("Expenses", "Files")
    complexity = 3
    optimal_steps = 10
    goal_template = ("I returned my {shop} purchase. Delete the expense \"{shop}\" from Expenses and delete its "
                     "receipt file {receipt} from the Download folder.")
    goal_phrasings = (
        ("Could you remove the \"{shop}\" expense and also the receipt {receipt} in Download? I took that "
         "{shop} purchase back."),
        "{shop} refund: delete the expense \"{shop}\" in Expenses and the file {receipt} in Download.",
        ("Delete {receipt} from my Download folder with Files and the \"{shop}\" entry from the Expenses app; "
         "I returned the {shop} item."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        shop = rng.choice(SHOPS)
        amount = dollars(rng.randint(900, 25000))
        return {"shop": shop, "amount": amount, "receipt": receipt_name(shop, amount),
                "day": TODAY.replace(day=rng.randint(1, 14)).isoformat()}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        plant_expense(phone, params["shop"], parse_money(params["amount"]) or 0, "Shopping", params["day"])
        plant(phone, "Download", params["receipt"], 61_440, days_ago=15 - int(params["day"][-2:]))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        e_add, e_rem, e_chg = expense_diff(phone, self, params)
        f_add, f_rem, f_chg = files_diff(phone, self, params)
        ok = not e_add and not e_chg and [r[1] for r in e_rem] == [params["shop"]] and \
            not f_add and not f_chg and [r[0] for r in f_rem] == [f"{DOWNLOAD}/{params['receipt']}"]
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        e = find_expense(phone, params["shop"])
        if e is not None:
            return delete_expense_action(phone, obs, e["expense_id"], params["shop"])
        path = f"{DOWNLOAD}/{params['receipt']}"
        if phone.query_one("SELECT 1 FROM files WHERE path=?", (path,)) is not None:
            return delete_action(phone, obs, [path])
        return COMPLETE
