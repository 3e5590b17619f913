"""Every fault family of section 7.6, injected through the admin API and observed over Redfish
(DMTF ``redfish`` client) or the host views, on a served fleet."""

from __future__ import annotations

import time

import httpx
import pytest
import redfish

SYS = "/redfish/v1/Systems/Bluefield"
INV = "/redfish/v1/UpdateService/FirmwareInventory"
MGR = "/redfish/v1/Managers/Bluefield_BMC"


def _task(c, r):
    return c.get(r.getheader("Location")).dict


def test_family1_rshim_held_by_the_host_fails_the_push_until_forced(fleet, bmcs, h):
    i = bmcs.take()
    h.inject(fleet, i, kind="rshim_owned_by_host")
    c = h.rf(fleet, i)
    c.patch(MGR, body={"Oem": {"Nvidia": {"BmcRShim": {"BmcRShimEnabled": True}}}})
    assert c.get(MGR).dict["Oem"]["Nvidia"]["BmcRShim"]["BmcRShimEnabled"] is False
    r = h.start_install(fleet, c)
    fleet.advance(5)
    task = _task(c, r)
    assert (
        task["TaskState"] == "Exception"
        and "another backend already attached" in task["Messages"][-1]["Resolution"]
    )
    forced = c.post(f"{MGR}/Actions/Oem/NvidiaManager.SetRshim", body={"Rshim": "Forced"})
    assert forced.status == 200 and h.state(fleet, i)["rshim_owner"] == "bmc"


def test_family2_an_absent_host_rshim_hides_the_soc_management_function(fleet, bmcs, h):
    i = bmcs.take()
    assert "SoC Management Interface" in h.host(fleet, i, "lspci")
    h.inject(fleet, i, kind="rshim_absent")
    assert "SoC Management Interface" not in h.host(fleet, i, "lspci")
    assert "No such file or directory" in h.host(fleet, i, "rshim-misc")
    assert "tmfifo_net0" not in h.host(fleet, i, "ip-br-link")


def test_family3_a_503_window_then_a_slow_bmc_then_a_hanging_one(fleet, bmcs, h):
    i = bmcs.take()
    h.inject(fleet, i, kind="bmc_503_window", duration_s=60)
    r = httpx.get(fleet.bmc_urls[i] + SYS, auth=("root", "0penBmc"))
    assert r.status_code == 503 and r.headers["Retry-After"] == "30"
    fleet.advance(61)
    c = h.rf(fleet, i)
    assert c.get(SYS).status == 200
    h.inject(fleet, i, kind="bmc_slow", latency_s=0.3)
    t0 = time.monotonic()
    c.get(SYS)
    assert time.monotonic() - t0 >= 0.3
    httpx.delete(f"{fleet.admin_url}/admin/devices/{i}/faults", params={"kind": "bmc_slow"})
    h.inject(fleet, i, kind="bmc_tcp_accept_but_hang")
    with pytest.raises(httpx.ReadTimeout):
        httpx.get(fleet.bmc_urls[i] + SYS, auth=("root", "0penBmc"), timeout=0.5)
    httpx.delete(f"{fleet.admin_url}/admin/devices/{i}/faults", params={"kind": "bmc_tcp_accept_but_hang"})


def test_family3_an_unreachable_bmc_comes_back_after_its_duration(fleet, bmcs, h):
    i = bmcs.take()
    h.inject(fleet, i, kind="bmc_unreachable", duration_s=600)
    with pytest.raises(httpx.ReadTimeout):
        httpx.get(fleet.bmc_urls[i] + SYS, auth=("root", "0penBmc"), timeout=0.3)
    fleet.advance(601)
    assert httpx.get(fleet.bmc_urls[i] + SYS, auth=("root", "0penBmc")).status_code == 200


def test_family4_failed_logins_lock_the_account_even_for_the_right_password(fleet, bmcs, h):
    i = bmcs.take()
    h.inject(fleet, i, kind="account_locked_after", count=3)
    for _ in range(3):
        with pytest.raises(redfish.rest.v1.InvalidCredentialsError):
            h.rf(fleet, i, password="wrong")
    r = httpx.get(fleet.bmc_urls[i] + SYS, auth=("root", "0penBmc"))
    assert r.status_code == 401 and "ACCOUNT_LOCKED" in r.json()["error"]["message"]
    fleet.advance(301)
    assert h.rf(fleet, i).get(SYS).status == 200
    h.inject(fleet, i, kind="auth_fail")
    with pytest.raises(redfish.rest.v1.InvalidCredentialsError):
        h.rf(fleet, i)


