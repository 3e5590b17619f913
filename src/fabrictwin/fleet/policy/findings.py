"""The finding type shared by the policy check and the rule analysis."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class Finding:
    """One result of the check. Any ``error`` fails the check (and blocks deployment)."""

    severity: Severity
    kind: str
    """``leak``, ``unenforced``, ``injection``, ``shadowed``, ``redundant``, ``conflict``,
    ``unused-grant``, ``snap``, ``host-privilege``."""
    subject: str
    message: str
    path: tuple[str, ...] = ()
    """For leaks: the deciding table entries the leaking packet crosses."""
