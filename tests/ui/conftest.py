"""Shared fixtures for the ui tests: the real uiautomator dumps in ../shared/data/uiautomator."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def dump_dir() -> Path:
    """The real dumps; FAIL (never skip) when they are missing. DROIDVERIFY_SHARED overrides."""
    base = os.environ.get("DROIDVERIFY_SHARED")
    shared = Path(base) if base else Path(__file__).resolve().parents[2] / ".." / "shared"
    d = (shared / "data" / "uiautomator").resolve()
    if not d.is_dir() or not list(d.glob("*.xml")):
        pytest.fail(f"real uiautomator dumps not found in {d} (set DROIDVERIFY_SHARED)")
    return d


@pytest.fixture(scope="session")
def dumps() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(dump_dir().glob("*.xml"))}


@pytest.fixture(scope="session")
def gmail(dumps: dict[str, bytes]) -> bytes:
    return dumps["mobile-env__gmail_welcome.xml"]


@pytest.fixture(scope="session")
def launcher(dumps: dict[str, bytes]) -> bytes:
    return dumps["xiaocong_uiautomator__launcher_deskclock_widget.xml"]
