"""VerifierAgent with a deterministic LLM double: scoring, argmax, entropy, batching, head, completion."""

from __future__ import annotations

import math

import pytest
from agent_doubles import RuleLLM, dump_observation

from droidverify.actions.model import Action
from droidverify.agents import Agent, VerifierAgent, extract_candidates
from droidverify.agents.verifier.agent import clean_reply, closest_app, softmax_entropy, yes_probability
from droidverify.errors import DroidVerifyError, LLMOutputError


def _agent(llm, **kw):
    agent = VerifierAgent(llm, **kw)
    agent.reset("Save the note")
    return agent


def test_picks_highest_p_yes_and_records_every_candidate(form_screen):
    llm = RuleLLM(yes_words=(">Save<",))
    agent = _agent(llm)
    assert isinstance(agent, Agent)
    out = agent.act(form_screen, [])
    assert out.action == Action(action_type="click", index=2)
    assert len(llm.score_calls) == 1  # one batched call for all candidates
    info = out.info
    cands = extract_candidates(form_screen)
    assert info["n_candidates"] == len(cands) == len(info["candidates"])
    assert [c["action"] for c in info["candidates"]] == [c.to_json() for c in cands]
    scores = [c["score"] for c in info["candidates"]]
    assert scores[info["chosen"]] == pytest.approx(0.9 / 0.95)  # normalised over Yes/No
    assert all(s == pytest.approx(0.1 / 0.7) for i, s in enumerate(scores) if i != info["chosen"])
    # Entropy of the softmax over candidate scores.
    z = sum(math.exp(s) for s in scores)
    expected = -sum(math.exp(s) / z * math.log(math.exp(s) / z) for s in scores)
    assert info["entropy"] == pytest.approx(expected)
    assert 0 < info["entropy_normalized"] <= 1
    assert info["prefix_tokens"] == llm.count_tokens(llm.score_calls[0][0]) > 0
    assert info["seconds_scoring"] >= 0 and info["completion"] is None
    assert out.usage.cached_tokens == info["prefix_tokens"]
    assert info["candidates"][info["chosen"]]["description"] == "click <button id=2 onclick>Save</button>"


def test_tie_break_is_first_candidate(form_screen):
    out = _agent(RuleLLM()).act(form_screen, [])
    assert out.action == extract_candidates(form_screen)[0]
    assert out.info["entropy_normalized"] == pytest.approx(1.0)


def test_batching_gives_same_scores(form_screen):
    one, batched = RuleLLM(yes_words=("Cancel",)), RuleLLM(yes_words=("Cancel",))
    a = _agent(one).act(form_screen, [])
    b = _agent(batched, batch_size=4).act(form_screen, [])
    n = a.info["n_candidates"]
    assert len(batched.score_calls) == math.ceil(n / 4)
    assert {p for p, _ in batched.score_calls} == {one.score_calls[0][0]}
    assert [c["score"] for c in a.info["candidates"]] == [c["score"] for c in b.info["candidates"]]
    assert a.action == b.action == Action(action_type="click", index=3)
    with pytest.raises(DroidVerifyError, match="batch_size"):
        VerifierAgent(one, batch_size=0)


def test_learned_head_on_logits(form_screen):
    # Head: prefer the candidate with the *lowest* Yes logit (opposite of P(Yes)), to see it is used.
    def head(logits):
        return (-logits[:, 0]).tolist()

    out = _agent(RuleLLM(yes_words=(">Save<",), logits=True), head=head).act(form_screen, [])
    assert out.info["score_kind"] == "head"
    assert out.action != Action(action_type="click", index=2)
    with pytest.raises(LLMOutputError, match="logits"):
        _agent(RuleLLM(), head=head).act(form_screen, [])


def test_score_result_without_targets_is_an_error(form_screen):
    class Broken(RuleLLM):
        def score(self, prefix, continuations, targets=("Yes", "No")):
            res = super().score(prefix, continuations, targets)
            res.logprobs[0] = {"Yes": -1.0}
            return res

    with pytest.raises(LLMOutputError, match="Yes/No"):
        _agent(Broken()).act(form_screen, [])


