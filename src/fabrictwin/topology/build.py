"""Build a fat-tree fabric as an immutable set of NumPy arrays, ready for a flow-level solver.

Legend: E endpoints (node NIC ports, one per node per rail per plane), W switches, L directed links.
Vertices are numbered endpoints first (``0 .. E-1``) then switches (``E + w``).

Link layout (each cable is two directed links; blocks in this order, used by closed-form routing):

* host up ``ep`` and host down ``E + ep`` (endpoint -> its leaf, leaf -> endpoint);
* leaf-spine up ``ls0 + plane*T + off[leaf] + j`` and down ``ls0 + P*T + same``: leaf port ``j``
  goes to spine ``j % spines_per_pod`` of the leaf's pod; ``off`` are the running sums of the leaves'
  used up ports (``u``, fewer on a partly filled last SU's leaves), ``T`` their total per plane;
* spine-core up ``sc0 + (plane*Sv + spine)*m + t`` and down ``sc0 + P*Sv*m + same``: spine port ``t``
  goes to core ``t % cores_per_group`` of core group ``spine % spines_per_pod`` (3 tiers only).

A link's ``latency_s`` is its cable's propagation delay plus, when it ends in a switch, that switch's
port-to-port latency, so a path's latency is the sum over its links.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from fabrictwin.errors import NotFound
from fabrictwin.topology.sizing import PlaneSize, size_plane

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
_A = TypeVar("_A", bound=npt.NDArray[Any])

# Light travels at ~2/3 c in glass fibre and copper: 1 / (0.667 * 2.998e8 m/s) = 5.0 ns/m
# (standard figure; e.g. ITU-T G.652 fibre group index ~1.47 gives 4.9 ns/m).
PROPAGATION_S_PER_M = 5.0e-9
# Cable lengths by tier (assumptions for latency only): node-leaf inside a row <= 50 m multimode SR
# reach, leaf-spine and spine-core across rows <= 100 m single-mode DR reach (reference section 1.7,
# transceiver reaches of MMA4Z00-NS / MMS4X00-NS).
DEFAULT_CABLE_M = (20.0, 50.0, 100.0)

TIER_HOST, TIER_LEAF_SPINE, TIER_SPINE_CORE = 0, 1, 2
SWITCH_LEAF, SWITCH_SPINE, SWITCH_CORE = 1, 2, 3


@dataclass(frozen=True, eq=False)
class Topology:
    """A built fat-tree fabric (all planes). Arrays are read-only; derive variants with ``with_*``."""

    size: PlaneSize
    """Switch counts and port split of one plane (all planes are identical)."""
    planes: int
    nodes: int
    rails: int
    """NIC ports per node on each plane."""
    link_bps: float
    """Line rate of every link, bits/s."""
    rail_optimized: bool
    ep_node: IntArray
    """(E) node index of each endpoint."""
    ep_rail: IntArray
    """(E) rail (NIC port) index of each endpoint within its node and plane."""
    ep_plane: IntArray
    ep_leaf: IntArray
    """(E) plane-local leaf index the endpoint plugs into."""
    ep_key: IntArray
    """(E) plane-local leaf-major index ``leaf * down + port`` (the D-mod-K destination number)."""
    sw_tier: IntArray
    """(W) 1 leaf, 2 spine, 3 core."""
    sw_plane: IntArray
    sw_group: IntArray
    """(W) leaf: SU; spine: pod; core: core group."""
    link_src: IntArray
    """(L) source vertex."""
    link_dst: IntArray
    link_tier: IntArray
    """(L) 0 host link, 1 leaf-spine, 2 spine-core."""
    capacity_Bps: FloatArray
    """(L) capacity in bytes/s (0 for a failed link)."""
    latency_s: FloatArray
    """(L) propagation plus downstream switch latency, seconds."""
    link_ok: BoolArray
    """(L) False where the link has failed; routing avoids it."""

    @property
    def n_endpoints(self) -> int:
        return int(self.ep_node.size)

    @property
    def n_switches(self) -> int:
        return int(self.sw_tier.size)

    @property
    def n_links(self) -> int:
        return int(self.link_src.size)

    def block_offsets(self) -> tuple[int, int]:
        """Start of the leaf-spine block and of the spine-core block in the link arrays."""
        ls0 = 2 * self.n_endpoints
        sc0 = ls0 + 2 * self.planes * self.size.leaf_spine_links
        return ls0, sc0

    def leaf_up_ports(self) -> tuple[IntArray, IntArray]:
        """Per plane-local leaf: used up ports and the offset of its first one in a plane's block."""
        return _leaf_up_ports(self.size)

    def endpoint_of(self, node: npt.ArrayLike, rail: npt.ArrayLike, plane: npt.ArrayLike = 0) -> IntArray:
        """Endpoint index of (node, rail, plane); vectorized over arrays.

        Raises:
            NotFound: a node, rail or plane is out of range.
        """
        n, r, p = (np.asarray(x, dtype=np.int64) for x in (node, rail, plane))
        rails = self.rails
        for name, val, hi in (("node", n, self.nodes), ("rail", r, rails), ("plane", p, self.planes)):
            if val.size and (val.min() < 0 or val.max() >= hi):
                raise NotFound(f"{name} out of range 0..{hi - 1}")
        return np.asarray((p * self.nodes + n) * rails + r, dtype=np.int64)

    def hops(self, src_ep: npt.ArrayLike, dst_ep: npt.ArrayLike) -> IntArray:
        """Links on a shortest path between endpoints: 0 (same), 2 (same leaf), 4 (same pod), 6.

        Endpoints on different planes are not connected; they get -1.
        """
        s, d = np.asarray(src_ep, dtype=np.int64), np.asarray(dst_ep, dtype=np.int64)
        same_plane = self.ep_plane[s] == self.ep_plane[d]
        la, lb = self.ep_leaf[s], self.ep_leaf[d]
        same_pod = la // self.size.pod_leaves == lb // self.size.pod_leaves
        out = np.where(s == d, 0, np.where(la == lb, 2, np.where(same_pod, 4, 6)))
        return np.where(same_plane, out, -1).astype(np.int64)

    def with_failed_links(self, links: npt.ArrayLike) -> Topology:
        """A copy where ``links`` are down (capacity 0, avoided by routing). Fail both directions
        of a cable by passing both link indices."""
        ok = self.link_ok.copy()
        cap = self.capacity_Bps.copy()
        idx = np.asarray(links, dtype=np.int64)
        ok[idx], cap[idx] = False, 0.0
        return dataclasses.replace(self, link_ok=_frozen(ok), capacity_Bps=_frozen(cap))

    def with_capacity(self, links: npt.ArrayLike, capacity_Bps: npt.ArrayLike) -> Topology:
        """A copy where ``links`` run at ``capacity_Bps`` (a degraded link: fewer lanes, lower speed).
        Routing still uses them; the solver sees the lower capacity."""
        cap = self.capacity_Bps.copy()
        cap[np.asarray(links, dtype=np.int64)] = capacity_Bps
        return dataclasses.replace(self, capacity_Bps=_frozen(cap))

    def cable_of(self, link: int) -> IntArray:
        """Both directed links of the cable that carries ``link``."""
        ls0, sc0 = self.block_offsets()
        e = self.n_endpoints
        if link < ls0:
            base, half = 0, e
        elif link < sc0:
            base, half = ls0, (sc0 - ls0) // 2
        else:
            base, half = sc0, (self.n_links - sc0) // 2
        first = base + (link - base) % half
        return np.array([first, first + half], dtype=np.int64)


