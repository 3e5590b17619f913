"""No fault is a no-op: every model-level fault of section 7.6 changes what a fixed scenario
observes (traces, host views, inventory, BIOS, ports, logs, logins, refusals).

The scenario, on one device and a virtual clock: inject the fault; snapshot the host views;
BFB install over HTTP (SCP/HTTPS where the fault needs it); stage NIC mode and run mlxfwreset;
power-cycle the host through the platform BMC; reset the BMC; push a BMC package; log in.
The four reachability faults of family 3 act in the HTTP layer and are tested over HTTP in
``test_faults_http.py``.
"""

from __future__ import annotations

from typing import Any

import pytest

from fabrictwin.emulator import hostviews, install
from fabrictwin.emulator.facades import platform_reset
from fabrictwin.emulator.faults import inject
from fabrictwin.emulator.fleet import Accounts
from fabrictwin.emulator.images import BMC_PACKAGE, BUNDLE_WITH_BMC, NEXT_BFB
from fabrictwin.emulator.redfish import manager, system
from fabrictwin.emulator.redfish.auth import check_password
from fabrictwin.emulator.rferror import RedfishError
from fabrictwin.spec.faults import FAULT_KINDS, Fault

HTTP_LEVEL = {"bmc_unreachable", "bmc_slow", "bmc_503_window", "bmc_tcp_accept_but_hang"}
PARAMS: dict[str, dict[str, Any]] = {
    "account_locked_after": {"count": 1},
    "background_copy_in_progress": {"duration_s": 5000},
    "transfer_slow": {"rate_Bps": 1e6},
    "transfer_fail_at": {"at_pct": 50},
    "task_stall": {"at_pct": 50},
    "install_hang": {"stage": "os_write"},
    "link_down": {"port": 0},
    "clock_skew": {"skew_s": 3600},
    "sel_flood": {"count": 10},
}
PROTOCOL = {"scp_unknown_host": "SCP", "scp_unauthorized_client": "SCP", "https_bad_cert": "HTTPS"}


def _attempt(fn: Any) -> str:
    try:
        fn()
        return "ok"
    except RedfishError as exc:
        return f"{exc.status} {exc.message}"


def _scenario(model: Any, kind: str | None, protocol: str, image_kind: str = "") -> dict[str, Any]:
    m = model()
    dev, seen = m.dev, {}
    dev.scp_keys.add("127.0.0.1")
    if kind is not None:
        inject(dev, Fault(kind=kind, **PARAMS.get(kind, {})))
    seen["views_before"] = {cmd: hostviews.render(dev, cmd) for cmd in sorted(hostviews.VIEWS)}
    body = {"TransferProtocol": protocol, "ImageURI": "http://127.0.0.1/images/x.bfb"}
    image = BUNDLE_WITH_BMC if image_kind == "installer_vlan_fail" else NEXT_BFB
    seen["update"] = _attempt(lambda: install.simple_update(dev, m.link, body, image))
    m.clock.advance(3000)
    seen["bootprogress"] = system.computer_system(dev)["BootProgress"]
    dev.stage_mode("NicMode")
    seen["fw_reset"] = dev.nic_fw_reset()
    platform_reset(dev, "PowerCycle")
    m.clock.advance(600)
    seen["push"] = _attempt(lambda: install.multipart_update(dev, BMC_PACKAGE, False))
    dev.boot_bmc(1.0)
    m.clock.advance(200)
    acc = Accounts()
    seen["bad_login"] = _attempt(lambda: check_password(dev, acc, "root", "wrong"))
    seen["login"] = _attempt(lambda: check_password(dev, acc, "root", "0penBmc"))
    seen["trace"] = [(t, e) for t, e in dev.trace if not e.startswith("fault ")]
    seen["views_after"] = {cmd: hostviews.render(dev, cmd) for cmd in sorted(hostviews.VIEWS)}
    seen["inventory"] = {i: manager.inventory_item(dev, i)["Version"] for i in manager.INVENTORY_IDS}
    seen["bios"] = system.bios(dev)["Attributes"]
    seen["ports"] = [manager.port(dev, p)["LinkStatus"] for p in (0, 1)]
    seen["mode"] = system.oem_nvidia(dev)["Mode"]
    seen["tasks"] = {k: (t.state, t.percent(m.clock.now)) for k, t in dev.tasks.items()}
    seen["sel"] = len(dev.sel)
    seen["clock"] = manager.manager(dev)["DateTime"]
    return seen


@pytest.mark.parametrize("kind", sorted(set(FAULT_KINDS) - HTTP_LEVEL))
def test_each_fault_changes_what_the_scenario_observes(model, kind):
    protocol = PROTOCOL.get(kind, "HTTP")
    baseline = _scenario(model, None, protocol, kind)
    faulty = _scenario(model, kind, protocol, kind)
    changed = sorted(key for key in baseline if baseline[key] != faulty[key])
    assert changed, f"fault {kind} left every observation unchanged"


def test_the_baseline_scenario_installs_and_flips_the_mode(model):
    seen = _scenario(model, None, "HTTP")
    assert seen["update"] == "ok" and seen["fw_reset"] is True and seen["mode"] == "NicMode"
    assert seen["inventory"]["DPU_ATF"] == NEXT_BFB.atf and seen["login"] == "ok"
    assert seen["push"] == "ok"