def test_family5_a_busy_bmc_refuses_updates_with_the_documented_messages(fleet, bmcs, h):
    i = bmcs.take()
    c = h.rf(fleet, i)
    h.inject(fleet, i, kind="update_in_progress")
    r = h.start_install(fleet, c)
    assert r.status == 400 and "An update is in progress" in r.dict["error"]["message"]
    httpx.delete(f"{fleet.admin_url}/admin/devices/{i}/faults")
    h.inject(fleet, i, kind="background_copy_in_progress", duration_s=300)
    erot = c.get("/redfish/v1/Chassis/Bluefield_ERoT").dict
    assert erot["Oem"]["Nvidia"]["BackgroundCopyStatus"] == "InProgress"
    pkg = httpx.get(fleet.image_url("bf3-bmc-25.10-20_ipn.fwpkg")).text
    r2 = httpx.post(
        fleet.bmc_urls[i] + "/redfish/v1/UpdateService/update-multipart",
        auth=("root", "0penBmc"),
        files={"UpdateFile": ("bmc.fwpkg", pkg)},
    )
    assert r2.status_code == 400 and "busy on background operation" in r2.text


@pytest.mark.parametrize(
    ("fault", "image", "text"),
    [
        ({"kind": "transfer_fail_at", "at_pct": 50}, None, "Transfer failed at 50%"),
        ({"kind": "image_404"}, None, "404 Not Found"),
        (None, "no-such-image.bfb", "404 Not Found"),
        ({"kind": "https_bad_cert"}, None, "SSL certificate problem"),
        ({"kind": "wrong_generation_bfb"}, None, "Invalid FW Package"),
        (None, "DOCA_2.5.0_BSP_4.5.0_Ubuntu_22.04-1.20231120.prod.bfb", "Invalid FW Package"),
        ({"kind": "push_timeout"}, None, "Connection timed out"),
    ],
)
def test_family6_transfer_faults_end_the_task_in_exception(fleet, bmcs, h, fault, image, text):
    i = bmcs.take()
    if fault:
        h.inject(fleet, i, **fault)
    c = h.rf(fleet, i)
    protocol = "HTTPS" if fault and fault["kind"] == "https_bad_cert" else "HTTP"
    r = h.start_install(fleet, c, image=image or h.NEXT, protocol=protocol)
    fleet.advance(400)
    task = _task(c, r)
    assert task["TaskState"] == "Exception" and task["TaskStatus"] == "Critical"
    assert text in task["Messages"][-1]["Resolution"]


def test_family6_a_slow_transfer_takes_size_over_rate(fleet, bmcs, h):
    i = bmcs.take()
    h.inject(fleet, i, kind="transfer_slow", rate_Bps=1e6)
    c = h.rf(fleet, i)
    r = h.start_install(fleet, c)
    fleet.advance(1200)  # 1255 MiB at 1 MB/s is 1316 s
    assert _task(c, r)["TaskState"] == "Running"
    fleet.advance(200)
    assert _task(c, r)["TaskState"] == "Completed"


def test_family7_a_stalled_task_stays_running_at_its_percentage(fleet, bmcs, h):
    i = bmcs.take()
    h.inject(fleet, i, kind="task_stall", at_pct=55)
    c = h.rf(fleet, i)
    r = h.start_install(fleet, c)
    fleet.advance(3600)
    task = _task(c, r)
    assert task["TaskState"] == "Running" and task["PercentComplete"] == 50


def test_family7_tasks_are_lost_when_the_bmc_reboots_with_that_fault(fleet, bmcs, h):
    i = bmcs.take()
    h.inject(fleet, i, kind="task_lost_after_bmc_reboot")
    c = h.rf(fleet, i)
    r = h.start_install(fleet, c)
    uri = r.getheader("Location")
    c.post(f"{MGR}/Actions/Manager.Reset", body={"ResetType": "GracefulRestart"})
    fleet.advance(130)
    assert c.get(uri).status == 404


