"""Host CPU budget of one GPU server, and what a BlueField DPU takes off it.

Each infrastructure task is a demand in cores (core-seconds per second) computed from the bytes
it handles per second and a per-byte cost. Training itself needs one core per GPU for the
framework's launch thread and one for NCCL's proxy thread. With a DPU in DPU mode, chosen tasks
move to its Arm cores (slower per core) or its engines (crypto, OVS flow offload, connection
tracking, NVMe emulation for DOCA SNAP), within their capacity; what the DPU cannot carry
throttles the task's throughput instead of stealing host cores.

Constants are per byte of traffic the task touches; sources beside each. See docs/models/host-dpu.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from fabrictwin.spec.hardware import CpuSpec, NicSpec

# Linux TCP receive at 100G: the data copy bounds one core at about 42 Gb/s with TSO/GRO, jumbo
# frames and aRFS (Cai et al., SIGCOMM'21, host-and-dpu-offload-figures.md D-13, confidence M).
TCP_RX_BYTES_PER_CORE_S = 42e9 / 8
# Send side with TSO and no receive copy: taken as twice as cheap (same paper: receiver copy is
# the bottleneck); assumption within D-13.
TCP_TX_BYTES_PER_CORE_S = 2 * TCP_RX_BYTES_PER_CORE_S
# NFS adds RPC/XDR processing on top of TCP receive: assumption, 1.5x the TCP cost.
NFS_OVER_TCP_FACTOR = 1.5
# NVMe-oF over RDMA / local NVMe: completion handling only; 0.05 core per GB/s (assumption, order
# of magnitude of interrupt + block-layer cost at 1 MiB I/O).
RDMA_STORAGE_CORES_PER_Bps = 0.05 / 1e9
# GPUDirect Storage: the DMA goes storage -> GPU, no bounce-buffer copy; the remaining client
# cost is taken as half (assumption; NVIDIA GDS overview names lower CPU use, no figure).
GDS_CPU_FACTOR = 0.5
# Kernel OVS datapath: ~1.5 GB/s of 1500-byte packets per core (~1 Mpps/core; Pfaff et al.,
# "The Design and Implementation of Open vSwitch", NSDI'15, kernel megaflow path; order of magnitude).
OVS_BYTES_PER_CORE_S = 1.5e9
# IPsec/kTLS AES-GCM with AES-NI in the kernel: ~2 cycles/byte including the stack (Gueron, Intel
# white paper on AES-GCM, ~1 c/B raw; doubled for the IPsec path: assumption).
CRYPTO_CYCLES_PER_BYTE = 2.0
# Stateful firewall (conntrack + nftables): ~1 cycle/byte at 1500-byte packets (assumption:
# ~1,500 cycles per packet for lookup and state update).
FIREWALL_CYCLES_PER_BYTE = 1.0
# node exporter + DCGM exporter + log shipping: half a core per server (assumption).
TELEMETRY_CORES = 0.5
# JPEG decode + random-resized-crop + flip on one core: 50-200 images/s (systemoverflow.com
# "Production Data Pipeline Design and Throughput"; libjpeg-turbo class decoders), take 150.
JPEG_IMAGES_PER_CORE_S = 150.0
# Pre-tokenized text: reading and collating int arrays, ~2e6 tokens/s per core (assumption).
TOKENS_PER_CORE_S = 2e6
# NCCL starts one proxy thread per rank that polls the network (NCCL docs, "Environment
# Variables": NCCL_PROXY*), plus the framework's launch thread: 2 cores per GPU.
CORES_PER_GPU_FOR_TRAINING = 2.0
# BlueField Arm A78 core vs a server x86 core for packet work: "may not have enough computing
# resources to sustain more than half the expected bandwidth" (D-04, BlueField-2): 0.5.
ARM_CORE_RELATIVE = 0.5

Task = Literal["network", "vswitch", "storage", "crypto", "firewall", "telemetry", "data_loading"]


@dataclass(frozen=True)
class NodeLoad:
    """Traffic and work one server must handle per second."""

    network_tx_Bps: float
    """Bytes/s of collective traffic the server sends over TCP (0 over RDMA)."""
    network_rx_Bps: float
    storage_read_Bps: float
    """Bytes/s read from remote storage (after cache hits)."""
    north_south_Bps: float
    """Bytes/s of storage + other traffic crossing vswitch, crypto and firewall."""
    images_per_s: float = 0.0
    """Images decoded per second on host cores (0 when decode runs on the GPU)."""
    tokens_per_s: float = 0.0


@dataclass(frozen=True)
class HostServices:
    """Which services run and how storage is reached."""

    vswitch: bool
    encryption: bool
    firewall: bool
    telemetry: bool
    protocol: str
    gpudirect_storage: bool


@dataclass(frozen=True)
class CpuBudget:
    """Cores demanded and available on the host and on the DPU."""

    host_cores: float
    training_cores: float
    host_demand: dict[str, float]
    dpu_demand: dict[str, float]
    dpu_capacity: float
    throttle: dict[str, float] = field(default_factory=dict)
    """Task -> share of its needed rate the DPU can deliver (< 1 when over capacity)."""

    @property
    def infra_cores(self) -> float:
        return sum(self.host_demand.values())

    @property
    def utilisation(self) -> float:
        """Host demand over host cores (may exceed 1)."""
        return (self.training_cores + self.infra_cores) / self.host_cores

    @property
    def free_cores(self) -> float:
        return self.host_cores - self.training_cores - self.infra_cores


def task_demand(load: NodeLoad, svc: HostServices, core_hz: float) -> dict[Task, float]:
    """Cores (of a host x86 core) each task needs at ``load``."""
    net = load.network_tx_Bps / TCP_TX_BYTES_PER_CORE_S + load.network_rx_Bps / TCP_RX_BYTES_PER_CORE_S
    if svc.protocol == "nfs":
        storage = load.storage_read_Bps / TCP_RX_BYTES_PER_CORE_S * NFS_OVER_TCP_FACTOR
    else:
        storage = load.storage_read_Bps * RDMA_STORAGE_CORES_PER_Bps
    if svc.gpudirect_storage:
        storage *= GDS_CPU_FACTOR
    demand: dict[Task, float] = {
        "network": net,
        "storage": storage,
        "vswitch": load.north_south_Bps / OVS_BYTES_PER_CORE_S if svc.vswitch else 0.0,
        "crypto": load.north_south_Bps * CRYPTO_CYCLES_PER_BYTE / core_hz if svc.encryption else 0.0,
        "firewall": load.north_south_Bps * FIREWALL_CYCLES_PER_BYTE / core_hz if svc.firewall else 0.0,
        "telemetry": TELEMETRY_CORES if svc.telemetry else 0.0,
        "data_loading": load.images_per_s / JPEG_IMAGES_PER_CORE_S + load.tokens_per_s / TOKENS_PER_CORE_S,
    }
    return demand


def _engine_covers(task: str, dpu: NicSpec, load: NodeLoad) -> float | None:
    """Share of the task's rate a hardware engine carries (None: no engine, Arm cores do it)."""
    eng = dpu.engines
    if task == "vswitch" and eng.ovs_flow_offload:
        return 1.0
    if task == "firewall" and eng.connection_tracking:
        return 1.0
    if task == "crypto" and eng.crypto_Bps > 0:
        return min(1.0, eng.crypto_Bps / max(load.north_south_Bps, 1e-9))
    if task == "storage" and eng.nvme_emulation:
        return 1.0
    return None


