"""An aggregated drawing plan of one fabric plane that stays readable for thousands of nodes.

Rows bottom-up: node groups (one per scalable unit), leaf groups (the SU's rail leaves), spines
(one block for 2 tiers, one per pod for 3 tiers), core groups. A row with more items than
``max_boxes`` merges consecutive items into ranges; edges carry the number of cables they stand for.
No plotting library here (the model core may not import one): the CLI draws this plan.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fabrictwin.topology.build import IntArray
from fabrictwin.topology.sizing import PlaneSize

ROW_NAMES = ("nodes", "leaves", "spines", "cores")


@dataclass(frozen=True)
class Box:
    """A group of nodes or switches drawn as one rectangle."""

    row: int
    """0 nodes, 1 leaves, 2 spines, 3 cores."""
    x: float
    """Centre on a 0..1 axis."""
    label: str
    count: int
    """Nodes or switches inside."""


@dataclass(frozen=True)
class Edge:
    """A bundle of cables between two boxes."""

    a: int
    b: int
    links: int


def _bin_row(row: int, counts: IntArray, unit: str, first: str, max_boxes: int) -> tuple[list[Box], IntArray]:
    """Merge ``counts`` (one per item) into at most ``max_boxes`` boxes; return boxes and item->box."""
    n = counts.size
    bins = np.arange(n) * min(n, max_boxes) // max(n, 1)
    boxes = []
    for b in range(int(bins.max()) + 1 if n else 0):
        items = np.flatnonzero(bins == b)
        lo, hi = int(items[0]), int(items[-1])
        name = first if n == 1 else (f"{first} {lo}" if lo == hi else f"{first} {lo}-{hi}")
        total = int(counts[items].sum())
        x = (b + 0.5) / (int(bins.max()) + 1)
        boxes.append(Box(row, x, f"{name}\n{total} {unit}", total))
    return boxes, bins


def plane_layout(size: PlaneSize, nodes: int, max_boxes: int = 16) -> tuple[list[Box], list[Edge]]:
    """Boxes and cable bundles of one plane with ``nodes`` populated nodes."""
    su = np.arange(size.sus)
    su_nodes = np.clip(nodes - su * size.su_nodes, 0, size.su_nodes)
    leaf = np.arange(size.leaves)
    leaf_su, leaf_pod = leaf // size.leaves_per_su, leaf // size.pod_leaves
    spine_groups = np.full(size.pods, size.spines_per_pod)
    rows: list[tuple[IntArray, str, str]] = [
        (su_nodes, "nodes", "SU"),
        (np.full(size.sus, size.leaves_per_su), "leaves", "SU"),
    ]
    if size.tiers >= 2:  # a 1-tier plane stops at its switches
        rows.append((spine_groups, "spines", "pod" if size.tiers == 3 else "spine block"))
    if size.tiers == 3:
        rows.append((np.full(size.spines_per_pod, size.cores_per_group), "cores", "group"))
    boxes: list[Box] = []
    maps: list[IntArray] = []
    offsets: list[int] = []
    for r, (counts, unit, first) in enumerate(rows):
        row_boxes, item_bin = _bin_row(r, counts, unit, first, max_boxes)
        offsets.append(len(boxes))
        boxes += row_boxes
        maps.append(item_bin)
    bundles = [(0, su, su, su_nodes * size.rails)]
    if size.tiers >= 2:
        ups = np.array([size.leaf_up(int(w)) for w in leaf], dtype=np.int64)
        bundles.append((1, leaf_su, leaf_pod, ups))
    if size.tiers == 3:
        pod, group = np.divmod(np.arange(size.spines), size.spines_per_pod)
        bundles.append((2, pod, group, np.full(size.spines, size.spine_up)))
    edges = _merge_edges(bundles, maps, offsets, len(boxes))
    return boxes, edges


def _merge_edges(
    bundles: list[tuple[int, IntArray, IntArray, IntArray]],
    maps: list[IntArray],
    offsets: list[int],
    n_boxes: int,
) -> list[Edge]:
    weight = np.zeros((n_boxes, n_boxes), dtype=np.int64)
    for row, lower, upper, links in bundles:
        a = offsets[row] + maps[row][lower]
        b = offsets[row + 1] + maps[row + 1][upper]
        np.add.at(weight, (a, b), links)
    a_idx, b_idx = np.nonzero(weight)
    return [Edge(int(a), int(b), int(weight[a, b])) for a, b in zip(a_idx, b_idx, strict=True)]
