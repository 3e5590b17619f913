"""Mode changes honour the cold power cycle and are verified; inventory reads versions and reports drift."""

from __future__ import annotations

import asyncio

import pytest

from fabrictwin.errors import SpecError
from fabrictwin.fleet.clock import ManualClock
from fabrictwin.fleet.inventory import drift, expand_range, inventory
from fabrictwin.fleet.modes import ModeResult, set_mode
from fabrictwin.fleet.redfish import Http
from fabrictwin.spec.fleet import DesiredState

from .fakebmc import NEW, NIC_OLD, OLD, FakeFleet, image_server
from .helpers import refs_for


def change(fleet: FakeFleet, mode: str) -> list[ModeResult]:
    async def go() -> list[ModeResult]:
        async with Http(16, transport=image_server(fleet)) as http:
            clock = ManualClock(fleet.now, fleet.advance)
            return await set_mode(http, refs_for(fleet), mode, "root", "0penBmc", clock, batch=2)

    return asyncio.run(go())


def test_nic_mode_is_staged_then_applied_by_one_cold_cycle_and_read_back() -> None:
    fleet = FakeFleet(3)
    results = change(fleet, "NicMode")
    assert [(r.status, r.before, r.after, r.power_cycles) for r in results] == [
        ("changed", "DpuMode", "NicMode", 1)
    ] * 3
    assert all(d.mode == "NicMode" for d in fleet.devices)


def test_a_warm_only_power_cycle_falls_back_to_ac_powercycle() -> None:
    fleet = FakeFleet(2)
    fleet.devices[1].powercycle_is_warm = True
    results = change(fleet, "NicMode")
    assert [(r.status, r.power_cycles) for r in results] == [("changed", 1), ("changed", 2)]


def test_devices_already_in_the_mode_are_not_cycled() -> None:
    fleet = FakeFleet(2)
    results = change(fleet, "DpuMode")
    assert [r.status for r in results] == ["already", "already"]
    assert sum(d.power_cycles for d in fleet.devices) == 0


def test_zero_trust_disables_the_host_rshim_after_the_cycle() -> None:
    fleet = FakeFleet(1)
    [result] = change(fleet, "ZeroTrust")
    assert (result.status, fleet.devices[0].host_rshim) == ("changed", "Disabled")


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(SpecError, match="unknown mode 'NICmode'"):
        change(FakeFleet(1), "NICmode")


def test_inventory_reads_versions_and_drift_names_each_difference() -> None:
    fleet = FakeFleet(3)
    fleet.devices[1].os = NEW
    fleet.unreachable.add(2)

    async def go():  # type: ignore[no-untyped-def]
        async with Http(8, transport=image_server(fleet)) as http:
            return await inventory(http, refs_for(fleet), "root", "0penBmc")

    records = asyncio.run(go())
    assert records[0].versions["DPU_OS"] == OLD and records[0].versions["DPU_NIC"] == NIC_OLD
    assert (records[0].generation, records[0].mode, records[0].arm_state) == ("BF3", "DpuMode", "OsIsRunning")
    assert not records[2].reachable and "unreachable" in records[2].error
    report = drift(records, DesiredState(os_version=NEW))
    assert report["dpu0000"] == [f"DPU_OS {OLD} != {NEW}"]
    assert "dpu0001" not in report
    assert report["dpu0002"][0].startswith("unreachable")


def test_a_loopback_range_expands_and_a_public_one_is_refused() -> None:
    assert expand_range("127.0.1.1-127.0.1.3:18000") == [
        "http://127.0.1.1:18000",
        "http://127.0.1.2:18000",
        "http://127.0.1.3:18000",
    ]
    with pytest.raises(SpecError, match="not on loopback"):
        expand_range("10.0.0.1-10.0.0.5:443")
