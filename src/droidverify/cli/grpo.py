"""``droidverify train grpo-rollouts``: GRPO rollout groups (G sampled episodes per task, rewards,
group-relative advantages) as JSONL for a GRPO trainer (docs/parallel.md, "GRPO rollouts").

A module of its own that adds the command to ``droidverify train``; everything heavy is imported
when the command runs, so ``droidverify --help`` stays light.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from droidverify.cli._common import cli_errors, fail, parse_seeds
from droidverify.cli.run import _RunCommand  # a bare --ray (no ADDRESS) as in `droidverify run`

AGENTS = ("generator", "smartsnap")
REWARD_CHOICES = ("auto", "rule", "smartsnap", "passive", "see", "prore")


def grpo_rollouts_command(
    out: Annotated[Path, typer.Option("--out", help="JSONL file of groups (appended; a rerun resumes).")],
    agent: Annotated[str, typer.Option("--agent", help=" | ".join(AGENTS))] = "generator",
    model: Annotated[str | None, typer.Option("--model", help="Policy LLM: a model directory, a .gguf file "
                                              "or openai:URL\\[#model] (default: the bundled "
                                              "model).")] = None,
    split: Annotated[str, typer.Option("--split", help="Templates: train, validation or test.")] = "train",
    tasks: Annotated[str | None, typer.Option("--tasks", help="Comma-separated template names (instead of "
                                              "--split).")] = None,
    seeds: Annotated[str, typer.Option("--seeds", help="Task seeds: 0-4, 0,3,7 ...")] = "0",
    group_size: Annotated[int, typer.Option("--group-size", help="Episodes per task (G).", min=1,
                                            max=256)] = 4,
    temperature: Annotated[float, typer.Option("--temperature", help="Policy sampling temperature (> 0 when "
                                               "--group-size > 1).", min=0)] = 1.0,
    max_steps: Annotated[int | None, typer.Option("--max-steps", help="Steps per episode (default: the "
                                                  "task's limit).", min=1)] = None,
    max_tokens: Annotated[int, typer.Option("--max-tokens", help="Tokens per policy reply.", min=1)] = 256,
    seed: Annotated[int, typer.Option("--seed", help="Base of every member's sampling seed.", min=0)] = 0,
    reward: Annotated[str, typer.Option("--reward", help="auto (rule for generator, smartsnap for smartsnap) "
                                        "| " + " | ".join(REWARD_CHOICES[1:]))] = "auto",
    judge_model: Annotated[str | None, typer.Option("--judge-model", help="The LLM of a model-based reward "
                                                    "(default: --model; the smartsnap reward then shares the "
                                                    "policy's loaded model).")] = None,
    votes: Annotated[int, typer.Option("--votes", help="SmartSnap judge votes.", min=1, max=15)] = 3,
    memory: Annotated[str, typer.Option("--memory", help="diff | history | llm")] = "diff",
    workers: Annotated[str | None, typer.Option("--workers", help="Episodes at once: N local worker "
                                                "processes (default 1: in this process; 'auto': one per "
                                                "core); with --ray N actors. A local model is loaded once "
                                                "per worker.")] = None,
    ray: Annotated[str | None, typer.Option("--ray", metavar="[ADDRESS]",
                                            help="Run the episodes on Ray actors: a local Ray instance (or "
                                            "RAY_ADDRESS), or the cluster at ADDRESS. Needs the \\[ray] "
                                            "extra.")] = None,
) -> None:
    """Collect GRPO rollout groups: for every task, G episodes sampled at --temperature, each judged,
    with advantages (r - mean) / (std + eps) per group (0 for a group whose rewards are all equal).
    This collects what a GRPO trainer consumes; it trains nothing."""
    if agent not in AGENTS:
        fail(f"--agent must be one of {', '.join(AGENTS)} (GRPO needs a sampling agent), got {agent!r}")
    if reward not in REWARD_CHOICES:
        fail(f"--reward must be one of {', '.join(REWARD_CHOICES)}, got {reward!r}")
    with cli_errors():
        from droidverify.runner.backends import RayBackend, make_backend, parse_workers
        from droidverify.runner.grpo import GRPOPlayer
        from droidverify.training.grpo import GRPOConfig, group_stats, rollout_groups

        method = ("smartsnap" if agent == "smartsnap" else "rule") if reward == "auto" else reward
        judge = None
        if method not in ("rule", "smartsnap"):
            from droidverify.cli.judge import JudgeSpec

            judge = JudgeSpec(method, model=judge_model or model, votes=votes, max_tokens=max_tokens)
        names = [n.strip() for n in tasks.split(",") if n.strip()] if tasks else None
        if tasks is not None and not names:
            fail(f"--tasks {tasks!r} names no task")
        cfg = GRPOConfig(group_size=group_size, temperature=temperature, max_steps=max_steps,
                         max_tokens=max_tokens, split=split, seeds=parse_seeds(seeds), tasks=names, seed=seed,
                         reward=method)
        player = GRPOPlayer(agent, model=model, memory=memory, judge=judge, judge_model=judge_model,
                            votes=votes)
        n_workers = parse_workers(workers) if workers is not None or ray is not None else 1
        backend = make_backend(n_workers, ray)
        try:
            if isinstance(backend, RayBackend):
                backend.connect()  # a missing extra or an unreachable cluster fails here, clearly
            if backend is not None:
                note = (" (the local model is loaded once per worker)" if player.loads_local_model
                        else " (all workers share the model server)")
                typer.echo(f"running on {backend.label}{note}", err=True)
            groups = rollout_groups(None, cfg, player=player, backend=backend, out=out,
                                    progress=lambda msg: typer.echo(msg, err=True))
        finally:
            if backend is not None:
                backend.close()
        typer.echo(json.dumps({"out": str(out), **group_stats(groups)}, indent=2))


def register(app: typer.Typer) -> None:
    from droidverify.cli.train import train_app  # the `train` group; this module adds one command to it

    train_app.command("grpo-rollouts", cls=_RunCommand)(grpo_rollouts_command)
