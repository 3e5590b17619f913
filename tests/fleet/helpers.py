"""Shared builders for fleet tests."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from fabrictwin.fleet.store import AuditEntry
from fabrictwin.spec.fleet import Constraints, DeviceRef, DurationModel, ImageSpec, RolloutSpec

from .fakebmc import NEW, NIC_NEW, NIC_OLD, OLD, FakeFleet


def refs_for(fleet: FakeFleet) -> list[DeviceRef]:
    return [
        DeviceRef(
            name=f"dpu{d.index:04d}",
            bmc_url=f"http://bmc-{d.index}.test",
            platform_url=f"http://host-{d.index}.test",
            rack=d.rack,
            node=f"node{d.index:04d}",
        )
        for d in fleet.devices
    ]


def rollout_spec(name: str = "r1", *, previous: bool = True, **constraints: Any) -> RolloutSpec:
    return RolloutSpec(
        name=name,
        target=ImageSpec(version=NEW, uri="http://images.test/new.bfb", nic_fw_version=NIC_NEW),
        previous=ImageSpec(version=OLD, uri="http://images.test/old.bfb", nic_fw_version=NIC_OLD)
        if previous
        else None,
        constraints=Constraints(**constraints),
        # Matches the fake: no scheduler (drain 0 s), 1.3 GB at 5 MB/s = 260 s transfer,
        # 1040 s install + boot, verify and undrain are single requests (0 s).
        durations=DurationModel(drain_s=0.0, install_s=915.0, boot_s=125.0, verify_s=0.0, undrain_s=0.0),
    )


def max_concurrent_unavailable(entries: list[AuditEntry], key: dict[str, str]) -> dict[str, int]:
    """Peak number of devices between 'admit' and 'undrain' per domain value, from the audit log.

    A device that never gets its 'undrain' (quarantined) stays unavailable to the end.
    """
    events: list[tuple[float, int, str]] = []
    for e in entries:
        if e.action == "admit":
            events.append((e.t_s, 1, e.device))
        elif e.action == "undrain":
            events.append((e.t_s, -1, e.device))
    events.sort(key=lambda ev: (ev[0], ev[1]))  # releases at time t before admissions at t
    current: dict[str, int] = defaultdict(int)
    peak: dict[str, int] = defaultdict(int)
    for _, delta, dev in events:
        current[key[dev]] += delta
        peak[key[dev]] = max(peak[key[dev]], current[key[dev]])
    return dict(peak)
