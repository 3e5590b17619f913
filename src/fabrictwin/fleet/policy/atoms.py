"""Header-space atoms: the exact equivalence classes of packets for a set of table entries.

Legend: a *region* is a boolean array ``region_DPQ`` over D destination-address atoms x P
protocol classes x Q destination-port atoms.

Every match range in the pipelines contributes its two edges (``low`` and ``high + 1``) to
the boundary list of its field; the sorted boundaries cut the field into elementary
intervals (atoms) that no match range splits. Every entry then matches an atom completely or
not at all, so evaluating the tables once per atom (vectorised over the whole grid) decides
every packet of the header space: the analysis is exhaustive, not sampled (the idea of
header-space analysis, Kazemian, Varghese, McKeown, NSDI 2012, and of atomic predicates,
Yang & Lam, ICNP 2013).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from fabrictwin.fleet.policy.tables import IP_SPACE, PORT_SPACE, PORTED, PROTOCOLS, Match

BoolArray = npt.NDArray[np.bool_]
WELL_KNOWN_PORTS: tuple[int, ...] = (22, 443, 80, 53)
"""Ports tried first when picking an example packet (IANA: ssh, https, http, domain)."""


def atom_starts(ranges: Iterable[tuple[int, int]], space: tuple[int, int]) -> npt.NDArray[np.int64]:
    """Sorted first values of the atoms cut by ``ranges`` inside ``space``."""
    edges = {space[0]}
    for low, high in ranges:
        edges.add(low)
        if high + 1 <= space[1]:
            edges.add(high + 1)
    return np.array(sorted(edges), dtype=np.int64)


def interval_mask(starts: npt.NDArray[np.int64], rng: tuple[int, int]) -> BoolArray:
    """Atoms inside ``rng``; exact because ``rng``'s edges are atom boundaries."""
    return np.asarray((starts >= rng[0]) & (starts <= rng[1]), dtype=np.bool_)


@dataclass
class Grid:
    """The atom grid over (destination address, protocol, destination port)."""

    dst_starts: npt.NDArray[np.int64]
    port_starts: npt.NDArray[np.int64]
    _cache: dict[tuple[object, ...], BoolArray] = field(default_factory=dict)

    @classmethod
    def of(cls, matches: Iterable[Match]) -> Grid:
        matches = list(matches)
        dst = atom_starts((m.dst for m in matches), IP_SPACE)
        ports = atom_starts((m.ports for m in matches), PORT_SPACE)
        return cls(dst, ports)

    @property
    def shape(self) -> tuple[int, int, int]:
        return (len(self.dst_starts), len(PROTOCOLS), len(self.port_starts))

    def full(self) -> BoolArray:
        return np.ones(self.shape, dtype=np.bool_)

    def mask(self, match: Match) -> BoolArray:
        """Region of packets ``match`` accepts on its header fields (metadata is checked apart)."""
        key = (match.dst, match.protocols, match.ports)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        dst = interval_mask(self.dst_starts, match.dst)
        in_ports = interval_mask(self.port_starts, match.ports)
        proto_port = np.zeros((len(PROTOCOLS), len(self.port_starts)), dtype=np.bool_)
        for i, proto in enumerate(PROTOCOLS):
            if proto in match.protocols:
                # ports exist only for tcp/udp; other protocols match whatever the port field says
                proto_port[i] = in_ports if proto in PORTED else True
        region = dst[:, None, None] & proto_port[None, :, :]
        self._cache[key] = region
        return region

    def proto_port_mask(self, protocols: frozenset[str], ports: tuple[int, int]) -> BoolArray:
        """Region over every destination for a protocol/port set (used for grants)."""
        return self.mask(Match(protocols=protocols, ports=ports))

    def witness(self, region: BoolArray) -> tuple[int, str, int]:
        """One concrete packet (dst ip, protocol, dst port) inside a non-empty region.

        Prefers a well-known port (ssh, http, https, dns) so a reported leak reads naturally.
        """
        d, p, q = (int(i[0]) for i in np.nonzero(region))
        for port in WELL_KNOWN_PORTS:
            qi = int(np.searchsorted(self.port_starts, port, side="right") - 1)
            for pi, proto in enumerate(PROTOCOLS[:2]):
                hits = np.nonzero(region[:, pi, qi])[0]
                if len(hits):
                    return int(self.dst_starts[hits[0]]), proto, port
        protocol = PROTOCOLS[p]
        port = int(self.port_starts[q]) if protocol in PORTED else 0
        return int(self.dst_starts[d]), protocol, port
