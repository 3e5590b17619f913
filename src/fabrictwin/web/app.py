"""The app factory: :func:`create_app` wires settings, routers, templates and error handlers."""

from __future__ import annotations

import uvicorn
from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from swagger_ui_bundle import swagger_ui_path

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
        docs_url=None,  # FastAPI's own /docs and /redoc load their JS from a CDN; see _offline_docs
        redoc_url=None,
    )
    app.state.settings = settings or WebSettings()
    app.state.store = None
    app.state.templates = Jinja2Templates(directory=pages.TEMPLATES)
    app.add_exception_handler(FabricTwinError, _error)
    app.include_router(api.router)
    app.include_router(pages.router)
    _offline_docs(app)
    return app


def _offline_docs(app: FastAPI) -> None:
    """Swagger UI at ``/docs`` served from the ``swagger-ui-bundle`` package's files."""
    app.mount("/static/swagger", StaticFiles(directory=swagger_ui_path), name="swagger")

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title="fabrictwin API",
            swagger_js_url="/static/swagger/swagger-ui-bundle.js",
            swagger_css_url="/static/swagger/swagger-ui.css",
            swagger_favicon_url="/static/swagger/favicon-32x32.png",
        )


def serve(settings: WebSettings, host: str = "127.0.0.1", port: int = 8088) -> None:
    """Serve :func:`create_app` with uvicorn until interrupted (``host`` is checked by the caller)."""
    uvicorn.run(create_app(settings), host=host, port=port, log_level="info")
