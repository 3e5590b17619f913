"""Design a GPU cluster's networks: compute fat tree, storage/in-band, out-of-band; NICs; BOM.

The compute fabric follows the DGX SuperPOD rules (``fabric-and-network-models.md`` sections 1.1-1.9,
7.1): rail-optimized scalable units, full SUs even when partly populated, the folded-Clos formulas of
:mod:`fabrictwin.topology.sizing`, P independent planes for multi-plane NICs. The storage/in-band
network gives every node two ports to two separate leaves (HGX Enterprise RA: "two 200 GbE ports to
two separate switches to provide redundancy"); the out-of-band network gives one 1 GbE port per node
BMC, per DPU BMC and per switch management port.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from fabrictwin import catalog
from fabrictwin.errors import Infeasible
from fabrictwin.spec.hardware import FabricSpec, NicSpec, SwitchSpec, SystemSpec
from fabrictwin.topology import bom
from fabrictwin.topology.notes import design_notes
from fabrictwin.topology.placement import WHY_NOT, NicPlacement, place_nics
from fabrictwin.topology.sizing import PlaneSize, size_plane

OOB_PORTS_PER_SWITCH = 48
"""SN2201 OOB switch: 48 x 1 GbE RJ45 + 4 x 100 GbE uplinks (reference section 1.7 [R])."""
STORAGE_PORTS_PER_NODE = 2
"""Two north-south ports per node, one to each of two switches (HGX Enterprise RA, reference 2.1)."""


@dataclass(frozen=True)
class FabricPlan:
    """Switch and link counts of one switched network (totals over its planes)."""

    network: str
    switch_model: str
    tiers: int
    planes: int
    radix: int
    """Switch ports at the link rate."""
    link_gbps: float
    oversubscription: float
    su_nodes: int
    sus: int
    leaf_switches: int
    spine_switches: int
    core_switches: int
    node_links: int
    leaf_spine_links: int
    spine_core_links: int
    bisection_Bps: float
    """Bytes/s across the worst bisection (both planes), one direction."""

    @property
    def switches(self) -> int:
        return self.leaf_switches + self.spine_switches + self.core_switches


@dataclass(frozen=True)
class Sharp:
    """In-network reduction capability of the compute fabric."""

    capable: bool
    version: str
    reason: str


@dataclass(frozen=True)
class OobPlan:
    """Out-of-band 1 GbE management network."""

    ports: int
    switches: int
    switch_model: str


@dataclass(frozen=True)
class ClusterDesign:
    """The designed cluster; :meth:`to_dict` gives the JSON shape of ``fabrictwin design --json``."""

    nodes: int
    gpus_per_node: int
    system: str
    fabric: str
    compute: FabricPlan
    plane: PlaneSize
    """Sizing of one compute plane (for drawing and for building the topology)."""
    sharp: Sharp
    storage: FabricPlan | None
    oob: OobPlan
    nics_per_node: tuple[NicPlacement, ...]
    bom: tuple[bom.BomLine, ...]
    notes: tuple[str, ...]

    @property
    def gpus(self) -> int:
        return self.nodes * self.gpus_per_node

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form: keys ``nodes gpus compute storage oob nics_per_node bom``."""
        compute = dataclasses.asdict(self.compute) | {
            "sharp": dataclasses.asdict(self.sharp),
            "system": self.system,
            "fabric": self.fabric,
            "notes": list(self.notes),
        }
        lines = [
            dataclasses.asdict(ln) | {"power_w": ln.power_w, "price_usd": ln.price_usd} for ln in self.bom
        ]
        return {
            "nodes": self.nodes,
            "gpus": self.gpus,
            "compute": compute,
            "storage": None if self.storage is None else dataclasses.asdict(self.storage),
            "oob": dataclasses.asdict(self.oob),
            "nics_per_node": [dataclasses.asdict(p) for p in self.nics_per_node] + [{"why_not": WHY_NOT}],
            "bom": {"lines": lines, "totals": bom.totals(self.bom)},
        }


