"""Tasks spanning Contacts and Messages (and Settings / Clock): information read in one app is
used in another. Checkers read every app's tables; oracles switch apps with ``open_app``.
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim.apps.contacts import (
    PHONE_TYPES,
    find_contacts,
    normalize_number,
    random_number,
    remove_contacts_named,
)
from droidverify.env.sim.apps.messages import add_sms, delete_thread, sent_messages, thread_for
from droidverify.env.sim.phone import Phone
from droidverify.tasks.base import TaskTemplate
from droidverify.tasks.contacts import (
    create_contact,
    edit_contact,
    only,
    person,
    read_detail,
    same_number,
    two_people,
)
from droidverify.tasks.helpers import (
    BACK,
    COMPLETE,
    answer_matches,
    click_or_scroll,
    dismiss_popups,
    navigate,
)
from droidverify.tasks.messages import (
    BODIES,
    baseline,
    fresh_person,
    new_sent,
    open_existing,
    record_baseline,
    send_in_thread,
    sent_exactly,
    to_thread,
)
from droidverify.tasks.registry import register_task

TOPICS = (("the leaking kitchen sink", ("Hi, this is the plumber. I can come fix the leaking kitchen sink "
                                       "tomorrow at 10.")),
          ("the dog walking schedule", ("Hello! I'm the dog walker from the flyer. Happy to discuss "
                                        "the dog walking schedule.")),
          ("the piano lessons", "Hi, this is about the piano lessons for your daughter. Tuesdays work for me."),
          ("the apartment viewing", "Hi, I'm the landlord. The apartment viewing is confirmed for Saturday."),
          ("the bike you are selling", "Hey, is the bike you are selling still available?"))
NEW_NAMES = ("Plumber Joe", "Dog Walker Kim", "Piano Teacher", "Landlord Dave", "Bike Buyer", "Handyman Ray")


def left_on_detail(phone: Phone, name: str) -> bool:
    """Whether Contacts was left showing ``name``'s page (the oracle reads it before switching apps)."""
    stack = phone.stacks.get("contacts") or []
    return bool(stack) and stack[-1].name == "detail" and stack[-1].args.get("contact_id") in find_contacts(phone, name)


