"""Helpers shared by the command modules (``_``-prefixed: not a command module itself)."""

from __future__ import annotations

from typing import NoReturn

import typer


def fail(message: str) -> NoReturn:
    """Print ``error: message`` to stderr and exit with status 2 (bad input, no traceback)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)
