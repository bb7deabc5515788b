"""Training the compact judge (``rewards.compact_judge``): P(success) of an episode from a small
network over the compact verifier's frozen sentence embeddings, trained from scratch on CPU in
minutes on checker-labelled trajectory sets (config dataclass + trainer, as TRL splits them).

Data: a labelled set of TRAIN templates (``rewards.labelled.build_training_items``; a set of another
split is refused) and optionally a held-out set (validation templates) that is only measured. The
passive setting learns the checker's label of every episode; the evidence setting learns the
evidence label of every submit episode (the checker's label AND a cited exhibit shows the outcome:
what a judge that sees only the exhibits can tell), and is measured against both. ``both`` trains
one network on the two settings' views (the view carries the setting as a number).

A slice of the train templates (``dev_fraction``, whole templates, drawn by ``seed``) is held out
of training: the threshold is the F1-best one on it (``rewards.scoring.best_threshold``), so it is
set on templates the network did not fit but never on validation or test data.

The run directory holds ``checkpoint.pt`` (every epoch; a rerun resumes, a rerun with other settings
is refused), ``log.jsonl``, ``curves.png``, the embedding cache and ``result.json``; ``export``
writes a judge directory (``judge.json``, weights, ``provenance.json``).
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from droidverify.env.records import Trajectory
from droidverify.errors import JudgeInputError, LabelledSetError, TrainingDataError, TrainingError
from droidverify.rewards.base import Judgement
from droidverify.rewards.compact_judge import COMPACT_SETTINGS, FEATURE_VERSION, SETTINGS, JudgeView, view_of
from droidverify.training.compact import relative_path

TRAIN_SETTINGS = (*SETTINGS, "both")  # both: passive and evidence, one network
COMPACT_TRAIN_SETTINGS = (*COMPACT_SETTINGS, "both")  # the compact judge also reads whole trajectories


@dataclass
class JudgeTrainConfig:
    """What a compact-judge training run does (every field lands in judge.json)."""

    output_dir: str
    train_file: str
    eval_file: str | None = None
    # passive | evidence | trajectory | both (passive and evidence: one network, the setting as an input)
    setting: str = "passive"
    d_model: int = 64
    layers: int = 1
    heads: int = 4
    ff: int = 128
    dropout: float = 0.1
    # 3 by measurement: on the held-out train templates both settings peaked by epoch 3 (6 fitted
    # the train templates harder and judged the held-out ones no better)
    epochs: int = 3
    batch_size: int = 32
    learning_rate: float = 1e-3
    weight_decay: float = 0.01
    balance: bool = True  # weigh the classes equally in the loss
    # Share of training examples that get 1-2 foreign elements (from another template's screens) per
    # epoch: an extra line of unrelated screen text must not move the verdict (hostile screens).
    distractors: float = 0.5
    # K >= 2: the threshold is chosen on out-of-fold scores of all train templates (K extra
    # networks, each trained without one fold of templates) and the judge is trained on every train
    # template. 4 by measurement (docs/rewards.md, "Threshold folds"): the dev slice's 19 templates
    # put the threshold anywhere from 0.02 to 0.51 between seeds. 0: a dev slice of dev_fraction.
    threshold_folds: int = 4
    dev_fraction: float = 0.15  # share of train templates held out to choose the threshold (folds 0)
    max_minutes: float | None = None
    max_train_items: int | None = None  # the first N usable items of the train set (quick runs)
    hostile_items: int = 60  # held-out episodes each hostile text is put on (0: no hostile check)
    # A deep ensemble: K >= 2 trains K - 1 more networks from other seeds (OUT/member-k/, resumable)
    # and judges by their mean P(success); with threshold folds each fold trains K networks too, so
    # the threshold is chosen on the ensemble's own out-of-fold scores. 1: one network.
    members: int = 1
    seed: int = 0
    threads: int = 1  # torch threads: small matrices, and a waiting second thread stalls every op

    def validate(self) -> None:
        if self.setting not in COMPACT_TRAIN_SETTINGS:
            raise TrainingError(f"setting must be one of {', '.join(COMPACT_TRAIN_SETTINGS)}, got {self.setting!r}")
        for name in ("d_model", "heads", "ff", "epochs", "batch_size", "threads"):
            if getattr(self, name) < 1:
                raise TrainingError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.layers < 0 or self.d_model % self.heads:
            raise TrainingError(f"layers must be >= 0 and d_model ({self.d_model}) a multiple of heads ({self.heads})")
        if not (self.learning_rate > 0 and 0 <= self.dropout < 1 and 0 <= self.dev_fraction < 1
                and 0 <= self.distractors <= 1):
            raise TrainingError("learning_rate must be > 0, dropout and dev_fraction in [0, 1), distractors in [0, 1]")
        if self.hostile_items < 0 or (self.max_train_items is not None and self.max_train_items < 1):
            raise TrainingError("hostile_items must be >= 0 and max_train_items >= 1")
        if isinstance(self.members, bool) or not isinstance(self.members, int) or self.members < 1:
            raise TrainingError(f"members must be a whole number >= 1, got {self.members!r}")
        if self.threshold_folds == 1 or self.threshold_folds < 0:
            raise TrainingError(f"threshold_folds must be 0 (a dev slice) or >= 2, got {self.threshold_folds}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def settings(self) -> tuple[str, ...]:
        return SETTINGS if self.setting == "both" else (self.setting,)


@dataclass
class Example:
    """One episode in one setting as the judge sees it, with its labels."""

    item_id: str
    template: str
    variant: str
    setting: str
    view: JudgeView
    label: bool  # what the setting learns: the checker label (passive) or the evidence label
    checker: bool  # the checker label (the evidence setting is measured against it too)


@dataclass
class Prepared:
    examples: list[Example] = field(default_factory=list)
    format_failures: list[tuple[str, str, bool, bool]] = field(default_factory=list)  # id, variant, label, checker
    header: dict[str, Any] = field(default_factory=dict)


def prepare(path: str | Path, settings: Sequence[str], *, limit: int | None = None,
            progress: Callable[[int], None] | None = None) -> Prepared:
    """Read a labelled set (streamed) into examples for ``settings``. Evidence examples come from
    submit episodes that have an evidence label; a submission breaking SmartSnap's format rules is
    kept aside (the judge calls it a failure without scoring)."""
    from droidverify.rewards.labelled import iter_set, read_header

    out = Prepared(header=read_header(path))
    n = 0
    for item in iter_set(path):
        n += 1
        for setting in settings:
            label = item.evidence_label if setting == "evidence" else item.label
            if label is None:
                continue
            view = view_of(item.trajectory, setting)
            if view is None:
                out.format_failures.append((item.id, item.variant, bool(label), item.label))
                continue
            out.examples.append(Example(item.id, item.template, item.variant, setting, view, bool(label),
                                        item.label))
        if progress is not None and n % 500 == 0:
            progress(n)
        if limit is not None and len(out.examples) >= limit:
            break
    return out


def classify(scores: Sequence[float], labels: Sequence[bool], threshold: float) -> dict[str, float]:
    """Accuracy, precision, recall and F1 of ``score >= threshold`` against ``labels``."""
    pred = [s >= threshold for s in scores]
    tp = sum(p and y for p, y in zip(pred, labels, strict=True))
    fp = sum(p and not y for p, y in zip(pred, labels, strict=True))
    fn = sum(y and not p for p, y in zip(pred, labels, strict=True))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return {"n": len(labels), "positives": sum(labels),
            "accuracy": sum(p == y for p, y in zip(pred, labels, strict=True)) / max(len(labels), 1),
            "precision": precision, "recall": recall,
            "f1": 2 * precision * recall / (precision + recall) if precision + recall else 0.0}


def judge_metrics(examples: Sequence[Example], scores: Sequence[float], threshold: float,
                  format_failures: Sequence[tuple[str, str, bool, bool]] = ()) -> dict[str, Any]:
    """Agreement of ``score >= threshold`` with the labels (format failures count as judged
    failures), ROC AUC, accuracy per variant; for the evidence setting also against the checker."""
    from droidverify.rewards.metrics import roc_auc

    s = [*scores, *(0.0 for _ in format_failures)]
    labels = [*(e.label for e in examples), *(f[2] for f in format_failures)]
    checker = [*(e.checker for e in examples), *(f[3] for f in format_failures)]
    variants = [*(e.variant for e in examples), *(f[1] for f in format_failures)]
    out: dict[str, Any] = {**classify(s, labels, threshold), "roc_auc": roc_auc(s, labels) if s else None,
                           "format_failures": len(format_failures)}
    if labels != checker:
        out["vs_checker"] = {**classify(s, checker, threshold), "roc_auc": roc_auc(s, checker)}
    by: dict[str, list[int]] = {}
    for v, score, y in zip(variants, s, labels, strict=True):
        row = by.setdefault(v, [0, 0, 0])
        row[0] += (score >= threshold) == y
        row[1] += 1
        row[2] += y
    out["by_variant"] = {v: {"n": r[1], "label_success": r[2], "accuracy": round(r[0] / r[1], 4)}
                         for v, r in sorted(by.items())}
    return out


def thresholds_by_setting(scores: Sequence[float], examples: Sequence[Any], settings: Sequence[str],
                          on: str) -> tuple[dict[str, float], dict[str, Any]]:
    """The F1-best threshold of each setting on ``examples`` (``.setting``, ``.label``) scored
    ``scores`` (``rewards.scoring.best_threshold``), and each calibration's record (``on``: where)."""
    from droidverify.rewards.scoring import best_threshold

    thresholds: dict[str, float] = {}
    out: dict[str, Any] = {}
    for setting in settings:
        rows = [(s, e.label) for s, e in zip(scores, examples, strict=True) if e.setting == setting]
        try:
            cal = best_threshold([s for s, _ in rows], [y for _, y in rows])
        except JudgeInputError as exc:
            raise TrainingDataError(f"cannot choose the {setting} threshold: {exc}") from None
        thresholds[setting] = cal.threshold
        out[setting] = {**cal.to_dict(), "on": on}
    return thresholds, out


