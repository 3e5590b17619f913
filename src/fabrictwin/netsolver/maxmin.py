"""Weighted max-min fair bandwidth sharing (SimGrid-style linear max-min system).

Problem. ``S`` subflows share ``L`` directed links. ``routing_SL`` (sparse, S x L) holds
``w[s, l]`` > 0: the share of subflow ``s``'s rate that crosses link ``l`` (1 for a single
path; 1/k on each of k links for fluid multipath such as InfiniBand adaptive routing; above 1
when one pipelined ring crosses the same link on several hops).
Link ``l`` has capacity ``capacity_L[l]`` (bytes/s) and subflow ``s`` an optional rate cap
``cap_S[s]`` (NIC line rate, TCP window / RTT). Find the rates ``rate_S`` that are max-min
fair (Bertsekas & Gallager, *Data Networks*, 2nd ed., section 6.5.2):

    sum_s w[s, l] * rate_S[s] <= capacity_L[l]   for every link l
    rate_S[s] <= cap_S[s]                          for every subflow s

and no rate can grow without shrinking an equal or smaller one. Equivalently, every subflow
crosses a *bottleneck*: a saturated link (or its own cap) on which no other subflow has a
larger rate. SimGrid's LMM solver computes the same allocation (SimGrid docs, Models.rst,
"the Max-Min objective function"; src/kernel/lmm).

Two solvers give the same answer:

* :func:`solve_progressive` - vectorised progressive filling (NumPy/SciPy): all unfrozen rates
  rise together; the links whose fair share is the lowest saturate and freeze their subflows.
  One round is two sparse mat-vecs, O(nnz) per round, O(levels x nnz) in all: fast when few
  distinct bottleneck levels exist (symmetric collective steps).
* :func:`solve_heap` - exact water-filling with a binary heap of link shares, compiled with
  Numba: O(nnz log L) whatever the number of levels (random ECMP hashing makes thousands).

:func:`solve_reference` is a plain-Python version of the heap algorithm kept as the baseline
for benchmarks and as an independent oracle in tests.

Legend: ``S`` subflows, ``L`` links; ``*_S`` per subflow, ``*_L`` per link.
"""

from __future__ import annotations

import heapq
from typing import Literal

import numba
import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from fabrictwin.errors import SpecError

FloatArray = npt.NDArray[np.float64]
Method = Literal["auto", "progressive", "heap", "reference"]

_REL_TOL = 1e-9
"""Relative tolerance under which two shares count as the same bottleneck level."""

_PROGRESSIVE_MAX_ROUNDS = 64
"""``auto`` switches to the heap solver once progressive filling needs more rounds than this
(measured crossover on a 2-core host: each round costs about as much as a heap pass / 64)."""


def prepare(
    routing_SL: sp.spmatrix | sp.sparray,
    capacity_L: npt.ArrayLike,
    cap_S: npt.ArrayLike | None,
) -> tuple[sp.csr_matrix, FloatArray]:
    """Validate the inputs and fold per-subflow caps in as one private link per subflow.

    Links no subflow crosses may have zero capacity (failed links the routing avoided).

    Raises:
        SpecError: shapes disagree, a weight is outside (0, 1], or a capacity is not positive.
    """
    a = sp.csr_matrix(routing_SL, dtype=np.float64)
    a.sum_duplicates()
    a.eliminate_zeros()
    cap_l = np.asarray(capacity_L, dtype=np.float64).ravel()
    n_s, n_l = a.shape
    if cap_l.shape[0] != n_l:
        raise SpecError(f"capacity_L has {cap_l.shape[0]} links, routing matrix has {n_l}")
    used = np.diff(a.tocsc().indptr) > 0 if n_l else np.zeros(0, dtype=bool)
    if np.any(cap_l[used] <= 0):
        raise SpecError("a link some subflow crosses has capacity <= 0 bytes/s (failed link in a route)")
    if a.nnz and a.data.min() <= 0:
        raise SpecError("routing weights must be > 0")
    if cap_S is not None:
        caps = np.asarray(cap_S, dtype=np.float64).ravel()
        if caps.shape[0] != n_s:
            raise SpecError(f"cap_S has {caps.shape[0]} entries, routing matrix has {n_s} rows")
        finite = np.flatnonzero(np.isfinite(caps))
        if np.any(caps[finite] <= 0):
            raise SpecError("subflow caps must be > 0 bytes/s")
        extra = sp.csr_matrix(
            (np.ones(finite.size), (finite, np.arange(finite.size))), shape=(n_s, finite.size)
        )
        a = sp.hstack([a, extra], format="csr")
        cap_l = np.concatenate([cap_l, caps[finite]])
    return a, cap_l


