"""The public home of the helpers task templates share (a template outside the package uses these).

* oracle helpers (``helpers.oracle``): find elements on the current screen and name the next action
  (``click``, ``type_into``, ``click_or_scroll``, ``navigate``, ``click_in`` a dialog...);
* checker helpers (``helpers.checks``): the task's starting rows (``baseline_rows``) and what changed
  (``diff_rows``); answer comparison (``answer_matches``, ``money_matches``);
* per-app helpers a new task for that app needs: ``helpers.clock`` (alarm editor, tabs).

Everything in ``oracle`` and ``checks`` is re-exported here::

    from droidverify.tasks.helpers import COMPLETE, baseline_rows, click, diff_rows, navigate
"""

from droidverify.tasks.helpers.checks import (
    NUMBER,
    answer_matches,
    baseline_rows,
    diff_rows,
    dollars,
    money_matches,
    normalize_answer,
)
from droidverify.tasks.helpers.oracle import (
    BACK,
    COMPLETE,
    HOME,
    NavPath,
    answer,
    click,
    click_in,
    click_or_scroll,
    dismiss_popups,
    find,
    find_all,
    look_first,
    matches,
    navigate,
    open_app,
    scroll_toward,
    type_in,
    type_into,
    window_of,
)

__all__ = [
    "BACK", "COMPLETE", "HOME", "NUMBER", "NavPath", "answer", "answer_matches", "baseline_rows", "click",
    "click_in", "click_or_scroll", "diff_rows", "dismiss_popups", "dollars", "find", "find_all", "look_first", "matches",
    "money_matches", "navigate", "normalize_answer", "open_app", "scroll_toward", "type_in", "type_into",
    "window_of",
]
