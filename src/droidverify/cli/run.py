"""``droidverify run``: run an agent over tasks and seeds into a resumable run directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from typer.core import TyperCommand

from droidverify.cli._common import (
    MAX_SEEDS,
    TASKS_MODULE_HELP,
    cli_errors,
    exit_with,
    load_task_modules,
    parse_seeds,
)
from droidverify.cli._run_config import MAX_EPISODES, ResolvedRun, RunConfig
from droidverify.errors import DroidVerifyError
from droidverify.rewards.registry import DEFAULT_JUDGE
from droidverify.rewards.registry import METHODS as JUDGE_METHODS

# The factories are public in droidverify.runner.factories; these names stay importable from here.
from droidverify.runner.factories import (
    AGENTS,
    LLM_AGENTS,
    AgentSpec,
    EnvSpec,
    installed_app_names,
    resolve_verifier,
)
from droidverify.runner.store import episode_id

__all__ = ["AGENTS", "MAX_EPISODES", "MAX_SEEDS", "AgentSpec", "EnvSpec", "RunConfig", "installed_app_names",
           "parse_seeds", "resolve_verifier", "run_command"]


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
    memory: Annotated[str | None, typer.Option("--memory", help="Working memory: diff | history | llm | notes "
                                               "(default: the one the verifier was trained with; diff for "
                                               "the other agents).")] = None,
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
    policy: Annotated[str | None, typer.Option("--policy", metavar="DIR", help="--agent generator | smartsnap: "
                                               "a trained LLM policy (the directory `droidverify train "
                                               "llm-policy` exports), merged into --model (its base model: "
                                               "checked).")] = None,
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
    retry_temperature: Annotated[float | None, typer.Option("--retry-temperature", metavar="T", help="--agent "
                                                            "verifier with --attempts: draw the retries at T "
                                                            "(the first attempt as --temperature says, the "
                                                            "argmax by default).")] = None,
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
                                              f"{' | '.join(JUDGE_METHODS)} -> RUN_DIR/judgements.jsonl "
                                              "(prore probes the live environment; compact: the shipped "
                                              "trained judge; confidence: --agent verifier's own scores "
                                              "against a threshold fitted on train templates). --attempts "
                                              f"without --judge: {DEFAULT_JUDGE}.")
                        ] = None,
    judge_model: Annotated[str | None, typer.Option("--judge-model", help="The judge's LLM (default: "
                                                    "--model); compact / lora: its directory; confidence: a "
                                                    "calibration file (`droidverify judge calibrate-confidence`; "
                                                    "default: the shipped verifier's).")] = None,
    probes: Annotated[int | None, typer.Option("--probes", help="--judge prore: probing goals "
                                               "(default 2).", min=1, max=5)] = None,
    probe_steps: Annotated[int | None, typer.Option("--probe-steps", help="--judge prore: evaluator "
                                                    "steps per probe (default 6).", min=1, max=30)] = None,
    evaluator: Annotated[str | None, typer.Option("--evaluator", help="--judge prore: the agent that probes "
                                                  "the end state, built as --agent builds it on the judge's "
                                                  "model: generator (default) | verifier | smartsnap.")] = None,
    finish_check: Annotated[str | None, typer.Option("--finish-check", metavar="METHOD", help="--agent verifier: "
                                                     "before declaring the task complete, ask a judge (compact: "
                                                     "the shipped trained judge, passive setting; lora: a trained "
                                                     "LLM judge; passive: the scored LLM judge) whether the "
                                                     "episode so far succeeded; on 'failure' the next candidate "
                                                     "is taken instead (at most 3 times an episode).")] = None,
    finish_check_model: Annotated[str | None, typer.Option("--finish-check-model", help="The finish check's judge "
                                                           "directory (compact, lora) or LLM (passive).")] = None,
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
    options = {k: v for k, v in locals().items() if k in RunConfig.model_fields}
    with cli_errors():  # bad options and combinations: exit 2 before any work
        run = RunConfig.of(**options)
        load_task_modules(tasks_module)
        resolved = run.resolve(default_out=default_out(agent) if out is None else None)
    summary = _run(resolved)
    pairs, judge_spec, out_dir = resolved.pairs, resolved.judge, resolved.out_dir
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


def _run(resolved: ResolvedRun) -> Any:
    """Run ``resolved`` with the backend it asks for; errors exit 1 (the run did not complete)."""
    from droidverify.runner.backends import RayBackend, make_backend
    from droidverify.runner.run import run_many

    run, out_dir = resolved.config, resolved.out_dir
    console = Console(stderr=True)
    factory = resolved.agent
    infra_note = (f"\nthe run did not complete; finished episodes are kept in {out_dir}; rerun the same command "
                  f"(with --out {out_dir}) to resume")
    try:
        backend = make_backend(run.n_workers, run.ray)
        if isinstance(backend, RayBackend):
            backend.connect()  # fails here, with a clear error, when ray is missing or unreachable
        if backend is not None and not run.no_progress:
            note = (" (the local model is loaded once per worker)" if factory.loads_local_model else
                    " (all workers share the model server)" if run.agent in LLM_AGENTS else "")
            console.print(f"running on {backend.label}{note}")
        try:
            return run_many(factory, resolved.pairs, out_dir, env_factory=resolved.env, resume=not run.no_resume,
                            progress=not run.no_progress, max_steps=run.max_steps,
                            answer_ends_episode=run.answer_ends, config=resolved.run_json, console=console,
                            backend=backend, judge=resolved.judge, attempts=run.attempts)
        finally:
            if backend is not None:
                backend.close()
    except (DroidVerifyError, OSError) as e:  # --out is a file, read-only, disk full, ...: finished episodes stay
        where = f" ({e.filename})" if isinstance(e, OSError) and e.filename else ""
        os_message = (f"cannot write the run directory {out_dir}: {e.strerror or e}{where}"
                      if isinstance(e, OSError) else None)
        exit_with(e, started=True, infra_note=infra_note, os_message=os_message)


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


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
