"""What one training run costs: the renter's view or the owner's (docs/models/cost.md).

``rental``: GPU-hours x ``cost.usd_per_gpu_hour``; the fabric and DPUs are inside the hourly rate.

``owner``: capital amortized straight-line over the run's wall-clock time, plus electricity::

    cost = (servers_capex + network_capex) * wall_s / (amortization_years * YEAR_S)
           + (energy_kwh + fabric_w * pue * wall_s / 3.6e6) * usd_per_kwh

``servers_capex`` = nodes x the price of one server without its network adapters; ``network_capex``
= the priced non-server lines of the cluster's bill of materials from
:func:`fabrictwin.topology.design.design_cluster` (compute switches, compute NICs, north-south
adapters -- the scenario's DPU when it names one --, storage switches, optics, fibres, OOB switches).
``energy_kwh`` is the twin's (servers' power x PUE x wall time); the owner also pays the fabric's
power outside the servers (switches, optics) x PUE x wall time at the same price.
"""

from __future__ import annotations

from dataclasses import dataclass

from fabrictwin import catalog
from fabrictwin.errors import SpecError
from fabrictwin.spec.hardware import NicSpec, SystemSpec
from fabrictwin.spec.scenario import ScenarioSpec
from fabrictwin.topology import bom
from fabrictwin.topology.design import (
    DEFAULT_NS_SWITCH,
    DEFAULT_OOB_SWITCH,
    SYSTEM_SU_NODES,
    ClusterDesign,
    design_cluster,
)
from fabrictwin.twin.resolve import Resolved

YEAR_S = 365.25 * 86400.0
"""Seconds in a Julian year (IAU definition), for the amortization period."""


@dataclass(frozen=True)
class OwnerCost:
    """The owner's cost of one run, by part, USD."""

    servers_usd: float
    """Servers' capital (without network adapters) amortized over the run."""
    network_usd: float
    """Network bill of materials (switches, NICs/DPUs, optics, cables) amortized over the run."""
    energy_usd: float
    """Electricity of the servers and of the fabric outside them over the run, PUE included."""

    @property
    def total_usd(self) -> float:
        return self.servers_usd + self.network_usd + self.energy_usd

    def to_dict(self) -> dict[str, float]:
        """``{"servers": ..., "network": ..., "energy": ...}`` in USD."""
        return {"servers": self.servers_usd, "network": self.network_usd, "energy": self.energy_usd}


def shipped_adapters_usd(system: SystemSpec) -> float:
    """Catalog price of the NICs a server ships with (compute + north-south), USD.

    Raises:
        NotFound: the system names a NIC the catalog does not know.
    """
    compute = system.compute_nics * catalog.nic(system.compute_nic).price_usd
    north_south = system.storage_nics * catalog.nic(system.storage_nic).price_usd
    return compute + north_south


def server_price_usd(system: SystemSpec, server_usd: float | None) -> float:
    """Price of one server without its network adapters, USD.

    ``server_usd`` wins; else the catalog's price as shipped, with the catalog price of its NICs
    taken off, because the BOM prices the adapters the design picks (which differ from the
    shipped ones when the fabric or DPU differs).

    Raises:
        SpecError: no override and no known price for the system.
    """
    if server_usd is not None:
        return server_usd
    shipped = system.price_usd
    if shipped <= 0:
        known = ", ".join(sid for sid in catalog.ids("system") if catalog.system(sid).price_usd > 0)
        raise SpecError(
            f"no price for server '{system.id}'; set cost.server_usd (USD, without network adapters). "
            f"Catalog prices: {known}",
            path="cost.server_usd",
        )
    return max(0.0, shipped - shipped_adapters_usd(system))


def north_south_adapter(r: Resolved) -> NicSpec:
    """The scenario's DPU when it names one, else the server's own north-south adapter."""
    return r.dpu if r.dpu is not None else catalog.nic(r.system.storage_nic)


def network_design(s: ScenarioSpec, r: Resolved) -> ClusterDesign:
    """The cluster's networks and BOM, built from the same parts as ``design_from_catalog`` but
    with the scenario's DPU on the north-south ports.

    Raises:
        Infeasible: the design cannot be built (see :func:`design_cluster`).
    """
    fabric = r.fabric
    return design_cluster(
        s.cluster.nodes,
        r.system.gpus,
        fabric,
        catalog.switch(fabric.switch),
        catalog.nic(fabric.nic),
        storage_nic=north_south_adapter(r),
        storage_switch=catalog.switch(DEFAULT_NS_SWITCH),
        oob_switch=catalog.switch(DEFAULT_OOB_SWITCH),
        system=r.system,
        su_nodes=SYSTEM_SU_NODES.get(r.system.id),
    )


def amortized_usd(capex_usd: float, wall_s: float, years: float) -> float:
    """Straight-line share of ``capex_usd`` used by ``wall_s`` seconds of a ``years`` life."""
    return capex_usd * wall_s / (years * YEAR_S)


def owner_cost(s: ScenarioSpec, r: Resolved, wall_s: float, energy_kwh: float) -> OwnerCost:
    """The owner's cost of a run of ``wall_s`` seconds that used ``energy_kwh``.

    Raises:
        SpecError: the server has no price and ``cost.server_usd`` is not set.
        Infeasible: the network design cannot be built.
    """
    c = s.cost
    servers = s.cluster.nodes * server_price_usd(r.system, c.server_usd)
    lines = network_design(s, r).bom
    network = bom.totals(lines)["network_price_usd"]
    network_kwh = fabric_power_w(lines) * wall_s * c.pue / 3.6e6
    return OwnerCost(
        servers_usd=amortized_usd(servers, wall_s, c.amortization_years),
        network_usd=amortized_usd(network, wall_s, c.amortization_years),
        energy_usd=(energy_kwh + network_kwh) * c.usd_per_kwh,
    )


def fabric_power_w(lines: tuple[bom.BomLine, ...]) -> float:
    """Power of the network outside the servers, W: switches, optics, cables (not adapters, which
    sit inside the servers and are already in their catalog power)."""
    return sum(ln.power_w for ln in lines if ln.network != "nodes" and ln.category != "adapter")


def run_cost(s: ScenarioSpec, r: Resolved, gpus: int, wall_s: float, energy_kwh: float) -> dict[str, float]:
    """Cost parts of a run, USD, by ``s.cost.model``: ``{"rental": ...}`` or the owner's parts.

    Raises:
        SpecError, Infeasible: as :func:`owner_cost` (owner model only).
    """
    if s.cost.model == "owner":
        return owner_cost(s, r, wall_s, energy_kwh).to_dict()
    return {"rental": wall_s / 3600.0 * gpus * s.cost.usd_per_gpu_hour}