def cpu_budget(
    *,
    cpu: CpuSpec,
    sockets: int,
    gpus: int,
    load: NodeLoad,
    services: HostServices,
    dpu: NicSpec | None,
    offloads: tuple[str, ...],
) -> CpuBudget:
    """Place each task on the host or the DPU and total the cores."""
    demand = task_demand(load, services, cpu.base_hz)
    host: dict[str, float] = {}
    on_dpu: dict[str, float] = {}
    throttle: dict[str, float] = {}
    usable_dpu = dpu is not None and dpu.kind == "dpu" and dpu.arm_cores > 0
    capacity = (dpu.arm_cores * ARM_CORE_RELATIVE) if (usable_dpu and dpu is not None) else 0.0
    for task, cores in demand.items():
        if not usable_dpu or dpu is None or task not in offloads or cores == 0.0:
            host[task] = cores
            continue
        covered = _engine_covers(task, dpu, load)
        if covered is not None:
            throttle[task] = covered
            on_dpu[task] = 0.0
        else:
            on_dpu[task] = cores
    arm_need = sum(on_dpu.values())
    if arm_need > capacity > 0:
        for name, need in on_dpu.items():
            if need > 0:
                throttle[name] = min(throttle.get(name, 1.0), capacity / arm_need)
    return CpuBudget(
        host_cores=float(cpu.cores * sockets),
        training_cores=CORES_PER_GPU_FOR_TRAINING * gpus,
        host_demand=host,
        dpu_demand=on_dpu,
        dpu_capacity=capacity,
        throttle=throttle,
    )
