"""Where each adapter of a GPU node goes, and why (compute SuperNIC/HCA, north-south DPU, BMC).

The rules and the reasons follow NVIDIA's reference architectures as summarised in
``fabric-and-network-models.md`` section 1.6 (per-system NIC table) and section 2 (SuperNIC vs DPU,
BlueField modes of operation, the 64-node x 8-GPU model answer).
"""

from __future__ import annotations

from dataclasses import dataclass

from fabrictwin.spec.hardware import FabricSpec, NicSpec


@dataclass(frozen=True)
class NicPlacement:
    """One kind of adapter in every node."""

    role: str
    """``compute``, ``north-south`` or ``oob``."""
    adapter: str
    """Catalog id (or a plain name for the BMC port)."""
    name: str
    count: int
    """Adapters of this kind per node."""
    ports_used: int
    """Cabled ports per adapter."""
    port_gbps: float
    """Line rate of each cabled port, Gb/s."""
    network: str
    """The fabric the ports plug into."""
    mode: str
    """How the adapter runs (HCA, NIC mode, DPU mode, BMC)."""
    why: str
    """The reason for this placement."""


# Reasons, with their sources (reference file sections in brackets).
WHY_IB_HCA = (
    "one InfiniBand HCA per GPU, GPU i on rail i: each GPU gets its own GPUDirect RDMA path at full "
    "line rate through its PCIe switch; rail-aligned leaves keep same-rail traffic one hop away and are "
    "required for SHARP streaming aggregation (one aggregation flow per HCA rail; HPC-X NCCL-SHARP "
    "plugin page) [1.1, 1.9, 2.2]"
)
WHY_SUPERNIC = (
    "one SuperNIC per GPU on its rail, NIC mode (Arm cores idle, lower power): it supplies what ECMP "
    "Ethernet lacks for GPU-to-GPU RoCE -- per-packet adaptive routing with reordering in the NIC and "
    "telemetry-driven congestion control (NVIDIA 'What Is a SuperNIC?', Spectrum-X docs) [2.1, 2.2]"
)
WHY_ROCE_NIC = (
    "one RDMA NIC per GPU on its rail: every GPU needs its own line-rate RoCE path; switches hash flows "
    "(ECMP), so NCCL should spread each connection over several queue pairs (Meta, SIGCOMM 2024: up to "
    "+40% all-reduce) [4.1]"
)
WHY_DPU = (
    "BlueField DPU on the north-south (storage + in-band) network, DPU mode: storage (NVMe-oF/SNAP, "
    "GPUDirect Storage), in-band management, overlay networking (OVS offload), firewalling, encryption "
    "and tenant isolation run on its Arm cores and engines, isolating the provider's control plane from "
    "tenant code; two ports to two switches for redundancy; it stays off the collective path (DGX BasePOD "
    "runs BlueField-3 in NIC mode when no DPU services are needed) [1.3, 2.1, 2.2]"
)
WHY_NS_NIC = (
    "dual-port NIC on the north-south network: storage and in-band management over parallel pathways "
    "to two switches; no infrastructure offload or tenant isolation (choose a DPU for those) [1.6]"
)
WHY_BMC = "1 GbE BMC port on the out-of-band network for power, console and firmware (Redfish) [1.1, 1.7]"
WHY_DPU_BMC = "the DPU's own BMC on the out-of-band network, so the DPU can be managed when the host is down"
WHY_NOT = (
    "DPUs on the compute rails would buy nothing for collectives (their Arm cores are unused in NIC mode) "
    "and cost power and money; SuperNICs on the north-south edge would lose the DPU's infrastructure "
    "offload and isolation [2.2]"
)


def compute_reason(fabric: FabricSpec, nic: NicSpec) -> tuple[str, str]:
    """(mode, why) of the compute adapter for this fabric."""
    if fabric.transport == "infiniband":
        return "HCA (InfiniBand)", WHY_IB_HCA
    if fabric.transport == "spectrum-x" or nic.kind == "supernic":
        return "NIC mode (SuperNIC)", WHY_SUPERNIC
    return "NIC (RoCE)" if fabric.transport == "roce" else "NIC (TCP)", WHY_ROCE_NIC


def place_nics(
    fabric: FabricSpec,
    compute_nic: NicSpec,
    compute_count: int,
    planes: int,
    storage_nic: NicSpec | None,
    storage_count: int,
    storage_ports: int,
) -> tuple[NicPlacement, ...]:
    """Per-node adapter placement: compute rails, north-south adapters, BMC ports."""
    mode, why = compute_reason(fabric, compute_nic)
    rows = [
        NicPlacement(
            role="compute",
            adapter=compute_nic.id,
            name=compute_nic.name,
            count=compute_count,
            ports_used=planes,
            port_gbps=fabric.link_bps / 1e9,
            network=f"compute east-west ({fabric.id}, rail-optimized, {planes} plane(s))",
            mode=mode,
            why=why,
        )
    ]
    if storage_nic is not None and storage_count > 0:
        is_dpu = storage_nic.kind == "dpu"
        rows.append(
            NicPlacement(
                role="north-south",
                adapter=storage_nic.id,
                name=storage_nic.name,
                count=storage_count,
                ports_used=max(1, storage_ports // storage_count),
                port_gbps=storage_nic.port_bps / 1e9,
                network="storage + in-band management (Ethernet)",
                mode="DPU mode" if is_dpu else "NIC",
                why=WHY_DPU if is_dpu else WHY_NS_NIC,
            )
        )
        if is_dpu:
            rows.append(_bmc_row("dpu-bmc", "DPU BMC (1 GbE)", storage_count, WHY_DPU_BMC))
    rows.append(_bmc_row("bmc", "host BMC (1 GbE)", 1, WHY_BMC))
    return tuple(rows)


def _bmc_row(adapter: str, name: str, count: int, why: str) -> NicPlacement:
    return NicPlacement(
        role="oob",
        adapter=adapter,
        name=name,
        count=count,
        ports_used=1,
        port_gbps=1.0,
        network="out-of-band management",
        mode="BMC",
        why=why,
    )
