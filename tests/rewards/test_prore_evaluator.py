"""ProRe's evaluator agent is a choice (``--evaluator generator|verifier|smartsnap``), built by the
runner's agent factories; scripted LLMs only (no model load)."""

from __future__ import annotations

import pytest
from live_judges import TASK, prore_reply
from rewards_doubles import ScriptedLLM
from typer.testing import CliRunner

from droidverify.agents.generator import GeneratorAgent
from droidverify.agents.selfverify import SelfVerifyingAgent
from droidverify.agents.verifier import VerifierAgent
from droidverify.cli import app
from droidverify.cli.judge import EVALUATORS, JudgeSpec, make_judge
from droidverify.errors import JudgeInputError
from droidverify.rewards.store import JUDGEMENTS_FILE, read_judgements
from droidverify.runner.factories import AgentSpec

REMOTE = "openai:http://127.0.0.1:9/v1#judge"  # never contacted: load_llm is replaced


@pytest.fixture
def loads(monkeypatch) -> list:
    """Every load_llm call (judge and evaluator) gets a scripted LLM; the specs are recorded."""
    calls: list = []

    def load_llm(spec=None, **kw):
        calls.append(spec)
        return ScriptedLLM(reply_fn=prore_reply)

    monkeypatch.setattr("droidverify.llm.registry.load_llm", load_llm)
    return calls


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("ev") / "run"
    r = CliRunner().invoke(app, ["run", "--agent", "oracle", "--tasks", TASK, "--seeds", "0", "--out", str(out),
                                 "--no-progress"])
    assert r.exit_code == 0, r.output
    return out


@pytest.mark.parametrize("evaluator, cls, shared", [("generator", GeneratorAgent, True),
                                                    ("smartsnap", SelfVerifyingAgent, True),
                                                    ("verifier", VerifierAgent, False)])
def test_make_judge_builds_the_chosen_evaluator_with_the_runner_factories(loads, evaluator, cls, shared) -> None:
    judge = make_judge("prore", model=REMOTE, votes=1, max_tokens=64, probes=1, probe_steps=2,
                       evaluator=evaluator)
    assert isinstance(judge.evaluator, AgentSpec) and judge.evaluator.agent == evaluator
    agent = judge.evaluator()
    assert type(agent) is cls
    assert (agent.llm is judge.llm) is shared  # the verifier never shares the judge's model
    assert len(loads) == (1 if shared else 2)


def test_bad_evaluator_is_a_typed_error_before_any_model_loads(loads) -> None:
    with pytest.raises(JudgeInputError, match="unknown ProRe evaluator 'oracle'"):
        make_judge("prore", model=None, votes=1, max_tokens=64, probes=1, probe_steps=2, evaluator="oracle")
    with pytest.raises(JudgeInputError):
        JudgeSpec("prore", evaluator="random")
    assert loads == []
    assert EVALUATORS == ("generator", "verifier", "smartsnap")


@pytest.mark.parametrize("evaluator", ["smartsnap", "verifier"])
def test_judge_command_evaluator_reaches_the_judge(loads, run_dir, tmp_path, evaluator) -> None:
    out = tmp_path / "j.jsonl"
    r = CliRunner().invoke(app, ["judge", "--method", "prore", "--evaluator", evaluator, "--model", REMOTE,
                                 "--probes", "1", "--probe-steps", "2", "--out", str(out), "--no-report",
                                 str(run_dir)])
    assert r.exit_code == 0, r.output
    assert f"evaluator {evaluator}" in r.output
    [j] = read_judgements(out)
    assert j.details["evaluator"] == evaluator and j.details["probe_target"] == "saved_state"
    probe = j.details["probes"][0]
    if evaluator == "verifier":  # the scripted LLM cannot score: the probe records that, the judge goes on
        assert "judges do not score" in probe["error"]
    else:
        assert probe["error"] is None and probe["steps"]


def test_judge_command_default_evaluator_is_the_generator(loads, run_dir, tmp_path) -> None:
    out = tmp_path / "j.jsonl"
    r = CliRunner().invoke(app, ["judge", "--method", "prore", "--probes", "1", "--probe-steps", "1",
                                 "--out", str(out), "--no-report", str(run_dir)])
    assert r.exit_code == 0, r.output
    assert read_judgements(out)[0].details["evaluator"] == "generator"
    assert loads == [None]  # one model: the generator evaluator shares the judge's


def test_judge_command_bad_evaluator_exits_2(loads, run_dir) -> None:
    r = CliRunner().invoke(app, ["judge", "--method", "prore", "--evaluator", "oracle", str(run_dir)])
    assert r.exit_code == 2 and "unknown --evaluator 'oracle'" in r.output
    r = CliRunner().invoke(app, ["judge", "--method", "rule", "--evaluator", "verifier", str(run_dir)])
    assert r.exit_code == 2 and "only to --method prore" in r.output
    assert loads == [] and not (run_dir / JUDGEMENTS_FILE).exists()


def test_run_judge_prore_evaluator(loads, tmp_path) -> None:
    out = tmp_path / "r"
    r = CliRunner().invoke(app, ["run", "--agent", "oracle", "--tasks", TASK, "--out", str(out), "--no-progress",
                                 "--judge", "prore", "--evaluator", "smartsnap", "--probes", "1",
                                 "--probe-steps", "1"])
    assert r.exit_code == 0, r.output
    [j] = read_judgements(out / JUDGEMENTS_FILE)
    assert j.details["evaluator"] == "smartsnap" and j.details["probe_target"] == "live_clone"
    r = CliRunner().invoke(app, ["run", "--agent", "oracle", "--tasks", TASK, "--out", str(tmp_path / "b"),
                                 "--judge", "prore", "--evaluator", "noop"])
    assert r.exit_code == 2 and "unknown --evaluator" in r.output
    r = CliRunner().invoke(app, ["run", "--agent", "oracle", "--tasks", TASK, "--out", str(tmp_path / "b"),
                                 "--evaluator", "verifier"])
    assert r.exit_code == 2 and "give --judge" in r.output


def test_the_verifier_evaluator_runs_with_the_memory_its_checkpoint_was_trained_with(loads) -> None:
    from droidverify.agents.verifier.trained import read_verifier_json, shipped_compact_path

    judge = make_judge("prore", model=None, votes=1, max_tokens=64, probes=1, probe_steps=2, evaluator="verifier")
    spec = judge.evaluator
    assert spec.verifier is not None  # no model named: the shipped compact verifier
    assert spec.memory == read_verifier_json(spec.verifier)["memory"] == read_verifier_json(shipped_compact_path())["memory"]
    generator = make_judge("prore", model=REMOTE, votes=1, max_tokens=64, probes=1, probe_steps=2,
                           evaluator="generator")
    assert generator.evaluator.memory == "history"  # an untrained agent keeps ProRe's full history
