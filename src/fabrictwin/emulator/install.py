"""BFB install through SimpleUpdate (7.4 item 1) and BMC/CEC package updates (7.4 item 3).

BFB: the task covers only the *transfer*; the Arm then runs the installer (decompress, OS
write, ATF/UEFI capsule, NIC firmware, BMC/CEC over VLAN 4040), attempts a NIC firmware reset
and reboots; completion is ``OemLastState`` reaching ``OsIsRunning`` (DPU mode) or ``UEFI``
(BF3 NIC mode) [S8][S29]. Progress is reported 0-20-50-80-100 over HTTP and 0/100 over SCP,
with keep-alive messages every minute (HTTP) or five minutes (SCP) [S3][S4].
"""

from __future__ import annotations

import math
from collections.abc import Callable

from fabrictwin.emulator import tasks as msg
from fabrictwin.emulator.device import Device
from fabrictwin.emulator.images import Image
from fabrictwin.emulator.links import SharedLink, Transfer
from fabrictwin.emulator.rferror import RedfishError, bad_value, busy
from fabrictwin.emulator.tasks import Task

UPDATEABLE = ("DPU_OS", "golden_image_arm", "golden_image_nic", "golden_image_config")
"""SimpleUpdate targets with ``Updateable: true`` on a BF3 BMC (1.5 step 4) [S3][S26]."""
PROTOCOLS = {"A": ("SCP",), "B": ("SCP", "HTTP", "HTTPS"), "C": ("SCP", "HTTP", "HTTPS")}
"""Allowed TransferProtocol values per version profile (7.9)."""
HTTP_STEPS = (0, 20, 50, 80, 100)
"""HTTP progress steps the BMC reports [S4]."""
RSHIM_BOOT = "/dev/rshim0/boot"
STAGES = ("decompress", "os_write", "atf_uefi", "nic_fw", "bmc_cec")


def new_task(dev: Device, target_uri: str, payload_uri: str) -> Task:
    """Create and register a Running task."""
    task = Task(dev.next_task_id, target_uri, dev.clock.now, payload_uri)
    dev.next_task_id += 1
    task.messages.append(msg.started(task.task_id))
    dev.tasks[task.task_id] = task
    dev.log(f"task {task.task_id} Running")
    return task


def check_not_busy(dev: Device) -> None:
    """Raise the 400 "An update is in progress" when a task runs or the fault says so [S8]."""
    if dev.has("update_in_progress") or any(t.running for t in dev.tasks.values()):
        raise busy()


def _abort(dev: Device, task: Task, detail: str) -> None:
    task.finish(
        dev.clock.now, "Exception", "Critical", msg.aborted(task.task_id, detail), task.percent(dev.clock.now)
    )
    dev.log(f"task {task.task_id} Exception: {detail}")


def simple_update(
    dev: Device,
    link: SharedLink,
    body: dict[str, object],
    fetched: Image | str,
) -> Task:
    """Start a SimpleUpdate. ``fetched`` is the image read from ``ImageURI`` or the fetch error.

    Raises:
        RedfishError: 400 when busy, the protocol is not allowed in this profile, or a target
            is not updateable (the request is refused and no task is made).
    """
    check_not_busy(dev)
    protocol = str(body.get("TransferProtocol", "HTTP"))
    if protocol not in PROTOCOLS[dev.settings.profile]:
        raise bad_value(protocol, "TransferProtocol")
    targets = body.get("Targets") or ["/redfish/v1/UpdateService/FirmwareInventory/DPU_OS"]
    if not isinstance(targets, list) or len(targets) != 1:
        raise bad_value(str(targets), "Targets")
    target = str(targets[0]).rstrip("/").rsplit("/", 1)[-1]
    if target not in UPDATEABLE:
        raise bad_value(str(targets[0]), "Targets")
    task = new_task(dev, str(targets[0]), "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate")
    dev.clock.schedule(1.0, lambda: _begin_transfer(dev, link, task, protocol, fetched, body))
    return task


def _precheck(dev: Device, protocol: str, fetched: Image | str, uri: str) -> str:
    """The reason the transfer cannot start, or "" (1.5 steps 2-4, 7.6 family 6)."""
    if dev.bmc_rshim == "Disabled" and not dev.enable_bmc_rshim():
        return "Failed to enable BMC rshim: another backend already attached"
    if protocol == "SCP" and (dev.has("scp_unknown_host") or not dev.scp_trusted(uri)):
        return "Host key verification failed: run PublicKeyExchange first"
    if protocol == "SCP" and dev.has("scp_unauthorized_client"):
        return "Permission denied (publickey): the BMC key is not in authorized_keys"
    if protocol == "HTTPS" and dev.has("https_bad_cert"):
        return "SSL certificate problem: unable to get local issuer certificate"
    if dev.has("image_404"):
        return f"Failed to download '{uri}': 404 Not Found"
    if isinstance(fetched, str):
        return fetched
    if dev.has("push_timeout"):
        return f"cat: write error: Connection timed out ({RSHIM_BOOT})"
    return ""


