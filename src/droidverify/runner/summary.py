"""Success rates of a run: overall, by app and by complexity, as JSON and as rich tables."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from rich.table import Table

from droidverify.env.records import is_success


@dataclass
class GroupStats:
    """Episodes of one group. ``solved`` counts the scored episodes that succeeded
    (:func:`~droidverify.env.records.is_success`)."""

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
            self.solved += int(is_success(s))

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "success_rate": self.success_rate, "mean_score": self.mean_score,
                "mean_steps": self.mean_steps}


def _solved(ep: dict[str, Any]) -> bool:
    return is_success(ep.get("success"))


def _attempt(ep: dict[str, Any]) -> int:
    n = ep.get("attempt")
    return n if isinstance(n, int) and not isinstance(n, bool) and n >= 0 else 0


@dataclass
class RetryStats:
    """Judged retries (``run_many(attempts=K)``): the first attempt against the last, what the
    retries cost, and how often the judge stopped them on a success the checker denies.

    ``success_at_1`` scores each episode by its first attempt (what the run would have scored
    without retries); ``success_final`` by its last (the episode's outcome, = the overall success
    rate). ``false_success_rate`` = final attempts the judge called success whose checker result is
    a failure, over the final attempts that have both a judgement and a checker result."""

    max_attempts: int
    judge: str | None = None  # "name (version)" of the judge whose verdicts decided the retries
    episodes: int = 0
    scored_first: int = 0
    solved_first: int = 0
    scored_final: int = 0
    solved_final: int = 0
    attempts_used: int = 0
    retried: int = 0  # episodes with more than one attempt
    solved_by_retry: int = 0  # episodes failed at the first attempt, solved at a later one
    judged_final: int = 0
    false_successes: int = 0
    undecided_final: int = 0

    @property
    def success_at_1(self) -> float | None:
        return self.solved_first / self.scored_first if self.scored_first else None

    @property
    def success_final(self) -> float | None:
        return self.solved_final / self.scored_final if self.scored_final else None

    @property
    def mean_attempts(self) -> float | None:
        return self.attempts_used / self.episodes if self.episodes else None

    @property
    def false_success_rate(self) -> float | None:
        return self.false_successes / self.judged_final if self.judged_final else None

    @classmethod
    def from_attempts(cls, episodes: Iterable[dict[int, dict[str, Any]]], *, max_attempts: int,
                      outcome: Callable[[dict[str, Any]], str | None], judge: str | None = None) -> RetryStats:
        """``episodes``: each episode's recorded attempt lines by attempt index; ``outcome(line)``:
        the deciding judge's verdict on that attempt (None: not judged)."""
        st = cls(max_attempts=max_attempts, judge=judge)
        for tries in episodes:
            if not tries:
                continue
            first, last = tries[min(tries)], tries[max(tries)]
            st.episodes += 1
            st.attempts_used += len(tries)
            st.retried += int(len(tries) > 1)
            if first.get("success") is not None:
                st.scored_first += 1
                st.solved_first += int(_solved(first))
            if last.get("success") is not None:
                st.scored_final += 1
                st.solved_final += int(_solved(last))
            st.solved_by_retry += int(len(tries) > 1 and not _solved(first) and _solved(last))
            verdict = outcome(last)
            st.undecided_final += int(verdict == "undecided")
            if verdict is not None and last.get("success") is not None:
                st.judged_final += 1
                st.false_successes += int(verdict == "success" and not _solved(last))
        return st

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "success_at_1": self.success_at_1, "success_final": self.success_final,
                "mean_attempts": self.mean_attempts, "false_success_rate": self.false_success_rate}


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
    retries: RetryStats | None = None  # runs with judged retries only

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
            # only with retries: a run without them writes the summary.json it always did
            **({"retries": self.retries.to_dict()} if self.retries is not None else {}),
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
        if self.retries is not None:
            r = self.retries
            t = Table(title=f"{self.agent or 'agent'}: judged retries (up to {r.max_attempts} attempts, "
                            f"judge {r.judge or '?'})")
            for col in ("success@1", f"success@{r.max_attempts}", "attempts", "per episode", "retried",
                        "solved by a retry", "false successes"):
                t.add_column(col, justify="right")
            per = f"{r.mean_attempts:.2f}" if r.mean_attempts is not None else "-"
            t.add_row(fmt(r.success_at_1, pct=True), fmt(r.success_final, pct=True), str(r.attempts_used), per,
                      str(r.retried), str(r.solved_by_retry),
                      f"{r.false_successes} of {r.judged_final} ({fmt(r.false_success_rate, pct=True)})")
            out.append(t)
        return out
