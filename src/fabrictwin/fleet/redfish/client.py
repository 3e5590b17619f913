"""Async Redfish HTTP client: sessions, timeouts, classified retries, bounded concurrency.

Why httpx and not the DMTF ``redfish`` library: the DMTF client is synchronous (one thread per
in-flight request), while a rollout keeps hundreds of BMCs busy at once; httpx gives asyncio,
one shared connection pool with a hard limit, per-request timeouts, and an injectable
transport (``MockTransport`` in unit tests, real loopback sockets in integration tests).
Resource shapes are declared once in :mod:`fabrictwin.fleet.redfish.resources`.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx

from fabrictwin.errors import DeviceError
from fabrictwin.fleet.redfish.errors import AuthError, PermanentError, TemporaryError

Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class RetryPolicy:
    """Retries of temporary errors inside one call (longer waits belong to the state machine)."""

    attempts: int = 3
    """Tries per request, first included."""
    backoff_s: float = 0.2
    """First back-off (s), doubled each retry: wall-clock seconds, kept short on purpose."""
    timeout_s: float = 30.0
    """Per-request timeout (s); a BMC that accepts and hangs is a temporary error (reference 7.6)."""


class Http:
    """One shared connection pool for a whole fleet, with at most ``concurrency`` requests in flight."""

    def __init__(
        self,
        concurrency: int = 64,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        retry: RetryPolicy | None = None,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.retry = retry or RetryPolicy()
        self.sleep = sleep
        self.limit = asyncio.Semaphore(concurrency)
        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        self.client = httpx.AsyncClient(
            transport=transport, limits=limits, timeout=self.retry.timeout_s, verify=False
        )

    async def aclose(self) -> None:
        """Close the pool."""
        await self.client.aclose()

    async def __aenter__(self) -> Http:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def send(
        self, device: str, method: str, url: str, *, json: Any = None, headers: dict[str, str] | None = None
    ) -> httpx.Response:
        """Send with retries of temporary failures; returns a 2xx response.

        Raises :class:`TemporaryError` (after the last try) for transport errors, timeouts, 5xx and
        429; :class:`AuthError` for 401/403; :class:`PermanentError` for other 4xx, except 400
        "An update is in progress" (a busy BMC, reference 1.5 step 4), which is temporary.
        """
        last: DeviceError | None = None
        for attempt in range(self.retry.attempts):
            if attempt:
                await self.sleep(self.retry.backoff_s * 2 ** (attempt - 1))
            try:
                async with self.limit:
                    resp = await self.client.request(method, url, json=json, headers=headers)
            except httpx.TimeoutException as exc:
                last = TemporaryError(f"timed out ({type(exc).__name__})", device=device, uri=url)
                continue
            except httpx.TransportError as exc:
                last = TemporaryError(f"unreachable ({type(exc).__name__}: {exc})", device=device, uri=url)
                continue
            if resp.is_success:
                return resp
            last = classify(device, url, resp)
            if not isinstance(last, TemporaryError) or not last.inline:
                raise last  # permanent, or the BMC named a wait longer than our back-off
        assert last is not None
        raise last

    async def probe(self, url: str, max_bytes: int = 4096) -> tuple[int, str]:
        """GET only the first bytes of ``url`` (an image may be 1.5 GB): (status, text head).

        Raises :class:`TemporaryError` when the server cannot be reached.
        """
        try:
            async with self.limit, self.client.stream("GET", url) as resp:
                head = b""
                async for chunk in resp.aiter_bytes():
                    head += chunk
                    if len(head) >= max_bytes:
                        break
                return resp.status_code, head[:max_bytes].decode("utf-8", "replace")
        except httpx.HTTPError as exc:
            raise TemporaryError(f"unreachable ({type(exc).__name__})", device=url, uri=url) from exc


def redfish_error(resp: httpx.Response) -> tuple[str, str]:
    """(MessageId, message) of a Redfish error envelope, or ('', reason phrase)."""
    try:
        body = resp.json()
    except ValueError:
        return "", resp.text[:200] or resp.reason_phrase
    err = body.get("error", {}) if isinstance(body, dict) else {}
    info = err.get("@Message.ExtendedInfo") or [{}]
    code = info[0].get("MessageId") or err.get("code", "")
    message = info[0].get("Message") or err.get("message", "") or resp.reason_phrase
    return str(code), str(message)


def classify(device: str, url: str, resp: httpx.Response) -> DeviceError:
    """Map a non-2xx response to a temporary or permanent error."""
    code, message = redfish_error(resp)
    kw: dict[str, Any] = {"device": device, "uri": url, "status": resp.status_code, "code": code}
    if resp.status_code in (401, 403):
        return AuthError(message or "authentication failed (check user/password)", **kw)
    if resp.status_code == 429 or resp.status_code >= 500:
        retry_after = resp.headers.get("Retry-After", "")
        if retry_after.replace(".", "", 1).isdigit():
            return TemporaryError(
                message or "BMC unavailable", delay_s=float(retry_after), inline=False, **kw
            )
        # No Retry-After: come back after one BMC poll period, 30 s (OobUpdate.py; reference
        # bluefield-operations.md 1.5 step 5); an assumption for how long a busy BMC needs.
        return TemporaryError(message or "BMC unavailable", delay_s=30.0, **kw)
    if resp.status_code == 400 and "update is in progress" in message.lower():
        # One update at a time per BMC (reference 1.5 step 4): come back in a minute.
        return TemporaryError(message, delay_s=60.0, inline=False, **kw)
    return PermanentError(message or f"rejected ({resp.status_code})", **kw)


class BmcSession:
    """One BMC: base URL, credentials and an ``X-Auth-Token`` session (Basic auth as fallback)."""

    def __init__(self, http: Http, base_url: str, device: str, username: str, password: str) -> None:
        self.http = http
        self.base = base_url.rstrip("/").removesuffix("/redfish/v1")
        self.device = device
        self.username = username
        self.password = password
        self.token: str | None = None
        self.basic_only = False
        self._login_lock = asyncio.Lock()

    def _basic(self) -> str:
        raw = f"{self.username}:{self.password}".encode()
        return "Basic " + base64.b64encode(raw).decode()

    async def login(self) -> None:
        """Open a Redfish session (``POST /redfish/v1/SessionService/Sessions``).

        Raises :class:`AuthError` on bad credentials and :class:`TemporaryError` when unreachable.
        """
        async with self._login_lock:
            if self.token or self.basic_only:
                return
            body = {"UserName": self.username, "Password": self.password}
            url = f"{self.base}/redfish/v1/SessionService/Sessions"
            try:
                resp = await self.http.send(self.device, "POST", url, json=body)
            except PermanentError:
                # No session service (some platform BMCs): Basic auth on every request instead;
                # wrong credentials then fail on that request with the same AuthError.
                self.basic_only = True
                return
            self.token = resp.headers.get("X-Auth-Token")

    async def request(self, method: str, path: str, body: Any = None) -> httpx.Response:
        """Authenticated request to ``path`` (absolute Redfish path); re-logs in once on 401."""
        if self.token is None and not self.basic_only:
            await self.login()
        url = path if path.startswith("http") else f"{self.base}{path}"
        headers = {"X-Auth-Token": self.token} if self.token else {"Authorization": self._basic()}
        try:
            return await self.http.send(self.device, method, url, json=body, headers=headers)
        except AuthError:
            if not self.token or self.basic_only:
                raise
            self.token = None  # the session may have expired (BMC reboot drops sessions)
            await self.login()
            headers = {"X-Auth-Token": self.token} if self.token else {"Authorization": self._basic()}
            return await self.http.send(self.device, method, url, json=body, headers=headers)

    async def get(self, path: str) -> dict[str, Any]:
        """GET a resource as JSON."""
        resp = await self.request("GET", path)
        data = resp.json()
        if not isinstance(data, dict):
            raise PermanentError("answer is not a JSON object", device=self.device, uri=path)
        return data

    async def post(self, path: str, body: Any) -> httpx.Response:
        """POST an action."""
        return await self.request("POST", path, body)

    async def patch(self, path: str, body: Any) -> httpx.Response:
        """PATCH a resource."""
        return await self.request("PATCH", path, body)
