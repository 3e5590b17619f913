"""Single-GPU training-step times of zoo models, for calibrating the training twin.

Run on the GPU machine:   python3 bench/gpu/step_time.py --out "$OUT"
Smoke test on a CPU:      python bench/gpu/step_time.py --device cpu --tiny --out /tmp/gpu-smoke

Measures, in one process and in this order: a bf16 GEMM rate and HBM copy bandwidth (the
ceilings), then forward + backward + optimizer step of ResNet-50 (SGD, channels_last, batch
64/128/256, 224x224), BERT-Large pre-training (AdamW, seq 512, batch 8/16/32) and a 4-layer
Llama-3-8B-like decoder stack (AdamW, seq 2048/4096). Precision: bf16 autocast over fp32
master weights (PyTorch AMP, as the MLPerf PyTorch references train), TF32 allowed for what
stays fp32. Data are synthetic tensors made once in device memory, so no loader is timed.
Each case: `--warmup` untimed steps (cuDNN autotuning happens there), then `--steps` timed
steps with CUDA events; the median and 10th/90th percentiles are written. FLOP formulas and
their sources are in gpu_flops.py and repeated in each CSV row.

Outputs in --out: step-times.csv, roofline.csv, env.txt, dmon.txt (if nvidia-smi exists).
"""

from __future__ import annotations

import argparse
import csv
import gc
import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F  # noqa: N812 (the PyTorch convention)

sys.path.insert(0, str(Path(__file__).resolve().parent))  # sibling modules when run as a script

import gpu_env
from gpu_flops import counted_flop, resnet50_train_flop, sync, transformer_train_flop
from gpu_models import (
    BERT_LARGE,
    LLAMA3_8B_LIKE,
    DecoderStack,
    TransformerShape,
    bert_loss,
    build_bert,
    build_resnet50,
    rope_tables,
)
from gpu_timing import copy_bandwidth, gemm_rate, time_steps

PRECISION = "bf16 autocast, fp32 master weights, TF32 for fp32 matmuls"
STEP_COLUMNS = [
    "gpu",
    "model",
    "batch",
    "precision",
    "step_time_s_median",
    "step_time_s_p10",
    "step_time_s_p90",
    "samples_per_s",
    "achieved_tflops",
    "flop_formula",
    "seq_len",
    "image_side",
    "flop_per_step",
    "counted_flop_per_step",
    "counted_tflops",
    "step_time_s_wall_mean",
    "n_timed_steps",
    "peak_mem_bytes",
    "optimizer",
    "impl",
    "final_loss",
]
Step = Callable[[], torch.Tensor]


@dataclass(frozen=True)
class Case:
    """One model at one batch size: how to build its step, and its analytic FLOPs."""

    model: str
    batch: int
    seq_len: int
    image_side: int
    flop: float
    formula: str
    optimizer: str
    build: Callable[[], tuple[Step, str]]


def _optimizer(kind: str, params: list[torch.nn.Parameter], device: torch.device) -> torch.optim.Optimizer:
    """SGD (momentum 0.9) or AdamW; fused CUDA kernels on GPU as MLPerf recipes use fused optimizers."""
    fused = device.type == "cuda"
    if kind == "sgd":
        return torch.optim.SGD(params, lr=0.1, momentum=0.9, weight_decay=5e-5, fused=fused)
    return torch.optim.AdamW(params, lr=1e-4, weight_decay=0.01, fused=fused)


def _train_step(
    loss_fn: Callable[[], torch.Tensor], opt: torch.optim.Optimizer, device: torch.device
) -> Step:
    """forward under bf16 autocast, backward, optimizer step; returns the detached loss."""

    def step() -> torch.Tensor:
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
            loss = loss_fn()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss.detach()

    return step


def resnet_case(device: torch.device, batch: int, side: int) -> Case:
    def build() -> tuple[Step, str]:
        model, impl = build_resnet50()
        model = model.to(device, memory_format=torch.channels_last).train()
        gen = torch.Generator(device=device).manual_seed(batch)
        x = torch.randn(batch, 3, side, side, device=device, generator=gen)
        x = x.contiguous(memory_format=torch.channels_last)
        y = torch.randint(0, 1000, (batch,), device=device, generator=gen)
        opt = _optimizer("sgd", list(model.parameters()), device)
        return _train_step(lambda: F.cross_entropy(model(x).float(), y), opt, device), impl

    formula = (
        f"3 x 2 x 4.09e9 MAC x batch x ({side}/224)^2 (torchvision ResNet50 4.09 GMAC fwd; "
        "bwd = 2 x fwd, Kaplan 2020 s2.1)"
    )
    return Case("resnet50", batch, 0, side, resnet50_train_flop(batch, side), formula, "SGD momentum", build)


