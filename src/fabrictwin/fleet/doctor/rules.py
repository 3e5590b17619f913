"""Diagnosis rules: the NIC-mode decision table (section 2.6) and failure modes (section 1.9).

Each rule reads :class:`Facts` and returns a :class:`Finding` with the evidence lines, or None.
Rules carry a fixed rank; findings are reported lowest rank first. The order is causal: a
direct signature of a broken device (boot ROM error, dead or unhealthy firmware, failed probe)
comes before configuration states it would mask (staged mode, reverted mode, link type), which
come before expectations (NIC mode by design, eswitch in legacy mode), and the bare symptom
"a PF has no netdev" comes last, only when nothing above explains it.
"""

from __future__ import annotations

from fabrictwin.fleet.doctor.facts import BF2_TUPLE, CANONICAL_TUPLES, MODE_PARAM, Facts
from fabrictwin.fleet.doctor.failures import (
    bios_nicmode_missing,
    fw_staged,
    install_stalled,
    installer,
    kernel_panic,
    link_down,
    pf_unbound,
    psc_error,
    rshim_conflict,
    secure_boot,
    unbound_pfs,
    version_mismatch,
)
from fabrictwin.fleet.doctor.finding import Finding, Rule, find
from fabrictwin.fleet.doctor.parsers import code_of

__all__ = ["RULES", "Finding", "installer", "no_netdev"]


def dead_firmware(f: Facts) -> Finding | None:
    ev = f.grep("flint-q", r"65535\.65535\.65535") + f.grep("dmesg", r"firmware version: 65535\.65535\.65535")
    fix = (
        "NIC firmware is not running: dump the RShim log (DISPLAY_LEVEL 2), mstdump, power cycle, "
        "reflash the fwBundle/BFB"
    )
    return find(
        "dead-firmware", 12, "fault", "NIC firmware dead (version 65535.65535.65535)", ev, fix, "2.6 row 3"
    )


def health_compromised(f: Facts) -> Finding | None:
    ev = f.grep("dmesg", r"health compromised|Health issue observed|firmware internal error")
    fix = (
        "NIC firmware unhealthy (in NIC mode: firmware did not get its ICM from the Arm): "
        "collect mstdump and "
        "the RShim log, cold power cycle, update NIC firmware to match the driver"
    )
    return find(
        "nic-health", 14, "fault", "NIC firmware health compromised", ev, fix, "2.6 row 3; 1.9 NIC health"
    )


def probe_failed(f: Facts) -> Finding | None:
    pattern = (
        r"Waiting for FW initialization|pre-initializing state|mlx5_init_one failed|probe.*failed with error"
    )
    ev = f.grep("dmesg", pattern)
    fix = (
        "Host mlx5 probe timed out waiting for the NIC firmware: in DPU mode the Arm must "
        "configure the NIC first "
        "(check the Arm boots); otherwise power cycle and align NIC firmware with the host driver"
    )
    return find(
        "mlx5-probe-failed",
        16,
        "fault",
        "Host driver probe failed (firmware never initialised)",
        ev,
        fix,
        "2.6 row 3",
    )


def mode_staged(f: Facts) -> Finding | None:
    param = f.nv.get(MODE_PARAM)
    if param is None or not param.pending:
        return None
    fix = (
        "The mode change is staged (Next Boot) but not applied: a warm reboot or a BMC PowerCycle that only "
        "warm-resets does not reload NV config. Cold power cycle the host (AC / ACPowercycle); after one "
        "failed cycle flag ManualPowerCycleRequired"
    )
    title = f"Mode change staged, not applied ({param.current} -> {param.next_boot})"
    if f.expected_mode is not None and f.mode("next_boot") != f.expected_mode:
        # the staged value undoes what the operator set: mlxconfig reset writes defaults (2.2 [S59])
        title = (
            f"Mode will revert to {f.mode('next_boot')} at the next power cycle ({param.current} -> "
            f"{param.next_boot})"
        )
        fix = (
            f"mlxconfig reset staged the default mode: set {MODE_PARAM} for {f.expected_mode} again, "
            f"then cold cycle"
        )
        return find("mode-reverted", 20, "config", title, [param.line], fix, "2.6 row 5")
    if param.next_boot == param.default != param.current:
        title += "; next boot is the factory default, as after mlxconfig reset"
    return find("mode-staged", 20, "config", title, [param.line], fix, "2.6 row 1")


