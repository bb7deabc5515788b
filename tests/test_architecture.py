"""Import arrows point one way (ui, actions at the bottom; core (records, item backends) on them;
env, tasks above; agents above those; runner, bench and cli at the edge; llm beside env). A module
importing upward fails here.

Every ``import`` / ``from ... import`` in the package is checked, including ones inside functions
and ``if TYPE_CHECKING:`` blocks: a lazy or type-only import upward is still a dependency upward.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "src" / "droidverify"

# layer -> the droidverify subpackages it must never import
FORBIDDEN: dict[str, set[str]] = {
    "ui": {"core", "episode", "env", "tasks", "agents", "llm", "runner", "cli", "rewards", "training", "bench"},
    "actions": {"core", "episode", "env", "tasks", "agents", "llm", "runner", "cli", "rewards", "training", "bench"},
    # shared building blocks (the records, the item-backend seam): above ui and actions, below every user
    "core": {"episode", "env", "tasks", "agents", "llm", "runner", "cli", "rewards", "training", "bench"},
    "env": {"episode", "tasks", "agents", "runner", "cli", "llm", "rewards", "training", "bench"},
    "tasks": {"episode", "agents", "runner", "cli", "llm", "rewards", "training", "bench"},
    # beside env: a model reports TokenUsage (core.records), never an environment's record or the simulator
    "llm": {"episode", "env", "tasks", "agents", "runner", "cli", "rewards", "training", "bench"},
    "agents": {"episode", "runner", "cli", "bench", "rewards", "training"},
    # the one episode loop: plays agents on environments; below everything that plays episodes
    "episode": {"runner", "cli", "bench", "rewards", "training"},
    # judges sit above agents (the SmartSnap judge and ProRe's evaluator use them), below runner/cli
    "rewards": {"runner", "cli", "bench", "training"},
    # trainers sit beside rewards (a change to one paradigm does not touch another), below runner/cli
    "training": {"runner", "cli", "bench", "rewards"},
}
# Modules allowed one arrow their layer otherwise forbids. The judges' trainers train a judge: they
# read labelled sets and the judge's network or prompts from rewards (rewards never imports training).
ALLOWED: dict[str, set[str]] = {
    "training/judge.py": {"rewards"},
    "training/llm_judge.py": {"rewards"},
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


# ---- shared building blocks at the bottom, defined once (issue 23 item 4) ----------------------------
# name -> the one module (relative to the package) that defines it; every other user imports it
DEFINED_ONCE: dict[str, str] = {
    "Observation": "core/records.py", "Step": "core/records.py", "Trajectory": "core/records.py",
    "TokenUsage": "core/records.py", "ItemBackend": "core/items.py", "run_inline": "core/items.py",
    # the catalogues, beside what they build (llm/registry.py is the model)
    "AgentSpec": "agents/registry.py", "make_agent": "agents/registry.py", "resolve_verifier": "agents/registry.py",
    "JudgeSpec": "rewards/registry.py", "make_judge": "rewards/registry.py", "load_llm": "llm/registry.py",
    "load_model": "llm/registry.py", "is_remote": "llm/registry.py",
}
# name lists written out (a tuple of strings) only in their registry; elsewhere they are imported
NAME_LISTS: dict[str, str] = {
    "AGENTS": "agents/registry.py", "LLM_AGENTS": "agents/registry.py", "SAMPLING_AGENTS": "agents/registry.py",
    "GRPO_AGENTS": "agents/registry.py", "MEMORIES": "agents/registry.py", "DTYPES": "agents/registry.py",
    "METHODS": "rewards/registry.py", "EVALUATORS": "rewards/registry.py",
}


def _definitions() -> dict[str, list[str]]:
    """Top-level class / function name -> the package files defining one of that name."""
    out: dict[str, list[str]] = {}
    for path in sorted(PKG.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
                out.setdefault(node.name, []).append(path.relative_to(PKG).as_posix())
    return out


def test_the_shared_building_blocks_are_defined_once_at_the_bottom() -> None:
    defs = _definitions()
    wrong = {name: defs.get(name) for name, where in DEFINED_ONCE.items() if defs.get(name) != [where]}
    assert wrong == {}
    # no private copy of the in-process runner beside it (rewards, training and the runner had three)
    assert defs.get("_inline", []) == []
    # the records sit below llm: a model reports TokenUsage without importing an environment
    assert "env" in FORBIDDEN["llm"] and "core" in FORBIDDEN["ui"] and "core" in FORBIDDEN["actions"]


def _literal_lists(source: str) -> list[tuple[int, str]]:
    """(line, name) of every module-level ``NAME = ("a", "b", ...)`` whose NAME is in NAME_LISTS."""
    out = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple) and node.value.elts and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.value.elts):
            out += [(node.lineno, t.id) for t in node.targets if isinstance(t, ast.Name) and t.id in NAME_LISTS]
    return out


def _remote_prefix_tests(source: str) -> list[int]:
    """Lines that test for the ``openai:`` model prefix themselves (``x.startswith("openai:")``)."""
    return [n.lineno for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute) and n.func.attr == "startswith"
            and any(isinstance(a, ast.Constant) and a.value == "openai:" for a in n.args)]


def test_catalogues_live_beside_what_they_build() -> None:
    # agents, memories, judges: one list each, in agents/registry.py and rewards/registry.py; the
    # "openai:" prefix tested once (llm.registry.is_remote) and models loaded lazily by one loader
    lists, prefixes = [], []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG).as_posix()
        text = path.read_text(encoding="utf-8")
        lists += [f"{rel}:{line} writes out {name}" for line, name in _literal_lists(text) if NAME_LISTS[name] != rel]
        prefixes += [f"{rel}:{line}" for line in _remote_prefix_tests(text) if rel != "llm/registry.py"]
    assert lists == []
    assert prefixes == []
    assert _remote_prefix_tests('ok = (m or "").startswith("openai:")\n') == [1]
    assert {"agents", "rewards"} <= {rel.split("/")[0] for rel in NAME_LISTS.values()}


# ---- one episode loop (issue 23 item 2) -----------------------------------------------------------------
EPISODE_LOOP = "episode/loop.py"


def _calls(node: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Call)]


def _is_episode_loop(loop: ast.For | ast.While) -> bool:
    """A loop that steps an environment (``x.step(...)``) while asking an agent (``x.act(...)``) or
    recording steps (``Step(...)``): an episode loop of its own."""
    calls = _calls(loop)
    steps_env = any(isinstance(c.func, ast.Attribute) and c.func.attr == "step" and c.args for c in calls)
    asks = any(isinstance(c.func, ast.Attribute) and c.func.attr == "act" for c in calls)
    records = any(isinstance(c.func, ast.Name) and c.func.id == "Step" for c in calls)
    return steps_env and (asks or records)


def _episode_loops(source: str) -> list[int]:
    return [n.lineno for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.For, ast.While)) and _is_episode_loop(n)]


def test_one_episode_loop_below_the_runner_judges_and_trainers() -> None:
    # the runner, data collection, the labelled sets and ProRe's probes all play episodes through
    # episode.loop.play (hooks: scripted agents, on_step); none keeps a step loop of its own
    out = [f"{path.relative_to(PKG.parent)}:{line}" for path in sorted(PKG.rglob("*.py"))
           if path.relative_to(PKG).as_posix() != EPISODE_LOOP
           for line in _episode_loops(path.read_text(encoding="utf-8"))]
    assert out == []
    assert _episode_loops((PKG / EPISODE_LOOP).read_text(encoding="utf-8"))  # the scan sees the loop itself
    for layer in ("rewards", "training"):  # (runner has no entry: nothing is above it but cli and bench)
        assert "episode" not in FORBIDDEN[layer] and layer in FORBIDDEN["episode"]
    assert "runner" in FORBIDDEN["episode"] and "episode" in FORBIDDEN["agents"]


def test_the_episode_loop_scan_can_fail() -> None:
    src = ("for i in range(3):\n    out = agent.act(obs, hist)\n    obs = env.step(out.action)\n"
           "while True:\n    steps.append(Step(index=0, observation=obs, action=a))\n    env.step(a)\n"
           "for a in actions:\n    env.step(a)\n")
    assert _episode_loops(src) == [1, 4]


# ---- one success rule: no success threshold outside env/records.py (issue 23 item 3) ----------------
SUCCESS_RULE = "env/records.py"  # SUCCESS_SCORE, is_success, episode_success: every consumer calls them
# Files allowed a success threshold of their own, each with why. An entry whose file no longer holds
# one fails test_only_the_listed_files_keep_a_threshold: remove it then.
THRESHOLD_ALLOWED: dict[str, str] = {
    "runner/templates/report.html.jinja": "a template cannot import the rule; report.py must hand it is_success",
}
# What a success threshold compares: a score, a success, the checker, a reward, a pass or a solve.
_SCORED = re.compile(r"succe|score|checker|reward|passed|solved", re.IGNORECASE)
_TEMPLATE_THRESHOLD = re.compile(r"(succe|score|reward|solved)\w*\s*(>=|==|<)\s*1(\.0*)?\b", re.IGNORECASE)


def _is_one(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float) and node.value == 1


def _names_rule(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "SUCCESS_SCORE") or \
        (isinstance(node, ast.Attribute) and node.attr == "SUCCESS_SCORE")


def _thresholds_in(source: str) -> list[tuple[int, str]]:
    """(line, comparison) of every success threshold written in ``source``: a comparison with
    ``SUCCESS_SCORE``; ``x >= 1.0`` / ``x < 1.0`` (full marks, whatever ``x`` is: a validation range is
    written ``0.0 <= x <= 1.0``); or 1 / 1.0 compared with a score, success, checker or reward
    (``len(...)`` aside: a count, not a score). Probabilities and similarities compared with 1.0
    under other names (``p <= 1.0``, ``out[i] == 1.0``) are not thresholds."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        for i, op in enumerate(node.ops):
            left, right = sides[i], sides[i + 1]
            full_marks = len(node.ops) == 1 and (
                (isinstance(op, (ast.GtE, ast.Lt)) and isinstance(right, ast.Constant) and right.value == 1.0
                 and type(right.value) is float)
                or (isinstance(op, (ast.LtE, ast.Gt)) and isinstance(left, ast.Constant) and left.value == 1.0
                    and type(left.value) is float))
            scored = any(_is_one(one) and _SCORED.search(ast.unparse(other))
                         and not (isinstance(other, ast.Call) and ast.unparse(other.func) == "len")
                         for one, other in ((left, right), (right, left)))
            if _names_rule(left) or _names_rule(right) or full_marks or scored:
                found.append((node.lineno, ast.unparse(node)))
                break
    return sorted(found)


