"""NVLS and NVLSTree: NVLink SHARP reductions in the NVSwitch (Hopper and later).

Inside one NVLink domain of g ranks each GPU issues a multicast load-reduce on its 1/g slice
(the switch reads that slice from every GPU and returns the sum) and a multicast store of
the result; per GPU the link carries (1 + 1/g) x nbytes each way instead of the ring's
2(g-1)/g x nbytes (reference fabric-and-network-models.md 3.4, "NVLS traffic arithmetic").
Achieved bandwidth = NVLink rate x our ring data efficiency x NCCL's nvlsEfficiency
(0.85 Hopper, 0.74 Blackwell; nccl-cost-model.md B.2).

Across nodes (NCCL >= 2.18): NVLS + IB SHARP (needs CollNet support) or NVLSTree (NVLS
inside, double binary tree between nodes). Latency: NCCL's NVLS rows (B.3).

Chunk schedule (one node): NCCL runs NVLS on ``nvlsChannels`` (16) channels x ``g`` heads and
shrinks the chunk from 128 KiB to 64/32/16 KiB as the message gets smaller (enqueue.cc
calcCollChunking). Each chunk pays a fixed round (multimem load-reduce, store, flag sync), so
a chunk of ``c`` bytes runs at ``c / (c + k)`` of the rate: NVLS bandwidth ramps with size in
steps, which is the slow NVLS ramp measured from 2 to 64 MiB (A-110..A-115, A-043..A-048).

Bus-bandwidth accounting: nccl-tests still divides by 2(n-1)/n, so NVLS busbw can exceed
the NVLink per-GPU rate (e.g. 480 GB/s on H200 whose NVLink is 450 GB/s one way).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from fabrictwin.collectives.base import (
    US,
    AlgoCost,
    Op,
    base_lat_us,
    inter_lat_us,
    net_node_Bps,
    nvlink_bus_Bps,
    tree_node_load,
)
from fabrictwin.collectives.context import CommContext
from fabrictwin.collectives.nccl_constants import (
    COLLNET_HOPPER_FACTOR,
    NVLS_CHANNELS,
    NVLS_CHUNK_OVERHEAD_BYTES,
    NVLS_CHUNK_STEPS,
    NVLS_EFFICIENCY,
    NVLS_LAT_US,
    NVLS_MAX_CHUNK_BYTES,
    Algo,
    Proto,
)

SUPPORTED: tuple[Op, ...] = ("all_reduce", "all_gather", "reduce_scatter")


def available(ctx: CommContext) -> bool:
    """NVLS needs NVSwitch multicast (Hopper+) and at least 2 ranks in the NVLink domain."""
    return ctx.system.nvswitch and NVLS_EFFICIENCY[ctx.arch] > 0 and ctx.ppn >= 2


def intra_algbw_Bps(ctx: CommContext, op: Op) -> float:
    """Algorithm bandwidth of the NVLS part inside one NVLink domain."""
    g = ctx.ppn
    link = nvlink_bus_Bps(ctx) * NVLS_EFFICIENCY[ctx.arch]
    if op == "all_reduce":
        return link / (1.0 + 1.0 / g)
    # all_gather / reduce_scatter: each GPU moves (g-1)/g of the buffer over its link
    return link * g / (g - 1)


def chunk_bytes(nbytes: npt.NDArray[np.float64], ops: int) -> npt.NDArray[np.float64]:
    """NCCL's NVLS chunk size for each message size with ``ops`` concurrent chunk streams."""
    chunk = np.full(nbytes.shape, float(NVLS_MAX_CHUNK_BYTES))
    for factor, smaller in NVLS_CHUNK_STEPS:
        chunk = np.where((nbytes < factor * ops * chunk) & (chunk > smaller), float(smaller), chunk)
    return chunk


def chunk_efficiency(nbytes: npt.NDArray[np.float64], ops: int) -> npt.NDArray[np.float64]:
    """Share of the calibrated (128 KiB-chunk) NVLS rate reached at each message size."""
    c = chunk_bytes(nbytes, ops)
    k = NVLS_CHUNK_OVERHEAD_BYTES
    return (1.0 + k / NVLS_MAX_CHUNK_BYTES) / (1.0 + k / c)


def cost(ctx: CommContext, op: Op, proto: Proto, *, tree: bool = False) -> AlgoCost | None:
    """NVLS (``tree=False``) or NVLSTree cost; None when unavailable (Simple protocol only)."""
    if proto != "simple" or op not in SUPPORTED or not available(ctx):
        return None
    intra = intra_algbw_Bps(ctx, op)
    algo: Algo = "nvls_tree" if tree else "nvls"
    lat = base_lat_us(algo, proto) + NVLS_LAT_US
    if ctx.nodes == 1:
        # one head per GPU of the NVLink domain, NVLS_CHANNELS channels each
        return None if tree else AlgoCost(lat * US, intra, chunk_ops=NVLS_CHANNELS * ctx.ppn)
    if op != "all_reduce":
        return None
    inter = inter_lat_us(ctx, algo, proto)
    if tree:
        # NVLSTree: double binary tree between nodes over all NICs of the node
        alg = min(intra, net_node_Bps(ctx) / tree_node_load(ctx.nodes))
        return AlgoCost((lat + 2.0 * math.log2(ctx.nodes) * inter) * US, alg)
    if not ctx.sharp_capable:
        return None
    # NVLS + IB SHARP: each node sends the buffer once up the switch tree and receives it once
    alg = min(intra, net_node_Bps(ctx) * COLLNET_HOPPER_FACTOR)
    return AlgoCost((lat + inter) * US, alg)
