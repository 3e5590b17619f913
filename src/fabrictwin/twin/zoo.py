"""Local adapter: catalog items the twin needs that the shared catalog does not (yet) hold.

The shared catalog (``fabrictwin.catalog``) wins whenever it knows an id; these entries only
fill its gaps: the 2-GPU A30 server of the MLPerf v2.0 calibration rows, and Megatron's
1T GPT of the C-P10 calibration row. Every number carries its source.
"""

from __future__ import annotations

from typing import Any

import fabrictwin.catalog  # noqa: F401  (registers the catalog resolver that checks the ids below)
from fabrictwin.spec.base import Source
from fabrictwin.spec.hardware import GpuSpec, SystemSpec
from fabrictwin.spec.workload import ModelSpec

GPUS: dict[str, GpuSpec] = {}
"""GPUs the catalog lacks (none at present: it gained the A30)."""


def _system(**fields: Any) -> SystemSpec:
    return SystemSpec.model_validate(fields)


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


def _megatron_1t() -> ModelSpec:
    """GPT 1T of Narayanan et al. SC'21 (Table 1: 128 layers, hidden 25,600, 160 heads, seq 2048,
    vocab 51,200); parameters by their eq.: 12 l h^2 (1 + 13/12h + (V + s)/12lh) = 1.008e12."""
    layers, hidden, seq, vocab = 128, 25600, 2048, 51200
    params = 12 * layers * hidden**2 * (1 + 13 / (12 * hidden) + (vocab + seq) / (12 * layers * hidden))
    return ModelSpec(
        id="gpt-1t-megatron",
        name="GPT 1T (Megatron-LM, Narayanan et al. 2021)",
        family="decoder",
        parameters=params,
        layers=layers,
        hidden=hidden,
        heads=160,
        vocab=vocab,
        seq_len=seq,
        unit="token",
        # Kaplan et al. 2020 Table 1: 2N + 2 l s h per token; activations 34 h per token per layer
        # (Korthikanti et al. 2022 eq. 1 without the attention term, as the catalog's decoders).
        forward_flop_per_unit=2 * params + 2 * layers * seq * hidden,
        activation_bytes_per_unit_per_layer=34 * hidden,
        sources=[
            Source(
                ref="Narayanan et al., SC'21, arXiv 2104.04473, Table 1",
                note="1T: 128 layers, hidden 25600, 160 heads; t=8, p=64, batch 3072 on 3072 A100",
            )
        ],
    )


MODELS: dict[str, ModelSpec] = {"gpt-1t-megatron": _megatron_1t()}
