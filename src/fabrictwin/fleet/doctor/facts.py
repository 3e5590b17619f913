"""Facts parsed once from a host's views, with derived answers (mode, Arm state, PF netdevs)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from fabrictwin.fleet.doctor.parsers import (
    Line,
    Link,
    MstDevice,
    NvParam,
    PciFunction,
    code_of,
    grep,
    parse_eswitch,
    parse_flint,
    parse_ip_link,
    parse_json,
    parse_lspci,
    parse_mlxconfig,
    parse_mst,
    parse_rshim_misc,
)
from fabrictwin.fleet.doctor.views import Views

MODE_PARAM = "INTERNAL_CPU_OFFLOAD_ENGINE"
"""BF3: this parameter alone selects NIC (DISABLED(1)) vs DPU (ENABLED(0)) mode (2.2 [S59])."""
BF2_TUPLE = (
    "INTERNAL_CPU_MODEL",
    "INTERNAL_CPU_PAGE_SUPPLIER",
    "INTERNAL_CPU_ESWITCH_MANAGER",
    "INTERNAL_CPU_IB_VPORT0",
    "INTERNAL_CPU_OFFLOAD_ENGINE",
)
"""The five mode parameters; canonical codes DPU (1,0,0,0,0) and NIC (1,1,1,1,1) (2.2 [S58])."""
CANONICAL_TUPLES = {(1, 0, 0, 0, 0): "dpu", (1, 1, 1, 1, 1): "nic"}


@dataclass
class Facts:
    """Everything the rules read. Missing views give empty values, never errors."""

    views: Views
    expected_mode: str | None = None
    """What the operator meant to set (``nic``/``dpu``), when they say so."""

    def text(self, name: str) -> str:
        return self.views.texts.get(name, "")

    def has(self, name: str) -> bool:
        return name in self.views.texts

    def grep(self, name: str, pattern: str) -> list[Line]:
        return grep(name, self.text(name), pattern)

    @cached_property
    def nv(self) -> dict[str, NvParam]:
        return parse_mlxconfig(self.text("mlxconfig-q"))[0]

    @cached_property
    def device_type(self) -> str:
        return parse_mlxconfig(self.text("mlxconfig-q"))[1]

    @cached_property
    def mst(self) -> list[MstDevice]:
        return parse_mst(self.text("mst-status-v"))

    @cached_property
    def pci(self) -> list[PciFunction]:
        name = "lspci-k" if self.has("lspci-k") else "lspci"
        return parse_lspci(self.text(name), name)

    @cached_property
    def links(self) -> list[Link]:
        return parse_ip_link(self.text("ip-br-link"))

    @cached_property
    def eswitch(self) -> list[tuple[str, str, Line]]:
        return parse_eswitch(self.text("devlink-eswitch-show"))

    @cached_property
    def flint(self) -> dict[str, Line]:
        return parse_flint(self.text("flint-q"))

    @cached_property
    def rshim(self) -> tuple[dict[str, Line], list[Line]]:
        """Host RShim settings, and the log of whichever side owns RShim (host, else BMC)."""
        settings, log = parse_rshim_misc(self.text("rshim-misc"))
        _, bmc_log = parse_rshim_misc(self.text("bmc-rshim-misc"), "bmc-rshim-misc")
        return settings, log + bmc_log

    def rshim_grep(self, pattern: str) -> list[Line]:
        """RShim log lines matching ``pattern`` from the host and the BMC side."""
        return self.grep("rshim-misc", pattern) + self.grep("bmc-rshim-misc", pattern)

    @cached_property
    def oem(self) -> dict[str, object]:
        return parse_json(self.text("redfish-oem-nvidia"))

    @cached_property
    def system(self) -> dict[str, object]:
        return parse_json(self.text("redfish-system"))

    def straps(self) -> dict[str, object]:
        """Redfish ``StrapOptions`` as name -> value (list-of-objects or flat mapping form)."""
        data = parse_json(self.text("redfish-straps"))
        items = data.get("StrapOptions", data)
        if isinstance(items, list):
            return {str(i.get("StrapId")): i.get("Value") for i in items if isinstance(i, dict)}
        return dict(items) if isinstance(items, dict) else {}

    def mode(self, which: str = "current") -> str | None:
        """``nic``/``dpu`` from mlxconfig (``current`` or ``next_boot``), else from Redfish.

        On a BlueField-2 the five-parameter tuple decides; a non-canonical tuple has no mode.
        """
        if "BlueField2" in self.device_type and which == "current" and self.bf2_tuple() is not None:
            return CANONICAL_TUPLES.get(self.bf2_tuple())  # type: ignore[arg-type]
        param = self.nv.get(MODE_PARAM)
        if param is not None:
            return "nic" if code_of(getattr(param, which)) == 1 else "dpu"
        if which == "current" and self.oem.get("Mode") in ("NicMode", "DpuMode"):
            return "nic" if self.oem["Mode"] == "NicMode" else "dpu"
        return None

    def bf2_tuple(self) -> tuple[int | None, ...] | None:
        if not all(name in self.nv for name in BF2_TUPLE):
            return None
        return tuple(code_of(self.nv[name].current) for name in BF2_TUPLE)

    @property
    def arm_state(self) -> str:
        """``BootProgress.OemLastState`` (or ``LastState``) from Redfish; '' when unknown."""
        progress = self.system.get("BootProgress")
        if isinstance(progress, dict):
            return str(progress.get("OemLastState") or progress.get("LastState") or "")
        return ""

    def arm_log_stuck_in_uefi(self) -> list[Line]:
        """RShim log lines showing the Arm reached UEFI but Linux never came up."""
        log = self.rshim[1]
        uefi = [ln for ln in log if "[UEFI]" in ln.text]
        up = [ln for ln in log if "Linux up" in ln.text or "DPU is ready" in ln.text]
        return uefi[-1:] if uefi and not up else []

    @property
    def pfs(self) -> list[PciFunction]:
        """Host network PFs of the BlueField (Ethernet/InfiniBand controllers)."""
        return [f for f in self.pci if f.is_network_pf]

    def netdev_of(self, bdf: str) -> str:
        """Netdev of a PF from ``mst status -v`` (present in ``ip -br link``), '' if none."""
        short = bdf.split(":", 1)[1] if bdf.count(":") == 2 else bdf
        names = {ln.name for ln in self.links}
        for dev in self.mst:
            if dev.pci in (bdf, short) and dev.net and (not self.links or dev.net in names):
                return dev.net
        return ""

    def pfs_without_netdev(self) -> list[PciFunction]:
        if not self.mst:
            return []  # without mst's PCI -> netdev column the mapping is unknown
        return [f for f in self.pfs if not self.netdev_of(f.bdf)]
