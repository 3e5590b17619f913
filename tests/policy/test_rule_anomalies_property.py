"""Rule anomalies decided on atoms agree with brute force over a small, fully enumerated space."""

from __future__ import annotations

import ipaddress
import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from fabrictwin.fleet.policy.rules import list_anomalies
from fabrictwin.fleet.policy.tables import Match, Packet, prefix_range, protocols_of
from fabrictwin.spec.policy import Rule

BASE = int(ipaddress.IPv4Address("10.0.0.0"))
# every packet of the universe: 18 addresses (16 inside 10.0.0.0/28 and one on each side),
# 4 protocol classes, ports 0..17 -- rules below only use prefixes inside the /28 and ports
# 0..15, so this universe holds a representative of every atom
ADDRESSES = [BASE - 1, *range(BASE, BASE + 16), BASE + 16]
PORTS = range(18)


@st.composite
def rules(draw: st.DrawFn) -> Rule:
    length = draw(st.integers(28, 32))
    offset = draw(st.integers(0, 15)) >> (32 - length) << (32 - length)
    low = draw(st.integers(0, 15))
    high = draw(st.integers(low, 15))
    return Rule(
        direction="ingress",
        action=draw(st.sampled_from(["allow", "deny"])),
        protocol=draw(st.sampled_from(["any", "tcp", "udp", "icmp"])),
        ports=(low, high) if draw(st.booleans()) else (0, 65535),
        remote=f"{ipaddress.IPv4Address(BASE + offset)}/{length}",
    )


def _matches(rule: Rule, ip: int, proto: str, port: int) -> bool:
    m = Match(
        src=prefix_range(rule.remote), protocols=protocols_of(rule.protocol, rule.ports), ports=rule.ports
    )
    return m.matches(Packet(ip, 0, proto, port))


def _brute(rule_list: list[Rule]) -> dict[int, str]:
    """Per rule: 'shadowed', 'redundant', 'conflict' or '' by enumerating every packet."""
    out: dict[int, str] = {}
    universe = list(itertools.product(ADDRESSES, ("tcp", "udp", "icmp", "other"), PORTS))
    hits = [{p for p in universe if _matches(r, *p)} for r in rule_list]
    for i, rule in enumerate(rule_list):
        earlier = set().union(*hits[:i]) if i else set()
        opposite = [j for j in range(i) if rule_list[j].action != rule.action and hits[j] & hits[i]]
        if hits[i] <= earlier:
            out[i] = "shadowed" if opposite else "redundant"
        else:
            out[i] = "conflict" if opposite else ""
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(rules(), min_size=1, max_size=5))
def test_atom_anomalies_equal_brute_force_enumeration(rule_list: list[Rule]) -> None:
    found = list_anomalies([(f"rule {i}", r) for i, r in enumerate(rule_list)])
    by_rule = {int(f.subject.split()[1]): f.kind for f in found}
    brute = _brute(rule_list)
    assert {i: by_rule.get(i, "") for i in range(len(rule_list))} == brute
