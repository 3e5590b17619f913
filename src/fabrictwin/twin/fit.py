"""Fitting and checking the compute constants on MLPerf Training throughput rows.

Method (stated because MLPerf time-to-train involves convergence): compare *throughput*, not
time to train. A row's measured step time per GPU is ``local_batch / samples_per_s_per_gpu``;
the model's is the simulated step of the same system, node count, fabric and per-GPU batch.
ResNet rows use the eval-excluded rate; NVIDIA BERT v2.0/v3.0 logs do not mark eval, so their
rate includes it and the model's step is divided by (1 - 0.06), the median BERT eval share
(mlperf-throughput-method.md 3.2). BERT works on packed/unpadded sequences; its samples are
counted at 256 real tokens (packing rate ~2 per 512-token pack, same doc 3.1).

The fit: unknowns a = 1/eta, B (bytes/sample), c (s/step) enter the step linearly,
T = lb * (F/P * a + B/M) + c + rest, where ``rest`` (optimizer, exposed communication, stragglers)
comes from the simulation at the current estimate; non-negative least squares, iterated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
from scipy.optimize import nnls

from fabrictwin import catalog
from fabrictwin.errors import NotFound
from fabrictwin.spec.scenario import ScenarioSpec
from fabrictwin.timeline.compute import microbatch_time, optimizer_time, peak_flops
from fabrictwin.timeline.workload import ComputeCalibration, WorkloadProfile, transformer_fwd_flops
from fabrictwin.twin.resolve import profile
from fabrictwin.twin.simulate import simulate

# Median BERT eval share of run time where it is logged (mlperf-throughput-method.md 3.2).
BERT_EVAL_SHARE = 0.06
# Average real tokens per BERT sequence in MLPerf's packed/unpadded runs (method doc 3.1).
BERT_TOKENS = 256

_SYSTEMS: tuple[tuple[str, str, str, str | None], ...] = (
    # (substring of the row's accelerator name, system, fabric, GPU in place of the system's);
    # first match wins, so the more specific names come first
    ("A30", "a30-2gpu", "ib-hdr", None),
    ("A100-SXM4-40GB", "dgx-a100", "ib-hdr", "a100-40gb"),
    ("A100", "dgx-a100", "ib-hdr", None),
    ("H100-PCIe", "pcie-8gpu", "ib-ndr", None),
    ("H100", "dgx-h100", "ib-ndr", None),
    ("H200", "dgx-h200", "ib-ndr", None),
    ("B200", "dgx-b200", "ib-ndr", None),
    ("L40S", "pcie-l40s-4gpu", "ib-ndr", None),
    ("V100-SXM2", "dgx-1-v100", "ib-edr", None),
    ("V100-SXM3", "dgx-2h", "ib-edr", None),
)

Row = Mapping[str, str]


def system_for_gpu(name: str) -> tuple[str, str, str | None]:
    """(system, fabric, GPU override) of an MLPerf row's accelerator name.

    Raises:
        NotFound: no catalog system carries that accelerator.
    """
    for key, system, fabric, gpu in _SYSTEMS:
        if key in name:
            return system, fabric, gpu
    raise NotFound(f"no catalog system for accelerator {name!r}; known: {', '.join(k for k, *_ in _SYSTEMS)}")


def scenario_for_row(row: Row) -> ScenarioSpec:
    """The scenario of one MLPerf row (NVIDIA systems: DALI decode on GPU, dataset in page cache)."""
    system, fabric, gpu = system_for_gpu(row["gpu"])
    bert = row["benchmark"] == "bert"
    return ScenarioSpec.model_validate(
        {
            "name": row["system"],
            "cluster": {
                "system": system,
                "nodes": int(row["n_nodes"]),
                "fabric": fabric,
                **({"gpu": gpu} if gpu else {}),
                # two GPUs on one NVLink bridge: the simple alpha-beta model is as good there
                "collectives": "alpha-beta" if system == "a30-2gpu" else "nccl-flow",
            },
            "job": {
                "model": "bert-large" if bert else "resnet-50",
                "global_batch": int(float(row["global_batch_size"])),
                "samples_to_train": float(row["median_samples_to_converge"]),
                "precision": "fp16",
                **({"seq_len": BERT_TOKENS} if bert else {}),
            },
            "data": {"cache_hit_rate": 1.0, "decode_on_gpu": True},
        }
    )


def measured_step_s(row: Row) -> float:
    """Measured time per step per GPU from the row's throughput."""
    rate = float(row["samples_per_s_per_gpu"])
    return float(row["local_batch_per_gpu"]) / rate


