"""Shared building blocks at the bottom of the package (above only ``ui`` and ``actions``).

* :mod:`droidverify.core.records`: ``Observation``, ``Step``, ``Trajectory``, ``TokenUsage``;
* :mod:`droidverify.core.items`: the ``ItemBackend`` protocol and :func:`run_inline`.
"""

from __future__ import annotations

from droidverify.core.items import ItemBackend, run_inline
from droidverify.core.records import Observation, Step, TokenUsage, Trajectory

__all__ = ["ItemBackend", "Observation", "Step", "TokenUsage", "Trajectory", "run_inline"]
