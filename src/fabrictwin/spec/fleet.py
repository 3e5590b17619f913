"""Fleet and rollout specs: which DPUs exist, where they sit, and how to upgrade them.

Times are seconds, sizes bytes, rates bytes/s. Defaults cite
``shared/reference/bluefield-operations.md`` (sections 1.5, 6 and 7.4) by section.
"""

from __future__ import annotations

import itertools
import re
from typing import Literal

from pydantic import Field, model_validator

from fabrictwin.spec.base import Spec

Generation = Literal["BF2", "BF3"]
Domain = Literal["fleet", "rack", "pod", "tenant", "job"]
DpuMode = Literal["DpuMode", "NicMode", "ZeroTrust"]

# Real BFB naming, bluefield-operations.md 1.1 / 1.7: `bf-bundle-2.9.2-31_25.02_ubuntu-22.04_prod`,
# `bf-fwbundle-2.9.2-50_25.02-prod`, `DOCA_2.5.0_BSP_4.5.0_Ubuntu_22.04-1.20231120.prod`.
BFB_VERSION_RE = re.compile(
    r"^(bf-bundle-\d+\.\d+\.\d+-\d+_\d{2}\.\d{2}_[a-z]+-\d+\.\d+_[a-z]+"
    r"|bf-fwbundle-\d+\.\d+\.\d+-\d+_\d{2}\.\d{2}-[a-z]+"
    r"|DOCA_\d+\.\d+\.\d+_BSP_\d+\.\d+\.\d+_[A-Za-z]+_\d+\.\d+-\d+\.\d+\.[a-z]+)$"
)


class DeviceRef(Spec):
    """One BlueField DPU of the fleet and the failure domains it belongs to."""

    name: str = Field(min_length=1)
    """Device id, unique in the fleet (e.g. ``gpu0017-dpu0``)."""
    bmc_url: str = Field(min_length=1)
    """Base URL of the DPU's BMC, e.g. ``http://127.0.1.17:8443`` (the Redfish root is below it)."""
    node: str = ""
    """Scheduler node name of the host server (Slurm node / Kubernetes node); empty: no drain."""
    rack: str = ""
    """Rack id (failure and bandwidth domain)."""
    pod: str = ""
    """Pod / scalable-unit id."""
    tenant: str = ""
    """Tenant owning the host."""
    job: str = ""
    """Job currently running on the host."""
    platform_url: str = ""
    """Base URL of the host server's platform BMC (host power cycle); empty: none."""
    generation: Generation = "BF3"
    """BlueField generation; images are generation specific (reference 1.9: wrong-generation BFB)."""


class FleetSpec(Spec):
    """The fleet: devices and how to log in to their BMCs."""

    devices: tuple[DeviceRef, ...]
    """All DPUs."""
    username: str = "root"
    """BMC user (OpenBMC default user ``root``, reference 1.4 ``BMC_USER``)."""
    password_env: str = "FABRICTWIN_BMC_PASSWORD"
    """Name of the environment variable holding the BMC password (never stored in a spec)."""

    @model_validator(mode="after")
    def _unique_names(self) -> FleetSpec:
        seen: set[str] = set()
        for dev in self.devices:
            if dev.name in seen:
                raise ValueError(f"device name {dev.name!r} appears twice")
            seen.add(dev.name)
        return self


class ImageSpec(Spec):
    """A BFB image and the versions it installs."""

    version: str
    """``DPU_OS`` version the BFB installs (FirmwareInventory ``DPU_OS.Version``, reference 1.7)."""
    uri: str
    """``ImageURI`` passed to ``UpdateService.SimpleUpdate`` (reference 1.5 step 4)."""
    protocol: Literal["HTTP", "HTTPS", "SCP"] = "HTTP"
    """Transfer protocol; HTTP/HTTPS from BMC BF-24.04 on, SCP everywhere (reference 7.9)."""
    size_bytes: float = Field(default=1.3e9, gt=0)
    """Image size in bytes; BFBs are ~1-1.5 GB (reference 1.1: 1255 MB observed)."""
    generation: Generation = "BF3"
    """Generation the image is built for."""
    nic_fw_version: str = ""
    """NIC firmware version the bundle carries (``DPU_NIC``), e.g. ``32.43.2566``; empty: unchecked."""

    @model_validator(mode="after")
    def _known_version_format(self) -> ImageSpec:
        if not BFB_VERSION_RE.match(self.version):
            raise ValueError(
                f"unknown BFB version {self.version!r}: expected a bf-bundle / bf-fwbundle /"
                " DOCA_..._BSP name such as 'bf-bundle-2.9.2-31_25.02_ubuntu-22.04_prod'"
            )
        return self


class Window(Spec):
    """A maintenance window, in seconds since the rollout started."""

    start_s: float = Field(ge=0)
    """Window opens (s after rollout start)."""
    end_s: float = Field(gt=0)
    """Window closes (s after rollout start); a device must finish inside the window it started in."""

    @model_validator(mode="after")
    def _ordered(self) -> Window:
        if self.end_s <= self.start_s:
            raise ValueError("end_s must be after start_s")
        return self


