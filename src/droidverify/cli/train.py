"""``droidverify train ...`` (verifier data, P^3 training, the annotation loop, the default recipe)
and ``droidverify triage RUN_DIR`` (steps a person should review, by entropy)."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from droidverify.cli._common import TASKS_MODULE_HELP, exit_with, fail, load_task_modules, parse_seeds
from droidverify.errors import DroidVerifyError, TrainingError

train_app = typer.Typer(help="Train verifiers: collect labelled steps, P^3 training, annotation loop.",
                        no_args_is_help=True)

def _say(msg: str) -> None:
    typer.echo(f"[{time.strftime('%H:%M:%S')}] {msg}", err=True)


def _commit() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=False,
                              cwd=Path(__file__).resolve().parent).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def _provenance(extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"command": " ".join(["droidverify", *sys.argv[1:]]), "commit": _commit(),
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), **(extra or {})}


# Your own templates join the split they hash to; --workers processes load the same modules.
_TASKS_MODULE = typer.Option("--tasks-module", metavar="MODULE", help=TASKS_MODULE_HELP + " Its templates of "
                             "the split are collected too.")
_WORKERS = typer.Option("--workers", help="Episodes at once: N local worker processes (each loads its own "
                        "model), or 'auto' (one per core); the records are the same as with one.")


_MEMORY = typer.Option("--memory", help="Working memory the records' memory text is written by: diff (the "
                       "paper's rule-based diff; the llm backbone's only one) or notes (compact backbone: diff plus "
                       "the rows of each new screen that name the goal's words, so a value read earlier can be "
                       "chosen later; docs/training.md, session 25). A verifier runs with the memory its records "
                       "were written by.")


@contextlib.contextmanager
def _backend(workers: str, what: str) -> Iterator[Any]:
    """The rollout backend --workers asks for (None: this process), closed afterwards."""
    from droidverify.runner.backends import make_backend

    backend = make_backend(workers)
    if backend is not None:
        _say(f"{what} on {backend.label}")
    try:
        yield backend
    finally:
        if backend is not None:
            backend.close()


@train_app.command("data")
def data_command(
    out: Annotated[Path, typer.Option("--out", help="JSONL file to write (statistics beside it).")],
    split: Annotated[str, typer.Option("--split", help="Templates: train, validation or test.")] = "train",
    oracle_seeds: Annotated[str, typer.Option("--oracle-seeds", help="Seeds of oracle rollouts.")] = "0-7",
    noisy_seeds: Annotated[str, typer.Option("--noisy-seeds", help="Seeds of noisy-oracle rollouts "
                                             "(wrong turns + self-correction pairs); '' for none.")] = "100-105",
    epsilon: Annotated[float, typer.Option(help="Mistake rate of the noisy oracle.", min=0, max=1)] = 0.3,
    self_correction_rate: Annotated[float, typer.Option(help="Share of screen-changing mistakes whose "
                                                        "next step is labelled with the reverse action.",
                                                        min=0, max=1)] = 0.12,
    start_seeds: Annotated[str, typer.Option("--start-seeds", help="Seeds of oracle rollouts that start "
                                             "mid-task (after hidden oracle steps, or a detour) with an "
                                             "empty memory; '' for none.")] = "400-409",
    start_modes: Annotated[str, typer.Option("--start-modes", help="Comma-separated start modes the "
                                             "start seeds take in turn: mid, detour.")] = "mid,detour",
    phrasing: Annotated[str, typer.Option("--phrasing", help="Goal wording: seeded (each template's "
                                          "phrasings drawn per seed) or canonical (the published one).")] = "seeded",
    skin: Annotated[str, typer.Option("--skin", help="Simulator look: seeded (a skin drawn per episode: "
                                      "relabelled chrome, reordered toolbars, sizes) or none.")] = "seeded",
    memory: Annotated[str, _MEMORY] = "diff",
    workers: Annotated[str, _WORKERS] = "1",
    tasks_module: Annotated[list[str] | None, _TASKS_MODULE] = None,
) -> None:
    """Write verifier training records labelled by the simulator's oracles."""
    from droidverify.training.loop import DataSpec, build_dataset

    load_task_modules(tasks_module)
    try:
        spec = DataSpec(split=split, oracle_seeds=parse_seeds(oracle_seeds) if oracle_seeds else [],
                        noisy_seeds=parse_seeds(noisy_seeds) if noisy_seeds else [], epsilon=epsilon,
                        self_correction_rate=self_correction_rate,
                        start_seeds=parse_seeds(start_seeds) if start_seeds else [],
                        start_modes=[m.strip() for m in start_modes.split(",") if m.strip()],
                        phrasing=phrasing, skin=skin, memory=memory)
        with _backend(workers, "collecting") as backend:
            stats = build_dataset(out, spec, progress=_say, backend=backend)
    except (DroidVerifyError, OSError) as e:
        exit_with(e)
    typer.echo(json.dumps({k: stats[k] for k in ("records", "self_correction_share", "records_by_collection")
                           if k in stats}))


