"""Small pieces: identities, NV-config mode rules, images, messages, addressing, limits."""

from __future__ import annotations

import resource

import pytest
from pydantic import ValidationError

from fabrictwin.emulator import hostviews, nvconfig
from fabrictwin.emulator.app import http_uri
from fabrictwin.emulator.identity import make_identity
from fabrictwin.emulator.images import CORRUPT_BFB, DEFAULT_IMAGES, NEXT_BFB, parse_image
from fabrictwin.emulator.rferror import busy, not_found
from fabrictwin.emulator.serve import raise_fd_limit
from fabrictwin.emulator.tasks import Task, completed_warning, started
from fabrictwin.errors import Infeasible, NotFound
from fabrictwin.spec.faults import EmulatorSettings, Fault, FaultPlan, Timings


def test_identities_are_deterministic_per_seed_and_unique_per_card():
    a = [make_identity(i, 7, "BF3") for i in range(500)]
    assert a == [make_identity(i, 7, "BF3") for i in range(500)]
    assert len({x.serial for x in a}) == 500 and len({x.base_mac for x in a}) == 500
    assert make_identity(0, 8, "BF3").serial != a[0].serial
    assert a[3].mac(1) != a[3].base_mac and a[3].server == "node0003"


def test_bf2_identities_use_the_bf2_device_names():
    bf2 = make_identity(0, 1, "BF2")
    assert bf2.mst_name == "mt41686" and "BlueField-2" in bf2.lspci_name and bf2.connectx == "ConnectX-6 Dx"


def test_bf3_mode_is_the_offload_engine_alone_and_bf2_needs_the_whole_tuple():
    nv = dict(nvconfig.DEFAULTS)
    assert nvconfig.mode_of(nv, "BF3") == "DpuMode" == nvconfig.mode_of(nv, "BF2")
    nvconfig.set_mode(nv, "NicMode", "BF3")
    assert nv["INTERNAL_CPU_OFFLOAD_ENGINE"] == 1 and nvconfig.mode_of(nv, "BF3") == "NicMode"
    assert nvconfig.mode_of(nv, "BF2") == ""  # only one of five BF2 parameters changed
    nvconfig.set_mode(nv, "NicMode", "BF2")
    assert nvconfig.mode_of(nv, "BF2") == "NicMode"
    with pytest.raises(ValueError, match="unknown mode"):
        nvconfig.set_mode(nv, "SeparatedHost", "BF3")


def test_nv_values_render_as_mlxconfig_prints_them():
    assert nvconfig.render_value("INTERNAL_CPU_OFFLOAD_ENGINE", 1) == "DISABLED(1)"
    assert nvconfig.render_value("LINK_TYPE_P1", 1) == "IB(1)"
    assert nvconfig.render_value("NUM_OF_VFS", 16) == "16"


def test_image_descriptors_round_trip_and_corruption_is_detected():
    assert parse_image(NEXT_BFB.render()) == NEXT_BFB and NEXT_BFB.intact
    assert not CORRUPT_BFB.intact
    assert parse_image("<html>404</html>") is None
    assert all(name == image.name for name, image in DEFAULT_IMAGES.items())


def test_image_uris_of_every_protocol_are_read_over_plain_http():
    assert http_uri("127.0.0.1:9/images/a.bfb") == "http://127.0.0.1:9/images/a.bfb"
    assert http_uri("https://127.0.0.1:9/a.bfb") == "http://127.0.0.1:9/a.bfb"
    assert http_uri("http://h/a") == "http://h/a"


def test_task_messages_use_the_update_and_task_event_registries():
    task = Task(6, "/redfish/v1/UpdateService/FirmwareInventory/DPU_OS", 0.0, "/x")
    task.messages.append(started(6))
    task.finish(10.0, "Exception", "Critical", completed_warning(6, "Invalid FW Package"), 100)
    body = [m.to_json() for m in task.messages]
    assert body[0]["Message"] == "The task with Id '6' has started."
    assert body[1]["Message"] == "The task with Id '6' has completed with errors."
    assert body[1]["Resolution"] == "Invalid FW Package" and not task.running and task.percent(99.0) == 100


def test_redfish_errors_render_the_standard_envelope():
    err = not_found("/redfish/v1/Chassis/Card9").body()["error"]
    assert err["code"] == "Base.1.18.1.ResourceNotFound"
    assert err["@Message.ExtendedInfo"][0]["MessageArgs"] == ["Card9", "Card9"]
    assert "An update is in progress" in busy().body()["error"]["message"]


def test_settings_and_faults_refuse_out_of_range_values():
    with pytest.raises(ValidationError):
        EmulatorSettings(dpus=0)
    with pytest.raises(ValidationError):
        EmulatorSettings(dpus=2, unknown_field=1)
    with pytest.raises(ValidationError):
        Fault(kind="transfer_fail_at", at_pct=150)
    with pytest.raises(ValidationError):
        FaultPlan(priors={"auth_fail": 1.5})
    with pytest.raises(ValidationError):
        Timings(bmc_boot_s="slow")


def test_a_descriptor_limit_below_the_need_is_infeasible_with_the_way_out():
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        pytest.skip("no hard descriptor limit on this machine")
    with pytest.raises(Infeasible, match="platform_bmcs"):
        raise_fd_limit(hard + 1)


def test_the_devlink_query_is_refused_on_a_dpu_mode_host(model):
    m = model()
    assert hostviews.devlink_eswitch(m.dev) == "kernel answers: Operation not supported\n"
    assert hostviews.render(m.dev, "flint-q").startswith("Image type:            FS4\n")
    with pytest.raises(NotFound, match="unknown host command"):
        hostviews.render(m.dev, "rm-rf")


def test_a_fixed_port_taken_on_a_bmc_address_is_an_error_but_port_0_moves_on():
    import socket

    from fabrictwin.emulator.fleet import Fleet
    from fabrictwin.emulator.serve import open_sockets

    blocker = socket.socket()
    blocker.bind(("127.0.1.1", 0))
    blocker.listen(1)
    port = blocker.getsockname()[1]
    try:
        with pytest.raises(OSError):
            open_sockets(Fleet(EmulatorSettings(dpus=1, port=port, platform_bmcs=False)))
        socks = open_sockets(Fleet(EmulatorSettings(dpus=1, port=0, platform_bmcs=False)))
        assert len(socks) == 2 and socks[0].getsockname()[1] == socks[1].getsockname()[1]
        for s in socks:
            s.close()
    finally:
        blocker.close()


def test_bfver_prints_the_boot_partition_and_the_versions_in_its_real_layout(model):
    dev = model().dev
    lines = hostviews.bfver(dev).splitlines()
    assert lines[0] == "--/dev/mmcblk0boot1"
    assert lines[1] == f"BlueField ATF version: {dev.fw['DPU_ATF']}"
    assert lines[4:] == ["", f"OS Release Version: {dev.fw['DPU_OS']}"]
