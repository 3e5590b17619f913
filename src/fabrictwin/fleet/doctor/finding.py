"""The doctor's finding: a named cause, the evidence lines, the fix, the reference."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from fabrictwin.fleet.doctor.parsers import Line

if TYPE_CHECKING:
    from fabrictwin.fleet.doctor.facts import Facts

Kind = Literal["fault", "config", "expected", "info"]
"""``fault``: something is broken; ``config``: a setting explains it; ``expected``: by design."""


@dataclass(frozen=True)
class Finding:
    """A named cause with the lines that show it and the fix."""

    cause: str
    """Stable id, e.g. ``mode-staged``."""
    rank: int
    """Order of report, lowest first (see :mod:`fabrictwin.fleet.doctor.rules`)."""
    kind: Kind
    title: str
    evidence: tuple[Line, ...]
    fix: str
    ref: str
    """Where the cause is documented: bluefield-operations.md section and row."""


Rule = Callable[["Facts"], Finding | None]


def find(cause: str, rank: int, kind: Kind, title: str, ev: list[Line], fix: str, ref: str) -> Finding | None:
    """A finding when there is evidence, else None (no evidence, no claim)."""
    return Finding(cause, rank, kind, title, tuple(ev), fix, ref) if ev else None
