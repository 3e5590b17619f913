"""Compute-roofline constants per model family, fitted on MLPerf Training rows.

Produced by :func:`fabrictwin.twin.fit.fit_family` on the FIT rows named below (non-negative least
squares of the measured per-GPU step time on the modelled one, communication included); every
other row of ``mlperf-throughput-calibration.csv`` is held out and tested in
``tests/twin/test_calibration.py``. A test re-runs the fit and checks these numbers, so they cannot
drift from the data by hand.
"""

from __future__ import annotations

from fabrictwin.timeline.workload import ComputeCalibration

FIT_ROWS: dict[str, tuple[str, ...]] = {
    "cnn": ("dgxa100_ngc22.04_mxnet", "dgxh100_ngc23.04_mxnet", "dgxh100_n8_ngc23.04_mxnet"),
    "encoder": ("dgxa100_ngc22.04_pytorch", "dgxh100_ngc23.04_pytorch", "dgxh100_n8_ngc23.04_pytorch"),
}

_SOURCE = "NNLS fit on MLPerf Training v2.0/v3.0 NVIDIA rows {rows} (mlperf-throughput-calibration.csv)"

CALIBRATION: dict[str, ComputeCalibration] = {
    "cnn": ComputeCalibration(
        tensor_efficiency=0.521,
        mem_bytes_per_sample=2.88e8,
        step_overhead_s=4.10e-3,
        source=_SOURCE.format(rows=", ".join(FIT_ROWS["cnn"])),
    ),
    "encoder": ComputeCalibration(
        tensor_efficiency=0.563,
        mem_bytes_per_sample=0.0,
        step_overhead_s=12.2e-3,
        source=_SOURCE.format(rows=", ".join(FIT_ROWS["encoder"])),
    ),
}

# Large decoder models: GEMMs are wide (h >= 4096) and run nearer peak than BERT-Large's.
# Megatron-LM trains a 1T GPT at 163 TFLOP/s per A100 = 52% of peak *including* communication and
# bubble (Narayanan et al. SC'21; training-calibration.csv C-P10); the kernels themselves must run
# above that. Taken: 0.60 of peak in FLOP-bound kernels (assumption bounded below by C-P10);
# element-wise traffic per token ~ 0 at this scale; 5 ms fixed per step (launch/host sync).
_DECODER = ComputeCalibration(
    tensor_efficiency=0.60,
    mem_bytes_per_sample=0.0,
    step_overhead_s=5.0e-3,
    source="bounded below by Megatron-LM 52% of A100 peak end-to-end (C-P10); assumption 0.60",
)


def calibration_for(family: str) -> ComputeCalibration:
    """Constants of a model family (``cnn``, ``encoder``, ``decoder``, ``moe-decoder``)."""
    return CALIBRATION.get(family, _DECODER)
