"""A deterministic event clock for the emulated devices.

The shape follows SimPy's core: a heap of ``(time, priority, sequence, callback)`` so events
at the same instant always fire in the same order (lower priority first, then insertion
order). Devices never read the wall clock; they ask this clock for ``now`` and schedule
callbacks on it. Serving maps wall time onto virtual time with :class:`ScaledDriver`
(``virtual = scale * (wall - start)``), catching up lazily before each request, so the same
model runs in virtual time in tests and paced to the wall clock when served.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable
from dataclasses import dataclass, field

Callback = Callable[[], None]

URGENT = 0
"""Priority of events that must precede normal ones at the same instant (e.g. power loss)."""
NORMAL = 1
"""Priority of ordinary events."""


@dataclass(order=True, slots=True)
class _Entry:
    time: float
    priority: int
    seq: int
    callback: Callback = field(compare=False)
    cancelled: bool = field(default=False, compare=False)


class Timer:
    """Handle of a scheduled callback; ``cancel()`` makes it a no-op."""

    __slots__ = ("_entry",)

    def __init__(self, entry: _Entry) -> None:
        self._entry = entry

    @property
    def time(self) -> float:
        """Virtual time, s, at which the callback fires."""
        return self._entry.time

    def cancel(self) -> None:
        """Drop the callback (safe to call twice or after it fired)."""
        self._entry.cancelled = True


class VirtualClock:
    """Virtual time in seconds plus the event heap; time moves only through ``advance_to``."""

    def __init__(self, start_s: float = 0.0) -> None:
        self._now = start_s
        self._heap: list[_Entry] = []
        self._seq = 0

    @property
    def now(self) -> float:
        """Current virtual time, s."""
        return self._now

    def schedule(self, delay_s: float, callback: Callback, priority: int = NORMAL) -> Timer:
        """Run ``callback`` ``delay_s`` seconds from now.

        Raises:
            ValueError: if ``delay_s`` is negative (the past cannot be scheduled).
        """
        if delay_s < 0:
            raise ValueError(f"cannot schedule {delay_s} s in the past")
        entry = _Entry(self._now + delay_s, priority, self._seq, callback)
        self._seq += 1
        heapq.heappush(self._heap, entry)
        return Timer(entry)

    def next_time(self) -> float | None:
        """Time of the next live event, or None when nothing is scheduled."""
        while self._heap and self._heap[0].cancelled:
            heapq.heappop(self._heap)
        return self._heap[0].time if self._heap else None

    def advance_to(self, t_s: float) -> int:
        """Fire every event due at or before ``t_s`` in order, then set now to ``t_s``.

        Returns the number of callbacks run. Time never goes backwards: a ``t_s`` earlier
        than now only fires what is already due.
        """
        fired = 0
        while self._heap and self._heap[0].time <= t_s:
            entry = heapq.heappop(self._heap)
            if entry.cancelled:
                continue
            self._now = max(self._now, entry.time)
            entry.callback()
            fired += 1
        self._now = max(self._now, t_s)
        return fired

    def advance(self, dt_s: float) -> int:
        """Advance by ``dt_s`` seconds; see :meth:`advance_to`."""
        return self.advance_to(self._now + dt_s)

    def run(self, until_s: float | None = None) -> int:
        """Fire events until the heap is empty or ``until_s`` is reached."""
        fired = 0
        while (t := self.next_time()) is not None and (until_s is None or t <= until_s):
            fired += self.advance_to(t)
        if until_s is not None:
            self._now = max(self._now, until_s)
        return fired


class ScaledDriver:
    """Moves a virtual clock along with the wall clock, ``scale`` virtual seconds per wall s.

    ``wall`` is injectable (defaults to ``time.monotonic``) so tests can drive it. A scale of
    0 leaves the clock alone: only explicit advances move it.
    """

    def __init__(self, clock: VirtualClock, scale: float, wall: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.scale = scale
        self._wall = wall
        self._wall0 = wall()
        self._virtual0 = clock.now

    def target(self) -> float:
        """The virtual time that corresponds to the wall clock now."""
        return self._virtual0 + self.scale * (self._wall() - self._wall0)

    def catch_up(self) -> int:
        """Fire everything due by the wall clock; returns callbacks run."""
        if self.scale <= 0:
            return 0
        return self.clock.advance_to(self.target())

    def jump(self, dt_s: float) -> int:
        """Advance virtual time by ``dt_s`` on top of the wall mapping (admin clock API)."""
        fired = self.catch_up()
        fired += self.clock.advance(dt_s)
        self._virtual0 += dt_s
        return fired
