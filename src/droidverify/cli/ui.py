"""``droidverify ui``: describe a uiautomator dump the way an agent's prompt would see it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from droidverify.cli._common import fail
from droidverify.errors import DroidVerifyError
from droidverify.ui import describe, parse_xml, select_elements, simple_token_count
from droidverify.ui.tree import read_dump


def ui_command(
    file: Annotated[Path, typer.Argument(help="uiautomator dump (XML) to describe.")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="list | html | compressed")] = "list",
    interactive: Annotated[bool, typer.Option("--interactive", help="Only interactive elements.")] = False,
    tokens: Annotated[bool, typer.Option(
        "--tokens",
        help="Also print a token count (last line, '# tokens: N (...)'). Without --tokenizer it is a "
             "model-free estimate: runs of word characters plus single punctuation characters.",
    )] = False,
    tokenizer: Annotated[str | None, typer.Option(
        "--tokenizer", help="Local Hugging Face tokenizer directory to count tokens with (offline).",
    )] = None,
    screen: Annotated[str | None, typer.Option(
        "--screen", help="Screen size WxH (default: the extent of the dump's windows).",
    )] = None,
) -> None:
    """Parse FILE, select its elements and print a prompt description (exit code 2 on bad input)."""
    if fmt not in ("list", "html", "compressed"):
        fail(f"unknown --format {fmt!r}; use list, html or compressed")
    screen_size = None
    if screen is not None:
        try:
            w, h = (int(v) for v in screen.lower().split("x"))
            screen_size = (w, h)
        except ValueError:
            fail(f"--screen must look like 1080x2400, got {screen!r}")
    try:
        data = read_dump(file)
    except OSError as e:
        fail(f"cannot read {file}: {e.strerror or e}")
    except DroidVerifyError as e:
        fail(str(e))
    tok: Any = None
    if tokenizer is not None:
        try:
            from transformers import AutoTokenizer

            tok = AutoTokenizer.from_pretrained(tokenizer, local_files_only=True)
        except (OSError, ValueError, ImportError) as e:  # what from_pretrained raises for a bad path
            fail(f"cannot load tokenizer {tokenizer!r}: {e}")
    try:
        root = parse_xml(data)
        elements = select_elements(root, screen_size, interactive_only=interactive)
        desc = describe(elements, fmt, root=root)  # type: ignore[arg-type]
    except DroidVerifyError as e:
        fail(f"{file}: {e}")
    typer.echo(desc.text)
    if tokens or tok is not None:
        if tok is not None:
            typer.echo(f"# tokens: {desc.count_tokens(tok)} ({tokenizer})")
        else:
            typer.echo(f"# tokens: {desc.count_tokens(simple_token_count)} (regex estimate)")


def register(app: typer.Typer) -> None:
    app.command("ui", help="Describe a uiautomator dump as list, html or compressed text.")(ui_command)
