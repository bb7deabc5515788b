"""Every name a package's ``__all__`` lists resolves, and the README's imports work."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

PACKAGES = ["droidverify", "droidverify.ui", "droidverify.actions", "droidverify.core", "droidverify.env",
            "droidverify.env.sim", "droidverify.llm", "droidverify.agents", "droidverify.agents.verifier",
            "droidverify.episode", "droidverify.runner", "droidverify.tasks"]


@pytest.mark.parametrize("package", PACKAGES)
def test_all_names_resolve(package: str) -> None:
    mod = importlib.import_module(package)
    assert mod.__all__, f"{package} exports nothing"
    missing = [name for name in mod.__all__ if getattr(mod, name, None) is None]
    assert missing == [], f"{package}.__all__ names what it does not define: {missing}"


def test_unknown_lazy_name_is_an_attribute_error() -> None:
    import droidverify.env
    import droidverify.llm

    for mod in (droidverify.env, droidverify.llm):
        with pytest.raises(AttributeError, match="no attribute 'Nope'"):
            mod.Nope  # noqa: B018


def test_readme_imports_and_cheap_llm_import() -> None:
    # a fresh interpreter: the README's imports work, and naming load_llm does not pull in torch
    code = (
        "import sys\n"
        "from droidverify.llm import load_llm\n"
        "assert 'torch' not in sys.modules, 'importing droidverify.llm loaded torch'\n"
        "from droidverify.env.sim import SimEnv\n"
        "from droidverify.tasks import registry\n"
        "from droidverify.agents import VerifierAgent, GeneratorAgent, OracleAgent, RandomAgent, NoopAgent\n"
        "from droidverify.runner.episode import run_episode\n"
        "from droidverify.runner import run_many\n"
        "from droidverify.ui import parse_xml, select_elements, describe_list, describe_html, describe_compressed\n"
        "from droidverify.actions import Action, parse_action, validate_action\n"
        "from droidverify.env import Environment, Observation, Step, Trajectory, AdbEnv\n"
        "from droidverify.llm import LocalLLM, OpenAICompatLLM\n"
        "task = registry.get_template('clock_create_alarm').instantiate(seed=0)\n"
        "traj = run_episode(OracleAgent(), SimEnv(task=task, seed=0), task)\n"
        "assert traj.success, traj\n"
    )
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
