"""Task success of run directories on an earlier template set and on the templates added since, side by side.

A template set grows by the name-hash rule (docs/tasks.md), so `--split validation` runs every validation
template of today's set; this splits each run's episodes into the templates of an earlier set ("earlier",
from a JSON file {split: [template names]} in benchmarks/data/) and the rest ("new"), with the count per seed.

Run: ``python benchmarks/success_by_group.py RUN [RUN ...] --template-groups benchmarks/data/templates-2026-11-27.json``
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from droidverify.env.records import is_success
from droidverify.runner.store import read_episodes


def tally(run: Path, earlier: set[str]) -> dict[str, dict[str, object]]:
    """{group: {"solved", "episodes", "by_seed"}} for one run directory."""
    out: dict[str, dict[str, object]] = {}
    solved: Counter[str] = Counter()
    total: Counter[str] = Counter()
    seeds: dict[str, Counter[int]] = {}
    for ep in read_episodes(run).episodes.values():
        group = "earlier" if ep["task_id"] in earlier else "new"
        ok = is_success(ep.get("success"))
        total[group] += 1
        solved[group] += ok
        seeds.setdefault(group, Counter())[int(ep["seed"])] += ok
    for group in sorted(total):
        out[group] = {"solved": solved[group], "episodes": total[group],
                      "by_seed": dict(sorted(seeds[group].items()))}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", type=Path, help="run directories (droidverify run --out)")
    ap.add_argument("--template-groups", required=True, type=Path,
                    help="JSON {split: [template names]} of the earlier set")
    args = ap.parse_args()
    earlier = {n for names in json.loads(args.template_groups.read_text()).values() for n in names}
    print("| run | earlier templates: solved / episodes (by seed) | new templates: solved / episodes (by seed) |")
    print("|---|---|---|")
    for run in args.runs:
        if not (run / "episodes.jsonl").is_file():
            raise SystemExit(f"{run}: no episodes.jsonl (not a run directory)")
        t = tally(run, earlier)
        cells = []
        for group in ("earlier", "new"):
            g = t.get(group)
            cells.append("-" if g is None else f"{g['solved']} / {g['episodes']} {g['by_seed']}")
        print(f"| {run} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()
