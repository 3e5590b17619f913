"""The admin API (outside ``/redfish``, no auth): clock, fleet, device state, faults, host views.

On the aggregator address the paths carry ``/admin/devices/{index-or-serial}``; on a BMC's own
address the same paths exist without that part. See ``docs/emulator.md``.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from fabrictwin.emulator import faults, hostviews
from fabrictwin.emulator.device import Device
from fabrictwin.emulator.fleet import Fleet
from fabrictwin.emulator.hostpush import bfb_install_output, host_push
from fabrictwin.emulator.images import Image
from fabrictwin.errors import NotFound, SpecError
from fabrictwin.spec.faults import Fault


def _json(body: Any, status: int = 200) -> Response:
    return Response(json.dumps(body), status, media_type="application/json")


def _error(status: int, message: str) -> Response:
    return _json({"error": {"code": "Admin.Error", "message": message}}, status)


def summary(dev: Device) -> dict[str, Any]:
    """Device state as JSON (``GET /admin/devices/{id}``)."""
    return {
        "index": dev.ident.index,
        "serial": dev.ident.serial,
        "generation": dev.ident.generation,
        "server": dev.ident.server,
        "now_s": dev.clock.now,
        "mode": dev.mode,
        "next_mode": dev.next_mode,
        "arm_state": dev.arm_state,
        "observed_arm_state": dev.observed_arm_state(),
        "dpu_ready": dev.dpu_ready,
        "bmc_state": dev.bmc_state,
        "host_power": dev.host_power,
        "firmware": dict(dev.fw),
        "nic_flash": dev.nic_flash,
        "pending": dict(dev.pending),
        "rshim_owner": dev.rshim_owner,
        "bmc_rshim": dev.bmc_rshim,
        "nv_current": dict(dev.nv_current),
        "nv_next": dict(dev.nv_next),
        "privileges": dict(dev.privileges),
        "installing": dev.installing,
        "faults": [f.model_dump(exclude_none=True) for f in dev.faults.values()],
        "tasks": {str(k): t.state for k, t in dev.tasks.items()},
    }


async def _read(request: Request) -> dict[str, Any]:
    raw = await request.body()
    data = json.loads(raw) if raw else {}
    return data if isinstance(data, dict) else {}


async def fleet_admin(fleet: Fleet, path: str, request: Request) -> Response | None:
    """Admin paths of the aggregator; None when ``path`` is not one of them."""
    if path == "/admin/fleet":
        return _json(fleet.describe())
    if path == "/admin/clock":
        return _json({"now_s": fleet.clock.now, "time_scale": fleet.driver.scale})
    if path == "/admin/clock/advance" and request.method == "POST":
        body = await _read(request)
        seconds = float(body.get("seconds", 0.0))
        if seconds < 0:
            return _error(400, "seconds must be >= 0")
        fired = fleet.driver.jump(seconds)
        return _json({"now_s": fleet.clock.now, "events": fired})
    prefix = "/admin/devices/"
    if path.startswith(prefix):
        key, _, rest = path[len(prefix) :].partition("/")
        try:
            dev = fleet.device(key)
        except NotFound as exc:
            return _error(404, str(exc))
        return await device_admin(dev, "/admin/" + rest if rest else "/admin", request, fleet.images)
    return None


async def device_admin(dev: Device, path: str, request: Request, images: dict[str, Image]) -> Response:
    """Admin paths of one device (``/admin``, ``/admin/trace``, ``/admin/faults``, ``/admin/host/...``)."""
    method = request.method
    if path == "/admin":
        return _json(summary(dev))
    if path == "/admin/trace":
        return _json([[t, e] for t, e in dev.trace])
    if path == "/admin/faults":
        return await _faults(dev, request)
    if path == "/admin/host/power" and method == "POST":
        return _power(dev, await _read(request))
    if path == "/admin/host/mlxconfig" and method == "POST":
        return _mlxconfig(dev, await _read(request))
    if path == "/admin/host/bfb-install":
        if method == "POST":
            return _bfb_install(dev, images, await _read(request))
        return PlainTextResponse(bfb_install_output(dev))
    if path.startswith("/admin/host/"):
        try:
            return PlainTextResponse(hostviews.render(dev, path.rsplit("/", 1)[-1]))
        except NotFound as exc:
            return _error(404, str(exc))
    return _error(404, f"no admin resource {path}")


async def _faults(dev: Device, request: Request) -> Response:
    if request.method == "GET":
        return _json([f.model_dump(exclude_none=True) for f in dev.faults.values()])
    if request.method == "DELETE":
        kind = request.query_params.get("kind")
        try:
            faults.clear(dev, kind)
        except SpecError as exc:  # unknown kind
            return _error(400, str(exc))
        return _json({"cleared": kind or "all"})
    try:
        fault = Fault.model_validate(await _read(request))
    except ValidationError as exc:
        return _error(400, f"bad fault: {exc.errors()[0]['msg']} at {exc.errors()[0]['loc']}")
    faults.inject(dev, fault)
    return _json(fault.model_dump(exclude_none=True), 201)


def _bfb_install(dev: Device, images: dict[str, Image], body: dict[str, Any]) -> Response:
    image = images.get(str(body.get("image", "")))
    if image is None:
        return _error(404, f"no image {body.get('image')!r}; known: {', '.join(sorted(images))}")
    first = host_push(dev, image)
    return _json({"output": first}, 409 if first.startswith("Error") else 202)


def _power(dev: Device, body: dict[str, Any]) -> Response:
    action = body.get("action")
    if action == "cycle":
        dev.host_power_cycle(cold=True)
    elif action == "warm_reboot":
        dev.host_power_cycle(cold=False)
    elif action == "off":
        dev.host_off()
    elif action == "on":
        dev.host_on()
    else:
        return _error(400, "action must be cycle, warm_reboot, off or on")
    return _json({"host_power": dev.host_power, "arm_state": dev.arm_state})


def _denied(dev: Device, names: list[str], fw_reset: bool) -> str:
    """Why a restricted (zero-trust) host may not do this, or "" (2.5: mlxprivhost) [S45][S64]."""
    p = dev.privileges
    if fw_reset and p["HostPrivNicReset"] == "Disabled":
        return "-E- Reset is not allowed for a restricted host (HostPrivNicReset Disabled)"
    for name in names:
        cpu = name.startswith("INTERNAL_CPU")
        key = (
            "HostPrivNvInternalCpu"
            if cpu
            else "HostPrivNvPort"
            if name.startswith("LINK_TYPE")
            else "HostPrivNvHost"
        )
        if p[key] == "Disabled" or p["HostPrivNvGlobal"] == "Disabled":
            return f"-E- Failed to set configuration: {name} is not writable by a restricted host ({key})"
    return ""


def _mlxconfig(dev: Device, body: dict[str, Any]) -> Response:
    names = (
        list(body["set"])
        if isinstance(body.get("set"), dict)
        else list(dev.nv_next)
        if body.get("reset")
        else []
    )
    reason = _denied(dev, names, bool(body.get("fw_reset")))
    if reason:
        return _error(403, reason)
    if body.get("reset"):
        dev.mlxconfig_reset()
    if isinstance(body.get("set"), dict):
        unknown = [k for k in body["set"] if k not in dev.nv_next]
        if unknown:
            return _error(400, f"unknown mlxconfig parameters: {', '.join(unknown)}")
        dev.mlxconfig_set({k: int(v) for k, v in body["set"].items()})
    if body.get("fw_reset") and not dev.nic_fw_reset():
        return _error(409, "-E- Reset level 3 is not supported for this device (mlxfwreset)")
    return _json({"nv_current": dev.nv_current, "nv_next": dev.nv_next})
