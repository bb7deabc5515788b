"""The HTML report of a run directory: summary tables, then every episode with its steps.

Per step the report shows the screen the agent saw (rendered from the step's XML with the acted-on
element outlined), the action, errors, the raw model output and, for the verifier, a bar chart of
candidate scores with the step's entropy; for the generator, every attempt. With judged retries
(``run_many(attempts=K)``) an episode shows each of its attempts, with its judgements, before the
last one (the episode's outcome).

Rendered screens are PNG files in ``screens/rendered/<attempt_id>/`` next to the report (loaded
lazily by the browser, so a 100-episode report stays light). Step lines never change once written,
so an existing file is reused when the report is rebuilt. In a run with workers each worker renders
the screens of the episodes it played right after playing them (:func:`render_lines`), so the
report's rendering scales with the workers; the report renders whatever is still missing (episodes
of an earlier invocation or of an in-process run), in worker processes when there are many.

Everything read from the run files is untrusted (screen text, model output): the template
autoescapes it.
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from droidverify.agents.verifier.record import VerifierStepInfo
from droidverify.env.records import is_success
from droidverify.errors import DroidVerifyError, RunError
from droidverify.runner.store import (
    EPISODES_FILE,
    REPORT_FILE,
    RUN_FILE,
    SCREENS_DIR,
    STEPS_FILE,
    attempt_key,
    attempt_of,
    read_episodes,
    read_steps,
)
from droidverify.runner.summary import RetryStats, RunSummary

RENDERED_DIR = "rendered"  # under SCREENS_DIR: the report's own images (env screenshots sit beside)
DEFAULT_SCALE = 0.3
DEFAULT_TOP_K = 8
MAX_TEXT = 20_000  # characters of one raw output / memory / JSON blob shown before truncating
# A line a worker hands the run's writer with a screen it rendered for the report (never written to
# the run files): ``path``, relative to the run directory, where the PNG goes.
RENDERED_KIND = "rendered"


@dataclass
class ScreenImage:
    """A rendered screen: ``src`` relative to the report, or ``error`` saying why there is none."""

    src: str | None = None
    error: str | None = None
    note: str | None = None  # e.g. "index 40 is out of range: nothing outlined"


@dataclass
class Bar:
    rank: int  # 1 = best score
    index: int  # candidate position in agent_info["candidates"]
    score: float
    width: float  # percent of the track, proportional to the score (see ``scale_note``)
    description: str
    action: str
    chosen: bool
    argmax: bool


@dataclass
class VerifierView:
    bars: list[Bar]
    hidden: list[Bar]  # below the top k, shown collapsed
    entropy: float | None
    entropy_normalized: float | None
    score_kind: str | None
    scale_note: str
    completion: dict[str, Any] | None
    completion_failures: list[dict[str, Any]]


@dataclass
class StepView:
    index: int
    action: str | None
    action_type: str | None
    description: str | None  # the chosen candidate's description (verifier)
    raw_output: str | None
    error: str | None
    screen: ScreenImage | None
    device_screenshot: str | None
    verifier: VerifierView | None
    attempts: list[dict[str, Any]] | None  # generator
    fallback_wait: bool
    memory: str | None
    traceback: str | None
    other_info: str | None  # remaining agent_info keys as JSON
    timings: dict[str, float]
    usage: dict[str, int]


@dataclass
class EpisodeView:
    ep: dict[str, Any]
    anchor: str
    steps: list[StepView] = field(default_factory=list)
    final_screen: ScreenImage | None = None
    missing_steps: int = 0  # steps the episode line counts but steps.jsonl does not hold
    mean_entropy_normalized: float | None = None
    judgements: list[dict[str, Any]] = field(default_factory=list)  # from judgements.jsonl
    attempt: int = 0  # judged retries: this attempt's index (the episode's last, for an episode view)
    judgement_id: str = ""  # the id its judgements are stored under (runner.store.attempt_key)
    earlier: list[EpisodeView] = field(default_factory=list)  # the episode's attempts before this one
    verdict: str | None = None  # the deciding judge's outcome on this attempt (retry runs)


# ---------------------------------------------------------------------------------------- helpers


def _clip(text: Any, limit: int = MAX_TEXT) -> str | None:
    if text is None:
        return None
    s = text if isinstance(text, str) else str(text)
    return s if len(s) <= limit else s[:limit] + f"\n... [{len(s) - limit} more characters]"


def _number(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, int | float):
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _action_text(action: Any) -> tuple[str | None, str | None]:
    """(compact JSON, action_type) of a step's action dict; the dict is untrusted."""
    if action is None:
        return None, None
    if isinstance(action, dict):
        kind = action.get("action_type")
        ordered = {"action_type": kind, **{k: v for k, v in sorted(action.items()) if k != "action_type"}}
        return json.dumps(ordered, ensure_ascii=False, separators=(",", ":"), default=str), \
            kind if isinstance(kind, str) else None
    return _clip(action, 2000), None


