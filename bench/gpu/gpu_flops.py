"""Model FLOPs per training step: the analytic formulas the CSV states, and a counted cross-check.

Conventions (one FLOP = one multiply or one add, so a multiply-accumulate is 2 FLOP):

* Training = forward + backward, backward = 2 x forward (grad w.r.t. inputs and w.r.t.
  weights, each one matmul of the forward's size): Kaplan et al. 2020, "Scaling Laws for
  Neural Language Models", arXiv 2001.08361, section 2.1; Narayanan et al. 2021, "Efficient
  Large-Scale Language Model Training on GPU Clusters", arXiv 2104.04473, section 5.1.
* ResNet-50 at 224x224: 4.09e9 multiply-accumulates forward per image (torchvision model
  card for ResNet50_Weights.IMAGENET1K_V1, "GFLOPS 4.09", which counts MACs; He et al. 2016
  Table 1 gives 3.8e9 for v1, v1.5 moves the stride to the 3x3 conv). So 3 x 2 x 4.09e9 =
  24.54e9 FLOP per trained image. Conv FLOPs scale with pixel count, so a smaller
  test image scales by (side / 224)^2 (the final FC layer is ignored in that scaling: 2e6 MAC).
* Transformers: 6 x P x tokens + 12 x n_layer x d_model x seq x tokens, where P counts the
  weights of every matmul applied to each token (embedding look-ups are not matmuls) and the
  second term is QK^T and AV (2 x 2 x seq x d per token per layer forward, x3 for training).
  This is the "model FLOPs" of Chowdhery et al. 2022 (PaLM, arXiv 2204.02311, Appendix B) and
  Narayanan et al. 2021 eq. 3 without recomputation. For causal attention it counts the full
  seq x seq score matrix although a causal kernel computes about half of it (PaLM convention).
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from gpu_models import TransformerShape

RESNET50_FWD_MAC_224 = 4.09e9
"""Forward multiply-accumulates per 224x224 image (torchvision ResNet50_Weights docs)."""


def resnet50_train_flop(batch: int, image_side: int) -> float:
    """Training FLOP per step for ResNet-50: 3 x 2 x 4.09e9 x batch x (side/224)^2."""
    return 3.0 * 2.0 * RESNET50_FWD_MAC_224 * batch * (image_side / 224.0) ** 2


def transformer_matmul_params(s: TransformerShape, with_mlm_head: bool) -> float:
    """Weights of the per-token matmuls: attention Q,K,V,O; FFN (2 for GELU, 3 for SwiGLU).

    BERT (with_mlm_head): 4 d^2 + 2 d f per layer, plus the MLM transform d^2 and the tied
    decoder d x V. Llama-like (GQA, SwiGLU): 2 d^2 + 2 d (kv x hd) + 3 d f per layer.
    """
    d, f = s.d_model, s.d_ffn
    if with_mlm_head:
        return s.n_layer * (4 * d * d + 2 * d * f) + d * d + d * s.vocab
    kv_dim = s.n_kv_heads * (d // s.n_heads)
    return s.n_layer * (2 * d * d + 2 * d * kv_dim + 3 * d * f)


def transformer_train_flop(s: TransformerShape, batch: int, with_mlm_head: bool) -> float:
    """6 P tokens + 12 n_layer d seq tokens (see module docstring)."""
    tokens = batch * s.seq_len
    p = transformer_matmul_params(s, with_mlm_head)
    return 6.0 * p * tokens + 12.0 * s.n_layer * s.d_model * s.seq_len * tokens


def counted_flop(step: Callable[[], object]) -> float:
    """FLOPs of one call of `step` as torch.utils.flop_counter counts them (matmul, conv, SDPA).

    Returns NaN when the counter is unavailable or fails: it is a cross-check, not the figure.
    """
    try:
        from torch.utils.flop_counter import FlopCounterMode

        with FlopCounterMode(display=False) as counter:
            step()
        return float(counter.get_total_flops())
    except Exception:  # a cross-check must never stop the measurement
        return float("nan")


def sync(device: torch.device) -> None:
    """Wait for all queued work on `device` (no-op on CPU)."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
