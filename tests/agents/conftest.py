"""Fixtures for the agent tests (the test doubles live in agent_doubles.py)."""

from __future__ import annotations

import pytest
from agent_doubles import el, make_obs

from droidverify.env.records import Observation


@pytest.fixture
def form_screen() -> Observation:
    """A small form: title, editable field with text, Save/Cancel buttons, a list, a checkbox."""
    return make_obs([
        el("Edit note", top=0),
        el("groceries", top=100, is_editable=True, is_clickable=True, is_focusable=True,
           class_name="android.widget.EditText", hint_text="Title", resource_id="app:id/title"),
        el("Save", top=200, is_clickable=True, class_name="android.widget.Button"),
        el("Cancel", top=300, is_clickable=True, is_long_clickable=True,
           class_name="android.widget.Button"),
        el(None, top=400, is_scrollable=True, class_name="androidx.recyclerview.widget.RecyclerView"),
        el("Pin", top=500, is_checkable=True, class_name="android.widget.CheckBox"),
        el("Disabled", top=600, is_clickable=True, is_enabled=False, class_name="android.widget.Button"),
    ])
