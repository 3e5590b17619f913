"""``policy check`` proves isolation exhaustively and finds the path of a leak."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest

from fabrictwin.fleet.policy import check_policy
from fabrictwin.fleet.policy.compile import PolicyIndex, compile_policy
from fabrictwin.fleet.policy.explore import Explorer
from fabrictwin.fleet.policy.synthetic import synthetic_policy
from fabrictwin.fleet.policy.tables import PROTOCOLS, Packet
from fabrictwin.fleet.policy.trace import walk
from fabrictwin.fleet.policy.verify import _explore_vms, _grid
from fabrictwin.spec.policy import PolicySpec

CHECK_BUDGET_S = 1.0
"""Issue 7 'done when': a policy with >= 3 tenants and 50 rules verifies in under 1 s."""


def big_policy(seed: int = 7) -> dict[str, Any]:
    """4 tenants x 3 groups x 5 rules (60 rules), 24 VMs on 6 servers, peerings and grants."""
    doc = synthetic_policy(seed, name="big")
    tenants = doc["tenants"]
    # tenant-1 group g0 admits tenant-0 on 5432 only; that is what the grant declares
    tenants[1]["security_groups"][0]["rules"].insert(
        0,
        {
            "direction": "ingress",
            "action": "allow",
            "protocol": "tcp",
            "ports": 5432,
            "remote": "10.1.0.0/16",
        },
    )
    grants = [{"src": "tenant-0/main", "dst": "tenant-1/main", "protocol": "tcp", "ports": 5432}]
    return {**doc, "grants": grants}


def test_the_example_cloud_passes_with_only_warnings(cloud: PolicySpec) -> None:
    report = check_policy(cloud)
    assert report.ok, [f.message for f in report.errors]
    assert {r.dst for r in report.reach} == {"tenant-b/db-1", "tenant-b/etl-1"}
    assert all(r.example.endswith(":5432/tcp") for r in report.reach)


def test_a_policy_of_four_tenants_and_sixty_rules_verifies_within_one_second() -> None:
    policy = PolicySpec.model_validate(big_policy())
    rules = sum(len(g.rules) for t in policy.tenants for g in t.security_groups)
    assert len(policy.tenants) >= 3 and rules >= 50
    check_policy(policy)  # warm caches and imports, as a long-running service would be
    start = time.perf_counter()
    report = check_policy(policy)
    elapsed = time.perf_counter() - start
    assert elapsed < CHECK_BUDGET_S, elapsed
    assert report.ok, [f.message for f in report.errors]
    assert any(r.src.startswith("tenant-0/") and r.dst.startswith("tenant-1/") for r in report.reach)


def test_one_wrong_rule_is_found_as_a_leak_with_the_path_that_leaks() -> None:
    doc = big_policy()
    # the mistake: the tenant-0 exception is written for every port instead of 5432
    doc["tenants"][1]["security_groups"][0]["rules"][0]["ports"] = "any"
    report = check_policy(PolicySpec.model_validate(doc))
    assert not report.ok
    leaks = [f for f in report.errors if f.kind == "leak"]
    assert leaks and all(f.subject.startswith("tenant-0/") and "-> tenant-1/" in f.subject for f in leaks)
    path = leaks[0].path
    assert any("tenant-1/sg:g0 rule 0 (allow ingress tcp from 10.1.0.0/16)" in step for step in path)
    assert any(step.startswith("wire vni 1001") or "(local)" in step for step in path)
    assert "no grant covers it" in leaks[0].message and "/tcp" in leaks[0].message


def test_a_peering_without_any_grant_leaks_through_an_open_ingress_rule(small: PolicySpec) -> None:
    data = small.model_dump()
    data["grants"] = []
    report = check_policy(PolicySpec.model_validate(data))
    leak = next(f for f in report.errors if f.kind == "leak")
    assert leak.subject == "tenant-a/web-1 -> tenant-b/db-1"
    assert "10.1.0.10 -> 10.2.0.5:5432/tcp" in leak.message


def test_a_grant_wider_than_the_rules_is_not_a_leak_and_a_grant_nothing_uses_is_flagged(
    small: PolicySpec,
) -> None:
    data = small.model_dump()
    data["grants"] = [{"src": "tenant-b/v", "dst": "tenant-a/v", "protocol": "any", "ports": [0, 65535]}]
    report = check_policy(PolicySpec.model_validate(data))
    kinds = {f.kind for f in report.findings}
    assert "leak" in kinds  # a -> b on 5432 is no longer granted
    assert "unused-grant" in kinds  # b -> a: tenant-a's default ingress deny drops it


def test_a_tenant_vm_on_a_nic_mode_server_fails_as_unenforced_and_can_inject(small: PolicySpec) -> None:
    data = small.model_dump()
    data["servers"][0]["mode"] = "nic"
    report = check_policy(PolicySpec.model_validate(data))
    kinds = {(f.severity, f.kind) for f in report.findings}
    assert ("error", "unenforced") in kinds
    inj = next(f for f in report.findings if f.kind == "injection")
    assert inj.severity == "error" and "tenant-b/db-1" in inj.message and "vni 200" in inj.message
    assert report.servers[0].controlled_by == "host" and report.servers[0].protects == ()


def test_encryption_closes_the_injection_path_from_a_nic_mode_host(small: PolicySpec) -> None:
    data = small.model_dump()
    data["servers"][0]["mode"] = "nic"
    data["tenants"][1]["vpcs"][0]["encryption"] = "required"
    report = check_policy(PolicySpec.model_validate(data))
    assert not any(f.kind == "injection" for f in report.findings)


def test_shadowed_redundant_and_conflicting_rules_are_classified(small: PolicySpec) -> None:
    data = small.model_dump()
    data["tenants"][1]["security_groups"][0]["rules"] = [
        {
            "direction": "ingress",
            "action": "allow",
            "protocol": "tcp",
            "ports": [5000, 6000],
            "remote": "10.0.0.0/8",
        },
        {
            "direction": "ingress",
            "action": "deny",
            "protocol": "tcp",
            "ports": [5432, 5432],
            "remote": "10.1.0.0/16",
        },
        {
            "direction": "ingress",
            "action": "allow",
            "protocol": "tcp",
            "ports": [5100, 5200],
            "remote": "10.1.0.0/16",
        },
        {
            "direction": "ingress",
            "action": "deny",
            "protocol": "any",
            "ports": [0, 65535],
            "remote": "10.1.0.0/16",
        },
    ]
    report = check_policy(PolicySpec.model_validate(data))
    by_kind = {(f.kind, f.subject.split(" (")[0]) for f in report.findings}
    assert ("shadowed", "tenant-b/sg:db rule 1") in by_kind
    assert ("redundant", "tenant-b/sg:db rule 2") in by_kind
    assert ("conflict", "tenant-b/sg:db rule 3") in by_kind


def test_a_server_whose_host_keeps_privileges_is_warned_about(small: PolicySpec) -> None:
    data = small.model_dump()
    data["servers"][1]["zero_trust"] = False
    data["servers"][1]["host_privileges"] = {
        "rshim": True,
        "fw_update": False,
        "nv_config": True,
        "nic_reset": False,
    }
    report = check_policy(PolicySpec.model_validate(data))
    warn = next(f for f in report.findings if f.kind == "host-privilege")
    assert warn.subject == "s2" and "nv_config, rshim" in warn.message
    trust = next(s for s in report.servers if s.server == "s2")
    assert any("stage INTERNAL_CPU_OFFLOAD_ENGINE" in line for line in trust.does_not_protect)


def test_snap_volumes_on_nic_mode_servers_fail_the_check(small: PolicySpec) -> None:
    data = small.model_dump()
    data["servers"][1]["mode"] = "nic"
    data["tenants"][1]["volumes"] = [
        {"name": "pg", "vm": "db-1", "size_bytes": 2**40, "target": "192.168.9.1:4420"}
    ]
    report = check_policy(PolicySpec.model_validate(data))
    assert any(f.kind == "snap" and f.severity == "error" for f in report.findings)


@pytest.mark.parametrize("seed", [1, 2])
def test_the_symbolic_check_agrees_with_concrete_traces_on_random_packets(seed: int) -> None:
    policy = PolicySpec.model_validate(big_policy(seed))
    index, pipes = PolicyIndex.of(policy), compile_policy(policy)
    grid = _grid(policy, pipes)
    explorer = Explorer(grid, pipes, [])
    _explore_vms(index, pipes, explorer)
    rng = np.random.default_rng(seed)
    vm_ips = [int(r.ip) for r in index.vms.values()]
    refs = list(index.vms.values())
    for _ in range(400):
        src = refs[int(rng.integers(len(refs)))]
        dst_ip = int(rng.choice(vm_ips)) if rng.random() < 0.8 else int(rng.integers(0, 2**32))
        proto = PROTOCOLS[int(rng.integers(4))]
        port = int(rng.choice([22, 25, 443, 5432, int(rng.integers(0, 65536))]))
        concrete = walk(index, pipes, src, Packet(src.ip, dst_ip, proto, port))
        d = int(np.searchsorted(grid.dst_starts, dst_ip, side="right") - 1)
        q = int(np.searchsorted(grid.port_starts, port, side="right") - 1)
        hits = {
            x.dst for x in explorer.deliveries if x.src == src.key and x.region[d, PROTOCOLS.index(proto), q]
        }
        if concrete.delivered_to is not None:
            assert hits == {concrete.delivered_to}, concrete.outcome
        elif concrete.outcome == "to provider gateway":
            assert hits == {None}
        else:
            assert hits == set(), concrete.outcome


def test_a_bare_metal_tenant_host_that_keeps_privileges_fails_the_check(small: PolicySpec) -> None:
    data = small.model_dump()
    data["servers"][1].update(zero_trust=False, tenant_host=True)
    data["servers"][1]["host_privileges"] = {
        "rshim": False,
        "fw_update": False,
        "nv_config": True,
        "nic_reset": False,
    }
    report = check_policy(PolicySpec.model_validate(data))
    err = next(f for f in report.errors if f.kind == "host-privilege")
    assert err.subject == "s2" and "nv_config" in err.message and "belongs to a tenant" in err.message
    data["servers"][1]["host_privileges"]["nv_config"] = False
    assert check_policy(PolicySpec.model_validate(data)).ok
