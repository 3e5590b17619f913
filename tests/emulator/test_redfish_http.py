"""The DMTF ``redfish`` client drives emulated BMCs over real loopback HTTP."""

from __future__ import annotations

import httpx
import pytest
import redfish

from fabrictwin.emulator.images import NEXT_BFB

SYS = "/redfish/v1/Systems/Bluefield"


def test_the_aggregator_root_lists_every_bmc_by_url(fleet):
    root = httpx.get(fleet.root_url).json()
    assert root["@odata.type"].startswith("#ServiceRoot.")
    sources = httpx.get(
        fleet.admin_url + root["AggregationService"]["@odata.id"] + "/AggregationSources"
    ).json()
    assert sources["Members@odata.count"] == len(fleet.bmc_urls)
    first = httpx.get(fleet.admin_url + sources["Members"][0]["@odata.id"]).json()
    assert first["HostName"] == fleet.bmc_urls[0]
    rows = httpx.get(fleet.admin_url + "/admin/fleet").json()
    assert [r["bmc_url"] for r in rows] == fleet.bmc_urls


def test_a_full_bfb_install_through_simpleupdate_reaches_os_running_with_new_versions(fleet, bmcs, h):
    i = bmcs.take()
    c = h.rf(fleet, i)
    r = h.start_install(fleet, c)
    assert r.status == 202
    task_uri = r.getheader("Location")
    assert r.dict["TaskState"] == "Running" and r.dict["@odata.type"] == "#Task.v1_4_3.Task"
    seen = []
    for _ in range(12):  # poll the task like OobUpdate.py, 30 virtual s apart
        fleet.advance(30)
        task = c.get(task_uri).dict
        seen.append(task["PercentComplete"])
        if task["TaskState"] != "Running":
            break
    assert task["TaskState"] == "Completed" and task["TaskStatus"] == "OK"
    assert set(seen) <= {0, 20, 50, 80, 100} and seen == sorted(seen)
    assert any("Transfer is" in m.get("Resolution", "") for m in c.get(task_uri).dict["Messages"]) is False
    states = []
    for _ in range(80):  # then BootProgress until OsIsRunning (30 s polls, 40 min cap)
        fleet.advance(30)
        states.append(c.get(SYS).dict["BootProgress"]["OemLastState"])
        if states[-1] == "OsIsRunning" and states.count("FirmwareUpdateInProgress"):
            break
    assert "FirmwareUpdateInProgress" in states and states[-1] == "OsIsRunning"
    fleet.advance(180)  # the BMC re-reads Arm versions ~2 min after boot
    inv = "/redfish/v1/UpdateService/FirmwareInventory"
    assert c.get(f"{inv}/DPU_OS").dict["Version"] == NEXT_BFB.os
    assert c.get(f"{inv}/DPU_NIC").dict["Version"] == NEXT_BFB.nic
    assert "DPU is ready" in h.host(fleet, i, "bmc-rshim-misc")
    assert "No such file" in h.host(fleet, i, "rshim-misc")  # the BMC owns RShim now
    c.logout()


def test_a_running_task_shows_the_http_keepalive_message(fleet, bmcs, h):
    i = bmcs.take()
    c = h.rf(fleet, i)
    task_uri = h.start_install(fleet, c).getheader("Location")
    fleet.advance(90)
    messages = c.get(task_uri).dict["Messages"]
    assert messages[0]["MessageId"] == "TaskEvent.1.0.TaskStarted"
    assert messages[-1]["MessageId"] == "Update.1.0.TransferringToComponent"
    assert messages[-1]["Resolution"] == "Transfer is 20%. Please wait"
    second = h.start_install(fleet, c)  # only one update at a time
    assert second.status == 400 and "An update is in progress" in second.text


