"""``droidverify tasks``: list the task templates and show one task instance."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from droidverify.cli._common import TASKS_MODULE_HELP, fail, load_task_modules, parse_seed
from droidverify.errors import DroidVerifyError

tasks_app = typer.Typer(help="List task templates and inspect task instances.", no_args_is_help=True)


@tasks_app.command("list")
def list_command(
    split: Annotated[str | None, typer.Option("--split", help="train | validation | test")] = None,
    app_name: Annotated[str | None, typer.Option("--app", help="Only templates using this app "
                                                 "(case-insensitive).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON lines instead of a table.")] = False,
    tasks_module: Annotated[list[str] | None, typer.Option("--tasks-module", metavar="MODULE",
                                                           help=TASKS_MODULE_HELP)] = None,
) -> None:
    """List task templates: name, apps, kind, complexity, optimal steps, split."""
    from droidverify.tasks import registry

    load_task_modules(tasks_module)

    if split is not None and split not in registry.SPLITS:
        fail(f"unknown --split {split!r}; use one of {', '.join(registry.SPLITS)}")
    templates = registry.templates_for_split(split) if split else registry.all_templates()
    if app_name:
        templates = [t for t in templates if app_name.lower() in (a.lower() for a in t.apps)]
        if not templates:
            fail(f"no task template uses app {app_name!r}")
    rows: list[dict[str, Any]] = [
        {"name": t.name, "apps": list(t.apps), "kind": t.kind, "complexity": t.complexity,
         "optimal_steps": t.optimal_steps, "split": registry.split_of(t.name)}
        for t in templates
    ]
    if as_json:
        for r in rows:
            typer.echo(json.dumps(r))
        return
    table = Table(title=f"{len(rows)} task templates")
    table.add_column("name", no_wrap=True)  # names are what users type: never cut them
    for col in ("apps", "kind", "complexity", "optimal steps", "split"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["name"], ", ".join(r["apps"]), r["kind"], str(r["complexity"]),
                      str(r["optimal_steps"]), r["split"])
    Console().print(table)


@tasks_app.command("show")
def show_command(
    task: Annotated[str, typer.Argument(help="Task template name (see `droidverify tasks list`).")],
    seed_spec: Annotated[str, typer.Option("--seed", help="Parameter seed (0 or more).")] = "0",
    fmt: Annotated[str, typer.Option("--format", "-f", help="Screen description: list | html | "
                                     "compressed")] = "list",
    tasks_module: Annotated[list[str] | None, typer.Option("--tasks-module", metavar="MODULE",
                                                           help=TASKS_MODULE_HELP)] = None,
) -> None:
    """Show a task instance: goal, parameters, limits and the initial screen on the simulator."""
    from droidverify.tasks import registry
    from droidverify.ui.describe import describe

    load_task_modules(tasks_module)

    if fmt not in ("list", "html", "compressed"):
        fail(f"unknown --format {fmt!r}; use list, html or compressed")
    try:
        seed = parse_seed(seed_spec)
        tmpl = registry.get_template(task)
    except DroidVerifyError as e:
        fail(str(e))
    inst = tmpl.instantiate(seed)
    from droidverify.env.sim import SimEnv

    env = SimEnv(task=inst, seed=seed)
    try:
        obs = env.reset()
        screen = describe(obs, fmt).text  # type: ignore[arg-type]
    finally:
        env.close()
    console = Console()
    console.print(f"[bold]{tmpl.name}[/bold] seed {seed} ({tmpl.kind}, complexity {tmpl.complexity}, "
                  f"apps: {', '.join(tmpl.apps)}, split: {registry.split_of(tmpl.name)})")
    console.print(f"[bold]Goal:[/bold] {escape(inst.goal)}", highlight=False)
    console.print(f"[bold]Params:[/bold] {escape(json.dumps(inst.params, ensure_ascii=False))}",
                  highlight=False)
    console.print(f"[bold]Steps:[/bold] optimal {tmpl.optimal_steps}, limit {inst.max_steps}")
    console.print(f"[bold]Initial screen[/bold] ({obs.package or 'unknown package'}):")
    console.print(screen, markup=False, highlight=False)


def register(app: typer.Typer) -> None:
    app.add_typer(tasks_app, name="tasks")
