"""Verifier training experiment (issue: train the verifier).

Part ``success``: task success of verifiers on (a) train templates with unseen seeds (>= 1000),
(b) validation templates, (c) test templates, through ``droidverify run`` (one run directory per
verifier and split, resumable). Verifiers are named ``NAME=DIR`` (``NAME=none`` is the untrained
model scoring by normalised P(Yes)). The test split is for final figures only.

Part ``speed``: seconds per training record of the shared-prefix P^3 trainer vs a naive trainer
that runs every candidate's full prompt on its own (V-Droid's code), on the same records with the
same sampled negatives, measured in one run; prints the ratio (goal >= 5x).

Part ``steps``: held-out step accuracy of each ``--verifier`` on the first ``--records`` of
``--eval-file`` (shuffled with seed 0): top-1 over every candidate and pairwise; ``--breakdown``
by step index, label, source and prompt length; ``--completions`` also asks each verifier for the
content of every labelled ``open_app`` / ``input_text`` / ``answer`` candidate, as the agent asks
at inference, and counts exact matches with the label.

Part ``fit``: how fast a recipe fits a small set: the CPU recipe (``--lr``, ``--head-lr``,
``--head``, ``--lora-layers``, ``--negatives``, ``--loss`` override it) trains on ``--records`` training records for
``--fit-steps`` steps; top-1 and pairwise over every candidate on those same records and on 60
held-out records are printed every ``--eval-every`` steps. A recipe that cannot fit 100 records
will not fit 9,000; this ranks recipes in ~30 minutes each instead of a full run.

Part ``horizon``: what per-step top-1 the headline needs. A simulated verifier whose top-1 is
``p`` (each step: the oracle's action with probability ``p``, else a uniformly drawn candidate that
is neither the oracle's nor equivalent to it, content filled at random) runs every template of
``--splits`` for each ``p`` of ``--p-values``; no model is loaded. ``--errors independent`` draws
a mistake at every step, and the oracle steers back after each one; ``--errors per-state`` draws
it once per screen, so a screen the verifier gets wrong is got wrong on every visit, as a
deterministic argmax does. Both are optimistic (the right candidate always gets the right
generated text), so they bound what a verifier of that top-1 reaches.

Part ``draws``: what drawing actions from softmax(scores / T) over the top k (the verifier agent's
``--temperature`` / ``--top-k``) would give, read off a ``--part steps --per-record`` file (no model):
per T and k, the mean probability of drawing a right candidate, of drawing a wrong ``status`` /
``answer``, and of drawing a right one on the records whose argmax is wrong (what a revisit of
such a screen can gain).

Part ``head-scale``: how far one step of the vocabulary score head moves a score margin at a given
head learning rate, against the spread of the untrained scores (why the head's rate is 1e-5).

    python benchmarks/train_verifier.py --part speed --records 6
    python benchmarks/train_verifier.py --part fit --train-file DATA/train.jsonl --eval-file DATA/eval.jsonl \
        --records 100 --fit-steps 400
    python benchmarks/train_verifier.py --part head-scale --eval-file DATA/eval.jsonl --records 10
    python benchmarks/train_verifier.py --part horizon --splits validation:0-4 --p-values 0.33,0.6,0.9,1
    python benchmarks/train_verifier.py --part draws --per-record steps.jsonl --temperatures 0.5,1,2,3 --top-ks 0,2,3
    python benchmarks/train_verifier.py --part success --verifier untrained=none \\
        --verifier shipped=src/droidverify/agents/verifier/shipped --splits validation:0 --max-tasks 10
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def success(args: argparse.Namespace) -> None:
    rows = []
    for spec in args.verifier:
        name, _, vdir = spec.partition("=")
        row = {"verifier": name}
        for split_spec in args.splits.split(","):
            split, _, seeds = split_spec.partition(":")
            out = Path(args.out) / f"{name}-{split}"
            cmd = [sys.executable, "-m", "droidverify", "run", "--agent", "verifier", "--verifier", vdir or "none",
                   "--split", split, "--seeds", seeds or "0", "--out", str(out), "--no-progress",
                   "--device", args.device]
            if args.max_tasks:
                cmd += ["--max-tasks", str(args.max_tasks)]
            if args.max_steps:
                cmd += ["--max-steps", str(args.max_steps)]
            if args.workers:
                cmd += ["--workers", str(args.workers)]
            if args.avoid_repeats:
                cmd += ["--avoid-repeats"]
            if args.temperature:
                cmd += ["--temperature", str(args.temperature), "--agent-seed", str(args.agent_seed)]
                if args.top_k:
                    cmd += ["--top-k", str(args.top_k)]
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                print(proc.stderr[-3000:], file=sys.stderr)
                raise SystemExit(f"run failed: {' '.join(cmd)}")
            eps = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines() if line.strip()]
            eps = [e for e in eps if e.get("kind", "episode") == "episode"]
            solved = sum(1 for e in eps if (e.get("success") or 0) >= 1.0)
            row[split] = f"{solved}/{len(eps)} ({100 * solved / max(1, len(eps)):.1f}%)"
            row[f"{split}_s"] = f"{time.perf_counter() - t0:.0f}"
            print(json.dumps({"verifier": name, "split": split, "solved": solved, "episodes": len(eps)}), flush=True)
        rows.append(row)
    splits = [s.partition(":")[0] for s in args.splits.split(",")]
    print("\n| verifier | " + " | ".join(f"{s} solved" for s in splits) + " |")
    print("|---|" + "---|" * len(splits))
    for r in rows:
        print(f"| {r['verifier']} | " + " | ".join(r[s] for s in splits) + " |")


def speed(args: argparse.Namespace) -> None:
    from droidverify.llm.local import LocalLLM
    from droidverify.tasks import registry
    from droidverify.training.collection import collect
    from droidverify.training.loop import sim_apps
    from droidverify.training.p3 import P3Config, P3Trainer

    recs = list(collect(registry.tasks_for("train", [0]), split_of=registry.split_of, apps=sim_apps()))
    recs = recs[:: max(1, len(recs) // args.records)][: args.records]
    llm = LocalLLM(dtype=args.dtype, device=args.device)
    results = {}
    for naive in (False, True):
        cfg = P3Config(output_dir="/tmp/p3speed", train_file="", lora_layers=args.lora_layers,
                       max_negatives=args.negatives or 15, sft_weight=0.0, naive_forward=naive, max_steps=10 ** 6,
                       dtype=args.dtype, device=args.device)
        tr = P3Trainer(cfg, llm=llm, train_records=recs)
        tr.train_step()  # warm-up
        t0 = time.perf_counter()
        for _ in range(len(recs)):
            tr.train_step()
        results["naive" if naive else "shared-prefix"] = (time.perf_counter() - t0) / len(recs)
        tr.peft_model.unload()  # take the adapter out again so the next trainer starts clean
        llm.model = tr.peft_model.get_base_model() if hasattr(tr.peft_model, "get_base_model") else llm.model
    print(f"\n{len(recs)} records, {args.negatives or 15} negatives + 1 positive each, LoRA on "
          f"{args.lora_layers or 'all'} layers, {llm.dtype_name} on {args.device}")
    print("| trainer | seconds per record |\n|---|---|")
    for k, v in results.items():
        print(f"| {k} | {v:.2f} |")
    print(f"| ratio naive / shared-prefix | {results['naive'] / results['shared-prefix']:.2f}x |")


def steps(args: argparse.Namespace) -> None:
    """Held-out step accuracy: top-1 (the labelled action ranks first among all candidates) and
    pairwise accuracy, for each verifier on the same records."""
    import random

    from droidverify.agents.verifier.trained import apply_verifier
    from droidverify.llm.local import LocalLLM
    from droidverify.training.records import read_records

    recs = read_records(args.eval_file)
    random.Random(0).shuffle(recs)
    recs = recs[: args.records]
    print("| verifier | records | top-1 | pairwise |\n|---|---|---|---|")
    rows: list[dict[str, object]] = []
    completion_rows: list[tuple[str, dict[str, list[int]]]] = []
    for spec in args.verifier:
        name, _, vdir = spec.partition("=")
        llm = LocalLLM(dtype=args.dtype, device=args.device)
        head = apply_verifier(llm, vdir) if vdir and vdir != "none" else None
        top = pairs = correct = 0
        for r in recs:
            from droidverify.agents.verifier.agent import yes_probability
            from droidverify.agents.verifier.prompt import build_verification_prompt

            vp = build_verification_prompt(llm, goal=r.goal, memory=r.memory, ui=r.ui, descriptions=r.descriptions)
            res = llm.score(vp.prefix, vp.continuations)
            if head is None:
                s = [yes_probability(d["Yes"], d["No"]) for d in res.logprobs]
            else:
                s = [float(x) for x in head(res.logits).tolist()]
            won, vs, first = r.ranking(s)  # the trainer's own held-out measure
            correct, pairs, top = correct + won, pairs + vs, top + first
            best = max(range(len(s)), key=lambda i: (s[i], -i))
            rank = 1 + sum(s[i] > max(s[j] for j in r.correct) for i in r.negatives())
            rows.append({"verifier": name, "record": r.record_id, "top1": int(first), "won": won, "pairs": vs,
                         "rank": rank, "picked": json.loads(r.candidates[best])["action_type"],
                         "scores": s, "correct": sorted(r.correct),
                         "terminal": [i for i, c in enumerate(r.candidates)
                                      if json.loads(c)["action_type"] in ("status", "answer")],
                         **_facets(r, llm.count_tokens(vp.prefix))})
        print(f"| {name} | {len(recs)} | {top / len(recs):.3f} | {correct / pairs:.3f} |", flush=True)
        if args.completions:
            completion_rows.append((name, _completions(llm, head, recs)))
    for name, by_kind in completion_rows:
        print(f"\n{name}: generated content of the labelled candidate (exact match, case and outer "
              "spaces ignored)\n| kind | records | right |\n|---|---|---|")
        for kind, oks in sorted(by_kind.items()):
            print(f"| {kind} | {len(oks)} | {sum(oks)} ({sum(oks) / len(oks):.2f}) |")
    if args.breakdown:
        _print_breakdown(rows)
    if args.per_record:
        Path(args.per_record).write_text("".join(json.dumps(x) + "\n" for x in rows))


def _completions(llm: Any, head: Any, recs: list[Any]) -> dict[str, list[int]]:
    """Ask the agent for the content of each record's labelled placeholder candidate (app name,
    text, answer), as the agent asks at inference, and compare it with the label."""
    from droidverify.actions.model import Action
    from droidverify.agents.verifier import VerifierAgent
    from droidverify.runner.factories import installed_app_names

    agent = VerifierAgent(llm, head=head, apps=installed_app_names("sim"))
    by_kind: dict[str, list[int]] = {}
    for r in recs:
        if r.completion is None:
            continue
        agent.reset(r.goal)
        placeholder = Action.from_dict(json.loads(r.candidates[r.positive]))
        done, _, _ = agent.complete(placeholder, memory_text=r.memory, ui=r.ui, question=r.completion.question)
        got = "" if done is None else (done.app_name if r.completion.kind == "open_app" else done.text) or ""
        by_kind.setdefault(r.completion.kind, []).append(
            int(got.strip().casefold() == r.completion.target.strip().casefold()))
    return by_kind


def fit(args: argparse.Namespace) -> None:
    import random

    from droidverify.training.p3 import P3Config, P3Trainer
    from droidverify.training.records import read_records

    if not args.train_file or not args.eval_file:
        sys.exit("--part fit needs --train-file and --eval-file")
    recs = read_records(args.train_file)
    random.Random(5).shuffle(recs)
    small = recs[: args.records]
    held = read_records(args.eval_file)
    random.Random(0).shuffle(held)
    held = held[:60]
    overrides = {"max_steps": args.fit_steps, "learning_rate": args.lr, "lora_layers": args.lora_layers,
                 "loss": args.loss, "max_negatives": args.negatives, "head": args.head,
                 "head_learning_rate": args.head_lr}
    cfg = P3Config.cpu(str(Path(args.out) / "fit"), str(args.train_file), device=args.device, dtype=args.dtype,
                       max_minutes=None, **{k: v for k, v in overrides.items() if v is not None})
    if cfg.lora_layers == 0:
        cfg.lora_layers = None
    cfg.validate()
    tr = P3Trainer(cfg, train_records=small, eval_records=[])
    print(f"{len(small)} records, {cfg.max_steps} steps, lr {cfg.learning_rate}, LoRA on "
          f"{cfg.lora_layers or 'all'} layers, {cfg.loss} loss, {cfg.max_negatives} negatives, "
          f"{cfg.head} head at lr {cfg.head_learning_rate}")
    print("| step | passes | minutes | top-1 (trained on) | pairwise (trained on) | top-1 (held-out 60) | pairwise (held-out) |"
          "\n|---|---|---|---|---|---|---|")
    t0 = time.perf_counter()
    for step in range(1, cfg.max_steps + 1):
        tr.train_step()
        if step % args.eval_every == 0 or step == cfg.max_steps:
            a, b = tr.evaluate(small), tr.evaluate(held)
            print(f"| {step} | {step / len(small):.1f} | {(time.perf_counter() - t0) / 60:.1f} | {a['top1']:.2f} | "
                  f"{a['pair_acc']:.2f} | {b['top1']:.2f} | {b['pair_acc']:.2f} |", flush=True)


def head_scale(args: argparse.Namespace) -> None:
    """How far one AdamW step of the vocabulary head moves a score margin, against the spread of
    the untrained scores: AdamW's first step moves every one of the ~49k head weights by ~lr, so a
    margin moves by ~lr * sum over the vocabulary of |logit(pos) - logit(neg)|."""
    import random
    import statistics

    import torch

    from droidverify.agents.verifier.prompt import build_verification_prompt
    from droidverify.llm.local import LocalLLM
    from droidverify.training.records import read_records

    if not args.eval_file:
        sys.exit("--part head-scale needs --eval-file")
    llm = LocalLLM(dtype=args.dtype, device=args.device)
    yes, no = llm.target_ids(("Yes", "No"))
    recs = read_records(args.eval_file)
    random.Random(1).shuffle(recs)
    sums, spreads = [], []
    for rec in recs[: args.records]:
        vp = build_verification_prompt(llm, goal=rec.goal, memory=rec.memory, ui=rec.ui, descriptions=rec.descriptions)
        fulls, k = llm.split_shared(vp.prefix, vp.continuations)
        with torch.inference_mode():
            logits = llm._head(llm.candidate_hidden(fulls, k)).float()
        diff = (logits - logits[rec.positive]).abs().sum(1)
        sums.append(float(diff[torch.arange(len(diff)) != rec.positive].median()))
        spreads.append(float((logits[:, yes] - logits[:, no]).std()))
    s, sp = statistics.median(sums), statistics.median(spreads)
    print(f"{len(sums)} records: median sum|logit(pos) - logit(neg)| over the vocabulary {s:.0f}; "
          f"median std of the untrained Yes-No scores {sp:.3f}")
    print("| head lr | margin moved by one step (~lr x sum) | ratio to the untrained score spread |\n|---|---|---|")
    for lr in (1e-3, 1e-4, 1e-5):
        print(f"| {lr:g} | {lr * s:.2f} | {lr * s / sp:.1f}x |")


class _SimulatedVerifier:
    """Takes the oracle's action with probability ``p``, else a wrong candidate (see ``horizon``)."""

    name = "simulated-verifier"

    def __init__(self, p: float, rng: Any, apps: list[str], per_state: bool = False) -> None:
        from droidverify.agents.oracle import OracleAgent

        self.p, self.rng, self.apps, self.per_state = p, rng, apps, per_state
        self.oracle = OracleAgent()
        self.mistakes = 0

    def bind(self, env: Any, task: Any) -> None:
        self.env, self.task = env, task
        self.oracle.bind(env, task)

    def reset(self, goal: str) -> None:
        self.oracle.reset(goal)

    def act(self, observation: Any, history: list[Any]) -> Any:
        import hashlib
        import random

        from droidverify.actions.model import Action
        from droidverify.agents.base import AgentOutput
        from droidverify.agents.screen import needs_completion
        from droidverify.agents.verifier.candidates import extract_candidates
        from droidverify.training.collection import equivalent_candidates, match_candidate

        right = self.oracle.act(observation, history).action
        rng = self.rng
        if self.per_state:  # a deterministic verifier: the same screen gets the same choice every visit
            key = hashlib.sha256(observation.xml.encode()).hexdigest()
            rng = random.Random(f"{self.p}:{self.task.id}:{self.task.seed}:{key}")
        if rng.random() < self.p:
            return AgentOutput(action=right, info={"mistake": False})
        cands = extract_candidates(observation, apps=self.apps)
        pos = match_candidate(right, cands, observation.elements)
        same = set(equivalent_candidates(self.env.phone, self.task, right, cands, pos)) if pos is not None else set()
        wrong = [c for i, c in enumerate(cands) if i != pos and i not in same]
        if not wrong:
            return AgentOutput(action=right, info={"mistake": False})
        c = rng.choice(wrong)
        if needs_completion(c):
            if c.action_type == "open_app":
                c = Action(action_type="open_app", app_name=rng.choice(
                    [a for a in self.apps if a != right.app_name] or self.apps))
            else:
                c = Action(action_type=c.action_type, index=c.index,
                           text=rng.choice(["hello", "12", "Anna", "note", "yes"]))
        self.mistakes += 1
        return AgentOutput(action=c, info={"mistake": True})


