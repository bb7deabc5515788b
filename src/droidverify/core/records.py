"""Observation, Step, Trajectory and TokenUsage: the one definition of each record that crosses modules.

They sit at the bottom of the package (below ``env``, ``llm`` and everything above them): an
environment produces them, a language model reports its ``TokenUsage``, agents, judges, trainers and
the runner read them. ``droidverify.env.records`` (and ``droidverify.env``) re-export them, with the
success rule.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from droidverify.actions.model import Action
from droidverify.ui.element import UIElement


@dataclass(eq=False)
class Observation:
    """What an agent sees after a reset or an action.

    ``xml`` is the uiautomator dump. ``elements`` (the selected, indexed elements actions refer to)
    and ``root`` (the whole tree) are parsed from it on first use unless the producer supplies them.
    """

    xml: str
    package: str | None = None  # foreground app package
    activity: str | None = None
    screen_size: tuple[int, int] = (1080, 2400)
    timestamp: float = field(default_factory=time.time)
    screenshot_png: bytes | None = None
    info: dict[str, Any] = field(default_factory=dict)  # backend extras (toast text, keyboard shown, ...)
    _root: UIElement | None = field(default=None, repr=False)
    _elements: list[UIElement] | None = field(default=None, repr=False)

    @property
    def root(self) -> UIElement:
        if self._root is None:
            from droidverify.ui.tree import parse_xml

            self._root = parse_xml(self.xml)
        return self._root

    @property
    def elements(self) -> list[UIElement]:
        """Selected elements in stable order; an action's ``index`` is a position in this list."""
        if self._elements is None:
            from droidverify.ui.select import select_elements

            self._elements = select_elements(self.root, screen_size=self.screen_size)
        return self._elements

    def to_dict(self, *, with_screenshot: bool = False) -> dict[str, Any]:
        d: dict[str, Any] = {
            "xml": self.xml, "package": self.package, "activity": self.activity,
            "screen_size": list(self.screen_size), "timestamp": self.timestamp, "info": self.info,
        }
        if with_screenshot and self.screenshot_png is not None:
            import base64

            d["screenshot_png_b64"] = base64.b64encode(self.screenshot_png).decode()
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Observation:
        png = d.get("screenshot_png_b64")
        import base64

        return cls(
            xml=d["xml"], package=d.get("package"), activity=d.get("activity"),
            screen_size=tuple(d.get("screen_size") or (1080, 2400)),  # type: ignore[arg-type]
            timestamp=d.get("timestamp", 0.0), info=d.get("info") or {},
            screenshot_png=base64.b64decode(png) if png else None,
        )


@dataclass
class TokenUsage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # prompt tokens served from a prefix cache

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(self.prompt_tokens + other.prompt_tokens,
                          self.completion_tokens + other.completion_tokens,
                          self.cached_tokens + other.cached_tokens)

    def to_dict(self) -> dict[str, int]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "cached_tokens": self.cached_tokens}


@dataclass
class Step:
    """One round: the observation the agent saw, what it did and why.

    ``index`` is the round id (0-based) that SmartSnap evidences refer to. ``action`` is None when
    the agent produced nothing usable (``error`` says why). ``agent_info`` holds paradigm-specific
    detail (candidates with scores, entropy, memory text, ...), JSON-serialisable.
    """

    index: int
    observation: Observation
    action: Action | None
    raw_output: str | None = None
    error: str | None = None
    agent_info: dict[str, Any] = field(default_factory=dict)
    usage: TokenUsage = field(default_factory=TokenUsage)
    timings: dict[str, float] = field(default_factory=dict)  # seconds: "agent", "env", ...

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index, "observation": self.observation.to_dict(),
            "action": self.action.to_dict() if self.action else None, "raw_output": self.raw_output,
            "error": self.error, "agent_info": self.agent_info, "usage": self.usage.to_dict(),
            "timings": self.timings,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Step:
        return cls(
            index=d["index"], observation=Observation.from_dict(d["observation"]),
            action=Action.from_dict(d["action"]) if d.get("action") else None,
            raw_output=d.get("raw_output"), error=d.get("error"), agent_info=d.get("agent_info") or {},
            usage=TokenUsage(**(d.get("usage") or {})), timings=d.get("timings") or {},
        )


@dataclass
class Trajectory:
    """An episode: task, steps, final observation and outcome."""

    task_id: str
    goal: str
    seed: int | None = None
    agent: str | None = None
    steps: list[Step] = field(default_factory=list)
    final_observation: Observation | None = None
    answer: str | None = None  # last ``answer`` action's text, if any
    declared_done: bool = False  # agent issued status complete / submit
    success: float | None = None  # episode_success(checker_score, declared_done); None: not evaluated
    # The outcome, typed (``metadata`` mirrors these four keys for older readers).
    termination: str | None = None  # complete | infeasible | submit | answer | step_limit | agent_error
    checker_score: float | None = None  # the checker's raw score, declared done or not
    checker_error: str | None = None
    agent_error: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id, "goal": self.goal, "seed": self.seed, "agent": self.agent,
            "steps": [s.to_dict() for s in self.steps],
            "final_observation": self.final_observation.to_dict() if self.final_observation else None,
            "answer": self.answer, "declared_done": self.declared_done, "success": self.success,
            "termination": self.termination, "checker_score": self.checker_score,
            "checker_error": self.checker_error, "agent_error": self.agent_error,
            "metadata": self.metadata,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Trajectory:
        fo = d.get("final_observation")
        meta = d.get("metadata") or {}
        return cls(
            task_id=d["task_id"], goal=d["goal"], seed=d.get("seed"), agent=d.get("agent"),
            steps=[Step.from_dict(s) for s in d.get("steps", [])],
            final_observation=Observation.from_dict(fo) if fo else None, answer=d.get("answer"),
            declared_done=d.get("declared_done", False), success=d.get("success"),
            termination=d.get("termination", meta.get("termination")),
            checker_score=d.get("checker_score", meta.get("checker_score")),
            checker_error=d.get("checker_error", meta.get("checker_error")),
            agent_error=d.get("agent_error", meta.get("agent_error")), metadata=meta,
        )
