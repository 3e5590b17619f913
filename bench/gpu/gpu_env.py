"""Environment record for a measurement: versions, device properties, nvidia-smi snapshots.

Reads only; never changes clocks, power or modes (METHOD.md: measure the card as found).
"""

from __future__ import annotations

import platform
import shutil
import subprocess
import sys
from pathlib import Path
from typing import IO

import torch


def _run(cmd: list[str]) -> str:
    """Output of a read-only command, or a one-line note why there is none."""
    if shutil.which(cmd[0]) is None:
        return f"({cmd[0]} not found)\n"
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=30, check=False)
        return res.stdout + res.stderr
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"({' '.join(cmd)} failed: {exc})\n"


def _versions() -> list[str]:
    lines = [
        f"python {sys.version.split()[0]} ({platform.platform()})",
        f"torch {torch.__version__}",
        f"torch.version.cuda {torch.version.cuda}",
        f"cudnn {torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None}",
    ]
    for name in ("torchvision", "transformers", "numpy"):
        try:
            mod = __import__(name)
            lines.append(f"{name} {getattr(mod, '__version__', '?')}")
        except Exception as exc:  # report, do not fail
            lines.append(f"{name} unavailable ({type(exc).__name__})")
    lines.append(f"float32 matmul precision {torch.get_float32_matmul_precision()}")
    lines.append(f"cudnn.benchmark {torch.backends.cudnn.benchmark}")
    return lines


def _device_props(device: torch.device) -> list[str]:
    if device.type != "cuda":
        return [
            f"device cpu: {platform.processor() or platform.machine()}, "
            f"torch threads {torch.get_num_threads()}"
        ]
    p = torch.cuda.get_device_properties(device)
    l2 = getattr(p, "L2_cache_size", 0)
    return [
        f"device {p.name}",
        f"compute capability {p.major}.{p.minor}",
        f"multiprocessors {p.multi_processor_count}",
        f"total memory bytes {p.total_memory}",
        f"L2 cache bytes {l2}",
    ]


def snapshot(label: str) -> str:
    """`nvidia-smi -q -d CLOCK` plus a one-line query, headed by `label`."""
    query = (
        "name,driver_version,pstate,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,"
        "power.draw,power.limit,temperature.gpu,memory.used,memory.total"
    )
    return (
        f"\n===== nvidia-smi snapshot: {label} =====\n"
        + _run(["nvidia-smi", f"--query-gpu={query}", "--format=csv"])
        + _run(["nvidia-smi", "-q", "-d", "CLOCK"])
    )


def header(device: torch.device) -> str:
    """Versions and device properties, one fact per line."""
    return "\n".join(["===== versions and device =====", *_versions(), *_device_props(device)]) + "\n"


def start_dmon(path: Path) -> tuple[subprocess.Popen[bytes], IO[bytes]] | None:
    """Start `nvidia-smi dmon` (power and clocks each second, with time stamps) into `path`."""
    if shutil.which("nvidia-smi") is None:
        return None
    fh = path.open("wb")
    proc = subprocess.Popen(
        ["nvidia-smi", "dmon", "-s", "pc", "-o", "T", "-d", "1"], stdout=fh, stderr=subprocess.STDOUT
    )
    return proc, fh


def stop_dmon(handle: tuple[subprocess.Popen[bytes], IO[bytes]] | None) -> None:
    """Stop the dmon process started by :func:`start_dmon` (this process's own child only)."""
    if handle is None:
        return
    proc, fh = handle
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
    fh.close()
