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
