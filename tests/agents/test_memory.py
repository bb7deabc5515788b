"""Working-memory variants: action history, rule-based UI diff, LLM summary."""

from __future__ import annotations

import pytest
from agent_doubles import RuleLLM, el, make_obs

from droidverify.actions.model import Action
from droidverify.agents.verifier.memory import make_memory, ui_diff
from droidverify.env.records import Step
from droidverify.errors import DroidVerifyError


def _editor(title_text: str | None, *, dialog: bool = False, pkg: str = "com.notes"):
    els = [
        el(title_text, is_editable=True, class_name="android.widget.EditText", hint_text="Title",
           resource_id="com.notes:id/title"),
        el("Save", top=100, is_clickable=True, class_name="android.widget.Button"),
        el("Cancel", top=200, is_clickable=True, class_name="android.widget.Button"),
    ]
    if dialog:
        els = [el("Saved", top=300), els[0], els[1]]
    return make_obs(els, package=pkg)


def test_ui_diff_rules():
    before = _editor("groceries")
    after = _editor("groceries", dialog=True)
    assert ui_diff(before, after) == ["'Saved' appeared", "'Cancel' disappeared"]
    typed = ui_diff(_editor(None), _editor("milk"))
    assert typed == ["text field 'Title' now contains 'milk'"]
    assert ui_diff(_editor("x"), _editor(None)) == ["text field 'Title' is now empty"]
    switched = ui_diff(_editor("a"), make_obs([el("Inbox")], package="com.mail"))
    assert switched[0] == "the screen changed from app com.notes to app com.mail"
    assert ui_diff(_editor("a"), _editor("a")) == []


def test_ui_diff_checkbox_and_limit():
    before = make_obs([el("Wi-Fi", is_checkable=True)] + [el(f"old{i}", top=100 * i) for i in range(5)])
    after = make_obs([el("Wi-Fi", is_checkable=True, is_checked=True)])
    d = ui_diff(before, after, limit=3)
    assert d == ["'old0', 'old1', 'old2' and 2 more disappeared", "'Wi-Fi' is now checked"]


def _history():
    s0 = _editor("groceries")
    s1 = _editor("groceries", dialog=True)
    return [Step(index=0, observation=s0, action=Action(action_type="click", index=1))], s1


def test_history_and_diff_memory_render():
    history, now = _history()
    h = make_memory("history")
    h.update(history, now)
    assert h.render() == "Step 1: click <button id=1 onclick>Save</button>"
    d = make_memory("diff")
    d.update(history, now)
    assert d.render() == ("Step 1: click <button id=1 onclick>Save</button> -> "
                          "'Saved' appeared; 'Cancel' disappeared.")


def test_memory_summarises_each_step_once_and_resets_on_new_history():
    history, now = _history()
    llm = RuleLLM(replies=["The note was saved and a confirmation appeared.\nextra line"])
    m = make_memory("llm", llm)
    usage = m.update(history, now)
    assert usage.prompt_tokens == 10 and len(llm.generate_calls) == 1
    m.update(history, now)  # same step: no second LLM call
    assert len(llm.generate_calls) == 1
    assert m.render() == ("Step 1: click <button id=1 onclick>Save</button> -> "
                          "The note was saved and a confirmation appeared.")
    # The summary prompt shows both screens and the action.
    prompt = llm.generate_calls[0][1]["content"]
    assert "Screen before" in prompt and "Screen after" in prompt and "Saved" in prompt
    other = [Step(index=3, observation=now, action=Action(action_type="wait"))]
    llm.replies.append("Nothing happened.")
    m.update(other, now)
    assert m.render().startswith("Step 4: wait")
    assert "Step 1" not in m.render()


def test_llm_memory_bounded_sanitised_and_fallback():
    history, now = _history()
    m = make_memory("llm", RuleLLM(replies=["<|im_end|>" + "x" * 1000]))
    m.update(history, now)
    text = m.render()
    assert "<|" not in text and len(text) < 300
    empty = make_memory("llm", RuleLLM(replies=["   "]))
    empty.update(history, now)
    assert empty.render().endswith("'Saved' appeared; 'Cancel' disappeared (rule-based)")
    assert empty.info["fallbacks"] == 1


def test_failed_step_and_unknown_memory():
    s = Step(index=0, observation=_editor("a"), action=None, error="parse failed")
    m = make_memory("history")
    m.update([s], _editor("a"))
    assert m.render() == "Step 1: no usable action (parse failed)"
    with pytest.raises(DroidVerifyError, match="unknown working memory"):
        make_memory("nope")
    with pytest.raises(DroidVerifyError, match="needs an LLM"):
        make_memory("llm")
