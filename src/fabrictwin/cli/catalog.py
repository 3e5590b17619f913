"""``fabrictwin catalog``: list and show catalog entries; check a cluster file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from fabrictwin import catalog
from fabrictwin.spec.base import Spec

KINDS = ("gpu", "cpu", "nic", "switch", "fabric", "system", "model")

# Field-name suffix -> (divisor, unit) for display; SI inside, human units outside.
_UNITS: tuple[tuple[str, float, str], ...] = (
    ("_Bps", 1e9, "GB/s"),
    ("_bps", 1e9, "Gb/s"),
    ("_bytes", 2.0**30, "GiB"),
    ("latency_s", 1e-6, "us"),
    ("_w", 1.0, "W"),
    ("_hz", 1e9, "GHz"),
    ("_flop_per_unit", 1e9, "GFLOP"),
)


def human(field: str, value: Any) -> str:
    """``value`` of ``field`` in display units (``hbm_Bps`` 3.35e12 -> ``3350 GB/s``)."""
    if isinstance(value, float | int) and not isinstance(value, bool):
        if field == "peak_flops_value":
            return f"{value / 1e12:g} TFLOP/s"
        if field.endswith("_w") and value >= 1e3:
            return f"{value / 1e3:.4g} kW"
        for suffix, divisor, unit in _UNITS:
            if field.endswith(suffix):
                return f"{value / divisor:.4g} {unit}"
        return f"{value:g}"
    if isinstance(value, dict):
        if field == "peak_flops":
            return ", ".join(f"{k} {human('peak_flops_value', v)}" for k, v in value.items())
        return ", ".join(f"{k}={human(k, v)}" for k, v in value.items() if v not in (0, 0.0, False))
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def register(app: typer.Typer) -> None:
    group = typer.Typer(help="Browse the catalog of GPUs, NICs, switches, fabrics, systems and models.")

    @group.command("list")
    def list_entries(
        kind: Annotated[str | None, typer.Argument(help=f"One of {', '.join(KINDS)} (default: all).")] = None,
    ) -> None:
        """List catalog ids with their names."""
        render_list([kind] if kind else list(KINDS), Console())

    @group.command("show")
    def show(
        entry_id: Annotated[str, typer.Argument(help="Catalog id, e.g. h100-sxm or ib-ndr.")],
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON (SI units).")] = False,
    ) -> None:
        """Show one entry with its figures and their sources."""
        kind, entry = catalog.find(entry_id)
        if as_json:
            typer.echo(json.dumps({"kind": kind, **entry.model_dump(mode="json")}, indent=2))
        else:
            render_entry(kind, entry, Console())

    @group.command("check")
    def check(path: Annotated[Path, typer.Argument(help="A cluster YAML file.")]) -> None:
        """Validate a cluster file against the specs and the catalog."""
        cluster = catalog.load_cluster(path)
        compute = cluster.fabric.compute
        typer.echo(f"{path}: ok - {cluster.nodes} x {cluster.system} on {compute.link}")

    app.add_typer(group, name="catalog")


def render_list(kinds: list[str], console: Console) -> None:
    """One table of id, kind and name."""
    table = Table("kind", "id", "name", title="fabrictwin catalog")
    for kind in kinds:
        for entry in catalog.entries(kind):
            table.add_row(kind, str(getattr(entry, "id", "")), str(getattr(entry, "name", "")))
    console.print(table)


def render_entry(kind: str, entry: Spec, console: Console) -> None:
    """A field / value table in display units, then the sources."""
    table = Table("field", "value", title=f"{kind} {getattr(entry, 'id', '')}")
    for field in type(entry).model_fields:
        if field != "sources":
            table.add_row(field, human(field, getattr(entry, field)))
    console.print(table)
    for source in getattr(entry, "sources", []):
        console.print(f"source: {source.ref}\n  {source.note}")