def predicted_step_s(row: Row, calibration: ComputeCalibration | None = None) -> float:
    """The model's step time for the row, on the same footing as :func:`measured_step_s`."""
    result = simulate(scenario_for_row(row), calibration)
    step = result.step_time_s
    return step / (1.0 - BERT_EVAL_SHARE) if row["benchmark"] == "bert" else step


def fit_family(rows: Sequence[Row], iterations: int = 6) -> ComputeCalibration:
    """Fit (eta, B, c) on ``rows`` of one model family.

    Raises:
        ValueError: fewer than three rows.
    """
    if len(rows) < 3:
        raise ValueError("need at least three rows to fit three constants")
    cal = ComputeCalibration(0.5, 0.0, 0.0, "start")
    for _ in range(iterations):
        design, target = [], []
        for row in rows:
            sc = scenario_for_row(row)
            res = simulate(sc, cal)
            lb = res.layout.local_batch
            w, gpu = res.resolved.workload, res.resolved.gpu
            peak = peak_flops(gpu, sc.job.precision)
            terms = [lb * w.train_flops_per_sample / peak, lb / gpu.hbm_Bps, 1.0]
            modelled = (
                terms[0] / cal.tensor_efficiency + terms[1] * cal.mem_bytes_per_sample + cal.step_overhead_s
            )
            scale = 1.0 / (1.0 - BERT_EVAL_SHARE) if row["benchmark"] == "bert" else 1.0
            rest = res.step_time_s - modelled
            # Relative residuals: divide each equation by the measured step.
            meas = measured_step_s(row)
            design.append([t / meas for t in terms])
            target.append((meas / scale - rest) / meas)
        x, _ = nnls(np.array(design), np.array(target))
        cal = ComputeCalibration(1.0 / max(x[0], 1e-9), float(x[1]), float(x[2]), "fit")
    return cal


def relative_errors(rows: Sequence[Row]) -> dict[str, float]:
    """(predicted - measured) / measured of the step time, per row (keyed by system and benchmark)."""
    out = {}
    for row in rows:
        meas = measured_step_s(row)
        out[f"{row['system']}/{row['benchmark']}"] = (predicted_step_s(row) - meas) / meas
    return out


# --- Single-GPU eager-PyTorch rows measured on an H200 (calibration/gpu-h200-*.csv) -------------
#
# The rows time one GPU's forward + backward + optimizer step on synthetic data already on the
# GPU (bench/gpu/README.md), so the twin's side is the compute model alone: micro-batch time at
# shards=1, the optimizer update and the per-step overhead; no data path, no communication.

H200_GPU = "h200-sxm"
# The bench's models -> the catalog model whose shape they have (bench/gpu/README.md, "Models").
_BENCH_MODELS = {"resnet50": "resnet50", "bert-large-L24": "bert-large", "llama3-8b-like": "llama3-8b"}
# The decoder stack has 4 Llama-3-8B blocks and no embedding or LM head (bench/gpu/README.md).
BENCH_DECODER_LAYERS = 4


def bench_key(row: Row) -> str:
    """``model/batch`` of a bench row, e.g. ``resnet50/256``."""
    return f"{row['model']}/{int(row['batch'])}"