def _begin_transfer(
    dev: Device, link: SharedLink, task: Task, protocol: str, fetched: Image | str, body: dict[str, object]
) -> None:
    uri = str(body.get("ImageURI", ""))
    reason = _precheck(dev, protocol, fetched, uri)
    if reason:
        _abort(dev, task, reason)
        return
    assert isinstance(fetched, Image)
    image = fetched
    slow = dev.faults.get("transfer_slow")
    cap = (
        slow.rate_Bps
        if slow and slow.rate_Bps
        else (dev.t.scp_transfer_rate_Bps if protocol == "SCP" else dev.t.transfer_rate_Bps)
    )
    stop_pct = _stop_pct(dev)
    transfer = Transfer(float(image.size_bytes), cap, on_stop=lambda: None)
    transfer.stop_bytes = transfer.total_bytes * stop_pct / 100.0
    transfer.on_stop = lambda: _transfer_stopped(dev, link, task, transfer, image, stop_pct)
    task.progress = _progress_fn(protocol, transfer)
    task.live = _keepalive_fn(protocol, transfer, image.name, task.start_s)
    dev.installing = True
    dev.log(f"transfer {image.name} start ({protocol})")
    # Writing to /dev/rshim0/boot soft-resets the Arm, which boots the stream [S3][S31].
    dev.stream_boot()
    link.start(transfer)

    def abort(reason: str) -> None:
        link.stop(transfer)
        dev.abort_transfer = None
        dev.installing = False
        _abort(dev, task, reason)

    dev.abort_transfer = abort


def _stop_pct(dev: Device) -> float:
    for kind in ("transfer_fail_at", "task_stall"):
        fault = dev.faults.get(kind)
        if fault is not None and fault.at_pct is not None:
            return fault.at_pct
    return 100.0


def _progress_fn(protocol: str, transfer: Transfer) -> Callable[[float], float]:
    def progress(now: float) -> float:
        pct = 100.0 * transfer.fraction_at(now)
        if protocol == "SCP":
            return 100.0 if pct >= 100.0 else 0.0
        return float(max(s for s in HTTP_STEPS if s <= pct))

    return progress


def _keepalive_fn(
    protocol: str, transfer: Transfer, image: str, start: float
) -> Callable[[float], msg.TaskMessage]:
    def live(now: float) -> msg.TaskMessage:
        if protocol == "SCP":
            minutes = 5 * math.floor((now - start) / 300.0)
            text = f"Transfer is still in progress ({minutes} minutes passed): Please wait"
        else:
            minute = start + 60.0 * math.floor((now - start) / 60.0)
            pct = max(s for s in HTTP_STEPS if s <= 100.0 * transfer.fraction_at(minute))
            text = f"Transfer is {pct}%. Please wait"
        return msg.transferring(image, RSHIM_BOOT, text)

    return live


def _transfer_stopped(
    dev: Device, link: SharedLink, task: Task, tr: Transfer, image: Image, pct: float
) -> None:
    now = dev.clock.now
    dev.abort_transfer = None
    if dev.has("task_stall") and pct < 100.0:
        task.frozen_pct = float(max(s for s in HTTP_STEPS if s <= pct))
        dev.log(f"task {task.task_id} stalled at {pct:g}%")
        return
    if pct < 100.0:
        _abort(dev, task, f"Transfer failed at {pct:g}%: connection reset by peer")
        dev.installing = False
        return
    task.live = None
    if dev.has("task_exception"):
        _abort(dev, task, "Transfer failed: unexpected error")
        dev.installing = False
        dev.reset_arm("bfb rejected")
        return
    if dev.has("wrong_generation_bfb") or image.generation != dev.ident.generation:
        task.finish(
            now, "Exception", "Critical", msg.completed_warning(task.task_id, "Invalid FW Package"), 100
        )
        dev.log(f"task {task.task_id} Exception: Invalid FW Package")
        dev.installing = False
        dev.reset_arm("bfb rejected")
        return
    task.finish(now, "Completed", "OK", msg.completed_ok(task.task_id), 100)
    dev.log(f"task {task.task_id} Completed")
    run_installer(dev, image)


def run_installer(dev: Device, image: Image) -> None:
    """Installer stages on the Arm after the stream arrived (7.4 item 1)."""
    plan: list[tuple[str, float, Callable[[], bool]]] = [
        ("decompress", dev.t.decompress_s, lambda: _decompress(dev, image)),
        ("os_write", dev.t.os_write_s, lambda: _os_written(dev, image)),
        ("atf_uefi", dev.t.atf_uefi_s, lambda: _atf_uefi(dev, image)),
        ("nic_fw", dev.t.nic_fw_s, lambda: _nic_fw(dev, image)),
    ]
    if image.bmc or image.cec:
        plan.append(("bmc_cec", dev.t.bmc_cec_s, lambda: _bmc_cec(dev, image)))
    dev.rshim("INFO[MISC]: Found bf.cfg")
    _next_stage(dev, plan, 0)


