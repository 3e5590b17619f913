"""Flow-level fidelity: collectives as max-min fair flows on the built fat tree.

NCCL's algorithms are pipelines: every ring (one per channel, i.e. per NIC rail) moves its
share of the buffer hop by hop, and a ring advances at the pace of its slowest hop. So one
ring is *one* flow whose path is the union of its hops: weight on a link = sum over the
ring's hops (and over the queue pairs of each hop, each carrying 1/q of the hop's bytes, as
NCCL round-robins messages over QPs) of the share crossing that link. Rings then share links
max-min fairly (:mod:`fabrictwin.netsolver.maxmin`); when a ring finishes the others speed up
(:mod:`fabrictwin.netsolver.progression`). NVLink is added as one virtual link per GPU
(egress), so a ring is bounded by NVLink and by the network together. Trees are handled the
same way (one flow per tree per channel over all its parent-child edges, both directions);
all-to-all and send/recv are direct flows.

The algorithm and protocol are chosen by the analytic tuner (NCCL's tuner does not see
congestion either); latency is the analytic latency; the bandwidth term comes from the flows,
scaled by the protocol's efficiency. NVLSTree = NVLS inside the node + the tree flows between
nodes; SHARP (CollNet, NVLS+SHARP) = one buffer share up and down each host link (the
aggregation tree above the leaves is taken as uncontended). Algorithms without a fabric part
or without a flow schedule here (NVLS on one node, PAT, halving-doubling, hierarchical) keep
their analytic time.

Legend: ``R`` ring/tree flows, ``L`` links (topology links, then one NVLink link per GPU).
"""

from __future__ import annotations

import functools

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from fabrictwin.collectives import nvls, tree
from fabrictwin.collectives.analytic import Candidate, candidates, evaluate, size_efficiency
from fabrictwin.collectives.base import (
    Op,
    bus_factor,
    channels,
    host_floor_s,
    nic_rank_Bps,
    nvlink_bus_Bps,
    ring_bus_Bps,
    tree_edges,
)
from fabrictwin.collectives.context import CommContext
from fabrictwin.collectives.nccl_constants import COLLNET_HOPPER_FACTOR
from fabrictwin.errors import Infeasible
from fabrictwin.netsolver.progression import progress
from fabrictwin.topology import Routing, Topology, build_fat_tree, route

FLOW_ALGORITHMS = ("ring", "tree", "p2p", "nvls_tree", "nvls", "collnet")
"""Algorithms with a flow schedule; the others keep their analytic time."""


COLLNET_HOPPER_FACTOR_OF = {
    "volta": 1.0,
    "ampere": 1.0,
    "hopper": COLLNET_HOPPER_FACTOR,
    "blackwell": COLLNET_HOPPER_FACTOR,
}
"""SHARP factor per architecture, as in the analytic model (collectives/collnet.py)."""


def topology_for(ctx: CommContext) -> Topology:
    """The context's topology, or a non-blocking rail-optimized fat tree built from its specs.

    Raises:
        Infeasible: the switch radix cannot build a fat tree for this many nodes.
    """
    if ctx.topology is not None:
        return ctx.topology  # type: ignore[no-any-return]
    if ctx.switch is None:
        raise Infeasible("flow fidelity needs a topology or a switch model to build one")
    return _fat_tree(
        ctx.nodes, ctx.nics_per_node, ctx.switch.ports, ctx.fabric.link_bps, ctx.switch.latency_s
    )


@functools.lru_cache(maxsize=32)
def _fat_tree(nodes: int, rails: int, radix: int, link_bps: float, switch_latency_s: float) -> Topology:
    """Built topologies are immutable, so one build serves every estimate on that fabric."""
    return build_fat_tree(nodes, rails, radix, link_bps, switch_latency_s=switch_latency_s)


def link_capacity_Bps(ctx: CommContext, topo: Topology) -> npt.NDArray[np.float64]:
    """Usable bytes/s per topology link: line rate x the transport's achievable share."""
    per_port_line = ctx.fabric.link_bps / 8.0
    share = nic_rank_Bps(ctx) / ctx.nics_per_rank / per_port_line
    return np.asarray(topo.capacity_Bps, dtype=np.float64) * share


def rails_used(ctx: CommContext) -> int:
    """Channels (one per NIC rail) the communicator's rings use on each node."""
    return channels(ctx)


def _collapse(routing: Routing, owner_of_flow: npt.NDArray[np.int64], n_owner: int) -> sp.csr_matrix:
    """Sum the subflows of each requested flow into its owner's row, weighted by byte share."""
    m = sp.diags(routing.fraction) @ routing.matrix
    owner = owner_of_flow[routing.flow]
    h = sp.csr_matrix((np.ones(owner.size), (owner, np.arange(owner.size))), shape=(n_owner, owner.size))
    return sp.csr_matrix(h @ m)


def _route(
    ctx: CommContext, topo: Topology, src: npt.NDArray[np.int64], dst: npt.NDArray[np.int64]
) -> Routing:
    return route(topo, src, dst, ctx.routing_policy, qps=ctx.qps, seed=0)


