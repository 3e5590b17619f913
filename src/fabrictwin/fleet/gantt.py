"""Gantt chart of a rollout plan (PNG through Matplotlib's Agg backend)."""

from __future__ import annotations

from pathlib import Path

from fabrictwin.fleet.planner import Plan

MAX_ROWS = 400
"""Racks drawn at most; beyond that the chart shows the first racks (the table has them all)."""


def draw_gantt(plan: Plan, path: str | Path) -> Path:
    """One row per rack, one bar per DPU, coloured by wave; dashed line at the lower bound."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    racks = sorted({d.rack for d in plan.devices})[:MAX_ROWS]
    row = {r: i for i, r in enumerate(racks)}
    fig, ax = plt.subplots(figsize=(11, max(3.0, 0.22 * len(racks) + 1.5)))
    colors = plt.get_cmap("tab10")
    for d in plan.devices:
        if d.rack in row:
            ax.barh(
                row[d.rack],
                (d.end_s - d.start_s) / 3600,
                left=d.start_s / 3600,
                height=0.8,
                color=colors(d.wave % 10),
                alpha=0.35,
                edgecolor=colors(d.wave % 10),
                linewidth=0.5,
            )
    ax.axvline(plan.lower_bound_s / 3600, color="k", linestyle="--", linewidth=1, label="lower bound")
    for w in plan.waves:
        ax.axvspan(w.start_s / 3600, w.end_s / 3600, color=colors(w.index % 10), alpha=0.06)
        ax.text(w.start_s / 3600, -1.2, f"wave {w.index} ({len(w.devices)})", fontsize=7)
    ax.set_yticks(range(len(racks)), racks, fontsize=6)
    ax.set_xlabel("hours since start")
    ax.set_title(
        f"rollout plan: makespan {plan.makespan_s / 3600:.2f} h,"
        f" lower bound {plan.lower_bound_s / 3600:.2f} h"
    )
    ax.invert_yaxis()
    ax.legend(loc="lower right", fontsize=7)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
