"""Stragglers: a synchronous step waits for the slowest of N servers.

Each server's step time is its deterministic time plus noise with standard deviation
sigma = cv * t (OS jitter, interrupts, infrastructure daemons sharing cores). A synchronous
collective ends when the last server arrives, so the expected step is t + sigma * E[max of N
standard normals]. E[max] is computed exactly by integration; for large N it approaches
sqrt(2 ln N) (3.72 at N = 1,024; fabric-and-network-models.md 4.5, order statistics of the
Gaussian, e.g. David & Nagaraja, "Order Statistics", 3rd ed., 4.5).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

# Per-server noise, coefficient of variation of the step time. Hoefler, Schneider, Lumsdaine,
# "Characterizing the Influence of System Noise on Large-Scale Applications by Simulation", SC'10,
# measured OS noise of roughly 0.01% to a few % of CPU time on production systems; a GPU server
# that also runs its virtual switch, storage client, firewall and telemetry on the host sits at
# the noisy end. These two levels are assumptions within that range, named in the report.
HOST_INFRA_CV = 0.02
QUIET_HOST_CV = 0.005


def expected_max_standard_normal(n: int) -> float:
    """E[max of n i.i.d. N(0, 1)] by numerical integration (0 for n = 1).

    Raises:
        ValueError: ``n`` < 1.
    """
    if n < 1:
        raise ValueError(f"need at least one server, got {n}")
    if n == 1:
        return 0.0
    # Grid +-10 sigma in steps of 5e-4 (numerical choice): the mass of the maximum above 10 sigma
    # is at most n x 7.6e-24 (normal tail), negligible up to millions of servers.
    x = np.linspace(-10.0, 10.0, 40001)
    log_cdf = stats.norm.logcdf(x)
    density = n * np.exp((n - 1) * log_cdf) * stats.norm.pdf(x)
    return float(np.trapezoid(x * density, x))


def straggler_wait_s(step_s: float, cv: float, servers: int) -> float:
    """Expected extra time per step spent waiting for the slowest of ``servers``."""
    return step_s * cv * expected_max_standard_normal(servers)


def host_jitter_cv(infra_cores_on_host: float, host_cores: float) -> float:
    """Noise level from the share of host cores busy with infrastructure work.

    Interpolates between a quiet host and one whose infrastructure load takes a quarter or more
    of its cores (the load where Hoefler et al.'s noisy systems sit); an assumption, documented
    in docs/models/stragglers.md.
    """
    share = min(1.0, infra_cores_on_host / max(host_cores, 1e-9) / 0.25)
    return QUIET_HOST_CV + share * (HOST_INFRA_CV - QUIET_HOST_CV)