def _train_compact(out: Path, train: Path, eval_file: Path | None, export: Path, overrides: dict[str, Any],
                   provenance: dict[str, Any]) -> dict[str, Any]:
    """Train (resuming) a compact verifier into ``out`` and export it; returns the result summary."""
    from droidverify.training.compact import CompactConfig, CompactTrainer

    values = {k: v for k, v in overrides.items() if v is not None}
    cfg = CompactConfig(output_dir=str(out), train_file=str(train),
                        eval_file=str(eval_file) if eval_file else None, **values)
    cfg.validate()
    trainer = CompactTrainer(cfg, log=_say)
    result = trainer.train()
    meta = {k: v for k, v in result.items() if k not in ("eval", "train_fit")}
    prov = {**provenance, "data": {"train": train.name, "eval": eval_file.name if eval_file else None},
            "result": meta, "metrics": {"eval": result.get("eval"), "train_fit": result.get("train_fit")}}
    trainer.export(export, provenance=prov)
    (out / "result.json").write_text(json.dumps(result, indent=1))
    return result


@train_app.command("compact")
def compact_command(
    train: Annotated[Path, typer.Option("--train", help="Training records (JSONL, schema 3: with screens).")],
    out: Annotated[Path, typer.Option("--out", help="Trainer directory (checkpoint.pt, embeddings cache, "
                                      "log.jsonl, curves.png); a rerun resumes.")],
    eval_file: Annotated[Path | None, typer.Option("--eval", help="Held-out records for accuracy.")] = None,
    export: Annotated[Path | None, typer.Option("--export", help="Write the trained verifier here "
                                                "(default OUT/verifier).")] = None,
    epochs: Annotated[int | None, typer.Option(help="Passes over the data.", min=1)] = None,
    layers: Annotated[int | None, typer.Option(help="Transformer layers (0: per-candidate MLP only).",
                                               min=0)] = None,
    d_model: Annotated[int | None, typer.Option(help="Width.", min=8)] = None,
    loss: Annotated[str | None, typer.Option(help="listwise (default) or pairwise (V-Droid's P^3).")] = None,
    learning_rate: Annotated[float | None, typer.Option("--lr", help="Learning rate.")] = None,
    content: Annotated[str | None, typer.Option(help="select (choose values; default) or llm.")] = None,
    max_minutes: Annotated[float | None, typer.Option(help="Stop (checkpointed, exported) after this "
                                                      "many minutes of training.", min=0.1)] = None,
    seed: Annotated[int | None, typer.Option(help="Initialisation and data order.")] = None,
    feature_version: Annotated[int | None, typer.Option(help="Features the network reads: 3, 4, "
                                                        "5 (4 plus how an answer fits the question; opt-in), 6 (the default: "
                                                        "4 plus values computed from those read among the candidates: "
                                                        "minutes and days between, shifted times and dates, percentages, "
                                                        "sums) or 7 (6 plus the goal's clauses as tokens of their own; "
                                                        "opt-in; docs/training.md).")] = None,
    kind_balance: Annotated[float | None, typer.Option(help="Loss weight by the right action's type: "
                                                       "share ** -B (0: none; 1: every type alike).",
                                                       min=0.0, max=1.0)] = None,
    input_dropout: Annotated[float | None, typer.Option(help="Dropout on the network's inputs.", min=0.0,
                                                        max=0.95)] = None,
    identity_dropout: Annotated[float | None, typer.Option(
        help="Share of candidates whose own text and row embeddings are hidden in training, leaving their "
             "matches with the goal (1: never read, also when scoring).", min=0.0, max=1.0)] = None,
    stack_folds: Annotated[int | None, typer.Option(
        help="Stacking: train K more networks, each without one fold of the train templates, and learn on "
             "the folds they never saw how far to trust the score against the goal-match numbers (0: off).",
        min=0)] = None,
    members: Annotated[int | None, typer.Option(
        help="A deep ensemble: train K networks on the same records from seeds SEED..SEED+K-1 and ship all "
             "K, scoring by their mean probability (1: one network).", min=1)] = None,
    name_swaps: Annotated[int | None, typer.Option(
        help="Add up to N copies of each train record with two sibling names on its screen (one named in the "
             "goal) exchanged in goal, memory, screen and labels (0: off).", min=0)] = None,
    extra_apps: Annotated[int | None, typer.Option(
        help="List 0..N more apps on each train record's phone (real apps' names that do nothing a simulator app "
             "does) as open_app candidates, always wrong (0: off; docs/training.md, \"Session 33\").",
        min=0)] = None,
    type_head: Annotated[bool | None, typer.Option(
        "--type-head/--no-type-head",
        help="Score the action type once per step, then each candidate within its type (LiMAC's split; the "
             "default). --no-type-head: one flat score per candidate, as checkpoints before 2026-11-27.")] = None,
    memory: Annotated[str | None, typer.Option("--memory", help="The working memory the records were written "
                                               "by (diff or notes; default: the one the --train data's "
                                               ".stats.json names, else diff).")] = None,
    threads: Annotated[int | None, typer.Option(
        "--threads", min=1, help="Torch threads for the network (default 1; `train default` uses every core "
                                 "once collection is over: 1.28x on 2 idle cores).")] = None,
) -> None:
    """Train the compact verifier (a small transformer over frozen MiniLM embeddings) on CPU."""
    try:
        if memory is None:
            from droidverify.training.compact import records_memory

            memory = records_memory(train) or "diff"
        result = _train_compact(out, train, eval_file, export or out / "verifier",
                                {"epochs": epochs, "layers": layers, "d_model": d_model, "loss": loss,
                                 "learning_rate": learning_rate, "content": content,
                                 "max_minutes": max_minutes, "seed": seed, "feature_version": feature_version,
                                 "kind_balance": kind_balance, "input_dropout": input_dropout,
                                 "identity_dropout": identity_dropout, "stack_folds": stack_folds,
                                 "name_swaps": name_swaps, "type_head": type_head, "members": members,
                                 "memory": memory, "threads": threads, "extra_apps": extra_apps},
                                _provenance())
    except (DroidVerifyError, OSError) as e:
        exit_with(e)
    typer.echo(json.dumps({"verifier": str(export or out / "verifier"),
                           "eval": {k: v for k, v in (result.get("eval") or {}).items()
                                    if k in ("top1", "pairwise", "coverage", "records")}}))


