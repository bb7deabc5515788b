"""``droidverify judge``, ``droidverify judge calibrate``, ``droidverify judge calibrate-confidence`` and
``droidverify labelled-set``.

``droidverify judge [OPTIONS] SOURCE`` judges episodes (the ``judge`` group's default command, so
a run directory or set file literally named ``calibrate`` must be written ``./calibrate``).
Verdicts are free text (``--verdict text``, the default) or scored (``--verdict score``: P(Yes) of
one fixed Yes/No question against a threshold, ``rewards.scoring``). ``--judge-file judge.json``
takes a scored judge calibrated by ``droidverify judge calibrate`` -- method, model, votes and the
threshold come from the file (the verdict mode then defaults to ``score``); scoring without a judge
file uses the uncalibrated threshold 0.5 and says so.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated, Any

import click
import typer
from rich.console import Console
from rich.table import Table
from typer.core import TyperGroup

from droidverify.cli._common import TASKS_MODULE_HELP, cli_errors, fail, load_task_modules
from droidverify.errors import DroidVerifyError
from droidverify.rewards.registry import (  # the judge catalogue; re-exported for ``cli.judge.JudgeSpec`` users
    COMPACT_SETTINGS,
    EVALUATORS,
    METHODS,
    SCORE_PROMPTS,
    VERDICTS,
    JudgeSpec,
    check_evaluator,  # noqa: F401
    check_verdict_options,  # noqa: F401
    make_judge,  # noqa: F401
    prore_evaluator,  # noqa: F401
    score_prompt_version,
)


def load_episodes(source: Path) -> tuple[list[Any], dict[str, bool], Path]:
    """(trajectories, labels by episode id, default judgements file) of a run directory or a
    labelled-set file. A run directory's labels are its checker results (where scored)."""
    from droidverify.env.records import is_success
    from droidverify.rewards.labelled import read_set
    from droidverify.rewards.rule import PHONE_STATE_KEY
    from droidverify.rewards.store import JUDGEMENTS_FILE

    if source.is_dir():
        from droidverify.runner.store import EPISODES_FILE, load_final_phone_states, load_trajectories

        if not (source / EPISODES_FILE).is_file():
            fail(f"{source} is not a run directory ({EPISODES_FILE} missing) nor a labelled-set file")
        trajs = load_trajectories(source)
        phones = load_final_phone_states(source)
        for t in trajs:
            state = phones.get(str(t.metadata.get("attempt_id")))
            if state:
                t.metadata[PHONE_STATE_KEY] = state
        labels = {str(t.metadata.get("episode_id")): is_success(t.success) for t in trajs if t.success is not None}
        return trajs, labels, source / JUDGEMENTS_FILE
    if not source.is_file():
        fail(f"{source} does not exist")
    _header, items = read_set(source)
    name = source.name.removesuffix(".gz").removesuffix(".jsonl")
    return [it.trajectory for it in items], {it.id: it.label for it in items}, \
        source.with_name(f"{name}.{JUDGEMENTS_FILE}")


def unknown_task_names(trajectories: list[Any], method: str) -> dict[str, str]:
    """Task names the judge ``method`` must resolve but the registry does not know -> the registry's
    error. The rule judge re-runs the checker on a saved final phone state (the episode's template
    is needed then); SEE replays every episode on its task. Other methods read only the episode."""
    from droidverify.errors import TaskError
    from droidverify.rewards.rule import PHONE_STATE_KEY
    from droidverify.tasks import registry

    if method not in ("rule", "see"):
        return {}
    needed = {str(t.task_id) for t in trajectories
              if method == "see" or (isinstance(t.metadata, dict) and t.metadata.get(PHONE_STATE_KEY))}
    unknown: dict[str, str] = {}
    for name in sorted(needed):
        try:
            registry.get_template(name)
        except TaskError as e:
            unknown[name] = str(e)
    return unknown


def check_task_names(trajectories: list[Any], method: str) -> None:
    """Refuse, naming the templates, to judge episodes of tasks this process cannot resolve (each
    would otherwise be judged ``undecided``, which reads as a judge's doubt, not a missing module)."""
    unknown = unknown_task_names(trajectories, method)
    if unknown:
        count = sum(str(t.task_id) in unknown for t in trajectories)
        fail(f"the {method} judge cannot resolve the task templates of {count} of {len(trajectories)} "
             f"episodes ({'; '.join(unknown.values())}); give the module that defines them with "
             "--tasks-module, as to `droidverify run`")


