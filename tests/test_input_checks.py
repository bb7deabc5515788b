"""Input checks at the public entry points (issue 10, items 15 and 16): one seed parser, typed errors."""

from __future__ import annotations

import tracemalloc

import pytest
from typer.testing import CliRunner

from droidverify.actions.model import Action
from droidverify.cli import app
from droidverify.cli._common import parse_seed, parse_seeds
from droidverify.env.sim import SimEnv
from droidverify.errors import (
    ActionValidationError,
    DroidVerifyError,
    EnvError,
    RunError,
    TaskError,
)
from droidverify.runner.episode import run_episode
from droidverify.runner.run import _pairs
from droidverify.tasks import registry


@pytest.mark.parametrize("bad", ["\u0661\u0662", "1\u0663", "0-\u0665", "1" * 23, "0-99999999999"])
def test_seed_parser_takes_ascii_digits_in_range_only(bad: str) -> None:
    with pytest.raises(RunError, match="bad seed"):
        parse_seeds(bad)


def test_one_seed_parser_for_every_command() -> None:
    assert parse_seed("3") == 3
    for bad in ("-3", "1,2", "1-2", "x"):
        with pytest.raises(RunError):
            parse_seed(bad)
    r = CliRunner().invoke(app, ["tasks", "show", "settings_wifi_toggle", "--seed", "-3"])
    assert r.exit_code == 2 and "bad seed" in r.output
    r = CliRunner().invoke(app, ["tasks", "show", "settings_wifi_toggle", "--seed", "\u0663"])
    assert r.exit_code == 2
    r = CliRunner().invoke(app, ["screen", "settings_wifi_toggle", "--seed", "-3", "--out", "/tmp/x.png"])
    assert r.exit_code == 2 and "bad seed" in r.output


def test_many_seeds_build_no_task_before_it_runs() -> None:
    templates = registry.all_templates()[:5]
    tracemalloc.start()
    pairs = _pairs((t, s) for t in templates for s in range(100_000))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(pairs) == 500_000 and all(p._task is None for p in pairs[:1000])
    assert peak < 400 * 2**20, peak  # tasks built up front took ~20 kB each
    assert pairs[7].task.seed == 7 and pairs[7].task.id == templates[0].name


@pytest.mark.parametrize("seed", ["x", 1.5, True, -1, 2**40])
def test_instantiate_and_simenv_refuse_bad_seeds(seed: object) -> None:
    tmpl = registry.get_template("settings_wifi_toggle")
    with pytest.raises(TaskError, match="seed"):
        tmpl.instantiate(seed)  # type: ignore[arg-type]
    with pytest.raises(EnvError, match="seed"):
        SimEnv(seed=seed)  # type: ignore[arg-type]


@pytest.mark.parametrize("fields", [{"action_type": "click", "index": True},
                                    {"action_type": "click", "index": "3"},
                                    {"action_type": "click", "x": 1.5, "y": 2},
                                    {"action_type": "click"},
                                    {"action_type": "fly"},
                                    {"action_type": "input_text", "index": 0, "text": "a",
                                     "press_enter": "yes"}])
def test_direct_invalid_action_raises_the_typed_error(fields: dict) -> None:
    with pytest.raises(ActionValidationError):
        Action(**fields)


def test_entry_points_raise_typed_errors() -> None:
    with pytest.raises(TaskError):
        registry.get_template(None)  # type: ignore[arg-type]
    env = SimEnv(seed=0)
    env.reset()
    with pytest.raises(ActionValidationError, match="expected an Action"):
        env.step(None)  # type: ignore[arg-type]
    task = registry.get_template("settings_wifi_toggle").instantiate(0)
    from droidverify.agents.random import NoopAgent

    with pytest.raises(RunError, match="max_steps"):
        run_episode(NoopAgent(), SimEnv(task=task, seed=0), task, max_steps="3")  # type: ignore[arg-type]


def test_every_error_class_lives_in_errors_py() -> None:
    import importlib
    import pkgutil

    import droidverify
    from droidverify import errors

    for mod in pkgutil.walk_packages(droidverify.__path__, "droidverify."):
        if mod.name.endswith("__main__") or mod.name.startswith(
                ("droidverify.cli", "droidverify.training", "droidverify.rewards")):
            continue  # __main__ runs the CLI when imported
        try:
            m = importlib.import_module(mod.name)
        except ImportError:
            continue  # optional extras
        for name, obj in vars(m).items():
            if isinstance(obj, type) and issubclass(obj, DroidVerifyError):
                assert obj.__module__ == errors.__name__, f"{mod.name}.{name} is defined outside errors.py"
                assert name in errors.__doc__, f"{name} is missing from the tree in errors.py"
