"""The simple hierarchical alpha-beta collective model and the job's group layout."""

from __future__ import annotations

import pytest

from fabrictwin.errors import Infeasible
from fabrictwin.twin.comm import (
    BASE_LAT_S,
    NET_HOP_S,
    NVLINK_HOP_S,
    Fabric,
    Group,
    all_reduce_s,
    collective_s,
    job_groups,
)

F = Fabric(nvlink_Bps=400e9, node_net_Bps=400e9, gpus_per_node=8, hop_s=3e-6, sharp=False)


def test_all_reduce_across_nodes_by_hand() -> None:
    # 8 ranks per node, 16 nodes, 1 GB: intra 2*7/8*1e9/4e11 = 4.375 ms;
    # inter 2*15/16*(1e9/8)/(4e11/8) = 4.6875 ms; latency base + 14 NVLink hops + 2*4 tree hops.
    g = Group(ppn=8, nodes=16)
    expected = 4.375e-3 + 4.6875e-3 + BASE_LAT_S + 14 * NVLINK_HOP_S + 8 * 3e-6
    assert all_reduce_s(F, g, 1e9) == pytest.approx(expected)


def test_sharp_halves_the_inter_node_volume() -> None:
    g = Group(ppn=8, nodes=64)
    plain = all_reduce_s(F, g, 1e9)
    sharp = all_reduce_s(Fabric(400e9, 400e9, 8, 3e-6, True), g, 1e9)
    assert sharp < plain
    inter_plain = 2 * 63 / 64 * 1e9 / 8 / 50e9
    # same latency hops in both; SHARP adds its aggregation latency (31 us)
    assert plain - sharp == pytest.approx(inter_plain - 1e9 / 8 / 50e9 - 31e-6, rel=1e-6)


def test_reduce_scatter_moves_half_the_bytes_of_all_reduce() -> None:
    g = Group(ppn=8, nodes=16)
    ar = collective_s(F, g, "all_reduce", 1e9)
    rs = collective_s(F, g, "reduce_scatter", 1e9)
    lat = ar - (4.375e-3 + 4.6875e-3)
    assert rs == pytest.approx((ar - lat) / 2 + lat)


def test_a_single_rank_communicates_for_free() -> None:
    assert collective_s(F, Group(1, 1), "all_reduce", 1e9) == 0.0


def test_an_unknown_collective_is_refused() -> None:
    with pytest.raises(Infeasible):
        collective_s(F, Group(8, 2), "gossip", 1.0)


def test_groups_put_tensor_parallel_inside_a_server() -> None:
    g = job_groups(gpus_per_node=8, tp=8, pp=16, dp=128, ep=1)
    assert g["tp"] == Group(8, 1)
    assert g["dp"] == Group(1, 128)
    assert g["pp"] == Group(1, 16)
    assert NET_HOP_S > 0
    with pytest.raises(Infeasible):
        job_groups(gpus_per_node=8, tp=3, pp=1, dp=1, ep=1)
