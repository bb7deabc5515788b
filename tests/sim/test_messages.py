"""Messages app, its tasks and the Contacts+Messages multi-app tasks."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from simhelpers import fresh

from droidverify.actions.model import Action
from droidverify.env.sim import SimEnv
from droidverify.env.sim.apps.contacts import PHONE_TYPES, add_contact, find_contacts, normalize_number
from droidverify.env.sim.apps.messages import (
    TYPE_FAILED,
    TYPE_SENT,
    add_sms,
    delete_thread,
    display_name,
    mark_thread_read,
    refresh_thread,
    thread_for,
)
from droidverify.env.sim.phone import Phone
from droidverify.env.sim.timeutil import from_ms
from droidverify.tasks import registry
from droidverify.tasks.messages import pick_message
from droidverify.tasks.oracle_utils import find

MINE = ("messages_", "multi_send_contact_number_by_sms", "multi_add_message_sender_as_contact",
        "multi_update_contact_number_from_message", "multi_text_then_airplane_mode", "multi_text_alarm_time")
NAMES = [t.name for t in registry.all_templates() if t.name.startswith(MINE)]


def test_enough_templates() -> None:
    assert len([n for n in NAMES if n.startswith("messages_")]) >= 22
    assert len([n for n in NAMES if n.startswith("multi_")]) >= 4


# ---- checker cases -------------------------------------------------------------------------------
def _send(number_key: str, body: str | Callable[[dict], str]) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        text = body(q) if callable(body) else q[body]
        add_sms(p, q[number_key], text, kind=TYPE_SENT)
    return go


def _both(*fns: Callable[[Phone, dict], Any]) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        for f in fns:
            f(p, q)
    return go


def _airplane(p: Phone, _q: dict) -> None:
    p.put_setting("global", "airplane_mode_on", 1)


def _tid(p: Phone, number: str) -> int:
    tid = thread_for(p, number)
    assert tid is not None
    return tid


def _new_contact(name_key: str, number_key: str) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        first, _, last = q[name_key].partition(" ")
        add_contact(p, first, last, number=q[number_key], ptype=PHONE_TYPES["Mobile"])
    return go


def _set_number(p: Phone, name: str, number: str) -> None:
    (cid,) = find_contacts(p, name)
    p.execute("UPDATE data SET data1=? WHERE raw_contact_id=? AND mimetype LIKE '%phone_v2'", (number, cid))


def _other(number: str) -> str:
    d = normalize_number(number)
    return f"({d[:3]}) {d[3:6]}-{(int(d[6:]) + 7) % 10000:04d}"


def _sms_id(p: Phone, number: str, body: str) -> int:
    (sid,) = [m["_id"] for m in p.query("SELECT _id, body FROM sms WHERE thread_id=?", (_tid(p, number),))
              if m["body"] == body]
    return sid


def _delete_sms(body_key: str) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        p.execute("DELETE FROM sms WHERE _id=?", (_sms_id(p, q["number"], q[body_key]),))
        refresh_thread(p, _tid(p, q["number"]))
    return go


def _retry(p: Phone, q: dict) -> None:
    p.execute("UPDATE sms SET type=? WHERE type=? AND thread_id=?", (TYPE_SENT, TYPE_FAILED, _tid(p, q["number"])))


def _mark_all_read(p: Phone, _q: dict) -> None:
    for t in p.query("SELECT _id FROM threads"):
        mark_thread_read(p, t["_id"])


def _all_but_one_read(p: Phone, q: dict) -> None:
    unread = p.query("SELECT _id FROM threads WHERE read=0")
    _mark_all_read(p, q)
    mark_thread_read(p, unread[-1]["_id"], read=False)


CASES: dict[str, tuple[Callable[[Phone, dict], None], Callable[[Phone, dict], None]]] = {
    "messages_send_to_contact": (_send("number", "body"), _send("decoy_number", "body")),  # namesake
    "messages_send_to_number": (_send("number", "body"),
                                lambda p, q: add_sms(p, _other(q["number"]), q["body"], kind=TYPE_SENT)),
    "messages_send_to_two_contacts": (_both(_send("number", "body"), _send("number_b", "body")),
                                      _send("number", "body")),  # only one of the two
    "messages_reply_to_latest": (_send("number", "body"),
                                 _both(_send("number", "body"), _send("number", "body"))),  # sent twice
    "messages_delete_conversation": (lambda p, q: delete_thread(p, _tid(p, q["number"])),
                                     lambda p, q: (delete_thread(p, _tid(p, q["number"])),
                                                   delete_thread(p, p.query_one("SELECT _id FROM threads")[0]))),
    "messages_mark_conversation_read": (lambda p, q: mark_thread_read(p, _tid(p, q["number"])),
                                        lambda p, q: p.execute("UPDATE sms SET read=1 WHERE _id=(SELECT MIN(_id) "
                                                               "FROM sms WHERE read=0)")),
    "messages_mark_conversation_unread": (lambda p, q: mark_thread_read(p, _tid(p, q["number"]), read=False),
                                          lambda p, q: None),
    "messages_mark_all_read": (_mark_all_read, _all_but_one_read),
    "messages_delete_single_message": (_delete_sms("body"), _delete_sms("fix")),  # the correction deleted
    "messages_forward_message": (_send("number_b", "body"), _send("number", "body")),  # back to the sender
    "messages_resend_failed_message": (_retry, _both(_retry, _send("number", "body"))),  # delivered twice
    "messages_delete_spam_conversation": (lambda p, q: delete_thread(p, _tid(p, q["spam_number"])),
                                          lambda p, q: delete_thread(p, _tid(p, q["number"]))),  # the friend's
    "messages_send_door_code": (_send("number_b", lambda q: f"It's {q['code']}"),
                                _send("number_b", lambda q: f"It's {q['old_code']}")),  # the old code
    "messages_reply_to_keyword_sender": (_send("number", "body"), _send("decoy_number", "body")),
    "multi_send_contact_number_by_sms": (_send("num_b", "num_a"),
                                         _send("num_a", "num_a")),  # number texted to the wrong person
    "multi_add_message_sender_as_contact": (_new_contact("new_name", "number"),
                                            lambda p, q: _new_contact("new_name", "number")(
                                                p, dict(q, number=_other(q["number"])))),
    "multi_update_contact_number_from_message": (lambda p, q: _set_number(p, q["name"], q["new"]),
                                                 lambda p, q: _set_number(p, q["name"], q["old"] + "0")),
    "multi_text_then_airplane_mode": (_both(_send("number", "body"), _airplane),
                                      _both(_airplane, lambda p, q: add_sms(p, q["number"], q["body"],
                                                                            kind=TYPE_FAILED))),
    "multi_text_alarm_time": (_send("number", "time"),
                              _send("number", lambda q: q["time"].split()[0] + " " +
                                    ("PM" if q["time"].endswith("AM") else "AM"))),  # wrong half of the day
}
QUERY_ANSWERS: dict[str, Callable[[Phone, dict], tuple[str, str]]] = {
    "messages_query_restaurant": lambda p, q: (f"They suggested {q['place']}", q["other"]),
    "messages_query_meeting_time": lambda p, q: (f"{q['day']} at {q['time']}", "12:00 PM"),
    "messages_query_wifi_password": lambda p, q: (q["password"], q["password"][:-2]),
    "messages_query_verification_code": lambda p, q: (q["code"], q["old_code"]),
    "messages_query_unread_count": lambda p, q: (str(q["count"]), str(q["count"] + 1)),
    "messages_query_latest_sender": lambda p, q: (q["name"], display_name(
        p, p.query("SELECT address FROM sms WHERE type=1 ORDER BY date DESC, _id DESC")[1]["address"])),
    "messages_search_parking_spot": lambda p, q: (f"Spot {q['spot']}", q["spot"][0] + "99"),
    "messages_query_last_received": lambda p, q: (f"They said: {q['last_in']}", q["reply"]),  # my own reply
}


def test_every_template_has_checker_cases() -> None:
    assert set(NAMES) == set(CASES) | set(QUERY_ANSWERS)


@pytest.mark.parametrize("name", sorted(CASES))
def test_checker_success_and_near_miss(name: str) -> None:
    tmpl = registry.get_template(name)
    for seed in range(3):
        task = tmpl.instantiate(seed)
        good, bad = CASES[name]
        env = fresh(task, seed)
        good(env.phone, task.params)
        assert env.is_successful() == 1.0, (name, seed, "success case")
        env = fresh(task, seed)
        bad(env.phone, task.params)
        assert env.is_successful() == 0.0, (name, seed, "near miss passed")


@pytest.mark.parametrize("name", sorted(QUERY_ANSWERS))
def test_query_checker_success_and_near_miss(name: str) -> None:
    tmpl = registry.get_template(name)
    for seed in range(3):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        right, wrong = QUERY_ANSWERS[name](env.phone, task.params)
        assert task.is_successful(env.phone, right) == 1.0, (name, seed, right)
        assert task.is_successful(env.phone, wrong) == 0.0, (name, seed, wrong)


def test_unread_count_is_read_from_state_not_params() -> None:
    task = registry.get_template("messages_query_unread_count").instantiate(0)
    env = fresh(task, 0)
    env.phone.execute("UPDATE sms SET read=1")  # the agent read everything before answering
    for t in env.phone.query("SELECT _id FROM threads"):
        mark_thread_read(env.phone, t["_id"])
    assert task.is_successful(env.phone, str(task.params["count"])) == 0.0


def test_resend_by_typing_it_again_passes_but_to_the_namesake_fails() -> None:
    task = registry.get_template("messages_resend_failed_message").instantiate(0)
    env = fresh(task, 0)
    _send("number", "body")(env.phone, task.params)  # typed again instead of tapping retry
    assert env.is_successful() == 1.0
    env = fresh(task, 0)
    _send("decoy_number", "body")(env.phone, task.params)
    assert env.is_successful() == 0.0


def test_delete_single_message_by_deleting_the_thread_fails() -> None:
    task = registry.get_template("messages_delete_single_message").instantiate(1)
    env = fresh(task, 1)
    delete_thread(env.phone, _tid(env.phone, task.params["number"]))
    assert env.is_successful() == 0.0


def test_door_code_with_both_codes_fails() -> None:
    task = registry.get_template("messages_send_door_code").instantiate(2)
    env = fresh(task, 2)
    _send("number_b", lambda q: f"old {q['old_code']}, new {q['code']}")(env.phone, task.params)
    assert env.is_successful() == 0.0


# ---- screens -------------------------------------------------------------------------------------
def _open(seed: int = 0) -> SimEnv:
    env = SimEnv(seed=seed)
    env.reset()
    env.step(Action(action_type="open_app", app_name="Messages"))
    return env


def _obs(env: SimEnv):
    obs = env.last_observation
    assert obs is not None
    return obs


def _click(env: SimEnv, **criteria: Any) -> None:
    i = find(_obs(env), **criteria)
    assert i is not None, (criteria, [(e.text, e.content_description) for e in _obs(env).elements])
    env.step(Action(action_type="click", index=i))


def _type(env: SimEnv, text: str, rid: str) -> None:
    i = find(_obs(env), editable=True, resource_id=rid)
    assert i is not None, rid
    env.step(Action(action_type="input_text", index=i, text=text))


def test_conversation_list_newest_first_with_contact_names_and_unread_description() -> None:
    env = _open(0)
    p = env.phone
    threads = p.query("SELECT * FROM threads ORDER BY date DESC")
    assert len(threads) >= 10
    rows = [e for e in _obs(env).elements if (e.resource_id or "").endswith("swipeableContainer")]
    first = display_name(p, threads[0]["recipient_ids"])
    assert first in (rows[0].text or rows[0].content_description or "")
    assert first != threads[0]["recipient_ids"]  # a contact's name, not the number
    mark_thread_read(p, threads[0]["_id"], read=False)
    obs = env.observe()
    assert find(obs, desc_contains=f"Unread conversation with {first}") is not None
    assert find(obs, desc="Start chat") is not None and find(obs, desc="Search") is not None


def test_thread_shows_latest_bubbles_marks_read_and_scrolls_up() -> None:
    env = _open(1)
    p = env.phone
    number = "(415) 555-0100"
    for i in range(25):
        add_sms(p, number, f"message number {i}", when=p.now - timedelta(hours=30 - i), read=False)
    env.step(Action(action_type="navigate_back"))
    env.step(Action(action_type="open_app", app_name="Messages"))
    _click(env, desc_contains="Unread conversation with (415) 555-0100")
    assert p.location == "messages/thread"
    obs = _obs(env)
    assert find(obs, text="message number 24") is not None  # opened at the bottom
    assert find(obs, text="message number 0") is None  # old bubbles are off screen
    assert p.query_one("SELECT COUNT(*) FROM sms WHERE read=0 AND thread_id=?", (thread_for(p, number),))[0] == 0
    for _ in range(10):
        obs = env.step(Action(action_type="scroll", direction="up"))
    assert find(obs, text="message number 0") is not None


def test_compose_suggests_contacts_and_sends_reply() -> None:
    env = _open(2)
    p = env.phone
    add_contact(p, "Zelda", "Fitzgerald", number="(212) 555-0142")
    _click(env, desc="Start chat")
    _type(env, "Zelda", "recipient_text_view")
    _click(env, text="Zelda Fitzgerald", resource_id="contact_picker_row")
    assert p.location == "messages/thread"
    send = find(_obs(env), desc="Send SMS")
    assert send is not None and not _obs(env).elements[send].is_enabled  # nothing typed yet
    _type(env, "Lunch at noon?", "compose_message_text")
    _click(env, desc="Send SMS")
    row = p.query_one("SELECT * FROM sms ORDER BY _id DESC")
    assert (row["body"], row["type"], normalize_number(row["address"])) == ("Lunch at noon?", TYPE_SENT,
                                                                          "2125550142")
    assert find(_obs(env), text="Lunch at noon?") is not None
    assert find(_obs(env), text="Lunch at noon?", editable=True) is None  # the field was cleared


def test_send_to_raw_number_and_airplane_mode_fails_the_send() -> None:
    env = _open(3)
    p = env.phone
    p.put_setting("global", "airplane_mode_on", 1)
    _click(env, desc="Start chat")
    _type(env, "650 555 0177", "recipient_text_view")
    _click(env, resource_id="send_to_number")
    _type(env, "hello", "compose_message_text")
    _click(env, desc="Send SMS")
    row = p.query_one("SELECT * FROM sms ORDER BY _id DESC")
    assert row["type"] == TYPE_FAILED and "airplane" in (p.toast or "").lower()


def test_long_press_delete_asks_for_confirmation() -> None:
    env = _open(4)
    p = env.phone
    t = p.query_one("SELECT * FROM threads ORDER BY date DESC")
    name = display_name(p, t["recipient_ids"])
    before = p.query_one("SELECT COUNT(*) FROM threads")[0]
    i = find(_obs(env), text=name, resource_id="swipeableContainer")
    assert i is not None
    env.step(Action(action_type="long_press", index=i))
    assert find(_obs(env), text="1 selected") is not None
    _click(env, desc="Delete")
    assert p.dialog is not None and p.dialog.data["title"] == "Delete 1 conversation?"
    _click(env, text="Cancel")
    assert p.query_one("SELECT COUNT(*) FROM threads")[0] == before
    _click(env, desc="Delete")
    _click(env, text="Delete", resource_id="button1")
    assert p.query_one("SELECT COUNT(*) FROM threads")[0] == before - 1
    assert thread_for(p, t["recipient_ids"]) is None


def test_search_finds_message_text_and_opens_thread() -> None:
    env = _open(5)
    p = env.phone
    add_sms(p, "(503) 555-0111", "The spare key is under the blue flowerpot", when=p.now - timedelta(days=4))
    _click(env, desc="Search")
    _type(env, "flowerpot", "search_text")
    results = [e for e in _obs(env).elements if (e.resource_id or "").endswith("search_result")]
    assert len(results) == 1 and "blue flowerpot" in (results[0].text or "")
    _click(env, resource_id="search_result")
    assert p.location == "messages/thread"
    _click(env, desc="Navigate up")
    _type(env, "qqqqzz", "search_text")
    assert find(_obs(env), text="No results") is not None


def test_long_press_message_selects_it_then_delete_or_forward() -> None:
    env = _open(6)
    p = env.phone
    number = "(503) 555-0123"
    add_sms(p, number, "first line", when=p.now - timedelta(hours=3))
    add_sms(p, number, "second line", kind=TYPE_SENT, when=p.now - timedelta(hours=2))
    add_sms(p, number, "third line", when=p.now - timedelta(hours=1))
    env.step(Action(action_type="navigate_back"))
    env.step(Action(action_type="open_app", app_name="Messages"))
    _click(env, text=number, resource_id="swipeableContainer")
    i = find(_obs(env), text="second line", resource_id="message_content")
    assert i is not None
    env.step(Action(action_type="long_press", index=i))
    assert find(_obs(env), text="1 selected") is not None
    env.step(Action(action_type="navigate_back"))  # back clears the selection, stays in the chat
    assert p.location == "messages/thread" and find(_obs(env), text="1 selected") is None
    env.step(Action(action_type="long_press", index=find(_obs(env), text="second line",
                                                          resource_id="message_content")))
    _click(env, desc="Delete")
    assert p.dialog is not None and p.dialog.data["title"] == "Delete message?"
    _click(env, text="Delete", resource_id="button1")
    bodies = [m["body"] for m in p.query("SELECT body FROM sms WHERE thread_id=?", (thread_for(p, number),))]
    assert bodies == ["first line", "third line"]
    assert find(_obs(env), text="1 selected") is None
    env.step(Action(action_type="long_press", index=find(_obs(env), text="third line",
                                                          resource_id="message_content")))
    _click(env, desc="Forward")
    assert p.location == "messages/compose"
    add_contact(p, "Zelda", "Fitzgerald", number="(212) 555-0142")
    _type(env, "Zelda", "recipient_text_view")
    _click(env, text="Zelda Fitzgerald", resource_id="contact_picker_row")
    assert p.location == "messages/thread" and p.screen.fields.get("message") == "third line"
    _click(env, desc="Send SMS")
    row = p.query_one("SELECT * FROM sms ORDER BY _id DESC")
    assert (row["body"], row["type"], normalize_number(row["address"])) == ("third line", TYPE_SENT, "2125550142")


def test_pick_message_scrolls_to_an_off_screen_message_and_skips_its_look_alike() -> None:
    # bubbles show up as message_content rows (their message_text view is folded in); the oracle
    # helper used to look for message_text, never found an off-screen message and looped on BACK
    env = _open(6)
    p = env.phone
    number = "(503) 555-0123"
    add_sms(p, number, "Running late", kind=TYPE_SENT, when=p.now - timedelta(hours=5))
    add_sms(p, number, "see you soon", when=p.now - timedelta(hours=4, minutes=50))
    for k in range(25):
        add_sms(p, number, f"filler line {k}", when=p.now - timedelta(hours=4) + timedelta(minutes=5 * k))
    add_sms(p, number, "Running late", kind=TYPE_SENT, when=p.now - timedelta(minutes=30))  # the look-alike
    target = p.query_one("SELECT _id FROM sms WHERE body='Running late' ORDER BY _id")[0]
    env.step(Action(action_type="navigate_back"))
    env.step(Action(action_type="open_app", app_name="Messages"))
    _click(env, text=number, resource_id="swipeableContainer")
    assert find(_obs(env), text="Running late", resource_id="message_content") is not None  # only the twin
    kinds = []
    for _ in range(20):
        step = pick_message(p, _obs(env), target, "Running late")
        if step is None:
            break
        kinds.append(step.action_type)
        env.step(step)
    assert p.location == "messages/thread" and p.screen.state.get("selected_msg") == target, kinds
    assert "navigate_back" not in kinds and kinds[-1] == "long_press" and "scroll" in kinds


def test_tap_failed_message_retries_unless_airplane_mode() -> None:
    env = _open(7)
    p = env.phone
    number = "(617) 555-0188"
    add_sms(p, number, "are you there?", kind=TYPE_FAILED, when=p.now - timedelta(hours=1))
    env.step(Action(action_type="navigate_back"))
    env.step(Action(action_type="open_app", app_name="Messages"))
    _click(env, text=number, resource_id="swipeableContainer")
    p.put_setting("global", "airplane_mode_on", 1)
    _click(env, text="Not sent · Tap to retry", resource_id="message_content")
    assert p.query_one("SELECT type FROM sms ORDER BY _id DESC")[0] == TYPE_FAILED
    p.put_setting("global", "airplane_mode_on", 0)
    _click(env, text="Not sent · Tap to retry", resource_id="message_content")
    assert p.query_one("SELECT type FROM sms ORDER BY _id DESC")[0] == TYPE_SENT
    assert find(_obs(env), text="Not sent · Tap to retry") is None


# ---- checker cases for the later templates (bulk/conditional actions, other apps, dates, counts) ------
def _short_code_threads(p: Phone) -> list[int]:
    return [t["_id"] for t in p.query("SELECT _id, recipient_ids FROM threads")
            if normalize_number(t["recipient_ids"]).isdigit() and len(normalize_number(t["recipient_ids"])) <= 6]


def _delete_codes(p: Phone, _q: dict) -> None:
    for tid in _short_code_threads(p):
        delete_thread(p, tid)


def _reply_people(people: Callable[[dict], list]) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        for who in people(q):
            add_sms(p, who["number"], q["body"], kind=TYPE_SENT)
    return go


def _delete_failed(p: Phone, q: dict) -> None:
    p.execute("DELETE FROM sms WHERE thread_id=? AND type=?", (_tid(p, q["number"]), TYPE_FAILED))
    refresh_thread(p, _tid(p, q["number"]))


def _all_read_but(p: Phone, q: dict) -> None:
    _mark_all_read(p, q)
    mark_thread_read(p, _tid(p, q["number"]), read=False)


def _airplane_off(p: Phone, _q: dict) -> None:
    p.put_setting("global", "airplane_mode_on", 0)


NEW_CASES: dict[str, tuple[Callable[[Phone, dict], None], Callable[[Phone, dict], None]]] = {
    "messages_delete_code_sender_chats": (_delete_codes,  # near miss: the friend who mentions a code goes too
                                          _both(_delete_codes, lambda p, q: delete_thread(p, _tid(p, q["number"])))),
    "messages_reply_to_all_unread": (_reply_people(lambda q: q["people"]),
                                     _reply_people(lambda q: q["people"][:-1])),  # one unread person forgotten
    "messages_text_contact_work_number": (_send("work", "body"), _send("number", "body")),  # the mobile
    "messages_delete_unsent_texts": (_delete_failed, _retry),  # resent instead of deleted
    "messages_mark_all_read_except_one": (_all_read_but, _mark_all_read),  # the exception read too
    "messages_resend_after_airplane_off": (_both(_airplane_off, _retry), _retry),  # airplane mode left on
    "messages_text_number_from_message": (_send("cell", "body"), _send("office", "body")),  # the office line
}


def _their_last_day(p: Phone, q: dict) -> str:
    row = p.query_one("SELECT MAX(date) FROM sms WHERE thread_id=? AND type=1", (_tid(p, q["number"]),))
    return from_ms(row[0]).strftime("%B %d").replace(" 0", " ")


def _my_reply_day(p: Phone, q: dict) -> str:
    row = p.query_one("SELECT MAX(date) FROM sms WHERE thread_id=? AND type=2", (_tid(p, q["number"]),))
    return from_ms(row[0]).strftime("%b %d").replace(" 0", " ")


NEW_QUERIES: dict[str, Callable[[Phone, dict], tuple[str, str]]] = {
    "messages_query_texts_received_count": lambda p, q: (f"{q['count']} texts", str(len(q["lines"]))),  # all
    "messages_query_last_text_date": lambda p, q: (_their_last_day(p, q), _my_reply_day(p, q)),  # my reply's
    "messages_query_unknown_texter_number": lambda p, q: (f"It was {q['number']}", q["other"]),  # other stranger
    "messages_query_did_i_reply": lambda p, q: ("Yes" if q["replied"] else "No, you didn't",
                                                "No" if q["replied"] else "Yes"),
    "messages_query_quietest_conversation": lambda p, q: (q["name"], q["name_b"]),  # the second-quietest
}
CASES.update(NEW_CASES)
QUERY_ANSWERS.update(NEW_QUERIES)


@pytest.mark.parametrize("name", sorted(NEW_CASES))
def test_new_checker_success_and_near_miss(name: str) -> None:
    test_checker_success_and_near_miss(name)


@pytest.mark.parametrize("name", sorted(NEW_QUERIES))
def test_new_query_checker_success_and_near_miss(name: str) -> None:
    test_query_checker_success_and_near_miss(name)


def test_delete_unsent_texts_also_deleting_a_delivered_one_fails() -> None:
    task = registry.get_template("messages_delete_unsent_texts").instantiate(0)
    env = fresh(task, 0)
    _delete_failed(env.phone, task.params)
    env.phone.execute("DELETE FROM sms WHERE _id=?", (_sms_id(env.phone, task.params["number"],
                                                              task.params["delivered"]),))
    assert env.is_successful() == 0.0


def test_reply_to_all_unread_with_an_extra_reply_fails() -> None:
    task = registry.get_template("messages_reply_to_all_unread").instantiate(1)
    env = fresh(task, 1)
    _reply_people(lambda q: q["people"] + q["people"][:1])(env.phone, task.params)  # someone got it twice
    assert env.is_successful() == 0.0


def test_resend_after_airplane_off_needs_both_texts() -> None:
    task = registry.get_template("messages_resend_after_airplane_off").instantiate(2)
    env = fresh(task, 2)
    _airplane_off(env.phone, task.params)
    sid = _sms_id(env.phone, task.params["number"], task.params["bodies"][0])
    env.phone.execute("UPDATE sms SET type=? WHERE _id=?", (TYPE_SENT, sid))  # only the first one resent
    assert env.is_successful() == 0.0


def test_did_i_reply_hedged_answer_fails() -> None:
    task = registry.get_template("messages_query_did_i_reply").instantiate(0)
    env = fresh(task, 0)
    assert task.is_successful(env.phone, "Yes or no, I can't tell") == 0.0


# ---- round 3 templates -----------------------------------------------------------------------------
def _sent_copies(p: Phone, q: dict) -> list[int]:
    return [m["_id"] for m in p.query("SELECT _id, body FROM sms WHERE thread_id=? AND type=2 ORDER BY _id",
                                      (_tid(p, q["number"]),)) if m["body"] == q["body"]]


def _delete_ids(p: Phone, ids: list[int]) -> None:
    for sid in ids:
        tid = p.query_one("SELECT thread_id FROM sms WHERE _id=?", (sid,))["thread_id"]
        p.execute("DELETE FROM sms WHERE _id=?", (sid,))
        refresh_thread(p, tid)


def _retry_all(keep_one_failed: bool = False) -> Callable[[Phone, dict], None]:
    def go(p: Phone, _q: dict) -> None:
        ids = [r["_id"] for r in p.query("SELECT _id FROM sms WHERE type=? ORDER BY _id", (TYPE_FAILED,))]
        for sid in ids[1:] if keep_one_failed else ids:
            p.execute("UPDATE sms SET type=? WHERE _id=?", (TYPE_SENT, sid))
    return go


def _delete_people(pick: Callable[[dict], list]) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        for who in pick(q):
            delete_thread(p, _tid(p, who["number"]))
    return go


def _mark_other_unread(p: Phone, q: dict) -> None:
    other = p.query_one("SELECT _id FROM threads WHERE _id!=? ORDER BY date DESC", (_tid(p, q["number"]),))
    mark_thread_read(p, other["_id"], read=False)


def _retry_body(key: str) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        p.execute("UPDATE sms SET type=? WHERE _id=?", (TYPE_SENT, _sms_id(p, q["number"], q[key])))
    return go


def _read_people(today_only: bool) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        for who in q["people"]:
            if who["today"] or not today_only:
                mark_thread_read(p, _tid(p, who["number"]))
    return go


def _delete_before(extra_days: int) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        limit = datetime.fromisoformat(q["cutoff"]) + timedelta(days=extra_days)
        rows = p.query("SELECT _id, date FROM sms WHERE thread_id=?", (_tid(p, q["number"]),))
        _delete_ids(p, [r["_id"] for r in rows if from_ms(r["date"]) < limit])
    return go


def _thread_days(p: Phone, number: str) -> list[str]:
    rows = p.query("SELECT date FROM sms WHERE thread_id=? ORDER BY date", (_tid(p, number),))
    days = sorted({from_ms(r["date"]).date() for r in rows})
    return [d.strftime("%B %d").replace(" 0", " ") for d in days]


def _time_of(p: Phone, q: dict, body: str) -> str:
    (row,) = [m for m in p.query("SELECT body, date FROM sms WHERE thread_id=?", (_tid(p, q["number"]),))
              if m["body"] == body]
    return from_ms(row["date"]).strftime("%I:%M %p").lstrip("0")


ROUND3_CASES: dict[str, tuple[Callable[[Phone, dict], None], Callable[[Phone, dict], None]]] = {
    "messages_correct_sent_typo": (_both(_delete_sms("wrong"), _send("number", "right")),
                                   _send("number", "right")),  # the wrong text left in place
    "messages_delete_duplicate_texts": (lambda p, q: _delete_ids(p, _sent_copies(p, q)[1:]),
                                        lambda p, q: _delete_ids(p, _sent_copies(p, q))),  # no copy kept
    "messages_resend_failed_in_all_chats": (_retry_all(), _retry_all(keep_one_failed=True)),
    "messages_delete_stale_conversations": (
        _delete_people(lambda q: [w for w in q["people"] if w["days"]]),
        _delete_people(lambda q: q["people"])),  # the one from the cutoff day itself deleted too
    "messages_mark_unread_by_topic": (lambda p, q: mark_thread_read(p, _tid(p, q["number"]), read=False),
                                      _mark_other_unread),  # the wrong conversation
    "messages_resend_one_delete_other": (_both(_delete_sms("drop"), _retry_body("keep")),
                                         _both(_delete_sms("keep"), _retry_body("drop"))),  # swapped
    "messages_mark_read_only_today": (_read_people(today_only=True), _read_people(today_only=False)),
    "messages_delete_thread_messages_before_date": (_delete_before(0), _delete_before(1)),  # the cutoff day too
}
ROUND3_QUERIES: dict[str, Callable[[Phone, dict], tuple[str, str]]] = {
    "messages_query_first_text_date": lambda p, q: (_thread_days(p, q["number"])[0],
                                                    _thread_days(p, q["number"])[1]),  # the second day
    "messages_query_more_recent_of_two": lambda p, q: (q["a"]["name"], q["b"]["name"]),  # b's chat is on top
    "messages_query_message_time": lambda p, q: (_time_of(p, q, q["body"]), _time_of(p, q, q["reply"])),
    "messages_query_mention_count": lambda p, q: (f"{q['count']} messages", str(q["count"] + 1)),
}
CASES.update(ROUND3_CASES)
QUERY_ANSWERS.update(ROUND3_QUERIES)


@pytest.mark.parametrize("name", sorted(ROUND3_CASES))
def test_round3_checker_success_and_near_miss(name: str) -> None:
    test_checker_success_and_near_miss(name)


@pytest.mark.parametrize("name", sorted(ROUND3_QUERIES))
def test_round3_query_checker_success_and_near_miss(name: str) -> None:
    test_query_checker_success_and_near_miss(name)


def test_correct_sent_typo_resending_the_wrong_text_fails() -> None:
    task = registry.get_template("messages_correct_sent_typo").instantiate(0)
    env = fresh(task, 0)
    _both(_delete_sms("wrong"), _send("number", "wrong"))(env.phone, task.params)
    assert env.is_successful() == 0.0


def test_delete_duplicate_texts_deleting_their_reply_fails() -> None:
    task = registry.get_template("messages_delete_duplicate_texts").instantiate(1)
    env = fresh(task, 1)
    p, q = env.phone, task.params
    _delete_ids(p, _sent_copies(p, q)[1:])
    _delete_ids(p, [_sms_id(p, q["number"], "Haha I got it the first time 😂")])
    assert env.is_successful() == 0.0


def test_resend_failed_in_all_chats_retyped_instead_of_retried_passes_but_twice_fails() -> None:
    task = registry.get_template("messages_resend_failed_in_all_chats").instantiate(2)
    env = fresh(task, 2)
    p, q = env.phone, task.params
    for who in q["people"]:  # deleted the failed ones and typed them again: still delivered once each
        _delete_ids(p, [_sms_id(p, who["number"], who["body"])])
        add_sms(p, who["number"], who["body"], kind=TYPE_SENT)
    assert env.is_successful() == 1.0
    add_sms(p, q["people"][0]["number"], q["people"][0]["body"], kind=TYPE_SENT)
    assert env.is_successful() == 0.0


def test_message_time_hedged_answer_fails() -> None:
    task = registry.get_template("messages_query_message_time").instantiate(0)
    env = fresh(task, 0)
    p, q = env.phone, task.params
    right, wrong = _time_of(p, q, q["body"]), _time_of(p, q, q["reply"])
    assert task.is_successful(p, right.replace(" ", "").lower()) == 1.0  # "2:47pm"
    assert task.is_successful(p, f"{right} or {wrong}") == 0.0


def test_mention_count_is_read_from_state() -> None:
    task = registry.get_template("messages_query_mention_count").instantiate(3)
    env = fresh(task, 3)
    p, q = env.phone, task.params
    add_sms(p, q["people"][0]["number"], f"One more about the {q['word']}", kind=TYPE_SENT)
    assert task.is_successful(p, str(q["count"])) == 0.0


# ---- round 4 templates: derived replies, conditional and partly-done work, bulk by content ---------------
def _pending_or_all(everyone: bool) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        for who in q["people"]:
            if who["asked"] and (everyone or not who["answered"]):
                add_sms(p, who["number"], q["body"], kind=TYPE_SENT)
    return go


def _share(total: bool) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        a, b, _c = q["cents"]
        cents = a + b if total else (a + b) // q["ways"]
        add_sms(p, q["number"], f"It's ${cents / 100:.2f} each", kind=TYPE_SENT)
    return go


def _waiting(pick: Callable[[list], dict]) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        who = pick(q["people"])
        mark_thread_read(p, _tid(p, who["number"]))  # opened it to answer
        add_sms(p, who["number"], q["body"], kind=TYPE_SENT)
    return go


def _fix_to(everyone: bool) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        for who in q["people"]:
            if everyone or who["wrong"]:
                add_sms(p, who["number"], q["fix"], kind=TYPE_SENT)
    return go


def _delete_containing(*keys: str) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        _delete_ids(p, [m["_id"] for m in p.query("SELECT _id, body FROM sms")
                        if any(q[k] in m["body"] for k in keys)])
    return go


def _mark_planted_unread(kinds: tuple[str, ...]) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        for who in q["people"]:
            if who["kind"] in kinds:
                mark_thread_read(p, _tid(p, who["number"]), read=False)
    return go


def _due_from(p: Phone, q: dict, today: bool) -> str:
    n = int(next(t for t in q["text"].split() if t.isdigit()))
    row = p.query_one("SELECT date FROM sms WHERE thread_id=? AND body=?", (_tid(p, q["number"]), q["text"]))
    base = p.now.date() if today else from_ms(row["date"]).date()
    return (base + timedelta(days=n)).strftime("%B %d").replace(" 0", " ")


def _sent_today(p: Phone) -> int:
    start = datetime.combine(p.now.date(), datetime.min.time())
    return sum(1 for m in p.query("SELECT date FROM sms WHERE type=2") if from_ms(m["date"]) >= start)


def _busiest(q: dict, by_theirs: bool) -> str:
    def size(who: dict) -> int:
        return sum(1 for way, _ in who["lines"] if way == "<") if by_theirs else len(who["lines"])
    return max(q["people"], key=size)["name"]


ROUND4_CASES: dict[str, tuple[Callable[[Phone, dict], None], Callable[[Phone, dict], None]]] = {
    "messages_reply_with_share": (_share(total=False), _share(total=True)),  # the whole total, not a share
    "messages_reply_depending_on_other_chat": (
        lambda p, q: add_sms(p, q["number"], q["no"] if q["busy"] else q["yes"], kind=TYPE_SENT),
        lambda p, q: add_sms(p, q["number"], q["yes"] if q["busy"] else q["no"], kind=TYPE_SENT)),  # other branch
    "messages_reply_to_longest_waiting": (_waiting(lambda ps: max(ps, key=lambda w: w["hours"])),
                                          _waiting(lambda ps: min(ps, key=lambda w: w["hours"]))),  # the newest
    "messages_finish_replying_to_askers": (_pending_or_all(False), _pending_or_all(True)),  # answered ones twice
    "messages_fix_wrong_time_sent": (_fix_to(everyone=False), _fix_to(everyone=True)),
    "messages_delete_texts_with_pin": (_delete_containing("pin"),
                                       _delete_containing("pin", "near")),  # the look-alike code deleted too
    "messages_mark_unanswered_questions_unread": (_mark_planted_unread(("open",)),
                                                  _mark_planted_unread(("open", "moved_on"))),
}
ROUND4_QUERIES: dict[str, Callable[[Phone, dict], tuple[str, str]]] = {
    "messages_query_reply_delay_minutes": lambda p, q: (f"{q['delay']} minutes", f"{q['other']} minutes"),
    "messages_query_date_after_text": lambda p, q: (_due_from(p, q, today=False), _due_from(p, q, today=True)),
    "messages_query_texts_sent_today": lambda p, q: (f"{_sent_today(p)} texts", str(_sent_today(p) + 1)),
    "messages_query_busiest_of_three": lambda p, q: (_busiest(q, False), _busiest(q, True)),
    "messages_query_all_delivered_today": lambda p, q: ("Yes" if q["all_ok"] else "No, one failed",
                                                        "No" if q["all_ok"] else "Yes"),
}
CASES.update(ROUND4_CASES)
QUERY_ANSWERS.update(ROUND4_QUERIES)
ROUND4 = sorted(ROUND4_CASES) + sorted(ROUND4_QUERIES)


@pytest.mark.parametrize("name", sorted(ROUND4_CASES))
def test_round4_checker_success_and_near_miss(name: str) -> None:
    test_checker_success_and_near_miss(name)


@pytest.mark.parametrize("name", sorted(ROUND4_QUERIES))
def test_round4_query_checker_success_and_near_miss(name: str) -> None:
    test_query_checker_success_and_near_miss(name)


def test_round4_fix_wrong_time_to_a_right_one_fails() -> None:
    task = registry.get_template("messages_fix_wrong_time_sent").instantiate(0)
    env = fresh(task, 0)
    right = next(w for w in task.params["people"] if not w["wrong"])
    add_sms(env.phone, right["number"], task.params["fix"], kind=TYPE_SENT)
    assert env.is_successful() == 0.0


def test_round4_longest_waiting_opening_another_unread_chat_fails() -> None:
    task = registry.get_template("messages_reply_to_longest_waiting").instantiate(1)
    env = fresh(task, 1)
    p, q = env.phone, task.params
    _waiting(lambda ps: max(ps, key=lambda w: w["hours"]))(p, q)
    assert env.is_successful() == 1.0
    other = min(q["people"], key=lambda w: w["hours"])
    mark_thread_read(p, _tid(p, other["number"]))  # peeked into another waiting chat
    assert env.is_successful() == 0.0


def test_round4_delete_pin_by_deleting_whole_conversations_fails() -> None:
    task = registry.get_template("messages_delete_texts_with_pin").instantiate(2)
    env = fresh(task, 2)
    p, q = env.phone, task.params
    for tid in {m["thread_id"] for m in p.query("SELECT thread_id, body FROM sms") if q["pin"] in m["body"]}:
        delete_thread(p, tid)
    assert env.is_successful() == 0.0


def test_round4_share_with_the_old_cost_fails_and_working_shown_passes() -> None:
    task = registry.get_template("messages_reply_with_share").instantiate(3)
    env = fresh(task, 3)
    p, q = env.phone, task.params
    a, b, c = q["cents"]
    add_sms(p, q["number"], f"${(a + b + c) / q['ways'] / 100:.2f} each", kind=TYPE_SENT)
    assert env.is_successful() == 0.0
    env = fresh(task, 3)
    share = (a + b) // q["ways"]
    add_sms(env.phone, q["number"], f"${a / 100:.2f} + ${b / 100:.2f} = ${(a + b) / 100:.2f}, so ${share / 100:.2f} "
            "each", kind=TYPE_SENT)
    assert env.is_successful() == 0.0  # four amounts: too many numbers
    env = fresh(task, 3)
    add_sms(env.phone, q["number"], f"Total ${(a + b) / 100:.2f} / {q['ways']} = ${share / 100:.2f}", kind=TYPE_SENT)
    assert env.is_successful() == 0.0  # the whole total is stated too


def test_round4_all_delivered_checks_todays_texts_only() -> None:
    for seed in range(6):
        task = registry.get_template("messages_query_all_delivered_today").instantiate(seed)
        env = fresh(task, seed)
        p, q = env.phone, task.params
        failed = [from_ms(m["date"]).date() for m in p.query("SELECT date FROM sms WHERE thread_id=? AND type=5",
                                                              (_tid(p, q["number"]),))]
        assert len(failed) == 1 and (failed[0] == p.now.date()) != q["all_ok"], seed


def test_round4_unanswered_questions_targets_match_the_goal_count() -> None:
    tmpl = registry.get_template("messages_mark_unanswered_questions_unread")
    for seed in (0, 1, 2, 1000, 1001, 1003):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        assert len(tmpl.targets(env.phone, task.params)) == task.params["count"], seed


# oracles from mid-task screens and on unseen draws under skins
def _detour_search(env: SimEnv) -> None:
    env.phone.open_app("messages")
    env.step(Action(action_type="click", index=find(env.observe(), desc="Search")))
    env.step(Action(action_type="input_text", index=find(env.observe(), resource_id="search_text"), text="the"))


def _detour_compose(env: SimEnv) -> None:
    env.phone.open_app("messages")
    env.step(Action(action_type="click", index=find(env.observe(), desc="Start chat")))
    env.step(Action(action_type="input_text", index=find(env.observe(), resource_id="recipient_text_view"),
                    text="Zz"))


def _detour_selection(env: SimEnv) -> None:
    env.phone.open_app("messages")
    env.step(Action(action_type="long_press", index=find(env.observe(), resource_id="swipeableContainer")))


def _detour_menu(env: SimEnv) -> None:
    env.phone.open_app("messages")
    env.step(Action(action_type="click", index=find(env.observe(), desc="More options")))


def _detour_thread_draft(env: SimEnv) -> None:
    env.phone.open_app("messages")
    obs = env.observe()
    rows = [i for i, e in enumerate(obs.elements) if (e.resource_id or "").endswith("swipeableContainer")]
    env.step(Action(action_type="click", index=rows[-1]))
    env.step(Action(action_type="input_text", index=find(env.observe(), resource_id="compose_message_text"),
                    text="draft"))


def _detour_delete_dialog(env: SimEnv) -> None:
    _detour_selection(env)
    env.step(Action(action_type="click", index=find(env.observe(), desc="Delete")))


DETOURS = [_detour_search, _detour_compose, _detour_selection, _detour_menu, _detour_thread_draft,
           _detour_delete_dialog]


@pytest.mark.parametrize("name", ROUND4)
def test_round4_oracle_finishes_from_mid_task_screens(name: str) -> None:
    tmpl = registry.get_template(name)
    for k, detour in enumerate(DETOURS):
        seed = 20 + k
        task = tmpl.instantiate(seed)
        env = SimEnv(task, seed)
        env.reset()
        detour(env)
        obs = env.observe()
        assert env.is_successful() == 0.0 or tmpl.kind == "query", (name, detour.__name__)
        for _ in range(tmpl.max_steps):
            action = task.oracle_action(env.phone, obs)
            if action.action_type == "status":
                break
            obs = env.step(action)
            if action.action_type == "answer":
                break
        else:
            raise AssertionError(f"{name} after {detour.__name__}: no finish (at {env.phone.location})")
        assert env.is_successful() == 1.0, (name, detour.__name__)


@pytest.mark.parametrize("name", ROUND4)
def test_round4_oracle_solves_unseen_seeds_under_skins(name: str) -> None:
    tmpl = registry.get_template(name)
    for seed in range(1000, 1005):
        task = tmpl.instantiate(seed)
        for skin in (0, 1 + seed % 11):
            env = SimEnv(task, seed, skin=skin)
            obs = env.reset()
            assert task.is_successful(env.phone, None) == 0.0, (name, seed)
            for n in range(1, tmpl.max_steps + 1):
                action = task.oracle_action(env.phone, obs)
                if action.action_type == "status":
                    break
                obs = env.step(action)
                if action.action_type == "answer":
                    break
            else:
                raise AssertionError(f"{name} seed {seed} skin {skin}: no finish (at {env.phone.location})")
            assert env.is_successful() == 1.0, (name, seed, skin)


# ---- round 5 templates: a contact by a number's ending, the chat's number in Details, delete-or-reply from inside a
# chat, one copy each, a text moved to the right person, a leave time from another chat, retry or follow up, my own
# texts taken back; questions that order, add up, list unread senders, find a failed text ---------------------------
def _bulk_send(pairs: Callable[[dict], list[tuple[str, str]]]) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        for number, body in pairs(q):
            add_sms(p, number, body, kind=TYPE_SENT)
    return go


def _confirmed_branch(right: bool) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        if q["confirmed"] == right:
            delete_thread(p, _tid(p, q["number"]))
        else:
            add_sms(p, q["number"], q["body"], kind=TYPE_SENT)
    return go


def _kind(q: dict, kind: str) -> dict:
    (who,) = [w for w in q["people"] if w["kind"] == kind]
    return who


def _one_copy_each(send: bool, delete: int) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        twice = _kind(q, "twice")
        copies = [m["_id"] for m in p.query("SELECT _id, body FROM sms WHERE thread_id=? AND type=2 ORDER BY _id",
                                            (_tid(p, twice["number"]),)) if m["body"] == q["body"]]
        _delete_ids(p, copies[:delete])
        if send:
            add_sms(p, _kind(q, "none")["number"], q["body"], kind=TYPE_SENT)
    return go


def _move_text(delete: bool) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        add_sms(p, q["people_b"]["number"], q["body"], kind=TYPE_SENT)
        if delete:
            _delete_ids(p, [_sms_id(p, q["number"], q["body"])])
    return go


def _leave_text(from_key: str) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        m = q[from_key] - q["drive"]
        h, mm = m // 60, m % 60
        add_sms(p, q["people_b"]["number"], f"Let's leave at {h % 12 or 12}:{mm:02d} {'AM' if h < 12 else 'PM'}",
                kind=TYPE_SENT)
    return go


def _retry_branch(right: bool) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        if q["failed"] == right:
            _retry_body("body")(p, q)
        else:
            add_sms(p, q["number"], q["followup"], kind=TYPE_SENT)
    return go


def _delete_mine(p: Phone, q: dict) -> None:
    _delete_ids(p, [m["_id"] for m in p.query("SELECT _id FROM sms WHERE thread_id=? AND type=2",
                                              (_tid(p, q["number"]),))])


def _list_order(p: Phone, q: dict) -> list[str]:
    return [display_name(p, t["recipient_ids"]) for t in p.query("SELECT recipient_ids FROM threads ORDER BY date DESC")
            if display_name(p, t["recipient_ids"]) in {w["name"] for w in q["people"]}]


def _work_or_mobile(q: dict, chat: bool) -> str:
    return q["work"] if q["chat_work"] == chat else q["number"]


def _owed(q: dict, settled: bool) -> str:
    cents = sum(w["cents"] for w in q["people"]) + sum(w["settled"]["cents"] for w in q["people"]
                                                       if settled and "settled" in w)
    return f"${cents / 100:.2f}"


def _unread_names(q: dict, extra: bool) -> str:
    names = [w["name"] for w in q["people"] if w["unread"]]
    return ", ".join(names + ([next(w["name"] for w in q["people"] if not w["unread"])] if extra else []))


ROUND5_CASES: dict[str, tuple[Callable[[Phone, dict], None], Callable[[Phone, dict], None]]] = {
    "messages_text_contact_by_number_ending": (_send("number", "body"),
                                               _send("other_number", "body")),  # the digits in the middle
    "messages_delete_chat_if_confirmed": (_confirmed_branch(True), _confirmed_branch(False)),  # the other branch
    "messages_make_sure_each_got_one_copy": (_one_copy_each(send=True, delete=1),
                                             _one_copy_each(send=True, delete=0)),  # the double left in place
    "messages_move_text_to_right_person": (_move_text(delete=True), _move_text(delete=False)),  # copied, not moved
    "messages_text_leave_time_from_other_chat": (_leave_text("lands"), _leave_text("planned")),  # before the delay
    "messages_retry_or_follow_up": (_retry_branch(True), _retry_branch(False)),
    "messages_delete_my_texts_in_chat": (_delete_mine, lambda p, q: delete_thread(p, _tid(p, q["number"]))),
}
ROUND5_QUERIES: dict[str, Callable[[Phone, dict], tuple[str, str]]] = {
    "messages_query_chat_number_of_contact": lambda p, q: (_work_or_mobile(q, True), _work_or_mobile(q, False)),
    "messages_query_order_of_last_texts": lambda p, q: (
        ", ".join(w["name"] for w in sorted(q["people"], key=lambda w: w["hours"])), ", ".join(_list_order(p, q))),
    "messages_query_total_owed": lambda p, q: (_owed(q, False), _owed(q, True)),  # the settled debt added
    "messages_query_unread_senders": lambda p, q: (_unread_names(q, False), _unread_names(q, True)),  # a read one
    "messages_query_chat_with_unsent_text": lambda p, q: (
        next(w["name"] for w in q["people"] if w["failed"]), next(w["name"] for w in q["people"] if not w["failed"])),
}
CASES.update(ROUND5_CASES)
QUERY_ANSWERS.update(ROUND5_QUERIES)
ROUND5 = sorted(ROUND5_CASES) + sorted(ROUND5_QUERIES)


@pytest.mark.parametrize("name", sorted(ROUND5_CASES))
def test_round5_checker_success_and_near_miss(name: str) -> None:
    test_checker_success_and_near_miss(name)


@pytest.mark.parametrize("name", sorted(ROUND5_QUERIES))
def test_round5_query_checker_success_and_near_miss(name: str) -> None:
    test_query_checker_success_and_near_miss(name)


def test_round5_number_ending_sent_to_the_typed_digits_fails() -> None:
    task = registry.get_template("messages_text_contact_by_number_ending").instantiate(0)
    env = fresh(task, 0)
    add_sms(env.phone, task.params["ending"], task.params["body"], kind=TYPE_SENT)  # "Send to 4471"
    assert env.is_successful() == 0.0


def test_round5_number_ending_only_the_target_ends_in_those_digits() -> None:
    from droidverify.env.sim.apps.contacts import contact_info, live_contacts

    for seed in (0, 1, 2, 1000, 1001):
        task = registry.get_template("messages_text_contact_by_number_ending").instantiate(seed)
        env = fresh(task, seed)
        q, p = task.params, env.phone
        nums = [n for c in live_contacts(p) for n, _t in contact_info(p, c["_id"])["phones"]]
        hits = [n for n in nums if q["ending"] in normalize_number(n)]
        assert sorted(hits) == sorted([q["number"], q["other_number"]]), seed
        assert [n for n in hits if normalize_number(n).endswith(q["ending"])] == [q["number"]], seed


def test_round5_one_copy_each_deleting_both_copies_and_resending_fails() -> None:
    task = registry.get_template("messages_make_sure_each_got_one_copy").instantiate(1)
    env = fresh(task, 1)
    p, q = env.phone, task.params
    _one_copy_each(send=True, delete=2)(p, q)
    add_sms(p, _kind(q, "twice")["number"], q["body"], kind=TYPE_SENT)
    assert env.is_successful() == 0.0
    env = fresh(task, 1)
    _one_copy_each(send=False, delete=1)(env.phone, q)  # half the job
    assert env.is_successful() == 0.0


def test_round5_retry_or_follow_up_also_retrying_the_old_failure_fails() -> None:
    tmpl = registry.get_template("messages_retry_or_follow_up")
    seed = next(s for s in range(20) if tmpl.instantiate(s).params["failed"])
    task = tmpl.instantiate(seed)
    env = fresh(task, seed)
    p, q = env.phone, task.params
    _retry_body("body")(p, q)
    assert env.is_successful() == 1.0
    _retry_body("old")(p, q)
    assert env.is_successful() == 0.0
    env = fresh(task, seed)  # typed again instead of tapping retry: still one delivered copy
    _delete_ids(env.phone, [_sms_id(env.phone, q["number"], q["body"])])
    add_sms(env.phone, q["number"], q["body"], kind=TYPE_SENT)
    assert env.is_successful() == 1.0


def test_round5_delete_my_texts_deleting_theirs_too_fails() -> None:
    task = registry.get_template("messages_delete_my_texts_in_chat").instantiate(2)
    env = fresh(task, 2)
    p, q = env.phone, task.params
    _delete_mine(p, q)
    assert env.is_successful() == 1.0
    _delete_ids(p, [p.query_one("SELECT _id FROM sms WHERE thread_id=? AND type=1", (_tid(p, q["number"]),))[0]])
    assert env.is_successful() == 0.0


def test_round5_leave_time_with_landing_time_too_fails() -> None:
    task = registry.get_template("messages_text_leave_time_from_other_chat").instantiate(3)
    env = fresh(task, 3)
    q = task.params
    m, ln = q["lands"] - q["drive"], q["lands"]
    add_sms(env.phone, q["people_b"]["number"], f"Lands {ln // 60}:{ln % 60:02d}, leave {m // 60}:{m % 60:02d}",
            kind=TYPE_SENT)
    assert env.is_successful() == 0.0
    env = fresh(task, 3)
    add_sms(env.phone, q["people_b"]["number"], f"Leave at {m // 60}:{m % 60:02d}", kind=TYPE_SENT)  # 24-hour
    assert env.is_successful() == 1.0


def test_round5_order_of_last_texts_list_order_differs_from_answer() -> None:
    tmpl = registry.get_template("messages_query_order_of_last_texts")
    for seed in (0, 1, 2, 1000, 1001):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        right, wrong = ROUND5_QUERIES[tmpl.name](env.phone, task.params)
        assert right != wrong, seed
        names = right.split(", ")
        assert task.is_successful(env.phone, " then ".join(names)) == 1.0
        assert task.is_successful(env.phone, ", ".join(names[:2])) == 0.0  # one left out


def test_round5_confirmed_chat_deleted_from_the_list_passes_and_the_other_chat_fails() -> None:
    tmpl = registry.get_template("messages_delete_chat_if_confirmed")
    seed = next(s for s in range(20) if tmpl.instantiate(s).params["confirmed"])
    task = tmpl.instantiate(seed)
    env = fresh(task, seed)
    delete_thread(env.phone, _tid(env.phone, task.params["people_b"]["number"]))  # the look-alike chat
    assert env.is_successful() == 0.0


def _oracle_shown(name: str, seed: int) -> tuple[str, list[tuple[str, Action]]]:
    """The goal, and (every text on screen, the oracle's action) per step of its solving path."""
    task = registry.get_template(name).instantiate(seed)
    env = SimEnv(task, seed)
    obs = env.reset()
    out = []
    for _ in range(task.max_steps):
        a = task.oracle_action(env.phone, obs)
        out.append((" | ".join(f"{e.text or ''} {e.content_description or ''}" for e in obs.elements).lower(), a))
        if a.action_type in ("status", "answer"):
            if a.action_type == "answer":
                env.step(a)
            break
        obs = env.step(a)
    assert env.is_successful() == 1.0, (name, seed)
    return task.goal.lower(), out


@pytest.mark.parametrize("name", ["messages_text_contact_by_number_ending", "messages_query_chat_number_of_contact",
                                  "messages_delete_chat_if_confirmed", "messages_make_sure_each_got_one_copy",
                                  "messages_move_text_to_right_person", "messages_retry_or_follow_up",
                                  "messages_query_chat_with_unsent_text"])
def test_round5_oracle_types_only_what_it_was_shown(name: str) -> None:
    for seed in (0, 1, 2, 1000):
        goal, path = _oracle_shown(name, seed)
        seen = [goal]
        for shown, a in path:
            seen.append(shown)
            if a.action_type in ("input_text", "answer") and a.text:
                assert any(a.text.lower() in s for s in seen), (name, seed, a.text)


@pytest.mark.parametrize("name", ["messages_query_order_of_last_texts", "messages_query_unread_senders"])
def test_round5_list_answers_name_people_after_their_chat_or_row_showed(name: str) -> None:
    for seed in (0, 1, 2, 1000):
        _goal, path = _oracle_shown(name, seed)
        final = path[-1][1]
        assert final.action_type == "answer" and final.text
        for who in final.text.split(", "):
            assert any(who.lower() in shown for shown, _ in path), (name, seed, who)


@pytest.mark.parametrize("name", ROUND5)
def test_round5_oracle_finishes_from_mid_task_screens(name: str) -> None:
    test_round4_oracle_finishes_from_mid_task_screens(name)


@pytest.mark.parametrize("name", ROUND5)
def test_round5_oracle_solves_unseen_seeds_under_skins(name: str) -> None:
    test_round4_oracle_solves_unseen_seeds_under_skins(name)
