"""Small pieces: state records round-trip, admission caps, window arithmetic, manifest parsing."""

from __future__ import annotations

import pytest

from fabrictwin.fleet.admission import Admission, next_window_start, open_time_reached, window_allows
from fabrictwin.fleet.preflight import parse_manifest
from fabrictwin.fleet.state import DeviceState
from fabrictwin.spec.fleet import Constraints, DeviceRef, Window


def dev(name: str, rack: str = "r1", job: str = "") -> DeviceRef:
    return DeviceRef(name=name, bmc_url="http://x", rack=rack, job=job)


def test_a_state_survives_its_record_and_an_unknown_key_is_refused() -> None:
    s = DeviceState("d1", 2).to("transfer", 10.0, 40.0, task_uri="/redfish/v1/TaskService/Tasks/3", pushes=1)
    assert DeviceState.from_record(s.to_record()) == s
    assert (s.since, s.next_at, s.attempts) == (10.0, 40.0, 0)
    with pytest.raises(TypeError):
        DeviceState.from_record({**s.to_record(), "colour": "red"})


def test_transitions_return_new_states_and_leave_the_old_one_alone() -> None:
    s = DeviceState("d1", 0)
    t = s.later(5.0, attempts=2)
    assert (s.next_at, s.attempts) == (0.0, 0) and (t.next_at, t.attempts) == (5.0, 2)
    with pytest.raises(AttributeError):
        s.phase = "done"  # type: ignore[misc]


def test_caps_count_per_value_and_an_empty_value_is_not_limited() -> None:
    adm = Admission({"rack": 1, "job": 1})
    a, b, c = dev("a", job="j1"), dev("b", rack="r2", job="j1"), dev("c", rack="r2")
    adm.admit(a)
    assert not adm.can_admit(b) and adm.blocking_domain(b) == "job"
    assert adm.can_admit(c)  # no job: only its rack counts
    assert adm.release(a) == [("rack", "r1"), ("job", "j1")]
    assert adm.can_admit(b)


def test_window_arithmetic() -> None:
    windows = (Window(start_s=100, end_s=200), Window(start_s=300, end_s=400))
    assert window_allows(windows, 100, 100) and not window_allows(windows, 150, 60)
    assert next_window_start(windows, 150) == 300 and next_window_start(windows, 350) is None
    assert open_time_reached(windows, 150) == 350 and open_time_reached(windows, 250) == float("inf")
    assert open_time_reached((), 42.0) == 42.0


def test_bad_constraints_are_refused() -> None:
    with pytest.raises(ValueError, match="waves must be increasing"):
        Constraints(waves=(0.5, 0.1, 1.0))
    with pytest.raises(ValueError, match="max_unavailable values must be >= 1"):
        Constraints(max_unavailable={"rack": 0})
    with pytest.raises(ValueError, match="end_s must be after start_s"):
        Window(start_s=10, end_s=5)


def test_an_image_manifest_is_read_and_a_binary_bfb_has_none() -> None:
    assert parse_manifest("# header\nname: x.bfb\ngeneration: BF3\nos: bf-bundle-2.9.2\n") == {
        "name": "x.bfb",
        "generation": "BF3",
        "os": "bf-bundle-2.9.2",
    }
    assert parse_manifest("\x00\x01binary stream") == {}
