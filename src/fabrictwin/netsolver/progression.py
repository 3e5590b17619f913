"""Event-driven fluid progression: transfers share links max-min fairly, finish, and re-share.

Each subflow ``s`` has ``size_S[s]`` bytes to move and starts after ``start_S[s]`` seconds
(its latency: paid before it consumes bandwidth, as in SimGrid's CM02/LV08 models, SimGrid
docs Models.rst). Between two events every active subflow moves at its max-min fair rate
(:mod:`fabrictwin.netsolver.maxmin`); an event is a start or a completion, after which the
allocation is re-solved for the subflows still active. A *flow* (``flow_S[s]``) ends when
its last subflow ends.

Legend: ``S`` subflows, ``L`` links, ``F`` flows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from fabrictwin.errors import SpecError
from fabrictwin.netsolver.maxmin import FloatArray, HeapSystem, Method, prepare, solve

_FINISH_REL_TOL = 1e-9
"""Subflows whose remaining time is within this relative margin of the next event end together
(otherwise rounding creates spurious extra events)."""


@dataclass(frozen=True)
class Progress:
    """The outcome of a fluid progression."""

    finish_S: FloatArray
    """Completion time of each subflow, seconds from time 0."""
    finish_F: FloatArray
    """Completion time of each flow (its last subflow), seconds."""
    initial_rate_S: FloatArray
    """Rates of the first allocation (bytes/s), for diagnostics such as ECMP collisions."""
    events: int
    """Number of re-solves performed."""

    @property
    def makespan_s(self) -> float:
        """Time at which the last flow ends."""
        return float(self.finish_F.max()) if self.finish_F.size else 0.0


def progress(
    routing_SL: sp.spmatrix | sp.sparray,
    capacity_L: npt.ArrayLike,
    size_S: npt.ArrayLike,
    *,
    flow_S: npt.ArrayLike | None = None,
    start_S: npt.ArrayLike | None = None,
    cap_S: npt.ArrayLike | None = None,
    method: Method = "auto",
) -> Progress:
    """Run the transfers to completion.

    Raises:
        SpecError: sizes, starts or flow ids do not match the routing matrix, a size is
            negative, or a subflow with bytes to move crosses no link and has no cap
            (it would finish in zero time, which hides a routing bug).
    """
    a = sp.csr_matrix(routing_SL, dtype=np.float64)
    n_s = a.shape[0]
    size = np.asarray(size_S, dtype=np.float64).ravel()
    start = np.zeros(n_s) if start_S is None else np.asarray(start_S, dtype=np.float64).ravel()
    flow = np.arange(n_s) if flow_S is None else np.asarray(flow_S, dtype=np.int64).ravel()
    caps = None if cap_S is None else np.asarray(cap_S, dtype=np.float64).ravel()
    _check(n_s, size, start, flow)
    rates = _RateSolver(a, capacity_L, caps, method)
    remaining = size.copy()
    finish = np.where(size <= 0, start, np.inf)
    t = float(start.min()) if n_s else 0.0
    events = 0
    initial: FloatArray | None = None
    while np.isinf(finish).any():
        started = start <= t * (1 + _FINISH_REL_TOL)
        active = np.flatnonzero(np.isinf(finish) & started)
        rate = rates(active)
        events += 1
        initial = rate if initial is None else initial
        dt_done = remaining[active] / rate[active]
        pending = np.flatnonzero(np.isinf(finish) & ~started)
        dt = min(
            float(dt_done.min()) if active.size else np.inf,
            float(start[pending].min()) - t if pending.size else np.inf,
        )
        if not np.isfinite(dt):
            raise SpecError("transfers cannot progress: their rates are zero")
        remaining[active] -= rate[active] * dt
        done = active[dt_done <= dt * (1 + _FINISH_REL_TOL) + 1e-300]
        t += dt
        finish[done] = t
        remaining[done] = 0.0
    finish_f = np.zeros(int(flow.max()) + 1 if n_s else 0)
    np.maximum.at(finish_f, flow, finish)
    return Progress(finish, finish_f, initial if initial is not None else np.zeros(n_s), events)


class _RateSolver:
    """Max-min rates of the active subflows; the heap path keeps its arrays between events."""

    def __init__(
        self, a: sp.csr_matrix, capacity_L: npt.ArrayLike, caps: FloatArray | None, method: Method
    ) -> None:
        self.a, self.capacity_L, self.caps, self.method = a, capacity_L, caps, method
        self.system = HeapSystem(*prepare(a, capacity_L, caps)) if method in ("auto", "heap") else None

    def __call__(self, active: npt.NDArray[np.intp]) -> FloatArray:
        """Rates (bytes/s) per subflow, 0 for inactive ones.

        Raises:
            SpecError: an active subflow crosses no link and has no cap.
        """
        n_s = self.a.shape[0]
        rate = np.zeros(n_s)
        if active.size == 0:
            return rate
        if self.system is not None:
            mask = np.zeros(n_s, dtype=bool)
            mask[active] = True
            rate[active] = self.system.solve(mask)[active]
        else:
            sub_caps = None if self.caps is None else self.caps[active]
            rate[active] = solve(self.a[active], self.capacity_L, sub_caps, method=self.method)
        if np.any(~np.isfinite(rate[active])):
            raise SpecError("a subflow with bytes to move crosses no link and has no cap")
        return rate


def _check(n_s: int, size: FloatArray, start: FloatArray, flow: npt.NDArray[np.int64]) -> None:
    if size.shape[0] != n_s or start.shape[0] != n_s or flow.shape[0] != n_s:
        raise SpecError("size_S, start_S and flow_S need one entry per routing-matrix row")
    if np.any(size < 0) or np.any(start < 0) or np.any(flow < 0):
        raise SpecError("sizes, start times and flow ids must be >= 0")
