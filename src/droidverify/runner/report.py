"""The HTML report of a run directory (episodes, success, per-step actions and screenshots)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from droidverify.runner.store import REPORT_FILE, SCREENS_DIR
from droidverify.runner.summary import RunSummary


def write_report(out_dir: Path, *, episodes: list[dict[str, Any]], summary: RunSummary) -> Path:
    """Render ``report.html`` in ``out_dir``; screenshots are linked relative to it when present."""
    rows = []
    for ep in episodes:
        shots_dir = out_dir / SCREENS_DIR / str(ep.get("attempt_id"))
        screens = [
            f"{SCREENS_DIR}/{ep['attempt_id']}/{i:03d}.png"
            if (shots_dir / f"{i:03d}.png").exists() else None
            for i in range(int(ep.get("n_steps") or 0))
        ]
        rows.append({**ep, "actions": ep.get("actions") or [], "errors": ep.get("errors") or [],
                     "screens": screens if any(screens) else None})
    env = Environment(loader=PackageLoader("droidverify.runner", "templates"),
                      autoescape=select_autoescape(["html", "jinja"]))
    html = env.get_template("report.html.jinja").render(summary=summary, episodes=rows)
    path = out_dir / REPORT_FILE
    path.write_text(html, encoding="utf-8")
    return path
