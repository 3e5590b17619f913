"""Workload specs: the models of the zoo (what one training sample costs).

FLOP counts are for one forward pass of one ``unit`` (an image for CNNs, a token for language
models); training costs about three forward passes (forward + backward ~ 1 + 2, Kaplan et al.
2020, "Scaling Laws for Neural Language Models", section 2.1). Activation bytes are those kept for
the backward pass without recomputation at 16-bit precision.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from fabrictwin.spec.base import Source, Spec
from fabrictwin.spec.quantity import Bytes, Flop

Family = Literal["cnn", "encoder", "decoder", "moe-decoder"]
Unit = Literal["image", "sequence", "token"]


class ModelSpec(Spec):
    """One neural network of the model zoo."""

    id: str
    """Catalog id, e.g. ``llama3-70b``."""
    name: str
    """Published name."""
    family: Family
    """Architecture family: ``cnn``, ``encoder`` (BERT), ``decoder`` (GPT, Llama), ``moe-decoder``."""
    parameters: float = Field(gt=0)
    """Total trainable parameters (count)."""
    active_parameters: float = Field(default=0.0, ge=0)
    """Parameters used per token (MoE: shared + top-k experts); 0 means all (dense model)."""
    layers: int = Field(gt=0)
    """Layers (transformer blocks; weighted layers for a CNN)."""
    hidden: int = Field(ge=0)
    """Model (embedding) width; 0 for a CNN."""
    ffn_hidden: int = Field(default=0, ge=0)
    """Feed-forward inner width per expert; 0 for a CNN."""
    heads: int = Field(default=0, ge=0)
    """Attention heads; 0 for a CNN."""
    kv_heads: int = Field(default=0, ge=0)
    """Key/value heads (grouped-query attention); 0 means equal to ``heads``."""
    vocab: int = Field(default=0, ge=0)
    """Vocabulary size; 0 for a CNN."""
    seq_len: int = Field(default=1, ge=1)
    """Training sequence length in tokens (1 for a model that is not sequence-based)."""
    unit: Unit
    """What ``forward_flop_per_unit`` and activation sizes are counted per."""
    forward_flop_per_unit: Flop = Field(gt=0)
    """FLOP of one forward pass of one unit (multiply-add = 2 FLOP)."""
    activation_bytes_per_unit_per_layer: Bytes = Field(ge=0)
    """Activation bytes stored for backward per unit per layer (16-bit, no recomputation)."""
    experts: int = Field(default=1, ge=1)
    """Experts per MoE layer (1: dense)."""
    top_k: int = Field(default=1, ge=1)
    """Experts each token is routed to."""
    sources: list[Source] = []
    """Where the architecture numbers come from."""

    @model_validator(mode="after")
    def _experts_cover_top_k(self) -> ModelSpec:
        if self.top_k > self.experts:
            raise ValueError(f"top_k ({self.top_k}) cannot exceed experts ({self.experts})")
        if self.heads and self.kv_heads and self.heads % self.kv_heads:
            raise ValueError(f"heads ({self.heads}) must be a multiple of kv_heads ({self.kv_heads})")
        return self

    @property
    def params_per_token(self) -> float:
        """Parameters touched per token: ``active_parameters`` or, for a dense model, all."""
        return self.active_parameters or self.parameters

    @property
    def train_flop_per_unit(self) -> float:
        """Forward + backward FLOP per unit, 3x forward (Kaplan et al. 2020, section 2.1)."""
        return 3.0 * self.forward_flop_per_unit
