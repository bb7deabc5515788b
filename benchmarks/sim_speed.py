"""Simulator speed: steps/s (with the XML observation), reset time and memory per environment.

Run: ``python benchmarks/sim_speed.py [--steps 3000] [--envs 50] [--repeat 3]``. Prints a table
beside AndroidWorld's documented emulator figures (>= 1 s per step including settling and the
accessibility dump; ~6 GB RAM per emulator) with the ratios, the goal of each metric and whether
the median over ``--repeat`` runs meets it. Cold reset = a seed this process has never built
(schema copied from a per-process image, then every app seeds its data); warm reset = a seed seen
before (its seeded database image is copied in).
"""

from __future__ import annotations

import argparse
import gc
import random
import resource
import statistics
import time
import tracemalloc

from droidverify.actions.model import Action
from droidverify.env.sim import SimEnv
from droidverify.tasks import registry

AW_STEP_S = 1.0  # AndroidWorld: about a second or more per step on an emulator
AW_MEM_MB = 6 * 1024.0  # AndroidWorld: ~6 GB per emulator instance
GOALS = {"steps_per_s": 2000.0, "reset_ms": 5.0, "mem_mb": 20.0}


def _actions(env: SimEnv, rng: random.Random, n: int, *, by_index: bool) -> float:
    """Run ``n`` steps of a random but valid policy; returns seconds spent inside env.step."""
    obs = env.reset()
    spent = 0.0
    apps = ("Clock", "Settings")
    for _ in range(n):
        r = rng.random()
        if r < 0.08:
            a = Action(action_type="navigate_back")
        elif r < 0.12:
            a = Action(action_type="open_app", app_name=rng.choice(apps))
        elif r < 0.2:
            a = Action(action_type="scroll", direction=rng.choice(("up", "down")))
        elif by_index:
            els = obs.elements
            a = Action(action_type="click", index=rng.randrange(len(els)))
        else:
            a = Action(action_type="click", x=rng.randrange(1080), y=rng.randrange(110, 2274))
        t0 = time.perf_counter()
        obs = env.step(a)
        spent += time.perf_counter() - t0
        if env.phone.location.startswith("launcher") and rng.random() < 0.5:
            obs = env.step(Action(action_type="open_app", app_name=rng.choice(apps)))
    return spent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--envs", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=3, help="runs of the speed metrics; the table shows medians")
    args = ap.parse_args()
    rng = random.Random(0)

    xy_rates, idx_rates, cold, warm = [], [], [], []
    templates = registry.all_templates()
    for r in range(args.repeat):
        env = SimEnv(seed=0)
        t_xy = _actions(env, rng, args.steps, by_index=False)
        t_idx = _actions(env, rng, args.steps, by_index=True)
        xy_rates.append(args.steps / t_xy)
        idx_rates.append(args.steps / t_idx)
        env.close()

        n_reset = 200
        base = 1_000_000 * (r + 1)  # seeds no earlier repeat has built
        t0 = time.perf_counter()
        for i in range(n_reset):
            task = templates[i % len(templates)].instantiate(i)
            SimEnv(task, base + i).reset()
        cold.append((time.perf_counter() - t0) / n_reset * 1000)  # new seed: schema copy + seeding + setup
        warm_envs = [SimEnv(templates[i % len(templates)].instantiate(i), i) for i in range(20)]
        for e in warm_envs:  # first reset builds the seed's database; the timed ones copy its image
            e.reset()
        t0 = time.perf_counter()
        for _ in range(10):
            for e in warm_envs:
                e.reset()
        warm.append((time.perf_counter() - t0) / (10 * len(warm_envs)) * 1000)  # same seed again
    xy_rate, idx_rate = statistics.median(xy_rates), statistics.median(idx_rates)
    reset_ms, warm_ms = statistics.median(cold), statistics.median(warm)

    gc.collect()
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    envs = []
    for i in range(args.envs):
        e = SimEnv(templates[i % len(templates)].instantiate(i), i)
        e.reset()
        e.step(Action(action_type="open_app", app_name="Clock"))
        envs.append(e)
    py_bytes, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    py_mb = py_bytes / args.envs / 2**20
    rss_mb = max(0, rss1 - rss0) / 1024 / args.envs  # ru_maxrss is KiB on Linux; includes SQLite pages

    def met(value: float, goal: str) -> str:
        target = float(goal.split()[1].replace(",", ""))
        ok = value >= target if goal.startswith(">=") else value <= target
        return "yes" if ok else "NO"

    rows = [
        ("steps/s, tap by x/y (XML obs)", xy_rate, f"{xy_rate:,.0f}", f"{1 / AW_STEP_S:.1f}",
         f"{xy_rate * AW_STEP_S:,.0f}x", f">= {GOALS['steps_per_s']:,.0f}"),
        ("steps/s, tap by index (+select)", idx_rate, f"{idx_rate:,.0f}", f"{1 / AW_STEP_S:.1f}",
         f"{idx_rate * AW_STEP_S:,.0f}x", f">= {GOALS['steps_per_s']:,.0f}"),
        ("reset (ms), cold: new seed (seed + setup)", reset_ms, f"{reset_ms:.2f}", "minutes (snapshot load)", "-",
         f"<= {GOALS['reset_ms']}"),
        ("reset (ms), warm: seen seed (DB image)", warm_ms, f"{warm_ms:.2f}", "minutes (snapshot load)", "-",
         f"<= {GOALS['reset_ms']}"),
        ("memory per env (MB, tracemalloc)", py_mb, f"{py_mb:.2f}", f"{AW_MEM_MB:,.0f}",
         f"{AW_MEM_MB / max(py_mb, 1e-9):,.0f}x less", f"<= {GOALS['mem_mb']}"),
        ("memory per env (MB, RSS delta)", rss_mb, f"{rss_mb:.2f}", f"{AW_MEM_MB:,.0f}",
         f"{AW_MEM_MB / max(rss_mb, 1e-3):,.0f}x less", f"<= {GOALS['mem_mb']}"),
    ]
    rows = [(name, *cells, met(value, cells[-1])) for name, value, *cells in rows]
    try:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"droidverify simulator vs AndroidWorld emulator ({args.steps} steps, {args.envs} envs, "
                            f"median of {args.repeat})")
        for col in ("metric", "simulator", "AndroidWorld", "ratio", "goal", "met"):
            table.add_column(col)
        for r in rows:
            table.add_row(*r)
        Console().print(table)
    except ImportError:  # pragma: no cover - rich is a dependency, keep a plain fallback for copies
        for r in rows:
            print(" | ".join(r))
    print("runs: steps/s x/y " + ", ".join(f"{v:,.0f}" for v in xy_rates) + "; by index "
          + ", ".join(f"{v:,.0f}" for v in idx_rates) + "; cold reset ms " + ", ".join(f"{v:.2f}" for v in cold)
          + "; warm reset ms " + ", ".join(f"{v:.2f}" for v in warm))
    for e in envs:
        e.close()


if __name__ == "__main__":
    main()
