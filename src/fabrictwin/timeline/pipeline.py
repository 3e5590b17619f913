"""Pipeline schedules: the order in which one stage runs forward and backward passes.

1F1B (PipeDream-Flush, Narayanan et al. SC'21 section 2.2.1): stage s of p runs
min(p - s - 1, m) warm-up forwards, then alternates one forward and one backward, then drains the
remaining backwards. Interleaved 1F1B (same paper, 2.2.2) gives each stage v model chunks; the
k-th forward on a stage runs chunk (k mod p*v) // p of micro-batch (k // (p*v)) * p + k mod p,
backwards visit the chunks in reverse, and warm-up is (p - s - 1) * 2 + (v - 1) * p passes. The
bubble that results, (p - 1) / (v * m) of the ideal time, is not imposed: it emerges from
simulating these orders with their data dependencies (``timeline.step``).
"""

from __future__ import annotations

from typing import Literal

from fabrictwin.errors import Infeasible

Pass = tuple[Literal["F", "B"], int, int]
"""(direction, chunk, micro-batch)."""


def _chunk_and_mb(k: int, p: int, v: int, forward: bool) -> tuple[int, int]:
    in_group = k % (p * v)
    chunk = in_group // p
    if not forward:
        chunk = v - 1 - chunk
    mb = (k // (p * v)) * p + k % p
    return chunk, mb


def stage_order(p: int, v: int, m: int, stage: int) -> list[Pass]:
    """The passes of ``stage`` in execution order.

    Raises:
        Infeasible: interleaving (v > 1) with a micro-batch count not divisible by p.
    """
    if v > 1 and m % p != 0:
        raise Infeasible(f"interleaved schedule needs micro-batches ({m}) divisible by pipeline stages ({p})")
    total = m * v
    if v == 1:
        warmup = min(p - stage - 1, total)
    else:
        warmup = min((p - stage - 1) * 2 + (v - 1) * p, total)
    order: list[Pass] = []
    f = b = 0
    for _ in range(warmup):
        order.append(("F", *_chunk_and_mb(f, p, v, True)))
        f += 1
    while f < total:
        order.append(("F", *_chunk_and_mb(f, p, v, True)))
        f += 1
        order.append(("B", *_chunk_and_mb(b, p, v, False)))
        b += 1
    while b < total:
        order.append(("B", *_chunk_and_mb(b, p, v, False)))
        b += 1
    return order


def bubble_fraction(p: int, v: int, m: int) -> float:
    """Analytic bubble over ideal time, (p - 1) / (v * m) (Narayanan et al. SC'21, eq. 1 and 2.2.2)."""
    return (p - 1) / (v * m)