def solve_progressive(
    routing_SL: sp.spmatrix | sp.sparray,
    capacity_L: npt.ArrayLike,
    cap_S: npt.ArrayLike | None = None,
    *,
    max_rounds: int | None = None,
) -> FloatArray:
    """Max-min fair rates by vectorised progressive filling.

    Returns ``rate_S`` in bytes/s; a subflow that crosses no link and has no cap gets ``inf``.

    Raises:
        SpecError: invalid inputs (see :func:`prepare`).
        RuntimeError: ``max_rounds`` was given and exceeded (``auto`` then falls back).
    """
    a, cap_l = prepare(routing_SL, capacity_L, cap_S)
    at = a.T.tocsr()
    n_s = a.shape[0]
    rate = np.full(n_s, np.inf)
    active = np.diff(a.indptr) > 0
    frozen_load = np.zeros(cap_l.shape[0])
    rounds = 0
    while active.any():
        rounds += 1
        if max_rounds is not None and rounds > max_rounds:
            raise RuntimeError("progressive filling exceeded max_rounds")
        weight_l = at @ active.astype(np.float64)
        used = weight_l > 0
        share = np.full(cap_l.shape[0], np.inf)
        share[used] = (cap_l[used] - frozen_load[used]) / weight_l[used]
        level = max(float(share.min()), 0.0)
        saturated = share <= level * (1 + _REL_TOL) + 1e-300
        hit = (a @ saturated.astype(np.float64)) > 0
        newly = active & hit
        rate[newly] = level
        frozen_load += at @ np.where(newly, level, 0.0)
        active &= ~newly
    return rate


@numba.njit(cache=True)  # type: ignore[misc]
def _swap(key: FloatArray, link: npt.NDArray[np.int64], pos: npt.NDArray[np.int64], a: int, b: int) -> None:
    """Swap heap slots ``a`` and ``b`` and keep ``pos`` (link -> slot) in step."""
    key[a], key[b] = key[b], key[a]
    link[a], link[b] = link[b], link[a]
    pos[link[a]], pos[link[b]] = a, b


@numba.njit(cache=True)  # type: ignore[misc]
def _sift_up(key: FloatArray, link: npt.NDArray[np.int64], pos: npt.NDArray[np.int64], i: int) -> None:
    while i > 0:
        parent = (i - 1) // 2
        if key[parent] <= key[i]:
            break
        _swap(key, link, pos, parent, i)
        i = parent


@numba.njit(cache=True)  # type: ignore[misc]
def _sift_down(
    key: FloatArray, link: npt.NDArray[np.int64], pos: npt.NDArray[np.int64], i: int, n: int
) -> None:
    while True:
        small, left = i, 2 * i + 1
        if left < n and key[left] < key[small]:
            small = left
        if left + 1 < n and key[left + 1] < key[small]:
            small = left + 1
        if small == i:
            return
        _swap(key, link, pos, small, i)
        i = small


