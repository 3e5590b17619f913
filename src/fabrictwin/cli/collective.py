"""``fabrictwin collective``: an nccl-tests-style table of predicted collective performance."""

from __future__ import annotations

import json
import re
from typing import Annotated, Any

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from fabrictwin import catalog
from fabrictwin.collectives import CollectiveEstimate, context_for, estimate
from fabrictwin.errors import SpecError
from fabrictwin.units import parse_quantity

_NCCL_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)\s*$", re.IGNORECASE)
_POW = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
DTYPE_BYTES = 4
"""nccl-tests' default data type is float (4 bytes); ``count`` = size / 4."""


def parse_size(text: str) -> float:
    """Bytes from nccl-tests' notation (``8``, ``64K``, ``8G``: powers of 1024) or a unit
    string (``64MiB``, ``1GB``).

    Raises:
        SpecError: not a size.
    """
    m = _NCCL_SIZE.match(text)
    if m:
        return float(m.group(1)) * _POW[m.group(2).upper()]
    try:
        return parse_quantity(text, "bytes")
    except ValueError as exc:
        raise SpecError(str(exc), path="size") from None


def sizes_between(lo: float, hi: float, factor: float) -> np.ndarray:
    """Sizes lo, lo x factor, ... up to hi (nccl-tests -b/-e/-f).

    Raises:
        SpecError: bad bounds or factor.
    """
    if lo <= 0 or hi < lo or factor <= 1:
        raise SpecError("need 0 < minbytes <= maxbytes and stepfactor > 1")
    count = int(np.floor(np.log(hi / lo) / np.log(factor) + 1e-9)) + 1
    return lo * factor ** np.arange(count)


def rows(est: CollectiveEstimate) -> list[dict[str, Any]]:
    """JSON rows: bytes, time_us, algbw_GBps, busbw_GBps, algorithm, protocol."""
    return [
        {
            "bytes": int(est.nbytes[i]),
            "time_us": float(est.time_s[i] * 1e6),
            "algbw_GBps": float(est.algbw_Bps[i] / 1e9),
            "busbw_GBps": float(est.busbw_Bps[i] / 1e9),
            "algorithm": est.algorithm[i],
            "protocol": est.protocol[i],
        }
        for i in range(est.nbytes.size)
    ]


