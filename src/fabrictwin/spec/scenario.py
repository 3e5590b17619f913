"""Training job and scenario specs: what `fabrictwin simulate` reads.

A scenario names a cluster (server model, node count, compute fabric, DPU), a training job
(model, batch, parallelism, samples to train), the data pipeline, the host's infrastructure
services, reliability figures and prices. Catalog items are referenced by id and resolved by
``fabrictwin.twin``. Quantities accept human units (``"100Gb/s"``, ``"1.2TB"``) and are SI inside.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, model_validator

from fabrictwin.spec.base import Spec
from fabrictwin.spec.hardware import Precision
from fabrictwin.spec.load import load_model
from fabrictwin.spec.quantity import Bytes as _Bytes
from fabrictwin.spec.quantity import BytesPerS as _BytesPerS
from fabrictwin.spec.quantity import Seconds as _Seconds
from fabrictwin.spec.refs import FabricId, GpuId
from fabrictwin.spec.workload import DecoderArchitecture

Bytes = Annotated[_Bytes, Field(ge=0)]
BytesPerS = Annotated[_BytesPerS, Field(ge=0)]
Seconds = Annotated[_Seconds, Field(ge=0)]

# NCCL's own TCP traffic is not offloadable: its socket transport runs in the training process on
# the host; full TCP-stack offload to DPU Arm cores exists only as research (PnO-TCP,
# host-and-dpu-offload-figures.md D-07). So the DPU takes north-south infrastructure work only.
Offload = Literal["vswitch", "storage", "crypto", "firewall", "telemetry"]
ALL_OFFLOADS: tuple[Offload, ...] = ("vswitch", "storage", "crypto", "firewall", "telemetry")


class ClusterChoice(Spec):
    """The hardware the job runs on, by catalog id."""

    system: str = "dgx-h100"
    """Server model id (``dgx-a100``, ``dgx-h100``...)."""
    nodes: int = Field(gt=0)
    """Number of servers."""
    gpu: GpuId | None = None
    """GPU model in place of the server's own: another SKU of the same board in the same chassis
    (an A100 40GB DGX A100, an OEM HGX server); ``None`` takes the server's GPU."""
    fabric: FabricId = "ib-ndr"
    """Compute (east-west) fabric id: ``ib-ndr``, ``roce-400g``, ``tcp-100g``..."""
    nics_per_node: int | None = Field(default=None, gt=0)
    """Compute NIC ports per server; ``None`` takes the server's own count."""
    sharp: bool = False
    """Use in-network reduction (SHARP) for data-parallel all-reduce; InfiniBand only."""
    collectives: Literal["nccl", "nccl-flow", "alpha-beta"] = "nccl-flow"
    """Collective cost model: NCCL-structured analytic (``nccl``), the same with data-parallel
    collectives as max-min fair flows on a built fat tree (``nccl-flow``), or the simple
    hierarchical alpha-beta model (``alpha-beta``)."""
    dpu: str = "none"
    """DPU in each server (``none``, ``bluefield-2``, ``bluefield-3``), run in DPU mode."""
    dpu_offloads: list[Offload] = list(ALL_OFFLOADS)
    """Host infrastructure tasks moved onto the DPU when one is present."""


