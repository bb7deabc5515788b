"""The phone clock's stored forms (epoch seconds / milliseconds) and its English date labels."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

from droidverify.env.sim import timeutil as tu


def test_epoch_ms_round_trip_is_exact() -> None:
    dt = datetime(2024, 10, 15, 9, 41, 7, 123000)
    assert tu.to_ms(dt) == 1_728_985_267_123
    assert tu.from_ms(tu.to_ms(dt)) == dt
    assert tu.to_ms(datetime(1970, 1, 1)) == 0 and tu.from_ms(0) == datetime(1970, 1, 1)


def test_seconds_drop_the_sub_second_part() -> None:
    assert tu.epoch(datetime(1970, 1, 2, 0, 0, 0, 999_999)) == 86_400
    assert tu.to_datetime(86_400) == datetime(1970, 1, 2)
    assert tu.epoch(datetime(1969, 12, 31, 23, 59, 59)) == -1


def test_wall_time_is_read_as_utc_whatever_the_zone() -> None:
    naive = datetime(2024, 10, 15, 9, 41)
    aware = naive.replace(tzinfo=timezone(timedelta(hours=-7)))
    assert tu.to_ms(aware) == tu.to_ms(naive) == tu.to_ms(naive.replace(tzinfo=UTC))
    assert tu.epoch(aware) == tu.epoch(naive)


def test_labels() -> None:
    assert tu.day_label(date(2024, 10, 18)) == "Fri, Oct 18, 2024"
    assert tu.day_label(datetime(2024, 1, 1, 23, 59)) == "Mon, Jan 1, 2024"
    assert len(tu.MONTHS) == len(tu.MONTHS_SHORT) == 12 and len(tu.WEEKDAYS) == len(tu.WEEKDAYS_SHORT) == 7
