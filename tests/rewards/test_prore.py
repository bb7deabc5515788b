from __future__ import annotations

import pytest
from rewards_doubles import ScriptedLLM

from droidverify.actions.model import Action
from droidverify.agents.base import AgentOutput
from droidverify.errors import JudgeInputError
from droidverify.rewards.labelled import oracle_trace, replay, variants
from droidverify.rewards.prore import ProReJudge, fallback_probe, is_self_action, parse_claims
from droidverify.tasks import registry

NAME = "Yusuf Yilmaz"


def episode(kind: str):
    import random

    task = registry.get_template("contacts_add_contact").instantiate(0)
    assert task.params["name"] == NAME
    acts = dict(variants(task, oracle_trace(task), random.Random(0)))[kind]
    return replay(task, acts, episode_id=f"c:0:{kind}")


class OpenContacts:
    """Evaluator double: opens Contacts, then declares done."""

    name = "probe-double"

    def reset(self, goal: str) -> None:
        self.n = 0

    def act(self, observation, history):
        self.n += 1
        action = (Action(action_type="open_app", app_name="Contacts") if self.n == 1
                  else Action(action_type="status", goal_status="complete"))
        return AgentOutput(action=action, raw_output=action.to_json())


def llm_that_reads_the_probe():
    """Reasoner: one probe. Claims: the policy always claims success; the evaluator's claim says
    what its trace shows. Judge: contradicted if the evaluator saw no contact, else confirmed."""

    def fn(messages, i):
        system, user = messages[0]["content"], messages[-1]["content"]
        if "<probe>" in system:
            return "<probe>Open Contacts and show the contact list.</probe>"
        if "<claim>" in system:
            if "Trace of the working agent" in user:
                return f"<claim><steps>3</steps><reasoning>it typed and saved</reasoning><statement>{NAME} was saved</statement></claim>"
            seen = NAME in user.split("Trace of the evaluator:")[1]  # the goal names it too
            stmt = f"{NAME} is in the contact list" if seen else f"{NAME} is not in the contact list"
            return (f"<claim><steps>0</steps><reasoning>list shown</reasoning><statement>{stmt}</statement></claim>"
                    "<claim><steps>0</steps><reasoning>x</reasoning><statement>I opened the Contacts app</statement></claim>")
        if "is not in the contact list" in user:
            return '<label claim="1">contradicted</label>\n<reasoning>not there</reasoning>\n<verdict>FAILURE</verdict>'
        return '<label claim="1">confirmed</label>\n<reasoning>there</reasoning>\n<verdict>SUCCESS</verdict>'

    return ScriptedLLM(reply_fn=fn)


@pytest.mark.parametrize("kind, outcome, label", [("not_saved", "failure", "contradicted"),
                                                  ("oracle", "success", "confirmed")])
def test_the_probe_sees_the_real_end_state(kind, outcome, label) -> None:
    traj = episode(kind)
    j = ProReJudge(llm_that_reads_the_probe(), evaluator=OpenContacts).judge(traj)
    assert j.outcome == outcome and j.details["labels"] == {"1": label}
    probe = j.details["probes"][0]
    assert probe["goal"] == "Open Contacts and show the contact list." and probe["error"] is None
    assert any("com.google.android.contacts" in s["xml"] for s in probe["steps"][1:]) or \
        "contacts" in (probe["final_xml"] or "")
    # the evaluator's claim about its own action was discarded
    assert [c["statement"] for c in j.details["discarded_claims"]] == ["I opened the Contacts app"]
    assert j.reward == (1.0 if outcome == "success" else 0.0)


def test_probing_a_clone_leaves_the_saved_state_alone() -> None:
    traj = episode("not_saved")
    before = traj.metadata["final_phone_state"]
    ProReJudge(llm_that_reads_the_probe(), evaluator=OpenContacts).judge(traj)
    assert traj.metadata["final_phone_state"] == before


def test_unparseable_reasoner_uses_the_fallback_goal_and_unreadable_judge_is_undecided() -> None:
    traj = episode("oracle")
    j = ProReJudge(ScriptedLLM(["no idea"]), evaluator=OpenContacts).judge(traj)
    assert j.details["goals_source"] == "fallback"
    assert j.details["probes"][0]["goal"] == fallback_probe(traj) and "Contacts" in fallback_probe(traj)
    assert j.outcome == "undecided" and j.reward == -1.0 and j.components["score"] == -1


def test_without_a_saved_state_probing_is_reported_not_faked() -> None:
    traj = episode("oracle")
    del traj.metadata["final_phone_state"]
    j = ProReJudge(llm_that_reads_the_probe(), evaluator=OpenContacts).judge(traj)
    assert "no final phone state" in j.details["probes"][0]["error"]


