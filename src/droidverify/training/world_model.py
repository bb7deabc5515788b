"""Training SEE's learned world model: a small network over frozen sentence embeddings that predicts
the embedding of the change an action causes, regressed with a cosine loss (config dataclass +
trainer, as TRL splits them).

The trainer is given the model and the data, as TRL's trainers are: the model (``rewards.see.
LearnedWorldModel``, anything with the :class:`WorldModelLike` shape) turns its examples into
tensors; the examples (``rewards.see.WorldExample``: what the model reads of a screen and an action,
and the real change as text) come from simulator transitions (``rewards.see.collect_transitions``).
``droidverify train world-model`` (``cli/train_world.py``) wires the two. Training sits beside
rewards in the package's layers, so this module never imports them.

A run directory holds ``checkpoint.pt`` (resumed from, with the same data order), the embedding
cache (``embeddings-<dtype>.npz``: each distinct string is embedded once across restarts),
``log.jsonl`` (one line per epoch), ``curves.png`` and ``result.json``.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

from droidverify.errors import CheckpointError, TrainingDataError, TrainingError


@dataclass
class WorldModelConfig:
    """What a world-model training run does (every field lands in the exported model's json)."""

    output_dir: str
    epochs: int = 10
    batch_size: int = 64
    learning_rate: float = 2e-3
    weight_decay: float = 0.01
    warmup_ratio: float = 0.03
    max_minutes: float | None = None  # stop (checkpointed) after the epoch that passes this
    eval_examples: int | None = 2000  # held-out examples scored each epoch (None: all)
    seed: int = 0
    # one torch thread: the matrices are small, and on a shared 2-core machine a second thread that
    # waits for a busy core stalls every operation (measured for the compact verifier)
    threads: int = 1

    def validate(self) -> None:
        if not self.output_dir:
            raise TrainingError("output_dir must be given")
        for name in ("epochs", "batch_size", "threads"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise TrainingError(f"{name} must be an integer >= 1, got {getattr(self, name)!r}")
        if not (self.learning_rate > 0 and self.weight_decay >= 0 and 0 <= self.warmup_ratio < 1):
            raise TrainingError("learning_rate must be > 0, weight_decay >= 0 and warmup_ratio in [0, 1)")
        if self.max_minutes is not None and self.max_minutes <= 0:
            raise TrainingError(f"max_minutes must be > 0, got {self.max_minutes}")
        if self.eval_examples is not None and self.eval_examples < 1:
            raise TrainingError(f"eval_examples must be >= 1 or None, got {self.eval_examples}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class WorldModelLike(Protocol):
    """What the trainer needs of a model (``rewards.see.LearnedWorldModel`` has it)."""

    net: Any  # a torch module: net(**inputs) -> [B, E] unit vectors
    encoder: Any  # a TextEncoder: encode(strings), save(path), load(path), dtype

    def strings(self, examples: Sequence[Any]) -> list[str]: ...

    def tensors(self, examples: Sequence[Any]) -> tuple[dict[str, Any], Any]: ...

    def net_config(self) -> dict[str, Any]: ...

    def save(self, directory: str | Path, *, train_config: dict[str, Any] | None = None,
             provenance: dict[str, Any] | None = None) -> Path: ...


# settings a resumed run may change without changing what it trains
_RESUMABLE = ("output_dir", "epochs", "max_minutes", "threads", "eval_examples")


class WorldModelTrainer:
    """Trains ``model.net`` to predict each example's change embedding (loss ``1 - cosine``).

    ``compute_metrics(model) -> dict`` (optional, e.g. SEE's ROC AUC on validation pairs) runs after
    every epoch; its numbers go to the log and the curves. ``log`` receives progress lines."""

    def __init__(self, model: WorldModelLike, args: WorldModelConfig, train_dataset: Sequence[Any],
                 eval_dataset: Sequence[Any] | None = None, *,
                 compute_metrics: Callable[[Any], dict[str, Any]] | None = None,
                 log: Callable[[str], None] | None = None) -> None:
        import torch

        args.validate()
        if not train_dataset:
            raise TrainingDataError("no training examples")
        self.model = model
        self.args = args
        self.train_dataset = list(train_dataset)
        self.eval_dataset = list(eval_dataset or [])[: args.eval_examples]
        self.compute_metrics = compute_metrics
        self.say = log or (lambda msg: None)
        self.out = Path(args.output_dir)
        self.out.mkdir(parents=True, exist_ok=True)
        self.cache_file = self.out / f"embeddings-{getattr(model.encoder, 'dtype', 'float32')}.npz"
        torch.manual_seed(args.seed)
        self.opt = torch.optim.AdamW(model.net.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay)
        self.epoch = 0
        self.step = 0
        self.history: list[dict[str, Any]] = []

    # ---- data ---------------------------------------------------------------------------------
    def embed_all(self) -> dict[str, Any]:
        """Embed every distinct string of both datasets once (cached in the run directory)."""
        t0 = time.perf_counter()
        loaded = self.model.encoder.load(self.cache_file)
        strings = self.model.strings([*self.train_dataset, *self.eval_dataset])
        distinct = len(set(strings))
        self.say(f"{len(self.train_dataset)} train / {len(self.eval_dataset)} eval examples; {distinct} distinct "
                 f"strings ({loaded} cached)")
        last = [time.perf_counter(), time.perf_counter()]

        def progress(done: int, total: int) -> None:
            if time.perf_counter() - last[0] > 15:
                last[0] = time.perf_counter()
                self.say(f"  embedded {done}/{total}")
            if time.perf_counter() - last[1] > 120:  # an interrupted run keeps what it embedded
                last[1] = time.perf_counter()
                self.model.encoder.save(self.cache_file)

        self.model.encoder.cache_texts(strings, progress=progress)
        self.model.encoder.save(self.cache_file)
        return {"train_examples": len(self.train_dataset), "eval_examples": len(self.eval_dataset),
                "distinct_strings": distinct, "seconds_embedding": round(time.perf_counter() - t0, 1)}

    # ---- evaluation ---------------------------------------------------------------------------
    def cosines(self, examples: Sequence[Any], batch: int = 256) -> list[float]:
        """Cosine of the predicted and the real change embedding of each example."""
        import torch

        self.model.net.eval()
        out: list[float] = []
        with torch.inference_mode():
            for i in range(0, len(examples), batch):
                inputs, targets = self.model.tensors(examples[i:i + batch])
                out += (self.model.net(**inputs) * targets).sum(-1).tolist()
        return out

    def evaluate(self, examples: Sequence[Any] | None = None) -> dict[str, Any]:
        """Mean cosine to the real change, and the share of examples above 0.9 / 0.95."""
        examples = self.eval_dataset if examples is None else examples
        cos = self.cosines(examples)
        n = max(len(cos), 1)
        return {"examples": len(cos), "mean_cosine": sum(cos) / n, "above_0.9": sum(c > 0.9 for c in cos) / n,
                "above_0.95": sum(c > 0.95 for c in cos) / n}

    # ---- training -----------------------------------------------------------------------------
    def _lr(self, step: int, total: int) -> float:
        warm = max(1, int(total * self.args.warmup_ratio))
        if step < warm:
            return (step + 1) / warm
        return 0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * min(1.0, (step - warm) / max(1, total - warm))))

    def train(self, *, resume: bool = True) -> dict[str, Any]:
        """Train (resuming from the run directory's checkpoint); returns a summary."""
        import torch

        args = self.args
        torch.set_num_threads(args.threads)
        data_stats = self.embed_all()
        if resume and (self.out / "checkpoint.pt").is_file():
            self.load_checkpoint(self.out / "checkpoint.pt")
            self.say(f"resumed at epoch {self.epoch}")
        per_epoch = math.ceil(len(self.train_dataset) / args.batch_size)
        total = per_epoch * args.epochs
        sched = torch.optim.lr_scheduler.LambdaLR(self.opt, lambda s: self._lr(s, total),
                                                  last_epoch=self.step - 1 if self.step else -1)
        log_path = self.out / "log.jsonl"
        t0 = time.perf_counter()
        stopped = "epochs"
        while self.epoch < args.epochs:
            if args.max_minutes is not None and time.perf_counter() - t0 > args.max_minutes * 60:
                stopped = "time budget"
                break
            order = list(range(len(self.train_dataset)))
            random.Random(f"{args.seed}:{self.epoch}").shuffle(order)  # the same order after a resume
            self.model.net.train()
            tot, n = 0.0, 0
            shown = time.perf_counter()
            for start in range(0, len(order), args.batch_size):
                batch = [self.train_dataset[i] for i in order[start:start + args.batch_size]]
                inputs, targets = self.model.tensors(batch)
                loss = (1.0 - (self.model.net(**inputs) * targets).sum(-1)).mean()
                if not torch.isfinite(loss):
                    raise TrainingError(f"the loss is {float(loss)} at step {self.step}: lower the learning rate")
                self.opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.net.parameters(), 1.0)
                self.opt.step()
                sched.step()
                self.step += 1
                tot += float(loss.detach()) * len(batch)
                n += len(batch)
                if time.perf_counter() - shown > 30:
                    shown = time.perf_counter()
                    self.say(f"  epoch {self.epoch + 1}: {n}/{len(order)} examples, loss {tot / n:.4f}")
            self.epoch += 1
            entry: dict[str, Any] = {"type": "epoch", "epoch": self.epoch, "step": self.step, "loss": tot / max(n, 1),
                                     "lr": sched.get_last_lr()[0], "seconds": round(time.perf_counter() - t0, 1)}
            if self.eval_dataset:
                entry.update({f"eval_{k}": v for k, v in self.evaluate().items() if k != "examples"})
            if self.compute_metrics is not None:
                entry.update(self.compute_metrics(self.model))
            self.history.append(entry)
            with open(log_path, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")
            shown_keys = [k for k in entry if k not in ("type", "epoch", "step", "lr", "seconds")]
            self.say(f"epoch {self.epoch}/{args.epochs}: " + ", ".join(
                f"{k} {entry[k]:.4f}" if isinstance(entry[k], float) else f"{k} {entry[k]}" for k in shown_keys))
            self.save_checkpoint(self.out / "checkpoint.pt")
        plot_world_model_curves(log_path, self.out / "curves.png")
        result: dict[str, Any] = {"epochs": self.epoch, "steps": self.step, "stopped_by": stopped, **data_stats,
                                  "seconds_training": round(time.perf_counter() - t0, 1)}
        if self.eval_dataset:
            result["eval"] = self.evaluate()
        result["train_fit"] = self.evaluate(self.train_dataset[:2000])
        if self.compute_metrics is not None:
            result["metrics"] = self.compute_metrics(self.model)
        (self.out / "result.json").write_text(json.dumps(result, indent=1))
        return result

    # ---- checkpoints ---------------------------------------------------------------------------
    def save_checkpoint(self, path: Path) -> None:
        import torch

        tmp = path.with_name(path.name + ".tmp")
        torch.save({"net": self.model.net.state_dict(), "opt": self.opt.state_dict(), "epoch": self.epoch,
                    "step": self.step, "config": self.args.to_dict(), "net_config": self.model.net_config(),
                    "train_examples": len(self.train_dataset)}, tmp)
        tmp.replace(path)

    def load_checkpoint(self, path: Path) -> None:
        import torch

        try:
            state = torch.load(path, map_location="cpu", weights_only=False)
        except (OSError, RuntimeError, EOFError, ValueError) as exc:
            raise CheckpointError(f"cannot read the checkpoint {path}: {exc}") from exc
        saved = {k: v for k, v in state["config"].items() if k not in _RESUMABLE}
        mine = {k: v for k, v in self.args.to_dict().items() if k in saved}
        diff = sorted(k for k in saved if saved[k] != mine.get(k))
        if state.get("net_config") != self.model.net_config():
            diff.append("network shape")
        if state.get("train_examples") != len(self.train_dataset):
            diff.append("training data")
        if diff:
            raise CheckpointError(f"{path} was written with other settings ({', '.join(diff)}): use another "
                                  "output directory or the same settings")
        self.model.net.load_state_dict(state["net"])
        self.opt.load_state_dict(state["opt"])
        self.epoch, self.step = int(state["epoch"]), int(state["step"])

    def export(self, directory: str | Path, *, provenance: dict[str, Any] | None = None) -> Path:
        """Save the trained model (``model.save``) with this run's settings and ``provenance``."""
        cfg = self.args.to_dict()
        cfg["output_dir"] = self.out.name  # a model file never records a machine's absolute paths
        self.model.net.eval()
        return self.model.save(directory, train_config=cfg, provenance=provenance)


def plot_world_model_curves(log_file: str | Path, png: str | Path) -> None:
    """Loss, held-out cosine and any metric in [0, 1] (e.g. SEE's AUC) against epochs (needs matplotlib)."""
    try:
        import matplotlib
    except ImportError:
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(log_file)
    if not path.is_file():
        return
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    if not rows:
        return
    ep = [r["epoch"] for r in rows]
    fig, ax = plt.subplots(1, 2, figsize=(10, 3.6))
    ax[0].plot(ep, [r["loss"] for r in rows], label="train loss (1 - cosine)")
    ax[0].set_xlabel("epoch")
    ax[0].legend()
    keys = [k for k, v in rows[-1].items() if k not in ("type", "epoch", "step", "loss", "lr", "seconds")
            and isinstance(v, float) and 0.0 <= v <= 1.0]
    for k in keys:
        ax[1].plot(ep, [r.get(k) for r in rows], label=k)
    if keys:
        ax[1].set_ylim(0, 1)
        ax[1].set_xlabel("epoch")
        ax[1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=90)
    plt.close(fig)
