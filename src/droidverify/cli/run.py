"""``droidverify run``: run an agent over tasks and seeds into a resumable run directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from droidverify.cli._common import MAX_SEEDS, fail, parse_seeds
from droidverify.errors import DroidVerifyError, InfrastructureError

AGENTS = ("oracle", "random", "noop", "verifier", "generator", "smartsnap")
DTYPES = ("auto", "float32", "bfloat16")
MAX_EPISODES = 1_000_000  # template x seed pairs in one run: a run directory stays workable
__all__ = ["AGENTS", "MAX_EPISODES", "MAX_SEEDS", "parse_seeds", "run_command"]


def default_out(agent: str) -> Path:
    """A fresh run directory for an unnamed run: ``runs/<agent>-<local time>``."""
    import time

    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = Path("runs") / f"{agent}-{stamp}"
    n = 1
    while out.exists():
        n += 1
        out = Path("runs") / f"{agent}-{stamp}-{n}"
    return out


def _select_templates(tasks: str | None, split: str | None, max_tasks: int | None) -> list[Any]:
    from droidverify.errors import RunError
    from droidverify.tasks import registry

    if tasks and split:
        raise RunError("give --tasks or --split, not both")
    if tasks:
        names = [n.strip() for n in tasks.split(",") if n.strip()]
        if not names:
            raise RunError(f"--tasks {tasks!r} names no task")
        templates = [registry.get_template(n) for n in names]  # TaskError names the unknown one
    elif split:
        if split not in ("train", "validation", "test"):
            raise RunError(f"unknown --split {split!r}; use train, validation or test")
        templates = list(registry.templates_for_split(split))
    else:
        templates = list(registry.all_templates())
    if max_tasks is not None:
        if max_tasks < 1:
            raise RunError(f"--max-tasks must be >= 1, got {max_tasks}")
        templates = templates[:max_tasks]
    return templates


def installed_app_names(env: str) -> list[str]:
    """The apps an agent may open on the environment: every simulator app, or the adb app table.

    Never derived from the selected tasks: offering only the task's apps would tell the agent
    which app the task is about.
    """
    if env == "sim":
        from droidverify.env.sim.app import installed_apps

        return sorted(app.name for app in installed_apps().values())
    if env == "adb":
        from droidverify.env.apps import APPS

        return sorted(info.name for info in APPS)
    from droidverify.errors import RunError

    raise RunError(f"unknown environment {env!r}; use sim or adb")


def resolve_verifier(spec: str | None, model: str | None) -> Path | None:
    """``--verifier``: a trained verifier directory, ``none`` (the untrained model, P(Yes) scores),
    or unset: the shipped verifier for the bundled local model, none otherwise."""
    from droidverify.agents.verifier.trained import shipped_verifier_path
    from droidverify.errors import RunError

    remote = isinstance(model, str) and model.startswith("openai:")
    if spec is None:
        shipped = shipped_verifier_path()
        return shipped if model is None and (shipped / "verifier.json").is_file() else None
    if spec.strip().lower() == "none":
        return None
    if remote:
        raise RunError("--verifier needs a local model: a trained head reads next-token logits, which an "
                       "OpenAI-compatible server does not return (use --verifier none)")
    path = Path(spec)
    if not (path / "verifier.json").is_file():
        raise RunError(f"--verifier {spec!r} is not a trained verifier directory (no verifier.json)")
    return path


def _agent_factory(agent: str, model: str | None, memory: str, seed: int, apps: list[str],
                   dtype: str = "auto", verifier: Path | None = None, device: str = "cpu") -> Any:
    """A zero-argument factory; an LLM is loaded once and shared by every episode's agent."""
    if agent == "oracle":
        from droidverify.agents.oracle import OracleAgent

        return OracleAgent
    if agent == "noop":
        from droidverify.agents.random import NoopAgent

        return NoopAgent
    if agent == "random":
        from droidverify.agents.random import RandomAgent

        return lambda: RandomAgent(seed, apps=apps)
    from droidverify.llm.registry import load_llm

    # dtype applies to local models only; an OpenAI-compatible server chooses its own.
    is_remote = isinstance(model, str) and model.startswith("openai:")
    llm = load_llm(model) if is_remote else load_llm(model, dtype=dtype, device=device)
    if agent == "verifier":
        from droidverify.agents.verifier import VerifierAgent

        head = None
        if verifier is not None:
            from droidverify.agents.verifier.trained import apply_verifier

            head = apply_verifier(llm, verifier)
        return lambda: VerifierAgent(llm, memory=memory, apps=apps, head=head)
    if agent == "smartsnap":  # SmartSnap's self-verifying agent: ends with submit(message, evidences)
        from droidverify.agents.selfverify import SelfVerifyingAgent

        return lambda: SelfVerifyingAgent(llm, memory=memory)
    from droidverify.agents.generator import GeneratorAgent

    return lambda: GeneratorAgent(llm, memory=memory)


