"""Each algorithm's cost against hand-derived numbers (NCCL constants, nccl-cost-model.md B.2-B.3)."""

from __future__ import annotations

import math

import pytest

from fabrictwin.collectives import collnet, context_for, estimate, hierarchical, nvls, pat, ring, tree
from fabrictwin.collectives.base import net_node_Bps, nvlink_bus_Bps, ring_bus_Bps, tree_node_load


def test_ring_ll_latency_on_one_node_is_base_plus_14_nvlink_hops():
    ctx = context_for("dgx-h100", "ib-ndr", nodes=1)
    # base 6.6 + 2(n-1) = 14 steps x NVLink LL 0.6 us = 15.0 us
    assert ring.latency_us(ctx, "all_reduce", "ll") == pytest.approx(6.6 + 14 * 0.6)


def test_ring_simple_latency_across_nodes_uses_network_hops_and_the_plateau_factor():
    ctx = context_for("dgx-h100", "ib-ndr", nodes=4)
    # n = 32: 62 steps, 6 inter-node (14 us) and 56 intra at max(3.4, 3 x 1.0) = 3.4; x 1.4
    expected = (8.4 + 56 * 3.4 + 6 * 14.0) * 1.4
    assert ring.latency_us(ctx, "all_reduce", "simple") == pytest.approx(expected)


def test_tree_ll_latency_at_32_nodes_matches_the_measured_63_us_of_nccl_652():
    ctx = context_for("dgx-a100", "ib-hdr", nodes=32, nics_per_node=4)
    # 6.8 + 2 x (7 x 0.6 + log2(32) x 5.0) = 65.2 us vs 63 us measured (reference A-206)
    assert tree.latency_us(ctx, "ll") == pytest.approx(65.2)
    assert abs(65.2 / 63.0 - 1) < 0.05


def test_the_ring_bus_bandwidth_is_the_smaller_of_nvlink_and_the_node_nics():
    one = context_for("dgx-h100", "ib-ndr", nodes=1)
    assert ring_bus_Bps(one) == pytest.approx(450e9 * 0.812)
    many = context_for("dgx-h100", "ib-ndr", nodes=8)
    assert ring_bus_Bps(many) == pytest.approx(min(450e9 * 0.812 * 8 / 7, net_node_Bps(many)))
    # 8 x 400 Gb/s x 0.9937 headers x 0.966 NCCL datapath = 384 GB/s
    assert net_node_Bps(many) == pytest.approx(8 * 50e9 * 0.9937 * 0.966, rel=1e-3)


def test_double_binary_tree_load_is_one_buffer_on_two_nodes_and_two_beyond():
    assert tree_node_load(2) == 1.0
    assert [tree_node_load(n) for n in (4, 5, 16, 17, 512)] == [2.0] * 5


def test_nvls_moves_one_plus_one_over_g_of_the_buffer_per_gpu():
    ctx = context_for("dgx-h200", "ib-ndr", nodes=1)
    alg = nvls.intra_algbw_Bps(ctx, "all_reduce")
    assert alg == pytest.approx(450e9 * 0.812 * 0.85 / (1 + 1 / 8))
    assert nvls.cost(ctx, "all_reduce", "ll") is None  # Simple only
    a100 = context_for("dgx-a100", "ib-hdr", nodes=1)
    assert not nvls.available(a100)  # no NVLink SHARP before Hopper


def test_sharp_doubles_the_network_bound_algorithm_bandwidth_of_a_ring():
    ctx = context_for("dgx-h100", "ib-ndr", nodes=16, ranks_per_node=1, sharp=True)
    ring_alg = ring.cost(ctx, "all_reduce", "simple")
    sharp = collnet.cost(ctx, "all_reduce", "simple")
    assert ring_alg is not None and sharp is not None
    # ring moves 2(n-1)/n of the buffer through the NIC, SHARP one buffer (x 0.85 on Hopper)
    assert sharp.algbw_Bps / ring_alg.algbw_Bps == pytest.approx(2 * 15 / 16 * 0.85)


def test_sharp_splits_buffers_larger_than_one_streaming_aggregation_tree_message():
    assert collnet.operations(collnet.SAT_MAX_BYTES) == 1
    assert collnet.operations(4 * 2**30) == 5
    ctx = context_for("dgx-h100", "ib-ndr", nodes=16, sharp=True)
    small = estimate(ctx, "all_reduce", 2**30, algorithm="sharp").time_s[0]
    c = collnet.cost(ctx, "all_reduce", "simple")
    assert c is not None
    assert small == pytest.approx(2 * c.latency_s + 2**30 / c.algbw_Bps)


