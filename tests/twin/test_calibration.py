"""The compute model against MLPerf Training throughput (method in fabrictwin.twin.fit).

Time to train in MLPerf includes convergence, so throughput is compared: measured step time per
GPU = local batch / samples per second per GPU. The constants are fitted on three rows per model
family (FIT_ROWS); the other twelve rows are held out.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from fabrictwin.twin import fit
from fabrictwin.twin.calibration import CALIBRATION, FIT_ROWS

DATA = Path(__file__).parent / "data" / "mlperf-throughput-calibration.csv"
ROWS = list(csv.DictReader(DATA.open(encoding="utf-8")))
FITTED = {name for names in FIT_ROWS.values() for name in names}
# Mean absolute error of the step time the issue asks for.
MAE_TOLERANCE = 0.10
# No single held-out row may be further off than this (the A30 BERT row is the known outlier).
ROW_TOLERANCE = 0.35


def _rows(held_out: bool) -> list[dict[str, str]]:
    return [r for r in ROWS if (r["system"] not in FITTED) == held_out]


def test_the_held_out_rows_are_predicted_within_ten_percent_mean_absolute_error() -> None:
    errors = fit.relative_errors(_rows(held_out=True))
    assert len(errors) == 12
    assert float(np.mean(np.abs(list(errors.values())))) <= MAE_TOLERANCE
    assert max(abs(e) for e in errors.values()) <= ROW_TOLERANCE


def test_all_rows_together_stay_within_ten_percent() -> None:
    errors = fit.relative_errors(ROWS)
    assert float(np.mean(np.abs(list(errors.values())))) <= MAE_TOLERANCE


def test_the_a30_resnet_row_held_out_from_the_fit_is_within_five_percent() -> None:
    # A different GPU (165 TFLOP/s, 933 GB/s) than both fit GPUs: a test of the roofline's two terms.
    row = next(r for r in ROWS if r["system"] == "2xa30_ngc22.04_mxnet")
    assert abs(fit.relative_errors([row])[f"{row['system']}/resnet"]) <= 0.05


@pytest.mark.parametrize(("family", "bench"), [("cnn", "resnet"), ("encoder", "bert")])
def test_the_stored_constants_are_the_fit_of_the_named_rows(family: str, bench: str) -> None:
    rows = [r for r in ROWS if r["system"] in FIT_ROWS[family] and r["benchmark"] == bench]
    got = fit.fit_family(rows)
    stored = CALIBRATION[family]
    assert got.tensor_efficiency == pytest.approx(stored.tensor_efficiency, rel=0.02)
    assert got.step_overhead_s == pytest.approx(stored.step_overhead_s, rel=0.02)
    assert got.mem_bytes_per_sample == pytest.approx(stored.mem_bytes_per_sample, rel=0.02, abs=1e6)


def test_time_to_train_of_the_mlperf_rows_from_their_samples_to_train_within_ten_percent() -> None:
    # training-calibration.csv gives MLPerf time to train (olympic mean of runs). Convergence is
    # taken from the result itself: steps = median samples to converge / global batch (throughput
    # CSV, same system directory); predicted time = steps x modelled step (BERT with its eval share).
    # Rows without a throughput row (CoreWeave C-M292/293: no logs in the mirror) are skipped.
    by_system = {r["system"]: r for r in ROWS}
    data = Path(__file__).parent / "data" / "training-calibration.csv"
    errors = []
    for rec in csv.DictReader(data.open(encoding="utf-8")):
        match = [s for s in by_system if rec["id"].startswith("C-M") and s in rec["source"]]
        if not match:
            continue
        row = by_system[match[0]]
        steps = float(row["median_samples_to_converge"]) / float(row["global_batch_size"].split("/")[0])
        predicted_min = steps * fit.predicted_step_s(row) / 60.0
        errors.append((predicted_min - float(rec["value"])) / float(rec["value"]))
    assert len(errors) == 18
    assert float(np.mean(np.abs(errors))) <= MAE_TOLERANCE


@pytest.mark.parametrize(("schedule", "chunks"), [("1f1b", 1), ("interleaved", 2)])
def test_megatron_1t_on_3072_a100_reaches_the_published_163_tflops_per_gpu(
    schedule: str, chunks: int
) -> None:
    # C-P10 (Narayanan et al. SC'21): GPT 1T, t=8, p=64, d=6, batch 3072, 163 TFLOP/s per A100 counted
    # with full recomputation (4 passes per step). The same run is a fit row of the decoder constants
    # (calibration/fit_decoder.py, Narayanan Table 1), so this is a consistency check.
    from fabrictwin.spec.scenario import ScenarioSpec
    from fabrictwin.twin.simulate import simulate

    sc = ScenarioSpec.model_validate(
        {
            "cluster": {"system": "dgx-a100", "nodes": 384, "fabric": "ib-hdr"},
            "job": {"model": "gpt-1t-megatron", "global_batch": 3072, "samples_to_train": 1e6},
            "parallelism": {
                "tp": 8,
                "pp": 64,
                "microbatch_size": 1,
                "recompute": "full",
                "schedule": schedule,
                "virtual_stages": chunks,
            },
        }
    )
    r = simulate(sc)
    hardware_tflops = r.mfu * 4.0 / 3.0 * 312.0
    assert hardware_tflops == pytest.approx(163.0, rel=0.10)
