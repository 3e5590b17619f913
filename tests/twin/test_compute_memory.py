"""Roofline compute time, the step with data-parallel overlap, and memory feasibility."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from fabrictwin.errors import Infeasible
from fabrictwin.spec.hardware import GpuSpec
from fabrictwin.timeline.compute import microbatch_time, optimizer_time
from fabrictwin.timeline.memory import check_fits, memory_budget
from fabrictwin.timeline.step import simulate_step
from fabrictwin.timeline.workload import ComputeCalibration, WorkloadProfile


def test_flop_bound_time_is_flops_over_peak_times_efficiency(toy: WorkloadProfile, test_gpu: GpuSpec) -> None:
    # 1 TFLOP per sample, 4 samples, 1 PFLOP/s at eta 1: 4 ms; forward a third.
    t = microbatch_time(toy, test_gpu, "bf16", samples=4, shards=1)
    assert t.forward_s == pytest.approx(4e-3 / 3)
    assert t.backward_s == pytest.approx(8e-3 / 3)
    half = replace(toy, calibration=ComputeCalibration(0.5, 0.0, 0.0, "t"))
    assert microbatch_time(half, test_gpu, "bf16", 4, 1).forward_s == pytest.approx(8e-3 / 3)


def test_memory_traffic_adds_at_hbm_bandwidth(toy: WorkloadProfile, test_gpu: GpuSpec) -> None:
    # 2e9 bytes per sample at 2e12 B/s = 1 ms more per sample.
    mem = replace(toy, calibration=ComputeCalibration(1.0, 2e9, 0.0, "t"))
    t = microbatch_time(mem, test_gpu, "bf16", samples=1, shards=1)
    assert t.forward_s + t.backward_s == pytest.approx(2e-3)


def test_full_recompute_adds_one_forward_to_backward(toy: WorkloadProfile, test_gpu: GpuSpec) -> None:
    plain = microbatch_time(toy, test_gpu, "bf16", 1, 1)
    full = microbatch_time(toy, test_gpu, "bf16", 1, 1, recompute="full")
    assert full.backward_s == pytest.approx(plain.backward_s + plain.forward_s)


def test_optimizer_reads_and_writes_32_bytes_per_parameter(test_gpu: GpuSpec) -> None:
    assert optimizer_time(1e9, test_gpu) == pytest.approx(32e9 / 2e12)


def test_gradient_buckets_hide_communication_behind_backward(make_config: Any) -> None:
    # Each bucket's all-reduce takes 0.1 ms; backward is 2/3 of 1 ms per sample x 8 samples.
    cfg = make_config(dp=64, microbatch=8.0, comm=lambda op, n, g: 1e-4)
    tl = simulate_step(cfg)
    buckets = sum(1 for s in tl.spans if s.category == "comm:dp_all_reduce")
    assert buckets > 1
    exposed = tl.breakdown_s.get("comm:dp_all_reduce", 0.0)
    assert exposed == pytest.approx(1e-4)  # only the last bucket is exposed
    assert exposed < buckets * 1e-4


def test_slow_communication_is_exposed_beyond_the_backward_pass(make_config: Any) -> None:
    cfg = make_config(dp=64, microbatch=8.0, comm=lambda op, n, g: 5e-3)
    tl = simulate_step(cfg)
    n = sum(1 for s in tl.spans if s.category == "comm:dp_all_reduce")
    backward = 8e-3 * 2 / 3
    # comm starts after the first bucket's backward slice and then runs back to back
    expected = backward / n + n * 5e-3 - backward
    assert tl.breakdown_s["comm:dp_all_reduce"] == pytest.approx(expected, rel=1e-9)


def test_zero3_gathers_parameters_and_scatters_gradients(make_config: Any) -> None:
    tl = simulate_step(make_config(dp=8, zero_stage=3, comm=lambda op, n, g: 1e-5))
    cats = {s.category for s in tl.spans}
    assert {"comm:dp_all_gather", "comm:dp_reduce_scatter"} <= cats


def test_zero3_computes_every_microbatch(make_config: Any) -> None:
    one = simulate_step(make_config(dp=8, zero_stage=3, microbatches=1))
    four = simulate_step(make_config(dp=8, zero_stage=3, microbatches=4))
    assert four.breakdown_s["compute"] == pytest.approx(4 * one.breakdown_s["compute"])


def test_zero3_with_pipeline_parallelism_is_refused(make_config: Any) -> None:
    with pytest.raises(Infeasible, match="ZeRO-3"):
        simulate_step(make_config(dp=8, pp=2, microbatches=2, zero_stage=3))


def test_model_states_follow_the_zero_paper() -> None:
    # 1e9 params, no sharding: 2 + 2 + 12 bytes per parameter (Rajbhandari et al. 2020, 3.1).
    b = memory_budget(
        params=1e9,
        activation_bytes_per_sample=0.0,
        attention_share=0.0,
        microbatch=1,
        in_flight=1,
        tp=1,
        pp=1,
        dp=8,
        zero_stage=0,
        recompute="none",
        hbm_bytes=80e9,
    )
    assert (b.weights, b.gradients, b.optimizer) == (2e9, 2e9, 12e9)
    z3 = memory_budget(
        params=1e9,
        activation_bytes_per_sample=0.0,
        attention_share=0.0,
        microbatch=1,
        in_flight=1,
        tp=1,
        pp=1,
        dp=8,
        zero_stage=3,
        recompute="none",
        hbm_bytes=80e9,
    )
    assert (z3.weights, z3.gradients, z3.optimizer) == (2e9 / 8, 2e9 / 8, 12e9 / 8)


def test_a_model_that_does_not_fit_raises_infeasible_with_the_numbers() -> None:
    b = memory_budget(
        params=70e9,
        activation_bytes_per_sample=0.0,
        attention_share=0.0,
        microbatch=1,
        in_flight=1,
        tp=1,
        pp=1,
        dp=1,
        zero_stage=0,
        recompute="none",
        hbm_bytes=80e9,
    )
    with pytest.raises(Infeasible, match=r"optimizer 782\.3 GiB"):
        check_fits(b)
