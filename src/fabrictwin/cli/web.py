"""``fabrictwin web``: the dashboard and HTTP API on loopback."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from fabrictwin.web.app import serve
from fabrictwin.web.settings import WebSettings, check_host


def register(app: typer.Typer) -> None:
    @app.command()
    def web(
        host: Annotated[
            str, typer.Option("--host", help="Address to listen on (loopback only).")
        ] = "127.0.0.1",
        port: Annotated[int, typer.Option("--port", help="TCP port.")] = 8088,
        store: Annotated[
            str | None, typer.Option("--store", help="Fleet database URL (default: SQLite in the data dir).")
        ] = None,
        allow_remote: Annotated[
            bool, typer.Option("--allow-remote", help="Allow a non-loopback host (the app has no auth).")
        ] = False,
    ) -> None:
        """Serve the dashboard (/, /simulate, /fleet) and the JSON API (/api, OpenAPI at /docs)."""
        check_host(host, allow_remote)
        settings = WebSettings(store_url=store)
        Console().print(f"fabrictwin web on http://{host}:{port}/ (API docs at /docs)")
        serve(settings, host, port)
