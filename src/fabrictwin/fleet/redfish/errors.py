"""Retry semantics as exception types (kopf style): temporary errors are retried, permanent ones not.

Both derive from :class:`fabrictwin.errors.DeviceError`, so they carry the device, the URI, the
HTTP status and the Redfish MessageId.
"""

from __future__ import annotations

from fabrictwin.errors import DeviceError


class TemporaryError(DeviceError):
    """Worth retrying after ``delay_s``: connection refused/reset, timeout, 503, BMC busy."""

    def __init__(self, message: str, *, delay_s: float = 30.0, inline: bool = True, **kw: object) -> None:
        self.delay_s = delay_s
        self.inline = inline
        """False when the BMC said how long to wait (busy, Retry-After): the state machine waits."""
        super().__init__(message, temporary=True, **kw)  # type: ignore[arg-type]


class PermanentError(DeviceError):
    """Retrying cannot help: bad credentials, account locked, missing resource, rejected input."""


class AuthError(PermanentError):
    """401/403: wrong user or password, or the account is locked."""
