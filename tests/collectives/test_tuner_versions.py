"""NCCL's NVLS chunk schedule and the per-release tuner (collectives/nvls.py, tuner.py)."""

from __future__ import annotations

import numpy as np
import pytest

from fabrictwin.collectives import context_for, estimate
from fabrictwin.collectives.nvls import chunk_bytes, chunk_efficiency
from fabrictwin.collectives.tuner import parse_version
from fabrictwin.errors import SpecError

KiB, MiB, GiB = 1024, 2**20, 2**30
OPS_8_GPUS = 16 * 8  # nvlsChannels x one head per GPU


def test_nvls_chunk_follows_nccls_schedule_for_16_channels_and_8_heads():
    # By hand, ops = 128: 128 KiB -> 64 KiB below 64 x 128 x 128 KiB = 1 GiB; -> 32 KiB below
    # 8 x 128 x 64 KiB = 64 MiB; -> 16 KiB below 2 x 128 x 32 KiB = 8 MiB.
    sizes = np.array([1 * MiB, 8 * MiB - 1, 8 * MiB, 64 * MiB - 1, 64 * MiB, 1 * GiB - 1, 1 * GiB])
    expected = [16, 16, 32, 32, 64, 64, 128]
    assert list(chunk_bytes(sizes, OPS_8_GPUS) / KiB) == expected


def test_nvls_chunk_efficiency_is_one_at_full_chunks_and_rises_step_by_step():
    sizes = np.array([2 * MiB, 16 * MiB, 256 * MiB, 4 * GiB])
    eff = chunk_efficiency(sizes, OPS_8_GPUS)
    assert eff[-1] == pytest.approx(1.0)
    assert np.all(np.diff(eff) > 0) and eff[0] < 0.7


def test_nccl_2_18_picks_nvls_at_1_mib_on_an_h100_node_where_a_current_release_runs_ring_ll():
    new = estimate(context_for("dgx-h100", "ib-ndr", nodes=1), "all_reduce", MiB)
    old = estimate(context_for("dgx-h100", "ib-ndr", nodes=1, nccl_version="2.18.5"), "all_reduce", MiB)
    assert (new.algorithm[0], new.protocol[0]) == ("ring", "ll")
    assert old.algorithm[0] == "nvls"
    # the old tuner cannot beat the calibrated argmin; A-042 measured ~42 us, the floor 21 us
    assert old.time_s[0] > new.time_s[0]


def test_releases_from_2_21_choose_exactly_like_the_default_tuner():
    sizes = np.logspace(3, 10, 30)
    ref = estimate(context_for("dgx-h100", "ib-ndr", nodes=1), "all_reduce", sizes)
    cur = estimate(context_for("dgx-h100", "ib-ndr", nodes=1, nccl_version="2.27.7"), "all_reduce", sizes)
    assert ref.algorithm == cur.algorithm and np.array_equal(ref.time_s, cur.time_s)


def test_the_legacy_tuner_never_makes_a_collective_faster_than_the_calibrated_choice():
    sizes = np.logspace(3, 10, 40)
    for system in ("dgx-a100", "dgx-h100"):
        ref = estimate(context_for(system, "ib-ndr", nodes=2), "all_reduce", sizes)
        old = estimate(context_for(system, "ib-ndr", nodes=2, nccl_version="2.18.5"), "all_reduce", sizes)
        assert np.all(old.time_s >= ref.time_s * (1 - 1e-12))


def test_nccl_2_18_on_one_a100_node_picks_the_protocols_nccls_own_estimate_picks():
    # NCCL 2.18 tuning.cc by hand, 8 x A100, ring graph 12 channels x 20 GB/s = 240 GB/s bus,
    # 14 steps, algbw = bus x 8/14: LL 6.6 + 14 x 0.6 = 15.0 us at min(87.7, 240/4) = 60 GB/s;
    # LL128 14 + 14 x 1.9 = 40.6 us at 0.92 x 240 = 220.8; Simple 8.4 + 14 x 3.4 = 56 us at
    # 240. LL -> LL128 at ~1.15 MiB, LL128 -> Simple at ~23 MiB (collectives-calibration.md,
    # A-068..A-071: the ND A100 v4 sweep ran this choice and is 1.7x slower than both models).
    ctx = context_for("dgx-a100", "ib-hdr", nodes=1, ranks_per_node=8, nccl_version="2.18.5")
    sizes = np.array([1, 2, 4, 8, 16, 32, 64], float) * MiB
    est = estimate(ctx, "all_reduce", sizes)
    assert set(est.algorithm) == {"ring"}
    assert list(est.protocol) == ["ll"] + ["ll128"] * 4 + ["simple"] * 2


@pytest.mark.parametrize("text", ["2.18", "2.30.7-1", "2.18.5"])
def test_release_strings_parse_to_major_and_minor(text):
    assert parse_version(text) == (2, int(text.split(".")[1].split("-")[0]))


def test_a_malformed_release_is_a_spec_error():
    with pytest.raises(SpecError, match="nccl_version"):
        context_for("dgx-h100", "ib-ndr", nodes=1, nccl_version="latest")


def test_tree_correction_reads_nccls_table_at_log2_of_size_over_64():
    from fabrictwin.collectives.tree import correction

    # index log2(1 MiB / 64) = 14 -> LL128 0.6, Simple 0.5, LL 0.5; index 6 (4 KiB) -> 0.8 / 0.9 / 0.7
    sizes = np.array([MiB, 4 * KiB, 512 * MiB])
    assert list(correction(sizes, "ll128")) == [0.6, 0.8, 1.0]
    assert list(correction(sizes, "simple")) == [0.5, 0.9, 1.0]
    assert list(correction(sizes, "ll")) == [0.5, 0.7, 1.0]


def test_a_forced_tree_at_1_mib_moves_data_at_the_corrected_rate():
    ctx = context_for("dgx-h100", "ib-ndr", nodes=16)
    big, mid = 1 * GiB, 1 * MiB
    est = estimate(ctx, "all_reduce", [mid, big], algorithm="tree", protocol="simple")
    lat = estimate(ctx, "all_reduce", [0.0], algorithm="tree", protocol="simple").time_s[0]
    rate_big = big / (est.time_s[1] - lat)
    rate_mid = mid / (est.time_s[0] - lat)
    assert rate_mid / rate_big == pytest.approx(0.5, rel=1e-6)  # Simple row, index 14
