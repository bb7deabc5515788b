"""P^3 (pair-wise progress preference) training of the verifier, TRL-shaped: a config dataclass
and a trainer.

Per labelled step the positive candidate should outscore every negative:
``loss = mean_neg -log sigmoid(s_pos - s_neg - margin)``. Scores are the learned head applied to
the next-token logits of each candidate's prompt. The step's shared prefix is run once and its KV
cache serves every candidate (``LocalLLM.candidate_hidden``, the same code the agent scores with),
instead of one full prompt per candidate (the naive forward, ``naive_forward=True``, kept as the
benchmark baseline; V-Droid's paper does not describe its training forward). A LoRA adapter
(peft) trains on the layers chosen; an optional SFT term trains the content of placeholder
positives (app name, text, answer) that the agent generates after choosing them.
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from droidverify.agents.verifier.agent import completion_messages
from droidverify.agents.verifier.head import HEAD_KINDS, load_head, make_head, save_head
from droidverify.agents.verifier.prompt import build_verification_prompt
from droidverify.errors import CheckpointError, TrainingError
from droidverify.training.records import VerifierStepRecord, read_records

LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
VERIFIER_FORMAT = "droidverify-verifier"
LOSSES = ("pairwise", "listwise")


# The recipes behind `droidverify train default --backbone llm` / `train verifier` / `train loop`
# (docs/training.md has the figures they give): P3Config.cpu() / P3Config.gpu() apply them.
_CPU_RECIPE: dict[str, Any] = {"lora_dropout": 0.0, "lora_layers": 6, "max_negatives": 7, "max_steps": 2400,
                               "grad_accum": 1, "learning_rate": 1e-3, "head_learning_rate": 1e-5,
                               "eval_every": 200, "eval_records": 40, "save_every": 25, "sft_weight": 0.5,
                               "max_prompt_tokens": 2200, "max_minutes": 78.0}
_GPU_RECIPE: dict[str, Any] = {"lora_dropout": 0.0, "max_batch": 16, "lora_layers": None, "max_negatives": 15,
                               "max_steps": 3000, "grad_accum": 4, "learning_rate": 2e-4, "head_learning_rate": 1e-3,
                               "eval_every": 500, "eval_records": 120, "save_every": 100, "sft_weight": 0.5,
                               "max_prompt_tokens": 4000}


@dataclass
class P3Config:
    """Everything a P^3 run needs; saved with every checkpoint and export.

    The field defaults are V-Droid's; the recipes the commands train with are the presets
    :meth:`cpu` (measured on 2 cores: ~78 min) and :meth:`gpu`, or :meth:`for_device`."""

    output_dir: str
    train_file: str
    eval_file: str | None = None
    model: str | None = None  # None: the bundled SmolLM2-135M-Instruct
    dtype: str = "auto"  # auto | float32 | bfloat16
    device: str = "cpu"
    # LoRA (V-Droid's defaults); ``lora_layers``: None = every layer, N > 0 = the last N layers.
    lora_r: int = 16
    lora_alpha: int = 32
    lora_dropout: float = 0.05
    lora_targets: tuple[str, ...] = LORA_TARGETS
    lora_layers: int | None = None
    head: str = "linear"
    init_from: str | None = None  # a trained verifier directory to continue from (annotation rounds)
    # The head is a linear map over ~49k logits and AdamW moves every weight by ~lr per step, so
    # one step shifts a score margin by ~lr * sum|logit difference| (~1e4 here): 1e-3 swamps the
    # untrained score spread (~0.1) ninety-fold (`benchmarks/train_verifier.py --part head-scale`).
    learning_rate: float = 1e-3
    head_learning_rate: float = 1e-5
    weight_decay: float = 0.0
    warmup_steps: int = 20
    max_steps: int = 500  # optimizer steps
    max_minutes: float | None = None  # stop early (checkpointed) once this much training time is spent
    grad_accum: int = 1  # records per optimizer step
    max_negatives: int | None = 15  # sampled per record; None = all
    hard_negative_types: tuple[str, ...] = ("status", "navigate_back")  # always among the negatives
    margin: float = 0.0
    # "pairwise": V-Droid's P^3 loss; "listwise": cross-entropy of the softmax over the positive and
    # the sampled negatives, which is what top-1 (beating *every* negative) needs.
    loss: str = "pairwise"
    sft_weight: float = 0.5  # weight of the completion (content) loss; 0 disables it
    max_prompt_tokens: int = 3000  # records whose prompt is longer are skipped (and counted)
    max_batch: int = 8  # candidates per packed pass
    naive_forward: bool = False  # every candidate's full prompt on its own, one forward each (benchmark)
    eval_every: int = 100
    eval_records: int = 200
    save_every: int = 100
    log_every: int = 10
    keep_checkpoints: int = 2
    seed: int = 0

    def validate(self) -> None:
        if self.loss not in LOSSES:
            raise TrainingError(f"loss must be one of {LOSSES}, got {self.loss!r}")
        if self.head not in HEAD_KINDS:
            raise TrainingError(f"head must be one of {HEAD_KINDS}, got {self.head!r}")
        for name in ("max_steps", "grad_accum", "lora_r", "max_batch", "eval_every", "save_every",
                     "log_every", "eval_records", "keep_checkpoints"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < 1:
                raise TrainingError(f"{name} must be a positive int, got {v!r}")
        if self.max_negatives is not None and self.max_negatives < 1:
            raise TrainingError(f"max_negatives must be >= 1 or None, got {self.max_negatives}")
        if self.lora_layers is not None and self.lora_layers < 1:
            raise TrainingError(f"lora_layers must be >= 1 or None, got {self.lora_layers}")
        if not 0 <= self.lora_dropout < 1:
            raise TrainingError(f"lora_dropout must be in [0, 1), got {self.lora_dropout}")
        if self.learning_rate <= 0 or self.head_learning_rate < 0 or self.sft_weight < 0:
            raise TrainingError("learning rates must be > 0 (head >= 0) and sft_weight >= 0")

    @classmethod
    def cpu(cls, output_dir: str, train_file: str, **overrides: Any) -> P3Config:
        """The CPU recipe (LoRA on the last 6 layers, 7 negatives, 2400 steps within 78 minutes);
        ``overrides`` replace any of its values."""
        return cls(output_dir=output_dir, train_file=train_file, **{"device": "cpu", **_CPU_RECIPE, **overrides})

    @classmethod
    def gpu(cls, output_dir: str, train_file: str, **overrides: Any) -> P3Config:
        """The GPU recipe (LoRA on every layer, 15 negatives, 3000 steps of 4 records, 16 candidates a
        pass); ``overrides`` replace any of its values."""
        return cls(output_dir=output_dir, train_file=train_file, **{"device": "cuda", **_GPU_RECIPE, **overrides})

    @classmethod
    def for_device(cls, device: str, output_dir: str, train_file: str, **overrides: Any) -> P3Config:
        """:meth:`gpu` on a ``cuda`` device, else :meth:`cpu`, running on ``device``."""
        preset = cls.gpu if device.startswith("cuda") else cls.cpu
        return preset(output_dir, train_file, **{**overrides, "device": device})

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["lora_targets"] = list(self.lora_targets)
        d["hard_negative_types"] = list(self.hard_negative_types)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> P3Config:
        d = dict(d)
        for key in ("lora_targets", "hard_negative_types"):
            if key in d:
                d[key] = tuple(d[key])
        try:
            return cls(**d)
        except TypeError as exc:
            raise CheckpointError(f"config does not fit P3Config: {exc}") from exc


@dataclass
class StepMetrics:
    loss: float
    pair_acc: float
    top1: float
    n_candidates: int
    sft_loss: float | None = None


@dataclass
class _State:
    step: int = 0  # optimizer steps done
    seen: int = 0  # records consumed (epoch * n + position)
    skipped: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)


def _layers_to_transform(n_layers: int, last: int | None) -> list[int] | None:
    if last is None or last >= n_layers:
        return None
    return list(range(n_layers - last, n_layers))


class P3Trainer:
    """Trains a verifier (LoRA adapter + score head) with the P^3 loss on step records.

    ``llm``: a :class:`~droidverify.llm.local.LocalLLM` to train (loaded from the config when None).
    ``train()`` resumes from the newest checkpoint in ``output_dir`` when there is one.
    """

    def __init__(self, config: P3Config, llm: Any = None,
                 train_records: list[VerifierStepRecord] | None = None,
                 eval_records: list[VerifierStepRecord] | None = None) -> None:
        import torch
        from peft import LoraConfig, get_peft_model

        config.validate()
        self.config = config
        self.out = Path(config.output_dir)
        if llm is None:
            from droidverify.llm.local import LocalLLM

            llm = LocalLLM(config.model, dtype=config.dtype, device=config.device,
                           max_batch=config.max_batch, seed=config.seed)
        self.llm = llm
        self.train_records = train_records if train_records is not None else read_records(config.train_file)
        if not self.train_records:
            raise TrainingError(f"no training records in {config.train_file}")
        if eval_records is None and config.eval_file:
            eval_records = read_records(config.eval_file)
        ev = list(eval_records or [])
        random.Random(config.seed).shuffle(ev)
        self.eval_records = ev[:config.eval_records]
        torch.manual_seed(config.seed)
        model = llm.model
        n_layers = model.config.num_hidden_layers
        lcfg = LoraConfig(r=config.lora_r, lora_alpha=config.lora_alpha, lora_dropout=config.lora_dropout,
                          target_modules=list(config.lora_targets), bias="none",
                          layers_to_transform=_layers_to_transform(n_layers, config.lora_layers))
        for p in model.parameters():
            p.requires_grad_(False)
        self.peft_model = get_peft_model(model, lcfg)  # injects LoRA layers into llm.model in place
        self.model = model
        vocab = model.config.vocab_size
        yes_id, no_id = llm.target_ids(("Yes", "No"))
        self.head = make_head(config.head, vocab, yes_id, no_id).to(llm.device)
        if config.init_from:
            self._init_from(Path(config.init_from))
        self.lora_params = [p for n, p in model.named_parameters() if "lora_" in n]
        for p in self.lora_params:
            p.requires_grad_(True)
        groups = [{"params": self.lora_params, "lr": config.learning_rate}]
        head_params = list(self.head.parameters())
        if head_params and config.head_learning_rate > 0:
            groups.append({"params": head_params, "lr": config.head_learning_rate})
        else:
            for p in head_params:
                p.requires_grad_(False)
        self.optimizer = torch.optim.AdamW(groups, weight_decay=config.weight_decay)
        warm = max(1, config.warmup_steps)
        total = config.max_steps

        def schedule(step: int) -> float:  # linear warm-up, then cosine to 10%
            if step < warm:
                return (step + 1) / warm
            frac = min(1.0, (step - warm) / max(1, total - warm))
            return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * frac))

        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, schedule)
        self.state = _State()
        self._eos = llm.tokenizer.eos_token or ""

    def _init_from(self, directory: Path) -> None:
        from peft import set_peft_model_state_dict
        from safetensors.torch import load_file

        from droidverify.agents.verifier.trained import read_verifier_meta

        meta = read_verifier_meta(directory)
        cfg = meta.get("train_config", {})
        for key in ("lora_r", "lora_layers", "head"):
            if key in cfg and cfg[key] != getattr(self.config, key):
                raise CheckpointError(f"init_from {directory}: its {key} is {cfg[key]!r}, this run's is "
                                      f"{getattr(self.config, key)!r}")
        state = load_file(str(directory / "adapter" / "adapter_model.safetensors"))
        state = {k: v.float() for k, v in state.items()}
        set_peft_model_state_dict(self.peft_model, state)
        head = load_head(directory / "head.safetensors", self.model.config.vocab_size)
        self.head.load_state_dict(head.state_dict())

    # ------------------------------------------------------------------ scoring
    def _prompt_ids(self, rec: VerifierStepRecord) -> tuple[list[list[int]], int]:
        vp = build_verification_prompt(self.llm, goal=rec.goal, memory=rec.memory, ui=rec.ui,
                                       descriptions=rec.descriptions)
        return self.llm.split_shared(vp.prefix, vp.continuations)

    def _scores(self, fulls: list[list[int]], k: int) -> Any:
        import torch

        if self.config.naive_forward:
            dec = self.model.get_decoder()
            hidden = torch.cat([dec(input_ids=torch.tensor([f], device=self.llm.device)).last_hidden_state[:, -1]
                                for f in fulls], 0)
        else:
            hidden = self.llm.candidate_hidden(fulls, k, model=self.model, max_batch=self.config.max_batch)
        return self.head(self.llm._head(hidden))

    def score_record(self, rec: VerifierStepRecord) -> list[float]:
        """Scores of every candidate of ``rec`` with the current adapter and head (eval mode)."""
        import torch

        self.model.eval()
        fulls, k = self._prompt_ids(rec)
        with torch.inference_mode():
            return [float(x) for x in self._scores(fulls, k).tolist()]

    def _sample(self, rec: VerifierStepRecord, index: int) -> list[int]:
        """Candidate indices used for this record: the positive first, then negatives.

        Equivalent candidates are never negatives. Negatives whose action type is in
        ``hard_negative_types`` (premature ``status``, a reflexive ``navigate_back``: what an
        untrained verifier over-picks) are always kept; the rest are sampled.
        """
        negs = rec.negatives()
        m = self.config.max_negatives
        if m is not None and len(negs) > m:
            hard_types = set(self.config.hard_negative_types)
            hard = [i for i in negs if json.loads(rec.candidates[i]).get("action_type") in hard_types][:m]
            rest = [i for i in negs if i not in hard]
            negs = hard + random.Random(f"{self.config.seed}:{index}").sample(rest, m - len(hard))
        return [rec.positive, *negs]

    def _sft_loss(self, rec: VerifierStepRecord) -> Any:
        import torch

        c = rec.completion
        assert c is not None
        prompt = self.llm.render_chat(completion_messages(rec.goal, rec.memory, rec.ui, c.question))
        p_ids = self.llm.tokenize(prompt)
        t_ids = self.llm.tokenize(c.target + self._eos)
        ids = torch.tensor([p_ids + t_ids], device=self.llm.device)
        hidden = self.model.get_decoder()(input_ids=ids).last_hidden_state[0, len(p_ids) - 1:-1]
        logits = self.llm._head(hidden)
        return torch.nn.functional.cross_entropy(logits, torch.tensor(t_ids, device=logits.device))

    def _record_loss(self, rec: VerifierStepRecord, index: int) -> tuple[Any, StepMetrics] | None:
        import torch
        import torch.nn.functional as F

        fulls, k = self._prompt_ids(rec)
        if max(len(f) for f in fulls) > self.config.max_prompt_tokens:
            return None
        chosen = self._sample(rec, index)
        s = self._scores([fulls[i] for i in chosen], k)
        diff = s[0] - s[1:] - self.config.margin
        if self.config.loss == "listwise":
            loss = -F.log_softmax(s.float(), dim=0)[0]
        else:
            loss = F.softplus(-diff).mean()  # = mean -log sigmoid(diff)
        sft = None
        if self.config.sft_weight > 0 and rec.completion is not None:
            sft_t = self._sft_loss(rec)
            loss = loss + self.config.sft_weight * sft_t
            sft = float(sft_t.detach())
        with torch.no_grad():
            pair = float((diff > -self.config.margin).float().mean())
            top1 = float(bool((s[0] > s[1:]).all()))
        return loss, StepMetrics(loss=float(loss.detach()), pair_acc=pair, top1=top1,
                                 n_candidates=len(chosen), sft_loss=sft)

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, records: list[VerifierStepRecord] | None = None) -> dict[str, float]:
        """Pairwise accuracy (positive above a negative) and top-1 accuracy over all candidates."""
        recs = self.eval_records if records is None else records
        pairs = correct = top = n = 0
        for rec in recs:
            won, vs, first = rec.ranking(self.score_record(rec))
            correct, pairs, top, n = correct + won, pairs + vs, top + int(first), n + 1
        return {"pair_acc": correct / pairs if pairs else float("nan"),
                "top1": top / n if n else float("nan"), "n": n}

    # ------------------------------------------------------------------ data order
    def _record_at(self, seen: int) -> tuple[VerifierStepRecord, int]:
        n = len(self.train_records)
        epoch, pos = divmod(seen, n)
        if getattr(self, "_perm_epoch", None) != epoch:  # one seeded permutation per epoch
            perm = list(range(n))
            random.Random(f"{self.config.seed}:epoch{epoch}").shuffle(perm)
            self._perm, self._perm_epoch = perm, epoch
        return self.train_records[self._perm[pos]], seen

    # ------------------------------------------------------------------ training
    def train_step(self) -> StepMetrics:
        """One optimizer step over ``grad_accum`` records."""
        import torch

        self.model.train()
        self.head.train()
        self.optimizer.zero_grad(set_to_none=True)
        metrics: list[StepMetrics] = []
        while len(metrics) < self.config.grad_accum:
            rec, idx = self._record_at(self.state.seen)
            self.state.seen += 1
            res = self._record_loss(rec, idx)
            if res is None:
                self.state.skipped += 1
                if self.state.skipped > 10 * len(self.train_records):
                    raise TrainingError("every record is longer than max_prompt_tokens")
                continue
            loss, m = res
            (loss / self.config.grad_accum).backward()
            metrics.append(m)
        params = self.lora_params + [p for p in self.head.parameters() if p.requires_grad]
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        self.optimizer.step()
        self.scheduler.step()
        self.state.step += 1
        sfts = [m.sft_loss for m in metrics if m.sft_loss is not None]
        return StepMetrics(loss=sum(m.loss for m in metrics) / len(metrics),
                           pair_acc=sum(m.pair_acc for m in metrics) / len(metrics),
                           top1=sum(m.top1 for m in metrics) / len(metrics),
                           n_candidates=sum(m.n_candidates for m in metrics),
                           sft_loss=sum(sfts) / len(sfts) if sfts else None)

    def train(self, *, resume: bool = True, progress: bool = True) -> dict[str, Any]:
        """Run to ``max_steps``, logging to ``log.jsonl``, checkpointing every ``save_every``."""
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        cfg = self.config
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / "config.json").write_text(json.dumps(cfg.to_dict(), indent=1))
        ckpt = self.latest_checkpoint() if resume else None
        if ckpt is not None:
            self.load_checkpoint(ckpt)
        self._trim_log(self.state.step)
        log = open(self.out / "log.jsonl", "a", encoding="utf-8")  # noqa: SIM115 -- open for the whole run
        window: list[StepMetrics] = []
        last_eval: dict[str, float] = {}
        eval_step = -1
        stopped = "max_steps"
        t_start = time.perf_counter()
        with Progress(TextColumn("[bold]P^3[/]"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                      TextColumn("{task.fields[info]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                      disable=not progress) as bar:
            task = bar.add_task("train", total=cfg.max_steps, completed=self.state.step, info="")
            while self.state.step < cfg.max_steps:
                if cfg.max_minutes is not None and time.perf_counter() - t_start > 60 * cfg.max_minutes:
                    self.save_checkpoint()
                    stopped = "time budget"
                    break
                t0 = time.perf_counter()
                m = self.train_step()
                dt = time.perf_counter() - t0
                window.append(m)
                entry = {"type": "train", "step": self.state.step, "loss": m.loss, "pair_acc": m.pair_acc,
                         "top1": m.top1, "sft_loss": m.sft_loss, "n_candidates": m.n_candidates,
                         "lr": self.scheduler.get_last_lr()[0], "seconds": dt, "seen": self.state.seen}
                log.write(json.dumps(entry) + "\n")
                if self.state.step % cfg.log_every == 0 or self.state.step == cfg.max_steps:
                    log.flush()
                w = window[-cfg.log_every:]
                info = (f"loss {sum(x.loss for x in w) / len(w):.3f} pair {sum(x.pair_acc for x in w) / len(w):.2f}"
                        f" top1 {sum(x.top1 for x in w) / len(w):.2f}")
                if self.eval_records and (self.state.step % cfg.eval_every == 0 or self.state.step == cfg.max_steps):
                    last_eval, eval_step = self.evaluate(), self.state.step
                    log.write(json.dumps({"type": "eval", "step": self.state.step, **last_eval}) + "\n")
                    log.flush()
                if last_eval:
                    info += f" | held-out pair {last_eval['pair_acc']:.2f} top1 {last_eval['top1']:.2f}"
                bar.update(task, completed=self.state.step, info=info)
                if self.state.step % cfg.save_every == 0 or self.state.step == cfg.max_steps:
                    self.save_checkpoint()
                    plot_curves(self.out / "log.jsonl", self.out / "curves.png")
        if stopped != "max_steps" and self.eval_records and eval_step != self.state.step:
            last_eval = self.evaluate()  # a step this run just evaluated is not evaluated (and logged) twice
            log.write(json.dumps({"type": "eval", "step": self.state.step, **last_eval}) + "\n")
        log.close()
        plot_curves(self.out / "log.jsonl", self.out / "curves.png")
        return {"step": self.state.step, "seen": self.state.seen, "skipped": self.state.skipped,
                "stopped": stopped, "seconds": time.perf_counter() - t_start, "eval": last_eval}

    def _trim_log(self, step: int) -> None:
        """Keep only log lines up to ``step`` (what the resumed state has seen), so a resumed or
        restarted run never shows steps twice."""
        trim_log(self.out / "log.jsonl", step)

    # ------------------------------------------------------------------ checkpoints
    def latest_checkpoint(self) -> Path | None:
        return latest_checkpoint(self.out)

    def save_checkpoint(self) -> Path:
        """Adapter, head, optimizer, scheduler, data position and RNG states, written atomically."""
        import torch
        from peft import get_peft_model_state_dict
        from safetensors.torch import save_file

        final = self.out / f"checkpoint-{self.state.step}"
        tmp = self.out / f".checkpoint-{self.state.step}.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        save_file({k: v.detach().contiguous() for k, v in get_peft_model_state_dict(self.peft_model).items()},
                  str(tmp / "adapter.safetensors"))
        save_head(self.head, tmp / "head.safetensors")
        torch.save({"optimizer": self.optimizer.state_dict(), "scheduler": self.scheduler.state_dict(),
                    "torch_rng": torch.get_rng_state(), "python_rng": random.getstate()},
                   tmp / "trainer_state.pt")
        (tmp / "state.json").write_text(json.dumps({"step": self.state.step, "seen": self.state.seen,
                                                    "skipped": self.state.skipped,
                                                    "config": self.config.to_dict()}, indent=1))
        shutil.rmtree(final, ignore_errors=True)
        os.replace(tmp, final)
        prune_checkpoints(self.out, self.config.keep_checkpoints)
        return final

    def load_checkpoint(self, path: str | Path) -> None:
        import torch
        from peft import set_peft_model_state_dict
        from safetensors.torch import load_file

        path = Path(path)
        try:
            st = json.loads((path / "state.json").read_text())
            set_peft_model_state_dict(self.peft_model, load_file(str(path / "adapter.safetensors")))
            head = load_head(path / "head.safetensors", self.model.config.vocab_size)
            self.head.load_state_dict(head.state_dict())
            ts = torch.load(path / "trainer_state.pt", weights_only=False)
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            raise CheckpointError(f"cannot resume from {path}: {type(exc).__name__}: {exc}") from exc
        self.optimizer.load_state_dict(ts["optimizer"])
        self.scheduler.load_state_dict(ts["scheduler"])
        torch.set_rng_state(ts["torch_rng"])
        random.setstate(ts["python_rng"])
        self.state.step, self.state.seen, self.state.skipped = st["step"], st["seen"], st["skipped"]

    # ------------------------------------------------------------------ export
    def export(self, directory: str | Path, *, provenance: dict[str, Any] | None = None) -> Path:
        """Write a trained verifier (what ``load_verifier`` / ``--verifier PATH`` read)."""
        from droidverify.agents.verifier.trained import save_verifier

        return save_verifier(directory, peft_model=self.peft_model, head=self.head, llm=self.llm,
                             config=self.config.to_dict(), provenance=provenance)


# (log key, label) pairs plotted on the right panel: training lines smoothed, held-out lines as markers
P3_TRAIN_LINES = (("pair_acc", "train pairwise acc"), ("top1", "train top-1"))
P3_EVAL_LINES = (("pair_acc", "held-out pairwise acc"), ("top1", "held-out top-1"))


def plot_curves(log_file: str | Path, png: str | Path, *,
                train_lines: Sequence[tuple[str, str]] = P3_TRAIN_LINES,
                eval_lines: Sequence[tuple[str, str]] = P3_EVAL_LINES, window: int = 20) -> None:
    """A trainer's ``log.jsonl`` as a PNG: smoothed training loss on the left; on the right the
    ``train_lines`` of the training rows (smoothed over ``window`` steps) and the ``eval_lines`` of the
    held-out rows, against optimizer steps. Written atomically; nothing is written before a training row."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    train, ev = [], []
    for line in Path(log_file).read_text(encoding="utf-8").splitlines():
        try:
            d = json.loads(line)
        except ValueError:
            continue
        (train if d.get("type") == "train" else ev).append(d)
    if not train:
        return

    def smooth(xs: list[float]) -> list[float]:
        out, acc = [], []
        for x in xs:
            acc.append(x)
            acc = acc[-window:]
            out.append(sum(acc) / len(acc))
        return out

    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    steps = [d["step"] for d in train]
    ax[0].plot(steps, smooth([d["loss"] for d in train]), label="train loss (smoothed)")
    ax[0].set_xlabel("optimizer step")
    ax[0].legend()
    for key, label in train_lines:
        ax[1].plot(steps, smooth([d[key] for d in train]), label=label)
    for (key, label), marker in zip(eval_lines, ("o-", "s-", "^-", "d-")):
        rows = [d for d in ev if key in d]
        if rows:
            ax[1].plot([d["step"] for d in rows], [d[key] for d in rows], marker, label=label)
    ax[1].set_ylim(0, 1)
    ax[1].set_xlabel("optimizer step")
    ax[1].legend(loc="lower right")
    fig.tight_layout()
    tmp = Path(png).with_suffix(".tmp.png")
    fig.savefig(tmp, dpi=90)
    plt.close(fig)
    os.replace(tmp, png)


def trim_log(path: Path, step: int) -> None:
    """Keep only the lines of a trainer's ``log.jsonl`` up to ``step`` (what a resumed state has seen)."""
    if not path.exists():
        return
    kept = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            if json.loads(line).get("step", 0) <= step:
                kept.append(line)
        except ValueError:
            continue  # a line torn by a crash
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(x + "\n" for x in kept), encoding="utf-8")
    os.replace(tmp, path)


def latest_checkpoint(out: Path) -> Path | None:
    """The ``checkpoint-N`` directory with the highest N in ``out`` (None: none yet)."""
    cks = sorted(out.glob("checkpoint-*"), key=lambda p: int(p.name.split("-")[1]))
    return cks[-1] if cks else None


def prune_checkpoints(out: Path, keep: int) -> None:
    """Delete all but the ``keep`` newest ``checkpoint-N`` directories in ``out``."""
    cks = sorted(out.glob("checkpoint-*"), key=lambda p: int(p.name.split("-")[1]))
    for old in cks[:-keep]:
        shutil.rmtree(old, ignore_errors=True)
