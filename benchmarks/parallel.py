"""Parallel rollouts: episodes/s and env steps/s at 1 and 2 workers, and the ratio to linear scaling.

Run: ``python benchmarks/parallel.py [--seeds 2] [--max-tasks 131] [--no-ray] [--verifier-tasks 2]
[--verifier-seeds 0-1] [--verifier-max-steps 2] [--no-verifier]``, or only the end-to-end part:
``python benchmarks/parallel.py --end-to-end [--e2e-split validation] [--e2e-seeds 0-3] [--repeat 2]
[--keep DIR]``.

Parts, each measured in this one run:

- the oracle on the simulator (every template x ``--seeds`` seeds): in-process (no backend), then
  :class:`LocalBackend` with 1 and 2 worker processes, then :class:`RayBackend` with 1 and 2 actors
  on a local Ray instance (started before timing);
- the verifier agent with the bundled model (and its shipped trained verifier) on a few
  episodes at 1 and 2 local workers; each worker loads the model once (kept small: the CPU is shared).

Two rates per row: ``wall`` counts everything ``run_many`` does (worker start-up, model loads, the
parent writing every line); ``span`` counts from the first episode's start to the last one's end
(``started_at`` / ``finished_at`` in episodes.jsonl), i.e. the steady rate without start-up. The
ratio to linear is ``rate(2 workers) / (2 * rate(1 worker))`` of the same backend.

``--end-to-end`` measures what ``droidverify run --agent oracle --split S --seeds ... --workers N``
costs as a whole, report included (the rows above pass ``report=False``): ``run_many`` with the
report in process (``--workers 1``), on one :class:`LocalBackend` worker and on two
(``--workers 2``), each ``--repeat`` times, interleaved. Before each run it prints the load average
and how many cores two busy processes got just then (a CPU loop alone, then beside a copy of
itself: 2.0 on two idle cores, about 1.0 when other jobs take the rest); after it, the size of the
step file (``steps.jsonl``), of the other run files and of the rendered screens. ``--keep DIR``
keeps the run directories (``DIR/w<workers>-r<repeat>``) to compare reports between versions.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from droidverify.agents.oracle import OracleAgent
from droidverify.cli._common import parse_seeds
from droidverify.cli.run import AgentSpec, EnvSpec, installed_app_names, resolve_verifier
from droidverify.runner.backends import LocalBackend, RayBackend, RolloutBackend
from droidverify.runner.run import run_many
from droidverify.runner.store import read_episodes
from droidverify.tasks import registry


def _measure(factory: Any, pairs: list[tuple[Any, int]], backend: RolloutBackend | None, *,
             max_steps: int | None = None) -> dict[str, float]:
    out = Path(tempfile.mkdtemp(prefix="dv-parallel-"))
    try:
        t0 = time.perf_counter()
        run_many(factory, pairs, out, env_factory=EnvSpec("sim"), progress=False, report=False,
                 max_steps=max_steps, backend=backend)
        wall = time.perf_counter() - t0
        eps = list(read_episodes(out).episodes.values())
    finally:
        shutil.rmtree(out, ignore_errors=True)
    steps = sum(e["n_steps"] for e in eps)
    span = max(e["finished_at"] for e in eps) - min(e["started_at"] for e in eps)
    return {"episodes": len(eps), "steps": steps, "wall": wall, "span": span,
            "eps_wall": len(eps) / wall, "steps_wall": steps / wall,
            "eps_span": len(eps) / span, "steps_span": steps / span}


def _row(name: str, m: dict[str, float], base: dict[str, float] | None) -> str:
    if base is None:
        lin = "–"
    else:
        lin = f"{m['eps_wall'] / (2 * base['eps_wall']):.2f} / {m['eps_span'] / (2 * base['eps_span']):.2f}"
    return (f"| {name} | {m['episodes']:.0f} | {m['steps']:.0f} | {m['wall']:.2f} | {m['eps_wall']:.3g} | "
            f"{m['steps_wall']:.3g} | {m['eps_span']:.3g} | {m['steps_span']:.3g} | {lin} |")


def _dir_bytes(path: Path) -> tuple[int, int]:
    """(files, bytes) under ``path`` (0, 0 when it does not exist)."""
    files = [p for p in path.rglob("*") if p.is_file()] if path.is_dir() else []
    return len(files), sum(p.stat().st_size for p in files)


def _spin(n: int) -> float:
    t0 = time.perf_counter()
    x = 0
    for i in range(n):
        x += i * i
    return time.perf_counter() - t0


def _cores_free(n: int = 10_000_000) -> float:
    """How many cores two busy processes got just now: 2 x (a CPU loop's time alone) / (its mean
    time beside a second copy)."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(1) as pool:
        alone = pool.map(_spin, [n])[0]
    with ctx.Pool(2) as pool:
        pair = pool.map(_spin, [n, n])
    return 2 * alone / (sum(pair) / 2)


E2E_RUNS = (("in process (--workers 1)", 0), ("local, 1 worker", 1), ("local, 2 workers (--workers 2)", 2))


