"""Regenerate the task table in docs/tasks.md from the registry.

Usage: ``python scripts/gen_task_docs.py`` (rewrites the table between the markers) or
``python scripts/gen_task_docs.py --check`` (exit 1 if the file is out of date).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from droidverify.tasks import registry

DOC = Path(__file__).resolve().parents[1] / "docs" / "tasks.md"
BEGIN, END = "<!-- BEGIN TASK TABLE (scripts/gen_task_docs.py) -->", "<!-- END TASK TABLE -->"


def table() -> str:
    rows = ["| template | apps | kind | complexity | optimal steps | split | goal (seed 0) |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    templates = registry.all_templates()
    for t in templates:
        goal = t.instantiate(0).goal.replace("|", "\\|")
        rows.append(f"| `{t.name}` | {', '.join(t.apps)} | {t.kind} | {t.complexity} | {t.optimal_steps} | "
                    f"{registry.split_of(t.name)} | {goal} |")
    counts = {s: len(registry.templates_for_split(s)) for s in registry.SPLITS}
    summary = (f"{len(templates)} templates: " + ", ".join(f"{n} {s}" for s, n in counts.items()) + ".")
    return "\n".join([summary, "", *rows])


def render(text: str) -> str:
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{DOC}: markers {BEGIN!r} / {END!r} not found")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{table()}\n{END}{tail}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/tasks.md is out of date")
    args = ap.parse_args()
    old = DOC.read_text(encoding="utf-8")
    new = render(old)
    if args.check:
        if new != old:
            print(f"{DOC} is out of date: run python scripts/gen_task_docs.py", file=sys.stderr)
            sys.exit(1)
        return
    DOC.write_text(new, encoding="utf-8")
    print(f"wrote {DOC}")


if __name__ == "__main__":
    main()
