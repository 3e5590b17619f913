"""2,000 emulated DPUs over real loopback HTTP, 2 % injected install failures, virtual time.

The emulator runs in its own process (``time_scale=0``: its clock moves only when the executor's
clock advances it through ``POST /admin/clock/advance``), the executor in this one with at most
128 requests in flight. It takes minutes of wall time on 2 cores, so it runs only with
``FABRICTWIN_FLEET_2000=1``; the same scenario over an in-process fake runs in every suite
(``test_executor.py``).
"""

from __future__ import annotations

import asyncio
import os
import random
import socket
import subprocess
import sys
import tempfile
import time

import httpx
import pytest

from fabrictwin.fleet.clock import ManualClock
from fabrictwin.fleet.drain import SlurmDrain
from fabrictwin.fleet.executor import Credentials, Executor, RolloutResult
from fabrictwin.fleet.planner import device_duration_s, plan_rollout
from fabrictwin.fleet.redfish import Facade, Http
from fabrictwin.fleet.store import Store
from fabrictwin.spec.faults import DeviceFaults, EmulatorSettings, Fault, FaultPlan

from .emulated import busy_nodes_extra, refs_from_admin, rollout
from .helpers import max_concurrent_unavailable

N = 2000
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("FABRICTWIN_FLEET_2000") != "1", reason="set FABRICTWIN_FLEET_2000=1"),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_emulator(settings: EmulatorSettings) -> subprocess.Popen[bytes]:
    code = (
        "import sys; from fabrictwin.emulator import run_fleet; from fabrictwin.spec.faults import "
        "EmulatorSettings; run_fleet(EmulatorSettings.model_validate_json(sys.argv[1]))"
    )
    proc = subprocess.Popen([sys.executable, "-c", code, settings.model_dump_json()])
    for _ in range(600):
        try:
            httpx.get(f"http://127.0.0.1:{settings.port}/admin/clock", timeout=2)
            return proc
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    pytest.fail("emulator did not start")


def test_two_thousand_dpus_over_loopback_hold_every_constraint_and_near_the_bound() -> None:
    rng = random.Random(2000)
    failing = sorted(rng.sample(range(N), N // 50))  # 2 %
    kinds = ["task_exception", "partial_install_nic_fw_fail"]
    plan = FaultPlan(
        devices=tuple(
            DeviceFaults(device=i, faults=(Fault(kind=kinds[k % 2]),)) for k, i in enumerate(failing)
        )
    )
    port = free_port()
    settings = EmulatorSettings(dpus=N, seed=11, time_scale=0, port=port, faults=plan)
    proc = start_emulator(settings)
    admin = f"http://127.0.0.1:{port}"
    try:
        rows = httpx.get(f"{admin}/admin/fleet", timeout=60).json()
        refs = refs_from_admin(rows)
        nodes = httpx.get(f"{admin}/slurm/v0.0.40/nodes", timeout=60).json()["nodes"]
        spec = rollout(
            "big", lambda n: f"{admin}/images/{n}", admin, settings.timings, max_unavailable={"rack": 4}
        ).model_copy(update={"concurrency": 128})
        sync = httpx.Client(timeout=120)

        def advance(seconds: float) -> None:
            sync.post(f"{admin}/admin/clock/advance", json={"seconds": seconds}).raise_for_status()

        store = Store(f"sqlite:///{tempfile.mkdtemp()}/f.db")

        async def go() -> RolloutResult:
            async with Http(128) as http:
                creds = Credentials("root", "0penBmc")
                drain = SlurmDrain(Facade(http, admin, "slurm"))
                ex = Executor(spec, refs, store, http, ManualClock(0.0, advance), creds, drain)
                return await ex.start()

        t0 = time.perf_counter()
        result = asyncio.run(go())
        wall = time.perf_counter() - t0
        print(f"\n2000 DPUs over loopback: wall {wall:.0f} s, makespan {result.makespan_s / 3600:.2f} h")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    names = {refs[i].name for i in failing}
    assert result.status == "completed"
    assert result.phases == {"done": N - len(failing), "rolled_back": len(failing)}
    assert set(result.reasons) == names
    audit = store.audit("big")
    assert max(max_concurrent_unavailable(audit, {r.name: r.rack for r in refs}).values()) <= 4
    extra = busy_nodes_extra(nodes, refs)
    nominal = device_duration_s(spec, spec.durations.stream_Bps, power_cycle=False)
    admitted = {e.device: e.t_s for e in audit if e.action == "admit"}
    for e in audit:
        if e.action == "undrain" and e.device in names:
            extra[e.device] = max(extra.get(e.device, 0.0), e.t_s - admitted[e.device] - nominal)
    bound = plan_rollout(spec, refs, extra_s=extra).lower_bound_s
    print(f"lower bound in hindsight {bound / 3600:.2f} h, ratio {result.makespan_s / bound:.3f}")
    assert result.makespan_s <= 1.10 * bound