def test_family8_an_install_hang_never_reaches_the_os(fleet, bmcs, h):
    i = bmcs.take()
    h.inject(fleet, i, kind="install_hang", stage="os_write")
    c = h.rf(fleet, i)
    r = h.start_install(fleet, c)
    fleet.advance(2400)
    assert _task(c, r)["TaskState"] == "Completed"  # task completion is not install completion
    assert c.get(SYS).dict["BootProgress"]["OemLastState"] == "FirmwareUpdateInProgress"
    assert "DPU is ready" not in h.host(fleet, i, "bmc-rshim-misc")


def test_family8_a_partial_install_keeps_the_old_nic_firmware_and_logs_it(fleet, bmcs, h):
    i = bmcs.take()
    h.inject(fleet, i, kind="partial_install_nic_fw_fail")
    old_nic = h.state(fleet, i)["firmware"]["DPU_NIC"]
    c = h.rf(fleet, i)
    h.start_install(fleet, c)
    fleet.advance(2400)
    misc = h.host(fleet, i, "bmc-rshim-misc")
    assert "INFO[MISC]: NIC firmware update failed" in misc and "DPU is ready" in misc
    assert c.get(f"{INV}/DPU_NIC").dict["Version"] == old_nic
    assert c.get(SYS).dict["BootProgress"]["OemLastState"] == "OsIsRunning"


def test_family8_a_psc_error_stops_the_arm_in_bootrom(fleet, bmcs, h):
    i = bmcs.take()
    h.inject(fleet, i, kind="psc_error_60")
    c = h.rf(fleet, i)
    c.post(f"{SYS}/Actions/ComputerSystem.Reset", body={"ResetType": "ForceRestart"})
    fleet.advance(120)
    assert c.get(SYS).dict["BootProgress"]["OemLastState"] == "BootRom"


def test_family9_a_warm_powercycle_quirk_leaves_the_mode_staged_until_ac_cycle(fleet, bmcs, h):
    i = bmcs.take()
    h.inject(fleet, i, kind="powercycle_is_warm")
    c = h.rf(fleet, i)
    c.post(f"{SYS}/Oem/Nvidia/Actions/Mode.Set", body={"Mode": "NicMode"})
    p = h.rf(fleet, i, platform=True)
    reset = "/redfish/v1/Systems/System_0/Actions/ComputerSystem.Reset"
    assert p.post(reset, body={"ResetType": "PowerCycle"}).status == 200
    fleet.advance(300)
    assert c.get(f"{SYS}/Oem/Nvidia").dict["Mode"] == "DpuMode"
    p.post(reset, body={"ResetType": "ACPowercycle"})
    fleet.advance(300)
    assert c.get(f"{SYS}/Oem/Nvidia").dict["Mode"] == "NicMode"


def test_family9_a_chassis_that_never_drains_power_keeps_staged_nic_firmware(fleet, bmcs, h):
    i = bmcs.take()
    h.inject(fleet, i, kind="nic_fw_reset_unsupported")
    h.inject(fleet, i, kind="chassis_no_power_drain")
    c = h.rf(fleet, i)
    h.start_install(fleet, c)
    fleet.advance(2400)
    assert "FW Version(Running):" in h.host(fleet, i, "flint-q")
    h.rf(fleet, i, platform=True).post(
        "/redfish/v1/Systems/System_0/Actions/ComputerSystem.Reset", body={"ResetType": "ACPowercycle"}
    )
    fleet.advance(300)
    assert "FW Version(Running):" in h.host(fleet, i, "flint-q")


def test_family10_a_config_reset_reverts_the_staged_nic_mode(fleet, bmcs, h):
    i = bmcs.take()
    c = h.rf(fleet, i)
    c.post(f"{SYS}/Oem/Nvidia/Actions/Mode.Set", body={"Mode": "NicMode"})
    h.inject(fleet, i, kind="mode_revert_on_config_reset")
    httpx.post(f"{fleet.admin_url}/admin/devices/{i}/host/power", json={"action": "cycle"})
    fleet.advance(300)
    assert c.get(f"{SYS}/Oem/Nvidia").dict["Mode"] == "DpuMode"


