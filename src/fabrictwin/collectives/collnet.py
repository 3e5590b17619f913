"""CollNet: InfiniBand SHARP in-network all-reduce through Quantum switches (NCCL CollNet).

CollNetDirect: inside the server the ranks reduce-scatter over NVLink, each sends its slice
through its own NIC up the SHARP aggregation tree, and the switches return the sum, which
is all-gathered over NVLink. Each node's NICs carry the buffer once each way instead of
~2x for a ring, hence up to 2x the algorithm bandwidth (reference 3.2). Factor 0.85 on
Hopper+ and latencies per NCCL (nccl-cost-model.md B.2-B.3).

Limits (reference 3.4): InfiniBand with SHARP-capable (Quantum) switches only; NCCL's
CollNetDirect needs NVSwitch and <= 8 local GPUs; one streaming aggregation tree (SAT) carries
at most 1,073,741,792 bytes, so larger buffers are reduced as several SAT operations, each
paying the latency again.
"""

from __future__ import annotations

import math

from fabrictwin.collectives.base import (
    US,
    AlgoCost,
    Op,
    base_lat_us,
    inter_lat_us,
    intra_lat_us,
    net_node_Bps,
    nvlink_bus_Bps,
)
from fabrictwin.collectives.context import CommContext
from fabrictwin.collectives.nccl_constants import COLLNET_HOPPER_FACTOR, Proto

SAT_MAX_BYTES = 1_073_741_792
"""Largest message of one SHARP streaming aggregation tree operation (SHARP 2.6.1 docs;
reference 3.4)."""
COLLNET_ARITY_US = 0.4
"""Per local rank latency term of CollNetDirect (tuning.cc; B.3)."""


def available(ctx: CommContext) -> bool:
    """SHARP usable: IB + SHARP switches + enabled, >= 2 nodes, NVSwitch, <= 8 local ranks."""
    return ctx.sharp_capable and ctx.nodes >= 2 and ctx.system.nvswitch and ctx.ppn <= 8


def latency_us(ctx: CommContext) -> float:
    """base + 2 x (min(1, ppn-1) x intraLat + (ppn-1) x 0.4) + interLat (B.3)."""
    intra = intra_lat_us(ctx, "collnet_direct", "simple")
    inter = inter_lat_us(ctx, "collnet_direct", "simple")
    ppn = ctx.ppn
    return (
        base_lat_us("collnet_direct", "simple")
        + 2.0 * (min(1, ppn - 1) * intra + (ppn - 1) * COLLNET_ARITY_US)
        + inter
    )


def cost(ctx: CommContext, op: Op, proto: Proto) -> AlgoCost | None:
    """CollNetDirect all-reduce cost (Simple only); None when SHARP is unavailable."""
    if op != "all_reduce" or proto != "simple" or not available(ctx):
        return None
    bounds = [net_node_Bps(ctx) * (COLLNET_HOPPER_FACTOR if ctx.arch in ("hopper", "blackwell") else 1.0)]
    if ctx.ppn > 1:
        # intra-node reduce-scatter + all-gather over NVLink: 2(g-1)/g x nbytes per GPU
        bounds.append(nvlink_bus_Bps(ctx) * ctx.ppn / (2.0 * (ctx.ppn - 1)))
    return AlgoCost(latency_us(ctx) * US, min(bounds))


def operations(nbytes: float) -> int:
    """SAT operations needed for ``nbytes`` (each pays the latency)."""
    return max(1, math.ceil(nbytes / SAT_MAX_BYTES))
