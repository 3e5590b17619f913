"""Small helpers that give every emulated resource its OData annotations.

Real BlueField BMCs (bmcweb) return ``@odata.id`` and ``@odata.type`` on every resource; we
also return ``@odata.context`` (``/redfish/v1/$metadata#Namespace.Type``, DSP0266 section
"Resource identifier property") so generic clients and the DMTF validator can follow types.
"""

from __future__ import annotations

from typing import Any

V1 = "/redfish/v1"
SYS = f"{V1}/Systems/Bluefield"
MGR = f"{V1}/Managers/Bluefield_BMC"
UPD = f"{V1}/UpdateService"
INV = f"{UPD}/FirmwareInventory"
TASKS = f"{V1}/TaskService/Tasks"
SESSIONS = f"{V1}/SessionService/Sessions"
CHASSIS = f"{V1}/Chassis"


def resource(odata_id: str, odata_type: str, **fields: Any) -> dict[str, Any]:
    """A resource dict with ``@odata.id``, ``@odata.type`` and ``@odata.context`` first.

    ``odata_type`` is the full type, e.g. ``#ComputerSystem.v1_17_0.ComputerSystem``.
    """
    namespace = odata_type.lstrip("#").split(".", 1)[0]
    entity = odata_type.rsplit(".", 1)[-1]
    return {
        "@odata.context": f"{V1}/$metadata#{namespace}.{entity}",
        "@odata.id": odata_id,
        "@odata.type": odata_type,
        **fields,
    }


def link(odata_id: str) -> dict[str, str]:
    """A navigation link ``{"@odata.id": ...}``."""
    return {"@odata.id": odata_id}


def collection(odata_id: str, type_name: str, name: str, members: list[str]) -> dict[str, Any]:
    """A resource collection of ``type_name`` (e.g. ``ComputerSystemCollection``)."""
    return resource(
        odata_id,
        f"#{type_name}.{type_name}",
        Name=name,
        **{"Members@odata.count": len(members), "Members": [link(m) for m in members]},
    )


def status(state: str = "Enabled", health: str = "OK") -> dict[str, str]:
    """The common ``Status`` object."""
    return {"State": state, "Health": health}


def success() -> dict[str, Any]:
    """Body of a successful PATCH or action (``Base.1.18.1.Success``) [S13]."""
    return {
        "@Message.ExtendedInfo": [
            {
                "@odata.type": "#Message.v1_1_1.Message",
                "Message": "The request completed successfully.",
                "MessageArgs": [],
                "MessageId": "Base.1.18.1.Success",
                "MessageSeverity": "OK",
                "Resolution": "None",
            }
        ]
    }
