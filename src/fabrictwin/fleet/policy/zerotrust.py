"""What host isolation (zero-trust) protects on each server, and what it does not.

Facts from bluefield-operations.md section 2.5 ([S45] mlxprivhost, [S64] BMC
ExternalHostPrivileges/HostRshim) and 2.1/3.2 (NIC mode: the host PF owns the eswitch, no Arm
in the path). The per-privilege sentences are the consequences of each privilege the host keeps.
"""

from __future__ import annotations

from dataclasses import dataclass

from fabrictwin.spec.policy import Server

# privilege -> (protected when revoked, exposure when kept); section 2.5 [S45][S64]
_PRIVILEGES: dict[str, tuple[str, str]] = {
    "fw_update": (
        "host cannot flash NIC firmware (HostPrivFwUpdate Disabled)",
        "host root can flash NIC firmware (flint/mlxfwmanager)",
    ),
    "nv_config": (
        "host cannot change NV config, so cannot stage NIC mode and take the eswitch (HostPrivNv* Disabled)",
        "host root can stage INTERNAL_CPU_OFFLOAD_ENGINE=DISABLED(1), owning the eswitch after a power cycle",
    ),
    "nic_reset": (
        "host cannot reset the NIC (HostPrivNicReset Disabled)",
        "host root can reset the NIC (mlxfwreset), cutting every tenant on the card",
    ),
    "rshim": (
        "host cannot reach the Arm through RShim/tmfifo_net0 (--disable_rshim; applies after a power cycle)",
        "host root can reach the Arm console and push a BFB through /dev/rshim*",
    ),
}

ALWAYS_OPEN: tuple[str, ...] = (
    "a compromised tenant VM keeps every flow its own rules allow (including granted cross-tenant flows)",
    "DMA from the host into its own VFs and memory",
    "physical access, the BlueField BMC, and the platform BMC's NC-SI/SMBus path",
    "a compromised Arm OS / DPU control plane (it writes the pipeline)",
    "side channels between tenants sharing the card",
)
"""Not covered by host isolation on any server (section 2.5, 'Does not protect')."""


@dataclass(frozen=True)
class ServerTrust:
    """The trust picture of one server."""

    server: str
    mode: str
    controlled_by: str
    """``provider`` or ``host``."""
    protects: tuple[str, ...]
    does_not_protect: tuple[str, ...]


def assess(server: Server) -> ServerTrust:
    """Trust picture of one server from its mode and the host privileges it keeps."""
    if server.mode == "nic":
        lost = (
            "NIC mode: the host PF owns the eswitch and every table; the Arm is parked (BF3) and "
            "the provider no longer controls the pipeline, SNAP or encryption on this server",
            *ALWAYS_OPEN,
        )
        return ServerTrust(server.name, "nic", "host", (), lost)
    protects = [
        "the pipeline: the eswitch manager is the Arm (ECPF), so the host cannot install or remove flows",
        "host reads its own PCIe functions only (no port ownership, counters or tracer when restricted)",
    ]
    exposed: list[str] = []
    privileges = server.host_privileges
    for name, (revoked, kept) in _PRIVILEGES.items():
        (exposed if getattr(privileges, name) else protects).append(
            kept if getattr(privileges, name) else revoked
        )
    return ServerTrust(server.name, "dpu", "provider", tuple(protects), (*exposed, *ALWAYS_OPEN))


def kept_privileges(server: Server) -> list[str]:
    """Names of host privileges not revoked (empty for a fully restricted host)."""
    return [name for name in _PRIVILEGES if getattr(server.host_privileges, name)]
