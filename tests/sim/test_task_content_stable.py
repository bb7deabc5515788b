"""Every template's content for a seed is frozen: the verifier's training data and evaluation splits
are drawn from it, so a refactor of the task API must not change one byte of any starting phone.

``task_content_hashes.json`` holds, per ``template:seed``, a hash of the goal, the parameters and
the phone right after ``SimEnv.reset()`` (every table's rows, the navigation/UI state and the RNG).
Rows are hashed rather than the SQLite image, so another SQLite or zlib version gives the same
hash. A template added later has no entry and is not checked; regenerate with
``python tests/sim/test_task_content_stable.py --write`` only when a content change is intended.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from droidverify.env.sim import SimEnv
from droidverify.env.sim.state import _to_json
from droidverify.tasks import registry

FIXTURE = Path(__file__).with_name("task_content_hashes.json")
SEEDS = (0, 1, 1000)


def content_hash(name: str, seed: int) -> str:
    task = registry.get_template(name).instantiate(seed)
    env = SimEnv(task=task, seed=task.seed)
    env.reset()
    try:
        snap = env.phone.snapshot()
        h = hashlib.sha256()
        h.update(json.dumps([task.goal, task.params], sort_keys=True).encode())
        conn = env.phone.conn
        for tname, sql in conn.execute("SELECT name, sql FROM sqlite_master ORDER BY type, name").fetchall():
            h.update(f"\0{tname}\0{sql}".encode())
            if sql is not None and sql.upper().startswith("CREATE TABLE"):
                for row in conn.execute(f'SELECT * FROM "{tname}"'):
                    h.update(repr(tuple(row)).encode())
        state = {k: v for k, v in snap.state.items() if k != "rng"}
        h.update(json.dumps(_to_json(state), sort_keys=True).encode())
        h.update(repr(snap.state["rng"]).encode())
        return h.hexdigest()
    finally:
        env.close()


EXPECTED: dict[str, str] = json.loads(FIXTURE.read_text(encoding="utf-8")) if FIXTURE.is_file() else {}


def test_fixture_covers_the_registry() -> None:
    assert EXPECTED, f"{FIXTURE} is missing"
    names = {k.rsplit(":", 1)[0] for k in EXPECTED}
    missing = names - {t.name for t in registry.all_templates()}
    assert not missing, f"templates gone from the registry: {sorted(missing)}"


@pytest.mark.parametrize("name", sorted({k.rsplit(":", 1)[0] for k in EXPECTED}))
def test_template_content_unchanged(name: str) -> None:
    for seed in SEEDS:
        assert content_hash(name, seed) == EXPECTED[f"{name}:{seed}"], (
            f"{name} seed {seed}: goal, params or starting phone changed")


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    table = {f"{t.name}:{s}": content_hash(t.name, s) for t in registry.all_templates() for s in SEEDS}
    FIXTURE.write_text(json.dumps(table, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(table)} hashes -> {FIXTURE}")
