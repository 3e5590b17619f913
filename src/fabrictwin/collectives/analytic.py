"""Analytic fidelity: NCCL-structured alpha-beta costs and NCCL-style algorithm selection.

For every enabled (algorithm, protocol) the time of ``nbytes`` is
``latency_s x latCount + nbytes / algbw_Bps`` and the tuner keeps the fastest
(``ncclTopoGetAlgoTime`` in NVIDIA/nccl src/graph/tuning.cc; nccl-cost-model.md B.1).
Single-node NVLS bandwidth also depends on size through NCCL's chunk schedule
(:func:`fabrictwin.collectives.nvls.chunk_efficiency`). When the context names an older NCCL
release, the choice follows that release's estimates (:mod:`fabrictwin.collectives.tuner`)
while the time is the achieved cost of the chosen pair.
Vectorised over message sizes: one (L, B) table per (context, op), then array arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from fabrictwin.collectives import collnet, halving_doubling, hierarchical, nvls, p2p, pat, ring, tree, tuner
from fabrictwin.collectives.base import OPS, AlgoCost, Op
from fabrictwin.collectives.context import CommContext
from fabrictwin.collectives.nccl_constants import PROTOCOLS, Proto
from fabrictwin.errors import Infeasible, SpecError

CostFn = Callable[[CommContext, Op, Proto], AlgoCost | None]


def _nvls(ctx: CommContext, op: Op, proto: Proto) -> AlgoCost | None:
    return nvls.cost(ctx, op, proto, tree=False)


def _nvls_tree(ctx: CommContext, op: Op, proto: Proto) -> AlgoCost | None:
    return nvls.cost(ctx, op, proto, tree=True)


ALGORITHMS: Final[dict[str, CostFn]] = {
    "ring": ring.cost,
    "tree": tree.cost,
    "collnet": collnet.cost,
    "nvls": _nvls,
    "nvls_tree": _nvls_tree,
    "pat": pat.cost,
    "p2p": p2p.cost,
    "halving_doubling": halving_doubling.cost,
    "hierarchical": hierarchical.cost,
}
"""Every algorithm by name."""

AUTO_ALGORITHMS: Final = ("ring", "tree", "collnet", "nvls", "nvls_tree", "pat", "p2p")
"""What NCCL's tuner chooses among (halving-doubling and hierarchical are forced only)."""

ALIASES: Final = {
    "sharp": "collnet",
    "nvlstree": "nvls_tree",
    "collnet_direct": "collnet",
    "rhd": "halving_doubling",
}


@dataclass(frozen=True)
class Candidate:
    """One enabled (algorithm, protocol) with its cost."""

    algorithm: str
    protocol: Proto
    latency_s: float
    algbw_Bps: float
    chunk_ops: int = 0
    """NVLS chunk streams (size-dependent bandwidth); 0: constant bandwidth."""
    tuner_latency_s: float | None = None
    """The named NCCL release's latency estimate when it differs from ``latency_s``."""
    tuner_algbw_Bps: float | None = None
    """The named NCCL release's bandwidth estimate when it differs from ``algbw_Bps``."""


def resolve_algorithm(name: str) -> str:
    """Canonical algorithm name.

    Raises:
        SpecError: unknown name.
    """
    key = ALIASES.get(name.lower(), name.lower())
    if key != "auto" and key not in ALGORITHMS:
        raise SpecError(f"unknown algorithm {name!r}; known: auto, sharp, {', '.join(ALGORITHMS)}")
    return key


