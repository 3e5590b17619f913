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
    return asyncio.run(_collect(root_url, device, username, password, transport))


async def _collect(root_url: str, device: int | str, username: str, password: str, transport: Any) -> Views:
    async with Http(concurrency=8, transport=transport) as http:
        host = HostViews(http, root_url)
        fleet = await host.fleet()
        entry = next((d for d in fleet if str(device) in (str(d.get("index")), d.get("serial"))), None)
        if entry is None:
            raise DeviceError(f"the emulator has no device {device!r}", uri=root_url)
        texts: dict[str, str] = {}
        missing: dict[str, str] = {}
        for name in EMULATOR_VIEWS:
            try:
                texts[name] = await host.view(entry["index"], name)
            except DeviceError as exc:
                missing[name] = str(exc)
        session = BmcSession(http, entry["bmc_url"], str(entry.get("serial", device)), username, password)
        for name, path in REDFISH_VIEWS.items():
            try:
                texts[name] = json.dumps(await session.get(path), indent=2) + "\n"
            except DeviceError as exc:
                missing[name] = str(exc)
    return Views(f"emulator:{root_url} device {device}", texts, missing)
