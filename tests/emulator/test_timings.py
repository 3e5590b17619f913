"""The emulator's timing model against published BlueField measurements (docs/models/emulator-timings.md)."""

from __future__ import annotations

import pytest

from fabrictwin.emulator import install
from fabrictwin.emulator.images import NEXT_BFB, Image
from fabrictwin.spec.faults import Timings

BODY = {"TransferProtocol": "HTTP", "ImageURI": "http://127.0.0.1/images/x.bfb"}


def _task_seconds(m, image: Image, protocol: str) -> float:
    m.dev.scp_keys.add("127.0.0.1")
    task = install.simple_update(m.dev, m.link, {**BODY, "TransferProtocol": protocol}, image)
    while task.running:
        m.clock.advance(1.0)
    return task.end_s - task.start_s - 1.0  # the stream starts 1 s after the POST


def test_a_1255_mb_http_transfer_takes_about_the_published_4_min_10_s(model):
    # [S4]: 1255M over HTTP at ~5 MB/s average = 4 min 10 s; tolerance 10 % for "~5 MB/s".
    seconds = _task_seconds(model(), NEXT_BFB, "HTTP")
    assert seconds == pytest.approx(250.0, rel=0.10)


def test_an_896_mib_rshim_push_takes_the_published_9_min_12_s(model):
    # [S5]: 896 MiB pushed through RShim in 9 min 12 s at 1.62 MiB/s; tolerance 2 %.
    image = Image("old.bfb", "BF3", 896 * 1024**2, os="x").sealed()
    assert _task_seconds(model(), image, "SCP") == pytest.approx(552.0, rel=0.02)


def test_the_default_end_to_end_install_is_the_documented_20_minutes(model):
    # 7.4 item 1: "End-to-end default 20 min, range 10-40 min"; tolerance 10 %.
    m = model()
    install.simple_update(m.dev, m.link, BODY, NEXT_BFB)
    m.clock.run()
    ready = next(t for t, e in m.dev.trace if e == "arm DPU is ready")
    assert ready == pytest.approx(20 * 60, rel=0.10)
    assert 10 * 60 <= ready <= 40 * 60


RANGES = {
    # field: (low, high) from sections 7.2-7.4 of the reference
    "bootrom_to_uefi_s": (5, 20),
    "uefi_to_os_starting_s": (5, 40),
    "os_starting_to_running_s": (20, 120),
    "running_to_ready_s": (30, 180),
    "bmc_boot_s": (30, 90),
    "bmc_reset_s": (60, 180),
    "nic_fw_s": (60, 180),
    "bmc_update_task_s": (180, 600),
    "background_copy_s": (120, 600),
    "transfer_rate_Bps": (1.5e6, 40e6),
}


@pytest.mark.parametrize("field", sorted(RANGES))
def test_every_default_timing_lies_in_its_published_range(field):
    low, high = RANGES[field]
    assert low <= getattr(Timings(), field) <= high


def test_the_installer_total_lies_in_its_5_to_15_minute_range():
    t = Timings()
    assert 5 * 60 <= t.decompress_s + t.os_write_s + t.atf_uefi_s + t.nic_fw_s <= 15 * 60
