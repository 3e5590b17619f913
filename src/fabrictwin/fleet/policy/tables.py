"""Match-action tables in the shape OVS-DOCA / DOCA Flow / tc-flower offload use.

A server's pipeline is a set of numbered tables; each holds prioritised entries whose match
covers the ingress port (a representor ``pf0vf<N>`` or an uplink ``p0``), pipeline metadata
(the tenant VM or VNI a packet was classified into, like OVS registers), the inner IPv4
source/destination prefixes, the protocol and the destination port range. Actions are the
offloadable ones: set metadata, goto, meter, VXLAN encap/decap with optional IPsec, output,
drop (bluefield-operations.md section 3.1 [S73][S74]).

The same entries are evaluated two ways: concretely on one :class:`Packet` (``policy trace``)
and symbolically on header-space atoms (``policy check``, see :mod:`.atoms`), so what is traced
and what is proven are the very tables that get deployed.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field, replace

PROTOCOLS: tuple[str, ...] = ("tcp", "udp", "icmp", "other")
"""Protocol classes the tables distinguish (``other``: every IP protocol not named)."""
PORTED: frozenset[str] = frozenset({"tcp", "udp"})
"""Protocols that carry a destination port."""
IP_SPACE: tuple[int, int] = (0, 2**32 - 1)
PORT_SPACE: tuple[int, int] = (0, 65535)


def prefix_range(cidr: str) -> tuple[int, int]:
    """Inclusive integer range of an IPv4 prefix (``10.0.0.0/8`` -> (167772160, 184549375))."""
    net = ipaddress.IPv4Network(cidr)
    return (int(net.network_address), int(net.broadcast_address))


def ip_str(value: int) -> str:
    return str(ipaddress.IPv4Address(value))


def protocols_of(protocol: str, ports: tuple[int, int]) -> frozenset[str]:
    """Protocol classes a rule with ``protocol``/``ports`` matches.

    ``any`` with a port range narrower than the whole space only makes sense for ported
    protocols, so it matches tcp and udp only (the way security-group APIs treat it).
    """
    if protocol != "any":
        return frozenset({protocol})
    return frozenset(PROTOCOLS) if ports == PORT_SPACE else PORTED


@dataclass(frozen=True)
class Packet:
    """One concrete packet plus its pipeline metadata while it walks the tables."""

    src_ip: int
    dst_ip: int
    protocol: str
    dst_port: int
    in_port: str = ""
    vni: int | None = None
    src_vm: str | None = None
    dst_vm: str | None = None
    tunnel_dst: str | None = None
    established: bool = False

    def header(self) -> str:
        port = f":{self.dst_port}" if self.protocol in PORTED else ""
        return f"{ip_str(self.src_ip)} -> {ip_str(self.dst_ip)}{port}/{self.protocol}"


@dataclass(frozen=True)
class Match:
    """What an entry matches; ``None`` / the whole range means wildcard."""

    in_port: str | None = None
    vni: int | None = None
    src_vm: str | None = None
    dst_vm: str | None = None
    tunnel_vni: int | None = None
    established: bool | None = None
    src: tuple[int, int] = IP_SPACE
    dst: tuple[int, int] = IP_SPACE
    protocols: frozenset[str] = frozenset(PROTOCOLS)
    ports: tuple[int, int] = PORT_SPACE

    def metadata_ok(self, pkt: Packet) -> bool:
        """Whether the non-header part (port, registers, conntrack) matches."""
        checks = (
            (self.in_port, pkt.in_port),
            (self.vni, pkt.vni),
            (self.src_vm, pkt.src_vm),
            (self.dst_vm, pkt.dst_vm),
            (self.established, pkt.established),
        )
        return all(want is None or want == have for want, have in checks)

    def matches(self, pkt: Packet) -> bool:
        """Concrete match on one packet."""
        if not self.metadata_ok(pkt) or pkt.protocol not in self.protocols:
            return False
        if not (self.src[0] <= pkt.src_ip <= self.src[1] and self.dst[0] <= pkt.dst_ip <= self.dst[1]):
            return False
        return pkt.protocol not in PORTED or self.ports[0] <= pkt.dst_port <= self.ports[1]

    def describe(self) -> str:
        """ovs-ofctl-like text of the match."""
        parts: list[str] = []
        # on an uplink the VNI is the VXLAN header's; elsewhere it is the VPC register set by classify
        vni_key = "tun_id" if self.in_port is not None else "reg_vni"
        for key, value in (
            ("in_port", self.in_port),
            (vni_key, self.vni),
            ("reg_src_vm", self.src_vm),
            ("reg_dst_vm", self.dst_vm),
            ("reg_tun_id", self.tunnel_vni),
        ):
            if value is not None:
                parts.append(f"{key}={value}")
        if self.established is not None:
            parts.append("ct_state=+est" if self.established else "ct_state=+new")
        if self.src != IP_SPACE:
            parts.append(f"nw_src={_range_text(self.src)}")
        if self.dst != IP_SPACE:
            parts.append(f"nw_dst={_range_text(self.dst)}")
        if self.protocols != frozenset(PROTOCOLS):
            parts.append("proto=" + "|".join(p for p in PROTOCOLS if p in self.protocols))
        if self.ports != PORT_SPACE:
            low, high = self.ports
            parts.append(f"tp_dst={low}" if low == high else f"tp_dst={low}-{high}")
        return ",".join(parts) or "any"


def _range_text(rng: tuple[int, int]) -> str:
    low, high = rng
    nets = list(ipaddress.summarize_address_range(ipaddress.IPv4Address(low), ipaddress.IPv4Address(high)))
    return str(nets[0]) if len(nets) == 1 else f"{ip_str(low)}-{ip_str(high)}"


@dataclass(frozen=True)
class Action:
    """One offloadable action. ``kind`` is one of the names below; the rest are its arguments.

    ``set`` (metadata registers), ``goto`` (table id), ``meter`` (rate_bps), ``encap`` (VXLAN
    with vni/tunnel_dst, ``ipsec``), ``decap``, ``output`` (port), ``gateway`` (to the provider
    edge), ``drop`` (reason).
    """

    kind: str
    table: int | None = None
    port: str = ""
    vni: int | None = None
    src_vm: str | None = None
    dst_vm: str | None = None
    tunnel_dst: str | None = None
    rate_bps: float | None = None
    ipsec: bool = False
    reason: str = ""

    def describe(self) -> str:
        if self.kind == "goto":
            return f"goto_table:{self.table}"
        if self.kind == "set":
            regs = [
                f"{k}={v}"
                for k, v in (("vni", self.vni), ("src_vm", self.src_vm), ("dst_vm", self.dst_vm))
                if v
            ]
            if self.tunnel_dst:
                regs.append(f"tun_dst={self.tunnel_dst}")
            return "set(" + ",".join(regs) + ")"
        if self.kind == "meter":
            return f"meter:{(self.rate_bps or 0) / 1e9:g}Gb/s"
        if self.kind == "encap":
            return f"vxlan_encap(vni={self.vni},dst=reg_tun_dst{',ipsec' if self.ipsec else ''})"
        if self.kind == "decap":
            return "vxlan_decap" + ("(ipsec)" if self.ipsec else "")
        if self.kind == "output":
            return f"output:{self.port}"
        if self.kind == "gateway":
            return f"output:{self.port}(provider gateway)"
        return f"drop({self.reason})"

    def apply(self, pkt: Packet) -> Packet:
        """The packet after a metadata-changing action (others leave it as is)."""
        if self.kind == "set":
            changes = {k: v for k, v in (("src_vm", self.src_vm), ("dst_vm", self.dst_vm)) if v is not None}
            if self.vni is not None:
                changes["vni"] = self.vni  # type: ignore[assignment]
            if self.tunnel_dst is not None:
                changes["tunnel_dst"] = self.tunnel_dst
            return replace(pkt, **changes)  # type: ignore[arg-type]
        return pkt


@dataclass(frozen=True)
class Entry:
    """One table entry: match, actions, and the policy rule it came from."""

    priority: int
    match: Match
    actions: tuple[Action, ...]
    origin: str
    """The policy object that produced the entry (shown as the deciding rule)."""

    def describe(self) -> str:
        acts = ",".join(a.describe() for a in self.actions)
        return f"priority={self.priority},{self.match.describe()} actions={acts}"


@dataclass(frozen=True)
class Table:
    """One match-action table; entries are kept highest priority first."""

    table_id: int
    name: str
    enforced_at: str
    """Where the entry executes: eswitch hardware, DPU Arm, DPU crypto engine or the host."""
    entries: tuple[Entry, ...]

    def lookup(self, pkt: Packet) -> Entry | None:
        """The first (highest priority) entry matching ``pkt``; ``None`` on a miss."""
        for entry in self.entries:
            if entry.match.matches(pkt):
                return entry
        return None


@dataclass(frozen=True)
class Pipeline:
    """All tables of one server, and who controls them."""

    server: str
    mode: str
    vtep_ip: str
    uplink: str
    controlled_by: str
    """``provider`` (DPU mode, authored on the Arm) or ``host`` (NIC mode: the provider lost it)."""
    tables: dict[int, Table] = field(default_factory=dict)
    ports: tuple[str, ...] = ()

    def render(self) -> str:
        """ovs-ofctl dump-flows style text of the whole pipeline."""
        lines = [f"# server {self.server} mode={self.mode} controlled_by={self.controlled_by}"]
        for tid in sorted(self.tables):
            table = self.tables[tid]
            lines.append(f"# table {tid} {table.name} (enforced at: {table.enforced_at})")
            lines.extend(f"table={tid},{e.describe()}  # {e.origin}" for e in table.entries)
        return "\n".join(lines) + "\n"
