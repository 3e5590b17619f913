"""``fabrictwin doctor``: name the cause of a BlueField host problem, with evidence and fix."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from fabrictwin.errors import SpecError
from fabrictwin.fleet.doctor import Diagnosis, Views, diagnose, from_dir, from_ssh
from fabrictwin.fleet.doctor.collect import from_emulator

_STYLE = {"fault": "bold red", "config": "yellow", "expected": "green", "info": "dim"}


def register(app: typer.Typer) -> None:
    @app.command("doctor")
    def doctor(
        from_dir_: Path | None = typer.Option(
            None, "--from-dir", help="Folder of saved outputs (mlxconfig-q.txt ...)."
        ),
        emulator: str | None = typer.Option(
            None, "--emulator", help="Emulator root URL, e.g. http://127.0.0.1:18000"
        ),
        device: str = typer.Option("0", "--device", help="Emulated DPU index or serial (with --emulator)."),
        ssh: str | None = typer.Option(
            None, "--ssh", help="Host to run the commands on through the ssh binary."
        ),
        expect_mode: str | None = typer.Option(
            None, "--expect-mode", help="Mode you meant to set: nic or dpu."
        ),
    ) -> None:
        """Read mlxconfig/mst/lspci/ip/devlink/flint/dmesg/RShim/Redfish views and report causes.

        Exit status 1 when a fault or a configuration cause is found, 0 otherwise.
        """
        views = _collect(from_dir_, emulator, device, ssh)
        if expect_mode not in (None, "nic", "dpu"):
            raise SpecError(f"--expect-mode {expect_mode!r}: write nic or dpu")
        result = diagnose(views, expect_mode)
        render(Console(), result)
        if any(f.kind in ("fault", "config") for f in result.findings):
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
        console.print(
            f"{i}. [{_STYLE[f.kind]}]{f.kind}[/] {escape(f.title)} [dim]({f.cause}; {f.ref})[/]",
            highlight=False,
        )
        for ev in f.evidence:
            console.print(f"     evidence {escape(str(ev))}", highlight=False)
        console.print(f"     fix: {escape(f.fix)}", highlight=False)
    if result.missing:
        console.print(f"[dim]not read: {', '.join(result.missing)}[/]", highlight=False)
