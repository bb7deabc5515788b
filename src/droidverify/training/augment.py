"""Name swaps: training records whose entity names are exchanged consistently.

On templates it never saw, the compact verifier prefers an element whose name was right on train
templates ("Documents") over the one the goal names ("Pictures"): in the simulator many names are
the same at every seed, so the name alone predicts the label. A swapped copy of a record exchanges
two such names everywhere the record holds text (goal, memory, screen, candidates, labels), so the
world stays consistent and the right element stays right, but it now carries the other name: only
its match with the goal predicts it.

Two names are swapped only where both label elements of one kind on the screen (same class and
resource id: rows of a list, launcher icons, tabs) and one of them is written in the goal as it is
on screen, so that the words of buttons ("Save") and states ("Off" in "turn off") keep their meaning.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from droidverify.env.records import Observation
from droidverify.training.records import VerifierStepRecord

# names that can be swapped as plain text in every field (XML and JSON escape none of these)
_NAME_RE = re.compile(r"^[A-Za-z][\w .'-]{1,39}$")
_SUFFIX = "~swap"


def _in(name: str, text: str) -> bool:
    # as written: a name is capitalised in the goal where a state word ("Off" -> "turn off") is not
    return re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", text) is not None


def swappable_pairs(rec: VerifierStepRecord) -> list[tuple[str, str]]:
    """(named in the goal, a sibling's name) pairs of the record's screen, in screen order."""
    if rec.xml is None:
        return []
    groups: dict[tuple[str, str], list[str]] = {}
    for el in Observation(xml=rec.xml).elements:
        label = (el.text or el.content_description or "").strip()
        if el.resource_id and _NAME_RE.match(label):
            names = groups.setdefault((el.class_name or "", el.resource_id), [])
            if label not in names:
                names.append(label)
    pairs: list[tuple[str, str]] = []
    for names in groups.values():
        for x in names:
            if not _in(x, rec.goal):
                continue
            for y in names:
                # a name inside the other ("Notes" / "Notes 2") would be swapped twice
                if y != x and x.lower() not in y.lower() and y.lower() not in x.lower():
                    pairs.append((x, y))
    return pairs


def swap_text(text: str, x: str, y: str) -> str:
    """``text`` with the whole words ``x`` and ``y`` exchanged (as written, and in lower case)."""
    table = {x: y, y: x, x.lower(): y.lower(), y.lower(): x.lower()}
    words = sorted(table, key=len, reverse=True)
    pattern = re.compile(r"(?<!\w)(" + "|".join(re.escape(w) for w in words) + r")(?!\w)")
    return pattern.sub(lambda m: table[m.group(1)], text)


def swap_record(rec: VerifierStepRecord, x: str, y: str, tag: int = 0) -> VerifierStepRecord:
    """A copy of ``rec`` with names ``x`` and ``y`` exchanged in every text it holds."""

    def sw(t: str | None) -> str | None:
        return None if t is None else swap_text(t, x, y)

    completion = rec.completion
    if completion is not None:
        completion = completion.model_copy(update={"question": sw(completion.question), "target": sw(completion.target)})
    return rec.model_copy(update={
        "record_id": f"{rec.record_id}{_SUFFIX}{tag}",
        "goal": sw(rec.goal), "memory": sw(rec.memory), "ui": sw(rec.ui), "xml": sw(rec.xml),
        "candidates": [sw(c) for c in rec.candidates], "descriptions": [sw(d) for d in rec.descriptions],
        "oracle_action": sw(rec.oracle_action), "completion": completion,
    })


def with_name_swaps(records: Sequence[VerifierStepRecord], copies: int, seed: int = 0
                    ) -> tuple[list[VerifierStepRecord], int]:
    """``records`` followed by up to ``copies`` swapped copies of each record that has a swappable
    pair (a different pair per copy, drawn with ``seed``); also how many copies were added."""
    if copies < 0:
        raise ValueError(f"copies must be >= 0, got {copies!r}")
    out = list(records)
    if copies == 0:
        return out, 0
    rng = random.Random(seed)
    added = 0
    for rec in records:
        pairs = swappable_pairs(rec)
        for k, (x, y) in enumerate(rng.sample(pairs, min(copies, len(pairs)))):
            out.append(swap_record(rec, x, y, k))
            added += 1
    return out, added


# ---- other apps on the phone --------------------------------------------------------------------
# The simulator installs 9 apps, so in training `open_app` always names one of the same 9, and an
# app name the network never saw (a real phone lists 30 or more) gets an arbitrary score: on the
# real-screen benchmark most misses open an app the goal does not name. Records can list some of
# these too, always wrong. None does what a simulator app does (no calendar, clock, contacts, phone,
# messaging, mail, notes, files, money, settings or to-do app), so offering one never makes a right
# `open_app` wrong; and none is in the adb app table (env/apps.py), so the apps a real phone offers
# are never learned as wrong by name (a first pool that had Chrome and Camera in it learned exactly that),
# nor is any app or element a goal of the real-screen benchmark names.
DISTRACTOR_APPS: tuple[str, ...] = (
    "Adobe Scan", "Airbnb", "Audible", "Authenticator", "Booking.com", "Bumble",
    "Candy Crush Saga", "Canva", "CapCut", "Chess.com", "Citymapper", "Compass", "Coursera",
    "Disney+", "DoorDash", "Duolingo", "eBay", "Etsy", "Expedia", "Facebook", "Firefox", "Fitbit",
    "Flightradar24", "Goodreads", "Google Lens", "Headspace", "Hulu", "IKEA", "Instagram",
    "Khan Academy", "Komoot", "Letterboxd", "LinkedIn", "Lyft", "McDonald's", "Medium",
    "MyFitnessPal", "Netflix", "Nike Run Club", "Pinterest", "Podcasts", "Pokémon GO", "Quora", "Reddit",
    "Roblox", "Shazam", "Skyscanner", "Sky Map", "Snapchat", "SoundCloud", "Speedtest", "Spotify",
    "Starbucks", "Steam", "Strava", "TikTok", "Tinder", "Translate", "Tripadvisor", "Twitch", "Uber",
    "Vimeo", "Wattpad", "Waze", "Wikipedia", "Yelp", "Zillow",
)


def apps_with_distractors(apps: Sequence[str], key: str, most: int) -> list[str]:
    """``apps`` plus 0..``most`` names of DISTRACTOR_APPS (none already listed), drawn from ``key``
    (a record id: the same record always gets the same list), in a drawn order."""
    if most <= 0:
        return list(apps)
    rng = random.Random(key)
    listed = set(apps)
    pool = [a for a in DISTRACTOR_APPS if a not in listed]
    extra = rng.sample(pool, min(rng.randint(0, most), len(pool)))
    out = [*apps, *extra]
    rng.shuffle(out)
    return out