def hostile_episodes(examples: Iterable[Any], eval_file: str, *, seed: int, setting: str,
                     per_label: int) -> list[Trajectory]:
    """The held-out episodes the hostile check reads: ``per_label`` successes and as many failures
    (fewer where the set has fewer), drawn by ``seed`` and ``setting`` alike in every judge trainer.
    ``examples`` carry ``setting``, ``item_id`` and ``label``; the episodes come from ``eval_file``."""
    from droidverify.rewards.labelled import iter_set

    rows = [e for e in examples if e.setting == setting]
    rng = random.Random(f"hostile:{seed}:{setting}")
    pick: set[str] = set()
    for want in (True, False):
        ids = sorted({e.item_id for e in rows if e.label == want})
        pick |= set(rng.sample(ids, min(len(ids), per_label)))
    return [it.trajectory for it in iter_set(eval_file) if it.id in pick]


def hostile_flips(judge: Callable[[Trajectory], Judgement], trajectories: Sequence[Trajectory],
                  texts: Sequence[str] | None = None) -> dict[str, Any]:
    """Verdict changes when every screen of an episode also shows a hostile text (one addressing
    the judge: ``labelled.HOSTILE_TEXTS`` by default). Counts by direction, over episodes x texts."""
    from droidverify.rewards.labelled import HOSTILE_TEXTS, with_hostile_text

    texts = HOSTILE_TEXTS if texts is None else texts
    pairs = flips = to_success = to_failure = 0
    shifts: list[float] = []
    for traj in trajectories:
        before = judge(traj)
        for k, text in enumerate(texts):
            after = judge(with_hostile_text(traj, text, episode_suffix=f"hostile{k}"))
            pairs += 1
            if after.outcome != before.outcome:
                flips += 1
                to_success += after.outcome == "success"
                to_failure += after.outcome == "failure"
            p0, p1 = before.components.get("p_success"), after.components.get("p_success")
            if isinstance(p0, float) and isinstance(p1, float):
                shifts.append(p1 - p0)
    return {"pairs": pairs, "flips": flips, "to_success": to_success, "to_failure": to_failure,
            "mean_p_shift": sum(shifts) / len(shifts) if shifts else 0.0,
            "max_p_shift": max(shifts, key=abs) if shifts else 0.0}


