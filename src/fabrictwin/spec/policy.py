"""Tenant isolation policy: tenants, VPC overlays, security groups, rate limits, SNAP volumes.

A policy is what a GPU cloud operator authors once for a set of DPU-equipped servers. It is
compiled by :mod:`fabrictwin.fleet.policy` into per-server match-action tables and verified
there. Every cross reference (a VM's VPC, server, security groups; a peering; a grant) is
checked here, so a policy that loads is internally consistent.

Units: rates are bits/s line rates (``*_bps``), sizes bytes; YAML may write ``25Gb/s`` or
``1TiB`` (converted once by the field types of :mod:`fabrictwin.spec.quantity`).
"""

from __future__ import annotations

import ipaddress
from typing import Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from fabrictwin.spec.base import Spec
from fabrictwin.spec.quantity import BitsPerS, Bytes

Protocol = Literal["any", "tcp", "udp", "icmp"]
Name = str

# VXLAN Network Identifier is a 24-bit field (RFC 7348 section 5). VNI 0 is left unused here (a
# design choice, not the RFC's) so an unset VPC register never equals a real VPC.
VNI_MAX = 2**24 - 1
PORT_MAX = 65535
"""TCP/UDP ports are 16-bit fields (RFC 9293 section 3.1, RFC 768)."""


def _ipv4_prefix(field: str, value: str) -> str:
    """The prefix in canonical form. Raises ValueError naming ``field`` for a non-prefix or set host bits."""
    try:
        return str(ipaddress.IPv4Network(value, strict=True))
    except ValueError as exc:
        raise ValueError(f"{field} {value!r} is not an IPv4 prefix with host bits zero: {exc}") from exc


def _parse_ports(value: object) -> tuple[int, int]:
    """``"443"``, ``443``, ``"8000-8100"`` or ``"any"`` -> inclusive (low, high)."""
    if isinstance(value, bool):
        raise ValueError("ports must be a number, 'low-high' or 'any'")
    if isinstance(value, int):
        low = high = value
    elif isinstance(value, str) and value.strip() == "any":
        return (0, PORT_MAX)
    elif isinstance(value, str):
        parts = value.split("-")
        if len(parts) not in (1, 2) or not all(p.strip().isdigit() for p in parts):
            raise ValueError(f"ports {value!r}: write a number, 'low-high' or 'any'")
        low, high = int(parts[0]), int(parts[-1])
    elif isinstance(value, list | tuple) and len(value) == 2:
        low, high = int(value[0]), int(value[1])
    else:
        raise ValueError(f"ports {value!r}: write a number, 'low-high' or 'any'")
    if not 0 <= low <= high <= PORT_MAX:
        raise ValueError(f"ports {value!r}: need 0 <= low <= high <= {PORT_MAX}")
    return (low, high)


class Rule(Spec):
    """One security-group rule. Rules of a group are evaluated in order; the first match decides."""

    direction: Literal["ingress", "egress"]
    """``ingress``: traffic arriving at the VM; ``egress``: traffic the VM sends."""
    action: Literal["allow", "deny"]
    """What a matching packet gets."""
    protocol: Protocol = "any"
    """IP protocol matched; ``any`` matches every protocol."""
    ports: tuple[int, int] = (0, 65535)
    """Destination port range, inclusive (YAML: ``443``, ``"8000-8100"``, ``any``). Ignored for icmp."""
    remote: str = "0.0.0.0/0"
    """Remote IPv4 prefix: the source for ingress rules, the destination for egress rules."""
    comment: str = ""
    """Free text shown by ``policy trace``."""

    @field_validator("ports", mode="before")
    @classmethod
    def _ports(cls, value: object) -> tuple[int, int]:
        return _parse_ports(value)

    @field_validator("remote")
    @classmethod
    def _remote(cls, value: str) -> str:
        return _ipv4_prefix("remote", value)


