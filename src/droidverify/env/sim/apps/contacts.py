"""Contacts (com.google.android.contacts): alphabetical list with search, detail, create/edit, delete.

State is shaped like the ContactsContract provider: ``raw_contacts`` (one row per contact, with
``starred`` and a soft ``deleted`` flag as on a device before sync) and ``data`` (one row per
name / phone / email / organization item, told apart by ``mimetype``; ``data1`` is the value,
``data2`` the type, ``data3`` the family name for names).
"""

from __future__ import annotations

import random
import re
from typing import Any

from droidverify.env.sim.app import (
    ACCENT,
    App,
    app_bar,
    button,
    edit_field,
    fab,
    icon_button,
    list_row,
    list_view,
    register_app,
    screen_frame,
    text_view,
)
from droidverify.env.sim.phone import Phone, Screen
from droidverify.env.sim.view import V, View

MIME_NAME = "vnd.android.cursor.item/name"
MIME_PHONE = "vnd.android.cursor.item/phone_v2"
MIME_EMAIL = "vnd.android.cursor.item/email_v2"
MIME_ORG = "vnd.android.cursor.item/organization"

# ContactsContract.CommonDataKinds.Phone.TYPE_* values
PHONE_TYPES: dict[str, int] = {"Mobile": 2, "Work": 3, "Home": 1, "Other": 7}
PHONE_TYPE_LABELS: dict[int, str] = {v: k for k, v in PHONE_TYPES.items()}

FIRST_NAMES = (
    "Aisha", "Alejandro", "Amara", "Ananya", "Andrei", "Beatriz", "Chen", "Chloe", "Dmitri", "Elena",
    "Emeka", "Fatima", "Gabriel", "Hana", "Hiroshi", "Ingrid", "Isabel", "Jamal", "Javier", "Jin",
    "Kofi", "Leila", "Liam", "Lucia", "Mateo", "Mei", "Mohammed", "Nadia", "Noah", "Olga", "Omar",
    "Priya", "Rafael", "Rosa", "Sakura", "Samuel", "Sofia", "Tariq", "Thandiwe", "Tomas", "Valentina",
    "Wei", "Yusuf", "Zara", "Ethan", "Grace", "Marcus", "Naomi", "Oliver", "Ravi", "Sven", "Tanya",
)
LAST_NAMES = (
    "Abdullah", "Adeyemi", "Alvarez", "Andersson", "Bianchi", "Chowdhury", "Costa", "Dubois", "Fischer",
    "Garcia", "Haddad", "Hoang", "Ivanova", "Jensen", "Kim", "Kowalski", "Kumar", "Larsen", "Lopez",
    "Mensah", "Miller", "Moreau", "Nakamura", "Nguyen", "Novak", "Okafor", "Olsen", "Park", "Patel",
    "Petrov", "Rossi", "Santos", "Schmidt", "Singh", "Suzuki", "Tanaka", "Torres", "Wang", "Williams",
    "Yilmaz", "Zhang", "Brennan", "Castillo", "Dlamini", "Eriksen", "Farouk", "Gallagher", "Horvat",
)
COMPANIES = ("Acme Corp", "Globex", "Initech", "Umbrella Health", "Stark Industries", "Wayne Enterprises",
             "Hooli", "Pied Piper", "Soylent Foods", "Vandelay Industries", "Blue Sky Studios",
             "Northwind Traders")
AREA_CODES = ("415", "650", "408", "212", "646", "312", "617", "206", "503", "512", "305", "213")
EMAIL_DOMAINS = ("gmail.com", "outlook.com", "yahoo.com", "icloud.com", "proton.me")


# ---- phone numbers ----------------------------------------------------------------------------
def normalize_number(number: str | None) -> str:
    """Digits only, without a leading US country code: "+1 (415) 555-0134" -> "4155550134"."""
    digits = re.sub(r"\D", "", number or "")
    if len(digits) == 11 and digits.startswith("1"):
        digits = digits[1:]
    return digits


def random_number(rng: random.Random) -> str:
    return f"({rng.choice(AREA_CODES)}) {rng.randint(201, 989)}-{rng.randint(0, 9999):04d}"


