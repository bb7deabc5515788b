"""`droidverify ui`: prints descriptions of a dump; bad input gives a clear message and exit code 2."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from droidverify.cli import ui as ui_cli
from droidverify.ui import describe, parse_xml, select_elements


@pytest.fixture(scope="module")
def app() -> typer.Typer:
    # A group with a no-op callback, so `ui` is a subcommand whatever else is registered.
    app = typer.Typer()

    @app.callback()
    def _main() -> None:
        pass

    ui_cli.register(app)
    return app


@pytest.fixture
def launcher_file(tmp_path: Path, launcher: bytes) -> Path:
    p = tmp_path / "launcher.xml"
    p.write_bytes(launcher)
    return p


@pytest.mark.parametrize("fmt", ["list", "html", "compressed"])
def test_prints_each_format(app: typer.Typer, launcher_file: Path, launcher: bytes, fmt: str) -> None:
    result = CliRunner().invoke(app, ["ui", str(launcher_file), "--format", fmt])
    assert result.exit_code == 0, result.output
    root = parse_xml(launcher)
    assert result.output == describe(select_elements(root), fmt, root=root).text + "\n"  # type: ignore[arg-type]


def test_interactive_and_tokens(app: typer.Typer, tmp_path: Path, gmail: bytes) -> None:
    p = tmp_path / "g.xml"
    p.write_bytes(gmail)
    result = CliRunner().invoke(app, ["ui", str(p), "--interactive", "--tokens"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == '0: TextView "GOT IT" res=welcome_tour_got_it (clickable) center=(540,1720)'
    assert len(lines) == 2 and lines[1].startswith("# tokens: ") and lines[1].endswith("(regex estimate)")
    assert int(lines[1].split()[2]) > 10


@pytest.mark.parametrize(("content", "args", "message"), [
    ('<hierarchy><node class="a.B" bounds="[5,0][1,1]"/></hierarchy>', [], "bounds"),
    ("<hierarchy><node", [], "malformed XML"),
    ("<hierarchy/>", [], "no nodes"),
    ('<hierarchy><node bounds="[0,0][9,9]"/></hierarchy>', ["--format", "yaml"], "unknown --format"),
    ('<hierarchy><node bounds="[0,0][9,9]"/></hierarchy>', ["--screen", "big"], "--screen"),
])
def test_bad_input_exits_2(app: typer.Typer, tmp_path: Path, content: str, args: list[str], message: str) -> None:
    p = tmp_path / "bad.xml"
    p.write_text(content)
    result = CliRunner().invoke(app, ["ui", str(p), *args])
    assert result.exit_code == 2
    assert "error:" in result.output and message in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_missing_file_exits_2(app: typer.Typer, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["ui", str(tmp_path / "nope.xml")])
    assert result.exit_code == 2 and "cannot read" in result.output


def test_bad_tokenizer_exits_2(app: typer.Typer, launcher_file: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["ui", str(launcher_file), "--tokenizer", str(tmp_path / "none")])
    assert result.exit_code == 2 and "cannot load tokenizer" in result.output


def test_help(app: typer.Typer) -> None:
    result = CliRunner().invoke(app, ["ui", "--help"])
    assert result.exit_code == 0 and "--interactive" in result.output
