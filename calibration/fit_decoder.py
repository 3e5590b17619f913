"""Fit the decoder (Megatron-class) compute constants on published LLM training throughput.

    .venv/bin/python calibration/fit_decoder.py

Data: calibration/llm-training-throughput.csv (sources per row; README.md here). Two stages,
each least squares on log(step time) with the whole step simulated (communication, pipeline
bubble and optimizer included):

1. bf16: ``tensor_efficiency`` (share of dense 16-bit peak in wide GEMMs and in attention) and
   ``narrow_gemm_width`` w (linear layers of width h take 1 + w/h times as long) on Narayanan
   et al. 2021 Table 1: ten Megatron-LM runs on A100, 1.7B (h = 2304) to 1T (h = 25600)
   parameters, 32 to 3,072 GPUs, whose per-GPU rate rises with the model width.
2. fp8: ``fp8_efficiency`` (share of fp8 dense peak in the linear layers) on the NeMo 24.07 H100
   FP8 table (GPT-3 5B-175B, Llama 2 7B-70B), with stage 1 fixed; attention stays 16-bit.

Every other row is held out; the script prints their errors. The step overhead stays 5 ms.
"""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path

import numpy as np
from scipy.optimize import least_squares

from fabrictwin.errors import Infeasible
from fabrictwin.timeline.workload import ComputeCalibration
from fabrictwin.twin import fit
from fabrictwin.twin.calibration import DECODER_FIT_SOURCES, calibration_for

HERE = Path(__file__).parent


def rows() -> list[dict[str, str]]:
    """Megatron-class dense rows."""
    with (HERE / "llm-training-throughput.csv").open(newline="") as fh:
        return [r for r in csv.DictReader(fh) if r["software"] == "megatron"]


def in_stage(row: dict[str, str], stage: str) -> bool:
    """A fit row of ``stage``: its source, without context parallelism (modelled after the fit)."""
    return DECODER_FIT_SOURCES[stage] in row["source"] and row["cp"] == "1"


def log_errors(cal: ComputeCalibration, data: list[dict[str, str]]) -> np.ndarray:
    out = []
    for row in data:
        try:
            out.append(np.log(fit.llm_predicted_step_s(row, cal) / float(row["measured_step_s"])))
        except Infeasible:
            continue
    return np.array(out)


def fit_bf16(data: list[dict[str, str]], start: ComputeCalibration) -> ComputeCalibration:
    def cal(x: np.ndarray) -> ComputeCalibration:
        return replace(start, tensor_efficiency=float(x[0]), narrow_gemm_width=float(x[1]))

    x0 = [start.tensor_efficiency, start.narrow_gemm_width or 500.0]
    res = least_squares(
        lambda x: log_errors(cal(x), data),
        x0,
        bounds=([0.2, 0.0], [0.8, 20000.0]),
        diff_step=0.02,
        max_nfev=40,
    )
    return cal(res.x)


def fit_fp8(data: list[dict[str, str]], start: ComputeCalibration) -> ComputeCalibration:
    def cal(x: np.ndarray) -> ComputeCalibration:
        return replace(start, fp8_efficiency=float(x[0]))

    res = least_squares(
        lambda x: log_errors(cal(x), data),
        [start.fp8_efficiency or 0.4],
        bounds=([0.1], [0.8]),
        diff_step=0.02,
        max_nfev=30,
    )
    return cal(res.x)


def report(cal: ComputeCalibration, data: list[dict[str, str]], label: str) -> None:
    for row in data:
        try:
            err = fit.llm_predicted_step_s(row, cal) / float(row["measured_step_s"]) - 1.0
            name = f"{row['model'][:16]:16} {row['precision']} {row['system']:9}"
            print(f"  {label:8} row {row['row']:>3} {name} {row['n_gpus']:>5} GPUs  {err:+.1%}")
        except Infeasible as exc:
            print(f"  {label:8} row {row['row']:>3} {row['model'][:16]:16} infeasible: {str(exc)[:60]}")


def main() -> None:
    data = rows()
    bf16 = [r for r in data if in_stage(r, "bf16")]
    fp8 = [r for r in data if in_stage(r, "fp8")]
    held = [r for r in data if r not in bf16 and r not in fp8]
    start = calibration_for("decoder")
    stage1 = fit_bf16(bf16, start)
    stage2 = fit_fp8(fp8, stage1)
    print(f"tensor_efficiency {stage2.tensor_efficiency:.4f}", end="  ")
    print(f"narrow_gemm_width {stage2.narrow_gemm_width:.1f}  fp8_efficiency {stage2.fp8_efficiency:.4f}")
    report(stage2, bf16, "fit-bf16")
    report(stage2, fp8, "fit-fp8")
    report(stage2, held, "held-out")
    e = log_errors(stage2, held)
    print(
        f"held-out: {len(e)} rows, median |error| {np.median(np.abs(np.expm1(e))):.1%},"
        f" worst {np.expm1(e[np.argmax(np.abs(e))]):+.1%}"
    )


if __name__ == "__main__":
    main()
