"""``fabrictwin policy check|trace|show|deploy``: tenant isolation policy on BlueField DPUs."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from fabrictwin.fleet.policy import (
    CheckReport,
    Trace,
    check_policy,
    compile_policy,
    deploy_policy,
    load_policy,
    snap_plan,
    trace_packet,
)

_STYLE = {"error": "bold red", "warning": "yellow", "info": "dim"}


def register(app: typer.Typer) -> None:
    policy = typer.Typer(help="Tenant isolation policy: check, trace, show, deploy.", no_args_is_help=True)
    app.add_typer(policy, name="policy")
    policy.command("check")(check)
    policy.command("trace")(trace)
    policy.command("show")(show)
    policy.command("deploy")(deploy)


def check(path: Path = typer.Argument(..., help="Policy YAML."), verbose: bool = False) -> None:
    """Prove tenant isolation, find rule anomalies, say what zero-trust protects. Exit 1 on errors."""
    report = check_policy(load_policy(path))
    render_check(Console(), report, verbose=verbose)
    if not report.ok:
        raise typer.Exit(1)


def trace(
    path: Path = typer.Argument(..., help="Policy YAML."),
    source: str = typer.Option(..., "--from", help="Sending VM, e.g. vm:tenant-a/web-1."),
    destination: str = typer.Option(..., "--to", help="IP:PORT/PROTO, e.g. 10.1.2.3:443/tcp."),
) -> None:
    """Walk a packet hop by hop through the compiled tables, and its reply."""
    render_trace(Console(), trace_packet(load_policy(path), source, destination))


def show(
    path: Path = typer.Argument(..., help="Policy YAML."),
    server: str = typer.Option("", help="Only this server."),
) -> None:
    """Print the compiled pipeline of each server (ovs-ofctl dump-flows style) and its SNAP devices."""
    spec = load_policy(path)
    devices = snap_plan(spec)
    console = Console()
    for name, pipe in compile_policy(spec).items():
        if not server or server == name:
            console.print(pipe.render(), highlight=False, soft_wrap=True, markup=False)
            for dev in (d for d in devices if d.server == name):
                console.print(
                    f"# snap {dev.volume}: {dev.text}", highlight=False, soft_wrap=True, markup=False
                )


def deploy(
    path: Path = typer.Argument(..., help="Policy YAML."),
    out: Path = typer.Option(..., "--out", help="Directory for the per-server artifacts."),
) -> None:
    """Check, and only if the check passes, write per-server flows and SNAP plans."""
    result = deploy_policy(load_policy(path), out)
    console = Console()
    render_check(console, result.report, verbose=False)
    for file in result.files:
        console.print(f"wrote {file}", highlight=False)


def render_check(console: Console, report: CheckReport, *, verbose: bool) -> None:
    """Findings, cross-tenant reach, and the trust picture of each server."""
    verdict = "[bold green]PASS[/]" if report.ok else "[bold red]FAIL[/]"
    console.print(
        f"policy {report.policy}: {verdict} ({len(report.errors)} errors, {len(report.findings)} findings; "
        f"{report.header_classes} header classes x {report.walks} walks, exhaustive)"
    )
    for f in report.findings:
        if f.severity == "info" and not verbose:
            continue
        label = f"[{_STYLE[f.severity]}]{f.severity:7}[/]"
        console.print(f"{label} {f.kind:14} {f.subject}: {f.message}", highlight=False)
        for step in f.path:
            console.print(f"          via {step}", highlight=False)
    if report.reach:
        table = Table(title="granted cross-tenant reach", title_justify="left")
        for col in ("from", "to", "example", "classes"):
            table.add_column(col)
        for r in report.reach:
            table.add_row(r.src, r.dst, r.example, str(r.classes))
        console.print(table)
    groups: dict[tuple[str, str, tuple[str, ...], tuple[str, ...]], list[str]] = {}
    for s in report.servers:
        groups.setdefault((s.mode, s.controlled_by, s.protects, s.does_not_protect), []).append(s.server)
    for (mode, owner, protects, exposed), names in groups.items():
        console.print(f"[bold]{', '.join(names)}[/] ({mode} mode, pipeline controlled by {owner})")
        for line in protects:
            console.print(f"  [green]protects[/]         {line}", highlight=False)
        for line in exposed if verbose else exposed[:3]:
            console.print(f"  [yellow]does not protect[/] {line}", highlight=False)


def render_trace(console: Console, trace: Trace, *, title: str = "trace") -> None:
    """Hop by hop, like ``ovs-appctl ofproto/trace``; the reply follows when the packet was delivered."""
    console.print(f"[bold]{title}[/]: {trace.packet}", highlight=False)
    for i, hop in enumerate(trace.hops, start=1):
        head = f"{i:2}. [cyan]{escape(hop.where)}[/] {escape(hop.stage)}: {escape(hop.decision)}"
        console.print(head, highlight=False)
        if hop.rule:
            console.print(f"      rule: {hop.rule}", highlight=False, markup=False)
        console.print(f"      enforced at: {hop.enforced_at}", highlight=False, markup=False)
    console.print(f"outcome: [bold]{trace.outcome}[/]", highlight=False)
    if trace.reply is not None:
        console.print()
        render_trace(console, trace.reply, title="reply (conntrack: established)")
