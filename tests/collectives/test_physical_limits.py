"""Predictions never move more bytes through a link than its line rate allows.

nccl-tests' bus bandwidth may exceed a line rate only where the accounting, not the link,
changes: NVLS and SHARP reduce in the switch (one buffer each way instead of 2(n-1)/n), and a
2-node double binary tree sends one buffer per node instead of 2(n-1)/n (nccl-tests#196).
"""

from __future__ import annotations

import itertools

import pytest

from fabrictwin.collectives import OPS, context_for, estimate
from fabrictwin.collectives.base import tree_node_load

BIG = 2.0**34
CASES = list(
    itertools.product(
        ["dgx-a100", "dgx-h100", "dgx-h200", "dgx-b200"],
        ["ib-hdr", "ib-ndr", "roce-400g", "tcp-100g"],
        [1, 2, 3, 16],
        [None, 1],
    )
)


def _line(ctx):
    return ctx.system.intra_node_Bps, ctx.nics_per_node * ctx.fabric.link_bps / 8.0


@pytest.mark.parametrize(("system", "fabric", "nodes", "ppn"), CASES)
def test_link_loads_stay_under_line_rates_for_every_op_and_chosen_algorithm(system, fabric, nodes, ppn):
    ctx = context_for(system, fabric, nodes=nodes, ranks_per_node=ppn, sharp=True)
    if ctx.ranks < 2:
        return
    nvl_line, node_line = _line(ctx)
    g, n = ctx.ppn, ctx.ranks
    for op in OPS:
        est = estimate(ctx, op, BIG)
        alg, bus, algo = est.algbw_Bps[0], est.busbw_Bps[0], est.algorithm[0]
        if algo in ("nvls", "nvls_tree"):
            assert alg * (1 + 1 / g) <= nvl_line * 1.0001
            assert algo == "nvls" or alg * tree_node_load(ctx.nodes) <= node_line
            continue
        if algo == "collnet":
            assert alg <= node_line
            continue
        if algo == "tree":
            assert alg * tree_node_load(ctx.nodes) <= node_line
            assert alg * 2 * (g - 1) / g <= nvl_line
            continue
        if nodes == 1:
            assert bus <= nvl_line, (op, algo)
        else:
            net_bytes = bus if op != "all_to_all" else alg * (ctx.nodes - 1) / ctx.nodes * g
            assert net_bytes <= node_line * (g / ctx.ppn), (op, algo)
            if g > 1 and op != "all_to_all":
                assert bus * (g - 1) / g <= nvl_line, (op, algo)
        assert n >= 2


def test_nvls_bus_bandwidth_exceeds_the_nvlink_rate_by_accounting_only():
    ctx = context_for("dgx-h200", "ib-ndr", nodes=1)
    est = estimate(ctx, "all_reduce", 8 * 2**30)
    assert est.algorithm[0] == "nvls"
    assert est.busbw_Bps[0] > ctx.system.intra_node_Bps  # 482 GB/s "busbw" on 450 GB/s links
    assert est.algbw_Bps[0] * (1 + 1 / 8) < ctx.system.intra_node_Bps


def test_sharp_and_two_node_trees_exceed_the_nic_rate_in_bus_bandwidth_only():
    sharp = context_for("dgx-h100", "ib-ndr", nodes=16, ranks_per_node=1, sharp=True)
    est = estimate(sharp, "all_reduce", 2**30, algorithm="sharp")
    assert est.busbw_Bps[0] > 50e9 > est.algbw_Bps[0]
    two = context_for("dgx-h100", "ib-ndr", nodes=2, ranks_per_node=1)
    tree = estimate(two, "all_reduce", 2**33, algorithm="tree")
    assert tree.busbw_Bps[0] <= 50e9 * 2 * 1 / 2  # 2 ranks: bus factor 1, one buffer per NIC
