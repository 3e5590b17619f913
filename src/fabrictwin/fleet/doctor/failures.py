"""Common failure modes of section 1.9 seen from the host (RShim, boot, firmware, install, links).

Ranks interleave with :mod:`.rules` (see there for the order and why).
"""

from __future__ import annotations

import re

from fabrictwin.fleet.doctor.facts import Facts
from fabrictwin.fleet.doctor.finding import Finding, find
from fabrictwin.fleet.doctor.parsers import Line, field_value, parse_json


def psc_error(f: Facts) -> Finding | None:
    ev = f.rshim_grep(r"PSC error|PSC BR_EXIT timeout")
    fix = "Boot ROM/PSC failure: cold power cycle via the BMC; if it persists, push a BFB over RShim or RMA"
    return find(
        "psc-error", 10, "fault", "BlueField boot ROM (PSC) failed", ev, fix, "1.9 PSC/boot ROM failure"
    )


def secure_boot(f: Facts) -> Finding | None:
    ev = f.rshim_grep(r"Failed to boot 'ubuntu0'|Failed to boot 'NET-NIC|Start PXE over IPv4")
    # the OS entry failing alone is a missing OS; secure boot shows the fall-through to network boot
    if not any("ubuntu0" in ln.text for ln in ev) or not any(
        "NET-NIC" in ln.text or "PXE" in ln.text for ln in ev
    ):
        return None
    fix = (
        "Secure boot rejected the OS loader: add the Microsoft UEFI CA 2011 cert to db (or enrol "
        "your own keys) via the BMC"
    )
    return find(
        "secure-boot-db",
        18,
        "fault",
        "Arm OS refused by UEFI secure boot, falling back to PXE",
        ev,
        fix,
        "1.9 secure boot key",
    )


def kernel_panic(f: Facts) -> Finding | None:
    ev = f.rshim_grep(r"Kernel panic|OsCrashDump") + f.grep("redfish-system", r"OsCrashDump")
    fix = (
        "Arm kernel panicked: collect the crash dump from the BMC (LogServices/Dump), reinstall the "
        "BFB if it repeats"
    )
    return find("arm-kernel-panic", 19, "fault", "Arm OS kernel panic", ev, fix, "7.6 family 11")


def fw_staged(f: Facts) -> Finding | None:
    running, flashed = f.flint.get("FW Version(Running)"), f.flint.get("FW Version")
    if running is None or flashed is None or field_value(running) == field_value(flashed):
        return None
    fix = (
        "New NIC firmware is flashed but not running: mlxfwreset -l 3 --sync 1 r if supported, else "
        "host power cycle"
    )
    return find(
        "fw-staged",
        24,
        "config",
        "NIC firmware staged, not active",
        [flashed, running],
        fix,
        "1.9 staged not active",
    )


def rshim_conflict(f: Facts) -> Finding | None:
    ev = f.grep("systemctl-status-rshim", r"another backend already attached") + f.grep(
        "dmesg", r"another backend already attached"
    )
    fix = (
        "RShim is owned by the other side (BMC vs host): stop the host rshim service or disable BMC "
        "RShim, then retry"
    )
    return find(
        "rshim-owned-elsewhere",
        37,
        "config",
        "RShim already attached by another backend",
        ev,
        fix,
        "1.9 RShim owned",
    )


def unbound_pfs(f: Facts) -> list[Line]:
    """Network PFs that ``lspci -k`` shows with no driver in use."""
    return [fn.line for fn in f.pfs if f.has("lspci-k") and not fn.driver]


def pf_unbound(f: Facts) -> Finding | None:
    ev = unbound_pfs(f)
    if not ev or "not found" in f.text("modinfo-mlx5") or not any(fn.modules for fn in f.pfs):
        return None
    fix = (
        "mlx5_core is installed but not bound: reload it (modprobe -r mlx5_core; modprobe mlx5_core) "
        "or bind the PFs"
    )
    return find(
        "pf-unbound", 38, "fault", "Host PFs present but no driver bound", ev, fix, "1.9 host PFs unbound"
    )


def link_down(f: Facts) -> Finding | None:
    nets = {f.netdev_of(fn.bdf) for fn in f.pfs} - {""}
    ev = [ln.line for ln in f.links if ln.name in nets and not ln.carrier]
    fix = "Port has no carrier: check cable/transceiver and the switch port; compare LinkStatus in Redfish"
    return find("link-down", 42, "fault", "PF netdev without carrier", ev, fix, "7.6 family 12")


