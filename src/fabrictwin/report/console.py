"""Terminal rendering of simulation results and comparisons (rich)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from fabrictwin.twin.compare import Variant
from fabrictwin.twin.simulate import SimulationResult


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.2f}"


def _duration(seconds: float) -> str:
    if seconds >= 86400:
        return f"{seconds / 86400:.2f} d"
    if seconds >= 3600:
        return f"{seconds / 3600:.2f} h"
    if seconds >= 60:
        return f"{seconds / 60:.1f} min"
    return f"{seconds:.1f} s"


def breakdown_table(result: SimulationResult) -> Table:
    """Where a step's time goes, largest first."""
    table = Table(title=f"Step breakdown: {result.scenario.name}")
    table.add_column("component")
    table.add_column("ms / step", justify="right")
    table.add_column("share", justify="right")
    for key, sec in sorted(result.breakdown_s.items(), key=lambda kv: -kv[1]):
        if sec <= 0:
            continue
        table.add_row(key, _ms(sec), f"{sec / result.step_time_s:.1%}")
    table.add_row("[bold]step[/]", f"[bold]{_ms(result.step_time_s)}[/]", "100%")
    return table


def summary_table(result: SimulationResult) -> Table:
    """Headline numbers of one result."""
    r = result
    table = Table(show_header=False, title="Summary")
    rows = [
        ("GPUs", f"{r.layout.gpus:,} ({r.scenario.cluster.nodes} x {r.resolved.system.id})"),
        (
            "layout",
            f"dp {r.layout.dp} x tp {r.scenario.parallelism.tp} x pp {r.scenario.parallelism.pp}"
            f"{f' x cp {r.scenario.parallelism.cp}' if r.scenario.parallelism.cp > 1 else ''}, "
            f"micro-batch {r.layout.microbatch} x {r.layout.microbatches}",
        ),
        (
            "fabric",
            f"{r.resolved.fabric.id}{' + SHARP' if r.scenario.cluster.sharp else ''}, "
            f"DPU {r.scenario.cluster.dpu}",
        ),
        ("GPU busy", f"{r.gpu_busy_fraction:.1%}"),
        ("MFU", f"{r.mfu:.1%}"),
        ("bottleneck", r.bottleneck),
        ("time to train", f"{_duration(r.time_to_train_s)} (goodput {r.goodput.goodput:.1%})"),
        ("cost", f"${r.cost_usd:,.0f}"),
        ("energy", f"{r.energy_kwh:,.0f} kWh"),
        ("host CPU", f"{r.cpu.utilisation:.0%} of {r.cpu.host_cores:.0f} cores"),
        ("memory", r.memory.describe()),
    ]
    for key, value in rows:
        table.add_row(key, value)
    for note in r.notes:
        table.add_row("note", note)
    return table


def comparison_table(rows: Sequence[Variant]) -> Table:
    """Designs side by side with ratios to the first and the bottleneck."""
    table = Table(title="Comparison (ratios vs the first design)")
    keys = list(rows[0].varied) if rows else []
    for key in keys:
        table.add_column(key)
    for name in ("step ms", "x step", "time to train", "x TTT", "GPU busy", "MFU", "bottleneck"):
        table.add_column(name, justify="right" if name != "bottleneck" else "left")
    base = rows[0].result if rows else None
    for row in rows:
        r = row.result
        assert base is not None
        moved = " (moved)" if r.bottleneck != base.bottleneck else ""
        table.add_row(
            *[row.varied[k] for k in keys],
            _ms(r.step_time_s),
            f"{r.step_time_s / base.step_time_s:.2f}",
            _duration(r.time_to_train_s),
            f"{r.time_to_train_s / base.time_to_train_s:.2f}",
            f"{r.gpu_busy_fraction:.0%}",
            f"{r.mfu:.1%}",
            r.bottleneck + moved,
        )
    return table


def print_result(result: SimulationResult, console: Console | None = None) -> None:
    out = console or Console()
    out.print(breakdown_table(result))
    out.print(summary_table(result))
