"""NV configuration, operation mode, NIC firmware reset and RShim ownership of a card.

A base class of :class:`~fabrictwin.emulator.device.Device` (which holds the state these
methods change): mode rules are section 2.2, reset semantics table 1.8, RShim ownership 1.2 of
``reference/bluefield-operations.md``.
"""

from __future__ import annotations

from fabrictwin.emulator import nvconfig
from fabrictwin.emulator.identity import Identity
from fabrictwin.spec.faults import Fault


class CardConfig:
    """The configuration-related inputs of a card; state lives on the Device."""

    ident: Identity
    fw: dict[str, str]
    nic_flash: str
    nv_default: dict[str, int]
    nv_current: dict[str, int]
    nv_next: dict[str, int]
    faults: dict[str, Fault]
    bmc_rshim: str
    rshim_owner: str
    scp_keys: set[str]

    def log(self, event: str) -> None:
        """Append to the state trace (the Device implements it)."""
        raise NotImplementedError

    def has(self, kind: str) -> bool:
        """Whether a fault is active (the Device implements it)."""
        raise NotImplementedError

    @property
    def mode(self) -> str:
        """Operation mode from the running NV config (``""`` for an inconsistent BF2 tuple)."""
        return nvconfig.mode_of(self.nv_current, self.ident.generation)

    @property
    def next_mode(self) -> str:
        """Mode that the next cold power cycle will apply."""
        return nvconfig.mode_of(self.nv_next, self.ident.generation)

    # ------------------------------------------------------------------ modes and NV config
    def stage_mode(self, mode: str) -> None:
        """Mode.Set / BIOS NicMode / mlxconfig: write next_boot only (applies on a cold cycle)."""
        nvconfig.set_mode(self.nv_next, mode, self.ident.generation)
        self.log(f"mode {mode} staged")

    def mlxconfig_set(self, values: dict[str, int]) -> None:
        """``mlxconfig s``: write next_boot values."""
        self.nv_next.update(values)
        self.log("mlxconfig set " + " ".join(f"{k}={v}" for k, v in sorted(values.items())))

    def mlxconfig_reset(self) -> None:
        """``mlxconfig reset``: next_boot back to defaults, mode included (2.2 caveat) [S59]."""
        self.nv_next = dict(self.nv_default)
        self.log("mlxconfig reset (mode back to default)")

    def nic_fw_reset(self) -> bool:
        """``mlxfwreset -l 3``: load flashed NIC firmware and NV config without a host cycle.

        Returns False (nothing happens) when the reset is unsupported, e.g. a DPU-mode host
        without driver ownership or the ``nic_fw_reset_unsupported`` fault (1.8) [S35][S23].
        """
        if self.has("nic_fw_reset_unsupported"):
            return False
        self.fw["DPU_NIC"] = self.nic_flash
        self.nv_current = dict(self.nv_next)
        if self.has("mode_revert_on_fw_reset") and self.mode == "NicMode":
            nvconfig.set_mode(self.nv_current, "DpuMode", self.ident.generation)
            nvconfig.set_mode(self.nv_next, "DpuMode", self.ident.generation)
            self.log("mode reverted to DpuMode by NIC firmware reset")
        self.log("nic firmware reset")
        return True

    # ------------------------------------------------------------------ RShim (1.2)
    def enable_bmc_rshim(self, force: bool = False) -> bool:
        """Give RShim to the BMC. Fails while the host owns it, unless forced and allowed."""
        host_holds = self.rshim_owner == "host"
        fault = self.faults.get("rshim_owned_by_host")
        if host_holds and not (force and (fault is None or fault.force_succeeds)):
            self.log("bmc rshim enable failed: another backend already attached")
            return False
        self.bmc_rshim = "Forced" if force else "Enabled"
        self.rshim_owner = "bmc"
        self.log(f"bmc rshim {self.bmc_rshim}")
        return True

    def scp_trusted(self, image_uri: str) -> bool:
        """True when PublicKeyExchange was done with the server of ``image_uri`` (1.5 step 3)."""
        host = image_uri.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0]
        return host in self.scp_keys

    def disable_bmc_rshim(self) -> None:
        """Release RShim from the BMC side."""
        self.bmc_rshim = "Disabled"
        if self.rshim_owner == "bmc":
            self.rshim_owner = "none"
        self.log("bmc rshim Disabled")
