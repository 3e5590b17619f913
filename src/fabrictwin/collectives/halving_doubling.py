"""Recursive halving-doubling (Rabenseifner) all-reduce, as MPI and Gloo run it (not NCCL).

Reduce-scatter by recursive halving then all-gather by recursive doubling: 2 lg p steps and
2(p-1)/p x nbytes per rank (Thakur, Rabenseifner & Gropp 2005, table in reference 3.2).
With ranks packed per node, the first lg(ppn) exchange distances stay inside the server
(NVLink latency) and the remaining lg(N) cross the network. Non-powers of two first fold the
extra ranks (one more exchange of the full buffer each way). Never auto-selected: NCCL has no
such algorithm; force it with ``algorithm="halving_doubling"``.
"""

from __future__ import annotations

import math

from fabrictwin.collectives.base import (
    US,
    AlgoCost,
    Op,
    bus_factor,
    inter_lat_us,
    intra_lat_us,
    ring_bus_Bps,
)
from fabrictwin.collectives.context import CommContext
from fabrictwin.collectives.nccl_constants import Proto


def cost(ctx: CommContext, op: Op, proto: Proto) -> AlgoCost | None:
    """Halving-doubling cost for all_reduce / all_gather / reduce_scatter (Simple only)."""
    if op not in ("all_reduce", "all_gather", "reduce_scatter") or proto != "simple":
        return None
    p = ctx.ranks
    if p < 2:
        return None
    lg_intra = math.log2(ctx.ppn) if ctx.ppn > 1 else 0.0
    lg_inter = math.ceil(math.log2(ctx.nodes)) if ctx.nodes > 1 else 0.0
    per_pass = lg_intra * intra_lat_us(ctx, "ring", proto) + lg_inter * inter_lat_us(ctx, "ring", proto)
    passes = 2.0 if op == "all_reduce" else 1.0
    lat = passes * per_pass
    bus = ring_bus_Bps(ctx)
    alg = bus / bus_factor(op, p)
    if p & (p - 1):  # fold: one extra full-buffer exchange each way before and after
        hop = inter_lat_us(ctx, "ring", proto) if ctx.nodes > 1 else intra_lat_us(ctx, "ring", proto)
        lat += 2.0 * hop
        alg = 1.0 / (1.0 / alg + 2.0 / bus)
    return AlgoCost(lat * US, alg)
