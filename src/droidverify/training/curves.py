"""Training curves as PNGs: two panels of series read from a trainer's ``log.jsonl`` (needs matplotlib;
without it nothing is drawn, training goes on)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

Series = Sequence[tuple[str, str]]  # (log key, legend label)


def plot_log(log_file: str | Path, png: str | Path, *, x: str, left: Series, right: Series = (),
             right_ylim: tuple[float, float] | None = (0.0, 1.0)) -> None:
    """``left`` and ``right`` series against ``x``; a series is drawn when the last log row has its key."""
    try:
        import matplotlib
    except ImportError:
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [json.loads(r) for r in Path(log_file).read_text(encoding="utf-8").splitlines() if r.strip()]
    if not rows:
        return
    xs = [r[x] for r in rows]
    fig, ax = plt.subplots(1, 2, figsize=(10, 3.6))
    for panel, series in ((ax[0], left), (ax[1], right)):
        drawn = [(k, label) for k, label in series if k in rows[-1]]
        for key, label in drawn:
            panel.plot(xs, [r.get(key) for r in rows], label=label)
        if drawn:
            panel.set_xlabel(x)
            panel.legend()
    if right_ylim is not None and any(k in rows[-1] for k, _ in right):
        ax[1].set_ylim(*right_ylim)
    fig.tight_layout()
    fig.savefig(png, dpi=90)
    plt.close(fig)
