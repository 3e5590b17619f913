"""Whole state traces (SimPy-style ``(time, event)`` lists) of canonical device histories.

Times are derived by hand from the defaults in ``spec/faults.py::Timings``:
- the action starts the transfer 1 s after SimpleUpdate (curl start-up);
- NEXT_BFB is 1255 MiB = 1,315,962,880 B; at 5e6 B/s the transfer takes 263.192576 s;
- installer stages: decompress 60 s, OS write 540 s, ATF/UEFI 60 s, NIC FW 120 s;
- Arm boot: BL2 at 0.2 x 10 s, BL31 at 0.5 x 10 s, UEFI at 10 s, OsStarting +15 s,
  OsIsRunning +40 s, "DPU is ready" +60 s; the BMC re-reads Arm versions 120 s after UEFI.
"""

from __future__ import annotations

from fabrictwin.emulator import install
from fabrictwin.emulator.faults import inject
from fabrictwin.emulator.images import CORRUPT_BFB, NEXT_BFB
from fabrictwin.spec.faults import Fault

T0 = 1.0
XFER = 1255 * 1024**2 / 5e6  # 263.192576 s
BODY = {"TransferProtocol": "HTTP", "ImageURI": "http://127.0.0.1/images/x.bfb"}


def test_a_full_bfb_install_follows_the_documented_stages_to_dpu_ready(model):
    m = model()
    install.simple_update(m.dev, m.link, BODY, NEXT_BFB)
    m.clock.run()
    done = T0 + XFER
    inst = done + 60 + 540 + 60 + 120
    assert m.dev.trace == [
        (0.0, "task 1 Running"),
        (T0, "bmc rshim Enabled"),
        (T0, f"transfer {NEXT_BFB.name} start (HTTP)"),
        (T0, "arm BootRom"),
        (T0 + 2.0, "arm FirmwareUpdateInProgress"),
        (round(done, 6), "task 1 Completed"),
        (round(done, 6), "install decompress"),
        (round(done + 60, 6), "install os_write"),
        (round(done + 600, 6), "install atf_uefi"),
        (round(done + 660, 6), "install nic_fw"),
        (round(inst, 6), "nic firmware reset"),
        (round(inst, 6), "install done, rebooting"),
        (round(inst, 6), "arm Off"),
        (round(inst, 6), "arm BootRom"),
        (round(inst + 2, 6), "arm BL2"),
        (round(inst + 5, 6), "arm BL31"),
        (round(inst + 10, 6), "arm UEFI"),
        (round(inst + 25, 6), "arm OsStarting"),
        (round(inst + 65, 6), "arm OsIsRunning"),
        (round(inst + 125, 6), "arm DPU is ready"),
        (round(inst + 130, 6), "bmc versions refreshed from Arm"),
    ]
    assert m.dev.fw["DPU_OS"] == NEXT_BFB.os
    assert m.dev.fw["DPU_NIC"] == NEXT_BFB.nic
    # End to end 19.5 min: the 20 min default, inside the 10-40 min range of section 7.4 item 1.
    assert 600 < inst + 125 < 2400


def test_a_mode_change_waits_for_a_cold_power_cycle_and_parks_the_arm_in_uefi(model):
    m = model()
    m.dev.stage_mode("NicMode")
    m.clock.advance_to(10.0)
    m.dev.host_power_cycle(cold=False)  # warm reboot does not reload NIC firmware (1.8)
    m.clock.advance_to(20.0)
    assert m.dev.mode == "DpuMode" and m.dev.next_mode == "NicMode"
    m.dev.host_power_cycle(cold=True)
    m.clock.run()
    assert m.dev.trace == [
        (0.0, "mode NicMode staged"),
        (10.0, "host power cycle (warm)"),
        (20.0, "host power cycle (cold)"),
        (20.0, "arm Off"),
        (30.0, "arm BootRom"),
        (32.0, "arm BL2"),
        (35.0, "arm BL31"),
        (40.0, "arm UEFI"),
        (40.0, "arm parked in UEFI (NIC mode)"),
        (160.0, "bmc versions refreshed from Arm"),
    ]
    assert m.dev.mode == "NicMode"
    assert m.dev.inventory_version("DPU_OS") == "" and m.dev.inventory_version("DPU_NIC") == ""
    assert m.dev.inventory_version("DPU_ATF") == m.dev.fw["DPU_ATF"]


