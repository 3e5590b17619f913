"""Turn a scenario's catalog ids into specs and a workload profile.

Every id is looked up in the shared catalog (:mod:`fabrictwin.catalog`).
"""

from __future__ import annotations

from dataclasses import dataclass

from fabrictwin import catalog
from fabrictwin.spec.hardware import CpuSpec, FabricSpec, GpuSpec, NicSpec, SwitchSpec, SystemSpec
from fabrictwin.spec.scenario import ScenarioSpec
from fabrictwin.spec.workload import ModelSpec
from fabrictwin.timeline.workload import ComputeCalibration, WorkloadProfile
from fabrictwin.twin.calibration import calibration_for

# Friendly DPU names -> catalog NIC ids (BlueField-3 B3220 is the DGX H100's storage DPU).
DPU_ALIASES = {"bluefield-3": "bf3-b3220", "bluefield-2": "bf2-2p-100g"}
MODEL_ALIASES = {"resnet-50": "resnet50"}

# Stored size of one sample. ImageNet-1k train: 1.28M JPEGs, ~140 GB -> ~110 kB each
# (tensorpack ImageNet DataFlow tutorial). Text: pre-tokenized int32 ids, 4 bytes per token.
IMAGE_SAMPLE_BYTES = 140e9 / 1.281167e6
TEXT_BYTES_PER_TOKEN = 4.0


@dataclass(frozen=True)
class Resolved:
    """The scenario's hardware and workload as specs."""

    system: SystemSpec
    gpu: GpuSpec
    cpu: CpuSpec
    fabric: FabricSpec
    switch: SwitchSpec | None
    dpu: NicSpec | None
    model: ModelSpec
    workload: WorkloadProfile
    nics_per_node: int

    @property
    def gpus(self) -> int:
        return self.system.gpus


def resolve(scenario: ScenarioSpec, calibration: ComputeCalibration | None = None) -> Resolved:
    """Look up every id of ``scenario``.

    Raises:
        NotFound: an id the catalog does not hold.
    """
    c = scenario.cluster
    system = catalog.system(c.system)
    gpu = catalog.gpu(c.gpu or system.gpu)
    cpu = catalog.cpu(system.cpu)
    fabric = catalog.fabric(c.fabric)
    dpu = None if c.dpu == "none" else catalog.nic(DPU_ALIASES.get(c.dpu, c.dpu))
    job_model = scenario.job.model
    if isinstance(job_model, str):
        model = catalog.model(MODEL_ALIASES.get(job_model, job_model))
    else:
        model = job_model.model_spec()
    nics = c.nics_per_node or system.compute_nics or 1
    cal = calibration or calibration_for(model.family, scenario.job.software)
    prof = profile(model, scenario.job.seq_len, cal)
    switch = catalog.switch(fabric.switch) if fabric.switch else None
    return Resolved(system, gpu, cpu, fabric, switch, dpu, model, prof, nics)


def profile(
    model: ModelSpec, seq_len: int | None = None, calibration: ComputeCalibration | None = None
) -> WorkloadProfile:
    """The compute-side profile of ``model`` (``seq_len`` overrides its training length;
    ``calibration`` overrides the family's fitted constants, for fitting)."""
    tokens = 1 if model.unit == "image" else (seq_len or model.seq_len)
    per_unit_tokens = model.seq_len if model.unit == "sequence" else 1
    attn_fwd = 0.0
    if model.unit == "image":
        fwd = model.forward_flop_per_unit
        act = model.activation_bytes_per_unit_per_layer * model.layers
    else:
        # Per token at the model's length, then re-derive the attention term for this length
        # (Kaplan et al. 2020, Table 1: 2 n_layer n_ctx d_attn per token).
        per_token = model.forward_flop_per_unit / per_unit_tokens
        attn = 2.0 * model.layers * model.hidden
        fwd = (per_token - attn * model.seq_len + attn * tokens) * tokens
        attn_fwd = attn * tokens * tokens
        act = model.activation_bytes_per_unit_per_layer / per_unit_tokens * model.layers * tokens
    image = model.unit == "image"
    return WorkloadProfile(
        id=model.id,
        family="cnn" if model.family == "cnn" else "transformer",
        params=model.parameters,
        active_params=model.params_per_token,
        fwd_flops_per_sample=fwd,
        layers=model.layers,
        hidden=model.hidden,
        heads=model.heads,
        tokens_per_sample=tokens,
        activation_bytes_per_sample=act,
        sample_bytes=IMAGE_SAMPLE_BYTES if image else TEXT_BYTES_PER_TOKEN * tokens,
        sample_kind="image" if image else "text",
        calibration=calibration or calibration_for(model.family),
        experts=model.experts,
        top_k=model.top_k,
        kv_heads=model.kv_heads,
        attention_fwd_flops_per_sample=attn_fwd,
    )
