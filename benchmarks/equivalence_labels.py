"""Equivalent-candidate labels: the lazy ``Outcome`` against full SQL dumps, on the same states.

Training records mark every candidate that does what the label does as equivalent
(``training.collection.equivalent_candidates``): each candidate is executed on a clone of the phone
and its outcome (screen + app data) compared with the label's. The baseline compares full SQL dumps
(``action_outcome``: ``Connection.iterdump`` for every candidate); ``outcome`` compares the database
bytes and dumps only when the screens already match. This walks the oracle's path on the first
``--templates`` train templates, computes both on every step, checks that they agree, and prints
the seconds each took and the ratio.

Run: ``python benchmarks/equivalence_labels.py [--templates 12] [--seed 0]``
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--templates", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    from droidverify.actions.model import Action
    from droidverify.agents.verifier.candidates import extract_candidates
    from droidverify.env.sim import SimEnv
    from droidverify.env.sim.env import action_outcome, outcome
    from droidverify.tasks import registry
    from droidverify.training.collection import _EXECUTABLE
    from droidverify.training.loop import sim_apps

    def labels(outcome_of: object, phone: object, label: Action, cands: list[Action]) -> list[int]:
        """The candidates whose outcome equals the label's, as equivalent_candidates computes them."""
        target = outcome_of(phone, label)  # type: ignore[operator]
        if target == outcome_of(phone, None):  # type: ignore[operator]
            return []
        return [j for j, c in enumerate(cands) if c.action_type in _EXECUTABLE
                and outcome_of(phone, c) == target]  # type: ignore[operator]

    apps = sim_apps()
    names = sorted(t.name for t in registry.templates_for_split("train"))[:args.templates]
    steps = cands_n = 0
    secs = {"full SQL dumps (baseline)": 0.0, "lazy Outcome": 0.0}
    for name in names:
        task = registry.get_template(name).instantiate(args.seed)
        env = SimEnv(task=task, seed=args.seed)
        obs = env.reset()
        for _ in range(task.max_steps):
            label = task.oracle_action(env.phone, obs)
            if label.action_type in ("status", "answer", "wait", "submit"):
                break
            cands = extract_candidates(obs, apps=apps)
            t0 = time.perf_counter()
            a = labels(action_outcome, env.phone, label, cands)
            t1 = time.perf_counter()
            b = labels(outcome, env.phone, label, cands)
            t2 = time.perf_counter()
            if a != b:
                raise SystemExit(f"{name} step {steps}: the two disagree ({a} vs {b})")
            secs["full SQL dumps (baseline)"] += t1 - t0
            secs["lazy Outcome"] += t2 - t1
            steps += 1
            cands_n += len(cands)
            obs = env.step(label)
    base = secs["full SQL dumps (baseline)"]
    print(f"{len(names)} train templates, {steps} oracle steps, {cands_n} candidates; labels identical on every step\n")
    print("| method | seconds | ms per step | x baseline |\n|---|---|---|---|")
    for k, v in secs.items():
        print(f"| {k} | {v:.2f} | {1000 * v / max(steps, 1):.1f} | {base / v:.2f} |")


if __name__ == "__main__":
    main()
