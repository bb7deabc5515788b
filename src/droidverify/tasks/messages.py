"""Messages tasks: send to a contact / a number / two people, reply, delete a conversation, mark
read/unread, and queries answered from message text (places, times, codes, counts, senders).

Set-ups create the people and messages a goal names (dropping seeded namesakes and their threads)
and record a baseline (``task_baseline``: last sms id, thread count) so checkers can insist that
exactly the asked-for messages were sent and only the asked-for conversation was deleted.
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any, ClassVar

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim.apps.contacts import (
    normalize_number,
    random_number,
    remove_contacts_with_number,
)
from droidverify.env.sim.apps.messages import (
    TYPE_INBOX,
    add_sms,
    delete_thread,
    display_name,
    mark_thread_read,
    max_sms_id,
    sent_messages,
    thread_for,
)
from droidverify.env.sim.phone import Phone
from droidverify.errors import TaskError
from droidverify.tasks.base import TaskTemplate
from droidverify.tasks.contacts import decoy_of, person, put_contact, two_people
from droidverify.tasks.helpers import (
    BACK,
    COMPLETE,
    answer,
    answer_matches,
    click,
    click_or_scroll,
    find,
    navigate,
    scroll_toward,
    type_into,
)
from droidverify.tasks.registry import register_task

APP = "messages"
BODIES = ("Running about 10 minutes late", "Can you call me when you're free?", "Happy birthday!",
          "Don't forget the team dinner tonight", "I left the keys at the front desk",
          "Thanks for your help today", "See you at the gym at 6", "The package arrived",
          "Let's meet at the library at 4", "Please bring the charger tomorrow", "Good luck with the interview!",
          "The movie starts at 8:15")
PLACES = ("Luigi's Trattoria", "Blue Bottle Cafe", "Sakura Sushi Bar", "The Green Fork", "Taqueria El Sol",
          "Golden Dragon", "Cafe Madeleine", "Bombay Kitchen")
MEETINGS = ("budget review", "design sync", "quarterly planning", "client call", "team offsite", "1:1")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
SHORT_CODES = ("72975", "24273", "32665", "88012")


def norm_body(text: str | None) -> str:
    return " ".join((text or "").split()).lower().rstrip(".!")


# ---- baseline ------------------------------------------------------------------------------------
def record_baseline(phone: Phone) -> None:
    """Set-up: remember the last sms id and the thread count (checkers compare against them)."""
    phone.execute("CREATE TABLE IF NOT EXISTS task_baseline (name TEXT PRIMARY KEY, value INTEGER)")
    n_threads = phone.query_one("SELECT COUNT(*) FROM threads")[0]
    for name, value in (("sms_id", max_sms_id(phone)), ("threads", n_threads)):
        phone.execute("INSERT OR REPLACE INTO task_baseline(name, value) VALUES(?, ?)", (name, value))


def baseline(phone: Phone, name: str) -> int:
    row = phone.query_one("SELECT value FROM task_baseline WHERE name=?", (name,))
    return int(row[0]) if row else 0


def new_sent(phone: Phone) -> list[tuple[str, str]]:
    """(digits of address, normalised body) of every message sent since set-up."""
    return [(normalize_number(m["address"]) or m["address"], norm_body(m["body"]))
            for m in sent_messages(phone, after_id=baseline(phone, "sms_id"))]


def sent_exactly(phone: Phone, expected: list[tuple[str, str]]) -> bool:
    """Exactly these (number, body) messages were sent since set-up, in any order."""
    want = sorted((normalize_number(a) or a, norm_body(b)) for a, b in expected)
    return sorted(new_sent(phone)) == want


def fresh_person(phone: Phone, first: str, last: str, number: str, **kw: Any) -> int:
    """Set-up: ``first last`` as the only contact of that name, with no earlier conversation."""
    remove_contacts_with_number(phone, number)
    tid = thread_for(phone, number)
    if tid is not None:
        delete_thread(phone, tid)
    return put_contact(phone, first, last, number=number, **kw)


# ---- oracle helpers --------------------------------------------------------------------------------
def on_thread(phone: Phone, address: str) -> bool:
    scr = phone.screen
    return (phone.foreground == APP and scr is not None and scr.name == "thread"
            and normalize_number(scr.args.get("address")) == normalize_number(address))


def to_thread(phone: Phone, obs: Observation, address: str, *, via_name: str | None = None) -> Action | None:
    """Next action toward the conversation with ``address`` (None once there).

    Goes through "Start chat", typing ``via_name`` (a contact's name) or the number itself.
    """
    if on_thread(phone, address):
        return None
    scr = phone.screen
    if phone.foreground == APP and scr is not None and scr.name == "compose" and phone.dialog is None:
        query = via_name or address
        if scr.fields.get("to", "") != query:
            return type_into(obs, query, resource_id="recipient_text_view") or BACK
        if via_name:
            return click_or_scroll(phone, obs, text=via_name, resource_id="contact_picker_row")
        return click(obs, resource_id="send_to_number") or BACK
    return navigate(phone, obs, APP, [("main", {"desc": "Start chat"}), ("compose", None)])


def open_existing(phone: Phone, obs: Observation, address: str) -> Action | None:
    """Next action toward an existing conversation, tapped in the conversation list."""
    if on_thread(phone, address):
        return None
    scr = phone.screen
    if phone.foreground == APP and scr is not None and scr.name == "main" and scr.state.get("selected") is not None:
        return BACK if phone.dialog or phone.menu_open else click(obs, desc="Cancel selection") or BACK
    step = navigate(phone, obs, APP, [("main", None)])
    if step is not None:
        return step
    i = row_index(phone, obs, address)
    if i is None:
        return row_scroll(phone, obs, address)
    return Action(action_type="click", index=i)


def row_index(phone: Phone, obs: Observation, address: str) -> int | None:
    """Index of the conversation row for ``address`` (read rows borrow their texts; unread rows
    carry a content description instead)."""
    name = display_name(phone, address)
    i = find(obs, text=name, resource_id="swipeableContainer")
    if i is None:
        i = find(obs, desc_contains=f"with {name},", resource_id="swipeableContainer")
    return i


def row_scroll(phone: Phone, obs: Observation, address: str) -> Action:
    name = display_name(phone, address)
    act = scroll_toward(phone, obs, text=name, resource_id="swipeableContainer") or \
        scroll_toward(phone, obs, desc_contains=f"with {name},", resource_id="swipeableContainer")
    if act is None:
        raise TaskError(f"oracle: no conversation with {name!r} in the list on {phone.location}")
    return act


def send_in_thread(phone: Phone, obs: Observation, body: str) -> Action:
    """On a conversation: type ``body`` then tap Send."""
    if phone.dialog is not None or phone.menu_open:
        return BACK
    scr = phone.screen
    assert scr is not None
    if scr.fields.get("message", "") != body:
        return type_into(obs, body, resource_id="compose_message_text") or BACK
    return click(obs, desc="Send SMS") or BACK


def select_row(phone: Phone, obs: Observation, address: str) -> Action | None:
    """Long-press the conversation with ``address`` in the list (None once it is the selection)."""
    step = navigate(phone, obs, APP, [("main", None)])
    if step is not None:
        return step
    scr = phone.screen
    assert scr is not None
    tid = thread_for(phone, address)
    if scr.state.get("selected") == tid:
        return None
    if scr.state.get("selected") is not None:
        return click(obs, desc="Cancel selection") or BACK
    i = row_index(phone, obs, address)
    if i is None:
        return row_scroll(phone, obs, address)
    return Action(action_type="long_press", index=i)


# ---- templates -------------------------------------------------------------------------------------
class MessagesTemplate(TaskTemplate):
    apps = ("Messages",)

    def person_params(self, rng: random.Random) -> dict[str, Any]:
        first, last = person(rng)
        return {"first": first, "last": last, "name": f"{first} {last}", "number": random_number(rng)}

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return self.person_params(rng)

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        fresh_person(phone, params["first"], params["last"], params["number"])
        self.extra_setup(phone, params)
        record_baseline(phone)

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        pass


@register_task
class SendToContact(MessagesTemplate):
    name = "messages_send_to_contact"
    optimal_steps = 7
    goal_template = "Send a text message to {name} saying \"{body}\"."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.person_params(rng)
        first = p["first"]
        return dict(p, body=rng.choice(BODIES), decoy=f"{first} {decoy_of(rng, first, p['last'])}",
                    decoy_number=random_number(rng))

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        first, last = params["decoy"].split(" ", 1)
        fresh_person(phone, first, last, params["decoy_number"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if sent_exactly(phone, [(params["number"], params["body"])]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return to_thread(phone, obs, params["number"], via_name=params["name"]) or \
            send_in_thread(phone, obs, params["body"])


@register_task
class SendToNumber(MessagesTemplate):
    name = "messages_send_to_number"
    optimal_steps = 7
    goal_template = "Text {number} the message \"{body}\"."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"number": random_number(rng), "body": rng.choice(BODIES)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        remove_contacts_with_number(phone, params["number"])
        tid = thread_for(phone, params["number"])
        if tid is not None:
            delete_thread(phone, tid)
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if sent_exactly(phone, [(params["number"], params["body"])]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return to_thread(phone, obs, params["number"]) or send_in_thread(phone, obs, params["body"])


@register_task
class SendToTwo(MessagesTemplate):
    name = "messages_send_to_two_contacts"
    complexity = 2
    optimal_steps = 14
    goal_template = "Send \"{body}\" to both {name} and {name_b} (two separate texts)."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (a1, a2), (b1, b2) = two_people(rng)
        return {"first": a1, "last": a2, "name": f"{a1} {a2}", "number": random_number(rng),
                "first_b": b1, "last_b": b2, "name_b": f"{b1} {b2}", "number_b": random_number(rng),
                "body": rng.choice(BODIES)}

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        fresh_person(phone, params["first_b"], params["last_b"], params["number_b"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = [(params["number"], params["body"]), (params["number_b"], params["body"])]
        return 1.0 if sent_exactly(phone, want) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        done = {a for a, _ in new_sent(phone)}
        for num, name in ((params["number"], params["name"]), (params["number_b"], params["name_b"])):
            if normalize_number(num) not in done:
                return to_thread(phone, obs, num, via_name=name) or send_in_thread(phone, obs, params["body"])
        return COMPLETE


@register_task
class ReplyLatest(MessagesTemplate):
    name = "messages_reply_to_latest"
    optimal_steps = 5
    goal_template = "{name} just texted me. Reply to them with \"{body}\"."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return dict(self.person_params(rng), body=rng.choice(BODIES),
                    incoming=rng.choice(("Are you around this afternoon?", "Call me when you get a chance",
                                         "Did you see my email?", "Where are you?")))

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        add_sms(phone, params["number"], "Hey! How's it going?", when=phone.now - timedelta(days=2))
        add_sms(phone, params["number"], params["incoming"], when=phone.now - timedelta(minutes=3), read=False)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if sent_exactly(phone, [(params["number"], params["body"])]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return open_existing(phone, obs, params["number"]) or send_in_thread(phone, obs, params["body"])


def seed_thread(phone: Phone, number: str, *, unread: bool, days: float = 1.0) -> None:
    """Set-up: a short two-way conversation with ``number``, its last message received."""
    add_sms(phone, number, "Did you get home ok?", kind=2, when=phone.now - timedelta(days=days, hours=1))
    add_sms(phone, number, "Yes, thanks again for dinner!", when=phone.now - timedelta(days=days), read=not unread)


@register_task
class DeleteConversation(MessagesTemplate):
    name = "messages_delete_conversation"
    optimal_steps = 5
    goal_template = "Delete my whole conversation with {name}."

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        seed_thread(phone, params["number"], unread=False)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        gone = thread_for(phone, params["number"]) is None
        count = phone.query_one("SELECT COUNT(*) FROM threads")[0]
        return 1.0 if gone and count == baseline(phone, "threads") - 1 else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        dlg = phone.dialog
        if dlg is not None and dlg.data.get("on_ok") == "delete_conversation":
            return click(obs, text="Delete") or BACK
        step = select_row(phone, obs, params["number"])
        if step is not None:
            return step
        return click(obs, desc="Delete") or BACK


def thread_unread(phone: Phone, number: str) -> bool | None:
    tid = thread_for(phone, number)
    if tid is None:
        return None
    return phone.query_one("SELECT COUNT(*) FROM sms WHERE thread_id=? AND read=0", (tid,))[0] > 0


class MarkThreadTemplate(MessagesTemplate):
    """Mark one conversation read (``want_unread=False``) or unread; it starts the other way."""

    want_unread: ClassVar[bool]
    seed_days: ClassVar[float]  # how long ago the conversation's last message came in

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        seed_thread(phone, params["number"], unread=not self.want_unread, days=self.seed_days)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if thread_unread(phone, params["number"]) is self.want_unread else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if phone.dialog is not None or phone.menu_open:
            return BACK
        step = select_row(phone, obs, params["number"])
        return step or click(obs, desc="Mark as unread" if self.want_unread else "Mark as read") or BACK


@register_task
class MarkRead(MarkThreadTemplate):
    name = "messages_mark_conversation_read"
    optimal_steps = 4
    want_unread, seed_days = False, 0.1
    goal_template = "Mark the conversation with {name} as read."


@register_task
class MarkUnread(MarkThreadTemplate):
    name = "messages_mark_conversation_unread"
    optimal_steps = 4
    want_unread, seed_days = True, 0.2
    goal_template = "Mark my conversation with {name} as unread so I remember to answer later."


class ThreadQuery(MessagesTemplate):
    """Read a fact off a conversation and ``answer`` it."""

    kind = "query"
    optimal_steps = 4
    fact_key: ClassVar[str]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer_matches(answer, params[self.fact_key]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = open_existing(phone, obs, params["number"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return answer(params[self.fact_key])


@register_task
class QueryRestaurant(ThreadQuery):
    name = "messages_query_restaurant"
    fact_key = "place"
    goal_template = "Which restaurant did {name} suggest for dinner? Answer with its name."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.person_params(rng)
        place, other = rng.sample(PLACES, 2)
        return dict(p, place=place, other=other)

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        n = params["number"]
        add_sms(phone, n, f"{params['other']} was so loud last time 😅", when=phone.now - timedelta(days=1, hours=2))
        add_sms(phone, n, f"How about {params['place']} for dinner on Friday instead?",
                when=phone.now - timedelta(days=1, hours=1))
        add_sms(phone, n, "Sounds good, I'll book a table", kind=2, when=phone.now - timedelta(days=1))


@register_task
class QueryMeetingTime(ThreadQuery):
    name = "messages_query_meeting_time"
    fact_key = "time"
    goal_template = "What time is the {meeting} that {name} texted me about? Answer with the time."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.person_params(rng)
        hour, minute = rng.choice((9, 10, 11, 13, 14, 15, 16)), rng.choice((0, 15, 30, 45))
        time = f"{hour % 12 or 12}:{minute:02d} {'AM' if hour < 12 else 'PM'}"
        return dict(p, meeting=rng.choice(MEETINGS), time=time, day=rng.choice(WEEKDAYS))

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        add_sms(phone, params["number"], f"Heads up: the {params['meeting']} moved to {params['day']} at "
                f"{params['time']}. Same room.", when=phone.now - timedelta(hours=20))
        add_sms(phone, params["number"], "Thanks, noted!", kind=2, when=phone.now - timedelta(hours=19))


@register_task
class QueryWifiPassword(ThreadQuery):
    name = "messages_query_wifi_password"
    fact_key = "password"
    complexity = 2
    goal_template = "{name} texted me their Wi-Fi password a while ago. What is it?"

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        word = rng.choice(("sunflower", "maple", "orbit", "pebble", "harbor", "tiger"))
        return dict(self.person_params(rng), password=f"{word}{rng.randint(10, 99)}{rng.choice('!#$')}")

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        n = params["number"]
        add_sms(phone, n, f"The wifi password is {params['password']}", when=phone.now - timedelta(days=9))
        for i, text in enumerate(("Thanks!", "Are you coming Saturday?", "Yes, around 7", "Great, see you then")):
            add_sms(phone, n, text, kind=2 if i % 2 == 0 else 1, when=phone.now - timedelta(days=8 - i))


@register_task
class QueryCode(ThreadQuery):
    name = "messages_query_verification_code"
    fact_key = "code"
    goal_template = "What is the verification code in the latest text from {number}?"

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"number": rng.choice(SHORT_CODES), "code": str(rng.randint(100000, 999999)),
                "old_code": str(rng.randint(100000, 999999))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        tid = thread_for(phone, params["number"])
        if tid is not None:
            delete_thread(phone, tid)
        add_sms(phone, params["number"], f"Your verification code is {params['old_code']}.",
                when=phone.now - timedelta(days=3))
        add_sms(phone, params["number"], f"Your verification code is {params['code']}. Don't share it.",
                when=phone.now - timedelta(minutes=2), read=False)
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = answer_matches(answer, params["code"]) and not answer_matches(answer, params["old_code"])
        return 1.0 if ok else 0.0


@register_task
class QueryUnreadCount(MessagesTemplate):
    name = "messages_query_unread_count"
    kind = "query"
    optimal_steps = 3
    goal_template = "How many conversations in Messages have unread messages? Answer with a number."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"count": rng.randint(1, 4), "pick": rng.randint(0, 10 ** 6)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        threads = [t["_id"] for t in phone.query("SELECT _id FROM threads ORDER BY date DESC")]
        for tid in threads:
            mark_thread_read(phone, tid)
        # unread ones among the first screenful, so the count is readable without scrolling past them
        for tid in random.Random(params["pick"]).sample(threads[:8], params["count"]):
            mark_thread_read(phone, tid, read=False)
        record_baseline(phone)

    def count(self, phone: Phone) -> int:
        return phone.query_one("SELECT COUNT(*) FROM threads WHERE read=0")[0]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer_matches(answer, str(self.count(phone))) and self.count(phone) == params["count"] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = navigate(phone, obs, APP, [("main", None)])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return answer(str(self.count(phone)))


@register_task
class QueryLatestSender(MessagesTemplate):
    name = "messages_query_latest_sender"
    kind = "query"
    optimal_steps = 3
    goal_template = "Who sent me the most recent text message? Answer with their name."

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return dict(self.person_params(rng), body=rng.choice(BODIES))

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        add_sms(phone, params["number"], params["body"], when=phone.now - timedelta(minutes=1), read=False)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer_matches(answer, params["name"]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = navigate(phone, obs, APP, [("main", None)])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        latest = phone.query_one("SELECT address FROM sms WHERE type=? ORDER BY date DESC, _id DESC", (TYPE_INBOX,))
        return answer(display_name(phone, latest["address"]))


@register_task
class QuerySearchKeyword(MessagesTemplate):
    name = "messages_search_parking_spot"
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = "Someone texted me which parking spot to use. Search my messages: what is the spot number?"

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return dict(self.person_params(rng), spot=f"{rng.choice('ABCDE')}{rng.randint(10, 79)}")

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for t in phone.query("SELECT thread_id FROM sms WHERE body LIKE '%parking%'"):
            delete_thread(phone, t["thread_id"])
        add_sms(phone, params["number"], f"You can use parking spot {params['spot']} in the garage",
                when=phone.now - timedelta(days=6))
        add_sms(phone, params["number"], "Perfect, thank you!", kind=2, when=phone.now - timedelta(days=6))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer_matches(answer, params["spot"]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = navigate(phone, obs, APP, [("main", {"desc": "Search"}), ("search", None)])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        scr = phone.screen
        assert scr is not None
        if scr.fields.get("query") != "parking":
            return type_into(obs, "parking", resource_id="search_text") or BACK
        return answer(params["spot"])

