"""PAT (Parallel Aggregated Trees; arXiv 2506.20252): all-gather / reduce-scatter with a
logarithmic number of network transfers, NCCL >= 2.23, one GPU per node only.

Bandwidth 0.75 x the ring bound, latency base + log2(N) x interLat / 3.5 + 2.8 us x n, both
as in NCCL's tuner (nccl-cost-model.md B.2-B.3).
"""

from __future__ import annotations

import math

from fabrictwin.collectives.base import US, AlgoCost, Op, base_lat_us, bus_factor, inter_lat_us, ring_bus_Bps
from fabrictwin.collectives.context import CommContext
from fabrictwin.collectives.nccl_constants import PAT_BW_FRACTION, Proto

PAT_PER_RANK_US = 2.8
"""Per-rank latency term of PAT (tuning.cc; B.3)."""


def cost(ctx: CommContext, op: Op, proto: Proto) -> AlgoCost | None:
    """PAT cost (Simple, 1 rank per node, >= 2 nodes); None otherwise."""
    if op not in ("all_gather", "reduce_scatter") or proto != "simple":
        return None
    if ctx.ppn != 1 or ctx.nodes < 2:
        return None
    lat = (
        base_lat_us("pat", proto)
        + math.log2(ctx.nodes) * inter_lat_us(ctx, "pat", proto) / 3.5
        + PAT_PER_RANK_US * ctx.ranks
    )
    bus = ring_bus_Bps(ctx) * PAT_BW_FRACTION
    return AlgoCost(lat * US, bus / bus_factor(op, ctx.ranks))
