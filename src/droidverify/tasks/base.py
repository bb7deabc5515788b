"""Task templates: goal, seeded parameters, set-up, rule-based checker and screen-driven oracle.

A checker reads app state (SQL on the simulated phone), never the agent's claims; query tasks
compare the agent's ``answer`` text after normalisation. An oracle looks at the current screen and
phone state and names the next correct action, so it survives any parameter choice.
"""

from __future__ import annotations

import inspect
import json
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from droidverify.actions.model import Action
from droidverify.env.interface import MAX_SEED, check_seed
from droidverify.env.records import Observation
from droidverify.errors import TaskError

__all__ = ["MAX_SEED", "Phrasing", "Task", "TaskKind", "TaskTemplate"]

if TYPE_CHECKING:  # the simulator sits beside tasks; templates receive its Phone
    from droidverify.env.sim.phone import Phone

TaskKind = Literal["operation", "query"]
Phrasing = int | Literal["canonical", "seeded"]


class TaskTemplate(ABC):
    """Subclass once per template; register with ``@register_task`` (see ``tasks.registry``)."""

    name: ClassVar[str]
    apps: ClassVar[tuple[str, ...]]  # app names as shown on the launcher, e.g. ("Contacts",)
    kind: ClassVar[TaskKind] = "operation"
    complexity: ClassVar[int] = 1  # 1 easy .. 3 hard
    optimal_steps: ClassVar[int]  # oracle step count on a typical seed
    goal_template: ClassVar[str]  # str.format template over the params
    # Other wordings of the same goal over the same params (phrasing 1, 2, ...). The canonical
    # ``goal_template`` (phrasing 0) is what published splits and figures use; training data draws
    # among all of them so a model does not learn one sentence per template.
    goal_phrasings: ClassVar[tuple[str, ...]] = ()

    @abstractmethod
    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        """Draw parameters; must be JSON-serialisable and depend only on ``rng``."""

    @abstractmethod
    def setup(self, phone: Phone, params: dict[str, Any], rng: random.Random | None = None) -> None:
        """Put the phone in the task's initial state (never already the goal state).

        A set-up that draws at random declares the ``rng`` parameter: :meth:`apply_setup` (which
        every caller goes through) then passes :meth:`setup_rng`. Draw from it, never from a
        generator of your own, so a rebuilt starting phone (a checker's baseline) is identical.
        A set-up without the parameter is called with ``(phone, params)`` as before.
        """

    def setup_rng(self, params: dict[str, Any]) -> random.Random:
        """The generator ``setup`` gets: a function of the template name and the parameters.

        Not of the seed itself: a checker's baseline rebuilds the starting phone from the
        parameters alone (``helpers.baseline_rows``), and both must draw the same values.
        """
        return random.Random(f"{self.name}:setup:{json.dumps(params, sort_keys=True, default=str)}")

    def apply_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        """Run ``setup`` on ``phone``, with ``rng`` when the template's ``setup`` accepts it."""
        if _setup_takes_rng(type(self)):
            self.setup(phone, params, rng=self.setup_rng(params))
        else:
            self.setup(phone, params)

    @abstractmethod
    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        """1.0 on success, 0.0 on failure (partial credit allowed in between)."""

    @abstractmethod
    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        """The correct next action for the current screen (ends with status complete / answer)."""

    @property
    def phrasings(self) -> tuple[str, ...]:
        """Every wording of the goal: the canonical ``goal_template`` first, then ``goal_phrasings``."""
        return (self.goal_template, *self.goal_phrasings)

    def goal(self, params: dict[str, Any], phrasing: int = 0) -> str:
        """The goal sentence in wording ``phrasing`` (0 = canonical; see :attr:`phrasings`)."""
        options = self.phrasings
        if isinstance(phrasing, bool) or not isinstance(phrasing, int) or not 0 <= phrasing < len(options):
            raise TaskError(f"task template {self.name!r} has phrasings 0..{len(options) - 1}, got {phrasing!r}")
        return options[phrasing].format(**params)

    def phrasing_for(self, seed: int, phrasing: Phrasing) -> int:
        """The phrasing index ``phrasing`` names for ``seed``: an index as given, ``"canonical"`` (0) or
        ``"seeded"`` (drawn from the template name and seed, so it does not consume the params' draws)."""
        if phrasing == "canonical":
            return 0
        if phrasing == "seeded":
            return random.Random(f"{self.name}:{seed}:phrasing").randrange(len(self.phrasings))
        if isinstance(phrasing, int) and not isinstance(phrasing, bool):
            return phrasing
        raise TaskError(f"phrasing must be an index, 'canonical' or 'seeded', got {phrasing!r}")

    @property
    def max_steps(self) -> int:
        """Step limit for agents: generous relative to the optimal path (AndroidWorld uses ~2x)."""
        return max(10, 2 * self.optimal_steps + 5)

    def instantiate(self, seed: int, *, phrasing: Phrasing = 0) -> Task:
        """The task for ``seed`` (0..MAX_SEED; anything else raises :class:`TaskError`).

        ``phrasing`` picks the goal's wording (:meth:`phrasing_for`); parameters, set-up and
        checker do not depend on it.
        """
        check_seed(seed, error=TaskError)
        index = self.phrasing_for(seed, phrasing)
        rng = random.Random(f"{self.name}:{seed}")
        params = self.generate_params(rng)
        return Task(template=self, seed=seed, params=params, goal=self.goal(params, index), phrasing=index)


_TAKES_RNG: dict[type, bool] = {}


def _setup_takes_rng(cls: type[TaskTemplate]) -> bool:
    # Templates written before ``rng`` existed keep their two-argument set-up; ask once per class.
    takes = _TAKES_RNG.get(cls)
    if takes is None:
        params = inspect.signature(cls.setup).parameters
        takes = "rng" in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
        _TAKES_RNG[cls] = takes
    return takes


@dataclass
class Task:
    """A template with concrete parameters for one seed."""

    template: TaskTemplate
    seed: int
    params: dict[str, Any]
    goal: str
    metadata: dict[str, Any] = field(default_factory=dict)
    phrasing: int = 0  # index into ``template.phrasings`` the goal was written with

    @property
    def id(self) -> str:
        return self.template.name

    @property
    def max_steps(self) -> int:
        return self.template.max_steps

    def setup(self, phone: Phone) -> None:
        self.template.apply_setup(phone, self.params)

    def is_successful(self, phone: Phone, answer: str | None = None) -> float:
        return self.template.is_successful(phone, self.params, answer)

    def oracle_action(self, phone: Phone, obs: Observation) -> Action:
        return self.template.oracle_action(phone, self.params, obs)
