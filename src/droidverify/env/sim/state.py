"""A simulated phone's full state as compact, safe text: for saving the final state of an episode.

``encode_phone(phone)`` -> an ASCII string (base64 of zlib-compressed JSON holding the SQLite image
and the navigation/UI state); ``decode_phone(text)`` -> an independent ``Phone`` in exactly that
state. JSON rather than pickle on purpose: a run directory may come from elsewhere, and decoding it
must never execute anything. Damaged or foreign input raises :class:`PhoneStateError`.
"""

from __future__ import annotations

import base64
import binascii
import json
import random
import sqlite3
import zlib
from dataclasses import asdict
from datetime import datetime
from typing import Any

from droidverify.env.sim.phone import DEFAULT_NOW, ORIGIN_KEY, SKIN_KEY, Dialog, Phone, Screen, Snapshot
from droidverify.env.sim.skin import SKIN_COUNT
from droidverify.errors import PhoneStateError

FORMAT = "droidverify-phone-v1"
MAX_DECODED_BYTES = 64 * 1024 * 1024  # a phone image is ~100 KB; refuse decompression bombs


def _to_json(value: Any) -> Any:
    if isinstance(value, Screen):
        return {"__screen__": _to_json(asdict(value))}
    if isinstance(value, Dialog):
        return {"__dialog__": _to_json(asdict(value))}
    if isinstance(value, datetime):
        return {"__datetime__": value.isoformat()}
    if isinstance(value, tuple):
        return {"__tuple__": [_to_json(v) for v in value]}
    if isinstance(value, list):
        return [_to_json(v) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise PhoneStateError(f"phone state has a dict with non-string keys: {list(value)[:3]!r}")
        return {k: _to_json(v) for k, v in value.items()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise PhoneStateError(f"phone state holds a {type(value).__name__}, which cannot be saved")


def _from_json(value: Any) -> Any:
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    if isinstance(value, dict):
        if len(value) == 1:
            (tag, inner), = value.items()
            if tag == "__screen__":
                return Screen(**_from_json(inner))
            if tag == "__dialog__":
                return Dialog(**_from_json(inner))
            if tag == "__datetime__":
                return datetime.fromisoformat(inner)
            if tag == "__tuple__":
                return tuple(_from_json(v) for v in inner)
        return {k: _from_json(v) for k, v in value.items()}
    return value


def encode_phone(phone: Phone) -> str:
    """The phone's complete state (database + navigation + transient UI + RNG) as ASCII text."""
    snap = phone.snapshot()
    payload = {
        "format": FORMAT,
        "db": base64.b64encode(snap.db).decode("ascii"),
        "state": _to_json({k: v for k, v in snap.state.items() if k != "rng"}),
        "rng": _to_json(snap.state["rng"]),
    }
    raw = json.dumps(payload, separators=(",", ":")).encode("utf-8")
    return base64.b64encode(zlib.compress(raw, 6)).decode("ascii")


def decode_phone(text: str) -> Phone:
    """A new, independent phone in the state ``text`` (from :func:`encode_phone`) describes."""
    if not isinstance(text, str) or not text:
        raise PhoneStateError(f"phone state must be a non-empty string, got {type(text).__name__}")
    try:
        packed = base64.b64decode(text.encode("ascii"), validate=True)
        d = zlib.decompressobj()
        raw = d.decompress(packed, MAX_DECODED_BYTES)
        if d.unconsumed_tail:
            raise PhoneStateError(f"phone state expands beyond {MAX_DECODED_BYTES} bytes")
        payload = json.loads(raw)
    except PhoneStateError:
        raise
    except (UnicodeEncodeError, binascii.Error, zlib.error, ValueError) as exc:
        raise PhoneStateError(f"phone state is damaged: {type(exc).__name__}: {exc}") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        fmt = payload.get("format") if isinstance(payload, dict) else None
        raise PhoneStateError(f"not a {FORMAT} phone state (format {fmt!r})")
    try:
        state = _from_json(payload["state"])
        if not isinstance(state, dict) or set(state) - {ORIGIN_KEY, SKIN_KEY} != set(Phone._STATE):
            raise PhoneStateError(f"phone state keys do not match this simulator: {sorted(state)[:20]}")
        origin = state.get(ORIGIN_KEY, {})
        if not (isinstance(origin, dict) and isinstance(origin.get("built_at", DEFAULT_NOW), datetime)
                and isinstance(origin.get("seed_data", True), bool)):
            raise PhoneStateError(f"phone state has a damaged {ORIGIN_KEY!r} entry: {origin!r:.200}")
        skin = state.get(SKIN_KEY, 0)
        if isinstance(skin, bool) or not isinstance(skin, int) or not 0 <= skin <= SKIN_COUNT:
            raise PhoneStateError(f"phone state has a damaged {SKIN_KEY!r} entry: {skin!r:.200}")
        rng = _from_json(payload["rng"])
        state["rng"] = rng
        db = base64.b64decode(payload["db"], validate=True)
        phone = Phone.__new__(Phone)
        phone.conn = sqlite3.connect(":memory:", check_same_thread=False)
        phone.conn.row_factory = sqlite3.Row
        phone.rng = random.Random()
        from droidverify.env.sim.app import installed_apps

        phone.apps = installed_apps()
        phone.restore(Snapshot(db, state))
        phone.conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # a damaged image fails here
    except PhoneStateError:
        raise
    except (KeyError, TypeError, ValueError, binascii.Error, sqlite3.DatabaseError) as exc:
        raise PhoneStateError(f"phone state is damaged: {type(exc).__name__}: {exc}") from None
    return phone
