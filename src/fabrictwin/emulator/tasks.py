"""Redfish tasks of an emulated BMC (``Task.v1_4_3``) and their message texts.

Message ids and texts come from the DMTF Update registry and the BlueField BMC captures
quoted in section 1.5 of ``reference/bluefield-operations.md`` [S3][S4][S8][S26][S27].
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class TaskMessage:
    """One entry of ``Task.Messages``."""

    message_id: str
    message: str
    severity: str = "OK"
    resolution: str = "None"
    args: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The Redfish ``Message`` object."""
        return {
            "@odata.type": "#Message.v1_1_1.Message",
            "MessageId": self.message_id,
            "Message": self.message,
            "MessageArgs": list(self.args),
            "MessageSeverity": self.severity,
            "Resolution": self.resolution,
        }


@dataclass(slots=True)
class Task:
    """A BMC task: state, status, progress (live through ``progress``), messages."""

    task_id: int
    target_uri: str
    start_s: float
    payload_uri: str
    state: str = "Running"
    status: str = "OK"
    end_s: float | None = None
    messages: list[TaskMessage] = field(default_factory=list)
    progress: Callable[[float], float] = field(default=lambda now: 0.0)
    """Returns PercentComplete at a virtual time; replaced by the workflow that owns the task."""
    frozen_pct: float | None = None
    live: Callable[[float], TaskMessage] | None = None
    """Returns the current keep-alive message while the task runs (None when there is none)."""

    def percent(self, now: float) -> int:
        """PercentComplete at ``now`` (0-100)."""
        if self.frozen_pct is not None:
            return int(self.frozen_pct)
        return int(max(0.0, min(100.0, self.progress(now))))

    def finish(self, now: float, state: str, status: str, message: TaskMessage, pct: float) -> None:
        """Move the task to a final state with its last message."""
        self.state, self.status, self.end_s = state, status, now
        self.frozen_pct = pct
        self.messages.append(message)

    @property
    def running(self) -> bool:
        """True while the task has not reached a final state."""
        return self.state in ("New", "Starting", "Running", "Pending")


def _task_event(
    event: str, task_id: int, what: str, severity: str = "OK", resolution: str = "None"
) -> TaskMessage:
    """A ``TaskEvent.1.0.<event>`` message: "The task with Id '<id>' has <what>."."""
    return TaskMessage(
        f"TaskEvent.1.0.{event}",
        f"The task with Id '{task_id}' has {what}.",
        severity=severity,
        resolution=resolution,
        args=(str(task_id),),
    )


def started(task_id: int) -> TaskMessage:
    """``TaskEvent.1.0.TaskStarted``: what BMCs put first in every task."""
    return _task_event("TaskStarted", task_id, "started")


def transferring(image: str, target: str, resolution: str) -> TaskMessage:
    """``Update.1.0.TransferringToComponent`` with the keep-alive resolution [S3][S4]."""
    return TaskMessage(
        "Update.1.0.TransferringToComponent",
        f"Image '{image}' is being transferred to '{target}'.",
        args=(image, target),
        resolution=resolution,
    )


def completed_ok(task_id: int) -> TaskMessage:
    """``TaskEvent.1.0.TaskCompletedOK``."""
    return _task_event("TaskCompletedOK", task_id, "completed")


def completed_warning(task_id: int, detail: str) -> TaskMessage:
    """``TaskEvent.1.0.TaskCompletedWarning``: "completed with errors" plus the reason [S28]."""
    return _task_event("TaskCompletedWarning", task_id, "completed with errors", "Critical", detail)


def aborted(task_id: int, detail: str) -> TaskMessage:
    """``TaskEvent.1.0.TaskAborted`` with the failure reason in Resolution."""
    return _task_event("TaskAborted", task_id, "been aborted", "Critical", detail)


def apply_failed(image: str, target: str) -> TaskMessage:
    """``Update.1.0.ApplyFailed`` [S26][S27]."""
    return TaskMessage(
        "Update.1.0.ApplyFailed",
        f"Installation of image '{image}' to '{target}' failed.",
        severity="Critical",
        args=(image, target),
    )


def update_successful(image: str, target: str) -> TaskMessage:
    """``Update.1.0.UpdateSuccessful``."""
    return TaskMessage(
        "Update.1.0.UpdateSuccessful",
        f"Device '{target}' successfully updated with image '{image}'.",
        args=(target, image),
    )


def component_skipped(image: str, target: str) -> TaskMessage:
    """``Update.1.0.ComponentUpdateSkipped``: same version, not forced (7.4 item 3)."""
    return TaskMessage(
        "Update.1.0.ComponentUpdateSkipped",
        f"The update operation for the component '{target}' is skipped because the image "
        f"'{image}' version is already installed.",
        severity="OK",
        args=(target, image),
    )
