"""Kept so existing imports work: the oracle and answer helpers live in ``droidverify.tasks.helpers``."""

from droidverify.tasks.helpers import (  # noqa: F401
    BACK,
    COMPLETE,
    HOME,
    NavPath,
    answer,
    answer_matches,
    click,
    click_or_scroll,
    dismiss_popups,
    find,
    find_all,
    matches,
    navigate,
    normalize_answer,
    open_app,
    scroll_toward,
    type_into,
)
