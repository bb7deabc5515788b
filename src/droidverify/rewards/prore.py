"""ProRe: a proactive reward that probes the state the policy left behind.

1. A reasoner writes 1..k probing goals ("open Contacts and show Ann Lee's entry"); when its reply
   has none, a rule-based goal is used (look at the task's apps for the goal's result).
2. An evaluator agent (any droidverify agent; a generator agent by default) executes each goal on a
   *clone* of the final phone state: the saved state after the fact, or the live phone of a
   simulator ``env`` passed right after the episode; a live device (adb ``env``) is probed as it is.
3. Claims (1-4 each: supporting rounds, reasoning, statement) are extracted separately from the
   policy's trace and from each probe's trace, every round read with the screen that round itself
   reached. Evaluator claims about the evaluator's own doing are dropped: a bare report of what it
   did ("I opened Contacts"), an outcome it caused ("I turned Wi-Fi on"), and, on a simulator, every
   screen after the first action of the probe that changed app data (the probe stops there).
4. The judge labels every policy claim confirmed / contradicted / complementary / unsupported and
   gives SUCCESS or FAILURE. Authors' mapping: success 1, failure 0, unreadable -1 (``undecided``).
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Callable
from typing import Any

from droidverify.agents.base import Agent
from droidverify.env.records import Observation, Step, Trajectory
from droidverify.episode.loop import play
from droidverify.errors import DroidVerifyError, JudgeInputError
from droidverify.llm.base import LLM
from droidverify.rewards.base import Judgement, Tally, trajectory_id, worst_parse
from droidverify.rewards.llmcall import Reply, call
from droidverify.rewards.parsing import find_tags, parse_verdict
from droidverify.rewards.prompts import prore as prompt
from droidverify.rewards.prompts.common import escape_tags, quote
from droidverify.rewards.rule import final_phone
from droidverify.rewards.scoring import (
    DEFAULT_THRESHOLD,
    check_threshold,
    check_verdict_mode,
    decide,
    score_chats,
    scored_version,
)

_FIRST_PERSON = re.compile(r"^\s*(?:i|we|the evaluator|evaluator)\b", re.IGNORECASE)
# What the evaluator did to the phone: an outcome it caused is not evidence about the policy.
_MUTATED = re.compile(
    r"\b(?:turn(?:ed)?|toggl\w*|switch(?:ed)?|enabl\w*|disabl\w*|delet\w*|remov\w*|creat\w*|add(?:ed)?|"
    r"sav(?:e|ed)|typ(?:e|ed)|enter(?:ed)?|set|chang\w*|renam\w*|mov(?:e|ed)|sen[dt]|edit\w*|check(?:ed)?|"
    r"uncheck\w*|mark(?:ed)?|star(?:red)?)\b", re.IGNORECASE)
# What the evaluator saw: a claim that reports an observation carries evidence however it got there.
_OBSERVED = re.compile(
    r"\b(?:saw|see|seen|shows?|showed|shown|showing|found|finds?|display\w*|list(?:s|ed)|contains?|"
    r"reads?|is|are|was|were|has|have|had|appears?|appeared|no longer)\b", re.IGNORECASE)
_LABEL = re.compile(r'<label\s+claim\s*=\s*"?(\d+)"?\s*>\s*(\w+)\s*</label>', re.IGNORECASE)


def fallback_probe(traj: Trajectory) -> str:
    """The rule-based probing goal used when the reasoner's reply holds none."""
    apps = traj.metadata.get("apps") if isinstance(traj.metadata, dict) else None
    where = f"the {' and '.join(map(str, apps))} app" if apps else "the relevant app"
    return (f"Without changing anything, open {where} and show the screen where the result of this "
            f"task would be visible: {traj.goal}")


def parse_claims(text: str | None, *, limit: int = 4) -> list[dict[str, str]]:
    """Claims in the ``<claim>`` grammar (statement required), at most ``limit``."""
    out: list[dict[str, str]] = []
    for body in find_tags(text or "", "claim"):
        statement = (find_tags(body, "statement") or [""])[0]
        if not statement:
            continue
        out.append({"steps": (find_tags(body, "steps") or [""])[0][:100],
                    "reasoning": (find_tags(body, "reasoning") or [""])[0][:500],
                    "statement": statement[:500]})
        if len(out) >= limit:
            break
    return out