class ParallelismSpec(Spec):
    """How the job is split. The data-parallel degree is what remains: gpus / (tp * pp * cp)."""

    tp: int = Field(default=1, gt=0)
    """Tensor-parallel degree (inside one server's NVLink domain)."""
    pp: int = Field(default=1, gt=0)
    """Pipeline-parallel stages."""
    ep: int = Field(default=1, gt=0)
    """Expert-parallel degree for mixture-of-experts models (carved out of data parallel)."""
    cp: int = Field(default=1, gt=0)
    """Context-parallel degree: each sequence is split over ``cp`` GPUs, which exchange keys and
    values around a ring to attend over the whole sequence (Megatron-Core context parallelism).
    GPUs = tp x pp x cp x dp; gradients are reduced over dp x cp."""
    zero_stage: Literal[0, 1, 2, 3] = 0
    """ZeRO stage: 1 shards optimizer state, 2 adds gradients, 3 adds parameters (= FSDP)."""
    schedule: Literal["1f1b", "interleaved"] = "1f1b"
    """Pipeline schedule."""
    virtual_stages: int = Field(default=1, gt=0)
    """Model chunks per pipeline stage for the interleaved schedule."""
    microbatch_size: int | None = Field(default=None, gt=0)
    """Samples per micro-batch (pipeline and gradient accumulation). ``None``: 1 with pipeline
    parallelism; without it, the whole local batch, or the largest divisor of it that fits in
    memory (gradient accumulation)."""
    recompute: Literal["none", "selective", "full"] = "none"
    """Activation recomputation."""
    bucket_bytes: Bytes = 25 * 1024 * 1024
    """Gradient bucket size, bytes (PyTorch DDP ``bucket_cap_mb`` default 25 MiB,
    https://pytorch.org/docs/stable/generated/torch.nn.parallel.DistributedDataParallel.html)."""


class JobSpec(Spec):
    """The training job."""

    model: str | DecoderArchitecture
    """Model id from the model zoo (``resnet-50``, ``bert-large``, ``gpt3-175b``...), or the shape
    of a decoder transformer that is not in it (:class:`DecoderArchitecture`)."""
    global_batch: int = Field(gt=0)
    """Samples per optimizer step (images, sequences)."""
    samples_to_train: float = Field(gt=0)
    """Samples processed until the target is reached (epochs x dataset, or tokens / seq_len)."""
    precision: Precision = "bf16"
    """Precision of the tensor-core math."""
    seq_len: int | None = Field(default=None, gt=0)
    """Tokens per sample (language models); ``None`` takes the model's default."""
    software: Literal["mlperf", "eager"] = "mlperf"
    """Software profile of the compute efficiencies: ``mlperf`` tuned code (MLPerf submissions,
    Megatron-class stacks: fused kernels, CUDA graphs), ``eager`` plain eager PyTorch AMP (fitted on
    H200 step times, ``calibration/``; see ``docs/models/compute.md``)."""

    @property
    def model_name(self) -> str:
        """The zoo id, or the inline architecture's name."""
        return self.model if isinstance(self.model, str) else self.model.name


class DataSpec(Spec):
    """The input pipeline and storage path of one server."""

    sample_bytes: Bytes | None = None
    """Stored size of one sample, bytes; ``None`` takes the model's dataset default."""
    cache_hit_rate: float = Field(default=0.0, ge=0, le=1)
    """Share of sample reads served from the node's page cache or local NVMe."""
    storage_read_Bps: BytesPerS = 25e9
    """Read bandwidth per server over the storage fabric, bytes/s (2 x 200 Gb/s storage NICs ~ 50 GB/s
    line rate; DGX SuperPOD RA asks > 40 GB/s per DGX H100 with GDS, fabric-and-network-models.md 3.5)."""
    storage_write_Bps: BytesPerS = 12e9
    """Write bandwidth per server for checkpoints, bytes/s."""
    storage_aggregate_write_Bps: BytesPerS = 2e12
    """Write bandwidth of the whole storage system, bytes/s (Meta Tectonic for Llama 3: 2 TB/s
    sustained, 7 TB/s peak; host-and-dpu-offload-figures.md F-01)."""
    protocol: Literal["nfs", "nvmeof", "local"] = "nfs"
    """Storage client protocol on the host."""
    gpudirect_storage: bool = False
    """GPUDirect Storage: DMA from storage into GPU memory, no host bounce buffer."""
    decode_on_gpu: bool = True
    """Image decode and augmentation on the GPU (DALI), else on host cores."""
    prefetch_depth: int = Field(default=2, ge=0)
    """Batches the loader reads ahead; 0 means reads are serial with compute."""