def agreement_table(rows: list[Any], title: str = "agreement with the checker") -> Table:
    table = Table(title=title)
    for col in ("judge", "n", "accuracy", "precision", "recall", "F1", "undecided", "tokens in", "s / traj"):
        table.add_column(col, justify="left" if col == "judge" else "right")
    for a in rows:
        table.add_row(a.judge, str(a.n), f"{a.accuracy:.3f}", f"{a.precision:.3f}", f"{a.recall:.3f}",
                      f"{a.f1:.3f}", f"{a.undecided_rate:.3f}", f"{a.tokens_in:.0f}", f"{a.latency_s:.2f}")
    return table


MODEL_HELP = "Judge LLM: a model directory, a .gguf file or openai:URL[#model] (default: the bundled model)."
VOTES_HELP = ("SmartSnap judge votes (default 3): text votes are sampled (temperature > 0 when > 1); "
              "scored votes are 1 or 3, one fixed question pair each.")
EVALUATOR_HELP = ("ProRe: the agent that probes the end state, as `droidverify run --agent` builds it on the "
                  "judge's --model: " + " | ".join(EVALUATORS) + " (default generator).")
WORKERS_HELP = ("Episodes judged at once: N local worker processes, or 'auto' (one per core); each builds "
                "the judge once (a local model is loaded once per worker).")


