"""Rollout planner: waves, a predicted schedule, its makespan and a lower bound.

Model (see ``docs/models/rollout-planner.md``). One DPU's upgrade takes

    d = drain + size / rate + install + boot + [power_cycle] + verify + undrain

with ``rate = min(stream_Bps, rack_image_Bps / k_rack)`` where ``k_rack`` is how many DPUs of the
rack the caps let run at once (transfers of a rack share its image-server bandwidth).
Waves are cumulative fleet fractions (1% -> 10% -> 50% -> 100%), separated by a barrier and a
soak; inside a wave devices are list-scheduled in rack-interleaved order under the
``max_unavailable`` caps and the maintenance windows.

Lower bound per wave (each term is a bound any schedule obeys):
  * one device: ``d_min``;
  * a capped domain value with ``n`` devices and cap ``k``: ``ceil(n / k) * d_min`` — when every
    job lasts at least ``d_min``, k slots finish n jobs no sooner;
  * a rack's image bandwidth: ``drain + bytes_rack / rack_image_Bps + post_transfer`` — the last
    byte cannot arrive sooner, and the last device still has to install, boot, verify.
The total is the sum over waves plus soaks, mapped onto the open maintenance-window time.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from fabrictwin.errors import Infeasible, SpecError
from fabrictwin.fleet.admission import (
    Admission,
    domain_value,
    next_window_start,
    open_time_reached,
    window_allows,
)
from fabrictwin.spec.fleet import DeviceRef, RolloutSpec


@dataclass(frozen=True)
class PlannedDevice:
    """One DPU in the plan: its wave and predicted interval of unavailability (s from start)."""

    name: str
    rack: str
    wave: int
    start_s: float
    end_s: float


@dataclass(frozen=True)
class WavePlan:
    """One wave: its devices, predicted span and lower bound."""

    index: int
    fraction: float
    devices: tuple[str, ...]
    start_s: float
    end_s: float
    lower_bound_s: float
    binding: str
    """The constraint that sets the lower bound (``device``, ``rack=r07``, ``bandwidth:r07`` ...)."""


@dataclass(frozen=True)
class Plan:
    """A rollout plan."""

    waves: tuple[WavePlan, ...]
    devices: tuple[PlannedDevice, ...]
    makespan_s: float
    lower_bound_s: float

    def wave_of(self) -> dict[str, int]:
        """Device name -> wave index."""
        return {d.name: d.wave for d in self.devices}


def device_duration_s(spec: RolloutSpec, rate_Bps: float, power_cycle: bool) -> float:
    """Predicted time a DPU is unavailable (s) at a given transfer rate."""
    d = spec.durations
    fixed = d.drain_s + d.install_s + d.boot_s + d.verify_s + d.undrain_s
    return fixed + spec.target.size_bytes / rate_Bps + (d.power_cycle_s if power_cycle else 0.0)


def interleave_by_rack(devices: Iterable[DeviceRef]) -> list[DeviceRef]:
    """Round-robin over racks (sorted), so every wave, canaries included, spans many racks."""
    by_rack: dict[str, list[DeviceRef]] = {}
    for dev in sorted(devices, key=lambda d: (d.rack, d.name)):
        by_rack.setdefault(dev.rack, []).append(dev)
    queues = [deque(v) for _, v in sorted(by_rack.items())]
    out: list[DeviceRef] = []
    while queues:
        for q in queues:
            out.append(q.popleft())
        queues = [q for q in queues if q]
    return out


def split_waves(ordered: Sequence[DeviceRef], fractions: Sequence[float]) -> list[list[DeviceRef]]:
    """Cut the ordered fleet at cumulative fractions; every wave gets at least one device."""
    n = len(ordered)
    waves: list[list[DeviceRef]] = []
    start = 0
    for f in fractions:
        end = min(n, max(start + 1, math.ceil(f * n)))
        if start < end:
            waves.append(list(ordered[start:end]))
        start = end
    return waves


LOOKAHEAD = 8
"""Devices looked at past a blocked one in a rack queue (bounds the scan; keeps rack order)."""


class _WaveSim:
    """List scheduling of one wave under caps and windows (event driven, rack-indexed queues)."""

    def __init__(self, spec: RolloutSpec, wave: list[DeviceRef], durations: dict[str, float]) -> None:
        self.spec = spec
        self.durations = durations
        self.admission = Admission(spec.constraints.max_unavailable)
        self.pending: dict[str, deque[DeviceRef]] = {}
        self.racks_of: dict[tuple[str, str], set[str]] = {}
        for dev in wave:
            self.pending.setdefault(dev.rack, deque()).append(dev)
            for key in self.admission.keys(dev):
                self.racks_of.setdefault(key, set()).add(dev.rack)
        self.running: list[tuple[float, int, DeviceRef]] = []
        self.out: list[tuple[DeviceRef, float, float]] = []
        self.seq = 0

    def _admit_rack(self, rack: str, t: float, t_rollout: float) -> None:
        queue = self.pending[rack]
        kept: deque[DeviceRef] = deque()
        while queue and len(kept) <= LOOKAHEAD:
            dev = queue.popleft()
            dur = self.durations[dev.name]
            if self.admission.can_admit(dev) and window_allows(self.spec.constraints.windows, t_rollout, dur):
                self.admission.admit(dev)
                self.seq += 1
                heapq.heappush(self.running, (t + dur, self.seq, dev))
                self.out.append((dev, t, t + dur))
            else:
                kept.append(dev)
                if self.admission.blocking_domain(dev) == "rack":
                    break  # the rest of this rack is blocked by the same rack cap
        kept.extend(queue)
        self.pending[rack] = kept

    def run(self, t0: float, offset: float) -> float:
        """Schedule from ``t0``; ``offset`` maps wave time to rollout time for windows. Returns end."""
        t, dirty = t0, set(self.pending)
        while any(self.pending.values()) or self.running:
            # Racks with the most work left go first, so no rack starves behind a shared cap.
            for rack in sorted(dirty, key=lambda r: (-len(self.pending.get(r, ())), r)):
                if self.pending.get(rack):
                    self._admit_rack(rack, t, t + offset)
            dirty = set()
            if not self.running:
                if not any(self.pending.values()):
                    break
                nxt = next_window_start(self.spec.constraints.windows, t + offset)
                if nxt is None:
                    raise Infeasible("devices remain but no maintenance window is long enough for them")
                t, dirty = nxt - offset, set(self.pending)
                continue
            t, _, dev = heapq.heappop(self.running)
            dirty.add(dev.rack)
            for key in self.admission.release(dev):
                dirty |= self.racks_of[key]
        return max((end for _, _, end in self.out), default=t0)


def _rack_concurrency(spec: RolloutSpec, wave: list[DeviceRef]) -> dict[str, int]:
    caps = spec.constraints.max_unavailable
    per_rack: dict[str, int] = {}
    for dev in wave:
        per_rack[dev.rack] = per_rack.get(dev.rack, 0) + 1
    limit = min((caps[k] for k in caps if k != "rack"), default=10**9)
    return {r: max(1, min(n, caps.get("rack", n), limit)) for r, n in per_rack.items()}


def _rates(spec: RolloutSpec, wave: list[DeviceRef], shared: bool) -> dict[str, float]:
    """Transfer rate per device; ``shared=False`` gives the best case (alone on the rack link)."""
    stream = spec.durations.stream_Bps
    rack_bps = spec.constraints.rack_image_Bps
    if rack_bps is None:
        return {d.name: stream for d in wave}
    conc = _rack_concurrency(spec, wave) if shared else {d.rack: 1 for d in wave}
    return {d.name: min(stream, rack_bps / conc[d.rack]) for d in wave}


def wave_lower_bound(
    spec: RolloutSpec, wave: list[DeviceRef], cycle: set[str], extra: Mapping[str, float]
) -> tuple[float, str]:
    """Lower bound (s) on one wave's span and the constraint that sets it."""
    fast = _rates(spec, wave, shared=False)
    dmin = {
        d.name: device_duration_s(spec, fast[d.name], d.name in cycle) + extra.get(d.name, 0.0) for d in wave
    }
    best = (min(dmin.values()), "device")
    for domain, cap in spec.constraints.max_unavailable.items():
        groups: dict[str, list[float]] = {}
        for dev in wave:
            value = domain_value(dev, domain)
            if value:
                groups.setdefault(value, []).append(dmin[dev.name])
        for value, ds in groups.items():
            # k slots: no sooner than ceil(n/k) rounds of the shortest job, nor the work spread evenly
            bound = max(math.ceil(len(ds) / cap) * min(ds), sum(ds) / cap, max(ds))
            if bound > best[0]:
                best = (bound, f"{domain}={value}")
    rack_bps = spec.constraints.rack_image_Bps
    if rack_bps is not None:
        d = spec.durations
        post = d.install_s + d.boot_s + d.verify_s + d.undrain_s
        racks: dict[str, int] = {}
        for dev in wave:
            racks[dev.rack] = racks.get(dev.rack, 0) + 1
        for rack, n in racks.items():
            bound = d.drain_s + n * spec.target.size_bytes / rack_bps + post
            if bound > best[0]:
                best = (bound, f"bandwidth:{rack}")
    return best


