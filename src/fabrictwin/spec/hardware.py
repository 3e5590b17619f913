"""Hardware specs: GPUs, host CPUs, NICs/SuperNICs/DPUs, switches, links, server systems.

All quantities are SI (bytes, seconds, bytes/s, FLOP/s, watts); ``*_bps`` are bits/s line rates.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from fabrictwin.spec.base import Source, Spec
from fabrictwin.spec.quantity import BitsPerS, Bytes, BytesPerS, FlopsPerS, Hertz, Seconds, Watts
from fabrictwin.spec.refs import CpuId, GpuId, NicId, SwitchId

Precision = Literal["fp64", "tf32", "fp32", "bf16", "fp16", "fp8", "fp4", "int8"]
Transport = Literal["infiniband", "roce", "tcp", "spectrum-x"]


class GpuSpec(Spec):
    """One GPU model."""

    id: str
    """Catalog id, e.g. ``h100-sxm``."""
    name: str
    """Marketing name."""
    peak_flops: dict[Precision, FlopsPerS]
    """Dense (no sparsity) peak FLOP/s per precision of the tensor cores (vector for fp64/fp32)."""
    hbm_bytes: Bytes = Field(gt=0)
    """HBM capacity in bytes."""
    hbm_Bps: BytesPerS = Field(gt=0)
    """HBM bandwidth in bytes/s."""
    nvlink_Bps: BytesPerS = Field(ge=0)
    """NVLink bandwidth per GPU, one direction, bytes/s (0 when there is none)."""
    pcie_Bps: BytesPerS = Field(gt=0)
    """Host PCIe bandwidth per GPU, one direction, bytes/s."""
    tdp_w: Watts = Field(gt=0)
    """Board power in watts."""
    sources: list[Source] = []
    """Where the numbers come from."""


class CpuSpec(Spec):
    """One host CPU model (per socket)."""

    id: str
    """Catalog id, e.g. ``xeon-8480c``."""
    name: str
    """Marketing name."""
    cores: int = Field(gt=0)
    """Physical cores per socket."""
    base_hz: Hertz = Field(gt=0)
    """Base clock in Hz."""
    tdp_w: Watts = Field(gt=0)
    """Thermal design power per socket, watts."""
    sources: list[Source] = []
    """Where the numbers come from."""


class OffloadEngines(Spec):
    """Hardware engines of a NIC/DPU that take work off cores."""

    crypto_Bps: BytesPerS = 0.0
    """Inline IPsec/TLS (kTLS) crypto throughput in bytes/s (0: none)."""
    regex: bool = False
    """Hardware regular-expression (DPI) engine present."""
    compression_Bps: BytesPerS = 0.0
    """Compression/decompression engine throughput in bytes/s."""
    ovs_flow_offload: bool = False
    """ASAP² eswitch flow offload (OVS/tc-flower in hardware)."""
    nvme_emulation: bool = False
    """NVMe/virtio-blk device emulation for DOCA SNAP."""
    connection_tracking: bool = False
    """Hardware connection tracking (stateful firewall)."""


class NicSpec(Spec):
    """A network adapter: ConnectX NIC, BlueField SuperNIC or BlueField DPU."""

    id: str
    """Catalog id, e.g. ``cx7-ndr`` or ``bf3-b3220``."""
    name: str
    """Marketing name."""
    kind: Literal["nic", "supernic", "dpu"]
    """``nic`` (ConnectX), ``supernic`` (east-west, NIC mode) or ``dpu`` (BlueField with Arm services)."""
    ports: int = Field(gt=0)
    """Network ports."""
    port_bps: BitsPerS = Field(gt=0)
    """Line rate per port, bits/s."""
    max_bps: BitsPerS = Field(gt=0)
    """Aggregate bandwidth the adapter can carry (may be less than ports x port rate), bits/s."""
    protocols: list[Literal["infiniband", "ethernet"]]
    """Link layers the ports can run."""
    pcie_gen: int = Field(ge=3, le=6)
    """Host PCIe generation."""
    pcie_lanes: int = Field(gt=0)
    """Host PCIe lanes."""
    arm_cores: int = Field(default=0, ge=0)
    """Arm cores on the card (DPUs and SuperNICs), 0 for a plain NIC."""
    arm_core_hz: Hertz = 0.0
    """Arm core clock in Hz (0 without Arm cores)."""
    dram_bytes: Bytes = 0.0
    """On-card DRAM for the Arm cores, bytes (0 for a plain NIC)."""
    engines: OffloadEngines = OffloadEngines()
    """Hardware offload engines."""
    power_w: Watts = Field(gt=0)
    """Card power in watts."""
    price_usd: float = Field(default=0.0, ge=0)
    """Approximate street price, for the BOM."""
    sources: list[Source] = []
    """Where the numbers come from."""


class SwitchSpec(Spec):
    """A switch model."""

    id: str
    """Catalog id, e.g. ``qm9700``."""
    name: str
    """Marketing name."""
    protocol: Literal["infiniband", "ethernet"]
    """``infiniband`` or ``ethernet``."""
    ports: int = Field(gt=0)
    """Ports at ``port_bps`` (the radix used for fat-tree sizing)."""
    port_bps: BitsPerS = Field(gt=0)
    """Line rate per port at the radix ``ports``, bits/s."""
    sharp: bool = False
    """In-network reduction (SHARP) capable."""
    adaptive_routing: bool = False
    """Per-packet adaptive routing in the switch (IB AR, Spectrum-X)."""
    latency_s: Seconds = Field(gt=0)
    """Port-to-port cut-through latency, seconds."""
    power_w: Watts = Field(gt=0)
    """Maximum power in watts (with optics where the source gives it)."""
    rack_units: int = Field(default=1, gt=0)
    """Height in rack units."""
    price_usd: float = Field(default=0.0, ge=0)
    """Approximate street price, for the BOM."""
    sources: list[Source] = []
    """Where the numbers come from."""


class FabricSpec(Spec):
    """A fabric technology (link + transport), e.g. ``ib-ndr`` or ``roce-400g``."""

    id: str
    """Catalog id, e.g. ``ib-ndr``."""
    name: str
    """Descriptive name."""
    transport: Transport
    """``infiniband``, ``roce`` (RoCEv2), ``tcp`` or ``spectrum-x`` (RoCE with adaptive routing)."""
    link_bps: BitsPerS = Field(gt=0)
    """Line rate of one node link (one NIC port), bits/s."""
    efficiency: float = Field(gt=0, le=1)
    """Achievable fraction of line rate for large transfers (encoding, headers, protocol)."""
    latency_s: Seconds = Field(ge=0)
    """One-way end-host software + NIC latency for a small message, seconds."""
    switch: SwitchId
    """Catalog id of the default switch model."""
    nic: NicId
    """Catalog id of the default compute NIC."""
    cable: str = ""
    """Cable/transceiver type used in the BOM."""
    sources: list[Source] = []
    """Where the numbers come from."""


class SystemSpec(Spec):
    """A GPU server (system) model, e.g. ``dgx-h100``."""

    id: str
    """Catalog id, e.g. ``dgx-h100``."""
    name: str
    """Marketing name."""
    gpu: GpuId
    """Catalog id of its GPU."""
    gpus: int = Field(gt=0)
    """GPUs per server."""
    cpu: CpuId
    """Catalog id of its CPU."""
    cpu_sockets: int = Field(gt=0)
    """Host CPU sockets (CPUs) per server."""
    nvswitch: bool
    """GPUs are all-to-all connected through NVSwitch (False: PCIe/hybrid cube mesh)."""
    intra_node_Bps: BytesPerS = Field(gt=0)
    """Per-GPU bandwidth to its peers inside the server, one direction, bytes/s."""
    compute_nics: int = Field(ge=0)
    """Compute (east-west) NIC ports, usually one per GPU."""
    compute_nic: NicId
    """Catalog id of the default compute NIC."""
    storage_nics: int = Field(ge=0)
    """North-south (storage + in-band) adapters per server."""
    storage_nic: NicId
    """Catalog id of the default storage/in-band NIC (often a BlueField-3 DPU)."""
    host_memory_bytes: Bytes = Field(gt=0)
    """Host DRAM per server, bytes."""
    power_w: Watts = Field(gt=0)
    """Maximum server power, watts."""
    rack_units: int = Field(gt=0)
    """Height in rack units."""
    price_usd: float = Field(default=0.0, ge=0)
    """Approximate price (0: not priced; the BOM covers the network)."""
    sources: list[Source] = []
    """Where the numbers come from."""