class SecurityGroup(Spec):
    """A named, ordered list of rules (stateful: replies of an allowed connection pass)."""

    name: Name
    """Group name, unique within its tenant."""
    rules: list[Rule] = []
    """Rules in evaluation order."""
    default_ingress: Literal["allow", "deny"] = "deny"
    """Decision for ingress packets no rule matches (clouds default to deny)."""
    default_egress: Literal["allow", "deny"] = "allow"
    """Decision for egress packets no rule matches (clouds default to allow)."""


class Vpc(Spec):
    """A tenant overlay network carried in VXLAN between servers."""

    name: Name
    """VPC name, unique within its tenant."""
    vni: int = Field(ge=1, le=VNI_MAX)
    """VXLAN network identifier, 24 bits (RFC 7348 section 5), unique in the policy."""
    cidr: str
    """IPv4 prefix of the overlay (tenants may reuse prefixes; the VNI keeps them apart)."""
    encryption: Literal["none", "required"] = "none"
    """``required``: VXLAN between servers is IPsec-encrypted by the DPU crypto engine."""
    internet: bool = False
    """True: destinations outside every routed prefix leave through the provider gateway."""
    peers: list[str] = []
    """Peered VPCs as ``tenant/vpc``: routes both ways (security groups and grants still filter)."""

    @field_validator("cidr")
    @classmethod
    def _cidr(cls, value: str) -> str:
        return _ipv4_prefix("cidr", value)


class Vm(Spec):
    """A tenant VM (or a bare-metal tenant) attached to a server through an SR-IOV VF."""

    name: Name
    """VM name, unique within its tenant."""
    vpc: Name
    """The tenant VPC the VM's interface sits in."""
    server: Name
    """The server (and so the DPU) hosting the VM."""
    ip: str
    """Overlay IPv4 address, inside the VPC prefix."""
    vf: int = Field(ge=0)
    """VF index on the server's PF0 (``pf0vf<N>`` representor on the Arm)."""
    security_groups: list[Name] = []
    """Groups applied in order (their rules are concatenated)."""
    rate_limit_bps: BitsPerS | None = Field(default=None, gt=0)
    """Egress meter in bits/s (YAML ``25Gb/s``); ``None``: line rate."""

    @field_validator("ip")
    @classmethod
    def _ip(cls, value: str) -> str:
        try:
            return str(ipaddress.IPv4Address(value))
        except ValueError as exc:
            raise ValueError(f"ip {value!r} is not an IPv4 address") from exc


class Volume(Spec):
    """A block volume exposed to a VM or bare-metal host by DOCA SNAP on the DPU."""

    name: Name
    """Volume name, unique within its tenant."""
    vm: Name
    """The tenant VM (or bare-metal tenant) the emulated device is given to."""
    size_bytes: Bytes = Field(gt=0)
    """Capacity in bytes (YAML ``1TiB``)."""
    emulation: Literal["nvme", "virtio-blk"] = "nvme"
    """PCIe device type SNAP emulates towards the host."""
    target: str
    """NVMe-oF target ``ip:port`` of the storage back end, reached from the DPU Arm."""
    transport: Literal["rdma", "tcp"] = "rdma"
    """NVMe-oF transport the DPU uses towards the target."""
    encryption: Literal["none", "required"] = "none"
    """``required``: data is encrypted at rest by the DPU (AES-XTS) before it leaves."""


class Tenant(Spec):
    """One customer: its VPCs, groups, VMs and volumes."""

    name: Name
    """Tenant name, unique in the policy."""
    vpcs: list[Vpc]
    """Overlays of the tenant."""
    security_groups: list[SecurityGroup] = []
    """Groups VMs may reference."""
    vms: list[Vm] = []
    """VMs / bare-metal instances."""
    volumes: list[Volume] = []
    """SNAP volumes."""


