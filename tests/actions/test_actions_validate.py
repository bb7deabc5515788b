"""validate_action: elements, screen bounds, evidences; action_warnings for allowed soft problems."""

from __future__ import annotations

import pytest

from droidverify.actions import Action, action_warnings, validate_action
from droidverify.errors import ActionValidationError
from droidverify.ui.element import Bounds, UIElement


def A(t: str, **kw) -> Action:
    return Action.make(t, **kw)


@pytest.fixture
def elements() -> list[UIElement]:
    return [
        UIElement(text="OK", bbox_pixels=Bounds(0, 0, 100, 50), is_clickable=True),
        UIElement(class_name="android.widget.EditText", bbox_pixels=Bounds(0, 60, 500, 120),
                  is_editable=True, is_clickable=True),
        UIElement(class_name="androidx.recyclerview.widget.RecyclerView",
                  bbox_pixels=Bounds(0, 200, 1080, 2000), is_scrollable=True),
        UIElement(text="ghost", bbox_pixels=Bounds(10, 10, 10, 10), is_clickable=True),
        UIElement(text="Title", bbox_pixels=Bounds(0, 130, 500, 190), is_enabled=False),
    ]


def test_valid_actions_pass(elements) -> None:
    for a in [A("click", index=0), A("input_text", index=1, text="x"), A("scroll", index=2, direction="up"),
              A("scroll", direction="down"), A("click", x=1079, y=2399), A("navigate_back"),
              A("swipe", index=0, direction="left"), A("submit", text="m", evidences=[0, 2])]:
        validate_action(a, elements, screen_size=(1080, 2400), n_steps=3)


@pytest.mark.parametrize("index", [5, 99])
def test_index_out_of_range_names_the_range(elements, index: int) -> None:
    with pytest.raises(ActionValidationError, match=r"index .* out of range; valid indices are 0-4") as info:
        validate_action(A("click", index=index), elements)
    assert info.value.field == "index"


def test_index_on_empty_screen() -> None:
    with pytest.raises(ActionValidationError, match="no indexed elements"):
        validate_action(A("long_press", index=0), [])


def test_element_without_area_is_rejected(elements) -> None:
    with pytest.raises(ActionValidationError, match="no on-screen bounds"):
        validate_action(A("click", index=3), elements)


def test_scroll_on_non_scrollable_element(elements) -> None:
    with pytest.raises(ActionValidationError, match="not scrollable") as info:
        validate_action(A("scroll", index=0, direction="down"), elements)
    assert info.value.field == "index"


@pytest.mark.parametrize("x, y, field", [(1080, 5, "x"), (5, 2400, "y"), (5000, 9000, "x")])
def test_xy_outside_screen(x: int, y: int, field: str) -> None:
    with pytest.raises(ActionValidationError, match="outside the screen") as info:
        validate_action(A("click", x=x, y=y), screen_size=(1080, 2400))
    assert info.value.field == field


def test_no_context_means_no_context_checks() -> None:
    validate_action(A("click", index=999))
    validate_action(A("click", x=99999, y=99999))
    validate_action(A("submit", text="m", evidences=[50]))


@pytest.mark.parametrize("evidences, n_steps, msg", [
    ([3], 3, "valid ids are 0-2"), ([0], 0, "no earlier steps"), ([1, 1], 5, "listed twice"),
    ([-1], 5, "negative"), ([2, 2], None, "listed twice"),
])
def test_bad_evidences(evidences, n_steps, msg: str) -> None:
    with pytest.raises(ActionValidationError, match=msg) as info:
        validate_action(A("submit", text="done", evidences=evidences), n_steps=n_steps)
    assert info.value.field == "evidences"


def test_input_text_on_non_editable_is_allowed_but_warned(elements) -> None:
    a = A("input_text", index=0, text="hello")
    validate_action(a, elements)  # allowed: AndroidWorld types into whatever gains focus
    assert any("not editable" in w for w in action_warnings(a, elements))
    assert action_warnings(A("input_text", index=1, text="x"), elements) == []


def test_warnings_for_disabled_and_non_clickable(elements) -> None:
    w = action_warnings(A("click", index=4), elements)
    assert any("disabled" in m for m in w) and any("not marked clickable" in m for m in w)
    assert action_warnings(A("click", index=0), elements) == []
