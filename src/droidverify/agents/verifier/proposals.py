"""Text by selection: concrete values for placeholder candidates, so a scorer chooses, not generates.

A candidate ``input_text`` / ``answer`` / ``open_app`` carries a placeholder (see
``droidverify.agents.screen``) that a small LLM used to fill by free generation, which is right
only about one time in five. Almost every value a task wants is *written somewhere already*: in
the goal ("... with the label "Vitamins"", "... phone number (503) 423-0300", "... for 10:55 AM"),
on the screen (every answer is read off it) or in the working memory. :func:`propose_values`
reads those values out with generic patterns (quotes, names, times, dates, amounts, phone numbers,
e-mails, spans after cue words) and ranks them, using the target field's own labels ("First
name", "hour", "Amount", "Search") to put the most plausible kind first. :func:`expand_candidates`
then turns each placeholder candidate into one concrete candidate per proposed value.

Nothing here knows a task template or the simulator: the same code runs on a real device's screen.
Goal, screen and memory are untrusted input: their lengths are capped, odd characters cannot make
it raise, and a hostile string ("Ignore previous instructions") is only ever one more value.
Values are never rewritten beyond trimming (a checker compares exact strings), but control
characters and chat-template tokens are removed (:func:`~droidverify.agents.screen.strip_special_tokens`).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Sequence

from droidverify.actions.model import Action
from droidverify.agents.screen import (
    needs_completion,
    sanitize_screen_text,
    strip_special_tokens,
)
from droidverify.agents.verifier.derived import Derived, derivations, derive_values
from droidverify.agents.verifier.patterns import HOUR_AMPM_RE as _HOUR_AMPM_RE
from droidverify.agents.verifier.patterns import MONTH_RE as _MONTH_RE
from droidverify.agents.verifier.patterns import MONTHS as _MONTHS
from droidverify.agents.verifier.patterns import TIME_RE as _TIME_RE
from droidverify.env.apps import resolve_app
from droidverify.errors import UnknownAppError
from droidverify.ui.element import UIElement

__all__ = ["MAX_VALUE_LEN", "PROPOSAL_KINDS", "answer_fit", "expand_candidates", "propose_values"]

PROPOSAL_KINDS = ("input_text", "answer")
MAX_VALUE_LEN = 200  # a value longer than this is not something a task types or answers verbatim
# Input caps: enough for any real goal / screen, small enough that regexes stay cheap on junk.
_MAX_GOAL = 2000
_MAX_MEMORY = 6000
_MAX_TEXT = 1000
_MAX_ELEMENTS = 400
_MAX_MULTILINE = 600  # a field's multi-line content (a note body) plus an appended line

# ---------------------------------------------------------------------------------------------
# Cleaning

_CTRL_KEEP_NL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u2028\u2029]")  # all but \t and \n
_EDGE_PUNCT = " \t\n,;:!?"


def _clean_line(text: str | None, max_len: int = MAX_VALUE_LEN) -> str:
    """One single-line value: sanitised (control tokens/characters gone, whitespace folded) and
    trimmed; ``""`` when it is longer than ``max_len`` (a truncated value is never the right one)."""
    if not text:
        return ""
    if len(text) > 4 * _MAX_TEXT:
        return ""
    out = sanitize_screen_text(text, max_len=10 * _MAX_TEXT).strip()
    return out if len(out) <= max_len else ""


def _clean_multiline(text: str | None, max_len: int = _MAX_MULTILINE) -> str:
    """Like :func:`_clean_line` but line breaks survive (a note body must be retyped exactly)."""
    if not text or len(text) > 4 * _MAX_TEXT:
        return ""
    out = strip_special_tokens(_CTRL_KEEP_NL.sub(" ", text.replace("\r\n", "\n"))).strip()
    return out if len(out) <= max_len else ""


def _cap(text: str | None, n: int) -> str:
    return text[:n] if isinstance(text, str) else ""


# ---------------------------------------------------------------------------------------------
# Patterns (all linear-time: no nested quantifiers over the same characters)

_WEEKDAY_RE = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*\.?"
_ORD = r"(?:st|nd|rd|th)?"

_QUOTE_RES = (
    re.compile(r'"([^"\n]{1,300})"'),
    re.compile(r"“([^”\n]{1,300})”"),
    re.compile(r"‘([^’\n]{1,300}?)’(?!\w)"),
    re.compile(r"«([^»\n]{1,300})»"),
    # single quotes: the opening one not inside a word, the closing one not followed by a letter,
    # so "Don't forget" inside '...' is one value and "Bob's" opens nothing
    re.compile(r"(?<![\w'])'([^'\n]{1,300}?)'(?!\w)"),
)
_DATE_MD_RE = re.compile(
    rf"(?:({_WEEKDAY_RE}),?\s+)?\b({_MONTH_RE})\.?\s+(\d{{1,2}}){_ORD}\b(?:,?\s+(\d{{4}})\b)?")
_DATE_DM_RE = re.compile(
    rf"(?:({_WEEKDAY_RE}),?\s+)?\b(\d{{1,2}}){_ORD}\s+(?:of\s+)?({_MONTH_RE})\b\.?(?:,?\s+(\d{{4}})\b)?")
_MONTH_YEAR_RE = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{4}})\b")
_DATE_ISO_RE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DATE_SLASH_RE = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{2,4})\b")
_AMOUNT_RE = re.compile(r"([$€£¥₹])\s?(\d[\d,]*(?:\.\d{1,2})?)|(\d[\d,]*(?:\.\d{1,2})?)\s?(?:USD|EUR|GBP|dollars?|euros?)\b")
_EMAIL_RE = re.compile(r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,5}")
_PHONE_RE = re.compile(r"(?<![\w])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)[\s.-]?)?\d{2,4}(?:[\s.-]\d{2,5}){1,3}(?![\w])"
                       r"|(?<![\w])\+?\d{7,15}(?![\w])")
_NUMBER_RE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w]|\.\d)")
_FILE_RE = re.compile(r"(?<![\w/.-])[\w-][\w.-]{0,120}\.[A-Za-z][A-Za-z0-9]{1,4}(?![\w-]|\.\w)")
_CODE_RE = re.compile(r"(?<!\S)[^\s\"'“”‘’()\[\]{}<>,]{0,40}\d[^\s\"'“”‘’()\[\]{}<>,]{0,40}")
_WORD_RE = re.compile(r"[A-Za-z][\w'’-]*")


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words that end a span after a cue word ("named Landlord Dave" / "to Isabel Fischer saying ...").
_STOP_WORDS = _wordset(
    "and or but then in on at from with for using inside into onto so because that which who whose "
    "where when while saying called named titled labelled labeled containing keeping by of to as "
    "than via is are was were if")
# A full stop ends a clause unless it closes a title ("Mr. Okafor").
_STOP = r"(?<!\bMr)(?<!\bMrs)(?<!\bMs)(?<!\bDr)(?<!\bSt)(?<!\bJr)(?<!\bSr)\.(?=\s|$)"
_BOUNDARY_PUNCT = re.compile(r"[,;:!?()\[\]\"“”«»]|" + _STOP + r"|(?<!\w)'|'(?!\w)")
_STRONG_END = re.compile(r"[;!?\"“”«»]|" + _STOP)
# Cue words after which the goal usually names the value to type.
_CUES = re.compile(
    r"\b(?:named|called|titled|entitled|saying|says|labelled|labeled|containing|reading|with the text|"
    r"with the (?:label|title|name|note|message|body|text|subject|description|location|content)|"
    r"(?:the )?message|(?:the )?note|(?:the )?line|text|(?:reply|respond|answer)(?: to [\w' ]{1,40}?)? with|"
    r"search(?: for)?|"
    r"to|as|my|about)\b\s*:?\s*", re.IGNORECASE)

# Capitalised function words and imperative verbs: not the start of a name.
_NOT_NAME = _wordset(
    "a an the my your our their his her its this that these those i in on at to of for from with by "
    "and or but if then please what which who whom whose where when why how is are was were do does "
    "did can could should would will answer add create delete remove send text save mark rename move "
    "change record log start switch open go find search reply update fix free count copy set turn "
    "make look according using use check keep enter type write show tap click select choose call "
    "new all every each both some any no yes ok am pm")
_TOKEN_EDGE = "\"'“”‘’«»()[]{},;:!?."
_ABBREV = _wordset("mr mrs ms dr st jr sr prof mt")
_NAME_LINK = _wordset("of de da del van von la le du al bin")


def _sentence_starts(text: str) -> set[int]:
    starts = {0}
    for m in re.finditer(r"[.!?:]\s+|\n\s*", text):
        starts.add(m.end())
    return starts


def _name_runs(text: str) -> list[tuple[list[str], bool]]:
    """Runs of capitalised words ("Yusuf Yilmaz", "Mr. Okafor", "Bank of America"); each with
    whether its first word starts a sentence (then it may be an imperative verb, not a name)."""
    starts = _sentence_starts(text)
    runs: list[tuple[list[str], bool]] = []
    cur: list[str] = []
    cur_start = False
    pending_link: list[str] = []

    def flush() -> None:
        nonlocal cur, pending_link
        if cur:
            runs.append((cur, cur_start))
        cur, pending_link = [], []

    for m in re.finditer(r"\S+", text):
        raw = m.group(0)
        tok = raw.strip(_TOKEN_EDGE)
        abbrev = tok.lower() in _ABBREV and raw.rstrip(_TOKEN_EDGE[:-1]).endswith(".")
        lead = raw[: len(raw) - len(raw.lstrip("\"'“”‘’«»([{"))]
        ends_clause = raw[-1] in _TOKEN_EDGE and not abbrev
        if tok.endswith(("'s", "’s")):
            tok, ends_clause = tok[:-2], True
        if abbrev:
            tok += "."
        if lead:
            flush()
        is_cap = bool(tok) and tok[0].isupper() and any(c.isalpha() for c in tok)
        if is_cap:
            if not cur:
                cur_start = m.start() in starts or (m.start() - len(lead)) in starts
            else:
                cur.extend(pending_link)
            pending_link = []
            cur.append(tok)
        elif cur and tok.lower() in _NAME_LINK and not ends_clause:
            pending_link.append(tok)
            continue
        else:
            flush()
        if ends_clause:
            flush()
    flush()
    return runs


# ---------------------------------------------------------------------------------------------
# Collecting values by kind

class _Pool:
    """Values in insertion order, each with the kinds it was found as (first kind wins rank)."""

    def __init__(self) -> None:
        self.kinds: dict[str, list[str]] = {}
        self.order: list[str] = []

    def add(self, kind: str, value: str | None, *, multiline: bool = False, trim: bool = False) -> None:
        v = _clean_multiline(value) if multiline else _clean_line(value)
        if trim:  # spans cut out of a sentence; a quoted or whole value keeps its "!" or "?"
            v = v.strip(_EDGE_PUNCT)
        if not v or (not multiline and len(v) > MAX_VALUE_LEN):
            return
        if v not in self.kinds:
            self.kinds[v] = []
            self.order.append(v)
        if kind not in self.kinds[v]:
            self.kinds[v].append(kind)

    def extend(self, other: _Pool, prefix: str = "") -> None:
        for v in other.order:  # already cleaned by ``other.add``
            if v not in self.kinds:
                self.kinds[v] = []
                self.order.append(v)
            self.kinds[v] += [prefix + k for k in other.kinds[v] if prefix + k not in self.kinds[v]]


def _hour12(h: int) -> int:
    return h % 12 or 12


def _times(text: str, pool: _Pool, *, variants: bool = True) -> None:
    """Times as written; with ``variants`` also their hour and minute (what a time picker's
    fields take) and the other clock format."""
    for m in _TIME_RE.finditer(text):
        h, mm, ap = int(m.group(1)), m.group(2), (m.group(3) or m.group(4) or "").upper()
        if h > 23 or int(mm) > 59:
            continue
        pool.add("time", m.group(0).strip())
        if not variants:
            continue
        pool.add("time", f"{m.group(1)}:{mm}")
        pool.add("hour", m.group(1))
        pool.add("minute", mm)
        if mm.startswith("0"):
            pool.add("minute", str(int(mm)))
        if ap:  # the same time in the other clock format: a 24-hour phone shows 19, not 7
            h24 = (h % 12) + (12 if ap == "P" else 0)
            pool.add("hour", str(h24))
            pool.add("hour", f"{h24:02d}")
            pool.add("time", f"{h24:02d}:{mm}")
        elif h > 12 or h == 0:
            pool.add("hour", str(_hour12(h)))
            pool.add("time", f"{_hour12(h)}:{mm} {'PM' if h >= 12 else 'AM'}")
    for m in _HOUR_AMPM_RE.finditer(text):
        h = int(m.group(1))
        if 1 <= h <= 12:
            pool.add("time", m.group(0).strip())
            if variants:
                pool.add("hour", m.group(1))
                pool.add("hour", str(h % 12 + (12 if (m.group(2) or m.group(3)).upper() == "P" else 0)))
                pool.add("minute", "00")


def _month_full(name: str) -> str:
    key = name.rstrip(".").lower()[:3]
    return next((m for m in _MONTHS if m.lower().startswith(key)), name)


def _dates(text: str, pool: _Pool) -> None:
    for rx, md in ((_DATE_MD_RE, True), (_DATE_DM_RE, False)):
        for m in rx.finditer(text):
            wd, a, b, year = m.group(1), m.group(2), m.group(3), m.group(4)
            month, day = (a, b) if md else (b, a)
            if not 1 <= int(day) <= 31:
                continue
            whole = m.group(0).strip()
            pool.add("date", whole)
            if wd:
                pool.add("date", whole[whole.find(month if md else day):])
            full = _month_full(month)
            pool.add("date", f"{full} {int(day)}")
            if year:
                pool.add("date", f"{full} {int(day)}, {year}")
                pool.add("year", year)
            pool.add("day", str(int(day)))
            pool.add("month", full)
    for m in _MONTH_YEAR_RE.finditer(text):  # "July 2024": a month asked about by name
        pool.add("month", _month_full(m.group(1)))
    for m in _DATE_ISO_RE.finditer(text):
        y, mo, d = m.groups()
        if 1 <= int(mo) <= 12 and 1 <= int(d) <= 31:
            pool.add("date", m.group(0))
            pool.add("date", f"{_MONTHS[int(mo) - 1]} {int(d)}")
            pool.add("day", str(int(d)))
            pool.add("year", y)
    for m in _DATE_SLASH_RE.finditer(text):
        pool.add("date", m.group(0))


def _amounts(text: str, pool: _Pool) -> None:
    for m in _AMOUNT_RE.finditer(text):
        bare = m.group(2) or m.group(3)
        pool.add("amount_bare", bare)
        pool.add("amount", m.group(0).strip())
        if "," in bare:
            pool.add("amount_bare", bare.replace(",", ""))
        if bare.endswith(".00"):
            pool.add("amount_alt", bare[:-3])


def _phones(text: str, pool: _Pool) -> None:
    for m in _PHONE_RE.finditer(text):
        v = m.group(0).strip()
        digits = sum(c.isdigit() for c in v)
        if digits < 7 or _DATE_ISO_RE.fullmatch(v) or _DATE_SLASH_RE.fullmatch(v):
            continue
        pool.add("phone", v)


def _typed(text: str, pool: _Pool, *, variants: bool = True) -> None:
    """Values with a recognisable shape, found anywhere in ``text`` (``variants``: also the
    pieces a form's fields take: hour, minute, day)."""
    for m in _EMAIL_RE.finditer(text):
        pool.add("email", m.group(0).rstrip("."))
    _phones(text, pool)
    _amounts(text, pool)
    _times(text, pool, variants=variants)
    _dates(text, pool)
    for m in _FILE_RE.finditer(text):
        if "@" not in m.group(0) and not re.fullmatch(r"[\d.]+", m.group(0)):
            pool.add("file", m.group(0))
    # Plain numbers, except the pieces of a phone number, time, date or amount found above.
    covered = [(m.start(), m.end()) for rx in (_EMAIL_RE, _PHONE_RE, _TIME_RE, _DATE_ISO_RE, _DATE_SLASH_RE,
                                               _AMOUNT_RE, _DATE_MD_RE, _DATE_DM_RE)
               for m in rx.finditer(text)]
    for m in _NUMBER_RE.finditer(text):
        if not any(a <= m.start() and m.end() <= b for a, b in covered):
            pool.add("number", m.group(0))
    for m in re.finditer(r"(\d+(?:\.\d+)?)\s?%", text):
        pool.add("number", m.group(1))
        pool.add("percent", m.group(0).replace(" ", ""))


def _spans_after(text: str, start: int, *, max_words: int = 12) -> list[str]:
    """Spans of ``text`` from ``start``: up to the first stop word, each later stop word (two),
    the first clause punctuation, and the end of the sentence."""
    rest = text[start:start + 300]
    out: list[str] = []
    hard = _BOUNDARY_PUNCT.search(rest)
    clause = rest[: hard.start()] if hard else rest
    words = list(re.finditer(r"\S+", clause))
    cuts = 0
    if not words or words[0].group(0).lower() in _STOP_WORDS:
        return []  # "message to Isabel": the cue word was not followed by its value
    for i, w in enumerate(words[:max_words]):
        if i > 0 and w.group(0).lower() in _STOP_WORDS:
            out.append(clause[: w.start()])
            cuts += 1
            if cuts >= 3:
                break
    out.append(clause)
    strong = _STRONG_END.search(rest)
    out.append(rest[: strong.start()] if strong else rest)
    # A span ending on a linking word ("Isabel Fischer saying") is cut mid-clause: not a value.
    return [o for o in out if o.split() and o.split()[-1].lower() not in _STOP_WORDS]


_ARTICLES = re.compile(r"^(?:the|a|an|my|your|their|his|her|this|that|both|all|every|each)\s+", re.IGNORECASE)


def _cue_spans(text: str, pool: _Pool) -> None:
    for m in _CUES.finditer(text):
        for span in _spans_after(text, m.end()):
            span = span.strip(_EDGE_PUNCT + ".")
            if not span or len(span.split()) > 12:
                continue
            bare = _ARTICLES.sub("", span)
            for v in dict.fromkeys((span, bare)):
                if not v:
                    continue
                pool.add("cue", v, trim=True)
                if v[0].islower():  # a search box or a title often wants it capitalised
                    pool.add("cue_cap", v[0].upper() + v[1:], trim=True)


def _names(text: str, pool: _Pool) -> None:
    for words, at_start in _name_runs(text):
        variants: list[list[str]] = []
        trimmed = list(words)
        while trimmed and trimmed[0].lower() in _NOT_NAME:
            trimmed = trimmed[1:]
        if trimmed:
            variants.append(trimmed)
        if at_start and trimmed and trimmed == words and len(words) > 1:
            variants.append(words[1:])  # "Text Naomi Bianchi": the first word may be a verb
            variants.append(words)
        for v in variants:
            if not v:
                continue
            pool.add("name" if len(v) > 1 else "name1", " ".join(v))
            if len(v) > 1:
                pool.add("name_first", v[0])
                pool.add("name_last", v[-1])
                if len(v) > 2:
                    pool.add("name_last", " ".join(v[1:]))


def _quoted(text: str, pool: _Pool, kind: str = "quoted") -> None:
    for rx in _QUOTE_RES:
        for m in rx.finditer(text):
            pool.add(kind, m.group(1))


def _content_words(text: str, pool: _Pool) -> None:
    for m in _WORD_RE.finditer(text):
        w = m.group(0)
        if len(w) >= 4 and w.lower() not in _NOT_NAME and w.lower() not in _STOP_WORDS:
            pool.add("word", w)


def _mask_quotes(text: str) -> str:
    """``text`` with quoted values blanked out (same length), so the words inside a quoted
    message are not also read as names or cue spans."""
    for rx in _QUOTE_RES:
        text = rx.sub(lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', text)
    return text


@functools.lru_cache(maxsize=64)  # one goal, every field of every step: shared, read-only
def _goal_pool(goal: str) -> _Pool:
    pool = _Pool()
    _quoted(goal, pool)
    _typed(goal, pool)
    outside = _mask_quotes(goal)
    _names(outside, pool)
    _cue_spans(outside, pool)
    _content_words(outside, pool)
    return pool


def _element_texts(el: UIElement) -> list[str]:
    out = []
    if el.is_editable and (not el.text or el.text == el.hint_text):
        return out  # an empty field shows only its hint: not content
    for t in (el.text, el.content_description):
        if isinstance(t, str) and t.strip() and t not in out:
            out.append(_cap(t, _MAX_TEXT))
    return out


def _is_chrome(el: UIElement) -> bool:
    """Status bar and navigation bar: the clock, battery, Back/Home (never a task's value)."""
    return "systemui" in (el.package_name or "") or "systemui" in (el.resource_id or "")


def _is_icon(el: UIElement) -> bool:
    """A control named only by its content description ("Navigate up", "More options")."""
    return not el.text and bool(el.content_description) and (
        el.is_clickable or (el.class_name or "").endswith(("ImageView", "ImageButton")))


# Separators of composite rows ("Museum visit | 6:15 AM – 7:15 AM", "Dentist · $195.77").
_SEGMENT_SPLIT = re.compile(r"\s+[|·•–—-]\s+|\s*[|·•]\s*")  # " - " too: "66% - should last until ..."
# A list line's marker: "- item", "* item", "1. item", "- [ ] item", "- [x] item", "# Title".
_LIST_MARK = re.compile(r"^(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d{1,3}[.)]\s+|#{1,6}\s+|\[[ xX]\]\s+)")
_PATH_FILE = re.compile(r"^(?:[\w .'-]{1,60}/){0,6}([\w .'-]{1,120}?)\.([A-Za-z][A-Za-z0-9]{0,4})$")
_KEY_VALUE = re.compile(r"^([^:\n]{1,40}?):\s+(.+)$")
_IS_VALUE = re.compile(r"\s(?:is|are|was|were|at|use|spot|code)\s+(.+)$", re.IGNORECASE)


def _typed_only(value: str) -> bool:
    """A bare number, amount, time, date or phone number (not a name-like value)."""
    return bool(re.fullmatch(r"[\d\s$€£¥₹.,:%()+\-/]+(?:\s?[AaPp]\.?[Mm]\.?)?", value)) and any(
        c.isdigit() for c in value)


def _segments(text: str) -> list[str]:
    out: list[str] = []
    for line in text.split("\n"):
        line = _LIST_MARK.sub("", line.strip())  # a list's item is the text after its marker
        out += [seg.strip() for seg in _SEGMENT_SPLIT.split(line) if seg.strip()]
    return out


def _path_parts(text: str, pool: _Pool) -> None:
    """A file named by its path: its folders and its name without the extension ("personal/piano
    practice.md" -> "personal", "piano practice"), which is how a question names notes and folders."""
    m = _PATH_FILE.match(text.strip())
    if not m:
        return
    pool.add("part", m.group(1))
    for folder in text.strip().split("/")[:-1]:
        pool.add("part", folder)


def _goal_words(goal: str) -> set[str]:
    return {w.lower() for w in _WORD_RE.findall(goal)
            if len(w) >= 3 and w.lower() not in _STOP_WORDS and w.lower() not in _NOT_NAME}


def _text_values(text: str, pool: _Pool, goal_words: set[str]) -> None:
    """One screen string: the string itself, its segments, "key: value" values (``kv`` when the
    key is a word of the goal: "Hotel: Casa Azul" for "what is the hotel?"), and the values with a
    recognisable shape inside it (times, amounts, codes...)."""
    segs = _segments(text)
    whole = _clean_line(text)
    if len(segs) <= 1 and whole:
        pool.add("part" if _typed_only(whole) else "atom", whole)
    for i, seg in enumerate(segs):
        kv = _KEY_VALUE.match(seg)
        if kv and not kv.group(1)[-1:].isdigit():
            key_words = {w.lower() for w in _WORD_RE.findall(kv.group(1))}
            pool.add("kv" if key_words & goal_words else "part", kv.group(2), trim=True)
        m = _IS_VALUE.search(seg)
        if m:
            pool.add("part", m.group(1), trim=True)
            pool.add("part", m.group(1).rstrip(".,;"))
        if len(segs) > 1:
            pool.add("atom" if i == 0 and not _typed_only(seg) else "part", seg)
    if len(segs) > 1 and whole:
        pool.add("part", whole)
    _path_parts(text, pool)
    sub = _Pool()
    _typed(text, sub, variants=False)
    _codes(text, sub)
    pool.extend(sub, prefix="typed_")


def _codes(text: str, pool: _Pool) -> None:
    """Tokens mixing letters, digits and symbols: codes, passwords, spots ("A64", "pebble61!")."""
    for m in _CODE_RE.finditer(text):
        raw = m.group(0)
        for v in (raw.rstrip(".,;:"), raw.rstrip(".,;:!?")):
            if v and not _NUMBER_RE.fullmatch(v) and any(c.isalpha() for c in v):
                pool.add("code", v)


def _row_counts(elements: Sequence[UIElement], goal_words: set[str], pool: _Pool) -> None:
    """For "how many" questions: the number of rows of each list on screen (siblings with the same
    class and id), and of its rows that mention a word of the question ("PDF" -> ``*.pdf``)."""
    groups: dict[tuple[int, str, str], list[str]] = {}
    for el in elements:
        if _is_chrome(el) or _is_icon(el) or el.is_editable or not (el.text or el.content_description):
            continue
        key = (id(el.parent), el.class_name or "", el.resource_id or "")
        groups.setdefault(key, []).append((el.text or el.content_description or "").lower())
    rows = sorted(groups.values(), key=len, reverse=True)  # stable: ties keep screen order
    for texts in rows[:3]:
        for w in sorted(goal_words):
            n = sum(w in t for t in texts)
            if 0 < n < len(texts):
                pool.add("count", str(n))
    for texts in rows[:3]:
        pool.add("count", str(len(texts)))


_POLAR = (  # a question answered by one of two words, and those words
    (re.compile(r"\byes or no\b|^\s*(?:is|are|was|were|do|does|did|has|have|had|can|will)\b", re.IGNORECASE),
     ("yes", "no")),
    (re.compile(r"\bon or off\b|\b(?:turned|switched) on\b.*\?|\benabled or disabled\b", re.IGNORECASE),
     ("on", "off")),
    (re.compile(r"\benabled or disabled\b", re.IGNORECASE), ("enabled", "disabled")),
)


_CHOICE = re.compile(r"\b(?:which|whose|who)\b", re.IGNORECASE)


def _choices(goal: str, pool: _Pool) -> None:
    """"Which of "A" and "B" ...?", "Between X and Y, whose ...?": the things the question names
    are the answers to choose from (``choice``)."""
    if not _CHOICE.search(goal):
        return
    named = _Pool()
    _quoted(goal, named)
    _names(_mask_quotes(goal), named)
    options = [v for v in named.order if {"quoted", "name"} & set(named.kinds[v])]
    if len(options) >= 2:
        for v in options:
            pool.add("choice", v)


def _polar(goal: str, pool: _Pool) -> None:
    for rx, words in _POLAR:
        if rx.search(goal):
            for w in words:
                pool.add("kv", w)


def _labelled_values(elements: Sequence[UIElement], words: set[str], pool: _Pool) -> None:
    """A settings-style row shows a label and its value as two texts ("IP address" / "192.168.1.248",
    "Set time zone automatically" / "Off"): the text after a label that names a word of the
    question is that question's value (``kv``)."""
    texts = [el.text for el in elements if not _is_chrome(el) and not _is_icon(el) and not el.is_editable
             and isinstance(el.text, str) and el.text.strip()]
    for label, value in itertools.pairwise(texts):
        lw = {w.lower() for w in _WORD_RE.findall(label) if len(w) >= 3}  # as the goal's words are
        if len(label) <= 60 and lw and lw <= words | _LABEL_FILLER and lw & words:
            pool.add("kv", value)


_LABEL_FILLER = _wordset("the a an of my this phone device set is on for in")


def _answer_pool(goal: str, elements: Sequence[UIElement], memory: str) -> _Pool:
    pool, low, chrome = _Pool(), _Pool(), _Pool()
    goal_lower, words = goal.lower(), _goal_words(goal)
    _polar(goal, pool)
    _choices(goal, pool)
    _labelled_values(elements, words, pool)
    for el in elements:
        for t in _element_texts(el):
            if _is_chrome(el):
                chrome.add("chrome", t)
                continue
            clean = _clean_line(t)
            # What the question already names (the event asked about) and icon names come late.
            if _is_icon(el) or (clean and clean.lower() in goal_lower):
                low.add("low", t)
                continue
            _text_values(t, pool, words)
    if "number" in _question_kinds(goal):
        _row_counts(elements, words, pool)
    pool.extend(_memory_pool(memory))
    pool.extend(low)
    pool.extend(_goal_pool(goal), prefix="goal_")
    pool.extend(chrome)
    return pool


_KEY_IN_TEXT = re.compile(r"(?:^|(?<=\s))([A-Z][A-Za-z]{1,20}(?: [a-z]{1,20})?):\s")


@functools.lru_cache(maxsize=64)  # one memory, every field of the step: shared, read-only
def _memory_pool(memory: str) -> _Pool:
    """Values the working memory quotes: screen strings as '...' (listings, field contents) and
    typed values as "..."; a value cut short ("…") is dropped, but its "Key: value" pairs and
    shaped values (a date, a phone number) are kept."""
    pool = _Pool()
    quoted: list[str] = []
    for m in re.finditer(r"'(.{1,200}?)'(?=,\s'|\s(?:and|appeared|disappeared|is|now)\b|[,;.)]|\s*$|\s+->)",
                         memory, re.MULTILINE):
        quoted.append(m.group(1))
    sub = _Pool()
    _quoted(memory, sub, "memory")
    quoted += [v for v in sub.order if v not in quoted]
    for q in quoted:
        if not q.endswith("…"):
            pool.add("memory", q)
        keys = list(_KEY_IN_TEXT.finditer(q))
        for i, k in enumerate(keys):
            value = q[k.end(): keys[i + 1].start() if i + 1 < len(keys) else len(q)].strip()
            if value and not value.endswith("…"):
                pool.add("memory_kv", value, trim=True)
    typed = _Pool()
    _typed(memory, typed)
    pool.extend(typed, prefix="memory_")
    return pool


# ---------------------------------------------------------------------------------------------
# Ranking

# What a field's own words (hint, resource id, description) say it wants, most specific first.
_FIELD_RULES: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("first", "given", "forename"), ("name_first",)),
    (("last", "surname", "family"), ("name_last",)),
    (("email", "mail"), ("email", "memory_email")),
    (("hour", "hours", "hh"), ("hour", "memory_hour")),
    (("minute", "minutes", "min", "mm"), ("minute", "memory_minute")),
    (("day", "dd"), ("day", "memory_day")),
    (("month",), ("month",)),
    (("year", "yyyy"), ("year",)),
    (("amount", "price", "cost", "total", "sum", "value"), ("amount_bare", "amount", "amount_alt", "number")),
    (("recipient", "to", "contact", "contacts"), ("name", "phone", "name1", "memory_phone")),
    (("phone", "mobile", "tel", "telephone", "number"), ("phone", "memory_phone")),
    (("search", "query", "find", "filter"), ("quoted", "name", "cue_cap", "name1", "file", "word")),
    (("company", "organization", "organisation", "employer", "work"), ("name", "name1")),
    (("location", "address", "place", "where", "venue"), ("quoted", "name", "memory_kv")),
    (("message", "compose", "body", "reply", "chat", "sms"), ("quoted", "cue")),
    (("name", "title", "label", "subject", "folder", "file", "filename"),
     ("quoted", "file", "name", "cue", "memory_kv")),
    (("note", "description", "content", "editor", "writing", "text"), ("quoted", "append", "cue")),
    (("time",), ("time",)),
    (("date",), ("date",)),
)

