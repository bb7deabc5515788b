"""Where a verifier's episodes leave the oracle's path: the first wrong step of each episode, by the
right action's type and the chosen one's.

The verifier acts; the oracle labels every state it visits (``training.collect`` with the verifier
as policy, the records of `droidverify train loop`'s rollouts), so a step is wrong when the
verifier's choice is neither the oracle's action nor an equivalent of it. The first wrong step is
what an episode-level fix has to reach; per-step accuracy weighs every step alike.

Run: ``python benchmarks/first_errors.py --verifier DIR --split validation --seeds 1,2,3
[--records OUT.jsonl] [--workers 2]``. ``--from-records FILE`` tabulates a file written before.
Typed values and answers are compared by candidate (a placeholder ``answer``), not by value.
"""

from __future__ import annotations

import argparse
import collections
from collections.abc import Sequence

from droidverify.actions.model import Action
from droidverify.training.records import VerifierStepRecord, read_records, write_records


def first_errors(records: Sequence[VerifierStepRecord]) -> tuple[int, int, collections.Counter, dict]:
    """(episodes, episodes without a wrong step, Counter of (right type, chosen type), examples)."""
    episodes: dict[tuple[str, int], list[VerifierStepRecord]] = collections.defaultdict(list)
    for r in records:
        episodes[(r.task_id, r.seed)].append(r)
    counts: collections.Counter = collections.Counter()
    examples: dict[tuple[str, str], list[str]] = collections.defaultdict(list)
    clean = 0
    for (task, seed), steps in sorted(episodes.items()):
        steps.sort(key=lambda r: r.step)
        wrong = next((r for r in steps if r.policy_choice is None or r.policy_choice not in r.correct), None)
        if wrong is None:
            clean += 1
            continue
        chosen = ("none" if wrong.policy_choice is None
                  else Action.model_validate_json(wrong.candidates[wrong.policy_choice]).action_type)
        key = (wrong.positive_action.action_type, chosen)
        counts[key] += 1
        examples[key].append(f"{task}:{seed}@{wrong.step}")
    return len(episodes), clean, counts, examples


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--verifier", help="a verifier directory (either backbone)")
    ap.add_argument("--split", default="validation")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--records", help="also write the labelled visited steps here (JSONL)")
    ap.add_argument("--from-records", help="tabulate this file instead of rolling out")
    args = ap.parse_args()
    if args.from_records:
        records = read_records(args.from_records)
    else:
        if not args.verifier:
            ap.error("--verifier is required unless --from-records is given")
        from droidverify.runner.backends import LocalBackend
        from droidverify.tasks import registry
        from droidverify.training import collect
        from droidverify.training.loop import VerifierPolicy, sim_apps

        apps = sim_apps()
        tasks = registry.tasks_for(args.split, [int(s) for s in args.seeds.split(",")])
        with LocalBackend(args.workers) as backend:
            records = list(collect(tasks, split_of=registry.split_of, apps=apps,
                                   policy=VerifierPolicy(args.verifier, apps, {}), backend=backend))
        if args.records:
            write_records(args.records, records)
    n, clean, counts, examples = first_errors(records)
    by_right: collections.Counter = collections.Counter()
    for (right, _), k in counts.items():
        by_right[right] += k
    print(f"episodes {n}; without a wrong step {clean}; first wrong step by the right action's type: "
          + ", ".join(f"{t} {k}" for t, k in by_right.most_common()))
    print("| right | chosen | episodes | e.g. |")
    print("|---|---|---|---|")
    for (right, chosen), k in counts.most_common():
        print(f"| {right} | {chosen} | {k} | {', '.join(examples[(right, chosen)][:2])} |")


if __name__ == "__main__":
    main()
