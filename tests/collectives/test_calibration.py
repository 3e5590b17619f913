"""Predictions against published nccl-tests measurements (shared/reference/nccl-calibration.csv).

Tolerances (issue 3): for messages >= 1 MiB the median absolute busbw error <= 10 % and no
point off by more than 30 %; small-message latency within 25 %. Known outliers are listed with
the reason; they must stay within OUTLIER_TOL so that a regression still fails.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np
import pytest

from fabrictwin.collectives import context_for, estimate

CSV = Path("/work/shared/reference/nccl-calibration.csv")
if not CSV.exists():  # the repository copy, when the shared folder is absent
    CSV = Path(__file__).with_name("nccl-calibration.csv")

MEDIAN_TOL = 0.10
MAX_TOL = 0.30
LATENCY_TOL = 0.25
SMALL_BYTES = 8 * 1024
"""Sizes at or below which a point measures latency (bandwidth term < 1 % of the time)."""

OUTLIERS: set[str] = set()
"""Points exempt from the 30 % rule (none since the single-node A100 ring fit; A-068..A-071
were +37..+51 % with NCCL's own Ampere constants, docs/models/collectives-calibration.md)."""

SYSTEM = {"H100": "dgx-h100", "A100": "dgx-a100", "H200": "dgx-h200", "B200": "dgx-b200"}
ASSUMED_NODES = {"A-200": 4}
"""A-200 states a multi-node DGX A100 run without the node count; 4 nodes (ring regime)."""
AZURE_GUIDE = "Azure/AI-benchmarking-guide"
"""Its script (Benchmarks/NVIDIA/NCCLBandwidth.py) runs ``all_reduce_perf -g 8``: one thread
launches on all 8 GPUs. Other rows: one GPU per thread (A-104..A-123 are below any 8-launch
floor, so they were not taken with ``-g 8``)."""


def _rows() -> list[dict[str, str]]:
    with CSV.open(newline="") as fh:
        return list(csv.DictReader(fh))


def _case(row: dict[str, str]) -> tuple[object, str, float, str] | None:
    key = next((k for k in SYSTEM if k in row["gpu"]), None)
    if key is None or row["collective"] not in ("all_reduce", "all_gather", "reduce_scatter"):
        return None
    nodes = int(row["n_nodes"]) if row["n_nodes"] else ASSUMED_NODES.get(row["id"])
    if nodes is None:
        return None
    inter = row["inter_node_fabric"]
    fabric = "roce-400g" if "RoCE" in inter else ("ib-hdr" if "HDR" in inter else "ib-ndr")
    nics = int(row["nics_per_node"]) if row["nics_per_node"].isdigit() else None
    ppn = int(row["gpus_per_node"]) if nodes == 1 else None
    version = row["nccl_version"] if re.fullmatch(r"\d+\.\d+\.\d+", row["nccl_version"]) else None
    ctx = context_for(
        SYSTEM[key],
        fabric,
        nodes=nodes,
        ranks_per_node=ppn,
        nics_per_node=nics,
        nccl_version=version,
        gpus_per_thread=8 if AZURE_GUIDE in row["source"] else 1,
    )
    proto = row["algorithm_protocol"].lower()
    forced_ring = proto == "ring" or "nvls_enable=0" in proto or "nvls off" in proto
    size = float(row["msg_size_bytes"] or 8 * 2**30)
    return ctx, row["collective"], size, "ring" if forced_ring else "auto"


def _errors() -> tuple[dict[str, float], dict[str, float]]:
    bus_err: dict[str, float] = {}
    lat_err: dict[str, float] = {}
    for row in _rows():
        case = _case(row)
        if case is None:
            continue
        ctx, op, size, algo = case
        est = estimate(ctx, op, size, algorithm=algo)  # type: ignore[arg-type]
        if row["busbw_GBps"]:
            measured = float(row["busbw_GBps"]) * 1e9
            err = est.busbw_Bps[0] / measured - 1.0
            if size >= 2**20:
                bus_err[row["id"]] = err
            elif size <= SMALL_BYTES:
                t_meas = size / (measured / (2 * (est.ranks - 1) / est.ranks))
                lat_err[row["id"]] = est.time_s[0] / t_meas - 1.0
        elif row["time_us"]:
            lat_err[row["id"]] = est.time_s[0] / (float(row["time_us"]) * 1e-6) - 1.0
    return bus_err, lat_err


@pytest.fixture(scope="module")
def errors() -> tuple[dict[str, float], dict[str, float]]:
    return _errors()


def test_the_calibration_set_is_large_enough_to_judge(errors):
    bus, lat = errors
    assert len(bus) >= 60 and len(lat) >= 8


def test_median_busbw_error_for_messages_of_1_mib_and_more_is_within_10_percent(errors):
    bus, _ = errors
    assert np.median(np.abs(list(bus.values()))) <= MEDIAN_TOL


def test_no_large_message_point_is_off_by_more_than_30_percent_except_listed_outliers(errors):
    bus, _ = errors
    bad = {k: round(v, 3) for k, v in bus.items() if abs(v) > MAX_TOL and k not in OUTLIERS}
    assert not OUTLIERS, "an exempt point needs its reason and a bound again"
    assert not bad


def test_small_message_latency_is_within_25_percent(errors):
    _, lat = errors
    bad = {k: round(v, 3) for k, v in lat.items() if abs(v) > LATENCY_TOL and k not in OUTLIERS}
    assert not bad
