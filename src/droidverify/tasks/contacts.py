"""Contacts tasks: create (with type/email/company), edit number/email/type/name/company, clear an
email, fix a misspelt name, delete (one, two, a duplicate entry), favourites (one, a whole company,
clear all), and queries (a number, a work number, an email, an employer, whose number, head counts).

Set-ups insert the contacts a goal names (removing any seeded namesake first, so names are
unambiguous) plus a *decoy* sharing the first name; checkers require the decoy untouched, so
editing, starring or deleting the wrong person fails. Checkers read ``raw_contacts``/``data``.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar, NamedTuple

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim.apps.contacts import (
    COMPANIES,
    FIRST_NAMES,
    LAST_NAMES,
    MIME_EMAIL,
    MIME_NAME,
    MIME_ORG,
    MIME_PHONE,
    PHONE_TYPE_LABELS,
    PHONE_TYPES,
    add_contact,
    contact_for_number,
    contact_info,
    find_contacts,
    live_contacts,
    normalize_number,
    random_number,
    remove_contacts_named,
    remove_contacts_with_number,
)
from droidverify.env.sim.phone import Phone
from droidverify.errors import TaskError
from droidverify.tasks.base import TaskTemplate
from droidverify.tasks.helpers import (
    BACK,
    COMPLETE,
    answer,
    answer_matches,
    baseline_rows,
    click,
    click_or_scroll,
    diff_rows,
    dismiss_popups,
    find,
    find_all,
    look_first,
    navigate,
    normalize_answer,
    open_app,
    scroll_toward,
    type_into,
)
from droidverify.tasks.registry import register_task

APP = "contacts"
EMAIL_DOMAINS = ("gmail.com", "outlook.com", "yahoo.com", "example.org")


# ---- parameter helpers -----------------------------------------------------------------------------
def person(rng: random.Random) -> tuple[str, str]:
    return rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)


def two_people(rng: random.Random) -> tuple[tuple[str, str], tuple[str, str]]:
    """Two people with distinct full names and distinct first names."""
    a = person(rng)
    b = person(rng)
    while b[0] == a[0] or b[1] == a[1]:
        b = person(rng)
    return a, b


def decoy_of(rng: random.Random, first: str, last: str) -> str:
    """A last name for someone who shares ``first`` but is not the target."""
    other = rng.choice(LAST_NAMES)
    while other == last:
        other = rng.choice(LAST_NAMES)
    return other


def email_for(rng: random.Random, first: str, last: str) -> str:
    return f"{first.lower()}.{last.lower()}{rng.randint(1, 99)}@{rng.choice(EMAIL_DOMAINS)}"


def same_number(a: str | None, b: str | None) -> bool:
    na, nb = normalize_number(a), normalize_number(b)
    return bool(na) and na == nb


def number_answer_matches(answer_text: str | None, expected: str) -> bool:
    """A phone-number answer matches when its digits equal the expected digits (any formatting)."""
    if answer_text is None:
        return False
    import re

    want = normalize_number(expected)
    return any(normalize_number(chunk) == want for chunk in re.findall(r"[+\d][\d\s().-]{6,}\d", answer_text))


def put_contact(phone: Phone, first: str, last: str, **kw: Any) -> int:
    """Set-up: (re)create ``first last`` as the only contact of that name."""
    remove_contacts_named(phone, f"{first} {last}")
    return add_contact(phone, first, last, **kw)


def only(phone: Phone, name: str) -> dict[str, Any] | None:
    """The contact named ``name`` if exactly one live contact has that name."""
    ids = find_contacts(phone, name)
    return contact_info(phone, ids[0]) if len(ids) == 1 else None


def deleted_ids(phone: Phone) -> list[int]:
    return [r["_id"] for r in phone.query("SELECT _id FROM raw_contacts WHERE deleted=1")]


# ---- oracle helpers --------------------------------------------------------------------------------
def leave_edit(phone: Phone, obs: Observation) -> Action | None:
    """Confirm "Discard changes?" so BACK out of an edit form cannot loop."""
    dlg = phone.dialog
    if dlg is not None and dlg.app == APP and dlg.data.get("on_ok") == "discard":
        return click(obs, text="Discard")
    return None


def to_main(phone: Phone, obs: Observation) -> Action | None:
    return leave_edit(phone, obs) or navigate(phone, obs, APP, [("main", None)])


def to_detail(phone: Phone, obs: Observation, name: str) -> Action | None:
    """Next action toward ``name``'s detail screen (None once there, dialogs left to the caller)."""
    scr = phone.screen
    if phone.foreground == APP and scr is not None and scr.name == "detail":
        ids = find_contacts(phone, name)
        if scr.args.get("contact_id") in ids:
            return None
        return BACK  # another contact's page (or its dialog/menu)
    step = leave_edit(phone, obs)
    if step is not None:
        return step
    return navigate(phone, obs, APP, [("main", {"text": name, "resource_id": "contact_row"}), ("detail", None)])


def menu_item(phone: Phone, obs: Observation, label: str) -> Action:
    """Pick ``label`` from the ⋮ menu of the current screen (opening the menu first)."""
    if phone.menu_open:
        return click(obs, text=label) or BACK
    return click(obs, desc="More options") or BACK


def fill_form(phone: Phone, obs: Observation, values: dict[str, str], ptype: int | None) -> Action:
    """On the edit screen: type each differing field, set the phone type, then Save."""
    scr = phone.screen
    assert scr is not None
    rids = {"first": "first_name", "last": "last_name", "company": "company", "phone": "phone_number",
            "email": "email"}
    dlg = phone.dialog
    if dlg is not None and dlg.name == "choice" and ptype is not None:
        return click(obs, text=PHONE_TYPE_LABELS[ptype], class_contains="RadioButton") or BACK
    if dlg is not None or phone.menu_open:
        return BACK
    for key, value in values.items():
        if scr.fields.get(key, "") != value:
            if value:
                act = type_into(obs, value, resource_id=rids[key])
            else:
                i = obs.elements.index(next(e for e in obs.elements if e.is_editable and
                                            (e.resource_id or "").endswith(rids[key])))
                act = Action(action_type="clear_text", index=i)
            if act is not None:
                return act
    if ptype is not None and int(scr.state.get("ptype", 2)) != ptype:
        return click_or_scroll(phone, obs, resource_id="phone_type")
    return click_or_scroll(phone, obs, text="Save")


def edit_contact(phone: Phone, obs: Observation, name: str, values: dict[str, str],
                 ptype: int | None = None) -> Action:
    """Open ``name``'s edit form and apply ``values`` (form keys) and ``ptype``."""
    scr = phone.screen
    if (phone.foreground == APP and scr is not None and scr.name == "edit"
            and scr.args.get("contact_id") is not None and scr.args["contact_id"] in find_contacts(phone, name)):
        return fill_form(phone, obs, values, ptype)
    step = to_detail(phone, obs, name)
    if step is not None:
        return step
    if phone.dialog is not None or phone.menu_open:
        return BACK
    return click(obs, desc="Edit contact") or BACK


def create_contact(phone: Phone, obs: Observation, values: dict[str, str], ptype: int | None) -> Action:
    scr = phone.screen
    if phone.foreground == APP and scr is not None and scr.name == "edit" and scr.args.get("contact_id") is None:
        return fill_form(phone, obs, values, ptype)
    step = to_main(phone, obs)
    if step is not None:
        return step
    return click(obs, desc="Create contact") or BACK


