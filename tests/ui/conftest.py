"""Shared fixtures for the ui tests: the real uiautomator dumps in ../shared/data/uiautomator."""

from __future__ import annotations

import pytest
from ui_helpers import dump_dir


@pytest.fixture(scope="session")
def dumps() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(dump_dir().glob("*.xml"))}


@pytest.fixture(scope="session")
def gmail(dumps: dict[str, bytes]) -> bytes:
    return dumps["mobile-env__gmail_welcome.xml"]


@pytest.fixture(scope="session")
def launcher(dumps: dict[str, bytes]) -> bytes:
    return dumps["xiaocong_uiautomator__launcher_deskclock_widget.xml"]
