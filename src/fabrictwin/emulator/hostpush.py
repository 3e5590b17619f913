"""BFB install from the host through its own RShim (``bfb-install -r rshim0``, 7.4 item 2).

Same device-side flow as a push from the BMC: the stream soft-resets the Arm, the installer
runs, the Arm reboots. The host needs its RShim function and must own it (only one backend at
a time; 1.2) [S10][S12]. ``bfb-install`` exits 0 even when the log shows a partial install
(1.3) [S11]; completion is detected from the RShim log markers (``DPU is ready``, ``Linux up``,
``finished``, ``CRITICAL ERROR``) [S19][S20].
"""

from __future__ import annotations

from fabrictwin.emulator.device import Device
from fabrictwin.emulator.images import Image
from fabrictwin.emulator.install import run_installer
from fabrictwin.emulator.links import SharedLink, Transfer

DONE_MARKERS = ("DPU is ready", "Linux up", "Rebooting", "finished", "CRITICAL ERROR")
"""Log lines at which ``bfb-install`` stops waiting (1.3) [S19][S20]."""


def host_push(dev: Device, image: Image) -> str:
    """Start ``bfb-install -b <image> -r rshim0`` on the host; returns the first output line.

    The refusal texts are what the host tooling prints when RShim is missing or held by the BMC.
    """
    if not dev.host_rshim_present:
        return "Error: rshim0 not found (is the rshim service running?)"
    if dev.rshim_owner == "bmc":
        return "Error: another backend already attached"
    dev.rshim_owner = "host"
    # The push goes over the host's own PCIe RShim, not the rack's artifact link; its rate is
    # the RShim push rate measured in [S5] (1.62 MiB/s).
    link = SharedLink(dev.clock, dev.t.scp_transfer_rate_Bps)
    transfer = Transfer(float(image.size_bytes), dev.t.scp_transfer_rate_Bps, on_stop=lambda: None)
    transfer.on_stop = lambda: _pushed(dev, image)
    dev.host_push_log = ["Pushing bfb"]
    dev.installing = True
    dev.log(f"host bfb-install {image.name} start")
    dev.stream_boot()
    link.start(transfer)
    return "Pushing bfb"


def _pushed(dev: Device, image: Image) -> None:
    dev.host_push_log.append(f"{image.size_bytes / 1024**3:.2f}GiB pushed")
    dev.host_push_log.append("Collecting BlueField booting status. Press Ctrl+C to stop…")
    dev.log("host bfb-install push done")
    if image.generation != dev.ident.generation:
        dev.rshim("ERR[MISC]: CRITICAL ERROR: Invalid FW Package")
        dev.installing = False
        dev.reset_arm("bfb rejected")
        return
    run_installer(dev, image)


def bfb_install_output(dev: Device) -> str:
    """What ``bfb-install`` has printed so far: its own lines, then the RShim log up to the
    first completion marker (format inferred from rshim-user-space ``bfb-install``) [S17][S19]."""
    if not dev.host_push_log:
        return ""
    lines = list(dev.host_push_log)
    if len(lines) > 1:
        for entry in dev.rshim_log:
            lines.append(f" {entry}")
            if any(marker in entry for marker in DONE_MARKERS) and "Rebooting" not in entry:
                break
    return "\n".join(lines) + "\n"
