"""Does an episode's outcome show in the verifier agent's own scores? Each signal's ROC AUC against
the checker, beside a trained compact judge's P(success) on the same episodes.

Run: ``python benchmarks/episode_confidence.py RUN_DIR [RUN_DIR ...] [--judge-model DIR]
[--setting passive|trajectory|auto] [--fit RUN_DIR ...]``.

RUN_DIR: run directories of ``droidverify run --agent verifier`` on the simulator (every step
records each candidate's score, ``agent_info["candidates"]``, and the one played, ``chosen``).
Per episode, from the softmax of each step's candidate scores (the compact verifier's scores are
log-probabilities; an ensemble's the log of its members' mean):

* ``log P(episode)``: the sum over steps of log P(the action played), the agent's belief in its own
  path (the final ``status`` included);
* ``mean P(played)`` and ``min P(played)`` over the steps;
* ``-mean entropy``: minus the mean normalised entropy of the steps (V-Droid's triage signal);
* ``P(final action)``: the probability of the action that ended the episode (``status complete``
  for most).

The judge column is the compact judge (default: the shipped one, passive setting) on the same
episodes. The last column is each signal's AUC over the judge's, measured in the same run. Each
signal is read as it is. ``--fit RUN_DIR ...`` (other episodes: train templates) also fits two
logistic models there, on the five signals and on the five plus the judge's logit, and prints their
ROC AUC on the episodes measured: does the judge add anything to what the agent knows? Episodes
without a checker result or without candidate scores (another agent) are left out and counted.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

from droidverify.env.records import Trajectory, is_success
from droidverify.rewards.compact_judge import load_judge_models, setting_for, view_of
from droidverify.rewards.confidence import step_confidence
from droidverify.rewards.metrics import roc_auc
from droidverify.runner.store import load_trajectories

SIGNALS = ("log P(episode)", "mean P(played)", "min P(played)", "-mean entropy", "P(final action)")


# (P(the action played), normalised entropy) per step; None without recorded scores. The library's
# confidence judge (``--judge confidence``) reads episodes the same way.
played_probabilities = step_confidence


def signals(traj: Trajectory) -> dict[str, float] | None:
    steps = played_probabilities(traj)
    if steps is None:
        return None
    ps = [max(p, 1e-12) for p, _ in steps]
    return {"log P(episode)": sum(math.log(p) for p in ps), "mean P(played)": sum(ps) / len(ps),
            "min P(played)": min(ps), "-mean entropy": -sum(e for _, e in steps) / len(steps),
            "P(final action)": ps[-1]}


def episodes(runs: list[Path]) -> tuple[list[tuple[bool, dict[str, float], Trajectory]], int]:
    """(success, signals, trajectory) of every scored verifier-agent episode of ``runs``, and how many
    were left out."""
    rows: list[tuple[bool, dict[str, float], Trajectory]] = []
    skipped = 0
    for run in runs:
        for traj in load_trajectories(run):
            sig = signals(traj) if traj.success is not None else None
            if sig is None:
                skipped += 1
                continue
            rows.append((is_success(traj.success), sig, traj))
    return rows, skipped


def judge_scores(rows: list[tuple[bool, dict[str, float], Trajectory]], models: dict[str, Any],
                 setting: str) -> list[float]:
    """The judge's P(success) of each episode (0 for an evidence submission that breaks the format)."""
    by_setting: dict[str, list[int]] = {}
    for i, (_, _, traj) in enumerate(rows):
        by_setting.setdefault(setting_for(traj, setting) if setting == "auto" else setting, []).append(i)
    out = [0.0] * len(rows)
    for name, idx in by_setting.items():
        if name not in models:
            raise SystemExit(f"the judge has no {name} setting; it judges {', '.join(models)}")
        keep = [(i, v) for i in idx if (v := view_of(rows[i][2], name)) is not None]
        for (i, _), p in zip(keep, models[name].p_success([v for _, v in keep]), strict=True):
            out[i] = p
    return out


def _features(rows: list[tuple[bool, dict[str, float], Trajectory]], judge_p: list[float],
              with_judge: bool) -> Any:
    import numpy as np

    cols = [[s[name] for name in SIGNALS] for _, s, _ in rows]
    if with_judge:
        clipped = np.clip(np.asarray(judge_p, dtype=np.float64), 1e-6, 1 - 1e-6)
        return np.column_stack([np.asarray(cols, dtype=np.float64), np.log(clipped / (1 - clipped))])
    return np.asarray(cols, dtype=np.float64)


def fit_logistic(x: Any, y: Any, *, l2: float = 1e-2, steps: int = 3000, lr: float = 0.1) -> Any:
    """A standardised, L2-regularised logistic regression by gradient descent: returns a scorer."""
    import numpy as np

    mu, sd = x.mean(0), x.std(0) + 1e-9
    z = (x - mu) / sd
    w, b = np.zeros(z.shape[1]), 0.0
    for _ in range(steps):
        g = 1 / (1 + np.exp(-(z @ w + b))) - y
        w -= lr * (z.T @ g / len(y) + l2 * w)
        b -= lr * float(g.mean())
    return lambda x2: ((x2 - mu) / sd) @ w + b


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", type=Path)
    ap.add_argument("--judge-model", type=Path, default=None, help="a compact judge (default: the shipped one)")
    ap.add_argument("--setting", default="passive", help="the judge's setting (default passive)")
    ap.add_argument("--fit", nargs="+", type=Path, default=None,
                    help="other run directories (train templates) to fit the logistic models on")
    args = ap.parse_args(argv)

    rows, skipped = episodes(args.runs)
    if not rows:
        raise SystemExit("no verifier-agent episode with a checker result in the given runs")
    labels = [y for y, _, _ in rows]
    models = load_judge_models(args.judge_model)
    judge_p = judge_scores(rows, models, args.setting)
    judge_auc = roc_auc(judge_p, labels) or float("nan")
    print(f"{len(rows)} episodes ({sum(labels)} solved) from {len(args.runs)} run(s); {skipped} left out")
    print(f"{'signal':<28} {'ROC AUC':>8} {'/ judge':>8}")
    print(f"{'compact judge P(success)':<28} {judge_auc:>8.3f} {1.0:>8.2f}")
    out = {"episodes": len(rows), "solved": sum(labels), "judge": judge_auc}
    for name in SIGNALS:
        auc = roc_auc([s[name] for _, s, _ in rows], labels) or float("nan")
        out[name] = auc
        print(f"{name:<28} {auc:>8.3f} {auc / judge_auc:>8.2f}")
    if args.fit:
        import numpy as np

        fit_rows, _ = episodes(args.fit)
        if len({y for y, _, _ in fit_rows}) < 2:
            raise SystemExit("--fit: the episodes need successes and failures")
        fit_y = np.asarray([y for y, _, _ in fit_rows], dtype=np.float64)
        fit_p = judge_scores(fit_rows, models, args.setting)
        print(f"fitted on {len(fit_rows)} episodes ({int(fit_y.sum())} solved) of {len(args.fit)} run(s):")
        for with_judge, name in ((False, "logistic: the 5 signals"), (True, "logistic: 5 signals + judge")):
            scorer = fit_logistic(_features(fit_rows, fit_p, with_judge), fit_y)
            auc = roc_auc(list(scorer(_features(rows, judge_p, with_judge))), labels) or float("nan")
            out[name] = auc
            print(f"{name:<28} {auc:>8.3f} {auc / judge_auc:>8.2f}")
    return out


if __name__ == "__main__":
    main()
