"""The simulated phone's clock as stored numbers and as English text, in one place.

The phone's clock is a naive ``datetime`` (``phone.now``). Apps store it the way their Android
counterparts do: epoch seconds (external storage) or epoch milliseconds (CalendarContract,
Telephony, Room). Both read the naive wall time as UTC, so stored values never depend on the
host's time zone, and the conversions are exact integer arithmetic (no float rounding).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

EPOCH = datetime(1970, 1, 1)
_SECOND = timedelta(seconds=1)
_MILLISECOND = timedelta(milliseconds=1)

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
MONTHS_SHORT = tuple(m[:3] for m in MONTHS)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
WEEKDAYS_SHORT = tuple(d[:3] for d in WEEKDAYS)


def _naive(dt: datetime) -> datetime:
    # the wall time is what counts: an aware datetime is read as if it were on the phone's clock
    return dt.replace(tzinfo=None)


def epoch(dt: datetime) -> int:
    """Epoch seconds of a phone datetime, read as UTC (sub-second parts are dropped)."""
    return (_naive(dt) - EPOCH) // _SECOND


def to_datetime(seconds: int) -> datetime:
    """Inverse of :func:`epoch` (a naive datetime on the phone's clock)."""
    return EPOCH + timedelta(seconds=int(seconds))


def to_ms(dt: datetime) -> int:
    """Epoch milliseconds of a phone datetime, read as UTC."""
    return (_naive(dt) - EPOCH) // _MILLISECOND


def from_ms(ms: int) -> datetime:
    """Inverse of :func:`to_ms` (a naive datetime on the phone's clock)."""
    return EPOCH + timedelta(milliseconds=int(ms))


def day_label(d: date) -> str:
    """``"Tue, Oct 15, 2024"``: the short date label the apps and pickers show."""
    return f"{WEEKDAYS_SHORT[d.weekday()]}, {MONTHS_SHORT[d.month - 1]} {d.day}, {d.year}"
