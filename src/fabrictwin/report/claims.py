"""Markdown and terminal rendering of the seed-claim checks."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table

from fabrictwin.twin.claims import SEED_IDLE_CLAIM, DpuCheck, SpeedCheck


def _h(seconds: float) -> str:
    return f"{seconds / 3600:.3f} h" if seconds < 36000 else f"{seconds / 3600:.1f} h"


def speed_markdown(check: SpeedCheck) -> str:
    """A table of the fabric designs for one model, with the claim's comparison."""
    eth_h, ib_h, claimed = check.claimed_hours[0], check.claimed_hours[1], check.claimed_reduction
    lines = [
        f"#### {check.model} on {check.system}: seed claims {eth_h} h -> {ib_h} h "
        f"({claimed:.0%} less time on InfiniBand)",
        "",
        f"| design | step (ms) | time to train | {check.reference} saves | GPU busy | idle | exposed comm "
        "| bottleneck |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for v in check.designs:
        r = v.result
        label = v.varied["design"]
        comm = sum(s for k, s in r.breakdown_s.items() if k.startswith("comm:")) / r.step_time_s
        saves = check.reduction_vs(label)
        lines.append(
            f"| {label} | {r.step_time_s * 1e3:.2f} | {_h(r.time_to_train_s)} | {saves:.0%} "
            f"| {r.gpu_busy_fraction:.0%} | {1 - r.gpu_busy_fraction:.0%} | {comm:.0%} | {r.bottleneck} |"
        )
    ib = check.result(check.reference)
    lines += ["", f"Predicted InfiniBand time {_h(ib.time_to_train_s)} vs the seed's {ib_h} h."]
    return "\n".join(lines)


def dpu_markdown(checks: Sequence[DpuCheck]) -> str:
    lines = [
        "| scenario | without DPU | with BlueField-3 | speed-up | host infra cores (without -> with) "
        "| bottleneck |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for c in checks:
        a, b = c.without, c.with_dpu
        lines.append(
            f"| {c.name} | {_h(a.time_to_train_s)} | {_h(b.time_to_train_s)} | {c.speedup:.3f}x "
            f"| {a.cpu.infra_cores:.1f} -> {b.cpu.infra_cores:.1f} | {a.bottleneck} -> {b.bottleneck} |"
        )
    return "\n".join(lines)


def idle_markdown(checks: Sequence[SpeedCheck]) -> str:
    worst = [
        (f"{c.model}/{c.system}", v.varied["design"], 1 - v.result.gpu_busy_fraction)
        for c in checks
        for v in c.designs
    ]
    over = [f"{m} on {d} ({idle:.0%})" for m, d, idle in worst if idle > SEED_IDLE_CLAIM]
    return "Designs with more than 50% of GPU time idle: " + (", ".join(over) if over else "none") + "."


def speed_table(check: SpeedCheck) -> Table:
    table = Table(
        title=f"{check.model} on {check.system}: seed says {check.claimed_reduction:.0%} less time on IB"
    )
    for name in ("design", "step ms", "time to train", "IB saves", "GPU busy", "bottleneck"):
        table.add_column(name, justify="left" if name in ("design", "bottleneck") else "right")
    for v in check.designs:
        r = v.result
        label = v.varied["design"]
        table.add_row(
            label,
            f"{r.step_time_s * 1e3:.2f}",
            _h(r.time_to_train_s),
            f"{check.reduction_vs(label):.0%}",
            f"{r.gpu_busy_fraction:.0%}",
            r.bottleneck,
        )
    return table
