"""Small and partial clusters: one switch when it fits, trimmed uplinks below one SU, routing agrees.

Hand derivations use the Quantum-2 QM9700 at NDR (radix 64, 32 down + 32 up at 1:1), eight rails per
DGX-class node, and the SN5600 at 200 GbE (radix 128) for storage (reference
``fabric-and-network-models.md`` sections 1.7, 1.8).
"""

from __future__ import annotations

import numpy as np
import pytest

from fabrictwin.errors import Infeasible
from fabrictwin.topology import build_fat_tree, route
from fabrictwin.topology.design import design_from_catalog
from fabrictwin.topology.layout import plane_layout
from fabrictwin.topology.sizing import size_plane

NDR_BPS = 400e9


def _qty(design: object, network: str, category: str, word: str = "") -> int:
    lines = design.bom  # type: ignore[attr-defined]
    return sum(
        ln.quantity for ln in lines if ln.network == network and ln.category == category and word in ln.item
    )


def test_four_nodes_fit_on_one_switch_with_node_links_only() -> None:
    d = design_from_catalog(4, 8, "ib-ndr")
    c = d.compute
    # 4 nodes x 8 rails = 32 ports <= 64: one QM9700, no spines, no uplinks.
    assert (c.tiers, c.leaf_switches, c.spine_switches, c.core_switches) == (1, 1, 0, 0)
    assert (c.node_links, c.leaf_spine_links, c.spine_core_links) == (32, 0, 0)
    assert d.sharp.capable and any("single tier" in n and "SHARP" in n for n in d.notes)
    # One non-blocking switch: half the 32 ports talk to the other half at 400 Gb/s = 50 GB/s each.
    assert c.bisection_Bps == pytest.approx(16 * 50e9)


def test_four_node_bill_of_materials_is_counted_by_hand() -> None:
    d = design_from_catalog(4, 8, "ib-ndr")
    assert _qty(d, "compute", "switch") == 1
    assert _qty(d, "compute", "adapter") == 32
    assert _qty(d, "compute", "optics", "host") == 32  # one host module per node link
    assert _qty(d, "compute", "optics", "twin-port") == 16  # 32 node links / 2 per twin-port module
    assert _qty(d, "compute", "cable", "fibre") == 32
    # Storage: 4 nodes x 2 ports on 2 separate SN5600s (redundancy), 4 x 200G per twin-port module.
    assert d.storage is not None
    assert (d.storage.tiers, d.storage.leaf_switches, d.storage.spine_switches) == (1, 2, 0)
    assert (d.storage.node_links, d.storage.leaf_spine_links) == (8, 0)
    assert _qty(d, "storage", "optics", "twin-port") == 2
    # OOB: 4 node BMCs + 4 DPU BMCs + 3 switch management ports = 11 ports on one 48-port SN2201.
    assert (d.oob.ports, d.oob.switches) == (11, 1)
    assert _qty(d, "oob", "cable") == 11


def test_sixteen_nodes_get_rail_leaves_with_uplinks_for_the_nodes_present() -> None:
    d = design_from_catalog(16, 8, "ib-ndr")
    c = d.compute
    # 128 ports > 64: two tiers. One leaf per rail (8), each with 16 nodes down and 16 up; spines =
    # smallest divisor of 32 (the full SU's up ports) >= 8 x 16 / 64 = 2, so 2 spines, 8 links per pair.
    assert (c.tiers, c.leaf_switches, c.spine_switches) == (2, 8, 2)
    assert (c.node_links, c.leaf_spine_links) == (128, 128)
    assert d.plane.parallel_leaf_spine == 8
    assert any("grows to a full 32-node SU" in n and "spines (4)" in n for n in d.notes)
    # Switch-side twin-port modules: 128 node links / 2 + one per end of each of 128 leaf-spine cables.
    assert _qty(d, "compute", "optics", "twin-port") == 64 + 128
    assert _qty(d, "compute", "cable", "fibre") == 256
    assert d.storage is not None and (d.storage.tiers, d.storage.leaf_switches) == (1, 2)
    # OOB: 16 x 2 BMCs + 10 compute + 2 storage switches = 44 ports, one SN2201.
    assert (d.oob.ports, d.oob.switches) == (44, 1)


def test_below_one_su_the_oversubscription_is_kept_on_the_trimmed_leaves() -> None:
    # 3:1 leaf = 48 down, 16 up; 16 nodes populate 16 down ports -> ceil(16 x 16 / 48) = 6 up, on
    # ceil(8 x 6 / 64) = 1 spine (1 divides 16, so the SU grows without recabling).
    plane = size_plane(16, 8, 64, oversubscription=3.0)
    assert (plane.leaf.up, plane.spines, plane.leaf_spine_links) == (6, 1, 48)
    assert 16 / plane.leaf.up <= 3.0


