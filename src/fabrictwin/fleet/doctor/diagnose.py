"""Run every rule over a host's views and order the findings."""

from __future__ import annotations

from dataclasses import dataclass

from fabrictwin.fleet.doctor.facts import MODE_PARAM, Facts
from fabrictwin.fleet.doctor.rules import RULES, Finding, installer, no_netdev
from fabrictwin.fleet.doctor.views import Views


@dataclass(frozen=True)
class Diagnosis:
    """Findings most likely cause first, plus the state summary the decision table starts from."""

    source: str
    summary: tuple[str, ...]
    findings: tuple[Finding, ...]
    missing: tuple[str, ...]
    """Views that could not be read (their rules could not fire)."""

    @property
    def first(self) -> Finding | None:
        return self.findings[0] if self.findings else None


def diagnose(views: Views, expected_mode: str | None = None) -> Diagnosis:
    """Findings for one host, ordered by rank (see :mod:`.rules` for why this order)."""
    facts = Facts(views, expected_mode)
    found = [f for f in (rule(facts) for rule in RULES) if f is not None]
    found += installer(facts)
    if not any(f.kind in ("fault", "config") for f in found):
        # the bare symptom is reported only when no cause above explains it
        bare = no_netdev(facts)
        if bare is not None:
            found.append(bare)
    found.sort(key=lambda f: (f.rank, f.cause))
    return Diagnosis(views.source, tuple(_summary(facts)), tuple(found), tuple(sorted(views.missing)))


def _summary(f: Facts) -> list[str]:
    lines: list[str] = []
    mode, nxt = f.mode(), f.mode("next_boot")
    if mode:
        staged = f" (next boot: {nxt})" if nxt and nxt != mode and MODE_PARAM in f.nv else ""
        lines.append(
            f"mode: {mode}{staged}" + (f"; Redfish Mode {f.oem['Mode']}" if f.oem.get("Mode") else "")
        )
    if f.arm_state:
        lines.append(f"Arm (BMC BootProgress): {f.arm_state}")
    if f.pfs:
        with_net = [fn for fn in f.pfs if f.netdev_of(fn.bdf)]
        lines.append(f"host PFs: {len(f.pfs)}, with a netdev: {len(with_net)}")
    if mode == "nic":
        lines.append(
            "NIC mode: an unreachable Arm is expected (parked in UEFI); only missing host "
            "interfaces are a fault"
        )
    return lines
