"""Collective costs for the step model: the groups of a job and a time for each call.

A job of tp x pp x dp (x ep inside dp) GPUs places tensor-parallel ranks inside one server,
pipeline stages across servers, and data-parallel ranks ``gpus_per_node / tp`` per server. Calls
go to ``fabrictwin.collectives.estimate`` (NCCL-structured; ``collectives: nccl`` or
``nccl-flow``), or to the simpler hierarchical alpha-beta model below (``collectives:
alpha-beta``), kept as a fast cross-check:

* all-reduce = intra-node reduce-scatter over NVLink, inter-node all-reduce of 1/ppn of the
  data over each rank's NIC share, intra-node all-gather (NCCL's ring busBW bound):
  T = 2 (p-1)/p S / B_nvl + 2 (N-1)/N (S/p) / b_rank + latency;
* SHARP halves the inter-node volume: (S/p) / b_rank (in-network reduction, one pass);
* latency: min of ring 2(N-1) and tree 2 log2 N hops of alpha (NCCL tuning.cc composition,
  nccl-cost-model.md B.3);
* reduce-scatter / all-gather: half of all-reduce; all-to-all: the inter-node share of S over
  b_rank; send: S / b_rank + alpha.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from fabrictwin.collectives import CommContext, Fidelity, Op, estimate
from fabrictwin.errors import Infeasible
from fabrictwin.spec.hardware import FabricSpec, GpuSpec, SwitchSpec, SystemSpec

# NCCL ring over NVLink reaches ~82% of the NVLink bandwidth (fabric-and-network-models.md 3.5,
# measured 741 of 900 GB/s on HGX H100).
NVLINK_EFFICIENCY = 0.82
# NCCL over TCP sockets reaches 4-6 GB/s busbw on 100 Gb/s (< 50% of 12.5 GB/s) and <= 60% of
# 32 Gb/s (host-and-dpu-offload-figures.md D-15, nccl#450, nccl#209): 0.45 of line rate.
TCP_SOCKET_EFFICIENCY = 0.45
# NCCL base latency of a collective (Simple protocol) and per-hop latencies, microseconds
# (nccl-cost-model.md B.3: base 8.4; NVLink ring hop 3.4 Simple / 0.6 LL; network hop 2.7 LL).
BASE_LAT_S = 8.4e-6
NVLINK_HOP_S = 0.6e-6
NET_HOP_S = 2.7e-6
# SHARP aggregation latency per tree, taken as the network hop of CollNet (nccl-cost-model.md B.3
# CollNetDirect network row, 31 us Simple): one traversal.
SHARP_LAT_S = 31e-6


@dataclass(frozen=True)
class Group:
    """A communicator's layout: ranks per node and nodes."""

    ppn: int
    nodes: int

    @property
    def ranks(self) -> int:
        return self.ppn * self.nodes


@dataclass(frozen=True)
class Fabric:
    """What the alpha-beta model needs of the cluster."""

    nvlink_Bps: float
    node_net_Bps: float
    gpus_per_node: int
    hop_s: float
    sharp: bool

    def rank_net_Bps(self) -> float:
        """A rank's share of its server's scale-out bandwidth."""
        return self.node_net_Bps / self.gpus_per_node


def fabric_of(system: SystemSpec, fabric: FabricSpec, nics: int, sharp: bool) -> Fabric:
    """The alpha-beta view of a cluster."""
    eff = fabric.efficiency * (TCP_SOCKET_EFFICIENCY if fabric.transport == "tcp" else 1.0)
    return Fabric(
        nvlink_Bps=system.intra_node_Bps * NVLINK_EFFICIENCY,
        node_net_Bps=nics * fabric.link_bps / 8.0 * eff,
        gpus_per_node=system.gpus,
        hop_s=NET_HOP_S + fabric.latency_s,
        sharp=sharp and fabric.transport == "infiniband",
    )


def _latency(f: Fabric, g: Group) -> float:
    intra = 2 * (g.ppn - 1) * NVLINK_HOP_S
    if g.nodes == 1:
        return BASE_LAT_S + intra
    hops = min(2 * (g.nodes - 1), 2 * math.ceil(math.log2(g.nodes)))
    return BASE_LAT_S + intra + hops * f.hop_s


def all_reduce_s(f: Fabric, g: Group, nbytes: float) -> float:
    """Hierarchical all-reduce of ``nbytes`` per rank."""
    if g.ranks == 1:
        return 0.0
    t = 2.0 * (g.ppn - 1) / g.ppn * nbytes / f.nvlink_Bps
    if g.nodes > 1:
        share = nbytes / g.ppn
        if f.sharp:
            t += share / f.rank_net_Bps() + SHARP_LAT_S
        else:
            t += 2.0 * (g.nodes - 1) / g.nodes * share / f.rank_net_Bps()
    return t + _latency(f, g)


