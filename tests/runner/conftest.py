from __future__ import annotations

import sys
from pathlib import Path

# fakes.py lives next to the tests; make it importable as a plain module (also in subprocesses).
sys.path.insert(0, str(Path(__file__).resolve().parent))