def bench_profile(row: Row, calibration: ComputeCalibration | None = None) -> WorkloadProfile:
    """The twin's workload profile of a bench row's model at the row's sequence length.

    Raises:
        KeyError: the row's model is none of the bench's three.
    """
    name = next(k for k in _BENCH_MODELS if row["model"].startswith(k))
    model = catalog.model(_BENCH_MODELS[name])
    seq = int(row["seq_len"]) or None
    prof = profile(model, seq, calibration)
    if name != "llama3-8b-like":
        return prof
    # Llama-3 block: GQA attention 2h^2 + 2h(h kv/heads), SwiGLU MLP 3hf (Llama 3 paper, Table 3;
    # catalog models.yaml llama3-8b); no embedding / LM head in the bench's stack.
    h, f = model.hidden, model.ffn_hidden
    per_layer = 2 * h * h + 2 * h * (h * model.kv_heads // model.heads) + 3 * h * f
    params = float(BENCH_DECODER_LAYERS * per_layer)
    return replace(
        prof,
        params=params,
        active_params=params,
        layers=BENCH_DECODER_LAYERS,
        fwd_flops_per_sample=transformer_fwd_flops(params, BENCH_DECODER_LAYERS, h, prof.tokens_per_sample),
    )


def bench_step_s(row: Row, calibration: ComputeCalibration) -> float:
    """The twin's single-GPU step time of a bench row under ``calibration``, seconds."""
    prof = bench_profile(row, calibration)
    gpu = catalog.gpu(H200_GPU)
    t = microbatch_time(prof, gpu, "bf16", float(row["batch"]), shards=1)
    return t.forward_s + t.backward_s + optimizer_time(prof.params, gpu) + calibration.step_overhead_s


def fit_bench(rows: Sequence[Row], tensor_efficiency: float | None, source: str) -> ComputeCalibration:
    """Fit a single-GPU calibration on bench ``rows`` of one model.

    One GPU cannot separate ``eta`` from ``B`` (both scale with the batch), so one of them is fixed:
    with ``tensor_efficiency`` given, (B, c) are fitted (extra memory-bound traffic and launches,
    same GEMM/conv kernels); with ``None``, (1/eta, c) with B = 0 (the decoder convention, since
    B is per sample and would not follow the sequence length). NNLS on relative residuals.

    Raises:
        ValueError: fewer than two rows.
    """
    if len(rows) < 2:
        raise ValueError("need at least two rows to fit two constants")
    gpu = catalog.gpu(H200_GPU)
    peak = peak_flops(gpu, "bf16")
    design, target = [], []
    for row in rows:
        prof = bench_profile(row)
        b, meas = float(row["batch"]), float(row["step_time_s_median"])
        flop_s = b * prof.train_flops_per_sample / peak
        rest = meas - optimizer_time(prof.params, gpu)
        if tensor_efficiency is None:
            design.append([flop_s / meas, 1.0 / meas])
        else:
            design.append([b / gpu.hbm_Bps / meas, 1.0 / meas])
            rest -= flop_s / tensor_efficiency
        target.append(rest / meas)
    x, _ = nnls(np.array(design), np.array(target))
    if tensor_efficiency is None:
        return ComputeCalibration(1.0 / max(float(x[0]), 1e-9), 0.0, float(x[1]), source)
    return ComputeCalibration(tensor_efficiency, float(x[0]), float(x[1]), source)


# --- Published LLM training throughput (calibration/llm-training-throughput.csv) ---------------
#
# Each row names the model's shape, the GPU system, the parallel layout and the measured step
# time (derived from the source's tokens/s/GPU, s/iteration or TFLOP/s with the rule in the row).


def llm_scenario(row: Row) -> ScenarioSpec:
    """The scenario of one published LLM training row (dense decoder, given by its shape)."""
    gpus = int(row["n_gpus"])
    system = catalog.system(row["system"])
    vp = int(row["vp"] or 1)
    pp = int(row["pp"])
    parallelism: dict[str, object] = {
        "tp": int(row["tp"]),
        "pp": pp,
        "cp": int(row["cp"] or 1),
        "zero_stage": int(row["zero_stage"]),
        "recompute": row["recompute"],
    }
    if vp > 1 and pp > 1:
        parallelism.update(schedule="interleaved", virtual_stages=vp)
    if row["micro_batch"]:
        parallelism["microbatch_size"] = int(row["micro_batch"])
    return ScenarioSpec.model_validate(
        {
            "name": f"llm-row-{row['row']}",
            "cluster": {
                "system": row["system"],
                "nodes": max(1, gpus // system.gpus),
                "fabric": row["fabric"],
            },
            "job": {
                "model": {
                    "name": row["model"],
                    "layers": int(row["layers"]),
                    "hidden": int(row["hidden"]),
                    "heads": int(row["heads"]),
                    "kv_heads": int(row["kv_heads"]),
                    "ffn_hidden": int(row["ffn_hidden"]),
                    "gated_mlp": row["gated_mlp"] == "1",
                    "vocab": int(row["vocab"]),
                    "seq_len": int(row["seq_len"]),
                },
                "global_batch": int(row["global_batch"]),
                "samples_to_train": float(row["global_batch"]) * 1000,
                "precision": row["precision"],
            },
            "parallelism": parallelism,
        }
    )


def llm_predicted_step_s(row: Row, calibration: ComputeCalibration | None = None) -> float:
    """The twin's step time of a published LLM row, seconds."""
    return simulate(llm_scenario(row), calibration).step_time_s
