"""Security-group rule anomalies, decided exactly over atoms of (remote prefix, protocol, port).

Classes after Al-Shaer & Hamed ("Firewall policy advisor", IEEE IM 2003), for an ordered,
first-match rule list:

- **shadowed**: every packet of rule *i* is taken by earlier rules, some of them with the
  opposite action, so *i* never decides and its intent is silently reversed;
- **redundant**: every packet of rule *i* is taken by earlier rules with the same action
  (harmless, but a sign of copy-paste);
- **conflict** (correlation/generalisation): rule *i* overlaps an earlier rule with the
  opposite action only in part, so the order decides part of its range.

Each VM's effective list (its groups concatenated) is analysed once per distinct group list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fabrictwin.fleet.policy.atoms import Grid
from fabrictwin.fleet.policy.findings import Finding
from fabrictwin.fleet.policy.tables import Match, prefix_range, protocols_of
from fabrictwin.spec.policy import Rule

if TYPE_CHECKING:
    from fabrictwin.fleet.policy.compile import PolicyIndex


def rule_anomalies(index: PolicyIndex) -> list[Finding]:
    """Anomalies of every distinct (tenant, group list, direction) rule list."""
    seen: set[tuple[str, tuple[str, ...], str]] = set()
    out: list[Finding] = []
    for ref in index.vms.values():
        for direction in ("ingress", "egress"):
            key = (ref.tenant.name, tuple(ref.vm.security_groups), direction)
            if key in seen:
                continue
            seen.add(key)
            out += list_anomalies(index.rules(ref, direction))
    return out


def _match(rule: Rule) -> Match:
    # the remote prefix sits on the grid's address axis whatever the direction
    return Match(
        dst=prefix_range(rule.remote), protocols=protocols_of(rule.protocol, rule.ports), ports=rule.ports
    )


def _origins(rules: list[tuple[str, Rule]], which: list[int]) -> str:
    """The origins of rules ``which``, joined for a message."""
    return "; ".join(rules[j][0] for j in which)


def list_anomalies(rules: list[tuple[str, Rule]]) -> list[Finding]:
    """Anomalies of one ordered rule list given as ``(origin, rule)`` pairs."""
    if not rules:
        return []
    matches = [_match(rule) for _, rule in rules]
    grid = Grid.of(matches)
    masks = [grid.mask(m) for m in matches]
    out: list[Finding] = []
    covered = grid.full() & False
    for i, (origin, rule) in enumerate(rules):
        earlier = [j for j in range(i) if (masks[j] & masks[i]).any()]
        opposite = [j for j in earlier if rules[j][1].action != rule.action]
        if not (masks[i] & ~covered).any():
            if opposite:
                message = f"never decides: taken earlier by {_origins(rules, opposite)} (opposite action)"
                out.append(Finding("warning", "shadowed", origin, message))
            else:
                message = f"never decides: {_origins(rules, earlier)} already {rule.action}s it"
                out.append(Finding("info", "redundant", origin, message))
        elif opposite:
            message = f"partly overlaps {_origins(rules, opposite)} with the opposite action; order decides"
            out.append(Finding("warning", "conflict", origin, message))
        covered = covered | masks[i]
    return out
