"""Folded-Clos (fat-tree) sizing: switch and cable counts per tier, in closed form.

Legend: E endpoint ports on one plane, k switch radix at the port rate, d/u leaf down/up ports,
L leaves, S spines, C cores (all per plane unless named ``total``).

Formulas (reference ``fabric-and-network-models.md`` section 1.8, checked there against every
NVIDIA DGX SuperPOD table, sections 1.2-1.4):

* Leaf split: non-blocking ``d = u = k/2``; oversubscription ``sigma = d/u`` gives
  ``d = floor(k * sigma / (1 + sigma))``, ``u = k - d``.
* Rail-optimized scalable unit (SU): one leaf per rail per SU, serving ``su_nodes`` nodes (section 1.1:
  "NIC i of every node in the SU goes to leaf i"); an SU smaller than a leaf's down ports puts
  ``g = down // su_nodes`` rails on each leaf (``ceil(rails/g)`` leaves per SU). The fabric is sized
  for whole SUs even when the last one is partial (section 1.1: "the fabric should be designed to
  support the full SU").
* 2 tiers: ``S`` = smallest integer ``>= L*u/k`` that divides ``u`` (every leaf has the same
  number of parallel links to every spine, the divisibility rule of section 1.8).
* 3 tiers: pods of ``k/2`` leaves (the spine's down ports) and ``u`` spines each; spine ``j`` of every
  pod connects to core group ``j``; cores per group = smallest integer ``>= pods*(k/2)/k`` dividing ``k/2``.
* Limits: 2 tiers ``L <= k`` (E <= k*d, i.e. k^2/2 non-blocking); 3 tiers ``pods <= k`` (k^3/4).

Small clusters (the SU rounding of section 1.1 is for SuperPODs; ``whole_units=True`` keeps it):

* 1 tier: when every node port of a rail group fits on one switch (``nodes * g <= k``, ``g`` rails per
  switch, all rails unless capped), each rail group gets one switch, no spines: the fat tree's
  ``E <= k`` degenerate case (section 1.8 with one leaf and nothing above it).
* A partly filled SU (the only SU, or the last of several, 2 tiers): still one leaf per rail per SU
  (section 1.1), but each of its leaves gets only the up ports its
  ``p = nodes * g`` populated down ports need at the leaf's ratio, ``ceil(p * u / d)``, rounded up to
  a multiple of ``S`` = smallest divisor of the full ``u`` that is ``>=`` (all leaves' uplinks) / k
  (equal parallel links now, and the same cables still in place when the SU fills).

Every function raises :class:`fabrictwin.errors.Infeasible` (with the nearest feasible choice) when
the requested fabric cannot be built with the radix given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from fabrictwin.errors import Infeasible


@dataclass(frozen=True)
class LeafSplit:
    """How a leaf's ``k`` ports divide between nodes (down) and spines (up)."""

    down: int
    """Ports towards nodes."""
    up: int
    """Ports towards spines."""