def _env_factory(env: str, serial: str | None, screenshots: bool) -> Any:
    if env == "sim":
        from droidverify.env.sim import SimEnv

        return lambda task, seed: SimEnv(task=task, seed=seed, screenshot=screenshots)
    from droidverify.env.adb import AdbEnv

    # The device cannot be put into a task's initial state; episodes start from what is on screen.
    return lambda task, seed: AdbEnv(serial=serial, screenshot=screenshots)


def run_command(
    agent: Annotated[str, typer.Option("--agent", help=" | ".join(AGENTS))],
    out: Annotated[str | None, typer.Option("--out", help="Run directory (created; resumed if it is "
                                            "one; default: a new runs/<agent>-<time>).")] = None,
    tasks: Annotated[str | None, typer.Option("--tasks", help="Comma-separated template names.")] = None,
    split: Annotated[str | None, typer.Option("--split", help="train | validation | test (default: "
                                              "all templates when --tasks is not given)")] = None,
    seeds: Annotated[str, typer.Option("--seeds", help="Seeds: 0,1,2 or 0-4 or 0-2,7.")] = "0",
    max_tasks: Annotated[int | None, typer.Option("--max-tasks", help="Use only the first N "
                                                  "templates.")] = None,
    model: Annotated[str | None, typer.Option("--model", help="LLM for verifier/generator: a model "
                                              "directory, a .gguf file or openai:URL (default: the "
                                              "bundled model).")] = None,
    dtype: Annotated[str, typer.Option("--dtype", help="Local model precision: auto (time both once "
                                       "per machine, keep the faster) | float32 | bfloat16.")] = "auto",
    memory: Annotated[str, typer.Option("--memory", help="Working memory: diff | history | llm.")] = "diff",
    env: Annotated[str, typer.Option("--env", help="sim | adb")] = "sim",
    serial: Annotated[str | None, typer.Option("--serial", help="adb device serial (--env adb).")] = None,
    max_steps: Annotated[int | None, typer.Option("--max-steps", help="Step limit (default: each "
                                                  "task's max_steps).")] = None,
    agent_seed: Annotated[int, typer.Option("--agent-seed", help="Seed of the random agent.")] = 0,
    screenshots: Annotated[bool, typer.Option("--screenshots", help="Save per-step screenshots "
                                              "(shown in report.html).")] = False,
    answer_ends: Annotated[bool, typer.Option("--answer-ends-episode", help="Treat `answer` as "
                                              "terminal (default: continue until status).")] = False,
    no_resume: Annotated[bool, typer.Option("--no-resume", help="Delete the earlier run files in "
                                            "--out (a run directory) and start over.")] = False,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="No progress bar.")] = False,
    verifier: Annotated[str | None, typer.Option("--verifier", help="Trained verifier directory for "
                                                 "--agent verifier (default: the shipped one, with the "
                                                 "bundled model); 'none' = the untrained model's P(Yes).")] = None,
    device: Annotated[str, typer.Option("--device", help="Where a local model runs: cpu or cuda.")] = "cpu",
) -> None:
    """Run an agent on task instances (template x seed) and print success by app and complexity.

    Writes run.json, steps.jsonl (every step, full XML), episodes.jsonl, summary.json and
    report.html to --out. Rerunning the same command resumes an interrupted run. Exit code 2 on
    bad input, 1 when the run could not complete (rerun to resume).
    """
    if agent not in AGENTS:
        fail(f"unknown --agent {agent!r}; use one of {', '.join(AGENTS)}")
    if env not in ("sim", "adb"):
        fail(f"unknown --env {env!r}; use sim or adb")
    if env == "adb" and agent == "oracle":
        fail("the oracle agent needs simulator state; it cannot run with --env adb")
    if memory not in ("diff", "history", "llm"):
        fail(f"unknown --memory {memory!r}; use diff, history or llm")
    if dtype not in DTYPES:
        fail(f"unknown --dtype {dtype!r}; use {', '.join(DTYPES)}")
    if dtype != "auto" and (agent not in ("verifier", "generator", "smartsnap")
                            or (model or "").startswith("openai:")):
        fail("--dtype applies only to a local model (--agent verifier|generator without openai:URL)")
    if max_steps is not None and max_steps < 1:
        fail(f"--max-steps must be >= 1, got {max_steps}")
    if out is not None and not out.strip():
        fail("--out is empty; name a run directory (or leave --out out for a new one)")
    try:
        seed_list = parse_seeds(seeds)
        templates = _select_templates(tasks, split, max_tasks)
    except DroidVerifyError as e:
        fail(str(e))
    if not templates:
        fail("no task templates selected")
    if len(templates) * len(seed_list) > MAX_EPISODES:
        fail(f"{len(templates)} templates x {len(seed_list)} seeds is more than {MAX_EPISODES} "
             "episodes; split the run")
    out_dir = Path(out) if out is not None else default_out(agent)
    verifier_dir = None
    if agent == "verifier":
        try:
            verifier_dir = resolve_verifier(verifier, model)
        except DroidVerifyError as e:
            fail(str(e))
    elif verifier is not None:
        fail("--verifier applies only to --agent verifier")

    from droidverify.runner.run import run_many

    apps = installed_app_names(env)
    pairs = [(t, s) for t in templates for s in seed_list]
    config = {"agent": agent, "model": model, "dtype": dtype, "apps": apps, "memory": memory, "env": env, "serial": serial,
              "seeds": seed_list, "tasks": [t.name for t in templates], "max_steps": max_steps,
              "agent_seed": agent_seed, "verifier": str(verifier_dir) if verifier_dir else None}
    console = Console(stderr=True)
    try:
        factory = _agent_factory(agent, model, memory, agent_seed, apps, dtype, verifier_dir, device)
        summary = run_many(factory, pairs, out_dir, env_factory=_env_factory(env, serial, screenshots),
                           resume=not no_resume, progress=not no_progress, max_steps=max_steps,
                           answer_ends_episode=answer_ends, config=config, console=console)
    except InfrastructureError as e:
        typer.echo(f"error: {type(e).__name__}: {e}\nthe run did not complete; finished episodes are "
                   f"kept in {out_dir}; rerun the same command (with --out {out_dir}) to resume",
                   err=True)
        raise typer.Exit(code=1) from None
    except DroidVerifyError as e:
        typer.echo(f"error: {type(e).__name__}: {e}", err=True)
        raise typer.Exit(code=1) from None
    except OSError as e:  # --out is a file, read-only, disk full, ...: finished episodes stay on disk
        where = f" ({e.filename})" if e.filename else ""
        typer.echo(f"error: cannot write the run directory {out_dir}: {e.strerror or e}{where}", err=True)
        raise typer.Exit(code=1) from None
    out_console = Console()
    for table in summary.tables():
        out_console.print(table)
    out_console.print(f"ran {summary.ran}, skipped {summary.skipped} already finished; results in "
                      f"{out_dir}")


def register(app: typer.Typer) -> None:
    app.command("run")(run_command)
