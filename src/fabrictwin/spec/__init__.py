"""Frozen, validated descriptions of hardware, fabrics, workloads, scenarios, fleets, policies.

Only :mod:`fabrictwin.spec.load` reads YAML.
"""

from fabrictwin.spec.base import Source, Spec
from fabrictwin.spec.hardware import (
    CpuSpec,
    FabricSpec,
    GpuSpec,
    NicSpec,
    OffloadEngines,
    SwitchSpec,
    SystemSpec,
)

__all__ = [
    "CpuSpec",
    "FabricSpec",
    "GpuSpec",
    "NicSpec",
    "OffloadEngines",
    "Source",
    "Spec",
    "SwitchSpec",
    "SystemSpec",
]
