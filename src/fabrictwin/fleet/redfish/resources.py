"""Declarative views of the Redfish resources the control plane reads (fields from JSON paths).

Each view parses a BMC's JSON with pydantic; unknown fields are ignored (a BMC may add fields
between firmware versions, reference 7.9), missing optional ones take their documented default.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _View(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)


TASK_FAILED = frozenset({"Exception", "Cancelled", "Aborted", "Killed"})
"""Task states that mean the task failed (Redfish TaskState enum)."""


class Message(_View):
    """One ``Messages[]`` entry of a task (Update/Base registries)."""

    message_id: str = Field(default="", alias="MessageId")
    message: str = Field(default="", alias="Message")
    resolution: str = Field(default="", alias="Resolution")


class Task(_View):
    """``/redfish/v1/TaskService/Tasks/{id}`` (Task.v1_4_3, reference 1.5 step 5)."""

    id: str = Field(alias="Id")
    uri: str = Field(default="", alias="@odata.id")
    state: str = Field(default="New", alias="TaskState")
    """New, Running, Completed; failures Exception, Cancelled, Aborted, Killed."""
    status: str = Field(default="OK", alias="TaskStatus")
    percent: int = Field(default=0, alias="PercentComplete")
    messages: tuple[Message, ...] = Field(default=(), alias="Messages")
    payload: dict[str, Any] = Field(default_factory=dict, alias="Payload")

    @property
    def done(self) -> bool:
        """True once the task stopped (successfully or not)."""
        return self.state == "Completed" or self.state in TASK_FAILED

    @property
    def ok(self) -> bool:
        """Completed with status OK or Warning ("completed with errors" is Critical, reference 1.9)."""
        return self.state == "Completed" and self.status in ("OK", "Warning")

    @property
    def reason(self) -> str:
        """The last message, for errors and the audit log."""
        return self.messages[-1].message if self.messages else f"task {self.state}/{self.status}"


class SoftwareItem(_View):
    """One ``FirmwareInventory`` member (SoftwareInventory.v1_4_0)."""

    id: str = Field(alias="Id")
    version: str = Field(default="", alias="Version")
    updateable: bool = Field(default=False, alias="Updateable")


class BootProgress(_View):
    last_state: str = Field(default="", alias="LastState")
    oem_last_state: str = Field(default="", alias="OemLastState")


class System(_View):
    """``/redfish/v1/Systems/Bluefield`` (the Arm)."""

    power_state: str = Field(default="", alias="PowerState")
    serial: str = Field(default="", alias="SerialNumber")
    sku: str = Field(default="", alias="SKU")
    model: str = Field(default="", alias="Model")
    boot: BootProgress = Field(default_factory=BootProgress, alias="BootProgress")
    health: str = ""

    @property
    def arm_state(self) -> str:
        """``OemLastState``, or the standard ``LastState`` on old BMCs (profile A, reference 7.9)."""
        return self.boot.oem_last_state or self.boot.last_state


class Port(_View):
    """``Chassis/Card1/NetworkAdapters/.../Ports/{id}``."""

    id: str = Field(alias="Id")
    link_status: str = Field(default="", alias="LinkStatus")
    speed_gbps: float = Field(default=0.0, alias="CurrentSpeedGbps")


def status_health(body: dict[str, Any]) -> str:
    """``Status.Health`` of a resource body, '' when absent."""
    status = body.get("Status") or {}
    return str(status.get("Health", "")) if isinstance(status, dict) else ""
