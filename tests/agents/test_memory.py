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


def _calendar(*rows: str):
    return make_obs([el("Simple Calendar", top=0), *(el(r, top=100 * (i + 1)) for i, r in enumerate(rows)),
                     el("9:41", top=2300, package_name="com.android.systemui")], package="com.calendar")


def test_notes_memory_keeps_the_rows_that_name_the_goal_for_later_steps():
    """A value read on one screen (the end of "Board meeting") stays in the memory text after the agent
    has moved on, so it can be chosen when it is typed on another screen."""
    goal = 'Add a 15-minute event "Debrief" that starts right when my "Board meeting" ends.'
    search = _calendar("Yoga class | Sun, Nov 3 · 7:00 AM – 8:00 AM",
                       "Board meeting | Sun, Nov 3 · 2:00 PM – 4:00 PM", "Board games night | Fri, Nov 8")
    form = _editor(None, pkg="com.calendar")
    steps = [Step(index=0, observation=_calendar(), action=Action(action_type="click", index=0)),
             Step(index=1, observation=search, action=Action(action_type="navigate_back"))]
    m = make_memory("notes")
    m.reset(goal)
    m.update(steps, form)
    text = m.render()
    first, second = text.splitlines()
    # the diff cuts a label at 40 characters (the end time is lost); the note keeps the whole row, and
    # a row the diff already quotes whole ("Board games night") is not repeated
    assert "'Board meeting | Sun, Nov 3 · 2:00 PM –…'" in first
    assert first.endswith("noted 'Board meeting | Sun, Nov 3 · 2:00 PM – 4:00 PM'.")
    notes = first.split("noted")[1]
    assert "Yoga class" not in notes  # names none of the goal's words
    assert "Simple Calendar" not in notes  # an app's name is not a goal word
    assert "noted" not in second  # noted once per episode
    diff = make_memory("diff")
    diff.reset(goal)
    diff.update(steps, form)
    assert text.startswith(diff.render().splitlines()[0][:-1])  # notes only add to the diff


def test_notes_memory_forgets_on_reset_and_caps_its_rows():
    m = make_memory("notes", notes=2)
    rows = [f"Pottery class | Oct {d}" for d in range(1, 8)]
    m.reset('How many times is "Pottery class" scheduled?')
    m.update([Step(index=0, observation=_calendar(), action=Action(action_type="click", index=0))], _calendar(*rows))
    text = m.render()
    assert "'Pottery class | Oct 3' and 4 more appeared" in text  # the diff quotes three rows
    assert "noted 'Pottery class | Oct 4', 'Pottery class | Oct 5'." in text  # notes add two, not repeats
    m.reset("Turn on Wi-Fi")
    assert m.render() == ""
    m.update([Step(index=0, observation=_calendar(), action=Action(action_type="click", index=0))], _calendar(*rows))
    assert "noted" not in m.render()


def test_notes_memory_keeps_the_page_of_what_the_goal_names():
    """On the page of something the goal names (the contact "Rafael Lopez"), the page's texts are what the
    task reads (his company), though they name none of the goal's words; buttons are not noted."""
    page = make_obs([el("Add to favorites", top=50, is_clickable=True), el("Edit contact", top=60, is_clickable=True),
                     el("Rafael Lopez", top=100), el("Call", top=200, is_clickable=True),
                     el("Blue Sky Studios", top=300), el("(415) 555-0132", top=400)], package="com.contacts")
    m = make_memory("notes")
    m.reset("Who else in my contacts works at the same company as Rafael Lopez?")
    m.update([Step(index=0, observation=make_obs([el("Rafael Lopez", is_clickable=True)], package="com.contacts"),
                   action=Action(action_type="click", index=0))], page)
    assert m.render().endswith("noted 'Blue Sky Studios', '(415) 555-0132'.")
    lst = make_obs([el("Rafael Lopez", top=100, is_clickable=True), el("Blue Sky Studios", top=200)])
    m.reset("Who else in my contacts works at the same company as Rafael Lopez?")
    m.update([Step(index=0, observation=page, action=Action(action_type="navigate_back"))], lst)
    assert "noted" not in m.render()  # a list row (a button) naming him is no page of his
