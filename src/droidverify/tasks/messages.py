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
    TYPE_FAILED,
    TYPE_INBOX,
    TYPE_SENT,
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
    baseline_rows,
    click,
    click_or_scroll,
    find,
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


def pick_message(phone: Phone, obs: Observation, sms_id: int, body: str) -> Action | None:
    """On a conversation: long-press message ``sms_id`` (None once it is the selected one)."""
    scr = phone.screen
    assert scr is not None
    if scr.state.get("selected_msg") == sms_id:
        return None
    i = bubble(obs, body)
    if i is None:
        return scroll_toward(phone, obs, text=body, resource_id="message_text") or BACK
    return Action(action_type="long_press", index=i)


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
