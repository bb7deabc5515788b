"""Data sets, the default recipe, and V-Droid's annotation loop with entropy triage.

Round 0 trains on oracle rollouts plus a noisy oracle's states (wrong turns, self-correction
pairs), all labelled by the oracle. Round k rolls the round k-1 verifier out on train templates and
training continues from round k-1 on what the annotator (the oracle) gave it. Three ways to annotate
(``LoopConfig.triage``):

- ``joint`` (V-Droid's, the default): the verifier proposes at every step; where its normalised
  entropy is at or above ``annotate_above`` the oracle corrects it and the episode goes on from the
  correction; below, its own action is executed and becomes the label. Every step joins the data;
  the labels used are the corrections.
- ``entropy``: the verifier's uncorrected path is rolled out; only the steps at or above an entropy
  quantile are labelled (the loop before V-Droid's joint annotation, kept for comparison).
- ``all``: the uncorrected path, every step labelled.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from droidverify.core.items import ItemBackend
from droidverify.errors import TrainingError
from droidverify.training.collection import CollectStats, collect
from droidverify.training.p3 import P3Config, P3Trainer
from droidverify.training.records import VerifierStepRecord, read_records, write_records


def sim_apps() -> list[str]:
    from droidverify.env.sim.app import installed_apps

    return sorted(app.name for app in installed_apps().values())


@dataclass
class DataSpec:
    """Which episodes a data set is collected from."""

    split: str = "train"
    # More on-path states than wrong-turn states: a run mostly needs the next right step.
    oracle_seeds: Sequence[int] = tuple(range(8))
    noisy_seeds: Sequence[int] = tuple(range(100, 106))
    epsilon: float = 0.3
    self_correction_rate: float = 0.12
    seed: int = 0
    # Oracle episodes that start away from the launcher, with an empty working memory (what a user
    # who starts the agent inside an app gives it): seed i of start_seeds starts as start_modes[i % n]
    # ("mid": after the oracle's first k steps; "detour": after a few, then 1-2 harmless wrong
    # actions; see collection.collect's ``start``). Without them every empty memory sits on the
    # launcher and a verifier learns "empty memory -> open an app".
    start_seeds: Sequence[int] = tuple(range(400, 410))
    start_modes: Sequence[str] = ("mid", "detour")
    # Diversity: goals worded by each template's phrasings drawn per seed ("seeded"; "canonical" =
    # the published wording), episodes in a skin drawn per episode ("seeded"; "none" = the
    # simulator's own look). Held-out sets keep "canonical"/"none" to match published figures.
    phrasing: str = "seeded"
    skin: str = "seeded"
    # Only these templates of the split (None: all of them): a smaller data set, or one without an app.
    templates: Sequence[str] | None = None
    # The working memory the records' memory text is written by (agents.verifier.memory): "diff", or
    # "notes" (diff plus the rows that name the goal's words). A verifier must run with the same one.
    memory: str = "diff"


# `droidverify train default --data-budget NAME`: how many episodes round 0 collects. By measurement
# (docs/training.md, "Data budget"): half of the full set's episodes reach the same validation top-1
# (0.564 vs 0.563; a quarter: 0.542) at about half the collection time. The default is the quarter:
# on a 2-core AMD EPYC without AVX512-BF16 the half budget took 27.4 min end to end, past the
# 20-minute target of `train default`.
DATA_BUDGETS: dict[str, dict[str, Any]] = {
    "quarter": {"oracle_seeds": tuple(range(2)), "noisy_seeds": tuple(range(100, 102)),
                "start_seeds": tuple(range(400, 404))},
    "half": {"oracle_seeds": tuple(range(4)), "noisy_seeds": tuple(range(100, 103)),
             "start_seeds": tuple(range(400, 406))},
    "full": {},  # DataSpec's defaults: oracle seeds 0-7, noisy 100-105, start 400-409
}


def budget_spec(budget: str, **overrides: Any) -> DataSpec:
    """The train-split :class:`DataSpec` of a named data budget (:data:`DATA_BUDGETS`)."""
    if budget not in DATA_BUDGETS:
        raise TrainingError(f"unknown data budget {budget!r}; use one of {sorted(DATA_BUDGETS)}")
    return DataSpec(**{**DATA_BUDGETS[budget], **overrides})


def build_dataset(path: str | Path, spec: DataSpec, *, progress: Callable[[str], None] | None = None,
                  backend: ItemBackend | None = None) -> dict[str, Any]:
    """Collect oracle, noisy-oracle and mid-task-start records of ``spec`` into ``path``; returns
    statistics (per collection: ``oracle``, ``noisy``, ``start_mid``, ``start_detour``; and
    ``records_by_collection``).

    ``backend`` (``runner.backends.LocalBackend`` / ``RayBackend``): collect the episodes on its
    workers (see :func:`collect`); the file and statistics are the same as without one.
    """
    from droidverify.tasks import registry

    if spec.split not in registry.SPLITS:
        raise TrainingError(f"unknown split {spec.split!r}; use one of {registry.SPLITS}")
    if spec.phrasing not in ("canonical", "seeded"):
        raise TrainingError(f"unknown phrasing {spec.phrasing!r}; use 'canonical' or 'seeded'")
    if spec.start_seeds and (not spec.start_modes or set(spec.start_modes) - {"mid", "detour"}):
        raise TrainingError(f"start_modes must be a non-empty list of 'mid' and 'detour', got {spec.start_modes!r}")
    wanted: set[str] | None = None
    if spec.templates is not None:
        wanted = set(spec.templates)
        unknown = sorted(wanted - {t.name for t in registry.templates_for_split(spec.split)})
        if unknown or not wanted:
            raise TrainingError(f"templates {unknown or '(none)'} are not templates of the {spec.split!r} split")
    apps = sim_apps()
    path = Path(path)
    stats: dict[str, Any] = {}
    recs: list[VerifierStepRecord] = []
    runs: list[tuple[str, str, str, list[int]]] = [("oracle", "oracle", "launcher", list(spec.oracle_seeds)),
                                                  ("noisy", "noisy", "launcher", list(spec.noisy_seeds))]
    for mode in dict.fromkeys(spec.start_modes):  # each mode's seeds, in the order given
        seeds = [s for i, s in enumerate(spec.start_seeds) if spec.start_modes[i % len(spec.start_modes)] == mode]
        runs.append((f"start_{mode}", "oracle", mode, seeds))
    counts: dict[str, int] = {}
    for name, policy, start, seeds in runs:
        if not seeds:
            continue
        st = CollectStats()
        tasks = [t for t in registry.tasks_for(spec.split, seeds, phrasing=spec.phrasing)
                 if wanted is None or t.id in wanted]
        before = len(recs)
        recs += list(collect(tasks, split_of=registry.split_of, apps=apps, policy=policy, epsilon=spec.epsilon,
                             self_correction_rate=spec.self_correction_rate, seed=spec.seed, stats=st,
                             backend=backend, start=start, skin=spec.skin, memory=spec.memory))
        stats[name] = st.to_dict()
        counts[name] = len(recs) - before
        if progress:
            progress(f"{name}: {st.episodes} episodes, {counts[name]} records, "
                     f"{sum(st.unmatched.values())} steps whose oracle action is not a candidate")
    n = write_records(path, recs)
    sc = sum(1 for r in recs if r.source == "self_correction")
    stats.update({"records": n, "records_by_collection": counts, "self_correction_share": sc / n if n else 0.0,
                  "spec": asdict(spec)})
    path.with_suffix(".stats.json").write_text(json.dumps(stats, indent=1, default=list))
    return stats


def roc_auc(scores: Sequence[float], labels: Sequence[bool]) -> float:
    """Area under the ROC curve of ``scores`` predicting ``labels`` (ties count half); NaN if one class."""
    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    if not pos or not neg:
        return float("nan")
    ranked = sorted((s, i) for i, s in enumerate(list(pos) + list(neg)))
    ranks = [0.0] * len(ranked)
    i = 0
    while i < len(ranked):  # average ranks over ties
        j = i
        while j + 1 < len(ranked) and ranked[j + 1][0] == ranked[i][0]:
            j += 1
        for t in range(i, j + 1):
            ranks[ranked[t][1]] = (i + j) / 2 + 1
        i = j + 1
    r_pos = sum(ranks[: len(pos)])
    return (r_pos - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))


def entropy_auc(records: Sequence[VerifierStepRecord]) -> dict[str, Any]:
    """V-Droid's triage check: does high entropy flag steps where the verifier's argmax is wrong?"""
    rows = [(r.entropy / math.log(len(r.candidates)), r.policy_choice not in r.correct) for r in records
            if r.entropy is not None and r.policy_choice is not None and len(r.candidates) > 1]
    return {"auc": roc_auc([e for e, _ in rows], [w for _, w in rows]), "steps": len(rows),
            "wrong": sum(w for _, w in rows)}


TRIAGES = ("joint", "entropy", "all")


@dataclass
class LoopConfig:
    """The annotation loop: round 0 on ``data``, then ``rounds`` rounds of verifier rollouts."""

    output_dir: str
    train_config: P3Config
    rounds: int = 1
    rollout_seeds: Sequence[int] = tuple(range(200, 202))
    steps_per_round: int = 150  # optimizer steps added per round
    triage: str = "joint"  # joint | entropy | all (module docstring)
    triage_quantile: float = 0.5  # entropy: keep steps at or above this quantile of normalised entropy
    annotate_above: float = 0.0  # joint: the oracle corrects steps at or above this normalised entropy
    # Round k trains on its new labels plus this many times as many earlier records (replayed):
    # merged into the whole pool, a few hundred new labels would hardly be sampled in one round.
    replay: float = 1.0
    # A round fine-tunes on a few hundred records; at round 0's learning rates one 80-step round
    # lowered held-out top-1 (0.287 -> 0.206 on 160 validation records), at a quarter 0.231.
    round_lr_scale: float = 0.25
    rollout_tasks: int | None = None  # only the first N train templates per seed (None: all)
    max_episode_steps: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 0 < self.round_lr_scale <= 1:
            raise TrainingError(f"round_lr_scale must be in (0, 1], got {self.round_lr_scale}")
        if self.triage not in TRIAGES:
            raise TrainingError(f"unknown triage {self.triage!r}: use one of {', '.join(TRIAGES)}")
        if not 0.0 <= self.annotate_above <= 1.0:
            raise TrainingError(f"annotate_above must be a normalised entropy in [0, 1], got {self.annotate_above}")


def _normalised(r: VerifierStepRecord) -> float:
    return (r.entropy or 0.0) / math.log(len(r.candidates)) if len(r.candidates) > 1 else 0.0


class VerifierPolicy:
    """A picklable policy factory for :func:`collect`: the trained verifier in ``verifier_dir``, loaded
    once per process on first use (once per worker with a backend) and reused for every episode."""

    def __init__(self, verifier_dir: str | Path, apps: Sequence[str], llm_kwargs: dict[str, Any]) -> None:
        self.verifier_dir = str(verifier_dir)
        self.apps = list(apps)
        self.llm_kwargs = dict(llm_kwargs)
        self._agent: Any = None

    def __call__(self, task: Any) -> Any:
        if self._agent is None:
            from droidverify.agents.verifier.trained import load_verifier

            self._agent = load_verifier(Path(self.verifier_dir), apps=self.apps, **self.llm_kwargs)
        return self._agent

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_agent": None}  # a worker loads its own copy


def rollout_round(verifier_dir: Path, out_file: Path, *, seeds: Sequence[int], round_index: int, triage: str,
                  quantile: float, llm_kwargs: dict[str, Any], max_steps: int | None = None,
                  max_tasks: int | None = None, progress: Callable[[str], None] | None = None,
                  backend: ItemBackend | None = None, annotate_above: float = 0.0) -> dict[str, Any]:
    """Roll the verifier out on train templates and annotate it with the oracle (``triage``: see the
    module docstring); the records to train on go to ``out_file``, every visited step to
    ``visited.jsonl`` beside it.

    ``backend``: roll the episodes out on its workers, each loading the verifier once (see
    :func:`collect`); records come in the same order as without one.
    """
    if triage not in TRIAGES:
        raise TrainingError(f"unknown triage {triage!r}: use one of {', '.join(TRIAGES)}")
    from droidverify.tasks import registry

    apps = sim_apps()
    tasks = [t for s in seeds for t in registry.tasks_for("train", [s])[:max_tasks]]
    st = CollectStats()
    t0 = time.perf_counter()

    def tick(task: Any, s: CollectStats) -> None:
        if progress:
            progress(f"round {round_index}: episode {s.episodes}/{len(tasks)} {task.id} "
                     f"({s.steps} steps, {time.perf_counter() - t0:.0f}s)")

    visited = out_file.with_name("visited.jsonl")
    visited_stats = visited.with_suffix(".stats.json")
    # Joint annotation changes the path itself (episodes go on from corrections), so its rollouts are
    # its own: tagged with the threshold, and never shared with an uncorrected-path arm.
    rollout_kind = {"annotate_above": annotate_above} if triage == "joint" else {"annotate_above": None}
    if visited.exists() and visited_stats.exists():  # rollouts are the slow part: reuse them
        collected = json.loads(visited_stats.read_text())  # (a resumed round, or a second arm)
        had = {"annotate_above": collected.get("annotate_above")}
        if had != rollout_kind:
            raise TrainingError(f"{visited} holds rollouts annotated with {had}, this round needs {rollout_kind}: "
                                "an uncorrected path and a jointly annotated one are not the same rollouts")
        every = read_records(visited)
    else:
        policy = VerifierPolicy(verifier_dir, apps, llm_kwargs)
        every = list(collect(tasks, split_of=registry.split_of, apps=apps, policy=policy,
                             round_index=round_index, stats=st, max_steps=max_steps, on_episode=tick,
                             backend=backend, annotate_above=rollout_kind["annotate_above"]))
        write_records(visited, every)
        collected = {**st.to_dict(), **rollout_kind}
        visited_stats.write_text(json.dumps(collected, indent=1))
    auc = entropy_auc(every)
    threshold: float | None = None
    if triage == "joint":
        kept = every  # every step joins; the annotator's work is the corrections
        labels_used = sum(r.source == "annotated" for r in every)
        threshold = annotate_above
    elif triage == "all":
        kept = every
        labels_used = len(kept)
    else:
        ent = sorted(_normalised(r) for r in every)
        threshold = ent[min(len(ent) - 1, int(quantile * len(ent)))] if ent else 0.0
        kept = [r for r in every if _normalised(r) >= threshold]
        labels_used = len(kept)
    write_records(out_file, kept)
    labelled = [r for r in kept if r.source != "self_label"]
    wrong_kept = sum(r.policy_choice not in r.correct for r in labelled)
    return {"round": round_index, "triage": triage, "episodes": collected["episodes"],
            # joint: success of episodes with the annotator's corrections in them
            "policy_success": collected["episode_success"], "steps": len(every), "labels_used": labels_used,
            "self_labels": sum(r.source == "self_label" for r in kept),
            "threshold": threshold, "entropy_auc": auc, "wrong_steps": auc["wrong"],
            "wrong_steps_labelled": wrong_kept, "collect": collected,
            "seconds": time.perf_counter() - t0}


def run_loop(cfg: LoopConfig, *, progress: Callable[[str], None] | None = None,
             provenance: dict[str, Any] | None = None, backend: ItemBackend | None = None) -> dict[str, Any]:
    """Round 0 then ``cfg.rounds`` annotation rounds; each round's verifier is exported to
    ``output_dir/round-K/verifier``. Resumable: a round whose verifier exists is skipped.
    ``backend``: run each round's rollouts on its workers (:func:`rollout_round`)."""
    out = Path(cfg.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    summary_file = out / "loop.json"
    summary: dict[str, Any] = json.loads(summary_file.read_text()) if summary_file.exists() else {"rounds": []}
    base = cfg.train_config
    data = [Path(base.train_file)]
    labels = len(read_records(base.train_file))
    llm_kwargs = {"model": base.model, "dtype": base.dtype, "device": base.device}
    prev: Path | None = None
    for k in range(cfg.rounds + 1):
        rdir = out / f"round-{k}"
        vdir = rdir / "verifier"
        if k > 0:
            rfile = rdir / "annotated.jsonl"
            if not rfile.exists():
                assert prev is not None
                info = rollout_round(prev, rfile, seeds=[s + 1000 * k for s in cfg.rollout_seeds], round_index=k,
                                     triage=cfg.triage, quantile=cfg.triage_quantile, llm_kwargs=llm_kwargs,
                                     max_steps=cfg.max_episode_steps, max_tasks=cfg.rollout_tasks,
                                     progress=progress, backend=backend, annotate_above=cfg.annotate_above)
                (rdir / "rollout.json").write_text(json.dumps(info, indent=1))
            data.append(rfile)
            ro = rdir / "rollout.json"  # joint rounds: the corrections, not the self-labels
            labels += json.loads(ro.read_text())["labels_used"] if ro.exists() else len(read_records(rfile))
        if not (vdir / "verifier.json").exists():
            merged = rdir / "train.jsonl"
            if k == 0:
                recs = read_records(data[0])
            else:
                new = read_records(data[-1])
                old = [r for f in data[:-1] for r in read_records(f)]
                n_old = min(len(old), round(cfg.replay * len(new)))
                recs = new + random.Random(f"replay:{k}").sample(old, n_old)
            write_records(merged, recs)
            tc = P3Config(**{**base.to_dict(), "lora_targets": tuple(base.lora_targets)})
            tc.output_dir = str(rdir / "trainer")
            tc.train_file = str(merged)
            if k > 0:
                tc.init_from = str(prev)
                tc.max_steps = cfg.steps_per_round
                tc.warmup_steps = min(tc.warmup_steps, 5)
                tc.learning_rate = base.learning_rate * cfg.round_lr_scale
                tc.head_learning_rate = base.head_learning_rate * cfg.round_lr_scale
            trainer = P3Trainer(tc)
            result = trainer.train()
            trainer.export(vdir, provenance={**(provenance or {}), "round": k, "labels": labels,
                                             "train_result": result, "data_files": [str(f) for f in data]})
            del trainer
        entry = {"round": k, "verifier": str(vdir), "labels_total": labels}
        ro = rdir / "rollout.json"
        if ro.exists():
            entry["rollout"] = json.loads(ro.read_text())
        summary["rounds"] = [r for r in summary["rounds"] if r["round"] != k] + [entry]
        summary_file.write_text(json.dumps(summary, indent=1))
        prev = vdir
    return summary
