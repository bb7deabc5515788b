"""The task registry's duplicate check (issue 10, item 19)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from droidverify.errors import TaskError
from droidverify.tasks import registry
from droidverify.tasks.base import TaskTemplate


def _same_class_name_elsewhere() -> type[TaskTemplate]:
    original = type(registry.get_template("files_create_folder"))

    class Impostor(TaskTemplate):
        name = "files_create_folder"
        apps = ("Files",)
        optimal_steps = 1
        goal_template = "impostor"

        def generate_params(self, rng: random.Random) -> dict[str, Any]:
            return {}

        def setup(self, phone: Any, params: dict[str, Any]) -> None: ...

        def is_successful(self, phone: Any, params: dict[str, Any], answer: str | None) -> float:
            return 1.0

        def oracle_action(self, phone: Any, params: dict[str, Any], obs: Any) -> Any: ...

    Impostor.__name__ = Impostor.__qualname__ = original.__qualname__  # same class name, other module
    return Impostor


def test_a_class_with_the_same_name_from_another_module_cannot_replace_a_template() -> None:
    original = registry.get_template("files_create_folder")
    with pytest.raises(TaskError, match="registered twice"):
        registry.register_task(_same_class_name_elsewhere())
    assert registry.get_template("files_create_folder") is original


def test_re_registering_the_same_class_is_allowed() -> None:
    cls = type(registry.get_template("files_create_folder"))
    assert registry.register_task(cls) is cls
