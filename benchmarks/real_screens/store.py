"""The real-screen benchmark's dumps: where they come from, where they are kept, how an item is scored.

The dumps are real ``uiautomator dump`` files from public repositories (``sources.json`` names each
one's repository, commit, path, licence and sha256). The repository holds the labels and this
manifest, never the dumps themselves: the project's rules keep third-party data out of its commits.
Two dumps ship in ../shared/data/uiautomator (``"in": "shared"``); the rest are fetched once, by
repository, commit and path, and checked against their sha256:

    python benchmarks/real_screens/store.py fetch [--dir DIR]        # from GitHub (needs its network)
    python benchmarks/real_screens/store.py fetch --from LOCAL_DIR    # copies of the same bytes
    python benchmarks/real_screens/store.py check                     # present dumps, by hash; labels against them

DIR defaults to ``$DROIDVERIFY_REAL_SCREENS`` or ``~/.cache/droidverify/real_screens``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "sources.json"
LABELS = HERE / "labels.json"
SHARED = HERE.parents[2] / "shared" / "data" / "uiautomator"
RAW_URL = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"
ACTION_KEYS = {"action_type", "text", "content_description", "resource_id", "value", "direction", "app_name"}
ELEMENT_KEYS = ("text", "content_description", "resource_id")
ITEM_KEYS = {"screen", "goal", "goal_language", "correct"}  # goal_language: ISO 639 code, "en" when absent
LICENCES = {"MIT", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "ISC", "MPL-2.0", "CC0-1.0", "Unlicense",
            "CC-BY-4.0", "Zlib"}


class StoreError(Exception):
    """A dump is missing, differs from its recorded hash, or the manifest or labels are malformed."""


def default_dir() -> Path:
    return Path(os.environ.get("DROIDVERIFY_REAL_SCREENS") or Path.home() / ".cache" / "droidverify" / "real_screens")


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def load_sources(path: Path = SOURCES) -> dict[str, dict[str, Any]]:
    """The manifest by file name; every entry checked for the fields provenance needs."""
    entries = json.loads(path.read_text(encoding="utf-8"))["dumps"]
    out: dict[str, dict[str, Any]] = {}
    need = ("file", "repo", "path", "commit", "license", "app", "language", "device", "sha256")
    for i, e in enumerate(entries):
        missing = [k for k in need if not e.get(k)]
        if missing:
            raise StoreError(f"{path.name}: dump #{i} ({e.get('file')!r}) lacks {', '.join(missing)}")
        if e["license"] not in LICENCES:
            raise StoreError(f"{path.name}: {e['file']} is under {e['license']!r}, not one of {sorted(LICENCES)}")
        if e["file"] in out:
            raise StoreError(f"{path.name}: {e['file']} is listed twice")
        out[e["file"]] = e
    return out


def load_items(path: Path = LABELS, sources: dict[str, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The labelled goals, each checked: its screen is in the manifest, its specs are well formed."""
    sources = load_sources() if sources is None else sources
    items = json.loads(path.read_text(encoding="utf-8"))["items"]
    for i, item in enumerate(items):
        where = f"{path.name}: item #{i} ({item.get('goal')!r})"
        if item.get("screen") not in sources:
            raise StoreError(f"{where}: screen {item.get('screen')!r} is not in {SOURCES.name}")
        if not item.get("goal") or not item.get("correct"):
            raise StoreError(f"{where}: needs a goal and at least one correct action")
        extra = set(item) - ITEM_KEYS
        if extra:
            raise StoreError(f"{where}: unknown keys {sorted(extra)}")
        lang = goal_language(item)
        if not isinstance(lang, str) or not re.fullmatch(r"[a-z]{2,3}", lang):
            raise StoreError(f"{where}: goal_language {lang!r} is not a two- or three-letter language code")
        for spec in item["correct"]:
            extra = set(spec) - ACTION_KEYS
            if extra or "action_type" not in spec:
                raise StoreError(f"{where}: spec {spec} has unknown keys {sorted(extra)} or no action_type")
            kind = spec["action_type"]
            if kind in ("click", "long_press", "input_text") and not any(k in spec for k in ELEMENT_KEYS):
                raise StoreError(f"{where}: a {kind} spec must name its element by {', '.join(ELEMENT_KEYS)}")
            if kind == "open_app" and not spec.get("app_name"):
                raise StoreError(f"{where}: an open_app spec needs app_name")
    return items


def locate(entry: dict[str, Any], directory: Path) -> Path | None:
    """The dump's path if present with its recorded bytes; None if absent; StoreError if it differs."""
    path = (SHARED if entry.get("in") == "shared" else directory) / entry["file"]
    if not path.is_file():
        return None
    got = sha256_of(path.read_bytes())
    if got != entry["sha256"]:
        raise StoreError(f"{path}: sha256 {got} is not the recorded {entry['sha256']} ({entry['repo']} "
                         f"{entry['commit'][:12]} {entry['path']})")
    return path


