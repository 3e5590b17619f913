"""Shared builders for the twin tests."""

from __future__ import annotations

from typing import Any

import pytest

from fabrictwin.spec.hardware import GpuSpec
from fabrictwin.spec.scenario import ScenarioSpec
from fabrictwin.timeline.step import StepConfig
from fabrictwin.timeline.workload import ComputeCalibration, WorkloadProfile

GPU = GpuSpec(
    id="test-gpu",
    name="test",
    peak_flops={"bf16": 1e15},
    hbm_bytes=80e9,
    hbm_Bps=2e12,
    nvlink_Bps=450e9,
    pcie_Bps=64e9,
    tdp_w=700,
)

# Pure FLOP-bound workload: 1 TFLOP of training per sample at eta 1 on a 1 PFLOP/s GPU = 1 ms/sample.
CAL = ComputeCalibration(tensor_efficiency=1.0, mem_bytes_per_sample=0.0, step_overhead_s=0.0, source="test")
TRANSFORMER = WorkloadProfile(
    id="toy",
    family="transformer",
    params=1e9,
    active_params=1e9,
    fwd_flops_per_sample=1e12 / 3,
    layers=16,
    hidden=1024,
    heads=16,
    tokens_per_sample=512,
    activation_bytes_per_sample=1e6,
    sample_bytes=2048,
    sample_kind="text",
    calibration=CAL,
)


def no_comm(op: str, nbytes: float, group: str) -> float:
    return 0.0


def config(**overrides: Any) -> StepConfig:
    base: dict[str, Any] = dict(
        workload=TRANSFORMER,
        gpu=GPU,
        precision="bf16",
        tp=1,
        pp=1,
        dp=1,
        ep=1,
        zero_stage=0,
        virtual_stages=1,
        microbatch=1.0,
        microbatches=1,
        recompute="none",
        bucket_bytes=25 * 2**20,
        comm=no_comm,
    )
    base.update(overrides)
    return StepConfig(**base)


def scenario(**sections: Any) -> ScenarioSpec:
    """A small valid scenario (ResNet-50, 4 DGX H100 over IB NDR), sections overridden."""
    data: dict[str, Any] = {
        "name": "test",
        "cluster": {"system": "dgx-h100", "nodes": 4, "fabric": "ib-ndr"},
        "job": {"model": "resnet50", "global_batch": 1024, "samples_to_train": 1.28e6},
        "data": {"cache_hit_rate": 1.0},
    }
    for key, value in sections.items():
        data[key] = {**data.get(key, {}), **value}
    return ScenarioSpec.model_validate(data)


@pytest.fixture
def make_config() -> Any:
    """Factory of step configs (toy transformer, free communication unless overridden)."""
    return config


@pytest.fixture
def make_scenario() -> Any:
    """Factory of small valid scenarios."""
    return scenario


@pytest.fixture
def toy() -> WorkloadProfile:
    return TRANSFORMER


@pytest.fixture
def test_gpu() -> GpuSpec:
    return GPU
