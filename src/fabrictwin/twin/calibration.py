"""Compute-roofline constants per model family and software profile.

MLPerf-class constants are fitted on MLPerf Training rows; eager-PyTorch ones on single-GPU H200
rows (``calibration/``, see the second half of this module).

MLPerf-class: produced by :func:`fabrictwin.twin.fit.fit_family` on the FIT rows named below
(non-negative least squares of the measured per-GPU step time on the modelled one, communication
included); every other row of ``mlperf-throughput-calibration.csv`` is held out and tested in
``tests/twin/test_calibration.py``. A test re-runs the fit and checks these numbers, so they cannot
drift from the data by hand. Eager: :func:`fabrictwin.twin.fit.fit_bench` on EAGER_FIT_ROWS,
checked the same way in ``tests/twin/test_h200_eager.py``.
"""

from __future__ import annotations

from typing import Literal

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

# Large decoder models (Megatron-class software): fitted on published LLM training throughput,
# calibration/llm-training-throughput.csv, by calibration/fit_decoder.py in two stages, each least
# squares on log(step time) with the whole step simulated (communication, bubble, optimizer):
# 1. bf16 on Narayanan et al. 2021 Table 1 (ten Megatron-LM runs on A100, h = 2304 ... 25600,
#    32 ... 3,072 GPUs): wide-GEMM efficiency 0.699 of dense peak, and narrow GEMMs of width h
#    take 1 + 1707/h as long (their per-GPU rate rises from 137 to 163 TFLOP/s with the width);
# 2. fp8 on the NeMo 24.07 H100 FP8 table (GPT-3 5B-175B, Llama 2 7B-70B), stage 1 fixed: fp8
#    linear layers reach 0.545 of fp8 dense peak, i.e. 1.56x the bf16 rate (scaling and casts
#    included); attention stays 16-bit.
# Held out (tests/twin/test_llm_throughput.py): Korthikanti et al. 2022 (A100), the MegaScale
# Megatron-LM baseline up to 12,288 GPUs, Megatron-Bridge 25.11 (H100 and B200 FP8). Both
# efficiencies stay under the measured GEMM ceiling, 0.80 of dense peak (H200_GEMM_CEILING).
# 5 ms fixed per step (launch/host sync; eager measured 4.8), not fitted.
DECODER_FIT_SOURCES: dict[str, str] = {
    # rows of calibration/llm-training-throughput.csv each stage of calibration/fit_decoder.py fits
    "bf16": "Narayanan et al. 2021",
    "fp8": "NVIDIA/NeMo/blob",
}

_DECODER = ComputeCalibration(
    tensor_efficiency=0.699,
    mem_bytes_per_sample=0.0,
    step_overhead_s=5.0e-3,
    source="calibration/fit_decoder.py on calibration/llm-training-throughput.csv (Narayanan 2021 "
    "Table 1 bf16; NeMo 24.07 H100 FP8)",
    fp8_efficiency=0.545,
    narrow_gemm_width=1707.0,
)

# --- Measured H200 ceilings and eager-PyTorch calibration ---------------------------------------
# calibration/gpu-h200-roofline.csv, run 1 (run 2 within 0.5%), measured with
# `python3 bench/gpu/step_time.py --out "$OUT" --budget-s 300` (bench/gpu/README.md, "How it was run").
H200_GEMM_BF16_FLOPS = 790.597e12
"""bf16 GEMM m=n=k=8192 on the H200, FLOP/s (2mnk / median time)."""
H200_COPY_Bps = 4296.69e9
"""4 GiB device-to-device copy on the H200, bytes/s counting read + write."""
H200_DENSE_BF16_FLOPS = 989.5e12
"""Catalog dense bf16 peak of h200-sxm (NVIDIA H200 datasheet, sparse rate halved), FLOP/s."""
H200_HBM_Bps = 4.8e12
"""Catalog HBM bandwidth of h200-sxm (NVIDIA H200 datasheet), bytes/s."""
H200_GEMM_CEILING = H200_GEMM_BF16_FLOPS / H200_DENSE_BF16_FLOPS
"""Achievable share of dense peak in a large GEMM (0.80): no kernel's eta can exceed it."""
H200_HBM_CEILING = H200_COPY_Bps / H200_HBM_Bps
"""Achievable share of datasheet HBM bandwidth (0.895); B counted at peak is this much above real bytes."""

Software = Literal["mlperf", "eager"]
SOFTWARE: tuple[Software, ...] = ("mlperf", "eager")

# Rows of calibration/gpu-h200-step-times.csv (run 1) the eager constants are fitted on (model/batch).
# The others are held out: the decoder at seq 2048 (another attention share) and the small batches,
# which are host-launch bound (bench/gpu/README.md) and tested as a lower bound.
EAGER_FIT_ROWS: dict[str, tuple[str, ...]] = {
    "cnn": ("resnet50/128", "resnet50/256"),
    "encoder": ("bert-large-L24/16", "bert-large-L24/32"),
    "decoder": ("llama3-8b-like-4L-seq4096/1", "llama3-8b-like-4L-seq4096/2"),
}
# One GPU cannot separate eta from B: cnn and encoder keep the MLPerf-class eta (same cuDNN/cuBLAS
# kernels) and fit B and c; the decoder fits eta and c with B = 0 (fabrictwin.twin.fit.fit_bench).
EAGER_FIXED_ETA: dict[str, float | None] = {
    "cnn": CALIBRATION["cnn"].tensor_efficiency,
    "encoder": CALIBRATION["encoder"].tensor_efficiency,
    "decoder": None,
}
_EAGER_SOURCE = "NNLS fit on H200 eager PyTorch rows {rows} (calibration/gpu-h200-step-times.csv)"

EAGER_CALIBRATION: dict[str, ComputeCalibration] = {
    "cnn": ComputeCalibration(
        tensor_efficiency=0.521,
        mem_bytes_per_sample=7.02e8,
        step_overhead_s=4.35e-3,
        source=_EAGER_SOURCE.format(rows=", ".join(EAGER_FIT_ROWS["cnn"])),
    ),
    "encoder": ComputeCalibration(
        tensor_efficiency=0.563,
        mem_bytes_per_sample=7.37e9,
        step_overhead_s=9.95e-3,
        source=_EAGER_SOURCE.format(rows=", ".join(EAGER_FIT_ROWS["encoder"])),
    ),
    "decoder": ComputeCalibration(
        tensor_efficiency=0.525,
        mem_bytes_per_sample=0.0,
        step_overhead_s=4.76e-3,
        source=_EAGER_SOURCE.format(rows=", ".join(EAGER_FIT_ROWS["decoder"])),
    ),
}


def calibration_for(family: str, software: Software = "mlperf") -> ComputeCalibration:
    """Constants of a model family (``cnn``, ``encoder``, ``decoder``, ``moe-decoder``).

    ``software``: ``mlperf`` for tuned code (MLPerf submissions, Megatron-class LLM stacks: fused
    kernels, CUDA graphs), ``eager`` for plain eager PyTorch AMP (fitted on one H200).
    MoE decoders take the decoder's constants.

    Raises:
        ValueError: ``software`` is neither ``mlperf`` nor ``eager``.
    """
    if software == "mlperf":
        return CALIBRATION.get(family, _DECODER)
    if software == "eager":
        return EAGER_CALIBRATION.get(family, EAGER_CALIBRATION["decoder"])
    raise ValueError(f"software {software!r} is not one of {', '.join(SOFTWARE)}")