def _end_to_end(split: str, seeds: list[int], repeat: int, keep: Path | None) -> None:
    """Wall time of whole oracle runs with their report: in process (``--workers 1``), then one and
    two :class:`LocalBackend` workers (``--workers 2``)."""
    templates = list(registry.templates_for_split(split))
    pairs = [(t, s) for t in templates for s in seeds]
    print(f"end to end: oracle, {split} split ({len(templates)} templates) x seeds {seeds}: "
          f"{len(pairs)} episodes, report included")
    print("| run | repeat | load avg before | cores free before | wall s | episodes/s | steps.jsonl MB "
          "| other run files MB | rendered screens (files, MB) |\n|---|---|---|---|---|---|---|---|---|")
    walls: dict[int, list[float]] = {n: [] for _, n in E2E_RUNS}
    for r in range(repeat):
        for name, workers in E2E_RUNS:
            out = keep / f"w{workers}-r{r}" if keep is not None else Path(tempfile.mkdtemp(prefix="dv-e2e-"))
            if keep is not None:
                shutil.rmtree(out, ignore_errors=True)
            load, cores = os.getloadavg()[0], _cores_free()
            backend = LocalBackend(workers) if workers else None
            try:
                t0 = time.perf_counter()
                run_many(OracleAgent, pairs, out, env_factory=EnvSpec("sim"), progress=False, report=True,
                         backend=backend)
                wall = time.perf_counter() - t0
            finally:
                if backend is not None:
                    backend.close()
            steps_mb = (out / "steps.jsonl").stat().st_size / 1e6
            other = sum(p.stat().st_size for p in out.iterdir()
                        if p.is_file() and p.name != "steps.jsonl") / 1e6
            n_png, png_bytes = _dir_bytes(out / "screens" / "rendered")
            walls[workers].append(wall)
            print(f"| {name} | {r + 1} | {load:.2f} | {cores:.2f} | {wall:.2f} | {len(pairs) / wall:.3g} "
                  f"| {steps_mb:.1f} | {other:.2f} | {n_png}, {png_bytes / 1e6:.1f} |", flush=True)
            if keep is None:
                shutil.rmtree(out, ignore_errors=True)
    names = {n: name for name, n in E2E_RUNS}
    for base in (0, 1):
        ratios = ", ".join(f"{a / b:.2f}x" for a, b in zip(walls[base], walls[2], strict=True))
        print(f"speed-up of 2 workers over {names[base]}, per repeat: {ratios}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=2, help="oracle: seeds per template")
    ap.add_argument("--max-tasks", type=int, default=None, help="oracle: first N templates (default all)")
    ap.add_argument("--no-ray", action="store_true", help="skip the Ray rows")
    ap.add_argument("--no-verifier", action="store_true", help="skip the verifier rows")
    ap.add_argument("--verifier-tasks", type=int, default=2, help="verifier: first N validation templates")
    ap.add_argument("--verifier-seeds", default="0-1", help="verifier: seeds (0-1, 0,3, ...)")
    ap.add_argument("--verifier-max-steps", type=int, default=2, help="verifier: steps per episode")
    ap.add_argument("--end-to-end", action="store_true",
                    help="only the end-to-end part: whole oracle runs with their report, 1 and 2 workers")
    ap.add_argument("--e2e-split", default="validation", help="end to end: train, validation or test")
    ap.add_argument("--e2e-seeds", default="0-3", help="end to end: seeds (0-3, 0,3, ...)")
    ap.add_argument("--repeat", type=int, default=2, help="end to end: runs of each worker count")
    ap.add_argument("--keep", type=Path, default=None, help="end to end: keep the run directories under DIR")
    args = ap.parse_args()
    if args.end_to_end:
        print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
        _end_to_end(args.e2e_split, parse_seeds(args.e2e_seeds), args.repeat, args.keep)
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        return

    templates = list(registry.all_templates())[: args.max_tasks]
    pairs = [(t, s) for t in templates for s in range(args.seeds)]
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    header = ("| run | episodes | env steps | wall s | episodes/s (wall) | steps/s (wall) | episodes/s (span) "
              "| steps/s (span) | x linear (wall / span) |\n|---|---|---|---|---|---|---|---|---|")
    rows = [header]
    inproc = _measure(OracleAgent, pairs, None)
    rows.append(_row("oracle, in process (no backend)", inproc, None))
    one = _measure(OracleAgent, pairs, LocalBackend(1))
    rows.append(_row("oracle, local, 1 worker", one, None))
    rows.append(_row("oracle, local, 2 workers", _measure(OracleAgent, pairs, LocalBackend(2)), one))
    if not args.no_ray:
        import ray

        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1")
        try:
            r1 = _measure(OracleAgent, pairs, RayBackend(1))
            rows.append(_row("oracle, Ray, 1 actor", r1, None))
            rows.append(_row("oracle, Ray, 2 actors", _measure(OracleAgent, pairs, RayBackend(2)), r1))
        finally:
            ray.shutdown()
    if not args.no_verifier:
        vt = list(registry.templates_for_split("validation"))[: args.verifier_tasks]
        vpairs = [(t, s) for t in vt for s in parse_seeds(args.verifier_seeds)]
        spec = AgentSpec("verifier", apps=installed_app_names("sim"), verifier=resolve_verifier(None, None))
        v1 = _measure(spec, vpairs, LocalBackend(1), max_steps=args.verifier_max_steps)
        rows.append(_row("verifier (bundled 135M), local, 1 worker", v1, None))
        v2 = _measure(spec, vpairs, LocalBackend(2), max_steps=args.verifier_max_steps)
        rows.append(_row("verifier (bundled 135M), local, 2 workers", v2, v1))
    print("\n".join(rows))
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
