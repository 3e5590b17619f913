"""The event clock (ordering, cancellation, scaled driving) and the shared rack link."""

from __future__ import annotations

import pytest

from fabrictwin.emulator.clock import NORMAL, URGENT, ScaledDriver, VirtualClock
from fabrictwin.emulator.links import SharedLink, Transfer, water_fill


def test_events_at_the_same_instant_fire_by_priority_then_insertion_order():
    clock = VirtualClock()
    fired: list[str] = []
    clock.schedule(5.0, lambda: fired.append("b"))
    clock.schedule(5.0, lambda: fired.append("c"))
    clock.schedule(5.0, lambda: fired.append("a"), priority=URGENT)
    clock.schedule(1.0, lambda: fired.append("first"), priority=NORMAL)
    clock.run()
    assert fired == ["first", "a", "b", "c"]
    assert clock.now == 5.0


def test_a_cancelled_timer_never_fires_and_time_still_advances():
    clock = VirtualClock()
    fired: list[int] = []
    timer = clock.schedule(2.0, lambda: fired.append(1))
    timer.cancel()
    assert clock.advance(10.0) == 0
    assert fired == [] and clock.now == 10.0


def test_the_past_cannot_be_scheduled():
    with pytest.raises(ValueError, match="past"):
        VirtualClock().schedule(-1.0, lambda: None)


def test_the_scaled_driver_maps_wall_seconds_to_virtual_seconds_and_adds_jumps():
    wall = [100.0]
    clock = VirtualClock()
    driver = ScaledDriver(clock, 600.0, wall=lambda: wall[0])
    fired: list[float] = []
    clock.schedule(1200.0, lambda: fired.append(clock.now))
    wall[0] = 101.0  # one wall second = 600 virtual seconds
    driver.catch_up()
    assert clock.now == 600.0 and fired == []
    driver.jump(600.0)
    assert fired == [1200.0]
    wall[0] = 102.0
    driver.catch_up()
    assert clock.now == 1800.0  # 600 + 600 jumped + 600


def test_a_zero_time_scale_leaves_the_clock_to_explicit_advances():
    clock = VirtualClock()
    driver = ScaledDriver(clock, 0.0, wall=lambda: 1e9)
    driver.catch_up()
    assert clock.now == 0.0


def test_water_filling_gives_capped_flows_their_cap_and_splits_the_rest_equally():
    # 10 units of capacity; caps 1, 5, 5: the small flow keeps 1, the others split 9.
    assert water_fill([1.0, 5.0, 5.0], 10.0) == [1.0, 4.5, 4.5]
    assert water_fill([5.0, 5.0], 100.0) == [5.0, 5.0]


def test_a_second_transfer_on_the_rack_link_slows_the_first_and_its_finish_moves():
    clock = VirtualClock()
    link = SharedLink(clock, capacity_Bps=6.0)
    done: dict[str, float] = {}
    a = Transfer(60.0, cap_Bps=5.0, on_stop=lambda: done.setdefault("a", clock.now))
    b = Transfer(30.0, cap_Bps=5.0, on_stop=lambda: done.setdefault("b", clock.now))
    link.start(a)
    clock.advance_to(2.0)  # a alone: 10 bytes moved at 5 B/s
    link.start(b)  # both at 3 B/s; b needs 10 s, a has 50 left
    clock.run()
    # b ends at 12 s; a moved 10 + 30 = 40 by then, the last 20 at its 5 B/s cap: 4 s more.
    assert done == {"b": 12.0, "a": 16.0}
    assert a.fraction_at(clock.now) == 1.0