@train_app.command("ensemble")
def ensemble_command(
    member: Annotated[list[Path], typer.Option("--member", help="A compact verifier directory (give two or "
                                               "more, trained alike: same features, shape, memory, content).")],
    out: Annotated[Path, typer.Option("--out", help="Write the ensemble verifier here.")],
    records: Annotated[Path | None, typer.Option("--eval", help="Held-out records: measure each member and "
                                                 "the ensemble on them (written to the provenance).")] = None,
) -> None:
    """Join compact verifiers trained from different seeds into one that scores by their mean probability."""
    try:
        from droidverify.agents.verifier.compact.scorer import ensemble_of

        scorer = ensemble_of([str(m) for m in member])
        metrics: dict[str, Any] = {}
        if records is not None:
            from droidverify.training.compact import examples_of, rank_metrics
            from droidverify.training.loop import sim_apps
            from droidverify.training.records import read_records

            meta = scorer.meta
            examples = examples_of(read_records(records), sim_apps(), meta.get("content", "select"),
                                   int(meta["feature_version"]))
            views = [ex.view for ex in examples]
            keep = ("records", "top1", "pairwise", "entropy_auc")
            for i, net in enumerate(scorer.net.members, 1):
                sub = type(scorer)(net, scorer.encoder, memory=scorer.memory, content=scorer.content, meta=meta)
                metrics[f"member-{i}"] = {k: v for k, v in rank_metrics(sub.score_views(views), examples).items() if k in keep}
            metrics["ensemble"] = {k: v for k, v in rank_metrics(scorer.score_views(views), examples).items()
                                   if k in keep}
            metrics["eval_file"] = records.name
        names = [f"{m.parent.name}/{m.name}" for m in member]  # no machine's absolute paths
        prov = {**_provenance(), "members": names, "metrics": metrics}
        scorer.save(out, train_config={"members": names}, provenance=prov)
    except (DroidVerifyError, OSError) as e:
        exit_with(e)
    typer.echo(json.dumps({"verifier": str(out), "metrics": metrics}))


