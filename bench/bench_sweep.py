"""Benchmark of `fabrictwin sweep`: the same design space on each executor.

The space is the example question (examples/sweep-64-nodes.yaml: Llama-3-8B on DGX H100, fabric x
DPU x nodes) widened: 4 fabrics x 2 DPU x 4 node counts x 4 NIC counts x 2 tensor-parallel
degrees = 256 points (~5 ms each in process once the catalog is warm). Baseline, measured in the
same run: LocalExecutor in this process. Every executor must
return exactly the baseline's rows (checked here too). Start-up of a Dask local cluster is timed
separately from the sweep itself (a long-lived cluster pays it once).

Run: .venv/bin/python bench/bench_sweep.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

from _timing import median_time
from fabrictwin.spec.scenario import ScenarioSpec
from fabrictwin.spec.sweep import SweepSpec
from fabrictwin.twin.executors import DaskExecutor, Executor, LocalExecutor
from fabrictwin.twin.sweep import SweepResult, load_space, run_sweep

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "sweep-64-nodes.yaml"


def _space() -> tuple[SweepSpec, ScenarioSpec]:
    spec, base = load_space(EXAMPLE)
    axes = dict(spec.axes) | {"nodes": [16, 32, 64, 128], "nics": [1, 2, 4, 8], "tp": [1, 2]}
    return spec.model_copy(update={"axes": axes}), base


def _timed(
    name: str, make: Callable[[], Executor], repeat: int, baseline: SweepResult | None
) -> tuple[float, SweepResult]:
    spec, base = _space()
    t0 = time.perf_counter()
    executor = make()
    start_s = time.perf_counter() - t0
    try:
        median, result = median_time(lambda: run_sweep(spec, base, executor), repeat)
    finally:
        executor.close()
    same = "" if baseline is None else ("  same rows" if result.rows == baseline.rows else "  ROWS DIFFER")
    print(f"{name:<34} start {start_s:6.2f} s  sweep median {median:6.2f} s  {len(result.rows)} points{same}")
    return median, result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    base_s, baseline = _timed("local, in process (baseline)", LocalExecutor, args.repeat, None)
    rows: list[tuple[str, Callable[[], Executor]]] = [
        ("local, 2 processes", lambda: LocalExecutor(processes=2)),
        ("dask, 1 worker x 2 threads", lambda: DaskExecutor(workers=1, threads=2)),
        ("dask, 2 worker processes", lambda: DaskExecutor(workers=2, processes=True)),
        ("dask, 2 processes, batch of 1", lambda: DaskExecutor(workers=2, processes=True, batch_size=1)),
    ]
    for name, make in rows:
        median, _ = _timed(name, make, args.repeat, baseline)
        print(f"{'':<34} ratio vs baseline {median / base_s:5.2f}x")


if __name__ == "__main__":
    import logging

    logging.getLogger("distributed").setLevel(logging.WARNING)  # scheduler INFO lines drown the table
    main()
