"""``fabrictwin simulate`` and ``fabrictwin compare``: the training twin."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import Progress

from fabrictwin.report.console import comparison_table, print_result
from fabrictwin.report.html import comparison_report, scenario_report
from fabrictwin.report.trace import write_trace
from fabrictwin.spec.scenario import load_scenario
from fabrictwin.twin.compare import compare as run_compare
from fabrictwin.twin.compare import comparison_json, parse_vary
from fabrictwin.twin.simulate import simulate as run_simulate

OutDir = Annotated[Path, typer.Option("--out", help="Folder for the HTML report and the Perfetto trace.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]


def register(app: typer.Typer) -> None:
    @app.command()
    def simulate(
        scenario: Annotated[Path, typer.Argument(help="Scenario YAML file.")],
        out: OutDir = Path("out"),
        as_json: AsJson = False,
    ) -> None:
        """Simulate one training scenario: step breakdown, time to train, report and trace."""
        spec = load_scenario(scenario)
        result = run_simulate(spec)
        stem = scenario.stem
        trace = write_trace(result.trace_spans(), out / f"{stem}.trace.json", spec.name)
        report = scenario_report(result, out / f"{stem}.html", trace.name)
        if as_json:
            typer.echo(json.dumps(result.to_json(), indent=1))
            return
        console = Console()
        print_result(result, console)
        console.print(f"report: {report}\ntrace (open in ui.perfetto.dev): {trace}")

    @app.command()
    def compare(
        scenario: Annotated[Path, typer.Argument(help="Scenario YAML file.")],
        vary: Annotated[
            list[str], typer.Option("--vary", help="KEY=V1,V2 (fabric, dpu, sharp, nodes, ...).")
        ],
        out: OutDir = Path("out"),
        as_json: AsJson = False,
    ) -> None:
        """Simulate every combination of the varied values, side by side."""
        spec = load_scenario(scenario)
        axes = parse_vary(vary)
        with Progress(transient=True, disable=as_json) as bar:
            task = bar.add_task("simulating designs", total=None)
            rows = run_compare(
                spec, axes, progress=lambda done, total: bar.update(task, completed=done, total=total)
            )
        report = comparison_report(rows, out / f"{scenario.stem}.compare.html")
        if as_json:
            typer.echo(json.dumps(comparison_json(rows), indent=1))
            return
        console = Console()
        console.print(comparison_table(rows))
        console.print(f"report: {report}")
