"""The control plane against the real emulator over loopback HTTP, in virtual time.

The executor's clock drives the emulator's (``ManualClock(on_advance=fleet.advance)``), so hours
of rollout run in seconds and every run is the same.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from fabrictwin.emulator import FleetHandle, serve_fleet
from fabrictwin.emulator.images import BF2_BFB, CURRENT_BFB, NEXT_BFB
from fabrictwin.errors import SpecError
from fabrictwin.fleet import service
from fabrictwin.fleet.clock import ManualClock
from fabrictwin.fleet.executor import Credentials, Executor, RolloutResult
from fabrictwin.fleet.modes import set_mode
from fabrictwin.fleet.planner import plan_rollout
from fabrictwin.fleet.redfish import Http
from fabrictwin.fleet.store import Store
from fabrictwin.spec.faults import DeviceFaults, EmulatorSettings, Fault, FaultPlan
from fabrictwin.spec.fleet import DeviceRef, ImageSpec, RolloutSpec

from .emulated import busy_nodes_extra, refs_from_admin, rollout
from .helpers import max_concurrent_unavailable

CREDS = Credentials("root", "0penBmc")


@pytest.fixture
def emu(request: pytest.FixtureRequest) -> Iterator[FleetHandle]:
    faults: dict[int, list[Fault]] = getattr(request, "param", {})
    plan = FaultPlan(devices=tuple(DeviceFaults(device=i, faults=tuple(f)) for i, f in faults.items()))
    with serve_fleet(settings=EmulatorSettings(dpus=8, seed=3, time_scale=0, port=0, faults=plan)) as h:
        yield h


def admin(h: FleetHandle, path: str) -> Any:
    return httpx.get(f"{h.admin_url}{path}", timeout=30).json()


def transfers(h: FleetHandle, index: int) -> int:
    """BFB pushes the emulated BMC accepted, from its state trace."""
    return sum(
        1
        for _, ev in admin(h, f"/admin/devices/{index}/trace")
        if ev.startswith("transfer ") and "start" in ev
    )


def execute(h: FleetHandle, spec: RolloutSpec, refs: list[DeviceRef], store: Store) -> RolloutResult:
    async def go() -> RolloutResult:
        async with Http(64) as http:
            drain = service._drain_adapter(spec, http)
            ex = Executor(spec, refs, store, http, ManualClock(0.0, h.advance), CREDS, drain)
            return await ex.start()

    return asyncio.run(go())


def test_discovery_through_the_aggregator_finds_every_bmc_with_its_rack_and_host(emu: FleetHandle) -> None:
    store = Store(f"sqlite:///{tempfile.mkdtemp()}/f.db")
    records = service.discover(emu.root_url, store, "root", "0penBmc")
    assert len(records) == 8 and all(r.reachable and r.generation == "BF3" for r in records)
    fleet = service.fleet_from_store(store)
    assert {d.node for d in fleet.devices} == {f"node{i:04d}" for i in range(8)}
    assert all(d.platform_url.startswith("http://127.1.") for d in fleet.devices)
    emu.advance(300)  # Arm-sourced versions appear ~2 min after boot (reference 1.7)
    records, drift = service.read_inventory(fleet, "0penBmc", service.DesiredState(os_version=NEXT_BFB.os))
    assert {r.versions["DPU_OS"] for r in records} == {CURRENT_BFB.os}
    assert all(d == [f"DPU_OS {CURRENT_BFB.os} != {NEXT_BFB.os}"] for d in drift.values()) and len(drift) == 8


@pytest.mark.parametrize(
    "emu",
    [{2: [Fault(kind="task_exception")], 5: [Fault(kind="partial_install_nic_fw_fail")]}],
    indirect=True,
)
def test_a_rollout_drains_through_slurm_rolls_back_failures_and_meets_the_bound(emu: FleetHandle) -> None:
    store = Store(f"sqlite:///{tempfile.mkdtemp()}/f.db")
    refs = refs_from_admin(admin(emu, "/admin/fleet"))
    nodes = admin(emu, "/slurm/v0.0.40/nodes")["nodes"]
    spec = rollout(
        "r",
        emu.image_url,
        emu.admin_url,
        emu.fleet.settings.timings,
        max_unavailable={"rack": 2},
        waves=(0.25, 1.0),
        failure_budget=0.5,
    )
    result = execute(emu, spec, refs, store)
    assert result.status == "completed"
    assert result.phases == {"done": 6, "rolled_back": 2}
    assert (
        "Invalid FW Package" in result.reasons[refs[2].name]
        or "transfer failed" in result.reasons[refs[2].name]
    )
    assert "DPU_NIC" in result.reasons[refs[5].name]
    assert [transfers(emu, i) for i in range(8)] == [1, 1, 1, 1, 1, 2, 1, 1]
    states = {n["name"]: n["state"] for n in admin(emu, "/slurm/v0.0.40/nodes")["nodes"]}
    assert not any("DRAIN" in s for s in states.values())  # every node back in service
    audit = store.audit("r")
    assert max(max_concurrent_unavailable(audit, {r.name: r.rack for r in refs}).values()) <= 2
    nominal = plan_rollout(spec, refs, extra_s=busy_nodes_extra(nodes, refs))
    assert nominal.lower_bound_s <= result.makespan_s * 1.001
    failed = {refs[2].name, refs[5].name}
    ok_bound = plan_rollout(
        spec, [r for r in refs if r.name not in failed], extra_s=busy_nodes_extra(nodes, refs)
    )
    assert result.makespan_s >= ok_bound.lower_bound_s


@pytest.mark.parametrize("emu", [{1: [Fault(kind="powercycle_is_warm")]}], indirect=True)
def test_nic_mode_needs_a_cold_cycle_and_a_warm_only_vendor_gets_ac_powercycle(emu: FleetHandle) -> None:
    refs = refs_from_admin(admin(emu, "/admin/fleet"))[:3]

    async def go():  # type: ignore[no-untyped-def]
        async with Http(16) as http:
            return await set_mode(http, refs, "NicMode", "root", "0penBmc", ManualClock(0.0, emu.advance))

    results = asyncio.run(go())
    assert [(r.status, r.power_cycles) for r in results] == [("changed", 1), ("changed", 2), ("changed", 1)]
    assert all("UEFI" in str(admin(emu, f"/admin/devices/{i}")) for i in range(3))


def test_a_wrong_generation_image_is_refused_and_nothing_is_flashed(emu: FleetHandle) -> None:
    store = Store(f"sqlite:///{tempfile.mkdtemp()}/f.db")
    refs = refs_from_admin(admin(emu, "/admin/fleet"))
    good = rollout("r", emu.image_url, emu.admin_url, emu.fleet.settings.timings)
    bf2 = ImageSpec(version=NEXT_BFB.os, uri=emu.image_url(BF2_BFB.name), size_bytes=BF2_BFB.size_bytes)
    with pytest.raises(SpecError, match=r"installs 'DOCA_2\.5\.0_BSP"):
        execute(emu, good.model_copy(update={"target": bf2}), refs, store)
    assert sum(transfers(emu, i) for i in range(8)) == 0 and store.rollouts() == []


def test_the_kubernetes_adapter_cordons_evicts_and_uncordons(emu: FleetHandle) -> None:
    from fabrictwin.fleet.drain import KubernetesDrain
    from fabrictwin.fleet.redfish import Facade

    async def go() -> tuple[bool, bool, bool]:
        async with Http(8) as http:
            k8s = KubernetesDrain(Facade(http, emu.admin_url, "kubernetes"))
            node = refs_from_admin(admin(emu, "/admin/fleet"))[0].node
            await k8s.drain(node, "test")
            drained = await k8s.drained(node)
            cordoned = bool((await k8s.api.get(f"/api/v1/nodes/{node}"))["spec"].get("unschedulable"))
            await k8s.undrain(node)
            back = not (await k8s.api.get(f"/api/v1/nodes/{node}"))["spec"].get("unschedulable")
            return drained, cordoned, back

    assert asyncio.run(go()) == (True, True, True)


def test_rollout_metrics_count_devices_per_phase() -> None:
    from prometheus_client import generate_latest

    from fabrictwin.fleet.metrics import RolloutMetrics
    from fabrictwin.fleet.state import DeviceState

    m = RolloutMetrics("r")
    m.update(
        {
            "a": DeviceState("a", 0, phase="done", pushes=1),
            "b": DeviceState("b", 0, phase="transfer", pushes=1),
            "c": DeviceState("c", 1),
        }
    )
    text = generate_latest(m.registry).decode()
    assert 'fabrictwin_rollout_devices{phase="done",rollout="r"} 1.0' in text
    assert 'fabrictwin_rollout_unavailable{rollout="r"} 1.0' in text
    assert 'fabrictwin_rollout_pushes{rollout="r"} 2.0' in text


def test_bad_credentials_and_an_unreachable_bmc_are_named_and_nothing_is_flashed(emu: FleetHandle) -> None:
    from fabrictwin.errors import DeviceError

    store = Store(f"sqlite:///{tempfile.mkdtemp()}/f.db")
    refs = refs_from_admin(admin(emu, "/admin/fleet"))[:3]
    spec = rollout("r", emu.image_url, emu.admin_url, emu.fleet.settings.timings)

    async def go(creds: Credentials, devices: list[DeviceRef]) -> RolloutResult:
        async with Http(8) as http:
            return await Executor(spec, devices, store, http, ManualClock(0.0, emu.advance), creds).start()

    with pytest.raises(DeviceError, match=rf"3 of 3 devices failed preflight: {refs[0].name} .*\(HTTP 401\)"):
        asyncio.run(go(Credentials("root", "wrong"), refs))
    ghost = DeviceRef(name="ghost", bmc_url="http://127.0.250.250:1")
    with pytest.raises(
        DeviceError, match=r"1 of 4 devices failed preflight: ghost .*unreachable \(ConnectError"
    ):
        asyncio.run(go(CREDS, [*refs, ghost]))
    assert sum(transfers(emu, i) for i in range(8)) == 0 and store.rollouts() == []


def test_the_cli_discovers_inventories_and_reports_status(emu: FleetHandle, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from fabrictwin.cli.main import app

    db = f"sqlite:///{tmp_path / 'f.db'}"
    env = {"FABRICTWIN_BMC_PASSWORD": "0penBmc"}
    found = CliRunner().invoke(app, ["fleet", "discover", emu.root_url, "--store", db], env=env)
    assert found.exit_code == 0 and "discovered 8 BMCs, 8 reachable" in found.output, found.output
    emu.advance(300)
    inv = CliRunner().invoke(app, ["fleet", "inventory", "--store", db], env=env)
    assert inv.exit_code == 0 and inv.output.count(CURRENT_BFB.os) == 8, inv.output
    unset = CliRunner().invoke(
        app, ["fleet", "inventory", "--store", db], env={"FABRICTWIN_BMC_PASSWORD": None}
    )
    assert isinstance(unset.exception, SpecError) and "FABRICTWIN_BMC_PASSWORD" in str(unset.exception)


def test_a_nic_mode_fleet_completes_when_the_arm_parks_in_uefi_again() -> None:
    # NIC-mode DPUs report no DPU_OS/DPU_NIC and never reach OsIsRunning (reference 1.5, 1.7):
    # waiting for OsIsRunning would hang forever, the failure users report [S47].
    settings = EmulatorSettings(dpus=4, seed=9, time_scale=0, port=0, mode="NicMode")
    with serve_fleet(settings=settings) as h:
        refs = refs_from_admin(admin(h, "/admin/fleet"))
        spec = rollout(
            "nic", h.image_url, h.admin_url, settings.timings, max_unavailable={"rack": 4}, waves=(1.0,)
        )
        store = Store(f"sqlite:///{tempfile.mkdtemp()}/f.db")
        result = execute(h, spec, refs, store)
        assert result.phases == {"done": 4}
        for i in range(4):
            events = [ev for _, ev in admin(h, f"/admin/devices/{i}/trace")]
            assert transfers(h, i) == 1
            done = events.index("install done, rebooting")
            assert "arm parked in UEFI (NIC mode)" in events[done:]
            # the staged NIC firmware was activated by one cold cycle through the platform BMC
            assert sum(1 for ev in events[done:] if "power cycle" in ev.lower()) >= 1, events[done:]
        installed = [e for e in store.audit("nic") if e.action == "installed"]
        assert all(e.detail.get("note") == "NIC mode: versions are not reported" for e in installed)


def test_discovery_over_a_loopback_range_names_devices_by_serial(emu: FleetHandle) -> None:
    store = Store(f"sqlite:///{tempfile.mkdtemp()}/f.db")
    port = emu.bmc_urls[0].rsplit(":", 1)[1]
    records = service.discover(f"127.0.1.1-127.0.1.4:{port}", store, "root", "0penBmc")
    serials = [str(r["serial"]).strip() for r in admin(emu, "/admin/fleet")[:4]]
    assert [r.serial for r in records] == serials
    assert [d.name for d in service.fleet_from_store(store).devices] == sorted(serials)