# General order of kinds for input_text when the field says nothing.
_INPUT_ORDER = ("quoted", "name", "phone", "email", "amount_bare", "file", "time", "date", "cue",
                "number", "amount", "name_first", "name_last", "name1", "hour", "minute", "day",
                "amount_alt", "cue_cap", "append", "memory_kv", "memory", "memory_phone", "memory_email",
                "memory_time", "memory_date", "memory_number", "field", "screen", "month", "year", "word")

# What a question asks for, and the kinds of screen values that answer it.
_QUESTION_RULES: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"\bhow many\b|\bnumber of\b|\bcount\b|answer with a number", re.IGNORECASE), ("number",)),
    (re.compile(r"\bwhat time\b|\bwhen\b|\bthe time\b|\bset for\b", re.IGNORECASE), ("time",)),
    (re.compile(r"\bdate\b|\bwhat day\b|\bmonth and day\b|\bwhich day\b", re.IGNORECASE), ("date",)),
    (re.compile(r"\bhow much\b|\btotal\b|\bwhat (?:is|was) the (?:price|cost|amount)\b", re.IGNORECASE),
     ("amount", "amount_bare")),
    (re.compile(r"\be-?mail\b", re.IGNORECASE), ("email",)),
    (re.compile(r"\bphone number\b|\bnumber of my contact\b", re.IGNORECASE), ("phone",)),
    (re.compile(r"\bfile ?name\b|\bwhich file\b", re.IGNORECASE), ("file",)),
    (re.compile(r"\bcode\b|\bpassword\b|\bpin\b|\bspot\b", re.IGNORECASE), ("code",)),
    (re.compile(r"\breference\b|\bconfirmation\b|\border number\b|\bid\b", re.IGNORECASE), ("number", "code")),
    (re.compile(r"\bpercent(?:age)?\b|%", re.IGNORECASE), ("percent",)),
    (re.compile(r"\bmonth\b", re.IGNORECASE), ("month",)),
    (re.compile(r"\bits time\b|\bwith (?:the|its) time\b", re.IGNORECASE), ("time",)),
    (re.compile(r"\bversion\b|\bbuild\b|\bsize\b", re.IGNORECASE), ("number", "code")),
)


