"""Test doubles for the compact verifier: a deterministic stand-in for the sentence encoder."""

from __future__ import annotations

import hashlib

import numpy as np

from droidverify.llm.embeddings import TextEncoder


class HashEmbedder:
    """``encode`` like SentenceTransformer's: unit vectors from a hash of each word (so strings that
    share words are close), no model load."""

    def __init__(self, dim: int = 32) -> None:
        self.dim = dim
        self.calls = 0

    def get_sentence_embedding_dimension(self) -> int:
        return self.dim

    def encode(self, texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False):
        self.calls += 1
        out = np.zeros((len(texts), self.dim), np.float32)
        for i, t in enumerate(texts):
            for w in (t or "").lower().split() or [""]:
                h = hashlib.sha256(w.encode()).digest()
                out[i] += np.frombuffer(h, dtype=np.uint8)[: self.dim].astype(np.float32) - 127.5
            out[i] /= np.linalg.norm(out[i]) or 1.0
        return out


def hash_encoder(dim: int = 32) -> TextEncoder:
    return TextEncoder(HashEmbedder(dim))


COMPACT_TEMPLATES = ("contacts_add_contact", "clock_create_alarm", "settings_wifi_toggle")
SMALL_NET = {"d_model": 32, "heads": 4, "ff": 64, "layers": 1, "dropout": 0.0, "batch_size": 8, "learning_rate": 3e-3}


def compact_records() -> list:
    """The oracle's records of three short templates at seed 0 (what the compact trainers' tests train on)."""
    from droidverify.tasks import registry
    from droidverify.training import collect
    from droidverify.training.loop import sim_apps

    tasks = [registry.get_template(t).instantiate(0) for t in COMPACT_TEMPLATES]
    return list(collect(tasks, split_of=registry.split_of, apps=sim_apps()))


def small_config(cls: type, tmp_path, records, **kw):
    """A ``cls`` (CompactConfig or a subclass) for a small network on ``records``, written to tmp_path."""
    from droidverify.training import write_records

    write_records(tmp_path / "train.jsonl", records)
    return cls(output_dir=str(tmp_path / "out"), train_file=str(tmp_path / "train.jsonl"),
               eval_file=str(tmp_path / "train.jsonl"), **{**SMALL_NET, **kw})
