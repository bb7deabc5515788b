"""Task templates over the simulated apps, their registry and fixed splits.

``registry.all_templates()`` / ``get_template(name)`` / ``templates_for_split(split)`` /
``tasks_for(split, seeds)``; every ``tasks/<app>.py`` module is imported automatically on first use;
templates outside the package join with ``load_tasks_module`` / ``load_entry_points``. Helpers for
writing templates: ``droidverify.tasks.helpers``.
"""

from droidverify.tasks.base import Task, TaskKind, TaskTemplate
from droidverify.tasks.registry import (
    ENTRY_POINT_GROUP,
    SPLITS,
    all_templates,
    get_template,
    load_entry_points,
    load_tasks_module,
    register_task,
    split_of,
    tasks_for,
    templates_for_split,
)

__all__ = [
    "ENTRY_POINT_GROUP", "SPLITS", "Task", "TaskKind", "TaskTemplate", "all_templates", "get_template",
    "load_entry_points", "load_tasks_module", "register_task", "split_of", "tasks_for", "templates_for_split",
]