def judge_command(
    source: Annotated[Path, typer.Argument(help="A run directory or a labelled-set file (.jsonl[.gz]).")],
    method: Annotated[str | None, typer.Option("--method", help=" | ".join(METHODS) + " (default rule, or "
                                               "the --judge-file's method).")] = None,
    model: Annotated[str | None, typer.Option("--model", help=MODEL_HELP + " With --judge-file: the file's "
                                              "model by default, and it must be the model the file names.")
                     ] = None,
    votes: Annotated[int | None, typer.Option("--votes", help=VOTES_HELP, min=1, max=15)] = None,
    max_tokens: Annotated[int | None, typer.Option("--max-tokens", help="Tokens per judge reply (default 256).",
                                                   min=1, max=4096)] = None,
    probes: Annotated[int | None, typer.Option("--probes", help="ProRe: probing goals (default 2).", min=1,
                                               max=5)] = None,
    probe_steps: Annotated[int | None, typer.Option("--probe-steps", help="ProRe: evaluator steps per probe "
                                                    "(default 6).", min=1, max=30)] = None,
    evaluator: Annotated[str | None, typer.Option("--evaluator", help=EVALUATOR_HELP)] = None,
    verdict: Annotated[str | None, typer.Option("--verdict", help="text: parse the judge's written verdict | "
                                                "score: P(Yes) of one fixed Yes/No question against the "
                                                "threshold (passive, smartsnap, prore). Default: score with "
                                                "--judge-file, else text.")] = None,
    judge_file: Annotated[Path | None, typer.Option("--judge-file", help="A judge calibrated by `droidverify "
                                                    "judge calibrate`: its method, model, votes and threshold "
                                                    "(read from the file, never recomputed).")] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="Judge only the first N episodes.", min=1)] = None,
    out: Annotated[Path | None, typer.Option("--out", help="judgements file (default: RUN_DIR/judgements.jsonl, "
                                             "or NAME.judgements.jsonl beside a set file).")] = None,
    report: Annotated[bool, typer.Option("--report/--no-report", help="Rebuild a run directory's "
                                         "report.html with the judgements.")] = True,
    workers: Annotated[str, typer.Option("--workers", help=WORKERS_HELP)] = "1",
    judge_model: Annotated[Path | None, typer.Option("--judge-model", help="--method compact: a trained compact "
                                                     "judge (a directory `droidverify train judge` wrote; "
                                                     "default: the shipped judges). --method lora: a trained "
                                                     "LLM judge (`droidverify train llm-judge`; default: the "
                                                     "shipped one; --model: its base LLM, default the one it "
                                                     "was trained on).")] = None,
    setting: Annotated[str | None, typer.Option("--setting", help="--method compact or lora: passive | evidence | auto "
                                                "(default: evidence for episodes that end in submit, passive "
                                                "otherwise) | trajectory (compact: every action and earlier "
                                                "screens too).")] = None,
    world_model: Annotated[str | None, typer.Option("--world-model", help="--method see: llm (ASL's world-model "
                                                    "prompt on --model; default) | learned (the shipped learned "
                                                    "world model, no LLM).")] = None,
    tasks_module: Annotated[list[str] | None, typer.Option("--tasks-module", metavar="MODULE",
                                                           help=TASKS_MODULE_HELP + " Needed to judge "
                                                           "episodes of your own templates with rule or "
                                                           "see.")] = None,
) -> None:
    """Judge every episode of SOURCE with one method; write judgements.jsonl (resumable: judged
    episodes are skipped) and print the agreement with the checker where labels exist.
    `droidverify judge calibrate` makes the --judge-file of a scored judge."""
    if method is not None and method not in METHODS:
        fail(f"unknown --method {method!r}; use one of {', '.join(METHODS)}")
    if evaluator is not None and evaluator not in EVALUATORS:
        fail(f"unknown --evaluator {evaluator!r}; use one of {', '.join(EVALUATORS)}")
    if verdict is not None and verdict not in VERDICTS:
        fail(f"unknown --verdict {verdict!r}; use one of {', '.join(VERDICTS)}")
    if setting is not None and setting not in COMPACT_SETTINGS:
        fail(f"unknown --setting {setting!r}; use one of {', '.join(COMPACT_SETTINGS)}")
    if setting is not None and method not in ("compact", "lora"):
        fail("--setting applies only to --method compact and --method lora")
    if judge_model is not None and method not in ("compact", "lora", "confidence"):
        fail("--judge-model applies only to --method compact, lora and confidence")
    if method == "confidence":
        if model is not None or judge_file is not None or verdict is not None:
            fail("--method confidence reads the verifier agent's own scores: its calibration is --judge-model "
                 "(default: the shipped verifier's), not --model, --judge-file or --verdict")
        if not source.is_dir():
            fail(f"--method confidence judges a run directory of `droidverify run --agent verifier` (the agent's "
                 f"candidate scores are in its steps); {source} is not one")
        model = str(judge_model) if judge_model is not None else None
    base_model = None
    if method == "lora":
        if judge_file is not None or verdict == "text":
            fail("--method lora is a trained scored judge: its threshold is in --judge-model, not a --judge-file, "
                 "and it has no --verdict text")
        if judge_model is not None and not judge_model.exists():
            fail(f"--judge-model {judge_model} does not exist")
        base_model, model = model, str(judge_model) if judge_model is not None else None
    if method == "compact" and (model is not None or judge_file is not None):
        fail("--method compact is a trained network, not a language model: give its directory with "
             "--judge-model (not --model or --judge-file)")
    if method == "compact" and judge_model is not None and not judge_model.exists():
        fail(f"--judge-model {judge_model} does not exist")
    if method == "compact":
        model = str(judge_model) if judge_model is not None else None
    if world_model is not None and (world_model not in ("llm", "learned") or method != "see"):
        fail(f"--world-model {world_model!r}: llm or learned, with --method see only")
    load_task_modules(tasks_module)  # here and, through the backend, in every --workers process
    from rich.progress import Progress

    from droidverify.rewards.metrics import agreement
    from droidverify.rewards.scoring import DEFAULT_THRESHOLD
    from droidverify.rewards.store import JudgementStore, judge_all
    from droidverify.runner.backends import make_backend

    console = Console(stderr=True)
    with cli_errors():
        threshold, expect_model, source_of_threshold = DEFAULT_THRESHOLD, None, None
        if judge_file is not None:
            from droidverify.rewards.scoring import read_judge_file

            jf = read_judge_file(judge_file)
            if verdict == "text":
                fail("--judge-file holds a scored judge; it cannot be used with --verdict text")
            method = method or jf.method
            jf.check(method=method, version=score_prompt_version(method) if method in SCORE_PROMPTS else None)
            # The options the threshold was calibrated with (votes; ProRe's probing) come from the
            # file; giving another value is refused rather than silently judging with a stale threshold.
            given = {"votes": votes, "probes": probes, "probe_steps": probe_steps, "evaluator": evaluator,
                     "max_tokens": max_tokens}
            for key, value in jf.settings.items():
                if key in given and given[key] is not None and given[key] != value:
                    fail(f"--{key.replace('_', '-')} {given[key]}: the judge file was calibrated with {value}")
            votes = votes if votes is not None else jf.settings.get("votes")
            probes = probes if probes is not None else jf.settings.get("probes")
            probe_steps = probe_steps if probe_steps is not None else jf.settings.get("probe_steps")
            evaluator = evaluator if evaluator is not None else jf.settings.get("evaluator")
            max_tokens = max_tokens if max_tokens is not None else jf.settings.get("max_tokens")
            model = model if model is not None else jf.model_spec
            verdict, threshold, expect_model = "score", jf.threshold, jf.model
            source_of_threshold = f"threshold {threshold:.6g} from {judge_file}"
        method = method or "rule"
        verdict = verdict or "text"
        if evaluator is not None and method != "prore":
            fail("--evaluator applies only to --method prore")
        if evaluator is not None and evaluator not in EVALUATORS:  # from a judge file
            fail(f"unknown evaluator {evaluator!r} in the judge file; use one of {', '.join(EVALUATORS)}")
        if verdict == "score" and source_of_threshold is None:
            source_of_threshold = (f"uncalibrated threshold {threshold} (no --judge-file; calibrate one with "
                                   "`droidverify judge calibrate`)")
        backend = make_backend(workers)  # None: judge in this process
        trajs, labels, default_out = load_episodes(source)
        if limit is not None:
            trajs = trajs[:limit]
        if not trajs:
            fail(f"{source} holds no finished episode")
        check_task_names(trajs, method)
        if method == "confidence":
            _check_confidence_source(model, source)
        spec = JudgeSpec(method, model=model, votes=votes if votes is not None else 3,
                         max_tokens=max_tokens if max_tokens is not None else 256,
                         probes=probes if probes is not None else 2,
                         probe_steps=probe_steps if probe_steps is not None else 6,
                         evaluator=evaluator or "generator", verdict=verdict, threshold=threshold,
                         expect_model=expect_model, setting=setting or "auto",
                         world_model=world_model or "llm", base_model=base_model)
        if source_of_threshold is not None:
            console.print(f"scored verdicts: {source_of_threshold}")
        # One worker: the judge is built here, as always. More: each worker builds its own.
        judge = spec() if backend is None else spec
        store = JudgementStore(out or default_out)
        if backend is not None:
            note = (" (the local model is loaded once per worker)" if spec.loads_local_model else
                    " (all workers share the model server)" if method != "rule" else "")
            console.print(f"judging on {backend.label}{note}")
        try:
            with Progress(console=console, transient=True) as prog:
                bar = prog.add_task(f"judging ({method})", total=len(trajs))
                results = judge_all(judge, trajs, store, on_done=lambda j, cached: prog.advance(bar),
                                    backend=backend)
        finally:
            if backend is not None:
                backend.close()
    counts = {o: sum(j.outcome == o for j in results) for o in ("success", "failure", "undecided")}
    out_console = Console()
    by = f"{judge.name} ({judge.version}" + (f", evaluator {spec.evaluator})" if method == "prore" else ")")
    out_console.print(f"{len(results)} episodes judged by {by}: "
                      + ", ".join(f"{k} {v}" for k, v in counts.items()) + f"; written to {store.path}")
    labelled = [j for j in results if j.episode_id in labels]
    if labelled:
        out_console.print(agreement_table([agreement(labelled, labels, judge=judge.name)]))
    else:
        out_console.print("no checker labels for these episodes: no agreement table")
    if report and source.is_dir():
        from droidverify.runner.report import build_report

        try:
            build_report(source)
        except (DroidVerifyError, OSError) as e:
            typer.echo(f"warning: report not rebuilt: {e}", err=True)


