"""Policies shared by the policy tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fabrictwin.fleet.policy import load_policy
from fabrictwin.spec.policy import PolicySpec

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "policy"


@pytest.fixture
def cloud() -> PolicySpec:
    return load_policy(EXAMPLES / "cloud.yaml")


def two_tenants(**overrides: Any) -> dict[str, Any]:
    """A small policy as a dict: tenant-a/web-1 on s1, tenant-b/db-1 on s2, grant a->b tcp/5432."""
    doc: dict[str, Any] = {
        "name": "small",
        "servers": [
            {"name": "s1", "mode": "dpu", "zero_trust": True, "vtep_ip": "192.168.0.1"},
            {"name": "s2", "mode": "dpu", "zero_trust": True, "vtep_ip": "192.168.0.2"},
        ],
        "tenants": [
            {
                "name": "tenant-a",
                "vpcs": [{"name": "v", "vni": 100, "cidr": "10.1.0.0/16", "peers": ["tenant-b/v"]}],
                "vms": [{"name": "web-1", "vpc": "v", "server": "s1", "ip": "10.1.0.10", "vf": 0}],
            },
            {
                "name": "tenant-b",
                "vpcs": [{"name": "v", "vni": 200, "cidr": "10.2.0.0/16"}],
                "security_groups": [
                    {
                        "name": "db",
                        "rules": [
                            {
                                "direction": "ingress",
                                "action": "allow",
                                "protocol": "tcp",
                                "ports": 5432,
                                "remote": "10.1.0.0/16",
                            },
                        ],
                    }
                ],
                "vms": [
                    {
                        "name": "db-1",
                        "vpc": "v",
                        "server": "s2",
                        "ip": "10.2.0.5",
                        "vf": 0,
                        "security_groups": ["db"],
                    }
                ],
            },
        ],
        "grants": [{"src": "tenant-a/v", "dst": "tenant-b/v", "protocol": "tcp", "ports": 5432}],
    }
    doc.update(overrides)
    return doc


@pytest.fixture
def small() -> PolicySpec:
    return PolicySpec.model_validate(two_tenants())
