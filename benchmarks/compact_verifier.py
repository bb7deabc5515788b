"""Compact verifier experiment (issue 20), beside the LLM verifier.

Part ``steps``: per-step accuracy of a compact verifier on record files (``--records NAME=FILE``,
repeatable): top-1 over every expanded candidate (a step whose labelled value no proposal covers
counts as a miss), pairwise, value coverage; by the positive's action type and by app.

Part ``speed``: milliseconds per step of the compact verifier and of the LLM verifier (the shipped
adapter on the bundled model) on the same steps (oracle paths of validation templates), measured in
one run; prints the ratio. Both run in this process with the threads torch picks. The compact
verifier is timed twice, its encoder embedding a step's new strings in batches of 8 (the library's)
and of 128 (before 2026-11-28), each after a warm-up pass over the same steps and then from an
empty embedding cache; ``--embed-dtype`` fixes the
embedding dtype (default: the faster on this CPU).

Part ``uncertainty``: ROC AUC against "argmax wrong" of several uncertainty signals on one record
file (``--records NAME=FILE``): the normalised entropy the annotation loop triages by, the raw
entropy, 1 - max probability, the top-two margin and, for an ensemble, its members' disagreement.

Part ``sizes``: network sizes by measurement (layers x width), same prepared data, a few epochs each.

Part ``real``: the real-screen benchmark (benchmarks/real_screens/labels.json over the real dumps
``benchmarks/real_screens/sources.json`` lists: two in ../shared/data/uiautomator, the rest fetched
by ``benchmarks/real_screens/store.py fetch``): top-1 / top-3 of each verifier (``--verifier DIR``;
``compact`` and ``llm`` name the shipped ones) and of a uniformly random pick, by language and device,
and the share of items whose right action is among the candidates (coverage). Items start with an
empty memory, as a fresh episode. Items whose dump is absent are left out and counted
(``--require-all`` stops instead). ``--html DIR``: a page of every item's screen (the first
verifier's pick outlined) and each verifier's pick.

    python benchmarks/compact_verifier.py --part steps --verifier src/droidverify/agents/verifier/shipped_compact \\
        --records validation=DATA/eval.jsonl --records train-unseen=DATA/train_unseen.jsonl
    python benchmarks/compact_verifier.py --part speed --steps 40
    python benchmarks/compact_verifier.py --part real --verifier compact --verifier llm
    python benchmarks/compact_verifier.py --part sizes --records train=DATA/train.jsonl --records eval=DATA/eval.jsonl \
        --size 0x128 --size 1x64 --size 2x128 --epochs 4
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import random
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _shipped(name: str) -> Path:
    from droidverify.agents.verifier.trained import shipped_compact_path, shipped_verifier_path

    return {"compact": shipped_compact_path(), "llm": shipped_verifier_path()}.get(name) or Path(name)


def part_steps(args: argparse.Namespace) -> None:
    from droidverify.agents.verifier.compact.scorer import CompactScorer
    from droidverify.training.compact import examples_of, rank_metrics
    from droidverify.training.loop import sim_apps
    from droidverify.training.records import read_records

    directory = _shipped(args.verifier[0] if args.verifier else "compact")
    scorer = CompactScorer.load(directory)
    apps = sim_apps()
    print(f"verifier: {directory}")
    print("| records | n | top-1 | pairwise | coverage | entropy ROC AUC (argmax wrong) |")
    print("|---|---|---|---|---|---|")
    details = {}
    for spec in args.records:
        name, _, path = spec.partition("=")
        recs = read_records(path)
        if args.max_records:  # as train_verifier.py --part steps picks its records: shuffled with seed 0
            random.Random(0).shuffle(recs)
            recs = recs[: args.max_records]
        examples = examples_of(recs, apps, scorer.content, scorer.feature_version)
        scores = scorer.score_views([ex.view for ex in examples])
        m = rank_metrics(scores, examples)
        by_app: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for s, ex in zip(scores, examples, strict=True):
            best = max(range(len(s)), key=lambda i: (s[i], -i))
            app = ex.task_id.split("_", 1)[0]
            by_app[app][0] += best in ex.correct
            by_app[app][1] += 1
        m["top1_by_app"] = {a: round(v[0] / v[1], 3) for a, v in sorted(by_app.items())}
        if args.template_groups:
            old = {n for names in json.loads(Path(args.template_groups).read_text()).values() for n in names}
            by_group: dict[str, list[int]] = defaultdict(lambda: [0, 0])
            for s_, ex in zip(scores, examples, strict=True):
                best = max(range(len(s_)), key=lambda i: (s_[i], -i))
                g = by_group["old" if ex.task_id in old else "new"]
                g[0] += best in ex.correct
                g[1] += 1
            m["top1_by_group"] = {g: round(v[0] / v[1], 3) for g, v in sorted(by_group.items())}
            m["records_by_group"] = {g: v[1] for g, v in sorted(by_group.items())}
        details[name] = m
        auc = "n/a" if m["entropy_auc"] is None else f"{m['entropy_auc']:.3f}"
        print(f"| {name} | {m['records']} | {m['top1']:.3f} | {m['pairwise']:.3f} | {m['coverage']:.3f} | {auc} |")
    for name, m in details.items():
        print(f"\n{name}: top-1 by action type {m['top1_by_kind']} (n {m['records_by_kind']})")
        print(f"{name}: top-1 by app {m['top1_by_app']}")
        if "top1_by_group" in m:
            print(f"{name}: top-1 on earlier / new templates {m['top1_by_group']} (n {m['records_by_group']})")
    if args.json:
        Path(args.json).write_text(json.dumps(details, indent=1))


def part_uncertainty(args: argparse.Namespace) -> None:
    """Which uncertainty signal best flags the steps whose argmax is wrong (V-Droid's entropy
    triage): ROC AUC of each on the records, for the ensemble's scores and, for an ensemble, its
    members' disagreement."""
    import torch

    from droidverify.agents.verifier.compact.features import uses_clauses
    from droidverify.agents.verifier.compact.model import EnsembleNet
    from droidverify.agents.verifier.compact.scorer import CompactScorer, batch_tensors
    from droidverify.training.compact import examples_of
    from droidverify.training.loop import roc_auc, sim_apps
    from droidverify.training.records import read_records

    scorer = CompactScorer.load(_shipped(args.verifier[0] if args.verifier else "compact"))
    examples = examples_of(read_records(args.records[0].partition("=")[2]), sim_apps(), scorer.content,
                           scorer.feature_version)
    members = scorer.net.members if isinstance(scorer.net, EnsembleNet) else []
    names = ["normalised entropy (reported)", "entropy", "1 - max probability", "minus top-two margin"]
    if members:
        names += ["members' mutual information", "variance of members' p(pick)", "members disagreeing"]
    signal: dict[str, list[float]] = {n: [] for n in names}
    wrong: list[bool] = []
    with torch.inference_mode():
        for start in range(0, len(examples), 64):
            chunk = [ex.view for ex in examples[start:start + 64]]
            t = batch_tensors(chunk, scorer.encoder, with_clauses=uses_clauses(scorer.feature_version))
            full = scorer.combine(scorer.net(**t), t["num"], t["cand_mask"])
            parts = [m(**t) for m in members]
            for i, (v, ex) in enumerate(zip(chunk, examples[start:start + 64], strict=True)):
                n = len(v.candidates)
                if n < 2:
                    continue
                p = torch.softmax(full[i, :n], -1)
                best = max(range(n), key=lambda j: (float(full[i, j]), -j))
                wrong.append(best not in ex.correct)
                ent = float(-(p * p.clamp_min(1e-30).log()).sum())
                top = p.sort(descending=True).values
                vals = [ent / math.log(n), ent, 1 - float(top[0]), -float(top[0] - top[1])]
                if members:
                    mp = torch.stack([torch.softmax(m[i, :n], -1) for m in parts])
                    mean_member_ent = float(-(mp * mp.clamp_min(1e-30).log()).sum(-1).mean())
                    vals += [ent - mean_member_ent, float(mp[:, best].var(unbiased=False)),
                             float((mp.argmax(-1) != best).sum())]
                for name, x in zip(names, vals, strict=True):
                    signal[name].append(x)
    print(f"{len(wrong)} records with 2+ candidates, argmax wrong on {sum(wrong)}")
    print("| signal | ROC AUC (argmax wrong) |")
    print("|---|---|")
    for name in names:
        print(f"| {name} | {roc_auc(signal[name], wrong):.3f} |")


