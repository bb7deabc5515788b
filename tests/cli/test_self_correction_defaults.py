"""Issue 23, item 8: ``collect()``, ``DataSpec`` and ``train data`` draw self-correction records at
one default rate, so a caller of the library gets the share the documented data set has."""

from __future__ import annotations

import inspect

from droidverify.cli.train import data_command
from droidverify.training.collection import collect
from droidverify.training.loop import DataSpec


def test_one_default_self_correction_rate() -> None:
    library = inspect.signature(collect).parameters["self_correction_rate"].default
    cli = inspect.signature(data_command).parameters["self_correction_rate"].default
    assert library == DataSpec().self_correction_rate == cli == 0.12
