"""benchmarks/success_by_group.py: a run's episodes split into an earlier template set and the rest."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from typer.testing import CliRunner

from droidverify.cli import app
from droidverify.tasks import registry

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "success_by_group.py"


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_success_by_group", BENCH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_episodes_are_counted_by_group_and_seed(tmp_path: Path) -> None:
    first, second = (t.name for t in registry.all_templates()[:2])
    for agent, out in (("oracle", tmp_path / "solved"), ("noop", tmp_path / "failed")):
        res = CliRunner().invoke(app, ["run", "--agent", agent, "--tasks", f"{first},{second}", "--seeds", "0-1",
                                       "--out", str(out), "--no-progress"])
        assert res.exit_code == 0, res.output
    bench = load_bench()
    solved = bench.tally(tmp_path / "solved", {first})
    assert solved["earlier"] == {"solved": 2, "episodes": 2, "by_seed": {0: 1, 1: 1}}
    assert solved["new"] == {"solved": 2, "episodes": 2, "by_seed": {0: 1, 1: 1}}
    failed = bench.tally(tmp_path / "failed", {first})
    assert failed["earlier"]["solved"] == 0 and failed["new"]["solved"] == 0
    assert failed["earlier"]["episodes"] == 2


def test_shipped_groups_file_names_only_registered_templates_of_their_split() -> None:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "templates-2026-11-27.json"
    groups = json.loads(path.read_text())
    assert {k: len(v) for k, v in groups.items()} == {"train": 127, "validation": 53, "test": 45}
    for split, names in groups.items():
        assert all(registry.split_of(n) == split for n in names)
        assert set(names) <= {t.name for t in registry.templates_for_split(split)}