def _frozen(a: _A) -> _A:
    a.setflags(write=False)
    return a


def build_fat_tree(
    nodes: int,
    rails: int,
    radix: int,
    link_bps: float,
    *,
    planes: int = 1,
    tiers: int | None = None,
    oversubscription: float = 1.0,
    su_nodes: int | None = None,
    whole_units: bool = False,
    rail_optimized: bool = True,
    switch_latency_s: float = 0.0,
    cable_m: tuple[float, float, float] = DEFAULT_CABLE_M,
) -> Topology:
    """Build a (rail-optimized) 2- or 3-tier fat tree of ``planes`` identical planes.

    ``rails`` is the number of NIC ports per node on each plane. Rail-optimized: port ``r`` of every
    node in an SU plugs into that SU's leaf ``r``. Otherwise a node's ports fill leaves in order.

    Raises:
        Infeasible: from :func:`fabrictwin.topology.sizing.size_plane` (radix too small for the
            tiers, partial SU with ``whole_units``, impossible oversubscription).
    """
    if rail_optimized:
        size = size_plane(nodes, rails, radix, tiers=tiers, oversubscription=oversubscription,
                          su_nodes=su_nodes, whole_units=whole_units)  # fmt: skip
    else:
        flat = size_plane(nodes * rails, 1, radix, tiers=tiers, oversubscription=oversubscription)
        size = flat
    ep = _endpoints(nodes, rails, planes, size, rail_optimized)
    sw = _switches(size, planes)
    links = _links(size, planes, ep["leaf"], nodes * rails)
    n_ep = nodes * rails * planes
    sw_lat = np.where(links[1] >= n_ep, switch_latency_s, 0.0)
    lat = np.asarray(cable_m, dtype=np.float64)[links[2]] * PROPAGATION_S_PER_M + sw_lat
    n_links = links[0].size
    return Topology(
        size=size,
        planes=planes,
        nodes=nodes,
        rails=rails,
        link_bps=float(link_bps),
        rail_optimized=rail_optimized,
        ep_node=_frozen(ep["node"]),
        ep_rail=_frozen(ep["rail"]),
        ep_plane=_frozen(ep["plane"]),
        ep_leaf=_frozen(ep["leaf"]),
        ep_key=_frozen(ep["key"]),
        sw_tier=_frozen(sw[0]),
        sw_plane=_frozen(sw[1]),
        sw_group=_frozen(sw[2]),
        link_src=_frozen(links[0]),
        link_dst=_frozen(links[1]),
        link_tier=_frozen(links[2]),
        capacity_Bps=_frozen(np.full(n_links, link_bps / 8.0)),
        latency_s=_frozen(lat),
        link_ok=_frozen(np.ones(n_links, dtype=bool)),
    )


