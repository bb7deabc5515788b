"""User task templates outside the package (issue 10, item 20): ``--tasks-module``, the
``droidverify.tasks`` entry-point group, the public agent/env factories, and typed load errors."""

from __future__ import annotations

import importlib.metadata
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from droidverify.agents import OracleAgent
from droidverify.cli import app
from droidverify.errors import DuplicateTaskError, RunError, TaskError, TaskModuleError
from droidverify.runner import AgentSpec, EnvSpec, make_agent, make_env, run_episode, run_many
from droidverify.tasks import ENTRY_POINT_GROUP, registry

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "my_tasks.py"
NAME = "my_clock_rename_alarm"

TEMPLATE_SRC = '''
import random
from droidverify.tasks import TaskTemplate, register_task
from droidverify.tasks.helpers import COMPLETE

{decorator}
class T(TaskTemplate):
    name = {name!r}
    apps = ("Clock",)
    optimal_steps = 1
    goal_template = "nothing"

    def generate_params(self, rng):
        return {{}}

    def setup(self, phone, params):
        pass

    def is_successful(self, phone, params, answer):
        return 0.0

    def oracle_action(self, phone, params, obs):
        return COMPLETE
'''


@pytest.fixture
def registry_sandbox(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Templates, sys.path and the modules a test loads are undone afterwards."""
    registry.all_templates()  # the built-ins are in the snapshot
    monkeypatch.setattr(registry, "_TEMPLATES", dict(registry._TEMPLATES))
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield
    for name in [n for n in sys.modules if n == "my_tasks" or n.startswith("dvplug_")]:
        del sys.modules[name]


def _module(tmp_path: Path, name: str, source: str) -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    return path


def _entry_points(monkeypatch: pytest.MonkeyPatch, *eps: importlib.metadata.EntryPoint) -> None:
    real = importlib.metadata.entry_points

    def fake(**kw: object) -> object:
        if kw.get("group") == ENTRY_POINT_GROUP:
            return list(eps)
        return real(**kw)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib.metadata, "entry_points", fake)


# ---- --tasks-module through the command line -------------------------------------------------
def test_tasks_list_loads_the_example_by_path(registry_sandbox: None) -> None:
    r = CliRunner().invoke(app, ["tasks", "list", "--json", "--tasks-module", str(EXAMPLE)])
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in r.output.splitlines()]
    mine = [row for row in rows if row["name"] == NAME]
    assert mine and mine[0]["apps"] == ["Clock"] and mine[0]["split"] == registry.split_of(NAME)
    assert len(rows) == len(registry.all_templates())


def test_run_solves_the_example_with_the_oracle(registry_sandbox: None, tmp_path: Path) -> None:
    out = tmp_path / "run"
    r = CliRunner().invoke(app, ["run", "--tasks-module", str(EXAMPLE), "--agent", "oracle", "--tasks", NAME,
                                 "--seeds", "0-2", "--out", str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["overall"]["episodes"] == 3 and summary["overall"]["solved"] == 3
    episodes = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert {e["task_id"] for e in episodes} == {NAME} and all(e["success"] == 1.0 for e in episodes)


def test_tasks_module_by_dotted_name(registry_sandbox: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLE.parent))
    assert [t.name for t in registry.load_tasks_module("my_tasks")] == [NAME]
    assert registry.load_tasks_module("my_tasks")[0] is registry.get_template(NAME)  # twice is harmless


# ---- the entry-point group ---------------------------------------------------------------------
def test_entry_point_templates_run_through_the_runner(registry_sandbox: None, monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLE.parent))
    _entry_points(monkeypatch, importlib.metadata.EntryPoint("mine", "my_tasks", ENTRY_POINT_GROUP))
    loaded = registry.load_entry_points()
    assert [t.name for t in loaded] == [NAME]
    template = registry.get_template(NAME)
    summary = run_many(AgentSpec("oracle"), [(template, 0), (template, 1)], tmp_path / "run",
                       env_factory=EnvSpec("sim"), progress=False, report=False)
    assert summary.ran == 2 and summary.success_rate == 1.0
    task = template.instantiate(3)  # the public one-off factories do the same
    traj = run_episode(make_agent("oracle"), make_env("sim", task=task, seed=task.seed), task)
    assert traj.success == 1.0


def test_cli_lists_entry_point_templates_without_an_option(registry_sandbox: None,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLE.parent))
    _entry_points(monkeypatch, importlib.metadata.EntryPoint("mine", "my_tasks", ENTRY_POINT_GROUP))
    r = CliRunner().invoke(app, ["tasks", "list", "--json"])
    assert r.exit_code == 0, r.output
    assert NAME in {json.loads(line)["name"] for line in r.output.splitlines()}


def test_a_broken_entry_point_names_itself(registry_sandbox: None, monkeypatch: pytest.MonkeyPatch) -> None:
    _entry_points(monkeypatch, importlib.metadata.EntryPoint("gone", "dvplug_not_installed", ENTRY_POINT_GROUP))
    with pytest.raises(TaskModuleError, match="entry point 'gone'.*no module named 'dvplug_not_installed'"):
        registry.load_entry_points()
    r = CliRunner().invoke(app, ["run", "--agent", "oracle", "--tasks", "clock_create_alarm", "--out", "x"])
    assert r.exit_code == 2 and "error: TaskModuleError: cannot import entry point 'gone'" in r.output


# ---- errors --------------------------------------------------------------------------------------
def test_module_not_importable(registry_sandbox: None, tmp_path: Path) -> None:
    with pytest.raises(TaskModuleError, match="no module named 'dvplug_nowhere'") as e:
        registry.load_tasks_module("dvplug_nowhere")
    assert e.value.module == "dvplug_nowhere"
    with pytest.raises(TaskModuleError, match="no such .py file"):
        registry.load_tasks_module(str(tmp_path / "dvplug_missing.py"))
    with pytest.raises(TaskModuleError, match="neither a module name"):
        registry.load_tasks_module("not a module")
    r = CliRunner().invoke(app, ["tasks", "list", "--tasks-module", "dvplug_nowhere"])
    assert r.exit_code == 2 and "error: TaskModuleError: cannot import tasks module 'dvplug_nowhere'" in r.output


def test_module_failing_at_import(registry_sandbox: None, tmp_path: Path) -> None:
    path = _module(tmp_path, "dvplug_broken", "import dvplug_dependency_missing\n")
    with pytest.raises(TaskModuleError, match="importing tasks module .* failed: ModuleNotFoundError"):
        registry.load_tasks_module(str(path))
    path = _module(tmp_path, "dvplug_raises", "raise ValueError('boom')\n")
    with pytest.raises(TaskModuleError, match="ValueError: boom") as e:
        registry.load_tasks_module(str(path))
    assert isinstance(e.value.__cause__, ValueError)


def test_module_without_templates(registry_sandbox: None, tmp_path: Path) -> None:
    path = _module(tmp_path, "dvplug_empty", "X = 1\n")
    with pytest.raises(TaskModuleError, match="registers no task template; decorate"):
        registry.load_tasks_module(str(path))
    path = _module(tmp_path, "dvplug_undecorated", TEMPLATE_SRC.format(decorator="", name="dvplug_t"))
    with pytest.raises(TaskModuleError, match="T is not decorated with @register_task"):
        registry.load_tasks_module(str(path))
    with pytest.raises(TaskError, match="unknown task template 'dvplug_t'"):
        registry.get_template("dvplug_t")


def test_duplicate_names_are_refused_and_leave_the_registry_as_it_was(registry_sandbox: None,
                                                                       tmp_path: Path) -> None:
    original = registry.get_template("clock_create_alarm")
    path = _module(tmp_path, "dvplug_clash", TEMPLATE_SRC.format(decorator="@register_task", name="dvplug_ok")
                   + TEMPLATE_SRC.format(decorator="@register_task", name="clock_create_alarm"))
    with pytest.raises(DuplicateTaskError, match="'clock_create_alarm' registered twice") as e:
        registry.load_tasks_module(str(path))
    assert e.value.name == "clock_create_alarm"
    assert registry.get_template("clock_create_alarm") is original
    with pytest.raises(TaskError):
        registry.get_template("dvplug_ok")  # the failed module's other template was rolled back
    # two user modules with one name
    a = _module(tmp_path, "dvplug_a", TEMPLATE_SRC.format(decorator="@register_task", name="dvplug_same"))
    b = _module(tmp_path, "dvplug_b", TEMPLATE_SRC.format(decorator="@register_task", name="dvplug_same"))
    registry.load_tasks_module(str(a))
    with pytest.raises(DuplicateTaskError, match="dvplug_a.T and by dvplug_b.T"):
        registry.load_tasks_module(str(b))
    r = CliRunner().invoke(app, ["tasks", "list", "--tasks-module", str(b)])
    assert r.exit_code == 2 and "error: DuplicateTaskError" in r.output


# ---- public factories ------------------------------------------------------------------------------
def test_public_factories_check_their_choices() -> None:
    assert isinstance(make_agent("oracle"), OracleAgent)
    with pytest.raises(RunError, match="unknown agent 'bogus'"):
        make_agent("bogus")
    with pytest.raises(RunError, match="unknown memory"):
        make_agent("generator", memory="nope")
    with pytest.raises(RunError, match="applies only to the verifier"):
        make_agent("oracle", verifier="none")
    with pytest.raises(RunError, match="avoid_repeats= applies only to the verifier"):
        make_agent("oracle", avoid_repeats=True)
    r = CliRunner().invoke(app, ["run", "--agent", "oracle", "--avoid-repeats", "--tasks", "calendar_create_event"])
    assert r.exit_code == 2 and "--avoid-repeats applies only to --agent verifier" in r.output
    # The spec hands the choice to the verifier agent it builds (workers build agents from specs).
    built = AgentSpec("verifier", avoid_repeats=True).with_llm(object())()
    assert built.avoid_repeats is True and AgentSpec("verifier").with_llm(object())().avoid_repeats is False
    for kw, msg in [({"temperature": 1.0}, "apply only to the verifier"),
                    ({"temperature": -0.5}, "temperature must be a finite number >= 0"),
                    ({"temperature": True}, "temperature must be"),
                    ({"temperature": 1.0, "top_k": 0}, "top_k must be an integer >= 1")]:
        with pytest.raises(RunError, match=msg):
            make_agent("oracle" if "apply only" in msg else "verifier", **kw)
    with pytest.raises(RunError, match="top_k= needs temperature > 0"):
        make_agent("verifier", top_k=3)
    r = CliRunner().invoke(app, ["run", "--agent", "oracle", "--temperature", "0.5", "--tasks", "calendar_create_event"])
    assert r.exit_code == 2 and "apply only to the verifier agent" in r.output
    drawn = AgentSpec("verifier", seed=7, temperature=0.5, top_k=4).with_llm(object())()
    assert (drawn.temperature, drawn.top_k, drawn.sample_seed) == (0.5, 4, 7)
    with pytest.raises(RunError, match="unknown environment 'emu'"):
        make_env("emu")
    with pytest.raises(RunError, match="unknown agent"):
        AgentSpec("bogus")()
    # the CLI's names are the public ones
    from droidverify.cli import run as cli_run

    assert cli_run.AgentSpec is AgentSpec and cli_run.EnvSpec is EnvSpec
