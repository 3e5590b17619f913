"""A small in-process fake of BlueField BMCs (reference section 7.3 paths) behind httpx.MockTransport.

Unit tests of the client, preflight and executor use it: deterministic virtual time, faults by
flag, and a count of SimpleUpdate POSTs each device accepted. The real emulator
(``fabrictwin.emulator``) is exercised over loopback HTTP in ``test_emulator_integration.py``.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any

import httpx

OLD = "bf-bundle-2.9.1-40_24.11_ubuntu-22.04_prod"
NEW = "bf-bundle-2.9.2-31_25.02_ubuntu-22.04_prod"
NIC_OLD, NIC_NEW = "32.43.1014", "32.43.2566"
IMAGES = {
    "http://images.test/old.bfb": {"os": OLD, "generation": "BF3", "nic": NIC_OLD},
    "http://images.test/new.bfb": {"os": NEW, "generation": "BF3", "nic": NIC_NEW},
    "http://images.test/bf2.bfb": {"os": NEW, "generation": "BF2", "nic": "24.43.2566"},
}


@dataclass
class FakeDpu:
    """One DPU and its BMC, evaluated lazily against the fleet clock."""

    index: int
    rack: str
    os: str = OLD
    nic_running: str = NIC_OLD
    nic_staged: str = NIC_OLD
    arm_busy_until: float = -1.0
    task: dict[str, Any] | None = None
    pushes: int = 0
    pushed_images: list[str] = field(default_factory=list)
    fail_install: bool = False
    """The install hangs: the Arm never reaches OsIsRunning with the new OS."""
    nic_needs_cycle: bool = False
    """NIC FW reset unsupported: new NIC FW runs only after a host power cycle."""
    fail_task: bool = False
    """The installer rejects the image (INTEGRITY_FAIL): the task ends in Exception (reference 1.9)."""
    fail_nic: bool = False
    """Partial install: the OS installs but the NIC firmware update fails (reference 1.9)."""
    link_down: bool = False
    power_cycles: int = 0
    mode: str = "DpuMode"
    mode_next: str = "DpuMode"
    host_rshim: str = "Enabled"
    host_rshim_next: str = "Enabled"
    events: list[dict[str, str]] = field(default_factory=list)
    panic_after_install: bool = False
    """The new OS logs a Critical event (kernel panic) when it comes up."""
    powercycle_is_warm: bool = False
    """Vendor quirk: PowerCycle answers 200 but only warm-resets (reference 1.8)."""
    pending_os: str = ""
    hung: bool = False


class FakeFleet:
    """N fake DPUs; ``transport`` routes ``http://bmc-<i>.test`` and ``http://host-<i>.test``."""

    def __init__(
        self,
        n: int,
        racks: int = 4,
        *,
        transfer_s: float = 260.0,
        install_s: float = 1040.0,
        cycle_s: float = 240.0,
        password: str = "0penBmc",
    ) -> None:
        self.now = 0.0
        self.devices = [FakeDpu(i, f"r{i % racks:02d}") for i in range(n)]
        self.transfer_s, self.install_s, self.cycle_s = transfer_s, install_s, cycle_s
        self.password = password
        self.requests = 0
        self.unreachable: set[int] = set()
        self.transport = httpx.MockTransport(self.handle)

    def advance(self, seconds: float) -> None:
        self.now += seconds

    # lazy device evolution -------------------------------------------------------------------

    def refresh(self, d: FakeDpu) -> None:
        t = d.task
        if t and t["TaskState"] == "Running" and self.now >= t["end"]:
            image = IMAGES.get(t["uri"])
            if image is None or image["generation"] != "BF3" or (d.fail_task and image["os"] == NEW):
                t.update(
                    TaskState="Exception",
                    TaskStatus="Critical",
                    PercentComplete=100,
                    Messages=[{"MessageId": "Update.1.0.ApplyFailed", "Message": "Invalid FW Package"}],
                )
            else:
                t.update(TaskState="Completed", TaskStatus="OK", PercentComplete=100)
                d.arm_busy_until = self.now + self.install_s
                d.pending_os = image["os"]
                d.nic_staged = d.nic_running if d.fail_nic and image["os"] == NEW else image["nic"]
                d.hung = d.fail_install and image["os"] == NEW
        if d.pending_os and self.now >= d.arm_busy_until and not d.hung:
            d.os, d.pending_os = d.pending_os, ""
            if d.panic_after_install and d.os == NEW:
                d.events.append({"Severity": "Critical", "Message": "BlueField Arm kernel panic"})
            if not d.nic_needs_cycle:
                d.nic_running = d.nic_staged

    def arm_state(self, d: FakeDpu) -> str:
        if d.hung or self.now < d.arm_busy_until:
            return "OsStarting" if d.hung else "BootRom"
        return "UEFI" if d.mode == "NicMode" else "OsIsRunning"

    # HTTP ---------------------------------------------------------------------------------------

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        host = request.url.host
        kind, _, idx = host.split(".")[0].partition("-")
        if not idx.isdigit() or int(idx) >= len(self.devices) or int(idx) in self.unreachable:
            raise httpx.ConnectError("connection refused", request=request)
        d = self.devices[int(idx)]
        self.refresh(d)
        if not self._authorized(request):
            return _err(401, "Base.1.18.1.ResourceAtUriUnauthorized", "Invalid username or password")
        body = json.loads(request.content) if request.content else {}
        path = request.url.path
        if kind == "host":
            return self._platform(d, request.method, path, body)
        return self._bmc(d, request.method, path, body)

    def _authorized(self, request: httpx.Request) -> bool:
        if request.url.path.endswith("/SessionService/Sessions") and request.method == "POST":
            return bool(json.loads(request.content).get("Password") == self.password)
        if request.headers.get("X-Auth-Token") == "tok":
            return True
        basic = request.headers.get("Authorization", "").removeprefix("Basic ")
        return bool(basic) and base64.b64decode(basic).decode() == f"root:{self.password}"

    def _platform(self, d: FakeDpu, method: str, path: str, body: dict[str, Any]) -> httpx.Response:
        if path.endswith("/SessionService/Sessions"):
            return httpx.Response(201, json={}, headers={"X-Auth-Token": "tok"})
        if path.endswith("ComputerSystem.Reset") and body.get("ResetType") in ("PowerCycle", "ACPowercycle"):
            d.power_cycles += 1
            d.arm_busy_until = self.now + self.cycle_s
            if body["ResetType"] == "ACPowercycle" or not d.powercycle_is_warm:
                d.nic_running = d.nic_staged
                d.mode, d.host_rshim = d.mode_next, d.host_rshim_next
            return httpx.Response(200, json={})
        return httpx.Response(200, json={"PowerState": "On"})

    def _bmc(self, d: FakeDpu, method: str, path: str, body: dict[str, Any]) -> httpx.Response:
        v1 = "/redfish/v1"
        inv = f"{v1}/UpdateService/FirmwareInventory/"
        if path == f"{v1}/SessionService/Sessions":
            return httpx.Response(201, json={}, headers={"X-Auth-Token": "tok"})
        if path == f"{v1}/Systems/Bluefield":
            return httpx.Response(
                200,
                json={
                    "PowerState": "On",
                    "SerialNumber": f"MT{d.index:06d}",
                    "BootProgress": {"OemLastState": self.arm_state(d)},
                },
            )
        if path == f"{v1}/Systems/Bluefield/Oem/Nvidia":
            return httpx.Response(200, json={"Mode": d.mode, "HostRshim": d.host_rshim})
        if path.endswith("/Actions/Mode.Set"):
            d.mode_next = body["Mode"]
            return httpx.Response(200, json={})
        if path.endswith("/Actions/HostRshim.Set"):
            d.host_rshim_next = body["HostRshim"]
            return httpx.Response(200, json={})
        if path == f"{v1}/Chassis/Card1":
            return httpx.Response(200, json={"Model": "Bluefield 3 SmartNIC Main Card"})
        if path.startswith(inv):
            running = self.arm_state(d) == "OsIsRunning"
            versions = {
                "DPU_OS": d.os if running else "",
                "DPU_NIC": d.nic_running if running else "",
                "BMC_Firmware": "BF-24.10-24",
            }
            item = path.removeprefix(inv)
            return httpx.Response(200, json={"Id": item, "Version": versions.get(item, "")})
        if path == f"{v1}/Managers/Bluefield_BMC":
            return httpx.Response(200, json={"FirmwareVersion": "BF-24.10-24"})
        if path.endswith("UpdateService.SimpleUpdate"):
            return self._simple_update(d, body)
        if path == f"{v1}/TaskService/Tasks":
            members = [{"@odata.id": d.task["@odata.id"]}] if d.task else []
            return httpx.Response(200, json={"Members": members})
        if path.startswith(f"{v1}/TaskService/Tasks/") and d.task:
            return httpx.Response(200, json={k: v for k, v in d.task.items() if k not in ("end", "uri")})
        events = f"{v1}/Systems/Bluefield/LogServices/EventLog/Entries"
        if path == events:
            return httpx.Response(
                200, json={"Members": [{"@odata.id": f"{events}/{i + 1}"} for i in range(len(d.events))]}
            )
        if path.startswith(f"{events}/"):
            return httpx.Response(200, json=d.events[int(path.rsplit("/", 1)[1]) - 1])
        if path.endswith("/Ports"):
            return httpx.Response(200, json={"Members": [{"@odata.id": f"{path}/eth0"}]})
        if path.endswith("/Ports/eth0"):
            return httpx.Response(
                200, json={"Id": "eth0", "LinkStatus": "LinkDown" if d.link_down else "LinkUp"}
            )
        return _err(404, "Base.1.18.1.ResourceNotFound", f"{path} not found")

    def _simple_update(self, d: FakeDpu, body: dict[str, Any]) -> httpx.Response:
        if d.task and d.task["TaskState"] == "Running":
            return _err(400, "Base.1.18.1.ResourceInUse", "An update is in progress")
        d.pushes += 1
        d.pushed_images.append(body["ImageURI"])
        tid = str(d.pushes)
        d.task = {
            "@odata.id": f"/redfish/v1/TaskService/Tasks/{tid}",
            "Id": tid,
            "TaskState": "Running",
            "TaskStatus": "OK",
            "PercentComplete": 0,
            "Messages": [],
            "Payload": {"TargetUri": "/redfish/v1/UpdateService/FirmwareInventory/DPU_OS"},
            "end": self.now + self.transfer_s,
            "uri": body["ImageURI"],
        }
        return httpx.Response(202, json={k: v for k, v in d.task.items() if k not in ("end", "uri")})


def _err(status: int, code: str, message: str) -> httpx.Response:
    info = [{"MessageId": code, "Message": message}]
    return httpx.Response(
        status, json={"error": {"code": code, "message": message, "@Message.ExtendedInfo": info}}
    )


def image_server(fleet: FakeFleet) -> httpx.MockTransport:
    """Transport that serves image manifests at ``http://images.test`` and BMCs elsewhere."""

    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.host == "images.test":
            image = IMAGES.get(str(request.url))
            if image is None:
                return httpx.Response(404, text="not found")
            return httpx.Response(200, text="".join(f"{k}: {v}\n" for k, v in image.items()))
        return fleet.handle(request)

    return httpx.MockTransport(handle)
