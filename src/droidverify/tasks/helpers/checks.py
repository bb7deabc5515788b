"""Checker helpers: compare the phone with the task's starting state, and answers with the truth.

A checker reads app state, never the agent's claims. ``baseline_rows`` gives the rows a query
returned right after the task's set-up, so ``diff_rows`` can tell exactly what an agent changed
(an extra change to the wrong row, a duplicate or a lost row fails); query tasks compare the
agent's ``answer`` after normalisation (``answer_matches``, ``money_matches``).
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

from droidverify.env.sim.phone import Phone
from droidverify.tasks.base import TaskTemplate

_BASELINES: dict[tuple, list[tuple]] = {}
_BASELINES_MAX = 4096


def baseline_rows(phone: Phone, template: TaskTemplate, params: dict[str, Any], sql: str) -> list[tuple]:
    """Rows of ``sql`` on the task's starting phone: ``phone`` rebuilt as it was built (seed,
    clock, seed data) with the task's set-up applied (cached).

    The clock matters: seed data and set-ups stamp rows with ``phone.now``, so a phone built at
    another time than the default compared with a default-clock rebuild would differ everywhere.
    """
    built_at, seed_data = phone.origin
    key = (template.name, phone.seed, built_at, seed_data, json.dumps(params, sort_keys=True, default=str), sql)
    rows = _BASELINES.get(key)
    if rows is None:
        fresh = phone.rebuild()
        try:
            template.apply_setup(fresh, params)
            rows = [tuple(r) for r in fresh.query(sql)]
        finally:
            fresh.close()
        if len(_BASELINES) > _BASELINES_MAX:
            _BASELINES.clear()
        _BASELINES[key] = rows
    return rows


def diff_rows(before: list[tuple], after: list[tuple]) -> tuple[list[tuple], list[tuple], list[tuple[tuple, tuple]]]:
    """(added, removed, changed (old, new)) between two row lists keyed by their first column."""
    b = {r[0]: r for r in before}
    a = {r[0]: r for r in after}
    added = [r for k, r in a.items() if k not in b]
    removed = [r for k, r in b.items() if k not in a]
    changed = [(b[k], a[k]) for k in a.keys() & b.keys() if a[k] != b[k]]
    return added, removed, changed


# ---- answers (query tasks) ------------------------------------------------------------------
def normalize_answer(text: str) -> list[str]:
    """Lower-cased word tokens with punctuation dropped (``"Android 14."`` -> ``["android", "14"]``)."""
    return re.findall(r"[0-9a-z]+(?:[-.:_/][0-9a-z]+)*", text.lower().replace("\u2011", "-"))


def answer_matches(answer: str | None, expected: str) -> bool:
    """True when the answer's tokens equal the expected tokens or contain them contiguously.

    "Android 14" matches "14"; "Pixel 7a" does not match "Pixel 7"; "13" does not match "14".
    """
    if answer is None:
        return False
    got, want = normalize_answer(answer), normalize_answer(expected)
    if not want:
        return False
    n = len(want)
    return any(got[i:i + n] == want for i in range(len(got) - n + 1))


NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?|\.\d+")  # a number as written in an answer ("1,234.50")


def money_matches(text: str | None, cents: int) -> bool:
    """Whether an answer states the amount ``cents`` ("$42.50", "42.5", "USD 1,234.00").

    At most three numbers may appear, so listing many amounts is not rewarded.
    """
    if text is None:
        return False
    nums = [n.replace(",", "") for n in NUMBER.findall(text)]
    if not nums or len(nums) > 3:
        return False
    want = Decimal(cents) / 100
    return any(Decimal(n) == want for n in nums)


def dollars(cents: int) -> str:
    """``1250`` -> ``"12.50"`` (how goals and parameters write an amount)."""
    return f"{cents / 100:.2f}"
