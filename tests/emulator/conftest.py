"""Fixtures for the emulator tests: a pure model on a virtual clock, and a served fleet."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
import redfish

from fabrictwin.emulator import serve_fleet
from fabrictwin.emulator.clock import VirtualClock
from fabrictwin.emulator.device import Device
from fabrictwin.emulator.identity import make_identity
from fabrictwin.emulator.links import SharedLink
from fabrictwin.emulator.serve import FleetHandle
from fabrictwin.spec.faults import EmulatorSettings

FLEET_SIZE = 40


class Model:
    """One device on a virtual clock, no HTTP."""

    def __init__(self, **settings: Any) -> None:
        self.settings = EmulatorSettings(**settings)
        self.clock = VirtualClock()
        self.dev = Device(make_identity(0, 7, self.settings.generation), self.clock, self.settings)
        self.link = SharedLink(self.clock, self.settings.rack_bandwidth_Bps)
        self.dev.trace.clear()


@pytest.fixture
def model() -> Callable[..., Model]:
    return Model


@pytest.fixture(scope="module")
def fleet() -> Iterator[FleetHandle]:
    """A served fleet whose clock moves only through ``advance``; each test uses its own DPUs."""
    with serve_fleet(FLEET_SIZE, seed=7, time_scale=0) as handle:
        yield handle


class Bmcs:
    """Hands out unused DPU indices of the module fleet so tests never share a device."""

    def __init__(self) -> None:
        self.next = 0

    def take(self) -> int:
        index = self.next
        self.next += 1
        assert index < FLEET_SIZE, "grow FLEET_SIZE"
        return index


@pytest.fixture(scope="module")
def bmcs() -> Bmcs:
    return Bmcs()


class H:
    """Helpers for HTTP tests (a fixture, since tests cannot import conftest)."""

    @staticmethod
    def rf(
        handle: FleetHandle,
        index: int,
        *,
        platform: bool = False,
        password: str = "0penBmc",
        timeout: float | None = 10,
    ) -> Any:
        """A logged-in DMTF redfish client for BMC ``index`` (Basic auth)."""
        url = handle.platform_urls[index] if platform else handle.bmc_urls[index]
        client = redfish.redfish_client(
            base_url=url, username="root", password=password, timeout=timeout, max_retry=1
        )
        client.login(auth="basic")
        return client

    @staticmethod
    def inject(handle: FleetHandle, index: int, **fault: Any) -> None:
        """Inject a fault through the admin API."""
        r = httpx.post(f"{handle.admin_url}/admin/devices/{index}/faults", json=fault)
        assert r.status_code == 201, r.text

    @staticmethod
    def host(handle: FleetHandle, index: int, cmd: str) -> str:
        """A host-side view."""
        r = httpx.get(f"{handle.admin_url}/admin/devices/{index}/host/{cmd}")
        assert r.status_code == 200, r.text
        return r.text

    @staticmethod
    def state(handle: FleetHandle, index: int) -> dict[str, Any]:
        """Admin device summary."""
        return httpx.get(f"{handle.admin_url}/admin/devices/{index}").json()

    NEXT = "bf-bundle-2.9.2-31_25.02_ubuntu-22.04_prod.bfb"
    DPU_OS = "/redfish/v1/UpdateService/FirmwareInventory/DPU_OS"

    @staticmethod
    def start_install(
        handle: FleetHandle,
        client: Any,
        image: str = "bf-bundle-2.9.2-31_25.02_ubuntu-22.04_prod.bfb",
        protocol: str = "HTTP",
    ) -> Any:
        """POST SimpleUpdate for ``image`` to DPU_OS."""
        return client.post(
            "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate",
            body={
                "TransferProtocol": protocol,
                "ImageURI": handle.image_url(image),
                "Targets": ["/redfish/v1/UpdateService/FirmwareInventory/DPU_OS"],
            },
        )


@pytest.fixture
def h() -> type[H]:
    return H
