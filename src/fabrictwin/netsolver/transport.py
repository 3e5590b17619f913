"""Transports as costs on links and hosts: InfiniBand, RoCE v2, TCP sockets, GPUDirect RDMA.

A transport turns a fabric's line rate into what a collective can use, and charges the host:

* **effective bandwidth** of one NIC port = line rate x fabric efficiency x header efficiency,
  further limited for TCP by the number of socket streams x per-stream (per-core) throughput;
* **loss**: ``loss_rate`` is the packet loss the transport sees (link errors, or congestion
  drops where no PFC protects the class). InfiniBand repairs it below the transport (credit-
  based flow control, Physical Layer Retransmission on Quantum links; reference
  fabric-and-network-models.md 4.3); RoCE has no link-level retransmission, so Go-back-N
  resends a whole window per loss (PFC only prevents congestion drops); TCP pays
  Mathis-style window halving and a minimum RTO of 200 ms for tail losses;
* **routing**: InfiniBand static ftree = D-mod-K single path, adaptive routing = fluid
  multipath; RoCE = per-QP ECMP hashing (more QPs, more entropy); TCP = per-stream ECMP;
* **host CPU**: RDMA moves bytes without the CPU (kernel bypass, NIC DMA), so only NCCL's
  proxy thread per rank is charged; TCP charges cycles per byte on both ends.

Every parameter cites its source next to it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final, Literal

from fabrictwin.errors import SpecError
from fabrictwin.spec.hardware import FabricSpec, Transport

RoutingPolicy = Literal["dmodk", "ecmp", "adaptive"]

ROCE_HEADER_BYTES: Final = 14 + 20 + 8 + 12 + 4 + 4 + 20
"""Per-packet RoCEv2 overhead: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 +
preamble/SFD/inter-frame gap 20 bytes (InfiniBand Architecture Spec Annex A17 RoCEv2;
IEEE 802.3 clause 4)."""
IB_HEADER_BYTES: Final = 8 + 12 + 4 + 2
"""Per-packet InfiniBand overhead: LRH 8 + BTH 12 + ICRC 4 + VCRC 2 bytes (IBTA spec vol. 1,
chapter 5 packet formats)."""
TCP_FRAME_OVERHEAD_BYTES: Final = 20 + 32 + 14 + 4 + 20
"""Per-segment TCP overhead on Ethernet: IPv4 20 + TCP with timestamps 32 (RFC 7323 section 3)
+ Ethernet 14 + FCS 4 + preamble/SFD/inter-frame gap 20 bytes (IEEE 802.3 clause 4)."""
RDMA_MTU_BYTES: Final = 4096
"""RDMA payload MTU NCCL uses on IB and RoCE (IB active MTU 4096; NCCL_IB_* defaults)."""
TCP_MSS_BYTES: Final = 8948
"""TCP payload per segment with 9000-byte jumbo frames (9000 - 20 IP - 32 TCP w/ timestamps)."""
TCP_STREAM_BPS: Final = 42e9
"""Throughput one core sustains for one TCP stream with TSO/GRO/jumbo frames, bits/s
(Cai et al., "Understanding host network stack overheads", SIGCOMM'21; reference
host-and-dpu-offload-figures.md D-13, confidence M)."""
NCCL_SOCKET_STREAMS: Final = 1
"""NCCL socket streams per connection: NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD, both
default 1 on generic hosts (NCCL environment-variable docs; AWS/GCP plugins raise them)."""
TCP_RTO_MIN_S: Final = 0.2
"""Linux minimum retransmission timeout, 200 ms (include/net/tcp.h TCP_RTO_MIN; reference 4.4)."""
TCP_REF_CORE_HZ: Final = 3.0e9
"""Clock of the core behind :data:`TCP_STREAM_BPS` (assumed ~3 GHz server core; the paper's
exact part is not in our reference), so TCP costs 3e9 / 5.25e9 = 0.57 cycles per byte per end
(the 2003 rule "1 GHz per Gb/s" = 8 cycles/byte, reference D-14, predates TSO/GRO)."""
MATHIS_C: Final = math.sqrt(1.5)
"""Mathis et al. 1997 constant: rate = MSS / RTT x sqrt(3/2) / sqrt(p) (periodic loss)."""
RDMA_PROXY_CORES_PER_RANK: Final = 1.0
"""NCCL runs one busy-polling network proxy thread per rank (NVIDIA/nccl src/proxy.cc,
ncclProxyProgress); charged as one host core per rank for RDMA transports."""
PCIE_EFFICIENCY: Final = 0.88
"""Measured H2D/D2H share of PCIe Gen5 x16 (55.4 of 63 GB/s; reference F-05, nvbandwidth)."""


@dataclass(frozen=True)
class TransportModel:
    """Costs of one transport on one fabric."""

    transport: Transport
    line_Bps: float
    """Line rate of one NIC port, bytes/s."""
    efficiency: float
    """Fraction of line rate a large transfer achieves (fabric efficiency x headers)."""
    latency_s: float
    """One-way small-message latency through the end hosts and NICs, seconds."""
    lossless: bool
    """Packet loss is repaired below the transport (InfiniBand PLR), so it costs nothing here."""
    default_routing: RoutingPolicy
    stream_cap_Bps: float
    """Most one connection moves (TCP: streams x per-core rate; RDMA: line rate), bytes/s."""
    cycles_per_byte: float
    """Host CPU cycles per byte moved, each end (0 for RDMA)."""
    proxy_cores_per_rank: float
    """Host cores busy per rank regardless of traffic (NCCL proxy thread)."""

    @property
    def effective_Bps(self) -> float:
        """Bytes/s one connection on one port achieves with no loss and no contention."""
        return min(self.line_Bps * self.efficiency, self.stream_cap_Bps)

    def goodput_fraction(self, loss_rate: float, rtt_s: float = 10e-6) -> float:
        """Share of :attr:`effective_Bps` left under a packet loss rate.

        InfiniBand repairs loss at the link (1.0). RoCE Go-back-N resends the
        window after each loss: efficiency (1-p)/(1+(W-1)p) with W the window in packets
        (bandwidth-delay product; Bertsekas & Gallager, Data Networks, 2.4.2). TCP follows
        Mathis et al. (1997) per stream, capped at 1.

        Raises:
            SpecError: loss rate outside [0, 1) or non-positive RTT.
        """
        if not 0.0 <= loss_rate < 1.0 or rtt_s <= 0:
            raise SpecError("loss_rate must be in [0, 1) and rtt_s > 0")
        if loss_rate == 0.0 or self.lossless:
            return 1.0
        if self.transport in ("roce", "spectrum-x", "infiniband"):
            window = max(1.0, self.effective_Bps * rtt_s / RDMA_MTU_BYTES)
            return (1 - loss_rate) / (1 + (window - 1) * loss_rate)
        mathis_Bps = TCP_MSS_BYTES / rtt_s * MATHIS_C / math.sqrt(loss_rate)
        return min(1.0, mathis_Bps * NCCL_SOCKET_STREAMS / self.effective_Bps)

    def rto_penalty_s(self, packets: float, loss_rate: float) -> float:
        """Expected extra time of a message of ``packets`` packets from retransmission timeouts.

        Only TCP waits for RTO (tail losses that fast retransmit cannot repair); one RTO per
        lost message is the worst case the incast literature reports (reference 4.4).
        """
        if self.transport != "tcp" or loss_rate <= 0:
            return 0.0
        return (1.0 - (1.0 - loss_rate) ** packets) * TCP_RTO_MIN_S

    def host_cores(self, bandwidth_Bps: float, cpu_hz: float, ranks: int = 1) -> float:
        """Host cores busy moving ``bandwidth_Bps`` (each direction) for ``ranks`` ranks.

        Raises:
            SpecError: negative bandwidth or non-positive clock.
        """
        if bandwidth_Bps < 0 or cpu_hz <= 0:
            raise SpecError("bandwidth must be >= 0 and cpu_hz > 0")
        return bandwidth_Bps * self.cycles_per_byte / cpu_hz + ranks * self.proxy_cores_per_rank

    def cores_per_gbps(self, cpu_hz: float) -> float:
        """Host cores per Gb/s of traffic (per end), excluding the fixed proxy threads.

        Raises:
            SpecError: non-positive clock.
        """
        if cpu_hz <= 0:
            raise SpecError("cpu_hz must be > 0")
        return 1e9 / 8.0 * self.cycles_per_byte / cpu_hz


def header_efficiency(transport: Transport) -> float:
    """Payload share of the wire for full-MTU packets of ``transport``."""
    if transport == "infiniband":
        return RDMA_MTU_BYTES / (RDMA_MTU_BYTES + IB_HEADER_BYTES)
    if transport in ("roce", "spectrum-x"):
        return RDMA_MTU_BYTES / (RDMA_MTU_BYTES + ROCE_HEADER_BYTES)
    return TCP_MSS_BYTES / (TCP_MSS_BYTES + TCP_FRAME_OVERHEAD_BYTES)


def transport_model(fabric: FabricSpec, *, transport: Transport | None = None) -> TransportModel:
    """The transport model of ``fabric`` (optionally forcing another transport on its links).

    ``fabric.efficiency`` is taken to include encoding and header overheads for the fabric's
    own transport; forcing another transport rescales by the ratio of header efficiencies.
    """
    kind: Transport = transport or fabric.transport
    line = fabric.link_bps / 8.0
    eff = fabric.efficiency * header_efficiency(kind) / header_efficiency(fabric.transport)
    if kind == "tcp":
        return TransportModel(
            transport=kind,
            line_Bps=line,
            efficiency=eff,
            latency_s=fabric.latency_s,
            lossless=False,
            default_routing="ecmp",
            stream_cap_Bps=NCCL_SOCKET_STREAMS * TCP_STREAM_BPS / 8.0,
            cycles_per_byte=TCP_REF_CORE_HZ / (TCP_STREAM_BPS / 8.0),
            proxy_cores_per_rank=0.0,
        )
    return TransportModel(
        transport=kind,
        line_Bps=line,
        efficiency=eff,
        latency_s=fabric.latency_s,
        lossless=kind == "infiniband",  # link-level retransmission (PLR); RoCE has none
        default_routing={"infiniband": "adaptive", "spectrum-x": "adaptive"}.get(kind, "ecmp"),  # type: ignore[arg-type]
        stream_cap_Bps=math.inf,
        cycles_per_byte=0.0,
        proxy_cores_per_rank=RDMA_PROXY_CORES_PER_RANK,
    )


def staged_Bps(nic_Bps: float, pcie_Bps: float, *, gpudirect: bool) -> float:
    """Bytes/s of GPU-to-network traffic through one NIC.

    With GPUDirect RDMA the NIC reads GPU memory over PCIe peer-to-peer, so the NIC rate
    bounds it. Without it (NCCL_NET_GDR_LEVEL below the GPU-NIC distance) each byte is first
    copied GPU -> host bounce buffer and the NIC then reads host memory: the copy is pipelined
    but the GPU's PCIe link carries it at the measured D2H efficiency (reference F-05).

    Raises:
        SpecError: a bandwidth is not positive.
    """
    if nic_Bps <= 0 or pcie_Bps <= 0:
        raise SpecError("bandwidths must be > 0")
    if gpudirect:
        return nic_Bps
    return min(nic_Bps, pcie_Bps * PCIE_EFFICIENCY)
