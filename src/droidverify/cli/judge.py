"""``droidverify judge`` and ``droidverify labelled-set``: judge episodes, build the labelled set."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from droidverify.cli._common import cli_errors, fail
from droidverify.errors import DroidVerifyError

METHODS = ("rule", "passive", "smartsnap", "prore", "see")
# ProRe's evaluator agents: the LLM agents of ``droidverify run`` (runner.factories.LLM_AGENTS).
EVALUATORS = ("generator", "verifier", "smartsnap")


def load_episodes(source: Path) -> tuple[list[Any], dict[str, bool], Path]:
    """(trajectories, labels by episode id, default judgements file) of a run directory or a
    labelled-set file. A run directory's labels are its checker results (where scored)."""
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
        labels = {str(t.metadata.get("episode_id")): t.success >= 1.0 for t in trajs if t.success is not None}
        return trajs, labels, source / JUDGEMENTS_FILE
    if not source.is_file():
        fail(f"{source} does not exist")
    _header, items = read_set(source)
    name = source.name.removesuffix(".gz").removesuffix(".jsonl")
    return [it.trajectory for it in items], {it.id: it.label for it in items}, \
        source.with_name(f"{name}.{JUDGEMENTS_FILE}")


def check_evaluator(evaluator: object) -> str:
    """A ProRe evaluator name, or :class:`JudgeInputError`."""
    from droidverify.errors import JudgeInputError

    if not isinstance(evaluator, str) or evaluator not in EVALUATORS:
        raise JudgeInputError(f"unknown ProRe evaluator {evaluator!r}; use one of {', '.join(EVALUATORS)}")
    return evaluator


def prore_evaluator(evaluator: str, llm: Any, model: str | None, *, env: str = "sim") -> Any:
    """ProRe's evaluator as a picklable agent factory: ``droidverify run --agent EVALUATOR``'s
    ``AgentSpec`` (history memory; the apps of ``env``). The generator and smartsnap agents share the
    judge's ``llm``; the verifier agent loads its own copy of ``model`` (with the shipped verifier for
    the bundled model: its adapter is merged into the weights, which must not be the judge's)."""
    from droidverify.runner.factories import AgentSpec, installed_app_names, resolve_verifier

    check_evaluator(evaluator)
    apps = installed_app_names(env)
    if evaluator == "verifier":
        return AgentSpec("verifier", model, "history", 0, apps, verifier=resolve_verifier(None, model))
    return AgentSpec(evaluator, model, "history", 0, apps).with_llm(llm)


def make_judge(method: str, *, model: str | None, votes: int, max_tokens: int, probes: int,
               probe_steps: int, evaluator: str = "generator", env: str = "sim") -> Any:
    """Build the judge for ``method`` (loading the LLM only for model-based methods). ``evaluator``
    (ProRe): the agent that probes the end state, one of :data:`EVALUATORS` (:func:`prore_evaluator`);
    ``env``: where it probes (the apps it may open)."""
    if method == "prore":
        check_evaluator(evaluator)  # before loading a model
    if method == "rule":
        from droidverify.rewards.rule import RuleJudge

        return RuleJudge()
    from droidverify.llm.registry import load_llm

    llm = load_llm(model)
    if method == "passive":
        from droidverify.rewards.passive import PassiveJudge

        return PassiveJudge(llm, max_tokens=max_tokens)
    if method == "smartsnap":
        from droidverify.rewards.smartsnap import EvidenceJudge

        return EvidenceJudge(llm, votes=votes, max_tokens=max_tokens)
    if method == "prore":
        from droidverify.rewards.prore import ProReJudge

        return ProReJudge(llm, evaluator=prore_evaluator(evaluator, llm, model, env=env), k=probes,
                          max_probe_steps=probe_steps, max_tokens=max_tokens)
    from droidverify.rewards.see import SEEJudge, SemanticEstimator

    return SEEJudge(SemanticEstimator(llm, max_tokens=min(max_tokens, 64)))


_JUDGE_CLASSES = {"rule": ("droidverify.rewards.rule", "RuleJudge"),
                  "passive": ("droidverify.rewards.passive", "PassiveJudge"),
                  "smartsnap": ("droidverify.rewards.smartsnap", "EvidenceJudge"),
                  "prore": ("droidverify.rewards.prore", "ProReJudge"),
                  "see": ("droidverify.rewards.see", "SEEJudge")}


@dataclass(frozen=True)
class JudgeSpec:
    """A picklable judge factory (``--workers``): :func:`make_judge` where it is called, i.e. once per
    worker; ``name`` and ``version`` are known without building the judge (nor loading its model).
    ``evaluator`` and ``env``: ProRe's evaluator agent and where it probes (:func:`make_judge`)."""

    method: str
    model: str | None = None
    votes: int = 3
    max_tokens: int = 256
    probes: int = 2
    probe_steps: int = 6
    evaluator: str = "generator"
    env: str = "sim"

    def __post_init__(self) -> None:
        from droidverify.errors import JudgeInputError

        if self.method not in METHODS:
            raise JudgeInputError(f"unknown judging method {self.method!r}; use one of {', '.join(METHODS)}")
        check_evaluator(self.evaluator)

    def _cls(self) -> Any:
        module, cls = _JUDGE_CLASSES[self.method]
        return getattr(importlib.import_module(module), cls)

    @property
    def name(self) -> str:
        return self._cls().name

    @property
    def version(self) -> str:
        return self._cls().version

    @property
    def loads_local_model(self) -> bool:
        return self.method != "rule" and not (self.model or "").startswith("openai:")

    def __call__(self) -> Any:
        return make_judge(self.method, model=self.model, votes=self.votes, max_tokens=self.max_tokens,
                          probes=self.probes, probe_steps=self.probe_steps, evaluator=self.evaluator,
                          env=self.env)


