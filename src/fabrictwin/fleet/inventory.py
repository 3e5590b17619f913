"""Discovery and inventory: find the BMCs, read identity, versions, mode and health, report drift.

Discovery takes a list of BMC URLs, a loopback range (``127.0.1.1-127.0.1.254:18000``), or an
aggregator's service root (Redfish ``AggregationService/AggregationSources``, each with a
``HostName``).
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from fabrictwin.errors import DeviceError, SpecError
from fabrictwin.fleet.redfish import BlueField, BmcSession, Facade, Http
from fabrictwin.spec.fleet import DesiredState, DeviceRef

VERSION_ITEMS = ("DPU_OS", "DPU_NIC", "BMC_Firmware", "DPU_ATF", "DPU_UEFI")
"""FirmwareInventory ids read per device (reference 1.7)."""
MAX_RANGE = 65536
"""Largest loopback range discovery will scan."""


@dataclass(frozen=True)
class DeviceInventory:
    """What one BMC reports."""

    name: str
    bmc_url: str
    reachable: bool
    error: str = ""
    serial: str = ""
    generation: str = ""
    mode: str = ""
    arm_state: str = ""
    power: str = ""
    health: str = ""
    versions: dict[str, str] = field(default_factory=dict)
    links_down: tuple[str, ...] = ()

    def to_record(self) -> dict[str, Any]:
        """JSON-able record for the store."""
        return asdict(self)


def expand_range(spec: str) -> list[str]:
    """``127.0.1.1-127.0.1.20:18000`` -> base URLs. Raises :class:`SpecError` on a bad range."""
    addrs, _, port = spec.rpartition(":")
    first, _, last = addrs.partition("-")
    try:
        lo = ipaddress.IPv4Address(first)
        hi = ipaddress.IPv4Address(last or first)
        port_n = int(port)
    except ValueError as exc:
        raise SpecError(f"bad address range {spec!r}: {exc}; expected A.B.C.D-A.B.C.E:PORT") from exc
    if not lo.is_loopback or not hi.is_loopback:
        raise SpecError(f"range {spec!r} is not on loopback; give explicit BMC URLs for real fleets")
    count = int(hi) - int(lo) + 1
    if count < 1 or count > MAX_RANGE:
        raise SpecError(f"range {spec!r} holds {count} addresses; allowed 1..{MAX_RANGE}")
    return [f"http://{ipaddress.IPv4Address(int(lo) + i)}:{port_n}" for i in range(count)]


async def from_aggregator(http: Http, root_url: str) -> list[str]:
    """BMC base URLs listed by an aggregator's ``AggregationService/AggregationSources``."""
    base = root_url.rstrip("/").removesuffix("/redfish/v1")
    api = Facade(http, base, "aggregator")
    coll = await api.get("/redfish/v1/AggregationService/AggregationSources")
    urls = []
    for member in coll.get("Members", []):
        source = await api.get(member["@odata.id"])
        host = str(source.get("HostName", "")).rstrip("/").removesuffix("/redfish/v1")
        if host:
            urls.append(host if "://" in host else f"http://{host}")
    return urls


async def read_device(bmc: BlueField, url: str) -> DeviceInventory:
    """Inventory of one BMC; an unreachable or refusing BMC gives ``reachable=False`` and the cause."""
    try:
        system = await bmc.system()
        versions = {item: await _version(bmc, item) for item in VERSION_ITEMS}
        mode = await bmc.mode()
        generation = await bmc.generation()
        down = tuple(p.id for p in await bmc.ports() if p.link_status != "LinkUp")
    except DeviceError as exc:
        return DeviceInventory(bmc.device, url, False, error=str(exc))
    return DeviceInventory(
        bmc.device,
        url,
        True,
        serial=system.serial.strip(),
        generation=generation,
        mode=mode,
        arm_state=system.arm_state,
        power=system.power_state,
        health=system.health,
        versions=versions,
        links_down=down,
    )


async def _version(bmc: BlueField, item: str) -> str:
    try:
        return await bmc.version(item)
    except DeviceError:
        return ""  # not every BMC has every item (BF2 has no ERoT, old BMCs lack some)


async def inventory(
    http: Http, devices: Sequence[DeviceRef], username: str, password: str
) -> list[DeviceInventory]:
    """Read every device concurrently (bounded by ``http``'s pool)."""
    bmcs = [BlueField(BmcSession(http, d.bmc_url, d.name, username, password)) for d in devices]
    return list(
        await asyncio.gather(*(read_device(b, d.bmc_url) for b, d in zip(bmcs, devices, strict=True)))
    )


def refs_from_urls(urls: Sequence[str], records: Sequence[DeviceInventory] = ()) -> list[DeviceRef]:
    """Device refs named by serial when known (else by address), generation from the inventory."""
    by_url = {r.bmc_url: r for r in records}
    refs = []
    for url in urls:
        rec = by_url.get(url)
        name = rec.serial if rec and rec.serial else url.split("//")[-1]
        gen = rec.generation if rec and rec.generation in ("BF2", "BF3") else "BF3"
        refs.append(DeviceRef(name=name, bmc_url=url, generation=gen))  # type: ignore[arg-type]
    return refs


def drift(records: Sequence[DeviceInventory], desired: DesiredState) -> dict[str, list[str]]:
    """Device -> list of differences from the desired state (empty devices omitted).

    NIC-mode DPUs report empty ``DPU_OS``/``DPU_NIC`` (reference 1.7); those are "unknown", not drift.
    """
    out: dict[str, list[str]] = {}
    for r in records:
        diffs: list[str] = []
        if not r.reachable:
            diffs.append(f"unreachable: {r.error}")
        else:
            checks = (
                ("DPU_OS", desired.os_version),
                ("DPU_NIC", desired.nic_fw_version),
                ("BMC_Firmware", desired.bmc_version),
            )
            for item, want in checks:
                have = r.versions.get(item, "")
                if want and have and have != want:
                    diffs.append(f"{item} {have} != {want}")
                elif want and not have and r.mode != "NicMode":
                    diffs.append(f"{item} unknown (BMC reports no version)")
            if desired.mode and r.mode and r.mode != desired.mode:
                diffs.append(f"mode {r.mode} != {desired.mode}")
        if diffs:
            out[r.name] = diffs
    return out
