"""Training the LLM judge (``rewards.llm_judge``; issue 21, item 2): a LoRA adapter and V-Droid's
score head on a local causal LM, trained as the verifier is (``training.p3``: peft LoRA on the last
layers, a linear head over the next-token logits initialised to logit(Yes) - logit(No), so the
untrained judge is exactly the scored untrained judge) with a class-balanced binary cross-entropy on
checker labels (config dataclass + trainer, as TRL splits them).

Data: the labelled sets the compact judge trains on (``droidverify labelled-set``, ``train
judge-data``): TRAIN templates only (a set of another split is refused); a held-out set of
validation templates is only measured. ``passive`` learns the checker label of every episode,
``evidence`` the evidence label of every submit episode (SmartSnap format failures are failures
without scoring, as the judge treats them), ``both`` one adapter on the two prompts with a
threshold each. A slice of the train templates (``dev_fraction``, whole templates) is held out of
training and the F1-best threshold is chosen on it.

One example per forward (prompts are 1-2k tokens; on a CPU a batch would only pad),
``batch_size`` examples per optimizer step. Resumable checkpoints (adapter, head, optimizer,
scheduler, RNG, data position), ``log.jsonl``, ``curves.png``, ``result.json``; ``export`` writes a
judge directory that ``droidverify judge --method lora --judge-model DIR`` loads.
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from droidverify.errors import (
    CheckpointError,
    JudgeInputError,
    LabelledSetError,
    TrainingDataError,
    TrainingError,
)
from droidverify.llm.base import Messages
from droidverify.rewards.compact_judge import SETTINGS
from droidverify.rewards.llm_judge import DEFAULT_MAX_CHARS, DEFAULT_MAX_SCREEN_CHARS, judge_chat
from droidverify.training.judge import (
    TRAIN_SETTINGS,
    check_set,
    classify,
    dev_templates,
    thresholds_by_setting,
)
from droidverify.training.p3 import (
    LORA_TARGETS,
    _layers_to_transform,
    latest_checkpoint,
    plot_curves,
    prune_checkpoints,
    trim_log,
)

__all__ = ["LLMJudgeConfig", "LLMJudgeExample", "LLMJudgeTrainer", "read_examples"]


@dataclass
class LLMJudgeConfig:
    """What an LLM-judge training run does (saved with every checkpoint and in judge.json)."""

    output_dir: str
    train_file: str
    eval_file: str | None = None
    setting: str = "passive"  # passive | evidence | both
    model: str | None = None  # None: the bundled SmolLM2-135M-Instruct
    dtype: str = "auto"
    device: str = "cpu"
    lora_r: int = 16
    lora_alpha: int = 32
    lora_dropout: float = 0.0
    lora_targets: tuple[str, ...] = LORA_TARGETS
    lora_layers: int | None = 6  # the last N layers (None: all); the verifier's CPU recipe
    head: str = "linear"
    # The verifier's CPU rates: the linear head over ~49k logits moves a score by ~lr * 1e4 per step
    # (training.p3), so it trains at 1e-5 while the adapter trains at 1e-3.
    learning_rate: float = 1e-3
    head_learning_rate: float = 1e-5
    weight_decay: float = 0.0
    warmup_steps: int = 10
    max_steps: int = 300
    batch_size: int = 4  # examples per optimizer step (one forward each)
    max_minutes: float | None = None
    balance: bool = True  # weigh the classes equally
    max_screen_chars: int = DEFAULT_MAX_SCREEN_CHARS
    max_chars: int = DEFAULT_MAX_CHARS
    max_prompt_tokens: int = 2000  # longer prompts are left out of training (counted)
    dev_fraction: float = 0.15
    max_dev_items: int = 300  # dev examples scored to choose the threshold (a CPU forward each)
    max_eval_items: int = 300  # held-out examples measured
    max_train_items: int | None = None
    hostile_items: int = 10  # held-out episodes each hostile text is put on (0: no hostile check)
    eval_every: int | None = None  # measure the dev examples every N steps (None: at the end only)
    # Before the first step, the untrained judge (= the scored untrained judge of the same prompt) gets
    # its own dev threshold and held-out metrics: the baseline the trained judge is compared with.
    measure_untrained: bool = True
    save_every: int = 25
    log_every: int = 5
    keep_checkpoints: int = 2
    seed: int = 0

    def validate(self) -> None:
        if self.setting not in TRAIN_SETTINGS:
            raise TrainingError(f"setting must be one of {', '.join(TRAIN_SETTINGS)}, got {self.setting!r}")
        from droidverify.agents.verifier.head import HEAD_KINDS

        if self.head not in HEAD_KINDS:
            raise TrainingError(f"head must be one of {HEAD_KINDS}, got {self.head!r}")
        for name in ("max_steps", "batch_size", "lora_r", "save_every", "log_every", "keep_checkpoints",
                     "max_prompt_tokens", "max_dev_items", "max_eval_items", "max_screen_chars", "max_chars"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise TrainingError(f"{name} must be a positive int, got {v!r}")
        if not isinstance(self.hostile_items, int) or self.hostile_items < 0:
            raise TrainingError(f"hostile_items must be an int >= 0, got {self.hostile_items!r}")
        for name in ("lora_layers", "max_train_items", "eval_every"):
            v = getattr(self, name)
            if v is not None and (not isinstance(v, int) or v < 1):
                raise TrainingError(f"{name} must be a positive int or None, got {v!r}")
        if self.learning_rate <= 0 or self.head_learning_rate < 0 or not 0 <= self.lora_dropout < 1 \
                or not 0 <= self.dev_fraction < 1:
            raise TrainingError("learning_rate must be > 0, head_learning_rate >= 0, lora_dropout and "
                                "dev_fraction in [0, 1)")

    @property
    def settings(self) -> tuple[str, ...]:
        return SETTINGS if self.setting == "both" else (self.setting,)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["lora_targets"] = list(self.lora_targets)
        return d


@dataclass
class LLMJudgeExample:
    """One episode in one setting as the LLM judge reads it, with its labels."""

    item_id: str
    template: str
    variant: str
    setting: str
    chat: Messages
    label: bool  # what the setting learns: the checker label (passive) or the evidence label
    checker: bool


@dataclass
class ReadExamples:
    examples: list[LLMJudgeExample] = field(default_factory=list)
    format_failures: list[tuple[str, str, bool, bool]] = field(default_factory=list)  # id, variant, label, checker
    header: dict[str, Any] = field(default_factory=dict)


def read_examples(path: str | Path, settings: Sequence[str], *, max_screen_chars: int = DEFAULT_MAX_SCREEN_CHARS,
                  max_chars: int = DEFAULT_MAX_CHARS, limit: int | None = None) -> ReadExamples:
    """A labelled set's episodes as the judge's chats (``rewards.llm_judge.judge_chat``) per setting."""
    from droidverify.rewards.labelled import iter_set, read_header

    out = ReadExamples(header=read_header(path))
    for item in iter_set(path):
        for setting in settings:
            label = item.label if setting == "passive" else item.evidence_label
            if label is None:
                continue
            chat = judge_chat(item.trajectory, setting, max_screen_chars=max_screen_chars, max_chars=max_chars)
            if chat is None:
                out.format_failures.append((item.id, item.variant, bool(label), item.label))
                continue
            out.examples.append(LLMJudgeExample(item.id, item.template, item.variant, setting, chat, bool(label),
                                                item.label))
        if limit is not None and len(out.examples) >= limit:
            break
    return out


@dataclass
class _State:
    step: int = 0
    seen: int = 0  # train examples consumed (epoch * n + position)
    skipped_long: int = 0


class LLMJudgeTrainer:
    """Trains an LLM judge (LoRA + score head); ``train()`` resumes from the newest checkpoint.
    ``llm``: a ``LocalLLM`` to train (loaded from the config when None)."""

    def __init__(self, config: LLMJudgeConfig, llm: Any = None, *, log: Callable[[str], None] | None = None) -> None:
        import torch
        from peft import LoraConfig, get_peft_model

        from droidverify.agents.verifier.head import make_head

        config.validate()
        self.config = config
        self.out = Path(config.output_dir)
        self.out.mkdir(parents=True, exist_ok=True)
        self.say = log or (lambda msg: None)
        self._load_data()
        if llm is None:
            from droidverify.llm.local import LocalLLM

            llm = LocalLLM(config.model, dtype=config.dtype, device=config.device, seed=config.seed)
        self.llm = llm
        torch.manual_seed(config.seed)
        model = llm.model
        lcfg = LoraConfig(r=config.lora_r, lora_alpha=config.lora_alpha, lora_dropout=config.lora_dropout,
                          target_modules=list(config.lora_targets), bias="none",
                          layers_to_transform=_layers_to_transform(model.config.num_hidden_layers, config.lora_layers))
        for p in model.parameters():
            p.requires_grad_(False)
        self.peft_model = get_peft_model(model, lcfg)
        self.model = model
        yes_id, no_id = llm.target_ids(("Yes", "No"))
        self.head = make_head(config.head, model.config.vocab_size, yes_id, no_id).to(llm.device)
        lora = [p for n, p in model.named_parameters() if "lora_" in n]
        for p in lora:
            p.requires_grad_(True)
        groups = [{"params": lora, "lr": config.learning_rate}]
        head_params = list(self.head.parameters())
        if head_params and config.head_learning_rate > 0:
            groups.append({"params": head_params, "lr": config.head_learning_rate})
        else:
            for p in head_params:
                p.requires_grad_(False)
        self.optimizer = torch.optim.AdamW(groups, weight_decay=config.weight_decay)
        warm, total = max(1, config.warmup_steps), config.max_steps

        def schedule(step: int) -> float:  # linear warm-up, then cosine to 10%
            if step < warm:
                return (step + 1) / warm
            frac = min(1.0, (step - warm) / max(1, total - warm))
            return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * frac))

        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, schedule)
        self.state = _State()
        self.thresholds: dict[str, float] = {}
        self._ids: dict[int, list[int]] = {}

    # ---- data -------------------------------------------------------------------------------
    def _load_data(self) -> None:
        from droidverify.rewards.scoring import require_train_split

        cfg = self.config
        try:  # a judge is trained and its threshold chosen on train templates only
            require_train_split(check_set(cfg.train_file), cfg.train_file)
            train = read_examples(cfg.train_file, cfg.settings, max_screen_chars=cfg.max_screen_chars,
                                  max_chars=cfg.max_chars, limit=cfg.max_train_items)
            held_out = None
            if cfg.eval_file:
                check_set(cfg.eval_file)
                held_out = read_examples(cfg.eval_file, cfg.settings, max_screen_chars=cfg.max_screen_chars,
                                         max_chars=cfg.max_chars)
        except (JudgeInputError, LabelledSetError) as exc:
            raise TrainingDataError(str(exc)) from None
        if not train.examples:
            raise TrainingDataError(f"{cfg.train_file}: no episode to train the {cfg.setting} setting on")
        if held_out is not None:
            if held_out.header.get("split") == "test":
                raise TrainingDataError(f"{cfg.eval_file} is a test set: measure on validation templates")
            overlap = {e.template for e in held_out.examples} & {e.template for e in train.examples}
            if overlap:
                raise TrainingDataError(f"the held-out set shares templates with the train set: {sorted(overlap)[:5]}")
        held = dev_templates((e.template for e in train.examples), cfg.dev_fraction, cfg.seed)
        self.train_examples = [e for e in train.examples if e.template not in held]
        dev = [e for e in train.examples if e.template in held]
        random.Random(f"dev:{cfg.seed}").shuffle(dev)
        self.dev_examples = dev[: cfg.max_dev_items]
        self.held_out = held_out
        if held_out is not None:
            ev = list(held_out.examples)
            random.Random(f"eval:{cfg.seed}").shuffle(ev)
            held_out.examples = ev[: cfg.max_eval_items]
        if not self.train_examples:
            raise TrainingDataError("every train template went to the dev slice: lower dev_fraction")
        self.order = list(range(len(self.train_examples)))
        random.Random(cfg.seed).shuffle(self.order)
        positives = sum(e.label for e in self.train_examples)
        n = len(self.train_examples)
        self.weights = {True: n / (2 * positives) if cfg.balance and positives else 1.0,
                        False: n / (2 * (n - positives)) if cfg.balance and n > positives else 1.0}
        self.data_stats = {"train_examples": n, "train_successes": positives, "dev_examples": len(self.dev_examples),
                           "dev_templates": sorted(held), "train_format_failures": len(train.format_failures),
                           "eval_examples": len(held_out.examples) if held_out else 0}
        self.say(f"{n} train examples ({positives} successes) / {len(self.dev_examples)} dev (threshold; "
                 f"{len(held)} templates) / {self.data_stats['eval_examples']} held-out")

    # ---- scoring ----------------------------------------------------------------------------
    def _token_ids(self, chat: Messages) -> list[int]:
        return self.llm.tokenize(self.llm.render_chat(list(chat), add_generation_prompt=True))

    def _score(self, ids: list[int]) -> Any:
        """The head's score of the next token after ``ids`` (with gradients when training)."""
        import torch

        hidden = self.model.get_decoder()(input_ids=torch.tensor([ids], device=self.llm.device)).last_hidden_state
        return self.head(self.llm._head(hidden[:, -1])).reshape(())

    def p_success(self, examples: Sequence[LLMJudgeExample]) -> list[float]:
        """P(success) of each example with the current adapter and head, as the judge computes it."""
        import torch

        self.model.eval()
        out = []
        t0 = last = time.perf_counter()
        with torch.inference_mode():
            for e in examples:
                s = float(self._score(self._token_ids(e.chat)))
                out.append(1.0 / (1.0 + math.exp(-s)) if s > -700 else 0.0)
                if time.perf_counter() - last > 60:
                    last = time.perf_counter()
                    self.say(f"  scored {len(out)}/{len(examples)} ({last - t0:.0f}s)")
        self.model.train()
        return out

    def train_step(self) -> dict[str, float]:
        import torch

        cfg = self.config
        self.model.train()
        self.optimizer.zero_grad(set_to_none=True)
        losses, correct, used = [], 0, 0
        while used < cfg.batch_size:
            idx = self.order[self.state.seen % len(self.order)]
            if self.state.seen and self.state.seen % len(self.order) == 0:
                random.Random(f"{cfg.seed}:{self.state.seen}").shuffle(self.order)  # a new epoch
            self.state.seen += 1
            e = self.train_examples[idx]
            ids = self._ids.get(idx) or self._token_ids(e.chat)
            self._ids[idx] = ids
            if len(ids) > cfg.max_prompt_tokens:
                self.state.skipped_long += 1
                if self.state.skipped_long > 10 * len(self.order):
                    raise TrainingDataError(f"every prompt is longer than max_prompt_tokens={cfg.max_prompt_tokens}")
                continue
            score = self._score(ids)
            y = torch.tensor(float(e.label), device=score.device)
            loss = torch.nn.functional.binary_cross_entropy_with_logits(score, y) * self.weights[e.label]
            (loss / cfg.batch_size).backward()
            losses.append(float(loss.detach()))
            correct += (float(score.detach()) >= 0) == e.label
            used += 1
        self.optimizer.step()
        self.scheduler.step()
        self.state.step += 1
        return {"loss": sum(losses) / len(losses), "accuracy": correct / used}

    # ---- the run ----------------------------------------------------------------------------
    def train(self, *, resume: bool = True) -> dict[str, Any]:
        """Train to ``max_steps`` (or ``max_minutes``), choose the thresholds on the dev templates,
        measure the held-out set; writes ``result.json`` and returns it."""
        cfg = self.config
        (self.out / "config.json").write_text(json.dumps(cfg.to_dict(), indent=1))
        ckpt = latest_checkpoint(self.out) if resume else None
        if ckpt is not None:
            self.load_checkpoint(ckpt)
            self.say(f"resumed from {ckpt.name}")
        untrained_file = self.out / "untrained.json"
        if cfg.measure_untrained and self.state.step == 0:
            self.say("measuring the untrained judge (the baseline)")
            untrained = {"thresholds": self.choose_thresholds(), "eval": self.evaluate()}
            self.thresholds = {}
            untrained_file.write_text(json.dumps(untrained, indent=1))
        trim_log(self.out / "log.jsonl", self.state.step)
        stopped, t0 = "max_steps", time.perf_counter()
        with open(self.out / "log.jsonl", "a", encoding="utf-8") as log:
            window: list[dict[str, float]] = []
            while self.state.step < cfg.max_steps:
                if cfg.max_minutes is not None and time.perf_counter() - t0 > 60 * cfg.max_minutes:
                    stopped = "time budget"
                    break
                t = time.perf_counter()
                m = self.train_step()
                window.append(m)
                log.write(json.dumps({"type": "train", "step": self.state.step, **m,
                                      "lr": self.scheduler.get_last_lr()[0], "seconds": time.perf_counter() - t,
                                      "seen": self.state.seen}) + "\n")
                if self.state.step % cfg.log_every == 0:
                    w = window[-cfg.log_every:]
                    self.say(f"step {self.state.step}/{cfg.max_steps}: loss {sum(x['loss'] for x in w) / len(w):.3f} "
                             f"accuracy {sum(x['accuracy'] for x in w) / len(w):.2f} "
                             f"({time.perf_counter() - t0:.0f}s)")
                    log.flush()
                if cfg.eval_every and self.state.step % cfg.eval_every == 0 and self.dev_examples:
                    log.write(json.dumps({"type": "dev", "step": self.state.step, **self._dev_metrics()}) + "\n")
                    log.flush()
                if self.state.step % cfg.save_every == 0 or self.state.step == cfg.max_steps:
                    self.save_checkpoint()
                    plot_llm_judge_curves(self.out / "log.jsonl", self.out / "curves.png")
        self.save_checkpoint()
        plot_llm_judge_curves(self.out / "log.jsonl", self.out / "curves.png")
        result = {"step": self.state.step, "stopped": stopped, "seconds_training": round(time.perf_counter() - t0, 1),
                  "skipped_long_prompts": self.state.skipped_long, "data": self.data_stats,
                  "thresholds": self.choose_thresholds(), "eval": self.evaluate()}
        if cfg.hostile_items:
            result["hostile"] = self.hostile()
        if untrained_file.exists():
            result["untrained"] = json.loads(untrained_file.read_text())
        (self.out / "result.json").write_text(json.dumps(result, indent=1))
        return result

    def _dev_metrics(self) -> dict[str, Any]:
        from droidverify.rewards.metrics import roc_auc

        scores = self.p_success(self.dev_examples)
        labels = [e.label for e in self.dev_examples]
        return {"dev_auc": roc_auc(scores, labels), **{f"dev_{k}": v for k, v in classify(scores, labels, 0.5).items()}}

    def choose_thresholds(self) -> dict[str, Any]:
        """The F1-best threshold per setting on the dev templates (the train examples without them)."""
        pool = self.dev_examples or self.train_examples[: self.config.max_dev_items]
        self.thresholds, out = thresholds_by_setting(self.p_success(pool), pool, self.config.settings,
                                                     "dev templates" if self.dev_examples else "train examples")
        return out

    def evaluate(self) -> dict[str, Any]:
        """Held-out metrics per setting at the chosen thresholds (format failures count as failures)."""
        from droidverify.training.judge import judge_metrics

        if self.held_out is None:
            return {}
        scores = self.p_success(self.held_out.examples)
        out: dict[str, Any] = {}
        for setting in self.config.settings:
            rows = [(e, s) for e, s in zip(self.held_out.examples, scores, strict=True) if e.setting == setting]
            fails = self.held_out.format_failures if setting == "evidence" else []
            out[setting] = judge_metrics([e for e, _ in rows], [s for _, s in rows],  # type: ignore[arg-type]
                                         self.thresholds[setting], fails)
        return out

    def hostile(self) -> dict[str, Any]:
        """Verdict flips of the trained judge when every screen of a held-out episode also shows one
        of ``labelled.HOSTILE_TEXTS`` (a balanced sample of ``hostile_items`` episodes per setting),
        judged by ``rewards.llm_judge.LLMJudge`` itself on the model being trained."""
        from droidverify.rewards.llm_judge import LLMJudge
        from droidverify.training.judge import hostile_episodes, hostile_flips

        cfg = self.config
        if self.held_out is None or not cfg.hostile_items or not self.thresholds:
            return {}
        self.model.eval()
        out: dict[str, Any] = {}
        for setting in cfg.settings:
            trajs = hostile_episodes(self.held_out.examples, cfg.eval_file or "", seed=cfg.seed, setting=setting,
                                     per_label=max(1, cfg.hostile_items // 2))
            judge = LLMJudge(self.llm, self.head, self.thresholds, setting=setting,
                             max_screen_chars=cfg.max_screen_chars, max_chars=cfg.max_chars, digest="training")
            self.say(f"hostile screens: {len(trajs)} {setting} episodes")
            out[setting] = {"episodes": len(trajs), **hostile_flips(judge.judge, trajs)}
        self.model.train()
        return out

    # ---- checkpoints and export -------------------------------------------------------------
    def save_checkpoint(self) -> Path:
        import torch
        from peft import get_peft_model_state_dict
        from safetensors.torch import save_file

        from droidverify.agents.verifier.head import save_head

        final, tmp = self.out / f"checkpoint-{self.state.step}", self.out / f".checkpoint-{self.state.step}.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        save_file({k: v.detach().contiguous() for k, v in get_peft_model_state_dict(self.peft_model).items()},
                  str(tmp / "adapter.safetensors"))
        save_head(self.head, tmp / "head.safetensors")
        torch.save({"optimizer": self.optimizer.state_dict(), "scheduler": self.scheduler.state_dict(),
                    "torch_rng": torch.get_rng_state(), "python_rng": random.getstate(), "order": self.order},
                   tmp / "trainer_state.pt")
        (tmp / "state.json").write_text(json.dumps({**asdict(self.state), "config": self.config.to_dict()}, indent=1))
        shutil.rmtree(final, ignore_errors=True)
        os.replace(tmp, final)
        prune_checkpoints(self.out, self.config.keep_checkpoints)
        return final

    def load_checkpoint(self, path: str | Path) -> None:
        import torch
        from peft import set_peft_model_state_dict
        from safetensors.torch import load_file

        from droidverify.agents.verifier.head import load_head

        path = Path(path)
        try:
            st = json.loads((path / "state.json").read_text())
            had = {k: v for k, v in st["config"].items() if k not in ("output_dir", "max_steps", "max_minutes")}
            want = {k: v for k, v in self.config.to_dict().items() if k not in ("output_dir", "max_steps", "max_minutes")}
            if had != want:
                diff = sorted(k for k in want if had.get(k) != want[k])
                raise CheckpointError(f"{path} was trained with other settings ({', '.join(diff)}): use another "
                                      "output directory")
            set_peft_model_state_dict(self.peft_model, load_file(str(path / "adapter.safetensors")))
            self.head.load_state_dict(load_head(path / "head.safetensors", self.model.config.vocab_size).state_dict())
            ts = torch.load(path / "trainer_state.pt", weights_only=False)
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            raise CheckpointError(f"cannot resume from {path}: {type(exc).__name__}: {exc}") from exc
        self.optimizer.load_state_dict(ts["optimizer"])
        self.scheduler.load_state_dict(ts["scheduler"])
        torch.set_rng_state(ts["torch_rng"])
        random.setstate(ts["python_rng"])
        self.order = list(ts["order"])
        self.state = _State(step=st["step"], seen=st["seen"], skipped_long=st["skipped_long"])

    def export(self, directory: str | Path, *, provenance: dict[str, Any] | None = None) -> Path:
        """Write the judge directory (adapter in bfloat16, head, judge.json with the thresholds)."""
        import torch
        from safetensors.torch import load_file, save_file

        from droidverify.agents.verifier.head import save_head
        from droidverify.agents.verifier.trained import base_identity
        from droidverify.rewards.llm_judge import write_llm_judge

        if not self.thresholds:
            raise TrainingError("no thresholds yet: train() (or choose_thresholds()) before export")

        def weights(tmp: Path) -> None:
            self.peft_model.save_pretrained(str(tmp / "adapter"))
            f = tmp / "adapter" / "adapter_model.safetensors"
            save_file({k: v.to(torch.bfloat16).contiguous() for k, v in load_file(str(f)).items()}, str(f))
            save_head(self.head, tmp / "head.safetensors")

        config = self.config.to_dict()
        for key in ("output_dir", "train_file", "eval_file"):  # a judge directory names no machine's paths
            config[key] = Path(config[key]).name if config[key] else None
        meta = {"settings": list(self.config.settings), "thresholds": dict(self.thresholds),
                "max_screen_chars": self.config.max_screen_chars, "max_chars": self.config.max_chars,
                "base_model": base_identity(self.llm), "head": self.head.kind, "train_config": config}
        return write_llm_judge(directory, weights=weights, meta=meta, provenance=provenance)


def plot_llm_judge_curves(log_file: str | Path, png: str | Path) -> None:
    """Training loss and accuracy (and dev AUC when measured) against steps, as a PNG."""
    plot_curves(log_file, png, train_lines=(("accuracy", "train accuracy at P=0.5 (smoothed)"),),
                eval_lines=(("dev_auc", "dev ROC AUC"),), window=10)
