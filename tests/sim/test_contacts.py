"""Contacts app and its tasks: oracle, do-nothing, checker success/near miss, screens."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from simhelpers import fresh, unread_values

from droidverify.actions.model import Action
from droidverify.env.sim import SimEnv
from droidverify.env.sim.apps.contacts import (
    MIME_EMAIL,
    MIME_ORG,
    MIME_PHONE,
    add_contact,
    contact_info,
    find_contacts,
    live_contacts,
    normalize_number,
)
from droidverify.env.sim.phone import Phone
from droidverify.env.sim.skin import SKIN_COUNT
from droidverify.tasks import registry
from droidverify.tasks.oracle_utils import find

NAMES = [t.name for t in registry.all_templates() if t.name.startswith("contacts_")]


def test_enough_contacts_templates() -> None:
    assert len(NAMES) >= 25


# ---- checker cases: (make it right, make it almost right) applied by SQL after set-up -----------
def _cid(p: Phone, name: str) -> int:
    ids = find_contacts(p, name)
    assert len(ids) == 1, (name, ids)
    return ids[0]


def _set_phone(p: Phone, name: str, number: str, ptype: int | None = None) -> None:
    cid = _cid(p, name)
    p.execute("UPDATE data SET data1=? WHERE raw_contact_id=? AND mimetype=?", (number, cid, MIME_PHONE))
    if ptype is not None:
        p.execute("UPDATE data SET data2=? WHERE raw_contact_id=? AND mimetype=?", (ptype, cid, MIME_PHONE))


def _add(params: dict, **over: Any) -> Callable[[Phone, dict], None]:
    def go(p: Phone, _params: dict) -> None:
        kw = {"number": params["number"], "ptype": {"Mobile": 2, "Work": 3, "Home": 1}[params["ptype"]],
              "email": params.get("email"), "company": params.get("company")}
        kw.update(over)
        add_contact(p, params["first"], params["last"], **kw)
    return go


def _other_number(number: str) -> str:
    d = normalize_number(number)
    return f"({d[:3]}) {d[3:6]}-{(int(d[6:]) + 1) % 10000:04d}"


def _delete(p: Phone, name: str) -> None:
    p.execute("UPDATE raw_contacts SET deleted=1 WHERE _id=?", (_cid(p, name),))


def _star(p: Phone, name: str, value: int) -> None:
    p.execute("UPDATE raw_contacts SET starred=? WHERE _id=?", (value, _cid(p, name)))


Case = Callable[[Phone, dict], None]


def _email(who: str) -> Case:
    return lambda p, q: p.execute("INSERT INTO data(raw_contact_id, mimetype, data1, data2) VALUES(?,?,?,1)",
                                  (_cid(p, q[who]), MIME_EMAIL, q["email"]))


def _phone_type(params: dict) -> tuple[Case, Case]:
    code = {"Work": 3, "Home": 1}[params["ptype"]]
    other = 1 if code == 3 else 3
    return (lambda p, q: _set_phone(p, q["name"], q["number"], code),
            lambda p, q: _set_phone(p, q["name"], q["number"], other))  # the other wrong label


def _rename(number_too: bool) -> Case:
    def go(p: Phone, q: dict) -> None:
        cid = _cid(p, q["name"])
        p.execute("UPDATE raw_contacts SET display_name=? WHERE _id=?", (q["new_name"], cid))
        p.execute("UPDATE data SET data1=?, data3=? WHERE raw_contact_id=? AND mimetype LIKE '%/name'",
                  (q["new_name"], q["new_last"], cid))
        if number_too:
            _set_phone(p, q["new_name"], _other_number(q["number"]))
    return go


# exact template name -> params -> (good, bad); exact so that a newer template sharing a name prefix
# (e.g. "contacts_add_contact_...") gets no borrowed cases and fails the coverage test instead
PARAM_CASES: dict[str, Callable[[dict], tuple[Case, Case]]] = {
    "contacts_add_contact": lambda pr: (_add(pr), _add(pr, number=_other_number(pr["number"]))),  # wrong number
    "contacts_add_contact_phone_type": lambda pr: (_add(pr), _add(pr, ptype=2)),  # right number saved as Mobile
    "contacts_add_contact_with_email": lambda pr: (_add(pr), _add(pr, email=None)),  # email forgotten
    "contacts_add_contact_with_company": lambda pr: (_add(pr), _add(pr, company="Initrode")),  # wrong company
    "contacts_edit_phone_number": lambda pr: (
        lambda p, q: _set_phone(p, q["name"], q["new_number"]),
        lambda p, q: _set_phone(p, q["decoy"], q["new_number"])),  # namesake edited instead
    "contacts_add_email_to_contact": lambda pr: (_email("name"), _email("decoy")),
    "contacts_change_phone_type": _phone_type,
    "contacts_change_last_name": lambda pr: (_rename(False), _rename(True)),  # renamed but the number changed
    "contacts_delete_contact": lambda pr: (
        lambda p, q: _delete(p, q["name"]),
        lambda p, q: (_delete(p, q["name"]), _delete(p, q["decoy"]))),  # namesake deleted too
    "contacts_delete_two_contacts": lambda pr: (
        lambda p, q: (_delete(p, q["name_a"]), _delete(p, q["name_b"])),
        lambda p, q: _delete(p, q["name_a"])),  # only one of two
    "contacts_add_to_favorites": lambda pr: (
        lambda p, q: _star(p, q["name"], 1), lambda p, q: _star(p, q["decoy"], 1)),
    "contacts_remove_from_favorites": lambda pr: (
        lambda p, q: _star(p, q["name"], 0), lambda p, q: (_star(p, q["name"], 0), _star(p, q["decoy"], 0))),
}


def _has_cases(name: str) -> bool:
    return name in PARAM_CASES or name in NEW_CASES


def _cases(name: str, params: dict) -> tuple[Case, Case]:
    """good, bad for operation templates, looked up by exact name (KeyError when it has none)."""
    if name in PARAM_CASES:
        return PARAM_CASES[name](params)
    return NEW_CASES[name]


def _set_company(who: str, key: str) -> Callable[[Phone, dict], None]:
    return lambda p, q: p.execute("UPDATE data SET data1=? WHERE raw_contact_id=? AND mimetype=?",
                                  (q[key], _cid(p, q[who]), MIME_ORG))


def _drop(who: str, *mimes: str) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        for mime in mimes:
            p.execute("DELETE FROM data WHERE raw_contact_id=? AND mimetype=?", (_cid(p, q[who]), mime))
    return go


def _rename_first(p: Phone, q: dict) -> None:
    cid = _cid(p, q["wrong_name"])
    p.execute("UPDATE raw_contacts SET display_name=? WHERE _id=?", (q["name"], cid))
    p.execute("UPDATE data SET data1=?, data2=? WHERE raw_contact_id=? AND mimetype LIKE '%/name'",
              (q["name"], q["first"], cid))


def _entry(p: Phone, q: dict, key: str) -> int:
    (cid,) = [c for c in find_contacts(p, q["name"])
              if normalize_number(contact_info(p, c)["phones"][0][0]) == normalize_number(q[key])]
    return cid


def _colleagues(p: Phone, q: dict) -> list[int]:
    return [c["_id"] for c in live_contacts(p) if contact_info(p, c["_id"])["company"] == q["company"]]


def _star_colleagues(extra: bool) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        team = _colleagues(p, q)
        for cid in team:
            p.execute("UPDATE raw_contacts SET starred=1 WHERE _id=?", (cid,))
        if extra:  # somebody from another company starred too
            other = next(c["_id"] for c in live_contacts(p) if c["_id"] not in team and not c["starred"])
            p.execute("UPDATE raw_contacts SET starred=1 WHERE _id=?", (other,))
    return go


def _unstar_all_but(keep: int) -> Callable[[Phone, dict], None]:
    def go(p: Phone, _q: dict) -> None:
        starred = [c["_id"] for c in live_contacts(p) if c["starred"]]
        for cid in starred[keep:]:
            p.execute("UPDATE raw_contacts SET starred=0 WHERE _id=?", (cid,))
    return go


NEW_CASES: dict[str, tuple[Callable[[Phone, dict], None], Callable[[Phone, dict], None]]] = {
    "contacts_update_company": (_set_company("name", "new_company"),
                                lambda p, q: (_set_company("name", "new_company")(p, q),
                                              _set_company("decoy", "new_company")(p, q))),  # namesake too
    "contacts_remove_email": (_drop("name", MIME_EMAIL), _drop("name", MIME_EMAIL, MIME_PHONE)),  # number lost
    "contacts_fix_first_name_typo": (_rename_first,  # a fresh correct entry beside the misspelt one:
                                     lambda p, q: add_contact(p, q["first"], q["last"], number=q["number"])),
    "contacts_delete_duplicate_contact": (
        lambda p, q: p.execute("UPDATE raw_contacts SET deleted=1 WHERE _id=?", (_entry(p, q, "old_number"),)),
        lambda p, q: p.execute("UPDATE raw_contacts SET deleted=1 WHERE _id=?", (_entry(p, q, "number"),))),
    "contacts_clear_favorites": (_unstar_all_but(0), _unstar_all_but(1)),  # one favourite left
    "contacts_favorite_company_colleagues": (_star_colleagues(False), _star_colleagues(True)),
}


QUERY_ANSWERS: dict[str, Callable[[Phone, dict], tuple[str, str]]] = {
    "contacts_query_phone_number": lambda p, q: (
        f"It's {normalize_number(q['number'])}", _other_number(q["number"])),
    "contacts_query_email": lambda p, q: (q["email"], q["email"].replace(".", "_", 1)),
    "contacts_query_company": lambda p, q: (f"{q['company']}.", "Initrode"),
    "contacts_query_company_count": lambda p, q: (f"{q['count']} contacts", str(q["count"] + 1)),
    "contacts_query_favorites_count": lambda p, q: (str(q["count"]), str(q["count"] - 1)),
    "contacts_query_name_by_number": lambda p, q: (f"That's {q['name']}.", q["decoy"]),  # similar number
    "contacts_query_work_number": lambda p, q: (q["work_number"], q["number"]),  # the mobile one
}
# queries added further down register their answers there; keep them out of the operation cases
OPERATIONS = [n for n in NAMES if n not in QUERY_ANSWERS and registry.get_template(n).kind != "query"]


def test_every_template_has_checker_cases() -> None:
    assert set(NAMES) == set(OPERATIONS) | set(QUERY_ANSWERS)
    assert [n for n in OPERATIONS if not _has_cases(n)] == []
    assert not set(PARAM_CASES) & set(NEW_CASES)  # one table per name, so no case silently shadows another
    assert set(PARAM_CASES) | set(NEW_CASES) <= set(OPERATIONS)  # a misspelt name would never run


@pytest.mark.parametrize("name", OPERATIONS)
def test_checker_success_and_near_miss(name: str) -> None:
    tmpl = registry.get_template(name)
    for seed in range(3):
        task = tmpl.instantiate(seed)
        good, bad = _cases(name, task.params)
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
        assert task.is_successful(env.phone, None) == 0.0


def test_duplicate_contact_fails_add_task() -> None:
    task = registry.get_template("contacts_add_contact").instantiate(1)
    env = fresh(task, 1)
    _add(task.params)(env.phone, task.params)
    _add(task.params)(env.phone, task.params)  # saved twice
    assert env.is_successful() == 0.0


def test_company_count_ignores_deleted_contacts() -> None:
    task = registry.get_template("contacts_query_company_count").instantiate(2)
    env = fresh(task, 2)
    row = env.phone.query_one("SELECT raw_contact_id FROM data WHERE mimetype=? AND data1=?",
                              (MIME_ORG, task.params["company"]))
    env.phone.execute("UPDATE raw_contacts SET deleted=1 WHERE _id=?", (row[0],))
    assert task.is_successful(env.phone, str(task.params["count"] - 1)) == 1.0


def test_clear_favorites_by_deleting_them_fails() -> None:
    task = registry.get_template("contacts_clear_favorites").instantiate(0)
    env = fresh(task, 0)
    for c in live_contacts(env.phone):
        if c["starred"]:
            _delete(env.phone, c["display_name"])
    assert env.is_successful() == 0.0


def test_remove_email_from_the_namesake_fails() -> None:
    task = registry.get_template("contacts_remove_email").instantiate(1)
    env = fresh(task, 1)
    _drop("name", MIME_EMAIL)(env.phone, task.params)
    _drop("decoy", MIME_EMAIL)(env.phone, task.params)
    assert env.is_successful() == 0.0


def test_update_company_of_the_namesake_only_fails() -> None:
    task = registry.get_template("contacts_update_company").instantiate(2)
    env = fresh(task, 2)
    _set_company("decoy", "new_company")(env.phone, task.params)
    assert env.is_successful() == 0.0


def test_query_answers_naming_both_candidates_fail() -> None:
    for name, keys in (("contacts_query_name_by_number", ("name", "decoy")),
                       ("contacts_query_work_number", ("work_number", "number"))):
        task = registry.get_template(name).instantiate(3)
        env = fresh(task, 3)
        both = " or ".join(task.params[k] for k in keys)
        assert task.is_successful(env.phone, both) == 0.0, name


def test_duplicate_setup_saves_the_name_twice() -> None:
    for seed in range(4):
        task = registry.get_template("contacts_delete_duplicate_contact").instantiate(seed)
        env = fresh(task, seed)
        ids = find_contacts(env.phone, task.params["name"])
        assert len(ids) == 2 and ids == sorted(ids)


# ---- screens -------------------------------------------------------------------------------------
def _open(seed: int = 0) -> SimEnv:
    env = SimEnv(seed=seed)
    env.reset()
    env.step(Action(action_type="open_app", app_name="Contacts"))
    return env


def _click(env: SimEnv, **criteria: Any) -> None:
    obs = env.last_observation
    assert obs is not None
    i = find(obs, **criteria)
    assert i is not None, (criteria, [(e.text, e.content_description) for e in obs.elements])
    env.step(Action(action_type="click", index=i))


def _type(env: SimEnv, text: str, rid: str) -> None:
    obs = env.last_observation
    assert obs is not None
    i = find(obs, editable=True, resource_id=rid)
    assert i is not None, rid
    env.step(Action(action_type="input_text", index=i, text=text))


def test_main_list_sections_scroll_and_offscreen_rows_absent() -> None:
    env = _open(0)
    p = env.phone
    names = [c["display_name"] for c in live_contacts(p)]
    assert len(names) >= 38 and names == sorted(names, key=str.lower)
    obs = env.last_observation
    assert obs is not None
    assert find(obs, desc="Create contact") is not None
    assert find(obs, desc="Search contacts") is not None
    assert find(obs, text=names[0][0], resource_id="section_header") is not None
    assert find(obs, text=names[0], resource_id="contact_row") is not None
    assert find(obs, text=names[-1], resource_id="contact_row") is None  # off screen: absent
    for _ in range(20):
        obs = env.step(Action(action_type="scroll", direction="down"))
        if find(obs, text=names[-1], resource_id="contact_row") is not None:
            break
    assert find(obs, text=names[-1], resource_id="contact_row") is not None
    assert find(obs, text=names[0], resource_id="contact_row") is None


def test_search_filters_by_name_company_and_digits() -> None:
    env = _open(1)
    p = env.phone
    target = live_contacts(p)[7]
    info = contact_info(p, target["_id"])
    _click(env, desc="Search contacts")
    _type(env, target["display_name"].split()[1][:4], "search_view")
    obs = env.last_observation
    assert obs is not None
    rows = [e.text for e in obs.elements if (e.resource_id or "").endswith("contact_row")]
    assert target["display_name"] in " ".join(rows)
    assert len(rows) < len(live_contacts(p))
    _type(env, normalize_number(info["phones"][0][0])[-7:], "search_view")
    obs = env.last_observation
    assert obs is not None
    assert find(obs, text=target["display_name"], resource_id="contact_row") is not None
    _type(env, "zzzz", "search_view")
    obs = env.last_observation
    assert obs is not None and find(obs, text="No contacts found") is not None


def test_create_contact_then_star_then_delete_with_confirm_dialog() -> None:
    env = _open(2)
    p = env.phone
    before = len(live_contacts(p))
    _click(env, desc="Create contact")
    _type(env, "Quentin", "first_name")
    _type(env, "Blake", "last_name")
    _type(env, "+1 415-555-0199", "phone_number")
    _click(env, resource_id="phone_type")
    assert p.dialog is not None and p.dialog.name == "choice"
    _click(env, text="Work", class_contains="RadioButton")
    _click(env, text="Save")
    assert p.location == "contacts/detail"
    info = contact_info(p, _cid(p, "Quentin Blake"))
    assert info["phones"] == [("+1 415-555-0199", 3)]
    obs = env.last_observation
    assert obs is not None
    assert find(obs, text="+1 415-555-0199") is not None and find(obs, text="Work") is not None
    _click(env, desc="Add to favorites")
    assert contact_info(p, info["id"])["starred"]
    _click(env, desc="Remove from favorites")
    assert not contact_info(p, info["id"])["starred"]
    _click(env, desc="More options")
    _click(env, text="Delete")
    assert p.dialog is not None
    env.step(Action(action_type="navigate_back"))  # cancel keeps the contact
    assert find_contacts(p, "Quentin Blake")
    _click(env, desc="More options")
    _click(env, text="Delete")
    _click(env, text="Delete", resource_id="button1")
    assert not find_contacts(p, "Quentin Blake")
    assert len(live_contacts(p)) == before
    assert p.location == "contacts/main"


def test_empty_form_is_refused_and_changed_form_asks_before_discarding() -> None:
    env = _open(3)
    p = env.phone
    _click(env, desc="Create contact")
    _click(env, text="Save")
    assert p.location == "contacts/edit" and "name or phone" in (p.toast or "")
    _type(env, "Ada", "first_name")
    _click(env, desc="Cancel")
    assert p.dialog is not None and p.dialog.data["title"] == "Discard changes?"
    _click(env, text="Discard")
    assert p.location == "contacts/main" and not find_contacts(p, "Ada")


def test_text_button_opens_the_conversation_in_messages() -> None:
    env = _open(4)
    p = env.phone
    c = live_contacts(p)[0]
    _click(env, text=c["display_name"], resource_id="contact_row")
    _click(env, desc="Text")
    assert p.location == "messages/thread"
    number = contact_info(p, c["_id"])["phones"][0][0]
    assert normalize_number(p.screen.args["address"]) == normalize_number(number)


# ---- nameless entries, moving / merging details, bulk by company, look-ups by number ------------------
def _nameless(p: Phone) -> list[int]:
    return [c["_id"] for c in live_contacts(p) if not (contact_info(p, c["_id"])["first"]
                                                       or contact_info(p, c["_id"])["last"])]


def _soft_delete(p: Phone, *ids: int) -> None:
    for cid in ids:
        p.execute("UPDATE raw_contacts SET deleted=1 WHERE _id=?", (cid,))


def _name_entry(p: Phone, cid: int, first: str, last: str) -> None:
    p.execute("UPDATE raw_contacts SET display_name=? WHERE _id=?", (f"{first} {last}", cid))
    p.execute("UPDATE data SET data1=?, data2=?, data3=? WHERE raw_contact_id=? AND mimetype LIKE '%/name'",
              (f"{first} {last}", first, last, cid))


def _nameless_with(p: Phone, number: str) -> int:
    (cid,) = [c for c in _nameless(p) if normalize_number(contact_info(p, c)["phones"][0][0]) ==
              normalize_number(number)]
    return cid


def _move_email(copy: bool) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        p.execute("INSERT INTO data(raw_contact_id, mimetype, data1, data2) VALUES(?,?,?,1)",
                  (_cid(p, q["name_b"]), MIME_EMAIL, q["email"]))
        if not copy:
            p.execute("DELETE FROM data WHERE raw_contact_id=? AND mimetype=?", (_cid(p, q["name_a"]), MIME_EMAIL))
    return go


def _split_entries(p: Phone, q: dict) -> tuple[int, int]:
    """(the entry with the number, the entry with the email)."""
    ids = find_contacts(p, q["name"])
    with_phone = next(i for i in ids if contact_info(p, i)["phones"])
    return with_phone, next(i for i in ids if i != with_phone)


def _merge(keep_email: bool) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        phone_entry, email_entry = _split_entries(p, q)
        if keep_email:
            p.execute("UPDATE data SET raw_contact_id=? WHERE raw_contact_id=? AND mimetype=?",
                      (phone_entry, email_entry, MIME_EMAIL))
        _soft_delete(p, email_entry)
    return go


def _delete_team(keep_too: bool) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        for name in q["team"]:
            if keep_too or name != q["keep"]:
                _delete(p, name)
    return go


MORE_CASES: dict[str, tuple[Callable[[Phone, dict], None], Callable[[Phone, dict], None]]] = {
    "contacts_delete_nameless_numbers": (
        lambda p, q: _soft_delete(p, *_nameless(p)),
        lambda p, q: _soft_delete(p, *_nameless(p), live_contacts(p)[-1]["_id"])),  # a named one too
    "contacts_name_number_only_contact": (
        lambda p, q: _name_entry(p, _nameless_with(p, q["number"]), q["first"], q["last"]),
        lambda p, q: _name_entry(p, _nameless_with(p, q["decoy_number"]), q["first"], q["last"])),  # look-alike
    "contacts_move_email_to_other_contact": (_move_email(False), _move_email(True)),  # copied, not moved
    "contacts_merge_split_entries": (_merge(True), _merge(False)),  # the email lost with its entry
    "contacts_delete_company_contacts_except_one": (_delete_team(False), _delete_team(True)),  # the friend too
    "contacts_favorite_by_phone_number": (lambda p, q: _star(p, q["name"], 1),
                                          lambda p, q: _star(p, q["decoy"], 1)),  # the similar number
    "contacts_swap_favorite": (lambda p, q: (_star(p, q["old"], 0), _star(p, q["new"], 1)),
                               lambda p, q: _star(p, q["new"], 1)),  # the old one still starred
}
NEW_CASES.update(MORE_CASES)


def _initial_count(p: Phone, letter: str) -> int:
    return sum(1 for c in live_contacts(p) if c["display_name"][:1].upper() == letter)


MORE_QUERIES: dict[str, Callable[[Phone, dict], tuple[str, str]]] = {
    "contacts_query_count_by_initial": lambda p, q: (
        f"{_initial_count(p, q['letter'])} contacts", str(_initial_count(p, q["letter"]) + 1)),
    "contacts_query_how_many_numbers": lambda p, q: (
        str(len(contact_info(p, _cid(p, q["name"]))["phones"])),
        str(len(contact_info(p, _cid(p, q["decoy"]))["phones"]))),  # the namesake's count
    "contacts_query_favorite_at_company": lambda p, q: (
        f"{q['favorite']}.", next(n for n in q["team"] if n != q["favorite"])),
    "contacts_query_total_count": lambda p, q: (
        f"{len(live_contacts(p))}", str(len(live_contacts(p)) + 1)),
    "contacts_query_company_by_number": lambda p, q: (q["company"], q["decoy_company"]),
}
QUERY_ANSWERS.update(MORE_QUERIES)


@pytest.mark.parametrize("name", sorted(MORE_QUERIES))
def test_more_query_checkers_success_and_near_miss(name: str) -> None:
    test_query_checker_success_and_near_miss(name)


def test_new_templates_are_queries_or_have_cases() -> None:
    for name in MORE_QUERIES:
        assert registry.get_template(name).kind == "query"
    for name in MORE_CASES:
        assert registry.get_template(name).kind == "operation"


def test_merge_the_other_way_round_also_counts() -> None:
    task = registry.get_template("contacts_merge_split_entries").instantiate(1)
    env = fresh(task, 1)
    p, q = env.phone, task.params
    phone_entry, email_entry = _split_entries(p, q)
    p.execute("UPDATE data SET raw_contact_id=? WHERE raw_contact_id=? AND mimetype=?",
              (email_entry, phone_entry, MIME_PHONE))
    _soft_delete(p, phone_entry)
    assert env.is_successful() == 1.0
    _soft_delete(p, email_entry)  # and then both gone
    assert env.is_successful() == 0.0


def test_merge_without_deleting_the_leftover_fails() -> None:
    task = registry.get_template("contacts_merge_split_entries").instantiate(2)
    env = fresh(task, 2)
    p, q = env.phone, task.params
    phone_entry, _email_entry = _split_entries(p, q)
    p.execute("INSERT INTO data(raw_contact_id, mimetype, data1, data2) VALUES(?,?,?,1)",
              (phone_entry, MIME_EMAIL, q["email"]))
    assert env.is_successful() == 0.0


def test_naming_a_nameless_entry_instead_of_deleting_it_fails() -> None:
    task = registry.get_template("contacts_delete_nameless_numbers").instantiate(0)
    env = fresh(task, 0)
    p = env.phone
    first, *rest = _nameless(p)
    assert len(_nameless(p)) == len(task.params["numbers"])
    _soft_delete(p, *rest)
    _name_entry(p, first, "Some", "Body")
    assert env.is_successful() == 0.0


def test_naming_by_a_new_contact_and_deleting_the_old_fails() -> None:
    task = registry.get_template("contacts_name_number_only_contact").instantiate(3)
    env = fresh(task, 3)
    p, q = env.phone, task.params
    _soft_delete(p, _nameless_with(p, q["number"]))
    add_contact(p, q["first"], q["last"], number=q["number"])
    assert env.is_successful() == 0.0


def test_swap_favorite_with_an_extra_star_fails() -> None:
    task = registry.get_template("contacts_swap_favorite").instantiate(4)
    env = fresh(task, 4)
    p, q = env.phone, task.params
    _star(p, q["old"], 0)
    _star(p, q["new"], 1)
    other = next(c for c in live_contacts(p) if not c["starred"])
    p.execute("UPDATE raw_contacts SET starred=1 WHERE _id=?", (other["_id"],))
    assert env.is_successful() == 0.0


def test_total_count_ignores_deleted_rows_and_favorite_query_rejects_listing_all() -> None:
    for seed in range(6):
        task = registry.get_template("contacts_query_total_count").instantiate(seed)
        env = fresh(task, seed)
        rows = env.phone.query_one("SELECT COUNT(*) FROM raw_contacts")[0]
        live = len(live_contacts(env.phone))
        assert rows - live == task.params["removed"]
        if rows != live:
            assert task.is_successful(env.phone, str(rows)) == 0.0
    task = registry.get_template("contacts_query_favorite_at_company").instantiate(0)
    env = fresh(task, 0)
    assert task.is_successful(env.phone, ", ".join(task.params["team"])) == 0.0
    assert [c for c in live_contacts(env.phone) if c["display_name"] in task.params["team"] and c["starred"]] \
        and len(_colleagues(env.phone, task.params)) == 3


def test_search_by_number_shows_only_the_exact_owner() -> None:
    task = registry.get_template("contacts_favorite_by_phone_number").instantiate(0)
    env = fresh(task, 0)
    env.step(Action(action_type="open_app", app_name="Contacts"))
    _click(env, desc="Search contacts")
    _type(env, task.params["number"], "search_view")
    obs = env.last_observation
    assert obs is not None
    assert find(obs, text=task.params["name"], resource_id="contact_row") is not None
    assert find(obs, text=task.params["decoy"], resource_id="contact_row") is None


# ---- list position, chained look-ups, read-then-write, bulk edits, compound actions ----------------
def _email_of(who: str, key: str) -> Callable[[Phone, dict], None]:
    return lambda p, q: p.execute("UPDATE data SET data1=? WHERE raw_contact_id=? AND mimetype=?",
                                  (q[key], _cid(p, q[who]), MIME_EMAIL))


def _fix_order(p: Phone, q: dict) -> None:
    cid = _cid(p, q["wrong"])
    p.execute("UPDATE raw_contacts SET display_name=? WHERE _id=?", (q["name"], cid))
    p.execute("UPDATE data SET data1=?, data2=?, data3=? WHERE raw_contact_id=? AND mimetype LIKE '%/name'",
              (q["name"], q["first"], q["last"], cid))


def _recreate_order(p: Phone, q: dict) -> None:
    _soft_delete(p, _cid(p, q["wrong"]))
    add_contact(p, q["first"], q["last"], number=q["number"])


def _rename_company(members: int | None) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        for name in q["team"][:members]:
            _set_company_to(p, name, q["new_company"])
    return go


def _set_company_to(p: Phone, name: str, company: str) -> None:
    p.execute("UPDATE data SET data1=? WHERE raw_contact_id=? AND mimetype=?", (company, _cid(p, name), MIME_ORG))


def _home_on_b(key: str, ptype: int) -> Callable[[Phone, dict], None]:
    return lambda p, q: p.execute("INSERT INTO data(raw_contact_id, mimetype, data1, data2) VALUES(?,?,?,?)",
                                  (_cid(p, q["name_b"]), MIME_PHONE, q[key], ptype))


def _branch(both: bool) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        if q["outdated"] or both:
            _set_phone(p, q["name"], q["new_number"])
        if not q["outdated"] or both:
            _star(p, q["name"], 1)
    return go


NEWEST_CASES: dict[str, tuple[Callable[[Phone, dict], None], Callable[[Phone, dict], None]]] = {
    "contacts_swap_mixed_up_numbers": (
        lambda p, q: (_set_phone(p, q["name_a"], q["num_a"]), _set_phone(p, q["name_b"], q["num_b"])),
        lambda p, q: _set_phone(p, q["name_a"], q["num_a"])),  # only one side fixed: both share a number
    "contacts_fix_reversed_name_order": (_fix_order, _recreate_order),  # deleted and saved again
    "contacts_rename_company_everywhere": (_rename_company(None), _rename_company(-1)),  # one left behind
    "contacts_save_colleague_with_same_company": (
        lambda p, q: add_contact(p, q["first"], q["last"], number=q["number"], company=q["company"]),
        lambda p, q: add_contact(p, q["first"], q["last"], number=q["number"],
                                 company=q["decoy_company"])),  # the namesake's company
    "contacts_save_new_favorite": (
        lambda p, q: add_contact(p, q["first"], q["last"], number=q["number"], starred=True),
        lambda p, q: add_contact(p, q["first"], q["last"], number=q["number"])),  # not starred
    "contacts_copy_home_number_to_housemate": (_home_on_b("home", 1), _home_on_b("mobile_a", 1)),  # the mobile
    "contacts_change_email_domain": (
        _email_of("name", "new_email"),
        lambda p, q: (_email_of("name", "new_email")(p, q),
                      p.execute("UPDATE data SET data1=? WHERE raw_contact_id=? AND mimetype=?",
                                (q["decoy_email"].split("@")[0] + "@" + q["new_domain"], _cid(p, q["decoy"]),
                                 MIME_EMAIL)))),  # the namesake's email changed too
    "contacts_update_number_if_outdated": (_branch(False), _branch(True)),  # both branches done
}
NEW_CASES.update(NEWEST_CASES)


def _neighbours(p: Phone, name: str) -> tuple[str, str]:
    names = [c["display_name"] for c in live_contacts(p)]
    i = names.index(name)
    return names[i - 1], names[i + 1]


NEWEST_QUERIES: dict[str, Callable[[Phone, dict], tuple[str, str]]] = {
    "contacts_query_next_in_list": lambda p, q: (
        f"{_neighbours(p, q['name'])[1]}.", _neighbours(p, q["name"])[0]),  # the one above
    "contacts_query_coworker": lambda p, q: (q["colleague"], q["decoy_colleague"]),  # the namesake's colleague
    "contacts_query_namesake_number_by_company": lambda p, q: (
        f"It's {q['number']}", q["decoy_number"]),  # the other namesake
    "contacts_query_is_favorite": lambda p, q: (
        "Yes, they are." if q["starred"] else "No", "No" if q["starred"] else "Yes"),
}
QUERY_ANSWERS.update(NEWEST_QUERIES)


@pytest.mark.parametrize("name", sorted(NEWEST_QUERIES))
def test_newest_query_checkers_success_and_near_miss(name: str) -> None:
    test_query_checker_success_and_near_miss(name)


def test_newest_templates_are_queries_or_have_cases() -> None:
    # the operation cases run in test_checker_success_and_near_miss (OPERATIONS lists every template)
    for name in NEWEST_QUERIES:
        assert registry.get_template(name).kind == "query"
    for name in NEWEST_CASES:
        assert registry.get_template(name).kind == "operation" and name in OPERATIONS


def test_next_in_list_rejects_naming_both_neighbours() -> None:
    task = registry.get_template("contacts_query_next_in_list").instantiate(2)
    env = fresh(task, 2)
    before, after = _neighbours(env.phone, task.params["name"])
    assert task.is_successful(env.phone, f"{before} and {after}") == 0.0
    assert task.is_successful(env.phone, task.params["name"]) == 0.0


def test_namesake_setup_leaves_exactly_two_with_that_first_name() -> None:
    for seed in range(4):
        task = registry.get_template("contacts_query_namesake_number_by_company").instantiate(seed)
        env = fresh(task, seed)
        same = [c for c in live_contacts(env.phone) if contact_info(env.phone, c["_id"])["first"] == task.params["first"]]
        assert sorted(c["display_name"] for c in same) == sorted([task.params["name"], task.params["decoy"]])
        assert task.is_successful(env.phone, f"{task.params['number']} or {task.params['decoy_number']}") == 0.0


def test_is_favorite_start_states_vary_and_answer_follows_the_star() -> None:
    tmpl = registry.get_template("contacts_query_is_favorite")
    assert {tmpl.instantiate(s).params["starred"] for s in range(8)} == {True, False}
    task = tmpl.instantiate(0)
    env = fresh(task, 0)
    _star(env.phone, task.params["name"], 0 if task.params["starred"] else 1)
    assert task.is_successful(env.phone, "yes" if task.params["starred"] else "no") == 0.0


def test_rename_company_that_also_changes_a_bystander_fails() -> None:
    task = registry.get_template("contacts_rename_company_everywhere").instantiate(1)
    env = fresh(task, 1)
    _rename_company(None)(env.phone, task.params)
    assert env.is_successful() == 1.0
    other = next(c for c in live_contacts(env.phone) if contact_info(env.phone, c["_id"])["company"]
                 and c["display_name"] not in task.params["team"])
    _set_company_to(env.phone, other["display_name"], task.params["new_company"])
    assert env.is_successful() == 0.0


def test_copy_home_number_with_the_mobile_label_fails() -> None:
    task = registry.get_template("contacts_copy_home_number_to_housemate").instantiate(0)
    env = fresh(task, 0)
    _home_on_b("home", 2)(env.phone, task.params)
    assert env.is_successful() == 0.0


def test_add_as_favorite_with_an_extra_star_fails() -> None:
    task = registry.get_template("contacts_save_new_favorite").instantiate(3)
    env = fresh(task, 3)
    q = task.params
    add_contact(env.phone, q["first"], q["last"], number=q["number"], starred=True)
    assert env.is_successful() == 1.0
    other = next(c for c in live_contacts(env.phone) if not c["starred"])
    env.phone.execute("UPDATE raw_contacts SET starred=1 WHERE _id=?", (other["_id"],))
    assert env.is_successful() == 0.0


def test_update_if_outdated_wrong_branch_fails() -> None:
    tmpl = registry.get_template("contacts_update_number_if_outdated")
    for seed in range(4):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        q = task.params
        if q["outdated"]:
            _star(env.phone, q["name"], 1)  # starred although the old number was still there
        else:
            _set_phone(env.phone, q["name"], q["new_number"])  # number replaced although it was current
        assert env.is_successful() == 0.0, seed


# ---- round 3: create-or-update, the odd entry out, partly-done bulk edits, domain / number searches, ------
# ---- favourites made equal to a set, questions read off the whole list ---------------------------------
ROUND3 = ("contacts_save_number_create_or_update", "contacts_fix_misspelt_company_in_team",
          "contacts_add_number_to_entry_without_one", "contacts_family_email_partly_done",
          "contacts_remove_mobile_keep_work_number", "contacts_clear_emails_at_dead_domain",
          "contacts_delete_entry_sharing_number", "contacts_favorites_only_one_company",
          "contacts_query_is_number_saved", "contacts_query_most_numbers_at_company",
          "contacts_query_count_between_two", "contacts_query_duplicated_name")


def _phones(p: Phone, name: str) -> list[int]:
    return [r[0] for r in p.query("SELECT _id FROM data WHERE raw_contact_id=? AND mimetype=? ORDER BY _id",
                                  (_cid(p, name), MIME_PHONE))]


def _create_or_update(right: bool) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        if q["saved"] and right:
            _set_phone(p, q["name"], q["number"])
        elif q["saved"] or right:  # saved: a second entry beside the old one (wrong); not saved: created
            add_contact(p, q["first"], q["last"], number=q["number"])
        else:  # the namesake's number replaced instead
            _set_phone(p, q["namesake"], q["number"])
    return go


def _team(q: dict) -> list[str]:
    return [q["name_a"], q["name_b"], q["name_c"]]


def _fix_company(right: bool) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        team = _team(q)
        if right:
            _set_company_to(p, team[q["wrong"]], q["company"])
        else:  # a correctly spelt colleague "fixed" instead
            _set_company_to(p, team[(q["wrong"] + 1) % 3], q["typo"])
    return go


def _give_number(who: Callable[[dict], str]) -> Callable[[Phone, dict], None]:
    return lambda p, q: p.execute("INSERT INTO data(raw_contact_id, mimetype, data1, data2) VALUES(?,?,?,2)",
                                  (_cid(p, who(q)), MIME_PHONE, q["number"]))


def _family_email(with_relative: bool) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        names = [n for k, n in enumerate(_team(q)) if k != q["done"]]
        for name in names + ([q["relative"]] if with_relative else []):
            p.execute("INSERT INTO data(raw_contact_id, mimetype, data1, data2) VALUES(?,?,?,1)",
                      (_cid(p, name), MIME_EMAIL, q["email"]))
    return go


def _drop_first_phone(who: str) -> Callable[[Phone, dict], None]:
    return lambda p, q: p.execute("DELETE FROM data WHERE _id=?", (_phones(p, q[who])[0],))


def _clear_domain(extra: str | None) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        for name in q["members"] + ([q[extra]] if extra else []):
            p.execute("DELETE FROM data WHERE raw_contact_id=? AND mimetype=?", (_cid(p, name), MIME_EMAIL))
    return go


def _favorites_only(unstar_others: bool) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        for c in live_contacts(p):
            if c["display_name"] in q["team"]:
                _star(p, c["display_name"], 1)
            elif unstar_others and c["starred"]:
                p.execute("UPDATE raw_contacts SET starred=0 WHERE _id=?", (c["_id"],))
    return go


ROUND3_CASES: dict[str, tuple[Callable[[Phone, dict], None], Callable[[Phone, dict], None]]] = {
    "contacts_save_number_create_or_update": (_create_or_update(True), _create_or_update(False)),
    "contacts_fix_misspelt_company_in_team": (_fix_company(True), _fix_company(False)),
    "contacts_add_number_to_entry_without_one": (
        _give_number(lambda q: q["team"][q["missing"]]), _give_number(lambda q: q["outsider"])),  # the outsider
    "contacts_family_email_partly_done": (_family_email(False), _family_email(True)),  # the relative too
    "contacts_remove_mobile_keep_work_number": (_drop_first_phone("name"), _drop_first_phone("namesake")),
    "contacts_clear_emails_at_dead_domain": (_clear_domain(None), _clear_domain("colleague")),  # personal email too
    "contacts_delete_entry_sharing_number": (lambda p, q: _delete(p, q["old_entry"]),
                                             lambda p, q: _delete(p, q["name"])),  # the one to keep
    "contacts_favorites_only_one_company": (_favorites_only(True), _favorites_only(False)),  # others still starred
}
NEW_CASES.update(ROUND3_CASES)


def _between(p: Phone, q: dict) -> int:
    names = [c["display_name"] for c in live_contacts(p)]
    return abs(names.index(q["name_b"]) - names.index(q["name_a"])) - 1


def _most_numbers(q: dict) -> tuple[str, str]:
    order = sorted(zip(q["counts"], q["team"], strict=True))
    return order[-1][1], order[-2][1]


def _twice(p: Phone) -> tuple[str, str]:
    names = [c["display_name"] for c in live_contacts(p)]
    dup = next(n for n in names if names.count(n) == 2)
    i = names.index(dup)
    return dup, names[i + 2] if i + 2 < len(names) else names[i - 1]


ROUND3_QUERIES: dict[str, Callable[[Phone, dict], tuple[str, str]]] = {
    "contacts_query_is_number_saved": lambda p, q: (
        "Yes, it is." if q["saved"] else "No", "No" if q["saved"] else "Yes"),
    "contacts_query_most_numbers_at_company": lambda p, q: _most_numbers(q),  # the runner-up
    "contacts_query_count_between_two": lambda p, q: (
        f"{_between(p, q)} contacts", str(_between(p, q) + 1)),  # one end counted too
    "contacts_query_duplicated_name": lambda p, q: (f"{_twice(p)[0]}.", _twice(p)[1]),  # the next name
}
QUERY_ANSWERS.update(ROUND3_QUERIES)


def test_round3_names_and_kinds() -> None:
    assert sorted(ROUND3) == sorted([*ROUND3_CASES, *ROUND3_QUERIES]) and len(ROUND3) == 12
    for name in ROUND3_QUERIES:
        assert registry.get_template(name).kind == "query"
    for name in ROUND3_CASES:
        assert registry.get_template(name).kind == "operation" and name in OPERATIONS


@pytest.mark.parametrize("name", sorted(ROUND3_QUERIES))
def test_round3_query_checkers_success_and_near_miss(name: str) -> None:
    test_query_checker_success_and_near_miss(name)


def test_create_or_update_covers_both_branches_and_rejects_recreating() -> None:
    tmpl = registry.get_template("contacts_save_number_create_or_update")
    assert {tmpl.instantiate(s).params["saved"] for s in range(8)} == {True, False}
    seed = next(s for s in range(20) if tmpl.instantiate(s).params["saved"])
    task = tmpl.instantiate(seed)
    env = fresh(task, seed)
    p, q = env.phone, task.params
    _delete(p, q["name"])  # deleted the old entry and saved a new one: not an update
    add_contact(p, q["first"], q["last"], number=q["number"])
    assert env.is_successful() == 0.0
    seed = next(s for s in range(20) if not tmpl.instantiate(s).params["saved"])
    task = tmpl.instantiate(seed)
    env = fresh(task, seed)
    q = task.params
    add_contact(env.phone, q["first"], q["last"], number=q["number"], company="Globex")  # an extra field
    assert env.is_successful() == 0.0


def test_fix_company_typo_is_hidden_from_a_company_search_and_a_second_typo_fails() -> None:
    task = registry.get_template("contacts_fix_misspelt_company_in_team").instantiate(2)
    env = fresh(task, 2)
    p, q = env.phone, task.params
    wrong = _team(q)[q["wrong"]]
    assert contact_info(p, _cid(p, wrong))["company"] == q["typo"] != q["company"]
    _set_company_to(p, wrong, q["company"] + "s")
    assert env.is_successful() == 0.0


def test_add_number_to_entry_as_work_or_with_the_email_lost_fails() -> None:
    task = registry.get_template("contacts_add_number_to_entry_without_one").instantiate(1)
    for broken in ("work", "email"):
        env = fresh(task, 1)
        p, q = env.phone, task.params
        target = q["team"][q["missing"]]
        _give_number(lambda _q, t=target: t)(p, q)
        if broken == "work":
            _set_phone(p, target, q["number"], 3)
        else:
            _drop("name", MIME_EMAIL)(p, {"name": target})
        assert env.is_successful() == 0.0, broken


def test_family_email_with_one_left_out_fails() -> None:
    task = registry.get_template("contacts_family_email_partly_done").instantiate(0)
    env = fresh(task, 0)
    p, q = env.phone, task.params
    assert [n for n in _team(q) if contact_info(p, _cid(p, n))["emails"]] == [_team(q)[q["done"]]]
    left = [n for k, n in enumerate(_team(q)) if k != q["done"]]
    p.execute("INSERT INTO data(raw_contact_id, mimetype, data1, data2) VALUES(?,?,?,1)",
              (_cid(p, left[0]), MIME_EMAIL, q["email"]))
    assert env.is_successful() == 0.0


def test_remove_mobile_by_overwriting_it_with_the_work_number_fails() -> None:
    task = registry.get_template("contacts_remove_mobile_keep_work_number").instantiate(3)
    env = fresh(task, 3)
    p, q = env.phone, task.params
    p.execute("UPDATE data SET data1=? WHERE _id=?", (q["work_number"], _phones(p, q["name"])[0]))
    assert env.is_successful() == 0.0
    env = fresh(task, 3)
    p.execute("DELETE FROM data WHERE raw_contact_id=? AND mimetype=?", (_cid(env.phone, q["name"]), MIME_PHONE))
    assert env.is_successful() == 0.0


def test_dead_domain_lookalike_address_and_a_missed_member_fail() -> None:
    task = registry.get_template("contacts_clear_emails_at_dead_domain").instantiate(1)
    env = fresh(task, 1)
    _clear_domain("lookalike")(env.phone, task.params)
    assert env.is_successful() == 0.0
    env = fresh(task, 1)
    q = dict(task.params, members=task.params["members"][1:])
    _clear_domain(None)(env.phone, q)
    assert env.is_successful() == 0.0


def test_delete_sharing_number_lookalike_fails() -> None:
    task = registry.get_template("contacts_delete_entry_sharing_number").instantiate(0)
    env = fresh(task, 0)
    p, q = env.phone, task.params
    _delete(p, q["old_entry"])
    _delete(p, q["lookalike"])
    assert env.is_successful() == 0.0


def test_favorites_only_with_a_team_member_missed_fails() -> None:
    task = registry.get_template("contacts_favorites_only_one_company").instantiate(1)
    env = fresh(task, 1)
    p, q = env.phone, task.params
    assert len([c for c in live_contacts(p) if c["starred"]]) == 3
    _favorites_only(True)(p, q)
    _star(p, q["team"][0], 0)
    assert env.is_successful() == 0.0


def test_round3_queries_reject_naming_every_candidate() -> None:
    task = registry.get_template("contacts_query_most_numbers_at_company").instantiate(0)
    env = fresh(task, 0)
    assert task.is_successful(env.phone, ", ".join(task.params["team"])) == 0.0
    task = registry.get_template("contacts_query_is_number_saved").instantiate(1)
    env = fresh(task, 1)
    assert task.is_successful(env.phone, "yes or no") == 0.0
    task = registry.get_template("contacts_query_duplicated_name").instantiate(2)
    env = fresh(task, 2)
    dup, other = _twice(env.phone)
    assert task.is_successful(env.phone, f"{dup} or {other}") == 0.0


# oracles: unseen seeds under skins, and from mid-task screens
def _r3_run(task: Any, env: SimEnv, obs: Any) -> None:
    for _ in range(task.max_steps):
        action = task.oracle_action(env.phone, obs)
        if action.action_type == "status":
            break
        obs = env.step(action)
        if action.action_type == "answer":
            break
    else:
        raise AssertionError(f"{task.id}: no finish (at {env.phone.location})")


@pytest.mark.parametrize("name", ROUND3)
def test_round3_oracle_solves_seen_and_unseen_seeds_under_skins(name: str) -> None:
    tmpl = registry.get_template(name)
    for seed in (*range(5), *range(1000, 1005)):
        for skin in (0, 1 + seed % SKIN_COUNT, SKIN_COUNT):
            task = tmpl.instantiate(seed)
            env = SimEnv(task, seed, skin=skin)
            _r3_run(task, env, env.reset())
            assert env.is_successful() == 1.0, (name, seed, skin)
            env.close()


def _r3_detour_search(env: SimEnv) -> None:
    _click(env, desc="Search contacts")
    _type(env, "an", "search_view")


def _r3_detour_create_form(env: SimEnv) -> None:
    _click(env, desc="Create contact")
    _type(env, "Scratch", "first_name")
    _type(env, "scratch@example.org", "email")


def _r3_detour_other_edit_form(env: SimEnv) -> None:
    _click(env, resource_id="contact_row")
    _click(env, desc="Edit contact")
    _type(env, "Somewhere Else", "company")


def _r3_detour_detail_menu(env: SimEnv) -> None:
    _click(env, resource_id="contact_row")
    _click(env, desc="More options")


def _r3_detour_scrolled_list(env: SimEnv) -> None:
    for _ in range(4):
        env.step(Action(action_type="scroll", direction="down"))


def _r3_detour_delete_dialog(env: SimEnv) -> None:
    _click(env, resource_id="contact_row")
    _click(env, desc="More options")
    _click(env, text="Delete")


R3_DETOURS = [_r3_detour_search, _r3_detour_create_form, _r3_detour_other_edit_form, _r3_detour_detail_menu,
              _r3_detour_scrolled_list, _r3_detour_delete_dialog]


@pytest.mark.parametrize("name", ROUND3)
def test_round3_oracle_finishes_from_mid_task_screens(name: str) -> None:
    tmpl = registry.get_template(name)
    for k, detour in enumerate(R3_DETOURS):
        seed = 20 + k
        task = tmpl.instantiate(seed)
        env = SimEnv(task, seed)
        env.reset()
        env.step(Action(action_type="open_app", app_name="Contacts"))
        detour(env)
        _r3_run(task, env, env.observe())
        assert env.is_successful() == 1.0, (name, detour.__name__)


# ---- round 4: share a card / text a contact found by email (Messages), a form left open (discard it, finish it),
# ---- a number known by its last digits, blank entries, favourites without a number, an address built like a
# ---- colleague's; questions that compare employers, read a number's label, derive a percentage, list in order
ROUND4 = ("contacts_share_contact_by_text", "contacts_text_contact_found_by_email",
          "contacts_discard_unsaved_edit_then_star", "contacts_finish_interrupted_new_contact",
          "contacts_star_number_ending_in", "contacts_delete_blank_entries_among",
          "contacts_unstar_favorites_without_number", "contacts_email_in_colleague_pattern",
          "contacts_query_same_company", "contacts_query_label_of_number",
          "contacts_query_percent_with_email_at_company", "contacts_query_favorites_in_list_order")


def _sent(p: Phone, number: str, body: str) -> None:
    from droidverify.env.sim.apps.messages import TYPE_SENT, add_sms

    add_sms(p, number, body, kind=TYPE_SENT)


def _card(p: Phone, name: str) -> str:
    info = contact_info(p, _cid(p, name))
    return "\n".join([info["name"], *(n for n, _ in info["phones"]), *info["emails"]])


def _share(who: str) -> Callable[[Phone, dict], None]:
    return lambda p, q: _sent(p, q["recipient_number"], _card(p, q[who]))


def _set_email(p: Phone, name: str, email: str) -> None:
    p.execute("INSERT INTO data(raw_contact_id, mimetype, data1, data2) VALUES(?,?,?,1)",
              (_cid(p, name), MIME_EMAIL, email))


def _finish_form(saved_as_typed: bool) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        number, email = q["number"], q["email"]
        if saved_as_typed:  # the typo in the draft kept
            number = q["typo"] if q["wrong"] == "phone" else number
            email = q["typo"] if q["wrong"] == "email" else email
        add_contact(p, q["first"], q["last"], number=number, email=email)
    return go


def _starred_with_number(p: Phone) -> str:
    return next(c["display_name"] for c in live_contacts(p) if c["starred"] and contact_info(p, c["_id"])["phones"])


def _unstar_no_number(extra: bool) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        if extra:  # a favourite with a number unstarred too
            _star(p, _starred_with_number(p), 0)
        for name in q["no_number"]:
            _star(p, name, 0)
    return go


def _pattern_email(domain_key: str) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        first, last = q["name_b"].lower().split(" ", 1)
        _set_email(p, q["name_b"], f"{first}.{last}@{q[domain_key]}")
    return go


def _delete_blank(also: str | None) -> Callable[[Phone, dict], None]:
    def go(p: Phone, q: dict) -> None:
        team = [q["name_a"], q["name_b"], q["name_c"]]
        for k in q["blank"]:
            _delete(p, team[k])
        if also:
            _delete(p, q[also])
    return go


ROUND4_CASES: dict[str, tuple[Callable[[Phone, dict], None], Callable[[Phone, dict], None]]] = {
    "contacts_share_contact_by_text": (_share("name"), _share("namesake")),  # the namesake's card
    "contacts_text_contact_found_by_email": (lambda p, q: _sent(p, q["number"], q["body"]),
                                             lambda p, q: _sent(p, q["lookalike_number"], q["body"])),
    "contacts_discard_unsaved_edit_then_star": (
        lambda p, q: _star(p, q["name"], 1),
        lambda p, q: (_star(p, q["name"], 1), _set_company_to(p, q["name"], q["junk_company"]))),  # edit saved
    "contacts_finish_interrupted_new_contact": (_finish_form(False), _finish_form(True)),
    "contacts_star_number_ending_in": (lambda p, q: _star(p, q["name"], 1), lambda p, q: _star(p, q["lookalike"], 1)),
    "contacts_delete_blank_entries_among": (_delete_blank(None), _delete_blank("bystander")),
    "contacts_unstar_favorites_without_number": (_unstar_no_number(False), _unstar_no_number(True)),
    "contacts_email_in_colleague_pattern": (_pattern_email("domain"), _pattern_email("namesake_domain")),
}
NEW_CASES.update(ROUND4_CASES)


def _favorites(p: Phone) -> list[str]:
    return [c["display_name"] for c in live_contacts(p) if c["starred"]]


def _percent(q: dict) -> int:
    return round(100 * len(q["with_email"]) / len(q["team"]))


ROUND4_QUERIES: dict[str, Callable[[Phone, dict], tuple[str, str]]] = {
    "contacts_query_same_company": lambda p, q: ("Yes, they do." if q["same"] else "No",
                                                 "No" if q["same"] else "Yes"),
    "contacts_query_label_of_number": lambda p, q: (f"It's a {q['labels'][q['numbers'].index(q['number'])]} number.",
                                                    q["namesake_label"]),  # the namesake's label for it
    "contacts_query_percent_with_email_at_company": lambda p, q: (f"{_percent(q)}%", f"{100 - _percent(q)}%"),
    "contacts_query_favorites_in_list_order": lambda p, q: (", ".join(_favorites(p)),
                                                            ", ".join(reversed(_favorites(p)))),
}
QUERY_ANSWERS.update(ROUND4_QUERIES)


def test_round4_names_and_kinds() -> None:
    assert sorted(ROUND4) == sorted([*ROUND4_CASES, *ROUND4_QUERIES]) and len(ROUND4) == 12
    for name in ROUND4_QUERIES:
        assert registry.get_template(name).kind == "query"
    for name in ROUND4_CASES:
        assert registry.get_template(name).kind == "operation" and name in OPERATIONS


@pytest.mark.parametrize("name", sorted(ROUND4_QUERIES))
def test_round4_query_checkers_success_and_near_miss(name: str) -> None:
    test_query_checker_success_and_near_miss(name)


def test_left_open_forms_resume_when_contacts_opens() -> None:
    task = registry.get_template("contacts_discard_unsaved_edit_then_star").instantiate(0)
    env = fresh(task, 0)
    assert env.phone.location == "launcher/home"
    env.step(Action(action_type="open_app", app_name="Contacts"))
    assert env.phone.location == "contacts/edit"
    assert find(env.last_observation, text=task.params["junk_company"]) is not None
    _click(env, text="Save")  # saving the stray edit, then starring, is not what was asked
    _click(env, desc="Add to favorites")
    assert env.is_successful() == 0.0
    tmpl = registry.get_template("contacts_finish_interrupted_new_contact")
    assert {tmpl.instantiate(s).params["wrong"] for s in range(8)} == {"phone", "email"}
    task = tmpl.instantiate(1)
    env = fresh(task, 1)
    env.step(Action(action_type="open_app", app_name="Contacts"))
    assert env.phone.screen.fields[task.params["wrong"]] == task.params["typo"]
    _click(env, text="Save")  # saved with the typo
    assert find_contacts(env.phone, task.params["name"]) and env.is_successful() == 0.0


def test_round4_share_and_text_near_misses_fail() -> None:
    task = registry.get_template("contacts_share_contact_by_text").instantiate(1)
    env = fresh(task, 1)
    p, q = env.phone, task.params
    _sent(p, q["recipient_number"], q["name"])  # the name only, no number or email
    assert env.is_successful() == 0.0
    env = fresh(task, 1)
    _share("name")(env.phone, q)
    _share("name")(env.phone, q)  # sent twice
    assert env.is_successful() == 0.0
    task = registry.get_template("contacts_text_contact_found_by_email").instantiate(2)
    env = fresh(task, 2)
    q = task.params
    _sent(env.phone, q["number"], q["body"] + " Thanks")
    assert env.is_successful() == 0.0


def test_round4_bulk_near_misses_fail() -> None:
    task = registry.get_template("contacts_delete_blank_entries_among").instantiate(0)
    env = fresh(task, 0)
    p, q = env.phone, task.params
    team = [q["name_a"], q["name_b"], q["name_c"]]
    assert [k for k, n in enumerate(team) if not contact_info(p, _cid(p, n))["phones"]
            and not contact_info(p, _cid(p, n))["emails"]] == q["blank"]
    kept = next(k for k in range(3) if k not in q["blank"])  # has only an email: not blank
    _delete_blank(None)(p, q)
    _delete(p, team[kept])
    assert env.is_successful() == 0.0
    task = registry.get_template("contacts_unstar_favorites_without_number").instantiate(1)
    env = fresh(task, 1)
    p, q = env.phone, task.params
    _star(p, q["bystander"], 1)  # the bystander starred instead of left alone
    _unstar_no_number(False)(p, q)
    assert env.is_successful() == 0.0
    task = registry.get_template("contacts_star_number_ending_in").instantiate(2)
    env = fresh(task, 2)
    p, q = env.phone, task.params
    digits = [normalize_number(n) for c in live_contacts(p) for n, _ in contact_info(p, c["_id"])["phones"]]
    assert [d for d in digits if d.endswith(q["last4"])] == [normalize_number(q["number"])]
    assert q["last4"] in normalize_number(q["lookalike_number"])  # a search for the digits shows it too


def test_round4_queries_reject_naming_every_candidate() -> None:
    task = registry.get_template("contacts_query_label_of_number").instantiate(0)
    env = fresh(task, 0)
    assert task.is_successful(env.phone, "Mobile, Work or Home") == 0.0
    task = registry.get_template("contacts_query_favorites_in_list_order").instantiate(1)
    env = fresh(task, 1)
    favs = _favorites(env.phone)
    assert len(favs) == task.params["count"]
    assert task.is_successful(env.phone, ", ".join(favs[:-1])) == 0.0  # one left out
    other = next(c["display_name"] for c in live_contacts(env.phone) if not c["starred"])
    assert task.is_successful(env.phone, ", ".join([*favs, other])) == 0.0  # one too many
    task = registry.get_template("contacts_query_same_company").instantiate(3)
    env = fresh(task, 3)
    assert task.is_successful(env.phone, "yes or no") == 0.0


@pytest.mark.parametrize("name", ["contacts_share_contact_by_text", "contacts_text_contact_found_by_email",
                                  "contacts_finish_interrupted_new_contact", "contacts_star_number_ending_in",
                                  "contacts_delete_blank_entries_among", "contacts_unstar_favorites_without_number",
                                  "contacts_query_label_of_number"])
def test_round4_oracle_types_only_what_it_was_shown(name: str) -> None:
    for seed in (0, 1, 2, 1000):
        assert unread_values(name, seed) == [], (name, seed)


@pytest.mark.parametrize("name", ROUND4)
def test_round4_oracle_solves_seen_and_unseen_seeds_under_skins(name: str) -> None:
    test_round3_oracle_solves_seen_and_unseen_seeds_under_skins(name)


def _r4_detour_back(env: SimEnv) -> None:
    env.step(Action(action_type="navigate_back"))


def _r4_detour_discard_form(env: SimEnv) -> None:
    if env.phone.location == "contacts/edit":
        env.step(Action(action_type="navigate_back"))
        _click(env, text="Discard")


def _r4_detour_type_in_form(env: SimEnv) -> None:
    if env.phone.location != "contacts/edit":
        _click(env, resource_id="contact_row")
        _click(env, desc="Edit contact")
    _type(env, "Scratch", "first_name")


def _r4_detour_messages(env: SimEnv) -> None:
    env.step(Action(action_type="open_app", app_name="Messages"))
    _click(env, desc="Start chat")
    _type(env, "an", "recipient_text_view")


def _r4_detour_share_dialog(env: SimEnv) -> None:
    _r4_detour_discard_form(env)
    if env.phone.location != "contacts/detail":
        _click(env, resource_id="contact_row")
    _click(env, desc="More options")
    _click(env, text="Share")


R4_DETOURS = [_r4_detour_back, _r4_detour_discard_form, _r4_detour_type_in_form, _r4_detour_messages,
              _r4_detour_share_dialog]


@pytest.mark.parametrize("name", ROUND4)
def test_round4_oracle_finishes_from_mid_task_screens(name: str) -> None:
    tmpl = registry.get_template(name)
    left_open = name in ("contacts_discard_unsaved_edit_then_star", "contacts_finish_interrupted_new_contact")
    detours = R4_DETOURS + ([] if left_open else R3_DETOURS)
    for k, detour in enumerate(detours):
        seed = 30 + k
        task = tmpl.instantiate(seed)
        env = SimEnv(task, seed)
        env.reset()
        env.step(Action(action_type="open_app", app_name="Contacts"))
        detour(env)
        _r3_run(task, env, env.observe())
        assert env.is_successful() == 1.0, (name, detour.__name__)
