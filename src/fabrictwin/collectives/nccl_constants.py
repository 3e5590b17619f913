"""NCCL tuner constants (latencies in microseconds, bandwidth caps in GB/s), and our fits.

Source of every NCCL value: NVIDIA/nccl ``src/graph/tuning.cc`` at commit
5067397c2676d5aed50042fc39e5c8ee96eb0027 (after v2.30.7-1), as transcribed in
``shared/reference/nccl-cost-model.md`` sections B.2-B.3. Values are kept in NCCL's own
units (us, GB/s) here and converted to SI where they are used.

The few values *we* fitted are at the bottom, each with the data it was fitted on.
"""

from __future__ import annotations

from typing import Final, Literal

Arch = Literal["volta", "ampere", "hopper", "blackwell"]
Algo = Literal["ring", "tree", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat"]
Proto = Literal["ll", "ll128", "simple"]
PROTOCOLS: Final[tuple[Proto, ...]] = ("ll", "ll128", "simple")

BASE_LAT_US: Final[dict[Algo, dict[Proto, float]]] = {
    # tuning.cc baseLat (nccl-cost-model.md B.3 "Base latencies")
    "tree": {"ll": 6.8, "ll128": 14.0, "simple": 8.4},
    "ring": {"ll": 6.6, "ll128": 14.0, "simple": 8.4},
    "collnet_direct": {"ll": 0.0, "ll128": 0.0, "simple": 0.0},
    "collnet_chain": {"ll": 0.0, "ll128": 0.0, "simple": 0.0},
    "nvls": {"ll": 0.0, "ll128": 0.0, "simple": 0.0},
    "nvls_tree": {"ll": 0.0, "ll128": 0.0, "simple": 0.0},
    "pat": {"ll": 8.0, "ll128": 8.0, "simple": 8.0},
}

Link = Literal["nvlink", "pcie", "net"]

HW_LAT_US: Final[dict[Link, dict[Algo, dict[Proto, float]]]] = {
    # tuning.cc hwLat[NVLINK|PCI|NET][algo][proto] (nccl-cost-model.md B.3 table); NaN: disabled
    "nvlink": {
        "tree": {"ll": 0.6, "ll128": 1.25, "simple": 4.0},
        "ring": {"ll": 0.6, "ll128": 1.9, "simple": 3.4},
        "collnet_direct": {"ll": 0.0, "ll128": 0.0, "simple": 3.7},
        "collnet_chain": {"ll": 0.0, "ll128": 0.0, "simple": 2.8},
        "nvls": {"ll": 0.0, "ll128": 0.0, "simple": 25.0},
        "nvls_tree": {"ll": 0.0, "ll128": 0.0, "simple": 25.0},
        "pat": {"ll": 0.0, "ll128": 0.0, "simple": 4.0},
    },
    "pcie": {
        "tree": {"ll": 1.0, "ll128": 1.9, "simple": 4.0},
        "ring": {"ll": 1.0, "ll128": 2.5, "simple": 5.7},
        "collnet_direct": {"ll": 0.0, "ll128": 0.0, "simple": 3.7},
        "collnet_chain": {"ll": 0.0, "ll128": 0.0, "simple": 2.8},
        "nvls": {"ll": 0.0, "ll128": 0.0, "simple": 0.0},
        "nvls_tree": {"ll": 0.0, "ll128": 0.0, "simple": 0.0},
        "pat": {"ll": 0.0, "ll128": 0.0, "simple": 4.0},
    },
    "net": {
        "tree": {"ll": 5.0, "ll128": 8.5, "simple": 14.0},
        "ring": {"ll": 2.7, "ll128": 4.0, "simple": 14.0},
        "collnet_direct": {"ll": 0.0, "ll128": 0.0, "simple": 31.0},
        "collnet_chain": {"ll": 0.0, "ll128": 0.0, "simple": 30.0},
        "nvls": {"ll": 0.0, "ll128": 0.0, "simple": 18.0},
        "nvls_tree": {"ll": 0.0, "ll128": 0.0, "simple": 20.9},
        "pat": {"ll": 0.0, "ll128": 0.0, "simple": 14.0},
    },
}

NET_OVERHEAD_US: Final = 1.0
"""Per-step proxy overhead on multi-node rings (Intel/ARM 1.0 us, AMD 2.0 us), x3 for Simple
(tuning.cc netOverhead; nccl-cost-model.md B.3)."""

RING_PLATEAU_LAT_FACTOR: Final[dict[Arch, float]] = {
    # Ring+Simple AllReduce multi-node latency x1.9 pre-Ampere, x1.4 Ampere+ (B.1 correction 2)
    "volta": 1.9,
    "ampere": 1.4,
    "hopper": 1.4,
    "blackwell": 1.4,
}

LL_MAX_BW_GBPS: Final[dict[Arch, tuple[float, float, float]]] = {
    # llMaxBws: columns 1 node / 2 nodes / >= 3 nodes (B.2 caps table)
    "volta": (39.0, 39.0, 20.4),
    "ampere": (87.7, 22.5, 19.0),
    "hopper": (141.0, 45.0, 35.0),
    "blackwell": (282.0, 90.0, 70.0),
}

NVLS_EFFICIENCY: Final[dict[Arch, float]] = {
    # nvlsEfficiency (tuning.cc, NCCL 2.28+): 0 Volta/Ampere (no NVLink SHARP), 0.85 Hopper, 0.74 Blackwell
    "volta": 0.0,
    "ampere": 0.0,
    "hopper": 0.85,
    "blackwell": 0.74,
}

LL_BW_FRACTION: Final = 0.5
"""Ring/LL: bandwidth = min(llMaxBw, 0.5 x busBw) (B.2; LL sends 8-byte flag+data words)."""
LL128_BW_FRACTION: Final = 0.92
"""Ring/LL128: 0.92 x busBw (B.2; 120 data bytes per 128-byte line, minus sync cost)."""
TREE_BW_FRACTION: Final = 0.92
"""Tree AllReduce: min(0.92 x busBw, ...) (B.2)."""
TREE_LL_DIVISOR: Final = 3.8
"""Tree/LL: busBw / 3.8 (B.2)."""
TREE_LL128_FRACTION: Final = (7.0 / 9.0, 120.0 / 128.0)
"""Tree/LL128: x 7/9 on one node, x 120/128 multi-node (B.2)."""
TREE_CORRECTION: Final[dict[Proto, tuple[float, ...]]] = {
    # tuning.cc treeCorrectionFactor[proto][log2(nBytes >> 6)], 64 B .. 256 MiB (1.0 beyond):
    # "Trees are not perfectly sticking to the model for medium sizes" (B.1 correction 1).
    # Same table in releases 2.18 through 2.2x.
    "ll": (1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.7, 0.7, 0.7, 0.7, 0.6, 0.5, 0.4, 0.4, 0.5, 0.6, 0.7,
           0.8, 0.9, 1.0, 1.0, 1.0, 1.0),
    "ll128": (1.0, 1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.8, 0.8, 0.7, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6,
              0.8, 0.9, 0.9, 0.9, 0.9, 1.0, 1.0),
    "simple": (0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.8, 0.7, 0.6, 0.6, 0.5, 0.5, 0.5, 0.5, 0.6,
               0.7, 0.8, 0.7, 0.7, 0.8, 0.9, 0.9),
}  # fmt: skip
PAT_BW_FRACTION: Final = 0.75
"""PAT: x 0.75 (B.2)."""
COLLNET_HOPPER_FACTOR: Final = 0.85
"""CollNetDirect AllReduce: x 0.85 on Hopper and later (B.2)."""

# --------------------------------------------------------------------------------------------
# Our fits (physically meaningful parameters only), each with what it was fitted on.
# --------------------------------------------------------------------------------------------

NVLINK_DATA_EFFICIENCY: Final[dict[Arch, float]] = {
    # Achievable fraction of the NVLink per-GPU one-way rate for a large ring collective
    # (packet headers, flow control, SM copy loop). Each fitted on ONE 8 GiB ring point of
    # shared/reference/nccl-calibration.csv: busbw / nvlink_Bps.
    "volta": 0.77,  # no Volta point; Ampere value reused
    "ampere": 0.772,  # A100 8 GPUs 231.58 GB/s / 300 GB/s
    "hopper": 0.812,  # H200 8 GPUs Ring 365.6 GB/s / 450 GB/s (ASTRA-sim: 741/900 = 0.82)
    "blackwell": 0.758,  # B200 8 GPUs Ring 682.2 GB/s / 900 GB/s
}

NET_DATA_EFFICIENCY: Final = 0.966
"""Share of the header-limited NIC rate NCCL's network path achieves for large rings (PCIe
read/write of the NIC, proxy scheduling). Fitted on A-200 (NCCL maintainer, nccl#812: DGX
A100 with 8 x HDR 200 Gb/s measures 192 GB/s all-reduce busbw): 192 / (200 x 0.9937)."""

LAUNCH_US: Final[dict[str, float]] = {
    # Host time to enqueue one NCCL collective and launch its kernel on one GPU. nccl-tests
    # times back-to-back calls, so an iteration costs max(GPU time, host time), and one host
    # thread driving g GPUs (`-g g`) launches g kernels per iteration in turn (nccl#347: nothing
    # starts until ncclGroupEnd, which then launches on every GPU). Same machine, same NCCL
    # (calibration/nccl-a100-single-node.csv sweeps B and C): ~39 us flat for small sizes with
    # `-g 8`, 18-24 us with `mpirun -np 8` (GPU-bound), so the floor is the launches.
    "intel": 3.32,  # fitted: median of A-032..A-036 (ND H100 v5, Xeon 8480C, `-g 8`) / 8
    "amd": 5.43,  # fitted: median of A-056..A-064 (ND A100 v4, EPYC 7V12 Rome, `-g 8`) / 8
    "arm": 3.32,  # no data: Intel value reused
}

AMPERE_NVLINK_RING_LL128_FRACTION: Final = 0.651
"""Ring/LL128 bus bandwidth as a share of Ring/Simple's on one 8 x A100 NVSwitch node, in the
range NCCL runs LL128 there (~1-23 MiB); NCCL's tuner assumes 0.92. Fitted, with the two
per-hop costs below, by least squares on log time over six independent published sweeps
(calibration/nccl-a100-single-node.csv, A-F, 2 MiB-8 GiB; `calibration/fit_ampere_ring.py`).
Leave-one-sweep-out: 0.63-0.68. Validated, not fitted, on the Azure sweep A-066..A-079."""

AMPERE_NVLINK_RING_HOP_US: Final[dict[Proto, float]] = {
    # Per-hop (per ring step) cost of a single-node A100 ring, same fit (leave-one-out:
    # LL128 2.9-3.8 us, Simple 9.6-10.9 us). NCCL's hwLat says 1.9 and 3.4 us; at 4-32 MiB all
    # seven A100 sweeps take 18-79 % longer than NCCL's own estimate (the one-process-per-GPU
    # sweep C 18-22 %). The fit assumes the pre-2.21 tuner's protocol choice for every sweep
    # (only A-066..A-079 and sweep D state 2.18.5 / 2.19.3). Simple moves a
    # slice per step with a fence and a flag handshake over NVLink, and below 384 MiB (24
    # channels x 8 ranks x 2 MiB chunks) there is a single pipeline loop, so each of the 14
    # steps shows that handshake. LL has no mid-size data (NCCL's 0.6 us kept).
    "ll": 0.6,
    "ll128": 3.34,
    "simple": 10.25,
}

NVLS_LAT_US: Final = 28.0
"""Fixed cost of a single-node NVLS all-reduce (NCCL's table: 25 us, B.3). Fitted together
with :data:`NVLS_CHUNK_OVERHEAD_BYTES` by least squares on log busbw over the H200 NVLS sweep
A-110..A-123 (2 MiB-16 GiB, NCCL 2.30.7, "NVLS/Simple >= 2MiB" in the author's TUNING log):
28.0 us. Validated, not fitted, on the ND H100 v5 sweep A-042..A-055 (NCCL 2.18.5)."""

NVLS_CHANNELS: Final = 16
"""Channels NCCL gives NVLS (``comm->nvlsChannels``; enqueue.cc topoGetAlgoInfo: "NVLS should
not need more than 16 channels to get peak BW", NCCL_NVLS_NCHANNELS default 16)."""

NVLS_MAX_CHUNK_BYTES: Final = 131072
"""Largest NVLS chunk (enqueue.cc calcCollChunking, ``maxChunkSize = 131072`` for NVLS)."""

NVLS_CHUNK_STEPS: Final[tuple[tuple[int, int], ...]] = (
    # enqueue.cc calcCollChunking, NVLS branch, applied in this order with concurrentOps =
    # nChannels x nvls.nHeads: chunk -> 64 KiB when nBytes < 64 x ops x chunk, then -> 32 KiB
    # when nBytes < 8 x ops x chunk, then -> 16 KiB when nBytes < 2 x ops x chunk.
    (64, 65536),
    (8, 32768),
    (2, 16384),
)

NVLS_CHUNK_OVERHEAD_BYTES: Final = 19400.0
"""Fixed cost of one NVLS chunk (multimem load-reduce + store round and its flag sync),
expressed in bytes moved at the op's full rate: a chunk of ``c`` bytes runs at
``c / (c + k)`` of the rate, normalised to the 128 KiB chunk on which NVLINK_DATA_EFFICIENCY x
NVLS_EFFICIENCY were calibrated. Fitted with NVLS_LAT_US on A-110..A-123 (19.4 KB)."""

# --------------------------------------------------------------------------------------------
# Older NCCL tuners (what a given release *chooses*; the achieved cost is our model above).
# --------------------------------------------------------------------------------------------

LEGACY_BEFORE: Final = (2, 21)
"""Releases before 2.21 use the legacy tuner constants below (nccl-cost-model.md B.2, B.4)."""
LEGACY_RING_LL_FRACTION: Final = 0.25
"""Ring/LL busBw x 1/4 for all-reduce (v2.18-2.20; B.2 "v2.18 used x1/4"; tuning.cc of the
2.19-2.20 era: ``busBw * 1.0/4.0`` when nNodes > 1 or AllReduce/Reduce)."""
LEGACY_HOPPER_LL_MAX_BW_GBPS: Final = (87.7, 22.5, 19.0)
"""Hopper llMaxBws row before 2.21 = the Ampere row (B.4 "Hopper llMaxBws 87.7/22.5/19.0
(2.19-2.20) then 141/45/35 from 2.21"; the 2.19-era tuning.cc lists the same row for Hopper)."""
LEGACY_NVLS_LAT_US: Final = 23.0
"""NVLS latency of the tuner before 2.28 (B.4 "2.18 ... NVLS 23"; 2.19-era tuning.cc hwLat
NVLink NVLS Simple = 23, base 0, latency = intraLat on one node)."""
LEGACY_NVLS_BUS_RATIO: Final = 5.0 / 6.0
"""NVLS bus-to-algorithm ratio before nvlsEfficiency existed (B.4 "NVLS ratio 5/6")."""
