"""Success rates of a run: overall, by app and by complexity, as JSON and as rich tables."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from rich.table import Table


@dataclass
class GroupStats:
    """Episodes of one group. ``solved`` counts success >= 1.0 among scored episodes."""

    episodes: int = 0
    scored: int = 0
    solved: int = 0
    score_sum: float = 0.0
    steps_sum: int = 0

    @property
    def success_rate(self) -> float | None:
        return self.solved / self.scored if self.scored else None

    @property
    def mean_score(self) -> float | None:
        return self.score_sum / self.scored if self.scored else None

    @property
    def mean_steps(self) -> float | None:
        return self.steps_sum / self.episodes if self.episodes else None

    def add(self, ep: dict[str, Any]) -> None:
        self.episodes += 1
        self.steps_sum += int(ep.get("n_steps") or 0)
        s = ep.get("success")
        if s is not None:
            self.scored += 1
            self.score_sum += float(s)
            self.solved += int(float(s) >= 1.0)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "success_rate": self.success_rate, "mean_score": self.mean_score,
                "mean_steps": self.mean_steps}


@dataclass
class RunSummary:
    """What a run achieved over the requested (task, seed) pairs."""

    out_dir: str
    agent: str | None
    overall: GroupStats = field(default_factory=GroupStats)
    by_app: dict[str, GroupStats] = field(default_factory=dict)
    by_complexity: dict[str, GroupStats] = field(default_factory=dict)
    by_task: dict[str, GroupStats] = field(default_factory=dict)
    ran: int = 0  # episodes run in this invocation
    skipped: int = 0  # episodes already finished (resume)
    agent_errors: int = 0
    checker_errors: int = 0
    usage: dict[str, int] = field(default_factory=dict)
    time_agent: float = 0.0
    time_env: float = 0.0

    @property
    def success_rate(self) -> float | None:
        return self.overall.success_rate

    @classmethod
    def from_episodes(cls, episodes: Iterable[dict[str, Any]], *, out_dir: str, ran: int = 0,
                      skipped: int = 0) -> RunSummary:
        eps = list(episodes)
        summary = cls(out_dir=out_dir, agent=eps[0].get("agent") if eps else None, ran=ran,
                      skipped=skipped)
        by_app: dict[str, GroupStats] = defaultdict(GroupStats)
        by_cx: dict[str, GroupStats] = defaultdict(GroupStats)
        by_task: dict[str, GroupStats] = defaultdict(GroupStats)
        usage: dict[str, int] = defaultdict(int)
        for ep in eps:
            summary.overall.add(ep)
            # A multi-app task counts once under each app it involves.
            for app in ep.get("apps") or ["(none)"]:
                by_app[app].add(ep)
            by_cx[str(ep.get("complexity"))].add(ep)
            by_task[ep["task_id"]].add(ep)
            summary.agent_errors += int(ep.get("termination") == "agent_error")
            summary.checker_errors += int(bool(ep.get("checker_error")))
            for k, v in (ep.get("usage") or {}).items():
                usage[k] += int(v)
            summary.time_agent += float(ep.get("time_agent") or 0.0)
            summary.time_env += float(ep.get("time_env") or 0.0)
        summary.by_app = dict(sorted(by_app.items()))
        summary.by_complexity = dict(sorted(by_cx.items()))
        summary.by_task = dict(sorted(by_task.items()))
        summary.usage = dict(usage)
        return summary

    def to_dict(self) -> dict[str, Any]:
        return {
            "out_dir": self.out_dir, "agent": self.agent, "success_rate": self.success_rate,
            "overall": self.overall.to_dict(),
            "by_app": {k: v.to_dict() for k, v in self.by_app.items()},
            "by_complexity": {k: v.to_dict() for k, v in self.by_complexity.items()},
            "by_task": {k: v.to_dict() for k, v in self.by_task.items()},
            "ran": self.ran, "skipped": self.skipped, "agent_errors": self.agent_errors,
            "checker_errors": self.checker_errors, "usage": self.usage,
            "time_agent": self.time_agent, "time_env": self.time_env,
        }

    def tables(self) -> list[Table]:
        """Rich tables: by app, by complexity, overall."""
        def fmt(x: float | None, pct: bool = False) -> str:
            if x is None:
                return "-"
            return f"{100 * x:.1f}%" if pct else f"{x:.1f}"

        out = []
        for title, groups in (("by app", self.by_app), ("by complexity", self.by_complexity),
                              ("overall", {"all": self.overall})):
            t = Table(title=f"{self.agent or 'agent'}: success {title}")
            for col in (title.removeprefix("by "), "episodes", "solved", "success", "mean score",
                        "mean steps"):
                t.add_column(col, justify="left" if col == title.removeprefix("by ") else "right")
            for name, g in groups.items():
                solved = str(g.solved) if g.scored == g.episodes else f"{g.solved} (of {g.scored} scored)"
                mean = f"{g.mean_score:.2f}" if g.mean_score is not None else "-"
                t.add_row(name, str(g.episodes), solved, fmt(g.success_rate, pct=True), mean,
                          fmt(g.mean_steps))
            out.append(t)
        return out
