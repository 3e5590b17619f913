"""Request handling for one emulated BlueField BMC: reachability faults, 503, auth, dispatch."""

from __future__ import annotations

import asyncio
import json
import zlib
from collections.abc import Awaitable, Callable
from typing import Any

import numpy as np
from starlette.requests import Request
from starlette.responses import Response

from fabrictwin.emulator.device import Device
from fabrictwin.emulator.fleet import Fleet
from fabrictwin.emulator.redfish import manager as mg
from fabrictwin.emulator.redfish import root, system
from fabrictwin.emulator.redfish.actions import Writer
from fabrictwin.emulator.redfish.auth import OPEN_PATHS, authenticate
from fabrictwin.emulator.redfish.odata import CHASSIS, INV, SESSIONS, SYS, TASKS, V1
from fabrictwin.emulator.rferror import RedfishError, not_found, unavailable

Render = Callable[[Device], dict[str, Any]]

STATIC: dict[str, Render] = {
    V1: lambda d: root.service_root(d),
    f"{V1}/Systems": root.systems,
    SYS: system.computer_system,
    f"{SYS}/Oem/Nvidia": system.oem_nvidia,
    f"{SYS}/Oem/Nvidia/Connectx/ExternalHostPrivileges": system.host_privileges,
    f"{SYS}/Oem/Nvidia/Connectx/StrapOptions": system.strap_options,
    f"{SYS}/Bios": system.bios,
    f"{SYS}/Bios/Settings": system.bios_settings,
    f"{SYS}/SecureBoot": system.secure_boot,
    f"{SYS}/LogServices": system.log_services,
    f"{SYS}/LogServices/EventLog": system.event_log,
    f"{SYS}/LogServices/EventLog/Entries": system.event_entries,
    f"{V1}/Managers": root.managers,
    f"{V1}/Managers/Bluefield_BMC": mg.manager,
    CHASSIS: mg.chassis_collection,
    f"{CHASSIS}/Card1/NetworkAdapters": mg.adapters,
    f"{CHASSIS}/Card1/NetworkAdapters/NvidiaNetworkAdapter": mg.adapter,
    f"{CHASSIS}/Card1/NetworkAdapters/NvidiaNetworkAdapter/Ports": mg.ports,
    f"{V1}/UpdateService": mg.update_service,
    INV: mg.inventory_collection,
    f"{V1}/TaskService": mg.task_service,
    TASKS: mg.tasks_collection,
    f"{V1}/SessionService": root.session_service,
    f"{V1}/AccountService": root.account_service,
    f"{V1}/AccountService/Accounts": root.accounts,
}
"""Resources at fixed paths."""
VOLATILE = ("DateTime",)
"""Fields left out of the ETag (a clock reading is not a change of the resource)."""


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A compact JSON response (what bmcweb sends: ``application/json;charset=utf-8``)."""
    return Response(
        json.dumps(body, separators=(",", ":")), status, headers, "application/json;charset=utf-8"
    )


def etag(body: dict[str, Any]) -> str:
    """Weak ETag over the representation minus volatile fields."""
    stable = {k: v for k, v in body.items() if k not in VOLATILE}
    return f'W/"{zlib.crc32(json.dumps(stable, separators=(",", ":")).encode()):08x}"'


class BmcHandler:
    """Serves the Redfish tree of whichever BMC a request reached."""

    def __init__(
        self, fleet: Fleet, fetch: Callable[[str], Awaitable[object]], stopping: asyncio.Event
    ) -> None:
        self.fleet = fleet
        self.writer = Writer(fleet, fetch)
        self.stopping = stopping
        self.rng = np.random.default_rng(fleet.settings.seed)

    async def handle(self, index: int, request: Request) -> Response:
        """Answer one request to BMC ``index``.

        Raises:
            RedfishError: for every deliberate HTTP error (rendered by the app).
        """
        dev = self.fleet.devices[index]
        await self._reachability(dev)
        path = request.scope["path"].rstrip("/") or "/"
        if dev.bmc_state != "Enabled" or dev.has("bmc_503_window"):
            raise unavailable(30)
        acc = self.fleet.accounts[index]
        method = request.method
        if not (path in OPEN_PATHS or path.startswith(f"{V1}/schema") or self._login(method, path)):
            authenticate(dev, acc, request)
        if method in ("GET", "HEAD"):
            return self.get(dev, index, path)
        body = await self._body(request)
        if method == "PATCH":
            current = self._render(dev, index, path)
            if current is None:
                raise not_found(path)
            match = request.headers.get("if-match")
            return await self.writer.patch(dev, path, body, match, etag(current))
        if method == "POST":
            return await self.writer.post(dev, acc, path, body, request)
        if method == "DELETE":
            return self.writer.delete(acc, path)
        raise RedfishError(405, "OperationNotAllowed", f"The HTTP method {method} is not allowed on {path}.")

    @staticmethod
    def _login(method: str, path: str) -> bool:
        return method == "POST" and path in (SESSIONS, "/login")

    async def _body(self, request: Request) -> dict[str, Any]:
        if request.headers.get("content-type", "").startswith(("multipart/", "application/octet-stream")):
            return {"__request__": request}
        raw = await request.body()
        if not raw:
            return {}
        try:
            data = json.loads(raw)
        except ValueError:
            raise RedfishError(
                400, "MalformedJSON", "The request body submitted was malformed JSON."
            ) from None
        if not isinstance(data, dict):
            raise RedfishError(400, "MalformedJSON", "The request body submitted was malformed JSON.")
        return data

    async def _reachability(self, dev: Device) -> None:
        """Faults of family 3: hang (unreachable / accept-but-hang) or answer slowly."""
        if dev.has("bmc_tcp_accept_but_hang") or dev.has("bmc_unreachable"):
            while not self.stopping.is_set() and (
                dev.has("bmc_tcp_accept_but_hang") or dev.has("bmc_unreachable")
            ):
                await asyncio.sleep(0.05)
                self.fleet.catch_up()
            raise unavailable(30)
        slow = dev.faults.get("bmc_slow")
        if slow is not None and dev.has("bmc_slow"):
            if self.rng.random() < slow.p_timeout:
                while not self.stopping.is_set():  # the client's timeout ends this request
                    await asyncio.sleep(0.05)
            await asyncio.sleep(slow.latency_s or 0.0)

    def _render(self, dev: Device, index: int, path: str) -> dict[str, Any] | None:
        fn = STATIC.get(path)
        if fn is not None:
            return fn(dev)
        head, _, tail = path.rpartition("/")
        if head == INV:
            return mg.inventory_item(dev, tail)
        if head == TASKS and tail.isdigit() and int(tail) in dev.tasks:
            return mg.task(dev, dev.tasks[int(tail)])
        if head == CHASSIS:
            return mg.chassis(dev, tail)
        if head == f"{CHASSIS}/Card1/NetworkAdapters/NvidiaNetworkAdapter/Ports" and tail in ("eth0", "eth1"):
            return mg.port(dev, int(tail[-1]))
        if head == f"{SYS}/LogServices/EventLog/Entries" and tail.isdigit():
            return system.event_entry(dev, int(tail))
        if head == SESSIONS:
            return root.session(self.fleet.accounts[index], tail)
        if path == SESSIONS:
            return root.sessions(self.fleet.accounts[index])
        if path == f"{V1}/AccountService/Accounts/root":
            return root.account_root(dev, self.fleet.accounts[index])
        if path == f"{V1}/odata":
            return root.odata_document()
        return None

    def get(self, dev: Device, index: int, path: str) -> Response:
        """GET one resource with its ETag.

        Raises:
            RedfishError: 404 for unknown paths.
        """
        if path == f"{V1}/$metadata":
            return Response(root.metadata_xml(), media_type="application/xml")
        if path.startswith(f"{V1}/schema/"):
            from fabrictwin.emulator.redfish.csdl import schema_file

            text = schema_file(path.rsplit("/", 1)[-1])
            if text is None:
                raise not_found(path)
            return Response(text, media_type="application/xml")
        body = self._render(dev, index, path)
        if body is None:
            raise not_found(path)
        text = json.dumps(body, separators=(",", ":"))
        # One serialisation serves both the body and (when nothing volatile is in it) the ETag.
        tag = etag(body) if any(k in body for k in VOLATILE) else f'W/"{zlib.crc32(text.encode()):08x}"'
        headers = {"ETag": tag, "OData-Version": "4.0"}
        return Response(text, 200, headers, "application/json;charset=utf-8")
