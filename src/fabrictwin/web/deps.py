"""Request-scoped access to what the app was built with (settings and the fleet store)."""

from __future__ import annotations

from fastapi import Request

from fabrictwin.errors import SpecError
from fabrictwin.fleet.store import Store
from fabrictwin.web.settings import WebSettings


def settings(request: Request) -> WebSettings:
    """The app's settings."""
    value: WebSettings = request.app.state.settings
    return value


def store(request: Request) -> Store:
    """The app's fleet store, opened (and migrated) on first use so twin-only use needs no DB."""
    app_state = request.app.state
    if app_state.store is None:
        app_state.store = Store(app_state.settings.store_url)
    value: Store = app_state.store
    return value


async def body_text(request: Request) -> str:
    """The request body as UTF-8 text, bounded by ``max_body_bytes``.

    Raises:
        SpecError: body too large or not UTF-8.
    """
    limit = settings(request).max_body_bytes
    raw = await request.body()
    if len(raw) > limit:
        raise SpecError(f"body of {len(raw)} bytes is over the limit of {limit} bytes", file="request")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(f"body is not UTF-8 text ({exc.reason})", file="request") from exc