def test_a_mode_change_is_staged_until_the_platform_bmc_power_cycles_the_host(fleet, bmcs, h):
    i = bmcs.take()
    c = h.rf(fleet, i)
    r = c.post(f"{SYS}/Oem/Nvidia/Actions/Mode.Set", body={"Mode": "NicMode"})
    assert r.status == 200 and r.dict["@Message.ExtendedInfo"][0]["MessageId"] == "Base.1.18.1.Success"
    assert c.get(f"{SYS}/Oem/Nvidia").dict["Mode"] == "DpuMode"
    assert "*        INTERNAL_CPU_OFFLOAD_ENGINE".replace("*        ", "*       ") in h.host(
        fleet, i, "mlxconfig-q"
    )
    c.post(f"{SYS}/Actions/ComputerSystem.Reset", body={"ResetType": "GracefulRestart"})
    fleet.advance(300)  # an Arm reboot does not apply the mode (1.8)
    assert c.get(f"{SYS}/Oem/Nvidia").dict["Mode"] == "DpuMode"
    p = h.rf(fleet, i, platform=True)
    r = p.post("/redfish/v1/Systems/System_0/Actions/ComputerSystem.Reset", body={"ResetType": "PowerCycle"})
    assert r.status == 200
    fleet.advance(300)
    assert c.get(f"{SYS}/Oem/Nvidia").dict["Mode"] == "NicMode"
    assert c.get(SYS).dict["BootProgress"]["OemLastState"] == "UEFI"
    inv = c.get("/redfish/v1/UpdateService/FirmwareInventory/DPU_OS").dict
    assert inv["Version"] == ""  # NIC mode: Arm-sourced versions are empty (1.7)
    assert "mode legacy" in h.host(fleet, i, "devlink-eswitch-show")


def test_sessions_issue_tokens_and_logout_revokes_them(fleet, bmcs, h):
    i = bmcs.take()
    c = redfish.redfish_client(base_url=fleet.bmc_urls[i], username="root", password="0penBmc", max_retry=1)
    c.login(auth="session")
    assert c.get(SYS).status == 200
    token = c.get_session_key()
    c.logout()
    r = httpx.get(fleet.bmc_urls[i] + SYS, headers={"X-Auth-Token": token})
    assert r.status_code == 401
    assert r.json()["error"]["@Message.ExtendedInfo"][0]["MessageId"] == "Base.1.18.1.NoValidSession"
    login = httpx.post(fleet.bmc_urls[i] + "/login", json={"username": "root", "password": "0penBmc"})
    assert len(login.json()["token"]) == 32


def test_patch_honours_if_match_and_rejects_a_stale_etag(fleet, bmcs, h):
    i = bmcs.take()
    c = h.rf(fleet, i)
    mgr = "/redfish/v1/Managers/Bluefield_BMC"
    etag = c.get(mgr).getheader("ETag")
    body = {"Oem": {"Nvidia": {"BmcRShim": {"BmcRShimEnabled": True}}}}
    assert c.patch(mgr, body=body, headers={"If-Match": etag}).status == 200
    assert c.get(mgr).dict["Oem"]["Nvidia"]["BmcRShim"]["BmcRShimEnabled"] is True
    stale = c.patch(mgr, body=body, headers={"If-Match": etag})
    assert stale.status == 412 and stale.dict["error"]["code"] == "Base.1.18.1.PreconditionFailed"


def test_errors_use_the_redfish_envelope(fleet, bmcs, h):
    c = h.rf(fleet, bmcs.take())
    r = c.get("/redfish/v1/Nope")
    assert r.status == 404
    err = r.dict["error"]
    assert err["code"] == "Base.1.18.1.ResourceNotFound" and err["@Message.ExtendedInfo"][0]["Message"]
    bad = c.post(f"{SYS}/Oem/Nvidia/Actions/Mode.Set", body={"Mode": "TurboMode"})
    assert bad.status == 400 and bad.dict["error"]["code"] == "Base.1.18.1.PropertyValueNotInList"


@pytest.mark.parametrize("protocol", ["SCP"])
def test_scp_needs_a_public_key_exchange_first(fleet, bmcs, h, protocol):
    i = bmcs.take()
    c = h.rf(fleet, i)
    task_uri = h.start_install(fleet, c, protocol=protocol).getheader("Location")
    fleet.advance(5)
    task = c.get(task_uri).dict
    assert (
        task["TaskState"] == "Exception"
        and "Host key verification failed" in task["Messages"][-1]["Resolution"]
    )
    r = c.post(
        "/redfish/v1/UpdateService/Actions/Oem/NvidiaUpdateService.PublicKeyExchange",
        body={"RemoteServerIP": "127.0.0.1", "RemoteServerKeyString": "ssh-ed25519 AAAA test"},
    )
    assert r.dict["@Message.ExtendedInfo"][0]["Resolution"].startswith("ssh-ed25519 ")
    task_uri = h.start_install(fleet, c, protocol=protocol).getheader("Location")
    fleet.advance(400)  # SCP reports 0 until the end, 1.62 MiB/s: 775 s for 1255 MiB
    assert c.get(task_uri).dict["PercentComplete"] == 0
    fleet.advance(400)
    assert c.get(task_uri).dict["TaskState"] == "Completed"