def radix_at(switch: SwitchSpec, link_bps: float) -> int:
    """Switch ports at ``link_bps`` (a 64 x 800G switch is 128 x 400G with split ports).

    Raises:
        Infeasible: the switch's ports are slower than the link.
    """
    if switch.port_bps + 1e-3 < link_bps:
        raise Infeasible(
            f"{switch.id} ports run at {switch.port_bps / 1e9:g} Gb/s, slower than "
            f"{link_bps / 1e9:g} Gb/s links",
            nearest="a switch whose ports match the link rate",
        )
    return int(switch.ports * round(switch.port_bps / link_bps))


def plan_fabric(
    network: str, switch: SwitchSpec, link_bps: float, size: PlaneSize, planes: int, sigma: float, nodes: int
) -> FabricPlan:
    """Totals over ``planes`` identical planes of ``size``; ``nodes`` populate them."""
    node_ports = nodes * size.rails
    # One tier: each switch is non-blocking, so any half of the nodes reaches the other half at full rate.
    across = node_ports if size.tiers == 1 else min(node_ports, size.leaf_spine_links)
    bisection = across * link_bps / 8.0 / 2.0 * planes
    return FabricPlan(
        network=network,
        switch_model=switch.id,
        tiers=size.tiers,
        planes=planes,
        radix=size.radix,
        link_gbps=link_bps / 1e9,
        oversubscription=sigma,
        su_nodes=size.su_nodes,
        sus=size.sus,
        leaf_switches=planes * size.leaves,
        spine_switches=planes * size.spines,
        core_switches=planes * size.cores,
        node_links=planes * node_ports,
        leaf_spine_links=planes * size.leaf_spine_links,
        spine_core_links=planes * size.spine_core_links,
        bisection_Bps=bisection,
    )


def sharp_support(fabric: FabricSpec, switch: SwitchSpec, nics: int, gpus_per_node: int) -> Sharp:
    """SHARP needs InfiniBand Quantum switches, >= 1 HCA per GPU and rail-aligned leaves (reference 1.9)."""
    if fabric.transport != "infiniband":
        return Sharp(False, "", "SHARP is InfiniBand-only; Ethernet fabrics have no in-network reduction")
    if not switch.sharp:
        return Sharp(False, "", f"{switch.id} has no SHARP engine")
    if nics < gpus_per_node:
        return Sharp(False, "", "fewer NICs than GPUs: NCCL 2.18.1 known issue (bf16 SHARP hang); disabled")
    version = {"ib-hdr": "SHARPv2", "ib-ndr": "SHARPv3", "ib-xdr": "SHARPv4"}.get(fabric.id, "SHARP")
    return Sharp(
        True,
        version,
        "Quantum switches with one HCA per GPU on rail-aligned leaves (one streaming aggregation flow per "
        "rail); run the SM with ftree/updn/ar_ftree/ar_updn routing and the SHARP Aggregation Manager",
    )


def design_cluster(
    nodes: int,
    gpus_per_node: int,
    fabric: FabricSpec,
    switch: SwitchSpec,
    compute_nic: NicSpec,
    *,
    storage_nic: NicSpec | None = None,
    storage_switch: SwitchSpec | None = None,
    oob_switch: SwitchSpec | None = None,
    system: SystemSpec | None = None,
    oversubscription: float = 1.0,
    tiers: int | None = None,
    planes: int = 1,
    su_nodes: int | None = None,
    whole_units: bool = False,
) -> ClusterDesign:
    """Design the networks, NIC placement and BOM of ``nodes`` servers with ``gpus_per_node`` GPUs.

    Raises:
        Infeasible: the system has another GPU count; the NIC is slower than the fabric or has fewer
            ports than planes; switch and fabric protocols differ; and everything
            :func:`fabrictwin.topology.sizing.size_plane` raises (radix too small for the tiers,
            partial SU with ``whole_units``), each with the nearest feasible choice.
    """
    nics = _check_inputs(nodes, gpus_per_node, fabric, switch, compute_nic, system, planes)
    radix = radix_at(switch, fabric.link_bps)
    size = size_plane(
        nodes,
        nics,
        radix,
        tiers=tiers,
        oversubscription=oversubscription,
        su_nodes=su_nodes,
        whole_units=whole_units,
    )
    compute = plan_fabric("compute", switch, fabric.link_bps, size, planes, oversubscription, nodes)
    storage = _storage(nodes, storage_nic, storage_switch)
    dpus = system.storage_nics if system is not None else (1 if storage_nic is not None else 0)
    dpu_bmcs = dpus if storage_nic is not None and storage_nic.kind == "dpu" else 0
    switch_count = compute.switches + (storage.switches if storage else 0)
    oob_ports = nodes * (1 + dpu_bmcs) + switch_count
    per_switch = oob_switch.ports if oob_switch is not None else OOB_PORTS_PER_SWITCH
    oob_model = oob_switch.id if oob_switch is not None else "sn2201"
    oob = OobPlan(oob_ports, math.ceil(oob_ports / per_switch), oob_model)
    placement = place_nics(fabric, compute_nic, nics, planes, storage_nic, dpus, STORAGE_PORTS_PER_NODE)
    parts = _Parts(switch, compute_nic, nics, storage_switch, storage_nic, dpus, system, oob_switch)
    lines = _bom(nodes, parts, compute, storage, oob)
    sharp = sharp_support(fabric, switch, nics, gpus_per_node)
    return ClusterDesign(
        nodes=nodes,
        gpus_per_node=gpus_per_node,
        system=system.id if system is not None else "",
        fabric=fabric.id,
        compute=compute,
        plane=size,
        sharp=sharp,
        storage=storage,
        oob=oob,
        nics_per_node=placement,
        bom=tuple(lines),
        notes=design_notes(nodes, size, planes, _single_tier_switches(storage), sharp.capable),
    )