def bert_case(device: torch.device, batch: int, s: TransformerShape) -> Case:
    def build() -> tuple[Step, str]:
        model, impl = build_bert(s)
        model = model.to(device).train()
        gen = torch.Generator(device=device).manual_seed(batch)
        ids = torch.randint(0, s.vocab, (batch, s.seq_len), device=device, generator=gen)
        types = (torch.arange(s.seq_len, device=device) >= s.seq_len // 2).long().expand(batch, -1)
        masked = torch.rand(batch, s.seq_len, device=device, generator=gen) < 0.15  # BERT masks 15%
        data = {
            "ids": ids,
            "types": types.contiguous(),
            "mlm": torch.where(masked, ids, -100),
            "nsp": torch.randint(0, 2, (batch,), device=device, generator=gen),
        }
        opt = _optimizer("adamw", list(model.parameters()), device)
        return _train_step(lambda: bert_loss(model, data), opt, device), impl

    formula = (
        "6 x P x tokens + 12 x L x d x seq x tokens; P = L(4d^2+2d f) + d^2 + d V "
        "(encoder + MLM head), PaLM App. B / Narayanan 2021 s5.1"
    )
    return Case(
        f"bert-large-L{s.n_layer}",
        batch,
        s.seq_len,
        0,
        transformer_train_flop(s, batch, with_mlm_head=True),
        formula,
        "AdamW fused",
        build,
    )


def decoder_case(device: torch.device, batch: int, s: TransformerShape) -> Case:
    def build() -> tuple[Step, str]:
        model = DecoderStack(s).to(device).train()
        cos, sin = rope_tables(s, device)
        gen = torch.Generator(device=device).manual_seed(batch)
        x = torch.randn(batch, s.seq_len, s.d_model, device=device, generator=gen)
        opt = _optimizer("adamw", list(model.parameters()), device)
        impl = f"bench/gpu DecoderStack (SDPA causal, GQA {s.n_heads}/{s.n_kv_heads}, SwiGLU)"
        return _train_step(lambda: model(x, cos, sin).float().pow(2).mean(), opt, device), impl

    formula = (
        "6 x P x tokens + 12 x L x d x seq x tokens (full, not causal-halved); "
        "P = L(2d^2 + 2d kv_dim + 3d f), PaLM App. B"
    )
    name = f"llama3-8b-like-{s.n_layer}L-seq{s.seq_len}"
    return Case(
        name,
        batch,
        s.seq_len,
        0,
        transformer_train_flop(s, batch, with_mlm_head=False),
        formula,
        "AdamW fused",
        build,
    )


def plan(device: torch.device, tiny: bool) -> list[Case]:
    """The cases to run: the full set on a GPU, or small shapes of the same code for --tiny."""
    if tiny:
        bert = TransformerShape(2, 128, 2, 2, 512, 64, vocab=BERT_LARGE.vocab)
        dec = TransformerShape(2, 256, 4, 2, 768, 128)
        return [resnet_case(device, 2, 64), bert_case(device, 2, bert), decoder_case(device, 2, dec)]
    cases = [resnet_case(device, b, 224) for b in (64, 128, 256)]
    cases += [bert_case(device, b, BERT_LARGE) for b in (8, 16, 32)]
    for seq, b in ((2048, 4), (4096, 1), (4096, 2)):
        cases.append(decoder_case(device, b, TransformerShape(**{**LLAMA3_8B_LIKE.__dict__, "seq_len": seq})))
    return cases


def measure(case: Case, device: torch.device, gpu: str, warmup: int, steps: int) -> dict[str, object]:
    """Build, time, count FLOPs once, and return the CSV row; raises RuntimeError on a NaN loss."""
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    step, impl = case.build()
    t = time_steps(step, device, warmup, steps)
    peak = torch.cuda.max_memory_allocated(device) if device.type == "cuda" else 0
    counted = counted_flop(step)
    loss = float(step())
    if not math.isfinite(loss):
        raise RuntimeError(f"{case.model} batch {case.batch}: loss is {loss}")
    med = t.median_s
    return {
        "gpu": gpu,
        "model": case.model,
        "batch": case.batch,
        "precision": PRECISION,
        "step_time_s_median": f"{med:.6g}",
        "step_time_s_p10": f"{t.quantile(0.1):.6g}",
        "step_time_s_p90": f"{t.quantile(0.9):.6g}",
        "samples_per_s": f"{case.batch / med:.6g}",
        "achieved_tflops": f"{case.flop / med / 1e12:.6g}",
        "flop_formula": case.formula,
        "seq_len": case.seq_len,
        "image_side": case.image_side,
        "flop_per_step": f"{case.flop:.6g}",
        "counted_flop_per_step": f"{counted:.6g}",
        "counted_tflops": f"{counted / med / 1e12:.6g}",
        "step_time_s_wall_mean": f"{t.wall_mean_s:.6g}",
        "n_timed_steps": len(t.steps_s),
        "peak_mem_bytes": peak,
        "optimizer": case.optimizer,
        "impl": impl,
        "final_loss": f"{loss:.5g}",
    }


def roofline(device: torch.device, tiny: bool, steps: int) -> list[dict[str, object]]:
    """bf16 GEMM rates at a square size and at the decoder's FFN shapes, then copy bandwidth."""
    shapes = [(512, 512, 512)] if tiny else [(8192, 8192, 8192), (8192, 14336, 4096), (8192, 4096, 14336)]
    rows: list[dict[str, object]] = []
    for m, n, k in shapes:
        r = gemm_rate(device, m, n, k, steps)
        rows.append(
            {
                "test": f"bf16 gemm m={m} n={n} k={k}",
                "median_s": f"{r['median_s']:.6g}",
                "value": f"{r['tflops']:.6g}",
                "unit": "TFLOP/s (2mnk/t)",
                "check": f"rel_err_vs_fp64={r['rel_err']:.3g} all_written={bool(r['all_written'])}",
            }
        )
    n_bytes = (64 << 20) if tiny else (4 << 30)
    r = copy_bandwidth(device, n_bytes, steps)
    rows.append(
        {
            "test": f"device copy {n_bytes} bytes",
            "median_s": f"{r['median_s']:.6g}",
            "value": f"{r['bandwidth_Bps'] / 1e9:.6g}",
            "unit": "GB/s (read+write bytes / t)",
            "check": f"dst_equals_src={bool(r['copy_ok'])}",
        }
    )
    return rows


def _write_csv(path: Path, rows: list[dict[str, object]], columns: list[str]) -> None:
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=columns)
        w.writeheader()
        w.writerows(rows)


