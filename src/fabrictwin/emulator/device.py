"""State and state machines of one emulated BlueField card and its on-card BMC.

State variables are those of section 7.1 of ``reference/bluefield-operations.md``; the Arm
boot machine is 7.2 (its states are the values of ``BootProgress.OemLastState``), power and
reset semantics are table 1.8 and 7.4 items 4-6. Everything runs on an injected
:class:`~fabrictwin.emulator.clock.VirtualClock`; every state change is appended to
``trace`` as ``(virtual time s, "subject event")`` so tests can assert whole histories.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from fabrictwin.emulator import nvconfig
from fabrictwin.emulator.clock import Callback, Timer, VirtualClock
from fabrictwin.emulator.device_config import CardConfig
from fabrictwin.emulator.identity import Identity
from fabrictwin.emulator.images import BF2_BFB, CURRENT_BFB, Image
from fabrictwin.emulator.tasks import Task
from fabrictwin.spec.faults import EmulatorSettings, Fault

ARM_SOURCED = ("DPU_ATF", "DPU_UEFI", "DPU_NIC", "DPU_OS", "DPU_BSP", "DPU_OFED")
"""Inventory ids the BMC learns from the Arm over IPMB SDR (1.7) [S32]."""
NIC_MODE_EMPTY = ("DPU_NIC", "DPU_OS")
"""Ids reported empty in NIC mode (1.7) [S34]."""
PRIVILEGES = (
    "HostPrivFlashAccess",
    "HostPrivFwUpdate",
    "HostPrivNicReset",
    "HostPrivNvGlobal",
    "HostPrivNvHost",
    "HostPrivNvInternalCpu",
    "HostPrivNvPort",
    "HostPrivPccUpdate",
)
"""ExternalHostPrivileges fields (2.5) [S64]."""
RSHIM_LOG_BYTES = 1024
"""The RShim log is a 1 KB hardware buffer written by the Arm (1.2) [S15]."""


@dataclass(slots=True)
class LogEntry:
    """One Redfish EventLog/SEL entry."""

    entry_id: int
    time_s: float
    severity: str
    message: str
    message_id: str = "OpenBMC.0.4.Event"


def _firmware_from(image: Image, bmc: str, cec: str) -> dict[str, str]:
    return {
        "BMC_Firmware": bmc,
        "Bluefield_FW_ERoT": cec,
        "DPU_ATF": image.atf,
        "DPU_UEFI": image.uefi,
        "DPU_NIC": image.nic,
        "DPU_OS": image.os,
        "DPU_BSP": image.bsp,
        "DPU_OFED": image.ofed,
        "golden_image_arm": "",
        "golden_image_nic": "",
        "golden_image_config": "",
    }


class Device(CardConfig):
    """One BlueField card + BMC. Public attributes are the state; methods are the inputs."""

    def __init__(self, ident: Identity, clock: VirtualClock, settings: EmulatorSettings) -> None:
        self.ident, self.clock, self.settings, self.t = ident, clock, settings, settings.timings
        self.trace: list[tuple[float, str]] = []
        self.faults: dict[str, Fault] = {}
        self.fault_since: dict[str, float] = {}
        bmc = {"A": "BF-23.10-4", "B": "BF-24.10-24", "C": "BF-25.04-7"}[settings.profile]
        # Section 1.7: BF3 NIC FW is 32.x, BF2 24.x; the BF2 bundle carries its own versions.
        self.installed = CURRENT_BFB if ident.generation == "BF3" else BF2_BFB
        self.fw = _firmware_from(self.installed, bmc, "00.02.0180.0000_n02")
        self.nic_flash = self.fw["DPU_NIC"]
        self.pending: dict[str, str] = {}
        self.nv_default = dict(nvconfig.DEFAULTS)
        self.nv_current = dict(nvconfig.DEFAULTS)
        nvconfig.set_mode(self.nv_current, settings.mode, ident.generation)
        self.nv_next = dict(self.nv_current)
        self.privileges = dict.fromkeys(PRIVILEGES, "Default")
        self.bmc_rshim = "Disabled"
        self.rshim_owner = "none"
        self.host_power = "On"
        self.host_netdevs_bound = True
        self.arm_state = "Off"
        self.dpu_ready = False
        self.os_installed = True
        self.arm_hist: deque[tuple[float, str]] = deque(maxlen=48)
        self.bmc_state = "Enabled"
        self.bmc_up_at = -math.inf  # a steady-state BMC has been up since before the emulation
        self.bmc_view: dict[str, str] = dict.fromkeys(ARM_SOURCED, "")
        self.secure_boot = True
        self.sb_db = ["Microsoft Corporation UEFI CA 2011", "Microsoft Windows Production PCA 2011"]
        self.bios_pending: dict[str, str] = {}
        self.bios_applied: dict[str, str] = {}
        self.secure_boot_pending: bool | None = None
        self.secure_boot_boots = 0
        self.rshim_log: deque[str] = deque()
        self.sel: list[LogEntry] = []
        self.tasks: dict[int, Task] = {}
        self.next_task_id = 1
        self.background_copy_until = -1.0
        self.last_reset_kind = "none"
        self.installing = False
        self.scp_keys: set[str] = set()
        self.host_push_log: list[str] = []
        self.abort_transfer: Callable[[str], None] | None = None
        """Set by the install workflow while an image streams; aborts it with a reason."""
        self._arm_timers: list[Timer] = []
        self._bmc_timers: list[Timer] = []
        self._poll_phase = (ident.index * 7.3) % self.t.bmc_poll_s  # spread NC-SI polls
        self._start_steady(settings)

    # ------------------------------------------------------------------ bookkeeping
    def log(self, event: str) -> None:
        """Append ``event`` to the state trace at the current virtual time."""
        self.trace.append((round(self.clock.now, 6), event))

    def rshim(self, line: str) -> None:
        """Append a line to the 1 KB RShim log ring (oldest lines fall out)."""
        self.rshim_log.append(line)
        while sum(len(x) + 1 for x in self.rshim_log) > RSHIM_LOG_BYTES:
            self.rshim_log.popleft()

    def sel_add(self, severity: str, message: str) -> None:
        """Add a Redfish event-log entry."""
        self.sel.append(LogEntry(len(self.sel) + 1, self.clock.now, severity, message))

    def has(self, kind: str) -> bool:
        """True while fault ``kind`` is active (faults with a duration expire)."""
        fault = self.faults.get(kind)
        if fault is None:
            return False
        expired = fault.duration_s is not None and self.clock.now >= self.fault_since[kind] + fault.duration_s
        return not expired

    def _arm_after(self, delay_s: float, fn: Callback) -> None:
        self._arm_timers.append(self.clock.schedule(delay_s, fn))

    def arm_later(self, delay_s: float, fn: Callback) -> None:
        """Schedule ``fn`` on the Arm's timeline (cancelled when the Arm resets)."""
        self._arm_after(delay_s, fn)

    def _cancel_arm(self) -> None:
        for timer in self._arm_timers:
            timer.cancel()
        self._arm_timers.clear()

    # ------------------------------------------------------------------ derived views
    @property
    def host_rshim_present(self) -> bool:
        """Host sees the RShim PCIe function (INTERNAL_CPU_RSHIM on, no rshim_absent fault)."""
        return self.nv_current["INTERNAL_CPU_RSHIM"] == 0 and not self.has("rshim_absent")

    def observed_arm_state(self) -> str:
        """The Arm state as the BMC last sampled it (NC-SI poll every ``bmc_poll_s``) [S29]."""
        now, poll = self.clock.now, self.t.bmc_poll_s
        sample_t = self._poll_phase + math.floor((now - self._poll_phase) / poll) * poll
        state = self.arm_hist[0][1] if self.arm_hist else self.arm_state
        for t, s in self.arm_hist:
            if t <= sample_t:
                state = s
        return state

    def inventory_version(self, fw_id: str) -> str:
        """The version the BMC reports for ``fw_id`` (empty where the BMC cannot know it)."""
        if fw_id in ARM_SOURCED:
            if self.has("versions_empty") or (self.mode == "NicMode" and fw_id in NIC_MODE_EMPTY):
                return ""
            return self.bmc_view.get(fw_id, "")
        if fw_id.startswith("golden_image") and self.has("golden_image_recovery_available"):
            return {"golden_image_arm": self.fw["DPU_OS"], "golden_image_nic": self.fw["DPU_NIC"]}.get(
                fw_id, "BD-config-image-4.9.2"
            )
        return self.fw.get(fw_id, "")

    # ------------------------------------------------------------------ start
    def _start_steady(self, settings: EmulatorSettings) -> None:
        """Begin as a card that has been running: host on, Arm booted, BMC up (or starting)."""
        self._set_arm("OsIsRunning" if self.mode != "NicMode" else "UEFI")
        self.dpu_ready = self.mode != "NicMode"
        self.bmc_view = {k: self.fw[k] for k in ARM_SOURCED}
        self.rshim("INFO[BL31]: lifecycle GA Secured")
        if self.dpu_ready:
            self.rshim("INFO[MISC]: Linux up")
            self.rshim("INFO[MISC]: DPU is ready")
        if settings.bmc_starting:
            self.boot_bmc(self.t.bmc_boot_s)

    # ------------------------------------------------------------------ Arm boot machine (7.2)
    def _set_arm(self, state: str) -> None:
        self.arm_state = state
        self.arm_hist.append((self.clock.now, state))
        self.log(f"arm {state}")

    def reset_arm(self, reason: str, delay_s: float = 0.0) -> None:
        """Reset the Arm cores now (state Off) and start booting after ``delay_s``."""
        self._cancel_arm()
        self.dpu_ready = False
        self.last_reset_kind = reason
        self._set_arm("Off")
        self._arm_after(delay_s, self.boot_arm)

    def stream_boot(self) -> None:
        """A BFB written to ``/dev/rshim0/boot`` soft-resets the Arm, which boots the stream
        into the installer (7.2: BootRom -> FirmwareUpdateInProgress) [S3][S31]."""
        self._cancel_arm()
        self.dpu_ready = False
        self.last_reset_kind = "bfb push"
        self.rshim_log.clear()
        self._set_arm("BootRom")
        # The installer starts where a normal boot reaches BL2 (0.2 of BootRom->UEFI, see
        # boot_arm): the same inference; the boot stream is consumed by the ROM stage.
        self._arm_after(0.2 * self.t.bootrom_to_uefi_s, lambda: self._set_arm("FirmwareUpdateInProgress"))

    def power_off_arm(self) -> None:
        """Stop the Arm (ForceOff / GracefulShutdown / host off)."""
        self._cancel_arm()
        self.dpu_ready = False
        self._set_arm("Off")

    def boot_arm(self) -> None:
        """BootRom -> BL2 -> BL31 -> UEFI, then OS or park (7.2)."""
        self._set_arm("BootRom")
        self._apply_boot_settings()
        if self.has("psc_error_60"):
            self.rshim("ERR[BL1]: PSC error -60")
            self.log("arm stuck: PSC error -60")
            return
        span = self.t.bootrom_to_uefi_s
        # BL2 and BL31 split the BootRom->UEFI span (inference: ROM and BL2 dominate).
        self._arm_after(0.2 * span, lambda: self._stage("BL2"))
        self._arm_after(0.5 * span, lambda: self._stage("BL31"))
        self._arm_after(span, self._reach_uefi)

    def _apply_boot_settings(self) -> None:
        """Pending BIOS attributes apply at the next Arm boot (7.3 Bios/Settings) [S6]; a
        secure-boot change takes two Arm reboots (NICo waits for two) [S42]."""
        if self.bios_pending:
            self.bios_applied.update(self.bios_pending)
            self.bios_pending.clear()
            self.log("bios settings applied")
        if self.secure_boot_pending is not None:
            self.secure_boot_boots += 1
            if self.secure_boot_boots >= 2:
                self.secure_boot = self.secure_boot_pending
                self.secure_boot_pending = None
                self.log(f"secure boot {'enabled' if self.secure_boot else 'disabled'}")

    def _stage(self, state: str) -> None:
        self._set_arm(state)
        self.rshim(f"INFO[{state}]: start")

    def _reach_uefi(self) -> None:
        self._set_arm("UEFI")
        self.rshim("INFO[UEFI]: eMMC init")
        self._arm_after(self.t.arm_versions_delay_s, self._refresh_versions)
        if self.mode == "NicMode" and self.ident.generation == "BF3":
            self.log("arm parked in UEFI (NIC mode)")
            return
        if self.has("secure_boot_db_missing_ms_ca") and self.secure_boot:
            for line in (
                "Failed to boot 'ubuntu0'",
                "Failed to boot 'NET-NIC_P0-IPV4'",
                ">>Start PXE over IPv4",
            ):
                self.rshim(f"ERR[UEFI]: {line}")
            self.log("arm boot failed: secure boot db lacks Microsoft UEFI CA 2011")
            return
        if not self.os_installed or self.has("uefi_boot_loop_no_os"):
            self.rshim("ERR[UEFI]: Failed to boot 'ubuntu0'")
            self.log("arm UEFI boot loop (no OS)")
            return
        self._arm_after(self.t.uefi_to_os_starting_s, self._os_starting)

    def _os_starting(self) -> None:
        self._set_arm("OsStarting")
        self._arm_after(self.t.os_starting_to_running_s, self._os_running)

    def _os_running(self) -> None:
        self._set_arm("OsIsRunning")
        self.rshim("INFO[MISC]: Linux up")
        if self.has("kernel_panic_crashdump"):
            self._arm_after(30.0, self._panic)  # inference: panics shortly after boot
            return
        self._arm_after(self.t.running_to_ready_s, self._ready)

    def _ready(self) -> None:
        self.dpu_ready = True
        self.rshim("INFO[MISC]: DPU is ready")
        self.log("arm DPU is ready")

    def _panic(self) -> None:
        self._set_arm("OsCrashDumpInProgress")
        self.sel_add("Critical", "BlueField Arm kernel panic; crash dump in progress")
        self._arm_after(60.0, lambda: self._set_arm("OsCrashDumpIsComplete"))

    def _refresh_versions(self) -> None:
        self.bmc_view = {k: self.fw[k] for k in ARM_SOURCED}
        self.log("bmc versions refreshed from Arm")

    # ------------------------------------------------------------------ BMC (7.3)
    def boot_bmc(self, down_s: float) -> None:
        """BMC reboot: Starting (503) for ``down_s``, Arm-sourced versions forgotten."""
        for timer in self._bmc_timers:
            timer.cancel()
        self.bmc_state = "Starting"
        self.bmc_view = dict.fromkeys(ARM_SOURCED, "")
        if self.abort_transfer is not None:  # the BMC process streaming to RShim dies with it
            self.abort_transfer("Transfer aborted: BMC reset")
        self.log("bmc Starting")
        if self.has("task_lost_after_bmc_reboot"):
            self.tasks.clear()
        for kind in [k for k, v in self.pending.items() if k == "BMC_Firmware" and v]:
            self.fw[kind] = self.pending.pop(kind)
        self._bmc_timers.append(self.clock.schedule(down_s, self._bmc_enabled))

    def _bmc_enabled(self) -> None:
        self.bmc_state = "Enabled"
        self.bmc_up_at = self.clock.now
        self.log("bmc Enabled")
        if self.arm_state in ("UEFI", "OsStarting", "OsIsRunning"):
            self._bmc_timers.append(self.clock.schedule(self.t.arm_versions_delay_s, self._refresh_versions))

    # ------------------------------------------------------------------ host power (7.4 item 5)
    def host_power_cycle(self, cold: bool = True) -> None:
        """Power-cycle the server. Cold: NIC firmware reloads (next_boot NV config, staged NIC
        firmware, pending CEC apply) and the Arm reboots. Warm: the card keeps running (1.8)."""
        drained = cold and not self.has("chassis_no_power_drain")
        self.log(f"host power cycle ({'cold' if drained else 'warm'})")
        if drained and self.abort_transfer is not None:  # the Arm stops taking the stream
            self.abort_transfer("cat: write error: Connection timed out (/dev/rshim0/boot)")
        if self.has("mode_revert_on_config_reset"):
            # The host's NIC-config agent runs ``mlxconfig reset`` before re-applying its own
            # settings on every boot, which also resets the mode (2.2 caveat) [S59].
            self.mlxconfig_reset()
        if not drained:
            return
        self.nv_current = dict(self.nv_next)
        if self.nic_flash != self.fw["DPU_NIC"]:
            self.fw["DPU_NIC"] = self.nic_flash
            self.log(f"nic firmware {self.nic_flash} active")
        if "Bluefield_FW_ERoT" in self.pending:
            self.fw["Bluefield_FW_ERoT"] = self.pending.pop("Bluefield_FW_ERoT")
        self.host_netdevs_bound = True
        self.reset_arm("host power cycle", self.t.host_power_cycle_s)
        self.rshim_log.clear()

    def host_off(self) -> None:
        """Server off: the card loses main power; NIC reloads on the next on."""
        self.host_power = "Off"
        self.log("host power Off")
        self.power_off_arm()

    def host_on(self) -> None:
        """Server on after an off: like the second half of a cold cycle."""
        if self.host_power == "On":
            return
        self.host_power = "On"
        self.log("host power On")
        self.nv_current = dict(self.nv_next)
        self.fw["DPU_NIC"] = self.nic_flash
        self.reset_arm("host power on")
