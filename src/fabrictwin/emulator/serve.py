"""Serving a fleet: one uvicorn server over one listening socket per address.

``serve_fleet`` runs it in a background thread for tests; ``run_fleet`` blocks (the CLI).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import resource
import socket
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn
import uvloop

from fabrictwin.emulator.app import EmulatorApp
from fabrictwin.emulator.fleet import AGGREGATOR, Fleet, bmc_address, platform_address
from fabrictwin.emulator.tls import write_self_signed
from fabrictwin.errors import Infeasible
from fabrictwin.spec.faults import EmulatorSettings

FD_SPARE = 256
"""Descriptors kept free for client connections and files beyond the listening sockets."""


def raise_fd_limit(needed: int) -> int:
    """Raise RLIMIT_NOFILE's soft limit to ``needed`` (or the hard limit).

    Raises:
        Infeasible: if the hard limit is below ``needed``.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < needed:
        raise Infeasible(
            f"{needed} file descriptors needed but the hard limit is {hard}",
            nearest="fewer DPUs, or no platform BMCs (platform_bmcs=false)",
        )
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
    return max(soft, needed)


def _listen(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


def open_sockets(fleet: Fleet, attempts: int = 5) -> list[socket.socket]:
    """Bind the aggregator, every BMC and every platform BMC on one port (0: pick one).

    With port 0 the kernel picks a port free on 127.0.0.1; should it be taken on another
    address (another fleet on the machine), a new port is tried, ``attempts`` times at most.

    Raises:
        Infeasible: when the descriptor limit is too low.
        OSError: when an address/port is taken (a fixed port, or every attempt failed).
    """
    n = len(fleet.devices)
    raise_fd_limit(1 + n * (2 if fleet.by_platform_addr else 1) + FD_SPARE)
    wanted = fleet.port
    for attempt in range(attempts):
        try:
            return _bind_all(fleet, wanted, n)
        except OSError:
            if wanted != 0 or attempt == attempts - 1:
                raise
    raise AssertionError("unreachable")


def _bind_all(fleet: Fleet, port: int, n: int) -> list[socket.socket]:
    first = _listen(AGGREGATOR, port)
    fleet.port = first.getsockname()[1]
    socks = [first]
    try:
        socks += [_listen(bmc_address(i), fleet.port) for i in range(n)]
        if fleet.by_platform_addr:
            socks += [_listen(platform_address(i), fleet.port) for i in range(n)]
    except OSError:
        for s in socks:
            s.close()
        raise
    return socks


def _server(app: EmulatorApp) -> uvicorn.Server:
    key: str | None = None
    cert: str | None = None
    if app.fleet.settings.tls:
        folder = Path(tempfile.mkdtemp(prefix="fabrictwin-tls-"))
        key_path, cert_path = write_self_signed(folder, dt.datetime(2026, 1, 1, tzinfo=dt.UTC))
        key, cert = str(key_path), str(cert_path)
    config = uvicorn.Config(
        app,
        lifespan="off",
        log_level="warning",
        access_log=False,
        http="httptools",
        timeout_keep_alive=30,
        ssl_keyfile=key,
        ssl_certfile=cert,
    )
    return uvicorn.Server(config)


@dataclass
class FleetHandle:
    """A running in-process fleet (from :func:`serve_fleet`)."""

    fleet: Fleet
    app: EmulatorApp
    server: uvicorn.Server
    loop: asyncio.AbstractEventLoop
    thread: threading.Thread
    sockets: list[socket.socket] = field(repr=False)

    @property
    def root_url(self) -> str:
        """``http://127.0.0.1:PORT/redfish/v1`` (the aggregator service root)."""
        return self.fleet.url(AGGREGATOR, "/redfish/v1")

    @property
    def admin_url(self) -> str:
        """``http://127.0.0.1:PORT`` (admin, schedulers and images live here)."""
        return self.fleet.url(AGGREGATOR)

    @property
    def bmc_urls(self) -> list[str]:
        """Base URL of every DPU BMC (append ``/redfish/v1``)."""
        return [self.fleet.url(bmc_address(i)) for i in range(len(self.fleet.devices))]

    @property
    def platform_urls(self) -> list[str]:
        """Base URL of every platform BMC (empty when disabled)."""
        if not self.fleet.by_platform_addr:
            return []
        return [self.fleet.url(platform_address(i)) for i in range(len(self.fleet.devices))]

    def image_url(self, name: str) -> str:
        """URL of a served image."""
        return self.fleet.url(AGGREGATOR, f"/images/{name}")

    def call(self, fn: Any, *args: Any) -> Any:
        """Run ``fn(*args)`` on the server's loop (fleet state belongs to that thread)."""

        async def run() -> Any:
            return fn(*args)

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(timeout=30)

    def advance(self, seconds: float) -> int:
        """Advance virtual time (fires every event due); returns callbacks run."""
        return int(self.call(self.fleet.driver.jump, seconds))

    def stop(self) -> None:
        """Stop serving and close the sockets (idempotent)."""
        if self.thread.is_alive():
            self.loop.call_soon_threadsafe(self.app.stopping.set)
            self.server.should_exit = True
            self.thread.join(timeout=15)
        for sock in self.sockets:
            sock.close()


def start_fleet(settings: EmulatorSettings) -> FleetHandle:
    """Start serving ``settings`` in a background thread; returns once it accepts connections.

    Raises:
        Infeasible: if the server did not start within 30 s or descriptors are short.
    """
    fleet = Fleet(settings)
    socks = open_sockets(fleet)
    app = EmulatorApp(fleet)
    server = _server(app)
    loop = uvloop.new_event_loop()
    ready = threading.Event()

    def main() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(server.serve(sockets=socks))
        loop.run_until_complete(app.aclose())
        loop.close()

    thread = threading.Thread(target=main, name="fabrictwin-emulator", daemon=True)
    thread.start()
    for _ in range(600):
        if server.started or not thread.is_alive():
            break
        ready.wait(0.05)
    if not server.started:
        raise Infeasible("the emulator did not start within 30 s")
    return FleetHandle(fleet, app, server, loop, thread, socks)


@contextlib.contextmanager
def serve_fleet(
    dpus: int = 1, *, seed: int = 0, time_scale: float = 0.0, settings: EmulatorSettings | None = None
) -> Iterator[FleetHandle]:
    """Serve a fleet for the duration of a ``with`` block (port chosen freely unless set)."""
    if settings is None:
        settings = EmulatorSettings(dpus=dpus, seed=seed, time_scale=time_scale, port=0)
    handle = start_fleet(settings)
    try:
        yield handle
    finally:
        handle.stop()


def run_fleet(settings: EmulatorSettings) -> None:
    """Serve in the foreground until interrupted (what ``fabrictwin emulator serve`` runs)."""
    fleet = Fleet(settings)
    socks = open_sockets(fleet)
    app = EmulatorApp(fleet)
    server = _server(app)
    try:
        uvloop.run(server.serve(sockets=socks))  # libuv loop: ~2x the requests/s of asyncio's
    finally:
        for sock in socks:
            sock.close()
