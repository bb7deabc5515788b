"""Do the compact policy's log-probs recomputed by the GRPO trainer equal the ones it played with?

GRPO's clipped ratio starts at exactly 1 only if the trainer scores each played step as the player
did. The player runs in worker processes with its own MiniLM embedding cache (bfloat16: a string
embedded in another batch can differ in the last bits), and the trainer rebuilds each step's view
from the trajectory (``training.policy_grpo.step_samples``). This plays ``--tasks`` train templates
``--group`` times each, in this process and on ``--workers`` worker processes, recomputes every
played step's log-prob in this process (eval mode, as ``PolicyGRPOTrainer.update`` does), and prints
the largest drift and the share of steps whose ratio already lies outside the clip range.

Run: ``python benchmarks/grpo_logp_drift.py [--policy DIR] [--tasks 3] [--group 2] [--workers 1]
[--clip-eps 0.2]`` (default policy: the shipped compact verifier; ``--finish submit`` re-saves it
as a self-verifying policy first, to cover submit candidates).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path


def drift(policy: str, backend: object | None, n_tasks: int, group: int, seed: int) -> list[float]:
    """Recomputed minus played log-prob of every played step."""
    import torch

    from droidverify.agents.verifier.compact.scorer import CompactScorer, batch_tensors
    from droidverify.runner.grpo import CompactPolicyPlayer
    from droidverify.tasks import registry
    from droidverify.training.grpo import GRPOConfig, rollout_groups
    from droidverify.training.policy_grpo import step_samples

    names = sorted(t.name for t in registry.templates_for_split("train"))[:n_tasks]
    tasks = [registry.get_template(n).instantiate(seed) for n in names]
    cfg = GRPOConfig(group_size=group, temperature=1.0, max_steps=10, reward="rule", seed=seed)
    groups = rollout_groups(tasks, cfg, player=CompactPolicyPlayer(policy), backend=backend)  # type: ignore[arg-type]
    scorer = CompactScorer.load(policy)
    scorer.net.eval()
    diffs: list[float] = []
    for g in groups:
        for m in g.members:
            samples = step_samples(m.trajectory, 0.0, 1.0, scorer.feature_version)
            if not samples:
                continue
            with torch.no_grad():
                logp = torch.log_softmax(scorer.net(**batch_tensors([s.view for s in samples], scorer.encoder)), -1)
            new = logp.gather(1, torch.tensor([s.chosen for s in samples])[:, None]).squeeze(1)
            diffs += (new - torch.tensor([s.old_logp for s in samples])).tolist()
    return diffs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policy", help="a compact verifier / policy directory (default: the shipped one)")
    ap.add_argument("--finish", choices=("keep", "submit"), default="keep")
    ap.add_argument("--tasks", type=int, default=3)
    ap.add_argument("--group", type=int, default=2)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--clip-eps", type=float, default=0.2)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()

    import math

    import torch

    from droidverify.agents.verifier.compact.scorer import CompactScorer
    from droidverify.agents.verifier.trained import shipped_compact_path
    from droidverify.runner.backends import LocalBackend

    torch.set_num_threads(1)
    policy = args.policy or str(shipped_compact_path())
    tmp = tempfile.TemporaryDirectory()
    if args.finish == "submit":
        s = CompactScorer.load(policy)
        meta = {k: v for k, v in s.meta.items() if k != "finish"}
        policy = str(CompactScorer(s.net, s.encoder, memory=s.memory, content=s.content, finish="submit",
                                   meta=meta).save(Path(tmp.name) / "policy"))
    print(f"{'played in':<22} {'steps':>6} {'max |dlogp|':>12} {'outside clip':>13}")
    for label, backend in (("this process", None), (f"{args.workers} worker process(es)",
                                                     LocalBackend(workers=args.workers))):
        diffs = drift(policy, backend, args.tasks, args.group, args.seed)
        n, worst = len(diffs), max((abs(d) for d in diffs), default=0.0)
        out = sum(abs(math.exp(d) - 1) > args.clip_eps for d in diffs)
        print(f"{label:<22} {n:>6} {worst:>12.4f} {out / max(n, 1):>13.3f}")


if __name__ == "__main__":
    main()