def _verifier_run_config(run_dir: Path) -> dict[str, Any]:
    """``run.json``'s configuration of a verifier-agent run (the confidence judge reads that agent's
    own scores and its verifier's digest); exit 2 naming the run otherwise."""
    import json

    from droidverify.runner.store import RUN_FILE

    try:
        config = json.loads((run_dir / RUN_FILE).read_text()).get("config", {})
    except (OSError, ValueError, AttributeError) as e:
        fail(f"{run_dir}: not a readable run directory ({e})")
    if not isinstance(config, dict) or config.get("agent") != "verifier":
        agent = config.get("agent") if isinstance(config, dict) else None
        fail(f"{run_dir} is a run of --agent {agent!r}; the confidence judge reads --agent verifier runs")
    return config


def _check_confidence_source(calibration: str | None, run_dir: Path) -> None:
    """The run's verifier must be the one the calibration was fitted on (run.json names its digest)."""
    from droidverify.rewards.confidence import ConfidenceJudge

    ConfidenceJudge.load(calibration).check_verifier(_verifier_run_config(run_dir).get("verifier_digest"))


def judge_model_name(model: str | None) -> str:
    """The ``name`` a judge LLM loaded from ``model`` has (what a judge file records and is checked
    against), without loading local weights: a model server is asked, a local model is named by path."""
    from droidverify.llm.registry import is_remote, load_llm

    if is_remote(model):
        return str(load_llm(model).name)
    from droidverify.llm.modelcache import materialize

    bundled = model is None or model.strip().lower() in ("", "smollm2")
    return materialize(None if bundled else model)[1]


