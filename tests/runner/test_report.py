"""The HTML report: rendered screens per step, verifier score bars, generator attempts, escaping of
untrusted text, robustness to a damaged observation, and rebuilding through ``droidverify report``.

Runs are real: the oracle and agents driven by the deterministic LLM double (tests/agents) on the
simulator through ``run_many``.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))
from agent_doubles import RuleLLM

from droidverify.agents.generator import GeneratorAgent
from droidverify.agents.oracle import OracleAgent
from droidverify.agents.verifier import VerifierAgent
from droidverify.cli import app
from droidverify.cli.run import installed_app_names
from droidverify.env.records import Observation
from droidverify.env.sim import SimEnv
from droidverify.errors import RunError
from droidverify.runner import report as report_mod
from droidverify.runner.report import build_report
from droidverify.runner.run import run_many
from droidverify.tasks import registry

EVIL = "<script>alert(1)</script>"
EVIL_ATTR = '"><img src=x onerror=alert(2)>'


def _sim(task, seed):
    return SimEnv(task=task, seed=seed)


def _lines(path: Path) -> list[dict]:
    return [json.loads(ln) for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]


def _write_lines(path: Path, recs: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")


def _steps(run: Path) -> list[dict]:
    return [r for r in _lines(run / "steps.jsonl") if r["kind"] == "step"]


class ReportParser(HTMLParser):
    """Collects, per step block (``div.step`` with an id ending ``-s<index>``), its images, score
    bars (``div.cand`` with the width of its ``div.fill``) and the text inside it."""

    def __init__(self) -> None:
        super().__init__()
        self.steps: dict[str, dict] = {}
        self.cur: dict | None = None
        self.bar: dict | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "div" and "step" in classes:
            self.cur = None
            if a.get("id"):
                self.cur = self.steps.setdefault(a["id"], {"imgs": [], "bars": [], "text": []})
        if self.cur is None:
            return
        if tag == "img":
            self.cur["imgs"].append(a)
        elif tag == "div" and "cand" in classes:
            self.bar = {"candidate": int(a["data-candidate"]), "score": float(a["data-score"]),
                        "chosen": "chosen" in classes, "width": None}
            self.cur["bars"].append(self.bar)
        elif tag == "div" and "fill" in classes and self.bar is not None and self.bar["width"] is None:
            m = re.fullmatch(r"width: ([0-9.]+)%", a.get("style") or "")
            assert m, a
            self.bar["width"] = float(m.group(1))

    def handle_data(self, data: str) -> None:
        if self.cur is not None:
            self.cur["text"].append(data)


def _parse(path: Path) -> dict[str, dict]:
    p = ReportParser()
    p.feed(path.read_text(encoding="utf-8"))
    return p.steps


def _step_block(blocks: dict[str, dict], rec: dict) -> dict:
    (key,) = [k for k in blocks if k.endswith(f"{rec['episode_id']}-s{rec['index']}")]
    return blocks[key]


@pytest.fixture(scope="module")
def oracle_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("oracle")
    run_many(OracleAgent, [(registry.get_template("contacts_add_contact"), 0)], out, env_factory=_sim,
             progress=False, report=False)
    return out


def _copy(run: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "run"
    shutil.copytree(run, dst)
    return dst


# ------------------------------------------------------------------------------- oracle


def test_each_step_has_its_rendered_screen_with_the_target_outlined(oracle_run: Path, tmp_path: Path) -> None:
    run = _copy(oracle_run, tmp_path)
    path = build_report(run)
    assert path == run / "report.html"
    steps = _steps(run)
    assert len(steps) >= 5
    blocks = _parse(path)
    outlined = 0
    for rec in steps:
        (img,) = _step_block(blocks, rec)["imgs"]
        assert img["src"] == f"screens/rendered/{rec['attempt_id']}/{rec['index']:03d}.png"
        assert img["loading"] == "lazy"
        with Image.open(run / img["src"]) as im:
            im.load()
            assert im.size == (324, 720)  # 1080x2400 at scale 0.3
            rgb = im.convert("RGB")
        action = rec["step"]["action"]
        if action.get("index") is not None:
            # the acted-on element carries the red outline on its left edge
            obs = Observation.from_dict(rec["step"]["observation"])
            b = obs.elements[action["index"]].bbox_pixels
            r, g, bl = rgb.getpixel((int(b.left * 0.3) + 1, int((b.top + b.bottom) / 2 * 0.3)))
            assert r > 180 and g < 120 and bl < 120, (rec["index"], (r, g, bl))
            outlined += 1
    assert outlined >= 2
    (attempt,) = {r["attempt_id"] for r in steps}
    text = path.read_text(encoding="utf-8")
    assert f'src="screens/rendered/{attempt}/final.png"' in text
    with Image.open(run / "screens" / "rendered" / attempt / "final.png") as im:
        im.verify()
    (ep,) = _lines(run / "episodes.jsonl")
    assert html.escape(ep["goal"]) in text and "declared done: yes" in text
    assert "contacts_add_contact" in text and 'class="badge ok">solved' in text
    # the summary tables carry a success bar per group
    assert re.search(r'<td>Contacts</td>.*?class="fill rate" style="width: 100.0%"', text, re.DOTALL)


def test_rebuild_reuses_rendered_files_and_run_many_writes_the_same_report(oracle_run: Path,
                                                                          tmp_path: Path) -> None:
    run = _copy(oracle_run, tmp_path)
    build_report(run)
    png = next((run / "screens" / "rendered").rglob("001.png"))
    png.write_bytes(b"marker")  # a rebuild must not re-render an existing file
    build_report(run)
    assert png.read_bytes() == b"marker"


def test_screens_render_in_worker_processes_when_many(oracle_run: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    run = _copy(oracle_run, tmp_path)
    monkeypatch.setattr(report_mod, "PARALLEL_MIN_JOBS", 1)
    build_report(run, workers=2)
    for rec in _steps(run):
        with Image.open(run / f"screens/rendered/{rec['attempt_id']}/{rec['index']:03d}.png") as im:
            im.verify()


# ------------------------------------------------------------------------------- verifier


def test_verifier_steps_show_score_bars_entropy_and_escape_screen_text(tmp_path: Path) -> None:
    apps = installed_app_names("sim")
    llm = RuleLLM(rules={"open the app": 0.8, "open an app": 0.9, "type text into": 0.97,
                         "Create contact": 0.95},
                  reply_fn=lambda m: "Contacts" if "Which app" in m[-1]["content"] else EVIL)
    run_many(lambda: VerifierAgent(llm, apps=apps), [(registry.get_template("contacts_add_contact"), 0)],
             tmp_path, env_factory=_sim, progress=False, max_steps=4)
    path = tmp_path / "report.html"  # written by run_many itself
    steps = _steps(tmp_path)
    assert [r["step"]["action"]["action_type"] for r in steps] == [
        "open_app", "click", "input_text", "input_text"]
    # The typed text is now on the screen the later steps saw.
    assert "&lt;script&gt;" in steps[3]["step"]["observation"]["xml"]
    blocks = _parse(path)
    for rec in steps:
        info = rec["step"]["agent_info"]
        block = _step_block(blocks, rec)
        bars = block["bars"]
        assert sorted(b["candidate"] for b in bars) == list(range(info["n_candidates"]))
        for b in bars:
            score = info["candidates"][b["candidate"]]["score"]
            assert 0.0 <= score <= 1.0
            assert b["width"] == pytest.approx(100 * score, abs=0.01)
            assert b["score"] == pytest.approx(score, abs=1e-9)
        chosen = [b["candidate"] for b in bars if b["chosen"]]
        assert chosen == [info["chosen"]]
        # bars are in score order, best first
        assert [b["score"] for b in bars[:8]] == sorted((b["score"] for b in bars[:8]), reverse=True)
        text = "".join(block["text"])
        assert f"entropy {info['entropy']:.3f} nats" in text
        assert f"normalised {info['entropy_normalized']:.3f}" in text
        assert len(block["imgs"]) == 1
    raw = path.read_text(encoding="utf-8")
    assert EVIL not in raw and "&lt;script&gt;alert(1)&lt;/script&gt;" in raw
    # the generated completion is shown: raw reply -> value
    assert "completion (input_text)" in raw


# ------------------------------------------------------------------------------- generator


def test_generator_steps_show_every_attempt(tmp_path: Path) -> None:
    replies = [f"I will do it. {EVIL}", 'Open it.\nAction: {"action_type": "open_app", "app_name": "Contacts"}']
    run_many(lambda: GeneratorAgent(RuleLLM(replies=list(replies)), memory="history"),
             [(registry.get_template("contacts_add_contact"), 0)], tmp_path, env_factory=_sim,
             progress=False, max_steps=1)
    (rec,) = _steps(tmp_path)
    attempts = rec["step"]["agent_info"]["attempts"]
    assert len(attempts) == 2 and attempts[0]["error"] and attempts[1]["error"] is None
    block = _step_block(_parse(tmp_path / "report.html"), rec)
    text = "".join(block["text"])
    assert f"attempt 1: {attempts[0]['error']}" in text and "attempt 2: used" in text
    assert replies[0] in text and '"app_name": "Contacts"' in text
    raw = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert EVIL not in raw


# ------------------------------------------------------------------------------- damaged / hostile files


def test_malformed_observations_are_reported_per_step_not_fatal(oracle_run: Path, tmp_path: Path) -> None:
    run = _copy(oracle_run, tmp_path)
    recs = _lines(run / "steps.jsonl")
    steps = [r for r in recs if r["kind"] == "step"]
    steps[1]["step"]["observation"]["xml"] = "<hierarchy><node"
    steps[2]["step"]["observation"]["screen_size"] = ["wide", 2400]
    del steps[3]["step"]["observation"]["xml"]
    _write_lines(run / "steps.jsonl", recs)
    blocks = _parse(build_report(run))
    text = {i: "".join(_step_block(blocks, r)["text"]) for i, r in enumerate(steps)}
    assert "screen unavailable: malformed XML" in text[1] and not _step_block(blocks, steps[1])["imgs"]
    assert "screen unavailable:" in text[2] and "bad screen_size" in text[2]
    assert "screen unavailable:" in text[3] and "no observation XML" in text[3]
    for r in (steps[0], *steps[4:]):
        assert len(_step_block(blocks, r)["imgs"]) == 1


def test_hostile_text_in_every_field_is_escaped(oracle_run: Path, tmp_path: Path) -> None:
    run = _copy(oracle_run, tmp_path)
    hostile = EVIL + EVIL_ATTR
    (ep,) = _lines(run / "episodes.jsonl")
    ep.update(goal=hostile, answer=hostile, params={"name": hostile}, checker_error=hostile,
              agent_error=hostile, termination=hostile, apps=[hostile])
    _write_lines(run / "episodes.jsonl", [ep])
    recs = _lines(run / "steps.jsonl")
    steps = [r for r in recs if r["kind"] == "step"]
    s = steps[0]["step"]
    s.update(raw_output=hostile, error=hostile, action={"action_type": hostile, "text": hostile})
    s["agent_info"] = {
        "candidates": [{"action": hostile, "description": hostile, "score": 0.7},
                       {"action": "{}", "description": "ok", "score": 0.2}],
        "chosen": 0, "argmax": 0, "entropy": 0.6, "entropy_normalized": 0.9, "memory": hostile,
        "completion": {"kind": hostile, "raw": hostile, "value": hostile}, "completion_failures": [
            {"candidate": hostile, "kind": hostile, "error": hostile, "raw": hostile}],
        "traceback": hostile, hostile: hostile}
    # screen text goes into the rendered PNG, never into the HTML
    xml = s["observation"]["xml"]
    s["observation"]["xml"] = re.sub(r'text="[^"]*"', 'text="' + html.escape(hostile) + '"', xml, count=3)
    steps[1]["step"]["agent_info"] = {"attempts": [{"raw": hostile, "error": hostile}]}
    _write_lines(run / "steps.jsonl", recs)
    cfg = json.loads((run / "run.json").read_text())
    cfg["config"] = {hostile: hostile}
    (run / "run.json").write_text(json.dumps(cfg))
    blocks = _parse(build_report(run))
    raw = (run / "report.html").read_text(encoding="utf-8")
    assert "<script>alert" not in raw and "<img src=x" not in raw
    assert raw.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 15
    assert len(_step_block(blocks, steps[0])["imgs"]) == 1  # the hostile screen still rendered


def test_malformed_agent_info_does_not_break_the_report(oracle_run: Path, tmp_path: Path) -> None:
    run = _copy(oracle_run, tmp_path)
    recs = _lines(run / "steps.jsonl")
    steps = [r for r in recs if r["kind"] == "step"]
    steps[0]["step"]["agent_info"] = {"candidates": "not a list", "attempts": 5}
    steps[1]["step"]["agent_info"] = {"candidates": [3, {"score": "high"}, {"score": float("nan")},
                                                     {"score": 0.5, "description": "fine"}], "chosen": "x"}
    steps[2]["step"]["action"] = {"action_type": "click", "index": 999}  # out of range: nothing outlined
    _write_lines(run / "steps.jsonl", recs)
    blocks = _parse(build_report(run))
    bars = _step_block(blocks, steps[1])["bars"]
    assert len(bars) == 4 and [b["width"] for b in bars if b["candidate"] == 3] == [50.0]
    assert not any(b["chosen"] for b in bars)
    assert "index 999 is out of range" in "".join(_step_block(blocks, steps[2])["text"])
    assert len(_step_block(blocks, steps[2])["imgs"]) == 1


def test_learned_head_scores_are_scaled_min_to_max(oracle_run: Path, tmp_path: Path) -> None:
    run = _copy(oracle_run, tmp_path)
    recs = _lines(run / "steps.jsonl")
    step = next(r for r in recs if r["kind"] == "step")
    step["step"]["agent_info"] = {
        "score_kind": "head", "chosen": 1, "argmax": 0, "entropy": 1.0, "entropy_normalized": 0.9,
        "candidates": [{"action": "a", "description": "a", "score": 2.0},
                       {"action": "b", "description": "b", "score": -1.0},
                       {"action": "c", "description": "c", "score": 0.5}]}
    _write_lines(run / "steps.jsonl", recs)
    bars = _step_block(_parse(build_report(run)), step)["bars"]
    assert {b["candidate"]: b["width"] for b in bars} == {0: 100.0, 1: 0.0, 2: 50.0}
    assert [b["candidate"] for b in bars if b["chosen"]] == [1]  # chosen != argmax is shown as chosen


# ------------------------------------------------------------------------------- CLI


def test_cli_rebuilds_the_report_elsewhere_and_ignores_stale_attempts(oracle_run: Path, tmp_path: Path) -> None:
    run = _copy(oracle_run, tmp_path)
    n_steps = len(_steps(run))
    stale = dict(_steps(run)[0], attempt_id="deadbeef0000")
    stale["step"] = dict(stale["step"], raw_output="STALE ATTEMPT")
    with (run / "steps.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(stale) + "\n")  # an interrupted attempt that never finished
    out = tmp_path / "elsewhere" / "r.html"
    res = CliRunner().invoke(app, ["report", str(run), "--out", str(out)])
    assert res.exit_code == 0, res.output
    text = out.read_text(encoding="utf-8")
    assert "STALE ATTEMPT" not in text and "deadbeef0000" not in text
    srcs = re.findall(r'<img src="([^"]+)"', text)
    assert len(srcs) == n_steps + 1  # every step of the finished attempt + its final screen
    for src in srcs:
        with Image.open(out.parent / src) as im:
            im.verify()
    res = CliRunner().invoke(app, ["report", str(run), "--no-screens"])
    assert res.exit_code == 0, res.output
    assert "<img" not in (run / "report.html").read_text(encoding="utf-8")
    assert not (run / "screens").exists()


def test_cli_report_on_a_directory_that_is_not_a_run(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["report", str(tmp_path)])
    assert res.exit_code == 2 and "error:" in res.output and "episodes.jsonl" in res.output
    (tmp_path / "episodes.jsonl").write_text("")
    with pytest.raises(RunError, match="no finished episode"):
        build_report(tmp_path)
