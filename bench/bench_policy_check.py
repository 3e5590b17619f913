"""Benchmark of ``policy check`` (issue 7). Run: .venv/bin/python bench/bench_policy_check.py

Prints the median wall time of the exhaustive symbolic check and the ratio against a
straightforward baseline run in the same process: the same exhaustive answer obtained by
walking one concrete packet per header-space atom through the tables (``trace.walk``), i.e.
every (source VM, destination atom, protocol, port atom) representative. The baseline only
sends from each VM's own address (the symbolic check also tries every source-address atom
against anti-spoofing), so the ratio understates the gap.

1. ``examples/policy/cloud.yaml`` (3 tenants, 8 VMs): both methods in full;
2. a generated policy with 4 tenants, 60 rules, 24 VMs on 6 servers (target < 1 s): the
   baseline walks a fixed random sample of atoms and is extrapolated to all of them (marked).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from _timing import median_s
from fabrictwin.fleet.policy import check_policy, load_policy
from fabrictwin.fleet.policy.compile import PolicyIndex, compile_policy
from fabrictwin.fleet.policy.synthetic import synthetic_policy
from fabrictwin.fleet.policy.tables import PROTOCOLS, Packet
from fabrictwin.fleet.policy.trace import walk
from fabrictwin.fleet.policy.verify import _grid
from fabrictwin.spec.policy import PolicySpec

ROOT = Path(__file__).resolve().parents[1]


def generated(seed: int = 7) -> PolicySpec:
    """The synthetic 4-tenant, 60-rule policy (no grants)."""
    return PolicySpec.model_validate(synthetic_policy(seed))


def concrete_points(policy: PolicySpec) -> list[tuple[Any, Packet]]:
    """One packet per (VM, destination atom, protocol, port atom): the per-atom baseline's work."""
    index, pipes = PolicyIndex.of(policy), compile_policy(policy)
    grid = _grid(policy, pipes)
    return [
        (ref, Packet(ref.ip, int(d), proto, int(q)))
        for ref in index.vms.values()
        for d in grid.dst_starts
        for proto in PROTOCOLS
        for q in grid.port_starts
    ]


def baseline(policy: PolicySpec, sample: int | None) -> tuple[float, int]:
    """Seconds to walk every atom's packet concretely (or a sample, extrapolated); atoms."""
    index, pipes = PolicyIndex.of(policy), compile_policy(policy)
    points = concrete_points(policy)
    chosen = points
    if sample is not None and sample < len(points):
        rng = np.random.default_rng(0)
        chosen = [points[int(i)] for i in rng.choice(len(points), size=sample, replace=False)]
    start = time.perf_counter()
    for ref, pkt in chosen:
        walk(index, pipes, ref, pkt)
    elapsed = time.perf_counter() - start
    return elapsed * len(points) / len(chosen), len(points)


def main() -> None:
    cases = [
        ("cloud.yaml (3 tenants)", load_policy(ROOT / "examples/policy/cloud.yaml"), None),
        ("generated (4 tenants, 60 rules)", generated(), 20_000),
    ]
    for name, policy, sample in cases:
        check_policy(policy)  # warm imports and caches
        symbolic = median_s(lambda p=policy: check_policy(p), repeat=5)
        base, atoms = baseline(policy, sample)
        mark = " (extrapolated from a 20,000-packet sample)" if sample else ""
        print(
            f"{name}: symbolic check median {symbolic * 1e3:.1f} ms; per-atom concrete walks "
            f"{base:.2f} s over {atoms:,} packets{mark}; speed-up x{base / symbolic:.0f}"
        )


if __name__ == "__main__":
    main()
