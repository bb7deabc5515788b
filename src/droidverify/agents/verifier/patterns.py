"""Time and month patterns shared by the value proposer (``proposals``) and the derivations
(``derived``): one definition, so a time one of them reads the other reads too. Linear-time."""

from __future__ import annotations

import re

__all__ = ["AMPM", "HOUR_AMPM_RE", "MONTHS", "MONTH_RE", "TIME_RE"]

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
MONTH_RE = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
            r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)")
AMPM = r"\s?(?:([AaPp])[Mm]\b|([AaPp])\.[Mm]\.)"  # "PM", "pm", "p.m." (a sentence's full stop is not part of it)
# "9:40", "9:40 PM": groups hour, minute, then the a/p of "PM" or of "p.m."
TIME_RE = re.compile(r"(?<![\d:])(\d{1,2}):(\d{2})(?!\d|:\d)(?:" + AMPM + ")?")
HOUR_AMPM_RE = re.compile(r"(?<![\d:.])(\d{1,2})" + AMPM)  # "9 PM": hour, then the a/p