def _next_stage(dev: Device, plan: list[tuple[str, float, Callable[[], bool]]], i: int) -> None:
    if i == len(plan):
        _finish_install(dev)
        return
    name, duration, action = plan[i]
    hang = dev.faults.get("install_hang")
    dev.log(f"install {name}")
    if hang is not None and hang.stage == name:
        dev.log(f"install hangs in {name}")
        return

    def done() -> None:
        if action():
            _next_stage(dev, plan, i + 1)

    dev.arm_later(duration, done)


def _decompress(dev: Device, image: Image) -> bool:
    dev.rshim("INFO[MISC]: Start decomp")
    if dev.has("image_corrupt") or not image.intact:
        dev.rshim("ERR[MISC]: mlx-mkbfb: image is corrupt (INTEGRITY_FAIL)")
        dev.log("install failed: INTEGRITY_FAIL")
        dev.installing = False
        dev.reset_arm("installer failed")
        return False
    dev.rshim("INFO[MISC]: Start install")
    return True


def _os_written(dev: Device, image: Image) -> bool:
    dev.fw.update(DPU_OS=image.os, DPU_BSP=image.bsp, DPU_OFED=image.ofed)
    dev.installed = image
    dev.os_installed = True
    dev.rshim("INFO[MISC]: Ubuntu installation completed")
    return True


def _atf_uefi(dev: Device, image: Image) -> bool:
    dev.fw.update(DPU_ATF=image.atf, DPU_UEFI=image.uefi)
    dev.rshim("INFO[MISC]: Updating ATF/UEFI")
    return True


def _nic_fw(dev: Device, image: Image) -> bool:
    if dev.has("partial_install_nic_fw_fail"):
        dev.rshim("INFO[MISC]: NIC firmware update failed")
        dev.log("install nic firmware update failed")
        return True
    if image.nic and image.nic != dev.nic_flash:
        dev.nic_flash = image.nic
        dev.rshim(f"INFO[MISC]: NIC firmware updated to {image.nic}")
    return True


def _bmc_cec(dev: Device, image: Image) -> bool:
    if dev.has("installer_vlan_fail"):
        for line in (
            "ERR Failed to create VLAN.",
            "ERR Failed to access BMC",
            "WARN Skipping BMC components upgrade.",
        ):
            dev.rshim(line)
        dev.log("install skipped BMC components (VLAN 4040 unreachable)")
        return True
    if image.bmc:
        dev.pending["BMC_Firmware"] = image.bmc
    if image.cec:
        dev.pending["Bluefield_FW_ERoT"] = image.cec
    return True


def _finish_install(dev: Device) -> None:
    if dev.nic_flash != dev.fw["DPU_NIC"]:
        if dev.mode == "DpuMode" and dev.nic_fw_reset():
            dev.rshim("INFO[MISC]: NIC firmware reset done")
        else:
            dev.rshim("INFO[MISC]: NIC Firmware reset is not supported. Host power cycle is required")
            dev.sel_add("Warning", "NIC firmware staged; host power cycle is required")
            dev.log("nic firmware staged; host power cycle required")
    if dev.has("host_pf_unbound_after_push"):
        dev.host_netdevs_bound = False
    dev.rshim("INFO[MISC]: Rebooting...")
    dev.installing = False
    dev.log("install done, rebooting")
    dev.reset_arm("installer reboot")


def multipart_update(dev: Device, image: Image | None, force: bool) -> Task:
    """A BMC or CEC package pushed to ``update-multipart`` (7.4 item 3).

    Raises:
        RedfishError: 400 when an update runs, or the ERoT background copy is in progress
            ("BMC is busy on background operation") [S8].
    """
    check_not_busy(dev)
    if dev.has("background_copy_in_progress") or dev.clock.now < dev.background_copy_until:
        raise RedfishError(400, "GeneralError", "BMC is busy on background operation. Retry later.")
    target = {"bmc": "BMC_Firmware", "cec": "Bluefield_FW_ERoT"}.get(image.kind if image else "", "")
    uri = f"/redfish/v1/UpdateService/FirmwareInventory/{target or 'BMC_Firmware'}"
    task = new_task(dev, uri, "/redfish/v1/UpdateService/update-multipart")
    if image is None or not target or image.generation != dev.ident.generation or not image.intact:
        _abort(dev, task, "Invalid FW Package")
        return task
    version = image.bmc or image.cec
    if version in (dev.fw[target], dev.pending.get(target)) and not force:
        task.finish(dev.clock.now, "Completed", "OK", msg.component_skipped(image.name, target), 100)
        dev.log(f"task {task.task_id} Completed: {target} update skipped (same version)")
        return task
    start, span = dev.clock.now, dev.t.bmc_update_task_s
    task.progress = lambda now: 100.0 * (now - start) / span

    def done() -> None:
        dev.pending[target] = version
        dev.background_copy_until = dev.clock.now + dev.t.background_copy_s
        task.finish(dev.clock.now, "Completed", "OK", msg.update_successful(image.name, target), 100)
        dev.log(f"task {task.task_id} Completed: {target} {version} pending reset")

    dev.clock.schedule(span, done)
    return task
