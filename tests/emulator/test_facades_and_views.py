"""Scheduler and platform-BMC facades, host-view formats, fault plans, BMC start-up, the CLI."""

from __future__ import annotations

import httpx
import pytest
from typer.testing import CliRunner

from fabrictwin.cli.main import app
from fabrictwin.emulator import hostviews, serve_fleet
from fabrictwin.emulator.faults import draw_priors, inject
from fabrictwin.emulator.fleet import Fleet, bmc_address, platform_address
from fabrictwin.errors import SpecError
from fabrictwin.spec.faults import EmulatorSettings, Fault, FaultPlan
from fabrictwin.spec.load import load_text


def test_slurm_drain_waits_for_running_jobs_and_resume_clears_it(fleet, bmcs):
    i = bmcs.take()
    name = f"node{i:04d}"
    base = f"{fleet.admin_url}/slurm/v0.0.40"
    r = httpx.post(f"{base}/node/{name}", json={"state": ["DRAIN"], "reason": "bfb rollout"})
    assert r.json()["nodes"][0]["state"] == ["ALLOCATED", "DRAIN"]  # DRAINING: its job still runs
    fleet.advance(601)
    node = httpx.get(f"{base}/nodes").json()["nodes"][i]
    assert node["state"] == ["IDLE", "DRAIN"] and node["reason"] == "bfb rollout"
    httpx.post(f"{base}/node/{name}", json={"state": ["RESUME"]})
    assert httpx.get(f"{base}/nodes").json()["nodes"][i]["state"] == ["IDLE"]
    assert httpx.post(f"{base}/node/nosuch", json={"state": ["DRAIN"]}).status_code == 404


def test_kubernetes_cordon_evict_and_readiness_follow_the_dpu(fleet, bmcs, h):
    i = bmcs.take()
    name = f"node{i:04d}"
    r = httpx.patch(f"{fleet.admin_url}/api/v1/nodes/{name}", json={"spec": {"unschedulable": True}})
    assert r.json()["spec"]["unschedulable"] is True
    assert r.json()["spec"]["taints"][0]["key"] == "node.kubernetes.io/unschedulable"
    pods = [
        p
        for p in httpx.get(f"{fleet.admin_url}/api/v1/pods").json()["items"]
        if p["spec"]["nodeName"] == name
    ]
    pod = pods[0]["metadata"]["name"]
    ev = httpx.post(f"{fleet.admin_url}/api/v1/namespaces/default/pods/{pod}/eviction", json={})
    assert ev.status_code == 201
    assert all(
        p["spec"]["nodeName"] != name for p in httpx.get(f"{fleet.admin_url}/api/v1/pods").json()["items"]
    )
    h.rf(fleet, i).post(
        "/redfish/v1/Systems/Bluefield/Actions/ComputerSystem.Reset", body={"ResetType": "ForceRestart"}
    )
    ready = httpx.get(f"{fleet.admin_url}/api/v1/nodes/{name}").json()["status"]["conditions"][0]
    assert ready["status"] == "False"  # DPU mode: no host network while the Arm reboots
    fleet.advance(200)
    assert (
        httpx.get(f"{fleet.admin_url}/api/v1/nodes/{name}").json()["status"]["conditions"][0]["status"]
        == "True"
    )


def test_addresses_follow_the_documented_scheme():
    assert [bmc_address(i) for i in (0, 253, 254, 2000)] == [
        "127.0.1.1",
        "127.0.1.254",
        "127.0.2.1",
        "127.0.8.223",
    ]
    assert platform_address(254) == "127.1.2.1"


def test_the_mlxconfig_view_marks_a_staged_mode_with_a_star_in_the_real_column_layout(model):
    m = model()
    m.dev.stage_mode("NicMode")
    text = hostviews.mlxconfig_q(m.dev)
    assert (
        "Configurations:                                     Default         Current         Next Boot"
        in text
    )
    assert (
        "*       INTERNAL_CPU_OFFLOAD_ENGINE                 ENABLED(0)      ENABLED(0)      DISABLED(1)"
        in text
    )
    assert (
        "        INTERNAL_CPU_MODEL                          EMBEDDED_CPU(1) EMBEDDED_CPU(1) EMBEDDED_CPU(1)"
        in text
    )


