"""Admission control: at most N unavailable DPUs per rack, pod, tenant, job or the whole fleet.

Shared by the planner (simulated time) and the executor (live), so both honour the same rule.
A device whose value for a domain is empty (no job, no tenant) is not limited by that domain,
except the ``fleet`` domain, which every device belongs to.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from fabrictwin.spec.fleet import DeviceRef, Domain, Window


def domain_value(device: DeviceRef, domain: Domain) -> str:
    """The device's value in a domain (``"*"`` for the fleet domain)."""
    if domain == "fleet":
        return "*"
    value: str = getattr(device, domain)
    return value


class Admission:
    """Counts of unavailable devices per (domain, value) against the caps."""

    def __init__(self, caps: Mapping[Domain, int]) -> None:
        self.caps: dict[Domain, int] = dict(caps)
        self.counts: Counter[tuple[Domain, str]] = Counter()

    def _keys(self, device: DeviceRef) -> list[tuple[Domain, str]]:
        keys = []
        for domain in self.caps:
            value = domain_value(device, domain)
            if value:
                keys.append((domain, value))
        return keys

    def can_admit(self, device: DeviceRef) -> bool:
        """True when taking the device down keeps every domain within its cap."""
        return all(self.counts[k] < self.caps[k[0]] for k in self._keys(device))

    def blocking_domain(self, device: DeviceRef) -> Domain | None:
        """The first domain whose cap blocks the device, or None."""
        for key in self._keys(device):
            if self.counts[key] >= self.caps[key[0]]:
                return key[0]
        return None

    def admit(self, device: DeviceRef) -> None:
        """Count the device as unavailable."""
        for key in self._keys(device):
            self.counts[key] += 1

    def keys(self, device: DeviceRef) -> list[tuple[Domain, str]]:
        """The capped (domain, value) keys the device counts against."""
        return self._keys(device)

    def release(self, device: DeviceRef) -> list[tuple[Domain, str]]:
        """Count the device as available again; returns the keys that were at their cap."""
        freed = []
        for key in self._keys(device):
            if self.counts[key] >= self.caps[key[0]]:
                freed.append(key)
            self.counts[key] -= 1
        return freed


def window_allows(windows: tuple[Window, ...], t_s: float, duration_s: float) -> bool:
    """True when a device started at ``t_s`` (s since rollout start) finishes inside one window."""
    if not windows:
        return True
    return any(w.start_s <= t_s and t_s + duration_s <= w.end_s for w in windows)


def next_window_start(windows: tuple[Window, ...], t_s: float) -> float | None:
    """Start of the first window opening after ``t_s``, or None when none is left."""
    starts = [w.start_s for w in windows if w.start_s > t_s]
    return min(starts) if starts else None


def open_time_reached(windows: tuple[Window, ...], work_s: float) -> float:
    """Earliest time by which ``work_s`` seconds of open window time have elapsed.

    Returns ``work_s`` itself when there are no windows, and ``inf`` when the windows are too short.
    """
    if not windows:
        return work_s
    remaining = work_s
    for w in sorted(windows, key=lambda w: w.start_s):
        span = w.end_s - w.start_s
        if remaining <= span:
            return w.start_s + remaining
        remaining -= span
    return float("inf")
