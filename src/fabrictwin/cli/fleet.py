"""``fabrictwin fleet``: discover, inventory, rollout plan|run|status|resume, mode set."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from fabrictwin.fleet import service
from fabrictwin.fleet.gantt import draw_gantt
from fabrictwin.fleet.store import Store
from fabrictwin.spec.fleet import FleetSpec

fleet_app = typer.Typer(help="Operate a BlueField DPU fleet over Redfish.", no_args_is_help=True)
rollout_app = typer.Typer(help="Plan and run BFB rollouts.", no_args_is_help=True)
mode_app = typer.Typer(help="Change DPU / NIC / zero-trust mode.", no_args_is_help=True)
fleet_app.add_typer(rollout_app, name="rollout")
fleet_app.add_typer(mode_app, name="mode")

StoreOpt = Annotated[
    str | None, typer.Option("--store", help="Database URL (default: SQLite in the data dir).")
]
FleetOpt = Annotated[Path | None, typer.Option("--fleet", help="Fleet YAML (default: last discovery).")]
PwOpt = Annotated[str, typer.Option("--password-env", help="Environment variable with the BMC password.")]
ScaleOpt = Annotated[float, typer.Option("--time-scale", help="Virtual s per wall s (emulator's).")]
MetricsOpt = Annotated[int | None, typer.Option(help="Serve Prometheus metrics on this port.")]


def _fleet(store: Store, path: Path | None) -> FleetSpec:
    return service.load_fleet(path) if path else service.fleet_from_store(store)


def _hours(s: float) -> str:
    return f"{s / 3600:.2f} h"


def _print_reasons(console: Console, reasons: dict[str, str]) -> None:
    """One line per device that failed or was held back, in name order."""
    for device, reason in sorted(reasons.items()):
        console.print(f"  {device}: {reason}", highlight=False)


@fleet_app.command("discover")
def discover(
    source: Annotated[str, typer.Argument(help="Aggregator root URL, loopback range A-B:PORT, or URL list.")],
    store_url: StoreOpt = None,
    username: Annotated[str, typer.Option(help="BMC user.")] = "root",
    password_env: PwOpt = service.DEFAULT_PASSWORD_ENV,
) -> None:
    """Find the BMCs, read identity, versions, mode and health, and remember them."""
    records = service.discover(source, Store(store_url), username, service.password_from_env(password_env))
    ok = sum(r.reachable for r in records)
    Console().print(f"discovered {len(records)} BMCs, {ok} reachable")
    for r in records:
        if not r.reachable:
            Console().print(f"  [red]{r.name}[/]: {r.error}", highlight=False)


@fleet_app.command("inventory")
def inventory_cmd(
    fleet: FleetOpt = None,
    store_url: StoreOpt = None,
    desired: Annotated[Path | None, typer.Option(help="Desired-state YAML to report drift against.")] = None,
    password_env: PwOpt = service.DEFAULT_PASSWORD_ENV,
) -> None:
    """Identity, versions, mode and health of every DPU, with drift from a desired state."""
    spec = _fleet(Store(store_url), fleet)
    want = service.load_desired(desired) if desired else None
    records, drift = service.read_inventory(spec, service.password_from_env(password_env), want)
    table = Table("device", "serial", "gen", "mode", "arm", "DPU_OS", "DPU_NIC", "BMC", "drift")
    for r in records:
        v = r.versions
        diff = "; ".join(drift.get(r.name, [])) if r.reachable else f"[red]{r.error}[/]"
        table.add_row(
            r.name,
            r.serial,
            r.generation,
            r.mode,
            r.arm_state,
            v.get("DPU_OS", ""),
            v.get("DPU_NIC", ""),
            v.get("BMC_Firmware", ""),
            diff,
        )
    Console(width=200).print(table)


@rollout_app.command("plan")
def rollout_plan(
    rollout: Annotated[Path, typer.Argument(help="Rollout YAML.")],
    fleet: FleetOpt = None,
    store_url: StoreOpt = None,
    gantt: Annotated[Path | None, typer.Option(help="Write a Gantt chart PNG here.")] = None,
) -> None:
    """Waves, predicted makespan and its lower bound; optionally a Gantt chart."""
    spec = service.load_rollout(rollout)
    plan = service.plan(spec, _fleet(Store(store_url), fleet))
    table = Table("wave", "fleet %", "DPUs", "start", "end", "lower bound", "binding constraint")
    for w in plan.waves:
        table.add_row(
            str(w.index),
            f"{100 * w.fraction:.0f}",
            str(len(w.devices)),
            _hours(w.start_s),
            _hours(w.end_s),
            _hours(w.lower_bound_s),
            w.binding,
        )
    console = Console()
    console.print(table)
    console.print(f"predicted makespan {_hours(plan.makespan_s)}, lower bound {_hours(plan.lower_bound_s)}")
    if gantt is not None:
        console.print(f"Gantt chart: {draw_gantt(plan, gantt)}")


def _run(
    spec_path: Path | None,
    name: str | None,
    fleet: Path | None,
    store_url: str | None,
    password_env: str,
    time_scale: float,
    metrics_port: int | None,
    resume: bool,
) -> None:
    store = Store(store_url)
    spec = service.stored_spec(store, name) if resume and name else service.load_rollout(spec_path)  # type: ignore[arg-type]
    devices = _fleet(store, fleet)
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()
    ) as bar:
        task = bar.add_task(f"rollout {spec.name}", total=len(devices.devices))

        def tick(states) -> None:  # type: ignore[no-untyped-def]
            bar.update(task, completed=sum(1 for s in states.values() if s.terminal))

        options = service.RunOptions(time_scale, metrics_port, tick)
        result = service.run_rollout(
            spec, devices, store, service.password_from_env(password_env), options, resume
        )
    console = Console()
    console.print(f"rollout {result.name}: {result.status} in {_hours(result.makespan_s)}: {result.phases}")
    _print_reasons(console, result.reasons)


@rollout_app.command("run")
def rollout_run(
    rollout: Annotated[Path, typer.Argument(help="Rollout YAML.")],
    fleet: FleetOpt = None,
    store_url: StoreOpt = None,
    password_env: PwOpt = service.DEFAULT_PASSWORD_ENV,
    time_scale: ScaleOpt = 1.0,
    metrics_port: MetricsOpt = None,
) -> None:
    """Check every device, then run the rollout to the end (resume it if interrupted)."""
    _run(rollout, None, fleet, store_url, password_env, time_scale, metrics_port, resume=False)


@rollout_app.command("resume")
def rollout_resume(
    name: Annotated[str, typer.Argument(help="Rollout name.")],
    fleet: FleetOpt = None,
    store_url: StoreOpt = None,
    password_env: PwOpt = service.DEFAULT_PASSWORD_ENV,
    time_scale: ScaleOpt = 1.0,
    metrics_port: MetricsOpt = None,
) -> None:
    """Continue a rollout from the store after the controller stopped or was killed."""
    _run(None, name, fleet, store_url, password_env, time_scale, metrics_port, resume=True)


@rollout_app.command("status")
def rollout_status(
    name: Annotated[str, typer.Argument(help="Rollout name.")],
    store_url: StoreOpt = None,
) -> None:
    """Phase counts, failures with reasons, and the last actions of a rollout."""
    st = service.rollout_status(Store(store_url), name)
    console = Console()
    console.print(f"rollout {st.name}: {st.status} {st.detail}".rstrip())
    table = Table("phase", "DPUs")
    for phase, n in sorted(st.phases.items()):
        table.add_row(phase, str(n))
    console.print(table)
    console.print(f"pushes issued: {st.pushes}; planned makespan {_hours(st.plan.get('makespan_s', 0.0))}")
    _print_reasons(console, st.reasons)
    for e in st.last_actions:
        console.print(f"  t={e.t_s:.0f}s {e.device} {e.action} {e.detail}", highlight=False)


@mode_app.command("set")
def mode_set(
    mode: Annotated[str, typer.Argument(help="DpuMode, NicMode or ZeroTrust.")],
    fleet: FleetOpt = None,
    store_url: StoreOpt = None,
    device: Annotated[list[str] | None, typer.Option(help="Only these devices (repeatable).")] = None,
    batch: Annotated[int, typer.Option(help="Hosts power-cycled at once.")] = 32,
    password_env: PwOpt = service.DEFAULT_PASSWORD_ENV,
    time_scale: ScaleOpt = 1.0,
) -> None:
    """Stage the mode, cold-cycle the hosts, and verify the mode read back."""
    spec = _fleet(Store(store_url), fleet)
    results = service.change_mode(
        spec, mode, service.password_from_env(password_env), time_scale, batch, device or ()
    )
    table = Table("device", "before", "after", "status", "power cycles", "reason")
    for r in results:
        table.add_row(r.device, r.before, r.after, r.status, str(r.power_cycles), r.reason)
    Console(width=200).print(table)


def register(app: typer.Typer) -> None:
    """Add the ``fleet`` command group."""
    app.add_typer(fleet_app, name="fleet")
