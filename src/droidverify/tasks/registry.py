"""Task template registry and the fixed train/validation/test splits.

Every module in ``droidverify.tasks`` is imported on first use, so adding ``tasks/<app>.py`` with
``@register_task`` classes is all an app author does. Templates outside the package (docs/tasks.md,
"Write your own task") join with :func:`load_tasks_module` (``--tasks-module``) or an entry point
of the ``droidverify.tasks`` group (:func:`load_entry_points`); both are explicit, so the built-in
set that training data and evaluation splits are drawn from never changes behind a caller's back.

Splits (documented in docs/tasks.md, never change them once published):

* **By template**: ``sha256(template name)`` -> first 8 hex digits as an integer modulo 100;
  ``< 60`` train, ``< 80`` validation, else test. A template's split depends only on its own
  name, so adding templates never moves existing ones.
* **By parameters**: seeds ``< UNSEEN_SEED_START`` (1000) are "seen" parameter draws; seeds
  ``>= 1000`` are "unseen params" for generalisation to new parameter values of known templates.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.metadata
import os
import pkgutil
import sys
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

from droidverify.errors import DuplicateTaskError, TaskError, TaskModuleError
from droidverify.tasks.base import Phrasing, Task, TaskTemplate

SPLITS = ("train", "validation", "test")
PARAM_SPLITS = ("seen", "unseen")
UNSEEN_SEED_START = 1000
_TRAIN_PCT, _VALID_PCT = 60, 20
_SKIP_MODULES = frozenset({"base", "registry", "oracle_utils", "helpers"})
ENTRY_POINT_GROUP = "droidverify.tasks"  # each entry point names a module of @register_task templates

_TEMPLATES: dict[str, TaskTemplate] = {}
_LOADED = False
# template name -> (the spec that loads its module again, where its class is defined): what worker
# processes load so they resolve the same names (spawned processes do not inherit imports)
_SOURCES: dict[str, tuple[str, str]] = {}


def _where(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def register_task(cls: type[TaskTemplate]) -> type[TaskTemplate]:
    """Class decorator: register one instance of a TaskTemplate subclass under ``cls.name``."""
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name:
        raise TaskError(f"{cls.__name__} needs a non-empty class attribute 'name'")
    for attr in ("apps", "optimal_steps", "goal_template"):
        if not hasattr(cls, attr):
            raise TaskError(f"task template {name!r} ({cls.__name__}) lacks class attribute {attr!r}")
    existing = _TEMPLATES.get(name)
    if existing is not None and _where(type(existing)) != _where(cls):
        # Only re-running the same class definition (a reloaded module) may replace a template.
        raise DuplicateTaskError(f"task template name {name!r} registered twice: by {_where(type(existing))} "
                                 f"and by {_where(cls)}; give one of them another name", name=name)
    _TEMPLATES[name] = cls()
    return cls


def _load() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    import droidverify.tasks as pkg

    for mod in sorted(m.name for m in pkgutil.iter_modules(pkg.__path__)):
        if mod not in _SKIP_MODULES and not mod.startswith("_"):
            importlib.import_module(f"{pkg.__name__}.{mod}")


_PATH_HINT = "give a module on the Python path, e.g. my_tasks or pkg.tasks, or a path to a .py file"


def _import_user_module(name: str, what: str, hint: str = _PATH_HINT,
                        source: str | None = None) -> tuple[ModuleType, list[TaskTemplate]]:
    """Import ``name`` -> (module, the templates it registers: defined in it or in its submodules,
    or registered while it was imported). On failure the registry is left as it was and a
    :class:`TaskModuleError` says why."""
    before = dict(_TEMPLATES)
    try:
        module = importlib.import_module(name)
    except DuplicateTaskError:
        _TEMPLATES.clear()
        _TEMPLATES.update(before)
        raise
    except ModuleNotFoundError as e:
        _TEMPLATES.clear()
        _TEMPLATES.update(before)
        if e.name is not None and (name == e.name or name.startswith(e.name + ".")):
            raise TaskModuleError(f"cannot import {what}: no module named {e.name!r} ({hint})",
                                  module=name) from None
        raise TaskModuleError(f"importing {what} failed: {type(e).__name__}: {e}", module=name) from e
    except Exception as e:  # the user's code: a syntax error, a failing import of its own, ...
        _TEMPLATES.clear()
        _TEMPLATES.update(before)
        raise TaskModuleError(f"importing {what} failed: {type(e).__name__}: {e}", module=name) from e
    prefix = module.__name__ + "."
    found = [t for n, t in _TEMPLATES.items() if n not in before or type(t).__module__ == module.__name__
             or type(t).__module__.startswith(prefix)]
    if not found:
        raise TaskModuleError(_no_templates_message(module, what), module=name)
    for t in found:  # the latest load names the source (a name freed and registered again moves on)
        _SOURCES[t.name] = (source or name, _where(type(t)))
    return module, sorted(found, key=lambda t: t.name)


def _module_name_for(spec: str) -> str:
    """A module name for ``spec``: a dotted name as given, or a ``.py`` path made importable.

    A path's folder goes on ``sys.path`` (worker processes started by ``--workers`` inherit it, so
    they import the same module by name when they receive its templates).
    """
    if spec.endswith(".py") or os.sep in spec or (os.altsep and os.altsep in spec):
        path = Path(spec).expanduser().resolve()
        if path.suffix != ".py" or not path.is_file():
            raise TaskModuleError(f"tasks module {spec!r}: no such .py file", module=spec)
        if not path.stem.isidentifier():
            raise TaskModuleError(f"tasks module {spec!r}: {path.stem!r} is not a valid module name",
                                  module=spec)
        folder = str(path.parent)
        if folder not in sys.path:
            sys.path.insert(0, folder)
        loaded = sys.modules.get(path.stem)
        file = getattr(loaded, "__file__", None)
        if loaded is not None and (file is None or Path(file).resolve() != path):
            raise TaskModuleError(f"tasks module {spec!r}: another module named {path.stem!r} is already "
                                  f"imported (from {file}); rename the file", module=spec)
        return path.stem
    if not all(part.isidentifier() for part in spec.split(".")):
        raise TaskModuleError(f"tasks module {spec!r} is neither a module name (pkg.tasks) nor a .py path",
                              module=spec)
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.append(cwd)  # as ``python -m``: a module in the working directory is found
    return spec


def load_tasks_module(spec: str) -> list[TaskTemplate]:
    """Import a module of user task templates and return the templates it registered.

    ``spec`` is a module name on the Python path (``my_tasks``, ``mypkg.tasks``) or a path to a
    ``.py`` file. The built-in templates are loaded first, so a clashing name raises
    :class:`DuplicateTaskError`; a module that cannot be imported, fails while importing or
    registers no template raises :class:`TaskModuleError`. Loading a module twice is harmless.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise TaskModuleError(f"a tasks module must be a non-empty string, got {spec!r}", module=None)
    spec = spec.strip()
    _load()
    name = _module_name_for(spec)
    # a path is kept absolute: a worker started elsewhere loads the same file
    source = str(Path(spec).expanduser().resolve()) if name != spec else spec
    return _import_user_module(name, f"tasks module {spec!r}", source=source)[1]


