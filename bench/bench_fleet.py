"""Benchmarks of the fleet control plane (issue 6). Run: .venv/bin/python bench/bench_fleet.py

1. Planning a rollout for 10,000 DPUs (250 racks, 25 pods; caps 4 per rack and 30 per pod;
   shared rack image bandwidth; canary waves) - target < 2 s. Baseline, same run: a plain list
   scheduler that rescans every pending device at every completion (no rack-indexed queues),
   both on 2,000 DPUs, where the baseline still finishes in seconds.
2. Concurrent DPU workflows against the real emulator over loopback (in this process, 2 cores):
   256 DPUs admitted at once (8 racks of 32, cap 32 per rack) - target >= 200 workflows in
   flight together. Prints the peak, the wall time and the ratio against the same rollout with
   the HTTP pool limited to 8 requests in flight.
"""

from __future__ import annotations

import asyncio
import heapq
import tempfile
import time

from _timing import median_s
from fabrictwin.emulator import serve_fleet
from fabrictwin.emulator.images import CURRENT_BFB, NEXT_BFB
from fabrictwin.fleet.admission import Admission
from fabrictwin.fleet.clock import ManualClock
from fabrictwin.fleet.executor import Credentials, Executor
from fabrictwin.fleet.planner import device_duration_s, interleave_by_rack, plan_rollout, split_waves
from fabrictwin.fleet.redfish import Http
from fabrictwin.fleet.store import Store
from fabrictwin.spec.faults import EmulatorSettings
from fabrictwin.spec.fleet import Constraints, DeviceRef, DurationModel, ImageSpec, RolloutSpec


def fleet(n: int) -> list[DeviceRef]:
    return [
        DeviceRef(
            name=f"d{i:05d}",
            bmc_url=f"http://10.{i // 65536}.{i // 256 % 256}.{i % 256}",
            rack=f"r{i // 40:03d}",
            pod=f"p{i // 400:02d}",
        )
        for i in range(n)
    ]


SPEC = RolloutSpec(
    name="bench",
    target=ImageSpec(version=NEXT_BFB.os, uri="http://images/next.bfb"),
    constraints=Constraints(max_unavailable={"rack": 4, "pod": 30}, rack_image_Bps=20e6),
)


def naive_plan(spec: RolloutSpec, devices: list[DeviceRef]) -> float:
    """Baseline: list scheduling that rescans every pending device at every completion."""
    d = device_duration_s(spec, spec.durations.stream_Bps, power_cycle=False)
    t_total = 0.0
    for wave in split_waves(interleave_by_rack(devices), spec.constraints.waves):
        adm, pending, running, t = Admission(spec.constraints.max_unavailable), list(wave), [], 0.0
        while pending or running:
            keep = []
            for dev in pending:
                if adm.can_admit(dev):
                    adm.admit(dev)
                    heapq.heappush(running, (t + d, dev.name, dev))
                else:
                    keep.append(dev)
            pending = keep
            t, _, dev = heapq.heappop(running)
            adm.release(dev)
        t_total += t
    return t_total


def bench_planning() -> None:
    big, small = fleet(10_000), fleet(2_000)
    t_big = median_s(lambda: plan_rollout(SPEC, big))
    t_small = median_s(lambda: plan_rollout(SPEC, small))
    t_naive = median_s(lambda: naive_plan(SPEC, small), repeat=1)
    plan = plan_rollout(SPEC, big)
    print(
        f"plan 10,000 DPUs: median {t_big:.3f} s (target < 2 s) -> {'OK' if t_big < 2 else 'MISSED'}; "
        f"makespan {plan.makespan_s / 3600:.2f} h, lower bound {plan.lower_bound_s / 3600:.2f} h"
    )
    print(
        f"plan 2,000 DPUs: median {t_small:.3f} s; naive rescanning scheduler {t_naive:.3f} s; "
        f"ratio {t_naive / t_small:.1f}x"
    )


def run_workflows(concurrency: int, dpus: int = 256) -> tuple[float, int, dict[str, int]]:
    settings = EmulatorSettings(dpus=dpus, seed=1, time_scale=0, port=0)
    t = settings.timings
    durations = DurationModel(
        drain_s=0,
        stream_Bps=t.transfer_rate_Bps,
        verify_s=0,
        undrain_s=0,
        install_s=t.bundle_install_s,
        boot_s=t.boot_to_versions_s,
    )
    peak = 0
    with serve_fleet(settings=settings) as h:
        import httpx

        rows = httpx.get(f"{h.admin_url}/admin/fleet", timeout=60).json()
        refs = [
            DeviceRef(
                name=str(r["serial"]).strip(),
                bmc_url=r["bmc_url"].removesuffix("/redfish/v1"),
                rack=str(r["rack"]),
            )
            for r in rows
        ]
        spec = RolloutSpec(
            name="w",
            target=ImageSpec(
                version=NEXT_BFB.os,
                uri=h.image_url(NEXT_BFB.name),
                size_bytes=NEXT_BFB.size_bytes,
                nic_fw_version=NEXT_BFB.nic,
            ),
            previous=ImageSpec(version=CURRENT_BFB.os, uri=h.image_url(CURRENT_BFB.name)),
            constraints=Constraints(max_unavailable={"rack": 32}, waves=(1.0,)),
            durations=durations,
            concurrency=concurrency,
        )

        def tick(states) -> None:  # type: ignore[no-untyped-def]
            nonlocal peak
            peak = max(peak, sum(1 for s in states.values() if not s.terminal and s.phase != "pending"))

        async def go():  # type: ignore[no-untyped-def]
            async with Http(concurrency) as http:
                ex = Executor(
                    spec,
                    refs,
                    Store(f"sqlite:///{tempfile.mkdtemp()}/b.db"),
                    http,
                    ManualClock(0.0, h.advance),
                    Credentials("root", "0penBmc"),
                    on_tick=tick,
                )
                return await ex.start()

        t0 = time.perf_counter()
        result = asyncio.run(go())
        wall = time.perf_counter() - t0
    return wall, peak, result.phases


def bench_workflows() -> None:
    wall, peak, phases = run_workflows(128)
    wall8, peak8, _ = run_workflows(8)
    print(
        f"256 DPU workflows over loopback: peak {peak} in flight (target >= 200) -> "
        f"{'OK' if peak >= 200 else 'MISSED'}; wall {wall:.1f} s with 128 HTTP requests in flight; {phases}"
    )
    # In one process the emulator and the client share the GIL: more requests in flight only add
    # switching, so the narrow pool wins here; against real BMCs (ms-s latency) the wide one does.
    print(
        f"same with 8 HTTP requests in flight: peak {peak8} workflows, wall {wall8:.1f} s; "
        f"ratio wide/narrow wall {wall / wall8:.2f}x"
    )


if __name__ == "__main__":
    bench_planning()
    bench_workflows()
