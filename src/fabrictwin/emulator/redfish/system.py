"""``/redfish/v1/Systems/Bluefield`` and below, rendered from device state (7.3) [S6][S29][S64]."""

from __future__ import annotations

import datetime as dt
from typing import Any

from fabrictwin.emulator.device import PRIVILEGES, Device
from fabrictwin.emulator.redfish.odata import SYS, V1, collection, link, resource, status

RESET_TYPES = [
    "On",
    "ForceOff",
    "ForceOn",
    "ForceRestart",
    "GracefulRestart",
    "GracefulShutdown",
    "PowerCycle",
    "Nmi",
]
"""``ResetActionInfo`` AllowableValues of a BF3 BMC (7.3) [S6]."""
# Standard BootProgress.LastState for each OemLastState (ComputerSystem v1_13+ enum).
_LAST_STATE = {
    "Off": "None",
    "BootRom": "PrimaryProcessorInitializationStarted",
    "BL2": "PrimaryProcessorInitializationStarted",
    "BL31": "PrimaryProcessorInitializationStarted",
    "UEFI": "SystemHardwareInitializationComplete",
    "OsStarting": "OSBootStarted",
    "OsIsRunning": "OSRunning",
    "FirmwareUpdateInProgress": "OEM",
    "OsCrashDumpInProgress": "OEM",
    "OsCrashDumpIsComplete": "OEM",
}
EPOCH = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
"""Virtual time 0 as a calendar date (timestamps in logs and tasks)."""


def stamp(t_s: float, skew_s: float = 0.0) -> str:
    """ISO 8601 time of virtual second ``t_s`` (plus a BMC clock skew)."""
    moment = EPOCH + dt.timedelta(seconds=t_s + skew_s)
    return moment.strftime("%Y-%m-%dT%H:%M:%S+00:00")


def skew(dev: Device) -> float:
    """BMC clock offset from the ``clock_skew`` fault, s."""
    fault = dev.faults.get("clock_skew")
    return fault.skew_s or 0.0 if fault is not None and dev.has("clock_skew") else 0.0


def computer_system(dev: Device) -> dict[str, Any]:
    """The ComputerSystem of the Arm complex."""
    observed = dev.observed_arm_state()
    boot_progress: dict[str, Any] = {"LastState": _LAST_STATE.get(observed, "OEM")}
    if dev.settings.profile != "A":  # OemLastState from BF-24.04 on (7.9) [S29]
        boot_progress["OemLastState"] = observed
    return resource(
        SYS,
        "#ComputerSystem.v1_17_0.ComputerSystem",
        Id="Bluefield",
        Name="Bluefield System",
        SystemType="Physical",
        Manufacturer="Nvidia",
        Model=dev.ident.model.replace(" Main Card", ""),
        SerialNumber=dev.ident.serial,
        SKU=dev.ident.part_number,
        UUID=dev.ident.uuid,
        PowerState="Off" if observed == "Off" else "On",
        Status=status("Enabled" if observed != "Off" else "StandbyOffline"),
        BootProgress=boot_progress,
        Boot={
            "BootOrder": ["Boot0040", "Boot0000", "Boot0001"],
            "BootSourceOverrideEnabled": "Disabled",
            "BootSourceOverrideTarget": "None",
            "BootSourceOverrideMode": "UEFI",
        },
        SerialConsole={"SSH": {"Port": 2200, "ServiceEnabled": True}},
        Bios=link(f"{SYS}/Bios"),
        SecureBoot=link(f"{SYS}/SecureBoot"),
        LogServices=link(f"{SYS}/LogServices"),
        Links={"ManagedBy": [link(f"{V1}/Managers/Bluefield_BMC")], "Chassis": [link(f"{V1}/Chassis/Card1")]},
        Oem={"Nvidia": link(f"{SYS}/Oem/Nvidia")},
        Actions={
            "#ComputerSystem.Reset": {
                "target": f"{SYS}/Actions/ComputerSystem.Reset",
                "ResetType@Redfish.AllowableValues": RESET_TYPES,
            }
        },
    )


def oem_nvidia(dev: Device) -> dict[str, Any]:
    """``Systems/Bluefield/Oem/Nvidia``: Mode, HostRshim and their actions (2.3, 2.5)."""
    mode = dev.mode if dev.settings.profile != "A" or dev.mode == "NicMode" else ""
    base = f"{SYS}/Oem/Nvidia"
    return {
        "@odata.id": base,
        "@odata.type": "#NvidiaComputerSystem.v1_0_0.NvidiaComputerSystem",
        "Mode": mode,
        "HostRshim": "Enabled" if dev.nv_current["INTERNAL_CPU_RSHIM"] == 0 else "Disabled",
        "BaseMAC": dev.ident.base_mac.replace(":", ""),
        "Connectx": {
            "StrapOptions": link(f"{base}/Connectx/StrapOptions"),
            "ExternalHostPrivileges": link(f"{base}/Connectx/ExternalHostPrivileges"),
        },
        "Actions": {
            "#Mode.Set": {
                "target": f"{base}/Actions/Mode.Set",
                "Mode@Redfish.AllowableValues": ["DpuMode", "NicMode"],
            },
            "#HostRshim.Set": {
                "target": f"{base}/Actions/HostRshim.Set",
                "HostRshim@Redfish.AllowableValues": ["Enabled", "Disabled"],
            },
            "#LFWP.Set": {"target": f"{base}/Actions/LFWP.Set"},
        },
    }