def part_sizes(args: argparse.Namespace) -> None:
    """Network sizes by measurement: each ``--size LAYERSxWIDTH`` trains ``--epochs`` epochs on the
    same prepared records (prepared and embedded once) and reports held-out top-1 per epoch and
    seconds per epoch."""
    from droidverify.training.compact import CompactConfig, CompactTrainer

    train_file, eval_file = args.records[0].partition("=")[2], args.records[1].partition("=")[2]
    base = None
    rows = []
    for size in args.size:
        layers, _, width = size.partition("x")
        out = Path(args.work) / f"size-{size}"
        cfg = CompactConfig(output_dir=str(out), train_file=train_file, eval_file=eval_file,
                            layers=int(layers), d_model=int(width), ff=2 * int(width), epochs=args.epochs,
                            input_dropout=args.input_dropout)
        trainer = CompactTrainer(cfg, log=print)
        if base is None:
            trainer.load_data()
            base = trainer
        else:
            trainer.train_examples, trainer.eval_examples = base.train_examples, base.eval_examples
            trainer.encoder = base.encoder
        t0 = time.perf_counter()
        result = trainer.train(resume=False)
        n_params = sum(p.numel() for p in trainer.net.parameters())
        rows.append((size, n_params, (time.perf_counter() - t0) / max(result["epochs"], 1),
                     result["eval"]["top1"], result["eval"]["pairwise"], result["train_fit"]["top1"]))
    print(f"\n{args.epochs} epochs each; records {train_file} -> {eval_file}")
    print("| layers x width | parameters | s/epoch | held-out top-1 | pairwise | top-1 on 1,000 trained |")
    print("|---|---|---|---|---|---|")
    for size, n, sec, top1, pair, fit in rows:
        print(f"| {size} | {n:,} | {sec:.0f} | {top1:.3f} | {pair:.3f} | {fit:.3f} |")


