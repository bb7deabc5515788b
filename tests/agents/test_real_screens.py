"""The real-screen benchmark's labels, manifest and dump store (benchmarks/real_screens/store.py).

The labels decide which verifier runs on real devices by default, so a label that names no
candidate, a dump whose bytes differ from the manifest, or a licence outside the allowed ones must
fail here, not skew a figure."""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
from pathlib import Path

import pytest

from droidverify.actions.model import Action
from droidverify.agents.screen import TEXT_PLACEHOLDER
from droidverify.ui.element import UIElement

STORE = Path(__file__).resolve().parents[2] / "benchmarks" / "real_screens" / "store.py"


def _load(path: Path, name: str):
    """A benchmark script as a module (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def store():
    return _load(STORE, "real_screens_store")


def test_the_committed_labels_and_manifest_are_well_formed(store) -> None:
    sources = store.load_sources()
    items = store.load_items(sources=sources)
    assert len(items) >= 8
    assert {i["screen"] for i in items} <= set(sources)
    # every dump of the manifest is labelled (an unlabelled dump would be fetched for nothing)
    assert set(sources) == {i["screen"] for i in items}
    # a screen in another language carries goals in that language too, not only English ones
    for lang in {e["language"] for e in sources.values()} - {"en"}:
        screens = {i["screen"] for i in items if sources[i["screen"]]["language"] == lang}
        assert screens == {i["screen"] for i in items if i.get("goal_language") == lang}, lang


def test_every_present_dump_is_intact_and_every_item_names_a_candidate(store) -> None:
    sources = store.load_sources()
    items = store.load_items(sources=sources)
    directory = store.default_dir()
    present = [n for n, e in sources.items() if store.locate(e, directory) is not None]
    # the two in ../shared are always there (CI has shared/ beside the clone)
    assert {n for n, e in sources.items() if e.get("in") == "shared"} <= set(present)
    assert store.label_problems(items, sources, directory) == []


def _write(tmp_path: Path, sources: dict, items: list) -> tuple[Path, Path]:
    s, labels = tmp_path / "sources.json", tmp_path / "labels.json"
    s.write_text(json.dumps({"dumps": list(sources.values())}))
    labels.write_text(json.dumps({"items": items}))
    return s, labels


def test_malformed_manifest_and_labels_are_refused_by_name(store, tmp_path: Path) -> None:
    sources = store.load_sources()
    good = copy.deepcopy(next(iter(sources.values())))
    bad = {**good, "license": "GPL-3.0-only"}
    s, _ = _write(tmp_path, {good["file"]: bad}, [])
    with pytest.raises(store.StoreError, match="GPL-3.0-only"):
        store.load_sources(s)
    s, _ = _write(tmp_path, {good["file"]: {k: v for k, v in good.items() if k != "sha256"}}, [])
    with pytest.raises(store.StoreError, match="lacks sha256"):
        store.load_sources(s)
    item = {"screen": good["file"], "goal": "Tap it", "correct": [{"action_type": "click"}]}
    s, labels = _write(tmp_path, {good["file"]: good}, [item])
    with pytest.raises(store.StoreError, match="must name its element"):
        store.load_items(labels, store.load_sources(s))
    item["correct"] = [{"action_type": "click", "txt": "OK"}]
    s, labels = _write(tmp_path, {good["file"]: good}, [item])
    with pytest.raises(store.StoreError, match="unknown keys"):
        store.load_items(labels, store.load_sources(s))
    item = {"screen": "elsewhere.xml", "goal": "Tap it", "correct": [{"action_type": "click", "text": "OK"}]}
    s, labels = _write(tmp_path, {good["file"]: good}, [item])
    with pytest.raises(store.StoreError, match="not in sources.json"):
        store.load_items(labels, store.load_sources(s))
    ok = [{"action_type": "click", "text": "OK"}]
    for item, message in (({"screen": good["file"], "goal": "点一下", "goal_language": "Chinese", "correct": ok},
                           "'Chinese' is not a two- or three-letter language code"),
                          ({"screen": good["file"], "goal": "Tap it", "lang": "en", "correct": ok},
                           r"unknown keys \['lang'\]")):
        s, labels = _write(tmp_path, {good["file"]: good}, [item])
        with pytest.raises(store.StoreError, match=message):
            store.load_items(labels, store.load_sources(s))


def test_fetch_keeps_only_the_recorded_bytes(store, tmp_path: Path) -> None:
    real = b"<hierarchy rotation='0'><node/></hierarchy>"
    entry = {"file": "a__b__screen.xml", "repo": "a/b", "path": "dumps/screen.xml", "commit": "c" * 40,
             "license": "MIT", "app": "x", "language": "en", "device": "phone",
             "sha256": hashlib.sha256(real).hexdigest()}
    other = {**entry, "file": "a__b__other.xml", "path": "dumps/other.xml"}
    urls = []

    def opener(url: str) -> bytes:
        urls.append(url)
        return real if url.endswith("/screen.xml") else b"tampered"

    out = tmp_path / "dumps"
    before, fetched, failures = store.fetch(out, {entry["file"]: entry, other["file"]: other}, opener=opener)
    assert (before, fetched) == (0, 1)
    assert urls[0] == f"https://raw.githubusercontent.com/a/b/{'c' * 40}/dumps/screen.xml"
    assert len(failures) == 1 and "a__b__other.xml" in failures[0] and "sha256" in failures[0]
    assert (out / entry["file"]).read_bytes() == real
    assert not (out / other["file"]).exists() and not list(out.glob("*.part"))
    # a second fetch finds it present; altered bytes on disk are an error, never read as the dump
    assert store.fetch(out, {entry["file"]: entry}, opener=opener)[:2] == (1, 0)
    (out / entry["file"]).write_bytes(real + b" ")
    with pytest.raises(store.StoreError, match="is not the recorded"):
        store.locate(entry, out)


@pytest.mark.parametrize(("action", "element", "spec", "right"), [
    (Action(action_type="click", index=0), UIElement(text="OK"), {"action_type": "click", "text": "OK"}, True),
    (Action(action_type="click", index=0), UIElement(text="OK "), {"action_type": "click", "text": "OK"}, False),
    (Action(action_type="long_press", index=0), UIElement(text="OK"), {"action_type": "click", "text": "OK"}, False),
    (Action(action_type="click", index=0), UIElement(text="OK", resource_id="a:id/no"),
     {"action_type": "click", "text": "OK", "resource_id": "a:id/yes"}, False),
    (Action(action_type="input_text", index=0, text="  Cooking  Videos"), UIElement(resource_id="q"),
     {"action_type": "input_text", "resource_id": "q", "value": "cooking videos"}, True),
    (Action(action_type="input_text", index=0, text="cooking"), UIElement(resource_id="q"),
     {"action_type": "input_text", "resource_id": "q", "value": "cooking videos"}, False),
    # the LLM backbone chooses a placeholder and writes the value after: its target decides
    (Action(action_type="input_text", index=0, text=TEXT_PLACEHOLDER), UIElement(resource_id="q"),
     {"action_type": "input_text", "resource_id": "q", "value": "cooking videos"}, True),
    (Action(action_type="scroll", direction="down"), None, {"action_type": "scroll", "direction": "down"}, True),
    (Action(action_type="scroll", direction="up"), None, {"action_type": "scroll", "direction": "down"}, False),
    (Action(action_type="open_app", app_name="chrome"), None,
     {"action_type": "open_app", "app_name": ["Browser", "Chrome"]}, True),
    (Action(action_type="open_app", app_name="Maps"), None, {"action_type": "open_app", "app_name": "Chrome"}, False),
    (Action(action_type="navigate_back"), None, {"action_type": "navigate_back"}, True),
    (Action(action_type="click", index=3), None, {"action_type": "click", "text": "OK"}, False),
])
def test_matches(store, action: Action, element: UIElement | None, spec: dict, right: bool) -> None:
    assert store.matches(action, element, spec) is right


def test_the_html_page_shows_every_item_with_its_screen_and_picks(store, tmp_path: Path) -> None:
    bench = _load(STORE.parents[1] / "compact_verifier.py", "bench_compact_verifier")
    sources = store.load_sources()
    items = [i for i in store.load_items(sources=sources) if sources[i["screen"]].get("in") == "shared"][:3]
    present = {name: store.locate(e, store.default_dir()) for name, e in sources.items()}
    rows = [{"screen": i["screen"], "goal": i["goal"],
             "v": {"top1": k == 0, "top3": True, "chosen": f"pick <{k}>", "index": 0}} for k, i in enumerate(items)]
    bench._real_html(tmp_path, rows, items, sources, present, ["v"])
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert all(i["goal"].replace("'", "&#39;") in page for i in items)
    assert page.count('class="ok"') == 1 and page.count('class="no"') == len(items) - 1
    assert "pick &lt;1&gt;" in page  # screen text and picks are escaped
    assert sorted(p.name for p in (tmp_path / "screens").iterdir()) == [f"{k:03d}.png" for k in range(len(items))]
