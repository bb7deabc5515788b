"""Builders for synthetic uiautomator dumps used by the ui tests."""

from __future__ import annotations


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
