"""One library call per CLI command: discover, inventory, plan, run, resume, status, set mode.

Credentials come from the environment variable named by the fleet (``password_env``), never
from a spec or the store.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fabrictwin.errors import DeviceError, NotFound, SpecError
from fabrictwin.fleet.clock import WallClock
from fabrictwin.fleet.drain import DrainAdapter, KubernetesDrain, NoDrain, SlurmDrain
from fabrictwin.fleet.executor import Credentials, Executor, RolloutResult
from fabrictwin.fleet.inventory import DeviceInventory, drift, expand_range, from_aggregator, inventory
from fabrictwin.fleet.metrics import RolloutMetrics
from fabrictwin.fleet.modes import ModeResult, set_mode
from fabrictwin.fleet.planner import Plan, plan_rollout
from fabrictwin.fleet.redfish import Facade, HostViews, Http
from fabrictwin.fleet.state import DeviceState
from fabrictwin.fleet.store import AuditEntry, Store
from fabrictwin.spec.fleet import DesiredState, DeviceRef, FleetSpec, RolloutSpec

DEFAULT_PASSWORD_ENV = "FABRICTWIN_BMC_PASSWORD"


def password_from_env(name: str = DEFAULT_PASSWORD_ENV) -> str:
    """The BMC password. Raises :class:`SpecError` when the variable is unset."""
    value = os.environ.get(name)
    if value is None:
        raise SpecError(f"set the BMC password in the environment variable {name}")
    return value


def load_fleet(path: str | Path) -> FleetSpec:
    """Read a fleet YAML file (raises :class:`SpecError` located by file, line and path)."""
    from fabrictwin.spec.load import load_model

    return load_model(path, FleetSpec)


def load_rollout(path: str | Path) -> RolloutSpec:
    """Read a rollout YAML file (raises :class:`SpecError` located by file, line and path)."""
    from fabrictwin.spec.load import load_model

    return load_model(path, RolloutSpec)


def load_desired(path: str | Path) -> DesiredState:
    """Read a desired-state YAML file."""
    from fabrictwin.spec.load import load_model

    return load_model(path, DesiredState)


def fleet_from_store(store: Store) -> FleetSpec:
    """The fleet as last discovered. Raises :class:`NotFound` when nothing was discovered yet."""
    records = store.devices()
    if not records:
        raise NotFound(f"no devices in {store.url}; run 'fabrictwin fleet discover' first")
    fields = set(DeviceRef.model_fields)
    return FleetSpec(devices=tuple(DeviceRef(**{k: v for k, v in r.items() if k in fields}) for r in records))


async def _urls_and_refs(http: Http, source: str) -> list[DeviceRef]:
    if source.startswith("http") and source.rstrip("/").endswith("/redfish/v1"):
        urls = await from_aggregator(http, source)
        extra = await _emulator_extras(http, source)
    elif "-" in source.split("//")[-1] and ":" in source:
        urls, extra = expand_range(source), {}
    else:
        urls, extra = [u.strip().rstrip("/") for u in source.split(",") if u.strip()], {}
    if not urls:
        raise SpecError(f"no BMCs found at {source!r}")
    refs = []
    for i, url in enumerate(urls):
        e = extra.get(url, {})
        refs.append(
            DeviceRef(
                name=e.get("name", f"dpu{i:05d}"),
                bmc_url=url,
                rack=e.get("rack", ""),
                node=e.get("node", ""),
                platform_url=e.get("platform_url", ""),
            )
        )
    return refs


async def _emulator_extras(http: Http, root: str) -> dict[str, dict[str, str]]:
    """Rack, node and platform BMC per BMC from an emulator's ``/admin/fleet`` (absent on real fleets)."""
    try:
        rows = await HostViews(http, root).fleet()
    except DeviceError:
        return {}
    out: dict[str, dict[str, str]] = {}
    for row in rows:
        url = str(row.get("bmc_url", "")).rstrip("/").removesuffix("/redfish/v1")
        out[url] = {
            "name": str(row.get("serial", "")).strip() or f"dpu{row.get('index', 0):05d}",
            "rack": str(row.get("rack", "")),
            "node": str(row.get("server", "")),
            "platform_url": str(row.get("platform_url", "")).removesuffix("/redfish/v1"),
        }
    return out


def discover(
    source: str, store: Store, username: str, password: str, concurrency: int = 64, now: float = 0.0
) -> list[DeviceInventory]:
    """Find BMCs (aggregator root, loopback range, or comma-separated URLs), read them, store them."""

    async def go() -> list[DeviceInventory]:
        async with Http(concurrency) as http:
            refs = await _urls_and_refs(http, source)
            records = await inventory(http, refs, username, password)
            rows = []
            for ref, rec in zip(refs, records, strict=True):
                gen = rec.generation if rec.generation in ("BF2", "BF3") else ref.generation
                # the serial names a DPU for life; an index-derived name only until it is known
                name = rec.serial if rec.serial and ref.name.startswith("dpu") else ref.name
                row = {**ref.model_dump(), "name": name, "generation": gen, "inventory": rec.to_record()}
                rows.append(row)
            store.upsert_devices(rows, seen_at=now)
            return records

    return asyncio.run(go())


