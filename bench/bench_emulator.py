"""Benchmark: Redfish GET throughput of one emulator process with 2,000 BMCs, and the memory of
10,000 BMCs.

Run: ``.venv/bin/python bench/bench_emulator.py [--dpus 2000] [--seconds 5] [--rounds 3]``

Throughput: the emulator serves in its own process; a second process (this one) loads it
over loopback with keep-alive HTTP/1.1 connections spread over the BMC addresses, bounded in
request count and time, GETting ``/redfish/v1/Systems/Bluefield`` with Basic auth. The
baseline, measured in the same run with the same client, is a one-route ASGI app on the same
uvicorn stack returning a body of the same size: the ratio says how much of the HTTP stack's
ceiling the emulator keeps. Targets (issue 5): >= 1,000 GETs/s with 2,000 BMCs; 10,000 BMCs
in < 1 GiB RSS.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
AUTH = "Basic " + base64.b64encode(b"root:0penBmc").decode()
PATH = "/redfish/v1/Systems/Bluefield"

SERVE = """
import sys
from fabrictwin.emulator.serve import run_fleet
from fabrictwin.spec.faults import EmulatorSettings
run_fleet(EmulatorSettings(dpus=int(sys.argv[1]), seed=7, time_scale=600, port=int(sys.argv[2]),
                           platform_bmcs=False))
"""

BASELINE = """
import asyncio, json, socket, sys, uvicorn
body = json.dumps({"pad": "x" * int(sys.argv[2])}).encode()
async def app(scope, receive, send):
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
config = uvicorn.Config(app, lifespan="off", log_level="warning", access_log=False, http="httptools")
socks = []
for host in ["127.0.0.1"] + [f"127.0.{1 + i // 254}.{1 + i % 254}" for i in range(64)]:
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, int(sys.argv[1]))); s.listen(128); s.setblocking(False); socks.append(s)
import uvloop
uvloop.run(uvicorn.Server(config).serve(sockets=socks))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_up(host: str, port: int, timeout_s: float = 120.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{host}:{port} did not come up")


async def _worker(host: str, port: int, stop_at: float, budget: list[int], counts: list[int]) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    request = (f"GET {PATH} HTTP/1.1\r\nHost: {host}\r\nAuthorization: {AUTH}\r\n\r\n").encode()
    try:
        while time.monotonic() < stop_at and budget[0] > 0:
            budget[0] -= 1
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            body = await reader.readexactly(length)
            if not head.startswith(b"HTTP/1.1 200"):
                raise RuntimeError(head[:60] + body[:100])
            counts[0] += 1
    finally:
        writer.close()


async def _load(hosts: list[str], port: int, seconds: float, max_requests: int, conns: int) -> float:
    counts, budget = [0], [max_requests]
    t0 = time.monotonic()
    stop_at = t0 + seconds
    await asyncio.gather(
        *(_worker(hosts[k % len(hosts)], port, stop_at, budget, counts) for k in range(conns))
    )
    return counts[0] / (time.monotonic() - t0)


def load(hosts: list[str], port: int, seconds: float, rounds: int, conns: int = 32) -> list[float]:
    """Requests/s of each round (bounded: ``seconds`` and 50,000 requests per round)."""
    import uvloop

    return [uvloop.run(_load(hosts, port, seconds, 50_000, conns)) for _ in range(rounds)]


def bmc_hosts(n: int, spread: int) -> list[str]:
    step = max(1, n // spread)
    return [f"127.0.{1 + i // 254}.{1 + i % 254}" for i in range(0, n, step)][:spread]


def throughput(dpus: int, seconds: float, rounds: int) -> tuple[list[float], list[float], int]:
    """Emulator and baseline rounds interleaved, so a busy machine slows both alike."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    port, bport = free_port(), free_port()
    server = subprocess.Popen([PY, "-c", SERVE, str(dpus), str(port)], env=env)
    base = None
    try:
        hosts = bmc_hosts(dpus, 64)
        wait_up(hosts[0], port)
        import urllib.request

        req = urllib.request.Request(f"http://{hosts[0]}:{port}{PATH}", headers={"Authorization": AUTH})
        size = len(urllib.request.urlopen(req).read())
        base = subprocess.Popen([PY, "-c", BASELINE, str(bport), str(size)], env=env)
        wait_up("127.0.1.1", bport)
        emu, base_rates = [], []
        for _ in range(rounds):
            emu += load(hosts, port, seconds, 1)
            base_rates += load(bmc_hosts(64, 64), bport, seconds, 1)
    finally:
        for proc in (server, base):
            if proc is not None:
                proc.terminate()
                proc.wait()
    return emu, base_rates, size


def rss(n: int) -> int:
    """VmRSS of an emulator process serving ``n`` BMCs (listening, after one GET to each of a few)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    port = free_port()
    server = subprocess.Popen([PY, "-c", SERVE, str(n), str(port)], env=env)
    try:
        hosts = bmc_hosts(n, 8)
        wait_up(hosts[-1], port)
        load(hosts, port, 0.5, 1, conns=8)  # touch the request path once
        status = Path(f"/proc/{server.pid}/status").read_text()
        kib = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
        return kib * 1024
    finally:
        server.terminate()
        server.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dpus", type=int, default=2000)
    ap.add_argument("--memory-dpus", type=int, default=10000)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    emu, base, size = throughput(args.dpus, args.seconds, args.rounds)
    med_e, med_b = statistics.median(emu), statistics.median(base)
    print(
        f"throughput: {args.dpus} BMCs, GET {PATH} ({size} B), "
        "32 keep-alive connections over 64 BMC addresses"
    )
    print(f"  emulator   median {med_e:8.0f} GETs/s  rounds {[round(x) for x in emu]}")
    print(f"  baseline   median {med_b:8.0f} GETs/s  (one-route ASGI app, same stack and body size)")
    print(
        f"  ratio emulator/baseline {med_e / med_b:.2f}; ratio to the 1,000 GETs/s target {med_e / 1000:.2f}"
    )
    empty, full = rss(1), rss(args.memory_dpus)
    print(
        f"memory: a serving emulator with {args.memory_dpus} BMCs (uvicorn, sockets, devices) "
        f"RSS {full / 2**20:.0f} MiB"
    )
    print(
        f"  baseline (the same server with 1 BMC) RSS {empty / 2**20:.0f} MiB; "
        f"per BMC {(full - empty) / (args.memory_dpus - 1) / 1024:.1f} KiB"
    )
    print(f"  ratio to the 1 GiB budget {full / 2**30:.2f}")
    print(json.dumps({"gets_per_s": med_e, "baseline_gets_per_s": med_b, "rss_bytes": full}))


if __name__ == "__main__":
    main()
