"""What the step model needs to know about a neural network, and its calibration.

A :class:`WorkloadProfile` is the compute-side view of a model: parameters, FLOPs and memory
traffic per sample, layer shape for tensor/pipeline/expert parallel traffic, and a
:class:`ComputeCalibration` (efficiencies fitted on MLPerf rows, see ``docs/models/compute.md``).
``fabrictwin.twin`` builds profiles from the catalog's model zoo.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class ComputeCalibration:
    """Efficiency constants of the compute roofline for one model family.

    ``tensor_efficiency`` is the achieved share of dense tensor-core peak in the FLOP-bound kernels;
    ``mem_bytes_per_sample`` the HBM traffic (training, per sample) of the memory-bound kernels,
    counted at peak HBM bandwidth; ``step_overhead_s`` a per-step fixed cost (kernel launch floors,
    host synchronisation) that does not shrink with the per-GPU batch.
    """

    tensor_efficiency: float
    mem_bytes_per_sample: float
    step_overhead_s: float
    source: str
    attention_efficiency: float | None = None
    """Share of 16-bit dense peak reached by the attention score and context matmuls
    (FlashAttention); None: ``tensor_efficiency``."""
    fp8_efficiency: float | None = None
    """Share of fp8 dense peak reached by the linear layers when they run in fp8 (Transformer
    Engine: GEMMs plus their scaling and casts); None: ``tensor_efficiency``."""
    narrow_gemm_width: float = 0.0
    """Transformers: the linear layers of a model of hidden width ``h`` take ``1 + w/h`` times
    the time of wide ones (w = this width): narrow GEMMs fill fewer tensor-core tiles and waves,
    and the per-token work that grows as ``h`` (norms, residuals, activations) weighs more
    against the ``h^2`` GEMMs. 0: no width effect."""


@dataclass(frozen=True)
class WorkloadProfile:
    """The compute-side description of a model (SI units; FLOPs are 2 x multiply-adds)."""

    id: str
    family: Literal["cnn", "transformer"]
    params: float
    """Total parameters."""
    active_params: float
    """Parameters touched per token (MoE: shared + top-k experts), used for FLOPs."""
    fwd_flops_per_sample: float
    """Forward FLOPs per sample (a training step costs 3x this: backward = 2x forward)."""
    layers: int
    hidden: int
    heads: int
    tokens_per_sample: int
    """Tokens per sample (1 for images)."""
    activation_bytes_per_sample: float
    """Activations saved for backward per sample, all layers, no recompute, bytes."""
    sample_bytes: float
    """Stored size of one training sample, bytes."""
    sample_kind: Literal["image", "text"]
    calibration: ComputeCalibration
    experts: int = 1
    top_k: int = 1
    kv_heads: int = 0
    """Key/value heads (grouped-query attention); 0 means equal to ``heads``."""
    attention_fwd_flops_per_sample: float = 0.0
    """The part of ``fwd_flops_per_sample`` in attention score and context matmuls
    (2 layers x tokens x hidden per token, Kaplan et al. 2020, Table 1); it stays 16-bit under fp8."""

    @property
    def train_flops_per_sample(self) -> float:
        """FLOPs of forward + backward per sample (backward = 2 x forward: Kaplan et al. 2020, 2.1)."""
        return 3.0 * self.fwd_flops_per_sample

    @property
    def kv_hidden(self) -> int:
        """Width of the key (or value) projection: hidden x kv_heads / heads."""
        if not self.heads or not self.kv_heads:
            return self.hidden
        return self.hidden * self.kv_heads // self.heads

    @property
    def is_moe(self) -> bool:
        return self.experts > 1

    def params_per_ep_rank(self, ep: int) -> float:
        """Parameters one expert-parallel rank holds: shared weights plus experts / ep.

        One expert's weights E = (total - active) / (experts - top_k); shared = active - top_k E
        (e.g. Mixtral 8x7B: E = (46.7 - 12.9) / 6 = 5.6B, shared 1.6B).
        """
        if not self.is_moe or ep <= 1 or self.experts == self.top_k:
            return self.params
        expert = (self.params - self.active_params) / (self.experts - self.top_k)
        shared = self.active_params - self.top_k * expert
        return shared + self.experts * expert / ep


def transformer_fwd_flops(active_params: float, layers: int, hidden: int, tokens: int) -> float:
    """Forward FLOPs of one sequence: 2N per token plus attention 2 * L * s * h per token.

    Kaplan et al. 2020, "Scaling Laws for Neural Language Models", Table 1:
    C_forward = 2N + 2 n_layer n_ctx d_attn per token.
    """
    return tokens * (2.0 * active_params + 2.0 * layers * tokens * hidden)


def transformer_activation_bytes(layers: int, hidden: int, heads: int, tokens: int) -> float:
    """Activations per sequence, all layers, 16-bit, no recompute.

    Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models",
    eq. (1): s*b*h*(34 + 5*a*s/h) bytes per layer (b = 1).
    """
    return layers * tokens * hidden * (34.0 + 5.0 * heads * tokens / hidden)