def test_family10_an_inconsistent_bf2_tuple_reports_no_mode(bmcs, h):
    from fabrictwin.emulator import serve_fleet
    from fabrictwin.spec.faults import EmulatorSettings

    with serve_fleet(settings=EmulatorSettings(dpus=1, generation="BF2", port=0, time_scale=0)) as bf2:
        h.inject(bf2, 0, kind="inconsistent_bf2_tuple")
        c = h.rf(bf2, 0)
        assert c.get(f"{SYS}/Oem/Nvidia").dict["Mode"] == ""
        assert "EXT_HOST_PF(1)" in h.host(bf2, 0, "mlxconfig-q")


def test_family11_boot_faults_show_in_bootprogress(fleet, bmcs, h):
    loop, sb, panic = bmcs.take(), bmcs.take(), bmcs.take()
    h.inject(fleet, loop, kind="uefi_boot_loop_no_os")
    h.inject(fleet, sb, kind="secure_boot_db_missing_ms_ca")
    h.inject(fleet, panic, kind="kernel_panic_crashdump")
    for i in (loop, sb, panic):
        h.rf(fleet, i).post(f"{SYS}/Actions/ComputerSystem.Reset", body={"ResetType": "ForceRestart"})
    fleet.advance(400)
    assert h.rf(fleet, loop).get(SYS).dict["BootProgress"]["OemLastState"] == "UEFI"
    assert h.rf(fleet, sb).get(SYS).dict["BootProgress"]["OemLastState"] == "UEFI"
    assert "Failed to boot 'NET-NIC_P0-IPV4'" in h.host(fleet, sb, "rshim-misc")
    assert h.rf(fleet, panic).get(SYS).dict["BootProgress"]["OemLastState"] == "OsCrashDumpIsComplete"


def test_family12_host_side_faults_show_in_the_host_views_and_redfish_ports(fleet, bmcs, h):
    probe, health, link, ib = bmcs.take(), bmcs.take(), bmcs.take(), bmcs.take()
    h.inject(fleet, probe, kind="mlx5_probe_timeout")
    assert "Firmware over 120000 MS in pre-initializing state" in h.host(fleet, probe, "dmesg")
    assert "net-" not in h.host(fleet, probe, "mst-status-v")
    h.inject(fleet, health, kind="nic_health_compromised")
    assert "health compromised - reached miss count" in h.host(fleet, health, "dmesg")
    h.inject(fleet, link, kind="link_down", port=1)
    port = h.rf(fleet, link).get("/redfish/v1/Chassis/Card1/NetworkAdapters/NvidiaNetworkAdapter/Ports/eth1")
    assert port.dict["LinkStatus"] == "LinkDown"
    assert "ens7f1np1        DOWN" in h.host(fleet, link, "ip-br-link")
    h.inject(fleet, ib, kind="link_type_ib")
    assert "Infiniband controller" in h.host(fleet, ib, "lspci")


def test_family12_host_pfs_unbound_after_a_push(fleet, bmcs, h):
    i = bmcs.take()
    h.inject(fleet, i, kind="host_pf_unbound_after_push")
    h.start_install(fleet, h.rf(fleet, i))
    fleet.advance(2400)
    assert "Kernel driver in use" not in h.host(fleet, i, "lspci-k")
    assert "ens7f0np0" not in h.host(fleet, i, "ip-br-link")


def test_family13_inventory_faults(fleet, bmcs, h):
    empty, nobios, mismatch = bmcs.take(), bmcs.take(), bmcs.take()
    h.inject(fleet, empty, kind="versions_empty")
    assert h.rf(fleet, empty).get(f"{INV}/DPU_ATF").dict["Version"] == ""
    h.inject(fleet, nobios, kind="bios_attr_missing_nicmode")
    assert "NicMode" not in h.rf(fleet, nobios).get(f"{SYS}/Bios").dict["Attributes"]
    h.inject(fleet, mismatch, kind="version_mismatch", host_doca="MLNX_OFED_LINUX-23.10-1.1.9")
    arm = h.rf(fleet, mismatch).get(f"{INV}/DPU_OFED").dict["Version"]
    assert h.host(fleet, mismatch, "ofed-info-s").strip() != arm + ":"


def test_family14_golden_images_appear_when_recovery_is_available(fleet, bmcs, h):
    i = bmcs.take()
    c = h.rf(fleet, i)
    assert c.get(f"{INV}/golden_image_arm").dict["Version"] == ""
    h.inject(fleet, i, kind="golden_image_recovery_available")
    assert c.get(f"{INV}/golden_image_arm").dict["Version"] != ""


