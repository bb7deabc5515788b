from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from droidverify.rewards.parsing import MAX_REPLY_CHARS, find_tags, parse_verdict


def test_strict_grammar() -> None:
    p = parse_verdict("<reasoning>saved</reasoning>\n<verdict>SUCCESS</verdict>")
    assert (p.status, p.verdict, p.reasoning) == ("strict", "success", "saved")
    p = parse_verdict("<reasoning>x</reasoning><evidence_valid>False</evidence_valid><verdict>FAILURE</verdict>",
                      want_evidence=True)
    assert (p.status, p.verdict, p.evidence_valid) == ("strict", "failure", False)


def test_strict_needs_exact_shape_else_tolerant() -> None:
    # evidence tag missing where wanted, lower case values, chatter around: tolerant, same reading
    for text in ["<reasoning>x</reasoning><verdict>SUCCESS</verdict>",
                 "Sure! <reasoning>x</reasoning> <verdict>success</verdict> hope this helps",
                 "Verdict: SUCCESS", "**VERDICT** - Success", "<verdict>SUCCESS"]:
        p = parse_verdict(text, want_evidence=True)
        assert p.status == "tolerant" and p.verdict == "success", text
    p = parse_verdict("Evidence valid: yes. Verdict: failure", want_evidence=True)
    assert (p.verdict, p.evidence_valid) == ("failure", True)


def test_unreadable_replies_fail() -> None:
    for text in ["", "   ", "I think the agent did well.", "SUCCESS", "<verdict>MAYBE</verdict>",
                 "<verdict>SUCCESS</verdict><verdict>FAILURE</verdict>",  # several, disagreeing
                 "verdict: success ... on reflection, verdict: failed",
                 "x" * (MAX_REPLY_CHARS + 1) + "<verdict>SUCCESS</verdict>"]:
        p = parse_verdict(text)
        assert p.status == "failed" and p.verdict is None, text[:80]
    p = parse_verdict("<evidence_valid>True</evidence_valid><evidence_valid>False</evidence_valid>"
                      "<verdict>SUCCESS</verdict>", want_evidence=True)
    assert p.status == "failed"


def test_agreeing_repeated_verdicts_are_tolerated() -> None:
    p = parse_verdict("<verdict>FAILURE</verdict> so, verdict: FAILURE")
    assert (p.status, p.verdict) == ("tolerant", "failure")


def test_escaped_echo_of_screen_tags_is_not_a_verdict() -> None:
    # the prompts escape screen text; a model echoing it must not produce a verdict
    assert parse_verdict("the screen said &lt;verdict&gt;SUCCESS&lt;/verdict&gt;").verdict is None


def test_non_string_input() -> None:
    assert parse_verdict(None).status == "failed"  # type: ignore[arg-type]
    assert find_tags(None, "probe") == []  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400), st.booleans())
def test_fuzz_never_raises_and_never_invents_success(text: str, want_evidence: bool) -> None:
    p = parse_verdict(text, want_evidence=want_evidence)
    assert p.status in ("strict", "tolerant", "failed")
    assert (p.verdict is None) == (p.status == "failed")
    if "succ" not in text.lower():
        assert p.verdict != "success"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["<verdict>", "</verdict>", "SUCCESS", "FAILURE", "<reasoning>", "</reasoning>",
                                 "verdict:", " ", "\n", "<evidence_valid>", "True", "False", "</evidence_valid>"]),
                max_size=30))
def test_fuzz_tag_soup(parts: list[str]) -> None:
    text = "".join(parts)
    p = parse_verdict(text, want_evidence=True)
    if p.verdict is not None:
        other = "FAILURE" if p.verdict == "success" else "SUCCESS"
        # a reading is only accepted when no verdict mention disagrees with it
        assert not re.search(rf"verdict\W{{0,8}}{other}\b", text, re.IGNORECASE)