class HostPrivileges(Spec):
    """Host restrictions set from the Arm (``mlxprivhost``) or the BMC (ExternalHostPrivileges).

    Source: bluefield-operations.md section 2.5 [S45][S64].
    """

    rshim: bool = True
    """Host may use RShim (``/dev/rshim*``, tmfifo) to reach the Arm."""
    fw_update: bool = True
    """Host may flash NIC firmware (HostPrivFwUpdate)."""
    nv_config: bool = True
    """Host may change NV config such as the mode (HostPrivNvGlobal/NvHost/NvInternalCpu)."""
    nic_reset: bool = True
    """Host may reset the NIC (HostPrivNicReset)."""


class Server(Spec):
    """A server with one BlueField; its mode decides who owns the eswitch."""

    name: Name
    """Server host name, unique in the policy."""
    mode: Literal["dpu", "nic"] = "dpu"
    """``dpu``: the Arm owns the eswitch (ECPF); ``nic``: the host PF owns it (section 2.1)."""
    zero_trust: bool = False
    """True when the host is restricted (see ``host_privileges``)."""
    tenant_host: bool = False
    """True when a tenant owns the host OS (bare metal): the host is then as untrusted as a VM."""
    host_privileges: HostPrivileges = HostPrivileges()
    """Privileges the host keeps; with ``zero_trust`` all default to revoked."""
    vtep_ip: str
    """Underlay IPv4 address that terminates VXLAN for this server."""
    uplinks: list[Literal["p0", "p1"]] = ["p0"]
    """Uplink ports cabled to the fabric; traffic leaves on the first."""

    @model_validator(mode="before")
    @classmethod
    def _zero_trust_defaults(cls, data: object) -> object:
        # zero-trust means every host privilege is revoked unless the author keeps one explicitly.
        if isinstance(data, dict) and data.get("zero_trust") and "host_privileges" not in data:
            return {**data, "host_privileges": dict.fromkeys(HostPrivileges.model_fields, False)}
        return data

    @field_validator("vtep_ip")
    @classmethod
    def _vtep(cls, value: str) -> str:
        return str(ipaddress.IPv4Address(value))


class Grant(Spec):
    """A declared cross-tenant flow: the only kind of inter-tenant traffic isolation permits."""

    src: str
    """Source ``tenant/vpc``."""
    dst: str
    """Destination ``tenant/vpc``."""
    protocol: Protocol = "any"
    """Protocol allowed."""
    ports: tuple[int, int] = (0, 65535)
    """Destination port range allowed, inclusive."""

    @field_validator("ports", mode="before")
    @classmethod
    def _ports(cls, value: object) -> tuple[int, int]:
        return _parse_ports(value)


class PolicySpec(Spec):
    """A whole tenant policy for a set of servers."""

    name: Name
    """Policy name (shown in reports and deployed artifacts)."""
    servers: list[Server]
    """Servers the policy is compiled for."""
    tenants: list[Tenant]
    """Tenants."""
    grants: list[Grant] = []
    """Cross-tenant flows the provider permits; everything else between tenants must be dropped."""

    @model_validator(mode="after")
    def _references(self, info: ValidationInfo) -> PolicySpec:
        # fabrictwin.fleet.policy.load defers these to report each at its own YAML line
        if info.context and info.context.get("defer_references"):
            return self
        problems = reference_problems(self)
        if problems:
            path, rule = problems[0]
            raise ValueError(f"{_path_text(path)}: {rule}")
        return self


YamlPath = tuple[str | int, ...]


def _path_text(path: YamlPath) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


def reference_problems(policy: PolicySpec) -> list[tuple[YamlPath, str]]:
    """Broken cross references and duplicates, each with its YAML path from the document root."""
    out = _duplicates(policy)
    servers = {s.name for s in policy.servers}
    vpcs = {f"{t.name}/{v.name}" for t in policy.tenants for v in t.vpcs}
    for ti, tenant in enumerate(policy.tenants):
        out += _tenant_problems(tenant, ("tenants", ti), servers, vpcs)
    taken: dict[tuple[str, int], str] = {}
    for ti, tenant in enumerate(policy.tenants):
        for i, vm in enumerate(tenant.vms):
            key, who = (vm.server, vm.vf), f"{tenant.name}/{vm.name}"
            if key in taken:
                out.append(
                    (("tenants", ti, "vms", i, "vf"), f"VF {vm.vf} on {vm.server} is already {taken[key]}'s")
                )
            taken.setdefault(key, who)
    for gi, grant in enumerate(policy.grants):
        for side in ("src", "dst"):
            if getattr(grant, side) not in vpcs:
                out.append(
                    (
                        ("grants", gi, side),
                        f"{getattr(grant, side)!r} is not a tenant/vpc; known: {sorted(vpcs)}",
                    )
                )
    return out


