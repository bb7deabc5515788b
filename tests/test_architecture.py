"""Import arrows point one way (ui, actions at the bottom; env, tasks above; agents above those;
runner, bench and cli at the edge; llm beside). A module importing upward fails here.

Every ``import`` / ``from ... import`` in the package is checked, including ones inside functions
and ``if TYPE_CHECKING:`` blocks: a lazy or type-only import upward is still a dependency upward.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "src" / "droidverify"

# layer -> the droidverify subpackages it must never import
FORBIDDEN: dict[str, set[str]] = {
    "ui": {"env", "tasks", "agents", "llm", "runner", "cli", "rewards", "training", "bench"},
    "actions": {"env", "tasks", "agents", "llm", "runner", "cli", "rewards", "training", "bench"},
    "env": {"tasks", "agents", "runner", "cli", "llm", "rewards", "training", "bench"},
    "tasks": {"agents", "runner", "cli", "llm", "rewards", "training", "bench"},
    "llm": {"env.sim", "tasks", "agents", "runner", "cli", "rewards", "training", "bench"},
    "agents": {"runner", "cli", "bench", "rewards", "training"},
    # judges sit above agents (the SmartSnap judge and ProRe's evaluator use them), below runner/cli
    "rewards": {"runner", "cli", "bench", "training"},
    # trainers sit beside rewards (a change to one paradigm does not touch another), below runner/cli
    "training": {"runner", "cli", "bench", "rewards"},
}
# Modules allowed one arrow their layer otherwise forbids. The compact judge's trainer trains a judge:
# it reads labelled sets and the judge's network from rewards (rewards never imports training).
ALLOWED: dict[str, set[str]] = {
    "training/judge.py": {"rewards"},
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in ``path``, relative imports resolved."""
    return _imports_in(path.read_text(encoding="utf-8"), _module_name(path), path.name == "__init__.py")


def _imports_in(source: str, module: str, is_package: bool) -> list[tuple[int, str]]:
    here = module.split(".")
    package = here if is_package else here[:-1]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            found.append((node.lineno, mod))
            # ``from droidverify import tasks`` / ``from droidverify.env import sim`` name submodules
            found += [(node.lineno, f"{mod}.{alias.name}") for alias in node.names if alias.name != "*"]
    return found


def _within(module: str, target: str) -> bool:
    full = f"droidverify.{target}"
    return module == full or module.startswith(full + ".")


def _violations(layer: str) -> list[str]:
    out = []
    for path in sorted((PKG / layer).rglob("*.py")):
        allowed = ALLOWED.get(path.relative_to(PKG).as_posix(), set())
        for line, mod in _imports(path):
            for target in FORBIDDEN[layer] - allowed:
                if _within(mod, target):
                    out.append(f"{path.relative_to(PKG.parent)}:{line} imports {mod} ({layer} -> {target})")
    return out


def test_package_is_where_expected() -> None:
    for layer in FORBIDDEN:
        assert (PKG / layer / "__init__.py").is_file(), f"no package droidverify.{layer} at {PKG / layer}"


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_no_upward_imports(layer: str) -> None:
    assert _violations(layer) == []


def test_task_helpers_sit_below_the_templates() -> None:
    # tasks.helpers is what every template (in the package or outside it) builds on: it may use
    # tasks.base, never a template module, the registry or the old oracle_utils re-export
    above = {p.stem for p in (PKG / "tasks").glob("*.py")} - {"__init__", "base"}
    assert {"registry", "clock", "expenses"} <= above
    out = [f"{path.relative_to(PKG.parent)}:{line} imports {mod}"
           for path in sorted((PKG / "tasks" / "helpers").rglob("*.py"))
           for line, mod in _imports(path) for name in above if _within(mod, f"tasks.{name}")]
    assert out == []


def test_the_renderer_lives_in_ui_and_needs_no_env() -> None:
    # reports of real-device runs draw their dumps: that must not need the simulator (or env at all)
    assert "env" in FORBIDDEN["ui"]
    assert (PKG / "ui" / "render.py").is_file() and (PKG / "ui" / "icons.py").is_file()
    assert not (PKG / "env" / "sim" / "render.py").exists()
    code = ("import sys\n"
            "from droidverify.ui import parse_xml\n"
            "from droidverify.ui.render import render_png\n"
            "xml = ('<hierarchy rotation=\"0\"><node index=\"0\" text=\"Sign in\" class=\"android.widget.Button\" '\n"
            "       'package=\"com.example\" clickable=\"true\" bounds=\"[100,200][980,340]\" /></hierarchy>')\n"
            "assert render_png(parse_xml(xml), scale=0.25).startswith(b'\\x89PNG')\n"
            "print(sorted(m for m in sys.modules if m.startswith(('droidverify.env', 'droidverify.tasks'))))\n")
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_checker_sees_upward_imports() -> None:
    # the rule must be able to fail: relative, type-only and lazy upward imports all count
    src = ("from typing import TYPE_CHECKING\n"
           "from ..agents import base\n"
           "if TYPE_CHECKING:\n    import droidverify.runner.run\n"
           "def f():\n    from droidverify import llm\n")
    found = {m for _, m in _imports_in(src, "droidverify.ui.probe", is_package=False)}
    assert {"droidverify.agents", "droidverify.agents.base", "droidverify.runner.run", "droidverify.llm"} <= found
    assert _within("droidverify.env.sim.phone", "env.sim") and not _within("droidverify.env.records", "env.sim")
    assert not _within("droidverify.llmx", "llm")


def test_the_compact_verifier_reads_only_what_a_device_shows() -> None:
    # the same checkpoint runs over adb: its features and value proposals never touch the simulator
    files = [*sorted((PKG / "agents" / "verifier" / "compact").rglob("*.py")),
             PKG / "agents" / "verifier" / "proposals.py"]
    assert len(files) >= 4
    out = [f"{path.relative_to(PKG.parent)}:{line} imports {mod}" for path in files
           for line, mod in _imports(path) for target in ("env.sim", "tasks") if _within(mod, target)]
    assert out == []


def test_only_the_listed_modules_cross_a_layer() -> None:
    # every exception names a module that exists, and rewards still never imports training
    assert all((PKG / rel).is_file() for rel in ALLOWED)
    assert "training" in FORBIDDEN["rewards"] and "rewards" in FORBIDDEN["training"]


def test_the_compact_judge_reads_only_what_a_device_shows() -> None:
    # a judge trained on the simulator judges phone episodes: its views never touch simulator state,
    # the task checkers or the labelled sets built from them
    path = PKG / "rewards" / "compact_judge.py"
    banned = ("env.sim", "tasks", "rewards.labelled", "rewards.rule")
    out = [f"{path.relative_to(PKG.parent)}:{line} imports {mod}" for line, mod in _imports(path)
           for target in banned if _within(mod, target)]
    assert out == []