def host_privileges(dev: Device) -> dict[str, Any]:
    """``Connectx/ExternalHostPrivileges`` (zero-trust knobs, 2.5) [S64]."""
    base = f"{SYS}/Oem/Nvidia/Connectx/ExternalHostPrivileges"
    body: dict[str, Any] = {
        "@odata.id": base,
        "@odata.type": "#NvidiaHostPrivileges.v1_0_0.NvidiaHostPrivileges",
    }
    body.update({name: dev.privileges[name] for name in PRIVILEGES})
    body["Actions"] = {
        "#ExternalHostPrivileges.Set": {"target": f"{base}/Actions/ExternalHostPrivileges.Set"}
    }
    return body


def strap_options(dev: Device) -> dict[str, Any]:
    """Read-only ``Connectx/StrapOptions`` (2.5) [S64]."""
    straps = (
        "2PcoreActive",
        "CoreBypassN",
        "DisableInbandRecover",
        "Fnp",
        "OscFreq0",
        "OscFreq1",
        "PciPartition0",
        "PciPartition1",
        "PciReversal",
        "PrimaryIsPcore1",
        "SocketDirect",
    )
    body: dict[str, Any] = {"@odata.id": f"{SYS}/Oem/Nvidia/Connectx/StrapOptions"}
    body["StrapOptions"] = [{"Name": s, "Value": "Disabled"} for s in straps]
    return body


def bios(dev: Device) -> dict[str, Any]:
    """``Systems/Bluefield/Bios``; ``NicMode`` missing with old ATF/UEFI (fault) [S51].

    Captured BF3 BMCs name some attributes with spaces (``Host Privilege Level``), which the DMTF
    Bios attribute-name pattern rejects; the emulator writes them without spaces so the DMTF
    validator passes. ``NicMode``, the one a control plane reads, is as captured [S6].
    """
    attrs: dict[str, Any] = {
        "HostPrivilegeLevel": "Privileged"
        if all(v != "Disabled" for v in dev.privileges.values())
        else "Restricted",
        "InternalCpuModel": "Embedded",
        "FieldMode": False,
        "EnableSmmu": True,
        "EmmcWipe": False,
        "ResetEfiVars": False,
        "SpcrUart": "Disabled",
    }
    attrs.update(dev.bios_applied)
    if not dev.has("bios_attr_missing_nicmode"):
        attrs["NicMode"] = dev.mode or "DpuMode"
    return resource(
        f"{SYS}/Bios",
        "#Bios.v1_2_0.Bios",
        Id="BIOS",
        Name="BIOS Configuration",
        AttributeRegistry="BiosAttributeRegistry.1.0.0",
        Attributes=attrs,
        **{
            "@Redfish.Settings": {
                "@odata.type": "#Settings.v1_3_5.Settings",
                "SettingsObject": link(f"{SYS}/Bios/Settings"),
            }
        },
        Actions={"#Bios.ResetBios": {"target": f"{SYS}/Bios/Actions/Bios.ResetBios"}},
    )


def bios_settings(dev: Device) -> dict[str, Any]:
    """``Bios/Settings``: the pending attributes (apply on the next Arm boot)."""
    return resource(
        f"{SYS}/Bios/Settings",
        "#Bios.v1_2_0.Bios",
        Id="Settings",
        Name="BIOS Pending Settings",
        Attributes=dict(dev.bios_pending),
    )


def secure_boot(dev: Device) -> dict[str, Any]:
    """``Systems/Bluefield/SecureBoot`` (7.1)."""
    return resource(
        f"{SYS}/SecureBoot",
        "#SecureBoot.v1_1_0.SecureBoot",
        Id="SecureBoot",
        Name="UEFI Secure Boot",
        SecureBootEnable=dev.secure_boot,
        SecureBootCurrentBoot="Enabled" if dev.secure_boot else "Disabled",
        SecureBootMode="DeployedMode" if dev.secure_boot else "SetupMode",
    )


def log_services(dev: Device) -> dict[str, Any]:
    """``Systems/Bluefield/LogServices``."""
    return collection(
        f"{SYS}/LogServices", "LogServiceCollection", "System Log Services", [f"{SYS}/LogServices/EventLog"]
    )


def event_log(dev: Device) -> dict[str, Any]:
    """The EventLog service."""
    return resource(
        f"{SYS}/LogServices/EventLog",
        "#LogService.v1_1_3.LogService",
        Id="EventLog",
        Name="Event Log Service",
        OverWritePolicy="WrapsWhenFull",
        Status=status(),
        DateTime=stamp(dev.clock.now, skew(dev)),
        Entries=link(f"{SYS}/LogServices/EventLog/Entries"),
    )


def event_entries(dev: Device) -> dict[str, Any]:
    """EventLog entries (SEL), oldest first."""
    base = f"{SYS}/LogServices/EventLog/Entries"
    return collection(
        base, "LogEntryCollection", "System Event Log Entries", [f"{base}/{e.entry_id}" for e in dev.sel]
    )


def event_entry(dev: Device, entry_id: int) -> dict[str, Any] | None:
    """One EventLog entry, or None."""
    if not 1 <= entry_id <= len(dev.sel):
        return None
    e = dev.sel[entry_id - 1]
    return resource(
        f"{SYS}/LogServices/EventLog/Entries/{e.entry_id}",
        "#LogEntry.v1_13_0.LogEntry",
        Id=str(e.entry_id),
        Name="System Event Log Entry",
        EntryType="Event",
        Severity=e.severity,
        Message=e.message,
        MessageId=e.message_id,
        Created=stamp(e.time_s, skew(dev)),
    )