def _action_index(action: Any) -> int | None:
    if isinstance(action, dict):
        idx = action.get("index")
        if isinstance(idx, int) and not isinstance(idx, bool):
            return idx
    return None


def _observation(d: Any, where: str):
    """An Observation from a step record's dict, or RunError naming what is wrong with it."""
    from droidverify.env.records import Observation

    if not isinstance(d, dict) or not isinstance(d.get("xml"), str):
        raise RunError(f"{where}: the record has no observation XML")
    size = d.get("screen_size") or (1080, 2400)
    if (not isinstance(size, list | tuple) or len(size) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and 0 < v <= 20_000 for v in size)):
        raise RunError(f"{where}: bad screen_size {size!r}")
    return Observation(xml=d["xml"], screen_size=(size[0], size[1]))


def _quantized(png: bytes) -> bytes:
    """Quantise to 64 colours (a flat UI loses nothing visible; files shrink ~4x)."""
    from PIL import Image

    img = Image.open(io.BytesIO(png)).quantize(colors=64, method=Image.Quantize.FASTOCTREE)
    buf = io.BytesIO()
    img.save(buf, format="PNG")  # optimize=True would triple the time for ~1% smaller files
    return buf.getvalue()


def write_screen_file(path: Path, data: bytes) -> None:
    """Write a rendered screen atomically: a crash leaves the old file or none, never half a PNG."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


@dataclass
class ScreenSpec:
    """Which screen of a run-file line the report shows, and where its PNG goes (``rel``: relative
    to the report's directory). One definition, so a worker renders exactly what the report would."""

    obs_dict: Any
    rel: str
    highlight: int | None
    where: str


def _step_index(rec: dict[str, Any]) -> int:
    step = rec.get("step") if isinstance(rec.get("step"), dict) else {}
    index = step.get("index") if isinstance(step.get("index"), int) else rec.get("index")
    return index if isinstance(index, int) else -1


def step_screen(rec: dict[str, Any]) -> ScreenSpec:
    """The screen of a ``step`` line: the observation the agent acted on, its target outlined."""
    step = rec.get("step") if isinstance(rec.get("step"), dict) else {}
    attempt, index = str(rec.get("attempt_id")), _step_index(rec)
    return ScreenSpec(step.get("observation"), f"{SCREENS_DIR}/{RENDERED_DIR}/{attempt}/{index:03d}.png",
                      _action_index(step.get("action")), f"step {index} of attempt {attempt}")


def final_screen(attempt: str, obs_dict: Any) -> ScreenSpec:
    """The screen of attempt ``attempt``'s ``final`` line (what the checker saw)."""
    return ScreenSpec(obs_dict, f"{SCREENS_DIR}/{RENDERED_DIR}/{attempt}/final.png", None,
                      f"final screen of attempt {attempt}")


def _render_bytes(obs_dict: Any, *, highlight: int | None, scale: float,
                  where: str) -> tuple[bytes | None, ScreenImage]:
    """(PNG, outcome) of one observation dict; a DroidVerifyError becomes the outcome's ``error``
    (no PNG) instead of breaking the report. The outcome's ``src`` is left for the caller."""
    from droidverify.ui.render import render_png

    try:
        obs = _observation(obs_dict, where)
        note = None
        if highlight is not None and not 0 <= highlight < len(obs.elements):
            note = f"index {highlight} is out of range (0..{len(obs.elements) - 1}): nothing outlined"
            highlight = None
        return _quantized(render_png(obs, highlight=highlight, scale=scale)), ScreenImage(note=note)
    except DroidVerifyError as exc:
        return None, ScreenImage(error=str(exc))


@dataclass
class RenderJob:
    """One screen to render: an observation dict from the run files to ``path``."""

    obs_dict: Any
    path: Path
    rel: str
    highlight: int | None
    scale: float
    where: str
    target: ScreenImage  # filled in with the result


def render_screen(obs_dict: Any, path: Path, *, rel: str, highlight: int | None, scale: float,
                  where: str) -> ScreenImage:
    """Render one observation dict to ``path``; failures become a visible ``error`` instead of
    breaking the report."""
    png, image = _render_bytes(obs_dict, highlight=highlight, scale=scale, where=where)
    if png is None:
        return image
    write_screen_file(path, png)
    return ScreenImage(src=rel, note=image.note)


def _run_job(job: RenderJob) -> ScreenImage:
    return render_screen(job.obs_dict, job.path, rel=job.rel, highlight=job.highlight, scale=job.scale,
                         where=job.where)


def render_lines(records: list[dict[str, Any]], *,
                 scale: float = DEFAULT_SCALE) -> list[tuple[dict[str, Any], bytes]]:
    """Render the report's screens of these run-file lines (each ``step`` and ``final`` line; others
    are passed over) where they were played: one ``(line, png)`` per screen, the line of kind
    :data:`RENDERED_KIND` naming the file (``path``, relative to the run directory). A worker calls
    this after an episode and sends the result with the episode's lines; the run's writer stores
    each PNG there and the report reuses it as it reuses any existing file.

    Only screens that render plainly come back. One with a note (an action index out of range) or
    an error (a damaged observation), or one that fails in any other way, is left to the report,
    which renders it again and shows the note or error (a reused file carries none)."""
    out: list[tuple[dict[str, Any], bytes]] = []
    for rec in records:
        if rec.get("kind") == "step":
            spec = step_screen(rec)
        elif rec.get("kind") == "final":
            spec = final_screen(str(rec.get("attempt_id")), rec.get("observation"))
        else:
            continue
        try:
            png, image = _render_bytes(spec.obs_dict, highlight=spec.highlight, scale=scale, where=spec.where)
        except Exception:  # noqa: BLE001, S112 -- left to the report, which meets it as it always did
            continue
        if png is not None and image.note is None:
            out.append(({"kind": RENDERED_KIND, "path": spec.rel}, png))
    return out


PARALLEL_MIN_JOBS = 64  # below this, starting worker processes costs more than it saves


def render_all(jobs: list[RenderJob], *, workers: int | None = None) -> None:
    """Render every job whose file does not exist yet (step lines never change, so an existing file
    is the same screen); in worker processes when there are many."""
    todo = []
    for job in jobs:
        if job.path.exists():
            job.target.src = job.rel
        else:
            todo.append(job)
    if workers is None:
        workers = min(4, os.cpu_count() or 1)
    if workers > 1 and len(todo) >= PARALLEL_MIN_JOBS:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # forkserver: workers never inherit the parent's threads (torch, tokenizers) mid-state.
        ctx = multiprocessing.get_context("forkserver")
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            results = list(pool.map(_run_job, todo, chunksize=16))
    else:
        results = [_run_job(j) for j in todo]
    for job, res in zip(todo, results, strict=True):
        job.target.src, job.target.error, job.target.note = res.src, res.error, res.note


def _verifier_view(info: dict[str, Any], top_k: int) -> VerifierView | None:
    rec = VerifierStepInfo.from_info(info)
    cands = rec.candidates
    if not cands:
        return None
    rows = [(i, c.score, c.description, c.action) for i, c in enumerate(cands)]
    scores = [s for _, s, _, _ in rows if s is not None]
    lo, hi = (min(scores), max(scores)) if scores else (0.0, 1.0)
    unit = lo >= 0.0 and hi <= 1.0
    if unit:  # probabilities: the bar is the score itself
        scale_note = "bar length = score (0 to 1)"
    else:  # a learned head's logits: only the order and the gaps mean something
        scale_note = f"bar length = (score − min) / (max − min), min {lo:.3g}, max {hi:.3g}"
    chosen, arg = rec.chosen, rec.argmax
    order = sorted(rows, key=lambda r: (-(r[1] if r[1] is not None else -math.inf), r[0]))
    bars = []
    for rank, (i, s, desc, act) in enumerate(order, start=1):
        if s is None:
            width = 0.0
        elif unit:
            width = 100.0 * s
        else:
            width = 100.0 * (s - lo) / (hi - lo) if hi > lo else 100.0
        bars.append(Bar(rank=rank, index=i, score=s if s is not None else math.nan, width=width,
                        description=desc, action=act, chosen=i == chosen, argmax=i == arg))
    shown = bars[:top_k]
    hidden = bars[top_k:]
    for b in list(hidden):  # the executed candidate is always visible
        if b.chosen:
            hidden.remove(b)
            shown.append(b)
    return VerifierView(bars=shown, hidden=hidden, entropy=rec.entropy, entropy_normalized=rec.entropy_normalized,
                        score_kind=rec.score_kind, scale_note=scale_note, completion=rec.completion,
                        completion_failures=rec.completion_failures)


_SHOWN_KEYS = {"paradigm", "candidates", "n_candidates", "argmax", "chosen", "entropy",
               "entropy_normalized", "score_kind", "memory", "completion", "completion_failures",
               "attempts", "fallback_wait", "traceback"}


def _step_view(rec: dict[str, Any], *, report_dir: Path, run_dir: Path, screens: bool, scale: float,
               top_k: int, jobs: list[RenderJob]) -> StepView:
    step = rec.get("step") if isinstance(rec.get("step"), dict) else {}
    index = _step_index(rec)
    action, kind = _action_text(step.get("action"))
    info = step.get("agent_info") if isinstance(step.get("agent_info"), dict) else {}
    screen = None
    if screens:
        spec = step_screen(rec)
        screen = ScreenImage()
        jobs.append(RenderJob(spec.obs_dict, report_dir / spec.rel, spec.rel, spec.highlight, scale,
                              spec.where, screen))
    shot = rec.get("screenshot")
    device = None
    if isinstance(shot, str) and (run_dir / shot).is_file():
        device = Path(os.path.relpath(run_dir / shot, report_dir)).as_posix()
    verifier = _verifier_view(info, top_k)
    description = None
    if verifier is not None:
        description = next((b.description for b in verifier.bars if b.chosen), None)
    attempts = info.get("attempts")
    attempts = [a for a in attempts if isinstance(a, dict)] if isinstance(attempts, list) else None
    other = {k: v for k, v in info.items() if k not in _SHOWN_KEYS}
    timings = {k: v for k, v in (step.get("timings") or {}).items() if _number(v) is not None} \
        if isinstance(step.get("timings"), dict) else {}
    usage = {k: v for k, v in (step.get("usage") or {}).items() if isinstance(v, int) and v} \
        if isinstance(step.get("usage"), dict) else {}
    return StepView(
        index=index, action=action, action_type=kind, description=description,
        raw_output=_clip(step.get("raw_output")), error=_clip(step.get("error")), screen=screen,
        device_screenshot=device, verifier=verifier,
        attempts=[{"raw": _clip(a.get("raw")), "error": _clip(a.get("error"))} for a in attempts]
        if attempts is not None else None,
        fallback_wait=bool(info.get("fallback_wait")), memory=_clip(info.get("memory")),
        traceback=_clip(info.get("traceback")),
        other_info=_clip(json.dumps(other, indent=1, ensure_ascii=False, default=str)) if other else None,
        timings=timings, usage=usage)


def _load_steps(run_dir: Path, attempts: set[str]) -> tuple[dict[str, list[dict]], dict[str, Any]]:
    """Step records and final observations of the given attempts (stale attempts are ignored)."""
    steps: dict[str, list[dict]] = {a: [] for a in attempts}
    finals: dict[str, Any] = {}
    for rec in read_steps(run_dir / STEPS_FILE).records:
        a = rec.get("attempt_id")
        if a not in steps:
            continue
        if rec.get("kind") == "step":
            steps[a].append(rec)
        elif rec.get("kind") == "final":
            finals[a] = rec.get("observation")
    for recs in steps.values():
        recs.sort(key=lambda r: r.get("index") if isinstance(r.get("index"), int) else -1)
    return steps, finals


def _group_rows(groups: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": name, "g": g, "width": 100.0 * (g.success_rate or 0.0)} for name, g in groups.items()]


def _entropy_by_outcome(views: list[EpisodeView]) -> list[dict[str, Any]] | None:
    """Mean normalised step entropy over verifier steps, grouped by the *episode's* outcome (the only
    label a run has; whether an individual step was right is not known)."""
    groups: dict[str, list[float]] = {"solved": [], "not solved": [], "unscored": []}
    for v in views:
        vals = [s.verifier.entropy_normalized for s in v.steps
                if s.verifier is not None and s.verifier.entropy_normalized is not None]
        succ = v.ep.get("success")
        key = "unscored" if succ is None else "solved" if is_success(succ) else "not solved"
        groups[key].extend(vals)
    rows = [{"name": k, "steps": len(vs), "mean": sum(vs) / len(vs)} for k, vs in groups.items() if vs]
    return rows or None


def _attach_judgements(out_dir: Path, views: list[EpisodeView]) -> None:
    """Show each episode's judgements (``droidverify judge``): verdict, reward components, the
    exhibits a SmartSnap judge saw (as the rendered screens after those rounds), ProRe's probes."""
    from droidverify.rewards.store import JUDGEMENTS_FILE, read_judgements

    by_episode: dict[str, list[Any]] = {}
    for j in read_judgements(out_dir / JUDGEMENTS_FILE):
        by_episode.setdefault(j.episode_id, []).append(j)
    for view in views:
        screens = {s.index: s.screen for s in view.steps}
        for j in by_episode.get(view.judgement_id or str(view.ep.get("episode_id")), []):
            exhibits = []
            for ex in j.details.get("exhibits") or []:
                r = ex.get("round") if isinstance(ex, dict) else None
                if isinstance(r, int):
                    exhibits.append({"round": r, "screen": screens.get(r + 1) or view.final_screen})
            probes = [{"goal": _clip(p.get("goal"), 500), "error": _clip(p.get("error"), 2000),
                       "actions": [s.get("action") or f"(no action: {s.get('error')})" for s in p.get("steps") or []
                                   if isinstance(s, dict)]}
                      for p in j.details.get("probes") or [] if isinstance(p, dict)]
            view.judgements.append({
                "judge": j.judge, "version": j.version, "outcome": j.outcome, "reward": j.reward,
                "components": _clip(json.dumps(j.components, ensure_ascii=False), 4000),
                "rationale": _clip(j.rationale, 4000), "parse_status": j.parse_status, "error": _clip(j.error, 2000),
                "tokens_in": j.tokens_in, "latency_s": j.latency_s, "exhibits": exhibits, "probes": probes,
                "labels": j.details.get("labels")})


def _attempt_view(ep: dict[str, Any], anchor: str, *, steps: dict[str, list[dict]], finals: dict[str, Any],
                  report_dir: Path, run_dir: Path, screens: bool, scale: float, top_k: int,
                  jobs: list[RenderJob]) -> EpisodeView:
    """The view of one attempt (an ``episodes.jsonl`` line): its steps, final screen and entropy."""
    attempt = str(ep.get("attempt_id"))
    view = EpisodeView(ep={**ep, "actions": ep.get("actions") or [], "errors": ep.get("errors") or []},
                       anchor=anchor, attempt=attempt_of(ep),
                       judgement_id=attempt_key(str(ep.get("episode_id")), attempt_of(ep)))
    view.steps = [_step_view(r, report_dir=report_dir, run_dir=run_dir, screens=screens, scale=scale,
                             top_k=top_k, jobs=jobs) for r in steps.get(attempt, [])]
    n = ep.get("n_steps") if isinstance(ep.get("n_steps"), int) else 0
    view.missing_steps = max(0, n - len(view.steps))
    if screens and attempt in finals:
        spec = final_screen(attempt, finals[attempt])
        view.final_screen = ScreenImage()
        jobs.append(RenderJob(spec.obs_dict, report_dir / spec.rel, spec.rel, None, scale, spec.where,
                              view.final_screen))
    ents = [s.verifier.entropy_normalized for s in view.steps
            if s.verifier is not None and s.verifier.entropy_normalized is not None]
    view.mean_entropy_normalized = sum(ents) / len(ents) if ents else None
    return view


def _earlier_attempts(out_dir: Path, episodes: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The recorded attempts before each given episode line's own (judged retries), by episode id."""
    if not any(attempt_of(ep) for ep in episodes):
        return {}  # no episode was retried: nothing earlier to show
    with warnings.catch_warnings():  # damaged lines were reported when the episodes were read
        warnings.simplefilter("ignore")
        recorded = read_episodes(out_dir).attempts
    out: dict[str, list[dict[str, Any]]] = {}
    for ep in episodes:
        eid = str(ep.get("episode_id"))
        tries = recorded.get(eid) or {}
        out[eid] = [tries[n] for n in sorted(tries) if n < attempt_of(ep)]
    return out


def _verdicts(views: list[EpisodeView], run_info: dict[str, Any]) -> None:
    """Each attempt's verdict from the judge that decided the retries (run.json ``retry_judge``)."""
    rj = run_info.get("retry_judge") if isinstance(run_info.get("retry_judge"), dict) else {}
    for view in views:
        for v in [*view.earlier, view]:
            v.verdict = next((j["outcome"] for j in v.judgements
                              if j["judge"] == rj.get("name") and j["version"] == rj.get("version")), None)


def write_report(out_dir: Path, *, episodes: list[dict[str, Any]], summary: RunSummary,
                 out_file: Path | None = None, screens: bool = True, scale: float = DEFAULT_SCALE,
                 top_k: int = DEFAULT_TOP_K, workers: int | None = None) -> Path:
    """Render the report of run directory ``out_dir`` for ``episodes`` (episode lines) to
    ``out_file`` (default ``out_dir/report.html``); ``screens`` renders each step's screen not
    rendered yet (in up to ``workers`` processes, default min(4, CPUs), when there are many). An
    episode line of a later attempt (judged retries) brings the episode's earlier attempts with it.
    Screens already rendered (by the run's workers, or for an earlier report) are reused."""
    out_dir = Path(out_dir)
    path = Path(out_file) if out_file is not None else out_dir / REPORT_FILE
    report_dir = path.parent
    report_dir.mkdir(parents=True, exist_ok=True)
    earlier = _earlier_attempts(out_dir, episodes)
    attempts = {str(ep.get("attempt_id")) for ep in episodes}
    attempts |= {str(ep.get("attempt_id")) for eps in earlier.values() for ep in eps}
    steps, finals = _load_steps(out_dir, attempts)
    views = []
    jobs: list[RenderJob] = []
    opts: dict[str, Any] = {"steps": steps, "finals": finals, "report_dir": report_dir, "run_dir": out_dir,
                            "screens": screens, "scale": scale, "top_k": top_k, "jobs": jobs}
    for ep in episodes:
        anchor = f"ep-{ep.get('episode_id')}"
        view = _attempt_view(ep, anchor, **opts)
        view.earlier = [_attempt_view(e, f"{anchor}-a{attempt_of(e)}", **opts)
                        for e in earlier.get(str(ep.get("episode_id")), [])]
        views.append(view)
    _attach_judgements(out_dir, views + [e for v in views for e in v.earlier])
    render_all(jobs, workers=workers)
    run_info = _read_json(out_dir / RUN_FILE)
    retries = summary.retries is not None or any(v.earlier for v in views)
    if retries:
        _verdicts(views, run_info)
    env = Environment(loader=PackageLoader("droidverify.runner", "templates"),
                      autoescape=select_autoescape(["html", "jinja"]))
    html = env.get_template("report.html.jinja").render(
        summary=summary, episodes=views, run=run_info, run_dir=str(out_dir),
        by_app=_group_rows(summary.by_app), by_complexity=_group_rows(summary.by_complexity),
        entropy_rows=_entropy_by_outcome(views), screens=screens, retries=retries)
    # A lone surrogate from model output is not text; show U+FFFD instead of failing to encode.
    html = re.sub("[\ud800-\udfff]", "\ufffd", html)
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(html, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)  # never leave REPORT.tmp behind
    return path


def _retry_stats(run_dir: Path, tries: list[dict[int, dict[str, Any]]], run_info: dict[str, Any]) -> RetryStats | None:
    """The retry figures of a run directory (as ``run_many`` wrote them), from its files: the
    verdicts of the judge that decided the retries (``run.json`` ``retry_judge``). None for a run
    without retries."""
    from droidverify.rewards.base import judgement_key
    from droidverify.rewards.store import JUDGEMENTS_FILE, read_judgements

    k = run_info.get("attempts")
    k = k if isinstance(k, int) and not isinstance(k, bool) and k > 1 else 1
    if k == 1 and not any(len(x) > 1 or 0 not in x for x in tries):
        return None
    rj = run_info.get("retry_judge") if isinstance(run_info.get("retry_judge"), dict) else {}
    name, version = str(rj.get("name") or ""), str(rj.get("version") or "")
    outcomes: dict[str, str] = {}
    if name:
        for j in read_judgements(run_dir / JUDGEMENTS_FILE):
            outcomes.setdefault(j.key, j.outcome)  # the first judgement of a key wins, as in the store

    def outcome(ep: dict[str, Any]) -> str | None:
        return outcomes.get(judgement_key(attempt_key(str(ep["episode_id"]), attempt_of(ep)), name, version))

    return RetryStats.from_attempts(tries, max_attempts=max([k, *(max(x) + 1 for x in tries if x)]),
                                    outcome=outcome, judge=f"{name} ({version})" if name else None)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def build_report(run_dir: str | Path, *, out_file: str | Path | None = None, screens: bool = True,
                 scale: float = DEFAULT_SCALE, top_k: int = DEFAULT_TOP_K,
                 workers: int | None = None) -> Path:
    """(Re)build the report of a run directory from its files, e.g. after an interrupted run.

    Covers every finished episode, in ``run.json``'s pair order (others after); stale attempts are
    left out. Raises RunError if ``run_dir`` holds no finished episodes.
    """
    run_dir = Path(run_dir)
    if not (run_dir / EPISODES_FILE).is_file():
        raise RunError(f"{run_dir} is not a run directory: {EPISODES_FILE} is missing")
    read = read_episodes(run_dir)
    done = read.episodes
    if not done:
        raise RunError(f"{run_dir}: {EPISODES_FILE} holds no finished episode")
    order: list[str] = []
    for pair in _read_json(run_dir / RUN_FILE).get("pairs") or []:
        if isinstance(pair, list) and len(pair) == 2:
            order.append(f"{pair[0]}:{pair[1]}")
    rank = {eid: i for i, eid in enumerate(order)}
    eps = sorted(done.values(), key=lambda e: (rank.get(e["episode_id"], len(rank)), e["episode_id"]))
    summary = RunSummary.from_episodes(eps, out_dir=str(run_dir))
    summary.retries = _retry_stats(run_dir, [read.attempts[e["episode_id"]] for e in eps],
                                   _read_json(run_dir / RUN_FILE))
    return write_report(run_dir, episodes=eps, summary=summary,
                        out_file=Path(out_file) if out_file is not None else None, screens=screens,
                        scale=scale, top_k=top_k, workers=workers)
