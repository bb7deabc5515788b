"""Fixtures for the end-to-end tests (helpers live in e2e_helpers.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from e2e_helpers import LAUNCHER_DUMP, ReplayDevice, uiautomator_dir

from droidverify.env.adb import AdbEnv, RecordingShell


@pytest.fixture
def adb_factory() -> tuple[Callable[..., AdbEnv], list[RecordingShell]]:
    """An env_factory for run_many giving AdbEnvs over recording shells (kept for inspection)."""
    xml = (uiautomator_dir() / LAUNCHER_DUMP).read_text(encoding="utf-8")
    shells: list[RecordingShell] = []

    def factory(task, seed) -> AdbEnv:
        shell = RecordingShell(ReplayDevice(xml))
        shells.append(shell)
        return AdbEnv(shell, sleep=lambda s: None)

    return factory, shells