def nv_staged(f: Facts) -> Finding | None:
    ev = [p.line for p in f.nv.values() if p.pending and p.name != MODE_PARAM]
    fix = "NV configuration changes wait for the next cold power cycle (mlxconfig Current != Next Boot)"
    return find("nv-staged", 22, "config", "Other NV configuration staged, not applied", ev, fix, "2.2; 1.8")


def bf2_tuple(f: Facts) -> Finding | None:
    codes = f.bf2_tuple()
    if codes is None or codes in CANONICAL_TUPLES or "BlueField2" not in f.device_type:
        return None
    ev = [f.nv[name].line for name in BF2_TUPLE]
    fix = (
        "Set all five INTERNAL_CPU_* parameters to one canonical tuple (DPU 1,0,0,0,0 or NIC "
        "1,1,1,1,1), then power cycle"
    )
    return find(
        "bf2-tuple", 26, "config", f"Inconsistent BlueField-2 mode tuple {codes}", ev, fix, "2.6 row 4"
    )


def no_arm_os_in_dpu_mode(f: Facts) -> Finding | None:
    if f.mode() != "dpu" or (f.nv.get(MODE_PARAM) is not None and f.nv[MODE_PARAM].pending):
        return None
    ev = f.arm_log_stuck_in_uefi() + f.grep("redfish-system", r'"OemLastState":\s*"UEFI"')
    if not ev:
        return None
    ev = ([f.nv[MODE_PARAM].line] if MODE_PARAM in f.nv else []) + ev
    if f.expected_mode == "nic":
        title = "Mode reverted to DPU (mlxconfig reset or fw reset), and the Arm has no OS"
    else:
        title = "DPU mode but the Arm OS is not running: host networking stays blocked"
    fix = (
        "In DPU mode the host network opens only when the Arm vswitch is up. If NIC mode was intended, "
        "re-apply INTERNAL_CPU_OFFLOAD_ENGINE=1 and cold power cycle; otherwise install a BFB "
        "and boot the Arm"
    )
    return find("dpu-mode-no-arm-os", 28, "config", title, ev, fix, "2.6 row 5; 1.9 boot stuck in UEFI")


def mode_unexpected(f: Facts) -> Finding | None:
    if (
        f.expected_mode is None
        or f.mode() in (None, f.expected_mode)
        or f.mode("next_boot") == f.expected_mode
    ):
        return None
    ev = [f.nv[MODE_PARAM].line] if MODE_PARAM in f.nv else f.grep("redfish-oem-nvidia", r'"Mode"')
    fix = (
        f"Re-apply the {f.expected_mode.upper()} mode setting and cold power cycle (mlxconfig reset / "
        f"fw reset revert it)"
    )
    return find(
        "mode-reverted",
        29,
        "config",
        f"Device is in {f.mode()} mode, {f.expected_mode} was intended",
        ev,
        fix,
        "2.6 row 5",
    )


def link_type_ib(f: Facts) -> Finding | None:
    ev = [p.line for n, p in f.nv.items() if n.startswith("LINK_TYPE_P") and code_of(p.current) == 1]
    ev += [fn.line for fn in f.pci if fn.kind == "Infiniband controller"]
    ev += [ln.line for ln in f.links if ln.name.startswith("ib")]
    fix = "Ports run InfiniBand (netdevs are ib*): set LINK_TYPE_P1/P2=2 (ETH) and reset, or use the IB names"
    return find(
        "link-type-ib", 35, "config", "Ports are in InfiniBand mode, not Ethernet", ev, fix, "2.6 row 6"
    )


