"""``droidverify screen`` writes a decodable PNG of the task's screen; bad input exits 2."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image
from typer.testing import CliRunner

from droidverify.cli import app


def test_screen_renders_initial_and_after_oracle_steps(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "a" / "s.png"
    res = runner.invoke(app, ["screen", "clock_create_alarm", "--seed", "1", "--steps", "2", "--out", str(out),
                              "--scale", "0.5"])
    assert res.exit_code == 0, res.output
    assert "clock/edit_alarm after 2 oracle step(s)" in res.output
    assert Image.open(io.BytesIO(out.read_bytes())).size == (540, 1200)
    res = runner.invoke(app, ["screen", "settings_wifi_toggle", "--out", str(tmp_path / "b.png")])
    assert res.exit_code == 0 and "launcher/home after 0" in res.output


def test_screen_bad_input_exits_2(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["screen", "settings_wifi_togle", "--out", str(tmp_path / "x.png")])
    assert res.exit_code == 2 and "did you mean settings_wifi_toggle" in res.output
    res = runner.invoke(app, ["screen", "settings_wifi_toggle", "--highlight", "500", "--out", str(tmp_path / "x.png")])
    assert res.exit_code == 2 and "highlight index 500" in res.output