def test_family15_clock_skew_and_a_sel_flood(fleet, bmcs, h):
    i = bmcs.take()
    c = h.rf(fleet, i)
    before = c.get(MGR).dict["DateTime"]
    h.inject(fleet, i, kind="clock_skew", skew_s=86400)
    after = c.get(MGR).dict["DateTime"]
    assert after[:10] != before[:10]
    h.inject(fleet, i, kind="sel_flood", count=500)
    entries = c.get(f"{SYS}/LogServices/EventLog/Entries").dict
    assert entries["Members@odata.count"] == 501
    last = c.get(entries["Members"][-1]["@odata.id"]).dict
    assert last["Severity"] == "Critical" and last["Message"] == "Event log full: SEL is full"


def test_an_unknown_fault_is_refused_with_the_reason(fleet):
    r = httpx.post(f"{fleet.admin_url}/admin/devices/0/faults", json={"kind": "cosmic_ray"})
    assert r.status_code == 400 and "kind" in r.json()["error"]["message"]
    r = httpx.post(f"{fleet.admin_url}/admin/devices/0/faults", json={"kind": "transfer_fail_at"})
    assert r.status_code == 400 and "at_pct" in r.json()["error"]["message"]


def test_zero_trust_privileges_apply_at_once_and_stop_host_side_config(fleet, bmcs, h):
    i = bmcs.take()
    c = h.rf(fleet, i)
    url = f"{fleet.admin_url}/admin/devices/{i}/host/mlxconfig"
    priv = f"{SYS}/Oem/Nvidia/Connectx/ExternalHostPrivileges"
    r = c.post(f"{priv}/Actions/ExternalHostPrivileges.Set", body={"HostPrivNvGlobal": "Disabled"})
    assert r.status == 200 and c.get(priv).dict["HostPrivNvGlobal"] == "Disabled"
    denied = httpx.post(url, json={"set": {"INTERNAL_CPU_OFFLOAD_ENGINE": 1}})
    assert denied.status_code == 403 and "restricted host" in denied.json()["error"]["message"]
    assert c.get(f"{SYS}/Bios").dict["Attributes"]["HostPrivilegeLevel"] == "Restricted"
    c.post(f"{priv}/Actions/ExternalHostPrivileges.Set", body={"HostPrivNvGlobal": "Enabled"})
    assert httpx.post(url, json={"set": {"INTERNAL_CPU_OFFLOAD_ENGINE": 1}}).status_code == 200
    c.post(f"{SYS}/Oem/Nvidia/Actions/HostRshim.Set", body={"HostRshim": "Disabled"})
    assert "SoC Management Interface" in h.host(fleet, i, "lspci")  # needs a power cycle
    httpx.post(f"{fleet.admin_url}/admin/devices/{i}/host/power", json={"action": "cycle"})
    assert "SoC Management Interface" not in h.host(fleet, i, "lspci")
    assert c.get(f"{SYS}/Oem/Nvidia").dict["HostRshim"] == "Disabled"


def test_clearing_a_fault_through_the_admin_api_restores_the_bmc(fleet, bmcs, h):
    i = bmcs.take()
    h.inject(fleet, i, kind="auth_fail")
    assert httpx.get(fleet.bmc_urls[i] + SYS, auth=("root", "0penBmc")).status_code == 401
    listed = httpx.get(f"{fleet.admin_url}/admin/devices/{i}/faults").json()
    assert [f["kind"] for f in listed] == ["auth_fail"]
    bad = httpx.delete(f"{fleet.admin_url}/admin/devices/{i}/faults", params={"kind": "cosmic_ray"})
    assert bad.status_code == 400
    httpx.delete(f"{fleet.admin_url}/admin/devices/{i}/faults", params={"kind": "auth_fail"})
    assert httpx.get(fleet.bmc_urls[i] + SYS, auth=("root", "0penBmc")).status_code == 200
    trace = [e for _, e in httpx.get(f"{fleet.admin_url}/admin/devices/{i}/trace").json()]
    assert trace[-2:] == ["fault auth_fail injected", "fault auth_fail cleared"]