def render(est: CollectiveEstimate, title: str, console: Console) -> None:
    """Print the nccl-tests-style table."""
    table = Table(title=title)
    for name in ("size", "count", "type", "time_us", "algbw_GBps", "busbw_GBps", "algo/proto"):
        table.add_column(name, justify="left" if name == "algo/proto" else "right", no_wrap=True)
    for row in rows(est):
        table.add_row(
            str(row["bytes"]),
            str(row["bytes"] // DTYPE_BYTES),
            "float",
            f"{row['time_us']:.2f}",
            f"{row['algbw_GBps']:.2f}",
            f"{row['busbw_GBps']:.2f}",
            f"{row['algorithm']}/{row['protocol']}",
        )
    console.print(table)


def _layout(
    gpus: int | None, nodes: int | None, gpus_per_node: int, explicit: bool
) -> tuple[int, int | None]:
    """(nodes, ranks per node or None for all) from --gpus / --nodes / --gpus-per-node.

    Fewer GPUs than one server holds run on one node (nccl-tests ``-g 4`` on an 8-GPU box).

    Raises:
        SpecError: neither given, or an uneven split.
    """
    if nodes is not None:
        return nodes, gpus_per_node if explicit else None
    if gpus is None:
        raise SpecError("give --gpus or --nodes")
    if gpus < gpus_per_node and not explicit:
        return 1, gpus
    if gpus % gpus_per_node:
        raise SpecError(f"--gpus {gpus} is not a multiple of --gpus-per-node {gpus_per_node}")
    return gpus // gpus_per_node, gpus_per_node if explicit else None


def register(app: typer.Typer) -> None:
    @app.command()
    def collective(
        op: Annotated[
            str,
            typer.Option(
                help="all_reduce, all_gather, reduce_scatter, broadcast, reduce, all_to_all, send_recv."
            ),
        ] = "all_reduce",
        gpus: Annotated[int | None, typer.Option(help="Total GPUs (ranks), packed per node.")] = None,
        nodes: Annotated[int | None, typer.Option(help="Nodes (instead of --gpus).")] = None,
        system: Annotated[str, typer.Option(help="Server system id, e.g. dgx-h100.")] = "dgx-h100",
        fabric: Annotated[str, typer.Option(help="Fabric id, e.g. ib-ndr, roce-400g, tcp-100g.")] = "ib-ndr",
        gpus_per_node: Annotated[
            int | None, typer.Option(help="GPUs (ranks) per node (default: the system's).")
        ] = None,
        nics_per_node: Annotated[
            int | None, typer.Option(help="Compute NIC ports per node (default: the system's).")
        ] = None,
        transport: Annotated[
            str | None, typer.Option(help="Force infiniband, roce, tcp or spectrum-x.")
        ] = None,
        routing: Annotated[str, typer.Option(help="auto, dmodk, ecmp or adaptive.")] = "auto",
        qps: Annotated[int, typer.Option(help="Queue pairs per connection (ECMP entropy).")] = 1,
        sharp: Annotated[
            bool, typer.Option("--sharp/--no-sharp", help="Allow InfiniBand SHARP (CollNet).")
        ] = False,
        algo: Annotated[
            str,
            typer.Option(
                help="auto, ring, tree, sharp, nvls, nvls_tree, pat, halving_doubling, hierarchical."
            ),
        ] = "auto",
        protocol: Annotated[str, typer.Option(help="auto, ll, ll128 or simple.")] = "auto",
        nccl_version: Annotated[
            str | None,
            typer.Option(help="NCCL release whose tuner picks algorithms, e.g. 2.18.5 (default: current)."),
        ] = None,
        gpus_per_thread: Annotated[
            int,
            typer.Option(
                "--gpus-per-thread",
                "-g",
                help="GPUs one host thread drives, as nccl-tests -g (its launches bound small sizes).",
            ),
        ] = 1,
        fidelity: Annotated[str, typer.Option(help="analytic or flow.")] = "analytic",
        minbytes: Annotated[str, typer.Option(help="Smallest size (nccl-tests -b), e.g. 8, 1M.")] = "8",
        maxbytes: Annotated[str, typer.Option(help="Largest size (nccl-tests -e), e.g. 8G.")] = "8G",
        stepfactor: Annotated[
            float, typer.Option(help="Size multiplier between rows (nccl-tests -f).")
        ] = 2.0,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON rows instead of a table.")] = False,
    ) -> None:
        """Predict an NCCL collective over message sizes, like nccl-tests."""
        gpn = gpus_per_node or catalog.system(system).gpus  # ranks per node
        n_nodes, ppn = _layout(gpus, nodes, gpn, gpus_per_node is not None)
        ctx = context_for(
            system,
            fabric,
            nodes=n_nodes,
            ranks_per_node=ppn,
            nics_per_node=nics_per_node,
            transport=transport,  # type: ignore[arg-type]  # checked by CommContext
            sharp=sharp,
            routing=routing,  # type: ignore[arg-type]  # checked by CommContext
            qps=qps,
            nccl_version=nccl_version,
            gpus_per_thread=gpus_per_thread,
        )
        sizes = sizes_between(parse_size(minbytes), parse_size(maxbytes), stepfactor)
        est = estimate(ctx, op, sizes, algorithm=algo, protocol=protocol, fidelity=fidelity)  # type: ignore[arg-type]
        if as_json:
            typer.echo(json.dumps(rows(est), indent=1))
            return
        title = f"{op} on {ctx.ranks} GPUs ({ctx.nodes} x {ctx.ppn} {system}, {fabric}, {fidelity})"
        render(est, title, Console(width=120))
