"""Writes to an emulated BMC: PATCH, actions, sessions, pushes (7.3, 7.4) [S4][S8][S13][S41][S64]."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import Response

from fabrictwin.emulator import install
from fabrictwin.emulator.device import PRIVILEGES, Device
from fabrictwin.emulator.fleet import Accounts, Fleet
from fabrictwin.emulator.images import Image, parse_image
from fabrictwin.emulator.redfish import manager as mg
from fabrictwin.emulator.redfish.auth import check_password, new_session
from fabrictwin.emulator.redfish.odata import CHASSIS, MGR, SESSIONS, SYS, TASKS, UPD, success
from fabrictwin.emulator.redfish.system import RESET_TYPES
from fabrictwin.emulator.rferror import (
    RedfishError,
    bad_value,
    missing,
    not_found,
    not_supported,
    precondition_failed,
    unavailable,
)

Body = dict[str, Any]
PRIV = f"{SYS}/Oem/Nvidia/Connectx/ExternalHostPrivileges"
CEC_RESET_MIN = "00.02.0180.0000"
"""CEC versions below this answer ActionNotSupported to the ERoT reset (1.7) [S21]."""


def _json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(json.dumps(body), status, headers, "application/json;charset=utf-8")


def _need(body: Body, key: str, allowed: tuple[str, ...]) -> str:
    if key not in body:
        raise missing(key)
    value = str(body[key])
    if value not in allowed:
        raise bad_value(value, key)
    return value


class Writer:
    """PATCH / POST / DELETE handlers; ``fetch`` reads an ImageURI (an Image or an error text)."""

    def __init__(self, fleet: Fleet, fetch: Callable[[str], Awaitable[object]]) -> None:
        self.fleet = fleet
        self.fetch = fetch
        self.actions: dict[str, Callable[[Device, Body], Response]] = {
            f"{SYS}/Actions/ComputerSystem.Reset": self.system_reset,
            f"{SYS}/Oem/Nvidia/Actions/Mode.Set": self.mode_set,
            f"{SYS}/Oem/Nvidia/Actions/HostRshim.Set": self.host_rshim_set,
            f"{SYS}/Oem/Nvidia/Actions/LFWP.Set": lambda d, b: _json(success()),
            f"{PRIV}/Actions/ExternalHostPrivileges.Set": self.privileges,
            f"{SYS}/Bios/Actions/Bios.ResetBios": self.reset_bios,
            f"{MGR}/Actions/Manager.Reset": self.manager_reset,
            f"{MGR}/Actions/Manager.ResetToDefaults": self.manager_reset,
            f"{MGR}/Actions/Oem/NvidiaManager.SetRshim": self.set_rshim,
            f"{CHASSIS}/Bluefield_ERoT/Actions/Chassis.Reset": self.erot_reset,
            f"{UPD}/Actions/Oem/NvidiaUpdateService.PublicKeyExchange": self.key_exchange,
            f"{UPD}/Actions/Oem/NvidiaUpdateService.RevokeAllRemoteServerPublicKeys": self.revoke_keys,
        }

    # ---------------------------------------------------------------- PATCH
    async def patch(self, dev: Device, path: str, body: Body, if_match: str | None, current: str) -> Response:
        """PATCH with If-Match.

        Raises:
            RedfishError: 412 on an ETag mismatch, 400/405 on unwritable properties.
        """
        if if_match is not None and if_match not in ("*", current):
            raise precondition_failed()
        if path == MGR:
            rshim = body.get("Oem", {}).get("Nvidia", {}).get("BmcRShim")
            if not isinstance(rshim, dict) or "BmcRShimEnabled" not in rshim:
                raise RedfishError(400, "PropertyNotWritable", "Only Oem.Nvidia.BmcRShim is writable here.")
            if rshim["BmcRShimEnabled"]:
                dev.enable_bmc_rshim(force=bool(rshim.get("Force", False)))
            else:
                dev.disable_bmc_rshim()
            return _json(success())
        if path == f"{SYS}/Bios/Settings":
            attrs = body.get("Attributes")
            if not isinstance(attrs, dict):
                raise missing("Attributes")
            if "NicMode" in attrs:
                dev.stage_mode(_need(attrs, "NicMode", ("NicMode", "DpuMode")))
            dev.bios_pending.update({k: v for k, v in attrs.items() if k != "NicMode"})
            return _json(success())
        if path == f"{SYS}/SecureBoot":
            if not isinstance(body.get("SecureBootEnable"), bool):
                raise missing("SecureBootEnable")
            dev.secure_boot_pending = body["SecureBootEnable"]
            dev.secure_boot_boots = 0
            dev.log(f"secure boot {'enable' if body['SecureBootEnable'] else 'disable'} staged")
            return _json(success())
        raise RedfishError(405, "OperationNotAllowed", f"PATCH is not allowed on {path}.")

    # ---------------------------------------------------------------- POST
    async def post(self, dev: Device, acc: Accounts, path: str, body: Body, request: Request) -> Response:
        """Sessions, /login, updates and actions.

        Raises:
            RedfishError: 404 for unknown targets, 400 for bad parameters or a busy BMC.
        """
        if path == SESSIONS:
            check_password(dev, acc, str(body.get("UserName", "")), str(body.get("Password", "")))
            s = new_session(dev, acc, str(body["UserName"]))
            uri = f"{SESSIONS}/{s.session_id}"
            data = {
                "@odata.id": uri,
                "@odata.type": "#Session.v1_3_0.Session",
                "Id": s.session_id,
                "Name": "User Session",
                "UserName": s.user,
            }
            return _json(data, 201, {"X-Auth-Token": s.token, "Location": uri})
        if path == "/login":
            user, password = body.get("data", [body.get("username", ""), body.get("password", "")])[:2]
            check_password(dev, acc, str(user), str(password))
            return _json({"token": new_session(dev, acc, str(user)).token})
        if path == f"{UPD}/Actions/UpdateService.SimpleUpdate":
            return await self.simple_update(dev, body)
        if path in (f"{UPD}/update-multipart", f"{UPD}/update"):
            return await self.push(dev, path, body, request)
        action = self.actions.get(path)
        if action is None:
            raise not_found(path)
        return action(dev, body)

    def delete(self, acc: Accounts, path: str) -> Response:
        """Log out (DELETE a session).

        Raises:
            RedfishError: 404 if the session does not exist, 405 elsewhere.
        """
        if not path.startswith(f"{SESSIONS}/"):
            raise RedfishError(405, "OperationNotAllowed", f"DELETE is not allowed on {path}.")
        sid = path.rsplit("/", 1)[-1]
        for token, s in list(acc.sessions.items()):
            if s.session_id == sid:
                del acc.sessions[token]
                return _json(success())
        raise not_found(path)

    # ---------------------------------------------------------------- updates
    async def simple_update(self, dev: Device, body: Body) -> Response:
        """SimpleUpdate: fetch the ImageURI over HTTP, then start the task (1.5 step 4)."""
        if "ImageURI" not in body:
            raise missing("ImageURI")
        if not mg.update_ready(dev):
            raise unavailable(int(dev.t.inventory_delay_s) + 1)
        install.check_not_busy(dev)
        fetched = await self.fetch(str(body["ImageURI"]))
        image: Image | str = fetched if isinstance(fetched, Image) else str(fetched)
        task = install.simple_update(dev, self.fleet.link_of(dev), body, image)
        return self._task_accepted(dev, task.task_id)

    async def push(self, dev: Device, path: str, body: Body, request: Request) -> Response:
        """Multipart (BF-24.04+) or octet-stream (deprecated) BMC/CEC package push."""
        if path.endswith("update-multipart") and dev.settings.profile == "A":
            raise not_found(path)
        force = False
        if request.headers.get("content-type", "").startswith("multipart/"):
            form = await request.form()
            upload = form.get("UpdateFile")
            raw = await upload.read() if isinstance(upload, UploadFile) else str(upload or "").encode()
            params = json.loads(str(form.get("UpdateParameters") or "{}"))
            force = bool(params.get("ForceUpdate", False))
        else:  # the deprecated HttpPushUri takes the package as the whole body
            raw = await request.body()
        image = parse_image(raw.decode(errors="replace"))
        task = install.multipart_update(dev, image, force)
        return self._task_accepted(dev, task.task_id)

    def _task_accepted(self, dev: Device, task_id: int) -> Response:
        uri = f"{TASKS}/{task_id}"
        return _json(mg.task(dev, dev.tasks[task_id]), 202, {"Location": uri})

    def key_exchange(self, dev: Device, body: Body) -> Response:
        """PublicKeyExchange: trust an SCP server; the BMC key comes back in Resolution [S3]."""
        server = str(body.get("RemoteServerIP", ""))
        if not server or "RemoteServerKeyString" not in body:
            raise missing("RemoteServerIP" if not server else "RemoteServerKeyString")
        dev.scp_keys.add(server)
        reply = success()
        reply["@Message.ExtendedInfo"][0]["Resolution"] = (
            f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5{dev.ident.serial} root@bmc"
        )
        return _json(reply)

    def revoke_keys(self, dev: Device, body: Body) -> Response:
        """Forget every trusted SCP server."""
        dev.scp_keys.clear()
        return _json(success())

    # ---------------------------------------------------------------- power and modes
    def system_reset(self, dev: Device, body: Body) -> Response:
        """ComputerSystem.Reset on Systems/Bluefield acts on the Arm only (7.4 item 5)."""
        kind = _need(body, "ResetType", tuple(RESET_TYPES))
        if kind in ("ForceOff", "GracefulShutdown"):
            dev.power_off_arm()
        elif kind in ("On", "ForceOn"):
            if dev.arm_state == "Off":
                dev.reset_arm("power on")
        elif kind == "GracefulRestart":
            dev.reset_arm("graceful restart", dev.t.arm_shutdown_s)
        elif kind != "Nmi":
            dev.reset_arm(kind)
        return _json(success())

    def mode_set(self, dev: Device, body: Body) -> Response:
        """Mode.Set: staged in next_boot until a cold host power cycle [S40][S41]."""
        dev.stage_mode(_need(body, "Mode", ("DpuMode", "NicMode")))
        return _json(success())

    def host_rshim_set(self, dev: Device, body: Body) -> Response:
        """HostRshim.Set: INTERNAL_CPU_RSHIM in next_boot (needs a power cycle) [S45]."""
        value = _need(body, "HostRshim", ("Enabled", "Disabled"))
        dev.mlxconfig_set({"INTERNAL_CPU_RSHIM": 0 if value == "Enabled" else 1})
        return _json(success())

    def privileges(self, dev: Device, body: Body) -> Response:
        """ExternalHostPrivileges.Set: zero-trust flags apply at once (2.5) [S45][S64]."""
        for key in body:
            if key not in PRIVILEGES:
                raise RedfishError(
                    400,
                    "ActionParameterUnknown",
                    f"The action was submitted with the invalid parameter {key}.",
                    args=("ExternalHostPrivileges.Set", key),
                )
            dev.privileges[key] = _need(body, key, ("Default", "Enabled", "Disabled"))
        dev.log("host privileges " + " ".join(f"{k}={v}" for k, v in sorted(body.items())))
        return _json(success())

    def reset_bios(self, dev: Device, body: Body) -> Response:
        """Bios.ResetBios: drop pending attributes and reboot the Arm [S8]."""
        dev.bios_pending.clear()
        dev.reset_arm("bios reset")
        return _json(success())

    def manager_reset(self, dev: Device, body: Body) -> Response:
        """Manager.Reset: the BMC is away for ``bmc_reset_s``; pending BMC firmware activates."""
        dev.boot_bmc(dev.t.bmc_reset_s)
        return _json(success())

    def set_rshim(self, dev: Device, body: Body) -> Response:
        """NvidiaManager.SetRshim (profile C) with Enabled / Disabled / Forced [S13]."""
        if dev.settings.profile != "C":
            raise not_supported("NvidiaManager.SetRshim")
        value = _need(body, "Rshim", ("Enabled", "Disabled", "Forced"))
        if value == "Disabled":
            dev.disable_bmc_rshim()
        elif not dev.enable_bmc_rshim(force=value == "Forced"):
            raise RedfishError(
                400, "GeneralError", "Failed to enable BMC rshim: another backend already attached"
            )
        return _json(success())

    def erot_reset(self, dev: Device, body: Body) -> Response:
        """ERoT Chassis.Reset: activates a pending CEC image on new CEC firmware (1.7) [S21]."""
        if "Bluefield_FW_ERoT" not in dev.pending:
            raise not_found(f"{CHASSIS}/Bluefield_ERoT/PendingImage")
        if dev.fw["Bluefield_FW_ERoT"] < CEC_RESET_MIN:
            raise not_supported("Chassis.Reset")
        dev.fw["Bluefield_FW_ERoT"] = dev.pending.pop("Bluefield_FW_ERoT")
        dev.log(f"cec {dev.fw['Bluefield_FW_ERoT']} active")
        return _json(success())
