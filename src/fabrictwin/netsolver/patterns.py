"""Traffic patterns on a built topology, run to completion: the building blocks of the
congestion experiments in reference fabric-and-network-models.md section 4.2.

A *ring step* is one synchronous step of a ring collective: every endpoint sends one chunk
to its successor at the same time and the step ends when the last chunk lands. Its time
relative to the contention-free time (chunk / link capacity) is the slowdown that ECMP hash
collisions inflict (reference 4.1-4.2: 5x for 1 QP on a 2,048-host k=64 tree, 3.25x with 4).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fabrictwin.netsolver.maxmin import Method
from fabrictwin.netsolver.progression import Progress, progress
from fabrictwin.topology import Topology, route


@dataclass(frozen=True)
class StepResult:
    """Outcome of one synchronous step."""

    time_s: float
    """When the last transfer ends."""
    ideal_s: float
    """Contention-free time: chunk / slowest host-link capacity."""
    progress: Progress

    @property
    def slowdown(self) -> float:
        """time / ideal (1.0 = no congestion)."""
        return self.time_s / self.ideal_s

    @property
    def min_initial_rate_share(self) -> float:
        """Slowest first-allocation flow rate as a share of the host-link capacity."""
        rate = np.bincount(np.arange(self.progress.initial_rate_S.size), weights=self.progress.initial_rate_S)
        return float(rate.min())


def step(
    topo: Topology,
    src_ep: npt.ArrayLike,
    dst_ep: npt.ArrayLike,
    chunk_bytes: float,
    policy: str,
    *,
    qps: int = 1,
    seed: int = 0,
    method: Method = "auto",
) -> StepResult:
    """Run ``src_ep[i] -> dst_ep[i]`` transfers of ``chunk_bytes`` each to completion.

    Raises:
        ValueError / Infeasible: from :func:`fabrictwin.topology.route`.
        SpecError: a used link has zero capacity.
    """
    rt = route(topo, src_ep, dst_ep, policy, qps=qps, seed=seed)
    cap = np.asarray(topo.capacity_Bps, dtype=np.float64)
    used = rt.matrix.getnnz(axis=0) > 0
    result = progress(rt.matrix[:, used], cap[used], rt.fraction * chunk_bytes, flow_S=rt.flow, method=method)
    host_cap = float(cap[used].min())
    return StepResult(result.makespan_s, chunk_bytes / host_cap, result)


def shift_step(
    topo: Topology, shift: int, chunk_bytes: float, policy: str, *, qps: int = 1, seed: int = 0
) -> StepResult:
    """Endpoint i sends to endpoint (i + shift) mod E (every flow crosses leaves when the
    shift is a multiple of the leaf's down ports): the reference's "shift" pattern."""
    e = topo.n_endpoints
    src = np.arange(e, dtype=np.int64)
    return step(topo, src, (src + shift) % e, chunk_bytes, policy, qps=qps, seed=seed)


def ring_step(
    topo: Topology, chunk_bytes: float, policy: str, *, qps: int = 1, seed: int = 0, method: Method = "auto"
) -> StepResult:
    """The inter-node hops of one step of NCCL's rings on a rail-optimized fabric: on every
    rail, node k sends to node k+1 (the successor in the ring), all rails at once."""
    k = np.repeat(np.arange(topo.nodes), topo.rails)
    r = np.tile(np.arange(topo.rails), topo.nodes)
    src = topo.endpoint_of(k, r)
    dst = topo.endpoint_of((k + 1) % topo.nodes, r)
    return step(topo, src, dst, chunk_bytes, policy, qps=qps, seed=seed, method=method)