def test_a_bmc_update_is_pending_until_manager_reset_and_blocks_during_background_copy(fleet, bmcs, h):
    i = bmcs.take()
    c = h.rf(fleet, i)
    pkg = httpx.get(fleet.image_url("bf3-bmc-25.10-20_ipn.fwpkg")).text

    def push():
        return httpx.post(
            fleet.bmc_urls[i] + "/redfish/v1/UpdateService/update-multipart",
            auth=("root", "0penBmc"),
            files={"UpdateParameters": (None, '{"Targets": []}'), "UpdateFile": ("bmc.fwpkg", pkg)},
        )

    r = push()
    assert r.status_code == 202
    fleet.advance(301)
    task = c.get(r.headers["Location"]).dict
    assert (
        task["TaskState"] == "Completed"
        and task["Messages"][-1]["MessageId"] == "Update.1.0.UpdateSuccessful"
    )
    assert (
        c.get("/redfish/v1/Chassis/Bluefield_ERoT").dict["Oem"]["Nvidia"]["BackgroundCopyStatus"]
        == "InProgress"
    )
    busy = push()
    assert busy.status_code == 400 and "background operation" in busy.text
    assert c.get("/redfish/v1/Managers/Bluefield_BMC").dict["FirmwareVersion"] == "BF-25.04-7"
    c.post("/redfish/v1/Managers/Bluefield_BMC/Actions/Manager.Reset", body={"ResetType": "GracefulRestart"})
    assert httpx.get(fleet.bmc_urls[i] + SYS, auth=("root", "0penBmc")).status_code == 503
    fleet.advance(121)
    assert c.get("/redfish/v1/Managers/Bluefield_BMC").dict["FirmwareVersion"] == "BF-25.10-20"
    fleet.advance(300)  # background copy over: the same package again is skipped
    again = c.get(push().headers["Location"]).dict
    assert again["Messages"][-1]["MessageId"] == "Update.1.0.ComponentUpdateSkipped"


def test_a_cec_package_activates_on_the_erot_reset_and_a_second_reset_finds_nothing_pending(fleet, bmcs, h):
    i = bmcs.take()
    c = h.rf(fleet, i)
    pkg = httpx.get(fleet.image_url("cec1736-ecfw-00.02.0195.0000-n02-rel-prod.fwpkg")).text
    r = httpx.post(
        fleet.bmc_urls[i] + "/redfish/v1/UpdateService/update-multipart",
        auth=("root", "0penBmc"),
        files={"UpdateFile": ("cec.fwpkg", pkg)},
    )
    assert r.status_code == 202
    fleet.advance(301)
    erot = "/redfish/v1/Chassis/Bluefield_ERoT/Actions/Chassis.Reset"
    assert c.post(erot, body={"ResetType": "GracefulRestart"}).status == 200
    assert (
        c.get("/redfish/v1/UpdateService/FirmwareInventory/Bluefield_FW_ERoT").dict["Version"]
        == "00.02.0195.0000_n02"
    )
    again = c.post(erot, body={"ResetType": "GracefulRestart"})
    assert again.status == 404 and again.dict["error"]["code"].endswith("ResourceNotFound")


def test_a_wrong_package_in_the_deprecated_octet_push_ends_in_an_invalid_package_task(fleet, bmcs, h):
    i = bmcs.take()
    c = h.rf(fleet, i)
    r = httpx.post(
        fleet.bmc_urls[i] + "/redfish/v1/UpdateService/update",
        auth=("root", "0penBmc"),
        content=b"\x7fELF not a firmware package",
        headers={"Content-Type": "application/octet-stream"},
    )
    assert r.status_code == 202
    task = c.get(r.headers["Location"]).dict
    assert task["TaskState"] == "Exception" and "Invalid FW Package" in task["Messages"][-1]["Resolution"]


