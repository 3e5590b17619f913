"""Routing on a fat tree, vectorized over many flows, in closed form (no graph search).

Contract (the network solver codes against it)::

    route(topo, src_ep, dst_ep, policy, *, qps=1, seed=0) -> Routing

``Routing`` is a frozen dataclass with

* ``matrix``: ``scipy.sparse.csr_matrix`` (n_subflows x n_links), float weights in (0, 1]: the share
  of the subflow's rate that crosses the link (1.0 on a single path; fractional under fluid multipath);
* ``flow``: (n_subflows) int, index of the requested flow each subflow belongs to;
* ``fraction``: (n_subflows) float, share of the flow's bytes the subflow carries (sums to 1 per flow);
* ``n_flows``, ``n_links``.

A flow whose source equals its destination gets one subflow with an empty row (it crosses no link).
The topology supplies ``capacity_Bps`` and ``latency_s`` per link (same column order); since the
weights of every hop level sum to 1, ``matrix @ topo.latency_s`` is each subflow's (mean) path latency.

Policies (reference ``fabric-and-network-models.md`` sections 4.2, 4.3, 6 and 7.2):

* ``dmodk`` -- InfiniBand ``ftree`` static routing: the up port is chosen from the destination's
  leaf-major number D: leaf port ``D mod u``, spine port ``(D div u) mod m``. Congestion-free for shift
  permutations (OpenSM ``current-routing.txt``: ftree "optimizes ... for congestion-free 'shift'").
  One path per destination, whatever the number of QPs (LMC = 0).
* ``ecmp`` -- Ethernet hashed ECMP: each of ``qps`` queue pairs of a connection is a subflow carrying
  ``1/qps`` of the bytes, pinned to one equal-cost path chosen by a hash of (src, dst, qp, seed), as a
  switch hashes the RoCE 5-tuple whose UDP source port differs per QP.
* ``adaptive`` -- InfiniBand adaptive routing / Spectrum-X packet spraying as fluid multipath: one
  subflow spread evenly over all live equal-cost paths (weights = share of live paths through a link).

Failed links (``topo.link_ok`` False) are avoided: single-path policies move to the next live path
index (as the subnet manager reroutes), adaptive spreads over live paths only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from fabrictwin.errors import Infeasible
from fabrictwin.topology.build import BoolArray, FloatArray, IntArray, Topology

Policy = Literal["dmodk", "ecmp", "adaptive"]
POLICIES: tuple[str, ...] = ("dmodk", "ecmp", "adaptive")

# Path classes: 0 same endpoint, 1 same leaf, 2 same pod (via a spine), 3 across pods (via a core).
SAME_EP, SAME_LEAF, SAME_POD, CROSS_POD = 0, 1, 2, 3


@dataclass(frozen=True, eq=False)
class Routing:
    """Links used by each subflow; see the module docstring for the contract."""

    matrix: sp.csr_matrix
    flow: IntArray
    fraction: FloatArray
    n_flows: int
    n_links: int


@dataclass(frozen=True)
class _Flows:
    """Per-subflow geometry shared by the policies."""

    a: IntArray
    b: IntArray
    cls: IntArray
    plane: IntArray
    la: IntArray
    lb: IntArray
    pa: IntArray
    pb: IntArray


def route(
    topo: Topology,
    src_ep: npt.ArrayLike,
    dst_ep: npt.ArrayLike,
    policy: Policy | str,
    *,
    qps: int = 1,
    seed: int = 0,
) -> Routing:
    """Route flows ``src_ep[i] -> dst_ep[i]`` under ``policy``; see the module docstring.

    Raises:
        ValueError: unknown policy, ``qps < 1``, shapes differ, endpoint out of range.
        Infeasible: a flow joins endpoints on different planes or on two switches of a 1-tier
            fabric, or every path of a flow crosses a
            failed link.
    """
    src, dst = np.atleast_1d(np.asarray(src_ep, np.int64)), np.atleast_1d(np.asarray(dst_ep, np.int64))
    _check(topo, src, dst, policy, qps)
    n_sub = qps if policy == "ecmp" else 1
    flow = np.repeat(np.arange(src.size, dtype=np.int64), n_sub)
    qp = np.tile(np.arange(n_sub, dtype=np.int64), src.size)
    geo = _geometry(topo, src[flow], dst[flow])
    if policy == "adaptive":
        rows, cols, vals = _adaptive(topo, geo)
    else:
        path = _initial_path(topo, geo, policy, qp, seed)
        rows, cols, vals = _single_path(topo, geo, path)
    matrix = sp.csr_matrix((vals, (rows, cols)), shape=(flow.size, topo.n_links))
    fraction = np.full(flow.size, 1.0 / n_sub)
    return Routing(matrix=matrix, flow=flow, fraction=fraction, n_flows=int(src.size), n_links=topo.n_links)


def _check(topo: Topology, src: IntArray, dst: IntArray, policy: str, qps: int) -> None:
    if policy not in POLICIES:
        raise ValueError(f"unknown routing policy {policy!r}; known: {', '.join(POLICIES)}")
    if qps < 1:
        raise ValueError(f"qps must be >= 1, got {qps}")
    if src.shape != dst.shape:
        raise ValueError(f"src_ep and dst_ep differ in shape: {src.shape} vs {dst.shape}")
    for arr in (src, dst):
        if arr.size and (arr.min() < 0 or arr.max() >= topo.n_endpoints):
            raise ValueError(f"endpoint out of range 0..{topo.n_endpoints - 1}")
    cross = np.flatnonzero(topo.ep_plane[src] != topo.ep_plane[dst])
    if cross.size:
        raise Infeasible(
            f"flow {int(cross[0])} joins endpoints on planes {int(topo.ep_plane[src[cross[0]]])} and "
            f"{int(topo.ep_plane[dst[cross[0]]])}; planes are separate fabrics",
            nearest="route each plane's traffic between endpoints of that plane",
        )
    apart = np.flatnonzero(topo.ep_leaf[src] != topo.ep_leaf[dst]) if topo.size.tiers == 1 else src[:0]
    if apart.size:
        raise Infeasible(
            f"flow {int(apart[0])} joins two switches of a 1-tier fabric, which no spine connects",
            nearest="tiers 2",
        )


def _geometry(topo: Topology, a: IntArray, b: IntArray) -> _Flows:
    la, lb = topo.ep_leaf[a], topo.ep_leaf[b]
    pa, pb = la // topo.size.pod_leaves, lb // topo.size.pod_leaves
    cls = np.where(a == b, SAME_EP, np.where(la == lb, SAME_LEAF, np.where(pa == pb, SAME_POD, CROSS_POD)))
    return _Flows(a=a, b=b, cls=cls, plane=topo.ep_plane[a], la=la, lb=lb, pa=pa, pb=pb)


def _n_paths(topo: Topology, geo: _Flows) -> IntArray:
    """Equal-cost paths: the source leaf's used up ports (x the spine's up ports across pods)."""
    u = topo.leaf_up_ports()[0][geo.la]
    m = max(topo.size.spine_up, 1)
    return np.where(geo.cls == CROSS_POD, u * m, np.where(geo.cls == SAME_POD, u, 1)).astype(np.int64)


def _initial_path(topo: Topology, geo: _Flows, policy: str, qp: IntArray, seed: int) -> IntArray:
    n_paths = _n_paths(topo, geo)
    if policy == "dmodk":
        return topo.ep_key[geo.b] % n_paths
    h = _hash(np.uint64(seed & 0xFFFFFFFFFFFFFFFF), geo.a, geo.b, qp)
    return (h % n_paths.astype(np.uint64)).astype(np.int64)


def _mix(x: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """SplitMix64 finaliser (Steele, Lea, Flood, OOPSLA 2014): a well-spread 64-bit integer hash."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _hash(seed: np.uint64, a: IntArray, b: IntArray, qp: IntArray) -> npt.NDArray[np.uint64]:
    with np.errstate(over="ignore"):
        h = _mix(np.full(a.shape, seed, dtype=np.uint64))
        for part in (a, b, qp):
            h = _mix(h ^ part.astype(np.uint64))
    return h


