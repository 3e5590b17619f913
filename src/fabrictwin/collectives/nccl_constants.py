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

HOST_FLOOR_US: Final[dict[str, float]] = {
    # nccl-tests times back-to-back launches: one iteration costs max(GPU time, host enqueue
    # time). The host side (NCCL enqueue + CUDA launch) depends on the CPU platform - NCCL
    # itself doubles its per-step proxy overhead on AMD (netOverhead 2.0 vs 1.0 us, B.3).
    "intel": 21.0,  # fitted: A-032..A-036 (ND H100 v5, Xeon 8480C, 25.6-30 us) and
    #                 A-104..A-107 (H200, 17.9-18.6 us); 21 us splits them (-18% / +17%)
    "amd": 40.0,  # fitted: A-056..A-064 (ND A100 v4, EPYC 7V12 Rome, 42-45 us flat to 256 KiB)
    "arm": 21.0,  # no data: Intel value reused
}

NVLS_LAT_US: Final = 55.0
"""Effective NVLS latency inside one NVLink domain (NCCL's table: 25 us, B.3). Fitted on the
H200 NVLS sweep A-110..A-122 (2 MiB-8 GiB): a fixed cost of 55 us reproduces the slow ramp
of measured NVLS bandwidth (multicast setup and the SM-driven reduce/multicast pipeline);
NCCL's 25 us over-predicts busbw by 30-45 % at 4-32 MiB."""
