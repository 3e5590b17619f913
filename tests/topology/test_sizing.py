"""Sizing reproduces every row of the NVIDIA DGX SuperPOD reference-architecture tables.

Tables: /work/shared/reference/fabric-and-network-models.md sections 1.2 (H100, RA-11333-001 Table 4),
1.3 (B200, RA-11334 "DGX SuperPOD Architecture"), 1.4 (B300 Spectrum-X and B300 Quantum-X800 XDR).
Tolerance: exact integers.
"""

from __future__ import annotations

import pytest

from fabrictwin.errors import Infeasible
from fabrictwin.topology.sizing import leaf_split, max_nodes, size_plane, smallest_divisor_at_least

# H100 (QM9700, k = 64): SU, nodes, leaves, spines, compute+UFM (node-leaf) cables, leaf-spine cables.
# One node slot is given up for 4 UFM ports, hence 31/63/95/127 nodes and +4 cables.
H100_ROWS = [(1, 31, 8, 4, 252, 256), (2, 63, 16, 8, 508, 512), (3, 95, 24, 16, 764, 768),
             (4, 127, 32, 16, 1020, 1024)]  # fmt: skip
H100_UFM_PORTS = 4

# B200 (QM9700, k = 64): SU, nodes, leaves, spines, cores, node-leaf, leaf-spine, spine-core.
B200_ROWS = [(2, 64, 16, 8, 0, 512, 512, 0), (4, 128, 32, 16, 0, 1024, 1024, 0),
             (8, 256, 64, 32, 0, 2048, 2048, 0), (16, 512, 128, 128, 64, 4096, 4096, 4096),
             (32, 1024, 256, 256, 128, 8192, 8192, 8192),
             (64, 2048, 512, 512, 256, 16384, 16384, 16384)]  # fmt: skip

# B300 Spectrum-X (SN5600 as 128 x 400GbE, two planes; a cable carries 2 x 400G): SU, nodes, leaves,
# spines, node-leaf cables, leaf-spine cables (totals over both planes).
B300_SX_ROWS = [(1, 64, 16, 8, 512, 512), (2, 128, 32, 16, 1024, 1024), (4, 256, 64, 32, 2048, 2048),
                (8, 512, 128, 64, 4096, 4096), (16, 1024, 256, 128, 8192, 8192)]  # fmt: skip

# B300 Quantum-X800 XDR (Q3400, k = 144): SU, nodes, leaves, spines, node-leaf, leaf-spine.
# The RA's "9216 GPUs" in the 18-SU row is a typo for 10,368 (its cable columns say 10,368).
B300_XDR_ROWS = [(1, 72, 8, 4, 576, 576), (2, 144, 16, 8, 1152, 1152), (4, 288, 32, 18, 2304, 2304),
                 (8, 576, 64, 36, 4608, 4608), (18, 1296, 144, 72, 10368, 10368)]  # fmt: skip


@pytest.mark.parametrize(("sus", "nodes", "leaves", "spines", "node_cables", "ls_cables"), H100_ROWS)
def test_h100_superpod_rows_are_reproduced_with_ufm_ports(
    sus: int, nodes: int, leaves: int, spines: int, node_cables: int, ls_cables: int
) -> None:
    plane = size_plane(nodes, 8, 64)
    assert (plane.sus, plane.tiers, plane.leaves, plane.spines) == (sus, 2, leaves, spines)
    assert nodes * 8 + H100_UFM_PORTS == node_cables
    assert plane.leaf_spine_links == ls_cables


@pytest.mark.parametrize(("sus", "nodes", "leaves", "spines", "cores", "nl", "ls", "sc"), B200_ROWS)
def test_b200_superpod_rows_are_reproduced(
    sus: int, nodes: int, leaves: int, spines: int, cores: int, nl: int, ls: int, sc: int
) -> None:
    plane = size_plane(nodes, 8, 64)
    assert (plane.sus, plane.leaves, plane.spines, plane.cores) == (sus, leaves, spines, cores)
    assert plane.tiers == (3 if cores else 2)
    assert (nodes * 8, plane.leaf_spine_links, plane.spine_core_links) == (nl, ls, sc)