def _endpoints(nodes: int, rails: int, planes: int, size: PlaneSize, rail_opt: bool) -> dict[str, IntArray]:
    idx = np.arange(nodes * rails * planes, dtype=np.int64)
    plane, local = np.divmod(idx, nodes * rails)
    node, rail = np.divmod(local, rails)
    if rail_opt:
        su, slot = np.divmod(node, size.su_nodes)
        group, lane = np.divmod(rail, size.rails_per_leaf)
        leaf = su * size.leaves_per_su + group
        port = lane * size.su_nodes + slot
    else:
        leaf, port = np.divmod(local, size.leaf.down)
    return {"node": node, "rail": rail, "plane": plane, "leaf": leaf, "key": leaf * size.leaf.down + port}


def _switches(size: PlaneSize, planes: int) -> tuple[IntArray, IntArray, IntArray]:
    leaf_group = np.arange(size.leaves, dtype=np.int64) // size.leaves_per_su
    spine_group = np.arange(size.spines, dtype=np.int64) // size.spines_per_pod
    core_group = (
        np.arange(size.cores, dtype=np.int64) // size.cores_per_group if size.cores else np.zeros(0, np.int64)
    )
    tier = np.concatenate([np.full(size.leaves, 1), np.full(size.spines, 2), np.full(size.cores, 3)])
    group = np.concatenate([leaf_group, spine_group, core_group])
    per_plane = tier.size
    return (
        np.tile(tier, planes).astype(np.int64),
        np.repeat(np.arange(planes, dtype=np.int64), per_plane),
        np.tile(group, planes).astype(np.int64),
    )


def _leaf_up_ports(size: PlaneSize) -> tuple[IntArray, IntArray]:
    last = np.arange(size.leaves, dtype=np.int64) >= size.leaves - size.leaves_per_su
    up = np.where(last, size.last_su_up, size.leaf.up).astype(np.int64)
    off = np.concatenate([np.zeros(1, np.int64), np.cumsum(up)[:-1]]).astype(np.int64)
    return up, off


def _links(size: PlaneSize, planes: int, ep_leaf: IntArray, ep_per_plane: int) -> tuple[IntArray, ...]:
    """(src, dst, tier) of every directed link, in the block layout of the module docstring."""
    n_ep = ep_leaf.size
    per_plane = size.leaves + size.spines + size.cores
    sw0 = n_ep + np.arange(planes, dtype=np.int64) * per_plane  # first switch vertex of each plane
    ep_plane = np.arange(n_ep, dtype=np.int64) // ep_per_plane
    ep_vertex = np.arange(n_ep, dtype=np.int64)
    leaf_vertex = sw0[ep_plane] + ep_leaf
    src = [ep_vertex, leaf_vertex]
    dst = [leaf_vertex, ep_vertex]
    # leaf-spine: (plane, leaf, j) -> spine (pod(leaf), j % spines_per_pod), j < the leaf's up ports
    up, off = _leaf_up_ports(size)
    leaf_one = np.repeat(np.arange(size.leaves, dtype=np.int64), up)
    p = np.repeat(np.arange(planes, dtype=np.int64), leaf_one.size)
    leaf = np.tile(leaf_one, planes)
    j = np.tile(np.arange(leaf_one.size, dtype=np.int64) - off[leaf_one], planes)
    lv = sw0[p] + leaf
    spine = j % max(size.spines_per_pod, 1)  # a 1-tier plane has no leaf-spine links at all
    sv = sw0[p] + size.leaves + (leaf // size.pod_leaves) * size.spines_per_pod + spine
    src += [lv, sv]
    dst += [sv, lv]
    tiers = [np.zeros(2 * n_ep, np.int64), np.ones(2 * lv.size, np.int64)]
    if size.tiers == 3:
        p, spine, t = (a.ravel() for a in np.indices((planes, size.spines, size.spine_up), dtype=np.int64))
        sv = sw0[p] + size.leaves + spine
        group = spine % size.spines_per_pod
        cv = sw0[p] + size.leaves + size.spines + group * size.cores_per_group + t % size.cores_per_group
        src += [sv, cv]
        dst += [cv, sv]
        tiers.append(np.full(2 * sv.size, 2, np.int64))
    return np.concatenate(src), np.concatenate(dst), np.concatenate(tiers)