def test_uplinks_round_up_so_every_leaf_reaches_every_spine_equally() -> None:
    # 12 nodes: 12 uplinks per leaf, spines = smallest divisor of 32 >= 96/64 = 2; 12 is a multiple.
    # 31 nodes (H100 RA SU + UFM): 31 uplinks need 4 spines (divisor of 32 >= 3.9) -> round to 32.
    assert (size_plane(12, 8, 64).leaf.up, size_plane(12, 8, 64).spines) == (12, 2)
    assert (size_plane(31, 8, 64).leaf.up, size_plane(31, 8, 64).spines) == (32, 4)
    for nodes in range(9, 32):
        plane = size_plane(nodes, 8, 64)
        assert plane.leaf.up % plane.spines == 0 and 32 % plane.spines == 0
        assert plane.leaf.up >= nodes  # non-blocking at 1:1
        assert plane.leaves * plane.parallel_leaf_spine <= 64  # spine ports suffice


def test_one_and_a_half_su_trims_only_the_last_units_uplinks() -> None:
    d = design_from_catalog(48, 8, "ib-ndr")
    c = d.compute
    # 2 SUs of 8 rail leaves (RA: leaves for the full SU). SU 1: 32 uplinks per leaf; SU 2 holds 16
    # nodes -> 16 uplinks. Spines = smallest divisor of 32 >= (8 x 32 + 8 x 16) / 64 = 6 -> 8, and
    # 16 is a multiple of 8: 4 links per full leaf-spine pair, 2 per last-SU pair.
    assert (c.tiers, c.sus, c.leaf_switches, c.spine_switches) == (2, 2, 16, 8)
    assert (c.node_links, c.leaf_spine_links) == (384, 384)
    assert (d.plane.leaf.up, d.plane.last_su_up) == (32, 16)
    assert any("16 unused" in n and "16 uplinks (not 32)" in n for n in d.notes)
    # Switch-side twin-port modules: 384 node links / 2 + one per end of each of 384 leaf-spine cables.
    assert _qty(d, "compute", "optics", "twin-port") == 192 + 384
    # Storage: 96 ports, 48 per SN5600 (radix 128 at 200G): one tier, two switches.
    assert d.storage is not None and (d.storage.tiers, d.storage.leaf_switches) == (1, 2)
    # OOB: 48 x 2 BMCs + 24 compute + 2 storage switches = 122 ports -> 3 SN2201.
    assert (d.oob.ports, d.oob.switches) == (122, 3)


def test_whole_su_ra_rows_keep_full_uplinks_on_every_leaf() -> None:
    # H100 RA 2 SU: 63 DGX + UFM; the last SU's 31 nodes need 31 uplinks -> rounded to 32 by 8 spines.
    plane = size_plane(63, 8, 64)
    assert (plane.last_su_up, plane.leaf_spine_links, plane.spines) == (32, 512, 8)


def test_whole_units_keeps_the_superpod_rule_for_small_counts() -> None:
    with pytest.raises(Infeasible, match="not a multiple"):
        design_from_catalog(4, 8, "ib-ndr", whole_units=True)
    whole = design_from_catalog(32, 8, "ib-ndr", whole_units=True)
    assert (whole.compute.leaf_switches, whole.compute.spine_switches, whole.compute.leaf_spine_links) == (
        8,
        4,
        256,
    )


def test_explicit_tiers_override_the_single_switch_choice() -> None:
    two = size_plane(4, 8, 64, tiers=2)
    assert (two.tiers, two.leaves, two.leaf.up, two.spines) == (2, 8, 4, 1)
    with pytest.raises(Infeasible, match="do not fit") as err:
        size_plane(16, 8, 64, tiers=1)
    assert err.value.nearest == "tiers 2, or at most 8 nodes"


@pytest.mark.parametrize("policy", ["dmodk", "ecmp", "adaptive"])
def test_a_single_switch_topology_routes_every_flow_through_its_one_leaf(policy: str) -> None:
    topo = build_fat_tree(4, 8, 64, NDR_BPS)
    assert (topo.size.tiers, topo.n_switches, topo.n_links) == (1, 1, 64)  # 32 cables, 2 directions
    src = np.arange(32)
    dst = (src + 8) % 32  # every rail of node n to the same rail of node n+1
    r = route(topo, src, dst, policy, qps=2)
    dense = r.matrix.toarray()
    for i, (a, b) in enumerate(zip(src[r.flow], dst[r.flow], strict=True)):
        used = np.flatnonzero(dense[i])
        assert set(used) == {a, topo.n_endpoints + b}  # host up, then host down: a leaf-only path
        assert topo.link_dst[a] == topo.link_src[topo.n_endpoints + b]  # both ends meet at the switch
    assert np.all(topo.hops(src, dst) == 2)


