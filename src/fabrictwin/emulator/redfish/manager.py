"""Managers, Chassis, UpdateService, inventory and tasks of one BMC (7.3) [S6][S8][S26]."""

from __future__ import annotations

from typing import Any

from fabrictwin.emulator.device import Device
from fabrictwin.emulator.install import PROTOCOLS, UPDATEABLE
from fabrictwin.emulator.redfish.odata import (
    CHASSIS,
    INV,
    MGR,
    SYS,
    TASKS,
    UPD,
    V1,
    collection,
    link,
    resource,
    status,
)
from fabrictwin.emulator.redfish.system import skew, stamp
from fabrictwin.emulator.tasks import Task

INVENTORY_IDS = (
    "BMC_Firmware",
    "Bluefield_FW_ERoT",
    "DPU_ATF",
    "DPU_BOARD",
    "DPU_BSP",
    "DPU_NIC",
    "DPU_NODE",
    "DPU_OFED",
    "DPU_OS",
    "DPU_SYS_IMAGE",
    "DPU_UEFI",
    "golden_image_arm",
    "golden_image_nic",
    "golden_image_config",
)
"""FirmwareInventory ids of a BF3 BMC (1.7) [S6][S32]."""
MAX_IMAGE_BYTES = 209_715_200
"""``UpdateService.MaxImageSizeBytes`` of a captured BF3 BMC (1.1) [S6]."""


def manager(dev: Device) -> dict[str, Any]:
    """``Managers/Bluefield_BMC``."""
    return resource(
        MGR,
        "#Manager.v1_15_0.Manager",
        Id="Bluefield_BMC",
        Name="OpenBmc Manager",
        ManagerType="BMC",
        Model="OpenBmc",
        FirmwareVersion=dev.fw["BMC_Firmware"],
        UUID=dev.ident.uuid,
        DateTime=stamp(dev.clock.now, skew(dev)),
        PowerState="On",
        Status=status(dev.bmc_state),
        Links={"ManagerForServers": [link(SYS)], "ManagerForChassis": [link(f"{CHASSIS}/Card1")]},
        Oem={"Nvidia": {"BmcRShim": {"BmcRShimEnabled": dev.bmc_rshim != "Disabled"}}},
        Actions={
            "#Manager.Reset": {
                "target": f"{MGR}/Actions/Manager.Reset",
                "ResetType@Redfish.AllowableValues": ["GracefulRestart", "ForceRestart"],
            },
            "#Manager.ResetToDefaults": {
                "target": f"{MGR}/Actions/Manager.ResetToDefaults",
                "ResetType@Redfish.AllowableValues": ["ResetAll"],
            },
            "Oem": {"#NvidiaManager.SetRshim": {"target": f"{MGR}/Actions/Oem/NvidiaManager.SetRshim"}},
        },
    )


def chassis_collection(dev: Device) -> dict[str, Any]:
    """``/redfish/v1/Chassis``."""
    ids = ("Card1", "Bluefield_BMC", "Bluefield_ERoT")
    return collection(CHASSIS, "ChassisCollection", "Chassis Collection", [f"{CHASSIS}/{i}" for i in ids])


def chassis(dev: Device, chassis_id: str) -> dict[str, Any] | None:
    """One chassis (Card1, Bluefield_BMC, Bluefield_ERoT), or None if unknown."""
    if chassis_id == "Card1":
        return resource(
            f"{CHASSIS}/Card1",
            "#Chassis.v1_21_0.Chassis",
            Id="Card1",
            Name="Card1",
            ChassisType="Card",
            Manufacturer="Nvidia",
            Model=dev.ident.model,
            PartNumber=dev.ident.part_number,
            SerialNumber=dev.ident.serial.ljust(24),
            PowerState=dev.host_power,
            Status=status(),
            NetworkAdapters=link(f"{CHASSIS}/Card1/NetworkAdapters"),
        )
    if chassis_id == "Bluefield_BMC":
        return resource(
            f"{CHASSIS}/Bluefield_BMC",
            "#Chassis.v1_21_0.Chassis",
            Id="Bluefield_BMC",
            Name="Bluefield_BMC",
            ChassisType="Component",
            Status=status(),
        )
    if chassis_id == "Bluefield_ERoT":
        copying = dev.has("background_copy_in_progress") or dev.clock.now < dev.background_copy_until
        return resource(
            f"{CHASSIS}/Bluefield_ERoT",
            "#Chassis.v1_21_0.Chassis",
            Id="Bluefield_ERoT",
            Name="Bluefield_ERoT",
            ChassisType="Component",
            Status=status(),
            Oem={
                "Nvidia": {
                    "AutomaticBackgroundCopyEnabled": True,
                    "InbandUpdatePolicyEnabled": True,
                    "BackgroundCopyStatus": "InProgress" if copying else "Completed",
                }
            },
            Actions={
                "#Chassis.Reset": {
                    "target": f"{CHASSIS}/Bluefield_ERoT/Actions/Chassis.Reset",
                    "ResetType@Redfish.AllowableValues": ["GracefulRestart"],
                }
            },
        )
    return None


