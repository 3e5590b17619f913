"""Walk one packet through the compiled pipelines, hop by hop (like ``ovs-appctl ofproto/trace``).

VM -> VF -> representor -> classify -> egress ACL -> meter -> VPC routing -> encap -> uplink
-> wire -> remote uplink -> decap -> routing -> ingress ACL -> representor -> VF -> VM, then the
reply the same way with conntrack marking it established. Every table hop names the entry that
decided, the policy rule it came from and where it is enforced.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, replace

from fabrictwin.errors import NotFound, SpecError
from fabrictwin.fleet.policy.compile import CLASSIFY, PolicyIndex, VmRef, compile_policy
from fabrictwin.fleet.policy.tables import PORTED, Action, Packet, Pipeline
from fabrictwin.spec.policy import PolicySpec

EPHEMERAL_PORT = 49152
"""Client source port assumed for replies (RFC 6335 section 6: dynamic ports 49152-65535)."""
MAX_HOPS = 64
"""A loop guard; a correct pipeline crosses at most two servers and 16 tables."""


@dataclass(frozen=True)
class Hop:
    """One step of a trace."""

    where: str
    """Server (or ``wire``/``vm``) the step happens on."""
    stage: str
    """Table name, or the port/element crossed."""
    decision: str
    """The entry's actions, or what happened at the port."""
    rule: str
    """The policy object that produced the deciding entry ('' for ports)."""
    enforced_at: str
    """Host, DPU Arm, eswitch hardware, crypto engine, or the fabric."""


@dataclass(frozen=True)
class Trace:
    """A packet's walk and its outcome."""

    packet: str
    hops: tuple[Hop, ...]
    outcome: str
    """``delivered to <vm>``, ``dropped: <reason>`` or ``to provider gateway``."""
    delivered_to: str | None
    reply: Trace | None = None


def parse_endpoint(text: str) -> tuple[str, int, str]:
    """``10.1.2.3:443/tcp``, ``10.1.2.3/icmp`` -> (ip, port, protocol).

    Raises:
        SpecError: the text is not ``IP[:PORT]/PROTO``.
    """
    m = re.fullmatch(r"(?P<ip>[0-9.]+)(?::(?P<port>\d+))?/(?P<proto>tcp|udp|icmp|other)", text.strip())
    if m is None:
        raise SpecError(f"--to {text!r}: write IP:PORT/PROTO such as 10.1.2.3:443/tcp")
    try:
        ipaddress.IPv4Address(m["ip"])
    except ValueError as exc:
        raise SpecError(f"--to {text!r}: {m['ip']} is not an IPv4 address") from exc
    port = int(m["port"] or 0)
    if m["proto"] in PORTED and not m["port"]:
        raise SpecError(f"--to {text!r}: {m['proto']} needs a port")
    if port > 65535:
        raise SpecError(f"--to {text!r}: port above 65535")
    return m["ip"], port, m["proto"]


def find_vm(index: PolicyIndex, text: str) -> VmRef:
    """``vm:tenant/name`` or ``tenant/name`` -> the VM.

    Raises:
        NotFound: no such VM (the message lists the known ones).
    """
    key = text.removeprefix("vm:")
    if key not in index.vms:
        raise NotFound(f"--from {text!r}: no VM {key!r}; known: {', '.join(sorted(index.vms))}")
    return index.vms[key]


def trace_packet(policy: PolicySpec, source: str, destination: str) -> Trace:
    """Trace a new connection from VM ``source`` to ``destination`` and its reply.

    Raises:
        NotFound: the source VM does not exist.
        SpecError: the destination text is malformed.
    """
    index = PolicyIndex.of(policy)
    pipelines = compile_policy(policy)
    src = find_vm(index, source)
    ip, port, proto = parse_endpoint(destination)
    pkt = Packet(src.ip, int(ipaddress.IPv4Address(ip)), proto, port)
    forward = walk(index, pipelines, src, pkt)
    if forward.delivered_to is None:
        return forward
    responder = index.vms[forward.delivered_to]
    # the reply goes to the client's ephemeral port: first of the IANA dynamic range (RFC 6335 s6)
    back = Packet(pkt.dst_ip, pkt.src_ip, proto, EPHEMERAL_PORT if proto in PORTED else 0, established=True)
    return replace(forward, reply=walk(index, pipelines, responder, back))


@dataclass
class _Cursor:
    """Where a walk is: server pipeline, packet (with its registers) and table."""

    pipe: Pipeline
    pkt: Packet
    table: int | None
    hops: list[Hop]


Ending = tuple[str, str | None]
"""(outcome text, delivered-to VM key or None)."""