def is_self_action(claim: dict[str, str]) -> bool:
    """An evaluator claim about the evaluator's own doing, which ProRe discards: a first-person report
    of an outcome it caused ("I turned on Wi-Fi"), or of what it did with nothing it observed ("I
    opened the Contacts app"). "I opened Contacts and saw Ann Lee listed" is an observation: kept."""
    statement = claim["statement"]
    if not _FIRST_PERSON.match(statement):
        return False
    return bool(_MUTATED.search(statement)) or not _OBSERVED.search(statement)


def data_fingerprint(phone: Any) -> str:
    """A digest of a simulated phone's app data (every SQL row), to see whether a probe changed it."""
    import hashlib

    phone.conn.commit()
    h = hashlib.sha256()
    for line in phone.conn.iterdump():
        h.update(line.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _live_phone(env: Any) -> Any | None:
    """The simulated phone of a live simulator env (cloned per probe), else None (a device)."""
    if env is None:
        return None
    from droidverify.env.sim.phone import Phone

    phone = getattr(env, "phone", None)
    return phone if isinstance(phone, Phone) else None


class _Watched:
    """``env`` whose ``step`` notes whether it changed the app data (``fingerprint``: a digest)."""

    def __init__(self, env: Any, fingerprint: Callable[[], str]) -> None:
        self.env, self.fingerprint = env, fingerprint
        self.before, self.changed = fingerprint(), False

    def step(self, action: Any) -> Observation:
        obs = self.env.step(action)
        self.changed = self.fingerprint() != self.before
        return obs  # type: ignore[no-any-return]


def _probe_rejection(_error: str | None, action: Any, exc: Exception) -> str:
    return f"env rejected {action.describe()}: {exc}"


def probe(agent: Agent, env: Any, goal: str, *, max_steps: int,
          fingerprint: Callable[[], str] | None = None) -> tuple[list[Step], Observation | None, str | None, int | None]:
    """Run ``agent`` on ``goal`` in ``env`` (already in the state to inspect), in the episode loop
    (``episode.loop.play``): an answer ends the probe unexecuted (it is the evaluator's reading).

    Returns (steps, final observation, error, changed_at). ``fingerprint`` (a simulator's app data
    digest): the probe stops after the first action that changed it; ``changed_at`` is that step's
    index and ``final`` the screen *before* it, since what came after is the evaluator's own outcome.
    """
    traj = Trajectory(task_id="probe", goal=goal)
    try:
        obs = env.observe()
        watched = _Watched(env, fingerprint) if fingerprint is not None else None
        agent.reset(goal)
        play(agent, watched or env, traj, obs, limit=max_steps, stop_at_answer=True, timed=False,
             on_step=(lambda _step, _traj: watched.changed) if watched is not None else None,
             catch_agent_errors=False, rejection=_probe_rejection, no_action_error=None)
        if watched is not None and watched.changed:
            last = traj.steps[-1]
            return traj.steps, last.observation, None, last.index
        return traj.steps, traj.final_observation, None, None
    except Exception as exc:  # noqa: BLE001 -- a crashing evaluator is recorded; the judge goes on
        return traj.steps, None, f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}", None


