"""Parsers of host-side command outputs, in the formats the real tools print.

Formats: bluefield-operations.md sections 2.2 (``mlxconfig q``: Default / Current / Next Boot,
``*`` marks a pending change [S61]), 2.6 (``mst status -v`` [S1], ``lspci`` [S30],
``devlink dev eswitch show`` [S72], dmesg mlx5 lines [S54][S70]), 1.9 (RShim log markers
[S14], installer messages [S21][S11]). Every parsed item keeps its 1-based line number so a
finding can quote the exact evidence line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Line:
    """One line of a view, for evidence."""

    view: str
    number: int
    text: str

    def __str__(self) -> str:
        return f"{self.view}:{self.number}: {self.text.strip()}"


def lines_of(view: str, text: str) -> list[Line]:
    return [Line(view, i, t) for i, t in enumerate(text.splitlines(), start=1)]


def grep(view: str, text: str, pattern: str) -> list[Line]:
    """Lines matching a regular expression (case-sensitive, like the signatures are printed)."""
    rx = re.compile(pattern)
    return [ln for ln in lines_of(view, text) if rx.search(ln.text)]


@dataclass(frozen=True)
class NvParam:
    """One ``mlxconfig q`` row; values keep their printed form, e.g. ``DISABLED(1)``."""

    name: str
    default: str
    current: str
    next_boot: str
    starred: bool
    line: Line

    @property
    def pending(self) -> bool:
        """Next Boot differs from Current: staged, applied only by a power cycle (section 2.2)."""
        return self.next_boot != self.current


_NV_ROW = re.compile(
    r"^(?P<star>\*?)\s+(?P<name>[A-Z][A-Z0-9_]+(?:\[\d+\])?)\s+(?P<vals>\S+(?:\s+\S+){0,2})\s*$"
)


def parse_mlxconfig(text: str, view: str = "mlxconfig-q") -> tuple[dict[str, NvParam], str]:
    """``mlxconfig -d DEV q`` -> (parameters by name, device type such as ``BlueField3``).

    Accepts the three-column form (Default, Current, Next Boot) and the one-column form older
    tools print (Next Boot only, taken as all three).
    """
    params: dict[str, NvParam] = {}
    device_type = ""
    in_table = False
    for ln in lines_of(view, text):
        if ln.text.strip().startswith("Device type:"):
            device_type = ln.text.split(":", 1)[1].strip()
        if ln.text.strip().startswith("Configurations:"):
            in_table = True
            continue
        m = _NV_ROW.match(ln.text) if in_table else None
        if m is None:
            continue
        vals = m["vals"].split()
        default, current, nxt = (vals * 3)[:3] if len(vals) == 1 else (vals + [vals[-1]] * 3)[:3]
        params[m["name"]] = NvParam(m["name"], default, current, nxt, m["star"] == "*", ln)
    return params, device_type


def code_of(value: str) -> int | None:
    """``DISABLED(1)`` -> 1, ``16`` -> 16, ``True(1)`` -> 1; ``None`` when no number is printed."""
    m = re.search(r"\((\d+)\)$", value) or re.fullmatch(r"(\d+)", value)
    return int(m.group(1)) if m else None


@dataclass(frozen=True)
class MstDevice:
    """One ``mst status -v`` row."""

    device_type: str
    mst: str
    pci: str
    rdma: str
    net: str
    """Netdev name without the ``net-`` prefix; empty when the PF has no netdev."""
    line: Line


def parse_mst(text: str, view: str = "mst-status-v") -> list[MstDevice]:
    """Rows of the ``PCI devices`` table; missing RDMA/NET columns come back empty."""
    out: list[MstDevice] = []
    header: list[tuple[str, int]] = []
    for ln in lines_of(view, text):
        if ln.text.startswith("DEVICE_TYPE"):
            header = [(m.group(0), m.start()) for m in re.finditer(r"\S+", ln.text)]
            continue
        if not header or not ln.text.strip() or ln.text.startswith("-"):
            continue
        cols = _columns(ln.text, header)
        if not cols.get("MST", "").startswith("/dev/mst"):
            continue
        net = cols.get("NET", "").removeprefix("net-")
        out.append(
            MstDevice(cols["DEVICE_TYPE"], cols["MST"], cols.get("PCI", ""), cols.get("RDMA", ""), net, ln)
        )
    return out


def _columns(text: str, header: list[tuple[str, int]]) -> dict[str, str]:
    """Split a fixed-width row by the header's column starts (empty cells stay empty)."""
    cols: dict[str, str] = {}
    for i, (name, start) in enumerate(header):
        end = header[i + 1][1] if i + 1 < len(header) else len(text)
        cols[name] = text[start:end].strip() if start < len(text) else ""
    return cols


