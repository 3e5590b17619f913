"""Collect a host's views from the emulator over HTTP (through :mod:`fabrictwin.fleet.redfish`).

Host command views come from the emulator's admin API (``/admin/devices/{id}/host/{cmd}``,
docs/emulator.md); the BMC's view of the same DPU (mode, Arm boot progress, straps) comes from
its Redfish service. A view that answers an error is recorded as missing with the reason, so
the doctor still works on what it got.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fabrictwin.errors import DeviceError
from fabrictwin.fleet.doctor.views import Views
from fabrictwin.fleet.redfish import BmcSession, HostViews, Http

EMULATOR_VIEWS: tuple[str, ...] = (
    "mlxconfig-q",
    "mst-status-v",
    "lspci",
    "lspci-k",
    "ip-br-link",
    "devlink-eswitch-show",
    "flint-q",
    "dmesg",
    "rshim-misc",
    "bmc-rshim-misc",
    "systemctl-status-rshim",
    "ofed-info-s",
)
"""Host command views the emulator renders that the doctor reads (docs/emulator.md)."""
REDFISH_VIEWS: dict[str, str] = {
    "redfish-system": "/redfish/v1/Systems/Bluefield",
    "redfish-oem-nvidia": "/redfish/v1/Systems/Bluefield/Oem/Nvidia",
    "redfish-straps": "/redfish/v1/Systems/Bluefield/Oem/Nvidia/Connectx/StrapOptions",
    "redfish-bios": "/redfish/v1/Systems/Bluefield/Bios",
    "redfish-inventory-ofed": "/redfish/v1/UpdateService/FirmwareInventory/DPU_OFED",
}
"""BMC resources (reference 7.3) saved as indented JSON, so evidence can quote one line."""


def from_emulator(
    root_url: str,
    device: int | str = 0,
    *,
    username: str = "root",
    password: str = "0penBmc",
    transport: Any = None,
) -> Views:
    """Views of one emulated DPU's host and BMC.

    ``transport`` is an ``httpx`` transport for in-process tests (only ``fleet.redfish`` imports
    httpx, so it is passed through untyped here).

    Raises:
        DeviceError: the emulator's fleet listing cannot be read or does not know ``device``.
    """
    return asyncio.run(_collect(root_url, device, (username, password), transport))


def fleet_from_emulator(
    root_url: str,
    *,
    username: str = "root",
    password: str = "0penBmc",
    concurrency: int = 64,
    transport: Any = None,
) -> list[Views]:
    """Views of every DPU the emulator serves, collected concurrently (``concurrency`` requests).

    Raises:
        DeviceError: the emulator's fleet listing cannot be read.
    """
    return asyncio.run(_collect_fleet(root_url, (username, password), concurrency, transport))


async def _collect(root_url: str, device: int | str, creds: tuple[str, str], transport: Any) -> Views:
    async with Http(concurrency=8, transport=transport) as http:
        host = HostViews(http, root_url)
        fleet = await host.fleet()
        entry = next((d for d in fleet if str(device) in (str(d.get("index")), d.get("serial"))), None)
        if entry is None:
            raise DeviceError(f"the emulator has no device {device!r}", uri=root_url)
        return await _one(http, host, entry, creds, root_url)


async def _collect_fleet(
    root_url: str, creds: tuple[str, str], concurrency: int, transport: Any
) -> list[Views]:
    async with Http(concurrency=concurrency, transport=transport) as http:
        host = HostViews(http, root_url)
        fleet = await host.fleet()
        return list(await asyncio.gather(*(_one(http, host, e, creds, root_url) for e in fleet)))


async def _one(
    http: Http, host: HostViews, entry: dict[str, Any], creds: tuple[str, str], root: str
) -> Views:
    """Every view of one device; a view that answers an error is recorded as missing."""
    label = str(entry.get("serial") or entry["index"])
    session = BmcSession(http, entry["bmc_url"], label, *creds)

    async def host_view(name: str) -> str:
        return await host.view(entry["index"], name)

    async def redfish_view(path: str) -> str:
        return json.dumps(await session.get(path), indent=2) + "\n"

    jobs = {name: host_view(name) for name in EMULATOR_VIEWS}
    jobs.update({name: redfish_view(path) for name, path in REDFISH_VIEWS.items()})
    answers = await asyncio.gather(*jobs.values(), return_exceptions=True)
    texts: dict[str, str] = {}
    missing: dict[str, str] = {}
    for name, answer in zip(jobs, answers, strict=True):
        if isinstance(answer, DeviceError):
            missing[name] = str(answer)
        elif isinstance(answer, BaseException):
            raise answer
        else:
            texts[name] = answer
    return Views(f"emulator:{root} device {entry['index']} ({label})", texts, missing)