def _threshold_sites() -> dict[str, list[str]]:
    """Package file (relative to the package) -> its success thresholds as ``file:line: comparison``."""
    out: dict[str, list[str]] = {}
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG).as_posix()
        hits = [f"{path.relative_to(PKG.parent)}:{line}: {text}"
                for line, text in _thresholds_in(path.read_text(encoding="utf-8"))]
        if hits:
            out[rel] = hits
    for path in sorted(PKG.rglob("*.jinja")):
        rel = path.relative_to(PKG).as_posix()
        hits = [f"{path.relative_to(PKG.parent)}:{n}: {m.group(0)}"
                for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
                for m in _TEMPLATE_THRESHOLD.finditer(line)]
        if hits:
            out[rel] = hits
    return out


def test_no_success_threshold_outside_the_one_rule() -> None:
    # the runner, reports, judges, labelled sets, data collection and GRPO call is_success /
    # episode_success; a threshold written anywhere else is a second rule that can drift
    sites = _threshold_sites()
    stray = [hit for rel, hits in sites.items() if rel != SUCCESS_RULE and rel not in THRESHOLD_ALLOWED
             for hit in hits]
    assert stray == [], "success thresholds outside env/records.py (call is_success / episode_success):\n" + \
        "\n".join(stray)
    assert SUCCESS_RULE in sites  # the rule itself is found: the scan sees thresholds at all