def adapters(dev: Device) -> dict[str, Any]:
    """``Chassis/Card1/NetworkAdapters``."""
    base = f"{CHASSIS}/Card1/NetworkAdapters"
    return collection(
        base, "NetworkAdapterCollection", "Network Adapter Collection", [f"{base}/NvidiaNetworkAdapter"]
    )


def adapter(dev: Device) -> dict[str, Any]:
    """The ConnectX network adapter of the card."""
    base = f"{CHASSIS}/Card1/NetworkAdapters/NvidiaNetworkAdapter"
    return resource(
        base,
        "#NetworkAdapter.v1_9_0.NetworkAdapter",
        Id="NvidiaNetworkAdapter",
        Name="NvidiaNetworkAdapter",
        Manufacturer="Nvidia",
        Model=dev.ident.connectx,
        Ports=link(f"{base}/Ports"),
        Status=status(),
    )


def ports(dev: Device) -> dict[str, Any]:
    """``NetworkAdapters/NvidiaNetworkAdapter/Ports`` collection."""
    base = f"{CHASSIS}/Card1/NetworkAdapters/NvidiaNetworkAdapter/Ports"
    return collection(base, "PortCollection", "Port Collection", [f"{base}/eth0", f"{base}/eth1"])


def port(dev: Device, index: int) -> dict[str, Any]:
    """One high-speed port: LinkStatus, speed (7.1: 2 x 200G) [S6]."""
    base = f"{CHASSIS}/Card1/NetworkAdapters/NvidiaNetworkAdapter/Ports/eth{index}"
    fault = dev.faults.get("link_down")
    down = (fault is not None and fault.port == index) or dev.arm_state == "Off"
    return resource(
        base,
        "#Port.v1_7_0.Port",
        Id=f"eth{index}",
        Name=f"eth{index}",
        LinkStatus="LinkDown" if down else "LinkUp",
        CurrentSpeedGbps=0 if down else 200,
        PortProtocol="IB" if dev.nv_current[f"LINK_TYPE_P{index + 1}"] == 1 else "Ethernet",
    )


def update_service(dev: Device) -> dict[str, Any]:
    """``/redfish/v1/UpdateService`` with version-dependent protocols (7.9)."""
    profile = dev.settings.profile
    body = resource(
        UPD,
        "#UpdateService.v1_8_0.UpdateService",
        Id="UpdateService",
        Name="Update Service",
        ServiceEnabled=True,
        Status=status("Enabled" if update_ready(dev) else "Starting"),
        HttpPushUri=f"{UPD}/update",
        MaxImageSizeBytes=MAX_IMAGE_BYTES,
        FirmwareInventory=link(INV),
        Actions={
            "#UpdateService.SimpleUpdate": {
                "target": f"{UPD}/Actions/UpdateService.SimpleUpdate",
                "TransferProtocol@Redfish.AllowableValues": list(PROTOCOLS[profile]),
            },
            "Oem": {
                "#NvidiaUpdateService.PublicKeyExchange": {
                    "target": f"{UPD}/Actions/Oem/NvidiaUpdateService.PublicKeyExchange"
                },
                "#NvidiaUpdateService.RevokeAllRemoteServerPublicKeys": {
                    "target": f"{UPD}/Actions/Oem/NvidiaUpdateService.RevokeAllRemoteServerPublicKeys"
                },
            },
        },
    )
    if profile != "A":  # multipart push from BF-24.04 (1.7) [S21]
        body["MultipartHttpPushUri"] = f"{UPD}/update-multipart"
    return body