def _check_inputs(
    nodes: int,
    gpus: int,
    fabric: FabricSpec,
    switch: SwitchSpec,
    nic: NicSpec,
    system: SystemSpec | None,
    planes: int,
) -> int:
    """Compute NICs per node, after checking the combination can be built."""
    if nodes < 1 or gpus < 1 or planes < 1:
        raise Infeasible(f"need >= 1 node, GPU and plane (got {nodes}, {gpus}, {planes})")
    if system is not None and system.gpus != gpus:
        raise Infeasible(f"{system.id} has {system.gpus} GPUs per node, not {gpus}", nearest=f"{system.gpus}")
    nics = system.compute_nics if system is not None else gpus
    if nics < 1:
        who = system.id if system is not None else "the node"
        raise Infeasible(f"{who} has no compute NIC", nearest="a system with compute NICs")
    want = "infiniband" if fabric.transport == "infiniband" else "ethernet"
    if switch.protocol != want:
        raise Infeasible(f"{switch.id} is {switch.protocol}; {fabric.id} needs {want}", nearest=fabric.switch)
    # A port splits into port/link lanes groups (ConnectX-8: one 800G port as 2 x 400GbE planes,
    # reference 2.1 "planarized topology"); each plane needs one link-rate port.
    links_per_nic = nic.ports * int(nic.port_bps // fabric.link_bps + 1e-9)
    if planes > links_per_nic:
        raise Infeasible(
            f"{nic.id} has {nic.ports} x {nic.port_bps / 1e9:g} Gb/s; {planes} plane(s) at "
            f"{fabric.link_bps / 1e9:g} Gb/s need {planes} link-rate ports",
            nearest=f"planes <= {links_per_nic}"
            if links_per_nic
            else f"a NIC at >= {fabric.link_bps / 1e9:g} Gb/s",
        )
    return nics


def _storage(nodes: int, nic: NicSpec | None, switch: SwitchSpec | None) -> FabricPlan | None:
    if nic is None or switch is None:
        return None
    radix = radix_at(switch, nic.port_bps)
    # A node's two ports go to two separate switches (HGX Enterprise RA, reference 2.1), so one tier
    # here means two switches, one per port, not one switch holding both.
    size = size_plane(nodes, STORAGE_PORTS_PER_NODE, radix, max_rails_per_switch=1)
    return plan_fabric("storage", switch, nic.port_bps, size, 1, 1.0, nodes)


def _single_tier_switches(storage: FabricPlan | None) -> int | None:
    """Storage switches when the storage network is one tier, else None (for the notes)."""
    return storage.leaf_switches if storage is not None and storage.tiers == 1 else None


def _line(network: str, category: str, spec: SwitchSpec | NicSpec | SystemSpec, qty: int) -> bom.BomLine:
    """A BOM line priced and powered from a catalog spec (its first source is cited)."""
    source = spec.sources[0].ref if spec.sources else f"catalog entry {spec.id}"
    return bom.BomLine(network, category, spec.name, qty, spec.power_w, spec.price_usd, source)


@dataclass(frozen=True)
class _Parts:
    switch: SwitchSpec
    nic: NicSpec
    nics: int
    storage_switch: SwitchSpec | None
    storage_nic: NicSpec | None
    dpus: int
    system: SystemSpec | None
    oob_switch: SwitchSpec | None


def _bom(
    nodes: int, parts: _Parts, compute: FabricPlan, storage: FabricPlan | None, oob: OobPlan
) -> list[bom.BomLine]:
    lines = [_line("compute", "switch", parts.switch, compute.switches)]
    lines.append(_line("compute", "adapter", parts.nic, nodes * parts.nics))
    switch_links = compute.leaf_spine_links + compute.spine_core_links
    lines += bom.optics_lines("compute", compute.link_gbps, compute.node_links, switch_links)
    if storage is not None and parts.storage_switch is not None and parts.storage_nic is not None:
        lines.append(_line("storage", "switch", parts.storage_switch, storage.switches))
        lines.append(_line("storage", "adapter", parts.storage_nic, nodes * parts.dpus))
        lines += bom.optics_lines("storage", storage.link_gbps, storage.node_links, storage.leaf_spine_links)
    if parts.oob_switch is not None:
        lines.append(_line("oob", "switch", parts.oob_switch, oob.switches))
    else:
        oob_src = "reference 1.7 (48 x 1 GbE); no spec given, power and price not counted"
        lines.append(bom.BomLine("oob", "switch", "SN2201 1 GbE OOB switch", oob.switches, 0.0, 0.0, oob_src))
    lines.append(bom.BomLine("oob", "cable", "Cat6 RJ45 patch cable", oob.ports, 0.0, 0.0, "not priced"))
    if parts.system is not None:
        lines.append(_line("nodes", "server", parts.system, nodes))
    return lines


DEFAULT_NS_ADAPTER = "bf3-b3220"
"""North-south adapter when no system is named: one BlueField-3 B3220 DPU, 2 x 200 GbE to two switches
(the 64-node model answer, reference section 2.2)."""
DEFAULT_NS_SWITCH = "sn5600"
"""Storage/in-band Ethernet switch (Spectrum-4, reference section 1.5: storage and in-band on Spectrum-4)."""
SYSTEM_SU_NODES = {"gb200-nvl72": 8}
"""Scalable-unit size where it is not a leaf's down ports: GB200 SU = 8 NVL72 racks (reference 1.5)."""
DEFAULT_OOB_SWITCH = "sn2201"
"""Out-of-band 1 GbE switch (reference section 1.1: OOB uses SN2201)."""


def design_from_catalog(
    nodes: int,
    gpus_per_node: int,
    fabric_id: str,
    *,
    system_id: str | None = None,
    nic_id: str | None = None,
    oversubscription: float = 1.0,
    tiers: int | None = None,
    planes: int = 1,
    su_nodes: int | None = None,
    whole_units: bool = False,
) -> ClusterDesign:
    """:func:`design_cluster` with every part taken from the catalog by id.

    The compute switch is the fabric's, the compute NIC ``nic_id`` or the fabric's; the north-south
    adapters are the system's (or one BlueField-3 B3220 DPU per node when no system is named).

    Raises:
        fabrictwin.catalog.UnknownId: an unknown fabric or system id (with a did-you-mean).
        Infeasible: as :func:`design_cluster`.
    """
    fabric = catalog.fabric(fabric_id)
    system = catalog.system(system_id) if system_id else None
    ns_nic = catalog.nic(system.storage_nic if system is not None else DEFAULT_NS_ADAPTER)
    return design_cluster(
        nodes,
        gpus_per_node,
        fabric,
        catalog.switch(fabric.switch),
        catalog.nic(nic_id or fabric.nic),
        storage_nic=ns_nic,
        storage_switch=catalog.switch(DEFAULT_NS_SWITCH),
        oob_switch=catalog.switch(DEFAULT_OOB_SWITCH),
        system=system,
        oversubscription=oversubscription,
        tiers=tiers,
        planes=planes,
        su_nodes=su_nodes if su_nodes is not None else SYSTEM_SU_NODES.get(system_id or ""),
        whole_units=whole_units,
    )
