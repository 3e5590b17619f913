"""Compute time of a micro-batch on one GPU: a two-term roofline.

Training kernels are either FLOP-bound (GEMMs, convolutions on tensor cores) or memory-bound
(normalisation, activations, element-wise, optimizer). Summing the two classes, each at its own
ceiling, is the layer-wise roofline aggregated over a step (Williams, Waterman, Patterson,
"Roofline", CACM 52(4), 2009):

    t(b) = b * ( F / (P * eta) + B / M )

with F training FLOPs per sample, P the dense tensor peak of the precision, eta the achieved
tensor efficiency, B the HBM traffic per sample of memory-bound kernels and M the HBM bandwidth.
eta, B and c are fitted per model family and software profile: MLPerf-class on MLPerf Training
rows, eager PyTorch on single-GPU H200 step times (``calibration/``, ``docs/models/compute.md``).
No eta exceeds the measured large-GEMM ceiling, 0.80 of dense bf16 peak on an H200
(``calibration/gpu-h200-roofline.csv``). The backward pass is 2x the forward (Kaplan et al. 2020,
section 2.1).
"""

from __future__ import annotations

from dataclasses import dataclass

from fabrictwin.errors import Infeasible
from fabrictwin.spec.hardware import GpuSpec
from fabrictwin.timeline.workload import ComputeCalibration, WorkloadProfile

# Selective recomputation costs 2.7% extra FLOPs on GPT-3 175B; full recomputation one extra
# forward (Korthikanti et al. 2022, "Reducing Activation Recomputation...", Table 4 / section 5).
SELECTIVE_RECOMPUTE_OVERHEAD = 0.027

# Mixed-precision Adam/LAMB/LARS update, bytes of HBM traffic per parameter: read fp32 master,
# momentum, variance and the gradient (4+4+4+4), write master, momentum, variance (12) and the
# 16-bit weight (2) ~= 30, rounded to 32 for the gradient-unscale pass. Derivation from the state
# sizes of Rajbhandari et al. 2020 (ZeRO, section 3.1: 2+2+12 bytes per parameter).
OPTIMIZER_BYTES_PER_PARAM = 32.0


@dataclass(frozen=True)
class MicrobatchTime:
    """Time of one micro-batch on one pipeline chunk of one GPU, seconds."""

    forward_s: float
    backward_s: float


def peak_flops(gpu: GpuSpec, precision: str) -> float:
    """Dense tensor peak of ``precision``; fp8 falls back to bf16 when the GPU has no fp8.

    Raises:
        Infeasible: the GPU has no peak for that precision nor for bf16/fp16.
    """
    table = dict(gpu.peak_flops)
    for name in (precision, "bf16", "fp16"):
        if name in table:
            return float(table[name])
    raise Infeasible(f"GPU {gpu.id} has no tensor peak for {precision}")


def linear_rate(gpu: GpuSpec, precision: str, cal: ComputeCalibration) -> float:
    """FLOP/s of the linear layers (GEMMs, convolutions) at ``precision``: fp8 runs them at the
    fp8 peak times the fp8 efficiency where the GPU has fp8; attention stays 16-bit."""
    if precision == "fp8" and "fp8" in dict(gpu.peak_flops) and cal.fp8_efficiency is not None:
        return peak_flops(gpu, "fp8") * cal.fp8_efficiency
    return peak_flops(gpu, precision) * cal.tensor_efficiency


def _attention_rate(gpu: GpuSpec, precision: str, cal: ComputeCalibration) -> float:
    """FLOP/s of the attention matmuls: 16-bit under 8-bit recipes (Transformer Engine quantises
    the linear layers only), else the job's precision."""
    precision = "bf16" if precision in ("fp8", "fp4", "int8") else precision
    return peak_flops(gpu, precision) * (cal.attention_efficiency or cal.tensor_efficiency)


def microbatch_time(
    workload: WorkloadProfile,
    gpu: GpuSpec,
    precision: str,
    samples: float,
    shards: int,
    recompute: str = "none",
) -> MicrobatchTime:
    """Forward and backward time of ``samples`` samples on 1/``shards`` of the model.

    ``shards`` = tensor-parallel degree x pipeline chunks (each holds that share of the FLOPs).
    """
    cal = workload.calibration
    per_sample = samples / shards
    attention = 3.0 * workload.attention_fwd_flops_per_sample * per_sample
    linear = workload.train_flops_per_sample * per_sample - attention
    mem = cal.mem_bytes_per_sample * per_sample
    width = 1.0 + cal.narrow_gemm_width / workload.hidden if workload.hidden else 1.0
    total = (
        linear * width / linear_rate(gpu, precision, cal)
        + attention / _attention_rate(gpu, precision, cal)
        + mem / gpu.hbm_Bps
    )
    forward = total / 3.0
    backward = total - forward
    if recompute == "full":
        backward += forward
    elif recompute == "selective":
        backward += SELECTIVE_RECOMPUTE_OVERHEAD * total
    return MicrobatchTime(forward, backward)


def attention_time(
    workload: WorkloadProfile, gpu: GpuSpec, precision: str, samples: float, shards: int
) -> float:
    """Forward time of the attention matmuls of ``samples`` samples on 1/``shards`` of the model,
    the compute a context-parallel ring exchange hides behind, seconds."""
    rate = _attention_rate(gpu, precision, workload.calibration)
    return workload.attention_fwd_flops_per_sample * samples / shards / rate


def optimizer_time(local_params: float, gpu: GpuSpec) -> float:
    """Memory-bound optimizer update of ``local_params`` parameters on one GPU, seconds."""
    return local_params * OPTIMIZER_BYTES_PER_PARAM / gpu.hbm_Bps