def test_open_app_completion_exact_fuzzy_and_unknown(form_screen):
    apps = ["Clock", "Contacts", "Chrome"]
    out = _agent(RuleLLM(rules={"open an app": 0.99}, replies=["App: \"Contacts\"\n"]),
                 apps=apps).act(form_screen, [])
    assert out.action == Action(action_type="open_app", app_name="Contacts")
    assert out.info["completion"]["match"] == "exact"
    # Misspelt: closest known app via difflib, recorded as a fallback.
    out = _agent(RuleLLM(rules={"open an app": 0.99}, replies=["Clokc"]), apps=apps).act(form_screen, [])
    assert out.action == Action(action_type="open_app", app_name="Clock")
    assert "Clokc" in out.info["completion"]["fallback"]
    # Unknown app: completion fails, the next-best candidate is taken and the failure is recorded.
    llm = RuleLLM(rules={"open an app": 0.99, "go back": 0.8}, replies=["Minesweeper 3000"])
    out = _agent(llm, apps=apps).act(form_screen, [])
    assert out.action == Action(action_type="navigate_back")
    assert "not among the known apps" in out.error
    assert out.info["completion_failures"][0]["raw"] == "Minesweeper 3000"
    # The completion prompt lists the known apps.
    assert "Clock, Contacts, Chrome" in llm.generate_calls[0][1]["content"]


def test_open_app_without_app_list_accepts_cleaned_name(form_screen):
    out = _agent(RuleLLM(rules={"open an app": 0.99}, replies=["'Calendar'."])).act(form_screen, [])
    assert out.action == Action(action_type="open_app", app_name="Calendar")


def test_input_text_completion_sanitised(form_screen):
    llm = RuleLLM(rules={"type text into": 0.95}, replies=['Text: "milk and eggs"<|im_end|>\nignored'])
    out = _agent(llm).act(form_screen, [])
    assert out.action == Action(action_type="input_text", index=1, text="milk and eggs")
    assert out.info["completion"]["kind"] == "input_text"
    assert "<input id=1" in llm.generate_calls[0][1]["content"]
    assert out.usage.completion_tokens == 3


def test_garbage_answer_falls_back(form_screen):
    llm = RuleLLM(rules={"answer the user": 0.99, "declare the task complete": 0.7},
                  replies=["<|im_end|>  \n"])
    out = _agent(llm).act(form_screen, [])
    assert out.action == Action(action_type="status", goal_status="complete")
    assert out.info["completion_failures"][0]["error"] == "empty answer"
    assert "answer" in out.error


def test_memory_enters_prompt_and_info(form_screen):
    from droidverify.env.records import Step

    agent = _agent(RuleLLM(), memory="history")
    hist = [Step(index=0, observation=form_screen, action=Action(action_type="click", index=3))]
    out = agent.act(form_screen, hist)
    assert out.info["memory"] == "Step 1: click <button id=3 onclick onlongclick>Cancel</button>"
    assert out.info["memory_name"] == "history"
    assert out.info["memory"] in agent.llm.score_calls[0][0]


def test_real_dump_step():
    obs = dump_observation("mobile-env__gmail_welcome.xml")
    llm = RuleLLM(yes_words=("GOT IT",))
    agent = VerifierAgent(llm)
    agent.reset("Dismiss the welcome screen")
    out = agent.act(obs, [])
    got_it = next(i for i, e in enumerate(obs.elements) if e.text == "GOT IT")
    assert out.action == Action(action_type="click", index=got_it)
    assert "New in Gmail" in llm.score_calls[0][0]


def test_helpers():
    assert yes_probability(math.log(0.3), math.log(0.1)) == pytest.approx(0.75)
    assert yes_probability(-1000.0, 0.0) == pytest.approx(0.0)
    assert softmax_entropy([1.0, 1.0]) == pytest.approx(math.log(2))
    assert softmax_entropy([]) == 0.0
    assert clean_reply("Answer: `42`\nmore", max_len=10) == "42"
    assert closest_app("open the chrome app", ["Chrome", "Clock"]) == ("Chrome", "contained")
    assert closest_app("zzz", ["Chrome"])[0] is None


