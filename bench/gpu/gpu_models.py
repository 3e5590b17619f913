"""Model builders for the single-GPU training-step measurement (bench/gpu/step_time.py).

Everything is built from code or a config: no weights, no downloads. Three families:

* ResNet-50 v1.5 (torchvision's ``resnet50(weights=None)`` when torchvision imports, else
  :class:`ResNet50` below, the same architecture: He et al. 2016, "Deep Residual Learning",
  Table 1, 50-layer column, with the stride on the 3x3 conv as in torchvision / MLPerf v1.5).
* BERT-Large (Devlin et al. 2019, arXiv 1810.04805, section 3: L=24, H=1024, A=16, FFN 4H,
  vocabulary 30522) with the pre-training heads, through ``transformers.BertForPreTraining``
  when transformers imports, else :class:`PlainBert`, a ``torch.nn.TransformerEncoder`` of the
  same shape with an MLM head.
* A stack of Llama-3-8B-like decoder blocks (Meta Llama 3 8B ``params.json``: dim 4096,
  32 heads, 8 KV heads, FFN 14336, RMSNorm eps 1e-5, rope_theta 500000), no embedding and no
  LM head, so the time is the matmul-bound block stack alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F  # noqa: N812 (the PyTorch convention)
from torch import nn


@dataclass(frozen=True)
class TransformerShape:
    """Shape of a transformer stack; every size is a count of elements, not bytes."""

    n_layer: int
    d_model: int
    n_heads: int
    n_kv_heads: int
    d_ffn: int
    seq_len: int
    vocab: int = 0  # 0 = no vocabulary projection in the timed model


BERT_LARGE = TransformerShape(
    n_layer=24, d_model=1024, n_heads=16, n_kv_heads=16, d_ffn=4096, seq_len=512, vocab=30522
)
LLAMA3_8B_LIKE = TransformerShape(
    n_layer=4, d_model=4096, n_heads=32, n_kv_heads=8, d_ffn=14336, seq_len=4096
)


# ----------------------------------------------------------------------------- ResNet-50
class _Bottleneck(nn.Module):
    """ResNet v1.5 bottleneck: 1x1 reduce, 3x3 (carrying the stride), 1x1 expand x4."""

    expansion = 4

    def __init__(self, c_in: int, width: int, stride: int) -> None:
        super().__init__()
        c_out = width * self.expansion
        self.conv1 = nn.Conv2d(c_in, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, c_out, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(c_out)
        self.down: nn.Module = nn.Identity()
        if stride != 1 or c_in != c_out:
            self.down = nn.Sequential(
                nn.Conv2d(c_in, c_out, 1, stride=stride, bias=False), nn.BatchNorm2d(c_out)
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.bn1(self.conv1(x)))
        y = F.relu(self.bn2(self.conv2(y)))
        return F.relu(self.bn3(self.conv3(y)) + self.down(x))


class ResNet50(nn.Module):
    """ResNet-50 v1.5 for 1000 classes; 25,557,032 parameters like torchvision's."""

    def __init__(self, n_classes: int = 1000) -> None:
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False),
            nn.BatchNorm2d(64),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(3, stride=2, padding=1),
        )
        blocks: list[nn.Module] = []
        c_in = 64
        # (width, blocks, first stride) per stage: He et al. 2016 Table 1, "50-layer".
        for width, n, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
            for i in range(n):
                blocks.append(_Bottleneck(c_in, width, stride if i == 0 else 1))
                c_in = width * _Bottleneck.expansion
        self.body = nn.Sequential(*blocks)
        self.fc = nn.Linear(c_in, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.body(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(y, 1), 1))


def build_resnet50() -> tuple[nn.Module, str]:
    """ResNet-50 and where it came from ('torchvision x.y' or 'bench/gpu ResNet50')."""
    try:
        import torchvision  # optional: present on the H200 image, broken on CPU-only here

        return torchvision.models.resnet50(weights=None), f"torchvision {torchvision.__version__}"
    except Exception:  # any import/registration failure -> identical local definition
        return ResNet50(), "bench/gpu ResNet50 (torchvision unavailable)"


# ----------------------------------------------------------------------------- BERT
class PlainBert(nn.Module):
    """BERT-shaped encoder with an MLM head (tied decoder) and an NSP head, in plain PyTorch."""

    def __init__(self, s: TransformerShape) -> None:
        super().__init__()
        self.tok = nn.Embedding(s.vocab, s.d_model)
        self.pos = nn.Embedding(s.seq_len, s.d_model)
        self.typ = nn.Embedding(2, s.d_model)
        self.norm = nn.LayerNorm(s.d_model, eps=1e-12)
        layer = nn.TransformerEncoderLayer(
            s.d_model, s.n_heads, s.d_ffn, dropout=0.1, activation="gelu", batch_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, s.n_layer, enable_nested_tensor=False)
        self.transform = nn.Sequential(
            nn.Linear(s.d_model, s.d_model), nn.GELU(), nn.LayerNorm(s.d_model, eps=1e-12)
        )
        self.decoder = nn.Linear(s.d_model, s.vocab)
        self.decoder.weight = self.tok.weight  # tied, as in BERT
        self.nsp = nn.Linear(s.d_model, 2)

    def forward(
        self, ids: torch.Tensor, types: torch.Tensor, mlm_labels: torch.Tensor, nsp_labels: torch.Tensor
    ) -> torch.Tensor:
        pos = torch.arange(ids.shape[1], device=ids.device)
        h = self.encoder(self.norm(self.tok(ids) + self.pos(pos) + self.typ(types)))
        logits = self.decoder(self.transform(h))
        mlm = F.cross_entropy(logits.flatten(0, 1).float(), mlm_labels.flatten(), ignore_index=-100)
        return mlm + F.cross_entropy(self.nsp(h[:, 0]).float(), nsp_labels)


