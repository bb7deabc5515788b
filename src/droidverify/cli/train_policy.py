"""``droidverify train policy``: train the compact policy by SFT or ASL (docs/training.md, "Policies").

A module of its own that adds the command to ``droidverify train``; torch and the encoder load when
the command runs, so ``droidverify --help`` stays light.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from droidverify.cli._common import cli_errors

SEE_SOURCES = ("see-learned",)


def semantic_table_for(source: str, world_model: Path | None) -> Any:
    """The ``SemanticTable`` of an ASL reward source (the learned world model: shipped or ``world_model``)."""
    import functools

    from droidverify.errors import TrainingError
    from droidverify.rewards.see import LearnedWorldModel, semantic_table, shipped_world_model

    if source != "see-learned":
        raise TrainingError(f"unknown semantic reward source {source!r}; use one of {SEE_SOURCES} or exact")
    model = LearnedWorldModel.load(world_model) if world_model else shipped_world_model()
    return functools.partial(semantic_table, model=model)


def policy_command(
    train: Annotated[Path, typer.Option("--train", help="Training records (JSONL, schema 3).")],
    out: Annotated[Path, typer.Option("--out", help="Trainer directory; a rerun resumes.")],
    objective: Annotated[str, typer.Option(help="sft (cross-entropy on the annotator's action) or asl "
                                           "(ASL's semantic loss). P^3 is `train compact`.")] = "sft",
    reward: Annotated[str, typer.Option(help="asl: exact (the simulator's semantics recorded with the data) "
                                        "or see-learned (SEE with the learned world model).")] = "exact",
    world_model: Annotated[Path | None, typer.Option(help="see-learned: a world model directory "
                                                     "(default: the shipped one).")] = None,
    tau: Annotated[float | None, typer.Option(help="asl: the thresholded variant's similarity threshold "
                                              "(paper: 0.6); unset = the plain semantic reward.")] = None,
    beta: Annotated[float, typer.Option(help="asl thresholded variant: weight of the semantic part.")] = 0.5,
    samples: Annotated[int, typer.Option(help="asl: actions sampled per step.", min=1)] = 1,
    eval_file: Annotated[Path | None, typer.Option("--eval", help="Held-out records for accuracy.")] = None,
    export: Annotated[Path | None, typer.Option("--export", help="Write the policy (a compact verifier "
                                                "checkpoint) here (default OUT/verifier).")] = None,
    epochs: Annotated[int | None, typer.Option(help="Passes over the data.", min=1)] = None,
    learning_rate: Annotated[float | None, typer.Option("--lr", help="Learning rate.")] = None,
    max_minutes: Annotated[float | None, typer.Option(help="Stop after this many minutes of training.",
                                                      min=0.1)] = None,
    seed: Annotated[int, typer.Option(help="Initialisation, data order and sampling.")] = 0,
    finish: Annotated[str, typer.Option(help="status (declares done) or submit (SmartSnap's self-verifying "
                                        "policy: train on `train sv-data` records).")] = "status",
    type_head: Annotated[bool, typer.Option("--type-head/--no-type-head", help="Score the action type once "
                                            "per step, then the candidate within it (the default); "
                                            "--no-type-head: the flat network docs/policies.md measured.")] = True,
) -> None:
    """Train the compact policy (the compact verifier's softmax) by SFT or ASL; export it as a verifier."""
    from droidverify.cli.train import _provenance, _say
    from droidverify.training.policy import PolicyConfig, PolicyTrainer

    with cli_errors():
        table = None
        kind = "exact"
        if objective == "asl" and reward != "exact":
            table = semantic_table_for(reward, world_model)
            kind = "table"
        values = {k: v for k, v in {"epochs": epochs, "learning_rate": learning_rate,
                                    "max_minutes": max_minutes}.items() if v is not None}
        cfg = PolicyConfig(output_dir=str(out), train_file=str(train), eval_file=str(eval_file) if eval_file else None,
                           objective=objective, reward=kind, reward_name=reward, tau=tau, beta=beta,
                           samples=samples, seed=seed, finish=finish, type_head=type_head, **values)
        trainer = PolicyTrainer(cfg, table=table, log=_say)
        result = trainer.train()
        dest = export or out / "verifier"
        meta = {k: v for k, v in result.items() if k not in ("eval", "train_fit")}
        prov: dict[str, Any] = {**_provenance(), "data": {"train": train.name, "eval": eval_file.name if eval_file else None},
                                "result": meta, "metrics": {"eval": result.get("eval"), "train_fit": result.get("train_fit")}}
        trainer.export(dest, provenance=prov)
        (out / "result.json").write_text(json.dumps(result, indent=1))
    typer.echo(json.dumps({"verifier": str(dest), "objective": objective,
                           "eval": {k: v for k, v in (result.get("eval") or {}).items()
                                    if k in ("top1", "pairwise", "coverage", "records")}}))


def sv_data_command(
    out: Annotated[Path, typer.Option("--out", help="JSONL file to write (statistics beside it).")],
    split: Annotated[str, typer.Option(help="Templates: train, validation or test.")] = "train",
    seeds: Annotated[str, typer.Option(help="Task seeds of the oracle's episodes.")] = "0-1",
    skin: Annotated[str, typer.Option(help="seeded (a simulator skin per episode) or none.")] = "seeded",
    also: Annotated[list[Path] | None, typer.Option("--also", help="Record files (`train data`) whose other "
                                                     "states join, with submit candidates in place of status "
                                                     "complete (their status-complete labels are left out).")] = None,
    also_sources: Annotated[str, typer.Option(help="--also: the record sources taken (comma-separated).")] = (
        "policy,self_correction"),
    also_min_seed: Annotated[int, typer.Option(help="--also: oracle records only from seeds >= this (mid-task "
                                               "starts; the launcher episodes are collected here).")] = 400,
) -> None:
    """Warm-start records of the self-verifying compact policy: the oracle's episodes ending in a
    submit that cites the round proving the task (training.selfverify)."""
    from droidverify.cli._common import parse_seeds
    from droidverify.cli.train import _say
    from droidverify.tasks import registry
    from droidverify.training.loop import sim_apps
    from droidverify.training.records import iter_records, write_records
    from droidverify.training.selfverify import submit_records, with_submit_candidates

    with cli_errors():
        if split not in registry.SPLITS:
            raise typer.BadParameter(f"unknown split {split!r}; use one of {registry.SPLITS}")
        tasks = registry.tasks_for(split, parse_seeds(seeds))
        stats: dict[str, Any] = {}
        n = write_records(out, submit_records(tasks, split_of=registry.split_of, apps=sim_apps(), skin=skin,
                                              stats=stats))
        sources = {x.strip() for x in also_sources.split(",") if x.strip()}
        for extra in also or []:
            kept = dropped = 0

            def converted(path: Path = extra) -> Any:
                nonlocal kept, dropped
                for rec in iter_records(path):
                    if not (rec.source in sources or (rec.source == "oracle" and rec.seed >= also_min_seed)):
                        continue
                    new = with_submit_candidates(rec)
                    if new is None:
                        dropped += 1
                        continue
                    kept += 1
                    yield new

            n += write_records(out, converted(), append=True)
            stats.setdefault("also", {})[extra.name] = {"records": kept, "dropped_status_complete": dropped}
        stats.update({"split": split, "seeds": parse_seeds(seeds), "skin": skin, "written": n})
        out.with_suffix(".stats.json").write_text(json.dumps(stats, indent=1))
        _say(f"{n} records from {stats.get('episodes', 0)} episodes; {stats.get('proof_not_offered', 0)} final "
             "steps dropped (proof round not offered)")
    typer.echo(json.dumps(stats))


def policy_grpo_command(
    init: Annotated[Path, typer.Option("--init", help="The start policy: a compact verifier directory (the SFT "
                                       "warm start of `train policy --finish submit`).")],
    out: Annotated[Path, typer.Option("--out", help="Run directory; a rerun resumes.")],
    reward: Annotated[str, typer.Option(help="smartsnap (SmartSnap's 3C composite on the trained compact "
                                        "evidence judge) or rule (the checker: the oracle upper bound).")] = "smartsnap",
    compact_judge: Annotated[Path | None, typer.Option(help="smartsnap: a compact judge directory (default: "
                                                       "the shipped one).")] = None,
    judge_model: Annotated[str | None, typer.Option(help="smartsnap: an LLM evidence judge instead (a model "
                                                    "path or openai:URL[#model]); never the policy.")] = None,
    iterations: Annotated[int, typer.Option(min=1)] = 20,
    tasks_per_iteration: Annotated[int, typer.Option(min=1)] = 16,
    group_size: Annotated[int, typer.Option(min=2, help="Episodes per task (SmartSnap: 8).")] = 8,
    learning_rate: Annotated[float, typer.Option("--lr")] = 3e-4,
    kl_beta: Annotated[float, typer.Option(help="KL to the start policy (0: none).", min=0)] = 0.0,
    temperature: Annotated[float, typer.Option(help="Sampling temperature of the rollouts.")] = 1.0,
    max_steps: Annotated[int | None, typer.Option(help="Step limit per episode (default: the task's).", min=1)] = None,
    max_minutes: Annotated[float | None, typer.Option(min=0.1)] = None,
    seed: Annotated[int, typer.Option()] = 0,
    workers: Annotated[str, typer.Option(help="Rollout workers: N or auto.")] = "auto",
    export: Annotated[Path | None, typer.Option(help="Final policy directory (default OUT/verifier).")] = None,
) -> None:
    """GRPO on the compact policy (SmartSnap's recipe): G sampled episodes per task, judged, group-normalised
    advantages, clipped policy gradient; rollouts on worker processes."""
    from droidverify.cli.train import _backend, _provenance, _say
    from droidverify.runner.grpo import CompactPolicyPlayer
    from droidverify.training.grpo import GRPOConfig, rollout_groups
    from droidverify.training.policy_grpo import PolicyGRPOConfig, PolicyGRPOTrainer

    if reward not in ("smartsnap", "rule"):
        raise typer.BadParameter(f"--reward must be smartsnap or rule, got {reward!r}")
    with cli_errors(), _backend(workers, "rollouts") as backend:
        cfg = PolicyGRPOConfig(output_dir=str(out), init_policy=str(init), iterations=iterations,
                               tasks_per_iteration=tasks_per_iteration, group_size=group_size,
                               learning_rate=learning_rate, kl_beta=kl_beta, temperature=temperature,
                               max_minutes=max_minutes, seed=seed)
        player_kw = {"compact_judge": str(compact_judge) if compact_judge else None, "judge_model": judge_model}

        def rollout(policy: Path, tasks: list[Any], k: int) -> list[Any]:
            gcfg = GRPOConfig(group_size=group_size, temperature=temperature, max_steps=max_steps,
                              seed=seed * 100_003 + k, reward=reward)
            return rollout_groups(tasks, gcfg, player=CompactPolicyPlayer(str(policy), **player_kw),
                                  backend=backend, out=out / "groups" / f"iteration-{k}.jsonl")

        trainer = PolicyGRPOTrainer(cfg, rollout=rollout, log=_say)
        (out / "judge.json").write_text(json.dumps({"reward": reward, **player_kw}))
        result = trainer.train()
        dest = export or out / "verifier"
        trainer.export(dest, provenance={**_provenance(), "result": result})
    typer.echo(json.dumps({"verifier": str(dest), **result}))


def register(app: typer.Typer) -> None:
    from droidverify.cli.train import train_app  # the `train` group; this module adds its commands to it

    train_app.command("policy")(policy_command)
    train_app.command("sv-data")(sv_data_command)
    train_app.command("policy-grpo")(policy_grpo_command)