def user_task_modules() -> tuple[str, ...]:
    """The tasks modules (``--tasks-module`` specs, entry points' module names) that registered the
    user templates now in the registry, in the order they were first loaded; each is a valid
    argument of :func:`load_tasks_module`.

    Worker processes (``runner.backends``) load these before they resolve a task name, so a name this
    process resolves resolves there too. Templates registered by a bare ``import`` are not listed.
    """
    out: list[str] = []
    for name, (spec, where) in _SOURCES.items():
        template = _TEMPLATES.get(name)
        # a template the registry no longer holds, or holds from another class, is not this source's
        if template is not None and _where(type(template)) == where and spec not in out:
            out.append(spec)
    return tuple(out)


def load_tasks_modules(specs: Iterable[str]) -> list[TaskTemplate]:
    """:func:`load_tasks_module` for each of ``specs`` in order (what :func:`user_task_modules`
    returned in another process); returns every template they registered."""
    found: dict[str, TaskTemplate] = {}
    for spec in specs:
        found.update((t.name, t) for t in load_tasks_module(spec))
    return [found[k] for k in sorted(found)]


def _no_templates_message(module: ModuleType, what: str) -> str:
    unregistered = sorted(n for n, v in vars(module).items()
                          if isinstance(v, type) and issubclass(v, TaskTemplate) and v.__module__ == module.__name__
                          and isinstance(getattr(v, "name", None), str))
    hint = (f"; {', '.join(unregistered)} {'is' if len(unregistered) == 1 else 'are'} not decorated with "
            "@register_task" if unregistered else "; decorate TaskTemplate subclasses with @register_task")
    return f"{what} registers no task template{hint}"


