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
                           samples=samples, seed=seed, **values)
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


def register(app: typer.Typer) -> None:
    from droidverify.cli.train import train_app  # the `train` group; this module adds one command to it

    train_app.command("policy")(policy_command)
