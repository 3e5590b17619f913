"""``fabrictwin doctor``: name the cause of a BlueField host problem, with evidence and fix."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from fabrictwin.errors import SpecError
from fabrictwin.fleet.doctor import Diagnosis, Views, diagnose, from_dir, from_ssh
from fabrictwin.fleet.doctor.collect import fleet_from_emulator, from_emulator

_STYLE = {"fault": "bold red", "config": "yellow", "expected": "green", "info": "dim"}


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor)


def doctor(
    from_dir_: Path | None = typer.Option(None, "--from-dir", help="Folder of saved outputs."),
    emulator: str | None = typer.Option(None, "--emulator", help="Emulator root URL."),
    device: str = typer.Option("0", "--device", help="Emulated DPU index or serial."),
    all_devices: bool = typer.Option(False, "--all", help="With --emulator: every DPU, one line each."),
    ssh: str | None = typer.Option(None, "--ssh", help="Host to run the commands on (ssh binary)."),
    expect_mode: str | None = typer.Option(None, "--expect-mode", help="Mode meant to be set: nic|dpu."),
) -> None:
    """Read mlxconfig/mst/lspci/ip/devlink/flint/dmesg/RShim/Redfish views and report causes.

    Exit status 1 when a fault or a configuration cause is found, 0 otherwise.
    """
    if expect_mode not in (None, "nic", "dpu"):
        raise SpecError(f"--expect-mode {expect_mode!r}: write nic or dpu")
    if all_devices:
        if emulator is None or from_dir_ is not None or ssh is not None:
            raise SpecError("--all works with --emulator only")
        results = [diagnose(v, expect_mode) for v in fleet_from_emulator(emulator)]
        render_fleet(Console(), results)
    else:
        results = [diagnose(_collect(from_dir_, emulator, device, ssh), expect_mode)]
        render(Console(), results[0])
    if any(f.kind in ("fault", "config") for r in results for f in r.findings):
        raise typer.Exit(1)


def _collect(folder: Path | None, emulator: str | None, device: str, ssh: str | None) -> Views:
    chosen = [x for x in (folder, emulator, ssh) if x]
    if len(chosen) != 1:
        raise SpecError("give exactly one of --from-dir, --emulator, --ssh")
    if folder is not None:
        return from_dir(folder)
    if emulator is not None:
        return from_emulator(emulator, device)
    return from_ssh(str(ssh))


def render(console: Console, result: Diagnosis) -> None:
    """Summary, then findings most likely first, each with evidence lines and the fix."""
    console.print(f"[bold]doctor[/] {escape(result.source)}")
    for line in result.summary:
        console.print(f"  {escape(line)}", highlight=False)
    if not result.findings:
        console.print("[green]no known failure signature found[/]")
    for i, f in enumerate(result.findings, start=1):
        head = f"{i}. [{_STYLE[f.kind]}]{f.kind}[/] {escape(f.title)} [dim]({f.cause}; {f.ref})[/]"
        console.print(head, highlight=False)
        for ev in f.evidence:
            console.print(f"     evidence {escape(str(ev))}", highlight=False)
        console.print(f"     fix: {escape(f.fix)}", highlight=False)
    if result.missing:
        console.print(f"[dim]not read: {', '.join(result.missing)}[/]", highlight=False)


def render_fleet(console: Console, results: list[Diagnosis]) -> None:
    """One row per device with its first cause, then how many devices share each cause."""
    table = Table(title="doctor: first cause per DPU", title_justify="left")
    for col in ("device", "first cause", "kind", "title", "findings"):
        table.add_column(col, overflow="fold")
    for r in results:
        f = r.first
        row = (f.cause, f"[{_STYLE[f.kind]}]{f.kind}[/]", escape(f.title)) if f else ("-", "ok", "")
        table.add_row(escape(r.source.split(" device ", 1)[-1]), *row, str(len(r.findings)))
    console.print(table)
    counts = Counter(r.first.cause if r.first else "ok" for r in results)
    console.print(", ".join(f"{cause}: {n}" for cause, n in counts.most_common()), highlight=False)