def _link_ids(topo: Topology, geo: _Flows, j: IntArray, t: IntArray) -> tuple[IntArray, ...]:
    """(host up, leaf up, spine up, spine down, leaf down, host down) links for up ports j, t.

    The destination leaf comes down on its port ``j mod up[lb]``: every leaf's used up ports are a
    multiple of the spine count, so that port hangs off the same spine as the source's port ``j``.
    """
    s = topo.size
    ls0, sc0 = topo.block_offsets()
    up, off = topo.leaf_up_ports()
    n_ls = topo.planes * s.leaf_spine_links
    n_sc = topo.planes * s.spines * s.spine_up
    leaf_up = ls0 + geo.plane * s.leaf_spine_links + off[geo.la] + j
    leaf_down = ls0 + n_ls + geo.plane * s.leaf_spine_links + off[geo.lb] + j % np.maximum(up[geo.lb], 1)
    spine_j = j % max(s.spines_per_pod, 1)  # a 1-tier plane has no spines (these ids go unused)
    spine_a = geo.plane * s.spines + geo.pa * s.spines_per_pod + spine_j
    spine_b = geo.plane * s.spines + geo.pb * s.spines_per_pod + spine_j
    spine_up = sc0 + spine_a * s.spine_up + t
    spine_down = sc0 + n_sc + spine_b * s.spine_up + t
    return geo.a, leaf_up, spine_up, spine_down, leaf_down, topo.n_endpoints + geo.b


