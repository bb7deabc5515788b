"""Issue 23, item 5: one validated configuration per command. ``droidverify run``'s options are one
``RunConfig``; every command maps errors to exit codes through ``cli._common.exit_code``;
``AgentSpec`` takes its options by keyword; the P^3 recipes are ``P3Config`` presets."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from typer.testing import CliRunner

from droidverify.cli import app
from droidverify.cli._common import exit_code
from droidverify.cli._run_config import RunConfig
from droidverify.cli.run import run_command
from droidverify.errors import (
    BackendError,
    CheckpointError,
    LLMUnavailableError,
    RunConfigError,
    RunError,
    TaskError,
)
from droidverify.runner.factories import AgentSpec
from droidverify.training.p3 import P3Config


def test_the_config_takes_exactly_the_commands_options_with_its_defaults() -> None:
    params = inspect.signature(run_command).parameters
    assert set(params) == set(RunConfig.model_fields)
    for name, p in params.items():
        if p.default is not inspect.Parameter.empty:
            assert RunConfig.model_fields[name].default == p.default, name


@pytest.mark.parametrize(("options", "match"), [
    ({"agent": "bogus"}, "unknown --agent"),
    ({"agent": "oracle", "env": "adb"}, "oracle agent needs simulator state"),
    ({"agent": "oracle", "memory": "x"}, "unknown --memory"),
    ({"agent": "oracle", "dtype": "float32"}, "--dtype applies only to a local model"),
    ({"agent": "generator", "dtype": "float32", "model": "openai:http://h/v1"}, "--dtype applies only"),
    ({"agent": "oracle", "max_steps": 0}, "--max-steps must be >= 1"),
    ({"agent": "oracle", "out": "  "}, "--out is empty"),
    ({"agent": "oracle", "tasks": "a", "split": "test"}, "--tasks or --split, not both"),
    ({"agent": "oracle", "tasks": " , "}, "names no task"),
    ({"agent": "oracle", "split": "dev"}, "unknown --split"),
    ({"agent": "oracle", "max_tasks": 0}, "--max-tasks must be >= 1"),
    ({"agent": "oracle", "probes": 3}, "--probes configure the judge"),
    ({"agent": "oracle", "judge": "oracle"}, "unknown --judge"),
    ({"agent": "oracle", "judge": "rule", "evaluator": "verifier"}, "apply only to --judge prore"),
    ({"agent": "oracle", "judge": "prore", "evaluator": "oracle"}, "unknown --evaluator"),
    ({"agent": "oracle", "judge_model": "x"}, "--judge-model configure the judge"),
    ({"agent": "random", "env": "adb", "attempts": 2, "judge": "rule"}, "cannot run with --env adb"),
    ({"agent": "random", "env": "adb", "workers": "2"}, "--env adb drives one device"),
    ({"agent": "verifier", "content": "guess"}, "unknown --content"),
    ({"agent": "oracle", "verifier": "none"}, "apply only to --agent verifier"),
    ({"agent": "oracle", "avoid_repeats": True}, "--avoid-repeats applies only"),
    ({"agent": "oracle", "finish_check": "compact"}, "--finish-check applies only to --agent verifier"),
    ({"agent": "verifier", "finish_check": "rule"}, "unknown --finish-check 'rule'"),
    ({"agent": "verifier", "finish_check_model": "x"}, "give --finish-check METHOD"),
    ({"agent": "oracle", "temperature": 0.5}, "--temperature/--top-k"),
    ({"agent": "verifier", "top_k": 2}, "--temperature/--top-k/--retry-temperature: top_k= needs temperature > 0"),
    ({"agent": "verifier", "retry_temperature": 1.0}, "give --attempts K > 1"),
    ({"agent": "verifier", "retry_temperature": 0.0, "attempts": 2}, "retry_temperature must be a finite number > 0"),
    ({"agent": "random", "retry_temperature": 1.0, "attempts": 2}, "apply only to the verifier agent"),
    ({"agent": "oracle", "max_steps": "3"}, "--max-steps"),  # a type error is a config error too
    ({"agent": "oracle", "bogus": 1}, "--bogus"),
])
def test_each_option_combination_that_cannot_run_is_a_config_error(options: dict, match: str) -> None:
    with pytest.raises(RunConfigError, match=match):
        RunConfig.of(**options)


def test_a_retry_temperature_reaches_the_agent_and_the_run_json(tmp_path: Path) -> None:
    run = RunConfig.of(agent="verifier", tasks="clock_create_alarm", attempts=3, retry_temperature=1.5,
                       top_k=3, out=str(tmp_path / "r"))
    resolved = run.resolve()
    assert resolved.agent.retry_temperature == 1.5 and resolved.agent.temperature == 0.0
    assert resolved.run_json["retry_temperature"] == 1.5  # resuming with another one is refused
    plain = RunConfig.of(agent="verifier", tasks="clock_create_alarm", out=str(tmp_path / "p")).resolve()
    assert "retry_temperature" not in plain.run_json  # a run without it writes the run.json it always did


def test_retries_without_a_named_judge_are_judged_by_the_trained_default() -> None:
    from droidverify.rewards.registry import DEFAULT_JUDGE

    cfg = RunConfig.of(agent="oracle", attempts=2)
    assert cfg.judge == DEFAULT_JUDGE == "compact"
    spec = cfg.judge_spec()
    assert spec.method == "compact" and spec.model is None  # the shipped judge, not the agent's LLM
    assert RunConfig.of(agent="oracle", attempts=2, judge="rule").judge == "rule"
    assert RunConfig.of(agent="oracle").judge is None  # no retries: no judging unless asked


def test_parsers_keep_their_typed_errors() -> None:
    with pytest.raises(RunError, match="bad seeds spec"):
        RunConfig.of(agent="oracle", seeds="3-1")
    with pytest.raises(BackendError, match="--workers"):
        RunConfig.of(agent="oracle", workers="many")
    with pytest.raises(RunError, match="--attempts"):
        RunConfig.of(agent="oracle", attempts=0)


def test_a_valid_config_resolves_to_what_the_runner_is_given(tmp_path: Path) -> None:
    run = RunConfig.of(agent="random", tasks="clock_create_alarm", seeds="0-1", out=str(tmp_path / "r"),
                       agent_seed=4, workers="2")
    assert run.seed_list == [0, 1] and run.n_workers == 2 and run.judge_spec() is None
    resolved = run.resolve()
    assert [(t.name, s) for t, s in resolved.pairs] == [("clock_create_alarm", 0), ("clock_create_alarm", 1)]
    assert resolved.out_dir == tmp_path / "r" and resolved.agent.agent == "random" and resolved.agent.seed == 4
    assert resolved.run_json["tasks"] == ["clock_create_alarm"] and "attempts" not in resolved.run_json
    with pytest.raises(TaskError):
        RunConfig.of(agent="oracle", tasks="no_such_template").resolve()
    with pytest.raises(RunConfigError, match="no task templates"):
        RunConfig.of(agent="oracle", split="test", max_tasks=1, tasks=None).model_copy(
            update={"split": None, "tasks": ","}).resolve()
    judged = RunConfig.of(agent="oracle", judge="prore", attempts=3, model="m")
    spec = judged.judge_spec()
    assert (spec.method, spec.model, spec.probes, spec.probe_steps, spec.evaluator) == ("prore", "m", 2, 6, "generator")
    assert RunConfig.of(agent="oracle", judge="compact", model="m").judge_spec().model is None
    checked = RunConfig.of(agent="verifier", tasks="clock_create_alarm", finish_check="compact").resolve()
    fc = checked.agent.finish_check
    assert (fc.spec.method, fc.spec.model, fc.spec.setting) == ("compact", None, "passive")  # the shipped judge
    assert checked.run_json["finish_check"]["version"] == fc.version and "finish_check" not in resolved.run_json


def test_every_command_maps_errors_to_exit_codes_the_same_way() -> None:
    assert exit_code(RunConfigError("x")) == 2 and exit_code(CheckpointError("x")) == 2
    assert exit_code(LLMUnavailableError("x")) == 1 and exit_code(OSError("x")) == 1
    assert exit_code(RunError("x"), started=True) == 1  # a run that could not complete
    bad = CliRunner().invoke(app, ["run", "--agent", "oracle", "--judge", "bogus"])
    assert bad.exit_code == 2 and "error: RunConfigError: unknown --judge 'bogus'" in bad.output
    assert "Traceback" not in bad.output


def test_agent_spec_takes_its_options_by_keyword() -> None:
    with pytest.raises(TypeError):
        AgentSpec("verifier", "model-dir")  # type: ignore[misc]
    spec = AgentSpec("verifier", model="m", memory="history", seed=3)
    assert (spec.agent, spec.model, spec.memory, spec.seed) == ("verifier", "m", "history", 3)


def test_the_training_recipes_are_p3_presets() -> None:
    cpu = P3Config.cpu("out", "train.jsonl")
    gpu = P3Config.gpu("out", "train.jsonl")
    assert (cpu.device, cpu.lora_layers, cpu.max_negatives, cpu.max_steps, cpu.max_minutes) == ("cpu", 6, 7, 2400, 78.0)
    assert (gpu.device, gpu.lora_layers, gpu.max_batch, gpu.grad_accum, gpu.max_minutes) == ("cuda", None, 16, 4, None)
    assert P3Config.for_device("cuda:1", "o", "t", max_steps=5) == P3Config.gpu("o", "t", device="cuda:1", max_steps=5)
    assert P3Config.for_device("cpu", "o", "t") == cpu.__class__(**{**cpu.__dict__, "output_dir": "o", "train_file": "t"})
    cpu.validate()
    gpu.validate()


def test_a_verifier_run_adopts_the_checkpoints_memory_unless_told_otherwise(tmp_path: Path) -> None:
    """A verifier trained on the ``notes`` memory runs with it when --memory is left out (run.json and the
    agent say so); asking for another memory is refused before any episode; other agents default to diff."""
    import json
    import shutil

    from droidverify.agents.verifier.trained import shipped_compact_path

    notes = tmp_path / "notes-verifier"
    shutil.copytree(shipped_compact_path(), notes)
    meta = json.loads((notes / "verifier.json").read_text())
    meta["memory"] = "notes"
    (notes / "verifier.json").write_text(json.dumps(meta))
    run = RunConfig.of(agent="verifier", verifier=str(notes), tasks="clock_create_alarm").resolve()
    assert run.run_json["memory"] == "notes" and run.agent.memory == "notes"
    with pytest.raises(CheckpointError, match="trained with memory 'notes'; it cannot run with memory 'diff'"):
        RunConfig.of(agent="verifier", verifier=str(notes), tasks="clock_create_alarm", memory="diff").resolve()
    assert RunConfig.of(agent="random", tasks="clock_create_alarm").resolve().run_json["memory"] == "diff"
