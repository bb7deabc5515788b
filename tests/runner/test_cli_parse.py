from __future__ import annotations

import pytest

from droidverify.cli.run import parse_seeds
from droidverify.errors import RunError


def test_parse_seeds_lists_ranges_and_mixes() -> None:
    assert parse_seeds("0,1,2") == [0, 1, 2]
    assert parse_seeds("0-4") == [0, 1, 2, 3, 4]
    assert parse_seeds(" 3 , 0-1,1 ") == [0, 1, 3]
    assert parse_seeds("7") == [7]


@pytest.mark.parametrize("bad", ["", "a", "1-", "-1", "4-2", "1,,2", "1.5", "0-999999999"])
def test_parse_seeds_rejects_bad_specs(bad: str) -> None:
    with pytest.raises(RunError, match="bad seeds spec"):
        parse_seeds(bad)
