"""``fabrictwin design``: topology, NIC placement and bill of materials of a GPU cluster."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from fabrictwin.errors import Infeasible
from fabrictwin.topology.bom import totals
from fabrictwin.topology.design import ClusterDesign, design_from_catalog
from fabrictwin.topology.layout import ROW_NAMES, plane_layout
from fabrictwin.topology.placement import WHY_NOT


def register(app: typer.Typer) -> None:
    @app.command()
    def design(
        nodes: Annotated[int, typer.Option(help="GPU servers in the cluster.")],
        gpus_per_node: Annotated[int, typer.Option(help="GPUs per server.")] = 8,
        fabric: Annotated[str, typer.Option(help="Compute fabric id, e.g. ib-ndr, roce-400g.")] = "ib-ndr",
        system: Annotated[str | None, typer.Option(help="Server system id, e.g. dgx-h100.")] = None,
        nic: Annotated[str | None, typer.Option(help="Compute NIC id (default: the fabric's).")] = None,
        oversubscription: Annotated[float, typer.Option(help="Leaf down:up port ratio (1 = full).")] = 1.0,
        tiers: Annotated[int | None, typer.Option(help="1, 2 or 3 (default: fewest that fit).")] = None,
        planes: Annotated[int, typer.Option(help="Independent fabric planes per NIC port.")] = 1,
        su_nodes: Annotated[
            int | None, typer.Option(help="Nodes per scalable unit (default: leaf down ports).")
        ] = None,
        whole_units: Annotated[
            bool, typer.Option(help="SuperPOD rule: whole SUs only (no single tier or trimmed uplinks).")
        ] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
        csv_file: Annotated[Path | None, typer.Option("--csv", help="Write the BOM as CSV.")] = None,
        picture: Annotated[Path | None, typer.Option(help="Draw the topology (.png or .svg).")] = None,
    ) -> None:
        """Design the compute, storage and OOB networks, NIC placement and BOM of a GPU cluster."""
        result = design_from_catalog(
            nodes,
            gpus_per_node,
            fabric,
            system_id=system,
            nic_id=nic,
            oversubscription=oversubscription,
            tiers=tiers,
            planes=planes,
            su_nodes=su_nodes,
            whole_units=whole_units,
        )
        if csv_file is not None:
            write_csv(result, csv_file)
        if picture is not None:
            draw(result, picture)
        if as_json:
            typer.echo(json.dumps(result.to_dict(), indent=2))
        else:
            render(result, Console())


def render(d: ClusterDesign, console: Console) -> None:
    """Rich tables: networks, NIC placement, BOM."""
    c = d.compute
    nets = Table(title=f"{d.nodes} nodes x {d.gpus_per_node} GPUs = {d.gpus} GPUs on {d.fabric}")
    for col in (
        "network",
        "switch",
        "tiers",
        "leaf",
        "spine",
        "core",
        "node links",
        "leaf-spine",
        "spine-core",
    ):
        nets.add_column(col, justify="right" if col not in ("network", "switch") else "left")
    for plan in (c, d.storage):
        if plan is not None:
            nets.add_row(plan.network, plan.switch_model, str(plan.tiers), str(plan.leaf_switches),
                         str(plan.spine_switches), str(plan.core_switches), str(plan.node_links),
                         str(plan.leaf_spine_links), str(plan.spine_core_links))  # fmt: skip
    nets.add_row("oob", d.oob.switch_model, "1", str(d.oob.switches), "0", "0", str(d.oob.ports), "0", "0")
    console.print(nets)
    sharp = f"SHARP: {'yes, ' + d.sharp.version if d.sharp.capable else 'no'} -- {d.sharp.reason}"
    console.print(sharp, *d.notes, sep="\n", highlight=False)
    nics = Table(title="Adapters per node")
    for col in ("role", "adapter", "count", "ports x Gb/s", "mode"):
        nics.add_column(col)
    for p in d.nics_per_node:
        nics.add_row(p.role, p.name, str(p.count), f"{p.ports_used} x {p.port_gbps:g}", p.mode)
    console.print(nics)
    console.print("Why:", highlight=False)
    for p in d.nics_per_node:
        console.print(f"- {p.role} ({p.adapter}): {p.why}", highlight=False)
    console.print(f"- not elsewhere: {WHY_NOT}", highlight=False)
    _render_bom(d, console)


def _render_bom(d: ClusterDesign, console: Console) -> None:
    table = Table(title="Bill of materials (prices approximate)")
    for col in ("network", "item", "qty", "kW", "k$"):
        table.add_column(col, justify="right" if col in ("qty", "kW", "k$") else "left")
    for ln in d.bom:
        table.add_row(
            ln.network, ln.item, str(ln.quantity), f"{ln.power_w / 1e3:.1f}", f"{ln.price_usd / 1e3:,.0f}"
        )
    t = totals(d.bom)
    table.add_row(
        "total", "network", "", f"{t['network_power_w'] / 1e3:.1f}", f"{t['network_price_usd'] / 1e3:,.0f}"
    )
    console.print(table)


def write_csv(d: ClusterDesign, path: Path) -> None:
    """One row per BOM line, then the totals."""
    with path.open("w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["network", "category", "item", "quantity", "unit_power_w", "unit_price_usd",
                      "power_w", "price_usd", "source"])  # fmt: skip
        for ln in d.bom:
            out.writerow([ln.network, ln.category, ln.item, ln.quantity, ln.unit_power_w, ln.unit_price_usd,
                          ln.power_w, ln.price_usd, ln.source])  # fmt: skip
        for key, value in totals(d.bom).items():
            out.writerow(["total", key, "", "", "", "", "", value, ""])


def draw(d: ClusterDesign, path: Path) -> None:
    """Aggregated picture of one compute plane (SUs, pods and core groups as boxes).

    Raises:
        Infeasible: the file suffix is neither .png nor .svg.
    """
    if path.suffix.lower() not in (".png", ".svg"):
        raise Infeasible(f"cannot draw {path.name}: use a .png or .svg file", nearest=f"{path.stem}.png")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    boxes, edges = plane_layout(d.plane, d.nodes)
    fig, ax = plt.subplots(figsize=(14, 2.2 + 1.6 * (d.plane.tiers + 1)))
    top = max(e.links for e in edges) if edges else 1
    for e in edges:
        a, b = boxes[e.a], boxes[e.b]
        width = 0.5 + 3.0 * e.links / top
        ax.plot([a.x, b.x], [a.row, b.row], color="tab:blue", alpha=0.5, lw=width, zorder=1)
        if len(edges) <= 40:  # few bundles: print the cable count on each
            ax.text((a.x + b.x) / 2, (a.row + b.row) / 2, str(e.links), fontsize=7, color="tab:blue")
    for box in boxes:
        ax.text(box.x, box.row, box.label, ha="center", va="center", fontsize=7, zorder=2,
                bbox={"boxstyle": "round", "fc": "white", "ec": "gray"})  # fmt: skip
    ax.set_yticks(range(d.plane.tiers + 1), ROW_NAMES[: d.plane.tiers + 1])
    ax.set_xticks([])
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.6, d.plane.tiers + 0.6)
    planes = f" (one of {d.compute.planes} planes)" if d.compute.planes > 1 else ""
    ax.set_title(f"{d.fabric}: {d.nodes} nodes x {d.gpus_per_node} GPUs, {d.compute.tiers} tiers, "
                 f"{d.compute.leaf_switches} leaves, {d.compute.spine_switches} spines, "
                 f"{d.compute.core_switches} cores{planes}; line width ~ cables")  # fmt: skip
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