def horizon(args: argparse.Namespace) -> None:
    import random

    from droidverify.cli._common import parse_seeds
    from droidverify.runner.episode import run_episode
    from droidverify.runner.factories import installed_app_names, make_env
    from droidverify.tasks.registry import tasks_for

    apps = installed_app_names("sim")
    tasks = []
    for split_spec in args.splits.split(","):
        split, _, seeds = split_spec.partition(":")
        tasks += tasks_for(split, parse_seeds(seeds or "0"))

    def episode(task: Any, p: float) -> tuple[Any, int]:
        agent = _SimulatedVerifier(p, random.Random(f"horizon:{p}:{task.id}:{task.seed}"), apps,
                                   per_state=args.errors == "per-state")
        env = make_env("sim", task=task, seed=task.seed)
        try:
            return run_episode(agent, env, task), agent.mistakes
        finally:
            env.close()

    # Bucket tasks by the oracle's path length (p = 1), the number of right steps in a row needed.
    length = {(t.id, t.seed): len(episode(t, 1.0)[0].steps) for t in tasks}
    buckets = (("<= 4", 0, 4), ("5-8", 5, 8), (">= 9", 9, 10**6))
    rows = []
    for p in [float(x) for x in args.p_values.split(",")]:
        solved = steps = mistakes = 0
        by_len: dict[str, list[int]] = {b[0]: [] for b in buckets}
        for task in tasks:
            traj, m = episode(task, p)
            ok = int((traj.success or 0) >= 1.0)
            solved, steps, mistakes = solved + ok, steps + len(traj.steps), mistakes + m
            n = length[(task.id, task.seed)]
            by_len[next(b[0] for b in buckets if b[1] <= n <= b[2])].append(ok)
        rows.append((p, solved, steps, mistakes, by_len))
        print(json.dumps({"p": p, "solved": solved, "episodes": len(tasks), "steps": steps,
                          "mistakes": mistakes}), flush=True)
    print(f"\n{len(tasks)} episodes per row ({args.splits}); {args.errors} mistakes, uniform over wrong candidates; "
          "columns by the oracle's path length")
    print("| per-step top-1 p | success | " + " | ".join(f"path {b[0]}" for b in buckets)
          + " | steps | mistakes |")
    print("|---|---|" + "---|" * len(buckets) + "---|---|")
    for p, solved, steps, mistakes, by_len in rows:
        cells = " | ".join(f"{sum(v)}/{len(v)}" for v in by_len.values())
        print(f"| {p:.2f} | {solved}/{len(tasks)} ({solved / len(tasks):.2f}) | {cells} | {steps} | {mistakes} |")


