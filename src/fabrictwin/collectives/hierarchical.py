"""Hierarchical all-reduce: NVLink inside the server, fabric between servers, in three phases.

1. reduce-scatter over NVLink among the g local ranks: (g-1)/g x nbytes per GPU;
2. all-reduce of each rank's 1/g slice with its peers on the same rail (ring over N nodes):
   2(N-1)/N x nbytes/g through the rank's NIC share;
3. all-gather over NVLink: (g-1)/g x nbytes.

Phases run one after the other (Horovod / "2D" all-reduce; reference 3.2 3-phase form), so
times add, unlike NCCL's flat ring that pipelines NVLink and network hops. Latencies use
NCCL's ring hop latencies. Never auto-selected; force ``algorithm="hierarchical"``.
"""

from __future__ import annotations

from fabrictwin.collectives.base import (
    US,
    AlgoCost,
    Op,
    base_lat_us,
    inter_lat_us,
    intra_lat_us,
    nic_rank_Bps,
    nvlink_bus_Bps,
)
from fabrictwin.collectives.context import CommContext
from fabrictwin.collectives.nccl_constants import Proto


def cost(ctx: CommContext, op: Op, proto: Proto) -> AlgoCost | None:
    """Hierarchical all-reduce cost (needs >= 2 ranks per node and >= 2 nodes)."""
    if op != "all_reduce" or ctx.ppn < 2 or ctx.nodes < 2:
        return None
    g, nodes = ctx.ppn, ctx.nodes
    seconds_per_byte = 2.0 * (g - 1) / g / nvlink_bus_Bps(ctx) + 2.0 * (nodes - 1) / nodes / g / nic_rank_Bps(
        ctx
    )
    lat = (
        3 * base_lat_us("ring", proto)
        + 2 * (g - 1) * intra_lat_us(ctx, "ring", proto)
        + 2 * (nodes - 1) * inter_lat_us(ctx, "ring", proto)
    )
    return AlgoCost(lat * US, 1.0 / seconds_per_byte)
