"""Per-DPU rollout state: a frozen record, one phase at a time, stored via to_record/from_record.

Phases (reference 1.5 and 7.8)::

    pending -> drain -> draining -> push -> transfer -> install -> [power_cycle] -> verify -> undrain
      -> done | rolled_back                 (any failure -> push of the previous BFB, or quarantined)
    skipped: already at the target, never touched.

``push`` is the write-ahead phase: it is stored before the one non-idempotent call (the
SimpleUpdate POST). A controller that dies between the POST and storing ``transfer`` finds the
device in ``push`` on resume and first looks for the BMC's running task or the new version
instead of pushing again, so no device is flashed twice.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, Literal, get_args

Phase = Literal[
    "pending",
    "drain",
    "draining",
    "push",
    "transfer",
    "install",
    "power_cycle",
    "verify",
    "undrain",
    "done",
    "skipped",
    "rolled_back",
    "quarantined",
]
PHASES: tuple[Phase, ...] = get_args(Phase)
"""Every phase, in rollout order (the metrics export one gauge per phase)."""
TERMINAL: frozenset[str] = frozenset({"done", "skipped", "rolled_back", "quarantined"})
"""Phases a device never leaves."""
UNAVAILABLE: frozenset[str] = frozenset(
    {"drain", "draining", "push", "transfer", "install", "power_cycle", "verify", "undrain", "quarantined"}
)
"""Phases in which the host is (or may be) out of service."""
Image = Literal["target", "previous"]


@dataclass(frozen=True)
class DeviceState:
    """Where one DPU stands in one rollout."""

    device: str
    wave: int
    phase: Phase = "pending"
    image: Image = "target"
    """Which image is being installed: the target, or the previous one during a rollback."""
    next_at: float = 0.0
    """When to look at the device again (s on the executor clock)."""
    since: float = 0.0
    """When the current phase began (s), for timeouts."""
    attempts: int = 0
    """Temporary errors in a row in this phase."""
    task_uri: str = ""
    """The BMC task of the current push."""
    pushes: int = 0
    """SimpleUpdate POSTs this controller issued to the device (target and rollback)."""
    power_cycled: bool = False
    """A host power cycle was requested in this install."""
    reason: str = ""
    """Why the device failed, was rolled back or quarantined."""
    events_before: int = -1
    """Event-log entries before the push (-1: not read), to spot new Critical events."""
    nic_mode: bool = False
    """NIC mode: the Arm parks in UEFI and the BMC reports no DPU_OS/DPU_NIC (reference 1.5, 1.7)."""

    @property
    def terminal(self) -> bool:
        """True once the device reached a final phase."""
        return self.phase in TERMINAL

    def to(self, phase: Phase, now: float, next_at: float | None = None, **changes: Any) -> DeviceState:
        """A new state in ``phase`` entered at ``now`` (attempts reset)."""
        return replace(
            self, phase=phase, since=now, attempts=0, next_at=now if next_at is None else next_at, **changes
        )

    def later(self, next_at: float, **changes: Any) -> DeviceState:
        """The same phase, looked at again at ``next_at``."""
        return replace(self, next_at=next_at, **changes)

    def to_record(self) -> dict[str, Any]:
        """A JSON-able record for the store."""
        return asdict(self)

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> DeviceState:
        """Rebuild from :meth:`to_record` output. Raises ``TypeError`` on unknown keys."""
        return cls(**record)
