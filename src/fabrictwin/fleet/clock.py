"""Clocks for the executor: wall time in production, virtual time in tests.

The executor only asks ``now()`` and ``sleep_until(t)``; nothing else in the control plane reads
the wall clock, so a rollout of hours runs in seconds against an emulator whose clock the test
advances (``on_advance``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Protocol


class Clock(Protocol):
    """Seconds on some time line, and a way to wait until a moment on it."""

    def now(self) -> float:
        """Current time (s)."""
        ...

    async def sleep_until(self, t: float) -> None:
        """Return once ``now() >= t``."""
        ...


class WallClock:
    """Real time (``time.time``), optionally scaled: ``scale`` virtual seconds per real second.

    A scale matches an emulator started with ``--time-scale`` so timeouts and poll periods keep
    their meaning.
    """

    def __init__(self, scale: float = 1.0) -> None:
        self.scale = scale
        self._t0 = time.time()

    def now(self) -> float:
        return self._t0 + (time.time() - self._t0) * self.scale

    async def sleep_until(self, t: float) -> None:
        delay = (t - self.now()) / self.scale
        if delay > 0:
            await asyncio.sleep(delay)


class ManualClock:
    """Virtual time that jumps: ``sleep_until`` moves ``now`` and calls ``on_advance(seconds)``.

    Tests hand ``on_advance`` the emulator's advance so both sides share one time line.
    """

    def __init__(self, start: float = 0.0, on_advance: Callable[[float], None] | None = None) -> None:
        self._now = start
        self.on_advance = on_advance

    def now(self) -> float:
        return self._now

    async def sleep_until(self, t: float) -> None:
        if t <= self._now:
            await asyncio.sleep(0)
            return
        step = t - self._now
        if self.on_advance is not None:
            # The emulator's advance is blocking I/O or a lock; keep the event loop responsive.
            await asyncio.to_thread(self.on_advance, step)
        self._now = t
