"""Benchmarks of the collective engine (issue 3). Run: .venv/bin/python bench/bench_collectives.py

Each case prints the median wall time of a few runs and the ratio against a straightforward
pure-Python baseline run in the same process:

1. one 64 MiB all-reduce over 4,096 GPUs (512 DGX H100, rail-optimized fat tree, ring,
   flow-level, RoCE ECMP) - target < 1 s; baseline: the same flows progressed with the
   plain-Python heap water-filling (solve_reference);
2. one flow-level ring step over 16,384 GPUs (2,048 nodes x 8 rails, ECMP) - target < 3 s;
   same baseline;
3. analytic estimates per second - target >= 100,000/s; baseline: a Python loop that asks
   for one size at a time.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from _timing import median_s
from fabrictwin.collectives import context_for, estimate
from fabrictwin.collectives import flow as flow_mod
from fabrictwin.netsolver import progression
from fabrictwin.netsolver.patterns import ring_step
from fabrictwin.topology import build_fat_tree


def with_reference_solver(fn: Callable[[], object]) -> Callable[[], object]:
    """Run ``fn`` with every progression using the pure-Python solver."""

    def run() -> object:
        original = progression.progress

        def slow(*args: object, **kwargs: object) -> progression.Progress:
            kwargs["method"] = "reference"
            return original(*args, **kwargs)  # type: ignore[arg-type]

        flow_mod.progress = slow  # type: ignore[assignment]
        try:
            return fn()
        finally:
            flow_mod.progress = original

    return run


def case_all_reduce_4096() -> None:
    ctx = context_for("dgx-h100", "roce-400g", nodes=512)

    def run() -> object:
        return estimate(ctx, "all_reduce", 64 * 2**20, algorithm="ring", fidelity="flow")

    run()  # compile the Numba kernel outside the timing
    fast = median_s(run)
    base = median_s(with_reference_solver(run))
    est = run()
    print(
        f"all_reduce 64 MiB, 4096 GPUs, ring, flow, ECMP: median {fast:.3f} s "
        f"(target < 1 s; busbw {est.busbw_Bps[0] / 1e9:.1f} GB/s) | pure-Python baseline "
        f"{base:.3f} s | ratio {base / fast:.1f}x"
    )


def case_ring_step_16384() -> None:
    topo = build_fat_tree(2048, 8, 64, 400e9)
    fast = median_s(lambda: ring_step(topo, 2**20, "ecmp", method="auto"))
    base = median_s(lambda: ring_step(topo, 2**20, "ecmp", method="reference"), repeat=1)
    res = ring_step(topo, 2**20, "ecmp")
    print(
        f"ring step, 16384 GPUs, ECMP: median {fast:.3f} s (target < 3 s; slowdown "
        f"{res.slowdown:.2f}x, {res.progress.events} events) | pure-Python baseline {base:.3f} s | "
        f"ratio {base / fast:.1f}x"
    )


def case_analytic_rate() -> None:
    ctx = context_for("dgx-h100", "ib-ndr", nodes=32)
    sizes = np.logspace(0, 34, 100_000, base=2.0)
    fast = median_s(lambda: estimate(ctx, "all_reduce", sizes))
    few = sizes[:: sizes.size // 2000]
    loop = median_s(lambda: [estimate(ctx, "all_reduce", float(s)) for s in few], repeat=1)
    per_s = sizes.size / fast
    loop_per_s = few.size / loop
    print(
        f"analytic estimates: {per_s:,.0f} per second vectorised (target >= 100,000) | "
        f"one-at-a-time baseline {loop_per_s:,.0f} per second | ratio {per_s / loop_per_s:.0f}x"
    )


if __name__ == "__main__":
    case_all_reduce_4096()
    case_ring_step_16384()
    case_analytic_rate()