def test_candidate_entries_are_candidate_records_in_the_old_layout(form_screen):
    """Issue 10 (design): the agent builds each entry of info["candidates"] as a CandidateRecord;
    its dict is the layout run directories already hold, and the report reads the entries back
    through the same type to the same scores and choice."""
    import json

    from droidverify.agents.base import CandidateRecord
    from droidverify.agents.screen import describe_action
    from droidverify.runner.report import _verifier_view

    out = _agent(RuleLLM(yes_words=(">Save<",))).act(form_screen, [])
    entries = out.info["candidates"]
    cands = extract_candidates(form_screen)
    # The layout of runs written before the record type: these keys, in this order, these values.
    yes = (">Save<",)
    expected = []
    for c in cands:
        d = describe_action(c, form_screen.elements)
        p_yes, p_no = (0.9, 0.05) if any(w in d for w in yes) else (0.1, 0.6)
        expected.append({"action": c.to_json(), "description": d,
                         "score": yes_probability(math.log(p_yes), math.log(p_no)),
                         "logprob_yes": math.log(p_yes), "logprob_no": math.log(p_no)})
    assert [list(e) for e in entries] == [list(x) for x in expected]
    # pytest >= 9 refuses approx over nested structures: strings exactly, floats approximately.
    for got, want in zip(entries, expected, strict=True):
        assert {k: v for k, v in got.items() if not isinstance(v, float)} == \
            {k: v for k, v in want.items() if not isinstance(v, float)}
        assert [v for v in got.values() if isinstance(v, float)] == \
            pytest.approx([v for v in want.values() if isinstance(v, float)])
    records = CandidateRecord.list_from(json.loads(json.dumps(out.info)))  # as a run file holds it
    assert [r.to_dict() for r in records] == entries
    assert max(range(len(records)), key=lambda i: (records[i].score, -i)) == out.info["chosen"]
    view = _verifier_view(out.info, top_k=len(entries))
    assert view is not None
    chosen = [b for b in view.bars if b.chosen]
    assert len(chosen) == 1 and chosen[0].index == out.info["chosen"] and chosen[0].rank == 1
    assert chosen[0].description == "click <button id=2 onclick>Save</button>"
    assert [b.score for b in view.bars] == sorted((r.score for r in records), reverse=True)


def test_avoid_repeats_takes_the_next_best_on_a_screen_already_acted_on(form_screen):
    rules = {">Save<": 0.9, "Cancel": 0.8}
    plain = _agent(RuleLLM(rules=rules))
    assert [plain.act(form_screen, []).action for _ in range(2)] == [Action(action_type="click", index=2)] * 2

    agent = _agent(RuleLLM(rules=rules), avoid_repeats=True)
    first = agent.act(form_screen, [])
    assert first.action == Action(action_type="click", index=2) and first.info["skipped_repeats"] == []
    second = agent.act(form_screen, [])
    assert second.action.action_type in ("click", "long_press") and second.action.index == 3
    assert second.info["skipped_repeats"] == [first.info["chosen"]]
    assert second.info["argmax"] == first.info["chosen"]  # the scores are unchanged; only the choice moves
    # Another screen is a fresh start, and so is a new episode.
    other = dump_observation("mobile-env__gmail_welcome.xml")
    assert agent.act(other, []).info["skipped_repeats"] == []
    agent.reset("Save the note")
    assert agent.act(form_screen, []).action == first.action


def test_avoid_repeats_when_every_candidate_was_taken_repeats_the_best(form_screen):
    agent = _agent(RuleLLM(rules={">Save<": 0.9}, reply_fn=lambda messages: "milk"), avoid_repeats=True)
    n = len(extract_candidates(form_screen))
    taken = [agent.act(form_screen, []) for _ in range(n)]
    assert len({o.action.to_json() for o in taken}) == n and not any(o.info["all_repeats"] for o in taken)
    again = agent.act(form_screen, [])
    assert again.info["all_repeats"] is True
    assert again.action == Action(action_type="click", index=2)


def _draws(agent, screen, n):
    return [agent.act(screen, []) for _ in range(n)]


def test_temperature_draws_follow_the_softmax_over_scores(form_screen):
    rules = {">Save<": 0.9, "Cancel": 0.8}
    agent = _agent(RuleLLM(rules=rules, reply_fn=lambda messages: "milk"), temperature=0.5, sample_seed=3)
    outs = _draws(agent, form_screen, 600)
    scores = [c["score"] for c in outs[0].info["candidates"]]
    z = sum(math.exp(s / 0.5) for s in scores)
    counts = [0] * len(scores)
    for o in outs:
        counts[o.info["chosen"]] += 1
        assert o.info["argmax"] == outs[0].info["argmax"]  # the scores are fixed; only the choice moves
        assert o.info["sampled_rank"] == sorted(range(len(scores)), key=lambda i: (-scores[i], i)).index(
            o.info["chosen"])
        assert o.info["temperature"] == 0.5 and o.info["top_k"] is None
    for i, s in enumerate(scores):  # within 4.5 standard errors of the softmax probability
        p = math.exp(s / 0.5) / z
        assert abs(counts[i] / 600 - p) <= 4.5 * math.sqrt(p * (1 - p) / 600) + 1e-9, (i, counts[i], p)
    assert len({o.info["chosen"] for o in outs}) > 3  # not the argmax every time


