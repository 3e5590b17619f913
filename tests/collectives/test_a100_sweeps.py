"""Single-node A100 ring against six more published nccl-tests sweeps (calibration/).

The Ampere ring profile (nccl_constants.AMPERE_NVLINK_RING_*) was fitted on these sweeps, so
this is a regression check that the constants still describe their data; the held-out check
is the Azure sweep in test_calibration.py. Host launch floors are checked on sweeps B and C,
one machine measured with one thread on 8 GPUs and with one process per GPU.
"""

from __future__ import annotations

import csv
import importlib.util
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from fabrictwin.collectives import context_for, estimate, ring
from fabrictwin.collectives.nccl_constants import (
    AMPERE_NVLINK_RING_HOP_US,
    AMPERE_NVLINK_RING_LL128_FRACTION,
    HW_LAT_US,
    LL128_BW_FRACTION,
)

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "calibration" / "nccl-a100-single-node.csv"


def _rows() -> list[dict[str, str]]:
    with DATA.open(newline="") as fh:
        return list(csv.DictReader(fh))


def _fit_script():
    spec = importlib.util.spec_from_file_location(
        "fit_ampere_ring", ROOT / "calibration" / "fit_ampere_ring.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FIT = _fit_script()
_ctx = FIT.a100_node


def _time_errors(min_bytes: float, max_bytes: float = float("inf")) -> dict[str, np.ndarray]:
    """sweep -> model time / measured time - 1 for every row in [min_bytes, max_bytes]."""
    by: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in _rows():
        if min_bytes <= float(row["msg_size_bytes"]) <= max_bytes:
            by[row["sweep"]].append(row)
    out = {}
    for name, rows in by.items():
        sizes = np.array([float(r["msg_size_bytes"]) for r in rows])
        measured = np.array([float(r["time_us"]) * 1e-6 for r in rows])
        est = estimate(_ctx(int(rows[0]["gpus_per_thread"])), "all_reduce", sizes)
        out[name] = est.time_s / measured - 1.0
    return out


def test_the_file_holds_six_sweeps_with_sources():
    rows = _rows()
    assert {r["sweep"] for r in rows} == set("ABCDEF")
    assert all(r["source"] for r in rows)


def test_fitted_profile_describes_the_sweeps_from_2_mib():
    errs = _time_errors(2 * 2**20)
    pooled = np.concatenate(list(errs.values()))
    assert np.median(np.abs(pooled)) <= 0.08
    assert all(np.median(np.abs(e)) <= 0.12 for e in errs.values()), {
        k: np.median(np.abs(e)) for k, e in errs.items()
    }
    assert np.quantile(np.abs(pooled), 0.9) <= 0.25


def test_ncc_ls_own_table_is_far_too_fast_on_these_sweeps_at_4_to_32_mib():
    """Why the profile exists: with NCCL's constants the mid sizes come out 20-50 % fast."""
    ctx = _ctx(8)
    sizes = np.array([4.0, 8.0, 16.0, 32.0]) * 2**20
    fitted = estimate(ctx, "all_reduce", sizes).time_s
    nccl_ll128 = ring.cost(ctx, "all_reduce", "ll128", nccl=True)
    nccl_simple = ring.cost(ctx, "all_reduce", "simple", nccl=True)
    assert nccl_ll128 is not None and nccl_simple is not None
    nccl = np.minimum(
        nccl_ll128.latency_s + sizes / nccl_ll128.algbw_Bps,
        nccl_simple.latency_s + sizes / nccl_simple.algbw_Bps,
    )
    assert np.all(fitted / nccl > 1.25)


def test_the_fit_script_reproduces_the_constants():
    share, hop128, hop_simple = FIT.fit(FIT.sweeps())
    assert share == pytest.approx(AMPERE_NVLINK_RING_LL128_FRACTION, rel=0.02)
    assert hop128 == pytest.approx(AMPERE_NVLINK_RING_HOP_US["ll128"], rel=0.02)
    assert hop_simple == pytest.approx(AMPERE_NVLINK_RING_HOP_US["simple"], rel=0.02)


@pytest.mark.parametrize("system", ["dgx-h100", "dgx-b200"])
def test_other_architectures_keep_ncc_ls_ring_table(system):
    ctx = context_for(system, "ib-ndr", nodes=1)
    ll128 = ring.cost(ctx, "all_reduce", "ll128")
    assert ll128 is not None
    assert ll128.latency_s == pytest.approx((14.0 + 14 * HW_LAT_US["nvlink"]["ring"]["ll128"]) * 1e-6)
    assert ring.protocol_bus_Bps(ctx, "ll128", 1.0) == pytest.approx(LL128_BW_FRACTION)


def test_multi_node_a100_rings_take_the_fitted_hop_for_their_in_server_steps():
    ctx = context_for("dgx-a100", "ib-hdr", nodes=4)
    fitted = ring.cost(ctx, "all_reduce", "simple")
    table = ring.cost(ctx, "all_reduce", "simple", nccl=True)
    assert fitted is not None and table is not None
    assert fitted.latency_s > table.latency_s and fitted.algbw_Bps == table.algbw_Bps


def test_an_nvlink_bridge_without_nvswitch_keeps_ncc_ls_table():
    """The fit is of 8 x A100 over NVSwitch; the 2 x A30 bridge server is not that."""
    ctx = context_for("a30-2gpu", "ib-hdr", nodes=1)
    assert ring.cost(ctx, "all_reduce", "simple") == ring.cost(ctx, "all_reduce", "simple", nccl=True)


def test_one_thread_on_8_gpus_sets_the_small_size_floor_and_one_process_per_gpu_does_not():
    """Sweeps B (-g 8) and C (mpirun -np 8), same machine: 8 B - 8 KiB take ~39 us vs 18-24 us."""
    small = _time_errors(0, 8192)
    assert np.all(np.abs(small["B"]) <= 0.25), small["B"]
    one = estimate(_ctx(1), "all_reduce", 8.0).time_s[0]
    eight = estimate(_ctx(8), "all_reduce", 8.0).time_s[0]
    assert eight > 2.0 * one
