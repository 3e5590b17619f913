"""Symbolic walk: push whole header-space regions through the compiled tables.

This is :func:`fabrictwin.fleet.policy.trace.walk` with a region of packets instead of one
packet: at each table the region is split by the entries in priority order (what an entry
takes, later entries never see), and each piece follows its entry's actions. Metadata
(ingress port, VNI, VM registers) and the inner source address are concrete along a walk;
destination address, protocol and destination port are symbolic (see :mod:`.atoms`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from fabrictwin.fleet.policy.atoms import BoolArray, Grid
from fabrictwin.fleet.policy.compile import CLASSIFY
from fabrictwin.fleet.policy.tables import Entry, Packet, Pipeline

MAX_DEPTH = 64
"""Loop guard; a correct pipeline crosses at most two servers and 16 tables."""


@dataclass(frozen=True)
class Delivery:
    """A region of packets that reaches a VM (``dst``) or the provider gateway (``dst=None``)."""

    src: str
    dst: str | None
    region: BoolArray
    path: tuple[str, ...]
    """Deciding entries, ``server t<table>: <policy origin>``, in walk order."""


@dataclass
class Explorer:
    """Holds the grid and the pipelines; collects deliveries of every walk it runs."""

    grid: Grid
    pipelines: dict[str, Pipeline]
    deliveries: list[Delivery]

    def run(self, label: str, pipe: Pipeline, pkt: Packet, region: BoolArray | None = None) -> None:
        """Explore every packet of ``region`` (default: all) entering ``pipe`` as ``pkt`` says."""
        start = self.grid.full() if region is None else region
        self._table(label, pipe, CLASSIFY, pkt, start, (), 0)

    def _table(
        self,
        label: str,
        pipe: Pipeline,
        table: int,
        pkt: Packet,
        region: BoolArray,
        path: tuple[str, ...],
        depth: int,
    ) -> None:
        if depth > MAX_DEPTH:
            return
        remaining = region
        for entry in pipe.tables[table].entries:
            match = entry.match
            if not match.metadata_ok(pkt) or not match.src[0] <= pkt.src_ip <= match.src[1]:
                continue
            hit = remaining & self.grid.mask(match)
            if not hit.any():
                continue
            step = (*path, f"{pipe.server} t{table}: {entry.origin}")
            self._actions(label, pipe, entry, pkt, hit, step, depth)
            remaining = remaining & ~hit
            if not remaining.any():
                return

    def _actions(
        self,
        label: str,
        pipe: Pipeline,
        entry: Entry,
        pkt: Packet,
        region: BoolArray,
        path: tuple[str, ...],
        depth: int,
    ) -> None:
        for action in entry.actions:
            pkt = action.apply(pkt)
            if action.kind == "goto" and action.table is not None:
                self._table(label, pipe, action.table, pkt, region, path, depth + 1)
                return
            if action.kind == "encap":
                pkt = replace(pkt, vni=action.vni)
            elif action.kind == "drop":
                return
            elif action.kind == "gateway":
                self.deliveries.append(Delivery(label, None, region, path))
                return
            elif action.kind == "output" and action.port.startswith("pf0vf"):
                dst = pkt.dst_vm or f"{pipe.server}:{action.port}"
                self.deliveries.append(Delivery(label, dst, region, (*path, f"{pipe.server} {action.port}")))
                return
            elif action.kind == "output":
                remote = next((p for p in self.pipelines.values() if p.vtep_ip == pkt.tunnel_dst), None)
                if remote is None:
                    return
                wire = replace(pkt, in_port=remote.uplink, src_vm=None, dst_vm=None, tunnel_dst=None)
                hop = (*path, f"wire vni {pkt.vni} {pipe.vtep_ip} -> {remote.vtep_ip}")
                self._table(label, remote, CLASSIFY, wire, region, hop, depth + 1)
                return