def ring_flows(ctx: CommContext, topo: Topology) -> tuple[sp.csr_matrix, npt.NDArray[np.float64]]:
    """Routing matrix (rings x links incl. NVLink) and capacities of the channel rings."""
    nch, nodes, ppn = rails_used(ctx), ctx.nodes, ctx.ppn
    cap_net = link_capacity_Bps(ctx, topo)
    blocks = []
    if nodes > 1:
        c = np.repeat(np.arange(nch), nodes)
        k = np.tile(np.arange(nodes), nch)
        src = topo.endpoint_of(k, c)
        dst = topo.endpoint_of((k + 1) % nodes, c)
        blocks.append(_collapse(_route(ctx, topo, src, dst), c, nch))
    else:
        blocks.append(sp.csr_matrix((nch, topo.n_links)))
    caps = [cap_net]
    if ppn > 1:
        # ring c leaves each node from GPU c % ppn; every other GPU forwards it over NVLink
        rows, cols = [], []
        for ch in range(nch):
            gpus = np.array([g for g in range(ppn) if g != ch % ppn or nodes == 1])
            for k_node in range(nodes):
                rows.extend([ch] * gpus.size)
                cols.extend((k_node * ppn + gpus).tolist())
        blocks.append(sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(nch, nodes * ppn)))
        caps.append(np.full(nodes * ppn, nvlink_bus_Bps(ctx)))
    return sp.csr_matrix(sp.hstack(blocks)), np.concatenate(caps)


def ring_bandwidth_seconds_per_byte(ctx: CommContext, op: Op, topo: Topology) -> float:
    """Seconds per byte of the ring's bandwidth term (protocol Simple), from the flows.

    Raises:
        Infeasible: routing fails (every path of a hop crosses a failed link).
    """
    matrix, caps = ring_flows(ctx, topo)
    nch, n = matrix.shape[0], ctx.ranks
    factor = {"all_reduce": 2.0 * (n - 1) / n, "all_gather": (n - 1) / n, "reduce_scatter": (n - 1) / n}
    per_ring = factor.get(op, 1.0) / nch  # bytes through every hop of one ring per buffer byte
    used = matrix.getnnz(axis=0) > 0
    result = progress(matrix[:, used], caps[used], np.full(nch, per_ring))
    return result.makespan_s


def tree_bandwidth_seconds_per_byte(ctx: CommContext, topo: Topology, *, nvlink_chain: bool = True) -> float:
    """Seconds per byte of the double-binary-tree all-reduce bandwidth term, from the flows.

    ``nvlink_chain=False`` leaves out the intra-node chain (NVLSTree reduces inside the node
    with NVLS instead; the caller bounds that part)."""
    nch, nodes, ppn = rails_used(ctx), ctx.nodes, ctx.ppn
    tree, parent, child = tree_edges(nodes)
    n_flows = 2 * nch
    blocks = []
    caps = [link_capacity_Bps(ctx, topo)]
    if nodes > 1:
        ch = np.repeat(np.arange(nch), tree.size)
        t, p, c = (np.tile(x, nch) for x in (tree, parent, child))
        owner = np.concatenate([ch * 2 + t, ch * 2 + t])
        src = np.concatenate([topo.endpoint_of(c, ch), topo.endpoint_of(p, ch)])
        dst = np.concatenate([topo.endpoint_of(p, ch), topo.endpoint_of(c, ch)])
        blocks.append(_collapse(_route(ctx, topo, src, dst), owner, n_flows))
    else:
        blocks.append(sp.csr_matrix((n_flows, topo.n_links)))
    if ppn > 1 and nvlink_chain:
        # intra-node chain, rotated across channels: 2 (ppn-1)/ppn egress per GPU per flow byte
        w = 2.0 * (ppn - 1) / ppn
        blocks.append(sp.csr_matrix(np.full((n_flows, nodes * ppn), w)))
        caps.append(np.full(nodes * ppn, nvlink_bus_Bps(ctx)))
    matrix = sp.csr_matrix(sp.hstack(blocks))
    cap = np.concatenate(caps)
    used = matrix.getnnz(axis=0) > 0
    per_flow = 1.0 / n_flows  # each tree of each channel carries its share, up and down
    return progress(matrix[:, used], cap[used], np.full(n_flows, per_flow)).makespan_s