def _path_links(topo: Topology, geo: _Flows, path: IntArray) -> tuple[IntArray, BoolArray]:
    """(subflows x 6) link ids of each subflow's path and a mask of the hops it really uses."""
    u = np.maximum(topo.leaf_up_ports()[0][geo.la], 1)  # 1 tier: no up ports, paths stay on the leaf
    ids = np.stack(_link_ids(topo, geo, path % u, path // u), axis=1)
    used = np.zeros(ids.shape, dtype=bool)
    used[:, [0, 5]] = (geo.cls >= SAME_LEAF)[:, None]
    used[:, [1, 4]] = (geo.cls >= SAME_POD)[:, None]
    used[:, [2, 3]] = (geo.cls >= CROSS_POD)[:, None]
    return np.where(used, ids, 0), used


def _single_path(topo: Topology, geo: _Flows, path: IntArray) -> tuple[IntArray, IntArray, FloatArray]:
    n_paths = _n_paths(topo, geo)
    path = path.copy()
    if not topo.link_ok.all():
        path = _fail_over(topo, geo, path, n_paths)
    ids, used = _path_links(topo, geo, path)
    rows = np.broadcast_to(np.arange(path.size, dtype=np.int64)[:, None], ids.shape)
    return rows[used], ids[used], np.ones(int(used.sum()))


def _fail_over(topo: Topology, geo: _Flows, path: IntArray, n_paths: IntArray) -> IntArray:
    """Move each subflow whose path crosses a failed link to the next live path index."""
    start = path.copy()
    todo = np.arange(path.size)
    for offset in range(int(n_paths.max())):
        sub = _select(geo, todo)
        trial = (start[todo] + offset) % n_paths[todo]
        ids, used = _path_links(topo, sub, trial)
        dead = (used & ~topo.link_ok[ids]).any(axis=1)
        path[todo[~dead]] = trial[~dead]
        stuck = todo[dead & (offset + 1 >= n_paths[todo])]
        if stuck.size:
            i = int(stuck[0])
            raise Infeasible(
                f"subflow {i} ({int(geo.a[i])} -> {int(geo.b[i])}) has no live path",
                nearest="repair a link on its path or route around the failed endpoint",
            )
        todo = todo[dead]
        if todo.size == 0:
            break
    return path


def _select(geo: _Flows, idx: IntArray) -> _Flows:
    return _Flows(*(getattr(geo, f)[idx] for f in ("a", "b", "cls", "plane", "la", "lb", "pa", "pb")))


def _adaptive(topo: Topology, geo: _Flows) -> tuple[IntArray, IntArray, FloatArray]:
    """Fluid multipath: every subflow spread evenly over its live equal-cost paths."""
    parts: list[tuple[IntArray, IntArray, FloatArray]] = []
    row = np.arange(geo.a.size, dtype=np.int64)
    host = geo.cls >= SAME_LEAF
    for links in (geo.a[host], topo.n_endpoints + geo.b[host]):
        parts.append((row[host], links, np.ones(links.size)))
    for cls in (SAME_POD, CROSS_POD):
        sel = np.flatnonzero(geo.cls == cls)
        for chunk in np.array_split(sel, max(1, sel.size // 4096)):
            if chunk.size:
                parts.append(_spread(topo, _select(geo, chunk), row[chunk], cls))
    _require_live_hosts(topo, geo)
    return tuple(np.concatenate(p) for p in zip(*parts, strict=True))  # type: ignore[return-value]


def _spread(topo: Topology, geo: _Flows, row: IntArray, cls: int) -> tuple[IntArray, IntArray, FloatArray]:
    """Weights of the switch-to-switch links over all live paths of same-class subflows."""
    u = topo.size.leaf.up  # the most up ports any leaf uses
    m = topo.size.spine_up if cls == CROSS_POD else 1
    g = _Flows(*(getattr(geo, f)[:, None, None] for f in ("a", "b", "cls", "plane", "la", "lb", "pa", "pb")))
    up_a = topo.leaf_up_ports()[0][g.la]
    real = np.arange(u)[None, :, None] < up_a  # a partly filled SU's leaf uses fewer up ports
    j = np.minimum(np.arange(u)[None, :, None], up_a - 1)
    t = np.arange(m)[None, None, :]
    _, lu, su, sd, ld, _ = _link_ids(topo, g, j, t)
    lu, ld = np.broadcast_to(lu, (row.size, u, m)), np.broadcast_to(ld, (row.size, u, m))
    ok = real & topo.link_ok[lu] & topo.link_ok[ld]
    if cls == CROSS_POD:
        su, sd = np.broadcast_to(su, lu.shape), np.broadcast_to(sd, lu.shape)
        ok = ok & topo.link_ok[su] & topo.link_ok[sd]
    count = ok.sum(axis=(1, 2))
    if (count == 0).any():
        i = int(np.flatnonzero(count == 0)[0])
        raise Infeasible(
            f"flow {int(geo.a[i])} -> {int(geo.b[i])} has no live path",
            nearest="repair a switch-to-switch link on its paths",
        )
    share = ok / count[:, None, None]
    leaf_w = share.sum(axis=2)
    rows2 = np.broadcast_to(row[:, None], leaf_w.shape)
    out_rows, out_cols, out_vals = [rows2, rows2], [lu[:, :, 0], ld[:, :, 0]], [leaf_w, leaf_w]
    if cls == CROSS_POD:
        rows3 = np.broadcast_to(row[:, None, None], share.shape)
        out_rows += [rows3, rows3]
        out_cols += [su, sd]
        out_vals += [share, share]
    r, c, v = (np.concatenate([x.ravel() for x in arrs]) for arrs in (out_rows, out_cols, out_vals))
    keep = v > 0
    return r[keep], c[keep], v[keep]


def _require_live_hosts(topo: Topology, geo: _Flows) -> None:
    host = geo.cls >= SAME_LEAF
    dead = host & ~(topo.link_ok[geo.a] & topo.link_ok[topo.n_endpoints + geo.b])
    if dead.any():
        i = int(np.flatnonzero(dead)[0])
        raise Infeasible(
            f"flow {int(geo.a[i])} -> {int(geo.b[i])} uses a failed host link",
            nearest="repair the host cable or move the rank to a healthy NIC",
        )


def link_loads(routing: Routing, rate: npt.ArrayLike | float = 1.0) -> FloatArray:
    """Per-link load when every flow sends at ``rate`` (scalar or per flow).

    ``load = matrix.T @ (rate[flow] * fraction)``; a load above the capacity means congestion.
    """
    per_flow = np.broadcast_to(np.asarray(rate, dtype=np.float64), (routing.n_flows,))
    sub_rate = per_flow[routing.flow] * routing.fraction
    return np.asarray(routing.matrix.T @ sub_rate, dtype=np.float64)
