"""``fabrictwin sweep``: simulate a design space, locally or on a Dask/Ray cluster."""

from __future__ import annotations

import csv
import enum
import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from fabrictwin.twin.executors import make_executor
from fabrictwin.twin.sweep import SweepResult, csv_rows, sweep_file


class ExecutorKind(enum.StrEnum):
    local = "local"
    dask = "dask"
    ray = "ray"


def register(app: typer.Typer) -> None:
    @app.command()
    def sweep(
        space: Annotated[Path, typer.Argument(help="Sweep YAML file (base scenario + axes).")],
        executor: Annotated[
            ExecutorKind, typer.Option("--executor", help="Where the points run.")
        ] = ExecutorKind.local,
        address: Annotated[
            str | None,
            typer.Option(
                "--address",
                "--ray",
                help="Scheduler address (dask: tcp://HOST:8786; ray: HOST:6379 or auto).",
            ),
        ] = None,
        workers: Annotated[
            int, typer.Option("--workers", min=1, help="Worker processes of a local pool or cluster.")
        ] = 1,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
        csv_file: Annotated[Path | None, typer.Option("--csv", help="Write the table as CSV.")] = None,
        plot: Annotated[
            Path | None, typer.Option("--plot", help="Write a time-vs-cost scatter (PNG).")
        ] = None,
    ) -> None:
        """Simulate every design of a space; table by time to train, Pareto front over time and cost."""
        kind = executor.value
        if address is not None and kind == "local":
            kind = "ray"  # --ray ADDRESS alone (the brief's spelling) means a Ray cluster
        runner = make_executor(kind, address=address, workers=workers)
        try:
            with Progress(transient=True, disable=as_json) as bar:
                task = bar.add_task(f"simulating designs ({kind})", total=None)
                result = sweep_file(
                    space, runner, lambda done, total: bar.update(task, completed=done, total=total)
                )
        finally:
            runner.close()
        if csv_file:
            _write_csv(result, csv_file)
        if plot:
            _write_plot(result, plot)
        if as_json:
            typer.echo(json.dumps(result.to_json(), indent=1))
            return
        _print(result, Console())


def _hours(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds / 3600:,.1f}"


def _table(result: SweepResult, wide: bool) -> Table:
    """The designs by time to train; ``wide`` adds the bottleneck (needs ~100 columns)."""
    axes = list(result.spec.axes)
    table = Table(title=f"{result.spec.name}: {len(result.rows)} designs, by time to train (* Pareto)")
    for name in ["", *axes, "time h", "cost k$", "MWh", "MFU", *(["bottleneck"] if wide else [])]:
        left = name in axes or name == "bottleneck"
        # designs and figures are never cut; on a narrow terminal the bottleneck wraps instead
        table.add_column(
            name,
            justify="left" if left else "right",
            no_wrap=name != "bottleneck",
            min_width=7 if left else None,
        )
    ok = sorted((r for r in result.rows if r.ok), key=lambda r: (r.objective("time_to_train"), r.index))
    for r in ok:
        table.add_row(
            "*" if r.index in result.pareto else "",
            *[str(r.values[a]) for a in axes],
            _hours(r.time_to_train_s),
            f"{r.objective('cost') / 1e3:,.1f}",
            f"{r.objective('energy') / 1e3:,.1f}",
            f"{r.mfu or 0.0:.0%}",
            *([str(r.bottleneck).replace("_", " ")] if wide else []),
        )
    return table


def _print(result: SweepResult, console: Console) -> None:
    console.print(_table(result, wide=console.width >= 100))
    for name, index in result.best.items():
        values = " ".join(f"{k}={v}" for k, v in result.rows[index].values.items())
        console.print(f"best {name}: {values}")
    for r in result.rows:
        if not r.ok:
            values = " ".join(f"{k}={v}" for k, v in r.values.items())
            console.print(f"[yellow]did not run[/] {values}: {r.error}", highlight=False)


def _write_csv(result: SweepResult, path: Path) -> None:
    rows = list(csv_rows(result))
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def _write_plot(result: SweepResult, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")  # files only: no display on servers
    import matplotlib.pyplot as plt

    ok = [r for r in result.rows if r.ok]
    front = [result.rows[i] for i in result.pareto]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.scatter(
        [r.objective("time_to_train") / 3600 for r in ok],
        [r.objective("cost") for r in ok],
        color="0.6",
        label="designs",
    )
    ax.plot(
        [r.objective("time_to_train") / 3600 for r in front],
        [r.objective("cost") for r in front],
        "o-",
        color="tab:red",
        drawstyle="steps-post",
        label="Pareto front",
    )
    for r in front:
        label = " ".join(str(v) for v in r.values.values())
        ax.annotate(
            label,
            (r.objective("time_to_train") / 3600, r.objective("cost")),
            fontsize=7,
            xytext=(4, 4),
            textcoords="offset points",
        )
    ax.set_xlabel("time to train (h)")
    ax.set_ylabel("cost (USD)")
    ax.set_title(result.spec.name)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
