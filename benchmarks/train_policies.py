"""Policies trained the papers' ways at one data budget (issue 22): SFT, P^3, ASL (exact semantics,
SEE with the learned world model, SEE thresholded) on the compact policy.

Every objective trains the same network (the compact verifier's defaults) on the same record file
(``--data DIR/train.jsonl``), then is measured:

- per-step top-1 on held-out records (``DIR/eval.jsonl``: validation templates; equivalents count);
- task success with ``droidverify run --agent verifier --verifier <it>`` (greedy) on train templates
  at unseen seeds (``--unseen-seed``, first ``--max-tasks``) and on validation templates (seed 0);
  the test split only with ``--test`` (final figures, once);
- ASL's out-of-distribution claim (``--holdout-app APP``): SFT and ASL retrained without any template
  that uses APP, scored on APP's records in the train file (per step) and APP's train and validation
  templates (success).

Prints a Markdown table and writes ``OUT/results.json``. Every training and run resumes in ``OUT``.

    python benchmarks/train_policies.py --data DATA --out runs/policies --holdout-app Expenses
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

OBJECTIVES = {
    "sft": {"objective": "sft"},
    "p3": {"objective": "p3"},
    "asl-exact": {"objective": "asl", "reward": "exact"},
    "asl-see": {"objective": "asl", "reward": "see-learned"},
    "asl-see-tau": {"objective": "asl", "reward": "see-learned", "tau": 0.6},
}


def _cli() -> list[str]:
    return [str(Path(sys.executable).parent / "droidverify")]  # the console script of this interpreter


def _templates_using(app: str) -> set[str]:
    from droidverify.tasks import registry

    return {t.name for t in registry.all_templates() if app in t.apps}


def _train(name: str, spec: dict[str, Any], train: Path, ev: Path, out: Path, epochs: int | None,
           seed: int) -> tuple[Path, dict[str, Any], float]:
    verifier = out / "verifier"
    t0 = time.perf_counter()
    if not (verifier / "verifier.json").is_file():
        if spec["objective"] == "p3":
            cmd = [*_cli(), "train", "compact", "--train", str(train), "--eval", str(ev), "--out", str(out),
                   "--seed", str(seed)]
        else:
            cmd = [*_cli(), "train", "policy", "--objective", spec["objective"], "--train", str(train), "--eval",
                   str(ev), "--out", str(out), "--seed", str(seed)]
            if spec["objective"] == "asl":
                cmd += ["--reward", spec["reward"]]
                if spec.get("tau") is not None:
                    cmd += ["--tau", str(spec["tau"])]
        if epochs:
            cmd += ["--epochs", str(epochs)]
        print(f"[{name}] {' '.join(cmd[1:])}", flush=True)
        subprocess.run(cmd, check=True)
    result = json.loads((out / "result.json").read_text())
    return verifier, result, time.perf_counter() - t0


def _success(verifier: Path, out: Path, *, split: str | None = None, tasks: list[str] | None = None,
             seeds: str, max_tasks: int | None = None) -> dict[str, Any]:
    cmd = [*_cli(), "run", "--agent", "verifier", "--verifier", str(verifier), "--seeds", seeds, "--out", str(out),
           "--no-progress", "--workers", "2"]
    cmd += ["--tasks", ",".join(tasks)] if tasks else ["--split", str(split)]
    if max_tasks:
        cmd += ["--max-tasks", str(max_tasks)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    s = json.loads((out / "summary.json").read_text())["overall"]
    return {"solved": s["solved"], "episodes": s["episodes"], "success": s["solved"] / max(s["episodes"], 1)}


def _step_top1(verifier: Path, records: Path) -> dict[str, Any]:
    from droidverify.agents.verifier.compact.scorer import CompactScorer
    from droidverify.training.compact import examples_of, rank_metrics
    from droidverify.training.loop import sim_apps
    from droidverify.training.records import read_records

    scorer = CompactScorer.load(verifier)
    examples = examples_of(read_records(records), sim_apps(), scorer.content, scorer.feature_version)
    m = rank_metrics(scorer.score_views([ex.view for ex in examples]), examples)
    return {"records": m["records"], "top1": m["top1"]}


def _judged_run(verifier: Path, out: Path, *, split: str, seeds: str, max_tasks: int | None = None) -> dict[str, Any]:
    """Greedy success of a self-verifying policy, with the compact evidence judge's verdict on each
    episode: judged success, agreement with the checker, evidences per submit."""
    cmd = [*_cli(), "run", "--agent", "verifier", "--verifier", str(verifier), "--split", split, "--seeds", seeds,
           "--out", str(out), "--no-progress", "--workers", "2", "--judge", "compact"]
    if max_tasks:
        cmd += ["--max-tasks", str(max_tasks)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    episodes = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines() if x.strip()]
    judgements = {}
    jfile = out / "judgements.jsonl"
    if jfile.is_file():
        for x in jfile.read_text().splitlines():
            if x.strip():
                j = json.loads(x)
                judgements[j.get("episode_id")] = j
    solved = agree = judged = evid = subs = 0
    for e in episodes:
        ok = (e.get("success") or 0.0) >= 1.0
        solved += ok
        actions = e.get("actions") or []
        last = json.loads(actions[-1]) if actions and actions[-1] else {}
        if last.get("action_type") == "submit":
            subs += 1
            evid += len(last.get("evidences") or [])
        j = judgements.get(e.get("episode_id"))
        if j and j.get("outcome") in ("success", "failure"):
            judged += 1
            agree += (j["outcome"] == "success") == ok
    n = max(len(episodes), 1)
    return {"solved": solved, "episodes": len(episodes), "success": solved / n, "submits": subs,
            "evidences_per_submit": evid / max(subs, 1), "judged": judged, "judge_agreement": agree / max(judged, 1)}


def part_grpo(args: argparse.Namespace) -> dict[str, Any]:
    """SFT warm start on self-verifying records, then GRPO with each reward; success before and after."""
    out = args.out / "grpo"
    out.mkdir(parents=True, exist_ok=True)
    warm = out / "sft-warm"
    if not (warm / "verifier" / "verifier.json").is_file():
        subprocess.run([*_cli(), "train", "policy", "--objective", "sft", "--finish", "submit", "--train",
                        str(args.grpo_data), "--eval", str(args.data / "eval.jsonl"), "--out", str(warm),
                        "--seed", str(args.seed)], check=True)
    res: dict[str, Any] = {"sft": {}}
    for split, seeds, mt in (("train", str(args.unseen_seed), args.max_tasks), ("validation", "0", None)):
        res["sft"][split] = _judged_run(warm / "verifier", warm / f"run-{split}", split=split, seeds=seeds, max_tasks=mt)
    print(f"[grpo] sft warm start: {json.dumps(res['sft'])}", flush=True)
    for reward in [r for r in args.grpo_rewards.split(",") if r]:
        d = out / f"grpo-{reward}"
        t0 = time.perf_counter()
        if not (d / "verifier" / "verifier.json").is_file():
            subprocess.run([*_cli(), "train", "policy-grpo", "--init", str(warm / "verifier"), "--out", str(d),
                            "--reward", reward, "--iterations", str(args.grpo_iterations), "--tasks-per-iteration",
                            str(args.grpo_tasks), "--max-minutes", str(args.grpo_minutes), "--workers", "2",
                            "--seed", str(args.seed)], check=True)
        log = [json.loads(x) for x in (d / "log.jsonl").read_text().splitlines() if x.strip()]
        res[f"grpo-{reward}"] = {"iterations": len(log), "seconds": round(sum(e["seconds"] for e in log), 1),
                                 "wall_seconds_this_run": round(time.perf_counter() - t0, 1),
                                 "first_iteration": log[0] if log else None, "last_iteration": log[-1] if log else None}
        for split, seeds, mt in (("train", str(args.unseen_seed), args.max_tasks), ("validation", "0", None)):
            res[f"grpo-{reward}"][split] = _judged_run(d / "verifier", d / f"run-{split}", split=split, seeds=seeds,
                                                       max_tasks=mt)
        print(f"[grpo] {reward}: {json.dumps(res[f'grpo-{reward}'])}", flush=True)
    return res


def _fmt(x: dict[str, Any] | None) -> str:
    return "-" if not x else f"{x['success']:.1%} ({x['solved']}/{x['episodes']})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True, help="Directory with train.jsonl and eval.jsonl.")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--objectives", default=",".join(OBJECTIVES), help=f"Of {', '.join(OBJECTIVES)}.")
    ap.add_argument("--epochs", type=int, default=None, help="Default: the compact verifier's.")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--unseen-seed", type=int, default=1000)
    ap.add_argument("--max-tasks", type=int, default=40, help="Train templates at the unseen seed: the first N.")
    ap.add_argument("--holdout-app", default=None, help="e.g. Expenses: ASL's out-of-distribution experiment.")
    ap.add_argument("--holdout-objectives", default="sft,asl-exact,asl-see")
    ap.add_argument("--test", action="store_true", help="Also the test split (final figures only).")
    ap.add_argument("--grpo-data", type=Path, default=None, help="Self-verifying warm-start records (`train "
                    "sv-data`): run the GRPO part (SFT warm start, then GRPO per --grpo-rewards).")
    ap.add_argument("--grpo-rewards", default="smartsnap,rule")
    ap.add_argument("--grpo-iterations", type=int, default=40)
    ap.add_argument("--grpo-tasks", type=int, default=8, help="Tasks per GRPO iteration (x 8 episodes).")
    ap.add_argument("--grpo-minutes", type=float, default=30.0)
    ap.add_argument("--only-grpo", action="store_true", help="Skip the objectives and the held-out app.")
    args = ap.parse_args()

    from droidverify.tasks import registry

    train, ev = args.data / "train.jsonl", args.data / "eval.jsonl"
    args.out.mkdir(parents=True, exist_ok=True)
    names = [n for n in args.objectives.split(",") if n]
    unknown = [n for n in names if n not in OBJECTIVES]
    if unknown:
        ap.error(f"unknown objectives {unknown}")
    rows: dict[str, Any] = {}
    started = time.strftime("%Y-%m-%d %H:%M")
    if args.only_grpo:
        names, args.holdout_app = [], None
    for name in names:
        d = args.out / name
        if OBJECTIVES[name].get("reward", "").startswith("see"):
            # the semantic table is the same for every SEE variant: computed once
            for other in names:
                cache = args.out / other / "rewards-see-learned.json"
                if other != name and cache.is_file() and not (d / cache.name).is_file():
                    d.mkdir(parents=True, exist_ok=True)
                    shutil.copy(cache, d / cache.name)
        verifier, result, secs = _train(name, OBJECTIVES[name], train, ev, d, args.epochs, args.seed)
        row = {"val_top1": result["eval"]["top1"], "train_seconds": round(secs, 1), "epochs": result["epochs"],
               "train_records": result["train_records"],
               "success_train_unseen": _success(verifier, d / "run-train-unseen", split="train",
                                                seeds=str(args.unseen_seed), max_tasks=args.max_tasks),
               "success_validation": _success(verifier, d / "run-validation", split="validation", seeds="0")}
        if args.test:
            row["success_test"] = _success(verifier, d / "run-test", split="test", seeds="0")
        rows[name] = row
        print(f"[{name}] {json.dumps(row)}", flush=True)

    held: dict[str, Any] = {}
    if args.holdout_app:
        app = args.holdout_app
        using = _templates_using(app)
        if not using:
            ap.error(f"no template uses an app named {app!r}")
        hd = args.out / f"holdout-{app}"
        hd.mkdir(parents=True, exist_ok=True)
        without, only = hd / "train-without.jsonl", hd / "records-of-app.jsonl"
        if not without.is_file():
            with open(train, encoding="utf-8") as f, open(without, "w") as w, open(only, "w") as o:
                for line in f:
                    (o if json.loads(line)["task_id"] in using else w).write(line)
        app_train = sorted(t for t in using if registry.split_of(t) == "train")
        app_val = sorted(t for t in using if registry.split_of(t) == "validation")
        for name in [n for n in args.holdout_objectives.split(",") if n]:
            d = hd / name
            if OBJECTIVES[name].get("reward", "").startswith("see"):
                cache = args.out / name / "rewards-see-learned.json"
                if cache.is_file() and not (d / cache.name).is_file():
                    d.mkdir(parents=True, exist_ok=True)
                    shutil.copy(cache, d / cache.name)
            verifier, result, secs = _train(f"holdout/{name}", OBJECTIVES[name], without, ev, d, args.epochs, args.seed)
            held[name] = {"app_records_top1": _step_top1(verifier, only),
                          "success_app_train_templates": _success(verifier, d / "run-app-train", tasks=app_train,
                                                                  seeds=str(args.unseen_seed)),
                          "success_app_validation_templates": (_success(verifier, d / "run-app-val", tasks=app_val,
                                                                        seeds="0") if app_val else None)}
            print(f"[holdout/{name}] {json.dumps(held[name])}", flush=True)

    grpo = part_grpo(args) if args.grpo_data else {}
    out = {"date": started, "data": str(args.data), "args": {k: str(v) for k, v in vars(args).items()},
           "objectives": rows, "holdout": held, "grpo": grpo}
    name = f"results-grpo-{args.grpo_rewards.replace(',', '-')}.json" if args.only_grpo else "results.json"
    (args.out / name).write_text(json.dumps(out, indent=1))
    print(f"\n| objective | val top-1 | success train@{args.unseen_seed} | success validation | "
          + ("success test | " if args.test else "") + "train s |")
    print("|---|---|---|---|" + ("---|" if args.test else "") + "---|")
    for name, r in rows.items():
        print(f"| {name} | {r['val_top1']:.3f} | {_fmt(r['success_train_unseen'])} | {_fmt(r['success_validation'])} | "
              + (f"{_fmt(r.get('success_test'))} | " if args.test else "") + f"{r['train_seconds']:.0f} |")
    if grpo:
        print("\n| self-verifying policy | success train@unseen | success validation | judge agrees | evidences/submit |")
        print("|---|---|---|---|---|")
        for name, r in grpo.items():
            tr, va = r["train"], r["validation"]
            print(f"| {name} | {_fmt(tr)} | {_fmt(va)} | {va['judge_agreement']:.2f} ({va['judged']}) | "
                  f"{va['evidences_per_submit']:.2f} |")
    if held:
        print(f"\nHeld-out app {args.holdout_app} (trained without it):\n")
        print("| objective | top-1 on its records | success, its train templates | success, its validation templates |")
        print("|---|---|---|---|")
        for name, r in held.items():
            print(f"| {name} | {r['app_records_top1']['top1']:.3f} ({r['app_records_top1']['records']}) | "
                  f"{_fmt(r['success_app_train_templates'])} | {_fmt(r['success_app_validation_templates'])} |")


if __name__ == "__main__":
    main()
