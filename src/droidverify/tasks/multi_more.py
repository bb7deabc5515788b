"""More tasks across two apps: read a fact in one app (an event, a contact, a note, a text, an
expense, a folder) and act on it in another, or answer a question that needs both.

Set-ups plant the fact and a near-miss decoy beside it (a past event of the same title, a contact
sharing the first name, a superseded time, a similarly named expense); checkers read the target
app's tables. Oracles first look at the source app (recording the visit on ``phone.events``, as
``multi_calendar_notes`` does), then act in the target app from whatever screen is showing.
"""

from __future__ import annotations

import random
import re
from datetime import date, datetime, timedelta
from typing import Any

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim import storage as st
from droidverify.env.sim.apps.calendar import add_event, event_by_title, events_on, fmt_day
from droidverify.env.sim.apps.contacts import (
    LAST_NAMES,
    PHONE_TYPES,
    find_contacts,
    normalize_number,
    random_number,
    remove_contacts_named,
    remove_contacts_with_number,
)
from droidverify.env.sim.apps.expenses import parse_money
from droidverify.env.sim.apps.messages import TYPE_SENT, add_sms, sent_messages
from droidverify.env.sim.apps.todo import KEY as TODO
from droidverify.env.sim.apps.todo import add_task as add_todo
from droidverify.env.sim.apps.todo import due_ms, list_id, show_completed
from droidverify.env.sim.apps.todo import tasks as todo_tasks
from droidverify.env.sim.phone import Phone
from droidverify.env.sim.storage import ROOT
from droidverify.env.sim.timeutil import to_ms
from droidverify.tasks.base import TaskTemplate
from droidverify.tasks.calendar import (
    LOCATIONS,
    TITLES,
    TODAY,
    at,
    fill_form,
    open_event,
    open_new_form,
    time_text,
    to_day,
    to_search_result,
)
from droidverify.tasks.contacts import (
    create_contact,
    edit_contact,
    number_answer_matches,
    only,
    person,
    put_contact,
    same_number,
    to_detail,
    two_people,
)
from droidverify.tasks.expenses import (
    ITEMS,
    add_form,
    edit_form,
    expense_diff,
    find_expense,
    open_expense,
    row_is,
)
from droidverify.tasks.expenses import plant as plant_expense
from droidverify.tasks.files import plant as plant_file
from droidverify.tasks.files import show_rows
from droidverify.tasks.helpers import (
    BACK,
    COMPLETE,
    answer,
    answer_matches,
    click,
    click_or_scroll,
    dismiss_popups,
    dollars,
    find,
    look_first,
    money_matches,
    navigate,
    open_app,
    scroll_toward,
    type_into,
)
from droidverify.tasks.helpers.clock import edit_draft, labelled, open_alarm_editor, say_time, to_tab
from droidverify.tasks.messages import (
    PLACES,
    baseline,
    fresh_person,
    open_existing,
    record_baseline,
    send_in_thread,
    sent_exactly,
    to_thread,
)
from droidverify.tasks.notes import (
    edit_text,
    new_item,
    notes_named,
    one_note,
    open_note,
    same_text,
    to_folder,
    write_note,
)
from droidverify.tasks.registry import register_task
from droidverify.tasks.settings import NAMES as DEVICE_NAMES
from droidverify.tasks.settings import TO_ABOUT
from droidverify.tasks.todo import (
    ERRAND_LISTS,
    NEW_GROCERIES,
    fill_editor,
    find_task,
    in_editor,
    lists_unchanged,
    norm,
    only_change,
    open_editor,
    prio,
    say_day,
    task_diff,
    to_list,
    via_menu,
)
from droidverify.tasks.todo import NEW_TITLES as TODO_TITLES
from droidverify.tasks.todo import PAIRS as TODO_PAIRS

TOMORROW = TODAY + timedelta(days=1)


# ---- shared oracle helpers ----------------------------------------------------------------------
def create_note(phone: Phone, obs: Observation, name: str, text: str) -> Action:
    """Create Markor note ``name`` at the top folder (or fix its text when it exists)."""
    if notes_named(phone, name):
        return open_note(phone, obs, name) or edit_text(phone, obs, text)
    return to_folder(phone, obs) or new_item(phone, obs, name, folder=False)


def create_alarm(phone: Phone, obs: Observation, hour: int, minute: int, label: str) -> Action:
    """Make ``label`` one alarm at ``hour:minute`` from anywhere: fix an alarm already carrying the
    label (an earlier wrong try; extra copies are deleted), else add one."""
    scr = phone.screen
    editing = scr.args.get("alarm_id", -1) if phone.foreground == "clock" and scr is not None \
        and scr.name == "edit_alarm" else -1
    hits = labelled(phone, label)
    if len(hits) > 1:  # a duplicate can only go: delete the last copy
        extra = hits[-1]
        if phone.dialog is not None and phone.dialog.data.get("on_ok") == "delete_alarm":
            return click(obs, resource_id="android:id/button1") or BACK
        if editing == extra["_id"] and phone.dialog is None:
            return click(obs, resource_id="delete") or BACK
        return open_alarm_editor(phone, obs, extra)
    want_id = hits[0]["_id"] if hits else None
    if editing == want_id:
        return edit_draft(phone, obs, hour, minute, None, label)
    if want_id is not None:
        return open_alarm_editor(phone, obs, hits[0])
    return to_tab(phone, obs, "alarms") or click(obs, desc="Add alarm") or BACK


def one_alarm_at(phone: Phone, label: str, hour: int, minute: int) -> bool:
    """Exactly one alarm labelled ``label``, switched on, ringing at ``hour:minute``."""
    hits = labelled(phone, label)
    return len(hits) == 1 and (hits[0]["hour"], hits[0]["minutes"]) == (hour, minute) and bool(hits[0]["enabled"])


def only_sent_to(phone: Phone, number: str) -> str | None:
    """Body of the single text sent since set-up when it went to ``number``; else None."""
    sent = sent_messages(phone, after_id=baseline(phone, "sms_id"))
    if len(sent) != 1 or not same_number(sent[0]["address"], number):
        return None
    return sent[0]["body"]


def other_last(rng: random.Random, last: str) -> str:
    """A different family name, for a decoy who shares the target's first name."""
    return rng.choice([n for n in LAST_NAMES if n != last])


def person_params(rng: random.Random) -> dict[str, Any]:
    first, last = person(rng)
    return {"first": first, "last": last, "name": f"{first} {last}", "number": random_number(rng)}