def recipe_config(out: Path, train: Path, eval_file: Path | None, device: str, dtype: str,
                  overrides: dict[str, Any]) -> Any:
    """A validated P3Config: the recipe of ``device`` (``P3Config.for_device``: the GPU preset on
    cuda, else the CPU one) with the ``overrides`` that are not None (lora_layers 0 = all)."""
    from droidverify.training.p3 import P3Config

    values = {k: v for k, v in overrides.items() if v is not None}
    if values.get("lora_layers") == 0:
        values["lora_layers"] = None
    cfg = P3Config.for_device(device, str(out), str(train), eval_file=str(eval_file) if eval_file else None,
                              dtype=dtype, **values)
    cfg.validate()  # a bad option fails here, before any model is loaded
    return cfg


@train_app.command("verifier")
def verifier_command(
    train: Annotated[Path, typer.Option("--train", help="Training records (JSONL).")],
    out: Annotated[Path, typer.Option("--out", help="Trainer directory (checkpoints, log.jsonl, curves.png); "
                                      "a rerun resumes from its newest checkpoint.")],
    eval_file: Annotated[Path | None, typer.Option("--eval", help="Held-out records for accuracy.")] = None,
    export: Annotated[Path | None, typer.Option("--export", help="Write the trained verifier here "
                                                "(default OUT/verifier).")] = None,
    device: Annotated[str, typer.Option(help="cpu or cuda.")] = "cpu",
    dtype: Annotated[str, typer.Option(help="auto, float32 or bfloat16.")] = "auto",
    max_steps: Annotated[int | None, typer.Option(help="Optimizer steps.", min=1)] = None,
    lora_layers: Annotated[int | None, typer.Option(help="Train LoRA on the last N layers (0 = all).",
                                                    min=0)] = None,
    max_negatives: Annotated[int | None, typer.Option(help="Negatives sampled per step.", min=1)] = None,
    all_negatives: Annotated[bool, typer.Option("--all-negatives", help="Use every negative of a step "
                                                "(overrides --max-negatives).")] = False,
    loss: Annotated[str | None, typer.Option(help="pairwise (V-Droid's P^3) or listwise (softmax "
                                             "cross-entropy over the positive and the negatives).")] = None,
    grad_accum: Annotated[int | None, typer.Option(help="Records per optimizer step.", min=1)] = None,
    learning_rate: Annotated[float | None, typer.Option("--lr", help="LoRA learning rate.")] = None,
    head_learning_rate: Annotated[float | None, typer.Option("--head-lr", help="Score head learning rate.")] = None,
    init_from: Annotated[Path | None, typer.Option(help="Continue from a trained verifier.")] = None,
    max_minutes: Annotated[float | None, typer.Option(help="Stop (checkpointed, exported) after this "
                                                      "many minutes of training.", min=0.1)] = None,
) -> None:
    """P^3-train a verifier (LoRA + score head) on step records; resumable."""
    from droidverify.training.p3 import P3Trainer

    try:
        cfg = recipe_config(out, train, eval_file, device, dtype,
                            {"max_steps": max_steps, "lora_layers": lora_layers, "max_negatives": max_negatives,
                             "loss": loss, "grad_accum": grad_accum, "learning_rate": learning_rate,
                             "head_learning_rate": head_learning_rate,
                             "init_from": str(init_from) if init_from else None, "max_minutes": max_minutes})
        if all_negatives:
            cfg.max_negatives = None
        trainer = P3Trainer(cfg)
        result = trainer.train()
        path = trainer.export(export or out / "verifier",
                              provenance=_provenance({"train_file": str(train), "result": result}))
    except (DroidVerifyError, OSError) as e:
        exit_with(e)
    typer.echo(str(path))


