"""fabrictwin: a digital twin of GPU training clusters and a control plane for BlueField fleets.

The public Python API is what ``__all__`` lists; a test pins it so growth is deliberate.
"""

from fabrictwin import catalog
from fabrictwin.errors import DeviceError, FabricTwinError, Infeasible, NotFound, SpecError
from fabrictwin.spec.cluster import ClusterSpec, load_cluster

__version__ = "0.1.0"

__all__ = [
    "ClusterSpec",
    "DeviceError",
    "FabricTwinError",
    "Infeasible",
    "NotFound",
    "SpecError",
    "__version__",
    "catalog",
    "load_cluster",
]
