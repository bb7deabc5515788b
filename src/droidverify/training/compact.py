"""Training the compact verifier: P^3's data (``VerifierStepRecord``), a small network over frozen
sentence embeddings, trained from scratch on the CPU in minutes (config dataclass + trainer, as TRL
splits them).

Each record becomes the step the agent will see: its screen (``xml``), goal and working memory, and
its candidates expanded by the same ``expand_candidates`` the agent calls (``content="select"``), so
typed text, answers and app names are chosen, not generated. The record's label (and its
equivalents) carries over to the expanded candidate with the labelled value; a step whose labelled
value no proposal covers is counted (``uncovered``) and left out of training, and counts as a miss
in evaluation.

Losses: ``listwise`` (the softmax over a step's candidates puts its mass on the correct ones) or
``pairwise`` (P^3: the positive outscores each negative, logistic). Checkpoints every epoch; a
run resumes from its last checkpoint with the same data order. Logs are JSONL; curves a PNG.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from droidverify.actions.model import Action
from droidverify.agents.screen import describe_action, needs_completion
from droidverify.agents.verifier.compact.features import (
    FEATURE_VERSION,
    MAX_CLAUSES,
    SUPPORTED_FEATURE_VERSIONS,
    StepView,
    numeric_names,
    step_view,
    type_kinds,
    uses_clauses,
    uses_derived,
)
from droidverify.env.records import Observation
from droidverify.errors import TrainingDataError, TrainingError
from droidverify.tasks.helpers.checks import normalize_answer
from droidverify.training.augment import apps_with_distractors, with_name_swaps
from droidverify.training.records import VerifierStepRecord, read_records

LOSSES = ("listwise", "pairwise")
CONTENT = ("select", "llm")


@dataclass
class CompactConfig:
    """What a compact-verifier training run does (every field lands in verifier.json)."""

    output_dir: str
    train_file: str
    eval_file: str | None = None
    apps: list[str] | None = None  # what open_app may name (default: the simulator's apps)
    content: str = "select"
    memory: str = "diff"  # the working memory the records were collected with
    # Sizes by measurement (docs/training.md, "Sizes"): 1 layer x 64 matched 2 x 128 and an MLP on
    # held-out records at a third of the time; held-out top-1 peaks by ~6 epochs, then it memorises.
    d_model: int = 64
    layers: int = 1
    heads: int = 4
    ff: int = 128
    dropout: float = 0.1
    input_dropout: float = 0.0
    identity_dropout: float = 0.0  # NetConfig.identity_dropout (1: the element's own name never read)
    # training.augment: up to N copies of each train record with two sibling names (one named in the
    # goal) exchanged everywhere, so that a name right on train templates stops predicting the label
    name_swaps: int = 0
    # training.augment: each train record lists 0..N more apps than the simulator installs (names of
    # real apps that do nothing a simulator app does) as `open_app` candidates, always wrong, so that an
    # app name never seen does not win by being unknown (a real phone lists 30 or more). 0: off.
    extra_apps: int = 0
    # NetConfig.type_kinds: score the action type once per step, then the candidate within it (LiMAC;
    # docs/training.md, "LiMAC's type head": +0.035 validation top-1, 23 vs 13 of 212 episodes)
    type_head: bool = True
    # Stacking (docs/training.md): K >= 2 trains K more networks, each without one fold of the train
    # templates, and fits on the folds they never saw how far to trust the network's score against the
    # goal-match numbers (scale * score + numbers @ weights, stored in verifier.json). On unseen
    # templates the network over-trusts element names it learned on train templates. 0: off.
    stack_folds: int = 0
    # A deep ensemble: K >= 2 trains K - 1 more networks on the same records from seeds seed + 1 ...
    # (resumable in OUT/members/member-K) and ships all K, scoring by their mean probability
    # (docs/training.md, "An ensemble of seeds"). 1: one network.
    members: int = 1
    # weight of a record in the loss: (share of its positive's action type) ** -kind_balance, mean 1
    # over the training set (0: every record alike; 1: every action type alike). Rare kinds (an answer
    # is ~3% of steps) otherwise meet a prior learned on the common ones.
    kind_balance: float = 0.0
    epochs: int = 6
    batch_size: int = 32
    learning_rate: float = 1e-3
    weight_decay: float = 0.01
    loss: str = "listwise"
    max_minutes: float | None = None
    eval_records: int | None = None  # evaluate on the first N eval records (None: all)
    seed: int = 0
    workers: int = 2  # processes that prepare the records (screen parsing, value proposals)
    # torch threads for the network: its matrices are small, and a second thread that waits for a
    # busy core stalls every operation (measured: one thread is faster on a shared 2-core machine)
    threads: int = 1
    # the features the network reads (agents/verifier/compact/features.py); older versions stay
    # trainable so that a change of features is measured against its predecessor on the same data
    feature_version: int = FEATURE_VERSION

    def validate(self) -> None:
        if self.feature_version not in SUPPORTED_FEATURE_VERSIONS:
            raise TrainingError(f"feature_version must be one of {list(SUPPORTED_FEATURE_VERSIONS)}, "
                                f"got {self.feature_version!r}")
        if self.loss not in LOSSES:
            raise TrainingError(f"loss must be one of {LOSSES}, got {self.loss!r}")
        if self.content not in CONTENT:
            raise TrainingError(f"content must be one of {CONTENT}, got {self.content!r}")
        if self.memory not in ("history", "diff", "notes"):
            raise TrainingError(f"memory must be history, diff or notes (what the records were written by), "
                                f"got {self.memory!r}")
        for name in ("d_model", "heads", "ff", "epochs", "batch_size"):
            if getattr(self, name) < 1:
                raise TrainingError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.layers < 0 or self.d_model % self.heads:
            raise TrainingError(f"layers must be >= 0 and d_model ({self.d_model}) a multiple of heads ({self.heads})")
        if not (self.learning_rate > 0 and 0 <= self.dropout < 1 and 0 <= self.input_dropout < 1):
            raise TrainingError("learning_rate must be > 0, dropout and input_dropout in [0, 1)")
        if not 0 <= self.kind_balance <= 1:
            raise TrainingError(f"kind_balance must be in [0, 1], got {self.kind_balance!r}")
        if not 0 <= self.identity_dropout <= 1:
            raise TrainingError(f"identity_dropout must be in [0, 1], got {self.identity_dropout!r}")
        if not isinstance(self.extra_apps, int) or self.extra_apps < 0:
            raise TrainingError(f"extra_apps must be an integer >= 0, got {self.extra_apps!r}")
        if not isinstance(self.name_swaps, int) or self.name_swaps < 0:
            raise TrainingError(f"name_swaps must be an integer >= 0, got {self.name_swaps!r}")
        if not isinstance(self.stack_folds, int) or self.stack_folds < 0 or self.stack_folds == 1:
            raise TrainingError(f"stack_folds must be 0 (off) or >= 2, got {self.stack_folds!r}")
        if not isinstance(self.members, int) or isinstance(self.members, bool) or self.members < 1:
            raise TrainingError(f"members must be a whole number >= 1, got {self.members!r}")
        if self.members > 1 and self.stack_folds:
            raise TrainingError("members and stack_folds do not combine: the combiner is fitted to one network's scores")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Example:
    """A record as the compact scorer sees it. Held packed (candidates as JSON, each step's numbers
    as one float32 matrix, strings interned): tens of thousands of them are in memory at once."""

    record_id: str
    view: StepView
    candidate_json: tuple[str, ...]
    correct: set[int]  # expanded indices that are right (empty: the labelled value was not proposed)
    positive: int | None  # the expanded index of the record's positive, when covered
    kind: str  # the positive's action type
    split: str
    task_id: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def candidates(self) -> list[Action]:
        return [Action.model_validate_json(c) for c in self.candidate_json]


def pack_view(view: StepView) -> StepView:
    """``view`` with its numbers in one float32 matrix (a row per candidate) and its strings interned,
    in place: a step's numbers as Python floats cost ~5x more memory, and screens repeat strings.
    The scorer reads float32 anyway, so scores do not change."""
    import numpy as np

    if view.candidates:
        rows = np.asarray([c.numeric for c in view.candidates], np.float32)
        for c, row in zip(view.candidates, rows):
            c.numeric = row
            c.text, c.context, c.value = sys.intern(c.text), sys.intern(c.context), sys.intern(c.value)
    view.goal = sys.intern(view.goal)
    view.memory = [sys.intern(m) for m in view.memory]
    view.clauses = [sys.intern(c) for c in view.clauses]
    return view


def _value(a: Action) -> str | None:
    if a.action_type == "open_app":
        return a.app_name
    if a.action_type in ("input_text", "answer"):
        return a.text
    return None


def _target(rec: VerifierStepRecord, placeholder: Action) -> str | None:
    """The value the annotator wants in this placeholder candidate, if the record says."""
    if rec.completion is not None and rec.completion.kind == placeholder.action_type:
        return rec.completion.target
    try:
        oracle = Action.model_validate_json(rec.oracle_action)
    except ValueError:
        return None
    if oracle.action_type == placeholder.action_type and (
            placeholder.action_type != "input_text" or oracle.index == placeholder.index):
        return _value(oracle)
    return None


def _same_value(kind: str, value: str | None, want: str) -> bool:
    """Typed text must be exact; an answer is read as the checkers read it (case, punctuation and
    spacing aside: "Off" answers "off"), so every proposal that says the same is right."""
    if value is None:
        return False
    if kind == "answer":
        got = normalize_answer(value)
        return bool(got) and got == normalize_answer(want)
    return value == want


def expand_record(rec: VerifierStepRecord, apps: Sequence[str] | None, content: str = "select",
                  derived: bool = False) -> tuple[list[Any], list[Action], set[int], int | None]:
    """(elements, expanded candidates, correct expanded indices, expanded positive) of a record;
    ``derived``: derived values among the proposals, as checkpoints of feature version 6 and later
    (``features.uses_derived``) see them."""
    from droidverify.agents.verifier.proposals import expand_candidates

    if rec.xml is None:
        raise TrainingDataError(f"record {rec.record_id} has no screen xml (collected before schema 3): "
                                "collect the data again with `droidverify train data`")
    elements = Observation(xml=rec.xml).elements
    cands = [Action.model_validate_json(c) for c in rec.candidates]
    if content != "select":
        return elements, cands, set(rec.correct), rec.positive
    expanded = expand_candidates(cands, elements, rec.goal, rec.memory, apps, derived=derived)
    where = {a.to_json(): j for j, a in enumerate(expanded)}
    original = set(rec.candidates)
    correct: set[int] = set()
    positive: int | None = None
    for i in sorted(rec.correct, key=lambda i: i != rec.positive):  # the positive first
        c = cands[i]
        hits: list[int] = []
        if not needs_completion(c) or c.to_json() in where:
            hit = where.get(c.to_json())  # unchanged, or a placeholder nothing was proposed for
            hits = [hit] if hit is not None else []
        else:
            want = _target(rec, c)
            if want is not None:
                hits = [j for j, a in enumerate(expanded)
                        if a.action_type == c.action_type and a.to_json() not in original
                        and (c.action_type != "input_text" or a.index == c.index)
                        and _same_value(c.action_type, _value(a), want)]
        correct.update(hits)
        if hits and i == rec.positive:
            positive = hits[0]
    if positive is None and correct:
        positive = min(correct)
    return elements, expanded, correct, positive


def record_example(rec: VerifierStepRecord, apps: Sequence[str] | None, content: str = "select",
                   feature_version: int = FEATURE_VERSION, extra_apps: int = 0) -> Example:
    """A record as the scorer sees it; ``extra_apps`` > 0 lists up to that many more apps for
    ``open_app`` (training.augment.apps_with_distractors, drawn by the record's id)."""
    if extra_apps and apps is not None:
        apps = apps_with_distractors(apps, rec.record_id, extra_apps)
    elements, cands, correct, positive = expand_record(rec, apps, content, uses_derived(feature_version))
    descriptions = [describe_action(c, elements) for c in cands]
    view = step_view(rec.goal, rec.memory, elements, cands, descriptions, version=feature_version)
    kind = Action.model_validate_json(rec.candidates[rec.positive]).action_type
    return Example(rec.record_id, pack_view(view), tuple(sys.intern(c.to_json()) for c in cands), correct,
                   positive, kind, rec.split, rec.task_id)


def examples_of(records: Sequence[VerifierStepRecord], apps: Sequence[str] | None, content: str = "select",
                feature_version: int = FEATURE_VERSION, extra_apps: int = 0) -> list[Example]:
    """Records as the scorer sees them, in this process."""
    return [record_example(r, apps, content, feature_version, extra_apps) for r in records]


def _reintern(ex: Example) -> Example:
    """A worker's example in this process: its numbers are packed already, its strings are copies."""
    v = ex.view
    v.goal, v.memory = sys.intern(v.goal), [sys.intern(m) for m in v.memory]
    v.clauses = [sys.intern(c) for c in v.clauses]
    for c in v.candidates:
        c.text, c.context, c.value = sys.intern(c.text), sys.intern(c.context), sys.intern(c.value)
    ex.candidate_json = tuple(sys.intern(c) for c in ex.candidate_json)
    return ex


def step_loss(scores: Any, correct: list[set[int]], positive: list[int | None], kind: str,
              weights: Sequence[float] | None = None) -> Any:
    """Mean loss over a batch of score rows ([B, N], -inf where no candidate), each row's loss times
    its weight when ``weights`` are given."""
    import torch

    losses = []
    for b, good in enumerate(correct):
        row = scores[b]
        valid = torch.isfinite(row)
        mask = torch.zeros_like(valid)
        mask[list(good)] = True
        if kind == "listwise":
            losses.append(torch.logsumexp(row[valid], 0) - torch.logsumexp(row[mask], 0))
        else:
            neg = valid & ~mask
            if not bool(neg.any()):
                continue
            pos = row[positive[b]]
            losses.append(torch.nn.functional.softplus(row[neg] - pos).mean())
        if weights is not None:
            losses[-1] = losses[-1] * weights[b]
    if not losses:
        return scores.sum() * 0.0
    return torch.stack(losses).mean()


def available_cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


@contextlib.contextmanager
def all_cores() -> Iterator[None]:
    """torch on every core this process may use, then back to the thread count before. Embedding
    ~50k strings with MiniLM is most of a run's data time: 2 threads embed 1.97x faster than 1 on
    this 2-core CPU (docs/training.md)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(max(before, available_cores()))
    try:
        yield
    finally:
        torch.set_num_threads(before)


def kind_weights(kinds: Sequence[str], balance: float) -> dict[str, float]:
    """(share of each kind) ** -balance, scaled so that the weights average 1 over ``kinds``."""
    counts: dict[str, int] = {}
    for k in kinds:
        counts[k] = counts.get(k, 0) + 1
    if not counts:
        return {}
    n = len(kinds)
    raw = {k: (c / n) ** -balance for k, c in counts.items()}
    mean = sum(raw[k] * c for k, c in counts.items()) / n
    return {k: w / mean for k, w in raw.items()}


def rank_metrics(scores: Sequence[Sequence[float]], examples: Sequence[Example]) -> dict[str, Any]:
    """top-1 (a correct candidate scores highest; an uncovered step is a miss), pairwise (share of
    negatives the positive outscores, covered steps), coverage; also per positive kind."""
    top = pair_won = pair_n = covered = 0
    by_kind: dict[str, list[int]] = {}
    for s, ex in zip(scores, examples, strict=True):
        best = max(range(len(s)), key=lambda i: (s[i], -i))
        ok = best in ex.correct
        top += ok
        by_kind.setdefault(ex.kind, [0, 0])
        by_kind[ex.kind][0] += ok
        by_kind[ex.kind][1] += 1
        if ex.positive is not None:
            covered += 1
            negs = [s[i] for i in range(len(s)) if i not in ex.correct]
            pair_won += sum(s[ex.positive] > x for x in negs)
            pair_n += len(negs)
    n = max(len(examples), 1)
    from droidverify.training.loop import roc_auc

    # V-Droid's triage signal: does a high (normalised) entropy flag the steps whose argmax is wrong?
    ent, wrong = [], []
    for s, ex in zip(scores, examples, strict=True):
        if len(s) > 1:
            m = max(s)
            p = [math.exp(x - m) for x in s]
            z = sum(p)
            ent.append(-sum(q / z * math.log(q / z) for q in p if q > 0) / math.log(len(s)))
            wrong.append(max(range(len(s)), key=lambda i: (s[i], -i)) not in ex.correct)
    auc = roc_auc(ent, wrong) if any(wrong) and not all(wrong) else None
    return {"records": len(examples), "top1": top / n, "pairwise": pair_won / max(pair_n, 1),
            "coverage": covered / n, "entropy_auc": auc,
            "entropy_median": sorted(ent)[len(ent) // 2] if ent else None,
            "top1_by_kind": {k: round(v[0] / v[1], 4) for k, v in sorted(by_kind.items())},
            "records_by_kind": {k: v[1] for k, v in sorted(by_kind.items())}}


class CompactTrainer:
    """Trains a :class:`CompactNet` on a record file; ``train()`` resumes from the last checkpoint."""

    def __init__(self, config: CompactConfig, *, encoder: Any = None,
                 log: Callable[[str], None] | None = None) -> None:
        import torch

        from droidverify.agents.verifier.compact.model import CompactNet, NetConfig
        from droidverify.llm.embeddings import TextEncoder

        config.validate()
        self.config = config
        self.out = Path(config.output_dir)
        self.out.mkdir(parents=True, exist_ok=True)
        self.say = log or (lambda msg: None)
        self._kind_weights: dict[str, float] | None = None
        if config.apps is None:
            from droidverify.training.loop import sim_apps

            config.apps = sim_apps()
        self.encoder = encoder or TextEncoder()
        self.cache_file = self.out / f"embeddings-{getattr(self.encoder, 'dtype', 'float32')}.npz"
        self.encoder.load(self.cache_file)
        torch.manual_seed(config.seed)
        n_numeric = len(numeric_names(config.feature_version))
        self.net = CompactNet(NetConfig(emb_dim=self._emb_dim(), n_numeric=n_numeric,
                                        d_model=config.d_model, layers=config.layers, heads=config.heads,
                                        ff=config.ff, dropout=config.dropout,
                                        input_dropout=config.input_dropout,
                                        identity_dropout=config.identity_dropout,
                                        type_kinds=type_kinds(config.feature_version) if config.type_head else 0,
                                        clauses=MAX_CLAUSES if uses_clauses(config.feature_version) else 0))
        self.opt = torch.optim.AdamW(self.net.parameters(), lr=config.learning_rate,
                                     weight_decay=config.weight_decay)
        self.epoch = 0
        self.step = 0
        self.train_examples: list[Example] = []
        self.eval_examples: list[Example] = []
        self.data_stats: dict[str, Any] = {}
        self.combiner: dict[str, Any] | None = None  # set by fit_combiner (stack_folds)
        self.ensemble: Any = None  # set by train_members (members > 1): what scores and is exported

    @property
    def scoring_net(self) -> Any:
        """The network the agent will run: the ensemble once its members are trained, else ``net``."""
        return self.ensemble if self.ensemble is not None else self.net

    def _emb_dim(self) -> int:
        return self.encoder.dimension()

    # ---- data -------------------------------------------------------------------------------
    def examples(self, records: Sequence[VerifierStepRecord], *, extra_apps: int = 0) -> list[Example]:
        """Records as the scorer sees them; large sets are prepared on ``workers`` processes.
        ``extra_apps``: CompactConfig.extra_apps (train records only: held-out ones list the apps as they are)."""
        records = list(records)
        if self.config.workers <= 1 or len(records) < 400:
            return [record_example(r, self.config.apps, self.config.content, self.config.feature_version,
                                   extra_apps) for r in records]
        import concurrent.futures
        import functools
        import multiprocessing

        size = math.ceil(len(records) / (4 * self.config.workers))
        chunks = [records[i:i + size] for i in range(0, len(records), size)]
        work = functools.partial(examples_of, apps=self.config.apps, content=self.config.content,
                                 feature_version=self.config.feature_version, extra_apps=extra_apps)
        with concurrent.futures.ProcessPoolExecutor(self.config.workers,
                                                    mp_context=multiprocessing.get_context("spawn")) as pool:
            # each chunk arrives with its own copies of the strings: intern them again here
            return [_reintern(ex) for part in pool.map(work, chunks) for ex in part]

    def _check_memory(self) -> None:
        """Records carry their memory's text, not its name: the data's statistics file names it. A network
        trained on one memory's text and run with another's scores unreliably, so a mismatch is refused."""
        for path in (self.config.train_file, self.config.eval_file):
            had = records_memory(path) if path else None
            if had is not None and had != self.config.memory:
                raise TrainingDataError(f"{path} was collected with the {had!r} working memory, but the verifier is "
                                        f"configured for {self.config.memory!r}: pass --memory {had}")

    def load_data(self) -> None:
        t0 = time.perf_counter()
        self._check_memory()
        train_records, swapped = with_name_swaps(read_records(self.config.train_file), self.config.name_swaps,
                                                 self.config.seed)
        train = self.examples(train_records, extra_apps=self.config.extra_apps)
        del train_records  # the screens' XML is ~40 KB a record: not kept while embedding
        ev: list[Example] = []
        if self.config.eval_file:
            recs = read_records(self.config.eval_file)
            if self.config.eval_records is not None:
                recs = recs[: self.config.eval_records]
            ev = self.examples(recs)
        strings = [s for ex in (*train, *ev) for s in ex.view.strings()]
        unique = len(set(strings))
        self.say(f"{len(train)} train / {len(ev)} eval records; embedding {unique} distinct strings")
        last = [0.0, time.perf_counter()]

        def progress(done: int, total: int) -> None:
            if time.perf_counter() - last[0] > 10:
                last[0] = time.perf_counter()
                self.say(f"  embedded {done}/{total}")
            if time.perf_counter() - last[1] > 120:  # an interrupted run keeps what it embedded
                last[1] = time.perf_counter()
                self.encoder.save(self.cache_file)

        with all_cores():  # train() runs the small network on cfg.threads; the encoder's matrices are big
            self.encoder.cache_texts(strings, progress=progress)
        self.encoder.save(self.cache_file)
        self.train_examples = [ex for ex in train if ex.correct]
        self._kind_weights = None
        self.eval_examples = ev
        self.data_stats = {"train_records": len(train), "train_uncovered": len(train) - len(self.train_examples),
                           "swapped_records": swapped,
                           "eval_records": len(ev), "distinct_strings": unique,
                           "seconds_data": round(time.perf_counter() - t0, 1)}

    # ---- scoring ----------------------------------------------------------------------------
    def score_views(self, views: Sequence[StepView]) -> list[list[float]]:
        """The network's scores as the agent computes them (the scorer's own loop)."""
        from droidverify.agents.verifier.compact.scorer import CompactScorer

        return CompactScorer(self.scoring_net, self.encoder, meta={"feature_version": self.config.feature_version},
                             combiner=self.combiner).score_views(views)

    def score_record(self, rec: VerifierStepRecord) -> list[float]:
        """Scores of a record's expanded candidates, exactly as the agent scores that step."""
        return self.score_views([record_example(rec, self.config.apps, self.config.content,
                                                self.config.feature_version).view])[0]

    def evaluate(self, examples: Sequence[Example] | None = None) -> dict[str, Any]:
        examples = self.eval_examples if examples is None else examples
        return rank_metrics(self.score_views([ex.view for ex in examples]), examples)

    # ---- training ---------------------------------------------------------------------------
    def _lr(self, step: int, total: int) -> float:
        warm = max(1, total // 50)
        if step < warm:
            return (step + 1) / warm
        return 0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * min(1.0, (step - warm) / max(1, total - warm))))

    def batch_loss(self, scores: Any, batch: Sequence[Example]) -> Any:
        """The objective on one batch of score rows ([B, N]); trainers of other objectives override it
        (``training.policy``). ``self.step`` is the optimizer step about to be taken."""
        weights = ([self.kind_weights.get(ex.kind, 1.0) for ex in batch]
                   if self.config.kind_balance > 0 and self.kind_weights else None)
        return step_loss(scores, [ex.correct for ex in batch], [ex.positive for ex in batch], self.config.loss,
                         weights)

    @property
    def kind_weights(self) -> dict[str, float]:
        """Loss weight per positive action type (``CompactConfig.kind_balance``), mean 1 over the
        training records."""
        if self._kind_weights is None:
            self._kind_weights = kind_weights([ex.kind for ex in self.train_examples], self.config.kind_balance)
        return self._kind_weights

    def train(self, *, resume: bool = True) -> dict[str, Any]:
        """Fit, then (``stack_folds``, ``members``) the other networks, and measure."""
        cfg = self.config
        stopped = self.fit(resume=resume)
        result = {"epochs": self.epoch, "steps": self.step, "stopped_by": stopped, **self.data_stats}
        if cfg.stack_folds and stopped == "epochs":
            if self.eval_examples:
                result["eval_without_combiner"] = self.evaluate()
            self.combiner = self.fit_combiner()
            result["combiner"] = {k: v for k, v in self.combiner.items() if k not in ("scale", "weights")}
            (self.out / "stack" / "combiner.json").write_text(json.dumps(self.combiner, indent=1), encoding="utf-8")
        if cfg.members > 1 and stopped == "epochs":
            result["members"] = self.train_members()
        elif cfg.members > 1:  # a rerun with a larger budget resumes and then trains them
            self.say(f"stopped by the {stopped}: the {cfg.members - 1} other members were not trained; "
                     "this run exports one network")
        if self.eval_examples:
            result["eval"] = self.evaluate()
        result["train_fit"] = self.evaluate(self.train_examples[:1000])
        return result

    def fit(self, *, resume: bool = True) -> str:
        """The training loop alone (checkpoint per epoch, ``log.jsonl``, ``curves.png``); returns what
        stopped it. Stacking folds and ensemble members run only this: their own measurements would
        go unused."""
        import torch

        from droidverify.agents.verifier.compact.scorer import batch_tensors

        cfg = self.config
        torch.set_num_threads(cfg.threads)
        if not self.train_examples:
            self.load_data()
        if not self.train_examples:
            raise TrainingError(f"{cfg.train_file}: no record with a covered label to train on")
        if resume and (self.out / "checkpoint.pt").is_file():
            self.load_checkpoint(self.out / "checkpoint.pt")
            self.say(f"resumed at epoch {self.epoch}")
        per_epoch = math.ceil(len(self.train_examples) / cfg.batch_size)
        total = per_epoch * cfg.epochs
        sched = torch.optim.lr_scheduler.LambdaLR(self.opt, lambda s: self._lr(s, total),
                                                  last_epoch=self.step - 1 if self.step else -1)
        t0 = time.perf_counter()
        log_path = self.out / "log.jsonl"
        stopped = "epochs"
        while self.epoch < cfg.epochs:
            order = list(range(len(self.train_examples)))
            random.Random(f"{cfg.seed}:{self.epoch}").shuffle(order)
            self.net.train()
            tot, n = 0.0, 0
            shown = time.perf_counter()
            for start in range(0, len(order), cfg.batch_size):
                batch = [self.train_examples[i] for i in order[start:start + cfg.batch_size]]
                scores = self.net(**batch_tensors([ex.view for ex in batch], self.encoder,
                                                  with_clauses=uses_clauses(self.config.feature_version)))
                loss = self.batch_loss(scores, batch)
                self.opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.net.parameters(), 1.0)
                self.opt.step()
                sched.step()
                self.step += 1
                tot += float(loss.detach()) * len(batch)
                n += len(batch)
                if time.perf_counter() - shown > 30:
                    shown = time.perf_counter()
                    self.say(f"  epoch {self.epoch + 1}: {n}/{len(order)} records, loss {tot / n:.4f}")
            self.epoch += 1
            entry: dict[str, Any] = {"type": "epoch", "epoch": self.epoch, "step": self.step,
                                     "loss": tot / max(n, 1), "lr": sched.get_last_lr()[0],
                                     "seconds": round(time.perf_counter() - t0, 1)}
            if self.eval_examples:
                m = self.evaluate()
                entry.update({"eval_top1": m["top1"], "eval_pairwise": m["pairwise"]})
            with open(log_path, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")
            self.say(f"epoch {self.epoch}/{cfg.epochs}: loss {entry['loss']:.4f}"
                     + (f", eval top-1 {entry['eval_top1']:.3f} pairwise {entry['eval_pairwise']:.3f}"
                        if "eval_top1" in entry else ""))
            self.save_checkpoint(self.out / "checkpoint.pt")
            if cfg.max_minutes is not None and time.perf_counter() - t0 > cfg.max_minutes * 60:
                stopped = "time budget"
                break
        plot_compact_curves(log_path, self.out / "curves.png")
        return stopped

    # ---- ensemble ---------------------------------------------------------------------------
    def train_members(self) -> list[dict[str, Any]]:
        """Train members 2..K on the same records (seed + k, resumable in ``OUT/members/member-k``) and
        make their ensemble with this trainer's network the scoring network. Returns each member's
        validation figures (when there are eval records)."""
        from droidverify.agents.verifier.compact.model import EnsembleNet

        cfg = self.config
        nets = [self.net]
        figures: list[dict[str, Any]] = []
        if self.eval_examples:
            figures.append({"seed": cfg.seed, **_brief(self.evaluate())})
        for k in range(1, cfg.members):
            self.say(f"ensemble: member {k + 1}/{cfg.members} (seed {cfg.seed + k})")
            sub_cfg = replace(cfg, output_dir=str(self.out / "members" / f"member-{k}"), eval_file=None,
                              members=1, seed=cfg.seed + k, max_minutes=None)
            sub = CompactTrainer(sub_cfg, encoder=self.encoder, log=lambda m, k=k: self.say(f"  [member {k + 1}] {m}"))
            sub.train_examples = self.train_examples
            sub.fit()
            nets.append(sub.net.eval())
            if self.eval_examples:
                figures.append({"seed": sub_cfg.seed, **_brief(sub.evaluate(self.eval_examples))})
        self.ensemble = EnsembleNet(nets).eval()
        return figures

    # ---- stacking ---------------------------------------------------------------------------
    def fit_combiner(self) -> dict[str, Any]:
        """Train ``stack_folds`` networks, each on the train templates outside one fold (same recipe,
        resumable in ``OUT/stack/fold-K``), score each fold's records with the network that never saw
        its templates, and fit ``scale * score + numbers @ weights`` on those scores with the same
        listwise loss: what the network's confidence is worth on templates it did not train on."""
        import torch

        cfg = self.config
        folds = template_folds([ex.task_id for ex in self.train_examples], cfg.stack_folds)
        scores: list[list[float]] = []
        held_all: list[Example] = []
        for k in range(cfg.stack_folds):
            held = [ex for ex in self.train_examples if folds[ex.task_id] == k]
            rest = [ex for ex in self.train_examples if folds[ex.task_id] != k]
            templates = len({ex.task_id for ex in held})
            self.say(f"stacking: fold {k + 1}/{cfg.stack_folds}, {templates} templates held out "
                     f"({len(held)} records), training on {len(rest)}")
            sub_cfg = replace(cfg, output_dir=str(self.out / "stack" / f"fold-{k}"), eval_file=None,
                              stack_folds=0, max_minutes=None)
            sub = CompactTrainer(sub_cfg, encoder=self.encoder, log=lambda m, k=k: self.say(f"  [fold {k + 1}] {m}"))
            sub.train_examples = rest
            sub.fit()
            scores.extend(sub.score_views([ex.view for ex in held]))
            held_all.extend(held)
        torch.manual_seed(cfg.seed)
        s, x, present, right = _stack_tensors(scores, held_all)
        log_scale = torch.zeros((), requires_grad=True)  # scale = exp(.) > 0: the score keeps its sign
        w = torch.zeros(x.shape[-1], requires_grad=True)
        opt = torch.optim.Adam([log_scale, w], lr=0.02)

        def logits() -> Any:
            return (log_scale.exp() * s + x @ w).masked_fill(~present, -1e9)

        for _ in range(STACK_STEPS):  # full batch, deterministic; converged well before (docs)
            lp = torch.log_softmax(logits(), -1)
            loss = -torch.logsumexp(lp.masked_fill(~right, -1e9), -1).mean() + STACK_L2 * (w ** 2).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            before = right.gather(1, s.masked_fill(~present, -1e9).argmax(1, keepdim=True)).float().mean()
            after = right.gather(1, logits().argmax(1, keepdim=True)).float().mean()
        return {"scale": float(log_scale.detach().exp()), "weights": [float(v) for v in w.detach()],
                "folds": cfg.stack_folds, "held_out_records": len(held_all),
                "held_out_top1_network": round(float(before), 4), "held_out_top1_combined": round(float(after), 4),
                "loss": round(float(loss.detach()), 4)}

    def save_checkpoint(self, path: Path) -> None:
        import torch

        tmp = path.with_name(path.name + ".tmp")
        torch.save({"net": self.net.state_dict(), "opt": self.opt.state_dict(), "epoch": self.epoch,
                    "step": self.step, "config": self.config.to_dict()}, tmp)
        tmp.replace(path)

    def load_checkpoint(self, path: Path) -> None:
        import torch

        state = torch.load(path, map_location="cpu", weights_only=False)
        saved = {k: v for k, v in state["config"].items()
                 if k not in ("max_minutes", "epochs", "output_dir", "workers", "threads")}
        mine = {k: v for k, v in self.config.to_dict().items() if k in saved}
        if saved != mine:
            diff = sorted(k for k in saved if saved[k] != mine.get(k))
            raise TrainingError(f"{path} was written with other settings ({', '.join(diff)}): "
                                "use another output directory or the same settings")
        self.net.load_state_dict(state["net"])
        self.opt.load_state_dict(state["opt"])
        self.epoch, self.step = int(state["epoch"]), int(state["step"])

    def export(self, directory: str | Path, *, provenance: dict[str, Any] | None = None) -> Path:
        from droidverify.agents.verifier.compact.scorer import CompactScorer

        scorer = CompactScorer(self.scoring_net, self.encoder, memory=self.config.memory, content=self.config.content,
                               finish=getattr(self.config, "finish", "status"),
                               meta={"feature_version": self.config.feature_version}, combiner=self.combiner)
        cfg = self.config.to_dict()
        # Paths relative to the run directory: provenance never records a machine's absolute paths.
        for key in ("output_dir", "train_file", "eval_file"):
            if cfg.get(key):
                cfg[key] = relative_path(cfg[key], self.out)
        return scorer.save(directory, train_config=cfg, provenance=provenance)


def _brief(metrics: dict[str, Any]) -> dict[str, Any]:
    return {k: metrics[k] for k in ("top1", "pairwise", "entropy_auc") if k in metrics}


STACK_STEPS = 300  # combiner fit: full-batch Adam steps (400 and 1,500 gave the same fit as 300)
STACK_L2 = 1e-3


def template_folds(task_ids: Sequence[str], k: int) -> dict[str, int]:
    """Each template's fold (a stable hash of its name, so a rerun and another machine agree).
    Every fold must hold a template: too few templates for ``k`` folds is an error."""
    import hashlib

    names = sorted(set(task_ids))
    folds = {t: int(hashlib.sha256(t.encode("utf-8")).hexdigest(), 16) % k for t in names}
    empty = sorted(set(range(k)) - set(folds.values()))
    if empty:
        raise TrainingDataError(f"stacking needs a template in each of {k} folds; the {len(names)} train templates "
                                f"leave fold(s) {empty} empty: use fewer folds or more templates")
    return folds


def _stack_tensors(scores: Sequence[Sequence[float]], examples: Sequence[Example]) -> tuple[Any, Any, Any, Any]:
    """Held-out scores, numbers, presence and right-answer masks, padded to [records, candidates]."""
    import numpy as np
    import torch

    n = max(len(row) for row in scores)
    f = len(examples[0].view.candidates[0].numeric)
    s = torch.zeros(len(scores), n)
    x = torch.zeros(len(scores), n, f)
    present = torch.zeros(len(scores), n, dtype=torch.bool)
    right = torch.zeros(len(scores), n, dtype=torch.bool)
    for i, (row, ex) in enumerate(zip(scores, examples)):
        c = len(row)
        s[i, :c] = torch.tensor(row)
        x[i, :c] = torch.from_numpy(np.asarray([cv.numeric for cv in ex.view.candidates], np.float32))
        present[i, :c] = True
        right[i, sorted(ex.correct)] = True
    return s, x, present, right


def relative_path(path: str, base: Path) -> str:
    """``path`` relative to a run directory (provenance never records a machine's absolute paths);
    its file name when no relative path exists (another drive)."""
    import os

    try:
        return os.path.relpath(Path(path).resolve(), base.resolve())
    except ValueError:
        return Path(path).name


def plot_compact_curves(log_file: str | Path, png: str | Path) -> None:
    """Loss and held-out top-1 / pairwise against epochs, as a PNG (needs matplotlib)."""
    from droidverify.training.curves import plot_log

    plot_log(log_file, png, x="epoch", left=[("loss", "train loss")],
             right=[("eval_top1", "held-out top-1"), ("eval_pairwise", "held-out pairwise")])


def records_memory(path: str | Path) -> str | None:
    """The working memory a record file was written by, as its ``.stats.json`` names it (data from before
    memories were named: diff); None when the file has no statistics."""
    stats = Path(path).with_suffix(".stats.json")
    if not stats.is_file():
        return None
    try:
        return str((json.loads(stats.read_text(encoding="utf-8")).get("spec") or {}).get("memory", "diff"))
    except (ValueError, AttributeError) as exc:
        raise TrainingDataError(f"{stats}: unreadable statistics ({exc})") from exc


@dataclass
class CompactLoopConfig:
    """V-Droid's annotation loop on the compact backbone: round 0 trains on ``train_config``'s data;
    each later round rolls the last verifier out on train templates (new seeds), the oracle corrects
    the steps whose normalised entropy is at or above ``annotate_above`` (0: every step; the episode
    continues from each correction), every step joins the data, and the verifier is retrained from
    scratch on everything so far (minutes on CPU)."""

    output_dir: str
    train_config: CompactConfig
    rounds: int = 1
    rollout_seeds: Sequence[int] = (300,)
    annotate_above: float = 0.0
    max_tasks: int | None = None

    def validate(self) -> None:
        self.train_config.validate()
        if self.rounds < 0 or not 0.0 <= self.annotate_above <= 1.0:
            raise TrainingError("rounds must be >= 0 and annotate_above in [0, 1] (normalised entropy)")


def run_compact_loop(cfg: CompactLoopConfig, *, progress: Callable[[str], None] | None = None,
                     provenance: dict[str, Any] | None = None, backend: Any = None) -> dict[str, Any]:
    """Run (or resume) the loop; round K's verifier is exported to ``output_dir/round-K/verifier``."""
    from droidverify.tasks import registry
    from droidverify.training.collection import CollectStats, collect
    from droidverify.training.loop import VerifierPolicy, sim_apps
    from droidverify.training.records import write_records

    cfg.validate()
    say = progress or (lambda msg: None)
    out = Path(cfg.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    summary_file = out / "loop.json"
    summary: dict[str, Any] = json.loads(summary_file.read_text()) if summary_file.exists() else {"rounds": []}
    done = {r["round"] for r in summary["rounds"]}
    data = [Path(cfg.train_config.train_file)]
    apps = sim_apps()
    prev: Path | None = None
    for k in range(cfg.rounds + 1):
        rdir = out / f"round-{k}"
        vdir = rdir / "verifier"
        info: dict[str, Any] = {"round": k}
        if k > 0:
            rfile = rdir / "annotated.jsonl"
            if not rfile.exists():
                assert prev is not None
                tasks = [t for s in cfg.rollout_seeds for t in registry.tasks_for("train", [s + 1000 * k])
                         ][: cfg.max_tasks]
                st = CollectStats()
                t0 = time.perf_counter()
                recs = list(collect(tasks, split_of=registry.split_of, apps=apps,
                                    policy=VerifierPolicy(prev, apps, {}), round_index=k, stats=st,
                                    annotate_above=cfg.annotate_above, backend=backend,
                                    memory=cfg.train_config.memory))
                write_records(rfile, recs)
                info["rollout"] = {"episodes": st.episodes, "steps": st.steps,
                                   "labels_used": st.records.get("annotated", 0),
                                   "self_labels": st.records.get("self_label", 0),
                                   "success_with_corrections": st.episode_success,
                                   "seconds": round(time.perf_counter() - t0, 1)}
                (rdir / "rollout.json").write_text(json.dumps(info["rollout"], indent=1))
                say(f"round {k}: {info['rollout']}")
            else:
                info["rollout"] = json.loads((rdir / "rollout.json").read_text())
            data.append(rfile)
        if not (vdir / "verifier.json").exists():
            merged = rdir / "train.jsonl"
            if k == 0:
                merged = data[0]
            else:
                write_records(merged, [r for f in data for r in read_records(f)])
            tc = CompactConfig(**{**cfg.train_config.to_dict(), "output_dir": str(rdir / "trainer"),
                                  "train_file": str(merged)})
            trainer = CompactTrainer(tc, log=say)
            result = trainer.train()
            labels = sum(r["rollout"]["labels_used"] for r in summary["rounds"] if "rollout" in r) + \
                info.get("rollout", {}).get("labels_used", 0)
            trainer.export(vdir, provenance={**(provenance or {}), "round": k, "labels_used_after_round0": labels,
                                             "metrics": {"eval": result.get("eval")}})
            info["eval"] = {key: result.get("eval", {}).get(key) for key in ("top1", "pairwise", "coverage")}
        if k not in done:
            summary["rounds"].append({**info, "verifier": str(vdir)})
            summary_file.write_text(json.dumps(summary, indent=1))
        prev = vdir
    return summary