def _oracle_steps(n: int) -> list[tuple[Any, Any, list[Any]]]:
    """(task, observation, history) of the first ``n`` steps on validation oracle paths."""
    from droidverify.env.records import Step
    from droidverify.env.sim import SimEnv
    from droidverify.tasks import registry

    out = []
    for task in registry.tasks_for("validation", [0]):
        env = SimEnv(task=task, seed=0)
        obs = env.reset()
        history: list[Any] = []
        for i in range(task.max_steps):
            out.append((task, obs, list(history)))
            action = task.oracle_action(env.phone, obs)
            if action.action_type in ("status", "answer") or len(out) >= n:
                break
            history.append(Step(index=i, observation=obs, action=action))
            obs = env.step(action)
        if len(out) >= n:
            break
    return out


def part_speed(args: argparse.Namespace) -> None:
    from droidverify.agents.verifier import proposals
    from droidverify.agents.verifier.trained import load_verifier
    from droidverify.llm.embeddings import TextEncoder
    from droidverify.training.loop import sim_apps

    steps = _oracle_steps(args.steps)
    runs: list[tuple[str, str, int | None]] = []  # (row name, verifier, small batch of the encoder)
    for name in (args.verifier or ["compact", "llm"]):
        if name == "llm":
            runs.append((name, name, None))
        else:
            runs += [(f"{name}, embed batch {b}", name, b) for b in (args.embed_small_batch or [8, 128])]
    rows = []
    for row, name, small_batch in runs:
        t0 = time.perf_counter()
        agent = load_verifier(_shipped(name), apps=sim_apps())
        if small_batch is not None:
            agent.scorer.encoder = TextEncoder(dtype=args.embed_dtype, small_batch_size=small_batch)
        load = time.perf_counter() - t0
        agent.reset(steps[0][0].goal)
        agent.act(steps[0][1], [])  # warm-up: first call builds caches
        if small_batch is not None:
            # The compact verifier is cheap enough to warm on every step first (torch builds kernels
            # per input shape once a process); then it is timed from an empty string cache, as on
            # screens never seen, with the proposal pools' memo cleared.
            for task, obs, history in steps:
                agent.reset(task.goal)
                agent.act(obs, history)
            warm = agent.scorer.encoder
            agent.scorer.encoder = TextEncoder(warm.model, small_batch_size=small_batch, dtype=warm.dtype)
            for fn in vars(proposals).values():
                if callable(getattr(fn, "cache_clear", None)):
                    fn.cache_clear()
        times = []
        for task, obs, history in steps:
            agent.reset(task.goal)
            t = time.perf_counter()
            agent.act(obs, history)
            times.append(time.perf_counter() - t)
        times.sort()
        dtype = agent.scorer.encoder.dtype if small_batch is not None else "-"
        rows.append((row, dtype, load, 1000 * sum(times) / len(times), 1000 * times[len(times) // 2]))
    print(f"{len(steps)} steps (validation oracle paths, seed 0)")
    print("| verifier | embedding dtype | load s | mean ms/step | median ms/step |")
    print("|---|---|---|---|---|")
    for row, dtype, load, mean, med in rows:
        print(f"| {row} | {dtype} | {load:.1f} | {mean:.1f} | {med:.1f} |")
    print(f"\nspeed-up of {rows[0][0]} over {rows[-1][0]} (mean): {rows[-1][3] / rows[0][3]:.1f}x")


@functools.cache  # one module object: the page and the scoring share its helpers
def _real_store() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("real_screens_store", ROOT / "benchmarks" / "real_screens" / "store.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def part_real(args: argparse.Namespace) -> None:
    from droidverify.actions.model import Action
    from droidverify.agents.verifier.trained import load_verifier
    from droidverify.env.records import Observation
    from droidverify.runner.factories import installed_app_names

    store = _real_store()
    sources = store.load_sources()
    items = store.load_items(sources=sources)
    directory = Path(args.dumps) if args.dumps else store.default_dir()
    present = {name: store.locate(e, directory) for name, e in sources.items()}
    absent = sorted(n for n, p in present.items() if p is None)
    if absent:
        msg = (f"{len(absent)} of {len(sources)} dumps are not in {directory} "
               "(python benchmarks/real_screens/store.py fetch)")
        if args.require_all:
            raise SystemExit(msg)
        print(msg + f"; their {sum(i['screen'] in absent for i in items)} items are left out")
    items = [i for i in items if present[i["screen"]] is not None]
    apps = installed_app_names("adb")
    names = args.verifier or ["compact", "llm"]
    agents = {n: load_verifier(_shipped(n), apps=apps) for n in names}
    results: dict[str, list[tuple[bool, bool]]] = {n: [] for n in [*names, "random"]}
    covered = 0
    rng = random.Random(0)
    rows = []
    for item in items:
        obs = Observation(xml=present[item["screen"]].read_text(encoding="utf-8"))
        first = None
        row = {"screen": item["screen"], "goal": item["goal"], "goal_language": store.goal_language(item)}
        for n, agent in agents.items():
            agent.reset(item["goal"])
            out = agent.act(obs, [])
            cands = out.info["candidates"]
            acts = [Action.model_validate_json(c["action"]) for c in cands]
            right = [any(store.matches(a, store.element_of(a, obs.elements), s) for s in item["correct"])
                     for a in acts]
            order = sorted(range(len(acts)), key=lambda i: (-cands[i]["score"], i))
            results[n].append((right[order[0]], any(right[i] for i in order[:3])))
            row[n] = {"top1": right[order[0]], "top3": any(right[i] for i in order[:3]),
                      "chosen": cands[order[0]]["description"], "index": acts[order[0]].index}
            if first is None:
                first = right
        assert first is not None
        covered += any(first)
        k = len(first)
        pick = rng.sample(range(k), min(3, k))
        results["random"].append((first[pick[0]], any(first[i] for i in pick)))
        rows.append(row)
    n = len(items)
    print(f"{n} labelled goals on {len({i['screen'] for i in items})} real screens "
          f"(coverage of the first verifier's candidates: {covered}/{n})")
    print("| verifier | top-1 | top-3 |")
    print("|---|---|---|")
    for name, res in results.items():
        print(f"| {name} | {sum(a for a, _ in res) / n:.3f} | {sum(b for _, b in res) / n:.3f} |")
    for field in ("language", "goal language", "device"):
        group_of = [store.goal_language(i) if field == "goal language" else sources[i["screen"]][field]
                    for i in items]
        groups = sorted(set(group_of))
        print(f"\ntop-1 by {field}" + (" (of the screen)" if field == "language" else ""))
        print("| verifier | " + " | ".join(f"{g} ({group_of.count(g)})" for g in groups) + " |")
        print("|---|" + "---|" * len(groups))
        for name, res in results.items():
            cells = [sum(r[0] for r, g_ in zip(res, group_of) if g_ == g) / group_of.count(g) for g in groups]
            print(f"| {name} | " + " | ".join(f"{c:.2f}" for c in cells) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, ensure_ascii=False), encoding="utf-8")
    if args.html:
        _real_html(Path(args.html), rows, items, sources, present, names)


_REAL_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Real screens</title><style>
body{font-family:sans-serif;margin:1em}.item{display:inline-block;vertical-align:top;width:300px;margin:.5em;
padding:.5em;border:1px solid #ccc}img{width:280px;border:1px solid #999}.ok{color:#080}.no{color:#b00}
td{font-size:12px;vertical-align:top}</style></head><body>
<h1>Real-screen benchmark: {{ rows|length }} goals on {{ screens }} screens</h1>
<table><tr><th>verifier</th><th>top-1</th><th>top-3</th></tr>
{% for n in names %}<tr><td>{{ n }}</td><td>{{ '%.3f' % totals[n][0] }}</td><td>{{ '%.3f' % totals[n][1] }}</td></tr>{% endfor %}
</table><p>Each screen outlines the pick of {{ names[0] }}.</p>
{% for r in rows %}<div class="item"><b>{{ r.goal }}</b><br><small>{{ r.meta }}</small><br>
{% if r.img %}<img src="{{ r.img }}" alt="{{ r.screen }}">{% else %}<i>{{ r.error }}</i>{% endif %}
<table><tr><td>right</td><td>{{ r.right }}</td></tr>
{% for n in names %}<tr><td>{{ n }}</td><td class="{{ 'ok' if r[n].top1 else 'no' }}">{{ '✓' if r[n].top1 else '✗' }}
{{ r[n].chosen }}</td></tr>{% endfor %}</table></div>{% endfor %}</body></html>"""


def _real_html(out: Path, rows: list[dict[str, Any]], items: list[dict[str, Any]], sources: dict[str, Any],
               present: dict[str, Any], names: list[str]) -> None:
    """A page of every item: the screen with the first verifier's pick outlined, the right actions,
    each verifier's pick marked right or wrong."""
    from jinja2 import Environment, select_autoescape

    from droidverify.env.records import Observation
    from droidverify.errors import DroidVerifyError
    from droidverify.ui.render import render_png

    (out / "screens").mkdir(parents=True, exist_ok=True)
    views = []
    for k, (row, item) in enumerate(zip(rows, items, strict=True)):
        e = sources[item["screen"]]
        view = {**row, "meta": f"{e['app']} · screen {e['language']}, goal {_real_store().goal_language(item)} · "
                               f"{e['device']} · {e['repo']}",
                "right": "; ".join(", ".join(f"{a}={v}" for a, v in spec.items()) for spec in item["correct"]),
                "img": None, "error": None}
        try:
            obs = Observation(xml=present[item["screen"]].read_text(encoding="utf-8"))
            index = row[names[0]]["index"]
            png = render_png(obs, highlight=index if index is not None and 0 <= index < len(obs.elements) else None,
                             scale=0.3)
            (out / "screens" / f"{k:03d}.png").write_bytes(png)
            view["img"] = f"screens/{k:03d}.png"
        except DroidVerifyError as exc:  # a screen that does not draw is named, not fatal
            view["error"] = f"not rendered: {exc}"
        views.append(view)
    totals = {n: (sum(r[n]["top1"] for r in rows) / len(rows), sum(r[n]["top3"] for r in rows) / len(rows))
              for n in names}
    page = Environment(autoescape=select_autoescape(default=True)).from_string(_REAL_PAGE).render(
        rows=views, names=names, totals=totals, screens=len({i["screen"] for i in items}))
    (out / "index.html").write_text(page, encoding="utf-8")
    print(f"\n{out / 'index.html'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=("steps", "speed", "real", "sizes", "uncertainty"), required=True)
    ap.add_argument("--size", action="append", default=[], help="LAYERSxWIDTH (part sizes; repeatable)")
    ap.add_argument("--epochs", type=int, default=4, help="epochs per size (part sizes)")
    ap.add_argument("--input-dropout", type=float, default=0.0, help="part sizes")
    ap.add_argument("--verifier", action="append", help="compact | llm | a verifier directory (repeatable)")
    ap.add_argument("--records", action="append", default=[], help="NAME=FILE of records (part steps)")
    ap.add_argument("--max-records", type=int, default=None,
                    help="the first N records after a seed-0 shuffle (the LLM verifier's 160 validation records: 160)")
    ap.add_argument("--steps", type=int, default=40, help="steps timed (part speed)")
    ap.add_argument("--embed-small-batch", type=int, action="append", default=[],
                    help="the compact verifier's encoder batch for a step's few new strings (part speed; "
                         "repeatable; default 8, the library's, then 128, the batch before 2026-11-28)")
    ap.add_argument("--embed-dtype", choices=("auto", "float32", "bfloat16"), default="auto",
                    help="the compact verifier's embedding dtype (part speed)")
    ap.add_argument("--work", default="runs/bench-compact")
    ap.add_argument("--json", default=None, help="also write the step metrics (part real: each item's picks) here")
    ap.add_argument("--dumps", default=None, help="part real: the folder of fetched dumps "
                    "(default $DROIDVERIFY_REAL_SCREENS or ~/.cache/droidverify/real_screens)")
    ap.add_argument("--html", default=None, help="part real: write DIR/index.html, every item's screen and picks")
    ap.add_argument("--require-all", action="store_true",
                    help="part real: stop if a dump of the manifest is absent instead of leaving its items out")
    ap.add_argument("--template-groups", default=None,
                    help="JSON {split: [template names]} of an earlier template set (part steps): top-1 is "
                         "also given for those templates ('old') and the rest ('new'), side by side")
    args = ap.parse_args()
    {"steps": part_steps, "speed": part_speed, "real": part_real, "sizes": part_sizes,
     "uncertainty": part_uncertainty}[args.part](args)


if __name__ == "__main__":
    main()
