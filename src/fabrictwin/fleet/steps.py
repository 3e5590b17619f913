"""One idempotent step per phase: look at the device, maybe act once, return the next state.

Every step is safe to repeat after a crash: reads are reads, drain/undrain/RShim grants are
idempotent on the BMC and scheduler side, and the push checks the BMC first (see ``state``).
Temporary errors keep the phase and retry later (kopf-style ``TemporaryError(delay)``);
permanent ones fail the device, which triggers a rollback or a quarantine.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from fabrictwin.errors import DeviceError
from fabrictwin.fleet.drain import DrainAdapter
from fabrictwin.fleet.redfish import BlueField, PlatformBmc, TemporaryError
from fabrictwin.fleet.state import DeviceState
from fabrictwin.fleet.store import AuditEntry
from fabrictwin.spec.fleet import DeviceRef, ImageSpec, RolloutSpec

MAX_TEMPORARY = 8
"""Temporary errors in a row before a device is failed (about 4 min at the 30 s poll)."""
OS_RUNNING = "OsIsRunning"
"""Arm steady state in DPU mode (reference 1.5 step 5, 7.2)."""
NIC_PARKED = "UEFI"
"""Arm steady state of a BF3 in NIC mode: parked in UEFI, no OS (reference 1.5 step 5, 2.1)."""
BOOTING = frozenset({"Off", "BootRom", "BL2", "BL31", "UEFI", "OsStarting", "FirmwareUpdateInProgress"})
"""Transient ``OemLastState`` values on the way to ``OsIsRunning`` (reference 1.5 step 5)."""


@dataclass
class Ctx:
    """What a step needs about one device."""

    ref: DeviceRef
    bmc: BlueField
    platform: PlatformBmc | None
    drain: DrainAdapter
    spec: RolloutSpec
    now: float
    check_before_push: bool = False
    """Set on resume: the last run may have pushed without storing it."""
    audit: list[AuditEntry] = field(default_factory=list)

    def log(self, action: str, **detail: object) -> None:
        """Append an audit entry for this device."""
        self.audit.append(AuditEntry(self.ref.name, self.now, action, dict(detail)))

    def image(self, s: DeviceState) -> ImageSpec:
        """The image the device is being moved to."""
        if s.image == "previous":
            assert self.spec.previous is not None
            return self.spec.previous
        return self.spec.target


async def step(s: DeviceState, ctx: Ctx) -> DeviceState:
    """Advance one device by one step."""
    try:
        return await STEPS[s.phase](s, ctx)
    except TemporaryError as exc:
        if s.attempts + 1 >= MAX_TEMPORARY:
            return await fail(s, ctx, f"gave up after {s.attempts + 1} temporary errors: {exc}")
        ctx.log("retry", phase=s.phase, error=str(exc))
        return s.later(ctx.now + max(exc.delay_s, ctx.spec.durations.poll_s), attempts=s.attempts + 1)
    except DeviceError as exc:
        return await fail(s, ctx, str(exc))
    except (ValueError, KeyError) as exc:  # malformed JSON or a resource missing a field
        return await fail(s, ctx, f"unexpected answer from the BMC ({type(exc).__name__}: {exc})")


async def _drain(s: DeviceState, ctx: Ctx) -> DeviceState:
    if ctx.ref.node:
        await ctx.drain.drain(ctx.ref.node, f"fabrictwin rollout {ctx.spec.name}")
    ctx.log("drain", node=ctx.ref.node)
    return s.to("draining", ctx.now)  # an idle node drains at once; a busy one is polled


async def _draining(s: DeviceState, ctx: Ctx) -> DeviceState:
    if not ctx.ref.node or await ctx.drain.drained(ctx.ref.node):
        ctx.log("drained")
        return s.to("push", ctx.now)
    return s.later(ctx.now + ctx.spec.durations.poll_s)


async def _adopt(s: DeviceState, ctx: Ctx, image: ImageSpec) -> DeviceState | None:
    """After a crash: the push may have happened. Find its task or its result instead of re-pushing."""
    for task in reversed(await ctx.bmc.tasks()):
        targets = str(task.payload.get("TargetUri", "")) + str(task.payload.get("JsonBody", ""))
        if not task.done and ("DPU_OS" in targets or not targets):
            ctx.log("adopt_task", task=task.uri)
            return s.to("transfer", ctx.now, task_uri=task.uri)
    if await ctx.bmc.version("DPU_OS") == image.version:
        ctx.log("adopt_installed", version=image.version)
        return s.to("install", ctx.now)
    steady = NIC_PARKED if s.nic_mode else OS_RUNNING
    if s.image == "target" and (await ctx.bmc.system()).arm_state != steady:
        # A rollback must not wait on a hung install: only the first push may be in flight.
        ctx.log("adopt_installing")
        return s.to("install", ctx.now)
    return None


async def _push(s: DeviceState, ctx: Ctx) -> DeviceState:
    image = ctx.image(s)
    if ctx.check_before_push:
        adopted = await _adopt(s, ctx, image)
        if adopted is not None:
            return adopted
    elif s.image == "previous" and not s.nic_mode:  # NIC mode reports no version to compare
        system = await ctx.bmc.system()
        d = ctx.spec.durations
        settling = ctx.now - s.since < 2 * d.boot_s
        if system.arm_state in BOOTING and settling:
            return s.later(ctx.now + d.poll_s)  # the Arm restarts after an aborted push; look again
        version = await ctx.bmc.version("DPU_OS") if system.arm_state == OS_RUNNING else ""
        if not version and system.arm_state == OS_RUNNING and settling:
            return s.later(ctx.now + d.poll_s)  # the BMC learns Arm versions ~2 min after boot (1.7)
        if version == image.version:
            ctx.log("unchanged", version=image.version)  # the failed push never replaced the OS
            return s.to("verify", ctx.now)
    events = await ctx.bmc.event_count() if ctx.spec.health.require_no_new_critical_events else -1
    await ctx.bmc.enable_bmc_rshim()
    task = await ctx.bmc.simple_update(image.uri, image.protocol)
    ctx.log("push", image=image.version, task=task.uri)
    d = ctx.spec.durations
    first = ctx.now + max(d.poll_s, image.size_bytes / d.stream_Bps)
    return s.to("transfer", ctx.now, first, task_uri=task.uri, pushes=s.pushes + 1, events_before=events)


async def _transfer(s: DeviceState, ctx: Ctx) -> DeviceState:
    task = await ctx.bmc.task(s.task_uri)
    d = ctx.spec.durations
    if not task.done:
        if ctx.now - s.since > d.transfer_timeout_s:
            return await fail(s, ctx, f"transfer task stalled at {task.percent}% ({task.reason})")
        return s.later(ctx.now + d.poll_s)
    if not task.ok:
        return await fail(s, ctx, f"transfer failed: {task.reason}")
    ctx.log("transferred", task=s.task_uri)
    return s.to("install", ctx.now, ctx.now + max(d.poll_s, d.install_s + d.boot_s))


async def _nic_ok(ctx: Ctx, image: ImageSpec) -> bool:
    return not image.nic_fw_version or await ctx.bmc.version("DPU_NIC") == image.nic_fw_version


async def _install(s: DeviceState, ctx: Ctx) -> DeviceState:
    image, d = ctx.image(s), ctx.spec.durations
    system = await ctx.bmc.system()
    if s.nic_mode:
        # No OS and no versions in NIC mode: done once the installer's time has passed and the
        # Arm is parked in UEFI again (during the install it reports FirmwareUpdateInProgress).
        if system.arm_state == NIC_PARKED and ctx.now - s.since >= d.install_s:
            ctx.log("installed", version=image.version, note="NIC mode: versions are not reported")
            if image.nic_fw_version and ctx.platform is not None:
                # NIC firmware cannot be read back in NIC mode, and a NIC-mode BlueField must not be
                # fw-reset (it may come back in DPU mode, reference 2.2): a cold cycle activates it.
                return s.to("power_cycle", ctx.now)
            return s.to("verify", ctx.now)
    elif system.arm_state == OS_RUNNING and await ctx.bmc.version("DPU_OS") == image.version:
        ctx.log("installed", version=image.version)
        if not await _nic_ok(ctx, image):
            return s.to("power_cycle", ctx.now)
        return s.to("verify", ctx.now)
    if ctx.now - s.since > d.install_timeout_s:
        return await fail(
            s, ctx, f"install did not finish in {d.install_timeout_s:.0f} s (Arm {system.arm_state})"
        )
    return s.later(ctx.now + d.poll_s)


async def _power_cycle(s: DeviceState, ctx: Ctx) -> DeviceState:
    image, d = ctx.image(s), ctx.spec.durations
    if not s.power_cycled:
        if ctx.platform is None:
            return await fail(
                s, ctx, "NIC firmware staged; host power cycle required but no platform BMC known"
            )
        await ctx.platform.power_cycle("PowerCycle")
        ctx.log("power_cycle", reason="NIC firmware staged until a cold cycle")
        return s.later(ctx.now + d.power_cycle_s, power_cycled=True)
    system = await ctx.bmc.system()
    if s.nic_mode:
        if system.arm_state == NIC_PARKED and ctx.now - s.since >= d.power_cycle_s:
            return s.to("verify", ctx.now)
    elif system.arm_state == OS_RUNNING:
        nic = await ctx.bmc.version("DPU_NIC")
        if nic == image.nic_fw_version:
            return s.to("verify", ctx.now)
        if nic:  # back up after the cold cycle and still the old NIC firmware: the update failed
            return await fail(
                s, ctx, f"DPU_NIC {nic!r} after a cold power cycle, expected {image.nic_fw_version!r}"
            )
    if ctx.now - s.since > d.power_cycle_s + d.install_timeout_s / 4:
        return await fail(
            s, ctx, "NIC firmware still not running after a power cycle: ManualPowerCycleRequired"
        )
    return s.later(ctx.now + d.poll_s)


async def _gates(ctx: Ctx, s: DeviceState) -> str:
    """'' when every health gate passes, else the first failed gate.

    In NIC mode only the Arm state can be checked: versions and port monitoring are not
    available there (reference 1.7, 2.4, Table of Common Redfish Commands [S67]).
    """
    gates, image = ctx.spec.health, ctx.image(s)
    if gates.require_no_new_critical_events and s.events_before >= 0:
        critical = await ctx.bmc.new_critical_events(s.events_before)
        if critical:
            return f"new critical event: {critical[-1]}"
    if s.nic_mode:
        state = (await ctx.bmc.system()).arm_state
        return "" if state == NIC_PARKED else f"Arm state {state}, expected {NIC_PARKED} (NIC mode)"
    if gates.require_os_running and (state := (await ctx.bmc.system()).arm_state) != OS_RUNNING:
        return f"Arm state {state}, expected {OS_RUNNING}"
    if gates.require_versions:
        if (v := await ctx.bmc.version("DPU_OS")) != image.version:
            return f"DPU_OS {v!r}, expected {image.version!r}"
        if not await _nic_ok(ctx, image):
            return f"DPU_NIC is not {image.nic_fw_version!r}"
    if gates.require_links_up:
        down = [p.id for p in await ctx.bmc.ports() if p.link_status != "LinkUp"]
        if down:
            return f"links down: {', '.join(down)}"
    return ""


async def _verify(s: DeviceState, ctx: Ctx) -> DeviceState:
    problem = await _gates(ctx, s)
    if not problem:
        ctx.log("verified", image=ctx.image(s).version)
        return s.to("undrain", ctx.now)
    if s.attempts < 1:  # re-query once on disagreement, then escalate (reference 6, verification)
        return s.later(ctx.now + ctx.spec.durations.poll_s, attempts=s.attempts + 1)
    return await fail(s, ctx, f"health gate failed: {problem}")


async def _undrain(s: DeviceState, ctx: Ctx) -> DeviceState:
    if ctx.ref.node:
        await ctx.drain.undrain(ctx.ref.node)
    ctx.log("undrain", node=ctx.ref.node)
    return s.to("done" if s.image == "target" else "rolled_back", ctx.now)


async def fail(s: DeviceState, ctx: Ctx, reason: str) -> DeviceState:
    """A device failed: roll back to the previous BFB once, else quarantine (it stays drained)."""
    ctx.log("fail", phase=s.phase, image=s.image, reason=reason)
    if s.image == "target" and ctx.spec.previous is not None:
        ctx.log("rollback", image=ctx.spec.previous.version)
        # events_before=-1: the failure itself may have logged criticals; the rollback push
        # takes a fresh baseline.
        return s.to(
            "push",
            ctx.now,
            image="previous",
            reason=reason,
            task_uri="",
            power_cycled=False,
            events_before=-1,
        )
    why = reason if s.image == "target" else f"{s.reason}; rollback failed: {reason}"
    ctx.log("quarantine", reason=why)
    return s.to("quarantined", ctx.now, reason=why)


Step = Callable[[DeviceState, Ctx], Awaitable[DeviceState]]
STEPS: dict[str, Step] = {
    "drain": _drain,
    "draining": _draining,
    "push": _push,
    "transfer": _transfer,
    "install": _install,
    "power_cycle": _power_cycle,
    "verify": _verify,
    "undrain": _undrain,
}