# ---- data access (used by the screens and by task checkers) ------------------------------------
def add_contact(phone: Phone, first: str, last: str = "", *, number: str | None = None, ptype: int = 2,
                email: str | None = None, company: str | None = None, starred: bool = False) -> int:
    """Insert a contact (raw_contacts + data rows); returns its ``_id``."""
    display = f"{first} {last}".strip() or (number or email or "")
    cid = phone.execute("INSERT INTO raw_contacts(display_name, starred, deleted) VALUES(?, ?, 0)",
                        (display, int(starred)))
    phone.execute("INSERT INTO data(raw_contact_id, mimetype, data1, data2, data3) VALUES(?,?,?,?,?)",
                  (cid, MIME_NAME, display, first, last))
    if number:
        phone.execute("INSERT INTO data(raw_contact_id, mimetype, data1, data2) VALUES(?,?,?,?)",
                      (cid, MIME_PHONE, number, ptype))
    if email:
        phone.execute("INSERT INTO data(raw_contact_id, mimetype, data1, data2) VALUES(?,?,?,1)",
                      (cid, MIME_EMAIL, email))
    if company:
        phone.execute("INSERT INTO data(raw_contact_id, mimetype, data1) VALUES(?,?,?)", (cid, MIME_ORG, company))
    return cid


def live_contacts(phone: Phone) -> list[Any]:
    """Rows (``_id``, ``display_name``, ``starred``) of contacts not deleted, sorted by name."""
    return phone.query("SELECT _id, display_name, starred FROM raw_contacts WHERE deleted=0 "
                       "ORDER BY display_name COLLATE NOCASE, _id")


def find_contacts(phone: Phone, name: str) -> list[int]:
    """Ids of live contacts whose display name equals ``name`` (case-insensitive, spaces squeezed)."""
    want = " ".join(name.split()).lower()
    return [r["_id"] for r in live_contacts(phone) if " ".join(r["display_name"].split()).lower() == want]


def contact_info(phone: Phone, cid: int) -> dict[str, Any]:
    """Everything about one contact: name parts, phones [(number, type)], emails, company, starred."""
    rc = phone.query_one("SELECT display_name, starred, deleted FROM raw_contacts WHERE _id=?", (cid,))
    if rc is None:
        return {}
    rows = phone.query("SELECT mimetype, data1, data2, data3 FROM data WHERE raw_contact_id=? ORDER BY _id", (cid,))
    name = next((r for r in rows if r["mimetype"] == MIME_NAME), None)
    return {
        "id": cid, "name": rc["display_name"], "starred": bool(rc["starred"]), "deleted": bool(rc["deleted"]),
        "first": name["data2"] if name else "", "last": name["data3"] if name else "",
        "phones": [(r["data1"], int(r["data2"] or 2)) for r in rows if r["mimetype"] == MIME_PHONE],
        "emails": [r["data1"] for r in rows if r["mimetype"] == MIME_EMAIL],
        "company": next((r["data1"] for r in rows if r["mimetype"] == MIME_ORG), ""),
    }


def contact_for_number(phone: Phone, number: str) -> int | None:
    """Id of the first live contact with this phone number (compared digit-wise), else None."""
    want = normalize_number(number)
    if not want:
        return None
    for r in phone.query("SELECT d.raw_contact_id, d.data1 FROM data d JOIN raw_contacts c ON c._id=d.raw_contact_id "
                         "WHERE d.mimetype=? AND c.deleted=0 ORDER BY c.display_name COLLATE NOCASE", (MIME_PHONE,)):
        if normalize_number(r["data1"]) == want:
            return r["raw_contact_id"]
    return None


def remove_contacts_named(phone: Phone, name: str) -> None:
    """Hard-delete every contact called ``name`` (task set-up: make a name unambiguous)."""
    for cid in find_contacts(phone, name):
        phone.execute("DELETE FROM data WHERE raw_contact_id=?", (cid,))
        phone.execute("DELETE FROM raw_contacts WHERE _id=?", (cid,))