def _free(device: torch.device) -> None:
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


def run_cases(args: argparse.Namespace, device: torch.device, gpu: str, out: Path, t_start: float) -> None:
    """Measure every planned case, rewriting step-times.csv after each so partial runs keep rows."""
    rows: list[dict[str, object]] = []
    for case in plan(device, args.tiny):
        if time.perf_counter() - t_start > args.budget_s:
            print(f"SKIP {case.model} b={case.batch}: time budget {args.budget_s} s spent", flush=True)
            continue
        try:
            row = measure(case, device, gpu, args.warmup, args.steps)
        except (RuntimeError, ValueError) as exc:  # OOM or NaN: record the reason, go on
            print(f"FAIL {case.model} b={case.batch}: {exc}", flush=True)
            continue
        finally:
            _free(device)
        rows.append(row)
        _write_csv(out / "step-times.csv", rows, STEP_COLUMNS)
        print(
            f"{row['model']:<32} b={row['batch']:<4} median {row['step_time_s_median']} s  "
            f"p10 {row['step_time_s_p10']}  p90 {row['step_time_s_p90']}  "
            f"{row['samples_per_s']} samples/s  {row['achieved_tflops']} TFLOP/s "
            f"(counted {row['counted_tflops']})  peak {int(row['peak_mem_bytes']) / 2**30:.1f} GiB",
            flush=True,
        )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--tiny", action="store_true", help="small shapes and few steps (CPU smoke test)")
    p.add_argument("--out", default=os.environ.get("OUT", "bench_out"), help="output folder")
    p.add_argument("--steps", type=int, default=None, help="timed steps per case (default 30; tiny 3)")
    p.add_argument("--warmup", type=int, default=None, help="untimed steps (default 5; tiny 1)")
    p.add_argument("--budget-s", type=float, default=330.0, help="skip cases started after this many s")
    args = p.parse_args(argv)
    args.steps = args.steps or (3 if args.tiny else 30)
    args.warmup = args.warmup if args.warmup is not None else (1 if args.tiny else 5)
    device = torch.device(args.device)
    torch.set_float32_matmul_precision("high")  # TF32 for fp32 matmuls, as AMP training allows
    torch.backends.cudnn.benchmark = True  # pick the fastest conv algorithms during warm-up
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t_start = time.perf_counter()
    gpu = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    env = out / "env.txt"
    env.write_text(gpu_env.header(device) + gpu_env.snapshot("before any work"))
    dmon = gpu_env.start_dmon(out / "dmon.txt") if device.type == "cuda" else None
    try:
        rl = roofline(device, args.tiny, args.steps)
        with env.open("a") as fh:
            fh.write(gpu_env.snapshot("right after the GEMM/copy ceilings"))
        _write_csv(out / "roofline.csv", rl, ["test", "median_s", "value", "unit", "check"])
        for r in rl:
            print(f"{r['test']:<36} {r['value']} {r['unit']}  [{r['check']}]", flush=True)
        _free(device)
        run_cases(args, device, gpu, out, t_start)
    finally:
        gpu_env.stop_dmon(dmon)
        with env.open("a") as fh:
            fh.write(
                gpu_env.snapshot("at the end")
                + f"\ntotal script time s {time.perf_counter() - t_start:.1f}\n"
            )
    sync(device)
    return 0


if __name__ == "__main__":
    sys.exit(main())
