"""Service root, sessions, accounts, collections and ``$metadata`` of one emulated BMC."""

from __future__ import annotations

from typing import Any

from fabrictwin.emulator.device import Device
from fabrictwin.emulator.fleet import Accounts
from fabrictwin.emulator.redfish.csdl import all_schema_names
from fabrictwin.emulator.redfish.odata import MGR, SESSIONS, SYS, UPD, V1, collection, link, resource


def service_root(dev: Device, uuid: str | None = None) -> dict[str, Any]:
    """``/redfish/v1`` of a BlueField BMC."""
    return resource(
        V1,
        "#ServiceRoot.v1_15_0.ServiceRoot",
        Id="RootService",
        Name="Root Service",
        RedfishVersion="1.17.0",
        UUID=uuid or dev.ident.uuid,
        Vendor="Nvidia",
        Product="BlueField BMC",
        Systems=link(f"{V1}/Systems"),
        Managers=link(f"{V1}/Managers"),
        Chassis=link(f"{V1}/Chassis"),
        UpdateService=link(UPD),
        TaskService=link(f"{V1}/TaskService"),
        SessionService=link(f"{V1}/SessionService"),
        AccountService=link(f"{V1}/AccountService"),
        Links={"Sessions": link(SESSIONS)},
        ProtocolFeaturesSupported={
            "ExpandQuery": {"ExpandAll": False},
            "FilterQuery": False,
            "SelectQuery": False,
            "OnlyMemberQuery": False,
        },
    )


def systems(dev: Device) -> dict[str, Any]:
    """``/redfish/v1/Systems``."""
    return collection(f"{V1}/Systems", "ComputerSystemCollection", "Computer System Collection", [SYS])


def managers(dev: Device) -> dict[str, Any]:
    """``/redfish/v1/Managers``."""
    return collection(f"{V1}/Managers", "ManagerCollection", "Manager Collection", [MGR])


def session_service(dev: Device) -> dict[str, Any]:
    """``/redfish/v1/SessionService``."""
    return resource(
        f"{V1}/SessionService",
        "#SessionService.v1_1_8.SessionService",
        Id="SessionService",
        Name="Session Service",
        ServiceEnabled=True,
        SessionTimeout=3600,
        Sessions=link(SESSIONS),
    )


def sessions(acc: Accounts) -> dict[str, Any]:
    """Session collection."""
    ids = sorted(s.session_id for s in acc.sessions.values())
    return collection(SESSIONS, "SessionCollection", "Session Collection", [f"{SESSIONS}/{i}" for i in ids])


def session(acc: Accounts, session_id: str) -> dict[str, Any] | None:
    """One session, or None."""
    for s in acc.sessions.values():
        if s.session_id == session_id:
            return resource(
                f"{SESSIONS}/{s.session_id}",
                "#Session.v1_3_0.Session",
                Id=s.session_id,
                Name="User Session",
                UserName=s.user,
            )
    return None


def account_service(dev: Device) -> dict[str, Any]:
    """``/redfish/v1/AccountService`` with the lockout policy."""
    creds = dev.settings.credentials
    return resource(
        f"{V1}/AccountService",
        "#AccountService.v1_10_0.AccountService",
        Id="AccountService",
        Name="Account Service",
        ServiceEnabled=True,
        AccountLockoutThreshold=creds.lockout_threshold,
        AccountLockoutDuration=int(creds.lockout_duration_s),
        Accounts=link(f"{V1}/AccountService/Accounts"),
    )


def accounts(dev: Device) -> dict[str, Any]:
    """Account collection (the factory ``root`` user only)."""
    base = f"{V1}/AccountService/Accounts"
    return collection(base, "ManagerAccountCollection", "Accounts Collection", [f"{base}/root"])


def account_root(dev: Device, acc: Accounts) -> dict[str, Any]:
    """``Accounts/root``."""
    return resource(
        f"{V1}/AccountService/Accounts/root",
        "#ManagerAccount.v1_7_0.ManagerAccount",
        Id="root",
        Name="User Account",
        UserName=dev.settings.credentials.username,
        RoleId="Administrator",
        Enabled=True,
        Locked=dev.clock.now < acc.locked_until,
    )


def metadata_xml() -> str:
    """``$metadata``: references to the schema files the emulator serves under ``/redfish/v1/schema``."""
    refs = "\n".join(
        f'  <edmx:Reference Uri="/redfish/v1/schema/{name}">\n'
        f'    <edmx:Include Namespace="{name.removesuffix("_v1.xml")}"/>\n  </edmx:Reference>'
        for name in all_schema_names()
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">\n'
        f"{refs}\n"
        "  <edmx:DataServices>\n"
        '    <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="Service">\n'
        '      <EntityContainer Name="Service" Extends="ServiceRoot.v1_15_0.ServiceContainer"/>\n'
        "    </Schema>\n  </edmx:DataServices>\n</edmx:Edmx>\n"
    )


def odata_document() -> dict[str, Any]:
    """``/redfish/v1/odata`` service document."""
    names = (
        "Systems",
        "Managers",
        "Chassis",
        "UpdateService",
        "TaskService",
        "SessionService",
        "AccountService",
    )
    return {
        "@odata.context": "/redfish/v1/$metadata",
        "value": [{"name": n, "kind": "Singleton", "url": f"{V1}/{n}"} for n in names],
    }
