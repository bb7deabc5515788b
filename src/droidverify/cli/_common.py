"""Helpers shared by the command modules (``_``-prefixed: not a command module itself)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import typer

from droidverify.errors import DroidVerifyError, InfrastructureError, RunError
from droidverify.tasks.base import MAX_SEED

MAX_SEEDS = 100_000  # seeds in one --seeds spec
_SEED_PART = re.compile(r"([0-9]+)(?:\s*-\s*([0-9]+))?", re.ASCII)


def fail(message: str) -> NoReturn:
    """Print ``error: message`` to stderr and exit with status 2 (bad input, no traceback)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def exit_code(error: BaseException, *, started: bool = False) -> int:
    """The exit status every command gives ``error``: 1 for infrastructure (rerun to resume) and
    filesystem failures, and for the project's other errors once the command's work has
    ``started`` (a run that could not complete); 2 for bad input (the project's errors before the
    work starts: options, files, configuration)."""
    if isinstance(error, (InfrastructureError, OSError)):
        return 1
    return 1 if started else 2


def exit_with(error: BaseException, *, started: bool = False, infra_note: str = " (rerun to resume)",
              os_message: str | None = None) -> NoReturn:
    """Print ``error`` as one ``error:`` line (no traceback) and exit with :func:`exit_code`.

    ``infra_note`` follows an infrastructure error's line (what to do: rerun); ``os_message``
    replaces a filesystem error's text (which file of the command's it was)."""
    if isinstance(error, InfrastructureError):
        text = f"{type(error).__name__}: {error}{infra_note}"
    elif isinstance(error, DroidVerifyError):
        text = f"{type(error).__name__}: {error}"
    elif isinstance(error, OSError):
        text = os_message if os_message is not None else str(error)
    else:  # not an error this maps: let it propagate with its traceback
        raise error
    typer.echo(f"error: {text}", err=True)
    raise typer.Exit(code=exit_code(error, started=started)) from None


@contextmanager
def cli_errors(*, started: bool = False, infra_note: str = " (rerun to resume)") -> Iterator[None]:
    """Turn the project's errors (and filesystem errors) into one ``error:`` line and the exit status
    of :func:`exit_code`; every command runs its work inside one."""
    try:
        yield
    except (DroidVerifyError, OSError) as e:
        exit_with(e, started=started, infra_note=infra_note)


TASKS_MODULE_HELP = ("A module of your own task templates: a module name on the Python path (my_tasks, "
                     "pkg.tasks) or a .py file; repeat for several. Installed `droidverify.tasks` entry "
                     "points load too (docs/tasks.md).")


def load_task_modules(modules: list[str] | None) -> None:
    """User task templates: the installed ``droidverify.tasks`` entry points, then each
    ``--tasks-module``. One that cannot be loaded exits 2 with one ``error:`` line.

    Every command that resolves a task name calls this (run, tasks, judge, labelled-set, train data
    and loop); the registry remembers what it loaded, and ``--workers`` / ``--ray`` workers load the
    same modules before they resolve a name (``runner.backends``)."""
    from droidverify.errors import TaskError
    from droidverify.tasks import registry

    try:
        registry.load_entry_points()
        for spec in modules or []:
            registry.load_tasks_module(spec)
    except TaskError as e:
        fail(f"{type(e).__name__}: {e}")


def _seed_value(text: str, spec: str) -> int:
    if len(text) > len(str(MAX_SEED)) or int(text) > MAX_SEED:
        raise RunError(f"bad seeds spec {spec!r}: {text} is larger than the largest seed {MAX_SEED}")
    return int(text)


def parse_seeds(spec: str) -> list[int]:
    """``"0,1,2"``, ``"0-4"`` or a mix (``"0-2,7"``) -> sorted unique seeds; RunError if malformed.

    The one seed syntax of every command: ASCII digits only, 0..MAX_SEED, at most MAX_SEEDS seeds.
    """
    seeds: set[int] = set()
    for part in spec.split(","):
        part = part.strip()
        m = _SEED_PART.fullmatch(part)
        if not m:
            raise RunError(f"bad seeds spec {spec!r}: {part!r} is not N or N-M (non-negative integers)")
        lo = _seed_value(m.group(1), spec)
        hi = _seed_value(m.group(2), spec) if m.group(2) is not None else lo
        if hi < lo:
            raise RunError(f"bad seeds spec {spec!r}: range {part!r} is descending")
        if hi - lo + 1 + len(seeds) > MAX_SEEDS:
            raise RunError(f"bad seeds spec {spec!r}: more than {MAX_SEEDS} seeds")
        seeds.update(range(lo, hi + 1))
    return sorted(seeds)


def parse_seed(spec: str) -> int:
    """One seed, same syntax and bounds as :func:`parse_seeds`."""
    if "," in spec or "-" in spec.strip():
        raise RunError(f"bad seed {spec!r}: give one non-negative integer")
    return parse_seeds(spec)[0]
