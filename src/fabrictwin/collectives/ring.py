"""Ring: NCCL's flat ring over all ranks, one ring per channel (nccl-cost-model.md B.2-B.3).

All-reduce = reduce-scatter + all-gather around the ring: 2(n-1) steps, each rank sending
2(n-1)/n of the buffer (Thakur, Rabenseifner & Gropp 2005; reference 3.2). Bus bandwidth is
bounded by the slowest resource a ring step crosses: NVLink per GPU inside a server and the
node's NIC aggregate between servers (one ring per NIC; reference 3.2 hierarchical note).
"""

from __future__ import annotations

from fabrictwin.collectives.base import (
    US,
    AlgoCost,
    Op,
    base_lat_us,
    bus_factor,
    inter_lat_us,
    intra_lat_us,
    ll128_enabled,
    ll_cap_Bps,
    net_overhead_us,
    ring_bus_Bps,
)
from fabrictwin.collectives.context import CommContext
from fabrictwin.collectives.nccl_constants import (
    AMPERE_NVLINK_RING_HOP_US,
    AMPERE_NVLINK_RING_LL128_FRACTION,
    LL128_BW_FRACTION,
    LL_BW_FRACTION,
    RING_PLATEAU_LAT_FACTOR,
    Proto,
)

SUPPORTED: tuple[Op, ...] = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce")


def measured_ampere(ctx: CommContext) -> bool:
    """An A100 ring over NVSwitch, whose NVLink hops (and, on one node, LL128 rate) are fitted
    on published 8 x A100 sweeps instead of NCCL's tuner table (nccl_constants.AMPERE_NVLINK_RING_*).
    Multi-node rings take the fitted cost for their in-server steps too: the same NVLink hops."""
    return ctx.arch == "ampere" and ctx.system.nvswitch and ctx.gpu.nvlink_Bps > 0 and ctx.ppn > 1


def protocol_bus_Bps(ctx: CommContext, proto: Proto, bus_Bps: float, *, nccl: bool = False) -> float | None:
    """Bus bandwidth a protocol reaches on a ring whose raw bound is ``bus_Bps`` (B.2);
    ``nccl``: NCCL's own tuner factor even where we fitted another."""
    if proto == "ll":
        return min(ll_cap_Bps(ctx), LL_BW_FRACTION * bus_Bps)
    if proto == "ll128":
        if not ll128_enabled(ctx):
            return None
        fitted = measured_ampere(ctx) and ctx.nodes == 1 and not nccl
        return (AMPERE_NVLINK_RING_LL128_FRACTION if fitted else LL128_BW_FRACTION) * bus_Bps
    return bus_Bps


def steps(op: Op, n: int, nodes: int) -> tuple[int, int]:
    """(total steps, steps that cross the network) of one ring pass (B.3)."""
    if op == "all_reduce":
        return 2 * (n - 1), 2 * (nodes - 1)
    if op in ("all_gather", "reduce_scatter"):
        return n - 1, nodes - 1
    return n, nodes - 1


def latency_us(ctx: CommContext, op: Op, proto: Proto, *, nccl: bool = False) -> float:
    """NCCL ring latency: base + intra steps x max(intraLat, netOverhead) + inter steps x interLat;
    ``nccl``: NCCL's own per-hop latency even where we fitted another."""
    n, nodes = ctx.ranks, ctx.nodes
    intra = intra_lat_us(ctx, "ring", proto)
    if measured_ampere(ctx) and not nccl:
        intra = AMPERE_NVLINK_RING_HOP_US[proto]
    inter = inter_lat_us(ctx, "ring", proto)
    base = base_lat_us("ring", proto)
    if op in ("broadcast", "reduce"):
        return base + (inter if nodes > 1 else intra)
    nsteps, ninter = steps(op, n, nodes)
    lat = base + (nsteps - ninter) * max(intra, net_overhead_us(ctx, proto)) + ninter * inter
    if op == "all_reduce" and proto == "simple" and nodes > 1:
        lat *= RING_PLATEAU_LAT_FACTOR[ctx.arch]
    return lat


def cost(ctx: CommContext, op: Op, proto: Proto, *, nccl: bool = False) -> AlgoCost | None:
    """Ring cost, or None when the op or protocol does not apply. ``nccl``: the cost NCCL's
    tuner estimates, where it differs from the calibrated one (:func:`measured_ampere`)."""
    if op not in SUPPORTED or ctx.ranks < 2:
        return None
    bus = protocol_bus_Bps(ctx, proto, ring_bus_Bps(ctx), nccl=nccl)
    if bus is None:
        return None
    return AlgoCost(latency_us(ctx, op, proto, nccl=nccl) * US, bus / bus_factor(op, ctx.ranks))