@pytest.mark.parametrize(("sus", "nodes", "leaves", "spines", "nl", "ls"), B300_SX_ROWS)
def test_b300_spectrum_x_two_plane_rows_are_reproduced(
    sus: int, nodes: int, leaves: int, spines: int, nl: int, ls: int
) -> None:
    planes, links_per_cable = 2, 2
    plane = size_plane(nodes, 8, 128)
    assert plane.sus == sus
    assert (planes * plane.leaves, planes * plane.spines) == (leaves, spines)
    assert planes * nodes * 8 // links_per_cable == nl
    assert planes * plane.leaf_spine_links // links_per_cable == ls


@pytest.mark.parametrize(("sus", "nodes", "leaves", "spines", "nl", "ls"), B300_XDR_ROWS)
def test_b300_xdr_rows_are_reproduced(
    sus: int, nodes: int, leaves: int, spines: int, nl: int, ls: int
) -> None:
    plane = size_plane(nodes, 8, 144)
    assert (plane.sus, plane.tiers, plane.leaves, plane.spines) == (sus, 2, leaves, spines)
    assert (nodes * 8, plane.leaf_spine_links) == (nl, ls)


def test_every_leaf_has_the_same_number_of_links_to_every_spine() -> None:
    for nodes, radix in ((95, 64), (288, 144), (576, 144), (200, 64)):
        plane = size_plane(nodes, 8, radix)
        assert plane.leaf.up % plane.spines == 0
        assert plane.leaves * plane.parallel_leaf_spine <= radix  # spine down ports suffice


def test_partial_scalable_units_are_built_whole() -> None:
    assert size_plane(33, 8, 64).leaves == size_plane(64, 8, 64).leaves == 16


def test_three_tier_limit_is_k_cubed_over_four_endpoints() -> None:
    assert max_nodes(64, 2, 1) == 64 * 64 // 2
    assert max_nodes(64, 3, 1) == 64**3 // 4
    assert size_plane(65536 // 8, 8, 64).pods == 64


def test_oversubscription_moves_leaf_ports_down() -> None:
    assert leaf_split(64, 1.0) == leaf_split(64, 1)
    split = leaf_split(64, 3.0)
    assert (split.down, split.up) == (48, 16)
    plane = size_plane(96, 8, 64, oversubscription=3.0)
    assert plane.su_nodes == 48 and plane.leaves == 16 and plane.leaf_spine_links == 16 * 16


def test_smallest_divisor_rule_matches_the_ra_examples() -> None:
    assert smallest_divisor_at_least(32, 12) == 16
    assert smallest_divisor_at_least(72, 16) == 18
    assert smallest_divisor_at_least(72, 32) == 36


def test_two_tiers_too_small_for_the_nodes_names_the_nearest_choice() -> None:
    with pytest.raises(Infeasible, match="2-tier fat tree of radix 64") as err:
        size_plane(512, 8, 64, tiers=2)
    assert err.value.nearest == "tiers 3, or at most 256 nodes in 2 tiers"


def test_three_tiers_too_small_for_the_nodes_is_infeasible() -> None:
    with pytest.raises(Infeasible, match="3-tier fat tree of radix 16"):
        size_plane(200, 8, 16)


def test_a_partial_unit_is_refused_when_whole_units_are_required() -> None:
    with pytest.raises(Infeasible, match="not a multiple of the 32-node scalable unit") as err:
        size_plane(40, 8, 64, whole_units=True)
    assert err.value.nearest == "32 or 64 nodes"


def test_impossible_oversubscription_and_tiers_are_refused() -> None:
    with pytest.raises(Infeasible, match="wastes leaf ports"):
        leaf_split(64, 0.5)
    with pytest.raises(Infeasible, match="cannot split"):
        leaf_split(1, 1.0)
    with pytest.raises(Infeasible, match="4-tier"):
        size_plane(64, 8, 64, tiers=4)
    with pytest.raises(Infeasible, match="scalable unit of 40 nodes"):
        size_plane(64, 8, 64, su_nodes=40)


def test_a_smaller_scalable_unit_puts_several_rails_on_one_leaf() -> None:
    # GB200 (reference 1.5): SU = 8 NVL72 racks of 72 GPUs; a radix-64 leaf has 32 down ports, so
    # 32 // 8 = 4 rails share a leaf and one SU needs 72 / 4 = 18 leaves for its 576 GPUs.
    plane = size_plane(16, 72, 64, su_nodes=8)
    assert (plane.rails_per_leaf, plane.leaves_per_su, plane.leaves, plane.tiers) == (4, 18, 36, 2)
    assert plane.endpoint_ports == 16 * 72
    assert size_plane(64, 8, 64).rails_per_leaf == 1