def candidates(ctx: CommContext, op: Op, algorithm: str = "auto", protocol: str = "auto") -> list[Candidate]:
    """Enabled (algorithm, protocol) pairs for ``op`` on ``ctx``.

    Raises:
        SpecError: unknown op, algorithm or protocol.
        Infeasible: nothing is enabled (e.g. SHARP forced without InfiniBand SHARP switches).
    """
    if op not in OPS:
        raise SpecError(f"unknown op {op!r}; known: {', '.join(OPS)}")
    algo = resolve_algorithm(algorithm)
    if protocol != "auto" and protocol not in PROTOCOLS:
        raise SpecError(f"unknown protocol {protocol!r}; known: auto, {', '.join(PROTOCOLS)}")
    if algo == "collnet":
        ctx.require_sharp()
    names = AUTO_ALGORITHMS if algo == "auto" else (algo,)
    protos = PROTOCOLS if protocol == "auto" else (protocol,)
    found = []
    for name in names:
        for proto in protos:
            c = ALGORITHMS[name](ctx, op, proto)  # type: ignore[arg-type]
            if c is not None and c.algbw_Bps > 0:
                found.append(_candidate(ctx, op, name, proto, c))  # type: ignore[arg-type]
    if not found:
        raise Infeasible(
            f"no enabled algorithm for {op} with algorithm={algorithm}, protocol={protocol} "
            f"on {ctx.ranks} ranks ({ctx.nodes} nodes x {ctx.ppn})"
        )
    return found


def _candidate(ctx: CommContext, op: Op, name: str, proto: Proto, c: AlgoCost) -> Candidate:
    est = tuner.estimate(ctx, op, name, proto, c)
    return Candidate(
        name,
        proto,
        c.latency_s,
        c.algbw_Bps,
        c.chunk_ops,
        None if est is None else est.latency_s,
        None if est is None else est.algbw_Bps,
    )


@dataclass(frozen=True)
class Table:
    """Vectorised result of :func:`evaluate`."""

    time_s: npt.NDArray[np.float64]
    choice: npt.NDArray[np.intp]
    candidates: list[Candidate]


def _lat_count(cands: list[Candidate], nbytes: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    count = np.ones((len(cands), nbytes.shape[0]))
    for i, c in enumerate(cands):
        if c.algorithm == "collnet":
            count[i] = np.maximum(1.0, np.ceil(nbytes / collnet.SAT_MAX_BYTES))
    return count


def size_efficiency(cand: Candidate, nbytes: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Share of a candidate's bandwidth reached at each size: NCCL's tree correction factor,
    NVLS chunk schedule, else 1."""
    if cand.algorithm == "tree":
        return tree.correction(nbytes, cand.protocol)
    if cand.chunk_ops > 0:
        return nvls.chunk_efficiency(nbytes, cand.chunk_ops)
    return np.ones_like(nbytes)


def evaluate(cands: list[Candidate], nbytes: npt.NDArray[np.float64], floor_s: float = 0.0) -> Table:
    """Time of every size under the chosen candidate, at least ``floor_s`` (host enqueue cost,
    :func:`fabrictwin.collectives.base.host_floor_s`). The choice is the argmin of the tuner's
    estimates where a candidate carries them (an older NCCL release), else of the times."""
    count = _lat_count(cands, nbytes)
    lat = np.array([c.latency_s for c in cands])
    eff = np.array([size_efficiency(c, nbytes) for c in cands])
    inv_bw = np.array([1.0 / c.algbw_Bps for c in cands])[:, None] / eff
    times = lat[:, None] * count + inv_bw * nbytes[None, :]
    ranking = times
    if any(c.tuner_latency_s is not None for c in cands):
        # the tuner knows its tree correction but not the NVLS chunk schedule
        t_eff = np.array(
            [
                tree.correction(nbytes, c.protocol) if c.algorithm == "tree" else np.ones_like(nbytes)
                for c in cands
            ]
        )
        t_lat = np.array([c.latency_s if c.tuner_latency_s is None else c.tuner_latency_s for c in cands])
        t_bw = np.array([c.algbw_Bps if c.tuner_algbw_Bps is None else c.tuner_algbw_Bps for c in cands])
        ranking = t_lat[:, None] * count + nbytes[None, :] / (t_bw[:, None] * t_eff)
    choice = np.argmin(ranking, axis=0)
    best = np.maximum(times[choice, np.arange(nbytes.shape[0])], floor_s)
    return Table(best, choice, cands)