def _facets(r: Any, prefix_tokens: int) -> dict[str, object]:
    """What a held-out step is, for the breakdown: where in the episode, what the label does, how long."""
    label = json.loads(r.candidates[r.positive])["action_type"]
    length = "<700" if prefix_tokens < 700 else "700-1099" if prefix_tokens < 1100 else ">=1100"
    return {"step": "0" if r.step == 0 else "1-2" if r.step <= 2 else "3+", "label": label,
            "source": r.source, "prefix": length, "prefix_tokens": prefix_tokens,
            "candidates": len(r.candidates)}


def _print_breakdown(rows: list[dict[str, object]]) -> None:
    """Top-1 and pairwise accuracy per facet value, per verifier (held-out steps); then, for the
    steps each verifier got wrong, what it picked instead and where the right action ranked."""
    from collections import Counter, defaultdict

    print("\n| verifier | wrong steps | picked instead (action type: steps) | rank of the right action: median, <= 3 |"
          "\n|---|---|---|---|")
    for name in dict.fromkeys(str(x["verifier"]) for x in rows):
        wrong = [x for x in rows if x["verifier"] == name and not x["top1"]]
        if not wrong:
            continue
        picked = Counter(str(x["picked"]) for x in wrong).most_common()
        ranks = sorted(int(x["rank"]) for x in wrong)  # type: ignore[call-overload]
        print(f"| {name} | {len(wrong)} | {', '.join(f'{k}: {v}' for k, v in picked)} | "
              f"{ranks[len(ranks) // 2]}, {sum(r <= 3 for r in ranks) / len(ranks):.2f} |")

    for facet in ("step", "label", "source", "prefix"):
        groups: dict[tuple[str, str], list[dict[str, object]]] = defaultdict(list)
        for x in rows:
            groups[(str(x["verifier"]), str(x[facet]))].append(x)
        print(f"\n| verifier | {facet} | records | top-1 | pairwise |\n|---|---|---|---|---|")
        for (name, value), xs in sorted(groups.items()):
            won = sum(int(x["won"]) for x in xs)  # type: ignore[call-overload]
            pairs = sum(int(x["pairs"]) for x in xs)  # type: ignore[call-overload]
            top = sum(int(x["top1"]) for x in xs)  # type: ignore[call-overload]
            print(f"| {name} | {value} | {len(xs)} | {top / len(xs):.3f} | {won / max(1, pairs):.3f} |")


