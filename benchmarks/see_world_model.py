"""SEE with the learned world model: ROC AUC against the simulator's semantics, next to baselines.

Run: ``python benchmarks/see_world_model.py [--model DIR] [--pairs 500] [--splits validation,test]``.

Pairs come from ``rewards.see.sample_pairs`` (seed 0) over each split's templates: along oracle
episodes, the oracle's action against up to two of its equivalent forms (by coordinates, a row by
its label, ``open_app`` as the launcher icon, Back as the nav-bar button, a whole-screen scroll as
the list's) and two other candidates of the screen. Ground truth: ``actions_equivalent`` (same
database and same screen after each action, on clones). Rows:

* learned world model: the shipped model (or ``--model``), ``rewards.see.semantic_reward``'s scorer;
  also on the pairs whose two actions do not resolve to one action (where it has to predict);
* baselines, measured in the same run: same action type; cosine of the two actions' own candidate
  texts (MiniLM); the two actions resolve to one action (``resolve_action``, its input step);
* the target itself: cosine of the MiniLM embeddings of the two real changes (``describe_change``):
  what a perfect world model would score;
* the LLM world model (bundled SmolLM2-135M): 0.46 on validation, from docs/benchmarks.md (not
  rerun here: it writes the same sentence for every action).

Prints one markdown table for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import sys
import time

from droidverify.rewards.see import LearnedWorldModel, pair_truth, sample_pairs, see_auc_table

ROWS = ("learned world model", "learned, pairs not resolving to one action", "same resolved action",
        "same action type", "action text cosine", "target (real change) cosine")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=None, help="a world model directory (default: the shipped one)")
    ap.add_argument("--pairs", type=int, default=500, help="pairs per split (all there are, if fewer)")
    ap.add_argument("--splits", default="validation,test")
    args = ap.parse_args()

    model = LearnedWorldModel.load(args.model)
    tables, seconds = {}, {}
    for split in [s.strip() for s in args.splits.split(",") if s.strip()]:
        t0 = time.time()
        pairs = sample_pairs(args.pairs, seed=0, split=split)
        truth = pair_truth(pairs)
        print(f"{split}: {len(pairs)} pairs ({sum(truth)} equivalent) in {time.time() - t0:.1f} s",
              file=sys.stderr, flush=True)
        t1 = time.time()
        model.clear_cache()
        tables[split] = see_auc_table(pairs, truth, model=model)
        seconds[split] = time.time() - t1
    splits = list(tables)
    print(f"model: {args.model or 'shipped'} ({model.version})")
    print("| scorer | " + " | ".join(f"{s} ROC AUC" for s in splits) + " |")
    print("|---|" + "---|" * len(splits))
    for row in ROWS:
        cells = []
        for s in splits:
            v = tables[s].get(row)
            n = f" ({tables[s]['pairs not resolving to one action']} pairs)" if row.startswith("learned,") else ""
            cells.append("n/a" if v is None else f"{v:.3f}{n}")
        print(f"| {row} | " + " | ".join(cells) + " |")
    llm = ["0.46 (docs; not rerun)" if s == "validation" else "–" for s in splits]
    print("| LLM world model (SmolLM2-135M) | " + " | ".join(llm) + " |")
    print("| pairs (equivalent) | " + " | ".join(f"{tables[s]['pairs']} ({tables[s]['equivalent']})" for s in splits)
          + " |")
    print("| seconds for the table (CPU) | " + " | ".join(f"{seconds[s]:.0f}" for s in splits) + " |")


if __name__ == "__main__":
    main()