@dataclass
class PciFunction:
    """One ``lspci`` function (with ``-k`` details when present)."""

    bdf: str
    kind: str
    """Class text, e.g. ``Ethernet controller``, ``Infiniband controller``, ``DMA controller``."""
    description: str
    line: Line
    driver: str = ""
    """``Kernel driver in use`` (empty: no driver bound)."""
    modules: str = ""
    """``Kernel modules`` (empty: no module claims the device)."""
    detail_lines: list[Line] = field(default_factory=list)

    @property
    def is_network_pf(self) -> bool:
        return self.kind in ("Ethernet controller", "Infiniband controller", "Network controller")


_LSPCI = re.compile(
    r"^(?P<bdf>(?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])\s+(?P<kind>[^:]+):\s+(?P<desc>.*)$"
)


def parse_lspci(text: str, view: str = "lspci-k") -> list[PciFunction]:
    """``lspci -d 15b3: [-k]`` -> functions; ``-k`` detail lines attach to the function above."""
    out: list[PciFunction] = []
    for ln in lines_of(view, text):
        m = _LSPCI.match(ln.text)
        if m:
            out.append(PciFunction(m["bdf"], m["kind"].strip(), m["desc"].strip(), ln))
            continue
        if not out or not ln.text.startswith(("\t", " ")):
            continue
        key, _, value = ln.text.strip().partition(":")
        out[-1].detail_lines.append(ln)
        if key == "Kernel driver in use":
            out[-1].driver = value.strip()
        elif key == "Kernel modules":
            out[-1].modules = value.strip()
    return out


@dataclass(frozen=True)
class Link:
    """One ``ip -br link`` row."""

    name: str
    state: str
    flags: str
    line: Line

    @property
    def carrier(self) -> bool:
        return "NO-CARRIER" not in self.flags and self.state != "DOWN"


def parse_ip_link(text: str, view: str = "ip-br-link") -> list[Link]:
    out: list[Link] = []
    for ln in lines_of(view, text):
        parts = ln.text.split()
        if len(parts) >= 2:
            name = parts[0].split("@", 1)[0]
            out.append(Link(name, parts[1], parts[-1] if parts[-1].startswith("<") else "", ln))
    return out


def parse_eswitch(text: str, view: str = "devlink-eswitch-show") -> list[tuple[str, str, Line]]:
    """``devlink dev eswitch show`` -> (pci handle, mode) per line that reports a mode."""
    out: list[tuple[str, str, Line]] = []
    for ln in lines_of(view, text):
        m = re.match(r"^(pci/\S+?):?\s+mode\s+(\S+)", ln.text)
        if m:
            out.append((m.group(1), m.group(2), ln))
    return out


def parse_flint(text: str, view: str = "flint-q") -> dict[str, Line]:
    """``flint -d DEV q`` -> field name -> its line (``FW Version``, ``FW Version(Running)``, ``PSID``)."""
    out: dict[str, Line] = {}
    for ln in lines_of(view, text):
        key, sep, _ = ln.text.partition(":")
        if sep and key.strip() and not key.startswith(" "):
            out.setdefault(key.strip(), ln)
    return out


def field_value(line: Line) -> str:
    return line.text.split(":", 1)[1].strip()


def parse_rshim_misc(text: str, view: str = "rshim-misc") -> tuple[dict[str, Line], list[Line]]:
    """``cat /dev/rshim0/misc`` -> (settings such as ``DEV_INFO``, log lines like ``INFO[UEFI]: ...``)."""
    settings: dict[str, Line] = {}
    log: list[Line] = []
    for ln in lines_of(view, text):
        if re.match(r"^\s*(INFO|WARN|ERR)\[", ln.text) or re.search(
            r"Failed to boot|Start PXE|Kernel panic", ln.text
        ):
            log.append(ln)
            continue
        m = re.match(r"^([A-Z_]+)\s+(\S.*)$", ln.text)
        if m:
            settings[m.group(1)] = ln
    return settings, log


def parse_json(text: str) -> dict[str, Any]:
    """A Redfish resource saved as JSON (``{}`` when it is not a JSON object)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}
