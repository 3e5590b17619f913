"""Fat-tree topologies (2/3 tiers, rail-optimized, multi-plane), routing and cluster design.

* :func:`build_fat_tree` builds an immutable :class:`Topology` of NumPy arrays;
* :func:`route` returns a :class:`Routing` (sparse subflow x link matrix) under D-mod-K, hashed ECMP
  with queue pairs, or adaptive fluid multipath;
* :mod:`fabrictwin.topology.sizing` holds the closed-form switch and cable counts.
"""

from fabrictwin.topology.build import Topology, build_fat_tree
from fabrictwin.topology.routing import POLICIES, Routing, link_loads, route
from fabrictwin.topology.sizing import PlaneSize, size_plane

__all__ = [
    "POLICIES",
    "PlaneSize",
    "Routing",
    "Topology",
    "build_fat_tree",
    "link_loads",
    "route",
    "size_plane",
]