@register_task
class ShareNumberBySms(TaskTemplate):
    name = "multi_send_contact_number_by_sms"
    apps = ("Contacts", "Messages")
    complexity = 2
    optimal_steps = 7
    goal_template = "Text {name_b} the phone number of my contact {name_a}."
    goal_phrasings = (
        "Could you send {name_a}'s phone number to {name_b} by SMS?",
        "{name_b} needs {name_a}'s number. Look it up in Contacts and text it to them.",
        "Share the contact number of {name_a} with {name_b} in a text message.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (a1, a2), (b1, b2) = two_people(rng)
        return {"first_a": a1, "last_a": a2, "name_a": f"{a1} {a2}", "num_a": random_number(rng),
                "first_b": b1, "last_b": b2, "name_b": f"{b1} {b2}", "num_b": random_number(rng)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        fresh_person(phone, params["first_a"], params["last_a"], params["num_a"])
        fresh_person(phone, params["first_b"], params["last_b"], params["num_b"])
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        sent = sent_messages(phone, after_id=baseline(phone, "sms_id"))
        if len(sent) != 1 or not same_number(sent[0]["address"], params["num_b"]):
            return 0.0
        return 1.0 if normalize_number(params["num_a"]) in normalize_number(sent[0]["body"]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if not left_on_detail(phone, params["name_a"]):  # look the number up in Contacts first
            step = read_detail(phone, obs, params["name_a"])
            if step is not None:
                return step
        return to_thread(phone, obs, params["num_b"], via_name=params["name_b"]) or \
            send_in_thread(phone, obs, params["num_a"])


@register_task
class AddSenderAsContact(TaskTemplate):
    name = "multi_add_message_sender_as_contact"
    apps = ("Messages", "Contacts")
    complexity = 2
    optimal_steps = 9
    goal_template = "Someone texted me about {topic}. Save their number as a new contact named {new_name}."
    goal_phrasings = (
        "Could you add the person who messaged me about {topic} to my contacts as {new_name}?",
        "New contact {new_name}: the number that texted me about {topic}.",
        "I got a text about {topic} from an unknown number. Save that number in Contacts under the name {new_name}.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        topic, text = rng.choice(TOPICS)
        return {"topic": topic, "text": text, "number": random_number(rng), "new_name": rng.choice(NEW_NAMES)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        remove_contacts_named(phone, params["new_name"])
        tid = thread_for(phone, params["number"])
        if tid is not None:
            delete_thread(phone, tid)
        add_sms(phone, params["number"], params["text"], when=phone.now - timedelta(hours=3), read=False)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        c = only(phone, params["new_name"])
        ok = c is not None and len(c["phones"]) == 1 and same_number(c["phones"][0][0], params["number"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        first, _, last = params["new_name"].partition(" ")
        if phone.foreground != "contacts" and not (phone.screen and phone.screen.name == "thread"):
            # read the message first (it is the only place the number appears)
            step = open_existing(phone, obs, params["number"])
            if step is not None:
                return step
        return create_contact(phone, obs, {"first": first, "last": last, "phone": params["number"]},
                              PHONE_TYPES["Mobile"])


@register_task
class UpdateNumberFromMessage(TaskTemplate):
    name = "multi_update_contact_number_from_message"
    apps = ("Messages", "Contacts")
    complexity = 3
    optimal_steps = 10
    goal_template = ("{name} texted me from a new phone number. Update their contact so it has only the new "
                     "number.")
    goal_phrasings = (
        ("Could you replace {name}'s number in Contacts with the new one they just texted me from? Keep only "
         "the new number."),
        "{name} has a new phone: swap the old number on their contact for the one in their latest text.",
        "Update the contact {name} to the number their recent message came from, removing the old one.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first, last = person(rng)
        return {"first": first, "last": last, "name": f"{first} {last}", "old": random_number(rng),
                "new": random_number(rng)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        fresh_person(phone, params["first"], params["last"], params["old"])
        tid = thread_for(phone, params["new"])
        if tid is not None:
            delete_thread(phone, tid)
        add_sms(phone, params["old"], "See you at the reunion!", when=phone.now - timedelta(days=30))
        add_sms(phone, params["new"], f"Hi, it's {params['first']}! I got a new phone, this is my new number.",
                when=phone.now - timedelta(hours=5), read=False)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        c = only(phone, params["name"])
        ok = c is not None and len(c["phones"]) == 1 and same_number(c["phones"][0][0], params["new"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if phone.foreground != "contacts" and not (phone.screen and phone.screen.name == "thread"):
            step = open_existing(phone, obs, params["new"])
            if step is not None:
                return step
        return edit_contact(phone, obs, params["name"], {"phone": params["new"]})


@register_task
class TextThenAirplane(TaskTemplate):
    name = "multi_text_then_airplane_mode"
    apps = ("Messages", "Settings")
    complexity = 2
    optimal_steps = 10
    goal_template = "Text {name} \"{body}\", then turn on airplane mode."
    goal_phrasings = (
        "Could you send \"{body}\" to {name} and switch on airplane mode afterwards?",
        "Message {name}: \"{body}\". Once it's sent, enable airplane mode in Settings.",
        "First text \"{body}\" to {name}, then put the phone in airplane mode.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first, last = person(rng)
        return {"first": first, "last": last, "name": f"{first} {last}", "number": random_number(rng),
                "body": rng.choice(BODIES)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.put_setting("global", "airplane_mode_on", 0)
        fresh_person(phone, params["first"], params["last"], params["number"])
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        # a text sent in airplane mode fails (type 5), so the order matters
        airplane = phone.get_setting("global", "airplane_mode_on") == "1"
        return 1.0 if airplane and sent_exactly(phone, [(params["number"], params["body"])]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if not new_sent(phone):
            return to_thread(phone, obs, params["number"], via_name=params["name"]) or \
                send_in_thread(phone, obs, params["body"])
        if phone.get_setting("global", "airplane_mode_on") != "1":
            return navigate(phone, obs, "settings", [("main", {"text": "Network & internet"}), ("network", None)]) \
                or dismiss_popups(phone) or click_or_scroll(phone, obs, text="Airplane mode")
        return COMPLETE


ALARM_LABELS = ("Flight check-in", "Pick up Mia", "Team standup", "Dentist", "Morning run", "Piano practice")


@register_task
class TextAlarmTime(TaskTemplate):
    name = "multi_text_alarm_time"
    apps = ("Clock", "Messages")
    complexity = 2
    optimal_steps = 8
    goal_template = "Text {name} the time of my \"{label}\" alarm (just the time, e.g. 7:30 AM)."
    goal_phrasings = (
        "Could you check when my \"{label}\" alarm is set for and text {name} that time (like 7:30 AM)?",
        "Send {name} an SMS with the time of the \"{label}\" alarm in Clock, e.g. 6:45 AM.",
        "What time is my \"{label}\" alarm? Text just that time to {name} (for example 7:30 AM).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first, last = person(rng)
        hour, minute = rng.choice((5, 6, 7, 8, 14, 16, 18)), rng.choice((0, 10, 15, 30, 45))
        return {"first": first, "last": last, "name": f"{first} {last}", "number": random_number(rng),
                "label": rng.choice(ALARM_LABELS), "hour": hour, "minute": minute,
                "time": f"{hour % 12 or 12}:{minute:02d} {'AM' if hour < 12 else 'PM'}"}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        fresh_person(phone, params["first"], params["last"], params["number"])
        phone.execute("DELETE FROM alarm_templates WHERE label=?", (params["label"],))
        phone.execute("INSERT INTO alarm_templates(hour, minutes, days_of_week, enabled, vibrate, label, ringtone) "
                      "VALUES(?, ?, 0, 1, 1, ?, 'Default')", (params["hour"], params["minute"], params["label"]))
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        sent = sent_messages(phone, after_id=baseline(phone, "sms_id"))
        if len(sent) != 1 or not same_number(sent[0]["address"], params["number"]):
            return 0.0
        body = sent[0]["body"]
        h24 = f"{params['hour']:02d}:{params['minute']:02d}"
        ok = answer_matches(body, params["time"]) or answer_matches(body, h24)
        if params["hour"] >= 12 and not answer_matches(body, h24):
            ok = ok and "pm" in body.lower()  # "2:15" alone is ambiguous for an afternoon alarm
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if phone.foreground != "messages":
            scr = phone.screen
            if phone.foreground != "clock" or scr is None or scr.name != "alarms":
                return navigate(phone, obs, "clock", [("alarms", None)]) or BACK
            if phone.dialog is not None or phone.menu_open:
                return BACK
            label_hit = obs.elements and any(params["label"] in (e.content_description or "") for e in obs.elements)
            if not label_hit:
                return click_or_scroll(phone, obs, desc_contains=params["label"])
        return to_thread(phone, obs, params["number"], via_name=params["name"]) or \
            send_in_thread(phone, obs, params["time"])