class HostSpec(Spec):
    """Infrastructure services the server runs besides training (on the host unless offloaded)."""

    vswitch: bool = False
    """Tenant virtual switching (OVS) on the data path of storage / north-south traffic."""
    encryption: bool = False
    """Encrypt traffic in flight (IPsec/TLS) for storage and north-south traffic."""
    firewall: bool = False
    """Stateful firewall (connection tracking) for storage / north-south traffic."""
    telemetry: bool = True
    """Monitoring agents (node exporter, DCGM, log shipping)."""
    jitter_cv: float | None = Field(default=None, ge=0, le=0.5)
    """Per-server step-time noise, coefficient of variation; ``None`` derives it from the host load."""


class ReliabilitySpec(Spec):
    """Failures and checkpoints."""

    failures_per_gpu_hour: float = Field(default=419 / (54 * 24 * 16384), ge=0)
    """Job-interrupting failures per GPU-hour. Default: Llama 3 405B, 419 unexpected interruptions
    in 54 days on 16,384 H100 (fabric-and-network-models.md 4.5) = 1.97e-5."""
    restart_s: Seconds = 600.0
    """Time from failure to training again (detect, reschedule, reload), s. Assumption: no
    published per-restart figure in the references; set it for your cluster."""
    checkpoint_interval_s: Seconds | None = None
    """Seconds of work between checkpoints; ``None`` takes the Young/Daly optimum."""


class CostSpec(Spec):
    """Prices and power accounting."""

    usd_per_gpu_hour: float = Field(default=2.5, ge=0)
    """All-in price of one GPU-hour, USD (assumption: an input, cloud list prices vary ~2-4)."""
    pue: float = Field(default=1.3, ge=1.0)
    """Power usage effectiveness of the data center (assumption; input)."""
    model: Literal["rental", "owner"] = "rental"
    """How ``cost_usd`` is priced: ``rental`` = GPU-hours x ``usd_per_gpu_hour`` (cloud view);
    ``owner`` = servers + network bill of materials amortized over the run, plus energy
    (``fabrictwin.twin.cost``, docs/models/cost.md)."""
    amortization_years: float = Field(default=4.0, gt=0)
    """Owner model: straight-line useful life of servers and network, years. Assumption: 4 years,
    the server life AWS used from 2020 (hyperscalers now book 5-6 years; thecuberesearch.com
    Breaking Analysis 298 'Resetting GPU Depreciation'); GPUs age faster than CPUs, so shorter."""
    usd_per_kwh: float = Field(default=0.0806, ge=0)
    """Owner model: electricity price, USD per kWh. Default: US average industrial retail price
    2023, 8.06 cents/kWh (EIA, via statista.com statistic 190680)."""
    server_usd: float | None = Field(default=None, ge=0)
    """Owner model: price of one server WITHOUT its network adapters, USD (the bill of materials
    prices the adapters the design picks); ``None`` takes the catalog's as-shipped price of the system."""


class ScenarioSpec(Spec):
    """One design to simulate."""

    name: str = "scenario"
    """Free-form name shown in reports."""
    cluster: ClusterChoice
    job: JobSpec
    parallelism: ParallelismSpec = ParallelismSpec()
    data: DataSpec = DataSpec()
    host: HostSpec = HostSpec()
    reliability: ReliabilitySpec = ReliabilitySpec()
    cost: CostSpec = CostSpec()

    @model_validator(mode="after")
    def _interleaved_needs_chunks(self) -> ScenarioSpec:
        p = self.parallelism
        if p.schedule == "interleaved" and p.virtual_stages < 2:
            raise ValueError("parallelism.virtual_stages must be >= 2 for the interleaved schedule")
        return self


def load_scenario(source: str | Path, *, text: str | None = None) -> ScenarioSpec:
    """Read a scenario YAML file (or ``text``) through :mod:`fabrictwin.spec.load`.

    Raises:
        SpecError: unreadable file, bad YAML, unknown key, bad unit or value, located by file,
            line and YAML path.
    """
    return load_model(source, ScenarioSpec, text=text)
