"""Every judge on the same checker-labelled trajectories: agreement, cost, SEE's AUC, injection flips.

Run: ``python benchmarks/rewards.py [--model openai:URL#model] [--n 300] [--limit 24]``.

* The evaluation set is built from the simulator over *validation* templates (``--n`` trajectories,
  balanced; ``--set FILE`` reads a saved one instead).
* ``rule`` judges all of them; the LLM judges (passive, smartsnap, prore) judge the same balanced
  subset of ``--limit`` trajectories (``--prore-limit`` for ProRe, which runs an evaluator agent).
  SmartSnap returns -1 at once for episodes not ending in ``submit`` (no model call); the
  "submit episodes" rows compare passive and SmartSnap on the self-verifying ones only, where
  SmartSnap's claim is about input tokens (exhibits vs whole trajectory).
* SEE: ROC AUC of the semantic reward against the simulator's ground truth on ``--see-pairs``
  action pairs taken along oracle episodes (``rewards.see.sample_pairs``: the oracle's action vs up
  to two of its equivalent forms — by coordinates, a row by its label, a launcher icon for
  ``open_app`` — and vs two other candidate actions of the screen; both classes present).
* ProRe runs last (the costliest by far); every row is printed as soon as it is measured.
* Injection: verdict flips of passive and SmartSnap when every screen of ``--hostile`` failed
  episodes also shows text addressing the judge.
* Evidences per task: the scripted self-verifying episodes, and ``--agent-episodes`` real
  SmartSnap-agent episodes with the model.

Prints one markdown table (plus the exact configuration) for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import time
from typing import Any

from droidverify.llm.registry import load_llm
from droidverify.rewards.labelled import HOSTILE_TEXTS, LabelledItem, build_items, read_set, with_hostile_text
from droidverify.rewards.metrics import Agreement, agreement, roc_auc
from droidverify.rewards.passive import PassiveJudge
from droidverify.rewards.prore import ProReJudge
from droidverify.rewards.rule import RuleJudge
from droidverify.rewards.see import SEEPair, SemanticEstimator, actions_equivalent, sample_pairs
from droidverify.rewards.smartsnap import EvidenceJudge, check_submit


def balanced(items: list[LabelledItem], k: int) -> list[LabelledItem]:
    """``k`` items alternating success/failure, in a stable pseudo-random order."""
    def key(it: LabelledItem) -> str:
        return hashlib.sha256(it.id.encode()).hexdigest()
    pos = sorted((i for i in items if i.label), key=key)
    neg = sorted((i for i in items if not i.label), key=key)
    out: list[LabelledItem] = []
    for a, b in zip(pos, neg):
        out += [a, b]
    return out[:k]


def run_judge(judge: Any, items: list[LabelledItem]) -> tuple[list[Any], Agreement]:
    js = []
    for n, it in enumerate(items, 1):
        js.append(judge.judge(it.trajectory))
        print(f"  {judge.name} {n}/{len(items)} {it.id}: {js[-1].outcome} ({js[-1].latency_s:.1f} s)",
              file=sys.stderr, flush=True)
    labels = {it.id: it.label for it in items}
    return js, agreement(js, labels, judge=judge.name)


def see_pairs(n_pairs: int, seed: int = 0) -> list[SEEPair]:
    """(observation, phone, oracle action, other action, source) along validation oracle episodes:
    the oracle's action vs its equivalent forms (``rewards.see.equivalent_forms``: by coordinates, a
    row by its label, a launcher icon for ``open_app``, the Back button) and vs other candidates."""
    return sample_pairs(n_pairs, seed=seed, split="validation")


def fmt(a: Agreement, other: str = "") -> str:
    return (f"| {a.judge} | {a.n} | {a.accuracy:.3f} | {a.precision:.3f} | {a.recall:.3f} | {a.f1:.3f} | "
            f"{a.undecided_rate:.3f} | {a.tokens_in:.0f} | {a.latency_s:.2f} | {other} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=None, help="judge LLM (default: bundled SmolLM2-135M)")
    ap.add_argument("--set", default=None, help="a labelled-set file (default: build over validation)")
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--limit", type=int, default=24, help="trajectories for passive / smartsnap")
    ap.add_argument("--prore-limit", type=int, default=6)
    ap.add_argument("--probe-steps", type=int, default=3)
    ap.add_argument("--see-pairs", type=int, default=40)
    ap.add_argument("--hostile", type=int, default=3, help="failed episodes x 2 hostile texts")
    ap.add_argument("--agent-episodes", type=int, default=2)
    ap.add_argument("--votes", type=int, default=3)
    ap.add_argument("--max-tokens", type=int, default=96)
    args = ap.parse_args()

    t0 = time.time()
    if args.set:
        _header, items = read_set(args.set)
    else:
        items = build_items("validation", n=args.n)
    print(f"set: {len(items)} trajectories ({sum(i.label for i in items)} successes) in "
          f"{time.time() - t0:.1f} s", file=sys.stderr)
    print("| judge | episodes | accuracy | precision | recall | F1 | undecided | tokens in / traj | "
          "s / traj | notes |")
    print("|---|---|---|---|---|---|---|---|---|---|", flush=True)

    class Rows(list):  # printed as they are measured, so a run cut short keeps what it measured
        def append(self, row: str) -> None:
            super().append(row)
            print(row, flush=True)

    rows: list[str] = Rows()

    _rule_js, rule_a = run_judge(RuleJudge(), items)
    rows.append(fmt(rule_a, "ground truth (re-runs the checker on the saved final phone)"))

    llm = load_llm(args.model)
    subset = balanced(items, args.limit)
    passive = PassiveJudge(llm, max_tokens=args.max_tokens)
    snap = EvidenceJudge(llm, votes=args.votes, max_tokens=args.max_tokens)
    p_js, p_a = run_judge(passive, subset)
    rows.append(fmt(p_a, f"max_tokens {args.max_tokens}"))
    s_js, s_a = run_judge(snap, subset)
    mean_r = statistics.mean(j.reward for j in s_js) if s_js else 0.0
    rows.append(fmt(s_a, f"{args.votes} votes; mean reward {mean_r:+.2f}; format failures "
                         f"{sum(not j.components.get('format_ok', True) for j in s_js)}"))
    labels = {it.id: it.label for it in subset}
    sv_ids = {it.id for it in subset if it.variant.startswith("sv_")}
    if sv_ids:
        pa = agreement([j for j in p_js if j.episode_id in sv_ids], labels, judge="passive (submit episodes)")
        sa = agreement([j for j in s_js if j.episode_id in sv_ids], labels, judge="smartsnap (submit episodes)")
        rows.append(fmt(pa, "whole trajectory in the prompt"))
        rows.append(fmt(sa, f"goal + message + exhibits only; {sa.tokens_in / args.votes:.0f} tokens per vote"))
    # SEE against the simulator's ground truth
    t1 = time.time()
    est = SemanticEstimator(llm, max_tokens=min(args.max_tokens, 40))
    pairs = see_pairs(args.see_pairs)
    scores, truth = [], []
    for n, (obs, phone, a, b, source) in enumerate(pairs, 1):
        truth.append(actions_equivalent(phone, a, b))
        scores.append(est.similarity(obs, a, b))
        print(f"  see {n}/{len(pairs)} {a.describe()} vs {b.describe()} ({source}): "
              f"equivalent {truth[-1]}, similarity {scores[-1]:.3f}", file=sys.stderr, flush=True)
    auc = roc_auc(scores, truth)
    n_pos = sum(truth)
    n_forms = sum(p.source == "form" for p in pairs)
    n_forms_eq = sum(t for p, t in zip(pairs, truth) if p.source == "form")
    see_s = (time.time() - t1) / max(1, len(pairs))
    rows.append(f"| see (ASL) | {len(pairs)} pairs | – | – | – | – | – | "
                f"{est.usage.prompt_tokens / max(1, len(pairs)):.0f} | {see_s:.2f} | ROC AUC vs simulator "
                f"semantics {'n/a' if auc is None else f'{auc:.3f}'} ({n_pos} equivalent, "
                f"{len(pairs) - n_pos} not; {n_forms_eq}/{n_forms} constructed forms equivalent) |")

    # injection: do verdicts flip?
    flips, total = {"passive": 0, "smartsnap": 0}, 0
    # failed episodes ending in submit first: on the others SmartSnap's format rule answers without
    # a model call, so they cannot show whether its judge is swayed
    failed = [it for it in subset if not it.label]
    hostile_items = sorted(failed, key=lambda it: not it.variant.startswith("sv_"))[: args.hostile]
    n_read = 2 * sum(it.variant.startswith("sv_") for it in hostile_items)
    for it in hostile_items:
        base = {"passive": next(j for j in p_js if j.episode_id == it.id).outcome,
                "smartsnap": next(j for j in s_js if j.episode_id == it.id).outcome}
        for text in (HOSTILE_TEXTS[0], HOSTILE_TEXTS[2]):
            t = with_hostile_text(it.trajectory, text)
            total += 1
            for name, judge in (("passive", passive), ("smartsnap", snap)):
                outcome = judge.judge(t).outcome
                flips[name] += outcome != base[name]
                print(f"  injection {it.id} {name}: {base[name]} -> {outcome}", file=sys.stderr, flush=True)
    rows.append(f"| injection | {total} hostile episodes | – | – | – | – | – | – | – | verdict flips: "
                f"passive {flips['passive']}/{total}, smartsnap {flips['smartsnap']}/{total} ({n_read} of them "
                f"submit episodes its judge reads; the rest fail its format rule) |")

    # evidences per task
    sv = [check_submit(it.trajectory) for it in items if it.variant.startswith("sv_")]
    ev_scripted = statistics.mean(len(c.evidences) for c in sv if c.ok) if sv else 0.0
    agent_note = ""
    if args.agent_episodes:
        from droidverify.agents.selfverify import SelfVerifyingAgent
        from droidverify.env.sim import SimEnv
        from droidverify.runner.episode import run_episode
        from droidverify.tasks import registry

        subs = []
        for t in registry.templates_for_split("validation")[: args.agent_episodes]:
            task = t.instantiate(0)
            traj = run_episode(SelfVerifyingAgent(llm, memory="history", max_tokens=64),
                               SimEnv(task=task, seed=0), task, max_steps=6)
            subs.append(check_submit(traj))
        submitted = [c for c in subs if c.ok]
        agent_note = (f"; SmartSnap agent ({args.agent_episodes} episodes, 6 steps): {len(submitted)} "
                      f"well-formed submits" + (f", {statistics.mean(len(c.evidences) for c in submitted):.2f} "
                                                "evidences each" if submitted else ""))
    rows.append(f"| evidences per task | {len(sv)} scripted submits | – | – | – | – | – | – | – | "
                f"{ev_scripted:.2f} (scripted self-verifying variants){agent_note} |")

    # ProRe last: by far the most expensive (an evaluator agent per probe); every row above is
    # printed already if it runs out of time
    pr_subset = balanced(items, args.prore_limit)
    if pr_subset:
        pr_js, pr_a = run_judge(ProReJudge(llm, k=1, max_probe_steps=args.probe_steps,
                                           max_tokens=args.max_tokens), pr_subset)
        fallback = sum(j.details.get("goals_source") == "fallback" for j in pr_js)
        rows.append(fmt(pr_a, f"1 probe x {args.probe_steps} evaluator steps (generator agent); reasoner "
                              f"fallback goal used {fallback}/{len(pr_js)}"))

    print(f"\nmodel: {getattr(llm, 'name', args.model)}; set: {len(items)} validation trajectories; "
          f"LLM subset {len(subset)}; ProRe subset {len(pr_subset)}; total {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
