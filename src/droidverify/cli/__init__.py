"""The ``droidverify`` command line. Each module in this package adds its commands via ``register``
(``_``-prefixed modules are shared helpers, not commands)."""

from __future__ import annotations

import importlib
import pkgutil

import typer

app = typer.Typer(
    name="droidverify",
    help="Build, verify and train LLM agents that operate Android apps.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)



@app.callback()
def _root() -> None:
    """Keeps typer in multi-command mode even while only one command is registered."""


for _mod in sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")):
    importlib.import_module(f"{__name__}.{_mod}").register(app)


def main() -> None:
    app()
