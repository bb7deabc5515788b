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

from droidverify.agents.registry import SAMPLING_AGENTS
from droidverify.cli._common import TASKS_MODULE_HELP, cli_errors, fail, load_task_modules, parse_seeds
from droidverify.cli.run import _RunCommand  # a bare --ray (no ADDRESS) as in `droidverify run`
from droidverify.rewards.confidence import NOT_A_REWARD
from droidverify.rewards.registry import METHODS

AGENTS = SAMPLING_AGENTS
# auto, then every judge of the registry but the compact one (a GRPO reward from a compact judge is
# the SmartSnap reward's default judge, not a method of its own here) and those that read the
# policy's own scores (rewards.confidence.NOT_A_REWARD: a policy rewarded for its confidence games it)
REWARD_CHOICES = ("auto", *(m for m in METHODS if m != "compact" and m not in NOT_A_REWARD))


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
    group_size: Annotated[int, typer.Option("--group-size", help="Episodes per task (G; 8 as in SmartSnap).",
                                            min=1, max=256)] = 8,
    temperature: Annotated[float, typer.Option("--temperature", help="Policy sampling temperature (> 0 when "
                                               "--group-size > 1).", min=0)] = 1.0,
    max_steps: Annotated[int | None, typer.Option("--max-steps", help="Steps per episode (default: the "
                                                  "task's limit).", min=1)] = None,
    max_tokens: Annotated[int, typer.Option("--max-tokens", help="Tokens per policy reply.", min=1)] = 256,
    seed: Annotated[int, typer.Option("--seed", help="Base of every member's sampling seed.", min=0)] = 0,
    reward: Annotated[str, typer.Option("--reward", help="auto (rule for generator, smartsnap for smartsnap) "
                                        "| " + " | ".join(REWARD_CHOICES[1:]))] = "auto",
    judge_model: Annotated[str | None, typer.Option("--judge-model", help="The judge of a model-based reward, "
                                                    "never the policy by default. smartsnap: default the "
                                                    "shipped compact evidence judge; a compact judge directory "
                                                    "(`droidverify train judge`); or an LLM (path or "
                                                    "openai:URL\\[#model]) for SmartSnap's LLM judge. passive, "
                                                    "see, prore: an LLM, required. 'policy': the policy's own "
                                                    "model (explicitly).")] = None,
    votes: Annotated[int | None, typer.Option("--votes", help="SmartSnap LLM judge votes (default 3; the "
                                              "compact judge gives one verdict).", min=1, max=15)] = None,
    memory: Annotated[str, typer.Option("--memory", help="diff | history | llm")] = "diff",
    policy: Annotated[str | None, typer.Option("--policy", metavar="DIR", help="Play a trained LLM policy (the "
                                               "directory `droidverify train llm-policy` exports), merged into "
                                               "--model; the groups record its digest, and `train llm-policy "
                                               "--objective grpo` must start from it (--init DIR).")] = None,
    workers: Annotated[str | None, typer.Option("--workers", help="Episodes at once: N local worker "
                                                "processes (default 1: in this process; 'auto': one per "
                                                "core); with --ray N actors. A local model is loaded once "
                                                "per worker.")] = None,
    ray: Annotated[str | None, typer.Option("--ray", metavar="[ADDRESS]",
                                            help="Run the episodes on Ray actors: a local Ray instance (or "
                                            "RAY_ADDRESS), or the cluster at ADDRESS. Needs the \\[ray] "
                                            "extra.")] = None,
    tasks_module: Annotated[list[str] | None, typer.Option("--tasks-module", metavar="MODULE",
                                                           help=TASKS_MODULE_HELP)] = None,
) -> None:
    """Collect GRPO rollout groups: for every task, G episodes sampled at --temperature, each judged,
    with advantages (r - mean) / (std + eps) per group (sample std, as TRL; 0 for a group whose rewards
    are all equal). An episode whose judge failed is excluded from its group. This collects what a
    GRPO trainer consumes; it trains nothing."""
    if agent not in AGENTS:
        fail(f"--agent must be one of {', '.join(AGENTS)} (GRPO needs a sampling agent), got {agent!r}")
    if reward in NOT_A_REWARD:
        fail(f"--reward {reward} reads the policy's own scores: a policy rewarded for its confidence learns to be "
             "confident, not to succeed; use a judge of the episode (rule, smartsnap, ...)")
    if reward not in REWARD_CHOICES:
        fail(f"--reward must be one of {', '.join(REWARD_CHOICES)}, got {reward!r}")
    load_task_modules(tasks_module)
    with cli_errors():
        from droidverify.runner.backends import RayBackend, make_backend, parse_workers
        from droidverify.runner.grpo import GRPOPlayer
        from droidverify.training.grpo import GRPOConfig, group_stats, rollout_groups

        method = ("smartsnap" if agent == "smartsnap" else "rule") if reward == "auto" else reward
        judge, judge_llm, compact_dir = _pick_judge(method, judge_model, model, votes, max_tokens)
        names = [n.strip() for n in tasks.split(",") if n.strip()] if tasks else None
        if tasks is not None and not names:
            fail(f"--tasks {tasks!r} names no task")
        digest = None
        if policy is not None:
            from droidverify.agents.trained_policy import check_policy_base, policy_digest

            check_policy_base(policy, model)
            digest = policy_digest(policy)
        cfg = GRPOConfig(group_size=group_size, temperature=temperature, max_steps=max_steps,
                         max_tokens=max_tokens, split=split, seeds=parse_seeds(seeds), tasks=names, seed=seed,
                         reward=method, policy=digest)
        player = GRPOPlayer(agent, model=model, memory=memory, judge=judge, judge_model=judge_llm,
                            compact_judge=compact_dir, votes=votes or 3, policy=policy)
        typer.echo(f"judge: {_judge_label(method, judge_model, compact_dir, model)}", err=True)
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


