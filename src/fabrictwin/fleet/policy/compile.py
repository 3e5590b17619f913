"""Compile a :class:`PolicySpec` into one match-action pipeline per server.

Table layout (one per server; DOCA Flow would make each a pipe, OVS a table):

====  ===========  =================================================================
id    name         role
====  ===========  =================================================================
0     classify     port security: VF representor + source IP -> tenant VM and VNI;
                   uplink + VNI -> VXLAN decap (IPsec decrypt when required)
10    egress_acl   the sending VM's security-group egress rules, first match wins
20    meter        the sending VM's rate limit
30    l3_tx        VPC routing from a local VM: local VM, remote VM (tunnel), peer VPC,
                   provider gateway, or no route
35    l3_rx        from the uplink: only VMs of that VNI on this server
40    encap        VXLAN encapsulation (+ IPsec) and output on the uplink
50    ingress_acl  the receiving VM's ingress rules, then output to its representor
====  ===========  =================================================================

Where it runs (bluefield-operations.md 2.1, 3.1, 3.2): in DPU mode the tables are authored
on the Arm (OVS-DOCA / DOCA Flow) and offloaded to the eswitch; the first packet of a flow
takes the Arm slow path. In NIC mode the host PF owns the eswitch, so the same tables can
only live on the host and the provider no longer controls them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from fabrictwin.fleet.policy.tables import (
    Action,
    Entry,
    Match,
    Pipeline,
    Table,
    prefix_range,
    protocols_of,
)
from fabrictwin.spec.policy import PolicySpec, Rule, Server, Tenant, Vm, Vpc

CLASSIFY, EGRESS_ACL, METER, L3_TX, L3_RX, ENCAP, INGRESS_ACL = 0, 10, 20, 30, 35, 40, 50


@dataclass(frozen=True)
class VmRef:
    """A VM with its tenant and VPC resolved."""

    key: str
    tenant: Tenant
    vm: Vm
    vpc: Vpc

    @property
    def ip(self) -> int:
        return prefix_range(f"{self.vm.ip}/32")[0]

    @property
    def port(self) -> str:
        return f"pf0vf{self.vm.vf}"


@dataclass(frozen=True)
class PolicyIndex:
    """Look-ups over a policy: VMs by key, VPCs by ``tenant/vpc``, servers by name."""

    policy: PolicySpec
    vms: dict[str, VmRef]
    vpcs: dict[str, tuple[Tenant, Vpc]]
    servers: dict[str, Server]

    @classmethod
    def of(cls, policy: PolicySpec) -> PolicyIndex:
        vpcs = {f"{t.name}/{v.name}": (t, v) for t in policy.tenants for v in t.vpcs}
        vms: dict[str, VmRef] = {}
        for tenant in policy.tenants:
            for vm in tenant.vms:
                vpc = vpcs[f"{tenant.name}/{vm.vpc}"][1]
                vms[f"{tenant.name}/{vm.name}"] = VmRef(f"{tenant.name}/{vm.name}", tenant, vm, vpc)
        return cls(policy, vms, vpcs, {s.name: s for s in policy.servers})

    def vpc_key_of_vni(self, vni: int) -> str:
        return next(k for k, (_, v) in self.vpcs.items() if v.vni == vni)

    def peers_of(self, vpc_key: str) -> list[str]:
        """VPCs routed from ``vpc_key``: peering is symmetric, whichever side declared it."""
        mine = list(self.vpcs[vpc_key][1].peers)
        theirs = [k for k, (_, v) in self.vpcs.items() if vpc_key in v.peers and k not in mine]
        return sorted(set(mine + theirs) - {vpc_key})

    def vms_in(self, vpc_key: str) -> list[VmRef]:
        return [r for r in self.vms.values() if f"{r.tenant.name}/{r.vpc.name}" == vpc_key]

    def on_server(self, server: str) -> list[VmRef]:
        return [r for r in self.vms.values() if r.vm.server == server]

    def rules(self, ref: VmRef, direction: str) -> list[tuple[str, Rule]]:
        """The VM's rules of one direction in evaluation order, each with its origin text."""
        groups = {g.name: g for g in ref.tenant.security_groups}
        out: list[tuple[str, Rule]] = []
        for name in ref.vm.security_groups:
            for i, rule in enumerate(groups[name].rules):
                if rule.direction == direction:
                    origin = f"{ref.tenant.name}/sg:{name} rule {i} ({_rule_text(rule)})"
                    out.append((origin, rule))
        return out

    def default(self, ref: VmRef, direction: str) -> str:
        """Default decision: the first group's default (deny ingress / allow egress without groups)."""
        groups = {g.name: g for g in ref.tenant.security_groups}
        if not ref.vm.security_groups:
            return "deny" if direction == "ingress" else "allow"
        first = groups[ref.vm.security_groups[0]]
        return first.default_ingress if direction == "ingress" else first.default_egress


