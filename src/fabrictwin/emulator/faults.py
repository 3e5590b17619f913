"""Injecting and clearing the faults of section 7.6 on a device, and drawing fleet priors.

Most faults are flags the workflows consult when they run (``Device.has``); the ones below
change state at the moment they are injected, because that is what the fault *is*: a host
that grabbed RShim, a config reset that was already done, a port set to InfiniBand.
"""

from __future__ import annotations

import numpy as np

from fabrictwin.emulator import nvconfig
from fabrictwin.emulator.device import Device
from fabrictwin.errors import SpecError
from fabrictwin.spec.faults import FAULT_KINDS, Fault, FaultPlan


def inject(dev: Device, fault: Fault) -> None:
    """Activate ``fault`` on ``dev`` from now on (replaces one of the same kind)."""
    dev.faults[fault.kind] = fault
    dev.fault_since[fault.kind] = dev.clock.now
    dev.log(f"fault {fault.kind} injected")
    _apply_now(dev, fault)


def _apply_now(dev: Device, fault: Fault) -> None:
    kind, gen = fault.kind, dev.ident.generation
    if kind == "rshim_owned_by_host":
        dev.rshim_owner = "host"
        dev.bmc_rshim = "Disabled"
    elif kind == "rshim_owned_by_bmc":
        dev.rshim_owner = "bmc"
        dev.bmc_rshim = "Enabled"
    elif kind == "mode_revert_on_config_reset":
        dev.mlxconfig_reset()
    elif kind == "inconsistent_bf2_tuple":
        # Some parameters ECPF, some EXT_HOST_PF (2.6 row 4) [S58].
        dev.nv_current.update(INTERNAL_CPU_PAGE_SUPPLIER=1, INTERNAL_CPU_ESWITCH_MANAGER=0)
        dev.nv_next = dict(dev.nv_current)
    elif kind == "link_type_ib":
        for nv in (dev.nv_current, dev.nv_next):
            nv.update(LINK_TYPE_P1=1, LINK_TYPE_P2=1)
    elif kind == "sel_flood":
        for i in range(fault.count or 0):
            dev.sel_add("Warning", f"SEL entry {i}: Correctable ECC logging limit reached")
        dev.sel_add("Critical", "Event log full: SEL is full")
    elif kind == "background_copy_in_progress":
        dev.background_copy_until = dev.clock.now + (fault.duration_s or 0.0)
    elif kind == "bmc_503_window":
        dev.log("bmc answering 503")
    elif kind == "kernel_panic_crashdump" and dev.arm_state == "OsIsRunning":
        dev.arm_later(30.0, lambda: dev.reset_arm("kernel panic reboot"))
    del gen  # generation-specific effects live in nvconfig


def clear(dev: Device, kind: str | None = None) -> None:
    """Remove one fault (or all). State the fault already changed stays changed.

    Raises:
        SpecError: if ``kind`` is not a known fault name.
    """
    if kind is not None and kind not in FAULT_KINDS:
        raise SpecError(f"unknown fault {kind!r}; known: {', '.join(FAULT_KINDS)}", path="kind")
    kinds = list(dev.faults) if kind is None else [kind]
    for k in kinds:
        dev.faults.pop(k, None)
        dev.fault_since.pop(k, None)
        dev.log(f"fault {k} cleared")
        if k == "rshim_owned_by_host" and dev.rshim_owner == "host":
            dev.rshim_owner = "none"


def draw_priors(plan: FaultPlan, n_devices: int) -> dict[int, list[Fault]]:
    """Which devices draw which prior faults: one Bernoulli draw per (fault, device).

    The generator is seeded by ``plan.seed`` and faults are drawn in a fixed (sorted) order,
    so the same plan always breaks the same devices.
    """
    rng = np.random.default_rng(plan.seed)
    drawn: dict[int, list[Fault]] = {}
    for kind in sorted(plan.priors):
        hits = np.flatnonzero(rng.random(n_devices) < plan.priors[kind])
        for index in hits:
            drawn.setdefault(int(index), []).append(Fault(kind=kind))
    return drawn


def mode_name(dev: Device) -> str:
    """The mode as ``mlxconfig`` would summarise it (helper for views and admin JSON)."""
    return nvconfig.mode_of(dev.nv_current, dev.ident.generation) or "inconsistent"