def calibrate_command(
    method: Annotated[str, typer.Option("--method", help=" | ".join(SCORE_PROMPTS))],
    labelled_set: Annotated[Path, typer.Option("--set", help="A labelled set of TRAIN templates "
                                               "(`droidverify labelled-set --split train`).")],
    out: Annotated[Path, typer.Option("--out", help="Where to write the judge file (JSON).")],
    model: Annotated[str | None, typer.Option("--model", help=MODEL_HELP)] = None,
    votes: Annotated[int, typer.Option("--votes", help="SmartSnap: scored votes, 1 or 3.", min=1, max=3)] = 3,
    max_tokens: Annotated[int, typer.Option("--max-tokens", help="ProRe: tokens per generated reply "
                                            "(probes, claims).", min=1, max=4096)] = 256,
    probes: Annotated[int, typer.Option("--probes", help="ProRe: probing goals.", min=1, max=5)] = 2,
    probe_steps: Annotated[int, typer.Option("--probe-steps", help="ProRe: evaluator steps per probe.",
                                             min=1, max=30)] = 6,
    evaluator: Annotated[str | None, typer.Option("--evaluator", help=EVALUATOR_HELP)] = None,
    workers: Annotated[str, typer.Option("--workers", help=WORKERS_HELP)] = "1",
) -> None:
    """Calibrate a scored judge on a TRAIN labelled set: score every item (P(Yes) of the method's
    fixed question), choose the threshold that maximises F1 against the checker labels (ties: the
    middle of the best interval) and write it, with the method, model, prompt version and the
    calibration set's size/split/F1, to a judge file for `droidverify judge --judge-file`.
    A validation or test set is refused: thresholds are never set on the data they are measured on."""
    if method not in SCORE_PROMPTS:
        fail(f"--method {method!r} has no scored verdict to calibrate; use one of {', '.join(SCORE_PROMPTS)}")
    if evaluator is not None and evaluator not in EVALUATORS:
        fail(f"unknown --evaluator {evaluator!r}; use one of {', '.join(EVALUATORS)}")
    if evaluator is not None and method != "prore":
        fail("--evaluator applies only to --method prore")
    from rich.progress import Progress

    from droidverify.rewards.labelled import read_set
    from droidverify.rewards.scoring import (
        DEFAULT_THRESHOLD,
        JudgeFile,
        calibrate,
        require_train_split,
        write_judge_file,
    )
    from droidverify.runner.backends import make_backend

    console = Console(stderr=True)
    with cli_errors():
        header, items = read_set(labelled_set)
        require_train_split(header, labelled_set)  # before any model loads
        if not items:
            fail(f"{labelled_set} holds no trajectory")
        version = score_prompt_version(method)
        spec = JudgeSpec(method, model=model, votes=votes, max_tokens=max_tokens, probes=probes,
                         probe_steps=probe_steps, evaluator=evaluator or "generator", verdict="score",
                         threshold=DEFAULT_THRESHOLD)
        backend = make_backend(workers)
        judge = spec() if backend is None else spec
        try:
            with Progress(console=console, transient=True) as prog:
                bar = prog.add_task(f"scoring ({method})", total=len(items))
                cal, judgements = calibrate(judge, [it.trajectory for it in items], [it.label for it in items],
                                            backend=backend, on_done=lambda j, cached: prog.advance(bar))
        finally:
            if backend is not None:
                backend.close()
        # The model's name as the judge knows it (the judge file is checked against it when used).
        llm = getattr(judge, "llm", None)
        model_name = str(llm.name) if llm is not None else judge_model_name(model)
        settings: dict[str, Any] = {"votes": votes} if method == "smartsnap" else {}
        if method == "prore":
            settings = {"probes": probes, "probe_steps": probe_steps, "evaluator": evaluator or "generator",
                        "max_tokens": max_tokens}
        args = ["droidverify", "judge", "calibrate", "--method", method, "--set", str(labelled_set),
                "--out", str(out)]
        if model is not None:
            args += ["--model", model]
        for flag, value, default in (("--votes", votes, 3), ("--max-tokens", max_tokens, 256),
                                     ("--probes", probes, 2), ("--probe-steps", probe_steps, 6),
                                     ("--evaluator", evaluator, None), ("--workers", workers, "1")):
            if value != default:
                args += [flag, str(value)]
        jf = JudgeFile(method=method, model=str(model_name), version=version, threshold=cal.threshold,
                       model_spec=model, settings=settings,
                       calibration={"set": str(labelled_set), "split": header.get("split"),
                                    "set_version": header.get("version"), **cal.to_dict(),
                                    "undecided": sum(j.outcome == "undecided" for j in judgements)},
                       command=shlex.join(args))
        path = write_judge_file(jf, out)
    table = Table(title=f"{method} ({version}) calibrated on {cal.n} train items ({cal.positives} successes) "
                        f"-> {path}")
    for col in ("threshold", "best-F1 interval", "F1", "precision", "recall", "accuracy", "unscored"):
        table.add_column(col, justify="right")
    table.add_row(f"{cal.threshold:.6g}", f"({cal.interval[0]:.4g}, {cal.interval[1]:.4g}]", f"{cal.f1:.3f}",
                  f"{cal.precision:.3f}", f"{cal.recall:.3f}", f"{cal.accuracy:.3f}", str(cal.unscored))
    Console().print(table)