_INSTALL: tuple[tuple[str, str, str, str], ...] = (
    (
        "install-push-timeout",
        r"write error: Connection timed out",
        "BFB push timed out on /dev/rshimN/boot",
        "Check RShim ownership and the boot mode; retry the push, or use the BMC path",
    ),
    (
        "install-partial",
        r"NIC firmware update failed",
        "BFB installed the OS but the NIC firmware update failed",
        "Update NIC firmware separately (mlxfwmanager/fwBundle) or reinstall; the installer exits 0 on this",
    ),
    (
        "install-vlan",
        r"Failed to create VLAN|Failed to access BMC|Skipping BMC components",
        "Installer could not reach the BMC; BMC/CEC components skipped",
        "Check VLAN 4040 between Arm and BMC",
    ),
    (
        "install-corrupt-image",
        r"INTEGRITY_FAIL|mlx-mkbfb.*(corrupt|error)|Invalid FW Package|bfsbverify.*fail",
        "BFB image corrupt, unsigned or for another BlueField generation",
        "Re-download and verify the BFB (checksum, bfsbverify), and use the image of this generation",
    ),
    (
        "install-bmc-token",
        r"Failed to get BMC token",
        "Installer rejected by the BMC (bad credentials in bf.cfg)",
        "Fix BMC_USER/BMC_PASSWORD in bf.cfg",
    ),
)


def installer(f: Facts) -> list[Finding]:
    out: list[Finding] = []
    for i, (cause, pattern, title, fix) in enumerate(_INSTALL):
        ev = f.grep("bfb-install-log", pattern) + f.rshim_grep(pattern)
        found = find(cause, 30 + i, "fault", title, ev, fix, "1.9 install failures")
        if found:
            out.append(found)
    return out


def _release(text: str) -> str:
    """``MLNX_OFED_LINUX-24.10-2.1.8`` / ``DOCA_2.9...`` -> the release branch ``24.10`` ('' if none)."""
    m = re.search(r"(\d{2}\.\d{2})-\d", text)
    return m.group(1) if m else ""


def version_mismatch(f: Facts) -> Finding | None:
    host = f.text("ofed-info-s").strip().rstrip(":")
    arm = str(parse_json(f.text("redfish-inventory-ofed")).get("Version", ""))
    if not _release(host) or not _release(arm) or _release(host) == _release(arm):
        return None
    ev = f.grep("ofed-info-s", re.escape(host)) + f.grep("redfish-inventory-ofed", r'"Version"')
    fix = "Align the host DOCA/MLNX driver release with the BFB on the Arm (and its NIC firmware)"
    title = f"Host driver release {_release(host)} differs from the Arm's {_release(arm)}"
    return find("version-mismatch", 54, "config", title, ev, fix, "1.9 version mismatch")


def bios_nicmode_missing(f: Facts) -> Finding | None:
    attributes = parse_json(f.text("redfish-bios")).get("Attributes")
    if not isinstance(attributes, dict) or "NicMode" in attributes:
        return None
    ev = f.grep("redfish-bios", r'"Attributes"')
    fix = "ATF/UEFI are too old to expose NicMode to the BMC: install a newer BFB before setting the mode"
    return find(
        "bios-nicmode-missing",
        56,
        "config",
        "BMC BIOS attributes lack NicMode",
        ev,
        fix,
        "1.9 version mismatch",
    )


def install_stalled(f: Facts) -> Finding | None:
    ev = f.grep("redfish-system", r'"OemLastState":\s*"FirmwareUpdateInProgress"')
    if not ev:
        return None
    started = f.rshim_grep(r"Start install|Start decomp|Found bf.cfg")
    finished = f.rshim_grep(r"Linux up|DPU is ready|Installation finished")
    if started and finished and finished[-1].number > started[-1].number:
        return None
    fix = (
        "A BFB install is running or hung: check the BMC task (TaskState, PercentComplete); installs "
        "take 10-40 min (reference 7.4). If it stays, cold cycle through the BMC and push again"
    )
    title = "BFB install in progress or hung (Arm in FirmwareUpdateInProgress, never ready)"
    return find(
        "install-stalled", 27, "fault", title, ev + started[-1:], fix, "1.9 task stall; 7.6 install_hang"
    )
