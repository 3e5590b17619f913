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
from fabrictwin.spec.load import YamlDocument, load_mapping, load_model, load_text
from fabrictwin.spec.quantity import (
    Bytes,
    BytesPerS,
    BitsPerS,
    Flop,
    FlopsPerS,
    Hertz,
    Quantity,
    Seconds,
    Watts,
)
from fabrictwin.spec.workload import ModelSpec

__all__ = [
    "BitsPerS",
    "Bytes",
    "BytesPerS",
    "Flop",
    "FlopsPerS",
    "Hertz",
    "ModelSpec",
    "Quantity",
    "Seconds",
    "Watts",
    "YamlDocument",
    "load_mapping",
    "load_model",
    "load_text",
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