def calibrate_confidence_command(
    runs: Annotated[list[Path], typer.Argument(metavar="RUN_DIR...", help="Run directories of `droidverify run "
                                               "--agent verifier` on TRAIN templates, all with one verifier.")],
    out: Annotated[Path, typer.Option("--out", help="Where to write the calibration (a .json file, or a "
                                      "directory for confidence.json).")],
    signal: Annotated[str, typer.Option("--signal", help="What the agent's confidence is read as: "
                                        "log_p_episode (default: the sum of log P(the action played)) | "
                                        "mean_log_p | mean_p_played | min_p_played | certainty (1 - mean "
                                        "normalised entropy).")] = "log_p_episode",
    max_false_success: Annotated[float | None, typer.Option("--max-false-success", metavar="RATE",
                                                            help="Choose the lowest threshold that accepts at "
                                                            "most RATE of the runs' failed episodes (default: "
                                                            "the F1-best threshold).", min=0, max=1)] = None,
    tasks_module: Annotated[list[str] | None, typer.Option("--tasks-module", metavar="MODULE",
                                                           help=TASKS_MODULE_HELP)] = None,
) -> None:
    """Fit the confidence judge (`--judge confidence`): the threshold on the verifier agent's own
    confidence that separates its successes from its failures on TRAIN templates (checker-labelled),
    stored with the verifier's digest. Runs of validation or test templates are refused: thresholds
    are never set on the data they are measured on."""
    from droidverify.rewards.confidence import SIGNALS, fit_calibration
    from droidverify.runner.store import load_trajectories
    from droidverify.tasks import registry

    if signal not in SIGNALS:
        fail(f"unknown --signal {signal!r}; use one of {', '.join(SIGNALS)}")
    load_task_modules(tasks_module)
    with cli_errors():
        digests: set[str | None] = set()
        trajs: list[Any] = []
        for run in runs:
            config = _verifier_run_config(run)
            held_out = sorted({t for t in config.get("tasks", []) if registry.split_of(t) != "train"})
            if held_out:
                fail(f"{run} plays {len(held_out)} templates that are not train templates ({', '.join(held_out[:3])}"
                     f"{' ...' if len(held_out) > 3 else ''}); calibrate on train templates only (validation and "
                     "test are for measuring the judge)")
            digests.add(config.get("verifier_digest"))
            trajs += load_trajectories(run)
        if len(digests) != 1:
            fail(f"the runs were played by {len(digests)} different verifiers; a calibration is one verifier's")
        digest = next(iter(digests))
        args = ["droidverify", "judge", "calibrate-confidence", *map(str, runs), "--out", str(out)]
        if signal != "log_p_episode":
            args += ["--signal", signal]
        if max_false_success is not None:
            args += ["--max-false-success", f"{max_false_success:g}"]
        cal = fit_calibration(trajs, signal=signal, max_false_success=max_false_success, verifier_digest=digest,
                              source={"runs": [str(r) for r in runs], "split": "train",
                                      "command": shlex.join(args)})
        path = cal.save(out)
    f = cal.fitted_on
    table = Table(title=f"confidence judge ({cal.signal}, rule {cal.rule}) fitted on {f['declared_done']} "
                        f"declared-done episodes of {len(runs)} train run(s) ({f['successes']} successes) -> {path}")
    for col in ("threshold", "ROC AUC", "F1", "precision", "recall", "false-success rate", "not declared done"):
        table.add_column(col, justify="right")
    auc = f.get("roc_auc_declared_done")
    table.add_row(f"{cal.threshold:.6g}", f"{auc:.3f}" if auc is not None else "-", f"{f['f1']:.3f}",
                  f"{f['precision']:.3f}", f"{f['recall']:.3f}", f"{f['false_success_rate']:.3f}",
                  str(f["episodes"] - f["declared_done"]))
    Console().print(table)


