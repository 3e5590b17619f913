"""Wall-clock timing shared by the ``bench_*.py`` scripts (not a benchmark itself).

The scripts run as ``.venv/bin/python bench/bench_<name>.py``, so this folder is on ``sys.path``
and they import this module as ``_timing``.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def median_time(fn: Callable[[], T], repeat: int = 3) -> tuple[float, T]:
    """Median wall time (s) of ``repeat`` calls of ``fn`` and the last call's result.

    Raises:
        ValueError: ``repeat`` < 1 (there would be nothing to take the median of).
    """
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, not {repeat}")
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def median_s(fn: Callable[[], object], repeat: int = 3) -> float:
    """Median wall time (s) of ``repeat`` calls of ``fn``."""
    return median_time(fn, repeat)[0]