def test_a_transfer_that_fails_halfway_aborts_the_task_and_leaves_the_os_untouched(model):
    m = model()
    old_os = m.dev.fw["DPU_OS"]
    inject(m.dev, Fault(kind="transfer_fail_at", at_pct=50))
    task = install.simple_update(m.dev, m.link, BODY, NEXT_BFB)
    m.clock.run()
    half = round(T0 + XFER / 2, 6)
    assert m.dev.trace == [
        (0.0, "fault transfer_fail_at injected"),
        (0.0, "task 1 Running"),
        (T0, "bmc rshim Enabled"),
        (T0, f"transfer {NEXT_BFB.name} start (HTTP)"),
        (T0, "arm BootRom"),
        (T0 + 2.0, "arm FirmwareUpdateInProgress"),
        (half, "task 1 Exception: Transfer failed at 50%: connection reset by peer"),
    ]
    assert task.state == "Exception" and task.status == "Critical" and task.percent(m.clock.now) == 50
    assert m.dev.fw["DPU_OS"] == old_os


def test_a_corrupt_image_fails_integrity_in_the_installer_and_the_arm_reboots_its_old_os(model):
    m = model()
    old_os = m.dev.fw["DPU_OS"]
    install.simple_update(m.dev, m.link, BODY, CORRUPT_BFB)
    m.clock.run()
    events = [e for _, e in m.dev.trace]
    assert events[6:9] == ["install decompress", "install failed: INTEGRITY_FAIL", "arm Off"]
    assert events[-2:] == ["arm DPU is ready", "bmc versions refreshed from Arm"]
    assert m.dev.fw["DPU_OS"] == old_os
    assert "ERR[MISC]: mlx-mkbfb: image is corrupt (INTEGRITY_FAIL)" in m.dev.rshim_log


def test_without_nic_firmware_reset_support_the_new_firmware_waits_for_a_cold_cycle(model):
    m = model()
    inject(m.dev, Fault(kind="nic_fw_reset_unsupported"))
    install.simple_update(m.dev, m.link, BODY, NEXT_BFB)
    m.clock.run()
    assert m.dev.nic_flash == NEXT_BFB.nic and m.dev.fw["DPU_NIC"] != NEXT_BFB.nic
    assert "nic firmware staged; host power cycle required" in [e for _, e in m.dev.trace]
    m.dev.host_power_cycle(cold=True)
    assert m.dev.fw["DPU_NIC"] == NEXT_BFB.nic


def test_the_bmc_reports_the_arm_state_it_last_polled_not_the_live_one(model):
    m = model()
    phase = m.dev._poll_phase
    m.clock.advance_to(phase + 30.0 - 1.0)  # one second before a poll
    m.dev.reset_arm("test")
    m.clock.advance(0.5)
    assert m.dev.arm_state == "BootRom" and m.dev.observed_arm_state() == "OsIsRunning"
    m.clock.advance(1.0)  # the poll has happened
    assert m.dev.observed_arm_state() == "BootRom"


def test_a_bmc_reset_mid_transfer_aborts_the_task_and_the_arm_stays_in_the_installer(model):
    m = model()
    task = install.simple_update(m.dev, m.link, BODY, NEXT_BFB)
    m.clock.advance_to(100.0)
    m.dev.boot_bmc(120.0)
    m.clock.run()
    assert task.state == "Exception" and "BMC reset" in task.messages[-1].resolution
    assert m.link.active == [] and not m.dev.installing
    assert m.dev.arm_state == "FirmwareUpdateInProgress"  # half a stream: recover with a new push


def test_a_cold_host_cycle_mid_transfer_aborts_the_push_and_boots_the_old_os(model):
    m = model()
    old = m.dev.fw["DPU_OS"]
    task = install.simple_update(m.dev, m.link, BODY, NEXT_BFB)
    m.clock.advance_to(100.0)
    m.dev.host_power_cycle(cold=True)
    m.clock.run()
    assert task.state == "Exception" and "Connection timed out" in task.messages[-1].resolution
    assert m.dev.arm_state == "OsIsRunning" and m.dev.fw["DPU_OS"] == old
