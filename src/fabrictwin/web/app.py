"""The app factory: :func:`create_app` wires settings, routers, templates and error handlers."""

from __future__ import annotations

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.templating import Jinja2Templates

from fabrictwin import __version__
from fabrictwin.errors import FabricTwinError, Infeasible, NotFound, SpecError
from fabrictwin.web import api, pages
from fabrictwin.web.settings import WebSettings


def _status_of(exc: FabricTwinError) -> int:
    # NotFound first: catalog's UnknownId is both NotFound and SpecError, and is a missing thing.
    if isinstance(exc, NotFound):
        return 404
    if isinstance(exc, SpecError | Infeasible):
        return 422
    return 400


async def _error(request: Request, exc: Exception) -> JSONResponse:
    if not isinstance(exc, FabricTwinError):  # registered for FabricTwinError only
        raise exc
    body = {"detail": str(exc), "error": type(exc).__name__}
    return JSONResponse(body, status_code=_status_of(exc))


def create_app(settings: WebSettings | None = None) -> FastAPI:
    """A new app; the fleet store is opened on the first fleet request, not here."""
    app = FastAPI(
        title="fabrictwin",
        version=__version__,
        description="Twin results (simulate, compare, catalog) and fleet state (inventory, rollouts).",
    )
    app.state.settings = settings or WebSettings()
    app.state.store = None
    app.state.templates = Jinja2Templates(directory=pages.TEMPLATES)
    app.add_exception_handler(FabricTwinError, _error)
    app.include_router(api.router)
    app.include_router(pages.router)
    return app


def serve(settings: WebSettings, host: str = "127.0.0.1", port: int = 8088) -> None:
    """Serve :func:`create_app` with uvicorn until interrupted (``host`` is checked by the caller)."""
    uvicorn.run(create_app(settings), host=host, port=port, log_level="info")
