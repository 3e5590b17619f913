"""BlueField DPU + BMC emulator: device models on an injectable clock, a Redfish HTTP app,
fleets of thousands on loopback, host-side command views and fault injection.

Start here: :func:`serve_fleet` (tests) or ``fabrictwin emulator serve`` (operators); the
addressing, URLs and admin API are in ``docs/emulator.md``.
"""

from fabrictwin.emulator.app import create_app
from fabrictwin.emulator.serve import FleetHandle, run_fleet, serve_fleet, start_fleet
from fabrictwin.spec.faults import EmulatorSettings, Fault, FaultPlan

__all__ = [
    "EmulatorSettings",
    "Fault",
    "FaultPlan",
    "FleetHandle",
    "create_app",
    "run_fleet",
    "serve_fleet",
    "start_fleet",
]
