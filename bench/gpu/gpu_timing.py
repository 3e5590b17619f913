"""Step timing with device events, and the two ceilings (bf16 GEMM rate, HBM copy bandwidth).

On CUDA each step is bracketed by two CUDA events recorded on the stream, read after one
synchronize at the end, so host-side launch gaps inside a step are counted (the start event
fires when the stream reaches it) but no synchronize sits inside the timed region. On CPU the
host clock (time.perf_counter) is read around each step.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch
from gpu_flops import sync


@dataclass(frozen=True)
class Timing:
    """Per-step times (s) of the timed steps, and the host-clock mean over the same loop."""

    steps_s: list[float]
    wall_mean_s: float

    def quantile(self, q: float) -> float:
        """Quantile q in (0, 1) with linear interpolation between order statistics."""
        xs = sorted(self.steps_s)
        pos = q * (len(xs) - 1)
        lo = int(pos)
        hi = min(lo + 1, len(xs) - 1)
        return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)

    @property
    def median_s(self) -> float:
        return statistics.median(self.steps_s)


def time_steps(step: Callable[[], object], device: torch.device, warmup: int, iters: int) -> Timing:
    """Run `warmup` untimed then `iters` timed calls of `step`; raises ValueError if iters < 2."""
    if iters < 2:
        raise ValueError(f"need at least 2 timed steps, got {iters}")
    for _ in range(warmup):
        step()
    sync(device)
    t0 = time.perf_counter()
    if device.type == "cuda":
        ev = [
            (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)
        ]
        for start, end in ev:
            start.record()
            step()
            end.record()
        sync(device)
        steps = [start.elapsed_time(end) / 1e3 for start, end in ev]  # ms -> s
    else:
        steps = []
        for _ in range(iters):
            s0 = time.perf_counter()
            step()
            steps.append(time.perf_counter() - s0)
    return Timing(steps, (time.perf_counter() - t0) / iters)


def gemm_rate(device: torch.device, m: int, n: int, k: int, iters: int) -> dict[str, float]:
    """bf16 (m x k) @ (k x n) on random normal data, rotating 3 input sets so that repeated
    products do not run from L2 (each 8192^2 bf16 operand is 128 MiB, the H200 L2 is 60 MB).

    Returns median time, TFLOP/s (2 m n k per product) and the relative Frobenius error of the
    first 64 rows against a float64 reference (bf16 operands: expect 1e-3..1e-2, METHOD.md).
    """
    gen = torch.Generator(device=device).manual_seed(1234)
    sets = [
        (
            torch.randn(m, k, device=device, dtype=torch.bfloat16, generator=gen),
            torch.randn(k, n, device=device, dtype=torch.bfloat16, generator=gen),
        )
        for _ in range(3)
    ]
    out = [torch.full((m, n), float("nan"), device=device, dtype=torch.bfloat16) for _ in sets]
    i = [0]

    def step() -> None:
        a, b = sets[i[0] % 3]
        torch.matmul(a, b, out=out[i[0] % 3])
        i[0] += 1

    t = time_steps(step, device, warmup=3, iters=iters)
    a, b = sets[0]
    ref = a[:64].double() @ b.double()
    got = torch.matmul(a[:64], b).double()
    err = float(torch.linalg.norm(got - ref) / torch.linalg.norm(ref))
    return {
        "median_s": t.median_s,
        "tflops": 2.0 * m * n * k / t.median_s / 1e12,
        "rel_err": err,
        "all_written": float(bool(torch.isfinite(out[0]).all())),
    }


def copy_bandwidth(device: torch.device, n_bytes: int, iters: int) -> dict[str, float]:
    """Device-to-device copy of `n_bytes`; bandwidth counts bytes read plus bytes written."""
    gen = torch.Generator(device=device).manual_seed(99)
    src = torch.randint(0, 256, (n_bytes,), dtype=torch.uint8, device=device, generator=gen)
    dst = torch.zeros_like(src)

    def step() -> None:
        dst.copy_(src)

    t = time_steps(step, device, warmup=3, iters=iters)
    same = bool(torch.equal(src, dst))
    return {"median_s": t.median_s, "bandwidth_Bps": 2.0 * n_bytes / t.median_s, "copy_ok": float(same)}