def load_entry_points(group: str = ENTRY_POINT_GROUP) -> list[TaskTemplate]:
    """Load every installed entry point of ``group``; return the templates they registered.

    An entry point names a module (``my_tasks = "mypkg.tasks"`` under
    ``[project.entry-points."droidverify.tasks"]`` in the plug-in's pyproject.toml). Errors as
    :func:`load_tasks_module`, naming the entry point and its distribution.
    """
    _load()
    found: dict[str, TaskTemplate] = {}
    for ep in sorted(importlib.metadata.entry_points(group=group), key=lambda e: (e.name, e.value)):
        dist = getattr(getattr(ep, "dist", None), "name", None)
        what = f"entry point {ep.name!r} = {ep.value!r} (group {group}{f', from {dist}' if dist else ''})"
        hint = "the package declaring it is installed, but the module it names is not"
        found.update((t.name, t) for t in _import_user_module(ep.module, what, hint)[1])
    return [found[k] for k in sorted(found)]


def all_templates() -> list[TaskTemplate]:
    """Every registered template, sorted by name."""
    _load()
    return [_TEMPLATES[k] for k in sorted(_TEMPLATES)]


def get_template(name: str) -> TaskTemplate:
    """The template called ``name``; unknown names raise :class:`TaskError` with close matches."""
    if not isinstance(name, str):
        raise TaskError(f"a task template name must be a string, got {type(name).__name__} {name!r}")
    _load()
    try:
        return _TEMPLATES[name]
    except KeyError:
        close = difflib.get_close_matches(name, list(_TEMPLATES), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else f" ({len(_TEMPLATES)} templates registered)"
        raise TaskError(f"unknown task template {name!r}{hint}") from None


def split_of(name: str) -> str:
    """``train``/``validation``/``test`` for a template name (stable hash of the name)."""
    bucket = int(hashlib.sha256(name.encode("utf-8")).hexdigest()[:8], 16) % 100
    if bucket < _TRAIN_PCT:
        return "train"
    if bucket < _TRAIN_PCT + _VALID_PCT:
        return "validation"
    return "test"


def param_split_of(seed: int) -> str:
    """``seen`` for seeds below 1000, ``unseen`` from 1000 on."""
    return "seen" if seed < UNSEEN_SEED_START else "unseen"


def templates_for_split(split: str) -> list[TaskTemplate]:
    """Templates of one split (``train``, ``validation``, ``test``; ``all`` for every template)."""
    if split == "all":
        return all_templates()
    if split not in SPLITS:
        raise TaskError(f"unknown split {split!r}; use one of {', '.join(SPLITS)} or 'all'")
    return [t for t in all_templates() if split_of(t.name) == split]


def tasks_for(split: str, seeds: Iterable[int], *, params: str | None = None,
              phrasing: Phrasing = 0) -> list[Task]:
    """Instantiate every template of ``split`` for every seed (goals worded by ``phrasing``, see
    :meth:`TaskTemplate.phrasing_for`).

    ``params="seen"``/``"unseen"`` additionally requires the seeds to fall in that parameter
    split, so a caller cannot silently evaluate "unseen" on training seeds.
    """
    seeds = list(seeds)
    if params is not None:
        if params not in PARAM_SPLITS:
            raise TaskError(f"unknown parameter split {params!r}; use 'seen' or 'unseen'")
        wrong = [s for s in seeds if param_split_of(s) != params]
        if wrong:
            raise TaskError(f"seeds {wrong[:5]} are not in the {params!r} parameter split "
                            f"(seen: < {UNSEEN_SEED_START}, unseen: >= {UNSEEN_SEED_START})")
    return [t.instantiate(s, phrasing=phrasing) for t in templates_for_split(split) for s in seeds]