def _rule_text(rule: Rule) -> str:
    ports = (
        ""
        if rule.ports == (0, 65535)
        else f" {rule.ports[0]}-{rule.ports[1]}".replace(
            f"{rule.ports[0]}-{rule.ports[0]}", str(rule.ports[0])
        )
    )
    way = "from" if rule.direction == "ingress" else "to"
    text = f"{rule.action} {rule.direction} {rule.protocol}{ports} {way} {rule.remote}"
    return f"{text}: {rule.comment}" if rule.comment else text


def compile_policy(policy: PolicySpec) -> dict[str, Pipeline]:
    """One pipeline per server, keyed by server name. Pure: same policy, same tables."""
    index = PolicyIndex.of(policy)
    return {server.name: _pipeline(index, server) for server in policy.servers}


def _pipeline(index: PolicyIndex, server: Server) -> Pipeline:
    if server.mode == "dpu":
        where = {
            "acl": "eswitch hardware (authored by OVS-DOCA on the DPU Arm)",
            "crypto": "eswitch hardware (VXLAN; IPsec in the DPU crypto engine)",
        }
        owner = "provider"
    else:
        where = {"acl": "host (host PF owns the eswitch)", "crypto": "host"}
        owner = "host"
    local = index.on_server(server.name)
    uplink = server.uplinks[0]
    tables = {
        CLASSIFY: Table(CLASSIFY, "classify", where["acl"], _classify(index, local, uplink)),
        EGRESS_ACL: Table(EGRESS_ACL, "egress_acl", where["acl"], _acl(index, local, "egress")),
        METER: Table(METER, "meter", where["acl"], _meters(local)),
        L3_TX: Table(L3_TX, "l3_tx", where["acl"], _l3_tx(index, local, uplink, server.name)),
        L3_RX: Table(L3_RX, "l3_rx", where["acl"], _l3_rx(local)),
        ENCAP: Table(ENCAP, "encap", where["crypto"], _encap(index, uplink)),
        INGRESS_ACL: Table(INGRESS_ACL, "ingress_acl", where["acl"], _acl(index, local, "ingress")),
    }
    ports = (*server.uplinks, "pf0hpf", *(r.port for r in local))
    return Pipeline(server.name, server.mode, server.vtep_ip, uplink, owner, tables, ports)


def _sorted(entries: list[Entry]) -> tuple[Entry, ...]:
    return tuple(sorted(entries, key=lambda e: -e.priority))


def _classify(index: PolicyIndex, local: list[VmRef], uplink: str) -> tuple[Entry, ...]:
    entries: list[Entry] = []
    for ref in local:
        set_meta = Action("set", vni=ref.vpc.vni, src_vm=ref.key)
        entries.append(
            Entry(
                200,
                Match(in_port=ref.port, src=(ref.ip, ref.ip)),
                (set_meta, Action("goto", EGRESS_ACL)),
                f"port security {ref.key}",
            )
        )
        entries.append(
            Entry(
                100,
                Match(in_port=ref.port),
                (Action("drop", reason="anti-spoof: source IP is not the VM's"),),
                f"port security {ref.key}",
            )
        )
    for key, (_, vpc) in sorted(index.vpcs.items()):
        ipsec = vpc.encryption == "required"
        acts = (Action("decap", ipsec=ipsec), Action("set", vni=vpc.vni), Action("goto", L3_RX))
        entries.append(Entry(150, Match(in_port=uplink, vni=vpc.vni), acts, f"overlay {key} vni {vpc.vni}"))
    entries.append(Entry(0, Match(), (Action("drop", reason="unknown port or VNI"),), "default"))
    return _sorted(entries)


