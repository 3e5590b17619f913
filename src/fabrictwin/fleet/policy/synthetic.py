"""A seeded synthetic multi-tenant policy: the scale case of ``policy check`` (tests and bench).

Four tenants, each one VPC ``10.<t+1>.0.0/16`` (VNI 1000 + t) with three security groups of five
rules (three random TCP allow ranges from the own prefix, one UDP deny for a /24, one egress deny
of SMTP port 25): 60 rules, and six VMs per tenant spread over six zero-trust servers. Even
tenants peer with the next; tenant-0 has internet access. The size meets issue 7's "three or more
tenants and 50 rules" case; nothing about it is taken from a real cloud.
"""

from __future__ import annotations

from typing import Any

import numpy as np

TENANTS = 4
GROUPS_PER_TENANT = 3
VMS_PER_TENANT = 6
SERVERS = 6


def synthetic_policy(seed: int = 7, name: str = "generated") -> dict[str, Any]:
    """The policy document (as a YAML file would load) drawn from ``numpy`` seed ``seed``.

    Returned as a plain dict so callers can add grants or plant mistakes before validating.
    """
    rng = np.random.default_rng(seed)
    servers = [
        {"name": f"gpu-{i:02d}", "zero_trust": True, "vtep_ip": f"192.168.1.{i + 1}"} for i in range(SERVERS)
    ]
    tenants = [_tenant(t, rng) for t in range(TENANTS)]
    return {"name": name, "servers": servers, "tenants": tenants}


def _tenant(t: int, rng: np.random.Generator) -> dict[str, Any]:
    prefix = f"10.{t + 1}"
    groups = [{"name": f"g{g}", "rules": _rules(prefix, g, rng)} for g in range(GROUPS_PER_TENANT)]
    vms = [
        {
            "name": f"vm-{v}",
            "vpc": "main",
            "server": f"gpu-{(t + v) % SERVERS:02d}",
            "ip": f"{prefix}.{v % GROUPS_PER_TENANT}.{10 + v}",
            "vf": t * 8 + v,
            "security_groups": [f"g{v % GROUPS_PER_TENANT}"],
        }
        for v in range(VMS_PER_TENANT)
    ]
    vpc = {
        "name": "main",
        "vni": 1000 + t,
        "cidr": f"{prefix}.0.0/16",
        "peers": [f"tenant-{(t + 1) % TENANTS}/main"] if t % 2 == 0 else [],
        "internet": t == 0,
    }
    return {"name": f"tenant-{t}", "vpcs": [vpc], "security_groups": groups, "vms": vms}


def _rules(prefix: str, group: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    rules: list[dict[str, Any]] = [
        {
            "direction": "ingress",
            "action": "allow",
            "protocol": "tcp",
            "ports": f"{p}-{p + int(rng.integers(0, 50))}",
            "remote": f"{prefix}.0.0/16",
        }
        for p in rng.integers(1000, 30000, size=3)
    ]
    rules.append(
        {
            "direction": "ingress",
            "action": "deny",
            "protocol": "udp",
            "ports": "any",
            "remote": f"{prefix}.{group}.0/24",
        }
    )
    rules.append({"direction": "egress", "action": "deny", "protocol": "tcp", "ports": 25})
    return rules
