"""``droidverify screen``: render a task's simulated screen to a PNG (initial, or after K oracle steps)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from droidverify.cli._common import exit_with, parse_seed
from droidverify.errors import DroidVerifyError


def screen_command(
    task: Annotated[str, typer.Argument(help="Task template name (see `droidverify tasks list`).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="PNG file to write.")],
    seed_spec: Annotated[str, typer.Option("--seed", help="Parameter and phone seed (0 or more).")] = "0",
    steps: Annotated[int, typer.Option("--steps", help="Oracle steps to take before rendering.", min=0)] = 0,
    highlight: Annotated[int | None, typer.Option("--highlight", help="Outline this element index.")] = None,
    scale: Annotated[float, typer.Option("--scale", help="Resize factor (1.0 = 1080x2400).", min=0.05,
                                         max=2.0)] = 1.0,
) -> None:
    """Render the task's initial screen (or the screen after K oracle steps) to a PNG."""
    from droidverify.env.sim import SimEnv
    from droidverify.tasks import registry
    from droidverify.ui.render import render_png

    try:
        seed = parse_seed(seed_spec)
        inst = registry.get_template(task).instantiate(seed)
        env = SimEnv(inst, seed)
        obs = env.reset()
        taken = 0
        for _ in range(steps):
            action = inst.oracle_action(env.phone, obs)
            if action.action_type in ("status", "submit"):
                break
            obs = env.step(action)
            taken += 1
        png = render_png(obs, highlight=highlight, scale=scale)
    except DroidVerifyError as e:
        exit_with(e)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(png)
    except OSError as e:
        exit_with(e, os_message=f"cannot write {out}: {e}")
    typer.echo(f"{out}: {inst.goal} | {obs.info.get('location')} after {taken} oracle step(s), "
               f"{len(obs.elements)} elements")


def register(app: typer.Typer) -> None:
    app.command("screen")(screen_command)
