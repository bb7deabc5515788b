"""Exit 1 unless every package pinned in a lock file is installed here at the pinned version.

Run by scripts/install.sh after installing; tests/test_install.py asserts the same inside the suite.
"""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path


def _canon(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def read_lock(path: Path) -> dict[str, str]:
    """name (canonical) -> pinned version, from ``name==version`` lines (comments skipped)."""
    pins: dict[str, str] = {}
    for lineno, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        if not sep or not name.strip() or not version.strip():
            raise SystemExit(f"{path}:{lineno}: not a 'name==version' pin: {raw!r}")
        pins[_canon(name.strip())] = version.strip()
    return pins


def mismatches(pins: dict[str, str]) -> list[str]:
    installed = {_canon(d.metadata["Name"]): d.version for d in metadata.distributions()}
    out = []
    for name, version in sorted(pins.items()):
        have = installed.get(name)
        if have != version:
            out.append(f"{name}: locked {version}, installed {have or 'nothing'}")
    return out


def main(argv: list[str]) -> int:
    lock = Path(argv[1] if len(argv) > 1 else "requirements.lock")
    bad = mismatches(read_lock(lock))
    for line in bad:
        print(line, file=sys.stderr)
    if bad:
        print(f"{len(bad)} package(s) differ from {lock}: run `bash scripts/install.sh` in a fresh "
              "environment, or regenerate the lock deliberately with `bash scripts/lock.sh`", file=sys.stderr)
        return 1
    print(f"{len(read_lock(lock))} packages match {lock}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
