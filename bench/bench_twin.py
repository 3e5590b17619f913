"""Benchmark of `simulate`: GPT-3 175B on 16,384 H100 and ResNet-50 on 256 H100.

Targets (issue 4): GPT-3 175B, TP 8 x PP 16 x DP 128, with flow-level data-parallel collectives,
under 5 s; ResNet-50 on 256 GPUs under 1 s. The naive baseline, measured in the same run, is the
step simulated the direct way: every data-parallel replica explicitly (each with all its stages
and streams), data-parallel collectives synchronising the replicas, and no memoised collective
costs. The fast path simulates one replica, since replicas run the same schedule. The naive run is
measured on K replicas and scaled by dp / K (a lower bound: its dispatcher grows faster than linear).

Run: .venv/bin/python bench/bench_twin.py
"""

from __future__ import annotations

import dataclasses
import time

from _timing import median_s
from fabrictwin.spec.scenario import ScenarioSpec
from fabrictwin.timeline.events import Op, run_ops
from fabrictwin.timeline.step import build_step_ops
from fabrictwin.twin import simulate as sim_module
from fabrictwin.twin.resolve import resolve

GPT3 = {
    "name": "gpt3-175b-16k-h100",
    "cluster": {"system": "dgx-h100", "nodes": 2048, "fabric": "ib-ndr", "collectives": "nccl-flow"},
    "job": {"model": "gpt3-175b", "global_batch": 1536, "samples_to_train": 146484375, "precision": "bf16"},
    "parallelism": {"tp": 8, "pp": 16, "microbatch_size": 1, "recompute": "selective"},
}
NAIVE_REPLICAS = 8

RESNET = {
    "name": "resnet50-256-h100",
    "cluster": {"system": "dgx-h100", "nodes": 32, "fabric": "ib-ndr", "collectives": "nccl-flow"},
    "job": {"model": "resnet50", "global_batch": 8192, "samples_to_train": 115305030, "precision": "bf16"},
    "data": {"cache_hit_rate": 0.989},
}


def _naive(spec: ScenarioSpec, replicas: int) -> int:
    """Simulate ``replicas`` data-parallel replicas explicitly; returns the dp degree."""
    r = resolve(spec)
    lay = sim_module.derive_layout(spec, r.system.gpus)
    cfg = sim_module.step_config(spec, r, lay)
    uncached = getattr(cfg.comm, "__wrapped__", cfg.comm)
    ops = build_step_ops(dataclasses.replace(cfg, comm=uncached))
    dp_ops = {op.name for op in ops if op.category.startswith("comm:dp")}
    everyone = []
    for k in range(replicas):
        for op in ops:
            deps = []
            for d in op.deps:
                # A data-parallel collective starts when every replica has produced its bucket.
                deps += [f"r{j}/{d}" for j in range(replicas)] if op.name in dp_ops else [f"r{k}/{d}"]
            everyone.append(
                Op(f"r{k}/{op.name}", f"r{k}/{op.stream}", op.duration_s, op.category, tuple(deps))
            )
    run_ops(everyone)
    return lay.dp


def main() -> None:
    for data, target_s in ((RESNET, 1.0), (GPT3, 5.0)):
        spec = ScenarioSpec.model_validate(data)
        t0 = time.perf_counter()
        sim_module.simulate(spec)
        cold = time.perf_counter() - t0  # first call: builds the fat tree and solves the flows
        fast = median_s(lambda s=spec: sim_module.simulate(s), repeat=3)
        t0 = time.perf_counter()
        dp = _naive(spec, NAIVE_REPLICAS)
        naive = (time.perf_counter() - t0) * dp / NAIVE_REPLICAS
        verdict = "OK" if max(cold, fast) < target_s else "OVER TARGET"
        print(
            f"{spec.name:22s} simulate cold {cold:6.3f} s, median {fast:6.3f} s "
            f"(target < {target_s:.0f} s: {verdict}); "
            f"naive all-replica step ~{naive:8.2f} s ({NAIVE_REPLICAS} of {dp} replicas scaled); "
            f"ratio naive/simulate {naive / fast:8.1f}x"
        )


if __name__ == "__main__":
    main()
