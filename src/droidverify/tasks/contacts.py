"""Contacts tasks: create (with type/email/company), edit number/email/type/name, delete, favourites,
and queries (a number, an email, an employer, head counts).

Set-ups insert the contacts a goal names (removing any seeded namesake first, so names are
unambiguous) plus a *decoy* sharing the first name; checkers require the decoy untouched, so
editing, starring or deleting the wrong person fails. Checkers read ``raw_contacts``/``data``.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from droidverify.actions.model import Action
from droidverify.env.records import Observation
from droidverify.env.sim.apps.contacts import (
    COMPANIES,
    FIRST_NAMES,
    LAST_NAMES,
    MIME_ORG,
    PHONE_TYPE_LABELS,
    PHONE_TYPES,
    add_contact,
    contact_info,
    find_contacts,
    live_contacts,
    normalize_number,
    random_number,
    remove_contacts_named,
)
from droidverify.env.sim.phone import Phone
from droidverify.tasks.base import TaskTemplate
from droidverify.tasks.helpers import (
    BACK,
    COMPLETE,
    answer,
    answer_matches,
    click,
    click_or_scroll,
    navigate,
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


@register_task
class AddContactTyped(AddContactTemplate):
    name = "contacts_add_contact_phone_type"
    complexity = 2
    with_type = True
    optimal_steps = 9
    goal_template = "Add a contact {name} whose {ptype_lower} phone number is {number}."


@register_task
class AddContactEmail(AddContactTemplate):
    name = "contacts_add_contact_with_email"
    complexity = 2
    with_email = True
    optimal_steps = 8
    goal_template = "Add {name} to my contacts: phone {number}, email {email}."


@register_task
class AddContactCompany(AddContactTemplate):
    name = "contacts_add_contact_with_company"
    complexity = 2
    with_company = True
    optimal_steps = 8
    goal_template = "Save a new contact: {name}, who works at {company}, phone number {number}."


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


@register_task
class UnstarContact(StarTemplate):
    name = "contacts_remove_from_favorites"
    optimal_steps = 7
    want, start_starred = False, True
    goal_template = "Remove {name} from my favorites."


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

    def expected(self, phone: Phone, params: dict[str, Any]) -> str:
        return params["number"]

    def is_successful(self, phone: Phone, params: dict[str, Any], answer: str | None) -> float:
        return 1.0 if number_answer_matches(answer, params["number"]) else 0.0


@register_task
class QueryEmail(ContactQuery):
    name = "contacts_query_email"
    optimal_steps = 6
    goal_template = "What is the email address of {name}?"

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
