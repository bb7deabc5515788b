"""Verifier training-data collection on rollout workers: episodes/s and records/s serial vs 2 workers.

Run (on an otherwise idle machine; it keeps every core busy)::

    python benchmarks/parallel_collect.py [--split train] [--oracle-seeds 0] [--noisy-seeds 100]
        [--max-tasks N] [--workers 1,2]

What ``droidverify train data`` does (``collect`` through ``build_dataset``'s two policies: the oracle
on ``--oracle-seeds``, the noisy oracle on ``--noisy-seeds``), measured in this one run:

- in process (no backend: what ``--workers 1`` does);
- :class:`LocalBackend` with each count in ``--workers`` (default 1 and 2 worker processes).

``wall`` counts everything (worker start-up included). The ratio to linear is
``rate(N workers) / (N * rate(1 worker))`` of the local backend. Every row's records are checked to
be identical to the in-process ones (one episode per unit of work, records in task order).
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from droidverify.cli._common import parse_seeds
from droidverify.runner.backends import LocalBackend
from droidverify.tasks import registry
from droidverify.training.collection import CollectStats, collect
from droidverify.training.loop import DataSpec, sim_apps


def _measure(tasks_by_policy: list[tuple[str, list[Any]]], spec: DataSpec, backend: Any) -> dict[str, Any]:
    apps = sim_apps()
    recs: list[str] = []
    episodes = steps = 0
    t0 = time.perf_counter()
    for policy, tasks in tasks_by_policy:
        st = CollectStats()
        recs += [r.model_dump_json() for r in collect(
            tasks, split_of=registry.split_of, apps=apps, policy=policy, epsilon=spec.epsilon,
            self_correction_rate=spec.self_correction_rate, seed=spec.seed, stats=st, backend=backend)]
        episodes += st.episodes
        steps += st.steps
    wall = time.perf_counter() - t0
    return {"episodes": episodes, "steps": steps, "records": len(recs), "wall": wall,
            "eps": episodes / wall, "recs": len(recs) / wall, "lines": recs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", default="train", help="templates: train | validation | test")
    ap.add_argument("--oracle-seeds", default="0", help="seeds of oracle rollouts ('' for none)")
    ap.add_argument("--noisy-seeds", default="100", help="seeds of noisy-oracle rollouts ('' for none)")
    ap.add_argument("--max-tasks", type=int, default=None, help="first N templates of the split (default all)")
    ap.add_argument("--workers", default="1,2", help="local worker counts to measure (comma-separated)")
    args = ap.parse_args()

    spec = DataSpec(split=args.split)
    templates = [t.name for t in registry.templates_for_split(args.split)][: args.max_tasks]
    tasks_by_policy = [(policy, [registry.get_template(t).instantiate(s) for s in parse_seeds(seeds)
                                 for t in templates])
                       for policy, seeds in (("oracle", args.oracle_seeds), ("noisy", args.noisy_seeds)) if seeds]
    counts = [int(n) for n in args.workers.split(",") if n.strip()]
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
          f"{sum(len(t) for _, t in tasks_by_policy)} episodes ({args.split} templates)")
    rows = ["| collection | episodes | env steps | records | wall s | episodes/s | records/s | x linear |",
            "|---|---|---|---|---|---|---|---|"]
    base = _measure(tasks_by_policy, spec, None)

    def row(name: str, m: dict[str, Any], lin: str) -> str:
        return (f"| {name} | {m['episodes']} | {m['steps']} | {m['records']} | {m['wall']:.2f} | "
                f"{m['eps']:.3g} | {m['recs']:.3g} | {lin} |")

    rows.append(row("in process (no backend)", base, "–"))
    print(rows[-1], flush=True)
    one: dict[str, Any] | None = None
    for n in counts:
        m = _measure(tasks_by_policy, spec, LocalBackend(n))
        if m["lines"] != base["lines"]:
            raise SystemExit(f"{n} workers collected different records than the in-process run")
        if n == 1:
            one = m
        lin = f"{m['recs'] / (n * one['recs']):.2f}" if one is not None and n > 1 else "–"
        rows.append(row(f"local, {n} worker{'s' if n > 1 else ''}", m, lin))
        print(rows[-1], flush=True)  # a run cut short keeps its rows
    print("\n".join(rows))
    print("records identical in every row")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