def fetch(directory: Path, sources: dict[str, dict[str, Any]], *, local: Path | None = None,
          opener: Callable[[str], bytes] | None = None) -> tuple[int, int, list[str]]:
    """Brings every dump not yet present into ``directory`` (from ``local`` copies, else by URL) and
    keeps only bytes that match the recorded hash. Returns (present before, fetched, failures)."""
    def download(url: str) -> bytes:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.read()

    opener = opener or download
    directory.mkdir(parents=True, exist_ok=True)
    before = fetched = 0
    failures: list[str] = []
    for name, e in sources.items():
        try:
            if locate(e, directory) is not None:
                before += 1
                continue
        except StoreError as exc:
            failures.append(str(exc))
            continue
        if e.get("in") == "shared":
            failures.append(f"{name}: expected in {SHARED}, which lacks it")
            continue
        try:
            data = (local / name).read_bytes() if local is not None else opener(RAW_URL.format(**e))
        except OSError as exc:
            failures.append(f"{name}: {exc}")
            continue
        got = sha256_of(data)
        if got != e["sha256"]:
            failures.append(f"{name}: the bytes fetched have sha256 {got}, not {e['sha256']}")
            continue
        tmp = directory / (name + ".part")
        tmp.write_bytes(data)
        tmp.replace(directory / name)
        fetched += 1
    return before, fetched, failures


def goal_language(item: dict[str, Any]) -> str:
    """The language an item's goal is written in (English unless it says otherwise)."""
    return item.get("goal_language", "en")


def _app_names(spec: dict[str, Any]) -> list[str]:
    return spec["app_name"] if isinstance(spec["app_name"], list) else [spec["app_name"]]


def element_of(action: Any, elements: Any) -> Any:
    """The element ``action`` targets, or None (no index, or one outside the screen)."""
    i = action.index
    return elements[i] if i is not None and 0 <= i < len(elements) else None


def matches(action: Any, element: Any, spec: dict[str, Any]) -> bool:
    """Whether a candidate ``action`` (on ``element``, its target or None) is the right action ``spec``
    names. Elements are named by exact attributes. A typed value is compared case- and
    space-insensitively; a placeholder ``input_text`` (no value yet: the LLM backbone writes it after
    choosing) matches on its target alone."""
    if action.action_type != spec["action_type"]:
        return False
    kind = spec["action_type"]
    if kind == "open_app":
        return (action.app_name or "").lower() in {n.lower() for n in _app_names(spec)}
    if "direction" in spec and action.direction != spec["direction"]:
        return False
    from droidverify.agents.screen import TEXT_PLACEHOLDER

    if ("value" in spec and action.text not in (None, TEXT_PLACEHOLDER)
            and " ".join(action.text.split()).lower() != " ".join(str(spec["value"]).split()).lower()):
        return False
    if not any(k in spec for k in ELEMENT_KEYS):
        return True
    if element is None:
        return False
    return all((getattr(element, k) or "") == spec[k] for k in ELEMENT_KEYS if k in spec)


def label_problems(items: list[dict[str, Any]], sources: dict[str, dict[str, Any]], directory: Path) -> list[str]:
    """Items whose dump is present but none of whose right actions is among the screen's candidates
    (such an item could never be scored right, whatever the verifier). ``open_app`` is right when
    the app is among those a device run offers; a typed value is the benchmark's coverage, not
    checked here. A right action that names no candidate beside one that does is an alternative
    the extractor does not offer, not a problem."""
    from droidverify.agents.verifier.candidates import extract_candidates
    from droidverify.env.records import Observation
    from droidverify.runner.factories import installed_app_names

    apps = {a.lower() for a in installed_app_names("adb")}
    problems = []
    for item in items:
        path = locate(sources[item["screen"]], directory)
        if path is None:
            continue
        obs = Observation(xml=path.read_text(encoding="utf-8"))
        cands = extract_candidates(obs)  # typed text is a placeholder here: matched on its target
        reachable = False
        for spec in item["correct"]:
            if spec["action_type"] == "open_app":
                reachable |= any(n.lower() in apps for n in _app_names(spec))
            else:
                reachable |= any(matches(c, element_of(c, obs.elements), spec) for c in cands)
        if not reachable:
            problems.append(f"{item['screen']}: {item['goal']!r}: no candidate is any of {item['correct']}")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=("fetch", "check"))
    ap.add_argument("--dir", type=Path, default=None, help="where the fetched dumps are kept")
    ap.add_argument("--from", dest="local", type=Path, default=None,
                    help="copy from this folder (same file names) instead of downloading")
    args = ap.parse_args(argv)
    directory = args.dir or default_dir()
    sources = load_sources()
    items = load_items(sources=sources)
    if args.command == "fetch":
        before, fetched, failures = fetch(directory, sources, local=args.local)
        print(f"{directory}: {before} present, {fetched} fetched, {len(failures)} failed of {len(sources)}")
    else:
        failures = []
        present = 0
        for e in sources.values():
            try:
                present += locate(e, directory) is not None
            except StoreError as exc:
                failures.append(str(exc))
        print(f"{directory}: {present} of {len(sources)} dumps present with their recorded bytes")
        if not failures:
            failures = label_problems(items, sources, directory)
            print(f"labels: {len(failures)} items whose right actions name no candidate")
    for f in failures:
        print("  " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