@numba.njit(cache=True)  # type: ignore[misc]
def _heap_kernel(
    row_ptr: npt.NDArray[np.int64],
    row_idx: npt.NDArray[np.int64],
    row_w: FloatArray,
    col_ptr: npt.NDArray[np.int64],
    col_idx: npt.NDArray[np.int64],
    col_w: FloatArray,
    cap_l: FloatArray,
    active: npt.NDArray[np.bool_],
) -> FloatArray:
    # Indexed binary heap of link shares (one slot per link, updated in place): O(nnz log L).
    n_s, n_l = row_ptr.shape[0] - 1, col_ptr.shape[0] - 1
    rate = np.full(n_s, np.inf)
    frozen = ~active  # inactive subflows take no part (rate reported as inf; callers mask)
    remaining = cap_l.copy()
    weight = np.zeros(n_l)
    for l in range(n_l):
        for k in range(col_ptr[l], col_ptr[l + 1]):
            if active[col_idx[k]]:
                weight[l] += col_w[k]
    key, link, pos = np.empty(n_l), np.empty(n_l, np.int64), np.full(n_l, -1, np.int64)
    n = 0
    for l in range(n_l):
        if weight[l] > 1e-12:
            key[n], link[n], pos[l] = remaining[l] / weight[l], l, n
            n += 1
    for i in range(n // 2 - 1, -1, -1):
        _sift_down(key, link, pos, i, n)
    level = 0.0
    while n > 0:
        top = link[0]
        level = max(level, key[0], 0.0)
        n -= 1
        key[0], link[0], pos[link[n]], pos[top] = key[n], link[n], 0, -1
        _sift_down(key, link, pos, 0, n)
        for k in range(col_ptr[top], col_ptr[top + 1]):
            s = col_idx[k]
            if frozen[s]:
                continue
            frozen[s] = True
            rate[s] = level
            for j in range(row_ptr[s], row_ptr[s + 1]):
                m = row_idx[j]
                remaining[m] -= row_w[j] * level
                weight[m] -= row_w[j]
                i = pos[m]
                if i < 0:
                    continue
                if weight[m] <= 1e-12:  # no unfrozen subflow left: drop the link from the heap
                    n -= 1
                    last = link[n]
                    key[i], link[i], pos[last], pos[m] = key[n], last, i, -1
                    if i < n:
                        _sift_down(key, link, pos, i, n)
                        _sift_up(key, link, pos, i)
                    continue
                key[i] = max(remaining[m], 0.0) / weight[m]
                _sift_down(key, link, pos, i, n)
                _sift_up(key, link, pos, i)
    return rate


def solve_heap(
    routing_SL: sp.spmatrix | sp.sparray,
    capacity_L: npt.ArrayLike,
    cap_S: npt.ArrayLike | None = None,
) -> FloatArray:
    """Max-min fair rates by exact heap-based water-filling (Numba-compiled).

    Same contract as :func:`solve_progressive`.

    Raises:
        SpecError: invalid inputs.
    """
    a, cap_l = prepare(routing_SL, capacity_L, cap_S)
    return HeapSystem(a, cap_l).solve(np.ones(a.shape[0], dtype=bool))


class HeapSystem:
    """A prepared system for repeated heap solves over changing sets of active subflows
    (the event loop re-solves after every completion without rebuilding sparse structures)."""

    def __init__(self, a: sp.csr_matrix, cap_l: FloatArray) -> None:
        c = a.tocsc()
        self._arrays = (
            a.indptr.astype(np.int64),
            a.indices.astype(np.int64),
            np.ascontiguousarray(a.data, dtype=np.float64),
            c.indptr.astype(np.int64),
            c.indices.astype(np.int64),
            np.ascontiguousarray(c.data, dtype=np.float64),
            np.ascontiguousarray(cap_l, dtype=np.float64),
        )

    def solve(self, active: npt.NDArray[np.bool_]) -> FloatArray:
        """Max-min rates of the ``active`` subflows (others: inf)."""
        return np.asarray(_heap_kernel(*self._arrays, np.ascontiguousarray(active, dtype=np.bool_)))


def solve_reference(
    routing_SL: sp.spmatrix | sp.sparray,
    capacity_L: npt.ArrayLike,
    cap_S: npt.ArrayLike | None = None,
) -> FloatArray:
    """Plain-Python heap water-filling: the benchmark baseline and a test oracle.

    Raises:
        SpecError: invalid inputs.
    """
    a, cap_l = prepare(routing_SL, capacity_L, cap_S)
    rows = [list(zip(a.indices[a.indptr[s] : a.indptr[s + 1]].tolist(),
                     a.data[a.indptr[s] : a.indptr[s + 1]].tolist(), strict=True))
            for s in range(a.shape[0])]  # fmt: skip
    cols: list[list[int]] = [[] for _ in range(cap_l.shape[0])]
    for s, row in enumerate(rows):
        for link, _w in row:
            cols[link].append(s)
    remaining = cap_l.tolist()
    weight = [0.0] * len(remaining)
    for row in rows:
        for link, w in row:
            weight[link] += w
    version = [0] * len(remaining)
    heap = [(remaining[i] / weight[i], i, 0) for i in range(len(weight)) if weight[i] > 0]
    heapq.heapify(heap)
    rate = [float("inf")] * a.shape[0]
    frozen = [False] * a.shape[0]
    level = 0.0
    while heap:
        share, link, ver = heapq.heappop(heap)
        if ver != version[link] or weight[link] <= 1e-12:
            continue
        level = max(level, share, 0.0)
        for s in cols[link]:
            if frozen[s]:
                continue
            frozen[s] = True
            rate[s] = level
            for m, w in rows[s]:
                remaining[m] -= w * level
                weight[m] -= w
                version[m] += 1
                if m != link and weight[m] > 1e-12:
                    heapq.heappush(heap, (max(remaining[m], 0.0) / weight[m], m, version[m]))
        weight[link] = 0.0
    return np.asarray(rate)


def solve(
    routing_SL: sp.spmatrix | sp.sparray,
    capacity_L: npt.ArrayLike,
    cap_S: npt.ArrayLike | None = None,
    *,
    method: Method = "auto",
) -> FloatArray:
    """Max-min fair rates (bytes/s) per subflow; ``auto`` tries progressive filling first.

    Raises:
        SpecError: invalid inputs or an unknown method.
    """
    if method == "progressive":
        return solve_progressive(routing_SL, capacity_L, cap_S)
    if method == "heap":
        return solve_heap(routing_SL, capacity_L, cap_S)
    if method == "reference":
        return solve_reference(routing_SL, capacity_L, cap_S)
    if method != "auto":
        raise SpecError(f"unknown max-min method {method!r}; known: auto, progressive, heap, reference")
    try:
        return solve_progressive(routing_SL, capacity_L, cap_S, max_rounds=_PROGRESSIVE_MAX_ROUNDS)
    except RuntimeError:
        return solve_heap(routing_SL, capacity_L, cap_S)
