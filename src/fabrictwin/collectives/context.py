"""The communicator a collective runs on: hardware, fabric, group layout and routing."""

from __future__ import annotations

from functools import cached_property
from typing import Any, Literal

from pydantic import ConfigDict, Field, model_validator

from fabrictwin.collectives.nccl_constants import Arch
from fabrictwin.errors import Infeasible, SpecError
from fabrictwin.netsolver.transport import TransportModel, transport_model
from fabrictwin.spec.base import Spec
from fabrictwin.spec.hardware import FabricSpec, GpuSpec, SwitchSpec, SystemSpec, Transport

Routing = Literal["auto", "dmodk", "ecmp", "adaptive"]

_ARCH_BY_PREFIX: tuple[tuple[str, Arch], ...] = (
    # GPU catalog id prefix -> NCCL architecture row (compute capability 7.0/8.0/9.0/10.0)
    ("p100", "volta"),  # sm60: NCCL's tuner uses its Volta row below sm80
    ("v100", "volta"),
    ("a100", "ampere"),
    ("a30", "ampere"),  # sm80
    ("l40", "ampere"),  # sm89: NCCL's Ampere row covers 8.x
    ("a800", "ampere"),
    ("h100", "hopper"),
    ("h200", "hopper"),
    ("h800", "hopper"),
    ("h20", "hopper"),
    ("gh200", "hopper"),
    ("b200", "blackwell"),
    ("b300", "blackwell"),
    ("gb200", "blackwell"),
    ("gb300", "blackwell"),
)


def gpu_arch(gpu: GpuSpec) -> Arch:
    """NCCL architecture row of a GPU, from its catalog id.

    Raises:
        SpecError: the GPU id matches no known architecture.
    """
    gid = gpu.id.lower()
    for prefix, arch in _ARCH_BY_PREFIX:
        if gid.startswith(prefix):
            return arch
    known = ", ".join(p for p, _ in _ARCH_BY_PREFIX)
    raise SpecError(f"GPU {gpu.id!r} has no known NCCL architecture; known prefixes: {known}")


class CommContext(Spec):
    """One communicator: who takes part, on what hardware, over which fabric.

    Ranks are laid out ``ranks_per_node`` per node on ``nodes`` nodes (``ranks_per_node ==
    gpus_per_node``: packed, e.g. a full data-parallel job; ``1``: spread one per node, e.g. a
    data-parallel group of a tensor-parallel job). Each rank owns ``nics_per_node /
    gpus_per_node`` NIC ports (its rail).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    system: SystemSpec
    """The GPU server."""
    gpu: GpuSpec
    """Its GPU (decides NVLink bandwidth and the NCCL architecture row)."""
    fabric: FabricSpec
    """The scale-out (east-west) fabric."""
    switch: SwitchSpec | None = None
    """The fabric's switch model (SHARP capability, port latency); None: unknown."""
    nodes: int = Field(gt=0)
    """Servers taking part."""
    gpus_per_node: int = Field(gt=0)
    """GPUs per server (NVLink domain size for NVLS)."""
    ranks_per_node: int | None = None
    """Ranks of this communicator on each node (default: ``gpus_per_node``)."""
    nics_per_node: int = Field(gt=0)
    """Compute NIC ports per server."""
    transport: Transport | None = None
    """Force a transport on the fabric's links (default: the fabric's own)."""
    sharp: bool = False
    """Allow in-network reduction (InfiniBand SHARP via NCCL CollNet)."""
    routing: Routing = "auto"
    """Path selection: D-mod-K static, ECMP hashing, adaptive; auto = transport default."""
    qps: int = Field(default=1, gt=0)
    """Queue pairs (RoCE/IB) or streams per connection, spread by ECMP."""
    gpudirect: bool = True
    """GPUDirect RDMA (NIC reads GPU memory); False: staged through host memory."""
    loss_rate: float = Field(default=0.0, ge=0.0, lt=1.0)
    """Packet loss rate the transport sees (link errors; congestion drops without PFC).
    InfiniBand repairs it at the link; RoCE pays Go-back-N, TCP Mathis window halving."""
    nccl_version: str | None = Field(default=None, pattern=r"^\d+\.\d+(\.\d+)?(-\d+)?$")
    """NCCL release whose tuner picks the algorithm (e.g. ``"2.18.5"``); None: a current one.
    Only the choice changes; the achieved cost is the calibrated model
    (:mod:`fabrictwin.collectives.tuner`)."""
    gpus_per_thread: int = Field(default=1, gt=0, le=64)
    """GPUs one host thread drives (nccl-tests ``-g``): it enqueues and launches the kernels of
    all of them in turn, so that many launches bound how fast back-to-back collectives can go.
    1 for training jobs (torchrun, mpirun, Slurm: one process per GPU)."""
    topology: Any = None
    """A built topology (fabrictwin.topology) for flow-level fidelity; None: analytic only."""

    @model_validator(mode="after")
    def _check_layout(self) -> CommContext:
        rpn = self.ppn
        if rpn > self.gpus_per_node:
            raise SpecError(
                f"ranks_per_node {rpn} exceeds gpus_per_node {self.gpus_per_node}",
                path="ranks_per_node",
            )
        return self

    @property
    def ppn(self) -> int:
        """Ranks per node."""
        return self.ranks_per_node if self.ranks_per_node is not None else self.gpus_per_node

    @property
    def ranks(self) -> int:
        """Ranks in the communicator."""
        return self.nodes * self.ppn

    @cached_property
    def arch(self) -> Arch:
        """NCCL architecture row."""
        return gpu_arch(self.gpu)

    @cached_property
    def net(self) -> TransportModel:
        """Transport model on the fabric's links."""
        return transport_model(self.fabric, transport=self.transport)

    @property
    def routing_policy(self) -> Literal["dmodk", "ecmp", "adaptive"]:
        """Resolved routing policy."""
        return self.net.default_routing if self.routing == "auto" else self.routing

    @property
    def nvlink_Bps(self) -> float:
        """Per-GPU one-way bandwidth to its peers in the server, bytes/s."""
        return self.system.intra_node_Bps

    @property
    def nics_per_rank(self) -> float:
        """NIC ports each rank uses (its rail share)."""
        return self.nics_per_node / self.gpus_per_node

    @property
    def sharp_capable(self) -> bool:
        """In-network reduction is possible: IB transport on SHARP switches, enabled."""
        return (
            self.sharp
            and self.net.transport == "infiniband"
            and self.switch is not None
            and self.switch.sharp
        )

    def require_sharp(self) -> None:
        """Raises Infeasible with the reason when SHARP cannot run on this communicator."""
        if not self.sharp:
            raise Infeasible("SHARP requested but the context has sharp=False")
        if self.net.transport != "infiniband":
            raise Infeasible(f"SHARP needs InfiniBand; transport is {self.net.transport}")
        if self.switch is None or not self.switch.sharp:
            name = self.switch.id if self.switch else "unknown"
            raise Infeasible(f"SHARP needs Quantum switches with SHARP; switch is {name}")