def _field_words(field: UIElement | None) -> list[str]:
    if field is None:
        return []
    texts = [field.hint_text, field.resource_name, field.content_description, field.tooltip]
    texts += [c.hint_text for c in field.children[:5]]
    if not field.text or field.text in texts:
        texts.append(field.text)
    words: list[str] = []
    for t in texts:
        if isinstance(t, str):
            t = re.sub(r"([a-z])([A-Z])", r"\1 \2", _cap(t, 200))
            words += [w.lower() for w in re.findall(r"[A-Za-z]+", t)]
    return words


def _field_kinds(field: UIElement | None) -> list[str]:
    words = set(_field_words(field))
    kinds: list[str] = []
    for keys, wanted in _FIELD_RULES:
        if words.intersection(keys):
            kinds += [k for k in wanted if k not in kinds]
    return kinds


def _ranked(pool: _Pool, first: Sequence[str], order: Sequence[str]) -> list[str]:
    """Values of ``pool``: those of the ``first`` kinds (in that order), then by ``order``."""
    out: dict[str, None] = {}
    for kinds in (first, order):
        for kind in kinds:
            for v in pool.order:
                if kind in pool.kinds[v]:
                    out.setdefault(v, None)
    for v in pool.order:  # kinds not listed anywhere still count, last
        out.setdefault(v, None)
    return list(out)


