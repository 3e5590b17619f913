"""Failures, checkpoints and goodput.

Job-interrupting failures arrive as a Poisson process with rate lambda * G per hour (G GPUs).
Checkpoints of cost delta seconds are written every tau seconds of work; after a failure the job
restarts (R seconds) from the last checkpoint. Young's first-order optimum is
tau = sqrt(2 * delta * M) (Young, CACM 17(9), 1974); Daly's higher-order optimum (Daly, "A higher
order estimate of the optimum checkpoint interval for restart dumps", FGCS 22(3), 2006, eq. 37) is
tau = sqrt(2 delta M) * [1 + sqrt(delta / 2M) / 3 + delta / 18M] - delta for delta < 2M, and the
expected wall-clock time to finish T_s seconds of work is (Daly 2006, eq. 20):

    T_w = M * exp(R / M) * (exp((tau + delta) / M) - 1) * T_s / tau
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Goodput:
    """Time to train under failures."""

    work_s: float
    """Failure-free time of the training work."""
    wall_s: float
    """Expected wall-clock time including checkpoints, restarts and lost work."""
    mtbf_s: float
    """Mean time between job interruptions."""
    checkpoint_interval_s: float
    checkpoint_s: float

    @property
    def goodput(self) -> float:
        """Share of wall-clock time that is useful training."""
        return self.work_s / self.wall_s if self.wall_s > 0 else 1.0


def daly_interval(checkpoint_s: float, mtbf_s: float) -> float:
    """Daly's optimum checkpoint interval (seconds of work between checkpoints)."""
    if math.isinf(mtbf_s):
        return math.inf
    if checkpoint_s >= 2.0 * mtbf_s:
        return mtbf_s
    ratio = checkpoint_s / (2.0 * mtbf_s)
    return math.sqrt(2.0 * checkpoint_s * mtbf_s) * (1 + math.sqrt(ratio) / 3 + ratio / 9) - checkpoint_s


def expected_wall_time(
    work_s: float,
    *,
    failures_per_gpu_hour: float,
    gpus: int,
    checkpoint_s: float,
    restart_s: float,
    interval_s: float | None = None,
) -> Goodput:
    """Expected wall-clock time of ``work_s`` seconds of training (Daly 2006, eq. 20).

    Raises:
        ValueError: negative inputs.
    """
    if min(work_s, failures_per_gpu_hour, checkpoint_s, restart_s) < 0 or gpus < 1:
        raise ValueError("times, rates and GPU count must be non-negative (gpus >= 1)")
    rate = failures_per_gpu_hour * gpus / 3600.0
    mtbf = math.inf if rate == 0 else 1.0 / rate
    if math.isinf(mtbf):
        return Goodput(work_s, work_s, mtbf, math.inf, checkpoint_s)
    tau = interval_s if interval_s else daly_interval(checkpoint_s, mtbf)
    tau = max(tau, 1e-9)
    wall = mtbf * math.exp(restart_s / mtbf) * math.expm1((tau + checkpoint_s) / mtbf) * work_s / tau
    return Goodput(work_s, wall, mtbf, tau, checkpoint_s)