class Constraints(Spec):
    """Safety constraints of a rollout."""

    max_unavailable: dict[Domain, int] = {"rack": 4}
    """At most this many DPUs drained at once per domain value (e.g. per rack); DPF ``maxUnavailable``."""
    waves: tuple[float, ...] = (0.01, 0.10, 0.50, 1.0)
    """Cumulative fractions of the fleet per wave (canary 1% -> 10% -> 50% -> 100%, reference 7.8)."""
    failure_budget: float = Field(default=0.05, ge=0, le=1)
    """Halt admissions when failed devices exceed this fraction of the fleet (reference 6)."""
    soak_s: float = Field(default=0.0, ge=0)
    """Wait between waves before the health gate opens the next wave (s)."""
    windows: tuple[Window, ...] = ()
    """Maintenance windows; empty means always open."""
    rack_image_Bps: float | None = Field(default=None, gt=0)
    """Image-server bandwidth shared by one rack (bytes/s); None: unlimited (1 GbE OOB, reference 6)."""

    @model_validator(mode="after")
    def _valid_waves(self) -> Constraints:
        w = self.waves
        if not w or any(b <= a for a, b in itertools.pairwise(w)) or w[-1] != 1.0 or w[0] <= 0:
            raise ValueError("waves must be increasing cumulative fractions in (0, 1] ending at 1.0")
        if any(v < 1 for v in self.max_unavailable.values()):
            raise ValueError("max_unavailable values must be >= 1")
        return self


class DurationModel(Spec):
    """Expected duration of each step of one DPU's upgrade (used by the planner and for poll pacing)."""

    drain_s: float = Field(default=60.0, ge=0)
    """Scheduler drain until the node is idle (s); assumption, jobs checkpointed ahead."""
    stream_Bps: float = Field(default=5e6, gt=0)
    """Per-BMC HTTP transfer rate (bytes/s): ~5 MB/s observed (reference 1.1, 1255 MB in 4 min 10 s)."""
    install_s: float = Field(default=900.0, ge=0)
    """Arm-side install after the transfer (s): 5-15 min (reference 7.4 workflow 1)."""
    boot_s: float = Field(default=125.0, ge=0)
    """Arm reboot to OsIsRunning (s): BootRom->UEFI 10 + UEFI->OsStarting 15 + 40 + BMC lag (7.2)."""
    power_cycle_s: float = Field(default=240.0, ge=0)
    """Host cold power cycle until the DPU is back (s), when NIC FW cannot be reset live (1.8)."""
    verify_s: float = Field(default=30.0, ge=0)
    """Version and health-gate check (s): one BMC NC-SI poll period (7.2)."""
    undrain_s: float = Field(default=10.0, ge=0)
    """Return the node to service (s)."""
    poll_s: float = Field(default=30.0, gt=0)
    """Poll period while waiting on the BMC: 30 s as NVIDIA's OobUpdate.py (reference 1.5 step 5)."""
    install_timeout_s: float = Field(default=2400.0, gt=0)
    """Give up waiting for OsIsRunning after this long: 40 min (reference 1.5 step 5)."""
    transfer_timeout_s: float = Field(default=1800.0, gt=0)
    """Give up on a transfer task after this long: BMC_TASK_TIMEOUT 1800 s (reference 1.4)."""


class HealthGates(Spec):
    """What must hold before a DPU is returned to service (reference 7.8)."""

    require_os_running: bool = True
    """Arm ``OemLastState`` is ``OsIsRunning`` (DPU mode)."""
    require_versions: bool = True
    """``DPU_OS`` (and ``DPU_NIC`` when the image names one) match the target."""
    require_links_up: bool = True
    """Every high-speed port reports ``LinkUp``."""
    require_no_new_critical_events: bool = True
    """No Critical entry appeared in the Arm's event log (SEL) since the push (reference 7.8)."""


class RolloutSpec(Spec):
    """A BFB rollout: target image, rollback image, constraints, timings, scheduler."""

    name: str = Field(min_length=1)
    """Rollout name (unique in the store)."""
    target: ImageSpec
    """Image to install."""
    previous: ImageSpec | None = None
    """Rollback image (re-install of the previous BFB; there is no A/B slot for the Arm OS, 7.8)."""
    constraints: Constraints = Constraints()
    """Safety constraints."""
    durations: DurationModel = DurationModel()
    """Step durations for the plan and poll pacing."""
    health: HealthGates = HealthGates()
    """Gates checked before undrain."""
    scheduler: Literal["none", "slurm", "kubernetes"] = "none"
    """Scheduler to drain through."""
    scheduler_url: str = ""
    """Base URL of slurmrestd or the Kubernetes API server."""
    concurrency: int = Field(default=256, ge=1, le=4096)
    """Most BMC requests in flight at once (bounded asyncio concurrency)."""


class DesiredState(Spec):
    """What every DPU should run; inventory drift is reported against it."""

    os_version: str = ""
    """Expected ``DPU_OS`` version; empty: not checked."""
    nic_fw_version: str = ""
    """Expected ``DPU_NIC`` version; empty: not checked."""
    bmc_version: str = ""
    """Expected ``BMC_Firmware`` version; empty: not checked."""
    mode: Literal["", "DpuMode", "NicMode"] = ""
    """Expected operation mode; empty: not checked."""
