"""Shared per-rack artifact bandwidth: transfers on one link share it max-min fairly.

Each transfer has its own cap (the BMC's rate, 7.4 item 1: ~5 MB/s over HTTP [S4]); the
rack link has a capacity (1 GbE OOB, section 6 [S97]). Rates are water-filled: transfers
whose cap is below the fair share keep their cap, the rest split what remains equally.
Whenever a transfer starts or ends, progress is settled at the old rates and every finish
event is rescheduled at the new ones, so a transfer's duration is exact under contention.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from fabrictwin.emulator.clock import Timer, VirtualClock


@dataclass(slots=True)
class Transfer:
    """One image stream: bytes to move, its cap, and what to call when it reaches ``stop_bytes``."""

    total_bytes: float
    cap_Bps: float
    on_stop: Callable[[], None]
    stop_bytes: float = -1.0
    done_bytes: float = 0.0
    rate_Bps: float = 0.0
    since_s: float = 0.0
    timer: Timer | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.stop_bytes < 0:
            self.stop_bytes = self.total_bytes

    def bytes_at(self, now: float) -> float:
        """Bytes moved by ``now``."""
        return min(self.stop_bytes, self.done_bytes + self.rate_Bps * max(0.0, now - self.since_s))

    def fraction_at(self, now: float) -> float:
        """Fraction (0-1) of the image moved by ``now``."""
        return self.bytes_at(now) / self.total_bytes if self.total_bytes > 0 else 1.0


def water_fill(caps: list[float], capacity: float) -> list[float]:
    """Max-min fair rates for flows with individual caps on one link of ``capacity``."""
    order = sorted(range(len(caps)), key=lambda i: caps[i])
    rates = [0.0] * len(caps)
    left, n_left = capacity, len(caps)
    for i in order:
        share = left / n_left
        rates[i] = min(caps[i], share)
        left -= rates[i]
        n_left -= 1
    return rates


class SharedLink:
    """A rack's artifact link; ``start`` adds a transfer, ``stop`` removes one early."""

    def __init__(self, clock: VirtualClock, capacity_Bps: float) -> None:
        self.clock = clock
        self.capacity_Bps = capacity_Bps
        self.active: list[Transfer] = []

    def start(self, transfer: Transfer) -> Transfer:
        """Begin ``transfer`` now; its ``on_stop`` fires when it reaches ``stop_bytes``."""
        self._settle()
        transfer.since_s = self.clock.now
        self.active.append(transfer)
        self._reschedule()
        return transfer

    def stop(self, transfer: Transfer) -> None:
        """Remove ``transfer`` (finished, failed or aborted) and give its share to the rest."""
        if transfer not in self.active:
            return
        self._settle()
        self.active.remove(transfer)
        if transfer.timer is not None:
            transfer.timer.cancel()
        transfer.rate_Bps = 0.0
        self._reschedule()

    def _settle(self) -> None:
        now = self.clock.now
        for t in self.active:
            t.done_bytes = t.bytes_at(now)
            t.since_s = now

    def _reschedule(self) -> None:
        rates = water_fill([t.cap_Bps for t in self.active], self.capacity_Bps)
        for t, rate in zip(self.active, rates, strict=True):
            t.rate_Bps = rate
            if t.timer is not None:
                t.timer.cancel()
            remaining = max(0.0, t.stop_bytes - t.done_bytes)
            delay = remaining / rate if rate > 0 else float("inf")
            if delay != float("inf"):
                t.timer = self.clock.schedule(delay, self._finisher(t))

    def _finisher(self, t: Transfer) -> Callable[[], None]:
        def fire() -> None:
            self.stop(t)
            t.done_bytes = t.stop_bytes
            t.on_stop()

        return fire