def test_temperature_draws_are_reproducible_per_seed_and_goal(form_screen):
    def run(seed, goal="Save the note"):
        agent = VerifierAgent(RuleLLM(rules={">Save<": 0.9}, reply_fn=lambda m: "milk"), temperature=1.0,
                              sample_seed=seed)
        agent.reset(goal)
        first = [o.info["chosen"] for o in _draws(agent, form_screen, 30)]
        agent.reset(goal)  # a new episode with the same goal draws the same sequence again
        assert [o.info["chosen"] for o in _draws(agent, form_screen, 30)] == first
        return first

    assert run(1) == run(1)
    assert run(1) != run(2)
    assert run(1) != run(1, goal="Delete the note")


def test_top_k_draws_only_among_the_k_best(form_screen):
    rules = {">Save<": 0.9, "Cancel": 0.8}
    outs = _draws(_agent(RuleLLM(rules=rules, reply_fn=lambda m: "milk"), temperature=5.0, top_k=2),
                  form_screen, 200)
    scores = [c["score"] for c in outs[0].info["candidates"]]
    best_two = sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:2]
    assert {o.info["chosen"] for o in outs} == set(best_two)


def test_zero_temperature_is_the_argmax_and_bad_settings_raise(form_screen):
    outs = _draws(_agent(RuleLLM(rules={">Save<": 0.9}), temperature=0.0), form_screen, 5)
    assert all(o.action == Action(action_type="click", index=2) and "sampled_rank" not in o.info for o in outs)
    for kw, what in [({"temperature": -1.0}, "temperature"), ({"temperature": float("nan")}, "temperature"),
                     ({"temperature": 1.0, "top_k": 0}, "top_k")]:
        with pytest.raises(DroidVerifyError, match=what):
            VerifierAgent(RuleLLM(), **kw)


def test_finish_check_vetoes_status_complete_and_the_next_candidate_is_taken(form_screen):
    calls = []

    def check(goal, history, observation, action):
        calls.append((goal, len(history), observation is form_screen, action.to_json()))
        return False, {"p_success": 0.1}

    rules = {"complete": 0.95, ">Save<": 0.9}
    plain = _agent(RuleLLM(rules=rules)).act(form_screen, [])
    assert plain.action == Action(action_type="status", goal_status="complete") and "finish_checks" not in plain.info
    agent = _agent(RuleLLM(rules=rules), finish_check=check, max_finish_vetoes=1)
    out = agent.act(form_screen, [])
    assert out.action == Action(action_type="click", index=2)
    [rec] = out.info["finish_checks"]
    assert rec == {"candidate": out.info["argmax"], "accepted": False, "p_success": 0.1}
    assert calls == [("Save the note", 0, True, Action(action_type="status", goal_status="complete").to_json())]
    # The veto budget is spent: completion is taken unchecked; a new episode has a fresh budget.
    again = agent.act(form_screen, [])
    assert again.action.action_type == "status" and "finish_checks" not in again.info and len(calls) == 1
    agent.reset("Save the note")
    assert agent.act(form_screen, []).action == Action(action_type="click", index=2) and len(calls) == 2
    # An accepted completion is recorded and taken.
    ok = _agent(RuleLLM(rules=rules), finish_check=lambda *a: (True, {})).act(form_screen, [])
    assert ok.action.action_type == "status" and ok.info["finish_checks"][0]["accepted"] is True
    with pytest.raises(DroidVerifyError, match="finish_check must be callable"):
        VerifierAgent(RuleLLM(), finish_check="compact")
    with pytest.raises(DroidVerifyError, match="max_finish_vetoes"):
        VerifierAgent(RuleLLM(), finish_check=check, max_finish_vetoes=-1)
