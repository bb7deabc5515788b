"""Messages tasks: send to a contact / a number / two people, reply (also to whoever a search finds),
forward, resend a failed text, pass a code from one chat to another, delete a conversation / a spam
conversation / one message, mark read/unread/all read, and queries answered from message text
(places, times, codes, counts, senders, someone's last words).

Set-ups create the people and messages a goal names (dropping seeded namesakes and their threads)
and record a baseline (``task_baseline``: last sms id, thread count) so checkers can insist that
exactly the asked-for messages were sent and only the asked-for conversation was deleted.
"""

from __future__ import annotations

import random
import re
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any, ClassVar

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim.apps.contacts import (
    MIME_PHONE,
    PHONE_TYPES,
    contact_info,
    live_contacts,
    normalize_number,
    random_number,
    remove_contacts_with_number,
)
from droidverify.env.sim.apps.messages import (
    TYPE_FAILED,
    TYPE_INBOX,
    TYPE_SENT,
    add_sms,
    delete_thread,
    display_name,
    mark_thread_read,
    max_sms_id,
    refresh_thread,
    sent_messages,
    thread_for,
)
from droidverify.env.sim.phone import DEFAULT_NOW, Phone
from droidverify.env.sim.timeutil import from_ms, to_ms
from droidverify.errors import TaskError
from droidverify.tasks.base import TaskTemplate
from droidverify.tasks.contacts import (
    decoy_of,
    number_answer_matches,
    person,
    put_contact,
    to_detail,
    two_people,
)
from droidverify.tasks.expenses import date_matches
from droidverify.tasks.helpers import (
    BACK,
    COMPLETE,
    NUMBER,
    answer,
    answer_matches,
    baseline_rows,
    click,
    click_or_scroll,
    diff_rows,
    dismiss_popups,
    dollars,
    find,
    look_first,
    matches,
    money_matches,
    navigate,
    normalize_answer,
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
    goal_phrasings = ("Text {name}: \"{body}\"",
                      "Could you message {name} \"{body}\" in Messages?",
                      "Send \"{body}\" to {name}.")

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
    goal_phrasings = ("Send \"{body}\" to the number {number}.",
                      "Could you send an SMS to {number} saying \"{body}\"?",
                      "Message {number}: \"{body}\"")

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
    goal_phrasings = ("Text {name} and {name_b} separately, each with \"{body}\".",
                      "Could you send \"{body}\" to {name_b} and also to {name}? One text each, not a group.")

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
    goal_phrasings = ("Reply \"{body}\" to {name}'s latest text.",
                      "Could you answer {name}'s new message with \"{body}\"?",
                      "Respond to {name}: \"{body}\"")

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
    goal_phrasings = ("Remove the entire chat with {name} from Messages.",
                      "Could you delete all my messages with {name}?",
                      "Delete conversation: {name}")

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
    goal_phrasings = ("Could you mark my chat with {name} as read in Messages?",
                      "Set {name}'s conversation to read.")


@register_task
class MarkUnread(MarkThreadTemplate):
    name = "messages_mark_conversation_unread"
    optimal_steps = 4
    want_unread, seed_days = True, 0.2
    goal_template = "Mark my conversation with {name} as unread so I remember to answer later."
    goal_phrasings = ("Flag the chat with {name} as unread; I'll reply later.",
                      "Could you mark {name}'s conversation unread in Messages?")


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
    goal_phrasings = ("{name} texted me a dinner suggestion. What's the restaurant called?",
                      "Could you check my messages with {name}: where did they want to have dinner?",
                      "Restaurant {name} suggested for dinner?")

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
    goal_phrasings = ("{name} messaged me about the {meeting}. When does it start?",
                      "Could you check {name}'s text and tell me the time of the {meeting}?",
                      "Time of the {meeting} per {name}'s message?")

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
    goal_phrasings = ("What's the Wi-Fi password {name} sent me?",
                      "Could you find the Wi-Fi password in my messages from {name}?",
                      "{name}'s Wi-Fi password?")

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
    goal_phrasings = ("Tell me the newest verification code {number} sent me.",
                      "Could you read me the code from the most recent message from {number}?",
                      "Latest code from {number}?")

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
    goal_phrasings = ("Count my unread conversations in Messages and give me the number.",
                      "Could you check how many chats have unread texts? Just the number.",
                      "Number of unread conversations?")

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
    goal_phrasings = ("Who texted me last? Give me the name.",
                      "Could you check Messages and tell me who my latest text is from?",
                      "Name of the last person who texted me?")

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
    goal_phrasings = ("What parking spot was I told to use by text? Give me the spot number.",
                      "Could you search my texts for the parking spot someone gave me?",
                      "Find the parking spot number in my messages.")

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



# ---- list-wide and single-message actions ----------------------------------------------------------
def to_list(phone: Phone, obs: Observation) -> Action | None:
    """Next action toward the conversation list with nothing selected and no popup (None once there)."""
    step = navigate(phone, obs, APP, [("main", None)])
    if step is not None:
        return step
    scr = phone.screen
    assert scr is not None
    if phone.dialog is not None:
        return BACK
    if scr.state.get("selected") is not None:
        return BACK if phone.menu_open else click(obs, desc="Cancel selection") or BACK
    return None


@register_task
class MarkAllRead(MessagesTemplate):
    name = "messages_mark_all_read"
    optimal_steps = 4
    goal_template = "Mark all my conversations in Messages as read."
    goal_phrasings = ("Clear all my unread texts by marking every conversation as read.",
                      "Could you mark all of my messages as read?",
                      "Messages: everything read, please.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"count": rng.randint(2, 5), "pick": rng.randint(0, 10 ** 6)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        threads = [t["_id"] for t in phone.query("SELECT _id FROM threads ORDER BY date DESC")]
        for tid in threads:
            mark_thread_read(phone, tid)
        # some unread ones further down the list too, so opening the top few by hand is not enough
        for tid in random.Random(params["pick"]).sample(threads, params["count"]):
            mark_thread_read(phone, tid, read=False)
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        unread = phone.query_one("SELECT COUNT(*) FROM sms WHERE read=0")[0]
        count = phone.query_one("SELECT COUNT(*) FROM threads")[0]
        return 1.0 if unread == 0 and count == baseline(phone, "threads") else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if phone.foreground == APP and phone.menu_open and phone.screen is not None and phone.screen.name == "main":
            return click(obs, text="Mark all as read") or BACK
        return to_list(phone, obs) or click(obs, desc="More options") or BACK


def bubble(obs: Observation, body: str) -> int | None:
    """Index of the message bubble showing ``body`` (bubbles borrow their texts), else its text."""
    i = find(obs, text=body, resource_id="message_content")
    return i if i is not None else find(obs, text=body, resource_id="message_text")


def _selects(phone: Phone, index: int, sms_id: int) -> bool:
    """Whether long-pressing element ``index`` selects message ``sms_id`` (tried on a clone of the phone)."""
    from droidverify.env.sim.env import probe_action

    def selected(p: Phone) -> bool:
        scr = p.screen
        return scr is not None and scr.state.get("selected_msg") == sms_id

    return probe_action(phone, Action(action_type="long_press", index=index), selected)


def bubble_of(phone: Phone, obs: Observation, sms_id: int, body: str) -> int | None:
    """Index of the on-screen bubble of message ``sms_id`` (showing ``body``), else None.

    The bubble's text view is folded into its long-clickable ``message_content`` row, so rows are
    matched by the text they show; a look-alike (another message with the same text) does not count."""
    hits = [i for i, el in enumerate(obs.elements) if matches(el, text=body, resource_id="message_content")]
    return next((i for i in hits if _selects(phone, i, sms_id)), None)


def _scroll_to_bubble(phone: Phone, sms_id: int, body: str) -> str | None:
    """The scroll direction that brings message ``sms_id``'s bubble on screen (probed on clones)."""
    from droidverify.env.sim.env import probe_scroll_on

    return probe_scroll_on(phone, lambda probe, obs: bubble_of(probe, obs, sms_id, body) is not None)


def pick_message(phone: Phone, obs: Observation, sms_id: int, body: str) -> Action | None:
    """On a conversation: long-press message ``sms_id`` (None once it is the selected one).

    Raises :class:`TaskError` when no bubble in the conversation selects it (else BACK and reopening
    the conversation would loop)."""
    scr = phone.screen
    assert scr is not None
    if scr.state.get("selected_msg") == sms_id:
        return None
    i = bubble_of(phone, obs, sms_id, body)
    if i is not None:
        return Action(action_type="long_press", index=i)
    direction = _scroll_to_bubble(phone, sms_id, body)
    if direction is None:
        raise TaskError(f"oracle: no bubble selects message {sms_id} ({body!r}) on {phone.location}")
    return Action(action_type="scroll", direction=direction)


def sms_with(phone: Phone, address: str, body: str) -> int | None:
    """Id of the message in ``address``'s conversation whose text is ``body``."""
    tid = thread_for(phone, address)
    for m in phone.query("SELECT _id, body FROM sms WHERE thread_id=? ORDER BY _id", (tid,)) if tid else []:
        if norm_body(m["body"]) == norm_body(body):
            return int(m["_id"])
    return None


MIXUPS = (("Dinner is at 7 on Friday", "Sorry, I meant dinner is at 8 on Friday"),
          ("The meeting is in room 204", "Correction: the meeting is in room 402"),
          ("I'll pick you up at 5:30", "Actually make that 6:30, traffic is bad"),
          ("The gate code is 4471", "Oops, the gate code is 4417"),
          ("Bring the red folder tomorrow", "Sorry, the blue folder, not the red one"))


@register_task
class DeleteOneMessage(MessagesTemplate):
    name = "messages_delete_single_message"
    complexity = 2
    optimal_steps = 6
    goal_template = ("In my chat with {name}, delete only the message \"{body}\" that I sent by mistake; "
                     "keep the rest of the conversation.")
    goal_phrasings = ("I sent \"{body}\" to {name} by mistake. Delete just that message, not the whole chat.",
                      ("Could you remove the message \"{body}\" from my conversation with {name}? "
                       "Leave the other messages alone."))

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        body, fix = rng.choice(MIXUPS)
        return dict(self.person_params(rng), body=body, fix=fix)

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        n, now = params["number"], phone.now
        add_sms(phone, n, "Quick question about this week", when=now - timedelta(hours=3))
        add_sms(phone, n, params["body"], kind=2, when=now - timedelta(hours=2, minutes=50))
        add_sms(phone, n, params["fix"], kind=2, when=now - timedelta(hours=2, minutes=48))
        add_sms(phone, n, "Got it, thanks!", when=now - timedelta(hours=2, minutes=30))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        before = {r[0]: r[1] for r in baseline_rows(phone, self, params, "SELECT _id, body FROM sms")}
        now = {r["_id"] for r in phone.query("SELECT _id FROM sms")}
        gone = set(before) - now
        ok = now <= set(before) and len(gone) == 1 and norm_body(before[gone.pop()]) == norm_body(params["body"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        dlg = phone.dialog
        if dlg is not None and dlg.data.get("on_ok") == "delete_message" and on_thread(phone, params["number"]):
            return click(obs, text="Delete") or BACK
        target = sms_with(phone, params["number"], params["body"])
        if target is None:
            raise TaskError("oracle: the message to delete is gone but the task is not done")
        step = open_existing(phone, obs, params["number"])
        if step is not None:
            return step
        if dlg is not None or phone.menu_open:
            return BACK
        return pick_message(phone, obs, target, params["body"]) or click(obs, desc="Delete") or BACK


FORWARDS = (("the party address", "The party is at 42 Elm Street, apartment 3B. Ring the top bell!"),
            ("the flight details", "Flight UA 418 lands at 6:45 PM at terminal 3"),
            ("the dentist appointment", "Reminder: dentist appointment on Tuesday at 9:30 with Dr. Ortiz"),
            ("the recipe", "Banana bread: 3 bananas, 2 cups flour, 1 egg, bake 55 min at 350F"),
            ("the hotel booking", "Hotel booked: Harbor Inn, confirmation number HX4471, check-in at 3 PM"))


@register_task
class ForwardMessage(MessagesTemplate):
    name = "messages_forward_message"
    complexity = 2
    optimal_steps = 8
    goal_template = "Forward {name}'s message about {topic} to {name_b}."
    goal_phrasings = ("Send {name_b} the message {name} sent me about {topic}.",
                      "Could you forward what {name} texted me about {topic} to {name_b}?",
                      "Forward to {name_b}: {name}'s text about {topic}")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (a1, a2), (b1, b2) = two_people(rng)
        topic, body = rng.choice(FORWARDS)
        return {"first": a1, "last": a2, "name": f"{a1} {a2}", "number": random_number(rng),
                "first_b": b1, "last_b": b2, "name_b": f"{b1} {b2}", "number_b": random_number(rng),
                "topic": topic, "body": body}

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        fresh_person(phone, params["first_b"], params["last_b"], params["number_b"])
        n = params["number"]
        add_sms(phone, n, "Here you go", when=phone.now - timedelta(hours=5, minutes=2))
        add_sms(phone, n, params["body"], when=phone.now - timedelta(hours=5))
        add_sms(phone, n, "Thank you!", kind=2, when=phone.now - timedelta(hours=4))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if sent_exactly(phone, [(params["number_b"], params["body"])]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        scr = phone.screen
        here = phone.foreground == APP and scr is not None
        if on_thread(phone, params["number_b"]) or (here and scr.name == "compose" and phone.dialog is None):
            # the forwarded text waits in the new conversation's box; typing it is the fallback
            return to_thread(phone, obs, params["number_b"], via_name=params["name_b"]) or \
                send_in_thread(phone, obs, params["body"])
        step = open_existing(phone, obs, params["number"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        target = sms_with(phone, params["number"], params["body"])
        assert target is not None
        return pick_message(phone, obs, target, params["body"]) or click(obs, desc="Forward") or BACK


@register_task
class ResendFailed(MessagesTemplate):
    name = "messages_resend_failed_message"
    optimal_steps = 4
    goal_template = "My text \"{body}\" to {name} didn't go through. Resend it."
    goal_phrasings = ("Resend the failed message \"{body}\" to {name}.",
                      "Could you retry sending \"{body}\" to {name}? It says not sent.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.person_params(rng)
        first = p["first"]
        return dict(p, body=rng.choice(BODIES), decoy=f"{first} {decoy_of(rng, first, p['last'])}",
                    decoy_number=random_number(rng))

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        first, last = params["decoy"].split(" ", 1)
        fresh_person(phone, first, last, params["decoy_number"])
        seed_thread(phone, params["decoy_number"], unread=False, days=0.5)
        add_sms(phone, params["number"], "Let me know when you're on your way", when=phone.now - timedelta(hours=2))
        add_sms(phone, params["number"], params["body"], kind=TYPE_FAILED, when=phone.now - timedelta(hours=1))

    def delivered(self, phone: Phone, params: dict[str, Any]) -> int:
        rows = phone.query("SELECT address, body FROM sms WHERE type=?", (TYPE_SENT,))
        return sum(1 for r in rows if normalize_number(r["address"]) == normalize_number(params["number"])
                   and norm_body(r["body"]) == norm_body(params["body"]))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        # retried (the failed row turns sent) or typed again (a new row): either way delivered once
        others = [s for s in new_sent(phone) if s != (normalize_number(params["number"]), norm_body(params["body"]))]
        return 1.0 if self.delivered(phone, params) == 1 and not others else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = open_existing(phone, obs, params["number"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        i = find(obs, text="Not sent · Tap to retry", resource_id="message_content")
        return Action(action_type="click", index=i) if i is not None else send_in_thread(phone, obs, params["body"])


PRIZES = ("a $500 Walmart gift card", "a free iPhone 15", "a $1,000 Amazon voucher", "a cruise to the Bahamas",
          "a brand new Tesla")


@register_task
class DeleteSpam(MessagesTemplate):
    name = "messages_delete_spam_conversation"
    complexity = 2
    optimal_steps = 5
    goal_template = "Delete the spam conversation claiming I won {prize}."
    goal_phrasings = ("Someone texted me that I won {prize}. It's spam, delete that conversation.",
                      "Could you remove the scam chat about winning {prize} from Messages?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return dict(self.person_params(rng), prize=rng.choice(PRIZES), spam_number=random_number(rng))

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        spam = params["spam_number"]
        remove_contacts_with_number(phone, spam)
        tid = thread_for(phone, spam)
        if tid is not None:
            delete_thread(phone, tid)
        add_sms(phone, spam, f"CONGRATULATIONS! You have won {params['prize']}. Claim it now at "
                "win-prizes.example/claim before it expires!", when=phone.now - timedelta(hours=7), read=False)
        # a friend's conversation mentions the same prize: deleting it instead is the near miss
        add_sms(phone, params["number"], f"Did you also get a text saying you won {params['prize']}? Total scam lol",
                when=phone.now - timedelta(hours=2), read=False)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        count = phone.query_one("SELECT COUNT(*) FROM threads")[0]
        ok = thread_for(phone, params["spam_number"]) is None and thread_for(phone, params["number"]) is not None
        return 1.0 if ok and count == baseline(phone, "threads") - 1 else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        dlg = phone.dialog
        if dlg is not None and dlg.data.get("on_ok") == "delete_conversation":
            return click(obs, text="Delete") or BACK
        step = select_row(phone, obs, params["spam_number"])
        if step is not None:
            return step
        return click(obs, desc="Delete") or BACK


INCOMING = ("Can you send me the notes from class?", "I just landed, heading home now",
            "Do you still have my cookbook?", "Let's do brunch on Sunday", "The dog ate my homework again 😂",
            "Are you free for a call at 3?")


@register_task
class QueryLastReceived(MessagesTemplate):
    name = "messages_query_last_received"
    kind = "query"
    optimal_steps = 4
    goal_template = "What was the last message {name} sent me? Answer with the message text."
    goal_phrasings = ("Tell me the latest text I got from {name}, word for word.",
                      "Could you check what {name} last wrote to me?",
                      "{name}'s most recent message to me?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        earlier, last = rng.sample(INCOMING, 2)
        return dict(self.person_params(rng), earlier=earlier, last_in=last, reply=rng.choice(BODIES))

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        n, now = params["number"], phone.now
        add_sms(phone, n, params["earlier"], when=now - timedelta(days=1, hours=3))
        add_sms(phone, n, params["last_in"], when=now - timedelta(days=1, hours=2))
        # my reply comes last, so the list's snippet shows my words, not theirs
        add_sms(phone, n, params["reply"], kind=2, when=now - timedelta(days=1, hours=1))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = answer_matches(answer, params["last_in"]) and not answer_matches(answer, params["reply"]) and \
            not answer_matches(answer, params["earlier"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = open_existing(phone, obs, params["number"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return answer(params["last_in"])


# ---- information from one conversation used in another -------------------------------------------
@register_task
class SendDoorCode(MessagesTemplate):
    name = "messages_send_door_code"
    complexity = 3
    optimal_steps = 7
    goal_template = "{name_b} needs the door code. Text them the new code that {name} sent me."
    goal_phrasings = ("Find the new door code {name} texted me and send it to {name_b}.",
                      "Could you pass the new door code from {name}'s message on to {name_b}?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (a1, a2), (b1, b2) = two_people(rng)
        old, new = rng.sample(range(1000, 10000), 2)
        return {"first": a1, "last": a2, "name": f"{a1} {a2}", "number": random_number(rng),
                "first_b": b1, "last_b": b2, "name_b": f"{b1} {b2}", "number_b": random_number(rng),
                "old_code": str(old), "code": str(new)}

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        fresh_person(phone, params["first_b"], params["last_b"], params["number_b"])
        add_sms(phone, params["number"], f"Heads up: the building changed the door code. The old one was "
                f"{params['old_code']}, the new one is {params['code']}.", when=phone.now - timedelta(days=2),
                read=False)
        add_sms(phone, params["number_b"], "Hey, what's the door code again?", when=phone.now - timedelta(minutes=20),
                read=False)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        sent = sent_messages(phone, after_id=baseline(phone, "sms_id"))
        if len(sent) != 1 or normalize_number(sent[0]["address"]) != normalize_number(params["number_b"]):
            return 0.0
        words = normalize_answer(sent[0]["body"])
        return 1.0 if params["code"] in words and params["old_code"] not in words else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        # read the code first (opening the conversation marks it read), then answer the asker
        if thread_unread(phone, params["number"]):
            return open_existing(phone, obs, params["number"]) or BACK
        return open_existing(phone, obs, params["number_b"]) or \
            send_in_thread(phone, obs, f"The new door code is {params['code']}")


# (search word, what the goal calls it, what they asked me, what I told someone else about it)
ASKS = (("umbrella", "their blue umbrella", "Hey, do you still have my blue umbrella?",
         "I think I left my umbrella at your place"),
        ("tickets", "the concert tickets", "Did you get the concert tickets yet?",
         "I'm buying the concert tickets tonight, want one?"),
        ("passport", "their passport", "Did I leave my passport at your place?",
         "Don't forget your passport for the trip!"),
        ("sunglasses", "their sunglasses", "Have you seen my sunglasses? I think I left them in your car",
         "Found some sunglasses in my car, are they yours?"),
        ("drill", "the power drill", "Can I borrow the power drill this weekend?",
         "Do you still need the drill back?"))
REPLIES = ("Yes, I have it. I'll bring it tomorrow", "Sorry, I haven't seen it", "It's in my car, I'll drop it off")


@register_task
class ReplyToKeywordSender(MessagesTemplate):
    name = "messages_reply_to_keyword_sender"
    complexity = 2
    optimal_steps = 7
    goal_template = "Someone texted me asking about {thing}. Reply to that person with \"{body}\"."
    goal_phrasings = ("Find the text where someone asked me about {thing} and answer \"{body}\".",
                      "Could you reply \"{body}\" to whoever messaged me about {thing}?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        keyword, thing, asked, mention = rng.choice(ASKS)
        p = self.person_params(rng)
        decoy_first, decoy_last = person(rng)
        while decoy_first == p["first"]:
            decoy_first, decoy_last = person(rng)
        return dict(p, keyword=keyword, thing=thing, asked=asked, mention=mention, body=rng.choice(REPLIES),
                    decoy=f"{decoy_first} {decoy_last}", decoy_number=random_number(rng))

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for t in phone.query("SELECT thread_id FROM sms WHERE body LIKE ?", (f"%{params['keyword']}%",)):
            delete_thread(phone, t["thread_id"])
        first, last = params["decoy"].split(" ", 1)
        fresh_person(phone, first, last, params["decoy_number"])
        # I mentioned it to someone else too: the search shows both, only one of them asked me
        add_sms(phone, params["decoy_number"], params["mention"], kind=2, when=phone.now - timedelta(days=9))
        add_sms(phone, params["number"], params["asked"], when=phone.now - timedelta(days=10))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if sent_exactly(phone, [(params["number"], params["body"])]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if on_thread(phone, params["number"]):
            return send_in_thread(phone, obs, params["body"])
        step = navigate(phone, obs, APP, [("main", {"desc": "Search"}), ("search", None)])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        scr = phone.screen
        assert scr is not None
        if scr.fields.get("query") != params["keyword"]:
            return type_into(obs, params["keyword"], resource_id="search_text") or BACK
        return click_or_scroll(phone, obs, text=params["name"], resource_id="search_result")


# ---- more kinds of task: bulk and conditional actions, other apps, reading dates, counts, numbers ---------
def is_short_code(address: str) -> bool:
    """A business short code ("72975"), not a person's phone number."""
    digits = normalize_number(address)
    return bool(digits) and len(digits) <= 6 and not any(c.isalpha() for c in address)


def distinct_people(rng: random.Random, n: int) -> list[dict[str, Any]]:
    """``n`` people with distinct first and last names, each with a number."""
    out: list[dict[str, Any]] = []
    while len(out) < n:
        first, last = person(rng)
        if any(p["first"] == first or p["last"] == last for p in out):
            continue
        out.append({"first": first, "last": last, "name": f"{first} {last}", "number": random_number(rng)})
    return out


def confirm_delete(phone: Phone, obs: Observation, on_ok: str) -> Action | None:
    """Tap Delete in the Messages confirmation ``on_ok`` when it is showing (None otherwise)."""
    dlg = phone.dialog
    if phone.foreground == APP and dlg is not None and dlg.data.get("on_ok") == on_ok:
        return click(obs, text="Delete") or BACK
    return None


def only_numbers(answer_text: str | None) -> set[str]:
    """The whole numbers an answer states ("3 texts" -> {"3"}; "three" is not read)."""
    return {t for t in normalize_answer(answer_text or "") if t.isdigit()}


CODE_TEXTS = ("Your verification code is {code}. Don't share it with anyone.",
              "Your login code: {code}. It expires in 5 minutes.",
              "{code} is your security code. Never share this code.")


@register_task
class DeleteCodeSenderChats(MessagesTemplate):
    name = "messages_delete_code_sender_chats"
    complexity = 3
    optimal_steps = 12
    goal_template = ("Clean up Messages: delete every conversation from automated code senders (the short "
                     "5-digit numbers). Keep all my chats with people, even {name}'s.")
    goal_phrasings = (("Delete all the verification-code conversations (the ones from short numbers like 72975) "
                      "but none of my chats with real people such as {name}."),
                      ("Could you remove every chat from those 5-digit code senders? Leave people's "
                      "conversations alone, including the one with {name}."),
                      "Get rid of all short-code conversations in Messages; {name} and my other people stay.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        codes = sorted(rng.sample(SHORT_CODES, 3))
        return dict(self.person_params(rng), codes=codes,
                    values=[str(rng.randint(100000, 999999)) for _ in codes],
                    ages=[rng.choice((0.2, 1, 2)), rng.choice((4, 6, 9)), rng.choice((14, 18, 25))])

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for t in phone.query("SELECT _id, recipient_ids FROM threads"):
            if is_short_code(t["recipient_ids"]):
                delete_thread(phone, t["_id"])
        for i, (code, value, age) in enumerate(zip(params["codes"], params["values"], params["ages"])):
            add_sms(phone, code, CODE_TEXTS[i].format(code=value), when=phone.now - timedelta(days=age, hours=1))
        # a person talking about a code: deleting this chat too is the near miss
        add_sms(phone, params["number"], "Did the verification code ever arrive? Mine never did",
                when=phone.now - timedelta(hours=3))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        threads = phone.query("SELECT recipient_ids FROM threads")
        no_codes = not any(is_short_code(t["recipient_ids"]) for t in threads)
        kept = len(threads) == baseline(phone, "threads") - 3 and thread_for(phone, params["number"]) is not None
        return 1.0 if no_codes and kept else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = confirm_delete(phone, obs, "delete_conversation")
        if step is not None:
            return step
        left = [t["recipient_ids"] for t in phone.query("SELECT recipient_ids FROM threads ORDER BY date DESC")
                if is_short_code(t["recipient_ids"])]
        if not left:
            raise TaskError("oracle: no code conversation left but the task is not done")
        return select_row(phone, obs, left[0]) or click(obs, desc="Delete") or BACK


CATCH_UPS = ("Sorry for the slow reply, I'll get back to you tonight", "Just saw this, I'll call you later",
             "Thanks for your message, I'll answer properly after work")


@register_task
class ReplyToAllUnread(MessagesTemplate):
    name = "messages_reply_to_all_unread"
    complexity = 3
    optimal_steps = 10
    goal_template = "Reply \"{body}\" to everyone whose texts I haven't read yet (one reply per conversation)."
    goal_phrasings = ("Answer every unread conversation in Messages with \"{body}\", one text each.",
                      "Could you send \"{body}\" to each person with an unread text waiting for me?",
                      "Everyone I haven't read yet gets the reply \"{body}\".")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        people = distinct_people(rng, rng.choice((2, 3)))
        for p, text in zip(people, rng.sample(INCOMING, len(people))):
            p["incoming"] = text
        return {"people": people, "body": rng.choice(CATCH_UPS), "read_first": person(rng)[0]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for p in params["people"]:
            fresh_person(phone, p["first"], p["last"], p["number"])
        for t in phone.query("SELECT _id FROM threads"):
            mark_thread_read(phone, t["_id"])
        for i, p in enumerate(params["people"]):
            add_sms(phone, p["number"], p["incoming"], when=phone.now - timedelta(hours=2 + 9 * i), read=False)
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if sent_exactly(phone, [(p["number"], params["body"]) for p in params["people"]]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        done = {a for a, _ in new_sent(phone)}
        for p in params["people"]:
            if normalize_number(p["number"]) not in done:
                return open_existing(phone, obs, p["number"]) or send_in_thread(phone, obs, params["body"])
        return COMPLETE


@register_task
class TextWorkNumber(MessagesTemplate):
    name = "messages_text_contact_work_number"
    apps = ("Contacts", "Messages")
    complexity = 2
    optimal_steps = 7
    goal_template = "Text {name} at their work number (not their mobile): \"{body}\"."
    goal_phrasings = ("Send \"{body}\" to {name}'s work phone, not the mobile one.",
                      "Could you message {name} on the number saved as Work in Contacts? Say \"{body}\".",
                      "{name}, work number only: \"{body}\"")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return dict(self.person_params(rng), work=random_number(rng), work_first=rng.random() < 0.5,
                    body=rng.choice(BODIES))

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        remove_contacts_with_number(phone, params["work"])
        tid = thread_for(phone, params["work"])
        if tid is not None:
            delete_thread(phone, tid)
        cid = fresh_person(phone, params["first"], params["last"], params["number"])
        phone.execute("INSERT INTO data(raw_contact_id, mimetype, data1, data2) VALUES(?,?,?,?)",
                      (cid, MIME_PHONE, params["work"], PHONE_TYPES["Work"]))
        if params["work_first"]:  # the list order is no hint: the work row comes first half the time
            phone.execute("DELETE FROM data WHERE raw_contact_id=? AND mimetype=? AND data1=?",
                          (cid, MIME_PHONE, params["number"]))
            phone.execute("INSERT INTO data(raw_contact_id, mimetype, data1, data2) VALUES(?,?,?,?)",
                          (cid, MIME_PHONE, params["number"], PHONE_TYPES["Mobile"]))
        seed_thread(phone, params["number"], unread=False, days=3)
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if sent_exactly(phone, [(params["work"], params["body"])]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if on_thread(phone, params["work"]):
            return send_in_thread(phone, obs, params["body"])
        step = to_detail(phone, obs, params["name"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return click_or_scroll(phone, obs, desc=f"Send message to {params['work']}")


@register_task
class DeleteUnsentTexts(MessagesTemplate):
    name = "messages_delete_unsent_texts"
    complexity = 3
    optimal_steps = 9
    goal_template = ("In my chat with {name}, delete the texts that didn't go through (marked Not sent) instead "
                     "of resending them. Keep every other message.")
    goal_phrasings = (("Don't resend my failed texts to {name}; just delete those Not sent messages and leave the "
                      "rest of the chat."),
                      ("Could you remove the undelivered messages from my conversation with {name}? Don't retry "
                      "them, and keep the delivered ones."),
                      "Chat with {name}: delete only the failed (Not sent) messages.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        failed = rng.sample(BODIES, 3)
        return dict(self.person_params(rng), failed=failed[:2], delivered=failed[2])

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        n, now = params["number"], phone.now
        add_sms(phone, n, "Are you coming tonight?", when=now - timedelta(hours=5))
        add_sms(phone, n, params["failed"][0], kind=TYPE_FAILED, when=now - timedelta(hours=4, minutes=50))
        add_sms(phone, n, params["delivered"], kind=TYPE_SENT, when=now - timedelta(hours=4, minutes=40))
        add_sms(phone, n, "Got it 👍", when=now - timedelta(hours=4))
        add_sms(phone, n, params["failed"][1], kind=TYPE_FAILED, when=now - timedelta(hours=3))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        before = {r[0]: r for r in baseline_rows(phone, self, params, "SELECT _id, address, type FROM sms")}
        after = {r["_id"]: r["type"] for r in phone.query("SELECT _id, type FROM sms")}
        want_gone = {i for i, r in before.items()
                     if r[2] == TYPE_FAILED and normalize_number(r[1]) == normalize_number(params["number"])}
        ok = set(after) == set(before) - want_gone and len(want_gone) == 2 and \
            all(after[i] == before[i][2] for i in after)  # nothing retried, nothing new
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if on_thread(phone, params["number"]):
            step = confirm_delete(phone, obs, "delete_message")
            if step is not None:
                return step
        tid = thread_for(phone, params["number"])
        target = phone.query_one("SELECT _id, body FROM sms WHERE thread_id=? AND type=? ORDER BY _id",
                                 (tid, TYPE_FAILED)) if tid else None
        if target is None:
            raise TaskError("oracle: no failed message left but the task is not done")
        step = open_existing(phone, obs, params["number"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return pick_message(phone, obs, target["_id"], target["body"]) or click(obs, desc="Delete") or BACK


@register_task
class MarkAllReadExcept(MessagesTemplate):
    name = "messages_mark_all_read_except_one"
    complexity = 2
    optimal_steps = 6
    goal_template = "Mark all my conversations as read except the one with {name}; that one should stay unread."
    goal_phrasings = ("Everything in Messages read, please, but keep {name}'s chat unread so I remember it.",
                      "Could you clear my unread conversations, leaving only {name}'s as unread?",
                      "Mark every chat read apart from {name}'s, which stays unread.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return dict(self.person_params(rng), count=rng.randint(2, 4))

    def setup(self, phone: Phone, params: dict[str, Any], rng: random.Random | None = None) -> None:
        rng = rng or random.Random(0)
        fresh_person(phone, params["first"], params["last"], params["number"])
        threads = [t["_id"] for t in phone.query("SELECT _id FROM threads ORDER BY date DESC")]
        for tid in threads:
            mark_thread_read(phone, tid)
        for tid in rng.sample(threads, params["count"]):
            mark_thread_read(phone, tid, read=False)
        seed_thread(phone, params["number"], unread=True, days=rng.choice((0.1, 1.5, 4)))
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        tid = thread_for(phone, params["number"])
        others = phone.query_one("SELECT COUNT(*) FROM sms WHERE read=0 AND thread_id!=?", (tid or -1,))[0]
        count = phone.query_one("SELECT COUNT(*) FROM threads")[0]
        ok = thread_unread(phone, params["number"]) is True and others == 0 and count == baseline(phone, "threads")
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        tid = thread_for(phone, params["number"])
        others = phone.query_one("SELECT COUNT(*) FROM sms WHERE read=0 AND thread_id!=?", (tid or -1,))[0]
        if others:
            if phone.foreground == APP and phone.menu_open and phone.screen is not None \
                    and phone.screen.name == "main":
                return click(obs, text="Mark all as read") or BACK
            return to_list(phone, obs) or click(obs, desc="More options") or BACK
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return select_row(phone, obs, params["number"]) or click(obs, desc="Mark as unread") or BACK


@register_task
class ResendAfterAirplane(MessagesTemplate):
    name = "messages_resend_after_airplane_off"
    apps = ("Messages", "Settings")
    complexity = 3
    optimal_steps = 8
    goal_template = ("Airplane mode was on, so my last two texts to {name} failed. Turn airplane mode off and "
                     "get both of them delivered.")
    goal_phrasings = (("My two texts to {name} didn't send because of airplane mode. Switch it off and resend "
                      "them."),
                      "Could you turn off airplane mode and then resend the two failed messages to {name}?",
                      "Airplane mode off, then retry both Not sent texts to {name}.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return dict(self.person_params(rng), bodies=rng.sample(BODIES, 2))

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "airplane_mode_on", 1)
        n, now = params["number"], phone.now
        add_sms(phone, n, "Let me know when you land", when=now - timedelta(hours=3))
        for i, body in enumerate(params["bodies"]):
            add_sms(phone, n, body, kind=TYPE_FAILED, when=now - timedelta(minutes=50 - 10 * i))

    def delivered(self, phone: Phone, params: dict[str, Any], body: str) -> int:
        rows = phone.query("SELECT address, body FROM sms WHERE type=?", (TYPE_SENT,))
        return sum(1 for r in rows if normalize_number(r["address"]) == normalize_number(params["number"])
                   and norm_body(r["body"]) == norm_body(body))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if phone.get_setting("global", "airplane_mode_on", "0") == "1":
            return 0.0
        wanted = {(normalize_number(params["number"]), norm_body(b)) for b in params["bodies"]}
        others = [s for s in new_sent(phone) if s not in wanted]
        ok = all(self.delivered(phone, params, b) == 1 for b in params["bodies"]) and not others
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if phone.get_setting("global", "airplane_mode_on", "0") == "1":
            step = navigate(phone, obs, "settings", [("main", {"text": "Network & internet"}), ("network", None)])
            if step is not None:
                return step
            if phone.dialog is not None or phone.menu_open:
                return BACK
            return click_or_scroll(phone, obs, text="Airplane mode")
        step = open_existing(phone, obs, params["number"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        i = find(obs, text="Not sent · Tap to retry", resource_id="message_content")
        if i is not None:
            return Action(action_type="click", index=i)
        missing = [b for b in params["bodies"] if not self.delivered(phone, params, b)]
        return send_in_thread(phone, obs, missing[0]) if missing else BACK


# (who, their name, what I ask them)
REFERRALS = (("plumber", "Dave", "Hi, I got your number from a friend. Could you look at a leaking sink this week?"),
             ("electrician", "Maria", "Hi, a friend gave me your number. Do you have time to fix a light switch?"),
             ("dog sitter", "Jamie", "Hi! I got your number from a friend. Are you free to watch my dog next weekend?"),
             ("piano teacher", "Mr. Chen", "Hello, a friend recommended you. Do you have room for a new student?"),
             ("babysitter", "Olivia", "Hi, a friend passed on your number. Are you free Saturday evening?"))


@register_task
class TextNumberFromMessage(MessagesTemplate):
    name = "messages_text_number_from_message"
    complexity = 2
    optimal_steps = 7
    goal_template = ("{name} texted me the number of a good {role}. Text that person's cell number (not the "
                     "office line): \"{body}\"")
    goal_phrasings = ("Find the {role}'s cell number in {name}'s message and send it \"{body}\"",
                      "Could you text the {role} {name} recommended, on their cell, saying \"{body}\"?",
                      "Message the {role}'s cell from {name}'s text: \"{body}\"")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        role, who, body = rng.choice(REFERRALS)
        cell, office = random_number(rng), random_number(rng)
        while normalize_number(office) == normalize_number(cell):
            office = random_number(rng)
        return dict(self.person_params(rng), role=role, who=who, body=body, cell=cell, office=office)

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for num in (params["cell"], params["office"]):
            remove_contacts_with_number(phone, num)
            tid = thread_for(phone, num)
            if tid is not None:
                delete_thread(phone, tid)
        add_sms(phone, params["number"], f"The {params['role']} I told you about is {params['who']}. Cell is "
                f"{params['cell']}. Don't bother with the office line {params['office']}, nobody answers.",
                when=phone.now - timedelta(days=1, hours=2))
        add_sms(phone, params["number"], "Thanks, I'll reach out!", kind=TYPE_SENT,
                when=phone.now - timedelta(days=1, hours=1))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if sent_exactly(phone, [(params["cell"], params["body"])]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        # the cell number is only in the recommender's message: read it there first
        step = look_first(phone, f"{self.name}:cell", lambda: open_existing(phone, obs, params["number"]) or
                          dismiss_popups(phone))
        return step or to_thread(phone, obs, params["cell"]) or send_in_thread(phone, obs, params["body"])


# ---- queries ---------------------------------------------------------------------------------------
CHATTER = ("Hey!", "Are you around?", "lol yes", "That sounds great", "Ok", "See you soon",
           "Did you see the game last night?", "Haha true", "On my way", "Sure thing")


@register_task
class QueryTextsReceivedCount(MessagesTemplate):
    name = "messages_query_texts_received_count"
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "How many texts has {name} sent me in our conversation? Count only theirs, not mine."
    goal_phrasings = ("Count the messages {name} sent me (leave out my own). Just the number.",
                      "Could you check how many texts I've received from {name}?",
                      "Number of messages from {name} to me?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        n_in, n_out = rng.randint(3, 6), rng.randint(2, 4)
        ways = ["<"] + rng.sample(["<"] * (n_in - 1) + [">"] * n_out, n_in - 1 + n_out)
        return dict(self.person_params(rng), count=n_in,
                    lines=[[w, rng.choice(CHATTER)] for w in ways])

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        start = phone.now - timedelta(days=2)
        for i, (way, text) in enumerate(params["lines"]):
            add_sms(phone, params["number"], text, kind=TYPE_INBOX if way == "<" else TYPE_SENT,
                    when=start + timedelta(minutes=7 * i))

    def received(self, phone: Phone, params: dict[str, Any]) -> int:
        tid = thread_for(phone, params["number"])
        return phone.query_one("SELECT COUNT(*) FROM sms WHERE thread_id=? AND type=?", (tid or -1, TYPE_INBOX))[0]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = only_numbers(answer) == {str(params["count"])} and self.received(phone, params) == params["count"]
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = open_existing(phone, obs, params["number"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return answer(str(self.received(phone, params)))


MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
               "October", "November", "December")


@register_task
class QueryLastTextDate(MessagesTemplate):
    name = "messages_query_last_text_date"
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = "On what date did {name} last text me? Answer with the month and day."
    goal_phrasings = ("When was the last time {name} sent me a message? Give me the date.",
                      "Could you check Messages for the date of {name}'s most recent text to me?",
                      "Date of {name}'s last message to me?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return dict(self.person_params(rng), days=rng.randint(9, 40), gap=rng.randint(1, 4),
                    last_in=rng.choice(INCOMING), reply=rng.choice(BODIES))

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        n, days = params["number"], params["days"]
        add_sms(phone, n, "Hey, long time no see!", when=phone.now - timedelta(days=days + 3, hours=2))
        add_sms(phone, n, params["last_in"], when=phone.now - timedelta(days=days, hours=1))
        # my later reply dates the conversation in the list: the list date is not the answer
        add_sms(phone, n, params["reply"], kind=TYPE_SENT, when=phone.now - timedelta(days=days - params["gap"]))

    def last_day(self, phone: Phone, params: dict[str, Any]) -> Any:
        tid = thread_for(phone, params["number"])
        row = phone.query_one("SELECT MAX(date) FROM sms WHERE thread_id=? AND type=?", (tid or -1, TYPE_INBOX))
        return from_ms(row[0]).date() if row and row[0] else None

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        day = self.last_day(phone, params)
        return 1.0 if day is not None and date_matches(answer, day) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = open_existing(phone, obs, params["number"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        day = self.last_day(phone, params)
        return answer(f"{MONTH_NAMES[day.month - 1]} {day.day}")


# (what the goal calls it, what the stranger wrote)
STRANGERS = (("the room for rent", "Hi, I saw your listing. Is the room for rent still available?"),
             ("a lost dog", "Hi, I found a dog with your number on its collar. He's safe with me"),
             ("the couch I'm selling", "Is the couch still for sale? I could pick it up Saturday"),
             ("guitar lessons", "Hi! Got your number from the flyer about guitar lessons"),
             ("my car", "Hi, I think I dinged your car in the parking lot. Sorry! Text me back"))


@register_task
class QueryUnknownTexterNumber(MessagesTemplate):
    name = "messages_query_unknown_texter_number"
    kind = "query"
    optimal_steps = 3
    goal_template = "A number that isn't in my contacts texted me about {topic}. What's that phone number?"
    goal_phrasings = ("Someone I don't have saved messaged me about {topic}. Which number was it?",
                      "Could you find the phone number of the stranger who texted me about {topic}?",
                      "Number that texted me about {topic}?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (topic, text), (_other, other_text) = rng.sample(STRANGERS, 2)
        number, other = random_number(rng), random_number(rng)
        while normalize_number(other) == normalize_number(number):
            other = random_number(rng)
        return {"topic": topic, "text": text, "number": number, "other_text": other_text, "other": other,
                "first": rng.choice((True, False))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for num in (params["number"], params["other"]):
            remove_contacts_with_number(phone, num)
            tid = thread_for(phone, num)
            if tid is not None:
                delete_thread(phone, tid)
        hours = (1, 4) if params["first"] else (4, 1)
        add_sms(phone, params["number"], params["text"], when=phone.now - timedelta(hours=hours[0]), read=False)
        add_sms(phone, params["other"], params["other_text"], when=phone.now - timedelta(hours=hours[1]),
                read=False)
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = number_answer_matches(answer, params["number"]) and not number_answer_matches(answer, params["other"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = navigate(phone, obs, APP, [("main", None)])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return answer(params["number"])


QUESTIONS = ("Can you send me the address for Saturday?", "Do you want to carpool to the wedding?",
             "Which day works for dinner next week?", "Could you water my plants while I'm away?",
             "Are you bringing anything to the potluck?")
ANSWERS = ("Yes, sending it now", "Sure, let's do it", "Thursday works for me", "Of course, no problem")


@register_task
class QueryDidIReply(MessagesTemplate):
    name = "messages_query_did_i_reply"
    kind = "query"
    optimal_steps = 4
    goal_template = "{name} asked me \"{question}\" Did I ever answer that? Answer yes or no."
    goal_phrasings = ("Check my chat with {name}: they asked \"{question}\" Did I reply? Yes or no.",
                      "Could you check whether I responded when {name} asked \"{question}\" Just yes or no.",
                      "Yes or no: did I reply to {name}'s \"{question}\"")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return dict(self.person_params(rng), question=rng.choice(QUESTIONS), replied=rng.random() < 0.5,
                    reply=rng.choice(ANSWERS))

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        n, now = params["number"], phone.now - timedelta(days=1)
        add_sms(phone, n, "Good to see you yesterday!", kind=TYPE_SENT, when=now - timedelta(hours=5))
        add_sms(phone, n, params["question"], when=now - timedelta(hours=4))
        if params["replied"]:  # either way the conversation ends with them writing again
            add_sms(phone, n, params["reply"], kind=TYPE_SENT, when=now - timedelta(hours=3))
            add_sms(phone, n, "Great, thanks!", when=now - timedelta(hours=2))
        else:
            add_sms(phone, n, "Also, happy Friday 😄", when=now - timedelta(hours=3))
            add_sms(phone, n, "Hello?", when=now - timedelta(hours=2))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        words = set(normalize_answer(answer or ""))
        said_yes, said_no = "yes" in words, bool(words & {"no", "not", "didn't", "didnt", "never"})
        if said_yes == said_no:
            return 0.0
        return 1.0 if said_yes == params["replied"] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = open_existing(phone, obs, params["number"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return answer("Yes" if params["replied"] else "No")


@register_task
class QueryQuietestConversation(MessagesTemplate):
    name = "messages_query_quietest_conversation"
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = ("Which of my conversations has gone the longest without any new message? Answer with the "
                     "person's name.")
    goal_phrasings = ("Who haven't I exchanged texts with for the longest time? Give me the name.",
                      ("Could you find the conversation in Messages whose last message is the oldest, and tell me "
                      "who it's with?"),
                      "Name of the person in my stalest conversation?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (a1, a2), (b1, b2) = two_people(rng)
        return {"first": a1, "last": a2, "name": f"{a1} {a2}", "number": random_number(rng),
                "first_b": b1, "last_b": b2, "name_b": f"{b1} {b2}", "number_b": random_number(rng),
                "days": rng.randint(45, 70), "days_b": rng.randint(30, 40)}

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        fresh_person(phone, params["first_b"], params["last_b"], params["number_b"])
        seed_thread(phone, params["number"], unread=False, days=params["days"])
        seed_thread(phone, params["number_b"], unread=False, days=params["days_b"])

    def quietest(self, phone: Phone) -> str:
        row = phone.query_one("SELECT recipient_ids FROM threads ORDER BY date, _id LIMIT 1")
        return display_name(phone, row[0]) if row else ""

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = answer_matches(answer, params["name"]) and not answer_matches(answer, params["name_b"]) and \
            self.quietest(phone) == params["name"]
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_list(phone, obs)
        if step is not None:
            return step
        if phone.menu_open:
            return BACK
        if row_index(phone, obs, params["number"]) is None:
            return row_scroll(phone, obs, params["number"])
        return answer(self.quietest(phone))


# ---- round 3: correcting, de-duplicating, bulk retry, date clean-up, topic flags, thread history ------
def delete_sms_row(phone: Phone, obs: Observation, address: str, sms_id: int, body: str) -> Action:
    """On any screen: delete message ``sms_id`` from ``address``'s conversation (long press, Delete, confirm)."""
    if on_thread(phone, address):
        step = confirm_delete(phone, obs, "delete_message")
        if step is not None:
            return step
    step = open_existing(phone, obs, address)
    if step is not None:
        return step
    if phone.dialog is not None or phone.menu_open:
        return BACK
    return pick_message(phone, obs, sms_id, body) or click(obs, desc="Delete") or BACK


def delivered_count(phone: Phone, address: str, body: str) -> int:
    """How many delivered (sent) messages to ``address`` say ``body``."""
    rows = phone.query("SELECT address, body FROM sms WHERE type=?", (TYPE_SENT,))
    return sum(1 for r in rows if normalize_number(r["address"]) == normalize_number(address)
               and norm_body(r["body"]) == norm_body(body))


TYPOS = (("Meet me at the north entrance", "Meet me at the south entrance"),
         ("The reservation is for 4 people", "The reservation is for 5 people"),
         ("I'll be there on Tuesday", "I'll be there on Thursday"),
         ("My new address is 14 Oak Lane", "My new address is 41 Oak Lane"),
         ("The total was $35 each", "The total was $53 each"),
         ("Bring the blue cooler", "Bring the green cooler"))


@register_task
class CorrectSentTypo(MessagesTemplate):
    name = "messages_correct_sent_typo"
    complexity = 2
    optimal_steps = 8
    goal_template = ("I texted {name} \"{wrong}\" but that's wrong. Delete that message and send \"{right}\" "
                     "instead.")
    goal_phrasings = ("My text \"{wrong}\" to {name} was a mistake: remove it and text them \"{right}\".",
                      ("Could you delete the message \"{wrong}\" I sent {name} and send the correct one, "
                       "\"{right}\"?"),
                      "Fix my text to {name}: delete \"{wrong}\", then send \"{right}\".")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        wrong, right = rng.choice(TYPOS)
        return dict(self.person_params(rng), wrong=wrong, right=right, minutes=rng.randint(10, 90))

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        n, now = params["number"], phone.now - timedelta(minutes=params["minutes"])
        add_sms(phone, n, "Quick check before I head out", when=now - timedelta(minutes=6))
        add_sms(phone, n, params["wrong"], kind=TYPE_SENT, when=now)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        before = {r[0]: r for r in baseline_rows(phone, self, params, "SELECT _id, body, type FROM sms")}
        after = {r["_id"]: r["type"] for r in phone.query("SELECT _id, type FROM sms")}
        gone = set(before) - set(after)
        ok = len(gone) == 1 and norm_body(before[next(iter(gone))][1]) == norm_body(params["wrong"]) and \
            all(after[i] == before[i][2] for i in before if i in after) and \
            sent_exactly(phone, [(params["number"], params["right"])])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        target = sms_with(phone, params["number"], params["wrong"])
        if target is not None:
            return delete_sms_row(phone, obs, params["number"], target, params["wrong"])
        step = open_existing(phone, obs, params["number"])
        if step is not None:
            return step
        return send_in_thread(phone, obs, params["right"])


@register_task
class DeleteDuplicateTexts(MessagesTemplate):
    name = "messages_delete_duplicate_texts"
    complexity = 3
    optimal_steps = 9
    goal_template = ("My phone glitched and sent \"{body}\" to {name} {copies} times in a row. Delete the extra "
                     "copies so the message is there only once.")
    goal_phrasings = ("\"{body}\" went to {name} {copies} times. Remove the duplicates and keep just one of them.",
                      ("Could you clean up my chat with {name}? I accidentally sent \"{body}\" {copies} times; "
                       "leave a single copy."),
                      "Chat with {name}: \"{body}\" appears {copies} times. Keep one, delete the rest.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return dict(self.person_params(rng), body=rng.choice(BODIES), copies=rng.choice((3, 3, 4)),
                    hours=rng.randint(1, 6))

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        n, now = params["number"], phone.now - timedelta(hours=params["hours"])
        add_sms(phone, n, "Hey, what's the plan?", when=now - timedelta(minutes=20))
        for i in range(params["copies"]):
            add_sms(phone, n, params["body"], kind=TYPE_SENT, when=now + timedelta(seconds=20 * i))
        add_sms(phone, n, "Haha I got it the first time 😂", when=now + timedelta(minutes=4))

    def copies(self, phone: Phone, params: dict[str, Any]) -> list[int]:
        tid = thread_for(phone, params["number"])
        rows = phone.query("SELECT _id, body FROM sms WHERE thread_id=? AND type=? ORDER BY _id",
                           (tid or -1, TYPE_SENT))
        return [r["_id"] for r in rows if norm_body(r["body"]) == norm_body(params["body"])]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        before = {r[0]: r for r in baseline_rows(phone, self, params, "SELECT _id, address, body, type FROM sms")}
        after = {r["_id"]: r["type"] for r in phone.query("SELECT _id, type FROM sms")}
        gone = set(before) - set(after)
        ok = set(after) <= set(before) and len(gone) == params["copies"] - 1 and \
            all(normalize_number(before[i][1]) == normalize_number(params["number"])
                and norm_body(before[i][2]) == norm_body(params["body"]) and before[i][3] == TYPE_SENT
                for i in gone) and all(after[i] == before[i][3] for i in after)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        copies = self.copies(phone, params)
        if len(copies) < 2:
            raise TaskError("oracle: too few copies left but the task is not done")
        if on_thread(phone, params["number"]):
            step = confirm_delete(phone, obs, "delete_message")
            if step is not None:
                return step
        step = open_existing(phone, obs, params["number"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        scr = phone.screen
        assert scr is not None
        if scr.state.get("selected_msg") in copies:
            return click(obs, desc="Delete") or BACK
        i = bubble(obs, params["body"])
        if i is None:
            return scroll_toward(phone, obs, text=params["body"], resource_id="message_content") or BACK
        return Action(action_type="long_press", index=i)


@register_task
class ResendFailedEverywhere(MessagesTemplate):
    name = "messages_resend_failed_in_all_chats"
    complexity = 3
    optimal_steps = 9
    goal_template = ("{count} of my recent texts didn't go through, in different conversations. Find every "
                     "message marked Not sent and resend each one.")
    goal_phrasings = ("Some texts failed to send ({count} of them, to different people). Retry all of them.",
                      ("Could you go through Messages and resend the {count} texts that say Not sent? They're in "
                       "several chats."),
                      "Resend all {count} of my undelivered messages, whichever conversations they're in.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        people = distinct_people(rng, rng.choice((2, 3)))
        bodies = rng.sample(BODIES, len(people))
        for p, b, h in zip(people, bodies, rng.sample(range(2, 40), len(people))):
            p.update(body=b, hours=h)
        return {"people": people, "count": len(people)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "airplane_mode_on", 0)
        for p in params["people"]:
            fresh_person(phone, p["first"], p["last"], p["number"])
            when = phone.now - timedelta(hours=p["hours"])
            add_sms(phone, p["number"], "Let me know what you think", when=when - timedelta(minutes=30))
            add_sms(phone, p["number"], p["body"], kind=TYPE_FAILED, when=when)
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        wanted = {(normalize_number(p["number"]), norm_body(p["body"])) for p in params["people"]}
        failed = phone.query_one("SELECT COUNT(*) FROM sms WHERE type=?", (TYPE_FAILED,))[0]
        others = [s for s in new_sent(phone) if s not in wanted]
        count = phone.query_one("SELECT COUNT(*) FROM threads")[0]
        ok = failed == 0 and not others and count == baseline(phone, "threads") and \
            all(delivered_count(phone, p["number"], p["body"]) == 1 for p in params["people"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        row = phone.query_one("SELECT address FROM sms WHERE type=? ORDER BY date DESC, _id DESC", (TYPE_FAILED,))
        if row is None:
            raise TaskError("oracle: no failed message left but the task is not done")
        step = open_existing(phone, obs, row["address"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        i = find(obs, text="Not sent · Tap to retry", resource_id="message_content")
        if i is None:
            return scroll_toward(phone, obs, text="Not sent · Tap to retry", resource_id="message_content") or BACK
        return Action(action_type="click", index=i)


def month_day(d: Any) -> str:
    return f"{MONTH_NAMES[d.month - 1]} {d.day}"


@register_task
class DeleteStaleConversations(MessagesTemplate):
    name = "messages_delete_stale_conversations"
    complexity = 3
    optimal_steps = 9
    goal_template = ("Clean up Messages: delete every conversation whose newest message is from before "
                     "{date_text}. Keep any conversation with a message on {date_text} or later.")
    goal_phrasings = (("Delete the chats that have been quiet since before {date_text}; anything active on or "
                      "after {date_text} stays."),
                      ("Could you remove all conversations with no messages from {date_text} onwards? Keep the "
                       "ones that have something from {date_text} or later."),
                      "Messages: delete conversations last active before {date_text}, keep the rest.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        cutoff = DEFAULT_NOW.date() - timedelta(days=rng.randint(9, 13))
        people = distinct_people(rng, 3)
        for p, back in zip(people, (rng.randint(1, 6), rng.randint(8, 30), 0)):
            p["days"] = back
        return {"people": people, "cutoff": cutoff.isoformat(), "date_text": month_day(cutoff),
                "hour": rng.randint(8, 20)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        cutoff = date.fromisoformat(params["cutoff"])
        limit = to_ms(datetime.combine(cutoff, datetime.min.time()))
        for t in phone.query("SELECT _id FROM threads WHERE date<?", (limit,)):
            delete_thread(phone, t["_id"])  # only the planted conversations are stale
        for p in params["people"]:
            fresh_person(phone, p["first"], p["last"], p["number"])
            day = datetime.combine(cutoff - timedelta(days=p["days"]), datetime.min.time())
            when = day + timedelta(hours=params["hour"])
            add_sms(phone, p["number"], "Thanks for today!", when=when - timedelta(minutes=40))
            add_sms(phone, p["number"], "Anytime, talk soon", kind=TYPE_SENT, when=when)
        record_baseline(phone)

    def stale(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        return [p for p in params["people"] if p["days"] > 0]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        count = phone.query_one("SELECT COUNT(*) FROM threads")[0]
        keep = [p for p in params["people"] if p["days"] == 0]
        ok = all(thread_for(phone, p["number"]) is None for p in self.stale(params)) and \
            all(thread_for(phone, p["number"]) is not None for p in keep) and \
            count == baseline(phone, "threads") - len(self.stale(params))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = confirm_delete(phone, obs, "delete_conversation")
        if step is not None:
            return step
        left = [p for p in self.stale(params) if thread_for(phone, p["number"]) is not None]
        if not left:
            raise TaskError("oracle: stale conversations gone but the task is not done")
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return select_row(phone, obs, left[0]["number"]) or click(obs, desc="Delete") or BACK


# (what the goal calls it, their message)
TOPIC_TEXTS = (("the broken dishwasher", "The repair guy can look at the dishwasher on Thursday morning"),
               ("the concert tickets", "I got us two concert tickets for the 18th! You owe me $40"),
               ("the car insurance", "Your half of the car insurance is due this week, can you send it?"),
               ("the school fundraiser", "Could you bake something for the school fundraiser on Saturday?"),
               ("the spare room", "My cousin needs the spare room for two nights next week, is that ok?"))


@register_task
class MarkUnreadByTopic(MessagesTemplate):
    name = "messages_mark_unread_by_topic"
    complexity = 2
    optimal_steps = 4
    goal_template = ("Someone texted me about {topic}. Mark that conversation as unread so I don't forget to "
                     "deal with it.")
    goal_phrasings = ("Find the chat where I was asked about {topic} and set it back to unread.",
                      "Could you flag the conversation about {topic} as unread? I need to answer it later.",
                      "Mark the {topic} conversation unread.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        topic, text = rng.choice(TOPIC_TEXTS)
        return dict(self.person_params(rng), topic=topic, text=text, days=rng.choice((1.2, 2.5, 4.5, 6.5)))

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        add_sms(phone, params["number"], "Hi! Hope your week is going well",
                when=phone.now - timedelta(days=params["days"], minutes=5))
        add_sms(phone, params["number"], params["text"], when=phone.now - timedelta(days=params["days"]))
        for t in phone.query("SELECT _id FROM threads"):
            mark_thread_read(phone, t["_id"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        tid = thread_for(phone, params["number"])
        others = phone.query_one("SELECT COUNT(*) FROM sms WHERE read=0 AND thread_id!=?", (tid or -1,))[0]
        count = phone.query_one("SELECT COUNT(*) FROM threads")[0]
        ok = thread_unread(phone, params["number"]) is True and others == 0 and \
            count == baseline(phone, "threads") and not new_sent(phone)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return select_row(phone, obs, params["number"]) or click(obs, desc="Mark as unread") or BACK


@register_task
class ResendOneDeleteOther(MessagesTemplate):
    name = "messages_resend_one_delete_other"
    complexity = 3
    optimal_steps = 7
    goal_template = ("Two of my texts to {name} failed. Resend \"{keep}\", but delete \"{drop}\" instead of "
                     "sending it.")
    goal_phrasings = ("Of my two Not sent texts to {name}, retry \"{keep}\" and throw away \"{drop}\".",
                      ("Could you get \"{keep}\" delivered to {name} and delete the other failed text, "
                       "\"{drop}\"?"),
                      "{name} chat: resend \"{keep}\"; delete \"{drop}\" without sending.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        keep, drop = rng.sample(BODIES, 2)
        return dict(self.person_params(rng), keep=keep, drop=drop, keep_first=rng.random() < 0.5)

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "airplane_mode_on", 0)
        n, now = params["number"], phone.now
        add_sms(phone, n, "Are we still on for later?", when=now - timedelta(hours=2))
        order = (params["keep"], params["drop"]) if params["keep_first"] else (params["drop"], params["keep"])
        for i, body in enumerate(order):
            add_sms(phone, n, body, kind=TYPE_FAILED, when=now - timedelta(minutes=70 - 5 * i))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        before = {r[0]: r for r in baseline_rows(phone, self, params, "SELECT _id, body, type FROM sms")}
        after = {r["_id"]: r for r in phone.query("SELECT _id, body, type FROM sms")}
        gone = set(before) - set(after)
        keep = normalize_number(params["number"]), norm_body(params["keep"])
        ok = len(gone) <= 2 and all(norm_body(before[i][1]) in (keep[1], norm_body(params["drop"]))
                                    and before[i][2] == TYPE_FAILED for i in gone) and \
            sms_with(phone, params["number"], params["drop"]) is None and \
            delivered_count(phone, params["number"], params["keep"]) == 1 and \
            all(s == keep for s in new_sent(phone)) and \
            phone.query_one("SELECT COUNT(*) FROM sms WHERE type=?", (TYPE_FAILED,))[0] == 0 and \
            all(after[i]["type"] == before[i][2] for i in after if i in before
                and norm_body(before[i][1]) != keep[1])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        target = sms_with(phone, params["number"], params["drop"])
        if target is not None:
            return delete_sms_row(phone, obs, params["number"], target, params["drop"])
        step = open_existing(phone, obs, params["number"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        if phone.screen is not None and phone.screen.state.get("selected_msg") is not None:
            return click(obs, desc="Cancel selection") or BACK
        i = find(obs, text="Not sent · Tap to retry", resource_id="message_content")
        return Action(action_type="click", index=i) if i is not None else send_in_thread(phone, obs, params["keep"])


# ---- round 3 queries -------------------------------------------------------------------------------
HISTORY = (("How was the trip?", "Pretty good, a bit tiring"), ("Want to grab coffee this week?", "Sure, Wednesday?"),
           ("Did you watch the finale?", "Not yet, no spoilers!"), ("Can I borrow your ladder?", "Sure, come by anytime"),
           ("Is the gym open tomorrow?", "Only until noon I think"), ("Thanks for the book", "Glad you liked it"),
           ("Running late, 5 min", "No rush"), ("Are you free Saturday?", "Yes, what's up?"))
INTROS = ("the pottery class", "Jen's wedding", "the hiking group", "the conference in Denver", "the dog park")


@register_task
class QueryFirstTextDate(MessagesTemplate):
    name = "messages_query_first_text_date"
    kind = "query"
    complexity = 2
    optimal_steps = 6
    goal_template = ("When did {name} and I start texting? Answer with the date of the very first message in our "
                     "conversation.")
    goal_phrasings = ("What's the date of the oldest message in my chat with {name}? Month and day, please.",
                      "Could you scroll back to the start of my conversation with {name} and tell me its date?",
                      "Date of the first text between {name} and me?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        gaps = [rng.randint(1, 4) for _ in range(6)]
        return dict(self.person_params(rng), intro=rng.choice(INTROS), start=rng.randint(25, 50) + sum(gaps),
                    gaps=gaps, lines=[t for pair in rng.sample(HISTORY, 6) for t in pair], hour=rng.randint(9, 19))

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        n = params["number"]
        day = datetime.combine(phone.now.date() - timedelta(days=params["start"]), datetime.min.time())
        when = day + timedelta(hours=params["hour"])
        add_sms(phone, n, f"Hi! It's {params['first']} from {params['intro']}, great to meet you",
                when=when)
        lines = list(params["lines"])
        for i, gap in enumerate(params["gaps"]):
            when += timedelta(days=gap)
            for j, text in enumerate(lines[2 * i:2 * i + 2]):
                add_sms(phone, n, text, kind=TYPE_SENT if (i + j) % 2 == 0 else TYPE_INBOX,
                        when=when + timedelta(minutes=9 * j))

    def first_day(self, phone: Phone, params: dict[str, Any]) -> Any:
        tid = thread_for(phone, params["number"])
        row = phone.query_one("SELECT MIN(date) FROM sms WHERE thread_id=?", (tid or -1,))
        return from_ms(row[0]).date() if row and row[0] else None

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        day = self.first_day(phone, params)
        return 1.0 if day is not None and date_matches(answer, day) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = open_existing(phone, obs, params["number"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        intro = f"Hi! It's {params['first']} from {params['intro']}, great to meet you"
        if bubble(obs, intro) is None:
            return scroll_toward(phone, obs, text=intro, resource_id="message_content") or BACK
        return answer(month_day(self.first_day(phone, params)))


@register_task
class QueryMoreRecentOfTwo(MessagesTemplate):
    name = "messages_query_more_recent_of_two"
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "Who texted me more recently, {name_1} or {name_2}? Answer with the name."
    goal_phrasings = ("Between {name_1} and {name_2}, whose latest message to me is newer?",
                      "Could you check which of {name_1} and {name_2} sent me a text most recently?",
                      "{name_1} or {name_2}: who messaged me last?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        a, b = distinct_people(rng, 2)  # a texted me more recently; b's chat is newer only by my own reply
        a.update(days=rng.randint(2, 4), hour=rng.randint(9, 20))
        b.update(days=a["days"] + rng.randint(1, 3), hour=rng.randint(9, 20), reply_hours=rng.randint(1, 20))
        first = rng.random() < 0.5
        return {"a": a, "b": b, "name_1": (a if first else b)["name"], "name_2": (b if first else a)["name"]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        a, b = params["a"], params["b"]
        for p in (a, b):
            fresh_person(phone, p["first"], p["last"], p["number"])
        day = datetime.combine(phone.now.date(), datetime.min.time())
        add_sms(phone, a["number"], "Let me know if you need anything else",
                when=day - timedelta(days=a["days"]) + timedelta(hours=a["hour"]))
        add_sms(phone, b["number"], "Can you check if the shop is open on Sunday?",
                when=day - timedelta(days=b["days"]) + timedelta(hours=b["hour"]))
        add_sms(phone, b["number"], "Sorry, only just saw this! Yes it is", kind=TYPE_SENT,
                when=phone.now - timedelta(hours=b["reply_hours"]))
        record_baseline(phone)

    def latest_from(self, phone: Phone, number: str) -> int:
        tid = thread_for(phone, number)
        row = phone.query_one("SELECT MAX(date) FROM sms WHERE thread_id=? AND type=?", (tid or -1, TYPE_INBOX))
        return int(row[0] or 0)

    def winner(self, phone: Phone, params: dict[str, Any]) -> tuple[str, str]:
        a, b = params["a"], params["b"]
        if self.latest_from(phone, a["number"]) >= self.latest_from(phone, b["number"]):
            return a["name"], b["name"]
        return b["name"], a["name"]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        win, lose = self.winner(phone, params)
        return 1.0 if answer_matches(answer, win) and not answer_matches(answer, lose) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = open_existing(phone, obs, params["a"]["number"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return answer(self.winner(phone, params)[0])


INCOMING_NEWS = ("The vet said Max is totally fine!", "I just booked the cabin for August",
                 "Guess who I ran into at the airport", "We got the apartment!!",
                 "The printer at the office is fixed finally")


def clock_answers(dt: datetime) -> list[str]:
    """How an answer may state the time of ``dt``: "2:47 PM", "2:47pm" or "14:47"."""
    h12, half = dt.hour % 12 or 12, "AM" if dt.hour < 12 else "PM"
    return [f"{h12}:{dt.minute:02d} {half}", f"{h12}:{dt.minute:02d}{half.lower()}", f"{dt.hour:02d}:{dt.minute:02d}"]


@register_task
class QueryMessageTime(MessagesTemplate):
    name = "messages_query_message_time"
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "At what time did {name} send me \"{body}\"? Answer with the time of day."
    goal_phrasings = ("What time was {name}'s text \"{body}\" sent?",
                      "Could you check when exactly {name} messaged me \"{body}\"? I need the time.",
                      "Time of {name}'s message \"{body}\"?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return dict(self.person_params(rng), body=rng.choice(INCOMING_NEWS), days=rng.randint(1, 3),
                    hour=rng.randint(10, 21), minute=rng.randint(0, 59), gap=rng.randint(3, 9),
                    reply=rng.choice(("No way!", "That's amazing", "Haha love it", "Wow, tell me more")))

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        n = params["number"]
        day = datetime.combine(phone.now.date() - timedelta(days=params["days"]), datetime.min.time())
        when = day + timedelta(hours=params["hour"], minutes=params["minute"])
        add_sms(phone, n, "Morning! You busy today?", when=when - timedelta(hours=2, minutes=17))
        add_sms(phone, n, params["body"], when=when)
        add_sms(phone, n, params["reply"], kind=TYPE_SENT, when=when + timedelta(minutes=params["gap"]))
        add_sms(phone, n, "I'll tell you everything tomorrow", when=when + timedelta(minutes=2 * params["gap"] + 1))

    def times(self, phone: Phone, params: dict[str, Any]) -> tuple[list[str], list[str]]:
        """(ways to say the asked message's time, the same for every other message in the chat)."""
        tid = thread_for(phone, params["number"])
        right: list[str] = []
        wrong: list[str] = []
        for m in phone.query("SELECT body, date, type FROM sms WHERE thread_id=?", (tid or -1,)):
            hit = m["type"] == TYPE_INBOX and norm_body(m["body"]) == norm_body(params["body"])
            (right if hit else wrong).extend(clock_answers(from_ms(m["date"])))
        return right, [w for w in wrong if w not in right]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        right, wrong = self.times(phone, params)
        ok = any(answer_matches(answer, t) for t in right) and not any(answer_matches(answer, t) for t in wrong)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = open_existing(phone, obs, params["number"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        if bubble(obs, params["body"]) is None:
            return scroll_toward(phone, obs, text=params["body"], resource_id="message_content") or BACK
        return answer(self.times(phone, params)[0][0])


# word -> texts mentioning it
MENTIONS = {"pizza": ("Want to get pizza tonight?", "Pizza at my place on Friday", "I already ordered the pizza",
                      "That pizza place downtown closed", "Save me a slice of pizza!"),
            "tickets": ("Did you get the tickets?", "The tickets are in my email", "Tickets sold out in an hour",
                        "I can print the tickets at work", "How much were the tickets?"),
            "umbrella": ("Take an umbrella, it's pouring", "I left my umbrella at your place",
                         "Is that your umbrella in my car?", "Bring the big umbrella to the beach"),
            "charger": ("Can I borrow your charger?", "My charger is in the kitchen drawer",
                        "Forgot my charger again", "Found your charger under the couch")}


@register_task
class QueryMentionCount(MessagesTemplate):
    name = "messages_query_mention_count"
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = ("How many of my text messages mention \"{word}\"? Count every message with that word, "
                     "sent or received, in all conversations.")
    goal_phrasings = ("Across all my chats, how many texts contain the word \"{word}\"? Mine and theirs both count.",
                      "Could you count the messages in Messages that mention \"{word}\"? Just the number.",
                      "Number of texts (any conversation, either direction) with \"{word}\" in them?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        word = rng.choice(sorted(MENTIONS))
        texts = rng.sample(MENTIONS[word], rng.randint(2, 4))
        people = distinct_people(rng, 2)
        return {"word": word, "count": len(texts), "people": people,
                "plan": [[rng.randrange(2), t, rng.choice((TYPE_INBOX, TYPE_SENT)), rng.randint(2, 200)]
                         for t in texts]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for m in phone.query("SELECT _id, thread_id FROM sms WHERE body LIKE ?", (f"%{params['word']}%",)):
            phone.execute("DELETE FROM sms WHERE _id=?", (m["_id"],))
            refresh_thread(phone, m["thread_id"])
        for p in params["people"]:
            fresh_person(phone, p["first"], p["last"], p["number"])
            seed_thread(phone, p["number"], unread=False, days=9)
        for who, text, kind, hours in params["plan"]:
            add_sms(phone, params["people"][who]["number"], text, kind=kind, when=phone.now - timedelta(hours=hours))
        record_baseline(phone)

    def count(self, phone: Phone, params: dict[str, Any]) -> int:
        word = params["word"].lower()
        return sum(1 for m in phone.query("SELECT body FROM sms") if word in m["body"].lower())

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        n = self.count(phone, params)
        return 1.0 if n == params["count"] and only_numbers(answer) == {str(n)} else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = navigate(phone, obs, APP, [("main", {"desc": "Search"}), ("search", None)])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        scr = phone.screen
        assert scr is not None
        if scr.fields.get("query") != params["word"]:
            return type_into(obs, params["word"], resource_id="search_text") or BACK
        return answer(str(self.count(phone, params)))


@register_task
class MarkTodayRead(MessagesTemplate):
    name = "messages_mark_read_only_today"
    complexity = 3
    optimal_steps = 6
    goal_template = ("Mark as read only the unread conversations that got a new message today. Older unread "
                     "conversations should stay unread.")
    goal_phrasings = (("I've dealt with today's texts: mark today's unread chats as read, but leave the unread "
                      "ones from earlier days alone."),
                      ("Could you mark the conversations with messages from today as read? Anything unread from "
                       "before today stays unread."),
                      "Today's unread conversations -> read; earlier unread ones unchanged.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        people = distinct_people(rng, rng.choice((4, 5)))
        n_today = rng.choice((2, 2, 3)) if len(people) == 5 else 2
        for i, p in enumerate(people):
            p["today"] = i < n_today
            p["minutes"] = rng.randint(15, 280) if p["today"] else rng.randint(1, 5) * 1440 + rng.randint(0, 600)
        rng.shuffle(people)
        return {"people": people}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for t in phone.query("SELECT _id FROM threads"):
            mark_thread_read(phone, t["_id"])
        for p in params["people"]:
            fresh_person(phone, p["first"], p["last"], p["number"])
            when = phone.now - timedelta(minutes=p["minutes"])
            add_sms(phone, p["number"], "Hey, quick question", when=when - timedelta(minutes=3), read=False)
            add_sms(phone, p["number"], "Call me when you can", when=when, read=False)
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        old = [p["number"] for p in params["people"] if not p["today"]]
        tids = [thread_for(phone, n) for n in old]
        unread = phone.query("SELECT DISTINCT thread_id FROM sms WHERE read=0")
        count = phone.query_one("SELECT COUNT(*) FROM threads")[0]
        ok = None not in tids and {r[0] for r in unread} == set(tids) and \
            all(thread_unread(phone, n) for n in old) and count == baseline(phone, "threads") and \
            not new_sent(phone)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if phone.dialog is not None or phone.menu_open:
            return BACK
        left = [p for p in params["people"] if p["today"] and thread_unread(phone, p["number"])]
        if not left:
            raise TaskError("oracle: today's conversations are read but the task is not done")
        return select_row(phone, obs, left[0]["number"]) or click(obs, desc="Mark as read") or BACK


@register_task
class DeleteThreadMessagesBefore(MessagesTemplate):
    name = "messages_delete_thread_messages_before_date"
    complexity = 4
    optimal_steps = 15
    goal_template = ("In my chat with {name}, delete every message from before {date_text}. Keep the messages "
                     "from {date_text} onwards.")
    goal_phrasings = (("Trim my conversation with {name}: remove the texts older than {date_text}, keep {date_text} "
                      "and later."),
                      ("Could you delete the messages in {name}'s chat that were sent before {date_text}? Don't "
                       "delete the conversation, and leave anything from {date_text} on."),
                      "{name} chat: delete everything dated before {date_text}.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        cut_back = rng.randint(3, 8)
        cutoff = DEFAULT_NOW.date() - timedelta(days=cut_back)
        lines = [t for pair in rng.sample(HISTORY, 3) for t in pair]
        return dict(self.person_params(rng), cutoff=cutoff.isoformat(), date_text=month_day(cutoff),
                    offsets=[cut_back + rng.randint(6, 9), cut_back + rng.randint(1, 4), cut_back,
                             rng.randint(0, cut_back - 1)], lines=lines, hour=rng.randint(9, 18))

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        n, today = params["number"], datetime.combine(phone.now.date(), datetime.min.time())
        plan = [(0, 0), (0, 1), (1, 2), (1, 3), (2, 4), (3, 5)]  # (which day, which line): 4 old texts, 2 kept
        for i, (d, k) in enumerate(plan):
            when = today - timedelta(days=params["offsets"][d]) + timedelta(hours=params["hour"], minutes=7 * k)
            if when > phone.now - timedelta(minutes=5):
                when = phone.now - timedelta(minutes=30 - k)
            add_sms(phone, n, params["lines"][k], kind=TYPE_SENT if i % 2 else TYPE_INBOX, when=when)

    def limit(self, params: dict[str, Any]) -> int:
        return to_ms(datetime.combine(date.fromisoformat(params["cutoff"]), datetime.min.time()))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        before = {r[0]: r for r in baseline_rows(phone, self, params, "SELECT _id, address, date, type FROM sms")}
        after = {r["_id"]: r["type"] for r in phone.query("SELECT _id, type FROM sms")}
        want_gone = {i for i, r in before.items()
                     if normalize_number(r[1]) == normalize_number(params["number"]) and r[2] < self.limit(params)}
        ok = len(want_gone) == 4 and set(after) == set(before) - want_gone and \
            all(after[i] == before[i][3] for i in after)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        tid = thread_for(phone, params["number"])
        row = phone.query_one("SELECT _id, body FROM sms WHERE thread_id=? AND date<? ORDER BY date DESC, _id DESC",
                              (tid or -1, self.limit(params)))
        if row is None:
            raise TaskError("oracle: the old messages are gone but the task is not done")
        return delete_sms_row(phone, obs, params["number"], row["_id"], row["body"])


# ---- round 4: derived replies, conditional and partly-done work, fix-the-wrong-one, bulk by content ------
SMS_COLS = "_id, thread_id, address, body, date, type"


def sms_diff(phone: Phone, template: TaskTemplate, params: dict[str, Any], *,
             read: bool = False) -> tuple[list[tuple], list[tuple], list[tuple[tuple, tuple]]]:
    """(added, removed, changed) sms rows since set-up (whole table; ``read`` adds the read flag)."""
    sql = f"SELECT {SMS_COLS}{', read' if read else ''} FROM sms ORDER BY _id"
    return diff_rows(baseline_rows(phone, template, params, sql), [tuple(r) for r in phone.query(sql)])


def _key(address: str, body: str) -> tuple[str, str]:
    return normalize_number(address) or address, norm_body(body)


def only_sent(diff: tuple[list[tuple], list[tuple], list[tuple[tuple, tuple]]],
              expected: list[tuple[str, str]]) -> bool:
    """Nothing removed or changed; the added rows are exactly these delivered (number, body) texts."""
    added, removed, changed = diff
    if removed or changed or any(r[5] != TYPE_SENT for r in added):
        return False
    return sorted(_key(r[2], r[3]) for r in added) == sorted(_key(a, b) for a, b in expected)


def amounts_in(text: str | None) -> list[Decimal]:
    return [Decimal(n.replace(",", "")) for n in NUMBER.findall(text or "")]


def _yes_no(answer_text: str | None) -> bool | None:
    """True for a yes, False for a no, None for neither or both."""
    words = set(normalize_answer(answer_text or ""))
    said_yes, said_no = "yes" in words, bool(words & {"no", "not", "didn't", "didnt", "never"})
    return None if said_yes == said_no else said_yes


def open_chat(phone: Phone, obs: Observation, address: str) -> Action | None:
    """``open_existing`` that first closes a popup left open anywhere but in that conversation."""
    if not on_thread(phone, address):
        step = dismiss_popups(phone)
        if step is not None:
            return step
    return open_existing(phone, obs, address)


def set_up_people(phone: Phone, people: list[dict[str, Any]]) -> None:
    for p in people:
        fresh_person(phone, p["first"], p["last"], p["number"])


def mark_everything_read(phone: Phone) -> None:
    for t in phone.query("SELECT _id FROM threads"):
        mark_thread_read(phone, t["_id"])


# (what the goal calls the first cost, the second, an older unrelated one)
COSTS = (("the groceries", "the gas", "the parking"), ("the cabin", "the boat rental", "the ski passes"),
         ("the concert tickets", "the train fares", "the hotel"), ("the pizza", "the drinks", "the cake"),
         ("the paint", "the brushes", "the ladder"))


@register_task
class ReplyWithShare(MessagesTemplate):
    name = "messages_reply_with_share"
    complexity = 3
    optimal_steps = 5
    goal_template = ("{name} paid for {item_a} and {item_b} and texted me what each cost. We split everything {ways} "
                     "ways: reply to {name} with how much each of us owes, as a dollar amount.")
    goal_phrasings = (("Add up what {name} said {item_a} and {item_b} cost, divide by {ways} (we share it {ways} "
                       "ways) and text {name} that amount in dollars."),
                      ("Could you work out our {ways}-way share of {item_a} plus {item_b} from {name}'s texts and "
                       "reply to {name} with it?"),
                      "Reply to {name} with each person's share ({ways} ways) of {item_a} + {item_b}, in dollars.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        a, b, c = rng.choice(COSTS)
        ways = rng.choice((2, 3, 4))
        share = rng.randint(6, 60) * 100 + rng.choice((0, 25, 50, 75, 20, 45))
        first = rng.randint(share * ways // 4, share * ways * 3 // 4)
        return dict(self.person_params(rng), item_a=a, item_b=b, item_c=c, ways=ways,
                    cents=[first, share * ways - first, rng.randint(10, 90) * 100 + 50])

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        n, now = params["number"], phone.now
        a, b, c = params["cents"]
        add_sms(phone, n, f"{params['item_c'].capitalize()} last month was ${dollars(c)}, already settled",
                when=now - timedelta(days=9))
        add_sms(phone, n, f"Ok so {params['item_a']} came to ${dollars(a)}", when=now - timedelta(hours=3, minutes=4))
        add_sms(phone, n, f"And {params['item_b']} was ${dollars(b)}", when=now - timedelta(hours=3), read=False)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = sms_diff(phone, self, params)
        a, b, c = params["cents"]
        if removed or changed or len(added) != 1 or added[0][5] != TYPE_SENT or \
                normalize_number(added[0][2]) != normalize_number(params["number"]):
            return 0.0
        nums = amounts_in(added[0][3])
        if not nums or len(nums) > 3:
            return 0.0
        share = Decimal(a + b) / 100 / params["ways"]
        # the whole total, a share with the old cost in it: near misses
        wrong = {Decimal(a + b) / 100, Decimal(a + b + c) / 100 / params["ways"]} - {share}
        return 1.0 if share in nums and not wrong & set(nums) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        a, b, _c = params["cents"]
        return open_chat(phone, obs, params["number"]) or \
            send_in_thread(phone, obs, f"Your share is ${dollars((a + b) // params['ways'])} each")


@register_task
class ReplyByOtherChat(MessagesTemplate):
    name = "messages_reply_depending_on_other_chat"
    complexity = 3
    optimal_steps = 7
    goal_template = ("{name} asked if I'm free on {day} evening. Check my chat with {name_b}: if I already made plans "
                     "with {name_b} for {day}, reply \"{no}\" to {name}; otherwise reply \"{yes}\".")
    goal_phrasings = (("Answer {name}'s question about {day} evening. If my texts with {name_b} show we have plans "
                       "on {day}, send \"{no}\"; if not, send \"{yes}\"."),
                      ("Could you look at my conversation with {name_b} and then reply to {name}: \"{no}\" if "
                       "{name_b} and I are meeting on {day}, else \"{yes}\"?"),
                      ("{name} wants to know about {day} evening. Plans with {name_b} that day -> reply \"{no}\"; "
                       "no plans -> reply \"{yes}\"."))

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        a, b = distinct_people(rng, 2)
        day, other = rng.sample(("Thursday", "Friday", "Saturday", "Sunday"), 2)
        busy = rng.random() < 0.5
        return {"first": a["first"], "last": a["last"], "name": a["name"], "number": a["number"],
                "first_b": b["first"], "last_b": b["last"], "name_b": b["name"], "number_b": b["number"],
                "day": day, "plans_day": day if busy else other, "busy": busy,
                "yes": "Yes, I'm free that evening!", "no": "Sorry, I already have plans that evening"}

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        fresh_person(phone, params["first_b"], params["last_b"], params["number_b"])
        nb, now, pd = params["number_b"], phone.now, params["plans_day"]
        add_sms(phone, nb, f"Dinner on {pd} at 7? My treat", when=now - timedelta(days=2, hours=3))
        add_sms(phone, nb, f"Yes, {pd} works, see you then!", kind=TYPE_SENT, when=now - timedelta(days=2, hours=2))
        add_sms(phone, nb, "Great 🙂", when=now - timedelta(days=2, hours=1))
        add_sms(phone, params["number"], f"Are you free on {params['day']} evening? Thinking of a movie",
                when=now - timedelta(minutes=40), read=False)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        body = params["no"] if params["busy"] else params["yes"]
        return 1.0 if only_sent(sms_diff(phone, self, params), [(params["number"], body)]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = look_first(phone, f"{self.name}:plans",
                          lambda: open_chat(phone, obs, params["number_b"]) or dismiss_popups(phone))
        if step is not None:
            return step
        return open_chat(phone, obs, params["number"]) or \
            send_in_thread(phone, obs, params["no"] if params["busy"] else params["yes"])


WAITING = ("Can you call me back when you get a chance?", "Did you get my email about Saturday?",
           "Are you still selling the bike?", "What was the name of that restaurant?",
           "Can you send me the photos?", "Do you know a good dentist?")


@register_task
class ReplyToLongestWaiting(MessagesTemplate):
    name = "messages_reply_to_longest_waiting"
    complexity = 3
    optimal_steps = 5
    goal_template = ("A few people are waiting for me to answer (their chats are unread). Reply \"{body}\" to the one "
                     "who has been waiting the longest, and leave the other unread chats unread.")
    goal_phrasings = (("Of my unread conversations, find the one whose message came in earliest and answer it with "
                       "\"{body}\". Don't open the other unread ones."),
                      ("Could you reply \"{body}\" to whoever has been waiting longest for my answer? The other "
                       "unread chats should stay unread."),
                      "Oldest unread conversation gets the reply \"{body}\"; the rest stay unread.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        people = distinct_people(rng, 3)
        hours = sorted(rng.sample(range(1, 30), 2)) + [rng.randint(60, 140)]
        for p, h, text in zip(people, hours, rng.sample(WAITING, 3)):
            p.update(hours=h, text=text)
        rng.shuffle(people)
        return {"people": people, "body": rng.choice(CATCH_UPS)}

    def oldest(self, params: dict[str, Any]) -> dict[str, Any]:
        return max(params["people"], key=lambda p: p["hours"])

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        set_up_people(phone, params["people"])
        mark_everything_read(phone)
        for p in params["people"]:
            when = phone.now - timedelta(hours=p["hours"])
            add_sms(phone, p["number"], "Hey!", kind=TYPE_SENT, when=when - timedelta(hours=30))
            add_sms(phone, p["number"], p["text"], when=when, read=False)
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        target = self.oldest(params)
        added, removed, changed = sms_diff(phone, self, params, read=True)
        tid = thread_for(phone, target["number"])
        # opening the chat marks it read: only that chat's read flags may change
        ok_changes = all(old[:6] == new[:6] and old[1] == tid for old, new in changed)
        ok_added = len(added) == 1 and added[0][5] == TYPE_SENT and \
            _key(added[0][2], added[0][3]) == _key(target["number"], params["body"])
        return 1.0 if ok_changes and ok_added and not removed else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return open_chat(phone, obs, self.oldest(params)["number"]) or \
            send_in_thread(phone, obs, params["body"])


# (event, what people ask about it, the answer)
ASKED_ABOUT = (("the barbecue", ("What time does the barbecue start?", "When is the barbecue starting on Saturday?",
                                 "Hey, what time should I come for the barbecue?", "Barbecue still on? What time?"),
                "It starts at 4 PM at my place, see you there!"),
               ("the book club", ("Which book are we reading for book club?", "What's the book club book this month?",
                                  "Remind me which book for book club?", "Did we pick the book club book?"),
                "We're reading The Remains of the Day"),
               ("the team lunch", ("Where is the team lunch on Friday?", "Which restaurant for the team lunch?",
                                   "Team lunch location?", "Where are we going for the team lunch?"),
                "Team lunch is at Sakura Sushi Bar at 12:30"))


@register_task
class FinishReplyingToAskers(MessagesTemplate):
    name = "messages_finish_replying_to_askers"
    complexity = 3
    optimal_steps = 12
    goal_template = ("Everyone who asked me about {event} should get the answer \"{body}\". I already replied to some "
                     "of them; send it to the rest, one text each, and nobody twice.")
    goal_phrasings = (("I started answering the people who texted me questions about {event}. Finish the job: "
                       "\"{body}\" to each asker who hasn't got it yet."),
                      ("Could you send \"{body}\" to everyone still waiting for my answer about {event}? Skip the "
                       "ones I've already answered."),
                      "Questions about {event}: reply \"{body}\" to whoever I haven't answered yet (once each).")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        event, questions, body = rng.choice(ASKED_ABOUT)
        people = distinct_people(rng, 5)
        n_done = rng.choice((1, 2))
        for i, (p, q) in enumerate(zip(people, rng.sample(questions, 4))):
            p.update(question=q, answered=i < n_done, hours=rng.randint(2, 40))
        # the fifth only mentions it, without asking
        people[4].update(question=f"Can't wait for {event}!", answered=False, hours=rng.randint(2, 40), asked=False)
        for p in people[:4]:
            p["asked"] = True
        rng.shuffle(people)
        return {"event": event, "body": body, "people": people}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        set_up_people(phone, params["people"])
        for p in params["people"]:
            when = phone.now - timedelta(hours=p["hours"])
            add_sms(phone, p["number"], p["question"], when=when)
            if p["answered"]:
                add_sms(phone, p["number"], params["body"], kind=TYPE_SENT, when=when + timedelta(minutes=25))
                add_sms(phone, p["number"], "Perfect, thanks!", when=when + timedelta(minutes=31))
        record_baseline(phone)

    def pending(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        return [p for p in params["people"] if p["asked"] and not p["answered"]]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = [(p["number"], params["body"]) for p in self.pending(params)]
        return 1.0 if only_sent(sms_diff(phone, self, params), want) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        done = {a for a, _ in new_sent(phone)}
        for p in self.pending(params):
            if normalize_number(p["number"]) not in done:
                return open_chat(phone, obs, p["number"]) or send_in_thread(phone, obs, params["body"])
        return COMPLETE


# (event, right time, wrong time)
REUNION_TIMES = (("reunion dinner", "7:30 PM", "7:00 PM"), ("school play", "6:00 PM", "6:30 PM"),
                 ("farewell party", "8:00 PM", "9:00 PM"), ("beach cleanup", "9:00 AM", "10:00 AM"),
                 ("board game night", "7:00 PM", "5:00 PM"))


@register_task
class FixWrongTimeSent(MessagesTemplate):
    name = "messages_fix_wrong_time_sent"
    complexity = 3
    optimal_steps = 8
    goal_template = ("I texted {name_1}, {name_2} and {name_3} that the {event} starts at {time}, but one of those "
                     "texts has the wrong time. Find it and send only that person \"{fix}\".")
    goal_phrasings = (("One of my texts about the {event} to {name_1}, {name_2} or {name_3} gave the wrong start "
                       "time (it's {time}). Text that one person \"{fix}\"."),
                      ("Could you check my messages to {name_1}, {name_2} and {name_3} about the {event} "
                       "({time})? Whoever got a wrong time gets \"{fix}\"; nobody else."),
                      ("The {event} is at {time}: send \"{fix}\" to whichever of {name_1}, {name_2}, {name_3} I "
                       "told another time."))

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        event, right, wrong = rng.choice(REUNION_TIMES)
        people = distinct_people(rng, 3)
        bad = rng.randrange(3)
        for i, p in enumerate(people):
            p.update(wrong=i == bad, hours=rng.randint(3, 50))
        return {"people": people, "event": event, "time": right, "wrong_time": wrong,
                "fix": f"Correction: the {event} starts at {right}",
                "name_1": people[0]["name"], "name_2": people[1]["name"], "name_3": people[2]["name"]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        set_up_people(phone, params["people"])
        for p in params["people"]:
            when = phone.now - timedelta(hours=p["hours"])
            t = params["wrong_time"] if p["wrong"] else params["time"]
            add_sms(phone, p["number"], f"Hi! The {params['event']} starts at {t}. Hope you can make it",
                    kind=TYPE_SENT, when=when)
            add_sms(phone, p["number"], "Thanks, I'll be there!", when=when + timedelta(minutes=12))
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        (bad,) = [p for p in params["people"] if p["wrong"]]
        return 1.0 if only_sent(sms_diff(phone, self, params), [(bad["number"], params["fix"])]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        for i, p in enumerate(params["people"]):  # read the chats in turn until the wrong time shows up
            if p["wrong"]:
                return open_chat(phone, obs, p["number"]) or send_in_thread(phone, obs, params["fix"])
            step = look_first(phone, f"{self.name}:{i}",
                              lambda p=p: open_chat(phone, obs, p["number"]) or dismiss_popups(phone))
            if step is not None:
                return step
        raise TaskError("oracle: nobody got the wrong time")


@register_task
class DeleteTextsWithCode(MessagesTemplate):
    name = "messages_delete_texts_with_pin"
    complexity = 4
    optimal_steps = 13
    goal_template = ("I texted my alarm code {pin} to a few people. Delete every message that contains {pin}, in all "
                     "my conversations, but keep the conversations and every other message.")
    goal_phrasings = (("Remove each text with the code {pin} in it, whichever chat it's in; the chats themselves and "
                       "all other texts stay."),
                      ("Could you find all the messages that mention {pin} and delete just those messages? Don't "
                       "delete any conversation."),
                      "Wipe {pin} from Messages: delete the texts containing it, nothing else.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        digits = rng.sample("123456789", 4)
        pin = "".join(digits)
        near = "".join(digits[:2] + digits[2:][::-1])  # two digits swapped: a near miss that stays
        people = distinct_people(rng, 3)
        for p, h in zip(people, rng.sample(range(3, 120), 3)):
            p["hours"] = h
        return {"pin": pin, "near": near, "people": people, "reply_quotes": rng.random() < 0.5}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        set_up_people(phone, params["people"])
        pin, near = params["pin"], params["near"]
        a, b, c = params["people"]
        for p in params["people"]:
            add_sms(phone, p["number"], "Thanks again for watering the plants!",
                    when=phone.now - timedelta(hours=p["hours"] + 2))
        ta, tb = phone.now - timedelta(hours=a["hours"]), phone.now - timedelta(hours=b["hours"])
        add_sms(phone, a["number"], f"The alarm code is {pin}, the key is under the mat", kind=TYPE_SENT, when=ta)
        add_sms(phone, a["number"], f"Got it, {pin}" if params["reply_quotes"] else "Got it, thanks",
                when=ta + timedelta(minutes=6))
        add_sms(phone, b["number"], f"Alarm code: {pin}", kind=TYPE_SENT, when=tb)
        add_sms(phone, b["number"], "Perfect", when=tb + timedelta(minutes=3))
        tc = phone.now - timedelta(hours=c["hours"])
        add_sms(phone, c["number"], f"My gym locker is {near}, can you grab my bag?", kind=TYPE_SENT, when=tc)
        add_sms(phone, c["number"], "Sure thing", when=tc + timedelta(minutes=9))
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        before = baseline_rows(phone, self, params, f"SELECT {SMS_COLS} FROM sms ORDER BY _id")
        added, removed, changed = sms_diff(phone, self, params)
        want = {r[0] for r in before if params["pin"] in r[3]}
        return 1.0 if not added and not changed and {r[0] for r in removed} == want and want else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        rows = [m for m in phone.query("SELECT _id, address, body FROM sms ORDER BY date DESC, _id DESC")
                if params["pin"] in m["body"]]
        if not rows:
            raise TaskError("oracle: no message with the code left but the task is not done")
        here = [m for m in rows if on_thread(phone, m["address"])]
        m = here[0] if here else rows[0]
        if not here and (phone.dialog is not None or phone.menu_open):
            return BACK
        return delete_sms_row(phone, obs, m["address"], m["_id"], m["body"])


# (their question, my answer to it, a statement)
QUESTIONS_OPEN = ("Can you lend me your tent next weekend?", "Are you coming to Maya's party?",
                  "Did you book the table for Friday?", "Can I borrow your drill?", "What's your new address?",
                  "Are we still doing brunch on Sunday?")


@register_task
class MarkUnansweredQuestionsUnread(MessagesTemplate):
    name = "messages_mark_unanswered_questions_unread"
    complexity = 3
    optimal_steps = 8
    goal_template = ("Mark as unread every conversation where the other person's latest message is a question I "
                     "haven't answered yet (nothing from me after it). Leave all other conversations as they are; "
                     "there are {count} such chats.")
    goal_phrasings = (("Flag as unread each chat that ends with a question to me that I never answered; {count} "
                       "chats need it, the rest stay untouched."),
                      ("Could you set every conversation waiting on my answer to a question back to unread? There "
                       "are {count} of them."),
                      "Unanswered questions at the end of a chat -> mark that chat unread ({count} chats); nothing else.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        people = distinct_people(rng, 5)
        qs = rng.sample(QUESTIONS_OPEN, 5)
        n_open = rng.choice((2, 3))
        # open: the question is the last word; answered: I replied after it; moved on: they wrote again
        kinds = ["open"] * n_open + ["answered", "moved_on"][: 5 - n_open] + ["answered"] * (3 - n_open)
        rng.shuffle(kinds)
        for p, q, k, h in zip(people, qs, kinds, rng.sample(range(2, 200), 5)):
            p.update(question=q, kind=k, hours=h)
        return {"people": people, "count": n_open}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for t in phone.query("SELECT _id FROM threads"):  # only the planted chats end with an open question
            last = phone.query_one("SELECT body, type FROM sms WHERE thread_id=? ORDER BY date DESC, _id DESC",
                                   (t["_id"],))
            if last is not None and last["type"] == TYPE_INBOX and last["body"].rstrip().endswith("?"):
                delete_thread(phone, t["_id"])
        set_up_people(phone, params["people"])
        for p in params["people"]:
            when = phone.now - timedelta(hours=p["hours"])
            add_sms(phone, p["number"], "Hi! Long week, huh", kind=TYPE_SENT, when=when - timedelta(hours=3))
            add_sms(phone, p["number"], p["question"], when=when - timedelta(minutes=30))
            if p["kind"] == "answered":
                add_sms(phone, p["number"], "Yes, sure!", kind=TYPE_SENT, when=when)
            elif p["kind"] == "moved_on":
                add_sms(phone, p["number"], "Never mind, sorted it out 👍", when=when)
        mark_everything_read(phone)
        record_baseline(phone)

    def targets(self, phone: Phone, params: dict[str, Any]) -> set[int]:
        """Threads whose newest message (at set-up) is a received question."""
        rows = baseline_rows(phone, self, params, f"SELECT {SMS_COLS} FROM sms ORDER BY date, _id")
        last: dict[int, tuple] = {}
        for r in rows:
            last[r[1]] = r
        return {t for t, r in last.items() if r[5] == TYPE_INBOX and r[3].rstrip().endswith("?")}

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = sms_diff(phone, self, params, read=True)
        targets = self.targets(phone, params)
        if added or removed or len(targets) != params["count"]:
            return 0.0
        if not all(old[:6] == new[:6] and old[1] in targets for old, new in changed):
            return 0.0
        unread = {r[0] for r in phone.query("SELECT DISTINCT thread_id FROM sms WHERE read=0")}
        return 1.0 if unread == targets else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if phone.dialog is not None or phone.menu_open:
            return BACK
        unread = {r[0] for r in phone.query("SELECT DISTINCT thread_id FROM sms WHERE read=0")}
        left = [t for t in sorted(self.targets(phone, params)) if t not in unread]
        if not left:
            raise TaskError("oracle: every target chat is unread but the task is not done")
        row = phone.query_one("SELECT recipient_ids FROM threads WHERE _id=?", (left[0],))
        if row is None:
            raise TaskError("oracle: a chat to mark is gone")
        return select_row(phone, obs, row[0]) or click(obs, desc="Mark as unread") or BACK


# ---- round 4 queries -------------------------------------------------------------------------------
@register_task
class QueryReplyDelayMinutes(MessagesTemplate):
    name = "messages_query_reply_delay_minutes"
    kind = "query"
    complexity = 3
    optimal_steps = 4
    goal_template = ("{name} texted me \"{question}\" How many minutes did it take me to answer? Answer with the "
                     "number of minutes.")
    goal_phrasings = ("{name} asked me \"{question}\" How long did I take to reply, in minutes?",
                      "Could you work out how many minutes passed between {name}'s \"{question}\" and my reply?",
                      "Minutes between {name}'s \"{question}\" and my answer?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        delay, other = rng.sample(range(12, 58), 2)
        return dict(self.person_params(rng), question=rng.choice(QUESTIONS_OPEN), delay=delay, other=other,
                    days=rng.randint(1, 3), hour=rng.randint(10, 19), minute=rng.randint(20, 59))

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        n = params["number"]
        day = datetime.combine(phone.now.date() - timedelta(days=params["days"]), datetime.min.time())
        asked = day + timedelta(hours=params["hour"], minutes=params["minute"])
        early = asked - timedelta(hours=3)
        add_sms(phone, n, "Morning! Did you sleep ok?", when=early)
        add_sms(phone, n, "Barely, the neighbours again", kind=TYPE_SENT, when=early + timedelta(minutes=params["other"]))
        add_sms(phone, n, params["question"], when=asked)
        add_sms(phone, n, "Yes, of course!", kind=TYPE_SENT, when=asked + timedelta(minutes=params["delay"]))
        add_sms(phone, n, "Thank you!!", when=asked + timedelta(minutes=params["delay"] + 2))

    def delay(self, phone: Phone, params: dict[str, Any]) -> int | None:
        tid = thread_for(phone, params["number"])
        rows = phone.query("SELECT body, date, type FROM sms WHERE thread_id=? ORDER BY date, _id", (tid or -1,))
        asked = next((r["date"] for r in rows if r["type"] == TYPE_INBOX and r["body"] == params["question"]), None)
        reply = next((r["date"] for r in rows if asked is not None and r["type"] == TYPE_SENT and r["date"] > asked),
                     None)
        return None if reply is None else (reply - asked) // 60000

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        d = self.delay(phone, params)
        return 1.0 if d == params["delay"] and only_numbers(answer) == {str(d)} else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = open_chat(phone, obs, params["number"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        if bubble(obs, params["question"]) is None:
            return scroll_toward(phone, obs, text=params["question"], resource_id="message_content") or BACK
        return answer(str(self.delay(phone, params)))


# (what the goal calls it, their text with {n})
DUE_TEXTS = (("the rent deposit", "The landlord says the deposit is due {n} days from today"),
             ("the library books", "Heads up, the library books have to go back {n} days from today"),
             ("the permit renewal", "The parking permit renewal is due {n} days from today, don't forget"),
             ("the science project", "Ms. Park said the science project is due {n} days from today"))


@register_task
class QueryDateAfterText(MessagesTemplate):
    name = "messages_query_date_after_text"
    kind = "query"
    complexity = 3
    optimal_steps = 4
    goal_template = "{name} texted me when {thing} is due. On what date is it due? Answer with the month and day."
    goal_phrasings = ("What's the due date for {thing}, going by {name}'s text? Month and day.",
                      "Could you check {name}'s message about {thing} and tell me the exact date it's due?",
                      "Due date of {thing} per {name}'s message?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        thing, text = rng.choice(DUE_TEXTS)
        return dict(self.person_params(rng), thing=thing, text=text.format(n=rng.choice((5, 7, 10, 12, 14))),
                    days=rng.randint(3, 9), hour=rng.randint(9, 18))

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        n = params["number"]
        day = datetime.combine(phone.now.date() - timedelta(days=params["days"]), datetime.min.time())
        when = day + timedelta(hours=params["hour"], minutes=12)
        add_sms(phone, n, params["text"], when=when)
        add_sms(phone, n, "Thanks for the reminder!", kind=TYPE_SENT, when=when + timedelta(hours=1))
        add_sms(phone, n, "No problem 😊", when=phone.now - timedelta(hours=2))

    def due(self, phone: Phone, params: dict[str, Any]) -> date | None:
        tid = thread_for(phone, params["number"])
        row = phone.query_one("SELECT date FROM sms WHERE thread_id=? AND body=?", (tid or -1, params["text"]))
        n = int(next(t for t in params["text"].split() if t.isdigit()))
        return from_ms(row[0]).date() + timedelta(days=n) if row else None

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        day = self.due(phone, params)
        return 1.0 if day is not None and date_matches(answer, day) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = open_chat(phone, obs, params["number"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        if bubble(obs, params["text"]) is None:
            return scroll_toward(phone, obs, text=params["text"], resource_id="message_content") or BACK
        return answer(month_day(self.due(phone, params)))


@register_task
class QueryTextsSentToday(MessagesTemplate):
    name = "messages_query_texts_sent_today"
    kind = "query"
    complexity = 3
    optimal_steps = 9
    goal_template = ("How many texts have I sent today, in all my conversations together? Count only my own "
                     "messages from today, not the ones I received.")
    goal_phrasings = ("Across every chat, how many messages did I send today? Leave out received ones.",
                      ("Could you count all the texts I've sent since midnight, whoever they went to? Just my "
                       "messages, as a number."),
                      "Number of texts I sent today, all conversations, mine only?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        people = distinct_people(rng, 3)
        for p in people:  # (mine?, minutes ago) per line; a reply of mine from yesterday is the near miss
            p["lines"] = [[rng.random() < 0.5, rng.randint(10, 150)] for _ in range(rng.randint(2, 4))]
        people[0]["lines"].append([True, 24 * 60 + rng.randint(10, 300)])
        return {"people": people}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        set_up_people(phone, params["people"])
        for p in params["people"]:
            p_lines = sorted(p["lines"], key=lambda line: -line[1])
            if not any(mine and minutes < 24 * 60 for mine, minutes in p_lines):
                p_lines.append([True, 5])  # everyone got at least one text from me today
            for mine, minutes in p_lines:
                add_sms(phone, p["number"], rng_text(mine, minutes), kind=TYPE_SENT if mine else TYPE_INBOX,
                        when=phone.now - timedelta(minutes=minutes))
        record_baseline(phone)

    def sent_today(self, phone: Phone) -> int:
        start = to_ms(datetime.combine(phone.now.date(), datetime.min.time()))
        return int(phone.query_one("SELECT COUNT(*) FROM sms WHERE type=? AND date>=?", (TYPE_SENT, start))[0])

    def today_threads(self, phone: Phone) -> list[str]:
        start = to_ms(datetime.combine(phone.now.date(), datetime.min.time()))
        return [t["recipient_ids"] for t in
                phone.query("SELECT recipient_ids FROM threads WHERE date>=? ORDER BY date DESC, _id DESC", (start,))]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        n = self.sent_today(phone)
        added, removed, _changed = sms_diff(phone, self, params)
        return 1.0 if not added and not removed and only_numbers(answer) == {str(n)} else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        for i, address in enumerate(self.today_threads(phone)):
            step = look_first(phone, f"{self.name}:{address}",
                              lambda a=address: open_chat(phone, obs, a) or dismiss_popups(phone))
            if step is not None:
                return step
        return answer(str(self.sent_today(phone)))


def rng_text(mine: bool, minutes: int) -> str:
    """A plain line for a planted exchange (which one depends only on the line, not on a generator)."""
    pool = ("On my way", "Sounds good", "See you soon", "Thanks!", "Ok 👍", "Perfect") if mine else CHATTER
    return pool[minutes % len(pool)]


@register_task
class QueryBusiestOfThree(MessagesTemplate):
    name = "messages_query_busiest_of_three"
    kind = "query"
    complexity = 3
    optimal_steps = 10
    goal_template = ("Which of my chats with {name_1}, {name_2} and {name_3} has the most messages in it, theirs and "
                     "mine together? Answer with the person's name.")
    goal_phrasings = (("Between {name_1}, {name_2} and {name_3}, whose conversation with me is the longest (count "
                       "all messages)?"),
                      ("Could you count the messages in my chats with {name_1}, {name_2} and {name_3} and tell me "
                       "which chat has the most?"),
                      "Most messages overall: the chat with {name_1}, {name_2} or {name_3}?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        people = distinct_people(rng, 3)
        totals = rng.sample(range(4, 9), 3)
        top = totals.index(max(totals))
        for i, (p, n) in enumerate(zip(people, totals)):
            # the busiest chat is mostly mine; another one has the most texts from them
            theirs = 1 if i == top else n - 1
            ways = ["<"] * theirs + [">"] * (n - theirs)
            rng.shuffle(ways)
            p.update(lines=[[w, rng.choice(CHATTER)] for w in ways], days=rng.randint(1, 12))
        return {"people": people, "name_1": people[0]["name"], "name_2": people[1]["name"],
                "name_3": people[2]["name"]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        set_up_people(phone, params["people"])
        for p in params["people"]:
            start = phone.now - timedelta(days=p["days"], hours=2)
            for i, (way, text) in enumerate(p["lines"]):
                add_sms(phone, p["number"], text, kind=TYPE_INBOX if way == "<" else TYPE_SENT,
                        when=start + timedelta(minutes=6 * i))
        record_baseline(phone)

    def counts(self, phone: Phone, params: dict[str, Any]) -> list[int]:
        out = []
        for p in params["people"]:
            tid = thread_for(phone, p["number"])
            out.append(int(phone.query_one("SELECT COUNT(*) FROM sms WHERE thread_id=?", (tid or -1,))[0]))
        return out

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        counts = self.counts(phone, params)
        if counts != [len(p["lines"]) for p in params["people"]]:
            return 0.0
        names = [p["name"] for p in params["people"]]
        win = names[counts.index(max(counts))]
        ok = answer_matches(answer, win) and not any(answer_matches(answer, n) for n in names if n != win)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        for i, p in enumerate(params["people"]):
            step = look_first(phone, f"{self.name}:{i}",
                              lambda p=p: open_chat(phone, obs, p["number"]) or dismiss_popups(phone))
            if step is not None:
                return step
        counts = self.counts(phone, params)
        return answer(params["people"][counts.index(max(counts))]["name"])


@register_task
class QueryAllDeliveredToday(MessagesTemplate):
    name = "messages_query_all_delivered_today"
    kind = "query"
    complexity = 2
    optimal_steps = 4
    goal_template = "Did every text I sent {name} today go through? Answer yes or no."
    goal_phrasings = ("Were all of today's messages from me to {name} delivered? Yes or no.",
                      ("Could you check whether any of my texts to {name} today failed to send? Answer yes if "
                       "they all went through, no otherwise."),
                      "Yes or no: all my texts to {name} today were delivered?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return dict(self.person_params(rng), all_ok=rng.random() < 0.5, bodies=rng.sample(BODIES, 4),
                    fail_at=rng.randrange(2))

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        n, now = params["number"], phone.now
        b = params["bodies"]
        # an older failed text (yesterday) is the near miss when everything today went through
        add_sms(phone, n, b[3], kind=TYPE_FAILED if params["all_ok"] else TYPE_SENT,
                when=now - timedelta(days=1, hours=2))
        add_sms(phone, n, "Morning!", when=now - timedelta(hours=2, minutes=10))
        for i in range(3):
            failed = not params["all_ok"] and i == params["fail_at"]
            add_sms(phone, n, b[i], kind=TYPE_FAILED if failed else TYPE_SENT,
                    when=now - timedelta(hours=2) + timedelta(minutes=15 * i))
        add_sms(phone, n, "Ok, talk later", when=now - timedelta(minutes=40))

    def all_ok(self, phone: Phone, params: dict[str, Any]) -> bool:
        tid = thread_for(phone, params["number"])
        start = to_ms(datetime.combine(phone.now.date(), datetime.min.time()))
        return phone.query_one("SELECT COUNT(*) FROM sms WHERE thread_id=? AND type=? AND date>=?",
                               (tid or -1, TYPE_FAILED, start))[0] == 0

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        said = _yes_no(answer)
        return 1.0 if said is not None and said == self.all_ok(phone, params) == params["all_ok"] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = open_chat(phone, obs, params["number"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return answer("Yes" if self.all_ok(phone, params) else "No")


# ---- round 5: contacts found by a number's ending, the chat's number in Details, delete-or-reply from inside a
# chat, one copy each, a text moved to the right person, a leave time derived from another chat, retry-or-follow
# up, your own texts taken back; questions that order, add up, list every unread sender, find a failed text ------
def thread_rows(phone: Phone, address: str) -> list[Any]:
    tid = thread_for(phone, address)
    return phone.query("SELECT * FROM sms WHERE thread_id=? ORDER BY date, _id", (tid or -1,))


def names_in_order(answer_text: str | None, names: list[str]) -> bool:
    """Every name appears in the answer, each once, in this order."""
    tokens = normalize_answer(answer_text or "")
    where = []
    for name in names:
        want = normalize_answer(name)
        hits = [i for i in range(len(tokens) - len(want) + 1) if tokens[i:i + len(want)] == want]
        if len(hits) != 1:
            return False
        where.append(hits[0])
    return where == sorted(where)


TIME_RE = re.compile(r"\b(\d{1,2}):(\d{2})\s*([ap])?\.?\s*m?\b", re.IGNORECASE)


def times_in(text: str | None) -> set[tuple[int, int]]:
    """Clock times a text states, as (hour 0-23, minute): "5:40 PM" and "17:40" -> (17, 40)."""
    out = set()
    for h, m, half in TIME_RE.findall(text or ""):
        hour = int(h)
        if half:
            hour = hour % 12 + (12 if half.lower() == "p" else 0)
        out.add((hour, int(m)))
    return out


def say_clock(hour: int, minute: int) -> str:
    return f"{hour % 12 or 12}:{minute:02d} {'AM' if hour < 12 else 'PM'}"


def to_compose(phone: Phone, obs: Observation) -> Action | None:
    """Next action toward the New conversation screen (None once there, with no popup)."""
    scr = phone.screen
    if phone.foreground == APP and scr is not None and scr.name == "compose" and phone.dialog is None \
            and not phone.menu_open:
        return None
    return navigate(phone, obs, APP, [("main", {"desc": "Start chat"}), ("compose", None)])


@register_task
class TextContactByNumberEnding(MessagesTemplate):
    name = "messages_text_contact_by_number_ending"
    complexity = 2
    optimal_steps = 7
    goal_template = "Text \"{body}\" to the contact whose phone number ends in {ending}. I don't remember their name."
    goal_phrasings = ("I only remember that their number ends in {ending}: send that contact \"{body}\".",
                      ("Could you find the person in my contacts whose number ends with {ending} and text them "
                       "\"{body}\"?"),
                      "Contact with a number ending {ending} -> text \"{body}\".")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        a, b = distinct_people(rng, 2)
        ending = normalize_number(a["number"])[-4:]
        # a look-alike whose number has the same four digits in the middle, not at the end
        area = normalize_number(b["number"])[:3]
        tail = f"{ending[3]}{rng.randint(0, 999):03d}"
        while tail == ending:
            tail = f"{ending[3]}{rng.randint(0, 999):03d}"
        return {"first": a["first"], "last": a["last"], "name": a["name"], "number": a["number"],
                "ending": ending, "other_first": b["first"], "other_last": b["last"],
                "other_number": f"({area}) {ending[:3]}-{tail}", "body": rng.choice(BODIES)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for c in live_contacts(phone):  # nobody else's number shows up when the ending is typed
            for num, _t in contact_info(phone, c["_id"])["phones"]:
                if params["ending"] in normalize_number(num):
                    remove_contacts_with_number(phone, num)
        fresh_person(phone, params["first"], params["last"], params["number"])
        fresh_person(phone, params["other_first"], params["other_last"], params["other_number"])
        now = phone.now
        add_sms(phone, params["number"], "Nice to meet you at the conference!", when=now - timedelta(days=9))
        add_sms(phone, params["other_number"], "Thanks for the ride today", when=now - timedelta(days=4))
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if only_sent(sms_diff(phone, self, params), [(params["number"], params["body"])]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if on_thread(phone, params["number"]):
            return send_in_thread(phone, obs, params["body"])
        step = to_compose(phone, obs)
        if step is not None:
            return step
        scr = phone.screen
        assert scr is not None
        if scr.fields.get("to", "") != params["ending"]:
            return type_into(obs, params["ending"], resource_id="recipient_text_view") or BACK
        return click_or_scroll(phone, obs, text=params["number"], resource_id="contact_picker_row")


@register_task
class QueryChatNumberOfContact(MessagesTemplate):
    name = "messages_query_chat_number_of_contact"
    kind = "query"
    complexity = 2
    optimal_steps = 6
    goal_template = "{name} has two phone numbers saved. Which of them have we been texting on? Answer with that number."
    goal_phrasings = ("Which of {name}'s two numbers does my conversation with them in Messages use? Give the number.",
                      ("Could you check which number my chat with {name} goes to? They have two saved; answer "
                       "with the phone number."),
                      "{name}: two numbers saved, one chat. The chat's number?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return dict(self.person_params(rng), work=random_number(rng), chat_work=rng.random() < 0.5,
                    work_first=rng.random() < 0.5)

    def chat(self, params: dict[str, Any]) -> str:
        return params["work"] if params["chat_work"] else params["number"]

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        remove_contacts_with_number(phone, params["work"])
        tid = thread_for(phone, params["work"])
        if tid is not None:
            delete_thread(phone, tid)
        cid = fresh_person(phone, params["first"], params["last"], params["number"])
        rows = [(params["number"], PHONE_TYPES["Mobile"]), (params["work"], PHONE_TYPES["Work"])]
        phone.execute("DELETE FROM data WHERE raw_contact_id=? AND mimetype=?", (cid, MIME_PHONE))
        for num, ptype in rows[::-1] if params["work_first"] else rows:
            phone.execute("INSERT INTO data(raw_contact_id, mimetype, data1, data2) VALUES(?,?,?,?)",
                          (cid, MIME_PHONE, num, ptype))
        n, now = self.chat(params), phone.now
        add_sms(phone, n, "Can you send me the report when it's ready?", when=now - timedelta(days=2, hours=3))
        add_sms(phone, n, "Sure, by Friday", kind=TYPE_SENT, when=now - timedelta(days=2, hours=2))
        add_sms(phone, n, "Perfect, thanks", when=now - timedelta(days=2, hours=1))
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        other = params["number"] if params["chat_work"] else params["work"]
        ok = number_answer_matches(answer, self.chat(params)) and not number_answer_matches(answer, other)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        n = self.chat(params)
        step = open_chat(phone, obs, n)
        if step is not None:
            return step
        if phone.toast and normalize_number(n) in normalize_number(phone.toast):
            return answer(n)
        if phone.dialog is not None:
            return BACK
        if phone.menu_open:
            return click(obs, text="Details") or BACK
        return click(obs, desc="More options") or BACK


EVENTS_RSVP = ("the housewarming", "the pub quiz", "Sam's farewell drinks", "the charity run", "the picnic")


@register_task
class DeleteChatIfConfirmed(MessagesTemplate):
    name = "messages_delete_chat_if_confirmed"
    complexity = 3
    optimal_steps = 6
    goal_template = ("I asked {name} whether they're coming to {event}. If they've said yes in our chat, I don't need "
                     "that conversation any more: delete it. If they haven't confirmed, text them \"{body}\".")
    goal_phrasings = (("Check {name}'s answer about {event}: a yes means delete our whole conversation; no clear yes "
                       "means send them \"{body}\"."),
                      ("Could you look at my chat with {name}? If they confirmed {event}, delete the conversation; "
                       "otherwise text \"{body}\"."),
                      "{name} and {event}: confirmed -> delete our chat; not confirmed -> text \"{body}\".")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        a, b = distinct_people(rng, 2)
        event = rng.choice(EVENTS_RSVP)
        return {"first": a["first"], "last": a["last"], "name": a["name"], "number": a["number"],
                "people_b": b, "event": event, "confirmed": rng.random() < 0.5,
                "body": f"Just checking: are you coming to {event}? Let me know today!"}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        b = params["people_b"]
        set_up_people(phone, [params, b])
        ev, now = params["event"], phone.now
        yes, maybe = f"Yes! Count me in for {ev} 🙌", f"Not sure yet, I'll let you know about {ev}"
        for who, said, hours in ((params, yes if params["confirmed"] else maybe, 5),
                                 (b, maybe if params["confirmed"] else yes, 7)):  # the other chat says the opposite
            when = now - timedelta(hours=hours)
            add_sms(phone, who["number"], f"Are you coming to {ev} on Saturday?", kind=TYPE_SENT,
                    when=when - timedelta(minutes=40))
            add_sms(phone, who["number"], said, when=when)
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        diff = sms_diff(phone, self, params)
        if not params["confirmed"]:
            return 1.0 if only_sent(diff, [(params["number"], params["body"])]) else 0.0
        added, removed, changed = diff
        before = baseline_rows(phone, self, params, f"SELECT {SMS_COLS} FROM sms ORDER BY _id")
        tids = {r[1] for r in before if normalize_number(r[2]) == normalize_number(params["number"])}
        want = {r[0] for r in before if r[1] in tids}
        gone = thread_for(phone, params["number"]) is None
        return 1.0 if gone and not added and not changed and {r[0] for r in removed} == want else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        n = params["number"]
        step = look_first(phone, f"{self.name}:read", lambda: open_chat(phone, obs, n) or dismiss_popups(phone))
        if step is not None:
            return step
        dlg = phone.dialog
        if dlg is not None and dlg.data.get("args", {}).get("thread_id") == thread_for(phone, n):
            step = confirm_delete(phone, obs, "delete_conversation")
            if step is not None:
                return step
        step = open_chat(phone, obs, n)
        if step is not None:
            return step
        if not params["confirmed"]:
            return send_in_thread(phone, obs, params["body"])
        if phone.dialog is not None:
            return BACK
        if phone.menu_open:
            return click(obs, text="Delete") or BACK
        return click(obs, desc="More options") or BACK


@register_task
class OneCopyEach(MessagesTemplate):
    name = "messages_make_sure_each_got_one_copy"
    complexity = 4
    optimal_steps = 13
    goal_template = ("I meant to send \"{body}\" once each to {name_1}, {name_2} and {name_3}, but my phone acted up. "
                     "Make sure each of them has it exactly once: remove any extra copy and send it to whoever is "
                     "missing it.")
    goal_phrasings = (("My phone glitched while texting \"{body}\" to {name_1}, {name_2} and {name_3}. Fix it so "
                       "every one of them got it exactly one time."),
                      ("Could you check my chats with {name_1}, {name_2} and {name_3}? Each should have my text "
                       "\"{body}\" once: delete doubles, send it where it's missing."),
                      "\"{body}\": exactly one copy each for {name_1}, {name_2} and {name_3}. Fix what's off.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        people = distinct_people(rng, 3)
        kinds = ["ok", "twice", "none"]
        rng.shuffle(kinds)
        for p, k, h in zip(people, kinds, rng.sample(range(2, 30), 3)):
            p.update(kind=k, hours=h)
        return {"people": people, "body": rng.choice(BODIES), "name_1": people[0]["name"],
                "name_2": people[1]["name"], "name_3": people[2]["name"]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        set_up_people(phone, params["people"])
        for p in params["people"]:
            when = phone.now - timedelta(hours=p["hours"])
            add_sms(phone, p["number"], "Hey, any news?", when=when)
            for k in range({"ok": 1, "twice": 2, "none": 0}[p["kind"]]):
                add_sms(phone, p["number"], params["body"], kind=TYPE_SENT, when=when + timedelta(minutes=10 + k))
            if p["kind"] != "none":
                add_sms(phone, p["number"], "👍", when=when + timedelta(minutes=20))
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = sms_diff(phone, self, params)
        (none,) = [p for p in params["people"] if p["kind"] == "none"]
        (twice,) = [p for p in params["people"] if p["kind"] == "twice"]
        ok_added = len(added) == 1 and added[0][5] == TYPE_SENT and \
            _key(added[0][2], added[0][3]) == _key(none["number"], params["body"])
        ok_removed = len(removed) == 1 and removed[0][5] == TYPE_SENT and \
            _key(removed[0][2], removed[0][3]) == _key(twice["number"], params["body"])
        return 1.0 if ok_added and ok_removed and not changed else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        body = params["body"]
        for i, p in enumerate(params["people"]):
            n = delivered_count(phone, p["number"], body)
            if p["kind"] == "none" and n == 0:
                return open_chat(phone, obs, p["number"]) or send_in_thread(phone, obs, body)
            if p["kind"] == "twice" and n > 1:
                rows = [m for m in thread_rows(phone, p["number"]) if m["type"] == TYPE_SENT and m["body"] == body]
                if not (on_thread(phone, p["number"]) and phone.dialog is not None) and \
                        (phone.dialog is not None or phone.menu_open):
                    return BACK
                return delete_sms_row(phone, obs, p["number"], rows[-1]["_id"], body)
            if p["kind"] == "ok":
                step = look_first(phone, f"{self.name}:{i}",
                                  lambda p=p: open_chat(phone, obs, p["number"]) or dismiss_popups(phone))
                if step is not None:
                    return step
        raise TaskError("oracle: every chat has one copy but the task is not done")


@register_task
class QueryOrderOfLastTexts(MessagesTemplate):
    name = "messages_query_order_of_last_texts"
    kind = "query"
    complexity = 3
    optimal_steps = 8
    goal_template = ("Put {name_1}, {name_2} and {name_3} in order of when each of them last texted me, most recent "
                     "first. Answer with the three names in that order.")
    goal_phrasings = (("Who of {name_1}, {name_2} and {name_3} sent me a text most recently, who next, and who "
                       "longest ago? List the three names in that order."),
                      ("Could you rank {name_1}, {name_2} and {name_3} by their latest message to me, newest "
                       "first?"),
                      "Newest to oldest, by their last text to me: {name_1}, {name_2}, {name_3}?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        people = distinct_people(rng, 3)
        for p, h in zip(people, rng.sample(range(3, 80), 3)):
            p["hours"] = h
        # someone who did not text me last gets my reply after everyone's texts: their chat tops the list
        late = rng.choice(sorted(people, key=lambda p: p["hours"])[1:])
        late["my_reply"] = True
        return {"people": people, "name_1": people[0]["name"], "name_2": people[1]["name"],
                "name_3": people[2]["name"]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        set_up_people(phone, params["people"])
        first = min(p["hours"] for p in params["people"])
        for p in params["people"]:
            when = phone.now - timedelta(hours=p["hours"])
            add_sms(phone, p["number"], "How's your week going?", kind=TYPE_SENT, when=when - timedelta(hours=2))
            add_sms(phone, p["number"], rng_text(False, p["hours"]), when=when)
            if p.get("my_reply"):
                add_sms(phone, p["number"], "Sorry, only seeing this now!", kind=TYPE_SENT,
                        when=phone.now - timedelta(hours=first - 1))
        record_baseline(phone)

    def order(self, phone: Phone, params: dict[str, Any]) -> list[str]:
        last = {}
        for p in params["people"]:
            got = [m["date"] for m in thread_rows(phone, p["number"]) if m["type"] == TYPE_INBOX]
            last[p["name"]] = max(got) if got else 0
        return sorted(last, key=lambda name: -last[name])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = [p["name"] for p in sorted(params["people"], key=lambda p: p["hours"])]
        return 1.0 if self.order(phone, params) == want and names_in_order(answer, want) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        for i, p in enumerate(params["people"]):
            step = look_first(phone, f"{self.name}:{i}",
                              lambda p=p: open_chat(phone, obs, p["number"]) or dismiss_popups(phone))
            if step is not None:
                return step
        return answer(", ".join(self.order(phone, params)))


OWED_FOR = ("the concert tickets", "the groceries", "the taxi", "the birthday gift", "the dinner", "the gas")


@register_task
class QueryTotalOwed(MessagesTemplate):
    name = "messages_query_total_owed"
    kind = "query"
    complexity = 3
    optimal_steps = 6
    goal_template = ("{name_1} and {name_2} each texted me how much I owe them. How much do I owe the two of them "
                     "altogether? Answer in dollars.")
    goal_phrasings = ("Add up what I still owe {name_1} and {name_2}, going by their texts. The total in dollars?",
                      "Could you check my chats with {name_1} and {name_2} and tell me the total I owe them?",
                      "Total I owe {name_1} + {name_2} (from their messages), in dollars?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        people = distinct_people(rng, 2)
        things = rng.sample(OWED_FOR, 3)
        for p, thing in zip(people, things):
            p.update(thing=thing, cents=rng.randint(8, 95) * 100 + rng.choice((0, 25, 50, 75, 40)),
                     hours=rng.randint(3, 60))
        people[rng.randrange(2)]["settled"] = {"thing": things[2], "cents": rng.randint(10, 60) * 100 + 50}
        return {"people": people, "name_1": people[0]["name"], "name_2": people[1]["name"]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        set_up_people(phone, params["people"])
        for p in params["people"]:
            when = phone.now - timedelta(hours=p["hours"])
            if "settled" in p:  # an older amount that is paid already: a near miss
                s = p["settled"]
                add_sms(phone, p["number"], f"You owe me ${dollars(s['cents'])} for {s['thing']}",
                        when=when - timedelta(days=6))
                add_sms(phone, p["number"], "Sent it just now!", kind=TYPE_SENT, when=when - timedelta(days=6, hours=-1))
                add_sms(phone, p["number"], f"Got the ${dollars(s['cents'])}, thanks, we're square",
                        when=when - timedelta(days=6, hours=-2))
            add_sms(phone, p["number"], f"You owe me ${dollars(p['cents'])} for {p['thing']}, no rush", when=when)
            add_sms(phone, p["number"], "Will pay you back this week", kind=TYPE_SENT, when=when + timedelta(minutes=8))
        record_baseline(phone)

    def total(self, params: dict[str, Any]) -> int:
        return sum(p["cents"] for p in params["people"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        settled = sum(p["settled"]["cents"] for p in params["people"] if "settled" in p)
        ok = money_matches(answer, self.total(params)) and not money_matches(answer, self.total(params) + settled)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        for i, p in enumerate(params["people"]):
            step = look_first(phone, f"{self.name}:{i}",
                              lambda p=p: open_chat(phone, obs, p["number"]) or dismiss_popups(phone))
            if step is not None:
                return step
        return answer(f"${dollars(self.total(params))}")


MISSENT = ("The spare key is in the blue flowerpot", "Dinner is booked for 7:30 at Bombay Kitchen",
           "The wifi password is on the fridge", "I'll pick you up at the station at 6",
           "Don't forget to bring the tent poles")


@register_task
class MoveTextToRightPerson(MessagesTemplate):
    name = "messages_move_text_to_right_person"
    complexity = 3
    optimal_steps = 12
    goal_template = ("I sent \"{body}\" to {name} by mistake; it was meant for {name_b}. Get it to {name_b} and delete "
                     "it from my chat with {name}.")
    goal_phrasings = (("Wrong person: my text \"{body}\" went to {name} instead of {name_b}. Pass it on to {name_b} "
                       "and remove it from {name}'s chat."),
                      ("Could you move my message \"{body}\" from my conversation with {name} to {name_b}? Send it "
                       "to {name_b}, then delete it where it is."),
                      "\"{body}\": meant for {name_b}, sent to {name}. Fix that (send to {name_b}, delete at {name}).")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        a, b = distinct_people(rng, 2)
        return {"first": a["first"], "last": a["last"], "name": a["name"], "number": a["number"],
                "people_b": b, "name_b": b["name"], "body": rng.choice(MISSENT), "hours": rng.randint(1, 20)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        b = params["people_b"]
        set_up_people(phone, [params, b])
        when = phone.now - timedelta(hours=params["hours"])
        add_sms(phone, params["number"], "Did you watch the game last night?", when=when - timedelta(hours=3))
        add_sms(phone, params["number"], "Only the second half!", kind=TYPE_SENT, when=when - timedelta(hours=2))
        add_sms(phone, params["number"], params["body"], kind=TYPE_SENT, when=when)
        add_sms(phone, b["number"], "Are we still on for this weekend?", when=when - timedelta(hours=5))
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = sms_diff(phone, self, params)
        ok_removed = len(removed) == 1 and removed[0][5] == TYPE_SENT and \
            _key(removed[0][2], removed[0][3]) == _key(params["number"], params["body"])
        return 1.0 if ok_removed and only_sent((added, [], changed),
                                                [(params["people_b"]["number"], params["body"])]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        b, body, n = params["people_b"], params["body"], params["number"]
        scr = phone.screen
        here = phone.foreground == APP and scr is not None
        if delivered_count(phone, b["number"], body) == 0:
            if on_thread(phone, b["number"]) or (here and scr.name == "compose" and phone.dialog is None):
                return to_thread(phone, obs, b["number"], via_name=b["name"]) or send_in_thread(phone, obs, body)
            step = open_chat(phone, obs, n)
            if step is not None:
                return step
            sid = sms_with(phone, n, body)
            if sid is None:
                raise TaskError("oracle: the mistaken text is gone before it was passed on")
            return pick_message(phone, obs, sid, body) or click(obs, desc="Forward") or BACK
        sid = sms_with(phone, n, body)
        if sid is None:
            raise TaskError("oracle: the mistaken text is gone but the task is not done")
        if not on_thread(phone, n) and (phone.dialog is not None or phone.menu_open):
            return BACK
        return delete_sms_row(phone, obs, n, sid, body)


@register_task
class TextLeaveTimeFromOtherChat(MessagesTemplate):
    name = "messages_text_leave_time_from_other_chat"
    complexity = 3
    optimal_steps = 7
    goal_template = ("{name}'s flight lands today and {name_b} is driving me to pick them up; the drive to the airport "
                     "takes {drive} minutes. Text {name_b} the time we have to leave to get there right when it lands "
                     "(just the time, e.g. 5:40 PM).")
    goal_phrasings = (("{name_b} is driving me to the airport for {name}'s flight today ({drive} minutes away). "
                       "Work out from {name}'s texts when we must leave and text {name_b} that time."),
                      ("Could you text {name_b} our leaving time? We need to be at the airport when {name} lands "
                       "today, and it's a {drive}-minute drive."),
                      "Leave time = {name}'s landing time minus {drive} minutes. Text it to {name_b}.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        a, b = distinct_people(rng, 2)
        planned = rng.randint(13 * 12, 19 * 12) * 5
        lands = planned + rng.choice((35, 50, 65, 80, 95))
        return {"first": a["first"], "last": a["last"], "name": a["name"], "number": a["number"],
                "people_b": b, "name_b": b["name"], "drive": rng.choice((25, 35, 40, 45, 55, 70)),
                "planned": planned, "lands": lands}

    def leave(self, params: dict[str, Any]) -> tuple[int, int]:
        m = params["lands"] - params["drive"]
        return m // 60, m % 60

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        b = params["people_b"]
        set_up_people(phone, [params, b])
        n, now = params["number"], phone.now
        p, ln = params["planned"], params["lands"]
        add_sms(phone, n, f"My flight lands at {say_clock(p // 60, p % 60)} today, see you at arrivals!",
                when=now - timedelta(days=1, hours=3))
        add_sms(phone, n, "Can't wait!", kind=TYPE_SENT, when=now - timedelta(days=1, hours=2))
        add_sms(phone, n, f"Ugh, delayed. New landing time is {say_clock(ln // 60, ln % 60)}",
                when=now - timedelta(minutes=50))
        add_sms(phone, b["number"], "Happy to drive you to the airport today, just tell me when to leave",
                when=now - timedelta(hours=16))
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = sms_diff(phone, self, params)
        if removed or changed or len(added) != 1 or added[0][5] != TYPE_SENT or \
                normalize_number(added[0][2]) != normalize_number(params["people_b"]["number"]):
            return 0.0
        return 1.0 if times_in(added[0][3]) == {self.leave(params)} else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = look_first(phone, f"{self.name}:lands",
                          lambda: open_chat(phone, obs, params["number"]) or dismiss_popups(phone))
        if step is not None:
            return step
        h, m = self.leave(params)
        return open_chat(phone, obs, params["people_b"]["number"]) or \
            send_in_thread(phone, obs, f"We need to leave at {say_clock(h, m)}")


@register_task
class RetryOrFollowUp(MessagesTemplate):
    name = "messages_retry_or_follow_up"
    complexity = 3
    optimal_steps = 5
    goal_template = ("My last text to {name} was \"{body}\". If it didn't go through, resend it; if it was delivered, "
                     "follow up with \"{followup}\".")
    goal_phrasings = (("Did \"{body}\" reach {name}? Not sent -> send it again; delivered -> text them "
                       "\"{followup}\"."),
                      ("Could you check my latest message to {name} (\"{body}\")? Resend it if it failed, otherwise "
                       "send \"{followup}\"."),
                      "\"{body}\" to {name}: failed means resend, delivered means follow up with \"{followup}\".")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        body, old = rng.sample(BODIES, 2)
        return dict(self.person_params(rng), body=body, old=old, failed=rng.random() < 0.5,
                    followup="Did you see my last message?")

    def extra_setup(self, phone: Phone, params: dict[str, Any]) -> None:
        n, now = params["number"], phone.now
        add_sms(phone, n, params["old"], kind=TYPE_FAILED, when=now - timedelta(days=3))  # an old failure stays
        add_sms(phone, n, "Hi! Long time no see", when=now - timedelta(days=1, hours=4))
        add_sms(phone, n, params["body"], kind=TYPE_FAILED if params["failed"] else TYPE_SENT,
                when=now - timedelta(hours=2))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        diff = sms_diff(phone, self, params)
        if not params["failed"]:
            return 1.0 if only_sent(diff, [(params["number"], params["followup"])]) else 0.0
        want = _key(params["number"], params["body"])
        added, removed, changed = diff
        others = [r for r in added + removed if _key(r[2], r[3]) != want] + \
            [new for old, new in changed if _key(old[2], old[3]) != want or _key(new[2], new[3]) != want]
        final = [m["type"] for m in phone.query("SELECT address, body, type FROM sms")
                 if _key(m["address"], m["body"]) == want]
        return 1.0 if not others and final == [TYPE_SENT] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = open_chat(phone, obs, params["number"])
        if step is not None:
            return step
        if not params["failed"]:
            return send_in_thread(phone, obs, params["followup"])
        if phone.dialog is not None or phone.menu_open:
            return BACK
        scr = phone.screen
        assert scr is not None
        if scr.state.get("selected_msg") is not None:
            return click(obs, desc="Cancel selection") or BACK
        i = bubble(obs, params["body"])
        if i is None:
            return scroll_toward(phone, obs, text=params["body"], resource_id="message_content") or BACK
        return Action(action_type="click", index=i)


@register_task
class QueryUnreadSenders(MessagesTemplate):
    name = "messages_query_unread_senders"
    kind = "query"
    complexity = 3
    optimal_steps = 5
    goal_template = ("Who has texted me that I haven't read yet? Look through my conversation list and name everyone "
                     "whose conversation is unread (there are {count}).")
    goal_phrasings = ("Name all {count} people whose chats in Messages are still unread.",
                      "Could you tell me which conversations I haven't read yet? There are {count}; give the names.",
                      "Unread conversations ({count}): whose are they?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        people = distinct_people(rng, 6)
        count = rng.choice((2, 3))
        # spread over the list: some unread chats are far down it, below the seeded ones
        hours = rng.sample(range(1, 40), 3) + rng.sample(range(300, 500), 3)
        rng.shuffle(hours)
        for i, (p, h) in enumerate(zip(people, hours)):
            p.update(hours=h, unread=i < count)
        rng.shuffle(people)
        return {"people": people, "count": count}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        set_up_people(phone, params["people"])
        mark_everything_read(phone)
        for p in params["people"]:
            when = phone.now - timedelta(hours=p["hours"])
            add_sms(phone, p["number"], "Hey, got a minute?", kind=TYPE_SENT, when=when - timedelta(hours=1))
            add_sms(phone, p["number"], rng_text(False, p["hours"]), when=when, read=not p["unread"])
        record_baseline(phone)

    def unread(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        return sorted((p for p in params["people"] if p["unread"]), key=lambda p: p["hours"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        rows = baseline_rows(phone, self, params, "SELECT recipient_ids, read FROM threads ORDER BY _id")
        unread = {display_name(phone, a) for a, r in rows if not r}
        if unread != {p["name"] for p in params["people"] if p["unread"]}:
            return 0.0
        read = {display_name(phone, a) for a, r in rows if r}
        ok = all(answer_matches(answer, n) for n in unread) and not any(answer_matches(answer, n) for n in read)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        for p in self.unread(params):
            def see(p: dict[str, Any] = p) -> Action | None:
                step = dismiss_popups(phone) or to_list(phone, obs)
                if step is not None:
                    return step
                return None if row_index(phone, obs, p["number"]) is not None else row_scroll(phone, obs, p["number"])
            step = look_first(phone, f"{self.name}:{p['name']}", see)
            if step is not None:
                return step
        return answer(", ".join(p["name"] for p in self.unread(params)))


@register_task
class QueryChatWithUnsentText(MessagesTemplate):
    name = "messages_query_chat_with_unsent_text"
    kind = "query"
    complexity = 3
    optimal_steps = 6
    goal_template = ("One of my chats with {name_1}, {name_2} and {name_3} has a text of mine that never went through. "
                     "Whose chat is it? Answer with the name.")
    goal_phrasings = ("Which of {name_1}, {name_2} or {name_3} has a message from me marked Not sent in our chat?",
                      ("Could you find out which conversation, with {name_1}, {name_2} or {name_3}, has one of my "
                       "texts that failed to send?"),
                      "Failed text somewhere in my chats with {name_1}, {name_2}, {name_3}: whose chat?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        people = distinct_people(rng, 3)
        bad = rng.randrange(3)
        for i, (p, h) in enumerate(zip(people, rng.sample(range(2, 60), 3))):
            p.update(failed=i == bad, hours=h, texts=rng.sample(BODIES, 2))
        return {"people": people, "name_1": people[0]["name"], "name_2": people[1]["name"],
                "name_3": people[2]["name"]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        set_up_people(phone, params["people"])
        for p in params["people"]:
            when = phone.now - timedelta(hours=p["hours"])
            a, b = p["texts"]
            # the failed text is not the newest one, so the list's "Not sent" snippet does not give it away
            add_sms(phone, p["number"], a, kind=TYPE_FAILED if p["failed"] else TYPE_SENT,
                    when=when - timedelta(minutes=30))
            add_sms(phone, p["number"], "Hello? Are you there?" if p["failed"] else "Sounds good!",
                    when=when - timedelta(minutes=10))
            add_sms(phone, p["number"], b, kind=TYPE_SENT, when=when)
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        (bad,) = [p for p in params["people"] if p["failed"]]
        before = baseline_rows(phone, self, params, f"SELECT {SMS_COLS} FROM sms ORDER BY _id")
        failed = {normalize_number(r[2]) for r in before if r[5] == TYPE_FAILED}
        if [p["name"] for p in params["people"] if normalize_number(p["number"]) in failed] != [bad["name"]]:
            return 0.0
        ok = answer_matches(answer, bad["name"]) and \
            not any(answer_matches(answer, p["name"]) for p in params["people"] if p is not bad)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        for i, p in enumerate(params["people"]):  # read the chats in turn until a failed text shows up
            step = look_first(phone, f"{self.name}:{i}",
                              lambda p=p: open_chat(phone, obs, p["number"]) or dismiss_popups(phone))
            if step is not None:
                return step
            if p["failed"]:
                return answer(p["name"])
        raise TaskError("oracle: no chat has a failed text")


@register_task
class DeleteMyTextsInChat(MessagesTemplate):
    name = "messages_delete_my_texts_in_chat"
    complexity = 3
    optimal_steps = 8
    goal_template = ("I regret what I wrote to {name}. Delete every message I sent in our chat, but keep all of "
                     "{name}'s messages and the conversation itself.")
    goal_phrasings = (("Take back everything I texted {name}: remove my messages from our conversation and leave "
                       "theirs."),
                      "Could you delete all of my own texts in my chat with {name}? Their messages stay.",
                      "Chat with {name}: my messages go, theirs stay.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        a, b = distinct_people(rng, 2)
        ways = [">", ">", "<", "<", "<"] + ([">"] if rng.random() < 0.5 else [])
        rng.shuffle(ways)
        ways[-1] = "<"  # they have the last word
        return {"first": a["first"], "last": a["last"], "name": a["name"], "number": a["number"],
                "people_b": b, "lines": [[w, rng.choice(CHATTER) if w == "<" else rng_text(True, k)]
                                         for k, w in enumerate(ways)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        b = params["people_b"]
        set_up_people(phone, [params, b])
        start = phone.now - timedelta(hours=6)
        for k, (way, text) in enumerate(params["lines"]):
            add_sms(phone, params["number"], text, kind=TYPE_SENT if way == ">" else TYPE_INBOX,
                    when=start + timedelta(minutes=11 * k))
        # my texts in another chat stay
        add_sms(phone, b["number"], "Sounds good", kind=TYPE_SENT, when=start - timedelta(hours=2))
        add_sms(phone, b["number"], "Great, see you", when=start - timedelta(hours=1))
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        before = baseline_rows(phone, self, params, f"SELECT {SMS_COLS} FROM sms ORDER BY _id")
        added, removed, changed = sms_diff(phone, self, params)
        want = {r[0] for r in before if r[5] == TYPE_SENT and
                normalize_number(r[2]) == normalize_number(params["number"])}
        return 1.0 if want and not added and not changed and {r[0] for r in removed} == want else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        mine = [m for m in thread_rows(phone, params["number"]) if m["type"] == TYPE_SENT]
        if not mine:
            raise TaskError("oracle: none of my texts left but the task is not done")
        if not on_thread(phone, params["number"]) and (phone.dialog is not None or phone.menu_open):
            return BACK
        m = mine[-1]
        return delete_sms_row(phone, obs, params["number"], m["_id"], m["body"])