def all_to_all_seconds_per_byte(ctx: CommContext, topo: Topology) -> float:
    """Seconds per byte of an all-to-all among all ranks (direct flows, rank-owned rails)."""
    nodes, ppn = ctx.nodes, ctx.ppn
    if nodes < 2:
        return (ppn - 1) / ctx.ranks / nvlink_bus_Bps(ctx)
    rpr = max(1, round(ctx.nics_per_rank))
    a, b = np.meshgrid(np.arange(nodes), np.arange(nodes), indexing="ij")
    mask = a != b
    a, b = a[mask], b[mask]
    rails = rails_used(ctx)
    src = np.concatenate([topo.endpoint_of(a, r) for r in range(rails)])
    dst = np.concatenate([topo.endpoint_of(b, r) for r in range(rails)])
    rt = _route(ctx, topo, src, dst)
    # per node pair and rail: (ppn / rails) ranks send nbytes / n each to each of ppn peers
    size = rt.fraction * (ppn * ppn / rails) / ctx.ranks / rpr
    cap = link_capacity_Bps(ctx, topo)
    used = rt.matrix.getnnz(axis=0) > 0
    net = progress(rt.matrix[:, used], cap[used], size).makespan_s
    nvl = (ppn - 1) / ctx.ranks / nvlink_bus_Bps(ctx) if ppn > 1 else 0.0
    return max(net, nvl)


def host_link_seconds_per_byte(ctx: CommContext, topo: Topology) -> float:
    """Seconds per byte through the host links of an in-network (SHARP) reduction.

    Each rank's rail sends its 1/nch share of the buffer once up to its leaf and receives the
    reduced share once; the aggregation tree above the leaves carries one reduced stream per
    link and is taken as uncontended (static SHARP trees on a non-blocking fabric).
    """
    nch = rails_used(ctx)
    k = np.repeat(np.arange(ctx.nodes), nch)
    r = np.tile(np.arange(nch), ctx.nodes)
    ep = topo.endpoint_of(k, r)
    up = np.flatnonzero(np.isin(topo.link_src, ep))
    down = np.flatnonzero(np.isin(topo.link_dst, ep))
    cap = link_capacity_Bps(ctx, topo)
    return float(1.0 / nch / min(cap[up].min(), cap[down].min()))


def _seconds_per_byte(ctx: CommContext, op: Op, algo: str, topo: Topology) -> float | None:
    if algo == "ring":
        return ring_bandwidth_seconds_per_byte(ctx, op, topo)
    if algo == "tree" and op == "all_reduce":
        return tree_bandwidth_seconds_per_byte(ctx, topo)
    if algo in ("nvls_tree", "nvls", "collnet") and op == "all_reduce" and ctx.nodes > 1:
        intra = 1.0 / nvls.intra_algbw_Bps(ctx, op) if algo != "collnet" else 0.0
        if algo == "collnet" and ctx.ppn > 1:
            intra = 2.0 * (ctx.ppn - 1) / ctx.ppn / nvlink_bus_Bps(ctx)
        if algo == "nvls_tree":
            return max(intra, tree_bandwidth_seconds_per_byte(ctx, topo, nvlink_chain=False))
        return max(intra, host_link_seconds_per_byte(ctx, topo) / COLLNET_HOPPER_FACTOR_OF[ctx.arch])
    if algo == "p2p" and op == "all_to_all":
        return all_to_all_seconds_per_byte(ctx, topo)
    return None


def _protocol_share(ctx: CommContext, op: Op, cand: Candidate) -> float:
    """Share of the algorithm's raw (physical) bandwidth its protocol reaches (analytic ratio:
    LL 0.5, LL128 0.92, Tree 0.92, caps), applied to the flow-level bandwidth too."""
    if cand.algorithm == "ring":
        raw = ring_bus_Bps(ctx) / bus_factor(op, ctx.ranks)
    elif cand.algorithm == "tree":
        raw = tree.raw_algbw_Bps(ctx)
    else:
        return 1.0
    return cand.algbw_Bps / raw


def flow_times(
    ctx: CommContext,
    op: Op,
    sizes: npt.NDArray[np.float64],
    *,
    algorithm: str = "auto",
    protocol: str = "auto",
) -> tuple[npt.NDArray[np.float64], tuple[str, ...], tuple[str, ...]]:
    """Times (s), algorithms and protocols of ``op`` at ``sizes`` with flow-level bandwidth.

    Raises:
        Infeasible: as :func:`fabrictwin.collectives.analytic.candidates`, or routing fails.
        SpecError: unknown names.
    """
    cands = candidates(ctx, op, algorithm, protocol)
    table = evaluate(cands, sizes, host_floor_s(ctx))
    topo = topology_for(ctx)
    times = table.time_s.copy()
    cache: dict[str, float | None] = {}
    for idx in np.unique(table.choice):
        cand = cands[idx]
        if cand.algorithm not in cache:
            cache[cand.algorithm] = _seconds_per_byte(ctx, op, cand.algorithm, topo)
        spb = cache[cand.algorithm]
        if spb is None:
            continue
        sel = table.choice == idx
        share = _protocol_share(ctx, op, cand)
        eff = size_efficiency(cand, sizes[sel])
        times[sel] = np.maximum(cand.latency_s + sizes[sel] * spb / (share * eff), host_floor_s(ctx))
    algos = tuple(cands[i].algorithm for i in table.choice)
    protos = tuple(cands[i].protocol for i in table.choice)
    return times, algos, protos


__all__ = ["FLOW_ALGORITHMS", "flow_times", "topology_for"]
