"""``droidverify run``: run an agent over tasks and seeds into a resumable run directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from typer.core import TyperCommand

from droidverify.cli._common import MAX_SEEDS, TASKS_MODULE_HELP, fail, load_task_modules, parse_seeds
from droidverify.errors import DroidVerifyError, InfrastructureError

# The factories are public in droidverify.runner.factories; these names stay importable from here.
from droidverify.runner.factories import (
    AGENTS,
    CONTENT_MODES,
    DTYPES,
    LLM_AGENTS,
    AgentSpec,
    EnvSpec,
    check_sampling,
    installed_app_names,
    resolve_verifier,
)
from droidverify.runner.store import episode_id

MAX_EPISODES = 1_000_000  # template x seed pairs in one run: a run directory stays workable
__all__ = ["AGENTS", "MAX_EPISODES", "MAX_SEEDS", "AgentSpec", "EnvSpec", "installed_app_names", "parse_seeds",
           "resolve_verifier", "run_command"]


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


def run_command(
    agent: Annotated[str, typer.Option("--agent", help=" | ".join(AGENTS))],
    out: Annotated[str | None, typer.Option("--out", help="Run directory (created; resumed if it is "
                                            "one; default: a new runs/<agent>-<time>).")] = None,
    tasks: Annotated[str | None, typer.Option("--tasks", help="Comma-separated template names.")] = None,
    tasks_module: Annotated[list[str] | None, typer.Option("--tasks-module", metavar="MODULE",
                                                           help=TASKS_MODULE_HELP)] = None,
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
    verifier: Annotated[str | None, typer.Option("--verifier", help="--agent verifier: a trained verifier "
                                                 "directory, 'compact' (the shipped compact verifier, the "
                                                 "default; needs no LLM), 'llm' (the shipped LoRA verifier "
                                                 "of the bundled model) or 'none' (the untrained model's "
                                                 "P(Yes)).")] = None,
    content: Annotated[str | None, typer.Option("--content", help="--agent verifier: 'select' (choose "
                                                "typed text, answers and apps among values proposed from "
                                                "the goal and screen; the compact default) or 'llm' "
                                                "(generate them).")] = None,
    device: Annotated[str, typer.Option("--device", help="Where a local model runs: cpu or cuda.")] = "cpu",
    avoid_repeats: Annotated[bool, typer.Option("--avoid-repeats", help="--agent verifier: never take an "
                                                "action again on a screen where the episode already took "
                                                "it (the next-best candidate instead).")] = False,
    temperature: Annotated[float, typer.Option("--temperature", help="--agent verifier: draw each action "
                                               "from softmax(scores / T) instead of taking the argmax "
                                               "(0 = argmax; draws seeded by --agent-seed and the goal).")] = 0.0,
    top_k: Annotated[int | None, typer.Option("--top-k", help="--agent verifier with --temperature: draw "
                                              "among the K best candidates only.")] = None,
    workers: Annotated[str | None, typer.Option("--workers", help="Episodes at once: N worker processes "
                                                "(default 1: in this process; 'auto': one per core); "
                                                "with --ray N actors (default: one per cluster CPU). A "
                                                "local model is loaded once per worker; an openai:URL "
                                                "server is shared by all.")] = None,
    ray: Annotated[str | None, typer.Option("--ray", metavar="[ADDRESS]",
                                            help="Run the episodes on Ray actors: a local Ray instance "
                                            "(or RAY_ADDRESS), or the cluster at ADDRESS. Needs the "
                                            "\\[ray] extra.")] = None,
    judge: Annotated[str | None, typer.Option("--judge", metavar="METHOD",
                                              help="Judge every episode right after it ends, where it ran: "
                                              "rule | passive | smartsnap | prore | see -> RUN_DIR/"
                                              "judgements.jsonl (prore probes the live environment).")] = None,
    judge_model: Annotated[str | None, typer.Option("--judge-model", help="The judge's LLM (default: "
                                                    "--model).")] = None,
    probes: Annotated[int | None, typer.Option("--probes", help="--judge prore: probing goals "
                                               "(default 2).", min=1, max=5)] = None,
    probe_steps: Annotated[int | None, typer.Option("--probe-steps", help="--judge prore: evaluator "
                                                    "steps per probe (default 6).", min=1, max=30)] = None,
    evaluator: Annotated[str | None, typer.Option("--evaluator", help="--judge prore: the agent that probes "
                                                  "the end state, built as --agent builds it on the judge's "
                                                  "model: generator (default) | verifier | smartsnap.")] = None,
    attempts: Annotated[int, typer.Option("--attempts", metavar="K", help="Judged retries: reset and retry an "
                                          "episode the --judge does not call a success (failure or undecided), "
                                          "up to K attempts in all; the last attempt's checker result is the "
                                          "outcome and every attempt is recorded (default 1: no retries). A "
                                          "retry is a fresh reset of the same task and seed (simulator only: "
                                          "refused with --env adb, which has no reset); a sampling agent "
                                          "(--temperature) draws anew with a seed derived from --agent-seed and "
                                          "the attempt, an argmax agent replays its attempt.")] = 1,
) -> None:
    """Run an agent on task instances (template x seed) and print success by app and complexity.

    Writes run.json, steps.jsonl (every step; each distinct screen's XML once), episodes.jsonl, summary.json and
    report.html to --out (with --judge also judgements.jsonl). Rerunning the same command resumes an
    interrupted run. Exit code 2 on bad input, 1 when the run could not complete (rerun to resume).
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
    load_task_modules(tasks_module)
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
    judge_spec = _judge_spec(judge, judge_model, model, probes, probe_steps, evaluator, env)
    from droidverify.runner.run import check_attempts

    try:
        check_attempts(attempts)
    except DroidVerifyError as e:
        fail(str(e))
    if attempts > 1 and judge_spec is None:
        fail(f"--attempts {attempts} retries the episodes the judge calls failed: give --judge METHOD "
             "(rule is the checker itself, the upper bound)")
    if attempts > 1 and env == "adb":
        fail("--attempts > 1 cannot run with --env adb: a device has no reset to the task's initial state, "
             "so a retry would start from wherever the failed attempt left the phone")
    from droidverify.runner.backends import RayBackend, make_backend, parse_workers

    try:
        n_workers = parse_workers(workers) if workers is not None or ray is not None else 1
    except DroidVerifyError as e:
        fail(str(e))
    if env == "adb" and (n_workers != 1 or ray is not None):
        fail("--env adb drives one device: it runs in this process (no --workers N or --ray)")
    out_dir = Path(out) if out is not None else default_out(agent)
    verifier_dir = None
    if content is not None and content not in CONTENT_MODES:
        fail(f"unknown --content {content!r}; use {' or '.join(CONTENT_MODES)}")
    if agent == "verifier":
        from droidverify.agents.verifier.trained import check_settings, load_compact, verifier_backbone

        try:
            verifier_dir = resolve_verifier(verifier, model, env)
            # fails now, not in a worker, when memory/content differ from the checkpoint's
            if verifier_dir is not None and verifier_backbone(verifier_dir) == "compact":
                load_compact(verifier_dir, memory=memory, content=content)
            elif verifier_dir is not None:
                check_settings(verifier_dir, memory=memory)
        except DroidVerifyError as e:
            fail(str(e))
    elif verifier is not None or content is not None:
        fail("--verifier and --content apply only to --agent verifier")
    if avoid_repeats and agent != "verifier":
        fail("--avoid-repeats applies only to --agent verifier")
    try:
        check_sampling(agent, temperature, top_k)
    except DroidVerifyError as e:
        fail(f"--temperature/--top-k: {e}")

    from droidverify.agents.verifier.trained import verifier_digest
    from droidverify.runner.run import run_many

    apps = installed_app_names(env)
    pairs = [(t, s) for t in templates for s in seed_list]
    config = {"agent": agent, "model": model, "dtype": dtype, "apps": apps, "memory": memory, "env": env, "serial": serial,
              "seeds": seed_list, "tasks": [t.name for t in templates], "max_steps": max_steps,
              "agent_seed": agent_seed, "verifier": str(verifier_dir.resolve()) if verifier_dir else None,
              "verifier_digest": verifier_digest(verifier_dir) if verifier_dir else None,
              "judge": _judge_config(judge_spec), "avoid_repeats": avoid_repeats,
              "temperature": temperature, "top_k": top_k, "content": content}
    if attempts > 1:  # only then: a run without retries writes the run.json it always did
        config["attempts"] = attempts
    console = Console(stderr=True)
    factory = AgentSpec(agent, model, memory, agent_seed, apps, dtype, verifier_dir, device, avoid_repeats,
                        temperature, top_k, content)
    try:
        backend = make_backend(n_workers, ray)
        if isinstance(backend, RayBackend):
            backend.connect()  # fails here, with a clear error, when ray is missing or unreachable
        if backend is not None and not no_progress:
            note = (" (the local model is loaded once per worker)" if factory.loads_local_model else
                    " (all workers share the model server)" if agent in LLM_AGENTS else "")
            console.print(f"running on {backend.label}{note}")
        try:
            summary = run_many(factory, pairs, out_dir, env_factory=EnvSpec(env, serial, screenshots),
                               resume=not no_resume, progress=not no_progress, max_steps=max_steps,
                               answer_ends_episode=answer_ends, config=config, console=console,
                               backend=backend, judge=judge_spec, attempts=attempts)
        finally:
            if backend is not None:
                backend.close()
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
    if judge_spec is not None:
        out_console.print(_judgement_counts(out_dir, judge_spec, [episode_id(t.name, s) for t, s in pairs]))
    if summary.retries is not None:
        r = summary.retries
        out_console.print(f"judged retries (up to {r.max_attempts} attempts): success at attempt 1 "
                          f"{_pct(r.success_at_1)}, after all attempts {_pct(r.success_final)}; "
                          f"{r.attempts_used} attempts for {r.episodes} episodes; false successes on last "
                          f"attempts {r.false_successes} of {r.judged_final} ({_pct(r.false_success_rate)})")


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _judge_spec(method: str | None, judge_model: str | None, model: str | None, probes: int | None,
                probe_steps: int | None, evaluator: str | None, env: str) -> Any:
    """The ``--judge`` options as a picklable judge factory (None without --judge); exits 2 on bad
    input. The judge's model defaults to the agent's ``--model`` (not for the compact judge)."""
    from droidverify.cli.judge import EVALUATORS, METHODS, JudgeSpec

    if method is None:
        given = [name for name, v in (("--judge-model", judge_model), ("--probes", probes),
                                      ("--probe-steps", probe_steps), ("--evaluator", evaluator))
                 if v is not None]
        if given:
            fail(f"{', '.join(given)} configure the judge: give --judge METHOD")
        return None
    if method not in METHODS:
        fail(f"unknown --judge {method!r}; use one of {', '.join(METHODS)}")
    if method != "prore" and (probes is not None or probe_steps is not None or evaluator is not None):
        fail("--probes, --probe-steps and --evaluator apply only to --judge prore")
    if evaluator is not None and evaluator not in EVALUATORS:
        fail(f"unknown --evaluator {evaluator!r}; use one of {', '.join(EVALUATORS)}")
    # The judge's model defaults to the agent's LLM, except for judges whose model is a trained
    # checkpoint of their own (the compact judge): an agent's LLM is not one.
    fallback = None if method == "compact" else model
    return JudgeSpec(method, model=judge_model if judge_model is not None else fallback, probes=probes or 2,
                     probe_steps=probe_steps or 6, evaluator=evaluator or "generator", env=env)


def _judge_config(spec: Any) -> dict[str, Any] | None:
    if spec is None:
        return None
    return {"method": spec.method, "name": spec.name, "version": spec.version, "model": spec.model,
            "probes": spec.probes, "probe_steps": spec.probe_steps, "evaluator": spec.evaluator}


def _judgement_counts(out_dir: Path, spec: Any, keys: list[str]) -> str:
    """The judge's verdicts on the episodes ``keys``: on each one's last attempt (its only one
    without retries)."""
    from droidverify.rewards.store import JUDGEMENTS_FILE, JudgementStore
    from droidverify.runner.store import attempt_key, attempt_of, finished_episodes

    store = JudgementStore(out_dir / JUDGEMENTS_FILE)
    mine = {j.episode_id: j for j in store.for_judge(spec.name, spec.version)}
    last = {k: attempt_key(k, attempt_of(ep)) for k, ep in finished_episodes(out_dir).items()}
    got = [mine[last.get(k, k)] for k in keys if last.get(k, k) in mine]
    counts = ", ".join(f"{o} {sum(j.outcome == o for j in got)}" for o in ("success", "failure", "undecided"))
    retried = any(last.get(k, k) != k for k in keys)
    return (f"judged by {spec.name} ({spec.version}): {counts} of {len(keys)} episodes"
            f"{' (on their last attempts)' if retried else ''}; judgements in {store.path}")


def bare_ray_flag(args: list[str]) -> list[str]:
    """``--ray`` takes an optional ADDRESS, which typer cannot express: a bare ``--ray`` (last, or
    followed by another option) becomes ``--ray=default`` (RAY_ADDRESS, else a local instance)."""
    out = list(args)
    for i, a in enumerate(out):
        if a == "--":
            break
        if a == "--ray" and (i + 1 == len(out) or out[i + 1].startswith("-")):
            out[i] = "--ray=default"
    return out


class _RunCommand(TyperCommand):
    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, bare_ray_flag(args))


def register(app: typer.Typer) -> None:
    app.command("run", cls=_RunCommand)(run_command)
