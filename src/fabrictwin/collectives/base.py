"""Shared pieces of the analytic collective models: ops, costs, bandwidth and latency bounds.

An algorithm module turns a :class:`CommContext` plus an op and a protocol into an
:class:`AlgoCost` ``(latency_s, algbw_Bps)``; the time of ``nbytes`` is
``latency_s + nbytes / algbw_Bps`` (NCCL's own structure, nccl-cost-model.md B.1), where
``nbytes`` follows nccl-tests' "size" (all_reduce / broadcast / reduce / send_recv: the
buffer; all_gather / reduce_scatter: the full gathered buffer; all_to_all: the bytes each rank
sends in total).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Final, Literal

import numpy as np
import numpy.typing as npt

from fabrictwin.collectives.context import CommContext
from fabrictwin.collectives.nccl_constants import (
    BASE_LAT_US,
    HW_LAT_US,
    LAUNCH_US,
    LL_MAX_BW_GBPS,
    NET_DATA_EFFICIENCY,
    NET_OVERHEAD_US,
    NVLINK_DATA_EFFICIENCY,
    Algo,
    Link,
    Proto,
)
from fabrictwin.netsolver.transport import staged_Bps

Op = Literal["all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "all_to_all", "send_recv"]
OPS: Final[tuple[Op, ...]] = (
    "all_reduce",
    "all_gather",
    "reduce_scatter",
    "broadcast",
    "reduce",
    "all_to_all",
    "send_recv",
)
US: Final = 1e-6
GB: Final = 1e9


@dataclass(frozen=True)
class AlgoCost:
    """Latency and algorithm bandwidth of one (algorithm, protocol) for one op."""

    latency_s: float
    algbw_Bps: float
    chunk_ops: int = 0
    """Concurrent NVLS chunk streams (channels x heads) whose chunk size NCCL shrinks for
    small messages (:func:`fabrictwin.collectives.nvls.chunk_efficiency`); 0: no schedule."""


def bus_factor(op: Op, n: int) -> float:
    """nccl-tests bus-bandwidth factor busbw / algbw (nccl-tests doc/PERFORMANCE.md)."""
    if n <= 1:
        return 1.0
    if op == "all_reduce":
        return 2.0 * (n - 1) / n
    if op in ("all_gather", "reduce_scatter", "all_to_all"):
        return (n - 1) / n
    return 1.0


def nvlink_bus_Bps(ctx: CommContext) -> float:
    """Achievable per-GPU one-way NVLink/NVSwitch bandwidth of a large ring, bytes/s."""
    return ctx.nvlink_Bps * NVLINK_DATA_EFFICIENCY[ctx.arch]


def nic_rank_Bps(ctx: CommContext) -> float:
    """Achievable per-rank network bandwidth (its NIC share), bytes/s, loss and staging included."""
    net = ctx.net
    per_port = staged_Bps(net.effective_Bps, ctx.gpu.pcie_Bps, gpudirect=ctx.gpudirect)
    eff = NET_DATA_EFFICIENCY if net.transport != "tcp" else 1.0
    rtt_s = max(2.0 * net.latency_s, 1e-6)  # round trip through both end hosts
    return ctx.nics_per_rank * per_port * eff * net.goodput_fraction(ctx.loss_rate, rtt_s)


def net_node_Bps(ctx: CommContext) -> float:
    """Achievable network bandwidth of the ranks of one node together, bytes/s."""
    return nic_rank_Bps(ctx) * ctx.ppn


def channels(ctx: CommContext) -> int:
    """Rings (channels) per node that cross the network: one per NIC rail the ranks own."""
    return max(1, round(ctx.ppn * ctx.nics_per_rank))


def ring_bus_Bps(ctx: CommContext) -> float:
    """Bus bandwidth bound of a flat ring: min(NVLink per GPU, node NIC aggregate).

    On one node every ring hop is NVLink. Across nodes each of the ``nch`` rings leaves the
    node from the GPU of its rail, so a GPU forwards ``nch - 1`` rings over NVLink when every
    GPU owns a rail (``nch >= ppn``), else all ``nch``; bus bandwidth = nch x per-ring rate.
    """
    bounds = []
    if ctx.ppn > 1:
        nvl = nvlink_bus_Bps(ctx)
        nch = channels(ctx)
        if ctx.nodes > 1 and nch >= ctx.ppn:
            nvl *= ctx.ppn / (ctx.ppn - 1)
        bounds.append(nvl)
    if ctx.nodes > 1:
        bounds.append(net_node_Bps(ctx))
    return min(bounds) if bounds else math.inf


def intra_lat_us(ctx: CommContext, algo: Algo, proto: Proto) -> float:
    """NCCL intraLat: NVLink row on NVLink systems, PCIe row otherwise (B.3)."""
    link: Link = "nvlink" if ctx.gpu.nvlink_Bps > 0 else "pcie"
    return HW_LAT_US[link][algo][proto]


def inter_lat_us(ctx: CommContext, algo: Algo, proto: Proto) -> float:
    """NCCL interLat: Network row (Tree row with 1 GPU per node), plus socket kernel latency.

    NCCL's IB and socket plugins report 0 device latency (B.3); a kernel TCP stack does add
    its one-way latency per hop, so for ``tcp`` we add the fabric's latency (counted twice for
    Simple, as NCCL does for device latency).
    """
    row: Algo = "tree" if ctx.ppn == 1 and algo == "ring" else algo
    lat = HW_LAT_US["net"][row][proto]
    if ctx.net.transport == "tcp":
        lat += ctx.fabric.latency_s / US * (2 if proto == "simple" else 1)
    return lat


def net_overhead_us(ctx: CommContext, proto: Proto) -> float:
    """Per-step proxy overhead on multi-node rings (x3 for Simple; B.3)."""
    if ctx.nodes <= 1:
        return 0.0
    return NET_OVERHEAD_US * (3.0 if proto == "simple" else 1.0)


def base_lat_us(algo: Algo, proto: Proto) -> float:
    """NCCL base latency of an algorithm/protocol (B.3)."""
    return BASE_LAT_US[algo][proto]


def ll_cap_Bps(ctx: CommContext) -> float:
    """NCCL llMaxBw cap for the LL protocol (bus bandwidth), bytes/s."""
    col = 0 if ctx.nodes == 1 else (1 if ctx.nodes == 2 else 2)
    return LL_MAX_BW_GBPS[ctx.arch][col] * GB


def ll128_enabled(ctx: CommContext) -> bool:
    """LL128 is on where NCCL enables it by default: local NVLink paths, and on Hopper and
    later also across RDMA networks via PXN (nccl-cost-model.md B.3 enablement rules)."""
    if ctx.nodes == 1:
        return ctx.gpu.nvlink_Bps > 0
    return ctx.arch in ("hopper", "blackwell") and ctx.net.transport != "tcp"


def _btree_parent(rank: npt.NDArray[np.int64], nodes: int) -> npt.NDArray[np.int64]:
    """Parent of each rank >= 1 in NCCL's binary tree (ncclGetBtree, src/graph/trees.cc): clear
    the lowest set bit and set the next one up, or just clear it when that rank does not exist."""
    bit = rank & -rank
    up = (rank ^ bit) | (bit << 1)
    return np.where(up >= nodes, rank ^ bit, up)


def tree_edges(nodes: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(tree id, parent node, child node) of NCCL's double binary tree over ``nodes``.

    Tree 0 is NCCL's bit-pattern binary tree; tree 1 is the same tree mirrored (even counts)
    or on ranks shifted by one (odd counts), as ncclGetDtree builds it, so that interior nodes
    of one tree are leaves of the other (Sanders, Speck & Traeff 2009).
    """
    child = np.arange(1, nodes, dtype=np.int64)
    parent = _btree_parent(child, nodes)
    if nodes % 2 == 1:  # odd: shift (a mirror would leave the middle node interior twice)
        p1, c1 = (parent + 1) % nodes, (child + 1) % nodes
    else:
        p1, c1 = nodes - 1 - parent, nodes - 1 - child
    tree = np.concatenate([np.zeros(child.size, np.int64), np.ones(child.size, np.int64)])
    return tree, np.concatenate([parent, p1]), np.concatenate([child, c1])