def walk(index: PolicyIndex, pipelines: dict[str, Pipeline], src: VmRef, pkt: Packet) -> Trace:
    """Walk ``pkt`` sent by ``src`` until it is delivered, dropped or leaves the provider."""
    pipe = pipelines[src.vm.server]
    hops = [
        Hop("vm", f"{src.key} eth0", f"sends {pkt.header()}", "", "tenant VM"),
        Hop(pipe.server, f"VF {src.port} (host PCIe function)", "to the eswitch", "", _vf_note(pipe)),
        Hop(
            pipe.server,
            f"representor {src.port}",
            "first packet of the flow: slow path",
            "",
            _slow_path(pipe),
        ),
    ]
    cur = _Cursor(pipe, replace(pkt, in_port=src.port), CLASSIFY, hops)
    for _ in range(MAX_HOPS):
        ending = _table_step(index, pipelines, cur)
        if ending is not None:
            return _end(cur.pkt, cur.hops, *ending)
    return _end(cur.pkt, cur.hops, "dropped: hop limit (pipeline loop)", None)


def _table_step(index: PolicyIndex, pipelines: dict[str, Pipeline], cur: _Cursor) -> Ending | None:
    """Look the packet up in the current table and run the entry's actions."""
    assert cur.table is not None
    table = cur.pipe.tables[cur.table]
    entry = table.lookup(cur.pkt)
    if entry is None:  # compile_policy ends every table with a catch-all; keep the guard honest
        return (f"dropped: miss in table {cur.table}", None)
    acts = ",".join(a.describe() for a in entry.actions)
    cur.hops.append(
        Hop(cur.pipe.server, f"table {cur.table} {table.name}", acts, entry.origin, table.enforced_at)
    )
    cur.table = None
    for action in entry.actions:
        ending = _act(index, pipelines, cur, action)
        if ending is not None:
            return ending
    return None if cur.table is not None else ("dropped: entry without a next step", None)


def _act(index: PolicyIndex, pipelines: dict[str, Pipeline], cur: _Cursor, action: Action) -> Ending | None:
    """Apply one action; an ending when the packet leaves the pipelines."""
    cur.pkt = action.apply(cur.pkt)
    server = cur.pipe.server
    if action.kind == "goto":
        cur.table = action.table
    elif action.kind == "encap":
        cur.pkt = replace(cur.pkt, vni=action.vni)
    elif action.kind == "drop":
        return (f"dropped: {action.reason}", None)
    elif action.kind == "gateway":
        leave = "to the provider gateway (leaves the overlay)"
        cur.hops.append(Hop(server, f"uplink {action.port}", leave, "", "fabric"))
        return ("to provider gateway", None)
    elif action.kind == "output" and action.port.startswith("pf0vf"):
        dst = next(r for r in index.on_server(server) if r.port == action.port)
        cur.hops.append(Hop(server, f"representor {action.port} -> VF", "delivered", "", _vf_note(cur.pipe)))
        cur.hops.append(Hop("vm", f"{dst.key} eth0", "receives", "", "tenant VM"))
        return (f"delivered to {dst.key}", dst.key)
    elif action.kind == "output":
        nxt = _cross_wire(pipelines, cur.pipe, cur.pkt, cur.hops)
        if nxt is None:
            return (f"dropped: no server terminates VTEP {cur.pkt.tunnel_dst}", None)
        cur.pipe, cur.pkt, cur.table = nxt[0], nxt[1], CLASSIFY
    return None


def _cross_wire(
    pipelines: dict[str, Pipeline], pipe: Pipeline, pkt: Packet, hops: list[Hop]
) -> tuple[Pipeline, Packet] | None:
    hops.append(
        Hop(
            pipe.server,
            f"uplink {pipe.uplink}",
            f"VXLAN vni {pkt.vni} to {pkt.tunnel_dst}",
            "",
            "eswitch hardware",
        )
    )
    remote = next((p for p in pipelines.values() if p.vtep_ip == pkt.tunnel_dst), None)
    if remote is None:
        return None
    hops.append(
        Hop("wire", f"underlay {pipe.vtep_ip} -> {remote.vtep_ip}", "switched by the fabric", "", "fabric")
    )
    hops.append(Hop(remote.server, f"uplink {remote.uplink}", "arrives", "", "eswitch hardware"))
    # registers do not cross the wire: only the VNI in the VXLAN header does
    return remote, replace(pkt, in_port=remote.uplink, src_vm=None, dst_vm=None, tunnel_dst=None)


def _vf_note(pipe: Pipeline) -> str:
    return "host (PCIe function only)" if pipe.controlled_by == "provider" else "host (owns the eswitch)"


def _slow_path(pipe: Pipeline) -> str:
    if pipe.controlled_by == "provider":
        return "DPU Arm (OVS-DOCA), then offloaded to eswitch hardware"
    return "host (NIC mode: no Arm in the path; provider does not control it)"


def _end(pkt: Packet, hops: list[Hop], outcome: str, delivered: str | None) -> Trace:
    return Trace(pkt.header(), tuple(hops), outcome, delivered)