@train_app.command("loop")
def loop_command(
    train: Annotated[Path, typer.Option("--train", help="Round-0 records (oracle rollouts).")],
    out: Annotated[Path, typer.Option("--out", help="Loop directory (round-K/...); resumable.")],
    eval_file: Annotated[Path | None, typer.Option("--eval", help="Held-out records for accuracy.")] = None,
    rounds: Annotated[int, typer.Option(help="Annotation rounds after round 0.", min=0)] = 1,
    rollout_seeds: Annotated[str, typer.Option(help="Seeds of the verifier's rollouts on train templates "
                                               "(shifted by 1000*round).")] = "200-201",
    triage: Annotated[str, typer.Option(help="joint (V-Droid's): the oracle corrects steps whose entropy is at "
                                        "least --annotate-above and the episode goes on from the correction, "
                                        "every step joins the data; entropy: the uncorrected path, only steps "
                                        "at/above the entropy quantile labelled; all: the uncorrected path, "
                                        "every step labelled.")] = "joint",
    annotate_above: Annotated[float, typer.Option(help="--triage joint: normalised entropy at or above which "
                                                  "the oracle corrects the verifier (0: every step).",
                                                  min=0, max=1)] = 0.0,
    quantile: Annotated[float, typer.Option(help="--triage entropy: the entropy quantile.", min=0, max=1)] = 0.5,
    steps_per_round: Annotated[int, typer.Option(help="Optimizer steps per annotation round.", min=1)] = 150,
    device: Annotated[str, typer.Option(help="cpu or cuda.")] = "cpu",
    dtype: Annotated[str, typer.Option(help="auto, float32 or bfloat16.")] = "auto",
    max_steps: Annotated[int | None, typer.Option(help="Round-0 optimizer steps.", min=1)] = None,
    replay: Annotated[float, typer.Option(help="Round k trains on its new labels plus this many times as "
                                          "many earlier records.", min=0)] = 1.0,
    rollout_tasks: Annotated[int | None, typer.Option(help="Roll out on the first N train templates only.",
                                                      min=1)] = None,
    max_episode_steps: Annotated[int | None, typer.Option(help="Cap rollout episodes at this many steps.",
                                                          min=1)] = None,
    round_lr_scale: Annotated[float, typer.Option(help="Annotation rounds train at round 0's learning "
                                                  "rates times this.", min=0.001, max=1)] = 0.25,
    workers: Annotated[str, _WORKERS] = "1",
    tasks_module: Annotated[list[str] | None, _TASKS_MODULE] = None,
) -> None:
    """V-Droid's annotation loop on the LLM verifier, with the oracle as annotator.

    Resumable: a round whose verifier exists is skipped, and a round's rollouts (visited.jsonl) are
    reused, so a second arm on the uncorrected path (--triage all vs entropy) can share round 0 and
    the rollouts by copying round-0/ and round-1/visited*.json* into its directory (joint rollouts
    are refused there: they follow the corrections)."""
    from droidverify.training.loop import LoopConfig, run_loop

    load_task_modules(tasks_module)
    try:
        cfg = recipe_config(out / "round-0" / "trainer", train, eval_file, device, dtype, {"max_steps": max_steps})
        loop = LoopConfig(output_dir=str(out), train_config=cfg, rounds=rounds,
                          rollout_seeds=parse_seeds(rollout_seeds), triage=triage, triage_quantile=quantile,
                          annotate_above=annotate_above,
                          steps_per_round=steps_per_round, replay=replay, round_lr_scale=round_lr_scale,
                          rollout_tasks=rollout_tasks, max_episode_steps=max_episode_steps)
        with _backend(workers, "rollouts") as backend:
            summary = run_loop(loop, progress=_say, provenance=_provenance(), backend=backend)
    except (DroidVerifyError, OSError) as e:
        exit_with(e)
    typer.echo(json.dumps(summary, indent=1))


