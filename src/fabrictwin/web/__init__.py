"""fabrictwin.web: dashboard and HTTP API over twin results and fleet state.

:func:`create_app` builds a FastAPI app from a :class:`WebSettings`; ``fabrictwin web`` serves
it with uvicorn on loopback.
"""

from fabrictwin.web.app import create_app
from fabrictwin.web.settings import WebSettings

__all__ = ["WebSettings", "create_app"]
