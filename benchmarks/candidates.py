"""Candidate actions per screen (V-Droid's action space size): the oracle's path on every template
of every split, plus the shared real uiautomator dumps. Also checks that the oracle's action is
always among the candidates (a step where it is not could never be chosen by a verifier).

    python benchmarks/candidates.py --seeds 0-2
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from pathlib import Path


def main() -> None:
    from droidverify.agents.verifier.candidates import extract_candidates
    from droidverify.env.records import Observation
    from droidverify.tasks import registry
    from droidverify.training.collection import CollectStats, collect
    from droidverify.training.loop import sim_apps

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="0-2")
    ap.add_argument("--dumps", default=str(Path(__file__).resolve().parents[2] / "shared" / "data" / "uiautomator"))
    args = ap.parse_args()
    lo, _, hi = args.seeds.partition("-")
    seeds = list(range(int(lo), int(hi or lo) + 1))
    stats = CollectStats()
    sizes: list[int] = []
    kinds: Counter = Counter()
    for split in registry.SPLITS:
        for rec in collect(registry.tasks_for(split, seeds), split_of=registry.split_of, apps=sim_apps(),
                           stats=stats):
            sizes.append(len(rec.candidates))
            kinds.update(c.split('"')[3] for c in rec.candidates)
    print(f"simulator, oracle path, seeds {args.seeds}: {stats.steps} screens")
    print("| candidates per screen | mean | median | max | oracle action missing |\n|---|---|---|---|---|")
    print(f"| all | {statistics.mean(sizes):.1f} | {statistics.median(sizes):.0f} | {max(sizes)} | "
          f"{sum(stats.unmatched.values())} |")
    print("\n| kind | share |\n|---|---|")
    total = sum(kinds.values())
    for k, v in kinds.most_common():
        print(f"| {k} | {100 * v / total:.1f}% |")
    dumps = sorted(Path(args.dumps).glob("*.xml"))
    if dumps:
        print("\n| real dump | candidates | controls named by a sibling's label |\n|---|---|---|")
        for f in dumps:
            obs = Observation(xml=f.read_text())
            named = sum(e.extra.get("label_source") == "sibling" for e in obs.elements)
            print(f"| {f.name} | {len(extract_candidates(obs))} | {named} |")


if __name__ == "__main__":
    main()
