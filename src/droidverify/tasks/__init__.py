"""Task templates over the simulated apps, their registry and fixed splits.

``registry.all_templates()`` / ``get_template(name)`` / ``templates_for_split(split)`` /
``tasks_for(split, seeds)``; every ``tasks/<app>.py`` module is imported automatically on first use.
"""

from droidverify.tasks.base import Task, TaskKind, TaskTemplate
from droidverify.tasks.registry import (
    SPLITS,
    all_templates,
    get_template,
    register_task,
    split_of,
    tasks_for,
    templates_for_split,
)

__all__ = [
    "SPLITS", "Task", "TaskKind", "TaskTemplate", "all_templates", "get_template", "register_task",
    "split_of", "tasks_for", "templates_for_split",
]