class _JudgeGroup(TyperGroup):
    """``judge``'s subcommands; arguments that name none go to the default command (``episodes``),
    so ``droidverify judge [OPTIONS] SOURCE`` works as before the group existed."""

    default_command = "episodes"

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = [self.default_command, *args]
        return super().parse_args(ctx, args)


def labelled_set_command(
    out: Annotated[Path, typer.Option("--out", help="Where to write the set (.jsonl or .jsonl.gz).")],
    split: Annotated[str, typer.Option("--split", help="Templates: train (default) | validation | test.")] = "train",
    n: Annotated[int, typer.Option("--n", help="Trajectories (even; half successes).", min=2,
                                   max=100_000)] = 300,
    tasks_module: Annotated[list[str] | None, typer.Option("--tasks-module", metavar="MODULE",
                                                           help=TASKS_MODULE_HELP + " Its templates of "
                                                           "--split join the set.")] = None,
) -> None:
    """Build a balanced, checker-labelled trajectory set from the simulator (oracle successes,
    realistic failures, self-verifying submit variants)."""
    from droidverify.rewards.labelled import build_items, write_set

    load_task_modules(tasks_module)
    console = Console(stderr=True)
    with cli_errors():
        with console.status("building the labelled set"):
            items = build_items(split, n=n)
        path = write_set(items, out, split=split)
    kinds: dict[str, list[int]] = {}
    for it in items:
        kinds.setdefault(it.variant, [0, 0])[0 if it.label else 1] += 1
    table = Table(title=f"{len(items)} trajectories ({split} templates) -> {path}")
    for col in ("variant", "success", "failure"):
        table.add_column(col)
    for k, (s, f) in sorted(kinds.items()):
        table.add_row(k, str(s), str(f))
    Console().print(table)


def register(app: typer.Typer) -> None:
    group = typer.Typer(cls=_JudgeGroup, no_args_is_help=True,
                        help="Judge episodes (`droidverify judge [OPTIONS] SOURCE`), calibrate a scored "
                             "judge (`droidverify judge calibrate`) or the verifier's confidence judge "
                             "(`droidverify judge calibrate-confidence`).")
    group.command(_JudgeGroup.default_command,
                  short_help="Judge every episode of SOURCE (the default: `droidverify judge [OPTIONS] "
                             "SOURCE`).")(judge_command)
    group.command("calibrate", short_help="Choose a scored judge's threshold on a train labelled set; "
                                          "write a judge file.")(calibrate_command)
    group.command("calibrate-confidence",
                  short_help="Fit the confidence judge's threshold on verifier runs of train templates; "
                             "write its calibration.")(calibrate_confidence_command)
    app.add_typer(group, name="judge")
    app.command("labelled-set")(labelled_set_command)
