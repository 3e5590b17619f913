"""The planner's schedules and lower bounds, derived by hand for small fleets.

Per-device time with the default durations (docs/models/rollout-planner.md):
d = drain 60 + 1.3e9 B / 5e6 B/s (260) + install 900 + boot 125 + verify 30 + undrain 10 = 1385 s.
"""

from __future__ import annotations

import pytest

from fabrictwin.errors import Infeasible
from fabrictwin.fleet.planner import interleave_by_rack, plan_rollout, split_waves
from fabrictwin.spec.fleet import Constraints, DeviceRef, ImageSpec, RolloutSpec, Window

D = 1385.0
NEW = "bf-bundle-2.9.2-31_25.02_ubuntu-22.04_prod"


def fleet(n: int, racks: int, **extra: str) -> list[DeviceRef]:
    return [
        DeviceRef(name=f"d{i:03d}", bmc_url=f"http://127.0.1.{i + 1}:1", rack=f"r{i % racks}", **extra)
        for i in range(n)
    ]


def spec(**constraints) -> RolloutSpec:  # type: ignore[no-untyped-def]
    return RolloutSpec(
        name="p", target=ImageSpec(version=NEW, uri="http://x/y.bfb"), constraints=Constraints(**constraints)
    )


def test_two_racks_of_four_with_two_at_a_time_take_two_rounds_and_meet_the_bound() -> None:
    plan = plan_rollout(spec(max_unavailable={"rack": 2}, waves=(1.0,)), fleet(8, 2))
    assert plan.makespan_s == pytest.approx(2 * D)
    assert plan.lower_bound_s == pytest.approx(2 * D)
    assert plan.waves[0].binding.startswith("rack=")


def test_canary_waves_hold_one_ten_fifty_and_the_rest_percent_and_span_racks() -> None:
    waves = split_waves(interleave_by_rack(fleet(100, 10)), (0.01, 0.1, 0.5, 1.0))
    assert [len(w) for w in waves] == [1, 9, 40, 50]
    assert len({d.rack for d in waves[1]}) == 9  # the 10% wave samples nine different racks


def test_waves_run_one_after_another_with_the_soak_between_them() -> None:
    plan = plan_rollout(spec(max_unavailable={"rack": 100}, waves=(0.5, 1.0), soak_s=600.0), fleet(4, 1))
    assert [(w.start_s, w.end_s) for w in plan.waves] == [(0.0, D), (D + 600.0, 2 * D + 600.0)]
    assert plan.lower_bound_s == pytest.approx(2 * D + 600.0)


def test_shared_rack_bandwidth_stretches_transfers_and_bounds_the_rack() -> None:
    # One 5 MB/s image link for a rack of four, all four at once: each stream gets 1.25 MB/s,
    # so each transfer takes 1040 s: d = 1385 - 260 + 1040 = 2165 s.
    plan = plan_rollout(spec(max_unavailable={"rack": 4}, waves=(1.0,), rack_image_Bps=5e6), fleet(4, 1))
    assert plan.makespan_s == pytest.approx(D - 260.0 + 1040.0)
    # bound: drain 60 + 4 x 260 s of bytes + install/boot/verify/undrain 1065 = 2165 s
    assert plan.lower_bound_s == pytest.approx(60.0 + 4 * 260.0 + 1065.0)
    assert plan.waves[0].binding == "bandwidth:r0"


def test_a_device_waits_for_the_next_window_it_fits_in() -> None:
    windows = (Window(start_s=0, end_s=2000), Window(start_s=10000, end_s=20000))
    plan = plan_rollout(spec(max_unavailable={"rack": 1}, waves=(1.0,), windows=windows), fleet(2, 1))
    assert sorted(d.start_s for d in plan.devices) == [0.0, 10000.0]
    assert plan.makespan_s == pytest.approx(10000.0 + D)


def test_no_window_long_enough_is_infeasible() -> None:
    with pytest.raises(Infeasible, match="no maintenance window is long enough"):
        plan_rollout(spec(waves=(1.0,), windows=(Window(start_s=0, end_s=600),)), fleet(1, 1))


def test_a_pod_cap_binds_across_racks_and_no_rack_starves() -> None:
    # 3 racks x 4 devices in one pod, pod cap 3, rack cap 4: 12 / 3 = 4 rounds.
    plan = plan_rollout(spec(max_unavailable={"rack": 4, "pod": 3}, waves=(1.0,)), fleet(12, 3, pod="p0"))
    assert plan.makespan_s == pytest.approx(4 * D)
    assert plan.lower_bound_s == pytest.approx(4 * D)


def test_plans_never_beat_their_lower_bound_and_stay_close_on_uniform_fleets() -> None:
    for n, racks, cap in [(2000, 50, 4), (500, 16, 3), (97, 7, 2)]:
        plan = plan_rollout(spec(max_unavailable={"rack": cap}), fleet(n, racks))
        assert plan.lower_bound_s <= plan.makespan_s + 1e-6
        assert plan.makespan_s <= 1.10 * plan.lower_bound_s, (n, racks, cap)