def test_only_the_listed_files_keep_a_threshold() -> None:
    sites = _threshold_sites()
    stale = [rel for rel in THRESHOLD_ALLOWED if rel not in sites]
    assert stale == [], f"THRESHOLD_ALLOWED lists files that hold no success threshold now: {stale}"


def test_the_threshold_scan_sees_every_form_and_skips_probabilities() -> None:
    # the rule must be able to fail, and must not flag a probability clamp or a count
    flagged = ("ok = score >= 1.0\n", "ok = float(s) >= 1.0\n", "ok = 1.0 <= reward\n",
               "ok = traj.success == 1.0\n", "ok = task.is_successful(phone, None) >= 1\n",
               "ok = checker_score < 1.0\n", "ok = value >= SUCCESS_SCORE\n",
               "ok = x >= records.SUCCESS_SCORE\n", "ok = (m.trajectory.success or 0.0) >= 1.0\n")
    for src in flagged:
        assert len(_thresholds_in(src)) == 1, src
    skipped = ("ok = 0.0 <= p <= 1.0\n", "ok = -1.0 <= tau <= 1.0\n", "ok = hi <= 1.0\n",
               "ok = out[i] == 1.0\n", "ok = scale != 1.0\n", "ok = len(set(rewards)) <= 1\n",
               "ok = votes < 1\n", "ok = score >= 0.5\n", "ok = 0.0 <= threshold <= 1.0\n")
    for src in skipped:
        assert _thresholds_in(src) == [], src
    assert _TEMPLATE_THRESHOLD.search("{% elif ep.success >= 1.0 %}")
    assert not _TEMPLATE_THRESHOLD.search("{% elif ep.success > 0 %}")
