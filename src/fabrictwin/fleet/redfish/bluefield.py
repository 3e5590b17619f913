"""The BlueField OEM layer: the BMC resources and actions of reference section 1.5, 2.3 and 7.3."""

from __future__ import annotations

import re
from typing import Any

from fabrictwin.fleet.redfish.client import BmcSession
from fabrictwin.fleet.redfish.errors import PermanentError
from fabrictwin.fleet.redfish.resources import Port, SoftwareItem, System, Task, status_health

SYSTEM = "/redfish/v1/Systems/Bluefield"
OEM = f"{SYSTEM}/Oem/Nvidia"
MANAGER = "/redfish/v1/Managers/Bluefield_BMC"
INVENTORY = "/redfish/v1/UpdateService/FirmwareInventory"
SIMPLE_UPDATE = "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate"
TASKS = "/redfish/v1/TaskService/Tasks"
EVENTS = f"{SYSTEM}/LogServices/EventLog/Entries"
NEW_EVENTS_READ = 20
"""Newest event-log entries read when looking for new criticals (an SEL flood must not stall us)."""
CARD = "/redfish/v1/Chassis/Card1"
PORTS = "/redfish/v1/Chassis/Card1/NetworkAdapters/NvidiaNetworkAdapter/Ports"
PLATFORM_SYSTEM = "/redfish/v1/Systems/System_0"


class BlueField:
    """One BlueField BMC."""

    def __init__(self, session: BmcSession) -> None:
        self.s = session

    @property
    def device(self) -> str:
        return self.s.device

    async def system(self) -> System:
        """The Arm's system resource (power, ``BootProgress``, serial, health)."""
        body = await self.s.get(SYSTEM)
        return System.model_validate({**body, "health": status_health(body)})

    async def version(self, item: str) -> str:
        """Version of one FirmwareInventory member (``DPU_OS``, ``DPU_NIC``, ``BMC_Firmware``...).

        Empty while the BMC has not learned it from the Arm, and in NIC mode (reference 1.7).
        """
        return SoftwareItem.model_validate(await self.s.get(f"{INVENTORY}/{item}")).version

    async def inventory(self) -> dict[str, str]:
        """Every FirmwareInventory member -> version."""
        coll = await self.s.get(INVENTORY)
        out: dict[str, str] = {}
        for member in coll.get("Members", []):
            item = SoftwareItem.model_validate(await self.s.get(member["@odata.id"]))
            out[item.id] = item.version
        return out

    async def generation(self) -> str:
        """``BF2`` / ``BF3`` from ``Chassis/Card1`` ``Model`` ("Bluefield 3 SmartNIC Main Card", 7.3)."""
        card = await self.s.get(CARD)
        text = f"{card.get('Model', '')} {card.get('PartNumber', '')}"
        match = re.search(r"blue ?field[ -]?(\d)", text, re.IGNORECASE)
        return f"BF{match.group(1)}" if match else ""

    async def mode(self) -> str:
        """``DpuMode`` / ``NicMode`` from ``Systems/Bluefield/Oem/Nvidia`` ('' on old BMCs)."""
        return str((await self.s.get(OEM)).get("Mode", ""))

    async def set_mode(self, mode: str, generation: str) -> None:
        """Stage a mode change; it applies on the next cold host power cycle (reference 1.8, 2.3).

        BF3: ``Mode.Set``; BF2: ``PATCH Bios/Settings`` ``NicMode`` attribute.
        """
        if generation == "BF2":
            value = "NicMode" if mode == "NicMode" else "DpuMode"
            await self.s.patch(f"{SYSTEM}/Bios/Settings", {"Attributes": {"NicMode": value}})
        else:
            await self.s.post(f"{OEM}/Actions/Mode.Set", {"Mode": mode})

    async def set_host_rshim(self, enabled: bool) -> None:
        """Zero-trust toggle of the host RShim (applies after a power cycle, reference 2.5)."""
        await self.s.post(f"{OEM}/Actions/HostRshim.Set", {"HostRshim": "Enabled" if enabled else "Disabled"})

    async def host_rshim(self) -> str:
        """``HostRshim`` of the OEM resource (``Enabled``/``Disabled``)."""
        return str((await self.s.get(OEM)).get("HostRshim", ""))

    async def enable_bmc_rshim(self) -> None:
        """Give RShim to the BMC (reference 1.5 step 2); needed before a BFB push."""
        body = {"Oem": {"Nvidia": {"BmcRShim": {"BmcRShimEnabled": True}}}}
        await self.s.patch(MANAGER, body)

    async def manager(self) -> dict[str, Any]:
        """The BMC's Manager resource (``FirmwareVersion``, ``Status``)."""
        return await self.s.get(MANAGER)

    async def simple_update(self, image_uri: str, protocol: str) -> Task:
        """Start a BFB push to ``DPU_OS`` (reference 1.5 step 4); returns the task.

        Raises :class:`TemporaryError` when the BMC is busy ("An update is in progress").
        """
        body = {
            "TransferProtocol": protocol,
            "ImageURI": image_uri,
            "Targets": [f"{INVENTORY}/DPU_OS"],
        }
        resp = await self.s.post(SIMPLE_UPDATE, body)
        data: dict[str, Any] = resp.json() if resp.content else {}
        uri = data.get("@odata.id") or resp.headers.get("Location", "")
        if not uri:
            raise PermanentError("SimpleUpdate returned no task", device=self.device, uri=SIMPLE_UPDATE)
        if "Id" not in data:
            data = await self.s.get(uri)
        return Task.model_validate({**data, "@odata.id": uri})

    async def task(self, uri: str) -> Task:
        """One task by URI."""
        return Task.model_validate(await self.s.get(uri))

    async def tasks(self) -> list[Task]:
        """Every task the BMC still holds (used to adopt a push after a controller crash)."""
        coll = await self.s.get(TASKS)
        return [await self.task(m["@odata.id"]) for m in coll.get("Members", [])]

    async def event_count(self) -> int:
        """Entries in the Arm system's event log (SEL)."""
        return len((await self.s.get(EVENTS)).get("Members", []))

    async def new_critical_events(self, since_count: int) -> list[str]:
        """Messages of Critical entries added after the first ``since_count`` (newest 20 read)."""
        members = (await self.s.get(EVENTS)).get("Members", [])[since_count:][-NEW_EVENTS_READ:]
        out = []
        for m in members:
            entry = await self.s.get(m["@odata.id"])
            if entry.get("Severity") == "Critical":
                out.append(str(entry.get("Message", "")))
        return out

    async def ports(self) -> list[Port]:
        """High-speed ports with their link status."""
        coll = await self.s.get(PORTS)
        return [Port.model_validate(await self.s.get(m["@odata.id"])) for m in coll.get("Members", [])]


class PlatformBmc:
    """The host server's own BMC: host power (cold cycle applies NIC FW and mode, reference 1.8)."""

    def __init__(self, session: BmcSession) -> None:
        self.s = session

    async def power_cycle(self, reset_type: str = "PowerCycle") -> None:
        """Cold-cycle the host (``PowerCycle``; some vendors need ``ACPowercycle``, reference 1.8)."""
        await self.s.post(f"{PLATFORM_SYSTEM}/Actions/ComputerSystem.Reset", {"ResetType": reset_type})

    async def power_state(self) -> str:
        """``PowerState`` of the host."""
        return str((await self.s.get(PLATFORM_SYSTEM)).get("PowerState", ""))