@functools.lru_cache(maxsize=256)
def tree_node_load(nodes: int) -> float:
    """Bytes each way through the busiest node's NICs per byte of a double-binary-tree all-reduce.

    Each tree carries half the buffer, up (reduce) and down (broadcast), pipelined; a node
    sends one half to its parent and one half to each child in each tree. With 2 nodes each
    is the root of one tree and the only child in the other: 1 x nbytes, the "tree effect"
    that lets 2-node busbw exceed the NIC rate (nccl-tests#196, reference 3.3); large trees
    approach 2 x nbytes (an interior node with two children and a parent, leaf elsewhere).
    """
    if nodes <= 1:
        return 0.0
    _, parent, child = tree_edges(nodes)
    halves = np.bincount(parent, minlength=nodes) + np.bincount(child, minlength=nodes)
    return float(halves.max()) / 2.0


def cpu_vendor(cpu_id: str) -> str:
    """``intel``, ``amd`` or ``arm`` from a CPU catalog id (NCCL's CPU rows, B.2-B.3)."""
    cid = cpu_id.lower()
    if cid.startswith(("epyc", "amd")):
        return "amd"
    if cid.startswith(("grace", "arm", "neoverse")):
        return "arm"
    return "intel"


def host_floor_s(ctx: CommContext) -> float:
    """Shortest time one back-to-back collective can take: the host thread's kernel launches,
    one per GPU it drives (:data:`~fabrictwin.collectives.nccl_constants.LAUNCH_US`)."""
    return LAUNCH_US[cpu_vendor(ctx.system.cpu)] * ctx.gpus_per_thread * US
