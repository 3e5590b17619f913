"""SIGKILL the controller process mid-wave, twice, resume it, and every DPU is flashed exactly once.

The emulator runs in this process at ``time_scale`` virtual seconds per wall second; the
controller is the real CLI (``fabrictwin fleet rollout run`` / ``resume``) in a child process
with a wall clock of the same scale, so the kill lands wherever the controller happens to be.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from fabrictwin.emulator import serve_fleet
from fabrictwin.spec.faults import EmulatorSettings

from .emulated import refs_from_admin, rollout

SCALE = 600.0
"""Virtual seconds per wall second: one DPU (~20 virtual min) takes ~2 s of wall time."""
DPUS = 8


def cli(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "FABRICTWIN_BMC_PASSWORD": "0penBmc"}
    return subprocess.Popen(
        [sys.executable, "-m", "fabrictwin", "fleet", "rollout", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def phases(db: Path) -> dict[str, int]:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            rows = conn.execute("SELECT phase, count(*) FROM device_states GROUP BY phase").fetchall()
    except sqlite3.OperationalError:
        return {}
    return dict(rows)


def wait_until_mid_wave(db: Path, proc: subprocess.Popen[str], busy: set[str], deadline_s: float) -> None:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if proc.poll() is not None:
            pytest.fail(f"controller ended before the kill: {proc.stdout.read() if proc.stdout else ''}")
        if sum(phases(db).get(p, 0) for p in busy) >= 2:
            return
        time.sleep(0.05)
    pytest.fail(f"no device reached {busy} in {deadline_s} s: {phases(db)}")


@pytest.mark.slow
def test_killing_the_controller_twice_mid_wave_still_flashes_every_device_exactly_once(
    tmp_path: Path,
) -> None:
    settings = EmulatorSettings(dpus=DPUS, seed=5, time_scale=SCALE, port=0)
    with serve_fleet(settings=settings) as h:
        rows = httpx.get(f"{h.admin_url}/admin/fleet", timeout=30).json()
        refs = refs_from_admin(rows)
        fleet_yaml = tmp_path / "fleet.yaml"  # JSON is YAML
        fleet_yaml.write_text(json.dumps({"devices": [r.model_dump() for r in refs]}))
        spec = rollout(
            "crash",
            h.image_url,
            h.admin_url,
            settings.timings,
            max_unavailable={"rack": 4},
            waves=(0.25, 1.0),
        )
        rollout_yaml = tmp_path / "rollout.yaml"
        rollout_yaml.write_text(spec.model_dump_json())
        db = tmp_path / "fleet.db"
        common = ["--fleet", str(fleet_yaml), "--store", f"sqlite:///{db}", "--time-scale", str(SCALE)]

        proc = cli("run", str(rollout_yaml), *common)
        wait_until_mid_wave(db, proc, {"transfer", "push"}, 60)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)

        proc = cli("resume", "crash", *common)
        wait_until_mid_wave(db, proc, {"install"}, 60)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)

        proc = cli("resume", "crash", *common)
        out, _ = proc.communicate(timeout=240)
        assert proc.returncode == 0, out
        assert phases(db) == {"done": DPUS}, out
        for i in range(DPUS):
            trace = httpx.get(f"{h.admin_url}/admin/devices/{i}/trace", timeout=30).json()
            starts = [ev for _, ev in trace if ev.startswith("transfer ") and ev.endswith("start (HTTP)")]
            assert len(starts) == 1, (i, starts)
