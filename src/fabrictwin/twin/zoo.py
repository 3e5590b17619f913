"""Local adapter: catalog items the twin needs that the shared catalog does not (yet) hold.

The shared catalog (``fabrictwin.catalog``) wins whenever it knows an id; these entries only
fill its gaps: the A30 GPU and 2-GPU server of the MLPerf v2.0 calibration rows. Every number
carries its source.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fabrictwin import catalog
from fabrictwin.spec.base import Source
from fabrictwin.spec.hardware import GpuSpec, SystemSpec

GPUS: dict[str, GpuSpec] = {
    "a30": GpuSpec(
        id="a30",
        name="NVIDIA A30 24GB",
        peak_flops={"fp64": 5.2e12, "tf32": 82e12, "bf16": 165e12, "fp16": 165e12, "int8": 330e12},
        hbm_bytes=24e9,
        hbm_Bps=933e9,
        nvlink_Bps=100e9,
        pcie_Bps=32e9,
        tdp_w=165.0,
        sources=[
            Source(
                ref="https://www.nvidia.com/en-us/data-center/products/a30-gpu/",
                note="A30 datasheet: 165 TFLOPS BF16/FP16 dense, 24 GB HBM2 933 GB/s, NVLink 200 GB/s",
            )
        ],
    ),
}


class _WithLocal:
    """Catalog ids plus this adapter's, for validating entries that refer to local ids."""

    def ids(self, kind: str) -> Sequence[str]:
        local = list(GPUS) if kind == "gpu" else []
        return [*catalog.ids(kind), *local]

    def get(self, kind: str, entry_id: str) -> Any:
        if kind == "gpu" and entry_id in GPUS:
            return GPUS[entry_id]
        return catalog.get(kind, entry_id)


def _system(**fields: Any) -> SystemSpec:
    return SystemSpec.model_validate(fields, context={"catalog": _WithLocal()})


SYSTEMS: dict[str, SystemSpec] = {
    "a30-2gpu": _system(
        id="a30-2gpu",
        name="2x A30 server (MLPerf v2.0 NVIDIA 2xa30)",
        gpu="a30",
        gpus=2,
        cpu="epyc-7742",
        cpu_sockets=1,
        nvswitch=False,
        intra_node_Bps=100e9,
        compute_nics=1,
        compute_nic="cx6-hdr",
        storage_nics=0,
        storage_nic="cx6-hdr",
        host_memory_bytes=5e11,
        power_w=1200,
        rack_units=2,
        sources=[
            Source(
                ref="training_results_v2.0 NVIDIA/systems/2xa30_ngc22.04_mxnet.json",
                note="2 A30 with NVLink bridge 200 GB/s (both directions); CPU and power assumed",
            )
        ],
    ),
}