class ProReJudge:
    name = "prore"
    version = prompt.VERSION

    def __init__(self, llm: LLM, *, evaluator: Callable[[], Agent] | None = None, k: int = 2,
                 max_probe_steps: int = 6, max_tokens: int = 256, verdict: str = "text",
                 threshold: float = DEFAULT_THRESHOLD) -> None:
        """``verdict="score"``: only the final judge call is scored -- one fixed Yes/No question
        after the claims, success iff P(Yes) >= ``threshold`` (``rewards.scoring``); the reasoner
        and the claims are still generated."""
        self.verdict = check_verdict_mode(verdict)
        self.threshold = check_threshold(threshold)
        if self.verdict == "score":
            self.version = scored_version(prompt.SCORE_VERSION, self.threshold)
        if not isinstance(k, int) or k < 1:
            raise JudgeInputError(f"k (probing goals) must be a positive int, got {k!r}")
        if max_probe_steps < 1:
            raise JudgeInputError(f"max_probe_steps must be >= 1, got {max_probe_steps}")
        self.llm = llm
        if evaluator is None:
            from droidverify.agents.generator import GeneratorAgent

            def evaluator() -> Agent:
                return GeneratorAgent(llm, memory="history", max_tokens=max_tokens)
        self.evaluator = evaluator
        self.k = k
        self.max_probe_steps = max_probe_steps
        self.max_tokens = max_tokens

    def judge(self, trajectory: Trajectory, *, env: Any = None) -> Judgement:
        """``env``: the live environment the episode ended in, still open (``droidverify run
        --judge prore`` passes it). A simulator env's phone is cloned for each probe (the episode's
        state is left alone and every probe starts from it); any other env (a device over adb) is
        probed as it is, one probe after the other. Without ``env`` the saved simulator state
        (``metadata["final_phone_state"]``) is cloned for each probe. ``details["probe_target"]``
        says which: ``live_clone``, ``live_env``, ``saved_state`` or ``none``."""
        tally = Tally()
        eid = trajectory_id(trajectory)
        statuses: list[str] = []
        # 1. probing goals
        r = call(self.llm, prompt.reasoner_messages(trajectory.goal, trajectory.steps,
                                                    trajectory.final_observation, k=self.k),
                 tally, max_tokens=self.max_tokens)
        goals = [g[:300] for g in find_tags(r.text or "", "probe") if g.strip()][: self.k]
        goals_source = "reasoner" if goals else "fallback"
        statuses.append("error" if r.text is None else "strict" if goals else "failed")
        if not goals:
            goals = [fallback_probe(trajectory)]
        # 2. probe a clone of the final state (or the live env)
        live_phone = _live_phone(env)
        own_phone = env is None
        try:
            phone = final_phone(trajectory) if own_phone else live_phone
        except DroidVerifyError as exc:
            phone, phone_error = None, str(exc)
        else:
            phone_error = None
        probe_target = ("live_clone" if live_phone is not None else "live_env" if env is not None
                        else "saved_state" if phone is not None else "none")
        probes: list[dict[str, Any]] = []
        traces: list[tuple[int, list[Step], Observation | None]] = []  # (probe, steps it can speak for, final)
        evaluator_name: str | None = None
        for n, g in enumerate(goals, start=1):
            if phone is not None:
                from droidverify.env.sim import SimEnv

                target = SimEnv.attach(phone.clone())
            elif env is not None:
                target = env
            else:
                probes.append({"goal": g, "error": phone_error or "no final phone state saved and no live env"})
                continue
            agent = self.evaluator()
            evaluator_name = evaluator_name or str(getattr(agent, "name", None) or type(agent).__name__)
            sim = _live_phone(target)
            watch = (lambda ph=sim: data_fingerprint(ph)) if sim is not None else None
            steps, final, err, changed_at = probe(agent, target, g, max_steps=self.max_probe_steps, fingerprint=watch)
            for s in steps:
                tally.add(s.usage)
            probes.append({"goal": g, "error": err, "changed_state_at": changed_at, "steps": [
                {"action": s.action.to_json() if s.action else None, "error": s.error,
                 "xml": s.observation.xml} for s in steps],
                "final_xml": final.xml if final is not None else None})
            # Each probe is read on its own: its rounds with the screens it reached, up to (not
            # including) an action of its own that changed the phone's data.
            usable = steps[:changed_at] if changed_at is not None else steps
            if usable or final is not None:
                traces.append((n, [Step(index=i, observation=s.observation, action=s.action, error=s.error)
                                   for i, s in enumerate(usable)], final))
            if target is not env:
                target.close()
        if phone is not None and own_phone:
            phone.close()
        # 3. claims
        rp = call(self.llm, prompt.claims_messages(trajectory.goal, "working agent", trajectory.steps,
                                                   trajectory.final_observation), tally,
                  max_tokens=self.max_tokens)
        policy_claims = parse_claims(rp.text)
        statuses.append("error" if rp.text is None else "strict" if policy_claims else "failed")
        if not policy_claims:  # a claim to test is needed; the policy's own ending is the claim
            done = "declared the task complete" if trajectory.declared_done else "did not finish"
            policy_claims = [{"steps": "", "reasoning": "fallback", "statement": f"The agent {done}: {trajectory.goal}"}]
        evaluator_claims: list[dict[str, str]] = []
        for n, ev_steps, ev_final in traces:
            re_ = call(self.llm, prompt.claims_messages(trajectory.goal, "evaluator", ev_steps, ev_final),
                       tally, max_tokens=self.max_tokens)
            found = parse_claims(re_.text)
            statuses.append("error" if re_.text is None else "strict" if found else "failed")
            evaluator_claims += [{**c, "probe": str(n)} for c in found]
        kept = [c for c in evaluator_claims if not is_self_action(c)]
        discarded = [c for c in evaluator_claims if is_self_action(c)]
        # 4. judge
        claim_args = (trajectory.goal, [quote(c["statement"], max_len=300) for c in policy_claims],
                      [f"(probe {c['probe']}) {quote(c['statement'], max_len=300)}" for c in kept], goals)
        labels: dict[int, str] = {}
        verdict = None
        scored = None
        if self.verdict == "score":  # no text to parse: the scored token is the verdict, no labels
            [scored] = score_chats(self.llm, [prompt.judge_score_messages(*claim_args)], tally)
            rj = Reply(None, scored.error)
            if scored.p_yes is not None:
                verdict = "success" if decide(scored.p_yes, self.threshold) else "failure"
            statuses.append("strict" if verdict is not None else "error")
        else:
            rj = call(self.llm, prompt.judge_messages(*claim_args), tally, max_tokens=self.max_tokens)
            if rj.text is not None:
                labels = {int(n): lab.lower() for n, lab in _LABEL.findall(rj.text)
                          if lab.lower() in prompt.LABELS and 1 <= int(n) <= len(policy_claims)}
                rest = _LABEL.sub("", rj.text)
                parsed = parse_verdict(rest)
                verdict = parsed.verdict
                statuses.append(parsed.status if labels or parsed.status != "strict" else "tolerant")
            else:
                statuses.append("error")
        details = {"probes": probes, "probe_target": probe_target, "evaluator": evaluator_name,
                   "goals_source": goals_source, "policy_claims": policy_claims,
                   "evaluator_claims": kept, "discarded_claims": discarded,
                   "labels": {str(k): v for k, v in sorted(labels.items())}}
        components = {"probes": len(goals), "policy_claims": len(policy_claims),
                      "evaluator_claims": len(kept), "discarded": len(discarded),
                      **{lab: sum(v == lab for v in labels.values()) for lab in prompt.LABELS}}
        if scored is not None:
            components["threshold"] = self.threshold
            if scored.p_yes is not None:
                components.update(p_yes=scored.p_yes, logprob_yes=scored.logprob_yes,
                                  logprob_no=scored.logprob_no)
        if verdict is None:
            return tally.judgement(episode_id=eid, judge=self.name, version=self.version, outcome="undecided",
                                   reward=-1.0, components={**components, "score": -1},
                                   parse_status=worst_parse(statuses), details=details,
                                   error=rj.error or "judge reply has no readable verdict")
        ok = verdict == "success"
        rationale = (f"P(Yes) = {scored.p_yes:.4f} {'>=' if ok else '<'} threshold {self.threshold:.4f}"
                     if scored is not None and scored.p_yes is not None else escape_tags(parsed.reasoning)[:2000])
        return tally.judgement(
            episode_id=eid, judge=self.name, version=self.version, outcome="success" if ok else "failure",
            reward=1.0 if ok else 0.0, components={**components, "score": 1 if ok else 0},
            rationale=rationale, parse_status=worst_parse(statuses), details=details)