def draws(args: argparse.Namespace) -> None:
    import math

    if not args.per_record:
        raise SystemExit("--part draws reads a --per-record file written by --part steps")
    rows = [json.loads(line) for line in Path(args.per_record).read_text().splitlines() if line.strip()]
    if not rows or "scores" not in rows[0]:
        raise SystemExit(f"{args.per_record}: no per-record scores (write it with this version of --part steps)")

    def probs(scores: list[float], t: float, k: int) -> dict[int, float]:
        order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
        if t <= 0:
            return {order[0]: 1.0}
        pool = order[:k] if k else order
        top = max(scores[i] for i in pool)
        w = {i: math.exp((scores[i] - top) / t) for i in pool}
        z = sum(w.values())
        return {i: v / z for i, v in w.items()}

    names = sorted({r["verifier"] for r in rows})
    print("| verifier | T | top-k | P(right) | P(wrong status/answer) | P(right) where the argmax is wrong |")
    print("|---|---|---|---|---|---|")
    grid = [(0.0, 0)] + [(float(t), int(k)) for t in args.temperatures.split(",") for k in args.top_ks.split(",")]
    for name in names:
        mine = [r for r in rows if r["verifier"] == name]
        missed = [r for r in mine if not r["top1"]]
        for t, k in grid:
            right, wrong_end, recover = (_mass(mine, t, k, "right", probs), _mass(mine, t, k, "terminal", probs),
                                         _mass(missed, t, k, "right", probs))
            print(f"| {name} | {t:g} | {k or 'all'} | {right:.3f} | {wrong_end:.3f} "
                  f"| {recover:.3f} |")