def propose_values(
    kind: str,
    goal: str,
    elements: Sequence[UIElement],
    memory: str = "",
    *,
    field: UIElement | None = None,
    limit: int = 16,
) -> list[str]:
    """Candidate values for an ``input_text`` (into ``field``) or ``answer`` placeholder.

    Best first, deduplicated, each stripped, non-empty and at most :data:`MAX_VALUE_LEN`
    characters (a field's multi-line content with a line appended may be longer). Sources: the
    goal (quoted strings, numbers, amounts, times, dates, names, e-mails, phone numbers, spans
    after cue words such as "named", "saying", "to"); for ``answer`` also the screen's texts and
    values inside them, and the memory's quoted values; for ``input_text`` the memory, the
    field's current text and the screen's other texts (lower). Deterministic; never raises on
    odd input; an unknown ``kind`` or ``limit <= 0`` gives ``[]``.
    """
    if kind not in PROPOSAL_KINDS or not isinstance(limit, int) or limit <= 0:
        return []
    goal = _cap(goal, _MAX_GOAL)
    memory = _cap(memory, _MAX_MEMORY)
    elements = [e for e in list(elements or [])[:_MAX_ELEMENTS] if isinstance(e, UIElement)]
    if kind == "answer":
        return _answer_values(goal, elements, memory)[:limit]
    return _input_values(_goal_pool(goal), elements, memory, field)[:limit]


