"""Sentence-embedding throughput of the bundled MiniLM in float32 and bfloat16 on this CPU, and the
dtype ``auto`` picks (the compact verifier, judge and world model embed every new string with it).

bfloat16 is fast only where the CPU has bf16 instructions (AVX512-BF16, AMX); elsewhere torch
emulates it and it is several times slower than float32.

    python benchmarks/embedding_speed.py --n 512 --threads 2
"""

from __future__ import annotations

import argparse
import random
import time

WORDS = ("click", "the", "button", "settings", "save", "contact", "name", "phone", "number", "alarm",
         "set", "time", "open", "app", "note", "title", "body", "row", "list", "item", "expense",
         "amount", "date", "calendar", "event", "message", "send", "reply", "file", "folder")


def sentences(n: int, seed: int = 0) -> list[str]:
    """``n`` distinct strings of 4-30 words, about as long as candidate and row texts."""
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 30))) + f" {i}" for i in range(n)]


def main() -> None:
    import torch

    from droidverify.llm.embeddings import EMBED_DTYPES, choose_embed_dtype, embedder_path, load_embedder

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=512, help="strings per dtype")
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    texts = sentences(args.n)
    rate: dict[str, float] = {}
    for name in EMBED_DTYPES:
        model = load_embedder(dtype=name)
        model.encode(texts[:32], batch_size=32, show_progress_bar=False)  # warm-up
        t = time.perf_counter()
        model.encode(texts, batch_size=128, show_progress_bar=False)
        rate[name] = len(texts) / (time.perf_counter() - t)
    auto = choose_embed_dtype(load_embedder(dtype="float32"), embedder_path())
    print(f"threads {torch.get_num_threads()}, {args.n} strings per dtype")
    print("| dtype | strings/s |\n|---|---|")
    for name in EMBED_DTYPES:
        print(f"| {name} | {rate[name]:.1f} |")
    print(f"bfloat16 / float32: {rate['bfloat16'] / rate['float32']:.2f}x; auto picks {auto}")


if __name__ == "__main__":
    main()
