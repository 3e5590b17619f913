"""Plain-language design notes: why a fabric has the switches it has, and how it grows.

Rules from ``fabric-and-network-models.md`` section 1.1 (whole SUs, rail alignment) and 1.8 (the
spine divisibility rule); the small-cluster rules are in :mod:`fabrictwin.topology.sizing`.
"""

from __future__ import annotations

from fabrictwin.topology.sizing import PlaneSize, smallest_divisor_at_least


def design_notes(
    nodes: int, size: PlaneSize, planes: int, storage_single_tier: int | None, sharp: bool
) -> tuple[str, ...]:
    """Plain-language notes on a compute plane ``size`` populated by ``nodes`` nodes.

    ``storage_single_tier`` is the storage switch count when that network is one tier (else None);
    ``sharp`` says whether the compute fabric can run SHARP.
    """
    notes = list(_small_notes(nodes, size, sharp))
    if storage_single_tier is not None:
        notes.append(
            f"storage: single tier, {storage_single_tier} switches (one per node port, for redundancy), "
            "no spines"
        )
    built = size.sus * size.su_nodes
    if built > nodes and size.tiers > 1 and nodes > size.su_nodes:
        notes.append(
            f"leaves for {size.sus} full SU(s) of {size.su_nodes} nodes ({built} node slots; "
            f"{built - nodes} unused), as the SuperPOD RAs require; "
            + (
                f"the last SU's leaves carry {size.last_su_up} uplinks (not {size.leaf.up}) for the "
                f"{nodes - (size.sus - 1) * size.su_nodes} nodes present; filling it adds "
                f"{size.leaf.up - size.last_su_up} uplinks per leaf"
                if size.last_su_up < size.leaf.up
                else "every leaf carries its full uplinks"
            )
        )
    if planes > 1:
        notes.append(f"{planes} independent planes: losing one plane leaves 1/{planes} of the bandwidth")
    return tuple(notes)


def _small_notes(nodes: int, size: PlaneSize, sharp: bool) -> tuple[str, ...]:
    """Why a small compute fabric has fewer switches than a scalable unit, and how it grows."""
    if size.tiers == 1:
        return (
            f"single tier: all {nodes * size.rails} node ports fit on {size.leaves} radix-{size.radix} "
            "switch(es) per plane (one per rail group); no spines, node links only; "
            + ("SHARP still runs on one Quantum switch; " if sharp else "")
            + "past this size the design becomes leaf-spine",
        )
    if nodes >= size.su_nodes or size.tiers != 2:
        return ()
    full_up = size.radix - size.leaf.down  # the full SU leaf's up ports at this oversubscription
    if full_up == size.leaf.up:
        return ()  # e.g. the H100 RA's 31 nodes + UFM: already the full SU's cabling
    full_spines = smallest_divisor_at_least(full_up, size.leaves * full_up / size.radix)
    return (
        f"below one SU: {size.leaves} rail leaves with {size.leaf.up} uplinks each to {size.spines} "
        f"spine(s), sized for the {nodes} nodes present at the requested oversubscription; grows to a "
        f"full {size.su_nodes}-node SU on the same leaves by adding nodes, uplinks ({full_up} each) and "
        f"spines ({full_spines}); existing cables stay, as {size.spines} divides {full_up}",
    )
