"""Draw a sample of step records for the LLM policy on this CPU: N records, in a seeded random order,
kept only when the agent's prompt fits in MAX tokens of the bundled tokenizer (long screens cost
~12 s of prefill a step here). Used for the CPU figures of docs/llm_policy.md.

    python benchmarks/llm_policy_sample.py RECORDS.jsonl OUT.jsonl --n 800 --max-tokens 1536 [--agent smartsnap]
"""

from __future__ import annotations

import argparse
import random
from collections import Counter


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("records")
    ap.add_argument("out")
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--max-tokens", type=int, default=1536)
    ap.add_argument("--agent", default="generator", choices=("generator", "smartsnap"))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    from droidverify.llm.local import LocalLLM
    from droidverify.training.llm_policy import record_messages
    from droidverify.training.records import read_records, write_records

    recs = list(read_records(args.records))
    random.Random(args.seed).shuffle(recs)
    tok = LocalLLM(None, dtype="bfloat16")
    out = []
    for r in recs:
        text = tok.tokenizer.apply_chat_template(record_messages(r, agent=args.agent), tokenize=False,
                                                 add_generation_prompt=True)
        if tok.count_tokens(text) <= args.max_tokens:
            out.append(r)
            if len(out) == args.n:
                break
    write_records(args.out, out)
    print(f"{len(recs)} records read, {len(out)} kept ({len({r.task_id for r in out})} templates; "
          f"{dict(Counter(r.source for r in out))})")


if __name__ == "__main__":
    main()
