"""An example module of user task templates, kept outside the droidverify package.

Load it with ``droidverify tasks list --tasks-module examples/my_tasks.py`` and run it with
``droidverify run --tasks-module examples/my_tasks.py --agent oracle --tasks my_clock_rename_alarm
--seeds 0-4``; docs/tasks.md ("Write your own task") walks through it.

It uses only public API: ``TaskTemplate`` / ``register_task`` and the helpers in
``droidverify.tasks.helpers`` (``helpers.clock`` for the Clock app's alarm editor).
"""

from __future__ import annotations

import random
from typing import Any

from droidverify.actions import Action
from droidverify.env import Observation
from droidverify.env.sim import Phone
from droidverify.tasks import TaskTemplate, register_task
from droidverify.tasks.helpers import COMPLETE, baseline_rows, diff_rows
from droidverify.tasks.helpers.clock import APP, edit_draft, insert_alarm, labelled, open_alarm_editor

# Labels the simulator's seed data never uses, so the goal names exactly one alarm.
LABELS = ("Swim", "Piano practice", "Dentist", "Vitamins", "Stretch", "Bake bread", "Water plants")
TIMES = ((6, 5), (7, 20), (8, 35), (14, 40), (19, 55), (23, 5))
ALARMS = "SELECT _id, hour, minutes, label, enabled, days_of_week FROM alarm_templates ORDER BY _id"


@register_task
class RenameAlarm(TaskTemplate):
    name = "my_clock_rename_alarm"  # unique across all templates; its hash fixes the split
    apps = ("Clock",)                # launcher names of the apps the task needs
    complexity = 2
    optimal_steps = 6                # the oracle's steps on a typical seed, final status included
    goal_template = "Rename the alarm labelled \"{label}\" to \"{new_label}\"."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        # Everything the goal mentions comes from rng: same seed, same task.
        label, new_label, decoy = rng.sample(LABELS, 3)
        return {"label": label, "new_label": new_label, "decoy": decoy}

    def setup(self, phone: Phone, params: dict[str, Any], rng: random.Random) -> None:
        # Declaring ``rng`` gets a generator derived from the template and params; the checker's
        # rebuilt starting phone (baseline_rows) draws the same times.
        (h, m), (dh, dm) = rng.sample(TIMES, 2)
        for label in (params["label"], params["new_label"], params["decoy"]):
            for alarm in labelled(phone, label):
                phone.execute("DELETE FROM alarm_templates WHERE _id=?", (alarm["_id"],))
        insert_alarm(phone, h, m, label=params["label"])
        insert_alarm(phone, dh, dm, label=params["decoy"])  # a near miss to leave alone

    def _target(self, phone: Phone, params: dict[str, Any]) -> tuple:
        """The alarm to rename, as it was right after set-up."""
        return next(r for r in baseline_rows(phone, self, params, ALARMS) if r[3] == params["label"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        # Exactly one change: the target's label. Any other edit, a copy or a deletion fails.
        added, removed, changed = diff_rows(baseline_rows(phone, self, params, ALARMS),
                                            [tuple(r) for r in phone.query(ALARMS)])
        old = self._target(phone, params)
        renamed = (*old[:3], params["new_label"], *old[4:])
        return 1.0 if not added and not removed and changed == [(old, renamed)] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        # Decide from the current screen, so the oracle can take over from anywhere.
        if self.is_successful(phone, params, None):
            return COMPLETE
        alarm_id, hour, minute = self._target(phone, params)[:3]
        screen = phone.screen
        if phone.foreground == APP and screen is not None and screen.name == "edit_alarm" \
                and screen.args.get("alarm_id") == alarm_id:
            return edit_draft(phone, obs, hour, minute, None, params["new_label"])
        alarm = phone.query_one("SELECT * FROM alarm_templates WHERE _id=?", (alarm_id,))
        return open_alarm_editor(phone, obs, alarm)
