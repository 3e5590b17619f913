"""Gate and render a policy for deployment: nothing leaves a policy that fails ``check``.

The deployable artifacts are, per server, the pipeline as ovs-ofctl-style flow text (what an
agent on the DPU Arm would install through OVS-DOCA / DOCA Flow) and the SNAP device plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fabrictwin.errors import Infeasible
from fabrictwin.fleet.policy.compile import PolicyIndex, compile_policy
from fabrictwin.fleet.policy.verify import CheckReport, check_policy
from fabrictwin.spec.policy import PolicySpec
from fabrictwin.units import TiB


@dataclass(frozen=True)
class SnapDevice:
    """One SNAP-emulated block device given to a tenant VM (section 3: SNAP runs on the Arm)."""

    server: str
    volume: str
    vm: str
    function: str
    """Host PCIe function the emulated controller is attached to (the VM's VF)."""
    text: str


def snap_plan(policy: PolicySpec) -> list[SnapDevice]:
    """The emulated NVMe / virtio-blk devices each DPU must expose, in policy order."""
    index = PolicyIndex.of(policy)
    out: list[SnapDevice] = []
    for tenant in policy.tenants:
        for vol in tenant.volumes:
            ref = index.vms[f"{tenant.name}/{vol.vm}"]
            crypto = ", AES-XTS encrypted on the DPU" if vol.encryption == "required" else ""
            text = (
                f"{vol.emulation} controller on {ref.port} -> {ref.key}: {vol.size_bytes / TiB:g} TiB, "
                f"back end NVMe-oF/{vol.transport} {vol.target}{crypto}"
            )
            out.append(SnapDevice(ref.vm.server, f"{tenant.name}/{vol.name}", ref.key, ref.port, text))
    return out


@dataclass(frozen=True)
class Deployment:
    """What :func:`deploy_policy` wrote."""

    report: CheckReport
    files: tuple[Path, ...]


def deploy_policy(policy: PolicySpec, out_dir: Path) -> Deployment:
    """Check ``policy``; only when it passes, write per-server flow and SNAP files to ``out_dir``.

    Raises:
        Infeasible: the check found errors (the message lists them); nothing is written.
    """
    report = check_policy(policy)
    if not report.ok:
        lines = "; ".join(f"{f.kind}: {f.message}" for f in report.errors[:3])
        more = f" (+{len(report.errors) - 3} more)" if len(report.errors) > 3 else ""
        raise Infeasible(
            f"policy {policy.name!r} failed check with {len(report.errors)} error(s), "
            f"nothing deployed: {lines}{more}"
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    snap = snap_plan(policy)
    for name, pipe in compile_policy(policy).items():
        flows = out_dir / f"{name}.flows"
        flows.write_text(pipe.render(), encoding="utf-8")
        files.append(flows)
        devices = [d.text for d in snap if d.server == name]
        if devices:
            snap_file = out_dir / f"{name}.snap.txt"
            snap_file.write_text("\n".join(devices) + "\n", encoding="utf-8")
            files.append(snap_file)
    return Deployment(report, tuple(files))