# ---- Calendar -> Messages -----------------------------------------------------------------------
@register_task
class TextEventLocation(TaskTemplate):
    name = "multi_text_event_location"
    apps = ("Calendar", "Messages")
    complexity = 2
    optimal_steps = 10
    goal_template = "Text {name} the location of my upcoming \"{title}\" event so they can meet me there."
    goal_phrasings = (
        "Could you check where my next \"{title}\" event is and send {name} that location by SMS?",
        "Send {name} a message with the place of the upcoming \"{title}\" event from my calendar.",
        "{name} wants to join me at \"{title}\". Text them where the upcoming one takes place.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        location, decoy = rng.sample(LOCATIONS, 2)
        return dict(person_params(rng), title=rng.choice(TITLES), location=location, decoy_location=decoy,
                    date=(TODAY + timedelta(days=rng.randint(2, 12))).isoformat(), hour=rng.randint(9, 17),
                    past=(TODAY - timedelta(days=rng.randint(5, 20))).isoformat())

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM events WHERE title=?", (params["title"],))
        # the same title last time, elsewhere: the search lists both, only the upcoming one counts
        old = at(date.fromisoformat(params["past"]), params["hour"])
        add_event(phone, params["title"], old, old + timedelta(hours=1), location=params["decoy_location"])
        s = at(date.fromisoformat(params["date"]), params["hour"])
        add_event(phone, params["title"], s, s + timedelta(hours=1), location=params["location"])
        fresh_person(phone, params["first"], params["last"], params["number"])
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        body = only_sent_to(phone, params["number"])
        ok = body is not None and answer_matches(body, params["location"]) and \
            not answer_matches(body, params["decoy_location"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        # the search results show each event's day and location; reading them is enough
        step = look_first(phone, self.name, lambda: to_search_result(phone, obs, params["title"]))
        if step is not None:
            return step
        return to_thread(phone, obs, params["number"], via_name=params["name"]) or \
            send_in_thread(phone, obs, params["location"])


BIRTHDAY_BODIES = ("Happy birthday! Have a wonderful day", "Happy birthday! Let's celebrate this weekend",
                   "Happy birthday, hope it's a great one")


@register_task
class TextBirthdayToday(TaskTemplate):
    name = "multi_text_birthday_person_today"
    apps = ("Calendar", "Messages")
    complexity = 2
    optimal_steps = 9
    goal_template = "Check my calendar for whose birthday is today and text them \"{body}\"."
    goal_phrasings = (
        "Someone in my calendar has a birthday today. Send them the message \"{body}\".",
        "Could you text \"{body}\" to the person whose birthday is on my calendar today?",
        "Birthday today per the calendar: text that person \"{body}\".",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (a1, a2), (b1, b2) = two_people(rng)
        return {"first": a1, "last": a2, "name": f"{a1} {a2}", "number": random_number(rng),
                "other_first": b1, "other_last": b2, "other_name": f"{b1} {b2}", "other_number": random_number(rng),
                "body": rng.choice(BIRTHDAY_BODIES)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # seeded birthdays may fall today; only the planted one may
        day0 = to_ms(at(TODAY, 0))
        phone.execute("DELETE FROM events WHERE allDay=1 AND title LIKE '%birthday%' AND dtstart=?", (day0,))
        for who, day in ((params["name"], TODAY), (params["other_name"], TOMORROW)):  # tomorrow's is the decoy
            phone.execute("DELETE FROM events WHERE title=?", (f"{who}'s birthday",))
            add_event(phone, f"{who}'s birthday", at(day, 0), at(day, 0), all_day=True)
        fresh_person(phone, params["first"], params["last"], params["number"])
        fresh_person(phone, params["other_first"], params["other_last"], params["other_number"])
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if sent_exactly(phone, [(params["number"], params["body"])]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = look_first(phone, self.name, lambda: to_day(phone, obs, TODAY))
        if step is not None:
            return step
        return to_thread(phone, obs, params["number"], via_name=params["name"]) or \
            send_in_thread(phone, obs, params["body"])


# ---- Calendar -> Clock / Contacts ---------------------------------------------------------------
@register_task
class AlarmBeforeFirstEvent(TaskTemplate):
    name = "multi_alarm_before_first_event_tomorrow"
    apps = ("Calendar", "Clock")
    complexity = 3
    optimal_steps = 11
    goal_template = ("Set an alarm {lead} minutes before my first timed event tomorrow (ignore all-day events), "
                     "labelled with that event's title.")
    goal_phrasings = (
        ("Could you look up my earliest event tomorrow that has a start time and set an alarm {lead} minutes "
         "before it? Use the event's title as the alarm label."),
        ("Alarm {lead} minutes ahead of tomorrow's first timed calendar event, labelled with its title "
         "(all-day events don't count)."),
        ("I need to be up {lead} minutes before my first event tomorrow that has a time. Add a Clock alarm for "
         "then and name it after the event."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        hour, minute, lead = rng.choice((5, 6)), rng.choice((0, 15, 30, 45)), rng.choice((15, 30, 45, 60))
        wake = at(TOMORROW, hour, minute) - timedelta(minutes=lead)
        return {"title": rng.choice(TITLES), "hour": hour, "minute": minute, "lead": lead,
                "alarm_hour": wake.hour, "alarm_minute": wake.minute, "alarm_time": say_time(wake.hour, wake.minute)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM events WHERE title IN (?, ?)", (params["title"], "Recycling pickup"))
        s = at(TOMORROW, params["hour"], params["minute"])  # seeded days start at 7 at the earliest
        add_event(phone, params["title"], s, s + timedelta(hours=1), location=LOCATIONS[0])
        add_event(phone, "Recycling pickup", s, s, all_day=True)  # listed first on the day, but has no time
        phone.execute("DELETE FROM alarm_templates WHERE lower(label)=?", (params["title"].lower(),))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if one_alarm_at(phone, params["title"], params["alarm_hour"], params["alarm_minute"]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = look_first(phone, self.name, lambda: to_day(phone, obs, TOMORROW))
        if step is not None:
            return step
        return create_alarm(phone, obs, params["alarm_hour"], params["alarm_minute"], params["title"])


@register_task
class QueryFirstMeetingPhone(TaskTemplate):
    name = "multi_query_first_meeting_phone"
    apps = ("Calendar", "Contacts")
    kind = "query"
    complexity = 2
    optimal_steps = 8
    goal_template = ("Who am I meeting at my first event tomorrow? Answer with that person's phone number from "
                     "my contacts.")
    goal_phrasings = (
        ("What's the phone number of the person my earliest event tomorrow is with? Check the calendar, then "
         "Contacts."),
        "Find tomorrow's first calendar event and tell me the contact number of the person it is with.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = person_params(rng)
        decoy_last = other_last(rng, p["last"])
        return dict(p, decoy_last=decoy_last, decoy_name=f"{p['first']} {decoy_last}",
                    decoy_number=random_number(rng), meal=rng.choice(("Breakfast", "Coffee", "Early run")),
                    minute=rng.choice((0, 15, 30, 45)))

    def titles(self, params: dict[str, Any]) -> tuple[str, str]:
        return f"{params['meal']} with {params['name']}", f"Lunch with {params['decoy_name']}"

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        mine, decoy = self.titles(params)
        phone.execute("DELETE FROM events WHERE title IN (?, ?)", (mine, decoy))
        s = at(TOMORROW, 6, params["minute"])
        add_event(phone, mine, s, s + timedelta(hours=1), location=LOCATIONS[1])
        # the namesake is met later the same day: reading the wrong event gives the wrong person
        add_event(phone, decoy, at(TOMORROW, 12, 30), at(TOMORROW, 13, 30), location=LOCATIONS[5])
        put_contact(phone, params["first"], params["last"], number=params["number"])
        put_contact(phone, params["first"], params["decoy_last"], number=params["decoy_number"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = number_answer_matches(answer, params["number"]) and \
            not number_answer_matches(answer, params["decoy_number"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = look_first(phone, self.name, lambda: to_day(phone, obs, TOMORROW)) or \
            to_detail(phone, obs, params["name"])
        if step is not None:
            return step
        return dismiss_popups(phone) or answer(params["number"])


# ---- Contacts <-> Markor ------------------------------------------------------------------------
@register_task
class SaveContactNumberNote(TaskTemplate):
    name = "multi_save_contact_number_note"
    apps = ("Contacts", "Markor")
    complexity = 2
    optimal_steps = 11
    goal_template = ("Look up {name} in Contacts and save their phone number as the only text of a new Markor "
                     "note named \"{note}\".")
    goal_phrasings = (
        "Could you create a Markor note called \"{note}\" containing just {name}'s phone number?",
        "New note \"{note}\" in Markor: {name}'s number from my contacts, nothing else.",
        "Copy the phone number of my contact {name} into a new note named \"{note}\".",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = person_params(rng)
        return dict(p, decoy_last=other_last(rng, p["last"]), decoy_number=random_number(rng),
                    note=f"{p['first']}'s number")

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        remove_contacts_with_number(phone, params["number"])
        put_contact(phone, params["first"], params["last"], number=params["number"])
        # same first name, listed right beside the target
        put_contact(phone, params["first"], params["decoy_last"], number=params["decoy_number"])
        for e in notes_named(phone, params["note"]):
            st.delete(phone, e.path)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        text = one_note(phone, params["note"])
        return 1.0 if text is not None and normalize_number(text) == normalize_number(params["number"]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = look_first(phone, self.name, lambda: to_detail(phone, obs, params["name"]))
        if step is not None:
            return step
        return create_note(phone, obs, params["note"], params["number"])


ROLES = ("Babysitter", "Plumber", "Piano teacher", "Electrician", "Dog sitter", "Tax advisor")


@register_task
class AddContactFromNote(TaskTemplate):
    name = "multi_add_contact_from_note"
    apps = ("Markor", "Contacts")
    complexity = 2
    optimal_steps = 9
    goal_template = ("My Markor note \"{note}\" has someone's name and phone number. Add that person to my "
                     "contacts with that name and number.")
    goal_phrasings = (
        ("Could you save the person described in my note \"{note}\" as a new contact (their name and number "
         "are in the note)?"),
        "Create a contact from the details in the Markor note \"{note}\".",
        "Add the person from my note \"{note}\" to Contacts, with the name and phone number written there.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        role = rng.choice(ROLES)
        (first, last), (ref_first, ref_last) = two_people(rng)
        return {"first": first, "last": last, "name": f"{first} {last}", "number": random_number(rng),
                "note": role, "ref_name": f"{ref_first} {ref_last}", "ref_number": random_number(rng)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # the recommender's number is in the note too: the near miss is saving that one
        body = (f"# {params['note']}\nRecommended by {params['ref_name']} ({params['ref_number']})\n"
                f"Name: {params['name']}\nPhone: {params['number']}\nAsk about weekend availability.")
        write_note(phone, params["note"] + ".md", body)
        remove_contacts_named(phone, params["name"])
        remove_contacts_with_number(phone, params["number"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        c = only(phone, params["name"])
        ok = c is not None and len(c["phones"]) == 1 and same_number(c["phones"][0][0], params["number"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = look_first(phone, self.name, lambda: open_note(phone, obs, params["note"]))
        if step is not None:
            return step
        if find_contacts(phone, params["name"]):  # an earlier try with a wrong number: fix it
            return edit_contact(phone, obs, params["name"], {"phone": params["number"]})
        return create_contact(phone, obs, {"first": params["first"], "last": params["last"],
                                           "phone": params["number"]}, PHONE_TYPES["Mobile"])


# ---- Markor -> Expenses / Settings --------------------------------------------------------------
COST_NOTES = ("Trip costs", "Party budget", "Weekend spending", "Shared costs")
AMOUNTS = ("4.75", "12.00", "18.40", "23.99", "36.50", "42.50", "57.25", "64.00", "89.90", "120.00")


@register_task
class ExpenseFromNote(TaskTemplate):
    name = "multi_add_expense_from_note"
    apps = ("Markor", "Expenses")
    complexity = 3
    optimal_steps = 10
    goal_template = ("Log \"{name}\" as a {category} expense for today in Expenses, using the amount written "
                     "next to it in my Markor note \"{note}\".")
    goal_phrasings = (
        ("Could you add today's expense \"{name}\" ({category}) with the cost I noted for it in \"{note}\" in "
         "Markor?"),
        "My note \"{note}\" lists what \"{name}\" cost. Record that as a {category} expense dated today.",
        "New {category} expense \"{name}\" for today, amount as in the Markor note \"{note}\".",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        items = rng.sample(ITEMS, 3)
        amounts = rng.sample(AMOUNTS, 3)
        k = rng.randrange(3)
        return {"note": rng.choice(COST_NOTES), "lines": [[n, a] for (n, _), a in zip(items, amounts)],
                "name": items[k][0], "category": items[k][1], "amount": amounts[k]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        body = f"# {params['note']}\n" + "\n".join(f"- {n}: ${a}" for n, a in params["lines"])
        write_note(phone, params["note"] + ".md", body)
        for n, _ in params["lines"]:
            phone.execute("DELETE FROM expense WHERE name=?", (n,))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = expense_diff(phone, self, params)
        ok = len(added) == 1 and not removed and not changed and row_is(
            added[0], params["name"], parse_money(params["amount"]) or -1, params["category"], TODAY.isoformat())
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = look_first(phone, self.name, lambda: open_note(phone, obs, params["note"]))
        if step is not None:
            return step
        want = {"cents": parse_money(params["amount"]), "category": params["category"], "day": TODAY}
        mine = find_expense(phone, params["name"])  # set-up removed the name: any row is an earlier try
        if mine is not None:
            return edit_form(phone, obs, mine["expense_id"], params["name"], name=params["name"], **want)
        return add_form(phone, obs, name=params["name"], **want)


SETUP_NOTES = ("New phone setup", "Phone checklist", "Device to-do")


@register_task
class RenameDeviceFromNote(TaskTemplate):
    name = "multi_rename_device_from_note"
    apps = ("Markor", "Settings")
    complexity = 2
    optimal_steps = 9
    goal_template = "Rename this phone to the new device name I wrote down in my Markor note \"{note}\"."
    goal_phrasings = (
        "Could you check my note \"{note}\" and give the phone the new name listed there?",
        "Set the device name in Settings to the one in the Markor note \"{note}\" (the new name, not the old).",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        new, old = rng.sample(DEVICE_NAMES, 2)
        return {"note": rng.choice(SETUP_NOTES), "new_name": new, "old_name": old}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        body = (f"# {params['note']}\n- Old phone was called: {params['old_name']}\n"
                f"- New name for this phone: {params['new_name']}\n- Copy photos from the old phone\n"
                "- Turn on dark theme")
        write_note(phone, params["note"] + ".md", body)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if phone.get_setting("global", "device_name") == params["new_name"] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = look_first(phone, self.name, lambda: open_note(phone, obs, params["note"]))
        if step is not None:
            return step
        dlg = phone.dialog
        if phone.foreground == "settings" and dlg is not None and dlg.name == "text_input":
            if dlg.data.get("fields", {}).get("value") != params["new_name"]:
                return type_into(obs, params["new_name"]) or BACK
            return click(obs, text="Rename") or BACK
        return navigate(phone, obs, "settings", TO_ABOUT) or dismiss_popups(phone) or \
            click_or_scroll(phone, obs, text="Device name")


# ---- Files -> Markor ----------------------------------------------------------------------------
DOC_FOLDERS = ("Tax papers", "Scans", "Paperwork", "Insurance")
DOC_FILES = ("W2_2023.pdf", "insurance_card.jpg", "lease_agreement.pdf", "passport_scan.png",
             "vaccination_record.pdf", "car_title.pdf", "warranty_tv.pdf", "utility_bill_sep.pdf")
_BULLET = re.compile(r"^\s*(?:[-*+\u2022]|\d+[.)])\s*")


def listed_names(text: str | None) -> list[str]:
    """The item lines of a note: headings and blank lines dropped, bullets and numbering stripped."""
    if text is None:
        return []
    return [_BULLET.sub("", line).strip() for line in text.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


@register_task
class NoteListingFolderFiles(TaskTemplate):
    name = "multi_note_listing_folder_files"
    apps = ("Files", "Markor")
    complexity = 3
    optimal_steps = 10
    goal_template = ("Create a Markor note named \"{note}\" that lists the names of all files in "
                     "Documents/{folder}, one file name per line.")
    goal_phrasings = (
        ("Could you make a note \"{note}\" in Markor listing every file in the Documents/{folder} folder, one "
         "per line?"),
        ("Look in Documents/{folder} with the Files app and write the file names into a new Markor note called "
         "\"{note}\", each on its own line."),
        "New Markor note \"{note}\": the file names in Documents/{folder}, one per line.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        folder = rng.choice(DOC_FOLDERS)
        return {"folder": folder, "files": sorted(rng.sample(DOC_FILES, rng.randint(2, 4))),
                "note": f"{folder} index"}

    def dir(self, params: dict[str, Any]) -> str:
        return f"{ROOT}/Documents/{params['folder']}"

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        if st.exists(phone, self.dir(params)):
            st.delete(phone, self.dir(params), recursive=True)
        for i, name in enumerate(params["files"]):
            plant_file(phone, f"Documents/{params['folder']}", name, 90_000 + 7_919 * i, days_ago=2 + i)
        for e in notes_named(phone, params["note"]):
            st.delete(phone, e.path)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        got = listed_names(one_note(phone, params["note"]))
        return 1.0 if sorted(got) == sorted(params["files"]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = look_first(phone, self.name, lambda: show_rows(phone, obs, self.dir(params), params["files"]))
        if step is not None:
            return step
        return create_note(phone, obs, params["note"], "\n".join(params["files"]))


# ---- Messages -> Clock / Calendar / Markor ------------------------------------------------------
PLANS = (("airport pickup", "Airport pickup"), ("sunrise hike", "Sunrise hike"),
         ("ride to the conference", "Conference ride"), ("fishing trip", "Fishing trip"))
EARLY = [(h, m) for h in (4, 5, 6) for m in (0, 10, 20, 30, 40, 50)]


@register_task
class AlarmFromMessage(TaskTemplate):
    name = "multi_alarm_from_message_time"
    apps = ("Messages", "Clock")
    complexity = 3
    optimal_steps = 11
    goal_template = ("{name} and I settled on a time for the {plan} tomorrow by text. Set an alarm for that "
                     "time labelled \"{label}\".")
    goal_phrasings = (
        ("Could you read my texts with {name} about the {plan} and set an alarm, labelled \"{label}\", for the "
         "time we finally agreed on?"),
        "Alarm \"{label}\": the final {plan} time from my conversation with {name}.",
        ("Check Messages for the time {name} and I agreed for the {plan}, then add a Clock alarm named "
         "\"{label}\" at that time."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (h1, m1), (h2, m2) = rng.sample(EARLY, 2)
        plan, label = rng.choice(PLANS)
        return dict(person_params(rng), plan=plan, label=label, first_hour=h1, first_minute=m1, hour=h2,
                    minute=m2, time=say_time(h2, m2), first_time=say_time(h1, m1))

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        n = params["number"]
        fresh_person(phone, params["first"], params["last"], n)
        # the first proposal is superseded: an alarm at that time is the near miss
        add_sms(phone, n, f"Can you be ready for the {params['plan']} at {params['first_time']} tomorrow?",
                when=phone.now - timedelta(hours=6))
        add_sms(phone, n, "Sure, works for me", kind=TYPE_SENT, when=phone.now - timedelta(hours=5, minutes=50))
        add_sms(phone, n, f"Change of plans: let's make it {params['time']} instead.",
                when=phone.now - timedelta(hours=2))
        phone.execute("DELETE FROM alarm_templates WHERE lower(label)=? OR (hour=? AND minutes=?)",
                      (params["label"].lower(), params["hour"], params["minute"]))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if one_alarm_at(phone, params["label"], params["hour"], params["minute"]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = look_first(phone, self.name, lambda: open_existing(phone, obs, params["number"]))
        if step is not None:
            return step
        return create_alarm(phone, obs, params["hour"], params["minute"], params["label"])


@register_task
class EventFromTextInvite(TaskTemplate):
    name = "multi_event_from_text_invite"
    apps = ("Messages", "Calendar")
    complexity = 3
    optimal_steps = 16
    goal_template = ("{name} invited me to dinner by text. Add it to my calendar as \"{title}\": one hour long, "
                     "at the restaurant, on the day and time from their message.")
    goal_phrasings = (
        ("Could you put the dinner {name} texted me about into my calendar? Title it \"{title}\", make it one "
         "hour, and use the restaurant as the location."),
        ("Calendar event \"{title}\" for the dinner in {name}'s text: their date and time, 1 hour, location = "
         "the restaurant."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = person_params(rng)
        d = TODAY + timedelta(days=rng.randint(2, 20))
        return dict(p, title=f"Dinner with {p['first']}", place=rng.choice(PLACES), date=d.isoformat(),
                    hour=rng.choice((18, 19, 20)), minute=rng.choice((0, 30)))

    def start(self, params: dict[str, Any]) -> datetime:
        return at(date.fromisoformat(params["date"]), params["hour"], params["minute"])

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        n, s = params["number"], self.start(params)
        fresh_person(phone, params["first"], params["last"], n)
        add_sms(phone, n, f"Dinner at {params['place']} on {fmt_day(s.date())} at {time_text(s.hour, s.minute)}? "
                "My treat!", when=phone.now - timedelta(hours=3))
        add_sms(phone, n, "Yes, I'd love to!", kind=TYPE_SENT, when=phone.now - timedelta(hours=2, minutes=40))
        phone.execute("DELETE FROM events WHERE title=?", (params["title"],))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        rows = event_by_title(phone, params["title"])
        s = self.start(params)
        ok = len(rows) == 1 and not rows[0]["allDay"] and rows[0]["dtstart"] == to_ms(s) and \
            rows[0]["dtend"] == to_ms(s + timedelta(hours=1)) and \
            (rows[0]["eventLocation"] or "").strip() == params["place"]
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = look_first(phone, self.name, lambda: open_existing(phone, obs, params["number"]))
        if step is not None:
            return step
        s = self.start(params)
        want = {"title": params["title"], "location": params["place"], "start": s, "end": s + timedelta(hours=1)}
        if event_by_title(phone, params["title"]):  # an earlier try with a wrong detail: fix it
            return open_event(phone, obs, params["title"]) or fill_form(phone, obs, want)
        return open_new_form(phone, obs) or fill_form(phone, obs, want)


# ---- Expenses -> Messages -----------------------------------------------------------------------
SHARED = (("Cabin rental", "Cabin cleaning fee", "Other"), ("Concert tickets", "Concert parking", "Entertainment"),
          ("Taxi to airport", "Taxi from airport", "Transport"), ("Groceries for BBQ", "Drinks for BBQ", "Food"),
          ("Museum tickets", "Museum cafe", "Entertainment"))


@register_task
class TextHalfOfExpense(TaskTemplate):
    name = "multi_text_half_of_expense"
    apps = ("Expenses", "Messages")
    complexity = 3
    optimal_steps = 9
    goal_template = ("{name} and I split \"{item}\". Text them half of what I paid for it, according to my "
                     "Expenses app.")
    goal_phrasings = (
        "Could you look up \"{item}\" in Expenses and text {name} their half of the cost?",
        "{name} owes me half of \"{item}\". Send them that amount (half the logged expense) by SMS.",
        "Text {name} 50% of the \"{item}\" expense.",
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        item, decoy, category = rng.choice(SHARED)
        half, decoy_half = rng.sample(range(900, 9000), 2)
        days = rng.sample(range(1, 7), 2)
        return dict(person_params(rng), item=item, decoy=decoy, category=category, cents=2 * half, half=half,
                    decoy_cents=2 * decoy_half, day=(TODAY - timedelta(days=days[0])).isoformat(),
                    decoy_day=(TODAY - timedelta(days=days[1])).isoformat())

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        plant_expense(phone, params["item"], params["cents"], params["category"], params["day"])
        # a similarly named expense beside it: half of that is the near miss
        plant_expense(phone, params["decoy"], params["decoy_cents"], params["category"], params["decoy_day"])
        fresh_person(phone, params["first"], params["last"], params["number"])
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        body = only_sent_to(phone, params["number"])
        return 1.0 if body is not None and money_matches(body, params["half"]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        row = phone.query_one("SELECT expense_id FROM expense WHERE name=?", (params["item"],))
        if row is not None:
            step = look_first(phone, self.name, lambda: open_expense(phone, obs, row[0], params["item"]))
            if step is not None:
                return step
        return to_thread(phone, obs, params["number"], via_name=params["name"]) or \
            send_in_thread(phone, obs, f"${dollars(params['half'])}")


__all__ = [
    "AddContactFromNote", "AlarmBeforeFirstEvent", "AlarmFromMessage", "EventFromTextInvite", "ExpenseFromNote",
    "NoteListingFolderFiles", "QueryFirstMeetingPhone", "RenameDeviceFromNote", "SaveContactNumberNote",
    "TextBirthdayToday", "TextEventLocation", "TextHalfOfExpense", "create_alarm", "create_note", "listed_names",
    "look_first",
]


# ---- round 2: the to-do app (Tasks) and Markor as partners; what is read in one app decides what is
# done in the other (which items to add, which to tick, text or re-prioritise), partly done goals,
# the Tasks search screen and its hidden completed tasks, and derived due dates ---------------------
def todo_search(phone: Phone, obs: Observation, query: str) -> Action | None:
    """Next step toward the Tasks search screen showing the results for ``query``; None once they show."""
    scr = phone.screen
    if phone.foreground != TODO:
        return open_app(phone, TODO)
    assert scr is not None
    if phone.dialog is not None or phone.menu_open:
        return BACK
    if scr.name == "search":
        return None if scr.fields.get("query", "") == query else \
            type_into(obs, query, resource_id="search_input") or BACK
    if scr.name == "main" and not scr.state.get("drawer") and scr.state.get("selected") is None:
        return click(obs, desc="Search") or BACK
    return BACK


def make_task(phone: Phone, obs: Observation, title: str, list_name: str, due: date | None = None) -> Action:
    """Create the to-do ``title`` in ``list_name`` (due ``due``), or fix an earlier try of that title."""
    values: dict[str, Any] = {"title": title, "list_name": list_name}
    if due is not None:
        values["due"] = due
    mine = [t for t in todo_tasks(phone) if norm(t["title"]) == norm(title)]
    if mine:
        return open_editor(phone, obs, mine[0]) or fill_editor(phone, obs, **values)
    if in_editor(phone, None):
        return fill_editor(phone, obs, **values)
    return to_list(phone, obs, list_name) or click(obs, desc="Create new task") or BACK


def one_new_task(phone: Phone, template: TaskTemplate, params: dict[str, Any], title: str, list_name: str,
                 due: date | None) -> bool:
    """Exactly one to-do was added, ``title`` in ``list_name``, open, due ``due``; nothing else changed."""
    added, removed, changed = task_diff(phone, template, params)
    if removed or changed or len(added) != 1 or not lists_unchanged(phone, template, params):
        return False
    row = added[0]
    return norm(row[2]) == norm(title) and row[1] == list_id(phone, list_name) and row[6] == 0 and \
        row[4] == (due_ms(due) if due is not None else 0)


def checklist_body(title: str, lines: list[list[Any]]) -> str:
    return f"# {title}\n" + "\n".join(f"- [{'x' if done else ' '}] {item}" for item, done in lines)


CHECK_NOTES = ("Weekend chores", "Before the trip", "Moving checklist", "House jobs")


@register_task
class TasksFromNoteOpenItems(TaskTemplate):
    name = "multi_tasks_from_note_open_items"
    apps = ("Markor", "Tasks")
    complexity = 3
    optimal_steps = 12
    goal_template = ("My Markor note \"{note}\" is a checklist. Put every item I haven't ticked off yet on my "
                     "{list} list in Tasks, one task each; skip the ticked ones and anything already on that list.")
    goal_phrasings = (
        ("Could you go through the checklist in my Markor note \"{note}\" and add the unticked items to my {list} "
         "list in Tasks? Ticked items are done, and don't add one that's on the list already."),
        ("I need the open items of my note \"{note}\" as to-dos in the {list} list (one per item; not the "
         "checked-off ones, and no duplicates of what's there)."),
        ("Some of the to-dos in my Markor checklist \"{note}\" are already done or already in Tasks. Add the rest "
         "(the unticked ones missing from my {list} list) to {list}."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        picks = rng.sample(TODO_TITLES, 5)
        lines = [[t, i >= 3] for i, t in enumerate(picks)]
        rng.shuffle(lines)
        return {"note": rng.choice(CHECK_NOTES), "list": rng.choice(ERRAND_LISTS), "lines": lines,
                "already": picks[0]}

    def wanted(self, params: dict[str, Any]) -> list[str]:
        return [t for t, done in params["lines"] if not done and t != params["already"]]

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        write_note(phone, params["note"] + ".md", checklist_body(params["note"], params["lines"]))
        for t, _ in params["lines"]:
            phone.execute("DELETE FROM todo_tasks WHERE lower(title) = lower(?)", (t,))
        add_todo(phone, params["list"], params["already"])  # partly done: this one is on the list already

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = task_diff(phone, self, params)
        lid = list_id(phone, params["list"])
        ok = not removed and not changed and lists_unchanged(phone, self, params) and \
            sorted(norm(r[2]) for r in added) == sorted(norm(t) for t in self.wanted(params)) and \
            all(r[1] == lid and r[6] == 0 for r in added)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = look_first(phone, self.name, lambda: open_note(phone, obs, params["note"]))
        if step is not None:
            return step
        lid = list_id(phone, params["list"])
        have = {norm(t["title"]) for t in todo_tasks(phone, "t.list_id = ?", (lid,))}
        missing = [t for t in self.wanted(params) if norm(t) not in have]
        if not missing:
            return COMPLETE
        if in_editor(phone, None):
            return fill_editor(phone, obs, title=missing[0], list_name=params["list"])
        return to_list(phone, obs, params["list"]) or click(obs, desc="Create new task") or BACK


DONE_NOTES = ("Done today", "Finished this week", "Today's wins")


@register_task
class CompleteTasksListedInNote(TaskTemplate):
    name = "multi_complete_tasks_listed_in_note"
    apps = ("Markor", "Tasks")
    complexity = 3
    optimal_steps = 10
    goal_template = ("I wrote down what I finished today in my Markor note \"{note}\". Mark those tasks as done "
                     "in Tasks (they are in different lists, and I may have ticked some already); leave every "
                     "other task as it is.")
    goal_phrasings = (
        ("Could you check off in Tasks everything listed in my note \"{note}\"? The tasks are spread over my "
         "lists and a few might be done already. Don't touch anything else."),
        ("Everything in the Markor note \"{note}\" is done. Make sure each of those to-dos is completed in Tasks, "
         "and only those."),
        ("Tick off the to-dos named in \"{note}\" (a Markor note); search Tasks for them if you need to. Other "
         "tasks stay as they are."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        pairs = rng.sample(TODO_PAIRS, 3)
        items = []
        for a, b in pairs:
            if rng.random() < 0.5:
                a, b = b, a
            items.append({"title": a, "twin": b, "list": rng.choice(ERRAND_LISTS)})
        return {"note": rng.choice(DONE_NOTES), "items": items}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for k, it in enumerate(params["items"]):
            phone.execute("DELETE FROM todo_tasks WHERE title IN (?, ?)", (it["title"], it["twin"]))
            add_todo(phone, it["list"], it["twin"])  # the look-alike stays open
            add_todo(phone, it["list"], it["title"], completed=k == 0)  # the first is ticked already
        body = f"# {params['note']}\n" + "\n".join(f"- {it['title']}" for it in params["items"])
        write_note(phone, params["note"] + ".md", body)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = task_diff(phone, self, params)
        want = {it["title"] for it in params["items"][1:]}
        ok = not added and not removed and lists_unchanged(phone, self, params) and \
            sorted(old[2] for old, _ in changed) == sorted(want) and \
            all(old[:6] == new[:6] and new[6] == 1 for old, new in changed)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = look_first(phone, self.name, lambda: open_note(phone, obs, params["note"]))
        if step is not None:
            return step
        titles = [it["title"] for it in params["items"]]
        left = [t for t in todo_tasks(phone) if t["title"] in titles and not t["completed"]]
        if not left:
            return COMPLETE
        title = left[0]["title"]
        return todo_search(phone, obs, title) or click_or_scroll(phone, obs, desc=f"Mark {title} as done")


SHOP_NOTES = ("Market run", "Pantry restock", "Shopping for Sunday")


@register_task
class QueryNoteItemMissingInTasks(TaskTemplate):
    name = "multi_query_note_item_missing_in_tasks"
    apps = ("Markor", "Tasks")
    kind = "query"
    complexity = 2
    optimal_steps = 8
    goal_template = ("I made a shopping list in my Markor note \"{note}\" and copied it into my Groceries list in "
                     "Tasks, but I think I missed one. Which item from the note is not on the Groceries list?")
    goal_phrasings = (
        ("Compare my Markor note \"{note}\" with the Groceries list in Tasks: which item of the note is missing "
         "from that list? Answer with the item."),
        ("One thing in \"{note}\" (Markor) never made it onto my Groceries list in the Tasks app. What is it?"),
        ("Which of the items written in my note \"{note}\" can't be found in my Tasks Groceries list?"),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        items = rng.sample(NEW_GROCERIES, 4)
        return {"note": rng.choice(SHOP_NOTES), "items": items, "missing": items[rng.randrange(4)],
                "elsewhere": rng.choice(ERRAND_LISTS)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        write_note(phone, params["note"] + ".md", f"# {params['note']}\n" + "\n".join(f"- {i}" for i in params["items"]))
        for item in params["items"]:
            phone.execute("DELETE FROM todo_tasks WHERE lower(title) = lower(?)", (item,))
            # the missing one was filed on another list by mistake: a search finds it, the list doesn't have it
            add_todo(phone, params["elsewhere"] if item == params["missing"] else "Groceries", item)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        others = [i for i in params["items"] if i != params["missing"]]
        ok = answer_matches(answer, params["missing"]) and not any(answer_matches(answer, i) for i in others)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = look_first(phone, self.name + ":note", lambda: open_note(phone, obs, params["note"])) or \
            look_first(phone, self.name + ":list", lambda: to_list(phone, obs, "Groceries"))
        if step is not None:
            return step
        return dismiss_popups(phone) or answer(params["missing"])


@register_task
class TaskDueDayBeforeEvent(TaskTemplate):
    name = "multi_task_due_day_before_event"
    apps = ("Calendar", "Tasks")
    complexity = 3
    optimal_steps = 13
    goal_template = ("So I'm ready for my next \"{title}\" event, add a task \"{task}\" to my {list} list in Tasks, "
                     "due the day before that event.")
    goal_phrasings = (
        ("Could you look up when my next \"{title}\" is in the calendar and create the to-do \"{task}\" in {list}, "
         "due one day earlier?"),
        ("I need a to-do \"{task}\" on my {list} list, due the day before the upcoming \"{title}\" event on my "
         "calendar."),
        ("Make sure I prepare: the next \"{title}\" in my calendar needs a task \"{task}\" in {list} (Tasks app) "
         "that is due the day before it."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        title = rng.choice(TITLES)
        d = TODAY + timedelta(days=rng.randint(3, 16))
        return {"title": title, "task": f"Get ready for {title}", "list": rng.choice(("Work", "Personal")),
                "date": d.isoformat(), "later": (d + timedelta(days=rng.randint(5, 12))).isoformat(),
                "past": (TODAY - timedelta(days=rng.randint(3, 12))).isoformat(), "hour": rng.randint(9, 17)}

    def due(self, params: dict[str, Any]) -> date:
        return date.fromisoformat(params["date"]) - timedelta(days=1)

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM events WHERE title=?", (params["title"],))
        # a past and a later occurrence beside the next one: only the next one counts
        for key in ("past", "later", "date"):
            s = at(date.fromisoformat(params[key]), params["hour"])
            add_event(phone, params["title"], s, s + timedelta(hours=1), location=LOCATIONS[2])
        phone.execute("DELETE FROM todo_tasks WHERE lower(title) = lower(?)", (params["task"],))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if one_new_task(phone, self, params, params["task"], params["list"], self.due(params)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = look_first(phone, self.name, lambda: to_search_result(phone, obs, params["title"]))
        if step is not None:
            return step
        return make_task(phone, obs, params["task"], params["list"], self.due(params))


REPLIES = ("Yes, that's done!", "Done already, no worries.", "All finished, yes.")


@register_task
class TextOrPrioritizeByTaskState(TaskTemplate):
    name = "multi_text_or_prioritize_by_task_state"
    apps = ("Tasks", "Messages")
    complexity = 3
    optimal_steps = 10
    goal_template = ("{name} asked whether I've finished \"{title}\". Look it up in Tasks: if it's checked off, "
                     "text {name} \"{body}\"; if it isn't, don't reply, just set that task's priority to high.")
    goal_phrasings = (
        ("Is \"{title}\" done in my Tasks app? If yes, send {name} the text \"{body}\". If not, make the task high "
         "priority instead and send nothing."),
        ("{name} wants to know about \"{title}\". When the to-do is completed, reply \"{body}\" by SMS; otherwise "
         "raise its priority to high (no text)."),
        ("Depending on whether \"{title}\" is ticked off in Tasks: done means texting {name} \"{body}\", not done "
         "means setting it to high priority."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        title, twin = rng.choice(TODO_PAIRS)
        if rng.random() < 0.5:
            title, twin = twin, title
        return dict(person_params(rng), title=title, twin=twin, list=rng.choice(ERRAND_LISTS),
                    done=rng.random() < 0.5, body=rng.choice(REPLIES),
                    priority=rng.choice(("medium", "low", "none")))

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM todo_tasks WHERE title IN (?, ?)", (params["title"], params["twin"]))
        p = prio(params["priority"])
        add_todo(phone, params["list"], params["twin"], priority=p, completed=not params["done"])  # the opposite
        add_todo(phone, params["list"], params["title"], priority=p, completed=params["done"])
        fresh_person(phone, params["first"], params["last"], params["number"])
        record_baseline(phone)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if params["done"]:
            added, removed, changed = task_diff(phone, self, params)
            ok = sent_exactly(phone, [(params["number"], params["body"])]) and not (added or removed or changed)
        else:
            ok = not sent_messages(phone, after_id=baseline(phone, "sms_id")) and \
                only_change(phone, self, params, params["title"], priority=0)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = look_first(phone, self.name, lambda: todo_search(phone, obs, params["title"]))
        if step is not None:
            return step
        t = find_task(phone, params["title"])
        assert t is not None
        if t["completed"]:
            return to_thread(phone, obs, params["number"], via_name=params["name"]) or \
                send_in_thread(phone, obs, params["body"])
        return open_editor(phone, obs, t) or fill_editor(phone, obs, priority=0)


@register_task
class QueryEventOnTaskDueDay(TaskTemplate):
    name = "multi_query_event_on_task_due_day"
    apps = ("Tasks", "Calendar")
    kind = "query"
    complexity = 3
    optimal_steps = 8
    goal_template = ("What's on my calendar on the day my to-do \"{task}\" is due in Tasks? Answer with the "
                     "event's title.")
    goal_phrasings = (
        ("My task \"{task}\" has a due date in the Tasks app. Which event do I have in my calendar that day?"),
        ("Check when \"{task}\" is due in Tasks, then tell me the title of the calendar event on that date."),
        ("I want to know what else is happening the day \"{task}\" is due: name the event in my calendar then."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        task, twin = rng.choice(TODO_PAIRS)
        if rng.random() < 0.5:
            task, twin = twin, task
        event, other = rng.sample(TITLES, 2)
        d = TODAY + timedelta(days=rng.randint(3, 18))
        return {"task": task, "twin": twin, "list": rng.choice(ERRAND_LISTS), "due": d.isoformat(),
                "twin_due": (d + timedelta(days=rng.choice((-2, -1, 1, 2)))).isoformat(),
                "event": event, "other_event": other, "hour": rng.randint(9, 18)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM todo_tasks WHERE title IN (?, ?)", (params["task"], params["twin"]))
        add_todo(phone, params["list"], params["twin"], due=date.fromisoformat(params["twin_due"]))
        add_todo(phone, params["list"], params["task"], due=date.fromisoformat(params["due"]))
        phone.execute("DELETE FROM events WHERE title IN (?, ?)", (params["event"], params["other_event"]))
        for key, title in (("due", "event"), ("twin_due", "other_event")):
            d = date.fromisoformat(params[key])
            for ev in events_on(phone, d):  # the day holds only the planted event
                phone.execute("DELETE FROM events WHERE _id=?", (ev["_id"],))
            s = at(d, params["hour"])
            add_event(phone, params[title], s, s + timedelta(hours=1), location=LOCATIONS[4])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = answer_matches(answer, params["event"]) and not answer_matches(answer, params["other_event"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        t = find_task(phone, params["task"])
        assert t is not None
        step = look_first(phone, self.name + ":task", lambda: open_editor(phone, obs, t)) or \
            look_first(phone, self.name + ":day", lambda: to_day(phone, obs, date.fromisoformat(params["due"])))
        if step is not None:
            return step
        return dismiss_popups(phone) or answer(params["event"])


@register_task
class TickNoteItemsDoneInTasks(TaskTemplate):
    name = "multi_tick_note_items_done_in_tasks"
    apps = ("Tasks", "Markor")
    complexity = 3
    optimal_steps = 11
    goal_template = ("Bring my Markor checklist \"{note}\" up to date: tick off (\"- [x]\") every item that is "
                     "already marked done in my {list} list in Tasks, and leave the rest unticked.")
    goal_phrasings = (
        ("Some items of my note \"{note}\" are completed in the {list} list in Tasks. Could you mark exactly those "
         "as checked (\"- [x]\") in the note?"),
        ("Update the checkboxes in the Markor note \"{note}\" (\"- [x]\" for done) so they match what's completed "
         "in my Tasks {list} list."),
        ("My Tasks app knows what's done in {list}; my checklist \"{note}\" doesn't yet. Tick (\"- [x]\") the done "
         "ones there."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        picks = rng.sample(TODO_TITLES, 4)
        n_done = rng.randint(1, 2)
        lines = [[t, i < n_done] for i, t in enumerate(picks)]
        rng.shuffle(lines)
        return {"note": rng.choice(CHECK_NOTES), "list": rng.choice(ERRAND_LISTS), "lines": lines}

    def expected(self, params: dict[str, Any]) -> str:
        return checklist_body(params["note"], params["lines"])

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        write_note(phone, params["note"] + ".md", checklist_body(params["note"], [[t, False] for t, _ in params["lines"]]))
        for t, done in params["lines"]:
            phone.execute("DELETE FROM todo_tasks WHERE lower(title) = lower(?)", (t,))
            add_todo(phone, params["list"], t, completed=done)  # completed tasks are hidden until shown

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        text = one_note(phone, params["note"])
        added, removed, changed = task_diff(phone, self, params)
        ok = text is not None and same_text(text.replace("[X]", "[x]"), self.expected(params)) and \
            not (added or removed or changed)
        return 1.0 if ok else 0.0

    def seen_done(self, phone: Phone, obs: Observation, params: dict[str, Any]) -> Action | None:
        if not show_completed(phone):
            return via_menu(phone, obs, params["list"], "Show completed")
        step = to_list(phone, obs, params["list"])
        if step is not None:
            return step
        for t, done in params["lines"]:
            if done and find(obs, desc=f"Mark {t} as not done") is None:
                return scroll_toward(phone, obs, desc=f"Mark {t} as not done") or BACK
        return None

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = look_first(phone, self.name, lambda: self.seen_done(phone, obs, params))
        if step is not None:
            return step
        return open_note(phone, obs, params["note"]) or edit_text(phone, obs, self.expected(params))


@register_task
class TaskFromTextRequest(TaskTemplate):
    name = "multi_task_from_text_request"
    apps = ("Messages", "Tasks")
    complexity = 3
    optimal_steps = 12
    goal_template = ("{name} asked me by text to take care of something for them. Add it to my {list} list in "
                     "Tasks, titled exactly as they wrote it, due on the day we finally agreed on.")
    goal_phrasings = (
        ("Could you read {name}'s texts and put the favour they asked for on my {list} list as a to-do? Use their "
         "wording for the title and the final date we settled on as the due date."),
        ("I promised {name} something by SMS. Create it as a task in {list} (their exact words as the title), due "
         "the day we agreed on in the end."),
        ("New to-do in {list} from my conversation with {name}: what they asked for, due on the date we ended up "
         "agreeing on."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first, final = rng.sample(range(2, 15), 2)
        return dict(person_params(rng), title=rng.choice(TODO_TITLES), list=rng.choice(ERRAND_LISTS),
                    first_due=(TODAY + timedelta(days=first)).isoformat(),
                    due=(TODAY + timedelta(days=final)).isoformat())

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        n = params["number"]
        fresh_person(phone, params["first"], params["last"], n)
        first, final = date.fromisoformat(params["first_due"]), date.fromisoformat(params["due"])
        add_sms(phone, n, f"Could you do me a favour: \"{params['title']}\"? Ideally by {say_day(first)}.",
                when=phone.now - timedelta(hours=7))
        add_sms(phone, n, f"Sure, but {say_day(first)} is tight. Would {say_day(final)} work?", kind=TYPE_SENT,
                when=phone.now - timedelta(hours=6, minutes=40))
        add_sms(phone, n, f"{say_day(final)} is fine, thanks!", when=phone.now - timedelta(hours=6))
        phone.execute("DELETE FROM todo_tasks WHERE lower(title) = lower(?)", (params["title"],))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = one_new_task(phone, self, params, params["title"], params["list"], date.fromisoformat(params["due"]))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = look_first(phone, self.name, lambda: open_existing(phone, obs, params["number"]))
        if step is not None:
            return step
        return make_task(phone, obs, params["title"], params["list"], date.fromisoformat(params["due"]))


WAKE_TIMES = [(h, m) for h in (6, 7, 8) for m in (0, 15, 30, 45)]


@register_task
class AlarmForTaskDueTomorrow(TaskTemplate):
    name = "multi_alarm_for_task_due_tomorrow"
    apps = ("Tasks", "Clock")
    complexity = 3
    optimal_steps = 11
    goal_template = ("Only one task in my {list} list in Tasks is due tomorrow. Set an alarm for {time} and label "
                     "it with that task's title.")
    goal_phrasings = (
        ("I keep forgetting things. Find the to-do in {list} that's due tomorrow and add a {time} alarm named after "
         "it."),
        ("Could you create a Clock alarm at {time} whose label is the title of tomorrow's due task in my {list} "
         "list?"),
        ("Alarm at {time}, labelled with whichever {list} task (Tasks app) is due tomorrow."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (a, b), (c, _) = rng.sample(TODO_PAIRS, 2)
        if rng.random() < 0.5:
            a, b = b, a
        h, m = rng.choice(WAKE_TIMES)
        return {"list": rng.choice(ERRAND_LISTS), "title": a, "twin": b, "other": c, "hour": h, "minute": m,
                "time": say_time(h, m), "twin_days": rng.choice((0, 2, 3))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        lid = list_id(phone, params["list"])
        # seeded tasks due tomorrow would make "only one" false: move them a day later
        phone.execute("UPDATE todo_tasks SET due=? WHERE due=?", (due_ms(TOMORROW + timedelta(days=1)), due_ms(TOMORROW)))
        phone.execute("DELETE FROM todo_tasks WHERE title IN (?, ?, ?)",
                      (params["title"], params["twin"], params["other"]))
        add_todo(phone, params["list"], params["twin"], due=TODAY + timedelta(days=params["twin_days"]))
        add_todo(phone, params["list"], params["title"], due=TOMORROW)
        other = next(n for n in ERRAND_LISTS if list_id(phone, n) != lid)
        add_todo(phone, other, params["other"], due=TOMORROW)  # due tomorrow, but on another list
        for t in (params["title"], params["twin"], params["other"]):
            phone.execute("DELETE FROM alarm_templates WHERE lower(label)=?", (t.lower(),))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = one_alarm_at(phone, params["title"], params["hour"], params["minute"]) and \
            not labelled(phone, params["twin"]) and not labelled(phone, params["other"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = look_first(phone, self.name, lambda: to_list(phone, obs, params["list"]) or (
            None if find(obs, resource_id="rowBody", text=params["title"]) is not None
            else click_or_scroll(phone, obs, resource_id="rowBody", text=params["title"])))
        if step is not None:
            return step
        return create_alarm(phone, obs, params["hour"], params["minute"], params["title"])


@register_task
class QueryNumberForPriorityCall(TaskTemplate):
    name = "multi_query_number_for_priority_call"
    apps = ("Tasks", "Contacts")
    kind = "query"
    complexity = 3
    optimal_steps = 10
    goal_template = ("My {list} list in Tasks has two \"Call ...\" to-dos. Which number should I dial for the one "
                     "with high priority? Answer with that person's phone number from Contacts.")
    goal_phrasings = (
        ("Of the two call tasks in my {list} list, the high-priority one matters now. What's the phone number of "
         "the person it names (from my contacts)?"),
        ("Look at my {list} list in Tasks: who does the high-priority \"Call ...\" task name, and what is their "
         "number in Contacts?"),
        ("I need the contact number of the person in my high-priority call task (Tasks, {list} list)."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (a1, a2), (b1, b2) = two_people(rng)
        return {"list": rng.choice(ERRAND_LISTS), "first": a1, "last": a2, "name": f"{a1} {a2}",
                "number": random_number(rng), "other_first": b1, "other_last": b2, "other_name": f"{b1} {b2}",
                "other_number": random_number(rng), "other_priority": rng.choice(("medium", "low"))}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for key, p in (("other", params["other_priority"]), ("", "high")):
            pre = key + "_" if key else ""
            title = f"Call {params[pre + 'name']}"
            phone.execute("DELETE FROM todo_tasks WHERE title=?", (title,))
            add_todo(phone, params["list"], title, priority=prio(p))
            remove_contacts_with_number(phone, params[pre + "number"])
            put_contact(phone, params[pre + "first"], params[pre + "last"], number=params[pre + "number"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = number_answer_matches(answer, params["number"]) and \
            not number_answer_matches(answer, params["other_number"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        title = f"Call {params['name']}"
        step = look_first(phone, self.name + ":task", lambda: to_list(phone, obs, params["list"]) or (
            None if find(obs, resource_id="rowBody", text=title) is not None
            else click_or_scroll(phone, obs, resource_id="rowBody", text=title))) or \
            to_detail(phone, obs, params["name"])
        if step is not None:
            return step
        return dismiss_popups(phone) or answer(params["number"])


BILLS = (("Electricity bill", "Pay electricity bill"), ("Water bill", "Pay water bill"))


@register_task
class CompleteBillTaskWithAmount(TaskTemplate):
    name = "multi_complete_bill_task_with_amount"
    apps = ("Expenses", "Tasks")
    complexity = 3
    optimal_steps = 10
    goal_template = ("I paid my {bill} and logged it in Expenses. In Tasks, write the amount I paid into the "
                     "description of \"{task}\" and mark that task as done.")
    goal_phrasings = (
        ("The {bill} is paid (it's in my Expenses app). Could you put the amount into the description of my to-do "
         "\"{task}\" and check it off?"),
        ("Close out \"{task}\" in Tasks: description = what the {bill} cost according to Expenses, then mark it "
         "done."),
        ("Because I've already paid the {bill}, mark \"{task}\" as done in Tasks, with the paid amount from "
         "Expenses written in its description."),
    )

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (expense, task), (other_expense, other_task) = rng.sample(BILLS, 2)
        cents, other_cents = rng.sample(range(2_000, 16_000), 2)
        return {"bill": expense.lower(), "expense": expense, "task": task, "cents": cents,
                "other_expense": other_expense, "other_task": other_task, "other_cents": other_cents,
                "list": rng.choice(ERRAND_LISTS), "days_ago": rng.randint(1, 4)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        day = (TODAY - timedelta(days=params["days_ago"])).isoformat()
        plant_expense(phone, params["other_expense"], params["other_cents"], "Bills", day)  # the other bill
        plant_expense(phone, params["expense"], params["cents"], "Bills", day)
        phone.execute("DELETE FROM todo_tasks WHERE title IN (?, ?)", (params["task"], params["other_task"]))
        due = TODAY + timedelta(days=3)
        add_todo(phone, params["list"], params["other_task"], due=due, priority=1)
        add_todo(phone, params["list"], params["task"], due=due, priority=1)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        added, removed, changed = task_diff(phone, self, params)
        ok = not added and not removed and len(changed) == 1 and lists_unchanged(phone, self, params)
        if ok:
            old, new = changed[0]
            ok = old[2] == params["task"] and old[:3] == new[:3] and old[4:6] == new[4:6] and new[6] == 1 and \
                money_matches(new[3], params["cents"]) and not money_matches(new[3], params["other_cents"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        row = phone.query_one("SELECT expense_id FROM expense WHERE name=?", (params["expense"],))
        if row is not None:
            step = look_first(phone, self.name, lambda: open_expense(phone, obs, row[0], params["expense"]))
            if step is not None:
                return step
        t = find_task(phone, params["task"])
        assert t is not None
        if not money_matches(t["notes"], params["cents"]) or money_matches(t["notes"], params["other_cents"]):
            return open_editor(phone, obs, t) or fill_editor(phone, obs, notes=f"${dollars(params['cents'])}")
        if t["completed"]:  # an earlier try completed it before the description was right: fixed now
            return COMPLETE
        return to_list(phone, obs, t["list"]) or click_or_scroll(phone, obs, desc=f"Mark {t['title']} as done")
