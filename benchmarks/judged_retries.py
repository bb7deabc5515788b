"""Judged retries: success at the first attempt against success after up to K attempts.

Run: ``python benchmarks/judged_retries.py [--split validation] [--seeds 0] [--attempts 3]
[--judge rule] [--judge-model SPEC] [--max-tasks N] [--max-steps N] [--temperature T [--top-k K]]
[--retry-temperature T] [--agent-seed S] [--workers N] [--keep DIR]``.

The default verifier agent (the shipped compact verifier: no language model) plays every template of
the split x ``--seeds`` twice in this one run: once without retries (K = 1) and once with
``run_many(judge=..., attempts=K)``, each into a fresh run directory. The rule judge (default) is
the task's checker: a perfect judge, so its row is the upper bound of what retries can give. The
trained judges need no argument (``--judge compact``, ``lora``: the shipped ones; ``--judge-model
DIR`` another) and ``--judge confidence`` reads the verifier's own scores (``--judge-model FILE``: a
calibration of ``droidverify judge calibrate-confidence``; default the shipped verifier's). The LLM
methods (``--judge passive|smartsnap|prore|see``) need a model (``--judge-model``, default the
bundled one) and are slow on a CPU; they are selectable, not run by default.

Columns: success@1 (each episode scored by its first attempt), success@K (by its last: the run's
outcome), attempts used, the false-success rate (last attempts the judge called success whose
checker result is a failure, over the judged last attempts) and the ratio of success@K to the
success of the K = 1 run measured here. The compact verifier takes the argmax (``--temperature
0``): it replays a failed attempt action for action on the deterministic simulator, so without
``--temperature`` (or ``--retry-temperature``: the first attempt by argmax, the retries drawn) the
retries cost attempts and cannot change an outcome.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from droidverify.cli._common import parse_seeds
from droidverify.cli.judge import METHODS, JudgeSpec
from droidverify.rewards.base import judgement_key
from droidverify.rewards.store import JUDGEMENTS_FILE, read_judgements
from droidverify.runner.backends import make_backend
from droidverify.runner.factories import AgentSpec, EnvSpec, installed_app_names, resolve_verifier
from droidverify.runner.run import run_many
from droidverify.runner.store import attempt_key, attempt_of, episode_id, read_episodes
from droidverify.runner.summary import RetryStats, RunSummary
from droidverify.tasks import registry


def _run(out: Path, factory: AgentSpec, pairs: list[tuple[Any, int]], *, judge: JudgeSpec, attempts: int,
         max_steps: int | None, workers: int) -> tuple[RunSummary, float]:
    backend = make_backend(workers)
    t0 = time.perf_counter()
    try:
        summary = run_many(factory, pairs, out, env_factory=EnvSpec("sim"), progress=False, report=False,
                           max_steps=max_steps, judge=judge, attempts=attempts, backend=backend)
    finally:
        if backend is not None:
            backend.close()
    return summary, time.perf_counter() - t0


def _stats(out: Path, keys: list[str], judge: JudgeSpec, attempts: int) -> RetryStats:
    """The retry figures of a run directory, for K = 1 too (where the summary has none): the
    judge's verdict on each episode's last attempt against its checker result."""
    verdicts = {}
    for j in read_judgements(out / JUDGEMENTS_FILE):
        verdicts.setdefault(j.key, j.outcome)
    tries = read_episodes(out).attempts
    return RetryStats.from_attempts(
        [tries[k] for k in keys if k in tries], max_attempts=attempts, judge=f"{judge.name} ({judge.version})",
        outcome=lambda ep: verdicts.get(judgement_key(attempt_key(ep["episode_id"], attempt_of(ep)),
                                                      judge.name, judge.version)))


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", default="validation", choices=("train", "validation", "test"))
    ap.add_argument("--seeds", default="0")
    ap.add_argument("--attempts", type=int, default=3, help="K of the retried run (compared with K = 1)")
    ap.add_argument("--judge", default="rule", choices=METHODS,
                    help="the judge that decides the retries (rule: the checker, the upper bound)")
    ap.add_argument("--judge-model", default=None,
                    help="LLM judges: the judge's LLM (default: bundled); compact, lora: a trained judge directory; "
                         "confidence: a calibration file (default: the shipped one)")
    ap.add_argument("--max-tasks", type=int, default=None, help="only the first N templates of the split")
    ap.add_argument("--max-steps", type=int, default=None, help="step limit (default: each task's)")
    ap.add_argument("--temperature", type=float, default=0.0, help="draw actions from softmax(scores / T) "
                    "(0: argmax, the default agent)")
    ap.add_argument("--top-k", type=int, default=None)
    ap.add_argument("--retry-temperature", type=float, default=None,
                    help="draw the retries at T (the first attempt as --temperature says)")
    ap.add_argument("--agent-seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--keep", default=None, help="keep the two run directories under DIR")
    args = ap.parse_args()
    if args.attempts < 2:
        ap.error("--attempts must be >= 2 (it is compared with K = 1)")

    templates = list(registry.templates_for_split(args.split))[: args.max_tasks]
    pairs = [(t, s) for t in templates for s in parse_seeds(args.seeds)]
    verifier = resolve_verifier("compact", None)
    factory = AgentSpec("verifier", model=None, memory="diff", seed=args.agent_seed, apps=installed_app_names("sim"),
                        verifier=verifier, temperature=args.temperature, top_k=args.top_k,
                        retry_temperature=args.retry_temperature)
    judge = JudgeSpec(args.judge, model=args.judge_model)
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="dv-retries-"))
    print(f"{len(pairs)} episodes ({len(templates)} {args.split} templates x seeds {args.seeds}); agent: verifier "
          f"(compact, temperature {args.temperature:g}{f', top-k {args.top_k}' if args.top_k else ''}"
          f"{f', retries at {args.retry_temperature:g}' if args.retry_temperature else ''}); "
          f"judge {judge.name} ({judge.version})")
    keys = [episode_id(t.name, s) for t, s in pairs]
    rows: list[tuple[int, RunSummary, RetryStats, float]] = []
    factory()  # loads the compact verifier once (the spec keeps it), so neither timing includes the load
    try:
        for k in (1, args.attempts):
            summary, wall = _run(root / f"k{k}", factory, pairs, judge=judge, attempts=k, max_steps=args.max_steps,
                                 workers=args.workers)
            rows.append((k, summary, _stats(root / f"k{k}", keys, judge, k), wall))
            print(f"  K={k}: {wall:.0f} s")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)

    base, base_used = rows[0][1].success_rate, rows[0][2].attempts_used
    print()
    print("| judge | K | success@1 | success@K | attempts used | false-success rate | success@K / K=1 "
          "| attempts / K=1 | wall s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for k, s, r, wall in rows:
        ratio = f"{s.success_rate / base:.2f}" if base and s.success_rate is not None else "-"
        print(f"| {judge.name} | {k} | {_pct(r.success_at_1)} | {_pct(r.success_final)} | {r.attempts_used} "
              f"({r.mean_attempts or 0:.2f}/episode) | {_pct(r.false_success_rate)} "
              f"({r.false_successes}/{r.judged_final}) | {ratio} | {r.attempts_used / base_used:.2f} | {wall:.0f} |")
    if base == 0:
        print("(success@K / K=1: the K = 1 run solved nothing, no ratio)")
    if args.keep:
        print(f"\nrun directories: {root}/k1, {root}/k{args.attempts}")


if __name__ == "__main__":
    main()
