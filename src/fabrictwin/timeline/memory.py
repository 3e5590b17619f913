"""Memory feasibility of a training configuration on one GPU.

Model states per parameter in mixed precision with Adam (Rajbhandari et al. 2020, ZeRO, section
3.1): 2 bytes of 16-bit weights, 2 of gradients, 12 of optimizer state (fp32 master, momentum,
variance). ZeRO-1 shards the 12, ZeRO-2 also the gradients, ZeRO-3/FSDP also the weights, over the
data-parallel group. Activations: per micro-batch, divided by the tensor-parallel degree; a 1F1B
stage keeps up to ``pp`` micro-batches in flight (Narayanan et al. SC'21, section 2.2).
"""

from __future__ import annotations

from dataclasses import dataclass

from fabrictwin.errors import Infeasible
from fabrictwin.units import GiB

# Share of HBM not available to model state and activations: CUDA context, NCCL buffers, cuDNN /
# cuBLAS workspaces and caching-allocator fragmentation. Assumption (typical 5-10% in PyTorch
# memory snapshots); the report names it.
HBM_RESERVED_FRACTION = 0.10

# Activations kept with full recomputation: the layer input only, 2*s*b*h bytes per layer of the
# 34*s*b*h (+attention) kept without it (Korthikanti et al. 2022, section 4.1).
FULL_RECOMPUTE_KEEP = 2.0 / 34.0


@dataclass(frozen=True)
class MemoryBudget:
    """Bytes per GPU."""

    weights: float
    gradients: float
    optimizer: float
    activations: float
    capacity: float

    @property
    def total(self) -> float:
        return self.weights + self.gradients + self.optimizer + self.activations

    def describe(self) -> str:
        parts = (
            f"weights {self.weights / GiB:.1f} GiB",
            f"gradients {self.gradients / GiB:.1f} GiB",
            f"optimizer {self.optimizer / GiB:.1f} GiB",
            f"activations {self.activations / GiB:.1f} GiB",
        )
        return f"{', '.join(parts)} = {self.total / GiB:.1f} GiB of {self.capacity / GiB:.1f} GiB usable"


def memory_budget(
    *,
    params: float,
    activation_bytes_per_sample: float,
    attention_share: float,
    microbatch: float,
    in_flight: float,
    tp: int,
    pp: int,
    dp: int,
    zero_stage: int,
    recompute: str,
    hbm_bytes: float,
) -> MemoryBudget:
    """Per-GPU memory of the configuration. ``attention_share`` is the share of activations that
    selective recomputation drops (the 5as/h term of Korthikanti eq. 1)."""
    local = params / (tp * pp)
    weights = 2.0 * local / (dp if zero_stage >= 3 else 1)
    grads = 2.0 * local / (dp if zero_stage >= 2 else 1)
    optim = 12.0 * local / (dp if zero_stage >= 1 else 1)
    act = activation_bytes_per_sample * microbatch * in_flight / (tp * pp)
    if recompute == "full":
        act *= FULL_RECOMPUTE_KEEP
    elif recompute == "selective":
        act *= 1.0 - attention_share
    return MemoryBudget(weights, grads, optim, act, hbm_bytes * (1.0 - HBM_RESERVED_FRACTION))


def check_fits(budget: MemoryBudget) -> None:
    """Raises:
    Infeasible: the configuration needs more memory than the GPU has, with the numbers.
    """
    if budget.total > budget.capacity:
        raise Infeasible(
            f"does not fit in GPU memory: {budget.describe()}",
            nearest="raise tensor/pipeline parallel, use ZeRO-3/FSDP or activation recomputation",
        )
