"""``policy check``: prove tenant isolation over the compiled tables, find rule anomalies.

Isolation property: for every VM ``s`` and every VM ``d`` of another tenant, the set of new
connections ``s`` can open that the deployed pipelines deliver to ``d`` is contained in the
grants from ``s``'s VPC to ``d``'s VPC. It is decided exactly over header-space atoms
(:mod:`.atoms`) by walking every region through the real tables (:mod:`.explore`): inner
source addresses are walked atom by atom too, so a missing anti-spoof entry would show.
A counterexample is reported with a concrete packet and the entries it crossed.

Also reported: VMs on NIC-mode servers (the host owns the tables: nothing can be proven),
VXLAN injection from hosts that own their eswitch into unencrypted VNIs, shadowed / redundant
/ conflicting security-group rules (Al-Shaer & Hamed, "Firewall policy advisor", IEEE IM 2003,
anomaly classes), grants no path realises, SNAP volumes that need DPU mode.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fabrictwin.fleet.policy.atoms import Grid, atom_starts
from fabrictwin.fleet.policy.compile import CLASSIFY, PolicyIndex, VmRef, compile_policy
from fabrictwin.fleet.policy.explore import Delivery, Explorer
from fabrictwin.fleet.policy.findings import Finding, Severity
from fabrictwin.fleet.policy.rules import rule_anomalies
from fabrictwin.fleet.policy.tables import IP_SPACE, Match, Packet, Pipeline, ip_str, protocols_of
from fabrictwin.fleet.policy.zerotrust import ServerTrust, assess, kept_privileges
from fabrictwin.spec.policy import PolicySpec


@dataclass(frozen=True)
class Reach:
    """A cross-tenant flow class the tables deliver and a grant covers."""

    src: str
    dst: str
    example: str
    classes: int


@dataclass(frozen=True)
class CheckReport:
    """Everything ``policy check`` found."""

    policy: str
    findings: tuple[Finding, ...]
    servers: tuple[ServerTrust, ...]
    reach: tuple[Reach, ...]
    header_classes: int
    """Atoms of the (destination, protocol, port) grid each source was analysed over."""
    walks: int
    """Symbolic walks run (source VM x source-address atom, plus injection walks)."""

    @property
    def ok(self) -> bool:
        return not any(f.severity == "error" for f in self.findings)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]


def check_policy(policy: PolicySpec) -> CheckReport:
    """Verify a policy; pure and deterministic (same policy, same report)."""
    index = PolicyIndex.of(policy)
    pipelines = compile_policy(policy)
    grid = _grid(policy, pipelines)
    explorer = Explorer(grid, pipelines, [])
    walks = _explore_vms(index, pipelines, explorer)
    findings: list[Finding] = []
    reach = _isolation(index, grid, explorer.deliveries, findings)
    walks += _injection(index, pipelines, grid, findings)
    findings += _unused_grants(index, grid, explorer.deliveries)
    findings += _structural(index)
    findings += rule_anomalies(index)
    servers = tuple(assess(s) for s in policy.servers)
    order = {"error": 0, "warning": 1, "info": 2}
    findings.sort(key=lambda f: (order[f.severity], f.kind, f.subject))
    return CheckReport(policy.name, tuple(findings), servers, tuple(reach), int(np.prod(grid.shape)), walks)


def _grid(policy: PolicySpec, pipelines: dict[str, Pipeline]) -> Grid:
    matches = [e.match for p in pipelines.values() for t in p.tables.values() for e in t.entries]
    matches += [Match(protocols=protocols_of(g.protocol, g.ports), ports=g.ports) for g in policy.grants]
    return Grid.of(matches)


def _src_atoms(pipelines: dict[str, Pipeline]) -> list[int]:
    ranges = [e.match.src for p in pipelines.values() for t in p.tables.values() for e in t.entries]
    return [int(x) for x in atom_starts(ranges, IP_SPACE)]


def _explore_vms(index: PolicyIndex, pipelines: dict[str, Pipeline], explorer: Explorer) -> int:
    """Walk every source-address atom from every VM port of a provider-controlled server."""
    sources = _src_atoms(pipelines)
    walks = 0
    for ref in index.vms.values():
        pipe = pipelines[ref.vm.server]
        if pipe.controlled_by != "provider":
            continue  # the host owns these tables; reported as unenforced instead
        for src_ip in sources:
            explorer.run(ref.key, pipe, Packet(src_ip, 0, "tcp", 0, in_port=ref.port))
            walks += 1
    return walks


def _tenant(key: str) -> str:
    return key.split("/", 1)[0]


def _vpc_key(ref: VmRef) -> str:
    return f"{ref.tenant.name}/{ref.vpc.name}"


def _granted(index: PolicyIndex, grid: Grid, src: str, dst: str) -> np.ndarray:
    allowed = np.zeros(grid.shape, dtype=np.bool_)
    for grant in index.policy.grants:
        if grant.src == src and grant.dst == dst:
            allowed |= grid.proto_port_mask(protocols_of(grant.protocol, grant.ports), grant.ports)
    return allowed


def _isolation(
    index: PolicyIndex, grid: Grid, deliveries: list[Delivery], findings: list[Finding]
) -> list[Reach]:
    reach: list[Reach] = []
    for d in deliveries:
        if d.dst is None or d.dst not in index.vms or _tenant(d.dst) == _tenant(d.src):
            continue
        src, dst = index.vms[d.src], index.vms[d.dst]
        allowed = _granted(index, grid, _vpc_key(src), _vpc_key(dst))
        leak = d.region & ~allowed
        if leak.any():
            ip, proto, port = grid.witness(leak)
            pkt = f"{src.vm.ip} -> {ip_str(ip)}{f':{port}' if proto in ('tcp', 'udp') else ''}/{proto}"
            classes = int(leak.sum())
            msg = f"{d.src} reaches {d.dst} with {pkt} ({classes} header classes) and no grant covers it"
            findings.append(Finding("error", "leak", f"{d.src} -> {d.dst}", msg, d.path))
        ok = d.region & allowed
        if ok.any():
            ip, proto, port = grid.witness(ok)
            reach.append(Reach(d.src, d.dst, f"{ip_str(ip)}:{port}/{proto}", int(ok.sum())))
    return reach


def _injection(
    index: PolicyIndex, pipelines: dict[str, Pipeline], grid: Grid, findings: list[Finding]
) -> int:
    """Hosts that own their eswitch can put any VNI and inner source on the underlay."""
    walks = 0
    sources = _src_atoms(pipelines)
    for rogue in (p for p in pipelines.values() if p.controlled_by == "host"):
        hosted = {_tenant(r.key) for r in index.on_server(rogue.server)}
        explorer = Explorer(grid, pipelines, [])
        for target in (p for p in pipelines.values() if p.controlled_by == "provider"):
            for entry in target.tables[CLASSIFY].entries:
                vni = entry.match.vni
                if vni is None or entry.match.in_port != target.uplink or entry.actions[0].ipsec:
                    continue  # an IPsec VNI needs an SA the rogue host does not hold
                for src_ip in sources:
                    pkt = Packet(src_ip, 0, "tcp", 0, in_port=target.uplink, vni=vni)
                    explorer.run(f"vni {vni}", target, pkt)
                    walks += 1
        for label in sorted({d.src for d in explorer.deliveries}):
            hits = [
                d for d in explorer.deliveries if d.src == label and d.dst and _tenant(d.dst) not in hosted
            ]
            if not hits:
                continue
            vni = int(label.split()[1])
            victims = ", ".join(sorted({str(d.dst) for d in hits}))
            severity: Severity = "error" if hosted else "warning"
            msg = (
                f"host of {rogue.server} ({rogue.mode} mode, owns its eswitch) can inject VXLAN vni {vni} "
                f"without IPsec and reach {victims}; require encryption on "
                f"{index.vpc_key_of_vni(vni)} or keep untrusted hosts off the underlay"
            )
            findings.append(Finding(severity, "injection", f"{rogue.server} -> {label}", msg, hits[0].path))
    return walks


def _unused_grants(index: PolicyIndex, grid: Grid, deliveries: list[Delivery]) -> list[Finding]:
    out: list[Finding] = []
    for i, grant in enumerate(index.policy.grants):
        allowed = _granted(index, grid, grant.src, grant.dst)
        realised = any(
            d.dst in index.vms
            and _vpc_key(index.vms[d.src]) == grant.src
            and _vpc_key(index.vms[d.dst]) == grant.dst
            and (d.region & allowed).any()
            for d in deliveries
            if d.dst is not None
        )
        if not realised:
            msg = f"grants[{i}] {grant.src} -> {grant.dst} is realised by no path (routing or rules drop it)"
            out.append(Finding("warning", "unused-grant", f"grants[{i}]", msg))
    return out


def _structural(index: PolicyIndex) -> list[Finding]:
    out: list[Finding] = []
    for ref in index.vms.values():
        server = index.servers[ref.vm.server]
        if server.mode == "nic":
            msg = (
                f"{ref.key} runs on {server.name} in NIC mode: the host owns the eswitch, so isolation, "
                "rate limits and encryption are the host's, not the provider's"
            )
            out.append(Finding("error", "unenforced", ref.key, msg))
    for server in index.policy.servers:
        tenants = sorted({_tenant(r.key) for r in index.on_server(server.name)})
        if server.mode == "dpu" and tenants and kept_privileges(server):
            kept = ", ".join(kept_privileges(server))
            names = ", ".join(tenants)
            msg = f"{server.name} hosts {names}; the host keeps privileges: {kept} (not zero-trust)"
            # a bare-metal tenant owns the host, so a kept privilege is a path out of isolation
            severity: Severity = "error" if server.tenant_host else "warning"
            if server.tenant_host:
                msg += "; the host belongs to a tenant, who can use them to take the card"
            out.append(Finding(severity, "host-privilege", server.name, msg))
    for tenant in index.policy.tenants:
        for vol in tenant.volumes:
            server = index.servers[index.vms[f"{tenant.name}/{vol.vm}"].vm.server]
            if server.mode == "nic":
                vol_key = f"{tenant.name}/{vol.name}"
                msg = f"volume {vol_key}: SNAP runs on the DPU Arm; {server.name} is in NIC mode"
                out.append(Finding("error", "snap", f"{tenant.name}/{vol.name}", msg))
    return out