def _check_reused_data(train: Path, spec: Any, budget: str) -> None:
    """A rerun reuses OUT/data/train.jsonl: only when it was collected with this budget's spec."""
    from dataclasses import asdict

    stats = train.with_suffix(".stats.json")
    if not train.exists() or not stats.is_file():
        return
    had = json.loads(stats.read_text()).get("spec")
    want = json.loads(json.dumps(asdict(spec), default=list))
    defaults = json.loads(json.dumps(asdict(type(spec)()), default=list))
    if had is not None:  # a field added since the data was collected had its default then
        had = {k: had.get(k, defaults[k]) for k in want}
    if had is not None and had != want:
        diff = sorted(k for k in want if had.get(k) != want[k])
        raise TrainingError(f"{train} was collected with another data spec ({', '.join(diff)} differ from "
                            f"--data-budget {budget}): use another --out or the budget it was collected with")


@train_app.command("default")
def default_command(
    out: Annotated[Path, typer.Option("--out", help="Working directory (data, trainer, verifier).")] = Path(
        "runs/train-default"),
    backbone: Annotated[str, typer.Option(help="compact (the default: a small scorer over frozen sentence "
                                          "embeddings, ~minutes on CPU) or llm (LoRA on the bundled model; "
                                          "the CPU recipe takes ~78 min, the GPU recipe with --device cuda).")
                        ] = "compact",
    device: Annotated[str, typer.Option(help="llm backbone: cpu (the recipe measured on 2 cores) or cuda.")] = "cpu",
    rounds: Annotated[int, typer.Option(help="Annotation rounds after round 0 (V-Droid's loop with the oracle "
                                        "as annotator).", min=0)] = 0,
    annotate_above: Annotated[float, typer.Option(help="rounds > 0 (either backbone): the oracle corrects steps "
                                                  "whose normalised entropy is at least this (0: every step).",
                                                  min=0, max=1)] = 0.0,
    max_steps: Annotated[int | None, typer.Option(help="llm backbone: round-0 optimizer steps (default: the "
                                                  "recipe's).", min=1)] = None,
    max_minutes: Annotated[float | None, typer.Option(help="Training time budget (llm default: the recipe's, "
                                                      "P3Config.cpu() / P3Config.gpu(); the CPU one stops at "
                                                      "78 minutes).",
                                                      min=0.1)] = None,
    data_budget: Annotated[str, typer.Option(help="Round-0 data: quarter (the default: 2 oracle, 2 noisy and 4 "
                                             "mid-task start seeds per train template; within 20 minutes on "
                                             "2 cores), half (4, 3 and 6: +0.02 validation top-1, ~27 "
                                             "minutes) or full (8, 6 and 10: the shipped verifier's data).")
                           ] = "quarter",
    stack_folds: Annotated[int, typer.Option(help="compact backbone: stacking folds (`train compact "
                                             "--stack-folds`; 0: off). 4 adds four trainings of 3/4 of the data.",
                                             min=0)] = 0,
    members: Annotated[int, typer.Option(help="compact backbone: a deep ensemble of K networks trained from "
                                         "seeds 0..K-1 (`train compact --members`); each adds one training.",
                                         min=1)] = 1,
    memory: Annotated[str, _MEMORY] = "diff",
    workers: Annotated[str, _WORKERS] = "auto",
) -> None:
    """From scratch: collect data, train, export OUT/verifier (compact) or OUT/loop/... (llm).

    --workers parallelises data collection and annotation rollouts; training itself is one process."""
    from droidverify.training.loop import DataSpec, LoopConfig, budget_spec, build_dataset, run_loop

    if backbone not in ("compact", "llm"):
        fail(f"unknown --backbone {backbone!r}; use compact or llm")
    if stack_folds and backbone != "compact":
        fail("--stack-folds is for the compact backbone (the LLM verifier has no combiner)")
    if members > 1 and backbone != "compact":
        fail("--members is for the compact backbone")
    if memory not in ("diff", "notes"):
        fail(f"unknown --memory {memory!r}; use notes or diff")
    if memory != "diff" and backbone != "compact":
        fail(f"--memory {memory} is for the compact backbone (the LLM recipe's rollouts write the diff memory)")
    out.mkdir(parents=True, exist_ok=True)
    try:
        spec = budget_spec(data_budget, memory=memory)
        held_out = DataSpec(split="validation", oracle_seeds=(0,), noisy_seeds=(100,), start_seeds=(),
                            phrasing="canonical", skin="none", memory=memory)
        train, ev = out / "data" / "train.jsonl", out / "data" / "eval.jsonl"
        _check_reused_data(train, spec, data_budget)
        _check_reused_data(ev, held_out, data_budget)
        with _backend(workers, "rollouts") as backend:
            if not train.exists():
                _say("collecting training records (train templates)")
                build_dataset(train, spec, progress=_say, backend=backend)
            if not ev.exists():
                _say("collecting held-out records (validation templates)")
                build_dataset(ev, held_out, progress=_say, backend=backend)
            if backbone == "compact":
                if rounds == 0:
                    from droidverify.training.compact import available_cores

                    # collection is over: the network may have every core (1.28x on 2 idle cores)
                    _train_compact(out / "compact", train, ev, out / "verifier",
                                   {"max_minutes": max_minutes, "threads": available_cores(),
                                    "stack_folds": stack_folds, "members": members, "memory": memory},
                                   _provenance())
                    typer.echo(str(out / "verifier"))
                    return
                from droidverify.training.compact import CompactConfig, CompactLoopConfig, run_compact_loop

                tc = CompactConfig(output_dir=str(out / "compact"), train_file=str(train), eval_file=str(ev),
                                   max_minutes=max_minutes, stack_folds=stack_folds, members=members,
                                   memory=memory)
                summary = run_compact_loop(CompactLoopConfig(output_dir=str(out / "compact-loop"), train_config=tc,
                                                             rounds=rounds, annotate_above=annotate_above),
                                           progress=_say, provenance=_provenance(), backend=backend)
                typer.echo(summary["rounds"][-1]["verifier"])
                return
            cfg = recipe_config(out / "loop" / "round-0" / "trainer", train, ev, device, "auto",
                                {"max_steps": max_steps, "max_minutes": max_minutes})
            loop = LoopConfig(output_dir=str(out / "loop"), train_config=cfg, rounds=rounds, triage="joint",
                              annotate_above=annotate_above)
            summary = run_loop(loop, progress=_say, provenance=_provenance(), backend=backend)
    except (DroidVerifyError, OSError) as e:
        exit_with(e)
    final = Path(summary["rounds"][-1]["verifier"])
    typer.echo(str(final))