def test_a_sub_su_topology_matches_its_design_and_routes_valid_paths() -> None:
    d = design_from_catalog(16, 8, "ib-ndr")
    topo = build_fat_tree(16, 8, 64, NDR_BPS)
    assert topo.size == d.plane
    ls_cables = (topo.link_tier == 1).sum() // 2
    assert ls_cables == d.compute.leaf_spine_links == 128
    src = np.arange(128)
    dst = (src + 9) % 128  # rail r -> rail r+1 of the next node: crosses a spine
    r = route(topo, src, dst, "dmodk")
    dense = r.matrix.toarray()
    for i in range(src.size):
        hops = np.flatnonzero(dense[i])
        # Walk the path: it must be a chain from src's endpoint to dst's endpoint.
        at, seen = int(src[i]), 0
        by_src = {int(topo.link_src[h]): int(topo.link_dst[h]) for h in hops}
        while at in by_src:
            at, seen = by_src[at], seen + 1
        assert at == dst[i] and seen == len(hops) == 4


def test_a_single_switch_layout_has_no_spine_row() -> None:
    boxes, edges = plane_layout(size_plane(4, 8, 64), 4)
    assert {b.row for b in boxes} == {0, 1}
    assert [e.links for e in edges] == [32]


def _walk(topo: object, hops: np.ndarray, start: int) -> tuple[int, int]:
    """Follow a single path's links from ``start``; return where it ends and how many links it used."""
    by_src = {int(topo.link_src[h]): int(topo.link_dst[h]) for h in hops}  # type: ignore[attr-defined]
    at, seen = start, 0
    while at in by_src:
        at, seen = by_src[at], seen + 1
    return at, seen


@pytest.mark.parametrize("policy", ["dmodk", "ecmp"])
def test_one_and_a_half_su_topology_routes_between_full_and_partial_leaves(policy: str) -> None:
    d = design_from_catalog(48, 8, "ib-ndr")
    topo = build_fat_tree(48, 8, 64, NDR_BPS)
    assert topo.size == d.plane
    assert (topo.link_tier == 1).sum() // 2 == d.compute.leaf_spine_links == 384
    src = np.arange(384)
    dst = (src + 8 * 40 + 1) % 384  # node n rail r -> node n+40 rail r+1: crosses SUs and rails
    r = route(topo, src, dst, policy)
    dense = r.matrix.toarray()
    spines_used = set()
    for i in range(src.size):
        hops = np.flatnonzero(dense[i])
        end, seen = _walk(topo, hops, int(src[i]))
        assert end == dst[i] and seen == len(hops) == 4
        spines_used |= {int(topo.link_dst[h]) for h in hops if topo.link_tier[h] == 1}
    assert len(spines_used) >= 8  # all 8 spines (plus leaves on the way down) carry traffic


def test_adaptive_routing_spreads_evenly_over_a_partial_leafs_uplinks() -> None:
    topo = build_fat_tree(48, 8, 64, NDR_BPS)
    up, off = topo.leaf_up_ports()
    ep = topo.endpoint_of([40, 0], [0, 0])  # node 40 sits in SU 2 (16 uplinks), node 0 in SU 1
    r = route(topo, ep[:1], ep[1:], "adaptive")
    row = r.matrix.toarray()[0]
    ls0 = topo.block_offsets()[0]
    leaf = int(topo.ep_leaf[ep[0]])
    ups = row[ls0 + off[leaf] : ls0 + off[leaf] + up[leaf]]
    assert up[leaf] == 16 and np.allclose(ups, 1 / 16)  # every used uplink carries 1/16
    assert row[topo.link_tier == 1].sum() == pytest.approx(2.0)  # 1 up + 1 down in total


def test_a_failed_uplink_on_a_partial_leaf_is_routed_around() -> None:
    topo = build_fat_tree(48, 8, 64, NDR_BPS)
    up, off = topo.leaf_up_ports()
    a, b = topo.endpoint_of([40, 0], [0, 0])
    ls0 = topo.block_offsets()[0]
    leaf = int(topo.ep_leaf[a])
    first = route(topo, [a], [b], "dmodk").matrix.toarray()[0]
    used_up = int(np.flatnonzero(first[ls0 + off[leaf] : ls0 + off[leaf] + up[leaf]])[0])
    broken = topo.with_failed_links(topo.cable_of(ls0 + off[leaf] + used_up))
    again = route(broken, [a], [b], "dmodk").matrix.toarray()[0]
    assert np.all(broken.link_ok[np.flatnonzero(again)])
    assert _walk(broken, np.flatnonzero(again), int(a)) == (int(b), 4)


def test_partial_last_units_keep_the_divisibility_rule_and_the_spine_port_budget() -> None:
    for nodes in range(33, 257):
        plane = size_plane(nodes, 8, 64)
        full = plane.leaves - plane.leaves_per_su
        assert plane.leaf.up % plane.spines == 0 and plane.last_su_up % plane.spines == 0
        assert plane.last_su_up >= nodes - (plane.sus - 1) * 32  # non-blocking for the nodes present
        ports = (full * plane.leaf.up + plane.leaves_per_su * plane.last_su_up) // plane.spines
        assert ports <= 64  # every spine port count fits the radix
