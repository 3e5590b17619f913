"""``policy trace`` walks one packet through every table and names the deciding rule."""

from __future__ import annotations

import pytest

from fabrictwin.errors import NotFound, SpecError
from fabrictwin.fleet.policy import compile_policy, trace_packet
from fabrictwin.spec.policy import PolicySpec


def _stages(trace: object) -> list[str]:
    return [h.stage for h in trace.hops]  # type: ignore[attr-defined]


def test_a_granted_packet_crosses_vm_vf_representor_tables_wire_and_back(cloud: PolicySpec) -> None:
    trace = trace_packet(cloud, "vm:tenant-a/web-1", "10.2.0.5:5432/tcp")
    assert trace.outcome == "delivered to tenant-b/db-1"
    stages = _stages(trace)
    expected = [
        "tenant-a/web-1 eth0",
        "VF pf0vf0 (host PCIe function)",
        "representor pf0vf0",
        "table 0 classify",
        "table 10 egress_acl",
        "table 20 meter",
        "table 30 l3_tx",
        "table 40 encap",
        "uplink p0",
        "underlay 192.168.100.1 -> 192.168.100.3",
        "uplink p0",
        "table 0 classify",
        "table 35 l3_rx",
        "table 50 ingress_acl",
        "representor pf0vf0 -> VF",
        "tenant-b/db-1 eth0",
    ]
    assert stages == expected
    acl = trace.hops[13]
    assert acl.rule.startswith("tenant-b/sg:db rule 0") and acl.enforced_at.startswith("eswitch hardware")
    assert trace.reply is not None and trace.reply.outcome == "delivered to tenant-a/web-1"
    assert any(h.rule == "conntrack: reply of an allowed connection" for h in trace.reply.hops)


def test_an_ungranted_port_is_dropped_at_the_receivers_ingress_acl_by_its_default(cloud: PolicySpec) -> None:
    trace = trace_packet(cloud, "tenant-a/web-1", "10.2.0.5:22/tcp")
    assert trace.outcome == "dropped: ingress default deny"
    assert trace.hops[-1].stage == "table 50 ingress_acl" and trace.hops[-1].where == "gpu-03"
    assert trace.reply is None


def test_an_egress_deny_rule_drops_at_the_senders_egress_acl(cloud: PolicySpec) -> None:
    trace = trace_packet(cloud, "tenant-a/web-1", "10.2.0.5:25/tcp")
    assert trace.outcome == "dropped: egress rule denies"
    assert "no outbound mail" in trace.hops[-1].rule


def test_the_same_address_in_another_tenants_vpc_is_unreachable(cloud: PolicySpec) -> None:
    # 10.1.2.20 is tenant-c/nb-2; tenant-a's VPC reuses the prefix but has no VM there
    trace = trace_packet(cloud, "tenant-a/web-1", "10.1.2.20:22/tcp")
    assert trace.outcome == "dropped: no VM at this address in tenant-a/prod"


def test_internet_traffic_leaves_through_the_provider_gateway(cloud: PolicySpec) -> None:
    trace = trace_packet(cloud, "tenant-a/web-1", "8.8.8.8:53/udp")
    assert trace.outcome == "to provider gateway"
    assert trace_packet(cloud, "tenant-b/db-1", "8.8.8.8:53/udp").outcome == "dropped: no route"


def test_vms_on_one_server_are_switched_locally_without_the_wire(cloud: PolicySpec) -> None:
    trace = trace_packet(cloud, "tenant-a/web-1", "10.1.3.1:22/tcp")
    assert trace.outcome == "delivered to tenant-a/trainer-1"
    assert not any(h.where == "wire" for h in trace.hops)


def test_encrypted_vpcs_encapsulate_with_ipsec(cloud: PolicySpec) -> None:
    trace = trace_packet(cloud, "tenant-a/web-1", "10.1.3.2:22/tcp")
    assert any("ipsec" in h.decision for h in trace.hops if h.stage == "table 40 encap")


def test_in_nic_mode_the_host_enforces_and_the_provider_does_not_control(small: PolicySpec) -> None:
    data = small.model_dump()
    data["servers"][0]["mode"] = "nic"
    policy = PolicySpec.model_validate(data)
    trace = trace_packet(policy, "tenant-a/web-1", "10.2.0.5:5432/tcp")
    first_table = next(h for h in trace.hops if h.stage == "table 0 classify")
    assert first_table.enforced_at.startswith("host")
    assert "provider does not control" in trace.hops[2].enforced_at
    assert compile_policy(policy)["s1"].controlled_by == "host"


def test_an_unknown_vm_and_a_malformed_destination_are_deliberate_errors(cloud: PolicySpec) -> None:
    with pytest.raises(NotFound, match="known: tenant-a/trainer-1"):
        trace_packet(cloud, "vm:tenant-a/nope", "10.2.0.5:5432/tcp")
    with pytest.raises(SpecError, match="IP:PORT/PROTO"):
        trace_packet(cloud, "vm:tenant-a/web-1", "10.2.0.5-5432")
    with pytest.raises(SpecError, match="needs a port"):
        trace_packet(cloud, "vm:tenant-a/web-1", "10.2.0.5/tcp")


def test_compiled_pipelines_render_as_flow_text_with_origins(cloud: PolicySpec) -> None:
    text = compile_policy(cloud)["gpu-03"].render()
    assert "table=50,priority=50000,reg_dst_vm=tenant-b/db-1,ct_state=+new,nw_src=10.1.2.0/24" in text
    assert "proto=tcp,tp_dst=5432 actions=output:pf0vf0" in text
    assert compile_policy(cloud)["gpu-03"].render() == text  # deterministic
