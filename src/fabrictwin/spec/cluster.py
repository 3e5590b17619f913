"""Cluster specs: which servers, how many, and the fabrics and DPUs that connect them.

A cluster file looks like::

    system: dgx-h100
    nodes: 64
    fabric:
      compute: {link: ib-ndr, topology: rail-optimized, sharp: true}
      storage: {link: roce-200g}
    dpu: {model: bf3-b3220, mode: dpu, offloads: [ovs, ipsec]}

Load one with :func:`fabrictwin.load_cluster` (``fabrictwin.catalog.load_cluster``), which
validates against the catalog. Ids are checked with a did-you-mean; when the catalog is available
(:mod:`fabrictwin.spec.refs`), choices are also checked against the hardware they name (SHARP
needs an InfiniBand fabric with SHARP switches, adaptive routing needs switches that do it, ...).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from fabrictwin.spec.base import Spec
from fabrictwin.spec.hardware import FabricSpec, SwitchSpec
from fabrictwin.spec.refs import DpuId, LinkId, NicId, SwitchId, SystemId, lookup

Topology = Literal["fat-tree", "rail-optimized"]
Routing = Literal["dmodk", "ecmp", "adaptive"]
DpuMode = Literal["dpu", "nic", "zero-trust"]
Offload = Literal["ovs", "ipsec", "tls", "nvme-snap", "firewall", "regex", "compression"]

ARM_OFFLOADS: frozenset[str] = frozenset({"nvme-snap", "regex", "compression"})
"""Offloads whose service runs on the DPU Arm cores (DOCA SNAP, RegEx/DPI, compression apps), so
unavailable in NIC mode, where "the Arm cores of BlueField are inactive" (BlueField BSP "Modes of
Operation", quoted in fabric-and-network-models.md section 2.1). Eswitch (OVS/ASAP²), inline crypto
and connection tracking are NIC hardware and work in both modes."""

DEFAULT_ROUTING: dict[str, Routing] = {
    "infiniband": "dmodk",
    "roce": "ecmp",
    "tcp": "ecmp",
    "spectrum-x": "adaptive",
}
"""Routing when a cluster does not choose: the OpenSM ftree D-mod-K default on InfiniBand, ECMP
hashing on Ethernet, per-packet adaptive routing on Spectrum-X (fabric-and-network-models.md
sections 2.1, 4.1, 6)."""


class ComputeFabric(Spec):
    """The east-west (GPU-to-GPU) fabric."""

    link: LinkId
    """Catalog fabric id, e.g. ``ib-ndr``, ``roce-400g``, ``spectrum-x-400g``."""
    switch: SwitchId | None = None
    """Switch model; None: the fabric's default switch."""
    nic: NicId | None = None
    """Compute NIC model; None: the system's compute NIC."""
    topology: Topology = "rail-optimized"
    """``rail-optimized`` (NIC i of every node in a scalable unit on leaf i) or plain ``fat-tree``."""
    tiers: Literal["auto", 2, 3] = "auto"
    """Switch tiers of the folded Clos; ``auto``: the fewest that fit."""
    oversubscription: float = Field(default=1.0, ge=1.0)
    """Leaf down-ports per up-port (1 = non-blocking)."""
    nics_per_node: int | None = Field(default=None, ge=1)
    """Compute NIC ports per node; None: the system's ``compute_nics``."""
    planes: int = Field(default=1, ge=1)
    """Independent parallel fabric planes (multi-plane Spectrum-X / ConnectX-8)."""
    scalable_unit_nodes: int | None = Field(default=None, ge=1)
    """Nodes per scalable unit; None: the topology builder's default for the switch radix."""
    sharp: bool = False
    """Use in-network reduction (InfiniBand SHARP)."""
    routing: Routing | None = None
    """``dmodk``, ``ecmp`` or ``adaptive``; None: the transport's default (see DEFAULT_ROUTING)."""
    qps: int = Field(default=1, ge=1)
    """Queue pairs (hashed sub-flows) per connection; more QPs spread ECMP load."""

    @field_validator("sharp")
    @classmethod
    def _sharp_needs_infiniband(cls, sharp: bool, info: ValidationInfo) -> bool:
        if not sharp:
            return sharp
        fabric, switch = _fabric_and_switch(info)
        if fabric is not None and fabric.transport != "infiniband":
            raise ValueError(f"SHARP needs an InfiniBand fabric; {fabric.id!r} is {fabric.transport}")
        if switch is not None and not switch.sharp:
            raise ValueError(f"SHARP needs SHARP-capable switches; {switch.id!r} is not")
        return sharp

    @field_validator("routing")
    @classmethod
    def _routing_fits_fabric(cls, routing: Routing | None, info: ValidationInfo) -> Routing | None:
        fabric, switch = _fabric_and_switch(info)
        if routing == "dmodk" and fabric is not None and fabric.transport != "infiniband":
            raise ValueError(
                f"D-mod-K is InfiniBand subnet-manager routing; {fabric.id!r} is {fabric.transport}"
            )
        if routing == "adaptive" and switch is not None and not switch.adaptive_routing:
            raise ValueError(f"switch {switch.id!r} has no adaptive routing; use 'ecmp'")
        return routing

    def routing_for(self, transport: str) -> Routing:
        """The routing in force: the chosen one, else the default of ``transport``."""
        return self.routing or DEFAULT_ROUTING[transport]


def _fabric_and_switch(info: ValidationInfo) -> tuple[FabricSpec | None, SwitchSpec | None]:
    """The catalog specs of the fabric and switch validated so far (None when unavailable)."""
    link = info.data.get("link")
    fabric = lookup("fabric", link, info) if isinstance(link, str) else None
    if not isinstance(fabric, FabricSpec):
        return None, None
    switch_id = info.data.get("switch") or fabric.switch
    switch = lookup("switch", switch_id, info)
    return fabric, switch if isinstance(switch, SwitchSpec) else None


class StorageFabric(Spec):
    """The north-south storage / in-band fabric."""

    link: LinkId
    """Catalog fabric id, e.g. ``roce-200g`` or ``ib-ndr``."""
    nics_per_node: int | None = Field(default=None, ge=1)
    """Storage adapters per node; None: the system's ``storage_nics``."""
    oversubscription: float = Field(default=1.0, ge=1.0)
    """Leaf down-ports per up-port."""


class OobFabric(Spec):
    """The out-of-band management network (BMCs, switch management ports)."""

    link: LinkId = "tcp-1g"
    """Catalog fabric id; 1GbE management by default."""
    dpu_bmc: bool = True
    """Cable each DPU's own BMC port as well as the host BMC."""


class Fabrics(Spec):
    """The fabrics of a cluster."""

    compute: ComputeFabric
    """East-west GPU fabric."""
    storage: StorageFabric | None = None
    """North-south storage / in-band fabric; None: not modelled."""
    oob: OobFabric = OobFabric()
    """Out-of-band management network."""


class DpuConfig(Spec):
    """BlueField DPUs on the north-south side of each node."""

    model: DpuId | None = None
    """Catalog id of the DPU (e.g. ``bf3-b3220``); None: no DPU."""
    per_node: int = Field(default=1, ge=1)
    """DPUs per node."""
    mode: DpuMode = "dpu"
    """``dpu`` (Arm owns the NIC), ``nic`` (Arm cores off) or ``zero-trust`` (DPU mode, host restricted)."""
    offloads: list[Offload] = []
    """Services moved from the host to the DPU."""

    @model_validator(mode="after")
    def _offloads_fit_mode(self) -> DpuConfig:
        if self.offloads and self.model is None:
            raise ValueError("offloads need a DPU: set dpu.model")
        needs_arm = sorted(ARM_OFFLOADS.intersection(self.offloads))
        if self.mode == "nic" and needs_arm:
            raise ValueError(f"offloads {needs_arm} run on the Arm cores, which are off in NIC mode")
        if len(set(self.offloads)) != len(self.offloads):
            raise ValueError("offloads lists a service twice")
        return self


class ClusterSpec(Spec):
    """A GPU cluster: servers, their count, fabrics and DPUs."""

    name: str = ""
    """Free-form name used in reports."""
    system: SystemId
    """Catalog id of the server, e.g. ``dgx-h100``."""
    nodes: int = Field(gt=0)
    """Number of servers."""
    fabric: Fabrics
    """Compute, storage and out-of-band networks."""
    dpu: DpuConfig = DpuConfig()
    """North-south DPUs; none by default."""
