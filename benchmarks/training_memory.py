"""Memory of the compact trainer's data: a prepared step as the agent builds it against the packed
form the trainer holds, and the embedding warm-up by ``encode`` (a vector per occurrence) against
``cache_texts`` (a vector per distinct string). Both measured in the same run on the same records.

    python benchmarks/training_memory.py --records OUT/data/train.jsonl --n 2000

Prepared steps are measured with ``tracemalloc`` (Python allocations, after the records are read);
the embedding rows are counted, at the encoder's dimension and float32, and scaled to the whole file
by its line count.
"""

from __future__ import annotations

import argparse
import itertools
import time
import tracemalloc


def _lines(path: str) -> int:
    with open(path, "rb") as f:
        return sum(1 for _ in f)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", required=True, help="a VerifierStepRecord JSONL (train data)")
    ap.add_argument("--n", type=int, default=2000, help="records measured (the first N; default 2000)")
    ap.add_argument("--dim", type=int, default=384, help="embedding dimension (MiniLM: 384)")
    args = ap.parse_args()

    from droidverify.agents.screen import describe_action
    from droidverify.agents.verifier.compact.features import step_view
    from droidverify.training.compact import expand_record, record_example
    from droidverify.training.loop import sim_apps
    from droidverify.training.records import iter_records

    apps = sim_apps()
    records = list(itertools.islice(iter_records(args.records), args.n))
    n = len(records)

    def unpacked(rec):  # what one step costs as the agent builds it (Actions, float lists)
        elements, cands, _correct, _positive = expand_record(rec, apps)
        return cands, step_view(rec.goal, rec.memory, elements, cands, [describe_action(c, elements) for c in cands])

    sizes = {}
    kept = {}
    for name, build in (("as the agent builds it", unpacked), ("packed, as the trainer holds it", lambda r: record_example(r, apps))):
        t0 = time.perf_counter()
        tracemalloc.start()
        kept[name] = [build(r) for r in records]
        current, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        sizes[name] = (current / n / 1000, time.perf_counter() - t0)

    views = [ex.view for ex in kept["packed, as the trainer holds it"]]
    strings = [s for v in views for s in v.strings()]
    occurrences, distinct = len(strings), len(set(strings))
    total = _lines(args.records)
    scale = total / n

    print(f"{n} records of {args.records} ({total} in the file)\n")
    print("| prepared step | KB per step | seconds | GB for the whole file |")
    print("|---|---|---|---|")
    for name, (kb, secs) in sizes.items():
        print(f"| {name} | {kb:.1f} | {secs:.1f} | {kb * total / 1e6:.2f} |")
    base, packed = sizes["as the agent builds it"][0], sizes["packed, as the trainer holds it"][0]
    print(f"\npacked / as built: {packed / base:.3f} ({base / packed:.1f}x smaller)\n")
    print("| embedding warm-up | rows | GB (float32, these records) | GB scaled to the file (rows grow with it) |")
    print("|---|---|---|---|")
    row = args.dim * 4
    print(f"| encode(all strings): a row per occurrence | {occurrences} | {occurrences * row / 1e9:.2f} "
          f"| {occurrences * row * scale / 1e9:.2f} |")
    print(f"| cache_texts(all strings): a row per distinct string | {distinct} | {distinct * row / 1e9:.3f} "
          f"| at most {distinct * row * scale / 1e9:.2f} |")
    print(f"\ndistinct / occurrences: {distinct / occurrences:.4f}")


if __name__ == "__main__":
    main()