def test_mst_lspci_and_ip_views_use_the_real_formats(model):
    dev = model().dev
    mst = hostviews.mst_status(dev).splitlines()
    assert (
        mst[6]
        == "DEVICE_TYPE        MST                            PCI       RDMA    NET                 NUMA"
    )
    assert (
        mst[7] == "BlueField3(rev:1)  /dev/mst/mt41692_pciconf0.1    e2:00.1   mlx5_1  net-ens7f1np1       4"
    )
    assert hostviews.lspci(dev).splitlines()[0] == (
        "e2:00.0 Ethernet controller: Mellanox Technologies MT43244 BlueField-3 integrated ConnectX-7 "
        "network controller (rev 01)"
    )
    assert "lo               UNKNOWN        00:00:00:00:00:00 <LOOPBACK,UP,LOWER_UP>" in hostviews.ip_br_link(
        dev
    )
    assert hostviews.flint_q(dev).splitlines()[1] == f"FW Version:            {dev.fw['DPU_NIC']}"
    assert hostviews.rshim_misc(dev).startswith("DISPLAY_LEVEL   2 (0:basic, 1:advanced, 2:log)\n")
    assert "DEV_NAME        pcie-0000:e2:00.2" in hostviews.rshim_misc(dev)
    assert hostviews.mokutil(dev) == "SecureBoot enabled\n"


def test_arm_side_views_are_unreachable_while_the_arm_is_down(model):
    dev = model().dev
    dev.power_off_arm()
    assert hostviews.bfver(dev).startswith("ssh: connect to host 192.168.100.2")
    assert hostviews.ovs_vsctl(dev).startswith("ssh:")


def test_a_fault_plan_reads_from_yaml_and_priors_are_reproducible():
    plan = load_text(
        "seed: 7\npriors: {partial_install_nic_fw_fail: 0.25}\n"
        "devices:\n  - device: 3\n    faults: [{kind: transfer_fail_at, at_pct: 50}]\n",
        FaultPlan,
    )
    first, again = draw_priors(plan, 200), draw_priors(plan, 200)
    assert first == again and 30 < len(first) < 70  # Binomial(200, 0.25): mean 50, sd 6
    fleet = Fleet(EmulatorSettings(dpus=8, faults=plan, port=0))
    assert fleet.devices[3].faults["transfer_fail_at"].at_pct == 50


def test_a_fault_plan_with_a_typo_or_a_missing_parameter_is_refused():
    with pytest.raises(SpecError, match="cosmic"):
        load_text("devices:\n  - device: 0\n    faults: [{kind: cosmic_ray}]\n", FaultPlan)
    with pytest.raises(SpecError, match="at_pct"):
        load_text("devices:\n  - device: 0\n    faults: [{kind: task_stall}]\n", FaultPlan)
    with pytest.raises(ValueError, match="needs parameters"):
        FaultPlan(priors={"link_down": 0.1})


def test_a_starting_bmc_answers_503_until_its_boot_window_ends():
    settings = EmulatorSettings(dpus=1, port=0, time_scale=0, bmc_starting=True)
    with serve_fleet(settings=settings) as f:
        url = f.bmc_urls[0] + "/redfish/v1/Systems/Bluefield"
        r = httpx.get(url, auth=("root", "0penBmc"))
        assert r.status_code == 503 and r.json()["error"]["code"].endswith("ServiceTemporarilyUnavailable")
        f.advance(61)
        assert httpx.get(url, auth=("root", "0penBmc")).status_code == 200
        inv = httpx.get(
            f.bmc_urls[0] + "/redfish/v1/UpdateService/FirmwareInventory/DPU_ATF", auth=("root", "0penBmc")
        )
        assert inv.json()["Version"] == ""  # Arm-sourced versions arrive ~2 min after the BMC is up
        f.advance(121)
        assert httpx.get(inv.url, auth=("root", "0penBmc")).json()["Version"] != ""


def test_profile_a_offers_only_scp_and_no_multipart_push():
    with serve_fleet(settings=EmulatorSettings(dpus=1, port=0, time_scale=0, profile="A")) as f:
        upd = httpx.get(f.bmc_urls[0] + "/redfish/v1/UpdateService", auth=("root", "0penBmc")).json()
        assert upd["Actions"]["#UpdateService.SimpleUpdate"]["TransferProtocol@Redfish.AllowableValues"] == [
            "SCP"
        ]
        assert "MultipartHttpPushUri" not in upd
        sys_ = httpx.get(f.bmc_urls[0] + "/redfish/v1/Systems/Bluefield", auth=("root", "0penBmc")).json()
        assert "OemLastState" not in sys_["BootProgress"]


