"""Agents, environments and judge factories for the live-judging tests (``run_many(judge=...)``).
A module of its own so worker processes can import them by name (tests/rewards is on their
sys.path: conftest)."""

from __future__ import annotations

import os
import random
import re
from typing import Any

from rewards_doubles import ScriptedLLM

from droidverify.actions.model import Action
from droidverify.agents.base import AgentOutput
from droidverify.env.sim import SimEnv
from droidverify.errors import LLMUnavailableError
from droidverify.rewards.labelled import oracle_trace, variants
from droidverify.rewards.prore import ProReJudge
from droidverify.rewards.rule import RuleJudge

TASK = "contacts_add_contact"


class VariantAgent:
    """The policy: replays one labelled-set variant of the task it is bound to (``oracle``: adds the
    contact; ``not_saved``: fills the form, never saves, and declares the task complete anyway)."""

    name = "scripted"

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.actions: list[Action] = []

    def bind(self, env: Any, task: Any) -> None:
        self.actions = dict(variants(task, oracle_trace(task), random.Random(0)))[self.kind]

    def reset(self, goal: str) -> None:
        self.i = 0

    def act(self, observation: Any, history: list[Any]) -> AgentOutput:
        action = self.actions[min(self.i, len(self.actions) - 1)]
        self.i += 1
        return AgentOutput(action=action, raw_output=action.to_json())


class OpenContacts:
    """ProRe's evaluator double: opens Contacts, then declares done."""

    name = "probe-double"

    def reset(self, goal: str) -> None:
        self.n = 0

    def act(self, observation: Any, history: list[Any]) -> AgentOutput:
        self.n += 1
        action = (Action(action_type="open_app", app_name="Contacts") if self.n == 1
                  else Action(action_type="status", goal_status="complete"))
        return AgentOutput(action=action, raw_output=action.to_json())


def prore_reply(messages: list[dict[str, str]], call_index: int) -> str:
    """A ProRe LLM that reads the probe: the policy always claims the contact was saved; the
    evaluator's claim says whether its trace shows the contact; the judge marks the policy's claim
    contradicted when the evaluator did not see it."""
    system, user = messages[0]["content"], messages[-1]["content"]
    m = re.search(r"contact named (.+?) with", user)
    name = m.group(1) if m else "?"
    if "<probe>" in system:
        return "<probe>Open Contacts and show the contact list.</probe>"
    if "<claim>" in system:
        if "Trace of the working agent" in user:
            return (f"<claim><steps>3</steps><reasoning>it typed and saved</reasoning>"
                    f"<statement>{name} was saved</statement></claim>")
        seen = name in user.split("Trace of the evaluator:")[1]  # the goal names it too
        stmt = f"{name} is in the contact list" if seen else f"{name} is not in the contact list"
        return f"<claim><steps>0</steps><reasoning>list shown</reasoning><statement>{stmt}</statement></claim>"
    if "is not in the contact list" in user:
        return '<label claim="1">contradicted</label>\n<reasoning>not there</reasoning>\n<verdict>FAILURE</verdict>'
    return '<label claim="1">confirmed</label>\n<reasoning>there</reasoning>\n<verdict>SUCCESS</verdict>'


class PidJudge:
    """Any judge, plus the process it judged in (``details["pid"]``); passes the live env on."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name, self.version = inner.name, inner.version

    def judge(self, trajectory: Any, *, env: Any = None) -> Any:
        j = self.inner.judge(trajectory, env=env) if env is not None else self.inner.judge(trajectory)
        j.details["pid"] = os.getpid()
        return j


class ScriptedProRe:
    """A picklable ProRe judge factory over the scripted LLM (name and version without building)."""

    name = ProReJudge.name
    version = ProReJudge.version

    def __call__(self) -> PidJudge:
        return PidJudge(ProReJudge(ScriptedLLM(reply_fn=prore_reply), evaluator=OpenContacts, k=1))


class CountingRule:
    """The rule judge, counting its calls (class-level: in-process runs only)."""

    name = RuleJudge.name
    version = RuleJudge.version
    calls = 0

    def __init__(self) -> None:
        self.inner = RuleJudge()

    def judge(self, trajectory: Any) -> Any:
        type(self).calls += 1
        return self.inner.judge(trajectory)


class BuggyJudge:
    """A judge with a bug: raises on every episode."""

    name = "buggy"
    version = "buggy-v1"

    def judge(self, trajectory: Any) -> Any:
        raise RuntimeError("judge bug (test)")


class ServerDownProRe:
    """ProRe's name and version, but its server is down (an InfrastructureError)."""

    name = ProReJudge.name
    version = ProReJudge.version

    def judge(self, trajectory: Any, *, env: Any = None) -> Any:
        raise LLMUnavailableError("connection refused (test)", status=None)


class DeviceLike:
    """The simulator behind a device's face: no ``phone`` attribute (as over adb), so the runner saves
    no state and a judge can only see the end state by probing this env while it is open. Logs
    every call."""

    def __init__(self, task: Any, seed: int) -> None:
        self._sim = SimEnv(task=task, seed=seed)
        self.log: list[str] = []

    def reset(self) -> Any:
        self.log.append("reset")
        return self._sim.reset()

    def observe(self) -> Any:
        self.log.append("observe")
        return self._sim.observe()

    def step(self, action: Action) -> Any:
        self.log.append(f"step:{action.action_type}")
        return self._sim.step(action)

    def close(self) -> None:
        self.log.append("close")
        self._sim.close()