def collective_s(f: Fabric, g: Group, op: str, nbytes: float) -> float:
    """Time of one collective ``op`` with ``nbytes`` per rank.

    Raises:
        Infeasible: an unknown operation name.
    """
    if g.ranks == 1:
        return 0.0
    if op == "all_reduce":
        return all_reduce_s(f, g, nbytes)
    if op in ("reduce_scatter", "all_gather"):
        sharp_off = Fabric(f.nvlink_Bps, f.node_net_Bps, f.gpus_per_node, f.hop_s, False)
        return 0.5 * (all_reduce_s(sharp_off, g, nbytes) - _latency(f, g)) + _latency(f, g)
    if op == "all_to_all":
        remote = nbytes * (g.ranks - g.ppn) / g.ranks
        local = nbytes * (g.ppn - 1) / g.ranks
        return max(remote / f.rank_net_Bps(), local / f.nvlink_Bps) + _latency(f, g)
    if op == "send":
        if g.nodes == 1:  # a neighbour in the same server (context-parallel ring): NVLink
            return nbytes / f.nvlink_Bps + NVLINK_HOP_S
        return nbytes / f.rank_net_Bps() + f.hop_s
    raise Infeasible(f"unknown collective {op!r}")


def job_groups(gpus_per_node: int, tp: int, pp: int, dp: int, ep: int, cp: int = 1) -> dict[str, Group]:
    """Layouts of the tp, cp, dp, ep and pp groups (``dp``: the gradient-reduction width, which
    includes the context-parallel ranks; Megatron-Core orders tp, cp, dp inside a server).

    Raises:
        Infeasible: tensor parallel wider than a server or not dividing it.
    """
    if tp > gpus_per_node or gpus_per_node % tp:
        raise Infeasible(f"tensor parallel {tp} must divide the {gpus_per_node} GPUs of a server")
    dp_ppn = max(1, min(dp, gpus_per_node // tp))
    ep_ppn = max(1, min(ep, dp_ppn))
    cp_ppn = max(1, min(cp, gpus_per_node // tp))
    return {
        "tp": Group(tp, 1),
        "cp": Group(cp_ppn, math.ceil(cp / cp_ppn)),
        "dp": Group(dp_ppn, math.ceil(dp / dp_ppn)),
        "ep": Group(ep_ppn, math.ceil(ep / ep_ppn)),
        "pp": Group(1, pp),
    }


def comm_function(f: Fabric, groups: dict[str, Group]) -> Callable[[str, float, str], float]:
    """A cached ``(op, bytes, group) -> seconds`` for the step model."""

    @functools.lru_cache(maxsize=4096)
    def call(op: str, nbytes: float, group: str) -> float:
        return collective_s(f, groups[group], op, nbytes)

    return call


_NCCL_OP = {"send": "send_recv"}


def nccl_comm_function(
    system: SystemSpec,
    gpu: GpuSpec,
    fabric: FabricSpec,
    switch: SwitchSpec | None,
    nics: int,
    sharp: bool,
    groups: dict[str, Group],
    dp_fidelity: str = "analytic",
) -> Callable[[str, float, str], float]:
    """``(op, bytes, group) -> seconds`` from ``fabrictwin.collectives.estimate`` (NCCL-structured).

    One communicator per group; data-parallel collectives may run at flow level (max-min fair
    flows on a built fat tree), the others stay analytic. SHARP applies to the data-parallel group.
    """
    contexts = {
        name: CommContext(
            system=system,
            gpu=gpu,
            fabric=fabric,
            switch=switch,
            nodes=g.nodes,
            gpus_per_node=system.gpus,
            ranks_per_node=g.ppn,
            nics_per_node=nics,
            sharp=sharp and name == "dp" and fabric.transport == "infiniband",
        )
        for name, g in groups.items()
    }

    @functools.lru_cache(maxsize=4096)
    def call(op: str, nbytes: float, group: str) -> float:
        g = groups[group]
        if g.ranks == 1 or nbytes <= 0:
            return 0.0
        nccl_op = cast(Op, _NCCL_OP.get(op, op))
        flow = group == "dp" and dp_fidelity == "flow" and g.nodes > 1
        fidelity: Fidelity = "flow" if flow else "analytic"
        return float(estimate(contexts[group], nccl_op, nbytes, fidelity=fidelity).time_s[0])

    return call
