"""Goal phrasings: every wording of a template names the same slots, and never changes the task."""

from __future__ import annotations

import string

import pytest

from droidverify.errors import TaskError
from droidverify.tasks import registry

TEMPLATES = registry.all_templates()


def _fields(template: str) -> set[str]:
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("name", [t.name for t in TEMPLATES])
def test_phrasings_name_the_same_slots(name: str) -> None:
    tmpl = registry.get_template(name)
    want = _fields(tmpl.goal_template)
    assert len(set(tmpl.phrasings)) == len(tmpl.phrasings), f"{name}: duplicate phrasings"
    for k, phrasing in enumerate(tmpl.phrasings):
        assert _fields(phrasing) == want, f"{name} phrasing {k} names {_fields(phrasing)}, canonical {want}"
    for seed in (0, 1):
        canonical = tmpl.instantiate(seed)
        for k in range(len(tmpl.phrasings)):
            task = tmpl.instantiate(seed, phrasing=k)
            assert task.params == canonical.params and task.phrasing == k
            assert task.goal == tmpl.phrasings[k].format(**task.params)


def test_most_templates_have_other_wordings() -> None:
    with_more = [t.name for t in TEMPLATES if t.goal_phrasings]
    assert len(with_more) >= 0.9 * len(TEMPLATES), f"only {len(with_more)} of {len(TEMPLATES)} have phrasings"


def test_canonical_is_the_default_and_seeded_is_stable() -> None:
    tmpl = next(t for t in TEMPLATES if len(t.phrasings) > 2)
    assert tmpl.instantiate(3).goal == tmpl.instantiate(3, phrasing="canonical").goal
    drawn = {tmpl.instantiate(s, phrasing="seeded").phrasing for s in range(40)}
    assert drawn == set(range(len(tmpl.phrasings)))  # every wording is drawn
    assert tmpl.instantiate(7, phrasing="seeded").goal == tmpl.instantiate(7, phrasing="seeded").goal
    tasks = registry.tasks_for("train", [5], phrasing="seeded")
    assert any(t.phrasing for t in tasks)


@pytest.mark.parametrize("bad", [-1, 99, "random", True, 1.0])
def test_bad_phrasing_is_a_task_error(bad: object) -> None:
    tmpl = TEMPLATES[0]
    with pytest.raises(TaskError, match="phrasing"):
        tmpl.instantiate(0, phrasing=bad)  # type: ignore[arg-type]
