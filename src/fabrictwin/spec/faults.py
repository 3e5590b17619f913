"""Emulator settings and fault plans for the BlueField DPU + BMC emulator.

Every default timing below comes from ``reference/bluefield-operations.md`` section 7 (the
emulator specification), which cites the NVIDIA documents and tools it was read from; the
section and source tag sit beside each value. Fault names are the families of section 7.6.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import Field, model_validator

from fabrictwin.spec.base import Spec

FaultKind = Literal[
    # 7.6 family 1-2: RShim ownership
    "rshim_owned_by_host",
    "rshim_owned_by_bmc",
    "rshim_absent",
    # family 3: BMC reachability
    "bmc_unreachable",
    "bmc_slow",
    "bmc_503_window",
    "bmc_tcp_accept_but_hang",
    # family 4: authentication
    "auth_fail",
    "account_locked_after",
    # family 5: busy BMC
    "update_in_progress",
    "background_copy_in_progress",
    # family 6: image transfer
    "transfer_slow",
    "transfer_fail_at",
    "scp_unknown_host",
    "scp_unauthorized_client",
    "https_bad_cert",
    "image_404",
    "image_corrupt",
    "wrong_generation_bfb",
    # family 7: tasks
    "task_stall",
    "task_exception",
    "task_lost_after_bmc_reboot",
    # family 8: installer
    "install_hang",
    "partial_install_nic_fw_fail",
    "installer_vlan_fail",
    "psc_error_60",
    "push_timeout",
    # family 9: resets and power
    "nic_fw_reset_unsupported",
    "chassis_no_power_drain",
    "powercycle_is_warm",
    # family 10: NV config
    "mode_revert_on_fw_reset",
    "mode_revert_on_config_reset",
    "inconsistent_bf2_tuple",
    # family 11: boot
    "uefi_boot_loop_no_os",
    "secure_boot_db_missing_ms_ca",
    "kernel_panic_crashdump",
    # family 12: host side
    "host_pf_unbound_after_push",
    "mlx5_probe_timeout",
    "nic_health_compromised",
    "link_down",
    "link_type_ib",
    # family 13: inventory
    "versions_empty",
    "bios_attr_missing_nicmode",
    "version_mismatch",
    # family 14: recovery
    "golden_image_recovery_available",
    # family 15: noise
    "clock_skew",
    "sel_flood",
]
"""Names of the injectable faults, one per row of section 7.6."""

FAULT_KINDS: tuple[str, ...] = get_args(FaultKind)

InstallStage = Literal["decompress", "os_write", "atf_uefi", "nic_fw", "bmc_cec", "reboot"]
"""Installer stages of section 7.4 item 1, in order."""

# Parameters each fault needs; checked by Fault's validator so a plan cannot omit them.
_REQUIRED: dict[str, tuple[str, ...]] = {
    "bmc_unreachable": ("duration_s",),
    "bmc_slow": ("latency_s",),
    "bmc_503_window": ("duration_s",),
    "account_locked_after": ("count",),
    "background_copy_in_progress": ("duration_s",),
    "transfer_slow": ("rate_Bps",),
    "transfer_fail_at": ("at_pct",),
    "task_stall": ("at_pct",),
    "install_hang": ("stage",),
    "link_down": ("port",),
    "clock_skew": ("skew_s",),
    "sel_flood": ("count",),
}


class Fault(Spec):
    """One injected fault with its parameters (section 7.6)."""

    kind: FaultKind
    """Fault family member, e.g. ``transfer_fail_at``."""
    duration_s: float | None = Field(default=None, gt=0)
    """Seconds the fault lasts from injection (unreachable, 503 window, background copy)."""
    latency_s: float | None = Field(default=None, ge=0)
    """Extra response latency in wall seconds for ``bmc_slow``."""
    p_timeout: float = Field(default=0.0, ge=0, le=1)
    """Probability that a request to a slow BMC hangs instead of answering (``bmc_slow``)."""
    count: int | None = Field(default=None, ge=1)
    """Failed logins before lockout (``account_locked_after``) or SEL entries (``sel_flood``)."""
    rate_Bps: float | None = Field(default=None, gt=0)
    """Image transfer rate in bytes/s for ``transfer_slow``."""
    at_pct: float | None = Field(default=None, ge=0, le=100)
    """Transfer percentage where the transfer fails or the task stalls."""
    stage: InstallStage | None = None
    """Installer stage that never finishes (``install_hang``)."""
    port: int | None = Field(default=None, ge=0, le=1)
    """Network port index (0 or 1) for ``link_down``."""
    skew_s: float | None = None
    """BMC clock offset in seconds for ``clock_skew``."""
    force_succeeds: bool = True
    """For RShim ownership faults: whether a forced BMC grant takes RShim anyway."""
    host_doca: str = ""
    """Host DOCA version reported by ``version_mismatch`` (empty: an older one is made up)."""

    @model_validator(mode="after")
    def _check_params(self) -> Fault:
        missing = [name for name in _REQUIRED.get(self.kind, ()) if getattr(self, name) is None]
        if missing:
            raise ValueError(f"fault {self.kind!r} needs {', '.join(missing)}")
        return self


class DeviceFaults(Spec):
    """The faults planned for one device, by device index or serial."""

    device: int | str
    """Device index in the fleet (0-based) or its serial number (``MT2328XZ0001``)."""
    faults: tuple[Fault, ...]
    """Faults injected when the fleet starts."""


class FaultPlan(Spec):
    """A YAML fault plan: named faults per device plus fleet-wide random priors."""

    devices: tuple[DeviceFaults, ...] = ()
    """Faults for named devices."""
    priors: dict[FaultKind, float] = Field(default_factory=dict)
    """Probability (0-1) that each device draws this fault (parameterless faults, or defaults)."""
    seed: int = 0
    """Seed of the generator that draws the priors (same seed, same faulty devices)."""

    @model_validator(mode="after")
    def _check_priors(self) -> FaultPlan:
        for kind, p in self.priors.items():
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"prior of {kind!r} is {p}; a probability lies in [0, 1]")
            if kind in _REQUIRED:
                raise ValueError(f"prior {kind!r} needs parameters; plan it per device instead")
        return self


class Timings(Spec):
    """Default durations of the device state machines (section 7.2-7.4 of the reference)."""

    bootrom_to_uefi_s: float = 10.0
    """BootRom -> BL2 -> BL31 -> UEFI, s (7.2: 10 s, range 5-20 s) [S1]."""
    uefi_to_os_starting_s: float = 15.0
    """UEFI -> OsStarting, s (7.2: 15 s, range 5-40 s) [S1]."""
    os_starting_to_running_s: float = 40.0
    """OsStarting -> OsIsRunning, s (7.2: 40 s, range 20-120 s) [S1]."""
    running_to_ready_s: float = 60.0
    """OsIsRunning -> "DPU is ready" in the RShim log, s (7.2: 60 s, range 30-180 s) [S1]."""
    arm_shutdown_s: float = 15.0
    """Graceful Arm shutdown before a restart, s (1.8: graceful shutdown <= 15 s) [S35]."""
    bmc_poll_s: float = 30.0
    """Period at which the BMC samples the Arm state over NC-SI, s (7.2, 1.5) [S29]."""
    bmc_boot_s: float = 60.0
    """BMC Starting window answering 503, s (7.3: 30-90 s) [S8][S6]."""
    bmc_reset_s: float = 120.0
    """BMC unavailable after Manager.Reset, s (7.3: 60-180 s; tools wait <= 3 min) [S8]."""
    inventory_delay_s: float = 2.0
    """FirmwareInventory appears after Redfish is up, s (7.3: 2 s BF3, 6-8 s BF2) [S33]."""
    arm_versions_delay_s: float = 120.0
    """Arm-sourced versions stay empty after the Arm boots, s (7.3: ~2 min) [S32]."""
    transfer_rate_Bps: float = 5e6
    """Per-BMC HTTP image transfer rate, bytes/s (1.5: 1255 MB at ~5 MB/s) [S4]."""
    scp_transfer_rate_Bps: float = 1.62 * 1024**2
    """SCP/rshim push rate, bytes/s (1.1: 896 MiB in 9 min 12 s at 1.62 MiB/s) [S5]."""
    decompress_s: float = 60.0
    """Installer: decompress the tarball, s (7.4: installer 5-15 min in total) [S5] (inference split)."""
    os_write_s: float = 540.0
    """Installer: write the Arm OS to eMMC/NVMe, s. Chosen so the default end-to-end install
    (transfer + installer + boot) is ~20 min, the default of 7.4 item 1 [S4][S8]; the installer
    then takes 13 min, inside its 5-15 min range."""
    atf_uefi_s: float = 60.0
    """Installer: ATF/UEFI capsule, s (inside the 5-15 min installer range)."""
    nic_fw_s: float = 120.0
    """Installer: NIC firmware update, s (7.4: 1-3 min) [S23]."""
    bmc_cec_s: float = 180.0
    """Installer: BMC/CEC update over VLAN 4040 when BMC_PASSWORD is given, s (inference)."""
    bmc_update_task_s: float = 300.0
    """Multipart BMC/CEC update task 0 -> 100 %, s (7.4 item 3: 3-10 min) (inference)."""
    background_copy_s: float = 300.0
    """ERoT background copy after a BMC/CEC update, s (7.4 item 3: 2-10 min) [S8]."""
    host_power_cycle_s: float = 10.0
    """Host off time during a cold power cycle, s (inference: platform BMC off/on delay)."""

    @property
    def bundle_install_s(self) -> float:
        """Installer time of a BF-Bundle without BMC_PASSWORD, s: decompress + OS write + ATF/UEFI
        + NIC firmware (no BMC/CEC step)."""
        return self.decompress_s + self.os_write_s + self.atf_uefi_s + self.nic_fw_s

    @property
    def boot_to_versions_s(self) -> float:
        """From the Arm's reset until a rollout can verify versions, s: BootRom->UEFI ->
        OsStarting -> OsIsRunning, the wait until the BMC learns the Arm versions, and one BMC
        NC-SI poll period."""
        return (
            self.bootrom_to_uefi_s
            + self.uefi_to_os_starting_s
            + self.os_starting_to_running_s
            + self.arm_versions_delay_s
            + self.bmc_poll_s
        )


class Credentials(Spec):
    """BMC account and lockout policy."""

    username: str = "root"
    """Factory BlueField BMC user (1.4: BMC_USER default root) [S21]."""
    password: str = "0penBmc"
    """Factory BlueField BMC password (NVIDIA BMC docs: default 0penBmc, change on first login)."""
    lockout_threshold: int = Field(default=10, ge=0)
    """Failed logins before lockout; 0 disables (inference: OpenBMC pam_faillock deny default)."""
    lockout_duration_s: float = Field(default=300.0, ge=0)
    """Seconds an account stays locked (inference: OpenBMC AccountLockoutDuration default)."""


class EmulatorSettings(Spec):
    """Everything the emulator needs to serve a fleet: sizes, clock, addressing, timings, faults."""

    dpus: int = Field(default=1, ge=1, le=60000)
    """Number of emulated DPUs, one per server (loopback has room for 60,000 addresses here)."""
    seed: int = 0
    """Seed for identities and fault priors (same seed, same fleet)."""
    time_scale: float = Field(default=1.0, ge=0)
    """Virtual seconds per wall second when serving; 0 means the clock only moves through the
    admin API (fully deterministic tests)."""
    port: int = Field(default=18000, ge=0, le=65535)
    """TCP port shared by every address (0: pick a free one for the aggregator's address)."""
    generation: Literal["BF2", "BF3"] = "BF3"
    """BlueField generation of every card."""
    profile: Literal["A", "B", "C"] = "C"
    """BMC software profile (7.9): A = BF-23.10, B = BF-24.04-24.10, C = BF-25.x."""
    mode: Literal["DpuMode", "NicMode"] = "DpuMode"
    """Operation mode at start."""
    rack_size: int = Field(default=32, ge=1)
    """Servers per rack sharing one artifact link (inference: 32 1U servers per rack)."""
    rack_bandwidth_Bps: float = Field(default=125e6, gt=0)
    """Shared per-rack artifact bandwidth, bytes/s (6: the OOB port/switch is 1 GbE) [S97]."""
    tls: bool = False
    """Serve HTTPS with a self-signed certificate, as real BMCs do (default plain HTTP)."""
    platform_bmcs: bool = True
    """Serve a platform-BMC facade per server on 127.1.X.Y."""
    bmc_starting: bool = False
    """Start every BMC in the Starting state (503 for ``timings.bmc_boot_s``)."""
    credentials: Credentials = Credentials()
    """BMC account and lockout policy."""
    timings: Timings = Timings()
    """Default durations."""
    faults: FaultPlan = FaultPlan()
    """Faults injected at start."""
