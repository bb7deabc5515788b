"""``droidverify train judge`` (train a compact judge on labelled sets), ``droidverify train
llm-judge`` (the LLM judge: LoRA + score head) and ``droidverify train judge-data`` (build a large
labelled set for them, every variant of every template at each seed).

The command functions are :func:`train_judge_command` and :func:`judge_data_command`; :func:`register`
(called by the package for every command module) adds them to ``droidverify train``.
"""

from __future__ import annotations

import json
import shlex
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from droidverify.cli._common import cli_errors, fail, parse_seeds


def _say(msg: str) -> None:
    typer.echo(f"[{time.strftime('%H:%M:%S')}] {msg}", err=True)


def _command(words: list[str], options: dict[str, Any]) -> str:
    """The command line that reproduces a run (options left at their defaults are omitted)."""
    args = list(words)
    for flag, value in options.items():
        if value is not None:
            args += [flag, str(value)]
    return shlex.join(args)


def _without_dirs(command: str | None) -> str | None:
    """A recorded command with its --out file named without its directory (provenance never
    records a machine's paths)."""
    if not command:
        return command
    words = shlex.split(command)
    return shlex.join([Path(w).name if i and words[i - 1] == "--out" else w for i, w in enumerate(words)])


def _sets_provenance(train: Path, eval_file: Path | None, headers: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """What a judge was trained and measured on, for its provenance: each labelled set by file name
    (never a machine's path), split, size, seeds, version and the command that built it."""
    sets = [("train", train), *((("eval", eval_file),) if eval_file else ())]
    return {name: {"file": Path(p).name, "split": headers[name].get("split"), "episodes": headers[name].get("n"),
                   "seeds": headers[name].get("seeds"), "set_version": headers[name].get("version"),
                   "built_by": _without_dirs(headers[name].get("command"))}
            for name, p in sets}


def judge_data_command(
    out: Annotated[Path, typer.Option("--out", help="The set to write (.jsonl or .jsonl.gz; gzip is ~15x "
                                      "smaller: every screen of every episode is in it).")],
    split: Annotated[str, typer.Option("--split", help="Templates: train (to train on) | validation "
                                       "(to measure on).")] = "train",
    seeds: Annotated[str, typer.Option("--seeds", help="Task seeds: every template at each (e.g. 0-2).")] = "0-2",
    phrasing: Annotated[str, typer.Option("--phrasing", help="Goal wording: seeded (drawn per template and "
                                          "seed) or canonical.")] = "seeded",
    extended: Annotated[bool, typer.Option("--extended/--basic", help="Add the submit near misses and "
                                           "evidence labels (the evidence setting needs them).")] = True,
    other_answers: Annotated[bool, typer.Option("--other-answers", help="With --extended: also a query "
                                                "answered with another text of its screen (other_answer, "
                                                "sv_other_answer; docs/rewards.md).")] = False,
    from_run: Annotated[list[Path] | None, typer.Option("--from-run", help="Instead of the oracle's variants: "
                                                        "the episodes of a run directory of SPLIT's templates "
                                                        "on the simulator (an agent's own successes and "
                                                        "failures), replayed and labelled by the checker; "
                                                        "repeat for several runs.")] = None,
    also: Annotated[list[Path] | None, typer.Option("--also", help="Copy the episodes of another labelled "
                                                    "set of the same split into this one (repeatable).")] = None,
) -> None:
    """Build a labelled set for training or measuring a compact judge: every variant (oracle, near
    misses, submit episodes with right, missing or irrelevant evidence) of every template of SPLIT at
    each seed, replayed on the simulator and labelled by the checker. Not balanced.

    With --from-run, the set holds an agent's own episodes instead (variant `policy`), so a judge
    learns the failures of the agent it will judge (--also adds the oracle-variant set beside them)."""
    if split not in ("train", "validation"):
        fail(f"--split {split!r}: a judge set is built from train or validation templates (test is never "
             "used for judges)")
    if phrasing not in ("seeded", "canonical"):
        fail(f"unknown --phrasing {phrasing!r}; use seeded or canonical")
    from droidverify.rewards.labelled import (
        PolicyItemStats,
        build_training_items,
        iter_set,
        policy_items,
        read_header,
        write_set,
    )

    console = Console(stderr=True)
    with cli_errors():
        seed_list = parse_seeds(seeds)
        t0 = time.perf_counter()
        last = [0.0]

        def progress(done: int, total: int) -> None:
            if time.perf_counter() - last[0] > 15 or done == total:
                last[0] = time.perf_counter()
                _say(f"  {done}/{total} task instances replayed")

        counts: dict[str, list[int]] = {}

        def counted(items: Any) -> Any:
            for it in items:
                row = counts.setdefault(it.variant, [0, 0, 0, 0])
                row[0 if it.label else 1] += 1
                if it.evidence_label is not None:
                    row[2 if it.evidence_label else 3] += 1
                yield it

        args = ["droidverify", "train", "judge-data", "--out", str(out), "--split", split]
        also_headers = {f: read_header(f) for f in also or []}
        for f, head in also_headers.items():
            if head.get("split") != split:
                fail(f"--also {f}: a set of {head.get('split')} templates, not {split}")
        policy_stats = PolicyItemStats()
        if from_run:
            from droidverify.runner.store import read_episodes, trajectories_of

            runs = list(from_run)
            for r in runs:
                if not (Path(r) / "episodes.jsonl").is_file():
                    fail(f"--from-run {r}: not a run directory (no episodes.jsonl)")

            def from_runs() -> Any:
                for i, r in enumerate(runs):
                    # every attempt of a run with judged retries: each is an episode the agent played
                    every = [rec for tries in read_episodes(Path(r)).attempts.values() for rec in tries.values()]
                    _say(f"  {r}: {len(every)} episodes")
                    yield from policy_items(trajectories_of(r, every), split=split, tag=f"r{i}.",
                                            stats=policy_stats)

            items: Any = from_runs()
            for r in runs:
                args += ["--from-run", str(r)]
            extra: dict[str, Any] = {"builder": "policy_items", "runs": [Path(r).name for r in runs]}
        else:
            if other_answers and not extended:
                fail("--other-answers needs --extended (they are near misses of extended sets)")
            items = build_training_items(split, seeds=seed_list, extended=extended, phrasing=phrasing,
                                         other_answers=other_answers, progress=progress)
            args += ["--seeds", seeds]
            if phrasing != "seeded":
                args += ["--phrasing", phrasing]
            if not extended:
                args.append("--basic")
            if other_answers:
                args.append("--other-answers")
            extra = {"builder": "build_training_items", "seeds": seed_list, "extended": extended,
                     "phrasing": phrasing, "other_answers": other_answers}

        def with_also(first: Any) -> Any:
            yield from first
            for f in also_headers:
                yield from iter_set(f)

        for f in also_headers:
            args += ["--also", str(f)]
        if also_headers:
            extra["also"] = [{"file": Path(f).name, **{k: head.get(k) for k in ("n", "command", "seeds")}}
                             for f, head in also_headers.items()]
        extra["command"] = shlex.join(args)
        path = write_set(counted(with_also(items)), out, split=split, extra=extra)
    source = f"{len(from_run)} run(s)" if from_run else f"seeds {seeds}"
    table = Table(title=f"{sum(r[0] + r[1] for r in counts.values())} trajectories ({split} templates, "
                        f"{source}) -> {path} in {time.perf_counter() - t0:.0f} s")
    for col in ("variant", "checker success", "checker failure", "evidence shown", "evidence not shown"):
        table.add_column(col, justify="left" if col == "variant" else "right")
    for k, (s, f, es, en) in sorted(counts.items()):
        table.add_row(k, str(s), str(f), str(es) if es + en else "-", str(en) if es + en else "-")
    Console().print(table)
    if from_run:
        console.print(f"from the runs: {policy_stats.kept} episodes kept ({policy_stats.successes} successes); "
                      f"left out: {policy_stats.no_action} with a step without an action, "
                      f"{policy_stats.diverged} whose replay diverged from the recording")
    console.print("next: droidverify train judge --setting passive|evidence|both|trajectory --train SET "
                  "--eval SET --out DIR")


def train_judge_command(
    train: Annotated[Path, typer.Option("--train", help="A labelled set of TRAIN templates (`droidverify "
                                        "train judge-data --split train`).")],
    out: Annotated[Path, typer.Option("--out", help="Run directory (checkpoint.pt, embedding cache, log.jsonl, "
                                      "curves.png, result.json); a rerun resumes.")],
    setting: Annotated[str, typer.Option("--setting", help="passive (goal, final screen, answer, ending, last "
                                         "actions) | evidence (goal, submit message, cited exhibits) | both "
                                         "(one network for the two) | trajectory (passive plus every action "
                                         "and earlier screens).")] = "passive",
    eval_file: Annotated[Path | None, typer.Option("--eval", help="A labelled set of VALIDATION templates: "
                                                   "measured only, never used to choose anything.")] = None,
    export: Annotated[Path | None, typer.Option("--export", help="Where to write the judge (default "
                                                "OUT/judge): `droidverify judge --method compact "
                                                "--judge-model` loads it.")] = None,
    epochs: Annotated[int | None, typer.Option(help="Passes over the data (default 3).", min=1)] = None,
    layers: Annotated[int | None, typer.Option(help="Transformer layers (default 1; 0: pooled MLP).", min=0)] = None,
    d_model: Annotated[int | None, typer.Option(help="Width (default 64).", min=8)] = None,
    learning_rate: Annotated[float | None, typer.Option("--lr", help="Learning rate (default 1e-3).")] = None,
    dev_fraction: Annotated[float | None, typer.Option(help="With --threshold-folds 0: the share of train "
                                                       "templates held out to choose the threshold (default "
                                                       "0.15).", min=0, max=0.9)] = None,
    threshold_folds: Annotated[int | None, typer.Option(help="K >= 2: choose the threshold on out-of-fold "
                                                        "scores of every train template (K more networks, "
                                                        "each without one fold of templates) and train the "
                                                        "judge on all of them (default 4; 0: a dev slice of "
                                                        "--dev-fraction instead).", min=0)] = None,
    hostile_items: Annotated[int | None, typer.Option(help="Held-out episodes the hostile texts are put on "
                                                      "(default 60; 0: skip).", min=0)] = None,
    members: Annotated[int | None, typer.Option(help="A deep ensemble: K networks from other seeds judging "
                                                "by their mean P(success) (default 1; each threshold fold "
                                                "trains K too).", min=1)] = None,
    max_minutes: Annotated[float | None, typer.Option(help="Stop (checkpointed) after this many minutes of "
                                                      "training.", min=0.1)] = None,
    seed: Annotated[int | None, typer.Option(help="Initialisation, data order, dev templates.")] = None,
) -> None:
    """Train a compact judge (a small network over frozen MiniLM embeddings, P(success) of an
    episode) on CPU; choose its threshold on held-out train templates; export it with provenance."""
    from droidverify.cli.train import _commit
    from droidverify.training.judge import COMPACT_TRAIN_SETTINGS, JudgeTrainConfig, JudgeTrainer, check_set

    if setting not in COMPACT_TRAIN_SETTINGS:
        fail(f"unknown --setting {setting!r}; use one of {', '.join(COMPACT_TRAIN_SETTINGS)}")
    overrides = {"epochs": epochs, "layers": layers, "d_model": d_model, "learning_rate": learning_rate,
                 "dev_fraction": dev_fraction, "threshold_folds": threshold_folds, "hostile_items": hostile_items,
                 "max_minutes": max_minutes, "seed": seed, "members": members}
    target = export or out / "judge"
    with cli_errors():
        cfg = JudgeTrainConfig(output_dir=str(out), train_file=str(train),
                               eval_file=str(eval_file) if eval_file else None, setting=setting,
                               **{k: v for k, v in overrides.items() if v is not None})
        cfg.validate()
        headers = {"train": check_set(train), **({"eval": check_set(eval_file)} if eval_file else {})}
        trainer = JudgeTrainer(cfg, log=_say)
        result = trainer.train()
        command = _command(["droidverify", "train", "judge", "--setting", setting, "--train", str(train)],
                           {"--eval": eval_file, "--out": out, "--export": export, "--epochs": epochs,
                            "--layers": layers, "--d-model": d_model, "--lr": learning_rate,
                            "--dev-fraction": dev_fraction, "--threshold-folds": threshold_folds,
                            "--hostile-items": hostile_items, "--members": members,
                            "--max-minutes": max_minutes, "--seed": seed})
        data = _sets_provenance(train, eval_file, headers)
        provenance = {"command": command, "commit": _commit(), "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
                      "data": data, "result": {k: v for k, v in result.items()
                                               if k not in ("eval", "train_fit", "hostile", "input_size")},
                      "metrics": {k: result.get(k) for k in ("eval", "hostile", "input_size")}}
        trainer.export(target, provenance=provenance)
    summary: dict[str, Any] = {"judge": str(target), "thresholds": result["thresholds"],
                               "minutes_train": round(result["seconds_train"] / 60, 2)}
    for s, m in (result.get("eval") or {}).items():
        summary[s] = {k: round(m[k], 4) if isinstance(m[k], float) else m[k]
                      for k in ("n", "accuracy", "precision", "recall", "f1", "roc_auc")}
        if "vs_checker" in m:
            summary[s]["vs_checker"] = {k: round(v, 4) if isinstance(v, float) else v
                                        for k, v in m["vs_checker"].items()}
    for s, h in (result.get("hostile") or {}).items():
        summary.setdefault(s, {})["hostile_flips"] = f"{h['flips']}/{h['pairs']}"
    typer.echo(json.dumps(summary))


def train_llm_judge_command(
    train: Annotated[Path, typer.Option("--train", help="A labelled set of TRAIN templates (`droidverify "
                                        "train judge-data --split train`).")],
    out: Annotated[Path, typer.Option("--out", help="Run directory (checkpoint-N/, log.jsonl, curves.png, "
                                      "result.json); a rerun resumes.")],
    setting: Annotated[str, typer.Option("--setting", help="passive (the passive judge's scored prompt: the "
                                         "whole episode) | evidence (SmartSnap's: submit message and cited "
                                         "exhibits) | both (one adapter, a threshold each).")] = "passive",
    eval_file: Annotated[Path | None, typer.Option("--eval", help="A labelled set of VALIDATION templates: "
                                                   "measured only, never used to choose anything.")] = None,
    export: Annotated[Path | None, typer.Option("--export", help="Where to write the judge (default "
                                                "OUT/judge): `droidverify judge --method lora --judge-model` "
                                                "loads it.")] = None,
    model: Annotated[str | None, typer.Option("--model", help="Base LLM (default: the bundled "
                                              "SmolLM2-135M-Instruct).")] = None,
    device: Annotated[str, typer.Option(help="cpu or cuda.")] = "cpu",
    dtype: Annotated[str, typer.Option(help="auto, float32 or bfloat16.")] = "auto",
    max_steps: Annotated[int | None, typer.Option(help="Optimizer steps (default 300).", min=1)] = None,
    batch_size: Annotated[int | None, typer.Option(help="Episodes per optimizer step (default 4).", min=1)] = None,
    lora_layers: Annotated[int | None, typer.Option(help="LoRA on the last N layers (default 6; 0: all).",
                                                    min=0)] = None,
    learning_rate: Annotated[float | None, typer.Option("--lr", help="Adapter learning rate (default 1e-3).")
                             ] = None,
    max_eval_items: Annotated[int | None, typer.Option(help="Held-out episodes measured (default 300).", min=1)
                              ] = None,
    max_dev_items: Annotated[int | None, typer.Option(help="Dev episodes scored to choose the threshold "
                                                      "(default 300).", min=1)] = None,
    max_chars: Annotated[int | None, typer.Option(help="Characters of the episode in a prompt (default 4000; "
                                                  "the judge runs with the value it was trained with).", min=200)
                         ] = None,
    max_prompt_tokens: Annotated[int | None, typer.Option(help="Longer prompts are left out of training "
                                                          "(default 2000).", min=16)] = None,
    hostile_items: Annotated[int | None, typer.Option(help="Held-out episodes the hostile texts are put on "
                                                      "(default 10; 0: skip).", min=0)] = None,
    max_minutes: Annotated[float | None, typer.Option(help="Stop (checkpointed) after this many minutes of "
                                                      "training.", min=0.1)] = None,
    seed: Annotated[int | None, typer.Option(help="Initialisation, data order, dev templates.")] = None,
) -> None:
    """Train the LLM judge (a LoRA adapter and score head on the base LLM, as the LLM verifier is
    trained) on checker labels; choose its threshold on held-out train templates; export it with
    provenance. On a CPU this runs at small scale; the GPU recipe is `--device cuda` with more steps."""
    from droidverify.cli.train import _commit
    from droidverify.training.judge import TRAIN_SETTINGS, check_set
    from droidverify.training.llm_judge import LLMJudgeConfig, LLMJudgeTrainer

    if setting not in TRAIN_SETTINGS:
        fail(f"unknown --setting {setting!r}; use one of {', '.join(TRAIN_SETTINGS)}")
    overrides = {"max_steps": max_steps, "batch_size": batch_size, "learning_rate": learning_rate,
                 "max_eval_items": max_eval_items, "max_dev_items": max_dev_items, "max_minutes": max_minutes,
                 "seed": seed, "model": model, "max_chars": max_chars, "max_prompt_tokens": max_prompt_tokens,
                 "hostile_items": hostile_items}
    if lora_layers is not None:
        overrides["lora_layers"] = lora_layers or None
    target = export or out / "judge"
    with cli_errors():
        cfg = LLMJudgeConfig(output_dir=str(out), train_file=str(train), setting=setting, device=device,
                             dtype=dtype, eval_file=str(eval_file) if eval_file else None,
                             **{k: v for k, v in overrides.items() if v is not None})
        cfg.validate()
        headers = {"train": check_set(train), **({"eval": check_set(eval_file)} if eval_file else {})}
        trainer = LLMJudgeTrainer(cfg, log=_say)
        result = trainer.train()
        # provenance never records a machine's paths: files and directories by name
        command = _command(["droidverify", "train", "llm-judge", "--setting", setting, "--train", train.name],
                           {"--eval": eval_file.name if eval_file else None, "--out": out.name,
                            "--export": export.name if export else None, "--model": model,
                            "--device": device if device != "cpu" else None,
                            "--dtype": dtype if dtype != "auto" else None, "--max-steps": max_steps,
                            "--batch-size": batch_size, "--lora-layers": lora_layers, "--lr": learning_rate,
                            "--max-eval-items": max_eval_items, "--max-dev-items": max_dev_items,
                            "--max-chars": max_chars, "--max-prompt-tokens": max_prompt_tokens,
                            "--hostile-items": hostile_items,
                            "--max-minutes": max_minutes, "--seed": seed})
        data = _sets_provenance(train, eval_file, headers)
        provenance = {"command": command, "commit": _commit(), "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
                      "data": data, "result": {k: v for k, v in result.items() if k != "eval"},
                      "metrics": {"eval": result.get("eval")}}
        trainer.export(target, provenance=provenance)
    summary: dict[str, Any] = {"judge": str(target), "steps": result["step"],
                               "thresholds": {s: round(t, 6) for s, t in trainer.thresholds.items()},
                               "minutes_train": round(result["seconds_training"] / 60, 2)}
    keys = ("n", "accuracy", "precision", "recall", "f1", "roc_auc")
    for s, m in (result.get("eval") or {}).items():
        summary[s] = {k: round(m[k], 4) if isinstance(m[k], float) else m[k] for k in keys}
    for s, m in ((result.get("untrained") or {}).get("eval") or {}).items():
        summary.setdefault("untrained", {})[s] = {k: round(m[k], 4) if isinstance(m[k], float) else m[k]
                                                  for k in keys}
    for s, h in (result.get("hostile") or {}).items():
        summary.setdefault(s, {})["hostile_flips"] = f"{h['flips']}/{h['pairs']}"
    typer.echo(json.dumps(summary))


def register(app: typer.Typer) -> None:
    """Add both commands to the ``droidverify train`` group (``cli.train.train_app``; the package
    registers every command module with the root ``app``, ``train`` before this one)."""
    from droidverify.cli.train import train_app

    del app  # the commands belong to the train group, not to the root
    if not any(c.name == "judge" for c in train_app.registered_commands):
        train_app.command("judge")(train_judge_command)
        train_app.command("judge-data")(judge_data_command)
        train_app.command("llm-judge")(train_llm_judge_command)