def _input_values(goal_pool: _Pool, elements: Sequence[UIElement], memory: str,
                  field: UIElement | None) -> list[str]:
    pool = _Pool()
    pool.extend(goal_pool)
    # A multi-line field (a note body) that must gain a line: its text plus each quoted value.
    current = field.text if field is not None and isinstance(field.text, str) else ""
    hint_only = field is not None and (not current or current == field.hint_text)
    if current and not hint_only and ("\n" in current or (field is not None and _is_multiline(field))):
        body = _clean_multiline(current)
        if body:
            for v in goal_pool.order:
                if "quoted" in goal_pool.kinds[v] and v not in body:
                    pool.add("append", f"{body}\n{v}", multiline=True)
    pool.extend(_memory_pool(memory))
    if current and not hint_only:
        pool.add("field", current, multiline="\n" in current)
    for el in elements:
        if el is field or el.is_editable or _is_chrome(el) or _is_icon(el):
            continue
        for t in _element_texts(el):
            pool.add("screen", t)
    return _ranked(pool, _field_kinds(field), _INPUT_ORDER)


def _is_multiline(field: UIElement) -> bool:
    words = set(_field_words(field))
    return bool(words & {"editor", "body", "content", "multiline", "document"})


def _question_kinds(goal: str) -> list[str]:
    """The kinds of value the question asks for ("How many ..." -> number), in rule order."""
    return list(dict.fromkeys(k for rx, kinds in _QUESTION_RULES if rx.search(goal) for k in kinds))