def test_a_scaled_clock_runs_a_full_install_in_a_few_wall_seconds():
    import time

    from fabrictwin.emulator import serve_fleet

    with serve_fleet(1, seed=3, time_scale=2000) as f:
        c = redfish.redfish_client(base_url=f.bmc_urls[0], username="root", password="0penBmc", max_retry=1)
        c.login(auth="basic")
        body = {"TransferProtocol": "HTTP", "ImageURI": f.image_url(NEXT_BFB.name)}
        assert c.post("/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate", body=body).status == 202
        t0, states = time.monotonic(), set()
        while time.monotonic() - t0 < 5.0:  # 19.5 virtual min / 2000 = 0.6 wall s (+ polling lag)
            states.add(c.get(SYS).dict["BootProgress"]["OemLastState"])
            fw = c.get("/redfish/v1/UpdateService/FirmwareInventory/DPU_OS").dict["Version"]
            if fw == NEXT_BFB.os and "FirmwareUpdateInProgress" in states:
                break
            time.sleep(0.02)
        assert fw == NEXT_BFB.os and "FirmwareUpdateInProgress" in states


def test_secure_boot_changes_after_two_arm_reboots_and_bios_settings_after_one(fleet, bmcs, h):
    i = bmcs.take()
    c = h.rf(fleet, i)
    sb = f"{SYS}/SecureBoot"
    tag = c.get(sb).getheader("ETag")
    assert c.patch(sb, body={"SecureBootEnable": False}, headers={"If-Match": tag}).status == 200
    c.patch(f"{SYS}/Bios/Settings", body={"Attributes": {"EmmcWipe": True}})
    assert c.get(f"{SYS}/Bios/Settings").dict["Attributes"] == {"EmmcWipe": True}
    reset = f"{SYS}/Actions/ComputerSystem.Reset"
    c.post(reset, body={"ResetType": "ForceRestart"})
    fleet.advance(200)
    assert c.get(f"{SYS}/Bios").dict["Attributes"]["EmmcWipe"] is True
    assert c.get(sb).dict["SecureBootEnable"] is True  # one reboot is not enough
    c.post(reset, body={"ResetType": "ForceRestart"})
    fleet.advance(200)
    assert c.get(sb).dict["SecureBootEnable"] is False
    assert h.host(fleet, i, "mokutil-sb-state") == "SecureBoot disabled\n"


def test_a_nic_mode_card_installs_a_bfb_and_parks_in_uefi_again(bmcs, h):
    from fabrictwin.emulator import serve_fleet
    from fabrictwin.spec.faults import EmulatorSettings

    with serve_fleet(settings=EmulatorSettings(dpus=1, port=0, time_scale=0, mode="NicMode")) as f:
        c = h.rf(f, 0)
        assert c.get(SYS).dict["BootProgress"]["OemLastState"] == "UEFI"
        assert h.start_install(f, c).status == 202
        f.advance(2400)
        assert c.get(SYS).dict["BootProgress"]["OemLastState"] == "UEFI"  # completion value in NIC mode
        assert c.get("/redfish/v1/UpdateService/FirmwareInventory/DPU_OS").dict["Version"] == ""
        assert h.state(f, 0)["firmware"]["DPU_OS"] == NEXT_BFB.os


def test_with_tls_the_bmcs_answer_https_and_an_install_fetches_the_image_over_https():
    import warnings

    from fabrictwin.emulator import serve_fleet
    from fabrictwin.spec.faults import EmulatorSettings

    with serve_fleet(settings=EmulatorSettings(dpus=2, port=0, time_scale=0, tls=True)) as f:
        assert f.bmc_urls[1].startswith("https://127.0.1.2:")
        with pytest.raises(httpx.ConnectError):  # a client that verifies rejects the self-signed cert
            httpx.get(f.root_url)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # urllib3 InsecureRequestWarning from the redfish client
            c = redfish.redfish_client(
                base_url=f.bmc_urls[1], username="root", password="0penBmc", max_retry=1
            )
            c.login(auth="session")
            body = {"TransferProtocol": "HTTPS", "ImageURI": f.image_url(NEXT_BFB.name)}
            r = c.post("/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate", body=body)
            f.advance(400)
            assert c.get(r.getheader("Location")).dict["TaskState"] == "Completed"
            c.logout()
