"""Builders that tie the control plane to the real emulator (tests may import both; fleet may not)."""

from __future__ import annotations

from typing import Any

from fabrictwin.emulator.facades import JOB_DRAIN_S
from fabrictwin.emulator.images import CURRENT_BFB, NEXT_BFB
from fabrictwin.spec.faults import Timings
from fabrictwin.spec.fleet import Constraints, DeviceRef, DurationModel, ImageSpec, RolloutSpec


def durations(t: Timings) -> DurationModel:
    """The planner's duration model with the emulator's own timings (docs/models/emulator-timings.md).

    install = decompress + OS write + ATF/UEFI + NIC firmware (no BMC_PASSWORD, so no BMC/CEC step);
    boot = BootRom->UEFI + UEFI->OsStarting + OsStarting->OsIsRunning + the wait until the BMC
    learns Arm versions + one BMC NC-SI poll period. Drain is that of an idle node (0 s): nodes
    with jobs get ``JOB_DRAIN_S`` more through the planner's ``extra_s``.
    """
    return DurationModel(
        drain_s=0.0,
        stream_Bps=t.transfer_rate_Bps,
        install_s=t.bundle_install_s,
        boot_s=t.boot_to_versions_s,
        verify_s=0.0,
        undrain_s=0.0,
    )


def rollout(name: str, image_url: Any, scheduler_url: str, t: Timings, **constraints: Any) -> RolloutSpec:
    """Roll NEXT_BFB over CURRENT_BFB, draining through the emulator's Slurm facade."""
    return RolloutSpec(
        name=name,
        target=ImageSpec(
            version=NEXT_BFB.os,
            uri=image_url(NEXT_BFB.name),
            size_bytes=NEXT_BFB.size_bytes,
            nic_fw_version=NEXT_BFB.nic,
        ),
        previous=ImageSpec(
            version=CURRENT_BFB.os,
            uri=image_url(CURRENT_BFB.name),
            size_bytes=CURRENT_BFB.size_bytes,
            nic_fw_version=CURRENT_BFB.nic,
        ),
        constraints=Constraints(**constraints),
        durations=durations(t),
        scheduler="slurm",
        scheduler_url=scheduler_url,
    )


def refs_from_admin(rows: list[dict[str, Any]]) -> list[DeviceRef]:
    """Device refs from the emulator's ``GET /admin/fleet``."""
    return [
        DeviceRef(
            name=str(r["serial"]).strip(),
            bmc_url=r["bmc_url"].removesuffix("/redfish/v1"),
            platform_url=r["platform_url"].removesuffix("/redfish/v1"),
            rack=str(r["rack"]),
            node=str(r["server"]),
        )
        for r in rows
    ]


def busy_nodes_extra(nodes: list[dict[str, Any]], refs: list[DeviceRef]) -> dict[str, float]:
    """Planner ``extra_s``: nodes running jobs drain ``JOB_DRAIN_S`` later (the scheduler says which)."""
    busy = {n["name"] for n in nodes if "ALLOCATED" in n.get("state", []) or "ALLOC" in n.get("state", [])}
    return {r.name: JOB_DRAIN_S for r in refs if r.node in busy}