def triage_command(
    run_dir: Annotated[Path, typer.Argument(help="A verifier run directory (`droidverify run --agent verifier`).")],
    quantile: Annotated[float, typer.Option(help="List steps at or above this entropy quantile.",
                                            min=0, max=1)] = 0.5,
    top: Annotated[int, typer.Option(help="Show at most this many steps.", min=1)] = 30,
) -> None:
    """Steps a person should review: the verifier's most uncertain (highest-entropy) steps."""
    from rich.console import Console
    from rich.table import Table

    from droidverify.agents.verifier.record import VerifierStepInfo
    from droidverify.runner.store import STEPS_FILE, read_jsonl

    path = run_dir / STEPS_FILE
    if not path.is_file():
        fail(f"{run_dir} has no {STEPS_FILE}: not a run directory")
    read = read_jsonl(path)
    rows = []
    for rec in read.records:
        step = rec.get("step") if isinstance(rec, dict) and rec.get("kind") == "step" else None
        info = VerifierStepInfo.from_info(step.get("agent_info") if isinstance(step, dict) else None)
        best = info.candidate(info.argmax)
        if not info.is_verifier or info.entropy_normalized is None or best is None:
            continue
        rows.append((info.entropy_normalized, rec.get("episode_id", "?"), rec.get("index", "?"),
                     best.description[:80]))
    if not rows:
        fail(f"{run_dir} holds no verifier steps with candidate scores")
    ents = sorted(r[0] for r in rows)
    threshold = ents[min(len(ents) - 1, int(quantile * len(ents)))]
    flagged = sorted((r for r in rows if r[0] >= threshold), key=lambda r: -r[0])
    table = Table(title=f"{len(flagged)} of {len(rows)} steps at or above normalised entropy {threshold:.3f}")
    for col in ("entropy", "episode", "step", "verifier's choice"):
        table.add_column(col)
    for ent, ep, idx, desc in flagged[:top]:
        table.add_row(f"{ent:.3f}", str(ep), str(idx), desc)
    Console().print(table)


def register(app: typer.Typer) -> None:
    app.add_typer(train_app, name="train")
    app.command("triage")(triage_command)
