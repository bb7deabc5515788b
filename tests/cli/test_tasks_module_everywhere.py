"""Issue 23, item 9: every command and worker that resolves a task name loads the same
``--tasks-module`` modules (run, judge, labelled-set, train data/loop; --workers processes)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from droidverify.cli import app
from droidverify.runner.backends import LocalBackend
from droidverify.tasks import registry

MODULE = "dvx_own_tasks"  # a name no other test imports
NAME = "dvx_declare_done"

# One step: the oracle declares done at once; the checker passes on any phone.
SOURCE = f'''
from droidverify.tasks import TaskTemplate, register_task
from droidverify.tasks.helpers import COMPLETE


@register_task
class DeclareDone(TaskTemplate):
    name = {NAME!r}
    apps = ("Clock",)
    optimal_steps = 1
    goal_template = "Declare the task done (code {{code}})."

    def generate_params(self, rng):
        return {{"code": rng.randrange(100)}}

    def setup(self, phone, params):
        pass

    def is_successful(self, phone, params, answer):
        return 1.0

    def oracle_action(self, phone, params, obs):
        return COMPLETE
'''


@pytest.fixture
def own_tasks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A tasks module file in tmp_path; the registry, sys.path and sys.modules are restored after."""
    registry.all_templates()  # the built-ins are in the snapshot
    monkeypatch.setattr(registry, "_TEMPLATES", dict(registry._TEMPLATES))
    monkeypatch.setattr(registry, "_SOURCES", dict(registry._SOURCES))
    monkeypatch.setattr(sys, "path", list(sys.path))
    path = tmp_path / f"{MODULE}.py"
    path.write_text(SOURCE, encoding="utf-8")
    yield path
    sys.modules.pop(MODULE, None)


def _run(path: Path, out: Path) -> None:
    r = CliRunner().invoke(app, ["run", "--agent", "oracle", "--tasks-module", str(path), "--tasks", NAME,
                                 "--seeds", "0", "--workers", "2", "--out", str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    episodes = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert [(e["task_id"], e["success"]) for e in episodes] == [(NAME, 1.0)]


def test_judge_rule_on_a_run_of_own_templates_in_workers(own_tasks: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    _run(own_tasks, run_dir)
    out = tmp_path / "judgements.jsonl"
    # --workers 2: the judging happens in a spawned process, which must load the module itself
    r = CliRunner().invoke(app, ["judge", str(run_dir), "--method", "rule", "--tasks-module", str(own_tasks),
                                 "--workers", "2", "--out", str(out), "--no-report"])
    assert r.exit_code == 0, r.output
    assert "success 1, failure 0, undecided 0" in r.output
    [j] = [json.loads(line) for line in out.read_text().splitlines()]
    # decided by re-running the template's checker on the saved phone, not by the recorded score
    assert j["outcome"] == "success" and j["components"]["source"] == "final_phone_state", j


def test_judge_without_the_module_names_the_unknown_template(own_tasks: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    run_dir = tmp_path / "run"
    _run(own_tasks, run_dir)
    # a new process, as a user's second command: the module is not loaded
    monkeypatch.setattr(registry, "_TEMPLATES", {k: v for k, v in registry._TEMPLATES.items() if k != NAME})
    out = tmp_path / "judgements.jsonl"
    r = CliRunner().invoke(app, ["judge", str(run_dir), "--method", "rule", "--out", str(out), "--no-report"])
    assert r.exit_code == 2, r.output
    assert f"unknown task template '{NAME}'" in r.output and "--tasks-module" in r.output
    assert not out.exists()  # no judgement (no silent undecided) was written


def _template_name_in_worker(state: Any, name: str) -> str:
    return registry.get_template(name).name


def _no_state() -> None:
    return None


def test_local_workers_resolve_names_of_loaded_modules(own_tasks: Path) -> None:
    registry.load_tasks_module(str(own_tasks))
    assert registry.user_task_modules() == (str(own_tasks.resolve()),)
    results = list(LocalBackend(2).imap_unordered(_no_state, _template_name_in_worker, [NAME, NAME]))
    assert sorted(results) == [(0, NAME), (1, NAME)]


@pytest.mark.parametrize("command", [["labelled-set", "--out", "{tmp}/set.jsonl", "--n", "2"],
                                     ["train", "data", "--out", "{tmp}/d.jsonl"],
                                     ["train", "loop", "--train", "{tmp}/t.jsonl", "--out", "{tmp}/loop"]])
def test_other_commands_load_the_module(command: list[str], tmp_path: Path) -> None:
    # a module that cannot load stops the command before any work: proof the option is read
    args = [a.format(tmp=tmp_path) for a in command] + ["--tasks-module", str(tmp_path / "dvx_missing.py")]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 2, r.output
    assert "TaskModuleError" in r.output and "dvx_missing.py" in r.output
    assert not any(tmp_path.iterdir())  # nothing written
