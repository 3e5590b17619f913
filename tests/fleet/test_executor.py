"""The executor rolls a BFB over a fake fleet in virtual time: constraints hold, failures roll back,
a crash between the push and storing it never flashes a device twice, bad input changes nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from fabrictwin.errors import DeviceError, SpecError
from fabrictwin.fleet.clock import ManualClock
from fabrictwin.fleet.executor import Credentials, Executor, RolloutResult
from fabrictwin.fleet.planner import device_duration_s, plan_rollout
from fabrictwin.fleet.redfish import Http
from fabrictwin.fleet.store import Store

from .fakebmc import NEW, OLD, FakeFleet, image_server
from .helpers import max_concurrent_unavailable, refs_for, rollout_spec

CREDS = Credentials("root", "0penBmc")


def run(
    fleet: FakeFleet,
    store: Store,
    spec,
    *,
    resume: bool = False,
    password: str = "0penBmc",
    refs=None,
    on_tick=None,
) -> RolloutResult:  # type: ignore[no-untyped-def]
    async def go() -> RolloutResult:
        async with Http(64, transport=image_server(fleet)) as http:
            clock = ManualClock(fleet.now, on_advance=fleet.advance)
            ex = Executor(
                spec,
                refs or refs_for(fleet),
                store,
                http,
                clock,
                Credentials("root", password),
                on_tick=on_tick,
            )
            return await (ex.resume() if resume else ex.start())

    return asyncio.run(go())


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Store:
    return Store(f"sqlite:///{tmp_path / 'fleet.db'}")


def test_a_small_rollout_finishes_every_device_once_within_caps_and_near_the_bound(store: Store) -> None:
    fleet = FakeFleet(16, racks=4)
    spec = rollout_spec(max_unavailable={"rack": 2})
    result = run(fleet, store, spec)
    assert result.status == "completed"
    assert result.phases == {"done": 16}
    assert [d.pushes for d in fleet.devices] == [1] * 16
    assert all(d.os == NEW for d in fleet.devices)
    racks = {f"dpu{d.index:04d}": d.rack for d in fleet.devices}
    assert max(max_concurrent_unavailable(store.audit("r1"), racks).values()) <= 2
    plan = plan_rollout(spec, refs_for(fleet))
    assert result.makespan_s <= 1.10 * plan.lower_bound_s, (result.makespan_s, plan.lower_bound_s)


def test_an_install_failure_rolls_back_to_the_previous_bfb_with_the_reason(sqlite_store: Store) -> None:
    fleet = FakeFleet(6, racks=2)
    fleet.devices[3].fail_install = True
    result = run(fleet, sqlite_store, rollout_spec(max_unavailable={"rack": 3}, failure_budget=0.5))
    assert result.phases == {"done": 5, "rolled_back": 1}
    assert "install did not finish" in result.reasons["dpu0003"]
    bad = fleet.devices[3]
    assert bad.pushed_images == ["http://images.test/new.bfb", "http://images.test/old.bfb"]
    assert bad.os == OLD


def test_without_a_previous_image_a_failed_device_is_quarantined_and_stays_drained(
    sqlite_store: Store,
) -> None:
    fleet = FakeFleet(4, racks=1)
    fleet.devices[0].fail_install = True
    result = run(
        fleet, sqlite_store, rollout_spec(previous=False, max_unavailable={"rack": 2}, failure_budget=0.5)
    )
    assert result.phases == {"done": 3, "quarantined": 1}
    actions = [e.action for e in sqlite_store.audit("r1") if e.device == "dpu0000"]
    assert "quarantine" in actions and "undrain" not in actions


def test_staged_nic_firmware_gets_one_host_power_cycle(sqlite_store: Store) -> None:
    fleet = FakeFleet(3, racks=1)
    fleet.devices[1].nic_needs_cycle = True
    result = run(fleet, sqlite_store, rollout_spec(max_unavailable={"rack": 3}))
    assert result.phases == {"done": 3}
    assert [d.power_cycles for d in fleet.devices] == [0, 1, 0]


def test_the_failure_budget_halts_new_waves_and_leaves_the_rest_pending(sqlite_store: Store) -> None:
    fleet = FakeFleet(20, racks=2)
    for d in fleet.devices:
        d.fail_install = True
    result = run(
        fleet, sqlite_store, rollout_spec(max_unavailable={"rack": 10}, failure_budget=0.05, waves=(0.1, 1.0))
    )
    assert result.status == "halted"
    assert result.phases["pending"] == 18
    assert sqlite_store.rollout("r1").status == "halted"


def test_a_crash_after_the_push_but_before_it_is_stored_does_not_flash_again(store: Store) -> None:
    fleet = FakeFleet(8, racks=2)
    spec = rollout_spec(max_unavailable={"rack": 4}, waves=(1.0,))
    original = store.save

    class Killed(Exception):
        pass

    def save_then_die(rollout, states, entries):  # type: ignore[no-untyped-def]
        if any(e.action == "push" for e in entries):
            raise Killed  # the POSTs went out; the process dies before the commit
        original(rollout, states, entries)

    store.save = save_then_die  # type: ignore[method-assign]
    with pytest.raises(Killed):
        run(fleet, store, spec)
    assert sum(d.pushes for d in fleet.devices) == 8
    store.save = original  # type: ignore[method-assign]
    result = run(fleet, store, spec, resume=True)
    assert result.phases == {"done": 8}
    assert [d.pushes for d in fleet.devices] == [1] * 8
    assert sum(1 for e in store.audit("r1") if e.action == "adopt_task") == 8


def test_bad_credentials_name_the_device_and_change_nothing(sqlite_store: Store) -> None:
    fleet = FakeFleet(3)
    with pytest.raises(DeviceError, match=r"dpu0000.*(HTTP 401)"):
        run(fleet, sqlite_store, rollout_spec(), password="wrong")
    assert sum(d.pushes for d in fleet.devices) == 0 and sqlite_store.rollouts() == []


def test_an_unreachable_bmc_is_named_and_nothing_changes(sqlite_store: Store) -> None:
    fleet = FakeFleet(3)
    fleet.unreachable.add(2)
    with pytest.raises(DeviceError, match=r"1 of 3 devices failed preflight: dpu0002 .*unreachable"):
        run(fleet, sqlite_store, rollout_spec())
    assert sum(d.pushes for d in fleet.devices) == 0 and sqlite_store.rollouts() == []


def test_an_unknown_version_or_missing_image_is_refused_before_any_change(sqlite_store: Store) -> None:
    from fabrictwin.spec.fleet import ImageSpec

    with pytest.raises(ValueError, match="unknown BFB version 'bf-bundel-9'"):
        ImageSpec(version="bf-bundel-9", uri="http://images.test/x.bfb")
    fleet = FakeFleet(2)
    spec = rollout_spec().model_copy(
        update={"target": ImageSpec(version=NEW, uri="http://images.test/nope.bfb")}
    )
    with pytest.raises(SpecError, match="not found"):
        run(fleet, sqlite_store, spec)
    assert sum(d.pushes for d in fleet.devices) == 0 and sqlite_store.rollouts() == []


def test_a_wrong_generation_image_is_refused_naming_the_device(sqlite_store: Store) -> None:
    from fabrictwin.spec.fleet import ImageSpec

    fleet = FakeFleet(2)
    bf2 = ImageSpec(version=NEW, uri="http://images.test/bf2.bfb", generation="BF2")
    with pytest.raises(DeviceError, match=r"dpu0000: target image .* is for BF2 but the device is a BF3"):
        run(fleet, sqlite_store, rollout_spec().model_copy(update={"target": bf2}))
    with pytest.raises(SpecError, match="built for BF2, spec says BF3"):
        wrong = ImageSpec(version=NEW, uri="http://images.test/bf2.bfb")
        run(fleet, sqlite_store, rollout_spec().model_copy(update={"target": wrong}))
    assert sum(d.pushes for d in fleet.devices) == 0 and sqlite_store.rollouts() == []


def unavailable_s(entries, device: str) -> float:  # type: ignore[no-untyped-def]
    """Seconds from 'admit' to 'undrain' of one device, read from the audit log."""
    admit = next(e.t_s for e in entries if e.device == device and e.action == "admit")
    return next(e.t_s for e in entries if e.device == device and e.action == "undrain") - admit


@pytest.mark.slow
def test_two_thousand_dpus_with_two_percent_install_failures_hold_every_constraint_and_near_the_bound(
    sqlite_store: Store,
) -> None:
    import random

    fleet = FakeFleet(2000, racks=50)
    failing = random.Random(7).sample(fleet.devices, 40)  # 2 %
    for d in failing[:20]:
        d.fail_task = True  # installer rejects the image (INTEGRITY_FAIL); the Arm OS is untouched
    for d in failing[20:]:
        d.fail_nic = True  # partial install: NIC firmware update failed; rollback = full reinstall
    spec = rollout_spec(max_unavailable={"rack": 4})
    result = run(fleet, sqlite_store, spec)
    assert result.status == "completed"
    assert result.phases == {"done": 1960, "rolled_back": 40}  # no device in an unknown state
    names = {f"dpu{d.index:04d}" for d in failing}
    assert set(result.reasons) == names
    assert all(d.os == (OLD if d in failing else NEW) for d in fleet.devices)
    audit = sqlite_store.audit("r1")
    racks = {f"dpu{d.index:04d}": d.rack for d in fleet.devices}
    assert max(max_concurrent_unavailable(audit, racks).values()) <= 4
    # The bound in hindsight: the planner's lower bound once it knows how much longer each failed
    # device was unavailable (its rollback is real work no schedule can avoid).
    nominal = device_duration_s(spec, spec.durations.stream_Bps, power_cycle=False)
    extra = {n: max(0.0, unavailable_s(audit, n) - nominal) for n in names}
    bound = plan_rollout(spec, refs_for(fleet), extra_s=extra).lower_bound_s
    assert result.makespan_s <= 1.10 * bound, (result.makespan_s, bound)


@pytest.mark.slow
def test_failures_the_installer_rejects_cost_almost_nothing_against_the_failure_free_bound(
    sqlite_store: Store,
) -> None:
    import random

    fleet = FakeFleet(1000, racks=25)
    for d in random.Random(3).sample(fleet.devices, 20):
        d.fail_task = True
    spec = rollout_spec(max_unavailable={"rack": 4})
    result = run(fleet, sqlite_store, spec)
    assert result.phases == {"done": 980, "rolled_back": 20}
    assert all(d.pushes == 1 for d in fleet.devices)  # rolling back needed no second flash
    assert result.makespan_s <= 1.10 * plan_rollout(spec, refs_for(fleet)).lower_bound_s


def test_devices_start_only_when_they_fit_a_maintenance_window(sqlite_store: Store) -> None:
    from fabrictwin.spec.fleet import Window

    fleet = FakeFleet(2, racks=1)
    windows = (Window(start_s=0, end_s=2000), Window(start_s=5000, end_s=9000))
    result = run(
        fleet, sqlite_store, rollout_spec(max_unavailable={"rack": 1}, waves=(1.0,), windows=windows)
    )
    assert result.phases == {"done": 2}
    admits = sorted(e.t_s for e in sqlite_store.audit("r1") if e.action == "admit")
    assert admits[0] == 0.0 and admits[1] == 5000.0


def test_a_tenant_cap_holds_across_racks(sqlite_store: Store) -> None:
    fleet = FakeFleet(12, racks=4)
    refs = [
        r.model_copy(update={"tenant": "acme" if i % 2 else "globex"}) for i, r in enumerate(refs_for(fleet))
    ]
    result = run(
        fleet, sqlite_store, rollout_spec(max_unavailable={"rack": 3, "tenant": 2}, waves=(1.0,)), refs=refs
    )
    assert result.phases == {"done": 12}
    peak = max_concurrent_unavailable(sqlite_store.audit("r1"), {r.name: r.tenant for r in refs})
    assert peak == {"acme": 2, "globex": 2}


def test_a_halted_rollout_resumes_to_halted_without_admitting_more(sqlite_store: Store) -> None:
    fleet = FakeFleet(10, racks=1)
    for d in fleet.devices:
        d.fail_task = True
    spec = rollout_spec(max_unavailable={"rack": 10}, failure_budget=0.1, waves=(0.3, 1.0))
    first = run(fleet, sqlite_store, spec)
    again = run(fleet, sqlite_store, spec, resume=True)
    assert first.status == again.status == "halted"
    assert again.phases.get("pending") == first.phases.get("pending") == 7


def test_a_malformed_bmc_answer_fails_that_device_only(sqlite_store: Store) -> None:
    import httpx

    fleet = FakeFleet(3, racks=1)
    original = fleet.handle

    def garbled(request: httpx.Request) -> httpx.Response:
        if request.url.host == "bmc-1.test" and request.url.path.endswith("SimpleUpdate"):
            return httpx.Response(202, content=b"<html>not json</html>")
        return original(request)

    fleet.handle = garbled  # type: ignore[method-assign]
    result = run(
        fleet, sqlite_store, rollout_spec(max_unavailable={"rack": 3}, waves=(1.0,), failure_budget=0.5)
    )
    assert result.phases == {"done": 2, "rolled_back": 1}
    assert "unexpected answer from the BMC" in result.reasons["dpu0001"]


def test_starting_a_rollout_under_a_taken_name_contacts_no_device(sqlite_store: Store) -> None:
    fleet = FakeFleet(2)
    run(fleet, sqlite_store, rollout_spec(waves=(1.0,)))
    before = fleet.requests
    with pytest.raises(SpecError, match="already exists"):
        run(fleet, sqlite_store, rollout_spec(waves=(1.0,)))
    assert fleet.requests == before


def test_a_pod_cap_shared_by_racks_is_filled_fairly_and_meets_the_bound(sqlite_store: Store) -> None:
    # 3 racks x 4 DPUs in one pod, pod cap 3: 4 rounds if no rack is left behind.
    fleet = FakeFleet(12, racks=3)
    refs = [r.model_copy(update={"pod": "p0"}) for r in refs_for(fleet)]
    spec = rollout_spec(max_unavailable={"rack": 4, "pod": 3}, waves=(1.0,))
    result = run(fleet, sqlite_store, spec, refs=refs)
    assert result.phases == {"done": 12}
    assert result.makespan_s <= 1.10 * plan_rollout(spec, refs).lower_bound_s


def test_a_busy_bmc_is_retried_later_and_the_device_still_finishes(sqlite_store: Store) -> None:
    import httpx

    fleet = FakeFleet(2, racks=1)
    original, busy = fleet.handle, {"left": 2}

    def sometimes_busy(request: httpx.Request) -> httpx.Response:
        if request.url.host == "bmc-0.test" and request.url.path.endswith("SimpleUpdate") and busy["left"]:
            busy["left"] -= 1
            info = [{"MessageId": "Base.1.18.1.ResourceInUse", "Message": "An update is in progress"}]
            return httpx.Response(
                400, json={"error": {"code": "Base.1.18.1.ResourceInUse", "@Message.ExtendedInfo": info}}
            )
        return original(request)

    fleet.handle = sometimes_busy  # type: ignore[method-assign]
    result = run(fleet, sqlite_store, rollout_spec(max_unavailable={"rack": 2}, waves=(1.0,)))
    assert result.phases == {"done": 2}
    retries = [e for e in sqlite_store.audit("r1") if e.action == "retry"]
    # the BMC's busy answer goes back to the state machine, which looks again a minute later
    assert len(retries) == 2 and all("An update is in progress" in e.detail["error"] for e in retries)
    assert retries[1].t_s - retries[0].t_s == 60.0
    assert fleet.devices[0].pushes == 1


def test_a_new_critical_event_after_the_install_fails_the_health_gate(sqlite_store: Store) -> None:
    fleet = FakeFleet(3, racks=1)
    fleet.devices[2].events.append({"Severity": "Critical", "Message": "old, before the rollout"})
    fleet.devices[1].panic_after_install = True
    result = run(
        fleet, sqlite_store, rollout_spec(max_unavailable={"rack": 3}, waves=(1.0,), failure_budget=0.5)
    )
    assert result.phases == {"done": 2, "rolled_back": 1}
    assert result.reasons["dpu0001"] == "health gate failed: new critical event: BlueField Arm kernel panic"
