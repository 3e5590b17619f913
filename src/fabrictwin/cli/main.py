"""The ``fabrictwin`` command.

Each command group lives in its own module with a ``register(app)`` function, so that one
module owns one command. A deliberate error (:class:`FabricTwinError`) is printed without a
traceback and exits with status 2.
"""

from __future__ import annotations

import importlib
import sys

import typer
from rich.console import Console
from rich.markup import escape

from fabrictwin.errors import FabricTwinError

app = typer.Typer(
    name="fabrictwin",
    help="Digital twin of GPU training clusters and a control plane for BlueField DPU fleets.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# Modules under fabrictwin.cli that add commands; each has register(app).
COMMAND_MODULES: tuple[str, ...] = (
    "design",
    "policy",
    "doctor",
    "twin",
    "fleet",
    "catalog",
    "collective",
    "emulator",
    "sweep",
    "web",
)


def _register_all() -> None:
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"fabrictwin.cli.{name}")
        module.register(app)


_register_all()


def main() -> None:
    """Entry point of the console script."""
    try:
        # non-standalone click returns a command's typer.Exit code instead of raising it
        code = app(standalone_mode=False)
        if isinstance(code, int) and code:
            sys.exit(code)
    except FabricTwinError as exc:
        # escape: messages quote user text and install hints such as 'fabrictwin[ray]'
        Console(stderr=True).print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except typer.Abort:
        sys.exit(130)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except Exception as exc:  # click usage errors arrive here in non-standalone mode
        import click

        if isinstance(exc, click.ClickException):
            exc.show()
            sys.exit(exc.exit_code)
        raise
