"""Collective communication: NCCL-faithful algorithms on a cluster, analytic or flow-level.

Public API (stable; the training twin calls it)::

    from fabrictwin.collectives import context_for, estimate
    ctx = context_for("dgx-h100", "ib-ndr", nodes=32)
    est = estimate(ctx, "all_reduce", [1 << 20, 1 << 30])
    est.time_s, est.busbw_Bps, est.algorithm, est.protocol

``nbytes`` follows nccl-tests' "size" column (see :mod:`fabrictwin.collectives.base`).
Algorithms: ring, tree (double binary tree), collnet (alias ``sharp``: InfiniBand SHARP),
nvls, nvls_tree, pat, p2p (all_to_all, send_recv), halving_doubling, hierarchical.
Protocols: ll, ll128, simple. Host CPU cost of the transport: :func:`host_cores`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
from pydantic import ValidationError

from fabrictwin.collectives.analytic import ALGORITHMS, AUTO_ALGORITHMS, candidates, evaluate
from fabrictwin.collectives.base import OPS, Op, bus_factor, host_floor_s
from fabrictwin.collectives.context import CommContext, Routing
from fabrictwin.collectives.nccl_constants import PROTOCOLS
from fabrictwin.errors import SpecError
from fabrictwin.netsolver.transport import TransportModel
from fabrictwin.spec.hardware import Transport

Fidelity = Literal["analytic", "flow"]

__all__ = [
    "ALGORITHMS",
    "AUTO_ALGORITHMS",
    "OPS",
    "PROTOCOLS",
    "CollectiveEstimate",
    "CommContext",
    "Fidelity",
    "Op",
    "context_for",
    "estimate",
    "estimate_time",
    "host_cores",
]


@dataclass(frozen=True)
class CollectiveEstimate:
    """Predicted cost of one collective at each message size (arrays aligned with ``nbytes``)."""

    op: Op
    ranks: int
    nbytes: npt.NDArray[np.float64]
    """nccl-tests "size" of each point, bytes."""
    time_s: npt.NDArray[np.float64]
    """Completion time, seconds."""
    algbw_Bps: npt.NDArray[np.float64]
    """nbytes / time_s, bytes/s."""
    busbw_Bps: npt.NDArray[np.float64]
    """algbw x nccl-tests bus factor (2(n-1)/n all-reduce, (n-1)/n gather/scatter/all-to-all)."""
    algorithm: tuple[str, ...]
    protocol: tuple[str, ...]
    fidelity: Fidelity = "analytic"


def estimate(
    ctx: CommContext,
    op: Op,
    nbytes: float | npt.ArrayLike,
    *,
    algorithm: str = "auto",
    protocol: str = "auto",
    fidelity: Fidelity = "analytic",
) -> CollectiveEstimate:
    """Predict a collective on ``ctx`` for one or many message sizes.

    Raises:
        SpecError: unknown op/algorithm/protocol/fidelity, or a negative size.
        Infeasible: the forced algorithm cannot run here (e.g. SHARP without IB SHARP
            switches, NVLS without NVSwitch multicast), the communicator has a single rank
            (nothing to communicate: callers treat it as zero time), or flow fidelity has
            neither a topology nor a switch to build one.
    """
    sizes = np.atleast_1d(np.asarray(nbytes, dtype=np.float64))
    if np.any(sizes < 0):
        raise SpecError("message sizes must be >= 0 bytes")
    if fidelity == "analytic":
        table = evaluate(candidates(ctx, op, algorithm, protocol), sizes, host_floor_s(ctx))
        time_s = table.time_s
        algo = tuple(table.candidates[i].algorithm for i in table.choice)
        proto = tuple(table.candidates[i].protocol for i in table.choice)
    elif fidelity == "flow":
        from fabrictwin.collectives.flow import flow_times

        time_s, algo, proto = flow_times(ctx, op, sizes, algorithm=algorithm, protocol=protocol)
    else:
        raise SpecError(f"unknown fidelity {fidelity!r}; known: analytic, flow")
    with np.errstate(divide="ignore", invalid="ignore"):
        algbw = np.where(time_s > 0, sizes / time_s, 0.0)
    return CollectiveEstimate(
        op=op,
        ranks=ctx.ranks,
        nbytes=sizes,
        time_s=time_s,
        algbw_Bps=algbw,
        busbw_Bps=algbw * bus_factor(op, ctx.ranks),
        algorithm=algo,
        protocol=proto,
        fidelity=fidelity,
    )


def estimate_time(ctx: CommContext, op: Op, nbytes: float, **kwargs: str) -> float:
    """Seconds for one collective of ``nbytes`` (scalar convenience over :func:`estimate`)."""
    return float(estimate(ctx, op, nbytes, **kwargs).time_s[0])  # type: ignore[arg-type]


def context_for(
    system_id: str,
    fabric_id: str,
    nodes: int,
    *,
    gpus_per_node: int | None = None,
    ranks_per_node: int | None = None,
    nics_per_node: int | None = None,
    transport: Transport | None = None,
    sharp: bool | None = None,
    routing: Routing = "auto",
    qps: int = 1,
    gpudirect: bool = True,
    loss_rate: float = 0.0,
    topology: object = None,
    nccl_version: str | None = None,
    gpus_per_thread: int = 1,
) -> CommContext:
    """Build a :class:`CommContext` from catalog ids.

    ``sharp`` defaults to False, as NCCL uses CollNet only with the SHARP plugin and
    NCCL_COLLNET_ENABLE=1. ``nccl_version`` names the NCCL release whose tuner chooses the
    algorithm (default: a current one; see :mod:`fabrictwin.collectives.tuner`).
    ``gpus_per_thread`` is nccl-tests' ``-g`` (GPUs one host thread launches on; 1 for
    training jobs). Raises:
        NotFound / SpecError: an id is not in the catalog, or the layout is invalid.
    """
    from fabrictwin import catalog

    system = catalog.system(system_id)
    fabric = catalog.fabric(fabric_id)
    switch = catalog.switch(fabric.switch)
    try:
        return _context(
            system=system,
            gpu=catalog.gpu(system.gpu),
            fabric=fabric,
            switch=switch,
            nodes=nodes,
            gpus_per_node=gpus_per_node or system.gpus,
            ranks_per_node=ranks_per_node,
            nics_per_node=nics_per_node or max(1, system.compute_nics),
            transport=transport,
            sharp=bool(sharp),
            routing=routing,
            qps=qps,
            gpudirect=gpudirect,
            loss_rate=loss_rate,
            topology=topology,
            nccl_version=nccl_version,
            gpus_per_thread=gpus_per_thread,
        )
    except ValidationError as exc:
        rules = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'context'}: {e['msg']}" for e in exc.errors())
        raise SpecError(rules) from None


_context = CommContext


def host_cores(ctx: CommContext, bandwidth_Bps: float, cpu_hz: float) -> float:
    """Host CPU cores one node spends on its collective traffic at ``bandwidth_Bps`` per node.

    RDMA transports charge NCCL's proxy thread per local rank; TCP adds cycles per byte.
    Raises:
        SpecError: negative bandwidth or non-positive clock.
    """
    model: TransportModel = ctx.net
    return model.host_cores(bandwidth_Bps, cpu_hz, ranks=ctx.ppn)
