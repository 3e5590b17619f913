"""Frozen, validated descriptions of hardware, fabrics, workloads, scenarios, fleets, policies.

Only :mod:`fabrictwin.spec.load` reads YAML.
"""

from fabrictwin.spec.base import Source, Spec
from fabrictwin.spec.cluster import (
    ClusterSpec,
    ComputeFabric,
    DpuConfig,
    Fabrics,
    OobFabric,
    StorageFabric,
)
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
from fabrictwin.spec.policy import PolicySpec
from fabrictwin.spec.quantity import (
    BitsPerS,
    Bytes,
    BytesPerS,
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
    "ClusterSpec",
    "ComputeFabric",
    "CpuSpec",
    "DpuConfig",
    "FabricSpec",
    "Fabrics",
    "Flop",
    "FlopsPerS",
    "GpuSpec",
    "Hertz",
    "ModelSpec",
    "NicSpec",
    "OffloadEngines",
    "OobFabric",
    "PolicySpec",
    "Quantity",
    "Seconds",
    "Source",
    "Spec",
    "StorageFabric",
    "SwitchSpec",
    "SystemSpec",
    "Watts",
    "YamlDocument",
    "load_mapping",
    "load_model",
    "load_text",
]