_EXPLICIT_POLAR = re.compile(r"\byes or no\b|\bon or off\b|\benabled or disabled\b", re.IGNORECASE)
_POLAR_WORDS = frozenset(w for _, words in _POLAR for w in words)
_SIZE_RE = re.compile(r"\d+(?:[.,]\d+)?\s?(?:[kKMGT]i?B|bytes?|B)")
_IDENTIFYING = frozenset({"phone", "email", "file", "date", "time"})
_HEX_ID = re.compile(r"[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){3,7}|\d{1,3}(?:\.\d{1,3}){3}")  # MAC, IP address
_ASKS_NAME = re.compile(r"\b(?:who|whom|whose|which|name|title|called)\b", re.IGNORECASE)


def answer_fit(goal: str, elements: Sequence[UIElement], memory: str = "") -> dict[str, tuple[float, ...]]:
    """How each value :func:`propose_values` proposes for an answer fits the question, by where it was
    found: (kind fit, read after a label the question names or one of two words it offers, an option the
    question names, only in the goal, only in the working memory, only on chrome or as the thing asked
    about). Kind fit is 1 when the value has a shape the question asks for ("How many" and a number,
    "phone number" and a phone number, "Which ... name" and a text that is not a bare number), -1 when
    the question asks for shapes the value has none of, 0 when it asks for none."""
    goal = _cap(goal, _MAX_GOAL)
    memory = _cap(memory, _MAX_MEMORY)
    elements = [e for e in list(elements or [])[:_MAX_ELEMENTS] if isinstance(e, UIElement)]
    pool = _answer_pool(goal, elements, memory)
    goal_kinds = {k for kinds in _goal_pool(goal).kinds.values() for k in kinds}
    # a phone number, date or file the question itself gives names what is asked about, not the answer
    wanted = [k for k in _question_kinds(goal) if k not in goal_kinds & _IDENTIFYING]
    polar = any(rx.search(goal) for rx, _ in _POLAR)
    sized = bool(re.search(r"\bsize\b", goal, re.IGNORECASE))
    # "Answer yes or no" outranks a shape ("size" in "is it bigger than ..."); "How many ... switched on?"
    # asks for a number although it ends like an on/off question
    polar_first = bool(_EXPLICIT_POLAR.search(goal)) or (polar and not wanted)
    names = bool(_ASKS_NAME.search(goal))
    # "Which number was it?" asks for a number with a name's words
    asks_number = bool(re.search(r"\bnumber\b", goal, re.IGNORECASE)) and not re.search(r"\bname\b", goal, re.IGNORECASE)
    addressed = bool(re.search(r"\b(?:ip|mac|address)\b", goal, re.IGNORECASE))
    shapes = {f"typed_{k}" for k in wanted} | {f"memory_{k}" for k in wanted} | (
        {"count"} if "number" in wanted else set())
    out: dict[str, tuple[float, ...]] = {}
    for v in pool.order:
        kinds = set(pool.kinds[v])
        name_like = addressed or (not _typed_only(v) and not _HEX_ID.fullmatch(v))
        if polar_first:
            fit = 1.0 if v.lower() in _POLAR_WORDS else -1.0
        elif wanted:  # a file size is shown with its unit ("292 kB"), which is no bare number
            shaped = bool(kinds & shapes) or (sized and bool(_SIZE_RE.fullmatch(v)))
            fit = 1.0 if shaped or (names and name_like) else -1.0
        elif names and not asks_number:  # "which ... name": not a bare number
            fit = 1.0 if name_like else -1.0
        else:
            fit = 0.0
        screen = {k for k in kinds if not k.startswith("goal_")}
        out[v] = (fit, float("kv" in kinds), float("choice" in kinds), float(not screen),
                  float(bool(screen) and all(k.startswith("memory") for k in screen)),
                  float(bool(screen) and screen <= {"low", "chrome"}))
    return out


