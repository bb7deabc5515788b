"""Task template registry and the fixed train/validation/test splits.

Every module in ``droidverify.tasks`` is imported on first use, so adding ``tasks/<app>.py`` with
``@register_task`` classes is all an app author does.

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
import pkgutil
from collections.abc import Iterable

from droidverify.errors import TaskError
from droidverify.tasks.base import Task, TaskTemplate

SPLITS = ("train", "validation", "test")
PARAM_SPLITS = ("seen", "unseen")
UNSEEN_SEED_START = 1000
_TRAIN_PCT, _VALID_PCT = 60, 20
_SKIP_MODULES = frozenset({"base", "registry", "oracle_utils", "helpers"})

_TEMPLATES: dict[str, TaskTemplate] = {}
_LOADED = False


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
        raise TaskError(f"task template name {name!r} registered twice: by {_where(type(existing))} "
                        f"and by {_where(cls)}")
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


def tasks_for(split: str, seeds: Iterable[int], *, params: str | None = None) -> list[Task]:
    """Instantiate every template of ``split`` for every seed.

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
    return [t.instantiate(s) for t in templates_for_split(split) for s in seeds]