def test_the_cli_lists_fault_kinds_and_refuses_bad_settings():
    runner = CliRunner()
    listed = runner.invoke(app, ["emulator", "faults"])
    assert listed.exit_code == 0 and "transfer_fail_at" in listed.output.split()
    bad = runner.invoke(app, ["emulator", "serve", "--dpus", "0"])
    assert bad.exit_code != 0


def test_injecting_at_the_model_level_marks_the_trace(model):
    m = model()
    inject(m.dev, Fault(kind="link_type_ib"))
    assert m.dev.trace == [(0.0, "fault link_type_ib injected")]
    assert hostviews.netdev(m.dev, 0) == "ibp226s0f0"


def test_bfb_install_from_the_host_rshim_prints_the_log_and_exits_clean_even_when_partial(fleet, bmcs, h):
    i = bmcs.take()
    h.inject(fleet, i, kind="partial_install_nic_fw_fail")
    url = f"{fleet.admin_url}/admin/devices/{i}/host/bfb-install"
    r = httpx.post(url, json={"image": "bf-bundle-2.9.2-31_25.02_ubuntu-22.04_prod.bfb"})
    assert r.status_code == 202 and r.json()["output"] == "Pushing bfb"
    fleet.advance(900)  # 1255 MiB at 1.62 MiB/s = 775 s
    assert "Collecting BlueField booting status" in httpx.get(url).text
    fleet.advance(1200)
    out = httpx.get(url).text
    assert " INFO[MISC]: NIC firmware update failed" in out and out.rstrip().endswith("INFO[MISC]: Linux up")
    assert h.state(fleet, i)["rshim_owner"] == "host"
    # The BMC cannot take RShim now; a second host push while the BMC owns it is refused.
    j = bmcs.take()
    h.inject(fleet, j, kind="rshim_owned_by_bmc")
    refused = httpx.post(f"{fleet.admin_url}/admin/devices/{j}/host/bfb-install", json={"image": h.NEXT})
    assert refused.status_code == 409 and "another backend already attached" in refused.json()["output"]


def test_the_update_service_is_starting_for_a_moment_after_the_bmc_boots():
    with serve_fleet(settings=EmulatorSettings(dpus=1, port=0, time_scale=0, bmc_starting=True)) as f:
        f.advance(60.5)  # BMC Enabled at 60 s, inventory (and UpdateService) at 62 s
        upd = httpx.get(f.bmc_urls[0] + "/redfish/v1/UpdateService", auth=("root", "0penBmc")).json()
        assert upd["Status"]["State"] == "Starting"
        body = {"ImageURI": f.image_url("bf-bundle-2.9.2-31_25.02_ubuntu-22.04_prod.bfb")}
        url = f.bmc_urls[0] + "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate"
        assert httpx.post(url, json=body, auth=("root", "0penBmc")).status_code == 503
        f.advance(2)
        assert httpx.post(url, json=body, auth=("root", "0penBmc")).status_code == 202


def test_a_fleet_of_2000_devices_builds_fast_and_small():
    import time
    import tracemalloc

    tracemalloc.start()
    t0 = time.perf_counter()
    Fleet(EmulatorSettings(dpus=2000, port=0))
    seconds = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # 10,000 BMCs must fit in 1 GiB (issue 5): 100 KiB each at most; we measure ~8 KiB.
    assert peak / 2000 < 32 * 1024 and seconds < 10.0


async def _in_process_gets() -> tuple[int, str, int]:
    from fabrictwin.emulator.app import create_app

    app = create_app(EmulatorSettings(dpus=300, port=18000, time_scale=0))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, auth=("root", "0penBmc")) as client:
        sys_ = await client.get("http://127.0.2.1/redfish/v1/Systems/Bluefield")  # DPU 254
        root = await client.get("http://127.0.0.1/redfish/v1")
        bad = await client.get("http://127.0.2.1/redfish/v1/Systems/Bluefield", auth=("root", "nope"))
    serial = app.fleet.devices[254].ident.serial
    assert sys_.json()["SerialNumber"] == serial
    return sys_.status_code, root.json()["Name"], bad.status_code


def test_the_app_factory_runs_in_process_through_an_asgi_transport():
    import asyncio

    assert asyncio.run(_in_process_gets()) == (200, "fabrictwin fleet aggregator", 401)
