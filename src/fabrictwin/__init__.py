"""fabrictwin: a digital twin of GPU training clusters and a control plane for BlueField fleets.

The public Python API is what ``__all__`` lists; a test pins it so growth is deliberate.
"""

import importlib
from typing import Any

from fabrictwin.errors import DeviceError, FabricTwinError, Infeasible, NotFound, SpecError
from fabrictwin.spec.cluster import ClusterSpec

__version__ = "0.1.0"

__all__ = [
    "ClusterSpec",
    "DeviceError",
    "FabricTwinError",
    "Infeasible",
    "NotFound",
    "ScenarioSpec",
    "SpecError",
    "__version__",
    "catalog",
    "compare",
    "load_cluster",
    "load_scenario",
    "simulate",
]

_LAZY: dict[str, tuple[str, str | None]] = {
    "catalog": ("fabrictwin.catalog", None),
    "load_cluster": ("fabrictwin.catalog", "load_cluster"),
    "ScenarioSpec": ("fabrictwin.spec.scenario", "ScenarioSpec"),
    "load_scenario": ("fabrictwin.spec.scenario", "load_scenario"),
    "simulate": ("fabrictwin.twin.simulate", "simulate"),
    "compare": ("fabrictwin.twin.compare", "compare"),
}


def __getattr__(name: str) -> Any:
    """Load the catalog on first use of ``catalog`` or ``load_cluster`` (PEP 562).

    The control plane (fleet, emulator) imports this package root but must not load the model
    core (an import-linter contract), so the catalog is not imported eagerly. Loading it here
    also registers it as the resolver that checks catalog ids in specs.

    Raises:
        AttributeError: ``name`` is not a public name of the package.
    """
    if name not in _LAZY:
        raise AttributeError(f"module 'fabrictwin' has no attribute {name!r}")
    importlib.import_module("fabrictwin.catalog")
    module_name, attribute = _LAZY[name]
    module = importlib.import_module(module_name)
    return module if attribute is None else getattr(module, attribute)