def measure_input_size(path: str | Path, *, limit: int | None = None, encoder: Any = None) -> dict[str, Any]:
    """What each setting reads of the same submit episodes of a labelled set: mean strings,
    characters and encoder (MiniLM word-piece) tokens per episode, for the passive view and the
    evidence view, over all submit episodes and over those citing 1-3 exhibits (SmartSnap's ask)."""
    from droidverify.llm.embeddings import TextEncoder
    from droidverify.rewards.labelled import iter_set
    from droidverify.rewards.smartsnap import check_submit

    enc = encoder or TextEncoder()
    tokenizer = getattr(enc.model, "tokenizer", None)
    rows: dict[str, list[tuple[int, int, int]]] = {}

    def size(view: JudgeView) -> tuple[int, int, int]:
        strings = [x[: enc.max_chars] for x in view.strings() if x]
        tokens = sum(len(ids) for ids in tokenizer(strings, add_special_tokens=True)["input_ids"]) \
            if tokenizer is not None and strings else sum(len(x.split()) for x in strings)
        return len(strings), sum(map(len, strings)), tokens

    n = 0
    for item in iter_set(path):
        check = check_submit(item.trajectory)
        if not check.ok:
            continue
        evidence = view_of(item.trajectory, "evidence")
        assert evidence is not None
        few = 1 <= len(check.evidences) <= 3
        for name, view in (("passive", view_of(item.trajectory, "passive")), ("evidence", evidence)):
            assert view is not None
            rows.setdefault(name, []).append(size(view))
            if few:
                rows.setdefault(f"{name}, 1-3 exhibits", []).append(size(view))
        n += 1
        if limit is not None and n >= limit:
            break
    out: dict[str, Any] = {"submit_episodes": n, "tokens_by": "MiniLM word pieces" if tokenizer else "words"}
    for name, r in rows.items():
        out[name] = {"episodes": len(r), "strings": sum(x[0] for x in r) / len(r),
                     "characters": sum(x[1] for x in r) / len(r), "tokens": sum(x[2] for x in r) / len(r)}
    return out


