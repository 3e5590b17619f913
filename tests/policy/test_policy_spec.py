"""Bad policy files are refused with file, line and YAML path."""

from __future__ import annotations

import pytest

from fabrictwin.errors import SpecError
from fabrictwin.fleet.policy import load_policy

GOOD = """\
name: p
servers:
  - {name: s1, vtep_ip: 192.168.0.1}
tenants:
  - name: a
    vpcs: [{name: v, vni: 10, cidr: 10.0.0.0/16}]
    security_groups: [{name: g, rules: []}]
    vms:
      - {name: m, vpc: v, server: s1, ip: 10.0.0.1, vf: 0, security_groups: [g]}
"""


def _error(text: str) -> SpecError:
    with pytest.raises(SpecError) as info:
        load_policy("p.yaml", text=text)
    return info.value


def test_a_good_policy_loads_with_units_converted() -> None:
    policy = load_policy("p.yaml", text=GOOD.replace("vf: 0,", "vf: 0, rate_limit_bps: 10Gb/s,"))
    assert policy.tenants[0].vms[0].rate_limit_bps == 10e9


def test_an_unknown_key_names_file_line_and_path() -> None:
    err = _error(GOOD.replace("vf: 0,", "vff: 0,"))
    assert err.file == "p.yaml" and err.line == 9
    assert "tenants[0].vms[0]" in err.path and "vff" in str(err)


def test_a_vm_in_an_unknown_vpc_is_located_at_its_vpc_key() -> None:
    err = _error(GOOD.replace("vpc: v,", "vpc: w,"))
    assert (err.line, err.path) == (9, "tenants[0].vms[0].vpc")
    assert "'w' is not a VPC of a" in str(err)


def test_a_vm_address_outside_its_vpc_is_refused() -> None:
    err = _error(GOOD.replace("ip: 10.0.0.1", "ip: 10.9.0.1"))
    assert err.path == "tenants[0].vms[0].ip" and "outside v 10.0.0.0/16" in str(err)


def test_an_unknown_server_and_group_are_both_listed() -> None:
    err = _error(
        GOOD.replace("server: s1", "server: s9").replace("security_groups: [g]}", "security_groups: [h]}")
    )
    assert "'s9' is not a server" in str(err) and "'h' is not a group of a" in str(err)


def test_a_vni_beyond_24_bits_is_refused() -> None:
    err = _error(GOOD.replace("vni: 10", "vni: 16777216"))
    assert err.path == "tenants[0].vpcs[0].vni" and err.line == 6


def test_a_prefix_with_host_bits_is_refused() -> None:
    err = _error(GOOD.replace("cidr: 10.0.0.0/16", "cidr: 10.0.0.1/16"))
    assert "tenants[0].vpcs[0].cidr" in err.path


def test_a_reversed_port_range_is_refused() -> None:
    rules = "rules: [{direction: ingress, action: allow, protocol: tcp, ports: 90-80}]"
    err = _error(GOOD.replace("rules: []", rules))
    assert "tenants[0].security_groups[0].rules[0].ports" in err.path


def test_two_vms_on_one_vf_of_a_server_are_refused() -> None:
    text = GOOD + "      - {name: n, vpc: v, server: s1, ip: 10.0.0.2, vf: 0}\n"
    err = _error(text)
    assert (err.path, err.line) == ("tenants[0].vms[1].vf", 10)


def test_a_duplicate_vni_across_tenants_is_refused() -> None:
    text = GOOD + "  - name: b\n    vpcs: [{name: w, vni: 10, cidr: 10.0.0.0/16}]\n"
    err = _error(text)
    assert err.path == "tenants[1].vpcs[0].vni" and "already used by a/v" in str(err)


def test_a_grant_to_an_unknown_vpc_is_refused() -> None:
    err = _error(GOOD + "grants: [{src: a/v, dst: b/x}]\n")
    assert err.path == "grants[0].dst"


def test_a_policy_built_in_python_is_checked_too() -> None:
    from fabrictwin.spec.policy import PolicySpec

    with pytest.raises(ValueError, match=r"tenants\[0\]\.vms\[0\]\.server"):
        PolicySpec.model_validate(
            {
                "name": "p",
                "servers": [{"name": "s1", "vtep_ip": "192.168.0.1"}],
                "tenants": [
                    {
                        "name": "a",
                        "vpcs": [{"name": "v", "vni": 1, "cidr": "10.0.0.0/8"}],
                        "vms": [{"name": "m", "vpc": "v", "server": "zz", "ip": "10.0.0.1", "vf": 0}],
                    }
                ],
            }
        )


def test_zero_trust_revokes_every_host_privilege_unless_kept() -> None:
    policy = load_policy("p.yaml", text=GOOD.replace("{name: s1,", "{name: s1, zero_trust: true,"))
    assert not any(policy.servers[0].host_privileges.model_dump().values())
