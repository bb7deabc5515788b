"""Messages (com.google.android.apps.messaging): conversations, chat threads, new chat, search.

In a thread, a long press selects a message (toolbar: Forward, Delete) and tapping a failed
message ("Not sent · Tap to retry") sends it again; back first clears any selection.

State is shaped like the Telephony provider: ``sms`` (``thread_id``, ``address``, ``body``,
``date`` in epoch milliseconds, ``type`` 1 inbox / 2 sent / 5 failed, ``read``) and ``threads``
(``recipient_ids`` holds the address, ``snippet``/``date``/``message_count``/``read`` are kept in
sync with the thread's messages). Names shown for an address come from the Contacts tables.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from droidverify.env.sim.app import (
    ACCENT,
    App,
    app_bar,
    edit_field,
    fab,
    icon_button,
    list_view,
    register_app,
    screen_frame,
    text_view,
)
from droidverify.env.sim.apps.contacts import (
    contact_for_number,
    contact_info,
    live_contacts,
    normalize_number,
)
from droidverify.env.sim.phone import Phone, Screen
from droidverify.env.sim.timeutil import from_ms, to_ms
from droidverify.env.sim.view import V, View

TYPE_INBOX, TYPE_SENT, TYPE_FAILED = 1, 2, 5

# Seed conversations: (lines, where "<" is received and ">" is sent). Kept everyday and varied.
CHATS: tuple[tuple[tuple[str, str], ...], ...] = (
    (("<", "Are we still on for lunch tomorrow?"), (">", "Yes! 12:30 at the usual place?"),
     ("<", "Perfect, see you there")),
    (("<", "Can you send me the photos from Saturday?"), (">", "Sure, uploading them tonight"),
     ("<", "Thanks!! The one at the lake is my favourite")),
    ((">", "Running 10 min late, sorry"), ("<", "No worries, I just got here too")),
    (("<", "Happy birthday!! Hope you have an amazing day 🎉"), (">", "Thank you so much!")),
    (("<", "Did you finish the slides for Monday?"), (">", "Almost, I'll share them by tonight"),
     ("<", "Great, I'll review them in the morning")),
    (("<", "Your package was left at the front desk"), (">", "Got it, thanks for letting me know")),
    ((">", "Do you want to split an Uber to the airport?"), ("<", "Yes please, my flight is at 6"),
     (">", "Ok I'll book one for 3:45")),
    (("<", "Mom says dinner is at 7 on Sunday"), (">", "I'll bring dessert")),
    (("<", "Are you coming to the book club on Thursday?"), (">", "Wouldn't miss it"),
     ("<", "Bring the book, we start at chapter 9")),
    (("<", "Game night at my place Friday?"), (">", "Count me in"), ("<", "Bring snacks!")),
    ((">", "Can you pick up milk on the way home?"), ("<", "Sure, anything else?"), (">", "Eggs too, thanks")),
    (("<", "The plumber is coming between 2 and 4 today"), (">", "OK, I'll be home")),
    (("<", "Congrats on the new job!"), (">", "Thanks! Starting next Monday")),
    ((">", "Is the gym open on holidays?"), ("<", "Only until noon")),
)
SERVICE = (("72975", "Your verification code is {code}. Don't share it with anyone."),
           ("24273", "Your Uber code: {code}. Never share this code."),
           ("32665", "Chase: Your one-time passcode is {code}. It expires in 10 minutes."))


def short_date(phone: Phone, ms: int) -> str:
    """How the conversation list dates a message: time today, weekday this week, else "Oct 3"."""
    dt, now = from_ms(ms), phone.now
    days = (now.date() - dt.date()).days
    if days <= 0:
        return phone.format_time(dt.hour, dt.minute)
    if days < 7:
        return dt.strftime("%a")
    return f"{dt.strftime('%b')} {dt.day}"


def long_date(phone: Phone, ms: int) -> str:
    dt = from_ms(ms)
    return f"{dt.strftime('%a')}, {dt.strftime('%b')} {dt.day} · {phone.format_time(dt.hour, dt.minute)}"


# ---- data access ---------------------------------------------------------------------------------
def thread_for(phone: Phone, address: str) -> int | None:
    """The thread with this address (numbers compared digit-wise), else None."""
    want = normalize_number(address) or address.strip().lower()
    for t in phone.query("SELECT _id, recipient_ids FROM threads ORDER BY _id"):
        if (normalize_number(t["recipient_ids"]) or t["recipient_ids"].strip().lower()) == want:
            return t["_id"]
    return None


def refresh_thread(phone: Phone, thread_id: int) -> None:
    """Recompute a thread's snippet/date/count/read from its messages (drop it when empty)."""
    last = phone.query_one("SELECT body, date FROM sms WHERE thread_id=? ORDER BY date DESC, _id DESC LIMIT 1",
                           (thread_id,))
    if last is None:
        phone.execute("DELETE FROM threads WHERE _id=?", (thread_id,))
        return
    n, unread = phone.query_one("SELECT COUNT(*), SUM(read=0) FROM sms WHERE thread_id=?", (thread_id,))
    phone.execute("UPDATE threads SET snippet=?, date=?, message_count=?, read=? WHERE _id=?",
                  (last["body"], last["date"], n, int(not unread), thread_id))


