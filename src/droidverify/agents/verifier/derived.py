"""Derived values: what a task asks for that no screen shows, computed from values that screens show.

:mod:`~droidverify.agents.verifier.proposals` proposes values *written somewhere* (goal, screen,
memory). Some goals want a value nobody wrote: "How many minutes after my 8:15 alarm does the 9:40
one ring?" (85 minutes), "Move it 4 days earlier" (the day field takes 30 when the event is on
the 3rd), "What percentage of its maximum is the volume?" (4 of 10: 40%), "my half of $120.00"
(60.00). A small scorer cannot do that arithmetic; it can choose among results computed for it.
:func:`derive_values` computes them, each with a short account of how (``"85 minutes: 8:15 AM
(Gym) -> 9:40 AM (Nap)"``) that the compact scorer reads as the candidate's context.

Which arithmetic runs is cued by the goal's own words (minutes / days / percent / total / a
duration to shift by), never by a template; operands are the times, dates, amounts and numbers of
the goal, the screen (its status bar clock is "now") and the working memory. Operands found in a
row that names something the goal names come first. Deterministic, capped (operands, pairs,
values) so a crowded or hostile screen costs little, and it never raises on odd input.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from droidverify.agents.screen import sanitize_screen_text
from droidverify.agents.verifier.patterns import HOUR_AMPM_RE as _HOUR_AMPM_RE
from droidverify.agents.verifier.patterns import MONTH_RE as _MONTH_RE
from droidverify.agents.verifier.patterns import MONTHS as _MONTHS
from droidverify.agents.verifier.patterns import TIME_RE as _TIME_RE
from droidverify.ui.element import UIElement

__all__ = ["DERIVED_KINDS", "Derived", "derivations", "derive_values"]

DERIVED_KINDS = ("answer", "input_text")
_MAX_GOAL = 2000
_MAX_MEMORY = 6000
_MAX_ELEMENTS = 400
_MAX_OPERANDS = 14  # per kind of operand: 14 times give 91 pairs, few enough to compute every step
_MAX_TEXT = 300

_DATE_MD_RE = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}})\b)?", re.IGNORECASE)
_DATE_DM_RE = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\b\.?(?:,?\s+(\d{{4}})\b)?",
                         re.IGNORECASE)
_DATE_ISO_RE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_YEAR_RE = re.compile(r"\b(19\d{2}|20\d{2})\b")
_AMOUNT_RE = re.compile(r"([$€£¥₹])\s?(\d[\d,]*(?:\.\d{1,2})?)")
_NUMBER_RE = re.compile(r"(?<![\w.,:$€£¥₹])(\d{1,6}(?:\.\d+)?)(?![\w:]|[.,]\d)")
_SIZE_RE = re.compile(r"(\d+(?:[.,]\d+)?)\s?([kKMGT])i?B\b")
_WORD_NUMS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
              "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
              "thirty": 30, "forty": 40, "forty-five": 45, "fifty": 50, "sixty": 60, "ninety": 90}
_DURATION_RE = re.compile(
    r"\b(half an|\d{1,4}|" + "|".join(sorted(_WORD_NUMS, key=len, reverse=True)) + r")[\s-]+"
    r"(minutes?|mins?|hours?|hrs?|days?|weeks?|months?)\b", re.IGNORECASE)

# What the goal asks to compute (English cue words; a goal in another language gets no derived values).
_CUE_MINUTES = re.compile(r"\bminutes?\b|\bhow long\b|\bhours? and\b|\bin hours\b", re.IGNORECASE)
_CUE_DAYS = re.compile(r"\bdays?\b|\bago\b|\bweeks?\b", re.IGNORECASE)
_CUE_PERCENT = re.compile(r"\bpercent(?:age)?\b|%|\bproportion\b", re.IGNORECASE)
_CUE_SUM = re.compile(r"\btotal\b|\baltogether\b|\badd(?:ed)? up\b|\bin all\b|\bsum\b|\bcombined\b|\bowe\b"
                      r"|\btogether\b|\baverage\b|\bper day\b", re.IGNORECASE)
_CUE_SPLIT = re.compile(r"\bhalf\b|\bsplit\b|\b(\d+|two|three|four|five|six) ways\b|\beach of us\b|\bevenly\b",
                        re.IGNORECASE)
_CUE_MINUS = re.compile(r"\btake (?:that |it )?out\b|\blower\b|\bminus\b|\bless\b|\bremaining\b|\bleft\b"
                        r"|\bsubtract\b|\bdifference\b|\breduce\b", re.IGNORECASE)
_CUE_SIZE = re.compile(r"\bspace\b|\b[kMG]B\b|\bsize\b", re.IGNORECASE)
_CUE_INCLUSIVE = re.compile(r"\bboth\b|\binclud|\binclusive\b|\bcounting\b", re.IGNORECASE)
_CUE_HOURS = re.compile(r"\bhours?\b", re.IGNORECASE)
_CUES = (_CUE_MINUTES, _CUE_DAYS, _CUE_PERCENT, _CUE_SUM, _CUE_SPLIT, _CUE_MINUS, _CUE_SIZE)
_CUE_REST = re.compile(r"\bfree\b|\bleft\b|\bremaining\b|\bunused\b|\bavailable\b", re.IGNORECASE)
_CUE_NOW = re.compile(r"\bnow\b|\buntil\b|\bleft\b|\bago\b|\bcurrent", re.IGNORECASE)
_AMOUNT_FIELD = re.compile(r"amount|price|cost|total|sum", re.IGNORECASE)
_BARE_DECIMAL = re.compile(r"^\s*(\d[\d,]*\.\d{2})\s*$")
_QUOTED = re.compile(r"\"([^\"]{1,80})\"|“([^”]{1,80})”")
_CAP_WORD = re.compile(r"\b[A-Z][a-z]{2,}\b")


@dataclass(frozen=True)
class Derived:
    """A computed value, the kind of field it fits (``time`` / ``hour`` / ``minute`` / ``date`` /
    ``day`` / ``amount`` / ``number`` / ``percent`` / ``duration`` / ``size``), how it was computed,
    and how many of its operands sit in a row that names what the goal names."""

    value: str
    kind: str
    how: str
    named: int


@dataclass(frozen=True)
class _Operand:
    value: object  # minutes since midnight (time), datetime.date, Decimal (amount, number, size in MB)
    text: str  # as written
    row: str  # where it was read (an element's row, a memory line, "goal", "now")
    order: int  # reading order, for ties


def _clean(text: object, n: int = _MAX_TEXT) -> str:
    return sanitize_screen_text(text, max_len=n) if isinstance(text, str) and text else ""


def _minutes(m: re.Match[str]) -> int | None:
    """Minutes since midnight of a ``_TIME_RE`` ("9:40 PM", "21:40") or ``_HOUR_AMPM_RE`` ("9 PM") match."""
    if m.re is _TIME_RE:
        h, mm, ap = int(m.group(1)), int(m.group(2)), (m.group(3) or m.group(4) or "").upper()
    else:
        h, mm, ap = int(m.group(1)), 0, (m.group(2) or m.group(3) or "").upper()
    if mm > 59 or h > 23 or (ap and not 1 <= h <= 12):
        return None
    if ap:
        h = h % 12 + (12 if ap == "P" else 0)
    return h * 60 + mm


def _month(name: str) -> int:
    key = name.rstrip(".").lower()[:3]
    return next(i for i, m in enumerate(_MONTHS, 1) if m.lower().startswith(key))


def _date(year: int, month: int, day: int) -> _dt.date | None:
    try:
        return _dt.date(year, month, day)
    except ValueError:
        return None


def _decimal(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None


def _fmt_time(minutes: int) -> str:
    h, m = divmod(minutes % 1440, 60)
    return f"{h % 12 or 12}:{m:02d} {'PM' if h >= 12 else 'AM'}"


def _fmt_date(d: _dt.date, with_year: bool) -> str:
    name = _MONTHS[d.month - 1]
    return f"{name} {d.day}, {d.year}" if with_year else f"{name} {d.day}"


def _money(x: Decimal) -> str:
    return str(x.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


class _Reader:
    """The operands of one step, by kind, in reading order (goal, then screen, then memory)."""

    def __init__(self, goal: str, elements: Sequence[UIElement], memory: str) -> None:
        self.times: list[_Operand] = []
        self.dates: list[_Operand] = []
        self.amounts: list[_Operand] = []
        self.numbers: list[_Operand] = []
        self.sizes: list[_Operand] = []
        self.now: _Operand | None = None
        self.field_amounts: list[_Operand] = []  # what a form's amount field holds now
        sources: list[tuple[str, str]] = [(goal, "goal")]
        for el in elements[:_MAX_ELEMENTS]:
            text = _clean(el.text) or _clean(el.content_description)
            if not text or (el.is_editable and el.text == el.hint_text):
                continue
            if el.is_editable and (m := _BARE_DECIMAL.match(text)) and _AMOUNT_FIELD.search(
                    " ".join(t for t in (el.hint_text, el.resource_name, _row(el)) if isinstance(t, str))):
                x = _decimal(m.group(1))  # a form's amount field holds "42.50", no currency sign
                if x is not None:
                    self.field_amounts.append(_Operand(x, m.group(1), _row(el), len(sources)))
                continue
            if "systemui" in (el.package_name or "") or "systemui" in (el.resource_id or ""):
                m = _TIME_RE.search(text)
                if m and self.now is None and (v := _minutes(m)) is not None:
                    self.now = _Operand(v, m.group(0), "now", -1)
                continue
            sources.append((text, _row(el)))
        sources += [(line, line) for line in memory.splitlines()[-40:] if line.strip()]
        years = Counter(y for t, _ in sources for y in _YEAR_RE.findall(t))
        self.year = int(years.most_common(1)[0][0]) if years else 2000  # 2000: a leap year, so Feb 29 reads
        for order, (text, row) in enumerate(sources):
            self._read(text[:_MAX_TEXT * 4], row[:_MAX_TEXT], order)

    def _add(self, bucket: list[_Operand], op: _Operand) -> None:
        if len(bucket) < _MAX_OPERANDS and all(o.value != op.value or o.row != op.row for o in bucket):
            bucket.append(op)

    def _read(self, text: str, row: str, order: int) -> None:
        spans: list[tuple[int, int]] = []
        for rx in (_TIME_RE, _HOUR_AMPM_RE):
            for m in rx.finditer(text):
                if any(a <= m.start() < b for a, b in spans):
                    continue
                v = _minutes(m)
                if v is not None:
                    spans.append((m.start(), m.end()))
                    self._add(self.times, _Operand(v, m.group(0).strip(), row, order))
        for rx, md in ((_DATE_MD_RE, True), (_DATE_DM_RE, False)):
            for m in rx.finditer(text):
                mon, day = (m.group(1), m.group(2)) if md else (m.group(2), m.group(1))
                d = _date(int(m.group(3)) if m.group(3) else self.year, _month(mon), int(day))
                if d is not None:
                    spans.append((m.start(), m.end()))
                    self._add(self.dates, _Operand(d, m.group(0).strip(), row, order))
        for m in _DATE_ISO_RE.finditer(text):
            d = _date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
            if d is not None:
                spans.append((m.start(), m.end()))
                self._add(self.dates, _Operand(d, m.group(0), row, order))
        for m in _AMOUNT_RE.finditer(text):
            x = _decimal(m.group(2))
            if x is not None:
                spans.append((m.start(), m.end()))
                self._add(self.amounts, _Operand(x, m.group(0), row, order))
        for m in _SIZE_RE.finditer(text):
            x = _decimal(m.group(1).replace(",", "."))
            if x is not None:
                spans.append((m.start(), m.end()))
                scale = {"k": Decimal(1) / 1000, "m": Decimal(1), "g": Decimal(1000), "t": Decimal(10 ** 6)}
                self._add(self.sizes, _Operand(x * scale[m.group(2).lower()], m.group(0), row, order))
        for m in _NUMBER_RE.finditer(text):
            if any(a <= m.start() < b for a, b in spans):
                continue
            x = _decimal(m.group(1))
            if x is not None:
                self._add(self.numbers, _Operand(x, m.group(1), row, order))


def _row(el: UIElement) -> str:
    """An element's row: its own text and its siblings' (what names the thing a value belongs to)."""
    parent = el.parent
    texts = [_clean(c.text, 80) for c in (parent.children[:8] if parent is not None else [el]) if c.text]
    return " | ".join(t for t in texts if t) or _clean(el.text, 80)


def _goal_names(goal: str) -> list[str]:
    quoted = [a or b for a, b in _QUOTED.findall(goal)]
    caps = [w for w in _CAP_WORD.findall(_QUOTED.sub(" ", goal)) if w.lower() not in _NOT_NAMES]
    return [n.lower() for n in dict.fromkeys(quoted + caps)]


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


_NOT_NAMES = _wordset(
    "what which who when where how the set add move make change answer use put rank going divide take log "
    "text send swap give mark create delete rename my is are did does do on in at from to for with and or")


def _names_in(op: _Operand, names: Sequence[str]) -> frozenset[str]:
    if op.row in ("goal", "now"):
        return frozenset()
    row = op.row.lower()
    return frozenset(n for n in names if n in row)


def _named(op: _Operand, names: Sequence[str]) -> int:
    return len(_names_in(op, names))


def _durations(goal: str) -> list[tuple[int, str]]:
    """Durations the goal states, as (minutes or -days, words): days and longer are counted in days
    (negative numbers), so a date shifts by days and a time by minutes."""
    out: list[tuple[int, str]] = []
    for m in _DURATION_RE.finditer(goal):
        raw, unit = m.group(1).lower(), m.group(2).lower()
        if raw == "half an":
            n = Decimal("0.5")
        elif raw.isdigit():
            n = Decimal(raw)
        else:
            n = Decimal(_WORD_NUMS.get(raw, 0))
        if n <= 0:
            continue
        if unit.startswith(("min",)):
            out.append((int(n), m.group(0)))
        elif unit.startswith(("hour", "hr")):
            out.append((int(n * 60), m.group(0)))
        elif unit.startswith("day"):
            out.append((-int(n), m.group(0)))
        elif unit.startswith("week"):
            out.append((-int(n * 7), m.group(0)))
        elif unit.startswith("month"):
            out.append((-10_000 * int(n), m.group(0)))  # months: by the calendar, not a day count
    return list(dict.fromkeys(out))[:4]


def _add_months(d: _dt.date, n: int) -> _dt.date | None:
    y, m = divmod(d.month - 1 + n, 12)
    return _date(d.year + y, m + 1, d.day)


def _pairs(ops: Sequence[_Operand], names: Sequence[str], now_first: bool = False
           ) -> list[tuple[_Operand, _Operand, int]]:
    """Every pair, those whose rows name more of what the goal names first (two events the goal
    names: the pair across them), then ("how long from now") pairs with the clock, then the
    nearest in reading order."""
    out = [(a, b, len(_names_in(a, names) | _names_in(b, names)) + (2 if now_first and "now" in (a.row, b.row) else 0))
           for i, a in enumerate(ops) for b in ops[i + 1:]]
    return sorted(out, key=lambda t: (-t[2], abs(t[0].order - t[1].order), t[0].order))


def _label(op: _Operand) -> str:
    return f"{op.text} ({op.row[:60]})"


# The step last computed: expansion and the compact scorer's features ask for the same step in turn
# (the same elements list object, an Observation's cached one), so the second call is a lookup.
_last: tuple[str, object, Sequence[UIElement], tuple[Derived, ...]] | None = None


def derivations(goal: str, elements: Sequence[UIElement], memory: str = "") -> list[Derived]:
    """Every value the goal's cues ask to compute on this step, most relevant first within each
    kind of computation; at most a few dozen. ``[]`` when the goal cues nothing."""
    global _last
    last = _last
    if last is not None and last[2] is elements and last[0] == goal and last[1] == memory:
        return list(last[3])
    found = _derivations(goal, elements, memory)
    _last = (goal, memory, elements, tuple(found))
    return found


def _derivations(goal: str, elements: Sequence[UIElement], memory: str) -> list[Derived]:
    goal = _clean(goal, _MAX_GOAL)
    memory = memory[:_MAX_MEMORY] if isinstance(memory, str) else ""
    elements = [e for e in list(elements or [])[:_MAX_ELEMENTS] if isinstance(e, UIElement)]
    if not goal or not (any(rx.search(goal) for rx in _CUES) or _durations(goal)):
        return []  # nothing to compute: most goals, and the screen need not be read at all
    r = _Reader(goal, elements, memory)
    names = _goal_names(goal)
    out: list[Derived] = []

    def add(value: str, kind: str, how: str, named: int) -> None:
        out.append(Derived(value, kind, how, named))

    inclusive = bool(_CUE_INCLUSIVE.search(goal))
    # time between two times (and from now)
    if _CUE_MINUTES.search(goal) and len(r.times) + (r.now is not None) >= 2:
        times = ([r.now] if r.now is not None else []) + r.times
        for a, b, named in _pairs(times, names, bool(_CUE_NOW.search(goal)))[:12]:
            d = b.value - a.value if a.row != "now" else (b.value - a.value) % 1440
            if a.row != "now" and d < 0:
                d = -d
            if d <= 0:
                continue
            how = f"{_label(a)} -> {_label(b)}"
            add(f"{d} minutes", "duration", f"{d} minutes: {how}", named)
            add(str(d), "number", f"{d} minutes: {how}", named)
            if _CUE_HOURS.search(goal):
                h, m = divmod(d, 60)
                add(f"{h} hours and {m} minutes", "duration", f"{h} h {m} min: {how}", named)
    # days between two dates
    if _CUE_DAYS.search(goal) and len(r.dates) >= 2:
        for a, b, named in _pairs(r.dates, names)[:12]:
            d = abs((b.value - a.value).days)  # type: ignore[operator]
            if d == 0:
                continue
            how = f"{_label(a)} -> {_label(b)}"
            for n in ((d, d + 1) if inclusive else (d,)):
                add(f"{n} days", "duration", f"{n} days: {how}", named)
                add(str(n), "number", f"{n} days: {how}", named)
    # a time or a date moved by a duration the goal states
    for amount, words in _durations(goal):
        if amount > 0:
            for t in r.times[:8]:
                named = _named(t, names)
                for sign, way in ((1, "+"), (-1, "-")):
                    v = (t.value + sign * amount) % 1440
                    how = f"{_label(t)} {way} {words}"
                    add(_fmt_time(v), "time", how, named)
                    h, m = divmod(v, 60)
                    add(str(h % 12 or 12), "hour", how, named)
                    add(f"{h:02d}", "hour24", how, named)
                    add(f"{m:02d}", "minute", how, named)
        else:
            for dop in r.dates[:8]:
                named = _named(dop, names)
                for sign, way in ((1, "+"), (-1, "-")):
                    if amount <= -10_000:
                        d2 = _add_months(dop.value, sign * (-amount // 10_000))  # type: ignore[arg-type]
                    else:
                        d2 = dop.value + _dt.timedelta(days=sign * -amount)  # type: ignore[operator]
                    if d2 is None:
                        continue
                    how = f"{_label(dop)} {way} {words}"
                    add(_fmt_date(d2, False), "date", how, named)
                    add(_fmt_date(d2, True), "date", how, named)
                    add(str(d2.day), "day", how, named)
                    add(_MONTHS[d2.month - 1], "month", how, named)
    # percentages: a share of one number in another, or a percent the goal gives of an amount
    if _CUE_PERCENT.search(goal):
        nums = [o for o in r.numbers if o.row != "goal"] + r.amounts + r.sizes
        for a, b, named in _pairs(nums, names)[:16]:
            lo, hi = sorted((a, b), key=lambda o: o.value)  # type: ignore[arg-type, return-value]
            if hi.value and lo.value >= 0:
                pct = (Decimal(100) * lo.value / hi.value).quantize(Decimal(1), rounding=ROUND_HALF_UP)  # type: ignore[operator]
                how = f"{lo.text} of {hi.text} ({lo.row[:40]} / {hi.row[:40]})"
                add(f"{pct}%", "percent", how, named)
                if _CUE_REST.search(goal):  # "still free", "left": the rest of the whole
                    add(f"{100 - pct}%", "percent", f"100% - {how}", named)
        for m in re.finditer(r"(\d{1,3}(?:\.\d+)?)\s?%", goal):
            p = Decimal(m.group(1))
            for a in r.field_amounts[:1] + r.amounts[:8]:
                add(_money(a.value * p / 100), "amount", f"{m.group(0)} of {_label(a)}", _named(a, names))  # type: ignore[operator]
    # sums of amounts (all on screen, and pairs), shares of them
    split = _CUE_SPLIT.search(goal)
    if (_CUE_SUM.search(goal) or split) and (r.amounts or r.field_amounts):
        shown = [a for a in r.amounts if a.row != "goal"]
        groups: list[tuple[Decimal, str, int]] = []
        if len(shown) >= 2:
            groups.append((sum((a.value for a in shown), Decimal(0)), "all amounts shown",  # type: ignore[misc]
                           sum(_named(a, names) for a in shown)))
        for a, b, named in _pairs(shown, names)[:10]:
            groups.append((a.value + b.value, f"{_label(a)} + {_label(b)}", named))  # type: ignore[operator]
        for a in r.amounts[:6]:
            groups.append((a.value, _label(a), _named(a, names)))  # type: ignore[arg-type]
        # the amount being edited ("my half of what it shows now") before any other
        groups[:0] = [(a.value, f"{a.text} (the field being edited)", 9) for a in r.field_amounts[:2]]  # type: ignore[misc]
        ways = [2]
        if split and split.group(1):
            ways = [int(split.group(1)) if split.group(1).isdigit() else _WORD_NUMS[split.group(1).lower()]]
        for total, how, named in groups:
            if len(out) > 200:
                break
            if _CUE_SUM.search(goal):
                add(f"${_money(total)}", "amount", f"sum: {how}", named)
                add(_money(total), "amount", f"sum: {how}", named)
            if split:
                for n in ways:
                    add(f"${_money(total / n)}", "amount", f"{how} / {n}", named)
                    add(_money(total / n), "amount", f"{how} / {n}", named)
    if _CUE_MINUS.search(goal) and len(r.amounts) + len(r.field_amounts) >= 2:
        for a, b, named in _pairs(r.field_amounts[:1] + r.amounts, names)[:10]:
            hi, lo = (a, b) if a.value >= b.value else (b, a)  # type: ignore[operator]
            add(_money(hi.value - lo.value), "amount", f"{_label(hi)} - {_label(lo)}", named)  # type: ignore[operator]
    if _CUE_SIZE.search(goal) and len(r.sizes) >= 2:
        total = sum((s.value for s in r.sizes), Decimal(0))  # type: ignore[misc]
        for v in (total.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP), total.quantize(Decimal("0.01"))):
            add(f"{v} MB", "size", f"sum of {len(r.sizes)} sizes shown", sum(_named(s, names) for s in r.sizes))
    # best first: operands the goal names, then computation order (which follows the goal's cues)
    ranked = sorted(enumerate(out), key=lambda t: (-t[1].named, t[0]))
    seen: dict[str, None] = {}
    result: list[Derived] = []
    for _, d in ranked:
        if d.value and d.value not in seen and len(d.value) <= 80:
            seen[d.value] = None
            result.append(d)
    return result[:96]


# field words -> the derived kinds it takes
_FIELD_KINDS = (
    ({"hour", "hours", "hh"}, ("hour", "hour24")),
    ({"minute", "minutes", "min", "mm"}, ("minute",)),
    ({"day", "dd"}, ("day",)),
    ({"month"}, ("month",)),
    ({"amount", "price", "cost", "total", "sum", "value"}, ("amount",)),
    ({"time"}, ("time",)),
    ({"date"}, ("date",)),
)


def _field_words(field: UIElement | None) -> set[str]:
    if field is None:
        return set()
    texts = [field.hint_text, field.resource_name, field.content_description, field.tooltip]
    words: set[str] = set()
    for t in texts:
        if isinstance(t, str):
            t = re.sub(r"([a-z])([A-Z])", r"\1 \2", t[:200])
            words |= {w.lower() for w in re.findall(r"[A-Za-z]+", t)}
    return words


_ANSWER_KINDS = ("duration", "number", "time", "date", "percent", "amount", "size")


def derive_values(kind: str, goal: str, elements: Sequence[UIElement], memory: str = "", *,
                  field: UIElement | None = None, limit: int = 8,
                  found: Sequence[Derived] | None = None) -> list[Derived]:
    """Derived values for an ``answer`` or for an ``input_text`` into ``field`` (only the kinds its
    words ask for: an hour field takes hours, an amount field amounts; a field that names no kind
    takes none), best first, at most ``limit``. ``[]`` for any other ``kind``. ``found``: this
    step's :func:`derivations`, when the caller has them already (one step, many fields)."""
    if kind not in DERIVED_KINDS or not isinstance(limit, int) or limit <= 0:
        return []
    if found is None:
        found = derivations(goal, elements, memory)
    if kind == "answer":
        wanted: tuple[str, ...] = _ANSWER_KINDS
    else:
        words = _field_words(field)
        wanted = tuple(k for keys, kinds in _FIELD_KINDS if words & keys for k in kinds)
        # a form's field takes the bare number ("21.25"), never "$21.25"
        found = [d for d in found if not (d.kind == "amount" and d.value[:1] in "$€£¥₹")]
    return [d for d in found if d.kind in wanted][:limit]