def read_inventory(
    fleet: FleetSpec, password: str, desired: DesiredState | None = None, concurrency: int = 64
) -> tuple[list[DeviceInventory], dict[str, list[str]]]:
    """Inventory of every device, and its drift from ``desired`` (empty without one)."""

    async def go() -> list[DeviceInventory]:
        async with Http(concurrency) as http:
            return await inventory(http, fleet.devices, fleet.username, password)

    records = asyncio.run(go())
    return records, drift(records, desired) if desired else {}


def plan(spec: RolloutSpec, fleet: FleetSpec) -> Plan:
    """The rollout plan (no device is contacted)."""
    return plan_rollout(spec, fleet.devices)


def _drain_adapter(spec: RolloutSpec, http: Http) -> DrainAdapter:
    if spec.scheduler == "none":
        return NoDrain()
    if not spec.scheduler_url:
        raise SpecError(f"scheduler {spec.scheduler!r} needs scheduler_url", path="scheduler_url")
    api = Facade(http, spec.scheduler_url, spec.scheduler)
    return SlurmDrain(api) if spec.scheduler == "slurm" else KubernetesDrain(api)


@dataclass
class RunOptions:
    """How to run a rollout."""

    time_scale: float = 1.0
    """Virtual seconds per wall second (match an emulator's ``--time-scale``; 1 in production)."""
    metrics_port: int | None = None
    """Serve Prometheus metrics on 127.0.0.1:PORT."""
    on_tick: Callable[[Mapping[str, DeviceState]], None] | None = None


def run_rollout(
    spec: RolloutSpec,
    fleet: FleetSpec,
    store: Store,
    password: str,
    options: RunOptions,
    resume: bool = False,
) -> RolloutResult:
    """Start (or resume) a rollout and drive it to the end; returns how it ended."""
    metrics = RolloutMetrics(spec.name)
    if options.metrics_port is not None:
        metrics.serve(options.metrics_port)

    def tick(states: dict[str, DeviceState]) -> None:
        metrics.update(states)
        if options.on_tick is not None:
            options.on_tick(states)

    async def go() -> RolloutResult:
        async with Http(spec.concurrency) as http:
            ex = Executor(
                spec,
                fleet.devices,
                store,
                http,
                WallClock(options.time_scale),
                Credentials(fleet.username, password),
                _drain_adapter(spec, http),
                on_tick=tick,
            )
            return await (ex.resume() if resume else ex.start())

    return asyncio.run(go())


@dataclass(frozen=True)
class RolloutStatus:
    """A stored rollout's state."""

    name: str
    status: str
    detail: str
    phases: dict[str, int]
    reasons: dict[str, str]
    pushes: int
    plan: dict[str, Any]
    last_actions: list[AuditEntry]


def rollout_status(store: Store, name: str) -> RolloutStatus:
    """Phase counts, reasons and recent actions of a stored rollout (raises :class:`NotFound`)."""
    row = store.rollout(name)
    states = [DeviceState.from_record(r) for r in store.states(name).values()]
    phases: dict[str, int] = {}
    for s in states:
        phases[s.phase] = phases.get(s.phase, 0) + 1
    reasons = {s.device: s.reason for s in states if s.phase in ("rolled_back", "quarantined")}
    return RolloutStatus(
        name,
        row.status,
        row.detail,
        phases,
        reasons,
        sum(s.pushes for s in states),
        row.plan,
        store.audit(name)[-10:],
    )


def stored_spec(store: Store, name: str) -> RolloutSpec:
    """The spec a stored rollout was started with."""
    return RolloutSpec.model_validate(store.rollout(name).spec)


def change_mode(
    fleet: FleetSpec,
    mode: str,
    password: str,
    time_scale: float = 1.0,
    batch: int = 32,
    devices: Sequence[str] = (),
) -> list[ModeResult]:
    """Set ``mode`` on the fleet (or the named devices), cold-cycling hosts, and verify."""
    chosen = [d for d in fleet.devices if not devices or d.name in devices]
    if not chosen:
        raise NotFound(f"none of {', '.join(devices)} is in the fleet")

    async def go() -> list[ModeResult]:
        async with Http(64) as http:
            return await set_mode(
                http, chosen, mode, fleet.username, password, WallClock(time_scale), batch=batch
            )

    return asyncio.run(go())
