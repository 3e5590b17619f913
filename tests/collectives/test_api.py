"""The public API the training twin calls: contexts, estimates, selection, errors."""

from __future__ import annotations

import numpy as np
import pytest

import fabrictwin.collectives as coll
from fabrictwin.collectives import CommContext, context_for, estimate, estimate_time, host_cores
from fabrictwin.errors import Infeasible, NotFound, SpecError


def test_the_public_names_are_pinned():
    assert sorted(coll.__all__) == sorted(
        [
            "ALGORITHMS", "AUTO_ALGORITHMS", "OPS", "PROTOCOLS", "CollectiveEstimate", "CommContext",
            "Fidelity", "Op", "context_for", "estimate", "estimate_time", "host_cores",
        ]
    )  # fmt: skip


def test_context_for_resolves_catalog_ids_and_defaults_to_a_packed_layout():
    ctx = context_for("dgx-h100", "ib-ndr", nodes=32)
    assert isinstance(ctx, CommContext)
    assert (ctx.ranks, ctx.ppn, ctx.nics_per_rank) == (256, 8, 1.0)
    assert ctx.arch == "hopper" and ctx.routing_policy == "adaptive" and not ctx.sharp
    spread = context_for("dgx-h100", "ib-ndr", nodes=32, ranks_per_node=1)
    assert spread.ranks == 32
    assert context_for("dgx-h100", "roce-400g", nodes=2).routing_policy == "ecmp"


def test_bad_layouts_and_unknown_ids_are_reported():
    with pytest.raises(SpecError, match="ranks_per_node"):
        context_for("dgx-h100", "ib-ndr", nodes=2, ranks_per_node=9)
    with pytest.raises(NotFound):
        context_for("dgx-h1000", "ib-ndr", nodes=2)


def test_estimates_are_vectorised_over_sizes_and_consistent():
    ctx = context_for("dgx-h100", "ib-ndr", nodes=4)
    sizes = np.logspace(3, 33, 31, base=2.0)
    est = estimate(ctx, "all_reduce", sizes)
    assert est.time_s.shape == sizes.shape and len(est.algorithm) == sizes.size
    assert np.all(np.diff(est.time_s) > 0)  # more bytes never take less time
    assert est.algbw_Bps == pytest.approx(sizes / est.time_s)
    assert est.busbw_Bps == pytest.approx(est.algbw_Bps * 2 * 31 / 32)
    assert estimate_time(ctx, "all_reduce", 2**20) == pytest.approx(
        estimate(ctx, "all_reduce", 2**20).time_s[0]
    )


def test_selection_follows_nccl_small_messages_low_latency_large_messages_bandwidth():
    one_node = context_for("dgx-h200", "ib-ndr", nodes=1)
    est = estimate(one_node, "all_reduce", [32 * 2**10, 8 * 2**30])
    # stas00's TUNING log on 8 x H200 (reference A-104..A-123): Ring/LL small, NVLS/Simple large
    assert (est.algorithm[0], est.protocol[0]) == ("ring", "ll")
    assert (est.algorithm[1], est.protocol[1]) == ("nvls", "simple")
    a100 = context_for("dgx-a100", "ib-hdr", nodes=32, nics_per_node=4)
    small = estimate(a100, "all_reduce", 8)
    assert (small.algorithm[0], small.protocol[0]) == ("tree", "ll")  # nccl#652 regime


def test_forced_algorithms_that_cannot_run_raise_infeasible_with_the_reason():
    roce = context_for("dgx-h100", "roce-400g", nodes=4, sharp=True)
    with pytest.raises(Infeasible, match="InfiniBand"):
        estimate(roce, "all_reduce", 2**20, algorithm="sharp")
    a100 = context_for("dgx-a100", "ib-hdr", nodes=1)
    with pytest.raises(Infeasible, match="no enabled algorithm"):
        estimate(a100, "all_reduce", 2**20, algorithm="nvls")
    with pytest.raises(SpecError, match="unknown algorithm"):
        estimate(a100, "all_reduce", 2**20, algorithm="bogus")
    with pytest.raises(SpecError, match="unknown op"):
        estimate(a100, "allreduce", 2**20)  # type: ignore[arg-type]
    with pytest.raises(SpecError, match="fidelity"):
        estimate(a100, "all_reduce", 2**20, fidelity="packet")  # type: ignore[arg-type]
    with pytest.raises(SpecError, match=">= 0"):
        estimate(a100, "all_reduce", -1)


def test_every_op_has_an_estimate_on_a_multi_node_cluster():
    ctx = context_for("dgx-h100", "ib-ndr", nodes=8)
    for op in coll.OPS:
        est = estimate(ctx, op, [8, 2**20, 2**30])
        assert np.all(est.time_s > 0), op


def test_host_cores_charge_tcp_per_byte_and_rdma_per_rank():
    tcp = context_for("dgx-h100", "tcp-100g", nodes=2)
    ib = context_for("dgx-h100", "ib-ndr", nodes=2)
    assert host_cores(ib, 100e9, 3e9) == pytest.approx(8.0)
    assert host_cores(tcp, 10e9, 3e9) == pytest.approx(10e9 * (3e9 / 5.25e9) / 3e9)