def remove_contacts_with_number(phone: Phone, number: str) -> None:
    while (cid := contact_for_number(phone, number)) is not None:
        phone.execute("DELETE FROM data WHERE raw_contact_id=?", (cid,))
        phone.execute("DELETE FROM raw_contacts WHERE _id=?", (cid,))


def _initial(name: str) -> str:
    return name[:1].upper() if name[:1].isalpha() else "#"


@register_app
class ContactsApp(App):
    key = "contacts"
    name = "Contacts"
    package = "com.google.android.contacts"
    aliases = ("google contacts", "contacts app", "people")
    icon_color = "#1a73e8"
    activity = "com.android.contacts.activities.PeopleActivity"

    # ---- state ------------------------------------------------------------------------------
    def create_schema(self, phone: Phone) -> None:
        phone.execute("CREATE TABLE raw_contacts (_id INTEGER PRIMARY KEY AUTOINCREMENT, display_name TEXT, "
                      "starred INTEGER DEFAULT 0, deleted INTEGER DEFAULT 0, times_contacted INTEGER DEFAULT 0)")
        phone.execute("CREATE TABLE data (_id INTEGER PRIMARY KEY AUTOINCREMENT, raw_contact_id INTEGER, "
                      "mimetype TEXT, data1 TEXT, data2 TEXT, data3 TEXT, is_primary INTEGER DEFAULT 0)")

    def seed_data(self, phone: Phone, rng: random.Random) -> None:
        n = rng.randint(38, 48)
        names: set[tuple[str, str]] = set()
        while len(names) < n:
            names.add((rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)))
        for first, last in sorted(names):
            email = None
            if rng.random() < 0.45:
                email = f"{first.lower()}.{last.lower()}@{rng.choice(EMAIL_DOMAINS)}"
            company = rng.choice(COMPANIES) if rng.random() < 0.35 else None
            ptype = rng.choices((2, 3, 1), weights=(7, 2, 1))[0]
            add_contact(phone, first, last, number=random_number(rng), ptype=ptype, email=email,
                        company=company, starred=rng.random() < 0.15)

    # ---- shared pieces ------------------------------------------------------------------------
    def _row(self, phone: Phone, c: Any) -> View:
        star = V("image", desc="Favorite", rid="star", w=70, h=70, style={"icon": "star"}) if c["starred"] else None
        avatar = V("image", rid="avatar", w=110, h=110,
                   style={"icon": "avatar", "bg": ACCENT, "shape": "round", "letter": _initial(c["display_name"])})
        return V("linear", avatar, text_view(c["display_name"], rid="cliv_name_textview", size=46, grow=1,
                                             style={"valign": "center"}), star,
                 rid="contact_row", horizontal=True, clickable=True, focusable=True, long_clickable=True,
                 on_click=lambda i=c["_id"]: phone.push("detail", contact_id=i),
                 on_long_click=lambda i=c["_id"]: phone.push("detail", contact_id=i),
                 h=150, pad=(48, 20, 40, 20), gap=40)

    def _rows(self, phone: Phone, contacts: list[Any], *, headers: bool) -> list[View]:
        rows: list[View] = []
        last = None
        for c in contacts:
            letter = _initial(c["display_name"])
            if headers and letter != last:
                rows.append(text_view(letter, rid="section_header", size=38, h=100, pad=(60, 40, 0, 0),
                                      style={"fg": ACCENT, "bold": True}))
                last = letter
            rows.append(self._row(phone, c))
        return rows

    def _create(self, phone: Phone) -> None:
        scr = phone.push("edit", contact_id=None)
        scr.state["ptype"] = PHONE_TYPES["Mobile"]
        scr.state["initial"] = {}

    # ---- screens --------------------------------------------------------------------------------
    def screen_main(self, phone: Phone, scr: Screen) -> View:
        contacts = live_contacts(phone)
        search = V("linear", V("image", w=70, h=70, style={"icon": "search"}),
                   text_view("Search contacts", rid="open_search_bar_text_view", grow=1, style={"fg": "#5f6368"}),
                   rid="open_search_bar", desc="Search contacts", horizontal=True, clickable=True, focusable=True,
                   on_click=lambda: phone.push("search"), h=140, pad=(40, 30, 40, 30), gap=30,
                   style={"bg": "#e8eaed", "shape": "pill"})
        count = text_view(f"{len(contacts)} contacts", rid="account_filter_header", size=34,
                          pad=(60, 10, 0, 10), style={"fg": "#5f6368"})
        menu = [("Select", lambda: phone.show_toast("Long press a contact to select it")),
                ("Settings", lambda: phone.show_toast("Contacts settings are managed by your Google Account"))]
        bar = app_bar("Contacts", menu=menu, phone=phone)
        body = V("linear", V("linear", search, pad=(40, 0, 40, 20)), count,
                 list_view(phone, scr, self._rows(phone, contacts, headers=True), empty="No contacts"), grow=1)
        return screen_frame(bar, body, fab=fab("Create contact", lambda: self._create(phone),
                                               rid="floating_action_button"))

    def screen_search(self, phone: Phone, scr: Screen) -> View:
        query = scr.fields.get("query", "").strip().lower()
        rows: list[View] = []
        if query:
            digits = normalize_number(query)
            hits = []
            for c in live_contacts(phone):
                info = contact_info(phone, c["_id"])
                hay = " ".join([c["display_name"], info["company"], *info["emails"]]).lower()
                nums = [normalize_number(n) for n, _ in info["phones"]]
                if query in hay or (digits and len(digits) >= 3 and any(digits in n for n in nums)):
                    hits.append(c)
            rows = self._rows(phone, hits, headers=False)
        field = edit_field(phone, scr.fields, "query", hint="Search contacts", rid="search_view")
        field.grow = 1
        bar = V("linear", icon_button("Navigate up", phone.back, icon="back", w=147, h=147), field,
                horizontal=True, h=168, pad=(12, 10, 30, 10))
        return screen_frame(bar, list_view(phone, scr, rows, empty="No contacts found" if query else None))

    def screen_detail(self, phone: Phone, scr: Screen) -> View:
        cid = scr.args["contact_id"]
        info = contact_info(phone, cid)
        if not info or info["deleted"]:
            return screen_frame(app_bar("", back=phone.back), text_view("Contact not found", pad=60))
        starred = info["starred"]
        star = ("Remove from favorites" if starred else "Add to favorites", "menu_star",
                lambda: self.set_starred(phone, cid, not starred))
        edit = ("Edit contact", "menu_edit", lambda: self._edit(phone, cid))
        menu = [("Delete", lambda: phone.show_dialog(
                    self.key, "confirm", title="Delete this contact?",
                    message=f"{info['name']} will be permanently deleted from this device.", ok="Delete",
                    on_ok="delete_contact", args={"contact_id": cid})),
                ("Share", lambda: phone.show_dialog(self.key, "choice", title="Share contact via",
                                                    options=["Messages"], on_ok="share_contact",
                                                    args={"contact_id": cid}))]
        bar = app_bar("", back=phone.back, actions=[star, edit], menu=menu, phone=phone)
        bar.children[-2].checked = starred  # the star icon shows its state
        number = info["phones"][0][0] if info["phones"] else None
        email = info["emails"][0] if info["emails"] else None
        head = [V("image", rid="photo", w=300, h=300,
                  style={"icon": "avatar", "bg": ACCENT, "shape": "round", "letter": _initial(info["name"])}),
                text_view(info["name"], rid="large_title", size=64, style={"align": "center"})]
        if info["company"]:
            head.append(text_view(info["company"], rid="organization", size=40,
                                  style={"align": "center", "fg": "#5f6368"}))
        actions = V("linear",
                    button("Call", (lambda: phone.show_toast(f"Calling {number}")) if number else None,
                           desc="Call", rid="call_button", enabled=number is not None),
                    button("Text", (lambda: self.text_number(phone, number)) if number else None,
                           desc="Text", rid="text_button", enabled=number is not None),
                    button("Email", (lambda: phone.show_toast("No email app is set up")) if email else None,
                           desc="Email", rid="email_button", enabled=email is not None),
                    horizontal=True, gap=30, pad=(40, 20, 40, 20))
        rows: list[View] = [V("linear", *head, actions, pad=(0, 30, 0, 10), gap=10)]
        rows.append(text_view("Contact info", rid="header", size=44, pad=(48, 30, 0, 10), style={"bold": True}))
        for num, ptype in info["phones"]:
            rows.append(list_row(num, PHONE_TYPE_LABELS.get(ptype, "Other"), rid="phone_row", icon="phone",
                                 on_click=lambda n=num: phone.show_toast(f"Calling {n}"),
                                 right=icon_button(f"Send message to {num}", lambda n=num: self.text_number(phone, n),
                                                   rid="send_message", icon="message")))
        for em in info["emails"]:
            rows.append(list_row(em, "Home", rid="email_row", icon="email"))
        if not info["phones"] and not info["emails"]:
            rows.append(list_row("Add phone number", None, icon="phone", on_click=lambda: self._edit(phone, cid)))
        return screen_frame(bar, list_view(phone, scr, rows, key="detail"))

    def screen_edit(self, phone: Phone, scr: Screen) -> View:
        cid = scr.args.get("contact_id")
        f = scr.fields
        ptype = int(scr.state.get("ptype", 2))

        def pick_type() -> None:
            phone.show_dialog(self.key, "choice", title="Phone type", options=list(PHONE_TYPES),
                              selected=PHONE_TYPE_LABELS.get(ptype, "Other"), on_ok="set_phone_type")

        save = button("Save", lambda: self.save(phone), rid="toolbar_button", primary=True, w=220, h=120)
        bar = V("linear", icon_button("Cancel", lambda: self.cancel_edit(phone), rid="close", icon="close", w=147, h=147),
                text_view("Create contact" if cid is None else "Edit contact", rid="title", grow=1, size=52,
                          style={"valign": "center"}),
                save, rid="toolbar", horizontal=True, h=168, pad=(12, 10, 30, 10))
        type_row = V("linear", text_view("Phone type", size=36, w=300, style={"fg": "#5f6368", "valign": "center"}),
                     V("text", text=PHONE_TYPE_LABELS.get(ptype, "Other"), desc="Phone type", rid="phone_type",
                       clickable=True, focusable=True, on_click=pick_type, grow=1,
                       style={"size": 44, "border": True, "valign": "center"}),
                     horizontal=True, h=130)
        form = V("linear",
                 edit_field(phone, f, "first", hint="First name", rid="first_name"),
                 edit_field(phone, f, "last", hint="Last name", rid="last_name"),
                 edit_field(phone, f, "company", hint="Company", rid="company"),
                 edit_field(phone, f, "phone", hint="Phone", rid="phone_number"),
                 type_row,
                 edit_field(phone, f, "email", hint="Email", rid="email"),
                 rid="editors", pad=(48, 30, 48, 30), gap=28)
        return screen_frame(bar, V("scroll", form, rid="scroll_view"))

    # ---- behaviour ---------------------------------------------------------------------------------
    def _edit(self, phone: Phone, cid: int) -> None:
        info = contact_info(phone, cid)
        scr = phone.push("edit", contact_id=cid)
        values = {"first": info["first"] or "", "last": info["last"] or "", "company": info["company"] or "",
                  "phone": info["phones"][0][0] if info["phones"] else "",
                  "email": info["emails"][0] if info["emails"] else ""}
        scr.fields.update(values)
        scr.state["ptype"] = info["phones"][0][1] if info["phones"] else PHONE_TYPES["Mobile"]
        scr.state["initial"] = dict(values, ptype=scr.state["ptype"])

    def set_phone_type(self, phone: Phone, value: str) -> None:
        scr = phone.screen
        if scr is not None and scr.name == "edit":
            scr.state["ptype"] = PHONE_TYPES[value]

    def set_starred(self, phone: Phone, cid: int, starred: bool) -> None:
        phone.execute("UPDATE raw_contacts SET starred=? WHERE _id=?", (int(starred), cid))
        phone.show_toast("Added to favorites" if starred else "Removed from favorites")

    def save(self, phone: Phone) -> None:
        scr = phone.screen
        assert scr is not None
        f = {k: " ".join(scr.fields.get(k, "").split()) for k in ("first", "last", "company", "phone", "email")}
        if not (f["first"] or f["last"] or f["phone"] or f["email"]):
            phone.show_toast("Add a name or phone number to save this contact")
            return
        if f["phone"] and not normalize_number(f["phone"]):
            phone.show_toast("Enter a valid phone number")
            return
        ptype = int(scr.state.get("ptype", 2))
        cid = scr.args.get("contact_id")
        if cid is None:
            new = add_contact(phone, f["first"], f["last"], number=f["phone"] or None, ptype=ptype,
                              email=f["email"] or None, company=f["company"] or None)
            phone.pop()
            phone.push("detail", contact_id=new)
        else:
            display = f"{f['first']} {f['last']}".strip() or f["phone"] or f["email"]
            phone.execute("UPDATE raw_contacts SET display_name=? WHERE _id=?", (display, cid))
            phone.execute("UPDATE data SET data1=?, data2=?, data3=? WHERE raw_contact_id=? AND mimetype=?",
                          (display, f["first"], f["last"], cid, MIME_NAME))
            self._set_single(phone, cid, MIME_PHONE, f["phone"], ptype)
            self._set_single(phone, cid, MIME_EMAIL, f["email"], 1)
            self._set_single(phone, cid, MIME_ORG, f["company"], None)
            phone.pop()
        phone.show_toast("Contact saved")

    def _set_single(self, phone: Phone, cid: int, mime: str, value: str, dtype: int | None) -> None:
        """The form edits the first item of a kind: update it, insert it, or delete it when cleared."""
        row = phone.query_one("SELECT _id FROM data WHERE raw_contact_id=? AND mimetype=? ORDER BY _id", (cid, mime))
        if not value:
            if row is not None:
                phone.execute("DELETE FROM data WHERE _id=?", (row["_id"],))
        elif row is None:
            phone.execute("INSERT INTO data(raw_contact_id, mimetype, data1, data2) VALUES(?,?,?,?)",
                          (cid, mime, value, dtype))
        else:
            phone.execute("UPDATE data SET data1=?, data2=? WHERE _id=?", (value, dtype, row["_id"]))

    def discard(self, phone: Phone) -> None:
        phone.pop()

    def cancel_edit(self, phone: Phone) -> None:
        if not _on_back(phone):
            phone.pop()

    def delete_contact(self, phone: Phone, contact_id: int) -> None:
        phone.execute("UPDATE raw_contacts SET deleted=1 WHERE _id=?", (contact_id,))
        scr = phone.screen
        if scr is not None and scr.name == "detail":
            phone.pop()
        phone.show_toast("Contact deleted")

    def text_number(self, phone: Phone, number: str) -> None:
        """The detail screen's "Text" button opens the conversation in Messages."""
        if "messages" in phone.apps:
            phone.open_app("messages", "thread", address=number)
        else:
            phone.show_toast("No messaging app installed")

    def share_contact(self, phone: Phone, value: str, contact_id: int) -> None:
        info = contact_info(phone, contact_id)
        lines = [info["name"], *(n for n, _ in info["phones"]), *info["emails"]]
        if "messages" in phone.apps:
            phone.open_app("messages", "compose", body="\n".join(lines))
        else:
            phone.show_toast("No messaging app installed")


def _on_back(phone: Phone) -> bool:
    """Back on a changed edit form asks before discarding (as Google Contacts does)."""
    scr = phone.screen
    if scr is None or scr.name != "edit" or phone.dialog is not None:
        return False
    initial = scr.state.get("initial", {})
    now = {k: scr.fields.get(k, "") for k in ("first", "last", "company", "phone", "email")}
    changed = any(now[k] != initial.get(k, "") for k in now) or \
        (initial and scr.state.get("ptype") != initial.get("ptype"))
    if not changed:
        return False
    phone.show_dialog("contacts", "confirm", title="Discard changes?", ok="Discard", on_ok="discard")
    return True


ContactsApp.on_back = staticmethod(_on_back)