def add_sms(phone: Phone, address: str, body: str, *, kind: int = TYPE_INBOX, when: datetime | None = None,
            read: bool = True) -> int:
    """Store one message (creating its thread if needed); returns the sms ``_id``."""
    tid = thread_for(phone, address)
    ms = to_ms(when or phone.now)
    if tid is None:
        tid = phone.execute("INSERT INTO threads(recipient_ids, date, message_count, snippet, read) "
                            "VALUES(?, ?, 0, '', 1)", (address, ms))
    sid = phone.execute("INSERT INTO sms(thread_id, address, body, date, type, read, seen) VALUES(?,?,?,?,?,?,?)",
                        (tid, address, body, ms, kind, int(read), int(read)))
    refresh_thread(phone, tid)
    return sid


def delete_thread(phone: Phone, thread_id: int) -> None:
    phone.execute("DELETE FROM sms WHERE thread_id=?", (thread_id,))
    phone.execute("DELETE FROM threads WHERE _id=?", (thread_id,))


def mark_thread_read(phone: Phone, thread_id: int, read: bool = True) -> None:
    if read:
        phone.execute("UPDATE sms SET read=1, seen=1 WHERE thread_id=?", (thread_id,))
    else:  # "Mark as unread" flags the latest received message, as the real app does
        last = phone.query_one("SELECT _id FROM sms WHERE thread_id=? AND type=? ORDER BY date DESC, _id DESC",
                               (thread_id, TYPE_INBOX))
        if last is None:
            last = phone.query_one("SELECT _id FROM sms WHERE thread_id=? ORDER BY date DESC, _id DESC", (thread_id,))
        if last is not None:
            phone.execute("UPDATE sms SET read=0 WHERE _id=?", (last["_id"],))
    refresh_thread(phone, thread_id)


def display_name(phone: Phone, address: str) -> str:
    """The contact's name for an address, else the address itself."""
    cid = contact_for_number(phone, address)
    return contact_info(phone, cid)["name"] if cid is not None else address


def sent_messages(phone: Phone, *, after_id: int = 0) -> list[Any]:
    """Sent (type 2) messages with ``_id > after_id``, oldest first."""
    return phone.query("SELECT * FROM sms WHERE type=? AND _id>? ORDER BY _id", (TYPE_SENT, after_id))


def max_sms_id(phone: Phone) -> int:
    row = phone.query_one("SELECT MAX(_id) FROM sms")
    return int(row[0] or 0)


def airplane_on(phone: Phone) -> bool:
    return phone.get_setting("global", "airplane_mode_on", "0") == "1"


