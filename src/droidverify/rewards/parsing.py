"""Reading judge models' replies: a strict tag grammar first, a tolerant reading second, else nothing.

The grammar every verdict-giving judge is asked for::

    <reasoning>free text</reasoning>
    <evidence_valid>True|False</evidence_valid>      (SmartSnap's evidence judge only)
    <verdict>SUCCESS|FAILURE</verdict>

*Strict*: the reply is exactly these tags, in order, each once, nothing but whitespace around them.
*Tolerant*: case-insensitive ``verdict`` / ``evidence valid`` mentions in any common shape
(``Verdict: success``, ``**VERDICT** - FAILURE``, an unclosed tag); accepted only if every mention
agrees. Anything else -- no verdict, conflicting verdicts, an output too long to trust -- is
``failed``, which callers turn into ``undecided``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_REPLY_CHARS = 100_000  # longer replies are runaway generations: not read at all

_TAG = r"<{name}>(.*?)</{name}>"
_STRICT_VERDICT = re.compile(
    r"\A\s*<reasoning>(?P<reasoning>.*?)</reasoning>\s*"
    r"(?:<evidence_valid>(?P<valid>True|False)</evidence_valid>\s*)?"
    r"<verdict>(?P<verdict>SUCCESS|FAILURE)</verdict>\s*\Z",
    re.DOTALL,
)
_LOOSE_VERDICT = re.compile(
    r"verdict\W{0,8}?(success(?:ful)?|succeeded|failure|failed|fail)\b", re.IGNORECASE)
_LOOSE_VALID = re.compile(
    r"(?:evidence[\s_-]*valid|valid[\s_-]*evidence)\W{0,8}?(true|false|yes|no|valid|invalid)\b",
    re.IGNORECASE)
_LOOSE_REASONING = re.compile(r"<reasoning>(.*?)(?:</reasoning>|<verdict>|\Z)", re.DOTALL | re.IGNORECASE)


@dataclass
class ParsedVerdict:
    status: str  # strict | tolerant | failed
    verdict: str | None = None  # "success" | "failure"
    evidence_valid: bool | None = None
    reasoning: str = ""
    error: str | None = None


def _norm_verdict(word: str) -> str:
    return "success" if word.lower().startswith("succ") else "failure"


def _norm_valid(word: str) -> bool:
    return word.lower() in ("true", "yes", "valid")


def parse_verdict(text: str | None, *, want_evidence: bool = False) -> ParsedVerdict:
    """Parse a judge reply. ``want_evidence``: the evidence_valid tag is part of the strict grammar."""
    if not isinstance(text, str) or not text.strip():
        return ParsedVerdict("failed", error="empty reply")
    if len(text) > MAX_REPLY_CHARS:
        return ParsedVerdict("failed", error=f"reply is {len(text)} characters (limit {MAX_REPLY_CHARS})")
    m = _STRICT_VERDICT.match(text)
    if m and (m.group("valid") is not None) == want_evidence:
        reasoning = m.group("reasoning")
        # a reply that nests more tags inside its reasoning is not the strict grammar
        if "<verdict>" not in reasoning and "<evidence_valid>" not in reasoning:
            valid = None if m.group("valid") is None else m.group("valid") == "True"
            return ParsedVerdict("strict", _norm_verdict(m.group("verdict")), valid, reasoning.strip())
    verdicts = {_norm_verdict(v) for v in _LOOSE_VERDICT.findall(text)}
    if not verdicts:
        return ParsedVerdict("failed", error="no verdict found")
    if len(verdicts) > 1:
        return ParsedVerdict("failed", error="conflicting verdicts")
    valid: bool | None = None
    if want_evidence:
        valids = {_norm_valid(v) for v in _LOOSE_VALID.findall(text)}
        if len(valids) > 1:
            return ParsedVerdict("failed", error="conflicting evidence_valid values")
        valid = valids.pop() if valids else None
    rm = _LOOSE_REASONING.search(text)
    reasoning = (rm.group(1) if rm else text)[:2000].strip()
    return ParsedVerdict("tolerant", verdicts.pop(), valid, reasoning)


def find_tags(text: str, name: str, *, limit: int = 50) -> list[str]:
    """Contents of every well-formed ``<name>...</name>`` pair (at most ``limit``), stripped."""
    if not isinstance(text, str) or len(text) > MAX_REPLY_CHARS:
        return []
    pattern = re.compile(_TAG.format(name=re.escape(name)), re.DOTALL | re.IGNORECASE)
    return [m.strip() for m in pattern.findall(text)[:limit]]
