from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rewards_doubles import small_set


@pytest.fixture(scope="session")
def labelled_items():
    """A small balanced labelled set over train templates (built once per session)."""
    return small_set()