@register_app
class MessagesApp(App):
    key = "messages"
    name = "Messages"
    package = "com.google.android.apps.messaging"
    aliases = ("google messages", "sms", "messaging", "text messages")
    icon_color = "#1967d2"
    activity = ".ui.ConversationListActivity"

    # ---- state ------------------------------------------------------------------------------
    def create_schema(self, phone: Phone) -> None:
        phone.execute("CREATE TABLE threads (_id INTEGER PRIMARY KEY AUTOINCREMENT, recipient_ids TEXT, "
                      "date INTEGER, message_count INTEGER, snippet TEXT, read INTEGER, archived INTEGER DEFAULT 0)")
        phone.execute("CREATE TABLE sms (_id INTEGER PRIMARY KEY AUTOINCREMENT, thread_id INTEGER, address TEXT, "
                      "body TEXT, date INTEGER, type INTEGER, read INTEGER, seen INTEGER)")

    def seed_data(self, phone: Phone, rng: random.Random) -> None:
        contacts = [contact_info(phone, c["_id"]) for c in live_contacts(phone)]
        contacts = [c for c in contacts if c["phones"]]
        people = rng.sample(contacts, min(len(contacts), 11))
        chats = rng.sample(CHATS, len(people))
        for i, (person, lines) in enumerate(zip(people, chats)):
            start = phone.now - timedelta(days=rng.choice((0, 0, 1, 2, 3, 5, 8, 12, 20)) + i * 0.3,
                                          minutes=rng.randint(30, 600))
            unread = rng.random() < 0.3 and lines[-1][0] == "<"
            for j, (way, text) in enumerate(lines):
                when = start + timedelta(minutes=j * rng.randint(1, 25))
                last = j == len(lines) - 1
                add_sms(phone, person["phones"][0][0], text, kind=TYPE_INBOX if way == "<" else TYPE_SENT,
                        when=min(when, phone.now - timedelta(minutes=5)), read=not (unread and last))
        for short, tmpl in rng.sample(SERVICE, 2):
            add_sms(phone, short, tmpl.format(code=rng.randint(100000, 999999)),
                    when=phone.now - timedelta(days=rng.randint(1, 15), minutes=rng.randint(0, 600)))

    # ---- screens --------------------------------------------------------------------------------
    def screen_main(self, phone: Phone, scr: Screen) -> View:
        selected = scr.state.get("selected")
        threads = phone.query("SELECT * FROM threads ORDER BY date DESC, _id DESC")
        if selected is not None and not any(t["_id"] == selected for t in threads):
            selected = scr.state["selected"] = None
        rows = [self._thread_row(phone, scr, t, t["_id"] == selected) for t in threads]
        if selected is not None:
            t = next(t for t in threads if t["_id"] == selected)
            unread = not t["read"]

            def clear() -> None:
                scr.state["selected"] = None

            actions = [("Delete", "action_delete", lambda: phone.show_dialog(
                           self.key, "confirm", title="Delete 1 conversation?",
                           message="Messages in this conversation will be deleted.", ok="Delete",
                           on_ok="delete_conversation", args={"thread_id": selected})),
                       ("Mark as read" if unread else "Mark as unread", "action_read",
                        lambda: self._mark(phone, scr, selected, unread))]
            bar = app_bar("1 selected", back=clear, actions=actions, phone=phone)
            bar.children[0].desc = "Cancel selection"
        else:
            bar = app_bar("Messages", actions=[("Search", "action_search", lambda: phone.push("search"))],
                          menu=[("Mark all as read", lambda: self.mark_all_read(phone)),
                                ("Archived", lambda: phone.show_toast("No archived conversations"))], phone=phone)
        start = fab("Start chat", lambda: phone.push("compose"), rid="start_chat_fab", icon="chat")
        return screen_frame(bar, list_view(phone, scr, rows, rid="conversation_list",
                                           empty="Once you start a new conversation, you'll see it listed here"),
                            fab=start)

    def _thread_row(self, phone: Phone, scr: Screen, t: Any, selected: bool) -> View:
        unread = not t["read"]
        name = display_name(phone, t["recipient_ids"])
        snippet = (t["snippet"] or "").replace("\n", " ")
        last_sent = phone.query_one("SELECT type FROM sms WHERE thread_id=? ORDER BY date DESC, _id DESC LIMIT 1",
                                    (t["_id"],))
        if last_sent is not None and last_sent["type"] == TYPE_SENT:
            snippet = f"You: {snippet}"
        elif last_sent is not None and last_sent["type"] == TYPE_FAILED:
            snippet = f"Not sent: {snippet}"
        style = {"bold": unread}
        texts = V("linear",
                  V("linear", text_view(name, rid="conversation_name", size=46, grow=1, style=dict(style)),
                    text_view(short_date(phone, t["date"]), rid="conversation_timestamp", size=34, w=220,
                              style={"align": "right", **style}), horizontal=True),
                  text_view(snippet[:60] + ("…" if len(snippet) > 60 else ""), rid="conversation_snippet", size=38,
                            style={"fg": "#202124" if unread else "#5f6368", **style}),
                  grow=1)
        avatar = V("image", rid="conversation_icon", w=120, h=120,
                   style={"icon": "avatar", "bg": ACCENT, "shape": "round", "letter": name[:1].upper()})

        def open_thread() -> None:
            if scr.state.get("selected") is not None:
                scr.state["selected"] = None if selected else t["_id"]
            else:
                self.open_thread(phone, t["recipient_ids"])

        def select() -> None:
            scr.state["selected"] = t["_id"]

        # unread rows describe themselves (as the real app's content-desc does); bold is invisible in a dump
        desc = f"Unread conversation with {name}, {snippet}, {short_date(phone, t['date'])}" if unread else ""
        return V("linear", avatar, texts, rid="swipeableContainer", horizontal=True, clickable=True, focusable=True,
                 long_clickable=True, selected=selected, on_click=open_thread, on_long_click=select, desc=desc,
                 h=200, pad=(40, 30, 40, 30), gap=36, style={"bg": "#e8f0fe" if selected else None})

    def _mark(self, phone: Phone, scr: Screen, thread_id: int, read: bool) -> None:
        mark_thread_read(phone, thread_id, read)
        scr.state["selected"] = None

    def screen_thread(self, phone: Phone, scr: Screen) -> View:
        address = scr.args["address"]
        tid = thread_for(phone, address)
        name = display_name(phone, address)
        msgs = phone.query("SELECT * FROM sms WHERE thread_id=? ORDER BY date, _id", (tid,)) if tid else []
        picked = scr.state.get("selected_msg")
        if picked is not None and not any(m["_id"] == picked for m in msgs):
            picked = scr.state["selected_msg"] = None
        rows = self._bubbles(phone, scr, msgs, picked)
        if picked is not None:
            return self._thread_selection(phone, scr, rows, next(m["body"] for m in msgs if m["_id"] == picked),
                                          picked)
        if name != address:
            sub = address
        else:
            sub = ""
        bar = app_bar(name, back=phone.back,
                      actions=[("Call", "action_call", lambda: phone.show_toast(f"Calling {address}"))],
                      menu=[("Delete", lambda: phone.show_dialog(
                          self.key, "confirm", title="Delete this conversation?",
                          message="Messages in this conversation will be deleted.", ok="Delete",
                          on_ok="delete_conversation", args={"thread_id": tid})) if tid else
                          ("Delete", lambda: phone.show_toast("Nothing to delete")),
                          ("Details", lambda: phone.show_toast(f"{name} {sub}".strip()))], phone=phone)
        f = scr.fields
        field = edit_field(phone, f, "message", hint="Text message", rid="compose_message_text",
                           on_enter=None)
        field.grow = 1
        send = icon_button("Send SMS", lambda: self.send(phone, scr), rid="send_message_button", icon="send",
                           w=140, h=140, enabled=bool(f.get("message", "").strip()))
        bottom = V("linear", field, send, rid="compose_message_view", horizontal=True, h=190,
                   pad=(30, 20, 30, 20), gap=20, style={"bg": "#f1f3f4"})
        empty = f"Start a conversation with {name}" if not msgs else None
        body = list_view(phone, scr, rows, rid="messages_list", empty=empty)
        return screen_frame(bar, body, bottom=bottom)

    def _bubble(self, phone: Phone, scr: Screen, m: Any, *, selected: bool = False) -> View:
        sent = m["type"] != TYPE_INBOX
        failed = m["type"] == TYPE_FAILED
        dt = from_ms(m["date"])
        status = phone.format_time(dt.hour, dt.minute)
        if failed:
            status = "Not sent · Tap to retry"
        elif sent:
            status += " · Delivered"
        text = text_view(m["body"], rid="message_text", size=42,
                         style={"fg": "#ffffff" if sent else "#202124", "align": "right" if sent else "left"})
        body = V("linear", text, pad=(40, 24, 40, 24), style={"bg": ACCENT if sent else "#e8eaed", "shape": "card"})
        meta = text_view(status, rid="message_status", size=30,
                         style={"fg": "#5f6368", "align": "right" if sent else "left"})
        pad = (260, 12, 40, 12) if sent else (40, 12, 260, 12)
        sid = m["_id"]

        def pick() -> None:
            scr.state["selected_msg"] = sid

        choosing = scr.state.get("selected_msg") is not None
        # a failed bubble retries on tap (its status says so); while choosing, a tap moves the selection
        on_click = pick if choosing else (lambda: self.retry(phone, scr, sid)) if failed else None
        return V("linear", body, meta, rid="message_content", clickable=on_click is not None,
                 focusable=on_click is not None, on_click=on_click, long_clickable=True, on_long_click=pick,
                 selected=selected, pad=pad, style={"bg": "#e8f0fe" if selected else None})

    def _bubbles(self, phone: Phone, scr: Screen, msgs: list[Any], picked: int | None) -> list[View]:
        """Message bubbles oldest first, with a date header wherever the day changes."""
        rows: list[View] = []
        last_day = None
        for m in msgs:
            dt = from_ms(m["date"])
            if dt.date() != last_day:
                rows.append(text_view(long_date(phone, m["date"]), rid="message_date_header", size=32, h=90,
                                      style={"align": "center", "fg": "#5f6368"}))
                last_day = dt.date()
            rows.append(self._bubble(phone, scr, m, selected=m["_id"] == picked))
        return rows

    def _thread_selection(self, phone: Phone, scr: Screen, rows: list[View], body_text: str, picked: int) -> View:
        """The conversation with one message chosen (long press): its actions replace the toolbar."""

        def clear() -> None:
            scr.state["selected_msg"] = None

        def forward() -> None:
            clear()
            phone.push("compose", body=body_text)

        actions = [("Forward", "action_forward", forward),
                   ("Delete", "action_delete", lambda: phone.show_dialog(
                       self.key, "confirm", title="Delete message?", message="This message will be deleted.",
                       ok="Delete", on_ok="delete_message", args={"sms_id": picked}))]
        bar = app_bar("1 selected", back=clear, actions=actions, phone=phone)
        bar.children[0].desc = "Cancel selection"
        body = list_view(phone, scr, rows, rid="messages_list")
        return screen_frame(bar, body)

    def screen_compose(self, phone: Phone, scr: Screen) -> View:
        f = scr.fields
        query = f.get("to", "").strip()

        def go_to(address: str) -> None:
            self.open_thread(phone, address, replace=True, body=scr.args.get("body", ""))

        rows: list[View] = []
        digits = normalize_number(query)
        if query and digits and len(digits) >= 3 and not any(c.isalpha() for c in query):
            rows.append(self._suggestion(f"Send to {query}", "", lambda: go_to(query), rid="send_to_number"))
        q = query.lower()
        for c in live_contacts(phone):
            info = contact_info(phone, c["_id"])
            for num, _t in info["phones"]:
                hit = not q or q in info["name"].lower() or (digits and len(digits) >= 3
                                                              and digits in normalize_number(num))
                if hit:
                    rows.append(self._suggestion(info["name"], num, lambda n=num: go_to(n)))
        field = edit_field(phone, f, "to", hint="Type a name, phone number, or email", rid="recipient_text_view",
                           on_enter=(lambda: go_to(query)) if digits and len(digits) >= 3 else None)
        field.grow = 1
        to_row = V("linear", text_view("To", size=42, w=90, style={"valign": "center"}), field, horizontal=True,
                   h=170, pad=(40, 10, 40, 10))
        header = text_view("Top contacts" if not q else "Contacts", rid="contact_list_header", size=36,
                           pad=(48, 20, 0, 10), style={"fg": "#5f6368"})
        body = V("linear", to_row, header, list_view(phone, scr, rows, rid="contact_picker", empty="No matches"),
                 grow=1)
        return screen_frame(app_bar("New conversation", back=phone.back), body)

    def _suggestion(self, title: str, number: str, on_click: Any, *, rid: str = "contact_picker_row") -> View:
        avatar = V("image", w=110, h=110, style={"icon": "avatar", "bg": ACCENT, "shape": "round",
                                                 "letter": title[:1].upper()})
        texts = V("linear", text_view(title, rid="contact_name", size=44),
                  text_view(number, rid="contact_details", size=36, style={"fg": "#5f6368"}) if number else None,
                  grow=1)
        return V("linear", avatar, texts, rid=rid, horizontal=True, clickable=True, focusable=True,
                 on_click=on_click, h=180, pad=(48, 30, 40, 30), gap=36)

    def screen_search(self, phone: Phone, scr: Screen) -> View:
        query = scr.fields.get("query", "").strip().lower()
        rows: list[View] = []
        if query:
            for m in phone.query("SELECT * FROM sms ORDER BY date DESC, _id DESC"):
                name = display_name(phone, m["address"])
                if query in m["body"].lower() or query in name.lower():
                    body = m["body"].replace("\n", " ")
                    rows.append(V("linear",
                                  V("linear", text_view(name, rid="conversation_name", size=44, grow=1),
                                    text_view(short_date(phone, m["date"]), rid="conversation_timestamp", size=32,
                                              w=200, style={"align": "right"}), horizontal=True),
                                  text_view(body, rid="message_snippet", size=38, style={"fg": "#5f6368"}),
                                  rid="search_result", clickable=True, focusable=True,
                                  on_click=lambda a=m["address"]: self.open_thread(phone, a),
                                  pad=(48, 26, 40, 26)))
        field = edit_field(phone, scr.fields, "query", hint="Search conversations", rid="search_text")
        field.grow = 1
        bar = V("linear", icon_button("Navigate up", phone.back, icon="back", w=147, h=147), field,
                horizontal=True, h=168, pad=(12, 10, 30, 10))
        return screen_frame(bar, list_view(phone, scr, rows, rid="search_results",
                                           empty="No results" if query else None))

    # ---- behaviour --------------------------------------------------------------------------------
    def open_thread(self, phone: Phone, address: str, *, replace: bool = False, body: str = "") -> None:
        """Show a conversation scrolled to its newest message; opening it marks it read."""
        scr = phone.replace("thread", address=address) if replace else phone.push("thread", address=address)
        scr.scroll["list"] = 10 ** 6  # clamped to the last page by the list
        if body:
            scr.fields["message"] = body
        tid = thread_for(phone, address)
        if tid is not None:
            mark_thread_read(phone, tid)

    def send(self, phone: Phone, scr: Screen) -> None:
        text = scr.fields.get("message", "").strip()
        if not text:
            return
        address = scr.args["address"]
        failed = airplane_on(phone)
        add_sms(phone, address, text, kind=TYPE_FAILED if failed else TYPE_SENT, read=True)
        scr.fields["message"] = ""
        scr.scroll["list"] = 10 ** 6
        if failed:
            phone.show_toast("Message not sent. Turn off airplane mode to send.")

    def delete_conversation(self, phone: Phone, thread_id: int) -> None:
        delete_thread(phone, thread_id)
        scr = phone.screen
        if scr is not None and scr.name == "thread":
            phone.pop()
        elif scr is not None:
            scr.state["selected"] = None
        phone.show_toast("Conversation deleted")

    def delete_message(self, phone: Phone, sms_id: int) -> None:
        row = phone.query_one("SELECT thread_id FROM sms WHERE _id=?", (sms_id,))
        scr = phone.screen
        if scr is not None:
            scr.state["selected_msg"] = None
        if row is None:
            return
        phone.execute("DELETE FROM sms WHERE _id=?", (sms_id,))
        refresh_thread(phone, row["thread_id"])
        phone.show_toast("Message deleted")

    def retry(self, phone: Phone, scr: Screen, sms_id: int) -> None:
        """Resend a failed message: the same row becomes sent (still failing in airplane mode)."""
        if airplane_on(phone):
            phone.show_toast("Message not sent. Turn off airplane mode to send.")
            return
        row = phone.query_one("SELECT thread_id FROM sms WHERE _id=? AND type=?", (sms_id, TYPE_FAILED))
        if row is None:
            return
        phone.execute("UPDATE sms SET type=?, date=? WHERE _id=?", (TYPE_SENT, to_ms(phone.now), sms_id))
        refresh_thread(phone, row["thread_id"])
        scr.scroll["list"] = 10 ** 6

    def mark_all_read(self, phone: Phone) -> None:
        for t in phone.query("SELECT _id FROM threads WHERE read=0"):
            mark_thread_read(phone, t["_id"])


def _on_back(phone: Phone) -> bool:
    """Back first clears a selection (a conversation in the list, a message in a thread)."""
    scr = phone.screen
    if scr is None or phone.dialog is not None:
        return False
    for key in ("selected", "selected_msg"):
        if scr.state.get(key) is not None:
            scr.state[key] = None
            return True
    return False


MessagesApp.on_back = staticmethod(_on_back)