def _duplicates(policy: PolicySpec) -> list[tuple[YamlPath, str]]:
    out: list[tuple[YamlPath, str]] = []
    out += _dupes(("servers",), [s.name for s in policy.servers], "name")
    out += _dupes(("tenants",), [t.name for t in policy.tenants], "name")
    vnis: dict[int, str] = {}
    for ti, tenant in enumerate(policy.tenants):
        out += _dupes(("tenants", ti, "vpcs"), [v.name for v in tenant.vpcs], "name")
        out += _dupes(("tenants", ti, "security_groups"), [g.name for g in tenant.security_groups], "name")
        out += _dupes(("tenants", ti, "vms"), [v.name for v in tenant.vms], "name")
        out += _dupes(("tenants", ti, "volumes"), [v.name for v in tenant.volumes], "name")
        for vi, vpc in enumerate(tenant.vpcs):
            owner = f"{tenant.name}/{vpc.name}"
            if vpc.vni in vnis:
                out.append(
                    (("tenants", ti, "vpcs", vi, "vni"), f"VNI {vpc.vni} is already used by {vnis[vpc.vni]}")
                )
            vnis.setdefault(vpc.vni, owner)
    return out


def _dupes(at: YamlPath, names: list[str], key: str) -> list[tuple[YamlPath, str]]:
    seen: set[str] = set()
    out: list[tuple[YamlPath, str]] = []
    for i, name in enumerate(names):
        if name in seen:
            out.append(((*at, i, key), f"{name!r} appears twice"))
        seen.add(name)
    return out


def _tenant_problems(
    tenant: Tenant, at: YamlPath, servers: set[str], vpcs: set[str]
) -> list[tuple[YamlPath, str]]:
    out: list[tuple[YamlPath, str]] = []
    own = {v.name: v for v in tenant.vpcs}
    groups = {g.name for g in tenant.security_groups}
    for vi, vpc in enumerate(tenant.vpcs):
        for pi, peer in enumerate(vpc.peers):
            if peer not in vpcs:
                out.append(
                    ((*at, "vpcs", vi, "peers", pi), f"{peer!r} is not a tenant/vpc; known: {sorted(vpcs)}")
                )
    for i, vm in enumerate(tenant.vms):
        where = (*at, "vms", i)
        if vm.vpc not in own:
            out.append(((*where, "vpc"), f"{vm.vpc!r} is not a VPC of {tenant.name}; known: {sorted(own)}"))
        elif ipaddress.IPv4Address(vm.ip) not in ipaddress.IPv4Network(own[vm.vpc].cidr):
            out.append(((*where, "ip"), f"{vm.ip} is outside {vm.vpc} {own[vm.vpc].cidr}"))
        if vm.server not in servers:
            out.append(((*where, "server"), f"{vm.server!r} is not a server; known: {sorted(servers)}"))
        for gi, group in enumerate(vm.security_groups):
            if group not in groups:
                rule = f"{group!r} is not a group of {tenant.name}; known: {sorted(groups)}"
                out.append(((*where, "security_groups", gi), rule))
    vm_names = {v.name for v in tenant.vms}
    for i, vol in enumerate(tenant.volumes):
        if vol.vm not in vm_names:
            out.append(
                (
                    (*at, "volumes", i, "vm"),
                    f"{vol.vm!r} is not a VM of {tenant.name}; known: {sorted(vm_names)}",
                )
            )
    return out
