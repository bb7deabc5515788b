"""Text by selection: how often the value the oracle types / answers / opens is among the proposals.

For every template of each split and every seed, the oracle's episode is stepped in the simulator
(as ``droidverify.training.collection`` does). At each step whose oracle action is ``input_text``,
``answer`` or ``open_app``, the screen's candidates (``extract_candidates``) are expanded with
``expand_candidates`` and the oracle's value is looked up among the expanded candidates of that
kind (for ``input_text``: on the same field). Coverage is reported exactly and case-insensitively,
with the working memory the verifier sees (``--memory``: ``diff`` as the shipped verifier, or
``notes``) and with no memory at all.

    python benchmarks/proposal_coverage.py --seeds 0-2 --splits train,validation,test

Tune the proposer on ``train`` only; ``validation`` and ``test`` are reported, never tuned on.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

KINDS = ("input_text", "answer", "open_app")


@dataclass
class Tally:
    steps: int = 0
    covered: int = 0  # exact, with memory
    covered_ci: int = 0  # case-insensitive, with memory
    covered_nomem: int = 0  # exact, memory ""
    proposals: list[int] = field(default_factory=list)  # concrete candidates per placeholder
    ranks: list[int] = field(default_factory=list)  # 1-based position of the value when covered
    missed: list[tuple[str, str, str]] = field(default_factory=list)  # (task, goal, value)


def parse_seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.strip().partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def _values(expanded, kind: str, index: int | None) -> list[str]:
    """The concrete values of ``kind`` among ``expanded`` (input_text: on element ``index``)."""
    from droidverify.agents.screen import needs_completion

    out = []
    for a in expanded:
        if a.action_type != kind or needs_completion(a):
            continue
        if kind == "input_text" and index is not None and a.index != index:
            continue
        out.append(a.app_name if kind == "open_app" else a.text)
    return out


def run_split(split: str, seeds: list[int], apps: list[str], limit: int, memory_name: str = "diff",
              derived: bool = False) -> dict[str, Tally]:
    from droidverify.actions.model import Action
    from droidverify.agents.verifier.candidates import extract_candidates
    from droidverify.agents.verifier.memory import make_memory
    from droidverify.agents.verifier.proposals import expand_candidates
    from droidverify.env.records import Step
    from droidverify.env.sim import SimEnv
    from droidverify.tasks import registry

    tallies = {k: Tally() for k in KINDS}
    for task in registry.tasks_for(split, seeds):
        env = SimEnv(task=task, seed=task.seed)
        obs = env.reset()
        memory = make_memory(memory_name)
        memory.reset(task.goal)
        history: list[Step] = []
        answered = False
        for index in range(task.max_steps):
            try:
                oracle = task.oracle_action(env.phone, obs)
            except Exception as exc:  # noqa: BLE001 -- a broken oracle ends its episode, as in collection
                print(f"  oracle error in {task.id}: {type(exc).__name__}: {exc}", file=sys.stderr)
                break
            if answered and oracle.action_type == "answer":
                oracle = Action(action_type="status", goal_status="complete")
            if oracle.action_type in KINDS:
                memory.update(history, obs)
                mem_text = memory.render()
                cands = extract_candidates(obs, apps=apps)
                t = tallies[oracle.action_type]
                want = oracle.app_name if oracle.action_type == "open_app" else oracle.text
                got = {}
                for label, mem in (("mem", mem_text), ("nomem", "")):
                    expanded = expand_candidates(cands, obs.elements, task.goal, mem, apps, limit=limit,
                                                 derived=derived)
                    got[label] = _values(expanded, oracle.action_type, oracle.index)
                vals = got["mem"]
                t.steps += 1
                t.proposals.append(len(vals))
                if want in vals:
                    t.covered += 1
                    t.ranks.append(vals.index(want) + 1)
                else:
                    t.missed.append((task.id, task.goal, want or ""))
                if (want or "").casefold() in {v.casefold() for v in vals}:
                    t.covered_ci += 1
                if want in got["nomem"]:
                    t.covered_nomem += 1
            step = Step(index=index, observation=obs, action=oracle)
            history.append(step)
            if oracle.action_type == "status":
                break
            if oracle.action_type == "answer":
                answered = True
            try:
                obs = env.step(oracle)
            except Exception as exc:  # noqa: BLE001 -- recorded on the step, as the runner does
                step.error = str(exc)
    return tallies


def main() -> None:
    from droidverify.training.loop import sim_apps

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="0-2", help="seeds, e.g. 0-2 or 0,5,9 (default 0-2)")
    ap.add_argument("--splits", default="train,validation,test")
    ap.add_argument("--limit", type=int, default=16, help="proposals per placeholder (default 16)")
    ap.add_argument("--examples", type=int, default=10, help="uncovered examples listed per split")
    ap.add_argument("--memory", default="diff", help="the working memory values may come from: diff (the shipped "
                    "verifier's) or notes (diff plus the rows that name the goal's words)")
    ap.add_argument("--derived", action="store_true", help="also the values computed from those read "
                    "(agents/verifier/derived.py: what checkpoints of feature version 6 choose among)")
    args = ap.parse_args()
    seeds = parse_seeds(args.seeds)
    apps = sim_apps()
    print(f"proposal coverage, oracle paths, seeds {args.seeds}, limit {args.limit}, apps {len(apps)}, "
          f"derived values {'on' if args.derived else 'off'}\n")
    print("| split | action | labelled steps | covered | coverage | case-insensitive | no memory "
          "| mean proposals | mean rank when covered |")
    print("|---|---|---|---|---|---|---|---|---|")
    missed: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    t0 = time.perf_counter()
    for split in [s.strip() for s in args.splits.split(",") if s.strip()]:
        tallies = run_split(split, seeds, apps, args.limit, args.memory, args.derived)
        for kind in KINDS:
            t = tallies[kind]
            pct = 100 * t.covered / t.steps if t.steps else 0.0
            ci = 100 * t.covered_ci / t.steps if t.steps else 0.0
            nm = 100 * t.covered_nomem / t.steps if t.steps else 0.0
            mean_p = statistics.mean(t.proposals) if t.proposals else 0.0
            rank = statistics.mean(t.ranks) if t.ranks else 0.0
            print(f"| {split} | {kind} | {t.steps} | {t.covered} | {pct:.1f}% | {ci:.1f}% | {nm:.1f}% "
                  f"| {mean_p:.1f} | {rank:.1f} |", flush=True)
            missed[split] += [(kind, *m) for m in t.missed]
    print(f"\n({time.perf_counter() - t0:.0f} s)")
    for split, rows in missed.items():
        if not rows:
            continue
        per_template = Counter(f"{kind} {task_id}" for kind, task_id, _, _ in rows)
        print(f"\nuncovered steps in {split} by template: "
              + ", ".join(f"{k} ({n})" for k, n in sorted(per_template.items())))
        print(f"\nuncovered examples in {split} (at most {args.examples}, one per template and action):")
        shown: set[str] = set()
        n = 0
        for kind, task_id, goal, value in rows:
            key = f"{kind}:{task_id}"
            if key in shown:
                continue
            shown.add(key)
            print(f"- {kind}: {value!r} <- {goal}")
            n += 1
            if n >= args.examples:
                break


if __name__ == "__main__":
    main()