def test_hierarchical_all_reduce_adds_its_phases_and_is_slower_than_the_pipelined_ring():
    ctx = context_for("dgx-h100", "ib-ndr", nodes=8)
    h = hierarchical.cost(ctx, "all_reduce", "simple")
    r = ring.cost(ctx, "all_reduce", "simple")
    assert h is not None and r is not None
    spb = 2 * 7 / 8 / nvlink_bus_Bps(ctx) + 2 * 7 / 8 / 8 / (net_node_Bps(ctx) / 8)
    assert 1 / h.algbw_Bps == pytest.approx(spb)
    assert h.algbw_Bps < r.algbw_Bps


def test_halving_doubling_latency_grows_with_log_p_not_p():
    ctx = context_for("dgx-h100", "ib-ndr", nodes=64, ranks_per_node=1)
    hd = estimate(ctx, "all_reduce", 8, algorithm="halving_doubling", protocol="simple").time_s[0]
    rg = estimate(ctx, "all_reduce", 8, algorithm="ring", protocol="simple").time_s[0]
    # 2 x log2(64) = 12 network hops of 14 us (Tree row, 1 GPU per node) vs 126 ring steps
    assert hd == pytest.approx(12 * 14.0e-6, rel=1e-3)
    assert rg > 5 * hd


def test_pat_runs_only_with_one_gpu_per_node():
    packed = context_for("dgx-h100", "ib-ndr", nodes=8)
    spread = context_for("dgx-h100", "ib-ndr", nodes=8, ranks_per_node=1)
    assert pat.cost(packed, "all_gather", "simple") is None
    c = pat.cost(spread, "all_gather", "simple")
    assert c is not None
    assert c.latency_s == pytest.approx((8.0 + math.log2(8) * 14.0 / 3.5 + 2.8 * 8) * 1e-6)


def test_all_to_all_is_bounded_by_the_nics_share_of_remote_bytes():
    ctx = context_for("dgx-h100", "ib-ndr", nodes=4)
    est = estimate(ctx, "all_to_all", 2**34)
    per_rank = net_node_Bps(ctx) / 8
    assert est.algbw_Bps[0] == pytest.approx(per_rank / (3 / 4), rel=0.01)


def test_tcp_sockets_are_slower_and_pay_kernel_latency():
    ib = context_for("dgx-h100", "ib-ndr", nodes=4)
    tcp = context_for("dgx-h100", "ib-ndr", nodes=4, transport="tcp")
    big_ib, big_tcp = (estimate(c, "all_reduce", 2**30).busbw_Bps[0] for c in (ib, tcp))
    assert big_tcp == pytest.approx(8 * 5.25e9, rel=0.01)  # 8 NICs x one socket stream each
    assert big_ib > 5 * big_tcp
    assert estimate(tcp, "all_reduce", 8).time_s[0] > estimate(ib, "all_reduce", 8).time_s[0]


def test_host_staging_without_gpudirect_caps_each_nic_at_the_gpu_pcie_rate():
    pcie = context_for("pcie-8gpu", "ib-ndr", nodes=4, gpudirect=False)
    gdr = context_for("pcie-8gpu", "ib-ndr", nodes=4)
    assert net_node_Bps(pcie) <= net_node_Bps(gdr)


def test_packet_loss_costs_roce_go_back_n_but_not_infiniband_link_retransmission():
    sizes = 2**30
    ib = estimate(context_for("dgx-h100", "ib-ndr", nodes=4, loss_rate=1e-3), "all_reduce", sizes).time_s[0]
    ib0 = estimate(context_for("dgx-h100", "ib-ndr", nodes=4), "all_reduce", sizes).time_s[0]
    roce = context_for("dgx-h100", "roce-400g", nodes=4, loss_rate=1e-3)
    roce0 = context_for("dgx-h100", "roce-400g", nodes=4)
    assert ib == ib0
    slow = estimate(roce, "all_reduce", sizes).time_s[0] / estimate(roce0, "all_reduce", sizes).time_s[0]
    # W = 47.4 GB/s x 3.6 us / 4096 B = 41.6 packets: (1 - 1e-3) / (1 + 40.6e-3) = 0.96 goodput
    assert 1.02 < slow < 1.06