@dataclass(frozen=True)
class PlaneSize:
    """Switch and link counts of one fabric plane."""

    tiers: int
    """1 (one switch per rail group), 2 (leaf-spine) or 3 (leaf-spine-core)."""
    radix: int
    """Switch ports at the link rate."""
    leaf: LeafSplit
    su_nodes: int
    """Nodes per scalable unit (one leaf per rail per SU)."""
    sus: int
    """Scalable units the plane is built for (the last may be partly populated)."""
    rails: int
    """Endpoint ports per node on this plane."""
    rails_per_leaf: int
    """Rails sharing one leaf in an SU (1: one leaf per rail per SU, the SuperPOD layout; more when the
    SU is smaller than a leaf's down ports, e.g. GB200 racks with 72 rails)."""
    leaves: int
    spines: int
    cores: int
    pod_leaves: int
    """Leaves per pod (3 tiers); all leaves for 2 tiers."""
    pods: int
    """Pods (3 tiers); 1 for 2 tiers."""
    spines_per_pod: int
    cores_per_group: int
    """Cores per core group (3 tiers; 0 for 2 tiers)."""
    spine_up: int
    """Up ports used per spine (3 tiers; 0 for 2 tiers)."""
    last_su_up: int
    """Up ports used on each leaf of the last SU: ``leaf.up`` when it is whole, fewer when it is
    partly filled (2 tiers; the nodes present set it)."""

    def leaf_up(self, leaf: int) -> int:
        """Up ports used on plane-local ``leaf`` (the last SU's leaves may use fewer)."""
        return self.last_su_up if leaf >= self.leaves - self.leaves_per_su else self.leaf.up

    @property
    def leaves_per_su(self) -> int:
        """Leaves in one scalable unit."""
        return -(-self.rails // self.rails_per_leaf)

    @property
    def endpoint_ports(self) -> int:
        """Node-facing leaf ports the plane is built for (whole SUs)."""
        return self.leaves * self.leaf.down

    @property
    def leaf_spine_links(self) -> int:
        """Leaf-to-spine links (one per used leaf up port)."""
        return (self.leaves - self.leaves_per_su) * self.leaf.up + self.leaves_per_su * self.last_su_up

    @property
    def spine_core_links(self) -> int:
        """Spine-to-core links (3 tiers only)."""
        return self.spines * self.spine_up if self.tiers == 3 else 0

    @property
    def parallel_leaf_spine(self) -> int:
        """Parallel links between one leaf and one spine it reaches."""
        return self.leaf.up // self.spines_per_pod if self.spines_per_pod else 0

    @property
    def parallel_spine_core(self) -> int:
        """Parallel links between one spine and one core of its group (3 tiers)."""
        return self.spine_up // self.cores_per_group if self.tiers == 3 else 0


def leaf_split(radix: int, oversubscription: float) -> LeafSplit:
    """Split ``radix`` leaf ports into down/up for a down:up ratio ``oversubscription`` (>= 1).

    Raises:
        Infeasible: the ratio leaves no up port or no down port, or is below 1.
    """
    if oversubscription < 1.0:
        raise Infeasible(
            f"oversubscription {oversubscription:g} < 1 wastes leaf ports", nearest="oversubscription 1"
        )
    down = math.floor(radix * oversubscription / (1.0 + oversubscription) + 1e-9)
    up = radix - down
    if down < 1 or up < 1:
        raise Infeasible(
            f"a radix-{radix} leaf cannot split {oversubscription:g}:1 between nodes and spines",
            nearest="a switch with at least 2 ports",
        )
    return LeafSplit(down=down, up=up)


def smallest_divisor_at_least(n: int, lower: float) -> int:
    """Smallest divisor of ``n`` that is ``>= lower`` (``n`` itself at worst)."""
    need = max(1, math.ceil(lower - 1e-9))
    for cand in range(need, n + 1):
        if n % cand == 0:
            return cand
    return n


def max_nodes(
    radix: int, tiers: int, rails: int, oversubscription: float = 1.0, su_nodes: int | None = None
) -> int:
    """Largest node count a ``tiers``-tier plane of this radix holds (``rails`` ports per node)."""
    split = leaf_split(radix, oversubscription)
    su = split.down if su_nodes is None else su_nodes
    per_su = -(-rails // min(rails, max(1, split.down // su)))
    max_leaves = radix if tiers == 2 else radix * (radix // 2)
    return (max_leaves // per_su) * su


def size_plane(
    nodes: int,
    rails: int,
    radix: int,
    *,
    tiers: int | None = None,
    oversubscription: float = 1.0,
    su_nodes: int | None = None,
    whole_units: bool = False,
    max_rails_per_switch: int | None = None,
) -> PlaneSize:
    """Size one rail-optimized fat-tree plane for ``nodes`` nodes with ``rails`` ports each.

    ``tiers=None`` picks the fewest tiers that fit: 1 when every rail group's node ports fit on one
    switch (``max_rails_per_switch`` caps the rails sharing a switch, e.g. 1 to keep a node's two
    storage ports on two switches), else 2 or 3. A partly filled SU's leaf uplinks and the spines are
    sized for the nodes present. ``su_nodes`` defaults to the leaf's down ports (one leaf per rail
    per SU, as in every DGX SuperPOD RA); a smaller SU lets ``down // su_nodes`` rails share a leaf
    (rail groups). ``whole_units=True`` keeps the SuperPOD rule: whole SUs only (a partial SU is
    refused), never 1 tier nor trimmed uplinks.

    Raises:
        Infeasible: bad counts; a partial SU when ``whole_units``; an SU larger than a leaf's down
            ports; ``tiers=1`` when the ports do not fit on one switch per rail group; more nodes
            than the tiers can hold (nearest: more tiers or fewer nodes).
    """
    if nodes < 1 or rails < 1:
        raise Infeasible(f"need at least one node and one rail (got {nodes} nodes, {rails} rails)")
    split = leaf_split(radix, oversubscription)
    su = split.down if su_nodes is None else su_nodes
    if su < 1 or su > split.down:
        raise Infeasible(
            f"a scalable unit of {su} nodes needs {su} down ports per rail leaf; a radix-{radix} leaf "
            f"at {oversubscription:g}:1 has {split.down}",
            nearest=f"su_nodes <= {split.down}",
        )
    if whole_units and nodes % su:
        lower, upper = (nodes // su) * su, (nodes // su + 1) * su
        raise Infeasible(
            f"{nodes} nodes is not a multiple of the {su}-node scalable unit",
            nearest=f"{lower or upper} or {upper} nodes",
        )
    one = _one_tier(nodes, rails, radix, max_rails_per_switch)
    if tiers == 1 or (tiers is None and not whole_units and one is not None):
        if one is None:
            raise Infeasible(
                f"{nodes} nodes x {rails} rails do not fit on radix-{radix} switches in one tier",
                nearest=f"tiers 2, or at most {radix // min(rails, max_rails_per_switch or rails)} nodes",
            )
        return one
    sus = math.ceil(nodes / su)
    group = min(rails, max(1, split.down // su))  # rails that share a leaf
    # A partly filled last SU (never with whole_units) gives its leaves only the populated ports' uplinks.
    present = nodes - (sus - 1) * su
    unit = _Unit(su=su, sus=sus, rails=rails, group=group, present=present)
    chosen = tiers if tiers is not None else (2 if sus * unit.per_su <= radix else 3)
    if chosen not in (2, 3):
        raise Infeasible(f"{chosen}-tier fat trees are not modelled", nearest="tiers 1, 2 or 3")
    if chosen == 2:
        return _two_tier(radix, split, unit, oversubscription)
    return _three_tier(radix, split, unit, oversubscription)


def _one_tier(nodes: int, rails: int, radix: int, cap: int | None) -> PlaneSize | None:
    """One switch per rail group holding every node's ports of those rails; None if they do not fit."""
    group = min(rails, cap or rails, radix // nodes)
    if group < 1 or (cap is None and group < rails):
        return None  # without a cap, rails split over switches would leave cross-rail traffic no path
    switches = -(-rails // group)
    return PlaneSize(
        tiers=1,
        radix=radix,
        leaf=LeafSplit(down=radix, up=0),
        su_nodes=nodes,
        sus=1,
        rails=rails,
        rails_per_leaf=group,
        leaves=switches,
        spines=0,
        cores=0,
        pod_leaves=switches,
        pods=1,
        spines_per_pod=0,
        cores_per_group=0,
        spine_up=0,
        last_su_up=0,
    )


@dataclass(frozen=True)
class _Unit:
    """Scalable-unit shape: nodes per SU, SUs, rails per node, rails per leaf."""

    su: int
    sus: int
    rails: int
    group: int
    present: int
    """Nodes populating the last SU's leaves (``su`` when it is whole)."""

    @property
    def per_su(self) -> int:
        return -(-self.rails // self.group)


def _whole_sus(radix: int, tiers: int, unit: _Unit, sigma: float) -> int:
    """The most nodes ``tiers`` tiers of this radix reach, rounded down to whole SUs (for hints)."""
    return max_nodes(radix, tiers, unit.rails, sigma, unit.su) // unit.su * unit.su


def _plane(radix: int, split: LeafSplit, unit: _Unit, **tier_shape: int) -> PlaneSize:
    """A PlaneSize with the SU fields common to both tier counts; ``tier_shape`` gives the rest."""
    return PlaneSize(
        radix=radix,
        leaf=split,
        su_nodes=unit.su,
        sus=unit.sus,
        rails=unit.rails,
        rails_per_leaf=unit.group,
        **tier_shape,
    )


def _two_tier(radix: int, split: LeafSplit, unit: _Unit, sigma: float) -> PlaneSize:
    leaves = unit.sus * unit.per_su
    if leaves > radix:
        fit = _whole_sus(radix, 2, unit, sigma)
        raise Infeasible(
            f"a 2-tier fat tree of radix {radix} reaches at most {radix} leaves; {unit.sus} SU x "
            f"{unit.per_su} leaves needs {leaves}",
            nearest=f"tiers 3, or at most {fit} nodes in 2 tiers",
        )
    full_leaves = leaves - unit.per_su  # leaves of the whole SUs before the last one
    last_up = split.up
    if unit.present < unit.su:
        # Non-blocking at the leaf's own ratio: up ports = populated down ports x u/d (rounded up).
        # The spine count divides the full SU's ``u`` (so the SU grows without recabling) and the
        # uplinks round up to a multiple of it (equal parallel links, section 1.8 divisibility rule).
        need = min(split.up, math.ceil(unit.present * unit.group * split.up / split.down - 1e-9))
        uplinks = full_leaves * split.up + unit.per_su * need
        spines = smallest_divisor_at_least(split.up, uplinks / radix)
        last_up = -(-need // spines) * spines
        if unit.sus == 1:  # one SU: every leaf is a last-SU leaf
            split = LeafSplit(down=split.down, up=last_up)
    else:
        spines = smallest_divisor_at_least(split.up, leaves * split.up / radix)
    return _plane(
        radix,
        split,
        unit,
        tiers=2,
        leaves=leaves,
        spines=spines,
        cores=0,
        pod_leaves=leaves,
        pods=1,
        spines_per_pod=spines,
        last_su_up=last_up,
        cores_per_group=0,
        spine_up=0,
    )


def _three_tier(radix: int, split: LeafSplit, unit: _Unit, sigma: float) -> PlaneSize:
    leaves = unit.sus * unit.per_su
    pod_leaves = radix // 2  # a non-blocking spine: k/2 ports down to leaves, k/2 up to cores
    pods = math.ceil(leaves / pod_leaves)
    if pods > radix:
        fit = _whole_sus(radix, 3, unit, sigma)
        raise Infeasible(
            f"a 3-tier fat tree of radix {radix} reaches at most {radix} pods of {pod_leaves} leaves; "
            f"{leaves} leaves need {pods}",
            nearest=f"at most {fit} nodes, or a larger radix",
        )
    spine_up = radix // 2
    per_group = smallest_divisor_at_least(spine_up, pods * spine_up / radix)
    spines_per_pod = split.up
    return _plane(
        radix,
        split,
        unit,
        tiers=3,
        leaves=leaves,
        spines=pods * spines_per_pod,
        cores=spines_per_pod * per_group,
        pod_leaves=pod_leaves,
        pods=pods,
        spines_per_pod=spines_per_pod,
        last_su_up=split.up,
        cores_per_group=per_group,
        spine_up=spine_up,
    )