def template_folds(templates: Iterable[str], k: int, seed: int) -> list[list[str]]:
    """Train templates dealt into ``k`` folds of (nearly) equal size, in a seeded order."""
    names = sorted(set(templates))
    if k > len(names):
        raise TrainingDataError(f"{k} threshold folds need at least {k} train templates, the set has {len(names)}")
    random.Random(f"judge-folds:{seed}").shuffle(names)
    return [sorted(names[i::k]) for i in range(k)]


def dev_templates(templates: Iterable[str], fraction: float, seed: int) -> set[str]:
    """Whole train templates held out of training (the threshold is chosen on them)."""
    names = sorted(set(templates))
    if fraction <= 0 or len(names) < 2:
        return set()
    random.Random(f"judge-dev:{seed}").shuffle(names)
    return set(names[: max(1, round(fraction * len(names)))])


class JudgeTrainer:
    """Trains a compact judge network on a labelled set; ``train()`` resumes from the last checkpoint."""

    def __init__(self, config: JudgeTrainConfig, *, encoder: Any = None,
                 log: Callable[[str], None] | None = None) -> None:
        import torch

        from droidverify.llm.embeddings import TextEncoder
        from droidverify.rewards.compact_judge import JudgeNetConfig, build_net

        config.validate()
        self.config = config
        self.out = Path(config.output_dir)
        self.out.mkdir(parents=True, exist_ok=True)
        self.say = log or (lambda msg: None)
        self.encoder = encoder or TextEncoder()
        self.cache_file = self.out / f"embeddings-{getattr(self.encoder, 'dtype', 'float32')}.npz"
        self.encoder.load(self.cache_file)
        torch.manual_seed(config.seed)
        self.net = build_net(JudgeNetConfig(emb_dim=self.encoder.dimension(), d_model=config.d_model,
                                            layers=config.layers, heads=config.heads, ff=config.ff,
                                            dropout=config.dropout))
        self.opt = torch.optim.AdamW(self.net.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay)
        self.epoch = 0
        self.step = 0
        self.train_examples: list[Example] = []
        self.dev_examples: list[Example] = []
        self.eval: Prepared | None = None
        self.thresholds: dict[str, float] = {}
        self.data_stats: dict[str, Any] = {}
        self.ensemble: Any = None  # set by fit_members (members > 1): what judges and is exported

    @property
    def judging_net(self) -> Any:
        """The network the judge will run: the ensemble once its members are fitted, else ``net``."""
        return self.ensemble if self.ensemble is not None else self.net

    # ---- data -------------------------------------------------------------------------------
    def load_data(self) -> None:
        from droidverify.rewards.scoring import require_train_split

        cfg = self.config
        t0 = time.perf_counter()
        try:  # a judge is trained and calibrated on train templates only
            require_train_split(check_set(cfg.train_file), cfg.train_file)
            if cfg.eval_file:
                check_set(cfg.eval_file)
            train = prepare(cfg.train_file, cfg.settings, limit=cfg.max_train_items,
                            progress=lambda n: self.say(f"  read {n} train episodes"))
        except (JudgeInputError, LabelledSetError) as exc:
            raise TrainingDataError(str(exc)) from None
        if not train.examples:
            raise TrainingDataError(f"{cfg.train_file}: no episode to train the {cfg.setting} setting on "
                                    "(the evidence setting needs submit episodes with evidence labels: "
                                    "`build_training_items`)")
        held = set() if cfg.threshold_folds else dev_templates((e.template for e in train.examples),
                                                                cfg.dev_fraction, cfg.seed)
        self.train_examples = [e for e in train.examples if e.template not in held]
        self.dev_examples = [e for e in train.examples if e.template in held]
        if cfg.eval_file:
            try:
                self.eval = prepare(cfg.eval_file, cfg.settings,
                                    progress=lambda n: self.say(f"  read {n} held-out episodes"))
            except LabelledSetError as exc:
                raise TrainingDataError(str(exc)) from None
            if self.eval.header.get("split") == "test":
                raise TrainingDataError(f"{cfg.eval_file} is a test set: measure on validation templates")
            overlap = {e.template for e in self.eval.examples} & {e.template for e in train.examples}
            if overlap:
                raise TrainingDataError(f"the held-out set shares templates with the train set: {sorted(overlap)[:5]}")
        views = [e.view for e in (*train.examples, *(self.eval.examples if self.eval else []))]
        strings = [s for v in views for s in v.strings()]
        unique = len(set(strings))
        self.say(f"{len(self.train_examples)} train / {len(self.dev_examples)} dev (threshold; {len(held)} "
                 f"templates) / {len(self.eval.examples) if self.eval else 0} held-out examples; "
                 f"embedding {unique} distinct strings")
        last = [0.0, time.perf_counter()]

        def progress(done: int, total: int) -> None:
            if time.perf_counter() - last[0] > 15:
                last[0] = time.perf_counter()
                self.say(f"  embedded {done}/{total}")
            if time.perf_counter() - last[1] > 120:  # an interrupted run keeps what it embedded
                last[1] = time.perf_counter()
                self.encoder.save(self.cache_file)

        self.encoder.cache_texts(strings, progress=progress)
        self.encoder.save(self.cache_file)
        self.data_stats = {
            "train_examples": len(self.train_examples), "dev_examples": len(self.dev_examples),
            "dev_templates": sorted(held), "eval_examples": len(self.eval.examples) if self.eval else 0,
            "train_successes": sum(e.label for e in self.train_examples), "distinct_strings": unique,
            "train_format_failures": len(train.format_failures), "seconds_data": round(time.perf_counter() - t0, 1)}

    # ---- scoring ----------------------------------------------------------------------------
    def scores(self, examples: Sequence[Example]) -> list[float]:
        """P(success) of each example, as the judge computes it."""
        from droidverify.rewards.compact_judge import CompactJudgeModel

        model = CompactJudgeModel(self.judging_net, self.encoder, thresholds={s: 0.5 for s in self.config.settings})
        out = model.p_success([e.view for e in examples])
        self.net.train()
        return out

    def _with_distractors(self, examples: Sequence[Example], rng: random.Random) -> list[JudgeView]:
        """The examples' views, some with 1-2 foreign elements added (``distractors``): elements of
        another template's screens, their goal-slot numbers cleared (they show none of this goal)."""
        import dataclasses

        from droidverify.rewards.compact_judge import ELEMENT, GOAL_RELATIVE, TOKEN_NUMERIC, Token

        if not hasattr(self, "_foreign"):
            self._foreign = [(e.template, t) for e in self.train_examples for t in e.view.tokens if t.kind == ELEMENT]
            self._clear = {TOKEN_NUMERIC.index(n) for n in GOAL_RELATIVE}
        out = []
        for e in examples:
            view = e.view
            if self._foreign and rng.random() < self.config.distractors:
                extra = []
                for _ in range(rng.randint(1, 2)):
                    template, tok = self._foreign[rng.randrange(len(self._foreign))]
                    if template != e.template:
                        num = [0.0 if i in self._clear else x for i, x in enumerate(tok.numeric)]
                        extra.append(Token(tok.text, ELEMENT, num))
                view = dataclasses.replace(view, tokens=[*view.tokens, *extra])
            out.append(view)
        return out

    def _loss(self, examples: Sequence[Example], rng: random.Random | None = None) -> Any:
        import torch

        from droidverify.rewards.compact_judge import batch_tensors

        views = self._with_distractors(examples, rng) if rng is not None else [e.view for e in examples]
        logits = self.net(**batch_tensors(views, self.encoder))
        y = torch.tensor([float(e.label) for e in examples])
        w = torch.tensor([self._weights[e.label] for e in examples])
        return (torch.nn.functional.binary_cross_entropy_with_logits(logits, y, reduction="none") * w).mean()

    def mean_loss(self, examples: Sequence[Example]) -> float:
        import torch

        if not examples:
            return float("nan")
        self.net.eval()
        with torch.inference_mode():
            total = sum(float(self._loss(examples[i:i + 64])) * len(examples[i:i + 64])
                        for i in range(0, len(examples), 64))
        self.net.train()
        return total / len(examples)

    def out_of_fold_scores(self) -> tuple[list[Example], list[float]]:
        """Every train example scored by a network that never saw its template: one network per
        fold (``threshold_folds``), trained as this one is on the other folds, in ``fold-i/`` (each
        resumes from its own checkpoint; only fitted: its threshold and metrics would go unused)."""
        import dataclasses

        cfg = self.config
        folds = template_folds((e.template for e in self.train_examples), cfg.threshold_folds, cfg.seed)
        examples: list[Example] = []
        scores: list[float] = []
        for i, fold in enumerate(folds):
            held = set(fold)
            sub_cfg = dataclasses.replace(cfg, output_dir=str(self.out / f"fold-{i}"), eval_file=None,
                                          threshold_folds=0, dev_fraction=0.0, hostile_items=0,
                                          seed=cfg.seed * 1000 + i + 1)
            sub = JudgeTrainer(sub_cfg, encoder=self.encoder, log=lambda msg, i=i: self.say(f"  fold {i}: {msg}"))
            sub.train_examples = [e for e in self.train_examples if e.template not in held]
            self.say(f"fold {i + 1}/{len(folds)}: {len(fold)} templates held out")
            sub.fit()
            sub.fit_members()
            mine = [e for e in self.train_examples if e.template in held]
            examples += mine
            scores += sub.scores(mine)
        return examples, scores

    def choose_thresholds(self) -> dict[str, Any]:
        """The F1-best threshold per setting: on out-of-fold scores of every train template
        (``threshold_folds``), else on the dev templates (the train examples without them)."""
        if self.config.threshold_folds:
            pool, scores = self.out_of_fold_scores()
            self.thresholds, out = thresholds_by_setting(
                scores, pool, self.config.settings, f"out-of-fold scores, {self.config.threshold_folds} template folds")
            return out
        pool = self.dev_examples or self.train_examples
        self.thresholds, out = thresholds_by_setting(self.scores(pool), pool, self.config.settings,
                                                     "dev templates" if self.dev_examples else "train examples")
        return out

    def evaluate(self) -> dict[str, Any]:
        """Held-out metrics per setting at the chosen thresholds."""
        if self.eval is None:
            return {}
        scores = self.scores(self.eval.examples)
        out: dict[str, Any] = {}
        for setting in self.config.settings:
            rows = [(s, e) for s, e in zip(scores, self.eval.examples, strict=True) if e.setting == setting]
            fails = self.eval.format_failures if setting == "evidence" else []
            out[setting] = judge_metrics([e for _, e in rows], [s for s, _ in rows], self.thresholds[setting], fails)
        return out

    def input_size(self) -> dict[str, Any]:
        """Mean strings (and encoder tokens, when the encoder has a tokenizer) per held-out episode."""
        pool = self.eval.examples if self.eval else self.train_examples
        tokenizer = getattr(getattr(self.encoder, "_model", None), "tokenizer", None)
        out: dict[str, Any] = {}
        for setting in self.config.settings:
            views = [e.view for e in pool if e.setting == setting][:400]
            if not views:
                continue
            strings = [[s[: self.encoder.max_chars] for s in v.strings() if s] for v in views]
            row: dict[str, Any] = {"episodes": len(views), "strings": sum(map(len, strings)) / len(views),
                                   "characters": sum(len(s) for ss in strings for s in ss) / len(views)}
            if tokenizer is not None:
                row["tokens"] = sum(len(ids) for ss in strings if ss
                                    for ids in tokenizer(ss, add_special_tokens=True)["input_ids"]) / len(views)
            out[setting] = row
        return out

    def hostile(self) -> dict[str, Any]:
        """Verdict flips of the trained judge when every screen of a held-out episode also shows one
        of ``labelled.HOSTILE_TEXTS`` (a balanced sample of ``hostile_items`` episodes per setting)."""
        from droidverify.rewards.compact_judge import CompactJudge, CompactJudgeModel

        cfg = self.config
        if self.eval is None or cfg.hostile_items == 0:
            return {}
        model = CompactJudgeModel(self.judging_net, self.encoder, thresholds=dict(self.thresholds))
        out: dict[str, Any] = {}
        for setting in cfg.settings:
            trajs = hostile_episodes(self.eval.examples, cfg.eval_file or "", seed=cfg.seed, setting=setting,
                                     per_label=cfg.hostile_items // 2)
            judge = CompactJudge({s: model for s in model.settings}, setting)
            out[setting] = {"episodes": len(trajs), **hostile_flips(judge.judge, trajs)}
        self.net.train()
        return out

    # ---- training ---------------------------------------------------------------------------
    def _lr(self, step: int, total: int) -> float:
        warm = max(1, total // 50)
        if step < warm:
            return (step + 1) / warm
        return 0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * min(1.0, (step - warm) / max(1, total - warm))))

    def train(self, *, resume: bool = True) -> dict[str, Any]:
        """Fit, choose the thresholds, measure; ``result.json``, ``curves.png``."""
        cfg = self.config
        stopped, seconds_train = self.fit(resume=resume)
        if stopped == "epochs":
            seconds_train += self.fit_members()
        elif cfg.members > 1:  # a rerun with a larger budget resumes and then fits them
            self.say(f"stopped by the {stopped}: the other members were not fitted; this run exports one network")
        calibration = self.choose_thresholds()
        log_path = self.out / "log.jsonl"
        plot_judge_curves(log_path, self.out / "curves.png")
        result: dict[str, Any] = {"setting": cfg.setting, "epochs": self.epoch, "steps": self.step,
                                  "stopped_by": stopped, "seconds_train": seconds_train, **self.data_stats,
                                  "thresholds": dict(self.thresholds), "calibration": calibration,
                                  "train_fit": {}}
        for setting in cfg.settings:  # how well it fits what it was trained on (a sample)
            fit = [e for e in self.train_examples if e.setting == setting][:2000]
            result["train_fit"][setting] = judge_metrics(fit, self.scores(fit), self.thresholds[setting])
        if self.eval is not None:
            result["eval"] = self.evaluate()
            result["input_size"] = self.input_size()
            result["hostile"] = self.hostile()
        (self.out / "result.json").write_text(json.dumps(result, indent=1))
        return result

    def fit(self, *, resume: bool = True) -> tuple[str, float]:
        """The training loop alone (checkpoint per epoch, ``log.jsonl``): (what stopped it, seconds)."""
        import torch

        cfg = self.config
        torch.set_num_threads(cfg.threads)
        if not self.train_examples:
            self.load_data()
        if resume and (self.out / "checkpoint.pt").is_file():
            self.load_checkpoint(self.out / "checkpoint.pt")
            self.say(f"resumed at epoch {self.epoch}")
        pos = sum(e.label for e in self.train_examples)
        neg = len(self.train_examples) - pos
        if pos == 0 or neg == 0:
            raise TrainingDataError(f"{cfg.train_file}: the train examples hold only "
                                    f"{'successes' if neg == 0 else 'failures'}; a judge needs both")
        n = len(self.train_examples)
        self._weights = ({True: n / (2 * pos), False: n / (2 * neg)} if cfg.balance else {True: 1.0, False: 1.0})
        per_epoch = math.ceil(n / cfg.batch_size)
        total = per_epoch * cfg.epochs
        sched = torch.optim.lr_scheduler.LambdaLR(self.opt, lambda s: self._lr(s, total),
                                                  last_epoch=self.step - 1 if self.step else -1)
        t0 = time.perf_counter()
        log_path = self.out / "log.jsonl"
        stopped = "epochs"
        self.net.train()
        while self.epoch < cfg.epochs:
            order = list(range(n))
            random.Random(f"{cfg.seed}:{self.epoch}").shuffle(order)
            aug = random.Random(f"{cfg.seed}:{self.epoch}:distractors")
            tot, seen, shown = 0.0, 0, time.perf_counter()
            for start in range(0, n, cfg.batch_size):
                batch = [self.train_examples[i] for i in order[start:start + cfg.batch_size]]
                loss = self._loss(batch, aug)
                self.opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.net.parameters(), 1.0)
                self.opt.step()
                sched.step()
                self.step += 1
                tot += float(loss.detach()) * len(batch)
                seen += len(batch)
                if time.perf_counter() - shown > 30:
                    shown = time.perf_counter()
                    self.say(f"  epoch {self.epoch + 1}: {seen}/{n} examples, loss {tot / seen:.4f}")
            self.epoch += 1
            entry: dict[str, Any] = {"type": "epoch", "epoch": self.epoch, "step": self.step, "loss": tot / max(seen, 1),
                                     "lr": sched.get_last_lr()[0], "seconds": round(time.perf_counter() - t0, 1)}
            if self.dev_examples:
                from droidverify.rewards.metrics import roc_auc

                entry["dev_loss"] = self.mean_loss(self.dev_examples)
                entry["dev_auc"] = roc_auc(self.scores(self.dev_examples), [e.label for e in self.dev_examples])
            with open(log_path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(entry) + "\n")
            self.say(f"epoch {self.epoch}/{cfg.epochs}: loss {entry['loss']:.4f}"
                     + (f", dev loss {entry['dev_loss']:.4f} AUC {entry['dev_auc']:.3f}" if "dev_loss" in entry else ""))
            self.save_checkpoint(self.out / "checkpoint.pt")
            if cfg.max_minutes is not None and time.perf_counter() - t0 > cfg.max_minutes * 60:
                stopped = "time budget"
                break
        return stopped, round(time.perf_counter() - t0, 1)

    def fit_members(self) -> float:
        """Fit members 2..K (``members``; seed ``seed * 1000 + 500 + k``, resumable in ``member-k/``,
        on the same examples) and make their ensemble with this network the judging network.
        Returns the seconds spent."""
        import dataclasses

        from droidverify.rewards.compact_judge import build_ensemble

        cfg = self.config
        if cfg.members < 2:
            return 0.0
        t0 = time.perf_counter()
        nets = [self.net]
        for k in range(1, cfg.members):
            sub_cfg = dataclasses.replace(cfg, output_dir=str(self.out / f"member-{k}"), eval_file=None,
                                          threshold_folds=0, dev_fraction=0.0, hostile_items=0, members=1,
                                          seed=cfg.seed * 1000 + 500 + k, max_minutes=None)
            sub = JudgeTrainer(sub_cfg, encoder=self.encoder, log=lambda msg, k=k: self.say(f"  member {k + 1}: {msg}"))
            sub.train_examples = self.train_examples
            self.say(f"ensemble member {k + 1}/{cfg.members}")
            sub.fit()
            nets.append(sub.net.eval())
        self.ensemble = build_ensemble(nets).eval()
        return round(time.perf_counter() - t0, 1)

    def save_checkpoint(self, path: Path) -> None:
        import torch

        tmp = path.with_name(path.name + ".tmp")
        torch.save({"net": self.net.state_dict(), "opt": self.opt.state_dict(), "epoch": self.epoch,
                    "step": self.step, "config": self.config.to_dict(), "feature_version": FEATURE_VERSION}, tmp)
        tmp.replace(path)

    def load_checkpoint(self, path: Path) -> None:
        import pickle

        import torch

        try:
            state = torch.load(path, map_location="cpu", weights_only=False)
            config = dict(state["config"])
        except (OSError, RuntimeError, EOFError, ValueError, KeyError, TypeError, pickle.UnpicklingError) as exc:
            from droidverify.errors import CheckpointError

            raise CheckpointError(f"cannot read the checkpoint {path} ({type(exc).__name__}: {exc}); delete it "
                                  "to start over") from None
        written = state.get("feature_version", 2)  # checkpoints before version 3 did not say
        if written != FEATURE_VERSION:
            raise TrainingError(f"{path} was written on judge feature version {written}; this droidverify "
                                f"computes version {FEATURE_VERSION}: use another output directory")
        ignore = ("max_minutes", "epochs", "output_dir", "threads", "hostile_items", "eval_file")
        saved = {k: v for k, v in config.items() if k not in ignore}
        mine = {k: v for k, v in self.config.to_dict().items() if k in saved}
        if saved != mine:
            diff = sorted(k for k in saved if saved[k] != mine.get(k))
            raise TrainingError(f"{path} was written with other settings ({', '.join(diff)}): "
                                "use another output directory or the same settings")
        self.net.load_state_dict(state["net"])
        self.opt.load_state_dict(state["opt"])
        self.epoch, self.step = int(state["epoch"]), int(state["step"])

    def export(self, directory: str | Path, *, provenance: dict[str, Any] | None = None) -> Path:
        """Write the judge directory (weights, thresholds, settings; provenance with paths relative
        to the run directory)."""
        from droidverify.rewards.compact_judge import CompactJudgeModel

        if not self.thresholds:
            raise TrainingError("train (or choose the thresholds) before exporting")
        cfg = self.config.to_dict()
        for key in ("output_dir", "train_file", "eval_file"):
            if cfg.get(key):
                cfg[key] = relative_path(cfg[key], self.out)
        model = CompactJudgeModel(self.judging_net, self.encoder, thresholds=dict(self.thresholds))
        return model.save(directory, train_config=cfg, provenance=provenance)


def plot_judge_curves(log_file: str | Path, png: str | Path) -> None:
    """Train and dev loss, dev ROC AUC against epochs, as a PNG (needs matplotlib)."""
    from droidverify.training.curves import plot_log

    plot_log(log_file, png, x="epoch",
             left=[("loss", "train loss"), ("dev_loss", "dev loss (held-out train templates)")],
             right=[("dev_auc", "dev ROC AUC")], right_ylim=(0.5, 1.0))


def check_set(path: str | Path) -> dict[str, Any]:
    """The header of a labelled set, as a :class:`TrainingDataError` when it cannot be read."""
    from droidverify.rewards.labelled import read_header

    try:
        return read_header(path)
    except LabelledSetError as exc:
        raise TrainingDataError(str(exc)) from None