def _answer_values(goal: str, elements: Sequence[UIElement], memory: str) -> list[str]:
    pool = _answer_pool(goal, elements, memory)
    wanted = _question_kinds(goal)
    first = ["choice", "kv", *(f"typed_{k}" for k in wanted), *(["count"] if "number" in wanted else []),
             *(f"memory_{k}" for k in wanted)]
    order = ["atom", "part", "typed_code", "typed_time", "typed_date", "typed_amount", "typed_email",
             "typed_phone", "typed_file", "typed_number", "memory_kv", "memory", "low",
             *(f"goal_{k}" for k in wanted), "goal_quoted", "goal_name", "chrome"]
    return _ranked(pool, first, order)


# ---------------------------------------------------------------------------------------------
# Expansion

def _with_value(action: Action, **update: str) -> Action | None:
    data = action.model_dump(exclude_none=True)
    data.update(update)
    try:
        return Action(**data)
    except Exception:  # noqa: BLE001 -- a value the model rejects is simply not proposed
        return None


def foreground_package(elements: Sequence[UIElement]) -> str | None:
    """The package most of the screen's elements belong to: the app in front (a dump can also hold
    a keyboard's or the status bar's few nodes)."""
    counts: dict[str, int] = {}
    for el in elements[:_MAX_ELEMENTS]:
        if el.package_name:
            counts[el.package_name] = counts.get(el.package_name, 0) + 1
    return max(counts, key=lambda k: (counts[k], k)) if counts else None


