"""``fabrictwin design``: topology, NIC placement and bill of materials (being built)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command()
    def design() -> None:
        """Design a cluster fabric (under construction)."""
        raise typer.Exit(1)