# ---- templates -------------------------------------------------------------------------------------
class AddContactTemplate(TaskTemplate):
    apps = ("Contacts",)
    complexity = 1
    with_type: ClassVar[bool] = False
    with_email: ClassVar[bool] = False
    with_company: ClassVar[bool] = False

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first, last = person(rng)
        p: dict[str, Any] = {"first": first, "last": last, "name": f"{first} {last}", "number": random_number(rng),
                             "ptype": "Mobile"}
        if self.with_type:
            p["ptype"] = rng.choice(("Work", "Home"))
            p["ptype_lower"] = p["ptype"].lower()
        if self.with_email:
            p["email"] = email_for(rng, first, last)
        if self.with_company:
            p["company"] = rng.choice(COMPANIES)
        return p

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        remove_contacts_named(phone, params["name"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        c = only(phone, params["name"])
        if c is None or len(c["phones"]) != 1:
            return 0.0
        num, ptype = c["phones"][0]
        ok = same_number(num, params["number"]) and ptype == PHONE_TYPES[params["ptype"]]
        ok = ok and c["first"] == params["first"] and c["last"] == params["last"]
        if self.with_email:
            ok = ok and [e.lower() for e in c["emails"]] == [params["email"].lower()]
        if self.with_company:
            ok = ok and c["company"].lower() == params["company"].lower()
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        values = {"first": params["first"], "last": params["last"], "phone": params["number"]}
        if self.with_email:
            values["email"] = params["email"]
        if self.with_company:
            values["company"] = params["company"]
        return create_contact(phone, obs, values, PHONE_TYPES[params["ptype"]])


@register_task
class AddContact(AddContactTemplate):
    name = "contacts_add_contact"
    optimal_steps = 7
    goal_template = "Create a new contact named {name} with the phone number {number}."
    goal_phrasings = ("Add {name} to my contacts with the number {number}.",
                      "Could you save {number} as a new contact called {name}?",
                      "New contact: {name}, {number}")


@register_task
class AddContactTyped(AddContactTemplate):
    name = "contacts_add_contact_phone_type"
    complexity = 2
    with_type = True
    optimal_steps = 9
    goal_template = "Add a contact {name} whose {ptype_lower} phone number is {number}."
    goal_phrasings = ("Save {number} as {name}'s {ptype_lower} number in a new contact.",
                      "Could you create a contact called {name} with the {ptype_lower} phone {number}?",
                      "New contact {name}: {ptype_lower} number {number}")


@register_task
class AddContactEmail(AddContactTemplate):
    name = "contacts_add_contact_with_email"
    complexity = 2
    with_email = True
    optimal_steps = 8
    goal_template = "Add {name} to my contacts: phone {number}, email {email}."
    goal_phrasings = ("Create a contact named {name} with the phone number {number} and the email address {email}.",
                      "Could you save a new contact for {name}? Email {email}, phone {number}.",
                      "New contact: {name} / {number} / {email}")


@register_task
class AddContactCompany(AddContactTemplate):
    name = "contacts_add_contact_with_company"
    complexity = 2
    with_company = True
    optimal_steps = 8
    goal_template = "Save a new contact: {name}, who works at {company}, phone number {number}."
    goal_phrasings = ("Add {name} from {company} to my contacts with the number {number}.",
                      "Could you create a contact called {name}? Company: {company}, phone: {number}.",
                      "New contact {name} ({company}), {number}")


class ExistingContactTemplate(TaskTemplate):
    """A task about one contact that the set-up creates, next to a decoy with the same first name."""

    apps = ("Contacts",)
    start_starred: ClassVar[bool] = False

    def base_params(self, rng: random.Random) -> dict[str, Any]:
        first, last = person(rng)
        return {"first": first, "last": last, "name": f"{first} {last}", "number": random_number(rng),
                "decoy": f"{first} {decoy_of(rng, first, last)}", "decoy_number": random_number(rng)}

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return self.base_params(rng)

    def target_kwargs(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"number": params["number"], "starred": self.start_starred}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        first, last = params["decoy"].split(" ", 1)
        put_contact(phone, first, last, number=params["decoy_number"], starred=self.start_starred)
        put_contact(phone, params["first"], params["last"], **self.target_kwargs(params))

    def decoy_intact(self, phone: Phone, params: dict[str, Any]) -> bool:
        d = only(phone, params["decoy"])
        return (d is not None and len(d["phones"]) == 1 and same_number(d["phones"][0][0], params["decoy_number"])
                and d["starred"] == self.start_starred and not d["emails"])


@register_task
class EditPhone(ExistingContactTemplate):
    name = "contacts_edit_phone_number"
    complexity = 2
    optimal_steps = 9
    goal_template = "{name} has a new phone number: {new_number}. Update the contact."
    goal_phrasings = ("Change {name}'s phone number to {new_number}.",
                      "Could you update the number saved for {name} in Contacts? It's now {new_number}.",
                      "New number for {name}: {new_number}")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return dict(self.base_params(rng), new_number=random_number(rng))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        c = only(phone, params["name"])
        ok = c is not None and len(c["phones"]) == 1 and same_number(c["phones"][0][0], params["new_number"])
        return 1.0 if ok and self.decoy_intact(phone, params) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return edit_contact(phone, obs, params["name"], {"phone": params["new_number"]})


@register_task
class EditEmail(ExistingContactTemplate):
    name = "contacts_add_email_to_contact"
    complexity = 2
    optimal_steps = 10
    goal_template = "Add the email address {email} to the contact {name}."
    goal_phrasings = ("Could you save {email} as {name}'s email address?",
                      "{name}'s email is {email}. Put it on their contact.",
                      "Email for {name}: {email}")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base_params(rng)
        return dict(p, email=email_for(rng, p["first"], p["last"]))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        c = only(phone, params["name"])
        ok = c is not None and [e.lower() for e in c["emails"]] == [params["email"].lower()] and \
            len(c["phones"]) == 1 and same_number(c["phones"][0][0], params["number"])
        return 1.0 if ok and self.decoy_intact(phone, params) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return edit_contact(phone, obs, params["name"], {"email": params["email"]})


@register_task
class EditPhoneType(ExistingContactTemplate):
    name = "contacts_change_phone_type"
    complexity = 2
    optimal_steps = 11
    goal_template = "{name}'s number {number} is a {ptype_lower} number, not mobile. Change its label to {ptype}."
    goal_phrasings = ("Relabel {name}'s phone number {number} from Mobile to {ptype}; it's their {ptype_lower} line.",
                      ("Could you change the label on {number} in {name}'s contact to {ptype}? "
                       "That's a {ptype_lower} number."))

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        ptype = rng.choice(("Work", "Home"))
        return dict(self.base_params(rng), ptype=ptype, ptype_lower=ptype.lower())

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        c = only(phone, params["name"])
        ok = c is not None and len(c["phones"]) == 1 and same_number(c["phones"][0][0], params["number"]) and \
            c["phones"][0][1] == PHONE_TYPES[params["ptype"]]
        return 1.0 if ok and self.decoy_intact(phone, params) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return edit_contact(phone, obs, params["name"], {}, PHONE_TYPES[params["ptype"]])


@register_task
class RenameContact(ExistingContactTemplate):
    name = "contacts_change_last_name"
    complexity = 2
    optimal_steps = 9
    goal_template = "{name} changed their last name to {new_last}. Update the contact (keep the number)."
    goal_phrasings = ("Rename {name} in Contacts: the last name is now {new_last}. Don't change the phone number.",
                      "Could you update {name}'s last name to {new_last}? Keep their number as it is.",
                      "Last name change for {name}: {new_last}. Same number.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base_params(rng)
        new_last = rng.choice(LAST_NAMES)
        while new_last in (p["last"], p["decoy"].split(" ", 1)[1]):
            new_last = rng.choice(LAST_NAMES)
        return dict(p, new_last=new_last, new_name=f"{p['first']} {new_last}")

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        remove_contacts_named(phone, params["new_name"])
        super().setup(phone, params)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        c = only(phone, params["new_name"])
        ok = c is not None and not find_contacts(phone, params["name"]) and len(c["phones"]) == 1 and \
            same_number(c["phones"][0][0], params["number"]) and c["last"] == params["new_last"]
        return 1.0 if ok and self.decoy_intact(phone, params) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return edit_contact(phone, obs, params["name"], {"last": params["new_last"]})


def delete_step(phone: Phone, obs: Observation, name: str) -> Action:
    """Next action toward deleting ``name`` (detail -> ⋮ -> Delete -> confirm)."""
    dlg = phone.dialog
    if dlg is not None and dlg.data.get("on_ok") == "delete_contact":
        return click(obs, text="Delete") or BACK
    step = to_detail(phone, obs, name)
    if step is not None:
        return step
    if dlg is not None:
        return BACK
    return menu_item(phone, obs, "Delete")


@register_task
class DeleteContact(ExistingContactTemplate):
    name = "contacts_delete_contact"
    optimal_steps = 7
    goal_template = "Delete the contact {name}."
    goal_phrasings = ("Remove {name} from my contacts.",
                      "Could you delete {name}'s contact card?",
                      "I don't need {name} in Contacts anymore, delete them.")

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        gone = not find_contacts(phone, params["name"])
        return 1.0 if gone and len(deleted_ids(phone)) == 1 and self.decoy_intact(phone, params) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return delete_step(phone, obs, params["name"])


@register_task
class DeleteTwoContacts(TaskTemplate):
    name = "contacts_delete_two_contacts"
    apps = ("Contacts",)
    complexity = 2
    optimal_steps = 13
    goal_template = "Remove both {name_a} and {name_b} from my contacts."
    goal_phrasings = ("Delete the contacts {name_a} and {name_b}.",
                      "Could you get rid of {name_b} and {name_a} in Contacts?",
                      "Delete two contacts: {name_a}, {name_b}")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        a, b = two_people(rng)
        return {"name_a": " ".join(a), "name_b": " ".join(b), "num_a": random_number(rng),
                "num_b": random_number(rng)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for who in ("a", "b"):
            first, last = params[f"name_{who}"].split(" ", 1)
            put_contact(phone, first, last, number=params[f"num_{who}"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        gone = not find_contacts(phone, params["name_a"]) and not find_contacts(phone, params["name_b"])
        return 1.0 if gone and len(deleted_ids(phone)) == 2 else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        for key in ("name_a", "name_b"):
            if find_contacts(phone, params[key]):
                return delete_step(phone, obs, params[key])
        return COMPLETE


class StarTemplate(ExistingContactTemplate):
    want: ClassVar[bool]
    optimal_steps = 4

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        c = only(phone, params["name"])
        return 1.0 if c is not None and c["starred"] == self.want and self.decoy_intact(phone, params) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        step = to_detail(phone, obs, params["name"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return click(obs, desc="Add to favorites" if self.want else "Remove from favorites") or BACK


@register_task
class StarContact(StarTemplate):
    name = "contacts_add_to_favorites"
    optimal_steps = 6
    want, start_starred = True, False
    goal_template = "Add {name} to my favorite contacts."
    goal_phrasings = ("Star {name} in Contacts.",
                      "Could you mark {name} as a favorite?",
                      "Make {name} one of my favorites.")


@register_task
class UnstarContact(StarTemplate):
    name = "contacts_remove_from_favorites"
    optimal_steps = 7
    want, start_starred = False, True
    goal_template = "Remove {name} from my favorites."
    goal_phrasings = ("Unstar {name} in Contacts.",
                      "Could you take {name} off my favorite contacts?",
                      "{name} shouldn't be a favorite anymore.")


class ContactQuery(ExistingContactTemplate):
    kind = "query"
    optimal_steps = 4

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        raise NotImplementedError

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer_matches(answer, self.expected(phone, params)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_detail(phone, obs, params["name"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return answer(self.expected(phone, params))


@register_task
class QueryPhone(ContactQuery):
    name = "contacts_query_phone_number"
    optimal_steps = 7
    goal_template = "What is {name}'s phone number?"
    goal_phrasings = ("Look up {name} in Contacts and tell me their number.",
                      "Can you find the phone number I have saved for {name}?",
                      "{name}'s number?")

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        return params["number"]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if number_answer_matches(answer, params["number"]) else 0.0


@register_task
class QueryEmail(ContactQuery):
    name = "contacts_query_email"
    optimal_steps = 6
    goal_template = "What is the email address of {name}?"
    goal_phrasings = ("Tell me {name}'s email address.",
                      "Could you check Contacts for {name}'s email?",
                      "Email of {name}?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base_params(rng)
        return dict(p, email=email_for(rng, p["first"], p["last"]))

    def target_kwargs(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"number": params["number"], "email": params["email"]}

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        return params["email"]


@register_task
class QueryCompanyOf(ContactQuery):
    name = "contacts_query_company"
    optimal_steps = 6
    goal_template = "Which company does {name} work for?"
    goal_phrasings = ("Where does {name} work, according to my contacts?",
                      "Look up {name}'s employer in Contacts.",
                      "{name}'s company?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return dict(self.base_params(rng), company=rng.choice(COMPANIES))

    def target_kwargs(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"number": params["number"], "company": params["company"]}

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        return params["company"]


@register_task
class QueryCompanyCount(TaskTemplate):
    name = "contacts_query_company_count"
    apps = ("Contacts",)
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = "How many of my contacts work at {company}? Answer with a number."
    goal_phrasings = ("Count the contacts whose company is {company} and answer with the number.",
                      "Could you tell me how many people in Contacts are at {company}? Just the number.",
                      "Number of contacts at {company}?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"company": rng.choice(COMPANIES), "count": rng.randint(1, 5), "pick": rng.randint(0, 10 ** 6)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM data WHERE mimetype=? AND data1=?", (MIME_ORG, params["company"]))
        ids = [c["_id"] for c in live_contacts(phone)]
        for cid in random.Random(params["pick"]).sample(ids, params["count"]):
            phone.execute("DELETE FROM data WHERE mimetype=? AND raw_contact_id=?", (MIME_ORG, cid))
            phone.execute("INSERT INTO data(raw_contact_id, mimetype, data1) VALUES(?,?,?)",
                          (cid, MIME_ORG, params["company"]))

    def count(self, phone: Phone, company: str) -> int:
        return sum(1 for c in live_contacts(phone) if contact_info(phone, c["_id"])["company"] == company)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer_matches(answer, str(self.count(phone, params["company"]))) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = leave_edit(phone, obs) or navigate(phone, obs, APP, [("main", {"desc": "Search contacts"}),
                                                                    ("search", None)])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        scr = phone.screen
        assert scr is not None
        if scr.fields.get("query") != params["company"]:
            return type_into(obs, params["company"], resource_id="search_view") or BACK
        return answer(str(self.count(phone, params["company"])))


@register_task
class QueryFavoritesCount(TaskTemplate):
    name = "contacts_query_favorites_count"
    apps = ("Contacts",)
    kind = "query"
    complexity = 2
    optimal_steps = 8
    goal_template = "How many contacts are marked as favorites? Answer with a number."
    goal_phrasings = ("Count my starred contacts and tell me the number.",
                      "Could you check how many favorites I have in Contacts? Reply with a number.",
                      "Number of favorite contacts?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"count": rng.randint(2, 6), "pick": rng.randint(0, 10 ** 6)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("UPDATE raw_contacts SET starred=0")
        ids = [c["_id"] for c in live_contacts(phone)]
        for cid in random.Random(params["pick"]).sample(ids, params["count"]):
            phone.execute("UPDATE raw_contacts SET starred=1 WHERE _id=?", (cid,))

    def count(self, phone: Phone) -> int:
        return sum(1 for c in live_contacts(phone) if c["starred"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer_matches(answer, str(self.count(phone))) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_main(phone, obs)
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        scr = phone.screen
        assert scr is not None
        # read the whole list once: scroll down until the last contact is on screen
        last = live_contacts(phone)[-1]["display_name"]
        if click(obs, text=last, resource_id="contact_row") is None:
            return click_or_scroll(phone, obs, text=last, resource_id="contact_row")
        return answer(str(self.count(phone)))


# ---- more edits: company, clearing a field, a typo in a name ------------------------------------------
@register_task
class UpdateCompany(ExistingContactTemplate):
    name = "contacts_update_company"
    complexity = 2
    optimal_steps = 8
    goal_template = "{name} left {old_company} and now works at {new_company}. Update their contact."
    goal_phrasings = ("Change {name}'s company from {old_company} to {new_company}.",
                      "Could you update {name} in Contacts? They moved from {old_company} to {new_company}.",
                      "Company for {name} is now {new_company} (was {old_company}).")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        old, new = rng.sample(COMPANIES, 2)
        return dict(self.base_params(rng), old_company=old, new_company=new)

    def target_kwargs(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"number": params["number"], "company": params["old_company"]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # the namesake works at the old company too: "the one at Globex" does not tell them apart
        first, last = params["decoy"].split(" ", 1)
        put_contact(phone, first, last, number=params["decoy_number"], company=params["old_company"])
        put_contact(phone, params["first"], params["last"], **self.target_kwargs(params))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        c, d = only(phone, params["name"]), only(phone, params["decoy"])
        ok = c is not None and c["company"].lower() == params["new_company"].lower() and \
            len(c["phones"]) == 1 and same_number(c["phones"][0][0], params["number"])
        ok = ok and d is not None and d["company"] == params["old_company"] and \
            len(d["phones"]) == 1 and same_number(d["phones"][0][0], params["decoy_number"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return edit_contact(phone, obs, params["name"], {"company": params["new_company"]})


@register_task
class RemoveEmail(ExistingContactTemplate):
    name = "contacts_remove_email"
    complexity = 2
    optimal_steps = 8
    goal_template = "Remove the email address from {name}'s contact, but keep the phone number."
    goal_phrasings = ("Delete {name}'s email from Contacts; the number stays.",
                      "Could you clear the email on {name}'s contact? Don't touch the phone number.",
                      "Drop the email address from {name}, keep the phone.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base_params(rng)
        decoy_last = p["decoy"].split(" ", 1)[1]
        return dict(p, email=email_for(rng, p["first"], p["last"]), decoy_email=email_for(rng, p["first"], decoy_last))

    def target_kwargs(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"number": params["number"], "email": params["email"]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        first, last = params["decoy"].split(" ", 1)
        put_contact(phone, first, last, number=params["decoy_number"], email=params["decoy_email"])
        put_contact(phone, params["first"], params["last"], **self.target_kwargs(params))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        c, d = only(phone, params["name"]), only(phone, params["decoy"])
        ok = c is not None and not c["emails"] and len(c["phones"]) == 1 and \
            same_number(c["phones"][0][0], params["number"])
        ok = ok and d is not None and d["emails"] == [params["decoy_email"]] and \
            len(d["phones"]) == 1 and same_number(d["phones"][0][0], params["decoy_number"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return edit_contact(phone, obs, params["name"], {"email": ""})


def misspell(rng: random.Random, word: str) -> str:
    """A plausible typo of ``word`` (a letter dropped, doubled or two swapped) that is no real first name."""
    while True:
        i = rng.randrange(1, len(word) - 1)
        how = rng.choice(("drop", "double", "swap"))
        if how == "drop":
            typo = word[:i] + word[i + 1:]
        elif how == "double":
            typo = word[:i] + word[i] + word[i:]
        else:
            typo = word[:i] + word[i + 1] + word[i] + word[i + 2:]
        if typo != word and typo not in FIRST_NAMES:
            return typo


@register_task
class FixFirstNameTypo(TaskTemplate):
    name = "contacts_fix_first_name_typo"
    apps = ("Contacts",)
    complexity = 2
    optimal_steps = 8
    goal_template = "I saved {name} as \"{wrong_name}\" by mistake. Fix the spelling of the first name."
    goal_phrasings = ("The contact \"{wrong_name}\" is misspelled; it should be {name}. Please correct it.",
                      "Could you rename \"{wrong_name}\" to {name} in my contacts? I typed the first name wrong.",
                      "Typo in Contacts: \"{wrong_name}\" should read {name}.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first, last = person(rng)
        while len(first) < 4:  # short names have no middle letter to get wrong
            first, last = person(rng)
        wrong = misspell(rng, first)
        decoy = f"{first} {decoy_of(rng, first, last)}"
        return {"first": first, "last": last, "name": f"{first} {last}", "wrong_first": wrong,
                "wrong_name": f"{wrong} {last}", "number": random_number(rng), "decoy": decoy,
                "decoy_number": random_number(rng)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # a correctly spelt namesake stays as it is; only the misspelt entry changes
        remove_contacts_named(phone, params["name"])
        first, last = params["decoy"].split(" ", 1)
        put_contact(phone, first, last, number=params["decoy_number"])
        put_contact(phone, params["wrong_first"], params["last"], number=params["number"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        c, d = only(phone, params["name"]), only(phone, params["decoy"])
        ok = c is not None and c["first"] == params["first"] and c["last"] == params["last"] and \
            not find_contacts(phone, params["wrong_name"]) and len(c["phones"]) == 1 and \
            same_number(c["phones"][0][0], params["number"])
        ok = ok and d is not None and len(d["phones"]) == 1 and same_number(d["phones"][0][0], params["decoy_number"])
        return 1.0 if ok and not deleted_ids(phone) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return edit_contact(phone, obs, params["wrong_name"], {"first": params["first"]})


# ---- two entries with one name: tell them apart by number ----------------------------------------
def to_search(phone: Phone, obs: Observation, query: str) -> Action | None:
    """Next action toward the search screen showing results for ``query`` (None once there)."""
    step = leave_edit(phone, obs) or navigate(phone, obs, APP, [("main", {"desc": "Search contacts"}),
                                                                ("search", None)])
    if step is not None:
        return step
    if phone.dialog is not None or phone.menu_open:
        return BACK
    scr = phone.screen
    assert scr is not None
    if scr.fields.get("query") != query:
        return type_into(obs, query, resource_id="search_view") or BACK
    return None


def open_result(phone: Phone, obs: Observation, name: str, cid: int) -> Action:
    """On search results: open contact ``cid``, the k-th of the rows called ``name`` (rows keep list order)."""
    k = find_contacts(phone, name).index(cid)
    rows = find_all(obs, text=name, resource_id="contact_row")
    if k < len(rows):
        return Action(action_type="click", index=rows[k])
    return scroll_toward(phone, obs, text=name, resource_id="contact_row") or BACK


@register_task
class DeleteDuplicate(TaskTemplate):
    name = "contacts_delete_duplicate_contact"
    apps = ("Contacts",)
    complexity = 3
    optimal_steps = 8
    goal_template = ("I have {name} saved twice. Delete the entry with the old number {old_number} "
                     "and keep the one with {number}.")
    goal_phrasings = (("There are two contacts called {name}. Remove the one with {old_number}; "
                       "the one with {number} is current."),
                      ("Could you delete the duplicate {name} contact whose number is {old_number}? "
                       "Keep the entry with {number}."),
                      "Duplicate {name}: delete {old_number}, keep {number}.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first, last = person(rng)
        return {"first": first, "last": last, "name": f"{first} {last}", "number": random_number(rng),
                "old_number": random_number(rng), "old_first": rng.random() < 0.5}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        remove_contacts_named(phone, params["name"])
        # which entry was saved first decides which row comes first in the list; both orders occur
        numbers = [params["old_number"], params["number"]]
        for number in numbers if params["old_first"] else numbers[::-1]:
            add_contact(phone, params["first"], params["last"], number=number)

    def entry(self, phone: Phone, params: dict[str, Any], key: str) -> int | None:
        for cid in find_contacts(phone, params["name"]):
            phones = contact_info(phone, cid)["phones"]
            if phones and same_number(phones[0][0], params[key]):
                return cid
        return None

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        c = only(phone, params["name"])
        ok = c is not None and len(c["phones"]) == 1 and same_number(c["phones"][0][0], params["number"])
        return 1.0 if ok and len(deleted_ids(phone)) == 1 else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        dlg = phone.dialog
        if dlg is not None and dlg.data.get("on_ok") == "delete_contact":
            return click(obs, text="Delete") or BACK
        old = self.entry(phone, params, "old_number")
        if old is None:
            raise TaskError("oracle: the entry with the old number is gone but the task is not done")
        scr = phone.screen
        if phone.foreground == APP and scr is not None and scr.name == "detail":
            if scr.args.get("contact_id") == old and dlg is None:
                return menu_item(phone, obs, "Delete")
            return BACK  # the entry to keep (or a popup over the right one)
        step = to_search(phone, obs, params["name"])
        if step is not None:
            return step
        return open_result(phone, obs, params["name"], old)


# ---- several contacts at once -------------------------------------------------------------------------
@register_task
class ClearFavorites(TaskTemplate):
    name = "contacts_clear_favorites"
    apps = ("Contacts",)
    complexity = 2
    optimal_steps = 12
    goal_template = "Remove everyone from my favorites in Contacts."
    goal_phrasings = ("Unstar all of my favorite contacts.",
                      "Could you clear my favorites list? Nobody should be starred anymore.",
                      "Empty my Contacts favorites.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"count": rng.randint(2, 4), "pick": rng.randint(0, 10 ** 6)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("UPDATE raw_contacts SET starred=0")
        ids = [c["_id"] for c in live_contacts(phone)]
        for cid in random.Random(params["pick"]).sample(ids, params["count"]):
            phone.execute("UPDATE raw_contacts SET starred=1 WHERE _id=?", (cid,))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        # deleting a favourite also empties the list, but is not what was asked
        starred = [c for c in live_contacts(phone) if c["starred"]]
        return 1.0 if not starred and not deleted_ids(phone) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        starred = [c for c in live_contacts(phone) if c["starred"]]
        if not starred:
            return COMPLETE
        scr = phone.screen
        ids = {c["_id"] for c in starred}
        on_fav = phone.foreground == APP and scr is not None and scr.name == "detail" and \
            scr.args.get("contact_id") in ids
        if not on_fav:
            return to_detail(phone, obs, starred[0]["display_name"]) or BACK
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return click(obs, desc="Remove from favorites") or BACK


@register_task
class FavoriteColleagues(TaskTemplate):
    name = "contacts_favorite_company_colleagues"
    apps = ("Contacts",)
    complexity = 3
    optimal_steps = 10
    goal_template = "Add everyone who works at {company} to my favorites."
    goal_phrasings = ("Star all my contacts from {company}.",
                      "Could you mark every {company} contact as a favorite?",
                      "Favorites: all the people at {company}.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"company": rng.choice(COMPANIES), "count": rng.randint(2, 3), "pick": rng.randint(0, 10 ** 6)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM data WHERE mimetype=? AND data1=?", (MIME_ORG, params["company"]))
        ids = [c["_id"] for c in live_contacts(phone)]
        for cid in random.Random(params["pick"]).sample(ids, params["count"]):
            phone.execute("DELETE FROM data WHERE mimetype=? AND raw_contact_id=?", (MIME_ORG, cid))
            phone.execute("INSERT INTO data(raw_contact_id, mimetype, data1) VALUES(?,?,?)",
                          (cid, MIME_ORG, params["company"]))
            phone.execute("UPDATE raw_contacts SET starred=0 WHERE _id=?", (cid,))

    def colleagues(self, phone: Phone, company: str) -> list[Any]:
        return [c for c in live_contacts(phone) if contact_info(phone, c["_id"])["company"] == company]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        team = self.colleagues(phone, params["company"])
        if len(team) != params["count"] or not all(c["starred"] for c in team):
            return 0.0
        # everybody else keeps the favourite flag they started with (nobody starred by mistake)
        before = dict(baseline_rows(phone, self, params, "SELECT _id, starred FROM raw_contacts WHERE deleted=0"))
        now = {r["_id"]: r["starred"] for r in live_contacts(phone)}
        team_ids = {c["_id"] for c in team}
        ok = set(now) == set(before) and all(now[i] == before[i] for i in now if i not in team_ids)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        todo = [c for c in self.colleagues(phone, params["company"]) if not c["starred"]]
        if not todo:
            return COMPLETE
        scr = phone.screen
        if phone.foreground == APP and scr is not None and scr.name == "detail" and \
                scr.args.get("contact_id") in {c["_id"] for c in todo}:
            if phone.dialog is not None or phone.menu_open:
                return BACK
            return click(obs, desc="Add to favorites") or BACK
        step = to_search(phone, obs, params["company"])
        if step is not None:
            return step
        return open_result(phone, obs, todo[0]["display_name"], todo[0]["_id"])


# ---- more questions -----------------------------------------------------------------------------------
def similar_number(rng: random.Random, number: str) -> str:
    """Same area code and exchange as ``number``, other last four digits (a near-miss number)."""
    d = normalize_number(number)
    last = (int(d[6:]) + rng.randint(1, 9)) % 10000
    return f"({d[:3]}) {d[3:6]}-{last:04d}"


@register_task
class QueryNameByNumber(TaskTemplate):
    name = "contacts_query_name_by_number"
    apps = ("Contacts",)
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = "Whose number is {number}? Answer with the contact's name."
    goal_phrasings = ("Which of my contacts has the phone number {number}? Tell me their name.",
                      "Could you look up who {number} belongs to in Contacts?",
                      "Name for {number}?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (a1, a2), (b1, b2) = two_people(rng)
        number = random_number(rng)
        return {"name": f"{a1} {a2}", "number": number, "decoy": f"{b1} {b2}",
                "decoy_number": similar_number(rng, number)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for key, num in (("decoy", "decoy_number"), ("name", "number")):
            remove_contacts_with_number(phone, params[num])
            remove_contacts_named(phone, params[key])
        for key, num in (("decoy", "decoy_number"), ("name", "number")):
            first, last = params[key].split(" ", 1)
            put_contact(phone, first, last, number=params[num])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = answer_matches(answer, params["name"]) and not answer_matches(answer, params["decoy"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return to_search(phone, obs, params["number"]) or answer(params["name"])


@register_task
class QueryWorkNumber(ContactQuery):
    name = "contacts_query_work_number"
    complexity = 2
    optimal_steps = 6
    goal_template = "What is {name}'s work phone number?"
    goal_phrasings = ("Tell me the work number I have saved for {name}.",
                      "Could you find {name}'s office phone number in Contacts?",
                      "{name}'s work number?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base_params(rng)
        return dict(p, work_number=similar_number(rng, p["number"]) if rng.random() < 0.5 else random_number(rng))

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        super().setup(phone, params)
        # a second number, labelled Work, listed under the mobile one on the detail screen
        cid = find_contacts(phone, params["name"])[0]
        phone.execute("INSERT INTO data(raw_contact_id, mimetype, data1, data2) VALUES(?,?,?,?)",
                      (cid, MIME_PHONE, params["work_number"], PHONE_TYPES["Work"]))

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        return params["work_number"]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = number_answer_matches(answer, params["work_number"]) and not number_answer_matches(answer,
                                                                                                params["number"])
        return 1.0 if ok else 0.0


# ---- nameless entries, moving and merging details, bulk by company, number look-ups ---------------
def nameless(phone: Phone) -> list[Any]:
    """Live contacts saved without a first or last name (the list shows just their number)."""
    infos = ((c, contact_info(phone, c["_id"])) for c in live_contacts(phone))
    return [c for c, info in infos if not (info["first"] or info["last"])]


def add_nameless(phone: Phone, number: str) -> int:
    """Set-up: a contact saved with only a phone number (no other contact keeps that number)."""
    remove_contacts_with_number(phone, number)
    return add_contact(phone, "", "", number=number)


def starred_map(phone: Phone) -> dict[int, int]:
    return {r["_id"]: r["starred"] for r in live_contacts(phone)}


def stars_wrong(phone: Phone, template: TaskTemplate, params: dict[str, Any], want: dict[int, int]) -> list[Any]:
    """Live contacts whose star differs from the start (``want`` overrides it for the targets)."""
    before = dict(baseline_rows(phone, template, params, "SELECT _id, starred FROM raw_contacts WHERE deleted=0"))
    return [c for c in live_contacts(phone) if c["starred"] != want.get(c["_id"], before.get(c["_id"], c["starred"]))]


def fix_stars(phone: Phone, obs: Observation, wrong: list[Any]) -> Action:
    """Toggle the star of the first contact in ``wrong`` (reached through search by name)."""
    c = wrong[0]
    step = leave_edit(phone, obs) or to_entry(phone, obs, c["display_name"], c["_id"])
    if step is not None:
        return step
    if phone.dialog is not None or phone.menu_open:
        return BACK
    return click(obs, desc="Remove from favorites" if c["starred"] else "Add to favorites") or BACK


def people(rng: random.Random, n: int) -> list[tuple[str, str]]:
    """``n`` people whose first names differ and whose last names differ."""
    out: list[tuple[str, str]] = []
    while len(out) < n:
        p = person(rng)
        if all(p[0] != q[0] and p[1] != q[1] for q in out):
            out.append(p)
    return out


def to_entry(phone: Phone, obs: Observation, name: str, cid: int, query: str | None = None) -> Action | None:
    """Next action toward the detail screen of contact ``cid`` (called ``name``), found through a search
    for ``query`` (default: the name); None once there. Dialogs and menus are left to the caller."""
    scr = phone.screen
    if phone.foreground == APP and scr is not None and scr.name == "detail":
        return None if scr.args.get("contact_id") == cid else BACK
    step = to_search(phone, obs, query or name)
    if step is not None:
        return step
    return open_result(phone, obs, name, cid)


def read_detail(phone: Phone, obs: Observation, name: str) -> Action | None:
    """Next action toward ``name``'s detail page, with nothing over it; None once it is on screen.
    Oracles go there to read a value before they use it. The row is tapped when the list shows it,
    else found by searching the name (shorter than scrolling the whole list)."""
    ids = find_contacts(phone, name)
    if not ids:
        raise TaskError(f"oracle: no contact named {name!r} to read")
    scr = phone.screen
    if (phone.foreground == APP and scr is not None and scr.name == "main" and phone.dialog is None
            and not phone.menu_open and find(obs, text=name, resource_id="contact_row") is not None):
        return to_detail(phone, obs, name)
    return leave_edit(phone, obs) or to_entry(phone, obs, name, ids[0]) or dismiss_popups(phone)


def confirm_delete_of(phone: Phone, obs: Observation, ids: set[int]) -> Action | None:
    """On a "Delete this contact?" dialog: confirm when it is about one of ``ids``, else cancel."""
    dlg = phone.dialog
    if dlg is not None and dlg.data.get("on_ok") == "delete_contact":
        if dlg.data.get("args", {}).get("contact_id") in ids:
            return click(obs, text="Delete") or BACK
        return BACK
    return None


def put_company(phone: Phone, cid: int, company: str) -> None:
    phone.execute("DELETE FROM data WHERE mimetype=? AND raw_contact_id=?", (MIME_ORG, cid))
    phone.execute("INSERT INTO data(raw_contact_id, mimetype, data1) VALUES(?,?,?)", (cid, MIME_ORG, company))


def with_company(phone: Phone, company: str) -> list[Any]:
    return [c for c in live_contacts(phone) if contact_info(phone, c["_id"])["company"] == company]


@register_task
class DeleteNamelessNumbers(TaskTemplate):
    name = "contacts_delete_nameless_numbers"
    apps = ("Contacts",)
    complexity = 2
    optimal_steps = 12
    goal_template = "Delete every contact that has no name and is saved only as a phone number."
    goal_phrasings = ("Clean up my contacts: remove all the entries that show just a number instead of a name.",
                      "Could you delete the unnamed contacts (the ones listed only by their phone number)?",
                      "Get rid of every nameless, number-only contact in Contacts.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"numbers": [random_number(rng) for _ in range(rng.randint(2, 3))]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for number in params["numbers"]:
            add_nameless(phone, number)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        gone = deleted_ids(phone)
        ok = not nameless(phone) and len(gone) == len(params["numbers"])
        # only the nameless entries were deleted (none given a name instead, no named contact removed)
        ok = ok and all(not (contact_info(phone, i)["first"] or contact_info(phone, i)["last"]) for i in gone)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        todo = nameless(phone)
        if not todo:
            return COMPLETE
        ids = {c["_id"] for c in todo}
        step = confirm_delete_of(phone, obs, ids)
        if step is not None:
            return step
        scr = phone.screen
        if phone.foreground == APP and scr is not None and scr.name == "detail" and scr.args.get("contact_id") in ids:
            if phone.dialog is not None:
                return BACK
            return menu_item(phone, obs, "Delete")
        return to_detail(phone, obs, todo[0]["display_name"]) or BACK


@register_task
class NameUnknownNumber(TaskTemplate):
    name = "contacts_name_number_only_contact"
    apps = ("Contacts",)
    complexity = 2
    optimal_steps = 7
    goal_template = "The contact saved only as the number {number} is {name}. Add that name to it."
    goal_phrasings = ("I have an unnamed contact with the number {number}; it's {name}. Please name it.",
                      "Could you give the number-only contact {number} the name {name}? Keep it as one contact.",
                      "{number} in my contacts has no name. It belongs to {name}.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first, last = person(rng)
        number = random_number(rng)
        return {"first": first, "last": last, "name": f"{first} {last}", "number": number,
                "decoy_number": similar_number(rng, number)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        remove_contacts_named(phone, params["name"])
        add_nameless(phone, params["decoy_number"])  # a look-alike unnamed number that stays as it is
        add_nameless(phone, params["number"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        c = only(phone, params["name"])
        ok = c is not None and c["first"] == params["first"] and c["last"] == params["last"] and \
            len(c["phones"]) == 1 and same_number(c["phones"][0][0], params["number"])
        rest = nameless(phone)
        ok = ok and len(rest) == 1 and same_number(contact_info(phone, rest[0]["_id"])["phones"][0][0],
                                                   params["decoy_number"])
        return 1.0 if ok and not deleted_ids(phone) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return edit_contact(phone, obs, params["number"], {"first": params["first"], "last": params["last"]})


@register_task
class MoveEmail(TaskTemplate):
    name = "contacts_move_email_to_other_contact"
    apps = ("Contacts",)
    complexity = 3
    optimal_steps = 14
    goal_template = ("I put the email {email} on {name_a}'s contact by mistake; it belongs to {name_b}. "
                     "Move it to {name_b}'s contact.")
    goal_phrasings = ("Move the email address {email} from {name_a} to {name_b} in Contacts.",
                      ("Could you fix my contacts? {email} is {name_b}'s email, not {name_a}'s: take it off "
                       "{name_a} and add it to {name_b}."),
                      "{email} is saved under {name_a} but it's {name_b}'s. Please move it over.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (a1, a2), (b1, b2) = two_people(rng)
        return {"name_a": f"{a1} {a2}", "name_b": f"{b1} {b2}", "num_a": random_number(rng),
                "num_b": random_number(rng), "email": email_for(rng, b1, b2)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for who in ("a", "b"):
            first, last = params[f"name_{who}"].split(" ", 1)
            put_contact(phone, first, last, number=params[f"num_{who}"],
                        email=params["email"] if who == "a" else None)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        a, b = only(phone, params["name_a"]), only(phone, params["name_b"])
        if a is None or b is None or deleted_ids(phone):
            return 0.0
        ok = not a["emails"] and [e.lower() for e in b["emails"]] == [params["email"].lower()]
        ok = ok and all(len(c["phones"]) == 1 and same_number(c["phones"][0][0], params[k])
                        for c, k in ((a, "num_a"), (b, "num_b")))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        b = only(phone, params["name_b"])
        if b is not None and [e.lower() for e in b["emails"]] != [params["email"].lower()]:
            return edit_contact(phone, obs, params["name_b"], {"email": params["email"]})
        return edit_contact(phone, obs, params["name_a"], {"email": ""})


@register_task
class MergeSplitEntries(TaskTemplate):
    name = "contacts_merge_split_entries"
    apps = ("Contacts",)
    complexity = 3
    optimal_steps = 13
    goal_template = ("{name} is saved twice: one entry has only the phone number, the other only the email. "
                     "Merge them into a single {name} contact with both.")
    goal_phrasings = (("I have two {name} contacts, one with just the number and one with just the email. "
                       "Combine them so one contact has both and the other is gone."),
                      ("Could you merge my two entries for {name}? Keep one contact that has the number "
                       "and the email, and delete the leftover."),
                      "Two half-filled {name} contacts (number / email): merge into one.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first, last = person(rng)
        return {"first": first, "last": last, "name": f"{first} {last}", "number": random_number(rng),
                "email": email_for(rng, first, last), "phone_first": rng.random() < 0.5}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        remove_contacts_named(phone, params["name"])
        entries = [{"number": params["number"]}, {"email": params["email"]}]
        for kw in entries if params["phone_first"] else entries[::-1]:
            add_contact(phone, params["first"], params["last"], **kw)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        c = only(phone, params["name"])
        ok = c is not None and len(c["phones"]) == 1 and same_number(c["phones"][0][0], params["number"]) and \
            [e.lower() for e in c["emails"]] == [params["email"].lower()]
        return 1.0 if ok and len(deleted_ids(phone)) == 1 else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        ids = find_contacts(phone, params["name"])
        infos = [contact_info(phone, i) for i in ids]
        keep = next((c for c in infos if c["phones"]), infos[0])
        scr = phone.screen
        if keep["emails"] != [params["email"]] or not keep["phones"]:
            # 1. put the missing detail on the entry that keeps living
            if phone.foreground == APP and scr is not None and scr.name == "edit" and \
                    scr.args.get("contact_id") == keep["id"]:
                values = {"email": params["email"], "phone": keep["phones"][0][0] if keep["phones"]
                          else params["number"]}
                return fill_form(phone, obs, values, None)
            step = leave_edit(phone, obs) or to_entry(phone, obs, params["name"], keep["id"])
            if step is not None:
                return step
            if phone.dialog is not None or phone.menu_open:
                return BACK
            return click(obs, desc="Edit contact") or BACK
        # 2. delete the other entry
        others = {c["id"] for c in infos if c["id"] != keep["id"]}
        step = confirm_delete_of(phone, obs, others)
        if step is not None:
            return step
        step = leave_edit(phone, obs) or to_entry(phone, obs, params["name"], min(others))
        if step is not None:
            return step
        if phone.dialog is not None:
            return BACK
        return menu_item(phone, obs, "Delete")


@register_task
class DeleteCompanyExcept(TaskTemplate):
    name = "contacts_delete_company_contacts_except_one"
    apps = ("Contacts",)
    complexity = 3
    optimal_steps = 14
    goal_template = ("I've left {company}. Delete all my contacts who work at {company}, except {keep}, "
                     "who is still a friend.")
    goal_phrasings = ("Remove everyone from {company} from my contacts, but keep {keep}.",
                      ("Could you delete the {company} people in Contacts? Only {keep} should stay; "
                       "the other {company} contacts can go."),
                      "Delete all {company} contacts except {keep}.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        team = [f"{f} {la}" for f, la in people(rng, rng.randint(3, 4))]
        return {"company": rng.choice(COMPANIES), "team": team, "keep": rng.choice(team),
                "numbers": [random_number(rng) for _ in team]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM data WHERE mimetype=? AND data1=?", (MIME_ORG, params["company"]))
        for name, number in zip(params["team"], params["numbers"], strict=True):
            first, last = name.split(" ", 1)
            put_contact(phone, first, last, number=number, company=params["company"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        left = [c["display_name"] for c in with_company(phone, params["company"])]
        ok = left == [params["keep"]] and len(deleted_ids(phone)) == len(params["team"]) - 1
        ok = ok and all(not find_contacts(phone, n) for n in params["team"] if n != params["keep"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        todo = [c for c in with_company(phone, params["company"]) if c["display_name"] != params["keep"]]
        if not todo:
            return COMPLETE
        ids = {c["_id"] for c in todo}
        step = confirm_delete_of(phone, obs, ids)
        if step is not None:
            return step
        scr = phone.screen
        if phone.foreground == APP and scr is not None and scr.name == "detail" and scr.args.get("contact_id") in ids:
            if phone.dialog is not None:
                return BACK
            return menu_item(phone, obs, "Delete")
        return to_entry(phone, obs, todo[0]["display_name"], todo[0]["_id"], params["company"]) or BACK


@register_task
class StarByNumber(TaskTemplate):
    name = "contacts_favorite_by_phone_number"
    apps = ("Contacts",)
    complexity = 2
    optimal_steps = 6
    goal_template = "Add whoever has the phone number {number} to my favorites."
    goal_phrasings = ("Star the contact whose number is {number}.",
                      "Could you find the contact with the phone number {number} and mark them as a favorite?",
                      "Favorite the person with number {number}.")

    # the same owner and look-alike-number decoy as the number lookup
    generate_params = QueryNameByNumber.generate_params
    setup = QueryNameByNumber.setup

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        c = only(phone, params["name"])
        if c is None or not c["starred"]:
            return 0.0
        before = dict(baseline_rows(phone, self, params, "SELECT _id, starred FROM raw_contacts WHERE deleted=0"))
        now = starred_map(phone)
        ok = set(now) == set(before) and all(now[i] == before[i] for i in now if i != c["id"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        cid = find_contacts(phone, params["name"])[0]
        if contact_info(phone, cid)["starred"]:  # done, but another star changed on the way: put it back
            return fix_stars(phone, obs, stars_wrong(phone, self, params, {cid: 1}))
        step = leave_edit(phone, obs) or to_entry(phone, obs, params["name"], cid, params["number"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return click(obs, desc="Add to favorites") or BACK


@register_task
class SwapFavorite(TaskTemplate):
    name = "contacts_swap_favorite"
    apps = ("Contacts",)
    complexity = 2
    optimal_steps = 10
    goal_template = "Replace {old} with {new} in my favorites: unstar {old} and star {new}."
    goal_phrasings = ("{new} should take {old}'s place in my favorite contacts.",
                      "Could you swap a favorite for me? Take {old} off my favorites and add {new}.",
                      "Favorites: out with {old}, in with {new}.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (a1, a2), (b1, b2) = two_people(rng)
        return {"old": f"{a1} {a2}", "new": f"{b1} {b2}", "old_number": random_number(rng),
                "new_number": random_number(rng)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for key, starred in (("old", True), ("new", False)):
            first, last = params[key].split(" ", 1)
            put_contact(phone, first, last, number=params[f"{key}_number"], starred=starred)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        old, new = only(phone, params["old"]), only(phone, params["new"])
        if old is None or new is None or old["starred"] or not new["starred"]:
            return 0.0
        before = dict(baseline_rows(phone, self, params, "SELECT _id, starred FROM raw_contacts WHERE deleted=0"))
        now = starred_map(phone)
        ok = set(now) == set(before) and all(now[i] == before[i] for i in now if i not in (old["id"], new["id"]))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        old, new = only(phone, params["old"]), only(phone, params["new"])
        if old is not None and new is not None and not old["starred"] and new["starred"]:
            return fix_stars(phone, obs, stars_wrong(phone, self, params, {old["id"]: 0, new["id"]: 1}))
        name, want = (params["old"], False) if old is not None and old["starred"] else (params["new"], True)
        step = to_detail(phone, obs, name)
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return click(obs, desc="Add to favorites" if want else "Remove from favorites") or BACK


# ---- queries ------------------------------------------------------------------------------------------
def initial_of(name: str) -> str:
    return name[:1].upper() if name[:1].isalpha() else "#"


INITIALS = sorted({n[0] for n in FIRST_NAMES})


@register_task
class QueryLetterCount(TaskTemplate):
    name = "contacts_query_count_by_initial"
    apps = ("Contacts",)
    kind = "query"
    complexity = 2
    optimal_steps = 6
    goal_template = "How many of my contacts have a name starting with the letter {letter}? Answer with a number."
    goal_phrasings = ("Count the contacts listed under {letter} in Contacts and tell me the number.",
                      "Could you check how many people in my contacts have names beginning with {letter}?",
                      "Number of contacts under the letter {letter}?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        letter = rng.choice(INITIALS)
        firsts = [n for n in FIRST_NAMES if n[0] == letter]
        added = []
        for _ in range(rng.randint(1, 2)):
            added.append(f"{rng.choice(firsts)} {rng.choice(LAST_NAMES)}")
        return {"letter": letter, "added": sorted(set(added)), "numbers": [random_number(rng) for _ in added]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for name, number in zip(params["added"], params["numbers"], strict=False):
            first, last = name.split(" ", 1)
            put_contact(phone, first, last, number=number)

    def count(self, phone: Phone, letter: str) -> int:
        return sum(1 for c in live_contacts(phone) if initial_of(c["display_name"]) == letter)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer_matches(answer, str(self.count(phone, params["letter"]))) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_main(phone, obs)
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        group = [c["display_name"] for c in live_contacts(phone) if initial_of(c["display_name"]) == params["letter"]]
        if find(obs, text=group[-1], resource_id="contact_row") is None:  # read down to the group's end
            return click_or_scroll(phone, obs, text=group[-1], resource_id="contact_row")
        return answer(str(self.count(phone, params["letter"])))


@register_task
class QueryPhoneCount(ExistingContactTemplate):
    name = "contacts_query_how_many_numbers"
    kind = "query"
    complexity = 1
    optimal_steps = 7
    goal_template = "How many phone numbers do I have saved for {name}? Answer with a number."
    goal_phrasings = ("Count the phone numbers on {name}'s contact and tell me how many there are.",
                      "Could you check how many different numbers {name} has in my contacts?",
                      "Number of phone numbers for {name}?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base_params(rng)
        extra = [[random_number(rng), rng.choice((1, 3, 7))] for _ in range(rng.randint(0, 2))]
        return dict(p, extra=extra, decoy_extra=[[random_number(rng), 3]] if not extra else [])

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        super().setup(phone, params)
        for key, extra in (("name", "extra"), ("decoy", "decoy_extra")):
            cid = find_contacts(phone, params[key])[0]
            for number, ptype in params[extra]:
                phone.execute("INSERT INTO data(raw_contact_id, mimetype, data1, data2) VALUES(?,?,?,?)",
                              (cid, MIME_PHONE, number, ptype))

    def count(self, phone: Phone, params: dict[str, Any]) -> int:
        c = only(phone, params["name"])
        return len(c["phones"]) if c else -1

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer_matches(answer, str(self.count(phone, params))) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_detail(phone, obs, params["name"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        c = only(phone, params["name"])
        assert c is not None
        last = c["phones"][-1][0]
        if find(obs, text=last) is None:
            return click_or_scroll(phone, obs, text=last)
        return answer(str(self.count(phone, params)))


@register_task
class QueryFavoriteAtCompany(TaskTemplate):
    name = "contacts_query_favorite_at_company"
    apps = ("Contacts",)
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = "Which of my favorite contacts works at {company}? Answer with their name."
    goal_phrasings = ("Among the people at {company} in my contacts, who is starred?",
                      "Could you tell me which {company} contact I marked as a favorite?",
                      "Starred contact at {company}?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        team = [f"{f} {la}" for f, la in people(rng, 3)]
        return {"company": rng.choice(COMPANIES), "team": team, "favorite": rng.choice(team),
                "numbers": [random_number(rng) for _ in team]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM data WHERE mimetype=? AND data1=?", (MIME_ORG, params["company"]))
        for name, number in zip(params["team"], params["numbers"], strict=True):
            first, last = name.split(" ", 1)
            put_contact(phone, first, last, number=number, company=params["company"],
                        starred=name == params["favorite"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = answer_matches(answer, params["favorite"]) and \
            not any(answer_matches(answer, n) for n in params["team"] if n != params["favorite"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_search(phone, obs, params["company"])
        if step is not None:
            return step
        if find(obs, text=params["favorite"], resource_id="contact_row") is None:
            return click_or_scroll(phone, obs, text=params["favorite"], resource_id="contact_row")
        return answer(params["favorite"])


@register_task
class QueryTotalCount(TaskTemplate):
    name = "contacts_query_total_count"
    apps = ("Contacts",)
    kind = "query"
    complexity = 1
    optimal_steps = 3
    goal_template = "How many contacts do I have in total? Answer with a number."
    goal_phrasings = ("Tell me the total number of contacts on this phone.",
                      "Could you check how many contacts are saved in my Contacts app?",
                      "Total contact count?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"removed": rng.randint(0, 4)}

    def setup(self, phone: Phone, params: dict[str, Any], rng: random.Random | None = None) -> None:
        # a few contacts were deleted earlier: still rows in raw_contacts, but not contacts any more
        assert rng is not None
        ids = [c["_id"] for c in live_contacts(phone)]
        for cid in rng.sample(ids, params["removed"]):
            phone.execute("UPDATE raw_contacts SET deleted=1 WHERE _id=?", (cid,))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if answer_matches(answer, str(len(live_contacts(phone)))) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_main(phone, obs)
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return answer(str(len(live_contacts(phone))))


@register_task
class QueryCompanyByNumber(TaskTemplate):
    name = "contacts_query_company_by_number"
    apps = ("Contacts",)
    kind = "query"
    complexity = 2
    optimal_steps = 6
    goal_template = "I got a call from {number}. Which company does that contact work for?"
    goal_phrasings = ("Look up who has the number {number} in my contacts and tell me their company.",
                      "Could you check which company the contact with phone number {number} is from?",
                      "Company of the contact with number {number}?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (a1, a2), (b1, b2) = two_people(rng)
        number = random_number(rng)
        company, decoy_company = rng.sample(COMPANIES, 2)
        return {"name": f"{a1} {a2}", "number": number, "company": company, "decoy": f"{b1} {b2}",
                "decoy_number": similar_number(rng, number), "decoy_company": decoy_company}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for key, num in (("decoy", "decoy_number"), ("name", "number")):
            remove_contacts_with_number(phone, params[num])
            remove_contacts_named(phone, params[key])
        for key, num, company in (("decoy", "decoy_number", "decoy_company"), ("name", "number", "company")):
            first, last = params[key].split(" ", 1)
            put_contact(phone, first, last, number=params[num], company=params[company])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = answer_matches(answer, params["company"]) and not answer_matches(answer, params["decoy_company"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        cid = find_contacts(phone, params["name"])[0]
        step = leave_edit(phone, obs) or to_entry(phone, obs, params["name"], cid, params["number"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return answer(params["company"])


# ---- list position, chained look-ups, read-then-write, bulk edits, compound actions ------------------
def list_neighbours(phone: Phone, name: str) -> tuple[str | None, str | None]:
    """(the contact listed just before ``name``, the one just after) in the main list's order."""
    names = [c["display_name"] for c in live_contacts(phone)]
    want = " ".join(name.split()).lower()
    i = next((k for k, n in enumerate(names) if " ".join(n.split()).lower() == want), None)
    if i is None:
        return None, None
    return (names[i - 1] if i > 0 else None), (names[i + 1] if i + 1 < len(names) else None)


def remove_first_name(phone: Phone, first: str) -> None:
    """Set-up: hard-delete every contact whose first name is ``first`` (so "two called X" is true)."""
    for c in live_contacts(phone):
        if contact_info(phone, c["_id"])["first"] == first:
            phone.execute("DELETE FROM data WHERE raw_contact_id=?", (c["_id"],))
            phone.execute("DELETE FROM raw_contacts WHERE _id=?", (c["_id"],))


def add_phone_row(phone: Phone, cid: int, number: str, ptype: int) -> None:
    phone.execute("INSERT INTO data(raw_contact_id, mimetype, data1, data2) VALUES(?,?,?,?)",
                  (cid, MIME_PHONE, number, ptype))


def lower_emails(c: dict[str, Any]) -> list[str]:
    return [e.lower() for e in c["emails"]]


def one_phone(c: dict[str, Any] | None, number: str, ptype: int | None = None) -> bool:
    """``c`` has exactly one phone number, ``number`` (and of type ``ptype`` when given)."""
    if c is None or len(c["phones"]) != 1:
        return False
    num, kind = c["phones"][0]
    return same_number(num, number) and (ptype is None or kind == ptype)


def on_edit_of(phone: Phone, ids: set[int]) -> bool:
    scr = phone.screen
    return phone.foreground == APP and scr is not None and scr.name == "edit" and scr.args.get("contact_id") in ids


NEW_COMPANY_NAMES = ("Lumen Labs", "Brightline", "Crestview Partners", "Orbital Health", "Redwood Analytics",
                     "Tessellate")


@register_task
class QueryNextInList(TaskTemplate):
    name = "contacts_query_next_in_list"
    apps = ("Contacts",)
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = "Which contact comes right after {name} in my contact list? Answer with their name."
    goal_phrasings = ("Look at my contacts list: who is listed directly below {name}?",
                      "Could you tell me the name of the contact that follows {name} in Contacts?",
                      "Next contact after {name} in the list?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first = rng.choice([n for n in FIRST_NAMES if n[0] < "V"])
        return {"name": f"{first} {rng.choice(LAST_NAMES)}", "number": random_number(rng)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        first, last = params["name"].split(" ", 1)
        put_contact(phone, first, last, number=params["number"])
        if list_neighbours(phone, params["name"])[1] is None:  # always somebody below
            put_contact(phone, "Zara", "Williams", number="(212) 555-0147")

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        before, after = list_neighbours(phone, params["name"])
        if after is None:
            return 0.0
        ok = answer_matches(answer, after) and not (before is not None and answer_matches(answer, before))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_main(phone, obs)
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        after = list_neighbours(phone, params["name"])[1]
        assert after is not None
        for name in (params["name"], after):
            if find(obs, text=name, resource_id="contact_row") is None:
                return scroll_toward(phone, obs, text=name, resource_id="contact_row") or BACK
        return answer(after)


@register_task
class QueryCoworker(TaskTemplate):
    name = "contacts_query_coworker"
    apps = ("Contacts",)
    kind = "query"
    complexity = 3
    optimal_steps = 5
    goal_template = "Who else in my contacts works at the same company as {name}? Answer with their name."
    goal_phrasings = ("Find {name}'s company in Contacts and tell me which other contact works there.",
                      "Could you check who {name}'s colleague is? Someone else in my contacts is at their company.",
                      "{name}'s coworker in my contacts?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (f, la), (cf, cl), (df, dl) = people(rng, 3)
        company, decoy_company = rng.sample(COMPANIES, 2)
        return {"name": f"{f} {la}", "colleague": f"{cf} {cl}", "company": company,
                "decoy": f"{f} {decoy_of(rng, f, la)}", "decoy_colleague": f"{df} {dl}",
                "decoy_company": decoy_company, "numbers": [random_number(rng) for _ in range(4)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # the namesake works elsewhere, with a colleague of their own
        for company in (params["company"], params["decoy_company"]):
            phone.execute("DELETE FROM data WHERE mimetype=? AND data1=?", (MIME_ORG, company))
        rows = (("decoy", "decoy_company"), ("decoy_colleague", "decoy_company"), ("name", "company"),
                ("colleague", "company"))
        for (key, company), number in zip(rows, params["numbers"], strict=True):
            first, last = params[key].split(" ", 1)
            put_contact(phone, first, last, number=number, company=params[company])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = answer_matches(answer, params["colleague"]) and not answer_matches(answer, params["decoy_colleague"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        # the goal names only the person: read their company on their page, then search for it
        step = look_first(phone, f"{self.name}:company", lambda: read_detail(phone, obs, params["name"])) or \
            to_search(phone, obs, params["company"])
        if step is not None:
            return step
        if find(obs, text=params["colleague"], resource_id="contact_row") is None:
            return scroll_toward(phone, obs, text=params["colleague"], resource_id="contact_row") or BACK
        return answer(params["colleague"])


@register_task
class QueryNamesakeAtCompany(TaskTemplate):
    name = "contacts_query_namesake_number_by_company"
    apps = ("Contacts",)
    kind = "query"
    complexity = 2
    optimal_steps = 6
    goal_template = "I have two contacts called {first}. What's the phone number of the {first} who works at {company}?"
    goal_phrasings = ("There are two {first}s in my contacts; give me the number of the one at {company}.",
                      "Could you find the phone number of {first} from {company}? I have another {first} saved too.",
                      "Number of {first} ({company}), not the other {first}?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first, last = person(rng)
        company, decoy_company = rng.sample(COMPANIES, 2)
        return {"first": first, "name": f"{first} {last}", "decoy": f"{first} {decoy_of(rng, first, last)}",
                "company": company, "decoy_company": decoy_company, "number": random_number(rng),
                "decoy_number": random_number(rng)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        remove_first_name(phone, params["first"])
        for key, company, number in (("decoy", "decoy_company", "decoy_number"), ("name", "company", "number")):
            first, last = params[key].split(" ", 1)
            add_contact(phone, first, last, number=params[number], company=params[company])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        ok = number_answer_matches(answer, params["number"]) and \
            not number_answer_matches(answer, params["decoy_number"])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        ids = find_contacts(phone, params["name"])
        if not ids:
            raise TaskError("oracle: the contact asked about is gone")
        step = leave_edit(phone, obs) or to_entry(phone, obs, params["name"], ids[0], params["first"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return answer(params["number"])


@register_task
class QueryIsFavorite(ExistingContactTemplate):
    name = "contacts_query_is_favorite"
    kind = "query"
    complexity = 1
    optimal_steps = 7
    goal_template = "Is {name} one of my favorite contacts? Answer yes or no."
    goal_phrasings = ("Check whether {name} is starred in Contacts and answer yes or no.",
                      "Could you tell me if I marked {name} as a favorite? Just yes or no.",
                      "{name} in my favorites: yes or no?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return dict(self.base_params(rng), starred=rng.random() < 0.5)

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # the namesake has the opposite star, so looking at the wrong entry gives the wrong answer
        first, last = params["decoy"].split(" ", 1)
        put_contact(phone, first, last, number=params["decoy_number"], starred=not params["starred"])
        put_contact(phone, params["first"], params["last"], number=params["number"], starred=params["starred"])

    def expected(self, phone: Phone, params: dict[str, Any]) -> str | None:
        c = only(phone, params["name"])
        return None if c is None else ("yes" if c["starred"] else "no")

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = self.expected(phone, params)
        if want is None:
            return 0.0
        other = "no" if want == "yes" else "yes"
        return 1.0 if answer_matches(answer, want) and not answer_matches(answer, other) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_detail(phone, obs, params["name"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return answer(self.expected(phone, params) or "no")


@register_task
class SwapNumbers(TaskTemplate):
    name = "contacts_swap_mixed_up_numbers"
    apps = ("Contacts",)
    complexity = 3
    optimal_steps = 16
    goal_template = ("I mixed up the phone numbers of {name_a} and {name_b}: each contact has the other's "
                     "number. Swap them so each has their own.")
    goal_phrasings = ("{name_a}'s contact has {name_b}'s number and the other way round. Please swap the two numbers.",
                      ("Could you fix Contacts for me? The numbers on {name_a} and {name_b} are switched; "
                       "exchange them."),
                      "Swap the phone numbers of {name_a} and {name_b}; they were saved the wrong way round.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (a1, a2), (b1, b2) = two_people(rng)
        return {"name_a": f"{a1} {a2}", "name_b": f"{b1} {b2}", "num_a": random_number(rng),
                "num_b": random_number(rng)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for who, other in (("a", "b"), ("b", "a")):
            first, last = params[f"name_{who}"].split(" ", 1)
            put_contact(phone, first, last, number=params[f"num_{other}"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        a, b = only(phone, params["name_a"]), only(phone, params["name_b"])
        ok = one_phone(a, params["num_a"], PHONE_TYPES["Mobile"]) and one_phone(b, params["num_b"],
                                                                               PHONE_TYPES["Mobile"])
        return 1.0 if ok and not deleted_ids(phone) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        for who, other in (("a", "b"), ("b", "a")):
            c = only(phone, params[f"name_{who}"])
            if c is None:
                raise TaskError(f"oracle: {params[f'name_{who}']} is gone")
            if not one_phone(c, params[f"num_{who}"]):
                # the right number is on the other contact: read it on that page first
                o = only(phone, params[f"name_{other}"])
                if o is not None and any(same_number(n, params[f"num_{who}"]) for n, _ in o["phones"]):
                    step = look_first(phone, f"{self.name}:{other}",
                                      lambda n=params[f"name_{other}"]: read_detail(phone, obs, n))
                    if step is not None:
                        return step
                return edit_contact(phone, obs, params[f"name_{who}"], {"phone": params[f"num_{who}"]})
        raise TaskError("oracle: numbers swapped but the task is not done")


@register_task
class FixSwappedNameOrder(TaskTemplate):
    name = "contacts_fix_reversed_name_order"
    apps = ("Contacts",)
    complexity = 2
    optimal_steps = 9
    goal_template = ("I saved {name} the wrong way round, as \"{wrong}\" (last name in the first-name field). "
                     "Fix the contact so it reads {name}.")
    goal_phrasings = ("My contact \"{wrong}\" has the first and last names swapped; it should be {name}.",
                      ("Could you correct \"{wrong}\" in Contacts? The first name is the last name and vice "
                       "versa: it's {name}."),
                      "\"{wrong}\" -> {name}: swap the first and last name fields.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first, last = person(rng)
        return {"first": first, "last": last, "name": f"{first} {last}", "wrong": f"{last} {first}",
                "number": random_number(rng)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        remove_contacts_named(phone, params["name"])
        put_contact(phone, params["last"], params["first"], number=params["number"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        c = only(phone, params["name"])
        ok = c is not None and c["first"] == params["first"] and c["last"] == params["last"] and \
            one_phone(c, params["number"]) and not find_contacts(phone, params["wrong"])
        return 1.0 if ok and not deleted_ids(phone) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return edit_contact(phone, obs, params["wrong"], {"first": params["first"], "last": params["last"]})


@register_task
class RenameCompanyForAll(TaskTemplate):
    name = "contacts_rename_company_everywhere"
    apps = ("Contacts",)
    complexity = 3
    optimal_steps = 16
    goal_template = "{company} is now called {new_company}. Update the company on all my contacts who work there."
    goal_phrasings = ("Change the company of every {company} contact to {new_company}; the firm was renamed.",
                      "Could you replace {company} with {new_company} on all the contacts that have it?",
                      "Company rename: {company} -> {new_company}, for everyone in my contacts.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        team = [f"{f} {la}" for f, la in people(rng, rng.randint(2, 3))]
        return {"company": rng.choice(COMPANIES), "new_company": rng.choice(NEW_COMPANY_NAMES), "team": team,
                "numbers": [random_number(rng) for _ in team]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM data WHERE mimetype=? AND data1 IN (?, ?)",
                      (MIME_ORG, params["company"], params["new_company"]))
        for name, number in zip(params["team"], params["numbers"], strict=True):
            first, last = name.split(" ", 1)
            put_contact(phone, first, last, number=number, company=params["company"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if deleted_ids(phone) or with_company(phone, params["company"]):
            return 0.0
        team = [only(phone, n) for n in params["team"]]
        if any(c is None for c in team):
            return 0.0
        ok = all(c is not None and c["company"] == params["new_company"] and one_phone(c, num)
                 for c, num in zip(team, params["numbers"], strict=True))
        # nobody else's company changed
        sql = f"SELECT raw_contact_id, data1 FROM data WHERE mimetype='{MIME_ORG}' ORDER BY raw_contact_id"
        before = baseline_rows(phone, self, params, sql)
        team_ids = {c["id"] for c in team if c is not None}
        rest_now = [tuple(r) for r in phone.query(sql) if r[0] not in team_ids]
        ok = ok and rest_now == [r for r in before if r[0] not in team_ids]
        return 1.0 if ok else 0.0

    def bystanders_changed(self, phone: Phone, params: dict[str, Any]) -> list[tuple[int, str]]:
        """(contact id, company it started with) for non-team contacts whose company was changed."""
        sql = f"SELECT raw_contact_id, data1 FROM data WHERE mimetype='{MIME_ORG}' ORDER BY raw_contact_id"
        before = dict(baseline_rows(phone, self, params, sql))
        now = {r[0]: r[1] for r in phone.query(sql)}
        team = {cid for n in params["team"] for cid in find_contacts(phone, n)}
        live = {c["_id"] for c in live_contacts(phone)}
        return [(cid, before.get(cid, "")) for cid in sorted(set(before) | set(now))
                if cid in live and cid not in team and before.get(cid, "") != now.get(cid, "")]

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        todo = with_company(phone, params["company"])
        if not todo:
            wrong = self.bystanders_changed(phone, params)
            if not wrong:
                return COMPLETE
            cid, company = wrong[0]  # someone else's company was changed on the way: put it back
            if on_edit_of(phone, {cid}):
                return fill_form(phone, obs, {"company": company}, None)
            step = leave_edit(phone, obs) or to_entry(phone, obs, contact_info(phone, cid)["name"], cid)
            if step is not None:
                return step
            if phone.dialog is not None or phone.menu_open:
                return BACK
            return click(obs, desc="Edit contact") or BACK
        ids = {c["_id"] for c in todo}
        if on_edit_of(phone, ids):
            return fill_form(phone, obs, {"company": params["new_company"]}, None)
        step = leave_edit(phone, obs) or to_entry(phone, obs, todo[0]["display_name"], todo[0]["_id"],
                                                  params["company"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return click(obs, desc="Edit contact") or BACK


@register_task
class AddCoworker(TaskTemplate):
    name = "contacts_save_colleague_with_same_company"
    apps = ("Contacts",)
    complexity = 3
    optimal_steps = 8
    goal_template = ("Add {name} to my contacts with the number {number}. They work at the same company as "
                     "{colleague}; fill in that company too.")
    goal_phrasings = ("New contact {name}, phone {number}, company: whatever company {colleague} has in Contacts.",
                      ("Could you save {name} with the number {number}? Put the same company on the contact as "
                       "{colleague}'s, they're colleagues."),
                      "Save {name}, {number}, a colleague of {colleague} (same company as on {colleague}'s contact).")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (f, la), (cf, cl) = two_people(rng)
        company, decoy_company = rng.sample(COMPANIES, 2)
        return {"first": f, "last": la, "name": f"{f} {la}", "number": random_number(rng),
                "colleague": f"{cf} {cl}", "colleague_number": random_number(rng), "company": company,
                "decoy": f"{cf} {decoy_of(rng, cf, cl)}", "decoy_number": random_number(rng),
                "decoy_company": decoy_company}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        remove_contacts_named(phone, params["name"])
        for key, company in (("decoy", "decoy_company"), ("colleague", "company")):
            first, last = params[key].split(" ", 1)
            put_contact(phone, first, last, number=params[f"{key}_number"], company=params[company])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        c = only(phone, params["name"])
        ok = c is not None and c["first"] == params["first"] and c["last"] == params["last"] and \
            one_phone(c, params["number"]) and c["company"].lower() == params["company"].lower()
        col = only(phone, params["colleague"])
        ok = ok and col is not None and col["company"] == params["company"]
        return 1.0 if ok and not deleted_ids(phone) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        # the company is on the colleague's page only: read it there first
        step = look_first(phone, f"{self.name}:company", lambda: read_detail(phone, obs, params["colleague"]))
        if step is not None:
            return step
        values = {"first": params["first"], "last": params["last"], "company": params["company"],
                  "phone": params["number"]}
        existing = find_contacts(phone, params["name"])
        if existing:  # saved with a wrong company: correct it
            return edit_contact(phone, obs, params["name"], values)
        return create_contact(phone, obs, values, None)


@register_task
class AddContactAsFavorite(TaskTemplate):
    name = "contacts_save_new_favorite"
    apps = ("Contacts",)
    complexity = 2
    optimal_steps = 8
    goal_template = "Save {name}, {number}, as a new contact and add them to my favorites."
    goal_phrasings = ("Create a contact for {name} with the number {number}, and star it.",
                      "Could you add {name}, phone {number}, to my contacts as a favorite?",
                      "New favorite contact: {name}, {number}")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first, last = person(rng)
        return {"first": first, "last": last, "name": f"{first} {last}", "number": random_number(rng)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        remove_contacts_named(phone, params["name"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        c = only(phone, params["name"])
        ok = c is not None and c["starred"] and c["first"] == params["first"] and c["last"] == params["last"] \
            and one_phone(c, params["number"])
        return 1.0 if ok and not stars_wrong(phone, self, params, {c["id"]: 1} if c else {}) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        c = only(phone, params["name"])
        if c is None:
            return create_contact(phone, obs, {"first": params["first"], "last": params["last"],
                                               "phone": params["number"]}, None)
        if c["starred"]:
            return fix_stars(phone, obs, stars_wrong(phone, self, params, {c["id"]: 1}))
        step = to_detail(phone, obs, params["name"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return click(obs, desc="Add to favorites") or BACK


@register_task
class CopyHomeNumber(TaskTemplate):
    name = "contacts_copy_home_number_to_housemate"
    apps = ("Contacts",)
    complexity = 3
    optimal_steps = 10
    goal_template = ("{name_b} lives with {name_a} and shares their home landline. Add {name_a}'s home number "
                     "to {name_b}'s contact, labelled Home.")
    goal_phrasings = ("Copy the Home phone number from {name_a}'s contact onto {name_b}'s (as a Home number).",
                      ("Could you give {name_b} the same home phone as {name_a}? Take it from {name_a}'s contact "
                       "and save it on {name_b}'s with the Home label."),
                      "{name_b} needs {name_a}'s home number too (label: Home).")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (a1, a2), (b1, b2) = two_people(rng)
        return {"name_a": f"{a1} {a2}", "name_b": f"{b1} {b2}", "mobile_a": random_number(rng),
                "home": random_number(rng), "email_b": email_for(rng, b1, b2)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        first, last = params["name_a"].split(" ", 1)
        cid = put_contact(phone, first, last, number=params["mobile_a"])  # mobile first, home below it
        add_phone_row(phone, cid, params["home"], PHONE_TYPES["Home"])
        first, last = params["name_b"].split(" ", 1)
        put_contact(phone, first, last, email=params["email_b"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        a, b = only(phone, params["name_a"]), only(phone, params["name_b"])
        if a is None or b is None or deleted_ids(phone):
            return 0.0
        ok = one_phone(b, params["home"], PHONE_TYPES["Home"]) and lower_emails(b) == [params["email_b"].lower()]
        ok = ok and len(a["phones"]) == 2 and same_number(a["phones"][0][0], params["mobile_a"]) and \
            a["phones"][0][1] == PHONE_TYPES["Mobile"] and same_number(a["phones"][1][0], params["home"]) and \
            a["phones"][1][1] == PHONE_TYPES["Home"]
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        # read the home number on the first housemate's page, then put it on the other's
        step = look_first(phone, f"{self.name}:home", lambda: read_detail(phone, obs, params["name_a"]))
        if step is not None:
            return step
        return edit_contact(phone, obs, params["name_b"], {"phone": params["home"]}, PHONE_TYPES["Home"])


@register_task
class ChangeEmailDomain(ExistingContactTemplate):
    name = "contacts_change_email_domain"
    complexity = 2
    optimal_steps = 8
    goal_template = ("{name} moved their email from {old_domain} to {new_domain}. Change the domain of their "
                     "email address and keep the part before the @ as it is.")
    goal_phrasings = ("Update {name}'s email: same username, but @{new_domain} instead of @{old_domain}.",
                      ("Could you switch the email on {name}'s contact from {old_domain} to {new_domain}? "
                       "The name before the @ stays the same."),
                      "{name}: email domain {old_domain} -> {new_domain}, same user name.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base_params(rng)
        old_domain, new_domain = rng.sample(EMAIL_DOMAINS, 2)
        local = email_for(rng, p["first"], p["last"]).split("@")[0]
        return dict(p, old_domain=old_domain, new_domain=new_domain, email=f"{local}@{old_domain}",
                    new_email=f"{local}@{new_domain}",
                    decoy_email=email_for(rng, p["first"], p["decoy"].split(" ", 1)[1]).split("@")[0]
                    + f"@{old_domain}")

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        first, last = params["decoy"].split(" ", 1)
        put_contact(phone, first, last, number=params["decoy_number"], email=params["decoy_email"])
        put_contact(phone, params["first"], params["last"], number=params["number"], email=params["email"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        c, d = only(phone, params["name"]), only(phone, params["decoy"])
        ok = c is not None and lower_emails(c) == [params["new_email"].lower()] and one_phone(c, params["number"])
        ok = ok and d is not None and lower_emails(d) == [params["decoy_email"].lower()] and \
            one_phone(d, params["decoy_number"])
        return 1.0 if ok and not deleted_ids(phone) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        return edit_contact(phone, obs, params["name"], {"email": params["new_email"]})


@register_task
class UpdateNumberIfOutdated(ExistingContactTemplate):
    name = "contacts_update_number_if_outdated"
    complexity = 3
    optimal_steps = 8
    goal_template = ("{name}'s contact may still have the old number {old_number}. If it does, change it to "
                     "{new_number}; if it shows a different number, leave it and add {name} to my favorites instead.")
    goal_phrasings = (("Check {name} in Contacts: if the saved number is {old_number}, replace it with {new_number}. "
                       "Otherwise don't touch the number, just star {name}."),
                      ("Could you look at {name}'s number? When it's the old {old_number}, update it to "
                       "{new_number}; when it's something else, make {name} a favorite."),
                      "{name}: number {old_number} -> {new_number} if still saved, else add to favorites.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        p = self.base_params(rng)
        old = random_number(rng)
        outdated = rng.random() < 0.5
        # when already changed, the saved number looks like the old one (same area code and exchange)
        return dict(p, old_number=old, new_number=random_number(rng), outdated=outdated,
                    number=old if outdated else similar_number(rng, old))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        c = only(phone, params["name"])
        if c is None or deleted_ids(phone) or not self.decoy_intact(phone, params):
            return 0.0
        if params["outdated"]:
            ok = one_phone(c, params["new_number"], PHONE_TYPES["Mobile"]) and not c["starred"]
        else:
            ok = one_phone(c, params["number"], PHONE_TYPES["Mobile"]) and c["starred"]
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        if params["outdated"]:
            return edit_contact(phone, obs, params["name"], {"phone": params["new_number"]})
        step = to_detail(phone, obs, params["name"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return click(obs, desc="Add to favorites") or BACK


# ---- round 3: create-or-update, the one entry that is wrong or lacks a detail, partly-done bulk edits, ----
# ---- search by an email domain or a read number, favourites made equal to a set, list-reading questions --
RAW_SQL = "SELECT _id, display_name, starred, deleted FROM raw_contacts ORDER BY _id"
DATA_SQL = "SELECT _id, raw_contact_id, mimetype, data1, data2, data3 FROM data ORDER BY _id"


class Card(NamedTuple):
    """What a person sees of one ``raw_contacts`` row and its ``data`` rows (numbers compared by digits,
    emails and companies case-insensitively)."""

    name: str
    starred: int
    deleted: int
    first: str
    last: str
    phones: tuple[tuple[str, int], ...]
    emails: tuple[str, ...]
    company: tuple[str, ...]


def cards(raw: list[tuple], data: list[tuple]) -> dict[int, Card]:
    """Every ``raw_contacts`` row (deleted ones too) as a :class:`Card`, by ``_id``."""
    by: dict[int, list[tuple]] = {}
    for row in data:
        by.setdefault(row[1], []).append(row)
    out: dict[int, Card] = {}
    for cid, display, starred, deleted in raw:
        rows = by.get(cid, [])
        name = next((r for r in rows if r[2] == MIME_NAME), None)
        out[cid] = Card(" ".join((display or "").split()), int(starred or 0), int(deleted or 0),
                        (name[4] or "") if name else "", (name[5] or "") if name else "",
                        tuple((normalize_number(r[3]), int(r[4] or 2)) for r in rows if r[2] == MIME_PHONE),
                        tuple((r[3] or "").strip().lower() for r in rows if r[2] == MIME_EMAIL),
                        tuple((r[3] or "").strip().lower() for r in rows if r[2] == MIME_ORG))
    return out


def start_and_now(phone: Phone, template: TaskTemplate, params: dict[str, Any]) -> tuple[dict[int, Card],
                                                                                         dict[int, Card]]:
    """(every contact right after set-up, every contact now), whole tables."""
    before = cards(baseline_rows(phone, template, params, RAW_SQL), baseline_rows(phone, template, params, DATA_SQL))
    now = cards([tuple(r) for r in phone.query(RAW_SQL)], [tuple(r) for r in phone.query(DATA_SQL)])
    return before, now


def exact_changes(phone: Phone, template: TaskTemplate, params: dict[str, Any], want: dict[int, Card],
                  new: list[Card] | None = None) -> bool:
    """True when, against the starting phone, exactly the contacts in ``want`` changed (to those cards)
    and exactly the contacts in ``new`` were added; a changed decoy, an extra or missing change fails."""
    before, now = start_and_now(phone, template, params)
    added, removed, changed = diff_rows([(i, *c) for i, c in before.items()], [(i, *c) for i, c in now.items()])
    got = {old[0]: Card(*row[1:]) for old, row in changed}
    return not removed and got == want and sorted(Card(*r[1:]) for r in added) == sorted(new or [])


def start_card(phone: Phone, template: TaskTemplate, params: dict[str, Any], cid: int) -> Card:
    return start_and_now(phone, template, params)[0][cid]


def card_of(phone: Phone, name: str, number: str | None = None, ptype: int = 2, email: str | None = None,
            company: str | None = None) -> Card:
    first, last = name.split(" ", 1)
    return Card(name, 0, 0, first, last, ((normalize_number(number), ptype),) if number else (),
                (email.lower(),) if email else (), (company.lower(),) if company else ())


def start_id(phone: Phone, template: TaskTemplate, params: dict[str, Any], name: str) -> int | None:
    """Id of the live contact called ``name`` on the starting phone (None unless exactly one)."""
    ids = [i for i, c in start_and_now(phone, template, params)[0].items() if not c.deleted
           and c.name.lower() == " ".join(name.split()).lower()]
    return ids[0] if len(ids) == 1 else None


def form_values(info: dict[str, Any]) -> dict[str, str]:
    """The edit form as it opens for a contact (the first number and email only)."""
    return {"first": info["first"] or "", "last": info["last"] or "", "company": info["company"] or "",
            "phone": info["phones"][0][0] if info["phones"] else "",
            "email": info["emails"][0] if info["emails"] else ""}


def edit_entry(phone: Phone, obs: Observation, cid: int, changes: dict[str, str], ptype: int | None = None,
               query: str | None = None) -> Action:
    """Open contact ``cid``'s edit form (found by searching ``query``, default its name) and make the
    whole form what it should be: the saved values with ``changes`` (so text a detour typed is undone)."""
    info = contact_info(phone, cid)
    if not info or info["deleted"]:
        raise TaskError(f"oracle: contact {cid} to edit is gone")
    values = dict(form_values(info), **changes)
    if ptype is None and values["phone"] and info["phones"]:
        ptype = info["phones"][0][1]
    if on_edit_of(phone, {cid}):
        return fill_form(phone, obs, values, ptype if values["phone"] else None)
    step = leave_edit(phone, obs) or to_entry(phone, obs, info["name"], cid, query)
    if step is not None:
        return step
    if phone.dialog is not None or phone.menu_open:
        return BACK
    return click(obs, desc="Edit contact") or BACK


def visit(phone: Phone, obs: Observation, key: str, name: str, query: str | None = None) -> Action | None:
    """Open ``name``'s page once (found by searching ``query``) to read it; None once it has been read."""
    ids = find_contacts(phone, name)
    if not ids:
        raise TaskError(f"oracle: no contact named {name!r} to read")
    return look_first(phone, key, lambda: leave_edit(phone, obs) or to_entry(phone, obs, name, ids[0], query)
                      or dismiss_popups(phone))


def star_entry(phone: Phone, obs: Observation, cid: int, want: bool, query: str | None = None) -> Action:
    """Star (or unstar) contact ``cid`` from its page, reached by searching ``query`` (default its name)."""
    info = contact_info(phone, cid)
    step = leave_edit(phone, obs) or to_entry(phone, obs, info["name"], cid, query)
    if step is not None:
        return step
    if phone.dialog is not None or phone.menu_open:
        return BACK
    return click(obs, desc="Add to favorites" if want else "Remove from favorites") or BACK


def typo_of(rng: random.Random, word: str) -> str:
    """A plausible typo inside ``word`` (a letter dropped, doubled or two letters swapped)."""
    while True:
        spots = [i for i in range(1, len(word) - 1) if word[i].isalpha() and word[i + 1].isalpha()]
        i = rng.choice(spots)
        how = rng.choice(("drop", "double", "swap"))
        if how == "drop":
            typo = word[:i] + word[i + 1:]
        elif how == "double":
            typo = word[:i] + word[i] + word[i:]
        else:
            typo = word[:i] + word[i + 1] + word[i] + word[i + 2:]
        if typo.lower() != word.lower():
            return typo


def team_names(params: dict[str, Any]) -> list[str]:
    return [params["name_a"], params["name_b"], params["name_c"]]


@register_task
class SaveNumberCreateOrUpdate(TaskTemplate):
    name = "contacts_save_number_create_or_update"
    apps = ("Contacts",)
    complexity = 3
    optimal_steps = 9
    goal_template = ("Save {number} as {name}'s phone number: if {name} is already in my contacts, replace the number "
                     "on that contact; if not, create a new contact for them.")
    goal_phrasings = (("Check whether I have {name} in Contacts. If so, change their number to {number}; "
                       "otherwise add {name} as a new contact with {number}."),
                      ("Could you make sure {name} is saved with the number {number}? Update the existing contact if "
                       "there is one, don't create a second."),
                      "{name}: {number}. Update the contact if it exists, else create it.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first, last = person(rng)
        return {"first": first, "last": last, "name": f"{first} {last}", "number": random_number(rng),
                "saved": rng.random() < 0.5, "old_number": random_number(rng),
                "namesake": f"{first} {decoy_of(rng, first, last)}", "namesake_number": random_number(rng)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        remove_contacts_named(phone, params["name"])
        first, last = params["namesake"].split(" ", 1)
        put_contact(phone, first, last, number=params["namesake_number"])  # same first name, stays as it is
        if params["saved"]:
            add_contact(phone, params["first"], params["last"], number=params["old_number"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        if params["saved"]:
            cid = start_id(phone, self, params, params["name"])
            if cid is None:
                return 0.0
            want = start_card(phone, self, params, cid)._replace(phones=((normalize_number(params["number"]), 2),))
            ok = exact_changes(phone, self, params, {cid: want})
        else:
            ok = exact_changes(phone, self, params, {}, [card_of(phone, params["name"], params["number"])])
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        ids = find_contacts(phone, params["name"])
        if ids:  # look the name up first: it decides between editing and creating
            return edit_entry(phone, obs, ids[0], {"first": params["first"], "last": params["last"],
                                                   "phone": params["number"]}, PHONE_TYPES["Mobile"])
        step = look_first(phone, f"{self.name}:searched", lambda: to_search(phone, obs, params["name"]))
        if step is not None:
            return step
        return create_contact(phone, obs, {"first": params["first"], "last": params["last"], "company": "",
                                           "phone": params["number"], "email": ""}, PHONE_TYPES["Mobile"])


@register_task
class FixMisspeltCompanyInTeam(TaskTemplate):
    name = "contacts_fix_misspelt_company_in_team"
    apps = ("Contacts",)
    complexity = 3
    optimal_steps = 11
    goal_template = ("{name_a}, {name_b} and {name_c} all work at {company}, but on one of their contacts I misspelt "
                     "the company name. Find that one and correct it.")
    goal_phrasings = (("One of {name_a}, {name_b} and {name_c} has a typo in the company field; it should say "
                       "{company}. Fix it and leave the other two alone."),
                      ("Could you check the company on {name_a}, {name_b} and {name_c} in Contacts? They're all at "
                       "{company}, and one of them is spelt wrong."),
                      "Company typo on one of {name_a} / {name_b} / {name_c}: should be {company}.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        a, b, c = (f"{f} {la}" for f, la in people(rng, 3))
        company = rng.choice(COMPANIES)
        return {"name_a": a, "name_b": b, "name_c": c, "company": company, "typo": typo_of(rng, company),
                "wrong": rng.randrange(3), "numbers": [random_number(rng) for _ in range(3)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for k, (name, number) in enumerate(zip(team_names(params), params["numbers"], strict=True)):
            first, last = name.split(" ", 1)
            put_contact(phone, first, last, number=number,
                        company=params["typo"] if k == params["wrong"] else params["company"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        cid = start_id(phone, self, params, team_names(params)[params["wrong"]])
        if cid is None:
            return 0.0
        want = start_card(phone, self, params, cid)._replace(company=(params["company"].lower(),))
        return 1.0 if exact_changes(phone, self, params, {cid: want}) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        for k, name in enumerate(team_names(params)):
            c = only(phone, name)
            if c is None:
                raise TaskError(f"oracle: {name} is not saved once")
            if c["company"].lower() != params["company"].lower():
                return edit_entry(phone, obs, c["id"], {"company": params["company"]})
            step = visit(phone, obs, f"{self.name}:{k}", name)  # checked and found right
            if step is not None:
                return step
        raise TaskError("oracle: every company is right but the task is not done")


@register_task
class AddNumberToEntryWithoutOne(TaskTemplate):
    name = "contacts_add_number_to_entry_without_one"
    apps = ("Contacts",)
    complexity = 3
    optimal_steps = 12
    goal_template = ("One of my contacts at {company} has no phone number saved, only an email address. "
                     "Add the number {number} to that contact.")
    goal_phrasings = (("Find the {company} contact that is missing a phone number and save {number} on it."),
                      ("Could you look through my {company} contacts? One has just an email and no number; "
                       "{number} is theirs."),
                      "{number} belongs to the {company} contact who has no phone number yet.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        team = [f"{f} {la}" for f, la in people(rng, 4)]
        company, other_company = rng.sample(COMPANIES, 2)
        return {"company": company, "team": team[:3], "missing": rng.randrange(3), "number": random_number(rng),
                "numbers": [random_number(rng) for _ in range(3)],
                "emails": [email_for(rng, *n.split(" ", 1)) for n in team],
                "outsider": team[3], "other_company": other_company}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM data WHERE mimetype=? AND data1=?", (MIME_ORG, params["company"]))
        for k, name in enumerate(params["team"]):
            first, last = name.split(" ", 1)
            number = None if k == params["missing"] else params["numbers"][k]
            put_contact(phone, first, last, number=number, email=params["emails"][k], company=params["company"])
        # someone at another company without a number either: not the one meant
        first, last = params["outsider"].split(" ", 1)
        put_contact(phone, first, last, email=params["emails"][3], company=params["other_company"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        cid = start_id(phone, self, params, params["team"][params["missing"]])
        if cid is None:
            return 0.0
        want = start_card(phone, self, params, cid)._replace(phones=((normalize_number(params["number"]), 2),))
        return 1.0 if exact_changes(phone, self, params, {cid: want}) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        for k, name in enumerate(params["team"]):
            c = only(phone, name)
            if c is None:
                raise TaskError(f"oracle: {name} is not saved once")
            if not c["phones"]:
                return edit_entry(phone, obs, c["id"], {"phone": params["number"]}, PHONE_TYPES["Mobile"],
                                  params["company"])
            step = visit(phone, obs, f"{self.name}:{k}", name, params["company"])  # has a number: next one
            if step is not None:
                return step
        raise TaskError("oracle: every colleague has a number but the task is not done")


@register_task
class FamilyEmailPartlyDone(TaskTemplate):
    name = "contacts_family_email_partly_done"
    apps = ("Contacts",)
    complexity = 3
    optimal_steps = 14
    goal_template = ("Our family shares the email address {email}. Put it on the contacts of {name_a}, {name_b} and "
                     "{name_c}; I already added it to one of them, so just finish the others.")
    goal_phrasings = (("Finish adding the shared email {email} to {name_a}, {name_b} and {name_c} in Contacts "
                       "(one of them has it already)."),
                      ("Could you make sure {name_a}, {name_b} and {name_c} all have {email} as their email? I did "
                       "one before I got interrupted."),
                      "Family email {email} on {name_a}, {name_b}, {name_c}: one done, do the rest.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        last = rng.choice(LAST_NAMES)
        firsts = rng.sample(FIRST_NAMES, 4)
        return {"name_a": f"{firsts[0]} {last}", "name_b": f"{firsts[1]} {last}", "name_c": f"{firsts[2]} {last}",
                "relative": f"{firsts[3]} {last}", "done": rng.randrange(3),
                "email": f"{last.lower()}.family@{rng.choice(EMAIL_DOMAINS)}",
                "numbers": [random_number(rng) for _ in range(4)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # a fourth person with the family name is not on the list and keeps no email
        for k, name in enumerate([*team_names(params), params["relative"]]):
            first, last = name.split(" ", 1)
            put_contact(phone, first, last, number=params["numbers"][k],
                        email=params["email"] if k == params["done"] else None)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want: dict[int, Card] = {}
        for k, name in enumerate(team_names(params)):
            cid = start_id(phone, self, params, name)
            if cid is None:
                return 0.0
            if k != params["done"]:
                want[cid] = start_card(phone, self, params, cid)._replace(emails=(params["email"].lower(),))
        return 1.0 if exact_changes(phone, self, params, want) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        for name in team_names(params):
            c = only(phone, name)
            if c is None:
                raise TaskError(f"oracle: {name} is not saved once")
            if [e.lower() for e in c["emails"]] != [params["email"].lower()]:
                return edit_entry(phone, obs, c["id"], {"email": params["email"]})
        raise TaskError("oracle: everyone has the email but the task is not done")


@register_task
class RemoveMobileKeepWork(TaskTemplate):
    name = "contacts_remove_mobile_keep_work_number"
    apps = ("Contacts",)
    complexity = 2
    optimal_steps = 9
    goal_template = ("{name} no longer uses the mobile number {number}. Remove that number from their contact, "
                     "but keep their work number.")
    goal_phrasings = ("Delete the mobile number {number} from {name}'s contact; the work number stays.",
                      ("Could you take {number} off {name} in Contacts? It's an old mobile. Don't touch their "
                       "work number."),
                      "{name}: drop mobile {number}, keep the work line.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first, last = person(rng)
        return {"first": first, "last": last, "name": f"{first} {last}", "number": random_number(rng),
                "work_number": random_number(rng), "namesake": f"{first} {decoy_of(rng, first, last)}",
                "namesake_numbers": [random_number(rng), random_number(rng)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        # the namesake also has a mobile and a work number; the mobile is listed (and edited) first
        for key, (mobile, work) in (("namesake", params["namesake_numbers"]),
                                    ("name", (params["number"], params["work_number"]))):
            first, last = params[key].split(" ", 1)
            cid = put_contact(phone, first, last, number=mobile)
            add_phone_row(phone, cid, work, PHONE_TYPES["Work"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        cid = start_id(phone, self, params, params["name"])
        if cid is None:
            return 0.0
        want = start_card(phone, self, params, cid)._replace(
            phones=((normalize_number(params["work_number"]), PHONE_TYPES["Work"]),))
        return 1.0 if exact_changes(phone, self, params, {cid: want}) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        c = only(phone, params["name"])
        if c is None or not c["phones"] or not same_number(c["phones"][0][0], params["number"]):
            raise TaskError("oracle: the mobile number to remove is not the contact's first number")
        return edit_entry(phone, obs, c["id"], {"phone": ""})  # the form shows the first number only


def email_domain_of(company: str) -> str:
    return "".join(ch for ch in company.lower() if ch.isalnum()) + ".com"


@register_task
class ClearEmailsAtDeadDomain(TaskTemplate):
    name = "contacts_clear_emails_at_dead_domain"
    apps = ("Contacts",)
    complexity = 3
    optimal_steps = 15
    goal_template = ("{company}'s email addresses (@{domain}) have stopped working. Remove the email from every contact "
                     "whose address ends in @{domain}; leave everything else on those contacts as it is.")
    goal_phrasings = (("Clear every @{domain} email address from my contacts; {company} shut that domain down. "
                       "Other emails stay."),
                      ("Could you delete the {company} work emails (the ones ending in @{domain}) from all my "
                       "contacts? Keep their numbers and any other email."),
                      "Dead domain @{domain} ({company}): remove those emails from Contacts.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        company = rng.choice(COMPANIES)
        n = rng.randint(2, 3)
        folks = [f"{f} {la}" for f, la in people(rng, n + 2)]
        domain = email_domain_of(company)
        return {"company": company, "domain": domain, "members": folks[:n],
                "member_emails": [f"{x.split()[0].lower()}.{x.split()[1].lower()}@{domain}" for x in folks[:n]],
                "colleague": folks[n],  # works there, but saved with a personal address
                "colleague_email": email_for(rng, *folks[n].split(" ", 1)),
                "lookalike": folks[n + 1],  # an address at a look-alike domain
                "lookalike_email": f"{folks[n + 1].split()[0].lower()}@{domain[:-1]}",
                "numbers": [random_number(rng) for _ in range(n + 2)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        rows = [*zip(params["members"], params["member_emails"], strict=True),
                (params["colleague"], params["colleague_email"]), (params["lookalike"], params["lookalike_email"])]
        for (name, email), number in zip(rows, params["numbers"], strict=True):
            first, last = name.split(" ", 1)
            put_contact(phone, first, last, number=number, email=email,
                        company=params["company"] if name != params["lookalike"] else None)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want: dict[int, Card] = {}
        for name in params["members"]:
            cid = start_id(phone, self, params, name)
            if cid is None:
                return 0.0
            want[cid] = start_card(phone, self, params, cid)._replace(emails=())
        return 1.0 if exact_changes(phone, self, params, want) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        suffix = "@" + params["domain"]
        for c in live_contacts(phone):
            info = contact_info(phone, c["_id"])
            if any(e.lower().endswith(suffix) for e in info["emails"]):
                return edit_entry(phone, obs, c["_id"], {"email": ""}, query=suffix)
        raise TaskError("oracle: no address at the domain left but the task is not done")


@register_task
class DeleteEntrySharingNumber(TaskTemplate):
    name = "contacts_delete_entry_sharing_number"
    apps = ("Contacts",)
    complexity = 3
    optimal_steps = 11
    goal_template = ("{name}'s phone number is also saved on a second, older contact under a different name. Find that "
                     "other contact and delete it; keep {name}.")
    goal_phrasings = (("Somewhere in my contacts there's an old entry with the same number as {name}, saved under "
                       "another name. Delete that old entry, not {name}."),
                      ("Could you find the other contact that has {name}'s phone number and remove it? {name} "
                       "stays."),
                      "Old duplicate of {name} under another name (same number): delete it.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (f, la), (lf, ll) = two_people(rng)
        number = random_number(rng)
        return {"name": f"{f} {la}", "number": number, "old_entry": f"{f} {la[0]}",
                "lookalike": f"{lf} {ll}", "lookalike_number": similar_number(rng, number)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for num in ("number", "lookalike_number"):
            remove_contacts_with_number(phone, params[num])
        for key, num in (("old_entry", "number"), ("lookalike", "lookalike_number"), ("name", "number")):
            first, last = params[key].split(" ", 1)
            put_contact(phone, first, last, number=params[num])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        cid = start_id(phone, self, params, params["old_entry"])
        if cid is None:
            return 0.0
        want = start_card(phone, self, params, cid)._replace(deleted=1)
        return 1.0 if exact_changes(phone, self, params, {cid: want}) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        me = only(phone, params["name"])
        if me is None or not me["phones"]:
            raise TaskError(f"oracle: {params['name']} and their number are gone")
        number = me["phones"][0][0]
        # read the number on the person's page, then search it to find the other entry
        step = look_first(phone, f"{self.name}:number", lambda: read_detail(phone, obs, params["name"]))
        if step is not None:
            return step
        others = [c for c in live_contacts(phone) if c["_id"] != me["id"]
                  and any(same_number(n, number) for n, _ in contact_info(phone, c["_id"])["phones"])]
        if not others:
            raise TaskError("oracle: no other entry has the number but the task is not done")
        ids = {c["_id"] for c in others}
        step = confirm_delete_of(phone, obs, ids)
        if step is not None:
            return step
        scr = phone.screen
        if phone.foreground == APP and scr is not None and scr.name == "detail" and scr.args.get("contact_id") in ids:
            if phone.dialog is not None:
                return BACK
            return menu_item(phone, obs, "Delete")
        return leave_edit(phone, obs) or to_entry(phone, obs, others[0]["display_name"], others[0]["_id"],
                                                  number) or BACK


@register_task
class FavoritesOnlyOneCompany(TaskTemplate):
    name = "contacts_favorites_only_one_company"
    apps = ("Contacts",)
    complexity = 3
    optimal_steps = 17
    goal_template = ("Make my favorites exactly my {company} contacts: star everyone at {company} who isn't starred yet, "
                     "and unstar every other favorite.")
    goal_phrasings = (("I only want the people at {company} in my favorites. Add the missing ones and remove "
                       "everybody else from favorites."),
                      ("Could you fix my favorites so that they are all the {company} contacts and nobody else? "
                       "Some of them are starred already."),
                      "Favorites = the {company} people, nobody else.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"company": rng.choice(COMPANIES), "team": [f"{f} {la}" for f, la in people(rng, 3)],
                "already": rng.randrange(3), "others": 2, "numbers": [random_number(rng) for _ in range(3)]}

    def setup(self, phone: Phone, params: dict[str, Any], rng: random.Random | None = None) -> None:
        assert rng is not None
        phone.execute("UPDATE raw_contacts SET starred=0")
        phone.execute("DELETE FROM data WHERE mimetype=? AND data1=?", (MIME_ORG, params["company"]))
        team: set[int] = set()
        for k, (name, number) in enumerate(zip(params["team"], params["numbers"], strict=True)):
            first, last = name.split(" ", 1)
            team.add(put_contact(phone, first, last, number=number, company=params["company"],
                                 starred=k == params["already"]))
        # earlier favourites from elsewhere, listed by name only
        rest = [c["_id"] for c in live_contacts(phone) if c["_id"] not in team]
        for cid in rng.sample(rest, params["others"]):
            phone.execute("UPDATE raw_contacts SET starred=1 WHERE _id=?", (cid,))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        before, _now = start_and_now(phone, self, params)
        team = {start_id(phone, self, params, n) for n in params["team"]}
        if None in team:
            return 0.0
        want = {i: c._replace(starred=int(i in team)) for i, c in before.items()
                if not c.deleted and c.starred != int(i in team)}
        return 1.0 if exact_changes(phone, self, params, want) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        team = {cid for n in params["team"] for cid in find_contacts(phone, n)}
        for n in params["team"]:
            for cid in find_contacts(phone, n):
                if not contact_info(phone, cid)["starred"]:
                    return star_entry(phone, obs, cid, True, params["company"])
        extra = [c for c in live_contacts(phone) if c["starred"] and c["_id"] not in team]
        if extra:
            return star_entry(phone, obs, extra[0]["_id"], False)
        raise TaskError("oracle: favourites are the team but the task is not done")


@register_task
class QueryIsNumberSaved(TaskTemplate):
    name = "contacts_query_is_number_saved"
    apps = ("Contacts",)
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = "Is the phone number {number} saved in my contacts? Answer yes or no."
    goal_phrasings = ("Do I have {number} in Contacts? Just yes or no.",
                      "Could you check whether any of my contacts has the number {number}? Answer yes or no.",
                      "{number} saved in my contacts: yes or no?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (a1, a2), (b1, b2) = two_people(rng)
        number = random_number(rng)
        return {"number": number, "saved": rng.random() < 0.5, "owner": f"{a1} {a2}",
                "lookalike": f"{b1} {b2}", "lookalike_number": similar_number(rng, number)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for num in ("number", "lookalike_number"):
            remove_contacts_with_number(phone, params[num])
        first, last = params["lookalike"].split(" ", 1)
        put_contact(phone, first, last, number=params["lookalike_number"])  # differs in the last digits
        if params["saved"]:
            first, last = params["owner"].split(" ", 1)
            put_contact(phone, first, last, number=params["number"])

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        return "yes" if contact_for_number(phone, params["number"]) is not None else "no"

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = self.expected(phone, params)
        other = "no" if want == "yes" else "yes"
        return 1.0 if answer_matches(answer, want) and not answer_matches(answer, other) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        return to_search(phone, obs, params["number"]) or answer(self.expected(phone, params))


@register_task
class QueryMostNumbersAtCompany(TaskTemplate):
    name = "contacts_query_most_numbers_at_company"
    apps = ("Contacts",)
    kind = "query"
    complexity = 3
    optimal_steps = 10
    goal_template = "Which of my contacts at {company} has the most phone numbers saved? Answer with their name."
    goal_phrasings = ("Among the {company} people in Contacts, who has the most numbers on their contact?",
                      "Could you tell me which {company} contact has more phone numbers saved than the others?",
                      "{company} contact with the most phone numbers?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        counts = [1, 2, 3]
        rng.shuffle(counts)
        team = [f"{f} {la}" for f, la in people(rng, 3)]
        return {"company": rng.choice(COMPANIES), "team": team, "counts": counts,
                "numbers": [[random_number(rng) for _ in range(n)] for n in counts]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM data WHERE mimetype=? AND data1=?", (MIME_ORG, params["company"]))
        for name, numbers in zip(params["team"], params["numbers"], strict=True):
            first, last = name.split(" ", 1)
            cid = put_contact(phone, first, last, number=numbers[0], company=params["company"])
            for number, ptype in zip(numbers[1:], (PHONE_TYPES["Work"], PHONE_TYPES["Home"]), strict=False):
                add_phone_row(phone, cid, number, ptype)

    def top(self, phone: Phone, params: dict[str, Any]) -> str:
        team = [(len(c["phones"]), n) for n in params["team"] if (c := only(phone, n)) is not None]
        return max(team)[1] if team else ""

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        best = self.top(phone, params)
        ok = bool(best) and answer_matches(answer, best) and \
            not any(answer_matches(answer, n) for n in params["team"] if n != best)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        for k, name in enumerate(params["team"]):  # open each colleague's page and count
            step = visit(phone, obs, f"{self.name}:{k}", name, params["company"])
            if step is not None:
                return step
        return answer(self.top(phone, params))


def list_index(phone: Phone, name: str) -> int | None:
    want = " ".join(name.split()).lower()
    names = [" ".join(c["display_name"].split()).lower() for c in live_contacts(phone)]
    return names.index(want) if names.count(want) == 1 else None


@register_task
class QueryCountBetween(TaskTemplate):
    name = "contacts_query_count_between_two"
    apps = ("Contacts",)
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = ("How many contacts are listed between {name_a} and {name_b} in my contacts list, not counting "
                     "those two? Answer with a number.")
    goal_phrasings = ("Count the contacts that come after {name_a} and before {name_b} in my list; give me the number.",
                      ("Could you tell me how many names sit between {name_a} and {name_b} in Contacts "
                       "(excluding both)?"),
                      "Number of contacts between {name_a} and {name_b} in the list?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        i = rng.randrange(len(INITIALS) - 3)
        j = i + rng.randint(1, 2)
        fa = rng.choice([n for n in FIRST_NAMES if n[0] == INITIALS[i]])
        fb = rng.choice([n for n in FIRST_NAMES if n[0] == INITIALS[j]])
        return {"name_a": f"{fa} {rng.choice(LAST_NAMES)}", "name_b": f"{fb} {rng.choice(LAST_NAMES)}",
                "numbers": [random_number(rng), random_number(rng)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for key, number in zip(("name_a", "name_b"), params["numbers"], strict=True):
            first, last = params[key].split(" ", 1)
            put_contact(phone, first, last, number=number)

    def count(self, phone: Phone, params: dict[str, Any]) -> int | None:
        a, b = list_index(phone, params["name_a"]), list_index(phone, params["name_b"])
        return None if a is None or b is None else abs(b - a) - 1

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        n = self.count(phone, params)
        return 1.0 if n is not None and answer_matches(answer, str(n)) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = to_main(phone, obs)
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        for key in ("name_a", "name_b"):  # scroll to the first name, then down to the second, counting
            name = params[key]

            def show(n: str = name) -> Action | None:
                if find(obs, text=n, resource_id="contact_row") is not None:
                    return None
                return scroll_toward(phone, obs, text=n, resource_id="contact_row") or BACK
            step = look_first(phone, f"{self.name}:{key}", show)
            if step is not None:
                return step
        n = self.count(phone, params)
        if n is None:
            raise TaskError("oracle: the two contacts are not in the list once each")
        return answer(str(n))


@register_task
class QueryDuplicatedName(TaskTemplate):
    name = "contacts_query_duplicated_name"
    apps = ("Contacts",)
    kind = "query"
    complexity = 2
    optimal_steps = 5
    goal_template = "One person is saved twice in my contacts, under exactly the same name. Who is it? Answer with the name."
    goal_phrasings = ("Someone appears twice in my contacts list with the same name. Tell me the name.",
                      "Could you find the contact that's listed two times in Contacts and tell me who it is?",
                      "Which name is in my contacts twice?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"number": random_number(rng)}

    def setup(self, phone: Phone, params: dict[str, Any], rng: random.Random | None = None) -> None:
        assert rng is not None
        named = [c for c in live_contacts(phone) if " " in c["display_name"]]
        info = contact_info(phone, rng.choice(named)["_id"])
        remove_contacts_with_number(phone, params["number"])
        add_contact(phone, info["first"], info["last"], number=params["number"])  # a second entry, another number

    def twice(self, phone: Phone) -> str | None:
        names = [" ".join(c["display_name"].split()) for c in live_contacts(phone)]
        dups = sorted({n for n in names if names.count(n) > 1})
        return dups[0] if len(dups) == 1 else None

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        dup = self.twice(phone)
        if dup is None or not answer_matches(answer, dup):
            return 0.0
        others = {c["display_name"] for c in live_contacts(phone)} - {dup}
        return 0.0 if any(answer_matches(answer, n) for n in others) else 1.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        from droidverify.env.sim.env import probe_scroll

        dup = self.twice(phone)
        if dup is None:
            raise TaskError("oracle: no name is saved twice")
        step = to_main(phone, obs)
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        if len(find_all(obs, text=dup, resource_id="contact_row")) >= 2:  # both rows seen
            return answer(dup)
        direction = probe_scroll(phone, lambda o: len(find_all(o, text=dup, resource_id="contact_row")) >= 2)
        if direction is None:
            raise TaskError("oracle: the two entries never show together")
        return Action(action_type="scroll", direction=direction)



# ---- round 4: share a card and text a contact found by email (Messages), a form left open (discard it or
# ---- finish it), a number known by its last digits, blank entries among named ones, favourites without a
# ---- number; questions that compare two employers, read a number's label, derive a percentage, list in order
SMS_SQL = "SELECT _id, thread_id, address, body, type FROM sms ORDER BY _id"
TEXT_BODIES = ("Running 10 minutes late, sorry!", "Can you send me the slides from today?",
               "Happy birthday! Hope you have a great day.", "Are we still on for lunch tomorrow?",
               "I left my umbrella at your place.", "Call me when you land, please.")


def new_texts(phone: Phone, template: TaskTemplate, params: dict[str, Any]) -> list[tuple] | None:
    """Messages stored since set-up; None when a message that was there was changed or removed."""
    added, removed, changed = diff_rows(baseline_rows(phone, template, params, SMS_SQL),
                                        [tuple(r) for r in phone.query(SMS_SQL)])
    return None if removed or changed else added


def one_text_to(phone: Phone, template: TaskTemplate, params: dict[str, Any], number: str) -> str | None:
    """The body of the one message sent since set-up when it went to ``number`` and no contact changed."""
    from droidverify.env.sim.apps.messages import TYPE_SENT

    texts = new_texts(phone, template, params)
    if texts is None or len(texts) != 1 or not exact_changes(phone, template, params, {}):
        return None
    _sid, _tid, address, body, kind = texts[0]
    return body or "" if kind == TYPE_SENT and same_number(address, number) else None


def nothing_sent_yet(phone: Phone, template: TaskTemplate, params: dict[str, Any]) -> None:
    """Oracles of the texting tasks stop (TaskError) once a message went out or a contact changed:
    another message would be a duplicate, and they do not undo edits made on the way."""
    if new_texts(phone, template, params) != [] or not exact_changes(phone, template, params, {}):
        raise TaskError("oracle: a message was sent or a contact changed, but the task is not done")


def card_text(info: dict[str, Any]) -> str:
    """What Contacts' Share puts in the message: the name, every number, every email, one a line."""
    return "\n".join([info["name"], *(n for n, _ in info["phones"]), *info["emails"]])


def on_thread_with(phone: Phone, number: str) -> bool:
    scr = phone.screen
    return (phone.foreground == "messages" and scr is not None and scr.name == "thread"
            and same_number(scr.args.get("address"), number))


def blank_contact(info: dict[str, Any]) -> bool:
    return not info["phones"] and not info["emails"]


@register_task
class ShareContactByText(TaskTemplate):
    name = "contacts_share_contact_by_text"
    apps = ("Contacts", "Messages")
    complexity = 3
    optimal_steps = 11
    goal_template = "Share {name}'s contact card with {recipient} by text message."
    goal_phrasings = ("Send {recipient} {name}'s contact details from Contacts in a text.",
                      ("{recipient} asked me for {name}'s number and email. Could you share {name}'s contact with "
                       "them over SMS?"),
                      "Text {name}'s contact to {recipient}.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (f, la), (rf, rl) = two_people(rng)
        return {"name": f"{f} {la}", "number": random_number(rng), "email": email_for(rng, f, la),
                "namesake": f"{f} {decoy_of(rng, f, la)}", "namesake_number": random_number(rng),
                "recipient": f"{rf} {rl}", "recipient_number": random_number(rng)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for key in ("number", "namesake_number", "recipient_number"):
            remove_contacts_with_number(phone, params[key])
        for key, kw in (("namesake", {"number": params["namesake_number"]}),
                        ("name", {"number": params["number"], "email": params["email"]}),
                        ("recipient", {"number": params["recipient_number"]})):
            first, last = params[key].split(" ", 1)
            put_contact(phone, first, last, **kw)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        body = one_text_to(phone, self, params, params["recipient_number"])
        if body is None:
            return 0.0
        flat, digits = " ".join(body.split()).lower(), normalize_number(body)
        ok = params["name"].lower() in flat and normalize_number(params["number"]) in digits and \
            params["email"].lower() in flat and normalize_number(params["namesake_number"]) not in digits
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        me = only(phone, params["name"])
        if me is None:
            raise TaskError(f"oracle: {params['name']} is not saved once")
        nothing_sent_yet(phone, self, params)
        if phone.foreground == "messages":
            scr = phone.screen
            if scr is None or phone.dialog is not None or phone.menu_open:
                return BACK
            if on_thread_with(phone, params["recipient_number"]) and scr.fields.get("message") == card_text(me):
                return click(obs, desc="Send SMS") or BACK
            if scr.name == "compose" and scr.args.get("body") == card_text(me):
                if scr.fields.get("to", "") != params["recipient"]:
                    return type_into(obs, params["recipient"], resource_id="recipient_text_view") or BACK
                return click_or_scroll(phone, obs, text=params["recipient"], resource_id="contact_picker_row")
            return open_app(phone, APP)  # start over from the card
        dlg = phone.dialog
        if dlg is not None and dlg.app == APP and dlg.data.get("on_ok") == "share_contact":
            if dlg.data.get("args", {}).get("contact_id") == me["id"]:
                return click(obs, text="Messages", resource_id="text1") or BACK
            return BACK
        step = leave_edit(phone, obs) or to_entry(phone, obs, params["name"], me["id"])
        if step is not None:
            return step
        if dlg is not None:
            return BACK
        return menu_item(phone, obs, "Share")


@register_task
class TextContactFoundByEmail(TaskTemplate):
    name = "contacts_text_contact_found_by_email"
    apps = ("Contacts", "Messages")
    complexity = 3
    optimal_steps = 8
    goal_template = 'Text whoever in my contacts has the email address {email}: "{body}"'
    goal_phrasings = ('Send the text "{body}" to the contact whose email is {email}.',
                      'I only know their email, {email}. Could you find that contact and text them "{body}"?',
                      'SMS to my contact with the email {email}: "{body}"')

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first, last = person(rng)
        tag = rng.randint(10, 99)
        domain, other = rng.sample(EMAIL_DOMAINS, 2)
        return {"name": f"{first} {last}", "number": random_number(rng), "email": f"{first.lower()}{tag}@{domain}",
                "lookalike": f"{first} {decoy_of(rng, first, last)}", "lookalike_number": random_number(rng),
                "lookalike_email": f"{first.lower()}{tag}@{other}", "body": rng.choice(TEXT_BODIES)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for key in ("number", "lookalike_number"):
            remove_contacts_with_number(phone, params[key])
        # the same address at another provider, on someone with the same first name
        for key, num, mail in (("lookalike", "lookalike_number", "lookalike_email"), ("name", "number", "email")):
            first, last = params[key].split(" ", 1)
            put_contact(phone, first, last, number=params[num], email=params[mail])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        body = one_text_to(phone, self, params, params["number"])
        return 1.0 if body is not None and " ".join(body.split()) == params["body"] else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        me = only(phone, params["name"])
        if me is None or not me["phones"]:
            raise TaskError(f"oracle: {params['name']} is not saved once with a number")
        nothing_sent_yet(phone, self, params)
        if phone.foreground == "messages":
            scr = phone.screen
            if scr is None or phone.dialog is not None or phone.menu_open:
                return BACK
            if on_thread_with(phone, me["phones"][0][0]):
                if scr.fields.get("message", "") != params["body"]:
                    return type_into(obs, params["body"], resource_id="compose_message_text") or BACK
                return click(obs, desc="Send SMS") or BACK
            return open_app(phone, APP)
        step = leave_edit(phone, obs) or to_entry(phone, obs, params["name"], me["id"], params["email"])
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        return click(obs, resource_id="text_button") or BACK


def open_form_on(phone: Phone, cid: int | None) -> Any:
    """Set-up: Contacts left showing ``cid``'s edit form (a new-contact form for None), as someone left it."""
    app = phone.app(APP)
    phone.open_app(APP)
    if cid is None:
        app._create(phone)
    else:
        phone.push("detail", contact_id=cid)
        app._edit(phone, cid)
    return phone.screen


@register_task
class DiscardUnsavedEditThenStar(TaskTemplate):
    name = "contacts_discard_unsaved_edit_then_star"
    apps = ("Contacts",)
    complexity = 3
    optimal_steps = 5
    goal_template = ("Someone started changing {name}'s contact on my phone and left the edit screen open without "
                     "saving. Throw those changes away without saving them, then add {name} to my favorites.")
    goal_phrasings = (("{name}'s contact is open in Contacts with edits I didn't make. Cancel the edit, don't save "
                       "anything, and then star {name}."),
                      ("Could you discard the unsaved changes on {name}'s contact (the edit form is still open) and "
                       "make {name} a favorite?"),
                      "Unsaved edits on {name} in Contacts: discard them, then favorite {name}.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first, last = person(rng)
        company, junk_company = rng.sample(COMPANIES, 2)
        return {"name": f"{first} {last}", "number": random_number(rng), "company": company,
                "junk_company": junk_company, "junk_number": random_number(rng),
                "namesake": f"{first} {decoy_of(rng, first, last)}", "namesake_number": random_number(rng)}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        first, last = params["namesake"].split(" ", 1)
        put_contact(phone, first, last, number=params["namesake_number"])
        first, last = params["name"].split(" ", 1)
        cid = put_contact(phone, first, last, number=params["number"], company=params["company"])
        scr = open_form_on(phone, cid)
        scr.fields.update(company=params["junk_company"], phone=params["junk_number"])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        cid = start_id(phone, self, params, params["name"])
        if cid is None:
            return 0.0
        want = start_card(phone, self, params, cid)._replace(starred=1)
        return 1.0 if exact_changes(phone, self, params, {cid: want}) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        me = only(phone, params["name"])
        if me is None:
            raise TaskError(f"oracle: {params['name']} is not saved once")
        start = start_card(phone, self, params, me["id"])
        if cards([tuple(r) for r in phone.query(RAW_SQL)], [tuple(r) for r in phone.query(DATA_SQL)])[me["id"]] != start:
            raise TaskError("oracle: the contact was saved or starred, but the task is not done")
        step = leave_edit(phone, obs)  # "Discard changes?" -> Discard
        if step is not None:
            return step
        scr = phone.screen
        if phone.foreground == APP and scr is not None and scr.name == "edit":
            if phone.dialog is not None or phone.menu_open:
                return BACK
            return click(obs, desc="Cancel") or BACK
        return star_entry(phone, obs, me["id"], True)


@register_task
class FinishInterruptedNewContact(TaskTemplate):
    name = "contacts_finish_interrupted_new_contact"
    apps = ("Contacts",)
    complexity = 3
    optimal_steps = 4
    goal_template = ("I was saving {name} as a new contact ({number}, {email}) when I got interrupted; the half-filled "
                     "form should still be open in Contacts. Check it, fix anything I typed wrong, and save it.")
    goal_phrasings = (("The new-contact form for {name} is still open in Contacts, unsaved. It should say {number} and "
                       "{email}; correct whatever doesn't match and save the contact."),
                      ("Could you finish the contact I started for {name}? Number {number}, email {email}. I think I "
                       "made a typo in the form before I got distracted."),
                      "Half-done new contact {name} ({number}, {email}) in Contacts: fix the typo and save.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first, last = person(rng)
        number, email = random_number(rng), email_for(rng, first, last)
        wrong = rng.choice(("phone", "email"))
        typo = similar_number(rng, number) if wrong == "phone" else typo_of(rng, email.split("@")[0]) + \
            "@" + email.split("@")[1]
        return {"first": first, "last": last, "name": f"{first} {last}", "number": number, "email": email,
                "wrong": wrong, "typo": typo}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        remove_contacts_named(phone, params["name"])
        remove_contacts_with_number(phone, params["number"])
        scr = open_form_on(phone, None)
        scr.fields.update(first=params["first"], last=params["last"], phone=params["number"], email=params["email"])
        scr.fields[params["wrong"]] = params["typo"]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = card_of(phone, params["name"], params["number"], email=params["email"])
        return 1.0 if exact_changes(phone, self, params, {}, [want]) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        values = {"first": params["first"], "last": params["last"], "company": "", "phone": params["number"],
                  "email": params["email"]}
        ids = find_contacts(phone, params["name"])
        if ids:  # saved already, with a mistake left in it
            info = contact_info(phone, ids[0])
            if len(ids) > 1 or (form_values(info) == values and len(info["phones"]) == 1
                                and info["phones"][0][1] == PHONE_TYPES["Mobile"]):
                raise TaskError("oracle: the contact is saved right but something else changed")
            return edit_entry(phone, obs, ids[0], values, PHONE_TYPES["Mobile"])
        return create_contact(phone, obs, values, PHONE_TYPES["Mobile"])


@register_task
class StarNumberEndingIn(TaskTemplate):
    name = "contacts_star_number_ending_in"
    apps = ("Contacts",)
    complexity = 3
    optimal_steps = 6
    goal_template = "Add the contact whose phone number ends in {last4} to my favorites."
    goal_phrasings = ("I only remember that the number ends with {last4}. Star whoever that is in Contacts.",
                      "Could you find the contact with a phone number ending in {last4} and make them a favorite?",
                      "Favorite: the contact whose number ends {last4}.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (f, la), (lf, ll) = two_people(rng)
        last4 = f"{rng.randint(1000, 9999)}"
        area = rng.choice(("415", "650", "212", "312", "617"))
        lookalike = f"({rng.choice(('408', '646', '206'))}) {last4[:3]}-{last4[3]}{rng.randint(0, 999):03d}"
        while normalize_number(lookalike).endswith(last4):
            lookalike = f"({rng.choice(('408', '646', '206'))}) {last4[:3]}-{last4[3]}{rng.randint(0, 999):03d}"
        return {"name": f"{f} {la}", "last4": last4, "number": f"({area}) {rng.randint(201, 989)}-{last4}",
                "lookalike": f"{lf} {ll}", "lookalike_number": lookalike}  # the four digits mid-number

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for c in live_contacts(phone):  # nobody else ends in those digits
            if any(normalize_number(n).endswith(params["last4"]) for n, _ in contact_info(phone, c["_id"])["phones"]):
                remove_contacts_with_number(phone, contact_info(phone, c["_id"])["phones"][0][0])
        for key, num in (("lookalike", "lookalike_number"), ("name", "number")):
            remove_contacts_with_number(phone, params[num])
            first, last = params[key].split(" ", 1)
            put_contact(phone, first, last, number=params[num])

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        cid = start_id(phone, self, params, params["name"])
        if cid is None:
            return 0.0
        want = start_card(phone, self, params, cid)._replace(starred=1)
        return 1.0 if exact_changes(phone, self, params, {cid: want}) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        hits = [c for c in live_contacts(phone)
                if any(normalize_number(n).endswith(params["last4"]) for n, _ in contact_info(phone, c["_id"])["phones"])]
        if len(hits) != 1:
            raise TaskError(f"oracle: {len(hits)} contacts have a number ending in {params['last4']}")
        if hits[0]["starred"]:
            raise TaskError("oracle: the contact is starred but something else changed")
        return star_entry(phone, obs, hits[0]["_id"], True, params["last4"])


@register_task
class DeleteBlankEntriesAmong(TaskTemplate):
    name = "contacts_delete_blank_entries_among"
    apps = ("Contacts",)
    complexity = 3
    optimal_steps = 15
    goal_template = ("Check {name_a}, {name_b} and {name_c} in my contacts: delete the ones that have no phone number "
                     "and no email saved (just a name), and keep the others as they are.")
    goal_phrasings = (("Some of {name_a}, {name_b} and {name_c} are empty contacts with only a name. Remove those "
                       "empty ones; leave the rest alone."),
                      ("Could you look at {name_a}, {name_b} and {name_c} in Contacts and delete any of them that has "
                       "neither a number nor an email?"),
                      "Delete whichever of {name_a} / {name_b} / {name_c} is just a bare name.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        folks = [f"{f} {la}" for f, la in people(rng, 4)]
        blank = sorted(rng.sample(range(3), rng.randint(1, 2)))
        return {"name_a": folks[0], "name_b": folks[1], "name_c": folks[2], "blank": blank,
                "bystander": folks[3],  # a bare name too, but not one of the three
                "numbers": [random_number(rng) for _ in range(3)],
                "emails": [email_for(rng, *n.split(" ", 1)) for n in folks[:3]]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        kept = [k for k in range(3) if k not in params["blank"]]
        for k, name in enumerate(team_names(params)):
            first, last = name.split(" ", 1)
            if k in params["blank"]:
                put_contact(phone, first, last)
            elif k == kept[0]:  # only an email, no number: not blank
                put_contact(phone, first, last, email=params["emails"][k])
            else:
                put_contact(phone, first, last, number=params["numbers"][k])
        first, last = params["bystander"].split(" ", 1)
        put_contact(phone, first, last)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want: dict[int, Card] = {}
        for k in params["blank"]:
            cid = start_id(phone, self, params, team_names(params)[k])
            if cid is None:
                return 0.0
            want[cid] = start_card(phone, self, params, cid)._replace(deleted=1)
        return 1.0 if exact_changes(phone, self, params, want) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        live = {n: find_contacts(phone, n) for n in team_names(params)}
        blank = {i for ids in live.values() for i in ids if blank_contact(contact_info(phone, i))}
        step = confirm_delete_of(phone, obs, blank)
        if step is not None:
            return step
        for k, name in enumerate(team_names(params)):
            if not live[name]:
                continue  # deleted already
            cid = live[name][0]
            if cid in blank:  # open its page (it shows no number and no email) and delete it there
                step = leave_edit(phone, obs) or to_entry(phone, obs, name, cid)
                if step is not None:
                    return step
                if phone.dialog is not None:
                    return BACK
                return menu_item(phone, obs, "Delete")
            step = visit(phone, obs, f"{self.name}:{k}", name)  # has a number or an email: keep
            if step is not None:
                return step
        if self.is_successful(phone, params, None):  # all three checked
            return COMPLETE
        raise TaskError("oracle: every entry is checked and no blank one is left, but the task is not done")


@register_task
class QuerySameCompany(TaskTemplate):
    name = "contacts_query_same_company"
    apps = ("Contacts",)
    kind = "query"
    complexity = 2
    optimal_steps = 9
    goal_template = "Do {name_a} and {name_b} work at the same company? Answer yes or no."
    goal_phrasings = ("Are {name_a} and {name_b} colleagues, going by the company on their contacts? Yes or no.",
                      "Could you check in Contacts whether {name_a} works for the same company as {name_b}? Answer yes or no.",
                      "{name_a} and {name_b}: same employer, yes or no?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (af, al), (bf, bl) = two_people(rng)
        company = rng.choice(COMPANIES)
        words = set(company.split()[1:]) or {company}
        alike = [c for c in COMPANIES if c != company and set(c.split()) & words] or \
            [c for c in COMPANIES if c != company]
        same = rng.random() < 0.5
        other = rng.choice(alike)
        return {"name_a": f"{af} {al}", "name_b": f"{bf} {bl}", "company": company, "same": same,
                "company_b": company if same else other,
                # same first name as name_b; works where name_b does not
                "namesake": f"{bf} {decoy_of(rng, bf, bl)}", "namesake_company": other if same else company,
                "numbers": [random_number(rng) for _ in range(3)]}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for key, company, number in (("name_a", params["company"], params["numbers"][0]),
                                     ("namesake", params["namesake_company"], params["numbers"][2]),
                                     ("name_b", params["company_b"], params["numbers"][1])):
            first, last = params[key].split(" ", 1)
            put_contact(phone, first, last, number=number, company=company)

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        a, b = only(phone, params["name_a"]), only(phone, params["name_b"])
        if a is None or b is None:
            return ""
        return "yes" if a["company"].strip().lower() == b["company"].strip().lower() else "no"

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = self.expected(phone, params)
        other = "no" if want == "yes" else "yes"
        return 1.0 if want and answer_matches(answer, want) and not answer_matches(answer, other) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        for key in ("name_a", "name_b"):
            step = visit(phone, obs, f"{self.name}:{key}", params[key])
            if step is not None:
                return step
        return answer(self.expected(phone, params))


@register_task
class QueryLabelOfNumber(TaskTemplate):
    name = "contacts_query_label_of_number"
    apps = ("Contacts",)
    kind = "query"
    complexity = 2
    optimal_steps = 6
    goal_template = "Is {number} saved as {name}'s mobile, work or home number? Answer with the label."
    goal_phrasings = ("Which label does {number} have on {name}'s contact: Mobile, Work or Home?",
                      "Could you tell me whether {number} is {name}'s mobile, work or home line in Contacts?",
                      "{name}, {number}: mobile, work or home?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        first, last = person(rng)
        labels = ["Mobile", "Work", "Home"]
        rng.shuffle(labels)
        numbers = [random_number(rng) for _ in range(3)]
        pick = rng.randrange(3)
        return {"name": f"{first} {last}", "numbers": numbers, "labels": labels, "number": numbers[pick],
                # the same line saved on a namesake (a relative), under another label
                "namesake": f"{first} {decoy_of(rng, first, last)}",
                "namesake_label": rng.choice([lb for lb in labels if lb != labels[pick]])}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for number in params["numbers"]:
            remove_contacts_with_number(phone, number)
        first, last = params["namesake"].split(" ", 1)
        put_contact(phone, first, last, number=params["number"], ptype=PHONE_TYPES[params["namesake_label"]])
        first, last = params["name"].split(" ", 1)
        cid = put_contact(phone, first, last, number=params["numbers"][0], ptype=PHONE_TYPES[params["labels"][0]])
        for number, label in zip(params["numbers"][1:], params["labels"][1:], strict=True):
            add_phone_row(phone, cid, number, PHONE_TYPES[label])

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        me = only(phone, params["name"])
        hit = [t for n, t in (me["phones"] if me else []) if same_number(n, params["number"])]
        return PHONE_TYPE_LABELS.get(hit[0], "Other") if len(hit) == 1 else ""

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want = self.expected(phone, params)
        ok = bool(want) and answer_matches(answer, want) and \
            not any(answer_matches(answer, lb) for lb in PHONE_TYPES if lb != want)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        step = visit(phone, obs, f"{self.name}:page", params["name"])
        if step is not None:
            return step
        return answer(self.expected(phone, params))


@register_task
class QueryPercentWithEmailAtCompany(TaskTemplate):
    name = "contacts_query_percent_with_email_at_company"
    apps = ("Contacts",)
    kind = "query"
    complexity = 3
    optimal_steps = 13
    goal_template = ("What percentage of my contacts at {company} have an email address saved? Answer with a "
                     "whole-number percentage.")
    goal_phrasings = (("Of the people in Contacts who work at {company}, what percent have an email address? Give a "
                       "whole number."),
                      ("Could you work out how many percent of my {company} contacts have an email on their contact? "
                       "Answer as a whole-number percentage."),
                      "{company} contacts with an email address: what percentage?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        n = rng.choice((4, 5))
        k = rng.choice((1, 3) if n == 4 else (1, 2, 3, 4))
        team = [f"{f} {la}" for f, la in people(rng, n + 1)]
        company = rng.choice(COMPANIES)
        return {"company": company, "team": team[:n], "with_email": sorted(rng.sample(range(n), k)),
                "numbers": [random_number(rng) for _ in range(n + 1)],
                "emails": [email_for(rng, *m.split(" ", 1)) for m in team[:n]],
                # an address at the company's domain on someone who does not work there: a company search shows them
                "outsider": team[n], "outsider_email": f"{team[n].split()[0].lower()}@{email_domain_of(company)}"}

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        phone.execute("DELETE FROM data WHERE mimetype=? AND data1=?", (MIME_ORG, params["company"]))
        for k, name in enumerate(params["team"]):
            first, last = name.split(" ", 1)
            put_contact(phone, first, last, number=params["numbers"][k], company=params["company"],
                        email=params["emails"][k] if k in params["with_email"] else None)
        first, last = params["outsider"].split(" ", 1)
        put_contact(phone, first, last, number=params["numbers"][-1], email=params["outsider_email"])

    def percent(self, phone: Phone, params: dict[str, Any]) -> int | None:
        team = [contact_info(phone, c["_id"]) for c in with_company(phone, params["company"])]
        return round(100 * sum(bool(c["emails"]) for c in team) / len(team)) if team else None

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        pct = self.percent(phone, params)
        ok = pct is not None and answer_matches(answer, str(pct)) and not answer_matches(answer, str(100 - pct))
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        for k, c in enumerate(with_company(phone, params["company"])):  # open each one found by the company
            step = visit(phone, obs, f"{self.name}:{k}", c["display_name"], params["company"])
            if step is not None:
                return step
        pct = self.percent(phone, params)
        if pct is None:
            raise TaskError(f"oracle: nobody works at {params['company']}")
        return answer(f"{pct}%")


@register_task
class QueryFavoritesInListOrder(TaskTemplate):
    name = "contacts_query_favorites_in_list_order"
    apps = ("Contacts",)
    kind = "query"
    complexity = 3
    optimal_steps = 7
    goal_template = ("Which of my contacts are marked as favorites? Name them all, in the order they appear in my "
                     "contacts list.")
    goal_phrasings = ("List every starred contact, top to bottom as my contacts list shows them.",
                      "Could you go through my contacts list and tell me who my favorites are, in list order?",
                      "My favorite contacts, in list order?")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        return {"count": rng.randint(3, 4)}

    def setup(self, phone: Phone, params: dict[str, Any], rng: random.Random | None = None) -> None:
        assert rng is not None
        phone.execute("UPDATE raw_contacts SET starred=0")
        ids = [c["_id"] for c in live_contacts(phone)]
        n = params["count"]
        for part in range(n):  # spread over the whole list: one from each stretch of it
            chunk = ids[part * len(ids) // n:(part + 1) * len(ids) // n]
            phone.execute("UPDATE raw_contacts SET starred=1 WHERE _id=?", (rng.choice(chunk),))

    def favorites(self, phone: Phone) -> list[str]:
        return [c["display_name"] for c in live_contacts(phone) if c["starred"]]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        favs = self.favorites(phone)
        if not favs or answer is None:
            return 0.0
        got = normalize_answer(answer)
        where = []
        for name in favs:
            want = normalize_answer(name)
            spots = [i for i in range(len(got) - len(want) + 1) if got[i:i + len(want)] == want]
            if len(spots) != 1:
                return 0.0
            where.append(spots[0])
        others = [c["display_name"] for c in live_contacts(phone) if not c["starred"]]
        ok = where == sorted(where) and not any(answer_matches(answer, o) for o in others)
        return 1.0 if ok else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        favs = self.favorites(phone)
        step = to_main(phone, obs)
        if step is not None:
            return step
        if phone.dialog is not None or phone.menu_open:
            return BACK
        for k, name in enumerate(favs):  # scroll down the list, past each starred row in turn

            def show(n: str = name) -> Action | None:
                if find(obs, text=n, resource_id="contact_row") is not None:
                    return None
                return scroll_toward(phone, obs, text=n, resource_id="contact_row") or BACK
            step = look_first(phone, f"{self.name}:{k}", show)
            if step is not None:
                return step
        return answer(", ".join(favs))


def via_list(phone: Phone, obs: Observation, name: str, cid: int) -> Action | None:
    """Next action toward contact ``cid``'s page, tapped in the main list (scrolled to); None once there."""
    scr = phone.screen
    if phone.foreground == APP and scr is not None and scr.name == "detail":
        return None if scr.args.get("contact_id") == cid else BACK
    step = to_main(phone, obs)
    if step is not None:
        return step
    if phone.dialog is not None or phone.menu_open:
        return BACK
    return click_or_scroll(phone, obs, text=name, resource_id="contact_row") or BACK


@register_task
class UnstarFavoritesWithoutNumber(TaskTemplate):
    name = "contacts_unstar_favorites_without_number"
    apps = ("Contacts",)
    complexity = 3
    optimal_steps = 16
    goal_template = ("I can't call favorites that have no number. Take every favorite contact that has no phone number "
                     "saved off my favorites; the favorites with a number stay.")
    goal_phrasings = ("Unstar each of my favorites that has no phone number on it. Keep the other favorites starred.",
                      ("Could you go through my favorite contacts and remove from favorites the ones without a phone "
                       "number?"),
                      "Favorites with no phone number: unstar them all; leave the rest.")

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        folks = [f"{f} {la}" for f, la in people(rng, 3)]
        n = rng.randint(1, 2)
        return {"no_number": folks[:n], "bystander": folks[2],  # no number either, but not a favorite
                "emails": [email_for(rng, *m.split(" ", 1)) for m in folks], "with_number": rng.randint(2, 3)}

    def setup(self, phone: Phone, params: dict[str, Any], rng: random.Random | None = None) -> None:
        assert rng is not None
        phone.execute("UPDATE raw_contacts SET starred=0")
        for name, email in zip([*params["no_number"], params["bystander"]], params["emails"], strict=False):
            first, last = name.split(" ", 1)
            put_contact(phone, first, last, email=email, starred=name != params["bystander"])
        numbered = [c["_id"] for c in live_contacts(phone) if contact_info(phone, c["_id"])["phones"]]
        for cid in rng.sample(numbered, params["with_number"]):
            phone.execute("UPDATE raw_contacts SET starred=1 WHERE _id=?", (cid,))

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        want: dict[int, Card] = {}
        for name in params["no_number"]:
            cid = start_id(phone, self, params, name)
            if cid is None:
                return 0.0
            want[cid] = start_card(phone, self, params, cid)._replace(starred=0)
        return 1.0 if exact_changes(phone, self, params, want) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        before = {i for i, c in start_and_now(phone, self, params)[0].items() if c.starred and not c.deleted}
        for k, c in enumerate(live_contacts(phone)):  # the starred rows, down the list
            if c["_id"] not in before:
                continue
            info = contact_info(phone, c["_id"])
            if c["starred"] and not info["phones"]:
                step = leave_edit(phone, obs) or via_list(phone, obs, c["display_name"], c["_id"])
                if step is not None:
                    return step
                if phone.dialog is not None or phone.menu_open:
                    return BACK
                return click(obs, desc="Remove from favorites") or BACK
            step = look_first(phone, f"{self.name}:{c['_id']}",  # has a number: stays
                              lambda c=c: leave_edit(phone, obs) or via_list(phone, obs, c["display_name"], c["_id"])
                              or dismiss_popups(phone))
            if step is not None:
                return step
        if self.is_successful(phone, params, None):
            return COMPLETE
        raise TaskError("oracle: every favorite is checked but the task is not done")


@register_task
class EmailLikeColleague(TaskTemplate):
    name = "contacts_email_in_colleague_pattern"
    apps = ("Contacts",)
    complexity = 3
    optimal_steps = 11
    goal_template = ("{name_b} has joined {name_a}'s company. Give {name_b}'s contact a work email in the same pattern as "
                     "{name_a}'s address there: first name, a dot, last name, all lower-case, at the same domain. "
                     "Change nothing else.")
    goal_phrasings = (("Add a work email to {name_b}: it's built like {name_a}'s (firstname.lastname in lower case, "
                       "same domain), since they now work together."),
                      ("Could you work out {name_b}'s new work address from {name_a}'s email (same domain, "
                       "first.last in lower case) and save it on {name_b}'s contact?"),
                      ("{name_b} now works with {name_a}: save firstname.lastname (lower case) at the domain of "
                       "{name_a}'s email as {name_b}'s email, and nothing else."))

    def generate_params(self, rng: random.Random) -> dict[str, Any]:
        (af, al), (bf, bl) = two_people(rng)
        company, other = rng.sample(COMPANIES, 2)
        return {"name_a": f"{af} {al}", "name_b": f"{bf} {bl}", "company": company,
                "domain": email_domain_of(company), "numbers": [random_number(rng) for _ in range(3)],
                # the same first name as name_a, at another company's domain
                "namesake": f"{af} {decoy_of(rng, af, al)}", "namesake_domain": email_domain_of(other)}

    def address(self, name: str, domain: str) -> str:
        first, last = name.lower().split(" ", 1)
        return f"{first}.{last}@{domain}"

    def setup(self, phone: Phone, params: dict[str, Any]) -> None:
        for key, number, email, company in (
                ("namesake", params["numbers"][2], self.address(params["namesake"], params["namesake_domain"]), None),
                ("name_a", params["numbers"][0], self.address(params["name_a"], params["domain"]), params["company"]),
                ("name_b", params["numbers"][1], None, None)):
            first, last = params[key].split(" ", 1)
            put_contact(phone, first, last, number=number, email=email, company=company)

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        cid = start_id(phone, self, params, params["name_b"])
        if cid is None:
            return 0.0
        want = start_card(phone, self, params, cid)._replace(
            emails=(self.address(params["name_b"], params["domain"]),))
        return 1.0 if exact_changes(phone, self, params, {cid: want}) else 0.0

    def oracle_action(self, phone: Phone, params: dict[str, Any], obs: Observation) -> Action:
        if self.is_successful(phone, params, None):
            return COMPLETE
        a, b = only(phone, params["name_a"]), only(phone, params["name_b"])
        if a is None or b is None or not a["emails"]:
            raise TaskError("oracle: the two contacts (and the first one's email) are not there once each")
        step = visit(phone, obs, f"{self.name}:domain", params["name_a"])  # read the domain first
        if step is not None:
            return step
        domain = a["emails"][0].split("@", 1)[1]
        if [e.lower() for e in b["emails"]] == [self.address(params["name_b"], domain)]:
            raise TaskError("oracle: the email is there but something else changed")
        return edit_entry(phone, obs, b["id"], {"email": self.address(params["name_b"], domain)})
