"""The built topology: array shapes agree with the sizing, numbering, latency, immutability."""

from __future__ import annotations

import numpy as np
import pytest

from fabrictwin.errors import NotFound
from fabrictwin.topology.build import PROPAGATION_S_PER_M, build_fat_tree
from fabrictwin.topology.sizing import size_plane


@pytest.mark.parametrize(
    ("nodes", "rails", "radix", "tiers"), [(64, 8, 64, 2), (512, 8, 64, 3), (72, 8, 144, 2)]
)
def test_link_and_switch_counts_match_the_closed_form_sizing(
    nodes: int, rails: int, radix: int, tiers: int
) -> None:
    topo = build_fat_tree(nodes, rails, radix, 400e9)
    size = size_plane(nodes, rails, radix)
    assert size.tiers == tiers
    assert topo.n_switches == size.leaves + size.spines + size.cores
    per_tier = np.bincount(topo.link_tier, minlength=3) // 2  # two directed links per cable
    assert per_tier.tolist() == [nodes * rails, size.leaf_spine_links, size.spine_core_links]
    assert np.bincount(topo.sw_tier, minlength=4)[1:].tolist() == [size.leaves, size.spines, size.cores]


def test_every_switch_uses_at_most_its_radix_and_leaves_use_exactly_their_uplinks() -> None:
    topo = build_fat_tree(512, 8, 64, 400e9)
    deg = np.bincount(topo.link_src, minlength=topo.n_endpoints + topo.n_switches)[topo.n_endpoints :]
    assert deg.max() <= 64
    leaves = topo.sw_tier == 1
    up = np.bincount(topo.link_src[topo.link_tier == 1], minlength=topo.n_endpoints + topo.n_switches)
    assert (up[topo.n_endpoints :][leaves] == 32).all()


def test_multi_plane_endpoints_are_numbered_plane_major_and_planes_do_not_touch() -> None:
    topo = build_fat_tree(32, 8, 64, 400e9, planes=2)
    assert topo.n_endpoints == 2 * 32 * 8
    ep = topo.endpoint_of(3, 5, plane=1)
    assert (topo.ep_node[ep], topo.ep_rail[ep], topo.ep_plane[ep]) == (3, 5, 1)
    plane_of_vertex = np.concatenate([topo.ep_plane, topo.sw_plane])
    assert (plane_of_vertex[topo.link_src] == plane_of_vertex[topo.link_dst]).all()
    with pytest.raises(NotFound, match="plane out of range"):
        topo.endpoint_of(0, 0, plane=2)
    with pytest.raises(NotFound, match="rail out of range"):
        topo.endpoint_of(0, 8)


def test_without_rail_optimization_a_nodes_ports_share_a_leaf() -> None:
    topo = build_fat_tree(16, 4, 16, 400e9, rail_optimized=False)
    ep = topo.endpoint_of(np.zeros(4, int), np.arange(4))
    assert len(set(topo.ep_leaf[ep].tolist())) == 1
    rail = build_fat_tree(16, 4, 16, 400e9)
    assert len(set(rail.ep_leaf[rail.endpoint_of(np.zeros(4, int), np.arange(4))].tolist())) == 4


def test_capacity_and_latency_come_from_the_link_rate_cable_length_and_switch() -> None:
    topo = build_fat_tree(8, 2, 8, 800e9, switch_latency_s=200e-9, cable_m=(3.0, 30.0, 300.0))
    np.testing.assert_allclose(topo.capacity_Bps, 100e9)
    host_up = topo.latency_s[0]
    host_down = topo.latency_s[topo.n_endpoints]
    assert host_up == pytest.approx(3.0 * PROPAGATION_S_PER_M + 200e-9)  # ends in a leaf
    assert host_down == pytest.approx(3.0 * PROPAGATION_S_PER_M)  # ends in a NIC


def test_the_topology_is_immutable_and_variants_are_copies() -> None:
    topo = build_fat_tree(8, 2, 8, 400e9)
    with pytest.raises(ValueError, match="read-only"):
        topo.capacity_Bps[0] = 1.0
    failed = topo.with_failed_links([1, 2])
    assert not failed.link_ok[1] and topo.link_ok[1]
    assert failed.capacity_Bps[2] == 0.0 and topo.capacity_Bps[2] > 0


def test_cable_of_pairs_the_two_directions_in_every_block() -> None:
    topo = build_fat_tree(32, 2, 8, 400e9, tiers=3)
    for link in (0, topo.n_endpoints + 3, topo.block_offsets()[0] + 5, topo.n_links - 1):
        a, b = topo.cable_of(link)
        assert link in (a, b)
        assert (topo.link_src[a], topo.link_dst[a]) == (topo.link_dst[b], topo.link_src[b])


def test_rail_groups_fill_each_leaf_with_several_rails_of_the_same_su() -> None:
    topo = build_fat_tree(16, 8, 16, 400e9, su_nodes=2)  # 8 down ports / 2 nodes -> 4 rails per leaf
    assert topo.size.rails_per_leaf == 4 and topo.size.leaves_per_su == 2
    ep = topo.endpoint_of(np.array([0, 1, 0, 2]), np.array([0, 3, 4, 0]))
    assert topo.ep_leaf[ep].tolist() == [0, 0, 1, 2]
    ports = np.bincount(topo.ep_leaf, minlength=topo.size.leaves)
    assert (ports == topo.size.leaf.down).all()
    assert len(set(topo.ep_key.tolist())) == topo.n_endpoints
