"""A fleet of emulated DPUs in one process: devices, clock, racks, addresses, schedulers.

Addressing (justified in ``docs/emulator.md``): DPU BMC ``i`` answers on
``127.0.{1 + i // 254}.{1 + i % 254}``, its server's platform BMC on
``127.1.{1 + i // 254}.{1 + i % 254}``, and the aggregator on ``127.0.0.1``, all on one port.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fabrictwin.emulator.clock import ScaledDriver, VirtualClock
from fabrictwin.emulator.device import Device
from fabrictwin.emulator.faults import draw_priors, inject
from fabrictwin.emulator.identity import make_identity
from fabrictwin.emulator.images import DEFAULT_IMAGES, Image
from fabrictwin.emulator.links import SharedLink
from fabrictwin.errors import NotFound
from fabrictwin.spec.faults import EmulatorSettings

AGGREGATOR = "127.0.0.1"
PER_OCTET = 254


def bmc_address(index: int) -> str:
    """Loopback address of DPU BMC ``index``."""
    return f"127.0.{1 + index // PER_OCTET}.{1 + index % PER_OCTET}"


def platform_address(index: int) -> str:
    """Loopback address of the platform BMC of server ``index``."""
    return f"127.1.{1 + index // PER_OCTET}.{1 + index % PER_OCTET}"


@dataclass(slots=True)
class Session:
    """A Redfish session (X-Auth-Token)."""

    session_id: str
    token: str
    user: str
    created_s: float


@dataclass(slots=True)
class Accounts:
    """Per-BMC login state: failures, lockout, sessions."""

    failures: int = 0
    locked_until: float = -1.0
    sessions: dict[str, Session] = field(default_factory=dict)
    next_id: int = 1


@dataclass(slots=True)
class SchedulerNode:
    """A server as Slurm and Kubernetes see it."""

    name: str
    slurm_state: str = "IDLE"
    reason: str = ""
    unschedulable: bool = False
    pods: list[str] = field(default_factory=list)


class Fleet:
    """Everything one emulator process serves."""

    def __init__(self, settings: EmulatorSettings, images: dict[str, Image] | None = None) -> None:
        self.settings = settings
        self.clock = VirtualClock()
        self.driver = ScaledDriver(self.clock, settings.time_scale)
        self.images: dict[str, Image] = dict(DEFAULT_IMAGES if images is None else images)
        n = settings.dpus
        self.devices = [
            Device(make_identity(i, settings.seed, settings.generation), self.clock, settings)
            for i in range(n)
        ]
        self.accounts = [Accounts() for _ in range(n)]
        self.links = [
            SharedLink(self.clock, settings.rack_bandwidth_Bps)
            for _ in range((n + settings.rack_size - 1) // settings.rack_size)
        ]
        self.by_bmc_addr = {bmc_address(i): i for i in range(n)}
        self.by_platform_addr = {platform_address(i): i for i in range(n)} if settings.platform_bmcs else {}
        self.by_serial = {d.ident.serial: i for i, d in enumerate(self.devices)}
        self.nodes = [
            SchedulerNode(d.ident.server, pods=[f"train-{i:04d}"]) for i, d in enumerate(self.devices)
        ]
        self.by_node = {node.name: i for i, node in enumerate(self.nodes)}
        self.port = settings.port
        self._plant_faults()

    def _plant_faults(self) -> None:
        plan = self.settings.faults
        for index, faults in draw_priors(plan, len(self.devices)).items():
            for fault in faults:
                inject(self.devices[index], fault)
        for entry in plan.devices:
            dev = self.device(str(entry.device))
            for fault in entry.faults:
                inject(dev, fault)

    def device(self, key: str) -> Device:
        """A device by index or serial.

        Raises:
            NotFound: if no device has that index or serial.
        """
        if key.isdigit() and int(key) < len(self.devices):
            return self.devices[int(key)]
        if key in self.by_serial:
            return self.devices[self.by_serial[key]]
        raise NotFound(f"no emulated DPU with index or serial {key!r}")

    def link_of(self, dev: Device) -> SharedLink:
        """The rack artifact link of ``dev``."""
        return self.links[dev.ident.index // self.settings.rack_size]

    def catch_up(self) -> None:
        """Bring virtual time up to the wall clock (no-op when time_scale is 0)."""
        self.driver.catch_up()

    def url(self, host: str, path: str = "") -> str:
        """``http(s)://host:port`` + path."""
        scheme = "https" if self.settings.tls else "http"
        return f"{scheme}://{host}:{self.port}{path}"

    def describe(self) -> list[dict[str, object]]:
        """One row per device: index, serial, server, rack, URLs (``GET /admin/fleet``)."""
        return [
            {
                "index": d.ident.index,
                "serial": d.ident.serial,
                "server": d.ident.server,
                "rack": d.ident.index // self.settings.rack_size,
                "bmc_url": self.url(bmc_address(d.ident.index)),
                "platform_url": self.url(platform_address(d.ident.index)) if self.by_platform_addr else "",
            }
            for d in self.devices
        ]
