"""Plain JSON over HTTP to non-Redfish services: slurmrestd, the Kubernetes API, emulator admin views.

Only ``fleet.redfish`` speaks HTTP inside the control plane, so the scheduler adapters and the
doctor reach these services through :class:`Facade`.
"""

from __future__ import annotations

from typing import Any

from fabrictwin.fleet.redfish.client import Http


class Facade:
    """A JSON service at ``base_url`` (no auth on loopback; a bearer token when given)."""

    def __init__(self, http: Http, base_url: str, name: str = "", token: str = "") -> None:
        self.http = http
        self.base = base_url.rstrip("/")
        self.name = name or self.base
        self.headers = {"Authorization": f"Bearer {token}"} if token else None

    async def get(self, path: str) -> Any:
        """GET JSON."""
        resp = await self.http.send(self.name, "GET", f"{self.base}{path}", headers=self.headers)
        return resp.json()

    async def text(self, path: str) -> str:
        """GET text (host views render exactly as the tools print)."""
        resp = await self.http.send(self.name, "GET", f"{self.base}{path}", headers=self.headers)
        return resp.text

    async def post(self, path: str, body: Any) -> Any:
        """POST JSON, return the JSON answer (or None)."""
        resp = await self.http.send(self.name, "POST", f"{self.base}{path}", json=body, headers=self.headers)
        return resp.json() if resp.content else None

    async def patch(self, path: str, body: Any) -> Any:
        """PATCH JSON, return the JSON answer (or None)."""
        resp = await self.http.send(self.name, "PATCH", f"{self.base}{path}", json=body, headers=self.headers)
        return resp.json() if resp.content else None


class HostViews:
    """Host-side command views of the emulator's admin API (``/admin/devices/{id}/host/{cmd}``)."""

    def __init__(self, http: Http, root_url: str) -> None:
        self.facade = Facade(http, root_url.rstrip("/").removesuffix("/redfish/v1"), "emulator-admin")

    async def view(self, device: str | int, cmd: str) -> str:
        """Text of one host command (``mlxconfig-q``, ``lspci-k``, ``dmesg`` ...) for one device."""
        return await self.facade.text(f"/admin/devices/{device}/host/{cmd}")

    async def fleet(self) -> list[dict[str, Any]]:
        """``GET /admin/fleet``: index, serial, server, rack, bmc_url, platform_url per DPU."""
        data = await self.facade.get("/admin/fleet")
        return list(data)