def test_crashing_evaluator_is_recorded() -> None:
    class Boom(OpenContacts):
        def act(self, observation, history):
            raise RuntimeError("evaluator bug")

    j = ProReJudge(llm_that_reads_the_probe(), evaluator=Boom).judge(episode("oracle"))
    assert "evaluator bug" in j.details["probes"][0]["error"]


def test_claim_parsing_and_self_action_filter() -> None:
    text = ("<claim><steps>1</steps><reasoning>r</reasoning><statement>A</statement></claim>" * 6
            + "<claim><steps>1</steps></claim>")
    assert len(parse_claims(text)) == 4
    assert parse_claims("garbage") == []
    assert is_self_action({"statement": "I tapped the Contacts icon"})
    assert not is_self_action({"statement": "The list shows Ann Lee"})
    with pytest.raises(JudgeInputError):
        ProReJudge(ScriptedLLM(["x"]), k=0)


class Scripted:
    """Evaluator double that plays a fixed list of actions, then declares done."""

    name = "scripted-probe"
    plan: tuple[Action, ...] = ()

    def reset(self, goal: str) -> None:
        self.n = 0

    def act(self, observation, history):
        action = self.plan[self.n] if self.n < len(self.plan) else Action(action_type="status", goal_status="complete")
        self.n += 1
        return AgentOutput(action=action, raw_output=action.to_json())


def _recording_llm(probes: list[str]):
    """Reasoner: the given probes. Records every evaluator-claims prompt; the judge says SUCCESS."""
    seen: list[str] = []

    def fn(messages, i):
        system, user = messages[0]["content"], messages[-1]["content"]
        if "<probe>" in system:
            return "".join(f"<probe>{p}</probe>" for p in probes)
        if "<claim>" in system:
            if "Trace of the evaluator" in user:
                seen.append(user)
                return f"<claim><steps>0</steps><reasoning>r</reasoning><statement>fact {len(seen)}</statement></claim>"
            return "<claim><steps>0</steps><reasoning>r</reasoning><statement>done</statement></claim>"
        return '<label claim="1">confirmed</label><reasoning>ok</reasoning><verdict>SUCCESS</verdict>'

    return ScriptedLLM(reply_fn=fn), seen


def test_each_probe_is_read_with_its_own_screens() -> None:
    class TwoApps(Scripted):
        calls = 0

        def reset(self, goal: str) -> None:
            super().reset(goal)
            app = "Contacts" if "Contacts" in goal else "Settings"
            self.plan = (Action(action_type="open_app", app_name=app),)

    llm, seen = _recording_llm(["Open Contacts", "Open Settings"])
    j = ProReJudge(llm, evaluator=TwoApps, k=2).judge(episode("oracle"))
    assert len(seen) == 2  # one claims call per probe
    contacts_trace, settings_trace = (u.split("Trace of the evaluator:")[1] for u in seen)
    assert NAME in contacts_trace and "Network & internet" not in contacts_trace
    assert "Network & internet" in settings_trace and NAME not in settings_trace
    assert [c["probe"] for c in j.details["evaluator_claims"]] == ["1", "2"]
    assert all(p["changed_state_at"] is None for p in j.details["probes"])


def test_a_probe_that_changes_the_phone_stops_and_only_earlier_screens_count() -> None:
    class Toggles(Scripted):
        plan = (Action(action_type="open_app", app_name="Settings"), Action(action_type="click", index=3),
                Action(action_type="click", index=5),  # Airplane mode: app data changes here
                Action(action_type="navigate_back"))

    llm, seen = _recording_llm(["Check airplane mode"])
    traj = episode("oracle")
    j = ProReJudge(llm, evaluator=Toggles).judge(traj)
    probe = j.details["probes"][0]
    assert probe["changed_state_at"] == 2 and len(probe["steps"]) == 3  # stopped right after the toggle
    trace = seen[0].split("Trace of the evaluator:")[1]
    assert "Round 2" not in trace and "Round 1" in trace  # the toggle and what followed are not evidence
    assert "Airplane mode" in trace  # the screen it saw before toggling is


@pytest.mark.parametrize("statement, dropped", [
    ("I opened the Contacts app", True),  # what it did, nothing observed
    ("I tapped the Contacts icon", True),
    ("I turned on Wi-Fi and it is now on", True),  # an outcome it caused
    ("I deleted the note, so it is gone", True),
    ("I opened Contacts and saw Ann Lee listed", False),  # an observation, however it got there
    ("I scrolled the list and the note Trip ideas is there", False),
    ("The list shows Ann Lee", False),
    ("Wi-Fi is on", False),
])
def test_self_action_filter_drops_only_the_evaluators_own_doing(statement: str, dropped: bool) -> None:
    assert is_self_action({"statement": statement}) is dropped
