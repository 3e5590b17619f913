"""Host CPU budget, DPU offload, and the input pipeline."""

from __future__ import annotations

from typing import Any

import pytest

from fabrictwin import catalog
from fabrictwin.node import cpu as cpu_model
from fabrictwin.node.cpu import HostServices, NodeLoad, cpu_budget, task_demand
from fabrictwin.node.storage import LoaderRates, PipelineNeed, checkpoint_seconds, data_stall

SERVICES = HostServices(
    vswitch=True, encryption=True, firewall=True, telemetry=True, protocol="nfs", gpudirect_storage=False
)
LOAD = NodeLoad(
    network_tx_Bps=10.5e9,
    network_rx_Bps=5.25e9,
    storage_read_Bps=3e9,
    north_south_Bps=3e9,
    images_per_s=1500.0,
)


def test_tcp_costs_one_core_per_42_gbps_received() -> None:
    d = task_demand(LOAD, SERVICES, core_hz=2e9)
    # tx 10.5 GB/s at 10.5 GB/s/core + rx 5.25 GB/s at 5.25 GB/s/core = 2 cores (D-13).
    assert d["network"] == pytest.approx(2.0)
    assert d["storage"] == pytest.approx(3e9 / 5.25e9 * 1.5)
    assert d["vswitch"] == pytest.approx(2.0)
    assert d["crypto"] == pytest.approx(3e9 * 2 / 2e9)
    assert d["firewall"] == pytest.approx(1.5)
    assert d["data_loading"] == pytest.approx(10.0)


def test_rdma_storage_costs_almost_nothing() -> None:
    rdma = HostServices(False, False, False, False, "nvmeof", False)
    d = task_demand(NodeLoad(0, 0, 10e9, 10e9), rdma, 2e9)
    assert d["storage"] == pytest.approx(0.5)


def test_a_bluefield3_takes_infrastructure_work_off_the_host() -> None:
    host_cpu = catalog.cpu("xeon-8480c")
    dpu = catalog.nic("bf3-b3220")
    offloads = ("vswitch", "storage", "crypto", "firewall", "telemetry")
    without = cpu_budget(
        cpu=host_cpu, sockets=2, gpus=8, load=LOAD, services=SERVICES, dpu=None, offloads=offloads
    )
    with_dpu = cpu_budget(
        cpu=host_cpu, sockets=2, gpus=8, load=LOAD, services=SERVICES, dpu=dpu, offloads=offloads
    )
    assert with_dpu.infra_cores < without.infra_cores
    # The collective TCP stack and data loading stay on the host (not offloadable).
    assert with_dpu.host_demand["network"] == without.host_demand["network"]
    assert with_dpu.host_demand["data_loading"] == without.host_demand["data_loading"]
    # vswitch, firewall, storage (SNAP) and crypto go to engines; telemetry to Arm cores.
    assert with_dpu.dpu_demand["telemetry"] == pytest.approx(0.5)
    assert with_dpu.throttle == {"vswitch": 1.0, "storage": 1.0, "crypto": 1.0, "firewall": 1.0}


def test_work_beyond_the_dpu_arm_cores_is_throttled_not_moved_back() -> None:
    host_cpu = catalog.cpu("xeon-8480c")
    dpu = catalog.nic("bf3-b3220")
    capacity = dpu.arm_cores * cpu_model.ARM_CORE_RELATIVE
    heavy = NodeLoad(0, 0, 0, 0)
    b = cpu_budget(
        cpu=host_cpu,
        sockets=2,
        gpus=8,
        load=heavy,
        services=HostServices(False, False, False, True, "nfs", False),
        dpu=dpu,
        offloads=("telemetry",),
    )
    assert b.dpu_capacity == capacity
    assert "telemetry" not in b.host_demand
    assert b.throttle.get("telemetry", 1.0) == 1.0  # 0.5 core fits in 8 x86-equivalents


def test_a_prefetching_loader_stalls_only_by_what_exceeds_the_step() -> None:
    need = PipelineNeed(samples=1000, sample_bytes=1e5, cache_hit_rate=0.0)  # 100 MB per step
    rates = LoaderRates(read_Bps=1e9, decode_samples_per_s=float("inf"))  # 0.1 s to read
    assert data_stall(need, rates, step_s=0.25, prefetch_depth=2).stall_s == 0.0
    assert data_stall(need, rates, step_s=0.04, prefetch_depth=2).stall_s == pytest.approx(0.06)
    serial = data_stall(need, rates, step_s=0.25, prefetch_depth=0)
    assert serial.stall_s == pytest.approx(0.1)
    assert serial.limited_by == "storage"


def test_cache_hits_remove_remote_reads_and_decode_can_be_the_limit() -> None:
    need = PipelineNeed(samples=1000, sample_bytes=1e5, cache_hit_rate=0.9)
    rates = LoaderRates(read_Bps=1e9, decode_samples_per_s=5000.0)
    stall = data_stall(need, rates, step_s=0.1, prefetch_depth=1)
    assert stall.limited_by == "decode"
    assert stall.stall_s == pytest.approx(0.1)


def test_checkpoint_writes_are_capped_by_the_storage_system() -> None:
    # 2.45 TB over 2048 servers at 12 GB/s would take 0.1 s; Tectonic absorbs 2 TB/s: 1.225 s.
    assert checkpoint_seconds(14 * 175e9, 2048, 12e9, aggregate_Bps=2e12) == pytest.approx(1.225)


def test_checkpoint_time_splits_over_servers() -> None:
    assert checkpoint_seconds(14 * 175e9, nodes=1024, write_Bps_per_node=10e9) == pytest.approx(
        0.239, rel=1e-2
    )


def test_tcp_collective_bytes_per_server_by_hand(make_scenario: Any) -> None:
    from fabrictwin.twin.hostside import _network_bytes_per_node
    from fabrictwin.twin.resolve import resolve

    sc = make_scenario(cluster={"fabric": "tcp-100g"})
    r = resolve(sc)
    # ResNet-50, 4 servers, dp 32: 2 x 3/4 x (2 bytes x 25,557,032 parameters) per server.
    assert _network_bytes_per_node(sc, r, dp=32) == pytest.approx(2 * 0.75 * 2 * 25557032)
    ib = make_scenario()
    assert _network_bytes_per_node(ib, resolve(ib), dp=32) == 0.0


def test_a_host_short_of_cores_reports_interference_that_stretches_the_cpu_side_path(
    make_scenario: Any,
) -> None:
    import dataclasses

    from fabrictwin.spec.hardware import CpuSpec
    from fabrictwin.timeline.step import StepTimeline
    from fabrictwin.twin.hostside import evaluate
    from fabrictwin.twin.resolve import resolve

    sc = make_scenario(host={"vswitch": True, "encryption": True, "firewall": True})
    small = CpuSpec(id="tiny", name="tiny", cores=5, base_hz=2e9, tdp_w=100)  # x 2 sockets
    r = dataclasses.replace(resolve(sc), cpu=small)
    tl = StepTimeline(spans=[], step_time_s=0.01, breakdown_s={"compute": 0.008, "step_overhead": 0.002})
    effects = evaluate(sc, r, local_batch=32, dp=32, tl=tl)
    # 8 GPUs x 2 cores of training threads + 0.5 telemetry on 10 cores: over-committed by 65%.
    over = (16 + 0.5) / 10 - 1
    assert effects.interference_s == pytest.approx(0.002 * over)
    assert any("over-committed" in n for n in effects.notes)