def agreement_table(rows: list[Any], title: str = "agreement with the checker") -> Table:
    table = Table(title=title)
    for col in ("judge", "n", "accuracy", "precision", "recall", "F1", "undecided", "tokens in", "s / traj"):
        table.add_column(col, justify="left" if col == "judge" else "right")
    for a in rows:
        table.add_row(a.judge, str(a.n), f"{a.accuracy:.3f}", f"{a.precision:.3f}", f"{a.recall:.3f}",
                      f"{a.f1:.3f}", f"{a.undecided_rate:.3f}", f"{a.tokens_in:.0f}", f"{a.latency_s:.2f}")
    return table


def judge_command(
    source: Annotated[Path, typer.Argument(help="A run directory or a labelled-set file (.jsonl[.gz]).")],
    method: Annotated[str, typer.Option("--method", help=" | ".join(METHODS))] = "rule",
    model: Annotated[str | None, typer.Option("--model", help="Judge LLM: a model directory, a .gguf file "
                                              "or openai:URL[#model] (default: the bundled model).")] = None,
    votes: Annotated[int, typer.Option("--votes", help="SmartSnap judge votes (temperature > 0 when > 1).",
                                       min=1, max=15)] = 3,
    max_tokens: Annotated[int, typer.Option("--max-tokens", help="Tokens per judge reply.", min=1,
                                            max=4096)] = 256,
    probes: Annotated[int, typer.Option("--probes", help="ProRe: probing goals.", min=1, max=5)] = 2,
    probe_steps: Annotated[int, typer.Option("--probe-steps", help="ProRe: evaluator steps per probe.",
                                             min=1, max=30)] = 6,
    evaluator: Annotated[str | None, typer.Option("--evaluator", help="ProRe: the agent that probes the end "
                                                  "state, as `droidverify run --agent` builds it on the judge's "
                                                  "--model: " + " | ".join(EVALUATORS) + " (default generator).")
                         ] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="Judge only the first N episodes.", min=1)] = None,
    out: Annotated[Path | None, typer.Option("--out", help="judgements file (default: RUN_DIR/judgements.jsonl, "
                                             "or NAME.judgements.jsonl beside a set file).")] = None,
    report: Annotated[bool, typer.Option("--report/--no-report", help="Rebuild a run directory's "
                                         "report.html with the judgements.")] = True,
    workers: Annotated[str, typer.Option("--workers", help="Episodes judged at once: N local worker "
                                         "processes, or 'auto' (one per core); each builds the judge once "
                                         "(a local model is loaded once per worker).")] = "1",
) -> None:
    """Judge every episode of SOURCE with one method; write judgements.jsonl (resumable: judged
    episodes are skipped) and print the agreement with the checker where labels exist."""
    if method not in METHODS:
        fail(f"unknown --method {method!r}; use one of {', '.join(METHODS)}")
    if evaluator is not None and evaluator not in EVALUATORS:
        fail(f"unknown --evaluator {evaluator!r}; use one of {', '.join(EVALUATORS)}")
    if evaluator is not None and method != "prore":
        fail("--evaluator applies only to --method prore")
    from rich.progress import Progress

    from droidverify.rewards.metrics import agreement
    from droidverify.rewards.store import JudgementStore, judge_all
    from droidverify.runner.backends import make_backend

    console = Console(stderr=True)
    with cli_errors():
        backend = make_backend(workers)  # None: judge in this process
        trajs, labels, default_out = load_episodes(source)
        if limit is not None:
            trajs = trajs[:limit]
        if not trajs:
            fail(f"{source} holds no finished episode")
        spec = JudgeSpec(method, model=model, votes=votes, max_tokens=max_tokens, probes=probes,
                         probe_steps=probe_steps, evaluator=evaluator or "generator")
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


def labelled_set_command(
    out: Annotated[Path, typer.Option("--out", help="Where to write the set (.jsonl or .jsonl.gz).")],
    split: Annotated[str, typer.Option("--split", help="Templates: train (default) | validation | test.")] = "train",
    n: Annotated[int, typer.Option("--n", help="Trajectories (even; half successes).", min=2,
                                   max=100_000)] = 300,
) -> None:
    """Build a balanced, checker-labelled trajectory set from the simulator (oracle successes,
    realistic failures, self-verifying submit variants)."""
    from droidverify.rewards.labelled import build_items, write_set

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
    app.command("judge")(judge_command)
    app.command("labelled-set")(labelled_set_command)
