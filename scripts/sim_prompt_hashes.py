"""Hash what the verifier is shown on every simulator screen of the oracle's paths.

A trained verifier learnt from the simulator's screen texts (``ui``) and candidate descriptions; a
change to the UI layer (element selection, labels, descriptions) must leave them byte-identical
unless the verifier is retrained. This runs the oracle on every registered template (train,
validation and test splits, seed 0 by default) through ``training.collection.collect`` and writes
one line per record with SHA-256 hashes of its ``ui`` and ``descriptions`` (and, to catch an
oracle that now takes another path, of its memory, candidates and positive), then a total per
field. Compare two runs with ``--compare``::

    python scripts/sim_prompt_hashes.py --out before.json
    # ... change the UI layer ...
    python scripts/sim_prompt_hashes.py --out after.json --compare before.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time

FIELDS = ("ui", "descriptions", "memory", "candidates", "positive")


def _h(value: object) -> str:
    return hashlib.sha256(json.dumps(value, ensure_ascii=False, sort_keys=True).encode()).hexdigest()


def record_hashes(seeds: list[int]) -> dict[str, dict[str, str]]:
    from droidverify.tasks import registry
    from droidverify.training.collection import CollectStats, collect
    from droidverify.training.loop import sim_apps

    out: dict[str, dict[str, str]] = {}
    apps = sim_apps()
    for split in registry.SPLITS:
        stats = CollectStats()
        tasks = registry.tasks_for(split, seeds)
        for rec in collect(tasks, split_of=registry.split_of, apps=apps, policy="oracle", seed=0,
                           stats=stats):
            out[rec.record_id] = {f: _h(getattr(rec, f)) for f in FIELDS}
        print(f"{split}: {len(tasks)} tasks, {stats.steps} steps", file=sys.stderr)
    return out


def totals(recs: dict[str, dict[str, str]]) -> dict[str, str]:
    return {f: _h([recs[k][f] for k in sorted(recs)]) for f in FIELDS}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="JSON file to write")
    ap.add_argument("--seeds", default="0", help="comma-separated seeds (default 0)")
    ap.add_argument("--compare", help="an earlier --out file: list the records that differ, exit 1 if any")
    args = ap.parse_args()
    t0 = time.perf_counter()
    recs = record_hashes([int(s) for s in args.seeds.split(",")])
    result = {"records": len(recs), "totals": totals(recs), "per_record": recs}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    print(f"{len(recs)} records in {time.perf_counter() - t0:.0f} s; totals {json.dumps(result['totals'])}",
          file=sys.stderr)
    if not args.compare:
        return 0
    with open(args.compare, encoding="utf-8") as f:
        before = json.load(f)["per_record"]
    missing = sorted(set(before) - set(recs))
    added = sorted(set(recs) - set(before))
    changed = {k: [f for f in FIELDS if before[k][f] != recs[k][f]] for k in sorted(set(before) & set(recs))}
    changed = {k: v for k, v in changed.items() if v}
    for k in missing:
        print(f"missing  {k}")
    for k in added:
        print(f"added    {k}")
    for k, fields in changed.items():
        print(f"changed  {k}: {', '.join(fields)}")
    same = not (missing or added or changed)
    print("identical" if same else f"DIFFERENT: {len(missing)} missing, {len(added)} added, {len(changed)} changed")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