def plan_rollout(
    spec: RolloutSpec,
    devices: Sequence[DeviceRef],
    power_cycle: Iterable[str] = (),
    extra_s: Mapping[str, float] | None = None,
) -> Plan:
    """Plan the rollout of ``spec`` over ``devices``.

    ``power_cycle`` names devices expected to need a host cold power cycle (NIC FW change without
    live reset); ``extra_s`` adds unavailable time to named devices (a known rollback, a slow
    link) — with the failures of a finished rollout it gives the bound in hindsight.

    Raises :class:`SpecError` when there are no devices or names repeat, and
    :class:`Infeasible` when a device cannot fit into any maintenance window.
    """
    if not devices:
        raise SpecError("the fleet has no devices to roll out to", path="devices")
    if len({d.name for d in devices}) != len(devices):
        raise SpecError("device names repeat", path="devices")
    cycle = set(power_cycle)
    extra = dict(extra_s or {})
    waves = split_waves(interleave_by_rack(devices), spec.constraints.waves)
    t, lb_total = 0.0, 0.0
    wave_plans: list[WavePlan] = []
    planned: list[PlannedDevice] = []
    done = 0
    for i, wave in enumerate(waves):
        done += len(wave)
        rates = _rates(spec, wave, shared=True)
        durs = {
            d.name: device_duration_s(spec, rates[d.name], d.name in cycle) + extra.get(d.name, 0.0)
            for d in wave
        }
        sim = _WaveSim(spec, wave, durs)
        end = sim.run(0.0, t)
        lb, binding = wave_lower_bound(spec, wave, cycle, extra)
        for dev, s, e in sim.out:
            planned.append(PlannedDevice(dev.name, dev.rack, i, t + s, t + e))
        wave_plans.append(
            WavePlan(i, done / len(devices), tuple(d.name for d in wave), t, t + end, lb, binding)
        )
        soak = spec.constraints.soak_s if i < len(waves) - 1 else 0.0
        t += end + soak
        lb_total += lb + soak
    lower = open_time_reached(spec.constraints.windows, lb_total)
    return Plan(tuple(wave_plans), tuple(planned), t, min(lower, t))
