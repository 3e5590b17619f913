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


class DecoderArchitecture(Spec):
    """A decoder-only transformer given by its shape, for a model that is not in the zoo.

    The derived :class:`ModelSpec` follows the zoo's conventions (``catalog/data/models.yaml``
    header): parameters counted from the matrices, forward FLOP per token
    ``2 N_active_nonembedding + 2 layers seq_len hidden + 2 hidden vocab`` (Kaplan et al. 2020,
    eq. 2.2, plus the output projection) and 34 x hidden activation bytes per token per layer
    (Korthikanti et al. 2022, eq. 1 without the attention scores FlashAttention does not keep;
    MoE: 15 h + top_k x 19 h).
    """

    name: str
    """Published name, e.g. ``GPT 18.4B (Narayanan et al. 2021)``."""
    layers: int = Field(gt=0)
    """Transformer blocks."""
    hidden: int = Field(gt=0)
    """Model width."""
    heads: int = Field(gt=0)
    """Attention heads."""
    kv_heads: int = Field(default=0, ge=0)
    """Key/value heads (grouped-query attention); 0 means equal to ``heads``."""
    ffn_hidden: int = Field(default=0, ge=0)
    """Feed-forward inner width (per expert); 0 means 4 x ``hidden`` (GPT-style)."""
    gated_mlp: bool = False
    """Gated MLP with three matrices (SwiGLU, Llama) instead of two (GELU, GPT)."""
    vocab: int = Field(gt=0)
    """Vocabulary size."""
    seq_len: int = Field(gt=0)
    """Training sequence length, tokens."""
    tied_embeddings: bool = False
    """Input embedding and output projection share one matrix."""
    experts: int = Field(default=1, ge=1)
    """Experts per MoE layer (1: dense)."""
    top_k: int = Field(default=1, ge=1)
    """Experts each token is routed to."""

    @model_validator(mode="after")
    def _consistent(self) -> DecoderArchitecture:
        kv = self.kv_heads or self.heads
        if self.heads % kv or self.hidden % self.heads:
            raise ValueError(
                f"heads ({self.heads}) must divide hidden ({self.hidden}) and be a multiple of "
                f"kv_heads ({kv})"
            )
        if self.top_k > self.experts:
            raise ValueError(f"top_k ({self.top_k}) cannot exceed experts ({self.experts})")
        return self

    def _block_params(self, experts: int) -> float:
        h = float(self.hidden)
        kv = (self.kv_heads or self.heads) / self.heads
        attention = 2.0 * h * h + 2.0 * h * h * kv  # Q and O, plus K and V at kv/heads width
        mlp = (3.0 if self.gated_mlp else 2.0) * h * (self.ffn_hidden or 4 * self.hidden)
        return attention + experts * mlp + 2.0 * h  # two norms

    def model_spec(self) -> ModelSpec:
        """The zoo entry this shape stands for."""
        h, layers = float(self.hidden), self.layers
        embeddings = (1.0 if self.tied_embeddings else 2.0) * self.vocab * h
        total = layers * self._block_params(self.experts) + embeddings + h
        active_ne = layers * self._block_params(self.top_k)
        fwd = 2.0 * active_ne + 2.0 * layers * self.seq_len * h + 2.0 * h * self.vocab
        moe = self.experts > 1
        act = (15.0 + 19.0 * self.top_k) * h if moe else 34.0 * h
        return ModelSpec(
            id=self.name,
            name=self.name,
            family="moe-decoder" if moe else "decoder",
            parameters=total,
            active_parameters=active_ne + embeddings + h if moe else 0.0,
            layers=layers,
            hidden=self.hidden,
            ffn_hidden=self.ffn_hidden or 4 * self.hidden,
            heads=self.heads,
            kv_heads=self.kv_heads,
            vocab=self.vocab,
            seq_len=self.seq_len,
            unit="token",
            forward_flop_per_unit=fwd,
            activation_bytes_per_unit_per_layer=act,
            experts=self.experts,
            top_k=self.top_k,
            sources=[Source(ref="inline architecture in the scenario", note="DecoderArchitecture")],
        )