def _mass(rows: list[dict[str, Any]], t: float, k: int, which: str, probs: Any) -> float:
    """Mean probability of drawing a right candidate (``which="right"``) or a wrong terminal one."""
    total = 0.0
    for r in rows:
        ok = set(r["correct"])
        target = ok if which == "right" else set(r["terminal"]) - ok
        total += sum(v for i, v in probs(r["scores"], t, k).items() if i in target)
    return total / max(1, len(rows))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=("success", "speed", "steps", "fit", "head-scale", "horizon", "draws"), required=True)
    ap.add_argument("--verifier", action="append", default=[], help="NAME=DIR or NAME=none (repeat)")
    ap.add_argument("--splits", default="train:1000,validation:0,test:0", help="split:seeds,...")
    ap.add_argument("--max-tasks", type=int, default=None)
    ap.add_argument("--max-steps", type=int, default=None, help="cap episode length (default: each task's)")
    ap.add_argument("--workers", default=None, help="episodes run in parallel (droidverify run --workers)")
    ap.add_argument("--avoid-repeats", action="store_true", help="success: run the verifier agent with "
                    "--avoid-repeats")
    ap.add_argument("--temperature", type=float, default=0.0, help="success: run the verifier agent with "
                    "--temperature T (draw actions instead of the argmax)")
    ap.add_argument("--top-k", type=int, default=None, help="success: with --temperature, --top-k K")
    ap.add_argument("--agent-seed", type=int, default=0, help="success: with --temperature, the draws' seed")
    ap.add_argument("--eval-file", default=None, help="held-out records for --part steps")
    ap.add_argument("--out", default="runs/bench-train-verifier")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--dtype", default="auto")
    ap.add_argument("--records", type=int, default=6)
    ap.add_argument("--breakdown", action="store_true", help="steps: top-1 per step index, label type, "
                    "source and prefix length")
    ap.add_argument("--completions", action="store_true", help="steps: also generate the content of each "
                    "record's labelled open_app / input_text / answer candidate and compare it with the label")
    ap.add_argument("--per-record", default=None, help="steps: write each record's result as JSONL here")
    ap.add_argument("--negatives", type=int, default=None, help="speed (default 15), fit (default: the recipe's)")
    ap.add_argument("--lora-layers", type=int, default=None, help="speed, fit: LoRA on the last N layers (0 = all)")
    ap.add_argument("--train-file", default=None, help="fit: training records")
    ap.add_argument("--fit-steps", type=int, default=400, help="fit: optimizer steps")
    ap.add_argument("--eval-every", type=int, default=100, help="fit: steps between evaluations")
    ap.add_argument("--lr", type=float, default=None, help="fit: LoRA learning rate (default: the CPU recipe's)")
    ap.add_argument("--loss", default=None, help="fit: pairwise or listwise (default: the CPU recipe's)")
    ap.add_argument("--head", default=None, help="fit: linear or yesno (default: the CPU recipe's)")
    ap.add_argument("--head-lr", type=float, default=None, help="fit: score head learning rate (default: the CPU recipe's)")
    ap.add_argument("--p-values", default="0.33,0.5,0.7,0.8,0.9,0.95,1",
                    help="horizon: per-step top-1 values to simulate")
    ap.add_argument("--errors", choices=("independent", "per-state"), default="independent",
                    help="horizon: a mistake drawn at every step, or once per screen (the same wrong choice "
                    "on every visit, as a deterministic argmax makes it)")
    ap.add_argument("--temperatures", default="0.5,1,2,3", help="draws: temperatures (0 = argmax, always shown)")
    ap.add_argument("--top-ks", default="0,2,3", help="draws: top-k values (0 = every candidate)")
    args = ap.parse_args()
    {"draws": draws, "horizon": horizon, "success": success, "speed": speed, "steps": steps, "fit": fit, "head-scale": head_scale}[args.part](args)


if __name__ == "__main__":
    main()