def _acl(index: PolicyIndex, local: list[VmRef], direction: str) -> tuple[Entry, ...]:
    egress = direction == "egress"
    entries: list[Entry] = []
    for ref in local:
        base = Match(src_vm=ref.key) if egress else Match(dst_vm=ref.key)
        allow = Action("goto", METER) if egress else Action("output", port=ref.port)
        # stateful groups: replies of a connection the other side was allowed to open pass
        reply = replace(base, established=True)
        entries.append(Entry(60000, reply, (allow,), "conntrack: reply of an allowed connection"))
        for i, (origin, rule) in enumerate(index.rules(ref, direction)):
            remote = prefix_range(rule.remote)
            match = replace(
                base,
                established=False,
                protocols=protocols_of(rule.protocol, rule.ports),
                ports=rule.ports,
                dst=remote if egress else base.dst,
                src=base.src if egress else remote,
            )
            act = allow if rule.action == "allow" else Action("drop", reason=f"{direction} rule denies")
            entries.append(Entry(50000 - i, match, (act,), origin))
        default = index.default(ref, direction)
        act = allow if default == "allow" else Action("drop", reason=f"{direction} default deny")
        entries.append(Entry(1, base, (act,), f"{ref.key} default {direction} {default}"))
    entries.append(Entry(0, Match(), (Action("drop", reason="no VM"),), "default"))
    return _sorted(entries)


def _meters(local: list[VmRef]) -> tuple[Entry, ...]:
    entries = [
        Entry(
            100,
            Match(src_vm=r.key),
            (Action("meter", rate_bps=r.vm.rate_limit_bps), Action("goto", L3_TX)),
            f"rate limit {r.key}",
        )
        for r in local
        if r.vm.rate_limit_bps is not None
    ]
    entries.append(Entry(0, Match(), (Action("goto", L3_TX),), "no meter"))
    return _sorted(entries)


def _l3_tx(index: PolicyIndex, local: list[VmRef], uplink: str, local_server: str) -> tuple[Entry, ...]:
    entries: list[Entry] = []
    for vpc_key in sorted({f"{r.tenant.name}/{r.vpc.name}" for r in local}):
        vpc = index.vpcs[vpc_key][1]
        for routed in (vpc_key, *index.peers_of(vpc_key)):
            routed_vpc = index.vpcs[routed][1]
            kind = "route" if routed == vpc_key else f"peering {vpc_key} -> {routed}"
            for dst in index.vms_in(routed):
                entries.append(_route_to(index, vpc.vni, dst, local_server, f"{kind}: {dst.key}"))
            drop = Action("drop", reason=f"no VM at this address in {routed}")
            entries.append(
                Entry(
                    100,
                    Match(vni=vpc.vni, dst=prefix_range(routed_vpc.cidr)),
                    (drop,),
                    f"{kind} prefix {routed_vpc.cidr}",
                )
            )
        if vpc.internet:
            gateway = (Action("gateway", port=uplink),)
            entries.append(
                Entry(10, Match(vni=vpc.vni), gateway, f"{vpc_key} default route to the provider gateway")
            )
    entries.append(Entry(0, Match(), (Action("drop", reason="no route"),), "default"))
    return _sorted(entries)


def _route_to(index: PolicyIndex, vni: int, dst: VmRef, local_server: str, origin: str) -> Entry:
    match = Match(vni=vni, dst=(dst.ip, dst.ip))
    if dst.vm.server == local_server:
        # same server: the eswitch hairpins VF to VF without leaving the card
        return Entry(200, match, (Action("set", vni=dst.vpc.vni), Action("goto", L3_RX)), origin + " (local)")
    server = index.servers[dst.vm.server]
    tunnel = Action("set", vni=dst.vpc.vni, dst_vm=dst.key, tunnel_dst=server.vtep_ip)
    return Entry(200, match, (tunnel, Action("goto", ENCAP)), origin)


def _l3_rx(local: list[VmRef]) -> tuple[Entry, ...]:
    entries = [
        Entry(
            200,
            Match(vni=r.vpc.vni, dst=(r.ip, r.ip)),
            (Action("set", dst_vm=r.key), Action("goto", INGRESS_ACL)),
            f"deliver {r.key}",
        )
        for r in local
    ]
    entries.append(
        Entry(0, Match(), (Action("drop", reason="no local VM for this VNI and address"),), "default")
    )
    return _sorted(entries)


def _encap(index: PolicyIndex, uplink: str) -> tuple[Entry, ...]:
    entries: list[Entry] = []
    for key, (_, vpc) in sorted(index.vpcs.items()):
        ipsec = vpc.encryption == "required"
        acts = (Action("encap", vni=vpc.vni, ipsec=ipsec), Action("output", port=uplink))
        entries.append(Entry(100, Match(vni=vpc.vni), acts, f"overlay {key} vni {vpc.vni}"))
    entries.append(Entry(0, Match(), (Action("drop", reason="no tunnel"),), "default"))
    return _sorted(entries)
