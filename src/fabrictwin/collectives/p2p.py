"""Point-to-point based ops: all_to_all (pairwise exchange) and send_recv.

All-to-all: every rank sends nbytes/n to each peer, all at once (NCCL group of n-1 sends and
receives). Bytes leaving a node through its NICs: ppn x nbytes x (N-1)/N; bytes over each
GPU's NVLink to local peers: nbytes x (ppn-1)/n; the slower of the two sets the time
(pairwise exchange bound, reference 3.2; full-bisection fabric assumed - the flow fidelity
checks the fabric). Latency: one Simple hop plus NCCL's per-message proxy overhead
(netOverhead, B.3) for each remote peer, since the proxy posts them one by one.

send_recv: one buffer between two ranks, on different nodes when the context has >= 2
nodes; the pair uses one rank's NIC share (NCCL p2p, no PXN striping).
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
    nic_rank_Bps,
    nvlink_bus_Bps,
)
from fabrictwin.collectives.context import CommContext
from fabrictwin.collectives.nccl_constants import NET_OVERHEAD_US, Proto


def _hop_us(ctx: CommContext, proto: Proto) -> float:
    return inter_lat_us(ctx, "ring", proto) if ctx.nodes > 1 else intra_lat_us(ctx, "ring", proto)


def cost(ctx: CommContext, op: Op, proto: Proto) -> AlgoCost | None:
    """Cost of all_to_all or send_recv (Simple and LL); None for other ops."""
    if op not in ("all_to_all", "send_recv") or proto == "ll128" or ctx.ranks < 2:
        return None
    if proto == "ll" and op == "all_to_all":
        return None
    lat = base_lat_us("ring", proto) + _hop_us(ctx, proto)
    if op == "send_recv":
        bw = nic_rank_Bps(ctx) if ctx.nodes > 1 else nvlink_bus_Bps(ctx)
        if proto == "ll":
            bw *= 0.5  # LL carries 4 data bytes per 8-byte word (B.2 Ring/LL factor)
        return AlgoCost(lat * US, bw)
    n, ppn, nodes = ctx.ranks, ctx.ppn, ctx.nodes
    sec = 0.0
    if nodes > 1:
        sec = max(sec, (nodes - 1) / nodes / nic_rank_Bps(ctx))
    if ppn > 1:
        sec = max(sec, (ppn - 1) / n / nvlink_bus_Bps(ctx))
    lat += (n - ppn) * NET_OVERHEAD_US if nodes > 1 else 0.0
    return AlgoCost(lat * US, 1.0 / sec if sec > 0 else math.inf)