def build_bert(s: TransformerShape) -> tuple[nn.Module, str]:
    """BERT with pre-training heads; returns the model and its origin string."""
    try:
        import transformers
        from transformers import BertConfig, BertForPreTraining

        cfg = BertConfig(
            vocab_size=s.vocab,
            hidden_size=s.d_model,
            num_hidden_layers=s.n_layer,
            num_attention_heads=s.n_heads,
            intermediate_size=s.d_ffn,
            max_position_embeddings=max(512, s.seq_len),
        )
        model = BertForPreTraining(cfg)
        impl = getattr(model.config, "_attn_implementation", "?")
        return model, f"transformers {transformers.__version__} BertForPreTraining (attn={impl})"
    except ImportError:
        return PlainBert(s), "bench/gpu PlainBert (transformers unavailable)"


def bert_loss(model: nn.Module, batch: dict[str, torch.Tensor]) -> torch.Tensor:
    """Pre-training loss (MLM + NSP) for either BERT implementation."""
    if isinstance(model, PlainBert):
        return model(batch["ids"], batch["types"], batch["mlm"], batch["nsp"])
    out = model(
        input_ids=batch["ids"],
        token_type_ids=batch["types"],
        labels=batch["mlm"],
        next_sentence_label=batch["nsp"],
    )
    return out.loss


# ----------------------------------------------------------------------------- Llama-like
def rope_tables(
    s: TransformerShape, device: torch.device, theta: float = 500000.0
) -> tuple[torch.Tensor, torch.Tensor]:
    """cos/sin tables (seq, head_dim) for rotary embeddings; theta from Llama 3 params.json."""
    hd = s.d_model // s.n_heads
    inv = 1.0 / theta ** (torch.arange(0, hd, 2, device=device, dtype=torch.float32) / hd)
    ang = torch.outer(torch.arange(s.seq_len, device=device, dtype=torch.float32), inv)
    ang = torch.cat((ang, ang), dim=-1)
    return ang.cos(), ang.sin()


def _rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    rot = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return (x * cos + rot * sin).to(x.dtype)


class DecoderBlock(nn.Module):
    """Pre-norm Llama block: RMSNorm, GQA causal attention with RoPE, RMSNorm, SwiGLU FFN."""

    def __init__(self, s: TransformerShape) -> None:
        super().__init__()
        self.h, self.kv, self.hd = s.n_heads, s.n_kv_heads, s.d_model // s.n_heads
        self.attn_norm = nn.RMSNorm(s.d_model, eps=1e-5)
        self.wq = nn.Linear(s.d_model, self.h * self.hd, bias=False)
        self.wk = nn.Linear(s.d_model, self.kv * self.hd, bias=False)
        self.wv = nn.Linear(s.d_model, self.kv * self.hd, bias=False)
        self.wo = nn.Linear(self.h * self.hd, s.d_model, bias=False)
        self.ffn_norm = nn.RMSNorm(s.d_model, eps=1e-5)
        self.w1 = nn.Linear(s.d_model, s.d_ffn, bias=False)
        self.w3 = nn.Linear(s.d_model, s.d_ffn, bias=False)
        self.w2 = nn.Linear(s.d_ffn, s.d_model, bias=False)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        B, S, D = x.shape
        h = self.attn_norm(x)
        q = self.wq(h).view(B, S, self.h, self.hd).transpose(1, 2)
        k = self.wk(h).view(B, S, self.kv, self.hd).transpose(1, 2)
        v = self.wv(h).view(B, S, self.kv, self.hd).transpose(1, 2)
        q, k = _rope(q, cos, sin), _rope(k, cos, sin)
        rep = self.h // self.kv  # grouped-query attention: each KV head serves `rep` Q heads
        k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.wo(a.transpose(1, 2).reshape(B, S, D))
        h = self.ffn_norm(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class DecoderStack(nn.Module):
    """`n_layer` decoder blocks over hidden states (batch, seq, d_model)."""

    def __init__(self, s: TransformerShape) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(DecoderBlock(s) for _ in range(s.n_layer))
        self.norm = nn.RMSNorm(s.d_model, eps=1e-5)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        for blk in self.blocks:
            x = blk(x, cos, sin)
        return self.norm(x)
