"""Builders for synthetic uiautomator dumps used by the ui tests."""

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


def node(cls: str = "android.widget.TextView", bounds: str = "[0,0][100,100]", children: str = "",
         **attrs: str) -> str:
    """A synthetic uiautomator node; keyword names use _ for - (long_clickable -> long-clickable)."""
    parts = [f'class="{cls}"', f'bounds="{bounds}"']
    parts += [f'{k.replace("_", "-")}="{v}"' for k, v in attrs.items()]
    head = "<node " + " ".join(parts)
    return head + (f">{children}</node>" if children else " />")


def hierarchy(*nodes: str) -> str:
    return "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">" + \
        "".join(nodes) + "</hierarchy>"
