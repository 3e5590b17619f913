"""Fleet-wide mode changes (DPU / NIC / zero-trust), honouring the cold power cycle, then verified.

A mode set through the BMC is *staged*: it applies only on the next cold host power cycle; a
warm reboot or an Arm reset does not apply it, and some vendor BMCs answer 200 to ``PowerCycle``
but only warm-reset (reference 1.8, 2.3, NICo [S39][S40]). So per batch of hosts: drain, stage,
cold-cycle, wait, read back; where the mode did not flip, try ``ACPowercycle`` once, then report
``ManualPowerCycleRequired`` instead of cycling forever.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from fabrictwin.errors import DeviceError, SpecError
from fabrictwin.fleet.clock import Clock
from fabrictwin.fleet.drain import DrainAdapter, NoDrain
from fabrictwin.fleet.redfish import BlueField, BmcSession, Http, PlatformBmc
from fabrictwin.spec.fleet import DeviceRef

MODES = ("DpuMode", "NicMode", "ZeroTrust")
STEADY = {"DpuMode": "OsIsRunning", "ZeroTrust": "OsIsRunning", "NicMode": "UEFI"}
"""Arm state once booted per mode: BF3 NIC mode parks the Arm in UEFI (reference 1.5, 2.4)."""


@dataclass(frozen=True)
class ModeResult:
    """Outcome for one device."""

    device: str
    before: str
    after: str
    status: str
    """already, changed, failed, ManualPowerCycleRequired."""
    power_cycles: int = 0
    reason: str = ""


@dataclass
class _Dev:
    ref: DeviceRef
    bmc: BlueField
    platform: PlatformBmc | None
    before: str = ""
    cycles: int = 0


async def _read(d: _Dev, mode: str) -> str:
    if mode == "ZeroTrust":
        rshim = await d.bmc.host_rshim()
        return "ZeroTrust" if rshim == "Disabled" else (await d.bmc.mode() or "DpuMode")
    return await d.bmc.mode()


async def _stage(d: _Dev, mode: str) -> None:
    if mode == "ZeroTrust":
        if await d.bmc.mode() == "NicMode":
            await d.bmc.set_mode("DpuMode", d.ref.generation)  # zero-trust needs the Arm in charge
        await d.bmc.set_host_rshim(False)
    else:
        await d.bmc.set_mode(mode, d.ref.generation)


async def _cycle(d: _Dev, reset_type: str) -> None:
    if d.platform is None:
        raise DeviceError("a cold power cycle is needed but no platform BMC is known", device=d.ref.name)
    await d.platform.power_cycle(reset_type)
    d.cycles += 1


async def _wait_booted(devs: list[_Dev], mode: str, clock: Clock, settle_s: float, poll_s: float) -> None:
    """Sleep ``settle_s``, then poll until every Arm is in its steady state or ``4 * settle_s`` pass."""
    # 4 x settle (12 min at the default): assumption, room for the two Arm reboots a mode change
    # takes after the cycle (reference bluefield-operations.md 1.8, [S41]) on a slow-booting host.
    deadline = clock.now() + 4 * settle_s
    await clock.sleep_until(clock.now() + settle_s)
    while clock.now() < deadline:
        states = await asyncio.gather(*(d.bmc.system() for d in devs), return_exceptions=True)
        if all(not isinstance(s, BaseException) and s.arm_state == STEADY[mode] for s in states):
            return
        await clock.sleep_until(clock.now() + poll_s)


async def _batch(
    devs: list[_Dev], mode: str, clock: Clock, drain: DrainAdapter, settle_s: float, poll_s: float
) -> list[ModeResult]:
    results: dict[str, ModeResult] = {}
    todo: list[_Dev] = []
    for d in devs:
        d.before = await _read(d, mode)
        if d.before == mode:
            results[d.ref.name] = ModeResult(d.ref.name, d.before, d.before, "already")
        else:
            todo.append(d)
    for d in todo:
        if d.ref.node:
            await drain.drain(d.ref.node, f"fabrictwin mode set {mode}")
        await _stage(d, mode)
    for reset in ("PowerCycle", "ACPowercycle"):  # ACPowercycle: vendors whose PowerCycle is warm
        if not todo:
            break
        await asyncio.gather(*(_cycle(d, reset) for d in todo))
        await _wait_booted(todo, mode, clock, settle_s, poll_s)
        after = await asyncio.gather(*(_read(d, mode) for d in todo))
        still = []
        for d, now_mode in zip(todo, after, strict=True):
            if now_mode == mode:
                results[d.ref.name] = ModeResult(d.ref.name, d.before, now_mode, "changed", d.cycles)
                if d.ref.node:
                    await drain.undrain(d.ref.node)
            else:
                still.append(d)
        todo = still
    for d in todo:
        now_mode = await _read(d, mode)
        results[d.ref.name] = ModeResult(
            d.ref.name,
            d.before,
            now_mode,
            "ManualPowerCycleRequired",
            d.cycles,
            f"mode still {now_mode} after PowerCycle and ACPowercycle",
        )
    return [results[d.ref.name] for d in devs]


async def set_mode(
    http: Http,
    devices: Sequence[DeviceRef],
    mode: str,
    username: str,
    password: str,
    clock: Clock,
    *,
    batch: int = 32,
    drain: DrainAdapter | None = None,
    settle_s: float = 180.0,
    poll_s: float = 30.0,
) -> list[ModeResult]:
    """Change every device to ``mode`` in batches of ``batch`` hosts; one result per device.

    Defaults: ``settle_s`` 180 s, the 3-minute wait tools allow a power state or BMC to come back;
    ``poll_s`` 30 s, the period of NVIDIA's OobUpdate.py and of the BMC's NC-SI Arm-state poll
    (reference bluefield-operations.md 1.5 step 5 and "Timings observed in tooling" [S8][S29]);
    ``batch`` 32 hosts at a time is an operator choice (assumption), not a device limit.

    Raises :class:`SpecError` for an unknown mode. Device errors become ``failed`` results.
    """
    if mode not in MODES:
        raise SpecError(f"unknown mode {mode!r}; known: {', '.join(MODES)}")
    devs = [
        _Dev(
            d,
            BlueField(BmcSession(http, d.bmc_url, d.name, username, password)),
            PlatformBmc(BmcSession(http, d.platform_url, f"{d.name}/platform", username, password))
            if d.platform_url
            else None,
        )
        for d in devices
    ]
    out: list[ModeResult] = []
    for i in range(0, len(devs), batch):
        chunk = devs[i : i + batch]
        try:
            out.extend(await _batch(chunk, mode, clock, drain or NoDrain(), settle_s, poll_s))
        except DeviceError as exc:
            out.extend(ModeResult(d.ref.name, d.before, "", "failed", d.cycles, str(exc)) for d in chunk)
    return out
