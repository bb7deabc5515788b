"""The compact verifier's misses on held-out records: goal, recent memory, its top candidate and the
right one, by the positive's action type (what docs/training.md's failure readings come from).

Run: ``python benchmarks/compact_misses.py --verifier DIR --records DATA/eval.jsonl --kinds answer,status
[--per-kind 8]``. Records are visited in a fixed shuffled order (seed 0).

``--confusion``: instead, over every record whose right action is among the candidates, count the
misses by (the right action's type, the chosen candidate's type), most frequent first.

``--type-decisions``: instead, per right action type, split the records into the two decisions a
step takes: is the best candidate of the right type, and is the best candidate of that type right
(an ``answer`` step can fail either way: not answering, or answering the wrong value).
"""

from __future__ import annotations

import argparse
import collections
import random
from collections.abc import Iterator

from droidverify.agents.verifier.compact.features import KINDS
from droidverify.agents.verifier.compact.scorer import CompactScorer
from droidverify.training.compact import Example, record_example
from droidverify.training.loop import sim_apps
from droidverify.training.records import read_records


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--verifier", required=True, help="a compact verifier directory")
    ap.add_argument("--records", required=True, help="VerifierStepRecord JSONL (schema 3: with screens)")
    ap.add_argument("--kinds", default="answer,status,input_text,open_app", help="comma-separated action types")
    ap.add_argument("--per-kind", type=int, default=8)
    ap.add_argument("--confusion", action="store_true", help="count misses by (right type, chosen type)")
    ap.add_argument("--type-decisions", action="store_true",
                    help="per right type: best candidate of that type? best of that type right?")
    args = ap.parse_args()
    scorer = CompactScorer.load(args.verifier)
    if args.confusion:
        confusion(scorer, read_records(args.records))
        return
    if args.type_decisions:
        type_decisions(scorer, read_records(args.records))
        return
    kinds = set(args.kinds.split(","))
    records = read_records(args.records)
    random.Random(0).shuffle(records)
    apps, shown, seen = sim_apps(), collections.Counter(), collections.Counter()
    for rec in records:
        ex = record_example(rec, apps, scorer.content, scorer.feature_version)
        if ex.kind not in kinds or shown[ex.kind] >= args.per_kind or not ex.correct:
            continue
        seen[ex.kind] += 1
        scores = scorer.score_views([ex.view])[0]
        top = max(range(len(scores)), key=scores.__getitem__)
        if top in ex.correct:
            continue
        shown[ex.kind] += 1
        right = ex.positive if ex.positive is not None else min(ex.correct)
        print(f"--- [{ex.kind}] {rec.task_id}: {ex.view.goal}")
        print("    memory:", " / ".join(m[:160] for m in ex.view.memory[-3:]) or "(empty)")
        for tag, i in (("chose", top), ("right", right)):
            c = ex.view.candidates[i]
            print(f"    {tag} {scores[i]:7.2f}  {c.text}  value={c.value!r}  row={c.context[:70]!r}")
    print({k: f"{shown[k]} misses shown of {seen[k]} records visited" for k in sorted(kinds)})


def scored(scorer: CompactScorer, records: list) -> Iterator[tuple[Example, list[float]]]:
    """(example, scores) of every record whose right action is among the candidates, scored 64 at a time."""
    apps = sim_apps()
    examples = [ex for ex in (record_example(r, apps, scorer.content, scorer.feature_version) for r in records)
                if ex.correct]
    for start in range(0, len(examples), 64):
        chunk = examples[start:start + 64]
        yield from zip(chunk, scorer.score_views([e.view for e in chunk]))


def confusion(scorer: CompactScorer, records: list) -> None:
    total, misses = collections.Counter(), collections.Counter()
    for ex, scores in scored(scorer, records):
        total[ex.kind] += 1
        top = max(range(len(scores)), key=scores.__getitem__)
        if top not in ex.correct:
            kinds = ex.view.candidates[top].numeric[:len(KINDS)]  # the one-hot kind comes first
            misses[(ex.kind, KINDS[max(range(len(KINDS)), key=kinds.__getitem__)])] += 1
    print(f"{sum(total.values())} records with a covered label, {sum(misses.values())} misses")
    print("| right type | chosen type | misses | of records of the right type |")
    print("|---|---|---|---|")
    for (right, chosen), n in misses.most_common():
        print(f"| {right} | {chosen} | {n} | {total[right]} |")


def type_decisions(scorer: CompactScorer, records: list) -> None:
    n, typed, within, right = (collections.Counter() for _ in range(4))
    for ex, scores in scored(scorer, records):
        same = [i for i, c in enumerate(ex.candidates) if c.action_type == ex.kind]
        top = max(range(len(scores)), key=scores.__getitem__)
        n[ex.kind] += 1
        typed[ex.kind] += ex.candidates[top].action_type == ex.kind
        within[ex.kind] += bool(same) and max(same, key=scores.__getitem__) in ex.correct
        right[ex.kind] += top in ex.correct
    print("| right type | records | best candidate of that type | best of that type right | top-1 right |")
    print("|---|---|---|---|---|")
    for kind, k in n.most_common():
        print(f"| {kind} | {k} | {typed[kind]} | {within[kind]} | {right[kind]} |")


if __name__ == "__main__":
    main()
