"""``droidverify report``: (re)build a run directory's HTML report from its files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from droidverify.cli._common import exit_with
from droidverify.errors import DroidVerifyError


def report_command(
    run_dir: Annotated[Path, typer.Argument(help="A run directory written by `droidverify run`.")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="HTML file to write "
                                             "(default RUN_DIR/report.html).")] = None,
    screens: Annotated[bool, typer.Option("--screens/--no-screens", help="Render each step's screen "
                                          "from its XML (PNG files in screens/rendered/ next to the "
                                          "report).")] = True,
    scale: Annotated[float, typer.Option("--scale", help="Size of rendered screens (1.0 = 1080x2400).",
                                         min=0.05, max=1.0)] = 0.3,
    top_k: Annotated[int, typer.Option("--top-k", help="Verifier candidates shown before the rest "
                                       "are collapsed.", min=1)] = 8,
) -> None:
    """Build report.html for RUN_DIR: summary by app and complexity, then each episode's steps."""
    from rich.console import Console

    from droidverify.runner.report import build_report

    console = Console(stderr=True)
    try:
        with console.status(f"building the report of {run_dir}"):
            path = build_report(run_dir, out_file=out, screens=screens, scale=scale, top_k=top_k)
    except (DroidVerifyError, OSError) as e:
        exit_with(e, os_message=f"cannot write the report: {e}")
    typer.echo(str(path))


def register(app: typer.Typer) -> None:
    app.command("report")(report_command)
