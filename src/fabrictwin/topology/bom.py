"""Bill of materials: switches, adapters, optics and cables, with power and approximate price.

Counting rules (``fabric-and-network-models.md`` sections 1.7 and 1.8): switch-side cages are twin-port
OSFP (two logical ports per module); a node link takes one single-port host module plus half a
switch-side twin-port module; a switch-to-switch link takes half a twin-port module at each end, i.e.
one module per link; every logical link is one fibre. Prices are approximate street/volume prices
from the sources named on each line; a line priced 0 is not priced (its source says so).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# 400G-class optics, the unit all rates are scaled from.
HOST_400G_W = 9.0
"""Single-port 400G OSFP/QSFP112 host module (MMA4Z00-NS400 / MMS4X00-NS400), ~9 W (reference 1.7)."""
TWIN_800G_W = 17.0
"""Twin-port 2x400G OSFP DR8 switch module MMS4X00-NS: "remain at 17 Watts for all configurations"
(docs.nvidia.com/networking/display/800gmms4x00ns/overview)."""
HOST_400G_USD = 700.0
"""400G module, $600-800 volume price (luxoptx.com blog '800G Optical Module Cost Analysis', 2026)."""
TWIN_800G_USD = 1250.0
"""800G OSFP DR8, $1,100-1,400 volume price (same luxoptx.com page); midpoint."""
FIBER_USD = 100.0
"""MPO trunk cable, $50-150 per cable (same luxoptx.com page); midpoint."""
OPTICS_SOURCE = (
    "power: NVIDIA MMS4X00-NS/MMA4Z00-NS400 docs (reference 1.7); price: luxoptx.com '800G Optical "
    "Module Cost Analysis' (2026, volume, approximate)"
)
SCALED_NOTE = "; scaled linearly by line rate from the 400G class (assumption: overstates 200G-lane optics)"


@dataclass(frozen=True)
class BomLine:
    """One line of the bill of materials."""

    network: str
    """``compute``, ``storage``, ``oob`` or ``nodes``."""
    category: str
    """``switch``, ``adapter``, ``optics``, ``cable`` or ``server``."""
    item: str
    quantity: int
    unit_power_w: float
    """Watts per unit (typical/maximum as the source gives it)."""
    unit_price_usd: float
    """Approximate price per unit, US dollars (0: not priced)."""
    source: str

    @property
    def power_w(self) -> float:
        return self.quantity * self.unit_power_w

    @property
    def price_usd(self) -> float:
        return self.quantity * self.unit_price_usd


def optics_lines(network: str, link_gbps: float, node_links: int, switch_links: int) -> list[BomLine]:
    """Host modules, switch twin-port modules and fibres for one network.

    Below 400G the 400G-class modules run at the lower rate: a host module lights half its lanes and a
    twin-port module feeds four 200G ports over 1:2 splitter fibres (NVIDIA twin-port transceiver
    docs, reference 1.7). Above 400G, module power and price scale with the rate (assumption).
    """
    base = max(link_gbps, 400.0)
    scale = base / 400.0
    per_twin = round(2 * base / link_gbps)
    note = OPTICS_SOURCE + ("" if math.isclose(scale, 1.0) else SCALED_NOTE)
    at = "" if base == link_gbps else f" at {link_gbps:g}G"
    host = f"{base:g}G single-port host transceiver (OSFP/QSFP112){at}"
    twin = f"{2 * base:g}G twin-port OSFP switch transceiver ({per_twin}x{link_gbps:g}G)"
    twins = math.ceil(node_links / per_twin) + math.ceil(2 * switch_links / per_twin)
    return [
        BomLine(network, "optics", host, node_links, HOST_400G_W * scale, HOST_400G_USD * scale, note),
        BomLine(network, "optics", twin, twins, TWIN_800G_W * scale, TWIN_800G_USD * scale, note),
        BomLine(network, "cable", "fibre (MPO, one per logical link)", node_links + switch_links, 0.0,
                FIBER_USD, OPTICS_SOURCE),
    ]  # fmt: skip


def totals(lines: tuple[BomLine, ...] | list[BomLine]) -> dict[str, float]:
    """Power and price totals, network only and with the servers."""
    net = [ln for ln in lines if ln.network != "nodes"]
    return {
        "network_power_w": sum(ln.power_w for ln in net),
        "network_price_usd": sum(ln.price_usd for ln in net),
        "total_power_w": sum(ln.power_w for ln in lines),
        "total_price_usd": sum(ln.price_usd for ln in lines),
    }
