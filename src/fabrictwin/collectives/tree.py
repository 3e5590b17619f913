"""Double binary tree all-reduce (NCCL >= 2.4; Sanders, Speck & Traeff 2009).

Between nodes two binary trees each carry half the buffer, every node interior in one and a
leaf in the other, so latency grows with log2(nodes) rather than with the rank count; inside
a node each channel is a chain over NVLink. Latency and protocol factors are NCCL's
(nccl-cost-model.md B.2-B.3); bandwidth is bounded by physics:

* network: the busiest node moves :func:`tree_node_load` x nbytes each way through its NICs;
* NVLink: the chain sends the buffer up (reduce) and down (broadcast), rotated across
  channels: 2 (ppn-1)/ppn x nbytes per GPU.

At medium sizes NCCL itself derates tree bandwidth by a measured per-size factor (0.4-1.0,
:func:`correction`); we apply it to the achieved time as NCCL's tuner does to its estimate.
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
    intra_lat_us,
    ll_cap_Bps,
    net_node_Bps,
    nvlink_bus_Bps,
    tree_node_load,
)
from fabrictwin.collectives.context import CommContext
from fabrictwin.collectives.nccl_constants import (
    TREE_BW_FRACTION,
    TREE_CORRECTION,
    TREE_LL128_FRACTION,
    TREE_LL_DIVISOR,
    Proto,
)


def raw_algbw_Bps(ctx: CommContext) -> float:
    """Algorithm bandwidth of the tree before protocol factors."""
    bounds = [math.inf]
    if ctx.ppn > 1:
        # chain up (reduce) and down (broadcast); NCCL rotates the chain across channels, so
        # each GPU sends 2 (ppn-1)/ppn x nbytes over NVLink on average
        bounds.append(nvlink_bus_Bps(ctx) * ctx.ppn / (2.0 * (ctx.ppn - 1)))
    if ctx.nodes > 1:
        bounds.append(net_node_Bps(ctx) / tree_node_load(ctx.nodes))
    return min(bounds)


def correction(nbytes: npt.NDArray[np.float64], proto: Proto) -> npt.NDArray[np.float64]:
    """NCCL's tree bandwidth factor at each size (tuning.cc treeCorrectionFactor)."""
    table = np.array(TREE_CORRECTION[proto])
    chunks = np.floor(np.maximum(nbytes, 0.0) / 64.0)
    idx = np.floor(np.log2(np.maximum(chunks, 1.0))).astype(np.int64)
    return np.where(idx < table.size, table[np.minimum(idx, table.size - 1)], 1.0)


def latency_us(ctx: CommContext, proto: Proto) -> float:
    """base + 2 x ((ppn-1) x intraLat + log2(nodes) x interLat) (B.3)."""
    intra = intra_lat_us(ctx, "tree", proto)
    inter = inter_lat_us(ctx, "tree", proto)
    depth = math.log2(ctx.nodes) if ctx.nodes > 1 else 0.0
    return base_lat_us("tree", proto) + 2.0 * ((ctx.ppn - 1) * intra + depth * inter)


def cost(ctx: CommContext, op: Op, proto: Proto) -> AlgoCost | None:
    """Tree cost for all_reduce; None otherwise (NCCL runs Tree for AllReduce only)."""
    if op != "all_reduce" or ctx.ranks < 2:
        return None
    alg = raw_algbw_Bps(ctx) * TREE_BW_FRACTION
    if proto == "ll":
        alg = min(alg / TREE_LL_DIVISOR, ll_cap_Bps(ctx) / 2.0)
    elif proto == "ll128":
        alg *= TREE_LL128_FRACTION[0] if ctx.nodes == 1 else TREE_LL128_FRACTION[1]
    return AlgoCost(latency_us(ctx, proto) * US, alg)
