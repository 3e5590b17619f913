"""The ASGI app of a whole emulated fleet: one app, many listening addresses.

A request is routed by the local address it arrived on (``scope["server"]``): a DPU BMC
address gets that BMC's Redfish tree, a platform-BMC address gets the server's power facade,
and the aggregator address (``127.0.0.1``) serves the fleet root, the admin API, the
scheduler facades and the image server. One handler renders every Redfish error.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from fabrictwin.emulator import admin, facades
from fabrictwin.emulator.fleet import Fleet
from fabrictwin.emulator.images import Image, parse_image
from fabrictwin.emulator.redfish.aggregator import aggregator
from fabrictwin.emulator.redfish.bmc import BmcHandler, json_response
from fabrictwin.emulator.rferror import RedfishError
from fabrictwin.spec.faults import EmulatorSettings


def http_uri(image_uri: str, scheme: str = "http") -> str:
    """Where the emulator reads an ImageURI: SCP sources are read over HTTP(S) from the same
    host and path (the emulator has no SSH server; SCP failures are faults)."""
    rest = image_uri.split("://", 1)[1] if "://" in image_uri else image_uri
    return f"{scheme}://{rest}"


class EmulatorApp:
    """ASGI callable serving every address of ``fleet``."""

    def __init__(self, fleet: Fleet) -> None:
        self.fleet = fleet
        self.stopping = asyncio.Event()
        self.bmc = BmcHandler(fleet, self.fetch, self.stopping)
        self._client: httpx.AsyncClient | None = None

    async def fetch(self, image_uri: str) -> Image | str:
        """Read an image descriptor over HTTP; an error text when that fails."""
        if self._client is None:
            # Self-signed loopback certificates, as a BMC without a CA bundle would meet them.
            self._client = httpx.AsyncClient(timeout=10.0, trust_env=False, verify=False)
        url = http_uri(image_uri, "https" if self.fleet.settings.tls else "http")
        try:
            response = await self._client.get(url)
        except httpx.HTTPError as exc:
            return f"Failed to download '{image_uri}': {type(exc).__name__}"
        if response.status_code != 200:
            return f"Failed to download '{image_uri}': {response.status_code} {response.reason_phrase}"
        image = parse_image(response.text)
        return image if image is not None else "Invalid FW Package"

    async def aclose(self) -> None:
        """Release the image-fetch client and end hanging requests."""
        self.stopping.set()
        if self._client is not None:
            await self._client.aclose()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        request = Request(scope, receive)
        host = (scope.get("server") or ("127.0.0.1", 0))[0]
        self.fleet.catch_up()
        try:
            response = await self.route(host, request)
        except RedfishError as exc:
            response = json_response(exc.body(), exc.status, exc.headers)
        await response(scope, receive, send)

    async def route(self, host: str, request: Request) -> Response:
        """Pick the BMC, platform BMC or aggregator that ``host`` names.

        Raises:
            RedfishError: whatever the handler raises.
        """
        path = request.scope["path"]  # the raw path: building request.url costs a URL parse
        index = self.fleet.by_bmc_addr.get(host)
        if index is not None:
            if path.startswith("/admin"):
                dev = self.fleet.devices[index]
                return await admin.device_admin(dev, path.rstrip("/"), request, self.fleet.images)
            return await self.bmc.handle(index, request)
        index = self.fleet.by_platform_addr.get(host)
        if index is not None:
            return await facades.platform_bmc(self.fleet, index, request)
        return await self.aggregate(path.rstrip("/") or "/", request)

    async def aggregate(self, path: str, request: Request) -> Response:
        """Aggregator address: images, admin, schedulers, fleet service root."""
        if path.startswith("/images"):
            return self.image(path)
        for handler in (admin.fleet_admin, facades.slurm, facades.kubernetes):
            response = await handler(self.fleet, path, request)
            if response is not None:
                return response
        body: Any = aggregator(self.fleet, path)
        return json_response(body)

    def image(self, path: str) -> Response:
        """The image server (``GET /images`` lists, ``GET /images/{name}`` serves a descriptor)."""
        name = path[len("/images") :].strip("/")
        if not name:
            return Response(json.dumps(sorted(self.fleet.images)), media_type="application/json")
        image = self.fleet.images.get(name)
        if image is None:
            return Response("404 Not Found\n", 404, media_type="text/plain")
        return Response(image.render(), media_type="application/octet-stream")


def create_app(settings: EmulatorSettings) -> EmulatorApp:
    """App factory: a fleet built from ``settings`` behind one ASGI app (no module globals).

    Serve it with :func:`fabrictwin.emulator.serve.open_sockets` + uvicorn, or call it in
    process through ``httpx.ASGITransport`` (the URL's host picks the BMC, as a socket would).
    """
    return EmulatorApp(Fleet(settings))
