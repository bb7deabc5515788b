from __future__ import annotations

import json

from typer.testing import CliRunner

from droidverify.cli import app
from droidverify.rewards.labelled import write_set


def test_judge_a_run_directory_with_the_rule_judge(tmp_path) -> None:
    run = tmp_path / "run"
    r = CliRunner().invoke(app, ["run", "--agent", "oracle", "--tasks", "clock_create_alarm,contacts_add_contact",
                                 "--seeds", "0", "--out", str(run), "--no-progress"])
    assert r.exit_code == 0, r.output
    steps = [json.loads(x) for x in (run / "steps.jsonl").read_text().splitlines()]
    assert sum(s["kind"] == "phone" for s in steps) == 2  # the runner saved each final phone state
    r = CliRunner().invoke(app, ["judge", "--method", "rule", str(run)])
    assert r.exit_code == 0, r.output
    lines = [json.loads(x) for x in (run / "judgements.jsonl").read_text().splitlines()]
    assert {x["components"]["source"] for x in lines} == {"final_phone_state"}
    assert "agreement with the checker" in r.output and "1.000" in r.output
    html = (run / "report.html").read_text()
    assert "judge <b>rule</b>" in html
    # resumable: a second call judges nothing new
    r = CliRunner().invoke(app, ["judge", "--method", "rule", str(run)])
    assert len((run / "judgements.jsonl").read_text().splitlines()) == 2


def test_judge_a_labelled_set_file(tmp_path, labelled_items) -> None:
    path = write_set(list(labelled_items[:8]), tmp_path / "set.jsonl.gz", split="train")
    r = CliRunner().invoke(app, ["judge", "--method", "rule", str(path)])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "set.judgements.jsonl").is_file()
    assert "8 episodes judged" in r.output.replace("\n", " ")


def test_bad_input_is_a_clear_error(tmp_path) -> None:
    r = CliRunner().invoke(app, ["judge", "--method", "vibes", str(tmp_path)])
    assert r.exit_code == 2 and "unknown --method" in r.output
    r = CliRunner().invoke(app, ["judge", str(tmp_path / "nothing")])
    assert r.exit_code == 2 and "does not exist" in r.output
    r = CliRunner().invoke(app, ["judge", str(tmp_path)])
    assert r.exit_code == 2 and "not a run directory" in r.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text("hello\n")
    r = CliRunner().invoke(app, ["judge", str(bad)])
    assert r.exit_code == 2 and "LabelledSetError" in r.output


def test_labelled_set_command(tmp_path) -> None:
    out = tmp_path / "s.jsonl"
    r = CliRunner().invoke(app, ["labelled-set", "--out", str(out), "--n", "10", "--split", "validation"])
    assert r.exit_code == 0, r.output
    header = json.loads(out.read_text().splitlines()[0])
    assert header["n"] == 10 and header["successes"] == 5 and header["split"] == "validation"
    r = CliRunner().invoke(app, ["labelled-set", "--out", str(out), "--n", "9"])
    assert r.exit_code == 2