def _is_compact_judge(path: str) -> bool:
    """A directory `droidverify train judge` wrote (or one holding passive/ and evidence/ judges)."""
    from droidverify.rewards.compact_judge import JUDGE_FILE

    root = Path(path)
    return root.is_dir() and any((d / JUDGE_FILE).is_file() for d in (root, root / "evidence", root / "passive"))


def _pick_judge(method: str, judge_model: str | None, model: str | None, votes: int | None,
                max_tokens: int) -> tuple[object | None, str | None, str | None]:
    """(a judge factory for a method GRPOPlayer does not build itself, the LLM judge spec for the
    smartsnap reward, the compact judge directory for it). The policy's own model is the judge only
    when --judge-model says `policy` (or names the same model): a judge that trains with the policy
    lets the reward drift."""
    from droidverify.runner.grpo import POLICY_JUDGE

    if method == "rule":
        if judge_model is not None or votes is not None:
            fail("--judge-model and --votes apply to a model-based reward, not --reward rule (the task checker)")
        return None, None, None
    if method == "smartsnap":
        if judge_model is None or (judge_model != POLICY_JUDGE and _is_compact_judge(judge_model)):
            if votes is not None:
                fail("--votes applies to SmartSnap's LLM judge (--judge-model MODEL); the compact evidence "
                     "judge gives one verdict")
            return None, None, judge_model
        return None, judge_model, None
    if judge_model is None:
        fail(f"--reward {method} needs --judge-model: an LLM (a model directory, a .gguf file or "
             f"openai:URL[#model]), or '{POLICY_JUDGE}' to judge with the policy's own model")
    if votes is not None:
        fail(f"--votes applies to the smartsnap reward, not {method}")
    from droidverify.rewards.registry import JudgeSpec

    return JudgeSpec(method, model=model if judge_model == POLICY_JUDGE else judge_model,
                     max_tokens=max_tokens), None, None


def _judge_label(method: str, judge_model: str | None, compact_dir: str | None, model: str | None) -> str:
    """One line saying which model judges (so that a run's log shows whether it is the policy's)."""
    from droidverify.runner.grpo import POLICY_JUDGE

    if method == "rule":
        return "rule (the task checker)"
    if method == "smartsnap" and (compact_dir is not None or judge_model is None):
        return f"smartsnap composite reward on the compact evidence judge ({compact_dir or 'shipped'})"
    own = judge_model == POLICY_JUDGE or judge_model == model
    return f"{method} on {judge_model}" + (" (the policy's own model)" if own else "")


def register(app: typer.Typer) -> None:
    from droidverify.cli.train import train_app  # the `train` group; this module adds one command to it

    train_app.command("grpo-rollouts", cls=_RunCommand)(grpo_rollouts_command)
