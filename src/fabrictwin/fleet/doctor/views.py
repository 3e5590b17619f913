"""Host views: the saved outputs the doctor reads, and where they come from.

One view per command. In a folder (``--from-dir``) each view is a file named after the view
(``mlxconfig-q.txt``, ``redfish-system.json``; the extension is optional). Over SSH
(``--ssh HOST``) the commands below run through the system ``ssh`` binary. From the emulator
(``--emulator URL``) the same names are its admin host views (see docs/emulator.md) and the
Redfish resources come from the DPU's BMC.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fabrictwin.errors import NotFound
from fabrictwin.fleet.doctor.parsers import parse_mst

# view -> command run on the host over SSH ("" = not collected over SSH). {dev} is the MST device
# of the first PF, {bdf} its PCI address (found from `mst status -v` first).
SSH_COMMANDS: dict[str, str] = {
    "mst-status-v": "mst status -v",
    "mlxconfig-q": "mlxconfig -d {dev} q",
    "lspci-k": "lspci -d 15b3: -k",
    "ip-br-link": "ip -br link",
    "devlink-eswitch-show": "devlink dev eswitch show pci/0000:{bdf}",
    "flint-q": "flint -d {dev} q",
    "dmesg": "dmesg",
    "rshim-misc": "cat /dev/rshim0/misc",
    "systemctl-status-rshim": "systemctl status rshim --no-pager",
    "modinfo-mlx5": "modinfo mlx5_core",
    "ofed-info-s": "ofed_info -s",
}
FILE_ONLY: tuple[str, ...] = (
    "lspci",
    "bfb-install-log",
    "redfish-system",
    "redfish-oem-nvidia",
    "redfish-straps",
    "redfish-bios",
    "redfish-inventory-ofed",
    "bmc-rshim-misc",
)
"""Views read from saved files, Redfish or the BMC shell only (they live on the BMC, not the host)."""
KNOWN_VIEWS: tuple[str, ...] = (*SSH_COMMANDS, *FILE_ONLY)


@dataclass(frozen=True)
class Views:
    """Texts of the views that could be collected, and why the others could not."""

    source: str
    texts: dict[str, str]
    missing: dict[str, str] = field(default_factory=dict)


def from_dir(folder: str | Path) -> Views:
    """Read every known view present in ``folder``.

    Raises:
        NotFound: the folder does not exist or holds none of the known views.
    """
    root = Path(folder)
    if not root.is_dir():
        raise NotFound(f"{root}: no such folder of saved command outputs")
    texts: dict[str, str] = {}
    for name in KNOWN_VIEWS:
        for candidate in (root / f"{name}.txt", root / f"{name}.json", root / f"{name}.log", root / name):
            if candidate.is_file():
                texts[name] = candidate.read_text(encoding="utf-8", errors="replace")
                break
    if not texts:
        raise NotFound(
            f"{root}: none of the expected files ({', '.join(f'{v}.txt' for v in SSH_COMMANDS)}, ...)"
        )
    missing = {name: "no file" for name in KNOWN_VIEWS if name not in texts}
    return Views(f"dir:{root}", texts, missing)


Runner = Callable[[list[str]], tuple[int, str]]
"""Runs an argv and returns (exit status, stdout+stderr). Injected so tests need no ssh."""


def ssh_runner(timeout_s: float = 60.0) -> Runner:
    """A runner that calls the system ``ssh`` binary (batch mode: never prompts).

    ``timeout_s`` is an operational bound per command (dmesg on a busy host takes seconds),
    not a model constant.
    """

    def run(argv: list[str]) -> tuple[int, str]:
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, check=False)
        except subprocess.TimeoutExpired:
            return 124, f"timed out after {timeout_s:g} s"
        return done.returncode, done.stdout + done.stderr

    return run


SSH_FAILED = 255
"""``ssh`` exits 255 when the connection itself fails (ssh(1), EXIT STATUS)."""


def from_ssh(host: str, runner: Runner | None = None) -> Views:
    """Run the view commands on ``host`` over SSH.

    A command that fails on the host still yields its output (``cat: /dev/rshim0/misc: No such
    file or directory`` is evidence); only an SSH-level failure makes a view missing.

    Never raises for an unreachable host: every view is then missing, with the reason.
    """
    run = runner or ssh_runner()
    base = ["ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", host, "--"]
    texts: dict[str, str] = {}
    missing: dict[str, str] = {}
    dev, bdf = "", ""
    for name, template in SSH_COMMANDS.items():
        if ("{dev}" in template and not dev) or ("{bdf}" in template and not bdf):
            missing[name] = "no MST device found by mst status -v"
            continue
        status, output = run([*base, template.format(dev=dev, bdf=bdf)])
        if status in (SSH_FAILED, 124):
            missing[name] = f"ssh failed ({status}): {output.strip()[:200]}"
            continue
        texts[name] = output
        if name == "mst-status-v":
            dev, bdf = _first_device(output)
    return Views(f"ssh:{host}", texts, missing)


def _first_device(mst_text: str) -> tuple[str, str]:
    devices = sorted(parse_mst(mst_text), key=lambda d: d.pci)
    return (devices[0].mst, devices[0].pci) if devices else ("", "")
