"""Fit the single-node A100 ring profile (LL128 rate, LL128 and Simple per-hop costs).

    .venv/bin/python calibration/fit_ampere_ring.py

Data: calibration/nccl-a100-single-node.csv, six published nccl-tests all_reduce sweeps on
one 8 x A100 SXM4 NVSwitch node (sources in the file; README.md here). The protocol NCCL ran at
each size is its tuner's choice, which ranks with NCCL's own table (so it does not depend on
the parameters fitted here); the time of that protocol is
``max(launch floor, base + 14 x hop + size x 1.75 / bus)``, with the Simple bus rate and the
floor taken from the package. Least squares on log(time) over every row >= 2 MiB, pooled
(at 1 MiB NCCL runs LL, whose cost this fit does not touch);
then leave-one-sweep-out, and the held-out Azure sweep (A-066..A-079, not used here) as the
check. Prints the values that go into fabrictwin.collectives.nccl_constants.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy.optimize import least_squares

from fabrictwin.collectives import CommContext, context_for, estimate
from fabrictwin.collectives.base import bus_factor, host_floor_s, ring_bus_Bps
from fabrictwin.collectives.nccl_constants import BASE_LAT_US, HW_LAT_US, LL128_BW_FRACTION

HERE = Path(__file__).parent
NCCL = np.array(
    [LL128_BW_FRACTION, HW_LAT_US["nvlink"]["ring"]["ll128"], HW_LAT_US["nvlink"]["ring"]["simple"]]
)
MIB = 2**20
SMALLEST = 2 * MIB


def sweeps() -> dict[str, tuple[np.ndarray, np.ndarray, int]]:
    """sweep -> (sizes, mean time over placements in s, GPUs per thread), sizes >= 2 MiB."""
    times: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    gpt: dict[str, int] = {}
    with (HERE / "nccl-a100-single-node.csv").open(newline="") as fh:
        for row in csv.DictReader(fh):
            if int(row["msg_size_bytes"]) >= SMALLEST:
                times[row["sweep"]][int(row["msg_size_bytes"])].append(float(row["time_us"]) * 1e-6)
                gpt[row["sweep"]] = int(row["gpus_per_thread"])
    out = {}
    for name, by_size in sorted(times.items()):
        sizes = np.array(sorted(by_size), dtype=float)
        out[name] = (sizes, np.array([np.mean(by_size[int(s)]) for s in sizes]), gpt[name])
    return out


def a100_node(gpus_per_thread: int) -> CommContext:
    """One 8 x A100 NVSwitch node under a pre-2.21 NCCL tuner (the sweeps' releases)."""
    return context_for(
        "dgx-a100",
        "ib-hdr",
        nodes=1,
        ranks_per_node=8,
        nccl_version="2.18.5",
        gpus_per_thread=gpus_per_thread,
    )


def model(params: np.ndarray, sizes: np.ndarray, gpus_per_thread: int) -> np.ndarray:
    """Time of each size under NCCL's protocol choice, with (LL128 share, LL128 hop, Simple hop)."""
    ctx = a100_node(gpus_per_thread)
    chosen = estimate(ctx, "all_reduce", sizes)
    factor, steps = bus_factor("all_reduce", 8), 2 * (8 - 1)
    simple_bus = ring_bus_Bps(ctx)
    frac, hop128, hop_simple = params
    t_ll128 = (BASE_LAT_US["ring"]["ll128"] + steps * hop128) * 1e-6 + sizes * factor / (frac * simple_bus)
    t_simple = (BASE_LAT_US["ring"]["simple"] + steps * hop_simple) * 1e-6 + sizes * factor / simple_bus
    proto = np.array(chosen.protocol)
    t = np.where(proto == "ll128", t_ll128, np.where(proto == "simple", t_simple, chosen.time_s))
    return np.maximum(t, host_floor_s(ctx))


def fit(data: dict[str, tuple[np.ndarray, np.ndarray, int]]) -> np.ndarray:
    def residuals(p: np.ndarray) -> np.ndarray:
        return np.concatenate([np.log(model(p, s, g) / t) for s, t, g in data.values()])

    return least_squares(residuals, NCCL, bounds=([0.3, 0.0, 0.0], [1.0, 50.0, 50.0])).x


def azure_busbw_errors(params: np.ndarray) -> list[str]:
    """Held-out check: the Azure ND A100 v4 sweep of shared/reference/nccl-calibration.csv."""
    path = Path("/work/shared/reference/nccl-calibration.csv")
    if not path.exists():
        path = HERE.parent / "tests" / "collectives" / "nccl-calibration.csv"
    with path.open(newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if "A-066" <= r["id"] <= "A-079"]
    sizes = np.array([float(r["msg_size_bytes"]) for r in rows])
    measured = np.array([float(r["busbw_GBps"]) * 1e9 for r in rows])
    busbw = sizes * bus_factor("all_reduce", 8) / model(params, sizes, 8)
    return [
        f"{r['id']} {int(s) // MIB} MiB {b / m - 1:+.0%}"
        for r, s, b, m in zip(rows, sizes, busbw, measured, strict=True)
    ]


def main() -> None:
    data = sweeps()
    best = fit(data)
    print(
        f"NCCL table     : LL128 share {NCCL[0]:.3f}, LL128 hop {NCCL[1]:.2f} us, Simple hop {NCCL[2]:.2f} us"
    )
    print(
        f"pooled fit     : LL128 share {best[0]:.3f}, LL128 hop {best[1]:.2f} us, Simple hop {best[2]:.2f} us"
    )
    for name, (sizes, t, g) in data.items():
        rest = {k: v for k, v in data.items() if k != name}
        loo = fit(rest)
        err = model(loo, sizes, g) / t - 1.0
        print(
            f"without {name} (-g {g}): {loo[0]:.3f} {loo[1]:.2f} {loo[2]:.2f};"
            f" held-out median |err| {np.median(np.abs(err)):.1%}, worst {err[np.argmax(np.abs(err))]:+.0%}"
        )
    print("Azure ND A100 v4 busbw error (held out):", ", ".join(azure_busbw_errors(best)))


if __name__ == "__main__":
    main()