def rshim_absent(f: Facts) -> Finding | None:
    ev = f.grep("rshim-misc", r"No such file or directory")
    rshim = f.nv.get("INTERNAL_CPU_RSHIM")
    if rshim is not None and code_of(rshim.current) == 1:
        ev.append(rshim.line)
    ev += f.grep("redfish-oem-nvidia", r'"HostRshim":\s*"Disabled"')
    if not ev:
        return None
    fix = (
        "Host RShim is disabled (zero-trust restriction left in place): re-privilege from the "
        "Arm (mlxprivhost p) "
        "or the BMC (HostRshim.Set Enabled), then power cycle; or use the BMC RShim"
    )
    return find(
        "rshim-disabled",
        38,
        "config",
        "Host RShim disabled or absent",
        ev,
        fix,
        "2.6 row 8; 1.9 RShim absent",
    )


def driver_missing(f: Facts) -> Finding | None:
    ev = unbound_pfs(f)
    modinfo = f.grep("modinfo-mlx5", r"not found")
    if not ev or (not modinfo and any(fn.modules for fn in f.pfs)):
        return None
    fix = "Install a DOCA-Host / MLNX driver stack that supports this BlueField"
    return find(
        "driver-missing",
        40,
        "fault",
        "Host driver (mlx5_core) missing or too old",
        ev + modinfo,
        fix,
        "2.6 row 7",
    )


def eswitch_legacy(f: Facts) -> Finding | None:
    if f.mode() != "nic":
        return None
    ev = [ln for _, mode, ln in f.eswitch if mode == "legacy"]
    fix = (
        "In NIC mode representors exist only after the host sets switchdev; run policy on the host "
        "or return to DPU mode"
    )
    return find(
        "eswitch-legacy",
        50,
        "expected",
        "NIC mode: host eswitch in legacy mode, no representors",
        ev,
        fix,
        "2.6 row 9",
    )


MULTI_HOST_STRAPS = ("SocketDirect", "PciPartition0", "PciPartition1")
"""BMC ``Connectx/StrapOptions`` straps that mean a multi-host / socket-direct card (2.5 [S64])."""


def multi_host(f: Facts) -> Finding | None:
    straps = f.straps()
    on = [name for name in MULTI_HOST_STRAPS if straps.get(name) in ("Enabled", True, 1, "1", "true")]
    ev = [ln for name in on for ln in f.grep("redfish-straps", name)]
    fix = "NIC mode is unsupported on multi-host platforms: use DPU mode"
    return find("multi-host", 46, "config", f"Multi-host straps set ({', '.join(on)})", ev, fix, "2.6 row 10")


def nic_mode_by_design(f: Facts) -> Finding | None:
    if f.mode() != "nic" or (MODE_PARAM in f.nv and f.nv[MODE_PARAM].pending):
        return None
    ev = ([f.nv[MODE_PARAM].line] if MODE_PARAM in f.nv else []) + f.grep(
        "redfish-oem-nvidia", r'"Mode":\s*"NicMode"'
    )
    ev += f.grep("redfish-system", r'"OemLastState":\s*"UEFI"')
    fix = (
        "Expected: in NIC mode the BF3 Arm is parked in UEFI and has no OS to reach. Use the BMC; "
        "switch to DPU mode if the Arm is needed"
    )
    return find(
        "nic-mode-by-design",
        48,
        "expected",
        "NIC mode active: Arm unreachable by design",
        ev,
        fix,
        "2.6 row 2",
    )


def no_netdev(f: Facts) -> Finding | None:
    ev = [fn.line for fn in f.pfs_without_netdev()]
    ev += [d.line for d in f.mst if not d.net]
    fix = (
        "A PF has no netdev and no specific cause was found: check dmesg for mlx5, driver binding "
        "and udev naming"
    )
    return find(
        "no-netdev",
        70,
        "fault",
        "Host PF without a network interface",
        sorted(set(ev), key=lambda x: (x.view, x.number)),
        fix,
        "2.6",
    )


RULES: tuple[Rule, ...] = (
    psc_error,
    dead_firmware,
    health_compromised,
    probe_failed,
    secure_boot,
    kernel_panic,
    mode_staged,
    nv_staged,
    fw_staged,
    bf2_tuple,
    no_arm_os_in_dpu_mode,
    mode_unexpected,
    link_type_ib,
    rshim_conflict,
    rshim_absent,
    pf_unbound,
    driver_missing,
    link_down,
    eswitch_legacy,
    multi_host,
    nic_mode_by_design,
    version_mismatch,
    bios_nicmode_missing,
    install_stalled,
)