def update_ready(dev: Device) -> bool:
    """UpdateService is Enabled once the inventory is up after a BMC boot (7.3: tools wait for
    ``Status.State == "Enabled"`` before pushing) [S8][S33]."""
    return dev.bmc_state == "Enabled" and dev.clock.now >= dev.bmc_up_at + dev.t.inventory_delay_s


def inventory_collection(dev: Device) -> dict[str, Any]:
    """``FirmwareInventory`` collection."""
    return collection(
        INV,
        "SoftwareInventoryCollection",
        "Software Inventory Collection",
        [f"{INV}/{i}" for i in INVENTORY_IDS],
    )


def inventory_item(dev: Device, fw_id: str) -> dict[str, Any] | None:
    """One SoftwareInventory entry, or None if unknown. Inventory appears ``inventory_delay_s``
    after the BMC is up (7.3) [S33]."""
    if fw_id not in INVENTORY_IDS:
        return None
    early = dev.clock.now < dev.bmc_up_at + dev.t.inventory_delay_s
    version = "" if early else _version(dev, fw_id)
    return resource(
        f"{INV}/{fw_id}",
        "#SoftwareInventory.v1_4_0.SoftwareInventory",
        Id=fw_id,
        Name="Software Inventory",
        Description="Host image" if fw_id == "DPU_OS" else f"{fw_id} image",
        Version=version,
        Updateable=fw_id in UPDATEABLE,
        Status=status(),
        Manufacturer="NVIDIA",
        RelatedItem=[link(SYS if fw_id.startswith("DPU") else MGR)],
    )


def _version(dev: Device, fw_id: str) -> str:
    identity = {
        "DPU_BOARD": dev.ident.psid,
        "DPU_NODE": dev.ident.serial,
        "CONF_IMAGE": "",
        "DPU_SYS_IMAGE": ":".join(dev.ident.uuid.replace("-", "")[i : i + 4] for i in (0, 4, 8, 12)),
    }
    return identity[fw_id] if fw_id in identity else dev.inventory_version(fw_id)


def task_service(dev: Device) -> dict[str, Any]:
    """``/redfish/v1/TaskService``."""
    return resource(
        f"{V1}/TaskService",
        "#TaskService.v1_2_0.TaskService",
        Id="TaskService",
        Name="Task Service",
        ServiceEnabled=True,
        CompletedTaskOverWritePolicy="Oldest",
        LifeCycleEventOnTaskStateChange=True,
        DateTime=stamp(dev.clock.now, skew(dev)),
        Status=status(),
        Tasks=link(TASKS),
    )


def tasks_collection(dev: Device) -> dict[str, Any]:
    """Task collection."""
    return collection(TASKS, "TaskCollection", "Task Collection", [f"{TASKS}/{i}" for i in sorted(dev.tasks)])


def task(dev: Device, task_obj: Task) -> dict[str, Any]:
    """One task with live progress and keep-alive message (1.5 step 5) [S3][S4][S8]."""
    now = dev.clock.now
    messages = [m.to_json() for m in task_obj.messages]
    if task_obj.running and task_obj.live is not None:
        messages.append(task_obj.live(now).to_json())
    body = resource(
        f"{TASKS}/{task_obj.task_id}",
        "#Task.v1_4_3.Task",
        Id=str(task_obj.task_id),
        Name="Task",
        TaskState=task_obj.state,
        TaskStatus=task_obj.status,
        PercentComplete=task_obj.percent(now),
        StartTime=stamp(task_obj.start_s, skew(dev)),
        Messages=messages,
        TaskMonitor=f"{TASKS}/{task_obj.task_id}/Monitor",
        Payload={
            "TargetUri": task_obj.payload_uri,
            "HttpOperation": "POST",
            "HttpHeaders": [],
            "JsonBody": '{"Targets": ["' + task_obj.target_uri + '"]}',
        },
    )
    if task_obj.end_s is not None:
        body["EndTime"] = stamp(task_obj.end_s, skew(dev))
    return body
