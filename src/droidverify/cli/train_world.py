"""``droidverify train world-model``: train SEE's learned world model on simulator transitions of the
train templates and measure SEE's ROC AUC against the simulator's semantics on validation pairs
(docs/rewards.md, "Learned world model").

A module of its own that adds the command to ``droidverify train``; everything heavy is imported
when the command runs, so ``droidverify --help`` stays light.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Annotated, Any

import typer

from droidverify.cli._common import cli_errors, parse_seeds


def _cached_transitions(out: Path, split: str, seeds: list[int], max_states: int, wrong_turns: float,
                        say: Any) -> Any:
    """The transitions of a collection spec, collected once into ``out`` (the simulator's part is the
    slow one; a rerun with the same spec reads the file)."""
    from droidverify.rewards.see import (
        CHANGE_VERSION,
        TRANSITIONS_VERSION,
        TransitionSet,
        collect_transitions,
    )

    spec = {"split": split, "seeds": seeds, "max_states": max_states, "wrong_turns": wrong_turns,
            "change_version": CHANGE_VERSION, "version": TRANSITIONS_VERSION}
    digest = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:10]
    path = out / f"transitions-{split}-{digest}.jsonl.gz"
    if path.is_file():
        data = TransitionSet.load(path)
        say(f"{split}: {len(data.transitions)} transitions from {path.name}")
        return data
    say(f"collecting {split} transitions (seeds {seeds}, up to {max_states} states per episode)")
    data = collect_transitions(split, seeds=seeds, max_states=max_states, wrong_turns=wrong_turns,
                               progress=lambda msg: say(f"  {split}: {msg}"))
    data.save(path)
    return data


def world_model_command(
    out: Annotated[Path, typer.Option("--out", help="Run directory (transitions, embedding cache, checkpoint.pt, "
                                      "log.jsonl, curves.png); a rerun resumes.")],
    seeds: Annotated[str, typer.Option("--seeds", help="Task seeds of the train-template episodes: 0-1, 0,3 ...")] = "0",
    max_states: Annotated[int, typer.Option("--max-states", help="States per episode whose every candidate "
                                            "action is executed.", min=1, max=100)] = 8,
    wrong_turns: Annotated[float, typer.Option("--wrong-turns", help="Chance that an episode leaves the "
                                               "oracle's path at a state (it continues from there).",
                                               min=0, max=1)] = 0.25,
    epochs: Annotated[int, typer.Option("--epochs", help="Passes over the data.", min=1)] = 10,
    d_model: Annotated[int, typer.Option("--d-model", help="Width.", min=8)] = 128,
    layers: Annotated[int, typer.Option("--layers", help="Transformer layers (0: the action token alone).",
                                        min=0, max=6)] = 1,
    learning_rate: Annotated[float, typer.Option("--lr", help="Learning rate.", min=1e-6)] = 2e-3,
    batch_size: Annotated[int, typer.Option("--batch-size", help="Examples per step.", min=1)] = 64,
    max_minutes: Annotated[float | None, typer.Option("--max-minutes", help="Stop (checkpointed, exported) "
                                                      "after the epoch that passes this many minutes.",
                                                      min=0.1)] = None,
    eval_pairs: Annotated[int, typer.Option("--eval-pairs", help="Validation action pairs for SEE's ROC AUC "
                                            "after every epoch (0: none).", min=0)] = 500,
    export: Annotated[Path | None, typer.Option("--export", help="Write the trained world model here "
                                                "(default OUT/world_model).")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Initialisation and data order.", min=0)] = 0,
) -> None:
    """Train SEE's learned world model (a small transformer over frozen MiniLM embeddings) on CPU:
    every candidate action of states along oracle paths of the train templates (with wrong turns)
    runs on a simulator clone; the model learns the embedding of the real change (cosine loss).
    SEE's ROC AUC against the simulator's semantics is measured on validation pairs."""
    from droidverify.cli.train import _provenance, _say

    with cli_errors():
        from droidverify.llm.embeddings import TextEncoder
        from droidverify.rewards.metrics import roc_auc
        from droidverify.rewards.see import (
            LearnedWorldModel,
            WorldNetConfig,
            pair_truth,
            sample_pairs,
            see_auc_table,
        )
        from droidverify.training.world_model import WorldModelConfig, WorldModelTrainer

        cfg = WorldModelConfig(output_dir=str(out), epochs=epochs, batch_size=batch_size,
                               learning_rate=learning_rate, max_minutes=max_minutes, seed=seed)
        cfg.validate()
        net_cfg = WorldNetConfig(d_model=d_model, layers=layers, ff=2 * d_model)
        net_cfg.validate()  # before minutes of data collection
        out.mkdir(parents=True, exist_ok=True)
        task_seeds = parse_seeds(seeds)
        train_data = _cached_transitions(out, "train", task_seeds, max_states, wrong_turns, _say)
        eval_data = _cached_transitions(out, "validation", [0], min(max_states, 4), wrong_turns, _say)
        model = LearnedWorldModel.create(net_cfg, encoder=TextEncoder(), seed=seed)
        train_ex, eval_ex = model.examples(train_data), model.examples(eval_data)
        pairs = sample_pairs(eval_pairs, seed=0, split="validation") if eval_pairs else []
        truth = pair_truth(pairs)

        def see_auc(m: Any) -> dict[str, Any]:
            m.clear_cache()  # the weights changed since the last epoch
            if not pairs:
                return {}
            return {"see_auc": roc_auc([m.similarity(p.observation, p.reference, p.other) for p in pairs], truth)}

        trainer = WorldModelTrainer(model, cfg, train_ex, eval_ex, compute_metrics=see_auc, log=_say)
        result = trainer.train()
        model.clear_cache()
        table = see_auc_table(pairs, truth, model=model) if pairs else {}
        where = export or out / "world_model"
        prov = _provenance({"data": {"train": {**train_data.meta, "transitions": len(train_data.transitions),
                                               "screens": len(train_data.screens), "examples": len(train_ex)},
                                     "eval": {**eval_data.meta, "transitions": len(eval_data.transitions),
                                              "examples": len(eval_ex)}},
                            "result": result, "see_auc_validation": table})
        # templates are listed once, in the data files; the provenance keeps their count
        for part in prov["data"].values():
            part["templates"] = len(part.get("templates", []))
        trainer.export(where, provenance=prov)
    typer.echo(json.dumps({"world_model": str(where), "eval": result.get("eval"), "see_auc_validation": table},
                          indent=1))


def register(app: typer.Typer) -> None:
    from droidverify.cli.train import train_app  # the `train` group; this module adds one command to it

    train_app.command("world-model")(world_model_command)
