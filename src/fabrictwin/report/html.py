"""HTML reports with plotly figures: one scenario, or a comparison of designs."""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path

import plotly.graph_objects as go

from fabrictwin import __version__
from fabrictwin.twin.compare import Variant, comparison_json
from fabrictwin.twin.simulate import SimulationResult

_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>{title}</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:1100px}} td,th{{padding:2px 8px}}
pre{{background:#f4f4f4;padding:1em;overflow:auto}}</style></head><body>
<h1>{title}</h1><p>fabrictwin {version}</p>{body}</body></html>"""


def _breakdown_figure(results: Sequence[tuple[str, SimulationResult]]) -> go.Figure:
    keys = sorted({k for _, r in results for k, v in r.breakdown_s.items() if v > 0})
    fig = go.Figure()
    for key in keys:
        fig.add_bar(
            name=key,
            x=[name for name, _ in results],
            y=[r.breakdown_s.get(key, 0.0) * 1e3 for _, r in results],
        )
    fig.update_layout(barmode="stack", yaxis_title="ms per step", title="Where the step goes")
    return fig


def _table(rows: list[tuple[str, str]]) -> str:
    cells = "".join(
        f"<tr><th align=left>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in rows
    )
    return f"<table>{cells}</table>"


def scenario_report(result: SimulationResult, path: Path, trace_name: str | None = None) -> Path:
    """Write the report of one scenario; returns the path."""
    r = result
    facts = [
        ("step time", f"{r.step_time_s * 1e3:.2f} ms"),
        ("time to train", f"{r.time_to_train_s / 3600:.2f} h (goodput {r.goodput.goodput:.1%})"),
        ("GPU busy / MFU", f"{r.gpu_busy_fraction:.1%} / {r.mfu:.1%}"),
        ("bottleneck", r.bottleneck),
        ("cost / energy", f"${r.cost_usd:,.0f} / {r.energy_kwh:,.0f} kWh"),
        ("memory per GPU", r.memory.describe()),
        ("host CPU", f"{r.cpu.utilisation:.0%} of {r.cpu.host_cores:.0f} cores; DPU {r.cpu.dpu_demand}"),
    ] + [("note", n) for n in r.notes]
    fig = _breakdown_figure([(r.scenario.name, r)])
    body = _table(facts) + fig.to_html(full_html=False, include_plotlyjs=True)
    if trace_name:
        body += f"<p>Step trace (open in https://ui.perfetto.dev): <code>{html.escape(trace_name)}</code></p>"
    spec = json.dumps(r.scenario.model_dump(), indent=1, default=str)
    body += f"<h2>Resolved scenario</h2><pre>{html.escape(spec)}</pre>"
    return _write(path, f"fabrictwin: {r.scenario.name}", body)


def comparison_report(rows: Sequence[Variant], path: Path) -> Path:
    """Write the report of a comparison; returns the path."""
    named = [(" ".join(f"{k}={v}" for k, v in row.varied.items()), row.result) for row in rows]
    fig = _breakdown_figure(named)
    ttt = go.Figure(go.Bar(x=[n for n, _ in named], y=[r.time_to_train_s / 3600 for _, r in named]))
    ttt.update_layout(yaxis_title="hours", title="Time to train")
    body = fig.to_html(full_html=False, include_plotlyjs=True) + ttt.to_html(
        full_html=False, include_plotlyjs=False
    )
    data = json.dumps(comparison_json(rows), indent=1)
    body += f"<h2>Results</h2><pre>{html.escape(data)}</pre>"
    return _write(path, "fabrictwin comparison", body)


def _write(path: Path, title: str, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_PAGE.format(title=html.escape(title), version=__version__, body=body), encoding="utf-8")
    return path