@functools.lru_cache(maxsize=512)
def _package_of(name: str) -> str | None:
    try:
        return resolve_app(name).package
    except (UnknownAppError, ValueError):
        return None


def expand_candidates(
    candidates: Sequence[Action],
    elements: Sequence[UIElement],
    goal: str,
    memory: str,
    apps: Sequence[str] | None,
    *,
    limit: int = 16,
    derived: bool = False,
    derived_limit: int = 8,
) -> list[Action]:
    """``candidates`` with each placeholder replaced, in place, by concrete candidates.

    ``open_app`` placeholder -> one ``open_app`` per app of ``apps`` (in that order; kept as is
    when ``apps`` is None), except the app already in front (by package, through the device app
    table): opening it changes nothing, and the oracle never chose it. ``input_text`` placeholder
    on element ``i`` -> one ``input_text`` per value :func:`propose_values` proposes for
    ``elements[i]``. ``answer`` placeholder -> one ``answer`` per proposed value. A placeholder
    with no proposal stays (the caller falls back to generation). ``derived``: after each
    placeholder's ``limit`` proposals, up to ``derived_limit`` values computed from the ones read
    (:func:`~droidverify.agents.verifier.derived.derive_values`: minutes and days between, a time or
    date moved by the goal's duration, percentages, sums; a checkpoint of feature version 6 or
    later is trained with them). Other candidates are unchanged;
    the order is otherwise preserved and no action appears twice (by ``Action.to_json()``). Pure
    and deterministic: training and inference get the same list for the same input.
    """
    out: list[Action] = []
    seen: set[str] = set()
    answer_cache: list[str] | None = None
    field_cache: dict[int, list[str]] = {}
    found: list[Derived] | None = None

    def computed(kind: str, field: UIElement | None, have: list[str]) -> list[str]:
        nonlocal found
        if not derived:
            return have
        if found is None:
            found = derivations(goal, elements, memory)
        extra = [d.value for d in derive_values(kind, goal, elements, memory, field=field, found=found,
                                                limit=derived_limit + len(have))
                 if d.value not in have]
        return have + extra[:derived_limit]

    def add(action: Action) -> None:
        key = action.to_json()
        if key not in seen:
            seen.add(key)
            out.append(action)

    for cand in candidates:
        if not needs_completion(cand):
            add(cand)
            continue
        new: list[Action] = []
        if cand.action_type == "open_app":
            if apps is not None:
                front = foreground_package(elements)
                names = [a.strip() for a in apps if isinstance(a, str) and a.strip()]
                names = [n for n in dict.fromkeys(names) if front is None or _package_of(n) != front]
                new = [a for a in (_with_value(cand, app_name=n) for n in names) if a]
        elif cand.action_type == "answer":
            if answer_cache is None:
                answer_cache = computed("answer", None,
                                        propose_values("answer", goal, elements, memory, limit=limit))
            new = [a for a in (_with_value(cand, text=v) for v in answer_cache) if a]
        else:  # input_text
            i = cand.index
            key = i if i is not None else -1
            if key not in field_cache:
                field = elements[i] if i is not None and 0 <= i < len(elements) else None
                field_cache[key] = computed("input_text", field, propose_values(
                    "input_text", goal, elements, memory, field=field, limit=limit))
            new = [a for a in (_with_value(cand, text=v) for v in field_cache[key]) if a]
        for a in new or [cand]:
            add(a)
    return out
