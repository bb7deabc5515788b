"""The shipped verifier: present, small, documented, and loadable onto the bundled model."""

from __future__ import annotations

import json

import pytest

from droidverify.agents.verifier.trained import read_verifier_meta, shipped_verifier_path


def test_shipped_verifier_is_small_and_has_its_provenance() -> None:
    d = shipped_verifier_path()
    meta = read_verifier_meta(d)
    assert meta["base_model"]["name"] == "smollm2-135m-instruct" and meta["base_model"].get("gguf_digest")
    _assert_small_with_provenance(d)


def _assert_small_with_provenance(d) -> None:
    for f in d.rglob("*"):
        if f.is_file():
            assert f.stat().st_size < 20_000_000, f
    prov = json.loads((d / "provenance.json").read_text())
    for key in ("command", "commit", "data", "metrics"):
        assert prov.get(key), f"provenance.json lacks {key!r}"


@pytest.mark.model
def test_shipped_verifier_scores_with_its_head_on_the_bundled_model() -> None:
    from droidverify.agents.verifier.trained import load_verifier
    from droidverify.env.sim import SimEnv
    from droidverify.tasks import registry
    from droidverify.training.loop import sim_apps

    agent = load_verifier(apps=sim_apps())
    task = registry.get_template("clock_create_alarm").instantiate(0)
    env = SimEnv(task=task, seed=0)
    agent.reset(task.goal)
    out = agent.act(env.reset(), [])
    assert out.info["score_kind"] == "head" and out.action is not None
    scores = [c["score"] for c in out.info["candidates"]]
    assert len(set(scores)) > len(scores) // 2  # a trained head separates candidates


def test_the_shipped_compact_verifier_is_small_documented_and_acts_without_a_language_model() -> None:
    from droidverify.agents.verifier.trained import load_verifier, shipped_compact_path, verifier_backbone
    from droidverify.env.sim import SimEnv
    from droidverify.tasks import registry
    from droidverify.training.loop import sim_apps

    d = shipped_compact_path()
    assert verifier_backbone(d) == "compact"
    _assert_small_with_provenance(d)
    agent = load_verifier(d, apps=sim_apps())
    assert agent.llm is None and agent.content == "select"
    task = registry.get_template("clock_create_alarm").instantiate(0)
    agent.reset(task.goal)
    out = agent.act(SimEnv(task=task, seed=0).reset(), [])
    assert out.info["score_kind"] == "compact" and out.action is not None
    scores = [c["score"] for c in out.info["candidates"]]
    assert len(set(scores)) > len(scores) // 2


def test_run_defaults_to_the_compact_verifier_and_refuses_another_memory(tmp_path) -> None:
    from typer.testing import CliRunner

    from droidverify.agents.verifier.trained import shipped_compact_path, shipped_verifier_path
    from droidverify.cli import app
    from droidverify.runner.factories import ADB_DEFAULT_BACKBONE, resolve_verifier

    assert resolve_verifier(None, None) == shipped_compact_path()
    assert resolve_verifier("llm", None) == shipped_verifier_path()
    assert resolve_verifier(None, None, "adb") == (shipped_compact_path() if ADB_DEFAULT_BACKBONE == "compact"
                                                   else shipped_verifier_path())
    res = CliRunner().invoke(app, ["run", "--agent", "verifier", "--memory", "history", "--tasks",
                                   "clock_create_alarm", "--out", str(tmp_path / "r"), "--no-progress"])
    assert res.exit_code == 2
    assert "trained with memory 'diff'; it cannot run with memory 'history'" in " ".join(res.output.split())


def test_the_llm_verifier_adopts_its_memory_and_refuses_another_before_a_model_loads(tmp_path) -> None:
    from droidverify.agents.verifier.trained import check_settings
    from droidverify.errors import CheckpointError
    from droidverify.runner.factories import AgentSpec

    shipped = shipped_verifier_path()
    assert check_settings(shipped) == {}  # nothing asked: nothing to adopt beyond the checkpoint's own
    assert check_settings(shipped, memory=None) == {"memory": "diff"}
    assert check_settings(shipped, memory="diff") == {"memory": "diff"}
    with pytest.raises(CheckpointError, match=r"trained with memory 'diff'; it cannot run with memory 'history'"):
        check_settings(shipped, memory="history")
    # through the runner's factory: the error comes before any model is loaded (no model named)
    spec = AgentSpec("verifier", model="no-such-model-dir", memory="history", seed=0, apps=["Clock"], verifier=shipped)
    with pytest.raises(CheckpointError, match="memory 'history'"):
        spec()
    # a checkpoint written before memory was recorded adopts what is asked
    old = tmp_path / "old"
    old.mkdir()
    meta = json.loads((shipped / "verifier.json").read_text())
    del meta["memory"]
    (old / "verifier.json").write_text(json.dumps(meta))
    assert check_settings(old, memory="history") == {"memory": "history"}
