"""Order statistics of stragglers and the Young/Daly goodput model."""

from __future__ import annotations

import math

import pytest

from fabrictwin.timeline.failures import daly_interval, expected_wall_time
from fabrictwin.timeline.stragglers import expected_max_standard_normal, host_jitter_cv, straggler_wait_s


@pytest.mark.parametrize(
    ("n", "expected"),
    # Exact values: 1/sqrt(pi), 3/(2 sqrt(pi)); n = 10 from order-statistics tables
    # (Harter 1961, "Expected values of normal order statistics", Biometrika 48): 1.53875.
    [(2, 1 / math.sqrt(math.pi)), (3, 1.5 / math.sqrt(math.pi)), (10, 1.53875)],
)
def test_expected_maximum_of_normals_matches_tables(n: int, expected: float) -> None:
    assert expected_max_standard_normal(n) == pytest.approx(expected, abs=1e-4)


def test_the_gaussian_tail_bound_sits_above_the_exact_maximum_at_scale() -> None:
    # sqrt(2 ln N) (fabric-and-network-models.md 4.5) is the asymptote, approached from above.
    exact = expected_max_standard_normal(16384)
    assert 3.6 < exact < math.sqrt(2 * math.log(16384))


def test_one_server_never_waits_for_another() -> None:
    assert straggler_wait_s(1.0, 0.05, 1) == 0.0


def test_a_busier_host_is_noisier() -> None:
    assert host_jitter_cv(0.0, 100) < host_jitter_cv(10.0, 100) < host_jitter_cv(50.0, 100)


def test_without_failures_wall_time_is_the_work() -> None:
    g = expected_wall_time(3600.0, failures_per_gpu_hour=0.0, gpus=1024, checkpoint_s=60, restart_s=600)
    assert g.wall_s == 3600.0
    assert g.goodput == 1.0


def test_daly_interval_approaches_young_when_checkpoints_are_cheap() -> None:
    young = math.sqrt(2 * 10.0 * 1e6)
    assert daly_interval(10.0, 1e6) == pytest.approx(young - 10.0, rel=1e-2)


def test_wall_time_follows_daly_equation_by_hand() -> None:
    # M = 1 / (1e-5 * 1000 / 3600) = 360,000 s; tau = 3600, delta = 60, R = 600, Ts = 36,000.
    g = expected_wall_time(
        36000.0, failures_per_gpu_hour=1e-5, gpus=1000, checkpoint_s=60.0, restart_s=600.0, interval_s=3600.0
    )
    m = 360000.0
    expected = m * math.exp(600 / m) * (math.exp(3660 / m) - 1) * 36000 / 3600
    assert g.wall_s == pytest.approx(expected, rel=1e-12)
    assert 0.97 < g.goodput < 0.99


def test_the_daly_optimum_beats_a_bad_interval() -> None:
    kwargs = dict(failures_per_gpu_hour=2e-5, gpus=16384, checkpoint_s=120.0, restart_s=600.0)
    best = expected_wall_time(1e6, **kwargs)  # type: ignore[arg-type]
    for tau in (60.0, 20000.0):
        assert expected_wall_time(1e6, interval_s=tau, **kwargs).wall_s > best.wall_s  # type: ignore[arg-type]


def test_llama3_scale_goodput_is_near_the_published_90_percent() -> None:
    # Llama 3 405B: 16,384 H100, 419 unexpected interruptions in 54 days, "> 90% effective
    # training time" (fabric-and-network-models.md 4.5). Checkpoint of 405B x 14 B at 2 TB/s
    # (Tectonic, F-01), restart 10 min.
    g = expected_wall_time(
        30 * 86400.0,
        failures_per_gpu_hour=419 / (54 * 24 * 16384),
        gpus=16384,
        checkpoint_s=14 * 405e9 / 2e12,
        restart_s=600.0,
    )
    assert 0.90 <= g.goodput <= 0.97
